"""Times a dump shows and the time between them: the ``elapsed`` and ``duration`` references.

A dump holds no clock of its own, but it holds times: a Node's ``status.conditions[*].lastHeartbeatTime`` (the
kubelet writes it at least every five minutes, ``nodeStatusReportFrequency``), a Pod's ``creationTimestamp``, a
container's ``startedAt``. ``elapsed`` gives the seconds from one to another, the latest of a list (a context of every
Node's heartbeats: a time the dump was taken at or after), so a policy can tell a pod that started 80 seconds before
the dump from one stuck for five hours (trial 144). ``duration`` writes a number of seconds as kubectl writes an age.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

from .errors import EvaluationError
from .memo import IdentityMemo

#: RFC 3339's date-time (section 5.6; a space for the T, as its note allows, and no offset, read as UTC, as
#: Kubernetes writes none without one).
_RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})?")


def parse_time(value: Any) -> datetime | None:
    """An RFC 3339 timestamp (``2025-03-03T10:12:44Z``, with a fraction or an offset) as an aware datetime; None for
    a value that is none (a time without an offset is taken as UTC, as Kubernetes writes every time)."""
    if not isinstance(value, str) or _RFC3339.fullmatch(value) is None:
        return None
    try:
        t = datetime.fromisoformat(value.upper())
    except ValueError:  # a date that is none (2025-02-30)
        return None
    return t if t.tzinfo is not None else t.replace(tzinfo=UTC)


#: The latest time of a list a context gives (the same list object for every object of a dump that reads it).
_LATEST: IdentityMemo[datetime | None] = IdentityMemo()


def _latest(values: list[Any]) -> datetime | None:
    return max((t for t in map(parse_time, values) if t is not None), default=None)


def _time(value: Any, which: str, where: str) -> datetime | None:
    """The time of an operand: a timestamp, or the latest of a list of them (its values that are no time are left
    out; computed once per list); None for nothing (an empty string too). Raises ``EvaluationError`` for a value
    given that is not a time, naming the reference it came from."""
    if value is None or value == "":
        return None
    if isinstance(value, list):
        return _LATEST.one(lambda: _latest(value), value)
    t = parse_time(value)
    if t is None:
        raise EvaluationError(f"elapsed: {which} {value!r} ({where}) is not an RFC 3339 time (2025-03-03T10:12:44Z)")
    return t


def elapsed(since: Any, until: Any, since_at: str = "", until_at: str = "") -> int | None:
    """Whole seconds from ``since`` to ``until`` (each a timestamp or a list, of which the latest counts), negative
    when ``until`` is earlier; None when either is missing (so that ``ifMissing`` and ``default`` apply). ``since_at``
    and ``until_at`` say where each came from, for an error."""
    start, end = _time(since, "from", since_at), _time(until, "to", until_at)
    if start is None or end is None:
        return None
    return int((end - start).total_seconds() // 1)


#: HumanDuration's steps, from seconds up: the next unit, how many of this one make it, the count of the next below which
#: this one is written alone, and the count of the next below which it is written with the rest in this one.
_STEPS = (("m", 60, 2, 10), ("h", 60, 3, 8), ("d", 24, 2, 8), ("y", 365, 2, 8))


def human_duration(seconds: Any) -> str | None:
    """``seconds`` as kubectl writes an age (HumanDuration,
    https://pkg.go.dev/k8s.io/apimachinery/pkg/util/duration#HumanDuration): ``80s``, ``5m3s``, ``47m``, ``5h5m``,
    ``30h``, ``3d4h``, ``40d``, ``2y10d``; None for nothing. Raises ``EvaluationError`` for a value that is no
    number."""
    if seconds is None:
        return None
    if isinstance(seconds, bool) or not isinstance(seconds, int | float | Fraction):
        raise EvaluationError(f"duration: {seconds!r} is not a number of seconds")
    value, unit = int(seconds), "s"
    if value < -1:
        return "<invalid>"
    if value < 0:
        return "0s"
    for name, of, alone_below, detail_below in _STEPS:
        if value < of * alone_below:  # too few of the next unit: this one alone
            return f"{value}{unit}"
        bigger, rest = divmod(value, of)
        if bigger < detail_below:  # few of the next unit: with what is left of this one
            return f"{bigger}{name}{rest}{unit}" if rest else f"{bigger}{name}"
        value, unit = bigger, name
    return f"{value}{unit}"
