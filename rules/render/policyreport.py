"""PolicyReport (``wgpolicyk8s.io``) as a ``kind: List`` that ``kubectl apply -f`` / ``kubectl create -f`` takes.

Shape: one ``ClusterPolicyReport`` for results on objects without a namespace (Nodes, ClusterPolicy,
cluster-scoped custom resources; input errors too) and one ``PolicyReport`` per namespace, in a
``{apiVersion: v1, kind: List, items}``. Field names and enums follow the CRD of
``kubernetes-sigs/wg-policy-prototypes`` (``policy-report/crd/v1beta1/``, which serves ``v1alpha2`` and
``v1beta1``): ``result`` pass|fail|warn|error|skip, ``severity`` critical|high|low|medium|info,
``timestamp`` ``{seconds, nanos}``, ``properties`` string -> string (an exempted result is ``skip`` with
properties ``exemption``, the reason, and ``exemptionSource``, where the exemption came from). ``v1alpha2`` is the default (what
Kyverno and Policy Reporter read); ``api_version="v1beta1"`` gives the newer version, which also carries
the report-level ``source``.

Limits: names are DNS-1123 labels of at most 63 characters (``verdict-cluster``, ``verdict-<namespace>``;
a longer name keeps its first characters and ends with 8 hex digits of its sha256); no item is larger
than ``max_bytes`` (default 1 MiB) as compact JSON, which is what the API server receives: a larger
scope is split into ``-1``, ``-2``, ... reports, each with its own summary; a property value longer than
``MAX_PROPERTY`` characters is cut (the cut says how much was left out). See docs/report-formats.md.
"""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime
from typing import Any

import orjson

from .. import yamlsafe
from ..report import RESULTS, Report, Result
from . import OptionError

GROUP = "wgpolicyk8s.io"
API_VERSIONS = ("v1alpha2", "v1beta1")
SEVERITIES = ("critical", "high", "low", "medium", "info")  # the CRD's enum, in its order
SOURCE = "verdict"
MAX_BYTES = 1024 * 1024
MAX_PROPERTY = 4096
MAX_NAME = 63
MANAGED_BY = {"app.kubernetes.io/managed-by": "verdict"}
DUMP_ANNOTATION = "verdict/dump"

_NOT_DNS = re.compile(r"[^a-z0-9-]+")


def dns_name(base: str, suffix: str = "") -> str:
    """``base + suffix`` as a DNS-1123 label (lower case, ``[a-z0-9-]``, at most 63 characters).

    Characters outside the alphabet become ``-``. When the name is too long, ``base`` is cut and ends in
    ``-`` plus the first 8 hex digits of the sha256 of the whole base, so two long names stay apart.
    """
    clean = _NOT_DNS.sub("-", base.lower()).strip("-") or "x"
    if len(clean) + len(suffix) > MAX_NAME:
        digest = hashlib.sha256(base.encode()).hexdigest()[:8]
        clean = clean[: MAX_NAME - len(suffix) - 9].rstrip("-") + "-" + digest
    return clean + suffix


def _timestamp(generated: str) -> dict[str, int]:
    """``report.generated`` (RFC 3339, UTC) as ``{seconds, nanos}``; now when it is empty or unreadable."""
    try:
        when = datetime.fromisoformat(generated.replace("Z", "+00:00"))
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
    except ValueError:
        when = datetime.now(UTC)
    return {"seconds": int(when.timestamp()), "nanos": when.microsecond * 1000}


def _text(value: Any) -> str:
    """A property value: strings as they are, anything else as compact JSON; cut at ``MAX_PROPERTY``."""
    text = value if isinstance(value, str) else orjson.dumps(value, default=str, option=orjson.OPT_SORT_KEYS).decode()
    if len(text) > MAX_PROPERTY:
        left = len(text) - MAX_PROPERTY
        text = text[:MAX_PROPERTY] + f"... ({left} more characters)"
    return text


def _object_ref(ref: Any) -> dict[str, str]:
    out = {"apiVersion": ref.api_version, "kind": ref.kind, "name": ref.name}
    if ref.namespace:
        out["namespace"] = ref.namespace
    if ref.uid:
        out["uid"] = ref.uid
    return out


def policy_result(r: Result, resource: dict[str, str] | None, timestamp: dict[str, int]) -> dict[str, Any]:
    """One ``results[]`` entry of the CRD for one verdict result."""
    out: dict[str, Any] = {"policy": r.policy, "rule": r.rule, "result": r.result, "scored": r.scored}
    if r.severity in SEVERITIES:
        out["severity"] = r.severity
    if r.category:
        out["category"] = r.category
    out["source"] = SOURCE
    out["timestamp"] = dict(timestamp)
    out["message"] = r.message
    if resource is not None:
        out["resources"] = [dict(resource)]  # a copy each: YAML would write shared dicts as anchors
    props = {k: _text(v) for k, v in r.details()}
    if r.exemption is not None:  # a skip that was a finding: the reason it was accepted, and where it was
        props["exemption"] = _text(r.exemption.reason)
        props["exemptionSource"] = _text(r.exemption.source)
    if props:
        out["properties"] = props
    return out


def _input_error(err: Any, timestamp: dict[str, int]) -> dict[str, Any]:
    """An input error as an ``error`` result of the cluster report, with no resource (the CRD reads a
    result without resources as one about the report's scope)."""
    props = {"file": err.source.file, "document": str(err.source.document)}
    if err.source.line:
        props["line"] = str(err.source.line)
    if err.path:
        props["path"] = err.path
    return {
        "policy": SOURCE,
        "rule": "input",
        "result": "error",
        "scored": True,
        "source": SOURCE,
        "timestamp": dict(timestamp),
        "message": _text(f"{err}"),
        "properties": props,
    }


def _summary(results: list[dict[str, Any]]) -> dict[str, int]:
    counts = dict.fromkeys(RESULTS, 0)
    for r in results:
        counts[r["result"]] += 1
    return counts


def _skeleton(kind: str, api_version: str, name: str, namespace: str, dump: str) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    meta["labels"] = dict(MANAGED_BY)
    if dump:
        meta["annotations"] = {DUMP_ANNOTATION: dump}
    out: dict[str, Any] = {"apiVersion": f"{GROUP}/{api_version}", "kind": kind, "metadata": meta}
    if api_version == "v1beta1":
        out["source"] = SOURCE
    return out


def _size(data: Any) -> int:
    return len(orjson.dumps(data))


class _Unfit(Exception):
    """A scope whose largest result does not fit a report of ``max_bytes``: the least bound its reports fit in."""

    def __init__(self, least: int, rule: str, size: int) -> None:
        super().__init__(least)
        self.least, self.rule, self.size = least, rule, size


def _chunks(results: list[dict[str, Any]], room: int, whole: int, frame: int) -> list[list[dict[str, Any]]]:
    """Consecutive runs of results whose JSON (with the separating commas) fits in ``room`` bytes. Raises ``_Unfit``
    with the least bound that works for the scope (its whole report of ``whole`` bytes, or its largest result in a
    report of ``frame`` bytes without results) when one result does not fit."""
    sizes = [_size(r) + 1 for r in results]
    largest = max(sizes, default=0)
    if largest > room:
        r = results[sizes.index(largest)]
        raise _Unfit(min(whole, largest + frame), f"{r['policy']}/{r.get('rule', '')}", largest)
    chunks: list[list[dict[str, Any]]] = [[]]
    used = 0
    for r, size in zip(results, sizes, strict=True):
        if used + size > room and chunks[-1]:
            chunks.append([])
            used = 0
        chunks[-1].append(r)
        used += size
    return chunks


def _reports(
    kind: str, api_version: str, base: str, namespace: str, dump: str, results: list[dict[str, Any]], max_bytes: int
) -> list[dict[str, Any]]:
    """The report(s) of one scope: one when it fits in ``max_bytes``, else ``-1``, ``-2``, ..."""
    whole = _skeleton(kind, api_version, dns_name(base), namespace, dump)
    whole["summary"] = _summary(results)
    whole["results"] = results
    whole_size = _size(whole)
    if whole_size <= max_bytes:
        return [whole]
    # Room for results: the item with the longest possible name and summary, and no result.
    n = len(results)
    worst = _skeleton(kind, api_version, "x" * MAX_NAME, namespace, dump)
    worst["summary"] = dict.fromkeys(RESULTS, n)
    worst["results"] = []
    out = []
    frame = _size(worst)
    chunks = _chunks(results, max_bytes - frame, whole_size, frame)
    for i, chunk in enumerate(chunks, 1):
        item = _skeleton(kind, api_version, dns_name(base, f"-{i}"), namespace, dump)
        item["summary"] = _summary(chunk)
        item["results"] = chunk
        out.append(item)
    return out


def items(
    report: Report, api_version: str = "v1alpha2", max_bytes: int = MAX_BYTES, prefix: str = "verdict", dump: str = ""
) -> list[dict[str, Any]]:
    """The ClusterPolicyReport (first, when there is a cluster-scoped result or an input error) and the
    PolicyReports (by namespace, sorted) of one report. Raises ``OptionError`` (a ``ValueError``) for an unknown
    version, and for a ``max_bytes`` that one result does not fit in."""
    if api_version not in API_VERSIONS:
        raise OptionError("api_version", f"unknown PolicyReport version {api_version!r}; one of {', '.join(API_VERSIONS)}")
    ts = _timestamp(report.generated)
    cluster: list[dict[str, Any]] = []
    by_ns: dict[str, list[dict[str, Any]]] = {}
    for obj in report.objects:
        resource = _object_ref(obj.ref)
        into = by_ns.setdefault(obj.ref.namespace, []) if obj.ref.namespace else cluster
        into.extend(policy_result(r, resource, ts) for r in obj.results)
    cluster.extend(_input_error(e, ts) for e in report.input_errors)
    scopes = [("ClusterPolicyReport", f"{prefix}-cluster", "", cluster)] if cluster else []
    scopes += [("PolicyReport", f"{prefix}-{ns}", ns, by_ns[ns]) for ns in sorted(by_ns)]
    out: list[dict[str, Any]] = []
    unfit: list[_Unfit] = []
    for kind, base, ns, results in scopes:
        try:
            out += _reports(kind, api_version, base, ns, dump, results, max_bytes)
        except _Unfit as exc:
            unfit.append(exc)  # every scope's, so that the least bound for the whole dump is said at once
    if unfit:
        worst = max(unfit, key=lambda u: u.least)
        # trial 180: one result named at a time, and "-327 bytes left", sent a client from one 400 to the next
        raise OptionError(
            "max_bytes",
            f"at least {worst.least} bytes for this dump: one result of {worst.rule} needs {worst.size} bytes, more"
            f" than a report of {max_bytes} bytes can hold beside its own fields",
        )
    return out


def _dump_prefix(name: str) -> str:
    """``verdict-<dump>-<hash>`` for one dump among several: the file name without its suffixes, and 6 hex
    digits of the whole name so that two dumps called ``cluster.yaml`` in different folders stay apart."""
    stem = re.split(r"[\\/]", name.rstrip("/\\"))[-1] or "dump"
    stem = re.sub(r"(\.(ya?ml|json|tar|gz|tgz|zip))+$", "", stem, flags=re.IGNORECASE) or "dump"
    digest = hashlib.sha256(name.encode()).hexdigest()[:6]
    return dns_name(f"verdict-{stem[:24]}-{digest}")


def _serialize(data: dict[str, Any], output_format: str) -> str:
    if output_format == "json":
        return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n"
    if output_format != "yaml":
        raise OptionError("output_format", f"unknown output_format {output_format!r}; yaml or json")
    return yamlsafe.dump(data, sort_keys=False, allow_unicode=True, width=120)


def as_list(item_list: list[dict[str, Any]]) -> dict[str, Any]:
    """A Kubernetes ``v1`` List of ``item_list``: ``{"apiVersion": "v1", "kind": "List", "items": item_list}``."""
    return {"apiVersion": "v1", "kind": "List", "items": item_list}


def render(
    report: Report,
    fmt: str = "policyreport",
    api_version: str = "v1alpha2",
    output_format: str = "yaml",
    max_bytes: int = MAX_BYTES,
    **_: Any,
) -> str:
    """One report as a ``kind: List`` of PolicyReports, YAML (default) or JSON (``output_format="json"``)."""
    return _serialize(as_list(items(report, api_version, max_bytes, dump=report.name)), output_format)


def render_many(
    reports: list[Report],
    fmt: str = "policyreport",
    api_version: str = "v1alpha2",
    output_format: str = "yaml",
    max_bytes: int = MAX_BYTES,
    **_: Any,
) -> str:
    """Several dumps as ONE ``kind: List``. With more than one dump, names carry the dump
    (``verdict-<dump>-<hash>-<namespace>``) so that reports of different dumps do not overwrite each other."""
    if len(reports) == 1:
        return render(reports[0], fmt, api_version, output_format, max_bytes)
    out: list[dict[str, Any]] = []
    for r in reports:
        out += items(r, api_version, max_bytes, prefix=_dump_prefix(r.name), dump=r.name)
    return _serialize(as_list(out), output_format)
