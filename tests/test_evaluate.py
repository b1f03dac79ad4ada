"""Evaluation: result fields, preconditions, warn, verdicts, errors confined to one object, the report."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import make_policy, make_rule, node

from rules.errors import InputError, Source
from rules.evaluate import evaluate
from rules.loader import PolicySet
from rules.reader import Dump, KObject
from rules.report import ObjectRef, ObjectReport, Report, Result

Judge = Callable[..., dict[tuple[str, str], Any]]
GPUS = "$.status.allocatable['nvidia.com/gpu']"
WORKLOAD = "$.metadata.labels['nvidia.com/gpu.workload.config']"
NVIDIA_DOCS = "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-operator-kubevirt.html"


def gpu_node(name: str, gpus: str | None = "8", workload: str | None = "container", present: bool = True) -> dict[str, Any]:
    labels = {"nvidia.com/gpu.present": "true"} if present else {}
    if workload is not None:
        labels["nvidia.com/gpu.workload.config"] = workload
    return node(name, labels=labels, allocatable={"nvidia.com/gpu": gpus} if gpus is not None else {})


def run(
    load_policy: Callable[..., PolicySet],
    objects: list[dict[str, Any]],
    rules: list[dict[str, Any]],
    errors: list[InputError] | None = None,
    **spec: Any,
) -> Report:
    policies = load_policy(make_policy(rules, **spec))
    dump = Dump(objects=[KObject(o, Source("dump.yaml", i + 1, 1)) for i, o in enumerate(objects)], errors=list(errors or []))
    return evaluate(dump, policies, name="lab")


def results_of(report: Report) -> dict[tuple[str, str], Result]:
    return {(o.ref.name, r.rule): r for o in report.objects for r in o.results}


# ---------------------------------------------------------------------------------- result fields


def test_severity_and_category_defaults(judge: Judge) -> None:
    rule = make_rule({"path": GPUS, "gt": 0})
    r = judge([gpu_node("n1", gpus="0")], rules=[rule])[("n1", "r")]
    assert (r.result, r.severity, r.category) == ("fail", "medium", "")
    r = judge([gpu_node("n1", gpus="0")], rules=[rule], defaults={"severity": "high", "category": "GPU Operator"})[("n1", "r")]
    assert (r.severity, r.category) == ("high", "GPU Operator")
    own = make_rule({"path": GPUS, "gt": 0}, severity="critical", category="Scheduling")
    r = judge([gpu_node("n1", gpus="0")], rules=[own], defaults={"severity": "high", "category": "GPU Operator"})[("n1", "r")]
    assert (r.severity, r.category) == ("critical", "Scheduling")


def test_failure_fields(judge: Judge) -> None:
    rule = make_rule(
        {"path": WORKLOAD, "in": ["container", "vm-passthrough", "vm-vgpu"]},
        title="workload label is valid",
        message="workload label '{observed}' is not one of {expected}",
        remediation="kubectl label node {name} --overwrite nvidia.com/gpu.workload.config=container",
        references=[NVIDIA_DOCS],
    )
    r = judge([gpu_node("gpu-1", workload="vm_passthrough")], rules=[rule])[("gpu-1", "r")]
    assert r.to_dict() == {
        "policy": "test-policy",
        "rule": "r",
        "title": "workload label is valid",
        "result": "fail",
        "severity": "medium",
        "category": "",
        "message": "workload label 'vm_passthrough' is not one of one of [container, vm-passthrough, vm-vgpu]",
        "path": WORKLOAD,
        "observed": "vm_passthrough",
        "expected": "one of [container, vm-passthrough, vm-vgpu]",
        "remediation": "kubectl label node gpu-1 --overwrite nvidia.com/gpu.workload.config=container",
        "references": [NVIDIA_DOCS],
    }
    assert r.scored is True


def test_a_pass_or_a_skip_is_reported_by_its_rule_and_message_alone(judge: Judge) -> None:
    """Issue 11: the report form of a result that is not a finding is its rule, its result and its message (a
    5,000-node report repeated the rule's metadata and the evidence for every passing check); findings keep
    every field."""
    rules = [
        make_rule({"path": GPUS, "gte": 0}, id="passes", references=[NVIDIA_DOCS]),
        make_rule({"path": GPUS, "gt": 0}, id="skips", preconditions=[{"path": "$.spec.unschedulable", "equals": True}]),
        make_rule({"path": GPUS, "gt": 0}, id="fails", remediation="restart the device plugin on {name}"),
        make_rule({"path": WORKLOAD, "gt": 0}, id="errors"),
    ]
    results = judge([gpu_node("n1", gpus="0")], rules=rules)
    identity = ["policy", "rule", "title", "result", "severity", "category", "message"]
    evidence = ["path", "observed", "expected", "remediation", "references"]
    assert results[("n1", "passes")].to_dict() == {
        "policy": "test-policy",
        "rule": "passes",
        "result": "pass",
        "message": "the rule holds",
    }
    assert list(results[("n1", "skips")].to_dict()) == ["policy", "rule", "result", "message"]
    assert results[("n1", "skips")].observed == []  # still on the Result: the other formats read it
    assert list(results[("n1", "fails")].to_dict()) == identity + evidence
    assert list(results[("n1", "errors")].to_dict()) == identity + evidence
    assert {k[1]: r.finding for k, r in results.items()} == {"passes": False, "skips": False, "fails": True, "errors": True}


def test_remediation_only_on_fail_and_warn(judge: Judge) -> None:
    rules = [
        make_rule({"path": GPUS, "gt": 0}, id="fails", remediation="restart the device plugin on {name}"),
        make_rule({"path": GPUS, "gt": 0}, id="warns", onFailure="warn", remediation="check {name}"),
        make_rule({"path": GPUS, "gte": 0}, id="passes", remediation="nothing to do on {name}"),
        make_rule({"path": WORKLOAD, "gt": 0}, id="errors", remediation="fix {name}"),
        make_rule(
            {"path": GPUS, "gt": 0},
            id="skips",
            remediation="fix {name}",
            preconditions=[{"path": "$.spec.unschedulable", "equals": True}],
        ),
    ]
    results = judge([gpu_node("n1", gpus="0")], rules=rules)
    assert {k[1]: (v.result, v.remediation) for k, v in results.items()} == {
        "fails": ("fail", "restart the device plugin on n1"),
        "warns": ("warn", "check n1"),
        "passes": ("pass", ""),
        "errors": ("error", ""),
        "skips": ("skip", ""),
    }


def test_remediation_substitutes_observed_and_expected(judge: Judge) -> None:
    # Regression: remediation was substituted without observed/expected/path/forEach names, so
    # "{observed}" was left as written although the loader accepts it.
    rule = make_rule(
        {
            "forEach": {
                "keys": "$.metadata.labels",
                "as": "label",
                "assert": {"var": "label", "notIn": ["nvidia.com/gpu.deploy.operands"]},
            }
        },
        remediation="kubectl label node {name} {label}- # observed {observed}, want {expected}",
    )
    r = judge([node("n1", labels={"nvidia.com/gpu.deploy.operands": "false"})], rules=[rule])[("n1", "r")]
    assert r.remediation == (
        "kubectl label node n1 nvidia.com/gpu.deploy.operands- # observed"
        " nvidia.com/gpu.deploy.operands, want none of [nvidia.com/gpu.deploy.operands]"
    )


def test_pass_fields(judge: Judge) -> None:
    rule = make_rule({"path": GPUS, "gt": 0}, passMessage="{name} advertises {observed} GPUs")
    r = judge([gpu_node("n1")], rules=[rule])[("n1", "r")]
    assert (r.result, r.message, r.path, r.observed, r.expected) == ("pass", "n1 advertises 8 GPUs", GPUS, "8", "> 0")


# ---------------------------------------------------------------------------------- preconditions


def test_unmet_precondition_skips_with_the_reason(judge: Judge) -> None:
    rule = make_rule(
        {"path": GPUS, "gt": 0}, preconditions=[{"path": "$.metadata.labels['nvidia.com/gpu.present']", "equals": "true"}]
    )
    results = judge([gpu_node("gpu", gpus="0"), gpu_node("cpu", gpus=None, present=False)], rules=[rule])
    assert results[("gpu", "r")].result == "fail"
    skip = results[("cpu", "r")]
    assert skip.result == "skip"
    assert skip.message == (
        "precondition not met: $.metadata.labels['nvidia.com/gpu.present'] is [], not == true (nothing selected)"
    )


def test_precondition_description_is_the_reason(judge: Judge) -> None:
    spec = {
        "context": {
            "sandbox": {"kind": "ClusterPolicy", "path": "$.spec.sandboxWorkloads.enabled", "first": True, "default": False}
        }
    }
    rule = make_rule(
        {"path": WORKLOAD, "in": ["vm-passthrough", "vm-vgpu"]},
        preconditions=[
            {"path": "$.metadata.labels['nvidia.com/gpu.present']", "equals": "true", "description": "no GPU on the node"},
            {"context": "sandbox", "equals": True, "description": "sandbox workloads are disabled in the ClusterPolicy"},
        ],
    )
    r = judge([gpu_node("n1")], rules=[rule], **spec)[("n1", "r")]
    assert (r.result, r.message) == ("skip", "sandbox workloads are disabled in the ClusterPolicy")
    r = judge([gpu_node("n1", present=False)], rules=[rule], **spec)[("n1", "r")]
    assert (r.result, r.message) == ("skip", "no GPU on the node")


def test_every_precondition_must_hold(judge: Judge) -> None:
    rule = make_rule(
        {"path": GPUS, "gt": 0},
        preconditions=[
            {"path": "$.metadata.labels['nvidia.com/gpu.present']", "equals": "true"},
            {"path": WORKLOAD, "equals": "container", "description": "not a container node"},
        ],
    )
    results = judge([gpu_node("a", gpus="0"), gpu_node("b", gpus="0", workload="vm-passthrough")], rules=[rule])
    assert results[("a", "r")].result == "fail"
    assert (results[("b", "r")].result, results[("b", "r")].message) == ("skip", "not a container node")


# ------------------------------------------------------------------------------------ warn, verdict


def test_on_failure_warn(judge: Judge) -> None:
    rule = make_rule({"path": GPUS, "gt": 0}, onFailure="warn")
    r = judge([gpu_node("n1", gpus="0")], rules=[rule])[("n1", "r")]
    assert (r.result, r.scored) == ("warn", False)
    r = judge([gpu_node("n1", gpus="0")], rules=[make_rule({"path": GPUS, "gt": 0})], defaults={"onFailure": "warn"})[("n1", "r")]
    assert r.result == "warn"
    # a warn rule that holds passes
    assert judge([gpu_node("n1")], rules=[rule])[("n1", "r")].result == "pass"


@pytest.mark.parametrize(
    ("words", "verdict"),
    [
        (["pass", "skip"], "pass"),
        (["skip", "skip"], "skip"),
        (["pass", "warn", "skip"], "warn"),
        (["warn", "fail", "pass"], "fail"),
        (["fail", "error", "warn"], "error"),
        (["error", "skip"], "error"),
        ([], "skip"),
    ],
)
def test_verdict_is_the_worst_result(words: list[str], verdict: str) -> None:
    results = tuple(Result("p", f"r{i}", "t", w, "high", "", "") for i, w in enumerate(words))
    assert ObjectReport(ObjectRef("v1", "Node", "n"), Source("x"), results).verdict == verdict


def test_verdict_from_evaluation(load_policy: Callable[..., PolicySet]) -> None:
    rules = [
        make_rule({"path": GPUS, "gt": 0}, id="gpus"),
        make_rule({"path": WORKLOAD, "equals": "container"}, id="workload", onFailure="warn"),
        make_rule({"path": GPUS, "lte": 8}, id="skipped", preconditions=[{"path": "$.spec.unschedulable", "equals": True}]),
    ]
    report = run(load_policy, [gpu_node("ok"), gpu_node("warned", workload="vm-vgpu"), gpu_node("failed", gpus="0")], rules)
    assert {o.ref.name: o.verdict for o in report.objects} == {"ok": "pass", "warned": "warn", "failed": "fail"}


# ------------------------------------------------------------------------------------------ errors


def test_error_is_confined_to_the_object(load_policy: Callable[..., PolicySet]) -> None:
    rules = [
        make_rule({"path": GPUS, "gte": 1}, id="gpus", message="{name}: {observed} GPUs"),
        make_rule({"path": WORKLOAD, "exists": True}, id="labelled"),
    ]
    broken = gpu_node("gpu-broken", gpus="eight")
    report = run(load_policy, [gpu_node("gpu-1"), broken, gpu_node("gpu-2")], rules)
    results = results_of(report)
    assert results[("gpu-broken", "gpus")].result == "error"
    assert results[("gpu-broken", "gpus")].message == f"could not evaluate: {GPUS}: 'eight' is not a Kubernetes quantity"
    assert results[("gpu-broken", "gpus")].observed is None
    assert results[("gpu-broken", "labelled")].result == "pass"  # the other rule on the same object still runs
    assert {k: v.result for k, v in results.items() if k[0] != "gpu-broken"} == {
        ("gpu-1", "gpus"): "pass",
        ("gpu-1", "labelled"): "pass",
        ("gpu-2", "gpus"): "pass",
        ("gpu-2", "labelled"): "pass",
    }
    assert {o.ref.name: o.verdict for o in report.objects} == {"gpu-1": "pass", "gpu-broken": "error", "gpu-2": "pass"}


def test_an_operator_raising_becomes_an_error_result(
    load_policy: Callable[..., PolicySet], monkeypatch: pytest.MonkeyPatch
) -> None:
    from dataclasses import replace

    from rules import operators

    real = operators.OPERATORS["startsWith"]

    def flaky(value: Any, arg: Any) -> bool:
        if value == "vm-vgpu":
            raise RuntimeError("boom")
        return bool(real.test(value, arg))

    monkeypatch.setitem(operators.OPERATORS, "startsWith", replace(real, test=flaky))
    rules = [make_rule({"path": WORKLOAD, "startsWith": "vm-"})]
    report = run(
        load_policy,
        [gpu_node("a", workload="vm-passthrough"), gpu_node("b", workload="vm-vgpu"), gpu_node("c", workload="container")],
        rules,
    )
    results = results_of(report)
    assert [results[(n, "r")].result for n in "abc"] == ["pass", "error", "fail"]
    assert results[("b", "r")].message == "could not evaluate: internal error RuntimeError: boom"


# ------------------------------------------------------------------------------------------ report


def test_report_summary_and_bookkeeping(load_policy: Callable[..., PolicySet]) -> None:
    rules = [
        make_rule({"path": GPUS, "gt": 0}, id="gpus", severity="high"),
        make_rule({"path": WORKLOAD, "equals": "container"}, id="workload", severity="low", onFailure="warn"),
        make_rule(
            {"path": GPUS, "gte": 0},
            id="needs-label",
            severity="critical",
            preconditions=[{"path": "$.metadata.labels['nvidia.com/gpu.present']", "exists": True}],
        ),
    ]
    objects = [
        gpu_node("ok"),
        gpu_node("no-gpus", gpus="0"),
        gpu_node("vgpu", workload="vm-vgpu"),
        gpu_node("broken", gpus="many", present=False),
        {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "unjudged", "namespace": "default"}},
    ]
    errors = [InputError(Source("dump.yaml", 7, 120), "YAML syntax error: mapping values are not allowed here")]
    report = run(load_policy, objects, rules, errors)
    assert report.summary() == {
        "objectsRead": 5,
        "objectsJudged": 4,
        "results": {"pass": 8, "fail": 1, "warn": 1, "error": 1, "skip": 1},
        "findingsBySeverity": {"critical": 0, "high": 2, "medium": 0, "low": 1, "info": 0},
        "failBySeverity": {"critical": 0, "high": 1, "medium": 0, "low": 0, "info": 0},
        "warnBySeverity": {"critical": 0, "high": 0, "medium": 0, "low": 1, "info": 0},
        "errorBySeverity": {"critical": 0, "high": 1, "medium": 0, "low": 0, "info": 0},
        "verdicts": {"pass": 1, "fail": 1, "warn": 1, "error": 1, "skip": 0},
        "inputErrors": 1,
    }
    assert report.worst() == "error"
    assert report.policies == [{"name": "test-policy", "version": "1.2.3", "pack": "", "rules": 3}]
    assert report.name == "lab"
    assert set(report.timing) == {"indexMs", "evaluateMs"}
    doc = report.to_dict()
    assert doc["inputErrors"] == [
        {
            "file": "dump.yaml",
            "document": 7,
            "line": 120,
            "path": "",
            "reason": "YAML syntax error: mapping values are not allowed here",
        }
    ]
    assert [o["name"] for o in doc["objects"]] == ["ok", "no-gpus", "vgpu", "broken"]
    assert doc["objects"][1]["source"] == {"file": "dump.yaml", "document": 2, "line": 1}


def test_worst_counts_input_errors(load_policy: Callable[..., PolicySet]) -> None:
    clean = run(load_policy, [gpu_node("ok")], [make_rule({"path": GPUS, "gt": 0})])
    assert clean.worst() == "pass"
    assert Report().worst() == "skip"
    with_errors = run(
        load_policy,
        [gpu_node("ok")],
        [make_rule({"path": GPUS, "gt": 0})],
        [InputError(Source("x.yaml"), "not a Kubernetes object: no 'kind'")],
    )
    assert with_errors.worst() == "error"


def test_report_filtered(load_policy: Callable[..., PolicySet]) -> None:
    rules = [
        make_rule({"path": GPUS, "gt": 0}, id="gpus", severity="high"),
        make_rule({"path": WORKLOAD, "equals": "container"}, id="workload", severity="low", onFailure="warn"),
        make_rule({"path": GPUS, "lte": 8}, id="at-most-8", severity="info"),
    ]
    report = run(
        load_policy, [gpu_node("ok"), gpu_node("no-gpus", gpus="0"), gpu_node("vgpu", workload="vm-vgpu", gpus="16")], rules
    )

    def names(r: Report) -> dict[str, list[str]]:
        return {o.ref.name: [x.rule for x in o.results] for o in r.objects}

    assert names(report.filtered({"fail", "warn"})) == {"no-gpus": ["gpus"], "vgpu": ["workload", "at-most-8"]}
    assert names(report.filtered({"fail"})) == {"no-gpus": ["gpus"], "vgpu": ["at-most-8"]}
    assert names(report.filtered(min_severity="high")) == {"ok": ["gpus"], "no-gpus": ["gpus"], "vgpu": ["gpus"]}
    assert names(report.filtered({"fail", "warn"}, "low")) == {"no-gpus": ["gpus"], "vgpu": ["workload"]}
    assert names(report.filtered({"error"})) == {}
    assert names(report.filtered()) == names(report)
    # filtering keeps the rest of the report and does not change the original
    filtered = report.filtered({"fail"})
    assert filtered.objects_read == 3 and filtered.policies == report.policies
    assert len(report.objects) == 3
    # Regression: the summary counted only what the filter kept ("5 objects judged" next to 13 read):
    # it is the audit's, and the filters are named in the report.
    assert filtered.summary() == report.summary()
    assert filtered.summary()["results"] == {"pass": 6, "fail": 2, "warn": 1, "error": 0, "skip": 0}
    assert filtered.to_dict()["filters"] == {"results": ["fail"]}
    assert "filters" not in report.to_dict()


def test_rules_match_by_kind_and_wildcard(load_policy: Callable[..., PolicySet]) -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "cuda", "namespace": "ml"}}
    rules = [
        make_rule({"var": "kind", "exists": True}, id="any-kind", match={"kinds": ["*"]}),
        make_rule({"var": "kind", "equals": "Node"}, id="nodes-only"),
    ]
    report = run(load_policy, [gpu_node("n1"), pod], rules)
    assert {k: v.result for k, v in results_of(report).items()} == {
        ("n1", "nodes-only"): "pass",
        ("n1", "any-kind"): "pass",
        ("cuda", "any-kind"): "pass",
    }


def test_policy_vars_are_computed_once_per_object(load_policy: Callable[..., PolicySet], monkeypatch: pytest.MonkeyPatch) -> None:
    from rules import evaluate as ev

    computed: list[str] = []
    real = ev.Scope._compute

    def counting(self: Any, name: str, spec: Any) -> Any:
        computed.append(f"{self.obj.name}:{name}")
        return real(self, name, spec)

    monkeypatch.setattr(ev.Scope, "_compute", counting)
    rules = [
        make_rule({"var": "workload", "exists": True}, id="a"),
        make_rule({"var": "workload", "equals": "container"}, id="b", message="{workload}"),
    ]
    run(load_policy, [gpu_node("n1"), gpu_node("n2")], rules, vars={"workload": WORKLOAD})
    assert computed == ["n1:workload", "n2:workload"]


# ------------------------------------------------------------------------------------- skip notes


def _needs_clusterpolicy(rule_id: str, description: str = "no ClusterPolicy in the dump") -> dict[str, Any]:
    # After a precondition on the node, so that each node skips with the reason (led by it, the rule would apply
    # to no object of the dump: test_a_rule_led_by_an_unmet_precondition_on_the_dump_applies_to_no_object).
    return make_rule(
        {"path": GPUS, "gt": 0},
        id=rule_id,
        preconditions=[
            {"path": "$.metadata.name", "exists": True},
            {"context": "cp", "exists": True, "description": description},
        ],
    )


CLUSTERPOLICY_CONTEXT = {"context": {"cp": {"kind": "ClusterPolicy", "path": "$.metadata.name", "first": True}}}


def test_skips_for_one_missing_object_are_noted_once_with_their_rules(load_policy: Callable[..., PolicySet]) -> None:
    nodes = [gpu_node(f"n{i}") for i in range(3)]
    rules = [_needs_clusterpolicy("a"), _needs_clusterpolicy("b"), make_rule({"path": GPUS, "gt": 0}, id="c")]
    report = run(load_policy, nodes, rules, **CLUSTERPOLICY_CONTEXT)
    assert report.summary()["results"]["skip"] == 6
    assert report.notes == [
        "skipped: no ClusterPolicy in the dump (6 results of test-policy/a, test-policy/b; neither rule judged any object)"
    ]


def test_skip_notes_put_what_kept_a_rule_from_running_before_a_common_precondition(
    load_policy: Callable[..., PolicySet],
) -> None:
    # Rule "gpu" skips most nodes (no GPU) but judges one; rule "cp" judges nothing for want of a ClusterPolicy.
    # The ClusterPolicy reason has fewer results, yet it is why a rule did not run at all: it comes first.
    nodes = [gpu_node("g1")] + [gpu_node(f"cpu{i}", gpus=None) for i in range(4)]
    rules = [
        make_rule(
            {"path": GPUS, "gt": 0},
            id="gpu",
            preconditions=[{"path": GPUS, "exists": True, "description": "the node has no GPU"}],
        ),
        {**_needs_clusterpolicy("cp"), "match": {"kinds": ["Node"], "names": ["g1"]}},
    ]
    report = run(load_policy, nodes, rules, **CLUSTERPOLICY_CONTEXT)
    assert [n for n in report.notes if n.startswith("skipped")] == [
        "skipped: no ClusterPolicy in the dump (1 result of test-policy/cp; the rule judged no object)",
        "skipped: the node has no GPU (4 results of test-policy/gpu)",
    ]


def test_a_skip_note_counts_the_rules_its_reason_kept_from_judging_any_object(load_policy: Callable[..., PolicySet]) -> None:
    """Review: "(5 results of a, b; 1 rule skipped every object)" did not say which rule, nor read as English."""
    nodes = [gpu_node("g1")] + [gpu_node(f"cpu{i}", gpus=None) for i in range(2)]
    no_gpu = [{"path": GPUS, "exists": True, "description": "the node has no GPU"}]
    rules = [
        make_rule({"path": GPUS, "gt": 0}, id="judges-g1", preconditions=no_gpu),
        {
            **make_rule({"path": GPUS, "gt": 0}, id="judges-none", preconditions=no_gpu),
            "match": {"kinds": ["Node"], "names": ["cpu*"]},
        },
    ]
    notes = [n for n in run(load_policy, nodes, rules).notes if n.startswith("skipped")]
    assert notes == [
        "skipped: the node has no GPU (4 results of test-policy/judges-g1, test-policy/judges-none;"
        " 1 of these 2 rules judged no object)"
    ]


def test_skip_notes_group_identical_reasons_most_results_first_and_count_the_rest(load_policy: Callable[..., PolicySet]) -> None:
    from rules.evaluate import MAX_SKIP_NOTES, SKIP_NOTE_RULES

    # reason i is shared by i+1 rules, so the most shared comes first; one rule per reason past the cap
    rules = [_needs_clusterpolicy(f"r{i}-{j}", f"reason {i}") for i in range(MAX_SKIP_NOTES + 2) for j in range(i + 1)]
    report = run(load_policy, [gpu_node("n1")], rules, **CLUSTERPOLICY_CONTEXT)
    notes = [n for n in report.notes if n.startswith("skipped")]
    assert len(notes) == MAX_SKIP_NOTES + 1
    top = MAX_SKIP_NOTES + 1  # reason 6: 7 rules, 7 results
    named = ", ".join(sorted(f"test-policy/r{top}-{j}" for j in range(top + 1))[:SKIP_NOTE_RULES])
    assert notes[0] == (
        f"skipped: reason {top} ({top + 1} results of {named} and {top + 1 - SKIP_NOTE_RULES} more rules;"
        " none of these rules judged any object)"
    )
    assert notes[1].startswith(f"skipped: reason {top - 1} ({top} results of ")
    # reasons 0 (1 result) and 1 (2 results) are left for the last note
    assert notes[-1] == (
        "skipped for 2 other reasons: 3 results (each skip result says its reason: --results skip, or results=skip"
        " from the service, lists them)"
    )


def test_a_skip_note_one_rule_past_those_it_names_says_one_more_rule(load_policy: Callable[..., PolicySet]) -> None:
    """Review: five rules sharing a reason gave "and 1 more rules"."""
    from rules.evaluate import SKIP_NOTE_RULES

    rules = [_needs_clusterpolicy(f"r{j}", "one reason") for j in range(SKIP_NOTE_RULES + 1)]
    [note] = [n for n in run(load_policy, [gpu_node("n1")], rules, **CLUSTERPOLICY_CONTEXT).notes if n.startswith("skipped")]
    named = ", ".join(f"test-policy/r{j}" for j in range(SKIP_NOTE_RULES))
    assert note == f"skipped: one reason (5 results of {named} and 1 more rule; none of these rules judged any object)"


def test_skips_made_by_an_exemption_are_not_skip_notes(load_policy: Callable[..., PolicySet]) -> None:
    bad = gpu_node("n1", gpus="0")
    bad["metadata"]["annotations"] = {"verdict.dev/exempt": "test-policy/c: accepted until the new driver"}
    report = run(load_policy, [bad], [make_rule({"path": GPUS, "gt": 0}, id="c")])
    assert report.summary()["results"]["skip"] == 1
    assert not [n for n in report.notes if n.startswith("skipped")]


def test_per_dump_memos_never_serve_one_dump_the_outcomes_of_another(
    load_policy: Callable[..., PolicySet], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression (review): per-dump memos of forEach items keyed their tables on id(scope.index); a later dump
    whose Index took a freed one's address got the earlier dump's outcomes (seen once in five suite runs, in a
    service or a batch: wrong verdicts). Here every Index is given one id, as an unlucky allocator would."""
    import builtins

    from rules import compiled
    from rules.index import Index

    monkeypatch.setattr(compiled, "id", lambda o: 7 if isinstance(o, Index) else builtins.id(o), raising=False)
    rule = make_rule(
        {
            "forEach": {
                "keys": "$.metadata.labels",
                "as": "label",
                "assert": {"any": [{"var": "label", "in": {"context": "allowed"}}, {"path": "$.metadata.name", "equals": "-"}]},
            }
        },
        id="labels-allowed",
    )
    spec = {"context": {"allowed": {"kind": "ConfigMap", "path": "$.data.allowed"}}}
    policies = load_policy(make_policy([rule], **spec))

    def verdict(allowed: str) -> str:
        cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c", "namespace": "d"}, "data": {"allowed": allowed}}
        objects = [cm, node("n", labels={"x": "1"})]
        dump = Dump(objects=[KObject(o, Source("dump.yaml", i + 1, 1)) for i, o in enumerate(objects)])
        [result] = [r for o in evaluate(dump, policies, name="d").objects if o.ref.kind == "Node" for r in o.results]
        return result.result

    assert [verdict(a) for a in ("x", "y", "x", "y")] == ["pass", "fail", "pass", "fail"]


def test_message_var_that_cannot_be_computed_says_so(judge: Judge) -> None:
    """Regression (trial 167): a var that raised while its message was written was left as "{budget}" in the text,
    which reads as a slip of the template; an unknown name (a forEach binding where no item failed) stays as written."""
    rule = make_rule(
        {"path": GPUS, "gt": 8},
        message="{name} has {observed} GPUs of {budget}",
        vars={"budget": {"elapsed": [{"path": "$.metadata.annotations.since"}, "2026-01-01T00:00:00Z"]}},
    )
    bad = gpu_node("n1")
    bad["metadata"]["annotations"] = {"since": "yesterday"}
    r = judge([bad], rules=[rule])[("n1", "r")]
    assert r.result == "fail"
    assert r.message.startswith("n1 has 8 GPUs of <budget: could not evaluate: "), r.message
    assert "{budget}" not in r.message, r.message
    assert "is not an RFC 3339 time" in r.message, r.message
    good = gpu_node("n2")
    good["metadata"]["annotations"] = {"since": "2025-12-31T23:59:44Z"}
    assert judge([good], rules=[rule])[("n2", "r")].message == "n2 has 8 GPUs of 16"


def test_rules_whose_match_leaves_out_every_object_of_their_kinds_are_noted(tmp_path: Path) -> None:
    """Regression (trial 190): a pack's five Node rules selecting nvidia.com/gpu.present judged none of the lab's
    eleven nodes, and the table read "15 pass" with no word of them. A note names them; the built-in pack's rules for a
    named object (kubevirt-config) are no news to a dump without it."""
    from rules.loader import load_policies
    from rules.reader import parse_text

    policy = tmp_path / "acme.yaml"
    policy.write_text(
        "apiVersion: verdict/v1\nkind: Policy\nmetadata: {name: acme}\nspec:\n  rules:\n"
        "  - id: team\n    title: GPU node has a team\n"
        "    match: {kinds: [Node], labelSelector: {matchLabels: {nvidia.com/gpu.present: 'true'}}}\n"
        "    assert: {path: \"$.metadata.labels['acme.io/team']\", exists: true}\n"
        "    message: no team\n    references: ['https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/']\n"
        "  - id: named\n    title: named\n    match: {kinds: [Node]}\n    assert: {path: $.metadata.name, exists: true}\n"
        "    message: x\n    references: ['https://kubernetes.io/']\n"
    )
    dump = parse_text("apiVersion: v1\nkind: Node\nmetadata: {name: cpu-1}\n---\napiVersion: v1\nkind: ConfigMap\n"
                      "metadata: {name: other, namespace: kubevirt}\n", "d.yaml")  # fmt: skip
    notes = [n for n in evaluate(dump, load_policies([str(policy)])).notes if "matched none" in n]
    assert notes == [
        "1 rule matched none of the dump's objects of the kinds they judge (their match's labelSelector, names,"
        " namespaces or apiVersions leave them all out): acme/team"
    ]
    assert not [n for n in evaluate(dump, load_policies(())).notes if "matched none" in n]
    # trial 196: with a selection (--name, -l) the objects the rule matches may be left out by it, not by the rule
    from rules.selection import Selection

    two = parse_text(
        "apiVersion: v1\nkind: Node\nmetadata: {name: cpu-1}\n---\napiVersion: v1\nkind: Node\n"
        "metadata: {name: gpu-1, labels: {nvidia.com/gpu.present: 'true'}}\n",
        "d.yaml",
    )
    selected = evaluate(two, load_policies([str(policy)]), selection=Selection(names=("cpu-1",)))
    assert [o.ref.name for o in selected.objects] == ["cpu-1"]
    assert not [n for n in selected.notes if "matched none" in n]
    # trial 201: a selection that leaves out nothing (--kind Node here) keeps the note
    kept = evaluate(dump, load_policies([str(policy)]), selection=Selection(kinds=("Node", "ConfigMap")))
    assert [n for n in kept.notes if "matched none" in n] == notes
