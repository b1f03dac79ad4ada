"""Markdown for a chat message: a one-line summary, the roll-up by rule, then the findings, cut to fit.

Layout: ``**verdict** <dump>: N objects judged (M read) · F fail (2 critical, 1 high) · W warn (...) ·
E error · S skip[ (X exempt)][ · I input errors]``; the assumption notes (italic lines); when there are input
errors, up to ``INPUT_ERRORS`` lines naming each one's place and reason (``- file, document N, line L:
reason``), then ``- and K more (`--limit 0` or `limit=0` names each)``; then the roll-up
``| Rule | Severity | Findings | Examples |`` (one row per rule with a finding, worst first: ``Report.by_rule()``);
then the details, a table of the fail/error/warn results grouped by rule
(``| Rule | Object | Result | Message | Fix |``, rules in roll-up order) or by object
(``| Object | Rule | ... |``, objects worst first), the group's key on its first row only, each group worst
first; then, when rows were left out, ``_… K more findings not shown (limit L characters; `--limit 0` or `limit=0`: all)._``,
else, where a cell shown was cut and the line fits, ``SHORTENED``.

Limit: ``limit`` characters for the whole text, default ``LIMIT`` = 3,500, under Slack's 4,000-character
message guidance (https://api.slack.com/methods/chat.postMessage#truncating) with room for a bot's own
header; pass ``limit=1900`` for Discord (2,000 per message) or ``limit=0`` for no cut. Rows are whole
or absent, never cut in the middle; the roll-up comes before the details, so the cut falls in the details
(unless the roll-up alone is longer, then it is cut too and the closing line counts its rules left out); the
summary and the closing line are always there, so a limit below ``MIN_LIMIT`` is refused. A cell longer than
``CELL`` characters is shortened with ``…``.

Escaping: text from the dump and the policies cannot break the table or post chat markup. In cells,
``|`` becomes ``\\|`` and line breaks become spaces; everywhere (cells, names, input error lines), a
zero-width space (U+200B) follows each ``<`` and splits each ``](``, so ``<@U123>``, ``<!channel>``,
``<https://x>``, HTML tags and ``[text](url)`` are shown as written instead of becoming a mention, an
autolink, a tag or a link. Objects and rules are code spans, fenced with one backtick more than the
longest run of backticks they hold.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from ..report import FINDINGS, RESULT_RANK, SEVERITIES, SEVERITY_RANK, ObjectReport, Report, Result, RuleRollup, counted
from ..selection import describe
from ..shell import COMMAND, command_end, command_spans
from . import check_group_by, said_again, said_before, visible

LIMIT = 3500
MIN_LIMIT = 500
CELL = 160
ROLLUP_HEADER = "| Rule | Severity | Findings | Examples |\n|---|---|---|---|"
#: the details table's header, by ``group_by``: the group's key comes first
DETAILS_HEADER = {
    "rule": "| Rule | Object | Result | Message | Fix |\n|---|---|---|---|---|",
    "object": "| Object | Rule | Result | Message | Fix |\n|---|---|---|---|---|",
}
#: characters of one example object in the roll-up
EXAMPLE = 60
#: input errors named one by one under the summary line; the rest are counted (``- and K more``)
INPUT_ERRORS = 3
_ZWSP = "\u200b"
#: characters kept for the closing line (and its blank line) when the input error lines are fitted
_CLOSING_ROOM = 130
#: How to get the whole report, the CLI's option and the service's parameter (trial 233 #3: "limit 0" named neither).
ALL_OF_IT = "`--limit 0` or `limit=0`"
_TICKS = re.compile(r"`+")


_MENTION = re.compile(r"@(?=[\w!])")
_FENCE = re.compile(r"`{3,}|~{3,}")


#: What a chat reads as markup inside a code span too: Slack's mention, channel and link forms (``<@U1>``, ``<!here>``,
#: ``<#C1>``, ``<https://...>``); a command's placeholder (``<namespace>``, ``all-<profile>``) is none of them.
_CODE_ANGLE = re.compile(r"<(?=[@!#]|(?:https?|mailto):)", re.I)
#: ... and Discord's and Slack's channel-wide mentions (trial 188: a digest's ``@sha256`` is no mention).
_CODE_MENTION = re.compile(r"@(?=(?:everyone|here|channel)\b)")


def inert_code(text: str) -> str:
    """``inert`` for the text of a code span, where Markdown reads no tag, link or emphasis: only a chat's mentions and
    a code fence are made literal, so that a command copied from the span holds no zero-width space in its
    placeholders (trials 186, 187: ``<​namespace>``)."""
    text = _CODE_ANGLE.sub("<" + _ZWSP, visible(text))
    text = _CODE_MENTION.sub("@" + _ZWSP, text)
    return _FENCE.sub(lambda m: _ZWSP.join(m.group(0)), text)


def inert(text: str) -> str:
    """``text`` with chat markup made literal, by a zero-width space: after each ``<`` (no Slack/Discord
    mention ``<@U1>``, ``<!here>``, no autolink ``<https://...>``, no HTML tag), inside each ``](`` (no
    inline link or image ``[x](y)``), after each ``@`` before a word (no ``@everyone``, ``@here``,
    ``@channel`` or user mention), inside each ``://`` (no bare-URL autolink) and between the characters of
    a code fence (```` ``` ````, ``~~~``), and each control character written as its escape (``visible``). The text
    reads the same; only these sequences change."""
    text = visible(text).replace("<", "<" + _ZWSP).replace("](", "]" + _ZWSP + "(").replace("://", ":" + _ZWSP + "//")
    text = _MENTION.sub("@" + _ZWSP, text)
    return _FENCE.sub(lambda m: _ZWSP.join(m.group(0)), text)


#: What Markdown would take for emphasis or an escape (trial 100: "nvidia.com/mig-*, ... nvidia.com/mig-*" rendered in
#: italics without its asterisks, and "^nvidia\.com/" lost its backslash): a backslash before ASCII punctuation, every
#: ``*`` and ``~``, and a ``_`` that does not stand between two letters or digits (one that does never emphasises).
_EMPHASIS = re.compile(r"\\(?=[!-/:-@\[-`{-~])|[*~]|(?<![0-9A-Za-z])_|_(?![0-9A-Za-z])")


#: Where a command starts in a remediation (a shell line the pack writes): rules.shell's, which says what a fix may hold.
_COMMAND = COMMAND
#: What a command runs inside of, or after, when it follows one of these: it is not kept without them (``_cut``).
_CHAINED = ("&&", "||", "|", " do", ";do", " then", "xargs", "$(")
#: Words that make what follows conditional: a command after them is not kept without them (``_cut``).
_CONDITION = re.compile(r"\b(?:if|unless|otherwise|else|instead)\b", re.I)
#: Characters of a fix's start kept before the command at its end (``_cut``).
_FIX_HEAD = 24


#: A parenthesised aside shorter than this stays when a message is shortened (``(3%)``, ``(warn)``).
_ASIDE = 12


def _without_asides(text: str, width: int = 0) -> str:
    """``text`` with its outermost parenthesised asides of ``_ASIDE`` characters or more written ``(…)``, the longest
    first (of equal ones, the later), until it fits ``width`` (0: all of them): where a chat cell must be shortened,
    the clause that says what is wrong survives (trial 132: every message of a lab's nodes was cut inside its first
    aside, "... workload (label nvidia.co…", before "but it advertises only container GPU resources"), and no more
    goes than needs to (trial 133: "gpu-node-0 (…), gpu-node-1 (…), gpu-node-2 (…)" of a message 18 characters too
    long lost every reason). Unbalanced parentheses leave the text as it is."""
    spans: list[tuple[int, int]] = []
    depth, start = 0, 0
    for i, ch in enumerate(text):
        if ch == "(":
            if depth == 0:
                start = i
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                return text
            if depth == 0 and i + 1 - start >= _ASIDE:
                spans.append((start, i + 1))
    if depth:
        return text
    dropped: set[int] = set()
    length = len(text)
    for k in sorted(range(len(spans)), key=lambda k: (spans[k][0] - spans[k][1], -k)):
        if width and length <= width:
            break
        dropped.add(k)
        length -= spans[k][1] - spans[k][0] - 3
    out, last = [], 0
    for k, (a, b) in enumerate(spans):
        if k in dropped:
            out.append(text[last:a] + "(…)")
            last = b
    out.append(text[last:])
    return "".join(out)


def _cut(text: str, width: int, command: bool = False, prose: bool = False, words: bool = False) -> str:
    """``text`` in at most ``width`` characters, cut with ``…``: its start; with ``command`` (a fix), the longest
    command at its end that fits after at least ``_FIX_HEAD`` characters of its start, where one does (trial 100: at
    limit=1900 a fix kept its prose and lost the one command it ends with). A command chained to the one before it
    (``&&``, ``|``) is no command of its own: it is never kept without it (trial 101: ``kubectl patch`` enabling
    sandbox workloads was shown without the ``kubectl label ... &&`` that makes it safe); and it is kept only where
    what is left out holds no other command and no word that makes it conditional (``_CONDITION``). ``prose`` (a
    message) and ``words`` (a note) are cut where a word ends, a message's asides first left out."""
    if len(text) <= width:
        return text
    if prose:  # a message: its asides go first, then it is cut
        text = _without_asides(text, width)
        if len(text) <= width:
            return text
    if command:
        for m in _COMMAND.finditer(text):
            before = text[: m.start()]
            # (trial 102: a for loop's body after "do", and a command inside "$(...)", were kept without what runs them)
            if before.rstrip().endswith(_CHAINED) or before.count("$(") > before.count(")"):
                continue
            tail = text[m.start() :]
            room = width - len(tail) - 2
            if room >= _FIX_HEAD:
                head = text[:room]
                # no command cut short in the start either: it ends before the last command it would cut
                starts = [c.start() for c in _COMMAND.finditer(head) if c.start() >= _FIX_HEAD]
                head = head[: starts[-1]] if starts else head
                if any(command_end(text, c.start()) > len(head) for c in _COMMAND.finditer(head)):
                    # (trial 242 #8: "kubectl describe pod -n ml… kubectl describe nodes", the first command cut short
                    # before the last): what stands whole before it, else a later command's room
                    whole = _before_cut_command(text, head)
                    if any(command_end(text, c.start()) > len(whole) for c in _COMMAND.finditer(whole)):
                        continue
                    head = whole
                # nothing left out may say when the command is to be run, or hold another (trial 104: "Only if the
                # node is meant for container:" was cut, and the loop that turns it into a container node kept)
                left_out = text[len(head) : m.start()]
                # (and the clause the kept start ends in: "...; or, if… kubectl label" keeps no condition it states)
                clause = head[max(head.rfind(". "), head.rfind("; "), head.rfind(": ")) + 1 :]
                if _CONDITION.search(clause + left_out) or _COMMAND.search(left_out):
                    break
                return f"{head.rstrip()}… {tail}"
    # The start, "…" glued to its last word: a cut fix pasted as it stands names a flag, value or JSON no command
    # takes (trial 133: cut where a word ends, " …" apart, it left a delete without its -l or --field-selector, which
    # reaches every such pod once the "…" is dropped as the chat's mark)
    head = text[: width - 1].rstrip()
    if prose and head.endswith("(…"):  # not "(……": the cut falls inside an aside written (…)
        head = head[:-2].rstrip()
    if command:
        head = _before_cut_command(text, head)
    elif (prose or words) and not text[len(head)].isspace() and (space := head.rfind(" ")) > len(head) - _WORD:
        # words: cut where a word ends (trial 211: an assumption note ended "shows it i…"), the last one kept whole
        # where the cut falls after it (trial 212: "the node does…" of "does not")
        head = head[:space].rstrip(" ,;:(")
    return head + "…"


#: How far back a cut of prose goes for the end of a word, at most (a longer word is cut inside).
_WORD = 40


def _before_cut_command(text: str, head: str) -> str:
    """``head``, the start of the fix ``text``, without a command it would end inside, nor the clause that leads to
    it (``; or, if the node is meant for ...:``), where a whole command or clause stands before that one (trial 171:
    four findings under the default limit each ended ``kubectl label node gpu-vgpu-bad --overwrite nvidia.com/g…``,
    half a command to paste, after the whole command that looks first). A command inside another's ``$(...)`` goes
    with it (trial 172: a fix ended ``kubectl logs -n gpu-operator $(…``)."""
    starts = [m.start() for m in _COMMAND.finditer(text) if m.start() < len(head)]
    while starts:
        start = starts.pop()
        if command_end(text, start) <= len(head):
            return head  # the last command it reaches is whole
        kept = text[:start].rstrip()
        if kept.count("(") > kept.count(")"):
            continue  # inside another command's brackets: that one is cut too
        if not starts and not kept:
            return head
        chained = kept.endswith(_CHAINED)
        bound = max(kept.rfind("; "), kept.rfind(". "))
        kept = kept[: bound + 1] if bound > 0 and not chained else kept
        while kept.endswith(("&&", "||", "|")):  # "label ... &&" pasted waits for the command it chained
            kept = kept.rstrip("&|").rstrip()
        return kept.rstrip() or head
    return head


def line(
    value: Any, width: int = CELL, code: bool = False, command: bool = False, prose: bool = False, words: bool = False
) -> str:
    """Text on one line: whitespace runs (line breaks included) as one space, at most ``width``
    characters (``_cut``; ``command`` keeps a fix's last command), chat markup made literal (``inert``), and,
    unless it goes in a code span (``code``, where a backslash is shown as written), emphasis and escapes too
    (backslash escapes)."""
    text = _cut(" ".join(str(value).split()), width, command, prose, words)
    if command and not code:
        return _with_code_spans(text)
    text = inert(text)
    return text if code else _escaped(text)


def _escaped(text: str) -> str:
    """``text`` (already ``inert``) with what Markdown would take for emphasis or an escape written as itself."""
    return _EMPHASIS.sub(lambda m: "\\" + m.group(0), text)


def _with_code_spans(fix: str) -> str:
    """A fix with each command a code span (``command_spans``) and its prose escaped (a backquote too): where a
    command ends is shown, not guessed (trial 179: the stop of "... | grep gpu-ignored-vm-label. Then ..." read as
    part of the pattern). A command a cut ends inside holds the ``…`` in its span (trial 186: outside it,
    ``spec.nodeName=gpu-node-1`` cut from ``gpu-node-10`` read as a whole command for another node)."""
    out, at = [], 0
    for start, end in command_spans(fix):
        span = fix[start:end]
        if span.endswith("…") and span[:-1].rstrip().endswith(";"):
            span = span[:-1]  # "... Allocatable;…": the command is whole; the cut is of the clause after it
        end = start + len(span.rstrip("; "))
        out.append(_prose(fix[at:start]))
        out.append(_code(inert_code(fix[start:end])))
        at = end
    out.append(_prose(fix[at:]))
    return "".join(out)


def _prose(text: str) -> str:
    """The words of a fix around its commands' code spans: ``inert``, escaped, a backquote too (no span opens)."""
    return _escaped(inert(text)).replace("`", "\\`")


def cell(value: Any, width: int = CELL, code: bool = False, command: bool = False, prose: bool = False) -> str:
    """Text for a table cell: ``line`` with ``|`` escaped, so it cannot end the cell (in a code span too: a GFM table
    splits its rows before it reads code spans)."""
    return line(value, width, code, command, prose).replace("|", "\\|")


def _code(value: str) -> str:
    """A code span of ``value`` (already a cell): fenced with one backtick more than its longest run of
    backticks, padded with a space when it starts or ends with one (CommonMark strips that space)."""
    fence = "`" * (max((len(m) for m in _TICKS.findall(value)), default=0) + 1)
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    return f"{fence}{pad}{value}{pad}{fence}"


def summary_line(report: Report | dict[str, Any], title: str = "") -> str:
    """``**verdict** <title>: N objects judged · P pass · F fail (by severity) · W warn (...) · E error · S skip``
    (``S skip (X exempt)`` when exemptions accepted X findings; and ``· I input errors`` when there are
    some), from the summary of the whole audit (a filter
    changes the table, not these counts)."""
    s = report.summary() if isinstance(report, Report) else report
    parts = [f"{counted(s['objectsJudged'], 'object')} judged ({s['objectsRead']:,} read{selected(s)})"]
    parts.append(f"{s['results'].get('pass', 0):,} pass")
    for word in ("fail", "warn", "error"):
        by = s[f"{word}BySeverity"]
        total = sum(by.values())
        by_sev = _by_severity(by)
        parts.append(f"{total:,} {word}" + (f" ({by_sev})" if total and word != "error" else ""))
    exempt = s.get("exempt", 0)
    parts.append(f"{s['results'].get('skip', 0):,} skip" + (f" ({exempt:,} exempt)" if exempt else ""))
    if s["inputErrors"]:
        parts.append(counted(s["inputErrors"], "input error"))
    if title.startswith("<") and title.endswith(">"):
        title = ""  # <body>, <stdin>: no file name worth showing in a chat message
    lead = f"**verdict** {cell(title, 80)}:" if title else "**verdict**:"
    parts[0] = inert(parts[0])  # the selection's words come from the user, never markup
    return f"{lead} " + " · ".join(parts)


def selected(summary: dict[str, Any]) -> str:
    """``; 4 selected by kind Node, labels a=b`` when the audit judged a selection of the dump, else ""."""
    sel = summary.get("selection")
    return f"; {sel['objectsSelected']:,} selected by {describe(sel)}" if sel else ""


def input_error_lines(report: Report, most: int = INPUT_ERRORS, room: int | None = None, whole: bool = False) -> list[str]:
    """The first ``most`` input errors as ``- file, document N, line L: reason`` (place and reason cut
    to ``_INPUT_ERROR`` characters, or ``CELL`` where ``room`` is short, chat markup made literal), then
    ``- and K more`` for the others. With ``room``, fewer are named so that the lines take at most ``room``
    characters; when none fits, there is no line (the summary line counts them). ``whole`` (no limit): each whole
    (trial 100: limit=0 still cut them at 160 characters, and "the node is not judged" went)."""
    errors = report.input_errors
    # a body sent without a name= is "<body>" (stdin "<stdin>"): no file name worth a chat line's start (trial 232 #8:
    # "‹<body>, document 1, line 214: ..."), as read_lines leaves it out of notes
    unnamed = f"{report.name}, " if report.name.startswith("<") and report.name.endswith(">") else None
    named = [
        f"- {line(str(err).removeprefix(unnamed) if unnamed else err, _NO_CUT if whole else _INPUT_ERROR)}"
        for err in errors[:most]
    ]
    if room is not None:
        closing = len(_more_errors(len(errors))) + 1
        if sum(len(x) + 1 for x in named) + closing > room:  # cut shorter before one goes unnamed
            named = [f"- {line(str(err).removeprefix(unnamed) if unnamed else err, CELL)}" for err in errors[:most]]
        while named and sum(len(x) + 1 for x in named) + closing > room:
            named.pop()
    rest = len(errors) - len(named)
    return named + ([_more_errors(rest)] if named and rest else [])


def _more_errors(rest: int) -> str:
    """The line counting the input errors not named, with the way to them (trial 240 #6: "- and 2 more" said
    neither)."""
    return f"- and {rest:,} more ({ALL_OF_IT} names each)"


#: characters of one assumption note in the chat summary
_ASSUMED = 400
#: characters of one input error line, its place and reason: room for what to run instead (trial 198: cut at 160, a
#: describe pod paste's "print the object with kubectl get pod ... -o yaml" went)
_INPUT_ERROR = 400


def assumption_lines(report: Report, whole: bool = False, width: int = _ASSUMED) -> list[str]:
    """The report's assumption notes (what verdicts rest on when the dump lacks the deciding object), one
    italic line each, cut at ``width``: a chat reader must see them before the findings that rest on them. ``whole``:
    not cut."""
    return [f"_{line(n, _NO_CUT if whole else width, words=True)}_" for n in report.notes if n.startswith("assumed:")]


#: Notes about what was read that say the findings may be false: clusters read as one (an archive of several, an object
#: twice and unlike). A message says them first, as it says assumptions (trial 230 #1: "read here as one dump" was
#: counted in "3 notes in the JSON report" under findings that judged one cluster's nodes by another's ClusterPolicy).
_CAUTION = re.compile(
    r"^the archive holds \d+ archives or must-gathers, read here as one dump\b"
    r"|\bis in the dump (?:twice and the two differ|[\d,]+ times in [\d,]+ different versions)\b"
    r"|^and [\d,]+ more \S+ objects? in the dump more than once with different content\b"  # (trial 231 #2)
)


def caution_lines(report: Report, whole: bool = False, width: int = _ASSUMED) -> list[str]:
    """The report's notes that say its findings may be false (``_CAUTION``), one italic ``note:`` line each, cut at
    ``width`` unless ``whole``."""
    return [f"_note: {line(n, _NO_CUT if whole else width, words=True)}_" for n in report.notes if _CAUTION.search(n)]


#: Notes about what was read that a message names (the others are counted).
READ_NOTES = 2


def read_lines(report: Report, most: int = READ_NOTES, whole: bool = False) -> list[str]:
    """The report's other notes, about what was read (the text around a chat message's code blocks set aside,
    files of an archive not read, a must-gather, an object twice in the dump), one italic ``note:`` line each (cut
    at ``_SKIPPED`` characters unless ``whole``): a chat user must see that part of what was pasted was not judged."""
    notes = [n for n in report.notes if not n.startswith(("assumed:", *_IDLE_RULES)) and not _CAUTION.search(n)]
    # a body without a name= is "<body>" (stdin "<stdin>"): no file name worth showing in a chat message (trial 171:
    # "note: <body>: read inside its fenced Markdown code blocks")
    unnamed = f"{report.name}: " if report.name.startswith("<") and report.name.endswith(">") else None
    notes = [n.removeprefix(unnamed) if unnamed else n for n in notes]
    out = [f"_note: {line(n, _NO_CUT if whole else _SKIPPED)}_" for n in notes[:most]]
    if len(notes) > most:
        out.append(_more_line(len(notes) - most, "more note"))
    return out


#: Skip notes a message names (the first ones: what kept rules from judging any object comes first; the rules
#: that applied to no object of the dump come after the skip notes).
SKIP_NOTES = 3
#: How the notes on rules that did not judge begin: applied to no object of the dump, or skipped.
_IDLE_RULES = ("not applied:", "skipped")
#: How to get the JSON report, from the CLI and from the service.
_JSON_REPORT = "(`--format json`; `format=json` from the service)"
_SKIPPED = 300
#: The width of a line that is not cut.
_NO_CUT = sys.maxsize


def _more_line(count: int, noun: str) -> str:
    """The italic line that counts the notes left out of the message and says where they are."""
    return f"_… {counted(count, noun)} in the JSON report {_JSON_REPORT}_"


def skip_lines(report: Report, most: int = SKIP_NOTES, whole: bool = False) -> list[str]:
    """The first ``most`` notes on rules that did not apply to the dump or skipped, one italic line each (cut at
    ``_SKIPPED`` characters unless ``whole``): why rules did not run (a node dump without a ClusterPolicy), which a
    chat reader of a clean-looking summary needs to see; then how many more. Under a limit, a report filtered to
    results other than skip (``results=fail,warn``) names only the first where the filter leaves nothing to list
    (a healthy dump: why rules did not run is what it has to say), and none where it lists findings: the reader
    asked for them, and the notes took the room the limit gives them, the first most often about rules that found
    nothing to judge (trial 187: a failed MIG change's message opened with a note on vGPU configs) (``whole``: no
    limit, every note asked for)."""
    notes = [n for n in report.notes if n.startswith(_IDLE_RULES)]
    asked = report.filters.get("results")
    if asked and "skip" not in asked and not whole:
        most = 0 if report.objects else min(most, 1)
    out = [f"_{line(n, _NO_CUT if whole else _SKIPPED)}_" for n in notes[:most]]
    if len(notes) > most:
        out.append(_more_line(len(notes) - most, ("more " if most else "") + "skip or not-applied note"))
    return out


def head(
    report: Report,
    title: str = "",
    limit: int = 0,
    skips: int = SKIP_NOTES,
    lean: bool = False,
    assumed: int = _ASSUMED,
    alone: bool = False,
) -> str:
    """The summary line, the assumption and skip notes and the input error lines under it; with a
    ``limit``, the lines leave room for the closing line, so that a cut message always fits (``MIN_LIMIT``):
    skip notes are left out when they would not leave room. Without one (``limit=0``: no cut), every skip note
    and input error is named. ``lean``: the notes take the room of the lines that count them only (a chat message
    whose one finding would not fit beside them: trial 179). ``assumed``: where an assumption note is cut.
    ``alone``: nothing follows the notes (no finding or result listed), so they may take the whole message."""
    first = summary_line(report, title)
    if report.filters and not report.objects:
        # trial 68: "1 fail (1 high)" and nothing under it, with minSeverity=critical
        first += f"\n_{nothing_left(report.filters)}_"
    cautions = caution_lines(report, whole=not limit, width=assumed)
    notes = cautions + assumption_lines(report, whole=not limit, width=assumed)
    if limit:
        # The notes take at most half the message (at least the room of the line that counts them): the notes that
        # say the findings may be false, then the assumption notes, as many as fit, then the rest counted; the notes
        # about what was read and the skip notes only when all of them fit too.
        # (trial 244 #6, #7: a report of passes alone said one note of 16 in 581 characters of 1,500)
        share = limit if alone else limit // 2
        area = _NOTES_FLOOR if lean else max(share - len(first) - _CLOSING_ROOM, _NOTES_FLOOR)
        if cautions:
            short = caution_lines(report, width=CELL)
            if lean:
                # a message lean of notes for its findings keeps these, cut short, in at most a quarter of it (trial
                # 231 #2: a chat message counted them all to show a finding more)
                area = max(area, min(_length(short) + _NOTES_FLOOR, limit // 4))
            if _length(cautions) > area // 2:
                # (shorter where they would take more than half the room: trial 231 #1, a caution note of 330
                # characters took a 500-character message past its limit)
                notes = short + assumption_lines(report, width=assumed)
        notes = _fitting(notes, area, "note" if cautions else "assumption note")
        read = read_lines(report)
        if _length(notes) + _length(read) > area and area - _length(notes) >= _NOTES_FLOOR:
            read = _fitting(read_lines(report, most=len(report.notes)), area - _length(notes), "note")  # counted
        # each group of notes in the first of its forms that fits: the skip notes named (alone: as many of the first as
        # fit, where nothing follows them), else counted (trial 124: "38 skip" with no word of why, where the count
        # line fitted)
        named = range(skips, -1, -1) if alone else (skips, 0)
        for forms in ((read,), [skip_lines(report, most=n) for n in named]):
            notes += next((lines for lines in forms if _length(notes) + _length(lines) <= area), [])
        notes = _every_note_counted(notes, len(report.notes), area)
    else:
        # no cut (trial 79: limit=0 still cut each note at 300 characters and named one skip note of eleven)
        notes += read_lines(report, len(report.notes), whole=True) + skip_lines(report, len(report.notes), whole=True)
    room = limit - len(first) - _length(notes) - _CLOSING_ROOM if limit else None
    errors = input_error_lines(report, most=INPUT_ERRORS if limit else len(report.input_errors), room=room, whole=not limit)
    return "\n".join([first, *errors, *notes])  # a document lost comes before what the verdicts rest on


#: The line that counts notes left out (``_more_line``), and how many.
_COUNT_LINE = re.compile(r"^_… ([\d,]+) ")


def _every_note_counted(notes: list[str], total: int, area: int) -> list[str]:
    """``notes`` (the lines a message says of ``total`` notes, each a note or a line counting some) with the notes they
    neither say nor count counted too: in their last line where it counts, else in a line of its own, for which the
    last notes said make room in ``area`` (trial 231 #2: where the notes that say findings may be false filled the
    room, the notes on what was read went unsaid and uncounted)."""

    def said(lines: list[str]) -> int:
        return sum(int(m.group(1).replace(",", "")) if (m := _COUNT_LINE.match(x)) else 1 for x in lines)

    notes = list(notes)
    while (unsaid := total - said(notes)) > 0:
        if notes and _COUNT_LINE.match(notes[-1]):
            # (one line counts them all: "… 2 assumption notes" and "… 21 more notes" read as two reports)
            counts = [x for x in notes if _COUNT_LINE.match(x)]
            notes = [x for x in notes if not _COUNT_LINE.match(x)]
            notes.append(_more_line(unsaid + said(counts), "more note" if notes else "note"))
            if _length(notes) <= area or len(notes) == 1:
                return notes
            notes.pop(-2)  # (the count line stays last; the line before it is counted in it next time round)
            continue
        notes.append(_more_line(unsaid, "more note" if notes else "note"))
        if _length(notes) <= area or len(notes) == 1:
            return notes
        notes.pop(-2)
    return notes


def nothing_left(filters: dict[str, Any]) -> str:
    """What a report whose filters left no result says under its summary line, the filters in words of neither the
    CLI nor the service (trial 70: "minSeverity" beside the CLI's --min-severity): ``the filter (results fail, warn;
    severity critical or above) leaves no result to list: the counts are of the whole audit``."""
    said = [f"results {', '.join(filters['results'])}"] if filters.get("results") else []
    said += [f"severity {filters['minSeverity']} or above"] if filters.get("minSeverity") else []
    return f"the filter ({'; '.join(said)}) leaves no result to list: the counts are of the whole audit"


#: The least room the notes under the summary line get: that of the line that counts them.
_NOTES_FLOOR = 100


def _length(lines: list[str]) -> int:
    return sum(len(x) + 1 for x in lines)


def _fitting(lines: list[str], area: int, noun: str) -> list[str]:
    """The first of ``lines`` that fit in ``area`` characters, then a line that counts the others (all of them
    when they fit)."""
    if _length(lines) <= area:
        return lines
    kept = list(lines)
    while True:
        kept.pop()
        left = len(lines) - len(kept)
        more = _more_line(left, ("more " if kept else "") + noun)
        if not kept or _length(kept) + len(more) + 1 <= area:
            return [*kept, more]


def _worst_first(pair: tuple[ObjectReport, Result]) -> tuple[int, int]:
    return -RESULT_RANK[pair[1].result], -SEVERITY_RANK.get(pair[1].severity, 0)


def groups(report: Report, group_by: str = "rule") -> list[list[tuple[ObjectReport, Result]]]:
    """The findings in groups (the results of the words a ``results`` filter asked for, as the table lists them:
    trial 68's ``results=skip`` listed nothing), each worst first (ties in the dump's order). ``rule``: one group
    per rule, in roll-up order (``Report.by_rule()``; rules without a finding after, in the dump's order).
    ``object``: one group per object, objects worst first (their worst finding, then its severity; ties in the
    dump's order). Raises ``OptionError`` for another ``group_by``."""
    check_group_by(group_by)
    words = _row_words(report)
    by: dict[Any, list[tuple[ObjectReport, Result]]] = {}
    for o, r in report.results:
        if r.result in words:
            by.setdefault(f"{r.policy}/{r.rule}" if group_by == "rule" else id(o), []).append((o, r))
    out = [sorted(pairs, key=_worst_first) for pairs in by.values()]
    if group_by == "rule":
        order = {x.rule: i for i, x in enumerate(report.by_rule())}
        return sorted(out, key=lambda g: order.get(f"{g[0][1].policy}/{g[0][1].rule}", len(order)))
    return sorted(out, key=lambda g: _worst_first(g[0]))


def rollup_row(x: RuleRollup) -> str:
    """One rule of the roll-up: rule, severity, counts, the first objects (``and N more``)."""
    examples = ", ".join(_code(cell(e, EXAMPLE, code=True)) for e in x.examples)
    if x.objects > len(x.examples):
        examples += f" and {x.objects - len(x.examples):,} more"
    return f"| {_code(cell(x.rule, code=True))} | {x.severity} | {x.counts()} | {examples} |"


#: The width of a details row's fix cell in a cut message.
FIX = 100
_WHOLE = 1 << 30


def row(
    obj: ObjectReport,
    r: Result,
    whole: bool = False,
    group_by: str = "rule",
    first: bool = True,
    width: int = 0,
    said: tuple[ObjectReport, Result] | None = None,
    fixed: ObjectReport | None = None,
) -> tuple[str, bool]:
    """One finding as a row of the details table, and whether a cell of it was shortened; the group's key (the rule,
    or the object) only on the first row of its group. Cells are shortened for chat unless ``whole`` (no limit
    asked): the message to ``CELL`` characters and the fix to ``FIX``, or both to ``width`` when one is given. Where
    an earlier row of its rule says its message of its own object (``said``) or has the same fix (``fixed``), the cell
    names that one in their place, as the terminal's table does (trial 226 #3: eight VMs asking for one name KubeVirt
    does not permit filled 3,500 characters with one message eight times)."""
    shortened = False
    if fixed is not None:
        fix = f"as for {_code(cell(fixed.ref, 80, code=True))} above"
    elif r.remediation:
        fix = cell(r.remediation, _WHOLE if whole else width or FIX, command=True)
        shortened = not whole and fix != cell(r.remediation, _WHOLE, command=True)
    else:
        fix = ""
    rule, ref = _code(f"{r.policy}/{r.rule}"), _code(cell(obj.ref, 80, code=True))
    key, other = (rule, ref) if group_by == "rule" else (ref, rule)
    if said is not None:
        message = said_again(_code(cell(said[0].ref, 80, code=True)), said[0] is fixed)
    else:
        message = cell(r.message, _WHOLE if whole else width or CELL, prose=True)
        shortened = shortened or (not whole and message != cell(r.message, _WHOLE, prose=True))
    return f"| {key if first else ''} | {other} | {r.result} · {r.severity} | {message} | {fix} |", shortened


def _rows_of(group: list[tuple[ObjectReport, Result]], whole: bool, group_by: str, width: int) -> Iterator[tuple[str, bool]]:
    """The rows of one group, made one by one: by rule, a finding an earlier one of its rule says of its own object
    (``said_before``) names that one."""
    if group_by != "rule":
        yield from (row(o, r, whole, group_by, i == 0, width) for i, (o, r) in enumerate(group))
        return
    for i, ((o, r), (said, fixed)) in enumerate(zip(group, said_before(group), strict=True)):
        yield row(o, r, whole, group_by, i == 0, width, said, fixed)


@dataclass(frozen=True, slots=True)
class _Piece:
    """A part of the message: ``kind`` ``head`` (the summary), ``dump`` (a dump's heading and summary),
    ``rule`` (a roll-up row) or ``finding`` (a details row); rows carry their table's ``header`` and an
    identity ``table`` (a row of another table than the previous piece starts a new table). Pieces are made
    one by one as ``_fit`` takes them (``_pieces``): a cut message formats only the rows it shows, whatever
    the cluster's size."""

    text: str
    kind: str
    header: str = ""
    table: int = 0
    #: a cell of it was shortened to fit (``row``)
    shortened: bool = False


def _pieces(
    report: Report,
    limit: int,
    group_by: str,
    tables: itertools.count[int],
    counts: Counter[str],
    whole: bool = False,
    width: int = 0,
) -> Iterator[_Piece]:
    """The pieces of one report after its heading, made one by one: the roll-up rows, then the details rows.
    ``counts`` gains how many pieces of each kind there are (the closing line needs them before they are made).
    Details cells are whole with ``whole`` or without a limit, else cut to their widths (``row``'s ``width``)."""
    rollup_table, details_table = next(tables), next(tables)
    rollup = report.by_rule()
    found = groups(report, group_by)
    counts.update(rule=len(rollup), finding=sum(len(g) for g in found))
    whole, header = whole or not limit, DETAILS_HEADER[group_by]
    return itertools.chain(
        (_Piece(rollup_row(x), "rule", ROLLUP_HEADER, rollup_table) for x in rollup),
        (
            _Piece(text, "finding", header, details_table, shortened)
            for group in found
            for text, shortened in _rows_of(group, whole, group_by, width)
        ),
    )


def _addition(piece: _Piece, previous: _Piece) -> str:
    """The text ``piece`` adds after ``previous``: a blank line and the piece (a head, or the first row of a
    table with the table's header), or a line break and the row."""
    if piece.header and previous.header and piece.table == previous.table:
        return "\n" + piece.text
    return "\n\n" + (f"{piece.header}\n" if piece.header else "") + piece.text


_LEFT_OUT = (
    ("rule", "rule of the roll-up", "rules of the roll-up"),
    ("finding", "finding", "findings"),
    ("dump", "dump", "dumps"),
)


def _closing(left: Counter[str], limit: int, shown: Counter[str] | None = None, row: str = "finding") -> str:
    """``_… 2 more rules of the roll-up, 40 more findings and 1 more dump not shown (limit L characters; `--limit 0`
    or `limit=0`: all)._``; "more"
    only of a kind some of which are ``shown`` (trial 70: "1 more finding not shown" where none was); the details
    rows are ``row``s (``result`` where a filter lists passes or skips: trial 70, "15 more findings" of skips)."""
    more = lambda k: "more " if shown is None or shown[k] else ""  # noqa: E731
    nouns = [(k, row, f"{row}s") if k == "finding" else (k, one, many) for k, one, many in _LEFT_OUT]
    parts = [f"{left[k]:,} {more(k)}{one if left[k] == 1 else many}" for k, one, many in nouns if left[k]]
    if not parts:  # nothing but the summary (a clean audit): nothing can be left out
        return ""
    said = parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"
    # (trial 132: how to get the rest was unsaid)
    return f"_… {said} not shown (limit {limit:,} characters; {ALL_OF_IT}: all)._"


def _fit(pieces: Iterable[_Piece], counts: Counter[str], limit: int, row: str = "finding") -> str:
    """The pieces as text of at most ``limit`` characters (0: no limit); ``counts`` says how many pieces of
    each kind there are, and ``row`` what a details row is (``_closing``).

    Everything when it fits. Otherwise pieces are taken in order (the summary, each roll-up row, each
    details row; per dump with several) until the next one does not fit with room left for the closing
    line, which says how many roll-up rules, findings and dumps were left out: the roll-up comes first, so
    the cut falls in the details unless the roll-up alone is longer than the limit. The first piece (the
    summary) is always kept. Only the pieces shown (and those that fill the room left) are made: a cut
    message of a 100,000-finding audit formats a few dozen rows. Raises ``ValueError`` below ``MIN_LIMIT``.
    """
    if limit and limit < MIN_LIMIT:
        raise ValueError(f"limit {limit} is below {MIN_LIMIT} characters (0 means no limit)")
    todo = iter(pieces)
    previous = next(todo)
    parts, used, shown = [previous.text], len(previous.text), Counter([previous.kind])
    if not limit:
        for piece in todo:
            parts.append(_addition(piece, previous))
            previous = piece
        return "".join(parts) + "\n"
    closing = _closing(counts, limit, row=row)
    reserve = len(closing) + 3 if closing else 0  # two line breaks before, one after
    cut: _Piece | None = None
    shortened = False
    for piece in todo:
        more = _addition(piece, previous)
        if used + len(more) + reserve > limit:
            cut = piece
            break
        parts.append(more)
        used, previous = used + len(more), piece
        shown[piece.kind] += 1
        shortened = shortened or piece.shortened
    if cut is None:
        return "".join(parts) + _shortened_note(shortened, used, limit) + "\n"
    # The rest may still fit without a closing line: try, making no more pieces than the limit allows.
    rest, extra, last = [], used, previous
    for piece in itertools.chain([cut], todo):
        more = _addition(piece, last)
        extra += len(more)
        if extra + 1 > limit:
            return "".join(parts) + f"\n\n{_closing(counts - shown, limit, shown, row)}\n"
        rest.append(more)
        last = piece
        shortened = shortened or piece.shortened
    return "".join(parts + rest) + _shortened_note(shortened, extra, limit) + "\n"


#: The characters a message or fix cell may give up for ``SHORTENED``.
_NOTE_ROOM = 24
#: Said under a message every row of which is shown, where a cell was shortened to fit (trial 239 #3: a message cell
#: lost its asides, "(…)", the label and resource it named, and nothing said how to see them).
SHORTENED = f"_… marks cells cut to fit: {ALL_OF_IT} shows them whole._"


def _shortened_note(shortened: bool, used: int, limit: int) -> str:
    """``SHORTENED`` after a blank line, where a cell was shortened and it fits the ``limit`` after ``used``
    characters (and the line break that ends the text)."""
    return f"\n\n{SHORTENED}" if shortened and used + len(SHORTENED) + 3 <= limit else ""


#: A report with at most this many findings is first written with its messages and fixes whole, and kept so when
#: that fits the limit: the cells are cut for the room of many rows, and a short report lost the fix command at
#: the end of its one remediation (trial 65). When the whole text does not fit, its cells are cut no shorter than
#: the room allows (trial 68: a 1,900-character limit cut the one fix at 100 characters with 611 unused).
WHOLE_UP_TO = 20
#: The narrowest message and fix cells of such a report: narrower, its rows are left out for the closing line.
NARROWEST = 30
#: Cells narrower than this name little more than the object: where every row fits only that narrow, fewer rows of
#: the usual widths are shown instead, the rest counted (when one fits at least).
USEFUL = 120


def render(report: Report, fmt: str = "markdown", limit: int = LIMIT, group_by: str = "rule", **_: Any) -> str:
    """One report: summary line, roll-up, details grouped by ``group_by``, closing line when cut. With a limit and
    at most ``WHOLE_UP_TO`` findings, their cells are whole when the whole text fits, else as wide as fits (every
    row shown, each cell at least ``NARROWEST``)."""
    words = _row_words(report)
    row = _row_noun(words)
    # the rows counted from the roll-up built anyway where they are findings (a 700,000-result report is not
    # listed pair by pair for it), else walked
    rows = sum(x.findings for x in report.by_rule()) if row == "finding" else sum(1 for _ in _rows(report, words))
    first = _Piece(head(report, report.name, limit, alone=not rows), "head")
    if limit and rows <= WHOLE_UP_TO:

        def text(whole: bool, width: int = 0, noted: bool = False) -> str:
            pieces = list(_pieces(report, limit, group_by, itertools.count(), Counter(), whole, width))
            fitted = _fit(itertools.chain([first], pieces), Counter(), 0)
            # every row is shown: with ``noted``, a cell shortened is said under them
            return f"{fitted[:-1]}\n\n{SHORTENED}\n" if noted and any(p.shortened for p in pieces) else fitted

        roomy = text(True)
        if len(roomy) <= limit:
            return roomy
        # the findings before the skip notes: those are counted, not said, where the rows would be cut (trial 118:
        # three skip notes on MIG and vGPU labels, and the one finding cut before it said what the node advertises)
        # (only a shorter head: under a small limit the full one may name no skip note at all, and the count line
        # took a roll-up row's room: trial 120)
        lean = _Piece(head(report, report.name, limit, skips=0), "head")
        if len(lean.text) < len(first.text):
            first = lean
            roomy = text(True)
            if len(roomy) <= limit:
                return roomy
        # the widest cut of the cells that fits (the text grows with the width), up to the longest cell (trial 68:
        # at 600 characters a single finding was "1 more finding not shown")
        cells = [len(c) for r in _rows(report, words) for c in (r.message, r.remediation)]
        best, width = _widest(lambda w: text(False, w), NARROWEST, max(cells, default=0), limit)
        if best and width >= USEFUL:
            # the line saying cells were shortened, in room each cell gives up a little of for it (trial 239 #3);
            # never in place of a row, nor of most of a cell (a one-row report keeps its fix command whole)
            noted, _width = _widest(lambda w: text(False, w, noted=True), max(USEFUL, width - _NOTE_ROOM), width, limit)
            return noted or best
        if best:
            # cells this narrow say nothing (trial 110: 13 rows of "Node worker-gpu-p0.ocp.example.com…"): fewer rows
            # of the usual widths, the rest counted, where that shows one at least
            fewer = _rows_that_fit(report, first, limit, group_by, row)
            return fewer if DETAILS_HEADER[group_by] in fewer else best
    return _rows_that_fit(report, first, limit, group_by, row)


def _widest(text: Callable[[int], str], low: int, high: int, limit: int) -> tuple[str, int]:
    """The ``text`` of the widest cells from ``low`` to ``high`` that fits ``limit`` (it grows with the width), and
    that width; ``("", 0)`` where none does."""
    best, width = "", 0
    while low <= high:
        mid = (low + high) // 2
        tried = text(mid)
        if len(tried) <= limit:
            best, width, low = tried, mid, mid + 1
        else:
            high = mid - 1
    return best, width


def _rows_that_fit(report: Report, first: _Piece, limit: int, group_by: str, row: str) -> str:
    """The report's head, then its rows of the usual widths as long as they fit ``limit``, the rest counted."""
    counts: Counter[str] = Counter(head=1)
    rest = _pieces(report, limit, group_by, itertools.count(), counts)
    return _fit(itertools.chain([first], rest), counts, limit, row)


def _row_words(report: Report) -> set[str]:
    """The result words the details rows list: those a ``results`` filter names, else the findings."""
    return set(report.filters.get("results") or FINDINGS)


def _row_noun(words: set[str]) -> str:
    """What a details row is: a ``finding``, or a ``result`` where a filter lists passes or skips."""
    return "finding" if words <= set(FINDINGS) else "result"


def _rows(report: Report, words: set[str]) -> Iterator[Result]:
    """The results of ``words`` in the report, one by one."""
    return (r for o in report.objects for r in o.results if r.result in words)


def render_many(reports: list[Report], fmt: str = "markdown", limit: int = LIMIT, group_by: str = "rule", **_: Any) -> str:
    """A total line, then one section per dump (its summary line, roll-up and details), all within ``limit``; a dump
    without a finding or an input error gets its summary line alone."""
    if len(reports) == 1:
        return render(reports[0], fmt, limit, group_by)
    # a note every dump carries (the batch's own: what the folder holds) is said once, under the total line (trial
    # 105: repeated under each of 15 dumps, it took the room of every finding)
    # (not the notes on assumptions and on rules that did not judge: they count each dump's results, and alike dumps
    # carry the same ones: trial 107, fifteen of them lifted out of their dumps, and no finding left in the message)
    shared = [
        n for n in reports[0].notes if not n.startswith(("assumed:", *_IDLE_RULES)) and all(n in r.notes for r in reports[1:])
    ]
    total = summary_line(Report.total(reports), f"{len(reports)} dumps")
    said_once = [f"_note: {line(n, _NO_CUT if not limit else _SKIPPED)}_" for n in shared]
    index = _dump_index(reports, 0 if not limit else DUMP_INDEX)
    most = DUMP_INDEX
    while limit and most > 1 and len(total) + _length(index) > limit // 2:
        # (trial 231 #9: under 900 characters the index of nine dumps alone took the message past its limit)
        most -= 1
        index = _dump_index(reports, most)
    pieces: list[Iterable[_Piece]] = [[_Piece("\n".join([total, *index, *said_once]), "head")]]
    if shared:
        reports = [dataclasses.replace(r, notes=[n for n in r.notes if n not in shared]) for r in reports]
    # the sections in the index's order, worst first (trial 230 #2: the first dump's medium findings filled the message,
    # and the high ones of the dumps after it were left out)
    reports = worst_first(reports)
    row = _row_noun(_row_words(reports[0]))  # one filter for the batch

    def batch(skips: int) -> str:
        tables = itertools.count()
        counts: Counter[str] = Counter(head=1, dump=len(reports))
        parts = list(pieces)
        for i, r in enumerate(reports, 1):
            # a dump with nothing to report gets its summary line only, its notes left to the JSON report: in a
            # nightly batch they took the room of a later dump's findings (trial 82)
            quiet = not r.by_rule() and not r.input_errors
            said = summary_line(r) if quiet else head(r, limit=limit, skips=skips)
            if not_read(r):
                # a dump not read: its input errors say it (trial 230 #2: a summary line of noughts for each)
                said = "\n".join(input_error_lines(r, whole=not limit))
            parts.append([_Piece(f"### {cell(r.name or f'dump {i}', 120)}\n{said}", "dump")])
            parts.append(_pieces(r, limit, group_by, tables, counts))
        return _fit(itertools.chain.from_iterable(parts), counts, limit, row)

    text = batch(SKIP_NOTES)
    if limit and _CUT_MARK in text:
        # the findings before the skip notes, where they are cut (trial 120: a batch's first dump named three skip
        # notes, then cut its findings and left out the next dump; a single report counted them already)
        lean = batch(0)
        if _shown_rows(lean) > _shown_rows(text):
            return lean
    return text


def _by_severity(by: dict[str, int]) -> str:
    """``4 high, 3 medium``: the counts of a ``...BySeverity`` summary, worst first, those above 0."""
    return ", ".join(f"{n:,} {sev}" for sev in SEVERITIES if (n := by.get(sev, 0)))


def not_read(r: Report) -> bool:
    """Whether no object of a dump could be read, and input errors say why."""
    return not r.objects_read and bool(r.input_errors)


def dump_rank(r: Report) -> tuple[int, int, int]:
    """Where a dump stands in a batch, worst first: not read, then with input errors, then with findings, then the
    rest; then by its worst finding's severity, then how many fail."""
    s = r.summary()
    # the findings the report lists, a results filter's words alone (trial 231 #10: with --results warn, dumps of
    # failures it hid came first, and took the room of the warnings asked for)
    listed = [x for o in r.objects for x in o.results if x.result in FINDINGS]
    worst = min((SEVERITIES.index(x.severity) for x in listed if x.severity in SEVERITIES), default=len(SEVERITIES))
    fails = sum(x.result == "fail" for x in listed)
    return (0 if not_read(r) else 1 if s["inputErrors"] else 2 if listed else 3, worst, -fails)


def worst_first(reports: list[Report]) -> list[Report]:
    """The dumps of a batch ordered by ``dump_rank`` (stable: the batch's order among equals), each named: one
    without a name is ``dump N``, N its place in the batch as given."""
    named = [r if r.name else dataclasses.replace(r, name=f"dump {i}") for i, r in enumerate(reports, 1)]
    return sorted(named, key=dump_rank)


#: Dumps a batch's index names under its total line (``_dump_index``), where a limit applies.
DUMP_INDEX = 8


def _dump_index(reports: list[Report], most: int) -> list[str]:
    """One line a dump of a batch, those not read or with input errors first, then by their worst finding: its
    severity, then how many fail (trial 154: a chat message named the first dump alone, and a cut or unreadable archive
    of the batch went unnamed; trial 197: two medium failures were named before a high one, which the limit cut);
    ``most`` lines at most (0: every one) and a line for the rest."""

    ordered = worst_first(reports)
    lines = []
    for r in ordered[: most or None]:
        s = r.summary()
        errors = r.input_errors
        # (trial 155: "first:" said of a dump's only error)
        first = f" ({'first: ' if len(errors) > 1 else ''}{line(errors[0].reason, 100)})" if errors else ""
        if not_read(r):
            said = f"not read{first}"
        else:
            # each with its severities, as the summary line says them (trial 230 #2: "1 fail" of a high and a medium one)
            counts = [
                f"{n:,} {w}" + (f" ({by})" if w != "error" and (by := _by_severity(s[f"{w}BySeverity"])) else "")
                for w in ("fail", "warn", "error")
                if (n := s["results"].get(w, 0))
            ]
            if errors:
                counts.append(counted(len(errors), "input error") + first)
            said = " · ".join(counts) or "no finding"
        lines.append(f"- {cell(r.name or 'dump', 100)}: {said}")
    if most and len(ordered) > most:
        lines.append(f"- … {counted(len(ordered) - most, 'more dump')}, each with its section below or in the JSON report")
    return lines


#: What the closing line of a cut message says (``_closing``, and chat's).
_CUT_MARK = " not shown (limit "
#: That line's count of what was left out, and its limit.
_CUT_LINE = re.compile(r"… (.+?)" + re.escape(_CUT_MARK) + r"([\d,]+) characters")


def cut_said(text: str) -> tuple[str, int] | None:
    """What a markdown or chat message's closing line says it left out, and the limit it was cut at; None where the
    message is whole (``text``: its end is enough)."""
    cut = _CUT_LINE.search(text)
    return None if cut is None else (cut.group(1), int(cut.group(2).replace(",", "")))


def _shown_rows(text: str) -> int:
    """How many table rows (roll-up and details) a rendered message shows."""
    return sum(
        1 for ln in text.splitlines() if ln.startswith("| ") and not ln.startswith(("| Rule |", "| Object |", "| Result |"))
    )
