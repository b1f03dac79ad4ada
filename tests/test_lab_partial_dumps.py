"""The hand-built lab (examples/lab/) is judged from what each dump shows (issue 10, DESIGN "Partial dumps").

(a) the bare node dump (no ClusterPolicy, no deploy labels), (b) the same plus the workloads, (c) the same cluster
as the GPU Operator leaves it (ClusterPolicy, deploy labels), (d) the describe text of (a). Every node is right,
object by object, and no good node fails; the same cluster in every shape the reader takes gets the same node
verdicts. tests/data/lab/generate.py writes these files from one definition.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

import pytest
import yaml

from api import create_app
from rules.engine import audit_bytes, audit_paths
from rules.loader import load_policies
from rules.report import Report

ROOT = Path(__file__).resolve().parent.parent
LAB = ROOT / "examples" / "lab"
DATA = ROOT / "tests" / "data" / "lab"
NODES = LAB / "nodes.yaml"

GOOD = ("lab-container-1", "lab-passthrough-1", "lab-vgpu-1")
# The one finding each broken node must give, in the bare dump (a); every other result of it passes or skips.
BROKEN_BARE = {
    "lab-passthrough-advertising-gpu": ("resource-class-matches-workload", "fail"),
    "lab-container-advertising-passthrough": ("resource-class-matches-workload", "fail"),
    "lab-vgpu-advertising-gpu": ("resource-class-matches-workload", "fail"),
    "lab-label-typo": ("workload-label-valid", "fail"),
    "lab-vgpu-wrong-profile": ("vgpu-profile-matches-config", "fail"),
    "lab-two-classes": ("single-resource-class", "fail"),
    # no label and no ClusterPolicy: the built-in default (container) is assumed, so the finding is advisory
    "lab-unlabelled-passthrough": ("resource-class-matches-workload", "warn"),
}
# With the ClusterPolicy (defaultWorkload: container) the unlabelled node's workload is known: a failure.
BROKEN_MANAGED = {**BROKEN_BARE, "lab-unlabelled-passthrough": ("resource-class-matches-workload", "fail")}
# Rules that must give a verdict (pass), not skip, on the good nodes of a bare dump.
JUDGED_ON_GOOD = ("workload-label-valid", "resource-class-matches-workload", "single-resource-class", "no-unhealthy-devices")
ASSUMED_LABEL = "Assuming the GPU Operator reads this node's workload label: no ClusterPolicy in the dump; add it to be sure."
ASSUMED_DEFAULT = (
    "(Assuming the node runs the default workload, container: it has no valid workload label, and no ClusterPolicy"
    " in the dump; add it to be sure.)"
)


@pytest.fixture(scope="module")
def policies():
    return load_policies()


def node_results(report: Report) -> dict[str, dict[str, Any]]:
    return {o.ref.name: {r.rule: r for r in o.results} for o in report.objects if o.ref.kind == "Node"}


def node_verdicts(report: Report) -> dict[str, dict[str, str]]:
    return {name: {rule: r.result for rule, r in rs.items()} for name, rs in node_results(report).items()}


def check_nodes(report: Report, broken: dict[str, tuple[str, str]]) -> None:
    results = node_verdicts(report)
    assert set(results) == {*GOOD, *broken, "lab-cpu-1"}
    for name in GOOD:
        assert {r for r in results[name].values()} <= {"pass", "skip"}, (name, results[name])
        for rule in JUDGED_ON_GOOD:
            assert results[name][rule] == "pass", (name, rule)
    assert results["lab-vgpu-1"]["vgpu-profile-matches-config"] == "pass"
    assert set(results["lab-cpu-1"].values()) == {"skip"}
    for name, (rule, word) in broken.items():
        findings = {k: v for k, v in results[name].items() if v not in ("pass", "skip")}
        assert findings == {rule: word}, name


# ------------------------------------------------------------------------------------ (a) nodes alone


@pytest.fixture(scope="module")
def bare(policies) -> Report:
    return audit_paths([str(NODES)], policies)


def test_a_bare_node_dump_catches_every_disagreeing_node(bare: Report) -> None:
    check_nodes(bare, BROKEN_BARE)
    assert bare.input_errors == []


def test_every_verdict_of_the_bare_dump_says_its_assumption(bare: Report) -> None:
    results = node_results(bare)
    mission = results["lab-passthrough-advertising-gpu"]["resource-class-matches-workload"]
    assert mission.message.startswith(
        "Node lab-passthrough-advertising-gpu should run the vm-passthrough GPU workload (label"
        " nvidia.com/gpu.workload.config=vm-passthrough), but it advertises only container GPU resources"
        " (nvidia.com/gpu in status.allocatable)"  # trial 55: the resource named, not only its class
    )
    assert mission.message.endswith(f"({ASSUMED_LABEL})")
    assert results["lab-passthrough-1"]["resource-class-matches-workload"].message.endswith(f"({ASSUMED_LABEL})")
    unlabelled = results["lab-unlabelled-passthrough"]["resource-class-matches-workload"]
    assert unlabelled.message.endswith(ASSUMED_DEFAULT)
    # trial 71: the ClusterPolicy's default only for the nodes it decides, where none decides the operator's own
    assert "the operator's own default workload, container, where no ClusterPolicy is in the dump" in unlabelled.assumptions[0]
    # the report says each assumption once, with its count
    assumed = [n for n in bare.notes if n.startswith("assumed:")]
    assert len(assumed) == 3
    assert assumed[0].startswith("assumed: a node's nvidia.com/gpu.workload.config label is checked as the operator checks")
    assert assumed[0].endswith("(applied to 9 results of gpu-nodes/workload-label-valid)")  # every labelled GPU node
    assert assumed[1].startswith("assumed: a node's nvidia.com/gpu.workload.config label is taken as its workload")
    # unlabelled, label typo: what they advertise is judged under the default workload
    assert assumed[2].endswith(
        "a finding that rests on it is a warning (applied to 2 results of gpu-nodes/resource-class-matches-workload)"
    )
    # trial 157: that they advertise a GPU resource with devices rests on no workload (the assumption names the
    # likely cause of advertising none, a failure whatever the workload)
    advertised = results["lab-unlabelled-passthrough"]["gpu-resources-advertised"]
    assert (advertised.result, advertised.message) == ("pass", "The GPU node advertises a GPU resource with devices")


def test_what_the_operator_writes_is_not_judged_on_a_hand_labelled_node(bare: Report) -> None:
    deploy = node_results(bare)["lab-passthrough-1"]["deploy-labels-match-workload"]
    assert deploy.result == "skip"
    assert "nothing in the dump shows that the GPU Operator manages the node" in deploy.message
    # and what the ClusterPolicy alone decides skips with that reason
    ignored = node_results(bare)["lab-passthrough-1"]["label-ignored-sandbox-disabled"]
    assert (ignored.result, ignored.message) == (
        "skip",
        "no ClusterPolicy in the dump, so whether sandbox workloads are enabled is unknown",
    )


def test_cli_exits_1_and_the_table_names_each_broken_node() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "rules.cli", "audit", str(NODES), "--format", "table", "--results", "fail,warn"],
        capture_output=True,
        text=True,
        env={"COLUMNS": "250", "PATH": "/usr/bin:/bin"},
        cwd=ROOT,
    )
    assert run.returncode == 1, run.stderr
    for name in BROKEN_BARE:
        assert f"Node/{name}" in run.stdout
    for name in GOOD:
        assert name not in run.stdout
    # operand-tolerations-cover-taints skips each of the 11 untainted lab nodes.
    assert "11 objects judged (11 read); 308 results: 74 pass, 6 fail, 1 warn, 227 skip" in run.stdout
    assert "(Assuming the GPU" in run.stdout
    assert "verdict: note: assumed: a node's nvidia.com/gpu.workload.config label is taken as its workload" in run.stderr


# ------------------------------------------------------------------------------ (b) nodes + workloads


def test_b_with_the_workloads_each_lands_on_its_own_node(policies) -> None:
    report = audit_paths([str(LAB)], policies)
    check_nodes(report, BROKEN_BARE)
    pods = {o.ref.name: {r.rule: r for r in o.results} for o in report.objects if o.ref.kind == "Pod"}
    placed = (("cuda-vectoradd", "lab-container-1"), ("passthrough-a10", "lab-passthrough-1"), ("vgpu-a10-12q", "lab-vgpu-1"))
    for pod, node in placed:
        r = pods[pod]["workload-schedulable"]
        assert (r.result, r.message.split(": ", 1)[1]) == ("pass", f"1/11 nodes are feasible: {node}")
    cross = pods["cuda-on-passthrough-node"]["workload-schedulable"]
    assert cross.result == "fail"
    assert cross.message == (
        "Pod lab/cuda-on-passthrough-node cannot be scheduled: 0/11 nodes are available: 1 Insufficient nvidia.com/gpu,"
        " 10 node(s) didn't match Pod's node affinity/selector. hint: nvidia.com/gpu is not advertised where the pod"
        " may run: lab-passthrough-1 advertises nvidia.com/GA102GL_A10; lab-container-1, lab-label-typo and 3 more"
        " advertise nvidia.com/gpu but do not match the pod's node selector or affinity"
    )
    vgpu = pods["vgpu-on-passthrough-node"]["workload-schedulable"]
    assert vgpu.result == "fail"
    assert "0/11 nodes are available: 1 Insufficient nvidia.com/NVIDIA_A10-12Q, 10 node(s) didn't match" in vgpu.message
    pinned = pods["cuda-on-passthrough-node"]["gpu-pod-not-on-vm-node"]
    assert pinned.result == "fail"
    assert pinned.message.endswith(
        "(Assuming the GPU Operator reads node lab-passthrough-1's workload label: no ClusterPolicy in the dump;"
        " add it to be sure.)"
    )
    assert pods["cuda-vectoradd"]["gpu-pod-not-on-vm-node"].result == "pass"


# ------------------------------------------------------------------------ (c) the operator-managed dump


@pytest.fixture(scope="module")
def managed(policies) -> Report:
    return audit_paths([str(DATA / "managed.yaml")], policies)


def test_c_the_operator_managed_dump_judges_the_same_nodes(managed: Report) -> None:
    check_nodes(managed, BROKEN_MANAGED)
    results = node_results(managed)
    for name in GOOD:
        assert results[name]["deploy-labels-match-workload"].result == "pass"
        assert results[name]["resource-class-matches-workload"].assumptions == ()
    assert not [n for n in managed.notes if n.startswith("assumed:")]
    assert results["lab-passthrough-advertising-gpu"]["resource-class-matches-workload"].message.startswith(
        "Node lab-passthrough-advertising-gpu should run the vm-passthrough GPU workload (label"
        " nvidia.com/gpu.workload.config=vm-passthrough, read because ClusterPolicy cluster-policy enables sandbox workloads)"
    )


def test_a_clusterpolicy_next_to_hand_labelled_nodes_does_not_fail_the_good_ones(policies, tmp_path: Path) -> None:
    nodes = yaml.safe_load(NODES.read_text())
    for item in nodes["items"]:  # hand labs often copy nvidia.com/gpu.present from a real node too
        if item["metadata"]["name"] != "lab-cpu-1":
            item["metadata"]["labels"]["nvidia.com/gpu.present"] = "true"
    cluster_policy = yaml.safe_load((DATA / "must-gather" / "cluster_policy.yaml").read_text())
    nodes["items"].append(cluster_policy)
    dump = tmp_path / "nodes-and-clusterpolicy.yaml"
    dump.write_text(yaml.safe_dump(nodes))
    report = audit_paths([str(dump)], policies)
    # nothing shows the operator manages these nodes: the ClusterPolicy does not decide their workload, the labels
    # do, and the results say why (the unlabelled node's finding stays a warning)
    check_nodes(report, BROKEN_BARE)
    results = node_results(report)
    deploy = results["lab-container-1"]["deploy-labels-match-workload"]
    assert deploy.result == "skip"
    assert "a node labelled by hand" in deploy.message
    # trial 67: the reason names the ClusterPolicy the dump holds, rather than reading as if there were none
    assert results["lab-passthrough-advertising-gpu"]["resource-class-matches-workload"].message.endswith(
        "(Assuming the GPU Operator reads this node's workload label: ClusterPolicy cluster-policy is in the dump, but"
        " nothing in the dump shows the operator manages this node (no nvidia.com/gpu.deploy.* label, no operand pod,"
        " no NFD NVIDIA PCI label), so its settings are not taken for the node's.)"
    )
    assert results["lab-passthrough-1"]["label-ignored-sandbox-disabled"].result == "skip"
    # trials 67 and 72: the report's note says the case of this dump, not "none in the dump, or ..."
    assumed = [n.split(" (applied to")[0] for n in report.notes if n.startswith("assumed:")]
    assert assumed == [
        "assumed: a node's nvidia.com/gpu.workload.config label is checked as the operator checks it with sandbox"
        " workloads on, where the node shows no sign the operator manages it, so the dump's ClusterPolicy is not taken"
        " for it",
        "assumed: a node's nvidia.com/gpu.workload.config label is taken as its workload where the node shows no sign"
        " the operator manages it, so the dump's ClusterPolicy is not taken for it",
        "assumed: a GPU node without a valid workload label is taken to run the operator's own default workload,"
        " container, where the node shows no sign the operator manages it (the dump's ClusterPolicy, its"
        " spec.sandboxWorkloads.defaultWorkload too, is taken only for the nodes it decides); a finding that rests on it"
        " is a warning",
    ]


def test_a_managed_node_the_operator_has_not_reconciled_still_fails(policies, tmp_path: Path) -> None:
    cluster = yaml.safe_load((DATA / "managed.yaml").read_text())
    node = next(o for o in cluster["items"] if o["metadata"]["name"] == "lab-passthrough-1")
    del node["metadata"]["labels"]["nvidia.com/gpu.deploy.vfio-manager"]
    stale = copy.deepcopy(node)
    stale["metadata"]["name"] = "lab-passthrough-stale"
    stale["metadata"]["labels"]["nvidia.com/gpu.deploy.device-plugin"] = "true"
    cluster["items"].append(stale)
    dump = tmp_path / "unreconciled.yaml"
    dump.write_text(yaml.safe_dump(cluster))
    results = node_results(audit_paths([str(dump)], policies))
    missing = results["lab-passthrough-1"]["deploy-labels-match-workload"]
    assert missing.result == "fail"
    assert "lacks nvidia.com/gpu.deploy.vfio-manager" in missing.message
    assert results["lab-passthrough-stale"]["deploy-labels-match-workload"].result == "fail"


# ------------------------------------------------------------------------------ (d) the describe text


def test_d_the_describe_text_of_the_bare_lab_gets_the_same_verdicts(policies, bare: Report) -> None:
    report = audit_paths([str(DATA / "nodes.describe.txt")], policies)
    check_nodes(report, BROKEN_BARE)
    assert node_verdicts(report) == node_verdicts(bare)


# --------------------------------------------------------------------------- every shape, same verdicts


def test_the_bare_lab_in_every_shape_gets_the_same_node_verdicts(policies, bare: Report, tmp_path: Path) -> None:
    reference = node_verdicts(bare)
    listing = yaml.safe_load(NODES.read_text())
    as_json = tmp_path / "nodes.json"
    as_json.write_text(json.dumps(listing))
    multi = tmp_path / "nodes-multi.yaml"
    multi.write_text("".join("---\n" + yaml.safe_dump(item) for item in listing["items"]))
    array = tmp_path / "nodes-array.json"
    array.write_text(json.dumps(listing["items"]))
    folder = tmp_path / "folder"
    folder.mkdir()
    for item in listing["items"]:
        (folder / f"{item['metadata']['name']}.yaml").write_text(yaml.safe_dump(item))
    for path in (as_json, multi, array, folder):
        assert node_verdicts(audit_paths([str(path)], policies)) == reference, path.name
    assert node_verdicts(audit_bytes(NODES.read_bytes(), "nodes.yaml", policies)) == reference


def test_the_rest_body_gets_the_same_node_verdicts(bare: Report) -> None:
    client = create_app({}).test_client()
    response = client.post("/v1/evaluate", data=NODES.read_bytes(), headers={"Content-Type": "application/yaml"})
    assert response.status_code == 200
    body = response.get_json()
    got = {o["name"]: {r["rule"]: r["result"] for r in o["results"]} for o in body["objects"] if o["kind"] == "Node"}
    assert got == node_verdicts(bare)
    assert any(n.startswith("assumed: a node's nvidia.com/gpu.workload.config label is taken") for n in body["notes"])
    described = client.post(
        "/v1/evaluate", data=(DATA / "nodes.describe.txt").read_bytes(), headers={"Content-Type": "text/plain"}
    ).get_json()
    assert {o["name"]: {r["rule"]: r["result"] for r in o["results"]} for o in described["objects"]} == got


def test_the_managed_lab_as_a_must_gather_gets_the_same_node_verdicts(policies, managed: Report, tmp_path: Path) -> None:
    reference = {k: v for k, v in node_verdicts(managed).items() if k != "lab-cpu-1"}  # must-gather lists GPU nodes only
    folder = node_verdicts(audit_paths([str(DATA / "must-gather")], policies))
    assert folder == reference
    archive = tmp_path / "must-gather.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(DATA / "must-gather", arcname="must-gather")
    assert node_verdicts(audit_paths([str(archive)], policies)) == reference


def test_a_label_in_the_wrong_case_gets_its_fix_and_the_default_workload_as_a_warning(policies, tmp_path: Path) -> None:
    """From a new user's trial: an invalid label falls back to the default workload, which without a ClusterPolicy
    is as much a guess as for an unlabelled node (a warning, saying so), and the fix names the value meant."""
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "gpu-case", "labels": {"nvidia.com/gpu.workload.config": "VM-Passthrough"}},
        "status": {"capacity": {"nvidia.com/GA102GL_A10": "1"}, "allocatable": {"nvidia.com/GA102GL_A10": "1"}},
    }
    dump = tmp_path / "case.yaml"
    dump.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [node]}))
    results = node_results(audit_paths([str(dump)], policies))["gpu-case"]
    label = results["workload-label-valid"]
    assert label.result == "fail"
    assert "(the operator compares it exactly, case-sensitive; did you mean vm-passthrough?)" in label.message
    assert "prepares the node as the default workload 'container', unless a ClusterPolicy's" in label.message
    assert label.remediation == "kubectl label node gpu-case --overwrite nvidia.com/gpu.workload.config=vm-passthrough"
    resource = results["resource-class-matches-workload"]
    assert resource.result == "warn"
    assert resource.message.endswith(ASSUMED_DEFAULT)


def test_the_chat_summary_leads_with_the_assumptions(bare: Report) -> None:
    """From a new user's trial: the markdown for chat cut every message, so a reader saw flat failures without
    the assumption they rest on. The notes come right under the summary line."""
    from rules.render import render

    lines = render(bare, "markdown").splitlines()
    assert lines[1].startswith("_assumed: a node's nvidia.com/gpu.workload.config label is checked as the operator checks")
    assert lines[2].startswith("_assumed: a node's nvidia.com/gpu.workload.config label is taken as its workload")
    assert lines[3].startswith("_assumed: a GPU node without a valid workload label is taken to run the operator's own default")


def test_a_pod_pinned_to_a_hand_labelled_node_is_judged_by_that_nodes_label(policies, tmp_path: Path) -> None:
    """Nodes and Pods read a node's workload the same way: with a ClusterPolicy that disables sandbox workloads
    beside hand-labelled nodes, the passthrough node is still taken by its label (the operator shows no sign of
    managing it), so the container Pod pinned there fails, saying why."""
    cluster = yaml.safe_load(NODES.read_text())
    cluster["items"] += [d for d in yaml.safe_load_all((LAB / "workloads.yaml").read_text()) if d]
    cp = yaml.safe_load((DATA / "must-gather" / "cluster_policy.yaml").read_text())
    cp["spec"]["sandboxWorkloads"]["enabled"] = False
    cluster["items"].append(cp)
    dump = tmp_path / "lab-with-sandbox-off.yaml"
    dump.write_text(yaml.safe_dump(cluster))
    report = audit_paths([str(dump)], policies)
    pods = {o.ref.name: {r.rule: r for r in o.results} for o in report.objects if o.ref.kind == "Pod"}
    pinned = pods["cuda-on-passthrough-node"]["gpu-pod-not-on-vm-node"]
    assert pinned.result == "fail"
    assert pinned.message.endswith(
        "(Assuming the GPU Operator reads node lab-passthrough-1's workload label: nothing in the dump shows the operator"
        " manages that node (no nvidia.com/gpu.deploy.* label, no NFD NVIDIA PCI label).)"
    )
    assert node_results(report)["lab-passthrough-1"]["resource-class-matches-workload"].result == "pass"


def test_a_node_dump_cut_short_is_said_so_and_its_complete_nodes_are_judged(policies) -> None:
    """From a new user's trial: `head -c` of a kubectl List (kubectl writes 'kind: List' after the items) was
    'not a Kubernetes object: no kind' and every complete Node in it was dropped without a word."""
    text = NODES.read_text()
    at = text.index("name: lab-vgpu-advertising-gpu")
    cut = text[: text.rindex("\n", 0, at) + 1]  # at a line boundary inside the 7th node, as a paste limit cuts
    report = audit_bytes(cut.encode(), "cut.yaml", policies)
    [err] = report.input_errors
    assert err.reason == (
        "a List without 'kind' (kubectl writes it after the items): the dump looks cut short; the 6 item(s) before the"
        " last are read, the last may be incomplete and is not"
    )
    names = [o.ref.name for o in report.objects]
    assert names == ["lab-cpu-1", "lab-container-1", "lab-passthrough-1", "lab-vgpu-1", "lab-passthrough-advertising-gpu",
                     "lab-container-advertising-passthrough"]  # fmt: skip
    verdict = node_results(report)["lab-passthrough-advertising-gpu"]["resource-class-matches-workload"]
    assert verdict.result == "fail"


def test_rules_about_vgpus_skip_nodes_that_have_none(bare: Report) -> None:
    """From a new user's trial: 'The advertised vGPUs are those of the node's vGPU config' passed on a node that
    advertises no vGPU; vgpu-device-manager's state rules passed on nodes where it never runs."""
    results = node_results(bare)
    profile = results["lab-vgpu-advertising-gpu"]["vgpu-profile-matches-config"]
    assert (profile.result, profile.message) == (
        "skip",
        "the node advertises no vGPU resource, so there is no vGPU type to compare (see resource-class-matches-workload)",
    )
    assert results["lab-container-1"]["vgpu-config-applied"].result == "skip"
    assert results["lab-vgpu-1"]["vgpu-profile-matches-config"].result == "pass"


NAMESPACE_ONLY = """
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata: {name: bare-taint, namespace: ml-team}
  spec:
    containers: [{name: c, image: cuda, resources: {limits: {nvidia.com/gpu: "1"}}}]
  status:
    phase: Pending
    conditions:
    - type: PodScheduled
      status: "False"
      reason: Unschedulable
      message: >-
        0/12 nodes are available: 3 node(s) had untolerated taint {nvidia.com/gpu: present}, 9 Insufficient
        nvidia.com/gpu.
- apiVersion: v1
  kind: Pod
  metadata: {name: cuda-on-a1, namespace: ml-team}
  spec:
    nodeName: gpu-node-a1
    containers: [{name: c, image: cuda, resources: {limits: {nvidia.com/gpu: "1"}}}]
  status: {phase: Running}
"""


def test_a_namespace_dump_judges_pending_pods_by_the_schedulers_word(policies) -> None:
    """Trial 88: a user who may list only their namespace got every pending pod as pass (workload-schedulable has
    no Node to model); each pending pod the scheduler could not place carries its reasons, and the fix says what
    that user can run."""
    report = audit_bytes(NAMESPACE_ONLY.encode(), "ml-team.yaml", policies)
    results = {(o.ref.name, r.rule): r for o in report.objects for r in o.results}
    bare = results[("bare-taint", "pending-pod-not-unschedulable")]
    assert bare.result == "fail"
    assert bare.message == (
        'Pod ml-team/bare-taint is Pending: kube-scheduler could not place it: "0/12 nodes are available: 3 node(s) had'
        ' untolerated taint {nvidia.com/gpu: present}, 9 Insufficient nvidia.com/gpu." (its PodScheduled condition).'
        " The dump holds no Node, so this is the scheduler's own word, not a model of the nodes."
    )
    assert bare.remediation == (
        "kubectl describe pod -n ml-team bare-taint  # its Events give the same reasons; to let it onto the GPU nodes"
        " tainted nvidia.com/gpu: present, add a toleration for that taint: kubectl edit pod -n ml-team bare-taint (a"
        " Pod's tolerations may be added in place); to have verdict say which node refuses it and why, add the nodes to"
        " the dump (kubectl get nodes -o yaml, or, by someone who may list them, kubectl describe nodes)"
    )
    assert results[("cuda-on-a1", "pending-pod-not-unschedulable")].result == "skip"
    # trial 89: a taint of no GPU node named first (the control plane's) is not offered to be tolerated
    control_plane = NAMESPACE_ONLY.replace(
        "3 node(s) had untolerated taint {nvidia.com/gpu: present}",
        (
            "1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 node(s) had untolerated taint"
            " {node.kubernetes.io/disk-pressure: }"
        ),
    )
    report = audit_bytes(control_plane.encode(), "ml-team.yaml", policies)
    (fix,) = [
        r.remediation
        for o in report.objects
        for r in o.results
        if r.rule == "pending-pod-not-unschedulable" and r.result == "fail"
    ]
    assert "toleration" not in fix
    assert [o.ref.name for o in report.objects if o.verdict == "fail"] == ["bare-taint"]


def test_a_misspelt_gpu_name_gets_its_fix_where_nodes_are_in_the_dump(policies) -> None:
    """Trial 88: without Nodes gpu-resource-name-known says to ask for nvidia.com/gpu; with them it does not apply,
    and workload-schedulable's fix only said to compare the scheduler's events."""
    dump = """
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: gpu-node-a1, labels: {nvidia.com/gpu.present: "true"}}
  status: {allocatable: {cpu: "8", memory: 32Gi, pods: "110", nvidia.com/gpu: "8"}}
- apiVersion: v1
  kind: Pod
  metadata: {name: notebook-typo, namespace: ml-team}
  spec:
    containers: [{name: c, image: cuda, resources: {limits: {nvidia.com/gpus: "1"}}}]
  status: {phase: Pending}
"""
    report = audit_bytes(dump.encode(), "typo.yaml", policies)
    (result,) = [r for o in report.objects for r in o.results if r.rule == "workload-schedulable"]
    assert result.result == "fail"
    assert result.remediation == (
        "ask for nvidia.com/gpu (or the MIG, passthrough or vGPU name the nodes advertise) in place of nvidia.com/gpus,"
        " which no NVIDIA device plugin advertises: in its manifest, then kubectl apply -f <manifest>; where it is"
        " created already, kubectl get pod -n ml-team notebook-typo -o yaml > pod.yaml, edit it and kubectl replace"
        " --force -f pod.yaml (a Pod's containers cannot change in place). Else: kubectl describe pod -n ml-team"
        " notebook-typo; kubectl describe nodes  # compare the scheduler's events with the nodes' allocatable and taints"
    )


def test_a_namespace_dump_judges_a_scheduling_vmi_by_its_condition(policies) -> None:
    """Trial 89: such a VMI was judged by nothing; trial 91: the fix looked its virt-launcher pod up by
    vm.kubevirt.io/name, which holds the VMI's hostname (spec.hostname, or its name cut at the first dot)."""
    dump = """
apiVersion: kubevirt.io/v1
kind: VirtualMachineInstance
metadata: {name: db.prod, namespace: vms}
spec:
  hostname: dbhost
  domain: {devices: {gpus: [{name: g, deviceName: nvidia.com/NVIDIA_A10-12Q}]}}
status:
  phase: Scheduling
  conditions:
  - type: PodScheduled
    status: "False"
    reason: Unschedulable
    message: "0/3 nodes are available: 3 Insufficient nvidia.com/NVIDIA_A10-12Q."
"""
    report = audit_bytes(dump.encode(), "vms.yaml", policies)
    (result,) = [r for o in report.objects for r in o.results if r.rule == "vmi-not-unschedulable"]
    assert result.result == "fail"
    assert result.remediation.startswith(
        "kubectl describe vmi -n vms db.prod; kubectl get pods -n vms -l kubevirt.io/created-by=$(kubectl get vmi -n vms"
        " db.prod -o jsonpath='{.metadata.uid}')  # its virt-launcher pod"
    )
