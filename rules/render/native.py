"""verdict's native report as JSON (orjson, sorted keys stable by construction) or YAML."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from .. import yamlsafe
from ..report import Report


def plain(value: Any) -> Any:
    """What orjson cannot take natively in JSON terms: sets and tuples as lists, bytes (YAML's ``!!binary``)
    as text, anything else (Fractions from quantities) as its string."""
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def render(report: Report | dict[str, Any], fmt: str = "json", **_: Any) -> str:
    """``report.to_dict()`` as JSON (``fmt="json"``: indented, one line an object and one a result, see ``pieces``) or block YAML
    (``fmt="yaml"``)."""
    if fmt == "json" and isinstance(report, Report):
        return _json_streamed(report)
    data = report.to_dict() if isinstance(report, Report) else report
    if fmt == "yaml":
        as_json = orjson.loads(orjson.dumps(data, default=plain))
        return yamlsafe.dump(as_json, sort_keys=False, allow_unicode=True, width=120)
    return orjson.dumps(data, default=plain, option=orjson.OPT_INDENT_2).decode() + "\n"


def _object(obj: dict[str, Any]) -> bytes:
    """One judged object: its reference, source and verdict on one compact line that opens its results, then
    each result on one compact line, indented below it. A 5,000-node cluster has some 700,000 results and
    60,000 objects: indenting each member of each on a line of its own made half the report's bytes whitespace
    (and the objects' fields a tenth). One line a result, and one an object, keeps the report greppable: a
    Pod's line names it, its verdict and where it was read."""
    results = obj.pop("results")
    head = orjson.dumps({**obj, "results": []}, default=plain)
    if not results:
        return head
    lines = b",\n".join(b"  " + orjson.dumps(r, default=plain) for r in results)
    return head[: -len(b"[]}")] + b"[\n" + lines + b"\n]}"


def pieces(report: Report) -> Iterator[bytes]:
    """The bytes of the native JSON report, one object at a time: ``report.to_dict()`` indented by two spaces,
    except that each of ``objects`` is a compact line (its fields, up to its results) and each of its results one
    more (the same bytes as ``render`` gives: tests hold this, and that it parses to ``report.to_dict()``)."""
    head = orjson.dumps({**report.header_dict(), "objects": []}, default=plain, option=orjson.OPT_INDENT_2)
    if not head.endswith(b'"objects": []\n}'):  # the header's last member is "objects", which to_dict keeps last
        raise AssertionError("the report header does not end with its objects")
    if not report.objects:
        yield head + b"\n"
        return
    yield head[: -len(b"[]\n}")] + b"[\n"
    for i, obj in enumerate(report.objects):
        yield (b",\n" if i else b"") + b"    " + _object(obj.to_dict()).replace(b"\n", b"\n    ")
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
