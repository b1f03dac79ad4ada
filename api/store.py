"""The compiled policies a process serves, and how a reload keeps the last good set.

Policies are loaded and compiled once (``load_policies``); evaluation only reads them. Under gunicorn the
master process loads them at start (``api/gunicorn_conf.py``: ``on_starting``), so a broken policy stops the
server before it listens, and workers forked from it inherit the compiled set (``kept``). On ``SIGHUP``
gunicorn's ``on_reload`` hook calls ``PolicyKeeper.reload``: a set that loads replaces the old one, a set
that does not is refused (each error logged with file, line, rule and reason) and the last good set stays;
gunicorn then replaces its workers, which fork with whatever the keeper holds.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from rules.errors import PolicyError
from rules.loader import PolicyLoadError, PolicySet, load_policies


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True, slots=True)
class ReloadOutcome:
    """The last reload attempt: when, whether it was applied, and the errors that refused it."""

    at: str
    ok: bool
    errors: tuple[PolicyError, ...] = ()


@dataclass(slots=True)
class PolicyKeeper:
    """The policy set in use (``policies``), where it comes from (``sources``; empty for the built-in
    packs), when it was loaded, its ``generation`` (1 at start, +1 for each applied reload), the count of
    policy errors seen by refused reloads (``load_errors``) and the ``last_reload`` attempt."""

    sources: tuple[str, ...]
    policies: PolicySet
    loaded_at: str = field(default_factory=_now)
    generation: int = 1
    load_errors: int = 0
    last_reload: ReloadOutcome | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def load(cls, sources: Sequence[str]) -> PolicyKeeper:
        """Load and compile ``sources``. Raises ``rules.loader.PolicyLoadError`` (every error found)."""
        return cls(tuple(sources), load_policies(sources))

    def reload(self) -> ReloadOutcome:
        """Load the sources again; apply the new set only when it loads whole. Never raises for a broken
        policy: the outcome says what happened and the previous set stays in use."""
        with self._lock:
            try:
                fresh = load_policies(self.sources)
            except PolicyLoadError as exc:
                self.load_errors += len(exc.errors)
                self.last_reload = ReloadOutcome(_now(), False, tuple(exc.errors))
                return self.last_reload
            self.policies = fresh
            self.loaded_at = _now()
            self.generation += 1
            self.last_reload = ReloadOutcome(self.loaded_at, True)
            return self.last_reload


#: The keeper the gunicorn master loaded before forking its workers (see the module docstring).
_KEPT: PolicyKeeper | None = None


def keep(sources: Sequence[str]) -> PolicyKeeper:
    """Load ``sources`` and hand the keeper to processes forked later. Raises ``PolicyLoadError``."""
    global _KEPT
    _KEPT = PolicyKeeper.load(sources)
    return _KEPT


def kept(sources: Sequence[str]) -> PolicyKeeper | None:
    """The keeper handed down by the master for the same sources, if any."""
    if _KEPT is not None and _KEPT.sources == tuple(sources):
        return _KEPT
    return None


def forget() -> None:
    """Drop the handed-down keeper (tests)."""
    global _KEPT
    _KEPT = None
