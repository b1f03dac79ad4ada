"""Plain text for a chat message where Markdown tables do not render (Slack, Microsoft Teams, Discord, Matrix).

Layout: the summary line and the notes under it, as in ``markdown`` (``verdict <dump>: N objects judged ... ``);
then one paragraph a finding, worst first, grouped by rule or by object (``group_by``)::

    FAIL (high) `Node/gpu-pt-bad` · `gpu-nodes/resource-class-matches-workload`
    Node gpu-pt-bad should run the vm-passthrough GPU workload ..., but it advertises only ...
    ```
    kubectl label node gpu-pt-bad --overwrite nvidia.com/gpu.workload.config=container
    ```

By rule, the findings whose message and fix an earlier one's say of their own object are said in that one's paragraph,
the first five named and the others counted (every one named with no limit; ``_findings``).

The fix stands in a code block of its own, as written: every chat client shows it literally and copies it whole
(trial 171: in a Markdown table a fix's ``|`` was written ``\\|``, which a shell reads as an argument, and the
table itself showed as rows of pipes in Slack, Teams and Discord). A fix is never cut: under ``limit`` (default
``markdown.LIMIT``, 3,500 characters; 0: no cut) whole findings are left out, worst last, and a closing line counts
them; where not one fits, the worst one's message is cut at a word and its fix is said to be left out. By rule,
every failing rule is named: its first finding cut, or, where the room is too short for that, its heading line
(``_every_rule``, ``_shorter``). Text from
the dump cannot post chat markup: messages and names go through ``markdown.inert``; in a fix only a mention
(``<@U1>``, ``<!here>``, ``<#C1>``) and a code fence are broken, by a zero-width space, so that a URL or a ``@`` in a
command stays as the command needs it.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from typing import Any

from ..report import FINDINGS, RESULT_RANK, SEVERITY_RANK, Report, Result, counted
from ..shell import command_spans, comment_at
from . import check_group_by, message_shape, one_line, visible
from .markdown import (
    _CHAINED,
    _CLOSING_ROOM,
    _COMMAND,
    _CONDITION,
    _IDLE_RULES,
    _NOTES_FLOOR,
    ALL_OF_IT,
    CELL,
    LIMIT,
    MIN_LIMIT,
    _fitting,
    _row_noun,
    _row_words,
    groups,
    head,
    inert,
    input_error_lines,
    not_read,
    summary_line,
    worst_first,
)

_ZWSP = "\u200b"
#: A chat mention in a fix: Slack's ``<@U1>``, ``<!here>``, ``<#C1>`` (Discord's ``<@123>``).
_FIX_MENTION = re.compile(r"<(?=[@!#])")
_FIX_FENCE = re.compile(r"`{3,}|~{3,}")
_MARKDOWN_LEAD = "**verdict**"
#: The end of a shell compound command and the ``;`` after it: a command that follows is the next of its sequence.
_SEQUENCE_END = re.compile(r"(?:^|[;\s])(?:done|fi|esac)\s*;$")


#: A backslash escape markdown's lines put before punctuation (``markdown._EMPHASIS``).
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def _plain_lead(text: str) -> str:
    """``markdown``'s summary and note lines without its bold lead (Slack writes bold with one asterisk, Markdown with
    two) and without its backslash escapes, which Slack and Teams show as written (trial 173: ``gpu.deploy.\\*``)."""
    text = _ESCAPE.sub(r"\1", text)
    return "verdict" + text[len(_MARKDOWN_LEAD) :] if text.startswith(_MARKDOWN_LEAD) else text


def _span(text: str) -> str:
    """A code span of a name (an object's reference, a rule's): no Kubernetes name holds a backtick."""
    return f"`{inert(one_line(text)).replace('`', "'")}`"


def _last_break(text: str) -> int:
    """Where the last ``; `` or ``. `` of ``text`` outside parentheses is, else -1 (trial 177: a clause cut at the
    ``;`` inside "(its label informer applies it when it starts; relabelling ... is no change)")."""
    depth, last = 0, -1
    for i, char in enumerate(text):
        if char == "(":
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
        elif depth == 0 and char in ";." and text.startswith(" ", i + 1):
            last = i
    return last


def fix_lines(fix: str) -> list[str]:
    """A fix as shell lines: each command that follows another's comment or a clause on a line of its own, the
    clause that says when to run it (``or, if the node is meant for ...:``) a comment line before it, and prose a
    comment line (trial 173: the relabel that ends the fix stood inside the ``#`` comment of the check before it, so
    the pasted block ran the check alone). A command the fix as written would not run (after its `` # ``: trial 177,
    the restart that followed "# to re-apply the same config, restart that pod:" ran at once, before the log above it
    was read), or that a clause makes conditional or an alternative (trial 174), is written commented out, so that
    the block pasted whole runs what the fix pasted as written runs. A command chained to the one before it (``&&``,
    ``|``, a loop's body, one in ``$(...)``) stays on its line; a prose line keeps the stop it ends with."""
    text = " ".join(fix.split())
    commented_from = comment_at(text)
    lines: list[str] = []
    at = 0
    aside = False  # the command at ``at`` is written commented out

    def line(part: str, command_aside: bool) -> str:
        return part if _COMMAND.match(part) and not command_aside else f"# {part.lstrip('# ')}"

    def command_lines(part: str, command_aside: bool) -> None:
        # a command as one copies it (its loop to "done", a chain whole: rules.shell.command_spans), then the prose
        # after it on a comment line of its own (trial 194: "kubectl get ... | grep -A3 sandboxWorkloads (enabled not
        # true: ...)" and "... -o yaml > pod.yaml, edit it and kubectl replace ..." were one line, which a shell
        # refuses)
        spans = command_spans(part) if _COMMAND.match(part) else []
        end = spans[0][1] if spans and spans[0][0] == 0 else len(part)
        rest = part[end:].lstrip(" ,;.")
        if not rest or rest.startswith("#"):  # (its own comment stays on its line)
            lines.append(line(part, command_aside))
            return
        lines.append(line(part[:end], command_aside))
        lines.append(f"# {rest}")

    for m in _COMMAND.finditer(text):
        start = m.start()
        before = text[at:start].rstrip()
        prefix = text[:start]
        if not before or before.endswith(_CHAINED) or prefix.count("(") > prefix.count(")"):
            continue
        if not before.endswith((":", ";", ".")):
            continue  # inside a clause ("edit it and kubectl replace ..."): no command of a line of its own
        if _SEQUENCE_END.search(before):
            # a command after a loop's or a condition's end ("...; done; for l in ..."): the next of the same
            # sequence, a line of its own as commented out as the one before it (trial 179: the second loop of the
            # "by hand" alternative ran, the first commented out and cut before its "done")
            lines.append(line(before.rstrip(";"), aside))
            at = start
            continue
        cut = _last_break(before)
        head, clause = (before[: cut + 1], before[cut + 2 :]) if cut >= 0 else (before, "")
        if head.strip():
            # a stop after a command is no part of it ("| grep node-a."); prose keeps its own
            command_lines(head.rstrip(";.") if _COMMAND.match(head) else head, aside)
        if clause.strip():
            lines.append(f"# {clause.lstrip('# ')}")
        # a command its clause makes conditional ("or, if the node is meant for ...:") is an alternative: written
        # commented out, so that the block pasted whole runs none of them (trial 174: the relabel would run); what
        # follows stays in its branch (trial 179: "Only if the node is meant for container: ... first check it runs:
        # ... To fix the node by hand ...: for l in ..." ran the loops)
        said = clause if clause.strip() else "" if _COMMAND.match(head) else head  # a fix that starts "If ...:"
        aside = aside or bool(_CONDITION.search(said)) or said.lower().startswith(("or ", "or,", "or:"))
        aside = aside or 0 <= commented_from < start
        at = start
    command_lines(text[at:], aside)
    return lines


def _fix(text: str) -> str:
    """A fix as a code block, a command a line (``fix_lines``), as written but for a mention or a fence broken by a
    zero-width space."""
    return _block(fix_lines(text))


def _block(lines: list[str]) -> str:
    """``fix_lines``' lines as ``_fix``'s code block."""
    body = _FIX_MENTION.sub("<" + _ZWSP, "\n".join(visible(line) for line in lines))
    body = _FIX_FENCE.sub(lambda m: _ZWSP.join(m.group(0)), body)
    return f"```\n{body}\n```"


#: At most this many objects are named in a paragraph that says its finding for several (``_findings``).
NAMED = 5


def finding(ref: Any, r: Result, alike: list[tuple[Any, Result]] | None = None, named: int | None = NAMED) -> str:
    """One result as its paragraph: the word, severity, object and rule; the message; the findings ``alike`` it (its
    message and fix said of their own objects), the first ``named`` objects named, then counted (every one where
    ``named`` is None); the fix in a code block."""
    lines = [_heading(ref, r), inert(" ".join(r.message.split()))]
    if alike:
        shown = alike if named is None else alike[:named]
        names = ", ".join(_span(str(o.ref)) for o, _ in shown)
        rest = f" and {len(alike) - len(shown):,} more" if len(alike) > len(shown) else ""
        fix = r.remediation.strip()
        if not fix:
            how = ""
        elif all(x.remediation.strip() == fix for _, x in alike):
            how = ", with the same fix"
        else:
            own = (
                f"namespace and name in place of {ref.namespace}/{ref.name}" if ref.namespace else f"name in place of {ref.name}"
            )
            how = f", each with the fix below written for it (its own {inert(own)})"
        lines.append(f"Said the same of {counted(len(alike), 'more object')}{how}: {names}{rest}.")
    if r.remediation:
        lines.append(_fix(r.remediation))
    return "\n".join(lines)


#: A finding's paragraph as ``_findings`` makes it: its text, how many findings it says, its lead object and result.
Said = tuple[str, int, Any, Result]


def _findings(report: Report, group_by: str, limit: int) -> list[Said]:
    """Each finding's paragraph and how many findings it says: by rule, the findings whose message and fix an earlier
    one's say of their own object (``message_shape``: the same text, its name and namespace in the other's places; the
    same kind) are said in that one's paragraph, which names the first ``NAMED`` of them and counts the others
    (trial 218 #5 and trial 216 #3: sixteen VMs asking for one name KubeVirt does not permit took a paragraph each, and
    a chat message's 3,500 characters held one; trial 221 #1: a fix naming its VM kept each apart). With no limit
    (0) it names every one of them, as the table and the JSON do (trial 224 #3)."""
    out: list[Said] = []
    for group in groups(report, group_by):
        if group_by != "rule":
            out.extend((finding(o.ref, r), 1, o.ref, r) for o, r in group)
            continue
        same: dict[tuple[str, str, str], list[int]] = {}
        for i, (o, r) in enumerate(group):
            key = (o.ref.kind, message_shape(o.ref, r.message), message_shape(o.ref, r.remediation.strip()))
            same.setdefault(key, []).append(i)
        for lead, *more in same.values():
            o, r = group[lead]
            alike = [group[i] for i in more]
            out.append((finding(o.ref, r, alike, NAMED if limit else None), 1 + len(more), o.ref, r))
    return out


def _noun(report: Report) -> str:
    """What a block of the report is: a ``finding``, or a ``result`` where a filter lists passes or skips."""
    return _row_noun(_row_words(report))


def _closing(left: Counter[str], limit: int, shown: Counter[str] | None = None) -> str:
    """``_… 2 more findings and 1 more dump not shown (limit L characters; `--limit 0` or `limit=0`: all)_``;
    ``1 finding`` where none of its kind is ``shown`` (trial 179: "1 more finding not shown" where none was)."""
    said = " and ".join(
        counted(n, f"more {noun}" if shown is None or shown[noun] else noun) for noun, n in sorted(left.items()) if n
    )
    return f"_… {said} not shown (limit {limit:,} characters; {ALL_OF_IT}: all)_"


#: A block of a chat message: its noun (``dump``, ``finding``, ``result``), its text, its dump's number, and how many
#: of its noun it says (a paragraph may say one finding of several objects).
Block = tuple[str, str, int, int]


def _counts(blocks: list[Block]) -> Counter[str]:
    out: Counter[str] = Counter()
    for noun, _text, _dump, n in blocks:
        out[noun] += n
    return out


def _fitted(first: str, blocks: list[Block], limit: int) -> tuple[str, int]:
    """``first``, then the ``(noun, text, dump, n)`` blocks that fit ``limit`` with the closing line, in order, each
    whole, and how many blocks are shown; a block that does not fit is counted and the next ones are still tried, but
    a finding whose dump's heading was left out is left out too (it would stand under another dump's)."""
    if not limit:
        return "\n\n".join([first, *(text for _, text, _, _ in blocks)]) + "\n", len(blocks)
    if limit < MIN_LIMIT:
        raise ValueError(f"limit {limit} is below {MIN_LIMIT} characters (0 means no limit)")
    kept = _fit_indices(first, blocks, limit)
    total = _counts(blocks)
    shown = _counts([blocks[i] for i in kept])
    parts = [first, *(blocks[i][1] for i in kept)]
    missing = total - shown
    if missing:
        parts.append(_closing(missing, limit, shown))
    return "\n\n".join(parts) + "\n", len(kept)


def _fit_indices(first: str, blocks: list[Block], limit: int) -> list[int]:
    """The blocks ``_fitted`` shows after ``first`` under ``limit``, by their index."""
    total = _counts(blocks)
    shown: Counter[str] = Counter()
    dropped: set[int] = set()  # the dumps whose heading was left out
    passed_over = False  # a dump with findings was left out: none after it is shown
    kept: list[int] = []
    used = len(first)
    for i, (noun, text, dump, n) in enumerate(blocks):
        after = total - shown - Counter({noun: n})  # what the closing line counts should this block be the last shown
        reserve = 2 + len(_closing(after, limit, shown + Counter({noun: n}))) if after else 0
        # a dump's heading is shown with its first finding or not at all (trial 230 #2: a heading and its notes stood
        # alone, its high finding left out); the closing line's reserve above covers the pair
        with_first = 0
        if noun == "dump" and i + 1 < len(blocks) and blocks[i + 1][0] != "dump" and blocks[i + 1][2] == dump:
            with_first = 2 + len(blocks[i + 1][1])
        # (and the text's last line break: a message of 3,501 characters at the limit of 3,500)
        # a dump with nothing to say after its heading is shown only while nothing before it was left out (trial 230
        # #2: a clean dump's heading was shown, the high findings of the dumps before it counted)
        quiet = noun == "dump" and (i + 1 == len(blocks) or blocks[i + 1][0] == "dump")
        room = used + 2 + len(text) + with_first + reserve + 1 <= limit
        # and no dump after one with findings left out (trial 231 #3: the second-worst dump's first finding did not
        # fit, and a milder dump after it stood in its place)
        if dump not in dropped and not (quiet and len(kept) < i) and not passed_over and room:
            kept.append(i)
            used += 2 + len(text)
            shown[noun] += n
        elif noun == "dump":
            dropped.add(dump)
            passed_over = passed_over or bool(with_first)
    return kept


#: The least room a finding cut to its heading and the start of its message takes (``_every_rule``).
BRIEF = 300


def _leads(found: list[Said]) -> dict[tuple[str, str], int]:
    """Each failing rule's first paragraph, by its index, in their order: a finding's (trial 235 #2: with passes
    listed, the passing rules' paragraphs took the room the failing rules' needed, and 11 of 12 went unnamed)."""
    out: dict[tuple[str, str], int] = {}
    for i, (*_, r) in enumerate(found):
        if r.result in FINDINGS:
            out.setdefault((r.policy, r.rule), i)
    return out


def _every_rule(first: str, found: list[Said], blocks: list[Block], noun: str, limit: int) -> str | None:
    """``first``, then the paragraphs that fit ``limit`` whole and, for each failing rule none of whose findings' paragraphs
    fits, its first one cut (``_brief``: its heading, its message cut, where its fix is), each in its place, the rest
    counted; a pass or skip listed beside them, then a whole paragraph of a rule that has another, is left out where
    that makes room; where the room is still too short, every rule's first paragraph cut and none whole; and where
    even that does not fit, the first of them cut and the others' heading lines alone (``_shorter``). None where
    every failing rule's paragraph fits whole as it is, or where even that finds no room (trial 223 #1: the two VMs
    kube-scheduler cannot place went unsaid beside the two rules whose paragraphs filled the message)."""
    rule_of = [(r.policy, r.rule) for _, _, _, r in found]
    total = sum(n for _, _, _, n in blocks)
    keep = _fit_indices(first, blocks, limit)
    leads = _leads(found)
    held: list[int] | None = None  # the whole paragraphs beside which the rules unsaid found no room
    while True:
        said = {rule_of[i] for i in keep if found[i][3].result in FINDINGS}
        cut = [i for rule, i in leads.items() if rule not in said]
        if not cut:
            return None
        shown = sum(blocks[i][3] for i in (*keep, *cut))
        closing = _closing(Counter({noun: total - shown}), limit, Counter({noun: shown})) if total > shown else ""
        used = len(first) + sum(2 + len(blocks[i][1]) for i in keep) + (2 + len(closing) if closing else 0) + 1
        room = (limit - used) // len(cut) - 2
        briefs = _shared(found, cut, limit - used, bool(closing)) if room >= BRIEF else {}
        if briefs and all(briefs.values()) and len(text := _joined(first, blocks, keep, briefs, noun, limit)) <= limit:
            return text
        # room for the rules unsaid: a pass or skip listed, else the last whole paragraph of a rule that has another
        # shown, else none (trial 234 #1: at limit 1,000 a chat bot's message said one of four rules' findings, and
        # counted the three others)
        spare = [i for i in reversed(keep) if found[i][3].result not in FINDINGS] or [
            i for i in reversed(keep) if sum(rule_of[j] == rule_of[i] for j in keep) > 1
        ]
        if spare:
            keep = [i for i in keep if i != spare[0]]
        elif keep and held is None:
            held, keep = keep, []
        else:
            return _shorter(first, found, blocks, keep if held is None else held, leads, noun, limit)


def _shared(found: list[Said], cut: list[int], left: int, way_below: bool) -> dict[int, str]:
    """The ``cut`` findings' paragraphs (``_brief``) in ``left`` characters in all, worst first: each in its share of
    what those before it left, or in the room to keep its fix (``_fix_room``) where those after it still get ``BRIEF``
    each (trial 241 #7: at limit 3,500 four rules shared the room alike, and the one high finding's fix, longer than
    a medium one's, was the one not shown; trial 242 #12: three high findings' fixes were not shown, a low one's was)."""
    briefs: dict[int, str] = {}
    for k, i in enumerate(cut):
        after = len(cut) - k - 1
        share = left // (after + 1) - 2
        need = _fix_room(found[i][2], found[i][3], found[i][1] - 1)
        room = need if need > share and left - need - 2 >= after * (BRIEF + 2) else share
        briefs[i] = _brief(found[i][2], found[i][3], room, way_below, found[i][1] - 1)
        left -= len(briefs[i]) + 2
    return briefs


def _shorter(
    first: str, found: list[Said], blocks: list[Block], keep: list[int], leads: dict[tuple[str, str], int], noun: str, limit: int
) -> str | None:
    """Where no rule unsaid beside the ``keep`` paragraphs finds room to be cut: fewer whole paragraphs kept, the first
    rule unsaid cut and the others' heading lines alone (``_headlined``); where that does not fit, none whole and as
    many of the heading lines as fit, worst first, the other rules' findings counted (trial 235 #3: at limits of 550
    to 1,450 the lab's message named 1 of its 12 failing rules); None where not even one fits."""
    for j in range(len(keep), -1, -1):
        said = {(r.policy, r.rule) for i in keep[:j] if (r := found[i][3]).result in FINDINGS}
        unsaid = [i for rule, i in leads.items() if rule not in said]
        if text := _headlined(first, found, blocks, keep[:j], unsaid, noun, limit):
            return text
    every = list(leads.values())
    for h in range(len(every) - 1, 1, -1):
        if text := _headlined(first, found, blocks, [], every[:h], noun, limit):
            return text
    return None


def _heading(ref: Any, r: Result, more: int = 0) -> str:
    """A finding's first line: its word, severity, object and rule; where its paragraph is not shown whole, how many
    ``more`` objects it says the same of (trial 235 #4: a heading line named a rule's first object of eight)."""
    objects = f" and {counted(more, 'more object')}" if more else ""
    return f"{r.result.upper()} ({r.severity}) {_span(str(ref))}{objects} · {_span(f'{r.policy}/{r.rule}')}"


def _headlined(first: str, found: list[Said], blocks: list[Block], keep: list[int], cut: list[int], noun: str, limit: int) -> str:
    """``first``, the ``keep`` blocks whole and the first of the ``cut`` paragraphs cut (``_brief``), in the blocks'
    order, then the others' heading lines (word, severity, object, rule) together, a line a finding, and where their
    messages are, then the line counting the findings left out: "" where that does not fit ``limit``."""
    heads = [_heading(found[i][2], found[i][3], found[i][1] - 1) for i in cut[1:]]
    if heads:
        fixes = any(found[i][3].remediation for i in cut[1:])  # (trial 235 #2: "and fixes" where none has one)
        said = (
            ("its message and fix are" if fixes else "its message is")
            if len(heads) == 1
            else ("their messages and fixes are" if fixes else "their messages are")
        )
        heads.append(f"_{said} not shown here: {ALL_OF_IT} shows {'it' if len(heads) == 1 else 'them'}_")
    total = sum(n for *_, n in blocks)
    shown = sum(blocks[i][3] for i in (*keep, *cut))  # (a heading line counts its objects: trial 237 #3)
    closing = _closing(Counter({noun: total - shown}), limit, Counter({noun: shown})) if total > shown else ""
    tail = ["\n".join(heads)] if heads else []
    tail += [closing] if closing else []
    used = len(first) + sum(2 + len(blocks[i][1]) for i in keep) + sum(2 + len(x) for x in tail) + 1 + 2
    brief = _brief(found[cut[0]][2], found[cut[0]][3], limit - used, bool(tail), found[cut[0]][1] - 1)
    if not brief:
        return ""
    said_whole = {i: blocks[i][1] for i in keep} | {cut[0]: brief}
    text = "\n\n".join([first, *(said_whole[i] for i in sorted(said_whole)), *tail]) + "\n"
    return text if len(text) <= limit else ""


def _joined(first: str, blocks: list[Block], keep: list[int], briefs: dict[int, str], noun: str, limit: int) -> str:
    """``first``, the ``keep`` blocks whole and the ``briefs`` (each one finding), in the blocks' order, then the line
    counting the findings left out."""
    total = sum(n for _, _, _, n in blocks)
    shown = sum(blocks[i][3] for i in (*keep, *briefs))
    order = sorted([*keep, *briefs])
    parts = [first, *(briefs[i] if i in briefs else blocks[i][1] for i in order)]
    if total > shown:
        parts.append(_closing(Counter({noun: total - shown}), limit, Counter({noun: shown})))
    return "\n\n".join(parts) + "\n"


def render(report: Report, fmt: str = "chat", limit: int = LIMIT, group_by: str = "rule", **_: Any) -> str:
    """One report: the summary and notes (``markdown.head``), then each finding whole, as many as fit ``limit``; by
    rule, where a rule would go unsaid, its first finding cut (``_every_rule``)."""
    check_group_by(group_by)
    noun = _noun(report)
    found = _findings(report, group_by, limit)
    blocks = [(noun, text, 0, n) for text, n, _, _ in found]
    text = _whole(report, blocks, noun, limit, group_by)
    leads = _leads(found)
    if limit and group_by == "rule":
        if set(leads) - {(r.policy, r.rule) for t, _, _, r in found if t in text and r.result in FINDINGS}:
            # every rule said at least once (trial 223 #1: two VMs kube-scheduler cannot place went unsaid beside
            # two rules whose paragraphs filled the message): the skip notes counted, then the other notes too
            # (the assumption notes cut, then every note counted, where that shows more paragraphs whole)
            heads = (
                head(report, report.name, limit, skips=0),
                head(report, report.name, limit, skips=0, assumed=CELL),
                head(report, report.name, limit, skips=0, lean=True, assumed=CELL),
            )
            tried = [every for h in heads if (every := _every_rule(_plain_lead(h), found, blocks, noun, limit)) is not None]
            # the one naming the most failing rules, then showing the most paragraphs whole (trial 237 #2: at 2,000
            # characters a message named 8 rules where at 1,950 it named 9, its room given to a note)
            best = max([*tried, text], key=lambda t: (_named(t, leads), sum(b in t for b in (x for x, *_ in found))))
            if best is not text:
                return best
    if limit and len(found) > 1 and found[0][0] not in text and any(t in text for t, *_ in found[1:]):
        # the worst finding first, cut, rather than a milder one whole in its place (trial 224 #1: at 1,900
        # characters one info warning stood for 27 high failures, whose first paragraph was too long to fit)
        cut = _worst_cut_first(
            _plain_lead(head(report, report.name, limit, skips=0, lean=True, assumed=CELL)), found, blocks, noun, limit
        )
        if cut is not None:
            return cut
    if limit and leads and not _named(text, leads):
        # not one finding named, a pass whole in their place or none (trial 237 #1, #5: at limit 500 with passes
        # listed, a pass alone; on a dump of long findings, none): the worst finding cut, else its heading line
        i = min(leads.values())
        lead = _plain_lead(head(report, report.name, limit, skips=0, lean=True, assumed=CELL))
        total = sum(n for *_, n in blocks)
        for n in (blocks[i][3], 1):  # (with its other objects counted, where its heading has no room to say them)
            if said := _briefed([lead], found[i][2], found[i][3], Counter({noun: total - n}), Counter({noun: n}), limit, n - 1):
                return said
    return text


#: How a finding's heading line starts (``_named``).
_FINDING_HEADS = tuple(f"{w.upper()} (" for w in FINDINGS)


def _named(text: str, leads: dict[tuple[str, str], int]) -> int:
    """How many of the failing rules ``leads`` (``_leads``) ``text`` names in a finding's heading line."""
    heads = {line for line in text.splitlines() if line.startswith(_FINDING_HEADS)}
    return sum(any(h.endswith(f" · {_span(f'{p}/{r}')}") for h in heads) for p, r in leads)


def _worst_cut_first(first: str, found: list[Said], blocks: list[Block], noun: str, limit: int) -> str | None:
    """``first``, the worst finding's paragraph cut (``_brief``, in at most half the room where another fits whole beside
    it, else in all of it), then the others that fit whole, the rest counted; None where the room is too short."""
    total = sum(n for *_, n in blocks)
    closing = _closing(Counter({noun: total - blocks[0][3]}), limit, Counter({noun: blocks[0][3]}))
    room = limit - len(first) - 2 - (2 + len(closing)) - 1
    for share in (2, 1):
        brief = _brief(found[0][2], found[0][3], room // share, True, found[0][1] - 1) if room // share >= BRIEF else ""
        if not brief:
            continue
        keep = [i + 1 for i in _fit_indices(f"{first}\n\n{brief}", blocks[1:], limit)]
        if not keep and share == 2:
            continue  # nothing else fits beside it: the worst one in all the room
        while True:
            text = _joined(first, blocks, keep, {0: brief}, noun, limit)
            if len(text) <= limit or not keep:
                break
            keep.pop()  # (the closing line counts the worst's others too: a digit more than fitting reckoned)
        if len(text) <= limit:
            return text
    return None


def _whole(report: Report, blocks: list[Block], noun: str, limit: int, group_by: str) -> str:
    """The summary and notes, then as many findings whole as fit ``limit``: the notes counted rather than said where
    that shows more of them."""
    text, shown = _fitted(_plain_lead(head(report, report.name, limit, alone=not blocks)), blocks, limit)
    if limit and shown < len(blocks):
        # the findings before the skip notes where they are cut (trial 172: three skip notes and 2 of 12 fails), as
        # markdown does; and before the other notes, counted, where not one finding fits beside them (trial 179: at
        # Discord's 1,900 characters, 801 of notes and no finding)
        for lean in (False, True):
            fewer, more = _fitted(_plain_lead(head(report, report.name, limit, skips=0, lean=lean)), blocks, limit)
            if more > shown:
                return fewer
            if shown:
                break
        # and the assumption notes cut shorter, where that shows one more finding (trials 195, 198: 900 characters of
        # them pushed out the finding that named what to fix)
        fewer, more = _fitted(_plain_lead(head(report, report.name, limit, skips=0, assumed=CELL)), blocks, limit)
        if more > shown:
            return fewer
        if not shown:
            # not one finding fits whole: the worst one's heading and message, cut, and its fix left to the JSON
            # report (trial 206: at limit 1,000 the one fail of the dump was counted, and shown nowhere)
            lead = _plain_lead(head(report, report.name, limit, skips=0, lean=True, assumed=CELL))
            o, worst = _worst(report, group_by)
            rest = Counter({noun: sum(n for *_, n in blocks) - 1})
            return _briefed([lead], o.ref, worst, rest, Counter({noun: 1}), limit) or text
    return text


def _worst(report: Report, group_by: str) -> tuple[Any, Result]:
    """The report's worst finding, with its object: the first of the first group (``groups`` orders them)."""
    return next(pair for group in groups(report, group_by) for pair in group)


def _briefed(
    before: list[str], ref: Any, worst: Result, rest: Counter[str], shown: Counter[str], limit: int, more: int = 0
) -> str:
    """``before`` (a summary, a dump's heading), then ``worst`` cut to the room ``limit`` leaves (``_brief``), then the
    line counting ``rest``: "" where the room is too short for it."""
    closing = _closing(rest, limit, shown) if +rest else ""
    room = limit - sum(len(p) + 2 for p in before) - (len(closing) + 2 if closing else 0) - 1
    brief = _brief(ref, worst, room, bool(closing), more, bare=True)
    return "\n\n".join([*before, brief, *([closing] if closing else [])]) + "\n" if brief else ""


#: The least of a cut message kept beside its fix's first command (``_brief``).
_MESSAGE_BESIDE_FIX = 160
#: A fix's first command is kept in a cut finding where at most this many lines lead to it (``_brief``).
_LEAD_LINES = 3
#: The least of a message a cut finding keeps: fewer, and the finding is not shown (``_brief``).
_LEAST_MESSAGE = 80


def _fix_lead(fix: str) -> tuple[str, str]:
    """What ``_brief`` keeps of a finding's fix beside its cut message: the code block of its first command with the
    comment lines that lead to it (at most ``_LEAD_LINES``), or of the whole fix where it runs nothing (each command
    under its condition: a choice, of which a part would offer one side alone), and the line saying the rest is not
    shown where there is more; ("", "") where neither."""
    lines = fix_lines(fix) if fix else []
    first = next((i for i, line in enumerate(lines[:_LEAD_LINES]) if not line.startswith("#")), None)
    if first is None and lines and all(line.startswith("#") for line in lines):
        # (trial 241 #7: at limit 3,500 the one high finding's fix, a choice between two commands, was not shown)
        first = len(lines) - 1
    if first is None:
        return "", ""
    rest = f"_the rest of its fix is not shown here: {ALL_OF_IT} shows it_" if len(lines) > first + 1 else ""
    return _block(lines[: first + 1]), rest


def _fix_room(ref: Any, r: Result, more: int = 0) -> int:
    """The room ``_brief`` needs to keep the finding's fix (``_fix_lead``) beside ``_MESSAGE_BESIDE_FIX`` characters of
    its message; 0 where it keeps none."""
    block, rest = _fix_lead(r.remediation)
    if not block:
        return 0
    return len(_heading(ref, r, more)) + 1 + len(block) + 1 + (len(rest) + 1 if rest else 0) + _MESSAGE_BESIDE_FIX


def _brief(ref: Any, r: Result, room: int, way_below: bool = False, more: int = 0, bare: bool = False) -> str:
    """``finding``'s paragraph within ``room`` characters: its heading line, its message cut at a word with "…", and
    its fix's first command with the comment lines that lead to it (at most ``_LEAD_LINES``) where the message keeps
    ``_MESSAGE_BESIDE_FIX`` characters beside them, else in place of its fix a line saying where it is (a command is
    never cut: a cut one may run), that line without the way to it where it leaves too little and ``way_below`` (the
    message's closing line says ``ALL_OF_IT``); "" where the heading and that line leave no room for
    ``_LEAST_MESSAGE`` characters of the message, unless ``bare`` (the last resort: no finding is named otherwise),
    where the heading line stands alone with a line saying its message and fix are not shown."""
    top = _heading(ref, r, more)
    tails = [f"_its fix is not shown here: {ALL_OF_IT} shows it_", *(["_its fix is not shown here_"] * way_below)]
    for tail in tails if r.remediation else [""]:
        left = room - len(top) - 1 - (len(tail) + 1 if tail else 0)
        # (trial 235 #1: at limit 500 the way to the fix, said twice, left no room for any finding's message)
        if left >= _LEAST_MESSAGE:
            break
    else:
        # its heading line alone, where the closing line says the way (trial 237 #5: at limit 500 a dump of long
        # findings named none)
        heading = f"{top}\n_{'message and fix' if r.remediation else 'message'} not shown_"
        return heading if bare and way_below and len(heading) <= room else ""
    # its first command where the message keeps 160 characters beside it (trial 232 #2: at limit 1,000 the whole
    # message was kept and the one command dropped)
    # (trial 233 #1: and the comment lines that lead to it, where the fix starts with them: "First see whether
    # sandbox workloads are on:" and its check were dropped, the message kept whole)
    block, rest = _fix_lead(r.remediation)
    if block:
        keeps = room - len(top) - 1 - len(block) - 1 - (len(rest) + 1 if rest else 0)
        if keeps >= _MESSAGE_BESIDE_FIX:
            tail, left = (f"{block}\n{rest}" if rest else block), keeps
    words = " ".join(r.message.split())
    said = inert(words)
    if len(said) > left:
        cut = words[: left - 1]
        while len(inert(cut)) > left - 1:  # (inert may lengthen the text: a mention gets a zero-width space)
            cut = cut[: -max(1, len(inert(cut)) - left + 1)]
        word = cut.rfind(" ")
        said = inert(cut[:word] if word > len(cut) - 40 else cut) + "…"  # at a word, unless a long one
    return "\n".join(x for x in (top, said, tail) if x)


def render_many(reports: list[Report], fmt: str = "chat", limit: int = LIMIT, group_by: str = "rule", **_: Any) -> str:
    """A total line, then each dump's name and summary line and its findings (a dump without a finding or an input
    error: its summary line alone), all within ``limit``; a note every dump carries is said once, under the total."""
    check_group_by(group_by)
    if len(reports) == 1:
        return render(reports[0], fmt, limit, group_by)
    shared = [
        n for n in reports[0].notes if not n.startswith(("assumed:", *_IDLE_RULES)) and all(n in r.notes for r in reports[1:])
    ]
    if shared:
        reports = [dataclasses.replace(r, notes=[n for n in r.notes if n not in shared]) for r in reports]
    # worst first, as Markdown's index (trial 230 #2: the first dump's medium findings filled the message, the high ones
    # of the dumps after it and the dumps not read were left out)
    reports = worst_first(reports)
    total = _plain_lead(summary_line(Report.total(reports), f"{len(reports)} dumps"))
    notes = [f"_note: {inert(one_line(n))}_" for n in shared]
    if limit:
        # the notes every dump carries take at most half the message, the rest counted (trial 181: a 330-character
        # batch note took a 500-character message to 574)
        notes = _fitting(notes, max(limit // 2 - len(total) - _CLOSING_ROOM, _NOTES_FLOOR), "note")
    first = "\n".join([total, *notes])
    blocks: list[Block] = []
    for i, r in enumerate(reports, 1):
        quiet = not r.by_rule() and not r.input_errors
        said = summary_line(r) if quiet else head(r, limit=limit, skips=0)
        if not_read(r):
            # a dump not read: its input errors say it (trial 230 #2: "0 objects judged (0 read) · 0 pass · 0 fail ..."
            # for each took the room of a finding)
            said = "\n".join(input_error_lines(r, whole=not limit))
        blocks.append(("dump", f"== {inert(one_line(r.name or f'dump {i}'))} ==\n{_plain_lead(said)}", i, 1))
        noun = _noun(r)
        blocks.extend((noun, text, i, n) for text, n, _, _ in _findings(r, group_by, limit))
    text = _fitted(first, blocks, limit)[0]
    findings = [t for noun, t, _dump, _n in blocks if noun != "dump"]
    if not limit or not findings or any(t in text for t in findings):
        return text
    # not one finding fits whole: the worst one's dump heading, its heading and message cut, the rest counted (trial
    # 208: a batch at limit 1,000 showed none, as a single dump did before 6ce7b55)
    i, o, worst = max(
        ((i, *_worst(r, group_by)) for i, r in enumerate(reports, 1) if r.by_rule()),
        key=lambda x: (RESULT_RANK[x[2].result], SEVERITY_RANK.get(x[2].severity, 0), -x[0]),
    )
    r = reports[i - 1]
    heading = f"== {inert(one_line(r.name or f'dump {i}'))} ==\n{_plain_lead(summary_line(r))}"
    shown = Counter({_noun(r): 1, "dump": 1})
    # the dumps not read first, as far as they leave the worst finding its room (trial 231 #4: they went unsaid)
    before = [first]
    for noun, said, d, _n in blocks:
        if noun != "dump" or not not_read(reports[d - 1]):
            continue
        more = shown + Counter({"dump": 1})
        closing = _closing(_counts(blocks) - more, limit, more)
        room = limit - sum(len(p) + 2 for p in [*before, said, heading]) - (len(closing) + 2) - 1
        if room >= BRIEF:
            before.append(said)
            shown = more
    rest = _counts(blocks) - shown
    return _briefed([*before, heading], o.ref, worst, rest, shown, limit) or text
