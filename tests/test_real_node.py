"""The real node of tests/data/real/ (an H100 in MIG mixed strategy, labels as GFD, NFD and the GPU Operator
wrote them) judged by the whole built-in pack: it is a healthy container node, so no rule may report a finding
on it (issue 13: no rule fires on the real node data that it should not), and the MIG rules that read what it
carries judge it rather than skip."""

from __future__ import annotations

from pathlib import Path

from rules.engine import audit_paths
from rules.loader import load_policies

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
