"""The same cluster, whatever form it comes in, gets the same verdicts (issue 7).

The lab must-gather (tests/data/must-gather/lab: gpu_nodes.labels + gpu_nodes.descr + YAML) is read as a
folder, as a .tar.gz and as a .zip of that folder, as the describe text alone (the form pasted into chat),
and compared with the equivalent plain JSON List (lab.json): every Node gets the same result on every
node rule of the built-in pack.
"""

from __future__ import annotations

import tarfile
import zipfile
from pathlib import Path

import pytest

from rules.engine import audit_bytes, audit_paths
from rules.loader import load_policies
from rules.report import Report

DATA = Path(__file__).resolve().parent / "data" / "must-gather"
LAB = DATA / "lab"


@pytest.fixture(scope="module")
def policies():
    return load_policies()


def node_verdicts(report: Report) -> dict[str, dict[str, str]]:
    return {o.ref.name: {f"{r.policy}/{r.rule}": r.result for r in o.results} for o in report.objects if o.ref.kind == "Node"}


@pytest.fixture(scope="module")
def reference(policies) -> dict[str, dict[str, str]]:
    """lab.json with the pods gpu_nodes.descr lists (its Non-terminated Pods, names only), which the must-gather
    holds too: the operand pods a node runs are judged from them (trial 49), so the equivalent List has them."""
    import orjson

    from rules.reader import parse_bytes

    lab = orjson.loads((DATA / "lab.json").read_bytes())
    listed = [o.obj for o in parse_bytes((LAB / "gpu_nodes.descr").read_bytes(), "descr").objects if o.kind == "Pod"]
    assert listed and not [i for i in lab["items"] if i["kind"] == "Pod"]
    lab["items"] += listed
    # and says of each node that its pods are listed whole, as its describe text does (trial 212: other nodes' described
    # pods are no evidence of this one's)
    for item in lab["items"]:
        if item["kind"] == "Node":
            item["metadata"].setdefault("annotations", {})["verdict.dev/pods-listed"] = "true"
    verdicts = node_verdicts(audit_bytes(orjson.dumps(lab), "lab.json", policies))
    assert set(verdicts) == {"gpu-container-1", "gpu-passthrough-1", "gpu-vgpu-1", "gpu-broken-1"}
    return verdicts


def test_reference_judges_the_inconsistent_node(reference: dict[str, dict[str, str]]) -> None:
    broken = reference["gpu-broken-1"]
    assert "fail" in broken.values()
    assert any(rule.endswith("/resource-class-matches-workload") and result == "fail" for rule, result in broken.items())
    for good in ("gpu-container-1", "gpu-passthrough-1", "gpu-vgpu-1"):
        assert "fail" not in reference[good].values(), (good, reference[good])
        assert "error" not in reference[good].values(), (good, reference[good])
    # the VM nodes' sandbox operands are judged from the pods the describe text lists (by their names)
    assert reference["gpu-passthrough-1"]["gpu-nodes/sandbox-operands-running"] == "pass"
    assert reference["gpu-vgpu-1"]["gpu-nodes/sandbox-operands-running"] == "pass"


def test_must_gather_folder(policies, reference) -> None:
    report = audit_paths([str(LAB)], policies)
    assert node_verdicts(report) == reference
    assert "read as an NVIDIA GPU Operator must-gather" in report.notes
    assert any(f.endswith("gpu_operator_pod.log") for f in report.files_skipped)
    assert any(f.endswith("gpu_nodes.labels") for f in report.files_read)
    assert report.input_errors == []


def test_must_gather_tar_gz(policies, reference, tmp_path: Path) -> None:
    archive = tmp_path / "must-gather.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(LAB, arcname="must-gather")
    assert node_verdicts(audit_paths([str(archive)], policies)) == reference


def test_must_gather_zip(policies, reference, tmp_path: Path) -> None:
    archive = tmp_path / "must-gather.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for f in sorted(LAB.iterdir()):
            zf.write(f, f"must-gather/{f.name}")
    assert node_verdicts(audit_bytes(archive.read_bytes(), "must-gather.zip", policies)) == reference


def test_describe_text_alone(policies, reference) -> None:
    """The describe text carries the labels too; with no ClusterPolicy in the input, rules that need it
    judge sandbox workloads as disabled, so compare with the reference audited the same way."""
    text = (LAB / "gpu_nodes.descr").read_bytes()
    from_text = node_verdicts(audit_bytes(text, "pasted.txt", policies))
    import orjson

    lab = orjson.loads((DATA / "lab.json").read_bytes())
    nodes_only = {"apiVersion": "v1", "kind": "List", "items": [i for i in lab["items"] if i["kind"] == "Node"]}
    expected = node_verdicts(audit_bytes(orjson.dumps(nodes_only), "nodes.json", policies))
    # but for what the text lists and the Nodes' JSON lacks: each node's pods, which show its sandbox operands running
    # (trial 230 #4: judged without a ClusterPolicy, where the nodes alone show no pod and skip)
    operands = "gpu-nodes/sandbox-operands-running"
    vm_nodes = {"gpu-broken-1", "gpu-passthrough-1", "gpu-vgpu-1"}
    assert {n: v[operands] for n, v in from_text.items() if n in vm_nodes} == dict.fromkeys(vm_nodes, "pass")
    assert {n: v[operands] for n, v in expected.items() if n in vm_nodes} == dict.fromkeys(vm_nodes, "skip")
    for verdicts in (from_text, expected):
        for n in vm_nodes:
            del verdicts[n][operands]
    assert from_text == expected
    assert set(from_text) == set(reference)
