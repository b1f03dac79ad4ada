"""Benchmark the whole spine (read -> index -> evaluate -> render) on a synthetic cluster dump.

Generates a dump of N GPU nodes (mixed container / vm-passthrough / vm-vgpu) and M Pods (90 % bound,
10 % pending, some asking for nvidia.com/gpu), writes it as kubectl-style JSON and as YAML, and times each
stage with the built-in pack. Prints one line per figure; peak memory is the process's max RSS.

    .venv/bin/python bench/bench_engine.py [--nodes 5000] [--pods 50000]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rules.engine import audit_paths  # noqa: E402
from rules.loader import load_policies  # noqa: E402
from rules.render import render, write  # noqa: E402

WORKLOADS = [
    ("container", "nvidia.com/gpu", "8"),
    ("vm-passthrough", "nvidia.com/GA102GL_A10", "4"),
    ("vm-vgpu", "nvidia.com/NVIDIA_A10-12Q", "8"),
]


def node(i: int) -> dict:
    workload, resource_name, count = WORKLOADS[i % 3]
    labels = {
        "kubernetes.io/hostname": f"gpu-{i}",
        "nvidia.com/gpu.present": "true",
        "feature.node.kubernetes.io/pci-10de.present": "true",
        "nvidia.com/gpu.workload.config": workload,
    }
    alloc = {"cpu": "64", "memory": "512Gi", "pods": "110", "ephemeral-storage": "1Ti", resource_name: count}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": f"gpu-{i}", "labels": labels, "uid": f"n-{i}"},
        "spec": {},
        "status": {"capacity": dict(alloc), "allocatable": alloc},
    }


def pod(i: int, nodes: int) -> dict:
    bound = i % 10 != 0
    res = {"requests": {"cpu": "500m", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "2Gi"}}
    if i % 7 == 0:
        res["limits"]["nvidia.com/gpu"] = "1"
    spec = {"containers": [{"name": "main", "image": "nvcr.io/nvidia/cuda:12.4.0-base", "resources": res}]}
    if bound:
        spec["nodeName"] = f"gpu-{(i * 3) % nodes}"
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": f"p-{i}", "namespace": f"ns-{i % 50}", "uid": f"p-{i}"},
        "spec": spec,
        "status": {"phase": "Running" if bound else "Pending"},
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=5000)
    ap.add_argument("--pods", type=int, default=50000)
    args = ap.parse_args()
    t = time.perf_counter()
    policies = load_policies()
    print(f"policy load+compile: {(time.perf_counter() - t) * 1000:.0f} ms ({len(policies.rules)} rules)")
    items = [node(i) for i in range(args.nodes)] + [pod(i, args.nodes) for i in range(args.pods)]
    dump = {"apiVersion": "v1", "kind": "List", "items": items}
    with tempfile.TemporaryDirectory() as tmp:
        jpath = Path(tmp) / "dump.json"
        jpath.write_text(json.dumps(dump, indent=4))
        print(f"dump: {args.nodes} nodes, {args.pods} pods, JSON {jpath.stat().st_size / 2**20:.1f} MiB")
        t = time.perf_counter()
        report = audit_paths([str(jpath)], policies)
        total = time.perf_counter() - t
        s = report.summary()
        print(
            f"JSON audit: {total:.2f} s (read {report.timing['readMs']:.0f} ms, index {report.timing['indexMs']:.0f} ms,"
            f" evaluate {report.timing['evaluateMs']:.0f} ms); {s['objectsJudged']} objects judged,"
            f" {sum(s['results'].values())} results"
        )
        t = time.perf_counter()
        out_path = Path(tmp) / "report.json"
        with out_path.open("wb") as fh:
            write(report, "json", fh)  # what `verdict audit -o` does: streamed, never one string
        print(f"write json report: {time.perf_counter() - t:.2f} s ({out_path.stat().st_size / 2**20:.1f} MiB)")
        t = time.perf_counter()
        md = render(report.filtered({"fail", "warn"}), "markdown")
        print(f"render markdown (findings): {(time.perf_counter() - t) * 1000:.0f} ms ({len(md)} chars)")
        fifth = items[: args.nodes // 5] + items[args.nodes : args.nodes + args.pods // 5]
        small = {"apiVersion": "v1", "kind": "List", "items": fifth}
        ypath = Path(tmp) / "dump.yaml"
        import yaml

        ypath.write_text(yaml.safe_dump(small))
        t = time.perf_counter()
        report = audit_paths([str(ypath)], policies)
        print(
            f"YAML audit (1/5 of the dump, {ypath.stat().st_size / 2**20:.1f} MiB): {time.perf_counter() - t:.2f} s"
            f" (read {report.timing['readMs']:.0f} ms)"
        )
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS: {rss:.0f} MiB")


if __name__ == "__main__":
    main()
