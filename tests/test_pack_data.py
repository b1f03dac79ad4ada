"""The gpu-operator pack's data tables and its example dumps.

The tables (policies/gpu-operator/data/*.yaml) transcribe docs/gpu-operator-facts.md; these tests pin
them to that document (every expected value below is copied from it, section by section) and check that
they agree with each other. The example dumps (examples/*.yaml) are checked against a small reference
reading of the pack's rules, so that every good object passes and every broken object fails exactly the
rules its `verdict.dev/expect` annotation names. The pack's rule YAML stays the authority on the rules;
the reading here only keeps the fixtures honest.

Nothing here reads outside the repository: the real node dump is copied into tests/data/real/.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "policies" / "gpu-operator" / "data"
EXAMPLES = ROOT / "examples"
REAL = Path(__file__).resolve().parent / "data" / "real"

WORKLOADS = ["container", "vm-passthrough", "vm-vgpu"]
WL_LABEL = "nvidia.com/gpu.workload.config"
EXPECT = "verdict.dev/expect"
RULE_IDS = {
    "workload-label-valid",
    "resource-class-matches-workload",
    "single-resource-class",
    "deploy-labels-match-workload",
    "vgpu-profile-matches-config",
    "no-unhealthy-devices",
    "gpu-pod-not-on-vm-node",
    "workload-schedulable",
    "device-name-permitted",
    "device-advertised",
    "gpus-via-devices",
    "extended-resource-request-valid",
    "label-ignored-sandbox-disabled",
    "sandbox-workloads-enabled-for-vm-nodes",
}


# --------------------------------------------------------------------------------------------- loading
def _load_tables() -> dict:
    tables: dict = {}
    for path in sorted(DATA.glob("*.yaml")):
        doc = yaml.safe_load(path.read_text())
        assert isinstance(doc, dict), path
        clash = set(doc) & set(tables)
        assert not clash, f"{path.name} redefines {clash}"
        tables.update(doc)
    return tables


T = _load_tables()


def _docs(path: Path) -> list[dict]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d is not None]


LAB = _docs(EXAMPLES / "lab-cluster.yaml")
SANDBOX_OFF = _docs(EXAMPLES / "sandbox-disabled.yaml")
REAL_NODE = yaml.safe_load((REAL / "h100-mig-mixed-node.yaml").read_text())


def classes_of(name: str) -> set[str]:
    return {w for w, rx in T["resourceClasses"].items() if re.search(rx, name)}


# --------------------------------------------------------------------------------------------- tables
def test_every_table_cites_its_source():
    citation = re.compile(r"[\w.-]+/[\w.-]+@[\w.]+:\S+")
    for path in sorted(DATA.glob("*.yaml")):
        lines = path.read_text().splitlines()
        for i, line in enumerate(lines):
            if not re.match(r"[A-Za-z][\w-]*:", line):
                continue
            block = []
            j = i - 1
            while j >= 0 and lines[j].startswith("#"):
                block.append(lines[j])
                j -= 1
            text = "\n".join(block)
            assert "# source:" in text and citation.search(text), f"{path.name}: {line.split(':')[0]}"


def test_workloads():
    assert T["workloads"] == WORKLOADS


# docs/gpu-operator-facts.md §2: the gpuStateLabels table (label suffix per workload) and the DaemonSet table.
FACTS_STATE_LABELS = {
    "container": {
        "driver",
        "gpu-feature-discovery",
        "container-toolkit",
        "device-plugin",
        "dcgm",
        "dcgm-exporter",
        "node-status-exporter",
        "operator-validator",
        "mig-manager",
    },
    "vm-passthrough": {"sandbox-device-plugin", "sandbox-validator", "vfio-manager", "kata-manager", "cc-manager"},
    "vm-vgpu": {"sandbox-device-plugin", "sandbox-validator", "cc-manager", "vgpu-manager", "vgpu-device-manager"},
}
FACTS_DAEMONSETS = {
    "driver": "nvidia-driver-daemonset",
    "container-toolkit": "nvidia-container-toolkit-daemonset",
    "device-plugin": "nvidia-device-plugin-daemonset",
    "gpu-feature-discovery": "gpu-feature-discovery",
    "dcgm": "nvidia-dcgm",
    "dcgm-exporter": "nvidia-dcgm-exporter",
    "node-status-exporter": "nvidia-node-status-exporter",
    "operator-validator": "nvidia-operator-validator",
    "mig-manager": "nvidia-mig-manager",
    "vfio-manager": "nvidia-vfio-manager",
    "sandbox-device-plugin": "nvidia-sandbox-device-plugin-daemonset",
    "sandbox-validator": "nvidia-sandbox-validator",
    "vgpu-manager": "nvidia-vgpu-manager-daemonset",
    "vgpu-device-manager": "nvidia-vgpu-device-manager",
    "kata-manager": "nvidia-kata-manager",
    "cc-manager": "nvidia-cc-manager",
}


@pytest.mark.parametrize("workload", WORKLOADS)
def test_operands_match_facts(workload):
    entries = T["operands"][workload]
    names = [e["operand"] for e in entries]
    assert len(names) == len(set(names))
    assert set(names) == FACTS_STATE_LABELS[workload]
    for e in entries:
        assert set(e) <= {
            "operand",
            "daemonset",
            "label",
            "description",
            "conditional",
            "clusterPolicyField",
            "extraNodeSelector",
            "podNotJudged",
        }, e
        assert e["label"] == f"nvidia.com/gpu.deploy.{e['operand']}"
        assert e["daemonset"] == FACTS_DAEMONSETS[e["operand"]]
        assert e["description"] and "\n" not in e["description"]
        assert ("conditional" in e) == (e["operand"] == "mig-manager")
    assert {e["label"] for e in entries} == {f"nvidia.com/gpu.deploy.{x}" for x in FACTS_STATE_LABELS[workload]}


def test_vm_vgpu_label_set_exactly():
    assert {e["operand"] for e in T["operands"]["vm-vgpu"]} == {
        "sandbox-device-plugin",
        "sandbox-validator",
        "cc-manager",
        "vgpu-manager",
        "vgpu-device-manager",
    }


def test_mig_manager_is_the_only_conditional_operand():
    conditional = [(w, e["operand"], e["conditional"]) for w in WORKLOADS for e in T["operands"][w] if "conditional" in e]
    assert conditional == [("container", "mig-manager", "mig-capable")]


def test_cluster_policy_gates():
    # docs/gpu-operator-facts.md §1: state-<x> runs only when sandbox is enabled and spec.<field>.enabled; the validator
    # needs only sandbox enabled; cc-manager's DaemonSet also needs nvidia.com/cc.capable=true (§2).
    gates = {e["operand"]: e.get("clusterPolicyField") for w in WORKLOADS for e in T["operands"][w]}
    assert {k: v for k, v in gates.items() if v} == {
        "sandbox-device-plugin": "sandboxDevicePlugin",
        "vfio-manager": "vfioManager",
        "kata-manager": "kataManager",
        "cc-manager": "ccManager",
        "vgpu-manager": "vgpuManager",
        "vgpu-device-manager": "vgpuDeviceManager",
    }
    extra = {e["operand"]: e["extraNodeSelector"] for w in WORKLOADS for e in T["operands"][w] if "extraNodeSelector" in e}
    assert extra == {"cc-manager": {"nvidia.com/cc.capable": "true"}}


def test_deploy_label_tables_derive_from_operands():
    for w in WORKLOADS:
        assert T["deployLabels"][w] == [e["label"] for e in T["operands"][w]]
        assert T["requiredDeployLabels"][w] == [e["label"] for e in T["operands"][w] if "conditional" not in e]
    union = {label for w in WORKLOADS for label in T["deployLabels"][w]}
    assert len(T["allDeployLabels"]) == len(set(T["allDeployLabels"])) == len(union) == 16
    assert set(T["allDeployLabels"]) == union
    assert T["transientDeployLabelValues"] == ["paused-for-vgpu-change"]


# docs/gpu-operator-facts.md §2 "Version history of the map": v23.3.0 lacked kata-manager and cc-manager; the
# operator adds only the keys of its own map, so a node labelled by v23.3.0 lacks them.
FACTS_NOT_IN_V23_3_0 = ["kata-manager", "cc-manager"]


def test_version_dependent_deploy_labels():
    assert T["versionDependentDeployLabels"] == [f"nvidia.com/gpu.deploy.{x}" for x in FACTS_NOT_IN_V23_3_0]
    required = {label for w in WORKLOADS for label in T["requiredDeployLabels"][w]}
    assert set(T["versionDependentDeployLabels"]) <= required
    # every workload still has labels every version writes, so a node without any is still reported
    for w in WORKLOADS:
        assert set(T["requiredDeployLabels"][w]) - set(T["versionDependentDeployLabels"]), w


def test_sandbox_operands():
    assert T["sandboxOperands"] == {
        "container": [],
        "vm-passthrough": ["sandboxDevicePlugin", "vfioManager"],
        "vm-vgpu": ["sandboxDevicePlugin", "vgpuManager", "vgpuDeviceManager"],
    }


# --------------------------------------------------------------------------------------------- classes
# Every resource name docs/gpu-operator-facts.md gives, with the class it must fall in (None: no class).
FACTS_NAMES = [
    # §7 k8s-device-plugin / GFD, and the real H100 node
    ("nvidia.com/gpu", "container"),
    ("nvidia.com/gpu.shared", "container"),
    ("nvidia.com/mig-1g.5gb", "container"),
    ("nvidia.com/mig-2g.10gb", "container"),
    ("nvidia.com/mig-3g.20gb", "container"),
    ("nvidia.com/mig-7g.40gb", "container"),
    ("nvidia.com/mig-1g.10gb", "container"),
    ("nvidia.com/mig-2g.20gb", "container"),
    ("nvidia.com/mig-3g.40gb", "container"),
    ("nvidia.com/mig-7g.80gb", "container"),
    ("nvidia.com/mig-1g.5gb.shared", "container"),
    # §9 MIG profiles with attributes or compute slices (the device plugin writes "+" as ".")
    ("nvidia.com/mig-1g.10gb.me", "container"),
    ("nvidia.com/mig-1g.24gb.me.all", "container"),
    ("nvidia.com/mig-1g.24gb.gfx", "container"),
    ("nvidia.com/mig-1g.24gb-me", "container"),
    ("nvidia.com/mig-1c.2g.20gb", "container"),
    ("nvidia.com/mig-1g.10gb.me.shared", "container"),
    # §3 table (pci.ids 2025.07.11)
    ("nvidia.com/GA102GL_A10", "vm-passthrough"),
    ("nvidia.com/GA102GL_A40", "vm-passthrough"),
    ("nvidia.com/GA100GL_A30_PCIE", "vm-passthrough"),
    ("nvidia.com/GA100_A100_PCIE_40GB", "vm-passthrough"),
    ("nvidia.com/GA100_A100_SXM4_40GB", "vm-passthrough"),
    ("nvidia.com/GA100_A100_PCIE_80GB", "vm-passthrough"),
    ("nvidia.com/GA100_A100_SXM4_80GB", "vm-passthrough"),
    ("nvidia.com/GH100_H100_PCIE", "vm-passthrough"),
    ("nvidia.com/GH100_H100_SXM5_80GB", "vm-passthrough"),
    ("nvidia.com/GH100_H100L_94GB", "vm-passthrough"),
    ("nvidia.com/GH100_H200_SXM_141GB", "vm-passthrough"),
    ("nvidia.com/GH100_H200_NVL", "vm-passthrough"),
    ("nvidia.com/AD104GL_L4", "vm-passthrough"),
    ("nvidia.com/AD102GL_L40", "vm-passthrough"),
    ("nvidia.com/AD102GL_L40S", "vm-passthrough"),
    ("nvidia.com/TU104GL_TESLA_T4", "vm-passthrough"),
    ("nvidia.com/GA107GL_A2___A16", "vm-passthrough"),
    ("nvidia.com/GA100_A100SXM64GB", "vm-passthrough"),
    ("nvidia.com/GH100_GH200_120GB___480GB", "vm-passthrough"),
    # §3 plugin unit tests, older pci.ids, fallbacks (§3 and the appendix)
    ("nvidia.com/GK104GL_GRID_K520", "vm-passthrough"),
    ("nvidia.com/GK104_GL_GRID_K__520", "vm-passthrough"),
    ("nvidia.com/GH100H100_SXM5_80GB", "vm-passthrough"),
    ("nvidia.com/26b9", "vm-passthrough"),
    ("nvidia.com/2335", "vm-passthrough"),
    # the plugin before v1.1.1 kept the pci.ids name's case (trial 145: KubeVirt's user guide spelling is one)
    ("nvidia.com/TU104GL_Tesla_T4", "vm-passthrough"),
    ("nvidia.com/GP107_GeForce_GTX_1050", "vm-passthrough"),
    ("nvidia.com/GM107M_GeForce_GTX_860M", "vm-passthrough"),
    # §3/§4/§5 vGPU
    ("nvidia.com/NVIDIA_A10-12Q", "vm-vgpu"),
    ("nvidia.com/GRID_T4-1Q", "vm-vgpu"),
    ("nvidia.com/GRID_T4-2A", "vm-vgpu"),
    ("nvidia.com/GRID_P100X-1B", "vm-vgpu"),
    ("nvidia.com/NVIDIA_A100-40C", "vm-vgpu"),
    ("nvidia.com/NVIDIA_A100D-80C", "vm-vgpu"),
    ("nvidia.com/NVIDIA_A100-1-5C", "vm-vgpu"),
    ("nvidia.com/NVIDIA_A100-1-5CME", "vm-vgpu"),
    ("nvidia.com/NVIDIA_A10-4Q", "vm-vgpu"),
    ("nvidia.com/NVIDIA_A10-8Q", "vm-vgpu"),
    ("nvidia.com/NVIDIA_M60-0Q", "vm-vgpu"),
    # in no class
    ("nvidia.com/Gpu_x", None),  # no upper-case chip before the `_`
    ("nvidia.com/gpu_Tesla", None),
    ("nvidia.com/GA102GL_A10-x", None),  # `-` is deleted in either form
    ("nvidia.com/NVIDIA_A10-12", None),  # no series letter
    ("nvidia.com/A10-12Q", None),  # the vgpu.config type, not a resource name
    ("nvidia.com/NVIDIA_A10-012Q", None),  # leading zero
    ("nvidia.com/GA102GL-A10", None),  # the plugin deletes `-`
    ("nvidia.com/mig-1g.5gb.SHARED", None),
    ("nvidia.com/mig-1g.10gb+me", None),  # the NVML profile string, not a resource name
    ("nvidia.com/mig-1g.10gb.ME", None),
    ("nvidia.com/vm-passthrough", None),
    ("nvidia.com/26b", None),
    ("amd.com/gpu", None),
    ("gpu", None),
    ("cpu", None),
]


@pytest.mark.parametrize(("name", "expected"), FACTS_NAMES)
def test_facts_names_fall_in_exactly_the_expected_class(name, expected):
    assert classes_of(name) == ({expected} if expected else set())
    assert bool(re.search(T["anyGpuResource"], name)) == bool(expected)


def test_bare_device_id():
    bare = T["bareDeviceId"]
    assert re.search(bare, "nvidia.com/2335") and re.search(bare, "nvidia.com/26b9")
    for name in T["pciDeviceNames"].values():
        assert not re.search(bare, f"nvidia.com/{name}")
    for dev, names in T["pciDeviceNameVariants"].items():
        assert names[0] == T["pciDeviceNames"][dev]
        fallbacks = [n for n in names if re.search(bare, f"nvidia.com/{n}")]
        assert fallbacks in ([], [dev])
    for name, expected in FACTS_NAMES:
        if re.search(bare, name):
            assert expected == "vm-passthrough"


def test_every_table_name_is_in_its_class():
    for name in T["pciDeviceNames"].values():
        assert classes_of(f"nvidia.com/{name}") == {"vm-passthrough"}
    for names in T["pciDeviceNameVariants"].values():
        for name in names:
            assert classes_of(f"nvidia.com/{name}") == {"vm-passthrough"}
    for name in T["pciVendorSelectorResources"].values():
        assert classes_of(name) == {"vm-passthrough"}
    for vgpu_type in T["vgpuInstances"]:
        for prefix in ("NVIDIA", "GRID"):
            assert classes_of(f"nvidia.com/{prefix}_{vgpu_type}") == {"vm-vgpu"}, vgpu_type


def _unanchored(rx: str) -> str:
    assert rx.startswith("^") and rx.endswith("$")
    return rx[1:-1]


@settings(max_examples=300, deadline=None)
@given(data=st.data(), workload=st.sampled_from(WORKLOADS))
def test_classes_are_disjoint_on_generated_names(data, workload):
    name = data.draw(st.from_regex(_unanchored(T["resourceClasses"][workload]), fullmatch=True))
    assert classes_of(name) == {workload}, name
    assert re.search(T["anyGpuResource"], name)


def test_patterns_are_anchored_i_regexp_friendly():
    # Only groups, alternation, classes and quantifiers: no (?...), no \d \w \s, no lazy quantifiers.
    for rx in [*T["resourceClasses"].values(), T["bareDeviceId"], T["anyGpuResource"]]:
        body = _unanchored(rx)
        assert "(?" not in body and not re.search(r"\\[dwsDWSbB]", body) and "*?" not in body
        re.compile(rx)


# --------------------------------------------------------------------------------------------- vGPU
def _plugin_name(pci_ids_name: str) -> str:
    """kubevirt-gpu-device-plugin getDeviceName() transformation (docs/gpu-operator-facts.md §3)."""
    s = pci_ids_name.strip().upper().replace("/", "_").replace(".", "_")
    s = re.sub(r"\s+", "_", s)
    return re.sub(r"[^a-zA-Z0-9_.]+", "", s)


# docs/gpu-operator-facts.md §3 table: device id -> pci.ids name.
FACTS_PCI_IDS = {
    "2236": "GA102GL [A10]",
    "2235": "GA102GL [A40]",
    "20b7": "GA100GL [A30 PCIe]",
    "20b1": "GA100 [A100 PCIe 40GB]",
    "20f1": "GA100 [A100 PCIe 40GB]",
    "20b0": "GA100 [A100 SXM4 40GB]",
    "20b5": "GA100 [A100 PCIe 80GB]",
    "20b2": "GA100 [A100 SXM4 80GB]",
    "2331": "GH100 [H100 PCIe]",
    "2330": "GH100 [H100 SXM5 80GB]",
    "2321": "GH100 [H100L 94GB]",
    "2335": "GH100 [H200 SXM 141GB]",
    "233b": "GH100 [H200 NVL]",
    "27b8": "AD104GL [L4]",
    "26b5": "AD102GL [L40]",
    "26b9": "AD102GL [L40S]",
    "1eb8": "TU104GL [Tesla T4]",
    "25b6": "GA107GL [A2 / A16]",
    "20b3": "GA100 [A100-SXM-64GB]",
    "2342": "GH100 [GH200 120GB / 480GB]",
}


def test_plugin_transformation_reproduces_facts_examples():
    assert _plugin_name("GK104GL [GRID K520]") == "GK104GL_GRID_K520"
    assert _plugin_name("gk104.gl [grid/k./520]") == "GK104_GL_GRID_K__520"
    assert _plugin_name("GH100 [H100 PCIe]") == "GH100_H100_PCIE"
    assert _plugin_name("GH100[H100 SXM5 80GB]") == "GH100H100_SXM5_80GB"


def test_pci_device_names():
    assert T["pciDeviceNames"] == {dev: _plugin_name(name) for dev, name in FACTS_PCI_IDS.items()}
    assert T["pciDeviceNames"]["2236"] == "GA102GL_A10"
    assert T["pciDeviceNames"]["25b6"] == "GA107GL_A2___A16"
    assert T["pciVendorSelectorResources"] == {
        f"10DE:{dev.upper()}": f"nvidia.com/{name}" for dev, name in T["pciDeviceNames"].items()
    }
    assert T["pciDeviceNameVariants"] == {
        "2330": ["GH100_H100_SXM5_80GB", "GH100H100_SXM5_80GB"],
        "26b9": ["AD102GL_L40S", "26b9"],
        "2335": ["GH100_H200_SXM_141GB", "2335"],
        "233b": ["GH100_H200_NVL", "233b"],
    }


# docs/gpu-operator-facts.md §4, "Max instances per physical GPU" (a sample from every row) and the doc quotes.
FACTS_INSTANCES = {
    "T4-1Q": 16,
    "T4-8C": 2,
    "T4-16Q": 1,
    "A10-1Q": 24,
    "A10-3Q": 8,
    "A10-4Q": 6,
    "A10-6C": 4,
    "A10-8Q": 3,
    "A10-12Q": 2,
    "A10-24C": 1,
    "L4-12Q": 2,
    "A16-8Q": 2,
    "A2-16C": 1,
    "A40-1Q": 32,
    "A40-2Q": 24,
    "A40-16C": 3,
    "A40-48Q": 1,
    "L40S-24Q": 2,
    "L40-1Q": 32,
    "L20-48C": 1,
    "A30-4C": 6,
    "A30-24C": 1,
    "A100-5C": 8,
    "A100-1-5C": 7,
    "A100-1-10C": 4,
    "A100-2-10C": 3,
    "A100-3-20C": 2,
    "A100-4-20C": 1,
    "A100-7-40C": 1,
    "A100-1-5CME": 1,
    "A100X-20C": 2,
    "A100D-16C": 5,
    "A100DX-80C": 1,
    "H100-5C": 16,
    "H100-1-10C": 7,
    "H100-1-20C": 4,
    "H100XM-40C": 2,
    "H100L-4C": 23,
    "H100L-47C": 2,
    "H100L-94C": 1,
    "H200X-7C": 20,
    "H200-17C": 8,
    "H200X-141C": 1,
}


def test_vgpu_instances_match_facts():
    inst = T["vgpuInstances"]
    for vgpu_type, count in FACTS_INSTANCES.items():
        assert inst[vgpu_type] == count, vgpu_type
    assert all(isinstance(n, int) and n >= 1 for n in inst.values())
    # rows docs/gpu-operator-facts.md says are the same as another
    for same, ref in [
        ("L4", "A10"),
        ("A16", "T4"),
        ("A2", "T4"),
        ("L40S", "A40"),
        ("L40", "A40"),
        ("L20", "A40"),
        ("A100X", "A100"),
        ("A100DX", "A100D"),
        ("H100XM", "H100"),
        ("H200", "H200X"),
    ]:

        def row(prefix):
            return {t.split("-", 1)[1]: n for t, n in inst.items() if t.startswith(prefix + "-") and t.count("-") == 1}

        assert row(same) == row(ref), same
    # every type is a well-formed vGPU type name (docs/gpu-operator-facts.md §4 grammar, via the vm-vgpu class)
    for vgpu_type in inst:
        assert re.search(T["resourceClasses"]["vm-vgpu"], f"nvidia.com/NVIDIA_{vgpu_type}"), vgpu_type


FACTS_DEFAULT = {
    "0x223610DE": {"A10-12Q": 2},
    "0x27B810DE": {"L4-12Q": 2},
    "0x26B910DE": {"L40S-24Q": 2},
    "0x26B510DE": {"L40-24Q": 2},
    "0x223510DE": {"A40-24Q": 2},
    "0x1EB810DE": {"T4-8Q": 2},
    "0x25B610DE": {"A16-8Q": 2, "A2-8Q": 2},
    "0x20B710DE": {"A30-12C": 2},
    "0x20F110DE": {"A100-20C": 2},
    "0x20B010DE": {"A100X-20C": 2},
    "0x20B510DE": {"A100D-40C": 2},
    "0x20B210DE": {"A100DX-40C": 2},
    "0x233110DE": {"H100-40C": 2},
    "0x233010DE": {"H100XM-40C": 2},
    "0x232110DE": {"H100L-47C": 2},
    "0x233510DE": {"H200X-70C": 2},
    "0x233B10DE": {"H200-70C": 2},
    "0x234210DE": {"GH200-96C": 1},
}


def test_vgpu_default_config():
    default = T["vgpuDefaultConfig"]
    for device_filter, types in FACTS_DEFAULT.items():
        assert default[device_filter] == types, device_filter
    assert "0x20B110DE" not in default
    # trial 184: the default config of boards the hand-copied table lacked (v25.10.1, lines 2863, 2779, 2843)
    assert default["0x26BA10DE"] == {"L20-24Q": 2}
    assert default["0x232210DE"] == {"H800-40C": 2}
    assert default["0x26B110DE"] == {"RTX6000-Ada-24Q": 2}
    for device_filter, types in default.items():
        assert re.fullmatch(r"0x[0-9A-F]{4}10DE", device_filter)
        for vgpu_type, count in types.items():
            # `default` creates as many of its (half-frame-buffer) type as a GPU holds
            assert T["vgpuDefaultInstances"][vgpu_type] <= count and count % T["vgpuDefaultInstances"][vgpu_type] == 0
            if vgpu_type != "DC-16Q":
                assert T["vgpuInstances"][vgpu_type] == count, vgpu_type
    # the DC types span boards: default makes 2 DC-16Q on 0x2C3A, the config DC-16Q 6 a GPU (v26.7.0)
    assert (default["0x2C3A10DE"], T["vgpuInstances"]["DC-16Q"], T["vgpuDefaultInstances"]["DC-16Q"]) == ({"DC-16Q": 2}, 6, 2)
    assert T["vgpuInstances"]["A10-12Q"] == default["0x223610DE"]["A10-12Q"] == 2


def test_vgpu_config_resources_derive_from_instances():
    expected = {t: [f"nvidia.com/NVIDIA_{t}", f"nvidia.com/GRID_{t}"] for t in T["vgpuInstances"]}
    default_types = list(dict.fromkeys(t for types in T["vgpuDefaultConfig"].values() for t in types))
    expected["default"] = [f"nvidia.com/{p}_{t}" for t in default_types for p in ("NVIDIA", "GRID")]
    assert T["vgpuConfigResources"] == expected
    # trial 184: A30-1-6C (v25.10.1 line 150) and the MIG-backed A100D types are configs of the operator's ConfigMap
    assert T["vgpuInstances"]["A30-1-6C"] == 4 and "A100D-1-10C" in T["vgpuInstances"]
    assert "A10-16Q" not in T["vgpuInstances"]  # no A10 type of 16 GB (trial 46's name no config has)


def test_vgpu_tables_are_what_the_script_makes_of_the_upstream_configmaps():
    """The generated part of vgpu-profiles.yaml is scripts/gen_vgpu_tables.py's output for the two upstream
    ConfigMaps in tests/data/upstream/gpu-operator, byte for byte: no table is edited by hand."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("gen_vgpu_tables", ROOT / "scripts" / "gen_vgpu_tables.py")
    assert spec and spec.loader
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    upstream = ROOT / "tests" / "data" / "upstream" / "gpu-operator"
    releases = {r: (upstream / f"{r}.yaml").read_text(encoding="utf-8") for r in ("v23.9.2", "v26.7.0")}
    text = (DATA / "vgpu-profiles.yaml").read_text(encoding="utf-8")
    assert text[text.index(gen.MARKER) :] == gen.render(list(releases), *gen.tables(releases))
    instances, default, _ = gen.tables(releases)
    assert len(instances) == 816 and len(default) == 65
    # v23.9.2's GPUs its successors dropped stay (a cluster on it has them); v26.7.0's new ones are there
    assert instances["M10-8Q"] == 1 and "M10-8Q" not in releases["v26.7.0"] and instances["B300X-269C"] == 1


# --------------------------------------------------------------------------------------------- dumps
def _labels(obj):
    return obj["metadata"].get("labels") or {}


def _cluster_policy(docs):
    cps = [d for d in docs if d["kind"] == "ClusterPolicy"]
    assert len(cps) == 1
    return cps[0]


def effective_workload(labels: dict, cp: dict) -> str:
    """docs/gpu-operator-facts.md §1 getWorkloadConfig."""
    sandbox = cp["spec"].get("sandboxWorkloads") or {}
    if sandbox.get("enabled") is not True:
        return "container"
    if labels.get(WL_LABEL) in WORKLOADS:
        return labels[WL_LABEL]
    default = sandbox.get("defaultWorkload")
    return default if default in WORKLOADS else "container"


def gpu_classes(node: dict) -> set[str]:
    status = node.get("status") or {}
    keys = set(status.get("allocatable") or {}) | set(status.get("capacity") or {})
    return {c for k in keys for c in classes_of(k)}


def node_findings(node: dict, cp: dict) -> set[str]:
    """A reference reading of the pack's Node rules (for the fixtures only)."""
    labels = _labels(node)
    if labels.get("nvidia.com/gpu.present") != "true":
        return set()
    found = set()
    sandbox_on = (cp["spec"].get("sandboxWorkloads") or {}).get("enabled") is True
    workload = effective_workload(labels, cp)
    if sandbox_on and WL_LABEL in labels and labels[WL_LABEL] not in WORKLOADS:
        found.add("workload-label-valid")
    if not sandbox_on and labels.get(WL_LABEL, "container") != "container":
        found.add("label-ignored-sandbox-disabled")
    classes = gpu_classes(node)
    if classes and workload not in classes:
        found.add("resource-class-matches-workload")
    if len(classes) > 1:
        found.add("single-resource-class")
    present = set(labels) & set(T["allDeployLabels"])
    allowed_values = {"true", "false", *T["transientDeployLabelValues"]}
    if (
        present - set(T["deployLabels"][workload])
        or set(T["requiredDeployLabels"][workload]) - present - set(T["versionDependentDeployLabels"])
        or any(labels[k] not in allowed_values for k in present)
    ):
        found.add("deploy-labels-match-workload")
    status = node.get("status") or {}
    allocatable, capacity = status.get("allocatable") or {}, status.get("capacity") or {}
    if workload == "vm-vgpu" and labels.get("nvidia.com/vgpu.config.state") != "pending":
        config = labels.get("nvidia.com/vgpu.config") or "default"
        advertised = {k for k in allocatable if classes_of(k) == {"vm-vgpu"}}
        if not advertised <= set(T["vgpuConfigResources"].get(config, [])):
            found.add("vgpu-profile-matches-config")
    for k in capacity:
        if classes_of(k) and int(allocatable.get(k, "0")) < int(capacity[k]):
            found.add("no-unhealthy-devices")
    return found


def _gpu_keys(mapping) -> dict[str, int]:
    return {k: int(v) for k, v in (mapping or {}).items() if classes_of(k)}


def demand(obj: dict) -> dict[str, int]:
    """GPU resources a workload asks for: container requests (defaulting to limits), or one per VMI
    gpus[]/hostDevices[] entry plus any GPU resource in the VMI's resources."""
    out: Counter = Counter()
    if obj["kind"] == "Pod":
        for c in obj["spec"]["containers"]:
            res = c.get("resources") or {}
            out.update({**_gpu_keys(res.get("limits")), **_gpu_keys(res.get("requests"))})
    else:
        domain = obj["spec"]["domain"]
        devices = domain.get("devices") or {}
        for entry in (devices.get("gpus") or []) + (devices.get("hostDevices") or []):
            out[entry["deviceName"]] += 1
        res = domain.get("resources") or {}
        out.update({**_gpu_keys(res.get("requests")), **_gpu_keys(res.get("limits"))})
    return dict(out)


def bound_node(obj: dict) -> str | None:
    if obj["kind"] == "Pod":
        return obj["spec"].get("nodeName")
    return (obj.get("status") or {}).get("nodeName")


def workload_findings(obj: dict, docs: list[dict]) -> set[str]:
    """A reference reading of the pack's Pod/VMI rules (for the fixtures only)."""
    cp = _cluster_policy(docs)
    nodes = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Node"}
    workloads = [d for d in docs if d["kind"] in ("Pod", "VirtualMachineInstance")]
    found = set()
    want = demand(obj)
    if obj["kind"] == "Pod":
        for c in obj["spec"]["containers"]:
            res = c.get("resources") or {}
            limits, requests = _gpu_keys(res.get("limits")), _gpu_keys(res.get("requests"))
            if any(k not in limits or limits[k] != v for k, v in requests.items()):
                found.add("extended-resource-request-valid")
    else:
        kv = [d for d in docs if d["kind"] == "KubeVirt"]
        permitted_cfg = kv[0]["spec"]["configuration"]["permittedHostDevices"] if kv else {}
        permitted = {e["resourceName"] for entries in permitted_cfg.values() for e in entries}
        devices = obj["spec"]["domain"].get("devices") or {}
        names = [e["deviceName"] for e in (devices.get("gpus") or []) + (devices.get("hostDevices") or [])]
        if any(n not in permitted for n in names):
            found.add("device-name-permitted")
        advertised = {k for n in nodes.values() for k in (n["status"].get("allocatable") or {})}
        if any(n not in advertised for n in names):
            found.add("device-advertised")
        res = obj["spec"]["domain"].get("resources") or {}
        if _gpu_keys(res.get("limits")) or _gpu_keys(res.get("requests")):
            found.add("gpus-via-devices")
    # candidates: the bound node, else the nodes matching the nodeSelector
    pinned = bound_node(obj)
    selector = (obj["spec"].get("nodeSelector") or {}) if obj["kind"] == "Pod" else {}
    candidates = [
        n
        for name, n in nodes.items()
        if (pinned is None or name == pinned) and all(_labels(n).get(k) == v for k, v in selector.items())
    ]
    if obj["kind"] == "Pod" and any(classes_of(k) == {"container"} for k in want) and (pinned or selector):
        if candidates and all(effective_workload(_labels(n), cp) != "container" for n in candidates):
            found.add("gpu-pod-not-on-vm-node")
    # a VMI asking for a device KubeVirt does not permit gets no launcher pod: nothing is scheduled (trial 49)
    if want and "device-name-permitted" not in found:

        def fits(node):
            used: Counter = Counter()
            for other in workloads:
                if other is not obj and bound_node(other) == node["metadata"]["name"]:
                    used.update(demand(other))
            allocatable = node["status"].get("allocatable") or {}
            return all(int(allocatable.get(k, "0")) - used[k] >= v for k, v in want.items())

        if not any(fits(n) for n in candidates):
            found.add("workload-schedulable")
    return found


NFD_GPU_LABELS = (
    "feature.node.kubernetes.io/pci-10de.present",
    "feature.node.kubernetes.io/pci-0302_10de.present",
    "feature.node.kubernetes.io/pci-0300_10de.present",
)


def clusterpolicy_findings(obj: dict, docs: list[dict]) -> set[str]:
    """sandbox-workloads-enabled-for-vm-nodes, from the operator's own terms: sandbox workloads not enabled, and a
    GPU node it manages (nvidia.com/gpu.present, or an NFD mark of an NVIDIA device) labelled for a VM workload."""
    if ((obj.get("spec") or {}).get("sandboxWorkloads") or {}).get("enabled") is True:
        return set()
    for d in docs:
        labels = d["metadata"].get("labels") or {} if d["kind"] == "Node" else {}
        managed = labels.get("nvidia.com/gpu.present") == "true" or any(labels.get(k) == "true" for k in NFD_GPU_LABELS)
        if managed and labels.get(WL_LABEL) in ("vm-passthrough", "vm-vgpu"):
            return {"sandbox-workloads-enabled-for-vm-nodes"}
    return set()


def findings(obj: dict, docs: list[dict]) -> set[str]:
    if obj["kind"] == "Node":
        return node_findings(obj, _cluster_policy(docs))
    if obj["kind"] in ("Pod", "VirtualMachineInstance"):
        return workload_findings(obj, docs)
    if obj["kind"] == "ClusterPolicy":
        return clusterpolicy_findings(obj, docs)
    return set()


def expected_rules(obj: dict) -> set[str]:
    note = (obj["metadata"].get("annotations") or {}).get(EXPECT)
    if note is None:
        return set()
    ids, _, why = note.partition(":")
    assert why.strip(), note
    return {i.strip() for i in ids.split(",")}


ALL_DOCS = [("lab", d, LAB) for d in LAB] + [("sandbox-disabled", d, SANDBOX_OFF) for d in SANDBOX_OFF]


@pytest.mark.parametrize(
    ("dump", "obj", "docs"), ALL_DOCS, ids=[f"{dump}:{o['kind']}/{o['metadata']['name']}" for dump, o, _ in ALL_DOCS]
)
def test_example_object_fails_exactly_its_expected_rules(dump, obj, docs):
    assert expected_rules(obj) <= RULE_IDS
    assert findings(obj, docs) == expected_rules(obj)


@pytest.mark.parametrize("docs", [LAB, SANDBOX_OFF], ids=["lab", "sandbox-disabled"])
def test_example_objects_look_like_kubectl_output(docs):
    uids = []
    for d in docs:
        meta = d["metadata"]
        assert d["apiVersion"] and d["kind"] and meta["name"], d
        assert isinstance(meta["creationTimestamp"], str) and meta["uid"], meta["name"]
        uids.append(meta["uid"])
        if d["kind"] in ("Pod", "VirtualMachineInstance", "KubeVirt"):
            assert meta["namespace"]
        if d["kind"] in ("Node", "ClusterPolicy"):
            assert "namespace" not in meta
    assert len(uids) == len(set(uids))


def test_lab_has_every_object_of_the_issue():
    have = {(d["kind"], d["metadata"]["name"]) for d in LAB}
    nodes = [
        "gpu-container-1",
        "gpu-passthrough-1",
        "gpu-vgpu-1",
        "cpu-worker-1",
        "gpu-broken-wrong-class",
        "gpu-broken-label-typo",
        "gpu-broken-mixed-classes",
        "gpu-broken-stale-deploy",
        "gpu-broken-profile-mismatch",
        "gpu-broken-unhealthy",
    ]
    assert have == {("ClusterPolicy", "gpu-cluster-policy"), ("KubeVirt", "kubevirt")} | {("Node", n) for n in nodes} | {
        ("Pod", p) for p in ["cuda-vectoradd", "cuda-on-passthrough-node", "gpu-request-without-limit"]
    } | {
        ("VirtualMachineInstance", v)
        for v in ["vm-passthrough-a10", "vm-vgpu-a10", "vm-wrong-profile", "vm-resources-not-devices"]
    }
    # every rule but the sandbox-disabled ones is exercised by the lab, and those by their own example
    sandbox_off = {"label-ignored-sandbox-disabled", "sandbox-workloads-enabled-for-vm-nodes"}
    lab_rules = set().union(*(expected_rules(d) for d in LAB))
    assert lab_rules == RULE_IDS - sandbox_off
    assert set().union(*(expected_rules(d) for d in SANDBOX_OFF)) == sandbox_off


def test_lab_good_nodes_advertise_one_class_matching_their_workload():
    cp = _cluster_policy(LAB)
    good = {
        d["metadata"]["name"]: d
        for d in LAB
        if d["kind"] == "Node" and not expected_rules(d) and _labels(d).get("nvidia.com/gpu.present") == "true"
    }
    assert set(good) == {"gpu-container-1", "gpu-passthrough-1", "gpu-vgpu-1"}
    expected = {
        "gpu-container-1": ("container", "nvidia.com/gpu", "2"),
        "gpu-passthrough-1": ("vm-passthrough", "nvidia.com/GA102GL_A10", "1"),
        "gpu-vgpu-1": ("vm-vgpu", "nvidia.com/NVIDIA_A10-12Q", "4"),
    }
    for name, node in good.items():
        workload, resource, count = expected[name]
        assert effective_workload(_labels(node), cp) == workload
        assert gpu_classes(node) == {workload}
        gpu = {k: v for k, v in node["status"]["allocatable"].items() if classes_of(k)}
        assert gpu == {resource: count} == {k: v for k, v in node["status"]["capacity"].items() if classes_of(k)}
        deploy = {k: v for k, v in _labels(node).items() if k in T["allDeployLabels"]}
        assert deploy == dict.fromkeys(T["requiredDeployLabels"][workload], "true")
    vgpu = _labels(good["gpu-vgpu-1"])
    # 2 A10 GPUs x vgpuInstances[A10-12Q]
    assert (
        int(good["gpu-vgpu-1"]["status"]["allocatable"]["nvidia.com/NVIDIA_A10-12Q"])
        == 2 * T["vgpuInstances"][vgpu["nvidia.com/vgpu.config"]]
    )
    assert "nvidia.com/gpu.workload.config" not in _labels(good["gpu-container-1"])


def test_lab_cluster_config_enables_what_its_workloads_need():
    cp = _cluster_policy(LAB)
    assert cp["spec"]["sandboxWorkloads"] == {"enabled": True, "defaultWorkload": "container"}
    used = {
        effective_workload(_labels(n), cp)
        for n in LAB
        if n["kind"] == "Node" and _labels(n).get("nvidia.com/gpu.present") == "true"
    }
    assert used == set(WORKLOADS)
    for workload in used:
        for field in T["sandboxOperands"][workload]:
            assert cp["spec"][field]["enabled"] is True, field
    kv = next(d for d in LAB if d["kind"] == "KubeVirt")
    permitted = kv["spec"]["configuration"]["permittedHostDevices"]
    pci = permitted["pciHostDevices"][0]
    assert T["pciVendorSelectorResources"][pci["pciVendorSelector"]] == pci["resourceName"]
    mdev = permitted["mediatedDevices"][0]
    assert mdev["resourceName"] == "nvidia.com/" + re.sub(r"\s+", "_", mdev["mdevNameSelector"])
    assert _cluster_policy(SANDBOX_OFF)["spec"]["sandboxWorkloads"]["enabled"] is False


# --------------------------------------------------------------------------------------------- real data
def test_real_h100_mig_node_is_a_container_node():
    labels = REAL_NODE["metadata"]["labels"]
    assert json.loads((REAL / "h100-mig-mixed-node-labels.json").read_text()) == labels
    nvidia = [k for k in REAL_NODE["status"]["allocatable"] if k.startswith("nvidia.com/")]
    assert nvidia, "the real node advertises MIG resources"
    for name in nvidia:
        assert classes_of(name) == {"container"}, name
    # no workload label and (in its cluster) sandbox workloads off: container; MIG-capable, so the
    # conditional mig-manager label is there; nvidia.com/gpu.deploy.nvsm is not an operator state label
    assert WL_LABEL not in labels and labels["nvidia.com/mig.capable"] == "true"
    present = set(labels) & set(T["allDeployLabels"])
    assert present == set(T["deployLabels"]["container"])
    assert "nvidia.com/gpu.deploy.nvsm" in labels and "nvidia.com/gpu.deploy.nvsm" not in T["allDeployLabels"]
    sandbox_off = {"spec": {"sandboxWorkloads": {"enabled": False}}}
    assert node_findings(REAL_NODE, sandbox_off) == set()


def test_no_text_the_pack_shows_names_a_trial() -> None:
    """Regression (trial 203): an assumption's note, said in every report it applies to, ended "(trial 202)", a name
    of this project's own history that no user can look up. The pack's texts (any string value of a policy or data
    file: comments are no value) name none."""
    pack = Path(__file__).resolve().parent.parent / "policies" / "gpu-operator"

    def strings(value: object) -> list[str]:
        if isinstance(value, dict):
            return [s for v in value.values() for s in strings(v)]
        if isinstance(value, list):
            return [s for v in value for s in strings(v)]
        return [value] if isinstance(value, str) else []

    found = [
        (path.name, s[:80])
        for path in sorted([*pack.glob("*.yaml"), *pack.glob("data/*.yaml"), *pack.glob("shared/*.yaml")])
        for doc in yaml.safe_load_all(path.read_text(encoding="utf-8"))
        for s in strings(doc)
        if re.search(r"\btrials? \d", s)
    ]
    assert found == []
