"""What an assertion sees while it is evaluated (``Scope``) and what it finds (``Outcome``).

Both are built for every object, rule and assertion node, hundreds of thousands of times for a large
dump: they are plain ``__slots__`` classes rather than frozen dataclasses (whose ``__init__`` sets each
field through ``object.__setattr__``), and an ``Outcome`` renders its ``expected`` text only when it is
read (most outcomes are intermediate: an ``all`` child that passed, an ``any`` branch that failed while
another held), never for the ones thrown away.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from .errors import EvaluationError, UnknownName
from .model import OBJECT_BUILTINS
from .reader import KObject

if TYPE_CHECKING:
    from .compiled import PolicyPlan
    from .index import Index

MISSING = object()
#: The bindings of an outcome that binds nothing (read-only: shared by every such outcome).
NO_BINDINGS: Mapping[str, Any] = MappingProxyType({})


class Outcome:
    """What an assertion found: ``state`` pass|fail|skip, the ``path`` it read, ``observed`` values,
    ``expected`` text (given as a string, or as a function that renders it when first read), ``detail``
    (e.g. the scheduler's explanation), an assertion-level ``message`` template, and ``bindings``
    (forEach items) for message substitution, and ``more`` failing items (forEach ``report: all``). Not mutated
    once built (only ``expected`` is rendered in
    place), so an outcome that depends on nothing per object is built once and shared."""

    __slots__ = ("state", "path", "observed", "_expected", "detail", "message", "bindings", "shared", "more")

    def __init__(
        self,
        state: str,
        path: str = "",
        observed: Any = None,
        expected: str | Callable[[], str] = "",
        detail: str = "",
        message: str = "",
        bindings: Mapping[str, Any] = NO_BINDINGS,
    ) -> None:
        self.state = state
        self.path = path
        self.observed = observed
        self._expected = expected
        self.detail = detail
        self.message = message
        self.bindings = bindings
        #: True once several objects may share it (``rules.inputs``): so may the results built from it.
        self.shared = False
        #: The other failing items of a forEach with ``report: all``, each an outcome of its own.
        self.more: tuple[Outcome, ...] = ()

    @property
    def expected(self) -> str:
        """The expected text (rendered now if it was given as a function)."""
        expected = self._expected
        if not isinstance(expected, str):
            expected = self._expected = expected()
        return expected

    def __repr__(self) -> str:
        return f"Outcome({self.state!r}, {self.path!r}, {self.observed!r}, {self.expected!r})"


class Scope:
    """What an assertion can see: the object, the current ``$`` (the object, or a forEach/where item), vars
    (``specs``: compiled, computed lazily once per object and policy, then kept in ``values``), the
    policy's compiled ``plan`` (data, contexts) and the dump's index."""

    __slots__ = ("obj", "root", "index", "plan", "specs", "values", "parent", "_computing")

    def __init__(
        self,
        obj: KObject,
        index: Index,
        plan: PolicyPlan,
        specs: Mapping[str, Callable[[Scope], Any]],
        root: Any = MISSING,
        parent: Scope | None = None,
        values: dict[str, Any] | None = None,
    ) -> None:
        self.obj = obj
        self.root = obj.obj if root is MISSING else root
        self.index = index
        self.plan = plan
        self.specs = specs
        self.values: dict[str, Any] = values if values is not None else {}
        self.parent = parent
        self._computing: set[str] | None = None

    def child(self, root: Any, bindings: dict[str, Any]) -> Scope:
        """A scope whose ``$`` is ``root`` with extra var bindings; other vars come from this scope."""
        return Scope(self.obj, self.index, self.plan, NO_BINDINGS, root, self, bindings)

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
            values = scope.values
            if name in values:
                return values[name]
            spec = scope.specs.get(name)
            if spec is not None:
                return scope._computed(name, spec)
            scope = scope.parent
        attr = OBJECT_BUILTINS.get(name)
        if attr is not None:
            return getattr(self.obj, attr)
        if name in self.plan.policy.contexts:
            return self.context(name)
        raise UnknownName(f"unknown var {name!r}")

    def _computed(self, name: str, spec: Callable[[Scope], Any]) -> Any:
        """This scope's var ``name``, computed on first use and kept."""
        computing = self._computing
        if computing is None:
            computing = self._computing = set()
        elif name in computing:
            raise EvaluationError(f"var {name!r} depends on itself")
        computing.add(name)
        try:
            value = self._compute(name, spec)
        finally:
            computing.discard(name)
        self.values[name] = value
        return value

    def _compute(self, name: str, spec: Callable[[Scope], Any]) -> Any:
        """Compute var ``name`` (``spec`` compiled) in this scope; ``var`` keeps the value."""
        return spec(self)

    def context(self, name: str) -> Any:
        """The value of the policy's context ``name`` (``rules.model.Context``; see ``rules.joins``).

        Raises ``rules.errors.EvaluationError`` when the policy has no such context or ``where.equals`` cannot
        be resolved.
        """
        return self.plan.context(name, self)
