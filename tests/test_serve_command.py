"""``verdict serve`` execs gunicorn with verdict's settings file from the folder that holds the package (a
checkout, or site-packages of a wheel), so that neither a folder named ``api`` nor a relative path where the
user stands changes what is served. (tests/test_wheel.py serves an installed wheel for real.)"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import rules
from rules.cli import main


class Exec(Exception):
    """Raised instead of replacing the test process."""


def test_serve_execs_gunicorn_from_the_package_folder_with_absolute_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: ``-p my-pack`` was read relative to the repository root (gunicorn ran with --chdir there)."""
    (tmp_path / "my-pack").mkdir()
    (tmp_path / "accepted.yaml").write_text("")
    monkeypatch.chdir(tmp_path)
    seen: dict[str, Any] = {}

    def chdir(path: str) -> None:
        seen["cwd"] = path

    def execvpe(file: str, args: list[str], env: dict[str, str]) -> None:
        seen.update(file=file, args=args, env=env)
        raise Exec

    monkeypatch.setattr(os, "chdir", chdir)
    monkeypatch.setattr(os, "execvpe", execvpe)
    with pytest.raises(Exec):
        CliRunner().invoke(
            main,
            ["serve", "--bind", "127.0.0.1:9", "-p", "my-pack", "-p", "gpu-operator", "--exemptions", "accepted.yaml"],
            catch_exceptions=False,
        )
    root = str(Path(rules.__file__).resolve().parent.parent)
    assert seen["cwd"] == root
    settings = os.path.join(root, "api", "gunicorn_conf.py")
    assert seen["args"] == [sys.executable, "-m", "gunicorn", "--config", settings, "app:app"]
    assert os.path.isfile(settings)
    env = seen["env"]
    assert env["VERDICT_BIND"] == "127.0.0.1:9"
    assert env["VERDICT_POLICIES"] == os.pathsep.join([str(tmp_path / "my-pack"), "gpu-operator"])
    assert env["VERDICT_EXEMPTIONS"] == str(tmp_path / "accepted.yaml")


def test_serve_makes_the_environments_relative_paths_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Trial 47: VERDICT_POLICIES=gpu-operator:mypack was looked up in the folder gunicorn starts in ("no such policy
    file or folder"), where `-p mypack` was found where the command ran. The environment's paths (policies,
    exemptions, the tokens file) are read where the command runs too; a built-in pack name is kept."""
    (tmp_path / "mypack").mkdir()
    (tmp_path / "accepted.yaml").write_text("")
    (tmp_path / "tokens").write_text("t0ken\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("VERDICT_POLICIES", os.pathsep.join(["gpu-operator", "mypack"]))
    monkeypatch.setenv("VERDICT_EXEMPTIONS", "accepted.yaml")
    monkeypatch.setenv("VERDICT_TOKENS_FILE", "tokens")
    seen: dict[str, Any] = {}

    def execvpe(file: str, args: list[str], env: dict[str, str]) -> None:
        seen.update(env=env)
        raise Exec

    monkeypatch.setattr(os, "chdir", lambda path: None)
    monkeypatch.setattr(os, "execvpe", execvpe)
    with pytest.raises(Exec):
        CliRunner().invoke(main, ["serve", "--bind", "127.0.0.1:9"], catch_exceptions=False)
    env = seen["env"]
    assert env["VERDICT_POLICIES"] == os.pathsep.join(["gpu-operator", str(tmp_path / "mypack")])
    assert env["VERDICT_EXEMPTIONS"] == str(tmp_path / "accepted.yaml")
    assert env["VERDICT_TOKENS_FILE"] == str(tmp_path / "tokens")


def test_serve_on_an_address_in_use_says_how_to_choose_another(monkeypatch: pytest.MonkeyPatch) -> None:
    """Trials 68 and 72: ``make serve`` with 8080 taken showed gunicorn's five retries and "Can't connect", with no
    word of BIND. The address is tried first; taken, the command exits 2 saying how to choose another."""
    import socket

    def execvpe(file: str, args: list[str], env: dict[str, str]) -> None:
        raise Exec

    monkeypatch.setattr(os, "execvpe", execvpe)
    monkeypatch.setattr(os, "chdir", lambda path: None)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        bind = f"127.0.0.1:{taken.getsockname()[1]}"
        result = CliRunner().invoke(main, ["serve", "--bind", bind])
    assert result.exit_code == 2
    assert result.stderr == (
        f"verdict: cannot listen on {bind}: the address is in use; choose another with --bind HOST:PORT (VERDICT_BIND,"
        " or make run BIND=HOST:PORT, make serve BIND=HOST:PORT)\n"
    )
    # trial 73: make run asks first, so that the lab's table does not bury the answer; nothing is served
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = f"127.0.0.1:{taken.getsockname()[1]}"
        checked = CliRunner().invoke(main, ["serve", "--bind", busy, "--check-bind"])
    assert (checked.exit_code, checked.stderr.startswith(f"verdict: cannot listen on {busy}: the address is in use")) == (2, True)
    free = CliRunner().invoke(main, ["serve", "--bind", busy, "--check-bind"], catch_exceptions=False)
    # free: no Exec, gunicorn is not started; the answer is said (trial 134: nothing was printed)
    assert (free.exit_code, free.stdout, free.stderr) == (0, "", f"verdict: {busy} is free to listen on\n")
    with pytest.raises(Exec):  # free again: gunicorn is started
        CliRunner().invoke(main, ["serve", "--bind", bind], catch_exceptions=False)


def test_serve_checks_the_probe_address_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """Trial 125's probe port (VERDICT_PROBE_BIND) in use is said before gunicorn starts, naming its variable."""
    import socket

    monkeypatch.setattr(os, "chdir", lambda path: None)
    with socket.socket() as taken, socket.socket() as free:
        # the probe port taken first, so that the free one the API gets is another (closed, the API's port could be
        # handed out again to the probe's: a CI run met that)
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        probes = f"127.0.0.1:{taken.getsockname()[1]}"
        free.bind(("127.0.0.1", 0))
        api = f"127.0.0.1:{free.getsockname()[1]}"
        free.close()
        monkeypatch.setenv("VERDICT_PROBE_BIND", probes)
        result = CliRunner().invoke(main, ["serve", "--bind", api, "--check-bind"])
    assert (result.exit_code, result.stderr) == (
        2,
        f"verdict: cannot listen on {probes}: the address is in use; set VERDICT_PROBE_BIND to another HOST:PORT\n",
    )
    # both free: both said (trial 134)
    monkeypatch.setenv("VERDICT_PROBE_BIND", api)
    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        listen = f"127.0.0.1:{other.getsockname()[1]}"
    result = CliRunner().invoke(main, ["serve", "--bind", listen, "--check-bind"])
    assert (result.exit_code, result.stderr) == (0, f"verdict: {listen} and {api} are free to listen on\n")


@pytest.mark.parametrize(
    ("bind", "why"),
    [
        ("10.255.255.1:18538", "the address is not one of this host's"),
        ("nosuchhost.invalid:18538", "host 'nosuchhost.invalid' not found ("),
        ("127.0.0.1:abc", "its port is not a number"),
        ("127.0.0.1:99999", "the port is past 65535"),
    ],
)
def test_check_bind_refuses_an_address_it_cannot_listen_on(bind: str, why: str) -> None:
    """Trial 137: --check-bind said "is free to listen on" (exit 0) of an address not on this host, a host not found and
    a port that is no number; port 99999 ended in a traceback. Each is refused, saying why, as gunicorn would fail."""
    result = CliRunner().invoke(main, ["serve", "--bind", bind, "--check-bind"])
    assert (result.exit_code, result.stderr.startswith(f"verdict: cannot listen on {bind}: {why}")) == (2, True), result.stderr
    # a bind gunicorn reads otherwise is not probed, and says so
    other = CliRunner().invoke(main, ["serve", "--bind", "unix:/tmp/verdict-test.sock", "--check-bind"])
    assert (other.exit_code, other.stderr) == (
        0,
        "verdict: unix:/tmp/verdict-test.sock is not probed (not HOST:PORT): gunicorn says whether it can listen there when"
        " it starts\n",
    )


def test_check_bind_takes_gunicorn_s_tcp_form_and_refuses_the_probes_on_the_api_s_address(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Trial 138: tcp://HOST:PORT, a bind gunicorn takes, was refused ("host 'tcp://127.0.0.1' not found"); a port of
    '²' ended in a traceback; the probes set on the API's address were both said free, and gunicorn then failed."""
    import socket

    with socket.socket() as other:
        other.bind(("127.0.0.1", 0))
        free = f"127.0.0.1:{other.getsockname()[1]}"
    result = CliRunner().invoke(main, ["serve", "--bind", f"tcp://{free}", "--check-bind"])
    assert (result.exit_code, result.stderr) == (0, f"verdict: tcp://{free} is free to listen on\n")
    result = CliRunner().invoke(main, ["serve", "--bind", "127.0.0.1:2²", "--check-bind"])
    assert (result.exit_code, result.stderr.startswith("verdict: cannot listen on 127.0.0.1:2²: its port is not a number")) == (
        2,
        True,
    )
    port = free.rpartition(":")[2]
    # (trial 140: the same address written another way: a leading zero, localhost)
    for probes in (free, f"127.0.0.1:0{port}", f"localhost:{port}"):
        monkeypatch.setenv("VERDICT_PROBE_BIND", probes)
        result = CliRunner().invoke(main, ["serve", "--bind", free, "--check-bind"])
        assert (result.exit_code, result.stderr) == (
            2,
            f"verdict: cannot listen on {probes} for the probes: the API listens there; set VERDICT_PROBE_BIND to another"
            " HOST:PORT\n",
        )
