"""The real node of tests/data/real/ (an H100 in MIG mixed strategy, labels as GFD, NFD and the GPU Operator
wrote them) judged by the whole built-in pack: it is a healthy container node, so no rule may report a finding
on it (issue 13: no rule fires on the real node data that it should not), and the MIG rules that read what it
carries judge it rather than skip."""

from __future__ import annotations

from pathlib import Path

import pytest
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


def _edited(tmp_path: Path, where: tuple[str, str], key: str, value: str) -> dict[str, Result]:
    """The real node with ``node[where[0]][where[1]][key] = value`` (as an admin would make it disagree), audited:
    its results by rule."""
    node = yaml.safe_load(REAL.read_text(encoding="utf-8"))
    node[where[0]][where[1]][key] = value
    path = tmp_path / "node.yaml"
    path.write_text(yaml.safe_dump(node), encoding="utf-8")
    [obj] = audit_paths([str(path)], load_policies()).objects
    return {r.rule: r for r in obj.results}


LABELS, CAPACITY, ALLOCATABLE = ("metadata", "labels"), ("status", "capacity"), ("status", "allocatable")


@pytest.mark.parametrize(
    ("where", "key", "value", "rule", "result", "said"),
    [
        # the class of its three MIG resources was said three times
        (LABELS, "nvidia.com/gpu.workload.config", "vm-vgpu", "resource-class-matches-workload", "warn",
         "but it advertises only container GPU resources (nvidia.com/mig-1g.10gb, nvidia.com/mig-2g.20gb,"),
        # a '.shared' resource it does not have was said to be counted
        (CAPACITY, "nvidia.com/mig-1g.10gb", "3", "sharing-labels-match-advertised", "warn",
         "Node node-a: status.capacity has 3 of nvidia.com/mig-1g.10gb (counting nvidia.com/mig-1g.10gb.shared, its"
         " shared name, where listed), but"),
        # "fewer GPUs than the node has" under a name it does not advertise
        (LABELS, "nvidia.com/mig.strategy", "single", "mig-resources-match-strategy", "fail",
         "Pods asking for nvidia.com/gpu, as the single strategy expects, get none of these MIG devices, which the"
         " node advertises under their profile names."),
        # "the missing GPUs" of a MIG resource
        (ALLOCATABLE, "nvidia.com/mig-1g.10gb", "1", "no-unhealthy-devices", "fail",
         "reports the missing devices (GPUs, or the MIG devices of a nvidia.com/mig-* resource) unhealthy"),
    ],
)  # fmt: skip
def test_messages_on_the_real_node_made_to_disagree_say_only_what_it_shows(
    tmp_path: Path, where: tuple[str, str], key: str, value: str, rule: str, result: str, said: str
) -> None:
    """Trial 69 edited the real node four ways; each finding was right, and each message said something the node
    did not show."""
    r = _edited(tmp_path, where, key, value)[rule]
    assert (r.result, said in r.message) == (result, True), r.message
    if rule == "no-unhealthy-devices":  # and the host commands of every resource class, for a MIG resource
        assert r.remediation.endswith("then on the host: dmesg | grep -i xid and nvidia-smi -q"), r.remediation
