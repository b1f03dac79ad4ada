"""A small memo keyed by the identity of objects that do not change while a dump is evaluated.

Compiled assertions, data tables and per-dump contexts are the same objects for every Kubernetes object
judged, but lists and dicts cannot be dictionary keys: this memo keys on ``id()`` and keeps the objects
themselves, so an id reused after garbage collection is never taken for the old object.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


class IdentityMemo[T]:
    """``get(build, *objects)`` returns ``build()`` computed once per tuple of objects (by identity).

    Bounded: past ``limit`` entries the memo keeps only the entries used again since the last purge (a
    context's structures, read for every object of a dump) and drops the others (built for one object);
    when every entry is in use it starts afresh (a long-running service sees many dumps).
    """

    def __init__(self, limit: int = 4096) -> None:
        self.limit = limit
        # key -> [objects, value, used again since the last purge]
        self._entries: dict[Any, list[Any]] = {}

    def one(self, build: Callable[[], T], obj: Any) -> T:
        """``get`` for one object (the common case, without the tuple of ids)."""
        hit = self._entries.get(id(obj))
        if hit is not None and hit[0] is obj:
            hit[2] = True
            return hit[1]  # type: ignore[no-any-return]
        if len(self._entries) >= self.limit:
            self._purge()
        value = build()
        self._entries[id(obj)] = [obj, value, False]
        return value

    def get(self, build: Callable[[], T], *objects: Any) -> T:
        key = tuple(map(id, objects))
        hit = self._entries.get(key)
        if hit is not None and all(a is b for a, b in zip(hit[0], objects, strict=True)):
            hit[2] = True
            return hit[1]  # type: ignore[no-any-return]
        if len(self._entries) >= self.limit:
            self._purge()
        value = build()
        self._entries[key] = [objects, value, False]
        return value

    def clear(self) -> None:
        """Forget every entry (a measurement that must not depend on what was built before it)."""
        self._entries = {}

    def _purge(self) -> None:
        kept = {k: e for k, e in self._entries.items() if e[2]}
        if len(kept) > self.limit // 2:
            kept = {}
        for entry in kept.values():
            entry[2] = False
        self._entries = kept
