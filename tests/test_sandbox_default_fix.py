"""Trial 100: the fix that turns sandbox workloads on must not turn the container nodes into VM nodes.

Once spec.sandboxWorkloads.enabled is true, the GPU Operator gives every GPU node without a valid
nvidia.com/gpu.workload.config label the ClusterPolicy's spec.sandboxWorkloads.defaultWorkload
(NVIDIA/gpu-operator@v25.10.1:controllers/state_manager.go, getWorkloadConfig and init). With a default of
vm-passthrough, the fix "kubectl patch ... enabled: true" given for a node labelled vm-passthrough took the
nvidia.com/gpu of every unlabelled container node. Where the dump shows such nodes, the same command labels them
container first, by a label selector; with none in the dump, the fix says how to find them first.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import yaml
from conftest import cluster_policy, kubevirt_cr, operand_pod

from rules.evaluate import evaluate
from rules.loader import PolicySet, load_policies
from rules.reader import parse_text

PATCH = (
    "kubectl patch clusterpolicies.nvidia.com cluster-policy --type merge -p "
    """'{"spec":{"sandboxWorkloads":{"enabled":true}}}'"""
)


#: NFD's mark of an NVIDIA GPU, by which the operator manages a node (and the ClusterPolicy decides its workload)
NFD = "feature.node.kubernetes.io/pci-10de.present"


@cache
def _pack() -> PolicySet:
    return load_policies()


def _node(name: str, labels: dict[str, str], resources: dict[str, str]) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"nvidia.com/gpu.present": "true", NFD: "true", **labels}},
        "status": {"capacity": resources, "allocatable": resources},
    }


def _fixes(default: str, *nodes: dict) -> dict[tuple[str, str], str]:
    return {key: r.remediation for key, r in _findings(default, *nodes).items()}


def _messages(default: str, *nodes: dict) -> dict[tuple[str, str], str]:
    return {key: r.message for key, r in _findings(default, *nodes).items()}


def _findings(default: str, *nodes: dict) -> dict[tuple[str, str], Any]:
    policy = {
        "apiVersion": "nvidia.com/v1",
        "kind": "ClusterPolicy",
        "metadata": {"name": "cluster-policy"},
        "spec": {"sandboxWorkloads": {"enabled": False, "defaultWorkload": default}},
    }
    dump = parse_text("\n---\n".join(yaml.safe_dump(o) for o in (policy, *nodes)), "chat.yaml")
    report = evaluate(dump, _pack())
    return {(o.ref.name, r.rule): r for o in report.objects for r in o.results if r.result in ("fail", "warn")}


PT = _node("gpu-pt-11", {"nvidia.com/gpu.workload.config": "vm-passthrough"}, {"nvidia.com/GA102GL_A10": "2"})
CTR = _node("gpu-ctr-03", {}, {"nvidia.com/gpu": "8"})
ODD = _node("gpu-ctr-04", {"nvidia.com/gpu.workload.config": "containers"}, {"nvidia.com/gpu": "8"})
CPU = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "cpu-01", "labels": {}}, "status": {"capacity": {"cpu": "8"}}}


SELECTOR = "nvidia.com/gpu.present=true,nvidia.com/gpu.workload.config notin (container,vm-passthrough,vm-vgpu)"
LABEL_THEM = f"kubectl label nodes --overwrite -l '{SELECTOR}' nvidia.com/gpu.workload.config=container"
# Trial 203: the patch turning sandbox workloads on is said to be for nodes meant for VMs (it prepares each VM-labelled
# node for VMs), and the label's removal is the choice for containers.
# Trial 240 #1: a node's fix ran the patch first, cluster-wide, where its block was pasted whole: the choice is said
# first, each command under its condition (rendered commented out), and what the patch does beyond the node after it.
FOR_VMS = "First decide what the node is for. If it is meant for VMs, turn sandbox workloads on: "
#: Trial 239 #1: what turning sandbox workloads on does beyond the node a fix is for
CLUSTER_WIDE = (
    "turning them on prepares every VM-labelled GPU node for its VM workload and takes the GPUs of any container pods"
    " there, which gpu-clusterpolicy/sandbox-workloads-enabled-for-vm-nodes names"
)
# Trial 204: where spec.sandboxWorkloads.defaultWorkload is a VM workload, a node kept on containers is labelled
# container: without a label, it becomes a node of that workload once sandbox workloads are on.
LABEL_IT_CONTAINER = (
    "label it container (without a workload label, spec.sandboxWorkloads.defaultWorkload=%s makes it a %s node once"
    " sandbox workloads are on)"
)
CONTAINER_PT = LABEL_IT_CONTAINER % ("vm-passthrough", "vm-passthrough")
CONTAINER_VGPU = LABEL_IT_CONTAINER % ("vm-vgpu", "vm-vgpu")
THOSE_FOR_VMS_PT = (
    "  # if those nodes are meant for VMs: the operator then prepares each for its VM workload (for one to run"
    " containers, label it container instead, as spec.sandboxWorkloads.defaultWorkload=vm-passthrough makes a node"
    " without a workload label a vm-passthrough node: kubectl label node <node> --overwrite"
    " nvidia.com/gpu.workload.config=container); then gpu-clusterpolicy/sandbox-operands-enabled says which VM operands"
    " to enable"
)
THOSE_FOR_VMS = (
    "  # if those nodes are meant for VMs: the operator then prepares each for its VM workload (for one to run"
    " containers, drop its label instead: kubectl label node <node> nvidia.com/gpu.workload.config-); then"
    " gpu-clusterpolicy/sandbox-operands-enabled says which VM operands to enable"
)


def test_the_dumps_unlabelled_gpu_nodes_are_labelled_container_before_sandbox_workloads_go_on() -> None:
    fixes = _fixes("vm-passthrough", PT, CTR, ODD, CPU)
    fix = fixes[("gpu-pt-11", "label-ignored-sandbox-disabled")]
    # the command itself keeps them on containers, by a selector that matches a missing or unknown label (the
    # operator gives both the default); no CPU node (without nvidia.com/gpu.present=true) is matched
    assert fix == (
        f"{FOR_VMS}{LABEL_THEM} && {PATCH} (the label first keeps the GPU nodes whose workload label is missing or not"
        " one the operator knows (gpu-ctr-03, gpu-ctr-04 in the dump) on containers: with sandbox workloads on,"
        " ClusterPolicy cluster-policy spec.sandboxWorkloads.defaultWorkload=vm-passthrough makes each a vm-passthrough"
        f" node; {CLUSTER_WIDE}). If it is meant for containers, {CONTAINER_PT}: kubectl label node gpu-pt-11"
        " --overwrite nvidia.com/gpu.workload.config=container"
    ), fix


def test_many_unlabelled_gpu_nodes_keep_the_fix_bounded() -> None:
    """Trial 101: 400 unlabelled GPU nodes were named twice in every such node's fix, cut mid-command at 8,192
    characters; the command is a label selector, and past five nodes none is named."""
    many = [_node(f"gpu-worker-node-{i:04d}.example.com", {}, {"nvidia.com/gpu": "8"}) for i in range(400)]
    fix = _fixes("vm-passthrough", PT, *many)[("gpu-pt-11", "label-ignored-sandbox-disabled")]
    assert fix.startswith(f"{FOR_VMS}{LABEL_THEM} && {PATCH} (the label first keeps the GPU nodes whose workload label")
    assert "(more than five in the dump, which its selectors match)" in fix and "gpu-worker-node-0000" not in fix
    assert len(fix) < 1300  # (fixed-length words on what the patch does beyond the node: trials 239 #1, 240 #1)


def test_with_no_unlabelled_gpu_node_in_the_dump_the_fix_says_to_label_them_first() -> None:
    fix = _fixes("vm-vgpu", PT)[("gpu-pt-11", "label-ignored-sandbox-disabled")]
    assert fix.startswith(
        f"{FOR_VMS}{PATCH} (first label nvidia.com/gpu.workload.config=container each GPU node meant for containers"
        f" whose workload label is missing or not one the operator knows, which kubectl get nodes -l '{SELECTOR}' lists:"
        " with sandbox workloads on, ClusterPolicy cluster-policy spec.sandboxWorkloads.defaultWorkload=vm-vgpu makes"
        f" each a vm-vgpu node; {CLUSTER_WIDE}). If it is meant for containers, {CONTAINER_VGPU}: kubectl label node"
        " gpu-pt-11 --overwrite nvidia.com/gpu.workload.config=container"
    ), fix


def test_a_label_the_operator_does_not_know_is_told_to_be_written_right() -> None:
    """Trial 101: gpu-ctr-04 labelled "containers" was told that enabling sandbox workloads makes it run VMs, changing
    nothing on the node; with them on, an unknown value gets the default workload (getWorkloadConfig). It is told to
    write the workload it should run (the nearest known value), or to drop the label."""
    policy_default = "vm-passthrough"
    objects = (PT, CTR, ODD)
    fix = _fixes(policy_default, *objects)[("gpu-ctr-04", "label-ignored-sandbox-disabled")]
    # (trial 204: with the vm-passthrough default, "or drop the label" made it a vm-passthrough node once sandbox
    # workloads were on; the label command is the one way to keep it on containers)
    assert fix == (
        "kubectl label node gpu-ctr-04 --overwrite nvidia.com/gpu.workload.config=container  # the workload it should"
        " run (container, vm-passthrough or vm-vgpu)"
    )
    default_fix = _fixes("container", *objects)[("gpu-ctr-04", "label-ignored-sandbox-disabled")]
    assert default_fix.endswith("; or drop the label: kubectl label node gpu-ctr-04 nvidia.com/gpu.workload.config-")


def test_a_container_default_changes_nothing_else() -> None:
    fix = _fixes("container", PT, CTR)[("gpu-pt-11", "label-ignored-sandbox-disabled")]
    assert fix == (
        f"{FOR_VMS}{PATCH} ({CLUSTER_WIDE}). If it is meant for containers, drop the label: kubectl label node gpu-pt-11"
        " nvidia.com/gpu.workload.config-"
    )


def test_an_unknown_label_meant_for_vms_is_written_right_and_sandbox_workloads_enabled() -> None:
    """Trial 102: vm_passthrough under sandbox workloads off was told only to be relabelled vm-passthrough, which the
    operator still ignores while they are off; and deploy-labels-match-workload said that fixing the typo makes the
    operator write that workload's deploy labels, untrue while they are off. The label is written right and sandbox
    workloads turned on in one command (the node relabelled first, so that the selector leaves it alone)."""
    typo = _node("gpu-vm-05", {"nvidia.com/gpu.workload.config": "vm_passthrough"}, {"nvidia.com/gpu": "8"})
    fixes = _fixes("vm-passthrough", typo, CTR)
    assert fixes[("gpu-vm-05", "label-ignored-sandbox-disabled")].startswith(
        "First decide what the node is for. If it should run VMs, write the VM workload it should run, read once sandbox"
        " workloads are on, and turn them on: kubectl label node gpu-vm-05 --overwrite"
        f" nvidia.com/gpu.workload.config=vm-passthrough && {LABEL_THEM} && {PATCH} (the label first keeps"
    )
    deploy = fixes[("gpu-vm-05", "deploy-labels-match-workload")]
    assert deploy.startswith(
        "First decide what the node is for: ClusterPolicy cluster-policy has spec.sandboxWorkloads.enabled=false, so the"
        " operator ignores nvidia.com/gpu.workload.config=vm_passthrough, a value it does not know either"
    )
    assert "the operator writes that workload's deploy labels itself" not in deploy


def test_kubevirts_external_permits_fix_keeps_the_container_nodes_too() -> None:
    """Trial 108: with sandbox workloads off and defaultWorkload vm-passthrough, KubeVirt's
    external-permits-have-a-provider fix patched them on alone, turning the dump's unlabelled container node (a
    production pod on it) into a passthrough node; it labels such nodes container first, as the node rule's does."""
    permit = {"pciVendorSelector": "10DE:2236", "resourceName": "nvidia.com/GA102GL_A10", "externalResourceProvider": True}
    kubevirt = kubevirt_cr({"pciHostDevices": [permit]})
    policy = {
        "apiVersion": "nvidia.com/v1",
        "kind": "ClusterPolicy",
        "metadata": {"name": "cluster-policy"},
        "spec": {"sandboxWorkloads": {"enabled": False, "defaultWorkload": "vm-passthrough"}},
    }
    text = "\n---\n".join(yaml.safe_dump(o) for o in (policy, kubevirt, CTR, CPU))
    report = evaluate(parse_text(text, "chat.yaml"), _pack())
    [fix] = [r.remediation for o in report.objects for r in o.results if r.rule == "external-permits-have-a-provider"]
    both = """'{"spec":{"sandboxWorkloads":{"enabled":true},"sandboxDevicePlugin":{"enabled":true}}}'"""
    # (trial 245 #1: the choice is said first, each command under its condition; the label command still comes first,
    # chained to the patch)
    assert fix.startswith("First decide what is to advertise nvidia.com/GA102GL_A10. If the GPU Operator's"), fix
    assert (
        "The label command first keeps the GPU nodes without a valid workload label on containers: with sandbox"
        " workloads on, ClusterPolicy cluster-policy spec.sandboxWorkloads.defaultWorkload=vm-passthrough makes each of"
        f" them a vm-passthrough node, and the pods on them lose their GPUs: {LABEL_THEM} && kubectl patch"
        f" clusterpolicies.nvidia.com cluster-policy --type merge -p {both}. If NVIDIA's kubevirt-gpu-device-plugin is,"
    ) in fix, fix


def test_a_typo_in_the_workload_label_key_is_offered_before_the_loops_that_convert_the_node() -> None:
    """Trial 110: a passthrough node whose label key read nvidia.com/gpu.workload-config (a dash for a dot), its
    sandbox operands' deploy labels on it and a VM running there, was given only the loops that strip them and label
    it for containers (the driver included): the key typo, which the node's other findings name, comes first."""
    node = _node(
        "worker-gpu-p0",
        {
            "nvidia.com/gpu.workload-config": "vm-passthrough",
            "nvidia.com/gpu.deploy.sandbox-device-plugin": "true",
            "nvidia.com/gpu.deploy.vfio-manager": "true",
            "nvidia.com/gpu.deploy.sandbox-validator": "true",
        },
        {"nvidia.com/GA102GL_A10": "1"},
    )
    policy = cluster_policy({"sandboxWorkloads": {"enabled": True}}, "gpu-cluster-policy", "nvidia-gpu-operator")
    report = evaluate(parse_text("\n---\n".join(yaml.safe_dump(o) for o in (policy, node)), "oc.yaml"), _pack())
    [fix] = [r.remediation for o in report.objects for r in o.results if r.rule == "deploy-labels-match-workload"]
    assert fix.startswith(
        "First see whether the workload label's key is a typo: the node carries nvidia.com/gpu.workload-config="
        "vm-passthrough, a key the operator does not read, so it prepares the node as container. If it is, write it"
        " right and the operator writes that workload's deploy labels itself: kubectl label node worker-gpu-p0"
        " --overwrite nvidia.com/gpu.workload.config=vm-passthrough nvidia.com/gpu.workload-config-. Only if the node"
        " is meant for container:"
    ), fix


def test_a_vm_operand_pods_fix_with_sandbox_workloads_off_keeps_the_container_nodes_too() -> None:
    """Trial 110: with sandbox workloads off, a VM operand pod's message said it was "left over" and to be deleted,
    while the operator deletes those DaemonSets itself; and its fix turned sandbox workloads on alone, which with
    defaultWorkload vm-passthrough turns the unlabelled container nodes into VM nodes."""
    policy = cluster_policy({"sandboxWorkloads": {"enabled": False, "defaultWorkload": "vm-passthrough"}})
    pod = operand_pod("nvidia-vfio-manager-q8m4d", "nvidia-vfio-manager", "gpu-pt-11")
    text = "\n---\n".join(yaml.safe_dump(o) for o in (policy, PT, CTR, pod))
    report = evaluate(parse_text(text, "chat.yaml"), _pack())
    [result] = [r for o in report.objects for r in o.results if r.rule == "operand-pod-matches-node-workload"]
    assert result.result == "fail"
    assert "left over" not in result.message and "delete the pod" not in result.message
    assert "with sandbox workloads off the operator deletes the DaemonSets of its VM operands, this pod's with it" in (
        result.message
    )
    assert f"If the node is meant for VMs, enable them and delete nothing: {LABEL_THEM} && {PATCH}" in result.remediation


def _unreconciled(name: str) -> dict:
    """A GPU node NFD marks NVIDIA that the operator has not labelled yet (no nvidia.com/gpu.present, no deploy
    labels), advertising nvidia.com/gpu from a device plugin of its own."""
    node = _node(name, {}, {"nvidia.com/gpu": "1"})
    del node["metadata"]["labels"]["nvidia.com/gpu.present"]
    return node


def test_a_gpu_node_the_operator_has_not_labelled_yet_is_labelled_container_by_name() -> None:
    """Trial 113: gpu-plain1, NFD's pci-10de label but no nvidia.com/gpu.present yet, running a container GPU pod,
    was left out of the selector on nvidia.com/gpu.present: the fix patched sandbox workloads on alone, and at its
    next reconcile the operator gives such a node the default workload (vm-passthrough). It is labelled by name."""
    plain = _unreconciled("gpu-plain1")
    fixes = _fixes("vm-passthrough", PT, plain)
    by_name = "kubectl label nodes --overwrite gpu-plain1 nvidia.com/gpu.workload.config=container"
    assert fixes[("gpu-pt-11", "label-ignored-sandbox-disabled")].startswith(f"{FOR_VMS}{by_name} && {PATCH} (the label")
    assert "(gpu-plain1 in the dump)" in fixes[("gpu-pt-11", "label-ignored-sandbox-disabled")]
    # beside a reconciled unlabelled node, both commands run before the patch
    both = _fixes("vm-passthrough", PT, plain, CTR)[("gpu-pt-11", "resource-class-matches-workload")]
    assert (
        f"If it is meant for the vm-passthrough workload its label asks and its resources are of, turn them on: {LABEL_THEM}"
        in both
    )
    assert f"{LABEL_THEM} && {by_name} && {PATCH} (the label" in both, both


def test_many_unreconciled_gpu_nodes_are_labelled_by_nfds_label() -> None:
    many = [_unreconciled(f"gpu-new-{i:03d}") for i in range(8)]
    fix = _fixes("vm-passthrough", PT, *many)[("gpu-pt-11", "label-ignored-sandbox-disabled")]
    nfd_selector = f"{NFD}=true,nvidia.com/gpu.workload.config notin (container,vm-passthrough,vm-vgpu)"
    assert fix.startswith(
        f"{FOR_VMS}kubectl label nodes --overwrite -l '{nfd_selector}' nvidia.com/gpu.workload.config=container && {PATCH}"
    ), fix
    assert "gpu-new-000" not in fix


def test_the_pod_and_kubevirt_fixes_label_an_unreconciled_node_too() -> None:
    policy = cluster_policy({"sandboxWorkloads": {"enabled": False, "defaultWorkload": "vm-passthrough"}})
    pod = operand_pod("nvidia-vfio-manager-q8m4d", "nvidia-vfio-manager", "gpu-pt-11")
    text = "\n---\n".join(yaml.safe_dump(o) for o in (policy, PT, _unreconciled("gpu-plain1"), pod))
    report = evaluate(parse_text(text, "chat.yaml"), _pack())
    [fix] = [r.remediation for o in report.objects for r in o.results if r.rule == "operand-pod-matches-node-workload"]
    assert (
        "enable them and delete nothing: kubectl label nodes --overwrite gpu-plain1"
        f" nvidia.com/gpu.workload.config=container && {PATCH}"
    ) in fix, fix


def test_the_container_loops_of_a_vm_node_ignored_are_said_to_be_the_container_choice() -> None:
    """Trial 113: after "If it should run VMs ... If it should run containers, remove that label", the by-hand loops
    that label the container operands read as part of both choices."""
    fix = _fixes("vm-passthrough", PT)[("gpu-pt-11", "deploy-labels-match-workload")]
    assert (
        f"If it should run containers, {CONTAINER_PT}: kubectl label node gpu-pt-11 --overwrite"
        " nvidia.com/gpu.workload.config=container."
    ) in fix
    assert (
        "For containers, the operator writes these labels itself when it reconciles the node without that label, so"
        " first check it runs:"
    ) in fix
    assert "To make it a container node by hand instead, delete the deploy labels" in fix
    assert "To fix the node by hand" not in fix


def test_an_unreconciled_node_serving_a_gpu_is_not_said_to_get_no_gpu_software() -> None:
    policy = cluster_policy({"sandboxWorkloads": {"enabled": False, "defaultWorkload": "vm-passthrough"}})
    dump = parse_text("\n---\n".join(yaml.safe_dump(o) for o in (policy, _unreconciled("gpu-plain1"))), "chat.yaml")
    [result] = [r for o in evaluate(dump, _pack()).objects for r in o.results if r.rule == "gpu-present-labelled"]
    assert result.result == "fail"
    assert "gets no GPU software" not in result.message
    assert result.message.endswith(
        "so no operand DaemonSet (driver, device plugin, validator) selects it, and the nvidia.com/gpu it advertises in"
        " status.allocatable was registered by a device plugin the operator did not deploy there (installed by hand or"
        " by another chart)."
    ), result.message


def test_the_clusterpolicys_own_finding_labels_the_unlabelled_nodes_first() -> None:
    """Trial 114: with sandbox workloads off beside VM-labelled GPU nodes, the ClusterPolicy is the one object to
    change: its finding's fix turns them on, labelling the unlabelled GPU nodes container first (defaultWorkload
    vm-passthrough), those the operator has labelled by selector and one it has not yet by name."""
    fix = _fixes("vm-passthrough", PT, CTR, _unreconciled("gpu-plain1"))[
        ("cluster-policy", "sandbox-workloads-enabled-for-vm-nodes")
    ]
    assert fix.startswith(
        f"{LABEL_THEM} && kubectl label nodes --overwrite gpu-plain1 nvidia.com/gpu.workload.config=container && {PATCH}"
        f"{THOSE_FOR_VMS_PT}; the label command first keeps the GPU nodes without a valid workload label on containers"
    ), fix
    # a container default changes no node: the patch alone
    assert _fixes("container", PT, CTR)[("cluster-policy", "sandbox-workloads-enabled-for-vm-nodes")] == (
        f"{PATCH}{THOSE_FOR_VMS}"
    )


def test_many_unreconciled_nodes_marked_by_nfds_class_label_are_labelled_by_that_label() -> None:
    """Trial 116: past five, six nodes NFD marked feature.node.kubernetes.io/pci-0302_10de.present (NFD's own
    default, class and vendor) were "labelled" by a selector on pci-10de, which matched none of them: each NFD label
    the nodes carry gets its own selector."""
    many = []
    for i in range(6):
        node = _unreconciled(f"gpu-new-{i:03d}")
        del node["metadata"]["labels"][NFD]
        node["metadata"]["labels"]["feature.node.kubernetes.io/pci-0302_10de.present"] = "true"
        many.append(node)
    fix = _fixes("vm-passthrough", PT, *many, _unreconciled("gpu-other"))[("gpu-pt-11", "label-ignored-sandbox-disabled")]
    notin = "nvidia.com/gpu.workload.config notin (container,vm-passthrough,vm-vgpu)"
    assert fix.startswith(
        f"{FOR_VMS}kubectl label nodes --overwrite -l '{NFD}=true,{notin}' nvidia.com/gpu.workload.config=container && kubectl"
        f" label nodes --overwrite -l 'feature.node.kubernetes.io/pci-0302_10de.present=true,{notin}'"
        f" nvidia.com/gpu.workload.config=container && {PATCH}"
    ), fix
    assert "pci-0300_10de" not in fix


def test_container_gpu_pods_on_a_vm_labelled_node_are_moved_first() -> None:
    """Trial 117: with sandbox workloads off, a node labelled vm-passthrough serves containers (the label is not
    read), and a pod ran there with its GPUs; the fixes turned sandbox workloads on, which prepares that node for VMs
    and takes the pod's GPUs. They name the pod and say to move it first, or to keep the node on containers. An ignored
    ClusterPolicy (status.state ignored: the operator reconciles another) is not judged."""
    node = _node(
        "gpu-a",
        {"nvidia.com/gpu.workload.config": "vm-passthrough", "nvidia.com/gpu.deploy.device-plugin": "true"},
        {"nvidia.com/gpu": "4"},
    )
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "train-0", "namespace": "ml"},
        "spec": {"nodeName": "gpu-a", "containers": [{"name": "t", "resources": {"limits": {"nvidia.com/gpu": "4"}}}]},
        "status": {"phase": "Running"},
    }
    ignored = cluster_policy({"sandboxWorkloads": {"enabled": False}}, "leftover")
    ignored["status"] = {"state": "ignored"}
    policy = cluster_policy({"sandboxWorkloads": {"enabled": False, "defaultWorkload": "container"}})
    text = "\n---\n".join(yaml.safe_dump(o) for o in (policy, ignored, node, pod))
    report = evaluate(parse_text(text, "chat.yaml"), _pack())
    found = {(o.ref.name, r.rule): r for o in report.objects for r in o.results}
    cp = found[("cluster-policy", "sandbox-workloads-enabled-for-vm-nodes")]
    assert cp.result == "warn"
    assert cp.message.endswith(
        "Container GPU pods run on them now (ml/train-0): with sandbox workloads on, the operator prepares those nodes for"
        " VMs and takes their GPUs from the pods."
    ), cp.message
    # (trial 210: gpu-a serves containers, its device plugin and nvidia.com/gpu say: the runnable command reads, the
    # patch and the label are said for each case)
    assert cp.remediation == (
        "kubectl get nodes -l 'nvidia.com/gpu.workload.config in (vm-passthrough,vm-vgpu)' -o"
        " custom-columns=NAME:.metadata.name,ALLOCATABLE:.status.allocatable  # serving containers now: gpu-a (by"
        " container GPU resources advertised or nvidia.com/gpu.deploy.device-plugin=true: while sandbox workloads are off,"
        " the operator runs its device plugin on a VM-labelled node it manages); for one meant for containers, change"
        " its label first, so that it stays a container node (kubectl label node <node> nvidia.com/gpu.workload.config-);"
        " for those meant for VMs, move their GPU pods off (kubectl drain <node> --ignore-daemonsets"
        # (trial 240 #8: train-0 has no controller: drain refuses it without --force, as the node's fix says)
        " --delete-emptydir-data; a pod no controller owns (ml/train-0) drain evicts only with --force, and nothing makes it"
        f" again: create it anew on a container node), then turn sandbox workloads on: {PATCH}"
        " (gpu-clusterpolicy/sandbox-operands-enabled then says which VM operands to enable), and once the operator has"
        " prepared a drained node, kubectl uncordon <node> (drain cordons it: no VM is placed on it until then)"
    ), cp.remediation
    # (trial 209: the node serves containers, as its nvidia.com/gpu says: its label comes first, the pods named for
    # the patch's case)
    node_fix = found[("gpu-a", "label-ignored-sandbox-disabled")].remediation
    assert node_fix == (
        "kubectl label node gpu-a nvidia.com/gpu.workload.config-  # it serves containers now (it advertises"
        " nvidia.com/gpu), as the operator runs it while sandbox workloads are off, so the VM label is the likelier slip;"
        " if it is meant for VMs instead, move its GPU workloads off it (ml/train-0: kubectl drain gpu-a"
        " --ignore-daemonsets --delete-emptydir-data, and once the operator has prepared it for VMs, kubectl uncordon"
        " gpu-a (drain cordons it, and no VM is placed on it until then); ml/train-0, which no controller owns, drain evicts"
        " only with --force, and nothing makes it again: create it anew on a container node) and turn sandbox workloads"
        f" on ({PATCH}), which prepares every"
        " VM-labelled node for its VM workload"
    ), node_fix
    assert found[("leftover", "sandbox-workloads-enabled-for-vm-nodes")].result == "skip"


def test_a_container_node_the_default_workload_would_convert_is_labelled_before_anything_is_deleted() -> None:
    """Regression (trial 192): a node without a workload label serving GPU pods as a container node, which the
    ClusterPolicy's defaultWorkload=vm-passthrough makes a VM node, was given a loop deleting its driver and device
    plugin labels as the fix. One label keeps it as it is: that comes first; the loop only for a node meant for VMs."""
    from pathlib import Path

    fixture = Path(__file__).resolve().parent.parent / "policies/gpu-operator/tests"
    text = (fixture / "container_node_the_default_workload_would_convert.yaml").read_text()
    first = next(yaml.safe_load_all(text))  # (the fixture's first test: the VM default)
    dump = parse_text("\n---\n".join(yaml.safe_dump(o) for o in first["objects"]), "t.yaml")
    [fix] = [
        r.remediation
        for o in evaluate(dump, _pack()).objects
        if o.ref.name == "gpu-y"
        for r in o.results
        if r.rule == "deploy-labels-match-workload"
    ]
    keep = "kubectl label node gpu-y nvidia.com/gpu.workload.config=container."
    assert fix.startswith(
        "First see whether the default workload is the mistake for this node: it carries no nvidia.com/gpu.workload.config"
        " label and advertises container GPU resources (nvidia.com/gpu), but ClusterPolicy cluster-policy"
        " spec.sandboxWorkloads.defaultWorkload=vm-passthrough makes it a vm-passthrough node. If it should stay"
        f" container, label it so and change nothing else: {keep} Only if it is meant for vm-passthrough:"
    ), fix
    assert fix.index(keep) < fix.index("do kubectl label node gpu-y $l-; done")


def test_the_messages_say_to_label_a_node_container_where_the_default_workload_is_a_vm_one() -> None:
    """Regression (trial 208): with defaultWorkload vm-passthrough the fixes labelled a node container, but their
    messages still said "or remove the label" (and the ClusterPolicy's "or drop those labels"): removed, the label gives
    the node the default workload once sandbox workloads are on."""
    messages = _messages("vm-passthrough", PT, ODD)
    assert messages[("gpu-pt-11", "label-ignored-sandbox-disabled")].endswith(
        "Enable sandbox workloads in ClusterPolicy cluster-policy if the node should run VMs (which also need KubeVirt: the"
        " dump shows no KubeVirt CR, VM or VMI), or label it container (without a workload label,"
        " spec.sandboxWorkloads.defaultWorkload=vm-passthrough makes it a vm-passthrough node once sandbox workloads are on)."
    )
    assert messages[("gpu-ctr-04", "label-ignored-sandbox-disabled")].endswith(
        "Write the workload it should run (for VMs, and enable sandbox workloads)."
    )
    assert (
        "Turn sandbox workloads on for VMs (which also need KubeVirt: the dump shows no KubeVirt CR, VM or VMI), or"
        " relabel those meant for containers nvidia.com/gpu.workload.config=container (its"
        " defaultWorkload=vm-passthrough makes a node without a workload label a vm-passthrough node once they are on)"
    ) in messages[("cluster-policy", "sandbox-workloads-enabled-for-vm-nodes")]
    # a container default: removing the label keeps a node on containers
    plain = _messages("container", PT, ODD)
    assert plain[("gpu-pt-11", "label-ignored-sandbox-disabled")].endswith(
        "if the node should run VMs (which also need KubeVirt: the dump shows no KubeVirt CR, VM or VMI), or remove the label."
    )
    assert "or drop those labels" in plain[("cluster-policy", "sandbox-workloads-enabled-for-vm-nodes")]


def test_a_drained_node_is_uncordoned_once_the_operator_has_prepared_it_for_vms() -> None:
    """Trial 211: the fixes drained a VM-labelled node of its container GPU pods before sandbox workloads went on, and
    said nothing more; drain cordons the node (spec.unschedulable), its operands (DaemonSet pods) land there still,
    and no VM's virt-launcher pod is ever placed on it. Each drain is followed by its uncordon, once the operator has
    prepared the node."""
    node = _node("gpu-b", {"nvidia.com/gpu.workload.config": "vm-passthrough"}, {"nvidia.com/GA102GL_A10": "2"})
    owner = [{"apiVersion": "batch/v1", "kind": "Job", "name": "train", "uid": "u1", "controller": True}]
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "train-1", "namespace": "ml", "ownerReferences": owner},
        "spec": {"nodeName": "gpu-b", "containers": [{"name": "t", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]},
        "status": {"phase": "Running"},
    }
    fixes = _fixes("container", node, pod)
    node_fix = fixes[("gpu-b", "label-ignored-sandbox-disabled")]
    assert node_fix.startswith(
        "First move its container GPU pods (ml/train-1) off it (kubectl drain gpu-b --ignore-daemonsets"
        " --delete-emptydir-data, and once the operator has prepared it for VMs, kubectl uncordon gpu-b (drain cordons"
        " it, and no VM is placed on it until then)), or keep it on containers"
    ), node_fix
    cp_fix = fixes[("cluster-policy", "sandbox-workloads-enabled-for-vm-nodes")]
    assert cp_fix.startswith(
        "First move the container GPU pods off the VM-labelled nodes they run on (kubectl drain <node> --ignore-daemonsets"
        " --delete-emptydir-data, and kubectl uncordon <node> once the operator has prepared it for VMs: drain cordons"
        " it, and no VM is placed on it until then)"
    ), cp_fix


def test_a_drain_says_what_it_does_not_do_of_a_bare_pod_and_a_cordoned_node() -> None:
    """Trial 212: kubectl drain refuses a pod no controller owns without --force, and with it deletes the pod for good;
    a node cordoned already was told to be uncordoned once prepared, undoing its admin's cordon."""
    node = _node("gpu-b", {"nvidia.com/gpu.workload.config": "vm-passthrough"}, {"nvidia.com/GA102GL_A10": "2"})
    node["spec"] = {"unschedulable": True}
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "train-1", "namespace": "ml"},
        "spec": {"nodeName": "gpu-b", "containers": [{"name": "t", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]},
        "status": {"phase": "Running"},
    }
    fixes = _fixes("container", node, pod)
    node_fix = fixes[("gpu-b", "label-ignored-sandbox-disabled")]
    assert node_fix.startswith(
        "First move its container GPU pods (ml/train-1) off it (kubectl drain gpu-b --ignore-daemonsets"
        " --delete-emptydir-data; the node is cordoned already (spec.unschedulable): no VM is placed on it until it is"
        " uncordoned; ml/train-1, which no controller owns, drain evicts only with --force, and nothing makes it again:"
        " create it anew on a container node), or keep it on containers"
    ), node_fix
    # (trial 241 #1: the deploy labels' fix for a node meant for VMs said "change nothing on the node", the pod unsaid)
    deploy_fix = fixes[("gpu-b", "deploy-labels-match-workload")]
    assert (
        " If it should run VMs, first move its container GPU pods (ml/train-1) off it (kubectl drain gpu-b"
        " --ignore-daemonsets --delete-emptydir-data; the node is cordoned already (spec.unschedulable): no VM is placed"
        " on it until it is uncordoned; ml/train-1, which no controller owns, drain evicts only with --force, and nothing"
        " makes it again: create it anew on a container node), then enable sandbox workloads and change nothing else on"
        " the node: kubectl patch clusterpolicies.nvidia.com cluster-policy --type merge"
    ) in deploy_fix, deploy_fix
    # (trial 240 #8: the ClusterPolicy's drain said neither, as the node's fix does)
    cp_fix = fixes[("cluster-policy", "sandbox-workloads-enabled-for-vm-nodes")]
    assert cp_fix.startswith(
        "First move the container GPU pods off the VM-labelled nodes they run on (kubectl drain <node> --ignore-daemonsets"
        " --delete-emptydir-data, and kubectl uncordon <node> once the operator has prepared it for VMs: drain cordons"
        " it, and no VM is placed on it until then; a pod no controller owns (ml/train-1) drain evicts only with --force,"
        " and nothing makes it again: create it anew on a container node), or keep those nodes on containers"
    ), cp_fix


def test_a_nodes_fix_that_turns_sandbox_workloads_on_says_it_is_cluster_wide() -> None:
    """Trial 239 #1: with sandbox workloads off, the first command of a VM node's high finding (resource-class-matches-
    workload) turned them on, with no word that this prepares every VM-labelled node for VMs: another node labelled
    for VMs by mistake ran a container GPU pod that would lose its GPU, which only the ClusterPolicy's finding, a
    medium one listed last, said. The fixes that turn them on for one node say so, and where that finding names the
    pods."""
    deploy = {"nvidia.com/gpu.deploy.vfio-manager": "true", "nvidia.com/gpu.deploy.sandbox-device-plugin": "true"}
    pt = _node("gpu-pt-11", {"nvidia.com/gpu.workload.config": "vm-passthrough", **deploy}, {"nvidia.com/GA102GL_A10": "2"})
    fixes = _fixes("container", pt)
    assert fixes[("gpu-pt-11", "resource-class-matches-workload")] == (
        "First decide what the node is for: ClusterPolicy cluster-policy has sandbox workloads off, so the operator"
        " ignores its label. If it is meant for the vm-passthrough workload its label asks and its resources are of,"
        f" turn them on: {PATCH} ({CLUSTER_WIDE}). If it is meant for containers instead, remove the label and the"
        " operator relabels the node: kubectl label node gpu-pt-11 nvidia.com/gpu.workload.config-"
    )
    assert fixes[("gpu-pt-11", "deploy-labels-match-workload")].startswith(
        "First decide what the node is for: ClusterPolicy cluster-policy has spec.sandboxWorkloads.enabled=false, so the"
        " operator ignores nvidia.com/gpu.workload.config=vm-passthrough (gpu-nodes/label-ignored-sandbox-disabled). If"
        f" it should run VMs, enable sandbox workloads and change nothing on the node: {PATCH} ({CLUSTER_WIDE}). If it"
        " should run containers, remove that label: kubectl label node gpu-pt-11 nvidia.com/gpu.workload.config-. "
    )
    # the finding it points to names the container GPU pods, as it did
    assert "so no VM gets their GPUs" in _messages("container", pt)[("cluster-policy", "sandbox-workloads-enabled-for-vm-nodes")]
    # a VM operand pod's fix too
    policy = cluster_policy({"sandboxWorkloads": {"enabled": False}})
    pod = operand_pod("nvidia-vfio-manager-q8m4d", "nvidia-vfio-manager", "gpu-pt-11")
    report = evaluate(parse_text("\n---\n".join(yaml.safe_dump(o) for o in (policy, pt, pod)), "chat.yaml"), _pack())
    [result] = [r for o in report.objects for r in o.results if r.rule == "operand-pod-matches-node-workload"]
    assert f"If the node is meant for VMs, enable them and delete nothing: {PATCH}; {CLUSTER_WIDE}. If it is meant" in (
        result.remediation
    )


def test_a_fix_pasted_whole_runs_no_cluster_wide_patch_and_no_labelling_by_hand() -> None:
    """Trial 240 #1, #4: pasted whole (the table's and chat's block, chat's one kept command), a VM node's fix ran the
    ClusterPolicy patch first, and a container node's fix ran the loops that write its deploy labels by hand before the
    log said whether the operator relabels it. Each such command stands under its condition, written commented out;
    what runs reads (kubectl get, logs)."""
    from rules.render.chat import fix_lines

    deploy = {"nvidia.com/gpu.deploy.vfio-manager": "true", "nvidia.com/gpu.deploy.sandbox-device-plugin": "true"}
    pt = _node("gpu-pt-11", {"nvidia.com/gpu.workload.config": "vm-passthrough", **deploy}, {"nvidia.com/GA102GL_A10": "2"})
    fixes = _fixes("container", pt)
    for rule in ("label-ignored-sandbox-disabled", "resource-class-matches-workload", "deploy-labels-match-workload"):
        lines = fix_lines(fixes[("gpu-pt-11", rule)])
        assert f"# {PATCH}" in lines, (rule, lines)
        assert [line for line in lines if not line.startswith("#")] == [], (rule, lines)
        # (trial 241 #5: the last command kept the sentence's stop, "config-.", which kubectl would not read)
        assert not any(line.startswith("# kubectl") and line.endswith(".") for line in lines), (rule, lines)
    # a container node without its deploy labels (sandbox workloads on): the log is read, the loops are not run
    policy = cluster_policy({"sandboxWorkloads": {"enabled": True}})
    ctr = _node("gpu-ctr-03", {"nvidia.com/gpu.workload.config": "container"}, {"nvidia.com/gpu": "8"})
    report = evaluate(parse_text("\n---\n".join(yaml.safe_dump(o) for o in (policy, ctr)), "chat.yaml"), _pack())
    [fix] = [r.remediation for o in report.objects for r in o.results if r.rule == "deploy-labels-match-workload"]
    lines = fix_lines(fix)
    running = [line for line in lines if not line.startswith("#")]
    assert len(running) == 1 and running[0].startswith("kubectl logs "), lines
    assert any(line.startswith("# If it does not, to fix the node by hand, delete the deploy labels") for line in lines), lines
    assert any(line.startswith("# for l in nvidia.com/gpu.deploy.driver ") for line in lines), lines
