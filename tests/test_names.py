"""Unknown var, context and data names are refused at load (rules/names.py), exactly where evaluation would
fail to resolve them: each case is loaded once with the check, and once without it and audited, and the two
must agree (refused at load <=> an unknown-name error at audit)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from conftest import make_policy, make_rule

from rules.cli import main
from rules.errors import PolicyError, Source
from rules.evaluate import evaluate
from rules.loader import PolicyLoadError, PolicySet, load_policies, load_policy_text
from rules.reader import Dump, KObject

# --------------------------------------------------------------------------- the issue's examples, as lint prints them

POLICY = """\
apiVersion: verdict/v1
kind: Policy
metadata: {name: gpu-mig, version: 1.0.0}
spec:
  data:
    operands: {container: [driver, device-plugin], vm-passthrough: [vfio-manager]}
  context:
    migStrategy: {kind: ClusterPolicy, path: $.spec.mig.strategy, first: true, default: none}
  vars:
    workload: "$.metadata.labels['nvidia.com/gpu.workload.config']"
  rules:
  - id: mig-strategy-single
    title: The MIG strategy is single
    match: {kinds: [Node]}
    assert: {context: migStrategy, equals: single}
    message: "node {name}: MIG strategy {migStrategy}"
    references: ["https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-operator-mig.html"]
  - id: operands-known
    title: The node's workload has operands
    match: {kinds: [Node]}
    assert: {data: operands, key: {var: workload}, exists: true}
    message: "node {name}: workload {workload} has no operands"
    references: ["https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/"]
"""


def lint(tmp_path: Path, text: str) -> tuple[int, str]:
    path = tmp_path / "mig.yaml"
    path.write_text(text)
    res = CliRunner().invoke(main, ["policies", "lint", str(path)], catch_exceptions=False)
    return res.exit_code, res.stdout.replace(str(path), "mig.yaml")


def test_the_policy_lints(tmp_path: Path) -> None:
    assert lint(tmp_path, POLICY) == (0, "ok: 1 policy, 2 rules\n")


def test_misspelt_names_refused_by_lint_with_file_line_rule_and_did_you_mean(tmp_path: Path) -> None:
    # Regression: each passed `verdict policies lint` and gave `error` on every Node at audit.
    text = (
        POLICY.replace("{context: migStrategy, equals", "{context: migStrategi, equals")
        .replace("{data: operands, key: {var: workload}", "{data: operandz, key: {var: workloadd}")
        .replace("MIG strategy {migStrategy}", "MIG strategy {migStrategi}")
    )
    code, out = lint(tmp_path, text)
    assert code == 1
    # Every unknown name in one round, in file order, the refused placeholder among them (it used to stop the
    # round, hiding the three names below it).
    assert out == (
        "mig.yaml:15: rule mig-strategy-single: spec.rules[0].assert.context: unknown context 'migStrategi';"
        " did you mean 'migStrategy'?\n"
        "mig.yaml:16: rule mig-strategy-single: spec.rules[0].message: message placeholder {migStrategi} names no"
        " var, context or built-in; did you mean {migStrategy}?\n"
        "mig.yaml:21: rule operands-known: spec.rules[1].assert.data: unknown data table 'operandz';"
        " did you mean 'operands'?\n"
        "mig.yaml:21: rule operands-known: spec.rules[1].assert.key.var: unknown var 'workloadd';"
        " did you mean 'workload'?\n"
    )
    code, out = lint(tmp_path, text.replace("MIG strategy {migStrategi}", "MIG strategy {migStrategy}"))
    assert code == 1
    assert out == (
        "mig.yaml:15: rule mig-strategy-single: spec.rules[0].assert.context: unknown context 'migStrategi';"
        " did you mean 'migStrategy'?\n"
        "mig.yaml:21: rule operands-known: spec.rules[1].assert.data: unknown data table 'operandz';"
        " did you mean 'operands'?\n"
        "mig.yaml:21: rule operands-known: spec.rules[1].assert.key.var: unknown var 'workloadd';"
        " did you mean 'workload'?\n"
    )


def test_unknown_name_refused_by_the_api_lint_route(tmp_path: Path) -> None:
    from api import create_app

    app = create_app({"POLICY_SET": PolicySet([])})
    text = POLICY.replace("{context: migStrategy, equals", "{context: migStrategi, equals")
    resp = app.test_client().post(
        "/v1/policies/lint?file=mig.yaml", data=text.encode(), headers={"Content-Type": "application/yaml"}
    )
    body = resp.get_json()
    assert (resp.status_code, body["valid"]) == (200, False)
    assert body["errors"] == [
        {
            "file": "mig.yaml",
            "line": 15,
            "rule": "mig-strategy-single",
            "path": "spec.rules[0].assert.context",
            "reason": "unknown context 'migStrategi'; did you mean 'migStrategy'?",
        }
    ]


def test_data_tables_from_data_files_are_known(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "tables.yaml").write_text("operands: {container: [driver]}\n")
    policy = tmp_path / "mig.yaml"
    policy.write_text(
        POLICY.replace(
            "  data:\n    operands: {container: [driver, device-plugin], vm-passthrough: [vfio-manager]}\n",
            "  dataFiles: [data/tables.yaml]\n",
        )
    )
    assert [p.name for p in load_policies([str(policy)]).policies] == ["gpu-mig"]
    policy.write_text(policy.read_text().replace("{data: operands,", "{data: operand,"))
    with pytest.raises(PolicyLoadError) as err:
        load_policies([str(policy)])
    [e] = err.value.errors
    assert (e.line, e.rule, e.reason) == (20, "operands-known", "unknown data table 'operand'; did you mean 'operands'?")


def test_the_built_in_pack_loads_whole() -> None:
    # Every name the pack reads resolves where evaluation reads it: nothing that worked is refused.
    from rules.loader import BUILTIN_DIR

    files = sorted((BUILTIN_DIR / "gpu-operator").glob("*.yaml"))
    written = [r["id"] for f in files for doc in yaml.safe_load_all(f.read_text()) for r in doc["spec"]["rules"]]
    assert [r.id for r in load_policies([]).rules] == written


# --------------------------------------------------------------------------- static check == evaluation

NODE = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": "gpu-node-1", "labels": {"nvidia.com/gpu.workload.config": "container"}},
    "spec": {"taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]},
    "status": {"allocatable": {"nvidia.com/gpu": "8", "cpu": "64"}},
}
POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "train", "namespace": "ml"}, "spec": {"nodeName": "gpu-node-1"}}
CP = {"apiVersion": "nvidia.com/v1", "kind": "ClusterPolicy", "metadata": {"name": "cp"}, "spec": {"mig": {"strategy": "single"}}}
LABEL = "$.metadata.labels['nvidia.com/gpu.workload.config']"
MIG_STRATEGY = {"kind": "ClusterPolicy", "path": "$.spec.mig.strategy", "first": True}
# Pods on the node that var `nodeName` names: a policy var, a rule var or a forEach binding, where it is read.
PODS_ON = {"kind": "Pod", "path": "$.metadata.name", "where": {"field": "$.spec.nodeName", "equals": {"var": "nodeName"}}}
SPEC: dict[str, Any] = {
    "data": {"operands": {"container": ["driver"]}},
    "context": {"migStrategy": MIG_STRATEGY},
    "vars": {"workload": LABEL},
}
EACH_TAINT = {"path": "$.spec.taints[*]", "as": "taint"}


def rule(assertion: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return make_rule(assertion, id=fields.pop("id", "r"), message="{name} fails", **fields)


def policy(*rules: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return make_policy(list(rules), **{**SPEC, **spec})


def joined(*rules: dict[str, Any], **spec: Any) -> dict[str, Any]:
    """``policy`` with the context ``podsOn`` too."""
    return policy(*rules, context={"migStrategy": MIG_STRATEGY, "podsOn": PODS_ON}, **spec)


# (case, policy document, expected refusal (field path, rule, reason) or None when valid)
CASES: list[tuple[str, dict[str, Any], tuple[str, str, str] | None]] = [
    # --- valid: every name resolves where evaluation reads it
    (
        "forEach as and index in the body",
        policy(
            rule(
                {
                    "forEach": {
                        **EACH_TAINT,
                        "assert": {
                            "all": [{"var": "taint", "key": "key", "equals": "nvidia.com/gpu"}, {"var": "index", "gte": 0}]
                        },
                    }
                }
            )
        ),
        None,
    ),
    (
        "item in a where",
        policy(rule({"keys": "$.status.allocatable", "where": {"var": "item", "startsWith": "nvidia.com/"}, "count": 1})),
        None,
    ),
    (
        "item in a forEach without as",
        policy(
            rule({"forEach": {"path": "$.spec.taints[*]", "assert": {"var": "item", "key": "effect", "equals": "NoSchedule"}}})
        ),
        None,
    ),
    (
        "a where inside a forEach sees its binding",
        policy(
            rule(
                {
                    "forEach": {
                        **EACH_TAINT,
                        "assert": {"keys": "$", "where": {"var": "taint", "key": {"var": "item"}, "exists": True}, "count": 2},
                    }
                }
            )
        ),
        None,
    ),
    (
        "a var name falls through to a context",
        policy(rule({"var": "migStrategy", "equals": "single"}), context={"migStrategy": SPEC["context"]["migStrategy"]}),
        None,
    ),
    (
        "the object's built-ins",
        policy(
            rule(
                {
                    "all": [
                        {"var": "kind", "equals": "Node"},
                        {"var": "apiVersion", "equals": "v1"},
                        {"var": "name", "equals": "gpu-node-1"},
                        {"var": "namespace", "equals": ""},
                    ]
                }
            )
        ),
        None,
    ),
    (
        "a rule var reads a policy var, a data table and a context",
        policy(
            rule(
                {"var": "ops", "equals": "driver"},
                vars={
                    "ops": {
                        "firstOf": [
                            {"data": "operands", "key": {"var": "workload"}, "when": {"context": "migStrategy", "exists": True}}
                        ]
                    }
                },
            )
        ),
        None,
    ),
    ("a rule var shadows a policy var", policy(rule({"var": "workload", "equals": 1}, vars={"workload": 1})), None),
    (
        "a context joined on a forEach binding, read inside the forEach",
        joined(
            rule({"forEach": {"path": "$.metadata.name", "as": "nodeName", "assert": {"context": "podsOn", "equals": "train"}}})
        ),
        None,
    ),
    (
        "a context joined on a rule var, read by that rule",
        joined(rule({"context": "podsOn", "equals": "train"}, vars={"nodeName": "$.metadata.name"})),
        None,
    ),
    (
        "a context joined on a rule var, read by that rule as a var",
        joined(rule({"var": "podsOn", "equals": "train"}, vars={"nodeName": "$.metadata.name"})),
        None,
    ),
    (
        "a context joined on a forEach binding, read as a var inside the forEach",
        joined(rule({"forEach": {"path": "$.metadata.name", "as": "nodeName", "assert": {"var": "podsOn", "equals": "train"}}})),
        None,
    ),
    (
        "a reference's where sees item, and a sum its operands",
        policy(
            rule(
                {"all": [{"var": "gpus", "count": 1}, {"var": "cpu", "gte": {"sum": [{"var": "gpuCount"}, 1]}}]},
                vars={
                    "gpus": {"keys": "$.status.allocatable", "where": {"var": "item", "startsWith": "nvidia.com/"}},
                    "gpuCount": "$.status.allocatable['nvidia.com/gpu']",
                    "cpu": "$.status.allocatable.cpu",
                },
            )
        ),
        None,
    ),
    (
        "a forEach's where sees item, its body the as name",
        policy(
            rule(
                {
                    "forEach": {
                        **EACH_TAINT,
                        "where": {"var": "item", "key": "effect", "equals": "NoSchedule"},
                        "assert": {"var": "taint", "key": "key", "equals": "nvidia.com/gpu"},
                    }
                }
            )
        ),
        None,
    ),
    (
        "a context joined on a policy var, read as a var",
        joined(rule({"var": "podsOn", "equals": "train"}), vars={"workload": LABEL, "nodeName": "$.metadata.name"}),
        None,
    ),
    (
        "an assumption reads the var of the rule that assumes it",
        policy(
            rule({"path": "$.kind", "exists": True}, vars={"nodeName": "$.metadata.name"}, assumes=["onNode"]),
            assumptions={"onNode": {"when": {"var": "nodeName", "exists": True}, "message": "(assumed)"}},
        ),
        None,
    ),
    (
        "a context and an assumption nothing reads may name any var the policy defines",
        policy(
            rule({"path": "$.kind", "exists": True}, vars={"nodeName": "$.metadata.name"}),
            assumptions={"unused": {"when": {"var": "nodeName", "exists": True}, "message": "(assumed)"}},
        ),
        None,
    ),
    (
        "a precondition, a classify table and an operator argument",
        policy(
            rule(
                {"keys": "$.status.allocatable", "classify": {"data": "families"}, "in": {"var": "known"}},
                preconditions=[{"var": "workload", "in": {"data": "operands"}}],
                vars={"known": {"value": ["gpu"]}},
            ),
            data={"operands": {"container": ["driver"]}, "families": {"gpu": "^nvidia"}},
        ),
        None,
    ),
    # --- refused: a misspelt name, wherever it is written
    (
        "a context subject",
        policy(rule({"context": "migStrategi", "equals": "single"})),
        ("spec.rules[0].assert.context", "r", "unknown context 'migStrategi'; did you mean 'migStrategy'?"),
    ),
    (
        "a var subject",
        policy(rule({"var": "workloadd", "exists": True})),
        ("spec.rules[0].assert.var", "r", "unknown var 'workloadd'; did you mean 'workload'?"),
    ),
    (
        "a data subject",
        policy(rule({"data": "operandz", "exists": True})),
        ("spec.rules[0].assert.data", "r", "unknown data table 'operandz'; did you mean 'operands'?"),
    ),
    (
        "a key reference",
        policy(rule({"data": "operands", "key": {"var": "workloadd"}, "exists": True})),
        ("spec.rules[0].assert.key.var", "r", "unknown var 'workloadd'; did you mean 'workload'?"),
    ),
    (
        "a key path element",
        policy(
            rule(
                {"path": "$.status", "key": ["allocatable", {"var": "resorce"}], "exists": True},
                vars={"resource": {"value": "cpu"}},
            )
        ),
        ("spec.rules[0].assert.key[1].var", "r", "unknown var 'resorce'; did you mean 'resource'?"),
    ),
    (
        "an operator argument",
        policy(rule({"var": "workload", "in": {"data": "operand"}})),
        ("spec.rules[0].assert.in.data", "r", "unknown data table 'operand'; did you mean 'operands'?"),
    ),
    (
        "a classify table",
        policy(
            rule({"keys": "$.status.allocatable", "classify": {"data": "familes"}, "exists": True}),
            data={"families": {"gpu": "^nvidia"}},
        ),
        ("spec.rules[0].assert.classify.data", "r", "unknown data table 'familes'; did you mean 'families'?"),
    ),
    (
        "a where",
        policy(rule({"keys": "$.status.allocatable", "where": {"var": "itme", "startsWith": "nvidia.com/"}, "count": 1})),
        ("spec.rules[0].assert.where.var", "r", "unknown var 'itme'; did you mean 'item'?"),
    ),
    (
        "a precondition",
        policy(rule({"path": "$.kind", "exists": True}, preconditions=[{"context": "migstrategy", "exists": True}])),
        ("spec.rules[0].preconditions[0].context", "r", "unknown context 'migstrategy'; did you mean 'migStrategy'?"),
    ),
    (
        "a policy var alternative",
        policy(rule({"var": "mode", "exists": True}), vars={"workload": LABEL, "mode": {"firstOf": [{"context": "migStrateg"}]}}),
        ("spec.vars.mode.firstOf[0].context", "", "unknown context 'migStrateg'; did you mean 'migStrategy'?"),
    ),
    (
        "a rule var alternative's when",
        policy(
            rule(
                {"var": "mode", "exists": True},
                vars={"mode": {"firstOf": [{"value": "mig", "when": {"var": "worklaod", "exists": True}}]}},
            )
        ),
        ("spec.rules[0].vars.mode.firstOf[0].when.var", "r", "unknown var 'worklaod'; did you mean 'workload'?"),
    ),
    (
        "an assumption's when",
        policy(
            rule({"path": "$.kind", "exists": True}, assumes=["a"]),
            assumptions={"a": {"when": {"context": "migStrategy_", "exists": False}, "message": "(assumed)"}},
        ),
        (
            "spec.assumptions.a.when.context",
            "r",
            "unknown context 'migStrategy_'; did you mean 'migStrategy'? (rule r assumes a)",
        ),
    ),
    (
        "a forEach source",
        policy(rule({"forEach": {"data": "operandss", "assert": {"path": "$", "exists": True}}})),
        ("spec.rules[0].assert.forEach.data", "r", "unknown data table 'operandss'; did you mean 'operands'?"),
    ),
    (
        "a forEach's where",
        policy(
            rule({"forEach": {**EACH_TAINT, "where": {"var": "taint", "exists": True}, "assert": {"path": "$", "exists": True}}})
        ),
        (
            "spec.rules[0].assert.forEach.where.var",
            "r",
            "unknown var 'taint' here: forEach binds it (as: taint) only inside its assert",
        ),
    ),
    (
        "a forEach body",
        policy(rule({"forEach": {**EACH_TAINT, "assert": {"var": "tiant", "key": "key", "exists": True}}})),
        ("spec.rules[0].assert.forEach.assert.var", "r", "unknown var 'tiant'; did you mean 'taint'?"),
    ),
    (
        "a context's where.equals",
        joined(rule({"context": "podsOn", "exists": True}, vars={"nodeNmae": "$.metadata.name"})),
        (
            "spec.context.podsOn.where.equals.var",
            "r",
            "unknown var 'nodeName'; did you mean 'nodeNmae'? (context podsOn is read at spec.rules[0].assert.context)",
        ),
    ),
    (
        "a data table written as a var",
        policy(rule({"var": "operands", "exists": True})),
        ("spec.rules[0].assert.var", "r", "unknown var 'operands'; 'operands' is a data table: write {data: operands}"),
    ),
    (
        "a var written as a context",
        policy(rule({"context": "workload", "exists": True})),
        ("spec.rules[0].assert.context", "r", "unknown context 'workload'; 'workload' is a var: write {var: workload}"),
    ),
    # --- refused: a name defined, but not where it is read
    (
        "a forEach binding after its forEach",
        policy(
            rule(
                {"all": [{"forEach": {**EACH_TAINT, "assert": {"path": "$", "exists": True}}}, {"var": "taint", "exists": True}]}
            )
        ),
        ("spec.rules[0].assert.all[1].var", "r", "unknown var 'taint' here: forEach binds it (as: taint) only inside its assert"),
    ),
    (
        "item outside a where",
        policy(rule({"path": "$.kind", "exists": True}, preconditions=[{"var": "item", "exists": True}])),
        (
            "spec.rules[0].preconditions[0].var",
            "r",
            "unknown var 'item' here: it is bound only inside a where, and inside a forEach without as",
        ),
    ),
    (
        "a policy var reading a rule var",
        policy(
            rule({"var": "mode", "exists": True}, vars={"gpus": "$.status.allocatable"}),
            vars={"workload": LABEL, "mode": {"var": "gpus"}},
        ),
        ("spec.vars.mode.var", "", "unknown var 'gpus' here: it is a var of rule r only"),
    ),
    (
        "an assumption reading a var its assuming rule lacks",
        policy(
            rule({"path": "$.kind", "exists": True}, vars={"nodeName": "$.metadata.name"}, assumes=["onNode"]),
            rule({"path": "$.kind", "exists": True}, id="s", assumes=["onNode"]),
            assumptions={"onNode": {"when": {"var": "nodeName", "exists": True}, "message": "(assumed)"}},
        ),
        (
            "spec.assumptions.onNode.when.var",
            "s",
            "unknown var 'nodeName' here: it is a var of rule r only (rule s assumes onNode)",
        ),
    ),
    (
        "a context joined on a forEach binding, read outside the forEach",
        joined(
            rule(
                {
                    "all": [
                        {
                            "forEach": {
                                "path": "$.metadata.name",
                                "as": "nodeName",
                                "assert": {"context": "podsOn", "exists": True},
                            }
                        },
                        {"context": "podsOn", "exists": True},
                    ]
                }
            )
        ),
        (
            "spec.context.podsOn.where.equals.var",
            "r",
            "unknown var 'nodeName' here: forEach binds it (as: nodeName) only inside"
            " its assert (context podsOn is read at spec.rules[0].assert.all[1].context)",
        ),
    ),
    (
        "a context joined on a var of another rule, read as a var",
        joined(
            rule({"var": "podsOn", "exists": True}),
            rule({"path": "$.kind", "exists": True}, id="s", vars={"nodeName": "$.metadata.name"}),
        ),
        (
            "spec.context.podsOn.where.equals.var",
            "r",
            "unknown var 'nodeName' here: it is a var of rule s only (context podsOn is read at spec.rules[0].assert.var)",
        ),
    ),
    (
        "a reference's where",
        policy(
            rule(
                {"var": "gpus", "count": 1},
                vars={"gpus": {"keys": "$.status.allocatable", "where": {"var": "iten", "startsWith": "nvidia.com/"}}},
            )
        ),
        ("spec.rules[0].vars.gpus.where.var", "r", "unknown var 'iten'; did you mean 'item'?"),
    ),
    (
        "a sum operand",
        policy(
            rule(
                {"path": "$.status.allocatable.cpu", "gte": {"sum": [1, {"var": "gpuz"}]}},
                vars={"gpus": "$.status.allocatable['nvidia.com/gpu']"},
            )
        ),
        ("spec.rules[0].assert.gte.sum[1].var", "r", "unknown var 'gpuz'; did you mean 'gpus'?"),
    ),
]


def audit_unchecked(doc: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Audit NODE, POD and CP with ``doc`` loaded without the name check: (result, message) of each result."""
    with monkeypatch.context() as m:
        m.setattr("rules.loader.check_names", lambda *args: [])
        policies = PolicySet(load_policy_text(yaml.safe_dump(doc, sort_keys=False), "inline.yaml"))
    dump = Dump(objects=[KObject(o, Source("dump.yaml", i + 1, 1)) for i, o in enumerate([NODE, POD, CP])])
    results = [(r.result, r.message) for o in evaluate(dump, policies).objects for r in o.results]
    assert results, "the rules judged nothing"
    return results


@pytest.mark.parametrize(("doc", "refusal"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_refused_at_load_exactly_when_audit_cannot_resolve(
    doc: dict[str, Any], refusal: tuple[str, str, str] | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = yaml.safe_dump(doc, sort_keys=False)
    if refusal is None:
        load_policy_text(text, "inline.yaml")
        # Every valid case passes on the lab objects: each reference was resolved, none gave an error.
        assert {word for word, _ in audit_unchecked(doc, monkeypatch)} == {"pass"}
        return
    with pytest.raises(PolicyError) as err:
        load_policy_text(text, "inline.yaml")
    assert (err.value.path, err.value.rule, err.value.reason) == refusal
    errors = [m for word, m in audit_unchecked(doc, monkeypatch) if word == "error"]
    assert any("unknown" in m or "no data table" in m for m in errors), "refused at load, yet the audit resolves every name"


def test_every_unknown_name_is_reported_at_once() -> None:
    doc = policy(
        rule({"all": [{"var": "a1", "exists": True}, {"context": "a2", "exists": True}]}),
        rule({"data": "a3", "exists": True}, id="s"),
    )
    with pytest.raises(PolicyError) as err:
        load_policy_text(yaml.safe_dump(doc, sort_keys=False), "inline.yaml")
    found = [err.value, *err.value.more]
    assert [(e.rule, e.path) for e in found] == [
        ("r", "spec.rules[0].assert.all[0].var"),
        ("r", "spec.rules[0].assert.all[1].context"),
        ("s", "spec.rules[1].assert.data"),
    ]
    assert [e.line for e in found] == sorted(e.line for e in found)


def test_a_name_nothing_defines_is_refused_even_where_nothing_reads_it() -> None:
    doc = policy(
        rule({"path": "$.kind", "exists": True}),
        assumptions={"unused": {"when": {"var": "nodeNmae", "exists": True}, "message": "(assumed)"}},
    )
    with pytest.raises(PolicyError) as err:
        load_policy_text(yaml.safe_dump(doc, sort_keys=False), "inline.yaml")
    assert (err.value.rule, err.value.path) == ("", "spec.assumptions.unused.when.var")
    assert err.value.reason.startswith("unknown var 'nodeNmae' (known: ")


def test_every_name_the_pack_reads_is_checked(tmp_path: Path) -> None:
    # One misspelling in each kind of place the built-in pack reads names: a rule var's key path, an
    # assumption's when, a correlated context's where.equals, a policy var alternative.
    import re
    import shutil

    from rules.loader import BUILTIN_DIR

    pack = tmp_path / "gpu-operator"
    cases = [
        (
            "pods.yaml",
            "equals: {var: pinnedName}",
            "equals: {var: pinnedNme}",
            "unknown var 'pinnedNme'; did you mean 'pinnedName'",
        ),
        (
            "nodes.yaml",
            "- {var: cpDecides, equals: false}\n          - {var: workloadLabel, in",
            "- {var: cpDecide, equals: false}\n          - {var: workloadLabel, in",
            "unknown var 'cpDecide'; did you mean 'cpDecides'? (rule ",
        ),
    ]
    for name, old, new, reason in cases:
        shutil.rmtree(pack, ignore_errors=True)
        shutil.copytree(BUILTIN_DIR / "gpu-operator", pack)
        text = (pack / name).read_text()
        assert old in text
        (pack / name).write_text(text.replace(old, new, 1))
        with pytest.raises(PolicyLoadError) as err:
            load_policies([str(pack)])
        assert any(e.reason.startswith(reason) for e in err.value.errors), [str(e) for e in err.value.errors]
        assert re.search(r"\.yaml:\d+: ", str(err.value.errors[0]))
