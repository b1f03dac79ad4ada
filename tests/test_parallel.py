"""Both cores (issue 11): a dump judged in forked processes, or a batch of dumps one per process, gives the
very report a serial run gives, byte for byte but for its timing and generation time."""

from __future__ import annotations

import io
import json
import pickle
import sys
import tarfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from rules import parallel
from rules.cli import main
from rules.engine import audit_batch, audit_paths
from rules.errors import DumpError, EvaluationTimeout, Source
from rules.evaluate import evaluate
from rules.exemptions import load_exemptions
from rules.loader import load_policies
from rules.reader import Dump, KObject
from rules.render import render

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from make_cluster import objects, parse_size  # noqa: E402

pytestmark = pytest.mark.skipif(not parallel.can_fork(), reason="worker processes are forked")


@pytest.fixture(scope="module")
def cluster() -> list[dict[str, Any]]:
    """A generated cluster (every kind the pack reads, a share broken), with two objects exempted by
    annotation and one whose annotation is malformed (an input error each worker must hand back)."""
    items = list(objects(parse_size("40:300:24"), seed=5))
    pods = [o for o in items if o["kind"] == "Pod"]
    pods[200]["metadata"]["annotations"] = {"verdict.dev/exempt": "no reason given"}
    vms = [o for o in items if o["kind"] in ("VirtualMachineInstance", "VirtualMachine")]
    for vm in vms[::2]:
        vm["metadata"]["annotations"]["verdict.dev/exempt"] = "kubevirt-vms/*: migrating, TICKET-2"
    return items


def dump_of(items: list[dict[str, Any]]) -> Dump:
    return Dump(objects=[KObject(o, Source("cluster.json", 1, i + 5, i)) for i, o in enumerate(items)])


def comparable(text: str) -> dict[str, Any]:
    report = json.loads(text)
    report.pop("timing")
    report.pop("generated")
    return report


@pytest.fixture
def small_dumps_fork(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "PARALLEL_FROM", 50)


def test_a_dump_judged_in_processes_gives_the_serial_report(
    cluster: list[dict[str, Any]], small_dumps_fork: None, tmp_path: Path
) -> None:
    policies = load_policies()
    exemptions_file = tmp_path / "accepted.yaml"
    exemptions_file.write_text(
        "apiVersion: verdict/v1\nkind: Exemptions\nexemptions:\n"
        "- rules: [gpu-pods/workload-schedulable]\n  namespaces: [team-0*]\n  reason: capacity on order, TICKET-3\n"
        "- rules: [gpu-nodes/nope]\n  reason: a selector that names no rule\n"
    )
    accepted = load_exemptions([str(exemptions_file)])
    serial = evaluate(dump_of(cluster), policies, name="cluster", exemptions=accepted, jobs=1)
    assert len(cluster) >= 2 * parallel.PARALLEL_FROM and serial.summary()["results"]["fail"] > 0
    assert any(n.startswith("exemption annotation") for n in serial.notes) and serial.input_errors  # the merge is exercised
    assert serial.not_applied and all(e["objects"] > 0 for e in serial.not_applied)  # counted across the shards too
    for jobs in (2, 3):
        forked = evaluate(dump_of(cluster), policies, name="cluster", exemptions=accepted, jobs=jobs)
        assert forked.timing.keys() == serial.timing.keys()
        forked.timing, forked.generated = serial.timing, serial.generated  # all that may differ
        assert forked.to_dict() == serial.to_dict()
        for fmt in ("json", "sarif", "junit", "markdown", "table"):  # yaml and policyreport: the same dict as json
            assert render(forked, fmt) == render(serial, fmt), fmt
        assert forked.notes == serial.notes and forked.input_errors == serial.input_errors


def test_what_a_worker_sends_back_pickles_as_calls_and_round_trips(cluster: list[dict[str, Any]]) -> None:
    # dataclasses' own __setstate__ for frozen slots classes ran Python per field: the parent of a parallel run
    # spent more time unpickling than a worker judging (the scheduling benchmark)
    report = evaluate(dump_of(cluster[:400]), load_policies(), jobs=1)
    exempted = [r for o in report.objects for r in o.results if r.exemption is not None]
    assert exempted  # an Exemption (holding its finding) goes through too
    for value in (report.objects[0], report.objects[0].ref, report.objects[0].source, exempted[0], exempted[0].exemption):
        cls, args = value.__reduce__()
        assert cls is type(value) and cls(*args) == value
    back = pickle.loads(pickle.dumps(report.objects))
    assert back == report.objects
    shared = [(i, j) for i, o in enumerate(report.objects) for j, r in enumerate(o.results) if r is report.objects[0].results[0]]
    assert len(shared) > 1  # a result several objects share stays one object
    assert all(back[i].results[j] is back[0].results[0] for i, j in shared)


def test_shards_cover_the_dump_in_order() -> None:
    assert parallel.shards(10, 2) == [(i, i + 1) for i in range(10)]  # never more shards than objects
    assert parallel.shards(5, 1) == [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)]
    assert len(parallel.shards(59811, 2)) == 2 * parallel.SHARDS_PER_JOB
    for count, jobs in ((1, 4), (7, 2), (1000, 3), (59811, 2)):
        ranges = parallel.shards(count, jobs)
        assert ranges[0][0] == 0 and ranges[-1][1] == count
        assert all(a < b for a, b in ranges) and all(b == c for (_, b), (c, _) in zip(ranges, ranges[1:], strict=False))
        assert len(ranges) <= jobs * parallel.SHARDS_PER_JOB


def test_a_budget_passed_in_a_worker_is_the_serial_timeout(cluster: list[dict[str, Any]], small_dumps_fork: None) -> None:
    with pytest.raises(EvaluationTimeout, match=r"evaluating took more than 1e-09 s \(\d+ of \d+ objects judged\)") as exc:
        evaluate(dump_of(cluster), load_policies(), budget=1e-9, jobs=2)
    assert exc.value.total == len(cluster)


def _archive(tmp_path: Path, name: str, items: list[dict[str, Any]]) -> str:
    data = json.dumps({"apiVersion": "v1", "kind": "List", "items": items}, indent=4).encode()
    path = tmp_path / name
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo("dump/cluster.json")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return str(path)


def test_a_batch_of_archives_judged_in_processes_gives_the_serial_reports(cluster: list[dict[str, Any]], tmp_path: Path) -> None:
    dumps = [(_archive(tmp_path, f"site-{i}.tar.gz", cluster[i * 40 :]), f"site-{i}") for i in range(3)]
    policies = load_policies()
    serial = audit_batch(dumps, policies, jobs=1)
    forked = audit_batch(dumps, policies, jobs=2)
    assert [r.name for r in forked] == ["site-0", "site-1", "site-2"]
    assert [comparable(render(r, "json")) for r in forked] == [comparable(render(r, "json")) for r in serial]
    assert forked[0].to_dict()["timing"].keys() == {"readMs", "indexMs", "evaluateMs"}
    broken = tmp_path / "broken.tar.gz"
    broken.write_bytes(b"\x1f\x8bnot gzip at all")
    # an unreadable archive of a batch is its own report (its reason as input error), the others as before
    *judged, unread = audit_batch([*dumps, (str(broken), "broken")], policies, jobs=2)
    assert [comparable(render(r, "json")) for r in judged] == [comparable(render(r, "json")) for r in serial]
    assert (unread.name, unread.objects_read, [e.source.file for e in unread.input_errors]) == ("broken", 0, [str(broken)])
    with pytest.raises(DumpError, match="broken.tar.gz"):  # alone, it cannot be read
        audit_batch([(str(broken), "broken")], policies, jobs=2)


def test_the_cli_judges_with_jobs_and_refuses_a_bad_setting(
    cluster: list[dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(parallel, "PARALLEL_FROM", 50)
    path = tmp_path / "cluster.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": cluster}, indent=4))
    runner = CliRunner()
    one = runner.invoke(main, ["audit", str(path), "--jobs", "1", "--fail-on", "never"])
    two = runner.invoke(main, ["audit", str(path), "-j", "2", "--fail-on", "never"])
    assert one.exit_code == two.exit_code == 0
    assert comparable(one.stdout) == comparable(two.stdout)
    bad = runner.invoke(main, ["audit", str(path), "--jobs", "0"])
    assert bad.exit_code == 2 and "--jobs 0: give a whole number above 0" in bad.output
    monkeypatch.setenv("VERDICT_JOBS", "many")
    bad = runner.invoke(main, ["audit", str(path)])
    assert bad.exit_code == 2 and "VERDICT_JOBS='many' is not a whole number above 0" in bad.output
    monkeypatch.setenv("VERDICT_JOBS", "2")
    assert comparable(runner.invoke(main, ["audit", str(path), "--fail-on", "never"]).stdout) == comparable(one.stdout)


def test_jobs_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VERDICT_JOBS", raising=False)
    assert parallel.jobs_setting() == parallel.default_jobs() >= 1
    monkeypatch.setenv("VERDICT_JOBS", "3")
    assert parallel.jobs_setting() == 3 and parallel.jobs_setting(1) == 1
    with pytest.raises(parallel.JobsError):
        parallel.jobs_setting(0)


def test_a_small_dump_stays_in_process(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_fork(*args: Any) -> Any:
        raise AssertionError("forked for a small dump")

    monkeypatch.setattr(parallel, "judge_shards", no_fork)
    report = audit_paths([str(ROOT / "examples" / "lab-cluster.yaml")], load_policies(), jobs=2)
    assert report.objects_read == 19
