"""Exemptions: the verdict.dev/exempt annotation and exemptions files turn accepted findings into skips,
every format says so, and the CLI and the service take exemptions files (docs/exemptions.md)."""

from __future__ import annotations

import json
import os
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from test_render import check_policyreport_list, check_sarif

from api import create_app
from api.config import ConfigError, from_env
from rules.cli import main
from rules.engine import audit_paths
from rules.errors import ExemptionError, Source
from rules.exemptions import (
    ANNOTATION_PATH,
    Exempter,
    ExemptionLoadError,
    ExemptionSet,
    expiry,
    load_exemptions,
    load_exemptions_text,
    parse_annotation,
)
from rules.loader import load_policies
from rules.reader import KObject
from rules.render import render
from rules.report import Report, Result

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "exemptions"
DUMP = DATA / "dump.yaml"
FILE = DATA / "exemptions.yaml"
POLICY = ROOT / "tests" / "data" / "render" / "policy.yaml"
DOC = ROOT / "docs" / "exemptions.md"

RMA = "GPU 3 failed, node is in RMA (INC-4711)"
STAGING = "staging node, rebuilt every night"
ML = "the ML team's smoke-test pods keep the gpu=yes label (ML-208)"
NO_REASON = (
    "annotation verdict.dev/exempt: the reason after ':' is required: say why the finding is accepted; no exemption applied"
)


def audit(*files: Path) -> Report:
    exemptions = load_exemptions([str(f) for f in files]) if files else None
    return audit_paths([str(DUMP)], load_policies([str(POLICY)]), name="lab", exemptions=exemptions)


def results(report: Report) -> dict[str, dict[str, str]]:
    """object -> {rule: result word}."""
    return {str(o.ref): {r.rule: r.result for r in o.results} for o in report.objects}


def result(report: Report, obj: str, rule: str) -> Result:
    [r] = [r for o in report.objects if str(o.ref) == obj for r in o.results if r.rule == rule]
    return r


# ------------------------------------------------------------------------------------------ semantics


def test_annotations_alone_exempt_what_they_name() -> None:
    report = audit()
    assert results(report) == {
        "Node/gpu-node-rma": {"gpu-allocatable": "skip", "workload-label": "pass"},
        "Node/gpu-node-staging": {"gpu-allocatable": "skip", "workload-label": "skip"},
        "Node/gpu-node-1": {"gpu-allocatable": "pass", "workload-label": "pass"},
        "Node/gpu-node-typo": {"gpu-allocatable": "fail", "workload-label": "warn"},
        "Pod/ml-team/cuda-vectoradd": {"gpu-limit": "fail"},
        "Pod/research/notebook": {"gpu-limit": "fail"},
        "Pod/research/smoke-test": {"gpu-limit": "fail"},
        "Deployment/default/dashboard": {"replicas-number": "error"},
    }
    r = result(report, "Node/gpu-node-rma", "gpu-allocatable")
    assert r.to_dict() == {
        "policy": "render-demo",
        "rule": "gpu-allocatable",
        "title": "GPU nodes advertise their GPUs",
        "result": "skip",
        "severity": "critical",
        "category": "GPU Operator",
        "message": f"exempt: {RMA} (annotation verdict.dev/exempt)",
        "path": "$.status.allocatable['nvidia.com/gpu']",
        "observed": "0",
        "expected": "> 0",
        "remediation": "",
        "references": ["https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/troubleshooting.html"],
        "exemption": {
            "source": "annotation verdict.dev/exempt",
            "reason": RMA,
            "result": "fail",
            "message": "node gpu-node-rma advertises 0 nvidia.com/gpu | expected > 0",
        },
    }
    assert r.exemption is not None and r.exemption.in_source
    assert r.exemption.finding.remediation == "kubectl -n gpu-operator rollout restart ds/nvidia-device-plugin-daemonset"
    # policy/* covers a warn too; the warn is what the exemption keeps
    staging = result(report, "Node/gpu-node-staging", "workload-label")
    assert staging.message == f"exempt: {STAGING} (annotation verdict.dev/exempt)"
    assert staging.exemption is not None and staging.exemption.finding.result == "warn"
    assert report.notes == [
        f"exemption annotation verdict.dev/exempt on Node/gpu-node-rma (render-demo/gpu-allocatable: {RMA}) applied to 1 result",
        f"exemption annotation verdict.dev/exempt on Node/gpu-node-staging (render-demo/*: {STAGING}) applied to 2 results",
    ]


def test_a_pass_an_error_and_a_precondition_skip_are_not_exempted() -> None:
    report = audit()
    # gpu-node-1 names both of its rules, but both pass; the dashboard's rule cannot be evaluated
    for obj, rule, word in (
        ("Node/gpu-node-1", "gpu-allocatable", "pass"),
        ("Node/gpu-node-1", "workload-label", "pass"),
        ("Deployment/default/dashboard", "replicas-number", "error"),
    ):
        r = result(report, obj, rule)
        assert (r.result, r.exemption) == (word, None)
        assert "exemption" not in r.to_dict()
    assert not any("gpu-node-1" in n or "dashboard" in n for n in report.notes)


def test_file_exemptions_with_kinds_namespaces_names_labels_and_expiry() -> None:
    report = audit(FILE)
    assert results(report) == {
        "Node/gpu-node-rma": {"gpu-allocatable": "skip", "workload-label": "pass"},
        "Node/gpu-node-staging": {"gpu-allocatable": "skip", "workload-label": "skip"},
        "Node/gpu-node-1": {"gpu-allocatable": "pass", "workload-label": "pass"},
        # the exemption of its workload label expired on 2020-01-31: the warning is back
        "Node/gpu-node-typo": {"gpu-allocatable": "fail", "workload-label": "warn"},
        "Pod/ml-team/cuda-vectoradd": {"gpu-limit": "skip"},
        # namespace research is not ml-*
        "Pod/research/notebook": {"gpu-limit": "fail"},
        "Pod/research/smoke-test": {"gpu-limit": "fail"},
        "Deployment/default/dashboard": {"replicas-number": "error"},
    }
    pod = result(report, "Pod/ml-team/cuda-vectoradd", "gpu-limit")
    assert pod.message == f"exempt: {ML} ({FILE}:5)"
    assert pod.exemption is not None
    assert (pod.exemption.source, pod.exemption.file, pod.exemption.line, pod.exemption.in_source) == (
        f"{FILE}:5",
        str(FILE),
        5,
        False,
    )
    assert pod.exemption.to_dict() == {
        "source": f"{FILE}:5",
        "reason": ML,
        "result": "fail",
        "message": "pod ml-team/cuda-vectoradd asks for 0 GPUs, expected >= 1",
    }
    # the annotation on the node wins over the file entry that names it too
    rma = result(report, "Node/gpu-node-rma", "gpu-allocatable")
    assert rma.exemption is not None and rma.exemption.source == "annotation verdict.dev/exempt"
    assert report.notes == [
        f"exemption annotation verdict.dev/exempt on Node/gpu-node-rma (render-demo/gpu-allocatable: {RMA}) applied to 1 result",
        f"exemption annotation verdict.dev/exempt on Node/gpu-node-staging (render-demo/*: {STAGING}) applied to 2 results",
        f"exemption {FILE}:5 (render-demo/gpu-limit: {ML}) applied to 1 result",
        f"exemption {FILE}:11 (workload-label: relabelled in the next maintenance window) expired on 2020-01-31: not applied",
    ]
    assert report.summary()["results"] == {"pass": 3, "fail": 3, "warn": 1, "error": 1, "skip": 4}
    assert report.summary()["exempt"] == 4
    assert report.to_dict()["summary"]["exempt"] == 4


def test_no_exemption_keeps_the_report_shape() -> None:
    report = audit_paths([str(ROOT / "tests" / "data" / "render" / "dump.yaml")], load_policies([str(POLICY)]))
    assert "exempt" not in report.summary()
    assert all("exemption" not in r.to_dict() for _, r in report.results)
    # no exemption note; the one note says why the skip happened
    assert report.notes == ["skipped: the pod is not labelled gpu=yes (1 result of render-demo/gpu-limit)"]
    assert "suppressions" not in render(report, "sarif", all_results=True)


def test_an_exemption_applies_through_its_last_day() -> None:
    assert expiry("2026-06-30") == datetime(2026, 7, 1, tzinfo=UTC)
    assert expiry("2026-06-30T18:00:00+02:00") == datetime(2026, 6, 30, 16, tzinfo=UTC)
    for bad in ("2026-6-30", "30.06.2026", "2026-06-30T18:00:00", "tomorrow", "2026-02-30"):
        with pytest.raises(ValueError):
            expiry(bad)
    [entry] = load_exemptions_text(
        "apiVersion: verdict/v1\nkind: Exemptions\nexemptions:\n- {rules: [gpu-allocatable], reason: RMA, expires: 2026-06-30}\n",
        "x.yaml",
    )
    node = KObject({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}}, Source("d.yaml"))
    fail = Result("render-demo", "gpu-allocatable", "t", "fail", "critical", "", "no GPUs")
    last_day = Exempter(ExemptionSet((entry,)), datetime(2026, 6, 30, 23, 59, 59, tzinfo=UTC))
    assert [r.result for r in last_day.apply(node, [fail])] == ["skip"]
    next_day = Exempter(ExemptionSet((entry,)), datetime(2026, 7, 1, tzinfo=UTC))
    assert next_day.apply(node, [fail]) == [fail]
    assert next_day.notes() == ["exemption x.yaml:4 (gpu-allocatable: RMA) expired on 2026-06-30: not applied"]


# ------------------------------------------------------------------------------------------ annotations


def test_annotation_grammar() -> None:
    assert parse_annotation("gpu-nodes/gpus-advertised: node in RMA") == (("gpu-nodes/gpus-advertised",), "node in RMA")
    assert parse_annotation(" gpu-pods/* ,  workload-label :  see INC-1: the board\n  is out ") == (
        ("gpu-pods/*", "workload-label"),
        "see INC-1: the board is out",
    )


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("render-demo/gpu-limit", "expected '<rules>: <reason>', e.g. 'gpu-nodes/no-unhealthy-devices: node in RMA, TICKET-1'"),
        ("render-demo/gpu-limit:   ", "the reason after ':' is required: say why the finding is accepted"),
        (": a reason without a rule", "name at least one rule before ':'"),
        ("Render Demo/*: shouting", "'Render Demo/*': a rule is written policy/rule, rule (an id in any policy) or policy/*"),
        ("*: everything", "'*': a rule is written policy/rule, rule (an id in any policy) or policy/*"),
        ("gpu-limit,, x: two commas", "'': a rule is written policy/rule, rule (an id in any policy) or policy/*"),
        (5, "the value must be a string '<rules>: <reason>', not int"),
    ],
)
def test_malformed_annotation_is_refused(value: Any, reason: str) -> None:
    with pytest.raises(ValueError) as err:
        parse_annotation(value)
    assert str(err.value) == reason


def test_malformed_annotation_is_an_input_error_on_its_object() -> None:
    report = audit(FILE)
    [err] = report.input_errors
    assert (err.source.file, err.source.item, err.path, err.reason) == (str(DUMP), 6, ANNOTATION_PATH, NO_REASON)
    assert err.source.line == 65
    # the pod's finding stays, every other object is judged as before, and the CLI says so
    assert result(report, "Pod/research/smoke-test", "gpu-limit").result == "fail"
    assert report.worst() == "error"


# ------------------------------------------------------------------------------------------ files


def refused(tmp_path: Path, text: str) -> ExemptionError:
    path = tmp_path / "exemptions.yaml"
    path.write_text(text)
    with pytest.raises(ExemptionLoadError) as err:
        load_exemptions([str(path)])
    first = err.value.errors[0]
    assert isinstance(first, ExemptionError)
    return first


HEAD = "apiVersion: verdict/v1\nkind: Exemptions\nexemptions:\n"


@pytest.mark.parametrize(
    ("body", "line", "path", "reason"),
    [
        ("- rules: [gpu-limit]\n  kinds: [Pod]\n", 4, "exemptions[0].reason", "Missing data for required field."),
        ("- rules: [gpu-limit]\n  reasn: typo\n", 5, "exemptions[0].reasn", "unknown field 'reasn'; did you mean 'reason'?"),
        (
            "- rules: [gpu-limit]\n  reason: ok\n- rules: [Gpu Limit]\n  reason: x\n",
            6,
            "exemptions[1].rules[0]",
            "'Gpu Limit': a rule is written policy/rule, rule (an id in any policy) or policy/*",
        ),
        ("- rules: []\n  reason: x\n", 4, "exemptions[0].rules", "at least one is required: an empty list holds none"),
        # trial 141: an exemptions file lost the plain words a policy file has
        ("- rules: gpu-limit\n  reason: x\n", 4, "exemptions[0].rules", "must be a list (one '- item' a line, or [a, b])"),
        ("- rules: [gpu-limit]\n  reason: '  '\n", 5, "exemptions[0].reason", "the reason must say why the finding is accepted"),
        (
            "- rules: [gpu-limit]\n  reason: x\n  expires: next week\n",
            6,
            "exemptions[0].expires",
            "'next week' is not an RFC 3339 date (2026-06-30) or date-time (2026-06-30T18:00:00Z)",
        ),
        (
            "- rules: [gpu-limit]\n  reason: x\n  labelSelector: {matchExpressions: [{key: gpu, operator: In}]}\n",
            6,
            "exemptions[0].labelSelector.matchExpressions[0].values",
            "operator In needs a non-empty values list",
        ),
    ],
)
def test_bad_exemptions_file_is_refused_with_file_line_and_field(
    tmp_path: Path, body: str, line: int, path: str, reason: str
) -> None:
    err = refused(tmp_path, HEAD + body)
    assert (err.line, err.path, err.reason) == (line, path, reason)
    assert str(err) == f"{tmp_path / 'exemptions.yaml'}:{line}: {path}: {reason}"


def test_bad_exemptions_documents(tmp_path: Path) -> None:
    err = refused(tmp_path, "apiVersion: verdict/v1\nkind: Policy\nexemptions: []\n")
    assert (err.line, err.path, err.reason) == (2, "kind", "Must be equal to Exemptions.")
    err = refused(tmp_path, HEAD + "- rules: [gpu-limit\n  reason: x\n")
    assert err.line == 5 and err.reason.startswith("YAML syntax error")
    err = refused(tmp_path, "# nothing yet\n")
    assert err.reason == "no exemptions document in the file (apiVersion: verdict/v1, kind: Exemptions)"
    err = refused(tmp_path, "- rules: [gpu-limit]\n")
    assert (err.line, err.reason) == (1, "an exemptions document is a mapping (apiVersion: verdict/v1, kind: Exemptions)")


def test_every_problem_of_every_file_is_reported(tmp_path: Path) -> None:
    one, two = tmp_path / "one.yaml", tmp_path / "two.yaml"
    one.write_text(HEAD + "- rules: [gpu-limit]\n- reason: no rules\n")
    two.write_text(HEAD + "- rules: [x]\n  reason: fine\n")
    with pytest.raises(ExemptionLoadError) as err:
        load_exemptions([str(one), str(two), str(tmp_path / "missing.yaml")])
    assert [str(e) for e in err.value.errors] == [
        f"{one}:4: exemptions[0].reason: Missing data for required field.",
        f"{one}:5: exemptions[1].rules: Missing data for required field.",
        f"{tmp_path / 'missing.yaml'}: cannot read: No such file or directory",
    ]


def test_the_first_matching_file_entry_wins(tmp_path: Path) -> None:
    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    first.write_text(HEAD + "- {rules: [render-demo/gpu-limit], namespaces: [research], reason: first}\n")
    second.write_text(HEAD + "- {rules: [gpu-limit], reason: second}\n")
    report = audit(first, second)
    assert result(report, "Pod/research/notebook", "gpu-limit").message == f"exempt: first ({first}:4)"
    assert result(report, "Pod/ml-team/cuda-vectoradd", "gpu-limit").message == f"exempt: second ({second}:4)"


# ------------------------------------------------------------------------------------------ formats


def where(sarif_result: dict[str, Any]) -> str:
    return str(sarif_result["locations"][0]["logicalLocations"][0]["fullyQualifiedName"])


def test_sarif_writes_exempted_findings_as_suppressed_results_with_all_results_only() -> None:
    """Trial 37: GitHub code scanning does not read suppressions (github/codeql-action#1230), so an exempted
    finding written by default opened an alert: it is written with all_results only, counted either way."""
    report = audit(FILE)
    [plain] = check_sarif(render(report, "sarif"))["runs"]
    assert [r for r in plain["results"] if "suppressions" in r] == []
    assert plain["properties"]["summary"]["exempt"] == 4
    [run] = check_sarif(render(report, "sarif", all_results=True))["runs"]
    suppressed = {f"{where(r)} {r['ruleId']}": r for r in run["results"] if "suppressions" in r}
    assert sorted(suppressed) == [
        "Node/gpu-node-rma render-demo/gpu-allocatable",
        "Node/gpu-node-staging render-demo/gpu-allocatable",
        "Node/gpu-node-staging render-demo/workload-label",
        "Pod/ml-team/cuda-vectoradd render-demo/gpu-limit",
    ]
    rma = suppressed["Node/gpu-node-rma render-demo/gpu-allocatable"]
    assert (rma["kind"], rma["level"], rma["message"]["text"]) == (
        "fail",
        "error",
        "node gpu-node-rma advertises 0 nvidia.com/gpu | expected > 0",
    )
    assert rma["properties"]["result"] == "fail"
    assert rma["properties"]["remediation"] == "kubectl -n gpu-operator rollout restart ds/nvidia-device-plugin-daemonset"
    assert rma["suppressions"] == [
        {
            "kind": "inSource",
            "status": "accepted",
            "justification": RMA,
            "properties": {"source": "annotation verdict.dev/exempt"},
        }
    ]
    warn = suppressed["Node/gpu-node-staging render-demo/workload-label"]
    assert (warn["kind"], warn["level"]) == ("fail", "warning")
    pod = suppressed["Pod/ml-team/cuda-vectoradd render-demo/gpu-limit"]
    assert pod["suppressions"] == [
        {
            "kind": "external",
            "status": "accepted",
            "justification": ML,
            "location": {"physicalLocation": {"artifactLocation": {"uri": FILE.as_uri()}, "region": {"startLine": 5}}},
            "properties": {"source": f"{FILE}:5"},
        }
    ]
    assert run["properties"]["summary"]["exempt"] == 4


def test_policyreport_exempted_result_is_a_skip_with_the_reason() -> None:
    items = check_policyreport_list(yaml.safe_load(render(audit(FILE), "policyreport")))
    exempted = {
        (res["resources"][0]["name"], res["rule"]): res
        for item in items
        for res in item["results"]
        if "exemption" in res.get("properties", {})
    }
    assert sorted(exempted) == [
        ("cuda-vectoradd", "gpu-limit"),
        ("gpu-node-rma", "gpu-allocatable"),
        ("gpu-node-staging", "gpu-allocatable"),
        ("gpu-node-staging", "workload-label"),
    ]
    pod = exempted[("cuda-vectoradd", "gpu-limit")]
    assert (pod["result"], pod["scored"], pod["message"]) == ("skip", True, f"exempt: {ML} ({FILE}:5)")
    assert pod["properties"] == {
        "path": "$.spec.containers[*].resources.limits['nvidia.com/gpu']",
        "observed": "0",
        "expected": ">= 1",
        "exemption": ML,
        "exemptionSource": f"{FILE}:5",
    }


def test_native_markdown_and_table_count_exempt_results() -> None:
    report = audit(FILE)
    native = json.loads(render(report, "json"))
    assert native["summary"]["exempt"] == 4
    assert yaml.safe_load(render(report, "yaml"))["objects"][0]["results"][0]["exemption"]["reason"] == RMA
    first = render(report, "markdown").splitlines()[0]
    assert first.endswith("· 3 fail (1 critical, 2 low) · 1 warn (1 medium) · 1 error · 4 skip (4 exempt) · 1 input error")
    assert "8 objects judged (8 read); 12 results: 3 pass, 3 fail, 1 warn, 1 error, 4 skip (4 exempt); 1 input error\n" in render(
        report, "table", width=400
    )


def test_the_summary_counts_exempt_results_whatever_the_filter() -> None:
    shown = audit(FILE).filtered({"fail"})
    assert shown.summary()["exempt"] == 4
    assert all(r.result == "fail" for _, r in shown.results)


# ------------------------------------------------------------------------------------------ CLI


def run(*args: str) -> Any:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_cli_exemptions_turn_an_accepted_finding_into_a_clean_exit(tmp_path: Path) -> None:
    node = tmp_path / "node.yaml"
    node.write_text(
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: gpu-node-rma\n"
        "  labels: {nvidia.com/gpu.present: 'true', nvidia.com/gpu.workload.config: container}\n"
        "status: {allocatable: {nvidia.com/gpu: '0'}}\n"
    )
    accepted = tmp_path / "accepted.yaml"
    accepted.write_text(HEAD + "- {rules: [render-demo/gpu-allocatable], names: [gpu-node-*], reason: in RMA}\n")
    assert run("audit", str(node), "-p", str(POLICY)).exit_code == 1
    res = run("audit", str(node), "-p", str(POLICY), "--exemptions", str(accepted), "--exemptions", str(FILE))
    assert res.exit_code == 0
    report = json.loads(res.stdout)
    [r] = [r for o in report["objects"] for r in o["results"] if r["rule"] == "gpu-allocatable"]
    assert (r["result"], r["exemption"]["source"]) == ("skip", f"{accepted}:4")
    assert f"exemption {accepted}:4 (render-demo/gpu-allocatable: in RMA) applied to 1 result" in report["notes"]


def test_cli_refuses_a_broken_exemptions_file(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text(HEAD + "- rules: [gpu-limit]\n")
    res = run("audit", str(DUMP), "-p", str(POLICY), "--exemptions", str(broken))
    assert res.exit_code == 2
    assert res.stdout == ""
    assert res.stderr == f"verdict: exemptions refused: {broken}:4: exemptions[0].reason: Missing data for required field.\n"


def test_cli_malformed_annotation_is_an_input_error_on_stderr() -> None:
    res = run("audit", str(DUMP), "-p", str(POLICY), "-f", "markdown", "--fail-on", "never")
    assert res.exit_code == 0
    assert f"verdict: input error: {DUMP}, document 1, items[6], line 65 at {ANNOTATION_PATH}: {NO_REASON}" in res.stderr


# ------------------------------------------------------------------------------------------ service


def evaluate(app: Any, fmt: str = "json") -> Any:
    resp = app.test_client().post(
        f"/v1/evaluate?format={fmt}", data=DUMP.read_bytes(), headers={"Content-Type": "application/yaml"}
    )
    assert resp.status_code == 200, resp.get_data(as_text=True)
    return resp


def test_service_applies_the_exemptions_files_of_its_config() -> None:
    app = create_app({"POLICIES": [str(POLICY)], "EXEMPTIONS": [str(FILE)]})
    body = evaluate(app).get_json()
    [pod] = [o for o in body["objects"] if o["name"] == "cuda-vectoradd"]
    assert pod["verdict"] == "skip"
    assert pod["results"][0]["exemption"] == {
        "source": f"{FILE}:5",
        "reason": ML,
        "result": "fail",
        "message": "pod ml-team/cuda-vectoradd asks for 0 GPUs, expected >= 1",
    }
    assert body["summary"]["exempt"] == 4
    [run_] = check_sarif(evaluate(app, "sarif&sarifAllResults=true").get_data(as_text=True))["runs"]
    assert sum("suppressions" in r for r in run_["results"]) == 4
    # without the file, only the annotations of the dump apply
    assert evaluate(create_app({"POLICIES": [str(POLICY)]})).get_json()["summary"]["exempt"] == 3


def test_service_takes_a_loaded_set_and_refuses_a_broken_file(tmp_path: Path) -> None:
    app = create_app({"POLICIES": [str(POLICY)], "EXEMPTION_SET": load_exemptions([str(FILE)])})
    assert evaluate(app).get_json()["summary"]["exempt"] == 4
    broken = tmp_path / "broken.yaml"
    broken.write_text(HEAD + "- {rules: [gpu-limit], reason: x, expires: soon}\n")
    with pytest.raises(ExemptionLoadError) as err:
        create_app({"POLICIES": [str(POLICY)], "EXEMPTIONS": [str(broken)]})
    assert [str(e) for e in err.value.errors] == [
        f"{broken}:4: exemptions[0].expires: 'soon' is not an RFC 3339 date (2026-06-30) or date-time (2026-06-30T18:00:00Z)"
    ]


def test_verdict_exemptions_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    extra = tmp_path / "extra.yaml"
    extra.write_text(HEAD + "- {rules: [gpu-limit], namespaces: [research], reason: research pods are CPU-only}\n")
    settings = from_env({"VERDICT_EXEMPTIONS": os.pathsep.join([str(FILE), str(extra)])})
    assert settings["EXEMPTIONS"] == [str(FILE), str(extra)]
    assert [e.source for e in settings["EXEMPTION_SET"].exemptions] == [f"{FILE}:5", f"{FILE}:11", f"{FILE}:15", f"{extra}:4"]
    assert from_env({})["EXEMPTION_SET"] is None
    monkeypatch.setenv("VERDICT_POLICIES", str(POLICY))
    monkeypatch.setenv("VERDICT_EXEMPTIONS", os.pathsep.join([str(FILE), str(extra)]))
    body = evaluate(create_app()).get_json()
    assert body["summary"]["exempt"] == 6  # the notebook and the smoke-test pod too


def test_a_broken_verdict_exemptions_file_stops_the_start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text(HEAD + "- rules: [gpu-limit]\n  reason: x\n  until: 2026-01-01\n")
    message = f"VERDICT_EXEMPTIONS: {broken}:6: exemptions[0].until: unknown field 'until'"
    with pytest.raises(ConfigError) as err:
        from_env({"VERDICT_EXEMPTIONS": str(broken)})
    assert str(err.value) == message
    monkeypatch.setenv("VERDICT_POLICIES", str(POLICY))
    monkeypatch.setenv("VERDICT_EXEMPTIONS", str(broken))
    with pytest.raises(ConfigError) as err:
        create_app()
    assert str(err.value) == message


# ------------------------------------------------------------------------------------------ docs


def _blocks(kind: str) -> list[str]:
    """The YAML blocks of the doc that hold ``kind``."""
    text = DOC.read_text(encoding="utf-8")
    return [body for lang, body in re.findall(r"^```(\w*)\n(.*?)^```$", text, re.S | re.M) if lang == "yaml" and kind in body]


def test_the_doc_examples_load_and_parse() -> None:
    files = _blocks("kind: Exemptions")
    assert files
    for text in files:
        assert load_exemptions_text(text, "docs/exemptions.md")
    annotations = [
        yaml.safe_load(b)["metadata"]["annotations"]["verdict.dev/exempt"] for b in _blocks("verdict.dev/exempt:") if "kind:" in b
    ]
    assert annotations
    for value in annotations:
        assert parse_annotation(value)


def test_readme_and_report_formats_link_the_doc() -> None:
    assert "(docs/exemptions.md)" in (ROOT / "README.md").read_text(encoding="utf-8")
    assert "(exemptions.md)" in (ROOT / "docs" / "report-formats.md").read_text(encoding="utf-8")


def test_an_exemption_naming_no_loaded_rule_is_noted(tmp_path) -> None:
    """Regression (new user): an entry copied with a rule id the pack does not have exempted nothing, silently."""
    from rules.engine import audit_paths
    from rules.exemptions import load_exemptions
    from rules.loader import load_policies

    f = tmp_path / "ex.yaml"
    f.write_text(
        "apiVersion: verdict/v1\nkind: Exemptions\nexemptions:\n"
        "- rules: [gpu-nodes/gpus-advertised]\n  names: [gpu-broken-unhealthy]\n  reason: RMA ticket 4711\n"
    )
    lab = str(Path(__file__).resolve().parent.parent / "examples" / "lab-cluster.yaml")
    report = audit_paths([lab], load_policies(), exemptions=load_exemptions([str(f)]))
    # trial 71: with the closest loaded rule
    note = f"exemption {f}:4 names no loaded rule: gpu-nodes/gpus-advertised; did you mean gpu-nodes/gpu-resources-advertised?"
    assert note in report.notes


def test_an_exemption_with_dumps_applies_to_those_dumps_of_a_batch_only(tmp_path: Path) -> None:
    """Trial 175: in a nightly batch of clusters, exempting cluster mg-d's gpu-broken-1 also hid the finding of the
    node of that name in another cluster's archive, and an entry could not be scoped (dumps: was refused). It may
    name the dumps it applies to, by globs of the report's name or of its last part."""
    node = (
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: gpu-node-rma\n"
        "  labels: {nvidia.com/gpu.present: 'true', nvidia.com/gpu.workload.config: container}\n"
        "status: {allocatable: {nvidia.com/gpu: '0'}}\n"
    )
    batch = tmp_path / "batch"
    for cluster in ("cluster-a", "cluster-b"):
        (batch / cluster).mkdir(parents=True)
        (batch / cluster / "nodes.yaml").write_text(node)
    accepted = tmp_path / "accepted.yaml"
    accepted.write_text(
        HEAD + "- {rules: [render-demo/gpu-allocatable], names: [gpu-node-rma], dumps: [cluster-a], reason: in RMA}\n"
    )
    res = run("audit", str(batch / "cluster-a"), str(batch / "cluster-b"), "-p", str(POLICY), "--exemptions", str(accepted))
    assert res.exit_code == 1  # cluster-b's node still fails
    reports = {r["name"]: r for r in json.loads(res.stdout)["reports"]}
    words = {
        name.rsplit("/", 1)[-1]: [r["result"] for o in rep["objects"] for r in o["results"] if r["rule"] == "gpu-allocatable"]
        for name, rep in reports.items()
    }
    assert words == {"cluster-a": ["skip"], "cluster-b": ["fail"]}
    # a glob of the whole name does it too; one that matches no dump exempts nothing
    for globs, exempt in (("['*/batch/cluster-?']", 2), ("[cluster-c]", 0)):
        accepted.write_text(HEAD + f"- {{rules: [render-demo/gpu-allocatable], dumps: {globs}, reason: in RMA}}\n")
        res = run("audit", str(batch / "cluster-a"), str(batch / "cluster-b"), "-p", str(POLICY), "--exemptions", str(accepted))
        skips = [
            r
            for rep in json.loads(res.stdout)["reports"]
            for o in rep["objects"]
            for r in o["results"]
            if r["result"] == "skip" and "exempt" in r["message"]
        ]
        assert len(skips) == exempt, globs
    # the same dumps given as ./ paths or absolute paths are matched alike; an entry that matches none is said
    # (trial 176: either turned it off without a word)
    accepted.write_text(
        HEAD + "- {rules: [render-demo/gpu-allocatable], names: [gpu-node-rma], dumps: [batch/cluster-a], reason: in RMA}\n"
    )
    for given in (f"{batch}/./cluster-a", str(batch / "cluster-a")):
        res = run("audit", given, str(batch / "cluster-b"), "-p", str(POLICY), "--exemptions", str(accepted))
        skips = [
            r
            for rep in json.loads(res.stdout)["reports"]
            for o in rep["objects"]
            for r in o["results"]
            if "exempt" in r["message"]
        ]
        assert len(skips) == 1, given
    res = run("audit", str(batch / "cluster-b"), "-p", str(POLICY), "--exemptions", str(accepted))
    assert (
        f"verdict: note: exemption {accepted}:4 (render-demo/gpu-allocatable: in RMA) names dumps (batch/cluster-a) that"
        " match none of the 1 dump audited: not applied"
    ) in res.stderr
    # an empty list is refused at load, with its line
    accepted.write_text(HEAD + "- {rules: [render-demo/gpu-allocatable], dumps: [], reason: in RMA}\n")
    res = run("audit", str(batch / "cluster-a"), "-p", str(POLICY), "--exemptions", str(accepted))
    assert res.exit_code == 2 and "exemptions[0].dumps" in res.stderr
    # a typo of it is told the field meant
    accepted.write_text(HEAD + "- {rules: [render-demo/gpu-allocatable], dump: [a], reason: in RMA}\n")
    res = run("audit", str(batch / "cluster-a"), "-p", str(POLICY), "--exemptions", str(accepted))
    assert "unknown field 'dump' here; did you mean 'dumps'?" in res.stderr


def test_a_batch_says_an_exemptions_files_notes_once(tmp_path: Path) -> None:
    """Trial 175: an expired entry and a rule id with a typo were noted on standard error for every dump of a batch
    (22 lines for 11 dumps), and for an unreadable dump without its name. A note every report carries is said once;
    each report keeps it."""
    node = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
    for cluster in ("a", "b"):
        (tmp_path / f"{cluster}.yaml").write_text(node)
    (tmp_path / "empty.yaml").write_text("")
    accepted = tmp_path / "accepted.yaml"
    accepted.write_text(
        HEAD
        + "- {rules: [render-demo/gpu-allocatable], reason: old, expires: '2025-01-01'}\n"
        + "- {rules: [render-demo/gpu-alocatable], reason: typo}\n"
    )
    res = run(
        "audit",
        *(str(tmp_path / f) for f in ("a.yaml", "b.yaml", "empty.yaml")),
        "-p",
        str(POLICY),
        "--exemptions",
        str(accepted),
    )
    expired = f"verdict: note: exemption {accepted}:4 (render-demo/gpu-allocatable: old) expired on 2025-01-01: not applied"
    typo = f"verdict: note: exemption {accepted}:5 names no loaded rule: render-demo/gpu-alocatable; did you mean"
    lines = res.stderr.splitlines()
    assert lines.count(expired) == 1 and len([line for line in lines if line.startswith(typo)]) == 1, res.stderr
    assert not any("expired on" in line and line != expired for line in lines)
    assert all(f"exemption {accepted}:4" in " ".join(r["notes"]) for r in json.loads(res.stdout)["reports"])
    # a note about a dump is said with its name, though the other's reads the same (trial 176: its counts read as
    # the batch's)
    for dump in ("a.yaml", "b.yaml"):
        assert f"verdict: note: {tmp_path / dump}: no rule matched any object of the dump" in res.stderr
