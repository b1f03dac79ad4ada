"""A terminal table (rich): one row per failing/warning/error result, then the summary line (skips that
exemptions made are counted there: ``3 skip (2 exempt)``).
Colour only when the output is a terminal (``color=True`` from the caller)."""

from __future__ import annotations

import io
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..report import Report

_STYLE = {"fail": "bold red", "error": "bold magenta", "warn": "yellow", "pass": "green", "skip": "dim"}


def render(report: Report, fmt: str = "table", color: bool = False, width: int = 160, all_results: bool = False, **_: Any) -> str:
    """Findings (fail/warn/error; the result words a ``--results`` filter asked for; every result with
    ``all_results``) as a table, then counts."""
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=color, no_color=not color, width=width, highlight=False)
    table = Table(show_lines=False, header_style="bold")
    for col in ("Object", "Rule", "Result", "Severity", "Message"):
        table.add_column(col, overflow="fold")
    shown = 0
    shown_words = set(report.filters.get("results") or ("fail", "warn", "error"))
    for obj, r in report.results:
        if not all_results and r.result not in shown_words:
            continue
        shown += 1
        # Text from the dump or a policy is escaped: "[container, vm-vgpu]" is not rich markup.
        table.add_row(
            escape(str(obj.ref)),
            escape(f"{r.policy}/{r.rule}"),
            f"[{_STYLE[r.result]}]{r.result}[/]",
            escape(r.severity),
            escape(r.message),
        )
    if shown:
        console.print(table)
    s = report.summary()
    exempt = s.get("exempt", 0)
    counts = ", ".join(
        f"{n} {k}" + (f" ({exempt} exempt)" if k == "skip" and exempt else "") for k, n in s["results"].items() if n
    )
    console.print(
        f"{s['objectsJudged']} objects judged ({s['objectsRead']} read): {counts or 'no results'}"
        + (f"; {s['inputErrors']} input errors" if s["inputErrors"] else "")
    )
    for err in report.input_errors:
        console.print(f"[{_STYLE['error']}]input error[/] {escape(str(err))}")
    return buf.getvalue()
