"""The ``elapsed`` and ``duration`` references: times a dump shows and the time between them (trial 144: an operand pod
80 seconds old and one stuck for five hours were told the same, "starting, or stuck there")."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from conftest import make_policy, make_rule

from rules.durations import elapsed, human_duration, parse_time
from rules.errors import PolicyError

Judge = Callable[..., dict[tuple[str, str], Any]]

HEARTBEATS = {"heartbeats": {"kind": "Node", "path": "$.status.conditions[*].lastHeartbeatTime"}}
AGE = {"age": {"elapsed": [{"path": "$.status.startTime"}, {"context": "heartbeats"}]}, "ageText": {"duration": {"var": "age"}}}


def _node(name: str, beat: str) -> dict[str, Any]:
    conditions = [{"type": "Ready", "status": "True", "lastHeartbeatTime": beat}]
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}, "status": {"conditions": conditions}}


def _pod(name: str, started: str | None) -> dict[str, Any]:
    status = {"startTime": started} if started else {}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "a"}, "status": status}


def test_elapsed_is_the_seconds_to_the_latest_time_of_a_list(judge: Judge) -> None:
    rule = make_rule(
        {"var": "age", "lt": 600},
        match={"kinds": ["Pod"]},
        message="{name}: {ageText} ({age} s)",
        passMessage="{name}: {ageText}",
    )
    objects = [
        _node("n1", "2026-01-01T10:00:00Z"),
        _node("n2", "2026-01-01T09:58:00Z"),
        _pod("young", "2026-01-01T09:58:40Z"),
        _pod("old", "2026-01-01T04:55:00.5+00:00"),
        _pod("none", None),
        _pod("bad", "yesterday"),
    ]
    said = {k[0]: (r.result, r.message) for k, r in judge(objects, rules=[rule], context=HEARTBEATS, vars=AGE).items()}
    assert said["young"] == ("pass", "young: 80s")
    assert said["old"] == ("fail", "old: 5h4m (18299 s)")
    assert said["none"][0] == "fail"  # nothing to measure from: missing, as ifMissing says (fail by default)
    # (trial 148: the error named no field)
    bad = "could not evaluate: elapsed: from 'yesterday' ($.status.startTime) is not an RFC 3339 time (2025-03-03T10:12:44Z)"
    assert said["bad"] == ("error", bad)


def test_elapsed_without_a_time_in_the_dump_is_missing(judge: Judge) -> None:
    rule = make_rule({"var": "age", "lt": 600, "ifMissing": "pass"}, match={"kinds": ["Pod"]}, passMessage="{name}: {ageText}")
    said = judge([_pod("alone", "2026-01-01T09:58:40Z")], rules=[rule], context=HEARTBEATS, vars=AGE)
    assert said[("alone", "r")].message == "alone: <none>"


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (-5, "<invalid>"),
        (-1, "0s"),
        (0, "0s"),
        (119, "119s"),
        (120, "2m"),
        (303, "5m3s"),
        (600, "10m"),
        (10799, "179m"),
        (18300, "5h5m"),
        (7 * 3600, "7h"),
        (30 * 3600, "30h"),
        (3 * 86400 + 4 * 3600, "3d4h"),
        (40 * 86400, "40d"),
        (2 * 365 * 86400 + 10 * 86400, "2y10d"),
        (9 * 365 * 86400, "9y"),
    ],
)
def test_duration_is_written_as_kubectl_writes_an_age(seconds: int, text: str) -> None:
    assert human_duration(seconds) == text


def test_times_are_rfc3339() -> None:
    assert elapsed("2026-01-01T10:00:00Z", ["2026-01-01T10:01:00+01:00", "2026-01-01T10:02:30Z", "n/a"]) == 150
    assert elapsed("2026-01-01T10:00:00", "2026-01-01T10:00:01Z") == 1  # no offset: UTC
    assert elapsed(None, "2026-01-01T10:00:00Z") is None and elapsed("2026-01-01T10:00:00Z", []) is None
    assert elapsed("", "2026-01-01T10:00:00Z") is None  # an empty time is none
    assert parse_time("10:00") is None and parse_time(1735725600) is None
    # trial 148: RFC 3339's forms only (lower-case t and z are its own; week dates and offsets without a colon not)
    assert elapsed("2026-01-01t10:00:00z", "2026-01-01 10:00:02.5Z") == 2
    for odd in ("2025-W24-4T10:00:00", "2025-06-12T10:00:00-0700", "2025-06-12 04:55:30 +0000 UTC", "2025-02-30T00:00:00Z"):
        assert parse_time(odd) is None, odd


def test_the_latest_of_a_list_is_found_once_per_list() -> None:
    """Trial 148: the latest heartbeat was parsed again for every pod that read it (quadratic in a large cluster)."""
    from rules import durations

    beats = [f"2026-01-01T10:{m:02d}:00Z" for m in range(60)]
    calls = []
    real = durations.parse_time
    durations.parse_time = lambda v: calls.append(v) or real(v)  # type: ignore[assignment]
    try:
        for _ in range(100):
            assert elapsed("2026-01-01T09:00:00Z", beats) == 7140
    finally:
        durations.parse_time = real  # type: ignore[assignment]
    assert len(calls) == 100 + 60  # each pod's own time, the list's once


def test_elapsed_takes_two_times(load_policy: Callable[..., Any]) -> None:
    bad = {"when": {"elapsed": [{"path": "$.a"}]}}
    with pytest.raises(PolicyError, match=r"spec\.vars\.when\.elapsed: .*two times"):
        load_policy(make_policy([make_rule({"var": "when", "exists": True})], vars=bad))
