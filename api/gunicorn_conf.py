"""gunicorn settings for verdict, a configuration file gunicorn reads by path: ``verdict serve`` runs
``gunicorn --config <this file> app:app`` from the folder that holds ``api/`` and ``app.py`` (a checkout, or
site-packages of an installed wheel, which ships this file with ``api``); in a checkout or the Docker image
``gunicorn --config gunicorn.conf.py app:app`` reads it through the repository's ``gunicorn.conf.py``.

Everything comes from ``VERDICT_*`` variables, read by ``api.config.from_env`` (docs/service.md):
``VERDICT_BIND`` (127.0.0.1:8080), ``VERDICT_WORKERS`` (2), ``VERDICT_LOG_LEVEL`` (INFO); the app reads
the others. A bad ``VERDICT_*`` value stops the start with one line (``verdict: VERDICT_MAX_BODY='abc' is
not a whole number``) and exit status 2. The master loads and compiles the policies before it listens (``on_starting``): a broken
policy stops the server with each error's file, line, rule and reason, and workers fork with the
compiled set. ``kill -HUP <master>`` reloads them (``on_reload``): a set that loads is used by the new
workers; a broken one is logged and refused, and the new workers keep the last good set.

Metrics add up over the workers (prometheus_client's multiprocess mode, ``api.metrics``): before ``api``
(hence prometheus_client) is imported, this file points ``PROMETHEUS_MULTIPROC_DIR`` at a fresh private
directory (``VERDICT_METRICS_DIR`` when set, emptied of ``*.db`` files; else a temporary directory removed
when the master exits), and ``child_exit`` does prometheus_client's bookkeeping for a worker that is gone.
"""

from __future__ import annotations

import atexit
import logging
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path
from typing import Any

# The folder that holds api/ and app.py: a checkout's root, or site-packages. The config is read before
# gunicorn puts --chdir on sys.path, and it imports api.config.
_ROOT = str(Path(__file__).resolve().parent.parent)
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

# "<master pid>:<directory>": which master chose the directory a variable names (the metrics', the reports'),
# so that gunicorn's second reading of this file (on SIGHUP) keeps the one the workers use.
_METRICS_OWNER = "_VERDICT_METRICS_OWNER"
_REPORTS_OWNER = "_VERDICT_REPORTS_OWNER"


def _chosen_by_this_master(variable: str, owner: str) -> str:
    """The directory ``variable`` names when this master chose it (a SIGHUP reading of this file), else ""."""
    current = os.environ.get(variable, "")
    return current if current and os.environ.get(owner) == f"{os.getpid()}:{current}" else ""


def _hand_down(variable: str, owner: str, path: str) -> str:
    """Name ``path`` in ``variable`` for the workers to come, as this master's choice."""
    os.environ[variable] = path
    os.environ[owner] = f"{os.getpid()}:{path}"
    return path


def _remove_dir(path: str, master: int) -> None:
    """Remove a directory the master made (the metrics', the reports')."""
    if os.getpid() == master:  # workers run the atexit handlers they forked with: only the master removes it
        shutil.rmtree(path, ignore_errors=True)


def _remove_orphans(parent: str, what: str) -> None:
    """Remove the directories (``verdict-<what>-<master pid>-*``: the reports', the metrics') of masters no longer
    running: one killed with SIGKILL ran no exit handler. A directory whose master runs, or that is another
    user's, stays."""
    try:
        names = os.listdir(parent)
    except OSError:
        return
    for name in names:
        parts = name.split("-")
        if len(parts) < 4 or parts[:2] != ["verdict", what] or not parts[2].isdigit():
            continue
        try:
            os.kill(int(parts[2]), 0)
        except ProcessLookupError:
            shutil.rmtree(os.path.join(parent, name), ignore_errors=True)
        except (OverflowError, OSError):  # its master runs as another user (PermissionError), or no such pid
            continue


def _metrics_dir() -> str | None:
    """Point ``PROMETHEUS_MULTIPROC_DIR`` at the directory this server's workers count in, and return it.

    It must be set before prometheus_client is imported (it picks its mode once, at import; ``api`` imports
    it), so this runs before ``api.config`` is. A directory inherited in ``PROMETHEUS_MULTIPROC_DIR`` is not
    used: another server, or a stale run, could be counting there. Only when gunicorn reads this file (as
    its module ``__config__``): a test that imports it for its settings gets no directory.
    """
    if __name__ != "__config__":
        return None
    current = _chosen_by_this_master("PROMETHEUS_MULTIPROC_DIR", _METRICS_OWNER)
    if current:
        return current  # SIGHUP: gunicorn reads this file again; new workers count with the old ones
    chosen = os.environ.get("VERDICT_METRICS_DIR", "").strip()
    try:
        if chosen:
            path = os.path.abspath(chosen)
            os.makedirs(path, mode=0o700, exist_ok=True)
            for name in os.listdir(path):  # counts of an earlier run would add to this one's
                if name.endswith(".db"):
                    os.remove(os.path.join(path, name))
        else:
            _remove_orphans(tempfile.gettempdir(), "metrics")
            path = tempfile.mkdtemp(prefix=f"verdict-metrics-{os.getpid()}-")
            atexit.register(_remove_dir, path, os.getpid())
    except OSError as exc:
        where = f"VERDICT_METRICS_DIR={chosen!r}" if chosen else "a temporary directory for the metrics"
        print(f"verdict: {where} cannot be used: {exc.strerror or exc}", file=sys.stderr)
        raise SystemExit(2) from None
    return _hand_down("PROMETHEUS_MULTIPROC_DIR", _METRICS_OWNER, path)


_metrics = _metrics_dir()


from api.config import REPORT_CACHE_DIR_VARIABLE, ConfigError, from_env  # noqa: E402

try:
    _settings = from_env()
except ConfigError as _exc:
    # One line and exit status 2 (a usage error, like the CLI's), not gunicorn's "Failed to read config
    # file" traceback: SystemExit is not an Exception, so gunicorn lets it through.
    print(f"verdict: {_exc}", file=sys.stderr)
    raise SystemExit(2) from None


def _reports_dir() -> str | None:
    """The directory where this server's workers keep the reports they judged (``api.cache.SharedReports``), so
    that a request finds a report whichever worker takes it: made private (0700) by the master, in ``/dev/shm``
    when there is one (memory, like the reports), removed when the master exits; handed to the workers in the
    environment (``api.config`` reads it). None when the cache is off (``VERDICT_REPORT_CACHE_MB=0``) or this
    file is not read by gunicorn; a directory that cannot be made leaves each worker its own cache."""
    if __name__ != "__config__" or not _settings["REPORT_CACHE_MB"]:
        return None
    current = _chosen_by_this_master(REPORT_CACHE_DIR_VARIABLE, _REPORTS_OWNER)
    if current:
        return current  # SIGHUP: the new workers share the old ones' reports (their keys hold the generation)
    parent = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()
    _remove_orphans(parent, "reports")
    try:
        path = tempfile.mkdtemp(prefix=f"verdict-reports-{os.getpid()}-", dir=parent)
    except OSError as exc:
        print(f"verdict: no directory for the workers' report cache ({exc.strerror or exc}): each keeps its own", file=sys.stderr)
        return None
    atexit.register(_remove_dir, path, os.getpid())
    return _hand_down(REPORT_CACHE_DIR_VARIABLE, _REPORTS_OWNER, path)


_reports = _reports_dir()

bind = [_settings["BIND"]]
workers = _settings["WORKERS"]
# Threads, not sync workers: a client that sends its body slowly holds one thread of a worker, and the app
# gives the whole body READ_TIMEOUT seconds (api.bodies), so slow clients cannot hold every worker.
worker_class = "gthread"
threads = _settings["THREADS"]
timeout = 120  # a large archive can take a while to read and evaluate
# A request in flight when its worker retires (VERDICT_WORKER_MAX_RSS_MB after another request, SIGHUP, a stop)
# gets the time any request may take: its body's read deadline, its evaluation budget, and its answer. At 30 s a
# worker replaced for its memory took a request judging for longer with it, answering nothing (trial 41). A stop
# with nothing in flight is as quick as before.
graceful_timeout = _settings["READ_TIMEOUT"] + _settings["EVAL_BUDGET"] + 10
# A worker that parsed a large dump keeps its memory high: post_request replaces a worker whose resident
# memory is above VERDICT_WORKER_MAX_RSS_MB once it has answered. Counting requests is only a safety net: a
# worker replaced every 1,000 requests (as before) restarted every few seconds under load and lost what it had
# warmed (compiled rule plans, remembered outcomes, kept reports): at 32 clients on the lab dump, 332 -> 429
# requests/s and p99 323 -> 161 ms with it lifted (bench/README.md). Jittered so they do not restart together.
max_requests = 50_000
max_requests_jitter = 5_000
# No keep-alive: a gthread worker keeps the connections it accepted, so 32 clients that connected at once could
# all stay with one worker while the other idled (the lab benchmark ran at ~185 or ~400 requests/s by which
# worker took them: 3 runs of 30 s, 408, 393, 187). Closed after each answer, each request is accepted by a
# worker that is free: 424-472 requests/s, p99 152-175 ms (3 runs); a different body every request 49-70 ->
# 78-89 requests/s. A new connection on a local network costs far less than judging a dump.
keepalive = 0
loglevel = _settings["LOG_LEVEL"].lower()
accesslog = "-"  # request lines only (method, path, status, size, time, the worker): bodies and tokens never
errorlog = "-"
access_log_format = '%(h)s "%(r)s" %(s)s %(B)s %(M)sms worker %(p)s request %({x-request-id}o)s'
limit_request_line = 8190
proc_name = "verdict"
# Worker heartbeat files in memory: on a container's overlay filesystem (or a read-only root) /tmp can
# stall or fail them.
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
# gunicorn >= 25.1 opens a control socket at $HOME/.gunicorn/gunicorn.ctl by default: one path shared by
# every instance of a user (they clash), unwritable for the image's home-less user, and a second way to
# reload workers that bypasses on_reload's policy check. SIGHUP is the reload path. (Older gunicorn ignores it.)
control_socket_disable = True


def on_starting(server: Any) -> None:
    """Load the policies in the master; refuse to start when they do not load."""
    from api.store import keep
    from rules.loader import PolicyLoadError
    from rules.report import counted

    if _metrics:
        server.log.info("metrics: the workers count in %s", _metrics)
    if _reports:
        server.log.info("reports: the workers keep the reports they judged in %s", _reports)

    try:
        keeper = keep(_settings["POLICIES"])
    except PolicyLoadError as exc:
        for err in exc.errors:
            server.log.error("policy refused: %s", err)
        server.log.error("verdict not started: %d policy error(s)", len(exc.errors))
        raise SystemExit(1) from None
    server.log.info(
        "policies loaded: %s, %s",
        counted(len(keeper.policies.policies), "policy", "policies"),
        counted(len(keeper.policies.rules), "rule"),
    )
    if _settings["PROBE_BIND"]:
        _start_probes(server)


def _start_probes(server: Any) -> None:
    """Answer /healthz and /readyz on ``VERDICT_PROBE_BIND`` in the master (``api.probes``): a probe never waits
    behind the workers' evaluations (trial 125). An address that cannot be used stops the start."""
    from api.probes import ProbeServer
    from api.store import kept

    try:
        probes = ProbeServer(_settings["PROBE_BIND"], lambda: len(server.WORKERS), lambda: kept(_settings["POLICIES"]))
    except OSError as exc:
        bind = _settings["PROBE_BIND"]
        server.log.error("verdict not started: VERDICT_PROBE_BIND=%s cannot be used: %s", bind, exc.strerror or exc)
        raise SystemExit(1) from None
    probes.start()
    server.log.info("probes: /healthz and /readyz answered by the master on %s", _settings["PROBE_BIND"])


def on_reload(server: Any) -> None:
    """SIGHUP: reload the policies; keep the last good set when the new one does not load."""
    from api.store import kept

    keeper = kept(_settings["POLICIES"])
    if keeper is None:  # started without on_starting (should not happen): the workers load on their own
        return
    outcome = keeper.reload()
    if outcome.ok:
        server.log.info("policies reloaded: generation %d, %d rules", keeper.generation, len(keeper.policies.rules))
        return
    for err in outcome.errors:
        server.log.error("policy reload refused: %s", err)
    server.log.error("policy reload refused (%d error(s)); still serving generation %d", len(outcome.errors), keeper.generation)


def resident_bytes() -> int:
    """This process's resident memory now (``/proc/self/statm``), else its peak (``getrusage``)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux


def post_request(worker: Any, req: Any, environ: Any, resp: Any) -> None:
    """Replace this worker once it has answered, when its resident memory is above
    ``VERDICT_WORKER_MAX_RSS_MB`` (a large dump's memory is not all given back to the system): it finishes the
    requests it holds and exits, and the master forks a fresh one."""
    limit = _settings["WORKER_MAX_RSS_MB"] << 20
    if not limit or not worker.alive:
        return
    rss = resident_bytes()
    if rss > limit:
        worker.log.info(
            "worker %s: resident memory %d MiB is above VERDICT_WORKER_MAX_RSS_MB=%d: replaced after this request",
            worker.pid,
            rss >> 20,
            _settings["WORKER_MAX_RSS_MB"],
        )
        worker.alive = False


# The stop signals a worker got before it set its own handlers (gunicorn's Worker.init_signals): gunicorn loses
# them (benoitc/gunicorn#1910), so a SIGTERM to the master just as it replaced a worker (after
# VERDICT_WORKER_MAX_RSS_MB, or a crash) left that worker serving until graceful_timeout (30 s) ran out and the
# master killed it, and whoever stopped the server sooner (a test, a supervisor) killed the master with SIGKILL,
# which ran no exit handler and left its directories behind.
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGQUIT)
_stops_before_start: list[int] = []


def post_fork(server: Any, worker: Any) -> None:
    """In the new worker, before gunicorn sets its handlers: note the stop signals that arrive until then.
    One that came since the fork went to the master's handler the worker inherited, into its copy of the
    master's queue: taken from there too (a stop the master had queued before the fork reaches this worker
    anyway)."""
    del _stops_before_start[:]
    from api.probes import RUNNING  # the app's module: the same list after gunicorn reads this file again (SIGHUP)

    for probes in RUNNING:  # the master's listening socket: the worker has no thread to serve it
        probes.close_in_worker()
    for sig in STOP_SIGNALS:
        signal.signal(sig, lambda signum, frame: _stops_before_start.append(signum))
    pending = getattr(server, "SIG_QUEUE", None)
    while pending is not None:
        try:
            sig = pending.get_nowait()
        except Exception:  # queue.Empty: nothing more
            break
        if sig in STOP_SIGNALS:
            _stops_before_start.append(sig)


def post_worker_init(worker: Any) -> None:
    """The worker has its own handlers and the app: one asked to stop while it started stops now.

    Its quick-stop handler (SIGINT, SIGQUIT) runs once: Ctrl-C sends SIGINT to the workers too, and the master
    sends them SIGQUIT; the second, run inside the first while gthread's handler held its thread pool's lock
    (``ThreadPoolExecutor.shutdown``), waited on that lock for good, and the master SIGKILLed the worker at
    graceful_timeout: Ctrl-C took 30 s about one stop in ten (py-spy on such a worker)."""
    quit_once = _once(worker.handle_quit)
    signal.signal(signal.SIGINT, quit_once)
    signal.signal(signal.SIGQUIT, quit_once)
    if _stops_before_start:
        worker.log.info("worker %s: %s came while it started: stops now", worker.pid, signal.Signals(_stops_before_start[0]).name)
        worker.alive = False


def _once(handler: Any) -> Any:
    """``handler`` as a signal handler that runs on the first signal only: the later ones find it under way."""
    began: list[int] = []

    def once(signum: int, frame: Any) -> None:
        if began:
            return
        began.append(signum)
        handler(signum, frame)

    return once


def worker_exit(server: Any, worker: Any) -> None:
    """A served worker is done (in the worker, its run loop left: the requests it held answered, or
    graceful_timeout spent on them after SIGTERM, or none awaited after SIGINT/SIGQUIT): end the process with
    gunicorn's exit status now. Python's own exit joins the request threads, and one blocked reading a client
    that sends nothing more (an idle or half-sent connection) held the worker until the master's SIGKILL at
    graceful_timeout: Ctrl-C took 30 s about one stop in ten. A worker that failed to boot exits as gunicorn
    has it (its status tells the master to halt)."""
    exc = sys.exception()
    if not isinstance(exc, SystemExit) or not getattr(worker, "booted", False):
        return
    status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    logging.shutdown()  # flush the log lines (os._exit runs no exit handler)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(status)


def child_exit(server: Any, worker: Any) -> None:
    """A worker is gone (recycled, reloaded, crashed): prometheus_client's bookkeeping drops its live gauges.
    Its counters and histograms stay in the directory, so the totals never go back."""
    if _metrics:
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid, _metrics)


def on_exit(server: Any) -> None:
    """The master stops, its workers gone: remove the reports they kept (the atexit handler is a fallback; a
    worker still writing one when it ran left the directory behind)."""
    if _reports:
        shutil.rmtree(_reports, ignore_errors=True)
    from api.probes import RUNNING

    for probes in list(RUNNING):
        probes.stop()
