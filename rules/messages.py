"""``{name}`` substitution in messages, remediations and ``format`` references.

Safe by construction: a placeholder names a built-in, a binding, a var or a context, optionally with
``.member`` lookups into mappings (``{op.daemonset}``); no format spec, no attribute access, never
``str.format`` on dump data. A template is split into its literal text and placeholders once (a
result's message is rendered for every object judged).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from .errors import EvaluationError, UnknownName
from .model import PLACEHOLDER
from .operators import show

#: A template as pieces: literal text, or (name, members, the placeholder as written).
Piece = str | tuple[str, tuple[str, ...], str]


@functools.lru_cache(maxsize=4096)
def pieces(template: str) -> tuple[Piece, ...]:
    """``template`` split into literal text and placeholders, in order."""
    out: list[Piece] = []
    at = 0
    for m in PLACEHOLDER.finditer(template):
        if m.start() > at:
            out.append(template[at : m.start()])
        out.append((m.group(1), tuple(filter(None, m.group(2).split("."))), m.group(0)))
        at = m.end()
    if at < len(template):
        out.append(template[at:])
    return tuple(out)


def substitute(template: str, scope: Any, extra: Mapping[str, Any]) -> str:
    """Replace ``{name}`` with the value of a name in ``extra``, else ``scope.var(name)`` (a built-in,
    binding, var or context), and ``{name.a.b}`` with a member of it (mapping keys only); an unknown name
    is left as written, one that cannot be computed says so in its place. A context joined on a binding of
    ``extra`` (a forEach item) is read with it."""
    parts = pieces(template)
    if len(parts) == 1 and isinstance(parts[0], str):
        return parts[0]
    if extra:
        scope = scope.child(scope.root, dict(extra))
    out = []
    for piece in parts:
        if isinstance(piece, str):
            out.append(piece)
            continue
        name, members, written = piece
        if name in extra:
            value = extra[name]
        else:
            try:
                value = scope.var(name)
            except UnknownName:
                out.append(written)
                continue
            except EvaluationError as exc:
                # trial 167: a var that could not be computed was left as "{name}", read as a template's slip
                out.append(f"<{name}: could not evaluate: {exc}>")
                continue
        for member in members:
            value = lookup(value, member)
        out.append(show(value))
    return "".join(out)


@functools.lru_cache(maxsize=4096)
def has_placeholders(template: str) -> bool:
    """True when ``template`` holds at least one ``{name}``."""
    return any(not isinstance(p, str) for p in pieces(template))


def lookup(container: Any, key: Any) -> Any:
    """``container[key]`` for a mapping (a non-string key also as its string form) or a list (an int index
    in range), else None."""
    if isinstance(container, dict):
        if isinstance(key, (dict, list)):
            # a key read from the dump may be any value (trial 158: a label whose value is a list made the rule an
            # internal error): no mapping has such a key
            return None
        if key in container:
            return container[key]
        return container.get(str(key))
    if isinstance(container, list) and isinstance(key, int) and not isinstance(key, bool):
        return container[key] if -len(container) <= key < len(container) else None
    return None


def lookup_steps(value: Any, steps: tuple[Any, ...] | list[Any]) -> Any:
    """``value`` looked up one step at a time (``lookup``), as a reference's key reads it."""
    for step in steps:
        value = lookup(value, step)
    return value
