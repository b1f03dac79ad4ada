"""A rule led by preconditions that read only the dump applies to no object of a dump where one does not hold:
no skip result on each object, one entry in ``Report.not_applied`` (``notApplied`` in JSON) and one note (issue
11: three workload rules for dumps without Nodes put 31,000 identical skips in a 10,000-pod report)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from conftest import make_policy, make_rule, node

from rules.errors import Source
from rules.evaluate import evaluate
from rules.loader import PolicySet
from rules.packtest import PackTest, load_test_file, run_test
from rules.reader import Dump, KObject
from rules.render import render
from rules.report import Report

GPUS = "$.status.allocatable['nvidia.com/gpu']"
CP = {"context": {"cp": {"kind": "ClusterPolicy", "path": "$.metadata.name", "first": True}}}
NEEDS_CP = {"context": "cp", "exists": True, "description": "no ClusterPolicy in the dump"}
CLUSTERPOLICY = {"apiVersion": "nvidia.com/v1", "kind": "ClusterPolicy", "metadata": {"name": "cluster-policy"}}


def gpu_node(name: str, gpus: str = "8") -> dict[str, Any]:
    return node(name, labels={"nvidia.com/gpu.present": "true"}, allocatable={"nvidia.com/gpu": gpus})


def run(load_policy: Callable[..., PolicySet], objects: list[dict[str, Any]], rules: list[dict[str, Any]], **kw: Any) -> Report:
    policies = load_policy(make_policy(rules, **CP))
    dump = Dump(objects=[KObject(o, Source("dump.yaml", i + 1, 1)) for i, o in enumerate(objects)])
    return evaluate(dump, policies, name="lab", **kw)


def results_of(report: Report) -> dict[tuple[str, str], str]:
    return {(o.ref.name, r.rule): r.result for o in report.objects for r in o.results}


def test_a_rule_led_by_an_unmet_precondition_on_the_dump_applies_to_no_object(load_policy: Callable[..., PolicySet]) -> None:
    nodes = [gpu_node("n1"), gpu_node("n2", gpus="0"), gpu_node("n3")]
    rules = [
        make_rule({"path": GPUS, "gt": 0}, id="cp", preconditions=[NEEDS_CP]),
        make_rule({"path": GPUS, "gt": 0}, id="plain"),
    ]
    report = run(load_policy, nodes, rules)
    assert results_of(report) == {("n1", "plain"): "pass", ("n2", "plain"): "fail", ("n3", "plain"): "pass"}
    assert report.not_applied == [
        {
            "rule": "test-policy/cp",
            "policy": "test-policy",
            "reason": "no ClusterPolicy in the dump",
            "objects": 3,
            "supersededBy": "",
        }
    ]
    assert report.summary()["results"] == {"pass": 2, "fail": 1, "warn": 0, "error": 0, "skip": 0}
    assert "not applied: no ClusterPolicy in the dump (test-policy/cp: no result for the 3 objects it matches)" in report.notes
    assert not [n for n in report.notes if n.startswith("skipped")]
    doc = json.loads(render(report, "json"))
    assert doc["notApplied"] == report.not_applied
    # where it holds, the rule judges every object, and notApplied is an empty list (trial 64: jq's .notApplied[]
    # failed on a report without the member)
    report = run(load_policy, [*nodes, CLUSTERPOLICY], rules)
    assert results_of(report)[("n2", "cp")] == "fail" and results_of(report)[("n1", "cp")] == "pass"
    assert report.not_applied == [] and json.loads(render(report, "json"))["notApplied"] == []


def test_rules_not_applied_for_one_reason_share_a_note_with_each_rules_count(load_policy: Callable[..., PolicySet]) -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ml"}, "spec": {}}
    rules = [
        make_rule(id="nodes", preconditions=[NEEDS_CP]),
        make_rule(id="pods", preconditions=[NEEDS_CP], match={"kinds": ["Pod"]}),
        make_rule(id="both", preconditions=[NEEDS_CP], match={"kinds": ["Pod", "Node"]}),
    ]
    report = run(load_policy, [gpu_node("n1"), gpu_node("n2"), pod], rules)
    assert report.objects == [] and [e["objects"] for e in report.not_applied] == [2, 1, 3]
    assert report.notes == [
        "not applied: no ClusterPolicy in the dump (no result for the objects each matches: test-policy/nodes 2,"
        " test-policy/pods 1, test-policy/both 3)"
    ]


def test_a_precondition_on_the_dump_after_one_on_the_object_leaves_each_object_its_own_skip(
    load_policy: Callable[..., PolicySet],
) -> None:
    # The object's reason comes first where it fails (a RuntimeClass hint, a pod rebuilt from describe text):
    # saying the dump's reason once would hide it.
    no_gpu = {"path": GPUS, "gt": 0, "description": "the node has no GPU"}
    report = run(load_policy, [gpu_node("n1"), gpu_node("n2", gpus="0")], [make_rule(id="r", preconditions=[no_gpu, NEEDS_CP])])
    by_name = {o.ref.name: o.results[0].message for o in report.objects}
    assert by_name == {
        "n1": "no ClusterPolicy in the dump",
        "n2": "the node has no GPU",
    }
    assert report.not_applied == []


def test_a_precondition_on_the_dump_that_cannot_be_evaluated_is_an_error_on_each_object(
    load_policy: Callable[..., PolicySet],
) -> None:
    broken = {"context": "cp", "gt": 2, "description": "never said"}  # "cluster-policy" is no quantity
    report = run(load_policy, [gpu_node("n1"), gpu_node("n2"), CLUSTERPOLICY], [make_rule(id="r", preconditions=[broken])])
    assert [r.result for o in report.objects for r in o.results] == ["error", "error"]
    assert report.not_applied == []


def test_a_var_of_the_dump_read_by_a_leading_precondition_decides_for_the_dump(load_policy: Callable[..., PolicySet]) -> None:
    # a rule var that reads only a context is the same for every object: it may lead; one that reads the node may not
    dump_var = make_rule(
        id="dump-var", vars={"policyName": {"context": "cp"}}, preconditions=[{"var": "policyName", "exists": True}]
    )
    node_var = make_rule(id="node-var", vars={"gpus": GPUS}, preconditions=[{"var": "gpus", "equals": "none"}])
    report = run(load_policy, [gpu_node("n1")], [dump_var, node_var])
    assert [e["rule"] for e in report.not_applied] == ["test-policy/dump-var"]
    assert results_of(report) == {("n1", "node-var"): "skip"}


def test_a_rule_named_on_the_command_line_that_did_not_apply_is_not_said_to_match_nothing(
    load_policy: Callable[..., PolicySet],
) -> None:
    policies = load_policy(make_policy([make_rule(id="cp", preconditions=[NEEDS_CP])], **CP)).select(rules=["test-policy/cp"])
    report = evaluate(Dump(objects=[KObject(gpu_node("n1"), Source("d.yaml", 1, 1))]), policies)
    assert report.notes == ["not applied: no ClusterPolicy in the dump (test-policy/cp: no result for the 1 object it matches)"]


def test_only_the_objects_a_selection_keeps_are_counted(load_policy: Callable[..., PolicySet]) -> None:
    from rules.selection import Selection

    report = run(
        load_policy,
        [gpu_node("a1"), gpu_node("a2"), gpu_node("b1")],
        [make_rule(id="cp", preconditions=[NEEDS_CP])],
        selection=Selection.of(names=["a*"]),
    )
    assert report.not_applied[0]["objects"] == 2


def _pack_test(tmp_path: Any, text: str) -> PackTest:
    path = tmp_path / "t.yaml"
    path.write_text(text)
    [test] = load_test_file(path)
    return test


NODE_YAML = (
    "objects:\n- {apiVersion: v1, kind: Node, metadata: {name: n1, labels: {}}, status: {allocatable: {nvidia.com/gpu: '8'}}}\n"
)


def test_a_pack_test_states_a_rule_not_applied_and_its_reason(load_policy: Callable[..., PolicySet], tmp_path: Any) -> None:
    policies = load_policy(make_policy([make_rule(id="cp", preconditions=[NEEDS_CP]), make_rule(id="plain")], **CP))
    head = "apiVersion: verdict/v1\nkind: Test\nmetadata: {name: t}\n" + NODE_YAML
    ok = _pack_test(tmp_path, head + "notApplied:\n- {rule: cp, reasonContains: no ClusterPolicy}\n")
    assert [(c.case, c.ok) for c in run_test(ok, policies)] == [("cp applies to no object", True)]
    wrong = _pack_test(tmp_path, head + "notApplied:\n- {rule: cp, reasonContains: no KubeVirt}\n- {rule: plain}\n")
    assert [(c.ok, c.actual, c.message) for c in run_test(wrong, policies)] == [
        (False, "not applied", "cp: the reason does not contain 'no KubeVirt': no ClusterPolicy in the dump"),
        (False, "applied", "plain: expected to apply to no object, but it gave 1 result"),
    ]
    # a skip expected of each object says where the rule went
    per_object = _pack_test(tmp_path, head + "results:\n- {rule: cp, kind: Node, name: n1, result: skip}\n")
    [case] = run_test(per_object, policies)
    assert not case.ok and case.message == (
        "cp on Node/n1: expected skip, got no result: the rule applied to no object of the dump: no ClusterPolicy in the"
        " dump (expect it under notApplied)"
    )


def test_a_pack_test_states_the_rule_that_supersedes_one_not_applied(
    load_policy: Callable[..., PolicySet], tmp_path: Any
) -> None:
    """Regression (trial 172): a pack test refused supersededBy as an unknown field, so a test could not hold it."""
    stand_in = {"context": "cp", "exists": False, "supersededBy": "test-policy/cp", "description": "a ClusterPolicy"}
    policies = load_policy(make_policy([make_rule(id="stand-in", preconditions=[stand_in]), make_rule(id="cp")], **CP))
    head = "apiVersion: verdict/v1\nkind: Test\nmetadata: {name: t}\n" + NODE_YAML.replace(
        "objects:\n", "objects:\n- {apiVersion: nvidia.com/v1, kind: ClusterPolicy, metadata: {name: c}}\n"
    )
    ok = _pack_test(tmp_path, head + "notApplied:\n- {rule: stand-in, supersededBy: test-policy/cp}\n")
    assert [(c.case, c.ok) for c in run_test(ok, policies)] == [("stand-in applies to no object", True)]
    wrong = _pack_test(tmp_path, head + "notApplied:\n- {rule: stand-in, supersededBy: ''}\n")
    assert [(c.ok, c.message) for c in run_test(wrong, policies)] == [
        (False, "stand-in: expected supersededBy '', the report says 'test-policy/cp'")
    ]


def test_a_pack_test_lists_results_or_not_applied_rules(tmp_path: Any) -> None:
    from rules.packtest import FixtureError

    try:
        _pack_test(tmp_path, "apiVersion: verdict/v1\nkind: Test\nmetadata: {name: t}\n" + NODE_YAML)
    except FixtureError as exc:
        assert "a test lists results, notApplied or both" in exc.reason
    else:
        raise AssertionError("a test that expects nothing was loaded")


def test_not_applied_notes_stand_between_rules_kept_from_running_and_routine_skips(
    load_policy: Callable[..., PolicySet],
) -> None:
    """Regression (trial 66): in a Node-less or ClusterPolicy-less dump, the note of the rules not applied came
    after every skip note, so a chat summary (three notes) named a precondition most objects do not meet (a node
    without GPUs) before what kept a rule from this dump. It now stands after the reasons that kept rules from
    judging any object and before those that skipped some objects only."""
    nodes = [gpu_node("n1"), node("cpu-1"), gpu_node("n3")]
    gpu_only = {"path": "$.metadata.labels['nvidia.com/gpu.present']", "exists": True, "description": "not a GPU node"}
    never = {"path": "$.metadata.labels['nvidia.com/mig.config']", "exists": True, "description": "no MIG config label"}
    rules = [
        make_rule({"path": GPUS, "gt": 0}, id="routine", preconditions=[gpu_only]),
        make_rule({"path": GPUS, "gt": 0}, id="cp", preconditions=[NEEDS_CP]),
        make_rule({"path": GPUS, "gt": 0}, id="mig", preconditions=[never]),
    ]
    report = run(load_policy, nodes, rules)
    idle = [n for n in report.notes if n.startswith(("not applied:", "skipped"))]
    assert idle == [
        "skipped: no MIG config label (3 results of test-policy/mig; the rule judged no object)",
        "not applied: no ClusterPolicy in the dump (test-policy/cp: no result for the 3 objects it matches)",
        "skipped: not a GPU node (1 result of test-policy/routine)",
    ]
    # with no rule kept from running by a skip, it comes first
    report = run(load_policy, nodes, rules[:2])
    assert [n for n in report.notes if n.startswith(("not applied:", "skipped"))] == [idle[1], idle[2]]
    # and with no skip at all, it is the only one
    report = run(load_policy, [gpu_node("n1")], rules[:2])
    assert [n for n in report.notes if n.startswith(("not applied:", "skipped"))] == [idle[1].replace("3 objects", "1 object")]


def test_a_rule_for_a_dump_that_lacks_what_this_one_holds_is_superseded_without_a_note(
    load_policy: Callable[..., PolicySet],
) -> None:
    """Regression (trial 169): a whole cluster's dump printed five notes like "not applied: the dump holds Nodes, so
    workload-schedulable judges where the workload can land" for the manifests audit's stand-ins of rules that read
    Nodes: no news of the dump. A precondition that names the rule judging instead (supersededBy) makes its rule
    superseded where it does not hold: its notApplied entry names that rule, and no note. Trial 172: any exists: false
    was taken for one, so a rule a ClusterPolicy's setting kept from applying lost its note; a precondition without
    supersededBy keeps its note, whatever it asks."""
    no_cp = {
        "context": "cp",
        "exists": False,
        "supersededBy": "test-policy/cp",
        "description": "the dump holds a ClusterPolicy, so cp judges the node",
    }
    absent = {"context": "cp", "exists": False, "description": "a ClusterPolicy names its own config"}
    rules = [
        make_rule({"path": GPUS, "gt": 0}, id="stand-in", preconditions=[no_cp]),
        make_rule({"path": GPUS, "gt": 0}, id="cp", preconditions=[NEEDS_CP]),
        make_rule({"path": GPUS, "gt": 0}, id="own-config", preconditions=[absent]),
    ]
    report = run(load_policy, [gpu_node("n1"), CLUSTERPOLICY], rules)
    assert report.not_applied == [
        {
            "rule": "test-policy/stand-in",
            "policy": "test-policy",
            "reason": "the dump holds a ClusterPolicy, so cp judges the node",
            "objects": 1,
            "supersededBy": "test-policy/cp",
        },
        {
            "rule": "test-policy/own-config",
            "policy": "test-policy",
            "reason": "a ClusterPolicy names its own config",
            "objects": 1,
            "supersededBy": "",
        },
    ]
    assert [n for n in report.notes if n.startswith("not applied")] == [
        "not applied: a ClusterPolicy names its own config (test-policy/own-config: no result for the 1 object it matches)"
    ]
    assert json.loads(render(report, "json"))["notApplied"][0]["supersededBy"] == "test-policy/cp"
    report = run(load_policy, [gpu_node("n1")], rules)
    assert [(e["rule"], e["supersededBy"]) for e in report.not_applied] == [("test-policy/cp", "")]
    assert [n for n in report.notes if n.startswith("not applied")] == [
        "not applied: no ClusterPolicy in the dump (test-policy/cp: no result for the 1 object it matches)"
    ]
