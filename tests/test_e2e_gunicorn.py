"""End to end: real gunicorn (``python -m gunicorn --config gunicorn.conf.py app:app``) on a free
loopback port, driven over HTTP. The lab dump is posted as JSON, YAML and .tar.gz and must give the same
per-object verdicts; SIGHUP reloads the policies and keeps the last good set when the new one is broken;
a broken policy stops gunicorn at start with the file, line and reason; /metrics sums every worker's counts
(prometheus_client's multiprocess mode), through worker replacement, and starts from zero on a restart."""

from __future__ import annotations

import gzip
import http.client
import io
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.parser import text_string_to_metric_families

ROOT = Path(__file__).resolve().parent.parent
LAB = ROOT / "examples" / "lab-cluster.yaml"
API_DATA = ROOT / "tests" / "data" / "api"
START_TIMEOUT = 30.0


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Server:
    proc: subprocess.Popen[bytes]
    base: str
    log: Path

    def request(
        self, path: str, data: bytes | None = None, headers: dict[str, str] | None = None, method: str | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        req = urllib.request.Request(self.base + path, data=data, headers=headers or {}, method=method)
        try:
            with urllib.request.urlopen(req, timeout=30) as resp:
                return resp.status, dict(resp.headers), resp.read()
        except urllib.error.HTTPError as exc:
            return exc.code, dict(exc.headers), exc.read()

    def json(self, path: str, **kw: Any) -> Any:
        status, _, body = self.request(path, **kw)
        assert status == 200, body.decode(errors="replace")
        return json.loads(body)


def start(env_extra: dict[str, str], log: Path, conf: str = "gunicorn.conf.py") -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("VERDICT_")}
    env.update({"VERDICT_BIND": f"127.0.0.1:{port}", "VERDICT_WORKERS": "2", **env_extra})
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "--config", conf, "app:app"],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    return proc, f"http://127.0.0.1:{port}"


def stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)


@contextmanager
def serving(env_extra: dict[str, str], log: Path, conf: str = "gunicorn.conf.py") -> Iterator[Server]:
    """gunicorn started with ``env_extra``, once it answers /healthz; stopped on the way out."""
    proc, base = start(env_extra, log, conf)
    srv = Server(proc, base, log)
    try:
        deadline = time.monotonic() + START_TIMEOUT
        while True:
            if proc.poll() is not None:
                pytest.fail(f"gunicorn exited with {proc.returncode}:\n{log.read_text(errors='replace')}")
            try:
                if srv.request("/healthz")[0] == 200:
                    break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"gunicorn did not answer /healthz in {START_TIMEOUT}s:\n{log.read_text(errors='replace')}")
            time.sleep(0.1)
        yield srv
    finally:
        stop(proc)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """gunicorn serving the built-in pack plus a copy of the test pack (which the reload test edits)."""
    tmp = tmp_path_factory.mktemp("e2e")
    shutil.copytree(API_DATA / "gpu-lab", tmp / "gpu-lab")
    with serving({"VERDICT_POLICIES": os.pathsep.join(["gpu-operator", str(tmp / "gpu-lab")])}, tmp / "gunicorn.log") as srv:
        yield srv


def per_object(report: dict[str, Any]) -> dict[str, tuple[str, tuple[tuple[str, str], ...]]]:
    """object -> (verdict, ((rule, result), ...))."""
    out = {}
    for o in report["objects"]:
        key = "/".join(p for p in (o["kind"], o["namespace"], o["name"]) if p)
        out[key] = (o["verdict"], tuple(sorted((f"{r['policy']}/{r['rule']}", r["result"]) for r in o["results"])))
    return out


def lab_tar_gz(text: str) -> bytes:
    """The lab dump as a must-gather-like archive: one file per document."""
    docs = [d for d in yaml.safe_load_all(text) if d]
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for i, doc in enumerate(docs):
            data = yaml.safe_dump(doc).encode()
            info = tarfile.TarInfo(f"lab/{doc['kind'].lower()}-{i:02d}.yaml")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def test_lab_dump_gives_the_same_verdicts_as_json_yaml_and_tar_gz(server: Server) -> None:
    text = LAB.read_text(encoding="utf-8")
    items = [d for d in yaml.safe_load_all(text) if d]
    query = "/v1/evaluate?policy=gpu-operator"
    as_yaml = server.json(query, data=text.encode(), headers={"Content-Type": "application/yaml"})
    as_json = server.json(
        query,
        data=json.dumps({"apiVersion": "v1", "kind": "List", "items": items}).encode(),
        headers={"Content-Type": "application/json"},
    )
    as_tgz = server.json(query, data=lab_tar_gz(text), headers={"Content-Type": "application/gzip"})
    assert as_yaml["inputErrors"] == [] and as_json["inputErrors"] == [] and as_tgz["inputErrors"] == []
    verdicts = per_object(as_yaml)
    assert verdicts == per_object(as_json) == per_object(as_tgz)
    assert as_yaml["summary"]["objectsRead"] == len(items)
    # Objects the lab names for their fault fail; the healthy container node passes (examples/lab-cluster.yaml).
    assert verdicts["Node/gpu-container-1"][0] == "pass"
    for name in ("gpu-broken-label-typo", "gpu-broken-wrong-class", "gpu-broken-unhealthy"):
        assert verdicts[f"Node/{name}"][0] == "fail", verdicts[f"Node/{name}"]
    assert "ClusterPolicy/gpu-cluster-policy" in verdicts


def test_gzip_coding_table_format_and_errors_over_http(server: Server) -> None:
    body = LAB.read_bytes()
    status, headers, text = server.request(
        "/v1/evaluate?format=table&results=fail",
        data=gzip.compress(body),
        headers={"Content-Type": "application/yaml", "Content-Encoding": "gzip"},
    )
    assert status == 200 and headers["Content-Type"].startswith("text/plain")
    assert b"gpu-broken-label-typo" in text
    chunks = iter([body[: len(body) // 2], body[len(body) // 2 :]])  # no Content-Length: sent chunked
    status, _, text = server.request(
        "/v1/evaluate?policy=gpu-operator",
        data=chunks,  # type: ignore[arg-type]
        headers={"Content-Type": "application/yaml"},
    )
    assert status == 200 and json.loads(text)["summary"]["objectsRead"] == len([d for d in yaml.safe_load_all(body) if d])
    status, headers, text = server.request("/v1/evaluate", data=b"\xff\xfe\x00\x81", headers={"Content-Type": "application/yaml"})
    assert status == 400 and headers["Content-Type"] == "application/problem+json"
    assert json.loads(text)["file"] == "<body>"
    status, headers, _ = server.request("/v1/evaluate", method="GET")
    assert status == 405 and "POST" in headers["Allow"]
    status, headers, text = server.request("/metrics")
    assert status == 200 and b"verdict_http_requests_total" in text


def _wait_for(server: Server, predicate: Any, what: str) -> dict[str, Any]:
    """Poll /readyz until ``predicate`` holds on several answers in a row (so every worker has it)."""
    deadline = time.monotonic() + START_TIMEOUT
    streak = 0
    body: dict[str, Any] = {}
    while time.monotonic() < deadline:
        status, _, raw = server.request("/readyz")
        body = json.loads(raw) if status == 200 else {}
        streak = streak + 1 if status == 200 and predicate(body) else 0
        if streak >= 6:
            return body
        time.sleep(0.2)
    pytest.fail(f"{what}: last /readyz {body}\n{server.log.read_text(errors='replace')}")


def test_sighup_reload_keeps_the_last_good_set_then_applies_a_fixed_one(server: Server) -> None:
    before = server.json("/readyz")
    assert before["generation"] == 1 and before["lastReload"] is None
    policy = server.log.parent / "gpu-lab" / "gpu-node-basics.yaml"  # the copy the server loaded
    good = policy.read_text()

    policy.write_text(good.replace("in: {data: workloads}", "in: {data: workloads"))  # a YAML syntax error
    server.proc.send_signal(signal.SIGHUP)
    body = _wait_for(server, lambda b: b["lastReload"] is not None, "reload of a broken policy")
    assert body["lastReload"]["ok"] is False and body["generation"] == 1
    assert body["rules"] == before["rules"]
    err = body["lastReload"]["errors"][0]
    assert err["file"].endswith("gpu-node-basics.yaml") and err["line"] > 0
    assert "policy reload refused" in server.log.read_text(errors="replace")
    status, _, _ = server.request("/v1/evaluate", data=LAB.read_bytes(), headers={"Content-Type": "application/yaml"})
    assert status == 200  # still serving the last good set

    policy.write_text(good.replace("version: 1.0.0", "version: 1.1.0"))
    server.proc.send_signal(signal.SIGHUP)
    _wait_for(server, lambda b: b["generation"] == 2 and b["lastReload"]["ok"], "reload of a fixed policy")
    versions = {p["name"]: p["version"] for p in server.json("/v1/policies")["policies"]}
    assert versions["gpu-node-basics"] == "1.1.0"
    for _ in range(6):  # the master's count, once: not once per worker, nor again for each new worker
        got = scrape(server)
        assert got[("verdict_policy_load_errors_total", ())] == 1 and got[("verdict_policy_generation", ())] == 2


def test_broken_policy_stops_gunicorn_at_start(tmp_path: Path) -> None:
    log = tmp_path / "gunicorn.log"
    proc, _ = start({"VERDICT_POLICIES": str(API_DATA / "broken-policy.yaml")}, log)
    try:
        code = proc.wait(timeout=START_TIMEOUT)
    finally:
        stop(proc)
    text = log.read_text(errors="replace")
    assert code != 0
    assert "broken-policy.yaml:9" in text and "rule bad-path" in text and "kubectl JSONPath" in text


@pytest.mark.parametrize("how", ["gunicorn", "verdict serve"])
def test_a_bad_setting_stops_the_start_with_one_line_and_status_2(tmp_path: Path, how: str) -> None:
    """Regression: ``VERDICT_MAX_BODY=abc verdict serve`` printed gunicorn's 15-line traceback of the config
    file before the ``ConfigError``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("VERDICT_")}
    env["VERDICT_MAX_BODY"] = "abc"
    if how == "gunicorn":
        args = [sys.executable, "-m", "gunicorn", "--config", "gunicorn.conf.py", "app:app"]
    else:
        args = [sys.executable, "-c", "from rules.cli import main; main()", "serve", "--bind", f"127.0.0.1:{free_port()}"]
    done = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, timeout=START_TIMEOUT)
    assert done.returncode == 2
    assert done.stderr.decode() == "verdict: VERDICT_MAX_BODY='abc' is not a whole number\n"
    assert done.stdout == b""


Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]
EVALUATE_200 = ("verdict_http_requests_total", (("method", "POST"), ("route", "/v1/evaluate"), ("status", "200")))
OBJECTS = ("verdict_objects_evaluated_total", ())


def scrape(server: Server) -> Samples:
    """/metrics as {(sample name, sorted labels): value}; a sample given twice (say, once per worker) fails."""
    status, headers, body = server.request("/metrics")
    assert status == 200 and headers["Content-Type"].startswith("text/plain")
    out: Samples = {}
    for family in text_string_to_metric_families(body.decode()):
        for sample in family.samples:
            key = (sample.name, tuple(sorted(sample.labels.items())))
            assert key not in out, f"{key} twice in /metrics"
            out[key] = sample.value
    return out


def evaluate_lab(server: Server, times: int) -> int:
    """POST the lab dump ``times`` times, 4 at a time (so that both sync workers take some); the objects read.
    Each is judged (``Cache-Control: no-cache``), not answered from the worker's report cache."""

    def one(_: int) -> int:
        report = server.json(
            "/v1/evaluate?policy=gpu-operator",
            data=LAB.read_bytes(),
            headers={"Content-Type": "application/yaml", "Cache-Control": "no-cache"},
        )
        return int(report["summary"]["objectsRead"])

    with ThreadPoolExecutor(4) as pool:
        return sum(pool.map(one, range(times)))


def evaluates_by_worker(metrics_dir: Path) -> dict[str, float]:
    """pid -> the evaluate requests that worker answered, from its own file in the metrics directory."""
    out = {}
    for f in metrics_dir.glob("counter_*.db"):
        for family in MultiProcessCollector.merge([str(f)]):
            for sample in family.samples:
                if (sample.name, tuple(sorted(sample.labels.items()))) == EVALUATE_200:
                    out[f.stem.split("_")[1]] = sample.value
    return out


def test_metrics_add_up_over_the_workers_through_a_reload_and_restart_from_zero(tmp_path: Path) -> None:
    """Regression: each worker answered /metrics with its own counts, so successive scrapes went up and down
    (Prometheus saw counter resets). Every scrape must give the total, whichever worker answers it."""
    metrics_dir = tmp_path / "metrics"
    env = {
        "VERDICT_POLICIES": "gpu-operator",
        "VERDICT_METRICS_DIR": str(metrics_dir),
        "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "inherited"),  # another server's: not used
    }
    per_request = len([d for d in yaml.safe_load_all(LAB.read_text(encoding="utf-8")) if d])
    with serving(env, tmp_path / "gunicorn.log") as srv:
        sent = objects = 0
        while len([n for n in evaluates_by_worker(metrics_dir).values() if n]) < 2:  # both workers answered some
            assert sent < 200, f"one worker answered every request: {evaluates_by_worker(metrics_dir)}"
            objects += evaluate_lab(srv, 8)
            sent += 8
        assert objects == sent * per_request
        assert sum(evaluates_by_worker(metrics_dir).values()) == sent
        assert not (tmp_path / "inherited").exists()
        rules = srv.json("/readyz")["rules"]
        for _ in range(10):
            got = scrape(srv)
            assert got[EVALUATE_200] == sent and got[OBJECTS] == objects
            assert got[("verdict_report_cache_total", (("outcome", "request"),))] == sent
            assert got[("verdict_http_request_duration_seconds_count", (("method", "POST"), ("route", "/v1/evaluate")))] == sent
            assert got[("verdict_rules_loaded", ())] == rules and got[("verdict_policy_generation", ())] == 1
            assert got[("verdict_policy_load_errors_total", ())] == 0

        # SIGHUP replaces both workers: what the exited ones counted stays in the totals.
        old = set(evaluates_by_worker(metrics_dir))
        srv.proc.send_signal(signal.SIGHUP)
        _wait_for(srv, lambda b: b["generation"] == 2, "reload")
        objects += evaluate_lab(srv, 8)
        sent += 8
        assert set(evaluates_by_worker(metrics_dir)) - old, "no new worker answered after the reload"
        for _ in range(10):
            got = scrape(srv)
            assert got[EVALUATE_200] == sent and got[OBJECTS] == objects
            assert got[("verdict_policy_generation", ())] == 2

    # A new server in the same directory starts from zero: the files of the last run are removed at start.
    with serving(env, tmp_path / "gunicorn-2.log") as srv:
        got = scrape(srv)
        assert got.get(EVALUATE_200, 0) == 0 and got[OBJECTS] == 0
        assert evaluate_lab(srv, 2) == 2 * per_request
        assert scrape(srv)[EVALUATE_200] == 2


def test_the_private_metrics_directory_lives_as_long_as_gunicorn(tmp_path: Path) -> None:
    log = tmp_path / "gunicorn.log"
    with serving({"VERDICT_POLICIES": "gpu-operator"}, log) as srv:
        line = next(x for x in log.read_text().splitlines() if "metrics: the workers count in " in x)
        path = Path(line.split("metrics: the workers count in ", 1)[1].strip())
        assert path.is_dir() and oct(path.stat().st_mode & 0o777) == "0o700"
        assert evaluate_lab(srv, 1) > 0 and list(path.glob("counter_*.db"))
    assert not path.exists()


def test_an_unusable_metrics_directory_stops_the_start_with_one_line(tmp_path: Path) -> None:
    taken = tmp_path / "a-file"
    taken.write_text("")
    env = {k: v for k, v in os.environ.items() if not k.startswith("VERDICT_")}
    env["VERDICT_METRICS_DIR"] = str(taken)
    args = [sys.executable, "-m", "gunicorn", "--config", "gunicorn.conf.py", "app:app"]
    done = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, timeout=START_TIMEOUT)
    assert done.returncode == 2
    assert done.stderr.decode().startswith(f"verdict: VERDICT_METRICS_DIR={str(taken)!r} cannot be used: ")
    assert done.stderr.decode().count("\n") == 1


def test_slow_clients_cannot_hold_every_worker(tmp_path: Path) -> None:
    """Regression (issue 12 item 5): with sync workers two connections sending a body one byte every 2 s made
    /healthz and /v1/evaluate time out for as long as they were held. Now (gthread, VERDICT_READ_TIMEOUT) the
    service answers others meanwhile, and each slow body gets a 408 problem at the deadline. Loopback only,
    bounded: 3 slow clients, 1 byte a second, for at most READ_TIMEOUT + 5 s."""
    env = {"VERDICT_WORKERS": "1", "VERDICT_THREADS": "4", "VERDICT_READ_TIMEOUT": "3"}
    with serving(env, tmp_path / "gunicorn.log") as srv:
        port = int(srv.base.rsplit(":", 1)[1])
        slow = []
        for _ in range(3):
            s = socket.create_connection(("127.0.0.1", port), timeout=15)
            s.sendall(b"POST /v1/evaluate HTTP/1.1\r\nHost: x\r\nContent-Type: application/yaml\r\nContent-Length: 100\r\n\r\n")
            slow.append(s)
        started = time.monotonic()
        answered = []
        while time.monotonic() - started < 2.5:
            for s in slow:
                s.sendall(b"a")
            t0 = time.monotonic()
            assert srv.request("/healthz")[0] == 200
            answered.append(time.monotonic() - t0)
            time.sleep(0.5)
        assert max(answered) < 1.0, answered
        for s in slow:
            head = s.recv(4096).decode(errors="replace")
            while "request-timeout" not in head and time.monotonic() - started < 10:
                more = s.recv(4096).decode(errors="replace")
                if not more:
                    break
                head += more
            s.close()
            assert head.startswith("HTTP/1.1 408"), head
            assert "request-timeout" in head and "VERDICT_READ_TIMEOUT" in head
        assert time.monotonic() - started < 3 + 5


def test_a_broken_chunked_body_is_a_400_problem(server: Server) -> None:
    """Regression (issue 12 item 14): a bad chunk size was a 500."""
    port = int(server.base.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(
            b"POST /v1/evaluate HTTP/1.1\r\nHost: x\r\nContent-Type: application/yaml\r\nConnection: close\r\n"
            b"Transfer-Encoding: chunked\r\n\r\nZZ\r\nabc\r\n0\r\n\r\n"
        )
        answer = b""
        while chunk := s.recv(4096):
            answer += chunk
    head, _, body = answer.decode(errors="replace").partition("\r\n\r\n")
    assert head.startswith("HTTP/1.1 400")
    assert "application/problem+json" in head
    problem = json.loads(body)
    assert problem["type"] == "https://verdict.dev/problems/invalid-body"
    # the reason in HTTP's terms, not the server's exception class (it said "InvalidChunkSize: ...")
    assert problem["detail"] == (
        "the body could not be read: its chunked transfer coding is broken (Invalid chunk size: b'ZZ'); send it again, whole"
    )


def test_a_chunked_body_cut_before_its_last_chunk_is_a_400_problem(server: Server) -> None:
    """Regression (a new user's trial): a chunked body the client cut off (no final zero-size chunk) was a 500:
    the truncated-body message formatted the Content-Length that a chunked body does not have."""
    port = int(server.base.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(
            b"POST /v1/evaluate HTTP/1.1\r\nHost: x\r\nContent-Type: application/yaml\r\nConnection: close\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n20\r\nkind: Node\n"
        )
        s.shutdown(socket.SHUT_WR)
        answer = b""
        while chunk := s.recv(4096):
            answer += chunk
    head, _, body = answer.decode(errors="replace").partition("\r\n\r\n")
    assert head.startswith("HTTP/1.1 400"), head
    problem = json.loads(body)
    assert problem["type"] == "https://verdict.dev/problems/truncated-body"
    assert problem["detail"] == "the chunked body ends before its last (zero-size) chunk; send it again, whole"


def test_a_killed_worker_and_a_reload_lose_nothing_but_the_requests_in_flight(tmp_path: Path) -> None:
    """Issue 12 ("Also"): a bounded loopback load (120 requests, 4 at a time) while one worker is killed with
    SIGKILL and then the master reloads on SIGHUP. Only requests a killed worker held can fail; every other
    answer is a whole, correct report."""
    body = LAB.read_bytes()
    started: dict[int, float] = {}
    ended: dict[int, float] = {}
    killed_at: list[float] = []
    with serving({"VERDICT_WORKERS": "2", "VERDICT_THREADS": "2"}, tmp_path / "gunicorn.log") as srv:
        reference = per_object(srv.json("/v1/evaluate", data=body, headers={"Content-Type": "application/yaml"}))

        def one(i: int) -> str:
            if i == 40:
                workers = subprocess.run(["pgrep", "-P", str(srv.proc.pid)], capture_output=True, text=True).stdout.split()
                os.kill(int(workers[0]), signal.SIGKILL)
                killed_at.append(time.monotonic())
            if i == 80:
                srv.proc.send_signal(signal.SIGHUP)
            started[i] = time.monotonic()
            try:
                status, _, raw = srv.request("/v1/evaluate", data=body, headers={"Content-Type": "application/yaml"})
            # A worker killed while it wrote the answer cuts it short (IncompleteRead, an HTTPException, not an
            # OSError): that request was in flight on it too.
            except (OSError, http.client.HTTPException) as exc:
                return f"connection: {type(exc).__name__}"
            finally:
                ended[i] = time.monotonic()
            if status != 200:
                return f"status {status}"
            return "ok" if per_object(json.loads(raw)) == reference else "wrong report"

        with ThreadPoolExecutor(4) as pool:
            outcomes = list(pool.map(one, range(120)))
    failed = {i: o for i, o in enumerate(outcomes) if o != "ok"}
    assert "wrong report" not in failed.values()
    # at most the 4 requests open when the worker died (accepted by it, on its threads or waiting for one): each
    # was open at the kill, or sent in the round after it (which indexes were open depends on how long each
    # request takes, so it is the times that are asserted); the reload loses nothing
    assert len(failed) <= 4, failed
    assert all(started[i] < killed_at[0] < ended[i] or 40 <= i <= 48 for i in failed), failed


def test_a_worker_above_its_memory_bound_is_replaced_and_one_below_it_is_kept(tmp_path: Path) -> None:
    """VERDICT_WORKER_MAX_RSS_MB: a worker is replaced once it has answered, when its resident memory is above
    the bound (1 MiB: every worker is), and no request is lost to it; under the default (512 MiB) the lab
    dump's workers stay (they were replaced every 1,000 requests, losing what they had warmed)."""
    metrics_dir = tmp_path / "metrics"
    env = {"VERDICT_POLICIES": "gpu-operator", "VERDICT_METRICS_DIR": str(metrics_dir), "VERDICT_WORKER_MAX_RSS_MB": "1"}
    with serving(env, tmp_path / "small.log") as srv:
        for _ in range(6):
            assert evaluate_lab(srv, 1) == 19
        workers = evaluates_by_worker(metrics_dir)
        assert sum(workers.values()) == 6
        # replaced once it has answered (a request it had already taken in is still answered by it)
        assert len(workers) >= 4 and max(workers.values()) <= 2, workers
    log = (tmp_path / "small.log").read_text(errors="replace")
    # each worker that answered says it, once, after its first answer: one that answered a second request it had
    # already taken in does not say it again (the suite on a busy machine saw 5 workers for the 6 answers, and this
    # asked for 6 lines); a worker that answered only the readiness probe says it too. The last answer's worker may
    # not: the server is stopped as soon as the answer arrives, and a worker told to stop before its post_request
    # hook runs is no longer alive there, so it says nothing (the suite saw 5 lines for 6 workers once)
    assert log.count("is above VERDICT_WORKER_MAX_RSS_MB=1: replaced after this request") >= len(workers) - 1

    env = {"VERDICT_POLICIES": "gpu-operator", "VERDICT_METRICS_DIR": str(tmp_path / "default")}
    with serving(env, tmp_path / "default.log") as srv:
        assert evaluate_lab(srv, 8) == 8 * 19
        assert len(evaluates_by_worker(tmp_path / "default")) <= 2
    assert "VERDICT_WORKER_MAX_RSS_MB" not in (tmp_path / "default.log").read_text(errors="replace")


def test_each_answer_closes_its_connection_so_a_free_worker_takes_the_next(server: Server) -> None:
    """gunicorn's keepalive is 0: a gthread worker keeps the connections it accepted, so clients that connected
    at once could all stay with one worker while the other idled (bench/README.md: ~185 against ~400 requests/s
    by which worker took them)."""
    import http.client
    from urllib.parse import urlsplit

    url = urlsplit(server.base)
    conn = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=30)
    try:
        conn.request(
            "POST", "/v1/evaluate?policy=gpu-operator", body=LAB.read_bytes(), headers={"Content-Type": "application/yaml"}
        )
        resp = conn.getresponse()
        assert resp.status == 200 and json.loads(resp.read())["summary"]["objectsRead"] == 19
        assert resp.getheader("Connection") == "close" and resp.will_close
    finally:
        conn.close()


def test_the_workers_share_the_reports_they_judged_and_the_master_removes_them(tmp_path: Path) -> None:
    """Regression: each worker kept its own reports, so with two workers and a connection closed after each
    answer, the same dump asked for again (Markdown, then the failures as JSON) was judged again most times.
    Here every worker is replaced once it has answered (VERDICT_WORKER_MAX_RSS_MB=1), so hits come from what
    another worker kept."""
    env = {"VERDICT_POLICIES": "gpu-operator", "VERDICT_WORKER_MAX_RSS_MB": "1", "VERDICT_METRICS_DIR": str(tmp_path / "m")}
    with serving(env, tmp_path / "gunicorn.log") as srv:
        statuses = []
        for query in ("?format=markdown", "?results=fail", "?format=table", ""):
            status, headers, body = srv.request(
                f"/v1/evaluate{query}", data=LAB.read_bytes(), headers={"Content-Type": "application/yaml"}
            )
            assert status == 200, body
            statuses.append(headers["Cache-Status"])
        assert statuses == ["verdict; fwd=miss; stored", "verdict; hit", "verdict; hit", "verdict; hit"]
        # one miss, so every worker but the one that judged it answered from what that one kept
        assert len(evaluates_by_worker(tmp_path / "m")) >= 2
        log = (tmp_path / "gunicorn.log").read_text(errors="replace")
        [kept] = re.findall(r"reports: the workers keep the reports they judged in (\S+)", log)
        assert len(list(Path(kept).glob("*.report"))) == 1
    assert not Path(kept).exists()


def test_a_worker_asked_to_stop_while_it_starts_stops_at_once(tmp_path: Path) -> None:
    """Regression (a CI run of the test above): a SIGTERM to the master just as it replaced a worker reached the
    new worker before gunicorn set its handlers and was lost (benoitc/gunicorn#1910); the master waited
    graceful_timeout (30 s) for it, the caller's 20 s ran out first and its SIGKILL left the reports in /dev/shm.
    Here each new worker sleeps 3 s after the fork, so the stop always lands in that window."""
    conf = tmp_path / "slow_start.conf.py"
    conf.write_text(
        "import runpy, time\n"
        f"globals().update(runpy.run_path({str(ROOT / 'gunicorn.conf.py')!r}, run_name=__name__))\n"
        "_verdicts = globals().get('post_fork')\n"
        "def post_fork(server, worker):\n"
        "    if _verdicts:\n"
        "        _verdicts(server, worker)\n"
        "    time.sleep(3)\n"
    )
    log = tmp_path / "gunicorn.log"
    env = {"VERDICT_POLICIES": "gpu-operator", "VERDICT_WORKER_MAX_RSS_MB": "1", "VERDICT_WORKERS": "1"}
    with serving(env, log, str(conf)) as srv:
        status, _, body = srv.request("/v1/evaluate", data=LAB.read_bytes(), headers={"Content-Type": "application/yaml"})
        assert status == 200, body
        # the worker that answered (its pid in the access line) is replaced: wait for its successor's fork,
        # logged after the replacement (access and error lines are two streams: their order is not)

        def successor_forked(text: str) -> bool:
            answered = re.search(r'"POST /v1/evaluate HTTP/1.1" 200 .* worker <(\d+)>', text)
            gone = answered and text.find(f"worker {answered[1]}: resident memory")
            return bool(gone and gone > 0 and "Booting worker" in text[gone:])

        deadline = time.monotonic() + 20
        while not successor_forked(log.read_text(errors="replace")) and time.monotonic() < deadline:
            time.sleep(0.05)
        text = log.read_text(errors="replace")
        assert successor_forked(text), text
        [kept] = re.findall(r"reports: the workers keep the reports they judged in (\S+)", text)
        began = time.monotonic()
        srv.proc.terminate()
        assert srv.proc.wait(timeout=25) == 0
        took = time.monotonic() - began
    text = log.read_text(errors="replace")
    assert re.search(r"worker \d+: SIGTERM came while it started: stops now", text), text
    assert took < 15, f"the master took {took:.1f} s to stop (graceful_timeout is 30 s)"
    assert not Path(kept).exists()


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGQUIT])
def test_a_quick_stop_does_not_wait_for_a_client_that_sends_nothing_more(tmp_path: Path, stop: int) -> None:
    """Regression (py-spy on a worker of a server an adversarial trial stopped): a request thread blocked reading a client
    that sent half its request held the worker's exit (Python joins the pool's threads) until the master's
    SIGKILL at graceful_timeout, 30 s. A quick stop (Ctrl-C, SIGQUIT) ends the served workers at once."""
    with serving({"VERDICT_POLICIES": "gpu-operator"}, tmp_path / "gunicorn.log") as srv:
        host, port = srv.base.removeprefix("http://").split(":")
        clients = []
        for _ in range(4):  # more than one worker's share, so both workers hold one
            c = socket.create_connection((host, int(port)), timeout=10)
            c.sendall(b"POST /v1/evaluate HTTP/1.1\r\nHost: verdict\r\nContent-Type: application/yaml\r\n")
            clients.append(c)
        time.sleep(1)  # the workers took them (no /healthz here: four such clients can hold all of one worker)
        began = time.monotonic()
        srv.proc.send_signal(stop)
        try:
            srv.proc.wait(timeout=25)
        finally:
            for c in clients:
                c.close()
        took = time.monotonic() - began
    assert took < 10, f"the master took {took:.1f} s to stop (graceful_timeout is 30 s)"
    assert "SIGKILL" not in (tmp_path / "gunicorn.log").read_text(errors="replace")


def test_a_start_removes_the_directories_of_masters_no_longer_running(tmp_path: Path) -> None:
    """A master killed with SIGKILL runs no exit handler and leaves its reports (which quote dumps) in /dev/shm
    and its metrics in the temporary directory: the next server removes the directories of masters that no
    longer run, and keeps those of one that does. (Regression: the metrics' were left for good.)"""
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    made = []
    for what, parent in (
        ("reports", Path("/dev/shm") if Path("/dev/shm").is_dir() else Path(tempfile.gettempdir())),
        ("metrics", Path(tempfile.gettempdir())),
    ):
        orphan = parent / f"verdict-{what}-{dead.pid}-test"
        alive = parent / f"verdict-{what}-{os.getpid()}-test"
        for d in (orphan, alive):
            d.mkdir()
            (d / "x.kept").write_bytes(b"kept")
        made.append((orphan, alive))
    try:
        with serving({"VERDICT_POLICIES": "gpu-operator"}, tmp_path / "gunicorn.log"):
            for orphan, alive in made:
                assert not orphan.exists(), orphan
                assert (alive / "x.kept").read_bytes() == b"kept"
    finally:
        for d in (d for pair in made for d in pair):
            shutil.rmtree(d, ignore_errors=True)


def test_the_master_answers_the_probes_while_every_worker_thread_judges(tmp_path: Path) -> None:
    """Trial 125: /healthz waited 12.3 s behind 12 evaluations of a 20 MB dump (it shares the workers' request
    threads), past a liveness probe's 1 s default: the kubelet would restart a busy pod. On VERDICT_PROBE_BIND the
    master answers /healthz and /readyz itself; here its one worker thread is judging a 3,000-node dump meanwhile."""
    lab = [d for d in yaml.safe_load_all(LAB.read_text(encoding="utf-8")) if d]
    node = next(d for d in lab if d["kind"] == "Node")
    items = []
    for i in range(3000):  # each node its own (a team label, a GPU count): no outcome shared between them
        n = json.loads(json.dumps(node))
        n["metadata"]["name"] = f"gpu-{i}"
        n["metadata"]["labels"][f"team-{i}"] = str(i)
        n["status"]["allocatable"]["nvidia.com/gpu"] = str(i % 9)
        items.append(n)
    body = json.dumps({"apiVersion": "v1", "kind": "List", "items": items}).encode()
    probe_port = free_port()
    env = {"VERDICT_WORKERS": "1", "VERDICT_THREADS": "1", "VERDICT_PROBE_BIND": f"127.0.0.1:{probe_port}"}
    with serving(env, tmp_path / "gunicorn.log") as srv:
        probes = f"http://127.0.0.1:{probe_port}"
        headers = {"Content-Type": "application/json", "Cache-Control": "no-cache"}
        with ThreadPoolExecutor(1) as pool:
            judging = pool.submit(srv.request, "/v1/evaluate?results=fail", body, headers)
            time.sleep(0.5)  # the worker's one thread has the dump
            t0 = time.monotonic()
            with urllib.request.urlopen(probes + "/healthz", timeout=5) as resp:
                health = (resp.status, json.loads(resp.read()))
            took = time.monotonic() - t0
            still = not judging.done()
            with urllib.request.urlopen(probes + "/readyz", timeout=5) as resp:
                ready = json.loads(resp.read())
            assert judging.result(timeout=120)[0] == 200
        assert still, "the evaluation ended before the probe was asked: the dump judged too fast to show anything"
        assert health == (200, {"status": "ok", "workers": 1}) and took < 1.0, (health, took)
        assert (ready["status"], ready["rules"] > 0, ready["generation"], ready["workers"]) == ("ready", True, 1, 1)
        # the probe port answers nothing else, in problem+json
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(probes + "/v1/evaluate", timeout=5)
        assert info.value.code == 404 and info.value.headers["Content-Type"] == "application/problem+json"
    # a probe address in use stops the start, said in one line
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        used = taken.getsockname()[1]
        proc, _ = start({"VERDICT_PROBE_BIND": f"127.0.0.1:{used}"}, tmp_path / "taken.log")
        try:
            assert proc.wait(timeout=START_TIMEOUT) != 0
        finally:
            stop(proc)
        assert f"VERDICT_PROBE_BIND=127.0.0.1:{used} cannot be used" in (tmp_path / "taken.log").read_text()
