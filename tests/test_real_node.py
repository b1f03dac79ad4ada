"""The real node of tests/data/real/ (an H100 in MIG mixed strategy, labels as GFD, NFD and the GPU Operator
wrote them) judged by the whole built-in pack: it is a healthy container node, so no rule may report a finding
on it (issue 13: no rule fires on the real node data that it should not), and the MIG rules that read what it
carries judge it rather than skip."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from rules.engine import audit_paths
from rules.loader import load_policies
from rules.report import Result

REAL = Path(__file__).resolve().parent / "data" / "real" / "h100-mig-mixed-node.yaml"


def test_the_real_mig_mixed_node_has_no_finding_and_its_mig_rules_pass() -> None:
    report = audit_paths([str(REAL)], load_policies())
    assert report.input_errors == []
    [node] = report.objects
    findings = [(r.rule, r.result, r.message) for r in node.results if r.result in ("fail", "warn", "error")]
    assert findings == []
    results = {r.rule: r.result for r in node.results}
    # MIG mixed strategy with mig-<profile> resources is what GFD and the device plugin produce: judged, and fine.
    assert results["mig-resources-match-strategy"] == "pass"
    assert results["mig-strategy-valid-for-layout"] == "pass"
    assert results["gpu-resources-advertised"] == "pass"
    # Regression (new user): the pass said "The node's MIG layout is one the single strategy can serve" of a node
    # in the mixed strategy whose all-balanced layout the single strategy refuses.
    messages = {r.rule: r.message for r in node.results}
    assert messages["mig-strategy-valid-for-layout"] == (
        "GPU feature discovery does not mark the node's MIG layout invalid (-MIG-INVALID) for its MIG strategy"
    )


def _edited(tmp_path: Path, edit: Callable[[dict[str, Any]], None]) -> dict[str, Result]:
    """The real node edited by ``edit`` (as an admin would make it disagree), audited: its results by rule."""
    node = yaml.safe_load(REAL.read_text(encoding="utf-8"))
    edit(node)
    path = tmp_path / "node.yaml"
    path.write_text(yaml.safe_dump(node), encoding="utf-8")
    [obj] = audit_paths([str(path)], load_policies()).objects
    return {r.rule: r for r in obj.results}


def test_messages_on_the_real_node_made_to_disagree_say_only_what_it_shows(tmp_path: Path) -> None:
    """Trial 69 edited the real node four ways; each finding was right, and each message said something the node
    did not show: the class of its three MIG resources three times, a '.shared' resource it does not have, fewer
    GPUs than it has under a name it does not advertise, and every resource class's host commands for a MIG
    resource."""

    def vgpu_label(n: dict[str, Any]) -> None:
        n["metadata"]["labels"]["nvidia.com/gpu.workload.config"] = "vm-vgpu"

    r = _edited(tmp_path, vgpu_label)["resource-class-matches-workload"]
    assert r.result == "warn"
    assert "but it advertises only container GPU resources (nvidia.com/mig-1g.10gb, nvidia.com/mig-2g.20gb," in r.message

    def count_off(n: dict[str, Any]) -> None:
        n["status"]["capacity"]["nvidia.com/mig-1g.10gb"] = "3"

    r = _edited(tmp_path, count_off)["sharing-labels-match-advertised"]
    assert r.result == "warn"
    assert r.message.startswith(
        "Node node-a: status.capacity has 3 of nvidia.com/mig-1g.10gb (counting nvidia.com/mig-1g.10gb.shared, its"
        " shared name, where listed), but"
    ), r.message

    def single(n: dict[str, Any]) -> None:
        n["metadata"]["labels"]["nvidia.com/mig.strategy"] = "single"

    r = _edited(tmp_path, single)["mig-resources-match-strategy"]
    assert r.result == "fail" and "fewer GPUs" not in r.message
    assert r.message.endswith(
        "Pods asking for nvidia.com/gpu, as the single strategy expects, get none of these MIG devices, which the"
        " node advertises under their profile names."
    ), r.message

    def unhealthy(n: dict[str, Any]) -> None:
        n["status"]["allocatable"]["nvidia.com/mig-1g.10gb"] = "1"

    r = _edited(tmp_path, unhealthy)["no-unhealthy-devices"]
    assert r.result == "fail"
    assert "reports the missing devices (GPUs, or the MIG devices of a nvidia.com/mig-* resource) unhealthy" in r.message
    assert r.remediation.endswith("then on the host: dmesg | grep -i xid and nvidia-smi -q"), r.remediation
