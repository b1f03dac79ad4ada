"""verdict's native report as JSON (orjson, sorted keys stable by construction) or YAML."""

from __future__ import annotations

from collections.abc import Iterator
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


def pieces(report: Report) -> Iterator[bytes]:
    """The bytes of the indented JSON of ``report.to_dict()``, one object at a time (the same bytes as
    dumping it whole: tests hold this)."""
    head = orjson.dumps({**report.header_dict(), "objects": []}, default=_plain, option=orjson.OPT_INDENT_2)
    if not report.objects or not head.endswith(b'"objects": []\n}'):
        yield orjson.dumps(report.to_dict(), default=_plain, option=orjson.OPT_INDENT_2) + b"\n"
        return
    yield head[: -len(b"[]\n}")] + b"[\n"
    for i, obj in enumerate(report.objects):
        body = orjson.dumps(obj.to_dict(), default=_plain, option=orjson.OPT_INDENT_2)
        yield (b",\n" if i else b"") + b"    " + body.replace(b"\n", b"\n    ")
    yield b"\n  ]\n}\n"


def _json_streamed(report: Report) -> str:
    return b"".join(pieces(report)).decode()


def write(report: Report | dict[str, Any], fh: Any, fmt: str = "json", **_: Any) -> bool:
    """Write native JSON piece by piece to the binary ``fh``; False (nothing written) for other cases,
    so the caller renders them whole."""
    if fmt != "json" or not isinstance(report, Report):
        return False
    for piece in pieces(report):
        fh.write(piece)
    return True
