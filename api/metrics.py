"""Prometheus metrics, in a registry of the app's own (never the process-global one), served at /metrics.

Each gunicorn worker counts its own requests (no multiprocess mode): a scrape answers for the worker
that takes it. Route labels are URL rules (``/v1/rules/<path:id>``), never raw paths, so the label set
stays bounded; requests that match no route are labelled ``<unmatched>``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from flask import Flask, Response, g, request
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from rules.report import Report

from .store import PolicyKeeper

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)


@dataclass(frozen=True, slots=True)
class Metrics:
    """The app's collectors; ``registry`` is what /metrics exposes."""

    registry: CollectorRegistry
    requests: Counter
    latency: Histogram
    objects: Counter
    results: Counter
    input_errors: Counter
    load_errors: Counter
    rules: Gauge
    generation: Gauge

    @classmethod
    def create(cls) -> Metrics:
        """Fresh collectors in a new registry (never the process-global one): requests by route, method and
        status; request latency in seconds (``LATENCY_BUCKETS``) by route and method; objects evaluated; results
        by result and severity; input errors; policy load errors; rules loaded; policy generation."""
        reg = CollectorRegistry()
        return cls(
            registry=reg,
            requests=Counter(
                "verdict_http_requests",
                "HTTP requests answered, by route, method and status",
                ["route", "method", "status"],
                registry=reg,
            ),
            latency=Histogram(
                "verdict_http_request_duration_seconds",
                "Time to answer a request, by route",
                ["route", "method"],
                buckets=LATENCY_BUCKETS,
                registry=reg,
            ),
            objects=Counter("verdict_objects_evaluated", "Objects read from dumps and evaluated", registry=reg),
            results=Counter(
                "verdict_results",
                "Rule results produced, by result and severity (before filtering)",
                ["result", "severity"],
                registry=reg,
            ),
            input_errors=Counter("verdict_input_errors", "Parts of dumps that could not be read", registry=reg),
            load_errors=Counter("verdict_policy_load_errors", "Policy errors that refused a load or reload", registry=reg),
            rules=Gauge("verdict_rules_loaded", "Rules in the policy set in use", registry=reg),
            generation=Gauge("verdict_policy_generation", "Policy set generation (1 at start, +1 per reload)", registry=reg),
        )

    def policies_loaded(self, keeper: PolicyKeeper) -> None:
        """Record the policy set a process starts with (and the reload errors its master saw)."""
        self.rules.set(len(keeper.policies.rules))
        self.generation.set(keeper.generation)
        if keeper.load_errors:
            self.load_errors.inc(keeper.load_errors)

    def report(self, report: Report) -> None:
        """Count one evaluation (its whole report, before any filter)."""
        self.objects.inc(report.objects_read)
        if report.input_errors:
            self.input_errors.inc(len(report.input_errors))
        for _, r in report.results:
            self.results.labels(r.result, r.severity).inc()


def _route() -> str:
    return request.url_rule.rule if request.url_rule is not None else "<unmatched>"


def install(app: Flask, metrics: Metrics) -> None:
    """Time and count every request (the 401s of auth and the 404s of unknown routes too)."""

    @app.before_request
    def _start() -> None:
        g.verdict_t0 = time.perf_counter()

    @app.after_request
    def _count(resp: Response) -> Response:
        t0 = g.get("verdict_t0")
        route = _route()
        metrics.requests.labels(route, request.method, str(resp.status_code)).inc()
        if t0 is not None:
            metrics.latency.labels(route, request.method).observe(time.perf_counter() - t0)
        return resp


def exposition(metrics: Metrics) -> Response:
    """The Prometheus text exposition of the app's registry."""
    return Response(generate_latest(metrics.registry), content_type=CONTENT_TYPE_LATEST)
