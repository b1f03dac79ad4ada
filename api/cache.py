"""Reports kept by what they were judged from, so that the same dump posted again is not judged again.

A report is a pure function of the body's bytes (after ``Content-Encoding`` is undone), the dump's name,
its media type, the rules chosen (``policy``/``rule``), the objects chosen (``kind``, ``namespace``,
``labelSelector``, ``objectName``), the policy set's generation, the exemptions in force and, through the
exemptions' ``expires``, the time. Everything but the time is the key (the body as its SHA-256); an entry
is not used past the moment the first exemption in force when it was judged expires. What a client asks of the
answer (``format``, ``results``, ``minSeverity``, ``limit``) is not in the key: a chatops bot that asks for
Markdown and then for the failures as JSON gets one evaluation, rendered twice.

Reports are counted by their pickled size (``pickle`` of the report dataclasses, ~90 KB for the lab dump), so
the bound is what they take, not their bodies' size (a gzipped archive's report is many times its
body): at most ``VERDICT_REPORT_CACHE_MB`` in all, least recently used out first, none above a quarter of it.
Under ``verdict serve`` the workers of one server share them (``SharedReports``: one file per report in a
private directory the gunicorn master makes, in ``/dev/shm`` when there is one, and removes when it stops), so
the next request finds the report whichever worker takes it, and a worker that is replaced loses nothing;
elsewhere (``create_app`` in a test or a script) a process keeps its own (``LocalReports``).

Requests may ask (RFC 9111, directive names in any case): ``Cache-Control: no-cache`` (or ``Pragma: no-cache``
without a ``Cache-Control``) is judged again and its report replaces the kept one; ``max-age=N`` takes a kept
report only when it was judged at most N seconds ago (else it is judged again, ``fwd=stale``; an unreadable N
is 0); ``no-store`` keeps nothing of this request (a report kept before stays). Answers say what happened in ``Cache-Status``
(RFC 9211: ``verdict; hit``, ``verdict; fwd=miss; stored``, ``fwd=request``, ``fwd=stale``, ``fwd=bypass``),
and a hit carries ``Age``: the report is the one judged then, its ``generated`` time and ``timing`` included.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pickle
import tempfile
import threading
import time
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime

from werkzeug.datastructures import Headers

from rules.exemptions import ExemptionSet
from rules.report import Report

#: ``Cache-Status``'s cache name (RFC 9211 section 2)
NAME = "verdict"


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


@dataclass(frozen=True, slots=True)
class Asked:
    """What a request's ``Cache-Control`` (or ``Pragma``) asks of the cache."""

    no_cache: bool = False
    no_store: bool = False
    #: the oldest kept report, in seconds, the client takes (None: any)
    max_age: int | None = None

    @classmethod
    def of(cls, headers: Mapping[str, str] | Headers) -> Asked:
        """From the request's headers: directives by name in any case (RFC 9111 section 5.2); ``Pragma:
        no-cache`` counts when there is no ``Cache-Control`` (section 5.4); an unreadable ``max-age`` is 0."""
        control = headers.get("Cache-Control")
        if control is None:
            pragma = {d.strip().lower() for d in (headers.get("Pragma") or "").split(",")}
            return cls(no_cache="no-cache" in pragma)
        directives: dict[str, str] = {}
        for part in control.split(","):
            name, _, value = part.strip().partition("=")
            directives[name.strip().lower()] = value.strip().strip('"')
        max_age: int | None = None
        if "max-age" in directives:  # one that is not a whole number asks for nothing older than now
            given = directives["max-age"]
            max_age = int(given) if given.isdigit() else 0
        return cls(no_cache="no-cache" in directives, no_store="no-store" in directives, max_age=max_age)


class ReportCache:
    """Pickled reports by key, at most ``max_bytes`` of them in all (0: keeps nothing)."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes

    @property
    def on(self) -> bool:
        return self.max_bytes > 0

    def get(self, key: bytes, now: datetime) -> tuple[Report, float] | None:
        """The report kept for ``key`` and its age in seconds; None when there is none, or when an exemption
        in force when it was judged has expired by ``now`` (it is dropped)."""
        found = self._load(key)
        if found is None:
            return None
        at, until, report = found
        if until is not None and now >= until:
            self._drop(key)
            return None
        return report, max(0.0, time.time() - at)

    def put(self, key: bytes, report: Report, until: datetime | None) -> bool:
        """Keep ``report`` for ``key`` (replacing what was kept for it); False when it was not kept: it takes
        more than a quarter of the bound, or the shared directory could not take it."""
        if not self.on:
            return False
        blob = pickle.dumps(report, protocol=pickle.HIGHEST_PROTOCOL)
        if len(blob) > self.max_bytes // 4:
            return False
        return self._store(key, time.time(), until, blob, report)

    def _load(self, key: bytes) -> tuple[float, datetime | None, Report] | None:
        raise NotImplementedError

    def _store(self, key: bytes, at: float, until: datetime | None, blob: bytes, report: Report) -> bool:
        raise NotImplementedError

    def _drop(self, key: bytes) -> None:
        raise NotImplementedError


class LocalReports(ReportCache):
    """Kept in this process, shared by its threads: the reports themselves (rendering reads a report and never
    changes it), each counted by its pickled size."""

    def __init__(self, max_bytes: int) -> None:
        super().__init__(max_bytes)
        self.held = 0
        self._entries: OrderedDict[bytes, tuple[float, datetime | None, Report, int]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._entries)

    def _load(self, key: bytes) -> tuple[float, datetime | None, Report] | None:
        with self._lock:
            entry = self._entries.get(key)
            if entry is None:
                return None
            self._entries.move_to_end(key)
            return entry[:3]

    def _store(self, key: bytes, at: float, until: datetime | None, blob: bytes, report: Report) -> bool:
        with self._lock:
            self._pop(key)
            self._entries[key] = (at, until, report, len(blob))
            self.held += len(blob)
            while self.held > self.max_bytes:
                self._pop(next(iter(self._entries)))
        return True

    def _drop(self, key: bytes) -> None:
        with self._lock:
            self._pop(key)

    def _pop(self, key: bytes) -> None:
        entry = self._entries.pop(key, None)
        if entry is not None:
            self.held -= entry[3]


class SharedReports(ReportCache):
    """Kept as files in ``directory``, shared by the processes that use it (a server's workers): one file a
    report, written whole then renamed into place, read by whoever asks; the least recently used (by the
    files' modification time, touched on each hit) go first once they take more than the bound."""

    SUFFIX = ".report"
    #: reports this process read or wrote, kept loaded (unpickling the lab dump's takes ~1 ms of a 4 ms hit) and
    #: used while their file is the same one (its inode: a report written again is a new file)
    LOADED = 16

    def __init__(self, max_bytes: int, directory: str) -> None:
        super().__init__(max_bytes)
        self.directory = directory
        self._loaded: OrderedDict[bytes, tuple[int, float, datetime | None, Report]] = OrderedDict()
        self._lock = threading.Lock()

    def _remember(self, key: bytes, inode: int, at: float, until: datetime | None, report: Report) -> None:
        with self._lock:
            self._loaded[key] = (inode, at, until, report)
            self._loaded.move_to_end(key)
            while len(self._loaded) > self.LOADED:
                self._loaded.popitem(last=False)

    def __len__(self) -> int:
        return len(self._files())

    def _path(self, key: bytes) -> str:
        return os.path.join(self.directory, key.hex() + self.SUFFIX)

    def _load(self, key: bytes) -> tuple[float, datetime | None, Report] | None:
        path = self._path(key)
        try:
            with open(path, "rb") as f:
                inode = os.fstat(f.fileno()).st_ino
                with self._lock:
                    loaded = self._loaded.get(key)
                if loaded is not None and loaded[0] == inode:
                    at, until, report = loaded[1:]
                else:
                    at, until = pickle.load(f)
                    report = pickle.load(f)
                    self._remember(key, inode, at, until, report)
            os.utime(path)  # recently used: evicted last
        except FileNotFoundError:
            return None
        except (OSError, pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError):
            self._drop(key)  # another process dropped or broke it mid-read: judged again
            return None
        return at, until, report

    def _store(self, key: bytes, at: float, until: datetime | None, blob: bytes, report: Report) -> bool:
        tmp = ""
        try:
            fd, tmp = tempfile.mkstemp(dir=self.directory, suffix=".tmp")
            with os.fdopen(fd, "wb") as f:
                pickle.dump((at, until), f, protocol=pickle.HIGHEST_PROTOCOL)
                f.write(blob)  # the report's pickle, made once for its size: read back by a second load
                inode = os.fstat(f.fileno()).st_ino
            os.replace(tmp, self._path(key))
        except OSError:  # a full /dev/shm or a directory gone: not kept, the answer stands
            if tmp:
                with contextlib.suppress(OSError):
                    os.remove(tmp)
            return False
        self._remember(key, inode, at, until, report)
        self._evict()
        return True

    def _drop(self, key: bytes) -> None:
        with self._lock:
            self._loaded.pop(key, None)
        with contextlib.suppress(OSError):
            os.remove(self._path(key))

    def _files(self) -> list[os.DirEntry[str]]:
        try:
            return [e for e in os.scandir(self.directory) if e.name.endswith(self.SUFFIX)]
        except OSError:
            return []

    def _evict(self) -> None:
        sized = []
        for e in self._files():
            try:
                st = e.stat()
            except OSError:
                continue
            sized.append((st.st_mtime_ns, st.st_size, e.path))
        held = sum(size for _, size, _ in sized)
        for _, size, path in sorted(sized):
            if held <= self.max_bytes:
                break
            with contextlib.suppress(OSError):
                os.remove(path)
            held -= size


def make(max_bytes: int, directory: str | None) -> ReportCache:
    """The cache of an app: shared through ``directory`` when given and usable, else in this process."""
    if max_bytes and directory and os.path.isdir(directory):
        return SharedReports(max_bytes, directory)
    return LocalReports(max_bytes)
