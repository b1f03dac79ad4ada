"""Query strings, loaded through the marshmallow schemas of ``api.schemas``."""

from __future__ import annotations

import functools
from typing import Any

from flask import request
from marshmallow import Schema, ValidationError, fields
from werkzeug.datastructures import MultiDict

from rules.errors import did_you_mean, nearest

from .problems import Problem

ONCE = "may be given once"


def invalid_query(parameter: str, reason: str) -> Problem:
    """The 400 ``invalid-query`` problem of one parameter: ``parameter: reason``, and that pair in ``errors``."""
    return Problem("invalid-query", f"{parameter}: {reason}", errors=[{"parameter": parameter, "reason": reason}])


def query_dict(schema: Schema, args: MultiDict[str, str]) -> dict[str, Any]:
    """``args`` as the mapping ``schema`` loads: list fields take every value, each split at commas;
    a scalar given more than once stays a list, so that the schema refuses it."""
    out: dict[str, Any] = {}
    for key in args:
        values = args.getlist(key)
        if isinstance(schema.fields.get(key), fields.List):
            out[key] = [part.strip() for v in values for part in v.split(",") if part.strip()]
        else:
            out[key] = values[0] if len(values) == 1 else values
    return out


def _flat(messages: Any) -> str:
    """marshmallow's messages as one text; the item index of a list field (``{0: [...]}``) is left out,
    since the message names the value."""
    if isinstance(messages, dict):
        return "; ".join(_flat(v) if isinstance(k, int) else f"{k}: {_flat(v)}" for k, v in messages.items())
    if isinstance(messages, list):
        return "; ".join(_flat(m) for m in messages)
    return str(messages)


def _reasons(schema: Schema, args: MultiDict[str, str], messages: dict[str, Any]) -> dict[str, str]:
    """Parameter -> reason: a scalar given twice says so (not "Not a valid string."), an unknown
    parameter names the ones the route takes."""
    known = ", ".join(sorted(schema.fields))
    out: dict[str, str] = {}
    for key, value in messages.items():
        name = str(key)
        if name in schema.fields and not isinstance(schema.fields[name], fields.List) and len(args.getlist(name)) > 1:
            out[name] = ONCE
        elif name not in schema.fields and _plain(name) == "failon":
            # the exit code's option: an answer's Verdict-Summary header says the worst result instead
            out[name] = (
                "unknown parameter: --fail-on sets the CLI's exit code; an answer says its worst result in its"
                f" Verdict-Summary header (worst=fail); this route takes {known}"
            )
        elif name not in schema.fields:
            out[name] = f"unknown parameter{did_you_mean(_meant(name, list(schema.fields)))}; this route takes {known}"
        else:
            out[name] = _flat(value)
    return out


def _plain(name: str) -> str:
    return name.replace("-", "").replace("_", "").lower()


#: The CLI's and kubectl's words for a parameter another name would be taken for (trial 172: ``names`` was told
#: ``name``, the dump's file name, and the objects went unfiltered): plain spelling -> the parameter.
_ALIASES = {
    "names": "objectName",
    "object": "objectName",
    "objects": "objectName",
    "selector": "labelSelector",
    "l": "labelSelector",
    "labels": "labelSelector",
    "kinds": "kind",
    "n": "namespace",
    "namespaces": "namespace",
    "rules": "rule",
    "r": "rule",
    "severity": "minSeverity",
    "f": "format",
    "output": "format",
    "o": "format",
}


def _meant(name: str, known: list[str]) -> str | None:
    """The parameter ``name`` likely stood for: the one it spells in another case or with dashes or underscores
    (``min_severity``, ``labelselector``: the CLI's and kubectl's spellings), the one a CLI or kubectl word stands for
    (``_ALIASES``), else the nearest spelling (trial 169)."""
    alias = _ALIASES.get(_plain(name))
    if alias in known:
        return alias
    same = [k for k in known if _plain(k) == _plain(name)]
    if same:
        return same[0]
    plain = {_plain(k): k for k in known}
    near = nearest(_plain(name), list(plain))
    return plain[near] if near else None


@functools.cache
def _instance(schema_cls: type[Schema]) -> Schema:
    """One instance of each query schema (making one deep-copies its fields: 1-2 ms a request). ``load`` keeps
    no state on the instance, so a worker's threads share it."""
    return schema_cls()


def parse_query(schema_cls: type[Schema]) -> dict[str, Any]:
    """The request's query loaded through ``schema_cls``. Raises a 400 ``invalid-query`` ``Problem``
    naming each parameter and its reason (unknown parameters are refused too)."""
    schema = _instance(schema_cls)
    try:
        loaded: dict[str, Any] = schema.load(query_dict(schema, request.args))
    except ValidationError as exc:
        messages = exc.messages if isinstance(exc.messages, dict) else {"_query": exc.messages}
        reasons = _reasons(schema, request.args, messages)
        errors = [{"parameter": k, "reason": v} for k, v in sorted(reasons.items())]
        raise Problem("invalid-query", "; ".join(f"{e['parameter']}: {e['reason']}" for e in errors), errors=errors) from None
    return loaded
