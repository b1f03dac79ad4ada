"""Exemptions: an operator accepts a known finding without editing the pack (docs/exemptions.md).

Two sources, both kept apart from the rules (pack-level settings stay outside the rule, as Polaris keeps
its exemptions in its config and in ``polaris.fairwinds.com/<check>-exempt`` annotations):

- the annotation ``verdict.dev/exempt: "<rules>: <reason>"`` on the judged object, where ``<rules>`` is a
  comma-separated list of ``policy/rule``, ``rule`` (a rule id in any policy) or ``policy/*``;
- exemptions files (``apiVersion: verdict/v1, kind: Exemptions``), validated at load with marshmallow like
  policies (``ExemptionLoadError``, each ``rules.errors.ExemptionError`` with file, line, path, reason).

``Exempter`` is what ``rules.evaluate.evaluate`` calls once a rule's results on an object are known: a
``fail`` or ``warn`` result of an exempted (object, rule) becomes ``skip`` with the message
``exempt: <reason> (<source>)`` and a ``rules.report.Exemption`` that keeps the finding; ``pass``, ``error``
and ``skip`` results are left as they are. The annotation wins over a file; among files, the first
exemption that matches (in load order). An exemption whose ``expires`` date has passed is not applied and
is noted in the report, as is every exemption that applied. A malformed annotation is an input error on
its object (placed at the object) and is ignored: the object's findings stay, unless a file exempts them.
"""

from __future__ import annotations

import difflib
import os
import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, timedelta
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from marshmallow import Schema, ValidationError, fields, validate

from .errors import ExemptionError, InputError
from .loader import PolicyLoadError, dotted, schema_problems
from .model import Match, compile_match
from .reader import KObject
from .report import Exemption, Result
from .schema import NON_EMPTY, LabelSelectorSchema
from .yamlsafe import load_documents, node_line

ANNOTATION = "verdict.dev/exempt"
ANNOTATION_PATH = f"$.metadata.annotations['{ANNOTATION}']"
#: the result words an exemption turns into ``skip``
EXEMPTABLE = ("fail", "warn")
_LABEL = r"[a-z0-9](?:[-a-z0-9]*[a-z0-9])?"
#: ``policy/rule``, ``rule`` or ``policy/*`` (policy names and rule ids are DNS-1123 labels)
RULE_SELECTOR = re.compile(rf"^{_LABEL}(?:/(?:{_LABEL}|\*))?$")
_SELECTOR_HELP = "a rule is written policy/rule, rule (an id in any policy) or policy/*"
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$")


class ExemptionLoadError(PolicyLoadError):
    """One or more exemptions files were refused; ``errors`` lists every ``ExemptionError`` found."""


def expiry(text: str) -> datetime:
    """The first instant an exemption with ``expires: text`` no longer applies.

    ``text`` is an RFC 3339 ``full-date`` (``2026-06-30``: the exemption applies through that day, UTC) or
    ``date-time`` with an offset (``2026-06-30T18:00:00Z``). Raises ``ValueError`` for anything else.
    """
    if _DATE.match(text):
        day = date.fromisoformat(text)
        return datetime(day.year, day.month, day.day, tzinfo=UTC) + timedelta(days=1)
    if _DATE_TIME.match(text):
        return datetime.fromisoformat(text.upper()).astimezone(UTC)
    raise ValueError(f"{text!r} is not an RFC 3339 date (2026-06-30) or date-time (2026-06-30T18:00:00Z)")


def _check_expires(value: str) -> None:
    try:
        expiry(value)
    except ValueError as exc:
        raise ValidationError(str(exc)) from None


def _check_reason(value: str) -> None:
    if not value.strip():
        raise ValidationError("the reason must say why the finding is accepted")


class ExemptionSchema(Schema):
    """One exemption: the rules it covers, which objects (every given part must hold), why, until when."""

    rules = fields.List(
        fields.String(validate=validate.Regexp(RULE_SELECTOR, error=f"{{input!r}}: {_SELECTOR_HELP}")),
        required=True,
        validate=NON_EMPTY,
        metadata={"description": "policy/rule, rule (an id in any policy) or policy/*"},
    )
    kinds = fields.List(fields.String(validate=validate.Length(min=1)), validate=NON_EMPTY)
    namespaces = fields.List(fields.String(), metadata={"description": "namespace globs"})
    names = fields.List(fields.String(), metadata={"description": "name globs"})
    labelSelector = fields.Nested(LabelSelectorSchema)
    # (written dumps: a field named so would hide Schema.dumps)
    dump_globs = fields.List(
        fields.String(validate=validate.Length(min=1)),
        data_key="dumps",
        validate=NON_EMPTY,
        metadata={"description": "globs of the dump's name, as the report names it, or of a trailing part of it"},
    )
    reason = fields.String(required=True, validate=_check_reason)
    expires = fields.String(validate=_check_expires, metadata={"description": "RFC 3339 date; not applied after it"})


class ExemptionsSchema(Schema):
    """An exemptions document."""

    apiVersion = fields.String(required=True, validate=validate.Equal("verdict/v1"))
    kind = fields.String(required=True, validate=validate.Equal("Exemptions"))
    exemptions = fields.List(fields.Nested(ExemptionSchema), required=True)


_KNOWN_FIELDS = sorted(
    {
        f.data_key or name
        for schema in (ExemptionSchema(), ExemptionsSchema(), LabelSelectorSchema())
        for name, f in schema.fields.items()
    }
)


def covers(selectors: Iterable[str], policy: str, rule: str) -> bool:
    """True when one of ``selectors`` (``policy/rule``, ``rule``, ``policy/*``) names rule ``policy/rule``."""
    for s in selectors:
        p, sep, r = s.partition("/")
        if (not sep and s == rule) or (sep and p == policy and r in ("*", rule)):
            return True
    return False


def _one_line(text: str) -> str:
    return " ".join(text.split())


@dataclass(frozen=True, slots=True)
class FileExemption:
    """One entry of an exemptions file, compiled: ``rules`` selectors, ``match`` (kinds, namespace and name
    globs, label selector), ``reason``, ``expires`` as written ("" for none) and ``until``, the first instant
    it no longer applies (None: never expires); ``file`` and ``line`` of the entry."""

    rules: tuple[str, ...]
    match: Match
    reason: str
    file: str
    line: int
    expires: str = ""
    until: datetime | None = None
    #: globs of the dumps it applies to (``for_dump``); () for every dump
    dumps: tuple[str, ...] = ()

    @property
    def source(self) -> str:
        """``<file>:<line>`` of the entry."""
        return f"{self.file}:{self.line}"

    def covers_dump(self, name: str) -> bool:
        """Whether a glob of ``dumps`` matches the dump ``name`` or a trailing part of it, at a ``/`` (``cluster-a``,
        ``dumps/cluster-a``), once ``.`` and ``..`` are resolved: the same dump given as ``./dumps/cluster-a`` or by
        its absolute path is matched alike (trial 176: either turned the entry off without a word)."""
        parts = [p for p in posixpath.normpath(name.replace(os.sep, "/")).split("/") if p]
        forms = {name, *("/".join(parts[i:]) for i in range(len(parts)))}
        return any(fnmatchcase(form, glob) for glob in self.dumps for form in forms)

    def expired(self, now: datetime) -> bool:
        """True when ``now`` is at or past ``until``."""
        return self.until is not None and now >= self.until

    def applies(self, obj: KObject, policy: str, rule: str) -> bool:
        """True when the entry covers the rule and selects the object."""
        return covers(self.rules, policy, rule) and self.match.matches(
            obj.kind, obj.api_version, obj.namespace, obj.name, obj.labels
        )


@dataclass(frozen=True, slots=True)
class ExemptionSet:
    """The exemptions in force, in load order, and the files they came from."""

    exemptions: tuple[FileExemption, ...] = ()
    files: tuple[str, ...] = ()

    def for_dump(self, name: str) -> ExemptionSet:
        """The exemptions that apply to the dump ``name`` (a report's name: the path given, an archive, a folder or a
        must-gather of a batch, the service's ``name``): those without ``dumps``, and those that cover it
        (``FileExemption.covers_dump``; trial 175: in a nightly batch of clusters, an exemption of one cluster's node hid
        the finding of another's node of the same name)."""
        if not any(e.dumps for e in self.exemptions):
            return self
        return ExemptionSet(tuple(e for e in self.exemptions if not e.dumps or e.covers_dump(name)), self.files)


def _compile(raw: Any, node: Any, shown: str) -> list[FileExemption]:
    """Validate and compile one exemptions document. Raises ``ExemptionError`` (the first problem, earliest
    line first, with every other one in ``more``)."""
    if not isinstance(raw, dict):
        raise ExemptionError(
            shown, "an exemptions document is a mapping (apiVersion: verdict/v1, kind: Exemptions)", node_line(node, [])
        )
    try:
        doc = ExemptionsSchema().load(raw)
    except ValidationError as exc:
        raise schema_problems(
            exc, lambda where, reason: ExemptionError(shown, reason, node_line(node, where), path=dotted(where)), _KNOWN_FIELDS
        ) from None
    out = []
    for i, e in enumerate(doc["exemptions"]):
        expires = e.get("expires", "")
        out.append(
            FileExemption(
                rules=tuple(e["rules"]),
                match=compile_match(e),
                reason=_one_line(e["reason"]),
                file=shown,
                line=node_line(node, ["exemptions", i]),
                expires=expires,
                until=expiry(expires) if expires else None,
                dumps=tuple(e.get("dump_globs", ())),
            )
        )
    return out


def load_exemptions_text(text: str, shown: str) -> list[FileExemption]:
    """Every exemption of one YAML text (one or more ``kind: Exemptions`` documents). Raises
    ``ExemptionError`` on the first broken document."""
    out: list[FileExemption] = []
    seen = False
    for doc in load_documents(text):
        if doc.error:
            raise ExemptionError(shown, doc.error, doc.line)
        seen = True
        out.extend(_compile(doc.data, doc.node, shown))
    if not seen:
        raise ExemptionError(shown, "no exemptions document in the file (apiVersion: verdict/v1, kind: Exemptions)")
    return out


def load_exemptions(paths: Iterable[str]) -> ExemptionSet:
    """Load exemptions files, in order. Collects every error across files and raises
    ``ExemptionLoadError`` if there is any: a broken file is never half-applied."""
    errors: list[ExemptionError] = []
    found: list[FileExemption] = []
    files = [str(p) for p in paths]
    for shown in files:
        try:
            text = Path(shown).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            errors.append(ExemptionError(shown, f"cannot read: {getattr(exc, 'strerror', None) or exc}"))
            continue
        try:
            found.extend(load_exemptions_text(text, shown))
        except ExemptionError as exc:
            errors.append(exc)
            errors.extend(e for e in exc.more if isinstance(e, ExemptionError))
    if errors:
        raise ExemptionLoadError(list(errors))
    return ExemptionSet(tuple(found), tuple(files))


def parse_annotation(value: Any) -> tuple[tuple[str, ...], str]:
    """``"<rules>: <reason>"`` -> (rule selectors, reason). The rules are comma-separated ``policy/rule``,
    ``rule`` or ``policy/*``; the reason is everything after the first ``:`` and may not be empty.
    Raises ``ValueError`` saying what is wrong."""
    if not isinstance(value, str):
        raise ValueError(f"the value must be a string '<rules>: <reason>', not {type(value).__name__}")
    head, sep, reason = value.partition(":")
    if not sep:
        raise ValueError("expected '<rules>: <reason>', e.g. 'gpu-nodes/no-unhealthy-devices: node in RMA, TICKET-1'")
    selectors = tuple(s.strip() for s in head.split(","))
    if not head.strip():
        raise ValueError("name at least one rule before ':'")
    bad = [s for s in selectors if not RULE_SELECTOR.match(s)]
    if bad:
        raise ValueError(f"{', '.join(repr(s) for s in bad)}: {_SELECTOR_HELP}")
    if not reason.strip():
        raise ValueError("the reason after ':' is required: say why the finding is accepted")
    return selectors, _one_line(reason)


@dataclass(slots=True)
class Exempter:
    """Applies exemptions to the results of one dump, as of ``now``; gathers the input errors of malformed
    annotations (``errors``) and what to note in the report (``notes()``)."""

    exemptions: ExemptionSet
    now: datetime
    errors: list[InputError] = field(default_factory=list)
    _active: tuple[FileExemption, ...] = ()
    _expired: tuple[FileExemption, ...] = ()
    _used: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        active: list[FileExemption] = []
        expired: list[FileExemption] = []
        for e in self.exemptions.exemptions:
            (expired if e.expired(self.now) else active).append(e)
        self._active = tuple(active)
        self._expired = tuple(expired)

    def apply(self, obj: KObject, results: list[Result]) -> list[Result]:
        """``results`` of ``obj`` with each exempted ``fail``/``warn`` turned into ``skip``."""
        annotated = self._annotation(obj)
        if annotated is None and not self._active:
            return results
        out = []
        for r in results:
            if r.result not in EXEMPTABLE:
                out.append(r)
                continue
            if annotated is not None and covers(annotated[0], r.policy, r.rule):
                out.append(self._exempt(r, Exemption(annotated[1], r), f"annotation {ANNOTATION} on {_ref(obj)}", annotated[0]))
                continue
            entry = next((e for e in self._active if e.applies(obj, r.policy, r.rule)), None)
            if entry is None:
                out.append(r)
            else:
                out.append(self._exempt(r, Exemption(entry.reason, r, entry.file, entry.line), entry.source, entry.rules))
        return out

    def _annotation(self, obj: KObject) -> tuple[tuple[str, ...], str] | None:
        annotations = obj.metadata.get("annotations")
        if not isinstance(annotations, dict) or ANNOTATION not in annotations:
            return None
        try:
            return parse_annotation(annotations[ANNOTATION])
        except ValueError as exc:
            self.errors.append(InputError(obj.source, f"annotation {ANNOTATION}: {exc}; no exemption applied", ANNOTATION_PATH))
            return None

    def _exempt(self, r: Result, exemption: Exemption, source: str, selectors: tuple[str, ...]) -> Result:
        key = f"{source} ({', '.join(selectors)}: {exemption.reason})"
        self._used[key] = self._used.get(key, 0) + 1
        return replace(
            r, result="skip", message=f"exempt: {exemption.reason} ({exemption.source})", remediation="", exemption=exemption
        )

    @property
    def used(self) -> dict[str, int]:
        """Results each exemption turned into ``skip`` so far: ``{"<source> (<rules>: <reason>)": count}``, in
        the order they were first used."""
        return self._used

    def merge(self, errors: list[InputError], used: dict[str, int]) -> None:
        """Add what another exempter gathered over the objects that follow this one's (a worker process's
        shard): its annotation errors, then its counts."""
        self.errors.extend(errors)
        for key, n in used.items():
            self._used[key] = self._used.get(key, 0) + n

    def notes(self, rules: Iterable[tuple[str, str]] = ()) -> list[str]:
        """``exemption <source> (<rules>: <reason>) applied to N results`` for each exemption used, then
        ``exemption <file>:<line> (...) expired on <date>: not applied`` for each expired one, then
        ``exemption <file>:<line> names no loaded rule: <selector>`` for each selector that covers none of
        ``rules`` (``(policy, rule)`` pairs in force): a typo in a rule id must not exempt nothing silently."""
        used = [f"exemption {key} applied to {n} result{'' if n == 1 else 's'}" for key, n in self._used.items()]
        expired = [
            f"exemption {e.source} ({', '.join(e.rules)}: {e.reason}) expired on {e.expires}: not applied" for e in self._expired
        ]
        loaded = list(rules)
        unknown = [
            f"exemption {e.source} names no loaded rule: {selector}{_closest_rule(selector, loaded)}"
            for e in self.exemptions.exemptions
            for selector in e.rules
            if loaded and not any(covers((selector,), p, r) for p, r in loaded)
        ]
        return used + expired + unknown


#: The notes ``Exempter.notes`` writes about an exemptions file itself (an expired entry, a rule id that names none).
_FILE_NOTE = re.compile(r"exemption \S+:\d+ (?:\(.*\) expired on .*: not applied$|names no loaded rule: )")


def about_the_file(note: str) -> bool:
    """Whether a report's note is one ``Exempter.notes`` writes about an exemptions file itself, the same for every
    dump of a batch (the CLI says it once: trial 175), not about the dump (an exemption applied to N results)."""
    return _FILE_NOTE.match(note) is not None


def _closest_rule(selector: str, loaded: list[tuple[str, str]]) -> str:
    """``; did you mean <rule>?`` with the loaded rules closest to a selector that names none (as ``policy/rule``
    when it has a policy, else by id; trial 71: a rule id missing a letter exempted nothing and said no more)."""
    forms = [f"{p}/{r}" for p, r in loaded] if "/" in selector else [r for _, r in loaded]
    close = difflib.get_close_matches(selector, sorted(set(forms)), n=2, cutoff=0.75)
    return f"; did you mean {' or '.join(close)}?" if close else ""


def _ref(obj: KObject) -> str:
    return f"{obj.kind}/{obj.namespace}/{obj.name}" if obj.namespace else f"{obj.kind}/{obj.name}"
