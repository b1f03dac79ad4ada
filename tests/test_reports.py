"""The reconstructed bug reports of tests/data/reports/, judged by the built-in pack object by object as each
report's expected.md says. "Severity error" there is a failure of a high-severity rule here: PolicyReport's
severities are critical/high/medium/low/info, and its result for a violated rule is fail."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from rules.engine import audit_paths
from rules.loader import load_policies
from rules.report import Report

REPORTS = Path(__file__).parent / "data" / "reports"


@pytest.fixture(scope="module")
def audit() -> Any:
    policies = load_policies()
    cache: dict[str, Report] = {}

    def run(name: str) -> dict[tuple[str, str, str], Any]:
        if name not in cache:
            cache[name] = audit_paths([str(REPORTS / name / "input.yaml")], policies)
        return {(o.ref.kind, o.ref.namespace, o.ref.name): o for o in cache[name].objects}

    return run


def findings(obj: Any) -> dict[str, Any]:
    """``policy/rule`` -> result, for the object's fail, warn and error results."""
    return {f"{r.policy}/{r.rule}": r for r in obj.results if r.result in ("fail", "warn", "error")}


# ------------------------------------------------------------------ mig-config-failed-gpu-reset-unsupported

FAILED = "mig-config-failed-gpu-reset-unsupported"


def test_failed_mig_config_is_the_node_finding(audit: Any) -> None:
    node = audit(FAILED)[("Node", "", "gpu-vm-1")]
    found = findings(node)
    assert list(found) == ["gpu-mig/mig-config-applied"]
    r = found["gpu-mig/mig-config-applied"]
    assert (r.result, r.severity) == ("fail", "high")
    assert "failed to apply MIG layout 'all-1g.5gb' (nvidia.com/mig.config.state=failed)" in r.message
    # the node is still a full GPU: what it advertises, and why (a GPU that cannot be reset in a cloud VM)
    assert "the node advertises [nvidia.com/gpu]" in r.message
    assert "ClusterPolicy cluster-policy does not set WITH_REBOOT=true in spec.migManager.env" in r.message
    assert '"Resetting GPU ... is not supported"' in r.message
    assert "WITH_REBOOT" in r.remediation and "nvidia-mig-manager" in r.remediation
    # deploy labels are right for a container node with a pre-installed driver
    deploy = next(x for x in node.results if x.rule == "deploy-labels-match-workload")
    assert deploy.result == "pass"


def test_pod_asking_the_profile_that_never_came_is_unschedulable_with_a_hint(audit: Any) -> None:
    pod = audit(FAILED)[("Pod", "ml", "slice-job")]
    assert list(findings(pod)) == ["gpu-pods/workload-schedulable"]
    r = findings(pod)["gpu-pods/workload-schedulable"]
    assert (r.result, r.severity) == ("fail", "high")
    assert "0/1 nodes are available: 1 Insufficient nvidia.com/mig-1g.5gb." in r.message
    assert "hint: no node advertises nvidia.com/mig-1g.5gb; nodes advertise nvidia.com/gpu (gpu-vm-1)" in r.message
    # (trial 244 #4: the fix said to rewrite the pod for nvidia.com/gpu, where the node labelled for its profile, whose
    # apply failed, is what to look at first)
    assert r.remediation.startswith(
        "first see why node gpu-vm-1 does not advertise nvidia.com/mig-1g.5gb, though its nvidia.com/mig.config names the"
        " one-profile layout of what it asks (gpu-mig/mig-config-applied and mig-layout-served say how that stands):"
        " kubectl get node gpu-vm-1 -L nvidia.com/mig.config -L nvidia.com/mig.config.state. Only if the workload is not"
        " meant for it, ask for a container GPU resource a node advertises with a device (nvidia.com/gpu) in place of it:"
    ), r.remediation


def test_full_gpu_pod_and_clusterpolicy_are_fine(audit: Any) -> None:
    objects = audit(FAILED)
    full = objects[("Pod", "ml", "full-gpu-job")]
    assert findings(full) == {}
    assert next(r for r in full.results if r.rule == "workload-schedulable").message == (
        "Pod ml/full-gpu-job can be scheduled: 1/1 nodes are feasible: gpu-vm-1"
    )
    policy = objects.get(("ClusterPolicy", "", "cluster-policy"))
    assert policy is None or findings(policy) == {}


# ------------------------------------------------------------------ mig-single-strategy-mixed-profiles-invalid

INVALID = "mig-single-strategy-mixed-profiles-invalid"


def test_single_strategy_on_a_mixed_layout_is_the_node_finding(audit: Any) -> None:
    node = audit(INVALID)[("Node", "", "gpu-node-1")]
    found = findings(node)
    r = found["gpu-mig/mig-strategy-valid-for-layout"]
    assert (r.result, r.severity) == ("fail", "high")
    assert "nvidia.com/gpu.product=NVIDIA-A30-MIG-INVALID" in r.message
    assert "nvidia.com/mig.strategy=single" in r.message
    assert '"more than one MIG device type present on node"' in r.message
    assert "so the node serves no GPU (it advertises no GPU resource)" in r.message
    assert '"strategy":"mixed"' in r.remediation and "nvidia.com/mig.config=all-<profile>" in r.remediation
    # (trial 244 #1: the cluster-wide patch ran first where the fix was pasted whole: a choice, each side under its
    # condition, so that a chat block pasted whole runs neither)
    from rules.render.chat import fix_lines

    assert r.remediation.startswith("First decide how the cluster is to serve MIG (the ClusterPolicy's strategy is every")
    lines = fix_lines(r.remediation)
    assert not [line for line in lines if not line.startswith("#")], lines
    assert [line for line in lines if line.startswith("# kubectl")] == [
        """# kubectl patch clusterpolicies.nvidia.com cluster-policy --type merge -p '{"spec":{"mig":{"strategy":"mixed"}}}'""",
        "# kubectl label node gpu-node-1 --overwrite nvidia.com/mig.config=all-<profile>",
    ]
    # mig.config.state=success does not make the node look healthy
    assert next(x for x in node.results if x.rule == "mig-config-applied").result == "pass"
    assert node.verdict == "fail"
    # the zero-count registrations are informational only; no other failure restates the same cause
    zero = found["gpu-nodes/awaited-resource-has-devices"]
    assert (zero.result, zero.severity) == ("warn", "info")
    assert "lists nvidia.com/mig-1g.6gb with 0 devices" in zero.message and "notebook-small" in zero.message
    assert set(found) == {"gpu-mig/mig-strategy-valid-for-layout", "gpu-nodes/awaited-resource-has-devices"}
    nothing = next(x for x in node.results if x.rule == "gpu-resources-advertised")
    assert nothing.result == "skip" and "MIG-INVALID" in nothing.message


def test_crash_looping_device_plugin_is_on_the_right_node(audit: Any) -> None:
    pod = audit(INVALID)[("Pod", "gpu-operator", "nvidia-device-plugin-daemonset-x7k2p")]
    assert next(r for r in pod.results if r.rule == "operand-pod-matches-node-workload").result == "pass"


def test_pod_asking_a_profile_nobody_serves_is_unschedulable(audit: Any) -> None:
    pod = audit(INVALID)[("Pod", "research", "notebook-small")]
    r = findings(pod)["gpu-pods/workload-schedulable"]
    assert (r.result, r.severity) == ("fail", "high")
    assert "0/1 nodes are available: 1 Insufficient nvidia.com/mig-1g.6gb." in r.message
    assert "gpu-node-1 lists it with 0 devices" in r.message
