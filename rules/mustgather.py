"""Read the folder that NVIDIA GPU Operator's must-gather writes.

Layout and file formats come from NVIDIA/gpu-operator ``hack/must-gather.sh``: YAML dumps
(``cluster_policy.yaml``, ``kubevirt.yaml``, ``hyperconverged.yaml``, ``openshift_version.yaml``,
``gpu_operator_pod.yaml``, ``gpu_operand_pods.yaml``, ``gpu_operand_ds.yaml``), ``cluster_policy.missing``
(an empty marker written when no ClusterPolicy exists), ``gpu_nodes.labels`` (see
``parse_node_labels``), ``gpu_nodes.descr`` (``kubectl describe nodes -l nvidia.com/gpu.present=true``,
read by ``rules.describe``) and text that is not a dump: ``*.status`` (``kubectl get -owide``),
``*.log``/``*.previous.log``, per-pod and per-DaemonSet ``*.descr``, ``gpu_operand_pod_images.txt``,
``all_machines.list``, ``version``, ``nvidia-bug-report_<node>.log.gz``.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterable
from typing import Any, Literal

from rules.describe import LABEL_KEY, LABEL_VALUE, NODE_NAME, SOURCE_KEY
from rules.errors import InputError, Source

LABELS_SOURCE = "must-gather-labels"

Kind = Literal["yaml", "labels", "describe", "missing-clusterpolicy", "skip"]

# File names only must-gather.sh writes under these exact names.
_STRONG = frozenset(
    {
        "gpu_nodes.labels",
        "gpu_nodes.descr",
        "gpu_nodes.status",
        "cluster_policy.missing",
        "gpu_operator_pod.status",
        "gpu_operand_pods.status",
        "gpu_operand_ds.status",
        "gpu_operand_pod_images.txt",
        "must-gather.stderr.log",
    }
)
MUST_GATHER_MARKERS: frozenset[str] = _STRONG | frozenset(
    {
        "cluster_policy.yaml",
        "gpu_operator_pod.yaml",
        "gpu_operator_pod.log",
        "gpu_operator_pod.previous.log",
        "gpu_operand_pods.yaml",
        "gpu_operand_ds.yaml",
    }
)

#: What a YAML file of must-gather.sh holds (``kubectl get <resource> -o yaml``), by its name: the kind of its objects,
#: what an input error in the file kept out of the dump, and how many where it is written of one object (a cluster has
#: one ClusterPolicy, one KubeVirt, one HyperConverged; ``kubectl get pod/<the operator's pod> -o yaml``), else None.
FILE_HOLDS: dict[str, tuple[str, int | None]] = {
    "cluster_policy.yaml": ("ClusterPolicy", 1),
    "kubevirt.yaml": ("KubeVirt", 1),
    "hyperconverged.yaml": ("HyperConverged", 1),
    "gpu_operator_pod.yaml": ("Pod", 1),
    "gpu_operand_pods.yaml": ("Pod", None),
    "gpu_operand_ds.yaml": ("DaemonSet", None),
}


def file_holds(name: str) -> tuple[str, int | None] | None:
    """The kind and count (``FILE_HOLDS``) of the objects a must-gather YAML file of that name holds, else None."""
    return FILE_HOLDS.get(_base(name))


# apimachinery label syntax: qualified-name keys, values of [A-Za-z0-9._-] (IsQualifiedName,
# IsValidLabelValue). Neither may contain ':', '=', ',', '"', '{' or '}'.


def _base(name: str) -> str:
    """Base name of a path, an archive member (``a.tar.gz!dir/f``) or a Windows path."""
    return re.split(r"[/\\!]", name.rstrip("/\\"))[-1]


def is_must_gather(names: Iterable[str]) -> bool:
    """True when file names (base names or relative paths) show the must-gather layout.

    One name only the script writes (``gpu_nodes.labels``, ``cluster_policy.missing``, ``*.status`` of
    the operator, ...) is enough; otherwise two of ``MUST_GATHER_MARKERS`` are needed, so a folder
    that merely holds a ``cluster_policy.yaml`` is still read as plain YAML.
    """
    found = {_base(n) for n in names} & MUST_GATHER_MARKERS
    return bool(found & _STRONG) or len(found) >= 2


def classify(name: str) -> Kind:
    """How the reader treats one must-gather file (by base name)."""
    base = _base(name)
    if base == "gpu_nodes.labels":
        return "labels"
    if base == "gpu_nodes.descr":
        return "describe"
    if base == "cluster_policy.missing":
        return "missing-clusterpolicy"
    # (trial 154: a dump someone added beside the script's files was read as *.yaml and passed over as *.json)
    if base.lower().endswith((".yaml", ".yml", ".json")):
        return "yaml"
    return "skip"


def parse_node_labels(text: str, file: str) -> tuple[list[tuple[dict, int]], list[InputError]]:
    """``gpu_nodes.labels`` → ``[(Node, line)]``; each Node is
    ``{apiVersion: v1, kind: Node, metadata: {name, labels, annotations: {verdict.dev/source:
    must-gather-labels}}}`` and ``line`` is the 1-based line of its name.

    How must-gather.sh writes the file, per node with an NVIDIA PCI label: the name (``cut -d/ -f2`` of
    ``node/<name>``) on a line, then ``kubectl get node -ojsonpath={.metadata.labels}`` — Go's compact
    JSON, keys sorted, no trailing newline, e.g. ``{"a/b":"x","c":""}`` — through
    ``sed 's|,|,- |g' | tr ',' '\\n' | sed 's/{"/- /' | tr : = | sed 's/"//g' | sed 's/}/\\n/'``,
    then ``echo ""``. So each ``"key":"value"`` pair becomes a line ``- key=value``, an empty value
    ``- key=``, and a blank line ends the node.

    Reversal: split each ``- `` line at its first ``=``. It is exact for every label the API server
    accepts, because keys and values may not contain ``:``, ``=``, ``,``, ``"``, ``{`` or ``}``: the
    ``tr : =`` only ever rewrote the JSON separator, and no character was deleted from a key or value.
    Spaces around key and value (a JSON printer with ``": "``) are stripped. Also read: the old kubectl
    map print ``map[k=v k2=v2]`` (Go's ``map[k:v ...]`` after ``tr : =``).

    What cannot be recovered: (1) in a value that breaks label syntax (hand-edited file, other tool)
    each ``=`` after the first may have been a ``:`` and every ``"``, ``{``/``}`` and ``,`` is gone; such
    labels are kept as read and reported; (2) a node listed twice (it matched two of the script's three
    PCI selectors) is one node; (3) everything but labels — annotations, taints, capacity — is not in
    this file (see ``gpu_nodes.descr``); (4) a node whose label map was empty prints ``{``, read as no
    labels. Errors (lines before a name, lines without ``=``, bad keys, bad node names) are InputErrors
    with ``Source(file, document=<node number>, line)``; a node with a bad name is skipped.
    """
    nodes: dict[str, tuple[dict[str, Any], int, int]] = {}
    errors: list[InputError] = []
    current: dict[str, str] | None = None
    skipping = False
    number = 0

    def error(line: int, reason: str) -> None:
        errors.append(
            InputError(
                Source(file=file, document=max(number, 1), line=line),
                reason,
                "$.metadata.labels" if current is not None else "$.metadata.name",
            )
        )

    for line_no, raw in enumerate(text.lstrip("\ufeff").splitlines(), 1):
        line = raw.strip()
        if not line:
            current, skipping = None, False
            continue
        if line.startswith("-") or line.startswith("map["):
            if skipping:
                continue
            if current is None:
                error(line_no, f"label line {line!r} comes before any node name")
                continue
            pairs = line[4:-1].split() if line.startswith("map[") and line.endswith("]") else [line[1:]]
            for pair in pairs:
                _add_label(current, pair, line_no, error)
            continue
        if line == "{":
            continue
        number += 1
        if not NODE_NAME.match(line):
            current, skipping = None, True
            error(line_no, f"{line!r} is not a node name; its labels are skipped")
            continue
        if line in nodes:
            current = nodes[line][0]["metadata"]["labels"]
        else:
            current = {}
            node = {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": line, "labels": current, "annotations": {SOURCE_KEY: LABELS_SOURCE}},
            }
            nodes[line] = (node, line_no, number)
    return [(node, line) for node, line, _ in nodes.values()], errors


def _add_label(labels: dict[str, str], pair: str, line: int, report: Callable[[int, str], None]) -> None:
    key, eq, value = pair.partition("=")
    key, value = key.strip(), value.strip()
    if not eq or not LABEL_KEY.match(key):
        report(line, f"{pair.strip()!r} is not a label: expected key=value with a valid key")
        return
    if not LABEL_VALUE.match(value):
        report(
            line,
            f"label {key} has value {value!r}, which is not label syntax; an '=' in it may have "
            "been ':' (must-gather.sh turns every ':' into '=') and quotes/commas are lost",
        )
    labels[key] = value


def merge_nodes(from_labels: list[dict], from_describe: list[dict]) -> list[dict]:
    """Merge Nodes of ``gpu_nodes.labels`` and ``gpu_nodes.descr`` by ``metadata.name``.

    The result holds one Node per name, labels-file order first, then describe-only nodes. A node in
    both is a deep copy of the describe node (capacity, allocatable, taints, conditions, annotations)
    whose ``metadata.labels`` are replaced by the labels file's (exact keys and values; the describe
    ones are used when the labels file gave none); its ``verdict.dev/source`` becomes
    ``must-gather-labels+kubectl-describe``. Non-Node objects in ``from_describe`` (the Pods) are not
    returned: take them from ``parse_describe_nodes``. Inputs are not modified.
    """
    described = {n["metadata"]["name"]: n for n in from_describe if n.get("kind") == "Node"}
    merged: list[dict] = []
    for labelled in from_labels:
        name = labelled["metadata"]["name"]
        if name not in described:
            merged.append(copy.deepcopy(labelled))
            continue
        node = copy.deepcopy(described.pop(name))
        if labelled["metadata"].get("labels"):
            node["metadata"]["labels"] = dict(labelled["metadata"]["labels"])
        sources = [
            labelled["metadata"].get("annotations", {}).get(SOURCE_KEY, LABELS_SOURCE),
            node["metadata"].get("annotations", {}).get(SOURCE_KEY),
        ]
        node["metadata"].setdefault("annotations", {})[SOURCE_KEY] = "+".join(s for s in sources if s)
        merged.append(node)
    merged.extend(copy.deepcopy(n) for n in described.values())
    return merged
