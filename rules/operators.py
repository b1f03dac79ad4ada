"""The closed set of assertion operators, registered in one table (``OPERATORS``).

Each operator is a small object with the marshmallow field that validates its argument at load
(``field``), a ``scope`` saying what it looks at, and ``test`` doing the comparison:

- ``value``: tested against each selected value, then combined by the assertion's quantifier
  (``all`` by default, ``any``, ``none``);
- ``set``: tested once against the whole list of selected values (``count``, set relations, ``exists``);
- ``object``: tested against the object itself with the index at hand (``schedulable``; see
  ``rules/workloads.py``).

Arguments that name a value (``equals``, ``in``, ``gt``...) may be literals or references
(``{var: x}``, ``{data: t, key: ...}``, ``{context: c}``, ``{path: ...}``): the evaluator resolves them
before calling ``test``. Adding an operator touches this file (and its tests) only: one entry in
``OPERATORS``. Two optional fields let the evaluator do better than calling ``test`` value by value:
``lookup`` (the operator compares hashable keys, so values from a context or a data table are answered
from a set or a dict built once per dump, ``rules.joins``) and ``prepare`` (an object operator builds what
it needs from the index once, before evaluation is shared out to worker processes).

Operators must not mutate their subject or argument: a context's list is the same object for every
object judged. Work that depends only on the argument (member sets, compiled regexes, prefix tuples) is
done once per argument object.
"""

from __future__ import annotations

import difflib
import functools
import importlib
import re
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from marshmallow import fields

from .errors import quoted
from .limits import limit
from .memo import IdentityMemo
from .quantity import QuantityError, format_quantity, parse_quantity
from .schedule.matching import (
    Taint,
    Term,
    Toleration,
    compile_terms,
    filter_taints,
    first_untolerated,
    mapping,
    node_selector_of,
    required_terms_of,
    text,
    tolerations_of,
)


class OperatorError(ValueError):
    """An operator could not compare (e.g. a value that is not a quantity); the result becomes ``error``."""


def _any_literal(arg: Any) -> str:
    return ""


@dataclass(frozen=True, slots=True)
class Lookup:
    """How a value operator compares when it compares hashable keys: ``test(v, arg)`` is
    ``key(v) in {key(m) for m in _members(arg)}`` when ``many``, else ``key(v) == key(arg)``; negated when
    ``negate``. The evaluator then answers a quantifier over a long list, or picks a ``where``'s candidates,
    with dictionary hits instead of calling ``test`` once per value (``rules.joins``)."""

    key: Callable[[Any], Any]
    many: bool = False
    negate: bool = False


@dataclass(frozen=True, slots=True)
class Operator:
    """One operator: ``name`` (the key in an assertion), ``scope`` (value|set|object), ``field`` (its
    argument's marshmallow field), ``test(subject, argument) -> bool``, ``describe(argument) -> str``
    (the ``expected`` text of a failure), ``resolve`` (whether the argument may be a reference), and
    ``literal_problem(argument) -> str``: why a literal argument can never be compared ("" when it can),
    checked at load so that ``gt: lots`` is refused there rather than an ``error`` on every object judged (a
    reference is resolved, and its value checked, at evaluation); optionally ``lookup`` (a value operator that
    compares keys, see ``Lookup``), ``prepare(index)`` (an object operator's per-dump set-up, run once
    before the objects are evaluated), ``notes(index)`` (what that set-up could not read, for the report's
    notes) and ``index`` (a value operator whose test also reads the dump's index)."""

    name: str
    scope: str
    field: Callable[[], fields.Field]
    test: Callable[..., Any]  # (value or values, argument), or (scope, argument) for an object operator
    describe: Callable[[Any], str]
    resolve: bool = True
    doc: str = ""
    literal_problem: Callable[[Any], str] = _any_literal
    lookup: Lookup | None = None
    prepare: Callable[[Any], None] | None = None
    notes: Callable[[Any], list[str]] | None = None
    #: A value operator that reads the dump besides its value: ``test(value, argument, index)`` (``placeable``: the
    #: scheduler's model of the dump's Nodes); what it answers is never shared between dumps.
    index: bool = False


#: Lists longer than this are cut in messages (a context may hold thousands of pod names).
SHOW_ITEMS = 12


def show(value: Any) -> str:
    """Short human text for a value in messages: lists as ``[a, b]``, None as ``<none>``."""
    if value is None:
        return "<none>"
    kind = type(value)
    if kind is str:  # the common cases first: ``isinstance(x, Fraction)`` is an ABC check
        return value
    if kind is int or kind is float:
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple, set, frozenset)):
        items = list(value)
        more = f", … {len(items) - SHOW_ITEMS} more" if len(items) > SHOW_ITEMS else ""
        return "[" + ", ".join(show(v) for v in items[:SHOW_ITEMS]) + more + "]"
    if isinstance(value, dict):
        named = object_name(value)
        if named:
            return named
        return "{" + ", ".join(f"{k}: {show(v)}" for k, v in value.items()) + "}"
    if isinstance(value, Fraction):
        return format_quantity(value)
    return str(value)


def object_name(value: dict[str, Any]) -> str:
    """A Kubernetes object (a mapping with a kind and metadata.name) as messages name it: namespace/name, or its
    name when it has no namespace; "" for any other mapping (a pod a context holds whole is not written out)."""
    meta = value.get("metadata")
    if not isinstance(value.get("kind"), str) or not isinstance(meta, dict) or not isinstance(meta.get("name"), str):
        return ""
    namespace = meta.get("namespace")
    return f"{namespace}/{meta['name']}" if isinstance(namespace, str) and namespace else meta["name"]


def _members(arg: Any) -> list[Any]:
    """A set-like argument: a list as is, a mapping's keys, a scalar as a one-element list, None as []."""
    if arg is None:
        return []
    if isinstance(arg, dict):
        return list(arg)
    if isinstance(arg, (list, tuple, set, frozenset)):
        return list(arg)
    return [arg]


def _distinct(arg: Any) -> list[Any]:
    """The members of a set-like argument once each, in their order, for the text of what a result expected
    (a context of every node's allocatable keys holds cpu once a node)."""
    seen: set[Any] = set()
    out = []
    for m in _members(arg):
        try:
            if m in seen:
                continue
            seen.add(m)
        except TypeError:  # a mapping (a toleration): shown as it is
            pass
        out.append(m)
    return out


# A context or data list is the same object for every value and every object tested against it: its
# member set is built once.
_MEMBER_KEYS: IdentityMemo[frozenset[Any]] = IdentityMemo()
_FOLDED_KEYS: IdentityMemo[frozenset[Any]] = IdentityMemo()
_CONTAINERS = (list, dict, tuple, set, frozenset)


def _member_keys(arg: Any) -> frozenset[Any]:
    """The comparison keys of a set-like argument, built once per argument object."""
    if not isinstance(arg, _CONTAINERS):
        return frozenset(_key(m) for m in _members(arg))
    return _MEMBER_KEYS.one(lambda: frozenset(_key(m) for m in _members(arg)), arg)


def _key(value: Any) -> Any:
    """Hashable, comparison-friendly form: scalars compare as YAML wrote them, so numbers and numeric
    strings are not mixed up (``2 != "2"``) and neither are booleans and numbers (``true != 1``)."""
    if isinstance(value, dict):  # a mapping's key order does not matter (JSON objects are unordered)
        return (dict, tuple((k, _key(v)) for k, v in sorted(value.items(), key=lambda kv: repr(kv[0]))))
    if isinstance(value, list):
        return (list, tuple(_key(v) for v in value))
    if isinstance(value, bool):  # Python's True == 1 and False == 0; YAML's true is not the number 1
        return (bool, value)
    return value


def _quantity(value: Any) -> Fraction:
    try:
        return parse_quantity(value)
    except QuantityError as exc:
        raise OperatorError(str(exc)) from None


# Python's own regex parser and compiler: the parsed pattern shows the repeats that backtrack exponentially.
re_parser: Any = importlib.import_module("re._parser")
re_compiler: Any = importlib.import_module("re._compiler")
re_constants: Any = importlib.import_module("re._constants")

#: The longest regular expression a policy may hold.
MAX_REGEX_LENGTH = limit("VERDICT_MAX_REGEX_LENGTH")
# A group of one repeated atom that is itself repeated: (a+)+, ([a-z]*)*, (\w+){2,}. Python's backtracking
# engine takes exponential time on them against a string that almost matches. A group that starts with a
# separator, (-[a-z]+)*, is not flagged: each repetition must begin with it, so there is one way to match.
_NESTED_QUANTIFIER = re.compile(r"\((?:\?:)?(?:\\.|\[(?:\\.|[^\]\\])*\]|[^()\\\[|])[+*]\)(?:[+*]|\{\d*,)")


#: A character class, whose braces are characters (trial 166: x[{1-9}] was told to write {1,9}).
_CLASS = re.compile(r"\[\^?\]?(?:\\.|[^\]\\])*\]")
#: Braces meant as a repeat that Python's re reads as text: a space in them, or a dash for the comma ({2, 10}, {2-10}).
_LITERAL_BRACES = re.compile(r"(?<!\\)\{(?=[^}]*[ -])(?: *\d+ *, *\d* *| *\d+ *- *\d+ *)\}")


def regex_problem(pattern: str) -> str:
    """Why ``pattern`` is refused ("" when it is fine): too long, nested quantifiers, or not a regex."""
    if len(pattern) > MAX_REGEX_LENGTH:
        return f"regular expression of {len(pattern):,} characters (at most {MAX_REGEX_LENGTH:,})"
    nested = _NESTED_QUANTIFIER.search(pattern)
    if nested:
        return (
            f"regular expression {quoted(pattern)} repeats a repeated group ({nested.group(0)}): that can take exponential"
            " time (catastrophic backtracking); repeat the inner part once, e.g. (a+)+ -> a+"
        )
    if literal := _LITERAL_BRACES.search(_CLASS.sub(lambda c: "x" * len(c[0]), pattern)):
        # (trial 165: '^team-[a-z]{2, 10}$' loaded, and matched no team label)
        meant = "{" + ",".join(n.strip() for n in re.split(r"[,-]", literal.group(0)[1:-1])) + "}"
        return (
            f"regular expression {quoted(pattern)}: Python's re reads {literal.group(0)} as the text itself, not as a"
            f" repeat; write {meant}"
        )
    try:
        with warnings.catch_warnings():  # "Possible set intersection" of [a&&b]: a note for the author of code, not here
            warnings.simplefilter("ignore", FutureWarning)
            re.compile(pattern)
            ambiguous = _ambiguous_repeat(re_parser.parse(pattern))
    except re.error as exc:
        return f"bad regular expression {quoted(pattern)}: {exc}"
    except (RecursionError, OverflowError):
        return f"regular expression nested too deeply to compile ({len(pattern):,} characters)"
    if ambiguous:
        return (
            f"regular expression {quoted(pattern)} repeats a group that can match the same text in more than one way"
            f" ({ambiguous}): Python's backtracking engine can take exponential time on a value that almost matches;"
            " make each repetition start with a character the rest of the group cannot match, e.g. (-[a-z]+)*, or"
            " repeat one part only, e.g. (a|aa)+ -> a+"
        )
    return ""


_REPEATS = (re_constants.MAX_REPEAT, re_constants.MIN_REPEAT, re_constants.POSSESSIVE_REPEAT)
_ONE_CHAR = (re_constants.LITERAL, re_constants.NOT_LITERAL, re_constants.IN, re_constants.ANY)


def _ambiguous_repeat(parsed: Any) -> str:
    r"""The first repeated group (a repeat of more than one) of a parsed pattern whose repetitions can split a text
    in more than one way, shown as the parser sees it; "" when there is none. A group is safe when its length is
    fixed (``(ab)*``, ``(a|b)+`` with single-character alternatives), or when it starts with a character that none
    of its variable parts can match, so each repetition begins at a known place (``(-[a-z]+)*``). Otherwise
    (``(x+x+)+``, ``(a|a)*``, ``(a|aa)+``, ``(\w+\s?)*``, ``(.*a){25}``) backtracking tries every split."""
    for op, av in parsed:
        if op in _REPEATS:
            _, most, body = av
            if most > 1 and _varies(body) and not _starts_apart(body):
                return f"a group repeated up to {'any number of' if most == re_constants.MAXREPEAT else most} times"
            found = _ambiguous_repeat(body)
        elif op == re_constants.SUBPATTERN:
            found = _ambiguous_repeat(av[3])
        elif op == re_constants.BRANCH:
            found = next((f for f in map(_ambiguous_repeat, av[1]) if f), "")
        elif op in (re_constants.ASSERT, re_constants.ASSERT_NOT):
            found = _ambiguous_repeat(av[1])
        else:
            found = ""
        if found:
            return found
    return ""


def _varies(parsed: Any) -> bool:
    """True when the parsed (sub)pattern can match texts of different lengths or the same text in two ways: it
    holds a repeat of varying count, or an alternation that is not between distinct single characters."""
    for op, av in parsed:
        if op in _REPEATS:
            if av[0] != av[1] or _varies(av[2]):
                return True
        elif op == re_constants.SUBPATTERN and _varies(av[3]):
            return True
        elif op == re_constants.BRANCH:
            alternatives = av[1]
            singles = [a.data[0][1] for a in alternatives if len(a.data) == 1 and a.data[0][0] == re_constants.LITERAL]
            if len(singles) < len(alternatives) or len(set(singles)) < len(singles):
                return True
        elif op in (re_constants.GROUPREF, re_constants.GROUPREF_EXISTS):
            return True
    return False


def _starts_apart(body: Any) -> bool:
    """True when ``body`` starts or ends with a literal character that no single-character item of its variable
    parts matches (a separator: each repetition of the group begins or ends with it, at a known place)."""
    while len(body) == 1 and body[0][0] == re_constants.SUBPATTERN:
        body = body[0][1][3]
    if not len(body):
        return False
    items = list(_variable_items(body))
    if None in items:
        return False
    # a separator at the start, or at the end (([a-z0-9-]+\.)* : each repetition ends at the dot)
    ends = [body[i] for i in (0, -1) if body[i][0] == re_constants.LITERAL]
    return any(all(not _item_matches(item, chr(end[1])) for item in items) for end in ends)


def _variable_items(parsed: Any, varying: bool = False) -> Iterator[Any]:
    """The single-character items in the variable parts of ``parsed`` (repeats, optional parts, alternations);
    None for what is not checked character by character (a backreference)."""
    for op, av in parsed:
        if op in _REPEATS:
            yield from _variable_items(av[2], True)
        elif op == re_constants.SUBPATTERN:
            yield from _variable_items(av[3], varying)
        elif op == re_constants.BRANCH:
            alternatives = av[1]
            if len({repr(a.data) for a in alternatives}) < len(alternatives) or not all(a.data for a in alternatives):
                yield None  # two ways to match the same text (a|a, which the parser keeps as a(?:|))
            for alternative in alternatives:
                yield from _variable_items(alternative, True)
        elif op in _ONE_CHAR:
            if varying:
                yield (op, av)
        elif op in (re_constants.GROUPREF, re_constants.GROUPREF_EXISTS, re_constants.ASSERT, re_constants.ASSERT_NOT):
            yield None


def _item_matches(item: Any, char: str) -> bool:
    """Whether one parsed single-character item (a literal, a class, ``.``) matches ``char``."""
    return re_compiler.compile(re_parser.SubPattern(re_parser.State(), [item]), 0).fullmatch(char) is not None


def classify_problem(table: Any) -> str:
    """Why ``table`` is no ``classify`` table ("" when it is one): a mapping of name to a regular expression or a list
    of them, each one ``matches`` would take (``regex_problem``)."""
    if not isinstance(table, dict):
        return f"classify needs a mapping of name to regular expressions, got {show(table)}"
    for name, patterns in table.items():
        for pattern in patterns if isinstance(patterns, list) else [patterns]:
            if isinstance(compiled := _classify_regex(pattern), str):
                return f"classify entry {name}: {compiled}"
    return ""


def _classify_regex(pattern: Any) -> re.Pattern[str] | str:
    """A pattern of a ``classify`` table compiled (``_regex``), or why it is refused; a number is taken as its text,
    as ``matches`` takes it (trial 137: a PCI device id, 2236, was refused)."""
    if pattern is None or isinstance(pattern, (dict, list)):
        return f"{show(pattern)} is not a regular expression (a string)"
    return _regex(str(pattern))


def classify(value: Any, table: dict[str, Any]) -> Any:
    """The name of the first entry of ``table`` one of whose regular expressions matches the string ``value``, else
    None. Raises ``OperatorError`` for a pattern ``matches`` refuses (a table from data or a var: a literal one is
    checked at load), each compiled once."""
    if not isinstance(value, str):
        return None
    for name, patterns in table.items():
        for pattern in patterns if isinstance(patterns, list) else [patterns]:
            compiled = _classify_regex(pattern)
            if isinstance(compiled, str):
                raise OperatorError(f"classify entry {name}: {compiled}")
            if compiled.search(value):
                return name
    return None


def _regex_literal(arg: Any) -> str:
    return next((p for p in (regex_problem(str(pattern)) for pattern in _members(arg)) if p), "")


@functools.lru_cache(maxsize=4096)
def _regex(pattern: str) -> re.Pattern[str] | str:
    """``pattern`` compiled, or why it is refused (``regex_problem``)."""
    return regex_problem(pattern) or re.compile(pattern)


_REGEXES: IdentityMemo[tuple[re.Pattern[str] | str, ...]] = IdentityMemo()


@functools.lru_cache(maxsize=4096)
def _one_regex(pattern: str) -> tuple[re.Pattern[str], ...] | str:
    """A single pattern as ``_regexes`` gives it (the common case: no list built per value), or why it is refused."""
    compiled = _regex(pattern)
    return compiled if isinstance(compiled, str) else (compiled,)


def _regexes(arg: Any) -> tuple[re.Pattern[str], ...] | list[re.Pattern[str]]:
    """The compiled patterns of ``arg`` (one or a list), each compiled once. Raises ``OperatorError`` for
    the first refused pattern (``regex_problem``), every time it is used."""
    if isinstance(arg, str):
        one = _one_regex(arg)
        if isinstance(one, str):
            raise OperatorError(one)
        return one
    if isinstance(arg, _CONTAINERS):
        compiled = _REGEXES.one(lambda: tuple(_regex(str(p)) for p in _members(arg)), arg)
    else:
        compiled = tuple(_regex(str(p)) for p in _members(arg))
    out = []
    for pattern in compiled:
        if isinstance(pattern, str):
            raise OperatorError(pattern)
        out.append(pattern)
    return out


_TEXTS: IdentityMemo[tuple[str, ...]] = IdentityMemo()


def _texts(arg: Any) -> tuple[str, ...]:
    """The members of ``arg`` as strings, once per argument object."""
    if isinstance(arg, _CONTAINERS):
        return _TEXTS.one(lambda: tuple(str(a) for a in _members(arg)), arg)
    return () if arg is None else (str(arg),)


def _text_test(method: str) -> Callable[[Any, Any], bool]:
    def test(value: Any, arg: Any) -> bool:
        if not isinstance(value, str):
            return False
        return any(getattr(value, method)(a) for a in _texts(arg))

    return test


#: How alike two strings must be for ``similarTo`` (difflib's ratio, 0 to 1), and the longest it compares.
SIMILAR = 0.8
SIMILAR_LONGEST = 256


def _similar(value: Any, arg: Any) -> bool:
    """``value`` is a string like one of the argument's (difflib's ratio at least ``SIMILAR``, casefolded): a typo,
    a letter missing, doubled or swapped. Strings past ``SIMILAR_LONGEST`` characters, or whose lengths alone
    put the ratio below the bound, are not compared (difflib's time grows with the product of the lengths)."""
    if not isinstance(value, str) or len(value) > SIMILAR_LONGEST:
        return False
    folded = value.casefold()
    for m in _texts(arg):
        total = len(folded) + len(m)
        if len(m) > SIMILAR_LONGEST or not total or 2 * min(len(folded), len(m)) < SIMILAR * total:
            continue
        if _alike(folded, m.casefold()):
            return True
    return False


@functools.lru_cache(maxsize=1 << 16)
def _alike(a: str, b: str) -> bool:
    """difflib's ratio of ``a`` and ``b`` is at least ``SIMILAR``; its cheap upper bound on the characters first (the
    one on the lengths is ``_similar``'s), and each pair once (the same label keys stand on every node of a dump:
    trial 155 measured 29 s for one rule on 3,000 nodes of 95 labels)."""
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return matcher.quick_ratio() >= SIMILAR and matcher.ratio() >= SIMILAR


def _affix_test(method: str) -> Callable[[Any, Any], bool]:
    """startswith/endswith take a tuple of affixes: one call in C for a list argument."""

    def test(value: Any, arg: Any) -> bool:
        return isinstance(value, str) and getattr(value, method)(_texts(arg))

    return test


def _fold(value: Any) -> Any:
    """Case-insensitive comparison key: a string casefolded (Unicode full case folding, so ``"STRASSE"``
    matches ``"straße"``), any other value as ``equals`` compares it (``"2"`` still differs from ``2``).

    Never a regular expression: the argument is often dump text (a VM's deviceName), and a pattern built
    from it (``(?i)^{deviceName}$``) backtracks for minutes on ``nvidia.com/(a+)+c``."""
    return value.casefold() if isinstance(value, str) else _key(value)


def _folded_member_keys(arg: Any) -> frozenset[Any]:
    """``_member_keys`` casefolded, built once per argument object."""
    if not isinstance(arg, _CONTAINERS):
        return frozenset(_fold(m) for m in _members(arg))
    return _FOLDED_KEYS.one(lambda: frozenset(_fold(m) for m in _members(arg)), arg)


def _compare(fn: Callable[[Fraction, Fraction], bool]) -> Callable[[Any, Any], bool]:
    # A reference that gives nothing (a container's limit where it sets none) is nothing the value can compare
    # with: the comparison fails, "= <none>", as equals fails (trial 190: the docs' own request-equals-limit
    # rule gave error on the container without a limit it exists to catch, naming the request as not a quantity).
    def test(value: Any, arg: Any) -> bool:
        if arg is None:
            _quantity(value)  # a value that is no quantity is an error still (trial 193)
            return False
        return fn(_quantity(value), _quantity(arg))

    return test


def quantity_problem(arg: Any) -> str:
    """Why a literal cannot be a Kubernetes quantity ("" when it can), for load-time checks."""
    try:
        parse_quantity(arg)
    except QuantityError as exc:
        what = str(exc) if isinstance(arg, str) else f"{show(arg)} is not a Kubernetes quantity"
        return f"{what} (such as 8, 500m or 64Gi)"
    return ""


def _divisor_literal(arg: Any) -> str:
    problem = quantity_problem(arg)
    if not problem and parse_quantity(arg) == 0:
        return "multipleOf 0: nothing divides by 0 (give a quantity other than 0)"
    return problem


def _count_test(values: list[Any], arg: Any) -> bool:
    n = len(values)
    if isinstance(arg, dict):
        checks = {"equals": n.__eq__, "gt": n.__gt__, "gte": n.__ge__, "lt": n.__lt__, "lte": n.__le__}
        # a mapping a reference gave (a literal one is checked at load) may be data, not {gt: 1}
        if not arg or any(k not in checks or type(v) is not int for k, v in arg.items()):
            raise OperatorError(f"count compares with a whole number, and the argument is {quoted(show(arg))}")
        return all(checks[k](v) for k, v in arg.items())
    return n == _whole_count(arg)


def _whole_count(arg: Any) -> int:
    """The number ``count`` compares with: an integer, or (from a reference) a whole-number quantity such as the
    ``"2"`` a VMI's resources ask for, or what ``sum`` adds up (a reference to anything else is an ``error``)."""
    if isinstance(arg, int) and not isinstance(arg, bool):
        return arg
    try:
        n = parse_quantity(arg) if isinstance(arg, (str, Fraction)) else None
    except QuantityError:
        n = None
    if n is None or n.denominator != 1:
        raise OperatorError(f"count compares with a whole number, and the argument is {quoted(show(arg))}")
    return int(n)


def _count_problem(arg: Any) -> str:
    """Why a literal ``count`` argument can never be used ("" when it can): an unknown key such as ``min`` would
    otherwise hold always."""

    def whole(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    if whole(arg) or (isinstance(arg, dict) and arg and all(k in _COUNT_KEYS and whole(v) for k, v in arg.items())):
        return ""
    return (
        "count takes an integer, a mapping of "
        + "/".join(_COUNT_KEYS)
        + " to integers, or a reference to a whole number ({var: x})"
    )


def _count_describe(arg: Any) -> str:
    if isinstance(arg, dict):
        words = {"equals": "==", "gt": ">", "gte": ">=", "lt": "<", "lte": "<="}
        return "count " + " and ".join(f"{words[k]} {v}" for k, v in arg.items() if k in words)
    return f"count == {arg}"


def _multiple_of(value: Any, arg: Any) -> bool:
    if arg is None:  # (as _compare)
        _quantity(value)
        return False
    divisor = _quantity(arg)
    if divisor == 0:
        raise OperatorError("0: nothing divides by 0")
    return (_quantity(value) / divisor).denominator == 1


def _is_integer(value: Any, arg: Any) -> bool:
    try:
        whole = parse_quantity(value).denominator == 1
    except QuantityError:
        whole = False
    return whole == bool(arg)


def _set_rel(fn: Callable[[frozenset[Any], frozenset[Any]], bool]) -> Callable[[Any, Any], bool]:
    # Both sides' key sets are built once per list object: a context or data table on either side costs a
    # dictionary hit per object judged, not a pass over the table.
    def test(values: Any, arg: Any) -> bool:
        return fn(_member_keys(values), _member_keys(arg))

    return test


_ARG_KEYS: IdentityMemo[Any] = IdentityMemo()


def _arg_key(arg: Any) -> Any:
    """``_key(arg)``, once per argument object for lists and mappings."""
    if isinstance(arg, (list, dict)):
        return _ARG_KEYS.one(lambda: _key(arg), arg)
    return _key(arg)


# Semantic Versioning 2.0.0 (https://semver.org/#spec-item-11) with the leading "v" Kubernetes
# projects print (KubeVirt's status.observedKubeVirtVersion "v1.4.0", kubelet "v1.31.2+k3s1").
_VERSION = re.compile(
    r"^[vV]?(?P<major>0|[1-9]\d*)(?:\.(?P<minor>0|[1-9]\d*))?(?:\.(?P<patch>0|[1-9]\d*))?"
    r"(?:-(?P<pre>[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$"
)


def version_key(value: Any) -> tuple[Any, ...]:
    """A sort key giving SemVer 2.0.0 precedence: ``v1.3.9 < v1.4.0-rc.1 < v1.4.0 == 1.4 == v1.4.0+build``.

    A missing minor or patch counts as 0; a pre-release sorts before its release, its dot-separated
    identifiers compared numerically when all digits, else as ASCII, numeric before alphanumeric; build
    metadata is ignored. Raises ``OperatorError`` for anything else.
    """
    m = _VERSION.match(str(value).strip()) if isinstance(value, (str, int, float)) and not isinstance(value, bool) else None
    if m is None:
        raise OperatorError(f"{show(value)} is not a version (expected e.g. v1.4.0 or 1.4.0-rc.1)")
    core = tuple(int(m.group(g) or 0) for g in ("major", "minor", "patch"))
    pre = m.group("pre")
    if pre is None:
        return (*core, 1, ())
    ids = tuple((0, int(i), "") if i.isdigit() else (1, 0, i) for i in pre.split("."))
    return (*core, 0, ids)


#: The reason for a version written as a YAML number; the loader shows the quoted form of what was written.
VERSION_IS_TEXT = "a version is a string: quote it"


def _version_literal(arg: Any) -> str:
    if isinstance(arg, float):  # versionLt: 1.30 reads as the number 1.3, and compares as 1.3.0
        return VERSION_IS_TEXT
    try:
        version_key(arg)
    except OperatorError as exc:
        return str(exc)
    return ""


def _version(fn: Callable[[tuple[Any, ...], tuple[Any, ...]], bool]) -> Callable[[Any, Any], bool]:
    def test(value: Any, arg: Any) -> bool:
        return fn(version_key(value), version_key(arg))

    return test


_TOLERATIONS: IdentityMemo[tuple[Toleration, ...]] = IdentityMemo()


def _tolerations(arg: Any) -> tuple[Toleration, ...]:
    """The argument of ``tolerates``: a list of toleration mappings (or one mapping; ``null`` is none), read
    once per argument object (a ClusterPolicy's list is the same for every taint of every node)."""

    def read() -> tuple[Toleration, ...]:
        out = []
        for t in _members([arg] if isinstance(arg, dict) else arg):
            if not isinstance(t, dict):
                raise OperatorError(f"{show(t)} is not a toleration (a mapping of key, operator, value, effect)")
            out.append(Toleration.of(t))
        return tuple(out)

    return _TOLERATIONS.one(read, arg) if isinstance(arg, _CONTAINERS) else read()


def _tolerates(value: Any, arg: Any) -> bool:
    """Kubernetes ``Toleration.ToleratesTaint`` (rules/schedule/matching.py): some toleration of ``arg``
    tolerates the taint ``value``."""
    if not isinstance(value, dict):
        raise OperatorError(f"{show(value)} is not a taint (a mapping of key, value, effect)")
    taint = Taint(text(value.get("key")), text(value.get("value")), text(value.get("effect")))
    return any(t.tolerates(taint) for t in _tolerations(arg))


@dataclass(frozen=True, slots=True)
class _Placement:
    """What places a pod, read once per pod spec: its nodeName, nodeSelector, required node affinity terms (None
    when it has none) and tolerations."""

    node_name: str
    selector: tuple[tuple[str, str], ...]
    terms: tuple[Term, ...] | None
    tolerations: tuple[Toleration, ...]


@dataclass(frozen=True, slots=True)
class _NodeView:
    """What a node offers a pod's placement, read once per Node: its name, labels and NoSchedule/NoExecute taints."""

    name: str
    labels: dict[str, str]
    taints: tuple[Taint, ...]


_PLACEMENTS: IdentityMemo[_Placement] = IdentityMemo()
_NODE_VIEWS: IdentityMemo[_NodeView] = IdentityMemo()


def _placement(spec: dict[str, Any]) -> _Placement:
    """A pod spec's placement, read as the scheduler model reads it (``PodView``)."""
    raw = required_terms_of(spec)
    return _Placement(
        text(spec.get("nodeName")),
        node_selector_of(spec) or (),
        None if raw is None else compile_terms(raw),
        tolerations_of(spec.get("tolerations")),
    )


def _node_view(node: dict[str, Any]) -> _NodeView:
    meta = node["metadata"]
    labels = {str(k): text(v) for k, v in mapping(meta.get("labels")).items()}
    return _NodeView(text(meta.get("name")), labels, filter_taints(mapping(node.get("spec")).get("taints")))


def _admits_node(value: Any, arg: Any) -> bool:
    """The pod ``value`` (a Pod, or its spec) may be placed on the Node ``arg`` but for resources, as kube-scheduler's
    NodeName, NodeAffinity and TaintToleration filters decide (rules/schedule/matching.py): its spec.nodeName is
    empty or the node's, its nodeSelector and required node affinity select the node, and it tolerates the node's
    NoSchedule and NoExecute taints (only NoExecute ones for a pod its nodeName binds: the Taint API's NoSchedule
    lets "pods submitted to Kubelet without going through the scheduler" start). What places a pod and what a node
    offers are read once each (a node's pending pods are tested against every node that lists their resource)."""
    if not isinstance(value, dict):
        raise OperatorError(f"{show(value)} is not a Pod or pod spec")
    if not isinstance(arg, dict) or not isinstance(arg.get("metadata"), dict):
        raise OperatorError(f"{show(arg)} is not a Node (a mapping with metadata)")
    spec = value["spec"] if isinstance(value.get("spec"), dict) else value
    pod = _PLACEMENTS.one(lambda: _placement(spec), spec)
    node = _NODE_VIEWS.one(lambda: _node_view(arg), arg)
    if pod.node_name and pod.node_name != node.name:
        return False
    labels = node.labels
    if any(labels.get(k) != v for k, v in pod.selector):
        return False
    if pod.terms is not None and not any(term.matches(labels, node.name) for term in pod.terms):
        return False
    taints = node.taints
    if pod.node_name:  # bound by spec.nodeName, it skips the scheduler: NoSchedule keeps off only what the scheduler places
        taints = tuple(t for t in taints if t.effect == "NoExecute")
    return first_untolerated(taints, pod.tolerations) is None


_ANY = fields.Raw
_COUNT_KEYS = ("equals", "gt", "gte", "lt", "lte")


#: Why a value that had to be a boolean is refused (the schema's fields and a reference's ``all``).
BOOLEAN_ONLY = "true or false is expected here (unquoted)"


class StrictBoolean(fields.Boolean):
    """``true`` or ``false`` as YAML writes them, nothing else: marshmallow's Boolean also takes "yes", "on", 1 and
    "1", which the JSON Schema (``boolean``) refuses (trial 123: ``exists: "yes"`` loaded)."""

    default_error_messages = {"invalid": BOOLEAN_ONLY}

    def _deserialize(self, value: Any, attr: str | None, data: Any, **kwargs: Any) -> bool:
        if not isinstance(value, bool):
            raise self.make_error("invalid")
        return value


def _count_field() -> fields.Field:
    return fields.Raw(
        metadata={"description": "an integer, a mapping of equals/gt/gte/lt/lte to integers, or a reference to a whole number"}
    )


OPERATORS: dict[str, Operator] = {
    op.name: op
    for op in [
        Operator(
            "exists",
            "set",
            StrictBoolean,
            lambda values, arg: bool(values) == bool(arg),
            lambda arg: "a value" if arg else "no value",
            resolve=False,
            doc="true: the subject selects at least one value; false: it selects none",
        ),
        Operator(
            "equals",
            "value",
            _ANY,
            lambda v, a: _key(v) == _arg_key(a),
            lambda a: f"== {show(a)}",
            doc="the value equals the argument (strings and numbers are not converted)",
            lookup=Lookup(_key),
        ),
        Operator(
            "notEquals",
            "value",
            _ANY,
            lambda v, a: _key(v) != _arg_key(a),
            lambda a: f"!= {show(a)}",
            doc="the value differs from the argument",
            lookup=Lookup(_key, negate=True),
        ),
        Operator(
            "in",
            "value",
            _ANY,
            lambda v, a: _key(v) in _member_keys(a),
            lambda a: f"one of {show(_distinct(a))}",
            doc="the value is a member of the list (or a key of the mapping)",
            lookup=Lookup(_key, many=True),
        ),
        Operator(
            "notIn",
            "value",
            _ANY,
            lambda v, a: _key(v) not in _member_keys(a),
            lambda a: f"none of {show(_distinct(a))}",
            doc="the value is not a member of the list",
            lookup=Lookup(_key, many=True, negate=True),
        ),
        Operator(
            "equalsIgnoreCase",
            "value",
            _ANY,
            lambda v, a: _fold(v) == _fold(a),
            lambda a: f"== {show(a)} (ignoring case)",
            doc="the value equals the argument, strings compared after str.casefold() (never a regex)",
            lookup=Lookup(_fold),
        ),
        Operator(
            "inIgnoreCase",
            "value",
            _ANY,
            lambda v, a: _fold(v) in _folded_member_keys(a),
            lambda a: f"one of {show(_distinct(a))} (ignoring case)",
            doc="the value is a member of the list (or a key of the mapping), strings compared after"
            " str.casefold() (never a regex)",
            lookup=Lookup(_fold, many=True),
        ),
        Operator(
            "matches",
            "value",
            _ANY,
            lambda v, a: isinstance(v, str) and any(r.search(v) for r in _regexes(a)),
            lambda a: f"matches {show(a)}",
            doc="a string value matches the regular expression (Python re.search; anchor with ^ $), or any of a list of them",
            literal_problem=_regex_literal,
        ),
        Operator(
            "notMatches",
            "value",
            _ANY,
            lambda v, a: not (isinstance(v, str) and any(r.search(v) for r in _regexes(a))),
            lambda a: f"does not match {show(a)}",
            doc="the value matches none of the expressions",
            literal_problem=_regex_literal,
        ),
        Operator(
            "similarTo",
            "value",
            _ANY,
            _similar,
            lambda a: f"like {show(a)} (a typo of it)",
            doc="a string value is like the argument (or one of a list) but for a typo: difflib's similarity ratio of"
            " the two, casefolded, is at least 0.8 (vm-pasthrough, containers); strings past 256 characters are not compared",
        ),
        Operator(
            "startsWith",
            "value",
            _ANY,
            _affix_test("startswith"),
            lambda a: f"starts with {show(a)}",
            doc="a string value starts with the argument (or any of a list)",
        ),
        Operator(
            "endsWith",
            "value",
            _ANY,
            _affix_test("endswith"),
            lambda a: f"ends with {show(a)}",
            doc="a string value ends with the argument (or any of a list)",
        ),
        Operator(
            "contains",
            "value",
            _ANY,
            _text_test("__contains__"),
            lambda a: f"contains {show(a)}",
            doc="a string value contains the argument as a substring",
        ),
        Operator(
            "gt",
            "value",
            _ANY,
            _compare(lambda x, y: x > y),
            lambda a: f"> {show(a)}",
            doc="the value, as a Kubernetes quantity, is greater than the argument",
            literal_problem=quantity_problem,
        ),
        Operator(
            "gte",
            "value",
            _ANY,
            _compare(lambda x, y: x >= y),
            lambda a: f">= {show(a)}",
            doc="quantity >= argument",
            literal_problem=quantity_problem,
        ),
        Operator(
            "lt",
            "value",
            _ANY,
            _compare(lambda x, y: x < y),
            lambda a: f"< {show(a)}",
            doc="quantity < argument",
            literal_problem=quantity_problem,
        ),
        Operator(
            "lte",
            "value",
            _ANY,
            _compare(lambda x, y: x <= y),
            lambda a: f"<= {show(a)}",
            doc="quantity <= argument",
            literal_problem=quantity_problem,
        ),
        Operator(
            "quantityEquals",
            "value",
            _ANY,
            _compare(lambda x, y: x == y),
            lambda a: f"= {show(a)}",
            doc="the value, as a Kubernetes quantity, equals the argument (4 = 4.0 = 4000m; equals compares as written)",
            literal_problem=quantity_problem,
        ),
        Operator(
            "multipleOf",
            "value",
            _ANY,
            _multiple_of,
            lambda a: f"a multiple of {show(a)}",
            doc="the quantity is a whole multiple of the argument",
            literal_problem=_divisor_literal,
        ),
        Operator(
            "integer",
            "value",
            StrictBoolean,
            _is_integer,
            lambda a: "a whole-number quantity" if a else "not a whole-number quantity",
            resolve=False,
            doc='true: the value is a quantity with no fractional part ("2", "3000m", "1k")',
        ),
        Operator(
            "count",
            "set",
            _count_field,
            _count_test,
            _count_describe,
            doc="the number of selected values; an integer, {gt, gte, lt, lte, equals}, or a reference to a whole number",
            literal_problem=_count_problem,
        ),
        Operator(
            "subsetOf",
            "set",
            _ANY,
            _set_rel(lambda s, a: s <= a),
            lambda a: f"all in {show(_distinct(a))}",
            doc="every selected value is in the argument",
        ),
        Operator(
            "supersetOf",
            "set",
            _ANY,
            _set_rel(lambda s, a: s >= a),
            lambda a: f"including all of {show(_distinct(a))}",
            doc="the selected values include every member of the argument",
        ),
        Operator(
            "disjointFrom",
            "set",
            _ANY,
            _set_rel(lambda s, a: not (s & a)),
            lambda a: f"none of {show(_distinct(a))}",
            doc="no selected value is in the argument",
        ),
        Operator(
            "intersects",
            "set",
            _ANY,
            _set_rel(lambda s, a: bool(s & a)),
            lambda a: f"at least one of {show(_distinct(a))}",
            doc="at least one selected value is in the argument",
        ),
        Operator(
            "setEquals",
            "set",
            _ANY,
            _set_rel(lambda s, a: s == a),
            lambda a: f"exactly {show(_distinct(a))}",
            doc="the selected values, as a set, equal the argument",
        ),
        Operator(
            "tolerates",
            "value",
            _ANY,
            _tolerates,
            lambda a: f"tolerated by one of {show(_members([a] if isinstance(a, dict) else a))}",
            doc="the value is a taint (key, value, effect) that one of the argument's tolerations tolerates"
            " (Kubernetes ToleratesTaint: empty key or effect matches all, Exists any value, Equal/empty the value)",
        ),
        Operator(
            "admitsNode",
            "value",
            _ANY,
            _admits_node,
            lambda a: f"a pod that may be placed on node {show(mapping(mapping(a).get('metadata')).get('name'))}",
            doc="the value is a Pod (or pod spec) that kube-scheduler's NodeName, NodeAffinity and TaintToleration"
            " filters let onto the argument's Node: its nodeName is empty or the node's, its nodeSelector and required"
            " node affinity select the node, it tolerates the node's NoSchedule/NoExecute taints (resources aside)",
        ),
        Operator(
            "versionLt",
            "value",
            _ANY,
            _version(lambda x, y: x < y),
            lambda a: f"a version below {show(a)}",
            doc="the value is a version (SemVer 2.0.0, optional leading v) older than the argument; use not: for >=",
            literal_problem=_version_literal,
        ),
    ]
}


def register(operator: Operator) -> None:
    """Add an operator to the table (the scheduler's ``schedulable`` registers itself this way)."""
    OPERATORS[operator.name] = operator
