"""Evaluate compiled policies against an indexed dump: one ``Result`` per (object, matching rule).

An exception inside one rule on one object becomes that result's ``error``; it never stops the run.
Evaluation never parses a path: everything it reads was compiled at load (``rules.model``). Exemptions
(``rules.exemptions``) apply to an object's results once they are known, never inside a rule.
"""

from __future__ import annotations

import re
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from fnmatch import fnmatchcase
from fractions import Fraction
from typing import Any

from . import operators
from .errors import EvaluationError, EvaluationTimeout
from .exemptions import Exempter, ExemptionSet
from .index import Index
from .limits import limit
from .loader import PolicySet
from .memo import IdentityMemo
from .model import OBJECT_BUILTINS, PLACEHOLDER, Assertion, Context, Policy, Ref, Rule, Var
from .operators import OperatorError, show
from .progress import Progress
from .quantity import QuantityError, format_quantity, parse_quantity
from .reader import Dump, KObject
from .report import ObjectRef, ObjectReport, Report, Result
from .selection import Selection

_MISSING = object()
_QUANTIFIER_WORDS = {"all": "each value", "any": "some value", "none": "no value"}


@dataclass(frozen=True, slots=True)
class Outcome:
    """What an assertion found: ``state`` pass|fail|skip, the ``path`` it read, ``observed`` values,
    ``expected`` text, ``detail`` (e.g. the scheduler's explanation), an assertion-level ``message``
    template, and ``bindings`` (forEach items) for message substitution."""

    state: str
    path: str = ""
    observed: Any = None
    expected: str = ""
    detail: str = ""
    message: str = ""
    bindings: dict[str, Any] = field(default_factory=dict)


class Scope:
    """What an assertion can see: the object, the current ``$`` (the object, or a forEach item), vars
    (computed lazily, once per object and policy), the policy's data and contexts, and the index."""

    __slots__ = ("obj", "root", "index", "policy", "specs", "values", "parent", "_computing")

    def __init__(
        self,
        obj: KObject,
        index: Index,
        policy: Policy,
        specs: dict[str, Var],
        root: Any = _MISSING,
        parent: Scope | None = None,
        values: dict[str, Any] | None = None,
    ) -> None:
        self.obj = obj
        self.root = obj.obj if root is _MISSING else root
        self.index = index
        self.policy = policy
        self.specs = specs
        self.values: dict[str, Any] = values if values is not None else {}
        self.parent = parent
        self._computing: set[str] = set()

    def child(self, root: Any, bindings: dict[str, Any]) -> Scope:
        """A scope whose ``$`` is ``root`` with extra var bindings; other vars come from this scope."""
        return Scope(self.obj, self.index, self.policy, {}, root, self, dict(bindings))

    def var(self, name: str) -> Any:
        """The value of var ``name``: a binding of this scope, else this scope's var (computed on first use,
        then kept), else the parent scope's, else a built-in (the object's ``name``, ``namespace``, ``kind``,
        ``apiVersion``), else the policy context of that name, answered in this scope (so that a context
        joined on a forEach binding sees it, in a message too).

        Raises ``rules.errors.EvaluationError`` for an unknown name, a var that depends on itself, or a var or
        context that cannot be computed.
        """
        scope: Scope | None = self
        while scope is not None:
            if name in scope.values:
                return scope.values[name]
            if name in scope.specs:
                return scope._computed(name)
            scope = scope.parent
        builtin = _builtin(self.obj, name)
        if builtin is not _MISSING:
            return builtin
        if name in self.policy.contexts:
            return self.context(name)
        raise EvaluationError(f"unknown var {name!r}")

    def _computed(self, name: str) -> Any:
        """This scope's var ``name``, computed on first use and kept."""
        if name in self._computing:
            raise EvaluationError(f"var {name!r} depends on itself")
        self._computing.add(name)
        try:
            value = self._compute(self.specs[name])
        finally:
            self._computing.discard(name)
        self.values[name] = value
        return value

    def _compute(self, spec: Var) -> Any:
        for ref, when in spec.alternatives:
            if when is not None and check(when, self).state != "pass":
                continue
            value = resolve(ref, self)
            if value is not None:
                return value
        return None

    def context(self, name: str) -> Any:
        """The value of the policy's context ``name`` (``rules.model.Context``): a list of the values selected
        (``default`` instead when none is and a default is set); with ``first``, the first value or ``default``.
        An uncorrelated context is computed once per dump and policy; a correlated one once per object and
        value joined on.

        Raises ``rules.errors.EvaluationError`` when the policy has no such context or ``where.equals`` cannot
        be resolved.
        """
        ctx = self.policy.contexts.get(name)
        if ctx is None:
            raise EvaluationError(f"unknown context {name!r}")
        if not ctx.correlated:
            return self.index.memo(("context", self.policy.name, name), lambda: _context(ctx, self))
        # Cached per object and per value joined on: the same context read for each forEach item (or
        # with different rule vars) joins on a different value each time.
        wanted = resolve(ctx.where_value, self) if ctx.where_value is not None else None
        key = f"context:{name}:{wanted!r}"
        top = self._top()
        if key not in top.values:
            top.values[key] = _context(ctx, self, wanted)
        return top.values[key]

    def _top(self) -> Scope:
        return self if self.parent is None else self.parent._top()


def _builtin(obj: KObject, name: str) -> Any:
    attr = OBJECT_BUILTINS.get(name)
    return _MISSING if attr is None else getattr(obj, attr)


def _context(ctx: Context, scope: Scope, wanted: Any = None) -> Any:
    index = scope.index
    if ctx.where_field is not None and ctx.where_value is not None:
        if wanted is None:  # an uncorrelated where: its literal, resolved once per dump
            wanted = resolve(ctx.where_value, scope)
        seen: set[int] = set()
        objs = []
        for w in wanted if isinstance(wanted, list) else [wanted]:
            for o in index.lookup(ctx.kind, ctx.where_field, w, ctx.where_keys):
                if id(o) not in seen:
                    seen.add(id(o))
                    objs.append(o)
        if ctx.where_not:  # the objects of the kind that the lookup did not find, in dump order
            objs = [o for o in index.of_kind(ctx.kind) if id(o) not in seen]
        if ctx.api_version:
            objs = [o for o in objs if fnmatchcase(o.api_version, ctx.api_version)]
    else:
        objs = index.of_kind(ctx.kind, ctx.api_version or None)
    if ctx.same_namespace:
        objs = [o for o in objs if o.namespace == scope.obj.namespace]
    values: list[Any] = []
    for o in objs:
        if ctx.path is None:
            values.append(o.obj)
        elif ctx.keys:
            for v in ctx.path.values(o.obj):
                if isinstance(v, dict):
                    values.extend(v)
        else:
            values.extend(ctx.path.values(o.obj))
    if ctx.first:
        return values[0] if values else ctx.default
    if not values and ctx.default is not None:
        return ctx.default
    return values


def substitute(template: str, scope: Scope, extra: dict[str, Any]) -> str:
    """Replace ``{name}`` with the value of a built-in, a binding, a var or a context, and ``{name.a.b}``
    with a member of it (mapping keys only: safe, no format spec, no attribute access); an unknown name
    is left as written. A context joined on a binding of ``extra`` (a forEach item) is read with it."""
    if extra:
        scope = scope.child(scope.root, extra)

    def one(m: re.Match[str]) -> str:
        name = m.group(1)
        if name in extra:
            value = extra[name]
        else:
            try:
                value = scope.var(name)
            except EvaluationError:
                return m.group(0)
        for member in filter(None, m.group(2).split(".")):
            value = _lookup(value, member)
        return show(value)

    return PLACEHOLDER.sub(one, template)


def resolve(ref: Ref, scope: Scope) -> Any:
    """The value of a reference in ``scope`` (lists for ``many`` paths and ``keys``)."""
    kind = ref.kind
    if kind == "literal":
        value = ref.target
    elif kind == "path":
        value = ref.target.values(scope.root) if ref.many else ref.target.first(scope.root)
    elif kind == "keys":
        value = [k for v in ref.target.values(scope.root) if isinstance(v, dict) for k in v]
    elif kind == "var":
        value = scope.var(ref.target)
    elif kind == "context":
        value = scope.context(ref.target)
    elif kind == "data":
        if ref.target not in scope.policy.data:
            raise EvaluationError(f"no data table {ref.target!r} in policy {scope.policy.name}")
        value = scope.policy.data[ref.target]
        if ref.select is not None:
            # Data tables never change: select once per dump; the same list object then lets in/notIn
            # reuse their member sets.
            table, path = value, ref.select
            value = scope.index.memo(("data-select", id(table), path.text), lambda: path.values(table))
    elif kind == "format":
        value = substitute(ref.target, scope, {})
    elif kind in ("sum", "product"):
        value = _arithmetic(kind, [resolve(r, scope) for r in ref.target])
    else:  # pragma: no cover - compile_ref produces only the kinds above
        raise EvaluationError(f"unknown reference kind {kind}")
    if ref.key is not None and kind != "keys":
        # key: [a, {var: b}] looks up one level per element
        steps = [resolve(k, scope) for k in ref.key.target] if ref.key.kind == "keypath" else [resolve(ref.key, scope)]
        if kind == "path" and ref.many:  # a path subject's key looks into each value it selects
            value = [v for v in (_lookup_steps(x, steps) for x in value) if v is not None]
        else:
            value = _lookup_steps(value, steps)
    elif ref.key is not None:
        key = resolve(ref.key, scope)
        value = [k for k in value if k == key]
    if ref.capture is not None:
        value = _capture(ref.capture, value)
    if ref.where is not None:
        value = _kept(ref.where, value, scope)
    if value is None or value == []:
        return ref.default if ref.default is not None else value
    return value


def _arithmetic(kind: str, operands: list[Any]) -> Fraction | None:
    """The sum or product of quantities (``rules.quantity``): None when an operand is missing (so that
    ``ifMissing`` and ``default`` apply). Raises ``EvaluationError`` for a value that is not a quantity."""
    if any(v is None or v == [] for v in operands):
        return None
    try:
        numbers = [parse_quantity(v) for v in operands]
    except QuantityError as exc:
        raise EvaluationError(f"{kind}: {exc}") from None
    total = numbers[0]
    for n in numbers[1:]:
        total = total + n if kind == "sum" else total * n
    return total


def _capture(pattern: re.Pattern[str], value: Any) -> Any:
    """The first group of ``pattern``'s match on a string (None when it does not match, or for a value that
    is not a string); on a list, the groups of the items that match."""
    if isinstance(value, list):
        found = (pattern.search(v) if isinstance(v, str) else None for v in value)
        return [m.group(1) for m in found if m is not None]
    m = pattern.search(value) if isinstance(value, str) else None
    return m.group(1) if m is not None else None


def _kept(condition: Assertion, value: Any, scope: Scope) -> Any:
    """The items of a list for which ``condition`` passes (``$`` and ``{var: item}`` being the item), as a
    subject's ``where`` keeps values; a single value is kept whole or becomes None."""

    def keep(v: Any) -> bool:
        return check(condition, scope.child(v, {"item": v})).state == "pass"

    if isinstance(value, list):
        return [v for v in value if keep(v)]
    return value if value is not None and keep(value) else None


def _lookup_steps(value: Any, steps: list[Any]) -> Any:
    for step in steps:
        value = _lookup(value, step)
    return value


def _lookup(container: Any, key: Any) -> Any:
    if isinstance(container, dict):
        if key in container:
            return container[key]
        return container.get(str(key)) if not isinstance(key, (dict, list)) else None
    if isinstance(container, list) and isinstance(key, int) and not isinstance(key, bool):
        return container[key] if -len(container) <= key < len(container) else None
    return None


def subject_values(a: Assertion, scope: Scope) -> list[Any]:
    """The values an assertion tests: resolved, transformed, filtered (``where`` sees each value before it
    is classified, so it can look the raw value up, e.g. a resource name's quantity), classified and
    de-duplicated."""
    if a.subject is None:
        return []
    raw = resolve(a.subject, scope)
    if a.subject.many or isinstance(raw, list):
        values = list(raw) if isinstance(raw, list) else [raw]
    else:
        values = [] if raw is None else [raw]
    for t in a.transforms:
        values = [_transform(t, v) for v in values]
    if a.where is not None:
        values = [v for v in values if check(a.where, scope.child(v, {"item": v})).state == "pass"]
    if a.classify is not None:
        table = resolve(a.classify, scope)
        if not isinstance(table, dict):
            raise EvaluationError(f"classify needs a mapping of name to regular expressions, got {show(table)}")
        values = [c for c in (_classify(v, table) for v in values) if c is not None]
    if a.unique:
        seen: list[Any] = []
        for v in values:
            if v not in seen:
                seen.append(v)
        values = seen
    return values


def _transform(name: str, value: Any) -> Any:
    if name == "string":
        return show(value)
    if not isinstance(value, str):
        return value
    return {"lowercase": value.lower, "uppercase": value.upper, "trim": value.strip}[name]()


def _classify(value: Any, table: dict[str, Any]) -> Any:
    if not isinstance(value, str):
        return None
    for name, patterns in table.items():
        for p in patterns if isinstance(patterns, list) else [patterns]:
            if re.search(str(p), value):
                return name
    return None


def _one(values: list[Any]) -> Any:
    return values[0] if len(values) == 1 else values


def check(a: Assertion, scope: Scope) -> Outcome:
    """Evaluate an assertion tree. Raises ``EvaluationError`` when it cannot be evaluated."""
    op = a.op
    if op == "all":
        skipped = None
        for child in a.children:
            out = check(child, scope)
            if out.state == "fail":
                return _with_message(out, a.message)
            if out.state == "skip" and skipped is None:
                skipped = out  # a later failure still counts: a skip must not hide it
        return skipped or Outcome("pass", message=a.message)
    if op == "any":
        fails = []
        error: EvaluationError | None = None
        for child in a.children:
            try:
                out = check(child, scope)
            except EvaluationError as exc:
                error = error or exc  # another branch may still hold
                continue
            if out.state == "pass":
                return out
            fails.append(out)
        if error is not None and not any(f.state == "fail" for f in fails):
            raise error
        if all(f.state == "skip" for f in fails):
            return fails[0]
        first = next(f for f in fails if f.state == "fail")
        return Outcome(
            "fail",
            first.path,
            first.observed,
            " or ".join(f.expected for f in fails if f.expected),
            first.detail,
            a.message or first.message,
            first.bindings,
        )
    if op == "not":
        out = check(a.children[0], scope)
        if out.state == "skip":
            return out
        if out.state == "pass":
            return Outcome(
                "fail",
                out.path,
                out.observed,
                f"not ({out.expected or a.children[0].op})",
                out.detail,
                a.message or a.description,
            )
        return Outcome("pass", out.path, out.observed, message=a.message)
    if op == "forEach":
        return _for_each(a, scope)
    operator = operators.OPERATORS[op]
    if operator.scope == "object":
        state, detail, observed = operator.test(scope, a.argument)
        return Outcome(state, "$", observed, operator.describe(a.argument), detail, a.message)
    values = subject_values(a, scope)
    arg = resolve(a.argument, scope) if operator.resolve else a.argument
    path = a.subject.label if a.subject else ""
    expected = _expected(operator, a, arg)
    try:
        if operator.scope == "set":
            ok = operator.test(values, arg)
        elif not values:
            ok = a.if_missing == "pass"
            expected = f"{expected} (nothing selected)" if not ok else expected
        else:
            hits = [operator.test(v, arg) for v in values]
            ok = all(hits) if a.quantifier == "all" else any(hits) if a.quantifier == "any" else not any(hits)
            if len(values) > 1 or a.quantifier != "all":
                expected = f"{_QUANTIFIER_WORDS[a.quantifier]} {expected}"
    except OperatorError as exc:
        raise EvaluationError(f"{path}: {exc}") from None
    return Outcome("pass" if ok else "fail", path, _one(values), expected, "", a.message)


_EXPECTED: IdentityMemo[str] = IdentityMemo(16384)


def _expected(operator: operators.Operator, a: Assertion, arg: Any) -> str:
    """``operator.describe(arg)``, computed once per (assertion, argument object): constants, data tables
    and per-dump contexts are the same object for every object judged."""
    if not isinstance(arg, (list, dict, tuple)) and not (
        not operator.resolve or (isinstance(a.argument, Ref) and a.argument.kind == "literal")
    ):
        return operator.describe(arg)  # a scalar resolved per object: cheap to describe
    return _EXPECTED.get(lambda: operator.describe(arg), a, arg)


def _with_message(out: Outcome, message: str) -> Outcome:
    if out.message or not message:
        return out
    return Outcome(out.state, out.path, out.observed, out.expected, out.detail, message, out.bindings)


def _for_each(a: Assertion, scope: Scope) -> Outcome:
    items = subject_values(a, scope)
    path = a.subject.text() if a.subject else ""
    if not items:
        return Outcome("pass" if a.if_missing == "pass" else "fail", path, [], "at least one item")
    first_fail: Outcome | None = None
    skipped: Outcome | None = None
    judged = 0
    for i, item in enumerate(items):
        bindings = {a.each_as: item, "index": i}
        out = check(a.children[0], scope.child(item, bindings))
        if out.state == "skip":
            skipped = skipped or out
            continue
        judged += 1
        merged = {**bindings, **out.bindings}
        here = Outcome(
            out.state,
            f"{path}[{i}]" + (f" {out.path}" if out.path else ""),
            out.observed,
            out.expected,
            out.detail,
            out.message or a.message,
            merged,
        )
        # Stop at the first item that decides: a failure for all, a pass for any and none.
        if a.quantifier == "all" and here.state == "fail":
            return here
        if a.quantifier == "any" and here.state == "pass":
            return Outcome("pass", path)
        if a.quantifier == "none" and here.state == "pass":
            return Outcome(
                "fail", here.path, here.observed, f"no item where {here.expected}", here.detail, a.message, here.bindings
            )
        if first_fail is None and here.state == "fail":
            first_fail = here
    if judged == 0 and skipped is not None:
        return skipped  # every item was out of scope: nothing was judged
    if a.quantifier == "any" and first_fail is not None:
        return first_fail
    return Outcome("pass", path)


# ------------------------------------------------------------------------------------------ rules


def _matches(rule: Rule, obj: KObject) -> bool:
    args = (obj.kind, obj.api_version, obj.namespace, obj.name, obj.labels)
    if not rule.match.matches(*args):
        return False
    return rule.exclude is None or not rule.exclude.matches(*args)


def evaluate_rule(
    rule: Rule,
    policy: Policy,
    obj: KObject,
    index: Index,
    policy_scope: Scope | None = None,
) -> Result:
    """The result of one rule on one object; never raises."""

    def result(
        word: str, message: str, out: Outcome | None = None, extra: dict[str, Any] | None = None, assumed: tuple[str, ...] = ()
    ) -> Result:
        return Result(
            rule.policy,
            rule.id,
            rule.title,
            word,
            rule.severity,
            rule.category,
            clip(message, MAX_MESSAGE_CHARS),
            out.path if out else "",
            clip_value(out.observed) if out else None,
            clip_value(out.expected) if out else None,
            substitute(rule.remediation, scope, extra or {}) if word in ("fail", "warn") and rule.remediation else "",
            rule.references,
            assumptions=assumed,
        )

    base = policy_scope or Scope(obj, index, policy, policy.vars)
    scope = Scope(obj, index, policy, rule.vars, parent=base) if rule.vars else base
    try:
        for pre in rule.preconditions:
            out = check(pre, scope)
            if out.state != "pass":
                # A precondition that does not apply (an object operator's skip) says why itself; the description
                # says why it fails.
                told = out.detail if out.state == "skip" else ""
                why = told or pre.description or out.detail or f"{out.path} is {show(out.observed)}, not {out.expected}"
                return result("skip", f"precondition not met: {why}", out)
        out = check(rule.assertion, scope)
        extra = {
            "observed": out.observed,
            "expected": out.expected,
            "path": out.path,
            "detail": out.detail,
            "policy": rule.policy,
            "rule": rule.id,
            "severity": rule.severity,
            **out.bindings,
        }
        if out.state == "skip":
            return result("skip", out.detail or "not applicable", out)
        word = "pass" if out.state == "pass" else rule.on_failure
        message = substitute(rule.pass_message if out.state == "pass" else (out.message or rule.message), scope, extra)
        assumed: list[str] = []
        for assumption in rule.assumes:
            if check(assumption.when, scope).state == "pass":
                message = f"{message.rstrip()} {substitute(assumption.message, scope, extra).strip()}"
                assumed.append(assumption.note)
                if word != "pass" and assumption.on_failure:
                    word = assumption.on_failure
        return result(word, message, out, extra if word != "pass" else None, tuple(assumed))
    except (EvaluationError, OperatorError) as exc:
        return result("error", f"could not evaluate: {exc}")
    except Exception as exc:  # a bug in an operator must not end the run: report it on this result
        return result("error", f"could not evaluate: internal error {type(exc).__name__}: {exc}")


def _assumption_notes(objects: list[ObjectReport]) -> list[str]:
    """One note per assumption the dump's verdicts rest on, with how many results and which rules."""
    used: dict[str, dict[str, int]] = {}
    for obj in objects:
        for r in obj.results:
            for note in r.assumptions:
                rules = used.setdefault(note, {})
                rules[f"{r.policy}/{r.rule}"] = rules.get(f"{r.policy}/{r.rule}", 0) + 1
    out = []
    for note, rules in used.items():
        n = sum(rules.values())
        out.append(f"assumed: {note.rstrip('.')} ({n} result{'s' if n != 1 else ''} of {', '.join(sorted(rules))})")
    return out


#: Skip reasons noted one by one (most results first); the others are counted in one more note.
MAX_SKIP_NOTES = 10
#: Rules named in one skip note; the others are counted.
SKIP_NOTE_RULES = 4
_PRECONDITION = "precondition not met: "


def _skip_notes(objects: list[ObjectReport]) -> list[str]:
    """One note per skip reason shared by the dump's skipped results, most results first: ``skipped: <reason>
    (N results of policy/rule, ...)``, so a reader sees once why most rules did not run (e.g. every node rule
    that needs a ClusterPolicy). Reasons are the results' own messages (without ``precondition not met:``),
    grouped when identical; skips an exemption made are left out (the exemption notes say them). At most
    ``MAX_SKIP_NOTES`` reasons are named, then one note counts the rest; a note names at most ``SKIP_NOTE_RULES``
    rules and counts the others."""
    reasons: dict[str, dict[str, int]] = {}
    for obj in objects:
        for r in obj.results:
            if r.result != "skip" or r.exemption is not None:
                continue
            reason = r.message.removeprefix(_PRECONDITION).strip() or "not applicable"
            rules = reasons.setdefault(reason, {})
            uid = f"{r.policy}/{r.rule}"
            rules[uid] = rules.get(uid, 0) + 1
    ranked = sorted(reasons.items(), key=lambda item: -sum(item[1].values()))  # stable: ties keep first-seen order
    out = []
    for reason, rules in ranked[:MAX_SKIP_NOTES]:
        n = sum(rules.values())
        names = sorted(rules)
        shown = ", ".join(names[:SKIP_NOTE_RULES]) + (
            f" and {len(names) - SKIP_NOTE_RULES} more rules" if len(names) > SKIP_NOTE_RULES else ""
        )
        out.append(f"skipped: {reason.rstrip('.')} ({n} result{'s' if n != 1 else ''} of {shown})")
    rest = ranked[MAX_SKIP_NOTES:]
    if rest:
        n = sum(sum(rules.values()) for _, rules in rest)
        out.append(
            f"skipped for {len(rest)} other reason{'s' if len(rest) != 1 else ''}: {n} result{'s' if n != 1 else ''}"
            " (the skip results say each reason)"
        )
    return out


#: A result's message is cut past this many characters, a string observed/expected value (or one in a list)
#: past MAX_VALUE_CHARS, with a marker that says how much was cut: a 5 MB label value must not make a 5 MB
#: message, nor a report format that cannot hold it.
MAX_MESSAGE_CHARS = limit("VERDICT_MAX_MESSAGE_CHARS")
MAX_VALUE_CHARS = limit("VERDICT_MAX_VALUE_CHARS")


def clip(text: str, limit: int) -> str:
    """``text``, or its first ``limit`` characters and ``… [N more characters]``."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit:,} more characters]"


def clip_value(value: Any) -> Any:
    """An observed/expected value with over-long strings clipped (top level and in lists and mappings); a number
    computed by sum/product is written as a quantity (``"1500m"``), as reports carry it."""
    if isinstance(value, Fraction):
        return format_quantity(value)
    if isinstance(value, str):
        return clip(value, MAX_VALUE_CHARS)
    if isinstance(value, list) and any(isinstance(v, str) and len(v) > MAX_VALUE_CHARS for v in value):
        return [clip(v, MAX_VALUE_CHARS) if isinstance(v, str) else v for v in value]
    if isinstance(value, dict) and any(isinstance(v, str) and len(v) > MAX_VALUE_CHARS for v in value.values()):
        return {k: clip(v, MAX_VALUE_CHARS) if isinstance(v, str) else v for k, v in value.items()}
    return value


#: Notes about objects that stand twice in a dump, at most this many per kind (then a count of the rest).
MAX_CONFLICT_NOTES_PER_KIND = limit("VERDICT_MAX_CONFLICT_NOTES")


def _conflict_notes(index: Index) -> list[str]:
    """One note per object that stands twice in the dump with different content, at most
    ``MAX_CONFLICT_NOTES_PER_KIND`` per kind and one line counting the rest."""
    notes: list[str] = []
    per_kind: dict[str, int] = {}
    for a, b in index.conflicts:
        seen = per_kind[b.kind] = per_kind.get(b.kind, 0) + 1
        if seen <= MAX_CONFLICT_NOTES_PER_KIND:
            notes.append(
                f"{b.kind} {b.namespace + '/' if b.namespace else ''}{b.name} is in the dump twice and the two differ"
                f" ({a.source} and {b.source}): rules that read it from other objects may use either;"
                " audit one cluster at a time"
            )
    for kind, seen in per_kind.items():
        if seen > MAX_CONFLICT_NOTES_PER_KIND:
            rest = seen - MAX_CONFLICT_NOTES_PER_KIND
            notes.append(f"and {rest:,} more {kind} object{'s' if rest != 1 else ''} in the dump twice with different content")
    return notes


def evaluate(
    dump: Dump,
    policies: PolicySet,
    name: str = "",
    exemptions: ExemptionSet | None = None,
    budget: float | None = None,
    selection: Selection | None = None,
    progress: Progress | None = None,
) -> Report:
    """Index the dump and evaluate every rule on every object it matches; returns the report.

    With ``selection``, only the objects it selects are judged; the index (contexts, the scheduler model)
    still holds the whole dump, so a kept object's verdict is the one it has without the selection. The
    summary says the selection and how many objects it kept. ``progress`` hears how many objects are done.

    ``exemptions`` (from exemptions files) and the ``verdict.dev/exempt`` annotations of the dump turn
    exempted ``fail``/``warn`` results into ``skip``; a malformed annotation is an input error, and the
    exemptions used or expired are in ``notes``. With ``budget`` (seconds), raises ``EvaluationTimeout`` once
    evaluating takes longer (checked between objects), so a worker is never held past it.
    """
    now = datetime.now(UTC)
    exempter = Exempter(exemptions or ExemptionSet(), now)
    t0 = time.perf_counter()
    index = Index(dump.objects)
    t1 = time.perf_counter()
    by_kind: dict[str, list[tuple[Policy, Rule]]] = defaultdict(list)
    for policy in policies.policies:
        for rule in policy.rules:
            for kind in rule.match.kinds:
                by_kind[kind].append((policy, rule))
    objects = []
    deadline = t0 + budget if budget else None
    progress = progress or Progress()
    total, rules, selected = len(dump.objects), len(policies.rules), 0
    progress.evaluating(0, total, rules)
    for n, obj in enumerate(dump.objects):
        if n % 64 == 0:
            if deadline is not None and time.perf_counter() > deadline:
                raise EvaluationTimeout(budget or 0, n, total)
            if n % 1024 == 0:
                progress.evaluating(n, total, rules)
        if selection is not None:
            if not selection.matches(obj):
                continue
            selected += 1
        candidates = by_kind.get(obj.kind, []) + by_kind.get("*", [])
        if not candidates:
            continue
        results = []
        scopes: dict[str, Scope] = {}
        for policy, rule in candidates:
            if not _matches(rule, obj):
                continue
            if policy.name not in scopes:
                scopes[policy.name] = Scope(obj, index, policy, policy.vars)
            results.append(evaluate_rule(rule, policy, obj, index, scopes[policy.name]))
        if results:
            meta = obj.metadata
            ref = ObjectRef(obj.api_version, obj.kind, obj.name, obj.namespace, str(meta.get("uid", "") or ""))
            objects.append(ObjectReport(ref, obj.source, tuple(exempter.apply(obj, results))))
    progress.evaluating(total, total, rules)
    t2 = time.perf_counter()
    return Report(
        objects=objects,
        input_errors=[*dump.errors, *exempter.errors],
        policies=[{"name": p.name, "version": p.version, "pack": p.pack, "rules": len(p.rules)} for p in policies.policies],
        files_read=list(dump.files_read),
        files_skipped=list(dump.files_skipped),
        notes=[
            *dump.notes,
            *_assumption_notes(objects),
            *_skip_notes(objects),
            *_conflict_notes(index),
            *exempter.notes((r.policy, r.id) for p in policies.policies for r in p.rules),
        ],
        timing={"indexMs": round((t1 - t0) * 1000, 3), "evaluateMs": round((t2 - t1) * 1000, 3)},
        objects_read=len(dump.objects),
        name=name,
        generated=now.strftime("%Y-%m-%dT%H:%M:%SZ"),
        rules=[
            {
                "id": r.uid,
                "policy": r.policy,
                "rule": r.id,
                "title": r.title,
                "description": r.description,
                "severity": r.severity,
                "category": r.category,
                "references": list(r.references),
                "onFailure": r.on_failure,
            }
            for r in policies.rules
        ],
        selection=None if selection is None else {**selection.to_dict(), "objectsSelected": selected},
    )
