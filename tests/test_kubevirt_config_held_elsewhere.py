"""Remediations name the object to edit: the HyperConverged CR when HCO owns the KubeVirt CR (it rewrites the
KubeVirt CR's spec), else the KubeVirt CR; and the legacy kubevirt-config ConfigMap's settings go to whichever of
the two KubeVirt reads. Facts: docs/gpu-operator-facts.md §10. The pack fixtures (policies/gpu-operator/tests/)
pin results and messages; these tests pin the remediation text, which fixtures cannot.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import yaml

from rules.evaluate import evaluate
from rules.loader import PolicySet, load_policies
from rules.reader import parse_text, read_paths

ROOT = Path(__file__).resolve().parent.parent
PACK = ROOT / "policies" / "gpu-operator"
DUMPS = PACK / "tests" / "dumps"


@cache
def _pack() -> PolicySet:
    return load_policies([str(PACK)])


def _fixes(dump_objects: list[dict] | None = None, *files: str) -> dict[tuple[str, str], str]:
    """(object name, rule) -> remediation of each fail/warn result."""
    if dump_objects is not None:
        text = "\n---\n".join(yaml.safe_dump(o) for o in dump_objects)
        for name in files:
            text += "\n---\n" + (DUMPS / name).read_text()
        dump = parse_text(text, "inline.yaml")
    else:
        dump = read_paths([str(DUMPS / name) for name in files])
    report = evaluate(dump, _pack())
    return {(o.ref.name, r.rule): r.remediation for o in report.objects for r in o.results if r.result in ("fail", "warn")}


def _docs(name: str) -> list[dict]:
    return [d for d in yaml.safe_load_all((DUMPS / name).read_text()) if d]


HCO_EDIT = "kubectl edit hyperconverged -n openshift-cnv kubevirt-hyperconverged"
#: device-name-permitted's fix: the VM's own edit first, then the permit (trial 87)
OR_PERMIT = "; or, where a node advertises the name it asks for, permit that name: "


def test_a_kubevirt_cr_owned_by_hco_is_fixed_in_the_hyperconverged_cr() -> None:
    fixes = _fixes(None, "hyperconverged_cr.yaml", "kubevirt_edited_under_hyperconverged.yaml")
    kv = "kubevirt-kubevirt-hyperconverged"
    assert set(fixes) == {
        (kv, "permits-match-hyperconverged"),
        (kv, "host-devices-feature-gate"),
        ("a40-training", "device-name-permitted"),
        ("h100-passthrough", "host-devices-gate-enabled"),
    }
    assert fixes[(kv, "permits-match-hyperconverged")] == (
        f"{HCO_EDIT}  # spec.permittedHostDevices: pciHostDevices[] with pciDeviceSelector, mediatedDevices[], "
        f"usbHostDevices[]; then kubectl get kubevirt -n openshift-cnv {kv} -o yaml shows what HCO wrote"
    )
    assert fixes[("a40-training", "device-name-permitted")] == (
        "kubectl get vmi -n ml a40-training -o yaml > vmi.yaml  # edit vmi.yaml, then kubectl replace --force -f vmi.yaml"
        f" (a VMI's spec cannot be updated){OR_PERMIT}{HCO_EDIT}  # spec.permittedHostDevices (HCO copies it into the"
        " KubeVirt CR and overwrites edits made there)"
    )
    for key in ((kv, "host-devices-feature-gate"), ("h100-passthrough", "host-devices-gate-enabled")):
        assert "kubectl get hyperconverged -n openshift-cnv kubevirt-hyperconverged -o yaml" in fixes[key]
        assert "kubevirt.kubevirt.io/jsonpatch" in fixes[key]
        assert "kubectl patch kubevirt" not in fixes[key]


def test_without_hco_the_kubevirt_cr_is_edited() -> None:
    fixes = _fixes(None, "clusterpolicy_sandbox_enabled.yaml", "suspicious_passthrough_names.yaml")
    assert fixes[("kubevirt", "permitted-name-from-nvidia-entry")] == (
        "kubectl edit kubevirt -n kubevirt kubevirt  # add an entry with resourceName nvidia.com/GH100_H100_PCIE "
        "(same pciVendorSelector, externalResourceProvider: true) next to nvidia.com/DH89XXCC_CHAP_COUNTER in "
        "spec.configuration.permittedHostDevices"
    )
    assert fixes[("kubevirt", "nvidia-device-not-permitted-as-container-resource")].startswith(
        "kubectl edit kubevirt -n kubevirt kubevirt  # rename resourceName nvidia.com/gpu in "
        "spec.configuration.permittedHostDevices"
    )


def test_hco_owned_permits_are_edited_in_the_hyperconverged_cr() -> None:
    # The Intel-named H100 permit of suspicious_passthrough_names.yaml, in a KubeVirt CR that HCO owns (its labels
    # only: no ownerReference, no HyperConverged CR in the dump).
    kubevirt = next(d for d in _docs("suspicious_passthrough_names.yaml") if d["kind"] == "KubeVirt")
    kubevirt["metadata"]["labels"] = {"app": "kubevirt-hyperconverged", "app.kubernetes.io/managed-by": "hco-operator"}
    fixes = _fixes([kubevirt])
    assert fixes[("kubevirt", "permitted-name-from-nvidia-entry")] == (
        "kubectl edit hyperconverged -n kubevirt kubevirt-hyperconverged  # add an entry with resourceName "
        "nvidia.com/GH100_H100_PCIE (same pciVendorSelector, externalResourceProvider: true) next to "
        "nvidia.com/DH89XXCC_CHAP_COUNTER in spec.permittedHostDevices (HCO copies it into the KubeVirt CR and "
        "overwrites edits made there; its PCI entries name the selector pciDeviceSelector)"
    )


def test_mediated_devices_under_hco_are_switched_off_in_the_hyperconverged_cr() -> None:
    """Trial 53: the field came with HCO v1.10.0 (#2320, api/v1beta1/hyperconverged_types.go there), not v1.13.0:
    an OpenShift Virtualization 4.14-4.16 admin was told the documented fix did not apply to them. Trial 54: kubectl
    patches the version the server prefers, hco.kubevirt.io/v1 from HCO v1.18.0, whose featureGates is a list that a
    v1beta1-shaped merge patch does not fit: the fix is an edit that says both shapes."""
    kubevirt = _docs("kubevirt_owned_by_hyperconverged.yaml")[0]
    gates = kubevirt["spec"]["configuration"]["developerConfiguration"]["featureGates"]
    gates.remove("DisableMDEVConfiguration")
    vgpu_node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "a10-vgpu-1", "labels": {"nvidia.com/gpu.workload.config": "vm-vgpu"}},
    }
    fixes = _fixes([kubevirt, vgpu_node], "clusterpolicy_sandbox_enabled.yaml", "hyperconverged_cr.yaml")
    # trial 87: the dump's HyperConverged CR is v1beta1 (what kubectl served): its shape first
    assert fixes[("kubevirt-kubevirt-hyperconverged", "mediated-devices-left-to-gpu-operator")] == (
        "kubectl edit hyperconverged -n openshift-cnv kubevirt-hyperconverged  # set spec.featureGates.disableMDevConfiguration:"
        " true (hco.kubevirt.io/v1beta1, HCO v1.10.0 and later, as that CR is in the dump; where kubectl shows"
        " hco.kubevirt.io/v1, HCO v1.18.0 and later, add {name: disableMDevConfiguration} to its list spec.featureGates);"
        " HCO owns this KubeVirt CR and reverts a patch of it"
    )
    # the same HyperConverged CR as hco.kubevirt.io/v1: both shapes, the list first
    hco = _docs("hyperconverged_cr.yaml")
    hco[0]["apiVersion"] = "hco.kubevirt.io/v1"
    fixes = _fixes([kubevirt, vgpu_node, *hco], "clusterpolicy_sandbox_enabled.yaml")
    assert fixes[("kubevirt-kubevirt-hyperconverged", "mediated-devices-left-to-gpu-operator")] == (
        "kubectl edit hyperconverged -n openshift-cnv kubevirt-hyperconverged  # add {name: disableMDevConfiguration} to"
        " spec.featureGates (a list in hco.kubevirt.io/v1, HCO v1.18.0 and later; in v1beta1, HCO v1.10.0 and later,"
        " set spec.featureGates.disableMDevConfiguration: true); HCO owns this KubeVirt CR and reverts a patch of it"
    )


def test_a_legacy_configmap_points_at_what_kubevirt_reads() -> None:
    fixes = _fixes(None, "kubevirt_config_in_legacy_configmap.yaml")
    assert fixes[("kubevirt-config", "legacy-configmap-ignored")] == (
        "kubectl edit kubevirt -n kubevirt kubevirt  # spec.configuration, then: kubectl delete configmap -n kubevirt "
        "kubevirt-config"
    )
    alone = _fixes(None, "kubevirt_config_configmap_alone.yaml")
    assert alone[("kubevirt-config", "legacy-configmap-ignored")] == (
        "kubectl get kubevirt -A  # then kubectl edit kubevirt -n <namespace> <name>, in spec.configuration, then: kubectl "
        "delete configmap -n kubevirt kubevirt-config"
    )
    configmap = _docs("kubevirt_config_configmap_alone.yaml")[0]
    configmap["metadata"]["namespace"] = "openshift-cnv"
    under_hco = _fixes([configmap], "hyperconverged_cr.yaml", "kubevirt_owned_by_hyperconverged.yaml")
    assert under_hco[("kubevirt-config", "legacy-configmap-ignored")] == (
        f"{HCO_EDIT}  # spec.permittedHostDevices, then: kubectl delete configmap -n openshift-cnv kubevirt-config"
    )


def test_without_a_kubevirt_cr_the_hyperconverged_permits_decide() -> None:
    vmi = {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachineInstance",
        "metadata": {"name": "t4-vdi", "namespace": "vdi", "uid": "u-1"},
        "spec": {"domain": {"devices": {"gpus": [{"name": "gpu1", "deviceName": "nvidia.com/TU104GL_Tesla_T4"}]}}},
    }
    fixes = _fixes([vmi], "hyperconverged_cr.yaml")
    assert fixes == {
        ("t4-vdi", "device-name-permitted"): (
            "kubectl get vmi -n vdi t4-vdi -o yaml > vmi.yaml  # edit vmi.yaml, then kubectl replace --force -f vmi.yaml"
            f" (a VMI's spec cannot be updated){OR_PERMIT}{HCO_EDIT}  # spec.permittedHostDevices (HCO copies it into"
            " the KubeVirt CR and overwrites edits made there)"
        )
    }


def test_a_hyperconverged_cr_elsewhere_does_not_own_the_kubevirt_cr() -> None:
    # KubeVirt installed on its own in namespace kubevirt, next to an HCO in openshift-cnv: the KubeVirt CR is
    # edited, not the HyperConverged CR.
    kubevirt = next(d for d in _docs("suspicious_passthrough_names.yaml") if d["kind"] == "KubeVirt")
    vmi = {
        "apiVersion": "kubevirt.io/v1",
        "kind": "VirtualMachineInstance",
        "metadata": {"name": "a40", "namespace": "ml", "uid": "u-2"},
        "spec": {"domain": {"devices": {"gpus": [{"name": "gpu1", "deviceName": "nvidia.com/GA102GL_A40"}]}}},
    }
    fixes = _fixes([kubevirt, vmi], "hyperconverged_cr.yaml")
    assert fixes[("a40", "device-name-permitted")] == (
        "kubectl get vmi -n ml a40 -o yaml > vmi.yaml  # edit vmi.yaml, then kubectl replace --force -f vmi.yaml "
        f"(a VMI's spec cannot be updated){OR_PERMIT}kubectl edit kubevirt -n kubevirt kubevirt  #"
        " spec.configuration.permittedHostDevices"
    )
    assert fixes[("kubevirt", "permitted-name-from-nvidia-entry")].startswith("kubectl edit kubevirt -n kubevirt kubevirt  # ")
