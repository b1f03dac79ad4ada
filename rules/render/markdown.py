"""Markdown for a chat message: a one-line summary, then a compact table of the findings, cut to fit.

Layout: ``**verdict** <dump>: N objects judged (M read) · F fail (2 critical, 1 high) · W warn (...) ·
E error · S skip[ (X exempt)][ · I input errors]``; when there are input errors, up to ``INPUT_ERRORS`` lines naming
each one's place and reason (``- file, document N, line L: reason``), then ``- and K more``; then a
table ``| Result | Object | Rule | Message | Fix |`` of the fail/error/warn results, worst first (error,
fail, warn; then severity; then the order of the dump), then, when rows were left out,
``_… K more findings not shown (limit L characters)._``.

Limit: ``limit`` characters for the whole text, default ``LIMIT`` = 3,500, under Slack's 4,000-character
message guidance (https://api.slack.com/methods/chat.postMessage#truncating) with room for a bot's own
header; pass ``limit=1900`` for Discord (2,000 per message) or ``limit=0`` for no cut. Rows are whole
or absent, never cut in the middle; the summary and the closing line are always there, so a limit below
``MIN_LIMIT`` is refused. A cell longer than ``CELL`` characters is shortened with ``…``.

Escaping: text from the dump and the policies cannot break the table or post chat markup. In cells,
``|`` becomes ``\\|`` and line breaks become spaces; everywhere (cells, names, input error lines), a
zero-width space (U+200B) follows each ``<`` and splits each ``](``, so ``<@U123>``, ``<!channel>``,
``<https://x>``, HTML tags and ``[text](url)`` are shown as written instead of becoming a mention, an
autolink, a tag or a link. The object and rule are code spans, fenced with one backtick more than the
longest run of backticks they hold.
"""

from __future__ import annotations

import re
from typing import Any

from ..report import SEVERITIES, SEVERITY_RANK, ObjectReport, Report, Result

LIMIT = 3500
MIN_LIMIT = 500
CELL = 160
FINDINGS = ("error", "fail", "warn")
HEADER = "| Result | Object | Rule | Message | Fix |\n|---|---|---|---|---|"
#: input errors named one by one under the summary line; the rest are counted (``- and K more``)
INPUT_ERRORS = 3
_ORDER = {"error": 0, "fail": 1, "warn": 2}
_ZWSP = "\u200b"
#: characters kept for the closing line (and its blank line) when the input error lines are fitted
_CLOSING_ROOM = 100
_TICKS = re.compile(r"`+")


_MENTION = re.compile(r"@(?=[\w!])")
_FENCE = re.compile(r"`{3,}|~{3,}")


def inert(text: str) -> str:
    """``text`` with chat markup made literal, by a zero-width space: after each ``<`` (no Slack/Discord
    mention ``<@U1>``, ``<!here>``, no autolink ``<https://...>``, no HTML tag), inside each ``](`` (no
    inline link or image ``[x](y)``), after each ``@`` before a word (no ``@everyone``, ``@here``,
    ``@channel`` or user mention), inside each ``://`` (no bare-URL autolink) and between the characters of
    a code fence (```` ``` ````, ``~~~``). The text reads the same; only these sequences change."""
    text = text.replace("<", "<" + _ZWSP).replace("](", "]" + _ZWSP + "(").replace("://", ":" + _ZWSP + "//")
    text = _MENTION.sub("@" + _ZWSP, text)
    return _FENCE.sub(lambda m: _ZWSP.join(m.group(0)), text)


def line(value: Any, width: int = CELL) -> str:
    """Text on one line: whitespace runs (line breaks included) as one space, at most ``width``
    characters (cut with ``…``), chat markup made literal (``inert``)."""
    text = " ".join(str(value).split())
    if len(text) > width:
        text = text[: width - 1].rstrip() + "…"
    return inert(text)


def cell(value: Any, width: int = CELL) -> str:
    """Text for a table cell: ``line`` with ``|`` escaped, so it cannot end the cell."""
    return line(value, width).replace("|", "\\|")


def _code(value: str) -> str:
    """A code span of ``value`` (already a cell): fenced with one backtick more than its longest run of
    backticks, padded with a space when it starts or ends with one (CommonMark strips that space)."""
    fence = "`" * (max((len(m) for m in _TICKS.findall(value)), default=0) + 1)
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    return f"{fence}{pad}{value}{pad}{fence}"


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def summary_line(report: Report | dict[str, Any], title: str = "") -> str:
    """``**verdict** <title>: N objects judged · F fail (by severity) · W warn (...) · E error · S skip``
    (``S skip (X exempt)`` when exemptions accepted X findings; and ``· I input errors`` when there are
    some), from the summary of the whole audit (a filter
    changes the table, not these counts)."""
    s = report.summary() if isinstance(report, Report) else report
    parts = [f"{_n(s['objectsJudged'], 'object')} judged ({s['objectsRead']} read)"]
    for word in ("fail", "warn", "error"):
        by = s[f"{word}BySeverity"]
        total = sum(by.values())
        by_sev = ", ".join(f"{n} {sev}" for sev in SEVERITIES if (n := by.get(sev, 0)))
        parts.append(f"{total} {word}" + (f" ({by_sev})" if total and word != "error" else ""))
    exempt = s.get("exempt", 0)
    parts.append(f"{s['results'].get('skip', 0)} skip" + (f" ({exempt} exempt)" if exempt else ""))
    if s["inputErrors"]:
        parts.append(_n(s["inputErrors"], "input error"))
    if title.startswith("<") and title.endswith(">"):
        title = ""  # <body>, <stdin>: no file name worth showing in a chat message
    lead = f"**verdict** {cell(title, 80)}:" if title else "**verdict**:"
    return f"{lead} " + " · ".join(parts)


def input_error_lines(report: Report, most: int = INPUT_ERRORS, room: int | None = None) -> list[str]:
    """The first ``most`` input errors as ``- file, document N, line L: reason`` (place and reason cut
    to ``CELL`` characters, chat markup made literal), then ``- and K more`` for the others. With
    ``room``, fewer are named so that the lines take at most ``room`` characters; when none fits, there
    is no line (the summary line counts them)."""
    errors = report.input_errors
    named = [f"- {line(err)}" for err in errors[:most]]
    if room is not None:
        while named and sum(len(x) + 1 for x in named) + len(f"- and {len(errors)} more") + 1 > room:
            named.pop()
    rest = len(errors) - len(named)
    return named + ([f"- and {rest} more"] if named and rest else [])


#: characters of one assumption note in the chat summary
_ASSUMED = 400


def assumption_lines(report: Report) -> list[str]:
    """The report's assumption notes (what verdicts rest on when the dump lacks the deciding object), one
    italic line each: a chat reader must see them before the findings that rest on them."""
    return [f"_{line(n, _ASSUMED)}_" for n in report.notes if n.startswith("assumed:")]


def head(report: Report, title: str = "", limit: int = 0) -> str:
    """The summary line, the assumption notes and the input error lines under it; with a ``limit``, the
    lines leave room for the closing line, so that a cut message always fits (``MIN_LIMIT``)."""
    first = summary_line(report, title)
    assumed = assumption_lines(report)
    room = limit - len(first) - sum(len(a) + 1 for a in assumed) - _CLOSING_ROOM if limit else None
    return "\n".join([first, *assumed, *input_error_lines(report, room=room)])


def findings(report: Report) -> list[tuple[ObjectReport, Result]]:
    """fail/error/warn results, worst first; ties keep the dump's order."""
    rows = [(o, r) for o, r in report.results if r.result in FINDINGS]
    return sorted(rows, key=lambda p: (_ORDER[p[1].result], -SEVERITY_RANK.get(p[1].severity, 0)))


def row(obj: ObjectReport, r: Result, whole: bool = False) -> str:
    """One finding as a table row; cells are shortened for chat unless ``whole`` (no limit asked)."""
    big = 1 << 30
    fix = cell(r.remediation, big if whole else 100) if r.remediation else ""
    return (
        f"| {r.result} · {r.severity} | {_code(cell(obj.ref, 80))} | {_code(f'{r.policy}/{r.rule}')} "
        f"| {cell(r.message, big if whole else CELL)} | {fix} |"
    )


def _closing(rows: int, dumps: int, limit: int) -> str:
    more = f"{rows} more findings" + (f" and {dumps} more dumps" if dumps else "")
    return f"_… {more} not shown (limit {limit:,} characters)._"


def _assemble(blocks: list[tuple[str, list[str]]], heads: int, shown: list[int]) -> list[str]:
    parts: list[str] = []
    for (head, rows), n in zip(blocks[:heads], shown, strict=False):
        parts.append(head)
        if n:
            parts.append(HEADER + "\n" + "\n".join(rows[:n]))
    return parts


def _fit(blocks: list[tuple[str, list[str]]], limit: int) -> str:
    """Blocks of (heading, rows) as text of at most ``limit`` characters (0: no limit).

    Everything when it fits. Otherwise headings and rows are taken in order until the next one does not
    fit with room left for the closing line, which says how many findings (and dumps) were left out.
    The first heading (the summary) is always kept. Raises ``ValueError`` below ``MIN_LIMIT``.
    """
    if limit and limit < MIN_LIMIT:
        raise ValueError(f"limit {limit} is below {MIN_LIMIT} characters (0 means no limit)")
    everything = "\n\n".join(_assemble(blocks, len(blocks), [len(rows) for _, rows in blocks])) + "\n"
    if not limit or len(everything) <= limit:
        return everything
    total_rows = sum(len(rows) for _, rows in blocks)
    reserve = len(_closing(total_rows, len(blocks), limit)) + 2
    used = len(blocks[0][0]) + 1 + reserve
    heads, shown, full = 1, [0] * len(blocks), False
    for i, (head, rows) in enumerate(blocks):
        if i:
            if used + len(head) + 2 > limit:
                break
            used += len(head) + 2
            heads += 1
        for line in rows:
            cost = len(line) + 1 + (0 if shown[i] else len(HEADER) + 2)
            if used + cost > limit:
                full = True
                break
            shown[i] += 1
            used += cost
        if full:
            break
    parts = _assemble(blocks, heads, shown)
    parts.append(_closing(total_rows - sum(shown), len(blocks) - heads, limit))
    return "\n\n".join(parts) + "\n"


def render(report: Report, fmt: str = "markdown", limit: int = LIMIT, **_: Any) -> str:
    """One report: summary line, findings table, closing line when cut."""
    return _fit([(head(report, report.name, limit), [row(o, r, not limit) for o, r in findings(report)])], limit)


def render_many(reports: list[Report], fmt: str = "markdown", limit: int = LIMIT, **_: Any) -> str:
    """A total line, then one section per dump (its summary line and table), all within ``limit``."""
    if len(reports) == 1:
        return render(reports[0], fmt, limit)
    blocks: list[tuple[str, list[str]]] = [(summary_line(Report.total(reports), f"{len(reports)} dumps"), [])]
    blocks += [
        (f"### {cell(r.name or f'dump {i}', 120)}\n{head(r, limit=limit)}", [row(o, x, not limit) for o, x in findings(r)])
        for i, r in enumerate(reports, 1)
    ]
    return _fit(blocks, limit)
