"""The OpenAPI 3.1 document of the HTTP API, generated from the marshmallow schemas of ``api.schemas``.

Paths are written here by hand (one place); request and response bodies and query parameters come from
the schemas through apispec's MarshmallowPlugin. The report formats come from ``rules.render.FORMATS``
as it is when the document is generated. ``openapi.yaml`` at the repository root is this document
(``scripts/gen_openapi.py`` writes it; ``tests/test_openapi.py`` fails when they differ); the app serves
it at ``/openapi.yaml``.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from apispec import APISpec
from apispec.ext.marshmallow import MarshmallowPlugin

from rules import __version__, yamlsafe
from rules.render import FORMATS

from . import schemas as s
from .bodies import DUMP_TYPES, POLICY_TYPES
from .problems import PROBLEM_TYPE, REQUEST_ID, TITLES

SECURITY: list[dict[str, list[str]]] = [{}, {"bearerAuth": []}]  # a token only when the service has some

_NODE_EXAMPLE = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": "gpu-node-1", "labels": {"nvidia.com/gpu.workload.config": "container"}},
    "status": {"allocatable": {"cpu": "32", "memory": "256Gi", "nvidia.com/gpu": "4"}},
}


def _problem(description: str) -> dict[str, Any]:
    schema = {"$ref": "#/components/schemas/Problem"}
    return {"description": description, "content": {"application/problem+json": {"schema": schema}}}


def _errors(*codes: int, **descriptions: str) -> dict[str, Any]:
    """Problem responses for ``codes``; ``descriptions`` (``e400="..."``) replace the usual text of a code."""
    text = {
        400: "Malformed dump, empty body, a body shorter than it said, or bad query value (`malformed-dump`, "
        "`empty-body`, `invalid-body`, `truncated-body`, `invalid-query`); input errors carry file, document, line and "
        "path",
        408: "The body did not arrive in time (`request-timeout`)",
        401: "No valid bearer token (`unauthorized`; only when the service has tokens)",
        404: "No such policy or rule (`not-found`)",
        413: "Body larger than the limit, as sent or once decoded (`body-too-large`)",
        415: "Content-Type or Content-Encoding of a body not accepted (`unsupported-media-type`); no body is `empty-body` (400)",
        503: "No policy loaded (`not-ready`)",
    }
    out = {str(c): _problem(descriptions.get(f"e{c}", text[c])) for c in codes}
    if "415" in out:  # trial 171 #11: what is accepted, in headers and not in the detail alone
        out["415"]["headers"] = {
            "Accept-Post": {
                "description": "The media types the operation takes (a refused Content-Type; a refused charset says none)",
                "schema": {"type": "string"},
            },
            "Accept-Encoding": {
                "description": "The content codings it takes, RFC 9110 section 15.5.16 (a refused Content-Encoding)",
                "schema": {"type": "string"},
            },
        }
    out["default"] = _problem(
        "Any other error (405 `method-not-allowed`, 500 `internal-error`), as a problem document; but a request line or"
        " headers gunicorn itself refuses before the app sees them (400, 414 `limit_request_line`, 431) get gunicorn's"
        " own `text/html` page (trial 125)"
    )
    out["default"]["content"]["text/html"] = {"schema": {"type": "string"}}
    return out


def _evaluate_errors() -> dict[str, Any]:
    """The problems of POST /v1/evaluate: its 503 is an evaluation past the budget too, which says when to come back
    in ``Retry-After`` (trial 56: openapi.yaml declared neither)."""
    out = _errors(
        400,
        401,
        408,
        413,
        415,
        503,
        e503="No policy loaded (`not-ready`), the dump took longer to read and judge than the service's evaluation"
        " budget (`evaluation-timeout`, with `Retry-After` where waiting for the worker took part of it), or a large"
        " dump waited that long for its worker (`busy`, with `Retry-After`)",
    )
    out["503"]["headers"] = {
        "Retry-After": {"description": "Seconds after which to try again", "schema": {"type": "integer", "minimum": 0}}
    }
    return out


def _report_content() -> dict[str, Any]:
    """One entry per media type of the formats in ``FORMATS``: the native report's schema for JSON,
    a mapping for other JSON and YAML types (clients parse them), text for the rest."""
    by_type: dict[str, list[str]] = {}
    for name, (_, mt) in FORMATS.items():
        by_type.setdefault(mt.split(";")[0].strip(), []).append(name)
    content: dict[str, Any] = {}
    for mt, names in sorted(by_type.items()):
        if mt == "application/json":
            # the native report, or (format=policyreport&policyReportOutput=json) a List of PolicyReports
            schema: dict[str, Any] = {
                "oneOf": [{"$ref": "#/components/schemas/Report"}, {"$ref": "#/components/schemas/PolicyReportList"}]
            }
            names = [*names, "policyreport"] if "policyreport" not in names else names
        elif mt.endswith(("+json", "yaml")):
            schema = {"type": "object"}
        else:
            schema = {"type": "string"}
        content[mt] = {"schema": schema, "x-formats": sorted(names)}
    return content


def _dump_body() -> dict[str, Any]:
    content: dict[str, Any] = {}
    for mt in DUMP_TYPES:
        if mt == "application/json":
            content[mt] = {"schema": {"description": "an object, a *List, or an array of objects"}, "example": _NODE_EXAMPLE}
        elif mt.startswith("text/") or "yaml" in mt:
            content[mt] = {"schema": {"type": "string"}}
        else:
            content[mt] = {"schema": {"type": "string", "format": "binary"}}
    return {
        "required": True,
        "description": "The dump: JSON, YAML (multi-document too), `kubectl describe node` text, a `kubectl get "
        "nodes` table (`-L`, `--show-labels`), a chat message or terminal paste holding any of these (fenced code "
        "blocks, prompt lines, a quote's `> `), or a .tar, .tar.gz, .tar.xz, .tar.bz2 or .zip archive of such files "
        "(a must-gather too); `Content-Encoding: gzip` is undone first.",
        "content": content,
    }


def _policy_body() -> dict[str, Any]:
    content: dict[str, Any] = {mt: {"schema": {"type": "string"}} for mt in POLICY_TYPES if mt != "application/json"}
    content["application/json"] = {"schema": {"type": "object"}}
    return {"required": True, "description": "One policy file's text (YAML, or JSON)", "content": content}


def _json(schema: str, description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema}"}}}}


def build_spec() -> APISpec:
    """The API's ``APISpec``."""
    spec = APISpec(
        title="verdict",
        version=__version__,
        openapi_version="3.1.0",
        plugins=[MarshmallowPlugin()],
        info={
            "description": "Audit Kubernetes dumps against policy-as-data rules (built-in pack: NVIDIA GPU "
            "Operator and KubeVirt). Errors are RFC 9457 problem documents whose `type` is "
            f"`{PROBLEM_TYPE}<slug>`; slugs: {', '.join(f'`{k}` ({v[0]})' for k, v in TITLES.items())}.",
            "license": {"name": "Apache-2.0", "identifier": "Apache-2.0"},
        },
    )
    spec.components.security_scheme(
        "bearerAuth",
        {
            "type": "http",
            "scheme": "bearer",
            "description": "Needed on /v1/ routes when VERDICT_TOKENS or VERDICT_TOKENS_FILE is set",
        },
    )
    for name, schema in (
        ("Problem", s.ProblemSchema),
        ("Report", s.ReportSchema),
        ("PolicyReportList", s.PolicyReportListSchema),
        ("PolicyList", s.PolicyListSchema),
        ("PolicyDetail", s.PolicyDetailSchema),
        ("RuleDetail", s.RuleDetailSchema),
        ("RuleList", s.RuleListSchema),
        ("LintResult", s.LintResultSchema),
        ("Health", s.HealthSchema),
        ("Ready", s.ReadySchema),
    ):
        spec.components.schema(name, schema=schema)

    spec.path(
        "/v1/evaluate",
        operations={
            "post": {
                "operationId": "evaluate",
                "summary": "Evaluate a dump and answer the report",
                "description": "The format is `format=`, else the first `Accept` type verdict renders, else json. A "
                "dump with some unreadable documents is evaluated and lists them in `inputErrors`; "
                "when nothing could be read as an object, the answer is a 400 at the first error.",
                "security": SECURITY,
                "parameters": [
                    {"in": "query", "schema": s.EvaluateQuerySchema()},
                    {
                        "in": "header",
                        "name": "X-Request-Id",
                        "schema": {"type": "string", "pattern": f"^{REQUEST_ID.pattern}$"},
                        "description": "An id of the client's for this request, said back in the answer's X-Request-Id,"
                        " a problem's requestId and the access log; another value (or none) is replaced by one made",
                    },
                    {
                        "in": "header",
                        "name": "Cache-Control",
                        "schema": {"type": "string"},
                        "example": "no-cache",
                        "description": "`no-cache` (or `Pragma: no-cache`): judge the body again rather than answer "
                        "the report kept for the same body and choices; `max-age=N`: only a report judged at most N "
                        "seconds ago; `no-store`: do not keep this report",
                    },
                ],
                "requestBody": _dump_body(),
                "responses": {
                    "200": {
                        "description": "The report",
                        "content": _report_content(),
                        "headers": {
                            "X-Request-Id": {
                                "description": "The request's id: the client's X-Request-Id, else one made (every answer"
                                " carries it)",
                                "schema": {"type": "string"},
                            },
                            "Cache-Status": {
                                "description": "RFC 9211: `verdict; hit` (the report judged earlier from the same body "
                                "and choices), `verdict; fwd=miss`, `fwd=request` or `fwd=stale` (judged now; `; stored` "
                                "when kept), `verdict; fwd=bypass` (judged now; too large to keep, or the cache is off)",
                                "schema": {"type": "string"},
                            },
                            "Age": {
                                "description": "On a hit: seconds since the report was judged (its `generated`)",
                                "schema": {"type": "integer", "minimum": 0},
                            },
                            "Cache-Control": {
                                "description": "`no-store`: a report describes a cluster, maybe a private one (every"
                                " answer but openapi.yaml)",
                                "schema": {"type": "string"},
                            },
                            "X-Content-Type-Options": {
                                "description": "`nosniff` (every answer): a report echoes text from the dump",
                                "schema": {"type": "string"},
                            },
                            "Verdict-Summary": {
                                "description": "The whole audit's outcome, whatever the format and filters (an RFC 8941"
                                " dictionary): the worst result word (an input error counts as `error`), the results by"
                                " word, the input errors and the objects judged (`judged=0`: nothing was, whatever `worst`"
                                " says), e.g. `worst=fail, pass=142, fail=12, warn=0, error=0, skip=154, input-errors=0,"
                                " judged=40`",
                                "schema": {"type": "string"},
                            },
                        },
                    },
                    **_evaluate_errors(),
                },
            }
        },
    )
    spec.path(
        "/v1/policies",
        operations={
            "get": {
                "operationId": "listPolicies",
                "summary": "The policies in use",
                "security": SECURITY,
                "responses": {"200": _json("PolicyList", "Policies, their versions and rule counts"), **_errors(401)},
            }
        },
    )
    spec.path(
        "/v1/policies/{name}",
        operations={
            "get": {
                "operationId": "getPolicy",
                "summary": "One policy: its rules, version and data tables",
                "security": SECURITY,
                "parameters": [
                    {"in": "path", "name": "name", "required": True, "schema": {"type": "string"}, "example": "gpu-nodes"}
                ],
                "responses": {"200": _json("PolicyDetail", "The policy"), **_errors(401, 404)},
            }
        },
    )
    spec.path(
        "/v1/rules",
        operations={
            "get": {
                "operationId": "listRules",
                "summary": "Every rule in use, with its policy, severity and the kinds it judges",
                "security": SECURITY,
                "responses": {"200": _json("RuleList", "The rules, in the order they are loaded"), **_errors(401)},
            }
        },
    )
    spec.path(
        "/v1/rules/{id}",
        operations={
            "get": {
                "operationId": "getRule",
                "summary": "One rule, by policy/rule (or a unique rule id)",
                "security": SECURITY,
                "parameters": [
                    {
                        "in": "path",
                        "name": "id",
                        "required": True,
                        "schema": {"type": "string"},
                        "description": "policy/rule; the slash is part of the id",
                        "example": "gpu-nodes/workload-label-valid",
                    }
                ],
                "responses": {
                    "200": _json("RuleDetail", "The rule, with an example object when it has one"),
                    **_errors(401, 404),
                },
            }
        },
    )
    spec.path(
        "/v1/policies/lint",
        operations={
            "post": {
                "operationId": "lintPolicy",
                "summary": "Validate a policy document (nothing is stored or run)",
                "security": SECURITY,
                "parameters": [{"in": "query", "schema": s.LintQuerySchema()}],
                "requestBody": _policy_body(),
                "responses": {
                    "200": _json("LintResult", "valid, and every error found, each with file, line, rule, path and reason"),
                    **_errors(
                        400,
                        401,
                        413,
                        415,
                        e400="No body, whatever the Content-Type (`empty-body`: the detail asks for a policy file), "
                        "not UTF-8 (`invalid-body`), a broken gzip stream (`malformed-dump`) or a bad query value "
                        "(`invalid-query`)",
                    ),
                },
            }
        },
    )
    spec.path(
        "/healthz",
        operations={
            "get": {
                "operationId": "healthz",
                "summary": "The process is up",
                "security": [{}],
                "responses": {"200": _json("Health", "Up"), **_errors()},
            }
        },
    )
    spec.path(
        "/readyz",
        operations={
            "get": {
                "operationId": "readyz",
                "summary": "Policies are loaded",
                "security": [{}],
                "responses": {"200": _json("Ready", "Ready, with the policy set's generation and last reload"), **_errors(503)},
            }
        },
    )
    spec.path(
        "/metrics",
        operations={
            "get": {
                "operationId": "metrics",
                "summary": "Prometheus metrics of the whole server (all workers summed)",
                "security": [{}],
                "responses": {
                    "200": {
                        "description": (
                            "Prometheus text exposition format, as prometheus-client writes it: Content-Type"
                            " text/plain; version=1.0.0 (version=0.0.4 with an older prometheus-client)"
                        ),
                        "content": {"text/plain": {"schema": {"type": "string"}}},
                    },
                    **_errors(),
                },
            }
        },
    )
    spec.path(
        "/openapi.yaml",
        operations={
            "get": {
                "operationId": "openapi",
                "summary": "This document",
                "security": [{}],
                "responses": {
                    "200": {"description": "OpenAPI 3.1", "content": {"application/yaml": {"schema": {"type": "object"}}}},
                    **_errors(),
                },
            }
        },
    )
    return spec


def _query_values(raw: dict[str, Any]) -> None:
    """Each list query parameter as the service reads a value of it: comma-separated names, empty parts dropped
    (``api.query``), so that ``results=fail,warn`` (the form the docs use) and an empty value are valid values, not
    only one name a value (trial 125: an OpenAPI request validator refused them); each name is checked by the
    service. ``limit``: 0, or at least ``MIN_LIMIT``."""
    from rules.render.markdown import MIN_LIMIT

    for path in raw.get("paths", {}).values():
        for operation in path.values():
            for param in operation.get("parameters", []) if isinstance(operation, dict) else []:
                schema = param.get("schema", {})
                if param.get("in") == "query" and schema.get("type") == "array":
                    items = schema["items"]
                    words = items.pop("enum", None)
                    items.pop("minLength", None)
                    items.pop("maxLength", None)
                    if words:  # parts may be empty or spaced ("fail,", "fail, warn": trial 128)
                        one = "|".join(re.escape(w) for w in words)
                        items["pattern"] = f"^ *({one})? *(, *({one})? *)*$"
                elif param.get("in") == "query" and param.get("name") == "limit":
                    param["schema"] = {"type": "integer", "anyOf": [{"const": 0}, {"minimum": MIN_LIMIT}]}


def _options(path: str, operations: dict[str, Any]) -> dict[str, Any]:
    """The ``OPTIONS`` operation Flask answers on every route: 204 with ``Allow`` (trial 180: undeclared, and said
    ``text/html`` of no body); behind the tokens where the route's own operations are."""
    guarded = any(op.get("security") == SECURITY for op in operations.values() if isinstance(op, dict))
    named = {p["name"]: p for op in operations.values() for p in op.get("parameters", []) if p.get("in") == "path"}
    return {
        "summary": "The methods the path takes",
        **({"parameters": list(named.values())} if named else {}),
        **({"security": SECURITY} if guarded else {}),
        "responses": {
            "204": {
                "description": "No content",
                "headers": {
                    "Allow": {"description": "The methods of the path, OPTIONS among them", "schema": {"type": "string"}}
                },
            },
            **(_errors(401) if guarded else {}),
        },
    }


def spec_dict() -> dict[str, Any]:
    """The document as a mapping, its top-level keys in the usual order."""
    raw = build_spec().to_dict()
    _query_values(raw)
    for path, operations in raw["paths"].items():
        operations["options"] = _options(path, operations)
    order = ("openapi", "info", "paths", "components")
    return {k: raw[k] for k in order if k in raw} | {k: v for k, v in raw.items() if k not in order}


@functools.cache  # the contract does not change while the process runs; served on every GET /openapi.yaml
def spec_yaml() -> str:
    """The document as YAML, as committed in ``openapi.yaml``."""
    header = "# GENERATED by scripts/gen_openapi.py from api/openapi.py and api/schemas.py: do not edit by hand.\n"
    return header + yamlsafe.dump(spec_dict(), sort_keys=False, allow_unicode=True, width=120)
