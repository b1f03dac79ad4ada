"""spec.assumptions: a verdict taken from the evidence present says what it assumed (DESIGN "Partial dumps")."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import make_policy, make_rule, node

from rules.errors import InputError, PolicyError, Source
from rules.evaluate import UNREAD_NOTE, evaluate
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


# ------------------------------------------------------------------ input errors: what was not read


PODS_CONTEXT = {"nodePods": {"kind": "Pod", "path": "$.spec.nodeName"}}
RUNS_A_POD = make_rule(
    {"var": "me", "in": {"context": "nodePods"}},
    id="runs-a-pod",
    message="No pod runs on node {name}.",
    passMessage="A pod runs on node {name}.",
)
OWN_LABEL = make_rule({"path": LABEL, "exists": True}, id="labelled", message="Node {name} has no workload label.")


def audit_with_errors(
    load_policy: Callable[..., PolicySet], objects: list[dict[str, Any]], errors: int, rule: dict[str, Any] = RUNS_A_POD
) -> Report:
    policies = load_policy(make_policy([rule, OWN_LABEL], context=PODS_CONTEXT, vars={"me": {"path": "$.metadata.name"}}))
    dump = Dump(
        objects=[KObject(o, Source("dump.yaml", i + 1, 1)) for i, o in enumerate(objects)],
        errors=[InputError(Source("dump.yaml", 9, 40, i), "list item is not an object", f"$.items[{i}]") for i in range(errors)],
    )
    return evaluate(dump, policies)


def test_a_finding_read_from_other_objects_says_the_dump_was_not_read_whole(load_policy) -> None:
    # trial 92: the vgpu-manager pod of a node was the List item lost to a missing comma, and the node was said to
    # run none, without a word of the input error
    report = audit_with_errors(load_policy, [node("n1"), node("n2")], errors=1)
    results = {(o.ref.name, r.rule): r for o in report.objects for r in o.results}
    runs = results[("n1", "runs-a-pod")]
    assert runs.result == "fail"
    assert runs.message == (
        "No pod runs on node n1. 1 input error kept part of the dump from being read (see its input errors), and this"
        " verdict reads other objects of it: what was not read may change it."
    )
    assert runs.assumptions == (UNREAD_NOTE,)
    # trial 175 #10: a message ending without a stop ran into it ("... (node-a) 2 input errors kept ...")
    unstopped = audit_with_errors(load_policy, [node("n1")], errors=2, rule={**RUNS_A_POD, "message": "No pod runs on {name}"})
    [said] = [r.message for o in unstopped.objects for r in o.results if r.rule == "runs-a-pod"]
    assert said.startswith("No pod runs on n1. 2 input errors kept part of the dump from being read")
    # an aside that ends with its own stop is not given another (trial 177: "add it to be sure.). 1 input error")
    aside = audit_with_errors(load_policy, [node("n1")], errors=1, rule={**RUNS_A_POD, "message": "No pod (see n1.)"})
    [said] = [r.message for o in aside.objects for r in o.results if r.rule == "runs-a-pod"]
    assert said.startswith("No pod (see n1.) 1 input error kept")
    assert (
        "assumed: nothing the input errors kept from being read would change a verdict that reads other objects of"
        " the dump (applied to 2 results of test-policy/runs-a-pod)"
    ) in report.notes
    # a verdict that reads only its own object stands whatever else was lost
    labelled = results[("n1", "labelled")]
    assert (labelled.result, labelled.message, labelled.assumptions) == ("fail", "Node n1 has no workload label.", ())


def test_without_input_errors_a_finding_read_from_other_objects_says_nothing_more(load_policy) -> None:
    report = audit_with_errors(load_policy, [node("n1")], errors=0)
    runs = next(r for r in report.objects[0].results if r.rule == "runs-a-pod")
    assert (runs.result, runs.message, runs.assumptions) == ("fail", "No pod runs on node n1.", ())
    assert not [n for n in report.notes if n.startswith("assumed:")]


def test_a_pass_read_from_other_objects_is_not_put_in_doubt(load_policy) -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "d"}, "spec": {"nodeName": "n1"}}
    report = audit_with_errors(load_policy, [node("n1"), pod], errors=3)
    runs = next(r for o in report.objects for r in o.results if r.rule == "runs-a-pod")
    assert (runs.result, runs.message, runs.assumptions) == ("pass", "A pod runs on node n1.", ())


def test_trial_92_an_operand_pod_lost_with_its_list_item_is_said_to_be_in_doubt() -> None:
    # The pack's own dumps as one JSON List, the sandbox device plugin's pod of a10-pt-5 broken (a colon missing in
    # it): that item is lost (an input error naming it), and the node is said to run no such pod; the finding says
    # the dump was not read whole. The same List read whole passes the node, and so does one whose only fault is a
    # comma missing after that item (trial 93: the item, whole, was lost with it; it is read now).
    import json

    import yaml

    from rules.engine import audit_bytes
    from rules.loader import load_policies

    dumps = Path(__file__).resolve().parent.parent / "policies" / "gpu-operator" / "tests" / "dumps"
    files = ("clusterpolicy_sandbox_enabled.yaml", "operand_pods_of_suffixed_daemonsets.yaml")
    docs = [d for f in files for d in yaml.safe_load_all((dumps / f).read_text()) if d]
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": docs}, indent=2)
    end = text.rindex("},", 0, text.index('"name": "nvidia-vgpu-manager-ubuntu22.04-7c6d7bd86b-m4n2p"'))
    colon = text.rindex('"nodeName":', 0, end) + len('"nodeName"')
    policies = load_policies()

    def verdict(body: str) -> tuple[Report, Any]:
        report = audit_bytes(body.encode(), "list.json", policies)
        node = next(o for o in report.objects if o.ref.name == "a10-pt-5")
        return report, next(r for r in node.results if r.rule == "sandbox-operands-running")

    whole, running = verdict(text)
    assert (whole.input_errors, running.result) == ([], "pass")
    comma, running = verdict(text[: end + 1] + text[end + 2 :])
    assert [(e.reason, e.lost) for e in comma.input_errors] == [
        ("JSON syntax error: a comma is missing after this item of the List (line 458); it is read", False)
    ]
    assert (running.result, running.assumptions) == ("pass", ())
    assert not [n for n in comma.notes if n.startswith("assumed:")]
    lost, running = verdict(text[:colon] + text[colon + 1 :])
    assert [e.reason for e in lost.input_errors] == [
        "JSON syntax error in this item of the List (Pod gpu-operator/nvidia-sandbox-device-plugin-daemonset-p4w8n, not"
        " read): Expecting ':' delimiter (line 443, column 20)"
    ]
    assert running.result == "fail"
    assert running.message.startswith("Node a10-pt-5 should run a pod of DaemonSet nvidia-sandbox-device-plugin-daemonset")
    assert running.message.endswith(
        " but no pod of it runs on the node in the dump. Look at the DaemonSet's pods and events. 1 input error kept part"
        " of the dump from being read (see its input errors), and this verdict reads other objects of it: what was not"
        " read may change it."
    )


def test_an_input_error_of_a_kind_the_verdict_does_not_read_puts_it_in_no_doubt(load_policy) -> None:
    """Review: a broken ConfigMap item put in doubt every finding read from other objects, Nodes or Pods alike. Where
    the reader knows the kind it lost (a List item named by its layout), only a verdict reading that kind is."""
    policies = load_policy(make_policy([RUNS_A_POD], context=PODS_CONTEXT, vars={"me": {"path": "$.metadata.name"}}))

    def runs(kind: str) -> Any:
        lost = InputError(Source("dump.json", 1, 40, 3), "JSON syntax error in this item of the List", "", kind=kind)
        report = evaluate(Dump(objects=[KObject(node("n1"), Source("dump.json", 1, 2, 0))], errors=[lost]), policies)
        return report.objects[0].results[0]

    assert (runs("ConfigMap").result, runs("ConfigMap").assumptions) == ("fail", ())
    assert runs("Pod").assumptions == (UNREAD_NOTE,)
    assert runs("").assumptions == (UNREAD_NOTE,)  # a kind not known may be any


def test_the_kinds_input_errors_kept_out_are_noted(load_policy) -> None:
    """Trial 97: a ClusterPolicy lost with its List item left a skip and passes saying the dump held none, with no
    word beside them; the report notes what the input errors kept out where the reader knows its kind."""
    policies = load_policy(make_policy([OWN_LABEL]))
    lost = [
        InputError(Source("d.yaml", 1, 3, 0), "this item of the List (ClusterPolicy cp, not read): ...", kind="ClusterPolicy"),
        InputError(Source("d.yaml", 1, 9, 2), "this item of the List (Pod ml/a, not read): ...", kind="Pod"),
        InputError(Source("d.yaml", 1, 19, 3), "this item of the List (Pod ml/b, not read): ...", kind="Pod"),
        InputError(Source("d.yaml", 1, 29, 4), "a comma is missing after this item", kind="Node", lost=False),
    ]
    report = evaluate(Dump(objects=[KObject(node("n1"), Source("d.yaml", 1, 40, 5))], errors=lost), policies)
    assert (
        "input errors kept out 1 ClusterPolicy, 2 Pods (named in them): a result that says the dump holds none of its"
        " kind, or that was judged without it, is about what was read"
    ) in report.notes
    # trial 131: a node's pods withheld ("Pods: not authorized") are an unknown number, not 1 Pod; a known count adds up
    withheld = InputError(Source("d.txt", 1, 14, None), "node n1 is judged without its pods: ...", kind="Pod", count=None)
    cut = InputError(Source("d.txt", 2, 30, None), "node n2 is judged without the pods from ...", kind="Pod", count=3)
    for errors, said in (([withheld, *lost], "an unknown number of Pods"), ([cut, *lost], "5 Pods")):
        report = evaluate(Dump(objects=[KObject(node("n1"), Source("d.yaml", 1, 40, 5))], errors=errors), policies)
        # (trial 230 #9: "named in them", where the error names the node whose pods it lost, not them)
        assert f"input errors kept out 1 ClusterPolicy, {said} (the input errors say where)" in " ".join(report.notes)
