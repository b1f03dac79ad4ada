"""Benchmark rules.schedule on a large synthetic dump and print the figures.

Usage: ``python bench/bench_schedule.py [--nodes 5000] [--pods 50000] [--workloads 2000] [--seed 1]``

The dump looks like a big GPU cluster: CPU workers in three zones, GPU container nodes (tainted
``nvidia.com/gpu:NoSchedule``), KubeVirt passthrough and vGPU nodes, a few control-plane nodes and
cordoned nodes; bound pods fill the nodes (some Succeeded); the workloads are unbound Pods,
Deployments, StatefulSets, Jobs, CronJobs, DaemonSets and KubeVirt VMIs/VMs with node selectors,
affinities, tolerations, cpu/memory and extended-resource requests. Timings are wall-clock
(``time.perf_counter``) without tracing; peak memory is measured in a second, traced construction
(``tracemalloc``) and as the process's max RSS.
"""

from __future__ import annotations

import argparse
import random
import resource
import statistics
import sys
import time
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rules.schedule import ClusterModel  # noqa: E402

ZONES = ("zone-a", "zone-b", "zone-c")
GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
CP_TAINT = {"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}


def make_nodes(rng: random.Random, count: int) -> list[dict[str, Any]]:
    nodes = []
    for i in range(count):
        labels = {
            "kubernetes.io/hostname": f"node-{i:05d}",
            "kubernetes.io/os": "linux",
            "topology.kubernetes.io/zone": ZONES[i % 3],
            "node.kubernetes.io/instance-type": rng.choice(["m6i.4xlarge", "m6i.8xlarge", "c6i.8xlarge"]),
        }
        alloc: dict[str, str] = {
            "cpu": rng.choice(["15500m", "31500m", "63"]),
            "memory": rng.choice(["60Gi", "122Gi", "250Gi"]),
            "ephemeral-storage": "190Gi",
            "pods": "110",
            "hugepages-1Gi": "0",
        }
        spec: dict[str, Any] = {}
        kind = i % 50
        if kind < 8:  # GPU container nodes
            labels.update(
                {
                    "nvidia.com/gpu.present": "true",
                    "nvidia.com/gpu.workload.config": "container",
                    "nvidia.com/gpu.product": rng.choice(["NVIDIA-A100-SXM4-80GB", "NVIDIA-H100-80GB-HBM3"]),
                    "nvidia.com/gpu.memory": rng.choice(["81920", "40960"]),
                }
            )
            alloc["nvidia.com/gpu"] = "8"
            spec["taints"] = [GPU_TAINT]
        elif kind == 8:  # KubeVirt passthrough
            labels.update(
                {
                    "nvidia.com/gpu.present": "true",
                    "nvidia.com/gpu.workload.config": "vm-passthrough",
                    "kubevirt.io/schedulable": "true",
                }
            )
            alloc["nvidia.com/GA102GL_A10"] = str(rng.randint(1, 4))
        elif kind == 9:  # KubeVirt vGPU
            labels.update(
                {"nvidia.com/gpu.present": "true", "nvidia.com/gpu.workload.config": "vm-vgpu", "kubevirt.io/schedulable": "true"}
            )
            alloc["nvidia.com/NVIDIA_A10-12Q"] = "2"
        else:
            labels["node-role.kubernetes.io/worker"] = ""
            if rng.random() < 0.3:
                labels["kubevirt.io/schedulable"] = "true"
        if i < 3:
            spec["taints"] = [CP_TAINT]
            labels["node-role.kubernetes.io/control-plane"] = ""
        if rng.random() < 0.02:
            spec["unschedulable"] = True
            spec.setdefault("taints", []).append({"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"})
        nodes.append(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": f"node-{i:05d}", "labels": labels},
                "spec": spec,
                "status": {"allocatable": alloc, "capacity": alloc},
            }
        )
    return nodes


def container(rng: random.Random, gpu: str | None = None, gpus: int = 0) -> dict[str, Any]:
    requests = {
        "cpu": rng.choice(["50m", "100m", "250m", "500m", "1", "2"]),
        "memory": rng.choice(["64Mi", "128Mi", "512Mi", "1Gi", "4Gi"]),
    }
    limits: dict[str, str] = {}
    if gpu:
        limits[gpu] = str(gpus)
    return {"name": "main", "image": "registry.example/app:1", "resources": {"requests": requests, "limits": limits}}


def make_bound_pods(rng: random.Random, nodes: list[dict[str, Any]], count: int) -> list[dict[str, Any]]:
    pods = []
    for i in range(count):
        host = nodes[rng.randrange(len(nodes))]
        gpu_node = "nvidia.com/gpu" in host["status"]["allocatable"]
        app = f"app-{i % 400}"
        spec: dict[str, Any] = {
            "nodeName": host["metadata"]["name"],
            "containers": [container(rng, "nvidia.com/gpu" if gpu_node else None, 1)],
        }
        if rng.random() < 0.1:
            spec["initContainers"] = [
                {"name": "init", "resources": {"requests": {"cpu": "1"}}},
                {"name": "proxy", "restartPolicy": "Always", "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}}},
            ]
        pods.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {"name": f"{app}-{i}", "namespace": f"ns-{i % 40}", "labels": {"app": app}},
                "spec": spec,
                "status": {"phase": "Succeeded" if rng.random() < 0.05 else "Running"},
            }
        )
    return pods


def make_workloads(rng: random.Random, count: int) -> list[dict[str, Any]]:
    out = []
    for i in range(count):
        roll = rng.random()
        spec: dict[str, Any] = {"containers": [container(rng)]}
        if roll < 0.25:
            spec["containers"] = [container(rng, "nvidia.com/gpu", rng.choice([1, 2, 8]))]
            spec["tolerations"] = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
            spec["nodeSelector"] = {
                "nvidia.com/gpu.product": rng.choice(["NVIDIA-A100-SXM4-80GB", "NVIDIA-H100-80GB-HBM3", "Tesla-T4"])
            }
        elif roll < 0.35:
            spec["affinity"] = {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {
                        "nodeSelectorTerms": [
                            {
                                "matchExpressions": [
                                    {"key": "topology.kubernetes.io/zone", "operator": "In", "values": rng.sample(ZONES, 2)},
                                    {"key": "node.kubernetes.io/instance-type", "operator": "NotIn", "values": ["c6i.8xlarge"]},
                                ]
                            }
                        ]
                    }
                }
            }
        elif roll < 0.40:
            spec["containers"][0]["resources"]["requests"]["cpu"] = "48"
        elif roll < 0.42:
            spec["containers"][0]["resources"]["limits"]["example.com/fpga"] = "1"
        meta = {"name": f"w-{i}", "namespace": f"ns-{i % 40}"}
        kind_roll = rng.random()
        if roll >= 0.42 and kind_roll < 0.05:
            out.append(
                {
                    "apiVersion": "kubevirt.io/v1",
                    "kind": "VirtualMachineInstance",
                    "metadata": meta,
                    "spec": {
                        "nodeSelector": {"nvidia.com/gpu.workload.config": rng.choice(["vm-passthrough", "vm-vgpu"])},
                        "domain": {
                            "memory": {"guest": "16Gi"},
                            "resources": {"requests": {"cpu": "4"}},
                            "devices": {
                                "gpus": [
                                    {
                                        "name": "g",
                                        "deviceName": rng.choice(
                                            ["nvidia.com/GA102GL_A10", "nvidia.com/NVIDIA_A10-12Q", "nvidia.com/gpu"]
                                        ),
                                    }
                                ]
                            },
                        },
                    },
                }
            )
        elif kind_roll < 0.40:
            out.append({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": {"phase": "Pending"}})
        elif kind_roll < 0.42:
            out.append(
                {
                    "apiVersion": "apps/v1",
                    "kind": "DaemonSet",
                    "metadata": meta,
                    "spec": {"selector": {"matchLabels": {"app": f"app-{i % 400}"}}, "template": {"spec": spec}},
                }
            )
        elif kind_roll < 0.50:
            out.append(
                {
                    "apiVersion": "batch/v1",
                    "kind": "CronJob",
                    "metadata": meta,
                    "spec": {"schedule": "0 * * * *", "jobTemplate": {"spec": {"template": {"spec": spec}}}},
                }
            )
        else:
            kind = rng.choice(["Deployment", "StatefulSet", "Job"])
            out.append(
                {
                    "apiVersion": "apps/v1",
                    "kind": kind,
                    "metadata": meta,
                    "spec": {"selector": {"matchLabels": {"app": f"app-{i % 400}"}}, "template": {"spec": spec}},
                }
            )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=50000)
    parser.add_argument("--workloads", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    t0 = time.perf_counter()
    nodes = make_nodes(rng, args.nodes)
    pods = make_bound_pods(rng, nodes, args.pods)
    workloads = make_workloads(rng, args.workloads)
    generated = time.perf_counter() - t0

    t0 = time.perf_counter()
    model = ClusterModel(nodes, pods)
    built = time.perf_counter() - t0

    times = []
    outcomes: Counter[str] = Counter()
    t0 = time.perf_counter()
    for workload in workloads:
        start = time.perf_counter()
        prediction = model.predict(workload)
        times.append(time.perf_counter() - start)
        outcomes[f"{workload['kind']}:{'ok' if prediction.schedulable else 'fail'}"] += 1
    predicted = time.perf_counter() - t0

    tracemalloc.start()
    ClusterModel(nodes, pods)
    _, model_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    times.sort()
    print(f"dump: {args.nodes} nodes, {args.pods} bound pods, {args.workloads} workloads (generated in {generated:.2f} s)")
    print(f"ClusterModel construction: {built:.2f} s")
    print(
        f"predict x {len(workloads)}: {predicted:.2f} s total, mean {statistics.fmean(times) * 1e3:.2f} ms, "
        f"p50 {times[len(times) // 2] * 1e3:.2f} ms, p99 {times[int(len(times) * 0.99)] * 1e3:.2f} ms, "
        f"max {times[-1] * 1e3:.2f} ms"
    )
    print(
        f"peak traced memory while building the model: {model_peak / 2**20:.1f} MiB; "
        f"process max RSS (dump included): {rss:.0f} MiB"
    )
    print("outcomes: " + ", ".join(f"{k} {v}" for k, v in sorted(outcomes.items())))
    if model.warnings:
        print(f"warnings: {len(model.warnings)}")


if __name__ == "__main__":
    main()
