"""Trial 100: the fix that turns sandbox workloads on must not turn the container nodes into VM nodes.

Once spec.sandboxWorkloads.enabled is true, the GPU Operator gives every GPU node without a valid
nvidia.com/gpu.workload.config label the ClusterPolicy's spec.sandboxWorkloads.defaultWorkload
(NVIDIA/gpu-operator@v25.10.1:controllers/state_manager.go, getWorkloadConfig and init). With a default of
vm-passthrough, the fix "kubectl patch ... enabled: true" given for a node labelled vm-passthrough took the
nvidia.com/gpu of every unlabelled container node. The fix labels the dump's unlabelled GPU nodes container in
the same command, and says why; with none in the dump, it says how to find them first.
"""

from __future__ import annotations

from functools import cache

import yaml

from rules.evaluate import evaluate
from rules.loader import PolicySet, load_policies
from rules.reader import parse_text

PATCH = (
    "kubectl patch clusterpolicies.nvidia.com cluster-policy --type merge -p "
    """'{"spec":{"sandboxWorkloads":{"enabled":true}}}'"""
)
SELECTOR = "kubectl get nodes -l 'nvidia.com/gpu.present=true,!nvidia.com/gpu.workload.config'"


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
    policy = {
        "apiVersion": "nvidia.com/v1",
        "kind": "ClusterPolicy",
        "metadata": {"name": "cluster-policy"},
        "spec": {"sandboxWorkloads": {"enabled": False, "defaultWorkload": default}},
    }
    dump = parse_text("\n---\n".join(yaml.safe_dump(o) for o in (policy, *nodes)), "chat.yaml")
    report = evaluate(dump, _pack())
    return {(o.ref.name, r.rule): r.remediation for o in report.objects for r in o.results if r.result in ("fail", "warn")}


PT = _node("gpu-pt-11", {"nvidia.com/gpu.workload.config": "vm-passthrough"}, {"nvidia.com/GA102GL_A10": "2"})
CTR = _node("gpu-ctr-03", {}, {"nvidia.com/gpu": "8"})
ODD = _node("gpu-ctr-04", {"nvidia.com/gpu.workload.config": "containers"}, {"nvidia.com/gpu": "8"})
CPU = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "cpu-01", "labels": {}}, "status": {"capacity": {"cpu": "8"}}}


def test_the_dumps_unlabelled_gpu_nodes_are_labelled_container_before_sandbox_workloads_go_on() -> None:
    fixes = _fixes("vm-passthrough", PT, CTR, ODD, CPU)
    fix = fixes[("gpu-pt-11", "label-ignored-sandbox-disabled")]
    # the command itself keeps them on containers (an invalid label is overwritten: the operator ignores it too);
    # no CPU node is named (the operator gives no workload to a node without nvidia.com/gpu.present=true)
    assert fix.startswith(
        f"kubectl label node --overwrite gpu-ctr-03 gpu-ctr-04 nvidia.com/gpu.workload.config=container && {PATCH}  # "
        "the label first keeps gpu-ctr-03 gpu-ctr-04 on containers: with sandbox workloads on, ClusterPolicy"
        " cluster-policy spec.sandboxWorkloads.defaultWorkload=vm-passthrough makes every GPU node without a valid"
        f" workload label a vm-passthrough node, and {SELECTOR} lists any other to label; or drop the label: kubectl"
        " label node gpu-pt-11 nvidia.com/gpu.workload.config-"
    ), fix


def test_with_no_unlabelled_gpu_node_in_the_dump_the_fix_says_to_label_them_first() -> None:
    fix = _fixes("vm-vgpu", PT)[("gpu-pt-11", "label-ignored-sandbox-disabled")]
    assert fix.startswith(
        f"{PATCH}  # first label nvidia.com/gpu.workload.config=container each GPU node meant for containers that has"
        f" no workload label, which {SELECTOR} lists: with sandbox workloads on, ClusterPolicy cluster-policy"
        " spec.sandboxWorkloads.defaultWorkload=vm-vgpu makes each a vm-vgpu node; or drop the label"
    ), fix


def test_the_judged_node_is_not_among_those_it_labels_container() -> None:
    """gpu-ctr-04's own label (containers) is invalid: its fix is about that label, and names only gpu-ctr-03."""
    fix = _fixes("vm-passthrough", PT, CTR, ODD)[("gpu-ctr-04", "label-ignored-sandbox-disabled")]
    assert fix.startswith(f"kubectl label node --overwrite gpu-ctr-03 nvidia.com/gpu.workload.config=container && {PATCH}"), fix


def test_a_container_default_changes_nothing_else() -> None:
    fix = _fixes("container", PT, CTR)[("gpu-pt-11", "label-ignored-sandbox-disabled")]
    assert fix == f"{PATCH}  # or drop the label: kubectl label node gpu-pt-11 nvidia.com/gpu.workload.config-"
