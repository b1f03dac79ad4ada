"""rules.schedule: kube-scheduler's filters over small real-looking dumps, asserting exact messages."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import pytest
import yaml

from rules.errors import EvaluationError
from rules.quantity import parse_quantity
from rules.schedule import ClusterModel, Prediction, effective_requests, pod_spec_of
from rules.schedule.matching import (
    Taint,
    compile_terms,
    filter_taints,
    first_untolerated,
    text,
    tolerates_unschedulable,
    tolerations_of,
)
from rules.schedule.resources import scheduler_units
from rules.schedule.workloads import KUBEVIRT_SCHEDULABLE_LABEL, LABEL_SETTERS, OVERHEAD_NOTE, launcher_base


def docs(text_: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(text_) if d]


def model(text_: str) -> ClusterModel:
    objects = docs(text_)
    return ClusterModel([o for o in objects if o["kind"] == "Node"], [o for o in objects if o["kind"] == "Pod"])


def node(
    name: str,
    allocatable: dict[str, Any] | None = None,
    labels: dict[str, str] | None = None,
    taints: list[dict[str, str]] | None = None,
    unschedulable: bool = False,
) -> dict[str, Any]:
    alloc = {"cpu": "4", "memory": "16Gi", "ephemeral-storage": "100Gi", "pods": "110"}
    alloc.update(allocatable or {})
    spec: dict[str, Any] = {"taints": taints} if taints else {}
    if unschedulable:
        spec["unschedulable"] = True
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
        "spec": spec,
        "status": {"allocatable": alloc, "capacity": alloc},
    }


def pod(
    name: str = "app",
    requests: dict[str, Any] | None = None,
    limits: dict[str, Any] | None = None,
    node_name: str = "",
    phase: str = "Pending",
    **spec: Any,
) -> dict[str, Any]:
    resources = {k: v for k, v in (("requests", requests), ("limits", limits)) if v}
    body: dict[str, Any] = {"containers": [{"name": "main", "image": "registry.example/app:1", "resources": resources}], **spec}
    if node_name:
        body["nodeName"] = node_name
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": body,
        "status": {"phase": phase},
    }


GPU_CLUSTER = """
apiVersion: v1
kind: Node
metadata:
  name: gpu-1
  labels: {nvidia.com/gpu.present: "true", nvidia.com/gpu.count: "2"}
status:
  allocatable: {cpu: "32", memory: 128Gi, pods: "110", nvidia.com/gpu: "2"}
---
apiVersion: v1
kind: Node
metadata:
  name: gpu-2
  labels: {nvidia.com/gpu.present: "true", nvidia.com/gpu.count: "1"}
status:
  allocatable: {cpu: "32", memory: 128Gi, pods: "110", nvidia.com/gpu: "1"}
---
apiVersion: v1
kind: Node
metadata:
  name: cpu-1
  labels: {node-role.kubernetes.io/worker: ""}
status:
  allocatable: {cpu: "8", memory: 32Gi, pods: "110"}
---
apiVersion: v1
kind: Pod
metadata: {name: trainer-0, namespace: ml}
spec:
  nodeName: gpu-1
  containers:
  - name: train
    resources: {limits: {nvidia.com/gpu: "2"}}
status: {phase: Running}
"""


def gpu_pod(count: int = 1, **spec: Any) -> dict[str, Any]:
    return pod("cuda-job", limits={"nvidia.com/gpu": str(count)}, **spec)


# -- NodeResourcesFit -----------------------------------------------------------------------------


def test_extended_resource_used_up_on_one_node_and_absent_on_another() -> None:
    m = model(GPU_CLUSTER)
    p = m.predict(gpu_pod(2))
    # trial 114: the node it may run on that has GPUs enough but none free is said to be held (gpu-2 is too small)
    assert p == Prediction(
        False,
        (),
        3,
        "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.",
        {"Insufficient nvidia.com/gpu": 3},
        "hint: the pods bound where it may run hold nvidia.com/gpu (gpu-1 2 of 2)",
    )
    ok = m.predict(gpu_pod(1))
    assert ok.schedulable and ok.feasible == ("gpu-2",)
    assert ok.message == "1/3 nodes are feasible: gpu-2"


def test_resource_not_advertised_by_any_node() -> None:
    m = ClusterModel([node("worker-1"), node("worker-2"), node("worker-3")], [])
    p = m.predict(gpu_pod())
    assert p.message == "0/3 nodes are available: 3 Insufficient nvidia.com/gpu."
    assert p.reasons == {"Insufficient nvidia.com/gpu": 3}
    # no other nvidia.com resource is advertised either (trial 149: that went unsaid)
    assert p.hint == (
        "hint: no node of the dump lists nvidia.com/gpu, nor any other nvidia.com/ resource: the device plugin that"
        " advertises it runs on none of them (is it installed, and does its DaemonSet select and tolerate the nodes?)"
    )


def test_request_larger_than_allocatable() -> None:
    m = ClusterModel([node("worker-1"), node("worker-2")], [])
    p = m.predict(pod(requests={"cpu": "64", "memory": "1Gi"}))
    assert p.message == "0/2 nodes are available: 2 Insufficient cpu."
    both = m.predict(pod(requests={"cpu": "4500m", "memory": "17Gi", "ephemeral-storage": "200Gi"}))
    assert both.message == (
        "0/2 nodes are available: 2 Insufficient cpu, 2 Insufficient ephemeral-storage, 2 Insufficient memory."
    )


def test_capacity_used_by_bound_pods_and_finished_pods_not_counted() -> None:
    pods = [
        pod("web-1", requests={"cpu": "3"}, node_name="worker-1", phase="Running"),
        pod("batch-1", requests={"cpu": "3"}, node_name="worker-2", phase="Succeeded"),
        pod("batch-2", requests={"cpu": "3"}, node_name="worker-2", phase="Failed"),
        pod("pending-1", requests={"cpu": "3"}, phase="Pending"),  # unbound: consumes nothing
    ]
    m = ClusterModel([node("worker-1"), node("worker-2")], pods)
    p = m.predict(pod(requests={"cpu": "2"}))
    assert p.feasible == ("worker-2",)
    assert p.reasons == {"Insufficient cpu": 1}
    assert m.predict(pod(requests={"cpu": "1"})).feasible == ("worker-1", "worker-2")


def test_requests_default_to_limits_and_round_up_like_the_scheduler() -> None:
    m = ClusterModel([node("worker-1", {"cpu": "1"})], [pod("a", limits={"cpu": "600m"}, node_name="worker-1", phase="Running")])
    assert m.predict(pod(limits={"cpu": "400m"})).schedulable
    assert m.predict(pod(limits={"cpu": "401m"})).message == "0/1 nodes are available: 1 Insufficient cpu."
    assert scheduler_units({"cpu": Fraction(1, 10000), "memory": Fraction(1, 2), "nvidia.com/gpu": Fraction(0)}) == {
        "cpu": 1,
        "memory": 1,
    }


def test_too_many_pods() -> None:
    nodes = [node("small", {"pods": "2"}), node("big")]
    bound = [pod(f"p{i}", node_name="small", phase="Running") for i in range(2)]
    m = ClusterModel(nodes, bound)
    assert m.predict(pod()).feasible == ("big",)
    full = ClusterModel([node("small", {"pods": "2"})], bound)
    assert full.predict(pod(requests={"cpu": "5"})).message == ("0/1 nodes are available: 1 Insufficient cpu, 1 Too many pods.")


def test_missing_pods_allocatable_is_the_kubelets_default_said_in_a_note() -> None:
    """Regression (trial 216): a node written by hand lists its GPUs and cpu but not pods, which every kubelet reports;
    upstream fits no pod there, and every pod of a hand-built lab was "Too many pods". It takes the kubelet's default
    --max-pods, 110, in a note."""
    bare = {"kind": "Node", "metadata": {"name": "bare"}, "status": {"allocatable": {"cpu": "4"}}}
    model = ClusterModel([bare], [pod(name=f"p{i}", node_name="bare", phase="Running") for i in range(109)])
    assert model.predict(pod()).message == "1/1 nodes are feasible: bare"
    assert model.warnings == [
        "Nodes whose status.allocatable lists no pods, which every kubelet reports (a node written by hand, or its"
        " describe text cut), are taken to hold as many pods as their capacity lists, else 110, the kubelet's default"
        " --max-pods: bare (110)"
    ]
    full = ClusterModel([bare], [pod(name=f"p{i}", node_name="bare", phase="Running") for i in range(110)])
    assert full.predict(pod()).message == "0/1 nodes are available: 1 Too many pods."
    # (trial 217) a capacity that lists pods is what the node takes; a pods that is no quantity is 0, as said; the
    # nodes are said in one note
    capped = {"kind": "Node", "metadata": {"name": "n-cap"}, "status": {"capacity": {"pods": "1"}, "allocatable": {"cpu": "4"}}}
    bad = {"kind": "Node", "metadata": {"name": "n-bad"}, "status": {"allocatable": {"cpu": "4", "pods": "lots"}}}
    model = ClusterModel([capped, bad, bare], [pod(name="p0", node_name="n-cap", phase="Running")])
    assert model.predict(pod()).message == "1/3 nodes are feasible: bare"
    assert model.warnings == [
        "Node n-bad: status.allocatable.pods: 'lots' is not a Kubernetes quantity; taken as 0",
        "Nodes whose status.allocatable lists no pods, which every kubelet reports (a node written by hand, or its"
        " describe text cut), are taken to hold as many pods as their capacity lists, else 110, the kubelet's default"
        " --max-pods: bare (110), n-cap (1)",
    ]
    # a node that lists pods is taken at its word, and said nothing of
    listed = {"kind": "Node", "metadata": {"name": "n"}, "status": {"allocatable": {"cpu": "4", "pods": "0"}}}
    assert (ClusterModel([listed], []).predict(pod()).message, ClusterModel([listed], []).warnings) == (
        "0/1 nodes are available: 1 Too many pods.",
        [],
    )


def test_node_without_allocatable_is_not_rejected_on_resources() -> None:
    """Regression: a label-only must-gather (no Node status) read as room for 0 pods, so every
    workload failed with "0/1 nodes are available: 1 Too many pods."."""
    labels_only = {"kind": "Node", "metadata": {"name": "worker-1", "labels": {"zone": "a"}}}
    m = ClusterModel([labels_only], [pod("busy", requests={"cpu": "64"}, node_name="worker-1", phase="Running")])
    p = m.predict(pod(requests={"cpu": "2", "nvidia.com/gpu": "1"}))
    assert (p.schedulable, p.message, p.reasons) == (True, "1/1 nodes are feasible: worker-1", {})
    assert p.hint == "hint: node worker-1 has no status.allocatable in the dump: resources not checked"
    assert m.warnings == []
    # Other filters still apply to it; rejected before NodeResourcesFit, it is not named in the hint.
    p = m.predict(pod(nodeSelector={"zone": "b"}))
    assert (p.message, p.hint) == (
        "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector.",
        "hint: no node has label zone=b",
    )
    # Beside a sized node that is too small: the sized one fails as upstream, the unsized one passes.
    small = node("small", {"cpu": "1"})
    trimmed = [{"kind": "Node", "metadata": {"name": f"trimmed-{i}"}, "status": {"allocatable": None}} for i in range(3)]
    p = ClusterModel([small, *trimmed], []).predict(pod(requests={"cpu": "2"}))
    assert (p.message, p.reasons) == ("3/4 nodes are feasible: trimmed-0, trimmed-1, trimmed-2", {"Insufficient cpu": 1})
    assert p.hint == ("hint: nodes trimmed-0, trimmed-1 and 1 more have no status.allocatable in the dump: resources not checked")
    # A DaemonSet over them: targeted and feasible, with the same hint.
    ds = {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "agent", "namespace": "mon"},
        "spec": {"template": {"spec": {"containers": [{"name": "a", "resources": {"requests": {"cpu": "2"}}}]}}},
    }
    p = ClusterModel([small, *trimmed], []).predict(ds)
    assert (p.schedulable, p.message) == (False, "cannot run on 1/4 targeted nodes: small (Insufficient cpu)")
    assert p.hint == ("hint: nodes trimmed-0, trimmed-1 and 1 more have no status.allocatable in the dump: resources not checked")
    p = ClusterModel([labels_only], []).predict(ds)
    assert (p.schedulable, p.message, p.hint) == (
        True,
        "1/1 nodes are targeted and feasible: worker-1",
        "hint: node worker-1 has no status.allocatable in the dump: resources not checked",
    )


def test_a_successs_hint_follows_a_stop() -> None:
    """Trial 106: a pass read "1/1 nodes are feasible: node-a hint: node node-a has no status.allocatable ...", the
    hint run into the list of nodes; a failure's scheduler text ends with its own stop."""
    from rules.evaluate import evaluate
    from rules.loader import load_policies
    from rules.reader import parse_text

    text = (
        "apiVersion: v1\nkind: Node\nmetadata: {name: node-a, labels: {nvidia.com/gpu.present: 'true'}}\n---\n"
        "apiVersion: v1\nkind: Pod\nmetadata: {name: wants-gpu, namespace: ml}\nspec:\n  containers:\n"
        "  - {name: c, image: x, resources: {limits: {nvidia.com/gpu: '1'}}}\nstatus: {phase: Pending}\n"
    )
    report = evaluate(parse_text(text, "chat.yaml"), load_policies())
    (message,) = [r.message for o in report.objects for r in o.results if r.rule == "workload-schedulable"]
    assert message == (
        "Pod ml/wants-gpu can be scheduled: 1/1 nodes are feasible: node-a. hint: node node-a has no status.allocatable"
        " in the dump: resources not checked"
    )


def test_node_allocatable_defaults_to_capacity() -> None:
    """SetDefaults_NodeStatus: an absent allocatable is the capacity, checked as usual."""
    capacity_only = {"kind": "Node", "metadata": {"name": "w"}, "status": {"capacity": {"cpu": "1", "pods": "10"}}}
    p = ClusterModel([capacity_only], []).predict(pod(requests={"cpu": "2"}))
    assert (p.message, p.hint) == ("0/1 nodes are available: 1 Insufficient cpu.", "")
    # An allocatable that exists but lacks a resource still has 0 of it (upstream).
    p = ClusterModel(
        [
            {
                "kind": "Node",
                "metadata": {"name": "w"},
                "status": {"allocatable": {"pods": "10"}, "capacity": {"cpu": "8", "pods": "10"}},
            }
        ],
        [],
    ).predict(pod(requests={"cpu": "1"}))
    assert p.message == "0/1 nodes are available: 1 Insufficient cpu."


def described(name: str, allocated: str | None, **kw: Any) -> dict[str, Any]:
    """A node as the describe reader writes it: its pods' requests summed by kubectl in an annotation."""
    n = node(name, **kw)
    n["metadata"]["annotations"] = {"verdict.dev/source": "kubectl-describe"}
    if allocated is not None:
        n["metadata"]["annotations"]["verdict.dev/allocated-requests"] = allocated
    return n


def rebuilt_pod(name: str, node_name: str, namespace: str = "default") -> dict[str, Any]:
    """A bound pod as the describe reader rebuilds it from a node's pod rows: name, namespace, node; no GPU shown."""
    p = pod(name, node_name=node_name, phase="Running")
    p["metadata"]["namespace"] = namespace
    p["metadata"]["annotations"] = {"verdict.dev/source": "kubectl-describe"}
    return p


def test_describe_texts_allocated_requests_are_the_nodes_requested_floor() -> None:
    """Trial 88: pods rebuilt from describe text show CPU and memory only, so a node whose Allocated resources
    said 8 of its 8 GPUs were taken was modelled with all 8 free, and a pending GPU pod "could be scheduled"."""
    full = described(
        "gpu-a",
        '{"cpu": "16", "memory": "128Gi", "nvidia.com/gpu": "8"}',
        allocatable={"cpu": "63", "memory": "500Gi", "nvidia.com/gpu": "8"},
    )
    half = described("gpu-b", '{"nvidia.com/gpu": "6"}', allocatable={"cpu": "63", "memory": "500Gi", "nvidia.com/gpu": "8"})
    # a rebuilt pod on gpu-a (CPU only, as describe prints it) and a dump's pod on gpu-b asking 1 GPU: the larger
    # of kubectl's sum and the dump's pods counts, never both
    bound = [
        pod("train-a-0", requests={"cpu": "8"}, node_name="gpu-a", phase="Running"),
        pod("train-b-0", limits={"nvidia.com/gpu": "1"}, node_name="gpu-b", phase="Running"),
    ]
    m = ClusterModel([full, half], bound)
    assert m.warnings == []
    assert m.predict(gpu_pod(2)).message == "1/2 nodes are feasible: gpu-b"
    assert m.predict(gpu_pod(3)).message == "0/2 nodes are available: 2 Insufficient nvidia.com/gpu."
    # cpu: 16 of 63 taken on gpu-a by kubectl's sum (the rebuilt pod's 8 is within it)
    assert m.predict(pod(requests={"cpu": "47"})).feasible == ("gpu-a", "gpu-b")
    assert m.predict(pod(requests={"cpu": "48"})).feasible == ("gpu-b",)
    # the same nodes without the annotation: all 8 GPUs of gpu-a free
    plain = ClusterModel([described("gpu-a", None, allocatable={"nvidia.com/gpu": "8"})], [])
    assert plain.predict(gpu_pod(8)).message == "1/1 nodes are feasible: gpu-a"


def test_the_floor_is_read_from_rebuilt_nodes_only_and_from_one_the_dump_holds_in_full_too() -> None:
    """Review: the annotation was trusted on any Node; and where the dump also held the node in full (the index keeps
    the full one), its describe text's Allocated resources were lost, and a pending GPU pod 'could be scheduled'."""
    full = node("gpu-a", allocatable={"nvidia.com/gpu": "4"})
    forged = node("gpu-a", allocatable={"nvidia.com/gpu": "4"})
    forged["metadata"]["annotations"] = {"verdict.dev/allocated-requests": '{"nvidia.com/gpu": "4"}'}
    assert ClusterModel([forged], []).predict(gpu_pod(1)).schedulable
    rebuilt = described("gpu-a", '{"nvidia.com/gpu": "4"}', allocatable={"nvidia.com/gpu": "4"})
    assert ClusterModel([full], []).predict(gpu_pod(1)).schedulable
    p = ClusterModel([full], [], [rebuilt]).predict(gpu_pod(1))
    assert p.message == "0/1 nodes are available: 1 Insufficient nvidia.com/gpu."


def test_a_workload_owning_rebuilt_pods_may_own_the_floor_they_leave_unexplained() -> None:
    """Review: a Deployment whose 4 pods (rebuilt from describe text: no GPU shown) held the node's 4 GPUs could not
    place a pod of its own, because the floor was counted against it; another workload still finds none free."""
    full = described("gpu-a", '{"nvidia.com/gpu": "4"}', allocatable={"nvidia.com/gpu": "4"})
    replicas = [rebuilt_pod(f"triton-server-5d8f7c9b6-{c}x2kq", "gpu-a", "inference") for c in "abcd"]
    m = ClusterModel([full], replicas)
    deployment = yaml.safe_load("""
apiVersion: apps/v1
kind: Deployment
metadata: {name: triton-server, namespace: inference}
spec:
  replicas: 4
  selector: {matchLabels: {app: triton}}
  template:
    metadata: {labels: {app: triton}}
    spec:
      containers: [{name: triton, resources: {limits: {nvidia.com/gpu: "1"}}}]
status: {replicas: 4}
""")
    assert m.predict(deployment).schedulable
    assert m.predict(gpu_pod(1)).message == "0/1 nodes are available: 1 Insufficient nvidia.com/gpu."


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ("[1, 2]", "not a JSON object"),
        ("{", "Expecting property name"),
        ('{"nvidia.com/gpu": "eight"}', "'eight' is not a Kubernetes quantity"),
    ],
)
def test_an_unreadable_allocated_annotation_is_a_warning(raw: str, why: str) -> None:
    m = ClusterModel([described("gpu-a", raw, allocatable={"nvidia.com/gpu": "8"})], [])
    (warning,) = m.warnings
    assert warning.startswith("Node gpu-a: annotation verdict.dev/allocated-requests: ")
    assert why in warning
    assert warning.endswith("; its Allocated resources are not counted")
    assert m.predict(gpu_pod(8)).schedulable


def test_non_finite_quantities_are_warnings_not_crashes() -> None:
    """YAML .inf/.nan are floats that no Fraction holds: the bound pod's requests are skipped with a
    warning, the node's value is taken as 0, and the pending pod is predicted normally."""
    m = model("""
kind: Node
metadata: {name: w}
status: {allocatable: {cpu: "4", memory: .nan, pods: "110"}}
---
kind: Pod
metadata: {name: runaway, namespace: ml}
spec:
  nodeName: w
  containers: [{name: c, resources: {requests: {cpu: .inf}}}]
status: {phase: Running}
""")
    assert m.warnings == [
        "Node w: status.allocatable.memory: nan is not a quantity; taken as 0",
        "Pod ml/runaway: spec.containers[0].resources.requests.cpu: inf is not a quantity; its requests are not counted",
    ]
    p = m.predict(pod(requests={"cpu": "1"}))
    assert (p.schedulable, p.message) == (True, "1/1 nodes are feasible: w")
    assert m.predict(pod(requests={"cpu": "5"})).message == "0/1 nodes are available: 1 Insufficient cpu."
    with pytest.raises(EvaluationError, match=r"^spec.containers\[0\].resources.limits.cpu: -inf is not a quantity$"):
        m.predict(pod(limits={"cpu": float("-inf")}))
    vmi = yaml.safe_load(VMI)
    vmi["spec"]["domain"]["resources"]["limits"] = {"nvidia.com/GA102GL_A10": float("nan")}
    with pytest.raises(EvaluationError, match=r"^spec.domain.resources.limits.nvidia.com/GA102GL_A10: nan is not"):
        m.predict(vmi)


def test_init_container_max_rule_and_sidecar_rule() -> None:
    spec = yaml.safe_load("""
initContainers:
- name: migrate            # runs alone: 2 cpu
  resources: {requests: {cpu: "2", memory: 1Gi}}
- name: log-shipper        # sidecar: runs with everything after it
  restartPolicy: Always
  resources: {requests: {cpu: 500m, memory: 256Mi}}
- name: warm-cache         # runs beside the sidecar: 1 + 0.5
  resources: {requests: {cpu: "1", memory: 3Gi}}
containers:
- name: app
  resources: {requests: {cpu: "1", memory: 1Gi}}
- name: metrics
  resources: {limits: {cpu: 250m, memory: 128Mi}}
""")
    # containers + sidecar = 1.75 cpu, 1.375Gi; init peaks: 2 cpu (migrate), 3.25Gi (warm-cache + sidecar)
    assert effective_requests(spec) == {"cpu": Fraction(2), "memory": Fraction(3 * 2**30 + 256 * 2**20)}
    m = ClusterModel([node("worker-1", {"cpu": "1900m"})], [])
    assert m.predict({"kind": "Pod", "metadata": {"name": "x"}, "spec": spec}).message == (
        "0/1 nodes are available: 1 Insufficient cpu."
    )


def test_overhead_and_pod_level_requests() -> None:
    spec = {
        "containers": [{"name": "a", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}],
        "overhead": {"cpu": "250m", "memory": "160Mi"},
    }
    assert effective_requests(spec) == {"cpu": Fraction(5, 4), "memory": Fraction(2**30 + 160 * 2**20)}
    pod_level = {**spec, "resources": {"requests": {"cpu": "2"}}}
    assert effective_requests(pod_level)["cpu"] == Fraction(9, 4)
    m = ClusterModel([node("worker-1", {"cpu": "1200m"})], [])
    assert m.predict({"kind": "Pod", "spec": spec}).message == "0/1 nodes are available: 1 Insufficient cpu."


def test_bad_quantity_in_workload_raises_evaluation_error() -> None:
    with pytest.raises(EvaluationError, match=r"spec.containers\[0\].resources.limits.nvidia.com/gpu"):
        ClusterModel([node("w")], []).predict(
            gpu_pod(count=1) | {"spec": {"containers": [{"name": "x", "resources": {"limits": {"nvidia.com/gpu": "one"}}}]}}
        )


def test_bad_quantity_in_dump_is_a_warning() -> None:
    broken = pod("broken", requests={"cpu": "lots"}, node_name="w", phase="Running")
    m = ClusterModel([node("w", {"memory": "a lot"})], [broken])
    assert any("Node w: status.allocatable.memory" in w for w in m.warnings)
    assert any("Pod default/broken" in w for w in m.warnings)
    assert m.predict(pod(requests={"cpu": "1"})).schedulable


def test_malformed_objects_are_skipped_not_fatal() -> None:
    nodes = [
        node("ok"),
        {"kind": "Node"},
        node("ok"),
        {
            "kind": "Node",
            "metadata": {"name": "weird", "labels": ["x"]},
            "spec": {"taints": "none"},
            "status": {"allocatable": ["cpu"]},
        },
    ]
    pods: list[dict[str, Any]] = [
        {"kind": "Pod", "spec": "nope"},
        {
            "kind": "Pod",
            "metadata": {"labels": 3},
            "status": {"phase": {}},
            "spec": {"nodeName": "ok", "containers": [None, {"resources": "x"}]},
        },
    ]
    m = ClusterModel(nodes, pods)
    assert m.node_names == ("ok", "weird")
    assert m.warnings == [
        "a Node without metadata.name was skipped",
        "Node ok appears twice; the first one is used",
        "Node weird: status.allocatable is not a mapping; resources not checked",
    ]
    assert not m.predict({"kind": {"not": "a kind"}}).applicable
    p = m.predict(pod(tolerations="all", affinity={"nodeAffinity": []}, nodeSelector=["x"]))
    assert (p.message, p.reasons, p.hint) == (
        "2/2 nodes are feasible: ok, weird",
        {},
        "hint: node weird has no status.allocatable in the dump: resources not checked",
    )


# -- NodeUnschedulable, TaintToleration ---------------------------------------------------------------


def test_node_unschedulable() -> None:
    m = ClusterModel([node("cordoned", unschedulable=True), node("worker-1", {"cpu": "1"})], [])
    p = m.predict(pod(requests={"cpu": "2"}))
    assert p.message == "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) were unschedulable."
    tolerant = pod(
        requests={"cpu": "2"},
        tolerations=[{"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"}],
    )
    assert m.predict(tolerant).feasible == ("cordoned",)


def test_untolerated_taint_exact_text_with_and_without_value() -> None:
    m = ClusterModel(
        [
            node("cp-1", taints=[{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}]),
            node(
                "gpu-1",
                taints=[
                    {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"},
                    {"key": "dedicated", "value": "ml", "effect": "NoSchedule"},
                ],
            ),
        ],
        [],
    )
    assert m.predict(pod()).message == (
        "0/2 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, "
        "1 node(s) had untolerated taint {nvidia.com/gpu: present}."
    )
    # the first untolerated taint in node order is the one reported
    half = pod(tolerations=[{"key": "nvidia.com/gpu", "operator": "Exists"}])
    assert m.predict(half).reasons == {
        "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }": 1,
        "node(s) had untolerated taint {dedicated: ml}": 1,
    }


def test_exists_and_empty_key_tolerations() -> None:
    m = ClusterModel(
        [
            node("a", taints=[{"key": "k1", "value": "v1", "effect": "NoSchedule"}]),
            node("b", taints=[{"key": "k2", "value": "v2", "effect": "NoExecute"}]),
        ],
        [],
    )
    assert m.predict(pod(tolerations=[{"operator": "Exists"}])).feasible == ("a", "b")
    assert m.predict(pod(tolerations=[{"key": "k1", "operator": "Exists"}])).feasible == ("a",)
    # Equal (the default operator) needs the value; an effect restricts the match
    assert m.predict(pod(tolerations=[{"key": "k1", "value": "v1"}])).feasible == ("a",)
    assert m.predict(pod(tolerations=[{"key": "k1", "value": "other"}])).feasible == ()
    assert m.predict(pod(tolerations=[{"key": "k1", "operator": "Exists", "effect": "NoExecute"}])).feasible == ()
    assert m.predict(pod(tolerations=[{"operator": "Exists", "effect": "NoExecute"}])).feasible == ("b",)


def test_no_execute_taint_rejects_and_prefer_no_schedule_is_ignored() -> None:
    m = ClusterModel(
        [
            node("failing", taints=[{"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"}]),
            node("preferred-not", taints=[{"key": "spot", "value": "true", "effect": "PreferNoSchedule"}]),
        ],
        [],
    )
    p = m.predict(pod())
    assert p.feasible == ("preferred-not",)
    assert p.reasons == {"node(s) had untolerated taint {node.kubernetes.io/unreachable: }": 1}


def test_toleration_matching_rules() -> None:
    taint = Taint("nvidia.com/gpu", "present", "NoSchedule")
    assert first_untolerated([taint], tolerations_of([{"key": "nvidia.com/gpu", "operator": "Exists"}])) is None
    assert first_untolerated([taint], tolerations_of([{"key": "nvidia.com/gpu"}])) == taint
    assert first_untolerated([taint], tolerations_of([{"effect": "NoSchedule", "operator": "Exists"}])) is None
    assert tolerates_unschedulable(tolerations_of([{"operator": "Exists"}]))
    assert filter_taints([{"key": "a", "effect": "PreferNoSchedule"}, {"key": "b", "effect": "NoExecute"}]) == (
        Taint("b", "", "NoExecute"),
    )


# -- NodeAffinity, NodeName -----------------------------------------------------------------------------

ZONED = [
    node("n1", labels={"zone": "a", "gpu-mem": "24", "tier": "gold"}),
    node("n2", labels={"zone": "b", "gpu-mem": "48"}),
    node("n3", labels={"zone": "c", "gpu-mem": "not-a-number"}),
]


def required(*terms: dict[str, Any]) -> dict[str, Any]:
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}}


def feasible_with(affinity: dict[str, Any]) -> tuple[str, ...]:
    return ClusterModel(ZONED, []).predict(pod(affinity=affinity)).feasible


def expr(key: str, operator: str, *values: str) -> dict[str, Any]:
    out: dict[str, Any] = {"key": key, "operator": operator}
    if values:
        out["values"] = list(values)
    return out


def test_node_selector_mismatch() -> None:
    p = ClusterModel(ZONED, []).predict(pod(nodeSelector={"zone": "a", "tier": "silver"}))
    assert p.message == "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector."
    assert ClusterModel(ZONED, []).predict(pod(nodeSelector={"zone": "a", "tier": "gold"})).feasible == ("n1",)


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        (expr("zone", "In", "a", "b"), ("n1", "n2")),
        (expr("zone", "NotIn", "a"), ("n2", "n3")),
        (expr("tier", "NotIn", "gold"), ("n2", "n3")),  # a missing label satisfies NotIn
        (expr("tier", "Exists"), ("n1",)),
        (expr("tier", "DoesNotExist"), ("n2", "n3")),
        (expr("gpu-mem", "Gt", "30"), ("n2",)),
        (expr("gpu-mem", "Lt", "30"), ("n1",)),  # n3's label is not an integer: no match
        (expr("gpu-mem", "Gt", "thirty"), ()),  # a parse error makes the term match nothing
        (expr("zone", "In"), ()),
        (expr("zone", "Exists", "a"), ()),
        (expr("zone", "Near", "a"), ()),
    ],
)
def test_node_affinity_operators(expression: dict[str, Any], expected: tuple[str, ...]) -> None:
    assert feasible_with(required({"matchExpressions": [expression]})) == expected


def test_node_affinity_terms_are_ored_and_expressions_anded() -> None:
    assert feasible_with(
        required(
            {"matchExpressions": [expr("zone", "In", "a", "b"), expr("gpu-mem", "Gt", "30")]},
            {"matchExpressions": [expr("zone", "In", "c")]},
        )
    ) == ("n2", "n3")


def test_empty_terms_match_nothing() -> None:
    assert feasible_with(required()) == ()
    assert feasible_with(required({})) == ()
    assert feasible_with(required({}, {"matchExpressions": [expr("zone", "In", "b")]})) == ("n2",)


def test_match_fields_metadata_name_and_the_prefilter() -> None:
    m = ClusterModel(ZONED, [])
    pinned = m.predict(pod(requests={"cpu": "8"}, affinity=required({"matchFields": [expr("metadata.name", "In", "n2")]})))
    assert pinned.message == ("0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) [NodeAffinity].")
    assert feasible_with(required({"matchFields": [expr("metadata.name", "NotIn", "n2")]})) == ("n1", "n3")
    assert (
        feasible_with(
            required({"matchFields": [expr("metadata.name", "In", "n1")], "matchExpressions": [expr("zone", "In", "b")]})
        )
        == ()
    )
    conflict = m.predict(
        pod(affinity=required({"matchFields": [expr("metadata.name", "In", "n1"), expr("metadata.name", "In", "n2")]}))
    )
    assert conflict.message == "0/3 nodes are available: pod affinity terms conflict."


def test_node_name_on_a_template() -> None:
    m = ClusterModel(ZONED, [])
    deployment: dict[str, Any] = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "pinned"},
        "spec": {"template": {"spec": {"nodeName": "n3", "containers": [{"name": "a"}]}}},
    }
    assert m.predict(deployment).feasible == ("n3",)
    deployment["spec"]["template"]["spec"]["nodeName"] = "gone"
    # trial 115: a pod naming its node never reaches kube-scheduler: no FitError is said of it
    assert m.predict(deployment).message == (
        "its pod names node gone in spec.nodeName, which is not among the dump's 3 nodes: kube-scheduler never places"
        " a pod that names its node, and no node of the dump runs it"
    )


def test_a_template_naming_its_node_is_judged_by_the_kubelets_admission() -> None:
    """Trial 115: a Deployment whose template names a node without GPUs got a FitError ("0/8 nodes are available:
    ... didn't match the requested node name"), which kube-scheduler never writes for such pods: the kubelet there
    refuses each at admission (OutOfnvidia.com/gpu). A cordon does not stop it; a NoExecute taint does, a NoSchedule
    one does not; the nodeSelector is checked (NodeAffinity)."""
    cpu = node("cpu-1")
    cordoned = node("gpu-c", {"nvidia.com/gpu": "4"}, unschedulable=True)
    tainted = node(
        "gpu-t", {"nvidia.com/gpu": "4"}, taints=[{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
    )
    evicting = node("gpu-x", {"nvidia.com/gpu": "4"}, taints=[{"key": "maintenance", "effect": "NoExecute"}])
    m = ClusterModel([cpu, cordoned, tainted, evicting], [])

    def pinned(to: str, **spec: Any) -> dict[str, Any]:
        template = {
            "spec": {"nodeName": to, "containers": [{"name": "a", "resources": {"limits": {"nvidia.com/gpu": "1"}}}], **spec}
        }
        return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "pinned"}, "spec": {"template": template}}

    # trial 117: a node that does not list the resource: the kubelet drops the request and runs the pod without it
    # (pkg/kubelet/lifecycle/predicate.go removeMissingExtendedResources)
    p = m.predict(pinned("cpu-1"))
    assert (p.schedulable, p.message) == (
        False,
        "its pod names node cpu-1 in spec.nodeName, so kube-scheduler never places it, and the kubelet there runs it"
        " without nvidia.com/gpu, which that node does not list (the kubelet drops such requests at admission)",
    )
    # one that lists it with no room: refused at admission
    busy = node("gpu-full", {"nvidia.com/gpu": "1"})
    held = pod("t", limits={"nvidia.com/gpu": "1"}, node_name="gpu-full", phase="Running")
    p = ClusterModel([busy], [held]).predict(pinned("gpu-full"))
    assert p.message == (
        "its pod names node gpu-full in spec.nodeName, so kube-scheduler never places it: the kubelet there refuses it"
        " at admission (OutOfnvidia.com/gpu) and the pod fails"
    )
    # a node down: every pod tolerates its NoExecute taint for 300 s (DefaultTolerationSeconds), so it is no refusal;
    # the hint says the pod waits for the node
    down = node("gpu-d", {"nvidia.com/gpu": "4"}, taints=[{"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"}])
    p = ClusterModel([down], []).predict(pinned("gpu-d"))
    assert (p.schedulable, p.hint) == (
        True,
        "hint: node gpu-d is unreachable (node.kubernetes.io/unreachable taint): its pod waits until it is back",
    )
    # a node the dump lacks, where pods of the dump run: not judged
    there = pod("x", limits={"nvidia.com/gpu": "1"}, node_name="gpu-z", phase="Running")
    p = ClusterModel([cpu], [there]).predict(pinned("gpu-z"))
    assert (p.applicable, p.schedulable) == (False, True)
    assert (m.predict(pinned("gpu-c")).schedulable, m.predict(pinned("gpu-t")).schedulable) == (True, True)
    assert "(TaintToleration)" in m.predict(pinned("gpu-x")).message
    assert "(NodeAffinity)" in m.predict(pinned("gpu-c", nodeSelector={"zone": "b"})).message


def test_compile_terms_drops_bad_terms() -> None:
    assert compile_terms([{}, {"matchExpressions": [expr("a", "Gt", "1", "2")]}]) == ()
    (term,) = compile_terms([{"matchExpressions": [expr("zone", "In", "a")]}])
    assert term.matches({"zone": "a"}, "n1") and not term.matches({}, "n1")


# -- messages -------------------------------------------------------------------------------------------


def test_reasons_sort_like_go_sort_strings() -> None:
    nodes = [
        node(f"cp-{i}", taints=[{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}]) for i in range(10)
    ]
    nodes += [node("cordoned", unschedulable=True), node("w1", {"cpu": "1"}), node("w2", {"cpu": "1"})]
    p = ClusterModel(nodes, []).predict(pod(requests={"cpu": "2"}, nodeSelector={"kubernetes.io/os": "linux"}))
    assert p.message == (
        "0/13 nodes are available: 1 node(s) were unschedulable, "
        "10 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, "
        "2 node(s) didn't match Pod's node affinity/selector."
    )


def test_first_failing_filter_counts_a_node_once_but_resources_count_each() -> None:
    nodes = [
        node("tainted", {"cpu": "1"}, taints=[{"key": "t", "effect": "NoSchedule"}]),
        node("small", {"cpu": "1", "memory": "1Gi"}),
    ]
    p = ClusterModel(nodes, []).predict(pod(requests={"cpu": "2", "memory": "2Gi"}))
    assert p.reasons == {"node(s) had untolerated taint {t: }": 1, "Insufficient cpu": 1, "Insufficient memory": 1}
    assert p.message == (
        "0/2 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, 1 node(s) had untolerated taint {t: }."
    )


def test_pass_message_lists_five_names() -> None:
    m = ClusterModel([node(f"worker-{i}") for i in range(7)], [])
    assert m.predict(pod()).message == ("7/7 nodes are feasible: worker-0, worker-1, worker-2, worker-3, worker-4 and 2 more")


def test_no_nodes() -> None:
    p = ClusterModel([], []).predict(pod())
    assert (p.schedulable, p.message, p.total_nodes) == (False, "no nodes available to schedule pods", 0)


def test_hint_names_what_the_domain_advertises() -> None:
    m = model("""
kind: Node
metadata: {name: gpu-pt-1}
status: {allocatable: {cpu: "16", memory: 64Gi, pods: "110", nvidia.com/GA102GL_A10: "1"}}
---
kind: Node
metadata: {name: gpu-vgpu-1}
status: {allocatable: {cpu: "16", memory: 64Gi, pods: "110", nvidia.com/NVIDIA_A10-12Q: "2"}}
---
kind: Node
metadata: {name: gpu-vgpu-2}
status: {allocatable: {cpu: "16", memory: 64Gi, pods: "110", nvidia.com/NVIDIA_A10-12Q: "2"}}
---
kind: Node
metadata: {name: gpu-vgpu-3}
status: {allocatable: {cpu: "16", memory: 64Gi, pods: "110", nvidia.com/NVIDIA_A10-12Q: "2",
                       nvidia.com/GA102GL_A10: "0"}}
""")
    p = m.predict(gpu_pod())
    assert p.message == "0/4 nodes are available: 4 Insufficient nvidia.com/gpu."
    assert p.hint == (
        "hint: no node advertises nvidia.com/gpu; nodes advertise nvidia.com/GA102GL_A10 (gpu-pt-1), "
        "nvidia.com/NVIDIA_A10-12Q (gpu-vgpu-1, gpu-vgpu-2 and 1 more)"
    )


def test_hint_names_nodes_that_list_the_resource_with_zero_devices() -> None:
    """The kubelet keeps a device plugin's resource at 0 once the plugin stops serving it: a MIG profile
    after the layout or strategy changed (NVIDIA/gpu-operator#460)."""
    m = ClusterModel(
        [
            node("gpu-node-1", {"nvidia.com/mig-1g.6gb": "0", "nvidia.com/gpu": "0"}),
            node("gpu-node-2", {"nvidia.com/mig-1g.6gb": "0", "nvidia.com/mig-2g.12gb": "2"}),
        ],
        [],
    )
    p = m.predict(pod("notebook", limits={"nvidia.com/mig-1g.6gb": "1"}))
    assert p.message == "0/2 nodes are available: 2 Insufficient nvidia.com/mig-1g.6gb."
    assert p.hint == (
        "hint: no node advertises nvidia.com/mig-1g.6gb (gpu-node-1, gpu-node-2 list it with 0 devices: no device"
        " plugin serves it there now); nodes advertise nvidia.com/mig-2g.12gb (gpu-node-2)"
    )
    alone = ClusterModel([node("gpu-node-1", {"nvidia.com/mig-1g.6gb": "0"})], [])
    assert alone.predict(pod("notebook", limits={"nvidia.com/mig-1g.6gb": "1"})).hint == (
        "hint: no node advertises nvidia.com/mig-1g.6gb (gpu-node-1 lists it with 0 devices: no device plugin serves"
        " it there now)"
    )


def test_hint_names_a_node_at_zero_beside_full_ones_that_advertise_the_resource() -> None:
    """Regression (trial 198): beside a node whose 2 GPUs bound pods hold, the hint left out the node that lists
    nvidia.com/gpu with 0 devices (a passthrough node whose container plugin left): "the node clearly has 8 GPUs"."""
    m = ClusterModel(
        [node("gpu-ctr-03", {"nvidia.com/gpu": "2"}), node("dgx-h100-03", {"nvidia.com/gpu": "0"})],
        [pod("busy", limits={"nvidia.com/gpu": "2"}, node_name="gpu-ctr-03", phase="Running")],
    )
    p = m.predict(pod("trainer", limits={"nvidia.com/gpu": "2"}))
    assert p.message == "0/2 nodes are available: 2 Insufficient nvidia.com/gpu."
    assert p.hint == (
        "hint: dgx-h100-03 lists nvidia.com/gpu with 0 devices: no device plugin serves it there now; the pods bound"
        " where it may run hold nvidia.com/gpu (gpu-ctr-03 2 of 2)"
    )


def test_hint_says_no_node_lists_the_resource_nor_its_domain() -> None:
    """Trial 149: a pod asking for an FPGA that no node lists, nor any resource of its domain, got no hint at all."""
    m = ClusterModel([node("gpu-node-1", {"nvidia.com/gpu": "2"})], [])
    p = m.predict(pod("fpga-job-0", limits={"xilinx.com/fpga-xilinx_u250_gen3x16_xdma_shell_4_1-0": "1"}))
    assert p.message == "0/1 nodes are available: 1 Insufficient xilinx.com/fpga-xilinx_u250_gen3x16_xdma_shell_4_1-0."
    assert p.hint == (
        "hint: no node of the dump lists xilinx.com/fpga-xilinx_u250_gen3x16_xdma_shell_4_1-0, nor any other xilinx.com/"
        " resource: the device plugin that advertises it runs on none of them (is it installed, and does its DaemonSet"
        " select and tolerate the nodes?)"
    )


# -- workloads ------------------------------------------------------------------------------------------

KUBEVIRT_NODES = """
kind: Node
metadata:
  name: gpu-pt-1
  labels: {kubevirt.io/schedulable: "true", nvidia.com/gpu.workload.config: vm-passthrough}
status:
  allocatable: {cpu: "64", memory: 256Gi, pods: "110", nvidia.com/GA102GL_A10: "1"}
---
kind: Node
metadata:
  name: gpu-pt-2
  labels: {kubevirt.io/schedulable: "true", nvidia.com/gpu.workload.config: vm-passthrough}
status:
  allocatable: {cpu: "64", memory: 256Gi, pods: "110", nvidia.com/GA102GL_A10: "2"}
---
kind: Node
metadata:
  name: no-virt-handler
  labels: {nvidia.com/gpu.workload.config: vm-passthrough}
status:
  allocatable: {cpu: "64", memory: 256Gi, pods: "110", nvidia.com/GA102GL_A10: "4"}
"""

VMI = """
apiVersion: kubevirt.io/v1
kind: VirtualMachineInstance
metadata: {name: win-a10, namespace: vms}
spec:
  nodeSelector: {nvidia.com/gpu.workload.config: vm-passthrough}
  domain:
    memory: {guest: 16Gi}
    resources: {requests: {cpu: "4"}}
    devices:
      gpus:
      - {name: gpu1, deviceName: nvidia.com/GA102GL_A10}
      hostDevices:
      - {name: hd1, deviceName: nvidia.com/GA102GL_A10}
      - {name: claimed, claimName: dra-gpu}
"""


def test_vmi_gpus_and_host_devices_each_ask_for_one() -> None:
    vmi = yaml.safe_load(VMI)
    spec = pod_spec_of(vmi)
    assert spec is not None
    assert spec["nodeSelector"] == {"nvidia.com/gpu.workload.config": "vm-passthrough", "kubevirt.io/schedulable": "true"}
    # the guest's memory and KubeVirt's overhead: 218Mi, 8Mi for each of its 4 vCPUs, the page tables, video, VFIO
    overhead = (218 + 32 + 16) * 2**20 + 16 * 2**30 // 512 + 2**30
    assert effective_requests(spec) == {"cpu": 4, "memory": 16 * 2**30 + overhead, "nvidia.com/GA102GL_A10": 2}
    p = model(KUBEVIRT_NODES).predict(vmi)
    assert p.feasible == ("gpu-pt-2",)
    assert p.reasons == {"Insufficient nvidia.com/GA102GL_A10": 1, "node(s) didn't match Pod's node affinity/selector": 1}


def test_a_vmi_whose_resources_name_its_device_asks_for_that_amount() -> None:
    """Regression (trial 205): a VMI naming its GPU in spec.domain.resources (1) beside one devices entry was modelled
    as asking for 2 and failed as unschedulable on a node with 1; KubeVirt's ResourceRenderer copies the VMI's own
    resources over the unit each devices entry adds (renderresources.go Requests/Limits), so its pod asks for 1."""
    vmi = yaml.safe_load(VMI)
    vmi["spec"]["domain"]["resources"] = {
        "requests": {"memory": "16Gi", "nvidia.com/GA102GL_A10": "1"},
        "limits": {"nvidia.com/GA102GL_A10": "1"},
    }
    spec = pod_spec_of(vmi)
    assert spec is not None
    assert spec["containers"][0]["resources"]["limits"] == {"nvidia.com/GA102GL_A10": "1"}
    assert effective_requests(spec)["nvidia.com/GA102GL_A10"] == 1
    # named in limits alone: the request is the entries' count (2), the limit the VMI's
    vmi["spec"]["domain"]["resources"] = {"requests": {"memory": "16Gi"}, "limits": {"nvidia.com/GA102GL_A10": "1"}}
    spec = pod_spec_of(vmi)
    assert spec is not None
    assert spec["containers"][0]["resources"]["limits"] == {"nvidia.com/GA102GL_A10": "1"}
    assert effective_requests(spec)["nvidia.com/GA102GL_A10"] == 2


def test_running_vmi_does_not_compete_with_its_own_launcher_pod() -> None:
    launcher = yaml.safe_load("""
apiVersion: v1
kind: Pod
metadata:
  name: virt-launcher-win-a10-x7k2p
  namespace: vms
  ownerReferences: [{apiVersion: kubevirt.io/v1, kind: VirtualMachineInstance, name: win-a10, uid: u1}]
spec:
  nodeName: gpu-pt-2
  containers:
  - name: compute
    resources: {limits: {nvidia.com/GA102GL_A10: "2"}, requests: {cpu: "4", memory: 16Gi}}
status: {phase: Running}
""")
    nodes = docs(KUBEVIRT_NODES)
    m = ClusterModel(nodes, [launcher])
    assert m.predict(yaml.safe_load(VMI)).feasible == ("gpu-pt-2",)
    other = yaml.safe_load(VMI)
    other["metadata"]["name"] = "win-a10-second"
    assert m.predict(other).message == (
        "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 Insufficient nvidia.com/GA102GL_A10."
    )


def test_a_running_vmi_without_its_launcher_pod_in_the_dump_holds_its_devices() -> None:
    """Trial 99: VMs and VMIs pasted without their virt-launcher pods left a running VMI's GPUs free, and another VM
    asking for them "can be scheduled". A VMI running on a node holds what its launcher pod would request there; it is
    counted once: not where its pod is in the dump (by owner, or rebuilt from describe text by its name), and not
    against itself (nor its VirtualMachine, whose name it has)."""
    running = yaml.safe_load(VMI)
    running["status"] = {"phase": "Running", "nodeName": "gpu-pt-2"}
    other = yaml.safe_load(VMI)
    other["metadata"]["name"] = "win-a10-second"
    nodes = docs(KUBEVIRT_NODES)
    held = ClusterModel(nodes, [], vmis=[running])
    assert held.predict(other).message == (
        "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 Insufficient nvidia.com/GA102GL_A10."
    )
    assert ClusterModel(nodes, []).predict(other).feasible == ("gpu-pt-2",)  # without the VMI: its GPUs are free
    # its VirtualMachine (same name) does not compete with it
    vm = {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": {"name": "win-a10", "namespace": "vms"}}
    vm["spec"] = {"runStrategy": "Always", "template": {"spec": running["spec"]}}
    assert held.predict(vm).feasible == ("gpu-pt-2",)
    # finished, or on a node the dump lacks: nothing held
    done = {**running, "status": {"phase": "Succeeded", "nodeName": "gpu-pt-2"}}
    elsewhere = {**running, "status": {"phase": "Running", "nodeName": "gpu-pt-9"}}
    assert ClusterModel(nodes, [], vmis=[done, elsewhere]).predict(other).feasible == ("gpu-pt-2",)
    # its pod in the dump (by owner) or rebuilt from describe text (by name): counted once, as that pod
    launcher = pod("virt-launcher-win-a10-x7k2p", limits={"nvidia.com/GA102GL_A10": "1"}, node_name="gpu-pt-2", phase="Running")
    launcher["metadata"] = {"name": "virt-launcher-win-a10-x7k2p", "namespace": "vms"}
    owner = [{"kind": "VirtualMachineInstance", "name": "win-a10"}]
    owned = {**launcher, "metadata": {**launcher["metadata"], "ownerReferences": owner}}
    for shown in (owned, launcher):
        one_left = ClusterModel(nodes, [shown], vmis=[running]).predict(pod("one", limits={"nvidia.com/GA102GL_A10": "1"}))
        assert "gpu-pt-2" in one_left.feasible, shown["metadata"]
    # trial 101: its pod with KubeVirt's labels only (kubevirt.io/created-by, the VMI's uid) is found too
    running_uid = {**running, "metadata": {**running["metadata"], "uid": "1234-abcd"}}
    labelled = {**launcher, "metadata": {**launcher["metadata"], "labels": {"kubevirt.io/created-by": "1234-abcd"}}}
    labelled["metadata"]["name"] = "virt-launcher-other-name-x7k2p"
    one_left = ClusterModel(nodes, [labelled], vmis=[running_uid]).predict(pod("one", limits={"nvidia.com/GA102GL_A10": "1"}))
    assert "gpu-pt-2" in one_left.feasible


def test_a_long_named_vmis_launcher_pod_is_known_by_its_cut_generated_name() -> None:
    """Trial 101: the API server cuts a generateName base to 58 characters, so a 49-character VMI's launcher pod is
    virt-launcher-<its first 44 characters><5 random>, with no dash: rebuilt from describe text, it was not known as
    the VMI's, and the VMI was counted beside it (a false "Insufficient")."""
    name = "rhel9-gpu-workstation-passthrough-a10-instance-01"
    assert launcher_base(name) == "virt-launcher-rhel9-gpu-workstation-passthrough-a10-instan"
    running = yaml.safe_load(VMI)
    running["metadata"]["name"] = name
    running["status"] = {"phase": "Running", "nodeName": "gpu-pt-2"}
    shown = pod(launcher_base(name) + "x7k2p", limits={"nvidia.com/GA102GL_A10": "1"}, node_name="gpu-pt-2", phase="Running")
    shown["metadata"]["namespace"] = "vms"
    m = ClusterModel(docs(KUBEVIRT_NODES), [shown], vmis=[running])
    assert "gpu-pt-2" in m.predict(pod("one", limits={"nvidia.com/GA102GL_A10": "1"})).feasible
    # and it is the VMI's own: its VirtualMachine, asking for both of gpu-pt-2's GPUs, does not compete with it
    template = yaml.safe_load(VMI)["spec"]
    template["domain"]["devices"] = {"gpus": [{"name": "a", "deviceName": "nvidia.com/GA102GL_A10"}] * 2}
    vm = {"apiVersion": "kubevirt.io/v1", "kind": "VirtualMachine", "metadata": {"name": name, "namespace": "vms"}}
    vm["spec"] = {"runStrategy": "Always", "template": {"spec": template}}
    assert m.predict(vm).feasible == ("gpu-pt-2",)
    other = {**vm, "metadata": {"name": "vm-other", "namespace": "vms"}}
    assert m.predict(other).feasible == ()  # another VM does not get the GPU the launcher pod holds


def test_a_launcher_pod_that_names_its_vmi_is_not_taken_for_another_with_the_same_cut_name() -> None:
    """Trial 102: two VMIs whose names share their first 44 characters have launcher pods named alike; one that names
    its own VMI (owner reference, or KubeVirt's created-by label) was taken for the other's too, so a running VMI
    without a pod in the dump was not counted, and a third VM "can be scheduled" on a node without a free GPU."""
    alice, replica = "rhel9-gpu-workstation-passthrough-a10-team1", "rhel9-gpu-workstation-passthrough-a10-team1-replica"
    assert launcher_base(alice) == launcher_base(replica)
    running = []
    for name in (alice, replica):
        vmi = yaml.safe_load(VMI)
        vmi["metadata"] = {"name": name, "namespace": "vms", "uid": f"uid-{name[-7:]}"}
        vmi["spec"]["domain"]["devices"] = {"gpus": [{"name": "g", "deviceName": "nvidia.com/GA102GL_A10"}]}
        vmi["status"] = {"phase": "Running", "nodeName": "gpu-pt-2"}
        running.append(vmi)
    owned = pod(launcher_base(alice) + "x7k2p", limits={"nvidia.com/GA102GL_A10": "1"}, node_name="gpu-pt-2", phase="Running")
    owned["metadata"] = {
        "name": launcher_base(alice) + "x7k2p",
        "namespace": "vms",
        "ownerReferences": [{"kind": "VirtualMachineInstance", "name": alice}],
    }
    m = ClusterModel(docs(KUBEVIRT_NODES), [owned], vmis=running)
    # gpu-pt-2's two GPUs: alice's pod holds one, the replica (no pod in the dump) the other
    assert "gpu-pt-2" not in m.predict(pod("one", limits={"nvidia.com/GA102GL_A10": "1"})).feasible


def test_a_vmi_that_cannot_be_counted_is_noted() -> None:
    nodes = docs(KUBEVIRT_NODES)
    # a VMI whose device quantity cannot be added is noted, not counted
    broken = yaml.safe_load(VMI)
    broken["metadata"]["name"] = "broken"
    broken["spec"]["domain"]["resources"] = {"requests": {"nvidia.com/GA102GL_A10": "lots"}}
    broken["status"] = {"phase": "Running", "nodeName": "gpu-pt-2"}
    noted = ClusterModel(nodes, [], vmis=[broken])
    assert [w for w in noted.warnings if w.startswith("VirtualMachineInstance vms/broken: ")], noted.warnings


def test_vm_template_and_not_kubevirt_lookalikes() -> None:
    vm = {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": "vgpu-vm"},
        "spec": {
            "runStrategy": "Always",
            "template": {
                "spec": {"domain": {"devices": {"gpus": [{"name": "vgpu", "deviceName": "nvidia.com/NVIDIA_A10-12Q"}]}}}
            },
        },
    }
    p = model(KUBEVIRT_NODES).predict(vm)
    assert p.message == (
        "0/3 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 2 Insufficient nvidia.com/NVIDIA_A10-12Q."
    )
    assert p.hint == (
        "hint: no node advertises nvidia.com/NVIDIA_A10-12Q; nodes advertise "
        "nvidia.com/GA102GL_A10 (gpu-pt-1, gpu-pt-2 and 1 more)"
    )
    assert pod_spec_of({"apiVersion": "compute.example.com/v1", "kind": "VirtualMachine", "spec": {}}) is None


def test_deployment_and_cronjob_templates() -> None:
    deployment = yaml.safe_load("""
apiVersion: apps/v1
kind: Deployment
metadata: {name: inference, namespace: ml}
spec:
  replicas: 2
  selector: {matchLabels: {app: inference}}
  template:
    metadata: {labels: {app: inference}}
    spec:
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
      containers:
      - name: triton
        resources: {limits: {nvidia.com/gpu: "1"}}
""")
    cronjob = yaml.safe_load("""
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly, namespace: ml}
spec:
  schedule: "0 2 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
          - name: eval
            resources: {limits: {nvidia.com/gpu: "2"}}
""")
    m = model(GPU_CLUSTER)
    assert m.predict(deployment).feasible == ("gpu-2",)
    assert m.predict(cronjob).message == "0/3 nodes are available: 3 Insufficient nvidia.com/gpu."
    assert pod_spec_of(cronjob) == cronjob["spec"]["jobTemplate"]["spec"]["template"]["spec"]


def test_deployment_does_not_compete_with_its_own_pods() -> None:
    m = model(GPU_CLUSTER)
    trainer: dict[str, Any] = {
        "apiVersion": "apps/v1",
        "kind": "StatefulSet",
        "metadata": {"name": "trainer", "namespace": "ml"},
        "spec": {
            "selector": {"matchExpressions": [expr("app", "DoesNotExist")]},
            "template": {"spec": {"containers": [{"name": "train", "resources": {"limits": {"nvidia.com/gpu": "2"}}}]}},
        },
    }
    assert m.predict(trainer).feasible == ("gpu-1",)  # trainer-0 has no app label: it is selected
    trainer["metadata"]["namespace"] = "other"
    assert m.predict(trainer).feasible == ()


def test_daemonset_partial_failure() -> None:
    m = ClusterModel(
        [
            node("gpu-1", {"cpu": "8"}, labels={"nvidia.com/gpu.present": "true"}),
            node("gpu-2", {"cpu": "1"}, labels={"nvidia.com/gpu.present": "true"}),
            node(
                "gpu-3",
                {"cpu": "8"},
                labels={"nvidia.com/gpu.present": "true"},
                taints=[{"key": "node.kubernetes.io/disk-pressure", "effect": "NoSchedule"}],
                unschedulable=True,
            ),
            node(
                "cp-1",
                labels={"nvidia.com/gpu.present": "true"},
                taints=[{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}],
            ),
            node("cpu-1"),
        ],
        [],
    )
    ds = yaml.safe_load("""
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: nvidia-dcgm-exporter, namespace: gpu-operator}
spec:
  selector: {matchLabels: {app: nvidia-dcgm-exporter}}
  template:
    metadata: {labels: {app: nvidia-dcgm-exporter}}
    spec:
      nodeSelector: {nvidia.com/gpu.present: "true"}
      containers:
      - name: exporter
        resources: {requests: {cpu: "2"}}
""")
    p = m.predict(ds)
    assert not p.schedulable
    assert p.message == "cannot run on 1/3 targeted nodes: gpu-2 (Insufficient cpu)"
    assert p.feasible == ("gpu-1", "gpu-3")
    assert p.reasons == {
        "Insufficient cpu": 1,
        "node(s) didn't match Pod's node affinity/selector": 1,
        "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }": 1,
    }
    ds["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "500m"
    ok = m.predict(ds)
    assert ok.schedulable and ok.message == "3/5 nodes are targeted and feasible: gpu-1, gpu-2, gpu-3"
    ds["spec"]["template"]["spec"]["nodeSelector"] = {"nvidia.com/gpu.present": "false"}
    none = m.predict(ds)
    assert not none.applicable  # nothing to place: rules report skip, not "can be scheduled"
    assert none.message == (
        "targets none of the 5 nodes: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, "
        "4 node(s) didn't match Pod's node affinity/selector."
    )


def test_daemonset_pod_already_on_the_node_is_not_counted_twice() -> None:
    running = pod("exporter-abcde", requests={"cpu": "3"}, node_name="w", phase="Running")
    running["metadata"].update(namespace="mon", labels={"app": "exporter"})
    ds = {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "exporter", "namespace": "mon"},
        "spec": {
            "selector": {"matchLabels": {"app": "exporter"}},
            "template": {"spec": {"containers": [{"name": "e", "resources": {"requests": {"cpu": "3"}}}]}},
        },
    }
    assert ClusterModel([node("w")], [running]).predict(ds).schedulable


def test_daemonset_tolerations_are_added() -> None:
    spec = pod_spec_of({"kind": "DaemonSet", "spec": {"template": {"spec": {"hostNetwork": True}}}})
    assert spec is not None
    keys = {(t["key"], t["effect"]) for t in spec["tolerations"]}
    assert keys == {
        ("node.kubernetes.io/not-ready", "NoExecute"),
        ("node.kubernetes.io/unreachable", "NoExecute"),
        ("node.kubernetes.io/disk-pressure", "NoSchedule"),
        ("node.kubernetes.io/memory-pressure", "NoSchedule"),
        ("node.kubernetes.io/pid-pressure", "NoSchedule"),
        ("node.kubernetes.io/unschedulable", "NoSchedule"),
        ("node.kubernetes.io/network-unavailable", "NoSchedule"),
    }


def test_not_applicable() -> None:
    m = ClusterModel([node("w")], [])
    config = m.predict({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}})
    assert (config.applicable, config.message) == (False, "ConfigMap is not a workload")
    bound = m.predict(pod(node_name="w", phase="Running"))
    assert (bound.applicable, bound.message) == (False, "Pod is bound to node w")
    done = m.predict(pod(phase="Succeeded"))
    assert (done.applicable, done.message) == (False, "Pod has finished (phase Succeeded)")


NOT_WAITING = """
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: inference-7d9f8b6c5, namespace: ml, ownerReferences: [{kind: Deployment, name: inference}]}
spec: {replicas: 0, selector: {matchLabels: {app: inference}}, template: {spec: {containers: [BIG]}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: parked, namespace: ml}
spec: {replicas: 0, selector: {matchLabels: {app: parked}}, template: {spec: {containers: [BIG]}}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, namespace: ml}
spec: {replicas: 0, selector: {matchLabels: {app: db}}, template: {spec: {containers: [BIG]}}}
---
apiVersion: v1
kind: ReplicationController
metadata: {name: legacy, namespace: ml}
spec: {replicas: 0, template: {spec: {containers: [BIG]}}}
---
apiVersion: batch/v1
kind: Job
metadata: {name: train-1, namespace: ml}
spec: {template: {spec: {containers: [BIG]}}}
status:
  conditions:
  - {type: SuccessCriteriaMet, status: "True"}
  - {type: Complete, status: "True"}
---
apiVersion: batch/v1
kind: Job
metadata: {name: train-2, namespace: ml}
spec: {backoffLimit: 0, template: {spec: {containers: [BIG]}}}
status: {conditions: [{type: Failed, status: "True", reason: BackoffLimitExceeded}]}
---
apiVersion: batch/v1
kind: Job
metadata: {name: train-3, namespace: ml}
spec: {suspend: true, template: {spec: {containers: [BIG]}}}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly, namespace: ml}
spec: {suspend: true, schedule: "0 2 * * *", jobTemplate: {spec: {template: {spec: {containers: [BIG]}}}}}
---
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata: {name: halted, namespace: vms}
spec: {runStrategy: Halted, template: {spec: {domain: {resources: {requests: {cpu: "64"}}}}}}
---
apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata: {name: stopped, namespace: vms}
spec: {running: false, template: {spec: {domain: {resources: {requests: {cpu: "64"}}}}}}
""".replace("BIG", '{name: c, resources: {requests: {cpu: "64"}}}')


def test_workloads_with_nothing_to_schedule_are_not_judged() -> None:
    """Regression: a Deployment's old ReplicaSets (spec.replicas: 0), finished Jobs, suspended CronJobs and
    stopped VMs were judged, failing on ordinary clusters; they have no pod waiting to be scheduled."""
    m = ClusterModel([node("w", labels={KUBEVIRT_SCHEDULABLE_LABEL: "true"})], [])
    predictions = [(o["kind"], m.predict(o)) for o in docs(NOT_WAITING)]
    assert [(kind, p.message) for kind, p in predictions] == [
        ("ReplicaSet", "ReplicaSet is scaled to 0 replicas"),
        ("Deployment", "Deployment is scaled to 0 replicas"),
        ("StatefulSet", "StatefulSet is scaled to 0 replicas"),
        ("ReplicationController", "ReplicationController is scaled to 0 replicas"),
        ("Job", "Job has completed"),
        ("Job", "Job has failed"),
        ("Job", "Job is suspended"),
        ("CronJob", "CronJob is suspended"),
        ("VirtualMachine", "VirtualMachine is stopped (runStrategy Halted)"),
        ("VirtualMachine", "VirtualMachine is stopped (running: false)"),
    ]
    assert all((p.applicable, p.schedulable, p.feasible, p.reasons, p.hint) == (False, True, (), {}, "") for _, p in predictions)
    # The same objects with a pod to place are judged (and fail: 64 cpu on a 4-cpu node).
    waiting = docs(NOT_WAITING)
    waiting[0]["spec"]["replicas"] = 1
    del waiting[1]["spec"]["replicas"]  # defaults to 1
    waiting[4]["status"]["conditions"][1]["status"] = "False"
    waiting[4]["status"]["conditions"][0]["status"] = "False"
    waiting[5]["status"]["conditions"] = [{"type": "Suspended", "status": "True"}]  # status alone: spec decides
    waiting[6]["spec"]["suspend"] = False
    waiting[7]["spec"]["suspend"] = False
    waiting[8]["spec"]["runStrategy"] = "Always"
    waiting[9]["spec"]["running"] = True
    for o in waiting[:2] + waiting[4:]:
        p = m.predict(o)
        assert (p.applicable, p.message) == (True, "0/1 nodes are available: 1 Insufficient cpu."), o["metadata"]
    # A Job that is not suspended by a non-boolean, and a VM whose runStrategy wins over running.
    waiting[6]["spec"]["suspend"] = "true"
    assert m.predict(waiting[6]).applicable
    waiting[9]["spec"] |= {"running": False, "runStrategy": "RerunOnFailure"}
    assert m.predict(waiting[9]).applicable
    waiting[3]["spec"]["replicas"] = False  # not a count: judged
    assert m.predict(waiting[3]).applicable


# -- the indexed model agrees with a node-by-node reference -------------------------------------------------


def reference(nodes: list[dict[str, Any]], pods: list[dict[str, Any]], spec: dict[str, Any]) -> dict[str, int]:
    """Upstream's loop, node by node, written plainly from rules.schedule.matching."""
    tolerations = tolerations_of(spec.get("tolerations"))
    selector = {k: text(v) for k, v in (spec.get("nodeSelector") or {}).items()}
    raw = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get("requiredDuringSchedulingIgnoredDuringExecution")
    terms = compile_terms(raw["nodeSelectorTerms"]) if raw is not None else None
    wanted = scheduler_units(effective_requests(spec))
    reasons: dict[str, int] = {}

    def add(reason: str) -> None:
        reasons[reason] = reasons.get(reason, 0) + 1

    for n in nodes:
        name = n["metadata"]["name"]
        labels = {k: text(v) for k, v in n["metadata"].get("labels", {}).items()}
        if n.get("spec", {}).get("unschedulable") and not tolerates_unschedulable(tolerations):
            add("node(s) were unschedulable")
            continue
        taint = first_untolerated(filter_taints(n.get("spec", {}).get("taints")), tolerations)
        if taint is not None:
            add(taint.reason())
            continue
        if any(labels.get(k) != v for k, v in selector.items()) or (
            terms is not None and not any(t.matches(labels, name) for t in terms)
        ):
            add("node(s) didn't match Pod's node affinity/selector")
            continue
        if "allocatable" not in n["status"]:
            continue  # no allocatable in the dump: resources not checked
        bound = [p for p in pods if p["spec"].get("nodeName") == name and p["status"]["phase"] not in ("Succeeded", "Failed")]
        alloc = scheduler_units({k: parse_quantity(v) for k, v in n["status"]["allocatable"].items()}, pods=True)
        if len(bound) + 1 > alloc.get("pods", 0):
            add("Too many pods")
        for resource, amount in wanted.items():
            used = sum(scheduler_units(effective_requests(p["spec"])).get(resource, 0) for p in bound)
            if amount > alloc.get(resource, 0) - used:
                add(f"Insufficient {resource}")
    return reasons


def random_dump(rng: random.Random) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    nodes = []
    for i in range(rng.randint(1, 40)):
        alloc: dict[str, Any] = {"cpu": str(rng.choice([2, 4, 8])), "pods": str(rng.choice([3, 110]))}
        if rng.random() < 0.4:
            alloc["example.com/fpga"] = str(rng.randint(0, 2))
        taints = [
            {
                "key": rng.choice(["a", "b"]),
                "value": rng.choice(["", "x"]),
                "effect": rng.choice(["NoSchedule", "NoExecute", "PreferNoSchedule"]),
            }
            for _ in range(rng.randint(0, 2))
        ]
        labels = {"zone": rng.choice("abc"), "size": str(rng.randint(1, 9))}
        nodes.append(node(f"n{i:02d}", alloc, labels, taints, unschedulable=rng.random() < 0.1))
        if rng.random() < 0.1:
            nodes[-1]["status"] = {}
    pods = []
    for i in range(rng.randint(0, 80)):
        requests = {"cpu": rng.choice(["500m", "1", "2"])}
        if rng.random() < 0.3:
            requests["example.com/fpga"] = "1"
        pods.append(
            pod(
                f"p{i}",
                requests=requests,
                node_name=rng.choice(nodes)["metadata"]["name"],
                phase=rng.choice(["Running", "Running", "Succeeded", "Pending"]),
            )
        )
    return nodes, pods


def random_spec(rng: random.Random) -> dict[str, Any]:
    requests = {"cpu": rng.choice(["100m", "1", "3", "6"])}
    if rng.random() < 0.5:
        requests["example.com/fpga"] = str(rng.randint(1, 2))
    spec: dict[str, Any] = {"containers": [{"name": "c", "resources": {"requests": requests}}]}
    if rng.random() < 0.5:
        spec["tolerations"] = rng.sample(
            [{"key": "a", "operator": "Exists"}, {"key": "b", "value": "x"}, {"operator": "Exists", "effect": "NoExecute"}],
            rng.randint(1, 2),
        )
    if rng.random() < 0.3:
        spec["nodeSelector"] = {"zone": rng.choice("abc")}
    if rng.random() < 0.4:
        spec["affinity"] = required(
            {"matchExpressions": [expr("size", rng.choice(["Gt", "Lt"]), "5")]},
            {"matchExpressions": [expr("zone", rng.choice(["In", "NotIn"]), "a")]},
        )
    return spec


def test_indexed_model_matches_node_by_node_reference() -> None:
    rng = random.Random(20240611)
    for _ in range(60):
        nodes, pods = random_dump(rng)
        m = ClusterModel(nodes, pods)
        for _ in range(10):
            spec = random_spec(rng)
            p = m.predict({"kind": "Pod", "metadata": {"name": "x"}, "spec": spec})
            expected = reference(nodes, pods, spec)
            assert p.reasons == expected, spec
            assert p.schedulable == (len(p.feasible) > 0)


def test_vmi_already_on_a_node_or_finished_is_not_predicted() -> None:
    """Regression: a Running VMI (status.nodeName set) was predicted again, competing with the very
    devices its launcher pod holds."""
    running = yaml.safe_load(VMI)
    running["status"] = {"phase": "Running", "nodeName": "gpu-pt-2"}
    p = model(KUBEVIRT_NODES).predict(running)
    assert (p.applicable, p.message) == (False, "VirtualMachineInstance runs on node gpu-pt-2")
    done = yaml.safe_load(VMI)
    done["status"] = {"phase": "Failed"}
    p = model(KUBEVIRT_NODES).predict(done)
    assert (p.applicable, p.message) == (False, "VirtualMachineInstance has finished (phase Failed)")


def test_hint_names_what_the_pinned_node_advertises_instead() -> None:
    """A Pod asking nvidia.com/gpu pinned to a vm-passthrough node: kube-scheduler only says
    Insufficient; verdict adds what that node advertises instead (issue 4's hint)."""
    nodes = [
        node("gpu-c-1", {"nvidia.com/gpu": "2"}),
        node("gpu-pt-1", {"nvidia.com/GA102GL_A10": "1"}, labels={"nvidia.com/gpu.workload.config": "vm-passthrough"}),
    ]
    m = ClusterModel(nodes, [])
    p = m.predict(pod(limits={"nvidia.com/gpu": "1"}, nodeSelector={"kubernetes.io/hostname": "gpu-pt-1"}))
    assert p.message == (
        "0/2 nodes are available: 1 Insufficient nvidia.com/gpu, 1 node(s) didn't match Pod's node affinity/selector."
    )
    assert p.hint == (
        "hint: nvidia.com/gpu is not advertised where the pod may run: gpu-pt-1 advertises nvidia.com/GA102GL_A10;"
        " gpu-c-1 advertises nvidia.com/gpu but does not match the pod's node selector or affinity"
    )
    # Capacity used up on a node that does advertise the resource: what its pods hold (trial 114).
    full = ClusterModel(nodes, [pod("busy", limits={"nvidia.com/gpu": "2"}, node_name="gpu-c-1", phase="Running")])
    p = full.predict(pod(limits={"nvidia.com/gpu": "1"}, nodeSelector={"kubernetes.io/hostname": "gpu-c-1"}))
    assert (p.schedulable, p.hint) == (False, "hint: the pods bound where it may run hold nvidia.com/gpu (gpu-c-1 2 of 2)")


def test_hint_names_the_nodes_advertising_the_resource_that_the_pods_pin_keeps_it_off() -> None:
    """Regression (trial 218 #9): a VM pinned to a container node by its selector was told what that node advertises,
    and not which node advertises the passthrough GPU it asks for. The nodes advertising it that its node selector or
    affinity rejects are named; one the selector takes but a cordon or a taint keeps off is not among them (each is
    said on its own). Not where the pod is pinned by a metadata.name field term, as a DaemonSet's pods are, nor where
    no node matches its affinity at all (trial 222 #4: every GPU node was named, and not why)."""
    container = {"nvidia.com/gpu.workload.config": "container"}
    passthrough = {"nvidia.com/gpu.workload.config": "vm-passthrough"}
    a10 = {"nvidia.com/GA102GL_A10": "1"}
    nodes = [
        node("gpu-c-1", {"nvidia.com/gpu": "2"}, labels=container),
        node("gpu-pt-1", a10, labels=passthrough),
        node("gpu-pt-2", a10, labels=passthrough),
        node("gpu-pt-3", a10, labels=passthrough),
        node("gpu-pt-c", a10, labels=container, unschedulable=True),
        node("gpu-pt-t", a10, labels=container, taints=[{"key": "maint", "effect": "NoSchedule"}]),
    ]
    m = ClusterModel(nodes, [])
    by_label = m.predict(pod(limits={"nvidia.com/GA102GL_A10": "1"}, nodeSelector=container))
    assert by_label.hint == (
        "hint: gpu-pt-c advertises nvidia.com/GA102GL_A10 with room for it but is cordoned (spec.unschedulable: kubectl"
        " uncordon gpu-pt-c once it is ready for pods); nvidia.com/GA102GL_A10 is not advertised where the pod may run:"
        " gpu-c-1 advertises nvidia.com/gpu; gpu-pt-1, gpu-pt-2 and 1 more advertise nvidia.com/GA102GL_A10 but do not"
        " match the pod's node selector or affinity; gpu-pt-t advertises nvidia.com/GA102GL_A10 but has taint"
        " maint:NoSchedule, which the pod does not tolerate (a toleration {key: maint, operator: Exists, effect:"
        " NoSchedule} lets it on)"
    )

    def required(term: dict[str, Any]) -> dict[str, Any]:
        return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}}}

    by_field = required({"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["gpu-c-1"]}]})
    p = m.predict(pod(limits={"nvidia.com/GA102GL_A10": "1"}, affinity=by_field))
    assert p.hint == "hint: nvidia.com/GA102GL_A10 is not advertised where the pod may run: gpu-c-1 advertises nvidia.com/gpu"
    nowhere = required({"matchExpressions": [{"key": "zone", "operator": "In", "values": ["z9"]}]})
    p = m.predict(pod(limits={"nvidia.com/GA102GL_A10": "1"}, affinity=nowhere))
    assert p.message.endswith("4 node(s) didn't match Pod's node affinity/selector.")
    assert p.hint == "hint: no node has label zone=z9 (its required node affinity)"
    # every requirement met by some node, none by one node: no label is said missing
    apart = required(
        {
            "matchExpressions": [
                {"key": "nvidia.com/gpu.workload.config", "operator": "In", "values": ["container"]},
                {"key": "nvidia.com/gpu.workload.config", "operator": "In", "values": ["vm-passthrough"]},
            ]
        }
    )
    p = m.predict(pod(limits={"nvidia.com/GA102GL_A10": "1"}, affinity=apart))
    assert "no node has label" not in p.hint
    both = required(
        {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["b", "a"]}, {"key": "gpu", "operator": "Exists"}]}
    )
    assert m.predict(pod(limits={"nvidia.com/GA102GL_A10": "1"}, affinity=both)).hint == (
        "hint: no node has label pool in (a, b) (its required node affinity)"
    )
    # a selector that takes a node with room: it fits, and no hint
    free = m.predict(pod(limits={"nvidia.com/gpu": "1"}, nodeSelector=container))
    assert (free.schedulable, free.hint) == (True, "")


def test_hint_names_the_pinned_node_that_lists_the_resource_at_0_devices() -> None:
    """Trial 64: a Pod pinned to a node whose device plugin left nvidia.com/gpu at 0 (other nodes advertise it) was
    told only "Insufficient nvidia.com/gpu"; the 0 is the device plugin's, not the other pods'."""
    nodes = [node("a100-1", {"nvidia.com/gpu": "8"}), node("a100-3", {"nvidia.com/gpu": "0"})]
    p = ClusterModel(nodes, []).predict(pod(limits={"nvidia.com/gpu": "1"}, nodeSelector={"kubernetes.io/hostname": "a100-3"}))
    assert p.message == (
        "0/2 nodes are available: 1 Insufficient nvidia.com/gpu, 1 node(s) didn't match Pod's node affinity/selector."
    )
    assert p.hint == (
        "hint: nvidia.com/gpu is not advertised where the pod may run: a100-3 lists it with 0 devices: no device plugin"
        " serves it there now; a100-1 advertises nvidia.com/gpu but does not match the pod's node selector or affinity"
    )
    # trial 129: a node converted to vm-passthrough lists its old nvidia.com/gpu at 0 beside the name it advertises
    # now; the hint said only the new name
    converted = node(
        "gpu-p1",
        {"nvidia.com/gpu": "0", "nvidia.com/GA102GL_A10": "1"},
        labels={"nvidia.com/gpu.workload.config": "vm-passthrough"},
    )
    m = ClusterModel([node("gpu-c1", {"nvidia.com/gpu": "1"}), converted], [])
    p = m.predict(pod(limits={"nvidia.com/gpu": "1"}, nodeSelector={"kubernetes.io/hostname": "gpu-p1"}))
    assert p.hint == (
        "hint: nvidia.com/gpu is not advertised where the pod may run: gpu-p1 advertises nvidia.com/GA102GL_A10 and"
        " lists nvidia.com/gpu with 0 devices: no device plugin serves it there now; gpu-c1 advertises nvidia.com/gpu"
        " but does not match the pod's node selector or affinity"
    )


def test_no_hint_when_a_node_the_pod_may_run_on_advertises_the_resource_without_room() -> None:
    """Regression (an operator's trial): a Pod asking 8 GPUs of a cluster whose container node has 4 was told
    "nvidia.com/gpu is not advertised where the pod may run: gpu-pt-1 advertises nvidia.com/GA102GL_A10", and a
    VM asking a passthrough GPU held by a running VM the same about the container node: the resource is
    advertised where the pod may run, there is no room, and the Insufficient reason says so."""
    nodes = [
        node("gpu-c-1", {"nvidia.com/gpu": "4"}),
        node("gpu-pt-1", {"nvidia.com/GA102GL_A10": "2"}, labels={"nvidia.com/gpu.workload.config": "vm-passthrough"}),
    ]
    p = ClusterModel(nodes, []).predict(pod(limits={"nvidia.com/gpu": "8"}))
    # trial 90: that it asks for more than the node has at all is said, nothing of the passthrough node
    assert (p.schedulable, p.message, p.hint) == (
        False,
        "0/2 nodes are available: 2 Insufficient nvidia.com/gpu.",
        "hint: it asks for 8 nvidia.com/gpu, more than any node it may run on has allocatable (at most 4, on gpu-c-1)",
    )
    held = [pod("launcher", limits={"nvidia.com/GA102GL_A10": "2"}, node_name="gpu-pt-1", phase="Running")]
    p = ClusterModel(nodes, held).predict(pod(limits={"nvidia.com/GA102GL_A10": "1"}))
    # trial 114: what holds it is said (the allocatable alone reads as room)
    assert (p.schedulable, p.message, p.hint) == (
        False,
        "0/2 nodes are available: 2 Insufficient nvidia.com/GA102GL_A10.",
        "hint: the pods bound where it may run hold nvidia.com/GA102GL_A10 (gpu-pt-1 2 of 2)",
    )


def test_hint_when_no_node_has_a_required_label() -> None:
    """Nodes without kubevirt.io/schedulable (virt-handler not running): the VMI fails on the node
    selector it never wrote; the hint says which label nobody has and who sets it."""
    nodes = [node("gpu-pt-1", {"nvidia.com/GA102GL_A10": "1"})]
    vmi = yaml.safe_load(VMI)
    vmi["spec"].pop("nodeSelector", None)
    p = ClusterModel(nodes, []).predict(vmi)
    assert p.message == "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector."
    assert p.hint == (
        "hint: no node has label kubevirt.io/schedulable=true (virt-handler sets it on the nodes "
        "where it runs and is ready; is virt-handler running there?)"
    )
    assert LABEL_SETTERS == {
        KUBEVIRT_SCHEDULABLE_LABEL: "virt-handler sets it on the nodes where it runs and is ready; is virt-handler running there?"
    }


# ------------------------------------------------------------------------------------------ at scale (issue 11)


def test_workloads_of_one_template_share_one_prediction() -> None:
    """The filters read a signature (node name, selector, affinity, tolerations, resources, own pods): pods
    that agree on it get the same prediction, made once; anything the filters tell apart is another."""
    nodes = [node("small", {"cpu": "1"}), node("big", {"cpu": "8"}, labels={"size": "1"})]
    m = ClusterModel(nodes, [pod("bound", requests={"cpu": "500m"}, node_name="big", phase="Running")])
    first, second = m.predict(pod("a-1", requests={"cpu": "2"})), m.predict(pod("a-2", requests={"cpu": "2"}))
    assert first is second and first.feasible == ("big",)
    assert m.predict(pod("b", requests={"cpu": "1"})).feasible == ("big", "small")
    assert m.predict(pod("c", requests={"cpu": "2"}, nodeSelector={"size": "1"})).feasible == ("big",)
    # 1 and 1.0 are equal keys to a dict, not to the filters (label value "1" against "1.0"): two signatures
    assert m.predict(pod("d", nodeSelector={"size": 1})).feasible == ("big",)
    assert m.predict(pod("e", nodeSelector={"size": 1.0})).feasible == ()
    assert m.predict(pod("f", requests={"cpu": "2"}, tolerations=[{"operator": "Exists"}])) is not first
    # a Deployment's own bound pods are not counted against it: its selector is part of the signature
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": "web"}}, "template": {"spec": pod(requests={"cpu": "2"})["spec"]}},
    }
    assert m.predict(deployment).feasible == ("big",)


def test_a_pass_observes_the_first_feasible_nodes_and_a_count() -> None:
    """A passing schedulable result names five nodes and how many more (a 5,000-node cluster made a 1 GB
    report of them), and so does its message."""
    from rules.schedule.model import shown_nodes

    m = ClusterModel([node(f"worker-{i:02d}") for i in range(12)], [])
    p = m.predict(pod())
    assert len(p.feasible) == 12
    assert shown_nodes(p.feasible) == ["worker-00", "worker-01", "worker-02", "worker-03", "worker-04", "… 7 more"]
    assert shown_nodes(("a", "b")) == ["a", "b"]
    assert p.message == "12/12 nodes are feasible: worker-00, worker-01, worker-02, worker-03, worker-04 and 7 more"


def test_a_daemonset_failing_on_many_nodes_names_five_and_counts_the_rest() -> None:
    nodes = [node(f"tiny-{i}", {"cpu": "100m"}) for i in range(8)]
    daemon = {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "agent", "namespace": "default"},
        "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": {"spec": pod(requests={"cpu": "1"})["spec"]}},
    }
    p = ClusterModel(nodes, []).predict(daemon)
    assert p.message == (
        "cannot run on 8/8 targeted nodes: tiny-0 (Insufficient cpu), tiny-1 (Insufficient cpu), tiny-2 (Insufficient cpu),"
        " tiny-3 (Insufficient cpu), tiny-4 (Insufficient cpu) and 3 more"
    )


def test_bound_pods_of_one_template_are_each_counted_and_a_bad_one_warned_each_time() -> None:
    """The usage of a template's pods is worked out once (issue 11): each pod still takes its share of its
    node, and each pod whose quantity does not parse gets its own warning."""
    nodes = [node("a", {"cpu": "4"}), node("b", {"cpu": "4"})]
    pods = [pod(f"web-{i}", requests={"cpu": "1"}, node_name="ab"[i % 2], phase="Running") for i in range(5)]
    pods += [pod(f"bad-{i}", requests={"cpu": "lots"}, node_name="a", phase="Running") for i in range(2)]
    m = ClusterModel(nodes, pods)
    # a: 3 x 1 cpu used, 1 left; b: 2 used, 2 left
    assert m.predict(pod(requests={"cpu": "2"})).feasible == ("b",)
    assert m.predict(pod(requests={"cpu": "1"})).feasible == ("a", "b")
    assert [w.split(":")[0] for w in m.warnings] == ["Pod default/bad-0", "Pod default/bad-1"]


def test_a_deployments_rebuilt_pods_are_known_by_their_hashed_names_only() -> None:
    """The stem of <deployment>-<pod-template-hash>-<5 characters> names the Deployment; a DaemonSet pod whose name
    has a word where the hash would be (nvidia-driver-x2kqp) is not taken for a Deployment nvidia's."""
    full = described("gpu-a", '{"nvidia.com/gpu": "2"}', allocatable={"nvidia.com/gpu": "2"})
    m = ClusterModel([full], [rebuilt_pod("nvidia-driver-x2kqp", "gpu-a")])
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "nvidia", "namespace": "default"},
        "spec": {
            "selector": {"matchLabels": {"app": "x"}},
            "template": {
                "metadata": {"labels": {"app": "x"}},
                "spec": {"containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": "1"}}}]},
            },
        },
    }
    assert m.predict(deployment).message == "0/1 nodes are available: 1 Insufficient nvidia.com/gpu."


def test_a_request_larger_than_any_allocatable_is_named_in_the_hint() -> None:
    """Trial 90: a pod asking for 8 GPUs, where the one node it may run on has 4 allocatable, drew only "Insufficient";
    no rescheduling frees 8 there. A node it may not run on (another taint) is not counted."""
    tainted = node(
        "big", allocatable={"nvidia.com/gpu": "8"}, taints=[{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]
    )
    m = ClusterModel(
        [node("a", allocatable={"nvidia.com/gpu": "4"}), node("b", allocatable={"nvidia.com/gpu": "2"}), tainted], []
    )
    p = m.predict(gpu_pod(8))
    assert p.hint == "hint: it asks for 8 nvidia.com/gpu, more than any node it may run on has allocatable (at most 4, on a)"
    # (trial 243 #2: each node that has the most is named, in the dump's order, not one of them)
    tied = ClusterModel([node(n, allocatable={"nvidia.com/gpu": "2"}) for n in ("b-ctr-1", "b-vgpu-bad")], [])
    assert tied.predict(gpu_pod(8)).hint == (
        "hint: it asks for 8 nvidia.com/gpu, more than any node it may run on has allocatable (at most 2, on b-ctr-1, b-vgpu-bad)"
    )
    many = ClusterModel([node(f"n{i}", allocatable={"nvidia.com/gpu": "2"}) for i in range(5)], [])
    assert many.predict(gpu_pod(8)).hint.endswith("(at most 2, on n0, n1 and 3 more)")
    # what fits a node's allocatable but not its free room keeps the plain Insufficient
    busy = ClusterModel(
        [node("a", allocatable={"nvidia.com/gpu": "4"})],
        [pod("t", limits={"nvidia.com/gpu": "4"}, node_name="a", phase="Running")],
    )
    assert busy.predict(gpu_pod(2)).hint == "hint: the pods bound where it may run hold nvidia.com/gpu (a 4 of 4)"


def test_a_deployments_replicas_still_to_place_compete_with_its_bound_ones() -> None:
    """Trial 108: a Deployment of 3 replicas (2 GPUs each), 1 bound on the only node that fits, 2 pending, was said
    to fit there ("what keeps it off them is not in the dump"): its bound replica holds both GPUs. Where the dump
    holds a pod of it waiting to be placed, or fewer of its pods are bound (on any node, not being deleted) than its
    spec.replicas, its bound pods count against it; else they are left out, as before (trial 109: a count of the
    dump's bound pods missed a replica on a node outside the dump, and a rollout's surge pod; trial 111: the waiting
    pod alone missed a dump of running pods only)."""
    gpu = node("gpu-a10-1", {"nvidia.com/gpu": "2"})
    template = {
        "metadata": {"labels": {"app": "embedder"}},
        "spec": {"containers": [{"name": "e", "image": "x", "resources": {"limits": {"nvidia.com/gpu": "2"}}}]},
    }
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "embedder", "namespace": "default"},
        "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "embedder"}}, "template": template},
    }

    def replica(name: str, node_name: str = "", **meta: Any) -> dict[str, Any]:
        p = pod(name, limits={"nvidia.com/gpu": "2"}, node_name=node_name, phase="Running" if node_name else "Pending")
        p["metadata"].update(labels={"app": "embedder"}, **meta)
        return p

    bound = replica("embedder-7f9c6d8b54-abcde", "gpu-a10-1")
    waiting = replica("embedder-7f9c6d8b54-fghij")
    p = ClusterModel([gpu], [bound, waiting]).predict(deployment)
    assert (p.schedulable, p.message) == (False, "0/1 nodes are available: 1 Insufficient nvidia.com/gpu.")
    # none of its pods waits and all 3 are bound (two on nodes the dump lacks): it runs, not held against itself
    elsewhere = [replica(f"embedder-7f9c6d8b54-klmn{i}", "gpu-elsewhere") for i in (1, 2)]
    p = ClusterModel([gpu], [bound, *elsewhere]).predict(deployment)
    assert (p.schedulable, p.message) == (True, "1/1 nodes are feasible: gpu-a10-1")
    # a pod being deleted waits for nothing, and is no replica: 1 of 3 remains
    leaving = replica("embedder-7f9c6d8b54-pqrst", "gpu-elsewhere", deletionTimestamp="2026-12-05T00:00:00Z")
    assert not ClusterModel([gpu], [bound, leaving]).predict(deployment).schedulable
    # trial 111: a dump of the running pods only (no pending one) of a Deployment short of its replicas
    two = {**deployment, "spec": {**deployment["spec"], "replicas": 2}}
    p = ClusterModel([gpu], [bound]).predict(two)
    assert (p.schedulable, p.message) == (False, "0/1 nodes are available: 1 Insufficient nvidia.com/gpu.")
    # all of them bound, one elsewhere: it runs
    p = ClusterModel([gpu], [bound, replica("embedder-7f9c6d8b54-uvwxy", "gpu-elsewhere")]).predict(two)
    assert (p.schedulable, p.message) == (True, "1/1 nodes are feasible: gpu-a10-1")


def test_a_cordoned_node_that_advertises_what_the_pod_asks_is_named_in_the_hint() -> None:
    """Trial 108: a VM waiting for the passthrough GPU of the node just converted, still cordoned, was pointed at
    another node's nvidia.com/gpu; the cordon (and kubectl uncordon) is named, unless other filters keep it off."""
    # as kubectl cordon leaves it: the node lifecycle controller adds the cordon's taint (trial 109: the hint never
    # showed for such a node)
    cordon_taint = [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]
    converted = node("gpu-a10-2", {"nvidia.com/GA102GL_A10": "2"}, taints=cordon_taint, unschedulable=True)
    container = node("gpu-a10-1", {"nvidia.com/gpu": "2"})
    m = ClusterModel([converted, container], [])
    p = m.predict(pod(limits={"nvidia.com/GA102GL_A10": "1"}))
    assert not p.schedulable
    assert p.hint.startswith(
        "hint: gpu-a10-2 advertises nvidia.com/GA102GL_A10 with room for it but is cordoned (spec.unschedulable:"
        " kubectl uncordon gpu-a10-2 once it is ready for pods)"
    ), p.hint
    # trial 111: a cordoned node whose devices all run pods is not named: uncordoning it places nothing
    busy = pod("vm-a", limits={"nvidia.com/GA102GL_A10": "2"}, node_name="gpu-a10-2", phase="Running")
    p = ClusterModel([converted, container], [busy]).predict(pod(limits={"nvidia.com/GA102GL_A10": "1"}))
    assert "cordoned" not in p.hint, p.hint
    # a node selector that keeps it off anyway: no word of the cordon
    p = m.predict(pod(limits={"nvidia.com/GA102GL_A10": "1"}, nodeSelector={"zone": "b"}))
    assert "cordoned" not in p.hint
    # several: each named in the command
    three = [node(f"gpu-a10-{i}", {"nvidia.com/GA102GL_A10": "2"}, taints=cordon_taint, unschedulable=True) for i in (2, 3, 4)]
    p = ClusterModel(three, []).predict(pod(limits={"nvidia.com/GA102GL_A10": "1"}))
    assert p.hint.startswith(
        "hint: gpu-a10-2, gpu-a10-3 and 1 more advertise nvidia.com/GA102GL_A10 with room for it but are cordoned"
        " (spec.unschedulable: kubectl uncordon gpu-a10-2 gpu-a10-3 gpu-a10-4 once they are ready for pods)"
    ), p.hint
    # more than five: the command names five, the rest are found by a selector (trial 111: "and 2 more" in it)
    seven = [node(f"gpu-pt-{i}", {"nvidia.com/GA102GL_A10": "2"}, taints=cordon_taint, unschedulable=True) for i in range(1, 8)]
    p = ClusterModel(seven, []).predict(pod(limits={"nvidia.com/GA102GL_A10": "1"}))
    assert (
        "kubectl uncordon gpu-pt-1 gpu-pt-2 gpu-pt-3 gpu-pt-4 gpu-pt-5 once they are ready for pods; 2 more: kubectl get"
        " nodes --field-selector spec.unschedulable=true)"
    ) in p.hint, p.hint


def _replicated(kind: str, replicas: int, gpus: str, **spec: Any) -> dict[str, Any]:
    template = {
        "metadata": {"labels": {"app": "big"}},
        "spec": {"containers": [{"name": "c", "image": "x", "resources": {"limits": {"nvidia.com/gpu": gpus}}}], **spec},
    }
    return {
        "apiVersion": "apps/v1",
        "kind": kind,
        "metadata": {"name": "big", "namespace": "default"},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "big"}}, "template": template},
    }


def test_replicas_that_cannot_all_fit_the_feasible_nodes_fail() -> None:
    """Trial 115: a Deployment and a StatefulSet of 3 replicas asking 2 GPUs each, where the only node they may run on
    has 2 free, "can be scheduled": after the first binds, the others are Insufficient everywhere. The feasible
    nodes' room (free allocatable over the request, pod after pod) is summed against the replicas still to place."""
    a = node("gpu-a", {"nvidia.com/gpu": "8"})
    used = pod("other", limits={"nvidia.com/gpu": "6"}, node_name="gpu-a", phase="Running")
    m = ClusterModel([a, node("cpu-1")], [used])
    for kind in ("Deployment", "StatefulSet"):
        p = m.predict(_replicated(kind, 3, "2"))
        # trial 121: the headline "cannot be scheduled" is followed at once by how many replicas do fit, and the
        # hint proposes fewer replicas or more room
        assert (p.schedulable, p.message, p.hint) == (
            False,
            "only 1 of the 3 replicas it has still to place fits: 1/2 nodes are feasible (gpu-a), with room for 1"
            " (gpu-a: 1); the other 2 would stay Pending on the dump's nodes as they are now",
            "hint: scale it to 1 replica (spec.replicas is 3), or free allocatable on the feasible nodes or add nodes"
            " it may run on",
        ), kind
        assert p.feasible == ("gpu-a",)
    # room for all of them: the one-pod answer
    assert m.predict(_replicated("Deployment", 1, "2")).message == "1/2 nodes are feasible: gpu-a"
    assert ClusterModel([a], []).predict(_replicated("Deployment", 4, "2")).schedulable
    # a Job's pods may run in turn: not judged so
    job = _replicated("Deployment", 3, "2")
    job.update(kind="Job", apiVersion="batch/v1")
    job["spec"] = {"parallelism": 3, "template": job["spec"]["template"]}
    assert m.predict(job).schedulable


def test_replicas_already_bound_are_not_placed_again_and_deleting_ones_give_their_room_back() -> None:
    a = node("gpu-a", {"nvidia.com/gpu": "4"})
    deployment = _replicated("Deployment", 3, "2")

    def replica(name: str, **meta: Any) -> dict[str, Any]:
        p = pod(name, limits={"nvidia.com/gpu": "2"}, node_name="gpu-a", phase="Running")
        p["metadata"].update(labels={"app": "big"}, **meta)
        return p

    # two bound, one to place: the one-pod answer (Insufficient: its own bound ones hold the GPUs)
    p = ClusterModel([a], [replica("big-7f9c6d8b54-aaaaa"), replica("big-7f9c6d8b54-bbbbb")]).predict(deployment)
    assert p.message == "0/1 nodes are available: 1 Insufficient nvidia.com/gpu."
    # both being deleted (a Recreate rollout) on a node with 2 GPUs free besides: their GPUs come back for their
    # replacements, which the room of one free pair alone would not hold
    six = node("gpu-a", {"nvidia.com/gpu": "6"})
    leaving = [replica(f"big-7f9c6d8b54-{c * 5}", deletionTimestamp="2026-12-05T00:00:00Z") for c in "cd"]
    two = {**deployment, "spec": {**deployment["spec"], "replicas": 2}}
    p = ClusterModel([six], leaving).predict(two)
    assert (p.schedulable, p.message) == (True, "1/1 nodes are feasible: gpu-a")


def test_required_anti_affinity_against_its_own_pods_puts_one_replica_in_each_domain() -> None:
    """Trial 115: 3 replicas, one per host by required pod anti-affinity on their own label, with 2 hosts they may
    run on, "can be scheduled". InterPodAffinity lets one in each topology domain; a node without the key is not
    constrained; a domain holding one of its pods already takes no other."""
    anti = {
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": "big"}}, "topologyKey": "kubernetes.io/hostname"}
            ]
        }
    }
    nodes = [node("gpu-a", {"nvidia.com/gpu": "8"}), node("gpu-b", {"nvidia.com/gpu": "8"})]
    p = ClusterModel(nodes, []).predict(_replicated("Deployment", 3, "1", affinity=anti))
    assert (p.schedulable, p.message, p.hint) == (
        False,
        "only 2 of the 3 replicas it has still to place fit: 2/2 nodes are feasible (gpu-a, gpu-b), and its required pod"
        " anti-affinity against its own pods puts at most one in each kubernetes.io/hostname domain; the other 1 would"
        " stay Pending on the dump's nodes as they are now",
        "hint: scale it to 2 replicas (spec.replicas is 3), or add nodes it may run on in other kubernetes.io/hostname domains",
    )
    assert ClusterModel(nodes, []).predict(_replicated("Deployment", 2, "1", affinity=anti)).schedulable
    # a selector that is not its own (another app's pods) is not read as a spread of its replicas
    other = {
        "podAntiAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "kubernetes.io/hostname"}
            ]
        }
    }
    assert ClusterModel(nodes, []).predict(_replicated("Deployment", 3, "1", affinity=other)).schedulable


def test_a_cordoned_node_with_room_is_named_beside_a_full_node_the_pod_may_run_on() -> None:
    """Trial 115: the cordon hint was left out whenever a node the pod may run on advertised the resource but was
    full, though uncordoning gpu-c is the one change that places the pod."""
    cordon_taint = [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]
    full = node("gpu-a", {"nvidia.com/gpu": "4"})
    cordoned = node("gpu-c", {"nvidia.com/gpu": "4"}, taints=cordon_taint, unschedulable=True)
    busy = pod("t", limits={"nvidia.com/gpu": "2"}, node_name="gpu-a", phase="Running")
    p = ClusterModel([full, cordoned], [busy]).predict(gpu_pod(3))
    assert not p.schedulable
    assert p.hint == (
        "hint: gpu-c advertises nvidia.com/gpu with room for it but is cordoned (spec.unschedulable: kubectl uncordon"
        " gpu-c once it is ready for pods); the pods bound where it may run hold nvidia.com/gpu (gpu-a 2 of 4)"
    ), p.hint


def test_replica_room_is_not_judged_where_the_dump_lacks_nodes_or_of_a_deployments_replicaset() -> None:
    """Trial 116: a Deployment of 6 (cpu 1 each), 2 pods running on a node the dump lacks (a GPU-node-only dump), 4
    waiting, failed on the one node of the dump: its nodes are not all the cluster's. The new ReplicaSet of a rolling
    update failed for room its Deployment's controller frees by scaling the old one down: a Deployment's ReplicaSet is
    left to the Deployment."""
    gpu = node("gpu-1", {"cpu": "2"})
    template = {
        "metadata": {"labels": {"app": "web"}},
        "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]},
    }
    web = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"replicas": 6, "selector": {"matchLabels": {"app": "web"}}, "template": template},
    }
    running = []
    for i in range(2):
        p = pod(f"web-7f9c6d8b54-run{i}x", requests={"cpu": "1"}, node_name="cpu-node-1", phase="Running")
        p["metadata"]["labels"] = {"app": "web"}
        running.append(p)
    assert ClusterModel([gpu], running).predict(web).schedulable
    # the same with no pod elsewhere: the dump's nodes are the cluster's, and 2 of 6 fit
    assert not ClusterModel([gpu], []).predict(web).schedulable
    rs = {
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {
            "name": "web-7f9c6d8b54",
            "namespace": "default",
            "ownerReferences": [{"kind": "Deployment", "name": "web"}],
        },
        "spec": {"replicas": 6, "selector": {"matchLabels": {"app": "web"}}, "template": template},
    }
    assert ClusterModel([gpu], []).predict(rs).schedulable


def test_what_bound_pods_hold_is_said_once_and_never_above_the_allocatable() -> None:
    """Trial 117: the clause was said again for each resource asked, and a Pending pod bound to a full node (which the
    kubelet will refuse) made it "gpu-b 5 of 4"."""
    a = node("gpu-a", {"nvidia.com/gpu": "4", "nvidia.com/mig-1g.10gb": "7"})
    bound = [
        pod("t1", limits={"nvidia.com/gpu": "4", "nvidia.com/mig-1g.10gb": "6"}, node_name="gpu-a", phase="Running"),
        pod("t2", limits={"nvidia.com/gpu": "1"}, node_name="gpu-a", phase="Pending"),
    ]
    p = ClusterModel([a], bound).predict(pod(limits={"nvidia.com/gpu": "1", "nvidia.com/mig-1g.10gb": "2"}))
    assert p.hint == (
        "hint: the pods bound where it may run hold nvidia.com/gpu (gpu-a 4 of 4) and nvidia.com/mig-1g.10gb (gpu-a 6 of 7)"
    ), p.hint


def test_a_cordoned_node_is_named_once_for_every_resource_it_has_room_for() -> None:
    """Trial 119: a VM's virt-launcher pod waiting for the cordoned node's GPU got the cordon clause, and its kubectl
    uncordon, once for devices.kubevirt.io/kvm, tun and vhost-net, and again for the GPU."""
    cordon_taint = [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]
    resources = {"devices.kubevirt.io/kvm": "1k", "devices.kubevirt.io/tun": "1k", "nvidia.com/GH100_H100_PCIE": "2"}
    h100 = node("gpu-h100-1", resources, taints=cordon_taint, unschedulable=True)
    launcher = pod(limits={"devices.kubevirt.io/kvm": "1", "devices.kubevirt.io/tun": "1", "nvidia.com/GH100_H100_PCIE": "1"})
    p = ClusterModel([h100, node("cpu-1")], []).predict(launcher)
    assert p.hint == (
        "hint: gpu-h100-1 advertises devices.kubevirt.io/kvm, devices.kubevirt.io/tun and nvidia.com/GH100_H100_PCIE with"
        " room for it but is cordoned (spec.unschedulable: kubectl uncordon gpu-h100-1 once it is ready for pods)"
    ), p.hint


def test_hint_names_what_a_taint_keeps_the_pod_off_and_the_toleration_that_lets_it_on() -> None:
    """Regression (trial 170): a pod without the toleration of the one node advertising its GPUs was told only of the
    VM nodes' other resources, never which toleration it lacks; a VM's launcher pinned to a tainted container node was
    told of the taint alone, and not that the node lacks its device either (a toleration would only fail again). A
    node's own condition taint is not offered as one to tolerate."""
    taint = [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
    nodes = [
        node("gpu-c-1", {"nvidia.com/gpu": "2"}, taints=taint),
        node("gpu-pt-1", {"nvidia.com/GA102GL_A10": "1"}, labels={"nvidia.com/gpu.workload.config": "vm-passthrough"}),
    ]
    m = ClusterModel(nodes, [])
    p = m.predict(pod(limits={"nvidia.com/gpu": "1"}))
    assert p.message == (
        "0/2 nodes are available: 1 Insufficient nvidia.com/gpu, 1 node(s) had untolerated taint {nvidia.com/gpu: present}."
    )
    assert p.hint == (
        "hint: nvidia.com/gpu is not advertised where the pod may run: gpu-pt-1 advertises nvidia.com/GA102GL_A10;"
        " gpu-c-1 advertises nvidia.com/gpu but has taint nvidia.com/gpu=present:NoSchedule, which the pod does not"
        " tolerate (a toleration {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule} lets it on)"
    )
    pinned = m.predict(pod(limits={"nvidia.com/GA102GL_A10": "1"}, nodeSelector={"kubernetes.io/hostname": "gpu-c-1"}))
    assert pinned.hint == (
        "hint: nvidia.com/GA102GL_A10 is not advertised where its node name, selector and affinity let it run: gpu-c-1"
        " advertises nvidia.com/gpu; gpu-pt-1 advertises nvidia.com/GA102GL_A10 but does not match the pod's node"
        " selector or affinity"
    )
    down = [{"key": "node.kubernetes.io/disk-pressure", "effect": "NoSchedule"}]
    sick = ClusterModel([node("gpu-c-1", {"nvidia.com/gpu": "2"}, taints=down)], [])
    assert sick.predict(pod(limits={"nvidia.com/gpu": "1"})).hint.endswith(
        "gpu-c-1 advertises nvidia.com/gpu but has taint node.kubernetes.io/disk-pressure:NoSchedule, which the pod does"
        " not tolerate (set by Kubernetes for the node's condition: it takes pods again once that is cleared)"
    )
    # tolerated, it lands: no hint needed
    ok = m.predict(pod(limits={"nvidia.com/gpu": "1"}, tolerations=[{"key": "nvidia.com/gpu", "operator": "Exists"}]))
    assert ok.schedulable


def test_a_vmi_launcher_pod_asks_for_kubevirts_memory_overhead_and_cpu() -> None:
    """Trial 185: a 16Gi GPU VMI was placed on a node with 17Gi allocatable, where its virt-launcher pod asks for the
    guest's memory and KubeVirt's overhead (GetMemoryOverhead: the launcher's processes, 8Mi a vCPU, the page tables,
    video RAM, 1Gi for VFIO devices) and, without a cpu request, its vCPUs over cpuAllocationRatio 10."""
    from rules.schedule.workloads import vmi_pod_spec

    mi = 1 << 20
    vmi = {
        "domain": {
            "cpu": {"cores": 4},
            "memory": {"guest": "16Gi"},
            "devices": {"gpus": [{"name": "g", "deviceName": "nvidia.com/GA102GL_A10"}]},
        }
    }
    requests = vmi_pod_spec(vmi)["containers"][0]["resources"]["requests"]
    guest = 16 << 30
    assert int(requests["memory"]) == guest + 210 * mi + 8 * mi + 4 * 8 * mi + guest // 512 + 16 * mi + (1 << 30)
    assert (requests["cpu"], requests["nvidia.com/GA102GL_A10"]) == ("400m", "1")
    # no GPU, no graphics device, the overhead overcommitted, a cpu request of its own
    plain = {"domain": {"memory": {"guest": "1Gi"}, "devices": {"autoattachGraphicsDevice": False}}}
    assert int(vmi_pod_spec(plain)["containers"][0]["resources"]["requests"]["memory"]) == (1 << 30) + 226 * mi + (1 << 30) // 512
    plain["domain"]["resources"] = {"overcommitGuestOverhead": True, "requests": {"cpu": "2"}}
    assert vmi_pod_spec(plain)["containers"][0]["resources"]["requests"] == {"cpu": "2", "memory": "1Gi"}


def test_a_vmi_on_hugepages_or_dedicated_cpus_asks_as_kubevirt_renders_it() -> None:
    """Trial 188: a hugepages VMI asked for its guest's memory and the overhead as memory (KubeVirt asks for the guest
    as hugepages-<size> and the overhead alone as memory: WithHugePages); a dedicated-CPU VMI asked for vCPUs/10
    (WithCPUPinning: whole cpus, requests equal to limits); 1500m counted as 1 vCPU (Quantity.Value() rounds up)."""
    from rules.schedule.workloads import vmi_pod_spec

    mi = 1 << 20
    spec = {
        "domain": {
            "cpu": {"cores": 4, "dedicatedCpuPlacement": True},
            "memory": {"guest": "30Gi", "hugepages": {"pageSize": "1Gi"}},
        }
    }
    resources = vmi_pod_spec(spec)["containers"][0]["resources"]
    overhead = 218 * mi + 4 * 8 * mi + (30 << 30) // 512 + 16 * mi + 100 * mi
    assert (resources["requests"]["hugepages-1Gi"], int(resources["requests"]["memory"])) == ("30Gi", overhead)
    assert (resources["requests"]["cpu"], resources["limits"]["cpu"]) == ("4", "4")
    half = vmi_pod_spec({"domain": {"resources": {"requests": {"cpu": "1500m", "memory": "1Gi"}}}})
    assert (
        int(half["containers"][0]["resources"]["requests"]["memory"])
        == (1 << 30) + 218 * mi + 2 * 8 * mi + (1 << 30) // 512 + 16 * mi
    )


def test_a_manual_vm_its_status_says_is_stopped_is_not_judged() -> None:
    """Regression (trial 218): a VirtualMachine with runStrategy Manual and status.printableStatus Stopped (no VMI: it
    starts only when asked) was judged as if it ran, a second high failure beside the device rule's "when it is
    started"; a Halted one was not. It is stopped as a Halted one is; a Manual manifest with no status, or one Running,
    is still judged."""
    m = ClusterModel([node("w", labels={KUBEVIRT_SCHEDULABLE_LABEL: "true"})], [])
    vm: dict[str, Any] = {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": "m", "namespace": "vms"},
        "spec": {"runStrategy": "Manual", "template": {"spec": {"domain": {"resources": {"requests": {"cpu": "64"}}}}}},
        "status": {"printableStatus": "Stopped"},
    }
    p = m.predict(vm)
    assert (p.applicable, p.message) == (False, "VirtualMachine is stopped (runStrategy Manual, status.printableStatus Stopped)")
    for status in ({}, {"printableStatus": "Running", "created": True}):
        vm["status"] = status
        p = m.predict(vm)
        assert (p.applicable, p.message) == (True, "0/1 nodes are available: 1 Insufficient cpu."), status


def test_a_vm_hint_says_what_the_model_counts_of_its_memory_only_where_memory_is_short() -> None:
    """Regression (trial 221 #8): every VM kube-scheduler could not place was told what the model counts of its
    launcher's memory (KubeVirt's overhead), for want of a device or a selector's match too, and where the VMI asks
    for no memory (nothing counted). The hint says it where memory is short of it, and the overhead was counted."""
    small = node("gpu-pt-1", {"nvidia.com/GA102GL_A10": "2", "memory": "16Gi", "cpu": "32", "pods": "110"})
    small["metadata"]["labels"].update({"nvidia.com/gpu.workload.config": "vm-passthrough", "kubevirt.io/schedulable": "true"})
    m = ClusterModel([small], [])
    vmi = yaml.safe_load(VMI)
    p = m.predict(vmi)
    assert (p.schedulable, p.message) == (False, "0/1 nodes are available: 1 Insufficient memory.")
    assert p.hint == f"hint: {OVERHEAD_NOTE}"
    # short of a device, not of memory: no word of it
    wants_more = yaml.safe_load(VMI)
    wants_more["spec"]["domain"]["memory"]["guest"] = "1Gi"
    wants_more["spec"]["domain"]["devices"]["gpus"] *= 2
    p = m.predict(wants_more)
    assert p.message == "0/1 nodes are available: 1 Insufficient nvidia.com/GA102GL_A10." and OVERHEAD_NOTE not in p.hint
    # overcommitGuestOverhead: the overhead is not counted, and not said
    overcommitted = yaml.safe_load(VMI)
    overcommitted["spec"]["domain"]["memory"]["guest"] = "32Gi"
    overcommitted["spec"]["domain"]["resources"]["overcommitGuestOverhead"] = True
    p = m.predict(overcommitted)
    assert "Insufficient memory" in p.message and OVERHEAD_NOTE not in p.hint
