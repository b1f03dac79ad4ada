"""RFC 9535 JSONPath as policies write it, and kubectl's dialect refused with the RFC form as a hint."""

from __future__ import annotations

from typing import Any

import pytest

from rules.jsonpath import PathError, compile_path, kubectl_to_rfc9535

GPU_NODE: dict[str, Any] = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {
        "name": "gpu-node-1",
        "labels": {
            "nvidia.com/gpu.present": "true",
            "nvidia.com/gpu.workload.config": "vm-passthrough",
            "kubernetes.io/hostname": "gpu-node-1",
        },
    },
    "status": {
        "capacity": {"cpu": "64", "nvidia.com/gpu": "8"},
        "allocatable": {"cpu": "63500m", "nvidia.com/gpu": "8", "nvidia.com/GA100_A100_PCIE_40GB": "0"},
        "conditions": [
            {"type": "MemoryPressure", "status": "False"},
            {"type": "Ready", "status": "True", "reason": "KubeletReady"},
        ],
    },
}


def test_bracket_quoted_label_key_with_dots_and_slash() -> None:
    path = compile_path("$.metadata.labels['nvidia.com/gpu.workload.config']")
    assert path.values(GPU_NODE) == ["vm-passthrough"]
    assert path.first(GPU_NODE) == "vm-passthrough"
    assert str(path) == "$.metadata.labels['nvidia.com/gpu.workload.config']"


def test_double_quoted_key_works_too() -> None:
    assert compile_path('$.status.allocatable["nvidia.com/gpu"]').values(GPU_NODE) == ["8"]


def test_dotted_name_without_brackets_selects_nothing() -> None:
    # `.nvidia.com/gpu` is not a valid shorthand: it is refused, never silently empty.
    with pytest.raises(PathError):
        compile_path("$.metadata.labels.nvidia.com/gpu.present")


def test_filter_selects_the_ready_condition() -> None:
    path = compile_path("$.status.conditions[?@.type == 'Ready'].status")
    assert path.values(GPU_NODE) == ["True"]
    assert path.located(GPU_NODE) == [("True", "$['status']['conditions'][1]['status']")]


def test_wildcard_and_descendant() -> None:
    assert compile_path("$.status.conditions[*].type").values(GPU_NODE) == ["MemoryPressure", "Ready"]
    assert compile_path("$..reason").values(GPU_NODE) == ["KubeletReady"]


def test_first_default_when_nothing_selected() -> None:
    path = compile_path("$.spec.taints[*].key")
    assert path.values(GPU_NODE) == []
    assert path.first(GPU_NODE) is None
    assert path.first(GPU_NODE, "none") == "none"


def test_rfc_function_extensions_compile() -> None:
    assert compile_path("$.status.conditions[?length(@.reason) > 0].type").values(GPU_NODE) == ["Ready"]
    assert compile_path("$.status.conditions[?match(@.type, 'Mem.*')].status").values(GPU_NODE) == ["False"]


@pytest.mark.parametrize(
    ("text", "column", "reason"),
    [
        ("$.a[", 5, "unexpected end of query"),
        ("$.a.b.", 7, "expected a shorthand selector"),
        ("$.status.conditions[?@.type = 'Ready']", 29, "did you mean '=='"),
        ("$.a['x]", 6, "unclosed string literal"),
        ("$.a[?foo(@)]", 6, "unknown function 'foo'"),
        ("metadata.name", 1, "unexpected 'metadata'"),
    ],
)
def test_invalid_paths_are_refused_with_their_column(text: str, column: int, reason: str) -> None:
    with pytest.raises(PathError) as info:
        compile_path(text)
    message = str(info.value)
    assert f"invalid JSONPath {text!r} at column {column}:" in message
    assert reason in message
    assert info.value.hint == ""


@pytest.mark.parametrize("text", ["", "   ", None, 3])
def test_empty_or_not_a_string(text: Any) -> None:
    with pytest.raises(PathError, match="non-empty string starting with '\\$'"):
        compile_path(text)


@pytest.mark.parametrize(
    ("text", "hint"),
    [
        ("{.metadata.labels.a\\.b}", "$.metadata.labels['a.b']"),
        ("{.metadata.labels.nvidia\\.com/gpu\\.present}", "$.metadata.labels['nvidia.com/gpu.present']"),
        (".spec.x", "$.spec.x"),
        ("{.status.allocatable}", "$.status.allocatable"),
        ("$.a[?(@.a=='b')]", "$.a[?@.a=='b']"),
        ("{.status.conditions[?(@.type=='Ready')].status}", "$.status.conditions[?@.type=='Ready'].status"),
        ("{..name}", "$..name"),
        ("{.items[*].metadata.name}", "$.items[*].metadata.name"),
    ],
)
def test_kubectl_dialect_refused_with_rfc_hint(text: str, hint: str) -> None:
    with pytest.raises(PathError) as info:
        compile_path(text)
    assert info.value.hint == hint
    assert "kubectl JSONPath, not RFC 9535 JSONPath" in str(info.value)
    assert f"did you mean {hint!r}?" in str(info.value)
    # The hint itself is valid RFC 9535.
    compile_path(hint)


def test_hint_selects_what_kubectl_meant() -> None:
    hint = kubectl_to_rfc9535("{.metadata.labels.nvidia\\.com/gpu\\.workload\\.config}")
    assert compile_path(hint).values(GPU_NODE) == ["vm-passthrough"]
