"""Engine additions the gpu-operator pack needs, each general: the ``versionLt`` operator, key paths
(``key: [a, {var: b}]``), ``{name.member}`` message placeholders, ``where`` filtering the raw values
before ``classify`` maps them, and ``equalsIgnoreCase``/``inIgnoreCase`` (case-insensitive comparison of
dump text without building a regex from it)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest
from conftest import make_policy, make_rule, node

from rules.errors import PolicyError
from rules.operators import OperatorError, version_key

Judge = Callable[..., dict[tuple[str, str], Any]]

KUBEVIRT = {
    "apiVersion": "kubevirt.io/v1",
    "kind": "KubeVirt",
    "metadata": {"name": "kubevirt", "namespace": "kubevirt"},
    "status": {"observedKubeVirtVersion": "v1.3.1"},
}
VERSION = "$.status.observedKubeVirtVersion"


def one(judge: Judge, assertion: dict[str, Any], obj: dict[str, Any], **spec: Any) -> Any:
    return judge([obj], assertion, **spec)[(obj["metadata"]["name"], "r")]


# ------------------------------------------------------------------------------------------ versionLt


@pytest.mark.parametrize(
    ("low", "high"),
    [
        ("v1.3.9", "v1.4.0"),
        ("v1.4.0-rc.1", "v1.4.0"),
        ("1.0.0-alpha", "1.0.0-alpha.1"),
        ("1.0.0-alpha.1", "1.0.0-alpha.beta"),
        ("1.0.0-beta.2", "1.0.0-beta.11"),
        ("v0.59.1", "v1.0.0"),
        ("v1.3", "v1.3.1"),
    ],
)
def test_version_precedence(low: str, high: str) -> None:
    assert version_key(low) < version_key(high)
    assert not version_key(high) < version_key(low)


def test_version_equal_forms() -> None:
    assert version_key("v1.4.0") == version_key("1.4") == version_key("V1.4.0+build.7")


@pytest.mark.parametrize("bad", ["latest", "1.4.0.1", "v01.4.0", "", None, True])
def test_not_a_version(bad: Any) -> None:
    with pytest.raises(OperatorError):
        version_key(bad)


def test_version_lt_pass_fail_and_error(judge: Judge) -> None:
    assert one(judge, {"path": VERSION, "versionLt": "v1.4.0"}, KUBEVIRT).result == "pass"
    r = one(judge, {"path": VERSION, "versionLt": "v1.3.0"}, KUBEVIRT)
    assert (r.result, r.observed, r.expected) == ("fail", "v1.3.1", "a version below v1.3.0")
    assert one(judge, {"not": {"path": VERSION, "versionLt": "v1.3.0"}}, KUBEVIRT).result == "pass"
    broken = {**KUBEVIRT, "status": {"observedKubeVirtVersion": "devel"}}
    r = one(judge, {"path": VERSION, "versionLt": "v1.4.0"}, broken)
    assert r.result == "error" and "devel is not a version" in r.message


def test_version_lt_takes_a_reference(judge: Judge) -> None:
    assertion = {"path": VERSION, "versionLt": {"data": "gaSince", "key": "GPU"}}
    assert one(judge, assertion, KUBEVIRT, data={"gaSince": {"GPU": "v1.4.0"}}).result == "pass"


# ------------------------------------------------------------------------------------------ key paths

POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "cuda", "namespace": "ml"},
    "spec": {
        "containers": [
            {"name": "main", "resources": {"requests": {"nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": "2"}}},
        ]
    },
}


def test_key_path_looks_up_one_level_per_element(judge: Judge) -> None:
    assertion = {
        "forEach": {
            "path": "$.spec.containers[*]",
            "as": "container",
            "assert": {
                "forEach": {
                    "keys": "$.resources.requests",
                    "as": "resource",
                    "assert": {
                        "var": "container",
                        "key": ["resources", "requests", {"var": "resource"}],
                        "equals": {"var": "container", "key": ["resources", "limits", {"var": "resource"}]},
                    },
                }
            },
        }
    }
    r = one(judge, assertion, POD)
    assert (r.result, r.observed, r.expected) == ("fail", "1", "== 2")
    fixed = {
        **POD,
        "spec": {
            "containers": [
                {"name": "main", "resources": {"requests": {"nvidia.com/gpu": "2"}, "limits": {"nvidia.com/gpu": "2"}}}
            ]
        },
    }
    assert one(judge, assertion, fixed).result == "pass"


def test_key_path_missing_level_selects_nothing(judge: Judge) -> None:
    r = one(
        judge, {"var": "spec", "key": ["containers", 0, "resources", "claims"], "exists": False}, POD, vars={"spec": "$.spec"}
    )
    assert r.result == "pass"


def test_empty_key_path_is_refused(load_policy: Callable[..., Any]) -> None:

    with pytest.raises(PolicyError, match="key path needs at least one key"):
        load_policy(make_policy([make_rule({"var": "spec", "key": [], "exists": True})], vars={"spec": "$.spec"}))


# ------------------------------------------------------------------------------------------ placeholders


def test_member_placeholder_names_a_field_of_a_binding(judge: Judge) -> None:
    rule = make_rule(
        {
            "forEach": {
                "path": "$.spec.containers[*]",
                "as": "container",
                "assert": {"path": "$.resources.limits['nvidia.com/gpu']", "equals": "1"},
            }
        },
        match={"kinds": ["Pod"]},
        message="container {container.name} of {name} limits nvidia.com/gpu to {observed}; {container.nosuch}",
    )
    r = judge([POD], rules=[rule])[("cuda", "r")]
    assert r.message == "container main of cuda limits nvidia.com/gpu to 2; <none>"


def test_member_placeholder_base_must_be_known(load_policy: Callable[..., Any]) -> None:

    with pytest.raises(PolicyError, match="placeholder {nosuch}"):
        load_policy(make_policy([make_rule(message="bad {nosuch.name}")]))


# ------------------------------------------------------------------------------------------ where, then classify

CLASSES = {"container": "^nvidia\\.com/gpu$", "vm-passthrough": "^nvidia\\.com/[A-Z0-9_]+$"}
SWITCHED = node("gpu-1", allocatable={"cpu": "8", "nvidia.com/gpu": "0", "nvidia.com/GA102GL_A10": "1"})


def test_where_filters_raw_values_before_classify(judge: Judge) -> None:
    # a resource the kubelet keeps at 0 after its device plugin left is not advertised any more
    nonzero = {
        "keys": "$.status.allocatable",
        "where": {"var": "allocatable", "key": {"var": "item"}, "gt": 0},
        "classify": {"data": "classes"},
        "unique": True,
    }
    r = one(
        judge, {**nonzero, "count": {"lte": 1}}, SWITCHED, data={"classes": CLASSES}, vars={"allocatable": "$.status.allocatable"}
    )
    assert (r.result, r.observed) == ("pass", "vm-passthrough")
    both = node("gpu-2", allocatable={"nvidia.com/gpu": "1", "nvidia.com/GA102GL_A10": "1"})
    r = one(
        judge, {**nonzero, "count": {"lte": 1}}, both, data={"classes": CLASSES}, vars={"allocatable": "$.status.allocatable"}
    )
    assert (r.result, r.observed) == ("fail", ["container", "vm-passthrough"])


# ------------------------------------------------------------------------------------------ ignoring case

T4 = "$.metadata.labels['nvidia.com/gpu.workload.config']"


@pytest.mark.parametrize(
    ("value", "argument", "result"),
    [
        ("nvidia.com/TU104GL_Tesla_T4", "nvidia.com/TU104GL_TESLA_T4", "pass"),
        ("VM-Passthrough", "vm-passthrough", "pass"),
        ("STRASSE", "straße", "pass"),  # casefold, not lower(): "ß" folds to "ss"
        ("vm_passthrough", "vm-passthrough", "fail"),
        ("nvidia.com/gpu", "nvidia.com/gpu.shared", "fail"),
    ],
)
def test_equals_ignore_case(judge: Judge, value: str, argument: str, result: str) -> None:
    obj = node("gpu-1", {"nvidia.com/gpu.workload.config": value})
    r = one(judge, {"path": T4, "equalsIgnoreCase": argument}, obj)
    assert (r.result, r.observed) == (result, value)
    if result == "fail":
        assert r.expected == f"== {argument} (ignoring case)"


def test_equals_ignore_case_keeps_types() -> None:
    from rules.operators import OPERATORS

    eq = OPERATORS["equalsIgnoreCase"].test
    assert not eq("2", 2) and not eq(True, 1) and not eq("true", True)
    assert eq(2, 2) and eq(None, None) and eq({"a": "X"}, {"a": "X"})


def test_in_ignore_case_takes_lists_mappings_and_references(judge: Judge) -> None:
    obj = node("gpu-1", {"nvidia.com/gpu.workload.config": "VM-vGPU"})
    assert one(judge, {"path": T4, "inIgnoreCase": ["container", "vm-vgpu"]}, obj).result == "pass"
    assert one(judge, {"path": T4, "inIgnoreCase": {"vm-vgpu": 1}}, obj).result == "pass"
    assert (
        one(
            judge,
            {"path": T4, "inIgnoreCase": {"data": "workloads"}},
            obj,
            data={"workloads": ["container", "vm-passthrough", "vm-vgpu"]},
        ).result
        == "pass"
    )
    r = one(judge, {"path": T4, "inIgnoreCase": ["container", "vm-passthrough"]}, obj)
    assert (r.result, r.expected) == ("fail", "one of [container, vm-passthrough] (ignoring case)")
    assert one(judge, {"path": T4, "inIgnoreCase": []}, obj).result == "fail"


def test_ignore_case_never_runs_dump_text_as_a_regex(judge: Judge) -> None:
    # The argument comes from the dump (a VM's deviceName). As a regex, (a+)+c against 32 a's backtracks for
    # minutes; compared as text it is answered at once, and a name that is not a regex is no error either.
    hostile = "nvidia.com/(a+)+c"
    obj = node("gpu-1", allocatable={"nvidia.com/" + "a" * 32: "1", "nvidia.com/[": "1"})
    assertion = {"keys": "$.status.allocatable", "where": {"var": "item", "equalsIgnoreCase": {"var": "wanted"}}, "exists": True}
    started = time.perf_counter()
    r = one(judge, assertion, obj, vars={"wanted": {"value": hostile}})
    assert time.perf_counter() - started < 1.0
    assert r.result == "fail"
    r = one(judge, assertion, obj, vars={"wanted": {"value": "NVIDIA.COM/["}})
    assert (r.result, r.observed) == ("pass", "nvidia.com/[")
