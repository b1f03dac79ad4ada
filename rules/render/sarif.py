"""SARIF 2.1.0 (OASIS), the format code-scanning services read (GitHub code scanning, Azure DevOps, GitLab).

One ``run`` per dump; ``tool.driver.rules`` lists every rule in force (``Report.rules``), each result
points at its rule by ``ruleId`` (``policy/rule``) and ``ruleIndex``. Levels: a ``fail`` of severity
critical/high is ``error``, medium ``warning``, low/info ``note``; a ``warn`` result is ``warning``; an
``error`` result (the rule could not be evaluated) is ``error``; all three have ``kind: fail``. Only
those three result words are written unless ``all_results=True`` (then ``pass`` is ``kind: pass`` and
``skip`` is ``kind: notApplicable``, both ``level: none``, as SARIF requires for a kind other than fail, and
exempted findings are written with their suppressions).

Locations: ``physicalLocation.artifactLocation.uri`` is the dump file as a URI reference (relative paths
stay relative, so code scanning finds them in the repository; absolute paths become ``file://`` URIs);
``region.startLine`` is the object's line when known. An object read from inside an archive
(``dump.tar.gz!must-gather/nodes.yaml``) points at the archive, with the inner path in
``artifactLocation.properties.innerPath`` and no region (a line of the inner file is not a line of the
archive); so does one read from a compressed file (``dump.yaml.gz``: its line is of the text it holds). Standard
input and HTTP bodies sent without ``name=`` have no file (``<stdin>``, ``<body>``):
such results carry only the logical location (``fullyQualifiedName`` ``Kind/namespace/name``,
``kind: resource``), which every result has. A body sent with ``POST /v1/evaluate?name=dumps/lab.yaml``
is that file, so its results get the physical location (and the line) as a CLI file would.

Suppressions: a finding accepted by an exemption (``Result.exemption``, ``rules.exemptions``) is a
``skip`` in verdict's model; here it is written as the finding it was (its ``fail``/``warn`` word, level,
message and properties) with ``suppressions: [{kind, status: accepted, justification: <reason>}]``:
``kind: external`` for an exemptions file (with the file and line as the suppression's location),
``inSource`` for the ``verdict.dev/exempt`` annotation in the dump. SARIF viewers then show it as looked at
and accepted. Results without an exemption never carry ``suppressions``. They are written with
``all_results`` only: GitHub code scanning does not read ``suppressions`` (github/codeql-action#1230) and
would open an alert for each exempted finding; ``properties.summary.exempt`` counts them either way.
"""

from __future__ import annotations

import functools
import hashlib
import os
import urllib.parse
from importlib import metadata
from pathlib import Path
from typing import Any

import orjson

from .. import __version__
from ..errors import Source
from ..report import FINDINGS, Exemption, ObjectReport, Report, Result
from ..schema import source_url

SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
VERSION = "2.1.0"
_FAIL_LEVEL = {"critical": "error", "high": "error", "medium": "warning", "low": "note", "info": "note"}
_KIND = {"fail": "fail", "warn": "fail", "error": "fail", "pass": "pass", "skip": "notApplicable"}
_URI_SAFE = "/-._~!$&'()*+,;=@"


def level(result: str, severity: str) -> str:
    """SARIF ``level`` of a verdict result word and severity."""
    if result == "error":
        return "error"
    if result == "warn":
        return "warning"
    if result == "fail":
        return _FAIL_LEVEL.get(severity, "warning")
    return "none"


@functools.cache
def information_uri() -> str | None:
    """The project's home page from the installed package metadata (``[project.urls]``), if it has one."""
    try:
        meta = metadata.metadata("verdict")
    except metadata.PackageNotFoundError:
        return None
    for entry in meta.get_all("Project-URL") or []:
        label, _, url = entry.partition(",")
        if label.strip().lower() in ("homepage", "home", "documentation", "source") and url.strip():
            return url.strip()
    home = meta.get("Home-page")
    return str(home) if home else None


def file_uri(path: str) -> str:
    """A file path as a URI reference: relative stays relative (``/`` separators, percent-encoded),
    absolute becomes ``file:///...``."""
    if os.path.isabs(path):
        return Path(path).as_uri()
    # ":" is not in _URI_SAFE: "c:dump.yaml" becomes "c%3Adump.yaml", never a URI scheme
    return urllib.parse.quote(path.replace("\\", "/"), safe=_URI_SAFE)


def _physical(source: Any) -> dict[str, Any] | None:
    """``physicalLocation`` of an object's ``rules.errors.Source``; None when there is no file."""
    file = source.file
    if not file or file.startswith("<"):
        return None
    archive, sep, inner = file.partition("!")
    if sep:
        return {"artifactLocation": {"uri": file_uri(archive), "properties": {"innerPath": inner}}}
    out: dict[str, Any] = {"artifactLocation": {"uri": file_uri(file)}}
    # a line of a compressed file's text is not a line of the file (trial 48: lab.yaml.gz, startLine 573)
    if source.line and source.line > 0 and not file.lower().endswith(_COMPRESSED):
        out["region"] = {"startLine": source.line}
    return out


#: Names of files whose bytes are not the text they hold, so that a line of the text is no place in them.
_COMPRESSED = (".gz", ".gzip", ".tgz", ".zip", ".tar", ".bz2", ".xz", ".zst")


def _rule_of(r: Result) -> dict[str, Any]:
    """A ``Report.rules`` entry described from one of the rule's results (for a rule the report does not list)."""
    return {
        "id": f"{r.policy}/{r.rule}",
        "policy": r.policy,
        "rule": r.rule,
        "title": r.title,
        "description": "",
        "severity": r.severity,
        "category": r.category,
        "references": list(r.references),
        "onFailure": "fail",
    }


def _rules(report: Report) -> list[dict[str, Any]]:
    """The rules in force, or (for a report made without them) those its results name."""
    if report.rules:
        return list(report.rules)
    seen: dict[str, dict[str, Any]] = {}
    for _, r in report.results:
        uid = f"{r.policy}/{r.rule}"
        if uid not in seen:
            seen[uid] = _rule_of(r)
    return list(seen.values())


def reporting_descriptor(rule: dict[str, Any]) -> dict[str, Any]:
    """``tool.driver.rules[]`` entry for one ``Report.rules`` entry."""
    title = rule.get("title") or rule["id"]
    description = rule.get("description") or title
    refs = [str(x) for x in rule.get("references") or []]
    help_lines = [description]
    if refs:
        help_lines += ["", "References:", *(f"- {x}" for x in refs)]
    out: dict[str, Any] = {
        "id": rule["id"],
        "name": rule.get("rule") or rule["id"],
        "shortDescription": {"text": title},
        "fullDescription": {"text": description},
    }
    # the first web page, else the first repository file or issue as its GitHub address (trial 48: 30 of 59
    # rules had no link in a code-scanning viewer, their sources all owner/repo@ref:path)
    web = [x for x in refs if x.startswith(("https://", "http://"))] or [u for u in map(source_url, refs) if u]
    if web:
        out["helpUri"] = web[0]
    out["help"] = {"text": "\n".join(help_lines)}
    on_failure = rule.get("onFailure", "fail")
    out["defaultConfiguration"] = {"level": level(on_failure, rule.get("severity", ""))}
    tags = [t for t in dict.fromkeys([rule.get("category", ""), rule.get("policy", "")]) if t]
    out["properties"] = {
        "tags": tags,
        "severity": rule.get("severity", ""),
        "category": rule.get("category", ""),
        "onFailure": on_failure,
    }
    return out


def _fingerprint(uid: str, obj: ObjectReport) -> str:
    ref = obj.ref
    key = "|".join((uid, ref.api_version, ref.kind, ref.namespace, ref.name))
    return hashlib.sha256(key.encode()).hexdigest()[:32]


def _suppression(exemption: Exemption) -> dict[str, Any]:
    """A ``suppressions[]`` entry for an exemption: ``external`` (a file, located at its entry) or
    ``inSource`` (the annotation on the object)."""
    out: dict[str, Any] = {"kind": "inSource" if exemption.in_source else "external", "status": "accepted"}
    out["justification"] = exemption.reason
    if not exemption.in_source:
        physical = _physical(Source(exemption.file, line=exemption.line))
        if physical is not None:
            out["location"] = {"physicalLocation": physical}
    out["properties"] = {"source": exemption.source}
    return out


def sarif_result(obj: ObjectReport, r: Result, index: int) -> dict[str, Any]:
    """One ``results[]`` entry; an exempted result is written as its finding, with ``suppressions``."""
    exemption = r.exemption
    if exemption is not None:
        r = exemption.finding
    uid = f"{r.policy}/{r.rule}"
    location: dict[str, Any] = {}
    physical = _physical(obj.source)
    if physical is not None:
        location["physicalLocation"] = physical
    location["logicalLocations"] = [{"name": obj.ref.name, "fullyQualifiedName": str(obj.ref), "kind": "resource"}]
    props: dict[str, Any] = {"result": r.result, "severity": r.severity, "category": r.category, "object": obj.ref.to_dict()}
    props.update(r.details())
    out = {
        "ruleId": uid,
        "ruleIndex": index,
        "kind": _KIND[r.result],
        "level": level(r.result, r.severity),
        "message": {"text": r.message or r.title},
        "locations": [location],
        "partialFingerprints": {"verdictResource/v1": _fingerprint(uid, obj)},
    }
    if exemption is not None:
        out["suppressions"] = [_suppression(exemption)]
    out["properties"] = props
    return out


def run(report: Report, all_results: bool = False) -> dict[str, Any]:
    """One SARIF ``run`` for one dump."""
    rules = [reporting_descriptor(x) for x in _rules(report)]
    index = {x["id"]: i for i, x in enumerate(rules)}
    results = []
    for obj, r in report.results:
        if not all_results and r.result not in FINDINGS:
            continue  # an exempted finding is a skip: written, with its suppressions, with all_results only
        uid = f"{r.policy}/{r.rule}"
        if uid not in index:  # a result of a rule the report does not list: describe it from the result
            index[uid] = len(rules)
            rules.append(reporting_descriptor(_rule_of(r)))
        results.append(sarif_result(obj, r, index[uid]))
    driver: dict[str, Any] = {"name": "verdict", "version": __version__, "semanticVersion": __version__}
    uri = information_uri()
    if uri:
        driver["informationUri"] = uri
    driver["rules"] = rules
    # a dump nothing could be read from was not audited: a run that says it was, with no result, would close the
    # alerts of that dump's category in code scanning (trial 82)
    invocation: dict[str, Any] = {"executionSuccessful": not (report.objects_read == 0 and report.input_errors)}
    if report.generated:
        invocation["endTimeUtc"] = report.generated
    notes = []
    for err in report.input_errors:
        note: dict[str, Any] = {"level": "error", "message": {"text": str(err)}}
        physical = _physical(err.source)
        if physical is not None:
            note["locations"] = [{"physicalLocation": physical}]
        notes.append(note)
    # the report's notes (files not read, assumptions, rules not applied) as notifications of level note: a CI job
    # that keeps the SARIF file only keeps them too (trial 64)
    notes.extend({"level": "note", "message": {"text": text}} for text in report.notes)
    if notes:
        invocation["toolExecutionNotifications"] = notes
    out: dict[str, Any] = {"tool": {"driver": driver}, "invocations": [invocation]}
    if report.name:
        # GitHub code scanning takes the part before the last "/" as the category of the run.
        out["automationDetails"] = {"id": f"verdict/{report.name}/"}
    out["results"] = results
    out["properties"] = {"summary": report.summary(), "rollup": [x.to_dict() for x in report.by_rule()]}
    return out


def _log(runs: list[dict[str, Any]]) -> str:
    doc = {"$schema": SCHEMA, "version": VERSION, "runs": runs}
    return orjson.dumps(doc, default=str, option=orjson.OPT_INDENT_2).decode() + "\n"


def render(report: Report, fmt: str = "sarif", all_results: bool = False, **_: Any) -> str:
    """One report as a SARIF log with one run (findings only unless ``all_results``)."""
    return _log([run(report, all_results)])


def render_many(reports: list[Report], fmt: str = "sarif", all_results: bool = False, **_: Any) -> str:
    """One SARIF log, one run per dump (each with its own ``automationDetails.id``)."""
    return _log([run(r, all_results) for r in reports])
