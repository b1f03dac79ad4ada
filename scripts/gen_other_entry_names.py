#!/usr/bin/env python3
"""Print the ``otherEntryNames`` table of policies/gpu-operator/data/passthrough-names.yaml: the passthrough
resource names that NVIDIA's KubeVirt GPU device plugin gave NVIDIA GPUs after ANOTHER pci.ids entry (another
vendor's device, a subsystem line, a vendor line or a comment) before v1.2.2.

Usage:
    git -C kubevirt-gpu-device-plugin show cb0c89f1a5eb:utils/pci.ids > old.ids   # bundled in v1.1.1 .. v1.2.1
    git -C kubevirt-gpu-device-plugin show v1.4.0:utils/pci.ids > new.ids        # Version 2025.07.11
    .venv/bin/python scripts/gen_other_entry_names.py old.ids new.ids

Sources (docs/gpu-operator-facts.md §10):
- NVIDIA/kubevirt-gpu-device-plugin@531e81bb2873 (v1.1.1; v1.1.2 and v1.2.0 identical):
  pkg/device_plugin/device_plugin.go ``getDeviceName``: reads /usr/pci.ids from the top, trims each line,
  takes the FIRST line that contains the device id anywhere, splits it on the id and names the device after
  what follows (a line holding the id twice gives "" and so the bare-id fallback);
- NVIDIA/kubevirt-gpu-device-plugin@1e20db6bcd14 (v1.2.1, PR #53): the same, but skips a line unless the id
  is at its start (after trimming), so a later vendor's device, subsystem or vendor line can still match;
- NVIDIA/kubevirt-gpu-device-plugin@590457e21016 (v1.2.2, PR #72) and later: only the device lines of vendor
  10de, as docs/gpu-operator-facts.md §3 describes.
The transformation of the matched text is the one of §3 (upper-case; ``/`` ``.`` and whitespace to ``_``;
drop ``[^a-zA-Z0-9_.]``). The script reproduces the public reports: NVIDIA/kubevirt-gpu-device-plugin#42
(10de:1f08 -> SAS_5_IR_INTEGRATED_RAID_CONTROLLER, v1.1.x), #53 (10de:2206 -> _PDF), #106 (10de:2330 ->
802_11BG_WIRELESS_CARDBUS_ADAPTER) and NVIDIA/gpu-operator#556 (10de:13f3 -> ARIEL_DEVICE_24_FUNCTION_3, v1.2.1).

Which NVIDIA device ids are listed: those whose name in the new pci.ids starts with a chip code ending in GL
(professional and data-center boards) or with GV100, GP100, GA100, GH100, GB100 or GB102 (data-center chips),
plus the ids of the public reports above. Other ids (consumer boards, audio and USB functions) are left out
to keep the table small; the algorithm applies to them alike.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from pathlib import Path

NVIDIA = "10de"
SELECTED = re.compile(r"^([A-Z]{2}\d{3}GL|GV100|GP100|GA100|GH100|GB100|GB102)\b")
REPORTED = ("1f08", "21c4", "2206", "13f3")
# Which plugin releases (and the GPU Operator releases that deploy them, from each operator tag's
# deployments/gpu-operator/values.yaml) run each algorithm.
BY = {
    "A": "kubevirt-gpu-device-plugin v1.1.1 to v1.2.0 (GPU Operator v1.11)",
    "B": "kubevirt-gpu-device-plugin v1.2.1 (GPU Operator v22.9.0 to v23.3.2)",
    "AB": "kubevirt-gpu-device-plugin v1.1.1 to v1.2.1 (GPU Operator v1.11 to v23.3.2)",
}
_GO_SPACE = re.compile(r"[\t\n\f\r ]+")  # RE2's \s is ASCII whitespace only
_DROP = re.compile(r"[^a-zA-Z0-9_.]+")
_VENDOR = re.compile(r"^([0-9a-f]{4})  (.*)$")


def transform(text: str) -> str:
    """getDeviceName's clean-up: TrimSpace, ToUpper (rune by rune, as Go does), '/' and '.' to '_', whitespace
    runs to '_', then every character outside [a-zA-Z0-9_.] dropped."""
    upper = "".join(c.upper() if len(c.upper()) == 1 else c for c in text.strip())
    name = _GO_SPACE.sub("_", upper.replace("/", "_").replace(".", "_"))
    return _DROP.sub("", name)


def old_match(lines: list[str], device: str, at_start: bool) -> tuple[str, int | None]:
    """The name (and the index of the line it came from) of plugin v1.1.1-v1.2.0 (``at_start`` False) or v1.2.1
    (True); ("", None) when the plugin falls back to the bare id."""
    for i, raw in enumerate(lines):
        line = raw.strip()
        if line and device in line:
            parts = line.split(device)
            if len(parts) != 2:
                return "", None
            if at_start and parts[0] != "":
                continue
            return transform(parts[1]), i
    return "", None


def nvidia_devices(lines: list[str]) -> dict[str, str]:
    """Device id -> pci.ids name, for the device lines of vendor 10de."""
    out: dict[str, str] = {}
    inside = False
    for line in lines:
        if line.startswith(NVIDIA):
            inside = True
            continue
        if not inside or line.startswith("#"):
            continue
        if not line.startswith("\t"):
            break
        if not line.startswith("\t\t"):
            out[line[1:5]] = line[5:].strip()
    return out


def vendors_by_line(lines: list[str]) -> list[str]:
    """For each line, the vendor block it lies in ("<id> <name>"), or "" before the first vendor."""
    out, current = [], ""
    for line in lines:
        m = _VENDOR.match(line)
        if m:
            current = f"{m.group(1)} {m.group(2)}"
        elif line.startswith("C "):
            current = ""  # the device class list that ends the file
        out.append(current)
    return out


def table(old: list[str], new: list[str]) -> dict[str, dict[str, str]]:
    """Wrong name -> {deviceIds, gpus, line, vendor, by, name}, for every listed id whose old name came from a
    line other than its own NVIDIA device line."""
    now = nvidia_devices(new)
    ids = [d for d, n in now.items() if SELECTED.match(n)] + [d for d in REPORTED if d not in now or not SELECTED.match(now[d])]
    vendor = vendors_by_line(old)
    rows: dict[str, list[tuple[str, str, int]]] = defaultdict(list)
    for device in ids:
        for algo, at_start in (("A", False), ("B", True)):
            name, i = old_match(old, device, at_start)
            if not name or i is None:
                continue
            if old[i].startswith("\t" + device) and vendor[i].startswith(NVIDIA + " "):
                continue  # its own entry
            rows[name].append((device, algo, i))
    out: dict[str, dict[str, str]] = {}
    for name in sorted(rows):
        hits = rows[name]
        devices = sorted({d for d, _, _ in hits})
        algos = "".join(sorted({a for _, a, _ in hits}))
        i = hits[0][2]
        out[f"nvidia.com/{name}"] = {
            "deviceIds": ", ".join(devices),
            "gpus": ", ".join(now.get(d, "(no entry)") for d in devices),
            "line": old[i].strip(),
            "vendor": vendor[i] or "(none)",
            "by": BY[algos],
            "name": ", ".join(f"nvidia.com/{transform(now[d]) if d in now else d}" for d in devices),
        }
    return out


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render(rows: dict[str, dict[str, str]]) -> str:
    """One YAML flow mapping a line, keys in a fixed order."""
    lines = ["otherEntryNames:"]
    for name, row in rows.items():
        fields = ", ".join(f"{k}: {_quote(v)}" for k, v in row.items())
        lines.append(f"  {name}: {{{fields}}}")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    old, new = (Path(p).read_text(encoding="utf-8", errors="surrogateescape").split("\n") for p in argv)
    sys.stdout.write(render(table(old, new)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
