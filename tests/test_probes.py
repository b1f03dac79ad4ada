"""The probe port the gunicorn master serves (``api/probes.py``): answers, bounds, and its socket in the workers.

The whole server is exercised in tests/test_e2e_gunicorn.py; here the server alone, on a loopback port."""

from __future__ import annotations

import json
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from api import probes


@pytest.fixture()
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[probes.ProbeServer]:
    monkeypatch.setattr(probes._Handler, "timeout", 0.5)
    keeper = SimpleNamespace(policies=SimpleNamespace(policies=[1, 2], rules=[1, 2, 3]), generation=4)
    srv = probes.ProbeServer("127.0.0.1:0", lambda: 2, lambda: keeper)
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()
    assert srv not in probes.RUNNING


def get(srv: probes.ProbeServer, path: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{srv.port}{path}", timeout=5) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def test_the_probes_answer_health_and_readiness(server: probes.ProbeServer) -> None:
    assert server in probes.RUNNING
    assert get(server, "/healthz") == (200, {"status": "ok", "workers": 2})
    assert get(server, "/readyz") == (200, {"status": "ready", "policies": 2, "rules": 3, "generation": 4, "workers": 2})
    status, body = get(server, "/nope")
    assert (status, body["type"]) == (404, "https://verdict.dev/problems/not-found")


def test_idle_connections_are_cut_and_bounded(server: probes.ProbeServer) -> None:
    """Trial 126: each idle connection held a thread of the gunicorn master for as long as the client kept it (2 to
    422 threads in a minute). A connection gets READ_TIMEOUT to send its request, and at most MAX_CONNECTIONS are
    served at once: one more is closed at once."""
    idle = [socket.create_connection(("127.0.0.1", server.port), timeout=5) for _ in range(probes.MAX_CONNECTIONS)]
    try:
        time.sleep(0.2)
        extra = socket.create_connection(("127.0.0.1", server.port), timeout=5)
        assert extra.recv(100) == b""  # closed: no slot
        extra.close()
        time.sleep(0.8)  # past the read timeout: the idle ones are let go, and their slots with them
        assert [s.recv(100) for s in idle] == [b""] * probes.MAX_CONNECTIONS
        assert get(server, "/healthz")[0] == 200
    finally:
        for s in idle:
            s.close()


def test_a_client_that_trickles_its_request_is_cut_at_the_deadline(server: probes.ProbeServer) -> None:
    """Trial 128: the read timeout applied to each read, so a byte every few seconds held a slot for good (16 of them
    kept the port answering nothing). The whole exchange has the deadline."""
    slow = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    try:
        t0 = time.monotonic()
        cut = False
        while time.monotonic() - t0 < 3:
            try:
                slow.sendall(b"G")
            except OSError:
                cut = True
                break
            slow.settimeout(0.2)
            try:
                if slow.recv(100) == b"":
                    cut = True
                    break
            except TimeoutError:
                pass
        assert cut and time.monotonic() - t0 < 1.5, time.monotonic() - t0
    finally:
        slow.close()


def test_a_worker_closes_the_probe_socket_it_forked_with(server: probes.ProbeServer) -> None:
    """Trial 126: the workers a SIGHUP started kept the probe port's listening socket, as gunicorn read its settings
    file again and the list of servers it held was a new, empty one: the list is the app module's."""
    import signal

    from api import gunicorn_conf

    assert server.httpd.socket.fileno() >= 0
    saved = {sig: signal.getsignal(sig) for sig in gunicorn_conf.STOP_SIGNALS}
    try:
        gunicorn_conf.post_fork(SimpleNamespace(), SimpleNamespace())  # as in a new worker
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)
    assert server.httpd.socket.fileno() == -1
