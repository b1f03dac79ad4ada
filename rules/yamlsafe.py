"""Safe, fast YAML for untrusted dumps and policy files.

PyYAML's C safe loader (libyaml) composes each document into a node graph; before constructing Python
objects we walk that graph once and refuse what would exhaust memory or the stack:

- alias bombs ("billion laughs"): the size the document would have once every alias is expanded is
  computed in one pass with memoisation; more than ``MAX_EXPANDED_NODES`` is refused;
- absurd nesting deeper than ``MAX_DEPTH`` levels;
- recursive aliases.

The walk is iterative, so a deep document cannot overflow Python's stack here.
"""

from __future__ import annotations

import re
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from typing import Any

import yaml

try:  # pragma: no cover - which branch runs depends on the PyYAML build
    from yaml import CSafeLoader as _BaseLoader
except ImportError:  # pragma: no cover
    from yaml import SafeLoader as _BaseLoader  # type: ignore[assignment]


class _Loader(_BaseLoader):  # type: ignore[misc,valid-type]
    """The C safe loader without YAML 1.1's implicit timestamps: Kubernetes timestamps stay strings, as
    they are in the API's JSON."""

    yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
        for first, resolvers in _BaseLoader.yaml_implicit_resolvers.items()
    }


MAX_DEPTH = 100
MAX_EXPANDED_NODES = 2_000_000


class YamlRefused(ValueError):
    """A document was refused; ``line`` is 1-based (0 if unknown)."""

    def __init__(self, reason: str, line: int = 0) -> None:
        self.reason = reason
        self.line = line
        super().__init__(reason)


@dataclass(frozen=True, slots=True)
class YamlDocument:
    """One document: ``data`` (constructed Python value), ``number`` (1-based), ``line`` (1-based start),
    ``node`` (the composed node, for line lookups), or ``error`` when the document was refused/broken."""

    number: int
    line: int
    data: Any = None
    node: yaml.Node | None = None
    error: str = ""


def _check_node(root: yaml.Node) -> None:
    """Refuse alias bombs, recursion and deep nesting (iterative post-order walk)."""
    size: dict[int, int] = {}
    on_path: set[int] = set()
    stack: list[tuple[yaml.Node, int, bool]] = [(root, 1, False)]
    while stack:
        node, depth, done = stack.pop()
        key = id(node)
        if done:
            on_path.discard(key)
            total = 1
            for child in _children(node):
                total += size[id(child)]
            if total > MAX_EXPANDED_NODES:
                raise YamlRefused(
                    f"document expands to more than {MAX_EXPANDED_NODES:,} values once aliases are expanded (an alias bomb?)",
                    node.start_mark.line + 1,
                )
            size[key] = total
            continue
        if key in size:
            continue
        if key in on_path:
            raise YamlRefused("recursive alias", node.start_mark.line + 1)
        if depth > MAX_DEPTH:
            raise YamlRefused(f"nesting deeper than {MAX_DEPTH} levels", node.start_mark.line + 1)
        on_path.add(key)
        stack.append((node, depth, True))
        for child in _children(node):
            if id(child) not in size:
                stack.append((child, depth + 1, False))


def _children(node: yaml.Node) -> Iterator[yaml.Node]:
    if isinstance(node, yaml.SequenceNode):
        yield from node.value
    elif isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            yield k
            yield v


_DOCUMENT_START = re.compile(r"^---(?=[ \t\r\n]|$)", re.M)


def load_documents(text: str | bytes) -> Iterator[YamlDocument]:
    """Yield every document of a YAML stream, checked and constructed.

    A document that fails to parse or is refused becomes a ``YamlDocument`` with ``error`` set.
    libyaml cannot resynchronise after a syntax error, so reading resumes at the next ``---`` line at or
    after the error with the text before it blanked out (line numbers and document numbers stay true);
    without such a line the error is the last document. Empty documents (``---`` alone) are skipped.
    """
    first = 1
    resume_from = -1  # 0-based line of the `---` this pass starts at (-1: the start of the text)
    while True:
        stuck_at = yield from _load_pass(_blank_before(text, resume_from), first)
        if stuck_at is None or not isinstance(text, str):
            return
        number, error_line = stuck_at
        resume = _next_document_start(text, max(error_line, resume_from + 1))
        if resume is None:
            return
        first, resume_from = number + 1, resume


def _blank_before(text: str | bytes, line: int) -> str | bytes:
    """``text`` with its first ``line`` lines emptied (kept as newlines, so marks keep their line)."""
    if line <= 0 or not isinstance(text, str):
        return text
    cut = 0
    for _ in range(line):
        cut = text.index("\n", cut) + 1
    return "\n" * line + text[cut:]


def _next_document_start(text: str, line: int) -> int | None:
    """0-based line of the first ``---`` document marker at or after 0-based ``line``, or None."""
    for m in _DOCUMENT_START.finditer(text):
        at = text.count("\n", 0, m.start())
        if at >= line:
            return at
    return None


def _describe(exc: yaml.YAMLError) -> str:
    """PyYAML's message without its ``in "<unicode string>", line N, column M`` marks (the caller gives the
    place as file, document and line)."""
    if isinstance(exc, yaml.MarkedYAMLError):
        parts = [p for p in (exc.context, exc.problem) if p]
        if parts:
            return "; ".join(parts)
    return re.sub(r'\s*in "<[^>]*>", (?:line \d+, column \d+|position \d+)', "", str(exc)).strip()


def _load_pass(text: str | bytes, first: int) -> Generator[YamlDocument, None, tuple[int, int] | None]:
    """Yield the documents of ``text``, numbered from ``first``; return ``(number, 0-based line)`` of a
    syntax error that ended the pass, or None when the stream was read to its end."""
    loader = _Loader(text)
    number = first - 1
    try:
        while True:
            number += 1
            try:
                if not loader.check_node():
                    return None
                node = loader.get_node()
            except yaml.MarkedYAMLError as exc:
                mark = exc.problem_mark or exc.context_mark
                line = mark.line + 1 if mark else 0
                yield YamlDocument(number, line, error=f"YAML syntax error: {exc.problem or exc}")
                return (number, mark.line) if mark else None
            except yaml.YAMLError as exc:
                yield YamlDocument(number, 0, error=f"YAML error: {_describe(exc)}")
                return None
            except RecursionError:
                yield YamlDocument(number, 0, error=f"nesting deeper than {MAX_DEPTH} levels")
                return None
            if node is None:
                continue
            line = node.start_mark.line + 1
            try:
                _check_node(node)
                data = loader.construct_document(node)
            except YamlRefused as exc:
                yield YamlDocument(number, exc.line or line, error=exc.reason)
                continue
            except yaml.YAMLError as exc:
                yield YamlDocument(number, line, error=f"YAML error: {_describe(exc)}")
                continue
            yield YamlDocument(number, line, data=data, node=node)
    finally:
        loader.dispose()


def item_lines(node: yaml.Node | None, key: str = "items") -> list[int]:
    """1-based start lines of the entries of ``key`` (a sequence) in a mapping node, or of the node
    itself when it is a sequence; [] when the shape does not fit."""
    if isinstance(node, yaml.SequenceNode):
        return [child.start_mark.line + 1 for child in node.value]
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if isinstance(k, yaml.ScalarNode) and k.value == key and isinstance(v, yaml.SequenceNode):
                return [child.start_mark.line + 1 for child in v.value]
    return []


def node_line(node: yaml.Node | None, path: list[str | int]) -> int:
    """1-based line of the value at ``path`` (mapping keys and sequence indexes) below ``node``;
    the deepest line reached when the path does not exist fully; 0 without a node."""
    if node is None:
        return 0
    line = node.start_mark.line + 1
    for step in path:
        found = None
        if isinstance(node, yaml.MappingNode) and isinstance(step, str):
            for k, v in node.value:
                if isinstance(k, yaml.ScalarNode) and k.value == step:
                    found = v
                    line = k.start_mark.line + 1
                    break
        elif isinstance(node, yaml.SequenceNode) and isinstance(step, int) and 0 <= step < len(node.value):
            found = node.value[step]
            line = found.start_mark.line + 1
        if found is None:
            return line
        node = found
    return line
