"""Times a dump shows and the time between them: the ``elapsed`` and ``duration`` references.

A dump holds no clock of its own, but it holds times: a Node's ``status.conditions[*].lastHeartbeatTime`` (the
kubelet writes it at least every five minutes, ``nodeStatusReportFrequency``), a Pod's ``creationTimestamp``, a
container's ``startedAt``. ``elapsed`` gives the seconds from one to another, the latest of a list (a context of every
Node's heartbeats: a time the dump was taken at or after), so a policy can tell a pod that started 80 seconds before
the dump from one stuck for five hours (trial 144). ``duration`` writes a number of seconds as kubectl writes an age.
"""

from __future__ import annotations

from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

from .errors import EvaluationError


def parse_time(value: Any) -> datetime | None:
    """An RFC 3339 timestamp (``2025-03-03T10:12:44Z``, with a fraction or an offset) as an aware datetime; None for
    a value that is none (a time without an offset is taken as UTC, as Kubernetes writes every time)."""
    if not isinstance(value, str) or len(value) < 19 or value[4] != "-":
        return None
    try:
        t = datetime.fromisoformat(value)
    except ValueError:
        return None
    if t.tzinfo is None:
        t = t.replace(tzinfo=UTC)
    return t


def _time(value: Any, which: str) -> datetime | None:
    """The time of an operand: a timestamp, or the latest of a list of them (its values that are no time are left
    out); None for nothing. Raises ``EvaluationError`` for a value given that is not a time."""
    if value is None:
        return None
    values = value if isinstance(value, list) else [value]
    times = [t for t in (parse_time(v) for v in values) if t is not None]
    if not times:
        if isinstance(value, list):
            return None
        raise EvaluationError(f"elapsed: {which} {value!r} is not an RFC 3339 time (2025-03-03T10:12:44Z)")
    return max(times)


def elapsed(since: Any, until: Any) -> int | None:
    """Whole seconds from ``since`` to ``until`` (each a timestamp or a list, of which the latest counts), negative
    when ``until`` is earlier; None when either is missing (so that ``ifMissing`` and ``default`` apply)."""
    start, end = _time(since, "from"), _time(until, "to")
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
