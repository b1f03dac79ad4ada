"""RFC 9457 problem documents: every error the service answers, mapped in one place.

A handler raises ``Problem`` (or lets a werkzeug ``HTTPException`` through); ``register(app)`` installs
the handlers that turn them, and any unexpected exception, into ``application/problem+json``. ``type`` is
``https://verdict.dev/problems/<slug>`` (slugs in ``TITLES``, documented in docs/service.md). Input
errors add where the problem is: ``file``, ``document``, ``line``, ``path``; a ``line`` of 0 (not known,
e.g. bytes that are not text) is left out, in ``errors`` items too.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import orjson
from flask import Flask, Response, g, request
from werkzeug.exceptions import HTTPException

from rules.render.native import plain

PROBLEM_TYPE = "https://verdict.dev/problems/"
MEDIA_TYPE = "application/problem+json"

#: slug -> (status, title). The title is the same for every occurrence of a type (RFC 9457 §3.1.3).
TITLES: dict[str, tuple[int, str]] = {
    "malformed-dump": (400, "The body is not a readable dump"),
    "empty-body": (400, "The body is empty or holds no object"),
    "invalid-body": (400, "The body cannot be read"),
    "truncated-body": (400, "The body ended before its Content-Length or its last chunk"),
    "invalid-query": (400, "A query parameter has a value the service does not accept"),
    "bad-request": (400, "Bad request"),
    "unauthorized": (401, "A valid bearer token is needed"),
    "not-found": (404, "No such resource"),
    "method-not-allowed": (405, "The method is not allowed on this resource"),
    "request-timeout": (408, "The body did not arrive in time"),
    "body-too-large": (413, "The body is larger than the service accepts"),
    "unsupported-media-type": (415, "The body's media type or content coding is not accepted"),
    "not-ready": (503, "The service has no policies loaded"),
    "evaluation-timeout": (503, "Evaluating the dump took longer than the service allows"),
    "busy": (503, "The worker is judging another large dump"),
    "internal-error": (500, "Internal error"),
}
#: the type of a werkzeug HTTPException raised outside our handlers (routing, size limit, bad syntax)
_BY_STATUS = {
    400: "bad-request",
    401: "unauthorized",
    404: "not-found",
    405: "method-not-allowed",
    413: "body-too-large",
    415: "unsupported-media-type",
    500: "internal-error",
    503: "not-ready",
}

log = logging.getLogger("verdict.api")


class Problem(Exception):
    """An error answered as a problem document; ``extra`` adds members (``file``, ``line``, ``errors``...)."""

    def __init__(self, slug: str, detail: str, headers: dict[str, str] | None = None, **extra: Any) -> None:
        self.slug = slug
        self.status, self.title = TITLES[slug]
        self.detail = detail
        self.headers = headers or {}
        if slug == "malformed-dump" and "errors" not in extra:
            # the body as a whole cannot be read (a broken archive or gzip stream): its one error, placed as the
            # input errors of a body that was read are (trial 93: a client reading errors found none)
            where = {"file": extra.get("file"), "document": extra.get("document", 1), "line": extra.get("line")}
            extra["errors"] = [{**where, "path": extra.get("path", ""), "reason": detail}]
        self.extra = extra
        super().__init__(detail)


def _placed(where: dict[str, Any]) -> dict[str, Any]:
    """Members of a problem (or of one ``errors`` item) without ``None`` values and without an unknown
    (0) ``line``."""
    return {k: v for k, v in where.items() if v is not None and not (k == "line" and v == 0)}


#: A request id a client may give in ``X-Request-Id``: printable, no space, at most 128 characters (a UUID, a bot's
#: message id); another is replaced (``api.factory``), so that nothing a client sends reaches the access log as written.
REQUEST_ID = re.compile(r"[A-Za-z0-9._:@/+=-]{1,128}")


def request_id() -> str:
    """The current request's id (``X-Request-Id``): the client's, else one made for it; "" outside a request."""
    return str(g.get("request_id", ""))


def problem_response(slug: str, detail: str, headers: dict[str, str] | None = None, **extra: Any) -> Response:
    """The response for one problem; ``instance`` is the request path."""
    status, title = TITLES[slug]
    if isinstance(extra.get("errors"), list):
        extra["errors"] = [_placed(e) if isinstance(e, dict) else e for e in extra["errors"]]
    body: dict[str, Any] = {
        "type": PROBLEM_TYPE + slug,
        "title": title,
        "status": status,
        "detail": detail,
        "instance": request.path,
    }
    body.update(_placed(extra))
    if rid := request_id():
        body["requestId"] = rid
    resp = Response(orjson.dumps(body, default=plain), status=status, mimetype=MEDIA_TYPE)
    for k, v in (headers or {}).items():
        resp.headers[k] = v
    return resp


def _from_problem(exc: Problem) -> Response:
    return problem_response(exc.slug, exc.detail, exc.headers, **exc.extra)


def _from_http(exc: HTTPException) -> Response:
    code = exc.code or 500
    slug = _BY_STATUS.get(code)
    headers: dict[str, str] = {}
    if code == 405:
        allowed = sorted(getattr(exc, "valid_methods", None) or ())
        if request.path.rstrip("/") == "/v1/policies/lint":
            # the linter's route takes POST only; /v1/policies/<name> lent it its GET, HEAD and OPTIONS (trial 125:
            # PUT said they were allowed, and GET then said only POST)
            allowed = [m for m in allowed if m == "POST"] or ["POST"]
        headers["Allow"] = ", ".join(allowed)
        detail = f"{request.method} is not allowed on {request.path}; allowed: {', '.join(allowed)}"
    elif code == 404:
        detail = f"no resource at {request.path}; see /openapi.yaml for the routes"
    elif code == 413:
        limit = request.max_content_length
        detail = f"the body is larger than {limit} bytes (VERDICT_MAX_BODY)" if limit else "the body is too large"
    else:
        detail = exc.description or exc.name
    if slug is None:  # a status without a type of ours (e.g. 416): RFC 9457's generic type
        body = {"type": "about:blank", "title": exc.name, "status": code, "detail": detail, "instance": request.path}
        return Response(orjson.dumps(body), status=code, mimetype=MEDIA_TYPE)
    if code >= 500:
        log.error("HTTP %s on %s %s: %s (request %s)", code, request.method, request.path, exc.name, request_id() or "-")
        detail = TITLES[slug][1]
    return problem_response(slug, detail, headers)


def _from_exception(exc: Exception) -> Response:
    # The traceback goes to the log; the client learns nothing about the internals (nor is the body logged).
    log.exception("unhandled error on %s %s (request %s)", request.method, request.path, request_id() or "-")
    return problem_response("internal-error", "the service could not answer this request; the error is logged")


def register(app: Flask) -> None:
    """Install the problem handlers on ``app``."""
    app.register_error_handler(Problem, _from_problem)
    app.register_error_handler(HTTPException, _from_http)
    app.register_error_handler(Exception, _from_exception)
