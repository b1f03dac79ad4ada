"""The terminal view (rich): the summary line, the roll-up by rule, then each finding with its place in the
dump and its fix, laid out for the terminal's width.

Layout, at ``width`` columns (the CLI passes the terminal's):

- the summary line (skips that exemptions made are counted there: ``3 skip (2 exempt)``);
- the roll-up (``Report.by_rule()``): a table ``Rule | Severity | Findings | Examples`` when the width
  allows (``NARROW`` columns or more, and room for the examples), else a compact list, a rule a line and its
  severity, counts and examples under it;
- the details, grouped by rule (default: a heading per rule, its findings under it) or by object (a heading
  per object and its place, its findings under it); each finding is a line with its result, object (or
  rule) and place (``file:line``), then its message and ``fix:`` (the remediation), indented; by rule, where an
  earlier finding above says its message of its own object or has its fix (``said_before``), a line naming that one
  stands in their place. Compact under
  ``NARROW`` columns: a smaller indent, and each field on a line of its own when they do not fit on one.

Text is wrapped at spaces only: a word, an object or a rule id is never split across lines; a single token
longer than a whole line is cut with ``…`` (the other formats carry it whole). No line is wider than
``width`` but a fix's command: the fix is written as shell lines (``fix_block``), a command a line and whole,
however wide, its prose and the commands it offers as alternatives comment lines, so that lines copied from the
terminal run as the fix means. Colour only when the output is a terminal (``color=True`` from the caller); text from the dump and
the policies is never read as rich markup.
"""

from __future__ import annotations

import io
from typing import Any

from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..report import FINDINGS, RESULT_RANK, ObjectReport, Report, Result, RuleRollup, counted
from . import check_group_by, one_line, said_again, said_before, visible
from .chat import comment_at, fix_lines
from .markdown import _COMMAND, nothing_left, selected

#: Under this many columns the layout is compact.
NARROW = 100
#: The examples column of the roll-up table needs at least this many columns, else the roll-up is a list.
EXAMPLES_MIN = 24
#: a character no text holds, to read the codes of a style off rich's output
_MARK = "\ue000"
_STYLE = {"fail": "bold red", "error": "bold magenta", "warn": "yellow", "pass": "green", "skip": "dim"}


def _cut(word: str, width: int, front: bool = False) -> str:
    """``word``, or its first characters and ``…`` when it is wider than ``width``; with ``front``, ``…`` and its
    last characters (a place keeps its file name and line, which a must-gather's long folder names would push out:
    trial 53)."""
    if cell_len(word) <= width:
        return word
    while word and cell_len(word) > width - 1:
        word = word[1:] if front else word[:-1]
    return "…" + word if front else word + "…"


def _fill(tokens: list[str], width: int, indent: int, first: int, sep: str) -> list[str]:
    """``tokens`` ``sep`` apart, as many on a line as fit in ``width``: the first line after ``first`` spaces,
    the next ones after ``indent``; a token wider than its line is cut with ``…``, never split."""
    lines: list[str] = []
    line, pad = "", " " * first
    for token in tokens:
        room = width - len(pad)
        if line and cell_len(line) + len(sep) + cell_len(token) > room:
            lines.append(pad + line)
            line, pad = "", " " * indent
            room = width - indent
        line = f"{line}{sep}{_cut(token, room)}" if line else _cut(token, room)
    return [*lines, pad + line]


def wrap(text: str, width: int, indent: int = 0, first: int | None = None) -> list[str]:
    """``text`` as lines of at most ``width`` columns, each after ``indent`` spaces (the first line after
    ``first`` spaces when given, e.g. behind a label the caller prints), broken at spaces only: runs of spaces
    are one space, line breaks in ``text`` are kept, and a word wider than a line is cut with ``…``. The
    returned lines hold the indent."""
    out: list[str] = []
    for paragraph in str(text).splitlines() or [""]:
        out += _fill(paragraph.split(), width, indent, indent if first is None or out else first, " ")
    return out


def _fields(parts: list[str], width: int, indent: int, place: bool = False) -> list[str]:
    """``parts`` two spaces apart, as many on a line as fit in ``width``; the next ones on lines indented by
    ``indent`` (a part wider than its line is cut with ``…``, never split; with ``place`` the last part is a place,
    cut at its front)."""
    kept = [p for p in parts if p]
    if kept and place:
        kept[-1] = _cut(kept[-1], max(width - indent, 2), front=True)
    return _fill(kept, width, indent, 0, "  ")


def where(obj: ObjectReport, shared: frozenset[tuple[str, int]] = frozenset()) -> str:
    """The object's place in the dump: ``file:line`` (``file`` when the line is unknown), and ``items[N]`` for an item of
    a List on a line ``shared`` with other objects (trial 125: every object of JSON on one line was at ``file:1``;
    ``jq '.items[N]'`` shows it)."""
    src = obj.source
    place = f"{src.file}:{src.line}" if src.line else src.file
    # (a file's name on one line: trial 191)
    return one_line(f"{place} items[{src.item}]" if src.item is not None and (src.file, src.line) in shared else place)


def _shared_lines(report: Report) -> frozenset[tuple[str, int]]:
    """The (file, line) places of two objects or more of ``report``: a List written on one line."""
    seen: set[tuple[str, int]] = set()
    shared: set[tuple[str, int]] = set()
    for obj in report.objects:
        key = (obj.source.file, obj.source.line)
        (shared if key in seen else seen).add(key)
    return frozenset(shared)


class _View:
    """One rendering: lines of plain text (a report of 100,000 findings is joined, not printed line by line
    through rich), coloured with the ANSI codes rich gives each style when ``color``; rich draws the roll-up
    table."""

    def __init__(self, width: int, color: bool) -> None:
        self.width = width
        self.color = color
        self.compact = width < NARROW
        self.indent = 2 if self.compact else 6
        self.out: list[str] = []
        self.console = Console(file=io.StringIO(), force_terminal=color, no_color=not color, width=width, highlight=False)
        self._codes: dict[str, tuple[str, str]] = {}
        #: the places of two objects or more (``where``)
        self.shared: frozenset[tuple[str, int]] = frozenset()

    def styled(self, text: str, style: str) -> str:
        """``text`` between the codes that start and end ``style`` (as is without colour)."""
        if not (self.color and style and text):
            return text
        if style not in self._codes:
            with self.console.capture() as capture:
                self.console.print(Text(_MARK, style=style), end="")
            before, _, after = capture.get().partition(_MARK)
            self._codes[style] = (before, after)
        before, after = self._codes[style]
        return f"{before}{text}{after}"

    def line(self, text: str, style: str = "") -> None:
        # Text as written, never rich markup: a message like "[container, vm-vgpu]" is printed as it is; a control
        # character of the dump as its escape (trial 180: ESC [31m recoloured the terminal)
        self.out.append(self.styled(visible(text), style))

    def lines(self, texts: list[str], style: str = "") -> None:
        for text in texts:
            self.line(text, style)

    def result_line(self, text: str, word: str, lead: str = "") -> None:
        """A line that starts with a result word (or ``lead``), that in the colour of ``word``."""
        n = len(lead or word)
        self.out.append(self.styled(text[:n], _STYLE.get(word, "")) + visible(text[n:]))

    def table(self, table: Table) -> None:
        with self.console.capture() as capture:
            self.console.print(table)
        self.out.extend(capture.get().rstrip("\n").split("\n"))

    def text(self) -> str:
        return "\n".join(self.out) + "\n"


def _summary(s: dict[str, Any]) -> str:
    """The summary line of a report's (or a batch's added up) ``summary()``."""
    exempt = s.get("exempt", 0)
    counts = ", ".join(
        f"{n:,} {k}" + (f" ({exempt:,} exempt)" if k == "skip" and exempt else "") for k, n in s["results"].items() if n
    )
    judged = f"{counted(s['objectsJudged'], 'object')} judged ({s['objectsRead']:,} read{selected(s)})"
    # the results counted apart from the objects (trial 71: "6 objects judged: 5 pass, 5 fail, 2 skip" read as
    # counts of objects that add up to more than six)
    results = f"{counted(sum(s['results'].values()), 'result')}: {counts}" if counts else "no results"
    if s["results"].get("pass") and not any(s["results"].get(k) for k in ("fail", "warn", "error")):
        results += "; no fail, warn or error"  # (trial 168: a clean dump's table did not say so in words)
    return f"{judged}; {results}" + (f"; {counted(s['inputErrors'], 'input error')}" if s["inputErrors"] else "")


def _examples(x: RuleRollup) -> str:
    more = x.objects - len(x.examples)
    return one_line(", ".join(x.examples)) + (f" and {more:,} more" if more > 0 else "")


def _rollup(view: _View, rollup: list[RuleRollup]) -> None:
    """The roll-up: a table with a column of examples when the longest example fits in it; else a table
    with the examples under each rule; else (compact, or no room) a list, a rule a line."""
    width = view.width
    rule_w = max(cell_len("Rule"), *(cell_len(x.rule) for x in rollup))
    example_w = max((cell_len(e) for x in rollup for e in x.examples), default=0)
    sev_w = max(cell_len("Severity"), *(cell_len(x.severity) for x in rollup))
    count_w = max(cell_len("Findings"), *(cell_len(x.counts()) for x in rollup))
    examples_w = width - (3 * 4 + 1) - rule_w - sev_w - count_w
    under_w = width - (3 * 3 + 1) - sev_w - count_w  # the rule column when the examples go under the rule
    table = Table(header_style="bold")
    if not view.compact and examples_w >= max(example_w, EXAMPLES_MIN):
        for name, w in (("Rule", rule_w), ("Severity", sev_w), ("Findings", count_w), ("Examples", examples_w)):
            table.add_column(name, width=w, no_wrap=True)
        for x in rollup:
            table.add_row(x.rule, x.severity, x.counts(), "\n".join(wrap(_examples(x), examples_w)))
    elif not view.compact and under_w >= max(rule_w, example_w + 2):
        for name, w in (("Rule and examples", under_w), ("Severity", sev_w), ("Findings", count_w)):
            table.add_column(name, width=w, no_wrap=True)
        for x in rollup:
            cell = Text(x.rule + "\n")
            cell.append("\n".join(wrap(_examples(x), under_w, 2)), style="dim")
            table.add_row(cell, x.severity, x.counts())
    else:
        view.line(_cut("Findings by rule:", width), "bold")
        for x in rollup:
            view.line(_cut(x.rule, width), "bold")
            view.lines(wrap(f"{x.severity} · {x.counts()} · {_examples(x)}", width, 2))
        return
    view.table(table)


def _finding(
    view: _View,
    obj: ObjectReport,
    r: Result,
    group_by: str,
    said: tuple[ObjectReport, Result] | None = None,
    fixed: ObjectReport | None = None,
) -> None:
    """One result: result word, object (or rule) and place on a line, then message and fix, indented; where an earlier
    result of its rule above says its message of its own object (``said``) or has the same fix (``fixed``), a line
    naming that one in their place."""
    by_rule = group_by == "rule"
    if by_rule:
        parts = [r.result, one_line(str(obj.ref)), where(obj, view.shared)]
    else:
        parts = [f"{r.result} {r.severity}", f"{r.policy}/{r.rule}"]
    first, *rest = _fields(parts, view.width, view.indent, place=by_rule)
    view.result_line(first, r.result)
    view.lines(rest)
    if said is not None:
        both = said[0] is fixed  # its fix is that one's too
        view.lines(wrap(said_again(one_line(str(said[0].ref)), both), view.width, view.indent), "dim")
        if both or not r.remediation:
            return
    else:
        view.lines(wrap(r.message, view.width, view.indent))
    if fixed is not None:
        view.lines(wrap(f"{_FIX_LABEL}as for {one_line(str(fixed.ref))} above", view.width, view.indent), "dim")
    elif r.remediation and said is not None:
        view.lines(_fix_after(said, r, view.width, view.indent))
    elif r.remediation:
        view.lines(fix_block(r.remediation, view.width, view.indent))


def _fix_after(said: tuple[ObjectReport, Result], r: Result, width: int, indent: int) -> list[str]:
    """The fix of ``r``, whose message ``said``'s (above) says of its own object: its lines, but for the comment lines
    it ends with that are that one's last, word for word, which one line says are as above (trial 221 #4, trial
    223 #6: four lines of fix, the VM's name in one, written again for each of seven VMs). A command is always shown,
    the same or not: what is pasted runs as the fix means."""
    lines = fix_block(r.remediation, width, indent)
    theirs = said[1]
    if not theirs.remediation:
        return lines
    before = fix_block(theirs.remediation, width, indent)
    # only the comment lines after the last that differs (trial 224 #4: lines left out of the middle of a sentence
    # wrapped over several read as fragments)
    same = 0
    while (
        same < len(lines) - 1
        and same < len(before) - 1
        and lines[-1 - same] == before[-1 - same]
        and lines[-1 - same].lstrip().startswith("#")
    ):
        same += 1
    if not same:
        return lines
    kept = lines[: len(lines) - same]
    lead = " " * (indent + len(_FIX_LABEL))
    return [*kept, f"{lead}# the rest as for {one_line(str(said[0].ref))} above"]


#: What stands before a fix's first line; its later lines are indented as far.
_FIX_LABEL = "fix: "


def fix_block(fix: str, width: int, indent: int) -> list[str]:
    """A fix as shell lines (``chat.fix_lines``: a command a line, prose and alternatives as comments) after
    ``fix:``: a command, run or commented out, whole on its line, however wide (trial 173, 174: a command wrapped
    at the width was copied from the terminal as two lines, and pasted ran its first part alone; a terminal wraps a
    long line for the eye and copies it whole); prose wrapped at the width, each of its lines a comment, and so is a
    comment after a command that does not fit beside it. So every line copied runs as the fix means or not at all."""
    lead, out = indent + len(_FIX_LABEL), []
    if not fix.strip():
        return []

    def comment(text: str) -> None:
        for line in wrap(text, width - 2, lead, first=lead):
            out.append(f"{' ' * lead}# {line[lead:]}")

    for line in fix_lines(fix):
        body = line[2:] if line.startswith("# ") else None
        if body is not None and not _COMMAND.match(body):
            comment(body)
            continue
        at = comment_at(line) if body is None else -1
        if at >= 0 and lead + cell_len(line) > width:
            out.append(" " * lead + line[:at])
            comment(line[at + 3 :])
        else:
            out.append(" " * lead + line)
    first = out[0][lead:]
    out[0] = f"{' ' * indent}{_FIX_LABEL}{first}"
    return out


def _groups(report: Report, words: set[str], group_by: str) -> list[list[tuple[ObjectReport, Result]]]:
    """The results shown, grouped: by rule in roll-up order (rules without a finding after, in report
    order), or by object in report order; each group worst first, ties in report order."""
    by: dict[Any, list[tuple[ObjectReport, Result]]] = {}
    for obj, r in report.results:
        if r.result in words:
            by.setdefault(f"{r.policy}/{r.rule}" if group_by == "rule" else id(obj), []).append((obj, r))
    out = [sorted(pairs, key=lambda p: -RESULT_RANK[p[1].result]) for pairs in by.values()]
    if group_by == "rule":
        order = {x.rule: i for i, x in enumerate(report.by_rule())}
        out.sort(key=lambda g: order.get(f"{g[0][1].policy}/{g[0][1].rule}", len(order)))
    return out


def _heading(view: _View, group: list[tuple[ObjectReport, Result]], group_by: str) -> None:
    obj, r = group[0]
    if group_by == "object":
        view.lines(_fields([one_line(str(obj.ref)), where(obj, view.shared)], view.width, 2, place=True), "bold")
        return
    counts = ", ".join(
        f"{n:,} {w}" for w in ("fail", "warn", "error", "pass", "skip") if (n := sum(x.result == w for _, x in group))
    )
    view.lines(_fields([f"{r.policy}/{r.rule}", f"{r.severity} · {counts}"], view.width, 2), "bold")
    view.lines(wrap(r.title, view.width, 2), "dim")


def render(
    report: Report,
    fmt: str = "table",
    color: bool = False,
    width: int = 160,
    all_results: bool = False,
    group_by: str = "rule",
    notes: bool = False,
    **_: Any,
) -> str:
    """The summary line, the roll-up of the findings, then the results shown (fail/warn/error; the result
    words a ``--results`` filter asked for; every result with ``all_results``) grouped by ``group_by``, each
    with its place and fix, then the input errors, at most ``width`` columns wide; with ``notes``, the report's
    notes last (the service's answer, which has no standard error to print them on as the CLI does). Raises
    ``OptionError`` for an unknown ``group_by``."""
    check_group_by(group_by)
    view = _View(width, color)
    view.shared = _shared_lines(report)
    view.lines(wrap(_summary(report.summary()), width))
    if report.filters and not report.objects:
        view.lines(wrap(nothing_left(report.filters), width))  # trial 70: only the summary line, and no word why
    rollup = report.by_rule()
    if rollup:
        view.line("")
        _rollup(view, rollup)
    words = set(report.filters.get("results") or FINDINGS) if not all_results else set(RESULT_RANK)
    for group in _groups(report, words, group_by):
        view.line("")
        _heading(view, group, group_by)
        if group_by == "object":
            for obj, r in group:
                _finding(view, obj, r, group_by)
            continue
        for (obj, r), (said, fixed) in zip(group, said_before(group), strict=True):
            _finding(view, obj, r, group_by, said, fixed)
    if report.input_errors:
        view.line("")
    for err in report.input_errors:
        first, *rest = wrap(f"input error {one_line(str(err))}", width, view.indent, first=0)
        view.result_line(first, "error", "input error")
        view.lines(rest)
    if notes and report.notes:
        view.line("")
        for note in report.notes:
            view.lines(wrap(f"note: {one_line(note)}", width, view.indent, first=0), "dim")
    return view.text()


def render_many(reports: list[Report], fmt: str = "table", **options: Any) -> str:
    """Each dump's table under ``== <name>``, then the batch's summary line, as each dump's says its own (trial 69:
    only the worst result was said), and its worst result."""
    parts = [f"== {one_line(r.name)}\n{render(r, fmt, **options)}" for r in reports]
    worst = max((r.worst() for r in reports), key=RESULT_RANK.__getitem__)
    parts.append(f"== total: {len(reports)} dumps, {_summary(Report.total(reports))}; worst result: {worst}\n")
    return "\n".join(parts)
