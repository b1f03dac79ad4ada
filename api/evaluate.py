"""``POST /v1/evaluate``: a dump in the body, the report in the answer.

A dump with some unreadable documents is still evaluated: the report lists them under ``inputErrors``.
When nothing in the body could be read as an object, the answer is a 400: ``malformed-dump`` placed at
the first error (with every error under ``errors``) when there were input errors, else ``empty-body``
(whitespace, comments only, ``[]``, an empty ``List``, an archive of files that are not dumps), so that a
client never takes an empty report for a clean cluster.

``name=`` gives the dump a file name (a relative path): reports use it instead of ``<body>``, so SARIF
results get a ``physicalLocation`` and Markdown and PolicyReport name the dump. ``limit=`` is the Markdown
renderer's length limit.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, Response, current_app, request

from rules.engine import audit_bytes
from rules.errors import DumpError, DumpTooLarge, EvaluationTimeout, InputError, RuleLookupError, meant
from rules.loader import PolicySet
from rules.reader import NOT_AN_OBJECT, WHAT_IS_READ, set_aside_note
from rules.render import OPTIONS, OptionError, media_type, stream
from rules.report import Report
from rules.selection import Selection, SelectionError

from .bodies import DUMP_TYPES, DUMP_WANTED, LargeSlot, charset_hint, check_magic, is_large, one_line_hint, read_body
from .bodies import media_type as body_media_type
from .cache import NAME as CACHE_NAME
from .cache import Asked, digest, next_expiry
from .negotiate import answer_type, choose_format
from .problems import Problem
from .query import invalid_query, parse_query
from .schemas import EvaluateQuerySchema
from .state import service

bp = Blueprint("evaluate", __name__)
BODY_NAME = "<body>"
NO_OBJECT = "the body holds no Kubernetes object"
#: PyYAML's place in its own terms (``in "<unicode string>", line 3, column 1`` or ``position 0``): the
#: reports say where with file, document and line already, and the parser's internals mean nothing to a client
_PARSER_MARK = re.compile(r'\s*\bin "<[^"]*>", (?:line \d+, column \d+|position \d+)')


def clean_reason(reason: str) -> str:
    """An input error's reason without the YAML parser's own place."""
    return _PARSER_MARK.sub("", reason).strip()


def _cleaned(report: Report) -> Report:
    report.input_errors = [
        InputError(e.source, clean_reason(e.reason), e.path) if isinstance(e, InputError) else e for e in report.input_errors
    ]
    return report


def _what_is_read(report: Report) -> str:
    """What verdict reads, when every input error is a document that parsed but holds no Kubernetes object (a
    labels-only JSON, a README): the CLI says it for such an input too."""
    if all(NOT_AN_OBJECT in e.reason for e in report.input_errors):
        return f"; {WHAT_IS_READ}"
    return ""


def _select(policies: PolicySet, names: list[str], rules: list[str], skip: list[str]) -> PolicySet:
    """The policies and rules asked for, less the rules ``skip`` names (``PolicySet.select`` decides what a rule
    name means). Raises 503 when no rule is loaded at all, 400 for a name that selects nothing, a bare rule id
    several chosen policies use (with ``candidates``), or a selection with no rule."""
    if not policies.rules:
        raise Problem("not-ready", "no policy rule is loaded; see GET /readyz")
    known_p = {p.name for p in policies.policies} | {p.pack for p in policies.policies if p.pack}
    unknown = [n for n in names if n not in known_p]
    if unknown:
        loaded = sorted(known_p)
        reasons = [f"no policy or pack named {n}{meant(n, loaded)}; loaded: {', '.join(loaded)}" for n in unknown]
        raise Problem(
            "invalid-query",
            "; ".join(f"policy: {r}" for r in reasons),
            errors=[{"parameter": "policy", "reason": r} for r in reasons],
        )
    try:
        chosen = policies.select(names, rules, skip) if (names or rules or skip) else policies
    except RuleLookupError as exc:
        candidates = [c for p in exc.problems for c in p.candidates]
        parameter = {False: "rule", True: "skipRule"}
        raise Problem(
            "invalid-query",
            "; ".join(f"{parameter[p.skip]}: {p.reason}" for p in exc.problems),
            errors=[{"parameter": parameter[p.skip], "reason": p.reason} for p in exc.problems],
            candidates=candidates or None,
        ) from None
    if not chosen.rules:
        together = "policy, rule and skipRule" if skip else "policy and rule"
        raise Problem(
            "invalid-query",
            f"{together} select no rule together",
            errors=[{"parameter": "skipRule" if skip else "rule", "reason": "no rule of the selected policies"}],
        )
    return chosen


@bp.post("/v1/evaluate")
def evaluate() -> Response:
    """``POST /v1/evaluate``: audit the dump in the body with the loaded policies (or those the ``policy`` and
    ``rule`` query values select) and answer the report, in the format of ``format=``, else ``Accept``, else
    json; ``kind``, ``namespace``, ``labelSelector`` and ``objectName`` choose the objects judged (the rules
    still read the whole dump; the summary says the selection); ``results`` and ``minSeverity`` filter the
    objects listed, not the summary. The same body with the same choices again is answered from the report
    judged first (``api.cache``; ``Cache-Status`` says which).

    Problems: ``invalid-query`` (400: a bad query value, an unknown policy or rule, a selection with no
    rule, or ``limit`` with a format other than markdown), ``unsupported-media-type`` (415: Content-Type,
    charset or Content-Encoding), ``empty-body`` (400: no body, or nothing read and no input error),
    ``body-too-large`` (413: as sent, gunzipped, or the body itself unpacking past the bound),
    ``malformed-dump`` (400: bytes that are not the declared archive, a broken gzip stream, an unreadable
    dump, or nothing readable as an object).
    """
    query = parse_query(EvaluateQuerySchema)
    fmt = choose_format(query.get("format"))
    options = _options(query, fmt)
    name = query.get("name") or BODY_NAME
    mimetype = body_media_type(list(DUMP_TYPES), DUMP_WANTED)
    svc = service()
    policies = _select(svc.keeper.policies, query.get("policy", []), query.get("rule", []), query.get("skipRule", []))
    selection = _selection(query, policies)
    slot = LargeSlot(float(current_app.config.get("VERDICT_EVAL_BUDGET") or 0))
    try:
        data = read_body(svc.max_decoded, name, before_decoding=slot.take)
        check_magic(mimetype, data, name)
        report, outcome, stored, age = _judged(data, name, mimetype, policies, selection, slot)
    finally:
        slot.release()
    if report.objects_read == 0 and report.input_errors:
        first = report.input_errors[0]
        raise Problem(
            "malformed-dump",
            f"nothing in the body could be read as an object: {_placed(first, name)}{_what_is_read(report)}"
            f"{one_line_hint(data)}"
            f"{charset_hint()}",
            **first.source.to_dict(),
            path=first.path,
            errors=[e.to_dict() for e in report.input_errors],
        )
    if report.objects_read == 0:
        # what was set aside, as the CLI says it (trial 191: a tar of logs was "holds no Kubernetes object" alone)
        skipped = f": {set_aside_note(report.files_skipped)}" if report.files_skipped else ""
        raise Problem("empty-body", NO_OBJECT + skipped + one_line_hint(data), file=name)
    outcome_header = summary_header(report)  # of the whole audit, before a filter chooses what is listed
    wanted = set(query["results"]) if query.get("results") else None
    if wanted or query.get("minSeverity"):
        report = report.filtered(wanted, query.get("minSeverity"))
    # Native JSON goes out object by object: a large report is never one string in the worker. Other formats
    # are rendered here, whole, so that an option the report cannot honour is still a 400.
    if fmt == "table":  # the CLI prints the notes on standard error; an answer has only its body
        options["notes"] = True
    try:
        body = stream(report, fmt, **options)
    except OptionError as exc:
        raise invalid_query(next(o.query for o in OPTIONS if o.name == exc.option), exc.reason) from None
    resp = Response(body, content_type=_content_type(answer_type(fmt, media_type(fmt, **options))))
    resp.headers[SUMMARY_HEADER] = outcome_header
    resp.vary.add("Accept")
    svc.metrics.cache.labels(outcome).inc()  # answers only: a body that cannot be judged is a problem, not a miss
    if outcome == "hit":
        resp.headers["Cache-Status"] = f"{CACHE_NAME}; hit"
        resp.headers["Age"] = str(int(age))
    else:
        resp.headers["Cache-Status"] = f"{CACHE_NAME}; fwd={outcome}" + ("; stored" if stored else "")
    return resp


def _placed(error: InputError, name: str) -> str:
    """The error's reason after its place, as the CLI says it, where that says more than the body's start (trial 237
    #7: a syntax error's own words name the line a flow sequence starts on, the problem's line where the parser
    stopped); the body's name stays out, its problem's file field gives it."""
    place = error.place(name)
    return error.reason if place in ("document 1", "document 1, line 1") else f"{place}: {error.reason}"


#: The audit's outcome in a header, whatever the format (trial 124: a chat bot asking for Markdown could tell "all
#: good" from "problems found" only by parsing the summary line, or by asking again for JSON).
SUMMARY_HEADER = "Verdict-Summary"


def summary_header(report: Report) -> str:
    """An RFC 8941 dictionary of the whole audit: the worst word (an input error counts as error), the results by
    word, the input errors and the objects judged, e.g. ``worst=fail, pass=142, fail=12, warn=0, error=0, skip=154,
    input-errors=0, judged=40`` (trial 158: ``kind=Pod`` on a dump of nodes said worst=skip, which a bot reading
    "pass or skip" as all good took for a clean cluster; judged=0 says nothing was judged)."""
    summary = report.summary()
    counts = summary["results"]
    words = ", ".join(f"{w}={counts.get(w, 0)}" for w in ("pass", "fail", "warn", "error", "skip"))
    return f"worst={report.worst()}, {words}, input-errors={len(report.input_errors)}, judged={summary['objectsJudged']}"


def _judged(
    data: bytes, name: str, mimetype: str, policies: PolicySet, selection: Selection | None, slot: LargeSlot
) -> tuple[Report, str, bool, float]:
    """The report of the body: the one kept for the same body and choices (``api.cache``), else judged now
    (and kept when it may be); with what the cache did (``hit``, ``miss``, ``request``, ``stale`` or
    ``bypass``), whether the report judged now was kept, and a kept report's age in seconds. Raises the
    problems of a body that cannot be judged (nothing of it is kept)."""
    svc = service()
    cache = svc.cache
    asked = Asked.of(request.headers)
    now = datetime.now(UTC)
    key = b""
    stale = False
    if cache.on and len(data) <= cache.max_bytes // 4:  # a report is rarely smaller than its body
        rules = tuple(r.uid for r in policies.rules)
        key = digest(data, (name, mimetype, rules, selection and selection.to_dict(), svc.keeper.generation))
        if not asked.no_cache:
            kept = cache.get(key, now)
            if kept is not None and (asked.max_age is None or kept[1] <= asked.max_age):
                return kept[0], "hit", False, kept[1]
            stale = kept is not None
    if is_large(data):  # judged now: a large dump waits for the worker's slot (a kept report does not)
        slot.take()
    configured = current_app.config.get("VERDICT_EVAL_BUDGET")
    try:
        report = audit_bytes(data, name, policies, svc.max_decoded, svc.exemptions, slot.left(configured), selection)
    except EvaluationTimeout as exc:
        judged = f"({exc.judged:,} of {exc.total:,} objects judged)"
        if slot.waited >= 0.1:  # the wait for another large dump took the time: a retry may find the slot free
            raise Problem(
                "evaluation-timeout",
                f"reading and evaluating took the rest of the {configured:g} s of VERDICT_EVAL_BUDGET after"
                f" {slot.waited:.1f} s waiting for the worker's large-dump slot {judged}: retry, or send a smaller dump",
                {"Retry-After": "30"},
            ) from None
        # trial 158: "or retry" with Retry-After: 30, where the same body alone takes as long again (a client obeying it
        # loops); trial 159: other requests on the worker may have taken part of the time, which the detail says
        raise Problem(
            "evaluation-timeout",
            f"reading and evaluating took more than the {configured:g} s of VERDICT_EVAL_BUDGET {judged}: send a smaller"
            " dump (one namespace or kind at a time), or audit it with the verdict CLI, which has no budget (where"
            " other requests kept the worker busy, it may pass once they are done)",
        ) from None
    except DumpTooLarge as exc:
        raise Problem("body-too-large", exc.reason, file=exc.where) from None
    except DumpError as exc:
        raise Problem("malformed-dump", clean_reason(exc.reason), file=exc.where, line=exc.line) from None
    report = _cleaned(report)
    svc.metrics.report(report)
    if not key:
        return report, "bypass", False, 0.0
    outcome = "request" if asked.no_cache else "stale" if stale else "miss"
    if asked.no_store or not report.objects_read:
        return report, outcome, False, 0.0
    if cache.put(key, report, next_expiry(svc.exemptions, now)):
        return report, outcome, True, 0.0
    return report, "bypass", False, 0.0  # judged, and not kept: too large, or no room in the directory


def _selection(query: dict[str, Any], policies: PolicySet) -> Selection | None:
    """The objects to judge (``kind``, ``namespace``, ``labelSelector``, ``objectName``). Raises a 400
    ``invalid-query`` for a kind no loaded rule judges or a label selector that does not parse."""
    try:
        return Selection.of(
            query.get("kind", []),
            query.get("namespace", []),
            query.get("labelSelector", ""),
            query.get("objectName", []),
            {kind for r in policies.rules for kind in r.match.kinds},
        )
    except SelectionError as exc:
        raise invalid_query("kind" if exc.parameter == "kind" else "labelSelector", exc.reason) from None


def _options(query: dict[str, Any], fmt: str) -> dict[str, Any]:
    """The renderer options of the query (``rules.render.OPTIONS``, by their ``query`` names), as the
    renderer's keyword arguments. Raises a 400 ``invalid-query`` for an option of another format."""
    options: dict[str, Any] = {}
    for opt in OPTIONS:
        if opt.query not in query:
            continue
        if fmt not in opt.formats:
            raise invalid_query(opt.query, f"only for format={opt.where()}; this answer is {fmt}")
        options[opt.name] = query[opt.query]
    return options


def _content_type(mt: str) -> str:
    """Text media types carry their charset (UTF-8)."""
    if mt.startswith("text/") and "charset" not in mt:
        return f"{mt}; charset=utf-8"
    return mt
