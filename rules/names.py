"""The names a policy reads, checked at load: every ``{var: x}``, ``{context: x}`` and ``{data: x}`` (as a
subject, an operator argument, a ``key``, a ``classify`` table, a ``sum``/``product`` operand, a var
alternative, in a subject's, a ``forEach``'s or a reference's ``where``, a precondition, an assumption's
``when``, a ``forEach`` source or body, a context's ``where.equals``) must resolve where it is evaluated,
or ``verdict policies lint`` refuses the policy instead of ``audit`` giving ``error`` on every object.

The scopes are those of ``rules.scope.Scope`` (``var``, ``context``), so that nothing the
evaluator accepts is refused:

- a policy var is computed in the policy's scope: policy vars, the object built-ins (``OBJECT_BUILTINS``),
  then contexts;
- a rule var, a precondition, the assertion, and the ``when`` of each assumption the rule lists also see
  the rule's vars;
- a ``forEach`` body also sees its ``as`` name and ``index``; a ``where`` (of a subject or a ``forEach``)
  also sees ``item``;
- a context's ``where.equals`` (or ``notEquals``) is resolved where the context is read (as
  ``{context: c}``, or as ``{var: c}``, a var name that falls through to the context);
- a reference's ``where`` also sees ``item``;
- data tables (``spec.data`` and the ``dataFiles`` tables) are seen everywhere;
- ``format`` templates are not checked: an unknown ``{name}`` there is left as written.

A context no rule or var reads, and an assumption no rule lists, are never evaluated: their names are only
refused when nothing in the policy defines them.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .errors import dotted
from .model import COMPOSITE, OBJECT_BUILTINS, Assertion, Assumption, CompileError, Context, Ref, Rule, Var

#: How each kind of name is written as a reference, for "write {data: operands}" hints.
_KINDS = {"var": "var", "context": "context", "data table": "data"}


def unknown_name(what: str, name: str, known: Iterable[str]) -> str:
    """``unknown <what> 'name'`` with a did-you-mean from ``known`` (or the list when it is short)."""
    known = sorted(known)
    close = difflib.get_close_matches(name, known, n=2, cutoff=0.75)
    if close:
        return f"unknown {what} {name!r}; did you mean {' or '.join(repr(c) for c in close)}?"
    return f"unknown {what} {name!r} (known: {', '.join(known) or 'none'})"


@dataclass(frozen=True, slots=True)
class Env:
    """Where a reference is evaluated: ``names`` a ``{var: ...}`` finds before the built-ins and contexts
    (bindings, rule vars, policy vars); ``rule`` the rule whose evaluation reads it ("" for a policy var);
    ``via`` how the evaluation reaches a reference written outside that rule ("rule r assumes a")."""

    names: frozenset[str]
    rule: str = ""
    via: str = ""
    #: the names a where or forEach binds here (they stand before a var of the same name)
    bound: frozenset[str] = frozenset()

    def bind(self, *names: str) -> Env:
        return Env(self.names | set(names), self.rule, self.via, self.bound | set(names))


@dataclass(frozen=True, slots=True)
class _Miss:
    """A name that does not resolve: ``kind`` var|context|data table, ``known`` what would have."""

    ref: Ref
    kind: str
    known: frozenset[str]
    env: Env


class _Walk:
    """Walks compiled definitions the way evaluation reads them, noting each name that does not resolve."""

    def __init__(self, contexts: Mapping[str, Context], pvars: Mapping[str, Var], data: Iterable[str]) -> None:
        self.contexts = contexts
        self.policy_scope = frozenset(pvars)
        self.data = frozenset(data)
        self.misses: dict[tuple[tuple[str | int, ...], str], _Miss] = {}
        self.read: set[str] = set()  # contexts read by some evaluation
        self.reading: set[str] = set()  # contexts whose where.equals is being walked (a cycle stops there)
        self.bound: dict[str, str] = {}  # names bound or defined in some scope only: where they are
        # the vars each var's computing always reads (``always_read``): a cycle of them is refused at load
        self.reads: dict[str, set[str]] = {}

    def miss(self, ref: Ref, kind: str, known: Iterable[str], env: Env) -> None:
        self.misses.setdefault((ref.at, ref.target), _Miss(ref, kind, frozenset(known), env))

    def ref(self, ref: Ref | None, env: Env) -> None:
        if ref is None:
            return
        if ref.kind == "var":
            self.var(ref, env)
        elif ref.kind == "context":
            if ref.target in self.contexts:
                self.read_context(ref.target, env, ref.at)
            else:
                self.miss(ref, "context", self.contexts, env)
        elif ref.kind == "data" and ref.target not in self.data:
            self.miss(ref, "data table", self.data, env)
        elif ref.kind in COMPOSITE:
            for step in ref.target:
                self.ref(step, env)
        self.ref(ref.key, env)
        if ref.where is not None:
            self.assertion(ref.where, env.bind("item"))

    def var(self, ref: Ref, env: Env) -> None:
        name = ref.target
        if name in env.names or name in OBJECT_BUILTINS:
            return
        if name in self.contexts:
            self.read_context(name, env, ref.at)
            return
        self.miss(ref, "var", env.names | set(OBJECT_BUILTINS) | set(self.contexts), env)

    def read_context(self, name: str, env: Env, at: tuple[str | int, ...]) -> None:
        self.read.add(name)
        where = self.contexts[name].where_value
        if where is None or name in self.reading:
            return
        self.reading.add(name)
        try:
            via = env.via or f"context {name} is read at {dotted(list(at))}"
            self.ref(where, Env(env.names, env.rule, via, env.bound))
        finally:
            self.reading.discard(name)

    def assertion(self, a: Assertion, env: Env) -> None:
        self.ref(a.subject, env)
        if a.where is not None:  # a subject's or a forEach's: it keeps values before anything else sees them
            self.assertion(a.where, env.bind("item"))
        if a.op == "forEach":
            self.bound.setdefault(a.each_as, f"forEach binds it (as: {a.each_as}) only inside its assert")
            self.bound.setdefault("index", "forEach binds it only inside its assert")
            self.assertion(a.children[0], env.bind(a.each_as, "index"))
            return
        self.ref(a.classify, env)
        if isinstance(a.argument, Ref):
            self.ref(a.argument, env)
        for child in a.children:
            self.assertion(child, env)

    def reason(self, m: _Miss) -> str:
        """Why ``m`` is refused: where the name is defined when it is, but not where it is read; a name of
        another kind written as this one (``{var: operands}`` for a data table); else a did-you-mean."""
        name = m.ref.target
        via = f" ({m.env.via})" if m.env.via else ""
        if m.kind == "var" and name in self.bound:
            return f"unknown var {name!r} here: {self.bound[name]}{via}"
        others = {"var": m.env.names, "context": self.contexts, "data table": self.data}
        for kind, names in others.items():
            if kind != m.kind and name in names:
                return f"unknown {m.kind} {name!r}; {name!r} is a {kind}: write {{{_KINDS[kind]}: {name}}}{via}"
        return unknown_name(m.kind, name, m.known) + via

    def var_definition(self, var: Var, env: Env) -> None:
        for ref, when in var.alternatives:
            if when is not None:
                self.assertion(when, env)
            self.ref(ref, env)
        # what computing it always reads: its first alternative, when that has no `when` (a later alternative is read
        # only when the ones before give nothing; a format placeholder that cannot be computed is left as written)
        first, when = var.alternatives[0] if var.alternatives else (None, None)
        if first is not None and when is None:
            self.reads[var.name] = self.always_read(first, env)

    def always_read(self, ref: Ref | None, env: Env) -> set[str]:
        """The vars of ``env`` that evaluating ``ref`` reads whatever the object: ``{var: x}``, a key's, the steps of
        a keypath, sum or product, and what a correlated context read there joins on; not in a ``where`` (read for
        each value, of which there may be none) and not a name bound around it."""
        if ref is None:
            return set()
        out: set[str] = set()
        if ref.kind == "var":
            name = ref.target
            if name in env.names and name not in env.bound:
                out.add(name)
            elif name in self.contexts and name not in env.names:
                out |= self.always_read(self.contexts[name].where_value, env)
        elif ref.kind == "context" and ref.target in self.contexts:
            out |= self.always_read(self.contexts[ref.target].where_value, env)
        elif ref.kind in COMPOSITE:
            for step in ref.target:
                out |= self.always_read(step, env)
        return out | self.always_read(ref.key, env)

    def cycles(self, defined: Mapping[str, Var], scope: Iterable[str]) -> list[CompileError]:
        """A ``CompileError`` for each cycle among the vars ``defined`` (one scope: the policy's, or one rule's) that
        computing them always reads (``always_read``), at the first var of it in definition order: ``var cycle a -> b
        -> a``. Such a var can only answer ``error`` ("depends on itself") on every object; every name is known at load
        (trial 123: lint said ok). A var that reads another only in a later firstOf alternative, a when, a where or a
        format placeholder is not refused (trial 126: each of those loaded and worked)."""
        names = [n for n in defined if n in set(scope)]
        done: set[str] = set()
        out: list[CompileError] = []
        for name in names:
            cycle = None if name in done else _cycle(name, self.reads, names, done, [])
            if cycle:
                done.update(cycle)
                reason = f"var cycle {' -> '.join(cycle)}: none of them can be computed (each would be an error on every object)"
                out.append(CompileError(_var_at(defined[cycle[0]]), reason))
        return out


def check_names(
    contexts: Mapping[str, Context],
    pvars: Mapping[str, Var],
    data: Mapping[str, Any],
    rules: Iterable[Rule],
    assumptions: Mapping[str, Assumption],
) -> list[CompileError]:
    """A ``CompileError`` (field path of the name, reason with a did-you-mean, rule id) for every name that does
    not resolve where it is evaluated, in the order found; [] when every name does."""
    rules = list(rules)
    walk = _Walk(contexts, pvars, data)
    walk.bound.setdefault("item", "it is bound only inside a where, and inside a forEach without as")
    for r in rules:
        for name in r.vars:
            owners = [o.id for o in rules if name in o.vars]
            walk.bound.setdefault(name, f"it is a var of rule{'s' if len(owners) > 1 else ''} {', '.join(owners)} only")
    top = Env(walk.policy_scope)
    for var in pvars.values():
        walk.var_definition(var, top)
    cycles = walk.cycles(pvars, pvars)
    assumed: set[str] = set()
    for r in rules:
        env = Env(walk.policy_scope | set(r.vars), r.id)
        walk.reads = {}
        for var in r.vars.values():
            walk.var_definition(var, env)
        cycles += [CompileError(e.where, e.reason, r.id) for e in walk.cycles(r.vars, r.vars)]
        for pre in r.preconditions:
            walk.assertion(pre, env)
        walk.assertion(r.assertion, env)
        for a in r.assumes:
            assumed.add(a.name)
            walk.assertion(a.when, Env(env.names, r.id, f"rule {r.id} assumes {a.name}"))
    # Never evaluated: refused only for a name that nothing in the policy defines.
    anywhere = Env(walk.policy_scope | set(walk.bound))
    for name, ctx in contexts.items():
        if name not in walk.read:
            walk.ref(ctx.where_value, anywhere)
        if ctx.keys_where is not None:  # it reads its item alone (compile_context): the data tables it names are checked
            walk.assertion(ctx.keys_where, Env(frozenset({"item"}), bound=frozenset({"item"})))
    for name, a in assumptions.items():
        if name not in assumed:
            walk.assertion(a.when, anywhere)
    return [CompileError(list(m.ref.at), walk.reason(m), m.env.rule) for m in walk.misses.values()] + cycles


def _cycle(name: str, reads: Mapping[str, set[str]], names: list[str], done: set[str], path: list[str]) -> list[str] | None:
    """The first cycle through the vars ``names`` reached from ``name`` along ``path`` (``a, b, a``), else None; the
    vars that lead to none are added to ``done``."""
    path.append(name)
    for nxt in sorted(reads.get(name, set()) & set(names), key=names.index):
        if nxt in path:
            return [*path[path.index(nxt) :], nxt]
        if nxt not in done:
            found = _cycle(nxt, reads, names, done, path)
            if found:
                return found
    path.pop()
    done.add(name)
    return None


def _var_at(var: Var) -> list[str | int]:
    """The field path of ``var``'s definition (``spec.vars.a``, ``spec.rules[0].vars.b``), from a reference in it."""
    at = list(var.alternatives[0][0].at) if var.alternatives else []
    for k in range(len(at) - 2, -1, -1):
        if at[k] == "vars" and at[k + 1] == var.name:
            return at[: k + 2]
    return at
