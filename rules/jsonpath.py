"""RFC 9535 JSONPath, compiled once at policy load (``jsonpath-rfc9535``).

kubectl's JSONPath dialect (``{.metadata.labels.a\\.b}``) is refused with the RFC 9535 rewrite as a
hint, because a policy written in it would silently select nothing.

Evaluation is on the hot path (every rule reads a few paths of every object), so a path made only of
name, index and wildcard selectors and simple filters (``[?@.kind == 'DaemonSet']``; child or descendant
segments: nearly every path a policy holds) is compiled into a plain Python function; any other path
(slices, functions, other comparisons) is left to the library's ``findall``. Both select the same values
in the same order (tests/test_jsonpath.py holds this against the library's own ``finditer`` on generated
documents).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import jsonpath_rfc9535 as rfc9535
import regex
from iregexp_check import check as _iregexp_check
from jsonpath_rfc9535.functions import Match as _Match
from jsonpath_rfc9535.functions import Search as _Search
from jsonpath_rfc9535.functions import map_re as _map_re

from .errors import quoted
from .memo import IdentityMemo

try:  # the compiled query's segments are plain tuples tagged with these constants
    from jsonpath_rfc9535 import _ast as _rfc_ast
    from jsonpath_rfc9535._nothing import NOTHING as _NOTHING
    from jsonpath_rfc9535._resolver import Resolver_ as _Resolver
except ImportError:  # pragma: no cover - a library without them: every path goes through findall
    _rfc_ast = None  # type: ignore[assignment]

Finder = Callable[[Any], list[Any]]

#: A quantifier, ``{10}``, ``{6,10}``, ``{2,}``, and the numbers in it (RFC 9485's digits are ASCII ones).
_QUANTIFIER, _DIGITS = re.compile(r"\{[0-9]+(?:,[0-9]*)?\}"), re.compile(r"[0-9]+")
#: The most characters a pattern may stand for once its counted repeats are written out (``(a{10}){20}``: 200). The
#: regex engine expands them: ((a{1000}){1000}){1000} took 3.8 GB to compile (trial 166); 1,000 take 0.3 MB.
MAX_PATTERN_SIZE = 1000


#: The longest pattern, and the deepest nesting of its groups, checked or compiled (as a policy's regex: 1,000).
MAX_PATTERN_LENGTH, MAX_PATTERN_DEPTH = 1000, 32


def pattern_bounds(pattern: str) -> str:
    """Why ``pattern`` is too large to check or compile ("" when it is not): longer than ``MAX_PATTERN_LENGTH``,
    groups nested deeper than ``MAX_PATTERN_DEPTH``, or standing for more than ``MAX_PATTERN_SIZE`` characters."""
    if len(pattern) > MAX_PATTERN_LENGTH:
        return f"longer than {MAX_PATTERN_LENGTH:,} characters"
    depth = deepest = 0
    for char in pattern.replace("\\\\", "").replace("\\(", "").replace("\\)", ""):
        depth += (char == "(") - (char == ")")
        deepest = max(deepest, depth)
    if deepest > MAX_PATTERN_DEPTH:
        return f"its groups nested {deepest} deep (at most {MAX_PATTERN_DEPTH})"
    if pattern_size(pattern) > MAX_PATTERN_SIZE:
        return (
            f"standing for more than {MAX_PATTERN_SIZE:,} characters once its counted repeats are written out, which the"
            " regex engine does"
        )
    return ""


def pattern_size(pattern: str) -> int:
    """How many characters ``pattern`` stands for with each counted repeat written out (an escape one, a class as
    many as it is long, a repeat its greatest count, the alternatives of a group added up), as the regex engine
    expands it; stops counting past ``MAX_PATTERN_SIZE``."""
    groups: list[list[int]] = [[]]
    at = 0
    while at < len(pattern):
        char = pattern[at]
        if char == "\\":
            end = pattern.find("}", at) + 1 if pattern[at + 1 : at + 3] in ("p{", "P{") else at + 2
            groups[-1].append(1)
            at = max(end, at + 2)
            continue
        if char == "[":
            end = at + 1 + (pattern[at + 1 : at + 2] == "]")
            while end < len(pattern) and pattern[end] != "]":
                end += 2 if pattern[end] == "\\" else 1
            groups[-1].append(max(end - at - 1, 1))  # a class compiles to its members (trial 167: [a-ba-b...]{1000}: 2 GB)
            at = end + 1
            continue
        counted = _QUANTIFIER.match(pattern, at) if char == "{" else None
        if counted and groups[-1]:
            numbers = [int(n) for n in _DIGITS.findall(counted[0])]
            groups[-1][-1] *= max(numbers)
            at = counted.end()
        elif char == "(":
            groups.append([])
            at += 1
        elif char == ")" and len(groups) > 1:
            inner = groups.pop()
            groups[-1].append(max(sum(inner), 1))
            at += 1
        else:
            if char not in "*+?|":
                groups[-1].append(1)
            at += 1
        if groups[-1] and groups[-1][-1] > MAX_PATTERN_SIZE:
            return MAX_PATTERN_SIZE + 1
    total = sum(sum(g) for g in groups)
    return min(total, MAX_PATTERN_SIZE + 1)


@functools.lru_cache(maxsize=256)
def iregexp(pattern: str) -> Any:
    """``pattern`` compiled as RFC 9535's match() and search() compile it, or None when it is no I-Regexp (RFC
    9485), for which they are false whatever the value.

    jsonpath-rfc9535 checks a pattern with iregexp-check 0.1.4, which refuses a quantifier of two digits or more
    (``[0-9a-f]{10}``, ``{6,10}``: RFC 9485's QuantExact is ``1*%x30-39``), so such a match() matched nothing;
    the same bug in the author's JavaScript checker: https://github.com/jg-rp/json-p3/issues/40. The digits do not
    change whether the rest is I-Regexp, so a pattern the checker refuses is checked again with each quantifier's
    numbers as one digit."""
    if pattern_bounds(pattern):  # before the checker, which crashed the process on 20,000 nested groups (trial 167)
        return None
    try:
        valid = _iregexp_check(pattern) or _iregexp_check(_QUANTIFIER.sub(lambda q: _DIGITS.sub("1", q[0]), pattern))
    except (ValueError, UnicodeError):  # a lone surrogate of a dump's pattern
        return None
    if not valid:
        return None
    try:
        # VERSION0: a class's && and -- are characters, as RFC 9485 reads them (VERSION1, the library's, makes them set
        # operations: [a&&b] matched nothing; trial 166). ^ and $ anchor, as the library has them, where RFC 9485 reads
        # characters: a pattern written 'SHARED$' means the end.
        return regex.compile(_map_re(pattern), regex.VERSION0)
    except regex.error:  # {3,2}: I-Regexp's grammar takes it, no regex engine does
        return None


#: The longest one match() or search() may take: a pattern that backtracks exponentially, ('(a|a)*$' took 33 s on 27
#: characters; trial 166), is given up, and the object's result is an error.
PATTERN_SECONDS = 0.25


#: The patterns given up on, each tried no more (trial 167: 0.25 s a call was 86 s over 500 containers, and a context
#: computed once per dump was computed again for every object); bounded, as the compiled patterns are.
_GAVE_UP: set[str] = set()
#: A value this short is matched without a timer (its cost, ~1.7 µs a call, is most of a short match's): 2^12 steps.
_UNTIMED_CHARS = 12


def _timed(name: str, pattern: str, string: str, run: Callable[..., Any]) -> bool:
    if pattern in _GAVE_UP:
        raise _given_up(name, pattern, "was given up on earlier")
    if len(string) <= _UNTIMED_CHARS:
        return run(string) is not None
    try:
        return run(string, timeout=PATTERN_SECONDS) is not None
    except TimeoutError:
        if len(_GAVE_UP) >= 256:
            _GAVE_UP.clear()
        _GAVE_UP.add(pattern)
        raise _given_up(name, pattern, f"gave up after {PATTERN_SECONDS} s on a value of {len(string):,} characters") from None


def _given_up(name: str, pattern: str, what: str) -> Exception:
    from .errors import EvaluationError

    return EvaluationError(
        f"{name}() of {quoted(pattern[:80])} {what}: the pattern can match a value in too many ways (exponential backtracking)"
    )


class _IRegexpMatch(_Match):
    """RFC 9535's match(): the whole string matches an I-Regexp (``iregexp``)."""

    def __call__(self, string: object, pattern: object) -> bool:
        compiled = iregexp(pattern) if isinstance(pattern, str) and isinstance(string, str) else None
        return compiled is not None and _timed("match", str(pattern), str(string), compiled.fullmatch)


class _IRegexpSearch(_Search):
    """RFC 9535's search(): some substring matches an I-Regexp (``iregexp``)."""

    def __call__(self, string: object, pattern: object) -> bool:
        compiled = iregexp(pattern) if isinstance(pattern, str) and isinstance(string, str) else None
        return compiled is not None and _timed("search", str(pattern), str(string), compiled.search)


#: The library's environment with match() and search() checking patterns by ``iregexp``.
_ENVIRONMENT = rfc9535.JSONPathEnvironment()
_ENVIRONMENT.functions["match"] = _IRegexpMatch()
_ENVIRONMENT.functions["search"] = _IRegexpSearch()


class PathError(ValueError):
    """A path that is not RFC 9535 JSONPath; ``reason`` says why, ``hint`` gives the RFC form if known."""

    def __init__(self, reason: str, hint: str = "") -> None:
        self.reason = reason
        self.hint = hint
        super().__init__(f"{reason}; did you mean {quoted(hint)}?" if hint else reason)


@dataclass(frozen=True, slots=True, eq=False)
class JsonPath:
    """A compiled path: ``text`` as written, ``query`` the compiled RFC 9535 query; ``find`` selects the
    values (the fast function of ``_fast_finder``, else the library's ``findall``) and ``plain`` says it has no
    descendant segment (selecting every value cannot go deeper than the path, so ``first`` need not stop
    early: only a descendant walk can meet a document nested past the recursion limit)."""

    text: str
    query: Any
    find: Finder = field(init=False, repr=False)
    plain: bool = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "find", _fast_finder(self.query) or self.query.findall)
        # No ".." anywhere (not even in a filter's query): selecting every value walks no deeper than the path.
        object.__setattr__(self, "plain", ".." not in self.text)

    def values(self, document: Any) -> list[Any]:
        """Every value the path selects in ``document`` (a list, possibly empty).

        Raises ``rules.errors.EvaluationError`` when the document is nested too deeply for the query."""
        try:
            return self.find(document)
        except rfc9535.JSONPathRecursionError as exc:
            from .errors import EvaluationError

            raise EvaluationError(f"{self.text}: document nested too deeply ({exc})") from None

    def located(self, document: Any) -> list[tuple[Any, str]]:
        """``(value, normalized path)`` for every selected node, e.g. ``(2, "$['status']['capacity']")``."""
        return [(node.value, node.path()) for node in self.query.finditer(document)]

    def first(self, document: Any, default: Any = None) -> Any:
        """The first selected value, or ``default`` when nothing is selected."""
        if self.plain:
            found = self.find(document)
            return found[0] if found else default
        for node in self.query.finditer(document):  # lazily: stops at the first value
            return node.value
        return default

    def __str__(self) -> str:
        return self.text


def _fast_finder(query: Any) -> Finder | None:
    """A function selecting what ``query.findall`` selects, in the same order, for a query of name, index,
    wildcard and simple filter selectors (``_filter``) only; None for any other query (slices, other filters)
    or an unknown library layout."""
    if _rfc_ast is None:
        return None
    steps: list[tuple[bool, tuple[tuple[int, Any], ...]]] = []
    try:
        for kind, _token, selectors in query.segments:
            if kind not in (_rfc_ast.CHILD_SEGMENT, _rfc_ast.DESCENDANT_SEGMENT):
                return None
            picks: list[tuple[int, Any]] = []
            for selector in selectors:
                tag = selector[0]
                if tag in (_rfc_ast.NAME_SELECTOR, _rfc_ast.INDEX_SELECTOR):
                    picks.append((tag, selector[2]))
                elif tag == _rfc_ast.WILDCARD_SELECTOR:
                    picks.append((tag, None))
                elif tag == _rfc_ast.FILTER_SELECTOR and (keep := _filter(selector[2])) is not None:
                    picks.append((tag, keep))
                else:
                    return None
            steps.append((kind == _rfc_ast.DESCENDANT_SEGMENT, tuple(picks)))
    except (TypeError, ValueError, AttributeError):  # pragma: no cover - another library layout
        return None
    names = [arg for descend, picks in steps for tag, arg in picks if tag == _rfc_ast.NAME_SELECTOR]
    if all(not descend and len(picks) == 1 and picks[0][0] == _rfc_ast.NAME_SELECTOR for descend, picks in steps):
        return _names_finder(tuple(names))
    return _general_finder(tuple(steps), query.env.max_recursion_depth)


def _names_finder(names: tuple[str, ...]) -> Finder:
    """``$.a.b['c']``: one dictionary hit a step."""

    def find(document: Any) -> list[Any]:
        node = document
        for name in names:
            if isinstance(node, dict) and name in node:
                node = node[name]
            else:
                return []
        return [node]

    return find


def _general_finder(steps: tuple[tuple[bool, tuple[tuple[int, Any], ...]], ...], max_depth: int) -> Finder:
    """Name, index and wildcard selectors in child and descendant segments, applied as RFC 9535 orders
    them: node by node, selector by selector; a descendant segment visits each node, then its children's
    descendants in document order (``_descendants``)."""
    name_tag, index_tag, filter_tag = _rfc_ast.NAME_SELECTOR, _rfc_ast.INDEX_SELECTOR, _rfc_ast.FILTER_SELECTOR
    # Per step: the names when every selector is a name (the usual case, one dict test per node), else the
    # selectors as they are.
    plans = [
        (descend, tuple(arg for _, arg in picks) if all(tag == name_tag for tag, _ in picks) else None, picks)
        for descend, picks in steps
    ]

    def find(document: Any) -> list[Any]:
        nodes = [document]
        for descend, names, picks in plans:
            if descend:
                if len(nodes) == 1:
                    nodes = _descendants(nodes[0], max_depth)
                else:
                    nodes = [d for node in nodes for d in _descendants(node, max_depth)]
            out: list[Any] = []
            if names is not None:
                for node in nodes:
                    if isinstance(node, dict):
                        for name in names:
                            if name in node:
                                out.append(node[name])
            else:
                for node in nodes:
                    for tag, arg in picks:
                        if tag == name_tag:
                            if isinstance(node, dict) and arg in node:
                                out.append(node[arg])
                        elif tag == index_tag:
                            if isinstance(node, list) and len(node) >= abs(arg) + int(arg >= 0):
                                out.append(node[arg])
                        elif tag == filter_tag:
                            if isinstance(node, dict):
                                out.extend(v for v in node.values() if arg(v))
                            elif isinstance(node, list):
                                out.extend(v for v in node if arg(v))
                        elif isinstance(node, dict):
                            out.extend(node.values())
                        elif isinstance(node, list):
                            out.extend(node)
            nodes = out
            if not nodes:
                break
        return nodes

    return find


def _filter(expr: Any) -> Callable[[Any], bool] | None:
    """A filter selector's test of one child (``@``), for the comparisons policies filter with: ``==`` and
    ``!=`` between literals and singular relative queries of names (``@.kind == 'DaemonSet'``), existence
    tests of such queries (``?@.resourceName``), and ``&&``, ``||``, ``!`` of those. Comparisons are the
    library's own (``Resolver_.eq``: ``true`` is not ``1``, an absent member is Nothing). None for any other
    expression (functions, ``<``, absolute or non-singular queries): the whole path is then the library's."""
    tag = expr[0]
    if tag in (_rfc_ast.AND_EXPR, _rfc_ast.OR_EXPR):
        left, right = _filter(expr[2]), _filter(expr[3])
        if left is None or right is None:
            return None
        if tag == _rfc_ast.AND_EXPR:
            return lambda v: left(v) and right(v)
        return lambda v: left(v) or right(v)
    if tag == _rfc_ast.NOT_EXPR:
        inner = _filter(expr[2])
        return None if inner is None else lambda v: not inner(v)
    if tag in (_rfc_ast.EQ_EXPR, _rfc_ast.NE_EXPR):
        left_of, right_of = _operand(expr[2]), _operand(expr[3])
        if left_of is None or right_of is None:
            return None
        eq = _Resolver().eq
        if tag == _rfc_ast.EQ_EXPR:
            return lambda v: eq(left_of(v), right_of(v))
        return lambda v: not eq(left_of(v), right_of(v))
    names = _singular_names(expr)
    if names is None:
        return None
    return lambda v: _member(v, names) is not _NOTHING


def _operand(expr: Any) -> Callable[[Any], Any] | None:
    """A comparison's side: a literal, or a singular relative query of names (its value, or Nothing)."""
    tag = expr[0]
    if tag == _rfc_ast.NULL_EXPR:
        return lambda v: None
    if tag in (_rfc_ast.BOOL_EXPR, _rfc_ast.STRING_EXPR, _rfc_ast.INT_EXPR, _rfc_ast.FLOAT_EXPR):
        value = expr[2]
        return lambda v: value
    names = _singular_names(expr)
    if names is None:
        return None
    return lambda v: _member(v, names)


def _singular_names(expr: Any) -> tuple[str, ...] | None:
    """The names of ``@.a.b['c']`` (child segments of one name each), else None."""
    if expr[0] != _rfc_ast.RELATIVE_QUERY_EXPR:
        return None
    names = []
    for kind, _token, selectors in expr[2]:
        if kind != _rfc_ast.CHILD_SEGMENT or len(selectors) != 1 or selectors[0][0] != _rfc_ast.NAME_SELECTOR:
            return None
        names.append(selectors[0][2])
    return tuple(names)


def _member(value: Any, names: tuple[str, ...]) -> Any:
    for name in names:
        if isinstance(value, dict) and name in value:
            value = value[name]
        else:
            return _NOTHING
    return value


# Several rules walk the same part of an object (a Pod's spec for spec..nodeName, spec..nodeSelector and
# spec..containers): the walk is done once per node object and kept while it is read again.
_DESCENDANTS: IdentityMemo[list[Any]] = IdentityMemo(8192)


def _descendants(node: Any, max_depth: int) -> list[Any]:
    """``node`` and every container below it, in the order RFC 9535's descendant segment visits them (the
    node, then each child's descendants in document order; only string keys' values), raising
    ``JSONPathRecursionError`` past ``max_depth`` levels, as the library does."""
    if not isinstance(node, (dict, list)):
        return [node]

    def visit(node: Any, depth: int, out: list[Any]) -> None:
        if depth > max_depth:
            raise rfc9535.JSONPathRecursionError("recursion limit reached")
        out.append(node)
        if isinstance(node, dict):
            for k, v in node.items():
                if isinstance(v, (list, dict)) and isinstance(k, str):
                    visit(v, depth + 1, out)
        else:
            for v in node:
                if isinstance(v, (dict, list)):
                    visit(v, depth + 1, out)

    def build() -> list[Any]:
        out: list[Any] = []
        visit(node, 1, out)
        return out

    return _DESCENDANTS.one(build, node)


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
                out.append(member(key))
            continue
        i += 1
    return "".join(out)


def member(key: str) -> str:
    """The RFC 9535 selector of a member by name, quoted: ``['nvidia.com/gpu.workload.config']``."""
    return "['" + key.replace("\\", "\\\\").replace("'", "\\'") + "']"


#: kubectl's JSONPath template words: ``{range ...}`` ... ``{end}``.
_TEMPLATE = re.compile(r"\{\s*(?:range\s|end\s*\})")
#: A rewritten kubectl path that reads a List's items: ``$.items[*]`` and what follows.
_LIST_ITEMS = re.compile(r"^\$\.items(?:\[\*\]|\[\d+\]|\.\*|(?=$))(.*)$")


def compile_path(text: str, objects: bool = True) -> JsonPath:
    """Compile an RFC 9535 path.

    Raises ``PathError`` for anything else, with the position from the parser, and with the RFC 9535
    rewrite as a hint when the text is in kubectl's dialect (braces, a leading dot, ``\\.`` escapes). ``objects``:
    the path reads Kubernetes objects (not a data table), whose labels' values are strings.
    """
    if not isinstance(text, str) or not text.strip():
        raise PathError("a JSONPath must be a non-empty string starting with '$'")
    stripped = text.strip()
    # A "\." inside a quoted string (a filter's regex: search(@.name, 'nvidia\\.com')) is RFC 9535's own; the
    # dialect is said only when its rewrite changes the text (a pack's filter regex met "did you mean" that same
    # path).
    syntax = _unquoted(stripped)
    if _TEMPLATE.search(syntax):  # outside quoted strings (trial 128: a filter's string '{{ range .x }}' is data)
        # kubectl get -o jsonpath='{range .items[*]}{.metadata.name}{"\n"}{end}' (trial 126: its hint was
        # "$.metadata['name}{end']"): a template prints many objects; a rule's path reads one. A range over a List's
        # items starts at each object; over a list inside it (.status.conditions[*]), at that list's items.
        ranged = re.search(r"\{\s*range\s+([^}]*)\}", stripped)
        over = ranged.group(1).strip() if ranged else ""
        prefix = "" if not over or over.startswith(".items") else over
        fields = [f for f in re.findall(r"\{(\.[^{}]*)\}", stripped) if f.strip() != over]
        raise PathError(
            f"{quoted(text)} is a kubectl JSONPath template (range ... end), not a path: a rule judges each object of a"
            " List on its own, and its path starts at the object",
            kubectl_to_rfc9535("{" + prefix + fields[0] + "}") if fields else "",
        )
    kubectl_like = stripped.startswith(("{", ".")) or "\\." in syntax or _whole_filter_parenthesised(syntax)
    if kubectl_like and (hint := kubectl_to_rfc9535(stripped)) != stripped:
        reason = f"{quoted(text)} is kubectl JSONPath, not RFC 9535 JSONPath"
        # kubectl get -o jsonpath='{.items[*].x}' reads a List; a rule's path reads each of its objects (trial 123: the
        # hint '$.items[*].metadata.name' loaded, and selected nothing on any object)
        listed = _LIST_ITEMS.match(hint)
        if listed:
            hint = "$" + listed.group(1)
            reason += " (a rule judges each object of a List on its own: its paths start at the object, not at .items)"
        raise PathError(reason, hint)
    descents = syntax.count("..")  # outside quoted member names (those in a filter's queries count too)
    if descents > 1:
        raise PathError(
            f"JSONPath {quoted(stripped)} has {descents} descendant segments ('..'): each one multiplies the values it"
            " visits by the size of the object (five visit it to the fifth power: minutes and gigabytes on a small"
            " deep object); use at most one"
        )
    try:
        query = _ENVIRONMENT.compile(stripped)
    except rfc9535.JSONPathError as exc:
        first = str(exc.args[0] if exc.args else exc).splitlines()[0]
        token = getattr(exc, "token", None)
        # The parser's token holds the 0-based offset of the problem; say it as a 1-based column.
        at = f" at column {token[1] + 1}" if isinstance(token, tuple) and len(token) > 1 else ""
        if first.startswith("unexpected end of query"):  # the parser places its end token inside the text
            at = f" at column {len(stripped) + 1}"
        if (word := re.fullmatch(r"unexpected '(and|or)'", first)) or (word := re.search(r"[?(!&|]\s*(not)\s", syntax)):
            # (trial 165: "unexpected 'and'" alone; '==' for '=' was already said by the parser)
            first = f"{first}, did you mean {quoted(_LOGICAL[word[1]])}?"
        if first.startswith("invalid escape sequence") and (escape := _bad_escape(stripped)):
            # (trial 165: a regex's \. in a match() pattern was placed at its string's start, with no word on it)
            at, first = f" at column {escape[0] + 1}", f"{first} {escape[1]}"
        raise PathError(f"invalid JSONPath {quoted(stripped)}{at}: {first}", _bracket_hint(stripped)) from None
    for name, token, pattern in _regex_literals(query.segments):
        if "\b" in pattern:  # (trial 165: '\\b' meant as a word boundary loaded, and matched nothing)
            raise PathError(
                f"JSONPath {quoted(stripped)}: the {name}() pattern holds a backspace (\\b): in a JSONPath string that"
                " is RFC 9535's escape of the control character, not a regex's word boundary, which I-Regexp (RFC"
                " 9485) has none of (match() is anchored at both ends; search() finds the pattern anywhere)"
            )
        if too_large := pattern_bounds(pattern):
            raise PathError(
                f"JSONPath {quoted(stripped[:120])}: the {name}() pattern {quoted(pattern[:80])} is too large to check"
                f" and compile: {too_large} (write a smaller count, or + for 'one or more')"
            )
        if (backtracks := _backtracks(pattern)) and iregexp(pattern) is not None:
            raise PathError(f"JSONPath {quoted(stripped)}: the {name}() pattern: {backtracks}")
        if iregexp(pattern) is None:
            at = f" at column {token[1] + 1}" if isinstance(token, tuple) and len(token) > 1 else ""
            raise PathError(
                f"JSONPath {quoted(stripped)}: the {name}() pattern {quoted(pattern)}{at} is not an I-Regexp (RFC 9485),"
                f" so {name}() is false for every value (RFC 9535); {_iregexp_hint(pattern)}"
            )
    for what, token, literal in _typed_comparisons(query.segments) if objects and _rfc_ast is not None else ():
        at = f" at column {token[1] + 1}" if isinstance(token, tuple) and len(token) > 1 else ""
        text = str(literal).lower() if isinstance(literal, bool) else str(literal)
        raise PathError(
            f"JSONPath {quoted(stripped)} compares {'an' if what[0] == 'a' else 'a'} {what}'s value with {text}{at}, which"
            f" it never equals: {what}"
            f" values are strings; write '{text}' (quoted)"
        )
    return JsonPath(stripped, query)


#: RFC 9535's logical operators for the words written for them.
_LOGICAL = {"and": "&&", "or": "||", "not": "!"}
#: The characters RFC 9535 takes after a backslash in a string literal (and the quotes).
_ESCAPED = set("bfnrtu/\\'\"")
#: What to write in I-Regexp for a regex's escape that is no JSONPath one.
_FOR_ESCAPE = {
    **{c: f"[{c}]" for c in ".-*+?()|{}$"},
    "d": "[0-9]",
    "D": "[^0-9]",
    "w": "[A-Za-z0-9_]",
    "W": "[^A-Za-z0-9_]",
    "s": "[ \\t\\n\\r]",
    "S": "[^ \\t\\n\\r]",
    "[": "\\\\[",
    "]": "\\\\]",
    "^": "\\\\^",
}


def _bad_escape(text: str) -> tuple[int, str] | None:
    """(0-based offset, what to write) of the first backslash in a quoted string of ``text`` that starts no RFC 9535
    escape: a regex's ``\\.`` in a match() pattern, most often."""
    at, quote = 0, ""
    while at < len(text):
        char = text[at]
        if quote and char == "\\":
            following = text[at + 1 : at + 2]
            if following not in _ESCAPED:
                said = (
                    f"(\\{following}: a backslash in a JSONPath string starts an escape of RFC 9535's, \\\\ \\' \\n \\uXXXX...;"
                )
                if text[:at].rstrip().endswith(("['", '["')) or re.search(r"\[\s*['\"][^'\"]*$", text[:at]):
                    return at, f"{said} a member name needs no other: write {following} as it is)"
                if following in "pP":  # (trial 167: \p{Lu} was said to be none of I-Regexp's)
                    return at, f"{said} for a regex's Unicode class write \\\\{following}{{...}}, its backslash doubled)"
                if following in _FOR_ESCAPE:
                    return at, f"{said} for a regex's \\{following} write {_FOR_ESCAPE[following]})"
                return at, f"{said} I-Regexp (RFC 9485) has no \\{following})"
            at += 2
            continue
        if quote and char == quote:
            quote = ""
        elif not quote and char in "'\"":
            quote = char
        at += 1
    return None


#: Kubernetes' maps of string to string whose values a policy compares: a label's or an annotation's value is a string.
_STRING_MAPS = {"labels": "label", "annotations": "annotation"}


def _leading(segments: Any) -> tuple[list[str], bool]:
    """The member names a query's segments start with (single name selectors in child segments), and whether they are
    all of it."""
    names: list[str] = []
    for kind, _token, selectors in segments if _rfc_ast is not None else ():
        if kind != _rfc_ast.CHILD_SEGMENT or len(selectors) != 1 or selectors[0][0] != _rfc_ast.NAME_SELECTOR:
            return names, False
        names.append(selectors[0][2])
    return names, _rfc_ast is not None


def _names(segments: Any) -> list[str] | None:
    """The member names of a query made of single name selectors in child segments, else None."""
    names, whole = _leading(segments)
    return names if whole else None


def leading_names(path: JsonPath) -> list[str]:
    """The member names a path starts with, up to its first segment that is not one name (``$.metadata.labels[*]``:
    metadata, labels)."""
    return _leading(path.query.segments)[0]


def string_map(path: JsonPath) -> tuple[str, bool]:
    """("label" or "annotation", whether the path ends at the map itself) for a path of names that selects a label's
    or an annotation's value (``$.metadata.labels['nvidia.com/gpu.present']``) or the map (``$.metadata.labels``);
    ("", False) for any other path."""
    names = _names(path.query.segments)
    if names and names[-1] in _STRING_MAPS:
        return _STRING_MAPS[names[-1]], True
    if names and len(names) >= 2 and names[-2] in _STRING_MAPS:
        return _STRING_MAPS[names[-2]], False
    return "", False


def typed_against_text(what: str, value: Any) -> str:
    """Why comparing a ``what`` value (a label's: always a string) with ``value`` never holds, when YAML read it as a
    boolean or a number (``equals: true``); "" for a string or anything else."""
    if isinstance(value, bool):
        text, word = str(value).lower(), "a boolean"
    elif isinstance(value, (int, float)):
        text, word = str(value), "a number"
    else:
        return ""
    return f'{what} values are strings, never {word}: write "{text}" (quoted); unquoted, YAML reads {text} as {word}'


def _nodes(node: Any) -> Iterator[tuple[Any, ...]]:
    """Every node of a compiled query's tree (its segments, selectors and filter expressions are tuples), depth first."""
    if isinstance(node, tuple):
        yield node
        for part in node:
            yield from _nodes(part)


def _typed_comparisons(segments: Any) -> list[tuple[str, Any, Any]]:
    """``(label or annotation, token, literal)`` of every ``==``/``!=`` in a compiled query between a label's or an
    annotation's value and a boolean or a number (``[?@.metadata.labels['x'] == true]``: never true)."""
    found: list[tuple[str, Any, Any]] = []
    for node in _nodes(segments):
        if len(node) == 4 and node[0] in (_rfc_ast.EQ_EXPR, _rfc_ast.NE_EXPR):
            for query, literal in ((node[2], node[3]), (node[3], node[2])):
                if (
                    isinstance(query, tuple)
                    and query[0] in (_rfc_ast.RELATIVE_QUERY_EXPR, _rfc_ast.ABSOLUTE_QUERY_EXPR)
                    and isinstance(literal, tuple)
                    and literal[0] in (_rfc_ast.BOOL_EXPR, _rfc_ast.INT_EXPR, _rfc_ast.FLOAT_EXPR)
                    and (names := _names(query[2]))
                    and len(names) >= 2
                    and names[-2] in _STRING_MAPS
                ):
                    found.append((_STRING_MAPS[names[-2]], literal[1], literal[2]))
    return found


def _backtracks(pattern: str) -> str:
    """Why ``pattern`` would backtrack exponentially ((a|a)*, (a+)+: ``operators.regex_problem``, by Python's own
    parser of it), or "" (also for one Python's parser does not read, \\p{Lu})."""
    from .operators import regex_problem

    problem = regex_problem(pattern)
    return problem if " repeats a" in problem else ""


def _regex_literals(segments: Any) -> list[tuple[str, Any, str]]:
    """``(function, token, pattern)`` of every match() and search() in a compiled query whose pattern is a string
    literal (one read from the document is judged as it is read)."""
    return [
        (node[2], node[3][1][1], node[3][1][2])
        for node in _nodes(segments)
        if _rfc_ast is not None
        and len(node) == 4
        and node[0] == _rfc_ast.FUNCTION_EXPR
        and node[2] in ("match", "search")
        and len(node[3]) == 2
        and node[3][1][0] == _rfc_ast.STRING_EXPR
    ]


def _iregexp_hint(pattern: str) -> str:
    """How to say ``pattern`` in I-Regexp, for its usual departures from it."""
    if shorthand := re.search(r"\\([dwsDWS])", pattern):
        return f"write {_FOR_ESCAPE[shorthand[1]]} for \\{shorthand[1]}"
    if "(?" in pattern:
        return "I-Regexp has no (?...) groups or flags: write (...), and a letter of either case as [Aa]"
    if re.search(r"\{,\d", pattern):
        return "write {0,n} for {,n}"
    if re.search(r"[*+?}]\?", pattern):
        return "I-Regexp has no lazy quantifiers (*?, +?): the whole match is the same without the ?"
    if re.search(r"\\[bBAzZ]|\\[1-9]", pattern):
        return "I-Regexp has no anchors (\\b, \\A) nor back-references: match() is anchored at both ends, search() is not"
    if (bounds := re.search(r"\{(\d+),(\d+)\}", pattern)) and int(bounds[1]) > int(bounds[2]):
        return f"its quantifier {bounds[0]} asks at least {bounds[1]} and at most {bounds[2]}"
    return "RFC 9485 section 3 gives its syntax: characters, classes [...], groups (...), | and quantifiers"


def _whole_filter_parenthesised(syntax: str) -> bool:
    """Whether a filter selector of ``syntax`` (quoted strings removed) is kubectl's ``[?(...)]``: the parenthesis
    after ``?`` closes at the end of the filter. A group that only starts it, ``[?(@.a || @.b) && @.c]``, is RFC
    9535's own grouping (trial 113's pack paths were refused with a "did you mean" that did not parse)."""
    at = syntax.find("?(")
    while at != -1:
        depth, end = 0, at + 1
        while end < len(syntax):
            depth += {"(": 1, ")": -1}.get(syntax[end], 0)
            if depth == 0:
                break
            end += 1
        if syntax[end + 1 :].lstrip()[:1] in ("]", ","):
            return True
        at = syntax.find("?(", at + 2)
    return False


def _unquoted(text: str) -> str:
    """``text`` without its quoted strings (member names, a filter's literals), for looking at its syntax."""
    out, at, quote = [], 0, ""
    while at < len(text):
        char = text[at]
        if quote:
            if char == "\\":
                at += 1
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        else:
            out.append(char)
        at += 1
    return "".join(out)


# Kubernetes string maps whose keys usually hold dots and slashes (label keys, resource names).
_KEYED_MAP = re.compile(
    r"^(?P<head>.*\.(?:labels|annotations|allocatable|capacity|limits|requests|nodeSelector"
    r"|matchLabels|data))\.(?P<key>[^\[\]']+)(?P<tail>(?:\[.*)?)$"
)


#: A member name in brackets without quotes: ``[nvidia.com/gpu]`` (kubectl's JSONPath takes it, RFC 9535 does not).
_UNQUOTED = re.compile(r"\[(?P<key>[A-Za-z_][^\[\]'\"?*:,()]*)\]")
#: The same with its closing bracket missing, at the end of the path: ``$.metadata.labels[team``.
_UNCLOSED = re.compile(r"\[(?P<key>[A-Za-z_][^\[\]'\"?*:,()]*)$")


def _bracket_hint(text: str) -> str:
    """``$.metadata.labels.nvidia.com/gpu.count`` -> ``$.metadata.labels['nvidia.com/gpu.count']``: the
    usual mistake of a dotted key in a Kubernetes string map, and ``$.status.allocatable[nvidia.com/gpu]`` ->
    ``$.status.allocatable['nvidia.com/gpu']`` (a member name in brackets without quotes, or with no closing
    bracket), ``metadata.name`` -> ``$.metadata.name`` (a path starts at the root); "" when no such rewrite
    compiles."""
    m = _KEYED_MAP.match(text)
    if m and any(c in m["key"] for c in "./-"):
        hint = f"{m['head']}['{m['key']}']{m['tail']}"
    elif _UNQUOTED.search(text):
        hint = _UNQUOTED.sub(lambda u: f"['{u['key']}']", text)
    elif _UNCLOSED.search(text):  # trial 47: "unexpected token" alone
        hint = _UNCLOSED.sub(lambda u: f"['{u['key']}']", text)
    elif not text.startswith("$"):  # trial 47: "unexpected 'metadata'" for a path without its root
        hint = f"$.{text.lstrip('.')}"
    else:
        return ""
    try:
        _ENVIRONMENT.compile(hint)
    except rfc9535.JSONPathError:
        return ""
    return hint
