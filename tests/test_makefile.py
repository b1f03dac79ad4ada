"""``make run`` and ``make serve`` listen where ``BIND`` or ``VERDICT_BIND`` says (``make -n``: the commands
make would run, none of them run)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def serve_line(target: str, *assignments: str, **env: str) -> str:
    """The ``verdict serve`` command ``make -n target`` prints, with ``env`` as the environment's variables."""
    make = shutil.which("make")
    if make is None:
        pytest.skip("make is not installed")
    # Without the outer make's variables (this may run under `make test`) and without a BIND of the caller's.
    base = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "BIND", "VERDICT_BIND")}
    out = subprocess.run(
        [make, "-n", target, *assignments], cwd=ROOT, env={**base, **env}, capture_output=True, text=True, timeout=60, check=True
    )
    [line] = [ln for ln in out.stdout.splitlines() if ln.endswith("/bin/verdict serve")]
    return line


@pytest.mark.parametrize("target", ["run", "serve"])
def test_bind_comes_from_bind_then_verdict_bind_then_the_default(target: str) -> None:
    """Regression: run and serve passed VERDICT_BIND=127.0.0.1:8080 whatever VERDICT_BIND was."""
    assert serve_line(target) == "VERDICT_BIND=127.0.0.1:8080 .venv/bin/verdict serve"
    assert serve_line(target, VERDICT_BIND="0.0.0.0:9090") == "VERDICT_BIND=0.0.0.0:9090 .venv/bin/verdict serve"
    assert serve_line(target, "VERDICT_BIND=[::1]:8081") == "VERDICT_BIND=[::1]:8081 .venv/bin/verdict serve"
    assert serve_line(target, "BIND=127.0.0.1:7070", VERDICT_BIND="0.0.0.0:9090") == (
        "VERDICT_BIND=127.0.0.1:7070 .venv/bin/verdict serve"
    )
    assert serve_line(target, BIND="127.0.0.1:7071") == "VERDICT_BIND=127.0.0.1:7071 .venv/bin/verdict serve"


def test_make_run_checks_its_address_before_the_audit() -> None:
    """Trial 73: ``make run`` on a busy port printed the whole lab audit, then the hint; the address is checked first,
    where BIND says, so that a taken one stops the target before the table."""
    make = shutil.which("make")
    if make is None:
        pytest.skip("make is not installed")
    base = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "BIND", "VERDICT_BIND")}
    out = subprocess.run(
        [make, "-n", "run", "BIND=127.0.0.1:7072"], cwd=ROOT, env=base, capture_output=True, text=True, timeout=60, check=True
    )
    verdict = [ln for ln in out.stdout.splitlines() if "bin/verdict " in ln]
    assert verdict[0] == "VERDICT_BIND=127.0.0.1:7072 .venv/bin/verdict serve --check-bind"
    assert verdict[1].startswith(".venv/bin/verdict audit examples/lab-cluster.yaml")
    # trial 164: its findings were followed by 22 notes on skipped rules that pushed them off the screen
    assert verdict[1].endswith(" -q")


FAKE_PYTHON = """#!/bin/sh
# a stand-in for python: records each call, and makes a venv whose python is itself
echo "$*" >> "$LOG"
if [ "$1 $2" = "-m venv" ]; then mkdir -p "$3/bin"; cp "$0" "$3/bin/python"; sleep 1; fi
"""


def test_two_makes_at_once_build_the_venv_once(tmp_path: Path) -> None:
    """Trial 157: make run and make test started at once (two terminals on a fresh clone) both built .venv, one
    pip install over the other's; the second waits on a lock, then finds it built."""
    make = shutil.which("make")
    if make is None or shutil.which("flock") is None:
        pytest.skip("make or flock is not installed")
    shutil.copy(ROOT / "Makefile", tmp_path / "Makefile")
    (tmp_path / "pyproject.toml").write_text("")
    fake = tmp_path / "fakepython"
    fake.write_text(FAKE_PYTHON)
    fake.chmod(0o755)
    log = tmp_path / "calls.log"
    base = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    env = {**base, "LOG": str(log)}
    cmd = [make, ".venv/.installed", f"PYTHON={fake}"]
    first = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    second = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)
    assert first.wait(timeout=60) == 0
    assert second.returncode == 0, second.stderr
    calls = log.read_text().splitlines()
    assert calls == ["-m venv .venv", "-m pip install --quiet --upgrade pip", "-m pip install --quiet -e .[test]"]
    assert (tmp_path / ".venv" / ".installed").exists()


def test_make_test_runs_the_test_files_tests_names() -> None:
    """Trial 187: `make test tests/x.py` took the files for make targets and ran the whole 20-minute suite; TESTS
    names the files pytest runs, after the same lint and type checks (all of them when unset, as CI runs it)."""
    make = shutil.which("make")
    if make is None:
        pytest.skip("make is not installed")
    base = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "TESTS")}

    def pytest_line(*assignments: str) -> str:
        out = subprocess.run(
            [make, "-n", "test", *assignments], cwd=ROOT, env=base, capture_output=True, text=True, timeout=60, check=True
        )
        [line] = [ln for ln in out.stdout.splitlines() if "/bin/pytest" in ln]
        return line.rstrip()

    assert pytest_line() == ".venv/bin/pytest"
    assert pytest_line("TESTS=tests/test_quantity.py tests/test_docs.py") == (
        ".venv/bin/pytest tests/test_quantity.py tests/test_docs.py"
    )
