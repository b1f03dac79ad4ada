"""The built-in gpu-operator pack on the example dumps (examples/*.yaml): the objects annotated
``verdict.dev/expect: "<rule id>[, <rule id>...]: <why>"`` fail (or warn on) exactly the rules they name,
with a message that names the object, and nothing else fails, warns or errors."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rules.evaluate import evaluate
from rules.loader import PolicySet, load_policies
from rules.reader import Dump, read_paths
from rules.report import Report

Judged = tuple[Dump, Report]
PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_.]*\}")

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
EXPECT = "verdict.dev/expect"
NODE_POLICY = "gpu-nodes"


def expected(dump: Dump) -> set[tuple[str, str, str, str]]:
    """(kind, namespace, name, rule id) for every rule an annotation names."""
    out = set()
    for obj in dump.objects:
        note = (obj.metadata.get("annotations") or {}).get(EXPECT)
        if note is None:
            continue
        ids, _, why = note.partition(":")
        assert why.strip(), f"{obj.kind}/{obj.name}: the annotation gives no reason"
        out |= {(obj.kind, obj.namespace, obj.name, i.strip()) for i in ids.split(",")}
    return out


def findings(report: Report, words: tuple[str, ...] = ("fail", "warn")) -> set[tuple[str, str, str, str]]:
    return {(o.ref.kind, o.ref.namespace, o.ref.name, r.rule) for o in report.objects for r in o.results if r.result in words}


@pytest.fixture(scope="module")
def pack() -> PolicySet:
    return load_policies(["gpu-operator"])


@pytest.fixture(scope="module")
def lab(pack: PolicySet) -> Judged:
    dump = read_paths([str(EXAMPLES / "lab-cluster.yaml")])
    return dump, evaluate(dump, pack)


@pytest.fixture(scope="module")
def sandbox_off(pack: PolicySet) -> Judged:
    dump = read_paths([str(EXAMPLES / "sandbox-disabled.yaml")])
    return dump, evaluate(dump, pack)


def test_lab_fails_exactly_the_annotated_rules(lab: Judged) -> None:
    dump, report = lab
    assert not dump.errors
    assert expected(dump), "the lab has annotated objects"
    assert findings(report) == expected(dump)
    assert findings(report, ("warn",)) == set()


def test_lab_has_no_errors(lab: Judged) -> None:
    _, report = lab
    errors = [(str(o.ref), r.rule, r.message) for o in report.objects for r in o.results if r.result == "error"]
    assert errors == []
    assert report.input_errors == []


def test_lab_failures_are_actionable(lab: Judged) -> None:
    _, report = lab
    for obj in report.objects:
        for r in obj.results:
            if r.result != "fail":
                continue
            assert obj.ref.name in r.message, (r.rule, r.message)
            assert not PLACEHOLDER.search(r.message), (r.rule, r.message)  # every {name} was filled
            assert r.remediation and r.references, r.rule


def test_lab_counts(lab: Judged) -> None:
    dump, report = lab
    results = report.summary()["results"]
    assert results["fail"] == len(expected(dump))
    assert (results["warn"], results["error"]) == (0, 0)


def test_lab_cpu_node_is_skipped_by_every_node_rule(lab: Judged) -> None:
    _, report = lab
    (cpu,) = [o for o in report.objects if o.ref.name == "cpu-worker-1"]
    node_rules = [r for r in cpu.results if r.policy == NODE_POLICY]
    assert node_rules and {r.result for r in node_rules} == {"skip"}
    # a workload label on a node that shows no GPU is what workload-label-on-gpu-node judges: this one has none
    label = [r.message for r in node_rules if r.rule == "workload-label-on-gpu-node"]
    assert label == ["the node has no nvidia.com/gpu.workload.config label"]
    assert all("no NVIDIA GPU" in r.message for r in node_rules if r.rule != "workload-label-on-gpu-node")


def test_lab_good_objects_pass(lab: Judged) -> None:
    dump, report = lab
    broken = {(k, ns, n) for k, ns, n, _ in expected(dump)}
    good = [o for o in report.objects if (o.ref.kind, o.ref.namespace, o.ref.name) not in broken]
    assert {o.ref.name for o in good} >= {
        "gpu-container-1",
        "gpu-passthrough-1",
        "gpu-vgpu-1",
        "cuda-vectoradd",
        "vm-passthrough-a10",
        "vm-vgpu-a10",
        "gpu-cluster-policy",
        "kubevirt",
    }
    for obj in good:
        assert obj.verdict in ("pass", "skip"), (str(obj.ref), [(r.rule, r.result) for r in obj.results])


def test_proper_workloads_pass_with_the_right_node_and_cross_requests_fail(lab: Judged) -> None:
    """Issue 4: the lab's three proper workloads are placed on their node; the cross-requests fail with
    kube-scheduler's own words."""
    _, report = lab
    sched = {o.ref.name: r for o in report.objects for r in o.results if r.rule == "workload-schedulable"}
    assert sched["cuda-vectoradd"].message == "Pod ml/cuda-vectoradd can be scheduled: 1/10 nodes are feasible: gpu-container-1"
    assert sched["vm-passthrough-a10"].message == (
        "VirtualMachineInstance vms/vm-passthrough-a10 can be scheduled: 1/10 nodes are feasible: gpu-passthrough-1"
    )
    assert sched["vm-vgpu-a10"].message == (
        "VirtualMachineInstance vms/vm-vgpu-a10 can be scheduled: 1/10 nodes are feasible: gpu-vgpu-1"
    )
    assert sched["cuda-on-passthrough-node"].message.startswith(
        "Pod ml/cuda-on-passthrough-node cannot be scheduled: 0/10 nodes are available: 1 Insufficient nvidia.com/gpu, "
        "9 node(s) didn't match Pod's node affinity/selector. hint: nvidia.com/gpu is not advertised where the pod "
        "may run: gpu-passthrough-1 advertises nvidia.com/GA102GL_A10"
    )
    # trial 49: a device KubeVirt does not permit gets no launcher pod: nothing to schedule (device-name-permitted fails)
    assert (sched["vm-wrong-profile"].result, sched["vm-wrong-profile"].message) == (
        "skip",
        "a device it asks for is not permitted in KubeVirt, so virt-controller renders no"
        " virt-launcher pod to schedule (kubevirt-vms/device-name-permitted fails it)",
    )


def test_sandbox_disabled_gives_the_warning(sandbox_off: Judged) -> None:
    dump, report = sandbox_off
    # the node's warning, and the ClusterPolicy's own (trial 114: the one object to change)
    assert (
        findings(report)
        == expected(dump)
        == {
            ("Node", "", "gpu-ignored-vm-label", "label-ignored-sandbox-disabled"),
            ("ClusterPolicy", "", "gpu-cluster-policy", "sandbox-workloads-enabled-for-vm-nodes"),
        }
    )
    for warn in [r for o in report.objects for r in o.results if r.result == "warn"]:
        assert "gpu-ignored-vm-label" in warn.message and "gpu-cluster-policy" in warn.message
    assert findings(report, ("fail", "error")) == set()


def test_the_operand_skip_does_not_say_pods_were_not_collected_of_a_dump_with_pods(lab: Judged) -> None:
    """Regression (a new user's trial): the lab holds Pods (none of them an operand's), yet the skip note said
    "(pods were not collected)"."""
    dump, report = lab
    assert sum(o.kind == "Pod" for o in dump.objects) == 3
    [note] = [n for n in report.notes if "no pod of a GPU Operator operand DaemonSet" in n]
    assert note.startswith(
        "skipped: the dump holds no pod of a GPU Operator operand DaemonSet (the operator's namespace was not"
        " collected, or no operand runs)"
    )
    assert "pods were not collected" not in note


def test_a_fix_enabling_vgpu_manager_says_what_it_needs_besides(pack: PolicySet) -> None:
    """Trial 70: the fix patched spec.vgpuManager.enabled alone, which runs nothing: the vGPU Manager image is built
    from NVIDIA's vGPU host driver and pushed to a private registry, which the ClusterPolicy must name."""
    dump = read_paths([str(EXAMPLES.parent / "policies/gpu-operator/tests/dumps/vgpu_manager_disabled_nothing_advertised.yaml")])
    [fix] = [r.remediation for o in evaluate(dump, pack).objects for r in o.results if r.rule == "sandbox-operands-enabled"]
    # (trial 214: enabled without its image, the operator fails its vgpu-manager state: the runnable patch leaves it
    # out, and the one with the image's fields follows)
    assert fix.startswith(
        "kubectl patch clusterpolicies.nvidia.com cluster-policy --type merge -p"
        """ '{"spec":{"vgpuDeviceManager":{"enabled":true}}}'  # spec.vgpuManager"""
        " needs the vGPU Manager image you build from NVIDIA's vGPU host driver and push to a private registry"
    ), fix
    assert fix.endswith(
        '\'{"spec":{"vgpuManager":{"enabled":true,"repository":"<registry>","image":"vgpu-manager","version":"<driver'
        ' version>","imagePullSecrets":["<secret>"]}}}\''
    )


def test_a_deploy_label_fix_on_a_node_whose_workload_label_is_a_typo_fixes_the_label_first(pack: PolicySet) -> None:
    """Trial 72: a vGPU node labelled vm_vgpu (a typo) is prepared as the default workload, and the deploy-label fix
    stripped its vGPU labels and added the container ones: pasted, it turned a vGPU host into a container node. The
    fix now says to fix the label first (the operator then writes the deploy labels itself)."""
    from rules.reader import parse_bytes

    node = b"""\
apiVersion: v1
kind: Node
metadata:
  name: gpu-vg1
  labels:
    nvidia.com/gpu.present: "true"
    feature.node.kubernetes.io/pci-10de.present: "true"
    nvidia.com/gpu.workload.config: vm_vgpu
    nvidia.com/gpu.deploy.sandbox-device-plugin: "true"
    nvidia.com/gpu.deploy.vgpu-manager: "true"
    nvidia.com/gpu.deploy.vgpu-device-manager: "true"
    nvidia.com/gpu.deploy.sandbox-validator: "true"
status:
  allocatable: {cpu: "32", nvidia.com/NVIDIA_A10-12Q: "2"}
"""
    report = evaluate(parse_bytes(node, "node.yaml"), pack)
    [r] = [r for o in report.objects for r in o.results if r.rule == "deploy-labels-match-workload"]
    assert r.result == "warn"  # no ClusterPolicy in the dump: the label is assumed read
    assert r.remediation.startswith(
        "First see whether the workload label is a typo: nvidia.com/gpu.workload.config=vm_vgpu is no value the operator"
        " knows, so it prepares the node as the default workload (gpu-nodes/workload-label-valid). If it is, fix it and"
        " the operator writes that workload's deploy labels itself: kubectl label node gpu-vg1 --overwrite"
        " nvidia.com/gpu.workload.config=vm-vgpu. Only if the node is meant for container:"
    ), r.remediation
