"""JSON answers shared by the blueprints."""

from __future__ import annotations

from typing import Any

import orjson
from flask import Response

from .store import PolicyKeeper


def plain(value: Any) -> Any:
    """What orjson cannot take natively (tuples, sets, bytes from ``!!binary``, others) in JSON terms."""
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def json_response(data: Any, status: int = 200) -> Response:
    """``data`` as JSON (orjson; values JSON has no word for become strings)."""
    return Response(orjson.dumps(data, default=plain), status=status, mimetype="application/json")


def reload_dict(keeper: PolicyKeeper) -> dict[str, Any] | None:
    """The keeper's last reload attempt in ``ReloadSchema`` form, or None when there was none."""
    last = keeper.last_reload
    if last is None:
        return None
    return {"at": last.at, "ok": last.ok, "errors": [e.to_dict() for e in last.errors]}
