"""Generate a seeded cluster dump of realistic shape, with every kind the built-in pack judges.

The dump is what ``kubectl get nodes,pods,deploy,sts,ds,jobs,clusterpolicies,kubevirts,vmi,vm -A -o json``
prints (a ``kind: List`` with 4-space indentation): GPU nodes of the three workloads (container,
vm-passthrough, vm-vgpu) and CPU workers, each Node about 7 KB as real ones are (NFD and GFD labels,
conditions, images); the GPU Operator's operand DaemonSet Pods on every GPU node, kube-proxy and
calico on every node, virt-handler on the VM nodes; Deployments, StatefulSets and Jobs with their pod
templates and their Pods (mostly bound, some pending); the DaemonSets of the daemon Pods (one operand's
tolerations missing the GPU nodes' taint); KubeVirt VirtualMachineInstances (running and
pending) and VirtualMachines asking for passthrough GPUs and vGPUs; one ClusterPolicy and one KubeVirt CR.

A share of everything is deliberately broken, so that most rules have failures to report: invalid
workload labels, stale deploy labels, a passthrough node still advertising ``nvidia.com/gpu``, unhealthy
devices, failed, pending or unapplied vGPU configs, bare PCI device ids, missing sandbox operand pods, a
driver pod left on a VM node, pods asking for more GPUs than any node has or pinned to a VM node, invalid
extended-resource requests, VMs asking for a name in the wrong case or one that KubeVirt does not permit,
GPUs put in ``domain.resources``.

Deterministic: the same size and seed give the same bytes (``random.Random(seed)``, fixed timestamps,
``uuid5`` ids). Sizes (nodes, Pods, VMIs): ``1k`` 1,000 x 10,000 x 400, ``5k`` 5,000 x 50,000 x 2,000,
``150k`` 5,000 x 150,000 x 0; any ``NODES:PODS:VMIS`` works too.

    .venv/bin/python bench/make_cluster.py 1k -o /tmp/cluster-1k.json [--seed 11]
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

NS = "gpu-operator"
T0 = "2025-03-04T08:15:00Z"
NOW = "2025-03-18T10:41:07Z"
ZONES = ("zone-a", "zone-b", "zone-c")


@dataclass(frozen=True, slots=True)
class Size:
    """How many Nodes, Pods (every Pod: operand, system and application) and VMIs a dump holds; VMs are
    half as many as VMIs."""

    nodes: int
    pods: int
    vmis: int


SIZES = {"1k": Size(1000, 10_000, 400), "5k": Size(5000, 50_000, 2000), "150k": Size(5000, 150_000, 0)}


def parse_size(text: str) -> Size:
    """A named size (``1k``, ``5k``, ``150k``) or ``NODES:PODS:VMIS``. Raises ``ValueError``."""
    if text in SIZES:
        return SIZES[text]
    parts = text.split(":")
    if len(parts) != 3 or not all(p.isdigit() for p in parts):
        raise ValueError(f"size {text!r}: one of {', '.join(SIZES)}, or NODES:PODS:VMIS")
    return Size(*(int(p) for p in parts))


# ------------------------------------------------------------------------------------------ GPU facts

# name, advertised resource, GPUs per node, product label
PASSTHROUGH_GPUS = [
    ("GA102GL_A10", "NVIDIA-A10", 4),
    ("GA100_A100_PCIE_40GB", "NVIDIA-A100-PCIE-40GB", 4),
    ("GH100_H100_PCIE", "NVIDIA-H100-PCIe", 2),
]
VGPU_TYPES = [("A10-12Q", 2, "NVIDIA-A10"), ("A10-6Q", 4, "NVIDIA-A10")]  # config, vGPUs per GPU, product
CONTAINER_PRODUCTS = ["NVIDIA-A100-SXM4-80GB", "NVIDIA-H100-80GB-HBM3", "NVIDIA-L40S", "Tesla-T4"]

OPERANDS = {
    "container": [
        ("driver", "nvidia-driver-daemonset", "nvidia-driver"),
        ("gpu-feature-discovery", "gpu-feature-discovery", "gpu-feature-discovery"),
        ("container-toolkit", "nvidia-container-toolkit-daemonset", "nvidia-container-toolkit"),
        ("device-plugin", "nvidia-device-plugin-daemonset", "nvidia-device-plugin"),
        ("dcgm", "nvidia-dcgm", "nvidia-dcgm"),
        ("dcgm-exporter", "nvidia-dcgm-exporter", "nvidia-dcgm-exporter"),
        ("node-status-exporter", "nvidia-node-status-exporter", "nvidia-node-status-exporter"),
        ("operator-validator", "nvidia-operator-validator", "nvidia-operator-validator"),
    ],
    "vm-passthrough": [
        ("sandbox-device-plugin", "nvidia-sandbox-device-plugin-daemonset", "nvidia-sandbox-device-plugin"),
        ("sandbox-validator", "nvidia-sandbox-validator", "nvidia-sandbox-validator"),
        ("vfio-manager", "nvidia-vfio-manager", "nvidia-vfio-manager"),
    ],
    "vm-vgpu": [
        ("sandbox-device-plugin", "nvidia-sandbox-device-plugin-daemonset", "nvidia-sandbox-device-plugin"),
        ("sandbox-validator", "nvidia-sandbox-validator", "nvidia-sandbox-validator"),
        ("vgpu-manager", "nvidia-vgpu-manager-daemonset", "nvidia-vgpu-manager"),
        ("vgpu-device-manager", "nvidia-vgpu-device-manager", "nvidia-vgpu-device-manager"),
    ],
}
DEPLOY = {
    "container": [o for o, _, _ in OPERANDS["container"]],
    "vm-passthrough": ["sandbox-device-plugin", "sandbox-validator", "vfio-manager", "kata-manager", "cc-manager"],
    "vm-vgpu": ["sandbox-device-plugin", "sandbox-validator", "cc-manager", "vgpu-manager", "vgpu-device-manager"],
}
#: What a broken GPU node has wrong (one each), by the workloads it fits:
#: label-typo nvidia.com/gpu.workload.config=VM-Passthrough; two-classes a passthrough node still advertising
#: nvidia.com/gpu; stale-deploy-label a container node keeping a sandbox deploy label; unhealthy allocatable
#: below capacity; vgpu-failed / vgpu-pending nvidia.com/vgpu.config.state=failed / pending; vgpu-wrong-type
#: another vGPU type advertised than its nvidia.com/vgpu.config; operand-missing no sandbox device plugin pod;
#: bare-device-id a passthrough GPU advertised as nvidia.com/2335; deploy-label-value nvidia.com/gpu.deploy.dcgm=yes.
NODE_FAULTS = {
    "container": ["label-typo", "stale-deploy-label", "unhealthy", "deploy-label-value"],
    "vm-passthrough": ["label-typo", "two-classes", "unhealthy", "operand-missing", "bare-device-id"],
    "vm-vgpu": ["label-typo", "vgpu-failed", "vgpu-pending", "vgpu-wrong-type", "operand-missing"],
}
#: How often a GPU node is broken.
NODE_FAULT_SHARE = 0.08


@dataclass(slots=True)
class NodeInfo:
    """What the pod and VM generators need to know of a node."""

    name: str
    workload: str  # container, vm-passthrough, vm-vgpu, or cpu
    resource: str  # the GPU resource it advertises ("" for a CPU node)
    fault: str = ""


def _uid(kind: str, name: str) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"verdict-bench/{kind}/{name}"))


def _hash(rng: random.Random, n: int = 5) -> str:
    return "".join(rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(n))


# ---------------------------------------------------------------------------------------------- nodes

NFD_CPU = ["AVX512F", "AVX512VNNI", "FMA3", "VMX"]
IMAGES = [
    ("nvcr.io/nvidia/driver", "550.127.08-ubuntu22.04", 1_412_000_000),
    ("nvcr.io/nvidia/k8s-device-plugin", "v0.17.0", 189_000_000),
    ("registry.example.com/ml/trainer", "2025.03.1", 6_120_000_000),
]


def _digest(rng: random.Random) -> str:
    return "sha256:" + "".join(rng.choice("0123456789abcdef") for _ in range(64))


def node(rng: random.Random, i: int, workload: str, fault: str) -> tuple[dict[str, Any], NodeInfo]:
    """A Node of ``workload`` (``cpu`` for a worker without GPU) with ``fault`` ("" for none)."""
    name = f"{'gpu' if workload != 'cpu' else 'cpu'}-{i:05d}"
    zone = ZONES[i % 3]
    nfd = "feature.node.kubernetes.io/"
    labels: dict[str, str] = {
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "node-role.kubernetes.io/worker": "",
        "node.kubernetes.io/instance-type": rng.choice(["p4d.24xlarge", "g5.12xlarge", "m6i.8xlarge"]),
        "topology.kubernetes.io/region": "eu-west-1",
        "topology.kubernetes.io/zone": zone,
    }
    labels.update({f"{nfd}cpu-cpuid.{f}": "true" for f in NFD_CPU})
    labels.update(
        {
            f"{nfd}cpu-model.vendor_id": "Intel",
            f"{nfd}cpu-model.family": "6",
            f"{nfd}cpu-model.id": "106",
            f"{nfd}kernel-version.full": "5.15.0-126-generic",
            f"{nfd}kernel-version.major": "5",
            f"{nfd}kernel-version.minor": "15",
            f"{nfd}pci-8086.present": "true",
            f"{nfd}system-os_release.ID": "ubuntu",
            f"{nfd}system-os_release.VERSION_ID": "22.04",
        }
    )
    resource, count = "", 0
    extra: dict[str, str] = {}
    capacity_extra: dict[str, str] = {}
    spec: dict[str, Any] = {"podCIDR": f"10.{i // 250}.{i % 250}.0/24", "providerID": f"aws:///{zone}/i-{i:017x}"}
    if workload != "cpu":
        labels[f"{nfd}pci-10de.present"] = "true"
        labels["nvidia.com/gpu.present"] = "true"
        labels["nvidia.com/gpu.workload.config"] = workload
        labels.update({f"nvidia.com/gpu.deploy.{d}": "true" for d in DEPLOY[workload]})
    if workload == "container":
        product = CONTAINER_PRODUCTS[i % len(CONTAINER_PRODUCTS)]
        count = 8 if "A100" in product or "H100" in product else 4
        resource = "nvidia.com/gpu"
        labels.update(
            {
                "nvidia.com/cuda.driver-version.full": "550.127.08",
                "nvidia.com/cuda.runtime-version.full": "12.4",
                "nvidia.com/gpu.count": str(count),
                "nvidia.com/gpu.family": "hopper" if "H100" in product else "ampere",
                "nvidia.com/gpu.memory": "81559" if "80GB" in product else "46068",
                "nvidia.com/gpu.product": product,
                "nvidia.com/gpu.replicas": "1",
                "nvidia.com/mig.capable": "false",
                "nvidia.com/gpu.deploy.mig-manager": "true",
                "nvidia.com/mig.strategy": "single",
            }
        )
        spec["taints"] = [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
    elif workload == "vm-passthrough":
        gpu, product, count = PASSTHROUGH_GPUS[i % len(PASSTHROUGH_GPUS)]
        resource = "nvidia.com/2335" if fault == "bare-device-id" else f"nvidia.com/{gpu}"
        labels.update({"kubevirt.io/schedulable": "true", "nvidia.com/gpu.product": product})
    elif workload == "vm-vgpu":
        config, per_gpu, product = VGPU_TYPES[i % len(VGPU_TYPES)]
        count = 2 * per_gpu
        resource = f"nvidia.com/NVIDIA_{config}"
        if fault == "vgpu-wrong-type":
            resource = f"nvidia.com/NVIDIA_{VGPU_TYPES[(i + 1) % len(VGPU_TYPES)][0]}"
        labels.update(
            {
                "kubevirt.io/schedulable": "true",
                "nvidia.com/gpu.product": product,
                "nvidia.com/vgpu.config": config,
                "nvidia.com/vgpu.config.state": {"vgpu-failed": "failed", "vgpu-pending": "pending"}.get(fault, "success"),
            }
        )
    if workload in ("vm-passthrough", "vm-vgpu"):
        for dev in ("kvm", "tun", "vhost-net"):
            extra[f"devices.kubevirt.io/{dev}"] = "1k"
    if resource:
        extra[resource] = str(count)
    if fault == "label-typo":
        labels["nvidia.com/gpu.workload.config"] = {"container": "Container", "vm-passthrough": "VM-Passthrough"}.get(
            workload, "vm_vgpu"
        )
    elif fault == "two-classes":
        extra["nvidia.com/gpu"] = "2"
    elif fault == "stale-deploy-label":
        labels["nvidia.com/gpu.deploy.sandbox-device-plugin" if workload == "container" else "nvidia.com/gpu.deploy.driver"] = (
            "true"
        )
    elif fault == "deploy-label-value":
        key = next(k for k in labels if k.startswith("nvidia.com/gpu.deploy."))
        labels[key] = "yes"
    if fault == "unhealthy" and resource:
        capacity_extra[resource] = str(count)
        extra[resource] = str(count - 1)
    capacity = {
        "cpu": "96",
        "ephemeral-storage": "959786032Ki",
        "hugepages-1Gi": "0",
        "hugepages-2Mi": "0",
        "memory": "1056462088Ki",
        "pods": "110",
        **extra,
        **capacity_extra,
    }
    allocatable = {**capacity, **extra, "cpu": "95500m", "ephemeral-storage": "884538002961", "memory": "1045873416Ki"}
    annotations = {
        "alpha.kubernetes.io/provided-node-ip": f"10.20.{i // 250}.{i % 250}",
        "csi.volume.kubernetes.io/nodeid": '{"ebs.csi.aws.com":"i-' + f"{i:017x}" + '"}',
        "nfd.node.kubernetes.io/feature-labels": ",".join(k[len(nfd) :] for k in labels if k.startswith(nfd)),
        "nfd.node.kubernetes.io/worker.version": "v0.16.6",
        "node.alpha.kubernetes.io/ttl": "0",
        "projectcalico.org/IPv4Address": f"10.20.{i // 250}.{i % 250}/16",
        "projectcalico.org/IPv4VXLANTunnelAddr": f"192.168.{i // 250}.{i % 250 + 1}",
        "volumes.kubernetes.io/controller-managed-attach-detach": "true",
    }
    conditions = [
        ("NetworkUnavailable", "False", "CalicoIsUp", "Calico is running on this node"),
        ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
        ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
    ]
    images = [
        {"names": [f"{repo}@{_digest(rng)}", f"{repo}:{tag}"], "sizeBytes": size + rng.randrange(1_000_000)}
        for repo, tag, size in IMAGES
    ]
    obj = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "annotations": annotations,
            "creationTimestamp": T0,
            "labels": labels,
            "name": name,
            "resourceVersion": str(100_000 + i),
            "uid": _uid("Node", name),
        },
        "spec": spec,
        "status": {
            "addresses": [
                {"address": f"10.20.{i // 250}.{i % 250}", "type": "InternalIP"},
                {"address": f"{name}.eu-west-1.compute.internal", "type": "InternalDNS"},
                {"address": f"{name}.eu-west-1.compute.internal", "type": "Hostname"},
            ],
            "allocatable": allocatable,
            "capacity": capacity,
            "conditions": [
                {
                    "lastHeartbeatTime": NOW,
                    "lastTransitionTime": T0,
                    "message": m,
                    "reason": r,
                    "status": s,
                    "type": t,
                }
                for t, s, r, m in conditions
            ],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "images": images,
            "nodeInfo": {
                "architecture": "amd64",
                "bootID": _uid("boot", name),
                "containerRuntimeVersion": "containerd://1.7.24",
                "kernelVersion": "5.15.0-126-generic",
                "kubeProxyVersion": "v1.30.8",
                "kubeletVersion": "v1.30.8",
                "machineID": _uid("machine", name).replace("-", ""),
                "operatingSystem": "linux",
                "osImage": "Ubuntu 22.04.5 LTS",
                "systemUUID": _uid("system", name).upper(),
            },
        },
    }
    return obj, NodeInfo(name, workload, resource, fault)


def node_plan(rng: random.Random, count: int) -> list[tuple[str, str]]:
    """(workload, fault) per node: 55 % container, 10 % vm-passthrough, 10 % vm-vgpu GPU nodes, 25 % CPU
    workers; ``NODE_FAULT_SHARE`` of the GPU nodes broken, each with one fault that fits its workload."""
    plan = []
    for i in range(count):
        roll = (i * 7919) % 100  # spread evenly, not in blocks
        workload = "container" if roll < 55 else "vm-passthrough" if roll < 65 else "vm-vgpu" if roll < 75 else "cpu"
        fault = ""
        if workload != "cpu" and rng.random() < NODE_FAULT_SHARE:
            fault = rng.choice(NODE_FAULTS[workload])
        plan.append((workload, fault))
    return plan


# ----------------------------------------------------------------------------------------------- pods


def container(name: str, image: str, requests: dict[str, str], limits: dict[str, str], port: int = 0) -> dict[str, Any]:
    out: dict[str, Any] = {
        "image": image,
        "imagePullPolicy": "IfNotPresent",
        "name": name,
        "resources": {k: v for k, v in (("limits", limits), ("requests", requests)) if v},
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
        "volumeMounts": [
            {"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "name": "kube-api-access", "readOnly": True}
        ],
    }
    if port:
        out["ports"] = [{"containerPort": port, "name": "http", "protocol": "TCP"}]
    return out


DEFAULT_TOLERATIONS = [
    {"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists", "tolerationSeconds": 300},
    {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists", "tolerationSeconds": 300},
]
KUBE_API_VOLUME = {
    "name": "kube-api-access",
    "projected": {
        "defaultMode": 420,
        "sources": [
            {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
            {"configMap": {"items": [{"key": "ca.crt", "path": "ca.crt"}], "name": "kube-root-ca.crt"}},
        ],
    },
}


def pod(
    rng: random.Random,
    name: str,
    namespace: str,
    spec: dict[str, Any],
    labels: dict[str, str],
    owner: tuple[str, str] | None,
    node: str,
    phase: str = "",
) -> dict[str, Any]:
    """A Pod as kubectl prints it, bound to ``node`` (Running) or pending (``node`` "")."""
    spec = {
        "dnsPolicy": "ClusterFirst",
        "enableServiceLinks": True,
        "preemptionPolicy": "PreemptLowerPriority",
        "priority": 0,
        "restartPolicy": "Always",
        "schedulerName": "default-scheduler",
        "securityContext": {},
        "serviceAccountName": "default",
        "terminationGracePeriodSeconds": 30,
        "volumes": [KUBE_API_VOLUME],
        **spec,
    }
    spec["tolerations"] = [*spec.get("tolerations", []), *DEFAULT_TOLERATIONS]
    meta: dict[str, Any] = {
        "creationTimestamp": T0,
        "labels": labels,
        "name": name,
        "namespace": namespace,
        "resourceVersion": str(rng.randrange(10**6, 10**7)),
        "uid": _uid("Pod", f"{namespace}/{name}"),
    }
    if owner:
        kind, owner_name = owner
        meta["generateName"] = name[: name.rfind("-") + 1]
        meta["ownerReferences"] = [
            {
                "apiVersion": "batch/v1" if kind == "Job" else "apps/v1",
                "blockOwnerDeletion": True,
                "controller": True,
                "kind": kind,
                "name": owner_name,
                "uid": _uid(kind, f"{namespace}/{owner_name}"),
            }
        ]
    if node:
        spec["nodeName"] = node
        ip = f"172.16.{rng.randrange(256)}.{rng.randrange(256)}"
        status: dict[str, Any] = {
            "conditions": [
                {"lastProbeTime": None, "lastTransitionTime": T0, "status": "True", "type": t}
                for t in ("Initialized", "Ready", "ContainersReady", "PodScheduled")
            ],
            "containerStatuses": [
                {
                    "containerID": f"containerd://{_digest(rng)[7:]}",
                    "image": c["image"],
                    "imageID": f"{c['image'].split(':')[0]}@{_digest(rng)}",
                    "lastState": {},
                    "name": c["name"],
                    "ready": True,
                    "restartCount": 0,
                    "started": True,
                    "state": {"running": {"startedAt": T0}},
                }
                for c in spec["containers"]
            ],
            "hostIP": "10.20.0.1",
            "phase": phase or "Running",
            "podIP": ip,
            "podIPs": [{"ip": ip}],
            "qosClass": "Burstable",
            "startTime": T0,
        }
    else:
        status = {
            "conditions": [
                {
                    "lastProbeTime": None,
                    "lastTransitionTime": T0,
                    "message": "0/N nodes are available: see the scheduler's events.",
                    "reason": "Unschedulable",
                    "status": "False",
                    "type": "PodScheduled",
                }
            ],
            "phase": "Pending",
            "qosClass": "Burstable",
        }
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}


def daemon_pods(rng: random.Random, nodes: list[NodeInfo]) -> Iterator[dict[str, Any]]:
    """kube-proxy and calico on every node; the GPU Operator's operands on each GPU node (by its workload,
    less what its fault removes, plus a driver pod left on a few VM nodes); virt-handler on VM nodes."""
    for n in nodes:
        for ds, ns, image, cpu in (
            ("kube-proxy", "kube-system", "registry.k8s.io/kube-proxy:v1.30.8", "100m"),
            ("calico-node", "calico-system", "quay.io/calico/node:v3.29.1", "250m"),
        ):
            spec = {"containers": [container(ds, image, {"cpu": cpu}, {})], "priorityClassName": "system-node-critical"}
            yield pod(rng, f"{ds}-{_hash(rng)}", ns, spec, {"k8s-app": ds}, ("DaemonSet", ds), n.name)
        workload = n.workload
        if workload == "cpu":
            continue
        if workload.startswith("vm-"):
            spec = {"containers": [container("virt-handler", "quay.io/kubevirt/virt-handler:v1.4.0", {"cpu": "10m"}, {})]}
            yield pod(rng, f"virt-handler-{_hash(rng)}", "kubevirt", spec, {"kubevirt.io": "virt-handler"}, None, n.name)
        if n.fault == "label-typo":
            workload = "container" if workload != "container" else workload
        operands = list(OPERANDS.get(workload, []))
        if n.fault == "operand-missing":
            operands = operands[1:]  # the sandbox device plugin is the first
        if n.workload.startswith("vm-") and n.fault == "two-classes":
            operands.append(OPERANDS["container"][0])  # the driver, left over from the container workload
        for operand, ds, component in operands:
            image = f"nvcr.io/nvidia/{operand}:v24.9.2"
            spec = {
                "containers": [container(operand, image, {"cpu": "10m", "memory": "64Mi"}, {})],
                "priorityClassName": "system-node-critical",
                "serviceAccountName": f"nvidia-{operand}",
            }
            labels = {"app": ds, "app.kubernetes.io/component": component, "app.kubernetes.io/part-of": "gpu-operator"}
            yield pod(rng, f"{ds}-{_hash(rng)}", NS, spec, labels, ("DaemonSet", ds), n.name)


@dataclass(slots=True)
class App:
    """One application controller: its kind, name, namespace, template spec, labels and replicas."""

    kind: str
    name: str
    namespace: str
    spec: dict[str, Any]
    labels: dict[str, str]
    replicas: int
    pending: float  # share of its pods not bound


def app_template(rng: random.Random, n: int, gpu_nodes: list[NodeInfo], vm_nodes: list[NodeInfo]) -> tuple[dict[str, Any], float]:
    """A pod template spec and the share of its pods that are pending."""
    roll = rng.random()
    cpu = rng.choice(["100m", "250m", "500m", "1", "2"])
    memory = rng.choice(["128Mi", "512Mi", "1Gi", "4Gi"])
    requests, limits = {"cpu": cpu, "memory": memory}, {"memory": memory}
    image = rng.choice(["registry.example.com/web/api:1.42.0", "registry.example.com/ml/trainer:2025.03.1"])
    spec: dict[str, Any] = {}
    pending = 0.02
    if roll < 0.30:  # a GPU workload
        gpus = rng.choice(["1", "1", "2", "4", "8"])
        limits["nvidia.com/gpu"] = gpus
        spec["tolerations"] = [{"effect": "NoSchedule", "key": "nvidia.com/gpu", "operator": "Exists"}]
        if rng.random() < 0.5:
            spec["nodeSelector"] = {"nvidia.com/gpu.product": rng.choice(CONTAINER_PRODUCTS)}
        pending = 0.15
        fault = rng.random()
        if fault < 0.04:
            limits["nvidia.com/gpu"] = "16"  # no node has 16: never schedulable
            pending = 1.0
        elif fault < 0.07:
            requests["nvidia.com/gpu"] = gpus  # a request...
            del limits["nvidia.com/gpu"]  # ...without a limit: the API server refuses it
        elif fault < 0.09:
            limits["nvidia.com/gpu"] = "0.5"
        elif fault < 0.11 and vm_nodes:
            spec["nodeSelector"] = {"kubernetes.io/hostname": vm_nodes[n % len(vm_nodes)].name}  # a VM node
            pending = 1.0
    elif roll < 0.40:
        spec["affinity"] = {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {
                            "matchExpressions": [
                                {"key": "topology.kubernetes.io/zone", "operator": "In", "values": rng.sample(ZONES, 2)},
                                {"key": "nvidia.com/gpu.present", "operator": "DoesNotExist"},
                            ]
                        }
                    ]
                }
            }
        }
    elif roll < 0.42:
        requests["cpu"] = "200"  # bigger than any node
        pending = 1.0
    spec["containers"] = [container("main", image, requests, limits, 8080)]
    return spec, pending


def apps(rng: random.Random, budget: int, gpu_nodes: list[NodeInfo], vm_nodes: list[NodeInfo]) -> list[App]:
    """Controllers whose replicas add up to ``budget`` Pods."""
    out: list[App] = []
    left, n = budget, 0
    while left > 0:
        kind = rng.choices(["Deployment", "StatefulSet", "Job"], [70, 15, 15])[0]
        replicas = min(left, rng.choice([1, 2, 3, 5, 8, 12, 20]))
        spec, pending = app_template(rng, n, gpu_nodes, vm_nodes)
        name = f"{rng.choice(['api', 'web', 'train', 'infer', 'etl', 'batch'])}-{n:05d}"
        out.append(App(kind, name, f"team-{n % 40:02d}", spec, {"app": name}, replicas, pending))
        left -= replicas
        n += 1
    return out


def controller(a: App) -> dict[str, Any]:
    """The Deployment, StatefulSet or Job object of an ``App``."""
    template = {"metadata": {"creationTimestamp": None, "labels": a.labels}, "spec": a.spec}
    spec: dict[str, Any] = {"selector": {"matchLabels": a.labels}, "template": template}
    api = "apps/v1"
    if a.kind == "Job":
        api = "batch/v1"
        spec = {"backoffLimit": 6, "completions": a.replicas, "parallelism": a.replicas, **spec}
        template["spec"] = {**a.spec, "restartPolicy": "Never"}
    else:
        spec["replicas"] = a.replicas
    if a.kind == "StatefulSet":
        spec["serviceName"] = a.name
    meta = {
        "creationTimestamp": T0,
        "generation": 1,
        "labels": a.labels,
        "name": a.name,
        "namespace": a.namespace,
        "resourceVersion": "1",
        "uid": _uid(a.kind, f"{a.namespace}/{a.name}"),
    }
    return {"apiVersion": api, "kind": a.kind, "metadata": meta, "spec": spec, "status": {"replicas": a.replicas}}


def app_pods(rng: random.Random, a: App, hosts: dict[str, list[NodeInfo]]) -> Iterator[dict[str, Any]]:
    """The Pods of an ``App``: bound to a node that can hold them, or pending."""
    gpu = "nvidia.com/gpu" in a.spec["containers"][0]["resources"].get("limits", {})
    pool = hosts["container"] if gpu else hosts["cpu"] or hosts["container"]
    rs = f"{a.name}-{_hash(rng, 10)}" if a.kind == "Deployment" else a.name
    owner_kind = "ReplicaSet" if a.kind == "Deployment" else a.kind
    for r in range(a.replicas):
        name = f"{a.name}-{r}" if a.kind == "StatefulSet" else f"{rs}-{_hash(rng)}"
        labels = {**a.labels, "pod-template-hash": rs[len(a.name) + 1 :]} if a.kind == "Deployment" else dict(a.labels)
        bound = rng.random() >= a.pending and pool
        node = pool[rng.randrange(len(pool))].name if bound else ""
        spec = {k: v for k, v in a.spec.items() if k != "nodeSelector" or not bound}
        yield pod(rng, name, a.namespace, spec, labels, (owner_kind, rs), node)


# ------------------------------------------------------------------------------------------------ VMs


def vmi_spec(rng: random.Random, device: str, n: int, broken: str) -> dict[str, Any]:
    devices: dict[str, Any] = {
        "disks": [{"disk": {"bus": "virtio"}, "name": "rootdisk"}, {"disk": {"bus": "virtio"}, "name": "cloudinit"}],
        "interfaces": [{"masquerade": {}, "name": "default"}],
    }
    group = "hostDevices" if n % 4 == 0 else "gpus"
    devices[group] = [{"deviceName": device, "name": "gpu1"}]
    resources: dict[str, Any] = {"requests": {"memory": "16Gi", "cpu": "4"}}
    if broken == "in-resources":
        resources["limits"] = {device: "1"}
    return {
        "domain": {
            "cpu": {"cores": 4, "sockets": 1, "threads": 1},
            "devices": devices,
            "firmware": {"uuid": _uid("firmware", str(n))},
            "machine": {"type": "q35"},
            "memory": {"guest": "16Gi"},
            "resources": resources,
        },
        "networks": [{"name": "default", "pod": {}}],
        "terminationGracePeriodSeconds": 180,
        "volumes": [
            {"containerDisk": {"image": "quay.io/containerdisks/ubuntu:22.04"}, "name": "rootdisk"},
            {
                "cloudInitNoCloud": {"userData": "#cloud-config\npassword: ubuntu\nchpasswd: { expire: False }\n"},
                "name": "cloudinit",
            },
        ],
    }


def vm_objects(rng: random.Random, count: int, nodes: list[NodeInfo]) -> Iterator[dict[str, Any]]:
    """``count`` VMIs (60 % running on a VM node of their device, the rest pending) and ``count // 2`` VMs."""
    by_resource: dict[str, list[NodeInfo]] = {}
    for n in nodes:
        if n.workload.startswith("vm-") and not n.fault:
            by_resource.setdefault(n.resource, []).append(n)
    resources = sorted(by_resource) or ["nvidia.com/GA102GL_A10"]
    for i in range(count + count // 2):
        is_vm = i >= count
        name = f"vm-{i:05d}"
        namespace = f"vms-{i % 20:02d}"
        device = resources[i % len(resources)]
        broken = ""
        roll = rng.random()
        if roll < 0.03:
            device, broken = device.lower(), "case"
        elif roll < 0.05:
            device, broken = "nvidia.com/GA102GL_A40", "unpermitted"
        elif roll < 0.07:
            broken = "in-resources"
        spec = vmi_spec(rng, device, i, broken)
        meta = {
            "annotations": {"kubevirt.io/latest-observed-api-version": "v1"},
            "creationTimestamp": T0,
            "labels": {"kubevirt.io/vm": name},
            "name": name,
            "namespace": namespace,
            "resourceVersion": str(rng.randrange(10**6, 10**7)),
            "uid": _uid("VM" if is_vm else "VMI", f"{namespace}/{name}"),
        }
        running = not broken and rng.random() < 0.6 and device in by_resource
        if is_vm:
            halted = rng.random() < 0.2
            vm_spec: dict[str, Any] = {
                "runStrategy": "Halted" if halted else "Always",
                "template": {"metadata": {}, "spec": spec},
            }
            status = {"created": running and not halted, "ready": running and not halted, "printableStatus": "Running"}
            yield {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": meta, "spec": vm_spec, "status": status}
            continue
        if running:
            host = by_resource[device][rng.randrange(len(by_resource[device]))].name
            status = {
                "activePods": {_uid("launcher", name): host},
                "conditions": [{"lastProbeTime": None, "lastTransitionTime": T0, "status": "True", "type": "Ready"}],
                "guestOSInfo": {},
                "launcherContainerImageVersion": "quay.io/kubevirt/virt-launcher:v1.4.0",
                "nodeName": host,
                "phase": "Running",
                "qosClass": "Burstable",
            }
        else:
            status = {
                "phase": "Scheduling",
                "conditions": [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}],
            }
        yield {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachineInstance", "metadata": meta, "spec": spec, "status": status}


#: The DaemonSet whose tolerations lack the GPU nodes' nvidia.com/gpu taint (gpu-operands/operand-tolerates-gpu-node-taints).
UNTOLERANT_OPERAND = "nvidia-dcgm-exporter"
GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}


def daemonsets() -> Iterator[dict[str, Any]]:
    """The DaemonSets of the daemon pods: kube-proxy and calico tolerating every taint, virt-handler, and the
    GPU Operator's operands (owned by the ClusterPolicy, selecting their deploy label, tolerating the GPU
    nodes' nvidia.com/gpu taint as its values.yaml does) but one, which does not."""
    system = [
        ("kube-proxy", "kube-system", "registry.k8s.io/kube-proxy:v1.30.8", {"k8s-app": "kube-proxy"}, {}),
        ("calico-node", "calico-system", "quay.io/calico/node:v3.29.1", {"k8s-app": "calico-node"}, {}),
        (
            "virt-handler",
            "kubevirt",
            "quay.io/kubevirt/virt-handler:v1.4.0",
            {"kubevirt.io": "virt-handler"},
            {"kubevirt.io/schedulable": "true"},
        ),
    ]
    for ds, ns, image, labels, selector in system:
        tolerations = [{"operator": "Exists"}] if ds != "virt-handler" else [GPU_TOLERATION]
        yield _daemonset(ds, ns, image, labels, selector, tolerations, None)
    seen: set[str] = set()
    for operands in OPERANDS.values():
        for operand, ds, component in operands:
            if ds in seen:
                continue
            seen.add(ds)
            labels = {"app": ds, "app.kubernetes.io/component": component, "app.kubernetes.io/part-of": "gpu-operator"}
            tolerations = [] if ds == UNTOLERANT_OPERAND else [GPU_TOLERATION]
            owner = {
                "apiVersion": "nvidia.com/v1",
                "kind": "ClusterPolicy",
                "name": "cluster-policy",
                "uid": _uid("ClusterPolicy", "cluster-policy"),
                "controller": True,
            }
            yield _daemonset(
                ds,
                NS,
                f"nvcr.io/nvidia/{operand}:v24.9.2",
                labels,
                {f"nvidia.com/gpu.deploy.{operand}": "true"},
                tolerations,
                owner,
            )


def _daemonset(
    name: str,
    ns: str,
    image: str,
    labels: dict[str, str],
    selector: dict[str, str],
    tolerations: list[dict[str, str]],
    owner: dict[str, Any] | None,
) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [container(name, image, {"cpu": "10m"}, {})], "tolerations": tolerations}
    if selector:
        spec["nodeSelector"] = selector
    meta: dict[str, Any] = {
        "creationTimestamp": T0,
        "generation": 1,
        "labels": labels,
        "name": name,
        "namespace": ns,
        "uid": _uid("DaemonSet", f"{ns}/{name}"),
    }
    if owner:
        meta["ownerReferences"] = [owner]
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": meta,
        "spec": {"selector": {"matchLabels": labels}, "template": {"metadata": {"labels": labels}, "spec": spec}},
    }


def cluster_policy() -> dict[str, Any]:
    enabled = {"enabled": True}
    return {
        "apiVersion": "nvidia.com/v1",
        "kind": "ClusterPolicy",
        "metadata": {"creationTimestamp": T0, "name": "cluster-policy", "uid": _uid("ClusterPolicy", "cluster-policy")},
        "spec": {
            "daemonsets": {"priorityClassName": "system-node-critical", "tolerations": [GPU_TOLERATION]},
            "dcgm": enabled,
            "dcgmExporter": enabled,
            "devicePlugin": enabled,
            "driver": {**enabled, "version": "550.127.08"},
            "gfd": enabled,
            "migManager": enabled,
            "nodeStatusExporter": enabled,
            "operator": {"defaultRuntime": "containerd"},
            "sandboxDevicePlugin": enabled,
            "sandboxWorkloads": {"defaultWorkload": "container", "enabled": True},
            "toolkit": enabled,
            "validator": {"plugin": {"env": [{"name": "WITH_WORKLOAD", "value": "false"}]}},
            "vfioManager": enabled,
            "vgpuDeviceManager": enabled,
            "vgpuManager": {**enabled, "image": "vgpu-manager", "repository": "registry.example.com/nvidia"},
        },
        "status": {"namespace": NS, "state": "ready"},
    }


def kubevirt_cr() -> dict[str, Any]:
    pci = [
        {"externalResourceProvider": True, "pciVendorSelector": sel, "resourceName": f"nvidia.com/{name}"}
        for sel, name in (("10DE:2236", "GA102GL_A10"), ("10DE:20F1", "GA100_A100_PCIE_40GB"), ("10DE:2331", "GH100_H100_PCIE"))
    ]
    mdev = [
        {"externalResourceProvider": True, "mdevNameSelector": f"NVIDIA {t}", "resourceName": f"nvidia.com/NVIDIA_{t}"}
        for t, _, _ in VGPU_TYPES
    ]
    return {
        "apiVersion": "kubevirt.io/v1",
        "kind": "KubeVirt",
        "metadata": {"creationTimestamp": T0, "name": "kubevirt", "namespace": "kubevirt", "uid": _uid("KubeVirt", "kubevirt")},
        "spec": {
            "configuration": {
                "developerConfiguration": {"featureGates": ["GPU", "HostDevices", "DisableMDEVConfiguration"]},
                "permittedHostDevices": {"mediatedDevices": mdev, "pciHostDevices": pci},
            }
        },
        "status": {"observedKubeVirtVersion": "v1.4.0", "operatorVersion": "v1.4.0", "phase": "Deployed"},
    }


# ---------------------------------------------------------------------------------------------- dump


def objects(size: Size, seed: int = 11) -> Iterator[dict[str, Any]]:
    """Every object of the dump, in the order kubectl lists them (nodes, pods, controllers, CRs)."""
    rng = random.Random(seed)
    infos: list[NodeInfo] = []
    nodes = []
    for i, (workload, fault) in enumerate(node_plan(rng, size.nodes)):
        obj, info = node(rng, i, workload, fault)
        nodes.append(obj)
        infos.append(info)
    yield from nodes
    del nodes
    daemons = list(daemon_pods(rng, infos))
    hosts: dict[str, list[NodeInfo]] = {"container": [], "cpu": []}
    for n in infos:
        if n.workload in hosts and not n.fault:
            hosts[n.workload].append(n)
    vm_nodes = [n for n in infos if n.workload.startswith("vm-")]
    controllers = apps(rng, max(0, size.pods - len(daemons)), hosts["container"], vm_nodes)
    produced = 0
    for p in daemons[: size.pods]:
        produced += 1
        yield p
    for a in controllers:
        for p in app_pods(rng, a, hosts):
            if produced < size.pods:
                produced += 1
                yield p
    for a in controllers:
        yield controller(a)
    yield from daemonsets()
    yield cluster_policy()
    yield kubevirt_cr()
    yield from vm_objects(rng, size.vmis, infos)


_INDENT = re.compile(rb"\n( +)")


def _kubectl_json(obj: dict[str, Any], depth: int) -> bytes:
    """``obj`` indented by 4 spaces a level (kubectl's layout), starting ``depth`` levels in."""
    body = orjson.dumps(obj, option=orjson.OPT_INDENT_2)  # leading spaces are indentation only: strings hold no newline
    pad = b" " * (4 * depth)
    return pad + _INDENT.sub(lambda m: b"\n" + pad + m.group(1) * 2, body)


def write(size: Size, out: Path, seed: int = 11) -> int:
    """Write the dump of ``size`` to ``out``; returns the number of objects."""
    return _write_list(objects(size, seed), out)


def _write_list(items: Iterable[dict[str, Any]], out: Path) -> int:
    """Write ``items`` to ``out`` as the List ``kubectl get -o json`` prints; returns their number."""
    n = 0
    out.parent.mkdir(parents=True, exist_ok=True)  # (trial 197: a traceback for -o big/gen-1k.json without big/)
    with out.open("wb") as fh:
        fh.write(b'{\n    "apiVersion": "v1",\n    "items": [\n')
        for obj in items:
            fh.write((b",\n" if n else b"") + _kubectl_json(obj, 2))
            n += 1
        fh.write(b'\n    ],\n    "kind": "List",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}\n')
    return n


def pending_cluster(nodes: int, pending: int, out: Path, seed: int = 11) -> int:
    """Write a dump for the scheduling figure: ``nodes`` nodes with their daemon Pods (bound), then ``pending``
    pending Pods of the same application templates as ``objects`` makes. Returns the number of objects."""
    rng = random.Random(seed)
    pairs = [node(rng, i, workload, fault) for i, (workload, fault) in enumerate(node_plan(rng, nodes))]
    infos = [info for _, info in pairs]
    items: list[dict[str, Any]] = [obj for obj, _ in pairs]
    items.extend(daemon_pods(rng, infos))
    hosts: dict[str, list[NodeInfo]] = {"container": [], "cpu": []}
    for a in apps(rng, pending, [n for n in infos if n.workload == "container"], [n for n in infos if n.workload != "cpu"]):
        a.pending = 1.0
        items.extend(app_pods(rng, a, hosts))
    return _write_list(items, out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("size", help=f"{', '.join(SIZES)} or NODES:PODS:VMIS")
    ap.add_argument("-o", "--output", required=True, type=Path)
    ap.add_argument("--seed", type=int, default=11)
    args = ap.parse_args()
    try:
        size = parse_size(args.size)
    except ValueError as exc:
        ap.error(str(exc))
    n = write(size, args.output, args.seed)
    print(f"{args.output}: {n:,} objects, {args.output.stat().st_size / 2**20:.1f} MiB", file=sys.stderr)


if __name__ == "__main__":
    main()
