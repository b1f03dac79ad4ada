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
    data = report.to_dict() if isinstance(report, Report) else report
    if fmt == "yaml":
        plain = orjson.loads(orjson.dumps(data, default=_plain))
        return yaml.safe_dump(plain, sort_keys=False, allow_unicode=True, width=120)
    return orjson.dumps(data, default=_plain, option=orjson.OPT_INDENT_2).decode() + "\n"
