"""verdict's native report as JSON (orjson, sorted keys stable by construction) or YAML."""

from __future__ import annotations

from typing import Any

import orjson
import yaml

from ..report import Report


def _plain(value: Any) -> Any:
    """Values orjson cannot take natively (Fractions from quantities, sets) as strings/lists."""
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    return str(value)


def render(report: Report | dict[str, Any], fmt: str = "json", **_: Any) -> str:
    """``report.to_dict()`` as indented JSON (``fmt="json"``) or block YAML (``fmt="yaml"``)."""
    if fmt == "json" and isinstance(report, Report):
        return _json_streamed(report)
    data = report.to_dict() if isinstance(report, Report) else report
    if fmt == "yaml":
        plain = orjson.loads(orjson.dumps(data, default=_plain))
        return yaml.safe_dump(plain, sort_keys=False, allow_unicode=True, width=120)
    return orjson.dumps(data, default=_plain, option=orjson.OPT_INDENT_2).decode() + "\n"


def _json_streamed(report: Report) -> str:
    """The same bytes as dumping ``report.to_dict()`` whole, built one object at a time: the dict of a
    55,000-object report never exists at once (bench/bench_engine.py: peak memory)."""
    head = orjson.dumps({**report.header_dict(), "objects": []}, default=_plain, option=orjson.OPT_INDENT_2)
    if not report.objects or not head.endswith(b'"objects": []\n}'):
        return orjson.dumps(report.to_dict(), default=_plain, option=orjson.OPT_INDENT_2).decode() + "\n"
    parts = [head[: -len(b"[]\n}")], b"[\n"]
    for i, obj in enumerate(report.objects):
        body = orjson.dumps(obj.to_dict(), default=_plain, option=orjson.OPT_INDENT_2)
        parts.append((b",\n" if i else b"") + b"    " + body.replace(b"\n", b"\n    "))
    parts.append(b"\n  ]\n}\n")
    return b"".join(parts).decode()
