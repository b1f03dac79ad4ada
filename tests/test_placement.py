"""Taints and the workloads that must tolerate them: the ``tolerates`` value operator, the scheduler model's
``taint_check`` and the ``toleratesNodes`` object operator, each asserting exact results and messages."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import yaml
from conftest import make_rule

from rules.errors import PolicyError
from rules.schedule import ClusterModel
from rules.schedule.matching import compile_terms

Judge = Callable[..., dict[tuple[str, str], Any]]

GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
DEDICATED = {"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}
GPU_TERMS = [{"matchExpressions": [{"key": "nvidia.com/gpu.present", "operator": "In", "values": ["true"]}]}]


def taint_node(name: str, *taints: dict[str, str], labels: dict[str, str] | None = None) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
        "spec": {"taints": list(taints)} if taints else {},
        "status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"}},
    }


def gpu_node(name: str, *taints: dict[str, str]) -> dict[str, Any]:
    return taint_node(name, *taints, labels={"nvidia.com/gpu.present": "true", "nvidia.com/gpu.deploy.device-plugin": "true"})


def daemonset(
    name: str = "nvidia-device-plugin-daemonset", tolerations: list[dict[str, Any]] | None = None, **spec: Any
) -> dict[str, Any]:
    template: dict[str, Any] = {"containers": [{"name": "plugin", "image": "nvcr.io/nvidia/k8s-device-plugin:v0.17.0"}], **spec}
    if tolerations is not None:
        template["tolerations"] = tolerations
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": name, "namespace": "gpu-operator"},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": template},
        },
    }


def running_pod(name: str, app: str, node: str, phase: str = "Running") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "gpu-operator", "labels": {"app": app}},
        "spec": {"nodeName": node, "containers": [{"name": "c"}]},
        "status": {"phase": phase},
    }


OPERAND_TOLERATION = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]


# ------------------------------------------------------------------------------------------ tolerates


@pytest.mark.parametrize(
    ("taint", "tolerations", "expected"),
    [
        (GPU_TAINT, OPERAND_TOLERATION, "pass"),
        (DEDICATED, OPERAND_TOLERATION, "fail"),
        # An empty key with Exists tolerates every taint; an empty effect matches every effect.
        (DEDICATED, [{"operator": "Exists"}], "pass"),
        ({"key": "dedicated", "value": "gpu", "effect": "NoExecute"}, [{"key": "dedicated", "operator": "Exists"}], "pass"),
        # The effect must match when the toleration gives one.
        (
            {"key": "dedicated", "value": "gpu", "effect": "NoExecute"},
            [{"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}],
            "fail",
        ),
        # No operator is Equal: the values must be equal, and a missing value is "".
        (DEDICATED, [{"key": "dedicated", "value": "gpu"}], "pass"),
        (DEDICATED, [{"key": "dedicated", "value": "cpu"}], "fail"),
        ({"key": "gpu", "effect": "NoSchedule"}, [{"key": "gpu", "operator": "Equal"}], "pass"),
        # Any of the list tolerates it.
        (DEDICATED, [*OPERAND_TOLERATION, {"key": "dedicated", "operator": "Exists"}], "pass"),
        (DEDICATED, [], "fail"),
    ],
)
def test_tolerates_follows_tolerates_taint(judge: Judge, taint: dict[str, str], tolerations: list[Any], expected: str) -> None:
    rule = make_rule({"path": "$.spec.taints[*]", "tolerates": {"value": tolerations}})
    assert judge([taint_node("n", taint)], rules=[rule])[("n", "r")].result == expected


def test_tolerates_reports_the_taint_and_the_tolerations(judge: Judge) -> None:
    rule = make_rule({"path": "$.spec.taints[*]", "tolerates": OPERAND_TOLERATION})
    r = judge([taint_node("n", DEDICATED)], rules=[rule])[("n", "r")]
    assert (r.result, r.observed) == ("fail", DEDICATED)
    assert r.expected == "tolerated by one of [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]"


def test_tolerates_takes_references_and_one_mapping(judge: Judge) -> None:
    nodes = [taint_node("n", GPU_TAINT)]
    by_data = make_rule({"path": "$.spec.taints[*]", "tolerates": {"data": "tolerations"}})
    assert judge(nodes, rules=[by_data], data={"tolerations": OPERAND_TOLERATION})[("n", "r")].result == "pass"
    # A single toleration is a mapping with a `value` key: wrap it as a literal.
    one = make_rule({"path": "$.spec.taints[*]", "tolerates": {"value": OPERAND_TOLERATION[0]}})
    assert judge(nodes, rules=[one])[("n", "r")].result == "pass"
    # A context that finds nothing is null: no toleration, so the taint is not tolerated.
    none = make_rule({"path": "$.spec.taints[*]", "tolerates": {"context": "cp"}})
    spec = {"context": {"cp": {"kind": "ClusterPolicy", "path": "$.spec.daemonsets.tolerations", "first": True}}}
    assert judge(nodes, rules=[none], **spec)[("n", "r")].result == "fail"


def test_tolerates_on_what_is_not_a_taint_or_a_toleration_is_an_error(judge: Judge) -> None:
    nodes = [taint_node("n", GPU_TAINT)]
    r = judge(nodes, rules=[make_rule({"path": "$.metadata.name", "tolerates": OPERAND_TOLERATION})])[("n", "r")]
    assert (r.result, r.message) == (
        "error",
        "could not evaluate: $.metadata.name: n is not a taint (a mapping of key, value, effect)",
    )
    r = judge(nodes, rules=[make_rule({"path": "$.spec.taints[*]", "tolerates": ["nvidia.com/gpu"]})])[("n", "r")]
    assert r.result == "error"
    assert r.message.endswith("nvidia.com/gpu is not a toleration (a mapping of key, operator, value, effect)")


# ------------------------------------------------------------------------------------ taint_check


CLUSTER = [
    gpu_node("gpu-a", DEDICATED),
    gpu_node("gpu-b", GPU_TAINT),
    gpu_node("gpu-c", DEDICATED),
    gpu_node("gpu-d"),
    taint_node("cp-1", {"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}),
    taint_node("cpu-1"),
]
SELECT_GPU = {"nodeSelector": {"nvidia.com/gpu.deploy.device-plugin": "true"}}


def test_taint_check_names_each_untolerated_taint_and_its_nodes() -> None:
    m = ClusterModel(CLUSTER, [])
    check = m.taint_check(daemonset(tolerations=OPERAND_TOLERATION, **SELECT_GPU))
    assert (check.applicable, check.tolerated) == (True, False)
    assert check.selected == ("gpu-a", "gpu-b", "gpu-c", "gpu-d")
    assert check.untolerated == ("gpu-a", "gpu-c")
    assert check.message == (
        "2 of the 4 nodes it selects have a taint it does not tolerate: "
        "2 node(s) had untolerated taint {dedicated: gpu} (gpu-a, gpu-c)"
    )
    assert check.reasons == {"node(s) had untolerated taint {dedicated: gpu}": 2}


def test_taint_check_groups_reasons_sorted_and_words_a_valueless_taint_as_the_scheduler() -> None:
    check = ClusterModel(CLUSTER, []).taint_check(daemonset(tolerations=[]))
    assert check.message == (
        "4 of the 6 nodes it selects have a taint it does not tolerate: "
        "2 node(s) had untolerated taint {dedicated: gpu} (gpu-a, gpu-c); "
        "1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: } (cp-1); "
        "1 node(s) had untolerated taint {nvidia.com/gpu: present} (gpu-b)"
    )
    assert check.untolerated == ("cp-1", "gpu-a", "gpu-b", "gpu-c")


def test_taint_check_scope_limits_the_judged_nodes() -> None:
    check = ClusterModel(CLUSTER, []).taint_check(daemonset(tolerations=[]), compile_terms(GPU_TERMS))
    assert check.message == (
        "3 of the 4 judged nodes it selects have a taint it does not tolerate: "
        "2 node(s) had untolerated taint {dedicated: gpu} (gpu-a, gpu-c); "
        "1 node(s) had untolerated taint {nvidia.com/gpu: present} (gpu-b)"
    )
    ok = ClusterModel(CLUSTER, []).taint_check(daemonset(tolerations=[{"operator": "Exists"}]), compile_terms(GPU_TERMS))
    assert (ok.tolerated, ok.message) == (
        True,
        "no taint keeps it off the 4 judged nodes it selects (gpu-a, gpu-b, gpu-c, gpu-d)",
    )
    assert ok.untolerated == () and ok.selected == ("gpu-a", "gpu-b", "gpu-c", "gpu-d")


def test_taint_check_names_five_nodes_then_counts() -> None:
    nodes = [gpu_node(f"gpu-{i:02}", DEDICATED) for i in range(8)]
    check = ClusterModel(nodes, []).taint_check(daemonset(tolerations=[]))
    assert check.message == (
        "8 of the 8 nodes it selects have a taint it does not tolerate: 8 node(s) had untolerated taint "
        "{dedicated: gpu} (gpu-00, gpu-01, gpu-02, gpu-03, gpu-04 and 3 more)"
    )
    assert len(check.untolerated) == 8


def test_daemonset_controller_tolerations_count() -> None:
    # not-ready (NoExecute) and a cordon (unschedulable NoSchedule) are tolerated by every DaemonSet pod.
    nodes = [
        gpu_node("gpu-a", {"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}),
        gpu_node("gpu-b", {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}),
    ]
    check = ClusterModel(nodes, []).taint_check(daemonset(tolerations=[]))
    assert (check.tolerated, check.selected) == (True, ("gpu-a", "gpu-b"))
    # A Deployment's pod gets no such tolerations.
    deploy = daemonset(tolerations=[])
    deploy["kind"] = "Deployment"
    blocked = ClusterModel(nodes, []).taint_check(deploy)
    assert blocked.untolerated == ("gpu-a", "gpu-b")


def test_a_running_pod_stays_under_a_noschedule_taint_but_not_a_noexecute_one() -> None:
    nodes = [
        gpu_node("gpu-a", DEDICATED),
        gpu_node("gpu-b", {"key": "dedicated", "value": "gpu", "effect": "NoExecute"}),
        gpu_node("gpu-c", DEDICATED),
    ]
    app = "nvidia-device-plugin-daemonset"
    pods = [running_pod("dp-a", app, "gpu-a"), running_pod("dp-b", app, "gpu-b"), running_pod("dp-c", app, "gpu-c", "Failed")]
    m = ClusterModel(nodes, pods)
    ds = daemonset(tolerations=OPERAND_TOLERATION)
    # gpu-b's NoExecute taint evicts its pod; dp-c has failed, so nothing runs on gpu-c. Counted: all three.
    strict = m.taint_check(ds)
    assert (strict.kept, strict.untolerated) == (("gpu-a",), ("gpu-a", "gpu-b", "gpu-c"))
    assert strict.message == (
        "3 of the 3 nodes it selects have a taint it does not tolerate: 3 node(s) had untolerated taint {dedicated: gpu} "
        "(gpu-a, gpu-b, gpu-c); its pod still runs on gpu-a: a NoSchedule taint does not evict a running pod, but it would "
        "not be recreated there"
    )
    # Ignoring the running pod: gpu-a is not counted, and the message names its taint.
    lenient = m.taint_check(ds, ignore_running=True)
    assert (lenient.kept, lenient.untolerated) == (("gpu-a",), ("gpu-b", "gpu-c"))
    assert lenient.message == (
        "2 of the 3 nodes it selects have a taint it does not tolerate: 2 node(s) had untolerated taint {dedicated: gpu} "
        "(gpu-b, gpu-c); its pod still runs on gpu-a under a taint it does not tolerate (node(s) had untolerated taint "
        "{dedicated: gpu}): a NoSchedule taint does not evict a running pod, but it would not be recreated there"
    )
    only_kept = ClusterModel([nodes[0]], pods).taint_check(ds, ignore_running=True)
    assert (only_kept.tolerated, only_kept.message) == (
        True,
        "it selects 1 node; its pod still runs on gpu-a under a taint it does not "
        "tolerate (node(s) had untolerated taint {dedicated: gpu}): a NoSchedule taint does not evict a running pod, but "
        "it would not be recreated there",
    )


def test_a_daemonset_pod_rebuilt_from_describe_text_is_found_by_its_generated_name() -> None:
    # Describe text gives a pod row's namespace and name only: no labels, no owner.
    described = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "nvidia-device-plugin-daemonset-f7kqs", "namespace": "gpu-operator"},
        "spec": {"nodeName": "gpu-a", "containers": [{"name": "pod-totals"}]},
        "status": {"phase": "Running"},
    }
    labelled = running_pod("nvidia-device-plugin-daemonset-zz9zz", "something-else", "gpu-c")
    other_ns = {**described, "metadata": {"name": "nvidia-device-plugin-daemonset-x2x2x", "namespace": "kube-system"}}
    m = ClusterModel([gpu_node("gpu-a", DEDICATED), gpu_node("gpu-c", DEDICATED)], [described, labelled, other_ns])
    check = m.taint_check(daemonset(tolerations=OPERAND_TOLERATION), ignore_running=True)
    assert (check.kept, check.untolerated) == (("gpu-a",), ("gpu-c",))


def test_a_skipping_object_operator_precondition_says_why(judge: Judge) -> None:
    rule = make_rule(
        {"path": "$.kind", "exists": True},
        match={"kinds": ["DaemonSet"]},
        preconditions=[{"toleratesNodes": {"nodes": GPU_TERMS}, "description": "taints keep it off"}],
    )
    ds = daemonset(tolerations=[], nodeSelector={"nvidia.com/gpu.present": "false"})
    r = judge([*CLUSTER, ds], rules=[rule])[("nvidia-device-plugin-daemonset", "r")]
    assert (r.result, r.message) == (
        "skip",
        "its node name, nodeSelector and affinity select none of the 4 judged nodes",
    )
    # When it fails, the description says why.
    failing = judge([*CLUSTER, daemonset(tolerations=[])], rules=[rule])[("nvidia-device-plugin-daemonset", "r")]
    assert (failing.result, failing.message) == ("skip", "taints keep it off")


def test_taint_check_not_applicable() -> None:
    m = ClusterModel(CLUSTER, [])
    config = m.taint_check({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}})
    assert (config.applicable, config.message) == (False, "ConfigMap is not a workload")
    bound = m.taint_check(running_pod("p", "x", "gpu-a"))
    assert (bound.applicable, bound.tolerated, bound.message) == (False, True, "Pod is bound to node gpu-a")
    elsewhere = daemonset(tolerations=[], nodeSelector={"nvidia.com/gpu.present": "false"})
    none = m.taint_check(elsewhere, compile_terms(GPU_TERMS))
    assert (none.applicable, none.message) == (
        False,
        "its node name, nodeSelector and affinity select none of the 4 judged nodes",
    )
    nowhere = m.taint_check(
        daemonset(tolerations=[]), compile_terms([{"matchExpressions": [{"key": "x", "operator": "Exists"}]}])
    )
    assert (nowhere.applicable, nowhere.message) == (False, "none of the 6 nodes of the dump is among the nodes judged")


def test_taint_check_follows_node_name_and_affinity() -> None:
    m = ClusterModel(CLUSTER, [])
    pinned = daemonset(tolerations=[], nodeName="gpu-b")
    assert m.taint_check(pinned).untolerated == ("gpu-b",)
    affinity = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["gpu-d"]}]},
                    {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["cpu-1"]}]},
                ]
            }
        }
    }
    check = m.taint_check(daemonset(tolerations=[], affinity=affinity))
    assert (check.applicable, check.tolerated, check.selected) == (True, True, ("cpu-1", "gpu-d"))


# ------------------------------------------------------------------------------------ toleratesNodes


def test_tolerates_nodes_operator(judge: Judge) -> None:
    rule = make_rule({"toleratesNodes": {"nodes": GPU_TERMS}}, match={"kinds": ["DaemonSet"]}, message="{detail}")
    bad = daemonset("nvidia-device-plugin-daemonset", tolerations=OPERAND_TOLERATION, **SELECT_GPU)
    good = daemonset("gpu-feature-discovery", tolerations=[{"operator": "Exists"}])
    results = judge([*CLUSTER, bad, good], rules=[rule])
    r = results[("nvidia-device-plugin-daemonset", "r")]
    assert (r.result, r.observed, r.expected) == ("fail", ["gpu-a", "gpu-c"], "tolerates the taints of every node it selects")
    assert r.message == (
        "2 of the 4 judged nodes it selects have a taint it does not tolerate: "
        "2 node(s) had untolerated taint {dedicated: gpu} (gpu-a, gpu-c)"
    )
    p = results[("gpu-feature-discovery", "r")]
    assert (p.result, p.observed) == ("pass", ["gpu-a", "gpu-b", "gpu-c", "gpu-d"])


def test_tolerates_nodes_skips_without_nodes_or_a_workload(judge: Judge) -> None:
    rule = make_rule({"toleratesNodes": {}}, match={"kinds": ["*"]}, message="{detail}")
    r = judge([daemonset()], rules=[rule])[("nvidia-device-plugin-daemonset", "r")]
    assert (r.result, r.message) == ("skip", "no Node in the dump")
    r = judge([*CLUSTER[:1], {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}}], rules=[rule])[("cm", "r")]
    assert (r.result, r.message) == ("skip", "ConfigMap is not a workload")


@pytest.mark.parametrize(
    ("argument", "reason"),
    [
        ({"node": GPU_TERMS}, "toleratesNodes takes only 'nodes' and 'ignoreRunning', not node"),
        ({"ignoreRunning": "yes"}, "ignoreRunning takes true or false"),
        ({"nodes": []}, "nodes takes a non-empty list of node selector terms"),
        ({"nodes": [{"matchLabels": {"a": "b"}}]}, "nodes[0] is not a node selector term"),
        ({"nodes": [{"matchExpressions": [{"key": "a", "operator": "In"}]}]}, "nodes[0] does not parse as a node selector term"),
        ({"nodes": [{}]}, "nodes[0] does not parse as a node selector term"),
    ],
)
def test_tolerates_nodes_refuses_bad_scopes_at_load(
    load_policy: Callable[..., Any], argument: dict[str, Any], reason: str
) -> None:
    from conftest import make_policy

    with pytest.raises(PolicyError) as err:
        load_policy(make_policy([make_rule({"toleratesNodes": argument})]))
    assert reason in str(err.value)


def test_tolerates_nodes_reads_a_real_looking_dump(judge: Judge) -> None:
    objects = list(
        yaml.safe_load_all("""
apiVersion: v1
kind: Node
metadata: {name: dgx-01, labels: {nvidia.com/gpu.present: "true", nvidia.com/gpu.deploy.driver: "true"}}
spec:
  taints:
  - {key: nvidia.com/gpu, value: present, effect: NoSchedule}
  - {key: node.kubernetes.io/unschedulable, effect: NoSchedule}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: nvidia-driver-daemonset, namespace: gpu-operator}
spec:
  selector: {matchLabels: {app: nvidia-driver-daemonset}}
  template:
    metadata: {labels: {app: nvidia-driver-daemonset}}
    spec:
      nodeSelector: {nvidia.com/gpu.deploy.driver: "true"}
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
      containers: [{name: nvidia-driver-ctr}]
""")
    )
    rule = make_rule({"toleratesNodes": {}}, match={"kinds": ["DaemonSet"]}, passMessage="{detail}")
    r = judge(objects, rules=[rule])[("nvidia-driver-daemonset", "r")]
    assert (r.result, r.message) == ("pass", "no taint keeps it off the 1 node it selects (dgx-01)")


# ------------------------------------------------------------------------------------------ admitsNode

ADMITTING_NODE = taint_node("gpu-pt-2", DEDICATED, labels={"nvidia.com/gpu.workload.config": "vm-passthrough"})


CONTAINER_TERM = {"matchExpressions": [{"key": "nvidia.com/gpu.workload.config", "operator": "In", "values": ["container"]}]}
PT_2_BY_NAME = {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["gpu-pt-2"]}]}


def required(*terms: dict[str, Any]) -> dict[str, Any]:
    """A pod's affinity requiring one of ``terms`` (nodeSelectorTerms, ORed)."""
    return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": list(terms)}}}


def pod_spec(**spec: Any) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "ml"}, "spec": spec}


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        # Trial 80: a pod pinned to another node by its hostname label waits for nothing of this one.
        ({"nodeSelector": {"kubernetes.io/hostname": "gpu-pt-1"}, "tolerations": [{"operator": "Exists"}]}, False),
        ({"nodeSelector": {"kubernetes.io/hostname": "gpu-pt-2"}, "tolerations": [{"operator": "Exists"}]}, True),
        ({"nodeSelector": {"kubernetes.io/hostname": "gpu-pt-2"}}, False),  # the node's dedicated=gpu taint
        ({"tolerations": [{"key": "dedicated", "operator": "Exists"}]}, True),
        ({"nodeName": "gpu-pt-1", "tolerations": [{"operator": "Exists"}]}, False),
        ({"nodeName": "gpu-pt-2"}, True),  # bound by nodeName: no scheduler, whose NoSchedule taint it ignores
        ({"nodeName": "gpu-pt-2", "nodeSelector": {"kubernetes.io/hostname": "gpu-pt-1"}}, False),
        ({"tolerations": [{"operator": "Exists"}], "affinity": required(CONTAINER_TERM)}, False),
        ({"tolerations": [{"operator": "Exists"}], "affinity": required(CONTAINER_TERM, PT_2_BY_NAME)}, True),
    ],
)
def test_admits_node_follows_kube_schedulers_node_filters(spec: dict[str, Any], expected: bool) -> None:
    from rules.operators import OPERATORS

    test = OPERATORS["admitsNode"].test
    assert test(pod_spec(**spec), ADMITTING_NODE) is expected
    assert test(spec, ADMITTING_NODE) is expected  # a pod spec alone reads the same


def test_admits_node_refuses_what_is_not_a_pod_or_a_node() -> None:
    from rules.operators import OPERATORS, OperatorError

    test = OPERATORS["admitsNode"].test
    with pytest.raises(OperatorError, match="^gpu-pt-2 is not a Pod or pod spec$"):
        test("gpu-pt-2", ADMITTING_NODE)
    with pytest.raises(OperatorError, match=r"^gpu-pt-2 is not a Node \(a mapping with metadata\)$"):
        test(pod_spec(), "gpu-pt-2")


def test_a_kubernetes_object_in_a_message_is_named_not_written_out() -> None:
    from rules.operators import show

    assert show([pod_spec(), ADMITTING_NODE]) == "[ml/p, gpu-pt-2]"
    assert show({"kind": "Pod", "metadata": {"namespace": 3}}) == "{kind: Pod, metadata: {namespace: 3}}"


def test_a_node_tests_only_the_pending_pods_asking_for_its_resource_at_zero(monkeypatch: pytest.MonkeyPatch) -> None:
    """awaited-resource-has-devices tests each pending pod asking for a resource a node lists at 0 devices against that
    node, once; not the running pods asking for it (a table of them by phase is built once per dump), and not for a
    resource with devices."""
    import dataclasses

    from rules.errors import Source
    from rules.evaluate import evaluate
    from rules.loader import load_policies
    from rules.operators import OPERATORS
    from rules.packtest import BUILTIN_DIR
    from rules.reader import Dump, KObject

    calls: list[tuple[str, str]] = []
    real = OPERATORS["admitsNode"].test

    def counted(pod: Any, node: Any) -> bool:
        calls.append((pod["metadata"]["name"], node["metadata"]["name"]))
        return bool(real(pod, node))

    monkeypatch.setitem(OPERATORS, "admitsNode", dataclasses.replace(OPERATORS["admitsNode"], test=counted))
    gpus = {"limits": {"nvidia.com/gpu": 1}}
    zero = [taint_node(f"pt-{i}", labels={"nvidia.com/gpu.present": "true"}) for i in range(3)]
    for n in zero:
        n["status"] = {"capacity": {"nvidia.com/gpu": "0"}, "allocatable": {"nvidia.com/gpu": "0"}}
    full = taint_node("c-0", labels={"nvidia.com/gpu.present": "true"})
    full["status"] = {"capacity": {"nvidia.com/gpu": "8"}, "allocatable": {"nvidia.com/gpu": "8"}}

    def pod(name: str, phase: str, **spec: Any) -> dict[str, Any]:
        return {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, "namespace": "ml"},
            "spec": {"containers": [{"name": "c", "resources": gpus}], **spec},
            "status": {"phase": phase},
        }

    running = [pod(f"run-{i}", "Running", nodeName="c-0") for i in range(40)]
    pending = [pod("wait-any", "Pending"), pod("wait-c-0", "Pending", nodeSelector={"kubernetes.io/hostname": "c-0"})]
    objects = [*zero, full, *running, *pending]
    dump = Dump(objects=[KObject(o, Source("d.json", 1, 1, i)) for i, o in enumerate(objects)])
    policies = load_policies([str(BUILTIN_DIR / "gpu-operator")]).select(["gpu-nodes"], ["awaited-resource-has-devices"], [])
    report = evaluate(dump, policies)
    assert sorted(calls) == sorted((p, n) for p in ("wait-any", "wait-c-0") for n in ("pt-0", "pt-1", "pt-2"))
    said = {o.ref.name: (r.result, r.message, r.observed) for o in report.objects for r in o.results}
    assert said["pt-1"][0] == "warn" and "pending pod(s) ml/wait-any ask for it" in said["pt-1"][1]
    assert said["pt-1"][2] == "ml/wait-any"  # named, not the pod written out (trial 84)
    assert said["c-0"][0] == "skip"
