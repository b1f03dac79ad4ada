"""Prometheus metrics, served at /metrics; never in prometheus_client's process-global registry.

Two ways to count, chosen by ``PROMETHEUS_MULTIPROC_DIR`` (prometheus_client's multiprocess mode):

- **under gunicorn** (``api/gunicorn_conf.py``, gunicorn's settings, sets the variable in the master before
  anything imports prometheus_client, which picks its mode once, at import): every worker writes its counters and
  histograms to files of its own in that directory, and a scrape, whichever worker answers it, sums the
  files of all workers, live and exited (``MultiProcessCollector`` in a fresh registry), so successive
  scrapes never go back;
- **otherwise** (tests, ``create_app()`` in one process): each app counts in a registry of its own, so
  many apps in one process do not add up.

The policy set's facts (rules loaded, generation, refused-reload errors) are not counted by the workers:
every worker forks with the master's keeper, so the worker that answers reads them from its keeper at
scrape time (``PolicyCollector``). Summed over workers they would be multiplied, so they are never
written to the files; there is no gauge in the files, hence no gauge multiprocess mode to choose.

Route labels are URL rules (``/v1/rules/<path:id>``), never raw paths, so the label set stays bounded;
requests that match no route are labelled ``<unmatched>``.
"""

from __future__ import annotations

import collections
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass

from flask import Flask, Response, g, request
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector

from rules.report import Report

from .store import PolicyKeeper

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)

#: The variable that turns prometheus_client's multiprocess mode on (set by ``api/gunicorn_conf.py``).
MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


def multiprocess_dir() -> str | None:
    """The directory the workers of this server share their counts in, or ``None`` when this process
    counts alone."""
    return os.environ.get(MULTIPROC_ENV) or None


class PolicyCollector:
    """``verdict_rules_loaded``, ``verdict_policy_generation`` and ``verdict_policy_load_errors_total``,
    read from the keeper when scraped (nothing until ``keeper`` is set)."""

    def __init__(self) -> None:
        self.keeper: PolicyKeeper | None = None

    def collect(self) -> Iterator[Metric]:
        keeper = self.keeper
        if keeper is None:
            return
        yield GaugeMetricFamily("verdict_rules_loaded", "Rules in the policy set in use", value=len(keeper.policies.rules))
        yield GaugeMetricFamily(
            "verdict_policy_generation", "Policy set generation (1 at start, +1 per reload)", value=keeper.generation
        )
        yield CounterMetricFamily(
            "verdict_policy_load_errors", "Policy errors that refused a load or reload", value=keeper.load_errors
        )


@dataclass(frozen=True, slots=True)
class Metrics:
    """The app's collectors; ``registry`` is what /metrics exposes when the process counts alone."""

    registry: CollectorRegistry
    requests: Counter
    latency: Histogram
    objects: Counter
    results: Counter
    input_errors: Counter
    policy: PolicyCollector
    cache: Counter

    @classmethod
    def create(cls) -> Metrics:
        """Fresh collectors in a new registry (never the process-global one): requests by route, method and
        status; request latency in seconds (``LATENCY_BUCKETS``) by route and method; objects evaluated; results
        by result and severity; input errors; the policy set's facts (``policies_loaded``); and the report
        cache's answers by ``Cache-Status`` (``api.cache``)."""
        reg = CollectorRegistry()
        policy = PolicyCollector()
        reg.register(policy)
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
            policy=policy,
            cache=Counter(
                "verdict_report_cache",
                "Evaluate answers by what the report cache did: hit, miss, request (no-cache), stale (max-age), bypass",
                ["outcome"],
                registry=reg,
            ),
        )

    def policies_loaded(self, keeper: PolicyKeeper) -> None:
        """Report the policy set ``keeper`` holds (and the reload errors its master saw)."""
        self.policy.keeper = keeper

    def report(self, report: Report) -> None:
        """Count one evaluation (its whole report, before any filter)."""
        self.objects.inc(report.objects_read)
        if report.input_errors:
            self.input_errors.inc(len(report.input_errors))
        # One labels() lookup per (result, severity), not per result: a lab dump has ~300 results a request.
        counts = collections.Counter((r.result, r.severity) for _, r in report.results)
        for (result, severity), n in counts.items():
            self.results.labels(result, severity).inc(n)


def _route() -> str:
    return request.url_rule.rule if request.url_rule is not None else "<unmatched>"


#: The methods counted by name; any other (a client may send any token) is counted as "other", so that no
#: request can add a label value. Routes are the app's rules or "<unmatched>"; statuses are HTTP's.
KNOWN_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def _method() -> str:
    return request.method if request.method in KNOWN_METHODS else "other"


def _status(code: int) -> str:
    return str(code) if 100 <= code <= 599 else "other"


def install(app: Flask, metrics: Metrics) -> None:
    """Time and count every request (the 401s of auth and the 404s of unknown routes too)."""

    @app.before_request
    def _start() -> None:
        g.verdict_t0 = time.perf_counter()

    @app.after_request
    def _count(resp: Response) -> Response:
        t0 = g.get("verdict_t0")
        route = _route()
        method = _method()
        metrics.requests.labels(route, method, _status(resp.status_code)).inc()
        if t0 is not None:
            metrics.latency.labels(route, method).observe(time.perf_counter() - t0)
        return resp


def exposition(metrics: Metrics) -> Response:
    """The Prometheus text exposition: the sum over every worker's files in multiprocess mode (a fresh
    registry each scrape, as prometheus_client asks), else the app's registry."""
    path = multiprocess_dir()
    if path is None:
        registry = metrics.registry
    else:
        registry = CollectorRegistry()
        MultiProcessCollector(registry, path=path)
        registry.register(metrics.policy)
    return Response(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)
