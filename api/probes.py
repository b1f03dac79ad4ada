"""Kubernetes probes answered by the gunicorn master on ``VERDICT_PROBE_BIND``, outside the workers' request threads.

``/healthz`` and ``/readyz`` of the API port are served by the same ``VERDICT_WORKERS x VERDICT_THREADS`` threads
as ``/v1/evaluate``: while every one of them judges a large dump, a probe waits behind them (trial 125: 12.3 s for
``/healthz`` under 12 evaluations of a 20 MB dump), a liveness probe's default 1 s timeout runs out, and the kubelet
restarts a pod that is busy, not broken, losing what it was judging. On its own port, the master answers at once:

- ``GET /healthz``: 200 ``{"status": "ok", "workers": N}`` while the master runs (it replaces a worker that dies
  or hangs past gunicorn's timeout itself: a restart of the pod would not do better);
- ``GET /readyz``: 200 with the policy set's counts and generation (the master loads and reloads it) when a rule
  is loaded and a worker runs; else 503 ``not-ready`` (``application/problem+json``, ``Retry-After: 5``).

Standard library only (``http.server``); the thread logs nothing (a lock held by it at a fork would be the new
worker's), and each worker closes its copy of the listening socket once forked (``close_in_worker``).
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .problems import MEDIA_TYPE, PROBLEM_TYPE, TITLES

#: What the handler reads: the number of workers running, and the loaded policy set's keeper (or None).
Workers = Callable[[], int]
Keeper = Callable[[], Any]


def parse_bind(bind: str) -> tuple[str, int]:
    """``[tcp://]host:port`` (``[::1]:8081``, ``0.0.0.0:8081``) as an address, as gunicorn reads its bind (trial 141:
    tcp:// was said free by serve --check-bind, then refused here); ``ValueError`` for anything else."""
    host, sep, port = bind.strip().removeprefix("tcp://").rpartition(":")
    if not sep or not (port.isascii() and port.isdigit()) or not 0 <= int(port) < 65536:  # 0: any free port
        raise ValueError(f"{bind!r} is not host:port")
    return host.strip("[]") or "0.0.0.0", int(port)


#: Connections served at once, and the seconds one may take in all, from accepted to answered: a probe is one small
#: GET that takes milliseconds (trial 126: idle connections took the master from 2 to 422 threads in a minute, on a
#: port the image binds on 0.0.0.0; trial 128: a read timeout alone let a byte every 3 s hold a slot for good).
MAX_CONNECTIONS = 64
READ_TIMEOUT = 2.0
#: The probe servers this process runs: a module of the app, so that gunicorn's second reading of its settings file
#: (a SIGHUP) finds the one the first reading started, and each new worker closes it (``close_in_worker``).
RUNNING: list[ProbeServer] = []


class _Handler(BaseHTTPRequestHandler):
    server_version = "verdict-probes"
    timeout = READ_TIMEOUT
    workers: Workers
    keeper: Keeper

    def setup(self) -> None:
        super().setup()
        # the whole exchange has READ_TIMEOUT seconds: a client that trickles its request is cut at the deadline
        self._deadline = threading.Timer(self.timeout, _cut, (self.request,))
        self._deadline.daemon = True
        self._deadline.start()

    def finish(self) -> None:
        self._deadline.cancel()
        super().finish()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - http.server's signature
        """No access log: probes every few seconds would bury the service's own lines."""

    def _send(self, status: int, body: dict[str, Any], content_type: str, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _problem(self, slug: str, detail: str, headers: dict[str, str] | None = None) -> None:
        status, title = TITLES[slug]
        body = {"type": PROBLEM_TYPE + slug, "title": title, "status": status, "detail": detail}
        self._send(status, body, MEDIA_TYPE, headers)

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        path = self.path.split("?", 1)[0]
        workers = self.workers()
        if path == "/healthz":
            self._send(200, {"status": "ok", "workers": workers}, "application/json")
        elif path == "/readyz":
            keeper = self.keeper()
            rules = len(keeper.policies.rules) if keeper is not None else 0
            if not rules or not workers:
                why = "no policy rule is loaded" if not rules else "no worker runs yet"
                self._problem("not-ready", f"{why}; see the log", {"Retry-After": "5"})
                return
            body = {
                "status": "ready",
                "policies": len(keeper.policies.policies),
                "rules": rules,
                "generation": keeper.generation,
                "workers": workers,
            }
            self._send(200, body, "application/json")
        else:
            self._problem("not-found", f"the probe port answers /healthz and /readyz, not {path}")

    do_HEAD = do_GET  # noqa: N815 - http.server's name

    def _not_allowed(self) -> None:
        self._problem("method-not-allowed", "the probes answer GET and HEAD", {"Allow": "GET, HEAD"})

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _not_allowed  # noqa: N815


def _cut(conn: socket.socket) -> None:
    """End a connection past its deadline (its thread's read then returns)."""
    try:
        conn.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


class _BoundedServer(ThreadingHTTPServer):
    """A thread a connection, at most ``MAX_CONNECTIONS`` at once: one past them is closed at once (a probe tries
    again at its next period)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.slots = threading.BoundedSemaphore(MAX_CONNECTIONS)  # this server's own (a class's would be every one's)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self.slots.acquire(blocking=False):
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()


class ProbeServer:
    """The probe port's server and the thread that serves it."""

    def __init__(self, bind: str, workers: Workers, keeper: Keeper) -> None:
        handler = type("ProbeHandler", (_Handler,), {"workers": staticmethod(workers), "keeper": staticmethod(keeper)})
        host, port = parse_bind(bind)
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        server = type("ProbeHTTPServer", (_BoundedServer,), {"address_family": family, "daemon_threads": True})
        self.httpd = server((host, port), handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="verdict-probes", daemon=True)

    @property
    def port(self) -> int:
        return int(self.httpd.server_address[1])

    def start(self) -> None:
        self.thread.start()
        RUNNING.append(self)

    def close_in_worker(self) -> None:
        """In a forked worker: close its copy of the listening socket (the thread did not come with the fork)."""
        self.httpd.socket.close()

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        if self in RUNNING:
            RUNNING.remove(self)
