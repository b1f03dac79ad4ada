"""The public `kubectl describe node` outputs (tests/data/describe/, sources in SOURCES.md) read through
the normal reader and judged by the built-in pack: each node's verdict on the rules its situation is about.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rules.engine import audit_paths
from rules.loader import load_policies

DATA = Path(__file__).resolve().parent / "data" / "describe"


@pytest.fixture(scope="module")
def policies():
    return load_policies()


def judged(policies, name: str) -> dict[str, dict[str, str]]:
    report = audit_paths([str(DATA / name)], policies)
    assert report.input_errors == [], [str(e) for e in report.input_errors]
    return {o.ref.name: {r.rule: r.result for r in o.results} for o in report.objects if o.ref.kind == "Node"}


def test_every_public_fixture_is_read_as_describe_text(policies) -> None:
    files = sorted(p.name for p in DATA.iterdir() if p.suffix in (".txt", ".md") and p.name != "SOURCES.md")
    assert len(files) >= 5
    for name in files:
        nodes = judged(policies, name)
        assert nodes, name
        for rules in nodes.values():
            assert "error" not in rules.values(), (name, rules)


def test_capacity_16_allocatable_0_is_unhealthy_devices(policies) -> None:
    nodes = judged(policies, "k8s-device-plugin-58_kubectl-1.10_capacity-16-allocatable-0.txt")
    assert nodes["gpu-worker-16"]["no-unhealthy-devices"] == "fail"


def test_passthrough_node_pasted_after_a_root_prompt_is_read(policies) -> None:
    """Regression: '[root@node003 ~]# kubectl describe node' starts with '[' and was taken for JSON,
    then failed as YAML; the node was lost."""
    nodes = judged(policies, "kubevirt-gpu-device-plugin-20_passthrough-node_a100-zero-devices.txt")
    assert list(nodes) == ["node003"]


def test_passthrough_node_listing_its_gpu_at_zero_is_judged_as_a_passthrough_node(policies) -> None:
    """Regression: NVIDIA/kubevirt-gpu-device-plugin#20 (KubeVirt's GPU device plugin alone, the A100 listed with 0
    devices because it is not bound to vfio-pci) was judged under the container default: the warning told the
    reader the GPUs must NOT be bound to vfio-pci, and the passthrough-name rules said the node had no passthrough
    resource. The resource it lists is the evidence of its workload."""
    report = audit_paths([str(DATA / "kubevirt-gpu-device-plugin-20_passthrough-node_a100-zero-devices.txt")], policies)
    node = next(o for o in report.objects if o.ref.kind == "Node")
    results = {r.rule: r for r in node.results}
    advertised = results["gpu-resources-advertised"]
    # trial 157: a node whose device plugin registered a GPU resource and serves no device of it fails whatever
    # workload it is taken to run (a warning before)
    assert advertised.result == "fail"
    assert "Node node003 has an NVIDIA GPU and the vm-passthrough GPU workload" in advertised.message
    assert "It lists [nvidia.com/GA100_A100_SXM4_40GB] with 0 devices" in advertised.message
    assert "advertises only GPUs bound to vfio-pci" in advertised.message
    assert "must not be bound to vfio-pci" not in advertised.message
    assert advertised.message.endswith(
        "(Assuming the node runs the vm-passthrough workload: every GPU resource it lists"
        " ([nvidia.com/GA100_A100_SXM4_40GB]) is of that workload's class, so the device plugin that registered it"
        " serves that workload; no node in the dump has a workload label, and no ClusterPolicy is in the dump; add it"
        " if the GPU Operator runs.)"
    )
    # it advertises no GPU resource with a device: nothing to compare with its workload (gpu-resources-advertised
    # above says why); a pass said "The node advertises the GPU resources of its workload"
    matches = results["resource-class-matches-workload"]
    assert (matches.result, matches.message) == (
        "skip",
        "the node advertises no GPU resource of the names the GPU Operator's device plugins give with a device"
        " (status.allocatable: nvidia.com/gpu or mig-*, a PCI device name, NVIDIA_ or GRID_ and a vGPU type):"
        " gpu-nodes/gpu-resources-advertised judges a GPU node that serves nothing",
    )
    # the name it lists is judged: an NVIDIA pci.ids name, not a bare device id
    assert results["passthrough-name-not-bare-device-id"].result == "pass"
    assert results["passthrough-name-from-nvidia-entry"].result == "pass"
    assert results["no-unhealthy-devices"].result == "pass"  # devices.kubevirt.io/kvm and the others: all healthy


def test_vgpu_node_of_kubevirt_alone_is_taken_as_a_vgpu_node_and_not_said_to_run_the_default(policies) -> None:
    """kubevirt/kubevirt#11135: KubeVirt makes the GRID P40-1Q mediated devices itself; no workload label, no
    ClusterPolicy. The skip of workload-label-valid said the node runs the default workload, which the node's
    own resource-class result contradicts."""
    report = audit_paths([str(DATA / "kubevirt-11135_vgpu-node_grid-p40-1q.txt")], policies)
    results = {r.rule: r for o in report.objects if o.ref.kind == "Node" for r in o.results}
    assert results["resource-class-matches-workload"].result == "pass"
    assert "(Assuming the node runs the vm-vgpu workload: every GPU resource it lists ([nvidia.com/GRID_P40-1Q])" in (
        results["resource-class-matches-workload"].message
    )
    label = results["workload-label-valid"]
    assert (label.result, label.message) == (
        "skip",
        "the node has no nvidia.com/gpu.workload.config label (resource-class-matches-workload"
        " says which workload it is taken to run)",
    )
    # KubeVirt, not vgpu-device-manager, made these vGPUs: nvidia.com/vgpu.config means nothing here
    profile = results["vgpu-profile-matches-config"]
    assert profile.result == "skip"
    assert "the node's vm-vgpu workload is read from the vGPU resources it lists" in profile.message


def test_healthy_time_sliced_and_openshift_nodes_do_not_fail(policies) -> None:
    for name in ("gpu-operator-684_eks-time-slicing_gpu-12.txt",):
        for node, rules in judged(policies, name).items():
            assert "fail" not in rules.values(), (name, node, rules)


def test_a_node_the_operators_nfd_marked_and_the_operator_prepared_nothing_on_fails(policies) -> None:
    """Trial 159: NVIDIA/gpu-operator#209 (the reporter's node advertised no nvidia.com/gpu): the GPU Operator chart's
    NFD worker runs on the node and NFD marks its NVIDIA GPU, yet the operator wrote nothing there. It was a warning
    saying nothing showed the GPU Operator on the node."""
    report = audit_paths([str(DATA / "gpu-operator-209_openstack-gpu-node_no-gpu-resource.txt")], policies)
    [node] = [o for o in report.objects if o.ref.kind == "Node"]
    advertised = next(r for r in node.results if r.rule == "gpu-resources-advertised")
    assert advertised.result == "fail"
    assert (
        "The GPU Operator's node-feature-discovery worker (gpu-operator-1623769563-node-feature-discovery-worker-6d7hn)"
        " runs on the node and NFD marks the node's NVIDIA GPU, yet the node carries no label the operator writes"
    ) in advertised.message


def test_a_node_nfd_marked_in_a_cluster_whose_gpu_operator_prepared_nothing_fails(policies) -> None:
    """Trial 161: NVIDIA/gpu-operator#371 (the operator never got going): its pod gpu-operator-566644fc46-2znxj in
    openshift-operators was not seen (a pod rebuilt from describe text's table has no app label), so
    gpu-present-labelled skipped saying nothing showed the operator, and gpu-resources-advertised warned."""
    report = audit_paths([str(DATA / "gpu-operator-371-331_openshift_describe-nodes-two-nodes.txt")], policies)
    node = next(o for o in report.objects if o.ref.name == "ip-10-0-47-77.ec2.internal")
    results = {r.rule: r for r in node.results}
    assert results["gpu-present-labelled"].result == "fail"
    assert "The GPU Operator's pod gpu-operator-566644fc46-2znxj is in the dump" in results["gpu-present-labelled"].message
    advertised = results["gpu-resources-advertised"]
    assert advertised.result == "fail"
    assert "The GPU Operator runs in the cluster (its pod gpu-operator-566644fc46-2znxj) and NFD marks" in advertised.message


def test_every_device_at_zero_is_not_put_down_to_unhealthy_devices_alone(policies) -> None:
    """Trial 161: NVIDIA/k8s-device-plugin#58's 16 GPUs, none allocatable, were said, as fact, to be reported unhealthy
    by the plugin; the kubelet marks every device of a stopped plugin unhealthy too, which describe text cannot tell
    apart (the issue never found the cause)."""
    report = audit_paths([str(DATA / "k8s-device-plugin-58_kubectl-1.10_capacity-16-allocatable-0.txt")], policies)
    [found] = [r for o in report.objects for r in o.results if r.rule == "no-unhealthy-devices"]
    assert found.result == "fail"
    assert "none of its devices is allocatable, as the kubelet reports when the device plugin that advertises it" in found.message
    assert "stopped (it marks every device of a stopped plugin unhealthy" in found.message


def _advertised(policies, pod_name: str, pod_node: str = "cpu-1") -> Any:
    from rules.engine import audit_bytes

    dump = f"""apiVersion: v1
kind: Node
metadata: {{name: gpu-1, labels: {{feature.node.kubernetes.io/pci-10de.present: "true"}}}}
status: {{capacity: {{cpu: "8", pods: "110"}}, allocatable: {{cpu: "8", pods: "110"}}}}
---
apiVersion: v1
kind: Pod
metadata: {{name: {pod_name}, namespace: monitoring}}
spec: {{nodeName: {pod_node}, containers: [{{name: c, image: x}}]}}
status: {{phase: Running}}
"""
    report = audit_bytes(dump.encode(), "d.yaml", policies)
    return next(r for o in report.objects if o.ref.kind == "Node" for r in o.results if r.rule == "gpu-resources-advertised")


def test_the_operator_is_seen_by_its_charts_nfd_worker_anywhere_and_not_by_a_cronjobs_pod(policies) -> None:
    """Trial 162: a failure resting on the chart's NFD worker on another node said "nothing in the dump shows that the
    GPU Operator prepares the node"; and a CronJob's pod gpu-operator-28391234-abcde was taken for the operator's."""
    nfd = _advertised(policies, "gpu-operator-1699999999-node-feature-discovery-worker-abcde")
    assert nfd.result == "fail"
    assert "The GPU Operator's chart runs node-feature-discovery workers in the cluster" in nfd.message
    assert "Nothing in the dump shows that the GPU Operator prepares the node" not in nfd.message
    cron = _advertised(policies, "gpu-operator-28391234-abcde")
    assert cron.result == "warn"
    assert "The GPU Operator runs in the cluster" not in cron.message
