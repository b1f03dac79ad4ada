"""What ``create_app`` sets up for the handlers: the policy keeper, the metrics, the body limits and the
exemptions."""

from __future__ import annotations

from dataclasses import dataclass

from flask import current_app

from rules.exemptions import ExemptionSet

from .metrics import Metrics
from .store import PolicyKeeper

EXTENSION = "verdict"


@dataclass(frozen=True, slots=True)
class Service:
    """Per-app state (``app.extensions["verdict"]``); ``max_decoded`` bounds a body after its
    ``Content-Encoding`` is undone, in bytes; ``exemptions`` come from the exemptions files
    (``VERDICT_EXEMPTIONS``)."""

    keeper: PolicyKeeper
    metrics: Metrics
    max_decoded: int
    exemptions: ExemptionSet = ExemptionSet()


def service() -> Service:
    """The current app's ``Service``."""
    state: Service = current_app.extensions[EXTENSION]
    return state
