"""The `verdict` command: exit codes, output routing, formats, many dumps, policies subcommands."""

from __future__ import annotations

import json
import tarfile
import zipfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from rules.cli import main

REPO = Path(__file__).resolve().parent.parent
LAB = REPO / "examples" / "lab-cluster.yaml"

POLICY = """\
apiVersion: verdict/v1
kind: Policy
metadata: {name: node-labels, version: 1.2.0}
spec:
  rules:
  - id: workload-label-valid
    title: workload label is known
    severity: high
    match: {kinds: [Node]}
    assert: {path: "$.metadata.labels['nvidia.com/gpu.workload.config']", in: [container, vm-passthrough, vm-vgpu]}
    message: "label {observed} on {name} is not a workload"
    references: ["https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-operator-kubevirt.html"]
"""

DUMP = """\
apiVersion: v1
kind: Node
metadata: {name: good, labels: {nvidia.com/gpu.workload.config: container}}
---
apiVersion: v1
kind: Node
metadata: {name: typo, labels: {nvidia.com/gpu.workload.config: vm_passthrough}}
"""


@pytest.fixture()
def files(tmp_path: Path) -> tuple[Path, Path]:
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY)
    dump = tmp_path / "dump.yaml"
    dump.write_text(DUMP)
    return policy, dump


def run(*args: str, input: str | None = None):  # noqa: A002 - click's name
    return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)


def test_audit_exits_1_on_fail_and_names_the_object(files: tuple[Path, Path]) -> None:
    policy, dump = files
    res = run("audit", str(dump), "-p", str(policy))
    assert res.exit_code == 1
    report = json.loads(res.stdout)
    verdicts = {o["name"]: o["verdict"] for o in report["objects"]}
    assert verdicts == {"good": "pass", "typo": "fail"}
    typo = next(o for o in report["objects"] if o["name"] == "typo")
    assert typo["results"][0]["message"] == "label vm_passthrough on typo is not a workload"
    assert typo["source"] == {"file": str(dump), "document": 2, "line": 5}


def test_fail_on_never_exits_0_and_warn_threshold(files: tuple[Path, Path]) -> None:
    policy, dump = files
    assert run("audit", str(dump), "-p", str(policy), "--fail-on", "never").exit_code == 0
    assert run("audit", str(dump), "-p", str(policy), "--fail-on", "error").exit_code == 0
    assert run("audit", str(dump), "-p", str(policy), "--fail-on", "warn").exit_code == 1


def test_min_severity_sets_what_the_exit_code_counts(files: tuple[Path, Path]) -> None:
    """Trial 37 (CI): --min-severity critical listed nothing (an empty JUnit, no SARIF result) yet exited 1 for a
    high finding, with no word why; a severity gate was impossible."""
    policy, dump = files  # one high fail
    res = run("audit", str(dump), "-p", str(policy), "--min-severity", "critical", "-f", "junit")
    assert res.exit_code == 0
    assert 'tests="0" failures="0"' in res.stdout
    assert run("audit", str(dump), "-p", str(policy), "--min-severity", "high").exit_code == 1
    # --results only chooses what is listed: the exit stays the gate of --fail-on, and stderr says so
    res = run("audit", str(dump), "-p", str(policy), "--results", "pass")
    assert res.exit_code == 1
    assert res.stderr.splitlines()[-1] == "verdict: note: exit 1 for fail results that --results pass does not list"
    assert "does not list" not in run("audit", str(dump), "-p", str(policy), "--results", "fail").stderr


def test_gpu_node_with_nothing_allocatable_fails_the_high_gate(tmp_path: Path) -> None:
    """Trial 157: a GPU node with 8 GPUs in capacity, none allocatable and no workload label was a high *warning*
    (the default-workload assumption made it advisory), so --min-severity high exited 0 though none of its GPUs
    could be used; it serves nothing whichever workload it runs, and fails."""
    dump = tmp_path / "node.yaml"
    dump.write_text(
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: gpu-a\n  labels: {nvidia.com/gpu.present: 'true'}\n"
        "status:\n  capacity: {cpu: '96', nvidia.com/gpu: '8'}\n  allocatable: {cpu: '96', nvidia.com/gpu: '0'}\n"
    )
    res = run("audit", str(dump), "--min-severity", "high", "-f", "json")
    assert res.exit_code == 1
    report = json.loads(res.stdout)
    assert report["summary"]["failBySeverity"]["high"] == 1
    assert report["summary"]["warnBySeverity"]["high"] == 0
    (found,) = [r for r in report["objects"][0]["results"] if r["rule"] == "gpu-resources-advertised"]
    assert found["result"] == "fail"
    assert "(Assuming the node runs the default workload, container" in found["message"]


def test_an_output_file_that_cannot_be_written_exits_2_without_a_traceback(files: tuple[Path, Path], tmp_path: Path) -> None:
    """Trial 37: -o in a folder that does not exist crashed with a traceback and exit 1 ("findings") on a clean
    dump. It is refused before the dump is read; a write that fails later exits 2 with the reason."""
    policy, dump = files
    res = CliRunner().invoke(main, ["audit", str(dump), "-p", str(policy), "-o", str(tmp_path / "no" / "r.sarif")])
    assert res.exit_code == 2
    assert f"Invalid value for -o/--output: {tmp_path / 'no' / 'r.sarif'}: its folder does not exist" in res.stderr
    assert "Traceback" not in res.output
    if not Path("/dev/full").exists():
        return
    res = CliRunner().invoke(main, ["audit", str(dump), "-p", str(policy), "-o", "/dev/full"])
    assert res.exit_code == 2
    assert res.stderr.splitlines()[-1] == "verdict: cannot write the report to /dev/full: No space left on device"


def test_unreadable_input_exits_2_naming_it(files: tuple[Path, Path], tmp_path: Path) -> None:
    policy, _ = files
    missing = tmp_path / "nope.yaml"
    res = run("audit", str(missing), "-p", str(policy))
    assert res.exit_code == 2
    assert str(missing) in res.stderr
    assert "no such file" in res.stderr
    # a redirected JSON report says why too (CliRunner's stdout is no terminal), as for a dump read as nothing
    assert [e["reason"] for e in json.loads(res.stdout)["inputErrors"]] == ["no such file or directory"]
    assert run("audit", str(missing), "-p", str(policy), "-f", "table").stdout == ""
    binary = tmp_path / "blob.bin"
    binary.write_bytes(b"\x00\xff\xfe" * 100)
    res = run("audit", str(binary), "-p", str(policy))
    assert res.exit_code == 2
    assert str(binary) in res.stderr


def test_broken_policy_exits_2_with_file_and_line(files: tuple[Path, Path], tmp_path: Path) -> None:
    _, dump = files
    bad = tmp_path / "bad.yaml"
    bad.write_text(POLICY.replace("in: [container", "inn: [container"))
    res = run("audit", str(dump), "-p", str(bad))
    assert res.exit_code == 2
    assert f"{bad}:10" in res.stderr
    assert "workload-label-valid" in res.stderr


def test_output_file_results_filter_and_yaml(files: tuple[Path, Path], tmp_path: Path) -> None:
    policy, dump = files
    out = tmp_path / "report.json"
    res = run("audit", str(dump), "-p", str(policy), "-o", str(out), "--results", "fail")
    assert res.exit_code == 1
    assert res.stdout == ""
    report = json.loads(out.read_text())
    assert [o["name"] for o in report["objects"]] == ["typo"]
    res = run("audit", str(dump), "-p", str(policy), "--format", "yaml", "--fail-on", "never")
    assert "kind: Report" in res.stdout
    res = run("audit", str(dump), "-p", str(policy), "--results", "bogus")
    assert res.exit_code == 2


def test_stdin_and_table(files: tuple[Path, Path]) -> None:
    policy, _ = files
    res = run("audit", "-", "-p", str(policy), "--format", "table", input=DUMP)
    assert res.exit_code == 1
    assert "Node/typo" in res.stdout
    assert "\x1b[" not in res.stdout  # no colour when stdout is not a terminal


def test_folder_of_archives_is_one_report_per_dump(files: tuple[Path, Path], tmp_path: Path) -> None:
    policy, dump = files
    batch = tmp_path / "batch"
    batch.mkdir()
    for name in ("a", "b"):
        with tarfile.open(batch / f"{name}.tar.gz", "w:gz") as tar:
            tar.add(dump, arcname=f"{name}/dump.yaml")
    res = run("audit", str(batch), "-p", str(policy))
    assert res.exit_code == 1
    data = json.loads(res.stdout)
    assert data["kind"] == "ReportList"
    assert [r["name"] for r in data["reports"]] == [str(batch / "a.tar.gz"), str(batch / "b.tar.gz")]
    assert data["total"]["results"]["fail"] == 2
    # trial 197: the total counts the dumps, and those that gave no object (an empty archive among them: exit 2)
    assert (data["total"]["dumps"], data["total"]["dumpsNotRead"]) == (2, 0)
    (batch / "c.tar.gz").write_bytes(b"")
    res = run("audit", str(batch), "-p", str(policy))
    data = json.loads(res.stdout)
    assert (res.exit_code, data["total"]["dumps"], data["total"]["dumpsNotRead"]) == (2, 3, 1)


def test_a_sarif_batch_of_more_runs_than_code_scanning_takes_says_so(files: tuple[Path, Path], tmp_path: Path) -> None:
    """Trial 105: a folder of 21 dumps wrote 21 SARIF runs without a word; GitHub code scanning rejects a file of
    more than 20 ("rejecting SARIF, as there are more runs than allowed (21 > 20)")."""
    policy, dump = files
    batch = tmp_path / "fleet"
    batch.mkdir()
    for i in range(21):  # archives: a folder of archives is a batch, one dump each
        with tarfile.open(batch / f"cluster-{i:02d}.tar.gz", "w:gz") as tar:
            tar.add(dump, arcname="dump.yaml")
    res = run("audit", str(batch), "-p", str(policy), "-q", "-f", "sarif", "-o", str(tmp_path / "fleet.sarif"))
    assert res.exit_code == 1
    assert len(json.loads((tmp_path / "fleet.sarif").read_text())["runs"]) == 21
    assert res.stderr == (
        "verdict: warning: the SARIF log holds 21 runs, one per dump; GitHub code scanning refuses a file of more than 20"
        " runs: audit at most 20 dumps into each SARIF file (one per dump: verdict audit DUMP -f sarif -o DUMP.sarif)"
        " and upload each file\n"
    )
    (batch / "cluster-20.tar.gz").unlink()
    res = run("audit", str(batch), "-p", str(policy), "-q", "-f", "sarif", "-o", str(tmp_path / "fleet.sarif"))
    assert res.stderr == ""


def test_a_readme_beside_the_archives_keeps_the_batch(files: tuple[Path, Path], tmp_path: Path) -> None:
    """Regression (a batch-audit trial): a README.md or SHA256SUMS beside the archives made the folder one dump,
    the clusters merged into one (a pod of one placed on a node of another: a fail became a pass), and nothing
    said so. Files a folder read as one dump does not read either leave it a batch, and a note names them."""
    policy, dump = files
    batch = tmp_path / "batch"
    batch.mkdir()
    for name in ("a", "b"):
        with tarfile.open(batch / f"{name}.tgz", "w:gz") as tar:
            tar.add(dump, arcname="dump.yaml")
    (batch / "README.md").write_text("# December audit\n\nTwo clusters.\n")
    (batch / "SHA256SUMS").write_text("0123abcd  a.tgz\n4567ef01  b.tgz\n")
    (batch / ".DS_Store").write_bytes(b"\x00\x01")
    res = run("audit", str(batch), "-p", str(policy))
    reports = json.loads(res.stdout)["reports"]
    assert [r["name"] for r in reports] == [str(batch / "a.tgz"), str(batch / "b.tgz")]
    note = (
        f"{batch}: a batch of 2 archives, each judged alone; 2 files not read: neither named *.yaml, *.yml,"
        f" *.json or an archive, nor starting as a dump or describe text ({batch / 'README.md'}, {batch / 'SHA256SUMS'})"
    )
    assert res.stderr.splitlines()[0] == f"verdict: note: {note}"
    # trial 64: a nightly job that keeps the -o file only lost it; it is each report's first note (said once on stderr)
    assert all(r["notes"][0] == note for r in reports) and res.stderr.count(note) == 1
    sarif = json.loads(run("audit", str(batch), "-p", str(policy), "-f", "sarif").stdout)
    told = [n["message"]["text"] for run_ in sarif["runs"] for n in run_["invocations"][0]["toolExecutionNotifications"]]
    assert told.count(note) == 2
    # trial 93: a file read as a dump beside them (by name, or a .txt that holds YAML) made the folder one dump, the
    # clusters merged: it is a dump of its own, and a subfolder holding one is one dump with all it holds
    (batch / "nodes.txt").write_text(dump.read_text())
    (batch / "c" / "more").mkdir(parents=True)
    (batch / "c" / "nodes.yaml").write_text(dump.read_text())
    with tarfile.open(batch / "c" / "more" / "pods.tgz", "w:gz") as tar:
        tar.add(dump, arcname="dump.yaml")
    data = json.loads(run("audit", str(batch), "-p", str(policy)).stdout)
    assert [r["name"] for r in data["reports"]] == [str(batch / n) for n in ("a.tgz", "b.tgz", "c", "nodes.txt")]
    assert data["reports"][2]["filesRead"] == [str(batch / "c" / "more" / "pods.tgz!dump.yaml"), str(batch / "c" / "nodes.yaml")]
    assert data["reports"][0]["notes"][0].startswith(
        f"{batch}: a batch of 2 archives, 1 folder and 1 file, each judged alone; the files and folders beside the"
        f" archives or must-gathers ({batch / 'c'}, {batch / 'nodes.txt'}) are dumps of their own too"
    )


def test_an_empty_archive_in_a_batch_says_so_in_its_report(files: tuple[Path, Path], tmp_path: Path) -> None:
    """Regression (a batch-audit trial): an empty archive, or one holding no dump, had a clean report (no input
    error, no note) in every format; only stderr said so, and batch jobs keep the report."""
    policy, dump = files
    batch = tmp_path / "batch"
    batch.mkdir()
    with tarfile.open(batch / "a.tgz", "w:gz") as tar:
        tar.add(dump, arcname="dump.yaml")
    (batch / "empty.tgz").write_bytes(b"")
    logs = tmp_path / "app.log"
    logs.write_text("2026-12-03T10:00:00Z started\n")
    with tarfile.open(batch / "logs.tgz", "w:gz") as tar:
        tar.add(logs, arcname="app.log")
    out = tmp_path / "r.json"
    res = run("audit", str(batch), "-p", str(policy), "-o", str(out))
    assert res.exit_code == 2
    errors = {Path(r["name"]).name: r["inputErrors"] for r in json.loads(out.read_text())["reports"]}
    assert errors["a.tgz"] == []
    assert [e["reason"] for e in errors["empty.tgz"]] == ["no Kubernetes object found: the file is empty"]
    assert [e["reason"] for e in errors["logs.tgz"]] == [
        "no Kubernetes object found: 1 file not read: neither named *.yaml, *.yml, *.json or an archive, nor starting"
        f" as a dump or describe text ({batch / 'logs.tgz'}!app.log)"
    ]
    # trial 230 #8: a member read for neither of those reasons is said not read for its own (it was "neither named
    # *.yaml ..." of ../dc9-node.yaml)
    with zipfile.ZipFile(batch / "odd.zip", "w") as zf:
        zf.writestr("../node.yaml", dump.read_text())
        zf.writestr("x/._node.yaml", "x")
        zf.writestr("..\\win\\node.yaml", "x")  # (trial 231 #11: a Windows zip's member was called hidden)
    res = run("audit", str(batch), "-p", str(policy), "-o", str(out))
    errors = {Path(r["name"]).name: r["inputErrors"] for r in json.loads(out.read_text())["reports"]}
    assert [e["reason"] for e in errors["odd.zip"]] == [
        "no Kubernetes object found: 2 members with '..' in their path not read, as they point outside the archive"
        f" ({batch / 'odd.zip'}!..\\win\\node.yaml, {batch / 'odd.zip'}!../node.yaml); 1 hidden file not read"
        f" ({batch / 'odd.zip'}!x/._node.yaml)"
    ]


def test_policies_list_and_lint(files: tuple[Path, Path], tmp_path: Path) -> None:
    policy, _ = files
    res = run("policies", "list", "-p", str(policy))
    assert "node-labels 1.2.0" in res.stdout
    assert "node-labels/workload-label-valid" in res.stdout
    assert run("policies", "lint", str(policy)).exit_code == 0
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        POLICY.replace(
            "$.metadata.labels['nvidia.com/gpu.workload.config']", "{.metadata.labels.nvidia\\\\.com/gpu\\\\.workload\\\\.config}"
        )
    )
    res = run("policies", "lint", str(bad))
    assert res.exit_code == 1
    # Regression: the path was shown as repr() prints it, every backslash doubled (nvidia\\.com): the refusal
    # shows it as the user wrote it, and the hint as the user should write it.
    assert res.stdout == (
        f"{bad}:10: rule workload-label-valid: spec.rules[0].assert.path:"
        r" '{.metadata.labels.nvidia\.com/gpu\.workload\.config}' is kubectl JSONPath, not RFC 9535 JSONPath;"
        """ did you mean "$.metadata.labels['nvidia.com/gpu.workload.config']"?\n"""
    )


def test_lint_prints_every_rule_refused_in_one_run(tmp_path: Path) -> None:
    """Regression: lint printed a file's first compile error only; a policy with three mistakes took three runs."""
    rule = POLICY.split("  rules:\n")[1]
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        POLICY.replace("in: [container, vm-passthrough, vm-vgpu]", "matches: '[a-z'")
        + rule.replace("workload-label-valid", "second").replace("$.metadata.labels[", "$.metadata.labels[[")
        + rule.replace("workload-label-valid", "third").replace("{observed}", "{value}")
    )
    res = run("policies", "lint", str(bad))
    assert res.exit_code == 1
    assert [line.split(": ")[1:3] for line in res.stdout.splitlines()] == [
        ["rule workload-label-valid", "spec.rules[0].assert.matches"],
        ["rule second", "spec.rules[1].assert.path"],
        ["rule third", "spec.rules[2].message"],
    ]
    assert res.stdout.startswith(
        f"{bad}:10: rule workload-label-valid: spec.rules[0].assert.matches: bad regular expression '[a-z': unterminated"
    )


def test_lint_notes_a_text_yaml_cut_at_its_comment(tmp_path: Path) -> None:
    """Trial 243 #3: "remediation: kubectl edit pod ... # add resources.limits.memory", written plain as the built-in
    pack's fixes read, loaded and linted clean, and every fix said only "kubectl edit pod ...": YAML read the rest
    as a comment. Lint says so of each such text; a quoted one, or a folded block, keeps its " #"."""
    policy = tmp_path / "p.yaml"
    policy.write_text(
        POLICY.replace(
            '    message: "label {observed} on {name} is not a workload"\n',
            "    message: label {observed} on {name} is not a workload\n"
            "    remediation: kubectl label node {name} --overwrite nvidia.com/gpu.workload.config=container  # or vm-vgpu\n",
        )
        + POLICY.split("  rules:\n")[1]
        .replace("workload-label-valid", "quoted")
        .replace('is not a workload"', 'is not a workload # ever"')
        .replace("    references:", "    remediation: >-\n      kubectl get nodes  # then label it\n    references:")
    )
    res = run("policies", "lint", str(policy))
    assert res.exit_code == 0 and res.stdout.startswith("ok: 1 policy, 2 rules")
    assert [line for line in res.stderr.splitlines() if "YAML comment" in line] == [
        f"verdict: note: {policy}:12: remediation: what follows its ' #' is a YAML comment, left out of the text: quote"
        " the text, or write it as a folded block (remediation: >-, the text on the lines under it)"
    ]
    from rules.loader import load_policies

    fixes = load_policies([str(policy)]).rules
    assert [r.remediation for r in fixes] == [
        "kubectl label node {name} --overwrite nvidia.com/gpu.workload.config=container",
        "kubectl get nodes  # then label it",
    ]


@pytest.mark.skipif(not LAB.exists(), reason="the lab example lands with the pack")
def test_lab_audit_with_builtin_pack() -> None:
    res = run("audit", str(LAB))
    assert res.exit_code == 1
    report = json.loads(res.stdout)
    by_name = {o["name"]: o for o in report["objects"]}
    rule = "resource-class-matches-workload"

    def result(name: str) -> str:
        return next(r["result"] for r in by_name[name]["results"] if r["rule"] == rule)

    assert result("gpu-broken-wrong-class") == "fail"
    for good in ("gpu-container-1", "gpu-passthrough-1", "gpu-vgpu-1"):
        assert result(good) == "pass"
    assert run("audit", str(LAB), "--fail-on", "never").exit_code == 0


def test_empty_input_is_never_a_clean_cluster(files: tuple[Path, Path], tmp_path: Path) -> None:
    """Regression: `kubectl get ... | verdict audit -` with a failed kubectl exited 0 with no word."""
    policy, _ = files
    res = run("audit", "-", "-p", str(policy), input="\n  \n")
    assert (res.exit_code, res.stderr.strip()) == (2, "verdict: no Kubernetes object found in <stdin>")
    empty = tmp_path / "empty.yaml"
    empty.write_text("---\n")
    res = run("audit", str(empty), "-p", str(policy))
    assert (res.exit_code, res.stderr.strip()) == (2, f"verdict: no Kubernetes object found in {empty}")
    # trial 73: a file of no byte says so on the terminal, as its report's input error did
    empty.write_text("")
    res = run("audit", str(empty), "-p", str(policy), "-f", "table")
    assert (res.exit_code, res.stderr.strip()) == (2, f"verdict: no Kubernetes object found in {empty}: the file is empty")


def test_an_empty_pipe_asks_whether_the_command_before_it_failed(files: tuple[Path, Path]) -> None:
    """Trial 73: `kubectl get nodes -o json | verdict audit -` with kubectl failing said only "no Kubernetes object
    found in <stdin>". Standard input of no byte is told as such, on stderr and in a redirected JSON report."""
    policy, _ = files
    res = run("audit", "-", "-p", str(policy), input="")
    said = "standard input is empty: nothing came through the pipe (did the command before | fail?)"
    assert (res.exit_code, res.stderr.strip()) == (2, f"verdict: cannot read <stdin>: {said}")
    report = json.loads(res.stdout)  # CliRunner's stdout is no terminal: a redirected `> out.json`
    assert [(e["file"], e["reason"]) for e in report["inputErrors"]] == [("<stdin>", said)]
    assert report["summary"]["objectsRead"] == 0


def test_a_dump_read_as_nothing_still_writes_its_report_file(files: tuple[Path, Path], tmp_path: Path) -> None:
    """Trial 48: with -o, an empty dump (exit 2) left the report file of an earlier run in place, which CI then
    uploads as this run's. The file now holds why nothing was read, as an input error; stdout stays empty."""
    policy, dump = files
    out = tmp_path / "report.xml"
    assert run("audit", str(dump), "-p", str(policy), "-f", "junit", "-o", str(out)).exit_code == 1
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    res = run("audit", str(empty), "-p", str(policy), "-f", "junit", "-o", str(out))
    assert (res.exit_code, res.stdout) == (2, "")
    assert f'<error message="no Kubernetes object found: the file is empty" type="input">{empty}' in out.read_text()
    # trial 69: in a format for programs, standard output gets that report too (a nightly `-f json > out.json`
    # was an empty file); a table of nothing stays on standard error
    res = run("audit", str(empty), "-p", str(policy), "-f", "json")
    assert res.exit_code == 2
    assert [e["reason"] for e in json.loads(res.stdout)["inputErrors"]] == ["no Kubernetes object found: the file is empty"]
    assert run("audit", str(empty), "-p", str(policy), "-f", "table").stdout == ""
    # a dump that cannot be read at all (not text, not an archive): the same
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"\x00\x82\xff" * 10)
    res = run("audit", str(binary), "-p", str(policy), "-f", "json", "-o", str(out))
    assert res.exit_code == 2
    report = json.loads(out.read_text())
    assert (report["summary"]["objectsRead"], len(report["inputErrors"])) == (0, 1)
    assert "not UTF-8 text and not a tar, gzip, xz, bzip2 or zip archive" in report["inputErrors"][0]["reason"]


def test_filters_list_less_but_the_summary_counts_the_audit(files: tuple[Path, Path]) -> None:
    policy, dump = files
    report = json.loads(run("audit", str(dump), "-p", str(policy), "--results", "fail").stdout)
    assert [o["name"] for o in report["objects"]] == ["typo"]
    assert report["summary"]["objectsJudged"] == 2
    assert report["summary"]["results"]["pass"] == 1
    assert report["filters"] == {"results": ["fail"]}


def test_markdown_limit_option(files: tuple[Path, Path]) -> None:
    policy, dump = files
    res = run("audit", str(dump), "-p", str(policy), "--format", "markdown", "--limit", "0")
    assert res.stdout.startswith("**verdict** ")
    assert "label vm_passthrough on typo is not a workload" in res.stdout
    assert run("audit", str(dump), "-p", str(policy), "--format", "markdown", "--limit", "100").exit_code == 2
    assert run("audit", str(dump), "-p", str(policy), "--limit", "0").exit_code == 2


def test_a_markdown_or_chat_report_cut_in_a_file_says_so_on_stderr(tmp_path: Path) -> None:
    """Trial 175 #5: a batch's markdown written with -o for a CI step summary held 2 of its 11 dumps at the default
    limit, which only the file's last line said. Standard error says what was left out and how to keep it."""
    out = tmp_path / "summary.md"
    for fmt in ("markdown", "chat"):
        res = run("audit", str(LAB), "-f", fmt, "-o", str(out), "--fail-on", "never", "--limit", "1000")
        note = [line for line in res.stderr.splitlines() if line.startswith(f"verdict: note: {out}: ")]
        assert len(note) == 1 and note[0].endswith("not shown (--limit 1000; --limit 0 writes the whole report)"), res.stderr
        assert note[0].removeprefix(f"verdict: note: {out}: ").split(" not shown")[0] in out.read_text()
    res = run("audit", str(LAB), "-f", "markdown", "-o", str(out), "--fail-on", "never", "--limit", "0")
    assert "writes the whole report" not in res.stderr and "not shown (limit" not in out.read_text()


def test_a_batch_names_a_dump_once_before_a_note_that_names_it(tmp_path: Path) -> None:
    """Trial 175 #9: "x.zip: x.zip: 1 member with '..' in its path not read" in a batch, whose notes each name their
    dump, and no member named."""
    import zipfile

    archive = tmp_path / "x.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("../../evil.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: evil}\n")
        z.writestr("nodes.yaml", "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n")
    res = run("audit", str(archive), str(LAB), "-o", str(tmp_path / "r.json"), "--fail-on", "never")
    [note] = [line for line in res.stderr.splitlines() if "outside the archive" in line]
    assert (
        note
        == f"verdict: note: {archive}: 1 member with '..' in its path not read (../../evil.yaml): it points outside the archive"
    )


def test_policies_show_prints_regex_tables_as_written() -> None:
    """Regression: rich read '[a-z0-9-]' in a data table as markup and dropped it."""
    res = run("policies", "show", "gpu-operator")
    assert res.exit_code == 0
    assert "^(?!([a-z0-9-]+\\.)*kubernetes\\.io/)[a-z0-9]([-a-z0-9.]*[a-z0-9])?/.+$" in res.stdout


def test_notes_reach_stderr_and_stdin_is_named(files: tuple[Path, Path], tmp_path: Path) -> None:
    policy, _ = files
    ex = tmp_path / "ex.yaml"
    ex.write_text(
        "apiVersion: verdict/v1\nkind: Exemptions\nexemptions:\n"
        "- rules: [node-labels/workload-label-valid]\n  names: [typo]\n  reason: relabel on Friday\n"
        "  expires: 2020-01-31\n"
    )
    res = run("audit", "-", "-p", str(policy), "--exemptions", str(ex), "--format", "markdown", input=DUMP)
    assert res.exit_code == 1
    assert res.stdout.startswith("**verdict**: ")  # <stdin> names no file: no title (was "**verdict** -:")
    assert (
        f"verdict: note: exemption {ex}:4 (node-labels/workload-label-valid: relabel on Friday) expired on 2020-01-31"
        in res.stderr
    )


def test_table_lists_the_result_words_the_filter_asked_for(files: tuple[Path, Path]) -> None:
    """Regression: `--results skip --format table` (the README's advice) printed no row."""
    policy, dump = files
    res = run("audit", str(dump), "-p", str(policy), "--results", "pass", "--format", "table")
    assert "Node/good" in res.stdout and "Node/typo" not in res.stdout


@pytest.mark.parametrize(
    ("content", "error"),
    [
        ('{"foo": 1}', "not a Kubernetes object: no 'kind'"),
        ("---\nkind: ConfigMap\nmetadata: {name: c\n", "YAML syntax error"),
        (
            "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
            + "".join(f"{c}: &{c} [" + ", ".join([f"*{p}"] * 10) + "]\n" for p, c in zip("abcdefg", "bcdefgh", strict=True)),
            "an alias bomb?",
        ),
    ],
)
def test_a_dump_with_nothing_readable_exits_2_with_its_errors(tmp_path: Path, content: str, error: str) -> None:
    """Regression (issue 12 item 12): only broken documents, a billion-laughs file or {"foo":1} exited 1 (0 with
    --fail-on never), where an unreadable input exits 2 as docs/service.md promises (the service answers 400)."""
    path = tmp_path / "dump.yaml"
    path.write_text(content)
    for extra in ([], ["--fail-on", "never"]):
        result = CliRunner().invoke(main, ["audit", str(path), *extra])
        assert result.exit_code == 2, result.output
        assert error in result.stderr
        assert f"verdict: no Kubernetes object could be read from {path} (1 input error)" in result.stderr
        # standard output (not a terminal) gets the JSON report of nothing, its input error in it (trial 69)
        report = json.loads(result.stdout)
        assert report["summary"]["objectsRead"] == 0 and error in report["inputErrors"][0]["reason"]


def test_a_batch_with_one_unreadable_dump_still_reports_the_others_and_exits_2(tmp_path: Path) -> None:
    good, bad = tmp_path / "good.yaml", tmp_path / "bad.json"
    good.write_text("apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n")
    bad.write_text('{"foo": 1}')
    result = CliRunner().invoke(main, ["audit", str(good), str(bad), "--fail-on", "never"])
    assert result.exit_code == 2
    reports = json.loads(result.stdout)
    assert "n1" in json.dumps(reports)
    assert f"no Kubernetes object could be read from {bad}" in result.stderr
    # trial 69: the table's total line said only the worst result; it counts the batch as each dump's line does
    table = CliRunner().invoke(main, ["audit", str(LAB), str(good), str(bad), "-f", "table", "--fail-on", "never"])
    each = json.loads(CliRunner().invoke(main, ["audit", str(LAB), str(good), "--fail-on", "never"]).stdout)["reports"]
    results = {w: sum(r["summary"]["results"][w] for r in each) for w in ("pass", "fail", "warn", "error", "skip")}
    judged = sum(r["summary"]["objectsJudged"] for r in each)
    counts = ", ".join(f"{n:,} {w}" for w, n in results.items() if n)
    assert table.stdout.splitlines()[-1] == (
        f"== total: 3 dumps, {judged} objects judged ({judged} read); {sum(results.values())} results: {counts}; 1 input error;"
        " worst result: error"
    )


def test_a_table_on_the_terminal_lists_an_input_error_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Trial 163 #3: the table on the terminal listed the input error, and standard error said it again under it.
    Redirected (or in another format) the report is not read there, so standard error still says it."""
    from rules import cli

    dump = tmp_path / "nodes.yaml"
    dump.write_text(
        "kind: Node\napiVersion: v1\nmetadata: {name: a, labels: [x]}\n---\nkind: Node\napiVersion: v1\nmetadata: {name: b}\n"
    )
    said = f"{dump}, document 1, line 1 at $.metadata.labels: Node a: metadata.labels is a list, not a mapping"
    piped = run("audit", str(dump), "-f", "table", "--fail-on", "never")
    assert " ".join(piped.stdout.split()).count(said) == 1
    assert piped.stderr.count(f"verdict: input error: {said}") == 1
    monkeypatch.setattr(cli, "_stdout_is_terminal", lambda: True)
    shown = run("audit", str(dump), "-f", "table", "--fail-on", "never")
    assert " ".join(shown.stdout.split()).count(said) == 1 and said not in shown.stderr
    assert run("audit", str(dump), "--fail-on", "never").stderr.count(f"verdict: input error: {said}") == 1
    # trial 166: in a batch, a dump read as nothing is a table of its own on the terminal, its input error in it
    empty = tmp_path / "empty.json"
    empty.write_text('{"foo": 1}')
    batch = run("audit", str(dump), str(empty), "-f", "table", "--fail-on", "never")
    assert batch.exit_code == 2 and "verdict: input error:" not in batch.stderr
    assert " ".join(batch.stdout.split()).count("not a Kubernetes object: no 'kind'") == 1


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_corrupt_archive_in_a_batch_loses_its_own_report_only(tmp_path: Path, jobs: str) -> None:
    """Regression (an adversarial trial): 'verdict audit lab.yaml corrupt.zip' printed only "cannot read
    corrupt.zip: broken zip archive" and wrote no report: the lab dump was lost with it."""
    corrupt = tmp_path / "corrupt.zip"
    corrupt.write_bytes(b"PK\x03\x04" + b"\x00" * 60)  # a zip's magic, then nothing of a zip
    out = tmp_path / "report.json"
    result = CliRunner().invoke(main, ["audit", str(LAB), str(corrupt), "-j", jobs, "--fail-on", "never", "-o", str(out)])
    assert result.exit_code == 2  # one dump had no object, as for any unreadable dump of a batch
    lab, broken = json.loads(out.read_text())["reports"]
    assert (lab["summary"]["objectsRead"], broken["summary"]["objectsRead"]) == (19, 0)
    [err] = broken["inputErrors"]
    assert err["file"] == str(corrupt) and err["reason"].startswith("broken zip archive")
    assert f"verdict: input error: {corrupt}, document 1: broken zip archive" in result.stderr
    alone = CliRunner().invoke(main, ["audit", str(corrupt)])
    assert alone.exit_code == 2  # and a redirected JSON report holds why (trial 73), as the batch's does
    assert [e["reason"][:18] for e in json.loads(alone.stdout)["inputErrors"]] == ["broken zip archive"]
    assert f"verdict: cannot read {corrupt}: broken zip archive" in alone.stderr


def test_skips_from_a_missing_clusterpolicy_are_said_once_on_stderr() -> None:
    """Issue 14: a node dump without ClusterPolicy skips most node rules; the notes say why, once per reason,
    without --results skip."""
    res = run("audit", str(REPO / "examples" / "lab" / "nodes.yaml"), "--format", "table", "--fail-on", "never")
    assert res.exit_code == 0
    assert (
        "verdict: note: skipped: no ClusterPolicy in the dump, so whether sandbox workloads are enabled is unknown"
        " (10 results of gpu-nodes/label-ignored-sandbox-disabled; the rule judged no object)\n" in res.stderr
    )
    assert res.stderr.count("no ClusterPolicy in the dump, so whether") == 1


# ------------------------------------------------------------------------------- renderer options


def test_every_renderer_option_of_the_docs_is_a_flag(files: tuple[Path, Path], tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    import yaml

    policy, dump = files
    args = ("audit", str(dump), "-p", str(policy), "--fail-on", "never")
    # SARIF: findings only, or every result
    plain = json.loads(run(*args, "-f", "sarif").stdout)["runs"][0]["results"]
    every = json.loads(run(*args, "-f", "sarif", "--sarif-all-results").stdout)["runs"][0]["results"]
    assert [r["kind"] for r in plain] == ["fail"] and sorted(r["kind"] for r in every) == ["fail", "pass"]
    # JUnit: a warn is a failure on demand (the rule fails; make it advisory)
    warn_policy = tmp_path / "warn.yaml"
    warn_policy.write_text(POLICY.replace("    severity: high\n", "    severity: high\n    onFailure: warn\n"))
    junit = ("audit", str(dump), "-p", str(warn_policy), "--fail-on", "never", "-f", "junit")
    assert ET.fromstring(run(*junit).stdout).get("failures") == "0"
    assert ET.fromstring(run(*junit, "--junit-warn-as-failure").stdout).get("failures") == "1"
    # PolicyReport: version, output as JSON, size cap
    items = yaml.safe_load(run(*args, "-f", "policyreport", "--policyreport-version", "v1beta1").stdout)["items"]
    assert [(i["apiVersion"], i.get("source")) for i in items] == [("wgpolicyk8s.io/v1beta1", "verdict")]
    as_json = json.loads(run(*args, "-f", "policyreport", "--policyreport-output", "json").stdout)
    assert as_json["kind"] == "List" and as_json["items"][0]["kind"] == "ClusterPolicyReport"
    split = yaml.safe_load(run(*args, "-f", "policyreport", "--policyreport-max-bytes", "1200").stdout)["items"]
    assert [i["metadata"]["name"] for i in split] == ["verdict-cluster-1", "verdict-cluster-2"]
    small = run(*args, "-f", "policyreport", "--policyreport-max-bytes", "300")
    assert small.exit_code == 2
    assert "Invalid value for --policyreport-max-bytes: at least " in small.stderr
    assert "bytes for this dump: one result of node-labels/workload-label-valid needs" in small.stderr
    # group-by, for the formats that lay details out
    assert ET.fromstring(run(*args, "-f", "junit", "--group-by", "object").stdout).find("testsuite").get("name") == "Node/good"  # type: ignore[union-attr]
    assert "| Object | Rule | Result | Message | Fix |" in run(*args, "-f", "markdown", "--group-by", "object").stdout


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["-f", "json", "--group-by", "object"], "--group-by applies to --format chat, junit, markdown or table"),
        (["-f", "junit", "--sarif-all-results"], "--sarif-all-results applies to --format sarif"),
        (["-f", "sarif", "--junit-warn-as-failure"], "--junit-warn-as-failure applies to --format junit"),
        (["-f", "yaml", "--policyreport-version", "v1beta1"], "--policyreport-version applies to --format policyreport"),
        (["-f", "table", "--limit", "600"], "--limit applies to --format chat or markdown"),
        (["-f", "markdown", "--limit", "100"], "a chat message needs at least 500 characters; 0 means no limit"),
    ],
)
def test_a_renderer_option_of_another_format_is_refused(files: tuple[Path, Path], flags: list[str], message: str) -> None:
    policy, dump = files
    res = run("audit", str(dump), "-p", str(policy), *flags)
    assert res.exit_code == 2 and message in res.stderr
    assert res.stdout == ""


def test_table_takes_the_terminal_width_or_columns(files: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    from rules import cli

    monkeypatch.setenv("COLUMNS", "70")
    assert cli._table_width(False) == 70
    monkeypatch.delenv("COLUMNS")
    assert cli._table_width(False) == cli.TABLE_WIDTH
    monkeypatch.setattr(cli.shutil, "get_terminal_size", lambda fallback: __import__("os").terminal_size((90, 30)))
    assert cli._table_width(True) == 90
    policy, dump = files
    monkeypatch.setenv("COLUMNS", "64")
    out = run("audit", str(dump), "-p", str(policy), "-f", "table").stdout
    assert max(len(line) for line in out.splitlines()) <= 64 and "Findings by rule:" in out  # compact under 100


# ------------------------------------------------------------------------------------------- filters


def test_kubectl_filters_choose_the_objects_judged_and_the_summary_says_so() -> None:
    res = run("audit", str(LAB), "--kind", "pods", "-n", "ml", "--fail-on", "never")
    assert res.exit_code == 0
    report = json.loads(res.stdout)
    assert {(o["kind"], o["namespace"]) for o in report["objects"]} == {("Pod", "ml")}
    assert report["summary"]["objectsRead"] == 19
    assert report["summary"]["selection"] == {"kinds": ["pods"], "namespaces": ["ml"], "objectsSelected": 3}
    md = run("audit", str(LAB), "-l", "nvidia.com/gpu.workload.config in (vm-passthrough)", "--name", "gpu-*", "-f", "markdown")
    assert md.stdout.splitlines()[0].startswith(
        "**verdict** "
        + str(LAB)
        + ": 2 objects judged (19 read; 2 selected by labels nvidia.com/gpu.workload.config in (vm-passthrough), name gpu-*)"
    )
    table = run("audit", str(LAB), "--kind", "no", "--name", "gpu-broken-label-typo", "-f", "table").stdout
    assert table.splitlines()[0].startswith("1 object judged (19 read; 1 selected by kind no, name gpu-broken-label-typo); ")


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--kind", "Service"], "Invalid value for --kind: no loaded rule judges kind 'Service'; the rules judge ClusterPolicy,"),
        (["-l", "tier in prod"], "Invalid value for -l/--selector: label selector 'tier in prod': found 'prod', expected: '('"),
    ],
)
def test_a_filter_that_cannot_select_is_refused_before_reading(flags: list[str], message: str) -> None:
    res = run("audit", "/no/such/dump.yaml", *flags)
    assert res.exit_code == 2 and message in res.stderr
    assert "no such file" not in res.stderr  # refused before the dump is read


# ------------------------------------------------------------------------------------------ progress


def _fake_terminal(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Progress drawn on a terminal-like console (rich with force_terminal) whose text the test reads."""
    import io

    from rich.console import Console

    from rules import cli

    buf = io.StringIO()
    monkeypatch.setattr(cli, "_progress_console", lambda: Console(file=buf, force_terminal=True, width=140))
    return buf


def _plain(text: str) -> str:
    import re

    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)  # the display's colours and cursor moves


@pytest.mark.parametrize("to_file", [True, False])
def test_progress_tells_each_phase_with_counts_on_the_terminal_never_in_the_report(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, to_file: bool
) -> None:
    from rules.loader import load_policies

    buf = _fake_terminal(monkeypatch)
    rules = len(load_policies().rules)
    out = tmp_path / "report.json"
    res = run("audit", str(LAB), "--fail-on", "never", *(["-o", str(out)] if to_file else []))
    assert res.exit_code == 0
    shown = _plain(buf.getvalue())
    # the last frame (frames in between depend on the display's refresh clock): each phase with its counts
    assert f"read {LAB}: 1 file, 19 objects" in shown
    assert f"evaluated 19/19 objects × {rules} rules" in shown
    report = out.read_text() if to_file else res.stdout
    data = json.loads(report)
    assert data["summary"]["objectsRead"] == 19  # the report is the report, whole
    assert f"rendering json: {sum(len(o['results']) for o in data['objects'])} results" in shown
    assert f"{LAB}: 1 file" not in report and "objects ×" not in report and "\x1b[" not in report


def test_progress_of_a_folder_counts_its_files_and_objects(monkeypatch: pytest.MonkeyPatch) -> None:
    buf = _fake_terminal(monkeypatch)
    folder = REPO / "examples" / "lab"
    files = sorted(p for p in folder.rglob("*") if p.is_file())  # README.md too: opened to look for describe text
    res = run("audit", str(folder), "--fail-on", "never", "-f", "markdown")
    assert res.exit_code == 0
    objects = json.loads(run("audit", str(folder), "--fail-on", "never").stdout)["summary"]["objectsRead"]
    assert f"read {folder}: {len(files)} files, {objects} objects" in _plain(buf.getvalue())


def test_no_progress_without_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    from rules import cli

    assert cli._progress_console() is None  # CliRunner's stderr, like a pipe or CI logs, is no terminal
    res = run("audit", str(LAB), "--fail-on", "never")
    assert f"{LAB}: 1 file" not in res.stderr and "objects ×" not in res.stderr
    monkeypatch.setattr(cli.sys.stderr, "isatty", lambda: True, raising=False)
    assert cli._progress_console() is not None


def test_markdown_of_a_clean_audit_is_printed_not_a_traceback() -> None:
    """Regression (new user): ``--format markdown`` on a healthy node raised IndexError (exit 1, no output)."""
    res = run("audit", str(REPO / "tests" / "data" / "real" / "h100-mig-mixed-node.yaml"), "--format", "markdown")
    assert res.exit_code == 0, res.stderr
    assert res.stdout.startswith("**verdict** ") and " · 14 pass · 0 fail · 0 warn · 0 error · 14 skip\n" in res.stdout


def test_the_report_is_rendered_with_the_dump_frozen_out_of_garbage_collection(monkeypatch) -> None:
    """Rendering the 5k bench dump's report took 7.4-8.7 s while the collector walked the dump again and again,
    3.3-3.8 s with it frozen (rules.heap). The CLI renders frozen and unfreezes when done, after a failed
    rendering too."""
    import gc

    from rules import cli

    seen: list[int] = []
    write = cli._write

    def counting(*args: Any) -> None:
        seen.append(gc.get_freeze_count())
        write(*args)

    monkeypatch.setattr(cli, "_write", counting)
    gc.unfreeze()
    result = run("audit", str(LAB), "--fail-on", "never")
    assert result.exit_code == 0 and json.loads(result.stdout)["summary"]["objectsRead"] == 19
    assert len(seen) == 1 and seen[0] > 1000  # the dump's objects and the report's
    assert gc.get_freeze_count() == 0

    def failing(*args: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cli, "_write", failing)
    with pytest.raises(OSError, match="No space left"):
        run("audit", str(LAB), "--fail-on", "never")
    assert gc.get_freeze_count() == 0


def test_an_unknown_result_word_names_the_option_and_the_word_meant() -> None:
    """New-user trial: '--results failed' said "unknown result(s) failed" without naming the option or 'fail'."""
    result = run("audit", str(LAB), "--results", "failed,warning,nope")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == (
        "Error: Invalid value for --results: unknown results 'failed' (did you mean 'fail'?), 'nope',"
        " 'warning' (did you mean 'warn'?); use pass, fail, warn, error, skip"
    )
    one = run("audit", str(LAB), "--results", "fail,Skipped").stderr.splitlines()[-1]
    assert one.endswith("--results: unknown result 'Skipped' (did you mean 'skip'?); use pass, fail, warn, error, skip")


def test_a_choice_option_names_the_value_a_misspelt_word_stands_for() -> None:
    """Second new-user trial: '-f markdwon' listed the formats but named none, where --results and the service do."""
    result = run("audit", str(LAB), "-f", "markdwon")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == (
        "Error: Invalid value for '-f' / '--format': 'markdwon' is not one of 'chat', 'json', 'junit', 'markdown',"
        " 'policyreport', 'sarif', 'table', 'yaml' (did you mean 'markdown'?)."
    )
    far = run("audit", str(LAB), "--fail-on", "zz").stderr.splitlines()[-1]
    assert far.endswith("'zz' is not one of 'fail', 'warn', 'error', 'never'.")  # nothing close: nothing named


def test_a_file_that_is_not_a_dump_at_all_is_told_what_verdict_reads() -> None:
    """New-user trial: README.md as input gave a YAML syntax error at line 3 and 'no Kubernetes object could be
    read', never saying that the file is not a dump and what one is. (README.md's code blocks are now read, as a
    chat message's are: a page of prose without any stands for it.)"""
    prose = REPO / "docs" / "security.md"
    result = run("audit", str(prose), "-f", "table")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.splitlines()[-1] == (
        f"verdict: no Kubernetes object could be read from {prose} (1 input error): verdict reads what"
        " kubectl get -o yaml|json prints (objects or a List), kubectl describe node text, and tar/zip/gzip/xz/bzip2 archives"
        " of them such as a must-gather"
    )


def test_stdin_that_is_not_a_dump_is_told_what_verdict_reads() -> None:
    """Found in review: the hint was meant for standard input too, but its check compared the report's name with
    "-", and stdin's report is named <stdin> (or --stdin-name's file): the hint was never given for a pipe."""
    result = run("audit", "-", input="foo: bar\n")
    assert result.exit_code == 2
    assert result.stderr.splitlines()[-1] == (
        "verdict: no Kubernetes object could be read from <stdin> (1 input error): verdict reads what"
        " kubectl get -o yaml|json prints (objects or a List), kubectl describe node text, and tar/zip/gzip/xz/bzip2 archives"
        " of them such as a must-gather"
    )
    named = run("audit", "-", "--stdin-name", "k8s/x.yaml", input="foo: bar\n")
    assert named.stderr.splitlines()[-1].startswith("verdict: no Kubernetes object could be read from k8s/x.yaml (1 input")
    assert named.stderr.splitlines()[-1].endswith("such as a must-gather")


def test_a_rule_named_with_r_that_matches_no_object_is_said_in_a_note() -> None:
    """New-user trial: the lab's Pods judged with -r kubevirt-vms/workload-schedulable as well gave no word that
    the VM rule matched nothing (the lab holds no VirtualMachine)."""
    lab = REPO / "examples" / "lab"
    both = ("-r", "gpu-pods/workload-schedulable", "-r", "kubevirt-vms/workload-schedulable")
    result = run("audit", str(lab), *both, "--format", "table")
    note = (
        "rule kubevirt-vms/workload-schedulable matched no object of the dump (it judges VirtualMachine, VirtualMachineInstance)"
    )
    assert result.exit_code == 1 and f"verdict: note: {note}\n" in result.stderr
    assert "gpu-pods/workload-schedulable matched" not in result.stderr
    selected = run("audit", str(lab), *both, "--kind", "pod", "--format", "table").stderr
    assert "rule kubevirt-vms/workload-schedulable matched no object of the objects selected" in selected
    assert "matched no object" not in run("audit", str(lab), "--format", "table").stderr


def test_a_folder_that_is_a_helm_chart_says_so_when_nothing_is_read(tmp_path: Path) -> None:
    """Trial 60: a chart folder audited itself exited 2 with only "no Kubernetes object found in ."; the note that
    says why (its files are a chart's, not objects) was printed for a chart in a subfolder only."""
    chart = tmp_path / "mychart"
    (chart / "templates").mkdir(parents=True)
    (chart / "Chart.yaml").write_text("apiVersion: v2\nname: mychart\nversion: 0.1.0\n")
    (chart / "values.yaml").write_text("replicas: 1\n")
    (chart / "templates" / "deploy.yaml").write_text("replicas: {{ .Values.replicas }}\n")
    result = run("audit", str(chart), "-f", "table")
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.splitlines() == [
        f"verdict: note: 3 files of the Helm chart {chart} not read: a chart's templates and values are not objects"
        " until helm template renders them (audit its output)",
        f"verdict: no Kubernetes object found in {chart}",
    ]
    assert run("audit", str(chart), "-q").stderr.splitlines() == [f"verdict: no Kubernetes object found in {chart}"]


def test_stdin_name_places_what_dash_reads_in_a_file_for_sarif() -> None:
    """Trial 59: `helm template ... | verdict audit - -f sarif` gave results with logical locations only, which
    code scanning refuses; the service's name= had no CLI equivalent. --stdin-name is it, checked as name= is."""
    lab = (REPO / "examples" / "lab-cluster.yaml").read_text()
    res = run("audit", "-", "--stdin-name", "k8s/lab.yaml", "-f", "sarif", "-q", input=lab)
    assert res.exit_code == 1
    results = json.loads(res.stdout)["runs"][0]["results"]
    places = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert places == {"k8s/lab.yaml"}
    first = run("audit", str(REPO / "examples" / "lab-cluster.yaml"), "-f", "sarif", "-q")
    lines = [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in json.loads(first.stdout)["runs"][0]["results"]]
    assert [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in results] == lines  # the file's lines
    table = run("audit", "-", "--stdin-name", "k8s/lab.yaml", "-f", "table", input=lab)
    assert "Pod/ml/cuda-on-passthrough-node  k8s/lab.yaml:1367" in table.stdout
    bad = run("audit", "-", "--stdin-name", "../lab.yaml", input=lab)
    assert bad.exit_code == 2 and "--stdin-name: '../lab.yaml' must not hold a '..' segment" in bad.stderr
    folder = run("audit", "-", "--stdin-name", "k8s/", input=lab)  # trial 60: the SARIF uri was "k8s/"
    assert folder.exit_code == 2 and "--stdin-name: 'k8s/' must name a file, not a folder (a trailing '/')" in folder.stderr
    for odd in (".", "k8s/.", "k8s//lab.yaml"):  # trial 61: accepted, the SARIF uri a folder
        refused = run("audit", "-", "--stdin-name", odd, input=lab)
        assert refused.exit_code == 2 and "must be a plain relative path (no '.' segment, no '//')" in refused.stderr
    unused = run("audit", str(LAB), "--stdin-name", "lab.yaml")
    assert unused.exit_code == 2 and "names what - reads, and no PATH is -" in unused.stderr


def test_a_pack_that_matches_no_object_of_the_dump_says_which_kinds_each_side_has(tmp_path: Path) -> None:
    """Fresh-user trial 57: a pack of its own whose rules judge only Services, given the lab's dump, said
    "0 objects judged (19 read); no results" and nothing of why."""
    pack = tmp_path / "svc.yaml"
    pack.write_text(
        "apiVersion: verdict/v1\nkind: Policy\nmetadata: {name: svc-check}\nspec:\n  rules:\n"
        "  - id: svc-has-selector\n    title: Services have a selector\n    severity: low\n    match: {kinds: [Service]}\n"
        "    assert: {path: $.spec.selector, exists: true}\n    message: no selector\n"
        "    references: [https://kubernetes.io/docs/concepts/services-networking/service/]\n"
    )
    result = run("audit", str(REPO / "examples" / "lab-cluster.yaml"), "-p", str(pack), "--format", "table")
    assert result.exit_code == 0 and result.stdout == "0 objects judged (19 read); no results\n"
    assert result.stderr == (
        "verdict: note: no rule matched any object of the dump: the rules judge Service; the dump holds ClusterPolicy,"
        " KubeVirt, Node, Pod, VirtualMachineInstance\n"
    )
    # a dump the rules do judge has no such note
    assert "no rule matched" not in run("audit", str(LAB), "--format", "table").stderr


@pytest.mark.parametrize(("fail_on", "status"), [("never", 0), ("fail", 1)])
def test_a_reader_that_stops_reading_leaves_the_exit_status_the_verdicts(fail_on: str, status: int) -> None:
    """Regression (a new user's trial): 'verdict audit clean.yaml | head -1' exited 1 ("findings") in most runs,
    with nothing on stderr: click's answer to a broken pipe, met when the reader had gone before the report
    was written. Here the reader is gone before the audit starts."""
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-m", "rules.cli", "audit", str(LAB), "--format", "json", "--fail-on", fail_on],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == status
    assert "Traceback" not in err and "Error" not in err
    assert "verdict: note: skipped:" in err  # the notes still reach stderr


@pytest.mark.parametrize(("fail_on", "status"), [("never", 0), ("fail", 1)])
def test_a_reader_of_both_streams_that_stops_leaves_the_exit_status_the_verdicts(fail_on: str, status: int) -> None:
    """Regression (a new user's trial): 'verdict audit clean.txt --format table 2>&1 | head -3' exited 1 every
    time: the notes written to standard error met the closed pipe."""
    import os
    import subprocess
    import sys

    read, write = os.pipe()
    proc = subprocess.Popen(
        [sys.executable, "-m", "rules.cli", "audit", str(LAB), "--format", "json", "--fail-on", fail_on],
        cwd=REPO,
        stdout=write,
        stderr=write,
    )
    os.close(write)
    os.close(read)  # the reader is gone before anything is written, on both streams
    assert proc.wait(timeout=60) == status


def test_a_dump_given_twice_is_judged_once(tmp_path: Path) -> None:
    """Trial 136: one path given twice (or by two overlapping globs) was two dumps: the totals doubled, and the two
    PolicyReports had one name (applied, the second overwrote the first). Judged once, the first spelling kept,
    with a note; an archive also found in a folder batch given beside it is judged once too."""
    lab = REPO / "examples" / "lab" / "nodes.yaml"
    other = tmp_path / "sub" / ".." / "nodes.yaml"
    (tmp_path / "sub").mkdir()
    (tmp_path / "nodes.yaml").write_bytes(lab.read_bytes())
    res = run("audit", str(lab), str(lab), str(tmp_path / "nodes.yaml"), str(other), "-f", "json", "--fail-on", "never")
    assert [r["name"] for r in json.loads(res.stdout)["reports"]] == [str(lab), str(tmp_path / "nodes.yaml")]
    said = [line for line in res.stderr.splitlines() if "more than once" in line]
    assert said == [
        f"verdict: note: {lab} and {tmp_path / 'nodes.yaml'} are given more than once (or by two paths, or in a batch"
        " folder given too): each is judged once"
    ]
    batch = tmp_path / "batch"
    batch.mkdir()
    for name in ("a", "b"):
        with tarfile.open(batch / f"{name}.tar.gz", "w:gz") as tar:
            tar.add(lab, arcname="nodes.yaml")
    res = run("audit", str(batch), str(batch / "a.tar.gz"), "-f", "json", "--fail-on", "never")
    assert [r["name"] for r in json.loads(res.stdout)["reports"]] == [str(batch / "a.tar.gz"), str(batch / "b.tar.gz")]
    # trial 137: the note on loose files counts the dumps left; a file in a folder (one dump) given beside it is said
    (batch / "c.yaml").write_bytes(lab.read_bytes())
    res = run("audit", str(batch), str(batch / "c.yaml"), str(tmp_path / "nodes.yaml"), "--fail-on", "never")
    assert "are judged as separate dumps (4 dumps in all, with the archives and folders given:" in res.stderr
    res = run("audit", str(lab.parent), str(lab), "--fail-on", "never")
    assert f"verdict: note: {lab} is in {lab.parent}, given too: it is judged in both dumps" in res.stderr.splitlines()
    # trial 138: not of a file the folder passes over (hidden, a README); of a folder in a folder given, too
    nest = tmp_path / "nest"
    (nest / "sub").mkdir(parents=True)
    for name in ("sub/nodes.yaml", "sub/.old.yaml"):
        (nest / name).write_bytes(lab.read_bytes())
    (nest / "sub" / "README.md").write_text("# The lab's nodes, taken on Tuesday\n")
    res = run("audit", str(nest / "sub"), str(nest / "sub" / ".old.yaml"), str(nest / "sub" / "README.md"), "--fail-on", "never")
    assert "given too" not in res.stderr
    res = run("audit", str(nest), str(nest / "sub"), "--fail-on", "never")
    assert f"verdict: note: {nest / 'sub'} is in {nest}, given too: its files are judged in both dumps" in res.stderr.splitlines()
    # trial 140: describe text named *.txt, which the folder reads by its start, is said too
    described = nest / "sub" / "node.txt"
    described.write_text("Name:  gpu-1\nCapacity:\n  nvidia.com/gpu:  1\nAllocatable:\n  nvidia.com/gpu:  1\n")
    res = run("audit", str(nest / "sub"), str(described), "--fail-on", "never")
    assert f"verdict: note: {described} is in {nest / 'sub'}, given too: it is judged in both dumps" in res.stderr.splitlines()


def test_a_note_naming_a_file_with_a_line_break_is_one_line(tmp_path: Path) -> None:
    """Regression (trial 196): a file named "c1\\n# INJ <!channel>\\n.yaml" wrote the batch note on standard error as
    three lines, one of them its "# INJ" at column 0; the line break is written as its escape."""
    clean = tmp_path / "clean.yaml"
    clean.write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: ml}\n")
    odd = tmp_path / "c1\n# INJ <!channel>\n.yaml"
    odd.write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: ml2}\n")
    res = run("audit", str(clean), str(odd), "--fail-on", "never", "-f", "table")
    assert not [line for line in res.stderr.splitlines() if not line.startswith("verdict: ")], res.stderr
    assert "c1\\x0a# INJ <!channel>\\x0a.yaml are judged as separate dumps" in res.stderr
    # trial 201: and an input error naming such a file (here a broken one)
    odd.write_text("apiVersion: v1\nkind: Node\nmetadata: {name: [\n")
    res = run("audit", str(clean), str(odd), "--fail-on", "never", "-f", "json", "-o", str(tmp_path / "out.json"))
    assert not [line for line in res.stderr.splitlines() if not line.startswith("verdict: ")], res.stderr
    assert "verdict: input error: " + str(tmp_path) + "/c1\\x0a# INJ" in res.stderr


def test_in_a_batch_each_note_says_its_dump(tmp_path: Path) -> None:
    """Regression (a new user's trial): a folder of archives printed "note: assumed: a GPU node without a valid
    workload label ..." once after the total, without saying that only one archive made the assumption."""
    clean = tmp_path / "clean.yaml"
    clean.write_text("apiVersion: v1\nkind: Namespace\nmetadata: {name: ml}\n")
    res = run("audit", str(clean), str(REPO / "examples" / "lab" / "nodes.yaml"), "--fail-on", "never")
    separate = f"verdict: note: {clean} and {REPO / 'examples' / 'lab' / 'nodes.yaml'} are judged as separate dumps (2"
    assert res.stderr.splitlines()[0].startswith(separate)  # trial 43: said in the README's help only
    # trial 48: an archive among the paths is a dump too, and the count says every dump
    archive = tmp_path / "c.tar.gz"
    with tarfile.open(archive, "w:gz") as tar:
        tar.add(REPO / "examples" / "lab" / "nodes.yaml", arcname="nodes.yaml")
    mixed = run("audit", str(clean), str(REPO / "examples" / "lab" / "nodes.yaml"), str(archive), "--fail-on", "never")
    # (trial 243 #4: the two files it names are not all 3: the archive is the third)
    assert (
        f"{clean} and {REPO / 'examples' / 'lab' / 'nodes.yaml'} are judged as separate dumps (3 dumps in all, with the"
        " archives and folders given: each PATH is one dump"
    ) in mixed.stderr.splitlines()[0]
    assert "(2 dumps in all: each PATH is one dump" in res.stderr.splitlines()[0]
    notes = [line for line in res.stderr.splitlines()[1:] if line.startswith("verdict: note: ")]
    # the Namespace alone: no rule judges it, and its note says so under its own name
    [nothing] = [n for n in notes if n.startswith(f"verdict: note: {clean}: ")]
    assert nothing.startswith(f"verdict: note: {clean}: no rule matched any object of the dump: the rules judge ClusterPolicy, ")
    assert nothing.endswith("; the dump holds Namespace")
    notes.remove(nothing)
    assert notes and all(n.startswith(f"verdict: note: {REPO / 'examples' / 'lab' / 'nodes.yaml'}: ") for n in notes)
    alone = run("audit", str(REPO / "examples" / "lab" / "nodes.yaml"), "--fail-on", "never")
    assert [line.removeprefix("verdict: note: ") for line in alone.stderr.splitlines() if "note:" in line] == [
        n.removeprefix(f"verdict: note: {REPO / 'examples' / 'lab' / 'nodes.yaml'}: ") for n in notes
    ]


def test_running_out_of_memory_exits_2_without_a_traceback(files: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """Trial 38: under a memory limit a large archive died with a MemoryError traceback and exit 1 ("findings")."""
    import rules.cli as cli

    policy, dump = files

    def exhausted(*_: Any, **__: Any) -> None:
        raise MemoryError

    monkeypatch.setattr(cli, "audit_batch", exhausted)
    res = CliRunner().invoke(main, ["audit", str(dump), "-p", str(policy)])
    assert res.exit_code == 2
    assert res.stderr.startswith("verdict: out of memory while reading or judging the dump")
    assert "Traceback" not in res.output


def test_source_date_epoch_sets_the_reports_time(files: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """Trial 48: no way to pin the report's time for byte-identical reports in CI. SOURCE_DATE_EPOCH (the
    reproducible-builds convention) sets it; without it, the time is now."""
    policy, dump = files
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")
    pinned = json.loads(run("audit", str(dump), "-p", str(policy), "--fail-on", "never").stdout)
    assert pinned["generated"] == "2023-11-14T22:13:20Z"
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    assert json.loads(run("audit", str(dump), "-p", str(policy), "--fail-on", "never").stdout)["generated"].startswith("20")
    assert (
        json.loads(run("audit", str(dump), "-p", str(policy), "--fail-on", "never").stdout)["generated"] != "2023-11-14T22:13:20Z"
    )


def test_quiet_prints_no_notes_but_the_report_keeps_them(tmp_path: Path) -> None:
    """Trial 48: a batch printed about ten notes per dump on stderr, with no way to quiet them in CI logs. -q prints
    none; the report keeps every one, and input errors are still printed."""
    nodes = REPO / "examples" / "lab" / "nodes.yaml"
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    loud = run("audit", str(nodes), str(LAB), "--fail-on", "never")
    quiet = run("audit", str(nodes), str(LAB), "--fail-on", "never", "-q")
    assert "verdict: note:" in loud.stderr and "verdict: note:" not in quiet.stderr
    assert [r["notes"] for r in json.loads(quiet.stdout)["reports"]] == [r["notes"] for r in json.loads(loud.stdout)["reports"]]
    res = run("audit", str(nodes), str(empty), "--fail-on", "never", "-q")
    assert f"verdict: input error: {empty}" in res.stderr and "verdict: note:" not in res.stderr


def test_o_with_a_format_name_is_refused_with_the_flag_meant(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Trial 160: `-o table` and `-o yaml`, as kubectl takes -o, wrote the JSON report to files named table and yaml,
    with nothing on the terminal (and with -q no word)."""
    monkeypatch.chdir(tmp_path)
    for word, fmt in (("table", "table"), ("yaml", "yaml"), ("wide", "table")):
        res = run("audit", str(LAB), "-o", word, "-q")
        assert res.exit_code == 2
        assert f"-o names the report's file (as in -o report.json), the format is -f (did you mean -f {fmt}?)" in res.stderr
        assert not (tmp_path / word).exists()
    assert run("audit", str(LAB), "-o", "./table", "-q", "--fail-on", "never").exit_code == 0
    assert json.loads((tmp_path / "table").read_text())["kind"] == "Report"


def test_a_dump_given_without_a_command_is_told_verdict_audit() -> None:
    """Trial 160: `verdict nodes.yaml` said only "No such command 'nodes.yaml'"."""
    res = run(str(LAB))
    assert res.exit_code == 2
    assert f"No such command '{LAB}': to audit it, verdict audit {LAB}" in res.stderr
    assert "to audit it" not in run("nosuch").stderr


def test_a_run_that_exits_0_with_warnings_says_how_to_gate_on_them(tmp_path: Path) -> None:
    """Regression (trial 223 #3): a node labelled vm-passthrough that serves containers, in a dump without a
    ClusterPolicy, is a warning (its label may be ignored): the run exited 0 with no word of the gate. A note says how
    many warnings the exit 0 leaves out and the flag that counts them; not with -q, --fail-on warn, or no warning."""
    import yaml

    node = yaml.safe_load((REPO / "tests" / "data" / "real" / "h100-mig-mixed-node.yaml").read_text())
    node["metadata"]["labels"]["nvidia.com/gpu.workload.config"] = "vm-passthrough"
    dump = tmp_path / "node.json"
    dump.write_text(json.dumps(node))
    res = run("audit", str(dump), "-o", str(tmp_path / "r.json"))
    warns = json.loads((tmp_path / "r.json").read_text())["summary"]["results"]["warn"]
    assert res.exit_code == 0 and warns >= 1
    note = f"verdict: note: exit 0 with {warns} warning{'s' if warns > 1 else ''} (advisory findings); --fail-on warn"
    assert res.stderr.rstrip().endswith(f"{note} makes a warning fail the run"), res.stderr[-300:]
    assert "--fail-on warn makes" not in run("audit", str(dump), "-o", str(tmp_path / "r.json"), "-q").stderr
    gated = run("audit", str(dump), "-o", str(tmp_path / "r.json"), "--fail-on", "warn")
    assert gated.exit_code == 1 and "--fail-on warn makes" not in gated.stderr
    clean = run("audit", str(REPO / "tests" / "data" / "describe" / "kubevirt-11135_vgpu-node_grid-p40-1q.txt"))
    assert clean.exit_code == 0 and "--fail-on warn makes" not in clean.stderr


def test_a_dump_nothing_is_read_from_says_no_note_of_results_it_has_none_of(tmp_path: Path) -> None:
    """Regression (trial 223 #7): a dump whose one Node did not parse printed "input errors kept out 1 Node (named in
    them): a result that says the dump holds none of its kind ... is about what was read", where there is no result."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {a: b}\nstatus: {}\n")
    res = run("audit", str(bad), "-f", "chat")
    assert res.exit_code == 2 and "YAML syntax error" in res.stderr
    assert "kept out" not in res.stderr, res.stderr
