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
    return {
        "apiVersion": "verdict/v1",
        "kind": "Policy",
        "metadata": {"name": name, "version": "1.2.3"},
        "spec": {**spec, "rules": rules},
    }


def cluster_policy(spec: dict[str, Any], name: str = "cluster-policy", namespace: str = "") -> dict[str, Any]:
    """A GPU Operator ClusterPolicy with ``spec`` (and ``status.namespace`` when given)."""
    policy: dict[str, Any] = {"apiVersion": "nvidia.com/v1", "kind": "ClusterPolicy", "metadata": {"name": name}, "spec": spec}
    if namespace:
        policy["status"] = {"namespace": namespace}
    return policy


def kubevirt_cr(permits: dict[str, Any], gates: list[str] | None = None) -> dict[str, Any]:
    """A KubeVirt CR kubevirt/kubevirt with ``permits`` as its permittedHostDevices (and ``gates`` as its feature
    gates)."""
    configuration: dict[str, Any] = {"permittedHostDevices": permits}
    if gates is not None:
        configuration["developerConfiguration"] = {"featureGates": gates}
    return {
        "apiVersion": "kubevirt.io/v1",
        "kind": "KubeVirt",
        "metadata": {"name": "kubevirt", "namespace": "kubevirt"},
        "spec": {"configuration": configuration},
    }


def operand_pod(name: str, daemonset: str, node_name: str, namespace: str = "gpu-operator") -> dict[str, Any]:
    """A Running pod of the GPU Operator operand DaemonSet ``daemonset`` (its app label and owner reference)."""
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": {"app": daemonset},
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": daemonset, "uid": "d1"}],
        },
        "spec": {"nodeName": node_name, "containers": [{"name": "operand", "image": daemonset}]},
        "status": {"phase": "Running"},
    }


def node(name: str, labels: dict[str, str] | None = None, **status: Any) -> dict[str, Any]:
    """A Node with ``labels`` and ``status`` fields (``allocatable={...}``, ``capacity={...}``)."""
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": dict(labels or {})}, "status": status}


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

    def run(
        objects: list[dict[str, Any]],
        assertion: dict[str, Any] | None = None,
        rules: list[dict[str, Any]] | None = None,
        **spec: Any,
    ) -> dict[tuple[str, str], Any]:
        if rules is None:
            rules = [make_rule(assertion, match={"kinds": ["*"]})]
        policies = load_policy(make_policy(rules, **spec))
        dump = Dump(objects=[KObject(o, Source("inline.yaml", i + 1, 1)) for i, o in enumerate(objects)])
        report = evaluate(dump, policies)
        return {(o.ref.name, r.rule): r for o in report.objects for r in o.results}

    return run


# ------------------------------------------------------------------------ docs/policy-format.md examples

POLICY_DOC = ROOT / "docs" / "policy-format.md"


def doc_yaml_blocks(path: Path = POLICY_DOC) -> list[tuple[int, str]]:
    """``(line, text)`` of every fenced ```yaml block of the policy format reference (line 1-based, of the
    block's first line of YAML)."""
    import re

    text = path.read_text(encoding="utf-8")
    return [(text.count("\n", 0, m.start(1)) + 1, m.group(1)) for m in re.finditer(r"^```yaml\n(.*?)^```", text, re.M | re.S)]


def doc_policies(path: Path = POLICY_DOC) -> list[tuple[str, dict[str, Any]]]:
    """Every policy the reference shows, as ``(label, document)``: the full policies (blocks starting with
    ``apiVersion: verdict/v1``), and each rule fragment (a block starting with ``- id:``) as the rules of
    the running example (the first full policy) in place of its own."""
    import copy

    blocks = doc_yaml_blocks(path)
    full = [(line, yaml.safe_load(text)) for line, text in blocks if text.startswith("apiVersion: verdict/v1")]
    out: list[tuple[str, dict[str, Any]]] = [(f"{path.name}:{line}", doc) for line, doc in full]
    running = full[0][1]
    for line, text in blocks:
        if text.startswith("- id:"):
            doc = copy.deepcopy(running)
            doc["metadata"]["name"] = f"doc-fragment-{line}"
            doc["spec"]["rules"] = yaml.safe_load(text)
            out.append((f"{path.name}:{line} (rule fragment)", doc))
    return out


def doc_operator_examples(path: Path = POLICY_DOC) -> dict[str, dict[str, Any]]:
    """Operator name -> the example assertion of its row in the reference's operator table."""
    import re

    text = path.read_text(encoding="utf-8")
    section = text.split("\n## Operators\n", 1)[1].split("\n## ", 1)[0]
    out: dict[str, dict[str, Any]] = {}
    for row in section.splitlines():
        if not row.startswith("| `"):
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", row)[1:-1]]
        name, example = cells[0].strip("`"), cells[4]
        assert example.startswith("`{") and example.endswith("}`"), row
        out[name] = yaml.safe_load(example[1:-1].replace("\\|", "|"))
    return out
