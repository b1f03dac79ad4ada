"""Taints, tolerations and node selector terms: the per-node matching rules of kube-scheduler.

Sources (kubernetes/kubernetes):
- ``staging/src/k8s.io/api/core/v1/toleration.go``: ``Toleration.ToleratesTaint``;
- ``staging/src/k8s.io/component-helpers/scheduling/corev1/helpers.go`` and ``.../nodeaffinity/
  nodeaffinity.go``: ``FindMatchingUntoleratedTaint``, ``NodeSelector``/``nodeSelectorTerm`` (terms
  ORed, requirements ANDed, an empty term or a term with a parse error matches nothing);
- ``staging/src/k8s.io/apimachinery/pkg/labels/selector.go``: ``Requirement.Matches`` and
  ``NewRequirement`` (In/NotIn need values, Exists/DoesNotExist none, Gt/Lt exactly one integer).

``ClusterModel`` evaluates the same rules over indexes of all nodes at once; the functions here are
the definition, used for single nodes and by the tests as the reference.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

NO_SCHEDULE = "NoSchedule"
NO_EXECUTE = "NoExecute"
UNSCHEDULABLE_TAINT_KEY = "node.kubernetes.io/unschedulable"
NODE_NAME_FIELD = "metadata.name"

_INT64 = re.compile(r"^[+-]?[0-9]+$")
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def get_in(obj: Any, *path: str) -> Any:
    """The value at ``path`` (mapping keys) below ``obj``, or None when a step is not a mapping."""
    for key in path:
        # a parsed dump holds plain dicts: tested first, the ABC's isinstance costs ten times more
        if type(obj) is not dict and not isinstance(obj, Mapping):
            return None
        obj = obj.get(key)
    return obj


def text(value: Any) -> str:
    """A label, taint or toleration value as the string the API would hold (None -> "")."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def mapping(value: Any) -> Mapping[str, Any]:
    """``value`` when it is a mapping, else an empty one (malformed input reads as absent)."""
    return value if type(value) is dict or isinstance(value, Mapping) else {}


def items(value: Any) -> list[Any]:
    """``value`` when it is a list, else an empty one (malformed input reads as absent)."""
    return value if isinstance(value, list) else []


def parse_int64(value: str) -> int | None:
    """Go ``strconv.ParseInt(value, 10, 64)``: the integer, or None when it does not parse."""
    if not _INT64.match(value):
        return None
    number = int(value)
    return number if _INT64_MIN <= number <= _INT64_MAX else None


@dataclass(frozen=True, slots=True)
class Taint:
    """A node taint; only ``NoSchedule`` and ``NoExecute`` ones are kept for filtering."""

    key: str
    value: str
    effect: str

    def reason(self) -> str:
        """TaintToleration's Filter reason, ``fmt.Sprintf("node(s) had untolerated taint {%s: %s}")``."""
        return f"node(s) had untolerated taint {{{self.key}: {self.value}}}"


@dataclass(frozen=True, slots=True)
class Toleration:
    """A pod toleration with the API's defaults applied (operator "" means Equal)."""

    key: str
    operator: str
    value: str
    effect: str

    @classmethod
    def of(cls, raw: Mapping[str, Any]) -> Toleration:
        """A toleration from its API mapping; a missing or null field reads as ""."""
        return cls(text(raw.get("key")), text(raw.get("operator")), text(raw.get("value")), text(raw.get("effect")))

    def tolerates(self, taint: Taint) -> bool:
        """``Toleration.ToleratesTaint``: empty effect matches every effect, empty key every key."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if self.operator in ("", "Equal"):
            return self.value == taint.value
        if self.operator == "Exists":
            return True
        if self.operator in ("Lt", "Gt"):
            wanted, actual = parse_int64(self.value), parse_int64(taint.value)
            if wanted is None or actual is None:
                return False
            return actual < wanted if self.operator == "Lt" else actual > wanted
        return False


def tolerations_of(raw: Any) -> tuple[Toleration, ...]:
    """A pod's ``spec.tolerations`` as ``Toleration`` values; a non-list reads as none and non-mapping
    items are ignored."""
    return tuple(Toleration.of(t) for t in items(raw) if isinstance(t, Mapping))


def filter_taints(raw: Any) -> tuple[Taint, ...]:
    """A node's taints that TaintToleration's Filter looks at (``DoNotScheduleTaintsFilterFunc``)."""
    out = []
    for t in items(raw):
        if isinstance(t, Mapping) and t.get("effect") in (NO_SCHEDULE, NO_EXECUTE):
            out.append(Taint(text(t.get("key")), text(t.get("value")), text(t.get("effect"))))
    return tuple(out)


def first_untolerated(taints: Sequence[Taint], tolerations: Sequence[Toleration]) -> Taint | None:
    """``FindMatchingUntoleratedTaint``: the first taint (node order) no toleration tolerates."""
    for taint in taints:
        if not any(t.tolerates(taint) for t in tolerations):
            return taint
    return None


def tolerates_unschedulable(tolerations: Sequence[Toleration]) -> bool:
    """NodeUnschedulable: a pod tolerating ``node.kubernetes.io/unschedulable:NoSchedule`` ignores
    ``spec.unschedulable``."""
    taint = Taint(UNSCHEDULABLE_TAINT_KEY, "", NO_SCHEDULE)
    return any(t.tolerates(taint) for t in tolerations)


@dataclass(frozen=True, slots=True)
class Requirement:
    """One label requirement (``matchExpressions`` item) or field requirement (``matchFields`` item).

    ``values`` holds the strings; ``number`` the parsed integer for Gt/Lt.
    """

    key: str
    operator: str
    values: frozenset[str]
    number: int = 0

    def matches_labels(self, labels: Mapping[str, str]) -> bool:
        """``labels.Requirement.Matches``."""
        present = self.key in labels
        op = self.operator
        if op == "In":
            return present and labels[self.key] in self.values
        if op == "NotIn":
            return not present or labels[self.key] not in self.values
        if op == "Exists":
            return present
        if op == "DoesNotExist":
            return not present
        if not present:
            return False
        actual = parse_int64(labels[self.key])
        if actual is None:
            return False
        return actual > self.number if op == "Gt" else actual < self.number

    def matches_name(self, node_name: str) -> bool:
        """A ``matchFields`` requirement; the only node field is ``metadata.name``."""
        actual = node_name if self.key == NODE_NAME_FIELD else ""
        (value,) = self.values
        return actual == value if self.operator == "In" else actual != value


@dataclass(frozen=True, slots=True)
class Term:
    """A parsed ``nodeSelectorTerm``: all requirements must hold."""

    labels: tuple[Requirement, ...]
    fields: tuple[Requirement, ...]

    def matches(self, labels: Mapping[str, str], node_name: str) -> bool:
        """``nodeSelectorTerm`` matching (``nodeaffinity.go``): every label requirement holds for the node's
        ``labels`` and every field requirement for ``node_name``."""
        return all(r.matches_labels(labels) for r in self.labels) and all(r.matches_name(node_name) for r in self.fields)


def _label_requirement(raw: Mapping[str, Any]) -> Requirement | None:
    op = text(raw.get("operator"))
    values = [text(v) for v in items(raw.get("values"))]
    key = text(raw.get("key"))
    if op in ("In", "NotIn"):
        return Requirement(key, op, frozenset(values)) if values else None
    if op in ("Exists", "DoesNotExist"):
        return None if values else Requirement(key, op, frozenset())
    if op in ("Gt", "Lt") and len(values) == 1:
        number = parse_int64(values[0])
        return None if number is None else Requirement(key, op, frozenset(values), number)
    return None


def _field_requirement(raw: Mapping[str, Any]) -> Requirement | None:
    op = text(raw.get("operator"))
    values = [text(v) for v in items(raw.get("values"))]
    if op in ("In", "NotIn") and len(values) == 1:
        return Requirement(text(raw.get("key")), op, frozenset(values))
    return None


def expression_requirements(selector: Mapping[str, Any]) -> list[Requirement] | None:
    """The ``matchExpressions`` of a metav1 ``LabelSelector`` as requirements; None where one does not parse (not a
    mapping, or an operator a label selector does not have), which selects nothing."""
    out: list[Requirement] = []
    for expr in items(selector.get("matchExpressions")):
        if not isinstance(expr, Mapping):
            return None
        operator = text(expr.get("operator"))
        if operator not in ("In", "NotIn", "Exists", "DoesNotExist"):
            return None
        out.append(Requirement(text(expr.get("key")), operator, frozenset(text(v) for v in items(expr.get("values")))))
    return out


def selector_matches(selector: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """Whether a metav1 ``LabelSelector`` (matchLabels, matchExpressions) selects ``labels``; an empty one selects
    everything, one that does not parse nothing."""
    requirements = expression_requirements(selector)
    if requirements is None:
        return False
    if any(labels.get(str(key)) != text(value) for key, value in mapping(selector.get("matchLabels")).items()):
        return False
    return all(r.matches_labels(labels) for r in requirements)


def compile_terms(raw_terms: Any) -> tuple[Term, ...]:
    """Parse ``nodeSelectorTerms``. Empty terms and terms with a parse error are dropped: they match
    nothing (upstream ignores the parse error, ``LazyErrorNodeSelector``)."""
    out = []
    for raw in items(raw_terms):
        if not isinstance(raw, Mapping):
            continue
        exprs = items(raw.get("matchExpressions"))
        fields = items(raw.get("matchFields"))
        if not exprs and not fields:
            continue
        labels = [_label_requirement(e) if isinstance(e, Mapping) else None for e in exprs]
        names = [_field_requirement(f) if isinstance(f, Mapping) else None for f in fields]
        if any(r is None for r in labels) or any(r is None for r in names):
            continue
        out.append(Term(tuple(r for r in labels if r), tuple(r for r in names if r)))
    return tuple(out)


def node_selector_of(spec: Mapping[str, Any]) -> tuple[tuple[str, str], ...] | None:
    """A pod spec's ``nodeSelector`` as sorted (key, value) text pairs; None when it has none."""
    selector = spec.get("nodeSelector")
    return tuple(sorted((str(k), text(v)) for k, v in selector.items())) if isinstance(selector, Mapping) and selector else None


def required_terms_of(spec: Mapping[str, Any]) -> list[Mapping[str, Any]] | None:
    """A pod spec's required node affinity terms as written (``nodeSelectorTerms``, mappings only); None when it
    requires no node affinity (an empty list, when it does: it matches no node)."""
    required = mapping(mapping(spec.get("affinity")).get("nodeAffinity")).get("requiredDuringSchedulingIgnoredDuringExecution")
    if not isinstance(required, Mapping):
        return None
    return [t for t in items(required.get("nodeSelectorTerms")) if isinstance(t, Mapping)]


def prefilter_node_names(raw_terms: Sequence[Mapping[str, Any]]) -> set[str] | None:
    """NodeAffinity's PreFilter: when every term pins ``metadata.name`` with ``In``, the union over
    terms of the intersection of those names; None means all nodes. An empty set is the
    "pod affinity terms conflict" case."""
    if not raw_terms:
        return None
    union: set[str] = set()
    for raw in raw_terms:
        names: set[str] | None = None
        for f in items(mapping(raw).get("matchFields")):
            if isinstance(f, Mapping) and f.get("key") == NODE_NAME_FIELD and f.get("operator") == "In":
                values = {text(v) for v in items(f.get("values"))}
                names = values if names is None else names & values
        if names is None:
            return None
        union |= names
    return union
