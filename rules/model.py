"""Compiled policies: plain frozen objects holding compiled JSONPath queries and regexes.

``compile_policy`` turns a document validated by ``rules.schema.PolicySchema`` into a ``Policy``;
evaluation (``rules.evaluate``) never parses a path. Compile errors raise ``CompileError`` with the field
path inside the document (``spec.rules[2].assert.path``) so the loader can give the line.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Any

from . import operators
from .errors import did_you_mean, nearest, quoted
from .jsonpath import JsonPath, PathError, compile_path, leading_names, string_map, typed_against_text
from .schedule.matching import parse_int64
from .schema import SUBJECT_KEYS, TRANSFORMS

#: A reference's keys: those of an assertion's subject (rules.schema), one list for both.
REF_KEYS = SUBJECT_KEYS
#: What a reference may add to its one reference key.
REF_EXTRAS = ("key", "all", "default", "select", "capture", "transform", "where", "join", "parse")
#: Arithmetic references: their value is a list of references, each a Kubernetes quantity.
ARITHMETIC = {"sum": "sum", "product": "product"}
#: The kinds of reference whose target is a tuple of references (a key path's steps, an arithmetic's operands, the two
#: times of an ``elapsed``, the number of seconds of a ``duration``): what reads them walks each.
COMPOSITE = ("keypath", "sum", "product", "elapsed", "duration")
#: ``{name}`` or ``{name.field.sub}`` in messages, remediations and format references (one grammar for
#: the load-time check and the substitution).
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)((?:\.[A-Za-z0-9_-]+)*)\}")


class CompileError(ValueError):
    """``where`` is a list of field names/indexes into the policy document; ``rule`` the rule id."""

    def __init__(self, where: list[str | int], reason: str, rule: str = "") -> None:
        self.where = where
        self.reason = reason
        self.rule = rule
        super().__init__(reason)


@dataclass(frozen=True, slots=True)
class Ref:
    """A value reference: ``kind`` is literal|path|keys|var|context|data|format|keypath|sum|product|elapsed|duration;
    ``target`` the literal, the compiled path, the name, the template, or the references a keypath steps through, a
    sum or product adds or multiplies, or an elapsed or duration reads; ``key`` an optional lookup into the result; ``many``
    keeps every value a path selects (else the first); ``default`` when nothing is found; ``at`` the field
    path of the name in the policy document (``spec.rules[0].assert.var``), for load-time name checks."""

    kind: str
    target: Any
    key: Ref | None = None
    many: bool = False
    default: Any = None
    select: JsonPath | None = None
    capture: re.Pattern[str] | None = None
    where: Assertion | None = None
    #: the separator that makes the value one string (its items written as messages write them), else None
    join: str | None = None
    #: "yaml": the value, a string of YAML or JSON (a ConfigMap's data), is read as the document it holds first
    parse: str | None = None
    #: the transforms of each value (after ``key`` and ``capture``, before ``where``), as a subject's ``transform``
    transforms: tuple[str, ...] = ()
    label: str = field(default="", compare=False, repr=False)
    at: tuple[str | int, ...] = field(default=(), compare=False, repr=False)

    def __post_init__(self) -> None:
        # Computed once at compile time: evaluation reads it for every result it builds.
        object.__setattr__(self, "label", self._describe())

    def text(self) -> str:
        """How the reference reads in messages (``$.status.allocatable``, ``data operands``...)."""
        return self.label

    def _describe(self) -> str:
        base = {
            "literal": lambda: operators.show(self.target),
            "path": lambda: str(self.target),
            "keys": lambda: f"keys of {self.target}",
            "format": lambda: repr(self.target),
            "keypath": lambda: "][".join(k.text() for k in self.target),
            "sum": lambda: " + ".join(k.text() for k in self.target),
            "product": lambda: " × ".join(k.text() for k in self.target),
            "elapsed": lambda: f"time from {self.target[0].text()} to {self.target[1].text()}",
            "duration": lambda: f"duration of {self.target[0].text()}",
        }.get(self.kind, lambda: f"{self.kind} {self.target}")()
        if self.parse is not None:
            base = f"{base} read as {self.parse.upper()}"
        if self.select is not None:
            base = f"{base} {self.select}"
        if self.key:
            base = f"{base}[{self.key.text()}]"
        if self.capture is not None:
            base = f"{base} ~ {self.capture.pattern}"
        if self.where is not None:
            base = f"{base} where {self.where.op}"
        return f"{base} joined by {self.join!r}" if self.join is not None else base


@dataclass(frozen=True, slots=True)
class Assertion:
    """One node of an assertion tree.

    ``op`` is an operator name, or ``all``/``any``/``not``/``forEach``. ``subject`` is where the values come
    from (None for object operators and combinators); ``argument`` the operator's argument (a ``Ref`` when
    it may be a reference); ``children`` the nested assertions; ``where`` a filter on values;
    ``transforms`` string transforms; ``classify`` a table of regexes mapping values to names.
    """

    op: str
    subject: Ref | None = None
    argument: Any = None
    children: tuple[Assertion, ...] = ()
    quantifier: str = "all"
    if_missing: str = "fail"
    where: Assertion | None = None
    transforms: tuple[str, ...] = ()
    classify: Ref | None = None
    unique: bool = False
    each_as: str = "item"
    description: str = ""
    message: str = ""
    #: forEach ``report: all``: a failure names every failing item, not only the first
    report_all: bool = False
    #: a precondition's ``supersededBy``: the rule that judges the objects instead where it does not hold (a rule for
    #: a dump that lacks what another reads); a rule not applied for it gets no note
    superseded_by: str = ""


@dataclass(frozen=True, slots=True)
class Selector:
    """Kubernetes label selector, compiled: ``labels`` (matchLabels) and ``expressions``
    ``(key, operator, frozenset(values))``; semantics of metav1.LabelSelectorAsSelector, plus ``Gt``/``Lt``
    of the text form (``rules.selector``)."""

    labels: tuple[tuple[str, str], ...] = ()
    expressions: tuple[tuple[str, str, frozenset[str]], ...] = ()

    def matches(self, labels: dict[str, Any]) -> bool:
        """True when every matchLabels pair and every expression holds for ``labels``."""
        for key, value in self.labels:
            if key not in labels or str(labels[key]) != value:
                return False
        for key, op, values in self.expressions:
            present = key in labels
            if op == "In" and not (present and str(labels[key]) in values):
                return False
            if op == "NotIn" and present and str(labels[key]) in values:
                return False
            if op == "Exists" and not present:
                return False
            if op == "DoesNotExist" and present:
                return False
            if op in ("Gt", "Lt") and not _compares(labels.get(key), op, values):
                return False
        return True


def _compares(label: Any, op: str, values: frozenset[str]) -> bool:
    """``Gt``/``Lt`` of a label selector written as text (``rules.selector``; policies do not take them): the
    label's value as a whole number against the one value; False without the label or a number. Numbers are
    read as apimachinery's selector reads them (strconv.ParseInt, base 10, 64 bits): not Python's int(), which
    also takes "1_0", " 5" or "٥"."""
    have = None if label is None else parse_int64(str(label))
    want = parse_int64(next(iter(values))) if len(values) == 1 else None
    if have is None or want is None:
        return False
    return have > want if op == "Gt" else have < want


@dataclass(frozen=True, slots=True)
class Match:
    """Which objects a rule applies to (``kinds`` exact or ``*``; the other parts are globs)."""

    kinds: frozenset[str]
    api_versions: tuple[str, ...] = ()
    namespaces: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    selector: Selector | None = None

    def matches(self, kind: str, api_version: str, namespace: str, name: str, labels: dict[str, Any]) -> bool:
        """True when ``kind`` is in ``kinds`` (or ``kinds`` holds ``*``), ``api_version``, ``namespace`` and
        ``name`` each match one of their globs (``fnmatchcase``; no globs means any value), and ``selector``
        (when set) holds for ``labels``."""
        if "*" not in self.kinds and kind not in self.kinds:
            return False
        if self.api_versions and not any(fnmatchcase(api_version, g) for g in self.api_versions):
            return False
        if self.namespaces and not any(fnmatchcase(namespace, g) for g in self.namespaces):
            return False
        if self.names and not any(fnmatchcase(name, g) for g in self.names):
            return False
        return self.selector is None or self.selector.matches(labels)


@dataclass(frozen=True, slots=True)
class Var:
    """A derived value: the first alternative (``when`` holds and the value is not None) wins."""

    name: str
    alternatives: tuple[tuple[Ref, Assertion | None], ...]


@dataclass(frozen=True, slots=True)
class Context:
    """Values from other objects: objects of ``kind`` (``api_version`` glob), optionally only those whose
    ``where_field`` equals ``where_value`` (resolved on the current object; answered by the index) and
    in the same namespace; then ``path`` values (or the ``keys`` of the mappings it selects)."""

    name: str
    kind: str
    api_version: str = ""
    path: JsonPath | None = None
    keys: bool = False
    where_field: JsonPath | None = None
    where_value: Ref | None = None
    same_namespace: bool = False
    first: bool = False
    default: Any = None
    #: True for ``where: {field, notEquals}``: the objects whose field does not select the value.
    where_not: bool = False
    #: True for ``where: {keys: ...}``: the join is on the member names of the mappings the path selects.
    where_keys: bool = False
    #: ``where: {capture: <regex>}``: the join is on the group of its match on each string the field selects
    #: (a pod's ReplicaSet name without its pod-template-hash: the Deployment's name).
    where_capture: re.Pattern[str] | None = None
    #: ``prefer: {field, equals|notEquals: <literal>}``: where the dump holds an object of the kind whose field
    #: selects the literal (``notEquals``: does not), only those are read (before ``where``); else all of them (the
    #: ClusterPolicy the GPU Operator reconciles, not one it set to ``ignored``, unless every one of the dump is).
    prefer_field: JsonPath | None = None
    prefer_value: Any = None
    prefer_not: bool = False
    #: ``keysWhere``, with ``keys``: only the members whose value passes it (``$`` and ``{var: item}`` being the
    #: value): the resource names a node lists above 0, not one the kubelet keeps at 0 after its device plugin stopped.
    keys_where: Assertion | None = None

    @property
    def correlated(self) -> bool:
        """True when the value depends on the current object (so it cannot be cached per dump): a ``where``
        joined on a reference (a literal ``equals`` is the same for every object), or ``sameNamespace``."""
        joined = self.where_value is not None and self.where_value.kind != "literal"
        return joined or self.same_namespace


@dataclass(frozen=True, slots=True)
class Assumption:
    """What a rule takes as given while ``when`` holds (docs/policy-format.md, "Assumptions"): ``message`` is
    said in each result that rests on it, ``note`` once in the report; ``on_failure`` ("" = the rule's)."""

    name: str
    when: Assertion
    message: str
    note: str
    on_failure: str = ""


@dataclass(frozen=True, slots=True)
class Rule:
    """A compiled rule; ``uid`` is ``policy/rule``."""

    policy: str
    id: str
    title: str
    description: str
    severity: str
    category: str
    on_failure: str
    match: Match
    exclude: Match | None
    preconditions: tuple[Assertion, ...]
    vars: dict[str, Var]
    assertion: Assertion
    message: str
    pass_message: str
    remediation: str
    references: tuple[str, ...]
    example: Any = None
    line: int = 0
    assumes: tuple[Assumption, ...] = ()

    @property
    def uid(self) -> str:
        return f"{self.policy}/{self.id}"


@dataclass(frozen=True, slots=True)
class Policy:
    """A compiled policy: metadata, ``data`` tables, ``contexts``, policy-wide ``vars`` and ``rules``;
    ``file`` it came from, ``pack`` the folder name when loaded from a pack."""

    name: str
    version: str
    title: str
    description: str
    file: str
    data: dict[str, Any]
    contexts: dict[str, Context]
    vars: dict[str, Var]
    rules: tuple[Rule, ...]
    pack: str = ""
    data_files: tuple[str, ...] = field(default_factory=tuple)
    #: the line of its ``metadata.name`` in ``file`` (0 when not read from a file)
    line: int = 0


# ------------------------------------------------------------------------------------------ compile


#: The fields of every Kubernetes object's metadata (ObjectMeta:
#: https://kubernetes.io/docs/reference/kubernetes-api/common-definitions/object-meta/).
OBJECT_META = (
    "name",
    "generateName",
    "namespace",
    "selfLink",
    "uid",
    "resourceVersion",
    "generation",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "labels",
    "annotations",
    "ownerReferences",
    "finalizers",
    "managedFields",
    "clusterName",  # until Kubernetes 1.24: in dumps of older clusters
)


def _on_items(where: list[str | int]) -> bool:
    """Whether a path written at ``where`` reads an item rather than an object: inside a ``where`` (its ``$`` is each
    value) or a ``forEach``'s ``assert`` (each element), not a context's ``where`` (its field reads the other object)."""
    for i, step in enumerate(where):
        if step == "where" and i >= 2 and where[i - 2] == "context":
            continue  # a context's where: its field reads the other object, its equals this one (trial 167)
        if step == "where":
            return True
        if step == "forEach" and "assert" in where[i + 1 :]:
            return True
    return False


def _path(text: Any, where: list[str | int], on_objects: bool | None = None) -> JsonPath:
    """A compiled path; ``on_objects``: it reads Kubernetes objects (not a data table nor an item: by default, as
    ``where`` places it), whose metadata fields are known: ``$.metadata.label['x']`` (trial 165: loaded, and selected
    nothing on any object) is refused."""
    objects = not _on_items(where) if on_objects is None else on_objects
    try:
        path = compile_path(text, objects)
    except PathError as exc:
        raise CompileError(where, str(exc)) from None
    names = leading_names(path) if objects else []
    if names[:1] == ["metadata"] and len(names) > 1 and names[1] not in OBJECT_META:
        raise CompileError(
            where,
            f"JSONPath {quoted(path.text)} reads metadata.{names[1]}, which no Kubernetes object has (ObjectMeta's"
            " fields: name, namespace, labels, annotations, ownerReferences, uid, creationTimestamp...)"
            + did_you_mean(nearest(names[1], OBJECT_META)),
        )
    if names[:1] == ["items"]:
        raise CompileError(
            where,
            f"JSONPath {quoted(path.text)} reads items: a List's, but a rule judges each object of a List on its own,"
            " and its paths start at the object",
        )
    return path


def compile_ref(raw: Any, where: list[str | int], names: set[str] | None = None) -> Ref:
    """A literal, or a mapping with one of path/var/context/data/format/value/sum/product (+ key, all,
    default, select, capture)."""
    if not isinstance(raw, dict) or not any(k in raw for k in REF_KEYS):
        return Ref("literal", raw)
    given = [k for k in REF_KEYS if k in raw]
    extra = [k for k in raw if k not in (*REF_KEYS, *REF_EXTRAS)]
    if len(given) != 1 or extra:
        raise CompileError(
            where,
            f"a reference takes exactly one of {', '.join(REF_KEYS)} (and optionally {', '.join(REF_EXTRAS)});"
            f" got {', '.join(sorted(raw))}",
        )
    if "select" in raw and given[0] != "data":
        raise CompileError([*where, "select"], "select (a JSONPath into a data table) goes with data only")
    kind = given[0]
    target = raw[kind]
    if kind in ("path", "keys"):
        target = _path(target, [*where, kind])
    elif kind == "value":
        kind = "literal"
        if "key" in raw and not isinstance(target, (dict, list)):
            # trial 190: equals: {key: nvidia.com/gpu, value: present} (a taint written without its wrapping value:)
            # read "present" by key nvidia.com/gpu, null on every object
            shown, said_key = operators.show(target), operators.show(raw["key"])
            raise CompileError(
                [*where, "key"],
                f"a key read of the literal value {shown} gives nothing (a value that is no mapping has no members): to"
                f" compare with a mapping that has key and value members, write it whole under value: {{value: {{key:"
                f" {said_key}, value: {shown}}}}}",
            )
    elif kind == "format":
        if not isinstance(target, str):
            raise CompileError([*where, "format"], "format must be a string with {name} references")
    elif kind in ARITHMETIC:
        lone = isinstance(target, list) and len(target) == 1 and isinstance(target[0], dict)
        if not isinstance(target, list) or (len(target) < 2 and not lone):
            raise CompileError(
                [*where, kind],
                f"{kind} takes a list of at least two quantities or references, or one reference whose value is a list"
                f" (its quantities are {'added' if kind == 'sum' else 'multiplied'})",
            )
        target = tuple(compile_ref(t, [*where, kind, i]) for i, t in enumerate(target))
        for i, operand in enumerate(target):
            problem = operators.quantity_problem(operand.target) if operand.kind == "literal" else ""
            if problem:  # {sum: [1, lots]} would be an error on every object
                raise CompileError([*where, kind, i], problem)
    elif kind == "elapsed":
        if not isinstance(target, list) or len(target) != 2:
            raise CompileError(
                [*where, kind],
                "elapsed takes two times, [from, to]: each an RFC 3339 timestamp or a reference to one (to a list: its"
                " latest), e.g. [{path: $.status.startTime}, {context: heartbeats}]",
            )
        target = tuple(compile_ref(t, [*where, kind, i]) for i, t in enumerate(target))
    elif kind == "duration":
        target = (compile_ref(target, [*where, kind]),)
    elif not isinstance(target, str):
        raise CompileError([*where, kind], f"{kind} must be a name")
    key = compile_key(raw["key"], [*where, "key"]) if "key" in raw else None
    select = _path(raw["select"], [*where, "select"], on_objects=False) if "select" in raw else None
    capture = _capture(raw["capture"], [*where, "capture"]) if "capture" in raw else None
    filt = _condition(raw["where"], [*where, "where"]) if "where" in raw else None
    if "all" in raw and not isinstance(raw["all"], bool):  # trial 126: all: "false" read every value
        raise CompileError([*where, "all"], operators.BOOLEAN_ONLY)
    many = bool(raw.get("all", False)) or kind == "keys"
    join = raw.get("join")
    if join is not None and not isinstance(join, str):
        raise CompileError([*where, "join"], 'join takes the separator to write between the items, e.g. " " or ", "')
    parse = raw.get("parse")
    if parse is not None and parse != "yaml":
        raise CompileError([*where, "parse"], "parse takes yaml: a string holding YAML or JSON (a ConfigMap's data) is read")
    transforms = raw.get("transform", [])
    if not isinstance(transforms, list) or any(t not in TRANSFORMS for t in transforms):
        odd = next((t for t in (transforms if isinstance(transforms, list) else [transforms]) if t not in TRANSFORMS), "")
        close = nearest(odd, TRANSFORMS) if isinstance(odd, str) else None
        raise CompileError([*where, "transform"], f"transform takes a list of {', '.join(TRANSFORMS)}{did_you_mean(close)}")
    return Ref(
        kind,
        target,
        key,
        many,
        raw.get("default"),
        select,
        capture,
        filt,
        join,
        parse,
        tuple(transforms),
        at=(*where, given[0]),
    )


def _condition(raw: Any, where: list[str | int]) -> Assertion:
    """An assertion written where the schema does not reach (a var's ``when``, a reference's ``where``):
    validated by the assertion schema here, then compiled."""
    from .schema import assertion_schema

    try:
        loaded = assertion_schema().load(raw)
    except Exception as exc:  # marshmallow.ValidationError
        from .loader import condition_problem  # the loader's words for a field problem (it imports this module)

        below, reason = condition_problem(exc)
        raise CompileError([*where, *below], reason) from None
    return compile_assertion(loaded, where)


def _capture(pattern: Any, where: list[str | int]) -> re.Pattern[str]:
    """A ``capture`` regular expression: safe (``operators.regex_problem``) and with exactly one group."""
    if not isinstance(pattern, str):
        raise CompileError(where, "capture takes a regular expression with one group, e.g. '^all-(.+)$'")
    problem = operators.regex_problem(pattern)
    if problem:
        raise CompileError(where, problem)
    compiled = re.compile(pattern)
    if compiled.groups != 1:
        raise CompileError(where, f"capture {quoted(pattern)} needs exactly one group (it has {compiled.groups})")
    return compiled


def compile_key(raw: Any, where: list[str | int]) -> Ref:
    """A lookup key: a literal or a reference, or a non-empty list of them (a key path: one level per
    element, e.g. ``[resources, limits, {var: resource}]``)."""
    if isinstance(raw, list):
        if not raw:
            raise CompileError(where, "a key path needs at least one key")
        return Ref("keypath", tuple(compile_ref(k, [*where, i]) for i, k in enumerate(raw)))
    return compile_ref(raw, where)


def compile_subject(raw: dict[str, Any], where: list[str | int]) -> Ref | None:
    """The subject of an assertion (``path``/``keys``/``var``/``context``/``data``/``format``/``value``),
    with its ``key``, ``default`` and ``capture``."""
    for k in SUBJECT_KEYS:
        if k in raw:
            if k == "keys":
                return Ref(
                    "keys",
                    _path(raw[k], [*where, k]),
                    compile_key(raw["key"], [*where, "key"]) if "key" in raw else None,
                    True,
                    raw.get("default"),
                    capture=_capture(raw["capture"], [*where, "capture"]) if "capture" in raw else None,
                )
            sub = {k: raw[k]}
            for extra in ("key", "default", "capture"):
                if extra in raw:
                    sub[extra] = raw[extra]
            ref = compile_ref(sub, where)
            # A path subject keeps every value it selects: quantifiers apply over them.
            return Ref(ref.kind, ref.target, ref.key, ref.kind == "path" or ref.many, ref.default, capture=ref.capture, at=ref.at)
    return None


def compile_assertion(raw: dict[str, Any], where: list[str | int]) -> Assertion:
    """Compile one validated assertion mapping (see ``rules.schema``); several operators are ANDed."""
    out = _compile_assertion(raw, where)
    by = raw.get("supersededBy")
    return dataclasses.replace(out, superseded_by=by) if by else out


def _compile_assertion(raw: dict[str, Any], where: list[str | int]) -> Assertion:
    desc = raw.get("description", "")
    msg = raw.get("message", "")
    if "all" in raw or "any" in raw:
        op = "all" if "all" in raw else "any"
        kids = tuple(compile_assertion(c, [*where, op, i]) for i, c in enumerate(raw[op]))
        return Assertion(op, children=kids, description=desc, message=msg)
    if "not" in raw:
        return Assertion("not", children=(compile_assertion(raw["not"], [*where, "not"]),), description=desc, message=msg)
    if "forEach" in raw:
        spec = raw["forEach"]
        fw = [*where, "forEach"]
        subject = compile_subject(spec, fw)
        inner = compile_assertion(spec["assert_"], [*fw, "assert"])
        filt = compile_assertion(spec["where"], [*fw, "where"]) if "where" in spec else None
        return Assertion(
            "forEach",
            subject=subject,
            children=(inner,),
            where=filt,
            quantifier=spec["quantifier"],
            if_missing=spec["ifMissing"],
            each_as=spec["as_"],
            description=desc,
            message=msg,
            report_all=spec["report"] == "all",
            unique=spec["unique"],
        )
    subject = compile_subject(raw, where)
    quantifier = raw.get("quantifier", "all")
    if_missing = raw.get("ifMissing", "pass" if quantifier == "none" else "fail")
    filt = compile_assertion(raw["where"], [*where, "where"]) if "where" in raw else None
    classify = compile_ref(raw["classify"], [*where, "classify"]) if "classify" in raw else None
    if classify is not None and classify.kind == "literal":
        # (trial 135: a bad or exponential regex written here loaded, and hung the audit that met it)
        problem = operators.classify_problem(classify.target)
        if problem:
            raise CompileError([*where, "classify"], problem)
    leaves = []
    for name, operator in operators.OPERATORS.items():
        if name not in raw:
            continue
        arg = raw[name]
        if operator.resolve:
            arg = compile_ref(arg, [*where, name])
            problem = operator.literal_problem(arg.target) if arg.kind == "literal" else ""
            if not problem and arg.kind == "literal" and isinstance(arg.target, list):
                problem = _references_in_a_list(arg.target)
            if not problem and name in _COMPARED_AS_IS and not raw.get("transform") and not _on_items(where):
                problem = _typed_against_text(subject, arg)
            if problem:
                raise CompileError([*where, name], problem)
        leaves.append(
            Assertion(
                name,
                subject=subject,
                argument=arg,
                quantifier=quantifier,
                if_missing=if_missing,
                where=filt,
                transforms=tuple(raw.get("transform", ())),
                classify=classify,
                unique=bool(raw.get("unique", False)),
                description=desc,
                message=msg,
            )
        )
    if len(leaves) == 1:
        return leaves[0]
    return Assertion("all", children=tuple(leaves), description=desc, message=msg)


def _references_in_a_list(items: list[Any]) -> str:
    """Why a literal list holding references is refused (``matches: [{data: a}, {data: b}]``: trial 168, the mappings
    were read as text and the precondition never held), or ""."""
    for item in items:
        if isinstance(item, dict) and {"data", "var", "context", "path"} & set(item):
            return (
                f"{operators.show(item)} in a list is a literal, not read as a reference: give one reference (its value may be"
                " a list), or an any/all of one assertion per reference"
            )
    return ""


#: The operators that compare a value with their argument as it is, its YAML type kept.
_COMPARED_AS_IS = ("equals", "notEquals", "in", "notIn")


def _typed_against_text(subject: Ref | None, argument: Ref) -> str:
    """Why an assertion comparing a label's or an annotation's value (a string) with a literal boolean or number never
    holds (``{path: "$.metadata.labels['nvidia.com/gpu.present']", equals: true}``: trial 165, every node failed), or
    "" (a literal list is judged by its items)."""
    if subject is None or subject.kind != "path" or argument.kind != "literal" or argument.transforms:
        return ""
    if subject.default is not None:  # (a default of false makes equals: false hold where the label is missing)
        return ""
    what, at_map = string_map(subject.target)
    if not what or at_map != (subject.key is not None and subject.key.kind == "literal"):
        return ""
    values = argument.target if isinstance(argument.target, list) else [argument.target]
    return next((problem for v in values if (problem := typed_against_text(what, v))), "")


def compile_var(name: str, raw: Any, where: list[str | int]) -> Var:
    """A var: a JSONPath string (its first value), a reference, or ``{firstOf: [alternatives]}`` where each
    alternative is a reference with an optional ``when`` assertion."""
    if isinstance(raw, str):
        return Var(name, ((Ref("path", _path(raw, where)), None),))
    if isinstance(raw, dict) and "firstOf" in raw:
        if set(raw) != {"firstOf"} or not isinstance(raw["firstOf"], list) or not raw["firstOf"]:
            raise CompileError(where, "firstOf takes a non-empty list of alternatives and nothing else")
        alts: list[tuple[Ref, Assertion | None]] = []
        for i, alt in enumerate(raw["firstOf"]):
            aw: list[str | int] = [*where, "firstOf", i]
            if isinstance(alt, dict) and "when" in alt:
                rest = {k: v for k, v in alt.items() if k != "when"}
                alts.append((compile_ref(rest if rest else None, aw), _condition(alt["when"], [*aw, "when"])))
            elif isinstance(alt, str) and alt.startswith("$"):
                # As for a var given as a bare string: a JSONPath (write {value: "$..."} for the literal).
                alts.append((Ref("path", _path(alt, aw)), None))
            else:
                alts.append((compile_ref(alt, aw), None))
        return Var(name, tuple(alts))
    return Var(name, ((compile_ref(raw, where), None),))


def compile_match(raw: dict[str, Any]) -> Match:
    """The ``Match`` of a rule's ``match`` or ``exclude`` mapping as ``MatchSchema``/``ExcludeSchema``
    loaded it: no ``kinds`` means ``*``, a missing glob list means any value, and ``labelSelector`` becomes a
    ``Selector``. Raises nothing: the schema has already checked the mapping."""
    sel = raw.get("labelSelector")
    selector = None
    if sel:
        selector = Selector(
            tuple(sorted((sel.get("matchLabels") or {}).items())),
            tuple((e["key"], e["operator"], frozenset(e.get("values") or ())) for e in sel.get("matchExpressions") or ()),
        )
    return Match(
        frozenset(raw.get("kinds") or ["*"]),
        tuple(raw.get("apiVersions") or ()),
        tuple(raw.get("namespaces") or ()),
        tuple(raw.get("names") or ()),
        selector,
    )


def compile_context(name: str, raw: dict[str, Any], where: list[str | int]) -> Context:
    """Compile ``spec.context.<name>`` (as ``ContextSchema`` loaded it) into a ``Context``; ``where`` is the
    field path used in errors. Raises ``CompileError`` when both ``path`` and ``keys`` are given, ``where`` is
    not exactly ``{field, equals}``, a JSONPath does not parse, or ``equals`` is not a valid reference."""
    if "path" in raw and "keys" in raw:
        raise CompileError(where, "a context takes path or keys, not both")
    if "keysWhere" in raw and "keys" not in raw:
        raise CompileError([*where, "keysWhere"], "keysWhere keeps members of the mappings keys selects: it needs keys")
    keys_where = compile_assertion(raw["keysWhere"], [*where, "keysWhere"]) if "keysWhere" in raw else None
    if keys_where is not None and (problem := not_of_item(keys_where)):
        raise CompileError(
            [*where, "keysWhere"],
            f"keysWhere reads nothing but its item ($ or {{var: item}}: a member's value), literals and data tables"
            f" (a context is the same for every object of a dump); it reads {problem}",
        )
    path = (
        _path(raw.get("path") or raw.get("keys"), [*where, "path" if "path" in raw else "keys"])
        if ("path" in raw or "keys" in raw)
        else None
    )
    where_field = where_value = where_capture = None
    where_not = where_keys = False
    if "where" in raw:
        w = raw["where"]
        shapes = [{side, op} for side in ("field", "keys") for op in ("equals", "notEquals")]
        if not isinstance(w, dict) or set(w) - {"capture"} not in shapes:
            fields_ = ("field", "keys", "equals", "notEquals", "capture")
            odd = sorted(k for k in w if k not in fields_) if isinstance(w, dict) else []
            hint = "".join(f"{quoted(k)}{did_you_mean(nearest(k, fields_))}; " for k in odd if nearest(k, fields_))
            raise CompileError(
                [*where, "where"],
                f"{hint}where takes {{field: <JSONPath on the other object>, equals: <reference>}}, or keys: <JSONPath"
                " to mappings> instead of field (a join on their member names), and notEquals instead of equals;"
                " capture: <regex with one group> joins on the group of its match",
            )
        where_not = "notEquals" in w
        where_keys = "keys" in w
        op = "notEquals" if where_not else "equals"
        side = "keys" if where_keys else "field"
        where_field = _path(w[side], [*where, "where", side])
        where_value = compile_ref(w[op], [*where, "where", op])
        if not where_keys and (problem := _typed_against_text(Ref("path", where_field), where_value)):
            raise CompileError([*where, "where", op], problem)
        where_capture = _capture(w["capture"], [*where, "where", "capture"]) if "capture" in w else None
    prefer_field, prefer_value, prefer_not = None, None, False
    if "prefer" in raw:
        pr = raw["prefer"]
        shapes = [{"field", "equals"}, {"field", "notEquals"}]
        if not isinstance(pr, dict) or set(pr) not in shapes:
            raise CompileError(
                [*where, "prefer"],
                "prefer takes {field: <JSONPath on the other object>, equals: <literal>} (or notEquals): only the"
                " objects whose field selects the literal (or does not) are read, where there is one",
            )
        prefer_not = "notEquals" in pr
        prefer_value = pr["notEquals" if prefer_not else "equals"]
        if isinstance(prefer_value, dict | list):
            raise CompileError([*where, "prefer", "notEquals" if prefer_not else "equals"], "prefer compares with a literal")
        prefer_field = _path(pr["field"], [*where, "prefer", "field"])
    return Context(
        name,
        raw["kind"],
        raw.get("apiVersion", ""),
        path,
        "keys" in raw,
        where_field,
        where_value,
        raw.get("sameNamespace", False),
        raw.get("first", False),
        raw.get("default"),
        where_not,
        where_keys,
        where_capture,
        prefer_field,
        prefer_value,
        prefer_not,
        keys_where,
    )


def not_of_item(a: Assertion, bound: frozenset[str] = frozenset({"item"})) -> str:
    """What ``a`` reads besides its item (``$``, ``{var: item}``, names a forEach or where in it binds), literals,
    paths on the item and data tables, as words (``var 'gpus'``, ``context 'nodeNames'``, ``operator schedulable``);
    "" when nothing."""
    op = operators.OPERATORS.get(a.op)
    if op is not None and (op.scope == "object" or op.index):
        return f"operator {a.op} (it reads the dump)"

    def ref(r: Ref | None) -> str:
        if r is None:
            return ""
        if r.kind == "var" and r.target not in bound or r.kind in ("context", "format"):
            return f"{r.kind} {r.target!r}"
        found = next((w for w in map(ref, r.target) if w), "") if r.kind in COMPOSITE else ""
        return found or ref(r.key) or (not_of_item(r.where, bound | {"item"}) if r.where is not None else "")

    argument = a.argument if isinstance(a.argument, Ref) else None
    for part in (a.subject, a.classify, argument):
        if found := ref(part):
            return found
    inner = bound | {a.each_as, "index"} if a.op == "forEach" else bound
    for child in a.children:
        if found := not_of_item(child, inner):
            return found
    return not_of_item(a.where, bound | {"item"}) if a.where is not None else ""


def check_placeholders(template: str, known: set[str], where: list[str | int]) -> None:
    """Refuse ``{name}`` placeholders that no var, context or built-in provides, with the closest known names
    (``{gpuCont}`` -> did you mean ``{gpuCount}``?), or every known name when none is close. Every unknown
    placeholder of the template is named at once (trial 47: a second one was found only after the first was
    fixed)."""
    unknown = list(dict.fromkeys(m.group(1) for m in PLACEHOLDER.finditer(template) if m.group(1) not in known))
    if not unknown:
        return
    hints = {}
    for name in unknown:
        close = difflib.get_close_matches(name, sorted(known), n=2, cutoff=0.75)
        hints[name] = f"did you mean {' or '.join('{' + c + '}' for c in close)}?" if close else ""
        if name in ("item", "index"):  # trial 47: {item} outside a forEach was written out as it stands
            hints[name] = f"{{{name}}} is bound only inside a forEach (item is its default as: name)"
    every = f" (known: {', '.join(sorted(known))})" if not all(hints.values()) else ""
    if len(unknown) == 1:
        name = unknown[0]
        hint = f"; {hints[name]}" if hints[name] else every
        raise CompileError(where, f"message placeholder {{{name}}} names no var, context or built-in{hint}")
    named = ", ".join(f"{{{n}}}" + (f" ({hints[n]})" if hints[n] else "") for n in unknown)
    raise CompileError(where, f"message placeholders {named} name no var, context or built-in{every}")


#: The judged object's fields a ``{var: ...}`` reads when no binding or var has the name (``Scope.var``).
OBJECT_BUILTINS = {"name": "name", "namespace": "namespace", "kind": "kind", "apiVersion": "api_version"}

BUILTIN_NAMES = {
    *OBJECT_BUILTINS,
    "observed",
    "expected",
    "path",
    "detail",
    "policy",
    "rule",
    "severity",
}
