"""What ``create_app`` sets up for the handlers: the policy keeper, the metrics, the body limits and the
exemptions."""

from __future__ import annotations

from dataclasses import dataclass, field

from flask import current_app

from rules.exemptions import ExemptionSet

from .cache import LocalReports, ReportCache
from .metrics import Metrics
from .store import PolicyKeeper

EXTENSION = "verdict"


@dataclass(frozen=True, slots=True)
class Service:
    """Per-app state (``app.extensions["verdict"]``); ``max_decoded`` bounds a body after its
    ``Content-Encoding`` is undone, in bytes; ``exemptions`` come from the exemptions files
    (``VERDICT_EXEMPTIONS``); ``cache`` keeps reports by what they were judged from (``api.cache``)."""

    keeper: PolicyKeeper
    metrics: Metrics
    max_decoded: int
    exemptions: ExemptionSet = ExemptionSet()
    cache: ReportCache = field(default_factory=lambda: LocalReports(0))


def service() -> Service:
    """The current app's ``Service``."""
    state: Service = current_app.extensions[EXTENSION]
    return state
