"""spec.assumptions: a verdict taken from the evidence present says what it assumed (DESIGN "Partial dumps")."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from conftest import make_policy, make_rule, node

from rules.errors import PolicyError, Source
from rules.evaluate import evaluate
from rules.loader import PolicySet
from rules.reader import Dump, KObject
from rules.report import Report

LABEL = "$.metadata.labels['nvidia.com/gpu.workload.config']"
CONTEXT = {"clusterPolicies": {"kind": "ClusterPolicy", "path": "$.metadata.name"}}
ASSUMPTIONS = {
    "labelRead": {
        "when": {"all": [{"context": "clusterPolicies", "exists": False}, {"path": LABEL, "exists": True}]},
        "message": "(Assumed: node {name}'s label is read.)",
        "note": "no ClusterPolicy: labels are taken as read",
    },
    "unlabelled": {
        "when": {"all": [{"context": "clusterPolicies", "exists": False}, {"path": LABEL, "exists": False}]},
        "message": "(Assumed: the default workload.)",
        "onFailure": "warn",
    },
}
# a node "agrees" when it advertises nvidia.com/gpu; the label is ignored here, only the assumptions differ
RULE = make_rule(
    {"path": "$.status.allocatable['nvidia.com/gpu']", "exists": True},
    id="advertises-gpu",
    message="Node {name} advertises no nvidia.com/gpu.",
    passMessage="Node {name} advertises nvidia.com/gpu.",
    assumes=["labelRead", "unlabelled"],
)
CLUSTER_POLICY = {"apiVersion": "nvidia.com/v1", "kind": "ClusterPolicy", "metadata": {"name": "cp"}, "spec": {}}


def audit(load_policy: Callable[..., PolicySet], objects: list[dict[str, Any]]) -> Report:
    policies = load_policy(make_policy([RULE], context=CONTEXT, assumptions=ASSUMPTIONS))
    dump = Dump(objects=[KObject(o, Source("dump.yaml", i + 1, 1)) for i, o in enumerate(objects)])
    return evaluate(dump, policies)


def by_node(report: Report) -> dict[str, Any]:
    return {o.ref.name: o.results[0] for o in report.objects if o.ref.kind == "Node"}


def test_a_failure_resting_on_an_assumption_says_it(load_policy) -> None:
    labelled = node("n1", {"nvidia.com/gpu.workload.config": "vm-passthrough"}, allocatable={"nvidia.com/GA102GL_A10": "1"})
    r = by_node(audit(load_policy, [labelled]))["n1"]
    assert r.result == "fail"
    assert r.message == "Node n1 advertises no nvidia.com/gpu. (Assumed: node n1's label is read.)"
    assert r.assumptions == ("no ClusterPolicy: labels are taken as read",)
    assert r.to_dict()["assumptions"] == ["no ClusterPolicy: labels are taken as read"]


def test_an_assumption_can_make_the_failure_advisory(load_policy) -> None:
    unlabelled = node("n2", {}, allocatable={"nvidia.com/GA102GL_A10": "1"})
    r = by_node(audit(load_policy, [unlabelled]))["n2"]
    assert (r.result, r.message) == ("warn", "Node n2 advertises no nvidia.com/gpu. (Assumed: the default workload.)")


def test_a_pass_says_its_assumption_too(load_policy) -> None:
    good = node("n3", {"nvidia.com/gpu.workload.config": "container"}, allocatable={"nvidia.com/gpu": "2"})
    r = by_node(audit(load_policy, [good]))["n3"]
    assert (r.result, r.message) == ("pass", "Node n3 advertises nvidia.com/gpu. (Assumed: node n3's label is read.)")


def test_no_assumption_when_the_deciding_object_is_there(load_policy) -> None:
    bad = node("n4", {"nvidia.com/gpu.workload.config": "vm-passthrough"}, allocatable={"nvidia.com/GA102GL_A10": "1"})
    report = audit(load_policy, [bad, CLUSTER_POLICY])
    r = by_node(report)["n4"]
    assert (r.result, r.message, r.assumptions) == ("fail", "Node n4 advertises no nvidia.com/gpu.", ())
    assert "assumptions" not in r.to_dict()
    assert not [n for n in report.notes if n.startswith("assumed:")]


def test_the_report_notes_each_assumption_once(load_policy) -> None:
    nodes = [
        node("a", {"nvidia.com/gpu.workload.config": "container"}, allocatable={"nvidia.com/gpu": "1"}),
        node("b", {"nvidia.com/gpu.workload.config": "vm-vgpu"}, allocatable={"nvidia.com/gpu": "1"}),
        node("c", {}, allocatable={"nvidia.com/gpu": "1"}),
    ]
    notes = [n for n in audit(load_policy, nodes).notes if n.startswith("assumed:")]
    assert notes == [
        "assumed: no ClusterPolicy: labels are taken as read (applied to 2 results of test-policy/advertises-gpu)",
        "assumed: (Assumed: the default workload.) (applied to 1 result of test-policy/advertises-gpu)",
    ]


def test_an_unknown_assumption_is_refused_with_a_did_you_mean(load_policy) -> None:
    rule = {**RULE, "assumes": ["labelRaed"]}
    with pytest.raises(PolicyError) as err:
        load_policy(make_policy([rule], context=CONTEXT, assumptions=ASSUMPTIONS))
    assert err.value.reason == "unknown assumption 'labelRaed'; did you mean 'labelRead'?"
    assert err.value.path == "spec.rules[0].assumes[0]"


def test_a_message_with_placeholders_needs_a_note(load_policy) -> None:
    bad = {"x": {"when": {"path": "$.kind", "exists": True}, "message": "node {name} is assumed"}}
    with pytest.raises(PolicyError) as err:
        load_policy(make_policy([make_rule()], assumptions=bad))
    assert "needs a note" in err.value.reason
    assert err.value.path == "spec.assumptions.x.note"


def test_an_assumption_placeholder_must_name_something(load_policy) -> None:
    bad = {"x": {"when": {"path": "$.kind", "exists": True}, "message": "{nope} assumed", "note": "n"}}
    with pytest.raises(PolicyError) as err:
        load_policy(make_policy([make_rule()], assumptions=bad))
    assert "message placeholder {nope} names no var, context or built-in" in err.value.reason
