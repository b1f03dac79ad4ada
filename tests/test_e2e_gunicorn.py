"""End to end: real gunicorn (``python -m gunicorn --config gunicorn.conf.py app:app``) on a free
loopback port, driven over HTTP. The lab dump is posted as JSON, YAML and .tar.gz and must give the same
per-object verdicts; SIGHUP reloads the policies and keeps the last good set when the new one is broken;
a broken policy stops gunicorn at start with the file, line and reason."""

from __future__ import annotations

import gzip
import io
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tarfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

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


def start(env_extra: dict[str, str], log: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("VERDICT_")}
    env.update({"VERDICT_BIND": f"127.0.0.1:{port}", "VERDICT_WORKERS": "2", **env_extra})
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "--config", "gunicorn.conf.py", "app:app"],
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


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """gunicorn serving the built-in pack plus a copy of the test pack (which the reload test edits)."""
    tmp = tmp_path_factory.mktemp("e2e")
    shutil.copytree(API_DATA / "gpu-lab", tmp / "gpu-lab")
    log = tmp / "gunicorn.log"
    proc, base = start({"VERDICT_POLICIES": os.pathsep.join(["gpu-operator", str(tmp / "gpu-lab")])}, log)
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
