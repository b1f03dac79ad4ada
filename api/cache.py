"""Reports kept by what they were judged from, so that the same dump posted again is not judged again.

A report is a pure function of the body's bytes (after ``Content-Encoding`` is undone), the dump's name,
its media type, the rules chosen (``policy``/``rule``), the objects chosen (``kind``, ``namespace``,
``labelSelector``, ``objectName``), the policy set's generation, the exemptions in force and, through the
exemptions' ``expires``, the time. Everything but the time is the key (the body as its SHA-256); an entry
is not used past the moment the first exemption in force when it was judged expires. What a client asks of the
answer (``format``, ``results``, ``minSeverity``, ``limit``) is not in the key: a chatops bot that asks for
Markdown and then for the failures as JSON gets one evaluation, rendered twice.

The cache is per worker process and bounded by the bytes of the bodies whose reports it keeps
(``VERDICT_REPORT_CACHE_MB``; a report takes about 5x its body in memory), least recently used first out; a
body above a quarter of the bound is judged and not kept. A request with ``Cache-Control: no-cache`` is
judged again (its report replaces the kept one), one with ``no-store`` is judged and not kept. Answers say
what happened in ``Cache-Status`` (RFC 9211: ``verdict; hit``, ``verdict; fwd=miss; stored``,
``verdict; fwd=request``, ``verdict; fwd=bypass``), and a hit carries ``Age``: the report is the one judged
then, its ``generated`` time and ``timing`` included.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from rules.exemptions import ExemptionSet
from rules.report import Report

#: ``Cache-Status``'s cache name (RFC 9211 section 2)
NAME = "verdict"


@dataclass(frozen=True, slots=True)
class Entry:
    report: Report
    size: int
    #: ``time.monotonic()`` when it was judged (for ``Age``)
    at: float
    #: the first instant an exemption in force when it was judged no longer applies (None: none expires)
    until: datetime | None


def digest(data: bytes, parts: Iterable[object]) -> bytes:
    """The key of a report: SHA-256 of the body, then of everything else it was judged with (``parts``,
    written by ``repr``: strings, numbers and tuples of them)."""
    h = hashlib.sha256(data)
    h.update(b"\0")
    h.update(repr(tuple(parts)).encode())
    return h.digest()


def next_expiry(exemptions: ExemptionSet, now: datetime) -> datetime | None:
    """The first instant after ``now`` at which an exemption of ``exemptions`` stops applying, if any."""
    later = [e.until for e in exemptions.exemptions if e.until is not None and e.until > now]
    return min(later) if later else None


class ReportCache:
    """At most ``max_bytes`` of bodies' reports (0: keeps nothing), least recently used out first; safe
    to share between a worker's threads."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.held = 0
        self._entries: OrderedDict[bytes, Entry] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def keeps(self, size: int) -> bool:
        """Whether a body of ``size`` bytes may be kept: at most a quarter of the bound, so that one large
        dump does not push out every other."""
        return 0 < size <= self.max_bytes // 4

    def get(self, key: bytes, now: datetime) -> tuple[Report, float] | None:
        """The report kept for ``key`` and its age in seconds; None when there is none, or when an exemption
        in force when it was judged has expired by ``now`` (it is dropped)."""
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            if entry.until is not None and now >= entry.until:
                self._drop(key)
                return None
            self._entries.move_to_end(key)
            return entry.report, time.monotonic() - entry.at

    def put(self, key: bytes, report: Report, size: int, until: datetime | None) -> bool:
        """Keep ``report`` (judged from a body of ``size`` bytes) for ``key``; False when it is too large."""
        if not self.keeps(size):
            return False
        with self._lock:
            if key in self._entries:
                self._drop(key)
            self._entries[key] = Entry(report, size, time.monotonic(), until)
            self.held += size
            while self.held > self.max_bytes:
                self._drop(next(iter(self._entries)))
        return True

    def _drop(self, key: bytes) -> None:
        self.held -= self._entries.pop(key).size
