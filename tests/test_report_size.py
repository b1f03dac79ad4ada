"""The JSON report stays proportional to the dump (issue 11: at most 3,000 bytes a Pod for the 5k cluster).

bench/run.py measures the 5k figure; this holds the same budget on a generated cluster of the same shape (one
node to ten Pods, VMIs, a share broken) small enough for the suite, so that a change to the pack that makes
every Pod's results longer fails here rather than in the next benchmark run (the twentieth session found 5k at
3,009 bytes a Pod: skip reasons said for nearly every Pod had grown; a described precondition's skip now says
its description alone, without "precondition not met: ", and this dump then measured 2,843)."""

from __future__ import annotations

import sys
from pathlib import Path

import orjson

from rules.engine import audit_bytes
from rules.loader import load_policies
from rules.render import render

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from make_cluster import objects, parse_size  # noqa: E402

#: issue 11's budget for the whole JSON report, per Pod of the dump
BYTES_A_POD = 3000


def test_json_report_within_bytes_a_pod() -> None:
    items = list(objects(parse_size("100:1000:40"), seed=11))
    pods = sum(1 for o in items if o["kind"] == "Pod")
    assert pods == 1000
    body = orjson.dumps({"apiVersion": "v1", "kind": "List", "items": items})
    report = audit_bytes(body, "/tmp/verdict-bench/cluster-100x1000x40-s11.json", load_policies())
    assert len(report.objects) == len(items)  # every object is judged: none is left out of the report
    size = len(render(report, "json").encode())
    # the header (summary, rollup, notes) is a fixed cost that the 5k dump spreads over fifty times the Pods
    header = len(orjson.dumps(report.header_dict(), option=orjson.OPT_INDENT_2))
    per_pod = (size - header) / pods
    assert 2000 < per_pod <= BYTES_A_POD, per_pod
