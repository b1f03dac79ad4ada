"""The gunicorn hooks of ``api/gunicorn_conf.py`` called as gunicorn calls them, in this process: a stop signal a
new worker got before gunicorn set its handlers (benoitc/gunicorn#1910) stops it once it has started."""

from __future__ import annotations

import logging
import os
import queue
import runpy
import signal
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

CONF = Path(__file__).resolve().parent.parent / "api" / "gunicorn_conf.py"


@pytest.fixture()
def hooks() -> Iterator[dict[str, Any]]:
    """The configuration's globals (read outside gunicorn: no directories made); the handlers post_fork sets
    in this process are put back afterwards."""
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGQUIT)}
    try:
        yield runpy.run_path(str(CONF), run_name="verdict_gunicorn_conf_test")
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)


def started(hooks: dict[str, Any], master_queue: list[int], after_fork: int | None = None) -> SimpleNamespace:
    """A worker through post_fork (the master's queue as the fork copied it), then ``after_fork`` sent to this
    process, then post_worker_init."""
    pending: queue.SimpleQueue[int] = queue.SimpleQueue()
    for sig in master_queue:
        pending.put(sig)
    worker = SimpleNamespace(pid=os.getpid(), alive=True, log=logging.getLogger("verdict-test"))
    hooks["post_fork"](SimpleNamespace(SIG_QUEUE=pending), worker)
    if after_fork is not None:
        os.kill(os.getpid(), after_fork)  # the handler runs before os.kill returns (main thread)
    hooks["post_worker_init"](worker)
    return worker


def test_a_worker_that_got_no_stop_signal_serves(hooks: dict[str, Any]) -> None:
    assert started(hooks, [signal.SIGCHLD, signal.SIGHUP]).alive is True


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGQUIT])
def test_a_stop_signal_after_the_fork_stops_the_worker_once_started(hooks: dict[str, Any], sig: int) -> None:
    assert started(hooks, [], after_fork=sig).alive is False


def test_a_stop_signal_in_the_inherited_queue_stops_the_worker(hooks: dict[str, Any], caplog: pytest.LogCaptureFixture) -> None:
    """Between the fork and post_fork the worker runs the master's handler, which queues the signal in the
    worker's copy of the master's queue; the master's other signals (SIGCHLD, SIGHUP) are not the worker's."""
    with caplog.at_level(logging.INFO, logger="verdict-test"):
        worker = started(hooks, [signal.SIGCHLD, signal.SIGTERM])
    assert worker.alive is False
    assert caplog.messages == [f"worker {os.getpid()}: SIGTERM came while it started: stops now"]


def test_a_second_worker_forked_from_the_same_master_does_not_inherit_the_first_ones_stop(hooks: dict[str, Any]) -> None:
    assert started(hooks, [signal.SIGTERM]).alive is False
    assert started(hooks, []).alive is True
