"""docs/policy.schema.json is current (a fresh `scripts/gen_schema.py` gives the same text), is a valid
JSON Schema (draft 2020-12), and accepts every policy of the built-in packs and every doc example."""

from __future__ import annotations

import copy
import importlib.util
import json
from typing import Any

import pytest
from conftest import ROOT, doc_operator_examples, doc_policies
from jsonschema import Draft202012Validator

from rules.yamlsafe import load_documents

SCHEMA_FILE = ROOT / "docs" / "policy.schema.json"


def _gen_schema() -> Any:
    spec = importlib.util.spec_from_file_location("gen_schema", ROOT / "scripts" / "gen_schema.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def validator() -> Draft202012Validator:
    return Draft202012Validator(json.loads(SCHEMA_FILE.read_text(encoding="utf-8")))


def test_committed_schema_is_current() -> None:
    fresh = _gen_schema().render()
    assert SCHEMA_FILE.read_text(encoding="utf-8") == fresh, "docs/policy.schema.json is stale: run scripts/gen_schema.py"


def test_check_mode_agrees() -> None:
    assert _gen_schema().main(["--check"]) == 0


def test_it_is_a_valid_draft_2020_12_schema() -> None:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)


def _errors(validator: Draft202012Validator, doc: Any) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(doc)]


def _pack_documents() -> list[tuple[str, Any]]:
    out = []
    for path in sorted(ROOT.glob("policies/*/*.y*ml")):
        if path.suffix not in (".yaml", ".yml"):
            continue
        for doc in load_documents(path.read_text(encoding="utf-8")):
            assert not doc.error, f"{path}: {doc.error}"
            out.append((f"{path.relative_to(ROOT)}#{doc.number}", doc.data))
    return out


PACK_DOCS = _pack_documents()
DOC_POLICIES = doc_policies()


@pytest.mark.skipif(not PACK_DOCS, reason="no pack policy file yet")
@pytest.mark.parametrize(("label", "doc"), PACK_DOCS, ids=[label for label, _ in PACK_DOCS])
def test_pack_policies_validate(validator: Draft202012Validator, label: str, doc: Any) -> None:
    assert _errors(validator, doc) == []


def test_pack_data_and_tests_are_not_policies() -> None:
    assert all("/data/" not in label and "/tests/" not in label for label, _ in PACK_DOCS)


@pytest.mark.parametrize(("label", "doc"), DOC_POLICIES, ids=[label for label, _ in DOC_POLICIES])
def test_doc_examples_validate(validator: Draft202012Validator, label: str, doc: Any) -> None:
    assert _errors(validator, doc) == []


def test_doc_operator_examples_validate(validator: Draft202012Validator) -> None:
    doc = copy.deepcopy(DOC_POLICIES[0][1])
    doc["spec"]["rules"] = [
        {
            "id": f"example-{name.lower()}",
            "title": name,
            "match": {"kinds": ["*"]},
            "assert": a,
            "message": "{observed}",
            "references": ["docs/policy-format.md"],
        }
        for name, a in doc_operator_examples().items()
    ]
    assert _errors(validator, doc) == []


def test_schema_refuses_typos(validator: Draft202012Validator) -> None:
    doc = copy.deepcopy(DOC_POLICIES[0][1])
    doc["spec"]["rules"][0]["assert"] = {"var": "workloadLabel", "equalz": "container"}
    doc["spec"]["defaults"]["severity"] = "urgent"
    del doc["spec"]["rules"][0]["references"]
    errors = _errors(validator, doc)
    assert any("'equalz' was unexpected" in e for e in errors), errors
    assert any(e.startswith("spec/defaults/severity: 'urgent' is not one of") for e in errors), errors
    assert any("'references' is a required property" in e for e in errors), errors
