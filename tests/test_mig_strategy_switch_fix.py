"""Trial 106: the fix for a node GFD labels with another MIG strategy than the ClusterPolicy's must not restart its
device plugin and GFD into a strategy that serves none of its MIG devices.

Under single, MIG devices of several profiles on a node are an invalid layout: GFD labels the node
<model>-MIG-INVALID and the device plugin advertises none of them (NVIDIA/k8s-device-plugin@1b826acc6af3:
internal/lm/mig-strategy.go, "more than one MIG device type present on node"). The fix given for the real H100
all-balanced node beside a ClusterPolicy set to single was "To move the node now: kubectl delete pod ...".
"""

from __future__ import annotations

import subprocess
from functools import cache
from pathlib import Path

import yaml
from conftest import cluster_policy

from rules.evaluate import evaluate
from rules.loader import PolicySet, load_policies
from rules.reader import parse_text
from rules.render.chat import fix_lines

REAL = Path(__file__).parent / "data" / "real" / "h100-mig-mixed-node.yaml"


@cache
def _pack() -> PolicySet:
    return load_policies()


def _findings(strategy: str, node: dict) -> dict[str, tuple[str, str, str]]:
    policy = cluster_policy({"mig": {"strategy": strategy}}, namespace="gpu-operator")
    dump = parse_text("\n---\n".join(yaml.safe_dump(o) for o in (policy, node)), "chat.yaml")
    report = evaluate(dump, _pack())
    return {
        r.rule: (r.result, r.severity, r.remediation)
        for o in report.objects
        if o.ref.kind == "Node"
        for r in o.results
        if r.result in ("fail", "warn")
    }


def _real_node() -> dict:
    node = yaml.safe_load(REAL.read_text(encoding="utf-8"))
    node["metadata"]["labels"]["nvidia.com/gpu.deploy.gpu-feature-discovery"] = "true"
    return node


def test_real_all_balanced_node_beside_a_single_clusterpolicy_is_told_not_to_restart() -> None:
    found = _findings("single", _real_node())
    # one finding, high: the switch leaves the node serving nothing
    assert list(found) == ["clusterpolicy-strategy-serves-layout"], found
    result, severity, fix = found["clusterpolicy-strategy-serves-layout"]
    assert (result, severity) == ("warn", "high")
    assert "kubectl delete pod" not in fix
    # (trial 244 #1: the cluster-wide patch was its first command, run where a chat block was pasted whole: the choice
    # is said first, each command under its condition)
    assert fix == (
        "First decide which strategy the cluster is to serve MIG with (the ClusterPolicy's is every node's). If mixed, as"
        " this node is served now, set the ClusterPolicy back, which keeps the node's MIG devices: kubectl patch"
        """ clusterpolicies.nvidia.com cluster-policy --type merge -p '{"spec":{"mig":{"strategy":"mixed"}}}'. If single,"""
        " change the node's layout first, to one profile on every GPU (or another profile it holds): kubectl label node"
        f" {_real_node()['metadata']['name']} --overwrite nvidia.com/mig.config=all-1g.10gb  # mig-manager applies it,"
        " then restarts the device plugin and GFD"
    )
    lines = fix_lines(fix)
    assert not [line for line in lines if not line.startswith("#")], lines  # pasted whole, it runs nothing
    # trial 107: each command of it parses as written (no "all-<profile>", a redirection in a shell)
    commands = [line[2:].split(" # ")[0] for line in lines if line.startswith("# kubectl")]
    assert len(commands) == 2
    for command in commands:
        assert subprocess.run(["bash", "-n", "-c", command], check=False).returncode == 0, command


def test_a_one_profile_node_may_still_be_moved_now() -> None:
    node = _real_node()
    labels = node["metadata"]["labels"]
    labels["nvidia.com/mig.config"] = "all-1g.10gb"
    node["status"]["capacity"] = node["status"]["allocatable"] = {"cpu": "128", "nvidia.com/mig-1g.10gb": "7"}
    found = _findings("single", node)
    assert "clusterpolicy-strategy-serves-layout" not in found, found
    result, severity, fix = found["mig-strategy-matches-clusterpolicy"]
    assert (result, severity) == ("warn", "medium")
    assert fix.startswith("To move the node now: kubectl delete pod -n gpu-operator --field-selector spec.nodeName=")


def test_a_fix_that_checks_sandbox_workloads_first_parts_its_sentences() -> None:
    """Trial 106: the real MIG node labelled vm-passthrough, no ClusterPolicy in the dump: the fix of
    deploy-labels-match-workload ran two sentences together ("If they are on:First see whether ...")."""
    node = _real_node()
    node["metadata"]["labels"]["nvidia.com/gpu.workload.config"] = "vm-passthrough"
    report = evaluate(parse_text(yaml.safe_dump(node), "node.yaml"), _pack())
    (fix,) = [r.remediation for o in report.objects for r in o.results if r.rule == "deploy-labels-match-workload"]
    # (trial 210: "or enable sandbox workloads" was offered as leaving the node as it is)
    assert (
        "Where enabled is not true, the operator ignores the workload label and the node is right as it is for containers ("
        in fix
    )
    # (trial 219: the removal of the label said with its command)
    assert (
        "its GPU pods moved off first); remove the label and change nothing else: kubectl label node node-a"
        " nvidia.com/gpu.workload.config-. If they are on: First see whether the workload label is the mistake: the node"
    ) in fix


def test_a_stale_single_label_beside_the_mixed_names_is_not_told_to_restart_into_single() -> None:
    """Trial 107: GFD already labels the all-balanced node single (the ClusterPolicy's), the device plugin still serves
    the mixed names; mig-resources-match-strategy's fix restarted both, which leaves the node serving nothing."""
    node = _real_node()
    node["metadata"]["labels"]["nvidia.com/mig.strategy"] = "single"
    found = _findings("single", node)
    assert found["clusterpolicy-strategy-serves-layout"][:2] == ("warn", "high")
    result, _, fix = found["mig-resources-match-strategy"]
    assert result == "fail" and "kubectl delete pod" not in fix
    assert fix.startswith("Do not restart the device plugin or GFD on the node yet: under ClusterPolicy cluster-policy's")


def test_without_a_clusterpolicy_the_restart_is_offered_only_for_mixed() -> None:
    """Trial 244 #3: the real H100 all-balanced node labelled nvidia.com/mig.strategy=single, no ClusterPolicy in the
    dump, was told to check the ClusterPolicy's strategy, "then restart the device plugin and GFD on the node so both
    read it": under single that restart serves none of its MIG devices of three profiles. The restart is for mixed
    alone; for single, what to change first."""
    node = _real_node()
    node["metadata"]["labels"]["nvidia.com/mig.strategy"] = "single"
    report = evaluate(parse_text(yaml.safe_dump(node), "node.yaml"), _pack())
    [fix] = [r.remediation for o in report.objects for r in o.results if r.rule == "mig-resources-match-strategy"]
    assert fix.startswith("kubectl get $(kubectl get clusterpolicies.nvidia.com -o name) -o jsonpath='{.spec.mig.strategy}'")
    assert fix.endswith(
        "; if it reads single, do not: the node's MIG devices are of several profiles (nvidia.com/mig-1g.10gb,"
        " nvidia.com/mig-2g.20gb, nvidia.com/mig-3g.40gb), of which single serves none (the device plugin refuses such a"
        " layout and GFD labels the node <model>-MIG-INVALID), so first give the node one profile on every GPU"
        " (nvidia.com/mig.config=all-<profile>) or set the ClusterPolicy to mixed"
    ), fix
    assert "  # if it reads mixed, restart the device plugin and GFD on the node so both read it: kubectl delete pod" in fix
    # pasted whole, the check alone runs
    runnable = [line for line in fix_lines(fix) if not line.startswith("#")]
    assert len(runnable) == 1 and runnable[0].startswith(fix.split("  # ")[0] + " # if it reads mixed"), runnable
