"""Property tests (hypothesis, bounded for CI): the reader never crashes on any bytes, and a cluster's verdicts do
not depend on the order of its objects or the shape of its dump (issue 12, "Also")."""

from __future__ import annotations

import json
import random

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules.engine import audit_bytes
from rules.errors import DumpError
from rules.loader import load_policies
from rules.reader import parse_bytes

POLICIES = load_policies()
BOUNDED = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@BOUNDED
@given(st.binary(max_size=2048))
def test_any_bytes_are_read_or_refused_with_a_dump_error(data: bytes) -> None:
    try:
        dump = parse_bytes(data, "random.bin")
    except DumpError as exc:
        assert exc.reason
        return
    for err in dump.errors:
        assert err.reason and err.source.file.startswith("random.bin")


YAMLISH = st.lists(st.sampled_from(list("abc:-[]{}&*!|>'\"#,\n ") + ["---\n", "kind: Node\n", "  "]), max_size=200).map("".join)


@BOUNDED
@given(YAMLISH)
def test_any_yaml_like_text_is_read_with_placed_errors(text: str) -> None:
    try:
        dump = parse_bytes(text.encode(), "random.yaml")
    except DumpError:
        return
    for err in dump.errors:
        assert err.source.document >= 1 and err.reason


WORKLOADS = st.sampled_from([None, "container", "vm-passthrough", "vm-vgpu", "VM-Passthrough", ""])
RESOURCES = st.sampled_from(["nvidia.com/gpu", "nvidia.com/GA102GL_A10", "nvidia.com/NVIDIA_A10-12Q", "nvidia.com/2335"])


@st.composite
def nodes(draw: st.DrawFn) -> list[dict]:
    out = []
    for i in range(draw(st.integers(1, 6))):
        labels = {"kubernetes.io/hostname": f"n{i}"}
        workload = draw(WORKLOADS)
        if workload is not None:
            labels["nvidia.com/gpu.workload.config"] = workload
        if draw(st.booleans()):
            labels["nvidia.com/gpu.deploy.device-plugin"] = "true"
        res = {r: str(draw(st.integers(0, 4))) for r in draw(st.sets(RESOURCES, max_size=2))}
        cap = {r: str(int(v) + draw(st.integers(0, 1))) for r, v in res.items()}
        out.append(
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": f"n{i}", "labels": labels},
                "status": {"capacity": cap, "allocatable": res},
            }
        )
    if draw(st.booleans()):
        out.append(
            {
                "apiVersion": "nvidia.com/v1",
                "kind": "ClusterPolicy",
                "metadata": {"name": "cp"},
                "spec": {"sandboxWorkloads": {"enabled": draw(st.booleans())}},
            }
        )
    return out


def verdicts(data: bytes, name: str) -> dict[str, dict[str, str]]:
    report = audit_bytes(data, name, POLICIES)
    assert report.input_errors == []
    return {o.ref.name: {f"{r.policy}/{r.rule}": r.result for r in o.results} for o in report.objects}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(nodes(), st.randoms(use_true_random=False))
def test_verdicts_do_not_depend_on_order_or_shape(objects: list[dict], rnd: random.Random) -> None:
    as_list = json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}).encode()
    shuffled = list(objects)
    rnd.shuffle(shuffled)
    multi = "".join("---\n" + yaml.safe_dump(o) for o in shuffled).encode()
    array = json.dumps(list(reversed(objects))).encode()
    reference = verdicts(as_list, "list.json")
    assert verdicts(multi, "multi.yaml") == reference
    assert verdicts(array, "array.json") == reference
