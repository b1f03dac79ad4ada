"""Routes for operators and tools, always open (no token): ``/healthz``, ``/readyz``, ``/metrics``,
``/openapi.yaml``."""

from __future__ import annotations

from flask import Blueprint, Response

from .metrics import exposition
from .openapi import spec_yaml
from .problems import Problem
from .responses import json_response, reload_dict
from .schemas import HealthSchema, ReadySchema
from .state import service

bp = Blueprint("ops", __name__)


@bp.get("/healthz")
def healthz() -> Response:
    """The process is up and answering."""
    return json_response(HealthSchema().dump({"status": "ok"}))


@bp.get("/readyz")
def readyz() -> Response:
    """Ready when a policy set with at least one rule is loaded; else 503 ``not-ready``."""
    keeper = service().keeper
    ps = keeper.policies
    if not ps.rules:
        raise Problem("not-ready", "no policy rule is loaded; see the log for the policy errors", headers={"Retry-After": "5"})
    return json_response(
        ReadySchema().dump(
            {
                "status": "ready",
                "policies": len(ps.policies),
                "rules": len(ps.rules),
                "generation": keeper.generation,
                "loadedAt": keeper.loaded_at,
                "lastReload": reload_dict(keeper),
            }
        )
    )


@bp.get("/metrics")
def metrics() -> Response:
    """``GET /metrics``: the Prometheus metrics in the text exposition format, summed over every gunicorn
    worker (``api.metrics``); no token, no problem of its own."""
    return exposition(service().metrics)


@bp.get("/openapi.yaml")
def openapi() -> Response:
    """``GET /openapi.yaml``: the OpenAPI 3.1 document of the API (``api.openapi.spec_yaml()``) as
    ``application/yaml``; no token, no problem of its own."""
    return Response(spec_yaml(), content_type="application/yaml; charset=utf-8")
