"""marshmallow schemas of every request (query strings) and response of the HTTP API.

They are the single source of ``openapi.yaml`` (``api.openapi``): responses are dumped through them and
query strings loaded through them. The report schemas describe ``rules.report.Report.to_dict()``; they
leave room for members the report may gain (no ``additionalProperties: false``).
"""

from __future__ import annotations

from typing import Any

from marshmallow import INCLUDE, Schema, ValidationError, fields, validate

from rules.errors import meant
from rules.reader import dump_name_problem
from rules.render import FORMATS, GROUP_BY, POLICYREPORT_VERSIONS
from rules.render.markdown import MIN_LIMIT
from rules.report import RESULTS, SEVERITIES

#: the message of a ``OneOf`` refusal: the value given, the one it likely stands for, and the values taken
ONE_OF = "unknown value {input!r}{meant}; one of {choices}"


class OneOf(validate.OneOf):
    """marshmallow's ``OneOf`` whose refusal names the choice a value likely stands for (``fails`` -> did you
    mean ``fail``?, ``rules.errors.nearest``), as the CLI's options do."""

    def _format_error(self, value: Any) -> str:
        hint = meant(value, [str(c) for c in self.choices]) if isinstance(value, str) else ""
        return self.error.format(input=value, choices=self.choices_text, labels=self.labels_text, meant=hint)


LIMIT_REASON = f"must be 0 (no cut) or at least {MIN_LIMIT} characters (format=markdown or chat only)"
#: What a query value of the wrong type is told, in the words of the other refusals (trial 100: marshmallow's own
#: "Not a valid integer." stood among them).
NOT_WHOLE: dict[str, str | list[Any] | dict[Any, Any]] = {"invalid": "{input!r} is not a whole number"}
NOT_BOOLEAN: dict[str, str | list[Any] | dict[Any, Any]] = {"invalid": "{input!r} is not true or false"}


def check_limit(value: int) -> None:
    """``limit``: 0 (no cut) or at least ``MIN_LIMIT`` (the summary and closing lines must fit)."""
    if 0 < value < MIN_LIMIT:
        raise ValidationError(LIMIT_REASON)


def check_dump_name(value: str) -> None:
    """``name``: a relative file path a code-scanning service can find in the repository
    (``rules.reader.dump_name_problem``, as ``verdict audit --stdin-name`` checks it)."""
    problem = dump_name_problem(value)
    if problem:
        raise ValidationError(problem)


class OpenSchema(Schema):
    """A response document that may gain members (``additionalProperties: true``): problem extension
    members (RFC 9457 §3.2) and the report's members as the engine grows."""

    class Meta:
        """marshmallow options: keep members the schema does not declare (``INCLUDE``)."""

        unknown = INCLUDE


# ------------------------------------------------------------------------------------------- requests


class EvaluateQuerySchema(Schema):
    """Query of ``POST /v1/evaluate``. List parameters repeat (``rule=a&rule=b``) or hold commas."""

    policy = fields.List(
        fields.String(validate=validate.Length(min=1, max=253)),
        metadata={"description": "Only these policies or packs (repeatable; default: all loaded)."},
    )
    rule = fields.List(
        fields.String(validate=validate.Length(min=1, max=507)),
        metadata={
            "description": "Only these rules, as policy/rule or a bare rule id (repeatable); a bare id several chosen "
            "policies use is a 400 naming them."
        },
    )
    skipRule = fields.List(
        fields.String(validate=validate.Length(min=1, max=507)),
        metadata={
            "description": "Leave out these rules, as policy/rule or a bare rule id (repeatable): rule= less these. "
            "Exemptions skip findings; this skips whole rules."
        },
    )
    results = fields.List(
        fields.String(validate=OneOf(RESULTS, error=ONE_OF)),
        metadata={"description": "Report only results with these words, e.g. fail,warn (an empty value reports every result)."},
    )
    minSeverity = fields.String(
        validate=OneOf(SEVERITIES, error=ONE_OF),
        metadata={"description": "Report only results of this severity or above."},
    )
    kind = fields.List(
        fields.String(validate=validate.Length(min=1, max=253)),
        metadata={"description": "Judge only objects of these kinds (Node, nodes or no; repeatable or comma-separated)."},
    )
    namespace = fields.List(
        fields.String(validate=validate.Length(min=1, max=253)),
        metadata={"description": "Judge only objects in these namespaces (cluster-scoped objects are in none)."},
    )
    labelSelector = fields.String(
        validate=validate.Length(max=4096),
        metadata={
            "description": "Judge only objects whose labels match this label selector (kubectl -l): a=b,c!=d,e in (f,g),!h. "
            "An empty value selects every object, as an empty selector does in the Kubernetes API."
        },
    )
    objectName = fields.List(
        fields.String(validate=validate.Length(min=1, max=253)),
        metadata={"description": "Judge only objects whose metadata.name matches one of these globs (gpu-*)."},
    )
    format = fields.String(
        validate=OneOf(sorted(FORMATS), error=ONE_OF),
        metadata={"description": "Report format (default: from Accept, else json)."},
    )
    limit = fields.Integer(
        validate=[validate.Range(min=0, error=LIMIT_REASON), check_limit],
        error_messages={"invalid": f"{{input!r}} is not a whole number: it {LIMIT_REASON}"},
        metadata={
            "description": f"format=markdown or chat only: the longest text in characters (default 3500; 0: no cut; "
            f"else at least {MIN_LIMIT}). With another format, a 400."
        },
    )
    groupBy = fields.String(
        validate=OneOf(GROUP_BY, error=ONE_OF),
        metadata={
            "description": "format=table, markdown, chat or junit only: the details (after the roll-up) by rule (default)"
            " or by object."
        },
    )
    sarifAllResults = fields.Boolean(
        error_messages=NOT_BOOLEAN,
        metadata={"description": "format=sarif only: every result, pass and skip too, not only the findings."},
    )
    junitWarnAsFailure = fields.Boolean(
        error_messages=NOT_BOOLEAN,
        metadata={"description": 'format=junit only: a warn is a <failure type="warn"> instead of a passing test case.'},
    )
    policyReportVersion = fields.String(
        validate=OneOf(POLICYREPORT_VERSIONS, error=ONE_OF),
        metadata={"description": "format=policyreport only: the wgpolicyk8s.io version (default v1alpha2)."},
    )
    policyReportMaxBytes = fields.Integer(
        validate=validate.Range(min=1),
        error_messages=NOT_WHOLE,
        metadata={
            "description": "format=policyreport only: split a report larger than this many bytes as compact JSON "
            "(default 1048576); a bound no single result fits in is a 400."
        },
    )
    policyReportOutput = fields.String(
        validate=OneOf(("yaml", "json"), error=ONE_OF),
        metadata={
            "description": "format=policyreport only: the List as yaml (default, application/yaml) or json (application/json)."
        },
    )
    name = fields.String(
        validate=[validate.Length(max=255, error="must be at most {max} characters"), check_dump_name],
        metadata={
            "minLength": 1,  # check_dump_name refuses the empty name, saying what to give
            "description": "The dump's file name, a relative path (no '..', no '!', printable, at most 255 "
            "characters), e.g. clusters/lab.yaml: reports name the dump and place its objects in this file "
            "(SARIF physicalLocation with the object's line) instead of <body>.",
        },
    )


class LintQuerySchema(Schema):
    """Query of ``POST /v1/policies/lint``."""

    file = fields.String(
        validate=validate.Length(min=1, max=255),
        metadata={"description": "The file name errors are reported under (default <body>)."},
    )


# ------------------------------------------------------------------------------------------- errors


class ProblemSchema(OpenSchema):
    """RFC 9457 problem details; input errors say where (file, document, line, path)."""

    type = fields.String(required=True, metadata={"description": "https://verdict.dev/problems/<slug>"})
    title = fields.String(required=True)
    status = fields.Integer(required=True)
    detail = fields.String(required=True)
    instance = fields.String(metadata={"description": "The request path"})
    requestId = fields.String(
        metadata={"description": "The request's id, as the X-Request-Id header of the answer says it (the client's, else made)"}
    )
    file = fields.String(metadata={"description": "Input errors: the file (inside an archive: archive!member)"})
    document = fields.Integer(metadata={"description": "Input errors: 1-based YAML document number"})
    line = fields.Integer(metadata={"description": "Input errors: 1-based line; absent when unknown"})
    path = fields.String(metadata={"description": "Input errors: JSONPath inside the document"})
    errors = fields.List(fields.Dict(), metadata={"description": "Every error found (input errors; query errors)"})
    candidates = fields.List(
        fields.String(),
        metadata={"description": "A bare rule id several policies use (/v1/rules/{id}, rule=): their policy/rule ids"},
    )


# ------------------------------------------------------------------------------------------- report


#: A report's ``line`` (``rules.errors.Source``).
LINE = "1-based line where the object (or the error) starts; 0 when it is not known"


class SourceSchema(OpenSchema):
    """A report object's ``source``: where it was read (``rules.errors.Source.to_dict()``)."""

    file = fields.String(required=True)
    document = fields.Integer(required=True)
    line = fields.Integer(required=True, metadata={"description": LINE})
    item = fields.Integer(metadata={"description": "0-based index inside a *List or JSON array"})


class InputErrorSchema(OpenSchema):
    """One report ``inputErrors`` item: where, the JSONPath inside the document, the reason."""

    file = fields.String(required=True)
    document = fields.Integer(required=True)
    line = fields.Integer(required=True, metadata={"description": LINE})
    item = fields.Integer(metadata={"description": "0-based index inside a *List or JSON array"})
    path = fields.String(required=True)
    reason = fields.String(required=True)


class ResultExemptionSchema(OpenSchema):
    """Why a result is ``skip`` although its rule failed: the exemption that accepted the finding."""

    source = fields.String(
        required=True,
        metadata={"description": "Where the exemption came from: <file>:<line>, or annotation verdict.dev/exempt"},
    )
    reason = fields.String(required=True, metadata={"description": "The operator's justification"})
    result = fields.String(required=True, validate=OneOf(("fail", "warn")), metadata={"description": "The finding's result word"})
    message = fields.String(required=True, metadata={"description": "The finding's message"})


_FINDING_ONLY = (
    "Only on a finding (fail, warn, error, or a skip an exemption made of one): a pass or a precondition's skip"
    " is its policy, rule, result and message (docs/report-formats.md)"
)


class ResultSchema(OpenSchema):
    """One (object, rule) result."""

    policy = fields.String(required=True)
    rule = fields.String(required=True)
    title = fields.String(metadata={"description": _FINDING_ONLY})
    result = fields.String(required=True, validate=OneOf(RESULTS))
    severity = fields.String(validate=OneOf(SEVERITIES), metadata={"description": _FINDING_ONLY})
    category = fields.String(metadata={"description": _FINDING_ONLY})
    message = fields.String(required=True)
    # A finding's evidence and fix: on fail, warn, error and exempted skip results only.
    path = fields.String(metadata={"description": _FINDING_ONLY})
    observed = fields.Raw(allow_none=True, metadata={"description": _FINDING_ONLY})
    expected = fields.Raw(allow_none=True, metadata={"description": _FINDING_ONLY})
    remediation = fields.String(metadata={"description": _FINDING_ONLY})
    references = fields.List(fields.String(), metadata={"description": _FINDING_ONLY})
    exemption = fields.Nested(
        ResultExemptionSchema,
        metadata={"description": "Only on a result an exemption turned from fail or warn into skip (docs/exemptions.md)"},
    )
    assumptions = fields.List(
        fields.String(),
        metadata={
            "description": "Only on a finding whose verdict rests on what the dump does not show (a policy's"
            " spec.assumptions, docs/policy-format.md): the notes of those assumptions, which the message says too"
        },
    )


class ObjectReportSchema(OpenSchema):
    """A judged object, its worst result (``verdict``) and its results."""

    apiVersion = fields.String(required=True)
    kind = fields.String(required=True)
    namespace = fields.String(required=True)
    name = fields.String(required=True)
    uid = fields.String(required=True)
    source = fields.Nested(SourceSchema, required=True)
    verdict = fields.String(required=True, validate=OneOf(RESULTS))
    results = fields.List(fields.Nested(ResultSchema), required=True)


class SelectionSchema(OpenSchema):
    """The object filters an audit judged with (``rules.selection``), and how many objects they kept."""

    kinds = fields.List(fields.String())
    namespaces = fields.List(fields.String())
    labelSelector = fields.String()
    names = fields.List(fields.String())
    objectsSelected = fields.Integer(required=True, metadata={"description": "objects of the dump the filters kept"})


class SummarySchema(OpenSchema):
    """The report's ``summary``: counts of the whole audit (``Report.summary()``)."""

    objectsRead = fields.Integer(required=True)
    objectsJudged = fields.Integer(required=True)
    results = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    exempt = fields.Integer(
        metadata={"description": "skip results that were findings accepted by an exemption; only when there are some"}
    )
    selection = fields.Nested(
        SelectionSchema,
        metadata={"description": "only when kind, namespace, labelSelector or objectName chose the objects judged"},
    )
    findingsBySeverity = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    failBySeverity = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    warnBySeverity = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    errorBySeverity = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    verdicts = fields.Dict(keys=fields.String(), values=fields.Integer(), required=True)
    inputErrors = fields.Integer(required=True)


class PolicyUsedSchema(OpenSchema):
    """One report ``policies`` item: a policy in force, its version, pack and rule count."""

    name = fields.String(required=True)
    version = fields.String(required=True)
    pack = fields.String(required=True)
    rules = fields.Integer(required=True)


class RuleRollupSchema(OpenSchema):
    """One rule's findings in a report (``rules.report.RuleRollup``)."""

    rule = fields.String(required=True, metadata={"description": "policy/rule"})
    policy = fields.String(required=True)
    title = fields.String(required=True)
    severity = fields.String(required=True, validate=OneOf(SEVERITIES))
    fail = fields.Integer(required=True)
    warn = fields.Integer(required=True)
    error = fields.Integer(required=True)
    objects = fields.Integer(required=True, metadata={"description": "objects with a finding of this rule"})
    examples = fields.List(
        fields.String(),
        required=True,
        metadata={"description": "the first objects (at most 3, Kind/namespace/name) with a finding of this rule"},
    )


class NotAppliedSchema(OpenSchema):
    """A rule that applied to no object of the dump: a precondition that reads only the dump, and leads its
    preconditions, does not hold, so each object it matches would have skipped with the same reason."""

    rule = fields.String(required=True, metadata={"description": "policy/rule"})
    policy = fields.String(required=True)
    reason = fields.String(required=True, metadata={"description": "the precondition's description: why it does not apply"})
    objects = fields.Integer(
        required=True, metadata={"description": "how many objects the rule matched (none has a result of it)"}
    )
    supersededBy = fields.String(
        required=True,
        metadata={
            "description": "the rule that judges the objects instead, where the precondition names one (supersededBy:"
            " a rule for a dump that lacks what this one holds, such as a manifests audit's stand-in for a rule that"
            ' reads Nodes); no note says such a rule; "" else'
        },
    )


class ReportSchema(OpenSchema):
    """verdict's native report (``format=json``)."""

    apiVersion = fields.String(required=True, validate=validate.Equal("verdict/v1"))
    kind = fields.String(required=True, validate=validate.Equal("Report"))
    name = fields.String(required=True)
    generated = fields.String(required=True)
    summary = fields.Nested(
        SummarySchema, required=True, metadata={"description": "counts of the whole audit, whatever the filters"}
    )
    filters = fields.Dict(
        keys=fields.String(),
        values=fields.Raw(),
        metadata={"description": "the results/minSeverity filters applied to objects, when any"},
    )
    rollup = fields.List(
        fields.Nested(RuleRollupSchema),
        required=True,
        metadata={
            "description": "the findings (fail, warn, error) of the results listed, by rule, worst first: rules with "
            "an error, then a fail, then warnings only; then severity; then number of findings"
        },
    )
    policies = fields.List(fields.Nested(PolicyUsedSchema), required=True)
    inputErrors = fields.List(fields.Nested(InputErrorSchema), required=True)
    filesRead = fields.List(fields.String(), required=True)
    filesSkipped = fields.List(fields.String(), required=True)
    notes = fields.List(fields.String(), required=True)
    notApplied = fields.List(
        fields.Nested(NotAppliedSchema),
        required=True,
        metadata={
            "description": "the rules that applied to no object of the dump and why (each also has a note, but a superseded one)"
        },
    )
    timing = fields.Dict(keys=fields.String(), values=fields.Float(), required=True)
    objects = fields.List(fields.Nested(ObjectReportSchema), required=True)


class PolicyReportListSchema(OpenSchema):
    """``format=policyreport&policyReportOutput=json``: a ``v1`` List of wgpolicyk8s.io/v1alpha2 PolicyReports
    (one per namespace) and a ClusterPolicyReport, as ``kubectl apply -f`` takes it (docs/report-formats.md)."""

    apiVersion = fields.String(required=True, validate=validate.Equal("v1"))
    kind = fields.String(required=True, validate=validate.Equal("List"))
    items = fields.List(
        fields.Dict(keys=fields.String(), values=fields.Raw()),
        required=True,
        metadata={
            "description": "PolicyReport and ClusterPolicyReport objects (apiVersion wgpolicyk8s.io/v1alpha2, or v1beta1"
            " with policyReportVersion=v1beta1)"
        },
    )


# ------------------------------------------------------------------------------------------- policies


class PolicyErrorSchema(Schema):
    """A policy problem: file, 1-based line (0 unknown), rule id, field path, reason."""

    file = fields.String(required=True)
    line = fields.Integer(required=True)
    rule = fields.String(required=True)
    path = fields.String(required=True)
    reason = fields.String(required=True)


class ReloadSchema(Schema):
    """The last reload attempt (SIGHUP); ``ok: false`` means the previous set is still in use."""

    at = fields.String(required=True)
    ok = fields.Boolean(required=True)
    errors = fields.List(fields.Nested(PolicyErrorSchema), required=True)


class PolicySummarySchema(Schema):
    """One ``policies`` item of ``GET /v1/policies``: a loaded policy and a link to its detail."""

    name = fields.String(required=True)
    version = fields.String(required=True)
    title = fields.String(required=True)
    description = fields.String(required=True)
    pack = fields.String(required=True, metadata={"description": "The pack folder, or empty"})
    file = fields.String(required=True, metadata={"description": "The policy file's name"})
    ruleCount = fields.Integer(required=True)
    href = fields.String(required=True)


class PolicyListSchema(Schema):
    """The answer of ``GET /v1/policies``: the policy set's generation, load time, last reload, policies."""

    generation = fields.Integer(required=True, metadata={"description": "1 at start, +1 per applied reload"})
    loadedAt = fields.String(required=True)
    lastReload = fields.Nested(ReloadSchema, allow_none=True, required=True)
    policies = fields.List(fields.Nested(PolicySummarySchema), required=True)


class RuleSummarySchema(Schema):
    """One ``rules`` item of ``GET /v1/policies/{name}``: a rule and a link to its detail."""

    id = fields.String(required=True)
    uid = fields.String(required=True, metadata={"description": "policy/rule"})
    title = fields.String(required=True)
    severity = fields.String(required=True, validate=OneOf(SEVERITIES))
    category = fields.String(required=True)
    onFailure = fields.String(required=True)
    href = fields.String(required=True)


class RuleListItemSchema(RuleSummarySchema):
    """One ``rules`` item of ``GET /v1/rules``: a rule summary with its policy and the kinds it judges."""

    policy = fields.String(required=True)
    kinds = fields.List(fields.String(), required=True, metadata={"description": "The kinds its match names"})


class RuleListSchema(Schema):
    """The answer of ``GET /v1/rules``: every loaded rule, in policy and rule order."""

    generation = fields.Integer(required=True, metadata={"description": "The policy set's generation"})
    rules = fields.List(fields.Nested(RuleListItemSchema), required=True)


class PolicyDetailSchema(Schema):
    """The answer of ``GET /v1/policies/{name}``: a policy, its data tables, context names and rules."""

    name = fields.String(required=True)
    version = fields.String(required=True)
    title = fields.String(required=True)
    description = fields.String(required=True)
    pack = fields.String(required=True)
    file = fields.String(required=True)
    dataFiles = fields.List(fields.String(), required=True)
    data = fields.Dict(
        keys=fields.String(),
        values=fields.Raw(allow_none=True),
        required=True,
        metadata={"description": "The policy's data tables (inline and from dataFiles)"},
    )
    contexts = fields.List(fields.String(), required=True, metadata={"description": "Names of context values"})
    rules = fields.List(fields.Nested(RuleSummarySchema), required=True)


class LabelRequirementSchema(Schema):
    """One ``matchExpressions`` item of a rule's match in ``GET /v1/rules/{id}``."""

    key = fields.String(required=True)
    operator = fields.String(required=True)
    values = fields.List(fields.String(), required=True)


class RuleMatchSchema(Schema):
    """A rule's ``match`` in ``GET /v1/rules/{id}``, its label selector as ``matchLabels``/``matchExpressions``."""

    kinds = fields.List(fields.String(), required=True)
    apiVersions = fields.List(fields.String(), required=True)
    namespaces = fields.List(fields.String(), required=True)
    names = fields.List(fields.String(), required=True)
    matchLabels = fields.Dict(keys=fields.String(), values=fields.String(), required=True)
    matchExpressions = fields.List(fields.Nested(LabelRequirementSchema), required=True)


class RuleDetailSchema(Schema):
    """The answer of ``GET /v1/rules/{id}``: one rule."""

    uid = fields.String(required=True, metadata={"description": "policy/rule"})
    policy = fields.String(required=True)
    policyVersion = fields.String(required=True)
    id = fields.String(required=True)
    title = fields.String(required=True)
    description = fields.String(required=True)
    severity = fields.String(required=True, validate=OneOf(SEVERITIES))
    category = fields.String(required=True)
    onFailure = fields.String(required=True)
    match = fields.Nested(RuleMatchSchema, required=True)
    message = fields.String(required=True, metadata={"description": "Failure message template"})
    remediation = fields.String(required=True)
    references = fields.List(fields.String(), required=True)
    example = fields.Raw(
        allow_none=True, required=True, metadata={"description": "The rule's example object(s), or null when it has none"}
    )


class LintedPolicySchema(Schema):
    """One ``policies`` item of ``POST /v1/policies/lint``: a policy that compiled and its rule ids."""

    name = fields.String(required=True)
    version = fields.String(required=True)
    rules = fields.List(fields.String(), required=True)


class LintResultSchema(Schema):
    """``valid`` is false when ``errors`` is not empty; ``errors`` holds every problem the loader found, by
    line within each document (``rules.loader.compile_document``); ``notes`` what is valid alone but not beside the
    policies the service serves (a policy of the same name: ``verdict policies lint`` notes it too)."""

    valid = fields.Boolean(required=True)
    errors = fields.List(fields.Nested(PolicyErrorSchema), required=True)
    policies = fields.List(fields.Nested(LintedPolicySchema), required=True)
    notes = fields.List(fields.String(), required=True)


# ------------------------------------------------------------------------------------------- operations


class HealthSchema(Schema):
    """The answer of ``GET /healthz``: ``{"status": "ok"}``."""

    status = fields.String(required=True, validate=validate.Equal("ok"))


class ReadySchema(Schema):
    """The answer of ``GET /readyz``: the policy set in use (policy and rule counts, generation, reloads)."""

    status = fields.String(required=True, validate=validate.Equal("ready"))
    policies = fields.Integer(required=True)
    rules = fields.Integer(required=True)
    generation = fields.Integer(required=True)
    loadedAt = fields.String(required=True)
    lastReload = fields.Nested(ReloadSchema, allow_none=True, required=True)
