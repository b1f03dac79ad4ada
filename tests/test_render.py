"""Report formats: golden files for each format, and each format checked against the schema its readers publish.

Golden files (tests/data/golden/) are rewritten by ``scripts/update_golden.py``; schemas and their sources
are in tests/data/schemas/ (SOURCE.md). ``kubectl`` is not available here: validating every PolicyReport
item against the CRD's openAPIV3Schema (closed to unknown fields), DNS-1123 names and the 1 MiB bound
stand in for ``kubectl apply --dry-run=server`` on a cluster with the CRDs installed.
"""

from __future__ import annotations

import copy
import functools
import importlib.util
import json
import re
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import orjson
import pytest
import xmlschema
import yaml
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import yamlsafe
from rules.cli import main
from rules.errors import InputError, Source
from rules.render import FORMATS, markdown, media_type, policyreport, render, render_many, sarif, table
from rules.report import FINDINGS, ObjectRef, ObjectReport, Report, Result

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = ROOT / "tests" / "data" / "schemas"
MIB = 1024 * 1024
DNS1123_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
UPDATE = ".venv/bin/python scripts/update_golden.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("update_golden", ROOT / "scripts" / "update_golden.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


golden = _script()


@functools.cache
def case_reports(case: str) -> list[Report]:
    if not golden.available(case):
        pytest.skip(f"case {case}: its dump or pack is not in the checkout yet")
    return list(golden.reports(case))


def one(case: str = "render") -> Report:
    return case_reports(case)[0]


# ------------------------------------------------------------------------------------------ golden


@pytest.mark.parametrize("fmt", list(golden.SUFFIX))
@pytest.mark.parametrize("case", list(golden.CASES))
def test_golden(case: str, fmt: str) -> None:
    text = golden.rendered(case, fmt, case_reports(case))
    path = golden.golden_path(case, fmt)
    hint = (
        f"{path.relative_to(ROOT)} differs from what the {fmt} renderer writes now. If the change is intended "
        f"(a renderer, a rule or a fixture changed), run `{UPDATE} {case}` and review `git diff tests/data/golden`."
    )
    assert path.exists(), f"no golden file {path.relative_to(ROOT)}: run `{UPDATE} {case}`"
    assert text == path.read_text(encoding="utf-8"), hint


def test_a_batch_note_every_dump_carries_is_said_once_in_markdown() -> None:
    """Trial 105: the note on what a batch folder holds, which every dump's report carries, was said under each of 15
    dumps in a chat-size message, and took the room of every finding."""
    batch = "fleet: a batch of 2 archives, each judged alone"
    reports = [replace(r, notes=[batch, *r.notes]) for r in case_reports("render-many")]
    text = render_many(reports, "markdown", limit=0)
    assert text.count(batch) == 1
    # under the total line and the dumps' index (trial 154: the one with an input error first)
    assert text.splitlines()[1:4] == [
        "- tests/data/render/second-dump.yaml: 1 fail (1 critical) · 1 input error (YAML syntax error: did not find"
        " expected ',' or '}' (while parsing a flow mapping that starts at li…)",
        "- tests/data/render/dump.yaml: 2 fail (1 critical, 1 low) · 1 warn (1 medium) · 1 error",
        f"_note: {batch}_",
    ]
    for r in reports:  # each dump keeps the notes of its own
        for n in r.notes[1:]:
            assert n in text
    # trial 107: alike dumps carry the same skip notes, each counting its own results: they stay in each dump
    skip = "skipped: no ClusterPolicy in the dump (1 result of gpu-nodes/x; the rule judged no object)"
    alike = [replace(r, notes=[batch, skip, *r.notes]) for r in case_reports("render-many")]
    text = render_many(alike, "markdown", limit=0)
    assert text.count(batch) == 1 and text.count(skip) == len(alike)


def test_formats_registered_with_media_types() -> None:
    assert {k: FORMATS[k][1] for k in ("policyreport", "sarif", "junit", "markdown")} == {
        "policyreport": "application/yaml",
        "sarif": "application/sarif+json",
        "junit": "application/xml",
        "markdown": "text/markdown; charset=utf-8",
    }
    assert media_type("sarif") == "application/sarif+json"


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_render_many_works_for_every_format(fmt: str) -> None:
    reports = case_reports("render-many")
    text = render_many(reports, fmt)
    assert text.strip()
    for r in reports:
        assert r.name in text or fmt == "markdown" and r.name.split("/")[-1] in text
    if FORMATS[fmt][0] in ("policyreport", "sarif", "junit", "markdown"):
        assert render_many(reports[:1], fmt) == render(reports[0], fmt)


# --------------------------------------------------------------------------------- PolicyReport


def _closed(schema: dict[str, Any]) -> dict[str, Any]:
    """An OpenAPI v3 (structural) schema as JSON Schema that refuses unknown fields: every object that
    lists ``properties`` gets ``additionalProperties: false``; int32/int64 formats become bounds."""
    out = {k: v for k, v in schema.items() if not k.startswith("x-kubernetes-")}
    if "properties" in out:
        out["properties"] = {name: _closed(sub) for name, sub in out["properties"].items()}
        out.setdefault("additionalProperties", False)
    if isinstance(out.get("additionalProperties"), dict):
        out["additionalProperties"] = _closed(out["additionalProperties"])
    if "items" in out:
        out["items"] = _closed(out["items"])
    bits = {"int32": 31, "int64": 63}.get(out.get("format", ""))
    if bits:
        out["minimum"], out["maximum"] = -(2**bits), 2**bits - 1
    return out


@functools.cache
def crd_validator(kind: str, version: str) -> jsonschema.Draft202012Validator:
    plural = {"PolicyReport": "policyreports", "ClusterPolicyReport": "clusterpolicyreports"}[kind]
    raw = yaml.safe_load((SCHEMAS / f"wgpolicyk8s.io_{plural}.{version}.yaml").read_text(encoding="utf-8"))
    schema = _closed(raw)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def check_policyreport_list(doc: dict[str, Any], version: str = "v1alpha2") -> list[dict[str, Any]]:
    """What the API server would check (CRD schema, names) plus verdict's own promises; returns the items."""
    assert (doc["apiVersion"], doc["kind"]) == ("v1", "List")
    seen: set[tuple[str, str, str]] = set()
    for item in doc["items"]:
        kind, meta = item["kind"], item["metadata"]
        assert item["apiVersion"] == f"wgpolicyk8s.io/{version}"
        errors = sorted(crd_validator(kind, version).iter_errors(item), key=str)
        assert not errors, f"{meta['name']}: {errors[0].message} at {list(errors[0].absolute_path)}"
        name = meta["name"]
        assert DNS1123_LABEL.match(name) and len(name) <= 63, name
        if kind == "PolicyReport":
            assert DNS1123_LABEL.match(meta["namespace"])
            assert {res["namespace"] for r in item["results"] for res in r["resources"]} == {meta["namespace"]}
        else:
            assert kind == "ClusterPolicyReport" and "namespace" not in meta
            assert all("namespace" not in res for r in item["results"] for res in r.get("resources", []))
        key = (kind, meta.get("namespace", ""), name)
        assert key not in seen, f"two items named {key}"
        seen.add(key)
        assert item["summary"] == {w: 0 for w in ("pass", "fail", "warn", "error", "skip")} | Counter(
            r["result"] for r in item["results"]
        )
        assert len(orjson.dumps(item)) <= MIB
    return list(doc["items"])


@pytest.mark.parametrize("version", policyreport.API_VERSIONS)
@pytest.mark.parametrize("case", list(golden.CASES))
def test_policyreport_validates_against_the_crd(case: str, version: str) -> None:
    reports = case_reports(case)
    text = render_many(reports, "policyreport", api_version=version)
    items = check_policyreport_list(yaml.safe_load(text), version)
    assert sum(len(i["results"]) for i in items) == sum(len(r.results) + len(r.input_errors) for r in reports)


def test_policyreport_scopes_summary_and_fields() -> None:
    items = check_policyreport_list(yaml.safe_load(render(one(), "policyreport")))
    assert [(i["kind"], i["metadata"]["name"], i["metadata"].get("namespace")) for i in items] == [
        ("ClusterPolicyReport", "verdict-cluster", None),
        ("PolicyReport", "verdict-default", "default"),
        ("PolicyReport", "verdict-ml-team", "ml-team"),
    ]
    cluster = items[0]
    assert cluster["summary"] == {"pass": 2, "fail": 1, "warn": 1, "error": 0, "skip": 0}
    warn = next(r for r in cluster["results"] if r["result"] == "warn")
    assert warn == {
        "policy": "render-demo",
        "rule": "workload-label",
        "result": "warn",
        "scored": False,
        "severity": "medium",
        "category": "GPU Operator",
        "source": "verdict",
        "timestamp": {"seconds": 1767225600, "nanos": 0},
        "message": "workload label 'vm_passthrough' is not one of [container, vm-passthrough, vm-vgpu];\n"
        "the operator treats the node as 'container'",
        "resources": [{"apiVersion": "v1", "kind": "Node", "name": "gpu-node-2", "uid": "0b6c2d0e-1111-4a5b-9c1d-000000000002"}],
        "properties": {
            "path": "$.metadata.labels['nvidia.com/gpu.workload.config']",
            "observed": "vm_passthrough",
            "expected": "one of [container, vm-passthrough, vm-vgpu]",
            "remediation": "kubectl label node gpu-node-2 --overwrite nvidia.com/gpu.workload.config=container",
        },
    }
    assert items[1]["summary"] == {"pass": 0, "fail": 0, "warn": 0, "error": 1, "skip": 1}


def test_policyreport_json_option_and_v1beta1_source() -> None:
    as_yaml = yaml.safe_load(render(one(), "policyreport"))
    assert json.loads(render(one(), "policyreport", output_format="json")) == as_yaml
    beta = check_policyreport_list(yaml.safe_load(render(one(), "policyreport", api_version="v1beta1")), "v1beta1")
    assert {i["source"] for i in beta} == {"verdict"}
    with pytest.raises(ValueError, match="v1beta2"):
        render(one(), "policyreport", api_version="v1beta2")


def test_policyreport_input_errors_go_to_the_cluster_report() -> None:
    second = case_reports("render-many")[1]
    [cluster, _] = check_policyreport_list(yaml.safe_load(render(second, "policyreport")))
    error = cluster["results"][-1]
    assert (error["policy"], error["rule"], error["result"], "resources" in error) == ("verdict", "input", "error", False)
    assert error["properties"] == {"file": "tests/data/render/second-dump.yaml", "document": "2", "line": "16"}


def test_policyreport_names_of_several_dumps_do_not_collide() -> None:
    items = check_policyreport_list(yaml.safe_load(render_many(case_reports("render-many"), "policyreport")))
    names = [i["metadata"]["name"] for i in items if i["metadata"].get("namespace") == "ml-team"]
    assert len(names) == 2 and len(set(names)) == 2
    assert all(n.startswith(("verdict-dump-", "verdict-second-dump-")) and n.endswith("-ml-team") for n in names)


def _result(word: str = "fail", message: str = "m", **kw: Any) -> Result:
    return Result(
        "big-policy", kw.pop("rule", "rule-a"), "Nodes are fine", word, kw.pop("severity", "high"), "Capacity", message, **kw
    )


def _xs(n: int, number: int | None) -> str:
    return "x" * n if number is None else "x" * (n - len(str(number))) + str(number)


def synthetic(n: int, namespace: str = "", message_len: int = 400, word: str = "fail", distinct: bool = False) -> Report:
    """``n`` objects with one result each, ``message_len`` characters of message after the object's name: one finding
    said of each object (the chat format says it once for them all), unless ``distinct``, where the message's last
    characters are its object's number."""
    objects = [
        ObjectReport(
            ObjectRef("v1", "Pod" if namespace else "Node", f"object-{i:05d}", namespace, f"uid-{i}"),
            Source("big.yaml", 1, 3 + 10 * i, i),
            (
                _result(
                    word,
                    f"object-{i:05d}: {_xs(message_len, i if distinct else None)}",
                    path="$.status",
                    observed={"i": i},
                    expected="> 0",
                ),
            ),
        )
        for i in range(n)
    ]
    return Report(objects=objects, objects_read=n, name="big.yaml", generated=golden.GENERATED)


def test_policyreport_large_report_is_split_under_one_mib() -> None:
    report = synthetic(4000)  # about 2.4 MB of results in one scope
    items = check_policyreport_list(yaml.safe_load(render(report, "policyreport")))
    assert [i["metadata"]["name"] for i in items] == [f"verdict-cluster-{k}" for k in range(1, len(items) + 1)]
    assert len(items) >= 3
    assert sum(i["summary"]["fail"] for i in items) == 4000
    names = [res["name"] for i in items for r in i["results"] for res in r["resources"]]
    assert names == [f"object-{k:05d}" for k in range(4000)]  # every result once, in order
    assert max(len(orjson.dumps(i)) for i in items) > 0.9 * MIB  # packed, not split needlessly


def test_policyreport_split_with_a_small_bound_and_a_too_small_one() -> None:
    report = synthetic(30, namespace="gpu-operator", message_len=100)
    items = check_policyreport_list(yaml.safe_load(render(report, "policyreport", max_bytes=3000)))
    assert len(items) > 3 and all(len(orjson.dumps(i)) <= 3000 for i in items)
    assert items[0]["metadata"]["name"] == "verdict-gpu-operator-1"
    with pytest.raises(ValueError, match="more than a report of 400 bytes can hold") as info:
        render(report, "policyreport", max_bytes=400)
    # trial 180: the least bound that works for the whole dump, said at once (one result at a time sent a client
    # from one 400 to the next, and said "-327 bytes left")
    least = int(str(info.value).split("at least ")[1].split(" bytes")[0])
    assert render(report, "policyreport", max_bytes=least)
    with pytest.raises(ValueError, match=f"at least {least} bytes for this dump"):
        render(report, "policyreport", max_bytes=least - 1)


def test_policyreport_long_names_are_cut_and_hashed() -> None:
    ns_a, ns_b = "a" * 60 + "-one", "a" * 60 + "-two"
    a, b = policyreport.dns_name(f"verdict-{ns_a}"), policyreport.dns_name(f"verdict-{ns_b}")
    assert len(a) == len(b) == 63 and a != b and DNS1123_LABEL.match(a)
    assert policyreport.dns_name(f"verdict-{ns_a}", "-12").endswith("-12")
    assert len(policyreport.dns_name(f"verdict-{ns_a}", "-12")) == 63
    assert policyreport.dns_name("Verdict_Lab.Cluster") == "verdict-lab-cluster"


def test_policyreport_properties_are_strings_and_bounded() -> None:
    r = _result(observed={"nvidia.com/gpu": 8, "cpu": "64"}, expected=["a", "b"], path="$.x")
    out = policyreport.policy_result(r, None, {"seconds": 0, "nanos": 0})
    assert out["properties"] == {"path": "$.x", "observed": '{"cpu":"64","nvidia.com/gpu":8}', "expected": '["a","b"]'}
    big = policyreport.policy_result(_result(observed="y" * 10_000), None, {"seconds": 0, "nanos": 0})
    assert big["properties"]["observed"] == "y" * policyreport.MAX_PROPERTY + "... (5904 more characters)"


def test_cli_policyreport_of_the_lab_would_be_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    """``verdict audit examples/lab-cluster.yaml --format policyreport``: every item passes the CRD schema
    (standing in for ``kubectl apply --dry-run``, which needs a cluster and is not available here)."""
    case_reports("lab")
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(main, ["audit", "examples/lab-cluster.yaml", "--format", "policyreport", "--fail-on", "never"])
    assert result.exit_code == 0, result.output
    items = check_policyreport_list(yaml.safe_load(result.stdout))
    assert items and any(i["kind"] == "ClusterPolicyReport" for i in items)


# ----------------------------------------------------------------------------------------- SARIF


@functools.cache
def sarif_validator() -> jsonschema.Draft4Validator:
    schema = json.loads((SCHEMAS / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    return jsonschema.Draft4Validator(schema)


_URI_REFERENCE = re.compile(r"^[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=%]+$")


def check_sarif(text: str) -> dict[str, Any]:
    doc = json.loads(text)
    errors = sorted(sarif_validator().iter_errors(doc), key=str)
    assert not errors, f"{errors[0].message} at {list(errors[0].absolute_path)}"
    for run in doc["runs"]:
        rules = run["tool"]["driver"]["rules"]
        assert rules and run["tool"]["driver"]["name"] == "verdict"
        for res in run["results"]:
            assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
            for loc in res["locations"]:
                uri = loc.get("physicalLocation", {}).get("artifactLocation", {}).get("uri")
                assert uri is None or _URI_REFERENCE.match(uri), uri
    return dict(doc)


@pytest.mark.parametrize("all_results", [False, True])
@pytest.mark.parametrize("case", list(golden.CASES))
def test_sarif_validates_against_the_schema(case: str, all_results: bool) -> None:
    doc = check_sarif(render_many(case_reports(case), "sarif", all_results=all_results))
    assert len(doc["runs"]) == len(case_reports(case))


def test_sarif_levels_kinds_and_locations() -> None:
    doc = check_sarif(render(one(), "sarif"))
    [run] = doc["runs"]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == [
        "render-demo/gpu-allocatable",
        "render-demo/workload-label",
        "render-demo/gpu-limit",
        "render-demo/replicas-number",
    ]
    got = [
        (
            r["ruleId"].split("/")[1],
            r["kind"],
            r["level"],
            r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"],
            r["locations"][0]["physicalLocation"]["region"]["startLine"],
        )
        for r in run["results"]
    ]
    assert got == [
        ("gpu-allocatable", "fail", "error", "Node/gpu-node-2", 16),
        ("workload-label", "fail", "warning", "Node/gpu-node-2", 16),
        ("gpu-limit", "fail", "note", "Pod/ml-team/cuda-vectoradd", 26),
        ("replicas-number", "fail", "error", "Deployment/default/dashboard", 62),
    ]
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]} == {
        "tests/data/render/dump.yaml"
    }
    rule = run["tool"]["driver"]["rules"][0]
    assert rule["helpUri"].startswith("https://docs.nvidia.com/")
    assert rule["defaultConfiguration"] == {"level": "error"}
    assert run["tool"]["driver"]["rules"][1]["defaultConfiguration"] == {"level": "warning"}  # onFailure: warn
    assert run["automationDetails"] == {"id": "verdict/tests/data/render/dump.yaml/"}


def test_sarif_gives_no_line_in_a_compressed_file() -> None:
    """Trial 48: an object read from lab.yaml.gz had region.startLine 573, a line of the text the file holds, not
    of the file (an archive member had none already)."""
    from rules.errors import Source
    from rules.render.sarif import _physical

    assert _physical(Source("dumps/lab.yaml.gz", 1, 573)) == {"artifactLocation": {"uri": "dumps/lab.yaml.gz"}}
    assert _physical(Source("dumps/lab.yaml", 1, 573)) == {
        "artifactLocation": {"uri": "dumps/lab.yaml"},
        "region": {"startLine": 573},
    }


@pytest.mark.parametrize(
    ("references", "help_uri"),
    [
        (["https://kubernetes.io/a", "NVIDIA/gpu-operator@v25.10.1:controllers/state_manager.go"], "https://kubernetes.io/a"),
        (
            ["NVIDIA/gpu-operator@v25.10.1:controllers/state_manager.go", "kubevirt/kubevirt#6784"],
            "https://github.com/NVIDIA/gpu-operator/blob/v25.10.1/controllers/state_manager.go",
        ),
        (["kubevirt/kubevirt#6784"], "https://github.com/kubevirt/kubevirt/issues/6784"),
    ],
)
def test_sarif_help_uri_is_a_web_page_else_the_repository_source(references: list[str], help_uri: str) -> None:
    """Trial 48: 30 of the pack's 59 rules had no helpUri (their sources are owner/repo@ref:path), so code-scanning
    viewers showed no link. The first web page is the link, else the first repository source on GitHub."""
    from rules.render.sarif import reporting_descriptor

    assert reporting_descriptor({"id": "p/r", "references": references})["helpUri"] == help_uri


def test_sarif_level_table() -> None:
    assert [sarif.level("fail", s) for s in ("critical", "high", "medium", "low", "info")] == [
        "error",
        "error",
        "warning",
        "note",
        "note",
    ]
    assert (sarif.level("warn", "critical"), sarif.level("error", "info"), sarif.level("pass", "high")) == (
        "warning",
        "error",
        "none",
    )


def test_sarif_all_results_adds_pass_and_not_applicable() -> None:
    [run] = check_sarif(render(one(), "sarif", all_results=True))["runs"]
    kinds = Counter((r["kind"], r["level"]) for r in run["results"])
    assert kinds == {
        ("fail", "error"): 2,
        ("fail", "warning"): 1,
        ("fail", "note"): 1,
        ("pass", "none"): 3,
        ("notApplicable", "none"): 1,
    }


def test_sarif_archives_stdin_and_odd_paths() -> None:
    def obj(file: str, line: int) -> ObjectReport:
        return ObjectReport(ObjectRef("v1", "Node", "n1"), Source(file, 1, line), (_result(),))

    report = Report(
        objects=[
            obj("dumps/lab 1.tar.gz!must-gather/cluster/nodes.yaml", 12),
            obj("<stdin>", 4),
            obj("/var/dumps/a.yaml", 3),
            obj("c:weird.yaml", 0),
        ],
        input_errors=[InputError(Source("<stdin>", 2, 9), "YAML syntax error")],
        name="mixed",
    )
    [run] = check_sarif(render(report, "sarif"))["runs"]
    locs = [r["locations"][0] for r in run["results"]]
    assert locs[0]["physicalLocation"] == {
        "artifactLocation": {"uri": "dumps/lab%201.tar.gz", "properties": {"innerPath": "must-gather/cluster/nodes.yaml"}}
    }
    assert "physicalLocation" not in locs[1] and locs[1]["logicalLocations"][0]["fullyQualifiedName"] == "Node/n1"
    assert locs[2]["physicalLocation"] == {"artifactLocation": {"uri": "file:///var/dumps/a.yaml"}, "region": {"startLine": 3}}
    assert locs[3]["physicalLocation"] == {"artifactLocation": {"uri": "c%3Aweird.yaml"}}  # not a scheme
    [note] = run["invocations"][0]["toolExecutionNotifications"]
    assert note == {"level": "error", "message": {"text": "<stdin>, document 2, line 9: YAML syntax error"}}


def test_sarif_rules_without_report_rules_come_from_results() -> None:
    report = synthetic(2)
    [run] = check_sarif(render(report, "sarif"))["runs"]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == ["big-policy/rule-a"]


def test_sarif_one_run_per_dump() -> None:
    doc = check_sarif(render_many(case_reports("render-many"), "sarif"))
    assert [r["automationDetails"]["id"] for r in doc["runs"]] == [
        "verdict/tests/data/render/dump.yaml/",
        "verdict/tests/data/render/second-dump.yaml/",
    ]
    assert "toolExecutionNotifications" in doc["runs"][1]["invocations"][0]


def test_sarif_says_a_dump_nothing_could_be_read_from_was_not_audited() -> None:
    """Trial 82: a truncated archive read as nothing gave a run with executionSuccessful true and no result, which code
    scanning takes for a clean dump."""
    unread = _bad_input(2)
    unread.objects, unread.objects_read = [], 0
    doc = json.loads(render(unread, "sarif"))
    assert not list(sarif_validator().iter_errors(doc))
    [run] = doc["runs"]
    assert (run["invocations"][0]["executionSuccessful"], run["results"]) == (False, [])
    [partly] = check_sarif(render(_bad_input(2), "sarif"))["runs"]  # objects read beside the errors: audited
    assert partly["invocations"][0]["executionSuccessful"] is True


# ----------------------------------------------------------------------------------------- JUnit


@functools.cache
def junit_schema() -> xmlschema.XMLSchema:
    return xmlschema.XMLSchema(str(SCHEMAS / "junit-10.xsd"))


def check_junit(text: str) -> ET.Element:
    junit_schema().validate(text)
    return ET.fromstring(text)


@pytest.mark.parametrize("warn_as_failure", [False, True])
@pytest.mark.parametrize("case", list(golden.CASES))
def test_junit_validates_against_the_jenkins_xsd(case: str, warn_as_failure: bool) -> None:
    root = check_junit(render_many(case_reports(case), "junit", warn_as_failure=warn_as_failure))
    results = sum(len(r.results) + len(r.input_errors) for r in case_reports(case))
    assert int(root.get("tests", "0")) == results == len(root.findall("./testsuite/testcase"))


def test_junit_suites_cases_and_result_words() -> None:
    root = check_junit(render(one(), "junit"))
    # one suite per rule with results, in load order: the suites' counts are the roll-up by rule
    assert [{k: s.get(k) for k in ("name", "tests", "failures", "errors", "skipped")} for s in root.findall("testsuite")] == [
        {"name": "render-demo/gpu-allocatable", "tests": "2", "failures": "1", "errors": "0", "skipped": "0"},
        {"name": "render-demo/workload-label", "tests": "2", "failures": "0", "errors": "0", "skipped": "0"},
        {"name": "render-demo/gpu-limit", "tests": "3", "failures": "1", "errors": "0", "skipped": "1"},
        {"name": "render-demo/replicas-number", "tests": "1", "failures": "0", "errors": "1", "skipped": "0"},
    ]
    first = root.find("testsuite")
    assert first is not None
    assert [(p.get("name"), p.get("value")) for p in first.findall("properties/property")] == [
        ("policy.version", "1.2.0"),
        ("severity", "critical"),
        ("dump", "tests/data/render/dump.yaml"),
    ]
    cases = {c.get("name"): c for c in root.findall("testsuite/testcase")}
    failure = cases["Node/gpu-node-2: gpu-allocatable"].find("failure")
    assert failure is not None and failure.get("type") == "critical"
    assert failure.get("message") == "node gpu-node-2 advertises 0 nvidia.com/gpu | expected > 0"
    assert cases["Node/gpu-node-2: gpu-allocatable"].get("classname") == "render-demo.gpu-allocatable"
    warn = cases["Node/gpu-node-2: workload-label"]
    assert warn.find("failure") is None and (warn.findtext("system-out") or "").startswith("WARN ")
    assert not (warn.findtext("system-out") or "").startswith("WARN warn")  # trial 51: the label once
    error = cases["Deployment/default/dashboard: replicas-number"].find("error")
    assert error is not None and error.get("type") == "error"
    skipped = cases["Pod/default/web: gpu-limit"].find("skipped")
    assert skipped is not None and skipped.get("message") == "the pod is not labelled gpu=yes"
    assert list(cases["Pod/ml-team/trainer: gpu-limit"]) == []


def test_junit_group_by_object_has_a_suite_per_object_and_keeps_each_test_case() -> None:
    by_rule = check_junit(render(one(), "junit"))
    root = check_junit(render(one(), "junit", group_by="object"))
    assert [(s.get("name"), s.get("tests"), s.get("failures"), s.get("errors")) for s in root.findall("testsuite")] == [
        ("Node/gpu-node-1", "2", "0", "0"),
        ("Node/gpu-node-2", "2", "1", "0"),
        ("Pod/ml-team/cuda-vectoradd", "1", "1", "0"),
        ("Pod/ml-team/trainer", "1", "0", "0"),
        ("Pod/default/web", "1", "0", "0"),
        ("Deployment/default/dashboard", "1", "0", "1"),
    ]
    node2 = root.find("testsuite[@name='Node/gpu-node-2']/properties/property[@name='source']")
    assert node2 is not None and node2.get("value") == "tests/data/render/dump.yaml, document 1, items[1], line 16"

    # the same test cases (classname and name) in either layout, so CI history follows them
    def ids(r: ET.Element) -> list[tuple[str | None, str | None]]:
        return sorted((c.get("classname"), c.get("name")) for c in r.iter("testcase"))

    assert ids(root) == ids(by_rule) and len(ids(root)) == 8
    assert root.get("tests") == by_rule.get("tests") == "8" and root.get("failures") == by_rule.get("failures") == "2"
    with pytest.raises(ValueError, match="unknown group_by 'policy'"):
        render(one(), "junit", group_by="policy")


def test_junit_warn_as_failure() -> None:
    root = check_junit(render(one(), "junit", warn_as_failure=True))
    case = root.find("./testsuite/testcase[@name='Node/gpu-node-2: workload-label']")
    assert case is not None and case.find("failure") is not None and case.find("failure").get("type") == "warn"  # type: ignore[union-attr]
    assert root.get("failures") == "3"


def test_junit_suites_per_dump_and_input_errors() -> None:
    root = check_junit(render_many(case_reports("render-many"), "junit"))
    assert [s.get("name") for s in root.findall("testsuite")] == [
        "tests/data/render/dump.yaml: render-demo/gpu-allocatable",
        "tests/data/render/dump.yaml: render-demo/workload-label",
        "tests/data/render/dump.yaml: render-demo/gpu-limit",
        "tests/data/render/dump.yaml: render-demo/replicas-number",
        "tests/data/render/second-dump.yaml: render-demo/gpu-allocatable",
        "tests/data/render/second-dump.yaml: render-demo/gpu-limit",
        "tests/data/render/second-dump.yaml: verdict: input",
    ]
    assert root.find("./testsuite/testcase[@classname='verdict.input']/error") is not None
    # trial 48: GitLab tells test cases apart by classname and name, not by suite: each case names its dump, so
    # the same object and rule in two dumps (two clusters) are two tests
    east, west = copy.copy(one()), copy.copy(one())  # one() is the case's report itself: renamed copies
    east.name, west.name = "east.yaml", "west.yaml"
    keys = [(c.get("classname"), c.get("name")) for c in check_junit(render_many([east, west], "junit")).iter("testcase")]
    assert len(keys) == len(set(keys)) == 2 * len([c for c in check_junit(render(one(), "junit")).iter("testcase")])
    assert ("render-demo.gpu-allocatable", "west.yaml: Node/gpu-node-1: gpu-allocatable") in keys


def test_junit_drops_characters_xml_cannot_hold() -> None:
    report = Report(
        objects=[
            ObjectReport(
                ObjectRef("v1", "Node", "n1"), Source("a.yaml"), (_result(message="bell\x07 esc\x1b[31m nul\x00 ok\nline"),)
            )
        ]
    )
    root = check_junit(render(report, "junit"))
    failure = root.find("./testsuite/testcase/failure")
    assert failure is not None and failure.get("message") == "bell esc[31m nul ok\nline"


# -------------------------------------------------------------------------------------- Markdown


def _tables(text: str) -> list[list[str]]:
    """The Markdown tables of ``text``, each as its rows (header and delimiter row left out)."""
    tables: list[list[str]] = []
    run: list[str] = []
    for line in [*text.splitlines(), ""]:
        if line.startswith("|"):
            run.append(line)
        elif run:
            tables.append(run[2:])
            run = []
    return tables


def _table_rows(text: str) -> list[str]:
    """The rows of the details table (the last table)."""
    return _tables(text)[-1]


def test_a_short_markdown_report_keeps_its_messages_and_fixes_whole() -> None:
    """Trial 65: a one-finding report of 1,500 characters cut its fix at 100, losing the kubectl label command at the
    end of it. Up to markdown.WHOLE_UP_TO findings are written whole when the whole text fits the limit; else the
    cells are cut as for many findings."""
    fix = "kubectl get pods -A -o wide --field-selector spec.nodeName=object-00000; or, if it is meant for another workload: " + (
        "kubectl label node object-00000 --overwrite nvidia.com/gpu.workload.config=vm-passthrough"
    )
    report = synthetic(1, message_len=300)
    report.objects[0] = ObjectReport(
        report.objects[0].ref, report.objects[0].source, (replace(report.objects[0].results[0], remediation=fix),)
    )
    [row_] = _table_rows(render(report, "markdown"))
    # each command a code span (trial 179)
    spanned = "`kubectl get pods -A -o wide --field-selector spec.nodeName=object-00000`; or, if it is meant for another " + (
        "workload: `kubectl label node object-00000 --overwrite nvidia.com/gpu.workload.config=vm-passthrough`"
    )
    assert spanned in row_ and "x" * 300 in row_
    # too long whole: the cells are cut as wide as the limit allows, so the row is shown and the room is used
    # (trial 68: at 1,900 characters the one fix was cut at 100 with 611 unused; at 600 the finding was not shown)
    # Trial 100: a cut fix keeps the command it ends with, after as much of its start as fits, but (trial 104) not
    # one left without what says when to run it ("or, if it is meant for another workload:"): the start then
    # (the room a cell's width leaves: at 700 the fix is whole only at widths whose message no longer fits)
    for limit, fix_shown, length in (
        (500, "`kubectl get pods -A -o wide --field-selector spec.nodeName=object-000…`", 499),
        # (trial 171: never inside the command after it, half a command to paste)
        (600, "`kubectl get pods -A -o wide --field-selector spec.nodeName=object-00000`;…", 600),
        # (trial 239 #3: the room left, and a little of the cells', says they were cut)
        (700, "`kubectl get pods -A -o wide --field-selector spec.nodeName=object-00000`;…", 700),
        (800, spanned, 800),
    ):
        text = render(report, "markdown", limit=limit)
        [cut_row] = _table_rows(text)
        assert len(text) == length, (limit, len(text))
        assert cut_row.split(" | ")[-1].removesuffix(" |") == fix_shown, limit
        assert cut_row.count("x") < 300
    assert spanned in _table_rows(render(report, "markdown", limit=800))[0]
    # more findings than WHOLE_UP_TO: cut cells, even where the whole text would fit
    many = synthetic(markdown.WHOLE_UP_TO + 1, message_len=200)
    rows = _table_rows(render(many, "markdown", limit=100_000))
    assert len(rows) == markdown.WHOLE_UP_TO + 1 and all("x" * 200 not in r for r in rows)


def test_markdown_says_when_a_cell_it_shows_was_shortened() -> None:
    """Trial 239 #3: every row was shown, their message cells shortened to fit (the asides naming the label and the
    resource written "(…)"), and nothing said so, nor how to see them whole: chat says it of what it cuts. A line under
    the rows says it where a cell shown was shortened, within the limit, in room each cell gives up a little of; none
    where no cell was, without a limit, or where it would take a row or most of one row's cells."""
    note = "_… marks cells cut to fit: `--limit 0` or `limit=0` shows them whole._"
    assert markdown.SHORTENED == note
    six = synthetic(6, message_len=300, distinct=True)
    for limit in (1500, 2000, 2500):
        text = render(six, "markdown", limit=limit)
        rows = _table_rows(text)
        assert len(text) <= limit and text.endswith(f"\n\n{note}\n"), limit
        assert len(rows) == 6 and all("x" * 290 not in r and "…" in r for r in rows), limit
    whole = render(six, "markdown", limit=3500)  # every cell fits whole
    assert note not in whole and len(_table_rows(whole)) == 6 and "x" * 290 in whole
    assert note not in render(six, "markdown", limit=0)
    # more rows than are written whole first: cut to their usual widths, all shown
    many = render(synthetic(markdown.WHOLE_UP_TO + 1, message_len=200, distinct=True), "markdown", limit=100_000)
    assert len(_table_rows(many)) == markdown.WHOLE_UP_TO + 1 and many.endswith(f"\n\n{note}\n")
    # rows left out: the closing line says how to see everything, as before, and no second line
    cut = render(synthetic(200, message_len=300, distinct=True), "markdown")
    assert note not in cut and cut.rstrip().endswith("`--limit 0` or `limit=0`: all)._")
    # one row: its cells keep their room (test_a_short_markdown_report_keeps_its_messages_and_fixes_whole)
    assert note not in render(synthetic(1, message_len=300), "markdown", limit=650)


def test_a_short_report_whose_rows_fit_only_as_stubs_shows_fewer_rows() -> None:
    """Trial 110: 13 findings under the 3,500-character default were all shown with message and fix cells of about 35
    characters, which named the object and no more ("Node worker-gpu-p0.ocp.example.com…"), and nothing said they
    were cut. Where every row fits only narrower than markdown.USEFUL, fewer rows of the usual widths are shown and
    the rest counted. (Distinct messages: one said again of each object is one short row a finding, trial 226 #3.)"""
    report = synthetic(13, message_len=300, distinct=True)
    text = render(report, "markdown", limit=2000)
    rows = _table_rows(text)
    assert 0 < len(rows) < 13
    assert all(len(r.split(" | ")[-2]) >= markdown.USEFUL for r in rows), rows
    assert text.rstrip().endswith(
        f"_… {13 - len(rows)} more findings not shown (limit 2,000 characters; `--limit 0` or `limit=0`: all)._"
    )


def test_markdown_is_cut_to_the_limit_with_a_closing_line() -> None:
    report = synthetic(200, message_len=60)
    text = render(report, "markdown")
    assert len(text) <= markdown.LIMIT
    rollup, details = _tables(text)
    assert rollup == [
        "| `big-policy/rule-a` | high | 200 fail | `Node/object-00000`, `Node/object-00001`, `Node/object-00002` and 197 more |"
    ]
    shown = len(details)
    assert 10 < shown < 200
    assert text.rstrip().endswith(
        f"_… {200 - shown} more findings not shown (limit 3,500 characters; `--limit 0` or `limit=0`: all)._"
    )
    discord = render(report, "markdown", limit=1900)
    assert len(discord) <= 1900 and "(limit 1,900 characters; `--limit 0` or `limit=0`: all)" in discord
    assert len(_table_rows(render(report, "markdown", limit=0))) == 200
    with pytest.raises(ValueError, match="below 500"):
        render(report, "markdown", limit=100)


@pytest.mark.parametrize("limit", [500, 700, 1000, 1900])
def test_markdown_fits_the_limit_with_many_long_assumption_notes(limit: int) -> None:
    """Regression (a chatops trial): the assumption notes under the summary line were never cut, so a message
    asked to fit 500 or 1,000 characters came out at ~1,170 for any dump without a ClusterPolicy (the lab's
    nodes): a chat platform would refuse it. As many as fit half the message are named, the rest counted."""
    report = synthetic(20, message_len=60)
    report.notes = [f"assumed: assumption number {i} " + "because the dump lacks the deciding object " * 6 for i in range(3)]
    text = render(report, "markdown", limit=limit)
    assert len(text) <= limit
    named = [x for x in text.splitlines() if x.startswith("_assumed: ")]
    counted_line = [x for x in text.splitlines() if "assumption note" in x]
    assert len(named) + int(counted_line[0].split()[1]) == 3 if counted_line else len(named) == 3
    if limit == 500:
        assert named == [] and counted_line == [
            "_… 3 assumption notes in the JSON report (`--format json`; `format=json` from the service)_"
        ]
    if limit == 1900:
        assert len(named) == 2 and counted_line == [
            "_… 1 more assumption note in the JSON report (`--format json`; `format=json` from the service)_"
        ]
    # without a limit, every note is named
    assert len([x for x in render(report, "markdown", limit=0).splitlines() if x.startswith("_assumed: ")]) == 3


def test_markdown_puts_input_errors_right_under_the_summary() -> None:
    """Regression (a new user's trial): a lost document came after the assumption and skip notes, where
    docs/report-formats.md puts it under the first line."""
    report = _bad_input(1)
    report.notes = ["assumed: something", "skipped: a reason (2 results of p/r; the rule judged no object)"]
    lines = render(report, "markdown").splitlines()
    assert lines[1].startswith("- dumps/lab.yaml, document 3, line 7: YAML syntax error number 0")
    assert lines[2:4] == ["_assumed: something_", "_skipped: a reason (2 results of p/r; the rule judged no object)_"]


def test_markdown_names_what_was_not_read() -> None:
    """Regression (a chatops trial): the note that the text around a chat message's code blocks was set aside was in
    the JSON report only; the Markdown answer a bot relays did not say that part of the message was not judged."""
    report = synthetic(2, message_len=20)
    report.notes = [
        "assumed: something",
        "<body>: read inside its fenced Markdown code blocks; 3 lines of text and other blocks set aside",
        "skipped: a reason (2 results of p/r; the rule judged no object)",
        "x.tgz: 1 file not read: neither ... (x.tgz!app.log)",
        "a third note",
    ]
    lines = render(report, "markdown").splitlines()
    assert lines[1:5] == [
        "_assumed: something_",
        "_note: <\u200bbody>: read inside its fenced Markdown code blocks; 3 lines of text and other blocks set aside_",
        "_note: x.tgz: 1 file not read: neither ... (x.tgz!app.log)_",
        "_… 1 more note in the JSON report (`--format json`; `format=json` from the service)_",
    ]
    # without a limit, every one
    assert "_note: a third note_" in render(report, "markdown", limit=0).splitlines()
    # at the least limit they do not fit: counted, so that the message still says some were left out (a trial)
    report.notes = report.notes[1:2]
    tight = render(report, "markdown", limit=500)
    assert len(tight) <= 500
    assert tight.splitlines()[1] == "_… 1 note in the JSON report (`--format json`; `format=json` from the service)_"


def test_markdown_summary_and_escaping() -> None:
    text = render(one(), "markdown")
    first = text.splitlines()[0]
    assert first == (
        "**verdict** tests/data/render/dump.yaml: 6 objects judged (6 read) · 3 pass · 2 fail (1 critical, 1 low)"
        " · 1 warn (1 medium) · 1 error · 1 skip"
    )
    rows = _table_rows(text)
    assert [r.split(" | ")[2] for r in rows] == ["error · info", "fail · critical", "fail · low", "warn · medium"]
    assert "advertises 0 nvidia.com/gpu \\| expected > 0" in rows[1]
    assert all(r.count(" | ") == 4 for r in rows)  # five cells each: no | or line break leaked from a message
    assert markdown.cell("a|b\nc\r\n d") == "a\\|b c d"
    assert markdown.cell("x" * 300).endswith("…") and len(markdown.cell("x" * 300)) == markdown.CELL


def test_markdown_fix_cell_writes_each_command_as_a_code_span() -> None:
    """Trial 179: the stop after "... | grep gpu-ignored-vm-label." stood glued to the command in the Fix cell, where
    a reader copying it took the stop into grep's pattern; each command is a code span now, ended where the command
    ends (its stop, comment, clause or aside), a loop to its done, a chain of && whole."""
    fix = (
        "The operator sets these labels itself, so first check it runs: kubectl logs -n gpu-operator deploy/gpu-operator"
        " | grep node-a. To fix it by hand (nvidia.com/gpu.deploy.*): for l in x y; do kubectl label node node-a $l-; done"
    )
    assert markdown.cell(fix, 1000, command=True) == (
        "The operator sets these labels itself, so first check it runs: "
        "`kubectl logs -n gpu-operator deploy/gpu-operator \\| grep node-a`. To fix it by hand (nvidia.com/gpu.deploy.\\*): "
        "`for l in x y; do kubectl label node node-a $l-; done`"
    )
    chained = 'kubectl label node a k=v && kubectl patch cp p --type merge -p \'{"a": 1, "b": 2}\' # then wait'
    assert markdown.cell(chained, 1000, command=True) == (
        '`kubectl label node a k=v && kubectl patch cp p --type merge -p \'{"a": 1, "b": 2}\'` # then wait'
    )
    aside = "kubectl get pod -n ml p -o yaml > pod.yaml, edit it and kubectl replace --force -f pod.yaml (a Pod's spec)"
    assert markdown.cell(aside, 1000, command=True) == (
        "`kubectl get pod -n ml p -o yaml > pod.yaml`, edit it and `kubectl replace --force -f pod.yaml` (a Pod's spec)"
    )
    # a cut ends inside a command: the span holds the mark, so that no cut command reads whole (trial 186)
    two = "kubectl describe node a | grep -A20 Allocatable; kubectl get pods -A -o wide --field-selector spec.nodeName=a"
    assert markdown.cell(two, 60, command=True) == "`kubectl describe node a \\| grep -A20 Allocatable`;…"
    assert markdown.cell(two, 40, command=True) == "`kubectl describe node a \\| grep -A20 All…`"


def _bad_input(n: int) -> Report:
    report = synthetic(2, message_len=20)
    report.input_errors = [
        InputError(Source("dumps/lab.yaml", 3 + i, 10 * i + 7), f"YAML syntax error number {i}", "$.spec" if i == 1 else "")
        for i in range(n)
    ]
    return report


def test_markdown_names_up_to_three_input_errors_under_the_summary() -> None:
    lines = render(_bad_input(5), "markdown").splitlines()
    assert lines[:6] == [
        "**verdict** big.yaml: 2 objects judged (2 read) · 0 pass · 2 fail (2 high) · 0 warn · 0 error · 0 skip · 5 input errors",
        "- dumps/lab.yaml, document 3, line 7: YAML syntax error number 0",
        "- dumps/lab.yaml, document 4, line 17 at $.spec: YAML syntax error number 1",
        "- dumps/lab.yaml, document 5, line 27: YAML syntax error number 2",
        "- and 2 more (`--limit 0` or `limit=0` names each)",
        "",
    ]
    assert render(_bad_input(3), "markdown").splitlines()[4] == ""  # three named, no "and 0 more"
    one = render(_bad_input(1), "markdown").splitlines()
    assert one[0].endswith(" · 1 input error") and one[1:3] == [
        "- dumps/lab.yaml, document 3, line 7: YAML syntax error number 0",
        "",
    ]
    assert markdown.input_error_lines(synthetic(1)) == []


def test_markdown_without_a_limit_names_every_input_error() -> None:
    """Regression: limit=0 (no cut) still named three input errors and counted the rest."""
    lines = render(_bad_input(5), "markdown", limit=0).splitlines()
    assert lines[1:7] == [
        "- dumps/lab.yaml, document 3, line 7: YAML syntax error number 0",
        "- dumps/lab.yaml, document 4, line 17 at $.spec: YAML syntax error number 1",
        "- dumps/lab.yaml, document 5, line 27: YAML syntax error number 2",
        "- dumps/lab.yaml, document 6, line 37: YAML syntax error number 3",
        "- dumps/lab.yaml, document 7, line 47: YAML syntax error number 4",
        "",
    ]
    # and every skip note (three by default, then "N more skip or not-applied notes in the JSON report")
    report = Report(notes=[f"skipped: reason {i} (1 result of p/r{i}; the rule judged no object)" for i in range(5)])
    assert [x for x in render(report, "markdown", limit=0).splitlines() if x.startswith("_")] == [
        f"_skipped: reason {i} (1 result of p/r{i}; the rule judged no object)_" for i in range(5)
    ]
    cut = [x for x in render(report, "markdown").splitlines() if x.startswith("_")]
    assert len(cut) == 4 and cut[3].startswith("_… 2 more skip or not-applied notes in the JSON report")


def test_markdown_input_error_lines_leave_room_for_the_closing_line() -> None:
    report = _bad_input(3)
    report.input_errors = [InputError(Source("d.yaml", i + 1, 1), "r" * 300) for i in range(3)]
    report.name = "n" * 200
    for limit in (500, 600, 900):
        text = render(report, "markdown", limit=limit)
        assert len(text) <= limit, limit
        assert text.rstrip().endswith(f"(limit {limit:,} characters; `--limit 0` or `limit=0`: all)._")
    # one named in the room left, the others counted with the way to them (trial 240 #6: "- and 2 more" said none)
    named, more = render(report, "markdown", limit=550).splitlines()[1:3]
    assert named.startswith("- d.yaml, document 1, line 1: r") and more == "- and 2 more (`--limit 0` or `limit=0` names each)"
    assert "- d.yaml" not in render(report, "markdown", limit=500)  # none fits with that line: the summary counts them
    assert render(report, "markdown", limit=900).splitlines()[3].startswith("- d.yaml, document 3, line 1: r")
    assert markdown.input_error_lines(report, room=50) == []  # none fits: the summary line counts them


def test_markdown_escapes_chat_markup_from_the_dump() -> None:
    zw = "\u200b"
    hostile = "ping <@U024BE7LH> and <!channel>, see [docs](https://evil.example) or <https://x.example|here> | `rm -rf`"
    report = Report(
        objects=[
            ObjectReport(
                ObjectRef("v1", "Node", "a`b``c"),
                Source("d.yaml", 1, 1),
                (_result(message=hostile, remediation="kubectl label node x <value>"),),
            )
        ],
        input_errors=[InputError(Source("<body>", 2, 3), "bad <!here> [x](y)")],
        objects_read=1,
    )
    lines = render(report, "markdown", limit=0).splitlines()
    assert lines[1] == f"- <{zw}body>, document 2, line 3: bad <{zw}!here> [x]{zw}(y)"
    [row] = _table_rows("\n".join(lines))
    assert row == (
        f"| `big-policy/rule-a` | ```Node/a`b``c``` | fail · high | ping <{zw}@{zw}U024BE7LH> and <{zw}!channel>, see "
        f"[docs]{zw}(https:{zw}//evil.example) or <{zw}https:{zw}//x.example\\|here> \\| `rm -rf` | `kubectl label node x"
        " <value>` |"  # (a placeholder in a command's code span holds no zero-width space: trial 187)
    )
    # Once the zero-width spaces are taken out, the text is the dump's own (nothing else changed).
    assert row.replace(zw, "").count("<@U024BE7LH>") == 1
    assert markdown._code("`edge`") == "`` `edge` ``"
    assert markdown._code("plain") == "`plain`"


def test_markdown_sections_per_dump_share_one_limit() -> None:
    """Each dump's section within one limit; the index under the total line names each dump whatever the limit cuts."""
    reports = [synthetic(40, message_len=80, distinct=True), case_reports("render-many")[1]]
    text = render_many(reports, "markdown", limit=1500)
    assert len(text) <= 1500
    assert text.startswith("**verdict** 2 dumps: 42 objects judged")
    # trial 154: each dump is named under the total line, the one cut out of the message too, input errors first
    assert text.splitlines()[1:3] == [
        "- tests/data/render/second-dump.yaml: 1 fail (1 critical) · 1 input error (YAML syntax error: did not find"
        " expected ',' or '}' (while parsing a flow mapping that starts at li…)",
        "- big.yaml: 40 fail (40 high)",
    ]
    # the dump with the input error and the critical finding comes first (trial 230 #2: sections in the index's order);
    # big.yaml's heading, roll-up row and findings are counted in the closing line
    assert text.index("### tests/data/render/second-dump.yaml") > 0 and "### big.yaml" not in text
    assert text.rstrip().endswith(
        "_… 1 more rule of the roll-up, 41 findings and 1 more dump not shown (limit 1,500 characters; "
        "`--limit 0` or `limit=0`: all)._"
    )
    full = render_many(reports, "markdown", limit=0)
    assert "### big.yaml" in full and "### tests/data/render/second-dump.yaml" in full


# ----------------------------------------------------------------------------------------- table


def test_table_colour_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert "\x1b[" not in table.render(one(), color=False)
    assert "\x1b[" in table.render(one(), color=True)


def test_cli_table_to_a_pipe_has_no_colour(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(
        main,
        [
            "audit",
            "tests/data/render/dump.yaml",
            "-p",
            "tests/data/render/policy.yaml",
            "--format",
            "table",
            "--fail-on",
            "never",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "\x1b[" not in result.stdout
    assert "is not one of [container, vm-passthrough," in result.stdout  # not eaten as rich markup


def test_a_huge_value_in_the_dump_never_breaks_a_format() -> None:
    """Regression (issue 12 item 10): a 5 MB label value made format=policyreport answer 500 and the CLI print a
    traceback ("one result ... needs 5247878 bytes"). Messages and observed values are clipped with a marker."""
    from rules.engine import audit_bytes
    from rules.loader import load_policies
    from rules.render import FORMATS, render

    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": "n",
            "labels": {"nvidia.com/gpu.workload.config": "x" * 5_000_000, "nvidia.com/gpu.present": "true"},
        },
    }
    report = audit_bytes(__import__("json").dumps(node).encode(), "huge.json", load_policies())
    [result] = [r for o in report.objects for r in o.results if r.rule == "workload-label-valid"]
    assert result.result == "fail"
    assert len(result.message) < 8300 and result.message.endswith("more characters]")
    for fmt in FORMATS:
        text = render(report, fmt)
        # (SARIF describes each of the pack's 86 rules: about 200 KB; the value alone would be 5 MB)
        assert len(text) < 300_000, fmt


def test_markdown_never_carries_live_chat_markup_from_the_dump() -> None:
    """Regression (issue 12 item 13): @everyone, @here, bare URLs and code fences from a label value were live
    in the chat summary: a bot could ping a whole channel because of a dump."""
    from rules.render.markdown import inert

    zw = "\u200b"
    assert inert("ping @everyone and @here, <!channel>") == f"ping @{zw}everyone and @{zw}here, <{zw}!channel>"
    assert inert("see https://evil.example/x") == f"see https:{zw}//evil.example/x"
    assert inert("```rm -rf``` ~~~") == f"`{zw}`{zw}`rm -rf`{zw}`{zw}` ~{zw}~{zw}~"
    assert inert("mail a@b.c") == f"mail a@{zw}b.c"
    assert inert("plain text: nvidia.com/gpu=1") == "plain text: nvidia.com/gpu=1"


# -------------------------------------------------------------------------------------- roll-up


def _many_rules(per_rule: dict[str, tuple[str, str, int]]) -> Report:
    """A report with, for each rule id, ``n`` results of ``word`` at ``severity`` on ``n`` distinct Nodes."""
    objects = []
    for rule, (word, severity, n) in per_rule.items():
        for i in range(n):
            result = _result(word, f"node {rule}-{i} is wrong", rule=rule, severity=severity, remediation=f"fix {rule}-{i}")
            objects.append(ObjectReport(ObjectRef("v1", "Node", f"{rule}-{i:05d}"), Source("big.yaml", 1, 1 + i, i), (result,)))
    return Report(objects=objects, objects_read=len(objects), name="big.yaml", generated=golden.GENERATED)


def test_rollup_counts_findings_by_rule_worst_first_with_three_examples() -> None:
    report = one()
    rollup = report.by_rule()
    assert [x.to_dict() for x in rollup] == [
        {
            "rule": "render-demo/replicas-number",
            "policy": "render-demo",
            "title": "Deployments give a replica count that is a number",
            "severity": "info",
            "fail": 0,
            "warn": 0,
            "error": 1,
            "objects": 1,
            "examples": ["Deployment/default/dashboard"],
        },
        {
            "rule": "render-demo/gpu-allocatable",
            "policy": "render-demo",
            "title": "GPU nodes advertise their GPUs",
            "severity": "critical",
            "fail": 1,
            "warn": 0,
            "error": 0,
            "objects": 1,
            "examples": ["Node/gpu-node-2"],
        },
        {
            "rule": "render-demo/gpu-limit",
            "policy": "render-demo",
            "title": "GPU pods set a GPU limit",
            "severity": "low",
            "fail": 1,
            "warn": 0,
            "error": 0,
            "objects": 1,
            "examples": ["Pod/ml-team/cuda-vectoradd"],
        },
        {
            "rule": "render-demo/workload-label",
            "policy": "render-demo",
            "title": "The workload label has a value the GPU Operator knows",
            "severity": "medium",
            "fail": 0,
            "warn": 1,
            "error": 0,
            "objects": 1,
            "examples": ["Node/gpu-node-2"],
        },
    ]
    assert report.by_rule() is rollup  # computed once, for every renderer
    many = _many_rules(
        {"a": ("fail", "low", 5), "b": ("fail", "high", 2), "c": ("warn", "critical", 9), "d": ("fail", "high", 7)}
    )
    assert [(x.rule, x.counts(), x.examples) for x in many.by_rule()] == [
        ("big-policy/d", "7 fail", ("Node/d-00000", "Node/d-00001", "Node/d-00002")),  # high, more findings than b
        ("big-policy/b", "2 fail", ("Node/b-00000", "Node/b-00001")),
        ("big-policy/a", "5 fail", ("Node/a-00000", "Node/a-00001", "Node/a-00002")),  # low: after the high ones
        ("big-policy/c", "9 warn", ("Node/c-00000", "Node/c-00001", "Node/c-00002")),  # warnings only: last
    ]


def test_rollup_is_a_member_of_the_native_report_and_of_the_sarif_run_and_follows_the_filters() -> None:
    report = one()
    data = json.loads(render(report, "json"))
    assert list(data)[4:7] == ["summary", "rollup", "policies"]  # right after the summary
    assert data["rollup"] == [x.to_dict() for x in report.by_rule()]
    assert yaml.safe_load(render(report, "yaml"))["rollup"] == data["rollup"]
    run = json.loads(render(report, "sarif"))["runs"][0]
    assert run["properties"]["rollup"] == data["rollup"]
    warned = report.filtered({"warn"})
    assert [x.rule for x in warned.by_rule()] == ["render-demo/workload-label"]  # what is listed, rolled up
    assert warned.summary()["results"]["fail"] == 2  # while the summary counts the whole audit


def test_markdown_of_thousands_of_failures_leads_with_the_whole_rollup_and_cuts_in_the_details() -> None:
    report = _many_rules({"a": ("fail", "high", 6000), "b": ("fail", "critical", 3000), "c": ("warn", "medium", 2127)})
    for limit in (3500, 1900, 700):
        text = render(report, "markdown", limit=limit)
        assert len(text) <= limit, limit
        lines = text.splitlines()
        assert lines[0].startswith(
            "**verdict** big.yaml: 11,127 objects judged (11,127 read) · 0 pass · 9,000 fail (3,000 critical, 6,000 high)"
        )
        rollup, *rest = _tables(text)
        details = rest[0] if rest else []
        assert len(details) > (3 if limit > 700 else -1)
        assert rollup == [
            "| `big-policy/b` | critical | 3,000 fail | `Node/b-00000`, `Node/b-00001`, `Node/b-00002` and 2,997 more |",
            "| `big-policy/a` | high | 6,000 fail | `Node/a-00000`, `Node/a-00001`, `Node/a-00002` and 5,997 more |",
            "| `big-policy/c` | medium | 2,127 warn | `Node/c-00000`, `Node/c-00001`, `Node/c-00002` and 2,124 more |",
        ]
        more = "more " if details else ""  # trial 70: "more" only where some were shown
        closing = (
            f"_… {11127 - len(details):,} {more}findings not shown (limit {limit:,} characters; `--limit 0` or `limit=0`: all)._"
        )
        assert text.rstrip().endswith(closing)
    # grouped by rule: the worst rule's findings first, its id on the first row only
    details = _table_rows(render(report, "markdown"))
    assert details[0].startswith("| `big-policy/b` | `Node/b-00000` | fail · critical | node b-0 is wrong | fix b-0 |")
    assert details[1].startswith("|  | `Node/b-00001` | fail · critical |")


def test_markdown_rollup_longer_than_the_limit_is_cut_too_and_counted() -> None:
    report = _many_rules({f"rule-{i:02d}": ("fail", "high", 2) for i in range(60)})
    text = render(report, "markdown", limit=1000)
    assert len(text) <= 1000
    [rollup] = _tables(text)  # no room left for the details
    assert text.rstrip().endswith(
        f"_… {60 - len(rollup)} more rules of the roll-up and 120 findings not shown (limit 1,000 characters; "
        "`--limit 0` or `limit=0`: all)._"
    )


def test_markdown_group_by_object_puts_each_object_first_worst_object_first() -> None:
    rows = _table_rows(render(one(), "markdown", group_by="object"))
    assert [r.split(" | ")[:3] for r in rows] == [
        ["| `Deployment/default/dashboard`", "`render-demo/replicas-number`", "error · info"],
        ["| `Node/gpu-node-2`", "`render-demo/gpu-allocatable`", "fail · critical"],
        ["| ", "`render-demo/workload-label`", "warn · medium"],
        ["| `Pod/ml-team/cuda-vectoradd`", "`render-demo/gpu-limit`", "fail · low"],
    ]
    assert render(one(), "markdown").count("| Rule | Object | Result | Message | Fix |") == 1
    assert render(one(), "markdown", group_by="object").count("| Object | Rule | Result | Message | Fix |") == 1


# ---------------------------------------------------------------------------------- terminal table


def _ids(report: Report) -> set[str]:
    return {str(o.ref) for o in report.objects} | {f"{r.policy}/{r.rule}" for _, r in report.results}


@pytest.mark.parametrize("width", [60, 100, 200])
@pytest.mark.parametrize("group_by", ["rule", "object"])
def test_table_fits_the_width_and_never_splits_an_id(width: int, group_by: str) -> None:
    from rich.cells import cell_len

    from rules.render.chat import fix_lines

    report = one("lab")
    text = table.render(report, width=width, group_by=group_by)
    lines = text.splitlines()
    # only a fix's command is wider, written whole (trial 173, 174: one wrapped at the width was copied as two lines)
    commands = {c for _, r in report.results if r.remediation for c in fix_lines(r.remediation)}
    commands |= {c.partition(" # ")[0] for c in commands if not c.startswith("# ")}
    wide = [line for line in lines if cell_len(line) > width]
    assert all(line.strip().removeprefix("fix: ") in commands for line in wide), (width, wide)
    if width >= 200:
        assert (
            len(wide) == 1 and "for l in nvidia.com/gpu.deploy.container-toolkit" in wide[0]
        )  # the lab's one loop of 280 columns
    findings = [(o, r) for o, r in report.results if r.result in ("fail", "warn", "error")]
    for obj, r in findings:
        # every object and rule with a finding is written whole on one line, and so is its place
        assert any(str(obj.ref) in line for line in lines), (width, str(obj.ref))
        assert any(f"{r.policy}/{r.rule}" in line for line in lines), (width, r.rule)
        assert any(table.where(obj) in line for line in lines), table.where(obj)
        # every word of the message and the fix is whole on a line, unless it is longer than a line
        for word in f"{r.message} fix: {r.remediation}".split():
            if cell_len(word) <= width - 6:
                # (a fix's line ends where a sentence or a command does, its "." or ";" left out)
                assert any(word in line.split() or word.rstrip(".;") in line.split() for line in lines), (width, word)
    assert "examples/lab-cluster.yaml:681" in text  # the object's file:line
    said = " ".join(line.strip() for line in lines)
    assert "fix: kubectl get pods -A -o wide --field-selector spec.nodeName=gpu-broken-label-typo" in said
    assert "# kubectl label node gpu-broken-label-typo --overwrite nvidia.com/gpu.workload.config=vm-passthrough" in said
    boxed = "┃ Rule" in text
    assert boxed == (width >= table.NARROW)  # compact: the roll-up is a list, not a table


def test_table_cuts_a_token_longer_than_a_line_and_says_so() -> None:
    long_id = "x" * 120
    report = Report(
        objects=[
            ObjectReport(ObjectRef("v1", "Node", long_id), Source("a.yaml", 1, 3), (_result(message=f"see {long_id} now"),))
        ],
        objects_read=1,
    )
    for width in (60, 100):
        lines = table.render(report, width=width).splitlines()
        assert max(len(line) for line in lines) <= width
        assert any(line.rstrip().endswith("x…") for line in lines)
    assert table.wrap("aaa bbb ccc", 7) == ["aaa bbb", "ccc"]
    assert table.wrap("aaaaaaaaaa b", 5, indent=2) == ["  aa…", "  b"]
    assert table.wrap("one\ntwo  three", 20, indent=1, first=0) == ["one", " two three"]


def test_table_cuts_a_long_place_at_its_front_keeping_file_and_line() -> None:
    """Trial 53: an OpenShift must-gather's folder (quay-io-openshift-release-dev-ocp-v4-0-art-dev-sha256-<64 hex>)
    pushed the file and line out of a finding's place, which was cut at its end: it is cut at its front."""
    folder = "must-gather.local.1/quay-io-openshift-release-dev-ocp-v4-0-art-dev-sha256-" + "4c2a" * 16
    place = f"{folder}/cluster-scoped-resources/core/nodes/worker-gpu-3.yaml"
    report = Report(
        objects=[ObjectReport(ObjectRef("v1", "Node", "worker-gpu-3"), Source(place, 1, 12), (_result(),))],
        objects_read=1,
    )
    for width, group_by in ((100, "rule"), (160, "rule"), (100, "object")):
        lines = table.render(report, width=width, group_by=group_by).splitlines()
        assert max(len(line) for line in lines) <= width
        cut = [line for line in lines if "…" in line and "worker-gpu-3.yaml:12" in line]
        assert cut and cut[0].rstrip().endswith("/cluster-scoped-resources/core/nodes/worker-gpu-3.yaml:12"), lines


def test_markdown_of_findings_only_counts_the_skip_notes() -> None:
    """Regression (new-user trial): ``results=fail,warn&format=markdown`` on the lab opened with three skip
    notes (~900 characters) that pushed 10 of its 13 findings past the default limit."""
    lab = one("lab")
    skips = [n for n in lab.notes if n.startswith(("not applied:", "skipped"))]  # the rules that did not judge
    assert len(skips) > 3
    whole = markdown.skip_lines(lab)
    assert len(whole) == 4 and whole[-1].startswith(f"_… {len(skips) - 3} more skip or not-applied notes in the JSON report")
    findings = markdown.skip_lines(lab.filtered({"fail", "warn"}))
    # none named, all counted (trial 187: a failed MIG change's chat message opened with a note on vGPU configs)
    assert findings == [
        f"_… {len(skips)} skip or not-applied notes in the JSON report (`--format json`; `format=json` from the service)_",
    ]
    # a filter that leaves nothing to list (a healthy dump) names the first still: why rules did not run
    assert markdown.skip_lines(lab.filtered({"error"})) == [
        whole[0],
        f"_… {len(skips) - 1} more skip or not-applied notes in the JSON report (`--format json`; `format=json` from"
        " the service)_",
    ]
    assert markdown.skip_lines(lab.filtered({"fail", "skip"})) == whole  # skips asked for: all three
    assert markdown.skip_lines(lab.filtered(None, "high")) == whole


def test_a_markdown_batch_keeps_its_room_for_the_dumps_with_findings() -> None:
    """Trial 82: in a nightly batch, a clean dump's skip notes filled the message, and the failing dump after it was
    "1 more dump not shown". A dump without findings gets its summary line alone."""
    clean = synthetic(3, word="pass")
    clean.name = "clean.tar.gz"
    clean.notes = [f"skipped: reason number {i} " + "y" * 280 for i in range(12)]
    failing = synthetic(2, message_len=50, distinct=True)
    failing.name = "failing.tar.gz"
    text = render_many([clean, failing], "markdown")
    # (after the failing one: sections are worst first, trial 230 #2)
    assert text.index("### failing.tar.gz") < text.index("### clean.tar.gz")
    assert text.endswith(
        "### clean.tar.gz\n**verdict**: 3 objects judged (3 read) · 3 pass · 0 fail · 0 warn · 0 error · 0 skip\n"
    )
    assert "reason number" not in text
    assert "object-00001: xxxx" in text and "not shown" not in text


def test_markdown_without_a_limit_names_every_note_whole() -> None:
    """Trial 79: ``limit=0`` (no cut) with ``results=fail,warn`` named one skip note of eleven and cut notes at 300
    characters."""
    lab = one("lab").filtered({"fail", "warn"})
    skips = [n for n in lab.notes if n.startswith(("not applied:", "skipped"))]
    text = render(lab, "markdown", limit=0)
    named = [x for x in text.splitlines() if x.startswith(("_not applied:", "_skipped"))]
    assert named == [f"_{markdown.line(n, len(n))}_" for n in skips]
    assert "more skip or not-applied note" not in text
    assert any(len(n) > 300 for n in skips)  # so that a cut one would show


def test_counts_past_a_thousand_are_written_with_separators() -> None:
    """A trial read "5500 objects judged ... 25500 pass ... 91500 skip" beside "3,500" everywhere else."""
    import yaml as _yaml
    from conftest import make_policy, make_rule, node

    from rules.evaluate import evaluate
    from rules.loader import PolicySet, load_policy_text
    from rules.reader import Dump, KObject

    ps = PolicySet(load_policy_text(_yaml.safe_dump(make_policy([make_rule()])), "p.yaml"))
    dump = Dump(objects=[KObject(node(f"n{i}"), Source("d.yaml", 1, 1, i)) for i in range(1_234)])
    report = evaluate(dump, ps, name="d.yaml")
    assert (
        table.render(report).splitlines()[0]
        == "1,234 objects judged (1,234 read); 1,234 results: 1,234 pass; no fail, warn or error"
    )
    assert markdown.render(report).splitlines()[0] == (
        "**verdict** d.yaml: 1,234 objects judged (1,234 read) · 1,234 pass · 0 fail · 0 warn · 0 error · 0 skip"
    )


def test_a_remediation_quoting_a_huge_value_is_clipped_like_a_message() -> None:
    """Trial 41: with a 1 MB name a remediation was 1,000,076 characters while the message beside it was clipped
    to 8,219. A remediation is clipped with the message's bound and marker."""
    import json

    from rules.engine import audit_bytes
    from rules.loader import PolicySet, load_policy_text

    policy = """\
apiVersion: verdict/v1
kind: Policy
metadata: {name: quoting}
spec:
  rules:
  - id: label-short
    title: the label is short
    match: {kinds: [Node]}
    assert: {path: "$.metadata.labels.team", matches: '^[a-z]{1,20}$'}
    message: "label team of {name} is too long"
    remediation: "kubectl label node {name} --overwrite team={team}"
    vars: {team: "$.metadata.labels.team"}
    references: ["https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/"]
"""
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n", "labels": {"team": "x" * 1_000_000}}}
    report = audit_bytes(json.dumps(node).encode(), "n.json", PolicySet(load_policy_text(policy, "quoting.yaml")))
    [result] = [r for o in report.objects for r in o.results]
    assert result.result == "fail"
    assert len(result.remediation) == 8192 + len("… [991,846 more characters]")
    assert result.remediation.endswith("… [991,846 more characters]")


def test_markdown_lists_the_results_a_filter_asks_for_and_says_when_it_leaves_none() -> None:
    """Trial 68: ``format=markdown&results=skip`` listed no skip (the details took findings only, while the skip
    notes said results=skip lists them), and ``minSeverity=critical`` on a report whose one finding is high gave
    "1 fail (1 high)" with nothing under it and no word of the filter."""
    lab = one("lab")
    skips = [(o.ref.name, r.rule) for o, r in lab.results if r.result == "skip"]
    text = render(lab.filtered({"skip"}), "markdown", limit=0)
    rows = _table_rows(text)
    assert len(rows) == len(skips) and all(" | skip · " in r for r in rows)
    assert "leaves no result to list" not in text
    # cut, they are counted as results, not findings (trial 70: "15 more findings not shown" of skips)
    cut = render(lab.filtered({"skip"}), "markdown", limit=1500)
    shown = len(_table_rows(cut))
    assert cut.rstrip().endswith(
        f"_… {len(skips) - shown} more results not shown (limit 1,500 characters; `--limit 0` or `limit=0`: all)._"
    )
    findings = [r for _, r in lab.results if r.result in ("fail", "warn", "error")]
    assert findings and not [r for r in findings if r.severity == "critical"]
    text = render(lab.filtered({"fail", "warn"}, "critical"), "markdown")
    first, second = text.splitlines()[:2]
    assert first == markdown.summary_line(lab, lab.name)  # the counts of the whole audit
    assert second == (
        "_the filter (results fail, warn; severity critical or above) leaves no result to list: the counts are of the"
        " whole audit_"
    )
    assert "| Rule |" not in text
    # the table says it too (trial 70: its summary line stood alone)
    lines = table.render(lab.filtered({"fail", "warn"}, "critical"), width=200).splitlines()
    assert lines[1] == second.strip("_")


def test_markdown_keeps_asterisks_underscores_and_backslashes_of_messages() -> None:
    """Trial 100: "nvidia.com/mig-*, ... nvidia.com/mig-*" rendered in italics with both asterisks gone, and a regex's
    "\\." lost its backslash: emphasis characters and escapes are escaped in the cells (never in a code span, where
    a backslash shows as written), and an underscore inside a name is left alone (it emphasises nothing)."""
    message = "asks for nvidia.com/mig-*, not nvidia.com/mig-* (^nvidia\\.com/, GA102GL_A10, _x_, ~/a)"
    report = synthetic(1)
    obj = report.objects[0]
    report.objects[0] = replace(obj, results=(replace(obj.results[0], message=message, remediation="kubectl get 'mig-*'"),))
    row = next(x for x in render(report, "markdown", limit=0).splitlines() if "| fail · high |" in x)
    assert "| asks for nvidia.com/mig-\\*, not nvidia.com/mig-\\* (^nvidia\\\\.com/, GA102GL_A10, \\_x\\_, \\~/a) |" in row
    assert row.endswith("| `kubectl get 'mig-*'` |")  # a command: a code span, where an asterisk is as written
    assert "`Node/object-00000`" in row  # the code spans as written


def test_markdown_without_a_limit_names_each_input_error_whole() -> None:
    """Trial 100: limit=0 ("no cut: every input error and every note named, whole") cut an input error at 160
    characters, and "the node is not judged" at its end went."""
    reason = "the pod row 'gpu-operator nvidia-driver-daemonset-x 0 (0%)' of node gpu-worker-07 is not read: " + "y" * 400
    reason += " the node is not judged"
    report = synthetic(1)
    report.input_errors = [InputError(Source("<body>", 1, 30), reason)]
    lines = render(report, "markdown", limit=0).splitlines()
    assert lines[1] == f"- <\u200bbody>, document 1, line 30: {reason}"
    assert lines[1].endswith("the node is not judged")
    cut = render(report, "markdown").splitlines()[1]  # under a limit it is cut as before
    assert len(cut) < len(lines[1]) and cut.endswith("…")


def test_a_chat_message_cell_drops_its_asides_before_it_is_cut() -> None:
    """Trial 132: at the default limit every message of the lab's nodes was cut inside its first aside ("... workload
    (label nvidia.co…"), before the clause that says what is wrong. Asides go first, written (…); short ones stay."""
    message = (
        "Node gpu-1 should run the vm-passthrough GPU workload (label nvidia.com/gpu.workload.config=vm-passthrough),"
        " but it advertises only container GPU resources (nvidia.com/gpu in status.allocatable) and none of the"
        " vm-passthrough class (3%)."
    )
    assert markdown._cut(message, 160, prose=True) == (
        "Node gpu-1 should run the vm-passthrough GPU workload (…), but it advertises only container GPU resources (…)"
        " and none of the vm-passthrough class (3%)."
    )
    # (trial 211: cut where a word ends, not "advertises on…" of "only")
    short = "Node gpu-1 should run the vm-passthrough GPU workload (…), but it advertises…"
    assert markdown._cut(message, 80, prose=True) == short
    # a note is cut where a word ends too, its asides kept (trial 211: an assumption note ended "shows it i…")
    note = "assumed: unless its annotation, which the operator writes only with sandbox workloads off, shows it is run"
    assert markdown._cut(note, 104, words=True) == (
        "assumed: unless its annotation, which the operator writes only with sandbox workloads off, shows it is…"
    )
    assert markdown._cut(note, 96, words=True).endswith("with sandbox workloads off…")
    # a cut right after a whole word keeps it (trial 212: "the node does…" of "the node does not run")
    said = "assumed: the node does not run the sandbox device plugin"
    assert markdown._cut(said, len("assumed: the node does not") + 1, words=True) == "assumed: the node does not…"
    assert markdown._cut(message, len(message), prose=True) == message  # whole where it fits
    assert markdown._without_asides("a (b (c) d) e)") == "a (b (c) d) e)"  # unbalanced: as written
    # trial 133: no more asides go than the width needs, the longest first, of equal ones the later: the reasons of a
    # message 18 characters too long were all dropped
    ds = (
        "DaemonSet monitoring/node-agent cannot be scheduled: cannot run on 3/3 targeted nodes: gpu-node-0 (Insufficient"
        " cpu), gpu-node-1 (Insufficient cpu), gpu-node-2 (Insufficient cpu)"
    )
    assert markdown._cut(ds, 160, prose=True) == (
        "DaemonSet monitoring/node-agent cannot be scheduled: cannot run on 3/3 targeted nodes: gpu-node-0 (Insufficient"
        " cpu), gpu-node-1 (…), gpu-node-2 (…)"
    )
    assert not markdown._cut("text (" + "a" * 20 + ") and " + "b" * 200, 30, prose=True).endswith("(……")
    from rules.evaluate import evaluate
    from rules.loader import load_policies
    from rules.reader import read_paths

    lab = render(evaluate(read_paths([str(ROOT / "examples" / "lab" / "nodes.yaml")]), load_policies()), "markdown")
    assert (
        "Node lab-passthrough-advertising-gpu should run the vm-passthrough GPU workload (…), but it advertises only"
        " container GPU resources (…)" in lab
    )


def test_a_cut_fix_glues_its_mark_to_its_last_word() -> None:
    """Trial 133: a fix cut where a word ends, " …" apart, left "kubectl delete pod -n nvidia-gpu-operator -l
    app=nvidia-sandbox-device-plugin-daemonset …", a delete of the plugin on every node once the "…" is dropped as the
    chat's mark. Glued to the last word, the cut names a flag, value or JSON no command takes."""
    fix = (
        "kubectl delete pod -n nvidia-gpu-operator -l app=nvidia-sandbox-device-plugin-daemonset --field-selector"
        " spec.nodeName=gpu-broken-profile-mismatch  # the plugin reads the vGPU types again when it starts"
    )
    for width in range(40, len(fix)):
        cut = markdown._cut(fix, width, command=True)
        assert len(cut) <= width and cut.endswith("…") and not cut.endswith(" …"), (width, cut)


def test_a_cut_fix_keeps_its_last_command_and_cuts_none_in_its_start() -> None:
    """Trial 100: at limit=1900 a warning's one fix kept its prose and lost the kubectl label command it ends with.
    A fix cut for chat keeps the longest command at its end that fits after at least markdown._FIX_HEAD characters of
    its start, where what is left out holds no other command and nothing that makes it conditional (trial 104); the
    start ends before a command it would cut; "for another workload" is no shell for loop."""
    fix = (
        "The operator sets these labels itself whenever it reconciles the node, and writes those of the node's"
        ' workload; to set them by hand, add those it lacks as "true", for another workload too: kubectl label node'
        " gpu-ctr-03 nvidia.com/gpu.deploy.mig-manager=true"
    )
    last = "kubectl label node gpu-ctr-03 nvidia.com/gpu.deploy.mig-manager=true"
    cut = markdown._cut
    assert cut(fix, 100, command=True) == f"The operator sets these labels… {last}"
    assert cut(fix, 200, command=True) == f"{fix[: 200 - len(last) - 2].rstrip()}… {last}"
    assert cut(fix, 60, command=True) == fix[:59].rstrip() + "…"  # the command does not fit: the start, as for a message
    assert cut(fix, 100) == fix[:99].rstrip() + "…"  # a message keeps its start
    assert cut(fix, len(fix), command=True) == fix


def test_a_cut_fix_never_keeps_its_last_command_after_half_the_first() -> None:
    """Trial 242 #8: a Markdown cell read `kubectl describe pod -n… kubectl describe nodes`: the last command was kept
    after the start of the first, cut short, a command of its own to copy. The start keeps a command whole or not at
    all; where none fits whole before the last command, the fix is cut from its start as a message is."""
    fix = (
        "kubectl describe pod -n ml cuda-on-pt; kubectl describe nodes # compare the scheduler's events with the nodes'"
        " allocatable and taints"
    )
    cut = markdown._cut
    assert cut(fix, 120, command=True) == (
        "kubectl describe pod -n ml cuda-on-pt; kubectl describe nodes # compare the scheduler's events with the nodes' allocata…"
    )
    assert cut(fix, 60, command=True) == "kubectl describe pod -n ml cuda-on-pt;…"
    # the first command whole before the last is kept so
    long = fix.replace(" # compare", " && kubectl get nodes -o wide # compare")
    assert cut(long, 150, command=True).startswith("kubectl describe pod -n ml cuda-on-pt; kubectl describe nodes")


def test_a_cut_fix_never_keeps_a_command_whose_condition_or_another_command_it_leaves_out() -> None:
    """Trial 104: "First see whether the workload label is a typo: nvi… for l in ...; do kubectl label node gpu-a10-02
    $l-; done; ..." left out "Only if the node is meant for container:", and the loops that turn a passthrough node into
    a container node stood alone. A command is kept at the end only where what is left out says nothing of when to
    run it and holds no other command (the one that should run first); else the fix keeps its start."""
    fix = (
        "First see whether the workload label is a typo: nvidia.com/gpu.workload.config=vm-passthrogh is no value the"
        " operator knows. If it is, fix it: kubectl label node gpu-a10-02 --overwrite nvidia.com/gpu.workload.config="
        "vm-passthrough. Only if the node is meant for container: for l in a b; do kubectl label node gpu-a10-02 $l-; done"
    )
    for width in range(40, len(fix)):
        cut = markdown._cut(fix, width, command=True)
        # each command shown with what says when to run it
        assert "do kubectl label" not in cut or "Only if the node is meant for container" in cut, (width, cut)
        assert "--overwrite" not in cut or "If it is, fix it" in cut, (width, cut)
    # (trial 171: nor does it end inside a command after a whole clause: "... --overwrite nvidia.com/gpu…")
    assert markdown._cut(fix, 200, command=True) == fix[: fix.index(" If it is")] + "…"
    guarded = (
        "Only if the node is meant for container, delete its other deploy labels: for l in a b; do kubectl label x $l-; done"
    )
    assert markdown._cut(guarded, 90, command=True) == guarded[:89].rstrip() + "…"


def test_a_cut_fix_never_keeps_a_chained_command_without_the_one_before_it() -> None:
    """Trial 101: at limit=1500 the sandbox fix was cut to "kubectl label node --overwrite gpu-ctr-03 nvidia.com… kubectl
    patch clusterpolicies.nvidia.com ...": the patch that turns the unlabelled nodes into VM nodes, without the label
    command chained before it (&&) that keeps them on containers. A command after && or | is no command of its own."""
    label = "kubectl label nodes --overwrite -l 'nvidia.com/gpu.present=true' nvidia.com/gpu.workload.config=container"
    patch = "kubectl patch clusterpolicies.nvidia.com cluster-policy --type merge -p '{\"spec\":{}}'"
    drop = "kubectl label node gpu-pt-11 nvidia.com/gpu.workload.config-"
    fix = f"{label} && {patch}  # the label first keeps the GPU nodes on containers; or drop the label: {drop}"
    for width in range(60, len(fix)):
        cut = markdown._cut(fix, width, command=True)
        assert len(cut) <= width
        assert not cut.endswith(patch) and f"… {patch}" not in cut, width
    # nor the alternative after it, with the command before it left out (trial 104): the start
    # (trial 171: without the half of the chained command it would end inside, nor the && before it)
    assert markdown._cut(fix, 120, command=True) == f"{label}…"


def test_a_cut_fix_ends_before_a_later_command_it_would_cut() -> None:
    """Regression (trial 171): under the default limit four findings each ended their fix "kubectl label node
    gpu-vgpu-bad --overwrite nvidia.com/g…", half a command to paste, after the whole command that looks first. A fix
    cut inside a command after the first ends before it and the clause that leads to it."""
    look = "kubectl get pods -A -o wide --field-selector spec.nodeName=gpu-typo | grep -i nvidia  # what runs there"
    label = "kubectl label node gpu-typo --overwrite nvidia.com/gpu.workload.config=vm-passthrough"
    fix = f"{look}; or, if the node is meant for the vm-passthrough workload its resources are of: {label}"
    for width in range(len(look) + 3, len(fix)):
        cut = markdown._cut(fix, width, command=True)
        assert len(cut) <= width and cut.startswith(look), (width, cut)
        assert "kubectl label" not in cut or cut.endswith(label), (width, cut)  # no half command to paste
    assert markdown._cut(fix, len(fix), command=True) == fix
    # the first command cut is still cut: there is nothing whole before it
    assert markdown._cut(fix, 40, command=True) == fix[:39].rstrip() + "…"
    # trial 172: a command ends at a sentence's end and at the close of the aside it stands in, and one inside
    # another's $(...) goes with it, never leaving "kubectl logs ... $(…"
    check = (
        "First check it runs: kubectl logs -n gpu-operator deploy/gpu-operator | grep node-a. To fix the node by hand,"
        " delete the labels of the other workloads it carries: kubectl label node node-a nvidia.com/gpu.deploy.driver-"
    )
    assert markdown._before_cut_command(check, check[:129]) == check[:129]  # the cut is in prose: kept as it is
    aside = "Set limits too (kubectl apply -f <manifest>) then restart it: kubectl rollout restart deploy/app -n ml"
    # the whole command in the aside stays; the one cut after it goes
    assert markdown._before_cut_command(aside, aside[:70]) == "Set limits too (kubectl apply -f <manifest>) then restart it:"
    nested = (
        "kubectl logs -n gpu-operator $(kubectl get pods -n gpu-operator -l app=nvidia-vgpu-device-manager"
        " --field-selector spec.nodeName=n -o name)  # why the config failed"
    )
    for width in range(40, len(nested)):
        assert not markdown._cut(nested, width, command=True).endswith("$(…"), width


def test_a_cut_fix_never_keeps_a_loop_body_or_a_command_substitution_alone() -> None:
    """Trial 102: "First decide what the node is… kubectl label node gpu-pt-11 $l=true; done" kept a for loop's body
    without its loop, and another cell a command from inside "$(...)": neither runs alone."""
    loop = "First decide what the node is for: label it. To fix by hand: for l in a b c; do kubectl label node x $l=true; done"
    sub = (
        "Find why the operator does not: kubectl logs -n $(kubectl get clusterpolicies.nvidia.com -o"
        " jsonpath='{.items[0].status.namespace}') deploy/gpu-operator | grep x"
    )
    for fix in (loop, sub):
        for width in range(40, len(fix)):
            cut = markdown._cut(fix, width, command=True)
            assert "… kubectl label node x" not in cut and "… kubectl get clusterpolicies" not in cut, (width, cut)
    assert markdown._cut(loop, 90, command=True).endswith("… for l in a b c; do kubectl label node x $l=true; done")


def test_skip_notes_give_way_to_findings_cut_but_never_lengthen_the_head() -> None:
    """Trial 118: three skip notes stood above a finding cut before it said what was wrong; where the findings' cells
    would be cut, the skip notes are counted instead. Trial 120: under a small limit the head names no skip note at all,
    and the count line took a roll-up row's room: the shorter head only."""
    report = synthetic(4, message_len=700, distinct=True)
    report.notes = [f"skipped: reason number {i} " + "why the rule judged no object of the dump " * 5 for i in range(3)]
    text = render(report, "markdown")
    assert "_skipped: reason number 0" not in text
    assert "_… 3 skip or not-applied notes in the JSON report" in text
    assert len(_table_rows(text)) == 4
    small = render(report, "markdown", limit=600)
    assert "skip or not-applied" not in small and len(small) <= 600
    whole = render(report, "markdown", limit=0)
    assert "_skipped: reason number 0" in whole


def test_a_batch_counts_its_dumps_skip_notes_where_its_findings_are_cut() -> None:
    """Trial 120: a batch's first dump named three skip notes, then cut its findings (the single report counted them
    already). Where the batch is cut, the skip notes are counted when that shows more rows; a batch that fits names
    them."""
    from rules.render.markdown import render_many

    reports = []
    for name in ("a.yaml", "b.yaml"):
        r = synthetic(4, message_len=700, distinct=True)
        r.name = name
        r.notes = [f"skipped: reason number {i} of {name} " + "why the rule judged no object of the dump " * 5 for i in range(3)]
        reports.append(r)
    cut = render_many(reports, "markdown", limit=3500)
    assert len(cut) <= 3500
    assert "_skipped: reason number 0 of a.yaml" not in cut
    assert "_… 3 skip or not-applied notes in the JSON report" in cut
    # the first dump's four findings shown (one before: its skip notes took their room)
    assert len(_table_rows(cut)) == 4
    whole = render_many(reports, "markdown", limit=0)
    assert "_skipped: reason number 0 of a.yaml" in whole and "_skipped: reason number 2 of b.yaml" in whole


def test_skip_notes_that_do_not_fit_beside_the_assumptions_are_counted() -> None:
    """Trial 124: an all-good node dump's chat answer said "38 skip" and nothing of why: the assumption notes took the
    notes' room, and the skip notes were left out whole, their count line too, though it fitted."""
    report = synthetic(3, message_len=40, word="pass")
    assumed = "assumed: a node's workload label is taken as its workload where no ClusterPolicy is in the dump "
    report.notes = [assumed + "x" * 250 + f" {i}" for i in range(3)]
    report.notes += [f"skipped: reason number {i} " + "why the rule judged no object of the dump " * 5 for i in range(13)]
    text = render(report, "markdown", limit=1500)
    assert "_skipped: reason number 0" not in text
    assert "_… 13 skip or not-applied notes in the JSON report (`--format json`; `format=json` from the service)_" in text
    assert len(text) <= 1500
    # room for the first three: named, the others counted
    roomy = render(report, "markdown", limit=8000)
    assert "_skipped: reason number 2" in roomy and "_… 10 more skip or not-applied notes in the JSON report" in roomy
    # (trial 244 #6: nothing follows the notes of a report without findings, so they take the whole message, and as
    # many of the first skip notes as fit are named: at 1,500 characters, one note of 16 was said in 581)
    some = render(report, "markdown", limit=2000)
    assert len(some) <= 2000
    assert "_skipped: reason number 1" in some and "_skipped: reason number 2" not in some
    assert "_… 11 more skip or not-applied notes in the JSON report" in some


def test_the_table_names_the_item_of_a_list_written_on_one_line() -> None:
    """Trial 125: JSON written on one line (kubectl get -o json | jq -c, or any client's minified output) placed every
    object at ``file:1``; the table adds ``items[N]`` where objects share a line, and only there."""
    from rules.evaluate import evaluate
    from rules.loader import load_policies
    from rules.reader import parse_text
    from rules.render.table import render

    nodes = [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": f"n{i}",
                "labels": {"nvidia.com/gpu.present": "true", "nvidia.com/gpu.workload.config": "vm-vgpu"},
            },
            "status": {"allocatable": {"nvidia.com/gpu": "1"}},
        }
        for i in range(3)
    ]
    listed = {"apiVersion": "v1", "kind": "List", "items": nodes}
    policies = load_policies()
    for text, places in (
        (json.dumps(listed, separators=(",", ":")), ["d.json:1 items[0]", "d.json:1 items[1]", "d.json:1 items[2]"]),
        (json.dumps(listed, indent=2), ["d.json:5", "d.json:21", "d.json:37"]),
        # trial 137: one item a line (jq -c items inside the List's own lines) placed each at line 1
        (
            '{"apiVersion":"v1","kind":"List","items":[\n' + ",\n".join(json.dumps(n) for n in nodes) + "\n]}\n",
            ["d.json:2", "d.json:3", "d.json:4"],
        ),
    ):
        table = render(evaluate(parse_text(text, "d.json"), policies), width=200)
        shown = re.findall(r"^fail  Node/n\d  (.*)$", table, re.M)
        assert shown[:3] == places


@pytest.mark.parametrize("fmt", ["json", "junit", "sarif", "policyreport", "yaml", "table", "markdown"])
def test_an_integer_past_64_bits_is_rendered_as_text(fmt: str, load_policy: Any) -> None:
    """Trial 138: replicas of 30 digits observed by a rule ended the JUnit, JSON, PolicyReport and SARIF renderers in
    a TypeError (orjson writes 64-bit integers only). Observed and expected values past 64 bits are written as text,
    at any depth (trial 140: a Deployment's strategy, a list in a list)."""
    from rules.evaluate import evaluate
    from rules.reader import parse_text
    from rules.render import render

    def policy(assertion: dict[str, Any]) -> Any:
        rule = {
            "id": "r",
            "title": "t",
            "match": {"kinds": ["Deployment"]},
            "assert": assertion,
            "message": "{name}: {observed}",
            "references": ["https://example.com"],
        }
        return load_policy({"apiVersion": "verdict/v1", "kind": "Policy", "metadata": {"name": "big"}, "spec": {"rules": [rule]}})

    big = 123456789012345678901234567890
    text = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: big, namespace: ml}\n"
    fields = f"replicas: {big}, strategy: {{rollingUpdate: {{maxSurge: {big}}}}}, x: [[1, {big}]]"
    # trial 141: a mapping whose keys are numbers (ingress-nginx's tcp-services ConfigMap), YAML's !!set
    dump = parse_text(text + f"spec: {{{fields}, ports: {{9000: a/b:80}}, s: !!set {{b, a}}}}\n", "d.yaml")
    for assertion, observed, shown in (
        ({"path": "$.spec.replicas", "lte": 10}, str(big), str(big)),
        ({"path": "$.spec.strategy", "exists": False}, {"rollingUpdate": {"maxSurge": str(big)}}, str(big)),
        ({"path": "$.spec.x", "exists": False}, [[1, str(big)]], str(big)),
        ({"path": "$.spec.ports", "exists": False}, {"9000": "a/b:80"}, "a/b:80"),
        ({"path": "$.spec.s", "exists": False}, ["a", "b"], "big"),
    ):
        [result] = [r for o in evaluate(dump, policy(assertion)).objects for r in o.results]
        assert (result.result, result.observed) == ("fail", observed)
        assert shown in render(evaluate(dump, policy(assertion)), fmt)


_JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(_JSONISH)
def test_yaml_reports_are_written_by_libyaml_and_read_back_as_written(data: Any) -> None:
    """Trial 158: the pure-Python dumper took 31.9 s for a 1,000-node PolicyReport (1.6 s as JSON); reports are
    written by libyaml's emitter, and what it writes reads back as the data, whatever the text holds."""
    from rules import yamlsafe

    assert yamlsafe._Dumper is yaml.CSafeDumper
    assert yaml.safe_load(yamlsafe.dump(data, sort_keys=False, allow_unicode=True, width=120)) == data


def test_the_lab_reports_yaml_is_the_text_the_pure_python_dumper_wrote() -> None:
    report = json.loads(CliRunner().invoke(main, ["audit", str(ROOT / "examples" / "lab-cluster.yaml"), "-q"]).stdout)
    options = {"sort_keys": False, "allow_unicode": True, "width": 120}
    assert yamlsafe.dump(report, **options) == yaml.safe_dump(report, **options)


# ------------------------------------------------------------------------------------------ chat


def test_chat_writes_each_finding_whole_with_its_fix_in_a_code_block_as_written() -> None:
    """Trial 171 #4: Markdown's pipe table showed as rows of pipes in Slack, Teams and Discord, and copied from a code
    block its fix read `\\|` where the shell needs `|`. The chat format writes no table: a paragraph a finding, its fix
    in a code block as written, whole."""
    fix = (
        "kubectl get pods -A -o wide --field-selector spec.nodeName=gpu-pt-bad | grep -i nvidia  # what runs there;"
        " or: kubectl label node gpu-pt-bad --overwrite nvidia.com/gpu.workload.config=container"
    )
    report = synthetic(1, message_len=20)
    report.objects[0] = replace(report.objects[0], results=(replace(report.objects[0].results[0], remediation=fix),))
    text = render(report, "chat")
    assert text.endswith(
        "\n\nFAIL (high) `Node/object-00000` · `big-policy/rule-a`\nobject-00000: "
        + "x" * 20
        + "\n```\nkubectl get pods -A -o wide --field-selector spec.nodeName=gpu-pt-bad | grep -i nvidia # what runs there"
        "\n# or:\n# kubectl label node gpu-pt-bad --overwrite nvidia.com/gpu.workload.config=container\n```\n"
    )
    assert text.startswith("verdict big.yaml: 1 object judged (1 read) · 0 pass · 1 fail (1 high) · 0 warn")
    assert "| Rule |" not in text and "\\|" not in text
    assert media_type("chat") == "text/plain; charset=utf-8"


def test_chat_leaves_whole_findings_out_under_its_limit_and_counts_them() -> None:
    """Under ``limit`` no message or fix is cut: whole findings are left out, worst last, and the closing line counts
    them; the text fits the limit."""
    report = synthetic(30, message_len=300, distinct=True)
    for limit in (600, 1000, 3500):
        text = render(report, "chat", limit=limit)
        assert len(text) <= limit, (limit, len(text))
        shown = re.findall(r"^FAIL \(high\) `Node/object-(\d+)`", text, re.M)
        assert shown == [f"{i:05d}" for i in range(len(shown))] and shown, limit
        assert all(f"object-{i}: {'x' * (300 - len(str(int(i))))}{int(i)}\n" in text for i in shown)  # each whole
        assert text.rstrip().endswith(
            f"_… {30 - len(shown)} more findings not shown (limit {limit:,} characters; `--limit 0` or `limit=0`: all)_"
        ), limit
    whole = render(report, "chat", limit=0)
    assert whole.count("FAIL (high)") == 30 and "not shown" not in whole
    with pytest.raises(ValueError, match="below 500"):
        render(report, "chat", limit=100)


def test_chat_text_from_the_dump_posts_no_mention_and_a_fix_keeps_its_url() -> None:
    """A message or name from the dump cannot ping a channel or a user; a fix's URL and a shell's @ stay as the
    command needs them, and only a mention or a fence in it is broken."""
    report = synthetic(1, message_len=0)
    result = replace(
        report.objects[0].results[0],
        message="node <!channel> @here see <https://x.example>",
        remediation="kubectl apply -f https://example.com/a.yaml  # ping <@U123> ``` done",
    )
    report.objects[0] = replace(report.objects[0], results=(result,))
    text = render(report, "chat")
    assert "<!channel>" not in text and "@here" not in text and "<https://" not in text
    assert "kubectl apply -f https://example.com/a.yaml # ping <\u200b@U123> `\u200b`\u200b` done" in text


def test_chat_many_dumps_keep_each_dumps_findings_under_its_own_heading() -> None:
    """A batch: a total line, each dump's heading and summary, its findings under it; a finding is never shown
    under another dump's heading when its own did not fit."""
    first, second = synthetic(3, message_len=50, distinct=True), synthetic(3, message_len=50, distinct=True)
    second = replace(second, name="other.yaml")
    text = render_many([first, second], "chat", limit=0)
    assert text.startswith("verdict 2 dumps: 6 objects judged (6 read)")
    assert text.index("== big.yaml ==") < text.index("== other.yaml ==")
    assert text.count("FAIL (high)") == 6
    cut = render_many([first, second], "chat", limit=700)
    assert len(cut) <= 700 and "== other.yaml ==" not in cut and cut.count("FAIL (high)") == 3
    assert cut.endswith(
        "\n\n_… 1 more dump and 3 more findings not shown (limit 700 characters; `--limit 0` or `limit=0`: all)_\n"
    )
    both = render_many([first, second], "chat", limit=900)
    assert len(both) <= 900 and both.index("== other.yaml ==") < both.rindex("FAIL (high)")
    assert both.count("FAIL (high)") == 4
    assert both.endswith("_… 2 more findings not shown (limit 900 characters; `--limit 0` or `limit=0`: all)_\n")


def test_chat_shows_findings_before_skip_notes_where_the_limit_cuts() -> None:
    """Regression (trial 172): at the default limit the lab's chat message named three skip notes and 2 of its 12
    findings. Where findings are left out, the skip notes are only counted (as markdown does) when that shows more."""
    from rules.evaluate import evaluate
    from rules.loader import load_policies
    from rules.reader import read_paths

    lab = evaluate(read_paths([str(ROOT / "examples" / "lab-cluster.yaml")]), load_policies())
    text = render(lab, "chat")
    assert len(text) <= markdown.LIMIT
    # (trial 234 #1: and each of the 12 failing rules is named, the two first ones with their messages, the ten
    # others by their heading lines, where their paragraphs stood counted)
    assert len(re.findall(r"^(?:FAIL|WARN|ERROR) \(", text, re.M)) == 12
    assert len(re.findall(r"^(?:FAIL|WARN|ERROR) \(.*\n(?=(?:FAIL|WARN|ERROR|_their) )", text, re.M)) == 10
    assert "\n_skipped:" not in text and "skip or not-applied notes in the JSON report" in text
    assert text.rstrip().endswith("_their messages and fixes are not shown here: `--limit 0` or `limit=0` shows them_")


def test_chat_writes_a_command_a_line_with_its_condition_a_comment_before_it() -> None:
    """Regression (trial 173): the relabel that ends a fix stood inside the # comment of the check before it, so the
    pasted code block ran the check alone. Each command that follows a comment or a clause is a line of its own, the
    clause that says when to run it a comment line; a chained command, a loop's body, one in $(...) and a command
    inside a clause stay where they are."""
    from rules.render.chat import fix_lines as _lines

    fix = (
        "kubectl get pods -A -o wide --field-selector spec.nodeName=n | grep -i nvidia  # what runs there for the"
        " container workload; or, if the node is meant for the vm-vgpu workload its resources are of: kubectl label"
        " node n --overwrite nvidia.com/gpu.workload.config=vm-vgpu"
    )
    assert _lines(fix) == [
        "kubectl get pods -A -o wide --field-selector spec.nodeName=n | grep -i nvidia # what runs there for the"
        " container workload",
        "# or, if the node is meant for the vm-vgpu workload its resources are of:",
        # trial 174: an alternative is written commented out, so the block pasted whole does not run it
        "# kubectl label node n --overwrite nvidia.com/gpu.workload.config=vm-vgpu",
    ]
    assert _lines(
        "First check it runs: kubectl logs deploy/x | grep n. Then: for l in a b; do kubectl label node n $l-; done"
    ) == [
        "# First check it runs:",
        "kubectl logs deploy/x | grep n",
        "# Then:",
        "for l in a b; do kubectl label node n $l-; done",
    ]
    kept = (
        "kubectl label nodes -l a=b x=y && kubectl patch cp c -p '{}'  # then kubectl get pod p -o yaml, edit it and"
        " kubectl replace"
    )
    assert _lines(kept) == [" ".join(kept.split())]
    assert _lines("kubectl logs -n g $(kubectl get pods -n g -o name)") == ["kubectl logs -n g $(kubectl get pods -n g -o name)"]


def test_chat_notes_carry_no_markdown_backslash_escapes() -> None:
    """Regression (trial 173): the chat message's notes, written by markdown's lines, showed nvidia.com/gpu.deploy.\\*
    in Slack, which prints a backslash escape as written; a regex's own backslash stays."""
    report = synthetic(1, message_len=10)
    report = replace(report, notes=["assumed: a node's nvidia.com/gpu.deploy.* labels are read as ^nvidia\\.com/ says"])
    text = render(report, "chat")
    assert "\n_assumed: a node's nvidia.com/gpu.deploy.* labels are read as ^nvidia\\.com/ says_\n" in text
    assert "\\*" not in text


def test_a_table_fix_is_split_at_a_shell_comment_only_outside_quotes() -> None:
    """Trial 176: a long command was split at a ' # ' inside its quotes, leaving a line that ends inside the quote
    (pasted, the shell read the comment lines into the value); a fix of blanks wrote a bare 'fix: #'."""
    quoted = "kubectl annotate node n1 --overwrite note='see ticket # 42 and more text here to be long enough for the wrap'"
    assert table.fix_block(quoted, 60, 6) == [f"      fix: {quoted}"]
    commented = "kubectl get pods -A -o wide --field-selector spec.nodeName=gpu-a | grep -i nvidia  # what runs there for it"
    assert table.fix_block(commented, 60, 6) == [
        "      fix: kubectl get pods -A -o wide --field-selector spec.nodeName=gpu-a | grep -i nvidia",
        "           # what runs there for it",
    ]
    assert table.fix_block("   ", 60, 6) == []


def test_a_command_the_fix_as_written_would_not_run_is_written_commented_out() -> None:
    """Trial 177: vgpu-profile-matches-config's fix, as written, ran the log command alone (the restart stands after
    its '#'), while the table and chat wrote the restart as a line of its own, which ran at once when the block was
    pasted, before the log was read; and the clause was cut at a ';' inside its parentheses, losing it."""
    from rules.render.chat import fix_lines

    fix = (
        "kubectl logs -n gpu-operator $(kubectl get pods -n gpu-operator -l app=nvidia-vgpu-device-manager"
        " --field-selector spec.nodeName=n1 -o name)  # to re-apply the same config, restart that pod (its label informer"
        " applies nvidia.com/vgpu.config when it starts; relabelling with the value the label already has is no change):"
        " kubectl delete pod -n gpu-operator -l app=nvidia-vgpu-device-manager --field-selector spec.nodeName=n1"
    )
    assert fix_lines(fix) == [
        "kubectl logs -n gpu-operator $(kubectl get pods -n gpu-operator -l app=nvidia-vgpu-device-manager"
        " --field-selector spec.nodeName=n1 -o name) # to re-apply the same config, restart that pod (its label informer"
        " applies nvidia.com/vgpu.config when it starts; relabelling with the value the label already has is no change):",
        "# kubectl delete pod -n gpu-operator -l app=nvidia-vgpu-device-manager --field-selector spec.nodeName=n1",
    ]
    block = table.fix_block(fix, 100, 6)
    assert [line for line in block if "kubectl delete" in line] == [
        "           # kubectl delete pod -n gpu-operator -l app=nvidia-vgpu-device-manager --field-selector spec.nodeName=n1"
    ]
    assert any("when it starts; relabelling" in line for line in block)
    # prose keeps its stop; a command loses one
    assert fix_lines("First check it runs: kubectl logs deploy/x | grep n1. Then fix it by hand: kubectl label node n1 a-") == [
        "# First check it runs:",
        "kubectl logs deploy/x | grep n1",
        "# Then fix it by hand:",
        "kubectl label node n1 a-",
    ]
    # trial 196: a comma standing alone is an argument, not the end of a clause ("| tr" was cut from its operands)
    assert fix_lines("kubectl get node n1 -o jsonpath='{.metadata.labels}' | tr , '\\n' (one label per line)") == [
        "kubectl get node n1 -o jsonpath='{.metadata.labels}' | tr , '\\n'",
        "# (one label per line)",
    ]
    flag = "kubectl get nodes -o name | cut -d, -f1 | awk -F, '{print $1}' (names)"
    assert fix_lines(flag) == ["kubectl get nodes -o name | cut -d, -f1 | awk -F, '{print $1}'", "# (names)"]
    cut = ["kubectl get pod -n ml p -o yaml > pod.yaml", "# edit it"]
    assert fix_lines("kubectl get pod -n ml p -o yaml > pod.yaml, edit it") == cut


def test_a_fix_alternative_stays_commented_out_through_its_sequence_and_later_clauses() -> None:
    """Regression (trial 179): deploy-labels-match-workload's "by hand" alternative is two loops, "...; done; for l in
    ...": the table and chat cut the first before its "done" (a comment line "# done;") and wrote the second as a
    command, so the pasted block set a VM node's container deploy labels; and a clause after "Only if the node is
    meant for container:" ("To fix the node by hand ...:") ran its loops."""
    from rules.render.chat import fix_lines

    two_loops = (
        "If it should run containers, remove that label: kubectl label node n1 nvidia.com/gpu.workload.config-. To"
        " make it a container node by hand instead, set its labels: for l in a b; do kubectl label node n1 $l-; done;"
        " for l in c d; do kubectl label node n1 $l=true; done"
    )
    assert fix_lines(two_loops) == [
        "# If it should run containers, remove that label:",
        "# kubectl label node n1 nvidia.com/gpu.workload.config-",
        "# To make it a container node by hand instead, set its labels:",
        "# for l in a b; do kubectl label node n1 $l-; done",
        "# for l in c d; do kubectl label node n1 $l=true; done",
    ]
    branch = (
        "First see whether the label is a typo: kubectl get node n1 --show-labels. Only if the node is meant for"
        " container: first check the operator runs: kubectl logs deploy/gpu-operator | grep n1. To fix the node by"
        " hand: for l in a b; do kubectl label node n1 $l-; done; for l in c; do kubectl label node n1 $l=true; done"
    )
    assert fix_lines(branch) == [
        "# First see whether the label is a typo:",
        "kubectl get node n1 --show-labels",
        "# Only if the node is meant for container: first check the operator runs:",
        "# kubectl logs deploy/gpu-operator | grep n1",
        "# To fix the node by hand:",
        "# for l in a b; do kubectl label node n1 $l-; done",
        "# for l in c; do kubectl label node n1 $l=true; done",
    ]
    # a loop that runs (no condition before it) is followed by its sequence's next loop, running too
    sequence = "Set them: for l in a; do kubectl label node n1 $l-; done; for l in b; do kubectl label node n1 $l=x; done"
    assert fix_lines(sequence) == [
        "# Set them:",
        "for l in a; do kubectl label node n1 $l-; done",
        "for l in b; do kubectl label node n1 $l=x; done",
    ]


def test_control_characters_of_the_dump_are_shown_escaped_in_every_text_format(tmp_path: Path) -> None:
    """Regression (trial 180): a label value holding ESC [31m and a name holding ESC ]0;...BEL (a terminal's title) reached
    the table on a terminal, the chat and the markdown formats and the CLI's notes as they were (CWE-150; kubectl's
    CVE-2021-25743); a bidirectional override (U+202E) reorders what is shown. Each is written as its escape."""
    from click.testing import CliRunner

    from rules.cli import main
    from rules.engine import audit_bytes
    from rules.loader import load_policies
    from rules.render import render_many

    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": "gpu-\x1b]0;pwned\x07x",
            "labels": {
                "nvidia.com/gpu.present": "true",
                "nvidia.com/gpu.workload.config": "vm_pass\x01\x1b[31mthr\u202eo\u061cugh",
            },
        },
        "status": {"allocatable": {"nvidia.com/gpu": "4"}, "capacity": {"nvidia.com/gpu": "4"}},
    }
    data = json.dumps({"apiVersion": "v1", "kind": "List", "items": [node, node]}).encode()
    report = audit_bytes(data, "ctrl.json", load_policies(()))
    acting = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u202a-\u202e]")  # (trial 181: U+061C too)
    outputs = {
        f"{fmt} {group_by}": render(report, fmt, group_by=group_by, **({"limit": 0} if fmt != "table" else {}))
        for fmt in ("table", "markdown", "chat")
        for group_by in ("rule", "object")
    }
    outputs["chat batch"] = render_many([report, report], "chat")
    outputs["table notes"] = render(report, "table", notes=True)
    for name, text in outputs.items():
        assert not acting.search(text), (name, acting.findall(text))
        assert "\\x1b]0;pwned\\x07x" in text, name
    assert "vm_pass\\x01\\x1b[31mthr\\u202eo\\u061cugh" in outputs["table rule"]
    # coloured for a terminal: rich's own codes only, the dump's escaped
    coloured = render(report, "table", color=True)
    assert "\\x1b[31m" in coloured and "\x01" not in coloured and "\x07" not in coloured
    # the CLI's notes on standard error (the object that stands twice is named there)
    path = tmp_path / "ctrl.json"
    path.write_bytes(data)
    result = CliRunner().invoke(main, ["audit", str(path), "-f", "table", "-o", str(tmp_path / "out.txt")])
    assert "stands in the dump twice" in result.stderr and not acting.search(result.stderr)


def test_a_line_break_in_a_name_never_starts_a_line_of_a_table_or_breaks_a_chat_heading() -> None:
    """Regression (trial 191): a Node named "gpu-y\\n```\\n*INJECTED* <!channel>\\n```\\nz" wrote its lines at column 0
    of the table (its roll-up cell and its result line) and split the chat heading's code span over five lines. The
    name (and a file's) is written on one line there, its line breaks as escapes."""
    from rules.engine import audit_bytes
    from rules.loader import load_policies

    name = "gpu-y\n```\n*INJECTED* <!channel>\n```\nz"
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"nvidia.com/gpu.workload.config": "vm_passthrough"}},
        "status": {"allocatable": {"nvidia.com/gpu": "1"}},
    }
    report = audit_bytes(json.dumps(node).encode(), "a\nb.json", load_policies(()))
    escaped = "Node/gpu-y\\x0a```\\x0a*INJECTED* <!channel>\\x0a```\\x0az"
    for group_by in ("rule", "object"):
        table = render(report, "table", group_by=group_by, results={"fail"})
        assert not re.search(r"^(```|\*INJECTED|z )", table, re.M), table
        assert escaped in table and "a\\x0ab.json" in table
    assert f"│ {escaped}" in render(report, "table", results={"fail"})
    chat = render(report, "chat", results={"fail"}, limit=0)
    [heading] = [line for line in chat.split("\n") if line.startswith("FAIL")]
    assert heading.startswith("FAIL (high) `Node/gpu-y\\x0a'\u200b'\u200b'\\x0a*INJECTED* <\u200b!channel>\\x0a"), heading
    assert heading.endswith("` · `gpu-nodes/workload-label-valid`"), heading
    # trial 193: the heading of each dump of a batch (its file's name) too
    from rules.render import render_many

    other = audit_bytes(json.dumps(node).encode(), "c1\n*INJ* <!channel>\n.tar.gz", load_policies(()))
    for fmt in ("chat", "table"):
        batch = render_many([report, other], fmt, limit=0)
        assert not re.search(r"^(\*INJ|\.tar\.gz|b\.json)", batch, re.M), (fmt, batch[:400])
        assert "c1\\x0a*INJ* " in batch, fmt
    # trial 196: a note naming such a file (one every dump carries is said once, above them) is on one line too
    import dataclasses

    note = "a and c1\n# INJ <!channel>\n.yaml are judged apart"
    noted = [dataclasses.replace(r, notes=[*r.notes, note]) for r in (report, other)]
    for fmt in ("chat", "table", "markdown"):
        batch = render_many(noted, fmt, notes=True) if fmt == "table" else render_many(noted, fmt)
        assert not re.search(r"^(# INJ|\.yaml)", batch, re.M), (fmt, batch[:600])
        # (markdown writes a note's line breaks as spaces)
        assert ("c1 # INJ" if fmt == "markdown" else "c1\\x0a# INJ") in batch, fmt


def test_chat_at_discords_limit_shows_the_one_finding_before_the_notes_it_counts() -> None:
    """Regression (trial 179): at limit 1,900 (Discord) a chat message with two assumption notes of 400 characters
    and one finding of about 1,550 showed the notes and no finding, closing "1 more finding not shown" where none
    was. The notes are counted where the finding would not fit beside them; a finding that fits nowhere is "1
    finding not shown"."""
    from rules.render.chat import render as chat

    report = synthetic(1, message_len=1_450)
    notes = [f"assumed: {k} " + "y" * 400 for k in ("first", "second")]
    report = replace(report, notes=notes)
    text = chat(report, limit=1_900)
    assert len(text) <= 1_900
    assert "FAIL (high) `Node/object-00000`" in text and "x" * 1_450 in text
    assert "_… 2 assumption notes in the JSON report" in text and "_assumed: first" not in text
    assert "not shown" not in text
    # roomy enough: the notes are named, as before
    assert "_assumed: first" in chat(report, limit=3_500)
    # a finding longer than the limit: its heading and its message cut (trial 206: it was counted and shown nowhere)
    huge = replace(synthetic(1, message_len=2_500), notes=notes)
    text = chat(huge, limit=1_900)
    assert len(text) <= 1_900
    assert "FAIL (high) `Node/object-00000` · `big-policy/rule-a`\nobject-00000: xxx" in text
    assert text.rstrip().endswith("x…") and "not shown" not in text


def test_chat_under_a_limit_no_finding_fits_shows_the_worst_message_cut_and_no_cut_fix() -> None:
    """Regression (trial 206): at limit 1,000 (and 500 to 1,200) a dump's one fail, whose fix ran 869 characters, was
    counted ("1 fail") and shown nowhere, where markdown showed it shortened. The worst finding's heading and message,
    cut at a word, stand; its fix, never cut (a cut command may run), is said to be left out; the rest are counted."""
    from rules.render.chat import render as chat

    report = synthetic(3, message_len=300)
    long_fix = "kubectl label node object-00000 --overwrite nvidia.com/gpu.workload.config=container  # " + "y " * 600
    report = replace(
        report,
        objects=[replace(o, results=tuple(replace(r, remediation=long_fix) for r in o.results)) for o in report.objects],
    )
    for limit in (500, 1_000, 1_200):
        text = chat(report, limit=limit)
        assert len(text) <= limit, (limit, len(text))
        assert "FAIL (high) `Node/object-00000` · `big-policy/rule-a`" in text
        assert "\n_its fix is not shown here: `--limit 0` or `limit=0` shows it_\n" in text
        assert "kubectl label" not in text  # no part of the fix
        assert text.rstrip().endswith(
            f"_… 2 more findings not shown (limit {limit:,} characters; `--limit 0` or `limit=0`: all)_"
        )
    whole = chat(report, limit=0)
    assert long_fix.split("  #")[0] in whole and "its fix is not shown" not in whole


def test_chat_at_the_least_limit_says_the_way_to_a_cut_finding_s_fix_once() -> None:
    """Regression (trial 235 #1): at limit 500, once the cut finding's last line and the closing line both said
    "`--limit 0` or `limit=0`", a finding whose heading ran about 100 characters found under 80 for its message, and
    the message named no finding ("_… 3 findings not shown"). Where the room is that short, the cut finding's line
    says its fix is not shown, and the closing line under it says the way to it."""
    from rules.render.chat import render as chat

    fix = "kubectl label node object-00000 --overwrite nvidia.com/gpu.workload.config=container  # " + "y " * 300
    report = synthetic(3, message_len=300)
    objects = [
        replace(
            o, ref=replace(o.ref, name=f"{o.ref.name}-{'g' * 40}"), results=tuple(replace(r, remediation=fix) for r in o.results)
        )
        for o in report.objects
    ]
    report = replace(report, objects=objects, notes=[f"assumed: note {i} " + "y" * 200 for i in range(16)])
    text = chat(report, limit=500)
    assert len(text) <= 500, len(text)
    assert f"\nFAIL (high) `Node/object-00000-{'g' * 40}` · `big-policy/rule-a`\nobject-00000: xxx" in text, text
    assert "…\n_its fix is not shown here_\n\n" in text and "kubectl" not in text, text
    assert text.rstrip().endswith("_… 2 more findings not shown (limit 500 characters; `--limit 0` or `limit=0`: all)_")
    # with room, the cut finding's own line says the way, as before
    roomy = chat(report, limit=700)
    assert len(roomy) <= 700 and "\n_its fix is not shown here: `--limit 0` or `limit=0` shows it_\n" in roomy, roomy


def test_a_chat_batch_under_a_limit_no_finding_fits_shows_the_worst_message_cut() -> None:
    """Regression (trial 208): 6ce7b55 showed the worst finding cut where none fit a single dump's chat message; a
    batch at limit 1,000 still counted every finding and showed none."""
    from rules.render.chat import render_many as chat_many

    long_fix = "kubectl label node object-00000 --overwrite nvidia.com/gpu.workload.config=container  # " + "y " * 600

    def dump(name: str) -> Any:
        report = synthetic(2, message_len=300)
        objects = [replace(o, results=tuple(replace(r, remediation=long_fix) for r in o.results)) for o in report.objects]
        return replace(report, name=name, objects=objects)

    text = chat_many([dump("a.yaml"), dump("b.yaml")], limit=1_000)
    assert len(text) <= 1_000
    assert "== a.yaml ==" in text and "== b.yaml ==" not in text
    assert "FAIL (high) `Node/object-00000` · `big-policy/rule-a`" in text
    assert "\n_its fix is not shown here: `--limit 0` or `limit=0` shows it_\n" in text and "kubectl label" not in text
    assert text.rstrip().endswith(
        "_… 1 more dump and 3 more findings not shown (limit 1,000 characters; `--limit 0` or `limit=0`: all)_"
    )


def test_a_chat_batch_at_the_least_limit_counts_a_long_note_every_dump_carries() -> None:
    """Regression (trial 181): at --limit 500 a batch whose dumps all carried a 330-character note (what was set
    beside the archives) wrote it whole under the total line: 574 characters, past the limit a chat API refuses."""
    from rules.render.chat import render_many as chat_many

    note = "tests/data: a batch of 2 must-gathers and 9 folders, each judged alone; " + "z" * 260
    reports = [replace(synthetic(1, message_len=50), name=f"d{i}.yaml", notes=[note]) for i in range(2)]
    text = chat_many(reports, limit=500)
    assert len(text) <= 500
    assert "_… 1 note in the JSON report" in text and "z" * 260 not in text
    assert "z" * 260 in chat_many(reports, limit=3_500)  # room enough: said whole, as before


def test_a_command_span_keeps_its_placeholders_and_breaks_a_chat_mention() -> None:
    """Trials 186, 187: a code span's command held a zero-width space after each "<" (``all-<​profile>``), copied with
    it; a span reads no tag or link, so only Slack's mention and link forms are broken there."""
    fix = "kubectl label node n nvidia.com/mig.config=all-<profile> --overwrite; kubectl get pods <!here> <@U1>"
    assert markdown.cell(fix, 1000, command=True) == (
        "`kubectl label node n nvidia.com/mig.config=all-<profile> --overwrite`; `kubectl get pods <\u200b!here> <\u200b@U1>`"
    )
    # trial 188: a placeholder with a colon, and an image digest, are no mention or link either
    assert markdown.cell("kubectl run x --image=nvcr.io/d@sha256:ab -- curl <host:port> @here", 1000, command=True) == (
        "`kubectl run x --image=nvcr.io/d@sha256:ab -- curl <host:port> @\u200bhere`"
    )
    # in prose, every "<" is broken still: GitHub drops an unknown tag (<manifest>) from what it shows
    assert markdown.cell("see <manifest>", 1000, command=True) == "see <\u200bmanifest>"


def test_every_command_span_of_the_pack_fixtures_ends_where_its_command_does() -> None:
    """Trial 186: markdown spanned "virtctl restart -n vms vm-mig: its running VMI keeps the old spec until then" and
    "kubectl describe nodes from someone who may list them" whole, prose in the backquotes, where a fix ran from a
    command into its prose with no stop. Every remediation of the pack's fixtures is spanned here: no span holds a
    ": " outside its quotes, nor a word of prose after its arguments."""
    from rules.evaluate import evaluate
    from rules.loader import load_policies
    from rules.packtest import _dump, load_pack_tests
    from rules.shell import command_spans

    prose = re.compile(r"\s(?:for each|from someone|restarts it|until then|its running)\b")
    pack = load_policies()
    tests, _ = load_pack_tests(ROOT / "policies" / "gpu-operator")
    spans: set[str] = set()
    for test in tests:
        for obj in evaluate(_dump(test), pack, name=test.name).objects:
            for r in obj.results:
                spans.update(r.remediation[a:b] for a, b in command_spans(r.remediation or ""))
    assert len(spans) > 300
    unquoted = {s: re.sub(r"'[^']*'|\"[^\"]*\"", "''", s) for s in spans}
    assert sorted(s for s, bare in unquoted.items() if ": " in bare or prose.search(bare)) == []


def _label_policies(tmp_path: Path, message: str = "no {sev}", remediation: str = "") -> Any:
    """A policy of two rules, ``high`` and ``medium``, each failing a Node without a label of its name (``message`` and
    ``remediation`` written with ``{sev}`` for the rule's severity)."""
    from rules.loader import load_policies

    policy = tmp_path / "p.yaml"
    policy.write_text(
        "apiVersion: verdict/v1\nkind: Policy\nmetadata: {name: p}\nspec:\n  rules:\n"
        + "".join(
            f"  - id: {sev}\n    title: {sev}\n    severity: {sev}\n    match: {{kinds: [Node]}}\n"
            f"    assert: {{path: \"$.metadata.labels['{sev}']\", exists: true}}\n"
            f"    message: '{message.format(sev=sev)}'\n"
            + (f"    remediation: {remediation.format(sev=sev)}\n" if remediation else "")
            + "    references: ['https://kubernetes.io/']\n"
            for sev in ("high", "medium")
        )
    )
    return load_policies([str(policy)])


def _node_list(name: str, labels: dict[str, str], nodes: int, policies: Any) -> Report:
    """The report of a List of ``nodes`` Nodes named ``<name>-<i>``, each with ``labels``, read as the file ``name``."""
    from rules.engine import audit_bytes

    items = [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"{name}-{i}", "labels": labels}} for i in range(nodes)]
    return audit_bytes(json.dumps({"kind": "List", "apiVersion": "v1", "items": items}).encode(), name, policies)


def test_a_batch_index_names_the_dump_with_the_worst_finding_first(tmp_path: Path) -> None:
    """Regression (trial 197): at the default limit a batch's Markdown index named a dump with two medium failures
    and folded one with a high failure into "… 1 more dump"; dumps with findings are ranked by their worst severity,
    then by how many fail."""
    from rules.render.markdown import DUMP_INDEX, _dump_index

    policies = _label_policies(tmp_path)
    reports = [_node_list(f"medium-{i}", {"high": "x"}, 2, policies) for i in range(DUMP_INDEX)]
    reports.append(_node_list("high", {"medium": "x"}, 1, policies))
    index = _dump_index(reports, DUMP_INDEX)
    assert index[0] == "- high: 1 fail (1 high)", index
    assert index[-1] == "- … 1 more dump, each with its section below or in the JSON report"


def test_a_batch_message_says_the_worst_dumps_first(tmp_path: Path) -> None:
    """Regression (trial 230 #2): a batch in chat and Markdown at the default limit showed the first dump's medium
    findings whole, then a clean dump's heading, and left out the high findings of the dumps after the first and what
    could not be read ("3 input errors"). The sections follow the index's order: dumps not read first (their input
    errors alone, no summary line of noughts), then by their worst finding; a dump's heading comes with its first
    finding or not at all, and a clean dump only where nothing before it was left out."""
    from rules.engine import audit_bytes

    policies = _label_policies(
        tmp_path, "Node {{name}} lacks the {sev} label " + "x" * 1500, "kubectl label node {{name}} {sev}=x"
    )
    reports = [
        _node_list("mediums", {"high": "x"}, 6, policies),
        _node_list("clean", {"high": "x", "medium": "x"}, 1, policies),
        audit_bytes(b'{"kind": "List", "items": [', "cut.json", policies),
        _node_list("highs", {"medium": "x"}, 1, policies),
    ]
    chat = render_many(reports, "chat")
    assert len(chat) <= 3500
    headings = [x for x in chat.splitlines() if x.startswith("== ")]
    # (the medium findings do not fit beside the high one: the clean dump after them is not shown either)
    assert headings == ["== cut.json ==", "== highs =="], chat
    assert chat.rstrip().endswith(
        "_… 2 more dumps and 6 more findings not shown (limit 3,500 characters; `--limit 0` or `limit=0`: all)_"
    )
    assert "== cut.json ==\n- cut.json, document 1, line 1: JSON syntax error" in chat
    assert "FAIL (high) `Node/highs-0` · `p/high`" in chat
    md = render_many(reports, "markdown")
    sections = [x for x in md.splitlines() if x.startswith("### ")]
    assert sections[:3] == ["### cut.json", "### highs", "### mediums"], md
    assert "### cut.json\n- cut.json, document 1, line 1: JSON syntax error" in md
    assert md.splitlines()[1:5] == [
        md.splitlines()[1],
        "- highs: 1 fail (1 high)",
        "- mediums: 6 fail (6 medium)",
        "- clean: no finding",
    ]


def test_notes_that_say_the_findings_may_be_false_come_before_them_under_a_limit() -> None:
    """Regression (trial 230 #1): an archive of three clusters' archives, read as one dump, judged one cluster's node by
    another's ClusterPolicy; the notes saying so ("the archive holds 3 archives or must-gathers, read here as one
    dump", "ClusterPolicy cluster-policy is in the dump twice and the two differ") were counted ("3 notes in the JSON
    report") under the findings at 1,500 characters, and at 3,500. They are said first, as assumptions are, cut shorter
    where they would not fit in half the message."""
    twice = (
        "ClusterPolicy cluster-policy is in the dump twice and the two differ (all.tgz!a.tgz!cp.yaml, document 1, line 2"
        " and all.tgz!b.tgz!must-gather/cluster_policy.yaml, document 1, items[0], line 3): rules that read it from other"
        " objects may use either; audit one cluster at a time"
    )
    archives = (
        "the archive holds 3 archives or must-gathers, read here as one dump: if they are of different clusters (or one"
        " cluster at different times), unpack it and audit the folder, a batch that judges each alone (all.tgz!a.tgz,"
        " all.tgz!b.tgz, all.tgz!c.tgz)"
    )
    report = synthetic(12, message_len=300, distinct=True)
    report.notes = [twice, "all.tgz!b.tgz: read as an NVIDIA GPU Operator must-gather", archives]
    report.notes += [f"skipped: reason {i} (3 results of p/r{i}; the rule judged no object)" for i in range(6)]
    for fmt, limit in (("chat", 1500), ("chat", 3500), ("markdown", 1500), ("markdown", 3500)):
        text = render(report, fmt, limit=limit)
        assert len(text) <= limit, (fmt, limit)
        lines = text.splitlines()
        assert lines[1].startswith("_note: ClusterPolicy cluster-policy is in the dump twice and the two differ"), (fmt, limit)
        assert lines[2].startswith("_note: the archive holds 3 archives or must-gathers, read here as one dump: if"), (fmt, limit)
        assert "object-00000" in text, (fmt, limit)
    whole = render(report, "chat", limit=0)
    assert f"_note: {twice}_\n_note: {archives}_\n" in whole
    # (trial 231 #2: three copies in two versions, and the line counting more such objects, are cautions too)
    report.notes = [
        "ClusterPolicy cp is in the dump 3 times in 2 different versions (a, b and 1 other): each version is judged",
        "and 2 more Node objects in the dump more than once with different content",
        "all.tgz!b.tgz: read as an NVIDIA GPU Operator must-gather",
    ]
    assert [x[:40] for x in markdown.caution_lines(report)] == [
        "_note: ClusterPolicy cp is in the dump 3",
        "_note: and 2 more Node objects in the du",
    ]


TWIN = (
    "apiVersion: v1\nkind: Node\nmetadata:\n  name: twin\n  labels: {nvidia.com/gpu.present: 'true',"
    " nvidia.com/gpu.workload.config: vm-passthrough}\nstatus: {allocatable: {cpu: '8'}}\n---\n"
    "apiVersion: v1\nkind: Node\nmetadata:\n  name: twin\n  labels: {nvidia.com/gpu.present: 'true',"
    " nvidia.com/gpu.workload.config: container}\nstatus: {allocatable: {cpu: '8', nvidia.com/gpu: '1'}}\n"
)


def _said_notes(text: str) -> int:
    """How many notes a message says or counts under its summary line (a count line counts its number)."""
    said = 0
    for x in text.split("\n\n")[0].splitlines()[1:]:
        counted = re.match(r"^_… ([\d,]+) .*notes? in the JSON report", x)
        said += int(counted.group(1).replace(",", "")) if counted else x.startswith("_")
    return said


def test_caution_notes_keep_a_message_in_its_limit_and_every_note_counted() -> None:
    """Regression (trial 231 #1, #2, after 6ed7e35): a Node twice and unlike took a chat message of limit 500 to 507
    characters (Markdown 538) and left its one high finding out; where the notes saying findings may be false filled
    the room, the other notes went unsaid and uncounted. Every message fits its limit, and says or counts every note."""
    from rules.engine import audit_bytes
    from rules.loader import load_policies

    report = audit_bytes(TWIN.encode(), "twice.yaml", load_policies())
    assert any("is in the dump twice and the two differ" in n for n in report.notes)
    for fmt in ("chat", "markdown"):
        for limit in (*range(500, 620, 10), 1000, 1500, 3500):
            text = render(report, fmt, limit=limit)
            assert len(text) <= limit, (fmt, limit, len(text))
            assert _said_notes(text) == len(report.notes), (fmt, limit, text[:600])
        text = render(report, fmt, limit=1000)
        assert "_note: Node twin is in the dump twice and the two differ" in text, fmt
    assert "`Node/twin`" in render(report, "chat", limit=500)


def test_a_chat_batch_shows_no_dump_after_a_worse_one_it_left_out() -> None:
    """Regression (trial 231 #3, #4, after 6ed7e35): the lab cluster (twelve findings, ten high) beside an unreadable
    file, an empty one and a Node twice: at 3,500 characters the lab's first finding did not fit and the milder dump
    after it was shown in its place, the lab named nowhere; at 1,500 the unreadable files went unsaid. The dumps not
    read come first, then the worst dump's worst finding, cut where it must be, and none after it."""
    from rules.engine import audit_bytes
    from rules.loader import load_policies

    policies = load_policies()
    reports = [
        audit_bytes((ROOT / "examples" / "lab-cluster.yaml").read_bytes(), "lab.yaml", policies),
        audit_bytes(b"this is not a dump at all\n just words: [\n", "garbage.yaml", policies),
        audit_bytes(b'{"kind": "List", "items": [', "cut.json", policies),
        audit_bytes(TWIN.encode(), "twice.yaml", policies),
    ]
    for limit in (1500, 2500, 3500):
        text = render_many(reports, "chat", limit=limit)
        assert len(text) <= limit
        headings = [x for x in text.splitlines() if x.startswith("== ")]
        assert headings == ["== garbage.yaml ==", "== cut.json ==", "== lab.yaml =="], (limit, headings)
        assert "FAIL (high) `Node/gpu-broken-wrong-class`" in text, limit


def test_a_batch_with_a_results_filter_ranks_dumps_by_the_findings_it_lists() -> None:
    """Regression (trial 231 #10): with results=warn, the dumps of failures the filter hid came first (as bare
    summary lines), before the dump of the warnings asked for; and the Markdown index of nine dumps took a message
    under 900 characters past its limit (trial 231 #9)."""
    from rules.engine import audit_bytes
    from rules.loader import load_policies

    policies = load_policies()
    lab = audit_bytes((ROOT / "examples" / "lab-cluster.yaml").read_bytes(), "lab.yaml", policies)
    off = audit_bytes((ROOT / "examples" / "sandbox-disabled.yaml").read_bytes(), "off.yaml", policies)
    assert lab.filtered({"warn"}).objects == [] or all(
        x.result != "warn" for o in lab.filtered({"warn"}).objects for x in o.results
    )
    batch = [r.filtered({"warn"}) for r in (lab, off)]
    text = render_many(batch, "chat")
    assert [x for x in text.splitlines() if x.startswith("== ")][0] == "== off.yaml =="
    index = render_many(batch, "markdown").splitlines()[1:3]
    assert index[0].startswith("- off.yaml: ") and index[1].startswith("- lab.yaml: "), index
    many = [audit_bytes(b"apiVersion: v1\nkind: [", f"broken-{i}.yaml", policies) for i in range(9)]
    for limit in range(500, 950, 25):
        assert len(render_many(many, "markdown", limit=limit)) <= limit, limit


def test_chat_cuts_the_assumption_notes_shorter_where_that_shows_one_more_finding() -> None:
    """Regression (trials 195, 198): a node-only dump's assumption notes, 400 characters each, took the room of the
    finding that named what to fix at the default limit. Where cutting them at 160 shows one more finding, they are."""
    from rules.engine import audit_bytes
    from rules.loader import load_policies

    report = audit_bytes((ROOT / "examples" / "lab" / "nodes.yaml").read_bytes(), "nodes.yaml", load_policies())
    text = render(report, "chat", limit=3300, group_by="object")
    assumed = [line for line in text.splitlines() if line.startswith("_assumed:")]
    assert assumed and all(len(line) <= 170 and line.endswith("…_") for line in assumed), assumed
    assert text.count("\nFAIL (high) ") + text.count("\nWARN (high) ") == 2, text
    assert len(text) <= 3300
    # by rule, each of the four failing rules is said (trial 223 #1): the first whole, the others cut, the notes
    # counted
    text = render(report, "chat", limit=3300)
    heads = [line.split(" · ")[1] for line in text.splitlines() if line.startswith("FAIL (high) ")]
    assert heads == [
        "`gpu-nodes/resource-class-matches-workload`",
        "`gpu-nodes/workload-label-valid`",
        "`gpu-nodes/vgpu-profile-matches-config`",
        "`gpu-nodes/single-resource-class`",
    ], text
    # (each cut paragraph with its fix's first command where that leaves its message 160 characters: trial 232 #2)
    cut = text.count("_its fix is not shown here: `--limit 0` or `limit=0` shows it_") + text.count(
        "_the rest of its fix is not shown here"
    )
    assert cut == 3 and len(text) <= 3300


def test_the_table_says_a_message_and_fix_once_for_objects_that_repeat_them() -> None:
    """Trial 218 #5: sixteen VMs asking for one name KubeVirt does not permit repeated one message (five lines) and one
    fix (three) sixteen times. A finding whose message is an earlier one's of its rule said of its own object, and whose
    fix is the same text, names that one instead; a message of its own is said whole, a fix naming its object too."""

    def vm(name: str, ns: str, message: str, fix: str, kind: str = "VirtualMachine") -> ObjectReport:
        return ObjectReport(
            ObjectRef("kubevirt.io/v1", kind, name, ns), Source("vms.yaml", 1, 3), (_result(message=message, remediation=fix),)
        )

    permit = "kubectl edit kubevirt -n kubevirt kubevirt  # permit nvidia.com/NVIDIA_A10-12Q"
    report = Report(
        objects=[
            vm("desk-1", "vdi-a", "VirtualMachine vdi-a/desk-1 asks for nvidia.com/NVIDIA_A10-12Q.", permit),
            vm("desk-2", "vdi-b", "VirtualMachine vdi-b/desk-2 asks for nvidia.com/NVIDIA_A10-12Q.", permit),
            # desk-1 as a word of a longer name is not its own: a message of its own
            vm("desk-10", "vdi-a", "VirtualMachine vdi-a/desk-10 asks for nvidia.com/NVIDIA_A10-12Q (desk-1's copy).", permit),
            # the same words of another kind: its own
            vm(
                "scratch",
                "vdi-a",
                "VirtualMachineInstance vdi-a/scratch asks for nvidia.com/NVIDIA_A10-12Q.",
                permit,
                "VirtualMachineInstance",
            ),
            # the same message, a fix naming the object: the fix is shown
            vm(
                "desk-3",
                "vdi-a",
                "VirtualMachine vdi-a/desk-3 asks for nvidia.com/NVIDIA_A10-12Q.",
                "kubectl edit vm -n vdi-a desk-3",
            ),
        ],
        objects_read=5,
    )
    lines = [line.strip() for line in table.render(report, width=160).splitlines()]
    body = lines[lines.index("Nodes are fine") + 1 :]
    assert body == [
        "fail  VirtualMachine/vdi-a/desk-1  vms.yaml:3",
        "VirtualMachine vdi-a/desk-1 asks for nvidia.com/NVIDIA_A10-12Q.",
        "fix: kubectl edit kubevirt -n kubevirt kubevirt # permit nvidia.com/NVIDIA_A10-12Q",
        "fail  VirtualMachine/vdi-b/desk-2  vms.yaml:3",
        "as for VirtualMachine/vdi-a/desk-1 above (the same message, of this object, and the same fix)",
        "fail  VirtualMachine/vdi-a/desk-10  vms.yaml:3",
        "VirtualMachine vdi-a/desk-10 asks for nvidia.com/NVIDIA_A10-12Q (desk-1's copy).",
        "fix: as for VirtualMachine/vdi-a/desk-1 above",
        "fail  VirtualMachineInstance/vdi-a/scratch  vms.yaml:3",
        "VirtualMachineInstance vdi-a/scratch asks for nvidia.com/NVIDIA_A10-12Q.",
        "fix: as for VirtualMachine/vdi-a/desk-1 above",
        "fail  VirtualMachine/vdi-a/desk-3  vms.yaml:3",
        "as for VirtualMachine/vdi-a/desk-1 above (the same message, of this object)",
        "fix: kubectl edit vm -n vdi-a desk-3",
    ]
    # by object, every finding is said whole under its object
    assert table.render(report, width=160, group_by="object").count("asks for") == 5


def test_chat_says_a_finding_of_several_objects_in_one_paragraph_and_counts_them_all() -> None:
    """Trial 218 #5 and trial 216 #3: sixteen VMs asking for one name KubeVirt does not permit took a paragraph each,
    and 3,500 characters held one. Findings of one rule whose message an earlier one's says of their own object and
    whose fix is the same text are said in that one's paragraph: under a limit five named, the rest counted, and every
    one counted in the closing line as a finding shown or not; with no limit (0) every one named (trial 224 #3)."""
    report = synthetic(12, message_len=200)
    text = render(report, "chat", limit=3_500)
    assert text.count("FAIL (high)") == 1
    assert (
        "Said the same of 11 more objects: `Node/object-00001`, `Node/object-00002`, `Node/object-00003`,"
        " `Node/object-00004`, `Node/object-00005` and 6 more.\n" in text
    )
    text = render(report, "chat", limit=0)
    named = ", ".join(f"`Node/object-{i:05}`" for i in range(1, 12))
    assert text.count("FAIL (high)") == 1 and f"Said the same of 11 more objects: {named}.\n" in text
    # with a fix, the paragraph says the fix is the same; a finding of its own is said whole after
    fix = "kubectl label node object-00000 gpu=on"
    objs = [replace(o, results=(replace(o.results[0], remediation="kubectl edit cm x"),)) for o in report.objects]
    objs[3] = replace(objs[3], results=(replace(objs[3].results[0], remediation=fix),))
    text = render(replace(report, objects=objs), "chat", limit=0)
    assert text.count("FAIL (high)") == 2 and "Said the same of 10 more objects, with the same fix: " in text
    assert "FAIL (high) `Node/object-00003`" in text and f"```\n{fix}\n```" in text
    # trial 221 #1: a fix naming its own object is said once too, as written for the first, and said so
    objs = [replace(o, results=(replace(o.results[0], remediation=f"kubectl edit cm {o.ref.name}"),)) for o in report.objects]
    text = render(replace(report, objects=objs), "chat", limit=0)
    assert text.count("FAIL (high)") == 1 and "```\nkubectl edit cm object-00000\n```" in text
    assert (
        "Said the same of 11 more objects, each with the fix below written for it (its own name in place of"
        " object-00000): `Node/object-00001`," in text
    )
    # under a limit, a paragraph too long to fit is cut, first (the worst first: trial 224 #1), the one other, shorter
    # finding whole after it, and the findings the cut paragraph said of its other objects counted
    alike = synthetic(11, message_len=1_200)
    other = replace(alike.objects[0], ref=replace(alike.objects[0].ref, name="other"))
    other = replace(other, results=(replace(other.results[0], message="other: short"),))
    text = render(replace(alike, objects=[*alike.objects, other]), "chat", limit=1_500)
    heads = [line for line in text.splitlines() if line.startswith("FAIL (high)")]
    # (the cut paragraph's heading counts the objects its cut "Said the same of" line named: trial 235 #4)
    assert len(text) <= 1_500 and heads == [
        "FAIL (high) `Node/object-00000` and 10 more objects · `big-policy/rule-a`",
        "FAIL (high) `Node/other` · `big-policy/rule-a`",
    ]
    assert "Said the same" not in text and "object-00000: xxx" in text and "…" in text
    # (its heading counts them, and the closing line does not count them again: trial 237 #3)
    assert "not shown (limit" not in text and text.endswith(
        "\n\nFAIL (high) `Node/other` · `big-policy/rule-a`\nother: short\n"
    ), text


def test_a_message_is_said_again_of_an_object_only_where_its_reference_differs_alone() -> None:
    """Regression (trial 222 #2, #3): the object's name or namespace was put as a mark wherever it stood as a word, so
    pod t4/train's "no node has label gpu-type=t4" read as "as for Pod/a100/train above (the same message ...)", whose
    message names gpu-type=a100; and a pattern compiled for each name took 9.7 s for 100,000 findings. Only the
    object's reference is its own: ns/name, the namespace after -n, the name as a word (not a label's value, not in
    nvidia.com/gpu), found by plain string search."""
    from rules.render import message_shape

    def pod(ns: str, name: str, message: str) -> ObjectReport:
        return ObjectReport(ObjectRef("v1", "Pod", name, ns), Source("p.yaml", 1, 3), (_result(message=message),))

    report = Report(
        objects=[
            pod("a100", "train", "Pod a100/train cannot be scheduled: no node has label gpu-type=a100"),
            pod("t4", "train", "Pod t4/train cannot be scheduled: no node has label gpu-type=t4"),
            pod("ml", "gpu", "Pod ml/gpu asks for nvidia.com/gpu, which no node advertises"),
            pod("ml", "cuda", "Pod ml/cuda asks for nvidia.com/gpu, which no node advertises"),
        ],
        objects_read=4,
    )
    text = table.render(report, width=160)
    assert "no node has label gpu-type=a100" in text and "no node has label gpu-type=t4" in text
    assert "as for Pod/ml/gpu above (the same message, of this object)" in text
    assert text.count("as for") == 1
    ref = ObjectRef("v1", "VirtualMachine", "ml", "ml")
    assert message_shape(ref, "VM ml/ml in namespace ml: kubectl edit vm -n ml ml; virtctl restart --namespace=ml ml") == (
        "VM \x00R in namespace \x00S: kubectl edit vm -n \x00S \x00N; virtctl restart --namespace=\x00S \x00N"
    )
    node = ObjectRef("v1", "Node", "gpu-1")
    assert message_shape(node, "Node gpu-1 beside gpu-10, x.gpu-1 and pool=gpu-1; gpu-1.") == (
        "Node \x00N beside gpu-10, x.gpu-1 and pool=gpu-1; \x00N."
    )
    # a node's field selector of its own name is its own too (trial 237 #4: four nodes' findings, whose fixes each ran
    # "kubectl get pods -A --field-selector spec.nodeName=<node>", were four paragraphs in chat, one in the table);
    # a pod's spec.nodeName is its node's, not its own
    fix = "kubectl get pods -A --field-selector spec.nodeName=gpu-1 | grep nvidia; kubectl label node gpu-1 a=b"
    assert (
        message_shape(node, fix)
        == "kubectl get pods -A --field-selector spec.nodeName=\x00N | grep nvidia; kubectl label node \x00N a=b"
    )
    on = ObjectRef("v1", "Pod", "gpu-1", "ml")
    assert message_shape(on, "kubectl get pods --field-selector spec.nodeName=gpu-1") == (
        "kubectl get pods --field-selector spec.nodeName=gpu-1"
    )
    nodes = [
        ObjectReport(
            ObjectRef("v1", "Node", f"gpu-{k}"),
            Source("n.yaml", 1 + 9 * k, 9 + 9 * k),
            (_result(message=f"Node gpu-{k} is wrong", remediation=fix.replace("gpu-1", f"gpu-{k}")),),
        )
        for k in range(4)
    ]
    said = render(Report(objects=nodes, objects_read=4), "chat", limit=0)
    assert said.count("FAIL (high)") == 1, said
    assert "Said the same of 3 more objects, each with the fix below written for it (its own name in place of gpu-0)" in said


def test_chat_says_every_failing_rule_at_least_once_its_paragraph_cut_where_it_does_not_fit_whole() -> None:
    """Regression (trial 223 #1): two rules' paragraphs filled the 3,500 characters beside the skip notes, and the third
    failing rule (two VMs kube-scheduler cannot place) went unsaid but for a count. A rule none of whose paragraphs
    fits whole is said by its first one cut (heading, message cut at a word, where its fix is), the skip notes
    counted; a whole paragraph of a rule that has another gives way to it where that makes room."""

    def obj(i: int, rule: str, message: str) -> ObjectReport:
        ref = ObjectRef("v1", "Node", f"node-{i}")
        return ObjectReport(ref, Source("n.yaml", 1, 3 + i), (_result(message=message, rule=rule, remediation=f"kubectl x {i}"),))

    long = "y" * 1_400
    report = Report(
        objects=[
            obj(0, "rule-a", f"node-0 a {long}"),
            obj(1, "rule-b", f"node-1 b {long}"),
            obj(2, "rule-c", f"node-2 c {long}"),
        ],
        objects_read=3,
        notes=[f"skipped: reason {k} " + "z" * 200 + " (3 results of p/r; the rule judged no object)" for k in range(3)],
    )
    text = render(report, "chat", limit=3_500)
    assert len(text) <= 3_500
    assert [line.split(" · ")[1] for line in text.splitlines() if line.startswith("FAIL")] == [
        "`big-policy/rule-a`",
        "`big-policy/rule-b`",
        "`big-policy/rule-c`",
    ]
    # (the cut one with its one command, trial 232 #2: a message of 160 characters or more beside it)
    assert "```\nkubectl x 0\n```" in text and "```\nkubectl x 1\n```" in text and "```\nkubectl x 2\n```" in text
    assert "node-2 c yyy" in text and "yyy…\n```\nkubectl x 2\n```" in text and "fix is not shown" not in text
    assert "_skipped:" not in text and "3 skip or not-applied notes" in text
    assert "not shown (limit" not in text  # every finding is shown, one cut
    # two findings of rule-a: its second paragraph gives way to rule-c's
    second = obj(3, "rule-a", f"node-3 other {long}")
    text = render(replace(report, objects=[report.objects[0], second, *report.objects[1:]], objects_read=4), "chat", limit=3_500)
    heads = [line.split(" · ")[1] for line in text.splitlines() if line.startswith("FAIL")]
    assert heads == ["`big-policy/rule-a`", "`big-policy/rule-b`", "`big-policy/rule-c`"], heads
    assert text.rstrip().endswith("_… 1 more finding not shown (limit 3,500 characters; `--limit 0` or `limit=0`: all)_")


def test_the_table_writes_a_repeated_fix_naming_its_object_without_the_comments_said_above() -> None:
    """Regression (trial 221 #4, trial 223 #6): seven VMs with one message, each a fix of four lines naming its VM in
    one, printed all four for each. Under "as for X above", the fix's commands are shown (each names its object, and
    what is pasted runs as the fix means) and its comment lines that are X's word for word are said once."""

    def vm(name: str) -> ObjectReport:
        fix = (
            f"kubectl edit virtualmachine -n vms {name}  # then virtctl restart -n vms {name}; or, where a node advertises"
            " the name it asks for, permit that name: kubectl edit kubevirt -n kubevirt kubevirt"
        )
        message = f"VirtualMachine vms/{name} asks for nvidia.com/NVIDIA_A10-4Q."
        return ObjectReport(
            ObjectRef("kubevirt.io/v1", "VirtualMachine", name, "vms"),
            Source("v.yaml", 1, 3),
            (_result(message=message, remediation=fix),),
        )

    report = Report(objects=[vm("vm-1"), vm("vm-2")], objects_read=2)
    lines = [line.strip() for line in table.render(report, width=100).splitlines()]
    second = lines[lines.index("fail  VirtualMachine/vms/vm-2  v.yaml:3") + 1 :]
    assert second == [
        "as for VirtualMachine/vms/vm-1 above (the same message, of this object)",
        "fix: kubectl edit virtualmachine -n vms vm-2 # then virtctl restart -n vms vm-2",
        "# the rest as for VirtualMachine/vms/vm-1 above",
    ], second
    first = lines[
        lines.index("fail  VirtualMachine/vms/vm-1  v.yaml:3") + 1 : lines.index("fail  VirtualMachine/vms/vm-2  v.yaml:3")
    ]
    assert first[-2:] == [
        "# or, where a node advertises the name it asks for, permit that name:",
        "# kubectl edit kubevirt -n kubevirt kubevirt",
    ], first


def test_chat_under_a_limit_says_the_worst_finding_first_cut_rather_than_a_milder_one_in_its_place() -> None:
    """Regression (trial 224 #1): at 1,900 characters the one finding shown was an info warning, whole, where 27 high
    failures' first paragraph was too long to fit. The worst is shown first, cut, then what fits whole after it."""
    high = ObjectReport(
        ObjectRef("v1", "Pod", "train-0", "ml"),
        Source("p.yaml", 1, 3),
        (_result(message="Pod ml/train-0 cannot be scheduled: " + "w" * 2_400, rule="rule-a", remediation="kubectl x"),),
    )
    mild = ObjectReport(
        ObjectRef("v1", "Node", "mig-1"),
        Source("p.yaml", 1, 30),
        (_result("warn", message="Node mig-1 lists a resource at 0", rule="rule-b", severity="info", remediation="kubectl y"),),
    )
    report = Report(objects=[high, mild], objects_read=2)
    # (by object: by rule, each rule is said at least once anyway)
    for group_by in ("object", "rule"):
        text = render(report, "chat", limit=1_900, group_by=group_by)
        heads = [line for line in text.splitlines() if line.startswith(("FAIL", "WARN"))]
        assert heads == ["FAIL (high) `Pod/ml/train-0` · `big-policy/rule-a`", "WARN (info) `Node/mig-1` · `big-policy/rule-b`"]
        assert len(text) <= 1_900 and "w…\n```\nkubectl x\n```\n" in text  # (cut, its command kept: trial 232 #2)
        assert "```\nkubectl y\n```" in text and "not shown (limit" not in text


def test_a_repeated_fix_keeps_its_wrapped_prose_whole_up_to_its_last_line_of_its_own() -> None:
    """Regression (trial 224 #4): the comment lines that were the earlier fix's word for word were left out wherever
    they stood, so a sentence wrapped over several lines read as fragments. Only those it ends with are said once."""

    def pod(name: str) -> ObjectReport:
        fix = (
            f"kubectl get pod {name}  # alpha beta gamma delta epsilon zeta eta theta iota kappa then {name} lambda mu nu"
            " xi omicron pi rho sigma tau upsilon phi chi psi omega"
        )
        message = f"Pod ml/{name} waits."
        return ObjectReport(
            ObjectRef("v1", "Pod", name, "ml"), Source("p.yaml", 1, 3), (_result(message=message, remediation=fix),)
        )

    text = table.render(Report(objects=[pod("p-1"), pod("p-2")], objects_read=2), width=50)
    second = text[text.index("fail  Pod/ml/p-2") :]
    assert "alpha beta gamma" in second and "then p-2 lambda" in second  # the sentence up to its own line, whole
    assert "omega" not in second and second.rstrip().endswith("# the rest as for Pod/ml/p-1 above"), second


def test_markdown_names_the_earlier_row_a_repeated_finding_says_again() -> None:
    """Trial 226 #3 (and trial 221 #5): eight VMs asking for one name KubeVirt does not permit filled Markdown's 3,500
    characters with one message eight times, the next rule's findings cut, where the table and chat said it once. By
    rule, a row whose message an earlier row of its rule says of its own object names that row in its message cell,
    and its fix cell does where the fix is the same text; a fix naming its own object is shown. By object, each row
    says its own."""
    report = synthetic(12, message_len=200)
    objs = [replace(o, results=(replace(o.results[0], remediation="kubectl edit cm x"),)) for o in report.objects]
    text = render(replace(report, objects=objs), "markdown", limit=0)
    rows = [line for line in text.splitlines() if line.startswith("| ") and "fail · high" in line]
    assert len(rows) == 12 and "object-00000: xxx" in rows[0] and "`kubectl edit cm x`" in rows[0]
    again = "as for `Node/object-00000` above (the same message, of this object, and the same fix)"
    assert all(f"| {again} | as for `Node/object-00000` above |" in r for r in rows[1:]), rows[1]
    assert text.count(": xxx") == 1
    # a fix naming its own object is shown, under the message said as above
    objs = [replace(o, results=(replace(o.results[0], remediation=f"kubectl edit cm {o.ref.name}"),)) for o in report.objects]
    rows = [line for line in render(replace(report, objects=objs), "markdown", limit=0).splitlines() if "fail · high" in line]
    assert rows[5].endswith(
        "| as for `Node/object-00000` above (the same message, of this object) | `kubectl edit cm object-00005` |"
    ), rows[5]
    # by object, each says its own
    text = render(replace(report, objects=objs), "markdown", limit=0, group_by="object")
    assert "as for" not in text and text.count(": xxx") == 12
    # under a limit, more of the rows fit than when each said its message
    cut = render(replace(report, objects=objs), "markdown", limit=2_000)
    each = render(replace(report, objects=objs), "markdown", limit=2_000, group_by="object")
    assert len(cut) <= 2_000 and cut.count("fail · high") == 9 and each.count("fail · high") == 5, (cut, each)


def test_a_cut_chat_finding_keeps_its_first_command() -> None:
    """Regression (trial 232 #2): at limit 1,000 chat kept a long warning's message whole and put "its fix is not shown
    here: limit 0 shows it" in place of its one command, which the person in the chat cannot ask for. A cut paragraph
    keeps its fix's first command where its message keeps 160 characters beside it, and says where the rest is."""
    finding = ObjectReport(
        ObjectRef("v1", "Node", "gpu-node-2"),
        Source("n.yaml", 1, 3),
        (
            _result(
                "warn",
                message="Node gpu-node-2 is labelled for VMs " + "v" * 1_500,
                remediation="kubectl label node gpu-node-2 nvidia.com/gpu.workload.config-; kubectl get nodes -L x",
            ),
        ),
    )
    text = render(Report(objects=[finding], objects_read=1), "chat", limit=1_000)
    assert len(text) <= 1_000
    assert "v…\n```\nkubectl label node gpu-node-2 nvidia.com/gpu.workload.config-\n```\n" in text
    assert (
        "_the rest of its fix is not shown here: `--limit 0` or `limit=0` shows it_" in text and "kubectl get nodes" not in text
    )


def test_a_cut_chat_finding_keeps_the_comment_lines_leading_to_its_first_command() -> None:
    """Regression (trial 233 #1): a VM-labelled node advertising nvidia.com/gpu and carrying the container operands'
    deploy labels, no ClusterPolicy in the dump, has two warnings; at chat's default limit the second kept its whole
    message and dropped its fix, whose first step ("First see whether sandbox workloads are on:" and the check under
    it) is the first thing to run. A cut paragraph keeps the comment lines that lead to its fix's first command."""
    from rules.engine import audit_bytes
    from rules.loader import load_policies

    labels = "".join(
        f"    nvidia.com/gpu.deploy.{o}: 'true'\n"
        for o in ("driver", "container-toolkit", "device-plugin", "gpu-feature-discovery", "dcgm-exporter", "operator-validator")
    )
    node = (
        "apiVersion: v1\nkind: Node\nmetadata:\n  name: gpu-node-2\n  labels:\n"
        "    nvidia.com/gpu.workload.config: vm-passthrough\n    nvidia.com/gpu.present: 'true'\n" + labels + "status:\n"
        "  capacity: {nvidia.com/gpu: '1'}\n  allocatable: {nvidia.com/gpu: '1'}\n"
    )
    report = audit_bytes(node.encode(), "t233.yaml", load_policies())
    text = render(report, "chat")
    assert len(text) <= 3_500
    assert "WARN (high) `Node/gpu-node-2` · `gpu-nodes/resource-class-matches-workload`" in text
    second = text[text.index("WARN (medium) `Node/gpu-node-2` · `gpu-nodes/deploy-labels-match-workload`") :]
    check = "kubectl get clusterpolicies.nvidia.com -o yaml | grep -A3 sandboxWorkloads"
    assert f"\n```\n# First see whether sandbox workloads are on:\n{check}\n```\n" in second, second
    assert "_the rest of its fix is not shown here: `--limit 0` or `limit=0` shows it_" in second
    assert "kubectl label node gpu-node-2" not in second  # the relabel is a later step, for after the check
    # a fix that runs nothing (each command an alternative, commented out) is kept whole, a choice (trial 241 #7), or
    # not at all where it does not fit: never one side of it alone
    from rules.render.chat import fix_lines

    fix = "If it is meant for VMs: kubectl label node n a=b; if not: kubectl label node n c=d. Then: kubectl get nodes"
    lines = fix_lines(fix)
    assert lines == [
        "# If it is meant for VMs:",
        "# kubectl label node n a=b",
        "# if not:",
        "# kubectl label node n c=d",
        "# Then:",
        "# kubectl get nodes",
    ]
    finding = ObjectReport(ObjectRef("v1", "Node", "n"), Source("n.yaml", 1, 3), (_result("warn", "m " * 600, remediation=fix),))
    cut = render(Report(objects=[finding], objects_read=1), "chat", limit=1_000)
    assert len(cut) <= 1_000 and "m…\n```\n" + "\n".join(lines) + "\n```\n" in cut, cut
    assert "not shown here" not in cut.split("m…")[1], cut
    long = fix.replace("n c=d", "n " + " ".join(f"c{i}=d" for i in range(120)))
    finding = ObjectReport(ObjectRef("v1", "Node", "n"), Source("n.yaml", 1, 3), (_result("warn", "m " * 600, remediation=long),))
    cut = render(Report(objects=[finding], objects_read=1), "chat", limit=1_000)
    assert "_its fix is not shown here: `--limit 0` or `limit=0` shows it_" in cut and "kubectl" not in cut, cut


def test_cut_chat_findings_share_the_room_worst_first() -> None:
    """Regression (trial 242 #12): at chat's default limit a KubeVirt dump's five high findings and two milder ones were
    each cut to a like share of the room; the fixes of three high ones, longer than that share, were not shown, while
    a low warning's short one was. The room goes worst first: each cut finding keeps its fix where those after it
    still get their least room, and what a shorter paragraph leaves goes to the next."""

    def finding(i: int, severity: str, command: str) -> ObjectReport:
        result = _result("fail", f"node-{i} " + "m " * 700, rule=f"rule-{i}", severity=severity, remediation=command)
        return ObjectReport(ObjectRef("v1", "Node", f"node-{i}"), Source("n.yaml", 1, 3 + 10 * i, i), (result,))

    long = "kubectl get nodes -o custom-columns=" + ",".join(f"C{j}:.status.allocatable.c{j}" for j in range(12))
    objects = [finding(i, "high", f"{long} # {i}") for i in range(3)] + [finding(3, "low", "kubectl get nodes # 3")]
    # (at 2,200 characters a like share of the room is some 50 characters short of each high finding's fix)
    text = render(Report(objects=objects, objects_read=4), "chat", limit=2_200)
    assert len(text) <= 2_200
    paragraphs = {p.split("`")[1]: p for p in text.split("\n\n") if p.startswith(("FAIL", "WARN"))}
    assert sorted(paragraphs) == ["Node/node-0", "Node/node-1", "Node/node-2", "Node/node-3"], text
    for i in range(3):
        assert f"\n```\n{long} # {i}\n```" in paragraphs[f"Node/node-{i}"], paragraphs[f"Node/node-{i}"]
        assert "not shown here" not in paragraphs[f"Node/node-{i}"]


def test_a_cut_chat_message_keeps_its_worst_finding_s_fix_first() -> None:
    """Regression (trial 241 #7): a sandbox-off lab (a passthrough node that still advertises its PCI resource, a vGPU
    node running a container GPU pod) gave four rules' findings; at chat's default limit each was cut to a like share
    of the room, and the one high finding's fix, a choice between turning sandbox workloads on and relabelling the
    node, longer than a medium finding's first command, was the one not shown. The worst cut finding keeps its fix
    beside its message where the others keep their least room."""
    from rules.engine import audit_bytes
    from rules.loader import load_policies

    status = "status:\n  allocatable: {{cpu: '16', pods: '110', {res}: '1'}}\n  conditions: [{{type: Ready, status: 'True'}}]\n"
    nodes = "".join(
        f"---\napiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n  labels:\n"
        f"    nvidia.com/gpu.workload.config: {workload}\n    nvidia.com/gpu.present: 'true'\n"
        "    feature.node.kubernetes.io/pci-10de.present: 'true'\n" + status.format(res=res)
        for name, workload, res in (
            ("gpu-container-1", "container", "nvidia.com/gpu"),
            ("gpu-passthrough-1", "vm-passthrough", "nvidia.com/GA102GL_A10"),
            ("gpu-vgpu-1", "vm-vgpu", "nvidia.com/gpu"),
        )
    )
    dump = (
        "apiVersion: nvidia.com/v1\nkind: ClusterPolicy\nmetadata: {name: cluster-policy}\n"
        "spec: {sandboxWorkloads: {enabled: false}}\n" + nodes + "---\napiVersion: v1\nkind: Pod\n"
        "metadata: {name: cuda-job, namespace: ml}\nspec:\n  nodeName: gpu-vgpu-1\n  containers:\n"
        "  - {name: cuda, image: cuda, resources: {limits: {nvidia.com/gpu: '1'}}}\nstatus: {phase: Running}\n"
    )
    report = audit_bytes(dump.encode(), "t241.yaml", load_policies())
    assert [(r.severity, r.result) for o in report.objects for r in o.results if r.result in ("fail", "warn")].count(
        ("high", "fail")
    ) == 1
    text = render(report, "chat")
    assert len(text) <= 3_500
    high = text[text.index("FAIL (high) `Node/gpu-passthrough-1` · `gpu-nodes/resource-class-matches-workload`") :]
    high = high[: high.index("\n\n")]
    assert high.endswith(
        "```\n# First decide what the node is for: ClusterPolicy cluster-policy has sandbox workloads off, so the operator"
        " ignores its label.\n# If it is meant for the vm-passthrough workload its label asks and its resources are of,"
        " turn them on:\n# kubectl patch clusterpolicies.nvidia.com cluster-policy --type merge -p"
        """ '{"spec":{"sandboxWorkloads":{"enabled":true}}}'\n"""
        "# (turning them on prepares every VM-labelled GPU node for its VM workload and takes the GPUs of any container"
        " pods there, which gpu-clusterpolicy/sandbox-workloads-enabled-for-vm-nodes names)\n"
        "# If it is meant for containers instead, remove the label and the operator relabels the node:\n"
        "# kubectl label node gpu-passthrough-1 nvidia.com/gpu.workload.config-\n```"
    ), high
    # the three medium findings are still each said, and nothing a block holds turns sandbox workloads on
    assert text.count("(medium) `") == 3, text
    assert not any(line.startswith("kubectl patch") for line in text.splitlines())


def test_chat_at_a_small_limit_names_every_rule_s_first_finding() -> None:
    """Regression (trial 234 #1): at limit 1,000 a chat bot's message of four failing rules (a node's message of 1,100
    characters, three others of 300 to 500) showed the worst one cut and counted the three others, which rules and
    objects unsaid. Where not every rule's first finding fits cut to 300 characters, the first is cut and each other
    one is its heading line, the last followed by where their messages are (here p0's paragraph fits whole beside the
    node's cut one, and p1's and p2's are heading lines)."""
    objects = [
        ObjectReport(ObjectRef("v1", "Node", "gpu-odd1"), Source("d.yaml", 1, 9), (_result(rule="rule-a", message="n " * 550),)),
        *(
            ObjectReport(
                ObjectRef("v1", "Pod", f"p{k}", "ml"),
                Source("d.yaml", 10 * k + 10, 10 * k + 19),
                (_result(rule=f"rule-{x}", message=f"pod {k} " + "p " * 200, remediation="kubectl get pods"),),
            )
            for k, x in enumerate("bcd")
        ),
    ]
    text = render(Report(objects=objects, objects_read=4), "chat", limit=1_000)
    assert len(text) <= 1_000
    assert "FAIL (high) `Node/gpu-odd1` · `big-policy/rule-a`\nn n n" in text and "…" in text
    heads = [f"FAIL (high) `Pod/ml/p{k}` · `big-policy/rule-{x}`" for k, x in enumerate("bcd")]
    # (p0's paragraph fits whole beside the node's cut one; p1's and p2's are their heading lines)
    assert f"\n\n{heads[0]}\npod 0 p p" in text and "```\nkubectl get pods\n```" in text
    said = "_their messages and fixes are not shown here: `--limit 0` or `limit=0` shows them_"
    assert text.endswith("\n\n" + "\n".join([*heads[1:], said]) + "\n"), text
    assert "not shown (limit" not in text  # every finding is named: none is only counted
    # where the room holds each rule's first finding cut to 300 characters, none is a heading alone
    roomy = render(Report(objects=objects, objects_read=4), "chat", limit=2_000)
    assert "shows them_" not in roomy and all(f"{h}\npod " in roomy for h in heads), roomy


def test_chat_with_passes_listed_names_every_failing_rule_before_any_pass() -> None:
    """Regression (trial 235 #2): with --results fail,pass the lab's chat message at the default limit showed one
    failing rule's paragraph and four passing rules' (a pass paragraph counted as its rule said), and counted the
    eleven other failing rules; where heading lines stood for passes they said "their messages and fixes" of results
    with no fix. Passes listed give their room to the failing rules: each of the twelve is named."""
    from rules.engine import audit_bytes
    from rules.loader import load_policies

    lab = audit_bytes((ROOT / "examples" / "lab-cluster.yaml").read_bytes(), "lab.yaml", load_policies())
    failing = {f"{r.policy}/{r.rule}" for o in lab.objects for r in o.results if r.result == "fail"}
    assert len(failing) == 12
    text = render(lab.filtered({"fail", "pass"}), "chat")
    assert len(text) <= 3_500
    named = {line.split(" · ")[1].strip("`") for line in text.splitlines() if line.startswith(("FAIL (", "PASS ("))}
    assert named == failing, sorted(named ^ failing)
    assert "\nPASS (" not in text and text.rstrip().endswith(
        "_… 179 more results not shown (limit 3,500 characters; `--limit 0` or `limit=0`: all)_"
    ), text
    # heading lines of results with no fix do not say a fix is left out
    from rules.render.chat import _headlined

    found = [
        ("PASS (high) `Node/n` · `p/r`\nfine", 1, ObjectRef("v1", "Node", "n"), _result("pass", "fine", rule=f"r{k}"))
        for k in range(3)
    ]
    blocks = [("result", t, 0, 1) for t, *_ in found]
    said = _headlined("verdict d.yaml", found, blocks, [], [0, 1, 2], "result", 1_000)
    assert said.endswith("_their messages are not shown here: `--limit 0` or `limit=0` shows them_\n"), said


def test_chat_names_as_many_failing_rules_as_heading_lines_fit_where_not_all_do() -> None:
    """Regression (trial 235 #3): at limits of 550 to 1,450 the lab's chat message named 1 of its 12 failing rules,
    because its twelve heading lines did not fit together and nothing fewer was tried. Where they do not, the worst
    is cut and as many heading lines as fit follow, worst first, the other rules' findings counted."""
    from rules.engine import audit_bytes
    from rules.loader import load_policies

    lab = audit_bytes((ROOT / "examples" / "lab-cluster.yaml").read_bytes(), "lab.yaml", load_policies())
    order = [
        "gpu-nodes/resource-class-matches-workload",
        "gpu-nodes/workload-label-valid",
        "gpu-nodes/single-resource-class",
        "gpu-nodes/vgpu-profile-matches-config",
        "gpu-pods/gpu-pod-not-on-vm-node",
        "gpu-pods/workload-schedulable",
    ]
    text = render(lab, "chat", limit=1_000)
    assert len(text) <= 1_000
    named = [line.split(" · ")[1].strip("`") for line in text.splitlines() if line.startswith("FAIL (")]
    assert named == order, text
    assert "\n_their messages and fixes are not shown here: `--limit 0` or `limit=0` shows them_\n" in text
    assert text.rstrip().endswith("_… 6 more findings not shown (limit 1,000 characters; `--limit 0` or `limit=0`: all)_")
    # from 650 characters at least two rules are named, more as the limit grows, all twelve from 1,500
    counts = []
    for limit in range(650, 1_550, 50):
        cut = render(lab, "chat", limit=limit)
        assert len(cut) <= limit, (limit, len(cut))
        counts.append(sum(line.startswith("FAIL (") for line in cut.splitlines()))
    assert counts == sorted(counts) and counts[0] == 2 and counts[-1] == 12, counts


def test_a_chat_heading_line_counts_the_objects_its_paragraph_says_the_same_of() -> None:
    """Regression (trial 235 #4): a rule's heading line standing for its paragraph named the first of the objects the
    paragraph says the same of, and not how many there are."""
    from rules.render.chat import _headlined

    found = [
        (
            f"FAIL (high) `Node/n{k}` · `p/r{k}`\nbad",
            n,
            ObjectRef("v1", "Node", f"n{k}"),
            _result(rule=f"r{k}", remediation="kubectl get nodes"),
        )
        for k, n in enumerate((1, 8, 2, 1))
    ]
    blocks = [("finding", t, 0, n) for t, n, *_ in found]
    text = _headlined("verdict d.yaml", found, blocks, [], [0, 1, 2, 3], "finding", 1_000)
    heads = [line for line in text.splitlines() if line.startswith("FAIL (high) `Node/n")]
    assert heads[1:] == [
        "FAIL (high) `Node/n1` and 7 more objects · `big-policy/r1`",
        "FAIL (high) `Node/n2` and 1 more object · `big-policy/r2`",
        "FAIL (high) `Node/n3` · `big-policy/r3`",
    ], text
    assert heads[0] == "FAIL (high) `Node/n0` · `big-policy/r0`"


_CHAT_HEADING = re.compile(r"^(FAIL|WARN|ERROR|PASS) \((\w+)\) `([^`]*)`(?: and (\d+) more objects?)? · `([^`]+)`$", re.M)


def test_chat_under_every_limit_names_a_failing_rule_more_as_it_grows_and_counts_each_finding_once() -> None:
    """Regression (trial 237 #1, #2, #3): with --results fail,pass at limit 500 the lab's chat message showed a pass
    and no failure; on a larger dump more room named fewer failing rules (9 at 1,950, 8 at 2,000, the room given to a
    note); and a heading line "X and 6 more objects" or a cut paragraph stood for one finding, so the closing line
    counted their other objects again (72 findings said of 49). For the lab, with and without passes listed, at every
    limit from 500 to 3,600: a failing rule is named, never fewer as the limit grows, and what the message shows
    plus what its closing line counts is every result listed, once."""
    from rules.engine import audit_bytes
    from rules.loader import load_policies

    lab = audit_bytes((ROOT / "examples" / "lab-cluster.yaml").read_bytes(), "lab.yaml", load_policies())
    for words in (None, {"fail", "pass"}):
        report = lab.filtered(words) if words else lab
        listed = sum(r.result in (words or FINDINGS) for o in report.objects for r in o.results)
        before: set[str] = set()
        for limit in range(500, 3_650, 50):
            text = render(report, "chat", limit=limit)
            assert len(text) <= limit, (words, limit, len(text))
            heads = list(_CHAT_HEADING.finditer(text))
            named = {m.group(5) for m in heads if m.group(1) == "FAIL"}
            assert named and len(named) >= len(before), (words, limit, sorted(before - named), text)
            before = named
            shown = sum(1 + int(m.group(4) or 0) for m in heads)
            shown += sum(int(m.group(1)) for m in re.finditer(r"Said the same of (\d+) more objects?", text))
            closing = re.search(r"_… (\d+) (?:more )?(?:findings?|results?) not shown \(limit", text)
            assert shown + (int(closing.group(1)) if closing else 0) == listed, (words, limit, shown, text)
        assert len(before) == 12


def test_chat_at_the_least_limit_names_the_worst_finding_by_its_heading_where_no_message_fits() -> None:
    """Regression (trial 237 #5): at limit 500 a dump whose worst finding's heading ran 145 characters (a node name of
    85) named no finding: under 80 characters were left for its message. Its heading line stands alone, said so."""
    from rules.render.chat import render as chat

    report = synthetic(3, message_len=300)
    long_name = "gpu-liar-vgpu-00-rack-a17-row-03-datacenter-frankfurt-eu-central-production-zone-xx"
    objects = [
        replace(
            o,
            ref=replace(o.ref, name=f"{long_name}-{k}"),
            results=tuple(replace(r, remediation="kubectl get nodes") for r in o.results),
        )
        for k, o in enumerate(report.objects)
    ]
    report = replace(report, objects=objects, notes=[f"assumed: note {i} " + "y" * 200 for i in range(16)])
    text = chat(report, limit=500)
    assert len(text) <= 500, len(text)
    assert f"\n\nFAIL (high) `Node/{long_name}-0` · `big-policy/rule-a`\n_message and fix not shown_\n\n" in text, text
    assert text.rstrip().endswith("_… 2 more findings not shown (limit 500 characters; `--limit 0` or `limit=0`: all)_")


def test_an_unnamed_body_s_input_errors_start_at_their_document_in_chat_and_markdown() -> None:
    """Regression (trial 232 #8): a chat paste sent without name= had its input errors begin "‹<body>, document 1, line
    214: ...", a name meaning nothing in a chat (its notes already left it out)."""
    from rules.engine import audit_bytes
    from rules.loader import load_policies

    report = audit_bytes(b"apiVersion: v1\nkind: [", "<body>", load_policies())
    for fmt in ("chat", "markdown"):
        [said] = [x for x in render(report, fmt, limit=1000).splitlines() if x.startswith("- ")]
        assert said.startswith("- document 1, line 2: YAML syntax error"), (fmt, said)
    named = audit_bytes(b"apiVersion: v1\nkind: [", "nodes.yaml", load_policies())
    assert "\n- nodes.yaml, document 1, line 2: YAML syntax error" in render(named, "chat", limit=1000)
