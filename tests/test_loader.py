"""Loading policies: every refusal names the file, the line, the rule and the reason; packs are folders."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rules.errors import PolicyError, RuleLookupError
from rules.loader import PolicyLoadError, load_policies, load_policy_file, load_policy_text, pack_files

# Line numbers below are the lines of this text (1-based); ASSERT and the marked lines are replaced per case.
TEMPLATE = """\
apiVersion: verdict/v1
kind: Policy
metadata: {name: gpu-node-checks, version: 1.0.0}
spec:
  defaults: {severity: high, category: GPU Operator}
  rules:
  - id: gpu-allocatable
    title: GPU nodes advertise their GPUs
    match:
      kinds: [Node]
      labelSelector: {matchLabels: {nvidia.com/gpu.present: "true"}}
    assert: ASSERT
    message: "node {name} advertises {observed} nvidia.com/gpu, expected {expected}"
    references: ["https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/"]
"""
GOOD_ASSERT = "{path: \"$.status.allocatable['nvidia.com/gpu']\", gt: 0}"


#: The head of a policy written whole in a test (4 lines: the line numbers asserted count them).
KK_POLICY = "apiVersion: verdict/v1\nkind: Policy\nmetadata: {name: kk, version: 1.0.0}\nspec:\n"


def refused(text: str) -> PolicyError:
    with pytest.raises(PolicyError) as info:
        load_policy_text(text, "policies/gpu/nodes.yaml")
    return info.value


def every_problem(text: str) -> list[PolicyError]:
    """Every problem one load of the policy text ``text`` finds, in the order said (the first, then its ``more``)."""
    with pytest.raises(PolicyError) as info:
        load_policy_text(text, "p.yaml")
    return [info.value, *info.value.more]


def test_template_loads() -> None:
    [policy] = load_policy_text(TEMPLATE.replace("ASSERT", GOOD_ASSERT), "nodes.yaml")
    assert policy.name == "gpu-node-checks"
    assert [r.uid for r in policy.rules] == ["gpu-node-checks/gpu-allocatable"]
    assert policy.rules[0].line == 7
    assert policy.rules[0].severity == "high"


def test_bad_yaml_gives_file_line_and_reason() -> None:
    err = refused(TEMPLATE.replace("ASSERT", "{path: '$.a', equals: [1}"))
    assert (err.file, err.line, err.rule) == ("policies/gpu/nodes.yaml", 12, "")
    assert err.reason.startswith("YAML syntax error")
    assert str(err).startswith("policies/gpu/nodes.yaml:12: YAML syntax error")


def test_a_quote_left_open_is_named_at_its_line() -> None:
    """Regression (trial 190): a message whose closing quote was left out was "YAML syntax error: did not find expected
    key" two lines on, at the references the quoted text ran into, naming neither the quote nor its line."""
    text = KK_POLICY + (
        "  rules:\n  - id: team\n    title: GPU node has a team\n    match: {kinds: [Node]}\n"
        "    assert: {path: \"$.metadata.labels['acme.io/team']\", exists: true}\n"
        '    message: "GPU node {name} has no acme.io/team label\n'
        '    references: ["https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/"]\n'
    )
    err = refused(text)
    assert err.line == 11
    assert err.reason == (
        "YAML syntax error: did not find expected key (while parsing a block mapping that starts at line 6, column 5)"
        " (line 10 opens a double quote at column 14 that nothing closes before this line: the quoted text runs on to the"
        " next quote; a closing quote left out?)"
    )
    # trial 193: a quote that closes on a later line (a long value wrapped, as kubectl and the pack write them) is none
    wrapped = text.replace('"GPU node {name} has no acme.io/team label\n', '"GPU node {name} has no\n      acme.io/team label"\n')
    wrapped = wrapped.replace("    references:", "   references:")
    assert "opens a" not in refused(wrapped).reason, refused(wrapped).reason
    # a closed quote, and an apostrophe inside a plain value, are no such line
    closed = text.replace("acme.io/team label\n", 'acme.io/team label"\n').replace("GPU node has a team", "it's x: y")
    assert "opens a" not in refused(closed).reason


def test_a_key_read_of_a_literal_scalar_is_refused() -> None:
    """Regression (trial 190): equals: {key: nvidia.com/gpu, value: present} (a taint without its wrapping value:)
    loaded, and read the literal "present" by the key nvidia.com/gpu: null on every object, so every node failed."""
    err = refused(TEMPLATE.replace("ASSERT", "{path: '$.spec.taints[*]', equals: {key: nvidia.com/gpu, value: present}}"))
    assert (err.line, err.path) == (12, "spec.rules[0].assert.equals.key")
    assert err.reason == (
        "a key read of the literal value present gives nothing (a value that is no mapping has no members): to compare"
        " with a mapping that has key and value members, write it whole under value: {value: {key: nvidia.com/gpu,"
        " value: present}}"
    )
    # a key read of a literal mapping is a lookup
    [policy] = load_policy_text(
        TEMPLATE.replace("ASSERT", "{path: '$.metadata.name', equals: {value: {a: gpu-1}, key: a}}"), "nodes.yaml"
    )
    assert policy.rules[0].id == "gpu-allocatable"


def test_unknown_operator_is_an_unknown_field() -> None:
    err = refused(TEMPLATE.replace("ASSERT", "{path: '$.status.allocatable', equalz: 1}"))
    assert (err.line, err.rule, err.path) == (12, "gpu-allocatable", "spec.rules[0].assert.equalz")
    assert err.reason == "unknown field 'equalz'; did you mean 'equals'?"
    assert str(err) == (
        "policies/gpu/nodes.yaml:12: rule gpu-allocatable: spec.rules[0].assert.equalz: "
        "unknown field 'equalz'; did you mean 'equals'?"
    )


def test_typo_in_a_rule_field() -> None:
    err = refused(TEMPLATE.replace("ASSERT", GOOD_ASSERT).replace("    title:", "    titel:"))
    assert (err.line, err.rule, err.path, err.reason) == (
        8,
        "gpu-allocatable",
        "spec.rules[0].titel",
        "unknown field 'titel'; did you mean 'title'?",
    )


def test_assertion_without_operator() -> None:
    err = refused(TEMPLATE.replace("ASSERT", "{path: '$.status'}"))
    assert (err.line, err.rule) == (12, "gpu-allocatable")
    assert "an assertion needs an operator" in err.reason


def test_two_subjects_refused() -> None:
    err = refused(TEMPLATE.replace("ASSERT", "{path: '$.a', var: x, exists: true}"))
    assert err.reason == "an assertion takes one subject, got path, var"


def test_bad_jsonpath_gives_the_column() -> None:
    err = refused(TEMPLATE.replace("ASSERT", "{path: \"$.status.conditions[?@.type = 'Ready']\", exists: true}"))
    assert (err.line, err.rule, err.path) == (12, "gpu-allocatable", "spec.rules[0].assert.path")
    assert err.reason == (
        "invalid JSONPath \"$.status.conditions[?@.type = 'Ready']\" at column 29: unexpected '=', did you mean '=='?"
    )


def test_a_match_pattern_no_regexp_engine_of_rfc_9535_takes_is_refused_at_its_line() -> None:
    """'\\d' is not I-Regexp: match() is false for every value (RFC 9535), so the rule loaded and passed every node."""
    err = refused(TEMPLATE.replace("ASSERT", r"{path: '$.metadata.labels[?match(@, ''\\d+'')]', exists: true}"))
    assert (err.line, err.rule, err.path) == (12, "gpu-allocatable", "spec.rules[0].assert.path")
    assert err.reason == (
        "JSONPath \"$.metadata.labels[?match(@, '\\\\d+')]\": the match() pattern '\\d+' at column 30 is not an"
        " I-Regexp (RFC 9485), so match() is false for every value (RFC 9535); write [0-9] for \\d"
    )


@pytest.mark.parametrize(
    ("assertion", "reason"),
    [
        (
            "{path: \"$.metadata.labels['nvidia.com/gpu.present']\", equals: true}",
            'label values are strings, never a boolean: write "true" (quoted); unquoted, YAML reads true as a boolean',
        ),
        (
            '{path: $.metadata.labels, key: nvidia.com/gpu.count, in: ["2", 4]}',
            'label values are strings, never a number: write "4" (quoted); unquoted, YAML reads 4 as a number',
        ),
        (
            "{path: \"$.metadata.annotations['a']\", notEquals: 1.5}",
            'annotation values are strings, never a number: write "1.5" (quoted); unquoted, YAML reads 1.5 as a number',
        ),
    ],
)
def test_a_label_value_compared_with_a_boolean_or_a_number_is_refused(assertion: str, reason: str) -> None:
    """Trial 165: equals: true against a label's value loaded, and failed every node (a label value is a string)."""
    err = refused(TEMPLATE.replace("ASSERT", assertion))
    assert (err.line, err.rule, err.reason) == (12, "gpu-allocatable", reason)


def test_a_label_value_compared_as_text_still_loads() -> None:
    for assertion in (
        '{path: "$.metadata.labels[\'nvidia.com/gpu.present\']", equals: "true"}',
        "{path: \"$.metadata.labels['nvidia.com/gpu.count']\", gt: 0}",  # a quantity, not a comparison as it is
        '{path: "$.metadata.labels[\'nvidia.com/gpu.count\']", transform: [string], equals: "2"}',
        "{path: $.spec.replicas, equals: 2}",
    ):
        load_policy_text(TEMPLATE.replace("ASSERT", assertion), "policies/gpu/nodes.yaml")


def test_a_contexts_where_equals_reads_the_judged_object() -> None:
    """Trial 167: _on_items took a context's where: {equals: {path: ...}} (which reads the judged object) for an item's,
    and $.metadata.labelz loaded."""
    text = KK_POLICY + (
        "  context:\n"
        "    same:\n"
        "      kind: Node\n"
        "      path: $.metadata.name\n"
        '      where: {field: $.metadata.name, equals: {path: "$.metadata.labelz.x"}}\n'
        "  rules:\n"
        "  - id: r\n"
        "    title: t\n"
        "    match: {kinds: [Pod]}\n"
        "    assert: {context: same, exists: true}\n"
        "    message: m\n"
        "    references: [https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/]\n"
    )
    with pytest.raises(PolicyError) as info:
        load_policy_text(text, "policies/kk.yaml")
    assert (info.value.line, info.value.path) == (9, "spec.context.same.where.equals.path")
    assert "reads metadata.labelz, which no Kubernetes object has" in info.value.reason


def test_a_context_joined_on_a_label_equal_to_a_boolean_is_refused() -> None:
    text = KK_POLICY + (
        "  context:\n"
        "    gpuNodes:\n"
        "      kind: Node\n"
        "      path: $.metadata.name\n"
        "      where: {field: \"$.metadata.labels['nvidia.com/gpu.present']\", equals: true}\n"
        "  rules:\n"
        "  - id: r\n"
        "    title: t\n"
        "    match: {kinds: [Pod]}\n"
        "    assert: {context: gpuNodes, exists: true}\n"
        "    message: m\n"
        "    references: [https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/]\n"
    )
    with pytest.raises(PolicyError) as info:
        load_policy_text(text, "policies/kk.yaml")
    err = info.value
    assert (err.line, err.path) == (9, "spec.context.gpuNodes.where.equals")
    assert err.reason.startswith('label values are strings, never a boolean: write "true" (quoted)')


def test_a_filter_comparing_a_label_with_true_is_refused_at_its_column() -> None:
    err = refused(TEMPLATE.replace("ASSERT", "{path: \"$.spec.taints[?@.metadata.labels['x'] == true]\", exists: true}"))
    assert err.reason == (
        "JSONPath \"$.spec.taints[?@.metadata.labels['x'] == true]\" compares a label's value with true at column 42,"
        " which it never equals: label values are strings; write 'true' (quoted)"
    )


def test_kubectl_path_refused_with_the_rfc_hint() -> None:
    err = refused(TEMPLATE.replace("ASSERT", "{path: '{.status.allocatable.nvidia\\.com/gpu}', gt: 0}"))
    assert (err.line, err.rule, err.path) == (12, "gpu-allocatable", "spec.rules[0].assert.path")
    assert "is kubectl JSONPath, not RFC 9535 JSONPath" in err.reason
    assert "did you mean \"$.status.allocatable['nvidia.com/gpu']\"?" in err.reason


def test_a_kubectl_path_over_a_lists_items_is_rewritten_for_the_object() -> None:
    """Trial 123: '{.items[*].metadata.name}' (kubectl get -o jsonpath over a List) was answered "did you mean
    '$.items[*].metadata.name'?", which loads and selects nothing on any object: a rule judges each object alone."""
    err = refused(TEMPLATE.replace("ASSERT", "{path: '{.items[*].metadata.name}', exists: true}"))
    assert err.reason == (
        "'{.items[*].metadata.name}' is kubectl JSONPath, not RFC 9535 JSONPath (a rule judges each object of a List on"
        " its own: its paths start at the object, not at .items); did you mean '$.metadata.name'?"
    )
    err = refused(TEMPLATE.replace("ASSERT", "{path: '{.items[0].status.allocatable}', exists: true}"))
    assert err.reason.endswith("did you mean '$.status.allocatable'?")


def test_kubectl_path_in_a_var_is_refused_too() -> None:
    text = TEMPLATE.replace("ASSERT", "{var: gpus, gt: 0}").replace(
        "    message:", "    vars: {gpus: .status.capacity.cpu}\n    message:"
    )
    err = refused(text)
    assert (err.line, err.rule, err.path) == (13, "gpu-allocatable", "spec.rules[0].vars.gpus")
    assert "did you mean '$.status.capacity.cpu'?" in err.reason


def test_missing_references() -> None:
    err = refused(TEMPLATE.replace("ASSERT", GOOD_ASSERT).replace("    references:", "    x-references:"))
    # The first error by field name: the unknown field sorts before the missing one.
    assert err.rule == "gpu-allocatable"
    text = "\n".join(
        line for line in TEMPLATE.replace("ASSERT", GOOD_ASSERT).splitlines() if not line.startswith("    references:")
    )
    err = refused(text)
    assert (err.line, err.rule, err.path) == (7, "gpu-allocatable", "spec.rules[0].references")
    # trial 47: marshmallow's words alone; the reason says what a reference is
    assert err.reason == (
        "Missing data for required field: every rule cites at least one upstream source, a URL (https://...),"
        " owner/repo@tag:path (a file at a tag or commit) or owner/repo#123 (an issue or pull request)"
    )


def test_empty_references_refused() -> None:
    err = refused(
        TEMPLATE.replace("ASSERT", GOOD_ASSERT).replace(
            '["https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/"]', "[]"
        )
    )
    assert (err.line, err.path) == (14, "spec.rules[0].references")
    assert err.reason.startswith("the list is empty: every rule cites at least one upstream source, a URL")


@pytest.mark.parametrize(
    "reference",
    ["see the wiki", "", "docs/policy-format.md", "NVIDIA/gpu-operator", "http://", "NVIDIA/gpu-operator@v25.10.1"],
)
def test_a_reference_that_is_no_source_is_refused(reference: str) -> None:
    """Trial 47: any string passed as a reference ("see the wiki", ""), though the format asks for a source a
    reader can open."""
    err = refused(
        TEMPLATE.replace("ASSERT", GOOD_ASSERT).replace(
            '["https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/"]', json.dumps([reference])
        )
    )
    assert (err.line, err.path) == (14, "spec.rules[0].references[0]")
    assert err.reason == (
        f"{reference!r} is not a source: write a URL (https://...), owner/repo@tag:path (a file at a tag or commit) or"
        " owner/repo#123 (an issue or pull request)"
    )


@pytest.mark.parametrize(
    "reference",
    [
        "https://kubevirt.io/user-guide/compute/host-devices/",
        "NVIDIA/gpu-operator@v25.10.1:controllers/state_manager.go",
        "kubevirt/kubevirt@d923fdb815cd:pkg/virt-handler/device-manager/device_controller.go",
        "NVIDIA/gpu-operator#556",
    ],
)
def test_each_form_of_source_is_taken(reference: str) -> None:
    [policy] = load_policy_text(
        TEMPLATE.replace("ASSERT", GOOD_ASSERT).replace(
            '["https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/"]', json.dumps([reference])
        ),
        "nodes.yaml",
    )
    assert list(policy.rules[0].references) == [reference]


def test_duplicate_rule_id() -> None:
    rule = TEMPLATE.split("  rules:\n")[1].replace("ASSERT", GOOD_ASSERT)
    err = refused(TEMPLATE.replace("ASSERT", GOOD_ASSERT) + rule)
    assert (err.line, err.rule, err.path) == (15, "gpu-allocatable", "spec.rules[1].id")
    assert err.reason == "duplicate rule id 'gpu-allocatable'"


def test_unknown_message_placeholder() -> None:
    err = refused(TEMPLATE.replace("ASSERT", GOOD_ASSERT).replace("node {name}", "node {nodeName}"))
    assert (err.line, err.rule, err.path) == (13, "gpu-allocatable", "spec.rules[0].message")
    assert err.reason.startswith("message placeholder {nodeName} names no var, context or built-in (known: ")


def test_unknown_placeholder_in_remediation() -> None:
    text = TEMPLATE.replace("ASSERT", GOOD_ASSERT).replace(
        "    references:", "    remediation: kubectl describe node {node}\n    references:"
    )
    err = refused(text)
    assert (err.line, err.path) == (14, "spec.rules[0].remediation")


def test_foreach_as_name_and_index_are_placeholders() -> None:
    # Regression: the name a forEach binds (`as`) was refused as an unknown placeholder at load.
    text = TEMPLATE.replace(
        "ASSERT", "{forEach: {path: '$.status.conditions[*]', as: cond, assert: {path: '$.status', equals: 'True'}}}"
    ).replace("node {name} advertises {observed} nvidia.com/gpu, expected {expected}", "condition {index} {cond} is not True")
    [policy] = load_policy_text(text, "nodes.yaml")
    assert policy.rules[0].message == "condition {index} {cond} is not True"


def test_bad_regex() -> None:
    err = refused(TEMPLATE.replace("ASSERT", "{path: '$.metadata.name', matches: '^gpu-(node'}"))
    assert (err.line, err.rule, err.path) == (12, "gpu-allocatable", "spec.rules[0].assert.matches")
    assert err.reason.startswith("bad regular expression '^gpu-(node': missing )")


def test_bad_regex_shown_as_written() -> None:
    # Regression: the pattern was shown as repr() prints it, every backslash doubled (^nvidia\\.com/).
    err = refused(TEMPLATE.replace("ASSERT", r"{keys: '$.status.allocatable', matches: '^nvidia\.com/(\w+'}"))
    assert (err.line, err.rule, err.path) == (12, "gpu-allocatable", "spec.rules[0].assert.matches")
    assert err.reason == r"bad regular expression '^nvidia\.com/(\w+': missing ), unterminated subpattern at position 13"


@pytest.mark.parametrize(
    ("argument", "path", "reason"),
    [
        ("gt: lots", "gt", "'lots' is not a Kubernetes quantity (such as 8, 500m or 64Gi)"),
        ("gte: true", "gte", "true is not a Kubernetes quantity (such as 8, 500m or 64Gi)"),
        ("lt: [1, 2]", "lt", "[1, 2] is not a Kubernetes quantity (such as 8, 500m or 64Gi)"),
        ("lte: {value: 8 GPUs}", "lte", "'8 GPUs' is not a Kubernetes quantity (such as 8, 500m or 64Gi)"),
        ("multipleOf: 1Gb", "multipleOf", "'1Gb' is not a Kubernetes quantity (such as 8, 500m or 64Gi)"),
        ("multipleOf: 0", "multipleOf", "multipleOf 0: nothing divides by 0 (give a quantity other than 0)"),
        ("versionLt: latest", "versionLt", "latest is not a version (expected e.g. v1.4.0 or 1.4.0-rc.1)"),
    ],
)
def test_comparison_literal_that_can_never_compare(argument: str, path: str, reason: str) -> None:
    # Regression: `gt: lots` passed lint, then every object with a value gave an error naming the dump's value.
    err = refused(TEMPLATE.replace("ASSERT", f"{{path: \"$.status.allocatable['nvidia.com/gpu']\", {argument}}}"))
    assert (err.line, err.rule, err.path, err.reason) == (12, "gpu-allocatable", f"spec.rules[0].assert.{path}", reason)


def test_comparison_literal_refused_wherever_an_assertion_is() -> None:
    # In a where filter, inside forEach, and in a var alternative's `when`: each is compiled as an assertion.
    where = "{keys: $.status.allocatable, where: {path: $, lte: none}, exists: true}"
    err = refused(TEMPLATE.replace("ASSERT", where))
    assert (err.line, err.path) == (12, "spec.rules[0].assert.where.lte")
    text = TEMPLATE.replace("ASSERT", "{var: gpus, exists: true}").replace(
        "    message:", "    vars:\n      gpus: {firstOf: [{value: 1, when: {path: $.x, gt: many}}]}\n    message:"
    )
    err = refused(text)
    assert (err.line, err.rule, err.path) == (14, "gpu-allocatable", "spec.rules[0].vars.gpus.firstOf[0].when.gt")
    assert err.reason == "'many' is not a Kubernetes quantity (such as 8, 500m or 64Gi)"


def test_arithmetic_literal_that_is_not_a_quantity() -> None:
    # {sum: [...]} of quantities: a literal operand that is none would make every object an error.
    err = refused(
        TEMPLATE.replace("ASSERT", "{path: $.status.capacity.cpu, gte: {sum: [{path: $.status.allocatable.cpu}, 2 cores]}}")
    )
    assert (err.line, err.rule, err.path) == (12, "gpu-allocatable", "spec.rules[0].assert.gte.sum[1]")
    assert err.reason == "'2 cores' is not a Kubernetes quantity (such as 8, 500m or 64Gi)"


def test_capture_shown_as_written() -> None:
    err = refused(TEMPLATE.replace("ASSERT", r"{keys: $.status.allocatable, capture: '^nvidia\.com/mig-\d+g', exists: true}"))
    assert (err.line, err.path) == (12, "spec.rules[0].assert.capture")
    assert err.reason == r"capture '^nvidia\.com/mig-\d+g' needs exactly one group (it has 0)"


def test_comparison_references_and_quantities_load() -> None:
    # Only literals are checked at load: a reference is resolved, and its value checked, on each object.
    for argument in ("gt: 0", "gte: 500m", "lt: 1.5", "lte: 64Gi", "gt: 1e3", "multipleOf: 1Gi", "lte: {path: $.x}"):
        [policy] = load_policy_text(TEMPLATE.replace("ASSERT", f"{{path: $.status.capacity.memory, {argument}}}"), "n.yaml")
        assert policy.rules[0].assertion.op == argument.split(":")[0]
    for version in ("v1.4.0", "1.4.0-rc.1", "2", "{data: gaSince}"):
        text = TEMPLATE.replace("ASSERT", f"{{path: $.status.nodeInfo.kubeletVersion, versionLt: {version}}}")
        [policy] = load_policy_text(text.replace("  rules:", "  data: {gaSince: v1.4.0}\n  rules:"), "n.yaml")
        assert policy.rules[0].assertion.op == "versionLt"


def test_unquoted_boolean_label_value_says_to_quote_it() -> None:
    # Regression: "Not a valid string.", with no word of YAML reading `true` as a boolean.
    err = refused(TEMPLATE.replace("ASSERT", GOOD_ASSERT).replace('gpu.present: "true"', "gpu.present: true"))
    assert (err.file, err.line, err.rule) == ("policies/gpu/nodes.yaml", 11, "gpu-allocatable")
    assert err.path == "spec.rules[0].match.labelSelector.matchLabels.nvidia.com/gpu.present"
    assert err.reason == 'label values are strings: write "true" (quoted); unquoted, YAML reads true as a boolean'


@pytest.mark.parametrize(
    ("selector", "path", "reason"),
    [
        (
            "{matchLabels: {nvidia.com/gpu.count: 8}}",
            "matchLabels.nvidia.com/gpu.count",
            'label values are strings: write "8" (quoted); unquoted, YAML reads 8 as a number',
        ),
        (
            "{matchLabels: {nvidia.com/gpu.present: }}",
            "matchLabels.nvidia.com/gpu.present",
            'label values are strings: write "" for an empty value (quoted); unquoted, YAML reads an empty value as null',
        ),
        (
            "{matchExpressions: [{key: nvidia.com/gpu.present, operator: In, values: [yes]}]}",
            "matchExpressions[0].values[0]",
            'label values are strings: write "yes" (quoted); unquoted, YAML reads yes as a boolean',
        ),
        (
            "{matchExpressions: [{key: nvidia.com/cuda.driver.major, operator: NotIn, values: ['550', 5.10]}]}",
            "matchExpressions[0].values[1]",
            'label values are strings: write "5.10" (quoted); unquoted, YAML reads 5.10 as a number',
        ),
        (
            "{matchExpressions: [{key: on, operator: Exists}]}",
            "matchExpressions[0].key",
            'label keys are strings: write "on" (quoted); unquoted, YAML reads on as a boolean',
        ),
    ],
)
def test_yaml_typed_label_selector_values(selector: str, path: str, reason: str) -> None:
    err = refused(TEMPLATE.replace("ASSERT", GOOD_ASSERT).replace('{matchLabels: {nvidia.com/gpu.present: "true"}}', selector))
    assert (err.line, err.rule, err.path, err.reason) == (
        11,
        "gpu-allocatable",
        f"spec.rules[0].match.labelSelector.{path}",
        reason,
    )


def test_yaml_typed_string_fields_say_to_quote_them() -> None:
    err = refused(TEMPLATE.replace("ASSERT", GOOD_ASSERT).replace("version: 1.0.0", "version: 1.0"))
    assert (err.line, err.rule, err.path) == (3, "", "metadata.version")
    assert err.reason == 'a string is expected here: write "1.0" (quoted); unquoted, YAML reads 1.0 as a number'
    # A version compared with versionLt: 1.30 would compare as 1.3.
    err = refused(TEMPLATE.replace("ASSERT", "{path: $.status.nodeInfo.kubeletVersion, versionLt: 1.30}"))
    assert (err.line, err.rule, err.path) == (12, "gpu-allocatable", "spec.rules[0].assert.versionLt")
    assert err.reason == 'a version is a string: write "1.30" (quoted); unquoted, YAML reads 1.30 as a number'


def test_mapping_entry_errors_point_at_the_entry() -> None:
    # Regression: marshmallow's marker for a mapping value showed in the path (spec.context.gpuPods.value.kind)
    # and the line was the entry's name, not the field.
    text = TEMPLATE.replace("ASSERT", GOOD_ASSERT).replace(
        "  rules:", "  context:\n    gpuPods:\n      apiVersion: v1\n      kind: 1\n  rules:"
    )
    err = refused(text)
    assert (err.line, err.path) == (9, "spec.context.gpuPods.kind")
    assert err.reason == 'a string is expected here: write "1" (quoted); unquoted, YAML reads 1 as a number'


def test_label_selector_in_without_values() -> None:
    text = TEMPLATE.replace("ASSERT", GOOD_ASSERT).replace(
        '{matchLabels: {nvidia.com/gpu.present: "true"}}', "{matchExpressions: [{key: nvidia.com/gpu.present, operator: In}]}"
    )
    err = refused(text)
    assert (err.line, err.rule) == (11, "gpu-allocatable")
    assert err.path == "spec.rules[0].match.labelSelector.matchExpressions[0].values"
    assert err.reason == "operator In needs a non-empty values list"


def test_label_selector_exists_with_values() -> None:
    text = TEMPLATE.replace("ASSERT", GOOD_ASSERT).replace(
        '{matchLabels: {nvidia.com/gpu.present: "true"}}',
        "{matchExpressions: [{key: nvidia.com/gpu.present, operator: Exists, values: ['true']}]}",
    )
    assert refused(text).reason == "operator Exists takes no values"


def test_label_selector_unknown_operator() -> None:
    text = TEMPLATE.replace("ASSERT", GOOD_ASSERT).replace(
        '{matchLabels: {nvidia.com/gpu.present: "true"}}',
        "{matchExpressions: [{key: nvidia.com/gpu.present, operator: Equals, values: ['true']}]}",
    )
    err = refused(text)
    assert err.path == "spec.rules[0].match.labelSelector.matchExpressions[0].operator"
    assert err.reason.startswith("Must be one of: In, NotIn, Exists, DoesNotExist")


def test_bad_severity_and_rule_id() -> None:
    err = refused(TEMPLATE.replace("ASSERT", GOOD_ASSERT).replace("severity: high", "severity: urgent"))
    assert (err.line, err.path) == (5, "spec.defaults.severity")
    err = refused(TEMPLATE.replace("ASSERT", GOOD_ASSERT).replace("id: gpu-allocatable", "id: GPU_Allocatable"))
    assert (err.line, err.rule, err.path) == (7, "GPU_Allocatable", "spec.rules[0].id")
    assert "DNS-1123" in err.reason


def test_wrong_api_version() -> None:
    err = refused(TEMPLATE.replace("ASSERT", GOOD_ASSERT).replace("verdict/v1", "verdict/v2"))
    assert (err.line, err.path, err.rule) == (1, "apiVersion", "")


def test_not_a_mapping_and_empty_file() -> None:
    assert "a policy document is a mapping" in refused("- just\n- a list\n").reason
    assert refused("# nothing here\n").reason == "no policy document in the file"
    # empty documents are skipped, as kubectl skips them (trial 123: '---\n---\n' was refused twice, once at line 3 of
    # a two-line file)
    assert refused("---\n---\n").reason == "no policy document in the file"
    good = TEMPLATE.replace("ASSERT", GOOD_ASSERT)
    assert [p.name for p in load_policy_text(f"---\n{good}---\n", "inline.yaml")] == [
        p.name for p in load_policy_text(good, "inline.yaml")
    ]


def test_missing_data_file(tmp_path: Path) -> None:
    f = tmp_path / "nodes.yaml"
    f.write_text(TEMPLATE.replace("ASSERT", GOOD_ASSERT).replace("  rules:", "  dataFiles: [data/operands.yaml]\n  rules:"))
    with pytest.raises(PolicyError) as info:
        load_policy_file(f)
    err = info.value
    assert (err.file, err.line, err.path) == (str(f), 6, "spec.dataFiles[0]")
    assert err.reason == "data file 'data/operands.yaml' not found next to the policy"


def test_data_file_needs_a_file() -> None:
    err = refused(TEMPLATE.replace("ASSERT", GOOD_ASSERT).replace("  rules:", "  dataFiles: [data/operands.yaml]\n  rules:"))
    assert err.reason == "dataFiles need a policy read from a file"


def test_bad_data_file_yaml(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "operands.yaml").write_text("workloads: [container,\n")
    f = tmp_path / "nodes.yaml"
    f.write_text(TEMPLATE.replace("ASSERT", GOOD_ASSERT).replace("  rules:", "  dataFiles: [data/operands.yaml]\n  rules:"))
    with pytest.raises(PolicyError) as info:
        load_policy_file(f)
    assert info.value.file == str(tmp_path / "data" / "operands.yaml")
    assert info.value.line == 1  # the bracket's line, not the one after the end
    assert info.value.reason.startswith("YAML syntax error")


def write_pack(root: Path) -> Path:
    pack = root / "gpu-operator"
    (pack / "data").mkdir(parents=True)
    (pack / "tests").mkdir()
    (pack / "data" / "operands.yaml").write_text("workloads: [container, vm-passthrough, vm-vgpu]\n")
    (pack / "tests" / "fixture.yaml").write_text("apiVersion: v1\nkind: Node\nmetadata: {name: n}\n")
    (pack / "README.md").write_text("# the pack\n")
    (pack / "nodes.yaml").write_text(
        TEMPLATE.replace("ASSERT", GOOD_ASSERT).replace("  rules:", "  dataFiles: [data/operands.yaml]\n  rules:")
    )
    (pack / "workloads.yml").write_text(
        TEMPLATE.replace("ASSERT", "{path: \"$.metadata.labels['nvidia.com/gpu.workload.config']\", in: {data: workloads}}")
        .replace("  rules:", "  dataFiles: [data/operands.yaml]\n  rules:")
        .replace("gpu-node-checks", "gpu-workloads")
        .replace("gpu-allocatable", "workload-config-valid")
    )
    return pack


def test_pack_folder_loads_top_level_yaml_and_ignores_data_and_tests(tmp_path: Path) -> None:
    pack = write_pack(tmp_path)
    assert [p.name for p in pack_files(pack)] == ["nodes.yaml", "workloads.yml"]
    policies = load_policies([str(pack)])
    assert [(p.name, p.pack) for p in policies.policies] == [
        ("gpu-node-checks", "gpu-operator"),
        ("gpu-workloads", "gpu-operator"),
    ]
    nodes = policies.policy("gpu-node-checks")
    assert nodes is not None
    assert nodes.data == {"workloads": ["container", "vm-passthrough", "vm-vgpu"]}
    assert nodes.data_files == ("data/operands.yaml",)
    assert [r.uid for r in policies.rules] == ["gpu-node-checks/gpu-allocatable", "gpu-workloads/workload-config-valid"]


def test_empty_folder_refused(tmp_path: Path) -> None:
    with pytest.raises(PolicyLoadError) as info:
        load_policies([str(tmp_path)])
    assert [e.reason for e in info.value.errors] == ["the folder holds no *.yaml policy file"]


def test_unknown_source_refused(tmp_path: Path) -> None:
    with pytest.raises(PolicyLoadError) as info:
        load_policies([str(tmp_path / "nope.yaml")])
    assert "no such policy file or folder, and no built-in pack of that name" in info.value.errors[0].reason


def test_duplicate_policy_names_across_files(tmp_path: Path) -> None:
    a = tmp_path / "a.yaml"
    b = tmp_path / "b.yaml"
    a.write_text(TEMPLATE.replace("ASSERT", GOOD_ASSERT))
    b.write_text(TEMPLATE.replace("ASSERT", GOOD_ASSERT))
    with pytest.raises(PolicyLoadError) as info:
        load_policies([str(a), str(b)])
    [err] = info.value.errors
    # both places given by line (a policy author's trial: the error had none)
    line = next(i for i, text in enumerate(TEMPLATE.splitlines(), 1) if "gpu-node-checks" in text)
    assert (err.file, err.line) == (str(b), line)
    assert err.reason == f"policy name 'gpu-node-checks' is also used by {a}:{line}"


def test_every_broken_file_is_reported(tmp_path: Path) -> None:
    good = tmp_path / "good.yaml"
    bad1 = tmp_path / "bad1.yaml"
    bad2 = tmp_path / "bad2.yaml"
    good.write_text(TEMPLATE.replace("ASSERT", GOOD_ASSERT))
    bad1.write_text(TEMPLATE.replace("ASSERT", "{path: '$.a[', gt: 0}").replace("gpu-node-checks", "b1"))
    bad2.write_text(TEMPLATE.replace("ASSERT", "{path: '$.a', gtt: 0}").replace("gpu-node-checks", "b2"))
    with pytest.raises(PolicyLoadError) as info:
        load_policies([str(good), str(bad1), str(bad2)])
    assert [(e.file, e.line, e.rule) for e in info.value.errors] == [
        (str(bad1), 12, "gpu-allocatable"),
        (str(bad2), 12, "gpu-allocatable"),
    ]


def test_policy_set_select(tmp_path: Path) -> None:
    pack = write_pack(tmp_path)
    other = tmp_path / "extra.yaml"
    other.write_text(TEMPLATE.replace("ASSERT", GOOD_ASSERT).replace("gpu-node-checks", "extra"))
    policies = load_policies([str(pack), str(other)])
    assert [p.name for p in policies.select(policies=["gpu-operator"]).policies] == ["gpu-node-checks", "gpu-workloads"]
    assert [p.name for p in policies.select(policies=["extra"]).policies] == ["extra"]
    chosen = policies.select(rules=["gpu-workloads/workload-config-valid"])
    assert [r.uid for r in chosen.rules] == ["gpu-workloads/workload-config-valid"]
    # A bare rule id that two policies use is refused, naming both; within one chosen pack it is one rule.
    with pytest.raises(RuleLookupError) as info:
        policies.select(rules=["gpu-allocatable"])
    assert info.value.problems[0].candidates == ("extra/gpu-allocatable", "gpu-node-checks/gpu-allocatable")
    both = policies.select(policies=["gpu-operator"], rules=["gpu-allocatable"])
    assert [r.uid for r in both.rules] == ["gpu-node-checks/gpu-allocatable"]
    # A rule outside the chosen policies selects nothing (the caller says the selection is empty).
    assert policies.select(policies=["extra"], rules=["gpu-workloads/workload-config-valid"]).rules == []
    assert policies.select().policies == policies.policies
    assert policies.select(policies=["nope"]).policies == []
    # rule(): by uid, or by a bare id only when unique.
    assert policies.rule("extra/gpu-allocatable").uid == "extra/gpu-allocatable"
    with pytest.raises(RuleLookupError):
        policies.rule("gpu-allocatable")
    assert policies.rule("workload-config-valid").uid == "gpu-workloads/workload-config-valid"


@pytest.mark.parametrize("count", ["{min: 1}", "{}", "'3'", "true", "{gt: one}"])
def test_count_argument_checked_at_load(count: str) -> None:
    # Regression: an unknown key (`min`) was ignored, so the assertion always held.
    err = refused(TEMPLATE.replace("ASSERT", f"{{path: '$.spec.taints[*]', count: {count}}}"))
    assert (err.line, err.rule, err.path) == (12, "gpu-allocatable", "spec.rules[0].assert.count")
    assert err.reason == (
        "count takes an integer, a mapping of equals/gt/gte/lt/lte to integers, or a reference to a whole number ({var: x})"
    )


# ---- issue 12 item 3: any policy that cannot load is a refusal with file, line and reason


def test_a_policy_file_that_is_not_utf8_is_refused_with_its_line(tmp_path) -> None:
    from rules.loader import PolicyLoadError, load_policies

    bad = tmp_path / "latin1.yaml"
    bad.write_bytes(b"apiVersion: verdict/v1\nkind: Policy\nmetadata: {name: x}\n# caf\xe9\nspec: {}\n")
    with pytest.raises(PolicyLoadError) as err:
        load_policies([str(bad)])
    [e] = err.value.errors
    assert (e.file, e.line, e.reason) == (str(bad), 4, "not UTF-8 text: byte 0xe9 at line 4, column 6 (save the file as UTF-8)")


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        ("(" * 5000 + "a" + ")" * 5000, "regular expression of 10,001 characters (at most 1,000)"),
        (
            "^(a+)+$",
            "regular expression '^(a+)+$' repeats a repeated group ((a+)+): that can take exponential time (catastrophic"
            " backtracking); repeat the inner part once, e.g. (a+)+ -> a+",
        ),
        ("([a-z]*)*x", "regular expression '([a-z]*)*x' repeats a repeated group (([a-z]*)*)"),
        ("(" * 450 + "a" + ")" * 450, ""),
    ],
)
def test_a_regex_that_cannot_be_run_safely_is_refused_at_load(load_policy, pattern: str, reason: str) -> None:
    from conftest import make_policy, make_rule

    doc = make_policy([make_rule({"path": "$.metadata.name", "matches": pattern})])
    if not reason:  # deep but short: compiles (or is refused) without a traceback
        try:
            load_policy(doc)
        except PolicyError as exc:
            assert exc.reason.startswith("regular expression nested too deeply") or "bad regular expression" in exc.reason
        return
    with pytest.raises(PolicyError) as err:
        load_policy(doc)
    assert err.value.reason.startswith(reason)
    assert err.value.path == "spec.rules[0].assert.matches"


def test_an_unexpected_failure_while_loading_is_a_refusal(tmp_path, monkeypatch) -> None:
    from rules import loader

    good = tmp_path / "p.yaml"
    good.write_text("apiVersion: verdict/v1\nkind: Policy\nmetadata: {name: p}\nspec: {rules: []}\n")

    def boom(*_a, **_k):
        raise MemoryError("simulated")

    monkeypatch.setattr(loader, "load_policy_file", boom)
    with pytest.raises(loader.PolicyLoadError) as err:
        loader.load_policies([str(good)])
    assert [e.reason for e in err.value.errors] == ["could not load: MemoryError: simulated"]


def test_sighup_reload_of_a_broken_file_keeps_the_last_good_set(tmp_path) -> None:
    """Regression: a non-UTF-8 policy or a 5,000-deep regex raised past PolicyLoadError in on_reload and the
    gunicorn master died. The keeper refuses and keeps serving the set it had."""
    from api.store import PolicyKeeper

    path = tmp_path / "p.yaml"
    path.write_text(
        "apiVersion: verdict/v1\nkind: Policy\nmetadata: {name: p}\nspec:\n  rules:\n  - id: r\n    title: t\n"
        "    match: {kinds: [Node]}\n    assert: {path: $.kind, exists: true}\n    message: m\n"
        "    references: [https://kubernetes.io/docs/]\n"
    )
    keeper = PolicyKeeper.load([str(path)])
    before = keeper.policies
    for broken in (b"kind: Policy\n# \xff\xfe\n", path.read_bytes().replace(b"exists: true", b"matches: '" + b"(" * 5000 + b"'")):
        path.write_bytes(broken)
        outcome = keeper.reload()
        assert outcome.ok is False
        assert outcome.errors and outcome.errors[0].file == str(path)
        assert keeper.policies is before


def test_braces_python_reads_as_text_are_refused_with_the_repeat_meant() -> None:
    """Trial 165: matches: '^team-[a-z]{2, 10}$' loaded, and failed every node: with a space (or a dash) in the braces
    Python's re reads them as the text itself."""
    err = refused(TEMPLATE.replace("ASSERT", "{path: \"$.metadata.labels['team']\", matches: '^team-[a-z]{2, 10}$'}"))
    assert (err.line, err.path) == (12, "spec.rules[0].assert.matches")
    assert err.reason == (
        "regular expression '^team-[a-z]{2, 10}$': Python's re reads {2, 10} as the text itself, not as a repeat; write {2,10}"
    )
    from rules.operators import regex_problem

    assert "write {2,10}" in regex_problem("[a-z]{2-10}")
    assert [regex_problem(p) for p in ("[a-z]{2,10}", "a{2}", "a{2,}", "a\\{2, 3}", "x{a, b}")] == [""] * 5


def test_a_regex_in_double_quotes_is_told_to_use_single_quotes() -> None:
    """Trial 165: matches: "^team-\\d+$" gave the line of 'found unknown escape character' alone."""
    err = refused(TEMPLATE.replace("ASSERT", '{path: $.metadata.name, matches: "^team-\\d+$"}'))
    assert err.line == 12
    assert err.reason == (
        "YAML syntax error: found unknown escape character at column 53: in double quotes a backslash starts one of"
        " YAML's escapes; in single quotes it is itself (a regular expression: '^team-\\d+$')"
    )


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        (
            "$.metadata.label['acme.io/team']",
            "JSONPath \"$.metadata.label['acme.io/team']\" reads metadata.label, which no Kubernetes object has"
            " (ObjectMeta's fields: name, namespace, labels, annotations, ownerReferences, uid, creationTimestamp...)"
            " (did you mean 'labels'?)",
        ),
        (
            "$.items[*].metadata.name",
            "JSONPath '$.items[*].metadata.name' reads items: a List's, but a rule judges each object of a List on its"
            " own, and its paths start at the object",
        ),
    ],
)
def test_a_path_no_kubernetes_object_has_is_refused(path: str, reason: str) -> None:
    """Trial 165: such paths loaded, and selected nothing on any object (with ifMissing: pass, every node passed)."""
    err = refused(TEMPLATE.replace("ASSERT", f'{{path: "{path}", exists: true}}'))
    assert (err.line, err.path, err.reason) == (12, "spec.rules[0].assert.path", reason)


@pytest.mark.parametrize(
    "assertion",
    [
        # trial 166: where $ is an item, not an object, its members are its own
        "{forEach: {path: '$.spec.volumes[*].configMap', assert: {path: '$.items[*].path', startsWith: conf/}}}",
        "{path: '$.spec.volumes[*].downwardAPI', where: {path: $.items, exists: true}, exists: true}",
        "{data: gpus, where: {path: $.metadata.arch, equals: hopper}, exists: true}",
        "{data: shapes, where: {path: $.labels.mig, equals: true}, exists: true}",
        "{path: $.metadata.name, in: {data: shapes, select: '$[?@.labels.gpus == 8].name'}}",
        "{path: $.metadata.clusterName, ifMissing: pass, equals: ''}",  # ObjectMeta until Kubernetes 1.24
        "{path: \"$.metadata.labels['x']\", default: false, equals: false}",  # a default the comparison can meet
        "{path: \"$.metadata.labels['x']\", equals: {value: true, transform: [string]}}",
    ],
)
def test_paths_on_items_tables_and_typed_comparisons_that_can_hold_still_load(assertion: str) -> None:
    text = TEMPLATE.replace("ASSERT", assertion).replace(
        "  rules:\n",
        "  data: {gpus: [{metadata: {arch: hopper}}], shapes: [{name: a, labels: {gpus: 8, mig: true}}]}\n  rules:\n",
    )
    [policy] = load_policy_text(text, "policies/gpu/nodes.yaml")
    assert policy.rules[0].id == "gpu-allocatable"


def test_a_reference_inside_a_literal_list_is_refused() -> None:
    """Trial 168: matches: [{data: resourceClasses, key: vm-passthrough}, ...] loaded; each mapping was read as the text of
    a regex, and the pack's own precondition never held."""
    err = refused(TEMPLATE.replace("ASSERT", "{path: $.metadata.name, matches: [{data: x, key: a}, '^b']}"))
    assert (err.line, err.path, err.reason) == (
        12,
        "spec.rules[0].assert.matches",
        "{data: x, key: a} in a list is a literal, not read as a reference: give one reference (its value may be a"
        " list), or an any/all of one assertion per reference",
    )


def test_a_data_tables_select_is_no_object_path() -> None:
    text = TEMPLATE.replace("ASSERT", "{path: $.metadata.name, in: {data: t, select: '$.items[*].metadata.nick'}}")
    text = text.replace("  rules:\n", "  data: {t: {items: [{metadata: {nick: a}}]}}\n  rules:\n")
    [policy] = load_policy_text(text, "policies/gpu/nodes.yaml")
    assert policy.rules[0].id == "gpu-allocatable"


def test_a_repeated_group_that_starts_with_a_separator_is_not_refused() -> None:
    """Regression: the pack's vGPU resource regex, (-[a-zA-Z]+)*, was flagged as catastrophic; each repetition
    must start with '-', so there is one way to match it."""
    from rules.operators import regex_problem

    assert regex_problem(r"^nvidia\.com/(NVIDIA|GRID)_[A-Z0-9]+(-[a-zA-Z]+)*-[0-9]+Q$") == ""
    assert regex_problem(r"(a|b)+") == ""
    assert "repeats a repeated group ((?:\\w+)+)" in regex_problem(r"(?:\w+)+")


@pytest.mark.parametrize(
    "pattern",
    [r"^(x+x+)+y$", r"(a|a)*$", r"(\w+\s?)*$", r"(a*a*)*b", r"(a|aa)+$", r"(.*a){25}", r"(-.+)*", r"(ab|ab)*"],
)
def test_a_repeated_group_that_can_split_a_text_two_ways_is_refused(pattern: str) -> None:
    """Trial 41: these passed the load check (it knew only a repeated group of one repeated atom, (a+)+), and one
    match of a label value of 26 characters held a service worker (and the GIL) until gunicorn killed it at 120 s,
    with no 503: (a|a)*$ took 19 s, (a*a*)*b over 75 s. A repeated group is refused unless its length is fixed or
    each repetition starts with a character its variable parts cannot match."""
    from rules.operators import regex_problem

    problem = regex_problem(pattern)
    assert problem.startswith(
        f"regular expression '{pattern}' repeats a group that can match the same text in more than one way"
    ), problem
    assert "exponential time" in problem


@pytest.mark.parametrize(
    "pattern",
    [
        r"(\.[a-z]+)*$",
        r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$",  # a DNS subdomain
        r"^v?\d+(\.\d+)*$",
        r"(-(ab|cd))*",
        r"(ab)*",
        # the pack's own: a repetition that ends with a separator (a DNS prefix of a label key)
        r"^(?!([a-z0-9-]+\.)*kubernetes\.io/)[a-z0-9]([-a-z0-9.]*[a-z0-9])?/.+$",
    ],
)
def test_a_repeated_group_with_one_way_to_split_is_kept(pattern: str) -> None:
    from rules.operators import regex_problem

    assert regex_problem(pattern) == ""


THREE_MISTAKES = """\
apiVersion: verdict/v1
kind: Policy
metadata: {name: gpu-node-checks}
spec:
  context:
    migStrategy: {kind: ClusterPolicy, path: "$.spec.mig.strategy", first: true, default: none}
  rules:
  - id: gpu-present
    title: GPU nodes say so
    match: {kinds: [Node]}
    assert: {path: "{.metadata.labels.nvidia\\\\.com/gpu\\\\.present}", exists: true}
    message: "node {name} has no nvidia.com/gpu.present label"
    references: ["https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/"]
  - id: gpu-allocatable
    title: GPU nodes advertise their GPUs
    match: {kinds: [Node]}
    assert: {path: "$.status.allocatable[", gt: 0}
    message: "node {name} advertises no GPU"
    references: ["https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/"]
  - id: mig-single
    title: The MIG strategy is single
    match: {kinds: [Node]}
    assert: {context: migStrategi, equals: single}
    message: "node {nodeName}: MIG strategy {migStrategy}"
    references: ["https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/"]
---
apiVersion: verdict/v1
kind: Policy
metadata: {name: gpu-pod-checks: x}
---
apiVersion: verdict/v1
kind: Policy
metadata: {name: gpu-pod-checks, titel: Pods}
spec: {rules: []}
"""


def test_every_independent_mistake_of_a_file_in_one_round() -> None:
    """Regression: lint stopped at a document's first compile error (and a file's first broken document), so
    a policy with three mistakes took three rounds."""
    err = refused(THREE_MISTAKES)
    found = [(e.line, e.rule, e.path, e.reason.split(";")[0]) for e in (err, *err.more)]
    assert found == [
        (
            11,
            "gpu-present",
            "spec.rules[0].assert.path",
            r"'{.metadata.labels.nvidia\.com/gpu\.present}' is kubectl JSONPath, not RFC 9535 JSONPath",
        ),
        (
            17,
            "gpu-allocatable",
            "spec.rules[1].assert.path",
            "invalid JSONPath '$.status.allocatable[' at column 22: unexpected end of query",
        ),
        (23, "mig-single", "spec.rules[2].assert.context", "unknown context 'migStrategi'"),
        (
            24,
            "mig-single",
            "spec.rules[2].message",
            "message placeholder {nodeName} names no var, context or built-in (known: apiVersion, detail, expected, kind,"
            " migStrategy, name, namespace, observed, path, policy, rule, severity)",
        ),
        (29, "", "", "YAML syntax error: did not find expected ',' or '}'"),
        (33, "", "metadata.titel", "unknown field 'titel'"),
        (34, "", "spec.rules", "at least one is required: an empty list holds none"),
    ]
    assert err.more[0].more == []  # one list, held by the error raised


def test_a_broken_assertion_leaves_its_rule_s_placeholders_checked_in_the_same_round() -> None:
    """Regression (an operator's trial): a bad JSONPath in a rule's assertion hid a misspelt {obsrved} in its
    message until the path was fixed; the names the assertion binds (its forEach ``as``) still count."""
    text = """apiVersion: verdict/v1
kind: Policy
metadata: {name: multi, version: 1.0.0}
spec:
  rules:
  - id: ready
    title: Node is ready
    match: {kinds: [Node]}
    assert:
      forEach:
        path: "$.status.conditions[?@.type = 'Ready']"
        as: cond
        assert: {var: cond, key: status, equals: "True"}
    message: "{name} {cond.status} {obsrved}"
    references: [https://kubernetes.io/docs/concepts/architecture/nodes/]
"""
    err = refused(text)
    found = [(e.line, e.path, e.reason.split(";")[0]) for e in (err, *err.more)]
    assert [(line, path) for line, path, _ in found] == [(11, "spec.rules[0].assert.forEach.path"), (14, "spec.rules[0].message")]
    assert found[1][2] == "message placeholder {obsrved} names no var, context or built-in"


def test_every_problem_of_a_policy_is_said_in_one_round() -> None:
    """Trial 64: a misspelt field in one rule hid an unknown context in another (names were checked only when no
    rule was refused), and a rule with a misspelt title or a refused severity had its kubectl JSONPath said only in
    the next round."""
    text = """apiVersion: verdict/v1
kind: Policy
metadata: {name: site, version: 1.0.0}
spec:
  context:
    clusterPolicies: {kind: ClusterPolicy, path: $.metadata.name}
  rules:
  - id: one
    title: a node has a name
    match: {kinds: [Node]}
    preconditions: [{context: clusterPolicy, exists: true}]
    assert: {path: $.metadata.name, exists: true}
    message: no name
    references: ["https://kubernetes.io/"]
  - id: two
    title: a pod has limits
    severity: urgent
    match: {kinds: [Pod]}
    assert: {path: '{.spec.containers[*].resources.limits}', exists: true}
    message: no limits
    references: ["https://kubernetes.io/"]
  - id: three
    titel: a pod has a memory limit
    match: {kinds: [Pod]}
    assert: {path: '{.resources.limits.memory}', exists: true}
    message: no memory limit
    references: ["https://kubernetes.io/"]
"""
    err = refused(text)
    found = [(e.line, e.rule, e.path, e.reason.split(";")[0]) for e in (err, *err.more)]
    assert found == [
        (11, "one", "spec.rules[0].preconditions[0].context", "unknown context 'clusterPolicy'"),
        (17, "two", "spec.rules[1].severity", "Must be one of: critical, high, medium, low, info."),
        (
            19,
            "two",
            "spec.rules[1].assert.path",
            "'{.spec.containers[*].resources.limits}' is kubectl JSONPath, not RFC 9535 JSONPath",
        ),
        (23, "three", "spec.rules[2].titel", "unknown field 'titel'"),
        (25, "three", "spec.rules[2].assert.path", "'{.resources.limits.memory}' is kubectl JSONPath, not RFC 9535 JSONPath"),
        (22, "three", "spec.rules[2].title", "Missing data for required field."),
    ]


def test_a_misspelt_field_in_one_rule_leaves_the_other_rules_checked_in_the_same_round() -> None:
    """Regression (an operator's trial): a field error (``asert``) in one rule hid a bad JSONPath and an unknown
    placeholder in another rule of the file until it was fixed: lint took two rounds."""
    text = """apiVersion: verdict/v1
kind: Policy
metadata: {name: mine, version: 1.0.0}
spec:
  rules:
  - id: a
    title: A
    match: {kinds: [Node]}
    asert: {path: "$.metadata.name", exists: true}
    message: x
    references: [https://kubernetes.io/]
  - id: b
    title: B
    match: {kinds: [Node]}
    assert: {path: "$.metadata[", exists: true}
    message: "node {nmae}"
    references: [https://kubernetes.io/]
  - id: a
    title: C
    match: {kinds: [Node]}
    assert: {path: "$.kind", exists: true}
    message: fine
    references: [https://kubernetes.io/]
"""
    err = refused(text)
    found = [(e.line, e.rule, e.path, e.reason.split(";")[0]) for e in (err, *err.more)]
    # in file order, a missing field after the typos it may echo (the first said is the one to fix first)
    assert found == [
        (9, "a", "spec.rules[0].asert", "unknown field 'asert'"),
        (15, "b", "spec.rules[1].assert.path", "invalid JSONPath '$.metadata[' at column 12: unexpected end of query"),
        (16, "b", "spec.rules[1].message", "message placeholder {nmae} names no var, context or built-in"),
        (18, "a", "spec.rules[2].id", "duplicate rule id 'a'"),
        (6, "a", "spec.rules[0].assert", "Missing data for required field."),
    ]
    # a rule that lacks only references (or a title, a message) has its own paths and names checked in the same
    # round (a verifying trial: its bad path was never mentioned)
    lacking = """apiVersion: verdict/v1
kind: Policy
metadata: {name: rr, version: 1.0.0}
spec:
  rules:
  - id: bad-jsonpath
    title: B
    match: {kinds: [Node]}
    assert: {path: "$.metadata[", exists: true}
    message: "node {nmae}"
"""
    err = refused(lacking)
    assert [(e.line, e.path, e.reason.split(";")[0]) for e in (err, *err.more)] == [
        (9, "spec.rules[0].assert.path", "invalid JSONPath '$.metadata[' at column 12: unexpected end of query"),
        (10, "spec.rules[0].message", "message placeholder {nmae} names no var, context or built-in"),
        (
            6,
            "spec.rules[0].references",
            "Missing data for required field: every rule cites at least one upstream source, a URL (https://...),"
            " owner/repo@tag:path (a file at a tag or commit) or owner/repo#123 (an issue or pull request)",
        ),
    ]
    # a field error outside the rules still stops there (what the rules are compiled with may be the broken part)
    outside = refused(text.replace("metadata: {name: mine", "metadata: {nmae: mine"))
    paths = [e.path for e in (outside, *outside.more)]
    assert paths == ["metadata.nmae", "spec.rules[0].asert", "metadata.name", "spec.rules[0].assert"]


def test_a_kind_written_as_kubectl_s_resource_name_is_refused_with_the_kind() -> None:
    """Regression (a policy author's trial): `kinds: [node]` loaded, and the rule matched nothing and judged nothing:
    "0 objects judged", exit 0, a clean-looking cluster in CI. And `kind: [Node]` under match was told to check its
    indentation instead of "did you mean 'kinds'?"."""
    rule = (
        KK_POLICY
        + """  rules:
  - id: q
    title: Q
    match: {kinds: [node, Pod, vmi, '*']}
    exclude: {kinds: [pods]}
    assert: {path: "$.metadata.name", exists: true}
    message: x
    references: [https://kubernetes.io/]
"""
    )
    err = refused(rule)
    assert [(e.line, e.path, e.reason) for e in (err, *err.more)] == [
        (8, "spec.rules[0].match.kinds[0]", "kind 'node' matches no object: a kind is written as the objects' kind field,"
         " in CamelCase; did you mean 'Node'?"),
        (8, "spec.rules[0].match.kinds[2]", "kind 'vmi' matches no object: a kind is written as the objects' kind field,"
         " in CamelCase; did you mean 'VirtualMachineInstance'?"),
        (9, "spec.rules[0].exclude.kinds[0]", "kind 'pods' matches no object: a kind is written as the objects' kind field,"
         " in CamelCase; did you mean 'Pod'?"),
    ]  # fmt: skip
    singular = rule.replace("match: {kinds: [node, Pod, vmi, '*']}", "match: {kind: [Node]}")
    err = refused(singular.replace("    exclude: {kinds: [pods]}\n", ""))
    assert err.reason == "unknown field 'kind' here; did you mean 'kinds'?"
    # trial 165: match (a rule's field) for matches in an assertion was told only to check its indentation
    err = refused(TEMPLATE.replace("ASSERT", "{path: $.metadata.name, match: '^gpu-'}"))
    assert (err.line, err.reason) == (12, "unknown field 'match' here; did you mean 'matches'?")
    # trial 191: a key of one letter was taken for the singular of a field ('a' for 'as')
    err = refused(TEMPLATE.replace("ASSERT", "{path: $.metadata.name, exists: true, a: 1}"))
    assert (err.line, err.reason.split(";")[0]) == (12, "unknown field 'a'")
    assert "did you mean" not in err.reason


def test_a_kind_misspelt_or_plural_and_an_api_group_without_version_are_refused_in_contexts_and_match() -> None:
    """Trial 94: a context of kind PriorityClas (or pod, or Pods) and one of apiVersion scheduling.k8s.io loaded,
    read no object, and a message said the dump held no PriorityClass; match refused only a lower-case kind. Each is
    refused where it stands, with the kind or apiVersion meant; a custom resource's kind still loads."""
    text = (
        KK_POLICY
        + """  context:
    classes: {kind: PriorityClas, path: $.metadata.name}
    pods: {kind: Pods, apiVersion: scheduling.k8s.io}
    mine: {kind: GPUClusterConfig, apiVersion: example.com/*}
  rules:
  - id: q
    title: Q
    match: {kinds: [Deploymnet], apiVersions: [apps]}
    assert:
      not: {context: classes, exists: false}
      description: "{name} names {nothing}"
    message: x {mine}
    references: [https://kubernetes.io/]
"""
    )
    err = refused(text)
    assert [(e.line, e.path, e.reason) for e in (err, *err.more)] == [
        (6, "spec.context.classes.kind", "kind 'PriorityClas' matches no object (not a kind Kubernetes or the packs know,"
         " and close to 'PriorityClass'); did you mean 'PriorityClass'?"),
        (7, "spec.context.pods.apiVersion", "apiVersion 'scheduling.k8s.io' matches no object: an object's apiVersion is"
         " group/version (or v1 for the core API); did you mean 'scheduling.k8s.io/*'?"),
        (7, "spec.context.pods.kind", "kind 'Pods' matches no object (the plural of 'Pod'); did you mean 'Pod'?"),
        (12, "spec.rules[0].match.apiVersions[0]", "apiVersion 'apps' matches no object: an object's apiVersion is"
         " group/version (or v1 for the core API); did you mean 'apps/*'?"),
        (12, "spec.rules[0].match.kinds[0]", "kind 'Deploymnet' matches no object (not a kind Kubernetes or the packs"
         " know, and close to 'Deployment'); did you mean 'Deployment'?"),
        # in the same round (trial 135: a refused match left its rule's other mistakes for the next one)
        (15, "spec.rules[0].assert.description", "message placeholder {nothing} names no var, context or built-in"
         " (known: apiVersion, classes, detail, expected, kind, mine, name, namespace, observed, path, pods, policy,"
         " rule, severity)"),
    ]  # fmt: skip
    fixed = text.replace("PriorityClas,", "PriorityClass,").replace("Pods, apiVersion: scheduling.k8s.io", "Pod")
    fixed = fixed.replace("[Deploymnet], apiVersions: [apps]", "[Deployment], apiVersions: [apps/v1]")
    # the not's description is its failure's message: a placeholder naming nothing is refused as in a message
    err = refused(fixed)
    assert [(e.line, e.path) for e in (err, *err.more)] == [(15, "spec.rules[0].assert.description")]
    assert err.reason.startswith("message placeholder {nothing} names no var, context or built-in (known: ")
    assert load_policy_text(fixed.replace("{nothing}", "{mine}"), "p.yaml")


def test_a_refused_definition_is_not_also_an_unknown_name() -> None:
    text = THREE_MISTAKES.split("---")[0].replace('path: "$.spec.mig.strategy"', 'path: "$.spec.mig[strategy"')
    text = text.replace("migStrategi", "migStrategy").replace("{nodeName}", "{name}")
    err = refused(text)
    found = [(e.line, e.path) for e in (err, *err.more)]
    # the context's own refusal, the two broken paths; never "unknown context 'migStrategy'" for rule 3
    assert found == [(6, "spec.context.migStrategy.path"), (11, "spec.rules[0].assert.path"), (17, "spec.rules[1].assert.path")]


def test_a_key_written_twice_in_a_policy_or_data_file_is_refused(tmp_path: Path) -> None:
    """Regression: a rule of the built-in pack had two ``preconditions:`` keys; YAML kept the second and the first
    (KubeVirt before v0.48.0 reading only its ConfigMap) was silently dropped, and lint said "ok"."""
    from rules.loader import PolicyError, load_policy_file

    policy = tmp_path / "twice.yaml"
    policy.write_text(
        "apiVersion: verdict/v1\nkind: Policy\nmetadata: {name: twice}\nspec:\n  rules:\n"
        "  - id: r\n    title: t\n    match: {kinds: [Node]}\n"
        "    preconditions: [{path: $.a, exists: true}]\n"
        "    assert: {path: $.kind, exists: true}\n"
        "    preconditions: [{path: $.b, exists: true}]\n"
        "    message: m\n    references: [https://kubernetes.io/]\n"
    )
    with pytest.raises(PolicyError) as err:
        load_policy_file(policy)
    assert str(err.value) == (
        f"{policy}:11: key 'preconditions' stands twice in one mapping: YAML would keep only the last one; write it once"
    )
    data = tmp_path / "tables.yaml"
    data.write_text("names: [a]\nnames: [b]\n")
    policy.write_text(
        "apiVersion: verdict/v1\nkind: Policy\nmetadata: {name: twice}\nspec:\n  dataFiles: [tables.yaml]\n  rules:\n"
        "  - id: r\n    title: t\n    match: {kinds: [Node]}\n    assert: {path: $.kind, exists: true}\n"
        "    message: m\n    references: [https://kubernetes.io/]\n"
    )
    with pytest.raises(PolicyError, match="key 'names' stands twice in one mapping"):
        load_policy_file(policy)


def test_a_known_field_in_the_wrong_place_is_said_to_be_misplaced_not_misspelt(tmp_path: Path) -> None:
    """Regression (review): 'as' written beside forEach instead of inside it was refused with "unknown field
    'as'; did you mean 'as'?"."""
    from rules.loader import PolicyError, load_policy_file

    policy = tmp_path / "misplaced.yaml"
    policy.write_text(
        "apiVersion: verdict/v1\nkind: Policy\nmetadata: {name: misplaced}\nspec:\n  rules:\n"
        "  - id: r\n    title: t\n    match: {kinds: [Node]}\n"
        "    assert:\n      forEach: {keys: $.metadata.labels, assert: {var: label, exists: true}}\n      as: label\n"
        "    message: m\n    references: [https://kubernetes.io/]\n"
    )
    with pytest.raises(PolicyError) as err:
        load_policy_file(policy)
    assert "unknown field 'as' here: it is a field elsewhere in a policy; check its indentation" in str(err.value)
    assert "did you mean 'as'" not in str(err.value)


def test_a_policy_or_data_file_past_the_size_limit_is_refused_unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression (an adversarial trial): a 1.1 GB file in the policies folder was read whole at each reload;
    the reload was refused, but the master kept 2.3 GB and every new worker was replaced after each request."""
    from rules import loader

    monkeypatch.setattr(loader, "MAX_POLICY_BYTES", 1000)
    big = tmp_path / "zz.yaml"
    big.write_text("# " + "x" * 2000 + "\n")
    with pytest.raises(PolicyLoadError) as info:
        load_policies([str(tmp_path)])
    [err] = info.value.errors
    assert (err.file, err.reason) == (str(big), "larger than 1,000 bytes (VERDICT_MAX_POLICY_BYTES): not read; is it a policy?")


def _one_rule(message: str, assertion: str = GOOD_ASSERT) -> str:
    return TEMPLATE.replace("ASSERT", assertion).replace(
        'message: "node {name} advertises {observed} nvidia.com/gpu, expected {expected}"', f"message: {json.dumps(message)}"
    )


def test_every_unknown_placeholder_of_a_message_is_named_at_once() -> None:
    """Trial 47: only the first unknown placeholder was reported; the second surfaced after the first was fixed."""
    err = refused(_one_rule("node {name} owner {owner} team {nmae}"))
    assert err.path == "spec.rules[0].message"
    assert err.reason.startswith(
        "message placeholders {owner}, {nmae} (did you mean {name}?) name no var, context or built-in (known:"
    )


def test_item_outside_a_for_each_is_refused() -> None:
    """Trial 47: {item} in a rule without a forEach passed the load check and was written out as it stands."""
    err = refused(_one_rule("node {name} has {item}"))
    assert err.reason == (
        "message placeholder {item} names no var, context or built-in; {item} is bound only inside a forEach"
        " (item is its default as: name)"
    )
    inside = "{forEach: {keys: $.status.allocatable, assert: {var: item, exists: true}}}"
    [policy] = load_policy_text(_one_rule("node {name} has {item}", inside), "nodes.yaml")
    assert policy.rules[0].message == "node {name} has {item}"


def test_an_assertion_message_is_checked_like_the_rule_message() -> None:
    """Trial 47: an unknown placeholder in an assertion's own message passed lint and was written out as it stands."""
    assertion = '{all: [{path: "$.metadata.name", exists: true, message: "bad team {teem}"}]}'
    err = refused(_one_rule("node {name}", assertion))
    assert (err.line, err.path) == (12, "spec.rules[0].assert.all[0].message")
    assert err.reason.startswith("message placeholder {teem} names no var, context or built-in")


def test_an_unknown_operator_lists_the_operators() -> None:
    """Trial 47: 'oneOf' was refused as an unknown field with no word of what an assertion takes; a close typo
    still gets its "did you mean"."""
    err = refused(_one_rule("node {name}", '{path: "$.metadata.name", oneOf: [a, b]}'))
    assert err.path == "spec.rules[0].assert.oneOf"
    assert err.reason.startswith("unknown field 'oneOf'; an assertion's operators are admitsNode, contains, count,")
    assert err.reason.endswith("versionLt (and all, any, not, forEach)")
    typo = refused(_one_rule("node {name}", '{path: "$.metadata.name", equal: a}'))
    assert typo.reason == "unknown field 'equal' here; did you mean 'equals'?"


def test_the_schemas_kept_between_loads_carry_nothing_from_one_document_to_the_next() -> None:
    """The policy and condition schemas are made once and kept (one made per condition was a third of loading
    the built-in pack): a document refused between two good ones is refused the same each time, and a good one
    loads the same before and after it."""
    good = TEMPLATE.replace("ASSERT", GOOD_ASSERT).replace(
        "    message:", "    vars:\n      gpus: {firstOf: [{value: 1, when: {path: $.x, gt: 0}}]}\n    message:"
    )
    bad = good.replace("gt: 0}}]}", "gtt: 0}}]}")
    first = load_policy_text(good, "nodes.yaml")
    errors = [str(refused(bad)) for _ in range(2)]
    assert errors[0] == errors[1] and "gtt" in errors[0], errors
    again = load_policy_text(good, "nodes.yaml")
    assert [r.uid for r in again[0].rules] == [r.uid for r in first[0].rules] == ["gpu-node-checks/gpu-allocatable"]
    assert sorted(again[0].rules[0].vars) == ["gpus"]


def test_a_misspelt_operator_leaves_its_own_rule_checked_in_the_same_round() -> None:
    """Trial 71: a rule with ``exsits: true`` and an unknown placeholder was refused for the operator only; the
    placeholder was said after the fix, in a second lint round. A misspelt field at any depth is compiled as the
    known field closest to it (only to find the rule's other mistakes: the rule is still refused)."""
    text = TEMPLATE.replace("ASSERT", '{path: "$.metadata.labels.team", exsits: true}').replace(
        "advertises {observed} nvidia.com/gpu, expected {expected}", "has no team label ({teamLabel})"
    )
    err = refused(text)
    found = [(e.line, e.path, e.reason.split(";")[0].split(" (known")[0]) for e in (err, *err.more)]
    assert found == [
        (12, "spec.rules[0].assert.exsits", "unknown field 'exsits'"),
        (13, "spec.rules[0].message", "message placeholder {teamLabel} names no var, context or built-in"),
    ]
    # a misspelling with no close field is left out; where the rule then does not validate (an assertion with no
    # operator left), the other rules are still checked as before
    far = TEMPLATE.replace("ASSERT", '{path: "$.metadata.labels.team", zzz: true}').replace("{expected}", "{expectd}")
    err = refused(far)
    assert [(e.line, e.path) for e in (err, *err.more)] == [(12, "spec.rules[0].assert.zzz")]


def test_a_context_field_dedented_and_a_where_key_misspelt_say_what_was_meant() -> None:
    """Trial 94: path: dedented into spec.context was refused as "Invalid input type.", and where: {field, equal}
    with the whole usage but no word of equals."""
    text = (
        KK_POLICY
        + """  context:
    classes:
      kind: PriorityClass
    path: $.metadata.name
  rules:
  - id: q
    title: Q
    match: {kinds: [Pod]}
    assert: {context: classes, exists: true}
    message: x
    references: [https://kubernetes.io/]
"""
    )
    err = refused(text)
    assert (err.line, err.path, err.reason) == (
        8,
        "spec.context.path",
        "a context is a mapping ({kind: ..., path: ...}), not a single value: is 'path' a field of the context above it?"
        " check its indentation",
    )
    err = refused(text.replace("    path: $.metadata.name\n", "      where: {field: $.metadata.name, equal: x}\n"))
    assert (err.line, err.path) == (8, "spec.context.classes.where")
    assert err.reason.startswith("'equal' (did you mean 'equals'?); where takes {field: <JSONPath on the other object>")


def test_a_placeholder_in_a_preconditions_description_is_refused() -> None:
    """Trial 94: a precondition's description is the skip reason, said as written ("precondition not met: desc for
    {name}"), while a not's description is its failure's message, filled in: a placeholder in the first is refused."""
    text = (
        KK_POLICY
        + """  rules:
  - id: q
    title: Q
    match: {kinds: [Pod]}
    preconditions:
    - {path: $.spec.nodeName, exists: true, description: "pod {name} is not bound"}
    assert: {path: $.metadata.name, exists: true}
    message: x
    references: [https://kubernetes.io/]
"""
    )
    err = refused(text)
    assert (err.line, err.path, err.reason) == (
        10,
        "spec.rules[0].preconditions[0].description",
        "a precondition's description is the skip reason, said as written for every object it skips (the report's notes"
        " count the skips by it): it takes no placeholder ({name})",
    )


@pytest.mark.parametrize(
    ("kind", "reason"),
    [
        ("POD", "kind 'POD' matches no object (written in other letter case than 'Pod'); did you mean 'Pod'?"),
        (
            "Pdo",
            "kind 'Pdo' matches no object (not a kind Kubernetes or the packs know, and close to 'Pod'); did you mean 'Pod'?",
        ),
        (
            "Nod",
            "kind 'Nod' matches no object (not a kind Kubernetes or the packs know, and close to 'Node'); did you mean 'Node'?",
        ),
        (
            "Pdos",
            "kind 'Pdos' matches no object (not a kind Kubernetes or the packs know, and close to 'Pod'); did you mean 'Pod'?",
        ),
        (
            "priorityclass",
            "kind 'priorityclass' matches no object: a kind is written as the objects' kind field, in CamelCase; did you mean"
            " 'PriorityClass'?",
        ),
        ("Rule", None),  # one letter changed in a short kind: a custom resource's, maybe
        ("Mode", None),
        # review: a known kind with a word around it is a custom resource's (NVIDIA Network Operator's, KubeVirt's)
        ("NicClusterPolicy", None),
        ("VirtualMachineInstancePreset", None),
        (  # trial 97: it loaded and matched nothing
            "Node.v1",
            "kind 'Node.v1' matches no object: a kind is a name of letters and digits (Node), its group and version go in"
            " apiVersions",
        ),
    ],
)
def test_kinds_in_other_case_or_a_letter_off_are_refused_with_the_kind_meant(kind: str, reason: str | None) -> None:
    """Trial 95: kinds [POD], [Nod], [Pdo] loaded and matched nothing (0 objects judged, exit 0), and 'priorityclass'
    was told to write 'Priorityclass', itself refused."""
    text = f"""apiVersion: verdict/v1
kind: Policy
metadata: {{name: kk, version: 1.0.0}}
spec:
  rules:
  - id: q
    title: Q
    match: {{kinds: [{kind}]}}
    assert: {{path: $.metadata.name, exists: true}}
    message: x
    references: [https://kubernetes.io/]
"""
    if reason is None:
        assert load_policy_text(text, "p.yaml")
    else:
        err = refused(text)
        assert (err.line, err.path, err.reason) == (8, "spec.rules[0].match.kinds[0]", reason)


# spec.include: contexts and vars written once for several policies of a pack
INCLUDING = TEMPLATE.replace(
    "ASSERT", "{context: gpuNodeNames, count: {gte: 1}}\n    passMessage: '{gpuNodesText} ({where})'"
).replace("  rules:", "  include: [shared/gpu-nodes.yaml]\n  rules:")
SHARED = """\
# shared by the pack's node policies
context:
  gpuNodeNames: {kind: Node, path: $.metadata.name}
vars:
  gpuNodesText: {context: gpuNodeNames, join: ", "}
  where: {format: "from the shared file"}
"""


def _with_shared(tmp_path: Path, shared: str, policy: str = INCLUDING) -> Path:
    (tmp_path / "shared").mkdir(exist_ok=True)
    (tmp_path / "shared" / "gpu-nodes.yaml").write_text(shared)
    f = tmp_path / "nodes.yaml"
    f.write_text(policy)
    return f


def _refused_file(f: Path) -> PolicyError:
    with pytest.raises(PolicyError) as info:
        load_policy_file(f)
    return info.value


def test_an_included_file_gives_its_contexts_and_vars_and_the_policys_own_stand_instead(tmp_path: Path) -> None:
    from rules.evaluate import evaluate
    from rules.loader import PolicySet
    from rules.reader import parse_bytes

    f = _with_shared(tmp_path, SHARED)
    [policy] = load_policy_file(f)
    assert sorted(policy.contexts) == ["gpuNodeNames"]
    assert list(policy.vars) == ["gpuNodesText", "where"]
    node = b"apiVersion: v1\nkind: Node\nmetadata: {name: gpu-1, labels: {nvidia.com/gpu.present: 'true'}}\n"
    report = evaluate(parse_bytes(node, "n.yaml"), PolicySet([policy]))
    assert [(r.result, r.message) for o in report.objects for r in o.results] == [("pass", "gpu-1 (from the shared file)")]
    # the policy's own var of an included name stands instead of the included one
    own = INCLUDING.replace("  include:", "  vars:\n    where: {format: 'from the policy'}\n  include:")
    [policy] = load_policy_file(_with_shared(tmp_path, SHARED, own))
    report = evaluate(parse_bytes(node, "n.yaml"), PolicySet([policy]))
    assert [r.message for o in report.objects for r in o.results] == ["gpu-1 (from the policy)"]


def test_an_included_files_mistakes_are_said_at_its_own_lines(tmp_path: Path) -> None:
    shown = str(tmp_path / "shared" / "gpu-nodes.yaml")
    # a JSONPath that does not compile: the included file's line 3
    err = _refused_file(_with_shared(tmp_path, SHARED.replace("$.metadata.name", "'$.metadata[?@ ==]'")))
    assert (err.file, err.line, err.path) == (shown, 3, "context.gpuNodeNames.path")
    # a var reading a name nothing defines, with the closest: line 5
    err = _refused_file(_with_shared(tmp_path, SHARED.replace("{context: gpuNodeNames, join", "{context: gpuNodeName, join")))
    assert (err.file, err.line) == (shown, 5)
    assert "gpuNodeName" in err.reason and "did you mean 'gpuNodeNames'" in err.reason
    # an unknown field of a context, with the closest spelling
    err = _refused_file(_with_shared(tmp_path, SHARED.replace("{kind: Node, path:", "{kind: Node, paht:")))
    assert (err.file, err.line, err.reason) == (shown, 3, "unknown field 'paht'; did you mean 'path'?")
    # a field an included file does not hold (it is no policy)
    err = _refused_file(_with_shared(tmp_path, SHARED + "rules: []\n"))
    assert (err.file, err.line, err.path) == (shown, 7, "rules")
    assert err.reason == "an included file holds context: and vars: only, not 'rules' (the rest stays in each policy)"
    # YAML that does not parse
    err = _refused_file(_with_shared(tmp_path, SHARED.replace('join: ", "}', 'join: ", "')))
    assert (err.file, err.line) == (shown, 6)  # where the parser gave up; the reason says where the mapping starts
    assert err.reason == (
        "YAML syntax error: did not find expected ',' or '}' (while parsing a flow mapping that starts at line 5, column 17)"
    )


def test_an_include_is_refused_where_it_is_missing_outside_the_pack_or_defined_twice(tmp_path: Path) -> None:
    f = _with_shared(tmp_path, SHARED, INCLUDING.replace("shared/gpu-nodes.yaml", "shared/nodes.yaml"))
    err = _refused_file(f)
    assert (err.file, err.line, err.path) == (str(f), 6, "spec.include[0]")
    assert err.reason == "included file 'shared/nodes.yaml' not found next to the policy"
    err = _refused_file(_with_shared(tmp_path, SHARED, INCLUDING.replace("shared/gpu-nodes.yaml", "../gpu-nodes.yaml")))
    assert err.reason == "included file '../gpu-nodes.yaml' is outside the policy's folder: a pack travels as its folder"
    err = refused(INCLUDING)
    assert (err.line, err.reason) == (6, "include needs a policy read from a file")
    # two included files defining one name: which would stand is not said by the order of a list
    (tmp_path / "shared" / "more.yaml").write_text("vars:\n  where: {format: again}\n")
    twice = INCLUDING.replace("[shared/gpu-nodes.yaml]", "[shared/gpu-nodes.yaml, shared/more.yaml]")
    err = _refused_file(_with_shared(tmp_path, SHARED, twice))
    assert (err.file, err.line, err.path) == (str(tmp_path / "shared" / "more.yaml"), 2, "vars.where")
    assert err.reason == f"'where' is also defined in {tmp_path / 'shared' / 'gpu-nodes.yaml'}: define it in one file"


def test_a_control_character_in_an_include_or_data_file_is_refused_at_its_line(tmp_path: Path) -> None:
    # trial 128: a NUL reached the file system, "could not compile: ValueError: embedded null byte" at line 1
    for field, written in (("include", '["shared/a\\0.yaml"]'), ("dataFiles", '["data/x\\0.yaml", ""]')):
        f = tmp_path / f"{field}.yaml"
        f.write_text(TEMPLATE.replace("ASSERT", GOOD_ASSERT).replace("  rules:", f"  {field}: {written}\n  rules:"))
        err = _refused_file(f)
        assert (err.file, err.line, err.path) == (str(f), 6, f"spec.{field}[0]")
        assert err.reason == "must be a file name relative to the policy file, without control characters"
    assert [(e.path, e.line) for e in [err, *err.more]] == [("spec.dataFiles[0]", 6), ("spec.dataFiles[1]", 6)]
    # trial 131: the empty entry has no control character; a name the file system refuses is said at its line too
    assert err.more[0].reason == "must not be empty: a file name relative to the policy file"
    f = tmp_path / "long.yaml"
    f.write_text(TEMPLATE.replace("ASSERT", GOOD_ASSERT).replace("  rules:", f"  dataFiles: [{'d' * 5000}.yaml]\n  rules:"))
    err = _refused_file(f)
    assert (err.line, err.path) == (6, "spec.dataFiles[0]")
    assert err.reason == f"data file '{'d' * 80}' cannot be read: File name too long"
    # trial 133: a symlink loop, which Python 3.12 raises as RuntimeError, for a data file and an included one
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    for field in ("dataFiles", "include"):
        f = tmp_path / f"loop-{field}.yaml"
        f.write_text(TEMPLATE.replace("ASSERT", GOOD_ASSERT).replace("  rules:", f"  {field}: [loop/x.yaml]\n  rules:"))
        err = _refused_file(f)
        assert (err.line, err.path) == (6, f"spec.{field}[0]")
        assert err.reason.startswith(f"{'data' if field == 'dataFiles' else 'included'} file 'loop/x.yaml' cannot be read:")


def test_a_packs_include_folder_is_not_loaded_as_policies(tmp_path: Path) -> None:
    _with_shared(tmp_path, SHARED)
    assert [p.name for p in pack_files(tmp_path)] == ["nodes.yaml"]
    assert [p.name for p in load_policies([str(tmp_path)]).policies] == ["gpu-node-checks"]


def test_a_var_cycle_is_refused_at_load_with_its_chain() -> None:
    """Trial 123: vars a -> b -> c -> a (one through firstOf's first alternative) loaded, `lint` said ok, and every
    object got `error`; a rule var reading itself too. Each cycle computing always reads is refused at its first var.
    Trial 126: not one read only in a later firstOf alternative (a fallback), a format placeholder (left as written
    when it cannot be computed) or under a name a forEach binds, which load and work."""
    text = (
        KK_POLICY
        + "  vars:\n    a: {var: b}\n    b: {firstOf: [{var: c}, {value: x}]}\n    c: {var: a}\n    d: {format: '{e}x'}\n"
        "    e: {format: '{d}'}\n    f: {var: a}\n"
        "  rules:\n  - id: r1\n    title: t\n    match: {kinds: [Node]}\n    vars:\n      self: {var: self}\n"
        "      item: {var: node}\n      node: {path: $.metadata.name, where: {var: item, exists: true}}\n"
        "    assert: {var: a, exists: true}\n    message: m\n    references: ['https://kubernetes.io/']\n"
    )
    found = [(e.line, e.rule, e.path, e.reason) for e in every_problem(text)]
    tail = ": none of them can be computed (each would be an error on every object)"
    assert found == [
        (6, "", "spec.vars.a", "var cycle a -> b -> c -> a" + tail),
        (17, "r1", "spec.rules[0].vars.self", "var cycle self -> self" + tail),
    ]
    fallbacks = (
        KK_POLICY + "  context:\n    named: {kind: Node, where: {field: $.metadata.name, equals: {var: x}}}\n"
        "  vars:\n    a: {firstOf: [{path: $.metadata.labels.a}, {var: b}]}\n"
        "    b: {firstOf: [{path: $.metadata.name}, {var: a}]}\n    c: {format: 'x-{c}-{name}'}\n"
        "    x:\n      firstOf:\n      - path: $.metadata.name\n"
        "        when: {forEach: {keys: $.metadata.labels, as: x, assert: {context: named, exists: true}}}\n"
        "  rules:\n  - id: r1\n    title: t\n    match: {kinds: [Node]}\n    assert: {var: a, exists: true}\n"
        "    message: m {c} {x}\n    references: ['https://kubernetes.io/']\n"
    )
    assert [p.name for p in load_policy_text(fallbacks, "p.yaml")] == ["kk"]


def test_a_boolean_field_takes_yaml_booleans_only() -> None:
    """Trial 123: `exists: "yes"`, `first: "yes"` and `sameNamespace: 1` loaded (marshmallow's truthy words), where
    the JSON Schema of the format says boolean: each is refused, saying what to write."""
    text = (
        KK_POLICY + "  context:\n    c2: {kind: Node, path: $.metadata.name, first: 'yes', sameNamespace: 1}\n"
        "  rules:\n  - id: r1\n    title: t\n    match: {kinds: [Node]}\n    assert: {path: $.metadata.name, exists: 'yes'}\n"
        "    message: m\n    references: ['https://kubernetes.io/']\n"
    )
    found = [(e.line, e.path, e.reason) for e in every_problem(text)]
    said = "true or false is expected here (unquoted)"
    assert found == [
        (6, "spec.context.c2.first", said),
        (6, "spec.context.c2.sameNamespace", said),
        (11, "spec.rules[0].assert.exists", said),
    ]
    assert load_policy_text(text.replace("'yes'", "true").replace(": 1}", ": false}"), "p.yaml")[0].name == "kk"


def test_a_pack_given_twice_is_loaded_once(tmp_path: Path) -> None:
    """Trial 123: `-p pack -p pack` (or VERDICT_POLICIES=gpu-operator:gpu-operator) refused the policies as their own
    duplicates ("policy name 'x' is also used by" the same file and line). A file given twice is read once."""
    pack = write_pack(tmp_path)
    once = [p.name for p in load_policies([str(pack)]).policies]
    assert [p.name for p in load_policies([str(pack), str(pack)]).policies] == once
    assert [p.name for p in load_policies([str(pack), str(pack / "nodes.yaml")]).policies] == once
    assert len(load_policies(["gpu-operator", "gpu-operator"]).rules) == len(load_policies(["gpu-operator"]).rules)
    # two files that define one policy name are still refused
    other = tmp_path / "other"
    (other / "data").mkdir(parents=True)
    (other / "data" / "operands.yaml").write_text((pack / "data" / "operands.yaml").read_text())
    (other / "nodes.yaml").write_text((pack / "nodes.yaml").read_text())
    with pytest.raises(PolicyLoadError, match="policy name 'gpu-node-checks' is also used by"):
        load_policies([str(pack), str(other)])


def test_a_context_the_schema_refuses_hides_no_other_problem() -> None:
    """Trial 123: a context whose kind was refused ('nodes') hid every rule problem of its document until it was
    fixed (a kubectl path, an unknown placeholder): a lint round each. The rest is compiled around it, and the
    rules that read it are not told it is unknown."""
    text = (
        KK_POLICY
        + "  context:\n    nodes: {kind: nodes, path: $.metadata.name}\n    other: {kind: Node, path: $.metadata.name}\n"
        "  rules:\n  - id: first\n    title: t\n    match: {kinds: [Node]}\n"
        "    assert: {path: '{.metadata.name}', exists: true}\n"
        "    message: m\n    references: ['https://kubernetes.io/']\n"
        "  - id: second\n    title: t\n    match: {kinds: [Node]}\n    assert: {path: $.metadata.name, in: {context: nodes}}\n"
        "    message: m {nme} {nodes}\n    references: ['https://kubernetes.io/']\n"
    )
    found = [(e.line, e.path, e.reason.split(";")[0]) for e in every_problem(text)]
    assert found == [
        (
            6,
            "spec.context.nodes.kind",
            "kind 'nodes' matches no object: a kind is written as the objects' kind field, in CamelCase",
        ),
        (12, "spec.rules[0].assert.path", "'{.metadata.name}' is kubectl JSONPath, not RFC 9535 JSONPath"),
        (19, "spec.rules[1].message", "message placeholder {nme} names no var, context or built-in"),
    ]


def test_an_include_listed_twice_is_read_once_and_a_broken_one_makes_no_placeholder_noise(tmp_path: Path) -> None:
    """Trial 126: [./shared/gpu-nodes.yaml, shared/gpu-nodes.yaml] refused every name of the file as defined twice; an
    included file its schema refused also made each message placeholder naming one of its vars "names no var"."""
    twice = INCLUDING.replace("[shared/gpu-nodes.yaml]", "[./shared/gpu-nodes.yaml, shared/gpu-nodes.yaml]")
    [policy] = load_policy_file(_with_shared(tmp_path, SHARED, twice))
    assert sorted(policy.vars) == ["gpuNodesText", "where"]
    err = _refused_file(_with_shared(tmp_path, SHARED.replace("{kind: Node, path:", "{kind: Node, paht:")))
    assert [(e.file, e.reason) for e in (err, *err.more)] == [
        (str(tmp_path / "shared" / "gpu-nodes.yaml"), "unknown field 'paht'; did you mean 'path'?")
    ]


def test_a_references_all_takes_yaml_booleans_only() -> None:
    """Trial 126: a reference's `all: "false"` loaded and read every value (Python's truth of a non-empty string)."""
    text = TEMPLATE.replace("ASSERT", "{var: names, exists: true}").replace(
        "  rules:", "  vars:\n    names: {path: $.metadata.name, all: 'false'}\n  rules:"
    )
    err = refused(text)
    assert (err.line, err.path, err.reason) == (7, "spec.vars.names.all", "true or false is expected here (unquoted)")
    assert load_policy_text(text.replace("'false'", "false"), "p.yaml")


def test_an_assumption_the_schema_refuses_hides_no_name_of_the_rules_that_assume_it() -> None:
    """Trial 128: an assumption refused for a field (here its message missing) left each rule assuming it uncompiled,
    so an unknown var in them was said only in the next round."""
    text = (
        KK_POLICY + "  assumptions:\n    noPolicy:\n      when: {path: $.metadata.name, exists: true}\n"
        "  rules:\n  - id: r1\n    title: t\n    match: {kinds: [Node]}\n    assumes: [noPolicy]\n"
        "    assert: {var: nmae, exists: true}\n    message: m\n    references: ['https://kubernetes.io/']\n"
    )
    found = [(e.line, e.path, e.reason.split(";")[0]) for e in every_problem(text)]
    assert found == [
        (13, "spec.rules[0].assert.var", "unknown var 'nmae'"),
        (6, "spec.assumptions.noPolicy.message", "Missing data for required field."),
    ]


def test_a_rule_matching_no_kind_has_its_other_mistakes_said_in_the_same_round() -> None:
    """Trial 135: a rule with match: {kinds: []} was refused for that alone, in marshmallow's words ("Shorter than
    minimum length 1."), its bad regex and unknown placeholder left for the next round. The match is stood in for,
    as a missing title is, and the empty list said in the docs' words."""
    text = KK_POLICY + (
        "  rules:\n"
        '  - {id: r11, title: t, match: {kinds: []}, assert: {path: $.metadata.name, matches: "[a-"}, message: "m {nope}",'
        ' references: ["https://e.x"]}\n'
    )
    assert [(e.line, e.path, e.reason.split(":")[0]) for e in every_problem(text)] == [
        (6, "spec.rules[0].match.kinds", "at least one is required"),
        (6, "spec.rules[0].assert.matches", "bad regular expression '[a-'"),
        (6, "spec.rules[0].message", "message placeholder {nope} names no var, context or built-in (known"),
    ]


def test_a_value_of_the_wrong_type_is_said_in_yaml_terms_with_the_rule_s_other_mistakes() -> None:
    """marshmallow's "Not a valid list." and "Not a valid mapping type." said nothing a YAML writer could act on, and
    preconditions that were no list hid their rule's bad JSONPath and unknown placeholder until the next round."""
    text = KK_POLICY + (
        "  rules:\n"
        "  - {id: r1, title: t, match: {kinds: [Node]}, preconditions: {path: $.x, exists: true},\n"
        '     assert: {path: "$.metadata.name[", exists: true}, message: "m {nope}", references: ["https://e.x"]}\n'
        "  - {id: r2, title: t, match: {kinds: [Node], labelSelector: {matchLabels: [a]}}, assert: {path: $.x, exists: true},\n"
        '     message: m, references: "https://e.x"}\n'
    )
    assert [(e.line, e.path, e.reason.split(" (")[0]) for e in every_problem(text)] == [
        (6, "spec.rules[0].preconditions", "must be a list"),
        (7, "spec.rules[0].assert.path", "invalid JSONPath '$.metadata.name[' at column 17: unexpected end of query"),
        (7, "spec.rules[0].message", "message placeholder {nope} names no var, context or built-in"),
        (8, "spec.rules[1].match.labelSelector.matchLabels", "must be a mapping"),
        (9, "spec.rules[1].references", "must be a list"),
    ]
    # trial 140: "Field may not be null." and "Not a valid string." were marshmallow's words still
    text = KK_POLICY + (
        "  rules:\n  - {id: r, title: [a], match: {kinds: [Node]}, assert: {path: $.x, exists: true}, message: null,"
        ' references: ["https://e.x"]}\n'
    )
    assert [(e.path, e.reason) for e in every_problem(text)] == [
        ("spec.rules[0].message", "must have a value (it is empty, or null)"),
        ("spec.rules[0].title", "must be a string"),
    ]


def test_a_json_policy_with_a_control_character_is_refused_at_load(tmp_path) -> None:
    """Regression (trial 181): a JSON policy's title "\\u001b]0;PWNED\\u0007" (an escape YAML's text allows, where the
    raw character is refused) reached the terminal through verdict policies list and show."""
    from rules.errors import PolicyError
    from rules.loader import load_policy_file

    doc = {
        "apiVersion": "verdict/v1",
        "kind": "Policy",
        "metadata": {"name": "p", "version": "1.0.0"},
        "spec": {"rules": [{"id": "r", "title": "title \u001b]0;PWNED\u0007", "match": {"kinds": ["Node"]},
                            "assert": {"path": "$.metadata.name", "exists": True}, "message": "m",
                            "references": ["https://kubernetes.io/"]}]},
    }  # fmt: skip
    path = tmp_path / "p.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    with pytest.raises(PolicyError) as info:
        load_policy_file(path)
    said = "spec.rules[0].title holds the control character U+001B, which a terminal acts on: write text only"
    assert info.value.reason == said
