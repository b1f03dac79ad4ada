"""The HTTP API through Flask's test client: every route, every error status as a problem document,
auth on and off, formats by ``format=`` and by ``Accept``, gzip coding, archives, describe text, lint,
metrics, and the policy keeper's reload."""

from __future__ import annotations

import gzip
import io
import logging
import re
import tarfile
import time
import zipfile
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from api import create_app
from api.bodies import DUMP_TYPES, POLICY_TYPES
from api.config import ConfigError, from_env
from api.negotiate import ACCEPT_FORMATS
from api.openapi import spec_yaml
from api.schemas import LintResultSchema, PolicyDetailSchema, PolicyListSchema, ReportSchema, RuleDetailSchema, RuleListSchema
from api.store import PolicyKeeper, forget, keep
from rules.loader import PolicyLoadError, PolicySet
from rules.render import FORMATS, media_type

DATA = Path(__file__).resolve().parent / "data" / "api"
PACK = DATA / "gpu-lab"
CLUSTER = (DATA / "cluster.yaml").read_bytes()
YAML = {"Content-Type": "application/yaml"}

#: what tests/data/api/cluster.yaml must give with the gpu-lab pack: object -> {rule: result}
EXPECTED = {
    "Node/gpu-node-good": {"workload-label-valid": "pass", "gpu-advertised": "pass", "zone-label": "pass"},
    "Node/gpu-node-typo": {"workload-label-valid": "fail", "gpu-advertised": "pass", "zone-label": "pass"},
    "Node/gpu-node-no-gpus": {"workload-label-valid": "pass", "gpu-advertised": "fail", "zone-label": "warn"},
}


def make_app(**config: Any) -> Flask:
    return create_app({"POLICIES": [str(PACK)], **config})


@pytest.fixture(scope="module")
def app() -> Flask:
    return make_app()


@pytest.fixture()
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def verdicts(report: dict[str, Any]) -> dict[str, dict[str, str]]:
    """object -> {rule: result}, from a native report."""
    out = {}
    for o in report["objects"]:
        key = f"{o['kind']}/{o['namespace']}/{o['name']}" if o["namespace"] else f"{o['kind']}/{o['name']}"
        out[key] = {r["rule"]: r["result"] for r in o["results"]}
    return out


def problem(resp: TestResponse, status: int, slug: str) -> dict[str, Any]:
    """Assert an RFC 9457 problem document of ``slug`` and answer it."""
    assert resp.status_code == status, resp.get_data(as_text=True)
    assert resp.mimetype == "application/problem+json"
    body = resp.get_json(force=True)
    assert body["type"] == f"https://verdict.dev/problems/{slug}"
    assert body["status"] == status
    assert body["title"] and isinstance(body["title"], str)
    assert body["detail"] and isinstance(body["detail"], str)
    return body


def evaluate(
    client: FlaskClient, data: bytes = CLUSTER, query: str = "", content_type: str = "application/yaml", **headers: str
) -> TestResponse:
    return client.post(f"/v1/evaluate{query}", data=data, headers={"Content-Type": content_type, **headers})


def cluster_as_json_list() -> bytes:
    items = [d for d in yaml.safe_load_all(CLUSTER) if d]
    return orjson.dumps({"apiVersion": "v1", "kind": "List", "items": items})


def tar_gz(files: dict[str, bytes], compress: bool = True) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz" if compress else "w") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


# ------------------------------------------------------------------------------------------- evaluate


def test_evaluate_yaml_gives_the_verdict_of_each_object(client: FlaskClient) -> None:
    resp = evaluate(client)
    assert resp.status_code == 200
    assert resp.mimetype == "application/json"
    body = resp.get_json()
    assert ReportSchema().validate(body) == {}
    assert verdicts(body) == EXPECTED
    assert {o["name"]: o["verdict"] for o in body["objects"]} == {
        "gpu-node-good": "pass",
        "gpu-node-typo": "fail",
        "gpu-node-no-gpus": "fail",
    }
    assert body["summary"]["objectsRead"] == 4  # the Pod is read but no rule matches it
    typo = next(o for o in body["objects"] if o["name"] == "gpu-node-typo")
    assert typo["source"] == {"file": "<body>", "document": 2, "line": 17}
    assert body["policies"] == [{"name": "gpu-node-basics", "version": "1.0.0", "pack": "gpu-lab", "rules": 3}]


@pytest.mark.parametrize("content_type", ["application/json", "application/json; charset=utf-8"])
def test_evaluate_json_list_gives_the_same_verdicts(client: FlaskClient, content_type: str) -> None:
    resp = evaluate(client, cluster_as_json_list(), content_type=content_type)
    assert resp.status_code == 200
    assert verdicts(resp.get_json()) == EXPECTED


@pytest.mark.parametrize("content_type", ["application/x-yaml", "text/yaml", "application/octet-stream"])
def test_evaluate_accepts_the_other_yaml_types(client: FlaskClient, content_type: str) -> None:
    resp = evaluate(client, content_type=content_type)
    assert resp.status_code == 200
    assert verdicts(resp.get_json()) == EXPECTED


def test_evaluate_filters_by_result_and_severity(client: FlaskClient) -> None:
    body = evaluate(client, query="?results=fail,warn").get_json()
    assert verdicts(body) == {
        "Node/gpu-node-typo": {"workload-label-valid": "fail"},
        "Node/gpu-node-no-gpus": {"gpu-advertised": "fail", "zone-label": "warn"},
    }
    repeated = evaluate(client, query="?results=fail&results=warn").get_json()
    assert verdicts(repeated) == verdicts(body)
    body = evaluate(client, query="?minSeverity=critical").get_json()
    assert verdicts(body) == {
        "Node/gpu-node-good": {"gpu-advertised": "pass"},
        "Node/gpu-node-typo": {"gpu-advertised": "pass"},
        "Node/gpu-node-no-gpus": {"gpu-advertised": "fail"},
    }


def test_evaluate_selects_policies_and_rules(client: FlaskClient) -> None:
    body = evaluate(client, query="?rule=gpu-node-basics/zone-label").get_json()
    assert {k: v for k, v in verdicts(body).items()} == {
        "Node/gpu-node-good": {"zone-label": "pass"},
        "Node/gpu-node-typo": {"zone-label": "pass"},
        "Node/gpu-node-no-gpus": {"zone-label": "warn"},
    }
    body = evaluate(client, query="?policy=gpu-lab&rule=gpu-advertised").get_json()
    assert all(set(v) == {"gpu-advertised"} for v in verdicts(body).values())
    assert verdicts(evaluate(client, query="?policy=gpu-node-basics").get_json()) == EXPECTED


@pytest.mark.parametrize(
    ("query", "parameter"),
    [
        ("?policy=nope", "policy"),
        ("?rule=gpu-node-basics/nope", "rule"),
        ("?minSeverity=urgent", "minSeverity"),
        ("?format=pdf", "format"),
        ("?results=fail,bogus", "results"),
        ("?format=json&format=yaml", "format"),
        ("?colour=red", "colour"),
    ],
)
def test_bad_query_values_are_400(client: FlaskClient, query: str, parameter: str) -> None:
    body = problem(evaluate(client, query=query), 400, "invalid-query")
    assert parameter in body["detail"]
    assert body["errors"][0]["parameter"] == parameter


def test_an_empty_results_value_filters_nothing_as_documented(client: FlaskClient) -> None:
    empty = evaluate(client, query="?results=").get_json()
    whole = evaluate(client).get_json()
    for report in (empty, whole):
        report.pop("generated"), report.pop("timing")
    assert empty == whole and empty["summary"]["results"]["pass"] > 0


def test_an_unknown_policy_says_the_same_in_detail_and_errors_and_what_was_meant(client: FlaskClient) -> None:
    """Regression: errors[0].reason was only "unknown nope" where the detail listed the loaded policies."""
    body = problem(evaluate(client, query="?policy=gpu-node-basic"), 400, "invalid-query")
    reason = "no policy or pack named gpu-node-basic (did you mean 'gpu-node-basics'?); loaded: gpu-lab, gpu-node-basics"
    assert body["detail"] == f"policy: {reason}"
    assert body["errors"] == [{"parameter": "policy", "reason": reason}]
    body = problem(evaluate(client, query="?policy=nope"), 400, "invalid-query")
    assert body["errors"] == [{"parameter": "policy", "reason": "no policy or pack named nope; loaded: gpu-lab, gpu-node-basics"}]


def test_query_problems_say_what_is_wrong_in_the_clients_terms(client: FlaskClient) -> None:
    """Regression: "results: 0: Must be one of: ...", "minSeverity: Not a valid string.", "limit: Unknown field."."""
    body = problem(evaluate(client, query="?results=bogus"), 400, "invalid-query")
    assert body["detail"] == "results: unknown value 'bogus'; one of pass, fail, warn, error, skip"
    assert body["errors"] == [{"parameter": "results", "reason": "unknown value 'bogus'; one of pass, fail, warn, error, skip"}]
    body = problem(evaluate(client, query="?minSeverity=high&minSeverity=low"), 400, "invalid-query")
    assert body["detail"] == "minSeverity: may be given once"
    body = problem(evaluate(client, query="?minSeverity=urgent"), 400, "invalid-query")
    assert body["detail"] == "minSeverity: unknown value 'urgent'; one of critical, high, medium, low, info"
    body = problem(evaluate(client, query="?colour=red"), 400, "invalid-query")
    assert body["detail"] == (
        "colour: unknown parameter; this route takes format, groupBy, junitWarnAsFailure, kind, labelSelector, limit, "
        "minSeverity, name, namespace, objectName, policy, policyReportMaxBytes, policyReportOutput, policyReportVersion, "
        "results, rule, sarifAllResults, skipRule"
    )


def test_unknown_query_parameter_names_the_one_meant(client: FlaskClient) -> None:
    """Regression (trial 169): ?fail_on / ?label_selector got the list of parameters and no word of the one meant."""
    body = problem(evaluate(client, query="?label_selector=a%3Db"), 400, "invalid-query")
    assert body["errors"][0]["parameter"] == "label_selector"
    assert body["errors"][0]["reason"].startswith("unknown parameter (did you mean 'labelSelector'?); this route takes format, ")
    body = problem(evaluate(client, query="?min-severity=high&formt=json"), 400, "invalid-query")
    reasons = {e["parameter"]: e["reason"].split(";")[0] for e in body["errors"]}
    assert reasons == {
        "formt": "unknown parameter (did you mean 'format'?)",
        "min-severity": "unknown parameter (did you mean 'minSeverity'?)",
    }
    # trial 172: names (the CLI's --name) was told name, the dump's file name, which left the objects unfiltered; the
    # CLI's exit-code option has no parameter: the header says the worst result
    body = problem(evaluate(client, query="?names=gpu-*&fail_on=warn"), 400, "invalid-query")
    reasons = {e["parameter"]: e["reason"].split("; this route")[0] for e in body["errors"]}
    assert reasons == {
        "names": "unknown parameter (did you mean 'objectName'?)",
        "fail_on": "unknown parameter: --fail-on sets the CLI's exit code; an answer says its worst result in its"
        " Verdict-Summary header (worst=fail)",
    }


def markdown_of(client: FlaskClient, query: str, data: bytes = CLUSTER, **headers: str) -> str:
    resp = evaluate(client, data, query, **headers)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert resp.mimetype == "text/markdown"
    return resp.get_data(as_text=True)


def test_markdown_limit_parameter(client: FlaskClient) -> None:
    """Regression: ``?format=markdown&limit=600`` was a 400 "limit: Unknown field"."""
    cut = markdown_of(client, "?format=markdown&limit=500")
    assert len(cut) <= 500
    assert cut.rstrip().endswith("not shown (limit 500 characters; `--limit 0` or `limit=0`: all)._")
    whole = markdown_of(client, "?format=markdown&limit=0")
    rows = [line for line in whole.split("| Message | Fix |")[1].splitlines() if line.startswith("| ")]
    assert "not shown" not in whole and len(rows) == 3  # the three findings, no cut
    assert markdown_of(client, "?limit=600", Accept="text/markdown") == markdown_of(client, "?format=markdown&limit=600")
    assert markdown_of(client, "?format=markdown") == markdown_of(client, "?format=markdown&limit=3500")
    for bad in ("499", "1", "-1"):
        body = problem(evaluate(client, query=f"?format=markdown&limit={bad}"), 400, "invalid-query")
        assert body["detail"] == "limit: must be 0 (no cut) or at least 500 characters (format=markdown or chat only)"
    # regression: with JSON the range was said first, and following it led to a second 400 (only for markdown)
    body = problem(evaluate(client, query="?limit=100"), 400, "invalid-query")
    assert body["detail"] == "limit: must be 0 (no cut) or at least 500 characters (format=markdown or chat only)"
    body = problem(evaluate(client, query="?format=markdown&limit=many"), 400, "invalid-query")
    # trial 100: marshmallow's "Not a valid integer." stood among refusals that say what is wanted
    assert body["errors"] == [
        {
            "parameter": "limit",
            "reason": "'many' is not a whole number: it must be 0 (no cut) or at least 500 characters (format=markdown or"
            " chat only)",
        }
    ]
    body = problem(evaluate(client, query="?format=sarif&sarifAllResults=maybe"), 400, "invalid-query")
    assert body["errors"] == [{"parameter": "sarifAllResults", "reason": "'maybe' is not true or false"}]
    body = problem(evaluate(client, query="?format=policyreport&policyReportMaxBytes=1MB"), 400, "invalid-query")
    assert body["errors"] == [{"parameter": "policyReportMaxBytes", "reason": "'1MB' is not a whole number"}]
    body = problem(evaluate(client, query="?format=sarif&limit=600"), 400, "invalid-query")
    assert body["detail"] == "limit: only for format=chat or markdown; this answer is sarif"
    body = problem(evaluate(client, query="?limit=600"), 400, "invalid-query")  # json, from no Accept
    assert body["errors"] == [{"parameter": "limit", "reason": "only for format=chat or markdown; this answer is json"}]


def test_name_parameter_places_results_in_a_file(client: FlaskClient) -> None:
    """Regression: SARIF from the service had only logical locations (GitHub code scanning refuses such
    results); ``name`` makes the body a file of the repository."""
    query = "?name=clusters/lab%201.yaml"
    report = evaluate(client, query=query).get_json()
    assert report["name"] == "clusters/lab 1.yaml"
    typo = next(o for o in report["objects"] if o["name"] == "gpu-node-typo")
    assert typo["source"] == {"file": "clusters/lab 1.yaml", "document": 2, "line": 17}
    doc = orjson.loads(evaluate(client, query=query + "&format=sarif").get_data())
    [run] = doc["runs"]
    result = next(r for r in run["results"] if "gpu-node-typo" in r["locations"][0]["logicalLocations"][0]["name"])
    assert result["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "clusters/lab%201.yaml"},
        "region": {"startLine": 17},
    }
    assert all("physicalLocation" in r["locations"][0] for r in run["results"])
    assert run["automationDetails"] == {"id": "verdict/clusters/lab 1.yaml/"}
    text = markdown_of(client, query + "&format=markdown")
    assert text.startswith("**verdict** clusters/lab 1.yaml: 3 objects judged (4 read) · ")
    policy_report = yaml.safe_load(evaluate(client, query=query + "&format=policyreport").get_data(as_text=True))
    assert {i["metadata"]["annotations"]["verdict/dump"] for i in policy_report["items"]} == {"clusters/lab 1.yaml"}
    # Without a name the body has no file: logical locations only (unchanged).
    [plain] = orjson.loads(evaluate(client, query="?format=sarif").get_data())["runs"]
    assert all("physicalLocation" not in r["locations"][0] for r in plain["results"])
    # An archive sent with its name: the archive is the artifact, the member its inner path.
    archive = tar_gz({"cluster/nodes.yaml": CLUSTER})
    [run] = orjson.loads(
        evaluate(client, archive, "?name=dumps/lab.tar.gz&format=sarif", content_type="application/gzip").get_data()
    )["runs"]
    assert run["results"][0]["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "dumps/lab.tar.gz", "properties": {"innerPath": "cluster/nodes.yaml"}}
    }


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("../secrets.yaml", "must not hold a '..' segment"),
        ("dumps/../../x.yaml", "must not hold a '..' segment"),
        ("dumps\\..\\x.yaml", "must not hold a '..' segment"),
        ("/etc/passwd", "must be a relative path, not an absolute one"),
        ("\\\\server\\share.yaml", "must be a relative path, not an absolute one"),
        ("C:dump.yaml", "must be a relative path, not an absolute one"),
        ("dump\n.yaml", "holds a character that is not printable"),
        ("dump\u200b.yaml", "holds a character that is not printable"),
        ("a.tar.gz!inner.yaml", "must not hold '!' (it separates an archive from its member: archive!member)"),
        ("x" * 256, "must be at most 255 characters"),
        ("", "is empty or blank: give the dump's file name, a relative path such as clusters/lab.yaml"),
        (" ", "is empty or blank: give the dump's file name, a relative path such as clusters/lab.yaml"),
        (" lab.yaml", "must not begin or end with a space"),
    ],
)
def test_name_parameter_is_a_relative_printable_path(client: FlaskClient, name: str, reason: str) -> None:
    resp = client.post("/v1/evaluate", query_string={"name": name}, data=CLUSTER, headers=YAML)
    body = problem(resp, 400, "invalid-query")
    assert body["errors"] == [{"parameter": "name", "reason": reason}]


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_every_format_is_answered_with_its_media_type(client: FlaskClient, fmt: str) -> None:
    resp = evaluate(client, query=f"?format={fmt}")
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert resp.mimetype == media_type(fmt).split(";")[0]
    text = resp.get_data(as_text=True)
    assert "gpu-node-typo" in text
    assert "Accept" in resp.headers.get("Vary", "")


@pytest.mark.parametrize(("accept", "fmt"), [(mt, fmt) for mt, fmt in ACCEPT_FORMATS if fmt in FORMATS])
def test_accept_chooses_the_format(client: FlaskClient, accept: str, fmt: str) -> None:
    resp = evaluate(client, Accept=accept)
    assert resp.status_code == 200
    # the type asked for, where it is another of the format's (text/xml, application/x-yaml): trial 206
    assert resp.mimetype == accept
    if fmt == "yaml":
        assert verdicts(yaml.safe_load(resp.get_data(as_text=True))) == EXPECTED


@pytest.mark.parametrize("accept", ["*/*", "image/png", "text/html, */*;q=0.1", ""])
def test_accept_without_a_known_type_gives_json(client: FlaskClient, accept: str) -> None:
    resp = evaluate(client, Accept=accept)
    assert resp.status_code == 200
    assert resp.mimetype == "application/json"


def test_accept_text_any_is_answered_in_a_text_type(client: FlaskClient) -> None:
    """Trial 56: Accept: text/* was answered with YAML as application/yaml; the chat format is text/markdown."""
    resp = evaluate(client, Accept="text/*")
    assert resp.status_code == 200
    assert resp.mimetype == "text/markdown"


def test_accept_quality_and_format_precedence(client: FlaskClient) -> None:
    resp = evaluate(client, Accept="application/json;q=0.5, application/yaml")
    assert resp.mimetype == "application/yaml"
    # q=0 refuses a type: with */* beside it, the server's next preference; alone, the header is disregarded
    # (docs/service.md, as RFC 9110 allows), never a 406
    resp = evaluate(client, Accept="application/json;q=0, */*")
    assert resp.mimetype == "application/yaml"
    resp = evaluate(client, Accept="application/json;q=0")
    assert (resp.status_code, resp.mimetype) == (200, "application/json")
    resp = evaluate(client, query="?format=json", Accept="application/yaml")
    assert resp.mimetype == "application/json"
    # Regression (trial 206): junit was labelled application/xml, the type the client refused, beside text/xml
    resp = evaluate(client, Accept="application/xml;q=0, text/xml")
    assert (resp.status_code, resp.mimetype) == (200, "text/xml")
    assert resp.get_data(as_text=True).startswith("<?xml")


def test_markdown_for_a_chat_bot(client: FlaskClient) -> None:
    if "markdown" not in FORMATS:
        pytest.skip("the markdown renderer has not landed in rules.render.FORMATS")
    resp = evaluate(client, query="?format=markdown&results=fail,warn")
    assert resp.mimetype == "text/markdown"
    text = resp.get_data(as_text=True)
    assert "gpu-node-no-gpus" in text
    # A chat message starts with the summary; the body has no file name worth showing (was "<body>").
    assert text.startswith("**verdict**: ")


def test_markdown_of_a_clean_dump_is_its_summary_not_a_500() -> None:
    """Regression (new user): a dump with nothing to list (a healthy node) made the markdown renderer raise
    IndexError, and the service answer 500 to every chat bot asking about a healthy cluster."""
    real = Path(__file__).resolve().parent / "data" / "real" / "h100-mig-mixed-node.yaml"
    client = create_app().test_client()  # the built-in pack
    resp = client.post(
        "/v1/evaluate?format=markdown&results=fail,warn",
        data=real.read_bytes(),
        headers={"Content-Type": "application/yaml"},
    )
    assert resp.status_code == 200, resp.get_data(as_text=True)
    lines = resp.get_data(as_text=True).splitlines()
    assert lines[0] == "**verdict**: 1 object judged (1 read) · 14 pass · 0 fail · 0 warn · 0 error · 14 skip"
    # why rules did not run: the first skip notes (the JSON report has them all)
    assert any(line.startswith("_skipped: the node's effective GPU workload is not vm-vgpu") for line in lines), lines


def test_markdown_names_the_input_errors_under_the_summary(client: FlaskClient) -> None:
    bad = b"".join(f"\n---\napiVersion: v1\nkind: Node\nmetadata: {{name: [unclosed-{i}\n".encode() for i in range(5))
    text = markdown_of(client, "?format=markdown&name=ci/dump.yaml", CLUSTER + bad)
    lines = text.splitlines()
    assert lines[0] == (
        "**verdict** ci/dump.yaml: 3 objects judged (4 read) · 6 pass · 2 fail (1 critical, 1 high) · 1 warn (1 low)"
        " · 0 error · 0 skip · 5 input errors"
    )
    assert lines[1:5] == [
        "- ci/dump.yaml, document 5, line 54: YAML syntax error: did not find expected ',' or ']'"
        " (while parsing a flow sequence that starts at line 52, column 18)",
        "- ci/dump.yaml, document 6, line 59: YAML syntax error: did not find expected ',' or ']'"
        " (while parsing a flow sequence that starts at line 57, column 18)",
        "- ci/dump.yaml, document 7, line 64: YAML syntax error: did not find expected ',' or ']'"
        " (while parsing a flow sequence that starts at line 62, column 18)",
        "- and 2 more (`--limit 0` or `limit=0` names each)",
    ]


def test_gzip_content_encoding(client: FlaskClient) -> None:
    resp = evaluate(client, gzip.compress(CLUSTER), **{"Content-Encoding": "gzip"})
    assert resp.status_code == 200
    assert verdicts(resp.get_json()) == EXPECTED


def test_broken_gzip_content_encoding_is_400(client: FlaskClient) -> None:
    body = problem(evaluate(client, gzip.compress(CLUSTER)[:40], **{"Content-Encoding": "gzip"}), 400, "malformed-dump")
    assert body["file"] == "<body>"
    assert "gzip" in body["detail"]
    body = problem(evaluate(client, b"plain text", **{"Content-Encoding": "gzip"}), 400, "malformed-dump")
    assert "gzip" in body["detail"]
    # a YAML body sent with the header is told to drop it (trial 177: zlib's words alone); a cut gzip stream is not
    body = problem(evaluate(client, CLUSTER, **{"Content-Encoding": "gzip"}), 400, "malformed-dump")
    assert body["detail"].endswith(": the body is not gzip (it starts as text); send it without Content-Encoding: gzip")
    cut = problem(evaluate(client, gzip.compress(CLUSTER)[:40], **{"Content-Encoding": "gzip"}), 400, "malformed-dump")
    assert "not gzip" not in cut["detail"]


def test_unknown_content_encoding_is_415(client: FlaskClient) -> None:
    resp = evaluate(client, CLUSTER, **{"Content-Encoding": "br"})
    body = problem(resp, 415, "unsupported-media-type")
    assert "br" in body["detail"]
    # RFC 9110 15.5.16: the codings it would take, in a header (trial 171 #11)
    assert resp.headers["Accept-Encoding"] == "gzip, x-gzip, identity"
    assert "Accept-Post" not in resp.headers


@pytest.mark.parametrize("content_type", ["application/gzip", "application/x-gzip", "application/x-tar"])
def test_tar_gz_archive_body(client: FlaskClient, content_type: str) -> None:
    docs = CLUSTER.split(b"\n---\n")
    archive = tar_gz(
        {"cluster/nodes.yaml": b"\n---\n".join(docs[:3]), "cluster/pods.yaml": docs[3], "cluster/README": b"not a dump"}
    )
    resp = evaluate(client, archive, content_type=content_type)
    assert resp.status_code == 200, resp.get_data(as_text=True)
    body = resp.get_json()
    assert verdicts(body) == EXPECTED
    typo = next(o for o in body["objects"] if o["name"] == "gpu-node-typo")
    assert typo["source"]["file"] == "<body>!cluster/nodes.yaml"
    assert body["summary"]["objectsRead"] == 4


def test_plain_tar_and_zip_archive_bodies(client: FlaskClient) -> None:
    resp = evaluate(client, tar_gz({"nodes.yaml": CLUSTER}, compress=False), content_type="application/x-tar")
    assert verdicts(resp.get_json()) == EXPECTED
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("dump/cluster.json", cluster_as_json_list())
    resp = evaluate(client, buf.getvalue(), content_type="application/zip")
    assert resp.status_code == 200
    assert verdicts(resp.get_json()) == EXPECTED


@pytest.mark.parametrize("content_type", ["application/zip", "application/gzip", "application/x-tar"])
def test_archive_type_with_other_bytes_is_400(client: FlaskClient, content_type: str) -> None:
    body = problem(evaluate(client, CLUSTER, content_type=content_type), 400, "malformed-dump")
    assert body["file"] == "<body>"
    assert body["detail"].startswith(f"Content-Type {content_type}, but the body is not a ")
    # with the fix (a new-user trial posted YAML as application/gzip and was told only what was wrong)
    told = "; send a plain dump as application/yaml or application/json (application/octet-stream: any, by its content)"
    assert body["detail"].endswith(told)


def test_an_archive_sent_as_the_other_archive_type_is_told_its_type(client: FlaskClient) -> None:
    """Trial 56: a .tar.gz sent as application/zip was told to send YAML, JSON or octet-stream, never gzip."""
    gz = gzip.compress(CLUSTER)
    body = problem(evaluate(client, gz, content_type="application/zip"), 400, "malformed-dump")
    assert body["detail"] == (
        "Content-Type application/zip, but the body is not a zip archive; it is a gzip stream (a .tar.gz or .yaml.gz):"
        " send it as application/gzip"
    )


def test_a_chat_message_without_a_dump_is_not_told_about_curl_d(client: FlaskClient) -> None:
    """Trial 56: a one-line chat message holding no dump was told "curl -d drops a file's line breaks"."""
    text = b"hi @verdict can you check <https://example.com/x|this> cluster? it has GPUs and VMs on it, thanks"
    body = problem(evaluate(client, text, content_type="text/markdown"), 400, "malformed-dump")
    assert "curl -d" not in body["detail"]


def test_broken_archive_is_400_with_its_place(client: FlaskClient) -> None:
    body = problem(evaluate(client, b"PK\x03\x04" + b"\0" * 64, content_type="application/zip"), 400, "malformed-dump")
    assert body["file"] == "<body>"
    assert body["detail"] == "broken zip archive: File is not a zip file"
    # trial 93: a body unreadable as a whole had no errors, which docs/service.md says malformed-dump always has
    assert body["errors"] == [{"file": "<body>", "document": 1, "path": "", "reason": body["detail"]}]
    body = problem(evaluate(client, b"\x80\x81binary"), 400, "malformed-dump")
    assert body["errors"] == [{"file": "<body>", "document": 1, "line": 1, "path": "", "reason": body["detail"]}]


def test_bytes_that_are_neither_text_nor_archive_are_400(client: FlaskClient) -> None:
    body = problem(evaluate(client, b"\x80\x81binary"), 400, "malformed-dump")
    assert body["file"] == "<body>"
    assert body["detail"] == (
        "not UTF-8 text and not a tar, gzip, xz, bzip2 or zip archive: byte 0x80 at line 1, column 1 (offset 0)"
    )
    assert body["line"] == 1  # the line the detail names (it was left out, as unknown)
    # a UTF-16 byte order mark is read as such (what PowerShell writes); bytes after it that are not UTF-16 say so
    body = problem(evaluate(client, b"\xff\xfe\x00binary\x80\x81"), 400, "malformed-dump")
    assert body["detail"] == "UTF-16 text (by its byte order mark) that does not decode: truncated data at offset 10"
    for content_type in ("application/zip", "application/gzip", "application/x-tar"):
        assert "line" not in problem(evaluate(client, CLUSTER, content_type=content_type), 400, "malformed-dump")


def test_parser_internals_stay_out_of_problem_details(client: FlaskClient) -> None:
    """Regression: PyYAML's own place (``in "<unicode string>", position 0``) was in the detail."""
    body = problem(evaluate(client, b"\x00"), 400, "malformed-dump")
    reason = "YAML error: character U+0000 (a control character) at column 1: YAML allows none, so this document is not read"
    assert body["detail"] == f"nothing in the body could be read as an object: {reason}"
    assert body["errors"] == [{"file": "<body>", "document": 1, "line": 1, "path": "", "reason": reason}]
    report = evaluate(client, CLUSTER + b"\n---\nkind: Node\x07\n").get_json()
    assert "<unicode string>" not in orjson.dumps(report).decode()
    [err] = report["inputErrors"]  # the control character's document alone (libyaml refuses the stream)
    assert (err["line"], err["reason"].split(" (")[0]) == (CLUSTER.count(b"\n") + 3, "YAML error: character U+0007")


def test_some_bad_documents_are_reported_and_the_rest_evaluated(client: FlaskClient) -> None:
    dump = CLUSTER + b"\n---\napiVersion: v1\nkind: Node\nmetadata: {name: [unclosed\n"
    resp = evaluate(client, dump)
    assert resp.status_code == 200
    body = resp.get_json()
    assert verdicts(body) == EXPECTED
    assert len(body["inputErrors"]) == 1
    err = body["inputErrors"][0]
    assert err["file"] == "<body>" and err["document"] == 5 and err["line"] > 0 and err["reason"]


def test_nothing_readable_is_400_at_the_first_error(client: FlaskClient) -> None:
    dump = b"apiVersion: v1\nkind: Node\nmetadata:\n  name: [unclosed\n"
    body = problem(evaluate(client, dump), 400, "malformed-dump")
    assert body["file"] == "<body>"
    assert body["document"] == 1
    assert body["line"] >= 1
    assert "path" in body
    assert len(body["errors"]) == 1
    body = problem(evaluate(client, b'{"not": "an object"}', content_type="application/json"), 400, "malformed-dump")
    assert "kind" in body["detail"]


def test_the_detail_of_an_unreadable_body_says_where_the_parser_stopped(client: FlaskClient) -> None:
    """Trial 237 #7: the detail gave the syntax error's own words alone, which name the line a flow sequence starts
    on (1) while the problem's line field said where the parser stopped (2); the detail says that place first, as
    the CLI does, without the body's name, which the problem's file field gives (and without the body's start:
    a problem at document 1, line 1 says its reason alone)."""
    body = problem(evaluate(client, b"kind: [Node\nmetadata: {}\n"), 400, "malformed-dump")
    reason = "YAML syntax error: did not find expected ',' or ']' (while parsing a flow sequence that starts at line 1, column 7)"
    assert body["detail"] == f"nothing in the body could be read as an object: document 1, line 2: {reason}"
    assert (body["file"], body["document"], body["line"]) == ("<body>", 1, 2)
    # a second document's error, in a body named by the query: the name stays out, the document is said
    named = client.post(
        "/v1/evaluate?name=lab.yaml", data=b"---\n---\nkind: [Node\n", headers={"Content-Type": "application/yaml"}
    )
    body = problem(named, 400, "malformed-dump")
    assert body["detail"].startswith("nothing in the body could be read as an object: document 2, line 3: YAML syntax error")
    assert (body["file"], body["document"], body["line"]) == ("lab.yaml", 2, 3)


def test_a_body_that_parses_but_holds_no_object_is_told_what_verdict_reads(client: FlaskClient) -> None:
    """Second new-user trial: a node's labels as JSON got "not a Kubernetes object: no 'kind'" from the service,
    where the CLI also says what verdict reads; a syntax error keeps its own reason only."""
    labels = b'{"nvidia.com/gpu.present": "true", "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"}'
    body = problem(evaluate(client, labels, content_type="application/json"), 400, "malformed-dump")
    assert body["detail"] == (
        "nothing in the body could be read as an object: not a Kubernetes object: a map of labels (what kubectl get"
        " node NAME -o jsonpath='{.metadata.labels}' prints), which holds no object; print the object with kubectl"
        " get ... -o yaml (or -o json); verdict reads what kubectl get -o yaml|json prints (objects or a List),"
        " kubectl describe node text, and tar/zip/gzip/xz/bzip2 archives"
        " of them such as a must-gather"
    )
    broken = problem(evaluate(client, b"kind: Node\nmetadata: {name: [\n"), 400, "malformed-dump")
    assert "verdict reads" not in broken["detail"]


@pytest.mark.parametrize(
    ("data", "content_type"),
    [
        (b"[]", "application/json"),
        (b'{"apiVersion": "v1", "kind": "List", "items": []}', "application/json"),
        (b"  \n\n   \r\n", "application/yaml"),
        # trial 79: a tab among the blanks was a YAML syntax error ("a tab: YAML indents with spaces only")
        (b"\t\n", "text/plain"),
        (b" \t \r\n\t", "application/yaml"),
        (b"# only a comment\n---\n# and another\n", "application/yaml"),
        (tar_gz({"cluster/README": b"not a dump", "cluster/notes.log": b"x"}), "application/gzip"),
    ],
)
def test_a_body_with_no_object_and_no_error_is_400_empty_body(client: FlaskClient, data: bytes, content_type: str) -> None:
    """Regression: these answered 200 with an empty report, which a CI job reads as a clean cluster (the
    CLI exits 2 for the same input). An archive's files set aside are named, as the CLI names them (trial 191: a tar
    of logs was told only that it holds no object)."""
    body = problem(evaluate(client, data, content_type=content_type), 400, "empty-body")
    skipped = (
        ": 2 files not read: neither named *.yaml, *.yml, *.json or an archive, nor starting as a dump or describe text"
        " (<body>!cluster/README, <body>!cluster/notes.log)"
    )
    assert body["detail"] == "the body holds no Kubernetes object" + (skipped if content_type == "application/gzip" else "")
    assert body["file"] == "<body>"
    named = problem(evaluate(client, data, "?name=ci/cluster.yaml", content_type=content_type), 400, "empty-body")
    assert named["file"] == "ci/cluster.yaml"


def test_describe_text_as_text_plain(client: FlaskClient) -> None:
    resp = evaluate(client, (DATA / "describe-node.txt").read_bytes(), content_type="text/plain")
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert verdicts(resp.get_json()) == {
        "Node/gpu-node-described": {"workload-label-valid": "fail", "gpu-advertised": "fail", "zone-label": "warn"}
    }


@pytest.mark.parametrize(
    ("data", "content_type"),
    [
        (tar_gz({}), "application/gzip"),
        (gzip.compress(bytes(1024)), "application/x-gzip"),
        (bytes(10240), "application/x-tar"),
        (bytes(1024), "application/octet-stream"),
        (bytes(20480), "application/x-tar"),  # tar -b 40 (trial 138)
    ],
)
def test_an_empty_tar_is_400_empty_body(client: FlaskClient, data: bytes, content_type: str) -> None:
    """Trial 136: an empty tar (tar czf x.tgz -T /dev/null; Python's writes 10,240 bytes, others 1,024) was
    "malformed-dump: YAML error: character U+0000". Trial 137: NULs sent as YAML are not taken for one."""
    body = problem(evaluate(client, data, content_type=content_type), 400, "empty-body")
    assert body["detail"] == "the body is an empty tar archive: it holds no file"
    problem(evaluate(client, bytes(1024), content_type="application/yaml"), 400, "malformed-dump")
    # trial 138: a raw empty tar sent as gzip is no gzip; zeros named nodes.yaml are no tar
    gzip_said = problem(evaluate(client, bytes(10240), content_type="application/gzip"), 400, "malformed-dump")
    assert gzip_said["detail"].startswith("Content-Type application/gzip, but the body is not a gzip stream")
    named = evaluate(client, bytes(4096), "?name=nodes.yaml", content_type="application/octet-stream")
    problem(named, 400, "malformed-dump")
    # trial 140: gzip'd zeros named nodes.yaml.gz are a broken file, as the CLI says
    problem(
        evaluate(client, gzip.compress(bytes(4096)), "?name=nodes.yaml.gz", content_type="application/gzip"),
        400,
        "malformed-dump",
    )


def test_empty_body_is_400(client: FlaskClient) -> None:
    body = problem(evaluate(client, b""), 400, "empty-body")
    assert body["detail"] == "the request has no body; send a dump (JSON, YAML, describe text or an archive)"
    problem(evaluate(client, gzip.compress(b""), **{"Content-Encoding": "gzip"}), 400, "empty-body")


@pytest.mark.parametrize(
    "headers",
    [
        {"Content-Type": ""},
        {"Content-Type": "text/html"},
        {"Content-Type": "multipart/form-data; boundary=x"},
        {"Content-Type": "application/yaml; charset=latin-1"},
    ],
)
def test_unsupported_media_type_is_415(client: FlaskClient, headers: dict[str, str]) -> None:
    resp = client.post("/v1/evaluate", data=CLUSTER, headers=headers)
    body = problem(resp, 415, "unsupported-media-type")
    assert "application/yaml" in body["detail"] or "UTF-8" in body["detail"]
    if "charset" in headers["Content-Type"]:  # the type was taken, its charset is refused: no list of types
        assert "Accept-Post" not in resp.headers
        return
    # the types it takes, in a header a client can read without parsing the detail (trial 171 #11)
    accepted = [t.strip() for t in resp.headers["Accept-Post"].split(",")]
    assert accepted == list(DUMP_TYPES) and "application/yaml" in accepted and "text/plain" in accepted


def test_a_body_labelled_utf16_or_utf32_is_read_as_its_charset_says(client: FlaskClient) -> None:
    """Trial 136: a UTF-16 body (what PowerShell's > writes) was read without a charset, by its byte order mark, and
    refused with "send UTF-8" when its Content-Type said charset=utf-16. Read as its charset says, with or without a
    mark (trial 137: none, in the byte order the text shows: .NET's utf-16 is little-endian, and was read big-endian);
    bytes that are not that text are a 400 saying so; an archive's charset is no text's."""
    plain = evaluate(client, CLUSTER)
    assert plain.status_code == 200
    text = CLUSTER.decode()
    for charset, data in (
        ("utf-16", b"\xff\xfe" + text.encode("utf-16-le")),
        ("utf-16", text.encode("utf-16-be")),
        ("utf-16", text.encode("utf-16-le")),
        ("utf-32", text.encode("utf-32-le")),
        ("utf-32", text.encode("utf-32-be")),
        ("UTF-16LE", text.encode("utf-16-le")),
        ("utf-32", text.encode("utf-32")),
        ("utf-32le", text.encode("utf-32-le")),
    ):
        resp = evaluate(client, data, content_type=f"application/yaml; charset={charset}")
        assert resp.status_code == 200, (charset, resp.get_data(as_text=True))
        assert verdicts(resp.get_json()) == verdicts(plain.get_json())
    odd = problem(evaluate(client, b"kind: Node\n", content_type="application/yaml; charset=utf-16"), 400, "malformed-dump")
    assert odd["detail"] == "the body is not UTF-16 text, as its charset says: truncated data at offset 10"
    archive = evaluate(client, tar_gz({"nodes.yaml": CLUSTER}), content_type="application/gzip; charset=utf-16")
    assert archive.status_code == 200, archive.get_data(as_text=True)
    # trial 138: a wrong byte order said explicitly read as CJK text, with no word of the charset
    wrong = problem(
        evaluate(client, text.encode("utf-16-le"), content_type="application/yaml; charset=utf-16be"), 400, "malformed-dump"
    )
    assert wrong["detail"].endswith(" (the body was read as UTF-16BE, as its charset says: is that its encoding and byte order?)")


def test_a_form_is_refused_with_how_to_send_the_file(client: FlaskClient) -> None:
    """``curl -d @dump.yaml`` labels the body a form (and drops its line breaks); ``curl -F`` wraps it in one."""
    form = problem(
        client.post("/v1/evaluate", data=CLUSTER, content_type="application/x-www-form-urlencoded"), 415, "unsupported-media-type"
    )
    assert form["detail"].startswith(
        "Content-Type application/x-www-form-urlencoded is not accepted here (curl -d and --data send it, and drop a file's"
        " line breaks): send the file as it is with curl --data-binary @FILE -H 'Content-Type: application/yaml'"
    )
    multipart = problem(
        client.post("/v1/evaluate", data=CLUSTER, content_type="multipart/form-data; boundary=x"), 415, "unsupported-media-type"
    )
    assert "(curl -F sends it, the file wrapped in a form)" in multipart["detail"]
    html = problem(client.post("/v1/evaluate", data=CLUSTER, content_type="text/html"), 415, "unsupported-media-type")
    assert html["detail"].startswith("Content-Type text/html is not accepted here; use one of application/json")


def test_a_yaml_file_flattened_to_one_line_is_told_to_keep_its_line_breaks(client: FlaskClient) -> None:
    """``curl -d @file -H 'Content-Type: application/yaml'`` sends the file without its line breaks: a file that
    starts with a comment becomes one comment (no object), another one line that does not parse."""
    lab = (DATA.parents[2] / "examples" / "lab-cluster.yaml").read_bytes()
    assert lab.startswith(b"#")
    flat = lab.replace(b"\r", b"").replace(b"\n", b"")
    body = problem(evaluate(client, flat, content_type="application/yaml"), 400, "empty-body")
    assert body["detail"] == (
        f"the body holds no Kubernetes object; the body is one line of {len(flat):,} bytes: curl -d drops a file's line"
        " breaks, send it with curl --data-binary @FILE"
    )
    uncommented = [line for line in CLUSTER.splitlines() if not line.lstrip().startswith(b"#")]
    flat = b"".join(uncommented)
    body = problem(evaluate(client, flat, content_type="application/yaml"), 400, "malformed-dump")
    assert body["detail"].startswith("nothing in the body could be read as an object: ")
    told = f"; the body is one line of {len(flat):,} bytes: curl -d drops a file's line breaks, send it with curl"
    assert body["detail"].endswith(f"{told} --data-binary @FILE")
    # JSON on one line, a short line and a body with line breaks are not told so
    for data, slug in (
        (b'{"not": "an object"}' + b" " * 100, "malformed-dump"),
        (b"# only a comment", "empty-body"),
        (b"# a comment\n" + b"#" * 100, "empty-body"),
    ):
        assert "one line" not in problem(evaluate(client, data, content_type="application/yaml"), 400, slug)["detail"]


def test_body_too_large_is_413() -> None:
    small = make_app(MAX_CONTENT_LENGTH=1024).test_client()
    body = problem(evaluate(small), 413, "body-too-large")
    assert "1024" in body["detail"]
    assert evaluate(small, gzip.compress(CLUSTER), **{"Content-Encoding": "gzip"}).status_code == 200


def chunked(client: FlaskClient, data: bytes) -> TestResponse:
    """A body without Content-Length, as gunicorn hands a chunked request over (``wsgi.input_terminated``)."""
    return client.post(
        "/v1/evaluate",
        input_stream=io.BytesIO(data),
        headers={**YAML, "Transfer-Encoding": "chunked"},
        environ_overrides={"wsgi.input_terminated": True},
    )


def test_chunked_body_over_the_limit_is_413_not_cut() -> None:
    small = make_app(MAX_CONTENT_LENGTH=len(CLUSTER) - 1).test_client()
    problem(chunked(small, CLUSTER), 413, "body-too-large")
    exact = make_app(MAX_CONTENT_LENGTH=len(CLUSTER)).test_client()
    resp = chunked(exact, CLUSTER)
    assert resp.status_code == 200 and verdicts(resp.get_json()) == EXPECTED


def test_decoded_body_too_large_is_413() -> None:
    small = make_app(MAX_DECODED_LENGTH=1024).test_client()
    body = problem(evaluate(small, gzip.compress(CLUSTER), **{"Content-Encoding": "gzip"}), 413, "body-too-large")
    assert "1024" in body["detail"]


def test_an_archive_member_unpacking_past_the_limit_is_an_input_error_and_the_rest_is_judged() -> None:
    """What docs/service.md says: the body itself unpacking past the bound is a 413; a member of an archive
    (a file, or a nested archive or gzip stream) that would take the request past it is not read, becomes an
    input error, and the other members are judged (a 400 malformed-dump only when none could be read)."""
    small = make_app(MAX_DECODED_LENGTH=64 * 1024).test_client()
    big = b"# " + b"x" * 100_000 + b"\n"
    reason = "unpacks to more than 65,536 bytes (archives nested included)"
    cases = {
        "cluster/inner.tar.gz": tar_gz({"big.yaml": big}),
        "cluster/big.yaml.gz": gzip.compress(big),
    }
    for member, data in cases.items():
        resp = evaluate(small, tar_gz({"cluster/nodes.yaml": CLUSTER, member: data}), content_type="application/gzip")
        assert resp.status_code == 200, resp.get_data(as_text=True)
        report = resp.get_json()
        assert verdicts(report) == EXPECTED
        assert report["inputErrors"] == [{"file": f"<body>!{member}", "document": 1, "line": 0, "path": "", "reason": reason}]
    resp = evaluate(
        small, tar_gz({"cluster/nodes.yaml": CLUSTER, "cluster/big.yaml": big}, compress=False), content_type="application/x-tar"
    )
    assert resp.status_code == 200 and verdicts(resp.get_json()) == EXPECTED
    assert [e["file"] for e in resp.get_json()["inputErrors"]] == ["<body>!cluster/big.yaml"]
    only = problem(
        evaluate(small, tar_gz({"cluster/big.yaml": big}, compress=False), content_type="application/x-tar"),
        400,
        "malformed-dump",
    )
    assert only["detail"] == f"nothing in the body could be read as an object: <body>!cluster/big.yaml, document 1: {reason}"
    # The body's own gzip stream (here a .tar.gz whose tar is over the bound) is the top level: 413.
    top = problem(
        evaluate(small, tar_gz({"cluster/nodes.yaml": CLUSTER, "cluster/big.yaml": big}), content_type="application/gzip"),
        413,
        "body-too-large",
    )
    assert top["detail"] == reason


def test_archive_unpacking_past_the_limit_is_413() -> None:
    """Regression: the unpack bound applied per archive level, so a small body of nested archives
    unpacked far past it; now one budget covers the request."""
    small = make_app(MAX_DECODED_LENGTH=4096).test_client()
    bomb = gzip.compress(b" " * 100_000)
    body = problem(evaluate(small, bomb, content_type="application/gzip"), 413, "body-too-large")
    assert "unpacks to more than 4,096 bytes" in body["detail"]


# ------------------------------------------------------------------------------------------- errors


def test_unknown_route_is_404(client: FlaskClient) -> None:
    body = problem(client.get("/v2/evaluate"), 404, "not-found")
    assert body["instance"] == "/v2/evaluate"


def test_wrong_method_is_405_with_allow(client: FlaskClient) -> None:
    resp = client.get("/v1/evaluate")
    problem(resp, 405, "method-not-allowed")
    assert "POST" in resp.headers["Allow"]
    resp = client.delete("/v1/policies")
    problem(resp, 405, "method-not-allowed")
    assert "GET" in resp.headers["Allow"]


def test_options_of_the_lint_route_lists_what_it_answers(client: FlaskClient) -> None:
    """Trial 37 (schemathesis ST205): OPTIONS /v1/policies/lint said GET and HEAD, which then answered 405."""
    resp = client.options("/v1/policies/lint")
    assert resp.headers["Allow"] == "OPTIONS, POST"
    for method in ("GET", "HEAD", "PUT", "DELETE", "PATCH"):  # trial 125: PUT said GET, HEAD, OPTIONS, POST
        resp = client.open("/v1/policies/lint", method=method)
        assert (resp.status_code, resp.headers["Allow"]) == (405, "POST"), method
    assert set(client.options("/v1/policies").headers["Allow"].split(", ")) == {"GET", "HEAD", "OPTIONS"}


def test_unexpected_error_is_a_500_problem_that_leaks_nothing(caplog: pytest.LogCaptureFixture) -> None:
    app = make_app()

    @app.post("/v1/boom")
    def boom() -> str:
        raise RuntimeError("internal secret: /etc/verdict/key")

    with caplog.at_level(logging.ERROR, logger="verdict"):
        resp = app.test_client().post("/v1/boom", data=b"BODY-MUST-NOT-BE-LOGGED", headers=YAML)
    body = problem(resp, 500, "internal-error")
    text = resp.get_data(as_text=True)
    assert "secret" not in text and "RuntimeError" not in text and "Traceback" not in text
    assert "internal secret" in caplog.text  # the log keeps the traceback...
    assert "BODY-MUST-NOT-BE-LOGGED" not in caplog.text  # ...but never the body
    assert body["instance"] == "/v1/boom"


# ------------------------------------------------------------------------------------------- policies


def test_list_policies(client: FlaskClient) -> None:
    resp = client.get("/v1/policies")
    assert resp.status_code == 200
    body = resp.get_json()
    assert PolicyListSchema().validate(body) == {}
    assert body["generation"] == 1 and body["lastReload"] is None
    assert body["policies"] == [
        {
            "name": "gpu-node-basics",
            "version": "1.0.0",
            "title": "GPU nodes are labelled and advertise their GPUs",
            "description": "Checks the GPU Operator's workload label and the nvidia.com/gpu resource on GPU nodes.",
            "pack": "gpu-lab",
            "file": "gpu-node-basics.yaml",
            "ruleCount": 3,
            "href": "/v1/policies/gpu-node-basics",
        }
    ]


def test_show_policy_with_rules_version_and_data_tables(client: FlaskClient) -> None:
    body = client.get("/v1/policies/gpu-node-basics").get_json()
    assert PolicyDetailSchema().validate(body) == {}
    assert body["version"] == "1.0.0"
    assert body["data"] == {"workloads": ["container", "vm-passthrough", "vm-vgpu"]}
    assert body["dataFiles"] == ["data/workloads.yaml"]
    assert [r["uid"] for r in body["rules"]] == [
        "gpu-node-basics/workload-label-valid",
        "gpu-node-basics/gpu-advertised",
        "gpu-node-basics/zone-label",
    ]
    assert body["rules"][2] == {
        "id": "zone-label",
        "uid": "gpu-node-basics/zone-label",
        "title": "Nodes carry a topology zone",
        "severity": "low",
        "category": "Topology",
        "onFailure": "warn",
        "href": "/v1/rules/gpu-node-basics/zone-label",
    }


def test_unknown_policy_is_404(client: FlaskClient) -> None:
    body = problem(client.get("/v1/policies/nope"), 404, "not-found")
    assert "gpu-node-basics" in body["detail"]
    # second new-user trial: the query's policy= and the CLI named the policy meant, this route did not
    near = problem(client.get("/v1/policies/gpu-node-basic"), 404, "not-found")
    assert near["detail"] == "no policy named 'gpu-node-basic' (did you mean 'gpu-node-basics'?); loaded: gpu-node-basics"


def test_show_rule_with_its_example(client: FlaskClient) -> None:
    body = client.get("/v1/rules/gpu-node-basics/workload-label-valid").get_json()
    assert RuleDetailSchema().validate(body) == {}
    assert body["title"] == "The workload label has a value the GPU Operator knows"
    assert body["severity"] == "high" and body["category"] == "GPU Operator"
    assert body["references"] == [
        "https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-operator-kubevirt.html"
    ]
    assert body["example"] == {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "gpu-node-1", "labels": {"nvidia.com/gpu.workload.config": "vm_passthrough"}},
    }
    assert body["match"]["kinds"] == ["Node"]
    assert body["match"]["matchExpressions"] == [{"key": "nvidia.com/gpu.workload.config", "operator": "Exists", "values": []}]


def test_rule_by_bare_id_and_without_example(client: FlaskClient) -> None:
    body = client.get("/v1/rules/gpu-advertised").get_json()
    assert body["uid"] == "gpu-node-basics/gpu-advertised"
    assert body["example"] is None
    assert body["match"]["matchLabels"] == {"nvidia.com/gpu.present": "true"}


def test_list_every_rule_with_its_policy_and_kinds(client: FlaskClient) -> None:
    """Trial 56: there was no listing of the rules in use, only one policy's at a time."""
    resp = client.get("/v1/rules")
    assert resp.status_code == 200 and resp.content_type == "application/json"
    # a GET route takes no query parameter and ignores one (service.md; trial 62)
    assert client.get("/v1/rules?x=1").get_json() == resp.get_json()
    body = resp.get_json()
    assert RuleListSchema().validate(body) == {}
    assert body["generation"] == 1
    assert [r["uid"] for r in body["rules"]] == [
        "gpu-node-basics/workload-label-valid",
        "gpu-node-basics/gpu-advertised",
        "gpu-node-basics/zone-label",
    ]
    # each is the policy's own summary of it, with its policy and kinds
    summaries = client.get("/v1/policies/gpu-node-basics").get_json()["rules"]
    assert body["rules"] == [{**r, "policy": "gpu-node-basics", "kinds": ["Node"]} for r in summaries]
    assert body["rules"][2]["title"] == "Nodes carry a topology zone" and body["rules"][2]["onFailure"] == "warn"
    assert client.get(body["rules"][2]["href"]).get_json()["uid"] == "gpu-node-basics/zone-label"
    builtin = create_app({}).test_client().get("/v1/rules").get_json()["rules"]
    assert len(builtin) == 86 and {"VirtualMachine", "VirtualMachineInstance"} <= {k for r in builtin for k in r["kinds"]}


def test_unknown_rule_is_404(client: FlaskClient) -> None:
    problem(client.get("/v1/rules/gpu-node-basics/nope"), 404, "not-found")


def test_a_bare_rule_id_of_two_policies_is_404_naming_both() -> None:
    """Regression: the detail said "no rule" for an id that exists twice."""
    builtin = create_app({}).test_client()
    body = problem(builtin.get("/v1/rules/workload-schedulable"), 404, "not-found")
    assert body["detail"] == (
        "rule id 'workload-schedulable' is ambiguous: gpu-pods/workload-schedulable, kubevirt-vms/workload-schedulable;"
        " name one as policy/rule"
    )
    assert body["candidates"] == ["gpu-pods/workload-schedulable", "kubevirt-vms/workload-schedulable"]
    assert builtin.get("/v1/rules/gpu-pods/workload-schedulable").status_code == 200


def test_get_on_the_lint_route_is_405_not_a_policy_named_lint(client: FlaskClient) -> None:
    """Regression: ``GET /v1/policies/lint`` looked for a policy named "lint" (404)."""
    resp = client.get("/v1/policies/lint")
    body = problem(resp, 405, "method-not-allowed")
    assert resp.headers["Allow"] == "POST"
    assert body["detail"] == "GET is not allowed on /v1/policies/lint; allowed: POST"


# ------------------------------------------------------------------------------------------- lint


def lint(client: FlaskClient, text: bytes, query: str = "", content_type: str = "application/yaml") -> TestResponse:
    return client.post(f"/v1/policies/lint{query}", data=text, headers={"Content-Type": content_type})


def test_lint_a_valid_policy(client: FlaskClient) -> None:
    text = (
        (PACK / "gpu-node-basics.yaml")
        .read_text()
        .replace("  dataFiles: [data/workloads.yaml]\n", "  data: {workloads: [container]}\n")
    )
    resp = lint(client, text.encode())
    assert resp.status_code == 200
    body = resp.get_json()
    assert LintResultSchema().validate(body) == {}
    assert body == {
        "valid": True,
        "errors": [],
        "policies": [
            {"name": "gpu-node-basics", "version": "1.0.0", "rules": ["workload-label-valid", "gpu-advertised", "zone-label"]}
        ],
        # trial 190: valid alone, a policy of a served policy's name is refused beside it: the answer says so
        "notes": [
            "policy name 'gpu-node-basics' is that of a policy this service serves (pack gpu-lab, gpu-node-basics.yaml):"
            " valid alone, it is refused beside it; replace that policy's file with it, or rename metadata.name to serve"
            " both"
        ],
    }
    renamed = lint(client, text.replace("name: gpu-node-basics", "name: my-gpu-nodes").encode()).get_json()
    assert (renamed["valid"], renamed["notes"]) == (True, [])
    # (trial 245 #6: a text YAML cut at its " #" is noted, as the CLI's lint notes it)
    cut = text.replace("name: gpu-node-basics", "name: my-gpu-nodes").replace(
        '    remediation: "kubectl label node {name} --overwrite nvidia.com/gpu.workload.config=container"',
        "    remediation: kubectl label node {name} --overwrite nvidia.com/gpu.workload.config=container  # or vm-vgpu",
    )
    noted = lint(client, cut.encode()).get_json()
    assert (noted["valid"], noted["notes"]) == (
        True,
        [
            "line 22: remediation: what follows its ' #' is a YAML comment, left out of the text: quote the text, or"
            " write it as a folded block (remediation: >-, the text on the lines under it)"
        ],
    )
    # a policy served from a file of its own is named by the file's name, as GET /v1/policies names it (trial 193:
    # the server's folders were said)
    alone = create_app({"POLICIES": [str(PACK / "gpu-node-basics.yaml")]}).test_client()
    [note] = lint(alone, text.encode()).get_json()["notes"]
    assert "(gpu-node-basics.yaml): valid alone" in note, note


def test_lint_gives_file_line_rule_and_reason(client: FlaskClient) -> None:
    body = lint(client, (DATA / "broken-policy.yaml").read_bytes(), "?file=broken-policy.yaml").get_json()
    assert body["valid"] is False and body["policies"] == []
    [err] = body["errors"]
    assert err["file"] == "broken-policy.yaml"
    assert err["line"] == 9
    assert err["rule"] == "bad-path"
    assert err["path"] == "spec.rules[0].assert.path"
    # One backslash each, as written in the policy (the JSON document escapes it once, as JSON does).
    assert err["reason"] == (
        r"'{.metadata.labels.nvidia\.com/gpu\.present}' is kubectl JSONPath, not RFC 9535 JSONPath;"
        """ did you mean "$.metadata.labels['nvidia.com/gpu.present']"?"""
    )


def test_lint_lists_every_error_of_the_body(client: FlaskClient) -> None:
    """Regression: ``errors`` held a document's first compile error only, and nothing of the next document."""
    text = (DATA / "broken-policy.yaml").read_text()
    second_rule = text.split("  rules:\n")[1].replace("bad-path", "bad-message").replace('"never evaluated"', '"{nodeName}"')
    second_rule = second_rule.replace("{.metadata.labels.nvidia\\\\.com/gpu\\\\.present}", "$.metadata.name")
    body = (
        text + second_rule + "---\napiVersion: verdict/v1\nkind: Policy\nmetadata: {name: other, titel: x}\nspec: {rules: []}\n"
    )
    result = lint(client, body.encode(), "?file=broken-policy.yaml").get_json()
    assert result["valid"] is False and result["policies"] == []
    assert [(e["line"], e["rule"], e["path"], e["reason"].split(" ")[0]) for e in result["errors"]] == [
        (9, "bad-path", "spec.rules[0].assert.path", "'{.metadata.labels.nvidia\\.com/gpu\\.present}'"),
        (16, "bad-message", "spec.rules[1].message", "message"),
        (21, "", "metadata.titel", "unknown"),
        (22, "", "spec.rules", "at"),
    ]
    assert {e["file"] for e in result["errors"]} == {"broken-policy.yaml"}


def test_lint_yaml_syntax_error_has_its_line(client: FlaskClient) -> None:
    body = lint(client, b"apiVersion: verdict/v1\nkind: Policy\nmetadata: {name: x\nspec: {}\n").get_json()
    assert body["valid"] is False
    assert body["errors"][0]["file"] == "<body>"
    assert body["errors"][0]["line"] >= 3


def test_lint_json_policy_and_schema_errors(client: FlaskClient) -> None:
    doc = {"apiVersion": "verdict/v1", "kind": "Policy", "metadata": {"name": "Bad_Name"}, "spec": {"rules": []}}
    body = lint(client, orjson.dumps(doc), content_type="application/json").get_json()
    assert body["valid"] is False
    assert body["errors"][0]["path"].startswith("metadata.name") or body["errors"][0]["path"].startswith("spec.rules")


def test_lint_errors(client: FlaskClient) -> None:
    # Regression: an empty body was asked for "a dump (JSON, YAML, describe text or an archive)".
    for data, coding in ((b"", {}), (gzip.compress(b""), {"Content-Encoding": "gzip"})):
        resp = client.post("/v1/policies/lint", data=data, headers={"Content-Type": "application/yaml", **coding})
        body = problem(resp, 400, "empty-body")
        assert body["detail"] == (
            "the request has no body; send a policy file (YAML or JSON: apiVersion: verdict/v1, kind: Policy)"
        )
    # Regression: an empty body without Content-Type (curl -X POST) was 415 "say what the body is": nothing
    # is missing but the body, whatever the Content-Type, or with none.
    for headers in ({}, {"Content-Type": "application/zip"}, {"Content-Length": "0"}):
        body = problem(client.post("/v1/policies/lint", headers=headers), 400, "empty-body")
        assert body["detail"] == (
            "the request has no body; send a policy file (YAML or JSON: apiVersion: verdict/v1, kind: Policy)"
        )
        body = problem(client.post("/v1/evaluate", headers=headers), 400, "empty-body")
        assert body["detail"] == "the request has no body; send a dump (JSON, YAML, describe text or an archive)"
    # a body without Content-Type is still asked to say what it is
    no_type = problem(client.post("/v1/policies/lint", data=b"x: 1", headers={"Content-Type": ""}), 415, "unsupported-media-type")
    assert no_type["detail"].startswith("say what the body is with Content-Type: one of application/yaml")
    refused = lint(client, b"x: 1", content_type="application/zip")
    assert refused.headers["Accept-Post"] == ", ".join(POLICY_TYPES)
    body = problem(lint(client, b"\xff\xfe\x00"), 400, "invalid-body")
    assert "UTF-8" in body["detail"]
    problem(lint(client, b"x: 1", content_type="application/zip"), 415, "unsupported-media-type")
    problem(lint(client, b"x: 1", "?fiel=x"), 400, "invalid-query")


# ------------------------------------------------------------------------------------------- operations


def test_healthz_and_readyz(client: FlaskClient) -> None:
    assert client.get("/healthz").get_json() == {"status": "ok"}
    body = client.get("/readyz").get_json()
    assert body["status"] == "ready" and body["policies"] == 1 and body["rules"] == 3 and body["generation"] == 1


def test_the_ready_log_line_counts_in_words(caplog: pytest.LogCaptureFixture) -> None:
    """Trial 84: "verdict ready: 1 policies"."""
    with caplog.at_level(logging.INFO, logger="verdict"):
        make_app()
    assert "verdict ready: 1 policy, 3 rules (generation 1); 0 exemptions; auth off" in caplog.text


def test_readyz_is_503_without_policies() -> None:
    client = create_app({"POLICY_SET": PolicySet([])}).test_client()
    resp = client.get("/readyz")
    problem(resp, 503, "not-ready")
    assert resp.headers["Retry-After"] == "5"
    assert client.get("/healthz").status_code == 200
    # Regression: evaluate answered 400 invalid-query (as if the client had filtered everything away).
    body = problem(evaluate(client), 503, "not-ready")
    assert body["detail"] == "no policy rule is loaded; see GET /readyz"


def metric(text: str, name: str, **labels: str) -> float:
    for line in text.splitlines():
        if line.startswith("#") or " " not in line:
            continue
        key, value = line.rsplit(" ", 1)
        metric_name, _, raw = key.partition("{")
        found = dict(part.split("=", 1) for part in raw.rstrip("}").split(",") if part) if raw else {}
        if metric_name == name and {k: v.strip('"') for k, v in found.items()} == labels:
            return float(value)
    return 0.0


def test_metrics_move_after_an_evaluate() -> None:
    client = make_app().test_client()
    before = client.get("/metrics")
    assert before.status_code == 200 and before.mimetype == "text/plain"
    # the version openapi.yaml names (a trial read 0.0.4 there and 1.0.0 in the answer)
    version = before.mimetype_params["version"]
    spec = yaml.safe_load((Path(__file__).resolve().parent.parent / "openapi.yaml").read_text())
    assert f"version={version}" in spec["paths"]["/metrics"]["get"]["responses"]["200"]["description"]
    assert metric(before.get_data(as_text=True), "verdict_objects_evaluated_total") == 0
    assert metric(before.get_data(as_text=True), "verdict_rules_loaded") == 3
    evaluate(client)
    evaluate(client, b"")
    text = client.get("/metrics").get_data(as_text=True)
    assert metric(text, "verdict_objects_evaluated_total") == 4
    assert metric(text, "verdict_results_total", result="fail", severity="critical") == 1
    assert metric(text, "verdict_results_total", result="fail", severity="high") == 1
    assert metric(text, "verdict_results_total", result="warn", severity="low") == 1
    assert metric(text, "verdict_results_total", result="pass", severity="high") == 2
    assert metric(text, "verdict_http_requests_total", route="/v1/evaluate", method="POST", status="200") == 1
    assert metric(text, "verdict_http_requests_total", route="/v1/evaluate", method="POST", status="400") == 1
    assert metric(text, "verdict_http_request_duration_seconds_count", route="/v1/evaluate", method="POST") == 2
    assert metric(text, "verdict_policy_load_errors_total") == 0
    other = make_app().test_client().get("/metrics").get_data(as_text=True)  # a registry per app
    assert metric(other, "verdict_objects_evaluated_total") == 0


def test_made_up_http_methods_add_no_metric_label_values() -> None:
    """Regression (issue 12 item 9): the raw method was a label value, so 100 requests with made-up methods
    grew /metrics from 15 to 1,736 lines."""
    client = make_app().test_client()
    client.open("/healthz", method="BREW")
    client.get("/metrics")
    lines_before = len(client.get("/metrics").get_data(as_text=True).splitlines())
    for i in range(99):
        client.open("/healthz", method=f"BREW{i}")
    text = client.get("/metrics").get_data(as_text=True)
    assert metric(text, "verdict_http_requests_total", route="<unmatched>", method="other", status="405") == 100
    assert "BREW" not in text
    assert len(text.splitlines()) == lines_before


def test_a_405_is_counted_under_the_route_that_matched_its_path() -> None:
    """Trial 56: service.md said 404 and 405 are counted as <unmatched>; GET /v1/policies/lint matches the
    policy route, which answers 405, and is counted under it, as the docs now say."""
    client = make_app().test_client()
    assert client.get("/v1/policies/lint").status_code == 405
    assert client.delete("/v1/evaluate").status_code == 405
    assert client.get("/v1/nothing").status_code == 404
    text = client.get("/metrics").get_data(as_text=True)
    assert metric(text, "verdict_http_requests_total", route="/v1/policies/<name>", method="GET", status="405") == 1
    assert metric(text, "verdict_http_requests_total", route="<unmatched>", method="DELETE", status="405") == 1
    assert metric(text, "verdict_http_requests_total", route="<unmatched>", method="GET", status="404") == 1


def test_openapi_is_served(client: FlaskClient) -> None:
    resp = client.get("/openapi.yaml")
    assert resp.status_code == 200 and resp.mimetype == "application/yaml"
    assert resp.get_data(as_text=True) == spec_yaml()
    assert yaml.safe_load(resp.get_data(as_text=True))["openapi"] == "3.1.0"


# ------------------------------------------------------------------------------------------- auth


@pytest.fixture(scope="module")
def secured() -> FlaskClient:
    return make_app(TOKENS=["s3cret-token", "second-token"]).test_client()


def test_auth_off_by_default(client: FlaskClient) -> None:
    assert client.get("/v1/policies").status_code == 200


@pytest.mark.parametrize("header", [None, "Bearer wrong", "Basic czNjcmV0LXRva2Vu", "Bearer ", "s3cret-token"])
def test_auth_refuses_missing_or_wrong_tokens(secured: FlaskClient, header: str | None) -> None:
    headers = {"Authorization": header} if header is not None else {}
    resp = secured.get("/v1/policies", headers=headers)
    problem(resp, 401, "unauthorized")
    # RFC 6750 section 3.1: no error code where no bearer token was given (trial 125: Basic got invalid_token)
    bearer = header is not None and header.lower().startswith("bearer ")
    assert resp.headers["WWW-Authenticate"] == 'Bearer realm="verdict"' + (', error="invalid_token"' if bearer else "")
    assert "s3cret" not in resp.get_data(as_text=True)
    resp = secured.post("/v1/evaluate", data=CLUSTER, headers={**YAML, **headers})
    problem(resp, 401, "unauthorized")


def test_auth_accepts_each_token(secured: FlaskClient) -> None:
    for token in ("s3cret-token", "second-token"):
        resp = secured.post("/v1/evaluate", data=CLUSTER, headers={**YAML, "Authorization": f"Bearer {token}"})
        assert resp.status_code == 200
        assert verdicts(resp.get_json()) == EXPECTED
    assert secured.get("/v1/rules/gpu-advertised", headers={"Authorization": "bearer second-token"}).status_code == 200


@pytest.mark.parametrize("path", ["/healthz", "/readyz", "/metrics", "/openapi.yaml"])
def test_operations_routes_stay_open(secured: FlaskClient, path: str) -> None:
    assert secured.get(path).status_code == 200


def test_tokens_from_env_and_file(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens"
    tokens.write_text("# one a line\nfile-token\n\n  other-token  \n")
    config = from_env({"VERDICT_TOKENS": "a, b,", "VERDICT_TOKENS_FILE": str(tokens), "VERDICT_POLICIES": str(PACK)})
    assert config["TOKENS"] == ["a", "b", "file-token", "other-token"]
    client = create_app(config).test_client()
    assert client.get("/v1/policies", headers={"Authorization": "Bearer other-token"}).status_code == 200
    assert client.get("/v1/policies", headers={"Authorization": "Bearer c"}).status_code == 401
    with pytest.raises(ConfigError, match="VERDICT_TOKENS_FILE"):
        from_env({"VERDICT_TOKENS_FILE": str(tmp_path / "missing")})


# ------------------------------------------------------------------------------------------- config


def test_config_defaults_and_parsing() -> None:
    config = from_env({})
    assert config["BIND"] == "127.0.0.1:8080" and config["WORKERS"] == 2
    assert config["MAX_CONTENT_LENGTH"] == 64 * 1024 * 1024 and config["POLICIES"] == [] and config["TOKENS"] == []
    assert config["LOG_LEVEL"] == "INFO" and config["WORKER_MAX_RSS_MB"] == 512
    assert from_env({"VERDICT_WORKER_MAX_RSS_MB": "0"})["WORKER_MAX_RSS_MB"] == 0
    config = from_env(
        {
            "VERDICT_BIND": "0.0.0.0:9000",
            "VERDICT_WORKERS": "4",
            "VERDICT_MAX_BODY": "1000",
            "VERDICT_POLICIES": f"a{__import__('os').pathsep}b",
            "VERDICT_LOG_LEVEL": "debug",
        }
    )
    assert (config["BIND"], config["WORKERS"], config["MAX_CONTENT_LENGTH"], config["POLICIES"], config["LOG_LEVEL"]) == (
        "0.0.0.0:9000",
        4,
        1000,
        ["a", "b"],
        "DEBUG",
    )


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"VERDICT_WORKERS": "many"}, "VERDICT_WORKERS"),
        ({"VERDICT_MAX_BODY": "0"}, "VERDICT_MAX_BODY"),
        ({"VERDICT_LOG_LEVEL": "loud"}, "VERDICT_LOG_LEVEL"),
        ({"VERDICT_TOKENS": "has space"}, "VERDICT_TOKENS"),
        ({"VERDICT_WORKER_MAX_RSS_MB": "-5"}, "VERDICT_WORKER_MAX_RSS_MB='-5' must be at least 0"),
    ],
)
def test_config_errors_name_the_variable(env: dict[str, str], named: str) -> None:
    with pytest.raises(ConfigError, match=named):
        from_env(env)


def test_broken_policy_makes_create_app_fail_with_file_line_and_reason() -> None:
    with pytest.raises(PolicyLoadError) as info:
        create_app({"POLICIES": [str(DATA / "broken-policy.yaml")]})
    [err] = info.value.errors
    assert err.file.endswith("broken-policy.yaml") and err.line == 9 and err.rule == "bad-path"
    assert "kubectl JSONPath" in err.reason


# ------------------------------------------------------------------------------------------- reload


@pytest.fixture()
def pack_copy(tmp_path: Path) -> Path:
    dest = tmp_path / "gpu-lab"
    (dest / "data").mkdir(parents=True)
    for f in ("gpu-node-basics.yaml", "data/workloads.yaml"):
        (dest / f).write_bytes((PACK / f).read_bytes())
    return dest


def test_reload_keeps_the_last_good_set_when_the_new_one_is_broken(pack_copy: Path) -> None:
    keeper = PolicyKeeper.load([str(pack_copy)])
    policy = pack_copy / "gpu-node-basics.yaml"
    good = policy.read_text()
    policy.write_text(good.replace("\"$.status.allocatable['nvidia.com/gpu']\"", '"{.status.allocatable}"'))
    outcome = keeper.reload()
    assert not outcome.ok
    assert outcome.errors[0].line == 34 and outcome.errors[0].rule == "gpu-advertised"
    assert keeper.generation == 1 and keeper.load_errors == 1
    assert keeper.policies.policy("gpu-node-basics") is not None and len(keeper.policies.rules) == 3
    policy.write_text(good.replace("version: 1.0.0", "version: 1.1.0"))
    outcome = keeper.reload()
    assert outcome.ok and keeper.generation == 2
    assert keeper.policies.policies[0].version == "1.1.0"


def test_workers_use_the_set_the_master_kept_and_report_its_reloads(pack_copy: Path) -> None:
    """What gunicorn.conf.py does: the master keeps the set (on_starting), reloads it on SIGHUP
    (on_reload); apps created afterwards (the new workers) serve the keeper's set and say how the last
    reload went."""
    sources = [str(pack_copy)]
    try:
        keeper = keep(sources)
        (pack_copy / "gpu-node-basics.yaml").write_text("apiVersion: verdict/v1\nkind: Policy\nmetadata: {name: x}\n")
        assert not keeper.reload().ok
        client = create_app({"POLICIES": sources}).test_client()
        body = client.get("/readyz").get_json()
        assert body["rules"] == 3 and body["generation"] == 1
        assert body["lastReload"]["ok"] is False
        assert body["lastReload"]["errors"][0]["file"].endswith("gpu-node-basics.yaml")
        assert verdicts(evaluate(client).get_json()) == EXPECTED
        text = client.get("/metrics").get_data(as_text=True)
        assert metric(text, "verdict_policy_load_errors_total") == 1
        assert client.get("/v1/policies").get_json()["lastReload"]["ok"] is False
    finally:
        forget()


def test_the_built_in_pack_is_served_whole() -> None:
    """Every policy and rule of the built-in packs (the default set) answers and fits its schema."""
    client = create_app({}).test_client()
    listed = client.get("/v1/policies").get_json()["policies"]
    assert listed and all(p["pack"] == "gpu-operator" for p in listed)
    for summary in listed:
        detail = client.get(summary["href"]).get_json()
        assert PolicyDetailSchema().validate(detail) == {}, summary["name"]
        for r in detail["rules"]:
            resp = client.get(r["href"])
            assert resp.status_code == 200 and RuleDetailSchema().validate(resp.get_json()) == {}, r["uid"]


def test_a_body_shorter_than_its_content_length_is_refused(client: FlaskClient) -> None:
    """Regression (issue 12 item 7): a body cut short with the client half-closing got a 200 report on the part
    received (9 of 19 objects): silent data loss."""
    body = b"apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
    resp = client.post(
        "/v1/evaluate",
        data=body,
        headers={"Content-Type": "application/yaml"},
        environ_overrides={"CONTENT_LENGTH": str(len(body) + 500), "wsgi.input_terminated": True},  # as gunicorn
    )
    assert resp.status_code == 400
    assert resp.mimetype == "application/problem+json"
    problem = resp.get_json()
    assert problem["type"] == "https://verdict.dev/problems/truncated-body"
    assert (
        problem["detail"]
        == f"the body ends after {len(body)} of the {len(body) + 500} bytes Content-Length announced; send it again"
    )
    # werkzeug's own count (a server that does not terminate the input) gives the same problem
    resp = client.post(
        "/v1/evaluate",
        data=body,
        headers={"Content-Type": "application/yaml"},
        environ_overrides={"CONTENT_LENGTH": str(len(body) + 500)},
    )
    assert resp.get_json()["type"] == "https://verdict.dev/problems/truncated-body"


def test_answers_carry_nosniff_and_reports_are_not_cached(client: FlaskClient) -> None:
    """Issue 12 item 14: no security headers."""
    report = evaluate(client)
    assert report.headers["X-Content-Type-Options"] == "nosniff"
    assert report.headers["Cache-Control"] == "no-store"
    problem = client.post("/v1/evaluate", data=b"", headers={"Content-Type": "application/yaml"})
    assert (problem.headers["X-Content-Type-Options"], problem.headers["Cache-Control"]) == ("nosniff", "no-store")
    spec = client.get("/openapi.yaml")
    assert spec.headers["X-Content-Type-Options"] == "nosniff" and "Cache-Control" not in spec.headers


def test_an_evaluation_past_its_budget_is_a_503(monkeypatch) -> None:
    """Issue 12 item 6: an evaluation had no time budget and ended in a 500 when gunicorn killed the worker. Past
    VERDICT_EVAL_BUDGET the request answers 503, and the app keeps serving."""
    import rules.evaluate as evaluate_module

    client = make_app(EVAL_BUDGET=1).test_client()
    clock = iter(range(0, 10_000, 5))  # every reading of the clock is 5 s later than the one before
    monkeypatch.setattr(evaluate_module.time, "perf_counter", lambda: float(next(clock)))
    resp = evaluate(client)
    body = problem(resp, 503, "evaluation-timeout")
    # trial 158: no Retry-After where the dump alone took the time (a client obeying it sent it again and again)
    assert "Retry-After" not in resp.headers
    # trial 125: the budget counts from the body read, reading the dump included (here it took 5 s of 1)
    assert body["detail"].startswith("reading and evaluating took more than the 1 s of VERDICT_EVAL_BUDGET (0 of ")
    assert body["detail"].endswith(
        " objects judged): send a smaller dump (one namespace or kind at a time), or audit it with the verdict CLI, which"
        " has no budget (where other requests kept the worker busy, it may pass once they are done)"
    )
    monkeypatch.undo()
    assert evaluate(client).status_code == 200


# ------------------------------------------------------------------------------- renderer options


def test_renderer_options_are_query_parameters(client: FlaskClient) -> None:
    import xml.etree.ElementTree as ET

    def body(query: str) -> TestResponse:
        resp = evaluate(client, query=query)
        assert resp.status_code == 200, resp.get_data(as_text=True)
        return resp

    plain = body("?format=sarif").get_json(force=True)["runs"][0]["results"]
    every = body("?format=sarif&sarifAllResults=true").get_json(force=True)["runs"][0]["results"]
    assert {r["kind"] for r in plain} == {"fail"} and {r["kind"] for r in every} == {"fail", "pass"}
    assert len(every) == 9  # the nine results of the three nodes
    junit = ET.fromstring(body("?format=junit").get_data())
    warned = ET.fromstring(body("?format=junit&junitWarnAsFailure=true").get_data())
    assert (junit.get("failures"), warned.get("failures")) == ("2", "3")  # zone-label's warn counts
    by_object = ET.fromstring(body("?format=junit&groupBy=object").get_data())
    assert [s.get("name") for s in by_object.findall("testsuite")] == list(EXPECTED)
    v1beta1 = yaml.safe_load(body("?format=policyreport&policyReportVersion=v1beta1").get_data())
    assert {i["apiVersion"] for i in v1beta1["items"]} == {"wgpolicyk8s.io/v1beta1"}
    as_json = body("?format=policyreport&policyReportOutput=json")
    assert as_json.mimetype == "application/json" and as_json.get_json(force=True)["kind"] == "List"
    split = yaml.safe_load(body("?format=policyreport&policyReportMaxBytes=2500").get_data())["items"]
    assert len(split) > 1 and all(len(orjson.dumps(i)) <= 2500 for i in split)
    assert "| Object | Rule | Result | Message | Fix |" in body("?format=markdown&groupBy=object").get_data(as_text=True)


@pytest.mark.parametrize(
    ("query", "reason"),
    [
        ("?format=json&groupBy=rule", "groupBy: only for format=chat, junit, markdown or table; this answer is json"),
        ("?format=junit&sarifAllResults=true", "sarifAllResults: only for format=sarif; this answer is junit"),
        ("?format=sarif&junitWarnAsFailure=1", "junitWarnAsFailure: only for format=junit; this answer is sarif"),
        ("?policyReportVersion=v1beta1", "policyReportVersion: only for format=policyreport; this answer is json"),
        ("?format=policyreport&policyReportVersion=v2", "policyReportVersion: unknown value 'v2'; one of v1alpha2, v1beta1"),
        ("?format=markdown&groupBy=policy", "groupBy: unknown value 'policy'; one of rule, object"),
        ("?format=policyreport&policyReportMaxBytes=0", "policyReportMaxBytes: Must be greater than or equal to 1."),
    ],
)
def test_a_renderer_option_of_another_format_or_a_bad_value_is_400(client: FlaskClient, query: str, reason: str) -> None:
    assert problem(evaluate(client, query=query), 400, "invalid-query")["detail"] == reason


def test_a_policyreport_size_cap_no_result_fits_in_is_400(client: FlaskClient) -> None:
    body = problem(evaluate(client, query="?format=policyreport&policyReportMaxBytes=300"), 400, "invalid-query")
    assert body["detail"] == (
        "policyReportMaxBytes: at least 1013 bytes for this dump: one result of gpu-node-basics/workload-label-valid needs"
        " 695 bytes, more than a report of 300 bytes can hold beside its own fields"
    )
    assert evaluate(client, query="?format=policyreport&policyReportMaxBytes=1013").status_code == 200
    assert body["errors"][0]["parameter"] == "policyReportMaxBytes"


# ------------------------------------------------------------------------------------------- filters


def test_kubectl_filters_are_query_parameters(client: FlaskClient) -> None:
    whole = evaluate(client).get_json()
    resp = evaluate(client, query="?kind=no&labelSelector=nvidia.com/gpu.workload.config%3Dvm_passthrough")
    assert resp.status_code == 200, resp.get_data(as_text=True)
    report = resp.get_json()
    assert verdicts(report) == {"Node/gpu-node-typo": EXPECTED["Node/gpu-node-typo"]}
    assert report["summary"]["selection"] == {
        "kinds": ["no"],
        "labelSelector": "nvidia.com/gpu.workload.config=vm_passthrough",
        "objectsSelected": 1,
    }
    [kept] = report["objects"]
    assert kept == next(o for o in whole["objects"] if o["name"] == "gpu-node-typo")  # the same verdict, word for word
    named = evaluate(client, query="?objectName=gpu-node-*o*&namespace=default").get_json()
    assert named["objects"] == [] and named["summary"]["selection"]["objectsSelected"] == 0  # Nodes are in no namespace
    globbed = evaluate(client, query="?objectName=gpu-node-no-*,gpu-node-good").get_json()
    assert sorted(o["name"] for o in globbed["objects"]) == ["gpu-node-good", "gpu-node-no-gpus"]


def test_empty_filter_values_select_every_object(client: FlaskClient) -> None:
    """Trial 56: labelSelector= was a 400 while kind=, namespace= and objectName= were no filter; an empty
    selector selects everything in the Kubernetes API (and kubectl -l ''), so it does here too."""
    whole = evaluate(client).get_json()
    for query in ("?labelSelector=", "?labelSelector=%20", "?kind=&namespace=&objectName=&labelSelector="):
        resp = evaluate(client, query=query)
        assert resp.status_code == 200, (query, resp.get_data(as_text=True))
        report = resp.get_json()
        assert verdicts(report) == verdicts(whole)
        assert "selection" not in report["summary"]


def test_a_filter_that_cannot_select_is_400(client: FlaskClient) -> None:
    body = problem(evaluate(client, query="?kind=Service"), 400, "invalid-query")
    assert body["errors"] == [{"parameter": "kind", "reason": "no loaded rule judges kind 'Service'; the rules judge Node"}]
    body = problem(evaluate(client, query="?labelSelector=a%20in%20b"), 400, "invalid-query")
    assert body["detail"] == "labelSelector: label selector 'a in b': found 'b', expected: '('"


def test_a_rule_named_in_the_query_that_matches_no_object_is_said_in_the_notes(client: FlaskClient) -> None:
    """New-user trial: a rule chosen by name that matched nothing left no trace in the report."""
    pod = b"apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec: {containers: [{name: c}]}\n"
    body = evaluate(client, data=pod, query="?rule=gpu-node-basics/zone-label").get_json()
    assert body["objects"] == []
    assert "rule gpu-node-basics/zone-label matched no object of the dump (it judges Node)" in body["notes"]
    whole = evaluate(client, data=pod).get_json()  # a whole policy set: rules that match nothing are not news
    assert not [n for n in whole["notes"] if "matched no object" in n]


def test_an_unknown_query_value_names_the_one_it_likely_stands_for(client: FlaskClient) -> None:
    """New-user trial: the CLI said "did you mean 'fail'?" for --results fails, the service did not for results=fails."""
    body = evaluate(client, query="?results=fails").get_json()
    assert body["errors"] == [
        {"parameter": "results", "reason": "unknown value 'fails' (did you mean 'fail'?); one of pass, fail, warn, error, skip"}
    ]
    detail = evaluate(client, query="?format=mardown").get_json()["detail"]
    assert detail == (
        "format: unknown value 'mardown' (did you mean 'markdown'?); one of chat, json, junit, markdown, policyreport, sarif,"
        " table, yaml"
    )
    # an abbreviation (a second trial: format=md named nothing)
    detail = evaluate(client, query="?format=md").get_json()["detail"]
    assert detail.startswith("format: unknown value 'md' (did you mean 'markdown'?); one of chat, json")


def test_nearest_takes_prefixes_spellings_and_abbreviations() -> None:
    from rules.errors import nearest

    formats = ["json", "junit", "markdown", "policyreport", "sarif", "table", "yaml"]
    cases = {"md": "markdown", "yml": "yaml", "tbl": "table", "pr": "policyreport", "jsn": "json", "x": None, "j": None}
    assert {w: nearest(w, formats) for w in cases} == cases
    assert nearest("v2", ["v1alpha2", "v1beta1"]) is None  # letters only: not an abbreviation


BARE_NODE = b"""apiVersion: v1
kind: Node
metadata:
  name: lab-gpu
  labels:
    nvidia.com/gpu.workload.config: container
status:
  allocatable:
    nvidia.com/gpu: "1"
"""


def test_table_answer_carries_the_notes_the_cli_prints_on_standard_error() -> None:
    """Regression: format=table over HTTP dropped the report's notes (the assumptions its verdicts rest on), which
    the CLI prints on standard error beside the table; an answer has only its body."""
    from click.testing import CliRunner

    from rules.cli import main

    client = create_app({"REPORT_CACHE_MB": 0}).test_client()
    table = evaluate(client, BARE_NODE, "?format=table").get_data(as_text=True)
    report = evaluate(client, BARE_NODE).get_json()
    assumed = [n for n in report["notes"] if n.startswith("assumed:")]
    assert len(assumed) == 2 and len(report["notes"]) == 17
    lines = table.splitlines()
    # no-unhealthy-devices skips: the node has no status.capacity to compare allocatable with
    assert lines[0] == "1 object judged (1 read); 28 results: 6 pass, 22 skip; no fail, warn or error"
    noted = [line for line in lines if line.startswith("note: ")]
    assert len(noted) == len(report["notes"])
    flat = " ".join(line.strip() for line in lines)
    for note in report["notes"]:
        assert f"note: {note}" in flat
    # the CLI's table leaves them to standard error, once
    run = CliRunner().invoke(main, ["audit", "-", "-f", "table"], input=BARE_NODE.decode())
    assert "note:" not in run.stdout
    assert run.stderr.count("verdict: note: assumed:") == 2


def test_a_chat_message_posted_as_markdown_is_read_inside_its_code_blocks(client: FlaskClient) -> None:
    """Regression (a chatops trial): text/markdown, the natural type of a chat message, was refused (415); and a
    Slack block (its first and last lines on the fences) held nothing verdict read."""
    message = b'see:\n```apiVersion: v1\nkind: Node\nmetadata:\n  name: gpu-p\n  labels: {a: "b"}```\nthanks'
    for content_type in ("text/markdown", "text/plain"):
        resp = evaluate(client, message, "?format=json", content_type=content_type)
        assert resp.status_code == 200, resp.get_data(as_text=True)
        report = resp.get_json()
        assert [(o["name"], o["source"]["line"]) for o in report["objects"]] == [("gpu-p", 2)]
        assert "<body>: read inside its fenced Markdown code blocks; set aside: 2 lines of text around them" in report["notes"]


def test_a_worker_judges_one_large_dump_at_a_time_and_answers_small_ones_meanwhile() -> None:
    """Trial 125: eight 291 KB gzip bodies at once (each refused with its 413) took two workers to 1.3 GB each: memory
    was bounded per request, not per worker. A compressed body, an archive or a body past 1 MiB waits for the worker's
    one large-dump slot (VERDICT_EVAL_BUDGET seconds at most, then 503 busy); a small plain body does not."""
    from api.bodies import LARGE_BODY, LargeSlot, is_large

    client = make_app(EVAL_BUDGET=1).test_client()
    assert LargeSlot._lock.acquire(timeout=5)  # another request of this worker judges a large dump
    try:
        t0 = time.monotonic()
        body = problem(evaluate(client, gzip.compress(CLUSTER), **{"Content-Encoding": "gzip"}), 503, "busy")
        waited = time.monotonic() - t0
        assert body["detail"].startswith("this worker judged other large dumps for 1 s while this one waited")
        assert 0.9 <= waited < 5, waited
        tarred = problem(evaluate(client, gzip.compress(CLUSTER), content_type="application/gzip"), 503, "busy")
        assert tarred["title"] == "The worker is judging another large dump"
        assert evaluate(client).status_code == 200  # the small plain body is judged meanwhile
    finally:
        LargeSlot._lock.release()
    resp = evaluate(client, gzip.compress(CLUSTER), **{"Content-Encoding": "gzip"})
    assert resp.status_code == 200 and LargeSlot._lock.acquire(blocking=False)  # answered, and the slot given back
    LargeSlot._lock.release()
    # trial 126: the wait for the slot counts in the budget (10.6 s were spent at a 7 s budget)
    import threading

    import api.evaluate as evaluate_module

    given: list[float] = []
    real = evaluate_module.audit_bytes

    def audit(data: bytes, name: str, policies: Any, unpacked: Any, exemptions: Any, budget: float, *rest: Any) -> Any:
        given.append(budget)
        return real(data, name, policies, unpacked, exemptions, budget, *rest)

    slow = make_app(EVAL_BUDGET=5).test_client()
    evaluate_module.audit_bytes = audit  # type: ignore[assignment]
    try:
        assert LargeSlot._lock.acquire(timeout=5)
        threading.Timer(1.0, LargeSlot._lock.release).start()  # the other large dump is done after 1 s
        assert evaluate(slow, gzip.compress(CLUSTER), "?format=markdown", **{"Content-Encoding": "gzip"}).status_code == 200
    finally:
        evaluate_module.audit_bytes = real
    assert len(given) == 1 and 3.0 < given[0] <= 4.1, given  # 5 s less the second it waited
    assert (is_large(b"x" * (LARGE_BODY + 1)), is_large(CLUSTER), is_large(gzip.compress(b"a"))) == (True, False, True)


def test_every_report_answer_says_the_audits_outcome_in_a_header() -> None:
    """Trial 124: a chat bot asking for Markdown could tell "all good" from "problems found" only by parsing the
    summary line (or asking again for JSON). Verdict-Summary says the whole audit's outcome, whatever the format and
    filters, as an RFC 8941 dictionary."""
    client = make_app().test_client()
    full = evaluate(client).get_json()
    counts = full["summary"]["results"]
    expected = (
        f"worst=fail, pass={counts['pass']}, fail={counts['fail']}, warn={counts['warn']}, error={counts['error']},"
        f" skip={counts['skip']}, input-errors=0, judged={full['summary']['objectsJudged']}"
    )
    assert counts["fail"] > 0
    for query in ("?format=markdown", "?format=json&results=pass", "?format=sarif", ""):
        assert evaluate(client, query=query).headers["Verdict-Summary"] == expected, query
    good = b"apiVersion: v1\nkind: Node\nmetadata: {name: plain-node}\n"
    assert evaluate(client, good).headers["Verdict-Summary"].startswith("worst=")
    broken = evaluate(client, CLUSTER + b"\n---\nkind: [\n").headers["Verdict-Summary"]
    assert broken.startswith("worst=error, ") and ", input-errors=1, judged=" in broken, broken
    # trial 158: a selection that keeps nothing said worst=skip, which a bot took for a clean cluster
    nothing = evaluate(client, query="?objectName=no-such-object*").headers["Verdict-Summary"]
    assert nothing.endswith(", input-errors=0, judged=0"), nothing


def test_lint_says_where_a_body_is_not_utf8_and_a_json_body_in_jsons_words(client: FlaskClient) -> None:
    """Trial 125: a policy body with a byte that is not UTF-8 got "(byte 703)" and no line, where the CLI says line
    and column; a body sent as JSON that does not parse was said to be a "YAML syntax error"."""
    text = b"apiVersion: verdict/v1\nkind: Policy\nmetadata: {name: x, version: 1.0.0}\n# caf\xe9\n"
    body = problem(lint(client, text), 400, "invalid-body")
    assert (body["detail"], body["line"]) == ("the policy is not UTF-8 text: byte 0xe9 at line 4, column 6", 4)
    broken = lint(client, b'{"apiVersion": "verdict/v1",\n "kind":', content_type="application/json").get_json()
    assert broken["valid"] is False
    [err] = broken["errors"]
    assert (err["line"], err["reason"]) == (2, "JSON syntax error: Expecting value (line 2, column 9)")
    # the same text sent as YAML keeps YAML's words
    assert lint(client, b'{"apiVersion": "verdict/v1",\n "kind":').get_json()["errors"][0]["reason"].startswith("YAML")
    # trial 180: JSON nested past Python's stack, sent as JSON, was a 500 (json.loads' RecursionError); the loader says
    deep = lint(client, b"[" * 3000 + b"]" * 3000, content_type="application/json")
    assert deep.status_code == 200 and deep.get_json()["valid"] is False
    assert "nesting deeper than 100 levels" in deep.get_json()["errors"][0]["reason"]


def test_a_large_dump_left_too_little_of_its_budget_by_the_wait_is_busy_at_once() -> None:
    """Trial 128: a large dump whose slot freed just before its budget ran out then read 79 MB it could not judge, and
    its timeout said "took more than 0.0503762 s". Under a tenth of the budget (at most 1 s) left, it is busy at once."""
    import threading

    from api.bodies import LargeSlot

    client = make_app(EVAL_BUDGET=2).test_client()
    assert LargeSlot._lock.acquire(timeout=5)
    threading.Timer(1.9, LargeSlot._lock.release).start()
    body = problem(evaluate(client, gzip.compress(CLUSTER), **{"Content-Encoding": "gzip"}), 503, "busy")
    # (on a busy machine the slot may free just past the 2 s: the wait's own busy, said the same way)
    assert body["detail"].startswith("this worker judged other large dumps for ") and "while this one waited" in body["detail"]
    assert LargeSlot._lock.acquire(timeout=5)  # given back
    LargeSlot._lock.release()


def test_a_tar_xz_is_taken_as_a_tar_and_named_when_sent_as_another_type(client: FlaskClient) -> None:
    """Trial 155: a .tar.xz sent as application/x-tar was refused (a compressed tar is a tar, as a .tar.gz sent so is
    read), and one sent as application/zip was not told which type to send."""
    import io
    import lzma
    import tarfile

    out = io.BytesIO()
    node = b"apiVersion: v1\nkind: Node\nmetadata:\n  name: gpu-1\n"
    with tarfile.open(fileobj=out, mode="w") as tar:
        info = tarfile.TarInfo("mg/nodes.yaml")
        info.size = len(node)
        tar.addfile(info, io.BytesIO(node))
    packed = lzma.compress(out.getvalue())
    resp = client.post("/v1/evaluate", data=packed, headers={"Content-Type": "application/x-tar"})
    assert resp.status_code == 200, resp.get_data(as_text=True)
    assert [o["name"] for o in resp.get_json()["objects"]] == ["gpu-1"]
    refused = client.post("/v1/evaluate", data=packed, headers={"Content-Type": "application/zip"})
    assert refused.status_code == 400
    assert refused.get_json()["detail"] == (
        "Content-Type application/zip, but the body is not a zip archive; it is an xz stream (a .tar.xz or .yaml.xz):"
        " send it as application/x-xz"
    )


def test_every_answer_carries_the_request_id_the_client_gave_or_one_made(client: FlaskClient) -> None:
    """Regression (trial 171): a bot could hand its user no reference to look an answer up by: no X-Request-Id was
    said back or made, and a problem document carried none. The client's id (one of printable characters without a
    space, at most 128) is said back in the header and a problem's requestId; another, or none, is replaced."""
    given = evaluate(client, **{"X-Request-Id": "slack-C024BE91L-1712345678.000200"})
    assert given.status_code == 200 and given.headers["X-Request-Id"] == "slack-C024BE91L-1712345678.000200"
    made = evaluate(client).headers["X-Request-Id"]
    assert re.fullmatch(r"[0-9a-f]{32}", made)
    assert evaluate(client).headers["X-Request-Id"] != made  # one a request
    bad = evaluate(client, **{"X-Request-Id": "a b\tc"}).headers["X-Request-Id"]
    assert re.fullmatch(r"[0-9a-f]{32}", bad)
    refused = evaluate(client, b"", **{"X-Request-Id": "bot-123"})
    body = problem(refused, 400, "empty-body")
    assert (body["requestId"], refused.headers["X-Request-Id"]) == ("bot-123", "bot-123")
    assert client.get("/healthz", headers={"X-Request-Id": "probe-1"}).headers["X-Request-Id"] == "probe-1"


def test_a_chat_message_of_an_unnamed_body_does_not_name_it_in_its_notes(client: FlaskClient) -> None:
    """Regression (trial 171): without name=, notes in a chat message began "<body>:" (with a zero-width space after
    its "<"), a placeholder of no use to the chat's reader; named, the notes keep the name."""
    paste = b"```yaml\napiVersion: v1\nkind: Node\nmetadata:\n  name: a\n```\nthanks\n"
    for fmt in ("markdown", "chat"):
        text = evaluate(client, paste, f"?format={fmt}", "text/plain").get_data(as_text=True)
        assert "\n_note: read inside its fenced Markdown code blocks; set aside: 1 line of text around them_\n" in text
        assert "body>" not in text
        named = evaluate(client, paste, f"?format={fmt}&name=slack.txt", "text/plain").get_data(as_text=True)
        assert "_note: slack.txt: read inside its fenced Markdown code blocks" in named


def test_a_doubled_slash_a_trailing_one_and_options_answer_as_every_route_does(client: FlaskClient) -> None:
    """Regression (trial 180): /v1//evaluate got Werkzeug's 308 text/html redirect, whose absolute Location echoed the
    Host header; /v1/rules/<policy>/<rule>/ was a 404 where every other route takes the trailing slash; OPTIONS
    answered 200 text/html with no body, undeclared."""
    doubled = client.post("/v1//evaluate", data=b"{}", content_type="application/json", headers={"Host": "evil.example"})
    assert doubled.status_code == 404 and doubled.mimetype == "application/problem+json"
    assert "Location" not in doubled.headers
    slashed = client.get("/v1/rules/gpu-node-basics/workload-label-valid/")
    assert slashed.status_code == 200 and slashed.get_json()["uid"] == "gpu-node-basics/workload-label-valid"
    options = client.options("/v1/evaluate")
    allowed = {m.strip() for m in options.headers["Allow"].split(",")}  # (Werkzeug's order follows a set's)
    assert (options.status_code, allowed, options.get_data()) == (204, {"POST", "OPTIONS"}, b"")
    assert "Content-Type" not in options.headers
