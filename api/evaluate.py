"""``POST /v1/evaluate``: a dump in the body, the report in the answer.

A dump with some unreadable documents is still evaluated: the report lists them under ``inputErrors``.
Only when nothing in the body could be read as an object AND there were input errors is the answer a
400 ``malformed-dump``, placed at the first error (with every error under ``errors``). A readable body
with no objects at all (``[]``, an empty ``List``) is a 200 with an empty report.
"""

from __future__ import annotations

from flask import Blueprint, Response

from rules.engine import audit_bytes
from rules.errors import DumpError, DumpTooLarge
from rules.loader import PolicySet
from rules.render import media_type, render

from .bodies import DUMP_TYPES, check_magic, read_body
from .bodies import media_type as body_media_type
from .negotiate import choose_format
from .problems import Problem
from .query import parse_query
from .schemas import EvaluateQuerySchema
from .state import service

bp = Blueprint("evaluate", __name__)
BODY_NAME = "<body>"


def _select(policies: PolicySet, names: list[str], rules: list[str]) -> PolicySet:
    """The policies and rules asked for. Raises 503 when no rule is loaded at all, 400 for a name that
    selects nothing."""
    if not policies.rules:
        raise Problem("not-ready", "no policy rule is loaded; see GET /readyz")
    known_p = {p.name for p in policies.policies} | {p.pack for p in policies.policies if p.pack}
    unknown = [n for n in names if n not in known_p]
    if unknown:
        raise Problem(
            "invalid-query",
            f"policy: no policy or pack named {', '.join(unknown)}; loaded: {', '.join(sorted(known_p))}",
            errors=[{"parameter": "policy", "reason": f"unknown {n}"} for n in unknown],
        )
    known_r = {r.uid for r in policies.rules} | {r.id for r in policies.rules}
    unknown = [r for r in rules if r not in known_r]
    if unknown:
        raise Problem(
            "invalid-query",
            f"rule: no rule named {', '.join(unknown)}; see GET /v1/policies",
            errors=[{"parameter": "rule", "reason": f"unknown {r}"} for r in unknown],
        )
    chosen = policies.select(names, rules) if (names or rules) else policies
    if not chosen.rules:
        raise Problem(
            "invalid-query",
            "policy and rule select no rule together",
            errors=[{"parameter": "rule", "reason": "no rule of the selected policies"}],
        )
    return chosen


@bp.post("/v1/evaluate")
def evaluate() -> Response:
    """``POST /v1/evaluate``: audit the dump in the body with the loaded policies (or those the ``policy`` and
    ``rule`` query values select) and answer the report, in the format of ``format=``, else ``Accept``, else
    json; ``results`` and ``minSeverity`` filter the objects listed, not the summary.

    Problems: ``invalid-query`` (400: a bad query value, an unknown policy or rule, or a selection with no
    rule), ``unsupported-media-type`` (415: Content-Type, charset or Content-Encoding), ``empty-body`` (400),
    ``body-too-large`` (413: as sent, gunzipped or unpacked), ``malformed-dump`` (400: bytes that are not the
    declared archive, a broken gzip stream, an unreadable dump, or nothing readable as an object).
    """
    query = parse_query(EvaluateQuerySchema)
    fmt = choose_format(query.get("format"))
    mimetype = body_media_type(list(DUMP_TYPES))
    svc = service()
    policies = _select(svc.keeper.policies, query.get("policy", []), query.get("rule", []))
    data = read_body(svc.max_decoded)
    check_magic(mimetype, data)
    try:
        report = audit_bytes(data, BODY_NAME, policies, svc.max_decoded)
    except DumpTooLarge as exc:
        raise Problem("body-too-large", exc.reason, file=exc.where) from None
    except DumpError as exc:
        raise Problem("malformed-dump", exc.reason, file=exc.where, line=exc.line) from None
    svc.metrics.report(report)
    if report.objects_read == 0 and report.input_errors:
        first = report.input_errors[0]
        raise Problem(
            "malformed-dump",
            f"nothing in the body could be read as an object: {first.reason}",
            **first.source.to_dict(),
            path=first.path,
            errors=[e.to_dict() for e in report.input_errors],
        )
    wanted = set(query["results"]) if query.get("results") else None
    if wanted or query.get("minSeverity"):
        report = report.filtered(wanted, query.get("minSeverity"))
    resp = Response(render(report, fmt), content_type=_content_type(media_type(fmt)))
    resp.vary.add("Accept")
    return resp


def _content_type(mt: str) -> str:
    """Text media types carry their charset (UTF-8)."""
    if mt.startswith("text/") and "charset" not in mt:
        return f"{mt}; charset=utf-8"
    return mt
