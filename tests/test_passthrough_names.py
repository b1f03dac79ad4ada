"""The suspicious passthrough names of policies/gpu-operator/data/passthrough-names.yaml, and the script that
builds them (scripts/gen_other_entry_names.py).

Expected values are copied from docs/gpu-operator-facts.md §10, which gives for each the upstream source: the
plugin's getDeviceName at v1.1.1, v1.2.1 and v1.2.2, the pci.ids it bundles, and the public reports the names
come from (NVIDIA/kubevirt-gpu-device-plugin#42, #53, #106, NVIDIA/gpu-operator#556).
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import yaml

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "policies" / "gpu-operator" / "data"
NAMES = yaml.safe_load((DATA / "passthrough-names.yaml").read_text())
PROFILES = yaml.safe_load((DATA / "vgpu-profiles.yaml").read_text())
CLASSES = yaml.safe_load((DATA / "resource-classes.yaml").read_text())


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_other_entry_names", ROOT / "scripts" / "gen_other_entry_names.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GEN = _script()

# docs/gpu-operator-facts.md §10: wrong name -> (NVIDIA device id, vendor block of the line, producing plugins).
FACTS_OTHER_ENTRY = {
    "nvidia.com/DH89XXCC_CHAP_COUNTER": ("2331", "8086 Intel Corporation", "v1.1.1 to v1.2.1"),
    "nvidia.com/802_11BG_WIRELESS_CARDBUS_ADAPTER": ("2330", "168c Qualcomm Atheros", "v1.1.1 to v1.2.0"),
    "nvidia.com/ZYWALL_TURBO_CARD": ("2330", "19ba ZyXEL Communications Corp.", "v1.2.1"),
    "nvidia.com/82801GB_GR_ICH7_FAMILY_LPC_INTERFACE_BRIDGE": ("27b8", "8086 Intel Corporation", "v1.1.1 to v1.2.1"),
    "nvidia.com/DH89XXCC_PCI_EXPRESS_ROOT_PORT_1": ("2342", "8086 Intel Corporation", "v1.1.1 to v1.2.1"),
    "nvidia.com/DH89XXCC_USB2_ENHANCED_HOST_CONTROLLER_1": ("2335", "8086 Intel Corporation", "v1.2.1"),
    "nvidia.com/SAS_5_IR_INTEGRATED_RAID_CONTROLLER": ("1f08", "1000 Broadcom / LSI", "v1.1.1 to v1.2.0"),
    "nvidia.com/_PDF": ("2206", "1022 Advanced Micro Devices, Inc. [AMD]", "v1.1.1 to v1.2.0"),
    "nvidia.com/ARIEL_DEVICE_24_FUNCTION_3": ("13f3", "1022 Advanced Micro Devices, Inc. [AMD]", "v1.1.1 to v1.2.1"),
}


def test_facts_examples_are_in_the_table() -> None:
    table = NAMES["otherEntryNames"]
    for name, (device, vendor, plugins) in FACTS_OTHER_ENTRY.items():
        row = table[name]
        assert row["deviceIds"] == device, name
        assert row["vendor"] == vendor, name
        assert row["by"].startswith(f"kubevirt-gpu-device-plugin {plugins} (GPU Operator "), name
    assert table["nvidia.com/DH89XXCC_CHAP_COUNTER"] == {
        "deviceIds": "2331",
        "gpus": "GH100 [H100 PCIe]",
        "line": "2331  DH89xxCC Chap Counter",
        "vendor": "8086 Intel Corporation",
        "by": "kubevirt-gpu-device-plugin v1.1.1 to v1.2.1 (GPU Operator v1.11 to v23.3.2)",
        "name": "nvidia.com/GH100_H100_PCIE",
    }


def test_every_row_is_a_passthrough_name_no_nvidia_device_has() -> None:
    table = NAMES["otherEntryNames"]
    passthrough = CLASSES["resourceClasses"]["vm-passthrough"]
    known = {f"nvidia.com/{n}" for n in PROFILES["pciDeviceNames"].values()}
    known |= {f"nvidia.com/{n}" for names in PROFILES["pciDeviceNameVariants"].values() for n in names}
    for name, row in table.items():
        assert re.search(passthrough, name), name  # the plugin's transformation keeps only [A-Z0-9_]
        assert name not in known, name
        assert set(row) == {"deviceIds", "gpus", "line", "vendor", "by", "name"}, name
        assert name == "nvidia.com/" + GEN.transform(_after(row["line"], row["deviceIds"].split(", ")[0])), name
    # where the pack knows the device, the replacement is the pack's own passthrough name
    for row in table.values():
        for device, new in zip(row["deviceIds"].split(", "), row["name"].split(", "), strict=True):
            if device in PROFILES["pciDeviceNames"]:
                assert new == f"nvidia.com/{PROFILES['pciDeviceNames'][device]}"


def _after(line: str, device: str) -> str:
    """The text of a pci.ids line after the device id, as the old getDeviceName cut it."""
    return line.strip().split(device)[1]


def test_bare_device_id_names_follow_pci_device_names() -> None:
    assert NAMES["bareDeviceIdNames"] == {
        f"nvidia.com/{device}": f"nvidia.com/{name}" for device, name in PROFILES["pciDeviceNames"].items()
    }
    assert NAMES["bareDeviceIdNames"]["nvidia.com/2335"] == "nvidia.com/GH100_H200_SXM_141GB"
    for bare in NAMES["bareDeviceIdNames"]:
        assert re.search(CLASSES["bareDeviceId"], bare)


# ------------------------------------------------------------------------------------------ the generator
# An excerpt in pci.ids order and layout (vendor lines, tab-indented devices, two-tab subsystems, comments),
# holding the lines behind NVIDIA/kubevirt-gpu-device-plugin#106: 10de:2330 (H100 SXM5) is in no NVIDIA entry.
EXCERPT = [
    "1000  Broadcom / LSI",
    "\t0060  MegaRAID SAS 1078",
    "\t\t1028 1f08  SAS 5/iR Integrated RAID Controller",
    "168c  Qualcomm Atheros",
    "\t0013  AR5212/5213/2414 Wireless Network Adapter",
    "\t\t1186 3a1a  WNA-2330 802.11bg Wireless CardBus Adapter",
    "19ba  ZyXEL Communications Corp.",
    "\t2330  ZyWALL Turbo Card",
    "# a comment that mentions 2236 twice: 2236",
    "10de  NVIDIA Corporation",
    "\t1f08  TU106 [GeForce RTX 2060 Rev. A]",
    "\t2236  GA102GL [A10]",
    "8086  Intel Corporation",
    "\t2331  DH89xxCC Chap Counter",
]
NEW = ["10de  NVIDIA Corporation", "\t2330  GH100 [H100 SXM5 80GB]", "\t2331  GH100 [H100 PCIe]", "\t2236  GA102GL [A10]"]


def test_old_get_device_name_reproduces_the_public_reports() -> None:
    # v1.1.1 to v1.2.0: the first line that contains the id anywhere (#106: the Atheros subsystem line)
    assert GEN.old_match(EXCERPT, "2330", at_start=False) == ("802_11BG_WIRELESS_CARDBUS_ADAPTER", 5)
    # v1.2.1 (#53): only a line that starts with the id, still any vendor's
    assert GEN.old_match(EXCERPT, "2330", at_start=True) == ("ZYWALL_TURBO_CARD", 7)
    # #42: the RTX 2060 named after a Dell subsystem line by v1.1.x, its own entry from v1.2.1
    assert GEN.old_match(EXCERPT, "1f08", at_start=False) == ("SAS_5_IR_INTEGRATED_RAID_CONTROLLER", 2)
    assert GEN.old_match(EXCERPT, "1f08", at_start=True) == ("TU106_GEFORCE_RTX_2060_REV__A", 10)
    # a line that holds the id twice ends the search with no name: the plugin falls back to the bare id
    assert GEN.old_match(EXCERPT, "2236", at_start=False) == ("", None)
    assert GEN.nvidia_devices(NEW) == {"2330": "GH100 [H100 SXM5 80GB]", "2331": "GH100 [H100 PCIe]", "2236": "GA102GL [A10]"}


def test_generator_table_from_an_excerpt() -> None:
    rows = GEN.table(EXCERPT, NEW)
    assert set(rows) == {
        "nvidia.com/802_11BG_WIRELESS_CARDBUS_ADAPTER",
        "nvidia.com/ZYWALL_TURBO_CARD",
        "nvidia.com/DH89XXCC_CHAP_COUNTER",
        "nvidia.com/SAS_5_IR_INTEGRATED_RAID_CONTROLLER",
    }
    assert rows["nvidia.com/DH89XXCC_CHAP_COUNTER"] == {
        "deviceIds": "2331",
        "gpus": "GH100 [H100 PCIe]",
        "line": "2331  DH89xxCC Chap Counter",
        "vendor": "8086 Intel Corporation",
        "by": "kubevirt-gpu-device-plugin v1.1.1 to v1.2.1 (GPU Operator v1.11 to v23.3.2)",
        "name": "nvidia.com/GH100_H100_PCIE",
    }
    assert rows["nvidia.com/SAS_5_IR_INTEGRATED_RAID_CONTROLLER"]["name"] == "nvidia.com/1f08"  # not in NEW
    rendered = yaml.safe_load(GEN.render(rows))
    assert rendered == {"otherEntryNames": rows}


def test_transform_is_the_plugins() -> None:
    # docs/gpu-operator-facts.md §3, the plugin's unit tests
    assert GEN.transform("GK104GL [GRID K520]") == "GK104GL_GRID_K520"
    assert GEN.transform("gk104.gl [grid/k./520]") == "GK104_GL_GRID_K__520"
    assert GEN.transform(" GH100 [H100 PCIe] ") == "GH100_H100_PCIE"
