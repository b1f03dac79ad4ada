"""Cross-object joins answered from structures built once per dump, never by scanning a kind per object.

- A context (``rules.model.Context``) is materialised once per dump: an uncorrelated one as the list of its
  values; a correlated one (``where: {field, equals}``, ``sameNamespace``) once per joined value and
  namespace, from the index's table of that field (``Index.lookup``) or of the kind by namespace. Objects
  that join on the same value get the same list.
- A list that is read again and again (a context, a data table) gets the structure each use needs, built
  on first use and kept with the list (by identity): ``count_true`` counts its values by an operator's
  key (``in``, ``equals``... under a quantifier: dictionary hits instead of a test per value), and
  ``where_candidates`` groups it by what a ``where`` filter compares (``{var: item, equals: ...}``: the
  values that can pass are one dictionary hit away; only they are then checked). Member sets for ``in``
  against a list are the operators' own (``rules.operators``).

Each structure gives what testing value by value gives, in the same order: it only skips values whose key
cannot match, and anything it cannot decide exactly (a NaN key, an item whose key cannot be computed) is
left to the per-value test.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from fnmatch import fnmatchcase
from typing import TYPE_CHECKING, Any

from .errors import EvaluationError
from .index import Index, hashable
from .memo import IdentityMemo
from .model import Context
from .operators import Lookup, _members
from .reader import KObject

if TYPE_CHECKING:
    from .scope import Scope

#: Lists shorter than this are tested value by value: building a structure would cost more than it saves.
INDEX_FROM = 24
#: Results remembered per shared list and inputs (off: every object computes its own; tests compare both).
REMEMBER = True


#: A context's ``keysWhere`` compiled: whether a member's value (on an object of the dump, in its index) is kept.
MemberTest = Callable[[Any, KObject, Index], bool]


class ContextPlan:
    """How one context of one policy is answered; ``where_value`` is the compiled ``where.equals``, ``kept`` the
    compiled ``keysWhere``."""

    __slots__ = ("ctx", "key", "where_value", "kept")

    def __init__(
        self, policy: str, ctx: Context, where_value: Callable[[Scope], Any] | None, kept: MemberTest | None = None
    ) -> None:
        self.ctx = ctx
        self.key = ("context", policy, ctx.name)
        self.where_value = where_value
        self.kept = kept

    def value(self, scope: Scope) -> Any:
        """The context's value for the object in ``scope`` (``_values`` documents the shape)."""
        ctx, index = self.ctx, scope.index
        kept = self.kept
        if not ctx.correlated:
            return index.memo(self.key, lambda: _values(ctx, index, None, None, kept))
        wanted = self.where_value(scope) if self.where_value is not None else None
        namespace = scope.obj.namespace if ctx.same_namespace else None
        return index.memo((self.key, hashable(wanted), namespace), lambda: _values(ctx, index, wanted, namespace, kept))

    def materialise(self, index: Index) -> None:
        """Build, before evaluation, what every object will read: an uncorrelated context's list, or the
        index's table of a correlated context's ``where.field``."""
        ctx = self.ctx
        if not ctx.correlated:
            index.memo(self.key, lambda: _values(ctx, index, None, None, self.kept))
        elif ctx.where_field is not None:
            index.lookup(ctx.kind, ctx.where_field, None, ctx.where_keys, ctx.where_capture)
        else:
            _in_namespace(index, ctx.kind, ctx.api_version or None, "")


def _in_namespace(index: Index, kind: str, api_version: str | None, namespace: str) -> list[KObject]:
    """Objects of ``kind`` (apiVersion glob) in ``namespace``, in input order; one table per kind and dump."""

    def build() -> dict[str, list[KObject]]:
        table: dict[str, list[KObject]] = {}
        for o in index.of_kind(kind, api_version):
            table.setdefault(o.namespace, []).append(o)
        return table

    table: dict[str, list[KObject]] = index.memo(("by-namespace", kind, api_version), build)
    return table.get(namespace, [])


def _values(ctx: Context, index: Index, wanted: Any, namespace: str | None, kept: MemberTest | None = None) -> Any:
    """A list of the values ``ctx.path`` selects in the objects it joins (the objects themselves without a
    path, the keys of the mappings it selects with ``keys``, those whose value ``kept`` keeps where it is given:
    ``keysWhere``); ``default`` instead of an empty list when set;
    with ``first``, the first value or ``default``. ``wanted`` is the resolved ``where.equals`` (a list
    joins on any of its values; ``notEquals``: the objects it does not join; ``keys``: the join is on the
    member names of the mappings the field selects), ``namespace`` the current object's with
    ``sameNamespace``."""
    if ctx.where_field is not None and ctx.where_value is not None:
        if wanted is None and ctx.where_value.kind == "literal":  # an uncorrelated where: its literal
            wanted = ctx.where_value.target
        seen: set[int] = set()
        objs = []
        for w in wanted if isinstance(wanted, list) else [wanted]:
            for o in index.lookup(ctx.kind, ctx.where_field, w, ctx.where_keys, ctx.where_capture):
                if id(o) not in seen:
                    seen.add(id(o))
                    objs.append(o)
        if ctx.where_not:  # the objects of the kind that the lookup did not find, in dump order
            objs = [o for o in index.of_kind(ctx.kind) if id(o) not in seen]
        if ctx.api_version:
            objs = [o for o in objs if fnmatchcase(o.api_version, ctx.api_version)]
        if namespace is not None:
            objs = [o for o in objs if o.namespace == namespace]
    elif namespace is not None:
        objs = _in_namespace(index, ctx.kind, ctx.api_version or None, namespace)
    else:
        objs = index.of_kind(ctx.kind, ctx.api_version or None)
    if ctx.prefer_field is not None:
        objs = _preferred(ctx, index, objs)
    values: list[Any] = []
    for o in objs:
        if ctx.path is None:
            values.append(o.obj)
        elif ctx.keys:
            for v in ctx.path.values(o.obj):
                if isinstance(v, dict):
                    values.extend(v if kept is None else _kept_members(v, o, index, kept))
        else:
            values.extend(ctx.path.values(o.obj))
    if ctx.first:
        return values[0] if values else ctx.default
    if not values and ctx.default is not None:
        return ctx.default
    return values


def _kept_members(mapping: dict[str, Any], o: KObject, index: Index, kept: MemberTest) -> list[str]:
    """The member names of ``mapping`` (on ``o``) whose value ``kept`` keeps. One whose value it cannot test (``eight``
    against ``gt: 0``) is left out, as one that fails it (trial 212: an error there was the whole context's, and every
    object that read it answered error for one node's value; the reader says of a quantity that is none where it is)."""
    names = []
    for k, v in mapping.items():
        try:
            if kept(v, o, index):
                names.append(k)
        except EvaluationError:
            continue
    return names


def _preferred(ctx: Context, index: Index, objs: list[KObject]) -> list[KObject]:
    """Of ``objs``, those ``ctx.prefer_*`` does not set aside: where the dump holds an object of the context's kind
    (and apiVersion) that it prefers, the others of the kind are set aside, before and whatever ``where`` keeps (a
    value of another type is another value: ``1``, ``"1"`` and ``true`` differ). Decided once per dump."""
    field, want, negate = ctx.prefer_field, ctx.prefer_value, ctx.prefer_not
    assert field is not None

    def aside() -> frozenset[int]:
        kind = index.of_kind(ctx.kind, ctx.api_version or None)
        liked = {id(o) for o in kind if any(type(v) is type(want) and v == want for v in field.values(o.obj)) != negate}
        return frozenset(id(o) for o in kind if id(o) not in liked) if liked else frozenset()

    skipped: frozenset[int] = index.memo(("prefer", ctx.kind, ctx.api_version, field.text, hashable(want), negate), aside)
    return [o for o in objs if id(o) not in skipped] if skipped else objs


# ------------------------------------------------------------------------------------------ lookups


def is_nan(key: Any) -> bool:
    """NaN never equals itself, but a dictionary (or ``in``) finds the same NaN object by identity: a NaN key
    is left to the operator's own test."""
    return isinstance(key, float) and key != key


_TALLIES: IdentityMemo[Counter[Any] | None] = IdentityMemo()
_MEMBERS: IdentityMemo[frozenset[Any]] = IdentityMemo()


def _tally(values: list[Any], key: Callable[[Any], Any]) -> Counter[Any] | None:
    def build() -> Counter[Any] | None:
        counts: Counter[Any] = Counter(key(v) for v in values)
        return None if any(is_nan(k) for k in counts) else counts

    return _TALLIES.get(build, key, values)


def keys_of(lookup: Lookup, arg: Any) -> tuple[Any, ...] | frozenset[Any] | None:
    """The keys a value must have to pass ``lookup``'s test before negation; None when one is a NaN."""
    keys: tuple[Any, ...] | frozenset[Any]
    if not lookup.many:
        keys = (lookup.key(arg),)
    elif isinstance(arg, (list, dict, tuple, set, frozenset)):
        keys = _MEMBERS.get(lambda: frozenset(lookup.key(m) for m in _members(arg)), lookup.key, arg)
    else:
        keys = frozenset(lookup.key(m) for m in _members(arg))
    return None if any(is_nan(k) for k in keys) else keys


def scalar_token(value: Any) -> Any:
    """A key telling scalars apart by type and value (``1``, ``1.0`` and ``True`` differ); None for anything
    else (a mapping, a list, a NaN)."""
    if isinstance(value, _SCALARS) and not is_nan(value):
        return (type(value), value)
    return None


_REMEMBERED: IdentityMemo[dict[Any, Any]] = IdentityMemo()


def remembered(plan: Any, items: list[Any], token: tuple[Any, ...], compute: Callable[[], Any]) -> Any:
    """``compute()`` once per ``plan``, shared list ``items`` and ``token`` (what else the result depends on);
    a computation that raises is not remembered."""
    if not REMEMBER:
        return compute()
    table = _REMEMBERED.get(dict, plan, items)
    if token in table:
        return table[token]
    value = table[token] = compute()
    return value


def count_true(values: list[Any], lookup: Lookup, arg: Any) -> int | None:
    """How many of ``values`` pass the operator whose ``lookup`` this is, against ``arg``; None when the
    list is too short to be worth a structure, or holds a value a dictionary cannot decide."""
    if len(values) < INDEX_FROM:
        return None
    counts = _tally(values, lookup.key)
    keys = keys_of(lookup, arg)
    if counts is None or keys is None:
        return None
    hits = sum(counts.get(k, 0) for k in keys)
    return len(values) - hits if lookup.negate else hits


_RESULTS: IdentityMemo[dict[Any, tuple[int, Any]]] = IdentityMemo()
_SCALARS = (str, int, float, bool, type(None))


def remembered_true(values: list[Any], leaf: Any, arg: Any, count: Callable[[], int]) -> int:
    """``count()`` (how many of ``values`` pass ``leaf``'s operator against ``arg``), computed once per list,
    leaf and argument: an operator with no ``lookup`` (a regex, a prefix, a quantity comparison) over a
    context or data table then tests the list once per distinct argument, not once per object judged.
    Operators are pure functions of (value, argument); arguments are told apart by type and value (``1`` is
    not ``1.0`` nor ``True``), containers by identity. A count that raises is not remembered."""
    if len(values) < INDEX_FROM or not REMEMBER:
        return count()
    token = scalar_token(arg)
    if token is None:
        if not isinstance(arg, (list, dict, tuple)):
            return count()
        token = ("id", id(arg))
    table = _RESULTS.get(dict, leaf, values)
    hit = table.get(token)
    if hit is None:
        hit = table[token] = (count(), arg)  # the argument is kept: its id stays its own
    return hit[0]


class WhereIndex:
    """``items`` grouped by what a ``where`` clause compares: by key, then by distinct item (positions of each;
    equal items pass or fail a filter alike), the items for which the clause selects nothing (``missing``,
    grouped the same way), and those whose key is not one value (``other``: a list item, a NaN), which are
    always checked."""

    __slots__ = ("by_key", "missing", "other")

    def __init__(self) -> None:
        self.by_key: dict[Any, dict[Any, list[int]]] = {}
        self.missing: dict[Any, list[int]] = {}
        self.other: list[int] = []


def _token(item: Any, i: int) -> Any:
    """Equal scalars share a token (``scalar_token``); anything else is its own."""
    return scalar_token(item) or ("at", i)


_WHERE: IdentityMemo[WhereIndex | None] = IdentityMemo()


def where_filter(
    items: list[Any],
    plan: Any,
    lookup: Lookup,
    clause_values: Callable[[Any], list[Any]],
    arg: Any,
    missing_passes: bool,
    passes: Callable[[Any], bool],
) -> list[Any] | None:
    """The ``items`` that pass a ``where`` (``passes``, the whole filter for one item), in order, when the
    filter's first clause compares ``clause_values(item)`` with ``arg`` by ``lookup`` (not negated): only the
    items whose key can match are checked, each distinct item once. None when the list is short, or when a
    clause's values or a check raised (the caller then checks every item, which raises where it would).
    ``plan`` identifies the clause."""
    if len(items) < INDEX_FROM or lookup.negate:
        return None

    def build() -> WhereIndex | None:
        index = WhereIndex()
        try:
            for i, item in enumerate(items):
                found = clause_values(item)
                if not found:
                    index.missing.setdefault(_token(item, i), []).append(i)
                    continue
                key = lookup.key(found[0]) if len(found) == 1 else None
                if len(found) != 1 or is_nan(key):
                    index.other.append(i)
                else:
                    index.by_key.setdefault(key, {}).setdefault(_token(item, i), []).append(i)
        except Exception:  # noqa: BLE001 - checking item by item raises it in its place, with its message
            return None
        return index

    index = _WHERE.get(build, plan, items)
    if index is None:
        return None
    keys = keys_of(lookup, arg)
    if keys is None:
        return None
    groups = [index.by_key[k] for k in keys if k in index.by_key]
    if missing_passes:
        groups.append(index.missing)
    kept: list[int] = []
    try:
        for group in groups:
            for positions in group.values():
                if passes(items[positions[0]]):
                    kept.extend(positions)
        kept.extend(i for i in index.other if passes(items[i]))
    except Exception:  # noqa: BLE001 - as above
        return None
    if len(groups) > 1 or index.other or any(len(g) > 1 for g in groups):
        kept.sort()
    return [items[i] for i in kept]
