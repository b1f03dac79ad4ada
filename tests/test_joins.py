"""Cross-object reads cost the same per object whatever the dump's size (issue 11), and give what testing
value by value gives.

The work of an evaluation is counted, not timed: calls of the operators' tests, of their comparison keys
(``rules.operators._key``/``_fold``) and of compiled paths. The same policy runs on a dump and on one with
four times the nodes; the work added per added node must not grow with the number of objects that read
the nodes through a context (a scan per object would add one unit per node and per object).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
import yaml
from conftest import doc_operator_examples, make_policy, make_rule
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import inputs, joins, operators
from rules.compiled import prepare
from rules.errors import PolicyError, Source
from rules.evaluate import evaluate
from rules.index import Index
from rules.jsonpath import JsonPath
from rules.loader import PolicySet, load_policy_text
from rules.reader import Dump, KObject

CONTEXTS = {
    "names": {"kind": "Node", "keys": "$.status.allocatable"},
    "cpus": {"kind": "Node", "path": "$.status.allocatable.cpu"},
    "versions": {"kind": "Node", "path": "$.status.nodeInfo.kubeletVersion"},
    "nodeNames": {"kind": "Node", "path": "$.metadata.name"},
    "podsHere": {"kind": "Pod", "path": "$.metadata.name", "where": {"field": "$.spec.nodeName", "equals": {"var": "name"}}},
    "podsOfNode": {"kind": "Pod", "path": "$.metadata.name", "where": {"field": "$.spec.nodeName", "equals": {"var": "host"}}},
    "neighbours": {"kind": "Pod", "path": "$.metadata.name", "sameNamespace": True},
}
VARS = {"want": "$.spec.want", "wants": {"path": "$.spec.wants[*]", "all": True}, "host": "$.spec.host"}
RESOURCES = ["nvidia.com/gpu", "nvidia.com/GA102GL_A10", "nvidia.com/NVIDIA_A10-12Q", "cpu", "memory", "pods"]

# A suitable constant argument of each operator against a context of suitable values (every operator of the
# table is covered: one registered later is tried with its docs/policy-format.md example's argument).
CONSTANT_ARGS: dict[str, tuple[str, Any]] = {
    "exists": ("names", True),
    "count": ("names", {"gt": 0}),
    "equals": ("names", "nvidia.com/gpu"),
    "notEquals": ("names", "nvidia.com/gpu"),
    "in": ("names", ["nvidia.com/gpu", "cpu"]),
    "notIn": ("names", ["nvidia.com/gpu", "cpu"]),
    "equalsIgnoreCase": ("names", "NVIDIA.com/GPU"),
    "inIgnoreCase": ("names", ["NVIDIA.COM/GPU", "CPU"]),
    "matches": ("names", r"^nvidia\.com/[A-Z]"),
    "notMatches": ("names", r"^nvidia\.com/[A-Z]"),
    "startsWith": ("names", "nvidia.com/"),
    "endsWith": ("names", "gpu"),
    "contains": ("names", "A10"),
    "gt": ("cpus", "1"),
    "gte": ("cpus", "1"),
    "lt": ("cpus", "1000"),
    "lte": ("cpus", "1000"),
    "multipleOf": ("cpus", "500m"),
    "integer": ("cpus", True),
    "versionLt": ("versions", "v9.0.0"),
    "subsetOf": ("names", RESOURCES),
    "supersetOf": ("names", ["cpu"]),
    "disjointFrom": ("names", ["nvidia.com/mig-1g.10gb"]),
    "intersects": ("names", ["nvidia.com/gpu"]),
    "setEquals": ("names", RESOURCES),
}


def cluster(nodes: int, vms: int, pods_per_node: int = 2) -> list[dict[str, Any]]:
    """``nodes`` Nodes (a few resources each, one in two also in another case), their Pods, ``vms`` VMIs."""
    out: list[dict[str, Any]] = []
    for i in range(nodes):
        resource = RESOURCES[i % 3]
        alloc = {"cpu": str(8 + i % 5), "memory": "64Gi", "pods": "110", resource: "2"}
        if i % 2:
            alloc[resource.upper()] = "1"
        out.append(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": f"node-{i}"},
                "status": {"allocatable": alloc, "nodeInfo": {"kubeletVersion": f"v1.{28 + i % 3}.{i % 7}"}},
            }
        )
    for i in range(nodes * pods_per_node):
        out.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": f"pod-{i}", "namespace": f"ns-{i % 4}"},
                "spec": {"nodeName": f"node-{i % nodes}"},
            }
        )
    for i in range(vms):
        want = RESOURCES[i % len(RESOURCES)]
        out.append(
            {
                "apiVersion": "kubevirt.io/v1",
                "kind": "VirtualMachineInstance",
                "metadata": {"name": f"vm-{i}", "namespace": f"ns-{i % 4}"},
                "spec": {
                    "want": want.lower() if i % 3 == 0 else want,
                    "wants": [want, RESOURCES[(i + 1) % len(RESOURCES)]],
                    "host": f"node-{i % max(nodes, 1)}",
                },
            }
        )
    return out


TABLE = [{"name": r, "prefix": r[:8]} for r in RESOURCES]


def policy_of(assertion: dict[str, Any], kinds: tuple[str, ...] = ("VirtualMachineInstance",)) -> PolicySet:
    rule = make_rule(assertion, match={"kinds": list(kinds)}, message="{name}: {observed} / {expected}")
    doc = make_policy([rule], context=CONTEXTS, vars=VARS, data={"table": TABLE})
    return PolicySet(load_policy_text(yaml.safe_dump(doc, sort_keys=False), "inline.yaml"))


def run(policies: PolicySet, objects: list[dict[str, Any]]) -> dict[str, Any]:
    dump = Dump(objects=[KObject(o, Source("dump.json", 1, 1, i)) for i, o in enumerate(objects)])
    report = evaluate(dump, policies, name="dump").to_dict()
    for key in ("generated", "timing"):
        report.pop(key)
    return report


@contextmanager
def counted() -> Iterator[list[int]]:
    """Count operator tests, comparison keys and path evaluations while the block runs."""
    calls = [0]

    def counting(fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(*args: Any) -> Any:
            calls[0] += 1
            return fn(*args)

        return wrapped

    with pytest.MonkeyPatch.context() as mp:
        # what each object costs on its own: no check outcome shared between objects (rules.inputs)
        mp.setattr(inputs, "REMEMBER", False)
        for name, op in list(operators.OPERATORS.items()):
            mp.setitem(operators.OPERATORS, name, dataclasses.replace(op, test=counting(op.test)))
        mp.setattr(operators, "_key", counting(operators._key))
        mp.setattr(operators, "_fold", counting(operators._fold))
        mp.setattr(JsonPath, "values", counting(JsonPath.values))
        yield calls


#: A node holds about five values (its resource names, its cpu...): reading them once, to build what a context
#: needs, adds a few units a node; reading them for each of the 20 VMIs would add about a hundred.
ONCE = 10


def _fresh_memos() -> None:
    """Empty the engine's identity memos: one that filled up in earlier tests purges itself in the middle of a
    measurement, and the structures it drops are built again (the full suite measured 11.5 where 10 was the bound)."""
    from rules import durations, memo, workloads

    for module in (joins, operators, workloads, durations):
        for value in vars(module).values():
            if isinstance(value, memo.IdentityMemo):
                value.clear()


def added_work(assertion: dict[str, Any], vms: int = 20, kinds: tuple[str, ...] = ("VirtualMachineInstance",)) -> float:
    """The work added per added node when the nodes go from 30 to 120, with ``vms`` VMIs reading them."""
    work = []
    for nodes in (30, 120):
        objects = cluster(nodes, vms)
        _fresh_memos()
        with counted() as calls:
            run(policy_of(assertion, kinds), objects)  # compiled under the counting operators
        work.append(calls[0])
    return (work[1] - work[0]) / 90


def test_a_scan_per_object_is_seen() -> None:
    """The yardstick: a where that no structure can answer and no object can share with another (a regex
    built from each VM's own name) tests every node's names for every VM: about one unit per node and VM."""
    scan = {"context": "names", "where": {"var": "item", "matches": {"format": "^{name}$"}}, "exists": True}
    assert added_work(scan) > 8 * ONCE


@pytest.mark.parametrize("name", sorted(n for n, op in operators.OPERATORS.items() if op.scope != "object"))
def test_every_operator_on_a_context_costs_the_same_per_object(name: str) -> None:
    """A context as the subject, with a constant argument: the list is tested once per distinct argument
    (hash-answered operators: not even once), never once per object."""
    context, arg = CONSTANT_ARGS.get(name, ("names", doc_operator_examples().get(name, {}).get(name)))
    assertion = {"context": context, name: arg}
    if operators.OPERATORS[name].scope == "value":
        assertion["quantifier"] = "any"
    assert added_work(assertion) < ONCE, assertion


@pytest.mark.parametrize("name", sorted(n for n, op in operators.OPERATORS.items() if op.lookup is not None))
@pytest.mark.parametrize("quantifier", ["all", "any", "none"])
def test_hash_answered_operators_take_an_argument_per_object(name: str, quantifier: str) -> None:
    """``in``, ``equals``... over a context with each object's own argument: dictionary hits."""
    many = operators.OPERATORS[name].lookup.many  # type: ignore[union-attr]
    arg = {"var": "wants" if many else "want"}
    assert added_work({"context": "names", "quantifier": quantifier, name: arg}) < ONCE


@pytest.mark.parametrize(
    "name", sorted(n for n, op in operators.OPERATORS.items() if op.lookup is not None and not op.lookup.negate)
)
def test_a_where_on_a_context_is_answered_from_an_index(name: str) -> None:
    """``where: {all: [{var: item, <op>: <per-object>}, ...]}`` over a context: only the values whose key
    matches are checked (kubevirt-vms/device-advertised's shape)."""
    many = operators.OPERATORS[name].lookup.many  # type: ignore[union-attr]
    arg = {"var": "wants" if many else "want"}
    where = {"all": [{"var": "item", name: arg}, {"var": "item", "notEquals": {"var": "want"}}]}
    assert added_work({"not": {"context": "names", "where": where, "exists": True}}) < ONCE


@pytest.mark.parametrize(
    "name",
    ["in", "notIn", "inIgnoreCase", "equals", "notEquals", "subsetOf", "supersetOf", "disjointFrom", "intersects", "setEquals"],
)
def test_membership_in_a_context_is_a_hash_lookup(name: str) -> None:
    """Each object's own values against a context as the argument: the context's keys are built once."""
    scope = operators.OPERATORS[name].scope
    subject = {"var": "wants"} if scope == "set" else {"var": "want"}
    assert added_work({**subject, name: {"context": "names"}}) < ONCE


def test_correlated_contexts_are_index_hits() -> None:
    """``where: {field, equals}`` joins through the index's table of the field; ``sameNamespace`` through a
    table of the kind by namespace: neither reads the other objects per object."""
    assert added_work({"context": "podsOfNode", "count": {"gte": 0}}) < ONCE
    assert added_work({"context": "neighbours", "count": {"gte": 0}}) < ONCE
    # Pods per node stay 2: the nodes' own rule reads its two pods, whatever the number of nodes.
    assert added_work({"context": "podsHere", "count": 2}, kinds=("Node",)) < ONCE


# ------------------------------------------------------------------------------------------ same answers

_name = st.sampled_from(["nvidia.com/gpu", "NVIDIA.com/GPU", "nvidia.com/GA102GL_A10", "nvidia.com/ga102gl_a10", "cpu", "CPU"])
_names = st.lists(st.lists(_name, min_size=0, max_size=3, unique=True), min_size=25, max_size=40)
FORMS = [
    {
        "context": "names",
        "where": {"all": [{"var": "item", "equalsIgnoreCase": {"var": "want"}}, {"var": "item", "notEquals": {"var": "want"}}]},
        "exists": True,
    },  # noqa: E501
    {"context": "names", "where": {"var": "item", "inIgnoreCase": {"var": "wants"}}, "count": {"gte": 2}},
    {"context": "names", "where": {"var": "item", "in": {"var": "wants"}, "ifMissing": "pass"}, "count": {"lte": 3}},
    {"context": "names", "quantifier": "any", "equals": {"var": "want"}},
    {"context": "names", "quantifier": "all", "notEquals": {"var": "want"}},
    {"context": "names", "quantifier": "none", "inIgnoreCase": {"var": "wants"}},
    {"context": "names", "quantifier": "any", "startsWith": "nvidia.com/G"},
    {"var": "want", "in": {"context": "names"}},
    {"var": "wants", "subsetOf": {"context": "names"}},
    # a where over a data table reading names around the item: remembered per value of want
    {
        "data": "table",
        "where": {"any": [{"path": "$.name", "equals": {"var": "want"}}, {"var": "want", "startsWith": {"path": "$.prefix"}}]},
        "count": {"gte": 1},
    },  # noqa: E501
    {"var": "wants", "where": {"var": "item", "notIn": {"context": "names"}}, "exists": False},
]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(names=_names, wants=st.lists(st.lists(_name, min_size=1, max_size=2), min_size=1, max_size=6))
def test_structures_answer_what_testing_each_value_answers(names: list[list[str]], wants: list[list[str]]) -> None:
    """Every form, on random names in random cases, gives the same report with the structures and remembered
    results as with a test per value and object (``INDEX_FROM`` past any list, ``REMEMBER`` off)."""
    objects: list[dict[str, Any]] = [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}"}, "status": {"allocatable": dict.fromkeys(ns, "1")}}
        for i, ns in enumerate(names)
    ]
    objects += [
        {"apiVersion": "v1", "kind": "VirtualMachineInstance", "metadata": {"name": f"vm{i}"}, "spec": {"want": w[0], "wants": w}}
        for i, w in enumerate(wants)
    ]
    for policies, form in zip(_form_policies(), FORMS, strict=True):
        indexed = run(policies, objects)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(joins, "INDEX_FROM", 10**9)
            mp.setattr(joins, "REMEMBER", False)
            mp.setattr(inputs, "REMEMBER", False)
            scanned = run(policies, objects)  # a new dump: nothing built for the first run is reused
        assert indexed == scanned, form


@functools.cache
def _form_policies() -> list[PolicySet]:
    return [policy_of(form) for form in FORMS]


def test_a_where_over_a_table_is_computed_once_per_value_it_reads() -> None:
    """operand-pod-matches-node-workload's shape: a where over a data table that reads a var of the object
    (``{var: want}``): objects that agree on the var get the remembered list."""
    form = FORMS[-2]
    objects = cluster(30, 60)  # 60 VMIs, 6 distinct wants
    work = {}
    for remember in (True, False):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(joins, "REMEMBER", remember)
            mp.setattr(inputs, "REMEMBER", False)  # the where alone, not whole checks remembered by their inputs
            with counted() as calls:
                run(policy_of(form), objects)
            work[remember] = calls[0]
    assert work[True] * 3 < work[False]


# ------------------------------------------------------------------------------------------ per item


def _nodes_with_labels(n: int) -> list[dict[str, Any]]:
    labels = {f"example.com/label-{k}": "x" for k in range(12)}
    return [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"n{i}", "labels": {**labels, "nvidia.com/gpu.count": "2"}}}
        for i in range(n)
    ]


def test_a_check_of_the_item_alone_is_remembered_per_item_value() -> None:
    """In a forEach body, a check that reads only the item and constants ({var: label, matches: <literal>})
    is computed once per distinct label, not once per label of every node; one that reads the object too
    is computed for each."""
    item_only = {"forEach": {"keys": "$.metadata.labels", "as": "label", "assert": {"var": "label", "notMatches": "^bad/"}}}
    per_object = {
        "forEach": {
            "keys": "$.metadata.labels",
            "as": "label",
            "assert": {"var": "name", "notMatches": {"format": "^{label}$"}},
        }
    }
    work = {}
    for name, assertion in (("item", item_only), ("object", per_object)):
        with counted() as calls:
            report = run(policy_of(assertion, kinds=("Node",)), _nodes_with_labels(40))
        assert report["summary"]["results"]["pass"] == 40, name
        work[name] = calls[0]
    assert work["item"] < 100 < 40 * 13 < work["object"]


def test_the_cheap_alternative_decides_first_where_a_pass_is_thrown_away() -> None:
    """forEach (all) over labels: any[<reads the object>, <the label alone>]. The label-only alternative
    decides most labels; the outcome of a failing item is the one the alternatives give in their order."""
    body = {
        "any": [
            {"var": "labels", "key": {"var": "label"}, "equals": "never", "message": "{label} is not never"},
            {"var": "label", "notMatches": "^nvidia[.]com/"},
        ]
    }
    assertion = {"forEach": {"keys": "$.metadata.labels", "as": "label", "assert": body}}
    rule = make_rule(assertion, match={"kinds": ["Node"]}, message="{name}: {observed} / {expected}")
    doc = make_policy([rule], vars={"labels": "$.metadata.labels"})
    policies = PolicySet(load_policy_text(yaml.safe_dump(doc, sort_keys=False), "inline.yaml"))
    with counted() as calls:
        report = run(policies, _nodes_with_labels(40))
    results = [r for o in report["objects"] for r in o["results"]]
    assert {r["result"] for r in results} == {"fail"}
    assert results[0]["message"] == "nvidia.com/gpu.count is not never"
    assert results[0]["path"] == "keys of $.metadata.labels[12] var labels[var label]"
    assert results[0]["expected"] == "== never or var label: does not match ^nvidia[.]com/"
    assert calls[0] < 40 * 13 * 2  # the object-reading alternative ran for the nvidia label only


def test_prepare_builds_the_contexts_read_through_a_sum_or_a_references_where(load_policy: Callable[..., PolicySet]) -> None:
    """Before a dump is shared out to worker processes, ``prepare`` builds every context a rule reads, also
    one read only as a ``sum`` operand or in a reference's ``where``: each worker would otherwise build it."""
    contexts = {
        "firstCpu": {"kind": "Node", "path": "$.status.allocatable.cpu", "first": True},
        "nodeNames": {"kind": "Node", "path": "$.metadata.name"},
    }
    known = {"path": "$.spec.wants[*]", "all": True, "where": {"var": "item", "in": {"context": "nodeNames"}}}
    assertion = {"all": [{"value": 1, "lte": {"sum": [{"context": "firstCpu"}, 1]}}, {"var": "known", "exists": True}]}
    rule = make_rule(assertion, match={"kinds": ["VirtualMachineInstance"]})
    policies = load_policy(make_policy([rule], context=contexts, vars={"known": known}))
    index = Index([KObject(o, Source("dump.json", 1, 1, i)) for i, o in enumerate(cluster(3, 2))])
    built: list[str] = []
    real = joins._values

    def counting(ctx: Any, *args: Any) -> Any:
        built.append(ctx.name)
        return real(ctx, *args)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(joins, "_values", counting)
        prepare(index, policies)
    assert sorted(built) == ["firstCpu", "nodeNames"]


def test_a_var_that_reads_only_the_dump_is_computed_once_per_dump() -> None:
    """Trial 42's fix (the operator's namespace from the dump's operand pods, where no ClusterPolicy says it) put a
    var filtering every Pod behind each GPU node's remediation: a scan of the Pods per object, 1.4-1.8x the whole
    audit of the 1k bench dump without its ClusterPolicy. A var that reads only literals, data, uncorrelated
    contexts and other such vars is the same for every object: it is computed once per dump."""
    from rules.compiled import dump_constant_vars, plan_of

    extra = {
        # filters every node's resource names with a where: a scan, unless kept per dump
        "gpuNames": {"context": "names", "where": {"var": "item", "matches": r"^nvidia\.com/[A-Z]"}},
        "firstGpuName": {"firstOf": [{"var": "gpuNames", "key": 0}, {"value": "<none>"}]},
        "mine": {"firstOf": [{"var": "want", "when": {"var": "gpuNames", "exists": True}}, {"value": "x"}]},
        "here": {"context": "podsHere"},
    }

    def policy() -> PolicySet:
        rule = make_rule({"var": "firstGpuName", "startsWith": "nvidia.com/"}, match={"kinds": ["VirtualMachineInstance"]})
        doc = make_policy([rule], context=CONTEXTS, vars={**VARS, **extra}, data={"table": TABLE})
        return PolicySet(load_policy_text(yaml.safe_dump(doc, sort_keys=False), "inline.yaml"))

    (pol,) = policy().policies
    # what reads the object (a path, a var of the object, a context joined on it) is not constant
    assert dump_constant_vars(pol, pol.vars) == {"gpuNames", "firstGpuName"}
    assert plan_of(pol).constant_vars == {"gpuNames", "firstGpuName"}
    work = []
    for nodes in (30, 120):
        with counted() as calls:
            report = run(policy(), cluster(nodes, 20))
        work.append(calls[0])
        assert report["summary"]["results"]["pass"] == 20
    assert (work[1] - work[0]) / 90 < ONCE


def test_a_where_with_capture_joins_on_the_group_of_its_match(load_policy: Callable[..., PolicySet]) -> None:
    """A Deployment's pods by their ReplicaSet owner's name less its pod-template-hash: kubectl get deploy,pods
    holds no ReplicaSet to join through. A string the expression does not match joins nothing."""
    owned = "^(.+)-[4-9bcdf]{1,10}$"
    context = {
        "myPods": {
            "kind": "Pod",
            "path": "$.metadata.name",
            "where": {"field": "$.metadata.ownerReferences[*].name", "capture": owned, "equals": {"var": "name"}},
        }
    }
    rule = make_rule(
        {"context": "myPods", "count": {"gte": 1}},
        match={"kinds": ["Deployment"]},
        message="{name}: {myPods}",
        passMessage="{name}: {myPods}",
    )
    policies = load_policy(make_policy([rule], context=context))

    def pod(name: str, owner: str) -> dict[str, Any]:
        return {
            "kind": "Pod",
            "apiVersion": "v1",
            "metadata": {"name": name, "ownerReferences": [{"kind": "ReplicaSet", "name": owner}]},
        }

    objects = [{"kind": "Deployment", "apiVersion": "apps/v1", "metadata": {"name": n}} for n in ("web", "web-canary", "api")] + [
        pod("web-7c6d7bd86b-x1", "web-7c6d7bd86b"),
        pod("web-5b8c-x2", "web-5b8c"),
        pod("c-1", "web-canary"),
        pod("a-1", "api-v2"),
    ]
    dump = Dump(objects=[KObject(o, Source("d.yaml", i + 1, 1)) for i, o in enumerate(objects)])
    said = {o.ref.name: (o.results[0].result, o.results[0].message) for o in evaluate(dump, policies).objects}
    # web-canary is no hash ("a" is not in the alphabet): its pod joins neither web nor web-canary; api-v2 neither
    assert said == {
        "web": ("pass", "web: [web-7c6d7bd86b-x1, web-5b8c-x2]"),
        "web-canary": ("fail", "web-canary: []"),
        "api": ("fail", "api: []"),
    }


def test_a_where_capture_without_one_group_is_refused_at_load(load_policy: Callable[..., PolicySet]) -> None:
    context = {"p": {"kind": "Pod", "where": {"field": "$.metadata.name", "capture": "^.+-[a-z]+$", "equals": {"var": "name"}}}}
    with pytest.raises(
        PolicyError, match=r"spec\.context\.p\.where\.capture: capture '\^\.\+-\[a-z\]\+\$' needs exactly one group"
    ):
        load_policy(make_policy([make_rule({"context": "p", "exists": True})], context=context))


def test_prefer_reads_the_preferred_objects_of_the_kind_where_there_is_one(load_policy: Callable[..., PolicySet]) -> None:
    """Trial 141: the pack read a dump's first ClusterPolicy though the GPU Operator reconciles one and sets the others'
    status.state to ignored. ``prefer`` reads only the objects it prefers where the kind has one (before ``where``:
    a ``where`` that keeps none of them gives nothing, not an ignored one), else all of them."""
    prefer = {"field": "$.status.state", "notEquals": "ignored"}
    context = {
        "reconciled": {"kind": "ClusterPolicy", "path": "$.metadata.name", "first": True, "prefer": prefer},
        "sandboxOn": {
            "kind": "ClusterPolicy",
            "path": "$.metadata.name",
            "where": {"field": "$.spec.sandbox", "equals": True},
            "prefer": prefer,
        },
        "every": {"kind": "ClusterPolicy", "path": "$.metadata.name"},
    }
    said_ = "{reconciled} {sandboxOn} {every}"
    rule = make_rule({"context": "every", "exists": True}, match={"kinds": ["Node"]}, passMessage=said_)
    policies = load_policy(make_policy([rule], context=context))

    def said(*policies_: tuple[str, str | None, bool]) -> str:
        objects: list[dict[str, Any]] = [
            {"kind": "ClusterPolicy", "apiVersion": "nvidia.com/v1", "metadata": {"name": n}, "spec": {"sandbox": on}}
            | ({"status": {"state": state}} if state else {})
            for n, state, on in policies_
        ]
        objects.append({"kind": "Node", "apiVersion": "v1", "metadata": {"name": "n1"}})
        dump = Dump(objects=[KObject(o, Source("d.yaml", i + 1, 1)) for i, o in enumerate(objects)])
        [node] = [o for o in evaluate(dump, policies).objects if o.ref.kind == "Node"]
        return node.results[0].message

    assert said(("a-old", "ignored", True), ("cp", "ready", False)) == "cp [] [a-old, cp]"
    assert said(("a-old", "ignored", True), ("cp", None, True)) == "cp [cp] [a-old, cp]"  # no status: not ignored
    assert said(("a-old", "ignored", True), ("b-old", "ignored", False)) == "a-old [a-old] [a-old, b-old]"
    assert said(("a", "ignored", True)) == "a [a] [a]"


def test_prefer_takes_a_field_and_a_literal(load_policy: Callable[..., PolicySet]) -> None:
    for prefer, where in (
        ({"field": "$.status.state"}, "prefer"),
        ({"field": "$.status.state", "notEquals": {"var": "name"}}, "prefer.notEquals"),
        ({"field": "$.status[", "equals": "x"}, "prefer.field"),
    ):
        context = {"p": {"kind": "ClusterPolicy", "prefer": prefer}}
        with pytest.raises(PolicyError, match=rf"spec\.context\.p\.{where.replace('.', '[.]')}: "):
            load_policy(make_policy([make_rule({"context": "p", "exists": True})], context=context))


def _node(name: str, allocatable: dict[str, Any]) -> dict[str, Any]:
    return {"kind": "Node", "apiVersion": "v1", "metadata": {"name": name}, "status": {"allocatable": allocatable}}


def test_keys_where_keeps_the_members_whose_value_passes(load_policy: Callable[..., PolicySet]) -> None:
    """Trial 207: a resource name a node lists at 0 (the kubelet keeps one its device plugin stopped serving) counted
    as advertised. ``keysWhere`` keeps the members of the mappings ``keys`` selects whose value passes: the names above
    0; a data table may stand in it, and it is the same for every object (built once per dump)."""
    context = {
        "advertised": {"kind": "Node", "keys": "$.status.allocatable", "keysWhere": {"var": "item", "gt": 0}},
        "atZero": {"kind": "Node", "keys": "$.status.allocatable", "keysWhere": {"var": "item", "in": {"data": "zeros"}}},
    }
    rule = make_rule(
        {"path": "$.spec.wants", "in": {"context": "advertised"}},
        match={"kinds": ["Pod"]},
        message="{name}: {advertised} / {atZero}",
        passMessage="{name}: {advertised} / {atZero}",
    )
    policies = load_policy(make_policy([rule], context=context, data={"zeros": ["0", 0]}))
    objects = [
        _node("a", {"cpu": "8", "nvidia.com/gpu": "0", "nvidia.com/gpu.shared": "4"}),
        _node("b", {"nvidia.com/gpu": 0, "nvidia.com/mig-1g.10gb": "7"}),
        {"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "p1"}, "spec": {"wants": "nvidia.com/gpu"}},
        {"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "p2"}, "spec": {"wants": "nvidia.com/gpu.shared"}},
    ]
    dump = Dump(objects=[KObject(o, Source("d.yaml", i + 1, 1)) for i, o in enumerate(objects)])
    said = {o.ref.name: (o.results[0].result, o.results[0].message) for o in evaluate(dump, policies).objects}
    listed = "[cpu, nvidia.com/gpu.shared, nvidia.com/mig-1g.10gb] / [nvidia.com/gpu, nvidia.com/gpu]"
    assert said == {"p1": ("fail", f"p1: {listed}"), "p2": ("pass", f"p2: {listed}")}


def test_keys_where_leaves_out_a_member_it_cannot_test_and_judges_the_rest(load_policy: Callable[..., PolicySet]) -> None:
    """Trial 212: one node's allocatable 'eight' made the whole context an error: every pod reading it answered error
    (a pod asking for what another node advertises at 8 too), the 1,500-node dump took 40 times as long (the error
    was computed again per pod), and prepare() raised it out of a parallel run. A member whose value keysWhere cannot
    test is left out, as one that fails it; the reader's input error says what is wrong with it."""
    context = {"advertised": {"kind": "Node", "keys": "$.status.allocatable", "keysWhere": {"var": "item", "gt": 0}}}
    rule = make_rule(
        {"path": "$.spec.wants", "in": {"context": "advertised"}},
        match={"kinds": ["Pod"]},
        message="{name}: {advertised}",
        passMessage="{name}: {advertised}",
    )
    policies = load_policy(make_policy([rule], context=context))
    objects = [
        _node("a", {"nvidia.com/gpu": "eight", "nvidia.com/mig-1g.10gb": None}),
        _node("b", {"nvidia.com/gpu": "8"}),
        {"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "p1"}, "spec": {"wants": "nvidia.com/gpu"}},
        {"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "p2"}, "spec": {"wants": "nvidia.com/mig-1g.10gb"}},
    ]
    dump = Dump(objects=[KObject(o, Source("d.yaml", i + 1, 1)) for i, o in enumerate(objects)])
    index = Index(dump.objects)
    prepare(index, policies)  # builds the context before evaluation, raising nothing
    said = {o.ref.name: (o.results[0].result, o.results[0].message) for o in evaluate(dump, policies).objects}
    assert said == {"p1": ("pass", "p1: [nvidia.com/gpu]"), "p2": ("fail", "p2: [nvidia.com/gpu]")}


@pytest.mark.parametrize(
    ("context", "reason"),
    [
        (
            {"kind": "Node", "path": "$.status.allocatable", "keysWhere": {"var": "item", "gt": 0}},
            "spec.context.c.keysWhere: keysWhere keeps members of the mappings keys selects: it needs keys",
        ),
        (
            {"kind": "Node", "keys": "$.status.allocatable", "keysWhere": {"var": "item", "gt": {"var": "floor"}}},
            "it reads var 'floor'",
        ),
        (
            {"kind": "Node", "keys": "$.status.allocatable", "keysWhere": {"var": "item", "in": {"context": "other"}}},
            "it reads context 'other'",
        ),
        (
            {"kind": "Node", "keys": "$.status.allocatable", "keysWhere": {"var": "item", "in": {"data": "zeroes"}}},
            "unknown data table 'zeroes'; did you mean 'zeros'?",
        ),
    ],
)
def test_keys_where_is_refused_at_load_unless_it_reads_its_item_alone(
    load_policy: Callable[..., PolicySet], context: dict[str, Any], reason: str
) -> None:
    """A context is computed once per dump: its keysWhere may read the member's value, literals and data tables, not
    the judged object's vars or another context."""
    contexts = {"c": context, "other": {"kind": "Node", "path": "$.metadata.name"}}
    rule = make_rule({"path": "$.spec.wants", "in": {"context": "c"}}, match={"kinds": ["Pod"]})
    with pytest.raises(PolicyError) as caught:
        load_policy(make_policy([rule], context=contexts, vars={"floor": {"value": 0}}, data={"zeros": ["0"]}))
    assert reason in str(caught.value)
