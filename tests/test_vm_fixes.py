"""The fixes of VM findings name what to change (pack test cases pin results and messages; these pin fixes)."""

from __future__ import annotations

from functools import cache

import yaml

from rules.evaluate import evaluate
from rules.loader import PolicySet, load_policies
from rules.reader import parse_text

NODES = """
apiVersion: v1
kind: Node
metadata:
  name: gpu-pt-1
  labels: {kubernetes.io/hostname: gpu-pt-1, kubevirt.io/schedulable: "true", nvidia.com/gpu.workload.config: vm-passthrough}
status:
  allocatable: {cpu: "64", memory: 256Gi, pods: "110", nvidia.com/GA102GL_A10: "2"}
---
apiVersion: v1
kind: Node
metadata:
  name: gpu-vgpu-1
  labels: {kubernetes.io/hostname: gpu-vgpu-1, kubevirt.io/schedulable: "true", nvidia.com/gpu.workload.config: vm-vgpu}
status:
  allocatable: {cpu: "64", memory: 256Gi, pods: "110", nvidia.com/NVIDIA_A10-12Q: "4"}
"""
LIST_NODES = "kubectl get nodes -o custom-columns=NAME:.metadata.name,ALLOCATABLE:.status.allocatable"


@cache
def _pack() -> PolicySet:
    return load_policies()


def _fix(vm: dict) -> str:
    dump = parse_text(NODES + "---\n" + yaml.safe_dump(vm), "vms.yaml")
    [found] = [r for o in evaluate(dump, _pack()).objects for r in o.results if r.rule == "workload-schedulable"]
    assert found.result == "fail", found.message
    return found.remediation


def _vm(node_selector: dict | None) -> dict:
    spec: dict = {"domain": {"devices": {"gpus": [{"name": "g", "deviceName": "nvidia.com/NVIDIA_A10-12Q"}]}}}
    if node_selector:
        spec["nodeSelector"] = node_selector
    return {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachine",
        "metadata": {"name": "vm-new", "namespace": "vms"},
        "spec": {"runStrategy": "Always", "template": {"spec": spec}},
    }


def test_an_unschedulable_vm_pinned_by_its_node_selector_is_told_to_edit_it() -> None:
    """Trial 99: a VM pinned to the passthrough node, asking for a vGPU, was told only to list the nodes'
    allocatable; its fix names the VM's nodeSelector and the edit."""
    fix = _fix(_vm({"kubernetes.io/hostname": "gpu-pt-1"}))
    assert fix == (
        f"{LIST_NODES}; kubectl edit virtualmachine -n vms vm-new  # where the message says \"didn't match Pod's node"
        ' affinity/selector", its spec.template.spec nodeSelector or affinity keeps it off the nodes that advertise what'
        " it asks: point them at one of those"
    )


def test_an_unschedulable_vm_without_a_node_selector_is_told_to_compare_the_nodes() -> None:
    vm = _vm(None)
    vm["spec"]["template"]["spec"]["domain"]["devices"]["gpus"] *= 5  # five vGPUs: no node has them
    assert _fix(vm) == LIST_NODES
