"""The application factory: config -> policies -> Flask app with blueprints, auth, metrics, problems."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping
from typing import Any

from flask import Flask, Response, g, request

from rules.exemptions import ExemptionSet, load_exemptions
from rules.report import counted

from . import auth, metrics, problems
from . import cache as report_cache
from .config import defaults, from_env
from .evaluate import bp as evaluate_bp
from .ops import bp as ops_bp
from .policies import bp as policies_bp
from .state import EXTENSION, Service
from .store import PolicyKeeper, kept

log = logging.getLogger("verdict.api")


def _logging(level: str) -> None:
    """Log through gunicorn's error log when gunicorn runs us, else to stderr."""
    target = logging.getLogger("verdict")
    target.setLevel(level)
    gunicorn_log = logging.getLogger("gunicorn.error")
    if gunicorn_log.handlers and not target.handlers:
        for h in gunicorn_log.handlers:
            target.addHandler(h)
        target.propagate = False
    elif not logging.getLogger().handlers and not target.handlers:
        logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s")


def _keeper(settings: Mapping[str, Any]) -> PolicyKeeper:
    if settings.get("POLICY_SET") is not None:
        return PolicyKeeper((), settings["POLICY_SET"])
    sources = list(settings["POLICIES"])
    # Under gunicorn the master loaded them before forking (api/gunicorn_conf.py): reuse its compiled set.
    return kept(sources) or PolicyKeeper.load(sources)


def _exemptions(settings: Mapping[str, Any]) -> ExemptionSet:
    if settings.get("EXEMPTION_SET") is not None:
        given: ExemptionSet = settings["EXEMPTION_SET"]
        return given
    return load_exemptions(settings["EXEMPTIONS"])


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the app. ``config`` (keys: see ``api.config``) replaces the environment when given; missing
    keys take their defaults. Loads and compiles the policies once.

    Raises ``rules.loader.PolicyLoadError`` (each error with file, line, rule and reason) when a policy is
    broken, ``rules.exemptions.ExemptionLoadError`` (a ``PolicyLoadError``: each error with file, line, field
    and reason) when an ``EXEMPTIONS`` file is, and ``api.config.ConfigError`` for an unusable ``VERDICT_*``
    value (a broken ``VERDICT_EXEMPTIONS`` file included), so a server never starts half-configured.
    """
    settings = from_env() if config is None else {**defaults(), **config}
    _logging(settings["LOG_LEVEL"])
    keeper = _keeper(settings)
    exemptions = _exemptions(settings)
    app = Flask("verdict")
    app.config["MAX_CONTENT_LENGTH"] = int(settings["MAX_CONTENT_LENGTH"])
    app.config["VERDICT_READ_TIMEOUT"] = int(settings["READ_TIMEOUT"])
    app.config["VERDICT_EVAL_BUDGET"] = int(settings["EVAL_BUDGET"])
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.url_map.strict_slashes = False
    # a path with a doubled slash is no route's, a 404 problem, not Werkzeug's 308 text/html redirect whose absolute
    # Location echoed the Host header (trial 180)
    app.url_map.merge_slashes = False

    collectors = metrics.Metrics.create()
    collectors.policies_loaded(keeper)
    cache = report_cache.make(int(settings["REPORT_CACHE_MB"]) << 20, settings.get("REPORT_CACHE_DIR"))
    app.extensions[EXTENSION] = Service(keeper, collectors, int(settings["MAX_DECODED_LENGTH"]), exemptions, cache)

    app.before_request(_request_id)  # first, so that every answer and problem carries it
    metrics.install(app, collectors)  # first, so that auth refusals are timed and counted too
    app.after_request(_security_headers)
    auth.install(app, list(settings["TOKENS"]))
    problems.register(app)
    for bp in (evaluate_bp, policies_bp, ops_bp):
        app.register_blueprint(bp)
    log.info(
        "verdict ready: %s, %s (generation %d); %s; auth %s",  # trial 84: "1 policies"
        counted(len(keeper.policies.policies), "policy", "policies"),
        counted(len(keeper.policies.rules), "rule"),
        keeper.generation,
        counted(len(exemptions.exemptions), "exemption"),
        "on" if settings["TOKENS"] else "off",
    )
    return app


def _request_id() -> None:
    """Trial 171: a bot could hand a user no reference to look an answer up by. The client's ``X-Request-Id`` where it
    is one (``problems.REQUEST_ID``), else a random one; every answer says it in ``X-Request-Id``, a problem document in
    ``requestId``, the access log at the line's end."""
    given = request.headers.get("X-Request-Id", "")
    g.request_id = given if problems.REQUEST_ID.fullmatch(given) else uuid.uuid4().hex


def _security_headers(resp: Response) -> Response:
    """Every answer: no MIME sniffing (a report echoes dump text); reports and problems are never cached (they
    describe a cluster, maybe a private one), only the static contract may be; the request's id."""
    resp.headers.setdefault("X-Content-Type-Options", "nosniff")
    if rid := problems.request_id():
        resp.headers["X-Request-Id"] = rid
    if request.path != "/openapi.yaml":
        resp.headers.setdefault("Cache-Control", "no-store")
    if request.method == "OPTIONS" and resp.status_code == 200 and not resp.get_data():
        # Flask's own answer to OPTIONS: its Allow, and no body, so no content type (trial 180: text/html on nothing)
        resp.status_code = 204
        del resp.headers["Content-Type"]
        del resp.headers["Content-Length"]
    return resp
