"""kubectl get nodes' table, read for the labels it shows.

``kubectl get nodes -L nvidia.com/gpu.workload.config`` (or ``--show-labels``) prints one row a node and a column a
label: what an operator pastes to show which node runs which workload (trial 156: such a table beside a node's
describe text was refused, and the node was judged as unlabelled). Its rows are read as Nodes that carry those
labels and nothing else: merged into the node of the same name the dump holds (a describe fragment has no labels),
else judged as they are. kubectl names a ``-L`` column by the part of the key after its last ``/``, upper-cased
(``formatLabelHeaders`` of the table printers kubectl uses, in k8s.io/cli-runtime pkg/printers): the key comes
from the command line when the paste holds it, else an NVIDIA label's (``GPU.WORKLOAD.CONFIG`` is
``nvidia.com/gpu.workload.config``), said in a note.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from .describe import NODE_NAME

#: The header kubectl get nodes prints (-o wide adds columns after VERSION), at least 2 spaces between titles.
_HEAD = re.compile(r"NAME {2,}STATUS {2,}ROLES {2,}AGE {2,}VERSION(?: {2,}\S|\s*$)")
#: A column title: words with one space between them ("NOMINATED NODE"); titles stand 2 or more spaces apart.
_TITLE = re.compile(r"\S+(?: \S+)*")
#: The columns kubectl get nodes prints of its own (-o wide included); any other is a label column (-L).
_OWN = frozenset(
    ("NAME", "STATUS", "ROLES", "AGE", "VERSION", "INTERNAL-IP", "EXTERNAL-IP", "OS-IMAGE", "KERNEL-VERSION")
    + ("CONTAINER-RUNTIME", "LABELS")
)
#: A node's STATUS cell (Ready, NotReady or Unknown, then ",SchedulingDisabled" when cordoned).
_STATUS = re.compile(r"(?:Ready|NotReady|Unknown)(?:,SchedulingDisabled)?")
#: The NVIDIA labels a -L column's title names without its prefix (nvidia.com/gpu.workload.config, vgpu.config,
#: mig.config, gpu.deploy.device-plugin, ...).
_NVIDIA_SUFFIX = re.compile(r"(?:gpu|vgpu|mig)\.[a-z0-9][-a-z0-9.]*")
#: -L/--label-columns in a command line: the keys it names (comma-separated, repeatable).
_LABEL_FLAGS = ("-L", "--label-columns")


def is_table(text: str) -> bool:
    """Whether ``text`` starts (after blank lines) with kubectl get nodes' header (its head read only: a dump of
    hundreds of MB is not copied to tell)."""
    return bool(_HEAD.match(text[:4096].lstrip("\n").lstrip(" \t")))


def _asked_keys(command: str) -> dict[str, str]:
    """The label keys a command line's -L flags name, by the title kubectl prints for each."""
    try:
        words = shlex.split(command)
    except ValueError:
        words = command.split()
    keys: list[str] = []
    for i, word in enumerate(words):
        value = None
        if word in _LABEL_FLAGS and i + 1 < len(words):
            value = words[i + 1]
        elif word.startswith("--label-columns="):
            value = word.split("=", 1)[1]
        elif word.startswith("-L") and len(word) > 2:
            value = word[2:]
        if value:
            keys.extend(k for k in value.split(",") if k)
    return {k.split("/")[-1].upper(): k for k in keys}


#: kubectl get nodes' header at the start of a line, for finding a table after other text (at column 0: a YAML
#: block scalar's lines are indented).
_HEAD_LINE = re.compile(r"^NAME {2,}STATUS {2,}ROLES {2,}AGE {2,}VERSION(?: {2,}\S.*)?[ \t]*\r?$", re.M)
#: Texts past this size are dumps, not pastes: no table is looked for inside them.
SPLIT_BYTES = 1 << 20


def split(text: str) -> list[tuple[bool, str]]:
    """``text`` cut into its kubectl get nodes tables (a header and the node rows under it) and the text around
    them, in order, as ``(is a table, text)``; each part keeps its lines' numbers (the lines before it blank). A
    table ends at its first line that is no node's row (trial 168: describe text after a table without a prompt line
    between was dropped with the table's unread lines, and the broken node it showed was missed). One part, the
    text itself, where it holds no table past its start, or is larger than ``SPLIT_BYTES``."""
    starts = is_table(text)
    found = [] if len(text) > SPLIT_BYTES else [m.start() for m in _HEAD_LINE.finditer(text)]
    if not found and not starts or len(text) > SPLIT_BYTES:
        return [(starts, text)]
    lines = text.split("\n")
    heads = [text.count("\n", 0, at) for at in found]
    first = next((i for i, line in enumerate(lines) if line.strip()), 0)
    if starts and first not in heads:
        heads.insert(0, first)  # the text starts with an indented table
    parts: list[tuple[bool, str]] = []
    at = 0
    for head in heads:
        if head < at:
            continue
        if any(line.strip() for line in lines[at:head]):
            parts.append((False, "\n" * at + "\n".join(lines[at:head])))
        header = lines[head].rstrip()
        indent = len(header) - len(header.lstrip())
        columns = [(m.group(), m.start()) for m in _TITLE.finditer(header)]
        end = head + 1
        while end < len(lines) and (not lines[end].strip() or _cells(lines[end].rstrip(), columns, indent) is not None):
            end += 1
        parts.append((True, "\n" * head + "\n".join(lines[head:end])))
        at = end
    if any(line.strip() for line in lines[at:]):
        parts.append((False, "\n" * at + "\n".join(lines[at:])))
    return parts


def parse(text: str, command: str = "") -> tuple[list[tuple[dict[str, Any], int]], list[str]] | None:
    """The Nodes of a kubectl get nodes table (each with the 1-based line of its row) and the notes on how its
    columns were read; None when ``text`` is no such table, or one that shows no label (a bare kubectl get nodes
    holds nothing to judge)."""
    lines = text.split("\n")
    head = next((i for i, line in enumerate(lines) if line.strip()), None)
    if head is None or not _HEAD.match(lines[head].strip()):
        return None
    header = lines[head].rstrip()
    indent = len(header) - len(header.lstrip())
    columns = [(m.group(), m.start()) for m in _TITLE.finditer(header)]
    asked = _asked_keys(command)
    keys: dict[int, str] = {}
    guessed: list[str] = []
    unread: list[str] = []
    for i, (title, _) in enumerate(columns):
        if title in _OWN:
            continue
        if title in asked:
            keys[i] = asked[title]
        elif _NVIDIA_SUFFIX.fullmatch(title.lower()):
            keys[i] = f"nvidia.com/{title.lower()}"
            guessed.append(f"{title} as {keys[i]}")
        else:
            unread.append(title)
    shows_all = "LABELS" in (t for t, _ in columns)
    if not keys and not shows_all:
        return None
    objects: list[tuple[dict[str, Any], int]] = []
    for n, line in enumerate(lines[head + 1 :], head + 2):
        if not line.strip():
            continue
        cells = _cells(line.rstrip(), columns, indent)
        if cells is None:
            continue
        labels: dict[str, str] = {}
        if shows_all:
            labels.update(_label_list(cells[[t for t, _ in columns].index("LABELS")]))
        for i, key in keys.items():
            if cells[i] and cells[i] != "<none>":
                labels.setdefault(key, cells[i])
        node: dict[str, Any] = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": cells[0], "labels": labels}}
        if cells[1].endswith(",SchedulingDisabled"):
            node["spec"] = {"unschedulable": True}
        objects.append((node, n))
    if not objects:
        return None
    notes = []
    if guessed:
        notes.append(
            f"column {', '.join(guessed)} (kubectl names a -L column by the part of its key after the last /; the"
            " command line with its -L flags, pasted above the table, says the key)"
        )
    if unread:
        notes.append(f"column {', '.join(unread)} not read: no command line says its label's key")
    return objects, notes


def _cells(line: str, columns: list[tuple[str, int]], indent: int) -> list[str] | None:
    """A row's cells, cut where the header's titles start (kubectl aligns each column's cells under its title);
    None for a line that is no node's row."""
    starts = [start - indent for _, start in columns]
    body = line[indent:] if line[:indent].strip() == "" else line.lstrip()
    cells = [body[a:b].strip() for a, b in zip(starts, [*starts[1:], len(body) + 1], strict=True)]
    if not NODE_NAME.match(cells[0]) or not _STATUS.fullmatch(cells[1]):
        # a row whose cells do not stand under their titles (a chat that squeezed the spaces): by words, where
        # each cell is one
        words = body.split()
        if len(words) != len(columns) or not NODE_NAME.match(words[0]) or not _STATUS.fullmatch(words[1]):
            return None
        cells = words
    return cells


def _label_list(cell: str) -> dict[str, str]:
    """The labels --show-labels prints in its LABELS cell: ``key=value`` pairs, comma-separated."""
    out: dict[str, str] = {}
    if cell in ("", "<none>"):
        return out
    for pair in cell.split(","):
        key, sep, value = pair.partition("=")
        if sep and key:
            out[key] = value
    return out
