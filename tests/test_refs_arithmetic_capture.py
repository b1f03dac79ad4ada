"""General engine additions for the MIG and GPU-sharing rules: ``sum``/``product`` references over
Kubernetes quantities, ``capture`` (the group of a regular expression's match) on subjects and
references, and a context ``where`` with ``notEquals`` (the objects whose field does not select a value)."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest
from conftest import make_policy, make_rule, node

from rules.errors import PolicyError
from rules.quantity import parse_quantity

Judge = Callable[..., dict[tuple[str, str], Any]]

SHARED = node(
    "ts-1",
    {"nvidia.com/gpu.count": "2", "nvidia.com/gpu.replicas": "4", "nvidia.com/mig.config": "all-1g.10gb"},
    capacity={"nvidia.com/gpu": "8"},
)
LABELS = "$.metadata.labels"


def one(judge: Judge, assertion: dict[str, Any], obj: dict[str, Any], **spec: Any) -> Any:
    return judge([obj], assertion, **spec)[(obj["metadata"]["name"], "r")]


# ------------------------------------------------------------------------------------------ sum, product

COUNT = {"path": LABELS, "key": "nvidia.com/gpu.count"}
REPLICAS = {"path": LABELS, "key": "nvidia.com/gpu.replicas"}
ADVERTISED = "$.status.capacity['nvidia.com/gpu']"


def test_product_of_two_labels_compares_as_a_quantity(judge: Judge) -> None:
    total = {"product": [COUNT, REPLICAS]}
    assert one(judge, {"path": ADVERTISED, "gte": total, "lte": total}, SHARED).result == "pass"
    fewer = {**SHARED, "status": {"capacity": {"nvidia.com/gpu": "2"}}}
    r = one(judge, {"path": ADVERTISED, "gte": total}, fewer)
    assert (r.result, r.observed, r.expected) == ("fail", "2", ">= 8")


def test_sum_adds_quantities_of_any_unit(judge: Judge) -> None:
    assertion = {"value": "1536Mi", "lte": {"sum": ["1Gi", "512Mi"]}, "gte": {"sum": ["1Gi", "512Mi"]}}
    assert one(judge, assertion, SHARED).result == "pass"
    r = one(judge, {"value": "2Gi", "lte": {"sum": ["1Gi", "512Mi"]}}, SHARED)
    assert (r.result, r.expected) == ("fail", "<= 1610612736")


def test_arithmetic_with_a_missing_operand_is_missing(judge: Judge) -> None:
    unlabelled = node("plain", {}, capacity={"nvidia.com/gpu": "8"})
    assertion = {"var": "total", "gte": 1}
    vars_ = {"total": {"product": [COUNT, REPLICAS]}}
    r = one(judge, assertion, unlabelled, vars=vars_)
    assert (r.result, r.expected) == ("fail", ">= 1 (nothing selected)")
    with_default = {"total": {"product": [COUNT, REPLICAS], "default": 0}}
    r = one(judge, {"var": "total", "equals": 0}, unlabelled, vars=with_default)
    assert r.result == "pass"


def test_arithmetic_on_a_non_quantity_is_an_error(judge: Judge) -> None:
    bad = node("bad", {"nvidia.com/gpu.count": "two", "nvidia.com/gpu.replicas": "4"})
    r = one(judge, {"var": "total", "gte": 1}, bad, vars={"total": {"product": [COUNT, REPLICAS]}})
    assert r.result == "error"
    assert "product: 'two' is not a Kubernetes quantity" in r.message


def test_product_prints_like_a_quantity_in_messages(judge: Judge) -> None:
    rule = make_rule(
        {"path": ADVERTISED, "gte": {"var": "total"}},
        match={"kinds": ["Node"]},
        vars={"total": {"product": [COUNT, REPLICAS, "1500m"]}},
        message="{name} advertises {observed}, expected {total}",
    )
    fewer = {**SHARED, "status": {"capacity": {"nvidia.com/gpu": "2"}}}
    r = judge([fewer], rules=[rule])[("ts-1", "r")]
    assert r.message == "ts-1 advertises 2, expected 12"


@pytest.mark.parametrize("raw", [{"product": ["4"]}, {"sum": "1"}, {"product": []}, {"sum": [3]}])
def test_arithmetic_needs_a_list_of_two_or_more(load_policy: Callable[..., Any], raw: dict[str, Any]) -> None:
    with pytest.raises(PolicyError, match="takes a list of at least two quantities or references, or one reference whose"):
        load_policy(make_policy([make_rule({"value": 1, "gte": raw})]))


def test_sum_of_one_reference_adds_the_quantities_of_its_list(judge: Judge) -> None:
    """Trial 94: a namespace's GPU pods summed against its ResourceQuota could not be said (sum took two operands or
    more, and a list operand was an error). One reference whose value is a list adds its quantities (an empty one
    is 0: nothing asked), and a list among several operands stands for each of its quantities."""
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "ml"},
        "spec": {"containers": [{"resources": {"limits": {"nvidia.com/gpu": g}}} for g in ("2", "1", "3")]},
    }
    limits = {"path": "$.spec.containers[*].resources.limits['nvidia.com/gpu']", "all": True}
    match: dict[str, Any] = {}
    r = one(judge, {"sum": [limits], "lte": 4}, pod, **match)
    assert (r.result, r.observed, r.expected) == ("fail", "6", "<= 4")
    assert one(judge, {"sum": [limits, "2"], "equals": 8}, pod, **match).result == "pass"
    none = {**pod, "spec": {"containers": [{"name": "cpu"}]}}
    r = one(judge, {"sum": [limits], "equals": 0}, none, **match)
    assert (r.result, r.observed) == ("pass", "0")
    # among several operands too, an empty list stands for no quantity (review: it made the sum missing)
    r = one(judge, {"sum": [limits, "2"], "equals": 2}, none, **match)
    assert (r.result, r.observed) == ("pass", "2")
    missing = {"path": "$.spec.nothing"}
    assert one(judge, {"sum": [missing, "2"], "exists": False}, none, **match).result == "pass"


def test_parse_quantity_takes_an_already_parsed_number() -> None:
    assert parse_quantity(Fraction(3, 2)) == parse_quantity("1500m")


# ------------------------------------------------------------------------------------------ capture

MIG_CONFIG = "$.metadata.labels['nvidia.com/mig.config']"


def test_capture_on_a_subject_keeps_the_group(judge: Judge) -> None:
    r = one(judge, {"path": MIG_CONFIG, "capture": "^all-(.+)$", "equals": "1g.10gb"}, SHARED)
    assert (r.result, r.observed) == ("pass", "1g.10gb")


def test_capture_drops_values_that_do_not_match(judge: Judge) -> None:
    custom = node("custom", {"nvidia.com/mig.config": "two-1g-one-2g"})
    assertion = {"path": MIG_CONFIG, "capture": "^all-(.+)$", "exists": False}
    assert one(judge, assertion, custom).result == "pass"
    assert one(judge, assertion, SHARED).result == "fail"


def test_capture_in_a_reference_and_a_format(judge: Judge) -> None:
    vars_ = {
        "profile": {"path": MIG_CONFIG, "capture": "^all-(.+)$"},
        "resource": {"format": "nvidia.com/mig-{profile}"},
    }
    r = one(judge, {"var": "resource", "equals": "nvidia.com/mig-1g.10gb"}, SHARED, vars=vars_)
    assert r.result == "pass"


def test_capture_on_keys_keeps_each_match(judge: Judge) -> None:
    mixed = node("mig", {}, allocatable={"nvidia.com/mig-1g.10gb": "2", "nvidia.com/mig-3g.40gb": "1", "cpu": "8"})
    assertion = {"keys": "$.status.allocatable", "capture": "^nvidia\\.com/mig-(.+)$", "setEquals": ["1g.10gb", "3g.40gb"]}
    assert one(judge, assertion, mixed).result == "pass"


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [("^all-.+$", "needs exactly one group (it has 0)"), ("^(a)-(b)$", "needs exactly one group (it has 2)"), ("(", "bad")],
)
def test_capture_is_checked_at_load(load_policy: Callable[..., Any], pattern: str, reason: str) -> None:
    with pytest.raises(PolicyError, match=reason.replace("(", r"\(").replace(")", r"\)")):
        load_policy(make_policy([make_rule({"path": MIG_CONFIG, "capture": pattern, "exists": True})]))


# ------------------------------------------------------------------------------------------ where notEquals

MPS = node("mps-1", {"nvidia.com/gpu.sharing-strategy": "mps"}, allocatable={"nvidia.com/gpu": "8"})
TIME_SLICED = node("ts-2", {"nvidia.com/gpu.sharing-strategy": "time-slicing"}, allocatable={"nvidia.com/gpu": "8"})
PLAIN = node("plain-1", {}, allocatable={"nvidia.com/gpu.shared": "4"})
STRATEGY = "$.metadata.labels['nvidia.com/gpu.sharing-strategy']"


def test_where_not_equals_takes_the_other_objects_of_the_kind(judge: Judge) -> None:
    context = {
        "mpsNodes": {"kind": "Node", "path": "$.metadata.name", "where": {"field": STRATEGY, "equals": "mps"}},
        "otherNodes": {"kind": "Node", "path": "$.metadata.name", "where": {"field": STRATEGY, "notEquals": "mps"}},
    }
    rules = [
        make_rule({"context": "mpsNodes", "setEquals": ["mps-1"]}, id="mps"),
        make_rule({"context": "otherNodes", "setEquals": ["ts-2", "plain-1"]}, id="others"),
        make_rule({"context": "otherNodes", "count": 2}, id="dump-order", match={"kinds": ["Node"], "names": ["mps-1"]}),
    ]
    results = judge([MPS, TIME_SLICED, PLAIN], rules=rules, context=context)
    assert {k: r.result for k, r in results.items()} == {
        ("mps-1", "mps"): "pass",
        ("ts-2", "mps"): "pass",
        ("plain-1", "mps"): "pass",
        ("mps-1", "others"): "pass",
        ("ts-2", "others"): "pass",
        ("plain-1", "others"): "pass",
        ("mps-1", "dump-order"): "pass",
    }


def test_where_takes_equals_or_not_equals_only(load_policy: Callable[..., Any]) -> None:
    context = {"c": {"kind": "Node", "where": {"field": STRATEGY, "equals": "mps", "notEquals": "none"}}}
    with pytest.raises(PolicyError, match=r"where takes \{field"):
        load_policy(make_policy([make_rule({"context": "c", "exists": True})], context=context))


def test_literal_where_is_computed_once_per_dump(judge: Judge) -> None:
    """A where with a literal is the same for every object: the index is asked once per dump, not once per
    object judged (a correlated where would ask once per object)."""
    from rules import index as index_module

    calls: list[str] = []
    original = index_module.Index.lookup

    def counting(self: Any, kind: str, path: Any, value: Any, keys: bool = False, capture: Any = None) -> Any:
        calls.append(kind)
        return original(self, kind, path, value, keys, capture)

    context = {"mpsNodes": {"kind": "Node", "path": "$.metadata.name", "where": {"field": STRATEGY, "equals": "mps"}}}
    nodes = [node(f"n{i}", {"nvidia.com/gpu.sharing-strategy": "mps" if i % 2 else "none"}) for i in range(20)]
    index_module.Index.lookup = counting  # type: ignore[method-assign]
    try:
        results = judge(nodes, {"context": "mpsNodes", "count": 10}, context=context)
    finally:
        index_module.Index.lookup = original  # type: ignore[method-assign]
    assert {r.result for r in results.values()} == {"pass"}
    assert calls == ["Node"]


# ------------------------------------------------------------------------------------------ keys, where

GPU_NODE = node(
    "gpu-vm-1",
    {},
    allocatable={"cpu": "12", "nvidia.com/gpu": "1", "nvidia.com/mig-1g.5gb": "0", "nvidia.com/GA102GL_A10": "2"},
)
ADVERTISED_GPUS = {
    "keys": "$.status.allocatable",
    "where": {"all": [{"var": "allocatable", "key": {"var": "item"}, "gt": 0}, {"var": "item", "startsWith": "nvidia.com/"}]},
}


def test_a_keys_reference_with_where_keeps_the_names_that_pass(judge: Judge) -> None:
    rule = make_rule(
        {"var": "gpus", "count": 3},
        match={"kinds": ["Node"]},
        vars={"allocatable": "$.status.allocatable", "gpus": ADVERTISED_GPUS},
        message="{name} advertises {gpus}",
    )
    r = judge([GPU_NODE], rules=[rule])[("gpu-vm-1", "r")]
    assert (r.result, r.message, r.observed) == (
        "fail",
        "gpu-vm-1 advertises [nvidia.com/gpu, nvidia.com/GA102GL_A10]",
        [
            "nvidia.com/gpu",
            "nvidia.com/GA102GL_A10",
        ],
    )


def test_join_writes_a_list_as_one_string_for_a_command(judge: Judge) -> None:
    """``join``: a remediation names exactly what the object carries (kubectl's arguments, a shell loop's words),
    where a data table could only hold every candidate."""
    rule = make_rule(
        {"var": "gpus", "count": 3},
        match={"kinds": ["Node"]},
        vars={"allocatable": "$.status.allocatable", "gpus": ADVERTISED_GPUS, "words": {**ADVERTISED_GPUS, "join": " "}},
        message="for r in {words}; do echo $r; done",
    )
    r = judge([GPU_NODE], rules=[rule])[("gpu-vm-1", "r")]
    assert r.message == "for r in nvidia.com/gpu nvidia.com/GA102GL_A10; do echo $r; done"
    # nothing selected is the empty string (not <none> nor []); one value is written as it is
    vars_ = {
        "none": {"path": "$.metadata.labels['absent']", "join": ", "},
        "empty": {"keys": "$.status.allocatable", "where": {"var": "item", "equals": "x"}, "join": ", "},
        "one": {"path": "$.metadata.name", "join": ", "},
        "numbers": {"value": [1, True, None], "join": "+"},
    }
    shown = "[{none}|{empty}|{one}|{numbers}]"
    rule = make_rule({"var": "one", "equals": "gpu-vm-1"}, match={"kinds": ["Node"]}, vars=vars_, passMessage=shown)
    assert judge([GPU_NODE], rules=[rule])[("gpu-vm-1", "r")].message == "[||gpu-vm-1|1+true+<none>]"


def test_join_writes_each_item_once(judge: Judge) -> None:
    """Trial 46: a message naming every permit without externalResourceProvider wrote a resource name twice when two
    PCI entries share it (two device ids of one product). ``join`` writes each distinct item once, in order."""
    vars_ = {"names": {"value": ["nvidia.com/GA100", "nvidia.com/A10", "nvidia.com/GA100"], "join": ", "}}
    rule = make_rule({"var": "names", "exists": True}, match={"kinds": ["Node"]}, vars=vars_, passMessage="{names}")
    assert judge([GPU_NODE], rules=[rule])[("gpu-vm-1", "r")].message == "nvidia.com/GA100, nvidia.com/A10"


def test_parse_yaml_reads_a_string_as_the_document_it_holds(judge: Judge) -> None:
    """Trial 46: a ClusterPolicy's own vGPU devices ConfigMap holds its configs as YAML text in data['config.yaml'];
    ``parse: yaml`` reads it before ``key`` looks into it. Text that does not parse is missing; a list's strings are
    each read."""
    text = "version: v1\nvgpu-configs:\n  A10-4Q:\n  - devices: all\n    vgpu-devices: {A10-8Q: 3}\n"
    config_map = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"config.yaml": text}}
    broken = {**config_map, "metadata": {"name": "broken"}, "data": {"config.yaml": "a: [\n"}}
    vars_ = {
        "types": {"path": "$.data['config.yaml']", "parse": "yaml", "key": ["vgpu-configs", "A10-4Q"]},
        "each": {"path": "$.data.*", "all": True, "parse": "yaml"},
    }
    rule = make_rule({"var": "types", "exists": True}, match={"kinds": ["ConfigMap"]}, vars=vars_, passMessage="{types} {each}")
    results = judge([config_map, broken], rules=[rule])
    assert results[("cm", "r")].message == (
        "[{devices: all, vgpu-devices: {A10-8Q: 3}}] [{version: v1, vgpu-configs: {A10-4Q: [{devices: all, vgpu-devices:"
        " {A10-8Q: 3}}]}}]"
    )
    assert (results[("broken", "r")].result, results[("broken", "r")].observed) == ("fail", [])


def test_parse_takes_yaml(load_policy: Callable[..., Any]) -> None:
    with pytest.raises(PolicyError, match="parse takes yaml"):
        load_policy(make_policy([make_rule({"var": "x", "exists": True})], vars={"x": {"path": "$.a", "parse": "toml"}}))


def test_join_takes_a_string(load_policy: Callable[..., Any]) -> None:
    with pytest.raises(PolicyError, match="join takes the separator"):
        load_policy(make_policy([make_rule({"var": "x", "exists": True})], vars={"x": {"path": "$.a", "join": 1}}))


def test_a_reference_transform_changes_each_value_before_its_where(judge: Judge) -> None:
    """Trial 156 #6: the fix of a vGPU config named in other letters' case said <config> where the config meant (the
    table's name equal but for case) was known: a var could not take a data table's member names, nor change case."""
    configs = {"A10-12Q": ["nvidia.com/NVIDIA_A10-12Q"], "A10-24Q": ["nvidia.com/NVIDIA_A10-24Q"], "default": []}
    vars_ = {
        "config": "$.metadata.labels['nvidia.com/vgpu.config']",
        "meant": {"data": "configs", "transform": ["keys"], "where": {"var": "item", "equalsIgnoreCase": {"var": "config"}}},
        "upper": {"var": "config", "transform": ["uppercase"]},
        "names": {"path": "$.metadata.labels.*", "all": True, "transform": ["trim", "lowercase"], "join": ","},
    }
    rule = make_rule(
        {"var": "meant", "exists": True}, match={"kinds": ["Node"]}, vars=vars_, passMessage="{meant} {upper} {names}"
    )
    cased = node("a10", {"nvidia.com/vgpu.config": "a10-12q", "team": " ML "})
    bogus = node("b", {"nvidia.com/vgpu.config": "bogus-9q"})
    results = judge([cased, bogus], rules=[rule], data={"configs": configs})
    assert results[("a10", "r")].message == "[A10-12Q] A10-12Q a10-12q,ml"
    assert (results[("b", "r")].result, results[("b", "r")].observed) == ("fail", [])


def test_a_key_with_a_transform_is_not_remembered_as_its_literal(judge: Judge) -> None:
    """Trial 166: key {value: GPU, transform: [lowercase]} was taken for the literal name GPU when results were remembered
    by what an object reads: the four pods passed, or failed, as the first one did."""
    vars_ = {"labels": "$.metadata.labels"}
    pods = [
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": n, "labels": {"gpu": v}}} for n, v in (("b", "no"), ("a", "yes"))
    ]
    results = judge(pods, {"var": "labels", "key": {"value": "GPU", "transform": ["lowercase"]}, "equals": "yes"}, vars=vars_)
    assert (results[("b", "r")].result, results[("a", "r")].result) == ("fail", "pass")
    # trial 167: the same with parse: the key {value: "'gpu'", parse: yaml} is gpu, not the text 'gpu'
    results = judge(pods, {"var": "labels", "key": {"value": "'gpu'", "parse": "yaml"}, "equals": "yes"}, vars=vars_)
    assert (results[("b", "r")].result, results[("a", "r")].result) == ("fail", "pass")


def test_a_reference_transform_is_one_the_subject_takes(load_policy: Callable[..., Any]) -> None:
    with pytest.raises(PolicyError) as info:
        load_policy(make_policy([make_rule({"var": "x", "exists": True})], vars={"x": {"path": "$.a", "transform": ["upper"]}}))
    assert (info.value.path, info.value.reason) == (
        "spec.vars.x.transform",
        "transform takes a list of lowercase, uppercase, trim, string, keys (did you mean 'uppercase'?)",
    )


def test_where_on_a_single_value_keeps_it_or_drops_it(judge: Judge) -> None:
    vars_ = {"product": {"path": "$.metadata.labels['nvidia.com/gpu.product']", "where": {"var": "item", "endsWith": "-SHARED"}}}
    shared = node("ts", {"nvidia.com/gpu.product": "Tesla-T4-SHARED"})
    plain = node("plain", {"nvidia.com/gpu.product": "Tesla-T4"})
    results = judge([shared, plain], {"var": "product", "exists": True}, vars=vars_)
    assert (results[("ts", "r")].result, results[("plain", "r")].result) == ("pass", "fail")


def test_a_reference_where_is_validated_at_load(load_policy: Callable[..., Any]) -> None:
    bad = {"keys": "$.status.allocatable", "where": {"var": "item", "startsWith": "x", "bogus": 1}}
    with pytest.raises(PolicyError) as info:
        load_policy(make_policy([make_rule({"var": "gpus", "exists": True})], vars={"gpus": bad}))
    assert (info.value.path, info.value.reason) == ("spec.vars.gpus.where.bogus", "unknown field 'bogus'")
    # trial 71: a misspelt operator in a condition is told its spelling, as in an assertion
    typo = {"firstOf": [{"value": 1, "when": {"var": "kind", "similarTO": "Node"}}]}
    with pytest.raises(PolicyError) as info:
        load_policy(make_policy([make_rule({"var": "gpus", "exists": True})], vars={"gpus": typo}))
    assert info.value.reason == "unknown field 'similarTO'; did you mean 'similarTo'?"
    assert info.value.path == "spec.vars.gpus.firstOf[0].when.similarTO"


def test_where_keys_joins_on_member_names(judge: Judge) -> None:
    """Pods that ask for the resource a forEach binds, answered from an index on the member names of their
    resource limits (one dictionary per dump, whatever the number of nodes and pods)."""
    pending = [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": f"p{i}", "namespace": "ml"},
            "spec": {"containers": [{"name": "c", "resources": {"limits": {resource: "1"}}}]},
            "status": {"phase": "Pending"},
        }
        for i, resource in enumerate(["nvidia.com/mig-1g.6gb", "nvidia.com/gpu", "nvidia.com/mig-1g.6gb"])
    ]
    empty = node("gpu-node-1", {}, capacity={"nvidia.com/mig-1g.6gb": "0", "nvidia.com/gpu": "0", "cpu": "8"})
    context = {
        "askers": {
            "kind": "Pod",
            "path": "$.metadata.name",
            "where": {"keys": "$.spec.containers[*].resources.limits", "equals": {"var": "resource"}},
        }
    }
    rule = make_rule(
        {
            "forEach": {
                "keys": "$.status.capacity",
                "as": "resource",
                "assert": {"any": [{"context": "askers", "exists": False}, {"var": "resource", "equals": "nvidia.com/gpu"}]},
            }
        },
        match={"kinds": ["Node"]},
        message="{name} lists {resource} with 0 devices; pods {askers} ask for it",
    )
    r = judge([empty, *pending], rules=[rule], context=context)[("gpu-node-1", "r")]
    assert (r.result, r.message) == ("fail", "gpu-node-1 lists nvidia.com/mig-1g.6gb with 0 devices; pods [p0, p2] ask for it")


def test_sum_as_a_subject_inside_for_each(judge: Judge) -> None:
    """GFD's <resource>.count x <resource>.replicas against what the device plugin advertises under the name or
    its .shared rename: per resource, so a forEach binding is read inside the arithmetic."""
    labels = {"nvidia.com/gpu.count": "2", "nvidia.com/gpu.replicas": "4"}
    renamed = node("renamed", labels, capacity={"nvidia.com/gpu.shared": "8"})
    short = node("short", labels, capacity={"nvidia.com/gpu": "2"})
    per_resource = {
        "forEach": {
            "keys": LABELS,
            "capture": "^(nvidia\\.com/.+)\\.replicas$",
            "as": "resource",
            "assert": {
                "sum": [
                    {"var": "capacity", "key": {"var": "resource"}, "default": 0},
                    {"var": "capacity", "key": {"format": "{resource}.shared"}, "default": 0},
                ],
                "gte": {
                    "product": [
                        {"var": "labels", "key": {"format": "{resource}.count"}},
                        {"var": "labels", "key": {"format": "{resource}.replicas"}},
                    ]
                },
            },
        }
    }
    vars_ = {"labels": LABELS, "capacity": "$.status.capacity"}
    results = judge([renamed, short], per_resource, vars=vars_)
    assert results[("renamed", "r")].result == "pass"
    r = results[("short", "r")]
    assert (r.result, r.observed, r.expected) == ("fail", "2", ">= 8")


def test_a_namespaces_gpu_requests_summed_against_its_resource_quota(judge: Judge) -> None:
    """Trial 94's house rule: the GPUs a namespace's pods ask for, at most its ResourceQuota's requests.nvidia.com/gpu."""
    gpu = "nvidia.com/gpu"

    def pod(name: str, ns: str, gpus: str) -> dict[str, Any]:
        spec = {"containers": [{"resources": {"requests": {gpu: gpus}}}]}
        return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns}, "spec": spec}

    def quota(ns: str, hard: str) -> dict[str, Any]:
        meta = {"name": f"gpu-{ns}", "namespace": ns}
        return {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": meta, "spec": {"hard": {f"requests.{gpu}": hard}}}

    rule = make_rule(
        {"sum": [{"context": "asked"}], "lte": {"path": "$.spec.hard['requests.nvidia.com/gpu']"}},
        match={"kinds": ["ResourceQuota"]},
        message="{namespace} asks for {observed} GPUs",
    )
    asked = {"kind": "Pod", "sameNamespace": True, "path": f"$.spec.containers[*].resources.requests['{gpu}']"}
    objects = [pod("a", "ml", "2"), pod("b", "ml", "3"), pod("c", "web", "1")]
    objects += [quota("ml", "4"), quota("web", "4"), quota("idle", "0")]
    results = judge(objects, rules=[rule], context={"asked": asked})
    said = {n: (r.result, r.message) for (n, _), r in results.items()}
    holds = ("pass", "the rule holds")
    assert said == {"gpu-ml": ("fail", "ml asks for 5 GPUs"), "gpu-web": holds, "gpu-idle": holds}
