"""The service's report cache (``api.cache``): the same body with the same choices is answered from the report
judged first, rendered as the new request asks; anything the verdict depends on is a miss; exemptions that
expire, reloads, no-cache/no-store and the bound are honoured."""

from __future__ import annotations

import gzip
import os
import pickle
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest
from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

import api.evaluate
import rules.evaluate
from api import create_app
from api.cache import Asked, LocalReports, ReportCache, SharedReports, digest, make, next_expiry
from api.config import ConfigError, from_env
from api.state import service
from rules.exemptions import ExemptionSet, load_exemptions_text
from rules.report import Report

DATA = Path(__file__).resolve().parent / "data" / "api"
PACK = DATA / "gpu-lab"
CLUSTER = (DATA / "cluster.yaml").read_bytes()
YAML = {"Content-Type": "application/yaml"}


def make_app(**config: Any) -> Flask:
    return create_app({"POLICIES": [str(PACK)], **config})


def post(client: FlaskClient, query: str = "", data: bytes = CLUSTER, **headers: str) -> TestResponse:
    resp = client.post(f"/v1/evaluate{query}", data=data, headers={**YAML, **headers})
    assert resp.status_code == 200, resp.get_data(as_text=True)
    return resp


def cache_counts(client: FlaskClient) -> dict[str, float]:
    out = {}
    for line in client.get("/metrics").get_data(as_text=True).splitlines():
        if line.startswith("verdict_report_cache_total{"):
            labels, value = line.split("} ")
            out[labels.split('"')[1]] = float(value)
    return out


def objects_evaluated(client: FlaskClient) -> float:
    text = client.get("/metrics").get_data(as_text=True)
    [line] = [x for x in text.splitlines() if x.startswith("verdict_objects_evaluated_total")]
    return float(line.split()[1])


def test_the_same_body_again_is_the_report_judged_first() -> None:
    client = make_app().test_client()
    first = post(client)
    assert first.headers["Cache-Status"] == "verdict; fwd=miss; stored"
    assert "Age" not in first.headers
    again = post(client)
    assert again.headers["Cache-Status"] == "verdict; hit"
    assert int(again.headers["Age"]) >= 0
    assert again.data == first.data  # the same report, its generated time and timing included
    assert cache_counts(client) == {"miss": 1.0, "hit": 1.0}
    assert objects_evaluated(client) == 4  # objects are counted where they are evaluated: once


def test_a_hit_is_rendered_as_the_new_request_asks() -> None:
    client = make_app().test_client()
    post(client)
    fails = post(client, "?results=fail&format=yaml")
    assert fails.headers["Cache-Status"] == "verdict; hit"
    fresh = post(client, "?results=fail&format=yaml", **{"Cache-Control": "no-cache"})
    assert fresh.headers["Cache-Status"] == "verdict; fwd=request; stored"
    assert fails.mimetype == "application/yaml"
    # the same findings, rendered the same way (only generated time and timing may differ)
    strip = [line for line in fails.get_data(as_text=True).splitlines() if "generated" not in line and "Ms:" not in line]
    assert strip == [line for line in fresh.get_data(as_text=True).splitlines() if "generated" not in line and "Ms:" not in line]
    assert "gpu-node-typo" in fails.get_data(as_text=True) and "gpu-node-good" not in fails.get_data(as_text=True)


@pytest.mark.parametrize(
    ("query", "data", "headers"),
    [
        ("?policy=gpu-lab", CLUSTER, {}),  # other rules (the same ones here, chosen by name: the key is the rules)
        ("?rule=gpu-node-basics/zone-label", CLUSTER, {}),
        ("?kind=Node", CLUSTER, {}),
        ("?objectName=gpu-node-typo", CLUSTER, {}),
        ("?name=clusters/lab.yaml", CLUSTER, {}),
        ("", CLUSTER + b"\n# one more byte\n", {}),
        ("", CLUSTER, {"Content-Type": "text/plain"}),
    ],
)
def test_anything_the_verdict_depends_on_is_a_miss(query: str, data: bytes, headers: dict[str, str]) -> None:
    client = make_app().test_client()
    post(client)
    other = post(client, query, data, **headers)
    if query == "?policy=gpu-lab":  # the same three rules: the report is the same, so it is a hit
        assert other.headers["Cache-Status"] == "verdict; hit"
        return
    assert other.headers["Cache-Status"] == "verdict; fwd=miss; stored"
    assert post(client, query, data, **headers).headers["Cache-Status"] == "verdict; hit"


def test_a_selection_hit_keeps_the_selection() -> None:
    client = make_app().test_client()
    judged = post(client, "?objectName=gpu-node-typo").get_json()
    kept = post(client, "?objectName=gpu-node-typo").get_json()
    assert [o["name"] for o in kept["objects"]] == ["gpu-node-typo"] == [o["name"] for o in judged["objects"]]
    assert kept["summary"]["selection"]["objectsSelected"] == 1


def test_no_store_keeps_nothing_and_no_cache_judges_again() -> None:
    client = make_app().test_client()
    assert post(client, **{"Cache-Control": "no-store"}).headers["Cache-Status"] == "verdict; fwd=miss"
    assert post(client).headers["Cache-Status"] == "verdict; fwd=miss; stored"
    assert post(client, **{"Cache-Control": "no-cache"}).headers["Cache-Status"] == "verdict; fwd=request; stored"
    assert post(client).headers["Cache-Status"] == "verdict; hit"
    assert cache_counts(client) == {"miss": 2.0, "request": 1.0, "hit": 1.0}
    assert objects_evaluated(client) == 12


def test_off_and_too_large_bodies_are_judged_every_time() -> None:
    off = make_app(REPORT_CACHE_MB=0).test_client()
    assert [post(off).headers["Cache-Status"] for _ in range(2)] == ["verdict; fwd=bypass"] * 2
    app = make_app(REPORT_CACHE_MB=1)
    client = app.test_client()
    big = CLUSTER + b"\n#" + b"x" * (300 * 1024) + b"\n"  # above a quarter of 1 MiB
    assert [post(client, data=big).headers["Cache-Status"] for _ in range(2)] == ["verdict; fwd=bypass"] * 2
    with app.app_context():
        assert len(service().cache) == 0
    assert cache_counts(client) == {"bypass": 2.0}


def test_a_body_that_cannot_be_judged_is_not_kept() -> None:
    app = make_app()
    client = app.test_client()
    for _ in range(2):
        resp = client.post("/v1/evaluate", data=b"kind: [", headers=YAML)
        assert resp.status_code == 400 and resp.mimetype == "application/problem+json"
    empty = client.post("/v1/evaluate", data=b"# nothing\n", headers=YAML)
    assert empty.status_code == 400
    with app.app_context():
        assert len(service().cache) == 0


def test_a_reload_is_a_miss() -> None:
    app = make_app()
    client = app.test_client()
    post(client)
    with app.app_context():
        assert service().keeper.reload().ok
    assert post(client).headers["Cache-Status"] == "verdict; fwd=miss; stored"


class _Later(datetime):
    """``datetime`` whose ``now`` is ten years ahead: past the exemption's ``expires``."""

    @classmethod
    def now(cls, tz: Any = None) -> Any:
        return datetime.now(tz) + timedelta(days=3653)


def test_a_kept_report_is_not_used_past_an_exemptions_expiry(monkeypatch: pytest.MonkeyPatch) -> None:
    until = (datetime.now(UTC) + timedelta(days=365)).date().isoformat()
    text = (
        "apiVersion: verdict/v1\nkind: Exemptions\nexemptions:\n"
        f"- {{rules: [workload-label-valid], names: [gpu-node-typo], reason: relabel booked, expires: {until}}}\n"
    )
    exemptions = ExemptionSet(tuple(load_exemptions_text(text, "exemptions.yaml")), ("exemptions.yaml",))
    client = make_app(EXEMPTION_SET=exemptions).test_client()
    before = post(client).get_json()
    assert before["summary"]["exempt"] == 1
    assert post(client).headers["Cache-Status"] == "verdict; hit"
    monkeypatch.setattr(api.evaluate, "datetime", _Later)
    monkeypatch.setattr(rules.evaluate, "datetime", _Later)
    after = post(client)
    assert after.headers["Cache-Status"] == "verdict; fwd=miss; stored"
    body = after.get_json()
    assert "exempt" not in body["summary"]  # the summary counts exempt results only when there are some
    typo = next(o for o in body["objects"] if o["name"] == "gpu-node-typo")
    assert typo["verdict"] == "fail"
    assert f"exemption exemptions.yaml:4 (workload-label-valid: relabel booked) expired on {until}: not applied" in body["notes"]


def test_next_expiry_is_the_first_one_still_ahead() -> None:
    text = (
        "apiVersion: verdict/v1\nkind: Exemptions\nexemptions:\n"
        "- {rules: [a], reason: x, expires: 2030-01-10}\n"
        "- {rules: [b], reason: x, expires: 2030-01-05T12:00:00Z}\n"
        "- {rules: [c], reason: x, expires: 2020-01-01}\n"
        "- {rules: [d], reason: x}\n"
    )
    found = ExemptionSet(tuple(load_exemptions_text(text, "e.yaml")))
    assert next_expiry(found, datetime(2026, 1, 1, tzinfo=UTC)) == datetime(2030, 1, 5, 12, tzinfo=UTC)
    assert next_expiry(found, datetime(2030, 1, 6, tzinfo=UTC)) == datetime(2030, 1, 11, tzinfo=UTC)
    assert next_expiry(found, datetime(2031, 1, 1, tzinfo=UTC)) is None
    assert next_expiry(ExemptionSet(), datetime(2026, 1, 1, tzinfo=UTC)) is None


def _stores(tmp_path: Path, max_bytes: int) -> list[ReportCache]:
    return [LocalReports(max_bytes), SharedReports(max_bytes, str(tmp_path))]


@pytest.mark.parametrize("shared", [False, True], ids=["local", "shared"])
def test_the_cache_is_bounded_by_the_reports_bytes_least_recently_used_out(tmp_path: Path, shared: bool) -> None:
    def report(name: str, filler: int = 1000) -> Report:
        return Report(name=name, notes=["x" * filler])

    size = len(pickle.dumps(report("a"), protocol=pickle.HIGHEST_PROTOCOL))
    cache = _stores(tmp_path, 4 * size + 400)[shared]
    now = datetime(2026, 1, 1, tzinfo=UTC)

    def names() -> list[str]:
        return sorted(k for k in "abcde" if cache.get(k.encode(), now) is not None)

    for k in "abcd":
        assert cache.put(k.encode(), report(k), None)
        time.sleep(0.01)  # the shared store orders by modification time
    got = cache.get(b"a", now)  # a is now the most recently used
    assert got is not None and got[0].name == "a" and got[0].notes == ["x" * 1000] and 0 <= got[1] < 5
    time.sleep(0.01)
    assert cache.put(b"e", report("e"), None)  # past the bound: b, the least recently used, goes
    assert len(cache) == 4  # type: ignore[arg-type]
    assert cache.get(b"b", now) is None
    assert names() == ["a", "c", "d", "e"]
    assert not cache.put(b"f", report("f", size + 200), None)  # above a quarter of the bound: not kept
    assert cache.get(b"f", now) is None
    assert cache.put(b"a", report("a2"), None)  # a key again replaces its report
    again = cache.get(b"a", now)
    assert again is not None and again[0].name == "a2"
    expiring = datetime(2026, 6, 1, tzinfo=UTC)
    assert cache.put(b"x", report("x", 10), expiring)
    assert cache.get(b"x", expiring - timedelta(seconds=1)) is not None
    assert cache.get(b"x", expiring) is None
    assert cache.get(b"x", expiring - timedelta(days=1)) is None  # dropped, not only hidden


def test_a_shared_report_is_read_again_once_another_process_wrote_it_and_a_broken_file_is_a_miss(tmp_path: Path) -> None:
    writer, reader = SharedReports(1 << 20, str(tmp_path)), SharedReports(1 << 20, str(tmp_path))
    now = datetime(2026, 1, 1, tzinfo=UTC)
    assert writer.put(b"k", Report(name="lab", notes=["n"]), None)
    one, two = reader.get(b"k", now), reader.get(b"k", now)
    assert one is not None and two is not None and one[0].name == "lab"
    assert one[0] is two[0]  # loaded once in this process while the file is the same
    assert writer.put(b"k", Report(name="lab again"), None)  # judged again elsewhere (no-cache)
    three = reader.get(b"k", now)
    assert three is not None and three[0].name == "lab again"
    [path] = list(tmp_path.glob("*.report"))
    broken = tmp_path / "broken.tmp"
    broken.write_bytes(b"not a pickle")
    os.replace(broken, path)  # as a writer replaces a file: a new one
    assert reader.get(b"k", now) is None and not path.exists()
    assert make(1 << 20, str(tmp_path)).__class__ is SharedReports
    assert make(1 << 20, str(tmp_path / "gone")).__class__ is LocalReports
    assert make(1 << 20, None).__class__ is LocalReports


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({}, Asked()),
        ({"Cache-Control": "no-cache"}, Asked(no_cache=True)),
        ({"Cache-Control": "NO-CACHE"}, Asked(no_cache=True)),  # directive names are case-insensitive
        ({"Cache-Control": "No-Store, max-age=30"}, Asked(no_store=True, max_age=30)),
        ({"Cache-Control": 'max-age="0"'}, Asked(max_age=0)),
        ({"Cache-Control": "max-age=soon"}, Asked(max_age=0)),  # unreadable: nothing older than now
        ({"Cache-Control": "max-age=-1"}, Asked(max_age=0)),
        ({"Pragma": "no-cache"}, Asked(no_cache=True)),  # HTTP/1.0, when there is no Cache-Control
        ({"Pragma": "no-cache", "Cache-Control": "max-age=5"}, Asked(max_age=5)),
    ],
)
def test_what_a_request_asks_of_the_cache(headers: dict[str, str], expected: Asked) -> None:
    assert Asked.of(headers) == expected


def test_digest_separates_the_body_from_the_choices() -> None:
    assert digest(b"ab", ("c",)) != digest(b"a", ("bc",))
    assert digest(b"ab", ("c", None)) != digest(b"ab", ("c", ()))
    assert digest(b"ab", ("c",)) == digest(b"ab", ("c",))
    assert len(digest(b"", ())) == 32


def test_verdict_report_cache_mb_from_the_environment() -> None:
    assert from_env({})["REPORT_CACHE_MB"] == 4
    assert from_env({"VERDICT_REPORT_CACHE_MB": "0"})["REPORT_CACHE_MB"] == 0
    assert from_env({"VERDICT_REPORT_CACHE_MB": "64"})["REPORT_CACHE_MB"] == 64
    with pytest.raises(ConfigError, match=r"VERDICT_REPORT_CACHE_MB='-1' must be at least 0"):
        from_env({"VERDICT_REPORT_CACHE_MB": "-1"})
    with pytest.raises(ConfigError, match=r"VERDICT_REPORT_CACHE_MB='lots' is not a whole number"):
        from_env({"VERDICT_REPORT_CACHE_MB": "lots"})


def test_a_hit_answers_the_same_json_as_a_judged_report_through_orjson() -> None:
    """The kept report object is rendered again: nothing in it was changed by the first rendering."""
    client = make_app().test_client()
    first = orjson.loads(post(client, "?format=sarif").data)
    second = orjson.loads(post(client, "?format=sarif").data)
    assert first == second


def test_max_age_takes_only_a_report_young_enough(monkeypatch: pytest.MonkeyPatch) -> None:
    client = make_app().test_client()
    post(client)
    assert post(client, **{"Cache-Control": "max-age=60"}).headers["Cache-Status"] == "verdict; hit"
    monkeypatch.setattr(time, "time", lambda real=time.time: real() + 120)  # two minutes on
    stale = post(client, **{"Cache-Control": "max-age=60"})
    assert stale.headers["Cache-Status"] == "verdict; fwd=stale; stored" and "Age" not in stale.headers
    assert cache_counts(client) == {"miss": 1.0, "hit": 1.0, "stale": 1.0}


def test_a_body_that_cannot_be_judged_counts_in_no_cache_outcome() -> None:
    """Regression: a malformed dump's 400 was counted as a cache miss, though its answer had no Cache-Status."""
    client = make_app().test_client()
    for body in (b"kind: [", b"# nothing\n"):
        resp = client.post("/v1/evaluate", data=body, headers=YAML)
        assert resp.status_code == 400 and "Cache-Status" not in resp.headers
    assert cache_counts(client) == {}


def test_an_archives_report_is_bounded_by_its_own_size_not_the_body_s() -> None:
    """Regression: the bound counted the body's bytes, so small gzipped archives of large dumps filled a worker
    with reports many times "the cache's" size."""
    nodes = "".join(
        f"---\napiVersion: v1\nkind: Node\nmetadata:\n  name: gpu-{i}\n  labels:\n"
        f"    nvidia.com/gpu.workload.config: container\nstatus:\n  allocatable:\n    nvidia.com/gpu: '{i}'\n"
        for i in range(600)
    )
    body = gzip.compress(nodes.encode())
    assert len(body) < 16 * 1024  # its report: ~500 KB pickled
    app = create_app({"REPORT_CACHE_MB": 1})  # the built-in pack: a quarter is 256 KiB
    client = app.test_client()
    statuses = []
    for _ in range(2):
        resp = client.post("/v1/evaluate", data=body, headers={"Content-Type": "application/gzip"})
        assert resp.status_code == 200 and resp.get_json()["summary"]["objectsRead"] == 600
        statuses.append(resp.headers["Cache-Status"])
    assert statuses == ["verdict; fwd=bypass"] * 2
    with app.app_context():
        assert len(service().cache) == 0  # type: ignore[arg-type]


def test_a_report_that_does_not_fit_on_the_shared_disk_is_answered_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A full /dev/shm (Docker gives 64 MiB): the write fails, nothing half-written stays in the directory."""
    cache = SharedReports(1 << 20, str(tmp_path))

    def full(*_: Any, **__: Any) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pickle, "dump", full)
    assert not cache.put(b"k", Report(name="lab"), None)  # not kept: the answer says fwd=bypass, not "stored"
    assert list(tmp_path.iterdir()) == []
    assert cache.get(b"k", datetime(2026, 1, 1, tzinfo=UTC)) is None
