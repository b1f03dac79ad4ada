"""Policies and rules in use (``GET /v1/policies``, ``/v1/policies/{name}``, ``/v1/rules``, ``/v1/rules/{id}``) and the
policy linter (``POST /v1/policies/lint``), which validates and compiles a document without storing or
evaluating it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from flask import Blueprint, Response, request, url_for
from werkzeug.exceptions import MethodNotAllowed

from rules.errors import PolicyError, RuleLookupError, meant, not_utf8
from rules.loader import comment_cut, load_policy_text, texts_cut_at_comments
from rules.model import Policy, Rule
from rules.render.native import plain
from rules.render.tables import rule_detail

from .bodies import POLICY_TYPES, POLICY_WANTED, media_type, read_body
from .problems import Problem
from .query import parse_query
from .responses import json_response, reload_dict
from .schemas import (
    LintQuerySchema,
    LintResultSchema,
    PolicyDetailSchema,
    PolicyListSchema,
    RuleDetailSchema,
    RuleListSchema,
)
from .state import service

bp = Blueprint("policies", __name__)


def _rule_summary(r: Rule) -> dict[str, Any]:
    return {
        "id": r.id,
        "uid": r.uid,
        "title": r.title,
        "severity": r.severity,
        "category": r.category,
        "onFailure": r.on_failure,
        "href": url_for(".rule", uid=r.uid),
    }


def _summary(p: Policy) -> dict[str, Any]:
    return {
        "name": p.name,
        "version": p.version,
        "title": p.title,
        "description": p.description,
        "pack": p.pack,
        "file": Path(p.file).name,
        "ruleCount": len(p.rules),
        "href": url_for(".policy", name=p.name),
    }


@bp.get("/v1/policies")
def policies() -> Response:
    """``GET /v1/policies``: the policy set in use (``PolicyListSchema``): generation, load time, last reload
    and a summary per policy. No problem of its own."""
    keeper = service().keeper
    body = PolicyListSchema().dump(
        {
            "generation": keeper.generation,
            "loadedAt": keeper.loaded_at,
            "lastReload": reload_dict(keeper),
            "policies": [_summary(p) for p in keeper.policies.policies],
        }
    )
    return json_response(body)


@bp.get("/v1/policies/<name>")
def policy(name: str) -> Response:
    """``GET /v1/policies/<name>``: one loaded policy (``PolicyDetailSchema``) with its data tables, context
    names and rule summaries. Problem: ``not-found`` (404) when no loaded policy has that name;
    ``method-not-allowed`` (405, ``Allow: POST``) for ``lint`` when no policy is named so (the linter's
    route takes POST only)."""
    p = service().keeper.policies.policy(name)
    if p is None and name == "lint":
        raise MethodNotAllowed(valid_methods=["POST"])
    if p is None:
        known = [q.name for q in service().keeper.policies.policies]
        raise Problem("not-found", f"no policy named {name!r}{meant(name, known)}; loaded: {', '.join(known)}")
    body = PolicyDetailSchema().dump(
        {
            **_summary(p),
            "dataFiles": list(p.data_files),
            "data": orjson.loads(orjson.dumps(p.data, default=plain)),
            "contexts": sorted(p.contexts),
            "rules": [_rule_summary(r) for r in p.rules],
        }
    )
    return json_response(body)


@bp.after_request
def _lint_allow(resp: Response) -> Response:
    """``OPTIONS /v1/policies/lint`` lists the methods the path answers: ``GET`` only when a policy is named
    ``lint`` (else ``policy`` answers 405, ``Allow: POST``), not what Flask gathers from both rules."""
    if request.method == "OPTIONS" and request.path == "/v1/policies/lint" and service().keeper.policies.policy("lint") is None:
        resp.headers["Allow"] = "OPTIONS, POST"
    return resp


@bp.get("/v1/rules")
def rules() -> Response:
    """``GET /v1/rules``: every loaded rule (``RuleListSchema``), with its policy and the kinds it judges, in the
    order the policies and their rules are loaded. No problem of its own."""
    keeper = service().keeper
    listed = [{**_rule_summary(r), "policy": r.policy, "kinds": sorted(r.match.kinds)} for r in keeper.policies.rules]
    return json_response(RuleListSchema().dump({"generation": keeper.generation, "rules": listed}))


@bp.get("/v1/rules/<path:uid>")
def rule(uid: str) -> Response:
    """``GET /v1/rules/<policy/rule>``: one rule (``RuleDetailSchema``); a bare rule id works when it is unique.
    Problem: ``not-found`` (404) when ``uid`` names no rule, or names a bare id that several policies use
    (the detail and ``candidates`` name them as policy/rule); the reason is ``PolicySet.rule``'s, as for
    ``rule=`` on ``POST /v1/evaluate``."""
    ps = service().keeper.policies
    uid = uid.removesuffix("/")  # as every other route takes a trailing slash (trial 180: a 404 here alone)
    try:
        r = ps.rule(uid)
    except RuleLookupError as exc:
        [trouble] = exc.problems
        raise Problem("not-found", trouble.reason, candidates=list(trouble.candidates) or None) from None
    owner = ps.policy(r.policy)
    return json_response(RuleDetailSchema().dump(rule_detail(r, owner.version if owner else "")))


@bp.post("/v1/policies/lint")
def lint() -> Response:
    """``POST /v1/policies/lint``: validate and compile the policy text in the body without storing it; a 200
    with ``LintResultSchema`` (``valid: false``, every ``PolicyError`` found and no policies when refused).

    Problems: ``invalid-query`` (400), ``unsupported-media-type`` (415: Content-Type, charset or
    Content-Encoding), ``empty-body`` (400: asks for a policy file), ``malformed-dump`` (400: a broken gzip stream),
    ``body-too-large`` (413), ``invalid-body`` (400: not UTF-8).
    """
    query = parse_query(LintQuerySchema)
    declared = media_type(POLICY_TYPES, POLICY_WANTED)
    shown = query.get("file") or "<body>"
    data = read_body(service().max_decoded, shown, POLICY_WANTED)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        # where, as the CLI says it (trial 125: the service said only the byte)
        where, line, _ = not_utf8(data, exc)
        reason = f"the policy is not UTF-8 text: {where}"
        raise Problem("invalid-body", reason, file=shown, line=line) from None
    errors: list[dict[str, Any]] = []
    compiled: list[Policy] = []
    try:
        if declared == "application/json":
            _json_syntax(text, shown)  # trial 125: JSON that does not parse was said to be a "YAML syntax error"
        compiled = load_policy_text(text, shown)
    except PolicyError as exc:
        errors = [e.to_dict() for e in (exc, *exc.more)]
    # (trial 190: a policy named as one the service serves linted valid, with no word that the two cannot be served
    # together; the CLI's lint notes it)
    served = {p.name: p for p in service().keeper.policies.policies}
    notes = [
        f"policy name {p.name!r} is that of a policy this service serves ({_where(served[p.name])}): valid alone, it"
        " is refused beside it; replace that policy's file with it, or rename metadata.name to serve both"
        for p in compiled
        if p.name in served
    ]
    # (trial 245 #6: the CLI's lint noted a text YAML cut at its " #", the service's said nothing)
    notes += [f"line {line}: {comment_cut(key)}" for line, key in texts_cut_at_comments(text)]
    body = LintResultSchema().dump(
        {
            "valid": not errors,
            "errors": errors,
            "policies": [{"name": p.name, "version": p.version, "rules": [r.id for r in p.rules]} for p in compiled],
            "notes": notes,
        }
    )
    return json_response(body)


def _where(policy: Policy) -> str:
    """``pack gpu-operator, nodes.yaml`` (a pack's policy), else the policy's file name."""
    # (the file's name alone, as GET /v1/policies shows it: trial 193, the server's folders were said)
    name = Path(policy.file).name
    return f"pack {policy.pack}, {name}" if policy.pack else name


def _json_syntax(text: str, shown: str) -> None:
    """``PolicyError`` in JSON's words for a body sent as JSON that does not parse as JSON (YAML, which the loader
    reads, would say "YAML syntax error" of it)."""
    import json

    try:
        json.loads(text)
    except RecursionError:
        return  # it parses as far as Python's stack goes: the loader says how deep it nests (trial 180: a 500)
    except json.JSONDecodeError as exc:
        raise PolicyError(shown, f"JSON syntax error: {exc.msg} (line {exc.lineno}, column {exc.colno})", exc.lineno) from None
