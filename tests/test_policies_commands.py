"""``verdict policies show`` and ``test`` take a path as ``lint`` does: a policy file, a pack folder, or
``.`` inside a pack, which is named by its folder (not an empty string)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from rules.cli import main

POLICY = """\
apiVersion: verdict/v1
kind: Policy
metadata: {name: gpu-count, version: 2.1.0, title: GPU nodes say how many GPUs they have}
spec:
  data: {counts: ["1", "2", "4", "8"]}
  rules:
  - id: gpu-count-label
    title: nvidia.com/gpu.count is set
    match: {kinds: [Node]}
    assert: {path: "$.metadata.labels['nvidia.com/gpu.count']", exists: true}
    message: Node {name} has no nvidia.com/gpu.count label
    references: [NVIDIA/k8s-device-plugin@1b826acc6af3:internal/lm/resource.go]
"""
NODES = """\
apiVersion: v1
kind: Node
metadata: {name: gpu-1, labels: {nvidia.com/gpu.count: "2"}}
---
apiVersion: v1
kind: Node
metadata: {name: cpu-1}
"""
FIXTURE = """\
apiVersion: verdict/v1
kind: Test
metadata: {name: counted}
resources: [dumps/nodes.yaml]
results:
- {rule: gpu-count-label, kind: Node, name: gpu-1, result: pass}
- {rule: gpu-count-label, kind: Node, name: cpu-1, result: fail}
"""


@pytest.fixture()
def pack(tmp_path: Path) -> Path:
    """A pack folder ``node-counts`` with one policy and one fixture file."""
    folder = tmp_path / "node-counts"
    (folder / "tests" / "dumps").mkdir(parents=True)
    (folder / "gpu-count.yaml").write_text(POLICY)
    (folder / "tests" / "dumps" / "nodes.yaml").write_text(NODES)
    (folder / "tests" / "counted.yaml").write_text(FIXTURE)
    return folder


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_show_takes_a_pack_folder_a_file_or_dot(pack: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: ``show PATH`` said "no policy or pack named" for a path that lint and test take."""
    for given in (str(pack), str(pack / "gpu-count.yaml")):
        res = run("policies", "show", given)
        assert res.exit_code == 0, res.stderr
        first = res.stdout.splitlines()[0]
        assert first.startswith("gpu-count 2.1.0  GPU nodes say how many GPUs they have  (")
        assert "gpu-count-label" in res.stdout and "data: counts\n  ['1', '2', '4', '8']\n" in res.stdout
        assert "gpu-nodes" not in res.stdout  # the built-in pack is not shown with it
    monkeypatch.chdir(pack)
    here = run("policies", "show", ".", "--data", "counts")
    assert here.exit_code == 0 and "data: counts\n  ['1', '2', '4', '8']\n" in here.stdout


def test_show_path_with_policy_option_or_unknown_name_exits_2(pack: Path) -> None:
    res = run("policies", "show", str(pack), "-p", "gpu-operator")
    assert res.exit_code == 2
    assert f"Error: Invalid value for --policy: {pack} is a path: it is shown as it is, without -p" in res.stderr
    res = run("policies", "show", "no-such-pack")
    assert (res.exit_code, res.stdout) == (2, "")
    assert res.stderr == (
        "verdict: no policy file or pack folder 'no-such-pack', nor a loaded policy, pack or rule so named"
        " (verdict policies list)\n"
    )
    res = run("policies", "show", "gpu-node")
    assert res.stderr == (
        "verdict: no policy file or pack folder 'gpu-node', nor a loaded policy, pack or rule so named (did you mean"
        " 'gpu-nodes'?) (verdict policies list)\n"
    )
    # a loaded name still works, from the built-in packs or from -p
    assert run("policies", "show", "gpu-count", "-p", str(pack)).exit_code == 0


def test_test_dot_names_the_pack_by_its_folder(pack: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: ``verdict policies test .`` printed ": 2/2 cases passed"."""
    monkeypatch.chdir(pack)
    res = run("policies", "test", ".")
    assert (res.exit_code, res.stdout) == (0, "node-counts: 2/2 cases passed\n")
    monkeypatch.chdir(pack / "tests")
    assert run("policies", "test", "..").stdout == "node-counts: 2/2 cases passed\n"


def test_test_options_reach_the_runner(pack: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``-v``, ``--run`` and ``--junit`` as the command line takes them."""
    monkeypatch.chdir(pack)
    res = run("policies", "test", ".", "-v", "--run", "^count", "--junit", str(tmp_path / "j.xml"))
    assert res.exit_code == 0, res.stderr
    assert res.stdout.splitlines()[-1] == "node-counts: 2/2 cases passed (1 test matching --run '^count'; coverage not checked)"
    assert [line[:5] for line in res.stdout.splitlines()[:-1]] == ["PASS ", "PASS "]
    assert '<testsuite name="node-counts" tests="2" failures="0"' in (tmp_path / "j.xml").read_text()


def test_a_pack_loaded_as_dot_keeps_its_name_in_reports(pack: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(pack)
    res = run("audit", "-p", ".", "tests/dumps/nodes.yaml")
    assert res.exit_code == 1
    assert json.loads(res.stdout)["policies"] == [{"name": "gpu-count", "version": "2.1.0", "pack": "node-counts", "rules": 1}]


LONG_ID = "nvidia-device-not-permitted-as-container-resource-of-any-kubevirt-cr"


def test_list_keeps_columns_in_line_past_a_long_rule_id(pack: Path) -> None:
    """Regression: the rule column was 60 wide, so a longer ``policy/rule`` pushed its severity and title
    out of line (and ran into the severity without a space)."""
    second = POLICY.replace("gpu-count, version: 2.1.0, title: GPU nodes say how many GPUs they have", "long-ids, title: Ids")
    second = second.replace("  - id: gpu-count-label\n", f"  - id: {LONG_ID}\n    severity: critical\n")
    (pack / "long-ids.yaml").write_text(second)
    res = run("policies", "list", "-p", str(pack))
    assert res.exit_code == 0, res.stderr
    assert res.stdout == (
        "gpu-count 2.1.0  (1 rule)  GPU nodes say how many GPUs they have\n"
        f"  {'gpu-count/gpu-count-label':<{len(LONG_ID) + 9}}  medium    nvidia.com/gpu.count is set\n"
        "long-ids 0.0.0  (1 rule)  Ids\n"
        f"  long-ids/{LONG_ID}  critical  nvidia.com/gpu.count is set\n"
    )


OTHER_POLICY = POLICY.replace("gpu-count, version: 2.1.0", "gpu-product, version: 1.0.0").replace(
    "gpu-count-label", "gpu-product-label"
)
OTHER_FIXTURE = FIXTURE.replace("counted", "named").replace("gpu-count-label", "gpu-product-label")


def test_test_takes_a_policy_file_with_the_fixtures_beside_it(pack: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: ``policies test good.yaml`` answered "no such pack: <repo>/policies/good.yaml". A policy file
    is tested with the fixtures of its folder that name its rules, relative or absolute."""
    (pack / "gpu-product.yaml").write_text(OTHER_POLICY)
    (pack / "tests" / "named.yaml").write_text(OTHER_FIXTURE.replace("result: fail", "result: pass"))  # 1 case fails
    monkeypatch.chdir(pack)
    res = run("policies", "test", "gpu-count.yaml")
    assert (res.exit_code, res.stdout, res.stderr) == (0, "gpu-count.yaml: 2/2 cases passed\n", "")
    res = run("policies", "test", str(pack / "gpu-count.yaml"))
    assert (res.exit_code, res.stdout) == (0, f"{pack / 'gpu-count.yaml'}: 2/2 cases passed\n")
    other = run("policies", "test", "gpu-product.yaml")
    assert other.exit_code == 1
    assert other.stdout.splitlines()[-2:] == [
        "GAP  gpu-product/gpu-product-label: no fail expectation in tests",
        "gpu-product.yaml: 1/2 cases passed, 1 coverage gap",
    ]
    # the whole pack runs both files' fixtures
    assert run("policies", "test", ".").stdout.splitlines()[-1] == "node-counts: 3/4 cases passed, 1 coverage gap"


def test_test_a_policy_file_without_tests_says_so(pack: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "good.yaml").write_text(POLICY)
    monkeypatch.chdir(alone)
    res = run("policies", "test", "good.yaml")
    assert (res.exit_code, res.stderr) == (1, "")
    assert res.stdout == "good.yaml: no tests: there is no tests/ folder beside it, where a pack keeps its fixtures\n"
    (alone / "tests").mkdir()
    assert run("policies", "test", "good.yaml").stdout == (
        "good.yaml: no tests: tests/ holds no fixture (a *.yaml file of kind: Test documents)\n"
    )
    (pack / "gpu-product.yaml").write_text(OTHER_POLICY)
    res = run("policies", "test", str(pack / "gpu-product.yaml"))
    assert (res.exit_code, res.stdout) == (
        1,
        f"{pack / 'gpu-product.yaml'}: no tests: no fixture in {pack / 'tests'}/ names a rule of gpu-product (1 read)\n",
    )


def test_test_an_existing_file_comes_before_a_built_in_pack_of_its_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "gpu-operator").write_text(POLICY)
    monkeypatch.chdir(tmp_path)
    res = run("policies", "test", "gpu-operator")
    assert (res.exit_code, res.stdout) == (
        1,
        "gpu-operator: no tests: there is no tests/ folder beside it, where a pack keeps its fixtures\n",
    )


def test_test_a_name_that_is_no_path_nor_built_in_pack_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    res = run("policies", "test", "good.yaml")
    assert (res.exit_code, res.stdout) == (2, "")
    assert res.stderr == (
        "verdict: no policy file or pack folder 'good.yaml', nor a built-in pack so named (built-in: gpu-operator)\n"
    )


def _operands() -> list[dict[str, str]]:
    from rules.loader import load_policies

    table = next(t for p in load_policies().policies for n, t in p.data.items() if n == "operands")
    return [row for rows in table.values() for row in rows]


def test_show_never_splits_a_label_name_or_id() -> None:
    """Regression: at 160 columns the operands table split label names mid-word
    (``nvidia.com/gpu.deploy.gpu-featur`` / ``e-discovery``): too narrow for every id side by side (120 columns
    now: at 160 its sparse columns are folded and it stays a table), it is a list, each cell under its header,
    whole."""
    res = CliRunner(env={"COLUMNS": "120"}).invoke(main, ["policies", "show", "gpu-operator", "--data", "operands"])
    assert res.exit_code == 0, res.stderr
    lines = res.stdout.splitlines()
    assert max(len(line) for line in lines) <= 120
    first = _operands()[0]  # container's driver: label nvidia.com/gpu.deploy.driver
    assert lines[:6] == [
        "data: operands",
        "container",
        f"  operand: {first['operand']}",
        f"  daemonset: {first['daemonset']}",
        f"  label: {first['label']}",
        f"  description: {first['description']}",
    ]
    assert first["label"] == "nvidia.com/gpu.deploy.driver"
    for row in _operands():
        assert f"  label: {row['label']}" in lines and f"  daemonset: {row['daemonset']}" in lines


def test_show_in_a_pipe_is_a_row_a_line_and_on_a_width_wraps_at_spaces() -> None:
    res = CliRunner(env={"COLUMNS": ""}).invoke(main, ["policies", "show", "gpu-operator", "--data", "operands"])
    rows = [line for line in res.stdout.splitlines() if line.startswith("│")]
    assert len(rows) == len(_operands())  # no cell wrapped
    # no line padded with spaces (a trial found the title line ending in ~900 of them)
    assert [line for line in res.stdout.splitlines() if line.endswith(" ")] == []
    for line, row in zip(rows, _operands(), strict=True):
        assert [c.strip() for c in line.split("│")[2:6]] == [row["operand"], row["daemonset"], row["label"], row["description"]]
    narrow = CliRunner(env={"COLUMNS": "100"}).invoke(main, ["policies", "show", "gpu-operator"])
    lines = narrow.stdout.splitlines()
    assert max(len(line) for line in lines) <= 100
    # every rule id whole in its column (the kubevirt-config pack's longest one included)
    assert any(line.startswith("│ nvidia-device-not-permitted-as-container-resource │") for line in lines)


def test_show_writes_data_as_the_policy_file_could_never_as_python_values() -> None:
    """Regression (new-user trial): data tables that are not rows printed as Python reprs
    (``data: workloadAdvice {'container': '...``) and a mapping in a cell as ``{'nvidia.com/cc.capable': 'true'}``;
    the table's title stood centred over a 900-column table in a pipe."""
    res = CliRunner(env={"COLUMNS": ""}).invoke(main, ["policies", "show", "gpu-nodes"])
    out = res.stdout
    assert res.exit_code == 0 and "{'" not in out and "['" not in out
    assert "\ndata: workloads\n  [container, vm-passthrough, vm-vgpu]\n" in out
    advice = out.split("\ndata: workloadAdvice\n")[1].splitlines()
    assert advice[0].startswith("  container: the NVIDIA driver and nvidia-device-plugin-daemonset must run on it")
    assert '{"nvidia.com/cc.capable": "true"}' in out
    assert "\ndata: operands\n" in out  # the title at the left, not padded
    blocks = re.findall(r"\ndata: \w+\n((?:  .*\n)+)", out)
    assert blocks and all(len(b.splitlines()) <= 13 for b in blocks)  # cut past 12 lines, with how many more
    assert any(b.endswith(" more lines (--data to show one table whole)\n") for b in blocks)
    whole = CliRunner(env={"COLUMNS": ""}).invoke(main, ["policies", "show", "gpu-nodes", "--data", "workloadAdvice"])
    assert "more lines" not in whole.stdout and whole.stdout.startswith("data: workloadAdvice\n  container: ")


def test_show_folds_sparse_columns_before_giving_up_the_table() -> None:
    """Trial 51: at 160 columns the operands table (the lab's table of what each workload label brings up) fell
    back to a list, a row a block of five lines: its three sparse columns (conditional, clusterPolicyField,
    extraNodeSelector) are written into the description cell as ``(header: value)`` lines, and it stays a table."""
    res = CliRunner(env={"COLUMNS": "160"}).invoke(main, ["policies", "show", "gpu-operator", "--data", "operands"])
    lines = res.stdout.splitlines()
    assert max(len(line) for line in lines) <= 160
    header = next(line for line in lines if line.startswith("┃"))
    assert [c.strip() for c in header.split("┃")[1:-1]] == ["key", "operand", "daemonset", "label", "description"]
    cells = [[c.strip() for c in line.split("│")[1:-1]] for line in lines if line.startswith("│")]
    starts = [i for i, row in enumerate(cells) if row[0]]
    assert len(starts) == len(_operands())
    mig = next(i for i in starts if cells[i][1] == "mig-manager")
    following = cells[mig + 1 : starts[starts.index(mig) + 1]]
    assert ["", "", "", "", "(conditional: mig-capable)"] in following
    assert [cells[i][3] for i in starts] == [row["label"] for row in _operands()]  # never split
    # narrower than the widest words of the kept columns: the list layout, every value still shown
    narrow = CliRunner(env={"COLUMNS": "120"}).invoke(main, ["policies", "show", "gpu-operator", "--data", "operands"])
    assert "  conditional: mig-capable" in narrow.stdout.splitlines()


def test_fit_columns_shrinks_the_widest_column_down_to_its_widest_word() -> None:
    from rules.render.tables import fit_columns

    headers = ["id", "text"]
    rows = [["nvidia.com/gpu.deploy.gpu-feature-discovery", "a sentence of several words, none long"]]
    # natural: 43 + 38 + 7 borders = 88; at 70 the text column gives up 18 columns and keeps its widest word
    assert fit_columns(headers, rows, 88) == [43, 38]
    assert fit_columns(headers, rows, 70) == [43, 20]
    assert fit_columns(headers, rows, 58) == [43, 8]  # "sentence" is the widest word
    assert fit_columns(headers, rows, 57) is None


def test_show_one_rule_prints_what_the_service_answers_for_it() -> None:
    """New-user trial: the CLI could not show a single rule (the service has GET /v1/rules/POLICY/RULE)."""
    import yaml

    from api.factory import create_app

    res = run("policies", "show", "gpu-nodes/workload-label-valid")
    assert res.exit_code == 0
    shown = yaml.safe_load(res.stdout)
    # a policy author's trial: the rule's logic (preconditions, vars, assertion) was not shown; it is, as written
    source, definition = shown.pop("source"), shown.pop("definition")
    file, line = source.rsplit(":", 1)
    assert file.endswith("policies/gpu-operator/nodes.yaml")
    written = Path(file).read_text().splitlines()
    assert written[int(line) - 1].strip() == "- id: workload-label-valid"
    assert definition.startswith("- id: workload-label-valid\n  title: ") and "\n  assert:" in definition
    assert "- id: " not in definition[5:]  # the next rule is not part of it
    served = create_app().test_client().get("/v1/rules/gpu-nodes/workload-label-valid").get_json()
    assert shown == served and shown["uid"] == "gpu-nodes/workload-label-valid" and shown["match"]["kinds"] == ["Node"]
    bare = yaml.safe_load(run("policies", "show", "workload-label-valid").stdout)  # a bare id one policy uses
    assert {k: v for k, v in bare.items() if k not in ("source", "definition")} == shown
    res = run("policies", "show", "gpu-nodes/no-such-rule")
    assert res.exit_code == 2 and "nor a loaded policy, pack or rule so named" in res.stderr
    # second new-user trial: a misspelt rule named nothing (and POLICY/RULE must not be taken for its policy)
    for typo in ("gpu-nodes/workload-label-vaild", "workload-label-vaild"):
        assert "(did you mean 'gpu-nodes/workload-label-valid'?)" in run("policies", "show", typo).stderr


def test_lint_notes_a_policy_named_as_a_builtin_one(tmp_path: Path) -> None:
    """Trial 47: lint said ok of a pack whose policy is named gpu-nodes, then `audit -p gpu-operator -p mypack`
    refused the two (exit 2). The pack is valid alone: lint still says ok, and notes the clash."""
    (tmp_path / "nodes.yaml").write_text(
        "apiVersion: verdict/v1\nkind: Policy\nmetadata: {name: gpu-nodes}\nspec:\n  rules:\n  - id: r\n    title: t\n"
        "    match: {kinds: [Node]}\n    assert: {path: $.metadata.name, exists: true}\n    message: m\n"
        "    references: [https://kubernetes.io/]\n"
    )
    res = run("policies", "lint", str(tmp_path))
    assert (res.exit_code, res.stdout) == (0, "ok: 1 policy, 1 rule\n")
    assert res.stderr.startswith(
        f"verdict: note: {tmp_path / 'nodes.yaml'}:3: policy name 'gpu-nodes' is also the built-in pack gpu-operator's"
    )
    assert run("policies", "lint", "gpu-operator").stderr == ""  # the built-in pack itself: no note


def test_lint_notes_a_folder_of_policies_a_pack_does_not_read(pack: Path) -> None:
    """Trial 165: a policy put in the pack's rules/ folder was never loaded, and lint said ok without a word; a pack
    test beside the policies was "kind: Must be equal to Policy" and four unknown fields; pods.YAML was not read."""
    (pack / "rules").mkdir()
    (pack / "rules" / "more.yaml").write_text(POLICY.replace("gpu-count", "more"))
    res = run("policies", "lint", str(pack))
    assert res.exit_code == 0 and res.stdout == "ok: 1 policy, 1 rule\n"
    assert res.stderr == (
        f"verdict: note: {pack / 'rules'}/ not read: a pack's policies are the *.yaml files directly in its folder"
        " (data/ holds its tables, tests/ its tests)\n"
    )
    # a folder of included context and vars files (the built-in pack's shared/) is read through the includes
    (pack / "shared").mkdir()
    (pack / "shared" / "nodes.yaml").write_text("context:\n  nodes: {kind: Node, path: $.metadata.name}\nvars: {}\n")
    assert run("policies", "lint", str(pack)).stderr.count("not read") == 1
    assert run("policies", "lint", "gpu-operator").stderr == ""
    # trial 167: a quoted kind, or one with a comment after it, is a policy too
    (pack / "quoted").mkdir()
    (pack / "quoted" / "q.yaml").write_text(POLICY.replace("kind: Policy", 'kind: "Policy"  # ours'))
    assert run("policies", "lint", str(pack)).stderr.count("not read") == 2
    (pack / "quoted" / "q.yaml").unlink()
    (pack / "rules" / "more.yaml").rename(pack / "more.YAML")
    assert run("policies", "lint", str(pack)).stdout == "ok: 2 policies, 2 rules\n"
    (pack / "counted.yaml").write_text(FIXTURE)
    res = run("policies", "lint", str(pack))
    assert res.exit_code == 1
    assert res.stdout == (
        f"{pack / 'counted.yaml'}:2: a pack test (kind: Test), not a policy: a pack's tests are read from its tests/"
        " folder (verdict policies test <pack>)\n"
    )
