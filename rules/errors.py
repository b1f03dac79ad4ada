"""Error and provenance types shared by every stage of the engine."""

from __future__ import annotations

import difflib
import operator
from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any


def pickled_by_fields[T: type](cls: T) -> T:
    """``cls``, a frozen slots dataclass, pickled as a call with its fields in order. The default for such a
    class (``dataclasses``' ``__setstate__``) runs Python for every field of every instance: the results the
    workers of a parallel run send back unpickled at half the speed (``rules.parallel``)."""
    get = operator.attrgetter(*(f.name for f in fields(cls)))

    def __reduce__(self: Any) -> tuple[type, tuple[Any, ...]]:
        return cls, get(self)

    cls.__reduce__ = __reduce__  # type: ignore[method-assign,assignment]
    return cls


def quoted(text: str) -> str:
    r"""``text`` in quotes for a message, exactly as written: single quotes, or double quotes when it holds a
    single quote (the quotes ``repr`` would choose), but never ``repr`` itself, which doubles every backslash
    (``'nvidia\.com'`` for the ``nvidia\.com`` a user wrote and must write)."""
    return f'"{text}"' if "'" in text and '"' not in text else f"'{text}'"


def nearest(word: str, choices: Sequence[str]) -> str | None:
    """The choice ``word`` most likely stands for: one of three letters or more it starts with, ignoring case
    (``failed`` -> ``fail``, ``warning`` -> ``warn``), else the closest spelling (``Skipped`` -> ``skip``), else the
    one choice it abbreviates (``md`` -> ``markdown``); None when none is close."""
    low = word.lower()
    near = [c for c in choices if len(c) >= 3 and low.startswith(c.lower())]
    near = near or difflib.get_close_matches(low, list(choices), 1)
    if not near and len(low) >= 2 and low.isalpha():
        # an abbreviation: the word's letters in order in one choice that starts with the same letter (md -> markdown;
        # letters only: v2 is not short for v1alpha2)
        near = [c for c in choices if c[:1].lower() == low[:1] and _in_order(low, c.lower())]
        near = near if len(near) == 1 else []
    return near[0] if near else None


def did_you_mean(choice: str | None) -> str:
    """`` (did you mean 'fail'?)`` for a choice, "" for None: how every refusal names what a word likely stood for."""
    return f" (did you mean {choice!r}?)" if choice else ""


def meant(word: str, choices: Sequence[str]) -> str:
    """``did_you_mean`` of the choice ``word`` most likely stands for (``nearest``)."""
    return did_you_mean(nearest(word, choices))


def _in_order(letters: str, word: str) -> bool:
    rest = iter(word)
    return all(ch in rest for ch in letters)


def dotted(where: list[str | int]) -> str:
    """A field path inside a document as errors show it: ``spec.rules[0].assert.path``."""
    out = ""
    for step in where:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else str(step))
    return out


def byte_place(data: bytes, offset: int) -> tuple[int, int]:
    """1-based (line, column) of byte ``offset`` in ``data``, for errors about undecodable bytes."""
    line_start = data.rfind(b"\n", 0, offset) + 1
    return data.count(b"\n", 0, offset) + 1, offset - line_start + 1


#: UTF-8's byte order mark, which ``utf-8-sig`` decoding drops: a decoding error's offset is then after it.
UTF8_BOM = b"\xef\xbb\xbf"


def sig_offset(data: bytes, exc: UnicodeDecodeError) -> int:
    """The offset in ``data`` of the byte ``exc`` (from ``data.decode("utf-8-sig")``) names: after a byte order
    mark, the codec counts from past it (trial 128: the place said was 3 bytes early)."""
    return exc.start + (len(UTF8_BOM) if data.startswith(UTF8_BOM) else 0)


def not_utf8(data: bytes, exc: UnicodeDecodeError) -> tuple[str, int, int]:
    """Where ``data.decode("utf-8-sig")`` failed, as a dump and a policy say it: ``byte 0x.. at line L, column C``, the
    line, and the byte's offset in ``data``."""
    at = sig_offset(data, exc)
    line, column = byte_place(data, at)
    return f"byte 0x{data[at]:02x} at line {line}, column {column}", line, at


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Source:
    """Where an object came from.

    ``file`` is the path as given (inside an archive: ``archive.tar.gz!inner/path.yaml``; standard input:
    ``<stdin>``); ``document`` is the 1-based YAML document number in that file (1 for JSON);
    ``line`` is the 1-based line where the object starts, or 0 when unknown; ``item`` is the 0-based
    index inside a ``*List`` or JSON array, or None for a top-level object.
    """

    file: str
    document: int = 1
    line: int = 0
    item: int | None = None

    def __str__(self) -> str:
        where = f"{self.file}, document {self.document}"
        if self.item is not None:
            # the List's items as a JSONPath indexes them, from 0 (trial 70: "item 1" read as the first)
            where += f", items[{self.item}]"
        if self.line:
            where += f", line {self.line}"
        return where

    def to_dict(self) -> dict[str, Any]:
        """Plain form for reports: ``{"file", "document", "line"[, "item"]}``."""
        out: dict[str, Any] = {"file": self.file, "document": self.document, "line": self.line}
        if self.item is not None:
            out["item"] = self.item
        return out


@dataclass(frozen=True, slots=True)
class InputError:
    """A part of the input that could not be read; the rest of the dump is still evaluated.

    ``path`` is a JSONPath inside the document when the problem is inside an object, else "". ``lost`` is False
    when the input is malformed but every object of it was still read (a comma missing between whole items of a
    JSON List): no verdict can change with what it kept out. ``kind`` is the kind of the object it kept out, where
    that is known (an item of a List named by its layout), else "": only a verdict that reads that kind may change.
    ``count`` is how many objects of that kind it kept out, None where that is not known (a node's pods withheld).
    ``ref`` is the ``namespace/name`` (or name) of the one object it kept out, where that is known: an object of that
    kind and name read elsewhere in the dump (a second copy) was not kept out.
    """

    source: Source
    reason: str
    path: str = ""
    lost: bool = True
    kind: str = ""
    count: int | None = 1
    ref: str = ""

    def __str__(self) -> str:
        return f"{self.place()}: {self.reason}"

    def place(self, within: str = "") -> str:
        """Where it is, as ``__str__`` says it: the source, and a path inside the object; without the file's name
        where that is ``within`` (the one body a request sent, which the answer names already)."""
        # the document's root, or the List item the source names already, says nothing more (trial 156: "line 1
        # at $" read as jargon); a path inside the object is said
        item = self.source.item
        told = ("", "$", "" if item is None else f"$.items[{item}]", "" if item is None else f"$[{item}]")
        at = "" if self.path in told else f" at {self.path}"
        where = str(self.source)
        if within and self.source.file == within:
            where = where.removeprefix(f"{within}, ")
        return f"{where}{at}"

    def to_dict(self) -> dict[str, Any]:
        """Plain form for reports and problem documents: the source's ``{"file", "document", "line"[, "item"]}``
        plus ``"path"`` and ``"reason"``."""
        out = self.source.to_dict()
        out["path"] = self.path
        out["reason"] = self.reason
        return out


class VerdictError(Exception):
    """Base class of verdict's own errors."""


class DumpError(VerdictError):
    """A whole input could not be read (missing file, unreadable archive, body not a dump).

    ``where`` names the file (or ``<stdin>``, ``<body>``); ``line`` is 0 when not known.
    """

    def __init__(self, where: str, reason: str, line: int = 0) -> None:
        self.where = where
        self.reason = reason
        self.line = line
        at = f"{where}:{line}" if line else where
        super().__init__(f"{at}: {reason}")

    def __reduce__(self) -> tuple[Any, ...]:
        # rebuilt from its fields in another process (a batch of dumps is read in worker processes)
        return (type(self), (self.where, self.reason, self.line))


class DumpTooLarge(DumpError):
    """An input unpacks (gzip, tar, zip, nested or not) to more than it may."""


class PolicyError(VerdictError):
    """A policy file was refused at load.

    ``file`` and ``line`` (1-based, 0 if unknown) locate the problem; ``rule`` is the rule id
    when the problem is inside one rule; ``path`` is the field inside the document
    (e.g. ``spec.rules[2].assert.path``).
    """

    def __init__(self, file: str, reason: str, line: int = 0, rule: str = "", path: str = "") -> None:
        self.file = file
        self.reason = reason
        self.line = line
        self.rule = rule
        self.path = path
        #: Other problems found in the same document (validation reports them all at once), by line.
        self.more: list[PolicyError] = []
        at = f"{file}:{line}" if line else file
        parts = [at]
        if rule:
            parts.append(f"rule {rule}")
        if path:
            parts.append(path)
        super().__init__(f"{': '.join(parts)}: {reason}")

    def to_dict(self) -> dict[str, Any]:
        """Plain form for the API (lint and reload ``errors``): ``{"file", "line", "rule", "path", "reason"}``."""
        return {"file": self.file, "line": self.line, "rule": self.rule, "path": self.path, "reason": self.reason}


class ExemptionError(PolicyError):
    """An exemptions file (``kind: Exemptions``) was refused at load: ``file``, ``line``, ``path`` (e.g.
    ``exemptions[2].reason``) and ``reason`` as for a policy; ``rule`` is always ""."""


@dataclass(frozen=True, slots=True)
class RuleNameProblem:
    """One rule name (``-r``, ``--skip-rule``, ``rule=``, ``skipRule=``, ``/v1/rules/<id>``) that stands for no
    single rule: ``reason`` says why, in words the CLI and the API both print; ``candidates`` are the
    ``policy/rule`` ids of an ambiguous bare rule id (empty for an unknown name)."""

    name: str
    reason: str
    candidates: tuple[str, ...] = ()
    #: True for a name given to leave a rule out (``--skip-rule``, ``skipRule=``), False for one that chooses it
    skip: bool = False


class RuleLookupError(VerdictError):
    """Rule names that name no rule, or bare rule ids that several policies use; ``problems`` holds one
    ``RuleNameProblem`` a name, in the order given; the message is their reasons, one a line."""

    def __init__(self, problems: list[RuleNameProblem]) -> None:
        self.problems = problems
        super().__init__("\n".join(p.reason for p in problems))


class EvaluationTimeout(VerdictError):
    """Evaluating a dump took longer than the caller's budget (``seconds``); nothing was reported."""

    def __init__(self, seconds: float, judged: int, total: int) -> None:
        self.seconds = seconds
        self.judged = judged
        self.total = total
        super().__init__(f"evaluating took more than {seconds:g} s ({judged:,} of {total:,} objects judged)")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.seconds, self.judged, self.total))


class EvaluationError(VerdictError):
    """A rule could not be evaluated on one object; becomes that result's ``error``."""


class UnknownName(EvaluationError):
    """A name no binding, var, built-in or context of the scope provides (a message's placeholder of a forEach's
    binding where no item failed is left as written)."""
