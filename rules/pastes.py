"""What a terminal or a log collector adds to the text of a dump on its way into a paste, taken off before reading.

Each function takes the whole text and returns it with the additions removed, every line kept at its number (so that
input errors still say the line of the paste), and a count or note for the reader to say; the text as it is when it
holds none. Only what cannot be part of a YAML or JSON value is removed.
"""

from __future__ import annotations

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
    last = -2  # the line end before the last sequence's line (-1: the first line's)
    for m in _ANSI.finditer(text):
        start = text.rfind("\n", 0, m.start())
        if start != last:
            lines += 1
            last = start
    return (_ANSI.sub("", text), lines) if lines else (text, 0)
