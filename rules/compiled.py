"""Policies compiled into plain callables, once: references, vars, assertion trees and rules.

``rules.model`` holds what a policy says; ``plan_of(policy)`` turns it into closures over a ``Scope``, so
that judging an object runs no interpretation of the tree: the operator, the compiled paths, the data
tables and the child checks are bound when the policy is first used, and outcomes that depend on nothing
per object are built once. A reference compiles to ``Get`` (scope -> value), an assertion to ``Check``
(scope -> ``Outcome``). Semantics are those documented in docs/policy-format.md; lists read again and again
(contexts, data tables) are answered through ``rules.joins``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from . import joins
from .durations import elapsed, human_duration
from .errors import EvaluationError, UnknownName, quoted
from .index import captured
from .inputs import Reads, reads_of, remember, walk_assertion
from .memo import IdentityMemo
from .messages import formatted, lookup_steps
from .model import (
    COMPOSITE,
    OBJECT_BUILTINS,
    PLACEHOLDER,
    Assertion,
    Assumption,
    Context,
    Policy,
    Ref,
    Rule,
    Var,
    not_of_item,
)
from .operators import OPERATORS, Operator, OperatorError, classify, show
from .quantity import QuantityError, parse_quantity
from .reader import KObject
from .scope import NO_BINDINGS, Outcome, Scope
from .shell import pack_text, said, trusted, written
from .yamlsafe import load_documents

Get = Callable[[Scope], Any]
Check = Callable[[Scope], Outcome]

QUANTIFIER_WORDS = {"all": "each value", "any": "some value", "none": "no value"}


# ------------------------------------------------------------------------------------------ references


def _unique(found: list[Any]) -> list[Any]:
    """``found`` with repeats (``==``) dropped, the first kept: strings by a set (a node dump's resource names are
    thousands of repeats of a few), other values by equality with those kept (no string equals them)."""
    out: list[Any] = []
    strings: set[str] = set()
    others: list[Any] = []
    for v in found:
        if type(v) is str:
            if v in strings:
                continue
            strings.add(v)
        elif v in others:
            continue
        else:
            others.append(v)
        out.append(v)
    return out


def compile_ref(ref: Ref, plan: PolicyPlan) -> Get:
    """The value of ``ref`` in a scope: lists for ``many`` paths and ``keys``; ``key`` looks into the value
    (a key path one level per element; a ``many`` path's key into each value it selects); ``capture`` takes
    a regex group of it, ``where`` keeps the items that pass a condition; ``default`` when the value is None
    or an empty list; ``join`` makes the value one string (a list's items written as messages write them,
    each once, separated by it; ``""`` for None or an empty list)."""
    get = _unjoined(ref, plan)
    separator = ref.join
    if separator is None:
        return get

    def joined(scope: Scope) -> str:
        value = get(scope)
        if value is None:
            return ""
        if isinstance(value, (list, tuple)):
            text = separator.join(dict.fromkeys(show(v) for v in value))  # each item once
            return written(text) if trusted(value) else text  # plain words the pack's separator joins
        return show(value)

    return joined


def _unjoined(ref: Ref, plan: PolicyPlan) -> Get:
    base = _parsed(_base(ref, plan)) if ref.parse else _base(ref, plan)
    key, default, capture, condition, transforms = ref.key, ref.default, ref.capture, ref.where, ref.transforms
    if isinstance(default, str):
        default = written(default)  # the pack's own text (rules.shell)
    if key is None and capture is None and condition is None and not transforms:
        if default is None:
            return base

        def with_default(scope: Scope) -> Any:
            value = base(scope)
            return default if value is None or value == [] else value

        return with_default
    if key is None:
        keyed = base
    elif ref.kind == "keys":
        wanted = compile_ref(key, plan)

        def keys_named(scope: Scope) -> Any:
            k = wanted(scope)
            return [x for x in base(scope) if x == k]

        keyed = keys_named
    else:
        steps = [compile_ref(k, plan) for k in key.target] if key.kind == "keypath" else [compile_ref(key, plan)]
        each = ref.kind == "path" and ref.many

        def stepped(scope: Scope) -> Any:
            value = base(scope)
            ks = [step(scope) for step in steps]
            if each:
                return [v for v in (lookup_steps(x, ks) for x in value) if v is not None]
            return lookup_steps(value, ks)

        keyed = stepped
    kept = _kept(compile_check(condition, plan), _reads_only_its_item(condition)) if condition is not None else None

    def full(scope: Scope) -> Any:
        value = keyed(scope)
        if capture is not None:
            value = _capture(capture, value)
        if transforms:
            value = _transformed(transforms, value)
        if kept is not None:
            value = kept(value, scope)
        if value is None or value == []:
            return default if default is not None else value
        return value

    return full


def _parsed(base: Get) -> Get:
    """``parse: yaml``: a string value read as the YAML (or JSON) document it holds first; a list's strings each;
    None for anything else, an empty or broken document (what does not parse is missing, as a path that selects
    nothing). Each text is read once per dump (every node reading a ClusterPolicy's ConfigMap reads one text), and
    nothing is kept past it."""
    token = ("parsed", object())

    def parsed(scope: Scope) -> Any:
        value = base(scope)
        read: dict[str, Any] = scope.index.memo(token, dict)

        def one(text: Any) -> Any:
            if not isinstance(text, str):
                return None
            if text not in read:
                read[text] = next((None if doc.error else doc.data for doc in load_documents(text)), None)
            return read[text]

        if isinstance(value, list):
            return [p for p in map(one, value) if p is not None]
        return one(value)

    return parsed


def _base(ref: Ref, plan: PolicyPlan) -> Get:
    kind, target = ref.kind, ref.target
    if kind == "literal":
        # the pack's own text (rules.shell); one to parse is read as a document, as written
        literal = written(target) if isinstance(target, str) and not ref.parse else target
        return lambda scope: literal
    if kind == "path":
        if ref.many:
            values = target.values
            return lambda scope: values(scope.root)
        first = target.first
        return lambda scope: first(scope.root)
    if kind == "keys":
        select = target.values
        return lambda scope: [k for v in select(scope.root) if isinstance(v, dict) for k in v]
    if kind == "var":
        return lambda scope: scope.var(target)
    if kind == "context":
        return lambda scope: scope.context(target)
    if kind == "data":
        return _data(ref, plan)
    if kind == "format":
        return lambda scope: formatted(target, scope, NO_BINDINGS)
    if kind in ("sum", "product"):
        operands = [compile_ref(r, plan) for r in target]
        return lambda scope: _arithmetic(kind, [get(scope) for get in operands])
    if kind == "elapsed":
        since, until = (compile_ref(r, plan) for r in target)
        since_at, until_at = (r.text() for r in target)
        return lambda scope: elapsed(since(scope), until(scope), since_at, until_at)
    if kind == "duration":
        seconds = compile_ref(target[0], plan)
        return lambda scope: human_duration(seconds(scope))

    def unknown(scope: Scope) -> Any:  # a key path used where one value is expected
        raise EvaluationError(f"unknown reference kind {kind}")

    return unknown


def _arithmetic(kind: str, operands: list[Any]) -> Fraction | None:
    """The sum or product of quantities (``rules.quantity``): None when an operand is missing (so that
    ``ifMissing`` and ``default`` apply). An operand whose value is a list (a context, a path with ``all: true``)
    stands for each of its quantities, none for an empty one: the GPU requests of a namespace without pods sum to 0
    (review: alone it was 0, beside another operand missing). Raises ``EvaluationError`` for a value that is not a
    quantity."""
    if any(v is None for v in operands):
        return None
    values = [x for v in operands for x in (v if isinstance(v, list) else [v])]
    try:
        numbers = [parse_quantity(v) for v in values]
    except QuantityError as exc:
        raise EvaluationError(f"{kind}: {exc}") from None
    total = Fraction(0 if kind == "sum" else 1)
    for n in numbers:
        total = total + n if kind == "sum" else total * n
    return total


def _capture(pattern: re.Pattern[str], value: Any) -> Any:
    """The first group of ``pattern``'s match on a string (None when it does not match, or for a value that
    is not a string); on a list, the groups of the items that match."""
    if isinstance(value, list):
        return captured(pattern, value)
    m = pattern.search(value) if isinstance(value, str) else None
    return m.group(1) if m is not None else None


#: Outcomes a pure ``where`` (``_reads_only_its_item``) remembers per distinct scalar item, at most (then it starts afresh).
KEPT_MEMO = 4096


def _kept(condition: Check, pure: bool = False) -> Callable[[Any, Scope], Any]:
    """A reference's ``where``: the items of a list for which ``condition`` passes (``$`` and ``{var: item}``
    being the item), as a subject's ``where`` keeps values; a single value is kept whole or becomes None. A ``pure``
    condition (it reads the item, literals and data alone) is decided once per distinct scalar item: the label keys a
    ``keys`` reference lists are mostly the same on every node (trial 155: 285,000 items on 3,000 nodes, 95 keys each,
    for a few hundred distinct ones)."""
    memo: dict[tuple[type, Any], bool] = {}

    def passes(v: Any, scope: Scope) -> bool:
        if pure and isinstance(v, (str, int, float, bool)):
            key = (type(v), v)
            found = memo.get(key)
            if found is None:
                if len(memo) >= KEPT_MEMO:
                    memo.clear()
                found = memo[key] = condition(scope.child(v, {"item": v})).state == "pass"
            return found
        return condition(scope.child(v, {"item": v})).state == "pass"

    def keep(value: Any, scope: Scope) -> Any:
        if isinstance(value, list):
            return [v for v in value if passes(v, scope)]
        if value is None:
            return None
        return value if passes(value, scope) else None

    return keep


def _reads_only_its_item(condition: Assertion) -> bool:
    """Whether a ``where`` condition reads nothing but its item (``$``, ``{var: item}``), literals and data tables: its
    outcome is a function of the item alone, in any dump. Not with a context, another var, a format, or an operator
    that reads the object or the dump's index (``rules.model.not_of_item``, which a context's keysWhere is held to)."""
    return not not_of_item(condition)


def _data(ref: Ref, plan: PolicyPlan) -> Get:
    policy = plan.policy
    name, select = ref.target, ref.select
    if name not in policy.data:

        def missing(scope: Scope) -> Any:
            raise EvaluationError(f"no data table {name!r} in policy {policy.name}")

        return missing
    # the policy's own text (rules.shell), made once per table: every reference reads the same object, which the
    # joins' per-list structures are kept by
    table = plan.tables.get(name)
    if table is None:
        table = plan.tables[name] = pack_text(policy.data[name])
    if select is None:
        return lambda scope: table
    # Data tables never change: select once; the same list object then lets in/notIn reuse their member sets.
    selected: list[list[Any]] = []

    def selected_values(scope: Scope) -> Any:
        if not selected:
            selected.append(select.values(table))
        return selected[0]

    return selected_values


# ------------------------------------------------------------------------------------------ dependencies


def _item_only(ref: Ref | None, contexts: Mapping[str, Any]) -> bool:
    """True when ``ref`` reads nothing of the object being judged but the ``where`` item (``$`` and
    ``{var: item}``) and per-dump constants (literals, data, uncorrelated contexts)."""
    if ref is None:
        return True
    kind = ref.kind
    if ref.where is not None:  # its condition may read the object around it
        return False
    if kind in COMPOSITE:
        return all(_item_only(k, contexts) for k in ref.target) and _item_only(ref.key, contexts)
    if kind in ("literal", "data", "path", "keys"):
        ok = True
    elif kind == "var":
        ok = ref.target == "item"
    elif kind == "context":
        ctx = contexts.get(ref.target)
        ok = ctx is not None and not ctx.correlated
    else:
        ok = False
    return ok and _item_only(ref.key, contexts)


def _item_free(ref: Ref | None, contexts: Mapping[str, Any]) -> bool:
    """True when ``ref`` has the same value in a ``where`` item's scope as in the scope around it (it reads
    neither ``$`` nor ``{var: item}``)."""
    if ref is None:
        return True
    kind = ref.kind
    # A reference's own where binds item to its own values: it cannot read the item of a where around it.
    if kind in COMPOSITE:
        return all(_item_free(k, contexts) for k in ref.target) and _item_free(ref.key, contexts)
    if kind in ("path", "keys"):
        return False
    if kind == "var":
        ok = ref.target != "item"
    elif kind == "context":
        ctx = contexts.get(ref.target)
        ok = ctx is not None and _item_free(ctx.where_value, contexts)
    elif kind == "format":
        ok = all(m.group(1) != "item" for m in PLACEHOLDER.finditer(ref.target))
    else:
        ok = kind in ("literal", "data")
    return ok and _item_free(ref.key, contexts)


# ------------------------------------------------------------------------------------------ assertions


class PolicyPlan:
    """A policy compiled: its vars (``specs``), contexts and rules, each compiled on first use.

    ``Scope`` objects of this policy read their vars and contexts through it."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        #: the policy's data tables as references read them (``_data``: ``rules.shell.pack_text``), by name
        self.tables: dict[str, Any] = {}
        self.contexts = {
            name: joins.ContextPlan(
                policy.name,
                ctx,
                compile_ref(ctx.where_value, self) if ctx.where_value is not None else None,
                self._member_kept(ctx),
            )
            for name, ctx in policy.contexts.items()
        }
        #: The vars whose value is the same for every object of a dump (``dump_constant_vars``).
        self.constant_vars = dump_constant_vars(policy, policy.vars)
        self.specs = {
            name: compile_var(var, self, (id(self), name) if name in self.constant_vars else None)
            for name, var in policy.vars.items()
        }
        self._rules: dict[int, RulePlan] = {}

    def _member_kept(self, ctx: Context) -> joins.MemberTest | None:
        """A context's ``keysWhere`` as a test of one member's value on an object of the dump (compiled on first use:
        the plan's vars are not compiled yet here); None without one. It reads its item alone (``compile_context``),
        so its outcome is remembered per value."""
        condition = ctx.keys_where
        if condition is None:
            return None
        compiled: list[Check] = []

        def kept(value: Any, obj: KObject, index: Any) -> bool:
            if not compiled:
                compiled.append(compile_check(condition, self, True, "item"))
            return compiled[0](Scope(obj, index, self, NO_BINDINGS, value, None, {"item": value})).state == "pass"

        return kept

    def context(self, name: str, scope: Scope) -> Any:
        plan = self.contexts.get(name)
        if plan is None:
            raise EvaluationError(f"unknown context {name!r}")
        return plan.value(scope)

    def rule(self, rule: Rule) -> RulePlan:
        """The compiled plan of one of this policy's rules."""
        found = self._rules.get(id(rule))
        if found is None or found.rule is not rule:
            found = self._rules[id(rule)] = RulePlan(rule, self)
        return found


class RulePlan:
    """A rule compiled: its vars, preconditions, assertion and assumptions."""

    def __init__(self, rule: Rule, plan: PolicyPlan) -> None:
        self.rule = rule
        self.policy = plan
        constant = dump_constant_vars(plan.policy, rule.vars, plan.constant_vars) if rule.vars else frozenset()
        self.specs = (
            {name: compile_var(var, plan, (id(self), name) if name in constant else None) for name, var in rule.vars.items()}
            if rule.vars
            else None
        )
        policy = plan.policy
        # Each check is remembered by what it reads of the object (rules.inputs): objects of one template
        # share its outcome.
        self.preconditions: list[tuple[Assertion, Check]] = []
        #: The leading preconditions that read only the dump (``reads_only_dump``): when one does not hold, every
        #: object the rule matches would skip with its reason, so the rule applies to no object of the dump, decided
        #: once per dump (``rules.evaluate.unmet_in_dump``). A precondition after one that reads the object is not
        #: among them: objects it stops first keep their own reason.
        self.dump_preconditions: list[tuple[Assertion, Check]] = []
        everywhere = plan.constant_vars | constant
        leading = True
        for pre in rule.preconditions:
            reads = reads_of(pre, rule, policy)
            check = compile_check(pre, plan, True)
            pair = (pre, check if reads is None else remember(check, reads))
            self.preconditions.append(pair)
            leading = leading and reads_only_dump(reads, everywhere)
            if leading:
                self.dump_preconditions.append(pair)
        self.check = _remembered(compile_check(rule.assertion, plan), rule.assertion, rule, policy)
        self.assumptions: list[tuple[Assumption, Check]] = [
            (a, _remembered(compile_check(a.when, plan, True), a.when, rule, policy)) for a in rule.assumes
        ]
        #: The kinds of the other objects the rule's word reads (``reads_other_objects``).
        self.reads_dump = reads_other_objects(rule, policy)


#: In ``reads_other_objects``: any kind (an object operator reads the Nodes and the pods bound to them, and more).
ANY_KIND = "*"


def reads_other_objects(rule: Rule, policy: Policy) -> frozenset[str]:
    """The kinds of the objects of the dump other than the one judged that what decides ``rule``'s word (its
    assertion and assumptions) reads: the kind of each context read, directly or through the vars it reads (the
    rule's, then the policy's, followed as far as they go), and ``ANY_KIND`` for an object operator (``schedulable``
    reads the Nodes and the pods bound to them). Such a verdict may change with an object of those kinds the dump's
    input errors kept from being read; one that reads only its object (an empty set) may not."""
    contexts = policy.contexts
    kinds: set[str] = set()
    seen: set[str] = set()  # vars followed

    def context(n: str) -> bool:
        kinds.add(contexts[n].kind if n in contexts else ANY_KIND)
        return True  # read on: every context counts

    def name_ok(n: str, bound: frozenset[str]) -> bool:
        if n in bound:
            return True
        var = rule.vars.get(n) or policy.vars.get(n)
        if var is None:
            return context(n) if n in contexts else True  # a built-in (``name``...) reads the object
        if n not in seen:
            seen.add(n)
            for r, when in var.alternatives:
                if not (ref(r, frozenset()) and (when is None or walk_assertion(when, frozenset(), ref, ("index",)))):
                    kinds.add(ANY_KIND)
        return True

    ref = ref_walker(name_ok, context, lambda _bound: True)
    for x in [rule.assertion, *(a.when for a in rule.assumes)]:
        if not walk_assertion(x, frozenset(), ref, ("index",)):
            kinds.add(ANY_KIND)  # an object operator
    return frozenset(kinds)


def reads_only_dump(reads: Reads | None, constant: frozenset[str]) -> bool:
    """True when a check that reads ``reads`` has the same outcome for every object of a dump: it reads no path
    of the object, none of its built-in names (``name``, ``namespace``...), no correlated context, and only vars
    in ``constant`` (``dump_constant_vars``); False for an object operator or ``$`` read whole (``None``)."""
    if reads is None or reads.paths or reads.builtins:
        return False
    return all(v in constant for v in reads.vars) and all(v in constant for v, _ in reads.keyed)


def _remembered(check: Check, a: Assertion, rule: Rule, policy: Policy) -> Check:
    reads = reads_of(a, rule, policy)
    return check if reads is None else remember(check, reads)


def compile_var(var: Var, plan: PolicyPlan, per_dump: tuple[int, str] | None = None) -> Get:
    """The first alternative whose ``when`` holds (or has none) and whose value is not None; else None.
    ``per_dump``: the var is the same for every object of a dump (``dump_constant_vars``), so it is computed
    once per dump and kept in the index under this token, not once per object."""
    alternatives = [
        (compile_ref(ref, plan), compile_check(when, plan, True) if when is not None else None) for ref, when in var.alternatives
    ]
    if len(alternatives) == 1 and alternatives[0][1] is None:
        value = alternatives[0][0]
    else:

        def value(scope: Scope) -> Any:
            for get, when in alternatives:
                if when is not None and when(scope).state != "pass":
                    continue
                found = get(scope)
                if found is not None:
                    return found
            return None

    if per_dump is None:
        return value
    token = ("var", *per_dump)

    def once(scope: Scope) -> Any:
        kept: list[Any] = scope.index.memo(token, list)
        if not kept:
            kept.append(value(scope))  # an error raises before anything is kept: the next object raises too
        return kept[0]

    return once


def ref_walker(
    name_ok: Callable[[str, frozenset[str]], bool], context_ok: Callable[[str], bool], path_ok: Callable[[frozenset[str]], bool]
) -> Callable[[Ref | None, frozenset[str]], bool]:
    """A reference walk (for ``walk_assertion``) that accepts a reference when everything it reads is accepted: a
    name (a var, a built-in, a context named as a var) by ``name_ok(name, bound)``, a context by ``context_ok``, a
    path or keys of the object or of a bound item by ``path_ok(bound)``, literals and data tables always; through
    its parts, key and where. What ``dump_constant_vars`` and ``reads_other_objects`` ask of every reference."""

    def ref(r: Ref | None, bound: frozenset[str]) -> bool:
        if r is None:
            return True
        if r.where is not None and not walk_assertion(r.where, bound | {"item"}, ref, ("index",)):
            return False
        kind = r.kind
        if kind in COMPOSITE:
            ok = all(ref(k, bound) for k in r.target)
        elif kind in ("path", "keys"):
            ok = path_ok(bound)
        elif kind == "var":
            ok = name_ok(r.target, bound)
        elif kind == "context":
            ok = context_ok(r.target)
        elif kind == "format":
            ok = all(name_ok(m.group(1).split(".")[0], bound) for m in PLACEHOLDER.finditer(r.target))
        else:
            ok = kind in ("literal", "data")
        return ok and ref(r.key, bound)

    return ref


def dump_constant_vars(policy: Policy, vars: Mapping[str, Var], outer: frozenset[str] = frozenset()) -> frozenset[str]:
    """The names of ``vars`` whose value is the same for every object of a dump: all they read (their
    references and ``when`` conditions, through the vars they name) is literals, data tables, contexts that
    are not joined on the object, and such vars (``outer``: those of the policy, for a rule's vars). A var
    that reads the object, a built-in (``name``...), a correlated context or a var of the object is not."""
    contexts = policy.contexts
    known: dict[str, bool] = {}

    def name_ok(n: str, bound: frozenset[str], visiting: frozenset[str]) -> bool:
        if n in bound:
            return True
        if n in vars:
            if n not in known:
                if n in visiting:
                    return False
                known[n] = var_ok(vars[n], visiting | {n})
            return known[n]
        if n in outer:
            return True
        if n in policy.vars or n in OBJECT_BUILTINS:  # a policy var that reads the object; the object's name...
            return False
        return context_ok(n)

    def context_ok(n: str) -> bool:
        ctx = contexts.get(n)
        return ctx is not None and not ctx.correlated

    def var_ok(v: Var, visiting: frozenset[str]) -> bool:
        # below a where or forEach, $ is the item; else the object
        ref = ref_walker(lambda n, bound: name_ok(n, bound, visiting), context_ok, bool)
        return all(
            ref(r, frozenset()) and (when is None or walk_assertion(when, frozenset(), ref, ("index",)))
            for r, when in v.alternatives
        )

    return frozenset(n for n in vars if name_ok(n, frozenset(), frozenset()))


_PLANS: IdentityMemo[PolicyPlan] = IdentityMemo(256)


def plan_of(policy: Policy) -> PolicyPlan:
    """The compiled plan of ``policy``, built once per policy object."""
    return _PLANS.get(lambda: PolicyPlan(policy), policy)


def compile_check(a: Assertion, plan: PolicyPlan, discard_pass: bool = False, binding: str | None = None) -> Check:
    """``a`` as a function of a scope. Raises nothing itself; the function raises ``EvaluationError`` when
    the assertion cannot be evaluated (an unknown var, a quantity that does not parse...).

    ``discard_pass``: the caller keeps only the state of a passing outcome (a forEach over all items, a
    precondition, a condition), so an ``any`` may try first the children that are cheap to decide.
    ``binding``: the name the enclosing forEach (or ``where``) binds to the current item, which is also
    ``$``; a check that reads nothing else of the object (only the item and constants, such as
    ``{var: resource, notMatches: {data: extendedResource}}``) is remembered per item value.
    """
    op = a.op
    if op == "all":
        check = _all(a, plan, binding)
    elif op == "any":
        check = _any(a, plan, discard_pass, binding)
    elif op == "not":
        check = _not(a, plan, binding)
    elif op == "forEach":
        check = _for_each(a, plan)
    else:
        operator = OPERATORS[op]
        if operator.scope == "object":
            return _object(a, operator)
        check = _leaf(a, operator, plan)
    if binding is not None:
        reads = _item_inputs(a, binding, plan.policy.contexts)
        if reads is not None:
            return _per_item(check, binding, per_dump=reads)
    return check


def _with_message(out: Outcome, message: str) -> Outcome:
    if out.message or not message:
        return out
    return _rebuilt(out, out.detail, message)


def _rebuilt(out: Outcome, detail: str, message: str) -> Outcome:
    """A copy of ``out`` with this detail and message; its other failing items (``more``) kept (review: a copy
    without them named one failing container of a forEach ``report: all``)."""
    copy = Outcome(out.state, out.path, out.observed, out._expected, detail, message, out.bindings)
    copy.more = out.more
    return copy


def _all(a: Assertion, plan: PolicyPlan, binding: str | None) -> Check:
    kids = [compile_check(c, plan, True, binding) for c in a.children]
    message = a.message
    passed = Outcome("pass", message=message)

    def check(scope: Scope) -> Outcome:
        skipped = None
        explained = None  # the first passing child with an explanation (a `schedulable` that holds): its evidence
        for kid in kids:
            out = kid(scope)
            state = out.state
            if state == "fail":
                # a child that fails with its own message reads the explanation of one that passed before it (a
                # failure under the rule's message would say what passed as why it failed: review)
                if explained is not None and not out.detail and out.message:
                    out = _rebuilt(out, explained.detail, out.message)
                return _with_message(out, message)
            if state == "skip":
                if skipped is None:
                    skipped = out  # a later failure still counts: a skip must not hide it
            elif explained is None and out.detail:
                explained = out
        if skipped is not None:
            return skipped
        if explained is None:
            return passed
        e = explained
        return Outcome("pass", e.path, e.observed, e._expected, e.detail, message, e.bindings)

    return check


def _any(a: Assertion, plan: PolicyPlan, discard_pass: bool, binding: str | None) -> Check:
    kids = [compile_check(c, plan, discard_pass, binding) for c in a.children]
    message = a.message
    # Where a passing outcome is discarded, children remembered per item value (the usual last alternative
    # of a forEach body, "or this resource is not of that class") are tried first: a hit decides the item.
    cheap = (
        [kid for kid, c in zip(kids, a.children, strict=True) if _item_inputs(c, binding, plan.policy.contexts) is not None]
        if discard_pass and binding is not None
        else []
    )

    def check(scope: Scope) -> Outcome:
        for kid in cheap:
            try:
                out = kid(scope)
            except EvaluationError:
                break  # the loop below meets it in its place
            if out.state == "pass":
                return out
        fails: list[Outcome] = []
        error: EvaluationError | None = None
        for kid in kids:
            try:
                out = kid(scope)
            except EvaluationError as exc:
                error = error or exc  # another branch may still hold
                continue
            if out.state == "pass":
                return out
            fails.append(out)
        if error is not None:
            # no branch holds, and one could not be evaluated: it might have held, so "fail" is not known
            # (false or unknown is unknown), and a failing branch's evidence would describe the wrong thing
            raise error
        if all(f.state == "skip" for f in fails):
            return fails[0]
        first = next(f for f in fails if f.state == "fail")
        return Outcome(
            "fail",
            first.path,
            first.observed,
            lambda: _alternatives(first, fails),
            first.detail,
            message or first.message,
            first.bindings,
        )

    return check


def _alternatives(first: Outcome, fails: list[Outcome]) -> str:
    """What an ``any`` expected: each alternative's expected text, one that reads another path than the alternative
    before it (at first the one reported, ``first``'s) with that path (``one of [...] or $.claimName: a value or
    $.deviceName: no value``: trial 226 #6, "or $.claimName: a value or no value" read as of claimName)."""
    parts, shown = [], first.path
    for f in fails:
        if not f.expected:
            continue
        if not f.path or f.path == shown:
            parts.append(f.expected)
        else:
            parts.append(f"{f.path}: {f.expected}")
            shown = f.path
    return " or ".join(parts)


def _not(a: Assertion, plan: PolicyPlan, binding: str | None) -> Check:
    kid = compile_check(a.children[0], plan, False, binding)
    inner_op = a.children[0].op
    message = a.message
    fail_message = message or a.description

    def check(scope: Scope) -> Outcome:
        out = kid(scope)
        if out.state == "skip":
            return out
        if out.state == "pass":
            return Outcome("fail", out.path, out.observed, lambda: f"not ({out.expected or inner_op})", out.detail, fail_message)
        # the inner check's detail stays readable in a pass message (`not: {schedulable: {nodes: ...}}`: which
        # nodes were judged, trial 73)
        return Outcome("pass", out.path, out.observed, detail=out.detail, message=message)

    return check


def _item_named(path: str, i: int, item: dict[str, Any]) -> str:
    """``item 1 of $.spec.containers[*] (name 'b')``: a forEach item, for an error in it."""
    name = item.get("name")
    if not isinstance(name, str) and isinstance(item.get("metadata"), dict):
        name = item["metadata"].get("name")
    return f"item {i} of {path}" + (f" (name {quoted(name)})" if isinstance(name, str) and name else "")


def _for_each(a: Assertion, plan: PolicyPlan) -> Check:
    items_of = _values(a, plan)
    # An item's passing outcome is thrown away under all and any; under none it makes the failure.
    discard_pass = a.quantifier in ("all", "any")
    kid = compile_check(a.children[0], plan, discard_pass, a.each_as)
    path = a.subject.text() if a.subject else ""
    quantifier, each_as, message, report_all = a.quantifier, a.each_as, a.message, a.report_all
    passed = Outcome("pass", path)
    empty = Outcome("pass" if a.if_missing == "pass" else "fail", path, [], "at least one item")
    # Items that an alternative reading only the item lets pass (most labels of a node are not deploy
    # labels) are known by value: they need no scope and no check at all the next time.
    guards = _item_guards(a.children[0], plan, each_as) if discard_pass else None
    known: dict[Any, bool] = {}

    def guarded(item: Any, scope: Scope) -> bool:
        token = joins.scalar_token(item)
        if token is None or guards is None:
            return False
        checks, per_dump = guards
        key = (scope.index.token, token) if per_dump else token
        found = known.get(key)
        if found is None:
            probe = scope.child(item, {each_as: item, "index": 0})
            found = False
            for guard in checks:
                try:
                    if guard(probe).state == "pass":
                        found = True
                        break
                except EvaluationError:
                    return False  # decided in its place, below
            if len(known) >= PER_ITEM_LIMIT:
                known.clear()
            known[key] = found
        return found

    def check(scope: Scope) -> Outcome:
        items = items_of(scope)
        if not items:
            return empty
        first_fail: Outcome | None = None
        skipped: Outcome | None = None
        failures: list[Outcome] = []  # report: all
        judged = 0
        for i, item in enumerate(items):
            if guards is not None and guarded(item, scope):
                judged += 1
                if quantifier == "any":
                    return passed
                continue
            bindings = {each_as: item, "index": i}
            try:
                out = kid(scope.child(item, bindings))
            except UnknownName:
                raise
            except EvaluationError as exc:
                if not isinstance(item, dict):
                    raise  # (its value is in what the error says: a key read with it, a value of it)
                # which item (trial 190: a container's error named none)
                raise EvaluationError(f"in {_item_named(path, i, item)}: {exc}") from None
            state = out.state
            if state == "skip":
                skipped = skipped or out
                continue
            judged += 1
            # Stop at the first item that decides: a failure for all, a pass for any and none.
            if quantifier == "any" and state == "pass":
                return passed
            if state == "pass" and quantifier == "all":
                continue
            here = Outcome(
                state,
                f"{path}[{i}]" + (f" {out.path}" if out.path else ""),
                out.observed,
                out._expected,
                out.detail,
                out.message or message,
                {**bindings, **out.bindings},
            )
            if quantifier == "all":  # a failure
                if not report_all:
                    return here
                failures.append(here)
                continue
            if quantifier == "none" and state == "pass":
                return _no_item_where(here, message)
            if first_fail is None and state == "fail":
                first_fail = here
        if failures:
            return _every_failure(failures)
        if judged == 0 and skipped is not None:
            return skipped  # every item was out of scope: nothing was judged
        if quantifier == "any" and first_fail is not None:
            return first_fail
        return passed

    return check


def _item_guards(body: Assertion, plan: PolicyPlan, binding: str) -> tuple[list[Check], bool] | None:
    """The alternatives of a forEach body (``any``, or the body itself) that read only the item and
    constants, compiled, and whether any reads a per-dump context; None when there is none."""
    alternatives = body.children if body.op == "any" else (body,)
    contexts = plan.policy.contexts
    found = [(c, _item_inputs(c, binding, contexts)) for c in alternatives]
    cheap = [(c, reads) for c, reads in found if reads is not None]
    if not cheap:
        return None
    return [compile_check(c, plan, True, binding) for c, _ in cheap], any(reads for _, reads in cheap)


#: Item values remembered per check, at most (then it starts afresh: the values are label keys and resource
#: names, a vocabulary, but a hostile dump could have a million of them).
PER_ITEM_LIMIT = 4096


def _per_item(check: Check, binding: str, per_dump: bool) -> Check:
    """``check`` remembered per value of the item bound to ``binding`` (told apart by type: ``1`` is not
    ``True``), for scalar items; per dump too when it reads a context. The outcome is shared: it depends on
    nothing else, and nothing changes an outcome once built."""
    table: dict[Any, Outcome] = {}

    def remembered(scope: Scope) -> Outcome:
        try:
            token = joins.scalar_token(scope.var(binding))
        except EvaluationError:
            token = None
        if token is None:
            return check(scope)
        key = (scope.index.token, token) if per_dump else token
        found = table.get(key)
        if found is None:
            if len(table) >= PER_ITEM_LIMIT:
                table.clear()
            found = table[key] = check(scope)
        return found

    return remembered


def _item_inputs(a: Assertion, binding: str | None, contexts: Mapping[str, Any]) -> bool | None:
    """For an assertion evaluated where ``binding`` (and ``$``) is an item: None when it reads anything of
    the object being judged other than the item, else whether it reads a per-dump context (False: it
    reads only the item and constants). Object operators, the ``index`` binding and names bound outside
    are reads of the object."""
    if binding is None:
        return None
    reads_context = False

    def ref(r: Ref | None, bound: frozenset[str]) -> bool:
        nonlocal reads_context
        if r is None:
            return True
        kind = r.kind
        if r.where is not None and not walk(r.where, bound | {"item"}):  # its where binds item to its own values
            return False
        if kind in COMPOSITE:
            return all(ref(k, bound) for k in r.target) and ref(r.key, bound)
        if kind == "var":
            ok = r.target in bound
        elif kind == "context":
            ctx = contexts.get(r.target)
            ok = ctx is not None and not ctx.correlated
            reads_context = reads_context or ok
        elif kind == "format":
            ok = all(m.group(1) in bound for m in PLACEHOLDER.finditer(r.target))
        else:
            ok = kind in ("literal", "data", "path", "keys")
        return ok and ref(r.key, bound)

    def walk(x: Assertion, bound: frozenset[str]) -> bool:
        return walk_assertion(x, bound, ref)

    if not walk(a, frozenset({binding})):
        return None
    return reads_context


def _every_failure(failures: list[Outcome]) -> Outcome:
    """The failure of a forEach with ``report: all``: the first failing item's outcome, with the others in
    ``more`` (the rule's message is written for each, and the result observes each one's value)."""
    first = failures[0]
    if len(failures) == 1:
        return first
    out = Outcome(first.state, first.path, first.observed, first._expected, first.detail, first.message, first.bindings)
    out.more = tuple(failures[1:])
    return out


def _no_item_where(here: Outcome, message: str) -> Outcome:
    expected = lambda: f"no item where {here.expected}"  # noqa: E731
    return Outcome("fail", here.path, here.observed, expected, here.detail, message, here.bindings)


def _object(a: Assertion, operator: Operator) -> Check:
    test, describe, argument, message = operator.test, operator.describe, a.argument, a.message

    def check(scope: Scope) -> Outcome:
        state, detail, observed = test(scope, argument)
        return Outcome(state, "$", observed, lambda: describe(argument), detail, message)

    return check


_DESCRIBED: IdentityMemo[str] = IdentityMemo(16384)


def _place(r: Ref | None, scope: Scope) -> str:
    """Where a var read with a key read, in the dump's words, for an error: ``allocatable['nvidia.com/gpu']``
    where the reference reads ``var allocatable[var item]``; "" for another reference (its text says it)."""
    if r is None or r.kind != "var" or r.key is None or r.select or r.capture or r.where:
        return ""
    key = r.key
    try:
        value = scope.var(key.target) if key.kind == "var" and not key.key else key.target if key.kind == "literal" else None
    except EvaluationError:
        return ""
    return f"{r.target}[{quoted(str(value))}]" if isinstance(value, (str, int)) else ""


def _leaf(a: Assertion, operator: Operator, plan: PolicyPlan) -> Check:
    """A value or set operator over the values the assertion's subject selects."""
    values_of = _values(a, plan)
    arg_of = compile_ref(a.argument, plan) if operator.resolve else None
    constant_arg = arg_of is None or (isinstance(a.argument, Ref) and a.argument.kind == "literal")
    literal = a.argument
    path = a.subject.label if a.subject else ""
    if a.classify is not None:  # what is observed is each value's class (trial 173: "container" beside keys of ...)
        path = f"{path}, classified by {a.classify.text()}"
    test, describe, lookup_by = operator.test, operator.describe, operator.lookup
    quantifier, message = a.quantifier, a.message
    missing_passes = a.if_missing == "pass"
    is_set = operator.scope == "set"
    # A context's or a data table's own list (nothing changes it on the way) is the same object for every
    # object judged: worth the structures of rules.joins.
    shared = _shared(a.subject) and not (a.transforms or a.where is not None or a.classify is not None or a.unique)
    reads_index = operator.index  # its test reads the dump too: given the index, its answers not remembered by list
    shared = shared and not reads_index
    words = QUANTIFIER_WORDS[quantifier]

    def base(arg: Any) -> str:
        # describe(arg) once per (assertion, argument object) for constants, lists and mappings; the engine's words
        # of a trusted argument may stand in a fix (rules.shell)
        if isinstance(arg, (list, dict, tuple)) or constant_arg:
            return _DESCRIBED.get(lambda: said(describe(arg), arg), a, arg)
        return said(describe(arg), arg)

    def check(scope: Scope) -> Outcome:
        values = values_of(scope)
        arg = arg_of(scope) if arg_of is not None else literal
        tested = functools.partial(test, index=scope.index) if reads_index else test
        try:
            if is_set:
                ok = tested(values, arg)
                expected: Any = lambda: base(arg)  # noqa: E731
            elif not values:
                ok = missing_passes
                expected = (lambda: base(arg)) if ok else (lambda: f"{base(arg)} (nothing selected)")
            else:
                n = len(values)
                true = joins.count_true(values, lookup_by, arg) if lookup_by is not None and shared else None
                if true is None:
                    if shared:
                        true = joins.remembered_true(values, a, arg, lambda: _count(test, values, arg))
                    else:
                        true = _count(tested, values, arg)
                ok = true == n if quantifier == "all" else true > 0 if quantifier == "any" else true == 0
                expected = (lambda: said(f"{words} {base(arg)}", arg)) if n > 1 or quantifier != "all" else (lambda: base(arg))
        except OperatorError as exc:
            if isinstance(a.argument, Ref) and arg is not None and operator.literal_problem(arg):
                # the argument a reference gives is what cannot be compared, not the value (trial 190)
                where = _place(a.argument, scope) or a.argument.label
                raise EvaluationError(f"{where} (the argument of {operator.name}): {exc}") from None
            raise EvaluationError(f"{_place(a.subject, scope) or path}: {exc}") from None
        if not ok and typed and len(values) == 1 and (twin := _printed_alike(values[0], arg)) is not None:
            stated = expected
            expected = lambda: f"{stated()} ({_type_word(twin)}; the value is {_type_word(values[0])})"  # noqa: E731
        return Outcome("pass" if ok else "fail", path, values[0] if len(values) == 1 else values, expected, "", message)

    typed = operator.name in ("equals", "in")
    return check


def _type_word(value: Any) -> str:
    """``a string``, ``a number``, ``a boolean``, ``null``: what a value is, for a message."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    return "null" if value is None else "a string" if isinstance(value, str) else f"a {type(value).__name__}"


def _printed_alike(value: Any, arg: Any) -> Any:
    """The member of ``arg`` (one, or a list) that prints as ``value`` does but is of another type, else None: a
    string label "8" against the number 8 read "8 | == 8" (trial 135)."""
    if isinstance(value, (dict, list)):
        return None
    for member in arg if isinstance(arg, list) else [arg]:
        if _type_word(member) != _type_word(value) and show(member) == show(value):
            return member
    return None


def _count(test: Callable[[Any, Any], Any], values: list[Any], arg: Any) -> int:
    """How many values pass; every value is tested, so an error on any of them is reported."""
    if len(values) == 1:
        return 1 if test(values[0], arg) else 0
    hits = [test(v, arg) for v in values]
    return sum(1 for h in hits if h)


def _values(a: Assertion, plan: PolicyPlan) -> Get:
    """The values an assertion tests: resolved, transformed, filtered (``where`` sees each value before it
    is classified, so it can look the raw value up, e.g. a resource name's quantity), classified and
    de-duplicated. The subject's own list is returned when no step changes it (callers do not mutate it)."""
    if a.subject is None:
        return lambda scope: []
    get = compile_ref(a.subject, plan)
    many = a.subject.many
    transforms = a.transforms
    where = _where(a.where, plan, _shared(a.subject) and not transforms) if a.where is not None else None
    classify_of = compile_ref(a.classify, plan) if a.classify is not None else None
    unique = a.unique

    def values(scope: Scope) -> Any:
        raw = get(scope)
        if many or isinstance(raw, list):
            found = raw if isinstance(raw, list) else [raw]
        else:
            found = [] if raw is None else [raw]
        if transforms:  # (keys: a mapping becomes its member names, so one value may become several, or none)
            found = _transformed(transforms, found)
        if where is not None and found:
            found = where(found, scope)
        if classify_of is not None:
            table = classify_of(scope)
            if not isinstance(table, dict):
                raise EvaluationError(f"classify needs a mapping of name to regular expressions, got {show(table)}")
            found = [c for c in (_classify(v, table) for v in found) if c is not None]
        if unique:
            found = _unique(found)
        return found

    return values


def _shared(subject: Ref | None) -> bool:
    """True when the subject's values are a list shared by every object judged (a context's, a data table's)."""
    return subject is not None and subject.kind in ("context", "data")


def _where(where: Assertion, plan: PolicyPlan, shared: bool) -> Callable[[list[Any], Scope], list[Any]]:
    """The ``where`` filter: each value is checked in a scope whose ``$`` and ``item`` are the value.

    What makes it cheaper, each giving the values checking every one gives, in order:
    - a first clause that compares ``{var: item}`` by an operator's key with an argument that does not read
      the item (``{var: item, in: {data: allDeployLabels}}``) is tried first, as one key and one set hit per
      value, and the whole filter runs only on the values that pass it;
    - over a ``shared`` list (a context's, a data table's), a first clause that compares anything read from
      the item that way is answered from an index of the list (``rules.joins.where_filter``);
    - over a shared list, the result is remembered per value of the names the filter reads from around it
      (``{var: daemonSet}``), when they are plain scalars: objects that agree on them get the same list.
    """
    check = compile_check(where, plan, True, "item")
    clause = where.children[0] if where.op == "all" and where.children else where
    quick = _item_clause(clause, plan)

    def scan(items: list[Any], scope: Scope) -> list[Any]:
        if quick is not None and len(items) > 1:
            return _prefiltered(items, scope, check, quick)
        kept = []
        for v in items:
            if check(scope.child(v, {"item": v})).state == "pass":
                kept.append(v)
        return kept

    if not shared:
        return scan
    indexed = _indexable(clause, plan)
    inner = scan
    if indexed is not None:
        lookup_by, clause_values, clause_arg, missing_passes = indexed

        def filtered(items: list[Any], scope: Scope) -> list[Any]:
            if len(items) < joins.INDEX_FROM:
                return scan(items, scope)
            probe = scope.child(None, {"item": None})

            def values_of(item: Any) -> list[Any]:
                probe.root = item
                probe.values = {"item": item}
                return clause_values(probe)  # type: ignore[no-any-return]

            def passes(item: Any) -> bool:
                return check(scope.child(item, {"item": item})).state == "pass"

            kept = joins.where_filter(items, indexed, lookup_by, values_of, clause_arg(scope), missing_passes, passes)
            return scan(items, scope) if kept is None else kept

        inner = filtered
    deps = _outer_names(where, plan)
    if deps is None:
        return inner
    names, per_dump = deps

    def remembered(items: list[Any], scope: Scope) -> list[Any]:
        try:
            token = tuple(joins.scalar_token(scope.var(n)) for n in names)
        except Exception:  # noqa: BLE001 - checking the values one by one raises it where it should
            return inner(items, scope)
        if any(t is None for t in token):
            return inner(items, scope)
        return joins.remembered(check, items, (scope.index.token, *token) if per_dump else token, lambda: inner(items, scope))

    return remembered


def _prefiltered(items: list[Any], scope: Scope, check: Check, quick: tuple[Any, Get, bool, bool]) -> list[Any]:
    """``items`` that pass ``check``, the whole filter tried only on those that pass its first clause,
    ``{var: item, <operator with a lookup>: <argument read around the item>}``, decided here by keys."""
    lookup_by, arg_of, none_of, missing_passes = quick
    keys = joins.keys_of(lookup_by, arg_of(scope))
    if keys is None:
        return [v for v in items if check(scope.child(v, {"item": v})).state == "pass"]
    key, negate = lookup_by.key, lookup_by.negate
    kept = []
    for v in items:
        if v is None:
            if not missing_passes:
                continue
        elif not isinstance(v, list):
            k = key(v)
            if not joins.is_nan(k) and ((k in keys) != negate) == none_of:
                continue  # the first clause fails: so does the filter, and nothing else of it runs
        if check(scope.child(v, {"item": v})).state == "pass":
            kept.append(v)
    return kept


def _item_clause(clause: Assertion, plan: PolicyPlan) -> tuple[Any, Get, bool, bool] | None:
    """(lookup, argument, quantifier is ``none``, an item with no value passes) for a first clause
    ``{var: item, <value operator with a lookup>: <argument that does not read the item>}`` with nothing
    else on its subject."""
    operator = OPERATORS.get(clause.op)
    subject = clause.subject
    if (
        operator is None
        or operator.scope != "value"
        or operator.lookup is None
        or subject is None
        or (subject.kind, subject.target, subject.key, subject.default, subject.capture, subject.where)
        != ("var", "item", None, None, None, None)
        or subject.many
        or clause.where is not None
        or clause.classify is not None
        or clause.transforms
        or clause.unique
        or not (isinstance(clause.argument, Ref) and _item_free(clause.argument, plan.policy.contexts))
    ):
        return None
    return operator.lookup, compile_ref(clause.argument, plan), clause.quantifier == "none", clause.if_missing == "pass"


def _outer_names(where: Assertion, plan: PolicyPlan) -> tuple[tuple[str, ...], bool] | None:
    """The names a ``where`` reads from around the item (vars, built-ins, uncorrelated contexts; not the names
    it binds itself: ``item``, a forEach's), and whether it reads a context (its result is then the dump's);
    None when its result may depend on anything else: a correlated context, an object operator (it reads the
    object)."""
    names: set[str] = set()
    contexts = plan.policy.contexts
    reads_context = False

    def ref(r: Ref | None, bound: frozenset[str]) -> bool:
        nonlocal reads_context
        if r is None:
            return True
        if r.where is not None and not walk_assertion(r.where, bound | {"item"}, ref, ("index",)):
            return False
        if r.kind in COMPOSITE:
            return all(ref(k, bound) for k in r.target) and ref(r.key, bound)
        if r.kind == "var":
            if r.target not in bound:
                names.add(r.target)
        elif r.kind == "context":
            ctx = contexts.get(r.target)
            if ctx is None or ctx.correlated:
                return False
            reads_context = True
        elif r.kind == "format":
            names.update(m.group(1) for m in PLACEHOLDER.finditer(r.target) if m.group(1) not in bound)
        return ref(r.key, bound)

    if not walk_assertion(where, frozenset({"item"}), ref, ("index",)):
        return None
    for name in list(names):
        ctx = contexts.get(name)
        if ctx is not None and name not in plan.specs:  # a name that falls back to a context
            if ctx.correlated:
                return None
            reads_context = True
    return tuple(sorted(names)), reads_context


def _indexable(clause: Assertion, plan: PolicyPlan) -> tuple[Any, Get, Get, bool] | None:
    """(lookup, the clause's values in an item's scope, its argument, whether an item with no value passes)
    when ``clause`` can be answered from a per-list index: a value operator with a ``lookup`` that is not
    negated, a quantifier over one value that means "this value passes" (``all`` or ``any``), a subject
    that reads only the item, and an argument that does not read it."""
    if clause.op not in OPERATORS:
        return None
    operator = OPERATORS[clause.op]
    lookup_by = operator.lookup
    contexts = plan.policy.contexts
    if (
        operator.scope != "value"
        or lookup_by is None
        or lookup_by.negate
        or clause.quantifier not in ("all", "any")
        or clause.where is not None
        or clause.classify is not None
        or clause.subject is None
        or not _item_only(clause.subject, contexts)
        or not (isinstance(clause.argument, Ref) and _item_free(clause.argument, contexts))
    ):
        return None
    # The clause's values, without its test: the same steps as _values (no where or classify here).
    subject = Assertion(clause.op, subject=clause.subject, transforms=clause.transforms, unique=clause.unique)
    return lookup_by, _values(subject, plan), compile_ref(clause.argument, plan), clause.if_missing == "pass"


_STRING_TRANSFORMS: dict[str, Callable[[str], str]] = {"lowercase": str.lower, "uppercase": str.upper, "trim": str.strip}


def _transformed(transforms: tuple[str, ...], value: Any) -> Any:
    """A subject's or a reference's ``transform``: each of a list's values (or the one value) transformed; after
    ``keys`` (a mapping becomes its member names) the value is a list."""
    for t in transforms:
        if t == "keys":
            found = value if isinstance(value, list) else [] if value is None else [value]
            value = [k for v in found if isinstance(v, dict) for k in v]
        elif isinstance(value, list):
            value = [_transform(t, v) for v in value]
        elif value is not None:
            value = _transform(t, value)
    return value


def _transform(name: str, value: Any) -> Any:
    if name == "string":
        return show(value)
    if not isinstance(value, str):
        return value
    return _STRING_TRANSFORMS[name](value)


def _classify(value: Any, table: dict[str, Any]) -> Any:
    try:
        return classify(value, table)
    except OperatorError as exc:  # (trial 135: "internal error error: missing )", no pattern named)
        raise EvaluationError(str(exc)) from None


# ------------------------------------------------------------------------------------------ per dump


def prepare(index: Any, policies: Any) -> None:
    """Build before evaluation what every object will read, once: the contexts the rules of ``policies``
    (a ``PolicySet``) read, and what their object operators prepare (``Operator.prepare``: the scheduler's
    model of the cluster). Objects judged afterwards, in this process or in processes forked from it,
    find them built; without this they are built on first use."""
    for policy in policies.policies:
        plan = plan_of(policy)
        contexts: set[str] = set()
        operators: set[str] = set()
        for rule in policy.rules:
            _collect(rule, policy, contexts, operators)
        for name in sorted(contexts):
            try:
                plan.contexts[name].materialise(index)
            except EvaluationError:  # each object that reads it answers error, with its words (trial 212: a crash)
                pass
        for name in sorted(operators):
            hook = OPERATORS[name].prepare
            if hook is not None:
                hook(index)


def _collect(rule: Rule, policy: Policy, contexts: set[str], operators: set[str]) -> None:
    """The contexts and operators ``rule`` may read: through its assertions, its vars and the policy's, its
    messages, and the ``where.equals`` of the contexts it reads."""
    seen_vars: set[str] = set()

    def name(n: str) -> None:
        if n in rule.vars or n in policy.vars:
            key = f"{'r' if n in rule.vars else 'p'}:{n}"
            if key not in seen_vars:
                seen_vars.add(key)
                var = rule.vars[n] if n in rule.vars else policy.vars[n]
                for ref, when in var.alternatives:
                    reference(ref)
                    if when is not None:
                        assertion(when)
        elif n in policy.contexts and n not in contexts:
            contexts.add(n)
            reference(policy.contexts[n].where_value)

    def template(text: str) -> None:
        for m in PLACEHOLDER.finditer(text):
            name(m.group(1))

    def reference(ref: Ref | None) -> None:
        if ref is None:
            return
        if ref.kind in COMPOSITE:
            for k in ref.target:
                reference(k)
        elif ref.kind in ("var", "context"):
            name(ref.target)
        elif ref.kind == "format":
            template(ref.target)
        reference(ref.key)
        if ref.where is not None:
            assertion(ref.where)

    def assertion(a: Assertion) -> None:
        if a.op in OPERATORS:
            operators.add(a.op)
        for ref in (a.subject, a.classify, a.argument if isinstance(a.argument, Ref) else None):
            reference(ref)
        for child in (*a.children, *([a.where] if a.where is not None else [])):
            assertion(child)
        template(a.message)

    for pre in rule.preconditions:
        assertion(pre)
    assertion(rule.assertion)
    for assumption in rule.assumes:
        assertion(assumption.when)
        template(assumption.message)
    for text in (rule.message, rule.pass_message, rule.remediation):
        template(text)
