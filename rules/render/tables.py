"""Human views of policies for ``verdict policies show``: rules, then each data table."""

from __future__ import annotations

import io
import json
import textwrap
from pathlib import Path
from typing import Any

import orjson
from rich.cells import cell_len
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from .. import yamlsafe
from ..model import Match, Policy, Rule
from .native import plain
from .table import wrap


def _data_rows(table: Any) -> tuple[list[str], list[list[str]]] | None:
    """A list of mappings, or a mapping of key -> list of mappings (e.g. operands per workload), as
    (headers, rows of cell text); None for shapes that read better as text."""
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
    keyed = any(k for k, _ in rows)
    headers = (["key"] if keyed else []) + columns
    cells = [([k] if keyed else []) + [_cell(r.get(c)) for c in columns] for k, r in rows]
    return headers, cells


def _cell(value: Any) -> str:
    """A data value as the policy file could write it: JSON for a mapping or a list
    (``{"nvidia.com/cc.capable": "true"}``), ``true``/``false``, nothing for null; never Python's repr."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


#: Lines of a data table shown as YAML (one that is not rows) before the rest is counted, unless asked for by name.
DATA_LINES = 12


def _yaml_lines(table: Any, cut: bool) -> str:
    """``table`` as YAML, collections of scalars in flow style (``[container, vm-passthrough]``), indented two
    spaces; cut after ``DATA_LINES`` lines (with how many more, and how to see them) when ``cut``."""
    pieces = [{k: v} for k, v in table.items()] if isinstance(table, dict) else [table]
    lines = []
    for piece in pieces:
        # a mapping's own keys one to a line; a value that is a list or mapping of scalars in flow style
        scalar = isinstance(piece, dict) and not isinstance(next(iter(piece.values())), (dict, list))
        text = yamlsafe.dump(piece, default_flow_style=False if scalar else None, sort_keys=False, allow_unicode=True, width=100)
        lines += [f"  {line}" for line in text.rstrip().splitlines()]
    if cut and len(lines) > DATA_LINES + 1:
        more = len(lines) - DATA_LINES
        lines = [*lines[:DATA_LINES], f"  … {more} more lines (--data to show one table whole)"]
    return "\n".join(lines)


def _longest(texts: list[str], words: bool) -> int:
    """The widest word (``words``) or line of ``texts``, in terminal columns."""
    parts = (p for t in texts for p in (t.split() if words else t.splitlines()))
    return max((cell_len(p) for p in parts), default=0)


def fit_columns(headers: list[str], rows: list[list[str]], width: int) -> list[int] | None:
    """Column widths for a rich table of ``rows`` (borders and padding included) in ``width`` columns: each
    column at least as wide as its widest word, so that a label name or an id is never split; the widest
    columns give up room first, down to that. None when even the widest words do not fit side by side."""
    columns = list(zip(headers, *rows, strict=True))
    need = [_longest(list(c), words=True) for c in columns]
    widths = [_longest(list(c), words=False) for c in columns]
    room = width - (3 * len(columns) + 1)
    if sum(need) > room:
        return None
    while sum(widths) > room:
        shrinkable = [i for i, w in enumerate(widths) if w > need[i]]
        widest = max(shrinkable, key=lambda i: widths[i])
        widths[widest] -= 1
    return widths


def _folded(headers: list[str], rows: list[list[str]]) -> tuple[list[str], list[list[str]]] | None:
    """The table with its sparse columns (empty in at least half of the rows, never the first) written into
    the last of the others as ``(header: value)`` lines, so that a table too wide for the terminal stays a table
    (the operands table at 160 columns: its conditional, clusterPolicyField and extraNodeSelector columns are
    set in a few rows); None when no column is sparse or fewer than two would be left."""
    sparse = [i for i in range(1, len(headers)) if sum(1 for row in rows if row[i]) * 2 <= len(rows)]
    kept = [i for i in range(len(headers)) if i not in sparse]
    if not sparse or len(kept) < 2:
        return None

    def fold(row: list[str]) -> list[str]:
        cells = [row[i] for i in kept]
        extra = [f"({headers[i]}: {row[i]})" for i in sparse if row[i]]  # set apart from the text (trial 55)
        cells[-1] = "\n".join([cells[-1], *extra] if cells[-1] else extra)
        return cells

    return [headers[i] for i in kept], [fold(row) for row in rows]


def _print_table(console: Console, title: str, headers: list[str], rows: list[list[str]]) -> None:
    """``rows`` as a rich table as wide as ``console``, its cells wrapped at spaces (``render.table.wrap``: a
    word is never split); when the widest words of the columns do not fit side by side, its sparse columns
    folded into its last one (``_folded``), else a list, a row a block: its first cell, then each other cell
    under its header. Cell text is never rich markup."""
    widths = fit_columns(headers, rows, console.width)
    if widths is None:
        folded = _folded(headers, rows)
        if folded is not None and (fitted := fit_columns(*folded, console.width)) is not None:
            (headers, rows), widths = folded, fitted
    if widths is None:
        if title:
            console.print(Text(title, style="bold"))
        for row in rows:
            console.print(Text("\n".join(wrap(row[0], console.width)), style="bold"))
            for header, cell in zip(headers[1:], row[1:], strict=True):
                if cell:
                    console.print(Text("\n".join(wrap(f"{header}: {cell}", console.width, 2))))
        return
    table = Table(title=title or None, header_style="bold", title_justify="left")
    for header, w in zip(headers, widths, strict=True):
        table.add_column(header, width=w, no_wrap=True)
    for row in rows:
        table.add_row(*(Text("\n".join(wrap(cell, w))) for cell, w in zip(row, widths, strict=True)))
    console.print(table)


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


def _natural_width(headers: list[str], rows: list[list[str]]) -> int:
    """The width a table of ``rows`` takes with no cell wrapped (borders and padding included)."""
    columns = list(zip(headers, *rows, strict=True))
    return sum(_longest(list(c), words=False) for c in columns) + 3 * len(columns) + 1


def show_pack(policies: list[Policy], color: bool = False, width: int | None = None, data: tuple[str, ...] = ()) -> str:
    """Rules of each policy and its data tables, as terminal tables; with ``data``, only those tables.

    ``width``: None for the terminal's (rich reads it), 0 for as wide as the widest table needs with no cell
    wrapped (a file or a pipe: a row a line), else that many columns. Cells wrap at spaces only; a table
    whose words cannot all stand side by side is a list (``_print_table``)."""
    parts: list[tuple[str, str, list[str], list[list[str]]]] = []  # (heading, table title, headers, rows)
    for p in policies if not data else ():
        heading = f"[bold]{escape(p.name)}[/] {escape(p.version)}  {escape(p.title)}  ({escape(p.file)})"
        rules = [[r.id, ", ".join(sorted(r.match.kinds)), r.severity, r.title] for r in p.rules]
        parts.append((heading, "", ["rule", "kinds", "severity", "title"], rules))
    shown: set[str] = set()
    for p in policies:
        for name, table in p.data.items():
            if name in shown or (data and name not in data):
                continue
            shown.add(name)
            laid_out = _data_rows(table)
            if laid_out is not None:
                parts.append(("", f"data: {name}", *laid_out))
            else:
                # table text is data (regexes with [a-z] classes): never rich markup
                parts.append((f"[bold]data: {escape(name)}[/]\n{escape(_yaml_lines(table, cut=not data))}", "", [], []))
    if width == 0:
        headings = [max(map(cell_len, Text.from_markup(heading).plain.splitlines()), default=0) for heading, *_ in parts]
        width = max([80, *headings, *(_natural_width(h, rows) for _, _, h, rows in parts if h)])
    buf = io.StringIO()
    console = Console(file=buf, force_terminal=color, no_color=not color, width=width, highlight=False)
    for heading, title, headers, rows in parts:
        if heading:
            console.print(heading)
        if headers:
            _print_table(console, title, headers, rows)
    if color:
        return buf.getvalue()
    # rich pads a table's centred title to the table's width: no line ends in spaces in a pipe or a file
    return "\n".join(line.rstrip(" ") for line in buf.getvalue().split("\n"))


def match_detail(m: Match) -> dict[str, Any]:
    """A rule's ``match`` in the policy file's words (the service's ``RuleDetailSchema.match``)."""
    sel = m.selector
    return {
        "kinds": sorted(m.kinds),
        "apiVersions": list(m.api_versions),
        "namespaces": list(m.namespaces),
        "names": list(m.names),
        "matchLabels": dict(sel.labels) if sel else {},
        "matchExpressions": [{"key": k, "operator": op, "values": sorted(vs)} for k, op, vs in sel.expressions] if sel else [],
    }


def rule_detail(r: Rule, version: str) -> dict[str, Any]:
    """One rule as ``GET /v1/rules/<policy/rule>`` answers it and ``verdict policies show POLICY/RULE`` prints it
    (``version``: its policy's)."""
    example = orjson.loads(orjson.dumps(r.example, default=plain)) if r.example is not None else None
    return {
        "uid": r.uid,
        "policy": r.policy,
        "policyVersion": version,
        "id": r.id,
        "title": r.title,
        "description": r.description,
        "severity": r.severity,
        "category": r.category,
        "onFailure": r.on_failure,
        "match": match_detail(r.match),
        "message": r.message,
        "remediation": r.remediation,
        "references": list(r.references),
        "example": example,
    }


def show_rule(r: Rule, version: str, file: str = "") -> str:
    """``rule_detail`` as block YAML, for a terminal and a pipe alike; with its policy's ``file``, then where the
    rule is written and its definition as written there (preconditions, vars, assertion, comments), which is
    what an author checks."""
    detail = rule_detail(r, version)
    written = rule_as_written(r, file) if file else None
    if written is not None:
        detail["source"] = f"{file}:{r.line}"
    text = yamlsafe.dump(detail, sort_keys=False, allow_unicode=True, width=100)
    if written is None:
        return text
    # a literal block, as written (safe_dump would fold it into a quoted scalar)
    body = "".join(f"  {line}\n" if line.strip() else "\n" for line in written.splitlines())
    return f"{text}definition: |-\n{body}"


def rule_as_written(r: Rule, file: str) -> str | None:
    """The lines of rule ``r`` in its policy ``file``, from its ``- id:`` line to the next item of the list (or
    the end of it), dedented; None when the file cannot be read or does not hold it there."""
    try:
        lines = Path(file).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    start = r.line - 1
    if not 0 <= start < len(lines) or r.id not in lines[start]:
        return None
    first = lines[start]
    column = len(first) - len(first.lstrip())  # of the list item's dash (or of its first key)
    end = start + 1
    while end < len(lines):
        line = lines[end]
        if line.strip() and not line.lstrip().startswith("#") and len(line) - len(line.lstrip()) <= column:
            break
        end += 1
    while end > start + 1 and (not lines[end - 1].strip() or lines[end - 1].lstrip().startswith("#")):
        end -= 1  # the comments before the next rule are its own
    return textwrap.dedent("\n".join(lines[start:end]))
