"""The object index: objects by kind (and apiVersion), namespace and name, plus lazily built
indexes on any field a rule joins on, so cross-object lookups are dictionary hits, not scans."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from fnmatch import fnmatchcase
from typing import Any, TypeVar

import orjson

from .describe import rebuilt
from .jsonpath import JsonPath
from .reader import KObject

T = TypeVar("T")


def hashable(value: Any) -> Any:
    """A dictionary key for a JSON value; booleans are kept apart from 1 and 0 (Python's True == 1)."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, dict):
        return tuple(sorted((k, hashable(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(hashable(v) for v in value)
    return value


def _same_object(first: KObject, again: KObject) -> KObject | None:
    """Of two collections of one object at different times (the same non-empty ``metadata.uid``, two different
    whole-number ``resourceVersion``s), the newer; None otherwise: other objects, or copies one of which was
    changed by hand (the same version, trial 54) or whose versions cannot be ordered."""
    old, new = metadata_of(first), metadata_of(again)
    uid = old.get("uid")
    if not uid or not isinstance(uid, str) or new.get("uid") != uid:
        return None
    a, b = old.get("resourceVersion"), new.get("resourceVersion")
    if not (isinstance(a, str) and isinstance(b, str) and a.isdigit() and b.isdigit()) or int(a) == int(b):
        return None
    return again if int(b) > int(a) else first


def metadata_of(obj: KObject) -> dict[str, Any]:
    """The object's ``metadata`` mapping (empty when it has none, or not a mapping)."""
    meta = obj.obj.get("metadata") if isinstance(obj.obj, dict) else None
    return meta if isinstance(meta, dict) else {}


class Index:
    """Read-only view of a dump's objects for evaluation.

    Lookups by kind are exact (``Node``, ``ClusterPolicy``); ``api_version`` may be a glob
    (``kubevirt.io/*``). Field indexes (``lookup``) and derived structures (``memo``) are built on first
    use and kept for the life of the index (one dump).
    """

    def __init__(
        self, objects: Iterable[KObject], unread: int = 0, unread_kinds: frozenset[str] = frozenset(), errors: int = 0
    ) -> None:
        #: The dump's input errors that kept part of it from being read (an item of a List that does not parse, a
        #: document cut short), any of which may hold an object a rule that reads other objects would have found;
        #: and the kinds of what they kept out ("*": one of them may be of any kind).
        self.unread = unread
        self.unread_kinds = unread_kinds
        #: All its input errors, those that kept out nothing not read elsewhere too (the count its report gives)
        self.errors = max(errors, unread)
        #: The objects judged: each once (a copy with the same content as an earlier one is in ``copies``).
        self.objects: list[KObject] = []
        self._by_kind: dict[str, list[KObject]] = defaultdict(list)
        self._by_name: dict[tuple[str, str, str], KObject] = {}
        #: Objects that share kind, namespace and name with an earlier one but differ from it: two dumps of
        #: one cluster taken at different times, or of two clusters, read as one (a rule would silently
        #: take its context from either).
        self.conflicts: list[tuple[KObject, KObject]] = []
        #: Objects that stand again with the same content (a must-gather's operator pod in two of its files,
        #: overlapping dumps of a folder): left out, so that none is judged or counted twice.
        self.copies: list[tuple[KObject, KObject]] = []
        #: Objects rebuilt from ``kubectl describe`` text that the dump also holds in full (a folder of describe
        #: text and ``kubectl get pods -o json``): (the full one, judged; the rebuilt one, left out).
        self.partials: list[tuple[KObject, KObject]] = []
        #: One object collected twice at different times (the same metadata.uid; a must-gather of two images, each
        #: collecting the nodes): (the one judged, the newer by resourceVersion; the other, left out).
        self.recollected: list[tuple[KObject, KObject]] = []
        #: where a rebuilt object stands in ``objects`` and in its kind's list, for the full one to take its place
        rebuilt_at: dict[tuple[str, str, str], tuple[int, int]] = {}
        newer: dict[int, KObject] = {}  # id of an object in the lists -> the newer collection to judge instead
        listed: dict[int, int] = {}  # id of a newer collection -> id of the object it stands for in the lists
        versions: dict[tuple[str, str, str], dict[bytes, KObject]] = {}  # the other contents an object stood with
        for obj in objects:
            key = (obj.kind, obj.namespace, obj.name)
            first = self._by_name.setdefault(key, obj)
            # objects without a name (written by hand; the reader notes each) are each their own, but for a copy
            # (trial 191: two unnamed Nodes were "in the dump twice and the two differ")
            if first is not obj and (obj.name or first.obj == obj.obj):
                if first.obj == obj.obj:
                    self.copies.append((first, obj))
                    continue
                # (trial 183: the seventh copy of a node, in one of three versions, was judged again and said to be
                # "in the dump twice": a copy of a version seen before is a copy of it)
                content = _content(obj.obj)
                same = versions.get(key, {}).get(content)
                if same is not None and same.obj == obj.obj:  # (the bytes of NaN are null's: trial 186)
                    self.copies.append((same, obj))
                    continue
                kept = _same_object(first, obj)
                if kept is not None:
                    if kept is obj:  # a third collection replaces the second: the listed object's place is the same
                        place = listed.pop(id(first), id(first))
                        self._by_name[key] = newer[place] = obj
                        listed[id(obj)] = place
                        self.recollected.append((obj, first))
                    else:
                        self.recollected.append((first, obj))
                    continue
                if _rebuilt(obj) and not _rebuilt(first):
                    self.partials.append((first, obj))
                    continue
                if key in rebuilt_at and not _rebuilt(obj):  # the full object takes the rebuilt one's place
                    at, at_kind = rebuilt_at.pop(key)
                    self._by_name[key] = self.objects[at] = self._by_kind[obj.kind][at_kind] = obj
                    self.partials.append((obj, first))
                    continue
                self.conflicts.append((first, obj))
                versions.setdefault(key, {})[content] = obj
            elif _rebuilt(obj):
                rebuilt_at[key] = (len(self.objects), len(self._by_kind[obj.kind]))
            self.objects.append(obj)
            self._by_kind[obj.kind].append(obj)
        if newer:  # one pass, after the loop: the newer collection takes the place of the older
            self.objects = [newer.get(id(o), o) for o in self.objects]
            for kind in {o.kind for o in newer.values()}:
                self._by_kind[kind] = [newer.get(id(o), o) for o in self._by_kind[kind]]
        self._fields: dict[tuple[str, str, bool, str | None], dict[Any, list[KObject]]] = {}
        self._memo: dict[Any, Any] = {}
        #: This dump's own key for memos that outlive it (a compiled policy's per-dump tables): an object, not
        #: id(self), whose address a later dump's Index may take once this one is freed. A table holding it as
        #: a key keeps it alive, so no other dump's token can equal it.
        self.token = object()

    def kinds(self) -> list[str]:
        """Kinds present, sorted."""
        return sorted(self._by_kind)

    def of_kind(self, kind: str, api_version: str | None = None) -> list[KObject]:
        """Objects of ``kind`` (optionally whose apiVersion matches the glob ``api_version``), in input order."""
        found = self._by_kind.get(kind, [])
        if api_version:
            found = [o for o in found if fnmatchcase(o.api_version, api_version)]
        return found

    def get(self, kind: str, name: str, namespace: str = "") -> KObject | None:
        """The object with this kind, namespace and name, or None."""
        return self._by_name.get((kind, namespace, name))

    def lookup(
        self, kind: str, path: JsonPath, value: Any, keys: bool = False, capture: re.Pattern[str] | None = None
    ) -> list[KObject]:
        """Objects of ``kind`` where ``path`` selects ``value`` (any of its values when it selects several);
        with ``keys``, where a mapping ``path`` selects has a member named ``value``; with ``capture``, where
        the group of its match on a string selected is ``value``.

        The first call for a (kind, path, keys, capture) builds a dictionary over all objects of that kind;
        later calls are one dictionary hit.
        """
        key = (kind, path.text, keys, capture.pattern if capture is not None else None)
        table = self._fields.get(key)
        if table is None:
            table = defaultdict(list)
            for obj in self.of_kind(kind):
                seen = set()
                selected = path.values(obj.obj)
                if keys:
                    selected = [k for v in selected if isinstance(v, dict) for k in v]
                if capture is not None:
                    selected = captured(capture, selected)
                for v in selected:
                    hv = hashable(v)
                    if hv not in seen:
                        seen.add(hv)
                        table[hv].append(obj)
            self._fields[key] = table
        return table.get(hashable(value), [])

    def memo(self, key: Any, build: Callable[[], T]) -> T:
        """Build a derived structure once per index (e.g. the scheduler's cluster model) and keep it."""
        if key not in self._memo:
            self._memo[key] = build()
        return self._memo[key]  # type: ignore[no-any-return]

    def built(self, key: Any) -> Any:
        """What ``memo`` built under ``key``, or None when nothing asked for it."""
        return self._memo.get(key)


def captured(pattern: re.Pattern[str], values: list[Any]) -> list[str]:
    """The group of ``pattern``'s match on each string of ``values`` that it matches (a ``capture``: of a reference,
    a subject, or a context's ``where``); an optional group that matched nothing gives nothing."""
    found = (pattern.search(v) if isinstance(v, str) else None for v in values)
    return [g for m in found if m is not None and (g := m.group(1)) is not None]


def _rebuilt(obj: KObject) -> bool:
    """Whether ``obj`` was rebuilt from ``kubectl describe`` text: a part of the object only."""
    return rebuilt(obj.metadata.get("annotations"))


def _content(obj: Any) -> bytes:
    """An object's content as bytes two equal objects share (keys sorted), to tell a copy of a version seen before in
    one lookup, not by comparing it with each (a million versions of one name: issue 12)."""
    try:
        return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS, default=repr)
    except (orjson.JSONEncodeError, TypeError):  # an integer past 64 bits, a key that is no string
        return repr(obj).encode()
