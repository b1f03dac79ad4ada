"""Regenerate the lab must-gather (``lab/``) and its plain equivalent (``lab.json``).

Not run by the tests; run ``.venv/bin/python tests/data/must-gather/generate_lab.py`` after editing the
cluster below. One definition feeds both outputs, written the way the real tools write them:

- ``gpu_nodes.labels``: the labels JSON as ``kubectl get -ojsonpath={.metadata.labels}`` prints it (Go
  ``json.Marshal``: compact, keys sorted, no trailing newline) piped through the exact sed/tr pipeline of
  NVIDIA/gpu-operator ``hack/must-gather.sh``, run by bash.
- ``gpu_nodes.descr``: kubectl's ``describeNode`` (kubernetes/kubectl ``pkg/describe/describe.go``)
  through a port of Go's ``text/tabwriter`` (minwidth 0, tabwidth 8, padding 2, spaces, no flags);
  ``kubectl describe nodes`` separates nodes with a blank pair of lines.
- the YAML files as ``kubectl get -oyaml`` writes them (keys sorted; ``-A``/namespace lists as ``kind: List``).

The lab: ``gpu-container-1`` (container, 2x nvidia.com/gpu), ``gpu-passthrough-1`` (vm-passthrough,
1x nvidia.com/GA102GL_A10, tainted), ``gpu-vgpu-1`` (vm-vgpu, 4x nvidia.com/NVIDIA_A10-12Q) and
``gpu-broken-1``: labelled vm-passthrough, cordoned, but still advertising 2x nvidia.com/gpu.
"""

from __future__ import annotations

import json
import re
import subprocess
import uuid
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path
from typing import Any

import yaml

from rules.quantity import parse_quantity

HERE = Path(__file__).parent
NS = "gpu-operator"
NOW = datetime(2025, 2, 3, 10, 41, 7, tzinfo=UTC)
PIPELINE = r"""sed 's|,|,- |g' | tr ',' '\n' | sed 's/{"/- /' | tr : = | sed 's/"//g' | sed 's/}/\n/'"""


class TabWriter:
    """Go text/tabwriter with kubectl's settings (Init(buf, 0, 8, 2, ' ', 0))."""

    def __init__(self, padding: int = 2) -> None:
        self.padding = padding
        self.out: list[str] = []
        self.lines: list[list[str]] = []
        self.cells: list[str] = []
        self.cell = ""

    def write(self, text: str) -> None:
        for ch in text:
            if ch == "\t":
                self.cells.append(self.cell)
                self.cell = ""
            elif ch == "\n":
                self.cells.append(self.cell)
                self.lines.append(self.cells)
                ncells = len(self.cells)
                self.cells, self.cell = [], ""
                if ncells == 1:  # a one-cell line cannot affect later columns: Go flushes here
                    self.flush()
            else:
                self.cell += ch

    def flush(self) -> None:
        self._format(0, len(self.lines), [])
        self.lines = []

    def text(self) -> str:
        self.flush()
        return "".join(self.out)

    def _format(self, line0: int, line1: int, widths: list[int]) -> None:
        column = len(widths)
        this = line0
        while this < line1:
            if column >= len(self.lines[this]) - 1:
                this += 1
                continue
            self._write(line0, this, widths)
            line0 = this
            width = 0
            while this < line1 and column < len(self.lines[this]) - 1:
                width = max(width, len(self.lines[this][column]) + self.padding)
                this += 1
            self._format(line0, this, [*widths, width])
            line0 = this
        self._write(line0, line1, widths)

    def _write(self, line0: int, line1: int, widths: list[int]) -> None:
        for line in self.lines[line0:line1]:
            for j, cell in enumerate(line):
                self.out.append(cell)
                if j < len(widths):
                    self.out.append(" " * (widths[j] - len(cell)))
            self.out.append("\n")


def rfc1123z(iso: str) -> str:
    if "," in iso:  # already in kubectl's form (keeps the offset of the machine that printed it)
        return iso
    return datetime.strptime(iso, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC).strftime("%a, %d %b %Y %H:%M:%S %z")


def qstr(value: Fraction, memory: bool) -> str:
    """Quantity.String() for the sums kubectl prints (integers, milli-cpu, binary memory)."""
    if value == 0:
        return "0"
    if not memory:
        return str(value.numerator) if value.denominator == 1 else f"{int(value * 1000)}m"
    for suffix, size in (("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
        if value % size == 0:
            return f"{int(value / size)}{suffix}"
    return str(int(value))


def describe_node(node: dict[str, Any], pods: list[dict[str, Any]], events: list[tuple[str, ...]], old: bool = False) -> str:
    """kubectl's describeNode; ``old`` is the kubectl 1.10 layout (no Lease, one-space resource
    lists, no Age column, CPU/memory-only Allocated table)."""
    meta, spec, status = node["metadata"], node["spec"], node["status"]
    ind = " " if old else "  "
    w = TabWriter()
    write = w.write
    labels = meta["labels"]
    roles = sorted(k.split("/", 1)[1] for k in labels if k.startswith("node-role.kubernetes.io/"))
    write(f"Name:\t{meta['name']}\n")
    write(f"Roles:\t{','.join(roles) or '<none>'}\n")
    write("Labels:\t")
    for i, key in enumerate(sorted(labels)):
        write(("\t" if i else "") + f"{key}={labels[key]}\n")
    write("Annotations:\t")
    annotations = meta.get("annotations", {})
    for i, key in enumerate(sorted(annotations)):
        if i:
            write("\t")
        value = annotations[key]
        if len(value) + len(key) + 2 > 140 or "\n" in value:
            write(f"{key}:\n")
            for part in value.split("\n"):
                write(f"\t  {part[:138] + '...' if len(part) > 138 else part}\n")
        else:
            write(f"{key}: {value}\n")
    if not annotations:
        write("<none>\n")
    write(f"CreationTimestamp:\t{rfc1123z(meta['creationTimestamp'])}\n")
    write("Taints:\t")
    taints = sorted(spec.get("taints", []), key=lambda t: f"{t['effect']},{t['key']}")
    for i, t in enumerate(taints):
        value = f"={t['value']}" if t.get("value") else ""
        write(("\t" if i else "") + f"{t['key']}{value}:{t['effect']}\n")
    if not taints:
        write("<none>\n")
    write(f"Unschedulable:\t{'true' if spec.get('unschedulable') else 'false'}\n")
    if "renew" in status:
        write("Lease:\n")
        write(f"  HolderIdentity:\t{meta['name']}\n  AcquireTime:\t<unset>\n  RenewTime:\t{rfc1123z(status['renew'])}\n")
    write("Conditions:\n  Type\tStatus\tLastHeartbeatTime\tLastTransitionTime\tReason\tMessage\n")
    write("  ----\t------\t-----------------\t------------------\t------\t-------\n")
    for c in status["conditions"]:
        write(
            f"  {c['type']} \t{c['status']} \t{rfc1123z(c['lastHeartbeatTime'])} \t"
            f"{rfc1123z(c['lastTransitionTime'])} \t{c['reason']} \t{c['message']}\n"
        )
    write("Addresses:\n")
    for a in status["addresses"]:
        write(f"  {a['type']}:\t{a['address']}\n")
    for title in ("capacity", "allocatable"):
        write(f"{title.capitalize()}:\n")
        for name in sorted(status[title]):
            write(f"{ind}{name}:\t{status[title][name]}\n")
    info = status["nodeInfo"]
    write("System Info:\n")
    for label, key in (
        ("Machine ID", "machineID"),
        ("System UUID", "systemUUID"),
        ("Boot ID", "bootID"),
        ("Kernel Version", "kernelVersion"),
        ("OS Image", "osImage"),
        ("Operating System", "operatingSystem"),
        ("Architecture", "architecture"),
        ("Container Runtime Version", "containerRuntimeVersion"),
        ("Kubelet Version", "kubeletVersion"),
        ("Kube-Proxy Version", "kubeProxyVersion"),
    ):
        if key in info:
            write(f"{ind}{label}:\t{info[key]}\n")
    if old:
        write(f"ExternalID:\t{meta['name']}\n")
    if "podCIDR" in spec:
        write(f"PodCIDR:\t{spec['podCIDR']}\n")
    if "podCIDRs" in spec:
        write(f"PodCIDRs:\t{','.join(spec['podCIDRs'])}\n")
    if "providerID" in spec:
        write(f"ProviderID:\t{spec['providerID']}\n")
    allocatable = status["allocatable"]
    cpu, mem = parse_quantity(allocatable["cpu"]) * 1000, parse_quantity(allocatable["memory"])
    pods = sorted(pods, key=lambda p: (p["namespace"], p["name"]))  # the API server lists by key
    write(f"Non-terminated Pods:\t({len(pods)} in total)\n")
    age = "" if old else "\tAge"
    write(f"  Namespace\tName\t\tCPU Requests\tCPU Limits\tMemory Requests\tMemory Limits{age}\n")
    write(f"  ---------\t----\t\t------------\t----------\t---------------\t-------------{age and chr(9) + '---'}\n")
    totals: dict[str, dict[str, Fraction]] = {"requests": {}, "limits": {}}
    for pod in pods:
        cells = []
        for kind in ("requests", "limits"):
            for res in pod.get(kind, {}):
                totals[kind][res] = totals[kind].get(res, Fraction(0)) + parse_quantity(pod[kind][res])
        for kind, res in (("requests", "cpu"), ("limits", "cpu"), ("requests", "memory"), ("limits", "memory")):
            q = parse_quantity(pod.get(kind, {}).get(res, "0"))
            whole = q * 1000 / cpu if res == "cpu" else q / mem
            cells.append(f"{qstr(q, res == 'memory')} ({int(whole * 100)}%)")
        row = f"  {pod['namespace']}\t{pod['name']}\t\t{cells[0]}\t{cells[1]}\t{cells[2]}\t{cells[3]}"
        write(row + ("\n" if old else f"\t{pod['age']}\n"))
    write("Allocated resources:\n  (Total limits may be over 100 percent, i.e., overcommitted.)\n")
    if old:
        cells = []
        for kind, res in (("requests", "cpu"), ("limits", "cpu"), ("requests", "memory"), ("limits", "memory")):
            q = totals[kind].get(res, Fraction(0))
            whole = q * 1000 / cpu if res == "cpu" else q / mem
            cells.append(f"{qstr(q, res == 'memory')} ({int(whole * 100)}%)")
        write("  CPU Requests\tCPU Limits\tMemory Requests\tMemory Limits\n")
        write("  ------------\t----------\t---------------\t-------------\n")
        write("  " + "\t".join(cells) + "\n")
        write("Events:\t<none>\n")
        return w.text()
    write("  Resource\tRequests\tLimits\n  --------\t--------\t------\n")
    for res in ("cpu", "memory", "ephemeral-storage"):
        whole = cpu / 1000 if res == "cpu" else parse_quantity(allocatable[res])
        req, lim = (totals[k].get(res, Fraction(0)) for k in ("requests", "limits"))
        write(
            f"  {res}\t{qstr(req, res != 'cpu')} ({int(req / whole * 100)}%)\t"
            f"{qstr(lim, res != 'cpu')} ({int(lim / whole * 100)}%)\n"
        )
    standard = {"cpu", "memory", "ephemeral-storage", "pods"}
    for res in sorted(r for r in allocatable if r.startswith("hugepages-")):
        write(f"  {res}\t0 (0%)\t0 (0%)\n")
    for res in sorted(r for r in allocatable if r not in standard and not r.startswith("hugepages-")):
        req, lim = (totals[k].get(res, Fraction(0)) for k in ("requests", "limits"))
        write(f"  {res}\t{qstr(req, False)}\t{qstr(lim, False)}\n")
    if not events:
        write("Events:\t<none>\n")
    else:
        w.flush()
        write("Events:\n  Type\tReason\tAge\tFrom\tMessage\n  ----\t------\t----\t----\t-------\n")
        for event in events:
            write("  " + "\t".join(event) + "\n")
    return w.text()


def base_labels(name: str) -> dict[str, str]:
    nfd = "feature.node.kubernetes.io/"
    return {
        "beta.kubernetes.io/arch": "amd64",
        "beta.kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "kubernetes.io/hostname": name,
        "kubernetes.io/os": "linux",
        "node-role.kubernetes.io/worker": "",
        nfd + "cpu-cpuid.AVX512F": "true",
        nfd + "cpu-cpuid.VMX": "true",
        nfd + "cpu-model.vendor_id": "Intel",
        nfd + "kernel-config.NO_HZ": "true",
        nfd + "kernel-version.full": "5.15.0-126-generic",
        nfd + "kernel-version.major": "5",
        nfd + "kernel-version.minor": "15",
        nfd + "kernel-version.revision": "0",
        nfd + "pci-10de.present": "true",
        nfd + "pci-10de.sriov.capable": "true",
        nfd + "pci-8086.present": "true",
        nfd + "system-os_release.ID": "ubuntu",
        nfd + "system-os_release.VERSION_ID": "22.04",
        nfd + "system-os_release.VERSION_ID.major": "22",
        nfd + "system-os_release.VERSION_ID.minor": "04",
        "nvidia.com/gpu.present": "true",
    }


CONTAINER_DEPLOY = [
    "driver",
    "gpu-feature-discovery",
    "container-toolkit",
    "device-plugin",
    "dcgm",
    "dcgm-exporter",
    "node-status-exporter",
    "operator-validator",
]
PASSTHROUGH_DEPLOY = ["sandbox-device-plugin", "sandbox-validator", "vfio-manager", "kata-manager", "cc-manager"]
VGPU_DEPLOY = ["sandbox-device-plugin", "sandbox-validator", "cc-manager", "vgpu-manager", "vgpu-device-manager"]
GFD = {
    "nvidia.com/cuda.driver-version.full": "550.127.08",
    "nvidia.com/cuda.driver-version.major": "550",
    "nvidia.com/cuda.driver-version.minor": "127",
    "nvidia.com/cuda.driver-version.revision": "08",
    "nvidia.com/cuda.runtime-version.full": "12.4",
    "nvidia.com/cuda.runtime-version.major": "12",
    "nvidia.com/cuda.runtime-version.minor": "4",
    "nvidia.com/gfd.timestamp": "1736761204",
    "nvidia.com/gpu.compute.major": "8",
    "nvidia.com/gpu.compute.minor": "6",
    "nvidia.com/gpu.count": "2",
    "nvidia.com/gpu.family": "ampere",
    "nvidia.com/gpu.machine": "PowerEdge-R750xa",
    "nvidia.com/gpu.memory": "23028",
    "nvidia.com/gpu.mode": "compute",
    "nvidia.com/gpu.product": "NVIDIA-A10",
    "nvidia.com/gpu.replicas": "1",
    "nvidia.com/gpu.sharing-strategy": "none",
    "nvidia.com/mig.capable": "false",
    "nvidia.com/mig.strategy": "single",
    "nvidia.com/mps.capable": "false",
}
KUBEVIRT_LABELS = {
    "cpu-vendor.node.kubevirt.io/Intel": "true",
    "host-model-cpu.node.kubevirt.io/Icelake-Server-v2": "true",
    "kubevirt.io/schedulable": "true",
    "machine-type.node.kubevirt.io/pc-q35-rhel9.4.0": "true",
}
NFD_FEATURES = ",".join(
    ["cpu-cpuid.AVX512F", "cpu-cpuid.VMX", "cpu-model.vendor_id", "kernel-config.NO_HZ"]
    + [f"kernel-version.{p}" for p in ("full", "major", "minor", "revision")]
    + ["pci-10de.present", "pci-10de.sriov.capable", "pci-8086.present"]
    + [f"system-os_release.{p}" for p in ("ID", "VERSION_ID", "VERSION_ID.major", "VERSION_ID.minor")]
)


def resources(extra: dict[str, str], kubevirt: bool) -> tuple[dict[str, str], dict[str, str]]:
    capacity = {
        "cpu": "32",
        "ephemeral-storage": "959786032Ki",
        "hugepages-1Gi": "0",
        "hugepages-2Mi": "0",
        "memory": "263724264Ki",
        "pods": "110",
        **extra,
    }
    allocatable = {**capacity, "ephemeral-storage": "884538002961", "memory": "263621864Ki"}
    if kubevirt:
        for dev in ("kvm", "tun", "vhost-net"):
            capacity[f"devices.kubevirt.io/{dev}"] = allocatable[f"devices.kubevirt.io/{dev}"] = "1k"
    return capacity, allocatable


def node(
    name: str,
    ip: str,
    cidr: str,
    uid: str,
    labels: dict[str, str],
    extra: dict[str, str],
    *,
    kubevirt: bool,
    taints: list[dict[str, str]] | None = None,
    cordoned: bool = False,
) -> dict[str, Any]:
    capacity, allocatable = resources(extra, kubevirt)
    annotations = {
        "kubeadm.alpha.kubernetes.io/cri-socket": "unix:///var/run/containerd/containerd.sock",
        "nfd.node.kubernetes.io/feature-labels": NFD_FEATURES,
        "nfd.node.kubernetes.io/worker.version": "v0.16.6",
        "node.alpha.kubernetes.io/ttl": "0",
        "projectcalico.org/IPv4Address": f"{ip}/24",
        "projectcalico.org/IPv4VXLANTunnelAddr": cidr.replace(".0/24", ".1"),
        "volumes.kubernetes.io/controller-managed-attach-detach": "true",
    }
    if kubevirt:
        annotations["kubevirt.io/heartbeat"] = "2025-02-03T10:40:31Z"
    ready = [
        ("NetworkUnavailable", "False", "CalicoIsUp", "Calico is running on this node", "2025-01-13T09:14:02Z"),
        ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available", None),
        ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure", None),
        ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available", None),
        ("Ready", "True", "KubeletReady", "kubelet is posting ready status", "2025-01-13T09:13:31Z"),
    ]
    spec: dict[str, Any] = {"podCIDR": cidr, "podCIDRs": [cidr]}
    if taints:
        spec["taints"] = taints
    if cordoned:
        spec["unschedulable"] = True
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "uid": uid,
            "creationTimestamp": "2025-01-13T09:12:44Z",
            "labels": labels,
            "annotations": annotations,
        },
        "spec": spec,
        "status": {
            "renew": "2025-02-03T10:41:02Z",
            "conditions": [
                {
                    "type": t,
                    "status": s,
                    "reason": r,
                    "message": m,
                    "lastHeartbeatTime": "2025-01-13T09:14:02Z" if t == "NetworkUnavailable" else "2025-02-03T10:39:55Z",
                    "lastTransitionTime": tt or "2025-01-13T09:12:44Z",
                }
                for t, s, r, m, tt in ready
            ],
            "addresses": [{"type": "InternalIP", "address": ip}, {"type": "Hostname", "address": name}],
            "capacity": capacity,
            "allocatable": allocatable,
            "nodeInfo": {
                "machineID": uid.replace("-", "")[:32],
                "systemUUID": uid.upper(),
                "bootID": str(uuid.uuid5(uuid.NAMESPACE_DNS, name + ".boot")),
                "kernelVersion": "5.15.0-126-generic",
                "osImage": "Ubuntu 22.04.5 LTS",
                "operatingSystem": "linux",
                "architecture": "amd64",
                "containerRuntimeVersion": "containerd://1.7.24",
                "kubeletVersion": "v1.30.8",
                "kubeProxyVersion": "v1.30.8",
            },
        },
    }


def deploy(names: list[str]) -> dict[str, str]:
    return {f"nvidia.com/gpu.deploy.{n}": "true" for n in names}


def pod(ns: str, name: str, age: str = "21d", **res: dict[str, str]) -> dict[str, Any]:
    return {"namespace": ns, "name": name, "age": age, **res}


def common_pods(suffix: str) -> list[dict[str, Any]]:
    return [
        pod(NS, f"gpu-operator-node-feature-discovery-worker-{suffix[:5]}"),
        pod("kube-system", f"calico-node-{suffix[5:10]}", requests={"cpu": "250m"}),
        pod("kube-system", f"kube-proxy-{suffix[10:15]}"),
    ]


def cluster() -> tuple[list[dict[str, Any]], dict[str, list[dict[str, Any]]], dict[str, list[tuple[str, ...]]]]:
    kv = {"requests": {"cpu": "10m", "memory": "357Mi"}}
    launcher = {f"devices.kubevirt.io/{d}": "1" for d in ("kvm", "tun", "vhost-net")}
    container_labels = {
        **base_labels("gpu-container-1"),
        **GFD,
        **deploy(CONTAINER_DEPLOY),
        "nvidia.com/gpu.workload.config": "container",
    }
    passthrough_labels = {
        **base_labels("gpu-passthrough-1"),
        **KUBEVIRT_LABELS,
        **deploy(PASSTHROUGH_DEPLOY),
        "nvidia.com/gpu.workload.config": "vm-passthrough",
    }
    vgpu_labels = {
        **base_labels("gpu-vgpu-1"),
        **KUBEVIRT_LABELS,
        **deploy(VGPU_DEPLOY),
        "nvidia.com/gpu.workload.config": "vm-vgpu",
        "nvidia.com/vgpu.config": "A10-12Q",
        "nvidia.com/vgpu.config.state": "success",
    }
    broken_labels = {
        **base_labels("gpu-broken-1"),
        **KUBEVIRT_LABELS,
        **deploy(PASSTHROUGH_DEPLOY),
        **{k: v for k, v in GFD.items() if k.startswith("nvidia.com/gpu.")},
        "nvidia.com/gpu.workload.config": "vm-passthrough",
    }
    nodes = [
        node(
            "gpu-broken-1",
            "10.20.0.14",
            "192.168.14.0/24",
            "5b0e7c21-3f4a-4d8e-9c61-0a7d2e94b3f1",
            broken_labels,
            {"nvidia.com/gpu": "2"},
            kubevirt=True,
            cordoned=True,
            taints=[{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}],
        ),
        node(
            "gpu-container-1",
            "10.20.0.11",
            "192.168.11.0/24",
            "0c6f3a9e-8b21-4f57-a0d4-7e5b19c2f806",
            container_labels,
            {"nvidia.com/gpu": "2"},
            kubevirt=False,
        ),
        node(
            "gpu-passthrough-1",
            "10.20.0.12",
            "192.168.12.0/24",
            "9e2d4b17-6c3a-48f0-b5e9-1d7a0c83f2a4",
            passthrough_labels,
            {"nvidia.com/GA102GL_A10": "1"},
            kubevirt=True,
            taints=[{"key": "dedicated", "value": "vm-workloads", "effect": "NoSchedule"}],
        ),
        node(
            "gpu-vgpu-1",
            "10.20.0.13",
            "192.168.13.0/24",
            "47a1c9e3-2d5b-4e80-8f16-b3c0d7a92e15",
            vgpu_labels,
            {"nvidia.com/NVIDIA_A10-12Q": "4"},
            kubevirt=True,
        ),
    ]
    pods = {
        "gpu-container-1": [
            *common_pods("k7q2xt9wmbr4hzp"),
            pod(NS, "gpu-feature-discovery-x8n4c"),
            pod(NS, "nvidia-container-toolkit-daemonset-7jv5w"),
            pod(NS, "nvidia-dcgm-exporter-q2f9k"),
            pod(NS, "nvidia-device-plugin-daemonset-m4hxr"),
            pod(NS, "nvidia-driver-daemonset-p6z8d"),
            pod(NS, "nvidia-operator-validator-b5w2n"),
            pod(
                "ml-team",
                "jupyter-a10-0",
                "3d4h",
                requests={"cpu": "2", "memory": "16Gi", "nvidia.com/gpu": "1"},
                limits={"cpu": "4", "memory": "16Gi", "nvidia.com/gpu": "1"},
            ),
        ],
        "gpu-passthrough-1": [
            *common_pods("r2m6vlc8q4xw7tn"),
            pod("kubevirt", "virt-handler-6hz9p", requests=kv["requests"]),
            pod(NS, "nvidia-sandbox-device-plugin-daemonset-f7kqs"),
            pod(NS, "nvidia-sandbox-validator-2lx6m"),
            pod(NS, "nvidia-vfio-manager-c9t4r"),
            pod(
                "vm-team",
                "virt-launcher-win11-a10-r8wz4",
                "26h",
                requests={"cpu": "100m", "memory": "8486Mi", "nvidia.com/GA102GL_A10": "1", **launcher},
                limits={"nvidia.com/GA102GL_A10": "1", **launcher},
            ),
        ],
        "gpu-vgpu-1": [
            *common_pods("d5s8kgn3w7vq2hx"),
            pod("kubevirt", "virt-handler-n4c7j", requests=kv["requests"]),
            pod(NS, "nvidia-sandbox-device-plugin-daemonset-9bq2d"),
            pod(NS, "nvidia-sandbox-validator-k3r8v"),
            pod(NS, "nvidia-vgpu-device-manager-w6p4t"),
            pod(NS, "nvidia-vgpu-manager-daemonset-h2m5x"),
            pod(
                "vdi",
                "virt-launcher-desktop-01-t9x2q",
                "5d",
                requests={"cpu": "100m", "memory": "4342Mi", "nvidia.com/NVIDIA_A10-12Q": "1", **launcher},
                limits={"nvidia.com/NVIDIA_A10-12Q": "1", **launcher},
            ),
            pod(
                "vdi",
                "virt-launcher-desktop-02-j5l8m",
                "5d",
                requests={"cpu": "100m", "memory": "4342Mi", "nvidia.com/NVIDIA_A10-12Q": "1", **launcher},
                limits={"nvidia.com/NVIDIA_A10-12Q": "1", **launcher},
            ),
        ],
        "gpu-broken-1": [
            *common_pods("z3t7hbq9c2mk6wf"),
            pod("kubevirt", "virt-handler-t8v3b", requests=kv["requests"]),
            pod(NS, "nvidia-sandbox-device-plugin-daemonset-l6d9z", "47m"),
            pod(NS, "nvidia-sandbox-validator-v4g7s", "47m"),
            pod(NS, "nvidia-vfio-manager-s5n2k", "47m"),
        ],
    }
    events = {
        "gpu-broken-1": [
            ("Normal", "NodeNotSchedulable", "52m", "kubelet", "Node gpu-broken-1 status is now: NodeNotSchedulable"),
        ]
    }
    return nodes, pods, events


def clean_node(n: dict[str, Any]) -> dict[str, Any]:
    out = json.loads(json.dumps(n))
    out["status"].pop("renew")
    return out


def labels_file(nodes: list[dict[str, Any]]) -> str:
    """The exact must-gather.sh loop: name line, then the jsonpath JSON through the pipeline, then a blank."""
    out = []
    for n in sorted(nodes, key=lambda n: n["metadata"]["name"]):
        compact = json.dumps(n["metadata"]["labels"], separators=(",", ":"), sort_keys=True)
        piped = subprocess.run(["bash", "-c", PIPELINE], input=compact, capture_output=True, text=True, check=True).stdout
        out.append(f"{n['metadata']['name']}\n{piped}\n")
    return "".join(out)


def status_table(rows: list[list[str]]) -> str:
    w = TabWriter(padding=3)
    for row in rows:
        w.write("\t".join(row) + "\n")
    return w.text()


def cluster_policy() -> dict[str, Any]:
    tolerations = [{"effect": "NoSchedule", "key": "nvidia.com/gpu", "operator": "Exists"}]
    manager = {
        "env": [{"name": "ENABLE_GPU_POD_EVICTION", "value": "false"}, {"name": "ENABLE_AUTO_DRAIN", "value": "false"}],
        "image": "k8s-driver-manager",
        "imagePullPolicy": "IfNotPresent",
        "repository": "nvcr.io/nvidia/cloud-native",
        "version": "v0.7.0",
    }

    def image(repo: str, name: str, version: str, **extra: Any) -> dict[str, Any]:
        return {
            "enabled": True,
            "image": name,
            "imagePullPolicy": "IfNotPresent",
            "repository": repo,
            "version": version,
            **extra,
        }

    return {
        "apiVersion": "nvidia.com/v1",
        "kind": "ClusterPolicy",
        "metadata": {
            "annotations": {"meta.helm.sh/release-name": "gpu-operator", "meta.helm.sh/release-namespace": NS},
            "creationTimestamp": "2025-01-13T09:30:02Z",
            "generation": 3,
            "labels": {"app.kubernetes.io/component": "gpu-operator", "app.kubernetes.io/managed-by": "Helm"},
            "name": "gpu-cluster-policy",
            "resourceVersion": "4187521",
            "uid": "8a7e3b1c-5d2f-4c09-9e61-f0b4a2d7c815",
        },
        "spec": {
            "ccManager": {"defaultMode": "off", "enabled": False},
            "cdi": {"default": False, "enabled": False},
            "daemonsets": {
                "priorityClassName": "system-node-critical",
                "rollingUpdate": {"maxUnavailable": "1"},
                "tolerations": tolerations,
                "updateStrategy": "RollingUpdate",
            },
            "dcgm": {"enabled": True},
            "dcgmExporter": image(
                "nvcr.io/nvidia/k8s", "dcgm-exporter", "3.3.9-3.6.1-ubuntu22.04", serviceMonitor={"enabled": False}
            ),
            "devicePlugin": image("nvcr.io/nvidia", "k8s-device-plugin", "v0.17.0"),
            "driver": image(
                "nvcr.io/nvidia",
                "driver",
                "550.127.08",
                manager=manager,
                upgradePolicy={"autoUpgrade": True, "maxParallelUpgrades": 1},
            ),
            "gfd": image("nvcr.io/nvidia", "k8s-device-plugin", "v0.17.0"),
            "kataManager": {"enabled": False},
            "mig": {"strategy": "single"},
            "migManager": image("nvcr.io/nvidia/cloud-native", "k8s-mig-manager", "v0.10.0-ubuntu20.04"),
            "nodeStatusExporter": {"enabled": False},
            "operator": {"defaultRuntime": "containerd", "runtimeClass": "nvidia"},
            "sandboxDevicePlugin": image("nvcr.io/nvidia", "kubevirt-gpu-device-plugin", "v1.2.10"),
            "sandboxWorkloads": {"defaultWorkload": "container", "enabled": True},
            "toolkit": image("nvcr.io/nvidia/k8s", "container-toolkit", "v1.17.3-ubuntu20.04"),
            "validator": {
                "image": "gpu-operator-validator",
                "imagePullPolicy": "IfNotPresent",
                "repository": "nvcr.io/nvidia/cloud-native",
                "version": "v24.9.2",
            },
            "vfioManager": image("nvcr.io/nvidia", "cuda", "12.6.3-base-ubi9", driverManager=manager),
            "vgpuDeviceManager": image(
                "nvcr.io/nvidia/cloud-native", "vgpu-device-manager", "v0.2.8", config={"default": "default", "name": ""}
            ),
            "vgpuManager": image("registry.example.com/nvidia", "vgpu-manager", "550.127.06-ubuntu22.04", driverManager=manager),
        },
        "status": {
            "conditions": [
                {
                    "lastTransitionTime": "2025-02-03T09:49:12Z",
                    "message": "",
                    "reason": "Ready",
                    "status": "True",
                    "type": "Ready",
                },
                {
                    "lastTransitionTime": "2025-02-03T09:49:12Z",
                    "message": "",
                    "reason": "Ready",
                    "status": "False",
                    "type": "Error",
                },
            ],
            "namespace": NS,
            "state": "ready",
        },
    }


def kubevirt() -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "List",
        "metadata": {"resourceVersion": ""},
        "items": [
            {
                "apiVersion": "kubevirt.io/v1",
                "kind": "KubeVirt",
                "metadata": {
                    "annotations": {
                        "kubevirt.io/latest-observed-api-version": "v1",
                        "kubevirt.io/storage-observed-api-version": "v1",
                    },
                    "creationTimestamp": "2025-01-13T10:02:19Z",
                    "finalizers": ["foregroundDeleteKubeVirt"],
                    "generation": 4,
                    "name": "kubevirt",
                    "namespace": "kubevirt",
                    "resourceVersion": "4179930",
                    "uid": "d3f6a0b2-7e19-4c85-a2d4-6b9e1f07c3a8",
                },
                "spec": {
                    "certificateRotateStrategy": {},
                    "configuration": {
                        "developerConfiguration": {"featureGates": ["GPU", "HostDevices", "DisableMDEVConfiguration"]},
                        "permittedHostDevices": {
                            "mediatedDevices": [
                                {
                                    "externalResourceProvider": True,
                                    "mdevNameSelector": "NVIDIA A10-12Q",
                                    "resourceName": "nvidia.com/NVIDIA_A10-12Q",
                                }
                            ],
                            "pciHostDevices": [
                                {
                                    "externalResourceProvider": True,
                                    "pciVendorSelector": "10DE:2236",
                                    "resourceName": "nvidia.com/GA102GL_A10",
                                }
                            ],
                        },
                    },
                    "customizeComponents": {},
                    "imagePullPolicy": "IfNotPresent",
                    "workloadUpdateStrategy": {},
                },
                "status": {
                    "conditions": [
                        {
                            "lastProbeTime": "2025-01-13T10:04:41Z",
                            "lastTransitionTime": "2025-01-13T10:04:41Z",
                            "message": "All components are ready.",
                            "reason": "AllComponentsReady",
                            "status": "True",
                            "type": "Available",
                        },
                        {
                            "lastProbeTime": "2025-01-13T10:04:41Z",
                            "lastTransitionTime": "2025-01-13T10:04:41Z",
                            "message": "All components are ready.",
                            "reason": "AllComponentsReady",
                            "status": "False",
                            "type": "Degraded",
                        },
                    ],
                    "observedKubeVirtVersion": "v1.4.0",
                    "operatorVersion": "v1.4.0",
                    "phase": "Deployed",
                    "targetKubeVirtVersion": "v1.4.0",
                },
            }
        ],
    }


def daemonsets() -> dict[str, Any]:
    """The operand DaemonSets (names and selectors: docs/gpu-operator-facts.md section 2); counts follow the lab's labels."""
    specs = [  # name, state label, image, desired, ready
        ("nvidia-device-plugin-daemonset", "device-plugin", "nvcr.io/nvidia/k8s-device-plugin:v0.17.0", 1, 1),
        ("nvidia-driver-daemonset", "driver", "nvcr.io/nvidia/driver:550.127.08-ubuntu22.04", 1, 1),
        (
            "nvidia-sandbox-device-plugin-daemonset",
            "sandbox-device-plugin",
            "nvcr.io/nvidia/kubevirt-gpu-device-plugin:v1.2.10",
            3,
            2,
        ),
        ("nvidia-vfio-manager", "vfio-manager", "nvcr.io/nvidia/cuda:12.6.3-base-ubi9", 2, 1),
        ("nvidia-vgpu-device-manager", "vgpu-device-manager", "nvcr.io/nvidia/cloud-native/vgpu-device-manager:v0.2.8", 1, 1),
        (
            "nvidia-vgpu-manager-daemonset",
            "vgpu-manager",
            "registry.example.com/nvidia/vgpu-manager:550.127.06-ubuntu22.04",
            1,
            1,
        ),
    ]
    items = []
    for i, (name, state, img, desired, ready) in enumerate(specs):
        labels = {"app": name, "app.kubernetes.io/managed-by": "gpu-operator", "helm.sh/chart": "gpu-operator-v24.9.2"}
        items.append(
            {
                "apiVersion": "apps/v1",
                "kind": "DaemonSet",
                "metadata": {
                    "annotations": {
                        "deprecated.daemonset.template.generation": "1",
                        "nvidia.com/last-applied-hash": f"{1834719203 + i * 7919}",
                    },
                    "creationTimestamp": "2025-01-13T09:31:05Z",
                    "generation": 1,
                    "labels": labels,
                    "name": name,
                    "namespace": NS,
                    "ownerReferences": [
                        {
                            "apiVersion": "nvidia.com/v1",
                            "blockOwnerDeletion": True,
                            "controller": True,
                            "kind": "ClusterPolicy",
                            "name": "gpu-cluster-policy",
                            "uid": "8a7e3b1c-5d2f-4c09-9e61-f0b4a2d7c815",
                        }
                    ],
                    "resourceVersion": f"{4180112 + i}",
                    "uid": f"6c1d2e3f-4a5b-4c6d-8e7f-90a1b2c3d4e{i}",
                },
                "spec": {
                    "revisionHistoryLimit": 10,
                    "selector": {"matchLabels": {"app": name}},
                    "template": {
                        "metadata": {"labels": {"app": name}},
                        "spec": {
                            "containers": [
                                {
                                    "image": img,
                                    "imagePullPolicy": "IfNotPresent",
                                    "name": name.removesuffix("-daemonset") + "-ctr",
                                    "securityContext": {"privileged": True},
                                }
                            ],
                            "nodeSelector": {f"nvidia.com/gpu.deploy.{state}": "true"},
                            "priorityClassName": "system-node-critical",
                            "serviceAccountName": name.removesuffix("-daemonset"),
                            "tolerations": [{"effect": "NoSchedule", "key": "nvidia.com/gpu", "operator": "Exists"}],
                        },
                    },
                    "updateStrategy": {"rollingUpdate": {"maxSurge": 0, "maxUnavailable": "1"}, "type": "RollingUpdate"},
                },
                "status": {
                    "currentNumberScheduled": desired,
                    "desiredNumberScheduled": desired,
                    "numberAvailable": ready,
                    "numberMisscheduled": 0,
                    "numberReady": ready,
                    "numberUnavailable": desired - ready or None,
                    "observedGeneration": 1,
                    "updatedNumberScheduled": desired,
                },
            }
        )
        if desired == ready:
            items[-1]["status"].pop("numberUnavailable")
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items}


def to_yaml(obj: dict[str, Any]) -> str:
    """kubectl's YAML (go-yaml): keys sorted, ambiguous strings double-quoted."""
    text = yaml.safe_dump(obj, sort_keys=True, default_flow_style=False, width=4096)
    return re.sub(r"(: |- )'([^'\"\\]*)'$", r'\1"\2"', text, flags=re.M)


def main() -> None:
    nodes, pods, events = cluster()
    lab = HERE / "lab"
    lab.mkdir(exist_ok=True)
    ordered = sorted(nodes, key=lambda n: n["metadata"]["name"])
    (lab / "gpu_nodes.labels").write_text(labels_file(nodes))
    descr = [describe_node(n, pods[n["metadata"]["name"]], events.get(n["metadata"]["name"], [])) for n in ordered]
    (lab / "gpu_nodes.descr").write_text("\n\n".join(descr))
    rows = [
        [
            "NAME",
            "STATUS",
            "ROLES",
            "AGE",
            "VERSION",
            "INTERNAL-IP",
            "EXTERNAL-IP",
            "OS-IMAGE",
            "KERNEL-VERSION",
            "CONTAINER-RUNTIME",
        ]
    ]
    for n in ordered:
        state = "Ready,SchedulingDisabled" if n["spec"].get("unschedulable") else "Ready"
        rows.append(
            [
                n["metadata"]["name"],
                state,
                "worker",
                "21d",
                "v1.30.8",
                n["status"]["addresses"][0]["address"],
                "<none>",
                "Ubuntu 22.04.5 LTS",
                "5.15.0-126-generic",
                "containerd://1.7.24",
            ]
        )
    (lab / "gpu_nodes.status").write_text(status_table(rows))
    (lab / "cluster_policy.yaml").write_text(to_yaml(cluster_policy()))
    (lab / "kubevirt.yaml").write_text(to_yaml(kubevirt()))
    ds = daemonsets()
    (lab / "gpu_operand_ds.yaml").write_text(to_yaml(ds))
    ds_rows = [["NAME", "DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE", "NODE SELECTOR", "AGE"]]
    for d in ds["items"]:
        st, sel = d["status"], d["spec"]["template"]["spec"]["nodeSelector"]
        ds_rows.append(
            [
                d["metadata"]["name"],
                str(st["desiredNumberScheduled"]),
                str(st["currentNumberScheduled"]),
                str(st["numberReady"]),
                str(st["updatedNumberScheduled"]),
                str(st["numberAvailable"]),
                ",".join(f"{k}={v}" for k, v in sel.items()),
                "21d",
            ]
        )
    (lab / "gpu_operand_ds.status").write_text(status_table(ds_rows))
    (lab / "version").write_text("NVIDIA GPU Operator\nv24.9.2\n")
    (lab / "must-gather.stderr.log").write_text("")
    (lab / "gpu_operator_pod.previous.log").write_text("")
    (lab / "must-gather.log").write_text(
        "Running as must-gather plugin image\n#\n# KubeVirt HyperConverged Resources\n#\n\n"
        "HyperConverged resource(s) not found in the cluster.\nGet the operator namespaces\n"
        f"Using '{NS}' as operator namespace\n\n#\n# KubeVirt Resources\n#\n\nGet KubeVirt YAML\n"
        "#\n# ClusterPolicy\n#\n\nGet clusterpolicy.nvidia.com/gpu-cluster-policy\n\n#\n# Nodes and machines\n"
        "#\n\nGet the labels of the nodes with NVIDIA PCI cards\nGet the GPU nodes (status)\n"
        "Get the GPU nodes (description)\n"
    )
    (lab / "gpu_operator_pod.log").write_text(
        '{"level":"info","ts":1738579147.2101,"logger":"controllers.ClusterPolicy","msg":"Sandbox workloads",'
        '"Enabled":true,"DefaultWorkload":"container"}\n'
        '{"level":"info","ts":1738579147.4127,"logger":"controllers.ClusterPolicy","msg":"GPU workload configuration",'
        '"NodeName":"gpu-broken-1","GpuWorkloadConfig":"vm-passthrough"}\n'
    )
    (lab / "gpu_operand_pod_nvidia-vfio-manager-s5n2k.log").write_text(
        "[pod/nvidia-vfio-manager-s5n2k/nvidia-vfio-manager] unbinding device 0000:ca:00.0 from nvidia\n"
        "[pod/nvidia-vfio-manager-s5n2k/nvidia-vfio-manager] failed to unbind: device busy\n"
    )
    lab_list = {
        "apiVersion": "v1",
        "kind": "List",
        "metadata": {"resourceVersion": ""},
        "items": [clean_node(n) for n in ordered] + [cluster_policy()] + kubevirt()["items"] + ds["items"],
    }
    (HERE / "lab.json").write_text(json.dumps(lab_list, indent=2) + "\n")


if __name__ == "__main__":
    main()
