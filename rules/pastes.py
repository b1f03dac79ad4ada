"""What a terminal or a log collector adds to the text of a dump on its way into a paste, taken off before reading.

Each function takes the whole text and returns it with the additions removed, every line kept at its number (so that
input errors still say the line of the paste), and a count or note for the reader to say; the text as it is when it
holds none. Only what cannot be part of a YAML or JSON value is removed.
"""

from __future__ import annotations

import html
import re

#: An ECMA-48 escape sequence: a CSI (``ESC [`` parameters, intermediates, final byte: colours, cursor moves), an OSC
#: (``ESC ]`` ... up to BEL or ``ESC \``: a window title, a hyperlink), or another escape (``ESC (B``, ``ESC =``).
_ANSI = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b\n]*(?:\x07|\x1b\\)|[ -/]*[0-~])")


def without_ansi(text: str) -> tuple[str, int]:
    """The text without its ANSI escape sequences (``_ANSI``), and how many lines carried one (0: the text as it is).

    Trial 145: kubecolor's coloured describe text failed with "YAML error: character U+001B", and a coloured prompt
    (``ESC[01;32mroot@host ESC[00m:~# kubectl describe node ...``) inside a code fence was no prompt line, so the whole
    block was set aside. A raw ESC is in no valid YAML (libyaml refuses the character) nor JSON (only escaped, as
    ``\\u001b``, which is not touched): taking the sequences out changes no value that could be read.
    """
    if "\x1b" not in text:
        return text, 0
    lines = 0
    line = -1  # the line of the last sequence counted
    at = 0  # where the newlines before ``line`` were counted up to
    seen = 0  # the newlines before ``at``
    for m in _ANSI.finditer(text):
        # newlines counted from where the last count stopped: linear in the text (trial 148: a search back to the
        # line's start for every sequence was quadratic on one long line, jq -C -c's output)
        seen += text.count("\n", at, m.start())
        at = m.start()
        if seen != line:
            lines += 1
            line = seen
    return (_ANSI.sub("", text), lines) if lines else (text, 0)


#: A log collector's timestamp at the start of a line, then one space or tab (or the line's end): RFC 3339 as GitHub
#: Actions (``2024-09-06T08:14:03.1234567Z``), Loki and ``kubectl logs --timestamps`` write it, or a date and time in
#: brackets (``[2024-09-06 08:14:03]``).
_TIMESTAMP = re.compile(
    r"(\[)?\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:[.,]\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})?(?(1)\])(?:[ \t]|(?=\r?$))"
)
#: A line that starts with a date and a time, as ``_TIMESTAMP``'s do.
_LINE_STAMP = re.compile(r"^\[?\d{4}-\d{2}-\d{2}[T ]\d{2}:", re.M)
_SPACE = re.compile(r"\s*")
#: A fence line of a Markdown code block.
_FENCE = re.compile(r"[ \t]*(?:```|~~~)")


def _shape(stamp: str) -> str:
    """The shape of a timestamp: its digits and separators, the fraction of a second left out (Loki writes as many
    digits as it needs)."""
    return re.sub(r"\d", "0", re.sub(r"[.,]\d+", "", stamp)).rstrip()


def _stamped(lines: list[str]) -> str | None:
    """The first timestamp of ``lines`` where every line that is not blank (two at least) starts with one of the same
    shape; None otherwise."""
    shape = first = None
    written = 0
    for line in lines:
        if not line.strip():
            continue
        m = _TIMESTAMP.match(line)
        if m is None:
            return None
        if shape is None:
            shape, first = _shape(m.group()), m.group().rstrip()
        elif _shape(m.group()) != shape:
            return None
        written += 1
    return first if written >= 2 else None


def without_timestamps(text: str) -> tuple[str, int, str]:
    """The text without the timestamp a log collector writes before each line (``_TIMESTAMP``), where every line
    that is not blank starts with one of the same shape: of the whole text, or of the lines of a Markdown code block;
    how many lines lost one, and the first (0 and "": the text as it is).

    Trial 145: describe text copied from a GitHub Actions log (``2024-09-06T08:14:03.1234567Z Name: ...``) in a code
    fence was set aside as no dump, and with ``[2024-09-06 08:14:03]`` before each line it was read as a JSON List
    ("not a Kubernetes object: a number"). No YAML or JSON text has a timestamp before every line.
    """
    lead = _SPACE.match(text).end()  # type: ignore[union-attr]
    if _TIMESTAMP.match(text, lead) is None and not (("```" in text or "~~~" in text) and _LINE_STAMP.search(text)):
        return text, 0, ""
    lines = text.split("\n")
    whole = _stamped(lines)
    spans = [(0, len(lines), whole)] if whole is not None else [(a, b, _stamped(lines[a:b])) for a, b in _blocks(lines)]
    count = 0
    first = ""
    for start, end, stamp in spans:
        if stamp is None:
            continue
        first = first or stamp
        for i in range(start, end):
            m = _TIMESTAMP.match(lines[i])
            if m is not None:
                lines[i] = lines[i][m.end() :]
                count += 1
    return ("\n".join(lines), count, first) if count else (text, 0, "")


#: A chat's quote of a message at a line's start: Markdown's blockquote marker (``> ``, or ``>`` alone), as Slack,
#: Matrix, Discord, GitHub and mail clients write a quoted or replied-to message.
_QUOTE = re.compile(r">[ \t]?")
#: The sender Matrix's reply fallback names at the start of the quoted message (``> <@alice:example.org> ...``).
_MATRIX_SENDER = re.compile(r"<@[^<>\s]+>[ \t]?")


#: The first line of a dump or a code block, among the lines a quote leaves unquoted: kept where one stands there.
_DUMP_START = re.compile(r"[ \t]*(?:```|~~~|apiVersion:|kind:|Name:|[{\[]|NAME[ \t])")


def without_quotes(text: str) -> tuple[str, int, int]:
    """The text with one chat quote marker (``_QUOTE``) taken off each line that starts with one, where the text's
    first line that is not blank does, or three lines in a row do (prose before a quote), and Matrix's sender before
    the quoted message; the other lines that are not blank (the reply's own words around the quote) left blank, unless
    one of them starts a dump or a code block of its own; how many lines lost a marker, and how many were left blank
    (0, 0: the text as it is). No YAML, JSON, describe text or kubectl table has a line that starts with ``>`` (trial
    171: "> Name: gpu-pt-bad", a quoted paste, was refused as a YAML syntax error at line 1 with no word of the quote;
    trial 172: a reply's line after the quote made the quoted node "cut short")."""
    lead = _SPACE.match(text).end()  # type: ignore[union-attr]
    if ">" not in text:
        return text, 0, 0
    lines = text.split("\n")
    quoted = [_QUOTE.match(line) is not None for line in lines]
    run = longest = 0
    for q in quoted:
        run = run + 1 if q else 0
        longest = max(longest, run)
    if not text.startswith(">", lead) and longest < 3:
        return text, 0, 0
    others = [i for i, q in enumerate(quoted) if not q and lines[i].strip()]
    blank = not any(_DUMP_START.match(lines[i]) for i in others)
    count = 0
    for i, line in enumerate(lines):
        m = _QUOTE.match(line)
        if m is None:
            if blank and line.strip():
                lines[i] = ""
            continue
        rest = line[m.end() :]
        if not count:
            sender = _MATRIX_SENDER.match(rest)
            rest = rest[sender.end() :] if sender else rest
        lines[i] = rest
        count += 1
    return "\n".join(lines), count, len(others) if blank else 0


def _blocks(lines: list[str]) -> list[tuple[int, int]]:
    """``(start, end)`` of the lines inside each Markdown code block of ``lines`` (a block left open: to the end)."""
    spans: list[tuple[int, int]] = []
    opened: int | None = None
    for i, line in enumerate(lines):
        if not _FENCE.match(line):
            continue
        if opened is None:
            opened = i + 1
        else:
            spans.append((opened, i))
            opened = None
    if opened is not None:
        spans.append((opened, len(lines)))
    return spans


def timestamped(text: str) -> tuple[int, int, str]:
    """How many of the lines of ``text`` that are not blank start with a timestamp, of how many, and the first: for an
    input error's hint where they were not all taken off (``without_timestamps``). Its first 256 KiB are looked at."""
    stamped = written = 0
    first = ""
    for line in text[: 256 * 1024].split("\n"):
        if not line.strip():
            continue
        written += 1
        m = _TIMESTAMP.match(line)
        if m is not None:
            stamped += 1
            first = first or m.group().rstrip()
    return stamped, written, first


#: The escapes of HTML text for the characters it must escape: ``<``, ``>`` and ``&`` (and quotes, in attributes).
_UNESCAPED = frozenset({"&lt;", "&gt;", "&amp;", "&quot;", "&#39;", "&#x27;", "&apos;"})
#: Any HTML character reference: a named one (``&nbsp;``) or a number (``&#160;``).
_REFERENCE = re.compile(r"&(?:[A-Za-z][A-Za-z0-9]*|#[0-9]+|#[xX][0-9A-Fa-f]+);")
#: A tag of the HTML a terminal's "copy as HTML" writes (GNOME Terminal: ``<pre><font color="#8AE234"><b>``).
_TERMINAL_TAG = re.compile(r"</?(?:pre|font|b|i|u|span|code)\b[^<>\n]*>", re.I)
#: What shows a text is a terminal's HTML: its ``<pre>`` or a ``<font color=...>``.
_TERMINAL_HTML = re.compile(r"<pre\b[^<>\n]*>|<font\s+color=", re.I)


def without_html_escapes(text: str) -> tuple[str, bool] | None:
    """The text with its HTML escapes of ``<``, ``>``, ``&`` and quotes undone (``&amp;lt;`` is ``&lt;``), where the
    text shows it was escaped as a whole: those are its only character references, ``&lt;``, ``&gt;`` or ``&amp;``
    among them (or it starts with the tag of a terminal's "copy as HTML", ``<pre>``, ``<font color=...>``), and no
    ``<`` or ``>`` is left unescaped once those tags are taken out; and whether it had them. None where the text does
    not show it.

    Trial 145: describe text a terminal copied as HTML (``Taints: &lt;none&gt;``) lost its node. Where a text also
    holds a raw ``<`` or ``>``, an escape may be a value's own (an annotation that holds "&lt;"): it is left.
    """
    # (trial 148: a <pre> inside a ConfigMap's value is the value's; a terminal's copy starts with its tag, and is one
    # with no escape in it too: trial 150, its first line's "<pre>apiVersion: ..." was set aside)
    wrapped = bool(_TERMINAL_HTML.match(text.lstrip()))
    if "&" not in text and not wrapped:
        return None
    references = {m.group() for m in _REFERENCE.finditer(text)}
    if not references <= _UNESCAPED or not (wrapped or references & {"&lt;", "&gt;", "&amp;"}):
        return None
    body = _TERMINAL_TAG.sub("", text) if wrapped else text
    if "<" in body or ">" in body:
        return None
    return html.unescape(body), wrapped  # its only references are those of _UNESCAPED
