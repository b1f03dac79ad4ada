"""A wheel is what ``pip install verdict`` brings. Built here from a copy of the sources (offline: no build
isolation, no dependencies) and installed into a folder of its own, its ``verdict`` must work from a folder
outside the source tree: the built-in pack is in the wheel, and ``verdict serve`` finds its settings there.

The installed commands run with ``python -S`` and the dependencies on ``PYTHONPATH``: without ``site``, the
editable install's import hook (which maps ``rules`` and ``api`` to this checkout) is not installed, so
nothing the wheel lacks can be taken from the source tree.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import sysconfig
import time
import urllib.error
import urllib.request
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
#: what the build reads (the Dockerfile copies the same, and gunicorn.conf.py for its CMD)
SOURCES = ("pyproject.toml", "README.md", "app.py", "api", "rules", "policies")


@dataclass(frozen=True)
class Installed:
    wheel: Path
    site: Path  # the folder the wheel was installed into (pip install --target)
    outside: Path  # a folder outside the source tree to run from

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("VERDICT_", "PYTHON"))}
        env["PYTHONPATH"] = os.pathsep.join([str(self.site), sysconfig.get_paths()["purelib"]])
        return env

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        script = self.site / "bin" / "verdict"
        return subprocess.run(
            [sys.executable, "-S", str(script), *args],
            cwd=self.outside,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=120,
        )


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    work = tmp_path_factory.mktemp("wheel")
    src = work / "src"
    src.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(ROOT / name, src / name)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input"]
    built = subprocess.run(
        [*pip, "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(work / "dist"), str(src)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    [wheel] = (work / "dist").glob("verdict-*.whl")
    done = subprocess.run(
        [*pip, "install", "--no-deps", "--no-compile", "-q", "--target", str(work / "site"), str(wheel)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    outside = work / "elsewhere"
    outside.mkdir()
    shutil.copy2(ROOT / "examples" / "lab-cluster.yaml", outside / "lab.yaml")
    return Installed(wheel, work / "site", outside)


def test_the_wheel_holds_every_package_the_packs_and_the_serve_settings(installed: Installed) -> None:
    names = set(zipfile.ZipFile(installed.wheel).namelist())
    packages = {str(p.relative_to(ROOT)) for top in ("rules", "api") for p in (ROOT / top).rglob("__init__.py")}
    assert packages and packages <= names, sorted(packages - names)
    pack_files = {"rules/" + str(p.relative_to(ROOT)) for p in (ROOT / "policies").rglob("*") if p.is_file()}
    assert "rules/policies/gpu-operator/data/operands.yaml" in pack_files
    assert pack_files <= names, sorted(pack_files - names)
    assert {"app.py", "api/gunicorn_conf.py"} <= names
    entry_points = zipfile.ZipFile(installed.wheel).read("verdict-0.1.0.dist-info/entry_points.txt").decode()
    assert "verdict = rules.cli:main" in entry_points
    assert "kubectl-verdict = rules.kubectl:main" in entry_points


def test_installed_verdict_runs_the_wheel_outside_the_source_tree(installed: Installed) -> None:
    where = subprocess.run(
        [sys.executable, "-S", "-c", "import api, rules, rules.loader as l; print(rules.__file__, api.__file__, l.BUILTIN_DIR)"],
        cwd=installed.outside,
        env=installed.env(),
        capture_output=True,
        text=True,
        check=True,
    )
    site = installed.site
    assert where.stdout.split() == [
        str(site / "rules" / "__init__.py"),
        str(site / "api" / "__init__.py"),
        str(site / "rules" / "policies"),
    ]


def test_installed_policies_list_shows_the_builtin_pack(installed: Installed) -> None:
    """Regression: a wheel had no policies/: "no such policy file or folder ... (built-in: )", exit 2."""
    from rules.loader import load_policies

    listed = installed.run("policies", "list")
    assert (listed.returncode, listed.stderr) == (0, "")
    uids = [line.split()[0] for line in listed.stdout.splitlines() if line.startswith("  ")]
    assert uids == [r.uid for r in load_policies().rules]
    assert "gpu-nodes/workload-label-valid" in uids


def test_installed_policies_test_passes_the_builtin_packs_fixtures(installed: Installed) -> None:
    """Regression (new user): from a wheel, `verdict policies test` failed 4 fixtures that read the repository's
    examples/ and tests/data/ ("resource '../../../examples/lab-cluster.yaml' not found") and found 7 coverage
    gaps; the pack's own fixtures now stand alone."""
    res = installed.run("policies", "test")
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    assert "gpu-operator: " in res.stdout and " cases passed" in res.stdout and "GAP" not in res.stdout


def test_installed_audit_judges_the_lab_with_the_builtin_pack(installed: Installed) -> None:
    res = installed.run("audit", "lab.yaml", "-r", "gpu-pods/workload-schedulable", "--results", "fail")
    assert res.returncode == 1, res.stderr
    report = json.loads(res.stdout)
    [pod] = report["objects"]
    assert (pod["kind"], pod["namespace"], pod["name"], pod["verdict"]) == ("Pod", "ml", "cuda-on-passthrough-node", "fail")
    assert pod["results"][0]["message"].startswith(
        "Pod ml/cuda-on-passthrough-node cannot be scheduled: 0/10 nodes are available: 1 Insufficient nvidia.com/gpu, "
    )
    assert report["policies"] == [{"name": "gpu-pods", "version": "1.0.0", "pack": "gpu-operator", "rules": 1}]


#: a stand-in kubectl (tests/test_kubectl_plugin.py has the thorough one): a cluster serving Nodes and Pods, the lab's
STAND_IN = """\
#!/bin/sh
case " $* " in
  *" api-resources "*) printf 'NAME SHORTNAMES APIVERSION NAMESPACED KIND\\nnodes no v1 false Node\\npods po v1 true Pod\\n' ;;
  *" get nodes,pods -A -o json "*) cat "$(dirname "$0")/lab.json" ;;
  *) echo "unexpected: $*" >&2; exit 3 ;;
esac
"""


def test_installed_kubectl_plugin_audits_what_kubectl_gets(installed: Installed) -> None:
    bin_dir = installed.outside / "bin"
    bin_dir.mkdir(exist_ok=True)
    items = [d for d in yaml.safe_load_all((installed.outside / "lab.yaml").read_text()) if d]
    (bin_dir / "lab.json").write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    (bin_dir / "kubectl").write_text(STAND_IN)
    (bin_dir / "kubectl").chmod(0o755)
    env = {**installed.env(), "PATH": f"{bin_dir}:/usr/bin:/bin"}
    script = installed.site / "bin" / "kubectl-verdict"
    res = subprocess.run(
        [sys.executable, "-S", str(script), "-r", "gpu-pods/workload-schedulable", "--results", "fail"],
        cwd=installed.outside,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 1, res.stderr
    [pod] = json.loads(res.stdout)["objects"]
    assert (pod["namespace"], pod["name"], pod["verdict"]) == ("ml", "cuda-on-passthrough-node", "fail")


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture()
def serving(installed: Installed) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    port = _free_port()
    log = installed.outside / "serve.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-S",
                str(installed.site / "bin" / "verdict"),
                "serve",
                "--bind",
                f"127.0.0.1:{port}",
                "--workers",
                "1",
            ],
            cwd=installed.outside,
            env=installed.env(),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        yield proc, f"http://127.0.0.1:{port}"
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)


def test_installed_verdict_serve_serves_the_builtin_pack(
    installed: Installed, serving: tuple[subprocess.Popen[bytes], str]
) -> None:
    """Regression: serve ran gunicorn with a gunicorn.conf.py beside rules/, which a wheel does not have."""
    proc, base = serving
    log = installed.outside / "serve.log"
    deadline = time.monotonic() + 30
    while True:
        assert proc.poll() is None, f"verdict serve exited with {proc.returncode}:\n{log.read_text(errors='replace')}"
        try:
            with urllib.request.urlopen(base + "/readyz", timeout=5) as resp:
                ready = json.loads(resp.read())
            break
        except (OSError, urllib.error.URLError):
            assert time.monotonic() < deadline, f"no answer in 30 s:\n{log.read_text(errors='replace')}"
            time.sleep(0.1)
    from rules.loader import load_policies

    builtin = load_policies()
    assert (ready["status"], ready["policies"], ready["rules"]) == ("ready", len(builtin.policies), len(builtin.rules))
    # the master (serve exec'd gunicorn in its own process) runs in the installed folder, with its settings:
    # gthread workers, and the policies loaded before it listens (on_starting)
    if Path(f"/proc/{proc.pid}/cwd").exists():
        assert os.readlink(f"/proc/{proc.pid}/cwd") == str(installed.site)
    text = log.read_text(errors="replace")
    assert "Using worker: gthread" in text and f"policies loaded: {len(builtin.policies)} policies" in text
