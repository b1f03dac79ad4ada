"""The result model every renderer reads: results per (object, rule), a verdict per object, a report.

Result words are PolicyReport's (wgpolicyk8s.io): ``pass`` the rule holds, ``fail`` it does not,
``warn`` it does not but the rule is advisory (not scored), ``error`` the rule could not be evaluated,
``skip`` preconditions unmet (the message says which), or a ``fail``/``warn`` accepted by an exemption
(``Result.exemption`` says why and keeps the finding; ``rules.exemptions``). An object's verdict is its
worst result, ``error > fail > warn > pass > skip``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from .errors import pickled_by_fields

RESULTS = ("pass", "fail", "warn", "error", "skip")
RESULT_RANK = {"skip": 0, "pass": 1, "warn": 2, "fail": 3, "error": 4}
SEVERITIES = ("critical", "high", "medium", "low", "info")
SEVERITY_RANK = {"info": 0, "low": 1, "medium": 2, "high": 3, "critical": 4}


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class ObjectRef:
    """Kubernetes ObjectReference fields of a judged object (namespace "" when cluster-scoped)."""

    api_version: str
    kind: str
    name: str
    namespace: str = ""
    uid: str = ""

    def __str__(self) -> str:
        return f"{self.kind}/{self.namespace}/{self.name}" if self.namespace else f"{self.kind}/{self.name}"

    def to_dict(self) -> dict[str, str]:
        """The report form: ``{"apiVersion", "kind", "namespace", "name", "uid"}``, all strings."""
        return {
            "apiVersion": self.api_version,
            "kind": self.kind,
            "namespace": self.namespace,
            "name": self.name,
            "uid": self.uid,
        }


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Result:
    """One (object, rule) result. ``observed``/``expected`` are plain JSON values or text; ``path`` is the
    JSONPath the assertion read; ``references`` the rule's sources."""

    policy: str
    rule: str
    title: str
    result: str
    severity: str
    category: str
    message: str
    path: str = ""
    observed: Any = None
    expected: Any = None
    remediation: str = ""
    references: tuple[str, ...] = ()
    exemption: Exemption | None = None
    #: the notes of the policy assumptions the verdict rests on (the message says them too)
    assumptions: tuple[str, ...] = ()

    @property
    def scored(self) -> bool:
        """PolicyReport's ``scored``: false for advisory (warn) results."""
        return self.result != "warn"

    def details(self) -> list[tuple[str, Any]]:
        """The set ``("path", ...)``, ``("observed", ...)``, ``("expected", ...)``, ``("remediation", ...)``
        pairs, in that order: those whose value is not ``None``, ``""``, ``[]`` or ``{}``."""
        pairs = (("path", self.path), ("observed", self.observed), ("expected", self.expected), ("remediation", self.remediation))
        return [(key, value) for key, value in pairs if value not in (None, "", [], {})]

    @property
    def finding(self) -> bool:
        """True for ``fail``, ``warn`` and ``error``, and for a ``skip`` an exemption made of one."""
        return self.result in ("fail", "warn", "error") or self.exemption is not None

    def to_dict(self) -> dict[str, Any]:
        """The report form of a finding (``finding``): ``{"policy", "rule", "title", "result", "severity",
        "category", "message", "path", "observed", "expected", "remediation", "references"}`` (``references`` a
        list), plus ``"exemption"`` (``Exemption.to_dict()``) when an exemption turned it into ``skip``, and
        ``"assumptions"`` (a list of notes) when the verdict rests on what the dump does not show.

        A pass or a precondition's skip is ``{"policy", "rule", "result", "message"}``: its short message says
        what it is (the title, the reason for the skip, an assumption); the rule's title, severity, category
        and references are the rule's (``Report.rules``, ``GET /v1/rules/{id}``), and the evidence is a
        finding's. Repeating them for every passing check of every object made a 5,000-node report 1.3 GB
        (issue 11); the other formats read the ``Result`` itself."""
        if not self.finding:
            return {"policy": self.policy, "rule": self.rule, "result": self.result, "message": self.message}
        out: dict[str, Any] = {
            "policy": self.policy,
            "rule": self.rule,
            "title": self.title,
            "result": self.result,
            "severity": self.severity,
            "category": self.category,
            "message": self.message,
            "path": self.path,
            "observed": self.observed,
            "expected": self.expected,
            "remediation": self.remediation,
            "references": list(self.references),
        }
        if self.exemption is not None:
            out["exemption"] = self.exemption.to_dict()
        if self.assumptions:
            out["assumptions"] = list(self.assumptions)
        return out


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class Exemption:
    """Why a result is ``skip`` although its rule failed: an exemption accepted the finding.

    ``reason`` is the operator's justification; ``file`` and ``line`` locate the entry of an exemptions file
    that applied (``file`` is "" when the ``verdict.dev/exempt`` annotation on the object applied);
    ``finding`` is the ``fail`` or ``warn`` result the exemption replaced (SARIF shows it, suppressed)."""

    reason: str
    finding: Result
    file: str = ""
    line: int = 0

    @property
    def source(self) -> str:
        """Where the exemption came from: ``<file>:<line>``, or ``annotation verdict.dev/exempt``."""
        return f"{self.file}:{self.line}" if self.file else "annotation verdict.dev/exempt"

    @property
    def in_source(self) -> bool:
        """True for the annotation (it lives in the dump, next to the object), False for a file."""
        return not self.file

    def to_dict(self) -> dict[str, Any]:
        """The report form: ``{"source", "reason", "result", "message"}``; ``result`` and ``message`` are
        the finding's (what the result would have been without the exemption)."""
        return {
            "source": self.source,
            "reason": self.reason,
            "result": self.finding.result,
            "message": self.finding.message,
        }


@pickled_by_fields
@dataclass(frozen=True, slots=True)
class ObjectReport:
    """An object's results; ``source`` is a ``rules.errors.Source``."""

    ref: ObjectRef
    source: Any
    results: tuple[Result, ...]

    @property
    def verdict(self) -> str:
        """The worst result (``error > fail > warn > pass > skip``); ``skip`` when there is none."""
        return max((r.result for r in self.results), key=RESULT_RANK.__getitem__, default="skip")

    def to_dict(self) -> dict[str, Any]:
        """The report form: ``ref.to_dict()`` plus ``"source"`` (``Source.to_dict()``), ``"verdict"`` and
        ``"results"`` (a list of ``Result.to_dict()``)."""
        out: dict[str, Any] = self.ref.to_dict()
        out["source"] = self.source.to_dict()
        out["verdict"] = self.verdict
        out["results"] = [r.to_dict() for r in self.results]
        return out


def counted(count: int, noun: str, plural: str = "") -> str:
    """``1 object``, ``2 objects``: a count and its noun, plural unless one (``plural``, else ``noun`` + s)."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"


def first_few(names: list[str], shown: int) -> str:
    """``a, b, c and 4 more``: the first ``shown`` of ``names``, and how many are left out."""
    rest = len(names) - shown
    return ", ".join(names[:shown]) + (f" and {rest} more" if rest > 0 else "")


#: Result words a roll-up counts: the findings.
FINDINGS = ("fail", "warn", "error")
#: Objects a roll-up entry names as examples of its rule's findings.
ROLLUP_EXAMPLES = 3


@dataclass(frozen=True, slots=True)
class RuleRollup:
    """The findings of one rule in a report: ``rule`` is ``policy/rule``; ``fail``, ``warn``, ``error`` count
    its results by word; ``objects`` counts the objects with a finding of it; ``examples`` are the first
    ``ROLLUP_EXAMPLES`` of them (``Kind/namespace/name``), in report order."""

    rule: str
    policy: str
    title: str
    severity: str
    fail: int
    warn: int
    error: int
    objects: int
    examples: tuple[str, ...]

    @property
    def findings(self) -> int:
        """fail + warn + error."""
        return self.fail + self.warn + self.error

    @property
    def worst(self) -> str:
        """The worst word it counts (``error > fail > warn``)."""
        return "error" if self.error else "fail" if self.fail else "warn"

    def counts(self) -> str:
        """The words it counts, in the order fail, warn, error: ``2 fail, 1 error``."""
        return ", ".join(f"{n:,} {word}" for word in FINDINGS if (n := getattr(self, word)))

    def to_dict(self) -> dict[str, Any]:
        """The report form: ``{"rule", "policy", "title", "severity", "fail", "warn", "error", "objects",
        "examples"}`` (``examples`` a list)."""
        return {
            "rule": self.rule,
            "policy": self.policy,
            "title": self.title,
            "severity": self.severity,
            "fail": self.fail,
            "warn": self.warn,
            "error": self.error,
            "objects": self.objects,
            "examples": list(self.examples),
        }


def rollup(pairs: Iterable[tuple[ObjectReport, Result]]) -> list[RuleRollup]:
    """The findings (fail, warn, error) of ``pairs`` by rule, worst first: rules with an error, then a fail,
    then only warnings; then by severity; then by number of findings; ties keep the order of first finding."""
    found: dict[str, dict[str, Any]] = {}
    for obj, r in pairs:
        if r.result not in FINDINGS:
            continue
        uid = f"{r.policy}/{r.rule}"
        entry = found.get(uid)
        if entry is None:
            entry = found[uid] = {"result": r, "fail": 0, "warn": 0, "error": 0, "objects": {}}
        entry[r.result] += 1
        entry["objects"].setdefault(str(obj.ref), None)  # an ordered set: dump order, each object once
    out = [
        RuleRollup(
            uid,
            e["result"].policy,
            e["result"].title,
            e["result"].severity,
            e["fail"],
            e["warn"],
            e["error"],
            len(e["objects"]),
            tuple(list(e["objects"])[:ROLLUP_EXAMPLES]),
        )
        for uid, e in found.items()
    ]
    return sorted(out, key=lambda x: (-RESULT_RANK[x.worst], -SEVERITY_RANK.get(x.severity, 0), -x.findings))


@dataclass(slots=True)
class Report:
    """A whole report: judged objects, input errors (``rules.errors.InputError``), policies used
    (``{name, version, pack, rules}``), files read/skipped, notes (facts about the input, and the
    exemptions that applied or had expired), and timing in milliseconds.

    ``rules`` describes every rule that was in force (``{id: policy/rule, policy, rule, title,
    description, severity, category, references, onFailure}``), whether or not it matched an object:
    SARIF's ``tool.driver.rules`` needs it. It is not part of ``to_dict()`` (the native format lists
    policies, not rules)."""

    objects: list[ObjectReport] = field(default_factory=list)
    input_errors: list[Any] = field(default_factory=list)
    policies: list[dict[str, Any]] = field(default_factory=list)
    files_read: list[str] = field(default_factory=list)
    files_skipped: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    timing: dict[str, float] = field(default_factory=dict)
    objects_read: int = 0
    name: str = ""
    generated: str = ""
    rules: list[dict[str, Any]] = field(default_factory=list)
    #: Set by ``filtered``: the summary of the whole audit and the filters applied to ``objects``.
    audit_summary: dict[str, Any] | None = None
    filters: dict[str, Any] = field(default_factory=dict)
    #: The objects the audit judged when a selection chose them (``rules.selection``): the filters given and
    #: ``objectsSelected``, how many objects of the dump they kept; the summary carries it.
    selection: dict[str, Any] | None = None
    #: The rules that applied to no object of the dump because a precondition that reads only the dump does not
    #: hold (``rules.evaluate.unmet_in_dump``): ``{rule: policy/rule, policy, reason, objects, supersededBy}``,
    #: ``objects`` the objects the rule matched, none of which has a result of it, ``supersededBy`` the rule that
    #: judges them instead, where the precondition names one ("" else; no note says such a rule).
    not_applied: list[dict[str, Any]] = field(default_factory=list)
    #: ``by_rule()`` once computed (a filtered copy computes its own)
    _by_rule: list[RuleRollup] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def results(self) -> list[tuple[ObjectReport, Result]]:
        """Every (object report, result) pair, objects in report order."""
        return [(o, r) for o in self.objects for r in o.results]

    def by_rule(self) -> list[RuleRollup]:
        """The roll-up: the findings of the results listed, by rule, worst first (``rollup``), computed once.
        Of the results listed: a ``filtered`` copy rolls up what it keeps, while ``summary()`` counts the
        whole audit."""
        if self._by_rule is None:
            self._by_rule = rollup(self.results)
        return self._by_rule

    def summary(self) -> dict[str, Any]:
        """Counts: objects read and judged, results by result word (and ``exempt``, the ``skip`` results an
        exemption made, only when there are some; and ``selection``, the object filters and how many objects
        they kept, only when the audit judged a selection), failing results by severity, verdicts by word,
        input errors. Always of the whole audit: filters of results change what is listed, not what was found."""
        if self.audit_summary is not None:
            return self.audit_summary
        by_result = Counter({k: 0 for k in RESULTS})
        by_severity = Counter({k: 0 for k in SEVERITIES})
        by_word = {w: Counter({k: 0 for k in SEVERITIES}) for w in ("fail", "warn", "error")}
        verdicts = Counter({k: 0 for k in RESULTS})
        exempt = 0
        for obj in self.objects:
            verdicts[obj.verdict] += 1
            for r in obj.results:
                by_result[r.result] += 1
                if r.exemption is not None:
                    exempt += 1
                if r.result in by_word:
                    by_severity[r.severity] += 1
                    by_word[r.result][r.severity] += 1
        out: dict[str, Any] = {
            "objectsRead": self.objects_read,
            "objectsJudged": len(self.objects),
            "results": dict(by_result),
        }
        if exempt:  # only then: reports without exemptions keep their shape
            out["exempt"] = exempt
        if self.selection is not None:  # likewise: only when the audit judged a selection of the dump
            out["selection"] = self.selection
        return out | {
            "findingsBySeverity": dict(by_severity),
            "failBySeverity": dict(by_word["fail"]),
            "warnBySeverity": dict(by_word["warn"]),
            "errorBySeverity": dict(by_word["error"]),
            "verdicts": dict(verdicts),
            "inputErrors": len(self.input_errors),
        }

    def worst(self) -> str:
        """The worst result in the report, counting an input error as ``error``; ``skip`` if empty."""
        words = [o.verdict for o in self.objects] + (["error"] if self.input_errors else [])
        return max(words, key=RESULT_RANK.__getitem__, default="skip")

    def filtered(self, results: set[str] | None = None, min_severity: str | None = None) -> Report:
        """A copy keeping only results with a result word in ``results`` and a severity at or above
        ``min_severity`` (pass/skip results are kept by the severity filter only when asked for by word).
        Objects left with no result are dropped."""
        floor = SEVERITY_RANK[min_severity] if min_severity else -1
        kept = []
        for obj in self.objects:
            rs = tuple(
                r for r in obj.results if (not results or r.result in results) and SEVERITY_RANK.get(r.severity, 0) >= floor
            )
            if rs:
                kept.append(ObjectReport(obj.ref, obj.source, rs))
        filters: dict[str, Any] = {}
        if results:
            filters["results"] = sorted(results, key=RESULTS.index)
        if min_severity:
            filters["minSeverity"] = min_severity
        return replace(self, objects=kept, audit_summary=self.summary(), filters=filters)

    @staticmethod
    def total(reports: list[Report]) -> dict[str, Any]:
        """The summaries of several reports added up (for one report per dump plus a total)."""
        out: dict[str, Any] = {}
        for r in reports:
            for key, value in r.summary().items():
                if key == "selection":  # the same filters for every dump: they stay, the counts add up
                    kept = out.setdefault(key, dict(value, objectsSelected=0))
                    kept["objectsSelected"] += value["objectsSelected"]
                elif isinstance(value, dict):
                    bucket = out.setdefault(key, {})
                    for k, n in value.items():
                        bucket[k] = bucket.get(k, 0) + n
                else:
                    out[key] = out.get(key, 0) + value
        return out

    def to_dict(self) -> dict[str, Any]:
        """The native JSON form (see docs/report-formats.md): ``header_dict()`` plus ``objects``."""
        return {**self.header_dict(), "objects": [o.to_dict() for o in self.objects]}

    def header_dict(self) -> dict[str, Any]:
        """Everything of ``to_dict()`` but ``objects`` (renderers stream the objects one by one)."""
        return {
            "apiVersion": "verdict/v1",
            "kind": "Report",
            "name": self.name,
            "generated": self.generated,
            "summary": self.summary(),
            **({"filters": self.filters} if self.filters else {}),
            "rollup": [x.to_dict() for x in self.by_rule()],
            "policies": self.policies,
            "inputErrors": [e.to_dict() for e in self.input_errors],
            "filesRead": self.files_read,
            "filesSkipped": self.files_skipped,
            "notes": self.notes,
            "notApplied": self.not_applied,
            "timing": self.timing,
        }
