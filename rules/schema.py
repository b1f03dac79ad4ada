"""marshmallow schemas of the policy format (``apiVersion: verdict/v1, kind: Policy``).

They validate a policy document at load (unknown fields are refused, so a typo is an error, not a
silently ignored key) and are the single source of ``docs/policy.schema.json`` (``json_schema()``).
Operator fields come from ``rules.operators.OPERATORS``.
"""

from __future__ import annotations

import difflib
import functools
import re
from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from . import operators
from .kinds import KNOWN_KINDS

SEVERITIES = ("critical", "high", "medium", "low", "info")
ON_FAILURE = ("fail", "warn")
DNS1123_LABEL = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"
SUBJECT_KEYS = ("path", "keys", "var", "context", "data", "format", "value", "sum", "product", "elapsed", "duration")
COMBINATORS = ("all", "any", "not", "forEach")
TRANSFORMS = ("lowercase", "uppercase", "trim", "string", "keys")
_NAME = validate.Regexp(DNS1123_LABEL, error="must be a DNS-1123 label (lower-case letters, digits, '-')")
_VAR_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: A file named by dataFiles or include: a path relative to the policy file; no control character (trial 128: a NUL
#: in one reached the file system, "could not compile: ValueError: embedded null byte" at line 1).
_FILE = [
    validate.Length(min=1, error="must not be empty: a file name relative to the policy file"),
    validate.Regexp(r"^[^\x00-\x1f\x7f]*$", error="must be a file name relative to the policy file, without control characters"),
]

#: A list that must hold one item or more, said in the docs' words (trial 135: marshmallow's "Shorter than minimum
#: length 1.").
NON_EMPTY = validate.Length(min=1, error="at least one is required: an empty list holds none")


class LabelSelectorRequirementSchema(Schema):
    """One ``labelSelector.matchExpressions`` item: In/NotIn need values, Exists/DoesNotExist take none."""

    key = fields.String(required=True, metadata={"description": "label key"})
    operator = fields.String(required=True, validate=validate.OneOf(["In", "NotIn", "Exists", "DoesNotExist"]))
    values = fields.List(fields.String(), load_default=list)

    @validates_schema
    def _values(self, data: dict[str, Any], **_: Any) -> None:
        if data["operator"] in ("In", "NotIn") and not data.get("values"):
            raise ValidationError(f"operator {data['operator']} needs a non-empty values list", "values")
        if data["operator"] in ("Exists", "DoesNotExist") and data.get("values"):
            raise ValidationError(f"operator {data['operator']} takes no values", "values")


class LabelSelectorSchema(Schema):
    """Kubernetes metav1.LabelSelector: matchLabels and matchExpressions are ANDed."""

    matchLabels = fields.Dict(keys=fields.String(), values=fields.String())
    matchExpressions = fields.List(fields.Nested(LabelSelectorRequirementSchema))


#: The kind of what ``kubectl get`` calls by a resource name or short name (the usual slip in a rule's kinds).
_KIND_OF = {
    "node": "Node", "nodes": "Node", "no": "Node",
    "pod": "Pod", "pods": "Pod", "po": "Pod",
    "deployment": "Deployment", "deployments": "Deployment", "deploy": "Deployment",
    "daemonset": "DaemonSet", "daemonsets": "DaemonSet", "ds": "DaemonSet",
    "statefulset": "StatefulSet", "statefulsets": "StatefulSet", "sts": "StatefulSet",
    "job": "Job", "jobs": "Job", "namespace": "Namespace", "namespaces": "Namespace", "ns": "Namespace",
    "virtualmachineinstance": "VirtualMachineInstance", "virtualmachineinstances": "VirtualMachineInstance",
    "vmi": "VirtualMachineInstance", "vmis": "VirtualMachineInstance",
    "virtualmachine": "VirtualMachine", "virtualmachines": "VirtualMachine", "vm": "VirtualMachine", "vms": "VirtualMachine",
    "clusterpolicy": "ClusterPolicy", "clusterpolicies": "ClusterPolicy", "kubevirt": "KubeVirt", "kubevirts": "KubeVirt",
}  # fmt: skip


def check_kind(kind: str) -> None:
    """Refuse a kind that no object has: a kind is an object's ``kind`` field, CamelCase (``Node``), never the
    resource name kubectl takes (``node``, ``nodes``, ``no``), which would match nothing and judge nothing; nor the
    plural of a known kind (``Pods``) or a known kind misspelt (``PriorityClas``)."""
    if kind == "*" or kind in KNOWN_KINDS:
        return
    if not kind.isalnum():  # trial 97: Node.v1 loaded and matched nothing (an apiVersion goes in apiVersions)
        raise ValidationError(
            f"kind {kind!r} matches no object: a kind is a name of letters and digits (Node), its group and version go"
            " in apiVersions"
        )
    from .selection import plural  # selection reads the model, which reads this module

    low = kind.lower()
    known = sorted(KNOWN_KINDS)
    same = [k for k in known if low in (k.lower(), plural(k))]  # POD, Pods, priorityclass
    if not kind[:1].isupper():
        guess = same[0] if same else _KIND_OF.get(low, kind[:1].upper() + kind[1:])
        raise ValidationError(
            f"kind {kind!r} matches no object: a kind is written as the objects' kind field, in CamelCase; did you mean"
            f" {guess!r}?"
        )
    # a letter added or dropped, or two swapped, in a known kind or its plural (Nod, Podd, Pdo, Pdos), or close to a
    # long one (PriorityClas); not one letter changed in a short one: Rule, Mode or Note may be a custom resource's
    near = [k for k in known if _one_edit(low, k.lower()) or _one_edit(low, plural(k))]
    # a known kind with a word around it is a custom resource's (NicClusterPolicy, VirtualMachineInstancePreset)
    spelt = [k for k in difflib.get_close_matches(kind, known, n=1, cutoff=0.88) if k.lower() not in low]
    close = same or near or spelt
    if not close:
        return  # a custom resource's kind
    if same and low == plural(same[0]):
        why = "the plural of"
    elif same:
        why = "written in other letter case than"
    else:
        why = "not a kind Kubernetes or the packs know, and close to"
    raise ValidationError(f"kind {kind!r} matches no object ({why} {close[0]!r}); did you mean {close[0]!r}?")


def _one_edit(a: str, b: str) -> bool:
    """Whether ``a`` is ``b`` with one letter added or dropped, or two neighbours swapped (not equal)."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        return len(diff) == 2 and diff[1] == diff[0] + 1 and a[diff[0]] == b[diff[1]] and a[diff[1]] == b[diff[0]]
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


#: An apiVersion with no group: the core API's (v1), or a version alone.
_VERSION_ONLY = re.compile(r"^v\d+((alpha|beta)\d+)?$")


def check_api_version(glob: str) -> None:
    """Refuse an apiVersion glob no object's apiVersion can match: a group without its version
    (``scheduling.k8s.io``; objects say ``scheduling.k8s.io/v1``), which would match nothing and judge nothing."""
    if "/" in glob or any(c in glob for c in "*?[") or _VERSION_ONLY.match(glob):
        return
    raise ValidationError(
        f"apiVersion {glob!r} matches no object: an object's apiVersion is group/version (or v1 for the core API);"
        f" did you mean {glob + '/*'!r}?"
    )


class MatchSchema(Schema):
    """Which objects a rule applies to; every given part must match (names and namespaces are globs)."""

    kinds = fields.List(
        fields.String(validate=check_kind),
        required=True,
        validate=NON_EMPTY,
        metadata={"description": "object kinds, e.g. [Node]; '*' for any"},
    )
    apiVersions = fields.List(
        fields.String(validate=check_api_version), metadata={"description": "apiVersion globs, e.g. kubevirt.io/*"}
    )
    namespaces = fields.List(fields.String(), metadata={"description": "namespace globs"})
    names = fields.List(fields.String(), metadata={"description": "name globs"})
    labelSelector = fields.Nested(LabelSelectorSchema)


class ExcludeSchema(MatchSchema):
    """Objects a rule leaves out; like match, but ``kinds`` may be left out (any kind)."""

    kinds = fields.List(
        fields.String(validate=check_kind),
        validate=NON_EMPTY,
        metadata={"description": "object kinds; default: any kind"},
    )


class ForEachSchema(Schema):
    """Iterate over values: the nested assertion sees each value as ``$`` and as ``{var: <as>}``."""

    path = fields.String()
    keys = fields.String()
    var = fields.String()
    context = fields.String()
    data = fields.String()
    key = fields.Raw()
    capture = fields.String()
    where = fields.Nested(
        lambda: assertion_schema_class()(),  # type: ignore[has-type]
        metadata={"description": "iterate only over the values for which this assertion holds ($ is the value)"},
    )
    unique = operators.StrictBoolean(
        load_default=False,
        metadata={"description": "iterate over each value once (repeats dropped, the first kept)"},
    )
    as_ = fields.String(data_key="as", load_default="item")
    quantifier = fields.String(validate=validate.OneOf(["all", "any", "none"]), load_default="all")
    ifMissing = fields.String(validate=validate.OneOf(["pass", "fail"]), load_default="pass")
    report = fields.String(
        validate=validate.OneOf(["first", "all"]),
        load_default="first",
        metadata={"description": "on failure, name the first failing item, or all of them (the message written for each)"},
    )
    assert_ = fields.Nested(lambda: assertion_schema_class()(), data_key="assert", required=True)  # type: ignore[has-type]

    @validates_schema
    def _one_source(self, data: dict[str, Any], **_: Any) -> None:
        given = [k for k in ("path", "keys", "var", "context", "data") if k in data]
        if len(given) != 1:
            raise ValidationError("forEach needs exactly one of path, keys, var, context, data")
        if data.get("report") == "all" and data.get("quantifier", "all") != "all":
            raise ValidationError("report: all needs quantifier: all (any and none fail on no single item)", "report")


def _assertion_fields() -> dict[str, Any]:
    nested = functools.partial(fields.Nested, lambda: assertion_schema_class()())
    attrs: dict[str, Any] = {
        "path": fields.String(metadata={"description": "RFC 9535 JSONPath; the subject is every value selected"}),
        "keys": fields.String(metadata={"description": "RFC 9535 JSONPath; the subject is the keys of the mappings selected"}),
        "var": fields.String(metadata={"description": "the subject is a var's value"}),
        "context": fields.String(metadata={"description": "the subject is a context value"}),
        "data": fields.String(metadata={"description": "the subject is a data table"}),
        "format": fields.String(metadata={"description": "the subject is a string built from {name} references"}),
        "value": fields.Raw(metadata={"description": "the subject is this literal"}),
        "sum": fields.List(
            fields.Raw(),
            validate=NON_EMPTY,
            metadata={"description": "the subject is the sum of these quantities (one reference: of its list's)"},
        ),
        "product": fields.List(
            fields.Raw(),
            validate=NON_EMPTY,
            metadata={"description": "the subject is the product of these quantities (one reference: of its list's)"},
        ),
        "elapsed": fields.List(
            fields.Raw(),
            validate=validate.Length(equal=2),
            metadata={"description": "the whole seconds from the first time to the second (of a list: its latest)"},
        ),
        "duration": fields.Raw(metadata={"description": "the subject is a number of seconds written as kubectl writes an age"}),
        "key": fields.Raw(metadata={"description": "look the subject up by this key (a literal or a reference)"}),
        "default": fields.Raw(),
        "where": nested(metadata={"description": "keep only values for which this assertion holds ($ is the value)"}),
        "transform": fields.List(fields.String(validate=validate.OneOf(TRANSFORMS))),
        "classify": fields.Raw(
            metadata={"description": "map each value to the name of the first table entry whose regular expression(s) match it"}
        ),
        "capture": fields.String(
            metadata={"description": "keep the first group of this regular expression's match on each value (drop the others)"}
        ),
        "unique": operators.StrictBoolean(),
        "quantifier": fields.String(validate=validate.OneOf(["all", "any", "none"])),
        "ifMissing": fields.String(validate=validate.OneOf(["pass", "fail"])),
        "description": fields.String(),
        "message": fields.String(),
        "supersededBy": fields.String(
            validate=validate.Length(min=1),
            metadata={
                "description": "on a precondition that reads only the dump: the rule (policy/rule) that judges the"
                " objects instead where it does not hold; the rule not applied then gets no note"
            },
        ),
        "all": fields.List(nested(), validate=NON_EMPTY),
        "any": fields.List(nested(), validate=NON_EMPTY),
        "not": nested(),
        "forEach": fields.Nested(ForEachSchema),
    }
    for op in operators.OPERATORS.values():
        attrs[op.name] = op.field()
    return attrs


def _validate_assertion(self: Schema, data: dict[str, Any], **_: Any) -> None:
    combinators = [k for k in COMBINATORS if k in data]
    ops = [k for k in data if k in operators.OPERATORS]
    subjects = [k for k in SUBJECT_KEYS if k in data]
    if combinators:
        extra = [k for k in data if k not in (*combinators, "description", "message", "supersededBy")]
        if len(combinators) > 1 or extra:
            raise ValidationError(f"{combinators[0]} cannot be combined with {', '.join(combinators[1:] + extra)}")
        return
    if not ops:
        raise ValidationError(
            "an assertion needs an operator (one of " + ", ".join(sorted(operators.OPERATORS)) + ") or all/any/not/forEach"
        )
    if len(subjects) > 1:
        raise ValidationError(f"an assertion takes one subject, got {', '.join(subjects)}")
    object_ops = [k for k in ops if operators.OPERATORS[k].scope == "object"]
    if object_ops and (subjects or len(ops) > 1):
        raise ValidationError(f"{object_ops[0]} tests the object itself: give it no subject and no other operator")
    if not object_ops and not subjects:
        raise ValidationError("an assertion needs a subject: one of " + ", ".join(SUBJECT_KEYS))


@functools.cache
def assertion_schema_class() -> type[Schema]:  # noqa: D401
    """The assertion schema, built from the operator table (import ``rules.workloads`` first so
    ``schedulable`` is registered)."""
    attrs = _assertion_fields()
    attrs["_validate"] = validates_schema(_validate_assertion)
    attrs["__doc__"] = "An assertion: a subject, one or more operators (ANDed), or a combinator."
    return type("AssertionSchema", (Schema,), attrs)


class ContextSchema(Schema):
    """Values taken from other objects of the dump (answered from the index)."""

    kind = fields.String(required=True, validate=check_kind)
    apiVersion = fields.String(validate=check_api_version)
    path = fields.String(metadata={"description": "JSONPath on each selected object; default: the object"})
    keys = fields.String(metadata={"description": "JSONPath to mappings whose keys are the values"})
    keysWhere = fields.Nested(
        lambda: assertion_schema_class()(),
        metadata={
            "description": "with keys: only the members whose value passes this assertion ($ and {var: item} being the"
            " value; it reads nothing but its item, literals and data tables)"
        },
    )
    where = fields.Dict(
        metadata={
            "description": "{field (or keys): JSONPath on the other object, equals (or notEquals): reference on this one;"
            " capture: a regex with one group, to join on the group of its match}"
        }
    )
    sameNamespace = operators.StrictBoolean(load_default=False)
    first = operators.StrictBoolean(load_default=False, metadata={"description": "one value (the first) instead of a list"})
    prefer = fields.Dict(
        metadata={
            "description": "{field: JSONPath on the other object, equals (or notEquals): a literal}: only the objects"
            " whose field selects it (or does not), where there is one; else all of them"
        }
    )
    default = fields.Raw()


class AssumptionSchema(Schema):
    """``spec.assumptions.<name>``: what a rule takes as given when the dump lacks the object that decides it.

    A rule that lists the name in ``assumes`` and gives a verdict (pass, fail or warn) while ``when`` holds
    says ``message`` in its result; ``onFailure`` (optional) replaces the rule's for results that rest on it
    (a weaker assumption can make a failure advisory); the report's notes list each assumption once."""

    when = fields.Nested(lambda: assertion_schema_class()(), required=True)
    message = fields.String(required=True, metadata={"description": "a sentence; {placeholders} as in a rule message"})
    note = fields.String(
        metadata={"description": "the report note, once per dump (default: message, which then may hold no placeholder)"}
    )
    onFailure = fields.String(validate=validate.OneOf(ON_FAILURE))


class DefaultsSchema(Schema):
    """``spec.defaults``: the severity, category and onFailure of rules that give none."""

    severity = fields.String(validate=validate.OneOf(SEVERITIES), load_default="medium")
    category = fields.String(load_default="")
    onFailure = fields.String(validate=validate.OneOf(ON_FAILURE), load_default="fail")


#: A rule's source, one of: a documentation URL, a file of a repository at a tag or commit, an issue or pull request.
_SOURCE_FORMS = (
    re.compile(r"https?://[^\s/]+\S*"),
    re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+@[^\s:@]+:\S+"),
    re.compile(r"[A-Za-z0-9][\w.-]*/[\w.-]+#\d+"),
)
_SOURCE_WORDS = (
    "a URL (https://...), owner/repo@tag:path (a file at a tag or commit) or owner/repo#123 (an issue or pull request)"
)
_REFERENCES_NEEDED = f"Missing data for required field: every rule cites at least one upstream source, {_SOURCE_WORDS}"


def source_url(text: str) -> str | None:
    """The web address of a ``references`` item: a URL as it stands, ``owner/repo@ref:path`` as the file on
    GitHub at that ref, ``owner/repo#123`` as that issue or pull request (GitHub sends an issue number that is a
    pull request's on to it); None for anything else."""
    if _SOURCE_FORMS[0].fullmatch(text):
        return text
    if _SOURCE_FORMS[1].fullmatch(text):
        repo, _, rest = text.partition("@")
        ref, _, path = rest.partition(":")
        return f"https://github.com/{repo}/blob/{ref}/{path}"
    if _SOURCE_FORMS[2].fullmatch(text):
        repo, _, number = text.partition("#")
        return f"https://github.com/{repo}/issues/{number}"
    return None


def _reference(text: str) -> None:
    """Refuse a ``references`` item that is not a source a reader can open (trial 47: "see the wiki" and "" passed)."""
    if not any(form.fullmatch(text) for form in _SOURCE_FORMS):
        raise ValidationError(f"{text!r} is not a source: write {_SOURCE_WORDS}")


class RuleSchema(Schema):
    """One rule: match, preconditions, vars, an assertion, and what to tell on failure."""

    id = fields.String(required=True, validate=_NAME)
    title = fields.String(required=True)
    description = fields.String(load_default="")
    severity = fields.String(validate=validate.OneOf(SEVERITIES))
    category = fields.String()
    onFailure = fields.String(validate=validate.OneOf(ON_FAILURE))
    match = fields.Nested(MatchSchema, required=True)
    exclude_ = fields.Nested(ExcludeSchema, data_key="exclude")
    preconditions = fields.List(fields.Nested(lambda: assertion_schema_class()()))
    assumes = fields.List(fields.String(), metadata={"description": "names of spec.assumptions this rule may rest on"})
    vars = fields.Dict(keys=fields.String(validate=validate.Regexp(_VAR_NAME.pattern)), values=fields.Raw())
    assert_ = fields.Nested(lambda: assertion_schema_class()(), data_key="assert", required=True)
    message = fields.String(required=True)
    passMessage = fields.String()
    remediation = fields.String(load_default="")
    references = fields.List(
        fields.String(validate=_reference),
        required=True,
        validate=validate.Length(min=1, error=_REFERENCES_NEEDED.replace("Missing data for required field", "the list is empty")),
        error_messages={"required": _REFERENCES_NEEDED},
    )
    example = fields.Raw(metadata={"description": "an object (or list of objects) the rule judges, for docs and the API"})


class MetadataSchema(Schema):
    """A policy's ``metadata``: name (a DNS-1123 label), version, title, description."""

    name = fields.String(required=True, validate=_NAME)
    version = fields.String(load_default="0.0.0")
    title = fields.String(load_default="")
    description = fields.String(load_default="")


class SpecSchema(Schema):
    """A policy's ``spec``: defaults, data tables and dataFiles, contexts, vars and at least one rule."""

    defaults = fields.Nested(DefaultsSchema, load_default=lambda: DefaultsSchema().load({}))
    data = fields.Dict(keys=fields.String(), values=fields.Raw(), load_default=dict)
    dataFiles = fields.List(fields.String(validate=_FILE), load_default=list)
    include = fields.List(
        fields.String(validate=_FILE),
        load_default=list,
        metadata={
            "description": "files of contexts and vars shared by a pack's policies (paths relative to the policy file,"
            " inside its folder); the policy's own context or var of the same name stands instead of an included one"
        },
    )
    context = fields.Dict(
        keys=fields.String(validate=validate.Regexp(_VAR_NAME.pattern)), values=fields.Nested(ContextSchema), load_default=dict
    )
    vars = fields.Dict(keys=fields.String(validate=validate.Regexp(_VAR_NAME.pattern)), values=fields.Raw(), load_default=dict)
    assumptions = fields.Dict(
        keys=fields.String(validate=validate.Regexp(_VAR_NAME.pattern)), values=fields.Nested(AssumptionSchema), load_default=dict
    )
    rules = fields.List(fields.Nested(RuleSchema), required=True, validate=NON_EMPTY)


class IncludeSchema(Schema):
    """A file a policy's ``spec.include`` names: ``context`` and ``vars`` written once for several policies, as
    ``spec.context`` and ``spec.vars`` are written in one."""

    context = fields.Dict(
        keys=fields.String(validate=validate.Regexp(_VAR_NAME.pattern)), values=fields.Nested(ContextSchema), load_default=dict
    )
    vars = fields.Dict(keys=fields.String(validate=validate.Regexp(_VAR_NAME.pattern)), values=fields.Raw(), load_default=dict)


class PolicySchema(Schema):
    """A verdict policy document."""

    apiVersion = fields.String(required=True, validate=validate.Equal("verdict/v1"))
    kind = fields.String(required=True, validate=validate.Equal("Policy"))
    metadata = fields.Nested(MetadataSchema, required=True)
    spec = fields.Nested(SpecSchema, required=True)


@functools.cache
def assertion_schema() -> Schema:
    """One instance of the assertion schema for conditions the policy schema does not reach (a var's ``when``):
    a schema instance deep-copies its fields when made, and its nested schemas when first used, so one made
    per condition was a third of loading the built-in pack."""
    return assertion_schema_class()()


@functools.cache
def policy_schema() -> PolicySchema:
    """One instance of the policy schema, kept, for the reason ``assertion_schema`` gives (its nested
    schemas, down to every depth of assertion a pack uses, are made once)."""
    return PolicySchema()


def json_schema() -> dict[str, Any]:
    """The JSON Schema (2020-12) of a policy document, generated from the schemas above with apispec."""
    from apispec import APISpec
    from apispec.ext.marshmallow import MarshmallowPlugin

    from . import workloads  # noqa: F401  (registers the schedulable operator)

    spec = APISpec("verdict policy", "1", "3.1.0", plugins=[MarshmallowPlugin()])
    spec.components.schema("Policy", schema=PolicySchema)
    defs = spec.to_dict()["components"]["schemas"]
    text = __import__("json").dumps(defs).replace("#/components/schemas/", "#/$defs/")
    defs = __import__("json").loads(text)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://verdict.dev/schemas/policy.schema.json",
        "title": "verdict policy (apiVersion verdict/v1, kind Policy)",
        "$ref": "#/$defs/Policy",
        "$defs": defs,
    }
