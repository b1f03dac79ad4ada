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


def human_duration(seconds: Any) -> str | None:
    """``seconds`` as kubectl writes an age (HumanDuration,
    https://pkg.go.dev/k8s.io/apimachinery/pkg/util/duration#HumanDuration): ``80s``, ``5m3s``, ``47m``, ``5h5m``,
    ``30h``, ``3d4h``, ``40d``, ``2y10d``; None for nothing. Raises ``EvaluationError`` for a value that is no
    number."""
    if seconds is None:
        return None
    if isinstance(seconds, bool) or not isinstance(seconds, int | float | Fraction):
        raise EvaluationError(f"duration: {seconds!r} is not a number of seconds")
    s = int(seconds)
    if s < -1:
        return "<invalid>"
    if s < 0:
        return "0s"
    if s < 60 * 2:
        return f"{s}s"
    minutes = s // 60
    if minutes < 10:
        rest = s % 60
        return f"{minutes}m{rest}s" if rest else f"{minutes}m"
    if minutes < 60 * 3:
        return f"{minutes}m"
    hours = s // 3600
    if hours < 8:
        rest = minutes % 60
        return f"{hours}h{rest}m" if rest else f"{hours}h"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        rest = hours % 24
        return f"{hours // 24}d{rest}h" if rest else f"{hours // 24}d"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        days = hours // 24 % 365
        return f"{hours // 24 // 365}y{days}d" if days else f"{hours // 24 // 365}y"
    return f"{hours // 24 // 365}y"
