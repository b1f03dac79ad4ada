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
    worker = SimpleNamespace(pid=os.getpid(), alive=True, log=logging.getLogger("verdict-test"), handle_quit=print)
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


def test_a_second_quick_stop_signal_does_not_run_the_handler_again_inside_the_first(hooks: dict[str, Any]) -> None:
    """Regression: Ctrl-C sends SIGINT to the workers and the master sends them SIGQUIT; gthread's handler holds
    its thread pool's lock (ThreadPoolExecutor.shutdown) when the second lands, and running it again there waited
    on that lock for good. Here the handler holds a lock that is not reentrant when the second signal comes."""
    import threading

    lock = threading.Lock()
    calls: list[tuple[int, bool]] = []

    def handle_quit(signum: int, frame: Any) -> None:
        got = lock.acquire(timeout=1)  # a second run inside the first cannot take it
        calls.append((signum, got))
        if got:
            try:
                os.kill(os.getpid(), signal.SIGQUIT)  # the master's, while the first holds the lock
            finally:
                lock.release()

    worker = SimpleNamespace(pid=os.getpid(), alive=True, log=logging.getLogger("verdict-test"), handle_quit=handle_quit)
    hooks["post_fork"](SimpleNamespace(SIG_QUEUE=queue.SimpleQueue()), worker)
    hooks["post_worker_init"](worker)
    os.kill(os.getpid(), signal.SIGINT)
    assert calls == [(signal.SIGINT, True)]
    assert worker.alive is True  # the handler given decides; gthread's sets alive and exits


@pytest.mark.parametrize(("code", "status"), [(0, 0), (None, 0), (1, 1), ("reason", 1)])
def test_a_served_worker_ends_with_gunicorns_exit_status_at_once(
    hooks: dict[str, Any], monkeypatch: pytest.MonkeyPatch, code: Any, status: int
) -> None:
    ended: list[int] = []

    def fake_exit(n: int) -> None:
        ended.append(n)

    monkeypatch.setattr(os, "_exit", fake_exit)
    monkeypatch.setattr(logging, "shutdown", lambda: None)  # pytest's own handlers stay open
    worker = SimpleNamespace(booted=True)
    try:
        raise SystemExit(code)
    except SystemExit:
        hooks["worker_exit"](SimpleNamespace(), worker)
    assert ended == [status]


def test_a_worker_that_did_not_boot_or_exits_on_an_error_is_left_to_python(
    hooks: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """gunicorn's boot-error status (3) tells the master to halt: that exit is gunicorn's."""
    ended: list[int] = []
    monkeypatch.setattr(os, "_exit", ended.append)
    try:
        raise SystemExit(3)
    except SystemExit:
        hooks["worker_exit"](SimpleNamespace(), SimpleNamespace(booted=False))
    hooks["worker_exit"](SimpleNamespace(), SimpleNamespace(booted=True))  # no exit under way
    assert ended == []


def test_a_request_in_flight_when_its_worker_retires_gets_the_time_any_request_may_take(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Trial 41: a worker replaced for its memory (VERDICT_WORKER_MAX_RSS_MB) after one request took a request
    still judging on another thread with it 30 s later (graceful_timeout), with no answer, well inside the
    evaluation budget. graceful_timeout covers the read deadline and the evaluation budget."""
    monkeypatch.setenv("VERDICT_EVAL_BUDGET", "40")
    monkeypatch.setenv("VERDICT_READ_TIMEOUT", "20")
    conf = runpy.run_path(str(CONF), run_name="verdict_gunicorn_conf_test")
    assert conf["graceful_timeout"] == 20 + 40 + 10
    monkeypatch.delenv("VERDICT_EVAL_BUDGET")
    monkeypatch.delenv("VERDICT_READ_TIMEOUT")
    assert runpy.run_path(str(CONF), run_name="verdict_gunicorn_conf_test")["graceful_timeout"] == 140
