"""Regenerate the hand-built lab (``examples/lab/``) and its other shapes (``tests/data/lab/``).

Not run by the tests; run ``.venv/bin/python tests/data/lab/generate.py`` after editing the lab below. One
definition feeds every output, written the way the real tools write them (kubectl's YAML, ``kubectl describe
nodes`` text and the must-gather files come from ``tests/data/must-gather/generate_lab.py``):

- ``examples/lab/nodes.yaml``: ``kubectl get nodes -o yaml`` of the lab as an operator builds it by hand: the
  workload label set with ``kubectl label node``, the extended resources patched into ``status.capacity`` (the
  kubelet copies them to allocatable), no GPU Operator, no NFD, no deploy labels. Three good nodes, one node
  without a GPU, and seven nodes each made to disagree in one way.
- ``examples/lab/workloads.yaml``: the Pods the lab runs, as manifests (no status): one per workload, each
  pinned to its node, and two cross-requests that ask a passthrough node for another workload's resource.
- ``tests/data/lab/nodes.describe.txt``: ``kubectl describe nodes`` of the same nodes.
- ``tests/data/lab/managed.yaml``: the same cluster run by the GPU Operator: a ClusterPolicy with sandbox
  workloads on, NFD's PCI label, ``nvidia.com/gpu.present`` and the deploy labels the operator writes for each
  node's effective workload, plus the workloads.
- ``tests/data/lab/must-gather/``: ``gpu_nodes.labels``, ``gpu_nodes.descr`` and ``cluster_policy.yaml`` of the
  managed cluster, as NVIDIA's must-gather writes them.
"""

from __future__ import annotations

import importlib.util
import json
import uuid
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
EXAMPLES = ROOT / "examples" / "lab"

_spec = importlib.util.spec_from_file_location("generate_lab", HERE.parent / "must-gather" / "generate_lab.py")
assert _spec and _spec.loader
mg = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mg)

WORKLOAD = "nvidia.com/gpu.workload.config"
VGPU_CONFIG = "nvidia.com/vgpu.config"

# name -> (labels the operator set by hand, extended resources patched in, what it shows)
NODES: dict[str, tuple[dict[str, str], dict[str, str], str]] = {
    "lab-cpu-1": ({}, {}, "no GPU: the GPU rules do not apply"),
    "lab-container-1": ({WORKLOAD: "container"}, {"nvidia.com/gpu": "2"}, "good container node"),
    "lab-passthrough-1": ({WORKLOAD: "vm-passthrough"}, {"nvidia.com/GA102GL_A10": "1"}, "good passthrough node"),
    "lab-vgpu-1": (
        {WORKLOAD: "vm-vgpu", VGPU_CONFIG: "A10-12Q"},
        {"nvidia.com/NVIDIA_A10-12Q": "4"},
        "good vGPU node: 2 A10 x 2 A10-12Q",
    ),
    "lab-passthrough-advertising-gpu": (
        {WORKLOAD: "vm-passthrough"},
        {"nvidia.com/gpu": "1"},
        "labelled vm-passthrough, advertises the container resource",
    ),
    "lab-container-advertising-passthrough": (
        {WORKLOAD: "container"},
        {"nvidia.com/GA102GL_A10": "1"},
        "labelled container, advertises a passthrough GPU",
    ),
    "lab-vgpu-advertising-gpu": (
        {WORKLOAD: "vm-vgpu", VGPU_CONFIG: "A10-12Q"},
        {"nvidia.com/gpu": "2"},
        "labelled vm-vgpu, advertises the container resource",
    ),
    "lab-label-typo": (
        {WORKLOAD: "vm_passthrough"},
        {"nvidia.com/gpu": "1"},
        "invalid label value: the operator ignores it and prepares the node as container",
    ),
    "lab-vgpu-wrong-profile": (
        {WORKLOAD: "vm-vgpu", VGPU_CONFIG: "A10-12Q"},
        {"nvidia.com/NVIDIA_A10-6Q": "8"},
        "vGPU config A10-12Q, advertises A10-6Q",
    ),
    "lab-two-classes": (
        {WORKLOAD: "container"},
        {"nvidia.com/gpu": "1", "nvidia.com/GA102GL_A10": "1"},
        "advertises a container and a passthrough resource at once",
    ),
    "lab-unlabelled-passthrough": (
        {},
        {"nvidia.com/GA102GL_A10": "1"},
        "no workload label (so container by default), advertises a passthrough GPU",
    ),
}


def lab_node(i: int, name: str, labels: dict[str, str], resources: dict[str, str]) -> dict[str, Any]:
    """A node as kubeadm and the kubelet write it, without NFD or a CNI's annotations (a hand-built lab)."""
    uid = str(uuid.uuid5(uuid.NAMESPACE_DNS, name + ".lab.verdict"))
    base = {
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
    }
    out = mg.node(name, f"10.30.0.{11 + i}", f"10.244.{11 + i}.0/24", uid, {**base, **labels}, resources, kubevirt=False)
    meta = out["metadata"]
    meta["annotations"] = {k: v for k, v in meta["annotations"].items() if not k.startswith(("nfd.", "projectcalico.org/"))}
    meta["creationTimestamp"] = "2026-11-20T09:12:44Z"
    meta["resourceVersion"] = str(812000 + i * 37)
    out["status"]["conditions"] = [c for c in out["status"]["conditions"] if c["type"] != "NetworkUnavailable"]
    return out


# namespace, name, node it is pinned to (kubernetes.io/hostname), resource, what it shows
WORKLOADS = [
    ("lab", "cuda-vectoradd", "lab-container-1", "nvidia.com/gpu", "container workload on the container node"),
    ("lab", "passthrough-a10", "lab-passthrough-1", "nvidia.com/GA102GL_A10", "passthrough request on the passthrough node"),
    ("lab", "vgpu-a10-12q", "lab-vgpu-1", "nvidia.com/NVIDIA_A10-12Q", "vGPU request on the vGPU node"),
    (
        "lab",
        "cuda-on-passthrough-node",
        "lab-passthrough-1",
        "nvidia.com/gpu",
        "cross-request: the container resource from the passthrough node",
    ),
    (
        "lab",
        "vgpu-on-passthrough-node",
        "lab-passthrough-1",
        "nvidia.com/NVIDIA_A10-12Q",
        "cross-request: a vGPU from the passthrough node",
    ),
]


def workload(ns: str, name: str, node: str, resource: str) -> dict[str, Any]:
    image = "nvcr.io/nvidia/k8s/cuda-sample:vectoradd-cuda12.5.0" if resource == "nvidia.com/gpu" else "busybox:1.36"
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": ns},
        "spec": {
            "restartPolicy": "OnFailure",
            "nodeSelector": {"kubernetes.io/hostname": node},
            "containers": [
                {
                    "name": "main",
                    "image": image,
                    **({} if resource == "nvidia.com/gpu" else {"command": ["sleep", "3600"]}),
                    "resources": {"limits": {resource: "1"}},
                }
            ],
        },
    }


def pack_table(name: str) -> Any:
    return yaml.safe_load((ROOT / "policies" / "gpu-operator" / "data" / "operands.yaml").read_text())[name]


def managed(node: dict[str, Any]) -> dict[str, Any]:
    """The node as the GPU Operator (sandbox workloads on, default workload container) leaves it."""
    out = json.loads(json.dumps(node))
    labels = out["metadata"]["labels"]
    if not any(k.startswith("nvidia.com/") for k in out["status"]["capacity"]):
        return out
    value = labels.get(WORKLOAD, "container")
    workload = value if value in pack_table("workloads") else "container"
    labels["feature.node.kubernetes.io/pci-10de.present"] = "true"
    labels["nvidia.com/gpu.present"] = "true"
    for key in pack_table("requiredDeployLabels")[workload]:
        labels[key] = "true"
    if workload == "vm-vgpu":
        labels["nvidia.com/vgpu.config.state"] = "success"
    return out


def cluster_policy() -> dict[str, Any]:
    return {
        "apiVersion": "nvidia.com/v1",
        "kind": "ClusterPolicy",
        "metadata": {
            "name": "cluster-policy",
            "uid": "8a3f25d6-61b4-5d0e-9a55-4d9b0d1c2e71",
            "creationTimestamp": "2026-11-20T09:30:00Z",
        },
        "spec": {
            "operator": {"defaultRuntime": "containerd"},
            "driver": {"enabled": True},
            "toolkit": {"enabled": True},
            "devicePlugin": {"enabled": True},
            "gfd": {"enabled": True},
            "migManager": {"enabled": True},
            "sandboxWorkloads": {"enabled": True, "defaultWorkload": "container"},
            "sandboxDevicePlugin": {"enabled": True},
            "vfioManager": {"enabled": True},
            "vgpuManager": {"enabled": True},
            "vgpuDeviceManager": {"enabled": True},
            "kataManager": {"enabled": False},
            "ccManager": {"enabled": False},
        },
        "status": {"namespace": "gpu-operator", "state": "ready"},
    }


def as_list(items: list[dict[str, Any]]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items}


def main() -> None:
    nodes = [lab_node(i, name, labels, res) for i, (name, (labels, res, _)) in enumerate(NODES.items())]
    plain = [mg.clean_node(n) for n in nodes]
    pods = [workload(ns, name, node, res) for ns, name, node, res, _ in WORKLOADS]
    EXAMPLES.mkdir(parents=True, exist_ok=True)
    (EXAMPLES / "nodes.yaml").write_text(mg.to_yaml(as_list(plain)))
    header = "".join(f"# {ns}/{name}: {what}\n" for ns, name, _, _, what in WORKLOADS)
    docs = "".join("---\n" + mg.to_yaml(p) for p in pods)
    (EXAMPLES / "workloads.yaml").write_text(
        "# The lab's workloads, as manifests (kubectl apply -f): each asks for one GPU resource and is pinned to a\n"
        "# node by kubernetes.io/hostname. verdict predicts where kube-scheduler would place each.\n" + header + docs
    )
    (HERE / "nodes.describe.txt").write_text("\n\n".join(mg.describe_node(n, [], []) for n in nodes))
    managed_nodes = [managed(n) for n in nodes]
    (HERE / "managed.yaml").write_text(mg.to_yaml(as_list([cluster_policy(), *(mg.clean_node(n) for n in managed_nodes), *pods])))
    gather = HERE / "must-gather"
    gather.mkdir(exist_ok=True)
    gpu = [n for n in managed_nodes if n["metadata"]["labels"].get("nvidia.com/gpu.present") == "true"]
    (gather / "gpu_nodes.labels").write_text(mg.labels_file(gpu))
    ordered = sorted(gpu, key=lambda n: n["metadata"]["name"])
    (gather / "gpu_nodes.descr").write_text("\n\n".join(mg.describe_node(n, [], []) for n in ordered))
    (gather / "cluster_policy.yaml").write_text(mg.to_yaml(cluster_policy()))
    (gather / "version").write_text("NVIDIA GPU Operator\nv25.10.1\n")


if __name__ == "__main__":
    main()
