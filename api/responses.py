"""JSON answers shared by the blueprints."""

from __future__ import annotations

from typing import Any

import orjson
from flask import Response

from rules.render.native import plain

from .store import PolicyKeeper


def json_response(data: Any, status: int = 200) -> Response:
    """``data`` as JSON (orjson; values JSON has no word for become strings)."""
    return Response(orjson.dumps(data, default=plain), status=status, mimetype="application/json")


def reload_dict(keeper: PolicyKeeper) -> dict[str, Any] | None:
    """The keeper's last reload attempt in ``ReloadSchema`` form, or None when there was none."""
    last = keeper.last_reload
    if last is None:
        return None
    return {"at": last.at, "ok": last.ok, "errors": [e.to_dict() for e in last.errors]}
