"""JUnit XML (the Maven Surefire dialect that Jenkins, GitLab, Azure Pipelines and GitHub test-report
actions read; checked against the Jenkins xUnit plugin's ``junit-10.xsd``).

``<testsuites>`` holds one ``<testsuite>`` per rule with results (``group_by="rule"``, the default: the suites'
counts are the roll-up by rule, which CI servers show first), named ``policy/rule``, in the order the rules
were loaded; or one per object (``group_by="object"``), named ``Kind/namespace/name``, in report order. With
several dumps a suite is named ``<dump>: <name>``. Each holds one ``<testcase>`` per (object, rule), whatever
the grouping: ``classname`` is ``policy.rule``, ``name`` is ``Kind/namespace/name: rule`` (so a test keeps its
identity from one layout to the other), ``<dump>: Kind/namespace/name: rule`` with several dumps (GitLab tells
test cases apart by classname and name alone, not by suite: trial 48 saw one cluster's failure hidden by another's
pass of the same object and rule). A ``fail`` is ``<failure type=severity>``, an ``error`` is ``<error
type="error">``, a ``skip`` is ``<skipped>``, a ``pass`` is an empty test case.

``warn`` (failed, but the rule is advisory and not scored) is a passing test case whose ``<system-out>``
says ``WARN``: a CI server marks any failure red or unstable, and an advisory rule must not do that
(``--fail-on warn`` is the switch for a warn gate). ``warn_as_failure=True`` writes it as
``<failure type="warn">`` instead.

Input errors are a suite ``verdict: input`` with one ``<error>`` per unreadable document. Times: verdict
times a whole report, not each rule, so a suite's ``time`` is the report's evaluation time shared out by
result count and test cases carry none. Characters XML 1.0 cannot hold are dropped from every text.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import OrderedDict
from typing import Any

import orjson

from ..report import ObjectReport, Report, Result
from . import check_group_by

# Characters XML 1.0 allows (https://www.w3.org/TR/xml/#charsets); anything else is dropped.
_NOT_XML = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: Any) -> str:
    """``text`` as a string without the characters XML 1.0 cannot hold (JUnit of audits and of pack tests)."""
    return _NOT_XML.sub("", str(text))


def _details(obj: ObjectReport, r: Result) -> str:
    """The body of a failure/error/skipped element: what a person needs to find and fix the object."""
    lines = [f"{r.result} [{r.severity}] {r.policy}/{r.rule}: {r.title}", f"object: {obj.ref}", f"source: {obj.source}"]
    for label, value in r.details():
        # other values than text as compact JSON, as the PolicyReport's properties (trial 137: a list in Python's
        # repr, ['a whole-number quantity', '<= 4'])
        shown = value if isinstance(value, str) else orjson.dumps(value, default=str, option=orjson.OPT_SORT_KEYS).decode()
        lines.append(f"{label}: {shown}")
    if r.references:
        lines.append("references: " + ", ".join(r.references))
    lines.append("")
    lines.append(r.message)
    return xml_text("\n".join(lines))


def _testcase(obj: ObjectReport, r: Result, warn_as_failure: bool, prefix: str = "") -> ET.Element:
    name = xml_text(f"{prefix}{obj.ref}: {r.rule}")
    case = ET.Element("testcase", {"classname": xml_text(f"{r.policy}.{r.rule}"), "name": name})
    message = xml_text(r.message)
    if r.result == "fail" or (r.result == "warn" and warn_as_failure):
        child = ET.SubElement(case, "failure", {"message": message, "type": r.severity if r.result == "fail" else "warn"})
        child.text = _details(obj, r)
    elif r.result == "error":
        child = ET.SubElement(case, "error", {"message": message, "type": "error"})
        child.text = _details(obj, r)
    elif r.result == "skip":
        ET.SubElement(case, "skipped", {"message": message})
    elif r.result == "warn":
        out = ET.SubElement(case, "system-out")
        out.text = "WARN " + _details(obj, r).removeprefix("warn ")  # one label, not "WARN warn [high]" (trial 51)
    return case


def _seconds(ms: float) -> str:
    return f"{ms / 1000:.3f}"


def _groups(report: Report, group_by: str) -> list[tuple[str, list[tuple[ObjectReport, Result]], list[tuple[str, str]]]]:
    """``(suite name, (object, result) pairs, properties)`` of one report. ``rule``: one suite per rule with
    results, in the order rules were loaded (``Report.rules``), properties ``policy.version``, ``policy.pack``
    and ``severity``. ``object``: one suite per object, in report order, property ``source`` (its place in
    the dump). Raises ``OptionError`` for another ``group_by``."""
    check_group_by(group_by)
    if group_by == "object":
        return [(str(obj.ref), [(obj, r) for r in obj.results], [("source", str(obj.source))]) for obj in report.objects]
    by_rule: OrderedDict[str, list[tuple[ObjectReport, Result]]] = OrderedDict((x["id"], []) for x in report.rules)
    for obj, r in report.results:
        by_rule.setdefault(f"{r.policy}/{r.rule}", []).append((obj, r))
    policies = {p["name"]: p for p in report.policies}
    out = []
    for uid, pairs in by_rule.items():
        if not pairs:
            continue
        first = pairs[0][1]
        meta = policies.get(first.policy, {})
        props = [(f"policy.{key}", str(meta[key])) for key in ("version", "pack") if meta.get(key)]
        out.append((uid, pairs, [*props, ("severity", first.severity)]))
    return out


def _suites(report: Report, prefix: str, warn_as_failure: bool, group_by: str) -> list[ET.Element]:
    """The suites of one report (``_groups``), then one for its input errors."""
    groups = _groups(report, group_by)
    total = sum(len(pairs) for _, pairs, _ in groups)
    evaluate_ms = float(report.timing.get("evaluateMs", 0.0))
    timestamp = report.generated.rstrip("Z")  # Surefire writes local ISO time without a zone
    suites = []
    for name, pairs, properties in groups:
        words = [r.result for _, r in pairs]
        failures = words.count("fail") + (words.count("warn") if warn_as_failure else 0)
        attrs = {
            "name": xml_text(f"{prefix}{name}"),
            "tests": str(len(pairs)),
            "failures": str(failures),
            "errors": str(words.count("error")),
            "skipped": str(words.count("skip")),
            "time": _seconds(evaluate_ms * len(pairs) / total if total else 0.0),
        }
        if timestamp:
            attrs["timestamp"] = timestamp
        suite = ET.Element("testsuite", attrs)
        props = ET.SubElement(suite, "properties")
        for key, value in properties:
            ET.SubElement(props, "property", {"name": key, "value": xml_text(value)})
        if report.name:
            ET.SubElement(props, "property", {"name": "dump", "value": xml_text(report.name)})
        suite.extend(_testcase(obj, r, warn_as_failure, prefix) for obj, r in pairs)
        suites.append(suite)
    if report.input_errors:
        n = str(len(report.input_errors))
        suite = ET.Element(
            "testsuite",
            {
                "name": xml_text(f"{prefix}verdict: input"),
                "tests": n,
                "failures": "0",
                "errors": n,
                "skipped": "0",
                "time": "0.000",
            },
        )
        for err in report.input_errors:
            case = ET.SubElement(suite, "testcase", {"classname": "verdict.input", "name": xml_text(str(err.source))})
            child = ET.SubElement(case, "error", {"message": xml_text(err.reason), "type": "input"})
            child.text = xml_text(str(err))
        suites.append(suite)
    return suites


def _document(reports: list[Report], many: bool, warn_as_failure: bool, group_by: str) -> str:
    suites: list[ET.Element] = []
    for report in reports:
        suites += _suites(report, f"{report.name}: " if many and report.name else "", warn_as_failure, group_by)
    count = {k: sum(int(s.get(k, "0")) for s in suites) for k in ("tests", "failures", "errors")}
    ms = sum(float(r.timing.get("evaluateMs", 0.0)) for r in reports)
    root = ET.Element(
        "testsuites",
        {
            "name": "verdict",
            "tests": str(count["tests"]),
            "failures": str(count["failures"]),
            "errors": str(count["errors"]),
            "time": _seconds(ms),
        },
    )
    root.extend(suites)
    return xml_document(root)


def xml_document(root: ET.Element) -> str:
    """``root`` as an indented XML 1.0 document (JUnit of audits and of pack tests)."""
    ET.indent(root, space="  ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def render(report: Report, fmt: str = "junit", warn_as_failure: bool = False, group_by: str = "rule", **_: Any) -> str:
    """One report as ``<testsuites>``: a suite per rule (or per object), a test case per (object, rule)."""
    return _document([report], False, warn_as_failure, group_by)


def render_many(
    reports: list[Report], fmt: str = "junit", warn_as_failure: bool = False, group_by: str = "rule", **_: Any
) -> str:
    """Several dumps in one ``<testsuites>``: a suite per (dump, rule), named ``<dump>: <policy/rule>`` (or per
    (dump, object))."""
    return _document(reports, len(reports) > 1, warn_as_failure, group_by)
