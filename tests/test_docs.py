"""docs/policy-format.md cannot rot: its policies load, its rule fragments and operator examples compile
in the running example, its rules' examples evaluate without error, and it names every operator and field."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml
from conftest import POLICY_DOC, ROOT, doc_operator_examples, doc_policies, doc_yaml_blocks

from rules.errors import Source
from rules.evaluate import evaluate
from rules.loader import PolicySet, load_policy_text
from rules.operators import OPERATORS
from rules.reader import Dump, KObject
from rules.schema import json_schema

DOC = POLICY_DOC.read_text(encoding="utf-8")
POLICIES = doc_policies()


def load(doc: dict[str, Any], label: str) -> PolicySet:
    return PolicySet(load_policy_text(yaml.safe_dump(doc, sort_keys=False), label))


def test_the_doc_has_full_policies_and_fragments() -> None:
    blocks = doc_yaml_blocks()
    assert sum(text.startswith("apiVersion: verdict/v1") for _, text in blocks) >= 2
    assert sum(text.startswith("- id:") for _, text in blocks) >= 10


@pytest.mark.parametrize(("label", "doc"), POLICIES, ids=[label for label, _ in POLICIES])
def test_doc_policy_loads(label: str, doc: dict[str, Any]) -> None:
    policies = load(doc, label)
    assert policies.policies[0].rules


def test_full_policy_blocks_load_as_written() -> None:
    # As text, not re-dumped: the YAML on the page is what a reader copies.
    for line, text in doc_yaml_blocks():
        if text.startswith("apiVersion: verdict/v1"):
            [policy] = load_policy_text(text, f"policy-format.md:{line}")
            assert policy.rules


def test_operator_table_covers_every_operator_and_each_example_compiles() -> None:
    examples = doc_operator_examples()
    assert set(examples) == set(OPERATORS)
    running = copy.deepcopy(POLICIES[0][1])
    running["spec"]["rules"] = [
        {
            "id": f"example-{name.lower()}",
            "title": f"{name} example",
            "match": {"kinds": ["*"]},
            "assert": example,
            "message": "{kind} {name}: {observed} is not {expected}",
            "references": ["https://www.rfc-editor.org/rfc/rfc9535"],
        }
        for name, example in examples.items()
    ]
    compiled = load(running, "operator table").rules
    for rule, name in zip(compiled, examples, strict=True):
        ops = {rule.assertion.op} | {c.op for c in rule.assertion.children}
        assert name in ops, (name, rule.id)


def test_every_operator_is_named_in_the_doc() -> None:
    missing = [name for name in OPERATORS if f"`{name}`" not in DOC]
    assert missing == []


def test_every_schema_field_is_named_in_the_doc() -> None:
    fields = {prop for definition in json_schema()["$defs"].values() for prop in definition.get("properties", {})}
    missing = sorted(f for f in fields if f"`{f}" not in DOC)
    assert missing == []


def _examples(doc: dict[str, Any]) -> list[tuple[str, list[dict[str, Any]]]]:
    out = []
    for rule in doc["spec"]["rules"]:
        example = rule.get("example")
        if example is not None:
            out.append((rule["id"], example if isinstance(example, list) else [example]))
    return out


WITH_EXAMPLES = [(label, doc) for label, doc in POLICIES if _examples(doc)]


@pytest.mark.parametrize(("label", "doc"), WITH_EXAMPLES, ids=[label for label, _ in WITH_EXAMPLES])
def test_rule_examples_evaluate_without_error(label: str, doc: dict[str, Any]) -> None:
    policies = load(doc, label)
    for rule_id, objects in _examples(doc):
        dump = Dump(objects=[KObject(o, Source(label, 1, 0, i)) for i, o in enumerate(objects)])
        report = evaluate(dump, policies.select(rules=[rule_id]))
        results = [r for o in report.objects for r in o.results]
        assert results, f"{rule_id}: its example matches no object"
        assert [r.message for r in results if r.result == "error"] == []


def test_running_example_says_what_the_doc_says() -> None:
    label, doc = POLICIES[0]
    policies = load(doc, label)
    [(rule_id, objects)] = _examples(doc)
    dump = Dump(objects=[KObject(o, Source(label)) for o in objects])
    [node] = [o for o in evaluate(dump, policies).objects if o.ref.kind == "Node"]
    [result] = node.results
    assert (result.result, result.rule) == ("fail", "workload-config-valid")
    assert result.message == (
        "workload label 'VM-Passthrough' is not a GPU Operator workload (one of [container,"
        " vm-passthrough, vm-vgpu]); the operator prepares node gpu-node-3 as 'container'"
    )
    assert result.remediation == "kubectl label node gpu-node-3 --overwrite nvidia.com/gpu.workload.config=container"
    prose = " ".join(DOC.split())
    assert f"`{result.message}`" in prose
    assert f"`{result.remediation}`" in prose


def test_the_report_format_examples_say_what_the_lab_gives() -> None:
    """Trial 125: docs/report-formats.md's Markdown example said 122 pass and 13 fail, its table example 88 and 13, where
    the lab gives 142 and 12: an integrator writing assertions from them got wrong numbers. Each example's summary line
    is the golden output's (tests/data/golden, which the suite holds against the lab)."""
    doc = (ROOT / "docs" / "report-formats.md").read_text(encoding="utf-8")
    golden = ROOT / "tests" / "data" / "golden"
    markdown = (golden / "lab.md").read_text(encoding="utf-8").splitlines()
    table = (golden / "lab.table.txt").read_text(encoding="utf-8").splitlines()
    assert markdown[0] in doc.splitlines(), markdown[0]
    assert table[0] in doc.splitlines(), table[0]
    assert [x for x in markdown if x.startswith("_… ") and "more findings" in x][0] in doc.splitlines()


def _fragment(rule_id: str) -> PolicySet:
    [(label, doc)] = [(label, doc) for label, doc in POLICIES if any(r["id"] == rule_id for r in doc["spec"]["rules"])]
    return load(doc, label)


def _pod(name: str, **spec: Any) -> dict[str, Any]:
    owner = [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": name.rsplit("-", 1)[0], "uid": "u", "controller": True}]
    meta = {"name": name, "namespace": "gpu-operator", "ownerReferences": owner}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec or {"containers": [{"name": "c"}]}}


def _judged(policies: PolicySet, objects: list[dict[str, Any]]) -> dict[str, tuple[str, str]]:
    dump = Dump(objects=[KObject(o, Source("doc", 1, 0, i)) for i, o in enumerate(objects)])
    return {o.ref.name: (r.result, r.message) for o in evaluate(dump, policies).objects for r in o.results}


def test_the_fragments_copied_into_the_running_example_give_true_verdicts() -> None:
    """Trial 165 (a policy author copying the doc): operand-daemonset-known selected $.*[*].daemonset of a table with no
    such member, and failed nvidia-device-plugin-daemonset's pod; gpu-limit-equals-request compared requests 1 with
    limits "1" with equals, and failed them."""
    judged = _judged(
        _fragment("operand-daemonset-known"),
        [_pod("nvidia-device-plugin-daemonset-abcde"), _pod("nvidia-vfio-manager-x2k4p"), _pod("nvidia-bogus-daemonset-q")],
    )
    assert judged["nvidia-device-plugin-daemonset-abcde"][0] == "pass"
    assert judged["nvidia-vfio-manager-x2k4p"][0] == "pass"
    assert judged["nvidia-bogus-daemonset-q"] == (
        "fail",
        "pod nvidia-bogus-daemonset-q belongs to DaemonSet nvidia-bogus-daemonset, which is no operand of the GPU Operator",
    )
    limits = {"requests": {"nvidia.com/gpu": 1}, "limits": {"nvidia.com/gpu": "1"}}
    over = {"requests": {"nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": "2"}}
    judged = _judged(
        _fragment("gpu-limit-equals-request"),
        [
            _pod("same-1", containers=[{"name": "c", "resources": limits}]),
            _pod("over-1", containers=[{"name": "c", "resources": over}]),
        ],
    )
    assert judged["same-1"][0] == "pass"
    assert judged["over-1"][0] == "fail" and judged["over-1"][1].startswith("container c requests 1 nvidia.com/gpu; expected")
