"""kubectl describe node(s) text → Node and bound Pod objects (rules/describe.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from rules.describe import looks_like_describe, parse_describe_nodes
from rules.reader import parse_text

DATA = Path(__file__).parent / "data" / "describe"
LAB_DESCR = Path(__file__).parent / "data" / "must-gather" / "lab" / "gpu_nodes.descr"
FIXTURES = sorted(p.name for p in DATA.iterdir() if p.name != "SOURCES.md")


def read(name: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[tuple[dict, int]], list]:
    objects, errors = parse_describe_nodes((DATA / name).read_text(), name)
    nodes = [o for o, _ in objects if o["kind"] == "Node"]
    pods = [o for o, _ in objects if o["kind"] == "Pod"]
    return nodes, pods, objects, errors


def pod(pods: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return next(p for p in pods if p["metadata"]["name"] == name)


def resources(p: dict[str, Any]) -> dict[str, Any]:
    return p["spec"]["containers"][0]["resources"]


# --------------------------------------------------------------------------- every public fixture


@pytest.mark.parametrize("name", FIXTURES)
def test_every_fixture_is_detected_and_read_without_errors(name: str) -> None:
    text = (DATA / name).read_text()
    nodes, pods, objects, errors = read(name)
    assert looks_like_describe(text)
    assert errors == []
    assert nodes
    lines = text.splitlines()
    names = {n["metadata"]["name"] for n in nodes}
    for obj, line in objects:
        assert obj["metadata"]["annotations"]["verdict.dev/source"] == "kubectl-describe"
        if obj["kind"] == "Node":
            assert lines[line - 1].startswith("Name:")
        else:
            assert obj["spec"]["nodeName"] in names
            assert obj["status"]["phase"] == "Running"
            assert obj["metadata"]["name"] in lines[line - 1]


def test_openstack_node_without_gpu_resource_gpu_operator_209() -> None:
    nodes, pods, objects, _ = read("gpu-operator-209_openstack-gpu-node_no-gpu-resource.txt")
    (node,) = nodes
    assert node["metadata"]["name"] == "training-gpu-worker-x2k7d4qj5mza-node-0"
    assert objects[0][1] == 2  # line 1 is the `root@bastion:~#` prompt
    labels = node["metadata"]["labels"]
    assert labels["failure-domain.beta.kubernetes.io/zone"] == "ceph"
    assert labels["feature.node.kubernetes.io/pci-10de.present"] == "true"
    assert labels["feature.node.kubernetes.io/cpu-cpuid.AVX512VNNI"] == "true"
    assert "nvidia.com/gpu.present" not in labels
    assert node["status"]["allocatable"] == {
        "cpu": "4",
        "ephemeral-storage": "38634891201",
        "hugepages-1Gi": "0",
        "hugepages-2Mi": "0",
        "memory": "32781292Ki",
        "pods": "110",
    }
    assert "taints" not in node["spec"] and "unschedulable" not in node["spec"]
    assert node["spec"]["providerID"] == "openstack:///3f9d2b71-6a0c-4e5d-9b18-c27e4a6f0d53"
    assert node["spec"]["podCIDRs"] == ["10.100.5.0/24"]
    assert node["status"]["nodeInfo"]["osImage"] == "Fedora CoreOS 32.20200809.3.0"
    assert node["status"]["nodeInfo"]["kubeletVersion"] == "v1.15.7"
    assert node["metadata"]["annotations"]["nfd.node.kubernetes.io/extended-resources"] == ""
    assert node["metadata"]["annotations"]["flannel.alpha.coreos.com/backend-data"] == '{"VtepMAC":"7a:3e:91:5c:0d:b2"}'
    assert len(pods) == 3
    assert resources(pod(pods, "kube-flannel-ds-nblzb")) == {
        "requests": {"cpu": "100m", "memory": "50Mi"},
        "limits": {"cpu": "100m", "memory": "50Mi"},
    }
    assert resources(pod(pods, "csi-cinder-nodeplugin-q7fjx")) == {}
    assert pod(pods, "csi-cinder-nodeplugin-q7fjx")["metadata"]["namespace"] == "kube-system"


def test_tainted_kind_node_pasted_in_markdown_k8s_device_plugin_421() -> None:
    nodes, pods, objects, _ = read("k8s-device-plugin-421_kind-node_tainted_prompt-in-fences.md")
    (node,) = nodes
    assert node["metadata"]["name"] == "kind-control-plane"
    assert objects[0][1] == 5  # sentence, blank, fence, prompt, then Name:
    assert node["spec"]["taints"] == [{"key": "gpu", "effect": "NoSchedule"}]
    assert node["metadata"]["labels"]["gpu"] == "installed"
    assert node["metadata"]["labels"]["node-role.kubernetes.io/control-plane"] == ""
    assert node["metadata"]["creationTimestamp"] == "2023-07-05T06:12:02Z"
    assert "nvidia.com/gpu" not in node["status"]["capacity"]
    assert node["status"]["capacity"]["cpu"] == "16"
    memory = next(c for c in node["status"]["conditions"] if c["type"] == "MemoryPressure")
    assert memory == {
        "type": "MemoryPressure",
        "status": "False",
        "lastHeartbeatTime": "2023-07-05T06:51:56Z",
        "lastTransitionTime": "2023-07-05T06:11:58Z",
        "reason": "KubeletHasSufficientMemory",
        "message": "kubelet has sufficient memory available",
    }
    assert node["status"]["addresses"] == [
        {"type": "InternalIP", "address": "172.18.0.2"},
        {"type": "Hostname", "address": "kind-control-plane"},
    ]
    assert len(pods) == 9
    assert resources(pod(pods, "coredns-5d78c9869d-6w8xn")) == {
        "requests": {"cpu": "100m", "memory": "70Mi"},
        "limits": {"memory": "170Mi"},
    }
    assert pod(pods, "local-path-provisioner-6bc4bddd6b-8dkqf")["metadata"]["namespace"] == "local-path-storage"


def test_kubevirt_vgpu_node_kubevirt_11135() -> None:
    nodes, pods, _, _ = read("kubevirt-11135_vgpu-node_grid-p40-1q.txt")
    (node,) = nodes
    assert node["metadata"]["name"] == "vgpu-node-1"
    assert node["metadata"]["labels"]["kubevirt.io/schedulable"] == "true"
    status = node["status"]
    assert status["allocatable"]["nvidia.com/GRID_P40-1Q"] == "1"
    assert status["allocatable"]["devices.kubevirt.io/kvm"] == "1k"
    assert status["capacity"]["ephemeral-storage"] == "236103552Ki"
    assert status["allocatable"]["ephemeral-storage"] == "217593033163"
    assert status["nodeInfo"]["kernelVersion"] == "5.15.0-92-generic"
    network = status["conditions"][0]
    assert (network["type"], network["status"], network["reason"]) == ("NetworkUnavailable", "False", "FlannelIsUp")
    assert len(pods) == 4
    assert resources(pod(pods, "virt-launcher-vmi-vgpu-p4mzq"))["requests"] == {"cpu": "100m", "memory": "2294Mi"}


def test_passthrough_node_with_zero_devices_kubevirt_gpu_device_plugin_20() -> None:
    nodes, pods, objects, _ = read("kubevirt-gpu-device-plugin-20_passthrough-node_a100-zero-devices.txt")
    (node,) = nodes
    assert node["metadata"]["name"] == "node003"
    assert objects[0][1] == 2  # after the `[root@node003 ~]#` prompt
    assert node["status"]["capacity"]["nvidia.com/GA100_A100_SXM4_40GB"] == "0"
    assert node["status"]["allocatable"]["nvidia.com/GA100_A100_SXM4_40GB"] == "0"
    assert node["status"]["allocatable"]["devices.kubevirt.io/vhost-net"] == "110"
    assert node["status"]["allocatable"]["cpu"] == "96"
    assert node["metadata"]["labels"]["node-role.kubernetes.io/master"] == ""
    assert len(pods) == 14
    assert resources(pod(pods, "kube-apiserver-node003")) == {"requests": {"cpu": "250m"}}
    assert resources(pod(pods, "virt-handler-x4m2z"))["requests"] == {"cpu": "10m", "memory": "325Mi"}


def test_old_kubectl_layout_capacity_above_allocatable_k8s_device_plugin_58() -> None:
    nodes, pods, _, _ = read("k8s-device-plugin-58_kubectl-1.10_capacity-16-allocatable-0.txt")
    (node,) = nodes
    assert node["metadata"]["name"] == "gpu-worker-16"
    assert node["status"]["capacity"]["nvidia.com/gpu"] == "16"
    assert node["status"]["allocatable"]["nvidia.com/gpu"] == "0"
    assert node["status"]["capacity"]["ephemeral-storage"] == "10190100Ki"
    assert node["status"]["allocatable"]["memory"] == "263412492Ki"
    assert node["status"]["nodeInfo"]["kubeletVersion"] == "v1.10.2"
    assert node["status"]["conditions"][0]["type"] == "OutOfDisk"
    assert node["spec"] == {"podCIDR": "10.244.3.0/24"}
    assert len(pods) == 4  # rows without the Age column
    assert resources(pod(pods, "jupyter-cpu-7c9f6d8b5-x2kqp")) == {
        "requests": {"cpu": "2", "memory": "8Gi"},
        "limits": {"cpu": "4", "memory": "8Gi"},
    }


def test_time_sliced_eks_node_gpu_operator_684() -> None:
    nodes, pods, _, _ = read("gpu-operator-684_eks-time-slicing_gpu-12.txt")
    (node,) = nodes
    assert node["metadata"]["name"] == "ip-10-0-12-2.ec2.internal"
    labels = node["metadata"]["labels"]
    assert labels["nvidia.com/gpu.replicas"] == "12"
    assert labels["nvidia.com/gpu.product"] == "Tesla-T4-SHARED"
    assert labels["nvidia.com/gpu.deploy.device-plugin"] == "true"
    assert node["status"]["capacity"]["nvidia.com/gpu"] == "12"
    assert node["status"]["allocatable"]["nvidia.com/gpu"] == "12"
    assert node["status"]["allocatable"]["cpu"] == "7910m"
    assert node["status"]["allocatable"]["pods"] == "29"
    assert [a["type"] for a in node["status"]["addresses"]] == ["InternalIP", "InternalDNS", "Hostname"]
    assert node["metadata"]["annotations"]["nvidia.com/gpu-driver-upgrade-enabled"] == "true"
    assert len(pods) == 14
    assert resources(pod(pods, "triton-server-5d8f7c9b6-2lqvx")) == {
        "requests": {"memory": "2540Mi"},
        "limits": {"memory": "2540Mi"},
    }
    assert resources(pod(pods, "kube-proxy-tx9vr")) == {"requests": {"cpu": "100m"}}


def test_allocated_requests_are_kept_on_the_node() -> None:
    """kubectl's sum of the node's pod requests (Allocated resources), zeros left out; a row whose limits column
    the paste lost keeps its requests (this fixture's nvidia.com/gpu row)."""
    (node,), _, _, _ = read("gpu-operator-684_eks-time-slicing_gpu-12.txt")
    assert json.loads(node["metadata"]["annotations"]["verdict.dev/allocated-requests"]) == {
        "cpu": "250m",
        "memory": "10310Mi",
        "nvidia.com/gpu": "4",
    }
    (vgpu,), _, _, _ = read("kubevirt-11135_vgpu-node_grid-p40-1q.txt")
    assert json.loads(vgpu["metadata"]["annotations"]["verdict.dev/allocated-requests"])["nvidia.com/GRID_P40-1Q"] == "1"
    # kubectl 1.10 printed one row of four columns and no resource names: nothing is taken from it
    (old,), _, _, _ = read("k8s-device-plugin-58_kubectl-1.10_capacity-16-allocatable-0.txt")
    assert "verdict.dev/allocated-requests" not in old["metadata"]["annotations"]


def test_a_node_whose_pods_table_is_read_whole_is_marked_so() -> None:
    """Trial 212: pods rebuilt from describe text are evidence of what runs on the node described, and of nothing on
    another; a node's own table, whole (its rows as many as its "(N in total)"), lists every pod on it. The Node says
    so (verdict.dev/pods-listed), and only then: no table, a table cut short, or rows fewer than its count."""
    head = "Name:               n1\nLabels:             a=b\nCapacity:\n  cpu:  64\nAllocatable:\n  cpu:  64\n"
    table = (
        "Non-terminated Pods:          (2 in total)\n"
        "  Namespace                   Name            CPU Requests  CPU Limits  Memory Requests  Memory Limits  Age\n"
        "  ---------                   ----            ------------  ----------  ---------------  -------------  ---\n"
        "  vms                         virt-launcher-a 100m (0%)     0 (0%)      4Gi (0%)         0 (0%)         3d\n"
    )
    last = "  kube-system                 kube-proxy-7h2kq 0 (0%)       0 (0%)      0 (0%)           0 (0%)         31d\n"
    after = "Allocated resources:\n  Resource  Requests  Limits\n  --------  --------  ------\nEvents:  <none>\n"

    def listed(text: str) -> str | None:
        (node, _), *_ = parse_describe_nodes(text, "n.txt")[0]
        return node["metadata"]["annotations"].get("verdict.dev/pods-listed")

    assert listed(head + table + last + after) == "true"
    assert listed(head + after) is None  # no table
    assert listed(head + table + after) is None  # one row of two
    empty = (
        "Non-terminated Pods:          (0 in total)\n"
        "  Namespace  Name  CPU Requests  CPU Limits  Memory Requests  Memory Limits  Age\n"
        "  ---------  ----  ------------  ----------  ---------------  -------------  ---\n"
    )
    assert listed(head + empty + after) == "true"


def test_an_allocated_row_that_may_be_cut_is_not_read() -> None:
    """Review: a paste ending in "  cpu  25" (cut from "250m (3%)") made a floor of 25 CPUs: a row of a resource
    kubectl prints with its share of allocatable is read only with it, and the text's last line not at all."""
    head = "Name:               n1\nLabels:             a=b\nCapacity:\n  cpu:  64\nAllocatable:\n  cpu:  64\n"
    section = "Allocated resources:\n  Resource           Requests     Limits\n  --------           --------     ------\n"
    for rows, kept in (
        (
            "  cpu                250m (3%)    0 (0%)\n  nvidia.com/gpu     4            4\nEvents:  <none>\n",
            {"cpu": "250m", "nvidia.com/gpu": "4"},
        ),
        ("  nvidia.com/gpu     4            4\n  cpu                25", {"nvidia.com/gpu": "4"}),
        ("  cpu                25\n  nvidia.com/gpu     4            4\nEvents:  <none>\n", {"nvidia.com/gpu": "4"}),
        ("  cpu                250m (3%)    0 (0%)\n  nvidia.com/gpu     4", {"cpu": "250m"}),
    ):
        (node, _), *_ = parse_describe_nodes(head + section + rows, "n.txt")[0]
        assert json.loads(node["metadata"]["annotations"]["verdict.dev/allocated-requests"]) == kept, rows


def test_oc_describe_nodes_with_two_nodes_gpu_operator_371_331() -> None:
    nodes, pods, objects, _ = read("gpu-operator-371-331_openshift_describe-nodes-two-nodes.txt")
    assert [n["metadata"]["name"] for n in nodes] == ["ip-10-0-47-77.ec2.internal", "ip-10-0-61-177.ec2.internal"]
    gpu, worker = nodes
    assert gpu["metadata"]["labels"]["node.kubernetes.io/instance-type"] == "p3.2xlarge"
    assert gpu["metadata"]["labels"]["example.com/dedicated"] == "true"
    assert gpu["metadata"]["labels"]["feature.node.kubernetes.io/pci-10de.present"] == "true"
    assert "taints" not in gpu["spec"]
    assert "nvidia.com/gpu" not in gpu["status"]["allocatable"]
    assert worker["status"]["capacity"]["attachable-volumes-aws-ebs"] == "25"
    assert worker["status"]["allocatable"]["cpu"] == "7500m"
    assert worker["status"]["allocatable"]["pods"] == "250"
    assert worker["metadata"]["annotations"]["machineconfiguration.openshift.io/reason"] == ""
    assert worker["metadata"]["annotations"]["machineconfiguration.openshift.io/state"] == "Done"
    assert [p["spec"]["nodeName"] for p in pods].count(worker["metadata"]["name"]) == 10
    operator = pod(pods, "gpu-operator-566644fc46-2znxj")
    assert operator["spec"]["nodeName"] == "ip-10-0-61-177.ec2.internal"
    assert resources(operator) == {"requests": {"cpu": "200m", "memory": "200Mi"}, "limits": {"cpu": "500m", "memory": "350Mi"}}
    starts = [line for obj, line in objects if obj["kind"] == "Node"]
    assert starts[0] == 2 and starts[1] > starts[0]


def test_vgpu_node_with_stale_zero_resources_kubevirt_gpu_device_plugin_82() -> None:
    nodes, pods, _, _ = read("kubevirt-gpu-device-plugin-82_vgpu-node_a10-8q-and-stale-zeros.txt")
    (node,) = nodes
    assert node["metadata"]["name"] == "vgpu-server-2"
    assert node["metadata"]["labels"]["nvidia.com/gpu.workload.config"] == "vm-vgpu"
    assert node["metadata"]["labels"]["nvidia.com/vgpu.config"] == "A10-8Q"
    allocatable = node["status"]["allocatable"]
    assert allocatable["nvidia.com/NVIDIA_A10-8Q"] == "6"
    assert {
        k: allocatable[k] for k in ("nvidia.com/gpu", "nvidia.com/GA102GL_A10", "nvidia.com/A10-12Q", "nvidia.com/NVIDIA_A10-12Q")
    } == dict.fromkeys(("nvidia.com/gpu", "nvidia.com/GA102GL_A10", "nvidia.com/A10-12Q", "nvidia.com/NVIDIA_A10-12Q"), "0")
    assert len(pods) == 8
    assert pod(pods, "nvidia-sandbox-device-plugin-daemonset-zxjj8")["metadata"]["namespace"] == "gpu-operator"


def test_lab_must_gather_describe_nodes() -> None:
    objects, errors = parse_describe_nodes(LAB_DESCR.read_text(), "gpu_nodes.descr")
    assert errors == []
    nodes = {o["metadata"]["name"]: o for o, _ in objects if o["kind"] == "Node"}
    assert list(nodes) == ["gpu-broken-1", "gpu-container-1", "gpu-passthrough-1", "gpu-vgpu-1"]
    broken = nodes["gpu-broken-1"]
    assert broken["spec"]["unschedulable"] is True
    assert broken["spec"]["taints"] == [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]
    assert nodes["gpu-passthrough-1"]["spec"]["taints"] == [{"key": "dedicated", "value": "vm-workloads", "effect": "NoSchedule"}]
    feature_labels = nodes["gpu-vgpu-1"]["metadata"]["annotations"]["nfd.node.kubernetes.io/feature-labels"]
    assert feature_labels.endswith(",kern...") and len(feature_labels) == 141  # kubectl's shortening, kept


# --------------------------------------------------------------------------- prompts and fences

BODY = """Name:               gpu-a
Roles:              <none>
Labels:             kubernetes.io/hostname=gpu-a
Annotations:        <none>
CreationTimestamp:  Mon, 03 Feb 2025 10:00:00 +0100
Taints:             <none>
Unschedulable:      false
Capacity:
  nvidia.com/gpu:  8
Allocatable:
  nvidia.com/gpu:  8
Events:             <none>
"""


@pytest.mark.parametrize(
    "head,tail",
    [
        ("$ kubectl describe node gpu-a\n", ""),
        ("# kubectl describe nodes\n", ""),
        ("[admin@bastion ~]$ kubectl describe no gpu-a\n", ""),
        ("admin@bastion:~$ oc describe node gpu-a\n", ""),
        ("```\n", "```\n"),
        ("```console\n$ kubectl describe node gpu-a\n", "```\n"),
        ("Here is the node:\n\n```text\n$ sudo kubectl describe node gpu-a\n", "```\nThanks!\n"),
        ("", ""),
    ],
)
def test_prompt_lines_and_fences_are_stripped(head: str, tail: str) -> None:
    text = head + BODY + tail
    assert looks_like_describe(text)
    objects, errors = parse_describe_nodes(text, "paste.txt")
    assert errors == []
    ((node, line),) = objects
    assert line == head.count("\n") + 1
    assert node["metadata"]["name"] == "gpu-a"
    assert node["status"]["allocatable"] == {"nvidia.com/gpu": "8"}
    assert node["metadata"]["creationTimestamp"] == "2025-02-03T09:00:00Z"


def test_indented_paste_is_dedented() -> None:
    text = "".join("    " + line if line else line for line in BODY.splitlines(keepends=True))
    objects, errors = parse_describe_nodes(text, "paste.txt")
    assert errors == []
    assert objects[0][0]["status"]["capacity"] == {"nvidia.com/gpu": "8"}


@pytest.mark.parametrize(
    "text",
    [
        "",
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: gpu-a\n",
        '{"apiVersion": "v1", "kind": "Node"}',
        "Name:         cuda-pod\nNamespace:    default\nLabels:       <none>\nStatus:       Pending\n",
        "Name: gpu-a\nsome notes about a node\n",
        "Some text first\nName:               gpu-a\nRoles:  <none>\nLabels:  a=b\n",
    ],
)
def test_not_describe_node_text(text: str) -> None:
    assert not looks_like_describe(text)


# --------------------------------------------------------------------------- unreadable nodes


def three_nodes(middle_capacity: str) -> str:
    def node(name: str, capacity: str) -> str:
        return BODY.replace("gpu-a", name).replace("  nvidia.com/gpu:  8\nAllocatable:", capacity + "\nAllocatable:")

    return (
        node("gpu-a", "  nvidia.com/gpu:  8")
        + "\n\n"
        + node("gpu-b", middle_capacity)
        + "\n\n"
        + node("gpu-c", "  nvidia.com/gpu:  8")
    )


def test_garbled_capacity_drops_that_node_only() -> None:
    text = three_nodes("  nvidia.com/gpu:  two")
    objects, errors = parse_describe_nodes(text, "nodes.txt")
    assert [o["metadata"]["name"] for o, _ in objects] == ["gpu-a", "gpu-c"]
    (error,) = errors
    bad_line = text.splitlines().index("  nvidia.com/gpu:  two") + 1
    # (trial 158: "document 2" beside objects of the same text said as document 1: a text is one document)
    assert (error.source.file, error.source.document, error.source.line) == ("nodes.txt", 1, bad_line)
    assert error.path == "$.status.capacity"
    assert "nvidia.com/gpu:  two" in error.reason


def test_capacity_line_without_colon_is_unreadable() -> None:
    objects, errors = parse_describe_nodes(three_nodes("  nvidia.com/gpu 8"), "nodes.txt")
    assert [o["metadata"]["name"] for o, _ in objects] == ["gpu-a", "gpu-c"]
    assert (errors[0].source.document, errors[0].source.line) == (
        1,
        three_nodes("  nvidia.com/gpu 8").splitlines().index("  nvidia.com/gpu 8") + 1,
    )


def test_a_paste_cut_inside_a_capacity_line_says_so() -> None:
    """Trial 88: a paste ending in "  nvidia.com/GH100_H1" read as a Capacity line that is not 'resource: quantity';
    the other cut-offs say the text ends there (cut short?)."""
    text = "Name:               n1\nLabels:             a=b\nCapacity:\n  cpu:                64\n  nvidia.com/GH100_H1"
    objects, (error,) = parse_describe_nodes(text, "cut.txt")
    assert objects == []
    assert (error.source.line, error.path) == (5, "$.status.capacity")
    assert error.reason == "node n1 is not judged: the text ends inside its Capacity, in line 'nvidia.com/GH100_H1' (cut short?)"
    # the same line inside the text is a bad line, not a cut
    objects, (error,) = parse_describe_nodes(three_nodes("  nvidia.com/GH100_H1"), "nodes.txt")
    assert error.reason == "node gpu-b is not judged: Capacity line 'nvidia.com/GH100_H1' is not 'resource: quantity'"


def test_node_without_name_line_is_an_error_and_the_next_node_still_parses() -> None:
    text = BODY.replace("Name:               gpu-a\n", "") + "\n\n" + BODY.replace("gpu-a", "gpu-b")
    objects, errors = parse_describe_nodes(text, "nodes.txt")
    assert [o["metadata"]["name"] for o, _ in objects] == ["gpu-b"]
    (error,) = errors
    assert (error.source.document, error.source.line) == (1, 1)
    assert "Name:" in error.reason


def test_cut_paste_starting_mid_node_is_reported() -> None:
    text = "...\nAddresses:\n  InternalIP:  10.0.3.106\nCapacity:\n  cpu:  40\n\n" + BODY
    objects, errors = parse_describe_nodes(text, "nodes.txt")
    assert [o["metadata"]["name"] for o, _ in objects] == ["gpu-a"]
    (error,) = errors  # the "..." line is commentary; the cut node starts at Addresses:
    assert (error.source.document, error.source.line) == (1, 2)


@pytest.mark.parametrize(
    "broken,path",
    [
        ("Taints:             gpu:NoScheduled", "$.spec.taints"),
        ("Labels:             kubernetes.io/hostname gpu-a", "$.metadata.labels"),
        ("Unschedulable:      maybe", "$.spec.unschedulable"),
    ],
)
def test_unreadable_labels_taints_or_unschedulable_drop_the_node(broken: str, path: str) -> None:
    key = broken.split(":")[0]
    lines = [broken if line.startswith(key + ":") else line for line in BODY.splitlines()]
    objects, errors = parse_describe_nodes("\n".join(lines), "n.txt")
    assert objects == []
    assert errors[0].path == path
    assert errors[0].source.line == lines.index(broken) + 1


def test_taint_forms() -> None:
    text = BODY.replace(
        "Taints:             <none>\n",
        "Taints:             nvidia.com/gpu=present:NoSchedule\n"
        "                    node.kubernetes.io/unschedulable:NoSchedule\n"
        "                    dedicated=vm:PreferNoSchedule\n",
    )
    text = text.replace("Unschedulable:      false", "Unschedulable:      true")
    ((node, _),), errors = parse_describe_nodes(text, "n.txt")
    assert errors == []
    assert node["spec"]["taints"] == [
        {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"},
        {"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"},
        {"key": "dedicated", "value": "vm", "effect": "PreferNoSchedule"},
    ]
    assert node["spec"]["unschedulable"] is True


def test_annotation_forms() -> None:
    text = BODY.replace(
        "Annotations:        <none>\n",
        (
            'Annotations:        csi.volume.kubernetes.io/nodeid: {"ebs.csi.aws.com":"i-0a1"}\n'
            "                    k3s.io/node-env:\n"
            '                      {"K3S_DATA_DIR":"/var/lib/rancher/k3s/data/3dfc","K3S_U...\n'
            "                    nfd.node.kubernetes.io/extended-resources: \n"
            "                    note.example.com/multi:\n"
            "                      line one\n"
            "                      line two\n"
            "                    node.alpha.kubernetes.io/ttl=0\n"
        ),
    )
    ((node, _),), errors = parse_describe_nodes(text, "n.txt")
    assert errors == []
    assert node["metadata"]["annotations"] == {
        "csi.volume.kubernetes.io/nodeid": '{"ebs.csi.aws.com":"i-0a1"}',
        "k3s.io/node-env": '{"K3S_DATA_DIR":"/var/lib/rancher/k3s/data/3dfc","K3S_U...',
        "nfd.node.kubernetes.io/extended-resources": "",
        "note.example.com/multi": "line one\nline two",
        "node.alpha.kubernetes.io/ttl": "0",
        "verdict.dev/source": "kubectl-describe",
    }


POD_TABLE = """Non-terminated Pods:          (2 in total)
  Namespace                   Name                 CPU Requests  CPU Limits  Memory Requests  Memory Limits  Age
  ---------                   ----                 ------------  ----------  ---------------  -------------  ---
  ml                          trainer-0            7910m (100%)  0 (0%)      1536Mi (5%)      2Gi (6%)       32m
{second}
Events:                       <none>
"""


def test_unreadable_pod_row_is_reported_and_the_node_kept() -> None:
    text = BODY.replace(
        "Events:             <none>\n", POD_TABLE.format(second="  kube-system                 kube-proxy-mhrtm     broken row")
    )
    objects, errors = parse_describe_nodes(text, "n.txt")
    assert [o["kind"] for o, _ in objects] == ["Node", "Pod"]
    trainer = objects[1][0]
    assert trainer["spec"]["containers"][0] == {
        "name": "pod-totals",
        "resources": {"requests": {"cpu": "7910m", "memory": "1536Mi"}, "limits": {"memory": "2Gi"}},
    }
    (error,) = errors
    assert error.source.line == text.splitlines().index("  kube-system                 kube-proxy-mhrtm     broken row") + 1
    assert "kube-proxy-mhrtm" in error.reason


def test_pod_table_shorter_than_its_total_is_reported() -> None:
    text = BODY.replace("Events:             <none>\n", POD_TABLE.format(second="  ..."))
    text = text.replace("  ...\n", "")
    objects, errors = parse_describe_nodes(text, "n.txt")
    assert len(objects) == 2
    (error,) = errors
    assert "lists 2 non-terminated pods but 1 rows" in error.reason
    assert error.source.line == text.splitlines().index("Non-terminated Pods:          (2 in total)") + 1


def test_never_raises_on_junk() -> None:
    for junk in ["Name:", "Name:\n\n\nName:", "Name: x\nCapacity:\n  :\n", "Labels:\nTaints:\n", "\x00\ufeffName: a"]:
        objects, errors = parse_describe_nodes(junk, "junk")
        assert isinstance(objects, list) and isinstance(errors, list)


def test_a_node_cut_before_its_capacity_is_an_input_error_not_a_node_without_gpus() -> None:
    """Regression (an adversarial trial): `head -n 95` of the lab's describe text cut the second node before
    Capacity, and it was judged as a clean node: "skip: the node has no NVIDIA GPU", no input error."""
    text = "\n".join((Path(__file__).parent / "data" / "lab" / "nodes.describe.txt").read_text().split("\n")[:95])
    objects, errors = parse_describe_nodes(text, "cut.txt")
    assert [o["metadata"]["name"] for o, _ in objects if o["kind"] == "Node"] == ["lab-cpu-1"]
    [err] = errors
    assert (err.source.document, err.source.line, err.path) == (1, 95, "$.status")
    assert err.reason == "node lab-container-1 is not judged: the text ends before its Capacity and Allocatable (cut short?)"
    # whole, it is read
    whole, none = parse_describe_nodes((Path(__file__).parent / "data" / "lab" / "nodes.describe.txt").read_text(), "all.txt")
    assert none == [] and "lab-container-1" in [o["metadata"]["name"] for o, _ in whole]


def test_a_node_cut_inside_capacity_is_an_input_error() -> None:
    """Regression (a new user's trial): `head -n 56` of a vGPU node's describe text ended inside Capacity: what it
    lists is not whole either, so the node is not judged (said first: a chat answer cuts the line, trial 124)."""
    text = "\n".join((DATA / "kubevirt-gpu-device-plugin-82_vgpu-node_a10-8q-and-stale-zeros.txt").read_text().split("\n")[:56])
    objects, errors = parse_describe_nodes(text, "cut.txt")
    assert objects == []
    assert [(e.source.line, e.path, e.reason) for e in errors] == [
        (
            56,
            "$.status.allocatable",
            "node vgpu-server-2 is not judged: the text ends inside its Capacity, before Allocatable (cut short?): no"
            " allocatable for cpu, devices.kubevirt.io/kvm, devices.kubevirt.io/tun and 4 more, which Capacity lists",
        )
    ]


def test_a_node_cut_inside_allocatable_is_judged_on_its_capacity_and_said() -> None:
    """A new user's trial: `head -n 70` of a vGPU node's describe text ended inside Allocatable, and the node was
    judged and failed twice ("allocatable [], less than its capacity") on resources the cut removed; then it was not
    judged at all, and trial 124's container node whose Capacity lists nvidia.com/GA102GL_A10, cut there, was
    dropped with its fault ("0 fail"). Capacity is whole where Allocatable follows it: what Allocatable lacks, and its
    last line (the cut may have shortened it), take Capacity's count, and the input error says so first."""
    text = "\n".join((DATA / "kubevirt-gpu-device-plugin-82_vgpu-node_a10-8q-and-stale-zeros.txt").read_text().split("\n")[:70])
    objects, errors = parse_describe_nodes(text, "cut.txt")
    [(node, _)] = objects
    assert node["status"]["allocatable"]["nvidia.com/NVIDIA_A10-8Q"] == "6"
    assert node["status"]["allocatable"]["ephemeral-storage"] == "189217404206"  # as read
    assert [(e.source.line, e.path, e.reason) for e in errors] == [
        (
            70,
            "$.status.allocatable",
            "node vgpu-server-2 is judged with Capacity's count as its allocatable hugepages-2Mi, memory,"
            " nvidia.com/A10-12Q and 5 more: the text ends inside its Allocatable (cut short?); a device plugin's"
            " resource is allocatable for its healthy devices only, which the text does not show, and what kubectl"
            " prints after Allocatable (the node's pods, Allocated resources, Events) is not known",
        )
    ]
    # its last line cut inside a number ("nvidia.com/gpu: 1" of 16) is not taken as read
    head = "Name:  gpu-c-2\nLabels:  a=b\nCapacity:\n  cpu:  64\n  nvidia.com/gpu:  16\n  pods:  110\n"
    objects, errors = parse_describe_nodes(head + "Allocatable:\n  cpu:  63500m\n  nvidia.com/gpu:  1", "cut.txt")
    assert objects[0][0]["status"]["allocatable"] == {"cpu": "63500m", "nvidia.com/gpu": "16", "pods": "110"}
    assert errors[0].reason.startswith("node gpu-c-2 is judged with Capacity's count as its allocatable nvidia.com/gpu, pods:")
    # nor one cut inside its name
    objects, errors = parse_describe_nodes(head + "Allocatable:\n  cpu:  63500m\n  nvidia.com/gp", "cut.txt")
    assert objects[0][0]["status"]["allocatable"] == {"cpu": "63500m", "nvidia.com/gpu": "16", "pods": "110"}


def test_a_container_node_cut_inside_allocatable_is_caught_by_what_its_capacity_lists() -> None:
    """Trial 124: a container-labelled node whose Capacity lists nvidia.com/GA102GL_A10, the paste cut inside its
    Allocatable, was not judged ("0 fail"): it fails resource-class-matches-workload, beside the input error."""
    from rules.evaluate import evaluate
    from rules.loader import load_policies
    from rules.reader import parse_text

    text = (
        "Name:               gpu-c-2\nRoles:              <none>\n"
        "Labels:             nvidia.com/gpu.present=true\n                    nvidia.com/gpu.workload.config=container\n"
        "Taints:             <none>\nCapacity:\n  cpu:                     64\n  nvidia.com/GA102GL_A10:  4\n"
        "  pods:                    110\nAllocatable:\n  cpu:                     63500m\n  nvidia.com/GA102GL_A1"
    )
    report = evaluate(parse_text(text, "paste.txt"), load_policies())
    found = {(r.rule, r.result) for o in report.objects for r in o.results if r.result in ("fail", "warn")}
    assert ("resource-class-matches-workload", "fail") in found
    assert [e.reason.split(":")[0] for e in report.input_errors] == [
        "node gpu-c-2 is judged with Capacity's count as its allocatable nvidia.com/GA102GL_A10, pods"
    ]


def test_a_node_cut_inside_its_system_info_is_judged_and_said_without_its_pods() -> None:
    """Trial 124: a paste that ended inside the third node's System Info judged the node (right) without a word that
    its pods (Non-terminated Pods), Allocated resources and Events were cut off. Said, as an input error that kept
    Pods out; a whole node block, or one that ends in its pods' table, gets none."""
    head = (
        "Name:  gpu-c-2\nLabels:  nvidia.com/gpu.present=true\nCapacity:\n  cpu:  64\n  nvidia.com/gpu:  4\n"
        "Allocatable:\n  cpu:  63500m\n  nvidia.com/gpu:  4\nSystem Info:\n  Machine ID:  3b0c2f7d\n  Kernel V"
    )
    objects, errors = parse_describe_nodes(head, "cut.txt")
    assert [o["kind"] for o, _ in objects] == ["Node"]
    [err] = errors
    assert (err.source.line, err.path, err.kind, err.lost) == (11, "$.status.nodeInfo", "Pod", True)
    assert err.reason == (
        "node gpu-c-2 is judged without its pods: the text ends after its System Info, before Non-terminated Pods,"
        " Allocated resources and Events (cut short?); paste the whole kubectl describe node output to judge what runs"
        " there"
    )
    # trial 131: what kubectl prints for a user who may not list pods, without events (--show-events=false), is whole,
    # and says the pods were withheld, how many not known; the text cut inside that very line is cut
    authorized = head + "ersion:  5.15.0\nPodCIDR:  10.0.0.0/24\nPods:  not authorized\n"
    [err] = parse_describe_nodes(authorized, "rbac.txt")[1]
    assert (err.source.line, err.path, err.kind, err.count, err.lost) == (13, "", "Pod", None, True)
    assert err.reason == (
        'node gpu-c-2 is judged without its pods: kubectl printed "Pods: not authorized" in place of its pods (whoever'
        " ran kubectl describe node may not list pods), so what runs there is not in the dump; describe it as a user"
        " who may"
    )
    [err] = parse_describe_nodes(authorized[: -len("orized\n")], "rbac.txt")[1]
    assert (err.source.line, err.kind, err.count) == (13, "Pod", None)
    assert err.reason == (
        "node gpu-c-2 is judged without its pods: the text ends inside its line 'Pods: not auth' (cut short?); paste the"
        " whole kubectl describe node output"
    )
    # with Events after it, still withheld
    [err] = parse_describe_nodes(authorized + "Events:  <none>\n", "rbac.txt")[1]
    assert (err.source.line, err.reason.startswith('node gpu-c-2 is judged without its pods: kubectl printed "Pods: not')) == (
        13,
        True,
    )
    rest = "ersion:  5.15.0\nNon-terminated Pods:  (0 in total)\n  Namespace  Name  CPU Requests\nEvents:  <none>\n"
    assert parse_describe_nodes(head + rest, "whole.txt")[1] == []


def test_a_paste_cut_inside_the_pods_table_says_so() -> None:
    """Trial 124: a paste cut inside a node's Non-terminated Pods said only "pod row '...' is not readable", not that the
    text ends there; a row that cannot be read inside a whole table is still said to be unreadable. Either keeps a Pod
    out, and says so by its kind."""
    head = (
        "Name:  gpu-1\nCapacity:\n  nvidia.com/gpu:  1\nAllocatable:\n  nvidia.com/gpu:  1\n"
        "Non-terminated Pods:  (2 in total)\n  Namespace  Name  CPU Requests  CPU Limits  Memory Requests  Memory Limits  Age\n"
        "  ---------  ----  ------------  ----------  ---------------  -------------  ---\n"
        "  ml  train-0  0 (0%)  0 (0%)  0 (0%)  0 (0%)  3d\n"
    )
    objects, errors = parse_describe_nodes(head + "  gpu-operator  nvidia-san", "cut.txt")
    assert [o["metadata"]["name"] for o, _ in objects] == ["gpu-1", "train-0"]
    [err] = errors
    # the table says 2 in total and 1 was read: 1 kept out (trial 131: "an unknown number" only where none says)
    assert (err.source.line, err.kind, err.count) == (10, "Pod", 1)
    assert err.reason == (
        "node gpu-1 is judged without the pods from row 'gpu-operator  nvidia-san' on: the text ends inside its"
        " Non-terminated Pods, in that row (cut short?)"
    )
    whole = head + "  gpu-operator  nvidia-san\n  ml  train-1  0 (0%)  0 (0%)  0 (0%)  0 (0%)  3d\nEvents:  <none>\n"
    [err] = parse_describe_nodes(whole, "whole.txt")[1]
    assert (err.reason, err.kind, err.count) == ("pod row 'gpu-operator  nvidia-san' of node gpu-1 is not readable", "Pod", 1)
    # a table that says no total: how many is not known
    untold = head.replace("(2 in total)", "") + "  gpu-operator  nvidia-san"
    assert parse_describe_nodes(untold, "cut.txt")[1][0].count is None
    # trial 137: cut at a row's end, the rows missing are Pods kept out; cut inside the table's own line, an unknown
    # number (it was read as whole)
    [err] = parse_describe_nodes(head, "cut.txt")[1]
    assert (err.reason, err.kind, err.count) == (
        "node gpu-1 lists 2 non-terminated pods but 1 rows were found (the text is cut?)",
        "Pod",
        1,
    )
    inside = head.split("Non-terminated Pods:")[0] + "Non-terminated Pods:  (14 in to"
    [err] = parse_describe_nodes(inside, "cut.txt")[1]
    assert (err.source.line, err.kind, err.count) == (6, "Pod", None)
    assert err.reason == (
        "node gpu-1 is judged without its pods: the text ends inside its line 'Non-terminated Pods: (14 in to' (cut"
        " short?); paste the whole kubectl describe node output"
    )
    # trial 138: right after its colon, with kubectl's padding or without
    for colon in ("Non-terminated Pods:", "Non-terminated Pods:          "):
        [err] = parse_describe_nodes(inside.split("Non-terminated Pods:")[0] + colon, "cut.txt")[1]
        assert (err.kind, err.count, "its line 'Non-terminated Pods:' (cut short?)" in err.reason) == ("Pod", None, True)


def test_a_paste_of_capacity_and_allocatable_alone_is_read() -> None:
    """Just the two sections, Allocatable naming every resource of Capacity: whole, and judged."""
    text = "Name: n1\nCapacity:\n  cpu: 8\n  nvidia.com/gpu: 2\nAllocatable:\n  cpu: 8\n  nvidia.com/gpu: 2\n"
    objects, errors = parse_describe_nodes(text, "paste.txt")
    # no input error: a note that its pods are not shown (trial 219)
    assert [type(e).__name__ for e in errors] == ["PodsNotShown"] and not errors[0].lost
    assert objects[0][0]["status"]["allocatable"] == {"cpu": "8", "nvidia.com/gpu": "2"}
    assert parse_text(text, "paste.txt").errors == []


def test_part_of_describe_node_output_is_named_with_its_sections() -> None:
    """Trial 100: an on-call paste of `kubectl describe node x | grep -A12 Labels` was a YAML syntax error: output
    without the Name: line that names its object, and without a node's resources, is said to be part of describe
    output, with the sections it holds and what to paste."""
    labels = (
        "```\nLabels:             beta.kubernetes.io/arch=amd64\n                    nvidia.com/gpu.present=true\n"
        "Annotations:        node.alpha.kubernetes.io/ttl: 0\n```\n"
    )
    # Labels and Annotations are every describer's (trial 101: describe pod's Events was said to be a node's)
    other = (
        "part of kubectl describe output (its Labels, Annotations sections, without the Name: line the output starts"
        " with: cut by grep, or by hand?), which names no object to judge: paste the object as kubectl get ... -o yaml"
        " prints it"
    )
    dump = parse_text(labels, "chat.txt")
    assert not dump.objects
    assert [(e.source.line, e.reason) for e in dump.errors] == [(2, other)]
    # trial 102: describe pvc prints "Capacity:  10Gi" on one line, a node's Capacity: heads a list
    pvc = parse_text("Capacity:      10Gi\nAccess Modes:  RWO\nEvents:        <none>\n", "pvc.txt")
    assert pvc.errors[0].reason.startswith("part of kubectl describe output (its Capacity, Events sections,")
    # YAML whose keys happen to be capitalised is no describe text
    assert not any("describe" in e.reason for e in parse_text("Capacity:\n  cpu: 4\nkind: Thing\n", "x.yaml").errors)


def test_a_nodes_capacity_and_allocatable_pasted_without_its_name_are_judged() -> None:
    """Trial 145: three of ten real threads pasted a node's Capacity and Allocatable alone (`kubectl describe node x |
    grep -A8 -E "Capacity|Allocatable"`, which the pack's own fixes print) and were refused as naming no node. They
    show what the threads asked about: 8 GPUs in capacity, 0 allocatable. Each node is read under the name its prompt
    line gives (trial 156), else a placeholder (NODE: upper case, no node's name, and a word to a shell, where <node>
    was a redirection: trial 155), what the text leaves out said, and judged from what it shows."""
    one = (
        '$ kubectl describe node gpu-worker-07 | grep -A8 -E "Capacity|Allocatable"\nCapacity:\n  cpu:  64\n'
        "  nvidia.com/gpu:  8\n--\nAllocatable:\n  cpu:  63500m\n  nvidia.com/gpu:  0\n"
    )
    dump = parse_text(one, "chat.txt")
    assert dump.errors == []
    [node] = [o.obj for o in dump.objects]
    assert (node["metadata"]["name"], node["status"]["capacity"], node["status"]["allocatable"]) == (
        "gpu-worker-07",
        {"cpu": "64", "nvidia.com/gpu": "8"},
        {"cpu": "63500m", "nvidia.com/gpu": "0"},
    )
    assert dump.objects[0].source.line == 2
    assert dump.notes[0] == (
        "chat.txt: only part of kubectl describe node output (Capacity, Allocatable; no Name: line): paste the whole"
        " output to judge it whole. Read as node gpu-worker-07, as its prompt line names it; it holds no Labels, Taints,"
        " Non-terminated Pods sections: the rules that read them judge it as if it had none"
    )
    # without a prompt line naming one node: NODE
    unnamed = parse_text(one.split("\n", 1)[1], "chat.txt")
    assert [o.obj["metadata"]["name"] for o in unnamed.objects] == ["NODE"]
    assert "Read as a node called NODE here (it names none);" in unnamed.notes[0]
    # two nodes' sections (kubectl describe nodes | grep ...): one placeholder each, in text order
    two = "Capacity:\n  nvidia.com/gpu:  8\nAllocatable:\n  nvidia.com/gpu:  8\n--\n"
    two += "Labels:  nvidia.com/gpu.workload.config=container\n"
    two += "Capacity:\n  nvidia.com/gpu:  8\nAllocatable:\n  nvidia.com/gpu:  6\n"
    dump = parse_text(two, "chat.txt")
    got = [(o.obj["metadata"]["name"], o.obj["metadata"]["labels"], o.obj["status"]["allocatable"]) for o in dump.objects]
    assert got == [
        ("NODE-1", {}, {"nvidia.com/gpu": "8"}),
        ("NODE-2", {"nvidia.com/gpu.workload.config": "container"}, {"nvidia.com/gpu": "6"}),
    ]
    assert dump.notes[0].endswith(
        "paste the whole output to judge each whole. Read as 2 nodes called NODE-1, NODE-2 here (it names none); what of"
        " their Labels, Taints and Non-terminated Pods it does not show, the rules judge as if absent"
    )
    # judged: the unhealthy GPUs are the finding the thread asked for
    from rules.engine import audit_bytes
    from rules.loader import load_policies

    report = audit_bytes(one.encode(), "chat.txt", load_policies())
    failed = [(r.rule, r.result, r.message.split(",")[0]) for o in report.objects for r in o.results if r.result == "fail"]
    # (trial 157: a node whose device plugin registered GPUs it serves none of fails gpu-resources-advertised too)
    assert failed == [
        (
            "gpu-resources-advertised",
            "fail",
            "Node gpu-worker-07 has an NVIDIA GPU and the container GPU workload (the operator's built-in default",
        ),
        ("no-unhealthy-devices", "fail", "Node gpu-worker-07 has nvidia.com/gpu allocatable 0"),
    ]
    # every fix of it parses in a shell (trial 155: `kubectl describe node <node> | grep` was a syntax error)
    import subprocess

    for r in (r for o in report.objects for r in o.results if r.remediation):
        assert subprocess.run(["bash", "-n", "-c", r.remediation], check=False).returncode == 0, r.remediation
    # trial 155: the pack's own `grep -A12 -E 'Capacity|Allocatable'` prints System Info's first lines too: cut on
    # purpose, not "cut short?" before the node's pods (an input error, and exit 1, on a healthy node)
    a12 = one.replace("-A8", "-A12") + "System Info:\n  Machine ID:  0f1c2d\n  Kernel Version:  5.15.0\n"
    assert parse_text(a12, "chat.txt").errors == []


def test_part_of_describe_pod_output_is_named_as_a_pods():
    """A chat paste of `kubectl describe pod x | grep -A8 Tolerations` (its Tolerations and Events, the scheduler's
    "Insufficient nvidia.com/gpu" in them) was "YAML syntax error: mapping values are not allowed in this context" at
    the event's line: it is part of describe pod output, and the pod's YAML is what to paste."""
    text = (
        "Tolerations:                 node.kubernetes.io/not-ready:NoExecute op=Exists for 300s\n"
        "                             nvidia.com/gpu:NoSchedule op=Exists\n"
        "Events:\n"
        "  Type     Reason            Age   From               Message\n"
        "  ----     ------            ----  ----               -------\n"
        "  Warning  FailedScheduling  2m    default-scheduler  0/3 nodes are available: 3 Insufficient nvidia.com/gpu.\n"
    )
    dump = parse_text(text, "chat.txt")
    assert not dump.objects
    assert [(e.source.line, e.reason) for e in dump.errors] == [
        (
            1,
            "part of kubectl describe pod output (its Tolerations, Events sections, without the Name: line the output"
            " starts with: cut by grep, or by hand?), which names no pod to judge: paste the pod as kubectl get pod"
            " NAME -n NAMESPACE -o yaml prints it",
        )
    ]
    # trial 107: describe svc prints IPs: at the margin too (describeService), so it names no pod
    svc = parse_text("IPs:                      10.96.12.7\nEvents:                   <none>\n", "chat.txt")
    assert "describe pod" not in " ".join(e.reason for e in svc.errors)
    # a node section beside them still makes it a node's (describe node prints Taints, not Tolerations)
    node = parse_text("Taints:  nvidia.com/gpu:NoSchedule\nEvents:  <none>\n", "chat.txt")
    assert node.errors[0].reason.startswith("part of kubectl describe node output (its Taints, Events sections,")


def test_cluster_scoped_describe_output_and_a_last_line_capacity_does_not_list() -> None:
    """Trial 126: `kubectl describe clusterpolicy` (a blank Namespace:, its Kind: printed) beside a node was said to
    be a namespaced object's, with `kubectl get <kind> cluster-policy -n  -o yaml`; and a node cut inside Allocatable
    whose last line names what Capacity does not list said that resource was judged with Capacity's count."""
    from rules.reader import parse_text

    node = (
        "Name:               gpu-a\nRoles:              <none>\nLabels:             a=b\nTaints:             <none>\n"
        "Capacity:\n  cpu:  8\n  nvidia.com/gpu:  2\n  pods:  110\nAllocatable:\n  cpu:  8\n  example.com/foo:  3"
    )
    cp = "Name:         cluster-policy\nNamespace:    \nLabels:       <none>\n"
    cp += "API Version:  nvidia.com/v1\nKind:         ClusterPolicy\n"
    dump = parse_text(
        cp + "\n" + node.replace("\n  example.com/foo:  3", "\n  nvidia.com/gpu:  2\n  pods:  110\nEvents: <none>"), "p.txt"
    )
    assert [o.name for o in dump.objects] == ["gpu-a"]
    assert [e.reason for e in dump.errors] == [
        "kubectl describe clusterpolicy, which verdict does not read (of describe text it reads nodes only): print the"
        " object with kubectl get clusterpolicy cluster-policy -o yaml (or -o json)"
    ]
    objects, errors = parse_describe_nodes(node, "cut.txt")
    assert objects[0][0]["status"]["allocatable"] == {"cpu": "8", "example.com/foo": "3", "nvidia.com/gpu": "2", "pods": "110"}
    assert errors[0].reason.startswith("node gpu-a is judged with Capacity's count as its allocatable nvidia.com/gpu, pods:")


def test_label_and_taint_lines_a_terminal_wrapped_are_joined_and_said() -> None:
    """Trial 124: label lines wrapped at 60 columns refused the node with "is not key=value", its next line ('ent=true'
    at the margin, where kubectl indents every line of a section) unsaid. A line at the margin that ends the item
    before it (one of the two no item alone, the two one item) is read as its end, and said; a paste whose every
    line lost its indent reads each item whole; one that makes no item with it is refused with the hint."""
    text = (
        "Name:               gpu-1\nRoles:              <none>\nLabels:             beta.kubernetes.io/arch=amd64\n"
        "                    feature.node.kubernetes.io/pci-10de.pres\nent=true\n"
        "                    nvidia.com/gpu.workload.config=vm-passth\nrough\n"
        "Taints:             nvidia.com/gpu=present:NoSche\ndule\n"
        "Capacity:\n  nvidia.com/gpu:  4\nAllocatable:\n  nvidia.com/gpu:  4\nEvents:  <none>\n"
    )
    objects, [err] = parse_describe_nodes(text, "p.txt")
    node = objects[0][0]
    assert node["metadata"]["labels"] == {
        "beta.kubernetes.io/arch": "amd64",
        "feature.node.kubernetes.io/pci-10de.present": "true",
        "nvidia.com/gpu.workload.config": "vm-passthrough",
    }
    assert node["spec"]["taints"] == [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
    assert (err.source.line, err.path, err.lost) == (5, "$.metadata.labels", False)
    assert err.reason == (
        "node gpu-1: lines 5, 7 and 9 of its labels, annotations or taints start at the margin, where kubectl indents"
        " them: a terminal or chat client wrapped them, and each is read as the end of the line before it"
    )
    # trial 137: an annotation's key wrapped lost the key without a word
    annotated = "Annotations:        node.alpha.kubernetes.io/ttl: 0\n                    projectcalico.org/IPv4Add\n"
    noted = text.replace("Taints:", annotated + "ress: 10.0.4.3/24\nTaints:")
    objects, errors = parse_describe_nodes(noted, "p.txt")
    assert objects[0][0]["metadata"]["annotations"]["projectcalico.org/IPv4Address"] == "10.0.4.3/24"
    assert [(e.source.line, e.path) for e in errors] == [(5, "$.metadata.labels")]
    assert "lines 5, 7, 10 and 12 of its labels, annotations or taints" in errors[0].reason
    # trial 138: wrapped right after the key's colon, the value was lost
    colon = noted.replace("projectcalico.org/IPv4Add\nress: 10.0.4.3/24", "projectcalico.org/IPv4Address:\n10.0.4.3/24")
    objects, errors = parse_describe_nodes(colon, "p.txt")
    assert objects[0][0]["metadata"]["annotations"]["projectcalico.org/IPv4Address"] == "10.0.4.3/24"
    # trial 140: wrapped after a colon inside a value, no space is put in
    socket = noted.replace("projectcalico.org/IPv4Add\nress: 10.0.4.3/24", "cri-socket: unix:\n///var/run/containerd.sock")
    objects, errors = parse_describe_nodes(socket, "p.txt")
    assert objects[0][0]["metadata"]["annotations"]["cri-socket"] == "unix:///var/run/containerd.sock"
    # every line's indent lost (a chat that strips it): each item whole, none joined
    flat = "\n".join(line.lstrip() for line in text.split("\n"))
    flat = flat.replace("pci-10de.pres\nent", "pci-10de.present").replace("vm-passth\nrough", "vm-passthrough")
    flat = flat.replace("NoSche\ndule", "NoSchedule").replace("\nnvidia.com/gpu:", "\n  nvidia.com/gpu:")
    objects, errors = parse_describe_nodes(flat, "flat.txt")
    assert (errors, objects[0][0]["metadata"]["labels"]) == ([], node["metadata"]["labels"])
    # a line at the margin that makes no label with the line before: refused, with the hint
    broken = text.replace("\nent=true\n", "\nent=tr ue\n")
    assert parse_describe_nodes(broken, "p.txt")[1][0].reason == (
        "node gpu-1 is not judged: label line 'feature.node.kubernetes.io/pci-10de.pres' is not key=value (the next line,"
        " 'ent=tr ue', starts at the margin: a terminal or chat client wrapped it? paste it as a code block, or from a"
        " wider window)"
    )
    # trial 137: a taint wrapped before its ':' made two taints, each valid without the effect kubectl always prints
    for cut in ("nvidia.com/g\npu=present:NoSchedule", "nvidia.com/gpu=present:\nNoSchedule"):
        taints = text.replace("\n                    nvidia.com/gpu.workload.config=vm-passth\nrough", "").replace(
            "nvidia.com/gpu=present:NoSche\ndule", cut
        )
        objects, [err] = parse_describe_nodes(taints, "p.txt")
        assert objects[0][0]["spec"]["taints"] == [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]
        assert (err.source.line, err.path) == (5, "$.metadata.labels")
        # the taint alone wrapped: said at its line, of the taints
        alone = taints.replace("pci-10de.pres\nent=true", "pci-10de.present=true")
        [err] = parse_describe_nodes(alone, "p.txt")[1]
        assert (err.source.line, err.path, err.lost) == (6, "$.spec.taints", False)
    # a bad label line whose next line is indented as kubectl writes it gets no such hint
    indented = text.replace("\nent=true\n", "\n                    a=b\n")
    assert parse_describe_nodes(indented, "p.txt")[1][0].reason == (
        "node gpu-1 is not judged: label line 'feature.node.kubernetes.io/pci-10de.pres' is not key=value"
    )


def test_the_pods_rebuilt_from_describe_text_are_counted_in_a_note() -> None:
    """Trial 134: "6 objects judged (6 read)" for three pasted nodes made a reader look twice: their kube-proxy pods,
    rebuilt from the Non-terminated Pods tables, are objects too. A note says how many of each; none without pods."""
    row = "  kube-system  kube-proxy-{i}  0 (0%)  0 (0%)  0 (0%)  0 (0%)  3d\n"
    nodes = "".join(
        f"Name:  gpu-{i}\nCapacity:\n  nvidia.com/gpu:  1\nAllocatable:\n  nvidia.com/gpu:  1\n"
        "Non-terminated Pods:  (1 in total)\n  Namespace  Name  CPU Requests  CPU Limits  Memory Requests  Memory Limits  Age\n"
        + row.format(i=i)
        + "Events:  <none>\n"
        for i in range(3)
    )
    dump = parse_text(nodes, "paste.txt")
    assert [o.kind for o in dump.objects].count("Pod") == 3
    assert dump.notes == [
        "paste.txt: read as kubectl describe node text: 3 Nodes, and 3 Pods rebuilt from their Non-terminated Pods"
        " tables (namespace, name, CPU and memory only)"
    ]
    alone = "Name:  gpu-1\nCapacity:\n  nvidia.com/gpu:  1\nAllocatable:\n  nvidia.com/gpu:  1\n"
    # (no Pod rebuilt; trial 219: that it shows no pods' table is said)
    assert parse_text(alone, "paste.txt").notes == [
        "paste.txt, document 1, line 5: node gpu-1 is judged without its pods: the text ends before its Non-terminated"
        " Pods, Allocated resources and Events; paste the whole kubectl describe node output to judge what runs there"
    ]


def test_a_nodes_capacity_and_allocatable_in_a_folder_are_read_as_alone(tmp_path: Path) -> None:
    """Trial 155: a file holding a node's Capacity and Allocatable cut out by grep was judged given alone and passed
    over in a folder ("not starting as a dump or describe text")."""
    from rules.reader import read_path

    (tmp_path / "gpu-node.txt").write_text("Capacity:\n  nvidia.com/gpu:  8\nAllocatable:\n  nvidia.com/gpu:  0\n")
    (tmp_path / "notes.txt").write_text("the node lost its GPUs after the reboot\n")
    dump = read_path(str(tmp_path))
    assert [(o.obj["metadata"]["name"], o.source.file) for o in dump.objects] == [("NODE", f"{tmp_path}/gpu-node.txt")]
    assert f"{tmp_path}/notes.txt" in dump.files_skipped


def test_grep_context_before_capacity_is_set_aside() -> None:
    """Trial 155: `kubectl describe nodes | grep -B2 -A7 Capacity` starts each group with the last lines of the section
    before (Addresses' InternalIP, Hostname): the paste was refused as YAML, then those lines were read as a resource
    of the node before. They are set aside: each group is a node."""
    group = "  InternalIP:  10.0.0.1{n}\n  Hostname:    gpu-{n}\n"
    group += "Capacity:\n  nvidia.com/gpu:  8\nAllocatable:\n  nvidia.com/gpu:  {a}\n"
    text = "$ kubectl describe nodes | grep -B2 -A4 Capacity\n" + group.format(n=1, a=8) + "--\n" + group.format(n=2, a=6)
    dump = parse_text(text, "chat.txt")
    assert dump.errors == []
    assert [(o.obj["metadata"]["name"], o.obj["status"]["allocatable"]) for o in dump.objects] == [
        ("NODE-1", {"nvidia.com/gpu": "8"}),
        ("NODE-2", {"nvidia.com/gpu": "6"}),
    ]


def test_describe_text_objects_and_errors_are_placed_alike() -> None:
    """Trial 158: describe text's objects were said as "document 1, items[3]" (no List has items there, and a
    dropped node shifted the numbers of those after it) while its input errors said "document 3": both are placed
    by the text's line."""
    text = three_nodes("  nvidia.com/gpu:  two")
    dump = parse_text(text, "nodes.txt")
    assert [str(o.source) for o in dump.objects if o.kind == "Node"] == [
        f"nodes.txt, document 1, line {text.splitlines().index(f'Name:               {n}') + 1}" for n in ("gpu-a", "gpu-c")
    ]
    [error] = dump.errors
    assert str(error).startswith(f"nodes.txt, document 1, line {text.splitlines().index('  nvidia.com/gpu:  two') + 1} at ")


def test_a_dropped_node_is_named_only_by_a_name_kubectl_could_print() -> None:
    """Trial 159: "node <redacted> is not judged: no readable 'Name:' line" named it from the line said unreadable."""
    text = three_nodes("  nvidia.com/gpu:  two").replace("Name:               gpu-b", "Name:               <redacted>")
    [error] = parse_text(text, "n.txt").errors
    assert not error.reason.startswith("node <redacted>"), error.reason


KV_RESOURCES = (
    "  cpu:                            32\n  devices.kubevirt.io/kvm:        1k\n  devices.kubevirt.io/tun:        1k\n"
    "  devices.kubevirt.io/vhost-net:  1k\n  ephemeral-storage:              479596204Ki\n  hugepages-1Gi:                  0\n"
    "  hugepages-2Mi:                  0\n  memory:                         263914876Ki\n"
)


def test_a_section_grep_cut_before_its_gpu_resource_is_refused_not_read_as_no_gpu() -> None:
    """Trial 160: on a KubeVirt node devices.kubevirt.io/* sort before nvidia.com/*, and `grep -A8` stopped at memory:
    the node was said to list no GPU resource (a false warning; the node made to disagree was missed). kubectl prints
    pods: last: a section without it that fills the lines -A N allows was cut."""
    prompt = "$ kubectl describe node gpu-v1 | grep -A8 -E 'Capacity|Allocatable'\n"
    text = f"{prompt}Capacity:\n{KV_RESOURCES}--\nAllocatable:\n{KV_RESOURCES}"
    dump = parse_text(text, "kv.txt")
    assert [o.kind for o in dump.objects] == []
    [error] = dump.errors
    assert (error.source.line, error.path) == (2, "$.status.capacity")
    assert error.reason.startswith(
        "node gpu-v1 is not judged: its Capacity section is cut: grep -A8 printed 8 lines of it and not its pods: line"
    )
    # the same lines without the prompt: both sections cut alike, as many lines each
    assert "section is cut: the text shows 8 lines" in parse_text(text.replace(prompt, ""), "kv.txt").errors[0].reason
    # trial 161: one section alone, or fewer lines, without a prompt: the resources kubectl always prints and none of
    # nvidia.com/, which sort between them and pods:, were read as a node without GPU resources
    alone = "Allocatable:\n" + "".join(KV_RESOURCES.splitlines(keepends=True)[:5])
    [error] = parse_text(alone, "kv.txt").errors
    assert error.reason.startswith("node NODE is not judged: its Allocatable section is cut: the text shows 5 lines of it")
    # with -A12 the pods: line is there, and the node is judged with its GPU resource
    whole = KV_RESOURCES + "  nvidia.com/NVIDIA_A10-12Q:      2\n  pods:                           110\n"
    text = f"{prompt.replace('-A8', '-A12')}Capacity:\n{whole}Allocatable:\n{whole}"
    [node] = parse_text(text, "kv.txt").objects
    assert node.obj["status"]["allocatable"]["nvidia.com/NVIDIA_A10-12Q"] == "2"
    # a short fragment written by hand (no pods: line, fewer lines than -A allows) is read as it is
    short = (
        "$ kubectl describe node g | grep -A8 -E 'Capacity|Allocatable'\n"
        "Capacity:\n  nvidia.com/gpu:  8\nAllocatable:\n  nvidia.com/gpu:  0\n"
    )
    [node] = parse_text(short, "s.txt").objects
    assert node.obj["status"]["capacity"] == {"nvidia.com/gpu": "8"}


def _grep_after(text: str, after: int, *words: str) -> str:
    """What ``grep -A<after> -E 'w1|w2'`` prints of ``text``: each matching line and the lines after it, groups
    apart by "--"."""
    lines = text.splitlines()
    keep: list[int] = []
    for i, line in enumerate(lines):
        if any(w in line for w in words):
            keep.extend(range(i, min(i + after + 1, len(lines))))
    out, last = [], None
    for i in sorted(set(keep)):
        if last is not None and i != last + 1:
            out.append("--")
        out.append(lines[i])
        last = i
    return "\n".join(out) + "\n"


def test_the_packs_own_grep_of_a_node_reaching_its_pods_table_is_no_input_error() -> None:
    """Trial 161: the fix every gpu-resources-advertised finding prints, grep -A20 -E 'Capacity|Allocatable', reaches
    the pods table's header on an EKS node (no PodCIDR lines): "node x lists 14 non-terminated pods but 0 rows were
    found (the text is cut?)", exit 1, on a healthy node. A part grep printed shows none of the node's pods."""
    text = (Path(__file__).parent / "data" / "describe" / "gpu-operator-684_eks-time-slicing_gpu-12.txt").read_text()
    part = "$ kubectl describe node x | grep -A20 -E 'Capacity|Allocatable'\n" + _grep_after(
        text, 20, "Capacity:", "Allocatable:"
    )
    assert "Non-terminated Pods:" in part
    dump = parse_text(part, "eks.txt")
    assert dump.errors == []
    assert [o.kind for o in dump.objects] == ["Node"]


def test_an_allocatable_part_listing_the_gpu_at_zero_says_a_plugin_registered_it() -> None:
    """Trial 161: `grep -A12 Allocatable` of NVIDIA/k8s-device-plugin#58's node (nvidia.com/gpu: 0) was told its
    driver and device plugin came from elsewhere "or are not installed": a device plugin registered the name."""
    from rules.engine import audit_bytes
    from rules.loader import load_policies

    text = Path(__file__).parent / "data" / "describe" / "k8s-device-plugin-58_kubectl-1.10_capacity-16-allocatable-0.txt"
    part = _grep_after(text.read_text(), 12, "Allocatable:")
    report = audit_bytes(part.encode(), "58.txt", load_policies())
    [found] = [r for o in report.objects for r in o.results if r.rule == "gpu-resources-advertised"]
    assert found.result == "fail"
    assert (
        "It lists [nvidia.com/gpu] with 0 devices: a device plugin registered the name and serves no device now" in found.message
    )
    assert "or are not installed" not in found.message


def test_a_prompt_less_part_of_two_sections_as_long_that_end_before_pods_is_cut() -> None:
    """Trial 162: grep -A6 -E 'Capacity|Allocatable' of a MIG node, no prompt line, stopped at nvidia.com/gpu: 0 with
    its nvidia.com/mig-* lines cut, and was read whole: a false high failure (the check of two sections as long, 6
    lines or more, had been dropped for kubectl's sort order alone)."""
    section = (
        "  cpu:                   64\n  ephemeral-storage:     1843269236Ki\n  hugepages-1Gi:         0\n"
        "  hugepages-2Mi:         0\n  memory:                1056462712Ki\n  nvidia.com/gpu:        0\n"
    )
    dump = parse_text(f"Capacity:\n{section}Allocatable:\n{section}", "m1.txt")
    assert dump.objects == []
    assert "its Capacity section is cut: the text shows 6 lines of it and not its pods: line" in dump.errors[0].reason


def test_pod_rows_trimmed_by_hand_in_a_part_without_a_prompt_are_still_said() -> None:
    """Trial 162: a part of describe text without Name: and without a prompt, one pod row taken out by hand, lost
    every row in silence (only grep -A's window hides a part of the table on purpose)."""
    text = (Path(__file__).parent / "data" / "describe" / "gpu-operator-209_openstack-gpu-node_no-gpu-resource.txt").read_text()
    lines = [line for line in text.splitlines()[2:] if "kube-flannel-ds-nblzb" not in line]
    dump = parse_text("\n".join(lines) + "\n", "v2.txt")
    assert [o.obj["metadata"]["name"] for o in dump.objects if o.kind == "Pod"] == [
        "gpu-operator-1623769563-node-feature-discovery-worker-6d7hn",
        "csi-cinder-nodeplugin-q7fjx",
    ]
    assert any("lists 3 non-terminated pods but 2 rows were found" in e.reason for e in dump.errors)


def test_a_capacity_line_without_the_space_after_its_colon_is_read() -> None:
    """Trial 173 #6: "nvidia.com/GA102GL_A10:1" (a paste edited by hand; kubectl writes a space) lost the node with
    "is not 'resource: quantity'"; the name cannot hold a colon, so the line reads one way only."""
    objects, errors = parse_describe_nodes(three_nodes("  nvidia.com/GA102GL_A10:1"), "nodes.txt")
    assert errors == []
    assert [o["metadata"]["name"] for o, _ in objects] == ["gpu-a", "gpu-b", "gpu-c"]
    assert objects[1][0]["status"]["capacity"]["nvidia.com/GA102GL_A10"] == "1"
    # a colon with nothing after it is still no quantity
    objects, (error,) = parse_describe_nodes(three_nodes("  nvidia.com/GA102GL_A10:"), "nodes.txt")
    assert [o["metadata"]["name"] for o, _ in objects] == ["gpu-a", "gpu-c"]
    assert error.reason == "node gpu-b is not judged: Capacity line 'nvidia.com/GA102GL_A10:' is not 'resource: quantity'"


def test_a_describe_paste_ending_with_a_mark_of_a_cut_is_judged_and_said_without_its_pods() -> None:
    """Regression (trial 216): a node's describe text cut after its Allocatable, '…' or '...' under it (inside the
    fence, after it, or unfenced), was judged as a whole node without a word, and a rule reading its pods named a cause
    the cut-off table would have refuted. A note at the mark's line says it is judged without its pods (trial 219: not
    an input error, which made a clean node's paste exit 1); the same text without a mark gets the note without it."""
    node = (
        "Name:               gpu-a\nLabels:             nvidia.com/gpu.present=true\nCapacity:\n  cpu:  8\n"
        "  nvidia.com/gpu:  2\nAllocatable:\n  cpu:  8\n  nvidia.com/gpu:  2\n"
    )
    said = (
        "node gpu-a is judged without its pods: the text ends with '{}', the mark of a cut, before its Non-terminated"
        " Pods, Allocated resources and Events; paste the whole kubectl describe node output to judge what runs there"
    )
    for text, mark, line in [
        ("```\n" + node + "…\n```\n", "…", 10),  # inside the fence
        ("```\n" + node + "```\n…\n", "…", 11),  # after it
        (node + "...\n", "...", 9),  # unfenced
        ("see this:\n\n" + node + "\n…\n", "…", 12),  # after a blank line
        (node + "[...]\n", "[...]", 9),  # (trial 217) in brackets, four dots, with "snip"
        ("```\n" + node + "....\n```\n", "....", 10),
        (node + "... (snip)\n", "... (snip)", 9),
    ]:
        dump = parse_text(text, "chat.md")
        assert [o.kind for o in dump.objects] == ["Node"], text
        # (trial 219: a note, not an input error: the same cut unsaid is read whole, and said so too)
        assert dump.errors == [], text
        assert [n for n in dump.notes if "judged without its pods" in n] == [
            f"chat.md, document 1, line {line}: {said.format(mark)}"
        ]
    unmarked = parse_text("```\n" + node + "```\n", "chat.md")
    assert (unmarked.errors, [n for n in unmarked.notes if "judged without its pods" in n]) == (
        [],
        [
            "chat.md, document 1, line 9: node gpu-a is judged without its pods: the text ends before its Non-terminated"
            " Pods, Allocated resources and Events; paste the whole kubectl describe node output to judge what runs there"
        ],
    )
    # a node whose pods' table was read whole is not said to lack it
    whole = node + "Non-terminated Pods:  (0 in total)\n  Namespace  Name  CPU Requests\n  ---------  ----  ------------\n…\n"
    assert parse_text(whole, "chat.md").errors == []
    assert not [n for n in parse_text(whole, "chat.md").notes if "judged without its pods" in n]
