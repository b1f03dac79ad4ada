"""What a rule's check reads of the object it judges, and outcomes remembered by it.

A check is a pure function of what it reads: the values of the paths it selects on the object, the
object's built-in names it reads (``name``, ``namespace``...), the values of the vars it reads, and the
dump (its contexts; a correlated one through what its ``where.equals`` reads). ``reads_of`` finds those
inputs by walking the compiled assertion; ``remember`` wraps the check so that objects that agree on every
input share one outcome: the replicas of a Deployment, the pods of a DaemonSet and the VMs of one size are
judged once per precondition and assertion, then only their messages are written for each.

Inputs are compared by content (``marshal``: ``1``, ``1.0``, ``"1"`` and ``true`` stay apart; equal values
written in another key order only miss). A check that reads a context is remembered per dump; one that
reads only the object is remembered across dumps too (a service judging the same cluster again). A check
that reads the object through an operator (``schedulable``, which has its own cache) or reads ``$`` whole
is never remembered, nor an input that ``marshal`` cannot write (a computed quantity); a check whose
inputs rarely repeat stops computing them (a node's labels are its own).
"""

from __future__ import annotations

import marshal
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .jsonpath import JsonPath
from .messages import lookup_steps
from .model import COMPOSITE, OBJECT_BUILTINS, PLACEHOLDER, Assertion, Policy, Ref, Rule
from .operators import OPERATORS
from .scope import Outcome, Scope
from .shell import plain

Check = Callable[[Scope], Outcome]

#: Outcomes remembered per check across dumps, at most, and the bytes of their keys (then it starts afresh).
ACROSS_DUMPS = 512
ACROSS_BYTES = 256 * 1024
#: Per dump: after this many evaluations, a check whose inputs repeated less than once in ``RARE`` times
#: stops computing them for that dump.
TRIAL = 128
RARE = 8
#: Off: every check is evaluated for every object (tests compare both).
REMEMBER = True


@dataclass(frozen=True, slots=True)
class Reads:
    """The inputs of a check: paths on the object (each selecting a list of values), built-in names, vars
    (by value), vars read only at a literal key (by the value there: ``{var: podSpec, key: tolerations}``
    reads a Pod's tolerations, not its whole spec with its own ``nodeName``), and whether it reads the dump
    (a context)."""

    paths: tuple[JsonPath, ...]
    builtins: tuple[str, ...]
    vars: tuple[str, ...]
    dump: bool
    keyed: tuple[tuple[str, tuple[str | int, ...]], ...] = ()


def reads_of(a: Assertion, rule: Rule, policy: Policy) -> Reads | None:
    """The inputs of ``a``, a precondition, assertion or assumption of ``rule``, evaluated in the rule's
    scope; None when it cannot be remembered (an object operator, ``$`` read whole)."""
    paths: dict[str, JsonPath] = {}
    builtins: set[str] = set()
    names: set[str] = set()
    keyed: dict[tuple[str, tuple[str | int, ...]], None] = {}
    dump = False
    contexts = policy.contexts

    def name(n: str, bound: frozenset[str]) -> bool:
        if n in bound:
            return True
        if n in rule.vars or n in policy.vars:
            names.add(n)
        elif n in OBJECT_BUILTINS:
            builtins.add(n)
        elif n in contexts:
            return context(n, bound)
        else:
            names.add(n)  # unknown: reading it raises, and the check is evaluated where it does
        return True

    def context(n: str, bound: frozenset[str]) -> bool:
        nonlocal dump
        dump = True
        ctx = contexts.get(n)
        if ctx is None:
            return True
        if ctx.same_namespace:
            builtins.add("namespace")
        # a correlated context joins on what its where.equals reads, in the scope that reads it
        return ref(ctx.where_value, bound)

    def ref(r: Ref | None, bound: frozenset[str]) -> bool:
        if r is None:
            return True
        if r.where is not None and not walk(r.where, bound | {"item"}):
            return False
        kind = r.kind
        if kind in COMPOSITE:
            ok = all(ref(k, bound) for k in r.target)
        elif kind in ("path", "keys"):
            if not bound:  # the object itself (below a forEach or where, $ is the item)
                if r.target.text.strip() == "$":
                    return False
                paths[r.target.text] = r.target
            ok = True
        elif kind == "var":
            steps = _literal_steps(r.key)
            if steps is not None and r.target not in bound and (r.target in rule.vars or r.target in policy.vars):
                keyed[(r.target, steps)] = None  # the value at the key is the input, not the whole var
                return True
            ok = name(r.target, bound)
        elif kind == "context":
            ok = context(r.target, bound)
        elif kind == "format":
            ok = all(name(m.group(1), bound) for m in PLACEHOLDER.finditer(r.target))
        else:
            ok = kind in ("literal", "data")
        return ok and ref(r.key, bound)

    def walk(x: Assertion, bound: frozenset[str]) -> bool:
        return walk_assertion(x, bound, ref, ("index",))

    if not walk(a, frozenset()):
        return None
    return Reads(tuple(paths[k] for k in sorted(paths)), tuple(sorted(builtins)), tuple(sorted(names)), dump, tuple(keyed))


def _literal_steps(key: Ref | None) -> tuple[str | int, ...] | None:
    """The steps of a key made of literal names and indexes only (``tolerations``, ``[resources, limits]``),
    as the compiled reference looks them up; None for no key or one that reads anything."""
    if key is None:
        return None
    parts = key.target if key.kind == "keypath" else (key,)
    steps: list[str | int] = []
    for part in parts:
        # (trial 166: a key {value: GPU, transform: [lowercase]} was remembered as the name GPU: verdicts by object order)
        plain = (
            part.key is None
            and part.where is None
            and part.capture is None
            and part.default is None
            and not part.transforms
            and part.parse is None  # (trial 167: {value: "'gpu'", parse: yaml} was remembered as the name 'gpu')
            and part.join is None
            and part.select is None
        )
        if part.kind != "literal" or not plain or type(part.target) not in (str, int):
            return None
        steps.append(part.target)
    return tuple(steps)


def walk_assertion(
    x: Assertion,
    bound: frozenset[str],
    ref: Callable[[Ref | None, frozenset[str]], bool],
    each_binds: tuple[str, ...] = (),
) -> bool:
    """True when ``ref`` accepts every reference of ``x`` and its children (with the names bound where each is
    read: a ``where`` binds ``item``, a ``forEach`` its ``as`` name and ``each_binds``); False at the first it
    refuses, and for an object operator (it reads the object as a whole) or one that reads the dump's index
    (``Operator.index``: what it answers is not a function of the references alone). ``ref`` walks a reference's own
    ``where`` by calling back here. The one traversal behind what a check reads (``reads``) and whether a
    check reads only its item (``rules.compiled``)."""
    op = OPERATORS.get(x.op)
    if op is not None and (op.scope == "object" or op.index):
        return False
    if not all(ref(r, bound) for r in (x.subject, x.classify, x.argument if isinstance(x.argument, Ref) else None)):
        return False
    if x.where is not None and not walk_assertion(x.where, bound | {"item"}, ref, each_binds):
        return False
    inner = bound | {x.each_as, *each_binds} if x.op == "forEach" else bound
    return all(walk_assertion(c, inner, ref, each_binds) for c in x.children)


def _fresh() -> list[Any]:
    """The per-dump state of one remembered check: its table (when it reads the dump), hits, misses, off."""
    return [{}, 0, 0, False]


def remember(check: Check, reads: Reads) -> Check:
    """``check``, its outcome shared by the objects that agree on every input of ``reads``."""
    across: dict[bytes, Outcome] = {}
    held = [0]  # bytes of the keys of ``across``
    paths = reads.paths
    names = reads.builtins + reads.vars
    keyed = reads.keyed
    per_dump = reads.dump

    def key(scope: Scope) -> bytes:
        # the parts in the order paths, built-ins, vars, vars at keys; built once a call (this runs for every
        # object)
        root = scope.obj.obj
        var = scope.var
        parts: list[Any] = [p.values(root) for p in paths]
        parts += [var(n) for n in names]
        if keyed:
            parts += [lookup_steps(var(n), steps) for n, steps in keyed]
        try:
            return marshal.dumps(parts)
        except ValueError:
            return marshal.dumps(plain(parts))  # the pack's own text in a value (rules.shell.Written)

    def remembered(scope: Scope) -> Outcome:
        if not REMEMBER:
            return check(scope)
        stats: list[Any] = scope.index.memo(token, _fresh)
        if stats[3]:
            return check(scope)
        try:
            k = key(scope)
        except Exception:  # noqa: BLE001 - an input that cannot be read or written: evaluated, raising in its place
            return check(scope)
        table = stats[0] if per_dump else across
        found = table.get(k)
        if found is not None:
            stats[1] += 1
            return found
        stats[2] += 1
        if stats[2] >= TRIAL and stats[1] * RARE < stats[2]:
            stats[3] = True  # its inputs rarely repeat in this dump: stop computing them
        if not per_dump:
            held[0] += len(k)
            if len(across) >= ACROSS_DUMPS or held[0] > ACROSS_BYTES:
                across.clear()
                held[0] = len(k)
        out = table[k] = check(scope)
        out.shared = True
        return out

    # per dump (Index.memo): the state of this check, made once (no key tuple nor closure built per call)
    token = ("remembered", id(remembered))
    return remembered
