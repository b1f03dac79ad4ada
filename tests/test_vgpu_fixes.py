"""The fixes of vGPU node findings where VMs run (trial 114): applying a vGPU config deletes every vGPU device of
the GPUs first (NVIDIA/vgpu-device-manager pkg/vgpu/config.go, ClearVGPUConfig), whether a VM holds it or not."""

from __future__ import annotations

from functools import cache

import yaml
from conftest import cluster_policy, operand_pod

from rules.evaluate import evaluate
from rules.loader import PolicySet, load_policies
from rules.reader import parse_text


@cache
def _pack() -> PolicySet:
    return load_policies()


def _node(config: str, state: str) -> dict:
    labels = {
        "kubernetes.io/hostname": "vgpu-a10-2",
        "feature.node.kubernetes.io/pci-10de.present": "true",
        "nvidia.com/gpu.present": "true",
        "nvidia.com/gpu.workload.config": "vm-vgpu",
        "nvidia.com/vgpu.config": config,
        "nvidia.com/vgpu.config.state": state,
    }
    resources = {"cpu": "64", "memory": "256Gi", "pods": "110", "nvidia.com/NVIDIA_A10-12Q": "4"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "vgpu-a10-2", "labels": labels},
        "status": {"capacity": resources, "allocatable": resources},
    }


VMI = {
    "apiVersion": "kubevirt.io/v1",
    "kind": "VirtualMachineInstance",
    "metadata": {"name": "win11-vdi-03", "namespace": "vdi"},
    "spec": {"domain": {"devices": {"gpus": [{"name": "vgpu1", "deviceName": "nvidia.com/NVIDIA_A10-12Q"}]}}},
    "status": {"phase": "Running", "nodeName": "vgpu-a10-2"},
}


def _fixes(*objects: dict) -> dict[str, str]:
    policy = cluster_policy({"sandboxWorkloads": {"enabled": True}}, namespace="gpu-operator")
    text = "\n---\n".join(yaml.safe_dump(o) for o in (policy, *objects))
    report = evaluate(parse_text(text, "vgpu.yaml"), _pack())
    return {r.rule: r.remediation for o in report.objects for r in o.results if r.result in ("fail", "warn")}


STOP_FIRST = (
    "First stop the VMs on the node, VirtualMachineInstance(s) vdi/win11-vdi-03: applying a vGPU config deletes every"
    " vGPU device of the GPUs first, theirs too, and a VM with a vGPU cannot live-migrate (for each, virtctl stop -n"
    " <namespace> <name>; start them again once nvidia.com/vgpu.config.state reads success). Then: kubectl logs -n"
    " gpu-operator $(kubectl get pods -n gpu-operator -l app=nvidia-vgpu-device-manager"
)


def test_a_failed_vgpu_config_with_vms_running_says_to_stop_them_first() -> None:
    fixes = _fixes(_node("A10-6Q", "failed"), VMI)
    assert fixes["vgpu-config-applied"].startswith(STOP_FIRST), fixes["vgpu-config-applied"]
    # trial 144: the failed state is vgpu-config-applied's alone (it was this rule's "not applied" too)
    assert "vgpu-profile-matches-config" not in fixes
    # without a state yet, the config not applied is this rule's, its fix the same first step
    fixes = _fixes(_node("A10-6Q", ""), VMI)
    assert fixes["vgpu-profile-matches-config"].startswith(STOP_FIRST), fixes["vgpu-profile-matches-config"]
    assert "restart that pod" in fixes["vgpu-profile-matches-config"]


def test_without_vms_on_the_node_the_fix_goes_straight_to_the_log() -> None:
    fixes = _fixes(_node("A10-6Q", "failed"))
    assert fixes["vgpu-config-applied"].startswith("kubectl logs -n gpu-operator $(kubectl get pods"), fixes
    assert "virtctl stop" not in _fixes(_node("A10-6Q", ""))["vgpu-profile-matches-config"]


def _sandbox_operands(*pods: dict) -> object:
    manager = {"enabled": False, "repository": "registry.acme.example/nvidia", "image": "vgpu-manager", "version": "570.124.03"}
    spec = {"sandboxWorkloads": {"enabled": True}, "sandboxDevicePlugin": {"enabled": True}, "vgpuManager": manager}
    spec["vgpuDeviceManager"] = {"enabled": True}
    policy = cluster_policy(spec, namespace="gpu-operator")
    text = "\n---\n".join(yaml.safe_dump(o) for o in (policy, _node("A10-12Q", "success"), *pods))
    report = evaluate(parse_text(text, "vgpu.yaml"), _pack())
    [result] = [r for o in report.objects for r in o.results if r.rule == "sandbox-operands-enabled"]
    return result


def test_vgpu_manager_off_while_the_operators_own_pods_serve_the_nodes_fails() -> None:
    """Trial 114: spec.vgpuManager.enabled false beside the operator's own nvidia-vgpu-manager-daemonset pods passed,
    saying a vGPU Manager installed on the hosts served the vGPUs; the operator deletes that DaemonSet when it
    reconciles (its state is enabled only with sandbox workloads and vgpuManager on)."""
    pod = operand_pod("nvidia-vgpu-manager-daemonset-0aa99", "nvidia-vgpu-manager-daemonset", "vgpu-a10-2")
    result = _sandbox_operands(pod)
    assert result.result == "fail", result.message
    assert (
        "so the vGPU host driver there comes now from its own vGPU Manager pods left over"
        " (nvidia-vgpu-manager-daemonset-0aa99), which it deletes when it reconciles: the VMs with vGPUs there lose them"
        " then."
    ) in result.message
    # the image is in the spec already: no advice to build one
    assert result.remediation == (
        "kubectl patch clusterpolicies.nvidia.com cluster-policy --type merge -p"
        """ '{"spec":{"vgpuManager":{"enabled":true}}}'"""
    )


def test_vgpu_manager_off_with_vgpus_and_no_operator_manager_pod_is_read_as_installed_on_the_hosts() -> None:
    result = _sandbox_operands()
    assert result.result == "pass"
    assert "a vGPU Manager installed on the hosts serves them" in result.message


def _advertising_passthrough(state: str) -> dict:
    node = _node("A10-12Q", state)
    gpus = {"cpu": "64", "memory": "256Gi", "pods": "110", "nvidia.com/GA102GL_A10": "1"}
    node["status"] = {"capacity": gpus, "allocatable": gpus}
    return node


def test_an_applied_vgpu_config_is_not_offered_a_relabel_to_passthrough() -> None:
    """Trial 157: a vm-vgpu node whose vgpu-device-manager reports its config applied, advertising a passthrough name,
    was offered kubectl label ... nvidia.com/gpu.workload.config=vm-passthrough, which undoes that config; the fix
    looks at the VFIO binding and restarts the sandbox device plugin, which reads the vGPUs when it starts."""
    fix = _fixes(_advertising_passthrough("success"))["resource-class-matches-workload"]
    assert "nvidia.com/gpu.workload.config=vm-passthrough" not in fix
    assert "lspci -nnk -d 10de: on the host shows which GPU is bound to vfio-pci" in fix
    # trial 168: its pod was "<its namespace> <its name>" where the ClusterPolicy's namespace is in the dump
    assert fix.endswith(
        "restart the node's sandbox device plugin, which reads the vGPUs when it starts: kubectl delete pod -n"
        " gpu-operator -l app=nvidia-sandbox-device-plugin-daemonset --field-selector spec.nodeName=vgpu-a10-2"
    )
    # without the config applied, the relabel is still the other reading
    fix = _fixes(_advertising_passthrough("failed"))["resource-class-matches-workload"]
    assert "kubectl label node vgpu-a10-2 --overwrite nvidia.com/gpu.workload.config=vm-passthrough" in fix


def test_a_vgpu_node_labelled_by_hand_is_told_to_look_for_the_operator_and_offered_its_advertised_config() -> None:
    """Trial 177: the README's lab node (labelled by hand, no operand pod, no ClusterPolicy) configured for A10-8Q and
    advertising NVIDIA_A10-4Q was told to read and restart a vgpu-device-manager pod the dump shows none of, and was
    never offered the label of the type it advertises."""
    node = _node("A10-8Q", "")
    node["metadata"]["labels"] = {
        k: v for k, v in node["metadata"]["labels"].items() if k not in ("nvidia.com/vgpu.config.state",)
    }
    node["status"] = {"capacity": {"nvidia.com/NVIDIA_A10-4Q": "12"}, "allocatable": {"nvidia.com/NVIDIA_A10-4Q": "12"}}
    report = evaluate(parse_text(yaml.safe_dump(node), "lab.yaml"), _pack())
    [fix] = [r.remediation for o in report.objects for r in o.results if r.rule == "vgpu-profile-matches-config"]
    assert fix.startswith("kubectl get pods -n ")  # what runs there, first
    assert "# nothing in the dump shows the GPU Operator on the node: where its vgpu-device-manager runs there" in fix
    assert fix.endswith(
        "; or, if the node is meant for the type it advertises: kubectl label node vgpu-a10-2 --overwrite"
        " nvidia.com/vgpu.config=A10-4Q"
    )
    # a node the operator manages keeps its restart first, and is offered the same alternative
    managed = _fixes(_node("A10-6Q", "success"))["vgpu-profile-matches-config"]
    assert managed.startswith("kubectl delete pod -n gpu-operator -l app=nvidia-sandbox-device-plugin-daemonset")
    assert managed.endswith("kubectl label node vgpu-a10-2 --overwrite nvidia.com/vgpu.config=A10-12Q")
