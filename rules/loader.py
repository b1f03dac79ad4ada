"""Load policy files and packs: YAML -> marshmallow validation -> compiled ``Policy`` objects.

A pack is a folder: every ``*.yaml``/``*.yml`` directly in it is a policy; ``data/`` holds data tables
(named by a policy's ``spec.dataFiles``) and ``tests/`` holds fixtures. A built-in pack is named by its
folder name under ``policies/`` (``gpu-operator``). Every problem is a ``PolicyError`` with file, line,
rule id and reason; loading never half-succeeds.
"""

from __future__ import annotations

import difflib
import functools
import os
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import yaml
from marshmallow import ValidationError

from . import workloads  # noqa: F401  (registers schedulable and toleratesNodes before the schema is built)
from .errors import PolicyError, RuleLookupError, RuleNameProblem, byte_place, dotted, quoted
from .limits import limit
from .model import (
    BUILTIN_NAMES,
    PLACEHOLDER,
    Assertion,
    Assumption,
    CompileError,
    Context,
    Policy,
    Rule,
    check_placeholders,
    compile_assertion,
    compile_context,
    compile_match,
    compile_var,
)
from .names import check_names, unknown_name
from .operators import OPERATORS, VERSION_IS_TEXT
from .schema import IncludeSchema, policy_schema
from .shell import BIDI_CONTROLS
from .yamlsafe import load_documents, node_at, node_line


def _builtin_dir() -> Path:
    """Where the built-in packs are: ``$VERDICT_BUILTIN_POLICIES`` when set; else ``rules/policies``, where a
    wheel installs the repository's ``policies/`` (pyproject.toml maps it there); else, in a checkout (an
    editable install too), the repository's ``policies/`` beside ``rules/``."""
    chosen = os.environ.get("VERDICT_BUILTIN_POLICIES", "").strip()
    if chosen:
        return Path(chosen)
    here = Path(__file__).resolve().parent
    installed = here / "policies"
    return installed if installed.is_dir() else here.parent / "policies"


#: The built-in packs' folder: each folder in it is a pack named by the folder (``_builtin_dir``).
BUILTIN_DIR = _builtin_dir()
DEFAULT_PACKS = ("gpu-operator",)


class PolicyLoadError(Exception):
    """One or more policy files were refused; ``errors`` lists every ``PolicyError`` found."""

    def __init__(self, errors: list[PolicyError]) -> None:
        self.errors = errors
        super().__init__("\n".join(str(e) for e in errors))


@dataclass(slots=True)
class PolicySet:
    """The compiled policies in use, with their rules indexed by ``policy/rule``."""

    policies: list[Policy] = field(default_factory=list)
    #: True when ``select`` chose rules by name (``-r``, ``rule=``): a named rule that matches no object of a
    #: dump is then said in the report's notes (a whole pack's rules that match nothing are not news).
    named: bool = False
    #: The rules ``select`` left out by name (``--skip-rule``, ``skipRule=``), as ``policy/rule``: the report
    #: says them, so that a reader knows the audit is not the whole pack.
    left_out: tuple[str, ...] = ()

    @property
    def rules(self) -> list[Rule]:
        """Every rule of every policy, in load order."""
        return [r for p in self.policies for r in p.rules]

    def rule(self, name: str) -> Rule:
        """The rule ``name`` stands for: ``policy/rule``, or a bare rule id that one policy uses.

        Raises ``RuleLookupError`` when no loaded rule has that name, or when several policies use that bare
        id (the problem lists them as ``policy/rule``).
        """
        rules, problems = self._named(name, self.policies)
        if problems:
            raise RuleLookupError(problems)
        return rules[0]

    def policy(self, name: str) -> Policy | None:
        """The policy named ``name``, or None."""
        return next((p for p in self.policies if p.name == name), None)

    def select(self, policies: Iterable[str] = (), rules: Iterable[str] = (), skip: Iterable[str] = ()) -> PolicySet:
        """A subset: only the named policies (or packs), within them only the named rules, less the rules
        ``skip`` names (``--skip-rule``, ``skipRule=``: Checkov's ``--skip-check``, kube-linter's ``--exclude``).

        A rule is named ``policy/rule``, or by a bare rule id, which is looked up in the chosen policies:
        with ``policies=["gpu-pods"]`` the id ``workload-schedulable`` is that policy's rule, while without
        it two policies use the id. Raises ``RuleLookupError`` for a name no loaded rule has and for a
        bare id that several chosen policies use; a rule that exists only outside the chosen policies
        selects nothing (the caller says that the selection is empty), and skipping it leaves nothing out.
        This is the one place that decides what a rule name means, for ``-r``, ``rule=`` and the skips alike.
        """
        wanted_p = set(policies)
        scope = [p for p in self.policies if not wanted_p or p.name in wanted_p or p.pack in wanted_p]
        names, skipped = list(rules), list(skip)
        if not names and not skipped:
            return PolicySet(scope)
        kept_uids: set[str] = set()
        skipped_uids: set[str] = set()
        problems: list[RuleNameProblem] = []
        for chosen, wanted, skipping in ((kept_uids, names, False), (skipped_uids, skipped, True)):
            for name in wanted:
                found, trouble = self._named(name, scope)
                chosen.update(r.uid for r in found)
                problems.extend(replace(t, skip=skipping) for t in trouble)
        if problems:
            raise RuleLookupError(problems)
        out = []
        for p in scope:
            kept = tuple(r for r in p.rules if (not names or r.uid in kept_uids) and r.uid not in skipped_uids)
            if kept:
                out.append(replace(p, rules=kept))
        return PolicySet(out, named=bool(names), left_out=tuple(sorted(skipped_uids)))

    def _named(self, name: str, scope: list[Policy]) -> tuple[list[Rule], list[RuleNameProblem]]:
        """The rules of ``scope`` that ``name`` stands for, or why it stands for none (an unknown name is
        unknown to the whole set; ambiguity is judged within ``scope``)."""
        everywhere = [r for r in self.rules if r.uid == name] or [r for r in self.rules if r.id == name]
        if not everywhere:
            return [], [RuleNameProblem(name, self._unknown_rule(name))]
        in_scope = {p.name for p in scope}
        found = [r for r in everywhere if r.policy in in_scope]
        if len(found) > 1:
            candidates = tuple(sorted(r.uid for r in found))
            reason = f"rule id {name!r} is ambiguous: {', '.join(candidates)}; name one as policy/rule"
            return [], [RuleNameProblem(name, reason, candidates)]
        return found, []

    def _unknown_rule(self, name: str) -> str:
        """``no rule named 'x'`` with the closest rules (matched by ``policy/rule`` and by bare id, named
        ``policy/rule``), else an example of the form."""
        ids = Counter(r.id for r in self.rules)
        forms = {r.uid: r.uid for r in self.rules} | {r.id: r.uid for r in self.rules if ids[r.id] == 1}
        close = dict.fromkeys(forms[c] for c in difflib.get_close_matches(name, list(forms), n=4, cutoff=0.75))
        if close:
            return f"no rule named {name!r}; did you mean {' or '.join(repr(c) for c in list(close)[:2])}?"
        example = f", e.g. {self.rules[0].uid}" if self.rules else ""
        return f"no rule named {name!r}; name a rule as policy/rule{example}"


def leaf_errors(messages: Any, trail: list[str | int]) -> list[tuple[list[str | int], str]]:
    """Every leaf of marshmallow's nested error dict: [(field path, message)]."""
    if isinstance(messages, dict):
        out = []
        for key in sorted(messages, key=lambda k: (k == "_schema", str(k))):
            step: list[str | int] = trail if key == "_schema" else [*trail, key]
            out.extend(leaf_errors(messages[key], step))
        return out
    if isinstance(messages, list) and messages:
        if all(isinstance(m, str) for m in messages):
            return [(trail, "; ".join(messages))]
        return [leaf for m in messages for leaf in leaf_errors(m, trail)]
    return [(trail, str(messages))]


@functools.cache
def _field_names() -> frozenset[str]:
    """Every key the policy format knows (fields of every schema, operators, combinators); made once, as each
    schema instance made for it deep-copies its fields."""
    from . import schema as s

    names: set[str] = set()
    for cls in (
        s.PolicySchema,
        s.MetadataSchema,
        s.SpecSchema,
        s.DefaultsSchema,
        s.RuleSchema,
        s.MatchSchema,
        s.LabelSelectorSchema,
        s.LabelSelectorRequirementSchema,
        s.ContextSchema,
        s.ForEachSchema,
        s.assertion_schema_class(),
    ):
        for name, fld in cls().fields.items():
            names.add(fld.data_key or name)
    return frozenset(names)


def unknown_field(key: str, known: Iterable[str]) -> str:
    """marshmallow's "Unknown field." with the closest ``known`` keys, e.g. ``exits`` -> ``exists``; a key the
    format knows, but not at this place, is most often indented wrongly (``as:`` beside ``forEach:`` rather
    than inside it), which the message says instead of suggesting the key itself."""
    # kind for kinds (kind is a context's own field), namespace for namespaces, match for matches (trial 165: match is a
    # rule's field, and only its place was said); not a word of one or two letters (trial 191: 'a' was "did you mean 'as'?")
    for plural in (f"{key}s", f"{key}es") if len(key) > 2 else ():
        if plural in known:
            return f"unknown field {key!r} here; did you mean {plural!r}?"
    if key in known:
        return f"unknown field {key!r} here: it is a field elsewhere in a policy; check its indentation"
    close = difflib.get_close_matches(key, sorted(known), n=2, cutoff=0.75)
    return f"unknown field {key!r}" + (f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else "")


def condition_problem(exc: Exception) -> tuple[list[str | int], str]:
    """The first problem the assertion schema found in a condition written where the policy schema does not reach
    (a var's ``when``), as (field path below the condition, reason), with an unknown field's closest spelling
    (trial 71: ``similarTO`` gave "invalid condition: {'similarTO': ['Unknown field.']}")."""
    messages = getattr(exc, "messages", None)
    leaves = leaf_errors(messages, []) if isinstance(messages, (dict, list)) else []
    if not leaves:
        return [], f"invalid condition: {messages or exc}"
    where, reason = leaves[0]
    if reason == "Unknown field." and where and isinstance(where[-1], str):
        reason = unknown_field(where[-1], _field_names())
    return where, reason


def schema_problems[E: PolicyError](exc: ValidationError, make: Callable[[list[str | int], str], E], known: Iterable[str]) -> E:
    """Every problem marshmallow found in a document as errors made by ``make(field path, reason)``: the one
    to raise, with the others in its ``more``. Earliest line first, one fix-and-retry round rather than one
    per typo; a missing required field is often the echo of a typo ('titel' -> title missing): typos first.
    """
    known = list(known)
    problems = []
    for where, reason in leaf_errors(exc.messages, []):
        if reason == "Unknown field." and where and isinstance(where[-1], str):
            reason = unknown_field(where[-1], known)
            if "did you mean" not in reason and "check its indentation" not in reason and _in_assertion(where):
                # trial 47: 'oneOf' and 'in_list' were refused with no word of what an assertion takes
                reason += f"; an assertion's operators are {', '.join(sorted(OPERATORS))} (and all, any, not, forEach)"
        elif reason == "Invalid input type." and where[:2] == ["spec", "context"] and len(_steps(where)) == 3:
            # trial 94: a context's key dedented into spec.context (path: beside the contexts) said only this
            reason = (
                f"a context is a mapping ({{kind: ..., path: ...}}), not a single value: is {where[2]!r} a field of the"
                " context above it? check its indentation"
            )
        problems.append(make(where, _PLAIN.get(reason, reason)))
    problems.sort(key=lambda e: (e.reason.startswith("Missing data"), e.line))
    first = problems[0]
    first.more = list(problems[1:])
    return first


#: marshmallow's words for a value of the wrong type, in a policy author's (a YAML writer's) terms.
_PLAIN = {
    "Not a valid list.": "must be a list (one '- item' a line, or [a, b])",
    "Not a valid mapping type.": "must be a mapping (key: value, or {key: value})",
    "Not a valid string.": "must be a string",
    "Field may not be null.": "must have a value (it is empty, or null)",
    "Not a valid boolean.": "must be true or false",
    "Not a valid integer.": "must be a whole number",
}


def _steps(where: list[str | int]) -> list[str | int]:
    """``where`` without marshmallow's Dict markers (``key``, ``value``)."""
    return [w for w in where if w not in _DICT_MARKERS]


def _in_assertion(where: list[str | int]) -> bool:
    """Whether the field path ``where`` ends in an assertion's own keys (its last step is a key of one)."""
    return (
        len(where) >= 2
        and where[-2] in ("assert", "not", "when", "where")
        or (len(where) >= 3 and where[-3] in ("preconditions", "all", "any") and isinstance(where[-2], int))
    )


#: marshmallow's Dict field reports a mapping entry's problem below its key, as ``key`` or ``value``.
_DICT_MARKERS = ("key", "value")
#: What YAML made of an unquoted scalar, by tag.
_YAML_TYPES = {
    "tag:yaml.org,2002:bool": "a boolean",
    "tag:yaml.org,2002:int": "a number",
    "tag:yaml.org,2002:float": "a number",
    "tag:yaml.org,2002:null": "null",
}
#: Refusals of a value that had to be text, with what to call that text.
_WANTS_TEXT = {_PLAIN["Not a valid string."]: "a string is expected here", VERSION_IS_TEXT: "a version is a string"}
#: marshmallow's refusal of a null, in its plain words.
_NULL = _PLAIN["Field may not be null."]


def document_path(node: Any, where: list[str | int]) -> list[str | int]:
    """``where`` without marshmallow's Dict markers (``spec.context.x.value.kind`` -> ``spec.context.x.kind``),
    so that the line and the field path are those of the document; a real ``key``/``value`` field stays."""
    out: list[str | int] = []
    for step in where:
        if step in _DICT_MARKERS and node_at(node, [*out, step]) is None:
            continue
        out.append(step)
    return out


def _label_text(where: list[str | int]) -> str:
    """What a label key or value of a ``labelSelector`` must be, or "" when ``where`` is neither."""
    if "labelSelector" not in where or len(where) < 2:
        return ""
    if where[-1] == "key":
        return "label keys are strings"
    if where[-2] == "matchLabels" or (where[-2] == "values" and isinstance(where[-1], int)):
        return "label values are strings"
    return ""


def yaml_typing(node: Any, where: list[str | int], reason: str) -> str:
    """``reason``, or, when it refuses a value that had to be text and YAML typed the unquoted scalar written
    there (``true``, ``yes``, ``1.30``, ``8``, or nothing at all), why and the quoted form to write instead."""
    scalar = node_at(node, where)
    if not isinstance(scalar, yaml.ScalarNode) or scalar.style or scalar.tag not in _YAML_TYPES:
        return reason
    label = _label_text(where)
    if reason == _NULL and label == "label values are strings":
        read = scalar.value or "an empty value"
        return f'{label}: write "" for an empty value (quoted); unquoted, YAML reads {read} as null'
    if reason not in _WANTS_TEXT:
        return reason
    what = label or _WANTS_TEXT[reason]
    word = _YAML_TYPES[scalar.tag]
    return f'{what}: write "{scalar.value}" (quoted); unquoted, YAML reads {scalar.value} as {word}'


def _rule_id(raw: Any, where: list[str | int]) -> str:
    if len(where) >= 3 and where[:2] == ["spec", "rules"] and isinstance(where[2], int):
        try:
            return str(raw["spec"]["rules"][where[2]].get("id", f"#{where[2]}"))
        except (KeyError, IndexError, TypeError, AttributeError):
            return f"#{where[2]}"
    return ""


#: A policy or data file larger than this is refused before it is read (the largest built-in one is ~80 KB):
#: a stray large file in a policy folder kept a master at gigabytes of memory after its reload was refused.
MAX_POLICY_BYTES = limit("VERDICT_MAX_POLICY_BYTES")


def _read_bounded(path: Path) -> bytes:
    """The bytes of a policy or data file; ``PolicyError`` past ``MAX_POLICY_BYTES`` (read no further)."""
    with path.open("rb") as fh:
        raw = fh.read(MAX_POLICY_BYTES + 1)
    if len(raw) > MAX_POLICY_BYTES:
        raise PolicyError(
            str(path), f"larger than {MAX_POLICY_BYTES:,} bytes (VERDICT_MAX_POLICY_BYTES): not read; is it a policy?"
        )
    return raw


def _read_text(path: Path, shown: str, what: str) -> str:
    """The UTF-8 text of a data or included file, bounded; ``PolicyError`` at ``shown`` when it cannot be read."""
    try:
        return _read_bounded(path).decode("utf-8")
    except PolicyError as exc:
        raise PolicyError(shown, exc.reason) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise PolicyError(shown, f"cannot read {what}: {getattr(exc, 'strerror', None) or exc}") from None


def _mapping(doc: Any, shown: str, refusal: str) -> dict[str, Any]:
    """A YAML document of a data or included file ``shown`` as the mapping it must be; ``PolicyError`` for a syntax
    error, a key written twice, or another value (``refusal``)."""
    if doc.error:
        raise PolicyError(shown, doc.error, doc.line)
    if doc.duplicates:
        raise _first_of(_duplicate_keys(shown, doc.duplicates))
    if not isinstance(doc.data, dict):
        raise PolicyError(shown, refusal, doc.line)
    return doc.data


def _load_data_file(path: Path, shown: str) -> dict[str, Any]:
    tables: dict[str, Any] = {}
    for doc in load_documents(_read_text(path, shown, "data file")):
        tables.update(_mapping(doc, shown, "a data file holds a mapping of table name to table"))
    return tables


#: The first step of the field path of a context or var compiled from an included file, then the include's
#: position in ``spec.include``: where its errors are said in that file's words (``compile_document``).
_INCLUDED = "\0include"


def _problem_at(shown: str, node: Any, where: list[str | int], reason: str, rule: str = "") -> PolicyError:
    """A ``PolicyError`` at the field path ``where`` of the document ``node`` of file ``shown``: its line, its path as
    the document writes it, and the reason with YAML's typing of an unquoted scalar said."""
    where = document_path(node, where)
    return PolicyError(shown, yaml_typing(node, where, reason), node_line(node, where), rule, dotted(where))


@dataclass(slots=True)
class _Include:
    """A file of ``spec.include``, read and validated: its name as shown, YAML node (for lines) and content."""

    shown: str
    node: Any
    doc: dict[str, Any]


@functools.cache
def _why(exc: OSError | RuntimeError) -> str:
    """Why a path named by dataFiles or include could not be looked at: the system's words (File name too long), or
    Python's (Symlink loop from '...')."""
    return exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)


def _include_schema() -> IncludeSchema:
    return IncludeSchema()


def _read_include(base: Path | None, rel: str, path: Path | None, shown: str) -> tuple[_Include | None, str]:
    """The file ``rel`` of a policy's ``spec.include`` (``path``: resolved against the policy's folder ``base``),
    read and validated, or (None, why not) for the policy's own line. Raises ``PolicyError`` (the first, the others in
    its ``more``) for problems inside the file, at its own lines. It must lie in the policy file's folder or below
    it: a pack travels as its folder."""
    if base is None or path is None:
        return None, "include needs a policy read from a file"
    if Path(rel).is_absolute() or not path.is_relative_to(base.resolve()):
        return None, f"included file {rel!r} is outside the policy's folder: a pack travels as its folder"
    if not path.is_file():
        return None, f"included file {rel!r} not found next to the policy"
    inc_shown = str(Path(shown).parent / rel)
    docs = list(load_documents(_read_text(path, inc_shown, "included file")))
    if len(docs) != 1:
        line = docs[1].line if len(docs) > 1 else 1
        raise PolicyError(inc_shown, "an included file holds one YAML document (context: and vars:)", line)
    doc = docs[0]
    data = _mapping(doc, inc_shown, "an included file is a mapping with context: and vars:")
    others = [key for key in data if key not in ("context", "vars")]
    if others:  # a policy's field here (rules, dataFiles) is not one out of place: it belongs in the policies
        key = str(others[0])
        reason = f"an included file holds context: and vars: only, not {key!r} (the rest stays in each policy)"
        raise PolicyError(inc_shown, reason, node_line(doc.node, [key]), "", key)
    try:
        loaded = _include_schema().load(data)
    except ValidationError as exc:
        raise schema_problems(
            exc, lambda where, reason: _problem_at(inc_shown, doc.node, where, reason), _field_names()
        ) from None
    return _Include(inc_shown, doc.node, loaded), ""


def _included_definitions(
    spec: dict[str, Any], base: Path | None, shown: str, includes: dict[int, _Include], problems: _Problems
) -> tuple[dict[str, Any], dict[str, Any], bool]:
    """The contexts and vars of the files ``spec.include`` names, compiled (None for one refused), and whether one of
    the files could not be read; each file read is kept in ``includes`` by its position, for its errors' lines.

    The policy's own context or var of a name stands instead (as nodes.yaml's labelPresentFirst, which leaves out the
    node judged); a name two included files define is refused (which one would stand is not said by the order of a
    list); a file listed twice is read once (trial 126: its names were their own duplicates)."""
    contexts: dict[str, Any] = {}
    pvars: dict[str, Any] = {}
    from_file: dict[str, str] = {}
    read: set[Path] = set()
    failed = False
    for i, rel in enumerate(spec["include"]):
        try:
            path = (base / rel).resolve() if base is not None else None
            if path is not None and path in read:
                continue
            if path is not None:
                read.add(path)
            inc, why = _read_include(base, rel, path, shown)
        except (OSError, RuntimeError) as exc:  # a name the file system refuses, a symlink loop (trial 133)
            problems.add(["spec", "include", i], f"included file {quoted(rel[:80])} cannot be read: {_why(exc)}")
            failed = True
            continue
        except PolicyError as exc:
            problems.found.extend([exc, *exc.more])
            exc.more = []
            failed = True
            continue
        if inc is None:
            problems.add(["spec", "include", i], why)
            failed = True
            continue
        includes[i] = inc
        for part, own, compiled, make in (
            ("context", spec["context"], contexts, compile_context),
            ("vars", spec["vars"], pvars, compile_var),
        ):
            for n, definition in inc.doc[part].items():
                if n in own:
                    continue
                if n in from_file:
                    problems.add([_INCLUDED, i, part, n], f"{n!r} is also defined in {from_file[n]}: define it in one file")
                    continue
                from_file[n] = inc.shown
                compiled[n] = problems.attempt(make, n, definition, [_INCLUDED, i, part, n])
    return contexts, pvars, failed


def _placeholders_of(raw: Any) -> set[str]:
    """Every ``{name}`` placeholder written in a document's strings (trial 126: a refused included file made each
    placeholder naming one of its vars "names no var" too)."""
    found: set[str] = set()
    stack = [raw]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            found.update(m.group(1) for m in PLACEHOLDER.finditer(x))
        elif isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return found


def _bound_names(a: Assertion) -> set[str]:
    """Names a forEach binds for message substitution (its ``as`` name and ``index``), anywhere below ``a``."""
    names = {a.each_as, "index"} if a.op == "forEach" else set()
    for child in a.children:
        names |= _bound_names(child)
    return names


def _assertion_messages(raw: Any, where: list[str | int]) -> Iterator[tuple[list[str | int], str]]:
    """The ``message`` of every assertion of the (schema-loaded) assertion ``raw`` and of those it combines, with
    its field path."""
    if not isinstance(raw, dict):
        return
    if isinstance(raw.get("message"), str) and raw["message"]:
        yield [*where, "message"], raw["message"]
    elif "not" in raw and isinstance(raw.get("description"), str) and raw["description"]:
        # a failing not says its description when it has no message (trial 94: {nothing} in one was written out)
        yield [*where, "description"], raw["description"]
    for op in ("all", "any"):
        for i, child in enumerate(raw.get(op) or ()):
            yield from _assertion_messages(child, [*where, op, i])
    if "not" in raw:
        yield from _assertion_messages(raw["not"], [*where, "not"])
    if isinstance(raw.get("forEach"), dict):
        yield from _assertion_messages(raw["forEach"].get("assert_"), [*where, "forEach", "assert"])


def _raw_bound_names(raw: Any) -> set[str]:
    """Every name an assertion that did not compile could bind: each ``as`` below it, ``item`` and ``index``."""
    names = {"item", "index"}
    stack = [raw]
    while stack:
        x = stack.pop()
        if isinstance(x, dict):
            if isinstance(x.get("as_"), str):
                names.add(x["as_"])
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return names


def _compile_assumption(name: str, a: dict[str, Any], known: set[str]) -> Assumption:
    """One entry of ``spec.assumptions``, compiled; a note defaults to the message, which then must hold no
    placeholder. Raises ``CompileError``."""
    where: list[str | int] = ["spec", "assumptions", name]
    check_placeholders(a["message"], known, [*where, "message"])
    note = a.get("note")
    if note is None:
        if PLACEHOLDER.search(a["message"]):
            reason = "a message with {placeholders} needs a note: the report says it once per dump"
            raise CompileError([*where, "note"], reason)
        note = a["message"]
    return Assumption(name, compile_assertion(a["when"], [*where, "when"]), a["message"], note, a.get("onFailure", ""))


class _Problems:
    """The problems of one document, collected so that one part failing leaves the others to be checked:
    one lint round reports every independent mistake. ``fail`` makes a ``PolicyError`` of a field path."""

    def __init__(self, fail: Callable[[list[str | int], str], PolicyError]) -> None:
        self.fail = fail
        self.found: list[PolicyError] = []

    def attempt[**P, T](self, make: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T | None:
        """``make(...)``, or None with its ``CompileError`` kept."""
        try:
            return make(*args, **kwargs)
        except CompileError as exc:
            self.found.append(self.fail(exc.where, exc.reason))
            return None

    def add(self, where: list[str | int], reason: str) -> None:
        self.found.append(self.fail(where, reason))


def _compile_rule(
    r: dict[str, Any],
    i: int,
    policy: str,
    defaults: dict[str, Any],
    names: set[str],
    assumptions: dict[str, Assumption | None],
    node: Any,
    problems: _Problems,
) -> Rule | None:
    """Rule ``i`` of a document, compiled (its names still to be checked), or None when a part of it could
    not be (each refused part is in ``problems``; the parts are checked independently: a message placeholder
    refused leaves the rule whole for the name check). ``names`` are those the policy defines (contexts,
    vars) whether or not they compiled, and ``assumptions`` holds None for a refused one, so that a broken
    definition is not also reported as unknown."""
    where: list[str | int] = ["spec", "rules", i]
    rvars = {n: problems.attempt(compile_var, n, v, [*where, "vars", n]) for n, v in (r.get("vars") or {}).items()}
    assertion = problems.attempt(compile_assertion, r["assert_"], [*where, "assert"])
    # The names a forEach binds, from the compiled assertion; from a refused one, every name it could bind,
    # so that its placeholders are still checked in the same round (a trial took three lint rounds for four
    # mistakes)
    bound = _bound_names(assertion) if assertion is not None else _raw_bound_names(r["assert_"])
    known = BUILTIN_NAMES | names | set(rvars) | bound
    for fld in ("message", "passMessage", "remediation"):
        if r.get(fld):
            problems.attempt(check_placeholders, r[fld], known, [*where, fld])
    # An assertion's own message is a template too (trial 47: {teem} in one was written out as it stands).
    for at, template in _assertion_messages(r["assert_"], [*where, "assert"]):
        problems.attempt(check_placeholders, template, known, at)
    preconditions = [
        problems.attempt(compile_assertion, p, [*where, "preconditions", j]) for j, p in enumerate(r.get("preconditions") or ())
    ]
    for j, p in enumerate(r.get("preconditions") or ()):
        found = PLACEHOLDER.search(p.get("description") or "") if isinstance(p, dict) else None
        if found:
            # trial 94: "precondition not met: desc for {name}" was said as written
            problems.add(
                [*where, "preconditions", j, "description"],
                f"a precondition's description is the skip reason, said as written for every object it skips (the"
                f" report's notes count the skips by it): it takes no placeholder ({found.group(0)})",
            )
    for j, name in enumerate(r.get("assumes") or ()):
        if name not in assumptions:
            problems.add([*where, "assumes", j], unknown_name("assumption", name, assumptions))
    assumed = [assumptions.get(name) for name in r.get("assumes") or ()]
    # an assumption that was refused is left out, and the rule still compiled: its names are checked in the same
    # round (trial 128); the refusal itself fails the document
    if assertion is None or None in rvars.values() or None in preconditions:
        return None
    return Rule(
        policy=policy,
        id=r["id"],
        title=r["title"],
        description=r["description"],
        severity=r.get("severity", defaults["severity"]),
        category=r.get("category", defaults["category"]),
        on_failure=r.get("onFailure", defaults["onFailure"]),
        match=compile_match(r["match"]),
        exclude=compile_match(r["exclude_"]) if r.get("exclude_") else None,
        preconditions=tuple(p for p in preconditions if p is not None),
        vars={n: v for n, v in rvars.items() if v is not None},
        assertion=assertion,
        message=r["message"],
        pass_message=r.get("passMessage") or r["title"],
        remediation=r["remediation"],
        references=tuple(r["references"]),
        example=r.get("example"),
        line=node_line(node, where),
        assumes=tuple(a for a in assumed if a is not None),
    )


def _first_of(problems: list[PolicyError]) -> PolicyError:
    """The error to raise for ``problems`` (one or more, each perhaps with its ``more``): the first, holding
    every other in its ``more``, in the order given."""
    every = [q for p in problems for q in (p, *p.more)]
    for p in every:
        p.more = []
    every[0].more = every[1:]
    return every[0]


def compile_document(raw: Any, node: Any, shown: str, base: Path | None, pack: str = "") -> Policy:
    """Validate and compile one policy document. Raises ``PolicyError`` with file, line, rule and reason: the
    first problem, with every other one found in its ``more`` (marshmallow's field errors of the document;
    else each data file, context, var, assumption and rule part that is refused, then the unknown names when
    what they are looked up in compiled), by line."""

    includes: dict[int, _Include] = {}

    def fail(where: list[str | int], reason: str, rule: str = "") -> PolicyError:
        if where and where[0] == _INCLUDED:  # a context or var of an included file: said at its line there
            inc = includes[int(where[1])]
            return _problem_at(inc.shown, inc.node, where[2:], reason, rule)
        return _problem_at(shown, node, where, reason, rule or _rule_id(raw, document_path(node, where)))

    if not isinstance(raw, dict):
        raise PolicyError(shown, "a policy document is a mapping (apiVersion: verdict/v1, kind: Policy)", node_line(node, []))
    if raw.get("kind") == "Test" and str(raw.get("apiVersion", "")).startswith("verdict/"):
        # (trial 165: a pack's test beside its policies was "kind: Must be equal to Policy" and four unknown fields)
        raise PolicyError(
            shown,
            "a pack test (kind: Test), not a policy: a pack's tests are read from its tests/ folder (verdict policies"
            " test <pack>)",
            node_line(node, ["kind"]),
        )
    refused: list[PolicyError] = []  # field (schema) problems of rules compiled around
    positions: list[int] | None = None  # the position in the file of each rule compiled, when some were refused
    dropped: dict[str, set[str]] = {"context": set(), "assumptions": set()}  # refused definitions, by name
    try:
        doc = policy_schema().load(raw)
    except ValidationError as exc:
        first = schema_problems(exc, fail, _field_names())
        parts = _broken_parts(exc.messages)
        rest = None
        if parts is not None:
            broken, dropped = parts
            rest = _without_rules(_without_definitions(raw, dropped), broken)
        if rest is None:
            raise first from None
        # The problems are all inside some rules, contexts or assumptions: the rest is compiled too, so that one round
        # of fixes sees a bad path or an unknown name there as well as a misspelt field here (trial 123: a context's
        # kind refused hid every rule's problems).
        doc, positions = rest
        refused = [first, *first.more]
        first.more = []
    spec = doc["spec"]
    problems = _Problems(fail)
    problems.found.extend(refused)
    data = dict(spec["data"])
    for i, rel in enumerate(spec["dataFiles"]):
        try:
            data_path = (base / rel).resolve() if base is not None else None
            found = data_path is not None and data_path.is_file()
        except (OSError, RuntimeError) as exc:  # a name the file system refuses, a symlink loop (trials 131, 133)
            problems.add(["spec", "dataFiles", i], f"data file {quoted(rel[:80])} cannot be read: {_why(exc)}")
            continue
        if data_path is None:
            problems.add(["spec", "dataFiles", i], "dataFiles need a policy read from a file")
        elif not found:
            problems.add(["spec", "dataFiles", i], f"data file {rel!r} not found next to the policy")
        else:
            try:
                data.update(_load_data_file(data_path, str(Path(shown).parent / rel)))
            except PolicyError as exc:
                problems.found.append(exc)
    attempt = problems.attempt
    # spec.include first: contexts and vars written once for a pack's policies, the policy's own of a name after them
    # (name -> Var, in definition order: what a Scope looks vars up in)
    compiled_contexts, compiled_vars, include_failed = _included_definitions(spec, base, shown, includes, problems)
    compiled_contexts.update((n, attempt(compile_context, n, c, ["spec", "context", n])) for n, c in spec["context"].items())
    compiled_vars.update((n, attempt(compile_var, n, v, ["spec", "vars", n])) for n, v in spec["vars"].items())
    compiled_contexts.update(dict.fromkeys(dropped["context"]))  # refused by the schema: defined, not compiled
    names = set(compiled_contexts) | set(compiled_vars)
    if include_failed:  # its names are not known: a placeholder that may be one of them is not said to be unknown
        names |= _placeholders_of(raw)
    compiled_assumptions = {n: attempt(_compile_assumption, n, a, BUILTIN_NAMES | names) for n, a in spec["assumptions"].items()}
    compiled_assumptions.update(dict.fromkeys(dropped["assumptions"]))
    # Names are looked up in the data, contexts, vars and assumptions: with one of them refused, an unknown
    # name may be a broken definition, so names are checked only when they all compiled. A rule refused for its
    # fields defines none of them: the names of the others are checked still (trial 64: a misspelt field in one
    # rule hid an unknown context in another until the next round).
    names_checkable = len(problems.found) == len(refused)
    contexts = {n: c for n, c in compiled_contexts.items() if c is not None}
    pvars = {n: v for n, v in compiled_vars.items() if v is not None}
    assumptions = {n: a for n, a in compiled_assumptions.items() if a is not None}
    rules = []
    seen: set[str] = set()
    for j, r in enumerate(spec["rules"]):
        i = positions[j] if positions is not None else j
        if positions is not None:  # the ids of the refused rules before it count too
            seen.update(_raw_ids(raw, range(positions[j - 1] + 1 if j else 0, i)))
        if r["id"] in seen:
            problems.add(["spec", "rules", i, "id"], f"duplicate rule id {r['id']!r}")
        seen.add(r["id"])
        rule = _compile_rule(r, i, doc["metadata"]["name"], spec["defaults"], names, compiled_assumptions, node, problems)
        if rule is not None:
            rules.append(rule)
    if names_checkable:
        # a context the schema refused is known by its name (its own problem is said): read as one that joins nothing
        known = {**contexts, **{n: Context(n, "") for n in dropped["context"]}}
        problems.found.extend(fail(e.where, e.reason, e.rule) for e in check_names(known, pvars, data, rules, assumptions))
    if problems.found:
        # one round of fixes: every problem at once, in file order, a missing field after the typos it may echo
        problems.found.sort(key=lambda e: (e.reason.startswith("Missing data"), e.line))
        raise _first_of(problems.found)
    meta = doc["metadata"]
    return Policy(
        meta["name"],
        meta["version"],
        meta["title"],
        meta["description"],
        shown,
        data,
        contexts,
        pvars,
        tuple(rules),
        pack,
        tuple(spec["dataFiles"]),
        node_line(node, ["metadata", "name"]),
    )


def _broken_parts(messages: Any) -> tuple[dict[int, Any], dict[str, set[str]]] | None:
    """What marshmallow found in each rule it refused, by position, and the names of the contexts and assumptions
    it refused, when every problem it found is inside one of those; else None."""
    if not isinstance(messages, dict) or set(messages) != {"spec"}:
        return None
    spec = messages["spec"]
    if not isinstance(spec, dict) or not spec or not set(spec) <= {"rules", "context", "assumptions"}:
        return None
    rules = spec.get("rules", {})
    if not isinstance(rules, dict) or not all(isinstance(i, int) for i in rules):
        return None
    dropped: dict[str, set[str]] = {"context": set(), "assumptions": set()}
    for part in dropped:
        found = spec.get(part, {})
        # a Dict field's problems: {name: {"value": {...}}}; one about a key itself ({name: {"key": ...}}) is the
        # name's, which the rest cannot be compiled without
        if not isinstance(found, dict) or any(not isinstance(v, dict) or set(v) != {"value"} for v in found.values()):
            return None
        dropped[part] = set(found)
    return rules, dropped


def _without_definitions(raw: dict[str, Any], dropped: dict[str, set[str]]) -> dict[str, Any]:
    """The document without the contexts and assumptions ``dropped`` names."""
    if not any(dropped.values()):
        return raw
    spec = dict(raw["spec"])
    for part, names in dropped.items():
        if names and isinstance(spec.get(part), dict):
            spec[part] = {k: v for k, v in spec[part].items() if k not in names}
    return {**raw, "spec": spec}


#: Stand-ins for a rule's fields that say nothing about its logic: a rule whose only problems are in some of them
#: (missing, or a value refused: severity: urgent) is compiled with them, so that its paths and names are checked
#: in the same round as those problems are said.
_STAND_INS: dict[str, Any] = {
    "title": "-",
    "message": "-",
    "references": ["https://kubernetes.io/"],
    "severity": "medium",
    "category": "",
    "onFailure": "fail",
    # (trial 135: kinds: [] left the rule's other mistakes unsaid; preconditions that are no list, too)
    "match": {"kinds": ["*"]},
    "preconditions": [],
}


def _unknown(reasons: Any) -> bool:
    """Whether marshmallow's ``reasons`` for a field say only that the field is unknown."""
    return isinstance(reasons, list) and len(reasons) == 1 and str(reasons[0]) == "Unknown field."


def _stood_in(rule: Any, found: Any, deep: bool = False) -> Any:
    """``rule`` with stand-ins for the fields marshmallow refused or found missing among ``_STAND_INS``, and without
    the fields it does not know (a misspelt ``titel``: trial 64), when that is all it found in it; else None.
    ``deep``: a field it does not know at any depth is written as the known field closest to it (``exsits`` as
    ``exists``, ``asert`` as ``assert``), else left out, so that the rest of the rule is compiled and its other
    mistakes are found in the same round (trial 71: a misspelt operator hid an unknown placeholder of its rule)."""
    if not isinstance(rule, dict) or not isinstance(found, dict) or not found:
        return None
    stood = {key for key in found if key in _STAND_INS}
    rest = {key: reasons for key, reasons in found.items() if key not in stood}
    if deep:
        respelt = _respelt(rule, rest, _field_names())
        return None if respelt is None else {**respelt, **{key: _STAND_INS[key] for key in stood}}
    unknown = {key for key, reasons in rest.items() if key in rule and _unknown(reasons)}
    if unknown != set(rest):
        return None
    kept = {key: value for key, value in rule.items() if key not in unknown}
    return {**kept, **{key: _STAND_INS[key] for key in stood}}


def _respelt(value: Any, found: Any, known: Iterable[str]) -> Any:
    """``value`` with each field ``found`` (marshmallow's errors below it) calls unknown renamed to the closest
    ``known`` field it does not already have, or left out; None when ``found`` holds another problem."""
    if not isinstance(found, dict):
        return None
    if isinstance(value, list):
        items = list(value)
        for index, below in found.items():
            if not isinstance(index, int) or not 0 <= index < len(items):
                return None
            items[index] = _respelt(items[index], below, known)
            if items[index] is None:
                return None
        return items
    if not isinstance(value, dict):
        return None
    out = dict(value)
    for key, below in found.items():
        if key not in value:
            return None
        if _unknown(below):
            close = difflib.get_close_matches(key, known, n=1, cutoff=0.75)
            moved = out.pop(key)
            if close and close[0] not in out:
                out[close[0]] = moved
            continue
        out[key] = _respelt(value[key], below, known)
        if out[key] is None:
            return None
    return out


def _raw_ids(raw: dict[str, Any], positions: Iterable[int]) -> list[str]:
    """The ids, as written, of the rules at ``positions`` of a document (those that are strings)."""
    rules = raw["spec"]["rules"]
    return [r["id"] for r in (rules[i] for i in positions) if isinstance(r, dict) and isinstance(r.get("id"), str)]


def _without_rules(raw: dict[str, Any], broken: dict[int, Any]) -> tuple[dict[str, Any], list[int] | None] | None:
    """The document validated without the rules at ``broken`` (those ``_stood_in`` can mend kept, mended), and the
    position of each rule it keeps (None with no rule refused); None when that does not validate either (no rule
    left)."""
    if not broken:
        try:
            return policy_schema().load(raw), None
        except ValidationError:
            return None
    # misspelt fields at any depth written as their closest known field first; where that does not validate (a
    # guess that is no better), only the label fields stood in for, as before
    for deep in (True, False):
        rules = list(raw["spec"]["rules"])
        stood = {i: s for i, found in broken.items() if (s := _stood_in(rules[i], found, deep)) is not None}
        rules = [stood.get(i, rule) for i, rule in enumerate(rules)]
        kept = [i for i in range(len(rules)) if i not in broken or i in stood]
        try:
            doc = policy_schema().load({**raw, "spec": {**raw["spec"], "rules": [rules[i] for i in kept]}})
        except ValidationError:
            continue
        return doc, kept
    return None


def _duplicate_keys(shown: str, duplicates: tuple[tuple[str, int, int], ...]) -> list[PolicyError]:
    """A key written twice in one mapping: YAML keeps the last and drops the first without a word (a rule's
    second ``preconditions:`` silently replaced its first), so a policy or data file with one is refused."""
    return [
        PolicyError(shown, f"key {key!r} stands twice in one mapping: YAML would keep only the last one; write it once", line)
        for key, line, _ in duplicates
    ]


#: A message, remediation or other text written as a plain YAML scalar on its key's line, with a " #" in it: YAML
#: reads what follows as a comment.
_TEXT_WITH_COMMENT = re.compile(
    r"^\s*-?\s*(message|passMessage|remediation|description|title|note):[ \t]+[^'\"|>\s#][^#\n]*?[ \t]#"
)


def texts_cut_at_comments(text: str) -> list[tuple[int, str]]:
    """The line and key of each text of a policy file written plain with a " #" in it, which YAML cut there (trial 243
    #3: "remediation: kubectl edit pod ... # add resources.limits.memory" loaded, and the fix said only the edit),
    each with what ``policies lint`` and the service's lint say of it (``comment_cut``)."""
    return [(n, m.group(1)) for n, line in enumerate(text.splitlines(), 1) if (m := _TEXT_WITH_COMMENT.match(line))]


def comment_cut(key: str) -> str:
    """What lint says of a ``key`` text cut at its " #" (``texts_cut_at_comments``)."""
    return (
        f"{key}: what follows its ' #' is a YAML comment, left out of the text: quote the text, or write it as a folded"
        f" block ({key}: >-, the text on the lines under it)"
    )


def load_policy_text(text: str, shown: str, base: Path | None = None, pack: str = "") -> list[Policy]:
    """Every policy document in one YAML text. Raises ``PolicyError``: the first problem, with the others of
    every document in its ``more`` (a broken document does not hide the next one's problems)."""
    out = []
    problems: list[PolicyError] = []
    for doc in load_documents(text):
        if doc.error:
            problems.append(PolicyError(shown, doc.error, doc.line))
            continue
        if doc.duplicates:
            problems.extend(_duplicate_keys(shown, doc.duplicates))
            continue
        if doc.data is None:
            continue  # an empty document ('---' with nothing after it), as kubectl skips one (trial 123)
        try:
            compiled = compile_document(doc.data, doc.node, shown, base, pack)
            if (where := _control_character(doc.data)) is not None:
                # trial 181: a JSON policy's "\u001b]0;..." (an escape YAML's text allows) reached the terminal through
                # verdict policies list and show; a character YAML itself refuses is refused wherever it was written
                # (after the policy's own checks, which say more of a file name's: trial 128)
                steps, char = where
                said = "".join(f"[{s}]" if isinstance(s, int) else f".{s}" if i else s for i, s in enumerate(steps))
                reason = f"{said} holds the control character U+{ord(char):04X}, which a terminal acts on: write text only"
                raise PolicyError(shown, reason, node_line(doc.node, steps), path=said)
            out.append(compiled)
        except PolicyError as exc:
            problems.append(exc)
        except RecursionError:
            problems.append(PolicyError(shown, "nested too deeply to compile", doc.line))
        except Exception as exc:  # a refusal, never a traceback: the service keeps its last good set
            problems.append(PolicyError(shown, f"could not compile: {type(exc).__name__}: {exc}", doc.line))
    if problems:
        raise _first_of(problems)
    if not out:
        raise PolicyError(shown, "no policy document in the file")
    return out


#: Characters no policy text may hold (YAML's printable set leaves out the same C0, DEL and C1 ones), and the
#: bidirectional controls the text formats escape in a dump's values (``rules.render.visible``).
_CONTROL = re.compile(f"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f{BIDI_CONTROLS}]")


def _control_character(data: Any, steps: tuple[str | int, ...] = ()) -> tuple[list[str | int], str] | None:
    """The first string of a policy document (a key or a value) holding a ``_CONTROL`` character: the steps to it
    (mapping keys and list indexes) and the character."""
    if isinstance(data, str):
        m = _CONTROL.search(data)
        return (list(steps), m.group()) if m else None
    if isinstance(data, dict):
        for k, v in data.items():
            found = _control_character(k, steps) or _control_character(v, (*steps, str(k)))
            if found:
                return found
    elif isinstance(data, list):
        for i, v in enumerate(data):
            if found := _control_character(v, (*steps, i)):
                return found
    return None


def load_policy_file(path: Path, pack: str = "") -> list[Policy]:
    """Load one policy file. Raises ``PolicyError``."""
    try:
        raw = _read_bounded(path)
    except OSError as exc:
        raise PolicyError(str(path), f"cannot read: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = byte_place(raw, exc.start)
        reason = f"not UTF-8 text: byte 0x{raw[exc.start]:02x} at line {line}, column {column} (save the file as UTF-8)"
        raise PolicyError(str(path), reason, line) from None
    return load_policy_text(text, str(path), path.parent, pack)


def pack_files(folder: Path) -> list[Path]:
    """The policy files of a pack folder (its top-level ``*.yaml``/``*.yml``), sorted."""
    return sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in (".yaml", ".yml"))


def pack_folders_unread(folder: Path) -> list[Path]:
    """The folders of a pack holding policies that are not read: any but data/ and tests/ (and hidden ones) with a
    ``kind: Policy`` document, e.g. a rules/ folder its author put policies in (trial 165: lint said ok, and they were
    never loaded); one of included context and vars files (the built-in pack's shared/) is read through them."""

    def holds_policy(path: Path) -> bool:
        try:
            with path.open("rb") as f:
                # (trial 167: kind: "Policy" and kind: Policy  # a comment were missed)
                found = re.search(rb"(?m)^kind:[ \t]*([\"']?)Policy\1[ \t]*(?:#.*)?\r?$", f.read(MAX_POLICY_BYTES))
                return found is not None
        except OSError:
            return False

    return sorted(
        d
        for d in folder.iterdir()
        if d.is_dir()
        and d.name not in ("data", "tests")
        and not d.name.startswith(".")
        and any(holds_policy(f) for f in pack_files(d))
    )


def pack_name(folder: Path) -> str:
    """A pack's name: its folder's name, also when the folder is given as ``.`` or ``..`` (the absolute
    path's last part; symbolic links are not followed, so a linked pack keeps the name it is given by)."""
    return Path(os.path.abspath(folder)).name


def resolve(source: str) -> Path:
    """A policy argument: a file, a pack folder, or the name of a built-in pack. Raises ``PolicyError``."""
    p = Path(source)
    if p.exists():
        return p
    builtin = BUILTIN_DIR / source
    if builtin.is_dir():
        return builtin
    known = ", ".join(sorted(d.name for d in BUILTIN_DIR.iterdir() if d.is_dir())) if BUILTIN_DIR.is_dir() else ""
    raise PolicyError(source, f"no such policy file or folder, and no built-in pack of that name (built-in: {known})")


def load_policies(sources: Iterable[str] = ()) -> PolicySet:
    """Load policies from files, pack folders or built-in pack names (default: the built-in packs).

    Collects every error across files and raises ``PolicyLoadError`` if there is any, so a broken file is
    never half-loaded. Duplicate policy names are refused.
    """
    sources = list(sources) or [str(BUILTIN_DIR / name) for name in DEFAULT_PACKS]
    errors: list[PolicyError] = []
    policies: list[Policy] = []
    # a file given twice (-p pack -p pack, gpu-operator:gpu-operator, a pack and a file of it) is loaded once: its
    # policies are not their own duplicates (trial 123: "policy name 'x' is also used by" the same file and line)
    read: set[Path] = set()
    for source in sources:
        try:
            path = resolve(source)
        except PolicyError as exc:
            errors.append(exc)
            continue
        files = pack_files(path) if path.is_dir() else [path]
        pack = pack_name(path) if path.is_dir() else ""
        if path.is_dir() and not files:
            errors.append(PolicyError(str(path), "the folder holds no *.yaml policy file"))
        for f in files:
            if f.resolve() in read:
                continue
            read.add(f.resolve())
            try:
                policies.extend(load_policy_file(f, pack))
            except PolicyError as exc:
                errors.append(exc)
                errors.extend(exc.more)
            except Exception as exc:  # never a traceback at start or reload: a refusal, and the last good set stays
                errors.append(PolicyError(str(f), f"could not load: {type(exc).__name__}: {exc}"))
    names: dict[str, str] = {}
    for p in policies:
        if p.name in names:
            errors.append(PolicyError(p.file, f"policy name {p.name!r} is also used by {names[p.name]}", p.line))
        names[p.name] = f"{p.file}:{p.line}" if p.line else p.file
    if errors:
        raise PolicyLoadError(errors)
    return PolicySet(policies)
