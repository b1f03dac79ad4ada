"""Human views of policies for ``verdict policies show``: rules, then each data table."""

from __future__ import annotations

import io
from typing import Any

from rich.cells import cell_len
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..model import Policy


def _data_table(name: str, table: Any) -> Table | None:
    """A rich table for a list of mappings, or a mapping of key -> list of mappings (e.g. operands per
    workload); None for shapes that read better as text."""
    rows: list[tuple[str, dict[str, Any]]] = []
    if isinstance(table, list) and table and all(isinstance(r, dict) for r in table):
        rows = [("", r) for r in table]
    elif (
        isinstance(table, dict)
        and table
        and all(isinstance(v, list) and v and all(isinstance(r, dict) for r in v) for v in table.values())
    ):
        rows = [(str(k), r) for k, v in table.items() for r in v]
    if not rows:
        return None
    columns: list[str] = []
    for _, r in rows:
        columns.extend(c for c in r if c not in columns)
    t = Table(title=f"data: {name}", header_style="bold")
    keyed = any(k for k, _ in rows)
    if keyed:
        t.add_column("key")
    for c in columns:
        t.add_column(c, overflow="fold")
    for k, r in rows:
        t.add_row(*([escape(k)] if keyed else []), *(escape(str(r.get(c, ""))) for c in columns))
    return t


def list_policies(policies: list[Policy]) -> str:
    """``verdict policies list``: a line per policy (name, version, rule count, title), its rules under it,
    each ``policy/rule``, severity and title in columns as wide as their longest entry across the listing,
    so that a long rule id keeps the columns in line; plain text, for a terminal and for grep alike."""
    rules = [r for p in policies for r in p.rules]
    uid_w = max((cell_len(r.uid) for r in rules), default=0)
    sev_w = max((cell_len(r.severity) for r in rules), default=0)
    lines = []
    for p in policies:
        lines.append(f"{p.name} {p.version}  ({len(p.rules)} rule{'' if len(p.rules) == 1 else 's'})  {p.title}")
        lines.extend(f"  {r.uid:<{uid_w}}  {r.severity:<{sev_w}}  {r.title}" for r in p.rules)
    return "".join(f"{line}\n" for line in lines)


def show_pack(policies: list[Policy], color: bool = False, width: int | None = 220, data: tuple[str, ...] = ()) -> str:
    """Rules of each policy and its data tables, as terminal tables; with ``data``, only those tables."""
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=color, no_color=not color, width=width, highlight=False)
    for p in policies if not data else ():
        console.print(f"[bold]{escape(p.name)}[/] {escape(p.version)}  {escape(p.title)}  ({escape(p.file)})")
        rules = Table(header_style="bold")
        for col in ("rule", "kinds", "severity", "title"):
            rules.add_column(col, overflow="fold")
        for r in p.rules:
            rules.add_row(r.id, ", ".join(sorted(r.match.kinds)), r.severity, escape(r.title))
        console.print(rules)
    shown: set[str] = set()
    for p in policies:
        for name, table in p.data.items():
            if name in shown or (data and name not in data):
                continue
            shown.add(name)
            rich_table = _data_table(name, table)
            if rich_table is not None:
                console.print(rich_table)
            else:
                text = str(table) if len(str(table)) < 400 else str(table)[:400] + " ..."
                # table text is data (regexes with [a-z] classes): never rich markup
                console.print(f"[bold]data: {escape(name)}[/] {escape(text)}")
    return buf.getvalue()
