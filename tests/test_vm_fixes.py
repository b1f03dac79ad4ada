"""The fixes of VM findings name what to change (pack test cases pin results and messages; these pin fixes)."""

from __future__ import annotations

from functools import cache

import yaml
from conftest import cluster_policy, kubevirt_cr

from rules.evaluate import evaluate
from rules.loader import PolicySet, load_policies
from rules.reader import parse_text
from rules.render.chat import fix_lines
from rules.report import Result

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
# each node's capacity, allocatable and what its pods hold (trial 114: the allocatable alone read as room)
# (no run of two spaces, which a chat's Markdown cell collapses: [ ]{2})
LIST_NODES = (
    "kubectl describe nodes | grep -E '^Name:|^Taints:|:(NoSchedule|PreferNoSchedule|NoExecute)$|"
    "^(Capacity|Allocatable|Allocated resources):|^[ ]{2}nvidia\\.com/'"
)


@cache
def _pack() -> PolicySet:
    return load_policies()


#: KubeVirt's permit of the vGPU type the nodes' vm-vgpu node advertises, left to an external device plugin.
A10_12Q = {"mdevNameSelector": "NVIDIA A10-12Q", "resourceName": "nvidia.com/NVIDIA_A10-12Q", "externalResourceProvider": True}


def _dump(*objects: dict, nodes: str = NODES) -> str:
    """``nodes`` and ``objects`` as one YAML dump."""
    return "---\n".join([nodes, *(yaml.safe_dump(o) for o in objects)])


def _only(text: str, rule: str, name: str = "kv.yaml") -> Result:
    """The one result of ``rule`` on the dump ``text``."""
    report = evaluate(parse_text(text, name), _pack())
    [found] = [r for o in report.objects for r in o.results if r.rule == rule]
    return found


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
        " it asks (its hint names them): point them at one of those, then virtctl restart -n vms vm-new (its VMI keeps"
        " the old spec until then)"
    )


def test_an_unschedulable_vm_without_a_node_selector_is_told_to_compare_the_nodes() -> None:
    vm = _vm(None)
    vm["spec"]["template"]["spec"]["domain"]["devices"]["gpus"] *= 5  # five vGPUs: no node has them
    assert _fix(vm) == LIST_NODES


def _permit_results(permits: list[str], *asked: str, nodes: str = NODES) -> list:
    entries = [{"mdevNameSelector": "NVIDIA A10-12Q", "resourceName": p, "externalResourceProvider": True} for p in permits]
    kubevirt = kubevirt_cr({"mediatedDevices": entries}, ["DisableMDEVConfiguration"])
    gpus = [{"name": f"g{i}", "deviceName": name} for i, name in enumerate(asked)]
    vmi = {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachineInstance",
        "metadata": {"name": "win11-vdi-01", "namespace": "vdi"},
        "spec": {"domain": {"devices": {"gpus": gpus}}},
        "status": {"phase": "Running", "nodeName": "gpu-vgpu-1"},
    }
    text = _dump(kubevirt, vmi, nodes=nodes)
    report = evaluate(parse_text(text, "vms.yaml"), _pack())
    return [r for o in report.objects for r in o.results if r.rule == "device-name-permitted"]


def test_a_misspelt_permit_is_fixed_in_kubevirt_not_in_the_running_vm() -> None:
    """Trial 114: a permit misspelt nvidia.com/NVIDIA_A10_12Q gave each running VM asking the advertised
    nvidia.com/NVIDIA_A10-12Q "edit the VM, then virtctl restart" first: a restart into a VM no node serves. Where a
    node advertises every unpermitted name the VM asks for, the fix is the permit, and no restart."""
    [result] = _permit_results(["nvidia.com/NVIDIA_A10_12Q"], "nvidia.com/NVIDIA_A10-12Q")
    assert result.result == "fail"
    assert result.message.endswith(
        "Nodes of the dump list nvidia.com/NVIDIA_A10-12Q (a name their device plugin registered), so the name is right:"
        " permit it in KubeVirt kubevirt/kubevirt exactly so (externalResourceProvider: true where the GPU Operator's"
        " sandbox device plugin advertises it). KubeVirt kubevirt/kubevirt permits nvidia.com/NVIDIA_A10_12Q, close to it"
        " and advertised by no node: if that permit was written for this GPU or vGPU type, correct it rather than add"
        " another; if it is another type's, keep it."
    ), result.message
    assert result.remediation == (
        "kubectl edit kubevirt -n kubevirt kubevirt  # spec.configuration.permittedHostDevices: permit"
        " nvidia.com/NVIDIA_A10-12Q exactly as the nodes advertise it; KubeVirt reads permittedHostDevices only when it"
        " renders a virt-launcher pod, so a running VM needs no restart for it"
    ), result.remediation
    assert "virtctl restart" not in result.remediation


def test_a_vm_asking_a_name_no_node_advertises_is_still_told_to_change() -> None:
    [result] = _permit_results(["nvidia.com/NVIDIA_A10_12Q"], "nvidia.com/NVIDIA_A10-12Q", "nvidia.com/NVIDIA_A10-24Q")
    assert result.result == "fail"
    assert result.remediation.startswith(
        "kubectl edit kubevirt -n kubevirt kubevirt  # spec.configuration.permittedHostDevices: permit"
        " nvidia.com/NVIDIA_A10-12Q exactly as the nodes advertise it;"
    ), result.remediation
    assert ". For nvidia.com/NVIDIA_A10-24Q, which no node advertises for VMs: kubectl get vmi -n vdi win11-vdi-01" in (
        result.remediation
    )
    [alone] = _permit_results(["nvidia.com/NVIDIA_A10-12Q"], "nvidia.com/NVIDIA_A10-24Q")
    assert alone.remediation.startswith("kubectl get vmi -n vdi win11-vdi-01 -o yaml > vmi.yaml"), alone.remediation
    assert "Ask for a permitted name, or permit this one" in alone.message


def test_a_vm_asking_the_container_plugins_name_is_told_to_change_not_to_permit_it() -> None:
    """Trial 116: a VM asking nvidia.com/gpu, which a container node advertises (the container device plugin's name,
    which cannot serve a VM), was told the name was right and to permit it in KubeVirt."""
    container = """---
apiVersion: v1
kind: Node
metadata:
  name: gpu-ctr-1
  labels: {kubernetes.io/hostname: gpu-ctr-1, nvidia.com/gpu.workload.config: container}
status:
  allocatable: {cpu: "64", memory: 256Gi, pods: "110", nvidia.com/gpu: "4"}
"""
    [result] = _permit_results(["nvidia.com/NVIDIA_A10-12Q"], "nvidia.com/gpu", nodes=NODES + container)
    assert "so the name is right" not in result.message
    assert "Ask for a permitted name, or permit this one" in result.message
    assert result.remediation.startswith("kubectl get vmi -n vdi win11-vdi-01 -o yaml > vmi.yaml"), result.remediation


def test_a_permit_no_node_advertises_is_not_only_called_a_typo() -> None:
    """Trial 114: a permit spelt right, of a vGPU type no node's config creates (nvidia.com/NVIDIA_L40S-48Q), was told
    to be written "exactly as a node advertises it", as if misspelt."""
    permit = {
        "mdevNameSelector": "NVIDIA L40S-48Q",
        "resourceName": "nvidia.com/NVIDIA_L40S-48Q",
        "externalResourceProvider": True,
    }
    kubevirt = kubevirt_cr({"mediatedDevices": [permit]})
    found = _only(_dump(kubevirt), "permitted-name-advertised")
    assert found.result == "warn"
    assert (
        "where the name is a typo, write it exactly as a node advertises it, in spec.configuration.permittedHostDevices:"
        " kubectl edit kubevirt -n kubevirt kubevirt; where it is right, no node of the dump has that GPU or vGPU type:"
        " prepare one (a vGPU type: a vm-vgpu node whose nvidia.com/vgpu.config names a config creating it), or leave the"
        " permit for nodes to come"
    ) in found.remediation, found.remediation
    # (trial 245 #2: pasted whole, the edit ran, though two of the three cases change nothing in KubeVirt): the check
    # of what the nodes advertise runs alone
    runnable = [line for line in fix_lines(found.remediation) if not line.startswith("#")]
    assert len(runnable) == 1 and runnable[0].startswith("kubectl get nodes -o custom-columns="), runnable
    assert "kubectl edit" not in runnable[0].split(" # ")[0]


def test_a_type_to_permit_is_not_given_another_type_s_selector_as_its_example() -> None:
    """Trial 242 #3: a vGPU node advertising nvidia.com/NVIDIA_A10-24Q, which KubeVirt did not permit, was told to add
    it with "mdevNameSelector: the vGPU type, \"NVIDIA A10-12Q\" for nvidia.com/NVIDIA_A10-12Q": a hurried edit pairs
    the 24Q name with the 12Q selector. The fix says how the selector is written from the name, with no other type's."""
    pci = {"pciVendorSelector": "10DE:2236", "resourceName": "nvidia.com/GA102GL_A10", "externalResourceProvider": True}
    kubevirt = kubevirt_cr({"mediatedDevices": [A10_12Q], "pciHostDevices": [pci]}, ["DisableMDEVConfiguration"])
    nodes = NODES.replace("nvidia.com/NVIDIA_A10-12Q", "nvidia.com/NVIDIA_A10-24Q")
    found = _only(_dump(kubevirt, nodes=nodes), "advertised-vm-gpu-permitted")
    assert found.result == "warn"
    assert found.remediation == (
        "kubectl edit kubevirt -n kubevirt kubevirt  # add nvidia.com/NVIDIA_A10-24Q to"
        " spec.configuration.permittedHostDevices (or write it so where a permit names it in other case), with"
        " externalResourceProvider: true: a pciHostDevices entry (pciVendorSelector 10DE:<device id>) for a passthrough"
        " GPU, a mediatedDevices entry for a vGPU type, its mdevNameSelector the name without nvidia.com/, its underscores"
        " as spaces (the type as its mediated devices name it, which the sandbox device plugin advertises so written)"
    ), found.remediation
    assert "12Q" not in found.remediation


def test_an_external_permit_without_a_provider_is_a_choice_that_pasted_whole_runs_nothing() -> None:
    """Trial 245 #1: with sandbox workloads off and external permits no plugin serves, the fix's first command turned
    sandbox workloads and the sandbox device plugin on for the whole cluster (a chat block pasted whole ran it), its
    alternative and the labels to write first in the comment after it. The choice is said first, each command under
    its condition."""
    kubevirt = kubevirt_cr({"mediatedDevices": [A10_12Q]}, ["GPU", "HostDevices", "DisableMDEVConfiguration"])
    policy = cluster_policy({"sandboxWorkloads": {"enabled": False}})
    nodes = NODES.replace("nvidia.com/NVIDIA_A10-12Q", "nvidia.com/gpu")
    found = _only(_dump(kubevirt, policy, nodes=nodes), "external-permits-have-a-provider")
    assert found.result == "warn"
    assert found.remediation.startswith(
        "First decide what is to advertise nvidia.com/NVIDIA_A10-12Q. If the GPU Operator's sandbox device plugin is,"
        " turn sandbox workloads and that plugin on, which prepares every GPU node labelled vm-passthrough or vm-vgpu"
        " for VMs, the container pods there losing their GPUs"
    ), found.remediation
    assert found.remediation.endswith("If NVIDIA's kubevirt-gpu-device-plugin is, install it on the VM nodes")
    lines = fix_lines(found.remediation)
    assert not [line for line in lines if not line.startswith("#")], lines
    assert [line for line in lines if line.startswith("# kubectl")] == [
        "# kubectl patch clusterpolicies.nvidia.com cluster-policy --type merge -p"
        """ '{"spec":{"sandboxWorkloads":{"enabled":true},"sandboxDevicePlugin":{"enabled":true}}}'"""
    ]


def test_the_mediated_devices_fix_of_an_unknown_kubevirt_version_checks_it_first() -> None:
    """Trial 245 #9: where the dump shows no KubeVirt version, the fix's first command was the v1.8.0 patch, its
    condition ("KubeVirt v1.8.0 and later") in the comment after it. The version check runs first; each patch stands
    under its version."""
    kubevirt = kubevirt_cr({"mediatedDevices": [A10_12Q]}, ["GPU", "HostDevices"])
    on = {"enabled": True}
    policy = cluster_policy({"sandboxWorkloads": on, "sandboxDevicePlugin": on, "vgpuDeviceManager": on})
    found = _only(_dump(kubevirt, policy), "mediated-devices-left-to-gpu-operator")
    assert found.result == "fail"
    runnable = [line for line in fix_lines(found.remediation) if not line.startswith("#")]
    assert runnable == ["kubectl get kubevirt -n kubevirt kubevirt -o jsonpath='{.status.observedKubeVirtVersion}'"], runnable
    assert "If it is v1.8.0 or later: kubectl patch kubevirt -n kubevirt kubevirt --type merge -p" in found.remediation
    assert ". If it is older: kubectl patch kubevirt -n kubevirt kubevirt --type json -p" in found.remediation


def test_restoring_external_resource_provider_says_to_restart_the_sandbox_plugin_where_it_lists_0() -> None:
    """Trial 119: while externalResourceProvider was missing, virt-handler's own plugin registered the name too; once
    the flag is back its plugin stops, and the kubelet counts the last registered endpoint's devices unhealthy until
    the sandbox plugin registers again, which it does when it starts."""
    permit = {"pciVendorSelector": "10DE:2331", "resourceName": "nvidia.com/GH100_H100_PCIE"}
    policy = {
        "apiVersion": "nvidia.com/v1",
        "kind": "ClusterPolicy",
        "metadata": {"name": "cluster-policy"},
        "spec": {"sandboxWorkloads": {"enabled": True}, "sandboxDevicePlugin": {"enabled": True}},
    }
    text = yaml.safe_dump(policy) + "---\n" + yaml.safe_dump(kubevirt_cr({"pciHostDevices": [permit]}))
    found = _only(text, "permitted-external-provider")
    assert found.result == "fail"
    assert found.remediation.endswith(
        "where a node lists one of them with 0 allocatable, restart the node's sandbox device plugin, which registers its"
        " resources again when it starts (the VMs running there keep their devices): kubectl delete pod -A -l"
        " app=nvidia-sandbox-device-plugin-daemonset --field-selector spec.nodeName=NODE (NODE the node's name)"
    ), found.remediation


def test_the_eviction_fix_of_a_vmi_without_a_vm_says_the_replace_restarts_it() -> None:
    """Trial 121: a running VMI with no VirtualMachine, set to LiveMigrate, was told to kubectl replace --force it,
    which deletes it and starts it again (its guest shuts down), unsaid."""
    vmi = {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachineInstance",
        "metadata": {"name": "vm-a10", "namespace": "default"},
        "spec": {
            "evictionStrategy": "LiveMigrate",
            "domain": {"devices": {"gpus": [{"name": "g", "deviceName": "nvidia.com/GA102GL_A10"}]}},
        },
        "status": {"phase": "Running", "nodeName": "gpu-pt-1"},
    }
    found = _only(_dump(vmi), "gpu-vm-eviction-does-not-block-drain", "vmi.yaml")
    assert found.result == "fail"
    assert found.remediation == (
        "kubectl get vmi -n default vm-a10 -o yaml > vmi.yaml  # set spec.evictionStrategy: None in vmi.yaml, then kubectl"
        " replace --force -f vmi.yaml (a VMI's spec cannot be updated: this deletes it and starts it again, so its guest"
        " shuts down; do it when it may stop, and before a drain of its node)"
    ), found.remediation


def test_a_v1_hyperconverged_crs_permits_are_edited_in_spec_virtualization() -> None:
    """Trial 185: hco.kubevirt.io/v1 holds permittedHostDevices in spec.virtualization; the fix named spec."""
    from pathlib import Path

    from rules.engine import audit_paths

    dump = Path(__file__).resolve().parent.parent / "policies" / "gpu-operator" / "tests" / "dumps" / "hco_v1_permits.yaml"
    report = audit_paths([str(dump)], load_policies())
    [r] = [r for o in report.objects for r in o.results if r.rule == "device-name-permitted" and o.ref.name == "vm-a40"]
    assert r.result == "fail"
    assert r.remediation.startswith(
        "kubectl edit hyperconverged -n openshift-cnv kubevirt-hyperconverged  # spec.virtualization.permittedHostDevices"
        " (HCO copies it into the KubeVirt CR and overwrites edits made there)"
    )
