"""Rebuild Node and bound Pod objects from ``kubectl describe node(s)`` text.

The format is kubectl's node describer (kubernetes/kubectl ``pkg/describe/describe.go``:
``describeNode``, ``describeNodeResource``, ``printLabelsMultiline``, ``printAnnotationsMultiline``,
``printNodeTaintsMultiline``, ``DescribeEvents``), written through a ``text/tabwriter`` with padding 2,
so tabs become runs of spaces. Section headers sit at column 0 (``Name:``, ``Labels:``, ``Capacity:``,
...); continuation lines are indented. ``kubectl describe nodes`` prints one such block per node, each
starting with ``Name:``. Old kubectl releases indent resource lists by one space instead of two and
print annotations as ``key=value``; both are accepted.

What is rebuilt, per node (every object carries annotation ``verdict.dev/source: kubectl-describe``):

- ``metadata``: ``name``, ``labels`` (``Labels:``), ``annotations`` (values kubectl shortened end in
  ``...`` and are kept as printed), ``creationTimestamp`` (RFC 1123Z → RFC 3339 UTC).
- ``spec``: ``taints`` (``key=value:Effect``, ``key:Effect``; absent for ``<none>``),
  ``unschedulable: true`` (absent when false, as the API server writes it), ``podCIDR``, ``podCIDRs``,
  ``providerID``.
- ``status``: ``conditions``, ``addresses``, ``capacity``, ``allocatable`` (extended resources
  included, values as printed), ``nodeInfo`` (``System Info:``).
- one ``Pod`` per row of ``Non-terminated Pods``: ``metadata.namespace/name``, ``spec.nodeName``,
  ``status.phase: Running`` and one container ``pod-totals`` whose requests/limits are the row's CPU and
  memory columns. kubectl prints the pod's totals (sum of containers, or the largest init container,
  plus overhead), so the per-container split and every other resource (GPUs included) are unknown;
  zero columns mean "not set" and are left out.
- ``verdict.dev/pods-listed: "true"`` on the Node where its ``Non-terminated Pods`` table was read whole (every pod
  on it, in every namespace, is known).
- ``Allocated resources``: its Requests column (kubectl's sum over the node's non-terminated pods,
  ``getPodsTotalRequestsAndLimits``), resources at 0 left out, as annotation ``verdict.dev/allocated-requests``
  (a JSON object of quantities as printed): the only place describe text gives what the pods take of a GPU or
  any other extended resource, which the scheduler model counts as the node's requested floor.

Not rebuilt: ``Roles`` (derived from labels), ``Lease``, ``Events``.

Errors: a node whose name, labels, taints, ``Unschedulable`` or capacity/allocatable lines cannot be
read is dropped and reported as one ``InputError`` at the offending line; an unreadable pod row or a
pod count that disagrees with ``(N in total)`` is reported and the node is kept. ``Source.document``
is the node's 1-based position in the text; lines are those of the original text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from rules.errors import InputError, Source
from rules.quantity import is_quantity
from rules.report import first_few

SOURCE_KEY = "verdict.dev/source"
SOURCE_VALUE = "kubectl-describe"
#: The node's Allocated resources requests, as a JSON object (see the module's docstring).
ALLOCATED_KEY = "verdict.dev/allocated-requests"
#: "true" on a Node whose describe text holds its Non-terminated Pods table: every pod on it is known, in every
#: namespace (a pod missing from it is not there); absent where grep or a cut left the table out.
PODS_LISTED_KEY = "verdict.dev/pods-listed"
#: The count kubectl prints beside Non-terminated Pods.
_POD_TOTAL = re.compile(r"^\((\d+) in total\)$")


def rebuilt(annotations: Any) -> bool:
    """Whether an object with these ``metadata.annotations`` was rebuilt from ``kubectl describe`` text (alone or
    merged into a must-gather's node): a part of the object only."""
    return isinstance(annotations, dict) and SOURCE_VALUE in str(annotations.get(SOURCE_KEY, ""))


POD_CONTAINER = "pod-totals"

# Column-0 headers describeNode prints (older releases: Role, ExternalID, Phase).
_HEADERS = frozenset(
    {
        "Name",
        "Roles",
        "Role",
        "Labels",
        "Annotations",
        "CreationTimestamp",
        "Taints",
        "Unschedulable",
        "Lease",
        "Conditions",
        "Addresses",
        "Capacity",
        "Allocatable",
        "System Info",
        "PodCIDR",
        "PodCIDRs",
        "ProviderID",
        "ExternalID",
        "Phase",
        "Non-terminated Pods",
        "Allocated resources",
        "Events",
        "Pods",
    }
)
# Seeing one of these twice means a new node began without a readable Name: line.
_ONCE = _HEADERS - {"Name", "Phase", "Pods"}
#: Sections only ``kubectl describe node`` prints (every describer prints Labels, Annotations, Conditions, Events...).
NODE_ONLY_HEADERS = _HEADERS - {"Name", "Labels", "Annotations", "CreationTimestamp", "Conditions", "Events", "Phase", "Pods"}
#: Sections only ``kubectl describe pod`` prints at the margin (k8s.io/kubectl describe.go, describePod): a paste
#: that starts at one of them is part of a pod's output (``describe pod x | grep -A3 Tolerations``). Not IPs
#: (describeService prints it too), Controlled By (describeReplicaSet) nor Start Time (describeJob): trial 107.
POD_ONLY_HEADERS = frozenset(
    {
        "Node",
        "Containers",
        "Init Containers",
        "Readiness Gates",
        "Volumes",
        "QoS Class",
        "Node-Selectors",
        "Tolerations",
        "Topology Spread Constraints",
    }
)
_HEADER = re.compile(r"^(?P<key>[A-Z][A-Za-z -]*?):(?:\s+(?P<value>.*))?$")
_FENCE = re.compile(r"^\s*(?:```|~~~)")
_PROMPT = re.compile(
    r"^\s*(?:[^\s$#%>]*[$#%>❯➜]\s*|\[[^\]]*\]\s*[$#%>]\s*|PS\s[^>]*>\s*)?(?:sudo\s+)?"
    r"(?:kubectl|oc|k|microk8s\s+kubectl|k3s\s+kubectl)(?:\s+\S+)*?\s+describe(?:\s|$)"
)
# apimachinery validation: qualified-name keys, label values, taint effects.
#: Kubernetes label key, label value and node name (DNS-1123 subdomain), shared with ``rules.mustgather``.
LABEL_KEY = re.compile(r"^(?:[a-z0-9](?:[-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?$")
LABEL_VALUE = re.compile(r"^(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?)?$")
NODE_NAME = re.compile(r"^[a-z0-9](?:[-a-z0-9.]*[a-z0-9])?$")
_EFFECTS = frozenset({"NoSchedule", "PreferNoSchedule", "NoExecute"})
_RESOURCE = re.compile(r"^(?P<name>[A-Za-z0-9][-A-Za-z0-9_./]*):\s*(?P<value>\S+)$")
_TIME = r"[A-Z][a-z]{2}, \d{1,2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} [+-]\d{4}"
_CONDITION = re.compile(
    rf"^(?P<type>\S+)\s+(?P<status>True|False|Unknown)\s+(?P<hb>{_TIME}|\S+)\s+(?P<tt>{_TIME}|\S+)(?:\s+(?P<rest>.*))?$"
)
_POD_ROW = re.compile(
    r"^(?P<ns>\S+)\s+(?P<name>\S+)\s+(?P<cpur>\S+) \([^)]*\)\s+(?P<cpul>\S+) \([^)]*\)"
    r"\s+(?P<memr>\S+) \([^)]*\)\s+(?P<meml>\S+) \([^)]*\)(?:\s+\S+)?$"
)
#: A row of Allocated resources: resource, requests, limits, each quantity followed by its share of allocatable
#: for the resources kubectl prints one for (``cpu  850m (10%)  0 (0%)``; ``nvidia.com/gpu  8  8``); a paste that
#: lost the trailing limits column keeps its requests.
_ALLOCATED_ROW = re.compile(
    r"^(?P<name>[A-Za-z0-9][-A-Za-z0-9_./]*)\s+(?P<requests>\S+)(?P<share> \([^)]*\))?(?:\s+\S+(?: \([^)]*\))?)?$"
)
#: The resources kubectl prints with their share of allocatable (``describeNodeResource``): a row of one without it
#: was cut inside its number (``cpu  25`` of ``cpu  250m (3%)``), so it is not read.
_WITH_SHARE = re.compile(r"^(cpu|memory|ephemeral-storage|hugepages-.+)$")
_NODE_INFO = {
    "Machine ID": "machineID",
    "System UUID": "systemUUID",
    "Boot ID": "bootID",
    "Kernel Version": "kernelVersion",
    "OS Image": "osImage",
    "Operating System": "operatingSystem",
    "Architecture": "architecture",
    "Container Runtime Version": "containerRuntimeVersion",
    "Kubelet Version": "kubeletVersion",
    "Kube-Proxy Version": "kubeProxyVersion",
}

Line = tuple[int, str]


class _Unreadable(Exception):
    """The node cannot be rebuilt; carries the 1-based line and the JSONPath of the failing part."""

    def __init__(self, line: int, reason: str, path: str = "") -> None:
        super().__init__(reason)
        self.line, self.reason, self.path = line, reason, path


@dataclass(slots=True)
class _Section:
    key: str
    line: int
    value: str
    column: int
    body: list[Line] = field(default_factory=list)


def looks_like_describe(text: str) -> bool:
    """True when the text is ``kubectl describe node(s)`` output.

    Tolerates leading blank lines, ``` fences and a shell prompt line (``$ kubectl describe node x``,
    ``[user@host ~]$ ...``). The first other line must be ``Name:`` and the node sections
    (``Roles``/``Labels``/``Taints``/``Capacity``/``System Info``...) must follow with no
    ``Namespace:`` line, which every namespaced describer prints.
    """
    lines = [t for _, t in _clean(text)]
    first = next((i for i, t in enumerate(lines) if t.strip()), None)
    if first is None or not re.match(r"^\s*Name:\s+\S", lines[first]):
        return False
    indent = len(lines[first]) - len(lines[first].lstrip())
    # trial 124: describe pod then describe node, pasted with no prompt line between them, is describe node text too:
    # any object's output (from a Name: line to the next) may be the node's
    seen: set[str] = set()
    namespaced = False
    for t in lines[first + 1 :]:
        m = _HEADER.match(t[indent:]) if t[:indent].strip() == "" else None
        if not m:
            continue
        if m["key"] == "Name":
            if not namespaced and len(seen & _NODE_MARKS) >= 2:
                return True
            seen, namespaced = set(), False
        elif m["key"] == "Namespace":
            namespaced = True
        seen.add(m["key"])
    return not namespaced and len(seen & _NODE_MARKS) >= 2


#: Sections of which describe node text prints two or more between one ``Name:`` line and the next.
_NODE_MARKS = frozenset(
    {"Roles", "Labels", "Taints", "Unschedulable", "Capacity", "Allocatable", "System Info", "Conditions", "Addresses"}
)


#: Headers that tell which kind ``kubectl describe`` printed, for the kinds a GPU cluster's users paste most.
_DESCRIBED_KINDS = (
    ("pod", {"Containers", "Node"}),
    ("deployment", {"StrategyType", "Replicas"}),
    ("daemonset", {"Desired Number of Nodes Scheduled"}),
    ("statefulset", {"Update Strategy", "Replicas"}),
    ("job", {"Completions", "Parallelism"}),
    ("virtualmachineinstance", {"Spec", "Api Version"}),
)


_NAME_LINE = re.compile(r"^\s*Name:\s", re.M)


def _first_written(text: str) -> tuple[list[Line], int, int, str] | None:
    """The text's cleaned lines (``_clean``), the index of the first that is not blank, its line number and its text;
    None when all are blank."""
    cleaned = _clean(text)
    first = next((i for i, (_, t) in enumerate(cleaned) if t.strip()), None)
    return None if first is None else (cleaned, first, *cleaned[first])


def other_describe(text: str) -> tuple[str, str, str, int] | None:
    """(kind, name, namespace, line of ``Name:``) when the text is ``kubectl describe`` output of a namespaced
    object (``Name:`` then a ``Namespace:`` line among the first headers), which verdict does not read (only
    describe node text holds what the rules need); kind is "" when the headers do not tell it. None otherwise."""
    # (a YAML or JSON dump has no Name: line at its head: it is not cleaned line by line)
    written = _first_written(text) if _NAME_LINE.search(text, 0, 4096) else None
    if written is None:
        return None
    cleaned, first, start, head = written
    found = _namespaced(cleaned[first : first + 400])
    return None if found is None else (*found, start)


def _namespaced(block: list[Line]) -> tuple[str, str, str] | None:
    """(kind, name, namespace) when ``block``, from its ``Name:`` line on, is ``kubectl describe`` output of a
    namespaced object (a ``Namespace:`` line among its headers before the next ``Name:``); kind is "" when the
    headers do not tell it. None otherwise."""
    named = re.match(r"^Name:\s+(\S+)\s*$", block[0][1]) if block else None
    if named is None:
        return None
    keys: dict[str, str] = {}
    for _, t in block[1:]:
        m = _HEADER.match(t)
        if m and m["key"] == "Name":
            break
        if m:
            keys.setdefault(m["key"], (m["value"] or "").strip())
    if "Namespace" not in keys:
        return None
    kind = next((k for k, marks in _DESCRIBED_KINDS if marks <= keys.keys()), "")
    if kind == "virtualmachineinstance" or not kind:  # a custom resource prints its Kind: (ClusterPolicy)
        kind = keys.get("Kind", "").lower() or kind
    return kind, named.group(1), keys["Namespace"]


def other_describe_reason(kind: str, name: str, namespace: str, text: str = "") -> str:
    """Why ``kubectl describe`` text of another object than a node is not read, and what to print instead (a
    cluster-scoped one prints a blank ``Namespace:``: no ``-n``, trial 126); with the scheduler's last
    FailedScheduling event its Events in ``text`` hold, quoted (trial 198: a pending pod's describe text, the most
    pasted of all, was refused without the one line that answered the question)."""
    what = kind or ("output of a namespaced object" if namespace else "output of another object than a node")
    failed = _pending_failure(text, name)
    whose = "its"
    if not failed and (pending := _first_pending(text)) is not None:
        # several pods' describe text: the one the scheduler refused is named (trial 204: the first pod, running,
        # was named, and the pending one's event never quoted)
        name, namespace, failed = pending
        whose = f"pod {name}'s"
    where = f" -n {namespace}" if namespace else ""
    said = f'; {whose} Events hold the scheduler\'s word: FailedScheduling "{failed}"' if failed else ""
    return (
        f"kubectl describe {what}, which verdict does not read (of describe text it reads nodes only): print the object"
        f" with kubectl get {kind or '<kind>'} {name}{where} -o yaml (or -o json){said}"
    )


def _first_pending(text: str) -> tuple[str, str, str] | None:
    """(name, namespace, last FailedScheduling message) of the first pod in ``text``, describe text of one or more
    pods, that is Pending with a FailedScheduling event no Scheduled event follows; None where none is."""
    for name, block in _pod_blocks(text):
        if failed := _failure_of(block):
            ns = re.search(r"^Namespace:[ \t]+(\S+)[ \t]*$", block, re.M)
            return name, ns.group(1) if ns else "", failed
    return None


def _pod_blocks(text: str) -> Iterator[tuple[str, str]]:
    """Each object's describe text in ``text``, from its ``Name:`` line to the next one, with the name it gives."""
    starts = [m.start() for m in _NAME_AT_MARGIN.finditer(text)]
    for start, end in zip(starts, [*starts[1:], len(text)], strict=True):
        block = text[start:end]
        yield block.split("\n", 1)[0].split(":", 1)[1].strip(), block


def _failure_of(block: str) -> str:
    """The last FailedScheduling message of one pod's describe text ``block``; "" where the pod is not Pending or a
    Scheduled event follows it."""
    failed = list(_FAILED_SCHEDULING.finditer(block))
    if not failed or not re.search(r"^Status:[ \t]+Pending[ \t]*$", block, re.M):
        return ""
    if re.search(r"^[ \t]+Normal[ \t]+Scheduled[ \t]", block[failed[-1].end() :], re.M):
        return ""
    return failed[-1].group(1).strip()


def _pending_failure(text: str, name: str) -> str:
    """The last FailedScheduling message of the describe text of the pod ``name`` in ``text``, from its ``Name:`` line
    to the next; "" where the pod is not Pending or a Scheduled event follows it (trial 201: a paste of two pods'
    describe text quoted the second's event for the first, and a scheduled pod's old failure was quoted)."""
    return next((_failure_of(block) for named, block in _pod_blocks(text) if named == name), "")


#: The ``Name:`` line that starts an object's describe text.
_NAME_AT_MARGIN = re.compile(r"^Name:[ \t]", re.M)
#: A FailedScheduling row of describe text's Events table: type, reason, age (``17m``, ``2m41s (x4 over 17m)``), from,
#: and the message, kept.
_FAILED_SCHEDULING = re.compile(
    r"^[ \t]+Warning[ \t]+FailedScheduling[ \t]+\S+(?:[ \t]+\(x\d+ over \S+\))?[ \t]+\S+[ \t]+(\S.*)$", re.M
)


def describe_fragment(text: str) -> tuple[int, list[str], str] | None:
    """(line, headers, kind) when the text is part of ``kubectl describe`` output without the ``Name:`` line it starts
    with: its first line is a node or pod section header (``Capacity:``, ``Labels:``, ``Tolerations:``...) at the
    margin and no ``Name:`` line follows (trial 100: ``kubectl describe node x | grep -A8 Capacity`` was "not a
    Kubernetes object: no 'kind'", or a YAML syntax error, as ``describe pod x | grep -A8 Tolerations`` still was).
    ``headers``: the sections it holds, in order; ``kind``: "node" where one is in ``NODE_ONLY_HEADERS``, as describe
    node prints it (trial 101: ``describe pod ... | grep -A5 Events`` was said to be a node's), "pod" where one is in
    ``POD_ONLY_HEADERS``, else "". None otherwise."""
    headless = not _NAME_LINE.search(text, 0, 4096) and not re.search(r"^(?:kind|apiVersion):", text[:4096], re.M)
    written = _first_written(text) if headless else None
    if written is None:
        return None
    cleaned, first, start, head = written
    known = _HEADERS | POD_ONLY_HEADERS
    # grep -B2 starts inside the section before (trial 155: "  Hostname: gpu-a" above Capacity): a few indented lines
    # of a section's body, then a header at the margin
    lead = 0
    while lead < 3 and first + lead < len(cleaned) and cleaned[first + lead][1][:1] in (" ", ""):
        lead += 1
    if 0 < lead < 3 and first + lead < len(cleaned):
        after = _HEADER.match(cleaned[first + lead][1])
        if after and after["key"] in known - {"Name", "Pods", "Phase"}:
            first += lead
            start, head = cleaned[first]
    m = _HEADER.match(head)
    if m is None or m["key"] not in known - {"Name", "Pods", "Phase"}:
        return None
    headers: list[str] = []
    node = pod = False
    for _, t in cleaned[first : first + 400]:
        h = _HEADER.match(t)
        if h and h["key"] in known and h["key"] not in headers:
            headers.append(h["key"])
            # describe pv/pvc print "Capacity:  10Gi" on one line; a node's Capacity: heads a list (trial 102)
            own = h["key"] in NODE_ONLY_HEADERS and not (h["key"] in ("Capacity", "Allocatable") and h["value"])
            node = node or own
            pod = pod or h["key"] in POD_ONLY_HEADERS
    return start, headers, "node" if node else "pod" if pod else ""


def holds_resources(fragment: tuple[int, list[str], str] | None) -> bool:
    """Whether a ``describe_fragment`` is a node's, with its Capacity or Allocatable: judged (``parse_describe_nodes``'s
    ``unnamed``), where another part is refused."""
    return fragment is not None and fragment[2] == "node" and bool({"Capacity", "Allocatable"} & set(fragment[1]))


def parse_describe_nodes(
    text: str, file: str, unnamed: bool = False, labels_in_part: set[str] | None = None
) -> tuple[list[tuple[dict, int]], list[InputError]]:
    """Returns ``[(object, start_line)]`` — Node objects and bound Pod objects — and input errors.

    Objects come in text order: each Node, then the Pods of its table. ``start_line`` is the 1-based
    line of the node's ``Name:`` (of the pod's row for Pods) in ``text``. Never raises on bad input.
    ``unnamed``: a node whose text has no ``Name:`` line (part of the output, ``describe_fragment``) is named by the
    prompt line before it where that describes one node (``$ kubectl describe node gpu-7 | grep ...``, trial 156), else
    ``NODE`` (``NODE-1``, ``NODE-2``... where the text holds several), a placeholder no node's name can be (it is upper
    case) and that a shell takes as a word (trial 155: ``<node>`` in a fix was a redirection); without it such a node
    is an input error. Such a text was cut on purpose: ending before the node's pods is no input error.
    ``labels_in_part``: where given, the names of the nodes whose Labels section the text does not show whole
    (``_labels_whole``) are added to it.
    """
    objects: list[tuple[dict, int]] = []
    errors: list[InputError] = []
    lines = _clean(text)
    stray = _stray_dump_line(lines)
    if stray is not None:  # trial 54: JSON pasted right after describe text was dropped without a word
        reason = (
            "the text from here is not kubectl describe output (JSON or YAML after it?) and was not read: paste each"
            ' command\'s output after its own prompt line ("$ kubectl get ... -o yaml"), or give it its own file'
        )
        errors.append(InputError(Source(file=file, document=1, line=lines[stray][0]), reason))
        lines = lines[:stray]
    blocks = _split(lines)
    prompt = _first_prompt(text) if unnamed else ""
    prompted = _prompted_node(prompt) if len(blocks) == 1 else ""
    after = _grep_after(prompt)
    for number, block in enumerate(blocks, 1):
        other = _namespaced(block)
        if other is not None:  # trial 124: describe pod beside describe node, no prompt line between, read as a Node
            said = other_describe_reason(*other, text="\n".join(t for _, t in block))
            errors.append(InputError(Source(file=file, document=1, line=block[0][0]), said))
            continue
        try:
            stand_in = "" if not unnamed else prompted or ("NODE" if len(blocks) == 1 else f"NODE-{number}")
            node, pods, soft = _node(block, file, stand_in, after)
        except _Unreadable as e:
            # (trial 158: "Capacity line ... is not 'resource: quantity'" named no node, which it kept out)
            named = next((t.split(":", 1)[1].strip() for _, t in block if t.startswith("Name:")), "")
            # (trial 159: "node <redacted> is not judged: no readable 'Name:' line")
            named = named if NODE_NAME.match(named) else ""
            reason = e.reason if not named or e.reason.startswith("node ") else f"node {named} is not judged: {e.reason}"
            errors.append(InputError(Source(file=file, document=1, line=e.line), reason, e.path))
            continue
        if labels_in_part is not None and not _labels_whole(block):
            labels_in_part.add(node["metadata"]["name"])
        objects.append((node, block[0][0]))
        objects.extend(pods)
        errors.extend(soft)
    return objects, errors


#: A line at the first column that starts JSON or a YAML object: kubectl describe prints neither.
_DUMP_START = re.compile(r"(?:\{|\[\s*(?:\{|$)|apiVersion:|kind:[ \t]|---[ \t]*$)")


def stray_dump_line(text: str) -> int | None:
    """The index in ``text``'s lines (split at line ends) of the line where JSON or a YAML object starts right after
    describe text, no prompt line between (``_stray_dump_line``); None where there is none, or the text has fences."""
    if "```" in text or "~~~" in text:
        return None
    lines = _clean(text)
    stray = _stray_dump_line(lines)
    return None if stray is None else lines[stray][0] - 1


def _stray_dump_line(lines: list[Line]) -> int | None:
    """The index of the first line after a describe section header that starts JSON or a YAML object at its first
    column."""
    started = False
    for i, (_, text) in enumerate(lines):
        if not started:
            m = _HEADER.match(text.lstrip())
            started = bool(m and m["key"] in _HEADERS)
        elif _DUMP_START.match(text):
            return i
    return None


def _clean(text: str) -> list[Line]:
    """Numbered lines without prompt lines, trailing blanks and tabs (grep's group separators, ``--``, are kept:
    ``_split`` ends a section at one).

    With balanced ``` fences only the fenced lines are kept (the rest is the commentary of an issue
    or chat message); unbalanced fences are just dropped.
    """
    raw = text.lstrip("\ufeff").splitlines()
    fences = [i for i, line in enumerate(raw) if _FENCE.match(line)]
    inside = False
    out: list[Line] = []
    for i, line in enumerate(raw):
        if _FENCE.match(line):
            inside = not inside
            continue
        if (fences and len(fences) % 2 == 0 and not inside) or _PROMPT.match(line):
            continue
        out.append((i + 1, line.rstrip().expandtabs(8)))
    return out


def _split(lines: list[Line]) -> list[list[Line]]:
    """Node blocks, dedented to the indentation of the first section header; text before it (prompt,
    commentary) is dropped. A block that does not start with ``Name:`` (a paste cut at the top) is
    kept so that it is reported."""
    start = next((i for i, (_, t) in enumerate(lines) if (m := _HEADER.match(t.lstrip())) and m["key"] in _HEADERS), None)
    if start is None:
        return []
    base = len(lines[start][1]) - len(lines[start][1].lstrip())
    blocks: list[list[Line]] = []
    seen: set[str] = set()
    # a line "--" alone is grep's between the groups -A/-B print (describe prints none): what follows it up to the next
    # section header is the tail of a section whose header grep left out (-B2 of Capacity: the Addresses' last lines)
    between = False
    for number, t in lines[start:]:
        if t.strip() == "--":
            between = True
            continue
        if between:
            if not ((h := _HEADER.match(t.lstrip())) and h["key"] in _HEADERS):
                continue
            between = False
        t = t[base:] if t[:base].strip() == "" else t.lstrip()
        m = _HEADER.match(t)
        key = m["key"] if m and m["key"] in _HEADERS else None
        # kubectl prints a node's sections in one order: one it prints before Capacity, after Capacity or what
        # follows it, begins the next node (grep -E "Labels|Capacity" of several nodes, no Name: line between)
        again = key in _ONCE and (key in seen or (key in _BEFORE_CAPACITY and bool(seen & _FROM_CAPACITY_ON)))
        if not blocks or key == "Name" or again:
            blocks.append([])
            seen = set()
        if key:
            seen.add(key)
        if t:
            blocks[-1].append((number, t))
    return [b for b in blocks if b]


def _sections(block: list[Line]) -> dict[str, _Section]:
    sections: dict[str, _Section] = {}
    current: _Section | None = None
    for number, t in block:
        m = _HEADER.match(t)
        if m and m["key"] in _HEADERS:
            column = m.start("value") if m["value"] else len(t)
            current = sections.setdefault(m["key"], _Section(m["key"], number, (m["value"] or "").strip(), column))
        elif current is not None:
            current.body.append((number, t))
    return sections


#: The sections kubectl describe node prints after Allocatable (``printNode``).
_AFTER_ALLOCATABLE = {"System Info", "Non-terminated Pods", "Allocated resources", "Events"}
#: The sections kubectl describe node prints before Capacity (``printNode``).
_BEFORE_CAPACITY = frozenset(
    {"Roles", "Role", "Labels", "Annotations", "CreationTimestamp", "Taints", "Unschedulable", "Lease", "Conditions", "Addresses"}
)
#: From Capacity on: a block with none of them ends early.
_FROM_CAPACITY_ON = {"Capacity", "Allocatable", *_AFTER_ALLOCATABLE}
#: What kubectl prints after the node's pods' table, and from that table on ("Pods: not authorized" stands in its place
#: for a user who may not list pods): a block with none of them ends before, or inside, it.
_AFTER_PODS = {"Allocated resources", "Events"}
_FROM_PODS_ON = {"Non-terminated Pods", "Pods", *_AFTER_PODS}


#: The one node a prompt line describes: ``kubectl describe node NAME`` (``nodes``, ``no``), before a pipe or the end.
_PROMPTED_NODE = re.compile(r"\bdescribe\s+(?:nodes?|no)\s+([a-z0-9](?:[-a-z0-9.]*[a-z0-9])?)\s*(?:\||$)")


def _first_prompt(text: str) -> str:
    """The text's first prompt line (in its first 4 KB), else "": what it says of the node and of grep's -A."""
    return next((line for line in text[:4096].splitlines() if _PROMPT.match(line)), "")


def _prompted_node(prompt: str) -> str:
    """The node name a prompt line gives (``kubectl describe node NAME``), else ""."""
    m = _PROMPTED_NODE.search(prompt)
    return m.group(1) if m else ""


#: grep's -A N (``-A8``, ``-A 8``, ``--after-context=8``) in a prompt line.
_GREP_AFTER = re.compile(r"\bgrep\b[^|\n]*?(?:\s-[a-zA-Z]*A\s*(\d+)|--after-context[= ](\d+))")


def _grep_after(prompt: str) -> int:
    """The lines grep -A N prints after each match, as a prompt line says; 0."""
    m = _GREP_AFTER.search(prompt)
    return int(m.group(1) or m.group(2)) if m else 0


#: Resources the kubelet reports on every node, which kubectl describe prints in its sorted Capacity and Allocatable.
_ALWAYS_PRINTED = frozenset(("cpu", "ephemeral-storage", "memory"))


def _cut_by_grep(s: dict[str, _Section], name: str, after: int) -> None:
    """Refuse a node's Capacity or Allocatable that grep -A cut (trial 160: on a KubeVirt node, devices.kubevirt.io/*
    sort before nvidia.com/*, and -A8 stopped at memory: the node was said to list no GPU resource). kubectl prints a
    node's resources sorted, pods: last (after nvidia.com/*): a section without it that fills the lines -A N allows
    (without the prompt line: both sections, as many lines each, 6 or more), or whose resources all sort before
    nvidia.com/ and hold one the kubelet always reports (trial 161), was cut."""
    shown = {k: s[k] for k in ("Capacity", "Allocatable") if k in s}
    for key, section in shown.items():
        if any(t.strip().startswith("pods:") for _, t in section.body):
            continue
        lines = len(section.body)
        names = [t.split(":", 1)[0].strip() for _, t in section.body if ":" in t]
        # (trial 161: without a prompt line, grep -A11 of Allocatable alone, or -A5 of both, was read whole) the
        # resources kubectl always prints (cpu, memory, ...) and none of nvidia.com/, which sort between them and pods:
        before_gpus = bool(names) and all(n < "nvidia.com/" for n in names) and bool(set(names) & _ALWAYS_PRINTED)
        # (trial 162: and, as before, both sections as long, 6 lines or more: grep -A6 of a MIG node stopped at
        # nvidia.com/gpu: 0, its nvidia.com/mig-* lines cut)
        alike = len(shown) == 2 and lines >= 6 and len({len(x.body) for x in shown.values()}) == 1
        filled = (lines >= after if after else alike) or before_gpus
        if filled:
            grep = f"grep -A{after} printed" if after else "the text shows"
            shown_lines = "1 line" if lines == 1 else f"{lines} lines"
            raise _Unreadable(
                section.line,
                f"node {name} is not judged: its {key} section is cut: {grep} {shown_lines} of it and not its"
                " pods: line, which kubectl prints last, after the nvidia.com/ resources, so its GPU resources may be"
                " among the lines left out; paste grep -A20 -E 'Capacity|Allocatable', or the whole kubectl describe"
                " node output",
                f"$.status.{key.lower()}",
            )


#: A line a person writes where they cut a paste: an ellipsis (one character, or three dots or more), alone, in
#: brackets or with "snip" (trial 217: "[...]", "...." and "... (snip)" were read as no mark).
CUT_MARK = re.compile(
    r"(?:\.{3,}|\u2026)(?: ?\((?:snip|snipped)\))?|\[(?:\.{3}|\u2026|snip)\]|\((?:\.{3}|\u2026|snip|snipped)\)|<snip>",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class PodsNotShown(InputError):
    """Not an input error: a node's describe text, whole as far as it goes, ends before its pods' table (after its
    Allocatable, or with an ellipsis a person wrote where they cut it). The reader says it in a note: nothing in the
    text was unreadable (trial 219: a cut said with '…' was an input error, exit 1, where the same cut unsaid
    passed)."""


def pods_not_shown(name: str, mark: str, source: Source) -> PodsNotShown:
    """What is said of node ``name``'s describe text ending before its pods' table, with ``mark`` (an ellipsis) or
    none: judged, without the pods that run there."""
    how = f"ends with '{mark}', the mark of a cut," if mark else "ends"
    return PodsNotShown(
        source,
        f"node {name} is judged without its pods: the text {how} before its Non-terminated Pods, Allocated resources"
        " and Events; paste the whole kubectl describe node output to judge what runs there",
        lost=False,
        kind="Pod",
        count=None,
    )


def _node(
    block: list[Line], file: str, unnamed: str = "", after: int = 0
) -> tuple[dict, list[tuple[dict, int]], list[InputError]]:
    s = _sections(block)
    fragment = "Name" not in s and bool(unnamed)
    name = s["Name"].value if "Name" in s else unnamed
    if fragment:
        _cut_by_grep(s, name, after)
    if not name or not (NODE_NAME.match(name) or name == unnamed):
        line = s["Name"].line if "Name" in s else block[0][0]
        raise _Unreadable(line, "no readable 'Name:' line: not a node of kubectl describe output", "$.metadata.name")
    if not s.keys() & _FROM_CAPACITY_ON:
        # kubectl prints Capacity, Allocatable, System Info ... Events after Conditions and Addresses: a node
        # with none of them was cut short (head, a paste limit); judged, it would read as a node without GPUs
        # (what is not judged comes first: a chat answer cuts the line at 160 characters, trial 124)
        raise _Unreadable(
            block[-1][0],
            f"node {name} is not judged: the text ends before its Capacity and Allocatable (cut short?)",
            "$.status",
        )
    last = block[-1][0]
    ends_in_allocatable = "Allocatable" in s and "Capacity" in s and not s.keys() & _AFTER_ALLOCATABLE
    resources = {
        key.lower(): _resources(s[key], name, last, tolerant=ends_in_allocatable and key == "Allocatable")
        for key in ("Capacity", "Allocatable")
        if key in s
    }
    cut: list[InputError] = []
    if "capacity" in resources and not s.keys() & _AFTER_ALLOCATABLE:
        # The text ends in Capacity or Allocatable. A paste of just those two sections is common and whole when
        # Allocatable names every resource of Capacity (kubelet reports both for each); fewer, and the cut fell
        # inside them: judged as read, the missing ones would read as allocatable 0 (false failures).
        missing = sorted(resources["capacity"].keys() - resources.get("allocatable", {}).keys())
        if missing and not ends_in_allocatable:
            raise _Unreadable(
                last,
                f"node {name} is not judged: the text ends inside its Capacity, before Allocatable (cut short?): no"
                f" allocatable for {first_few(missing, 3)}, which Capacity lists",
                "$.status.allocatable",
            )
        if missing:
            # trial 124: Capacity is whole (Allocatable follows it): its labels and what Capacity lists show what the
            # node advertises (a container node listing a passthrough GPU), and a dropped node hid it. Judged, with
            # Capacity's count for what Allocatable lacks and for its last line, which the cut may have shortened.
            allocatable = resources["allocatable"]
            number, text = s["Allocatable"].body[-1] if s["Allocatable"].body else (0, "")
            m = _RESOURCE.match(text.strip()) if number == last else None
            shortened = [m["name"]] if m and m["name"] in allocatable else []
            capacity = resources["capacity"]
            # (a last line naming what Capacity does not list keeps its count: trial 126 saw it named as taken)
            taken = sorted({*missing, *(r for r in shortened if r in capacity and allocatable[r] != capacity[r])})
            for r in taken:
                allocatable[r] = capacity[r]
            cut.append(
                InputError(
                    Source(file=file, document=1, line=last),
                    f"node {name} is judged with Capacity's count as its allocatable {first_few(taken, 3)}: the text"
                    " ends inside its Allocatable (cut short?); a device plugin's resource is allocatable for its healthy"
                    " devices only, which the text does not show, and what kubectl prints after Allocatable (the node's"
                    " pods, Allocated resources, Events) is not known",
                    "$.status.allocatable",
                )
            )
    # ("Pods: not authorized" is whole: said below, trial 131)
    if "System Info" in s and not s.keys() & _FROM_PODS_ON and not fragment:
        # trial 124: kubectl prints the node's pods, Allocated resources and Events after System Info: a text ending in
        # it was cut short, and the pods that run there were left out without a word
        cut.append(
            InputError(
                Source(file=file, document=1, line=last),
                f"node {name} is judged without its pods: the text ends after its System Info, before Non-terminated"
                " Pods, Allocated resources and Events (cut short?); paste the whole kubectl describe node output to"
                " judge what runs there",
                "$.status.nodeInfo",
                kind="Pod",
                count=None,
            )
        )
    mark = block[-1][1].strip()
    if not fragment and not s.keys() & _FROM_PODS_ON and not cut:
        # trial 216: a paste ending in its Allocatable, '…' (or '...') under it or not, was judged as a whole node
        # without a word, and the rule reading its pods named a cause the cut-off pods' table would have refuted
        said = mark if CUT_MARK.fullmatch(mark) else ""
        cut.append(pods_not_shown(name, said, Source(file=file, document=1, line=last)))
    if "Pods" in s and "Non-terminated Pods" not in s:
        # kubectl prints "Pods: not authorized" in place of the pods' table for a user who may not list pods (trial
        # 131: whole, yet nothing said the pods were withheld, and a rule reading what runs on the node judged as if
        # nothing did); the text ending inside that line ("Pods: not auth") was cut there
        withheld = s["Pods"].value == "not authorized"
        if withheld or s["Pods"].line == last:
            why = (
                'kubectl printed "Pods: not authorized" in place of its pods (whoever ran kubectl describe node may not'
                " list pods), so what runs there is not in the dump; describe it as a user who may"
                if withheld
                else f"the text ends inside its line 'Pods: {s['Pods'].value}' (cut short?); paste the whole kubectl"
                " describe node output"
            )
            cut.append(
                InputError(
                    Source(file=file, document=1, line=s["Pods"].line),
                    f"node {name} is judged without its pods: {why}",
                    kind="Pod",
                    count=None,
                )
            )
    joined: list[int] = []
    metadata: dict[str, Any] = {"name": name, "labels": _labels(s.get("Labels"), joined)}
    # where the first wrapped line is: the labels', the annotations' or the taints'
    wrapped_at = "$.metadata.labels" if joined else ""
    annotations = _annotations(s.get("Annotations"), joined)
    wrapped_at = wrapped_at or ("$.metadata.annotations" if joined else "$.spec.taints")
    annotations[SOURCE_KEY] = SOURCE_VALUE
    if allocated := _allocated(s.get("Allocated resources"), block[-1][0]):
        annotations[ALLOCATED_KEY] = json.dumps(allocated, sort_keys=True)
    metadata["annotations"] = annotations
    if "CreationTimestamp" in s and (ts := _timestamp(s["CreationTimestamp"].value)):
        metadata["creationTimestamp"] = ts
    spec: dict[str, Any] = {}
    if taints := _taints(s.get("Taints"), joined):
        spec["taints"] = taints
    if joined:
        # said, not silent: the node is judged with the lines joined (trial 124)
        cut.append(
            InputError(
                Source(file=file, document=1, line=min(joined)),
                f"node {name}: {'line' if len(joined) == 1 else 'lines'} {_numbers(sorted(joined))} of its labels,"
                " annotations or taints"
                f" {'starts' if len(joined) == 1 else 'start'} at the margin, where kubectl indents them: a terminal or"
                " chat client wrapped them, and each is read as the end of the line before it",
                wrapped_at,
                lost=False,
            )
        )
    if "Unschedulable" in s:
        flag = s["Unschedulable"].value
        if flag not in ("true", "false"):
            raise _Unreadable(s["Unschedulable"].line, f"Unschedulable is {flag!r}, not true or false", "$.spec.unschedulable")
        if flag == "true":
            spec["unschedulable"] = True
    for key, field_ in (("PodCIDR", "podCIDR"), ("ProviderID", "providerID")):
        if key in s and s[key].value:
            spec[field_] = s[key].value
    if "PodCIDRs" in s and s["PodCIDRs"].value:
        spec["podCIDRs"] = s["PodCIDRs"].value.split(",")
    status: dict[str, Any] = dict(resources)
    if conditions := _conditions(s.get("Conditions")):
        status["conditions"] = conditions
    if addresses := _pairs(s.get("Addresses")):
        status["addresses"] = [{"type": k, "address": v} for k, v in addresses]
    if "System Info" in s:
        info = {_NODE_INFO[k]: v for k, v in _pairs(s["System Info"]) if k in _NODE_INFO}
        status["nodeInfo"] = info
    node = {"apiVersion": "v1", "kind": "Node", "metadata": metadata, "spec": spec, "status": status}
    # the text ends inside the pods' table when nothing kubectl prints after it follows (trial 124: a row cut there was
    # "not readable", the cut unsaid)
    ends_in_pods = "Non-terminated Pods" in s and not s.keys() & _AFTER_PODS
    # (trial 162: only where grep -A printed it: rows trimmed by hand are still said)
    pods, soft = _pods(s.get("Non-terminated Pods"), name, file, last if ends_in_pods else None, fragment and after > 0)
    table = s.get("Non-terminated Pods")
    total = _POD_TOTAL.match(table.value) if table is not None else None
    if total and int(total[1]) == len(pods) and not soft:  # its rows as many as its "(N in total)" says, all read
        annotations[PODS_LISTED_KEY] = "true"
    return node, pods, cut + soft


def _labels_whole(block: list[Line]) -> bool:
    """Whether a node's describe text shows its Labels section whole: kubectl describe node prints Annotations: on the
    line after its last label (``printNode``). grep -A stops before it, or prints it after a ``--`` line (trial 204:
    ``grep -E -A9 'Labels|Capacity'`` cut a node's labels, and a label of the table before it was judged removed)."""
    s = _sections(block)
    labels, annotations = s.get("Labels"), s.get("Annotations")
    if labels is None or annotations is None:
        return False
    return annotations.line == (labels.body[-1][0] if labels.body else labels.line) + 1


def _label(text: str) -> bool:
    """Whether ``text`` is a label line, ``key=value``."""
    key, eq, value = text.partition("=")
    return bool(eq and LABEL_KEY.match(key) and LABEL_VALUE.match(value))


def _taint(text: str) -> bool:
    """Whether ``text`` is a taint line, ``key[=value][:Effect]``."""
    rest, colon, effect = text.rpartition(":")
    if not colon:
        rest, effect = text, ""
    key, _, value = rest.partition("=")
    return bool((not effect or effect in _EFFECTS) and LABEL_KEY.match(key) and LABEL_VALUE.match(value))


def _whole_taint(text: str) -> bool:
    """Whether ``text`` is a taint line as kubectl prints one, with its effect (the API requires one): what a
    wrapped line is joined by (trial 137: "nvidia.com/g" and "pu=present:NoSchedule" were two taints, each valid
    without an effect)."""
    return _taint(text) and text.rpartition(":")[2] in _EFFECTS


def _labels(section: _Section | None, joined: list[int]) -> dict[str, str]:
    labels: dict[str, str] = {}
    for number, text in _items(section, joined, _label):
        key, eq, value = text.partition("=")
        if not _label(text):
            raise _Unreadable(number, f"label line {text!r} is not key=value{_wrapped(section, number)}", "$.metadata.labels")
        labels[key] = value
    return labels


def _numbers(lines: list[int]) -> str:
    """``5``, ``5 and 9``, ``5, 9 and 12``."""
    shown = [str(n) for n in lines]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} and {shown[-1]}"


def _wrapped(section: _Section | None, number: int) -> str:
    """A hint when the line after line ``number`` of ``section`` starts at the margin, where kubectl indents every
    line of a section, and the two make no item together (``_items`` joins them where they do): a terminal or chat
    client wrapped a long line (trial 124: a label line cut at 60 columns)."""
    after = [t for n, t in (section.body if section else []) if n > number]
    if after and after[0] and not after[0][0].isspace():
        return (
            f" (the next line, {after[0].strip()!r}, starts at the margin: a terminal or chat client wrapped it? paste"
            " it as a code block, or from a wider window)"
        )
    return ""


def _taints(section: _Section | None, joined: list[int]) -> list[dict[str, str]]:
    taints: list[dict[str, str]] = []
    for number, text in _items(section, joined, _whole_taint):
        rest, colon, effect = text.rpartition(":")
        if not colon:
            rest, effect = text, ""
        key, _, value = rest.partition("=")
        if not _taint(text):
            raise _Unreadable(number, f"taint {text!r} is not key[=value]:Effect{_wrapped(section, number)}", "$.spec.taints")
        taint = {"key": key}
        if value:
            taint["value"] = value
        if effect:
            taint["effect"] = effect
        taints.append(taint)
    return taints


def _allocated(section: _Section | None, last: int) -> dict[str, str]:
    """The non-zero requests of Allocated resources, by resource. Its header, separator and note lines are not
    rows, and a row that may be cut short is left out, never guessed (review: ``cpu  25``, cut from ``250m (3%)``,
    made a floor of 25 CPUs): the block's ``last`` line, and a row of a resource kubectl prints with its share that
    lacks it."""
    if section is None:
        return {}
    out: dict[str, str] = {}
    for number, text in section.body:
        m = _ALLOCATED_ROW.match(text.strip())
        if not m or m["name"] == "Resource" or not is_quantity(m["requests"]) or m["requests"] == "0" or number == last:
            continue
        if m["share"] is None and _WITH_SHARE.match(m["name"]):
            continue
        out[m["name"]] = m["requests"]
    return out


def _items(section: _Section | None, joined: list[int] | None = None, valid: Callable[[str], bool] | None = None) -> list[Line]:
    """The header value and each continuation line of a one-item-per-line section, ``<none>`` → []. With ``joined``
    and ``valid`` (labels, taints: no spaces in them), a line at the margin, where kubectl indents every line of a
    section, is the end of the item before it, wrapped by a terminal or chat client (trial 124: label lines wrapped at
    60 columns refused the node), where one of the two is no item alone and the two make one; its number is added to
    ``joined``. (A chat that strips every line's indent puts every item at the margin, each whole.)"""
    if section is None:
        return []
    items = [(section.line, section.value)] if section.value else []
    for n, t in section.body:
        if valid and joined is not None and items and (whole := _unwrapped(items[-1][1], t, valid)) is not None:
            items[-1] = (items[-1][0], whole)
            joined.append(n)
            continue
        items.append((n, t.strip()))
    return [(n, t) for n, t in items if t and t != "<none>"]


def _unwrapped(before: str, text: str, valid: Callable[[str], bool], glue: str = "") -> str | None:
    """``before`` and ``text`` read as one line, where ``text`` starts at the margin (kubectl indents every line of a
    section: a terminal or chat client wrapped it), one of the two is no item alone, and the two joined by ``glue``
    make one; else None."""
    before, end = before.strip(), text.strip()
    if not text or text[0].isspace() or (valid(before) and valid(end)) or not valid(before + glue + end):
        return None
    return before + glue + end


def _resources(section: _Section, node: str, last: int, tolerant: bool = False) -> dict[str, str]:
    """A Capacity or Allocatable section's ``resource: quantity`` lines; an unreadable one is an error, said to be
    where the text ends when it is the block's ``last`` line (trial 88: a paste cut mid-line read as a bad line).
    ``tolerant``: the text ends in this section, whose last line, cut mid-line, is left out (``_node`` says so)."""
    out: dict[str, str] = {}
    for number, text in section.body:
        m = _RESOURCE.match(text.strip())
        if not m or not is_quantity(m["value"]):
            where = f"$.status.{section.key.lower()}"
            if number == last and tolerant:
                continue
            if number == last:
                raise _Unreadable(
                    number,
                    f"node {node} is not judged: the text ends inside its {section.key}, in line {text.strip()!r} (cut short?)",
                    where,
                )
            raise _Unreadable(number, f"{section.key} line {text.strip()!r} is not 'resource: quantity'", where)
        out[m["name"]] = m["value"]
    return out


#: An annotation line: ``key: value``, old ``key=value``, or ``key:`` with its value on the lines under it.
_ANNOTATION = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_./]*)(?::(?: (.*))?|=(.*))$")


def _annotations(section: _Section | None, joined: list[int]) -> dict[str, str]:
    """``key: value``, old ``key=value``, and long values printed under ``key:`` two columns deeper. A line at the
    margin that ends the one before it (one of the two no annotation line alone, the two one) is joined to it, its
    number added to ``joined`` (trial 137: a key wrapped by a terminal, "projectcalico.org/IPv4Add" and
    "ress: 10.0.4.3/24", lost its key without a word)."""
    if section is None or section.value in ("", "<none>"):
        return {}
    lines: list[Line] = [(section.line, " " * section.column + section.value)]
    for number, text in section.body:
        # a wrap right after a key's colon lost the space kubectl writes there (trial 138: the value was lost); not
        # one after a colon inside a value (trial 140: "unix:" + "///var/run/...")
        bare_key = _ANNOTATION.match(lines[-1][1].strip())
        glue = " " if bare_key and bare_key[2] is None and bare_key[3] is None else ""
        if (whole := _unwrapped(lines[-1][1], text, lambda t: bool(_ANNOTATION.match(t)), glue)) is not None:
            indent = len(lines[-1][1]) - len(lines[-1][1].lstrip())
            lines[-1] = (lines[-1][0], " " * indent + whole)
            joined.append(number)
            continue
        lines.append((number, text))
    out: dict[str, str] = {}
    open_key: str | None = None
    for _, text in lines:
        indent, body = len(text) - len(text.lstrip()), text.strip()
        if open_key is not None and indent >= section.column + 2:
            out[open_key] = f"{out[open_key]}\n{body}" if out[open_key] else body
            continue
        m = _ANNOTATION.match(body)
        open_key = None
        if m:
            value = m[2] if m[2] is not None else m[3]
            out[m[1]] = value or ""
            if value is None:
                open_key = m[1]
    return out


def _pairs(section: _Section | None) -> list[tuple[str, str]]:
    """``Key: value`` lines (Addresses, System Info); unreadable lines are skipped."""
    pairs = []
    for _, text in section.body if section else []:
        key, colon, value = text.strip().partition(":")
        if colon:
            pairs.append((key.strip(), value.strip()))
    return pairs


def _conditions(section: _Section | None) -> list[dict[str, str]]:
    out = []
    for _, text in section.body if section else []:
        m = _CONDITION.match(text.strip())
        if not m or m["type"] in ("Type", "----"):
            continue
        condition = {"type": m["type"], "status": m["status"]}
        for key, value in (("lastHeartbeatTime", m["hb"]), ("lastTransitionTime", m["tt"])):
            if ts := _timestamp(value):
                condition[key] = ts
        reason, _, message = (m["rest"] or "").partition("  ")
        if " " in reason and not message:
            reason, message = "", reason
        if reason:
            condition["reason"] = reason
        if message.strip():
            condition["message"] = message.strip()
        out.append(condition)
    return out


def _timestamp(text: str) -> str | None:
    try:
        when = datetime.strptime(text.strip(), "%a, %d %b %Y %H:%M:%S %z")
    except ValueError:
        return None
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _pods(
    section: _Section | None, node: str, file: str, last: int | None = None, cut_ok: bool = False
) -> tuple[list[tuple[dict, int]], list[InputError]]:
    """The Pods of a node's Non-terminated Pods rows, and an input error for each row that cannot be read; ``last`` is
    the block's last line where the text ends inside this table (a row there that cannot be read was cut)."""
    if section is None:
        return [], []
    pods: list[tuple[dict, int]] = []
    errors: list[InputError] = []
    total = _POD_TOTAL.match(section.value)
    for line, text in section.body:
        row = text.strip()
        if row.startswith(("Namespace ", "---------")):
            continue
        m = _POD_ROW.match(row)
        if not m:
            reason = f"pod row {row!r} of node {node} is not readable"
            count: int | None = 1
            if line == last:
                # the pods from that row on: as many as the table's "(N in total)" leaves, where it says
                reason = (
                    f"node {node} is judged without the pods from row {row!r} on: the text ends inside its"
                    " Non-terminated Pods, in that row (cut short?)"
                )
                count = int(total[1]) - len(pods) if total and int(total[1]) > len(pods) else None
            errors.append(
                InputError(Source(file=file, document=1, line=line), reason, "$.spec.nodeName", kind="Pod", count=count)
            )
            continue
        requests = {k: v for k, v in (("cpu", m["cpur"]), ("memory", m["memr"])) if v != "0"}
        limits = {k: v for k, v in (("cpu", m["cpul"]), ("memory", m["meml"])) if v != "0"}
        resources = {k: v for k, v in (("requests", requests), ("limits", limits)) if v}
        pods.append(
            (
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": {"name": m["name"], "namespace": m["ns"], "annotations": {SOURCE_KEY: SOURCE_VALUE}},
                    "spec": {"nodeName": node, "containers": [{"name": POD_CONTAINER, "resources": resources}]},
                    "status": {"phase": "Running"},
                },
                line,
            )
        )
    if total and int(total[1]) != len(pods) and not errors:
        if cut_ok:
            # a node's part grep printed (trial 161: the pack's own grep -A20 -E 'Capacity|Allocatable' reaches the
            # table's header on EKS): its pods are not shown, and the few rows it holds are not taken for the node's
            return [], []
        # the rows missing are Pods kept out (trial 137: a cut at a row's end counted none)
        missing = int(total[1]) - len(pods)
        errors.append(
            InputError(
                Source(file=file, document=1, line=section.line),
                f"node {node} lists {total[1]} non-terminated pods but {len(pods)} rows were found (the text is cut?)",
                "$.spec.nodeName",
                kind="Pod" if missing > 0 else "",
                count=max(missing, 1),
            )
        )
    elif not total and section.line == last:
        # the text ends inside the table's own line, "(14 in to" (trial 137: read as whole, as if nothing ran there),
        # or right after its colon (trial 138)
        shown = f"Non-terminated Pods: {section.value}" if section.value else "Non-terminated Pods:"
        errors.append(
            InputError(
                Source(file=file, document=1, line=section.line),
                f"node {node} is judged without its pods: the text ends inside its line '{shown}' (cut short?); paste"
                " the whole kubectl describe node output",
                "$.spec.nodeName",
                kind="Pod",
                count=None,
            )
        )
    return pods, errors
