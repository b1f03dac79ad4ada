"""What ``create_app`` sets up for the handlers: the policy keeper, the metrics and the body limits."""

from __future__ import annotations

from dataclasses import dataclass

from flask import current_app

from .metrics import Metrics
from .store import PolicyKeeper

EXTENSION = "verdict"


@dataclass(frozen=True, slots=True)
class Service:
    """Per-app state (``app.extensions["verdict"]``); ``max_decoded`` bounds a body after its
    ``Content-Encoding`` is undone, in bytes."""

    keeper: PolicyKeeper
    metrics: Metrics
    max_decoded: int


def service() -> Service:
    """The current app's ``Service``."""
    state: Service = current_app.extensions[EXTENSION]
    return state
