"""Checks remembered by what they read of the object (rules.inputs): the inputs are found right, objects that
agree on them share one outcome, and every report is the one evaluating each check for each object gives."""

from __future__ import annotations

import dataclasses
import glob
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import make_policy, make_rule

from rules import inputs, joins
from rules.engine import audit_paths
from rules.errors import Source
from rules.evaluate import evaluate
from rules.inputs import reads_of
from rules.loader import PolicySet, load_policies, load_policy_text
from rules.reader import Dump, KObject

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from make_cluster import objects, parse_size  # noqa: E402

CONTEXTS = {
    "nodeNames": {"kind": "Node", "path": "$.metadata.name"},
    "podsHere": {"kind": "Pod", "path": "$.metadata.name", "where": {"field": "$.spec.nodeName", "equals": {"var": "host"}}},
}
VARS = {"host": "$.spec.nodeName", "gpus": "$.spec.containers[*].resources.limits['nvidia.com/gpu']", "podSpec": "$.spec"}


def policy(assertion: dict[str, Any], preconditions: list[dict[str, Any]] | None = None, **rule: Any) -> PolicySet:
    doc = make_policy(
        [make_rule(assertion, match={"kinds": ["Pod"]}, preconditions=preconditions or [], **rule)],
        context=CONTEXTS,
        vars=VARS,
    )
    return PolicySet(load_policy_text(yaml.safe_dump(doc, sort_keys=False), "inline.yaml"))


def reads(assertion: dict[str, Any]) -> Any:
    ps = policy(assertion)
    (p,) = ps.policies
    (r,) = p.rules
    return reads_of(r.assertion, r, p)


def test_the_inputs_of_a_check_are_what_it_reads_of_the_object() -> None:
    found = reads({"path": "$.spec.containers[*].image", "startsWith": {"var": "host"}})
    assert ([p.text for p in found.paths], found.builtins, found.vars, found.dump) == (
        ["$.spec.containers[*].image"],
        (),
        ("host",),
        False,
    )
    # below a forEach, $ is the item: only the forEach's own subject is read on the object; a message's
    # {name} is the object's built-in
    found = reads(
        {"forEach": {"path": "$.spec.containers[*]", "as": "c", "assert": {"path": "$.image", "matches": {"format": "{name}"}}}}
    )
    assert ([p.text for p in found.paths], found.builtins, found.vars) == (["$.spec.containers[*]"], ("name",), ())
    # a correlated context reads the dump and what its where.equals reads
    found = reads({"context": "podsHere", "count": {"lte": 110}})
    assert (found.paths, found.vars, found.dump) == ((), ("host",), True)
    assert reads({"context": "nodeNames", "exists": True}).dump is True


def test_a_var_read_at_a_literal_key_is_an_input_by_the_value_there() -> None:
    """{var: podSpec, key: tolerations} reads a Pod's tolerations, not its whole spec (whose nodeName is its own):
    pods that agree on their tolerations share the outcome wherever they run."""
    found = reads({"var": "podSpec", "key": "tolerations", "exists": True})
    assert (found.vars, found.keyed) == ((), (("podSpec", ("tolerations",)),))
    found = reads({"var": "podSpec", "key": ["containers", 0, "image"], "exists": True})
    assert found.keyed == (("podSpec", ("containers", 0, "image")),)
    # a key that reads anything keeps the whole var (and what the key reads) as inputs
    found = reads({"var": "podSpec", "key": ["containers", {"var": "host"}], "exists": True})
    assert (found.vars, found.keyed) == (("host", "podSpec"), ())


def test_pods_on_different_nodes_that_agree_at_the_key_share_one_result() -> None:
    pods = _pods(60, 3)
    for i, pod in enumerate(pods):
        pod["spec"]["nodeName"] = f"node-{i}"
    ps = policy({"var": "podSpec", "key": ["containers", 0, "resources", "limits", "nvidia.com/gpu"], "in": ["1", "2"]})
    dump = Dump(objects=[KObject(o, Source("d.json", 1, 1, i)) for i, o in enumerate(pods)])
    results = [o.results[0] for o in evaluate(dump, ps).objects]
    assert [r.result for r in results[:3]] == ["pass", "pass", "fail"]
    # the 40 passes are one result per template (keyed by the whole spec they were 40); a failure's message names
    # its pod
    assert len({id(r) for r in results if r.result == "pass"}) == 2
    _same(pods, ps)


def test_what_cannot_be_remembered() -> None:
    assert reads({"schedulable": {}}) is None  # the operator reads the whole object (it has its own cache)
    assert reads({"path": "$", "exists": True}) is None  # the whole object: nothing to share


def _pods(n: int, templates: int) -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        gpus = str(1 + i % templates)
        out.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": f"p{i}", "namespace": "ml"},
                "spec": {"containers": [{"name": "c", "image": "cuda", "resources": {"limits": {"nvidia.com/gpu": gpus}}}]},
            }
        )
    return out


def _report(policies: PolicySet, items: list[dict[str, Any]]) -> dict[str, Any]:
    dump = Dump(objects=[KObject(o, Source("d.json", 1, 1, i)) for i, o in enumerate(items)])
    out = evaluate(dump, policies, name="d").to_dict()
    out.pop("timing")
    out.pop("generated")
    return out


def test_pods_of_one_template_are_judged_once_and_each_gets_its_own_message() -> None:
    calls = []

    def counting(v: Any, a: Any) -> bool:
        calls.append(v)
        return str(v) in ("1", "2")

    from rules import operators

    with pytest.MonkeyPatch.context() as mp:
        mp.setitem(operators.OPERATORS, "in", dataclasses.replace(operators.OPERATORS["in"], test=counting, lookup=None))
        ps = policy({"var": "gpus", "in": ["1", "2"]}, message="{name} asks {observed}")
        report = _report(ps, _pods(60, 3))
    assert len(calls) == 3  # three templates, sixty pods
    results = [o["results"][0] for o in report["objects"]]
    assert [r["result"] for r in results[:3]] == ["pass", "pass", "fail"]
    assert results[2]["message"] == "p2 asks 3" and results[5]["message"] == "p5 asks 3"


def _same(items: list[dict[str, Any]] | str, policies: PolicySet) -> None:
    """Every field of every result (not only the report form), the notes and the summary."""

    def report() -> Any:
        if isinstance(items, str):
            r = audit_paths([items], policies, name="d", jobs=1)
        else:
            r = evaluate(Dump(objects=[KObject(o, Source("d.json", 1, 1, i)) for i, o in enumerate(items)]), policies)
        return r.notes, r.summary(), [(o.ref, o.source, o.results) for o in r.objects]

    remembered = report()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(inputs, "REMEMBER", False)
        mp.setattr(joins, "REMEMBER", False)
        mp.setattr(joins, "INDEX_FROM", 10**9)
        plain = report()
    assert remembered == plain


@pytest.mark.parametrize(
    "dump",
    [str(ROOT / "examples" / "lab-cluster.yaml"), *sorted(glob.glob(str(ROOT / "policies/gpu-operator/tests/dumps/*")))],
    ids=lambda p: Path(p).name,
)
def test_the_pack_gives_the_same_reports_with_and_without_remembering(dump: str) -> None:
    _same(dump, load_policies())


def test_a_generated_cluster_gives_the_same_report_with_and_without_remembering() -> None:
    """Every kind the pack judges, a share broken, pods of templates and DaemonSets (bench/make_cluster.py)."""
    _same(list(objects(parse_size("40:300:24"), seed=3)), load_policies())


def test_objects_that_share_an_outcome_and_a_message_share_the_result() -> None:
    """A pass (or a skip) of sixty pods of three templates is three Result objects: one in memory, one in each
    shard a worker process sends back; a message naming the object keeps its results apart."""
    ps = policy({"var": "gpus", "in": ["1", "2", "3"]})
    dump = Dump(objects=[KObject(o, Source("d.json", 1, 1, i)) for i, o in enumerate(_pods(60, 3))])
    results = [o.results[0] for o in evaluate(dump, ps).objects]
    assert len({id(r) for r in results}) == 3 and {r.result for r in results} == {"pass"}
    named = policy({"var": "gpus", "in": ["1"]}, message="{name} asks {observed}")
    results = [o.results[0] for o in evaluate(dump, named).objects]
    assert len({id(r) for r in results if r.result == "fail"}) == 40


@pytest.mark.parametrize(
    ("assertion", "kinds"),
    [
        ({"path": "$.metadata.labels", "exists": True}, set()),
        ({"var": "own", "equals": "n1"}, set()),  # a var of the object
        ({"data": "table", "key": {"var": "own"}, "exists": True}, set()),
        ({"context": "pods", "exists": True}, {"Pod"}),
        ({"var": "viaContext", "exists": True}, {"Pod"}),  # a var that reads a context
        ({"var": "viaVar", "exists": True}, {"Pod"}),  # a var that reads such a var
        ({"format": "{viaVar}-x", "equals": "y"}, {"Pod"}),
        ({"schedulable": {}}, {"*"}),  # the Nodes and the pods bound to them, through the model
        ({"path": "$.metadata.name", "in": {"context": "pods"}}, {"Pod"}),
        ({"all": [{"context": "pods", "exists": True}, {"context": "quotas", "exists": True}]}, {"Pod", "ResourceQuota"}),
        ({"forEach": {"path": "$.spec.taints", "as": "t", "assert": {"var": "t", "exists": True}}}, set()),
    ],
)
def test_a_rule_reads_other_objects_through_contexts_vars_and_object_operators(load_policy, assertion, kinds) -> None:
    from rules.compiled import reads_other_objects

    policy = make_policy(
        [make_rule(assertion, vars={"viaVar": {"var": "viaContext"}})],
        context={"pods": {"kind": "Pod", "path": "$.spec.nodeName"}, "quotas": {"kind": "ResourceQuota"}},
        data={"table": {"n1": 1}},
        vars={"own": {"path": "$.metadata.name"}, "viaContext": {"context": "pods"}},
    )
    loaded = load_policy(policy).policies[0]
    assert reads_other_objects(loaded.rules[0], loaded) == kinds


def test_a_where_that_reads_only_its_item_is_decided_once_per_distinct_item() -> None:
    """Trial 155: workload-label-key-spelled ran its where (similarTo, matches) on every label key of every GPU node:
    285,000 items on 3,000 nodes of 95 labels, 29 s, for a few hundred distinct keys. A where that reads nothing but
    its item, literals and data is decided once per distinct scalar item; one that reads another var is not."""
    from rules.compiled import _kept, _reads_only_its_item
    from rules.model import compile_assertion

    pure = compile_assertion({"var": "item", "similarTo": "nvidia.com/gpu.workload.config"}, [])
    data = compile_assertion({"var": "item", "notIn": {"data": "workloadLabelLookalikes"}}, [])
    reads_var = compile_assertion({"var": "labels", "key": {"var": "item"}, "equals": "true"}, [])
    reads_context = compile_assertion({"var": "item", "in": {"context": "clusterPolicies"}}, [])
    assert [_reads_only_its_item(a) for a in (pure, data, reads_var, reads_context)] == [True, True, False, False]

    calls: list[Any] = []

    class Passed:
        state = "pass"

    class Failed:
        state = "fail"

    class FakeScope:
        def child(self, value: Any, bindings: dict[str, Any]) -> Any:
            return value

    def condition(item: Any) -> Any:
        calls.append(item)
        return Passed() if str(item).startswith("nvidia") else Failed()

    keys = ["nvidia.com/gpu.present", "kubernetes.io/hostname", "nvidia.com/gpu.workload.confg"]
    for pure_flag, expected_calls in ((True, 3), (False, 300)):
        calls.clear()
        keep = _kept(condition, pure_flag)
        for _ in range(100):  # a hundred nodes with the same label keys
            assert keep(keys, FakeScope()) == ["nvidia.com/gpu.present", "nvidia.com/gpu.workload.confg"]
        assert len(calls) == expected_calls
    # 1 and True stay apart
    calls.clear()
    keep = _kept(lambda item: Passed() if item is True else Failed(), True)
    assert keep([True, 1, True, 1], FakeScope()) == [True, True]
