"""RFC 9535 JSONPath, compiled once at policy load (``jsonpath-rfc9535``).

kubectl's JSONPath dialect (``{.metadata.labels.a\\.b}``) is refused with the RFC 9535 rewrite as a
hint, because a policy written in it would silently select nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import jsonpath_rfc9535 as rfc9535

from .errors import quoted


class PathError(ValueError):
    """A path that is not RFC 9535 JSONPath; ``reason`` says why, ``hint`` gives the RFC form if known."""

    def __init__(self, reason: str, hint: str = "") -> None:
        self.reason = reason
        self.hint = hint
        super().__init__(f"{reason}; did you mean {quoted(hint)}?" if hint else reason)


@dataclass(frozen=True, slots=True, eq=False)
class JsonPath:
    """A compiled path: ``text`` as written, ``query`` the compiled RFC 9535 query."""

    text: str
    query: Any

    def values(self, document: Any) -> list[Any]:
        """Every value the path selects in ``document`` (a list, possibly empty).

        Raises ``rules.errors.EvaluationError`` when the document is nested too deeply for the query."""
        try:
            return [node.value for node in self.query.finditer(document)]
        except rfc9535.JSONPathRecursionError as exc:
            from .errors import EvaluationError

            raise EvaluationError(f"{self.text}: document nested too deeply ({exc})") from None

    def located(self, document: Any) -> list[tuple[Any, str]]:
        """``(value, normalized path)`` for every selected node, e.g. ``(2, "$['status']['capacity']")``."""
        return [(node.value, node.path()) for node in self.query.finditer(document)]

    def first(self, document: Any, default: Any = None) -> Any:
        """The first selected value, or ``default`` when nothing is selected."""
        for node in self.query.finditer(document):
            return node.value
        return default

    def __str__(self) -> str:
        return self.text


_SIMPLE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def kubectl_to_rfc9535(text: str) -> str:
    """Rewrite a kubectl-style path (``{.metadata.labels.a\\.b}``, ``.spec.x``) in RFC 9535 form
    (``$.metadata.labels['a.b']``). Best effort: filters and slices are copied through unchanged."""
    body = text.strip()
    if body.startswith("{") and body.endswith("}"):
        body = body[1:-1].strip()
    if body.startswith("$"):
        body = body[1:]
    out = ["$"]
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "[":
            depth, j = 0, i
            while j < len(body):
                if body[j] == "[":
                    depth += 1
                elif body[j] == "]":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            segment = body[i : j + 1]
            out.append(segment.replace("?(", "?").replace(")]", "]") if "?(" in segment else segment)
            i = j + 1
            continue
        if ch == ".":
            i += 1
            if i < len(body) and body[i] == ".":
                out.append("..")
                i += 1
            name = []
            while i < len(body) and body[i] not in ".[":
                if body[i] == "\\" and i + 1 < len(body):
                    name.append(body[i + 1])
                    i += 2
                    continue
                name.append(body[i])
                i += 1
            key = "".join(name)
            if not key:
                continue
            if key == "*" or _SIMPLE_NAME.match(key):
                out.append(("" if out[-1] == ".." else ".") + key)
            else:
                quoted = "'" + key.replace("\\", "\\\\").replace("'", "\\'") + "'"
                out.append(f"[{quoted}]")
            continue
        i += 1
    return "".join(out)


def compile_path(text: str) -> JsonPath:
    """Compile an RFC 9535 path.

    Raises ``PathError`` for anything else, with the position from the parser, and with the RFC 9535
    rewrite as a hint when the text is in kubectl's dialect (braces, a leading dot, ``\\.`` escapes).
    """
    if not isinstance(text, str) or not text.strip():
        raise PathError("a JSONPath must be a non-empty string starting with '$'")
    stripped = text.strip()
    kubectl_like = stripped.startswith(("{", ".")) or "\\." in stripped or "?(" in stripped
    if kubectl_like:
        hint = kubectl_to_rfc9535(stripped)
        raise PathError(f"{quoted(text)} is kubectl JSONPath, not RFC 9535 JSONPath", hint)
    try:
        query = rfc9535.compile(stripped)
    except rfc9535.JSONPathError as exc:
        first = str(exc.args[0] if exc.args else exc).splitlines()[0]
        token = getattr(exc, "token", None)
        # The parser's token holds the 0-based offset of the problem; say it as a 1-based column.
        at = f" at column {token[1] + 1}" if isinstance(token, tuple) and len(token) > 1 else ""
        raise PathError(f"invalid JSONPath {quoted(stripped)}{at}: {first}", _bracket_hint(stripped)) from None
    return JsonPath(stripped, query)


# Kubernetes string maps whose keys usually hold dots and slashes (label keys, resource names).
_KEYED_MAP = re.compile(
    r"^(?P<head>.*\.(?:labels|annotations|allocatable|capacity|limits|requests|nodeSelector"
    r"|matchLabels|data))\.(?P<key>[^\[\]']+)(?P<tail>(?:\[.*)?)$"
)


def _bracket_hint(text: str) -> str:
    """``$.metadata.labels.nvidia.com/gpu.count`` -> ``$.metadata.labels['nvidia.com/gpu.count']``: the
    usual mistake of a dotted key in a Kubernetes string map; "" when no such rewrite compiles."""
    m = _KEYED_MAP.match(text)
    if not m or not any(c in m["key"] for c in "./-"):
        return ""
    hint = f"{m['head']}['{m['key']}']{m['tail']}"
    try:
        rfc9535.compile(hint)
    except rfc9535.JSONPathError:
        return ""
    return hint
