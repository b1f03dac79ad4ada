"""openapi.yaml is the HTTP contract: it must be exactly what api/openapi.py generates from the
marshmallow schemas, and it must name every route the app serves (and no other)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from flask import Flask

from api import create_app
from api.openapi import spec_dict, spec_yaml
from rules.render import FORMATS

ROOT = Path(__file__).resolve().parent.parent
COMMITTED = ROOT / "openapi.yaml"
PACK = ROOT / "tests" / "data" / "api" / "gpu-lab"


def test_committed_openapi_is_the_generated_one() -> None:
    assert COMMITTED.read_text(encoding="utf-8") == spec_yaml(), (
        "openapi.yaml is out of date: run .venv/bin/python scripts/gen_openapi.py and commit it"
    )


def test_openapi_is_3_1_and_parses() -> None:
    doc = yaml.safe_load(COMMITTED.read_text(encoding="utf-8"))
    assert doc["openapi"] == "3.1.0"
    assert doc == spec_dict()


def test_openapi_is_a_valid_3_1_document() -> None:
    validator = pytest.importorskip("openapi_spec_validator", reason="in the test extra: pip install -e '.[test]'")
    validator.validate(yaml.safe_load(COMMITTED.read_text(encoding="utf-8")))


def _app_routes(app: Flask) -> set[tuple[str, str]]:
    out = set()
    for rule in app.url_map.iter_rules():
        if rule.endpoint == "static":
            continue
        path = re.sub(r"<(?:[a-z]+:)?([a-z_]+)>", r"{\1}", rule.rule).replace("{uid}", "{id}")
        for method in rule.methods or ():
            if method != "HEAD":  # OPTIONS: Flask's 204 with Allow, declared (trial 180)
                out.add((method.lower(), path))
    return out


def test_every_route_is_documented_and_nothing_else() -> None:
    app = create_app({"POLICIES": [str(PACK)]})
    documented = {(m, p) for p, ops in spec_dict()["paths"].items() for m in ops}
    assert _app_routes(app) == documented


def test_every_format_is_offered() -> None:
    params = {p["name"]: p for p in spec_dict()["paths"]["/v1/evaluate"]["post"]["parameters"]}
    assert params["format"]["schema"]["enum"] == sorted(FORMATS)
    content = spec_dict()["paths"]["/v1/evaluate"]["post"]["responses"]["200"]["content"]
    assert {n for c in content.values() for n in c["x-formats"]} == set(FORMATS)


def _response_schema_check(doc: dict, media_type: str, body: bytes) -> None:
    """``body`` conforms to what openapi.yaml declares for a 200 of /v1/evaluate in ``media_type``."""
    import jsonschema
    from referencing import Registry, Resource
    from referencing.jsonschema import DRAFT202012

    content = doc["paths"]["/v1/evaluate"]["post"]["responses"]["200"]["content"]
    schema = content[media_type]["schema"]
    if schema == {"type": "string"}:
        assert body.decode("utf-8")
        return
    value = yaml.safe_load(body) if "yaml" in media_type else json.loads(body)
    # the schema's local #/components/... references, resolved in the whole document
    registry = Registry().with_resource("urn:openapi", Resource(contents=doc, specification=DRAFT202012))
    pointed = json.loads(json.dumps(schema).replace('"#/components/', '"urn:openapi#/components/'))
    jsonschema.Draft202012Validator(pointed, registry=registry).validate(value)


@pytest.mark.parametrize(
    "query",
    [f"format={f}" for f in sorted(FORMATS)] + ["format=policyreport&policyReportOutput=json"],
)
def test_every_response_conforms_to_the_declared_schema(query: str) -> None:
    """Trial 37 (schemathesis): format=policyreport&policyReportOutput=json answered application/json with a v1
    List, where openapi.yaml declared every 200 application/json a Report."""
    doc = yaml.safe_load(COMMITTED.read_text(encoding="utf-8"))
    client = create_app({"POLICIES": [str(PACK)]}).test_client()
    lab = (ROOT / "examples" / "lab-cluster.yaml").read_bytes()
    resp = client.post(f"/v1/evaluate?{query}", data=lab, content_type="application/yaml")
    assert resp.status_code == 200, resp.get_data(as_text=True)[:500]
    media_type = resp.headers["Content-Type"].split(";")[0].strip()
    _response_schema_check(doc, media_type, resp.get_data())


def test_list_query_values_are_described_as_the_service_reads_them() -> None:
    """Trial 125: `results=fail,warn`, the form the docs use everywhere, broke the schema's enum (one word a value),
    so an OpenAPI request validator refused it; an empty `rule=` was accepted by the service but not by the schema;
    `limit` 1-499 was allowed by the schema and refused by the service."""
    import jsonschema

    from api.openapi import spec_dict

    params = {p["name"]: p["schema"] for p in spec_dict()["paths"]["/v1/evaluate"]["post"]["parameters"]}
    results = params["results"]["items"]
    for value in ("fail", "fail,warn", "", "pass,fail,warn,error,skip", "fail,", "fail, warn"):
        jsonschema.validate(value, results)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate("fail,nope", results)
    jsonschema.validate("", params["rule"]["items"])
    for ok in (0, 500, 3500):
        jsonschema.validate(ok, params["limit"])
    for bad in (1, 499, -1):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, params["limit"])
