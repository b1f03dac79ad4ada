"""Kubernetes label selectors written as text, as ``kubectl get -l`` and the API's ``labelSelector`` take them.

The grammar and its checks are those of ``k8s.io/apimachinery/pkg/labels/selector.go`` (``Parse``):

    selector     ::= requirement | requirement "," selector
    requirement  ::= ["!"] KEY [ set-based | exact | order ]
    set-based    ::= ("in" | "notin") "(" VALUE ("," VALUE)* ")"
    exact        ::= ("=" | "==" | "!=") VALUE
    order        ::= (">" | "<") INTEGER

``key`` alone means the label exists, ``!key`` that it does not; ``key!=v`` and ``key notin (v)`` hold for an
object without the label. ``>`` and ``<`` compare the label's value as a whole number (an object whose value
is not one does not match). Keys are qualified names (``[prefix/]name``: a DNS subdomain of at most 253
characters, a name of at most 63), values label values (at most 63 characters, may be empty). Whitespace
between tokens is ignored; ``in`` and ``notin`` are words only where an operator is expected, so ``a in (in)``
is valid. An empty text selects everything.

No library kept up to date does this in Python (the Kubernetes client only sends the text to the API
server), so the parser is here, small and tested against apimachinery's cases.
"""

from __future__ import annotations

from .model import Selector
from .schedule.matching import parse_int64
from .schedule.resources import DNS1123_SUBDOMAIN, QUALIFIED_NAME

#: Characters that are tokens of their own (or start one: ``!=``, ``==``).
_SPECIAL = "!=(),<>"
#: operator token -> the model's expression operator
_OPERATORS = {"=": "In", "==": "In", "!=": "NotIn", "in": "In", "notin": "NotIn", ">": "Gt", "<": "Lt"}


class SelectorError(ValueError):
    """A label selector that does not parse, or a key or value Kubernetes would refuse; the message says what
    was found and what was expected, as kubectl does."""


def _tokens(text: str) -> list[str]:
    """The tokens of ``text``: special symbols (longest first: ``!=``, ``==``) and identifiers (runs of any
    other characters but whitespace)."""
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch.isspace():
            i += 1
        elif ch in _SPECIAL:
            pair = text[i : i + 2]
            out.append(pair if pair in ("!=", "==") else ch)
            i += len(out[-1])
        else:
            j = i
            while j < len(text) and not text[j].isspace() and text[j] not in _SPECIAL:
                j += 1
            out.append(text[i:j])
            i = j
    return out


def _is_identifier(token: str | None) -> bool:
    return token is not None and token[0] not in _SPECIAL


def check_key(key: str) -> None:
    """Raises ``SelectorError`` unless ``key`` is a qualified name (``[prefix/]name``)."""
    prefix, slash, name = key.rpartition("/")
    if slash and (not prefix or len(prefix) > 253 or not DNS1123_SUBDOMAIN.match(prefix)):
        raise SelectorError(f"invalid label key {key!r}: the prefix must be a DNS subdomain (lower case, at most 253)")
    if not name or len(name) > 63 or not QUALIFIED_NAME.match(name):
        raise SelectorError(
            f"invalid label key {key!r}: the name must be at most 63 characters of letters, digits, '-', '_' or '.', "
            "starting and ending with a letter or digit"
        )


def check_value(key: str, value: str) -> None:
    """Raises ``SelectorError`` unless ``value`` is a label value (empty, or a name of at most 63)."""
    if value and (len(value) > 63 or not QUALIFIED_NAME.match(value)):
        raise SelectorError(
            f"invalid label value {value!r} for {key}: at most 63 characters of letters, digits, '-', '_' or '.', "
            "starting and ending with a letter or digit"
        )


class _Parser:
    """apimachinery's recursive-descent parser over the tokens."""

    def __init__(self, text: str) -> None:
        self.tokens = _tokens(text)
        self.at = 0

    def peek(self) -> str | None:
        return self.tokens[self.at] if self.at < len(self.tokens) else None

    def take(self) -> str | None:
        token = self.peek()
        self.at += 1
        return token

    @staticmethod
    def found(token: str | None) -> str:
        return "end of string" if token is None else repr(token)

    def selector(self) -> list[tuple[str, str, frozenset[str]]]:
        out: list[tuple[str, str, frozenset[str]]] = []
        while True:
            token = self.peek()
            if token is None:
                return out
            if token != "!" and not _is_identifier(token):
                raise SelectorError(f"found {self.found(token)}, expected: !, identifier, or end of string")
            out.append(self.requirement())
            token = self.take()
            if token is None:
                return out
            if token != ",":
                raise SelectorError(f"found {self.found(token)}, expected: ',' or end of string")
            following = self.peek()
            if following != "!" and not _is_identifier(following):
                raise SelectorError(f"found {self.found(following)}, expected: identifier after ','")

    def requirement(self) -> tuple[str, str, frozenset[str]]:
        absent = self.peek() == "!"
        if absent:
            self.take()
        key = self.take()
        if not _is_identifier(key) or key is None:
            raise SelectorError(f"found {self.found(key)}, expected: identifier")
        check_key(key)
        if absent or self.peek() in (None, ","):
            return key, "DoesNotExist" if absent else "Exists", frozenset()
        token = self.take()
        op = _OPERATORS.get(token or "")
        if op is None:
            raise SelectorError(f"found {self.found(token)}, expected: =, ==, !=, in, notin, >, <")
        values = self.values() if token in ("in", "notin") else self.exact()
        for value in values:
            check_value(key, value)
        if op in ("Gt", "Lt"):
            [value] = values
            if parse_int64(value) is None:
                raise SelectorError(f"for '{token}' the value must be a whole number, not {value!r} ({key})")
        return key, op, values

    def values(self) -> frozenset[str]:
        token = self.take()
        if token != "(":
            raise SelectorError(f"found {self.found(token)}, expected: '('")
        found: set[str] = set()
        if self.peek() == ")":  # "()": one empty value, as apimachinery reads it
            self.take()
            return frozenset({""})
        expect_value = True
        while True:
            token = self.take()
            if token == ")":
                if expect_value:
                    found.add("")  # "(a,)"
                return frozenset(found)
            if token == ",":
                if expect_value:
                    found.add("")  # "(,a)" and "(a,,b)"
                expect_value = True
            elif _is_identifier(token) and expect_value and token is not None:
                found.add(token)
                expect_value = False
            else:
                raise SelectorError(f"found {self.found(token)}, expected: ',', ')' or identifier")

    def exact(self) -> frozenset[str]:
        if self.peek() in (None, ","):  # "a=": the empty value
            return frozenset({""})
        token = self.take()
        if not _is_identifier(token) or token is None:
            raise SelectorError(f"found {self.found(token)}, expected: identifier")
        return frozenset({token})


def parse_selector(text: str) -> Selector:
    """The ``Selector`` of a label selector written as text (``nvidia.com/gpu.present=true,tier notin (a,b),!x``).
    Raises ``SelectorError`` naming what was found and what was expected, or the key or value refused."""
    return Selector((), tuple(_Parser(text).selector()))
