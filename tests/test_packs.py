"""Every built-in pack's fixtures (policies/<pack>/tests/*.yaml), one pytest case per expectation, and the
coverage rule: each rule of a pack has at least one failing and one passing expectation. Then the runner
itself (rules/packtest.py) on small packs built in tmp_path."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from rules import packtest

PACKS = packtest.builtin_packs()
CASES = [(pack.name, case) for pack in PACKS for case in packtest.run_pack_tests(pack)]


def test_the_gpu_operator_pack_has_fixtures() -> None:
    assert "gpu-operator" in [p.name for p in PACKS]
    assert len(packtest.fixture_files(PACKS[0].parent / "gpu-operator")) >= 10


@pytest.mark.parametrize(("pack", "case"), CASES, ids=[f"{p}:{c.id}" for p, c in CASES])
def test_pack_fixture(pack: str, case: packtest.TestCaseResult) -> None:
    assert case.ok, case.message


@pytest.mark.parametrize("pack", PACKS, ids=[p.name for p in PACKS])
def test_every_rule_has_a_failing_and_a_passing_expectation(pack: Path) -> None:
    assert packtest.coverage_gaps(pack) == []


# ------------------------------------------------------------------------------------------ the runner

POLICY = """\
apiVersion: verdict/v1
kind: Policy
metadata: {name: gpu-count}
spec:
  rules:
  - id: gpu-count-label
    title: nvidia.com/gpu.count is set
    match: {kinds: [Node]}
    assert: {path: "$.metadata.labels['nvidia.com/gpu.count']", exists: true}
    message: Node {name} has no nvidia.com/gpu.count label
    references: [NVIDIA/k8s-device-plugin@1b826acc6af3:internal/lm/resource.go]
"""
DUMP = """\
apiVersion: v1
kind: Node
metadata:
  name: gpu-1
  labels: {nvidia.com/gpu.count: "2"}
---
apiVersion: v1
kind: Node
metadata: {name: cpu-1}
"""


def make_pack(tmp_path: Path, test: str, dump: str = DUMP) -> Path:
    pack = tmp_path / "mini"
    (pack / "tests" / "dumps").mkdir(parents=True)
    (pack / "gpu-count.yaml").write_text(POLICY)
    (pack / "tests" / "dumps" / "nodes.yaml").write_text(dump)
    (pack / "tests" / "fixture.yaml").write_text(textwrap.dedent(test))
    return pack


def test_expected_results_pass(tmp_path: Path) -> None:
    pack = make_pack(tmp_path, """\
        apiVersion: verdict/v1
        kind: Test
        metadata: {name: gpu-count}
        resources: [dumps/nodes.yaml]
        strict: true
        results:
        - {policy: gpu-count, rule: gpu-count-label, kind: Node, name: gpu-1, result: pass}
        - {rule: gpu-count-label, kind: Node, name: cpu-1, result: fail, messageContains: "Node cpu-1 has no"}
        """)
    results = packtest.run_pack_tests(pack)
    assert [(r.case, r.expected, r.actual, r.ok) for r in results] == [
        ("gpu-count/gpu-count-label on Node/gpu-1", "pass", "pass", True),
        ("gpu-count-label on Node/cpu-1", "fail", "fail", True),
        ("no other fail/warn/error (strict)", "none", "none", True),
    ]
    assert packtest.coverage_gaps(pack) == []


def test_a_wrong_expectation_says_what_differs(tmp_path: Path) -> None:
    pack = make_pack(tmp_path, """\
        apiVersion: verdict/v1
        kind: Test
        metadata: {name: wrong}
        resources: [dumps/nodes.yaml]
        results:
        - {rule: gpu-count-label, kind: Node, name: cpu-1, result: pass}
        - {rule: gpu-count-label, kind: Node, name: gpu-1, result: pass, messageContains: nope}
        - {rule: gpu-count-label, kind: Node, name: gpu-9, result: fail}
        - {rule: no-such-rule, kind: Node, name: gpu-1, result: fail}
        """)
    first, second, third, fourth = packtest.run_pack_tests(pack)
    assert (first.ok, first.actual) == (False, "fail")
    assert first.message == ("gpu-count-label on Node/cpu-1: expected pass, got fail: Node cpu-1 has no "
                             "nvidia.com/gpu.count label")
    assert not second.ok and "does not contain 'nope'" in second.message
    assert (third.ok, third.actual) == (False, "missing")
    assert "no such object" in third.message
    assert (fourth.ok, fourth.actual) == (False, "missing")
    assert "produced no result" in fourth.message
    assert packtest.coverage_gaps(pack) == []  # a fail and a pass expectation exist, right or wrong


def test_strict_lists_unexpected_findings(tmp_path: Path) -> None:
    pack = make_pack(tmp_path, """\
        apiVersion: verdict/v1
        kind: Test
        metadata: {name: strict}
        resources: [dumps/nodes.yaml]
        strict: true
        results:
        - {rule: gpu-count-label, kind: Node, name: gpu-1, result: pass}
        """)
    strict = packtest.run_pack_tests(pack)[-1]
    assert (strict.ok, strict.actual) == (False, "1 unlisted")
    assert "gpu-count/gpu-count-label on Node/cpu-1: fail" in strict.message
    assert packtest.coverage_gaps(pack) == [f"gpu-count/gpu-count-label: no fail expectation in {pack / 'tests'}"]


def test_inline_objects(tmp_path: Path) -> None:
    pack = make_pack(tmp_path, """\
        apiVersion: verdict/v1
        kind: Test
        metadata: {name: inline}
        objects:
        - {apiVersion: v1, kind: Node, metadata: {name: inline-1}}
        results:
        - {rule: gpu-count-label, kind: Node, name: inline-1, result: fail}
        """)
    assert [r.ok for r in packtest.run_pack_tests(pack)] == [True]


@pytest.mark.parametrize(("body", "reason"), [
    ("apiVersion: verdict/v1\nkind: Test\nmetadata: {name: x}\nresources: [dumps/nope.yaml]\n"
     "results: [{rule: r, kind: Node, name: n, result: fail}]\n", "resource 'dumps/nope.yaml' not found"),
    ("apiVersion: verdict/v1\nkind: Test\nmetadata: {name: x}\nresources: [dumps/nodes.yaml]\n"
     "results: [{rule: r, kind: Node, name: n, result: failed}]\n", "Must be one of"),
    ("apiVersion: verdict/v1\nkind: Test\nmetadata: {name: x}\nresults: [{rule: r, kind: Node, name: n, result: fail}]\n",
     "neither resources nor objects"),
    ("apiVersion: verdict/v1\nkind: Tests\nmetadata: {name: x}\n", "kind"),
    ("a: [\n", "line"),
])
def test_a_broken_fixture_is_a_failed_case(tmp_path: Path, body: str, reason: str) -> None:
    pack = make_pack(tmp_path, body)
    (result,) = packtest.run_pack_tests(pack)
    assert (result.ok, result.case) == (False, "load the fixture")
    assert reason in result.message


def test_cli_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = make_pack(tmp_path, """\
        apiVersion: verdict/v1
        kind: Test
        metadata: {name: ok}
        resources: [dumps/nodes.yaml]
        results:
        - {rule: gpu-count-label, kind: Node, name: gpu-1, result: pass}
        - {rule: gpu-count-label, kind: Node, name: cpu-1, result: fail}
        """)
    assert packtest.run_cli([str(good)]) == 0
    assert "mini: 2/2 cases passed" in capsys.readouterr().out
    (good / "tests" / "fixture.yaml").write_text((good / "tests" / "fixture.yaml").read_text().replace(
        "name: cpu-1, result: fail", "name: cpu-1, result: pass"))
    assert packtest.run_cli([str(good)]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "GAP  gpu-count/gpu-count-label: no fail expectation" in out
    assert packtest.run_cli([str(tmp_path / "nope")]) == 2
