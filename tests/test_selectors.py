"""Which objects a rule applies to: Kubernetes label selector semantics (metav1.LabelSelector) and the
kinds/apiVersions/namespaces/names globs of match and exclude."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from conftest import make_rule

from rules.model import Match, Selector, compile_match

Judge = Callable[..., dict[tuple[str, str], Any]]

GPU = {"nvidia.com/gpu.present": "true", "nvidia.com/gpu.workload.config": "vm-passthrough", "node-role.kubernetes.io/worker": ""}
CPU = {"node-role.kubernetes.io/worker": ""}
VGPU = {"nvidia.com/gpu.present": "true", "nvidia.com/gpu.workload.config": "vm-vgpu"}
LABELSETS = {"gpu": GPU, "cpu": CPU, "vgpu": VGPU, "bare": {}}


def selected(selector: dict[str, Any]) -> list[str]:
    """Names of LABELSETS the selector matches, via the same compile path a policy takes."""
    match = compile_match({"kinds": ["Node"], "labelSelector": selector})
    return [name for name, labels in LABELSETS.items() if match.matches("Node", "v1", "", name, labels)]


def expr(key: str, op: str, *values: str) -> dict[str, Any]:
    out: dict[str, Any] = {"key": key, "operator": op}
    if values:
        out["values"] = list(values)
    return out


def test_match_labels() -> None:
    assert selected({"matchLabels": {"nvidia.com/gpu.present": "true"}}) == ["gpu", "vgpu"]
    assert selected({"matchLabels": {"nvidia.com/gpu.present": "false"}}) == []
    # an empty value matches only a present, empty label
    assert selected({"matchLabels": {"node-role.kubernetes.io/worker": ""}}) == ["gpu", "cpu"]


def test_match_labels_pairs_are_anded() -> None:
    assert selected({"matchLabels": {"nvidia.com/gpu.present": "true", "nvidia.com/gpu.workload.config": "vm-vgpu"}}) == ["vgpu"]


def test_in() -> None:
    assert selected({"matchExpressions": [expr("nvidia.com/gpu.workload.config", "In", "vm-passthrough", "vm-vgpu")]}) == [
        "gpu",
        "vgpu",
    ]
    assert selected({"matchExpressions": [expr("nvidia.com/gpu.workload.config", "In", "container")]}) == []


def test_not_in_matches_when_the_key_is_absent() -> None:
    # metav1: NotIn selects objects without the key too (labels.Selector `!=`/`notin` semantics).
    assert selected({"matchExpressions": [expr("nvidia.com/gpu.workload.config", "NotIn", "vm-vgpu")]}) == ["gpu", "cpu", "bare"]


def test_exists_and_does_not_exist() -> None:
    assert selected({"matchExpressions": [expr("nvidia.com/gpu.present", "Exists")]}) == ["gpu", "vgpu"]
    assert selected({"matchExpressions": [expr("nvidia.com/gpu.present", "DoesNotExist")]}) == ["cpu", "bare"]
    # Exists is about the key, not the value: an empty label exists
    assert selected({"matchExpressions": [expr("node-role.kubernetes.io/worker", "Exists")]}) == ["gpu", "cpu"]


def test_expressions_and_labels_are_anded() -> None:
    selector = {
        "matchLabels": {"node-role.kubernetes.io/worker": ""},
        "matchExpressions": [
            expr("nvidia.com/gpu.present", "Exists"),
            expr("nvidia.com/gpu.workload.config", "NotIn", "container"),
        ],
    }
    assert selected(selector) == ["gpu"]
    selector = {"matchExpressions": [expr("nvidia.com/gpu.present", "Exists"), expr("nvidia.com/gpu.present", "DoesNotExist")]}
    assert selected(selector) == []


def test_values_compared_as_strings() -> None:
    sel = Selector((("nvidia.com/gpu.count", "8"),), (("nvidia.com/gpu.count", "In", frozenset({"8"})),))
    assert sel.matches({"nvidia.com/gpu.count": 8}) is True
    assert sel.matches({"nvidia.com/gpu.count": "4"}) is False


def test_empty_selector_matches_everything() -> None:
    assert selected({}) == ["gpu", "cpu", "vgpu", "bare"]
    assert selected({"matchLabels": {}, "matchExpressions": []}) == ["gpu", "cpu", "vgpu", "bare"]
    assert Selector().matches({}) is True


# --------------------------------------------------------------------------------- match / exclude


def test_kinds_exact_and_wildcard() -> None:
    m = Match(frozenset({"Node", "Pod"}))
    assert m.matches("Node", "v1", "", "n", {}) is True
    assert m.matches("node", "v1", "", "n", {}) is False  # kinds are case-sensitive
    assert m.matches("ConfigMap", "v1", "default", "c", {}) is False
    assert Match(frozenset({"*"})).matches("VirtualMachineInstance", "kubevirt.io/v1", "vms", "vm", {}) is True


def test_api_versions_globs() -> None:
    m = compile_match({"kinds": ["VirtualMachine"], "apiVersions": ["kubevirt.io/*"]})
    assert m.matches("VirtualMachine", "kubevirt.io/v1", "vms", "vm", {}) is True
    assert m.matches("VirtualMachine", "kubevirt.io/v1alpha3", "vms", "vm", {}) is True
    assert m.matches("VirtualMachine", "example.com/v1", "vms", "vm", {}) is False


def test_namespaces_and_names_globs() -> None:
    m = compile_match({"kinds": ["DaemonSet"], "namespaces": ["gpu-operator", "nvidia-*"], "names": ["nvidia-*-daemonset"]})
    assert m.matches("DaemonSet", "apps/v1", "gpu-operator", "nvidia-driver-daemonset", {}) is True
    assert m.matches("DaemonSet", "apps/v1", "nvidia-gpu-operator", "nvidia-device-plugin-daemonset", {}) is True
    assert m.matches("DaemonSet", "apps/v1", "kube-system", "nvidia-driver-daemonset", {}) is False
    assert m.matches("DaemonSet", "apps/v1", "gpu-operator", "gpu-feature-discovery", {}) is False
    # a namespace glob never matches a cluster-scoped object (namespace "") unless it allows ""
    assert compile_match({"kinds": ["*"], "namespaces": ["*"]}).matches("Node", "v1", "", "n", {}) is True
    assert compile_match({"kinds": ["*"], "namespaces": ["?*"]}).matches("Node", "v1", "", "n", {}) is False


def node_obj(name: str, labels: dict[str, str]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}}


def test_rule_match_and_exclude(judge: Judge) -> None:
    rule = make_rule(
        {"path": "$.metadata.name", "exists": True},
        match={"kinds": ["Node"], "labelSelector": {"matchExpressions": [expr("nvidia.com/gpu.present", "Exists")]}},
        exclude_={"kinds": ["Node"], "names": ["*-vgpu"]},
    )
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "gpu-pod", "namespace": "ml", "labels": {"nvidia.com/gpu.present": "true"}},
    }
    results = judge([node_obj("gpu-node", GPU), node_obj("cpu-node", CPU), node_obj("node-vgpu", VGPU), pod], rules=[rule])
    assert sorted(results) == [("gpu-node", "r")]


def test_exclude_by_label(judge: Judge) -> None:
    rule = make_rule(
        {"path": "$.metadata.name", "exists": True},
        match={"kinds": ["Node"]},
        exclude_={"kinds": ["*"], "labelSelector": {"matchLabels": {"nvidia.com/gpu.workload.config": "vm-vgpu"}}},
    )
    results = judge([node_obj("gpu-node", GPU), node_obj("cpu-node", CPU), node_obj("node-vgpu", VGPU)], rules=[rule])
    assert sorted(k[0] for k in results) == ["cpu-node", "gpu-node"]


def test_namespaced_match(judge: Judge) -> None:
    def ds(name: str, ns: str) -> dict[str, Any]:
        return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": name, "namespace": ns}}

    rule = make_rule(
        {"path": "$.metadata.name", "exists": True},
        match={"kinds": ["DaemonSet"], "namespaces": ["gpu-operator"], "names": ["nvidia-*"]},
    )
    results = judge(
        [
            ds("nvidia-driver-daemonset", "gpu-operator"),
            ds("nvidia-driver-daemonset", "default"),
            ds("gpu-feature-discovery", "gpu-operator"),
        ],
        rules=[rule],
    )
    assert list(results) == [("nvidia-driver-daemonset", "r")]


@pytest.mark.parametrize("labels", [None, "not-a-mapping", ["a"]])
def test_objects_without_a_labels_mapping(judge: Judge, labels: Any) -> None:
    obj = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "odd", "labels": labels}}
    rule = make_rule(
        {"path": "$.metadata.name", "exists": True},
        match={"kinds": ["Node"], "labelSelector": {"matchExpressions": [expr("a", "DoesNotExist")]}},
    )
    assert judge([obj], rules=[rule])[("odd", "r")].result == "pass"


def test_gt_lt_read_numbers_as_kubernetes_does() -> None:
    """Regression (review): ``-l 'a>1'`` read label values with Python's int(), so "1_0", " 5" and "٥" compared as
    numbers, and a bound past int64 was taken; apimachinery reads them with strconv.ParseInt (base 10, 64 bits)."""
    from rules.selector import SelectorError, parse_selector

    gt = parse_selector("a>1")
    assert [v for v in ("2", "+3", "1_0", " 5", "٥", "x", "1") if gt.matches({"a": v})] == ["2", "+3"]
    with pytest.raises(SelectorError, match="the value must be a whole number, not '99999999999999999999'"):
        parse_selector("a>99999999999999999999")
