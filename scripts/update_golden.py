#!/usr/bin/env python3
"""Regenerate the golden report files in tests/data/golden/ that tests/test_render.py compares byte for byte.

Run it (``.venv/bin/python scripts/update_golden.py [CASE ...]``) when a change to a renderer, a rule or a
fixture is intended, then read the diff (``git diff tests/data/golden``) before committing it: the diff is
what a user of that format will see change.

Each case is a set of dumps audited with a set of policies, from the repository root so that file names
in the reports are relative. Reports are normalised before rendering: ``generated`` is fixed to
``GENERATED`` and every timing to 1 ms, so only real changes show.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rules.engine import audit_paths  # noqa: E402
from rules.loader import load_policies  # noqa: E402
from rules.render import render, render_many  # noqa: E402
from rules.report import Report  # noqa: E402

GOLDEN = ROOT / "tests" / "data" / "golden"
GENERATED = "2026-01-01T00:00:00Z"

#: case name -> dumps (each one report) and policy sources, paths relative to the repository root
CASES: dict[str, dict[str, list[str]]] = {
    "render": {"dumps": ["tests/data/render/dump.yaml"], "policies": ["tests/data/render/policy.yaml"]},
    "render-many": {
        "dumps": ["tests/data/render/dump.yaml", "tests/data/render/second-dump.yaml"],
        "policies": ["tests/data/render/policy.yaml"],
    },
    "lab": {"dumps": ["examples/lab-cluster.yaml"], "policies": ["policies/gpu-operator"]},
}

#: format -> file suffix of its golden file
SUFFIX = {
    "policyreport": "policyreport.yaml",
    "sarif": "sarif",
    "junit": "junit.xml",
    "markdown": "md",
    "table": "table.txt",
    "chat": "chat.txt",
}


@contextmanager
def at_root() -> Iterator[None]:
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        yield
    finally:
        os.chdir(here)


def available(case: str) -> bool:
    """Whether the dumps and policies of a case exist (a pack folder must hold a policy file)."""
    spec = CASES[case]
    for p in spec["dumps"] + spec["policies"]:
        path = ROOT / p
        if not path.exists():
            return False
        if path.is_dir() and not any(path.glob("*.yaml")):
            return False
    return True


def normalise(report: Report) -> Report:
    """Fix what changes from run to run: the generation time and the timings."""
    report.generated = GENERATED
    report.timing = dict.fromkeys(report.timing, 1.0)
    return report


def reports(case: str) -> list[Report]:
    """One normalised report per dump of the case."""
    spec = CASES[case]
    with at_root():
        policies = load_policies(spec["policies"])
        return [normalise(audit_paths([d], policies, name=d)) for d in spec["dumps"]]


def rendered(case: str, fmt: str, rs: list[Report] | None = None) -> str:
    """The text of a case in a format (several dumps go through ``render_many``); ``rs``: the case's
    reports when the caller already has them."""
    rs = reports(case) if rs is None else rs
    return render(rs[0], fmt) if len(rs) == 1 else render_many(rs, fmt)


def golden_path(case: str, fmt: str) -> Path:
    return GOLDEN / f"{case}.{SUFFIX[fmt]}"


def main(argv: list[str]) -> int:
    cases = argv or list(CASES)
    unknown = [c for c in cases if c not in CASES]
    if unknown:
        print(f"unknown case(s) {', '.join(unknown)}; one of {', '.join(CASES)}", file=sys.stderr)
        return 2
    GOLDEN.mkdir(parents=True, exist_ok=True)
    for case in cases:
        if not available(case):
            print(f"skip {case}: its dumps or policies are not in the checkout")
            continue
        rs = reports(case)  # audit once per case, render every format from it
        for fmt in SUFFIX:
            path = golden_path(case, fmt)
            text = rendered(case, fmt, rs)
            old = path.read_text(encoding="utf-8") if path.exists() else None
            if old != text:
                path.write_text(text, encoding="utf-8")
            print(f"{'same' if old == text else 'new' if old is None else 'changed'}  {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
