"""Choosing the objects judged, as kubectl does: label selectors written as text (apimachinery's grammar),
kinds by any of their names, namespaces, name globs; and the promise that a kept object's verdict does not
depend on the others being judged."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rules.engine import audit_paths
from rules.errors import Source
from rules.loader import load_policies
from rules.reader import KObject
from rules.selection import Selection, SelectionError, describe, plural
from rules.selector import SelectorError, parse_selector

ROOT = Path(__file__).resolve().parent.parent
LAB = str(ROOT / "examples" / "lab-cluster.yaml")


@pytest.mark.parametrize(
    ("text", "expressions"),
    [
        ("", ()),
        ("a=b", (("a", "In", {"b"}),)),
        ("a==b", (("a", "In", {"b"}),)),
        ("a!=b", (("a", "NotIn", {"b"}),)),
        ("a", (("a", "Exists", set()),)),
        ("!a", (("a", "DoesNotExist", set()),)),
        (" x in (a, b) ,  !y,z ", (("x", "In", {"a", "b"}), ("y", "DoesNotExist", set()), ("z", "Exists", set()))),
        ("k notin (a)", (("k", "NotIn", {"a"}),)),
        ("k in ()", (("k", "In", {""}),)),  # apimachinery reads "()" as the empty value
        ("k in (a,)", (("k", "In", {"a", ""}),)),
        ("k=", (("k", "In", {""}),)),
        ("n>3,n<10", (("n", "Gt", {"3"}), ("n", "Lt", {"10"}))),
        ("in in (in,notin)", (("in", "In", {"in", "notin"}),)),  # keywords only where an operator stands
        ("nvidia.com/gpu.workload.config=vm-passthrough", (("nvidia.com/gpu.workload.config", "In", {"vm-passthrough"}),)),
    ],
)
def test_selector_text_parses_as_kubectl_does(text: str, expressions: tuple[Any, ...]) -> None:
    got = parse_selector(text).expressions
    assert [(k, op, set(v)) for k, op, v in got] == [(k, op, set(v)) for k, op, v in expressions]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a=b=c", "found '=', expected: ',' or end of string"),
        ("a in b", "found 'b', expected: '('"),
        ("a in (b", "found end of string, expected: ',', ')' or identifier"),
        ("a in (b c)", "found 'c', expected: ',', ')' or identifier"),
        ("=a", "found '=', expected: !, identifier, or end of string"),
        ("a,", "found end of string, expected: identifier after ','"),
        ("a b", "found 'b', expected: =, ==, !=, in, notin, >, <"),
        ("!a=b", "found '=', expected: ',' or end of string"),
        ("a>b", "for '>' the value must be a whole number, not 'b' (a)"),
        ("a=-b", "invalid label value '-b' for a"),
        ("a=" + "v" * 64, "invalid label value"),
        ("Bad_/x=1", "invalid label key 'Bad_/x': the prefix must be a DNS subdomain"),
        ("-a=1", "invalid label key '-a': the name must be at most 63 characters"),
    ],
)
def test_selector_text_errors_say_what_was_found_and_expected(text: str, message: str) -> None:
    with pytest.raises(SelectorError) as exc:
        parse_selector(text)
    assert message in str(exc.value)


GPU = {"nvidia.com/gpu.present": "true", "nvidia.com/gpu.workload.config": "vm-passthrough", "gpus": "8"}
CPU = {"node-role.kubernetes.io/worker": ""}


@pytest.mark.parametrize(
    ("text", "gpu", "cpu"),
    [
        ("nvidia.com/gpu.present=true", True, False),
        ("nvidia.com/gpu.present!=true", False, True),  # != holds without the label
        ("nvidia.com/gpu.workload.config notin (container)", True, True),  # so does notin
        ("nvidia.com/gpu.workload.config in (vm-passthrough,vm-vgpu)", True, False),
        ("!nvidia.com/gpu.present", False, True),
        ("node-role.kubernetes.io/worker", False, True),
        ("node-role.kubernetes.io/worker=", False, True),  # the empty value
        ("gpus>4", True, False),
        ("gpus<4", False, False),  # no label: no number to compare
        ("gpus>4,nvidia.com/gpu.present=true", True, False),
    ],
)
def test_selector_matches_labels_as_the_api_server_does(text: str, gpu: bool, cpu: bool) -> None:
    selector = parse_selector(text)
    assert (selector.matches(GPU), selector.matches(CPU)) == (gpu, cpu)


def obj(kind: str, name: str, namespace: str = "", labels: dict[str, str] | None = None) -> KObject:
    meta: dict[str, Any] = {"name": name, "labels": labels or {}}
    if namespace:
        meta["namespace"] = namespace
    return KObject({"apiVersion": "v1", "kind": kind, "metadata": meta}, Source("d.yaml"))


def test_kinds_by_any_of_their_names_namespaces_and_name_globs() -> None:
    assert [plural(k) for k in ("Node", "ClusterPolicy", "Ingress", "KubeVirt", "Gateway")] == [
        "nodes",
        "clusterpolicies",
        "ingresses",
        "kubevirts",
        "gateways",
    ]
    objects = [
        obj("Node", "gpu-1"),
        obj("Node", "cpu-1"),
        obj("Pod", "gpu-job", "ml"),
        obj("VirtualMachineInstance", "vm-1", "vms"),
    ]
    pick = lambda s: [o.name for o in objects if s.matches(o)]  # noqa: E731
    for word in ("Node", "node", "nodes", "no", "NODES"):
        assert pick(Selection.of(kinds=[word])) == ["gpu-1", "cpu-1"], word
    assert pick(Selection.of(kinds=["vmi,po"])) == ["gpu-job", "vm-1"]
    assert pick(Selection.of(namespaces=["ml", "vms"])) == ["gpu-job", "vm-1"]  # a Node is in no namespace
    assert pick(Selection.of(names=["gpu-*"])) == ["gpu-1", "gpu-job"]
    assert pick(Selection.of(kinds=["Node"], names=["gpu-*"])) == ["gpu-1"]  # filters all hold
    assert Selection.of() is None and Selection.of(kinds=[" "], selector=" ") is None


def test_a_kind_no_rule_judges_and_a_bad_selector_are_refused() -> None:
    with pytest.raises(SelectionError) as exc:
        Selection.of(kinds=["nodez"], judged={"Node", "Pod"})
    # new-user trial: -r and --results say what a misspelt value likely stands for; --kind does too now
    assert (exc.value.parameter, exc.value.reason) == (
        "kind",
        "no loaded rule judges kind 'nodez' (did you mean 'Node'?); the rules judge Node, Pod",
    )
    with pytest.raises(SelectionError) as exc:
        Selection.of(kinds=["Service"], judged={"Node", "Pod"})
    assert exc.value.reason == "no loaded rule judges kind 'Service'; the rules judge Node, Pod"
    assert Selection.of(kinds=["services"], judged={"*"}) is not None  # a rule of any kind judges it
    with pytest.raises(SelectionError) as exc:
        Selection.of(selector="a in b")
    assert (exc.value.parameter, exc.value.reason) == ("selector", "label selector 'a in b': found 'b', expected: '('")


SELECTIONS = [
    {"kinds": ["Pod"], "namespaces": ["ml"]},
    {"selector": "nvidia.com/gpu.workload.config in (vm-passthrough,vm-vgpu)"},
    {"kinds": ["vmi"], "names": ["vm-*"]},
    {"kinds": ["Node"], "names": ["gpu-broken-*"]},
]


@pytest.fixture(scope="module")
def lab_whole() -> tuple[Any, dict[str, dict[str, Any]]]:
    policies = load_policies()
    report = audit_paths([LAB], policies, name="lab")
    return policies, {str(o.ref): o.to_dict() for o in report.objects}


@pytest.mark.parametrize("filters", SELECTIONS)
def test_a_kept_objects_verdict_does_not_depend_on_the_selection(
    lab_whole: tuple[Any, dict[str, dict[str, Any]]], filters: dict[str, Any]
) -> None:
    """The rules still read the whole dump: a Pod's schedulability is judged against every Node even when
    only Pods are judged, a VM's device against the KubeVirt CR and the nodes."""
    policies, whole = lab_whole
    selection = Selection.of(**filters, judged={k for r in policies.rules for k in r.match.kinds})
    report = audit_paths([LAB], policies, name="lab", selection=selection)
    kept = {str(o.ref): o.to_dict() for o in report.objects}
    assert kept and set(kept) < set(whole)
    for ref, data in kept.items():
        assert data == whole[ref], ref  # the same results, messages and verdict, word for word
    summary = report.summary()
    assert summary["objectsRead"] == 19 and summary["objectsJudged"] == len(kept)
    assert summary["selection"]["objectsSelected"] >= len(kept)
    assert {k: v for k, v in summary["selection"].items() if k != "objectsSelected"} == selection.to_dict()  # type: ignore[union-attr]


def test_the_pods_schedulability_still_sees_every_node(lab_whole: tuple[Any, dict[str, dict[str, Any]]]) -> None:
    policies, _ = lab_whole
    report = audit_paths([LAB], policies, selection=Selection.of(kinds=["Pod"], names=["cuda-on-passthrough-node"]))
    [pod] = report.objects
    [r] = [r for r in pod.results if r.rule == "workload-schedulable"]
    assert r.result == "fail" and "0/10 nodes are available" in r.message  # ten Nodes, none of them judged
    assert describe(report.summary()["selection"]) == "kind Pod, name cuda-on-passthrough-node"


def test_a_selection_that_keeps_nothing_says_why_in_a_note() -> None:
    """Second new-user trial: '-n mll' (for ml) answered '0 selected' and exit 0, a report with no finding."""
    policies = load_policies()

    def note(**filters: Any) -> list[str]:
        report = audit_paths([LAB], policies, selection=Selection.of(**filters))
        return [n for n in report.notes if n.startswith("the selection kept no object")]

    assert note(namespaces=["mll"]) == [
        "the selection kept no object of the dump: no object is in namespace 'mll' (did you mean 'ml'?)"
        " (the dump's: kubevirt, ml, vms)"
    ]
    assert note(names=["gpu-brokn-*"]) == ["the selection kept no object of the dump: no object's name matches gpu-brokn-*"]
    assert note(selector="nvidia.com/gpu.presnt=true") == [
        "the selection kept no object of the dump: no object has the label 'nvidia.com/gpu.presnt'"
        " (did you mean 'nvidia.com/gpu.present'?)"
    ]
    assert note(namespaces=["ml"], kinds=["Node"]) == [
        "the selection kept no object of the dump: each filter holds for some object, but none holds for all of them"
    ]
    assert note(namespaces=["ml"]) == []  # it kept some
