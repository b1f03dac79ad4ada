"""Shared fixtures for the engine tests: the repository on ``sys.path``, and builders that turn a small
inline policy plus a few Kubernetes objects into results."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as `.venv/bin/pytest` from a checkout, without installing verdict
    sys.path.insert(0, str(ROOT))

REF = "https://kubernetes.io/docs/concepts/"


def make_rule(assertion: dict[str, Any] | None = None, **fields: Any) -> dict[str, Any]:
    """A rule mapping with the required fields filled in; ``fields`` override or add (``assert_`` for
    ``assert``, ``exclude_`` for ``exclude``)."""
    out: dict[str, Any] = {
        "id": "r",
        "title": "the rule holds",
        "match": {"kinds": ["Node"]},
        "assert": assertion if assertion is not None else {"path": "$.kind", "exists": True},
        "message": "{kind} {name} fails: observed {observed}, expected {expected}",
        "references": [REF],
    }
    for key, value in fields.items():
        out[key.rstrip("_")] = value
    return out


def make_policy(rules: list[dict[str, Any]], name: str = "test-policy", **spec: Any) -> dict[str, Any]:
    """A policy document around ``rules``; ``spec`` adds data/context/vars/defaults/dataFiles."""
    return {"apiVersion": "verdict/v1", "kind": "Policy", "metadata": {"name": name, "version": "1.2.3"},
            "spec": {**spec, "rules": rules}}


def node(name: str, labels: dict[str, str] | None = None, **status: Any) -> dict[str, Any]:
    """A Node with ``labels`` and ``status`` fields (``allocatable={...}``, ``capacity={...}``)."""
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": dict(labels or {})},
            "status": status}


@pytest.fixture
def load_policy() -> Callable[..., Any]:
    """``load_policy(doc_or_text) -> PolicySet`` of one inline policy."""
    from rules.loader import PolicySet, load_policy_text

    def load(doc: dict[str, Any] | str) -> PolicySet:
        text = doc if isinstance(doc, str) else yaml.safe_dump(doc, sort_keys=False)
        return PolicySet(load_policy_text(text, "inline.yaml"))

    return load


@pytest.fixture
def judge(load_policy: Callable[..., Any]) -> Callable[..., Any]:
    """``judge(objects, assertion=None, rules=None, **spec) -> {(object name, rule id): Result}``.

    With ``assertion`` the policy has one rule ``r`` matching every kind; with ``rules`` those rules.
    """
    from rules.errors import Source
    from rules.evaluate import evaluate
    from rules.reader import Dump, KObject

    def run(objects: list[dict[str, Any]], assertion: dict[str, Any] | None = None,
            rules: list[dict[str, Any]] | None = None, **spec: Any) -> dict[tuple[str, str], Any]:
        if rules is None:
            rules = [make_rule(assertion, match={"kinds": ["*"]})]
        policies = load_policy(make_policy(rules, **spec))
        dump = Dump(objects=[KObject(o, Source("inline.yaml", i + 1, 1)) for i, o in enumerate(objects)])
        report = evaluate(dump, policies)
        return {(o.ref.name, r.rule): r for o in report.objects for r in o.results}

    return run
