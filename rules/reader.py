"""Read dumps: bytes and files -> Kubernetes objects that remember where they came from.

Accepted: a single object, any ``kind: *List``, multi-document YAML, a JSON array, a directory
(recursive), ``.tar``/``.tar.gz``/``.tgz``/``.zip`` archives of those (recognised by their magic bytes,
not their names), a gzip-compressed single file, ``kubectl describe node(s)`` text, and the NVIDIA GPU
Operator must-gather layout in a folder or archive. A bad document becomes an ``InputError`` and the rest
is still read; only an input that cannot be opened at all raises ``DumpError``.
"""

from __future__ import annotations

import bisect
import bz2
import codecs
import collections
import dataclasses
import functools
import io
import itertools
import json
import lzma
import os
import posixpath
import re
import stat
import struct
import sys
import tarfile
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from . import describe, heap, mustgather, nodetable, pastes, yamlsafe
from .errors import DumpError, DumpTooLarge, InputError, Source, byte_place, not_utf8
from .jsonpath import member as member_selector
from .kinds import KINDS_FOLDED, KNOWN_KINDS
from .limits import limit
from .progress import Progress
from .quantity import is_quantity, written
from .report import counted, first_few
from .yamlsafe import CUT_SHORT, load_documents

#: Files inside a directory or archive that are read as dumps; others are listed as skipped.
DUMP_SUFFIXES = (".yaml", ".yml", ".json")
#: Text files inside a directory or archive that are read when they hold ``kubectl describe node`` output.
TEXT_SUFFIXES = (".txt", ".md", ".describe", ".out")
#: Refuse to decompress more than this many bytes from one input, nested archives included (zip/gzip bombs).
MAX_UNPACKED_BYTES = limit("VERDICT_MAX_UNPACKED")
#: Documents nested deeper than this are refused (JSON here; YAML in ``rules.yamlsafe``): no Kubernetes
#: object comes close, and deeper ones break JSONPath's recursive descent and the JSON writer.
MAX_DEPTH = limit("VERDICT_MAX_NESTING")
#: The first bytes of a gzip stream (RFC 1952).
GZIP_MAGIC = b"\x1f\x8b"
#: The first bytes of a zip archive: a local file header, or the end record of an empty archive.
ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")
#: The first bytes of an xz stream (xz file format 1.0.4, 2.1.1.1) and of a bzip2 stream ("BZh", a block size digit and
#: the first block's magic, or the end-of-stream magic of an empty one): a .tar.xz or .tar.bz2 must-gather (trial 154).
XZ_MAGIC = b"\xfd7zXZ\x00"
_BZIP2 = re.compile(rb"BZh[1-9](?:1AY&SY|\x17rE8P\x90)")
#: The first bytes of a Zstandard frame (RFC 8878), which the standard library reads from Python 3.14 on only.
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
#: Errors an archive library raises on damaged, encrypted or unsupported members.
_ARCHIVE_ERRORS = (
    zipfile.BadZipFile,
    tarfile.TarError,
    zlib.error,
    EOFError,
    OSError,
    RuntimeError,
    NotImplementedError,
    ValueError,
)


#: A gzip'd tar is read as a stream, passing over the members that are not read (logs, bug reports): the gzip'd
#: tars of one input may unpack to this many times its budget in all (``_read_tar_stream``; the service's
#: requests, to their budget).
STREAM_FACTOR = 16
#: Archives (gzip, tar, zip) nested deeper than this in one input are refused (a .tar.gz is two levels).
MAX_ARCHIVE_DEPTH = limit("VERDICT_MAX_ARCHIVE_DEPTH")
#: Members one tar or zip archive may hold: 400,000 empty members of a 1.9 MB .tar.gz cost a minute to list.
MAX_ARCHIVE_MEMBERS = limit("VERDICT_MAX_ARCHIVE_MEMBERS")


class Budget:
    """Bytes an input may still unpack to, and how deep in nested archives its reading is, shared by every
    archive level of one input."""

    __slots__ = ("depth", "left", "limit", "stream_left", "streamed")

    def __init__(self, limit: int = MAX_UNPACKED_BYTES, streamed: int | None = None) -> None:
        self.limit = limit
        self.left = limit
        self.depth = 0
        #: what the gzip'd tars of the input may unpack to in all, the members passed over included
        self.streamed = limit * STREAM_FACTOR if streamed is None else streamed
        self.stream_left = self.streamed

    @contextmanager
    def level(self, name: str) -> Iterator[None]:
        """One archive level deeper while the block runs. Raises ``DumpError`` past ``MAX_ARCHIVE_DEPTH``."""
        if self.depth >= MAX_ARCHIVE_DEPTH:
            raise DumpError(name, f"archives nested more than {MAX_ARCHIVE_DEPTH} deep (gzip, tar and zip levels counted)")
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1

    def charge(self, size: int, name: str) -> None:
        """Spend ``size`` bytes. Raises ``DumpError`` naming ``name`` when the input would exceed the limit."""
        if size > self.left:
            raise DumpTooLarge(name, f"unpacks to more than {self.limit:,} bytes (archives nested included)")
        self.left -= size

    def stream(self, size: int, name: str) -> None:
        """Spend ``size`` bytes a gzip'd tar unpacked to as a stream, members read or passed over. Raises
        ``DumpError`` naming ``name`` past ``streamed`` for the whole input."""
        if size > self.stream_left:
            what = "" if self.streamed == self.limit else " in all, members not read included"
            raise DumpTooLarge(name, f"unpacks to more than {self.streamed:,} bytes{what} (archives nested included)")
        self.stream_left -= size


#: How much of a text is read to recognise ``kubectl describe`` output (its first node fits easily).
DESCRIBE_SNIFF_BYTES = 256 * 1024

#: What the reader tells while it reads: each file it opens, how many objects each held.
ProgressHook = Progress


@dataclass(frozen=True, slots=True, eq=False)
class KObject:
    """One Kubernetes object (``obj``, the parsed mapping) and where it came from (``source``); its kind,
    apiVersion, name and namespace are read once (every rule that matches it asks for them)."""

    obj: dict[str, Any]
    source: Source
    kind: str = field(init=False)
    api_version: str = field(init=False)
    name: str = field(init=False)
    namespace: str = field(init=False)

    def __post_init__(self) -> None:
        obj = self.obj
        meta = obj.get("metadata")
        if not isinstance(meta, dict):
            meta = {}
        set_ = object.__setattr__
        set_(self, "kind", str(obj.get("kind", "")))
        set_(self, "api_version", str(obj.get("apiVersion", "")))
        set_(self, "name", str(meta.get("name", "")))
        set_(self, "namespace", str(meta.get("namespace", "") or ""))

    @property
    def metadata(self) -> dict[str, Any]:
        meta = self.obj.get("metadata")
        return meta if isinstance(meta, dict) else {}

    @property
    def labels(self) -> dict[str, str]:
        labels = self.metadata.get("labels")
        return labels if isinstance(labels, dict) else {}


@dataclass(slots=True)
class Dump:
    """What was read: objects in input order, input errors, files read and skipped, and notes
    (facts about the input worth telling, e.g. a must-gather's ``cluster_policy.missing``)."""

    objects: list[KObject] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)
    files_read: list[str] = field(default_factory=list)
    files_skipped: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: the Nodes read without status.allocatable, given their capacity as the API server gives it (``_add_object``)
    allocatable_defaulted: list[str] = field(default_factory=list)
    #: the values of labels, annotations and node selectors written unquoted, read as their text (``_unquoted_scalars``)
    unquoted: list[str] = field(default_factory=list)
    #: the Nodes whose labels describe text shows only in part (a Labels section grep cut): a label a kubectl get nodes
    #: table shows and they lack is not taken as removed (``_add_table_nodes``)
    labels_in_part: set[str] = field(default_factory=set)
    #: the list items read that are no Kubernetes object: each its own input error up to ``MAX_ITEM_ERRORS``, the rest
    #: counted in one (``_not_an_object``)
    not_objects: int = 0
    items_aside: _ItemsAside | None = None

    def extend(self, other: Dump) -> None:
        """Append everything of ``other`` to this dump."""
        self.objects.extend(other.objects)
        self.errors.extend(other.errors)
        self.files_read.extend(other.files_read)
        self.files_skipped.extend(other.files_skipped)
        self.notes.extend(other.notes)
        self.allocatable_defaulted.extend(other.allocatable_defaulted)
        self.unquoted.extend(other.unquoted)
        self.labels_in_part |= other.labels_in_part

    def unquoted_note(self) -> list[str]:
        """The note that some values of labels, annotations or node selectors are booleans or numbers (one for the
        dump, naming a few)."""
        if not self.unquoted:
            return []
        what = "a value" if len(self.unquoted) == 1 else f"{len(self.unquoted):,} values"
        return [
            f"{what} of labels, annotations or node selectors written unquoted, a boolean or a number where Kubernetes"
            f' takes a string ({first_few(self.unquoted, 3)}): kubectl apply refuses such an object ("cannot unmarshal'
            ' bool into Go struct field ... of type string", a number likewise), so quote them in the manifest; each is'
            " judged as if it were quoted"
        ]

    def defaulted_note(self) -> list[str]:
        """The note that some Nodes were read without status.allocatable (one for the dump, naming a few)."""
        names = list(dict.fromkeys(self.allocatable_defaulted))  # a Node read twice is one (trial 102)
        if not names:
            return []
        nodes = "a Node" if len(names) == 1 else f"{len(names):,} Nodes"
        each = "it is" if len(names) == 1 else "each is"
        return [
            f"{nodes} without status.allocatable ({first_few(names, 5)}): {each} taken to allocate its status.capacity,"
            " as the API server defaults a Node it is given (SetDefaults_NodeStatus), so a cluster's Nodes always"
            " carry both; a Node written by hand, or an export that dropped it?"
        ]


# --------------------------------------------------------------------------------------------- text


def _looks_like_json(text: str) -> bool:
    stripped = text.lstrip()
    return stripped[:1] in ("{", "[")


_JSON_ITEM_START = re.compile(r"^(\s*)\{\s*$", re.M)
_JSON_ITEMS = re.compile(rb'"items"\s*:\s*\[')
#: JSON's whitespace: after the parser accepted the text, nothing else can stand between two tokens.
_JSON_SPACE = b" \t\r\n"
_LEADING_SPACE = re.compile(rb"\s*")


def _json_item_lines(text: bytes, count: int, top_is_array: bool) -> list[int]:
    """Start lines of the items of a pretty-printed JSON List or array (kubectl prints 4-space indented
    JSON, one ``{`` alone on a line per item), from the UTF-8 text the parser accepted. Returns [] when the
    layout does not allow a certain answer, so callers fall back to the document's line."""
    if count == 0:
        return []
    found = _json_item_starts(text, top_is_array, count)
    if found is None:
        return _json_item_lines_by_regex(text.decode("utf-8"), count, top_is_array)
    starts = found[0]
    if len(starts) != count:
        return _json_item_a_line(text, count, top_is_array)
    return _lines_at(text, starts)


def _json_item_a_line(text: bytes, count: int, top_is_array: bool) -> list[int]:
    """The lines of the items of a JSON List or array written one item a line (``jq -c`` items between the List's
    own lines): every line after the items' ``[`` that starts, at the first item's indent, with ``{``, exactly
    ``count`` of them; [] otherwise (trial 137: each was placed at line 1)."""
    found = _first_item_indent(text, top_is_array)
    if found is None:
        return []
    nl, indent = found
    if text[nl + 1 + len(indent) : nl + 2 + len(indent)] != b"{":
        return []
    starts = [m.start() + 1 for m in re.compile(re.escape(b"\n" + indent + b"{")).finditer(text, nl)]
    return _lines_at(text, starts) if len(starts) == count else []


def _first_item_indent(text: bytes, top_is_array: bool) -> tuple[int, bytes] | None:
    """The end of the line of a JSON List's (or array's) ``[``, and the indent of the line after it (the first item's);
    None where there is no such line."""
    anchor = _items_anchor(text, top_is_array)
    nl = text.find(b"\n", anchor) if anchor >= 0 else -1
    if nl < 0:
        return None
    first = _LEADING_SPACE.match(text, nl + 1)
    indent = text[nl + 1 : first.end() if first else nl + 1]
    return None if b"\n" in indent else (nl, indent)


def _json_item_starts(text: bytes, top_is_array: bool, count: int | None = None) -> tuple[list[int], int] | None:
    """Byte offsets of the lines that start the items of a pretty-printed JSON List or array, and the
    offset of the items' ``[``: ([], -1) when the layout does not allow a certain answer (or more than
    ``count`` starts are found), None when blank lines stand before the first item (the careful way, by
    lines, must be taken)."""
    anchor = _items_anchor(text, top_is_array)
    if anchor < 0:
        return [], -1
    opening = anchor if top_is_array else anchor - 1
    nl = text.find(b"\n", anchor)
    if nl < 0:
        return [], -1
    brace = nl + 1
    while brace < len(text) and text[brace] in _JSON_SPACE:
        brace += 1
    indent = text[nl + 1 : brace]
    if b"\n" in indent:
        return None
    # An item starts where a line holds only the indent, "{" and whitespace up to its end (the layout the
    # first item has): a literal search, then a look at each hit's line end; the multi-line regex with
    # "\s*$" took seconds over a 300 MB dump.
    starts: list[int] = []
    for m in re.compile(re.escape(b"\n" + indent + b"{")).finditer(text, nl):
        after = m.end()
        rest = text[after : after + 2]
        if rest[:1] == b"\n" or rest == b"\r\n" or _blank_to_line_end(text, after):
            starts.append(m.start() + 1)
            if count is not None and len(starts) > count:
                return [], -1
    if not starts or starts[0] != nl + 1 or text[brace : brace + 1] != b"{":
        return [], -1
    return starts, opening


def _items_anchor(text: bytes, top_is_array: bool) -> int:
    """The offset just past the ``[`` of a JSON List's items (the ``[`` itself of a top-level array); -1 when
    there is none."""
    if top_is_array:
        return text.find(b"[")
    match = _JSON_ITEMS.search(text)
    return match.end() if match else -1


def _json_every_item_line(text: bytes, top_is_array: bool, total: int) -> list[int]:
    """The start line of each of the ``total`` items of a pretty-printed JSON List or array whatever they are
    (objects, strings, null): the lines at the first item's indent that start a value (not a closing bracket);
    [] when they are not exactly ``total`` (a layout that does not allow a certain answer)."""
    found = _first_item_indent(text, top_is_array)
    if found is None or not found[1]:
        return []
    nl, indent = found
    starts = [m.start() + 1 for m in re.compile(re.escape(b"\n" + indent) + rb"[^\s}\]]").finditer(text, nl)]
    if len(starts) != total or starts[0] != nl + 1:
        return []
    return _lines_at(text, starts)


def _blank_to_line_end(text: bytes, at: int) -> bool:
    """True when only whitespace, with a line end among it, follows ``at`` (or the text ends there)."""
    end = len(text)
    while at < end:
        ch = text[at]
        if ch == 10:
            return True
        if ch not in _JSON_SPACE:
            return False
        at += 1
    return True


def _lines_at(text: bytes | str, starts: list[int]) -> list[int]:
    """1-based lines of the offsets ``starts`` (ascending) in ``text``."""
    nl: Any = b"\n" if isinstance(text, bytes) else "\n"
    lines: list[int] = []
    line = text.count(nl, 0, starts[0]) + 1
    prev = starts[0]
    for pos in starts:
        line += text.count(nl, prev, pos)
        prev = pos
        lines.append(line)
    return lines


def _json_item_lines_by_regex(text: str, count: int, top_is_array: bool) -> list[int]:
    if top_is_array:
        anchor = text.find("[")
    else:
        match = re.search(r'"items"\s*:\s*\[', text)
        if not match:
            return []
        anchor = match.end()
    nl = text.find("\n", anchor)
    first = _JSON_ITEM_START.match(text, nl + 1)
    if not first:
        return []
    pattern = re.compile(r"^" + re.escape(first.group(1)) + r"\{\s*$", re.M)
    starts = [m.start() for m in pattern.finditer(text, nl + 1)]
    if len(starts) != count:
        return []
    return _lines_at(text, starts)


def _too_deep(data: Any, limit: int | None = None) -> bool:
    """True when ``data`` (parsed JSON: plain dicts and lists) nests containers deeper than ``limit`` (default
    ``MAX_DEPTH``; ``data`` itself is level 1). Level by level, each level's containers gathered by one
    comprehension: faster than a recursive walk (which was most of the time of reading a dump of 12,000
    objects), and it needs no stack however high the limit is set."""
    level = [data] if type(data) is dict or type(data) is list else []
    for _ in range(MAX_DEPTH if limit is None else limit):
        if not level:
            return False
        level = [v for c in level for v in (c.values() if type(c) is dict else c) if type(v) is dict or type(v) is list]
    return bool(level)


def _deep_path(data: Any) -> str:
    """The JSONPath of the first container ``MAX_DEPTH`` levels below ``data`` (so one level too deep), level by
    level as ``_too_deep`` walks; "" when there is none (trial 79: a too-deep document's error said no place)."""
    level: list[tuple[Any, str]] = [(data, "$")] if type(data) is dict or type(data) is list else []
    for _ in range(MAX_DEPTH):
        level = [
            (v, f"{path}{_step(k)}")
            for c, path in level
            for k, v in (c.items() if type(c) is dict else enumerate(c))
            if type(v) is dict or type(v) is list
        ]
    return level[0][1] if level else ""


def _step(key: Any) -> str:
    """One step of a path: ``[3]``, ``.data``, or ``['nvidia.com/gpu']`` for a name that is no identifier."""
    if type(key) is int:
        return f"[{key}]"
    return f".{key}" if str(key).isidentifier() else f"[{str(key)!r}]"


#: A JSON string (skipped whole) or a bracket, for finding where a text nests too deep.
_JSON_NESTING = re.compile(rb'"(?:[^"\\]|\\.)*"|[\[\]{}]')
#: How much of a text is searched for the place where it nests too deep (past it, none is said).
DEEP_PLACE_SCAN = 1 << 24


def _deep_place(text: bytes | str) -> tuple[int, int] | None:
    """1-based (line, column) of the bracket that opens level ``MAX_DEPTH`` + 1 of a JSON text, found by counting
    brackets outside strings in its first ``DEEP_PLACE_SCAN`` bytes; None when it is not there."""
    data = text.encode() if isinstance(text, str) else text
    depth = 0
    for m in _JSON_NESTING.finditer(data, 0, DEEP_PLACE_SCAN):
        token = m.group()
        if token in (b"[", b"{"):
            depth += 1
            if depth > MAX_DEPTH:
                line, column = byte_place(data, m.start())
                if isinstance(text, str):  # orjson and messages count characters, not bytes
                    column = len(data[m.start() - column + 1 : m.start()].decode(errors="replace")) + 1
                return line, column
        elif token in (b"]", b"}"):
            depth -= 1
    return None


def _deep_where(place: tuple[int, int] | None) -> str:
    """``_deep_place`` as the end of a reason (": line L, column C opens level 101"), "" when not found."""
    return f": line {place[0]}, column {place[1]} opens level {MAX_DEPTH + 1}" if place else ""


class _TooDeep(dict):  # type: ignore[type-arg]
    """In place of a List item that nests too deep: refused on its own (``_objects_of``), keeping the other
    items' places and lines (it counts as an object item, as its text starts like one)."""


def _refuse_deep_items(data: Any) -> bool:
    """Put ``_TooDeep`` in place of each item of a too-deep List (or JSON array) that nests too deep, when
    only items do: True then, so that the others are judged; False when the document is too deep elsewhere."""
    if type(data) is list:
        items, below = data, 1
    elif type(data) is dict and type(data.get("items")) is list:
        items, below = data["items"], 2
    else:
        return False
    deep = [i for i, item in enumerate(items) if _too_deep(item, MAX_DEPTH - below)]
    for i in deep:
        items[i] = _TooDeep()
    return bool(deep) and not _too_deep(data)


def _json_objects_of(
    data: Any, source: Source, lines: list[int], dump: Dump, checked: bool = False, text: str | bytes | None = None
) -> None:
    """``_objects_of`` for one parsed JSON value (whole: JSON cut short does not parse), once its nesting is
    checked (unless ``checked`` already): too deep, it is refused, or only its too-deep items are
    (``_refuse_deep_items``); with the value's ``text``, the refusal says the line and column that go too deep."""
    if not checked and _too_deep(data) and not _refuse_deep_items(data):
        place = _deep_place(text) if text is not None else None
        if place is not None:  # trial 81: a pretty-printed document too deep at line 106 was placed at line 1
            source = dataclasses.replace(source, line=place[0])
        dump.errors.append(InputError(source, f"nesting deeper than {MAX_DEPTH} levels{_deep_where(place)}", _deep_path(data)))
        return
    _objects_of(data, source, lines, dump, whole=True)


#: Said when nothing in an input was a Kubernetes object: a file that is not a dump at all (a README, a log, a
#: labels-only JSON).
WHAT_IS_READ = (
    "verdict reads what kubectl get -o yaml|json prints (objects or a List), kubectl describe node text,"
    " and tar/zip/gzip/xz/bzip2 archives of them such as a must-gather"
)
#: In the reason of a document or List item that parsed but is no Kubernetes object.
NOT_AN_OBJECT = "not a Kubernetes object"
#: How the input error of a table kubectl get printed starts (``_document_problem``).
_GET_TABLE = f"{NOT_AN_OBJECT}: the table kubectl get prints"

#: What a value that is not an object is, in JSON's words.
_JSON_TYPES = {str: "string", int: "number", float: "number", bool: "boolean", type(None): "null", list: "list", dict: "mapping"}
#: A plain value (no list or mapping) as a list item that is no object says what it is.
_PLAIN_VALUES = {t: f"a {_JSON_TYPES[t]}" for t in (str, int, float, bool, type(None))}


_PROMPT = re.compile(r"^[$#>%]\s*kubectl\b.*?\s(?=(?:NAME|NAMESPACE)\s{2})")
_TABLE_COLUMN = re.compile(r"[A-Z][A-Z0-9()./-]*(?: [A-Z][A-Z0-9()./-]*)*")


def _events_table(columns: list[str], text: str = "", asked: str = "") -> str:
    """Why the table ``kubectl get events`` prints is no dump (trial 198: set aside as "1 part of text that is no
    dump", with no word of what or where); with the pod of its last FailedScheduling row named, and that row's
    message quoted, where ``text`` (the table) holds one of a pod no later Scheduled row follows (trial 202: NAME and
    NAMESPACE were left for the reader). The namespace is the row's, else that of ``asked``'s -n (the prompt line the
    table was printed by)."""
    flag = _NAMESPACE_FLAG.search(asked.split("|", 1)[0])  # (not grep -n's, after a pipe)
    pod, namespace, said = "NAME", flag.group(1) if flag else "NAMESPACE", ""
    lines = text.strip("\n").split("\n")
    header = next((line for line in lines if "LAST SEEN" in line), "")
    starts = {m.group(): m.start() for m in _EVENT_COLUMN.finditer(header)}
    # (trial 204: -o wide prints FIRST SEEN, COUNT and NAME after MESSAGE, and they were quoted as the message's)
    after = min((at for at in starts.values() if at > starts.get("MESSAGE", len(header))), default=None)

    def cell(row: str, title: str) -> str:
        return row[starts[title] :].split("  ", 1)[0].strip()

    if {"REASON", "OBJECT", "MESSAGE"} <= starts.keys():
        # each pod's last FailedScheduling message, the pod last failed last; a pod scheduled after it (a Scheduled row
        # below: kubectl get events lists the oldest first) is pending no more (trial 204, as _pending_failure)
        failed: dict[tuple[str, str], str] = {}
        for row in lines[lines.index(header) + 1 :]:
            if not cell(row, "OBJECT").startswith("pod/"):
                continue
            key = (cell(row, "NAMESPACE") if "NAMESPACE" in starts else namespace, cell(row, "OBJECT").removeprefix("pod/"))
            reason = cell(row, "REASON")
            if reason in ("FailedScheduling", "Scheduled"):
                failed.pop(key, None)
            if reason == "FailedScheduling":
                failed[key] = row[starts["MESSAGE"] : after].strip()
        if failed:
            (namespace, pod), message = list(failed.items())[-1]
            said = f'; its FailedScheduling event: "{message}"'
    return (
        f"{NOT_AN_OBJECT}: the table kubectl get events prints (columns {', '.join(columns)}), which holds events, not"
        " objects; a pending pod's own status.conditions hold the scheduler's word: print the pod with kubectl get pod"
        f" {pod} -n {namespace} -o yaml (or -o json){said}"
    )


#: A column title of the events table's header.
_EVENT_COLUMN = re.compile(r"LAST SEEN|FIRST SEEN|[A-Z]+")
#: A command line's namespace flag (``-n ml``, ``-nml``, ``--namespace=ml``); group 1: the namespace.
_NAMESPACE_FLAG = re.compile(r"[ \t](?:-n[ \t=]*|--namespace(?:=|[ \t]+))([a-z0-9](?:[-a-z0-9]*[a-z0-9])?)(?=[ \t|;]|$)")


#: The header of the table kubectl get events prints (its rows' messages hold ': ', which YAML refuses), after the
#: prompt line that printed it where a paste's part keeps it (``_read_blocks``); group 1: the prompt line.
_EVENTS_HEADER = re.compile(r"\A\s*(\$ [^\n]*\n\s*)?((?:NAMESPACE {2,})?LAST SEEN {2,}TYPE {2,}REASON\b[^\n]*)")


def _table_columns(data: Any) -> list[str]:
    """The column names of kubectl get's table output (``NAME  STATUS  ROLES  AGE  VERSION``, with -A
    ``NAMESPACE  NAME ...``) when ``data``, a document read as one YAML string, starts with such a header."""
    if not isinstance(data, str):
        return []
    # YAML folds the lines of a plain scalar into one: the header ends where the first row begins (lower case);
    # a pasted prompt line before it ("$ kubectl get nodes") is folded in front of it
    words = re.split(r"\s{2,}", _PROMPT.sub("", data.strip(), count=1))
    if words[0] not in ("NAME", "NAMESPACE", "LAST SEEN"):  # (kubectl get events: trial 198)
        return []
    columns = []
    for word in words:
        if not _TABLE_COLUMN.fullmatch(word):
            # the last column and the first row's first cell, joined by the folding
            tokens = word.split(" ")
            while tokens and not _TABLE_COLUMN.fullmatch(" ".join(tokens)):
                tokens.pop()
            if tokens:
                columns.append(" ".join(tokens))
            break
        columns.append(word)
    return columns if len(columns) >= 2 else []


#: A label key with a prefix (``nvidia.com/gpu.present``, ``kubernetes.io/hostname``).
_PREFIXED_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")


def _looks_like_labels(data: dict[Any, Any]) -> bool:
    """True for a mapping of strings to strings with a prefixed label key among its keys: labels (or
    annotations) printed alone, not an object."""
    return (
        bool(data)
        and all(type(k) is str and type(v) is str for k, v in data.items())
        and any(_PREFIXED_LABEL.match(k) for k in data)
    )


#: A resource name of a Node's status.capacity or status.allocatable (``cpu``, ``nvidia.com/gpu``,
#: ``nvidia.com/GM107M_GeForce_GTX_860M``).
_RESOURCE_NAME = re.compile(r"^(?:[a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$")
#: The resources the kubelet puts in every Node's capacity and allocatable.
_NODE_RESOURCES = frozenset({"cpu", "memory", "pods", "ephemeral-storage"})


def _looks_like_resources(data: dict[Any, Any]) -> bool:
    """True for a mapping of resource names to quantities, ``cpu``, ``memory`` or ``pods`` among them: a Node's
    status.allocatable or status.capacity printed alone (trial 145: ``jq '.status.allocatable'`` was said to be "a map of
    labels"). Labels of numbers alone (``nvidia.com/gpu.count: "8"``) name no such resource."""
    return (
        bool(data)
        and all(type(k) is str and _RESOURCE_NAME.match(k) and type(v) in (str, int, float) for k, v in data.items())
        and any(k in _NODE_RESOURCES for k in data)
        and all(is_quantity(v) for v in data.values())
    )


def add_objects(data: Any, source: Source, dump: Dump) -> None:
    """Add the objects ``data`` holds (an object, a List, a list of them), already parsed, to ``dump`` as a document's
    are read: the API server's defaults, and the input errors of one that is malformed (a pack test's inline objects)."""
    _objects_of(data, source, [], dump)


def _objects_of(data: Any, source: Source, lines: list[int], dump: Dump, whole: bool = False) -> None:
    """Add the Kubernetes objects held by one parsed document to ``dump``; ``whole`` when the document cannot
    have been cut short and still parse (JSON: its closing brackets are at the end)."""
    if data is None:
        return
    typed: dict[str, Any] = {}
    if isinstance(data, list):
        items, prefix = data, "$"
    elif isinstance(data, dict) and str(data.get("kind", "")).endswith("List") and "items" in data:
        items, prefix = data.get("items") or [], "$.items"
        if not isinstance(items, list):
            dump.errors.append(InputError(source, "'items' of a List is not a list", "$.items"))
            return
        typed = _typed(data)
        stray = sorted(str(k) for k in data if k not in _LIST_KEYS)
        if stray and items:
            # trial 97: a line of the last item dedented to the margin became a key of the List (no error, and the
            # node it belonged to lost its allocatable GPU)
            last = items[-1] if isinstance(items[-1], dict) else {}
            what = (
                f"{last.get('kind')} {last.get('metadata', {}).get('name')}"
                if isinstance(last.get("metadata"), dict)
                else "its last item"
            )
            dump.errors.append(
                InputError(
                    source,
                    f"the List has {', '.join(map(repr, stray[:3]))} beside apiVersion, items, kind and metadata: a line"
                    f" of its last item ({what}) dedented to the margin? that item is judged without it",
                    "$",
                    kind=str(last.get("kind") or ""),
                )
            )
    elif isinstance(data, dict) and "kind" not in data and _kubernetes_items(data.get("items")):
        items, prefix = data["items"], "$.items"
        if not whole:
            # kubectl -o yaml writes a List's 'items' before its 'kind': a YAML List without 'kind' is likely one
            # cut short (head -c, a paste limit), and YAML cut at a line still parses. Its complete items are
            # judged; the last one may be cut too, so it is not. (A JSON one parsed whole: jq '{items: [...]}'.)
            items = items[:-1]
            dump.errors.append(
                InputError(
                    source,
                    f"a List without 'kind' (kubectl writes it after the items): the dump looks cut short; the"
                    f" {len(items)} item(s) before the last are read, the last may be incomplete and is not",
                    "$",
                )
            )
    elif isinstance(data, dict):
        if not data.get("kind") or not isinstance(data.get("kind"), str):
            resources = "kind" not in data and _looks_like_resources(data)
            if "kind" in data:
                why = _no_kind(data)
            elif resources and "pods" in data:
                why = (
                    "a node's resources map, its status.allocatable or status.capacity (what kubectl get node NAME -o json"
                    " | jq '.status.allocatable' prints: resource names and their quantities), which holds no object;"
                    " print the Node with kubectl get node NAME -o yaml (or -o json)"
                )
            # (trial 148: a container's resources.limits, which has no pods, was called a node's)
            elif resources:
                why = (
                    "a map of resource names to quantities (a container's resources.limits or requests, or a node's"
                    " allocatable), which holds no object; print the object with kubectl get ... -o yaml (or -o json)"
                )
            elif _looks_like_labels(data):
                why = (
                    "a map of labels (what kubectl get node NAME -o jsonpath='{.metadata.labels}' prints), which holds no"
                    " object; print the object with kubectl get ... -o yaml (or -o json)"
                )
            else:
                why = "no 'kind'"
            if source.item is not None:  # an item of a List read one at a time
                _not_an_object(dump, source, "$", f"{NOT_AN_OBJECT}: {why}", why)
                _say_items_aside(dump)
                return
            dump.errors.append(InputError(source, f"{NOT_AN_OBJECT}: {why}", "$"))
            return
        _add_object(data, source, "$", dump)
        return
    else:
        columns = _table_columns(data)
        if "LAST SEEN" in columns[:2]:
            reason = _events_table(columns)
        elif columns:
            reason = (
                f"{NOT_AN_OBJECT}: the table kubectl get prints (columns {', '.join(columns)}), which holds no object;"
                " print the objects with kubectl get ... -o yaml (or -o json)"
            )
        elif isinstance(data, str):
            # trial 100: a chat message of prose was "not a Kubernetes object: a str"
            said = data if len(data) <= 60 else data[:59].rstrip() + "…"
            reason = (
                f"{NOT_AN_OBJECT}: plain text ({said!r}), no YAML or JSON object and no kubectl describe node text;"
                " paste what kubectl get ... -o yaml (or -o json) or kubectl describe node prints (in a chat message, in"
                " a code block)"
            )
        else:
            what = f"a {_JSON_TYPES.get(type(data), type(data).__name__)}"
            reason = f"{NOT_AN_OBJECT}: {what}"
            if source.item is not None:  # an item of a List read one at a time (trial 206: a cut [1,1,...])
                _not_an_object(dump, source, "$", reason, what)
                _say_items_aside(dump)
                return
        dump.errors.append(InputError(source, reason, "$"))
        return
    for i, item in enumerate(items):
        if dump.items_aside is not None and type(item) in _PLAIN_VALUES:
            # past the dump's first such items, one more is only counted (trial 206: 3,000,000 of them took 5 s so)
            dump.items_aside.count += 1
            dump.items_aside.what[_PLAIN_VALUES[type(item)]] = None
            continue
        line = (lines[i] if i < len(lines) else 0) or source.line
        where = Source(source.file, source.document, line, i)
        if type(item) is _TooDeep:
            dump.errors.append(InputError(where, f"nesting deeper than {MAX_DEPTH} levels", f"{prefix}[{i}]"))
            continue
        _list_item(item, typed, where, f"{prefix}[{i}]", dump)
    _say_items_aside(dump)


#: The keys of a Node and of a Pod (the API server writes these five).
_OBJECT_KEYS = frozenset({"apiVersion", "kind", "metadata", "spec", "status"})
#: The keys of a List (kubectl writes these four).
_LIST_KEYS = frozenset({"apiVersion", "items", "kind", "metadata"})


def _typed(data: dict[str, Any]) -> dict[str, Any]:
    """The kind and apiVersion of the items of a typed List: the API server's own NodeList (kubectl get --raw
    /api/v1/nodes, curl, a client library) leaves them out of its items, as they are the List's, and kubectl decodes
    them so; {} for a plain List."""
    kind, version = data.get("kind"), data.get("apiVersion")
    if not isinstance(kind, str) or kind == "List" or not kind.endswith("List") or not isinstance(version, str):
        return {}
    return {"apiVersion": version, "kind": kind[: -len("List")]}


def _with_kind(typed: dict[str, Any], item: Any) -> Any:
    """``item`` with the kind and apiVersion of its typed List (``_typed``) where it carries no kind."""
    return {**typed, **item} if typed and isinstance(item, dict) and "kind" not in item else item


def _no_kind(data: dict[str, Any]) -> str:
    """Why a mapping's ``kind`` makes it no object: missing, empty, or not a string (trial 191: kind: [Node] was "no
    'kind'", beside the kind it shows)."""
    given = data.get("kind")
    if "kind" not in data or given is None:
        return "no 'kind'"
    if given == "":
        return "its 'kind' is empty"
    return f"its 'kind' is a {_JSON_TYPES.get(type(given), type(given).__name__)}, not a string (kind: Node)"


#: The list items of a dump that are no Kubernetes object said each in an input error of its own, at most; the rest are
#: counted in one (trial 206: a 6 MB `[a,a,...]` gave 3,000,000 input errors, a 397 MB problem document).
MAX_ITEM_ERRORS = limit("VERDICT_MAX_ITEM_ERRORS")


@dataclass(slots=True)
class _ItemsAside:
    """The list items of a dump that are no Kubernetes object past its first ``MAX_ITEM_ERRORS``: where the first of
    them is, what they are (each kind once), how many; the one input error that says them once written, where it stands
    in the dump's errors and how many it says."""

    where: Source
    path: str
    what: dict[str, None] = field(default_factory=dict)
    count: int = 0
    said: InputError | None = None
    at: int = -1
    told: int = 0


def _not_an_object(dump: Dump, where: Source, path: str, reason: str, what: str) -> None:
    """Add the input error of a list item that is no Kubernetes object (``reason``; ``what`` it is: "a string",
    "no 'kind'"), or, past the dump's first ``MAX_ITEM_ERRORS`` of them, count it (``_say_items_aside`` writes the
    error that says them)."""
    if dump.not_objects < MAX_ITEM_ERRORS:
        dump.not_objects += 1
        dump.errors.append(InputError(where, reason, path))
        return
    aside = dump.items_aside
    if aside is None:
        aside = dump.items_aside = _ItemsAside(where, path)
    aside.count += 1
    aside.what[what] = None


def _say_items_aside(dump: Dump) -> None:
    """Write (or bring up to date) the one input error that says the list items of ``dump`` counted past its first
    ``MAX_ITEM_ERRORS`` that are no Kubernetes object: at the first of them, with how many and what they are."""
    aside = dump.items_aside
    if aside is None or aside.told == aside.count:
        return
    kinds = list(aside.what)
    if aside.count == 1:
        reason = f"list item is {NOT_AN_OBJECT}: {kinds[0]}"
    else:
        whats = ", ".join(kinds[:3]) + (", ..." if len(kinds) > 3 else "")
        reason = (
            f"list item is {NOT_AN_OBJECT} ({whats}), and so are the {aside.count - 1:,} list items after it that this"
            f" one input error counts (the dump's first {MAX_ITEM_ERRORS:,} such items have one each)"
        )
    said = InputError(aside.where, reason, aside.path)
    errors = dump.errors
    if aside.said is not None and 0 <= aside.at < len(errors) and errors[aside.at] is aside.said:
        errors[aside.at] = said
    else:
        aside.at = len(errors)
        errors.append(said)
    aside.said, aside.told = said, aside.count


def _list_item(item: Any, typed: dict[str, Any], where: Source, path: str, dump: Dump) -> None:
    """Add one item of a List (at JSONPath ``path``; ``typed``: its List's ``_typed``) to ``dump``, or the input
    error of one that is no object; a List itself, its items, placed at it (trial 95: a List of Lists, jq -s .
    nodes.json pods.json, was read as two objects of kind List, and nothing it held was judged, exit 0)."""
    item = _with_kind(typed, item)
    if not isinstance(item, dict):
        what = f"a {_JSON_TYPES.get(type(item), type(item).__name__)}"
        _not_an_object(dump, where, path, f"list item is {NOT_AN_OBJECT}: {what}", what)
        return
    if not isinstance(item.get("kind"), str) or not item.get("kind"):
        what = _no_kind(item)
        _not_an_object(dump, where, path, f"list item is {NOT_AN_OBJECT}: {what}", what)
        return
    inner = item.get("items")
    if not (item["kind"].endswith("List") and isinstance(inner, list)):
        _add_object(item, where, path, dump)
        return
    nested = _typed(item)
    for j, each in enumerate(inner):
        _list_item(each, nested, where, f"{path}.items[{j}]", dump)


def _kubernetes_items(items: Any) -> bool:
    """True when ``items`` is a list holding at least one Kubernetes object (a mapping with a kind)."""
    return isinstance(items, list) and any(type(i) is dict and isinstance(i.get("kind"), str) and i["kind"] for i in items)


def _add_object(obj: dict[str, Any], where: Source, path: str, dump: Dump) -> None:
    """Add ``obj`` (a mapping with a kind, at JSONPath ``path`` of its document) to ``dump``, or the input error
    that keeps it out (``_malformed_metadata``); a Node quantity that does not parse is an input error beside it."""
    version = obj.get("apiVersion")
    if isinstance(version, str) and version.startswith("verdict/"):
        # verdict's own documents (a report written into the folder audited, a policy pack or its tests beside the
        # manifests: trial 61) are not cluster objects
        dump.notes.append(f"{where}: verdict's own {obj['kind']} ({version}), not a cluster object: not judged")
        return
    bad = _malformed_metadata(obj)
    if bad is not None:
        dump.errors.append(InputError(where, bad[0], path + bad[1]))
        return
    kind = obj["kind"]
    if kind not in KNOWN_KINDS and (fixed := KINDS_FOLDED.get(kind.casefold())) is not None:
        # trial 206: kind: node passed silently (no rule matched it, exit 0), where kubectl refuses it: judged as
        # the kind it was meant to be, and said
        dump.errors.append(
            InputError(
                where,
                f"kind {kind!r} is no kind the API server knows (kinds are case-sensitive: kubectl refuses it); did you"
                f" mean {fixed!r}? it is judged as {fixed}",
                path + ".kind",
                lost=False,
            )
        )
        obj = {**obj, "kind": fixed}
    from_cluster = obj["kind"] in ("Node", "Pod") and isinstance(obj.get("metadata"), dict) and obj["metadata"].get("uid")
    stray = sorted(str(k) for k in obj if k not in _OBJECT_KEYS) if from_cluster else []
    if stray:
        # trial 98: a label line dedented to the margin became a key of its Node, and the node was judged unlabelled
        # (a cluster's Node or Pod has these five keys; one written by hand may carry others)
        dump.errors.append(
            InputError(
                where,
                f"{obj['kind']} has {', '.join(map(repr, stray[:3]))} beside apiVersion, kind, metadata, spec and status:"
                " a line of it dedented to the margin? it is judged without it",
                path,
                kind=obj["kind"],
            )
        )
    # the Node is read whole (its rules that read the value answer error): nothing is kept out (trial 123: every
    # cross-object finding said the input errors may have kept from it what could change it)
    dump.errors.extend(InputError(where, reason, path + at, lost=False) for at, reason in _bad_quantities(obj))
    dump.unquoted.extend(_unquoted_scalars(obj))
    odd = _odd_allocatable(obj)
    if odd:
        # trial 158: allocatable: not-a-map was taken for none in silence, and the node passed as allocating its
        # capacity (trial 102: "" or [] is none, as the API server's defaulting reads it)
        dump.errors.append(InputError(where, odd, path + ".status.allocatable", lost=False))
    _default_allocatable(obj, dump)
    meta = obj.get("metadata")
    if not isinstance(meta, dict) or not meta.get("name"):
        # Every object a cluster holds has a name; a hand-built one may not (a lab's bare ClusterPolicy): it is
        # judged, as evidence for the others, and said, so that it never passes for a clean object unnoticed.
        generated = isinstance(meta, dict) and meta.get("generateName")
        given = " (only metadata.generateName: the API server names it)" if generated else ""
        dump.notes.append(
            f"{where}: this {obj['kind']} has no metadata.name{given}, as no object a cluster holds; it is judged unnamed"
        )
    dump.objects.append(KObject(obj, where))


#: Where an object holds a map of strings a scalar may be written in unquoted (``gpu: true``): its labels and
#: annotations, and the node selector of a pod spec (a Pod's or VMI's own, a workload's template, a CronJob's).
_STRING_MAPS = (
    ("metadata", "labels"),
    ("metadata", "annotations"),
    ("spec", "nodeSelector"),
    ("spec", "template", "spec", "nodeSelector"),
    ("spec", "jobTemplate", "spec", "template", "spec", "nodeSelector"),
)


def _unquoted_scalars(obj: dict[str, Any]) -> Iterator[str]:
    """Each value of a map of strings that YAML read as a boolean or a number (``nvidia.com/gpu.present: true``
    unquoted), which the API server refuses ("cannot unmarshal bool into Go struct field ... of type string"), as
    ``Pod ml/p spec.nodeSelector['nvidia.com/gpu.present']: true``: the value is replaced by its text, so that the
    object is judged as if it were quoted, and the dump's note names it (trial 179: a nodeSelector true was matched
    as "true" in silence, in a hand-built lab's manifest that kubectl apply refuses)."""
    meta = obj.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    namespace = meta.get("namespace") if isinstance(meta, dict) else None
    named = f"{obj['kind']} {namespace + '/' if isinstance(namespace, str) and namespace else ''}{name or '(unnamed)'}"
    for fields in _STRING_MAPS:
        held: Any = obj
        for part in fields:
            held = held.get(part) if isinstance(held, dict) else None
        if not isinstance(held, dict):
            continue
        for key, value in held.items():
            if value is None or isinstance(value, (str, dict, list)):
                continue
            text = ("true" if value else "false") if isinstance(value, bool) else str(value)
            held[key] = text
            yield f"{named} {'.'.join(fields)}{member_selector(str(key))}: {text}"


def _odd_allocatable(obj: dict[str, Any]) -> str:
    """Why a Node's ``status.allocatable`` that holds a value but no mapping is taken for none, else ""."""
    status = obj.get("status") if obj.get("kind") == "Node" else None
    value = status.get("allocatable") if isinstance(status, dict) else None
    # (trial 102: "" or [] is none, as written by hand; trial 159: 0 and false were taken for none in silence)
    if value is None or value == "" or value == [] or isinstance(value, dict):
        return ""
    meta = obj.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    return (
        f"Node {name}: status.allocatable is {_shown(value)}, not a mapping of resources: it is taken for none, so the"
        " node allocates its status.capacity (as the API server defaults a Node without it)"
    )


def _shown(value: Any) -> str:
    """A value of the dump as its JSON (a list or mapping as written, not as Python prints it), a string quoted."""
    if isinstance(value, str):
        return written(value)
    return orjson.dumps(value, default=str).decode()[:80]


def _default_allocatable(obj: dict[str, Any], dump: Dump) -> None:
    """A Node with status.capacity and no status.allocatable (absent or empty) allocates its capacity: the API server
    defaults it so (kubernetes@00fdf757a8e8 pkg/apis/core/v1/defaults.go, SetDefaults_NodeStatus), and the scheduler
    model read it so already (trial 101: a hand-built GPU node with capacity only failed no-unhealthy-devices,
    "allocatable 0, less than its capacity", and most node rules skipped it as advertising nothing)."""
    status = obj.get("status") if obj.get("kind") == "Node" else None
    allocatable = status.get("allocatable") if isinstance(status, dict) else None
    if not isinstance(status, dict) or (allocatable and isinstance(allocatable, dict)):
        return  # (one written "" or [] is no mapping either: trial 102)
    capacity = status.get("capacity")
    if not isinstance(capacity, dict) or not capacity:
        return
    status["allocatable"] = dict(capacity)
    meta = obj.get("metadata")
    dump.allocatable_defaulted.append(str(meta.get("name") or "(unnamed)") if isinstance(meta, dict) else "(unnamed)")


def _bad_quantities(obj: dict[str, Any]) -> list[tuple[str, str]]:
    """(path below the object, reason) for each value of a Node's ``status.capacity`` or ``status.allocatable``
    that is not a Kubernetes quantity (the API server refuses one): the Node is still judged, and the rules that
    read the value answer ``error``; the input error says where it is."""
    status = obj.get("status") if obj.get("kind") == "Node" else None
    if not isinstance(status, dict):
        return []
    out = []
    for section in ("capacity", "allocatable"):
        values = status.get(section)
        if not isinstance(values, dict):
            continue
        for resource, value in values.items():
            if not is_quantity(value):
                meta = obj.get("metadata")
                name = meta.get("name") if isinstance(meta, dict) else None
                out.append(
                    (
                        f".status.{section}['{resource}']",
                        f"Node {name}: status.{section}['{resource}'] is {written(value)}, not a Kubernetes quantity (such as 8,"
                        " 500m or 64Gi); rules that read it answer error",
                    )
                )
    return out


def _malformed_metadata(obj: dict[str, Any]) -> tuple[str, str] | None:
    """Why ``obj`` is not judged when its ``metadata.name`` is not a string, or when its ``metadata``, or the
    ``labels`` or ``annotations`` in it, is not a mapping (the API server refuses such an object: it cannot come
    from a cluster), and the path of that field below the object; None when they are mappings or absent.
    Judged, such a Node would read as unlabelled, and its results would say so."""
    meta = obj.get("metadata")
    if meta is None:
        return None
    if isinstance(meta, dict) and meta.get("name") not in (None, "") and not isinstance(meta["name"], str):
        what = _JSON_TYPES.get(type(meta["name"]), type(meta["name"]).__name__)
        return (
            f"{obj['kind']}: metadata.name is a {what}, not a string (quote it in YAML); the object is not judged",
            ".metadata.name",
        )
    if isinstance(meta, dict):
        # the longest name (a DNS subdomain) and namespace (a DNS label) the API server takes; longer ones are
        # hostile or damaged input, and would be written again in every result of every format
        for part, most in (("name", 253), ("namespace", 63)):
            value = meta.get(part)
            if isinstance(value, str) and len(value) > most:
                return (
                    f"{obj['kind']}: metadata.{part} is {len(value):,} characters, longer than the {most} Kubernetes"
                    " allows (the API server refuses it); the object is not judged",
                    f".metadata.{part}",
                )
    name = f"{obj['kind']} {meta.get('name')}" if isinstance(meta, dict) and isinstance(meta.get("name"), str) else obj["kind"]
    if not isinstance(meta, dict):
        part, value = "metadata", meta
    else:
        for part in ("labels", "annotations"):
            value = meta.get(part)
            if value is not None and not isinstance(value, dict):
                part = f"metadata.{part}"
                break
            # trial 158: a label whose value is a list was judged (a pass beside an internal error); a label or
            # annotation value is a string (a YAML scalar written unquoted, true or 8, is read as its text)
            bad = next(((k, v) for k, v in (value or {}).items() if isinstance(v, (dict, list))), None)
            if bad is not None:
                what = _JSON_TYPES.get(type(bad[1]), type(bad[1]).__name__)
                return (
                    f"{name}: metadata.{part}[{bad[0]!r}] is a {what}, not a string; the object is not judged (the API"
                    " server refuses it)",
                    f".metadata.{part}{member_selector(str(bad[0]))}",
                )
        else:
            return None
    what = _JSON_TYPES.get(type(value), type(value).__name__)
    reason = f"{name}: {part} is a {what}, not a mapping; the object is not judged (the API server refuses it)"
    if isinstance(value, str) and any(c in value for c in "\u00a0\u202f\u2007"):
        # trial 102: "nvidia.com/gpu.present:\u00a0'true'" is one string to YAML, the space after its colon not one
        reason += (
            ": it holds a no-break space, which YAML does not take for the space after a key's colon (a chat client or a"
            " web page put it in the pasted text)"
        )
    return reason, f".{part}"


def parse_text(text: str, name: str) -> Dump:
    """Parse one file's text (JSON, YAML, or ``kubectl describe node`` output) into a ``Dump``."""
    with heap.paused():
        return _parse_text(text, name)


def _parse_json(text: str | bytes, name: str) -> Dump | orjson.JSONDecodeError:
    """The dump of a JSON text (``str``, or the UTF-8 bytes of a file); the parser's error when it is not JSON
    (the caller reads it as YAML: flow-style YAML starts with ``{`` too)."""
    dump = Dump(files_read=[name])
    apart = _parse_items_apart(text) if isinstance(text, bytes) and len(text) >= ITEMS_APART_FROM else None
    lines: list[int] | None = None
    if apart is not None and not _too_deep(apart[2]):
        data, lines, _ = apart
    else:
        apart = None  # too deep: the whole text is parsed again, so that the error is the one it gives
        try:
            data = orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            if "depth limit exceeded" in str(exc):
                # one item of a List too deep for the parser loses that item alone, where the layout shows the items
                # (trial 191: 5,000 levels in one item lost the whole List, where a syntax error in it loses it alone)
                salvaged = _salvage_items(text, name, exc)
                if salvaged is not None:
                    return salvaged
                # well-formed so far, only too deep: say so in JSON's words, not as a YAML syntax error
                # the place the limit is crossed, not where the parser's own (deeper) limit stopped it (trial 79)
                place = _deep_place(text)
                reason = f"JSON nested deeper than {MAX_DEPTH} levels{_deep_where(place)}"
                dump.errors.append(InputError(Source(name, 1, place[0] if place else exc.lineno), reason))
                return dump
            if "unexpected content after document" in str(exc):
                read = _parse_json_values(text, name)
                # one of them broken: flow-style YAML documents between `---` lines are read as YAML first; every
                # one JSON, none a Kubernetes object, each says so (trial 180: read again as YAML, 8 MB of {"a":1}
                # lines took 26 s and 542 MiB to be called a "JSON syntax error ...; not YAML either")
                return read[0] if read is not None and not read[1] else exc
            return exc
    if lines is None:
        is_array = isinstance(data, list)
        items = data if is_array else data.get("items") if isinstance(data, dict) else None
        items = items if isinstance(items, list) else []
        # Only an object item starts with "{" on a line of its own: the lines found are the object items' (a
        # string or a number among them must not cost every object its line).
        count = sum(1 for item in items if isinstance(item, dict))
        raw = text.encode("utf-8") if isinstance(text, str) and count else text
        lines = _json_item_lines(raw, count, is_array) if count else []  # type: ignore[arg-type]
        if count < len(items):
            # a string or null among the items: every item's line, where the layout shows it (trial 48: those
            # items' input errors said line 1); else the object items' lines, the others the document's
            every = _json_every_item_line(raw if isinstance(raw, bytes) else raw.encode("utf-8"), is_array, len(items))
            if every:
                lines = every
            elif lines:
                found = iter(lines)
                lines = [next(found) if isinstance(item, dict) else 0 for item in items]
    # the value's own line: blank lines before it (a code block or terminal paste read at its lines) count
    head = text[: len(text) - len(text.lstrip())]
    first = 1 + (head.count(b"\n") if isinstance(head, bytes) else head.count("\n"))
    _json_objects_of(data, Source(name, 1, first), lines, dump, checked=apart is not None, text=text)
    if len(text) <= DUPLICATES_CHECKED_UP_TO:
        _refuse_duplicates(text, data, dump, Source(name, 1, first), lines)
    return dump


#: JSON up to this many bytes is checked for a key that stands twice in one mapping (orjson keeps the last silently).
#: kubectl and the API server never write one; larger JSON is theirs, and is read at orjson's pace unchecked.
DUPLICATES_CHECKED_UP_TO = 16 << 20


class _Twice(dict):  # type: ignore[type-arg]
    """A JSON mapping that held a key twice: ``twice`` names the keys."""

    twice: list[str]


def _twice_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) == len(pairs):
        return found
    marked = _Twice(found)
    marked.twice = [k for k, n in collections.Counter(k for k, _ in pairs).items() if n > 1]
    return marked


def _refuse_duplicates(text: str | bytes, data: Any, dump: Dump, source: Source, lines: list[int]) -> None:
    """Refuse the objects of a JSON text that hold a key twice in one mapping, as YAML's are (trial 180: orjson kept
    the last of two metadata.name and two nvidia.com/gpu.workload.config, and the CLI exited 0): each such List item
    (or the whole document) is an input error at its path and key, and not judged, as kubectl refuses it. Whether a
    key was lost is seen first by counting the keys written in the text against those orjson kept (a key is the only
    place a quote is followed by a colon, blanks between them or not); the text is parsed again to find them only
    then. ``source`` is the document's (its file, number and first line)."""
    raw = text.encode("utf-8") if isinstance(text, str) else text
    written = raw.count(b'":') + len(_SPACED_KEY_END.findall(raw))
    try:
        if written <= orjson.dumps(data).count(b'":'):
            return
    except TypeError:  # nested past orjson's 255 levels when it writes (it reads 1,024): counted by parsing again
        pass  # (trial 196: a Node nested 300 levels deep crashed the CLI and was a 500 of the service)
    try:
        again = json.loads(raw, object_pairs_hook=_twice_hook)
    except (ValueError, RecursionError):
        return
    found: list[tuple[str, list[str]]] = []

    def walk(value: Any, path: str, depth: int) -> None:
        if depth > MAX_DEPTH + 1:  # an object this deep is refused for its nesting already (and recursion is bounded)
            return
        if isinstance(value, dict):
            if isinstance(value, _Twice):
                found.append((path, value.twice))
            for k, v in value.items():
                walk(v, f"{path}.{k}" if _PLAIN_KEY.fullmatch(k) else f"{path}[{json.dumps(k)}]", depth + 1)
        elif isinstance(value, list):
            for i, v in enumerate(value):
                walk(v, f"{path}[{i}]", depth + 1)

    walk(again, "$", 0)
    listed = isinstance(data, list) or (
        isinstance(data, dict) and str(data.get("kind", "")).endswith("List") and isinstance(data.get("items"), list)
    )
    refused: dict[int | None, list[tuple[str, list[str]]]] = {}
    for path, keys in found:
        m = _ITEM_PATH.match(path) if listed else None
        refused.setdefault(int(m.group(1)) if m else None, []).append((path, keys))
    name, document = source.file, source.document
    mine = [o for o in dump.objects if o.source.file == name and o.source.document == document]
    if None in refused:  # the document itself, or a key of the List around its items: nothing of it is judged
        gone = {id(o) for o in mine}
    else:
        gone = {id(o) for o in mine if o.source.item in refused}
    dump.objects[:] = [o for o in dump.objects if id(o) not in gone]
    for item, where in refused.items():
        said = "; ".join(f"{', '.join(map(repr, keys))} at {path}" for path, keys in where[:3])
        more = f" and {len(where) - 3} more" if len(where) > 3 else ""
        line = lines[item] if item is not None and item < len(lines) else source.line  # (trial 181: line 0)
        reason = (
            f"a key stands twice in one mapping ({said}{more}): JSON readers keep one of the two, kubectl refuses the"
            " document (duplicate field), so it is not judged; write each key once"
        )
        dump.errors.append(InputError(Source(name, document, line, item), reason, where[0][0]))


_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
#: A key's closing quote and its colon with blanks between them (column-aligned JSON: trial 181).
_SPACED_KEY_END = re.compile(rb'"[ \t\r\n]+:')
#: A path inside one item of a List or a top-level array: its index.
_ITEM_PATH = re.compile(r"^\$(?:\.items)?\[(\d+)\]")


_BLANK = re.compile(r"\s*")


def _parse_json_values(text: str | bytes, name: str) -> tuple[Dump, int] | None:
    """JSON values one after another (``jq '.items[]'``, a loop of ``kubectl get ... -o json``): each value
    is a document, numbered from 1 at its first line, and how many did not parse. A value that does not parse is
    that document's error, and the reading goes on at the next line that starts with ``{`` or ``[`` (where each
    value starts as jq and kubectl print them; their inner lines are indented): one broken value does not lose the
    rest. At most ``MAX_DOCUMENTS`` values are read, as of YAML. None when the text is not UTF-8 (the caller says
    so)."""
    try:
        whole = text.decode("utf-8") if isinstance(text, bytes) else text
    except UnicodeDecodeError:
        return None
    decoder = json.JSONDecoder()
    dump = Dump(files_read=[name])
    broken = 0
    at, line, counted, number = _BLANK.match(whole).end(), 1, 0, 0  # type: ignore[union-attr]
    while at < len(whole):
        number += 1
        if number > yamlsafe.MAX_DOCUMENTS:
            line += whole.count("\n", counted, at)
            reason = f"more than {yamlsafe.MAX_DOCUMENTS:,} documents (VERDICT_MAX_DOCUMENTS): the rest is not read"
            dump.errors.append(InputError(Source(name, number, line), reason))
            break
        line += whole.count("\n", counted, at)
        counted = at
        try:
            value, end = decoder.raw_decode(whole, at)
        except json.JSONDecodeError as exc:
            # placed at the line the value starts (the parser may notice only on the next value's line)
            reason = f"JSON syntax error: {exc.msg} (line {exc.lineno}, column {exc.colno})"
            dump.errors.append(InputError(Source(name, number, line), reason))
        except RecursionError:
            dump.errors.append(InputError(Source(name, number, line), f"nesting deeper than {MAX_DEPTH} levels"))
        except ValueError as exc:  # Python's bound on integer digits (sys.get_int_max_str_digits)
            reason = f"JSON value with an integer longer than the {sys.get_int_max_str_digits():,} digits verdict reads"
            dump.errors.append(InputError(Source(name, number, line), reason if "digits" in str(exc) else f"JSON error: {exc}"))
        else:
            _json_objects_of(value, Source(name, number, line), [], dump)
            if end - at <= DUPLICATES_CHECKED_UP_TO:  # (trial 181: a jq -c stream kept the last of two keys)
                _refuse_duplicates(whole[at:end], value, dump, Source(name, number, line), [])
            at = _BLANK.match(whole, end).end()  # type: ignore[union-attr]
            continue
        broken += 1
        following = _NEXT_VALUE.search(whole, at)
        if following is None:
            break
        at = following.end()
    return dump, broken


#: The start of the next value after one that does not parse: a line starting with ``{`` or ``[``.
_NEXT_VALUE = re.compile(r"\n(?=[{\[])")


#: Where the items of a JSON List (kubectl's ``"items": [``, after string members and flat mappings: the API
#: server's kind, apiVersion and metadata) or a top-level array start.
_ITEMS_OPEN = re.compile(r'\A\s*(?:\[|\{\s*(?:"[^"\\]*"\s*:\s*(?:"[^"\\]*"|\{[^{}]*\})\s*,\s*)*"items"\s*:\s*\[)')
#: The kind and apiVersion members before a List's items, for a typed List's items (which carry none).
_HEAD_MEMBER = re.compile(r'"(kind|apiVersion)"\s*:\s*"([^"\\]*)"')


def _deep_item_said(dump: Dump, error: orjson.JSONDecodeError) -> bool:
    """Whether the parser's error is only an item's depth, which that item's own input error says (trial 196: an
    item of 1,200 levels, past orjson's limit and within json's, was said again as the List's syntax error)."""
    return "depth limit exceeded" in error.msg and any(e.reason.startswith("nesting deeper") for e in dump.errors)


def _list_error(name: str, error: orjson.JSONDecodeError) -> InputError:
    """The error of a JSON List whose items were each read whole, one at a time: the List's own (a bracket missing
    around them, a fault after them), which lost nothing."""
    where = f"line {error.lineno}, column {error.colno}"
    reason = f"JSON syntax error: {error.msg} ({where}); its items were read one at a time"
    return InputError(Source(name, 1, error.lineno), reason, lost=False)


def _salvage_compact_items(whole: str, at: int, name: str, error: orjson.JSONDecodeError) -> Dump | None:
    """The items of a compact JSON List that does not parse (jq -c ., kubectl get --raw: one line), from ``at``, the
    start of its items, read one after another up to the first that does not parse, which is the input error with
    the rest of the List (they cannot be told apart from what follows: trial 95, the cut a chat's paste limit makes).
    None when the first item does not parse: the caller says why the whole does not parse."""
    typed = _typed(dict(_HEAD_MEMBER.findall(whole[:at])))
    decoder = json.JSONDecoder()
    dump = Dump(files_read=[name])
    i = 0
    # the lines before ``counted_to``, counted once (trial 206: recounted from the start for each item, with the rest
    # of the text copied for each, a cut [1,1,...] of 600 KB took 41 s)
    line, counted_to = 1, 0
    while True:
        while at < len(whole) and whole[at] in " \t\r\n":
            at += 1
        line += whole.count("\n", counted_to, at)
        counted_to = at
        source = Source(name, 1, line, i)
        try:
            value, at = decoder.raw_decode(whole, at)
        except (json.JSONDecodeError, RecursionError, ValueError) as exc:
            if i == 0:
                return None
            cut = " the text ends inside it (cut short?)," if error.pos >= len(whole.rstrip()) else ""
            kind, named, ref = _compact_item_named(whole, at)
            if isinstance(exc, json.JSONDecodeError):
                said = f"{named}: {exc.msg};" if named else f" ({exc.msg}):"
                reason = f"JSON syntax error in this item of the List{said}{cut} it and the items after it are not read"
            else:  # (trial 191: an item nested too deep was said to be a syntax error)
                what = f"nests deeper than {MAX_DEPTH} levels" if isinstance(exc, RecursionError) else "holds an integer too long"
                reason = f"this item of the List{named} {what}: it and the items after it are not read"
            dump.errors.append(InputError(source, reason, kind=kind, ref=ref))
            break
        _json_objects_of(_with_kind(typed, value), source, [], dump)
        i += 1
        at = _BLANK.match(whole, at).end()  # type: ignore[union-attr]
        if whole.startswith(",", at):
            at += 1
            continue
        if not whole.startswith("]", at):
            dump.errors.append(
                InputError(source, "JSON syntax error after this item of the List: the items after it are not read")
            )
        break
    if not dump.errors:  # every item whole: the List's own error stands (after its items)
        dump.errors.append(_list_error(name, error))
    dump.notes.append(
        f"the JSON of {name} does not parse whole ({error.msg}): {i:,} of its List items"
        f" {'was' if i == 1 else 'were'} read one at a time"
    )
    return dump


#: A JSON string, or a bracket, colon or comma: the tokens ``_compact_item_named`` reads.
_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\]:,]')
#: At most this much of a compact item is read for its kind and name (an error's words, not its cost).
_NAMED_WITHIN = 1 << 20


def _compact_item_named(whole: str, at: int) -> tuple[str, str, str]:
    """The kind of the compact JSON List item at ``whole[at:]`` that does not parse, and `` (Node gpu-1, not read)``:
    what it looks like, from its own kind and metadata's name (namespace) members, strings its text holds whole;
    "" for what is not found (trial 240 #5: a hand-written compact List cut inside an item named none, where kubectl's
    indented one is named, ``_item_named``)."""
    found: dict[tuple[str, ...], str] = {}
    path: list[str] = []  # the keys of the objects open, from the item's own (depth 1)
    key, after_colon, depth = "", False, 0
    for m in _JSON_TOKEN.finditer(whole, at, min(len(whole), at + _NAMED_WITHIN)):
        token = m.group(0)
        if token == "{" or token == "[":
            depth += 1
            path.append(key if after_colon else "")
            key, after_colon = "", False
            if depth == 1 and token != "{":
                break  # no object
        elif token == "}" or token == "]":
            depth -= 1
            if depth <= 0:
                break
            path.pop()
            key, after_colon = "", False
        elif token == ":":
            after_colon = True
        elif token == ",":
            key, after_colon = "", False
        elif after_colon:
            found[(*path[1:], key)] = _unquoted(token)
            after_colon = False
        else:
            key = _unquoted(token)
    kind, name = found.get(("kind",), ""), found.get(("metadata", "name"), "")
    if not kind or not name:
        return kind, "", ""
    return _not_read(kind, name, found.get(("metadata", "namespace"), ""))


def _unquoted(token: str) -> str:
    """A JSON string token's text (its escapes undone where they are JSON's, else as written)."""
    if "\\" not in token:
        return token[1:-1]
    try:
        return str(json.loads(token))
    except ValueError:  # (an escape JSON has not: "\q")
        return token[1:-1]


#: The first item of such a list on a line of its own, and its indent.
_FIRST_ITEM = re.compile(r"[ \t]*\n([ \t]*)\{")


def _item_named(whole: str, at: int, end: int) -> tuple[str, str, str]:
    """The kind of the item of a JSON List at ``whole[at:end]`` that does not parse, and `` (Node gpu-1, not
    read)``: what it looks like, from its kind and metadata.name (namespace) keys as kubectl indents them; "" for
    what is not found."""
    text = whole[at:end]
    first = re.match(r'\{[ \t]*\r?\n([ \t]*)"', text)
    if first is None:
        return "", "", ""
    indent = first.group(1)
    found = re.search(rf'\n{indent}"kind":\s*"([^"\\\n]+)"', text)
    kind = found.group(1) if found else ""
    meta = re.search(rf'\n{indent}"metadata":\s*\{{[ \t]*\r?\n([ \t]*)"', text)
    if not kind or meta is None:
        return kind, "", ""
    inner = re.escape(meta.group(1))
    # within metadata: up to the next line at the object's own indent (trial 217: a ClusterPolicy's status.namespace
    # was taken for its namespace)
    closed = re.compile(rf"\n{re.escape(indent)}[\"}}]").search(text, meta.end())
    end = closed.start() if closed else len(text)
    name = re.compile(rf'\n{inner}"name":\s*"([^"\\\n]+)"').search(text, meta.start(1) - 1, end)
    if name is None:
        return kind, "", ""
    namespace = re.compile(rf'\n{inner}"namespace":\s*"([^"\\\n]+)"').search(text, meta.start(1) - 1, end)
    return _not_read(kind, name.group(1), namespace.group(1) if namespace else "")


class _DocumentBounds:
    """The lines of a YAML text and where its documents start and end (``---``, and ``...``), split once per text
    and looked up by bisection, for ``_broken_document_named`` (trial 193: splitting the text again for each broken
    document made 20,000 of them take 58 s, where one pass took 1.6 s)."""

    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")
        #: the 0-based lines of the markers, in order
        self.bounds = [i for i, line in enumerate(self.lines) if _YAML_DOCUMENT_BOUND.match(line)]

    def last_before(self, at: int) -> int:
        """The 0-based line after the last boundary before 0-based line ``at`` (0 when there is none)."""
        k = bisect.bisect_left(self.bounds, at)
        return self.bounds[k - 1] + 1 if k else 0

    def next_from(self, at: int) -> int:
        """The 0-based line of the first boundary at or after ``at``, else the line count."""
        k = bisect.bisect_left(self.bounds, at)
        return self.bounds[k] if k < len(self.bounds) else len(self.lines)


def _broken_document_named(bounds: _DocumentBounds, line: int, start: int, cut: bool) -> tuple[str, str, str]:
    """The kind of the YAML document with a syntax error at ``line`` (1-based; ``cut``: the text ends inside it), and
    `` (Node gpu-1, not read)``: what it looks like, from its kind and metadata's name (namespace) keys as kubectl
    writes them; "" for what is not found (trial 171: a paste cut inside a key said "cut short?" and not which node it
    lost). The document runs from ``start`` (its first line, where the parser had begun it; else from the last
    ``---`` or ``...`` before the error, or before the ``---`` the error is at) to the next one (trial 186: a
    ClusterPolicy with a line mis-indented was no kind, and the nodes' passes said the dump held no ClusterPolicy). A
    name on the error's line or after it is not taken: the error may be in it."""
    lines = bounds.lines
    at = min(line, len(lines)) - 1  # (0-based)
    if start:
        first = start - 1
    else:  # the document around the error's line, or the one that ends at it (the error can be at the next one's ---)
        at_marker = at >= 0 and not cut and _YAML_DOCUMENT_START.match(lines[at]) is not None
        first = bounds.last_before(at if at_marker else at + 1)
    end = bounds.next_from(max(first + 1, at))
    body = "\n".join(lines[first:end])
    kind = re.search(r"^kind:[ \t]*[\"']?([A-Za-z][\w.-]*)", body, re.M)
    meta = re.search(r"^metadata:[ \t]*\r?\n([ \t]+)", body, re.M)
    if kind is None or kind.group(1).endswith("List") or meta is None:
        # (a List's items, where they could not be read one at a time, are not one object of a kind)
        return (kind.group(1) if kind and not kind.group(1).endswith("List") else ""), "", ""
    inner = re.escape(meta.group(1))
    name = re.compile(rf"^{inner}name:[ \t]*[\"']?([^\"'\s#]+)", re.M).search(body, meta.start(1))
    namespace = re.compile(rf"^{inner}namespace:[ \t]*[\"']?([^\"'\s#]+)", re.M).search(body, meta.start(1))
    if name is None or first + body.count("\n", 0, name.start()) + 1 >= line:
        return kind.group(1), "", ""  # (a name on the line the error is in may be cut or broken itself)
    return _not_read(kind.group(1), name.group(1), namespace.group(1) if namespace else "")


def _not_read(kind: str, name: str, namespace: str) -> tuple[str, str, str]:
    """The kind, `` (Pod ml/p, not read)`` (how an input error names the object of a List item it lost) and the
    object's ``namespace/name`` (``InputError.ref``)."""
    ref = f"{namespace}/{name}" if namespace else name
    return kind, f" ({kind} {ref}, not read)", ref


def _salvage_items(text: str | bytes, name: str, error: orjson.JSONDecodeError) -> Dump | None:
    """The items of a JSON List (or array) that does not parse, read one at a time, as kubectl lays them out: each
    starts with ``{`` on a line of its own at the first item's indent. An item that does not parse is that item's
    input error, at its line; the others are read (trial 69: a List with one item missing its ``}`` gave four
    errors at places of no item, and a List cut short lost every item before the cut). When every item parses,
    the List's own error stands (a bracket missing around them). None when the text has no such layout, is not
    UTF-8, or no item parses: the caller says why the whole does not parse."""
    try:
        whole = text.decode("utf-8") if isinstance(text, bytes) else text
    except UnicodeDecodeError:
        return None
    opened = _ITEMS_OPEN.match(whole)
    first = _FIRST_ITEM.match(whole, opened.end()) if opened else None
    if first is None:
        return _salvage_compact_items(whole, opened.end(), name, error) if opened else None
    item = re.compile(rf"\n{re.escape(first.group(1))}\{{")
    starts = [first.end() - 1, *(m.end() - 1 for m in item.finditer(whole, first.end()))]
    decoder = json.JSONDecoder()
    dump = Dump(files_read=[name])
    line, counted, broken, commas = 1, 0, 0, 0
    for i, at in enumerate(starts):
        line += whole.count("\n", counted, at)
        counted = at
        source = Source(name, 1, line, i)
        following = starts[i + 1] if i + 1 < len(starts) else len(whole)
        kind, named, ref = "", "", ""
        try:
            value, end = decoder.raw_decode(whole, at)
        except json.JSONDecodeError as exc:
            kind, named, ref = _item_named(whole, at, following)
            reason = f"JSON syntax error in this item of the List{named}: {exc.msg} (line {exc.lineno}, column {exc.colno})"
            if i == len(starts) - 1 and error.pos >= len(whole.rstrip()):
                reason += "; the text ends inside it (cut short?)"
        except (RecursionError, ValueError) as exc:
            kind, named, ref = _item_named(whole, at, following)
            what = f"nests deeper than {MAX_DEPTH} levels" if isinstance(exc, RecursionError) else "holds an integer too long"
            reason = f"this item of the List{named} {what}"
        else:
            rest = whole[end:following].strip()
            # a comma before the next item; after the last, the List's ']' (then its other keys: kubectl writes
            # "kind" and "metadata" after "items")
            if end <= following and (
                rest == "," if following < len(whole) else rest.removeprefix(",").lstrip().startswith("]") or not rest
            ):
                _json_objects_of(value, source, [], dump)
                continue
            after = line + whole.count(chr(10), at, end)
            if end <= following and not rest:
                # trial 93: a comma missing before the next item lost this one, whole: it is read, and so is the next
                _json_objects_of(value, source, [], dump)
                commas += 1
                reason = f"JSON syntax error: a comma is missing after this item of the List (line {after}); it is read"
                dump.errors.append(InputError(source, reason, lost=False))
                continue
            kind, named, ref = _item_named(whole, at, following)
            reason = f"JSON syntax error after this item of the List{named} (line {after})"
        broken += 1
        dump.errors.append(InputError(source, reason, kind=kind, ref=ref))
    if broken == len(starts):
        return None
    if not broken and not commas and not _deep_item_said(dump, error):
        dump.errors.append(_list_error(name, error))
    dump.notes.append(
        f"the JSON of {name} does not parse whole ({error.msg}, line {error.lineno}): {len(starts) - broken:,} of its"
        f" {len(starts):,} List items {'was' if len(starts) - broken == 1 else 'were'} read one at a time"
    )
    return dump


#: JSON of this many bytes or more is parsed one item at a time when its layout allows (``_parse_items_apart``).
ITEMS_APART_FROM = 1 << 20
_CLOSING_LINE = re.compile(rb"\n([ \t]*)\]")


def _parse_items_apart(raw: bytes) -> tuple[Any, list[int], Any] | None:
    """``orjson.loads(raw)`` of a pretty-printed JSON List (or array) of objects, parsed one item at a time,
    the items' start lines, and its skeleton for the nesting check (``_too_deep``): the same document with
    each item that cannot reach the limit replaced by ``{}``; None when the layout does not allow it or a
    part does not parse (the caller then parses the whole text, which says why).

    An item nests no deeper than the ``{`` and ``[`` in its text (those in strings only add to the count),
    and sits at level 3 at most (a List, its items, the item): an item of fewer than ``MAX_DEPTH - 2`` of
    them cannot pass the limit, and counting them is a pass in C over bytes read anyway. Walking every item
    instead took 2.9 s of reading a 376 MiB dump none of whose items has 100 brackets (bench/README.md).

    orjson builds a document of its own before the Python objects: parsing a 380 MB dump at once held
    1.7 GB at its peak, 600 MB more than the bytes and the objects together; one item at a time, that
    document is one item's. The parts are checked to make up the whole text: only whitespace between the
    items' ``[`` and the first item, each item but the last followed by whitespace and a comma, the last by
    whitespace and the ``]``, and the text around the items, with them replaced by a string only this call
    knows, must parse with that string as its ``items`` (or as the whole), which a second ``items`` key or
    an earlier nested one would not.
    """
    lead = _LEADING_SPACE.match(raw).end()  # type: ignore[union-attr]
    is_array = raw[lead : lead + 1] == b"["
    found = _json_item_starts(raw, is_array)
    if not found or not found[0]:
        return None
    starts, opening = found
    if raw[opening + 1 : starts[0]].strip(_JSON_SPACE):
        return None
    first = starts[0]
    while raw[first] in _JSON_SPACE:
        first += 1
    indent = first - starts[0]
    close = -1
    for m in _CLOSING_LINE.finditer(raw, starts[-1]):
        if len(m.group(1)) < indent:
            close = m.end() - 1
            break
    if close < 0:
        return None
    view = memoryview(raw)
    items: list[Any] = []
    shallow: list[Any] = []
    deep_from = MAX_DEPTH - 2
    try:
        for i, start in enumerate(starts):
            if i + 1 < len(starts):
                end = starts[i + 1]
                while raw[end - 1] in _JSON_SPACE:
                    end -= 1
                if raw[end - 1] != 0x2C:  # ","
                    return None
                end -= 1
            else:
                end = close
            item = orjson.loads(view[start:end])
            items.append(item)
            shallow.append(item if raw.count(b"{", start, end) + raw.count(b"[", start, end) >= deep_from else {})
        marker = os.urandom(16).hex()
        around = orjson.loads(raw[:opening] + b'"' + marker.encode() + b'"' + raw[close + 1 :])
    except orjson.JSONDecodeError:
        return None
    if is_array:
        return (items, _lines_at(raw, starts), shallow) if around == marker else None
    if not isinstance(around, dict) or around.get("items") != marker:
        return None
    skeleton = {**around, "items": shallow}
    around["items"] = items
    return around, _lines_at(raw, starts), skeleton


#: A line that is a Markdown code fence and nothing else: ```yaml, ~~~, its info string (a language name).
_PURE_FENCE = re.compile(r"(?:```|~~~)[ \t]*([\w+#.-]*)[ \t]*$")
#: A line that closes a block: a fence without an info string.
_CLOSING_FENCE = re.compile(r"(?:```|~~~)[ \t]*$")
#: The info strings of code blocks that can hold a dump (GitHub's names; none at all in a chat message).
_DUMP_BLOCKS = frozenset({"", "yaml", "yml", "json", "jsonc", "text", "txt", "plaintext", "console", "shell-session"})
#: Shell blocks: read when they hold a command's prompt line and then what it printed (``$ kubectl get ...``).
_SHELL_BLOCKS = frozenset({"bash", "sh", "shell", "zsh", "terminal"})
#: A shell prompt, before the space that ends it: ``$``, ``%``, ``[root@node ~]#``, ``user@host:~$``, zsh's
#: ``me@laptop ~ %``, fish's ``me@laptop ~>``, PowerShell's ``PS C:\Users\me>``, ``sh-5.1#`` (oc debug, oc rsh),
#: oh-my-zsh's ``➜  ~`` and starship's ``❯`` (trial 54: the paste was not split under them, and what followed describe
#: text was dropped). The describe reader knows these too (rules.describe's _PROMPT).
_PROMPT_BODY = (
    r"(?:\([^)\n]*\)[ \t]+)?"  # a virtualenv's or conda's "(base) " before it (trial 55)
    r"(?:[$%]|\[[^\]\n]*\][$#]|[\w.-]+@[\w.-]+[^\s$#%>]*(?:[ \t]+[^\s$#%>]+)?[ \t]*[$#%>]|PS [^>\n]*>"
    r"|(?:sh|bash|zsh)-\d+(?:\.\d+)*[$#]|[\w.-]+%|[➜❯](?:[ \t]+(?!(?:sudo|kubectl|oc|k)[ \t])\S+)?)"
)
#: The client of a command line and what stands before its verb: environment settings (``KUBECONFIG=... ``),
#: sudo, and flags (``--context prod``, ``-n default``, ``--kubeconfig=...``; trial 55).
_CLIENT = (
    r"[ \t]*(?:[A-Za-z_][A-Za-z0-9_]*=\S*[ \t]+)*(?:sudo[ \t]+)?(?:kubectl|oc|k)"
    r"(?:[ \t]+--?[\w.-]+(?:=\S*|[ \t]+(?!(?:get|describe)\b)[^\s-]\S*)?)*?[ \t]+"
)
#: A shell prompt at the start of a line.
_SHELL_PROMPT = r"[ \t]*" + _PROMPT_BODY + r"[ \t]"
#: A code block's line that is a command: ``$ kubectl ...``, ``[root@node ~]# ...``.
_BLOCK_PROMPT = re.compile(_SHELL_PROMPT)
#: A line kubectl writes on its standard error, which a paste made with ``2>&1`` (or a terminal) holds before what it
#: printed: a klog line (``E0612 09:41:12.456789   48211 memcache.go:265] couldn't get ...``: severity, date, time,
#: thread, file:line), or a warning the API server sent (``Warning: short name "no" could also match ...``,
#: client-go's warning handler). Set aside where it stands at a line's start before a dump (trial 198: after a prompt
#: line they made the describe text after them a "YAML syntax error", and the node was lost).
_STDERR_LINE = re.compile(r"(?:[IWEF]\d{4} \d\d:\d\d:\d\d\.\d{6}[ \t]+\d+ [\w.-]+:\d+\] |Warning: \S)")
#: The first line of a code block that holds a dump: JSON, a YAML key, comment or document marker, the
#: table kubectl get prints. A command, an error message or a verdict report does not start so.
_DUMP_LINE = re.compile(r"[ \t]*(?:[{\[#]|---|\.\.\.|[A-Za-z][\w./-]*:(?:[ \t]|$)|NAME[ \t]|NAMESPACE[ \t]|LAST SEEN[ \t])")


@dataclass(slots=True)
class _Block:
    """A Markdown code block: its info string, the index of its first line in the text, its lines, and the
    (1-based) line of its opening fence."""

    tag: str
    first: int
    lines: list[str] = field(default_factory=list)
    fence: int = 0
    #: the command of a part of a paste that a command other than kubectl get or describe printed, as a note names it
    #: ("date", "kubectl version"): set aside; empty for any other block
    other: str = ""

    def dump_from(self) -> int | None:
        """The index in ``lines`` where the dump it holds starts (after blank and prompt lines), or None when it
        holds none: a block of another language, a command, a shell block without a prompt line."""
        at = 0
        prompted = stderr = False
        while at < len(self.lines):
            line = self.lines[at]
            if _BLOCK_PROMPT.match(line):
                prompted = True
            elif _STDERR_LINE.match(line) or (prompted and _CHANGED_LINE.match(line)):
                # (trial 208: "node/gpu-1 labeled" of kubectl label ... && kubectl get node gpu-1 -o yaml)
                stderr = True
            # blank, or the next line of a message kubectl wrote on its standard error (GKE's auth plugin warning
            # goes on "To learn more, consult https://...")
            elif line.strip() and not (stderr and not _DUMP_LINE.match(line)):
                break
            at += 1
        if at == len(self.lines) or not _DUMP_LINE.match(self.lines[at]):
            return None
        if self.tag in _DUMP_BLOCKS or self.tag == _PASTE:
            return at
        shell = self.tag in _SHELL_BLOCKS and not self.lines[at].lstrip().startswith("#")
        # without a prompt line, only what no script starts with (trial 171: describe text in a bash block, as
        # people tag any terminal output, was set aside)
        return at if shell and (prompted or _OUTPUT_START.match(self.lines[at])) else None


#: The first line of what kubectl prints that no shell script starts with: a YAML object's first key, describe text's
#: ``Name:``, a table's header.
_OUTPUT_START = re.compile(r"(?:apiVersion|kind):[ \t]+\S|Name:[ \t]+\S|(?:NAME|NAMESPACE)[ \t]{2,}[A-Z]")


def _code_blocks(text: str) -> tuple[list[_Block], int] | None:
    """The code blocks of a chat message, an issue comment or a Markdown file (fences at the start of a line,
    which no YAML or JSON text has), and how many lines of text stand outside them; None when there is no
    fence; no block when one is left open (a paste cut short: the caller reads the text without its fences). Slack
    writes a block's first and last lines on its fences' (```apiVersion: v1 ... "2"```): they are its lines."""
    # substring and regex searches first: the line-by-line walk only where a fence starts a line
    if ("```" not in text and "~~~" not in text) or not (_LINE_FENCE.search(text) or _MID_FENCE.search(text)):
        return None
    blocks: list[_Block] = []
    outside = 0
    inside: _Block | None = None
    for i, line in enumerate(text.split("\n")):
        line = line.rstrip("\r")
        if inside is None:
            pure = _PURE_FENCE.match(line)
            if pure:
                inside = _Block(pure.group(1).lower(), i + 1, fence=i + 1)
            elif line.startswith("```"):
                inside = _fenced(line[3:].rstrip(), i, blocks)
            elif mid := _MID_FENCE.search(line):
                # Slack opens a block after text on the same line ("my node: ```", "gives ```apiVersion: v1")
                outside += 1
                rest = line[mid.end() :].rstrip()
                if _INFO_STRING.fullmatch(rest):
                    inside = _Block(rest.lower(), i + 1, fence=i + 1)
                else:
                    inside = _fenced(rest, i, blocks)
            elif line.strip():
                outside += 1
            continue
        if _CLOSING_FENCE.match(line):
            blocks.append(inside)
            inside = None
        elif line.rstrip().endswith("```"):
            inside.lines.append(line.rstrip()[:-3])
            blocks.append(inside)
            inside = None
        else:
            inside.lines.append(line)
    if inside is not None:
        return [], 0  # left open: no block
    return blocks, outside


def _fenced(rest: str, i: int, blocks: list[_Block]) -> _Block | None:
    """The block a fence on line ``i`` opens with ``rest``, the text after it, as its first line: added to ``blocks``
    when it closes on that line too (Slack's ```apiVersion: v1 ... "2"```, None returned), else returned, open."""
    if rest.endswith("```"):
        blocks.append(_Block("", i, [rest[:-3]], i + 1))
        return None
    return _Block("", i, [rest], i + 1)


_LINE_FENCE = re.compile(r"^(?:```|~~~)", re.M)
#: A fence after text on its line that opens a block: at the line's end (an info string may follow), or before
#: the first line of a dump, as Slack writes it (trial 56).
_MID_FENCE = re.compile(r"(?<=\S)[ \t]*```(?=[\w+-]*[ \t]*\r?$|(?:apiVersion|kind):|[{\[]|Name:)", re.M)
#: A code block's info string (``yaml``, ``json``, ``shell-session``), or none.
_INFO_STRING = re.compile(r"[\w+-]*")


def _without_fences(text: str) -> str:
    """The text without its fence lines, every line kept as a blank one (a block left open: the rest is read)."""
    return "\n".join("" if _LINE_FENCE.match(line) else line for line in text.split("\n"))


def _parse_text(text: str, name: str, json_error: orjson.JSONDecodeError | None = None) -> Dump:
    """``json_error``: the JSON parser's error when the caller already parsed this text as JSON (from its
    bytes), so that it is not parsed again. A chat message's Markdown code blocks are read (``_code_blocks``).
    HTML escapes are undone where the text was escaped as a whole (``_parse_html_or_text``); an input error that quotes
    one, where they are not, says where they come from. Text of white space alone
    (tabs too) holds no object and no error, as an empty file (trial 79: a tab was a YAML syntax error). ANSI escape
    sequences (a terminal's colours) and a log collector's timestamp before each line are taken out first, and said
    (trial 145: ``pastes``)."""
    if not text.strip():
        return Dump()
    text, coloured = pastes.without_ansi(text)
    text, stamped, stamp = pastes.without_timestamps(text)
    if coloured or stamped:
        json_error = None  # the JSON parser saw what was taken out: the text without it is parsed again
    dump = _parse_html_or_text(text, name, json_error)
    if stamped:
        dump.notes.insert(
            0,
            f"{name}: a timestamp before each line ('{stamp}', as a log collector such as GitHub Actions, Loki or kubectl"
            f" logs --timestamps writes one) taken off {counted(stamped, 'line')} before reading",
        )
    if coloured:
        dump.notes.insert(
            0,
            f"{name}: ANSI escape sequences (terminal colours, as kubecolor, jq -C or a coloured prompt write them) taken"
            f" out of {counted(coloured, 'line')} before reading",
        )
    if dump.errors:
        dump.errors = _links_said(_timestamps_said(dump.errors, text), text)
    return dump


#: The largest text read again with its HTML escapes undone where it does not read as it is (a paste, not a dump).
HTML_RETRY_BYTES = 4 * 1024 * 1024


def _parse_html_or_text(text: str, name: str, json_error: orjson.JSONDecodeError | None) -> Dump:
    """The dump of a text that may have been HTML-escaped as a whole (``pastes.without_html_escapes``): read with its
    escapes undone where a terminal's HTML tags wrap it, or where it does not read as it is and does so, and said
    (trial 145: a terminal's copy as HTML of describe text lost its node on ``Taints: &lt;none&gt;``). A text that
    reads as it is keeps its escapes, unless it starts with a terminal's tag: a value may hold one of its own, even
    inside <pre> (trial 148: a ConfigMap's HTML value was rewritten). Only a paste's size is read twice
    (``HTML_RETRY_BYTES``: trial 148, a 54 MB dump with ``&amp;`` in its values and one unrelated error was parsed again
    for nothing)."""
    unescaped = pastes.without_html_escapes(text) if len(text) <= HTML_RETRY_BYTES else None
    dump = _parse_chat_or_text(text, name, json_error)
    if unescaped is None:
        return _escapes_said(dump, text)
    plain, wrapped = unescaped
    if not dump.errors and not wrapped:
        return dump
    # a text a terminal's tags wrap is read unescaped unless that reads worse (trial 150: one that parsed as it was
    # kept "<pre>apiVersion" and "&amp;" in its values); another only where it does not read as it is, and better so
    read = _parse_chat_or_text(plain, name, None)
    worse = len(read.errors) > len(dump.errors) if wrapped else len(read.errors) >= len(dump.errors)
    # more objects read is better whatever the errors (trial 230 #3: describe text cut after its System Info, escaped,
    # lost its node on "&lt;none&gt;" read as it was, and was kept so: unescaped it read the node and said it was cut)
    # (trial 231 #8: but not where it loses an object read as it was: a Node whose own value held "&quot;" was lost for
    # two ConfigMaps of a List written escaped)
    more = len(read.objects) - len(dump.objects)
    kept = {(o.kind, o.namespace, o.name) for o in dump.objects} <= {(o.kind, o.namespace, o.name) for o in read.objects}
    if not kept or more < 0 or (more == 0 and worse):
        return _escapes_said(dump, text)
    said = (
        "read as the text of a terminal's copy as HTML: its tags (<pre>, <font>) set aside, and &lt;, &gt; and &amp; read"
        " as the <, > and & they stand for"
        if wrapped
        else "read with &lt;, &gt; and &amp; as the <, > and & they stand for: the text was HTML-escaped as a whole (by a"
        " chat's API such as Slack's Events API, a terminal's copy as HTML, or a web page)"
    )
    read.notes.insert(0, f"{name}: {said}")
    return read


def _escapes_said(dump: Dump, text: str) -> Dump:
    """``dump``, read from ``text`` as it is, with a word of HTML's escapes in each input error that quotes one, or in
    each where the text holds one (trial 56: "note: &gt;", a YAML folded scalar, failed with no word of them)."""
    escaped = bool(dump.errors) and bool(_HTML_ESCAPE.search(text))
    for i, error in enumerate(dump.errors):
        if escaped or _HTML_ESCAPE.search(error.reason):
            dump.errors[i] = dataclasses.replace(error, reason=f"{error.reason} ({_ESCAPED})")
    return dump


#: A Markdown link: ``[nvidia.com/TU104GL_Tesla_T4](http://nvidia.com/TU104GL_Tesla_T4)``.
#: A Markdown link where a YAML value starts, unquoted (after ``key:``, ``-`` or the line's indent), which YAML reads
#: as a flow sequence: one inside a quoted value is the value's own and breaks nothing (trial 148).
_MARKDOWN_LINK = re.compile(r"(?:^\s*|:\s+|-\s+)(\[[^\[\]\n]+\]\(https?://[^()\s]+\))")


def _links_said(errors: list[InputError], text: str) -> list[InputError]:
    """``errors`` with a word of the Markdown link on the line of each (or on the line before it, where YAML notices):
    GitHub's editor turns text that looks like a domain into one (trial 145: ``resourceName: [nvidia.com/TU104GL_Tesla_T4]
    (http://nvidia.com/TU104GL_Tesla_T4)`` in YAML pasted without a fence was a bare YAML syntax error)."""
    if "](http" not in text:
        return errors
    lines = text.split("\n")
    said = []
    for error in errors:
        line = error.source.line
        found = next(
            ((n, m.group(1)) for n in (line, line - 1) if 0 < n <= len(lines) and (m := _MARKDOWN_LINK.search(lines[n - 1]))),
            None,
        )
        if found is not None:
            hint = (
                f"line {found[0]} holds a Markdown link, {found[1]}: GitHub may have turned the text into a link; write"
                " the value as it was, and paste YAML in a code block"
            )
            error = dataclasses.replace(error, reason=f"{error.reason} ({hint})")
        said.append(error)
    return said


def _timestamps_said(errors: list[InputError], text: str) -> list[InputError]:
    """``errors`` with a word of the timestamps a log collector wrote before the lines of ``text`` where half of them
    or more start with one and they could not all be taken off (trial 145: such a paste was "not a Kubernetes object:
    a number", read as a JSON List, which sent the reader looking in the wrong place)."""
    stamped, written, first = pastes.timestamped(text)
    if stamped < 2 or stamped * 2 < written:
        return errors
    hint = (
        f"{stamped:,} of its {written:,} lines start with a timestamp, such as '{first}', as a log collector writes one:"
        " take that column off before pasting"
    )
    return [dataclasses.replace(e, reason=f"{e.reason} ({hint})") for e in errors]


#: How HTML writes ``&``, ``<`` and ``>``: in a message's text from Slack's Events API, a terminal's copy as HTML, a web page.
_HTML_ESCAPE = re.compile(r"&(?:amp|lt|gt);")
_ESCAPED = (
    "&lt;, &gt; and &amp; are how HTML writes <, > and &, as a chat's API such as Slack's Events API, a terminal's copy as"
    " HTML or a web page gives text: undo them before posting"
)


#: A last line a chat client or a person adds after a paste: Slack's "(edited)", an ellipsis that marks a cut.
#: Indented, it may be data (the last line of a block scalar: trial 126): ``_parse_chat_or_text`` tries that first.
_TAIL_MARK = re.compile(rf"[ \t]*(?:\(edited\)|{describe.CUT_MARK.pattern})[ \t]*\r?", re.IGNORECASE)


def _without_tail_marks(text: str) -> tuple[str, list[str]]:
    """The text without the chat marks on its last lines (``_TAIL_MARK``: blank lines instead, so that every line
    keeps its number), and the marks, in text order; the text as it is and [] when it ends in none. Only its last
    bytes are looked at: a dump of hundreds of MB is not copied to find none."""
    tail = text[-1024:]
    kept = tail.rstrip()
    marks: list[str] = []
    while (cut := kept.rfind("\n")) >= 0 and _TAIL_MARK.fullmatch(kept[cut + 1 :]):
        marks.insert(0, kept[cut + 1 :].strip())
        kept = kept[:cut].rstrip()
    if not marks or (len(text) == len(tail) and not kept.strip()):
        return text, []
    removed = tail[len(kept) :]
    return text[: len(text) - len(removed)] + "\n" * removed.count("\n"), marks


def _describe_errors(dump: Dump, errors: list[InputError]) -> None:
    """``errors`` of describe text into ``dump``: a node's text ending before its pods' table (``PodsNotShown``) as a
    note, the others as input errors."""
    for e in errors:
        if isinstance(e, describe.PodsNotShown):
            dump.notes.append(f"{e.source}: {e.reason}")
        else:
            dump.errors.append(e)


def _cut_at_mark(dump: Dump, marks: list[str], body: str, mark_line: int = 0) -> None:
    """Where a text ends with an ellipsis ``…`` (a mark of a cut: no YAML or JSON writer puts one there; YAML's own
    document end ``...`` is not one) and its last object's status lacks a key that every other object of its kind in
    the text has in its status, that object is taken to be cut inside its status, which kubectl writes last: it is not
    judged, and an input error says so (trial 171: a Node cut inside its status, "…" after it, was judged as
    advertising no GPU resource, which was false of the node, and the finding it was pasted for was lost). A whole last
    object before the mark (trial 124: "…" for "more I did not paste"), one without a status (a manifest), the only
    one of its kind, and a List's last item after which the List goes on (its kind or metadata, trial 172) are kept."""
    if not dump.objects:
        return
    last = dump.objects[-1]
    annotations = last.obj.get("metadata", {}).get("annotations") or {}
    cut_marks = [m for m in marks if describe.CUT_MARK.fullmatch(m)]
    if (
        cut_marks
        and last.kind == "Node"
        and describe.SOURCE_VALUE in str(annotations.get(describe.SOURCE_KEY, "")).split("+")
        and describe.PODS_LISTED_KEY not in annotations
        and not any(e.kind == "Pod" and f"node {last.name} " in e.reason for e in dump.errors)
    ):
        # a node of describe text, the mark after it (trial 216: '...' under its Allocatable was set aside unsaid); said
        # with the mark in place of the note the text without it got
        at = dataclasses.replace(last.source, line=mark_line, item=None) if mark_line else last.source
        said = describe.pods_not_shown(last.name, cut_marks[-1], at)
        # (the note describe gave it without the mark, as describe.pods_not_shown words it, is replaced)
        unmarked = f": {describe.pods_not_shown(last.name, '', at).reason}"
        dump.notes = [n for n in dump.notes if not n.endswith(unmarked)]
        dump.notes.append(f"{said.source}: {said.reason}")
        return
    if "\u2026" not in marks:
        return
    status = last.obj.get("status")
    peers = [o.obj for o in dump.objects[:-1] if o.kind == last.kind]
    if not peers or not isinstance(status, dict) or not status:
        return
    if last.source.item is not None and last.source.line:
        after = body.split("\n")[last.source.line :]
        if any(re.match(r"[A-Za-z_][\w-]*:", line) for line in after):
            return  # the List's own keys follow its items: nothing was cut inside them
    defaulted = last.name in set(dump.allocatable_defaulted)

    def keys(obj: dict[str, Any]) -> set[str]:
        held = obj.get("status")
        return {k for k, v in held.items() if v is not None} if isinstance(held, dict) else set()

    common = set.intersection(*(keys(p) for p in peers))
    own = keys(last.obj) - ({"allocatable"} if defaulted else set())  # given its capacity as read (_add_object)
    missing = [f"status.{k}" for k in sorted(common - own)]
    if not missing:
        return
    dump.objects.pop()
    named = [*missing[:3], f"{len(missing) - 3} keys more"] if len(missing) > 4 else missing
    shown = named[0] if len(named) == 1 else f"{', '.join(named[:-1])} and {named[-1]}"
    dump.errors.append(
        InputError(
            last.source,
            f"the text ends with '\u2026', the mark of a cut, and its last object, {last.kind} {last.name}, lacks {shown},"
            f" which every other {last.kind} of it has: it looks cut inside its status, and is not judged; paste it whole",
            kind=last.kind,
        )
    )


def _parse_chat_or_text(text: str, name: str, json_error: orjson.JSONDecodeError | None, marks_read: bool = False) -> Dump:
    # trial 124: a whole YAML node with Slack's "(edited)" after it was refused as "cut short?", a JSON one's was an
    # input error ("Expecting value"), and a cut list's "..." hid the cut-short hint: the marks are set aside, said
    quoted = aside = 0
    if not marks_read:
        text, quoted, aside = pastes.without_quotes(text)
        while quoted:  # a quote of a quote (trial 172: "> > apiVersion" said the note twice)
            text, inner, more = pastes.without_quotes(text)
            if not inner:
                break
            aside += more
        if quoted:
            json_error = None  # the JSON parser saw the quote markers
    if quoted:
        dump = _parse_chat_or_text(text, name, None)
        around = f", and {counted(aside, 'line')} of the reply's own text around it set aside" if aside else ""
        dump.notes.insert(
            0,
            f"{name}: read as a quoted message: the quote marker ('> ', as a chat client writes a quote or a reply) taken"
            f" off {counted(quoted, 'line')} before reading{around}",
        )
        return dump
    body, marks = (text, []) if marks_read else _without_tail_marks(text)
    if marks and text[len(body.rstrip()) :].lstrip("\r\n")[:1] in (" ", "\t"):
        # an indented one may be a block scalar's last line (trial 126): read as written where that reads whole
        whole = _parse_chat_or_text(text, name, json_error, marks_read=True)
        if not whole.errors:
            return whole
    if marks:
        dump = _parse_chat_or_text(body, name, None, marks_read=True)
        _cut_at_mark(dump, marks, body, text.rstrip().count("\n") + 1)
        if any(m != "..." for m in marks):  # "..." alone: YAML's own document end, or a cut the reader then says
            shown = ", ".join(f"'{m}'" for m in marks)
            dump.notes.append(
                f"{name}: its last line{'s' if len(marks) > 1 else ''} {shown} set aside (a chat mark, no part of a dump)"
            )
        return dump
    if json_error is not None and _BLOCK_PROMPT.match(text.lstrip("\ufeff\r\n").split("\n", 1)[0]):
        json_error = None  # "[root@host ~]# kubectl get ..." starts with "[" but is no JSON (trial 49)
    found = _code_blocks(text) if json_error is None else None
    if found is None and json_error is None:
        # A terminal paste without fences: what each command printed stands between its prompt lines (trial 49:
        # a prompt line after the YAML, or between a ClusterPolicy and a node, made the whole paste unreadable)
        stripped = _without_command(text)
        between = _prompt_blocks(stripped, read=len(stripped) != len(text))
        if between is not None:
            read = _read_blocks(between, 0, name)
            if read is not None:
                return read
    if found is None:
        if json_error is None:
            text, prose = _without_lead_text(_without_command(text))
            if prose:
                dump = _parse_unfenced(text, name, None)
                dump.notes.append(f"{name}: read from line {prose + 1}, where the dump starts: the text before it set aside")
                return dump
        return _parse_unfenced(text, name, json_error)
    blocks, outside = found
    if not blocks:  # a block left open (describe text sets fences aside itself)
        described = describe.looks_like_describe(text[:DESCRIBE_SNIFF_BYTES])
        return _parse_unfenced(text if described else _without_fences(text), name, None)
    blocks = [part for block in blocks for part in _split_at_prompts(block)]
    return _read_blocks(blocks, outside, name) or Dump(files_read=[name])


def _dump_after_describe(text: str) -> int | None:
    """The index of the line where YAML or JSON of objects starts right after describe text (no prompt line between:
    ``describe.stray_dump_line``), or None."""
    # (a paste's size: a large describe dump is read as it is; and only where a line could start one, so that describe
    # text alone is not cleaned twice, here and when it is read)
    if len(text) > HTML_RETRY_BYTES or not _DUMP_AT_LINE_START.search(text):
        return None
    return describe.stray_dump_line(text)


#: A line that could start YAML or JSON of objects after describe text (``describe._DUMP_START`` at a line's start).
_DUMP_AT_LINE_START = re.compile(r"^(?:\{|\[|apiVersion:|kind:[ \t]|---[ \t]*\r?$)", re.M)


def _prompt_blocks(text: str, read: bool = False) -> list[_Block] | None:
    """The parts of a terminal paste between its shell prompt lines (``$ kubectl get ...``, a last bare prompt),
    as code blocks at their lines; None when it has no prompt line. ``read``: the kubectl get line the paste started
    with was taken off (``_without_command``)."""
    if not _ANY_PROMPT.search(text):  # one scan, before a large dump is cut into lines
        return None
    # (trial 163: a paste with Windows line ends read its describe part as no dump, and the broken node passed)
    lines = text.replace("\r\n", "\n").split("\n")
    parts = _between_prompts(lines, read)
    if parts is None:
        return None
    # a kubectl describe part keeps its prompt line, which describe text reads past: it may name the node that a part
    # cut by grep does not (trial 156)
    # (and a kubectl get nodes part its prompt line, whose -L flags name the label columns' keys; a command that changes
    # objects its own, by which what it printed is set aside; kubectl get events its own, whose -n names the namespace)
    held = (_DESCRIBE_COMMAND, _LABEL_COLUMNS, _CHANGE_COMMAND, _EVENTS_COMMAND)
    kept = [a - 1 if a and any(c.match(lines[a - 1]) for c in held) else a for a, _ in parts]
    blocks = []
    for start, (a, end) in zip(kept, parts, strict=True):
        other = _other_command(lines[a - 1]) if a else None
        if other is not None:
            start = a - 1
        blocks.append(_Block(_PASTE, start, lines[start:end], fence=max(start, 1), other=other or ""))
    return blocks


def _between_prompts(lines: list[str], read: bool = False) -> list[tuple[int, int]] | None:
    """``(start, end)`` of each part of ``lines`` between their prompt lines that holds some text; None when no line
    is a prompt, or one is a command other than kubectl get or describe (nor one that changes objects) in a paste
    without a kubectl get or describe prompt line (``read``: one was taken off before it): the manifest ``kubectl
    apply -f -`` was given is no dump, and is left as it is."""
    marks = [i for i, line in enumerate(lines) if _BLOCK_PROMPT.match(line) or _BARE_PROMPT.fullmatch(line.rstrip("\r"))]
    if not marks:
        return None
    known = [
        _BARE_PROMPT.fullmatch(lines[i].rstrip("\r")) or _READ_COMMAND.match(lines[i]) or _CHANGE_COMMAND.match(lines[i])
        for i in marks
    ]
    if not all(known):
        # trial 206: after a kubectl get, "$ date" or "$ kubectl version" ended no part, and the last List item took
        # their lines into its YAML (a syntax error, the node lost). Another command's prompt line ends the part
        # before it, where it stands at the line's start (indented, it may be a line of a block scalar's script)
        if not read and not any(_READ_COMMAND.match(lines[i]) for i, k in zip(marks, known, strict=True) if k):
            return None
        marks = [i for i, k in zip(marks, known, strict=True) if k or not lines[i][:1].isspace()]
    starts, ends = [0, *(m + 1 for m in marks)], [*marks, len(lines)]
    # a command that changes objects pasted without what it printed stands as a part of its own, its prompt line alone
    # (trial 215: kubectl label between two copies of the node it relabelled was lost, and both were judged)
    return [
        (a, b)
        for a, b in zip(starts, ends, strict=True)
        if any(line.strip() for line in lines[a:b]) or (a and _CHANGE_COMMAND.match(lines[a - 1]))
    ]


#: A prompt line's command after the client and its flags: its verb (``kubectl --context prod version``: version).
_CLIENT_VERB = re.compile(_SHELL_PROMPT + _CLIENT + r"([A-Za-z][\w-]*)")
#: A command's program as a note names it, at most this many characters.
_PROGRAM_CHARS = 40


def _other_command(line: str) -> str | None:
    """The command of a prompt line at the line's start that is none of kubectl get or describe, a command that
    changes objects, or a bare prompt, as a note names it ("date", "kubectl version"); None for any other line."""
    prompt = _BLOCK_PROMPT.match(line)
    if prompt is None or line[:1].isspace() or _BARE_PROMPT.fullmatch(line.rstrip("\r")):
        return None
    if _READ_COMMAND.match(line) or _CHANGE_COMMAND.match(line):
        return None
    if (verb := _CLIENT_VERB.match(line)) is not None:
        return f"kubectl {verb.group(1)[:_PROGRAM_CHARS]}"
    words = line[prompt.end() :].split()
    program = next((w for w in words if not re.fullmatch(r"[A-Za-z_]\w*=\S*|sudo", w)), words[0] if words else "")
    return program[:_PROGRAM_CHARS]


def _split_at_prompts(block: _Block) -> list[_Block]:
    """A fenced block of a terminal paste with several commands (```` ```bash ```` then ``$ kubectl get node a``,
    its YAML, ``$ kubectl get node b``, its YAML), as one block per command's output, each at its lines; the block
    as it is otherwise (trial 56: such a block was read as one YAML text and refused)."""
    if sum(1 for line in block.lines if _BLOCK_PROMPT.match(line)) < 2:
        return [block]
    parts = _between_prompts(block.lines)
    if parts is None:
        return [block]
    # each part keeps its prompt line: a bash block's dump is read after one
    return [
        _Block(
            block.tag,
            block.first + max(a - 1, 0),
            block.lines[max(a - 1, 0) : b],
            block.fence,
            (_other_command(block.lines[a - 1]) or "") if a else "",
        )
        for a, b in parts
    ]


#: A prompt line whose command prints the cluster's objects.
_READ_COMMAND = re.compile(_SHELL_PROMPT + _CLIENT + r"(?:get|describe)\b")
#: The line a command that changes objects prints of each ("node/gpu-1 labeled", "node/gpu-1 cordoned").
_CHANGED_LINE = re.compile(
    r"[\w.-]+/\S+ (?:not )?(?:labeled|annotated|tainted|untainted|modified|cordoned|uncordoned|drained|scaled|evicted)"
    r"(?: \(dry run\))?[ \t]*\r?$"
)
#: A prompt line whose command changes an object and prints a line of its own (``node/gpu-1 labeled``), takes no
#: manifest after it (as ``kubectl apply -f -`` does): what it printed is set aside (``_change_command``), and the paste
#: is still read between its prompts (trial 202: a kubectl label line between describe text and a get nodes table read
#: the paste as describe text alone, and the table showing the relabel was dropped without a word). Group 1: its verb.
_CHANGE_COMMAND = re.compile(_SHELL_PROMPT + _CLIENT + r"(label|annotate|taint|cordon|uncordon|drain|scale)\b")
#: A --dry-run flag (``--dry-run``, ``--dry-run=client``, ``--dry-run=server``) in a command line.
_DRY_RUN = re.compile(r"[ \t]--dry-run(?:[= ]|$)")


def _change_command(block: _Block) -> tuple[int, re.Match[str]] | None:
    """The index in ``block.lines`` and the match of the prompt line of a command that changes objects, where a part of
    a paste is what it printed: the last prompt line before its first other line is such a command's; None otherwise.
    What it printed is no state of the cluster: a line of its own, or with --dry-run -o yaml the object as it would
    write it (trial 204: such a Node was judged beside the one kubectl get printed, as if the paste held two clusters)."""
    command = None
    for i, line in enumerate(block.lines):
        if _BLOCK_PROMPT.match(line):
            m = _CHANGE_COMMAND.match(line)
            command = (i, m) if m and not _prints_state(line, m.end()) else None
        elif line.strip():
            break
    return command


#: What on a change command's line makes its output the cluster's state (trial 208): a kubectl get or describe chained
#: after it (``kubectl label ... && kubectl get node x -o yaml``), or -o yaml/json without a dry run (the object as
#: the server wrote it).
_CHAINED_READ = re.compile(r"(?:&&|\|\||;)[ \t]*(?:sudo[ \t]+)?(?:kubectl|oc|k)\b[^|;&]*?[ \t](?:get|describe)\b")
_OUTPUT_OBJECT = re.compile(r"[ \t](?:-o|--output)(?:=|[ \t]+)(?:yaml|json)\b")


def _prints_state(line: str, at: int) -> bool:
    """True where the change command of ``line`` (its words from ``at``) prints the cluster's state: a kubectl get or
    describe chained after it, or -o yaml/json without a dry run."""
    head = re.split(r"&&|\|\||;|\|", line[at:], maxsplit=1)[0]
    return bool(_CHAINED_READ.search(line, at)) or bool(_OUTPUT_OBJECT.search(head) and not _DRY_RUN.search(head))


def _change_said(command: re.Match[str]) -> str:
    """A command that changes objects, as a note names it: "kubectl label", "kubectl label --dry-run"."""
    return f"kubectl {command.group(1)}" + (" --dry-run" if _DRY_RUN.search(command.string) else "")


#: The flags of the commands that change objects (kubectl label, annotate, taint, cordon, drain) that take the next
#: word as their value where no "=" joins them.
_VALUE_FLAGS = frozenset(
    {
        "-o", "--output", "-n", "--namespace", "--context", "--cluster", "--kubeconfig", "--user", "--template",
        "--resource-version", "--field-manager", "--grace-period", "--timeout", "--pod-selector", "--chunk-size",
    }
)  # fmt: skip
#: The flags by which such a command changes objects its command line does not name, or none.
_NOT_NAMED = frozenset(
    {
        "-l", "--selector", "--field-selector", "--all", "-A", "--all-namespaces", "-f", "--filename", "-k",
        "--kustomize", "--list",
    }
)  # fmt: skip
#: The words by which a command line names nodes (``kubectl label node``, ``nodes``, ``no``).
_NODE_WORDS = frozenset({"node", "nodes", "no"})


def _operands(command: re.Match[str]) -> list[str] | None:
    """The words of a command that changes objects (``command``: the match of its prompt line) after its verb that
    are neither flags nor a flag's value, as typed, up to a pipe, a redirection or the next command; None where a
    flag chooses the objects otherwise (a selector, --all, a file). kubectl takes flags anywhere (trial 208: kubectl
    label --overwrite node gpu-1 ... was no relabel)."""
    words = re.split(r"[ \t]+", re.split(r"[|;&<>]", command.string[command.end() :], maxsplit=1)[0].strip())
    operands: list[str] = []
    skip = False
    for word in (w.strip("'\"") for w in words):
        if skip or not word:
            skip = False
            continue
        flag = word.split("=", 1)[0]
        if flag in _NOT_NAMED:
            return None
        if word.startswith("-"):
            skip = flag == word and flag in _VALUE_FLAGS
        else:
            operands.append(word)
    return operands


def _relabelled(command: re.Match[str]) -> tuple[list[str], list[str]] | None:
    """The nodes a ``kubectl label node NAME... KEY=VALUE... KEY-...`` prompt line names and the label changes it
    makes, as typed; None for another command, a dry run, or nodes chosen otherwise (a selector, --all, a file)."""
    if command.group(1) != "label" or _DRY_RUN.search(command.string):
        return None
    words = _operands(command)
    if not words:
        return None
    kind, _, named = words[0].partition("/")  # the resource: the first word that is no flag nor a flag's value
    if kind not in _NODE_WORDS:
        return None
    nodes = [named] if named else []
    changes: list[str] = []
    for word in words[1:]:
        (changes if "=" in word or word.endswith("-") else nodes).append(word)
    return (nodes, changes) if nodes and changes else None


def _nodes_named(command: re.Match[str]) -> list[str]:
    """The nodes the command line of a command that changes objects names: ``kubectl label|annotate|taint node
    NAME... CHANGE...`` (a change holds "=" or ":", or ends in "-"), ``kubectl cordon|uncordon|drain NAME...``;
    none for a dry run, kubectl scale, another resource, or nodes chosen otherwise (a selector, --all, a file)."""
    verb = command.group(1)
    words = _operands(command)
    if not words or verb == "scale" or _DRY_RUN.search(command.string):
        return []
    if verb in ("cordon", "uncordon", "drain"):
        return words
    kind, _, named = words[0].partition("/")
    if kind not in _NODE_WORDS:
        return []
    nodes = [named] if named else []
    changes = False
    for word in words[1:]:
        if "=" in word or ":" in word or word.endswith("-"):
            changes = True
        else:
            nodes.append(word.partition("/")[2] if word.partition("/")[0] in _NODE_WORDS else word)
    return nodes if changes else []


#: The line a command that changes objects prints of a node: group 1 its name; group 2 "not " where it changed
#: nothing (kubectl label of a value the node has), group 3 " (dry run)".
_NODE_CHANGED = re.compile(
    r"[ \t]*node/(\S+) (not )?(?:labeled|annotated|tainted|untainted|modified|cordoned|uncordoned|drained)"
    r"( \(dry run\))?[ \t]*\r?$"
)


def _nodes_changed(command: re.Match[str], printed: list[str]) -> frozenset[str]:
    """The nodes a command that changes objects (``command``: the match of its prompt line) changed: those the lines it
    printed (``printed``) say it changed ("node/gpu-1 labeled"), where the paste holds what it printed (a warning on
    its standard error aside); else those its command line names (``_nodes_named``). None for a dry run, nor where
    what it printed says of none (an error: "already has a value ... --overwrite is false")."""
    if _DRY_RUN.search(command.string):
        return frozenset()
    if any(line.strip() and not _STDERR_LINE.match(line) for line in printed):
        said = (_NODE_CHANGED.match(line) for line in printed)
        return frozenset(m.group(1) for m in said if m is not None and not m.group(2) and not m.group(3))
    return frozenset(_nodes_named(command))


#: The nodes named, at most, by notes of copies set aside for a later one (``_set_aside_for_later``).
_SET_ASIDE_NAMED = 5


def _set_aside_for_later(changed: list[tuple[int, str, frozenset[str]]], dump: Dump, name: str) -> None:
    """Of each Node ``dump`` shows again after a command of the paste that changed it (``changed``: the line of each
    such command, the command as a note names it, the nodes it changed), the copies before the last such command:
    set aside, with a note (trial 204 #7: a node described before and after kubectl label was judged twice and said
    to be two clusters' text, "audit one cluster at a time"). The copies after it are the node's state. Where no such
    command stands between two copies of a node, both stand (and the report says they differ): nothing in the paste
    says that they are one cluster's at two times, and not two clusters' text."""
    nodes = frozenset().union(*(n for _, _, n in changed))
    placed: dict[str, list[int]] = {}
    for obj in dump.objects:
        if obj.kind == "Node" and obj.name in nodes and obj.source.file == name and obj.source.line:
            placed.setdefault(obj.name, []).append(obj.source.line)
    aside: set[tuple[str, int]] = set()
    notes: list[tuple[str, str]] = []  # each node's name and its note
    for node, lines in placed.items():
        # the last command that changed it before its last copy, and the copies before that command
        last = max(lines)
        at, said = max(((line, s) for line, s, n in changed if node in n and line < last), default=(0, ""))
        earlier = [line for line in lines if line < at]
        if not earlier:
            continue
        later = min(line for line in lines if line > at)
        aside.update((node, line) for line in earlier)
        where = ", ".join(map(str, earlier[:-1])) + f" and {earlier[-1]}"
        copies = f"copy (line {earlier[0]}) is" if len(earlier) == 1 else f"copies (lines {where}) are"
        note = (
            f"{name}: node {node} is shown before and after {said} (line {at}) on it: its earlier {copies} set aside, and"
            f" the later one (line {later}) stands as its state"
        )
        notes.append((node, note))
    if not aside:
        return
    dump.objects = [
        o for o in dump.objects if not (o.kind == "Node" and o.source.file == name and (o.name, o.source.line) in aside)
    ]
    dump.notes.extend(note for _, note in notes[:_SET_ASIDE_NAMED])
    if len(notes) > _SET_ASIDE_NAMED:
        rest = [node for node, _ in notes[_SET_ASIDE_NAMED:]]
        dump.notes.append(
            f"{name}: and {counted(len(rest), 'other node')} ({first_few(rest, _SET_ASIDE_NAMED)}) shown before and after"
            " a command that changed each: their earlier copies set aside likewise, the later ones standing as their state"
        )


def _relabel_notes(changes: list[tuple[int, re.Match[str]]], shown: list[KObject], name: str) -> list[str]:
    """A note for each node a kubectl label command of the paste (``changes``: its line, its match) relabelled after
    the last of the parts that show it (``shown``: the dump's Nodes and the table's rows): what is judged of it is
    its state before (trial 204: the findings' fix was the command the paste had run, and nothing said so)."""
    last: dict[str, int] = {}
    for obj in shown:
        if obj.kind == "Node" and obj.source.file == name:
            # (a place not known, line 0, is taken as the last: no note then)
            last[obj.name] = max(last.get(obj.name, 0), obj.source.line or 1 << 62)
    notes = []
    for line, command in changes:
        nodes, labels = _relabelled(command) or ([], [])
        for node in nodes:
            if 0 < last.get(node, 1 << 62) < line:
                notes.append(
                    f"{name}: node {node} was relabelled ({' '.join(labels)}, line {line}) after the text it is judged"
                    " by: what is said of it is its state before the relabel"
                )
    return notes


#: The tag of a part of a terminal paste (no Markdown info string holds a NUL).
_PASTE = "\x00paste"
#: A prompt alone on the last line of a terminal paste (``user@bastion:~$``), no command after it.
_BARE_PROMPT = re.compile(r"[ \t]*" + _PROMPT_BODY + r"[ \t]*")
#: A line that starts as a shell prompt at its first column, anywhere in a text: the one scan a text gets before it
#: is cut into lines (with the leading blanks _BLOCK_PROMPT allows, it took 2.9 s over 75 MiB; 0.36 s so).
_ANY_PROMPT = re.compile("^" + _PROMPT_BODY, re.M)


def _read_blocks(blocks: list[_Block], outside: int, name: str, how: str = "") -> Dump | None:
    """The dumps of ``blocks`` (Markdown code blocks, or the parts of a terminal paste between its prompts), each
    read at its lines; ``outside`` lines of text stand around them. None for a terminal paste none of whose parts
    is a dump (the caller reads it as it is). ``how``: the note that says how a paste was cut into its parts (by its
    prompt lines where not given)."""
    fenced = any(b.tag != _PASTE for b in blocks)
    dump = Dump(files_read=[name])
    tabled: list[tuple[dict[str, Any], Source]] = []
    table_notes: list[str] = []
    documents = 0
    prompts = 0
    stderr = 0
    other: list[_Block] = []
    parts: list[tuple[tuple[list[tuple[dict[str, Any], int]], list[str]] | None, str, int]] = []
    changes: list[tuple[int, re.Match[str]]] = []  # commands that change objects, what they printed set aside: line, match
    printed_aside: list[re.Match[str]] = []  # those of them whose output the paste holds
    # the commands that changed nodes, those whose output is read too (kubectl label ... && kubectl get node x -o yaml):
    # their line, the command as a note names it, the nodes they changed
    changed: list[tuple[int, str, frozenset[str]]] = []
    padding = _BLOCK_PADDING
    others: list[str] = []  # the commands other than kubectl get or describe whose output is set aside (trial 206)
    for block in blocks:
        if block.other:
            others.append(block.other)
            continue
        if (change := _change_command(block)) is not None:
            changes.append((block.first + change[0] + 1, change[1]))
            printed = block.lines[change[0] + 1 :]
            if any(line.strip() for line in printed):  # (one pasted without its output printed nothing to set aside)
                printed_aside.append(change[1])
            changed.append((block.first + change[0] + 1, _change_said(change[1]), _nodes_changed(change[1], printed)))
            continue
        at = block.dump_from()
        if at is None:
            other.append(block)
            continue
        # (trial 204 #7: a change command whose line prints the state after it changed a node shown before it too)
        prompt = next((i for i in range(at - 1, -1, -1) if _BLOCK_PROMPT.match(block.lines[i])), None)
        if prompt is not None and (chained := _CHANGE_COMMAND.match(block.lines[prompt])) is not None:
            nodes = _nodes_changed(chained, block.lines[prompt + 1 : at])
            changed.append((block.first + prompt + 1, _change_said(chained), nodes))
        prompts += sum(1 for line in block.lines[:at] if _BLOCK_PROMPT.match(line))
        stderr += sum(1 for line in block.lines[:at] if line.strip() and not _BLOCK_PROMPT.match(line))
        # describe text is read from its prompt line on, written "$ <command>" as describe text reads past it: it may
        # name the node (trial 156)
        lines = block.lines
        # (trial 204: and an events table from its own, whose -n names the namespace its rows do not)
        command = next(
            (i for i in range(at - 1, -1, -1) if _DESCRIBE_COMMAND.match(lines[i]) or _EVENTS_COMMAND.match(lines[i])), None
        )
        if command is not None:
            written = _BLOCK_PROMPT.sub("$ ", lines[command], count=1)
            # the lines kubectl wrote on its standard error between the two blank (trial 198)
            between = [line if _BLOCK_PROMPT.match(line) else "" for line in lines[command + 1 : at]]
            lines, at = [*lines[:command], written, *between, *lines[at:]], command
        shift = block.first + at
        # Read at its lines in the message: blank lines before it, so that the reasons' own places ("line 4,
        # column 1", "a flow mapping that starts at line 15") are the message's too; past a bound of them (a long
        # Markdown file of many blocks), the places are moved afterwards instead.
        padded = shift <= padding
        padding -= shift if padded else 0
        # its lines, each with its line end: a block its closing fence ends is whole, never cut short mid-line
        body = "".join(f"{line}\n" for line in lines[at:])
        text = "\n" * shift + body if padded else body
        if nodetable.is_table(body):
            # trial 156: kubectl get nodes -L ...'s table beside a node's describe text: the labels it shows
            asked = next((line for line in reversed(lines[:at]) if _BLOCK_PROMPT.match(line)), "")
            # (trial 168: what follows the table's rows without a prompt line of its own is read too)
            tabled_text, *after = [part for _, part in nodetable.split(text)] or [text]
            table = nodetable.parse(tabled_text, asked)
            if table is not None:
                parts.append((table, "", 0 if padded else shift))
                parts.extend((None, part, 0 if padded else shift) for part in after)
                continue
        parts.append((None, text, 0 if padded else shift))
    # the parts in order, once the tables' nodes are known: a node's describe part then says its labels are the table's
    labelled = frozenset(obj["metadata"]["name"] for table, _, _ in parts if table for obj, _ in table[0])
    for table, text, lines_moved in parts:
        moved = functools.partial(_moved_source, lines=lines_moved, documents=documents)
        if table is not None:
            tabled.extend((obj, moved(Source(name, 1, line))) for obj, line in table[0])
            table_notes.extend(table[1])
            continue
        part = _parse_unfenced(text, name, None, labelled)
        dump.objects.extend(KObject(o.obj, moved(o.source)) for o in part.objects)
        dump.errors.extend(dataclasses.replace(e, source=moved(e.source)) for e in part.errors)
        dump.notes.extend(part.notes)
        dump.labels_in_part |= part.labels_in_part
        documents += max([o.source.document for o in part.objects] + [e.source.document for e in part.errors] + [1])
    if any(nodes for _, _, nodes in changed):
        _set_aside_for_later(changed, dump, name)
    shown = [*dump.objects, *(KObject(obj, source) for obj, source in tabled)]
    if tabled:
        _add_table_nodes(tabled, table_notes, name, dump)
    dump.notes.extend(_relabel_notes(changes, shown, name))
    other_lines = sum(1 for b in other for line in b.lines if line.strip())
    if changes and len(other) + len(changes) + len(others) == len(blocks):
        # nothing else to read: said, where the text read whole would be judged by what the command printed
        reason = (
            f"what {_change_said(changes[0][1])} printed is set aside: a command that changes objects prints no state of"
            " the cluster, even in a dry run; paste what kubectl get ... -o yaml prints"
        )
        dump.errors.append(InputError(Source(name, 1, changes[0][0]), reason))
        return dump
    if others and len(other) + len(others) == len(blocks):
        first = next(b for b in blocks if b.other)
        reason = (
            f"{_others_said(others)} is set aside, and nothing else of it is a dump: a paste is read from what kubectl"
            " get or describe printed; paste what kubectl get ... -o yaml prints"
        )
        dump.errors.append(InputError(Source(name, 1, first.first + 1), reason))
        return dump
    if len(other) == len(blocks) and not fenced:
        return None
    if len(other) == len(blocks):
        what = counted(len(blocks), "Markdown code block")
        reason = (
            f"none of its {what} starts as a dump (YAML or JSON of objects, describe text or a kubectl table, after"
            f" any prompt lines; a bash or sh block only after one, or where its first line is apiVersion:, kind:,"
            f" Name: or a table's header): {outside + other_lines} lines set aside"
        )
        dump.errors.append(InputError(Source(name, 1, blocks[0].fence), reason))
        return dump
    # a terminal paste's parts are not Markdown blocks: its text before a prompt is a part that is no dump (trial
    # 51: "read inside its Markdown code blocks" was said of a file without a fence)
    other_what = "other block" if fenced else "part of text that is no dump"
    counts = (
        (outside, "line", " of text around them"),
        (prompts, "prompt line", ""),
        (stderr, "line", " kubectl wrote on its standard error (klog messages, Warning:)"),
        (len(other), other_what, ""),
    )
    aside = [counted(n, noun) + tail for n, noun, tail in counts if n]
    # beside objects the paste holds, a table kubectl get printed (kubectl get pods) is a look at them, set aside, not
    # part of the dump lost (trial 213: it was an input error, exit 1, and every finding said a part was not read);
    # alone, it stays the error that says to print objects
    tables = [e for e in dump.errors if e.reason.startswith(_GET_TABLE)] if dump.objects else []
    if tables:
        dump.errors = [e for e in dump.errors if e not in tables]
        table_lines = ", ".join(str(e.source.line) for e in tables)
        one = len(tables) == 1
        aside.append(
            f"{counted(len(tables), 'table')} kubectl get printed (line{'' if one else 's'} {table_lines}), which hold"
            f"{'s' if one else ''} no object"
        )
    if printed_aside:
        aside.append(_changes_said([_change_said(command) for command in printed_aside]))
    if others:
        aside.append(_others_said(others))
    listed = ", ".join(aside[:-1]) + (" and " if len(aside) > 1 else "") + aside[-1] if aside else ""
    if fenced and aside:
        dump.notes.append(f"{name}: read inside its fenced Markdown code blocks; set aside: {listed}")
    elif not fenced:
        how = how or f"{name}: read as a terminal paste, what each command printed between its prompt lines"
        dump.notes.append(f"{how}; set aside: {listed}" if aside else how)
    return dump


def _changes_said(changes: list[str]) -> str:
    """The set-aside output of commands that change objects, as the note says it: "what kubectl label printed (no state
    of the cluster)", "what 2 commands that change objects printed (kubectl label, kubectl taint --dry-run: ...)"."""
    if len(changes) == 1:
        why = "a dry run: no state of the cluster" if changes[0].endswith("--dry-run") else "no state of the cluster"
        return f"what {changes[0]} printed ({why})"
    commands = ", ".join(dict.fromkeys(changes))
    return f"what {len(changes)} commands that change objects printed ({commands}: no state of the cluster)"


#: The commands a note names, at most, of those whose output is set aside.
_OTHERS_NAMED = 5


def _others_said(others: list[str]) -> str:
    """The set-aside output of commands other than kubectl get or describe, as a note says it: "what date printed (not
    kubectl get or describe)", "what 3 other commands printed (date, echo: not kubectl get or describe)"; at most
    ``_OTHERS_NAMED`` commands are named."""
    if len(others) == 1:
        return f"what {others[0]} printed (not kubectl get or describe)"
    named = list(dict.fromkeys(others))
    commands = ", ".join(named[:_OTHERS_NAMED]) + (
        f" and {len(named) - _OTHERS_NAMED} more" if len(named) > _OTHERS_NAMED else ""
    )
    return f"what {len(others)} other commands printed ({commands}: not kubectl get or describe)"


#: Blank lines, at most, put before the code blocks of one text so that each is read at its lines.
_BLOCK_PADDING = 16 << 20


#: The command a paste starts with: ``$ kubectl get node x -o yaml``, ``[root@host ~]# oc get nodes -o json``.
_COMMAND_LINE = re.compile(_SHELL_PROMPT + _CLIENT + r"get\b[^\n]*")
#: A prompt line whose command prints kubectl describe text.
_DESCRIBE_COMMAND = re.compile(_SHELL_PROMPT + _CLIENT + r"describe\b")
#: A prompt line whose command prints the events table (``kubectl get events``, ``ev``, ``event``).
_EVENTS_COMMAND = re.compile(_SHELL_PROMPT + _CLIENT + r"get[ \t]+(?:events?|ev)\b")
#: A kubectl get command line that prints label columns (-L, --label-columns, --show-labels).
_LABEL_COLUMNS = re.compile(_SHELL_PROMPT + _CLIENT + r"get\b.*\s(?:-L|--label-columns|--show-labels)")


def _without_command(text: str) -> str:
    """The text without the ``kubectl get`` command line pasted before what it printed (a blank line in its
    place: lines keep their numbers); the text as it is when it does not start with one."""
    lead = len(text) - len(text.lstrip("\n\r\ufeff "))
    command = _COMMAND_LINE.match(text, lead)
    if command is None and (change := _CHANGE_COMMAND.match(text, lead)) is not None:
        # (trial 208: kubectl label ... && kubectl get node x -o yaml prints the node after the relabel)
        line = _REST_OF_LINE.match(text, lead)
        command = line if line is not None and _prints_state(line.group(), change.end() - lead) else None
    if command is None or "\n" not in text[command.end() :][:2] or _LABEL_COLUMNS.match(command.group()):
        return text  # (a command's -L flags name the keys of the label columns it prints: kept for the table)
    if _EVENTS_COMMAND.match(command.group()):
        return text  # (and kubectl get events' -n the namespace of the rows it prints: kept for the events table)
    return text[:lead] + text[command.end() :]


#: The rest of a line, from where it is matched.
_REST_OF_LINE = re.compile(r"[^\n]*")
#: Lines of a chat message's text, at most, set aside before a dump pasted without a code fence.
_LEAD_TEXT = 20


def _without_lead_text(text: str) -> tuple[str, int]:
    """The text with the sentences pasted before a dump without a code fence ("Here is my node:") as blank lines,
    and the 0-based line where the dump starts; the text as it is (and 0) unless a few lines of text that starts no dump come
    before a line that does (a YAML key, JSON, describe text's ``Name:``)."""
    # lines kubectl wrote on its standard error do not count towards the bound (trial 201: 20 klog lines of a broken
    # APIService before the YAML lost the object)
    at, i, prose, written, stderr = 0, 0, 0, 0, False
    while prose <= _LEAD_TEXT and at <= len(text):
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        line = text[at:end]
        if _DUMP_LINE.match(line) and not _STDERR_LINE.match(line):
            return ("\n" * i + text[at:], i) if written else (text, 0)
        if _BLOCK_PROMPT.match(line):
            return text, 0
        if line.strip():
            written += 1
            # a line kubectl wrote on its standard error, or a line after one (its message's next: "To learn more")
            stderr = stderr or bool(_STDERR_LINE.match(line))
            prose += not stderr
        at, i = end + 1, i + 1
    return text, 0


def _moved_source(source: Source, lines: int, documents: int) -> Source:
    return Source(source.file, source.document + documents, source.line + lines if source.line else 0, source.item)


def _add_table_nodes(tabled: list[tuple[dict[str, Any], Source]], notes: list[str], name: str, dump: Dump) -> None:
    """The Nodes a kubectl get nodes table shows (``nodetable``): each one's labels added to the Node of the same
    name the dump holds (those it has already stay), else the Node as the table shows it; a note says how."""
    held = {o.obj["metadata"].get("name"): o for o in dump.objects if o.kind == "Node"}
    merged = 0
    for obj, source in tabled:
        kept = held.get(obj["metadata"]["name"])
        if kept is None:
            dump.objects.append(KObject(obj, source))
            continue
        into = kept.obj
        # the later of the two where both are placed: a terminal paste's commands ran in its order (trial 198: the
        # table printed after the describe text was set aside for the older value)
        later = 0 < kept.source.line < source.line and kept.source.file == source.file
        earlier = 0 < source.line < kept.source.line and kept.source.file == source.file
        labels = into["metadata"].setdefault("labels", {})
        # (an object that lists labels lists them all; a describe fragment cut out by grep lists none, or some: trial
        # 204, grep -A9 'Labels|Capacity' printed the first nine, and the table's tenth was judged removed)
        listed = earlier and bool(labels) and kept.name not in dump.labels_in_part
        if isinstance(labels, dict):
            for key, value in obj["metadata"]["labels"].items():
                if listed and key not in labels:
                    # trial 201: the object after the table, which lists every label, shows this one gone
                    dump.notes.append(
                        f"{name}: node {obj['metadata']['name']}'s label {key} is {value} in the kubectl get nodes table"
                        f" ({source}) and not among the labels its describe text or YAML after it lists: the label was"
                        " removed between the two commands; judged without it, as the later shows"
                    )
                    continue
                # (trial 169: a row reading container beside describe text reading vm-vgpu was merged without a word)
                if labels.setdefault(key, value) != value:
                    older = labels[key]
                    if later:
                        labels[key] = value
                    dump.notes.append(
                        f"{name}: node {obj['metadata']['name']}'s label {key} is {older} in its describe text or"
                        f" YAML and {value} in the kubectl get nodes table ({source}): the node was relabelled between the"
                        f" two commands, or the paste holds two clusters' text; judged as {labels[key]}"
                        + (", the table's, which stands after it" if later else "")
                    )
        if obj.get("spec", {}).get("unschedulable") and isinstance(into.setdefault("spec", {}), dict):
            into["spec"].setdefault("unschedulable", True)
        merged += 1
    alone = len(tabled) - merged
    how = [f"{merged} merged into the node of the same name the dump holds"] if merged else []
    how += [f"{alone} judged with those labels alone (no status: the rules that read one skip them)"] if alone else []
    said = "; ".join(notes)
    dump.notes.append(
        f"{name}: a kubectl get nodes table is read for the labels it shows, {counted(len(tabled), 'node')}:"
        f" {', '.join(how)}{f'; read {said}' if said else ''}"
    )


def _parse_around_tables(parts: list[tuple[bool, str]], name: str, labelled: frozenset[str]) -> Dump:
    """A text of kubectl get nodes tables and other text without a prompt line between (``nodetable.split``'s parts):
    each other part read as a text of its own, then the tables' nodes added (trial 168: describe text after a table
    was dropped, and the broken node it showed was missed, exit 0)."""
    dump = Dump(files_read=[name])
    read = [(nodetable.parse(part) if is_table else None, part) for is_table, part in parts]
    labelled |= frozenset(obj["metadata"]["name"] for table, _ in read if table for obj, _ in table[0])
    tabled: list[tuple[dict[str, Any], Source]] = []
    notes: list[str] = []
    for table, part in read:
        if table is not None:
            tabled.extend((obj, Source(name, 1, line)) for obj, line in table[0])
            notes.extend(table[1])
            continue
        other = _parse_unfenced(part, name, None, labelled)  # a table that shows no label too, read as the text it is
        dump.objects.extend(other.objects)
        dump.errors.extend(other.errors)
        dump.notes.extend(other.notes)
        dump.labels_in_part |= other.labels_in_part
    if tabled:
        _add_table_nodes(tabled, notes, name, dump)
    return dump


def _parse_unfenced(
    text: str, name: str, json_error: orjson.JSONDecodeError | None, labelled: frozenset[str] = frozenset()
) -> Dump:
    """A text without code fences; ``labelled``: the nodes a kubectl get nodes table beside it gives labels to."""
    if json_error is None and not _looks_like_json(text) and len(parts := nodetable.split(text)) > 1:
        return _parse_around_tables(parts, name, labelled)
    if json_error is None and nodetable.is_table(text) and (table := nodetable.parse(text)) is not None:
        dump = Dump(files_read=[name])
        _add_table_nodes([(obj, Source(name, 1, line)) for obj, line in table[0]], table[1], name, dump)
        return dump
    if json_error is None and (events := _EVENTS_HEADER.match(text)):
        line = text.count("\n", 0, events.start(2)) + 1
        columns = re.split(r"\s{2,}", events.group(2).strip())
        reason = _events_table(columns, text, events.group(1) or "")
        return Dump(files_read=[name], errors=[InputError(Source(name, 1, line), reason)])
    if json_error is None and _looks_like_json(text):
        parsed = _parse_json(text, name)
        if isinstance(parsed, Dump):
            return parsed
        json_error = parsed  # not JSON after all: maybe flow-style YAML, tried below
    # JSON that ends inside a value (cut short) is no YAML either, whose flow collections must close too: YAML
    # is not tried (trial 68: 11 s to refuse 22 MB of unterminated JSON, most of it the YAML parser's)
    cut = json_error is not None and json_error.pos >= len(text.rstrip())
    # The items of a JSON List that does not parse are read one at a time: before YAML when it is not tried or
    # large (minutes over hundreds of MB of what is JSON as kubectl printed it), else where YAML reads nothing.
    early = json_error is not None and (cut or len(text) >= ITEMS_APART_FROM)
    salvaged = _salvage_items(text, name, json_error) if early and json_error is not None else None
    if salvaged is not None:
        return salvaged
    dump = Dump(files_read=[name]) if cut else _parse_yaml_or_describe(text, name, labelled)
    if json_error is not None and not early and not dump.objects:
        salvaged = _salvage_items(text, name, json_error)
        if salvaged is not None:
            return salvaged
    if cut and json_error is not None:
        where = f"line {json_error.lineno}, column {json_error.colno}"
        # what the object looks like, as a List item cut short is named (trial 216: a Node cut inside its status was
        # no kind, and the report's note counted the Pods kept out without it)
        kind, named, ref = _item_named(text, len(text) - len(text.lstrip()), len(text))
        if kind.endswith("List"):
            kind, named, ref = "", "", ""
        reason = f"JSON syntax error{named}: {json_error.msg} ({where}): the text ends inside a value (cut short?)"
        dump.errors.append(InputError(Source(name, 1, json_error.lineno), reason, kind=kind, ref=ref))
        return dump
    if json_error is not None and dump.errors:
        # JSON values one after another, one of them broken (the first, even): read as such, the values around
        # it are kept, where YAML stops at the second ("expected <document start>")
        read = _parse_json_values(text, name)
        if read is not None and read[0].objects and len(read[0].objects) >= len(dump.objects):
            return read[0]
    opened = len(text) - len(text.lstrip()) + 1  # just past the opening bracket
    if json_error is not None and json_error.pos > opened and dump.objects:
        # meant as JSON (the JSON parser got past its opening) and read as YAML, which takes a trailing comma or a #
        # comment: said, so that a tool that writes it learns its JSON is not (trial 90: accepted without a word);
        # where YAML then stopped too (a brace too many after a trailing comma), its error follows (trial 211: only
        # YAML's words were said of a JSON body)
        # (trial 212: not where the error is of a value YAML read, a quantity that is none)
        stopped = any(e.reason.startswith("YAML syntax error") for e in dump.errors)
        taken = "which takes what comes before its syntax error" if stopped else "which takes it"
        dump.notes.append(
            f"{name}: not valid JSON ({json_error.msg}, line {json_error.lineno}, column {json_error.colno}); read as"
            f" YAML, {taken}"
        )
    if json_error is not None and json_error.pos > opened and not dump.objects and dump.errors:
        # Neither JSON nor YAML, and the JSON parser got past the opening token ('{"kind": "Node", ' cut short):
        # it was meant as JSON, and the JSON parser's place and words say what is wrong (a YAML error about
        # "node content" confuses whoever sent JSON). '{kind: Node' fails JSON at once: YAML's error stands.
        reason = f"JSON syntax error: {json_error.msg} (line {json_error.lineno}, column {json_error.colno}); not YAML either"
        dump.errors = [InputError(Source(name, 1, json_error.lineno), reason)]
    return dump


def _parse_yaml_or_describe(text: str, name: str, labelled: frozenset[str] = frozenset()) -> Dump:
    dump = Dump(files_read=[name])
    # After JSON: a pasted prompt such as "[root@node003 ~]# kubectl describe node" starts with "[" too.
    # Detection reads a bounded head only: a 50 MiB YAML dump must not be cleaned line by line first.
    described = describe.looks_like_describe(text[:DESCRIBE_SNIFF_BYTES])
    fragment = None if described else describe.describe_fragment(text[:DESCRIBE_SNIFF_BYTES])
    # trial 145: three of ten real threads pasted a node's Capacity and Allocatable alone (the pack's own fix prints
    # them with grep), and were refused as naming no node: a careful reader answers from them
    resources = describe.holds_resources(fragment)
    if described or resources:
        stray = _dump_after_describe(text)
        if stray is not None:
            # trial 232 #1: a paste of describe text, then a ClusterPolicy's and a pending Pod's YAML with no prompt
            # line between, read the nodes alone; each part is read as a terminal paste's parts are
            parts = text.replace("\r\n", "\n").split("\n")
            how = (
                f"{name}: read as kubectl describe text, then the YAML or JSON from line {stray + 1} (no prompt line"
                " between them: each command's output after its own prompt line reads as surely)"
            )
            read = _read_blocks([_Block(_PASTE, 0, parts[:stray]), _Block(_PASTE, stray, parts[stray:])], 0, name, how)
            if read is not None and read.objects:
                return read
        objects, errors = describe.parse_describe_nodes(text, name, unnamed=resources, labels_in_part=dump.labels_in_part)
        for obj, line in objects:
            _default_allocatable(obj, dump)  # (trial 102: describe text without an Allocatable section)
            # (trial 158: said as "document 1, items[3]", no List's item; its input errors said "document 3")
            dump.objects.append(KObject(obj, Source(name, 1, line)))
        _describe_errors(dump, errors)
        if resources and fragment is not None and (nodes := [o["metadata"]["name"] for o, _ in objects if o["kind"] == "Node"]):
            headers = fragment[1]
            # (trial 156: the note is what says the verdict is of part of a node: short enough for a chat message)
            sections = ", ".join(headers)
            if len(nodes) == 1:
                tabled = nodes[0] in labelled  # its labels from a kubectl get nodes table beside it
                left = [
                    h for h in ("Labels", "Taints", "Non-terminated Pods") if h not in headers and (h, tabled) != ("Labels", True)
                ]
                named = nodes[0] != "NODE"  # by the prompt line before it
                what = f"node {nodes[0]}, as its prompt line names it" if named else "a node called NODE here (it names none)"
                what += "; its labels are the table's" if tabled else ""
                noun = "section" if len(left) == 1 else "sections"  # (trial 160: "no Taints, Non-terminated Pods section")
                judged = f"; it holds no {', '.join(left)} {noun}: the rules that read them judge it as if it had none"
                judged = judged if left else ""
                whole = "it"
            else:  # (which part lacks which section is not said: the sections of one part only are what it shows)
                what = f"{len(nodes)} nodes called {first_few(nodes, 3)} here (it names none)"
                judged = "; what of their Labels, Taints and Non-terminated Pods it does not show, the rules judge as if absent"
                whole = "each"
            # (the advice first: a chat message cuts a long note, trial 156)
            dump.notes.append(
                f"{name}: only part of kubectl describe node output ({sections}; no Name: line): paste the whole output"
                f" to judge {whole} whole. Read as {what}{judged}"
            )
        if pods := sum(o["kind"] == "Pod" for o, _ in objects):
            # (trial 134: "6 objects judged" for three pasted nodes made a reader look twice)
            nodes = len(objects) - pods
            dump.notes.append(
                f"{name}: read as kubectl describe node text: {counted(nodes, 'Node')}, and {counted(pods, 'Pod')} rebuilt"
                " from their Non-terminated Pods tables (namespace, name, CPU and memory only)"
            )
        return dump
    other = describe.other_describe(text[:DESCRIBE_SNIFF_BYTES])
    if other is not None:
        kind, named, namespace, line = other
        said = describe.other_describe_reason(kind, named, namespace, text[:DESCRIBE_SNIFF_BYTES])
        dump.errors.append(InputError(Source(name, 1, line), said))
        return dump
    if fragment is not None:
        line, headers, kind = fragment
        paste = {
            "node": "whole output of kubectl describe node NAME",
            "pod": "pod as kubectl get pod NAME -n NAMESPACE -o yaml prints it",
            "": "object as kubectl get ... -o yaml prints it",
        }[kind]
        reason = (
            f"part of kubectl describe {kind + ' ' if kind else ''}output (its {', '.join(headers)}"
            f" section{'s' if len(headers) > 1 else ''}, without the Name: line the output starts with: cut by grep,"
            f" or by hand?), which names no {kind or 'object'} to judge: paste the {paste}"
        )
        dump.errors.append(InputError(Source(name, 1, line), reason))
        return dump
    lines: list[str] | None = None  # split once, and only for a broken document of a List as kubectl writes it
    bounds: _DocumentBounds | None = None  # the same, for the kind of a broken document
    listed = "\nitems:\n- " in text
    read_items, lists = (0, 0), 0  # the items of broken Lists read one at a time, of how many; in how many Lists
    for doc in load_documents(text, lean=True):
        source = Source(name, doc.number, doc.line)
        if doc.error:
            salvaged = None
            if listed and doc.line:
                lines = text.splitlines() if lines is None else lines
                items = _salvage_yaml_items(lines, doc.number, doc.line, name, doc.error)
                if items is not None:
                    salvaged = items[0]
                    read_items = (read_items[0] + items[1], read_items[1] + items[2])
                    lists += 1
            if salvaged is None:
                kind, named, ref = "", "", ""
                if doc.line and doc.error.startswith(_DOCUMENT_ERRORS):
                    # (of one document: not the stream's, as "more than N documents" or a dense stream refused whole)
                    bounds = _DocumentBounds(text) if bounds is None else bounds
                    kind, named, ref = _broken_document_named(bounds, doc.line, doc.start, doc.error.endswith(CUT_SHORT))
                dump.errors.append(InputError(source, doc.error + named, kind=kind, ref=ref))
            else:
                dump.extend(salvaged)
            continue
        if doc.duplicates:
            dump.errors.append(InputError(Source(name, doc.number, doc.duplicates[0][1]), _duplicate_reason(doc.duplicates)))
            continue
        if doc.odd_indent is not None:
            # trial 100: a label line indented with no-break spaces became a key of the Node, judged unlabelled
            key, line, space = doc.odd_indent
            dump.errors.append(
                InputError(
                    Source(name, doc.number, line),
                    f"line {line} is indented with {space}, which YAML does not take for spaces: its key {key!r} is read"
                    " in another mapping than its indentation puts it in (a chat client or a web page put them in the"
                    " pasted text); indent with spaces. The document is not judged",
                )
            )
            continue
        if doc.typographic is not None:
            # a note, not an input error: every value was read (trial 124: an all-good paste counted "1 input error"
            # and exited 1, so a bot could not say "all good")
            count, line = doc.typographic
            where = f"{name}, document {doc.number}, line {line}" if doc.number > 1 else f"{name}, line {line}"
            dump.notes.append(
                f"{where}: {counted(count, 'value')} written between typographic quotes (“…”, ‘…’), as a chat client or a"
                " word processor writes quotes, the first there: read as the quoted values they stand for (a value"
                " written “x” as x); paste YAML as a code block to keep its quotes"
            )
        _objects_of(doc.data, source, list(doc.items or ()), dump)  # (read lean: the items' lines come with it)
    if lists:  # one note for the file (trial 97: 20,000 broken Lists gave a note each)
        where = "" if lists == 1 else f" in {lists:,} Lists"
        dump.notes.append(
            f"the YAML of {name} does not parse whole: {read_items[0]:,} of its {read_items[1]:,} List items{where}"
            f" {'was' if read_items[0] == 1 else 'were'} read one at a time"
        )
    cut = _cut_mid_mapping(text)
    if cut and dump.objects:
        dump.errors.append(InputError(Source(name, 1, cut[1]), cut[0]))
    elif dump.objects and not dump.errors:
        dump.errors.extend(_cut_before_status(dump.objects) or _cut_mid_line(text, dump.objects[-1]))
    return dump


def _cut_mid_line(text: str, last: KObject) -> list[InputError]:
    """The input error of a text that ends without the line end kubectl writes after its last line, where its last
    object came from a cluster (metadata.uid): it was cut inside that object, whose last value may be cut too (trial
    98: head -c left a Node with status.capacity "cpu" and a label value "vm-pass", and both were judged as written).
    A file written by hand may lack the line end, and is not said to be cut."""
    meta = last.obj.get("metadata")
    if text.endswith(("\n", "\r")) or not isinstance(meta, dict) or not meta.get("uid"):
        return []
    reason = (
        f"the text ends without the line end kubectl writes after its last line: the dump looks cut short inside its last"
        f" object, {last.kind} {last.name}, which is judged with what is there; collect it again"
    )
    return [InputError(last.source, reason, kind=last.kind)]


def _cut_before_status(objects: list[KObject]) -> list[InputError]:
    """The input error of a file whose last object is a Node that came from a cluster (it has metadata.uid) without
    the status the API server always writes for one (or with ``status:`` and nothing after it): kubectl prints
    status last, so the text was likely cut at a line (trial 93: head -n made a Node lose its allocatable, and
    KubeVirt's permit was warned about as advertised by no node, with no input error and exit 0). Not where the
    file has no other Node with a status to tell a cut from an export stripped of them (trial 95, the review), nor
    for a Pod: a lab's hand-built pods copy a cluster's metadata without a status (examples/lab-cluster.yaml)."""
    last = objects[-1]
    obj, meta = last.obj, last.obj.get("metadata")
    if last.kind != "Node" or obj.get("status") is not None or not isinstance(meta, dict) or not meta.get("uid"):
        return []
    others = [o for o in objects[:-1] if o.kind == "Node"]
    if all(o.obj.get("status") is None for o in others):
        return []  # the only Node, or none of them with a status: an export stripped of them may be so too
    reason = (
        f"the last object, {last.kind} {last.name}, came from a cluster (it has metadata.uid) but has no status, which"
        " the API server always writes and kubectl prints last: the dump looks cut short (at a line), and the object is"
        " judged with what is there; collect it again"
    )
    return [InputError(last.source, reason)]


#: An item's first line in a YAML List as kubectl writes it, at the left margin with its first key (apiVersion;
#: kind in one written by hand): a line of an item dedented to the margin (trial 97: "- --bar", an argument) is not one.
_YAML_ITEM = re.compile(r"^- (apiVersion|kind):")


def _salvage_yaml_items(lines: list[str], number: int, at: int, name: str, error: str) -> tuple[Dump, int, int] | None:
    """The items of a YAML List (document ``number`` of ``lines``, whose error ``error`` is at line ``at``) that does
    not parse, read one at a time, as kubectl lays them out: ``items:`` at the left margin, each item starting there
    with ``- apiVersion:`` (or ``- kind:``) and indented two spaces under it (trial 95: one mis-indented item lost
    every object of a kubectl -o yaml List). The item the error is in is that item's input error, at its line and
    named where its kind and metadata.name are found. With the items read and how many there are; None when the
    document has no such layout, when no item parses, or when the error is in no item that does not parse (a line
    dedented to the margin ends the items early: the document's own error then stands, and nothing after it is
    taken for read). Reads the document's lines only: a stream of many broken documents costs each its own lines
    (review: whole-text splits made it quadratic)."""
    start = next((i + 2 for i in range(min(at, len(lines)) - 1, -1, -1) if lines[i].startswith("---")), 1)
    end = next((i for i in range(start - 1, len(lines)) if lines[i].startswith("---")), len(lines))
    body = lines[start - 1 : end]
    opened = next((i for i, line in enumerate(body) if line == "items:"), None)
    if opened is None:
        return None
    starts: list[int] = []
    stop = len(body)
    for i in range(opened + 1, len(body)):
        line = body[i]
        if _YAML_ITEM.match(line):
            starts.append(i)
        elif line.startswith(("kind:", "metadata:")):
            stop = i  # the List's own keys after its items; any other line at the margin (a "- " that starts no
            break  # item, a line of an item dedented to it: trial 98) is part of the item above
    if len(starts) < 2:
        return None
    dump = Dump()
    placed = False
    for n, (first, last) in enumerate(zip(starts, [*starts[1:], stop], strict=True)):
        item = [line[2:] for line in body[first:last]]
        where = Source(name, number, start + first, n)
        [doc, *_] = [*load_documents("\n".join(item)), None]
        if doc is not None and not doc.error and isinstance(doc.data, dict) and isinstance(doc.data.get("kind"), str):
            _list_item(doc.data, {}, where, f"$.items[{n}]", dump)
            continue
        inside = start + first <= at < start + last
        placed = placed or inside
        why = error if inside else "YAML syntax error" if doc is not None and doc.error else f"list item is {NOT_AN_OBJECT}"
        if inside:  # at the error's own line, which its words are of (trial 178: the item's first line, "which starts
            where = Source(name, number, at, n)  # on this line" of a quote opened 12 lines below it)
        kind, named, ref = _yaml_item_named(item)
        if not kind:
            # not an item but a piece of one, cut off at a line of it that reads as an item's first (trial 97: an
            # ownerReferences entry dedented to the margin): the items cannot be told apart
            return None
        dump.errors.append(InputError(where, f"this item of the List{named}: {why}", kind=kind, ref=ref))
    _say_items_aside(dump)
    if not placed or len(dump.errors) == len(starts):
        return None
    return dump, len(starts) - len(dump.errors), len(starts)


def _yaml_item_named(item: list[str]) -> tuple[str, str, str]:
    """The kind of a YAML List item that does not parse, and `` (Pod ml/p, not read)``: what it looks like, from its
    ``kind`` and its ``metadata`` block's ``name`` and ``namespace`` as kubectl indents them (an Event's
    involvedObject.name, before its metadata, is not its name); "" for what is not found."""
    kind = next((line[5:].strip().strip("'\"") for line in item if line.startswith("kind:")), "")
    meta: dict[str, str] = {}
    inside = False
    for line in item:
        if line.startswith("metadata:"):
            inside = True
        elif inside and line[:1] not in (" ", ""):
            break
        elif inside and line.startswith(("  name:", "  namespace:")):
            key, _, value = line.strip().partition(":")
            meta[key] = value.strip().strip("'\"")
    if not kind or not meta.get("name"):
        return kind, "", ""
    return _not_read(kind, meta["name"], meta.get("namespace", ""))


def _duplicate_reason(duplicates: tuple[tuple[str, int, int], ...]) -> str:
    """Why a document with a key twice in one mapping is not judged: kubectl refuses it as written (1.21 and later:
    "error: ... yaml: unmarshal errors: line 17: mapping key "apiVersion" already defined at line 1"), so the object
    it would be never reaches a cluster, and which of the two values a rule should read is a guess. A repeated
    apiVersion or kind is two documents without the ``---`` between them (trial 63: two files joined by cat)."""
    said = "; ".join(f"line {at}: key {key!r} already defined at line {first}" for key, at, first in duplicates[:3])
    more = f" and {len(duplicates) - 3} more" if len(duplicates) > 3 else ""
    joined = any(key in ("apiVersion", "kind") for key, _, _ in duplicates)
    hint = " (two documents without a '---' line between them?)" if joined else ""
    return (
        f"a key stands twice in one mapping ({said}{more}){hint}: kubectl refuses the document, so it is not judged;"
        " write each key once"
    )


#: The last line of a YAML text that ends right after a key, with no value and no line end.
_KEY_AT_THE_END = re.compile(r"(?:^|\n)([ \t]*(?:- )?([A-Za-z0-9_.\-/]+):[ \t]*)$")


def _cut_mid_mapping(text: str) -> tuple[str, int] | None:
    """Why ``text`` looks cut short, and the line: it ends with a key whose value is missing and without the line
    end kubectl (and any YAML writer) puts after the last line (trial 48: a dump cut there had its last object
    judged with half its fields, and no word). None otherwise."""
    if not text or text.endswith(("\n", "\r")):
        return None
    m = _KEY_AT_THE_END.search(text[-512:])
    if m is None:
        return None
    line = text.count("\n") + 1
    reason = (
        f"the text ends right after key {m.group(2)!r}, with no value and no final line end: the dump looks cut short"
        " (kubectl ends its output with a line end), and its last object is judged with what is there; collect it again"
    )
    return reason, line


def parse_bytes(data: bytes, name: str, budget: Budget | None = None) -> Dump:
    """Parse one input's bytes: an archive or gzip stream by its magic bytes, else text (UTF-8, BOM ok).

    ``budget`` bounds what the input may unpack to across every nested archive (default
    ``MAX_UNPACKED_BYTES``). Raises ``DumpError`` when an archive cannot be opened, unpacks past the budget,
    or the bytes are not text.
    """
    budget = budget or Budget()
    if name.lower().endswith(TAR_NAMES) and empty_tar(data):
        # (trial 136: read as text, "YAML error: character U+0000")
        return Dump(files_read=[name], notes=[f"{name}: an empty tar archive (it holds no file)"])
    if compression(data) or data.startswith(ZIP_MAGICS) or is_tar(data):
        with budget.level(name):
            return _unpack(data, name, budget)
    if data.startswith(ZSTD_MAGIC):
        raise DumpError(
            name,
            "Zstandard-compressed (a .tar.zst or .zst file), which verdict does not read: unpack it (zstd -d, or tar"
            " --zstd -xf for a .tar.zst) and audit what it holds, or pack it as .tar.gz, .tar.xz or .zip",
        )
    if data.startswith(_UNICODE_BOMS):
        return _parse_wide(data, name)
    if (wide := _bomless_utf16(data)) is not None:
        # trial 206: "YAML error: character U+0000 ... at column 2", where the text was UTF-16 without its mark
        try:
            text = data.decode(wide)
        except UnicodeDecodeError:
            pass
        else:
            with heap.paused():
                dump = _parse_text(text, name)
            dump.notes.insert(0, f"{name}: read as {wide.upper()} text without a byte order mark (every other byte NUL)")
            return dump
    body = data[3:] if data.startswith(b"\xef\xbb\xbf") else data
    lead = _LEADING_SPACE.match(body).end()  # type: ignore[union-attr]
    json_error: orjson.JSONDecodeError | None = None
    if body[lead : lead + 1] in (b"{", b"["):
        # JSON is parsed from the bytes as read: no decoded copy of a 300 MB dump is made. Text that is not
        # JSON (or not UTF-8) takes the way below, which says why, with the parser's error (the same from
        # the decoded text: orjson gives places in characters either way).
        with heap.paused():
            parsed = _parse_json(body, name)
        if isinstance(parsed, Dump):
            return parsed
        json_error = parsed
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        where, line, at = not_utf8(data, exc)
        salvaged = _utf8_documents(data, name)
        if salvaged is None:
            salvaged = _utf8_document(data, name)
        if salvaged is not None:
            return salvaged
        raise DumpError(
            name, f"not UTF-8 text and not a tar, gzip, xz, bzip2 or zip archive: {where} (offset {at})", line
        ) from None
    with heap.paused():
        return _parse_text(text, name, json_error)


#: A YAML document separator at a line's start, in bytes.
_DOCUMENT_START = re.compile(rb"^---(?=[ \t\r\n]|$)", re.M)
_YAML_DOCUMENT_START = re.compile(_DOCUMENT_START.pattern.decode())
#: YAML's document start or end marker.
_YAML_DOCUMENT_BOUND = re.compile(r"^(?:---|\.\.\.)(?=[ \t\r]|$)")
#: The errors of one YAML document (its syntax, a value it holds), of which the document's kind is said.
_DOCUMENT_ERRORS = ("YAML syntax error", "YAML error", "nesting deeper")


def _windows_byte(byte: bytes) -> str:
    """One byte that is not UTF-8, as Windows-1252 reads it (a Windows editor's smart quotes 0x93 0x94, its ellipsis
    0x85: trial 201, where Latin-1 made them control characters YAML refuses, or a line break), else as Latin-1 (the
    five bytes Windows-1252 leaves undefined; the two agree from 0xa0 up)."""
    try:
        return byte.decode("cp1252")
    except UnicodeDecodeError:
        return byte.decode("latin-1")


def _windows1252_fallback(exc: UnicodeError) -> tuple[str, int]:
    """A codec error handler: the bytes that are not UTF-8 read as Windows-1252 (``_windows_byte``)."""
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    return "".join(_windows_byte(exc.object[i : i + 1]) for i in range(exc.start, exc.end)), exc.end


codecs.register_error("verdict-windows-1252", _windows1252_fallback)


def _not_utf8_places(chunk: bytes, most: int = 16) -> list[int]:
    """The offsets in ``chunk`` of its first ``most`` bytes that do not decode as UTF-8."""
    places: list[int] = []
    at = 0
    while len(places) < most:
        try:
            chunk[at:].decode("utf-8")
            break
        except UnicodeDecodeError as exc:
            places.append(at + exc.start)
            at += exc.end
    return places


def _utf8_documents(data: bytes, name: str) -> Dump | None:
    """The dump of YAML documents some of which are not UTF-8 (a value or comment saved by a Windows or Latin-1 editor):
    each such document read with those bytes as Windows-1252 (``é`` for 0xe9), an input error at its document and the first byte's
    place saying so, or a note where each such byte stands in a comment (trial 171: one byte refused a four-document
    dump, said at document 1 of a byte in document 4; trial 172: read apart, a ClusterPolicy with 0xe9 in a comment was
    lost, and a header comment before the first '---' counted as a document not read). None where there is one
    document (the caller refuses the whole)."""
    starts = [m.start() for m in _DOCUMENT_START.finditer(data)]
    if not starts:
        return None
    lead = data[: starts[0]]
    # what stands before the first '---' is a document only where it holds more than comments and directives
    counted_lead = any(x.strip() and not x.lstrip().startswith((b"#", b"%")) for x in lead.split(b"\n"))
    bounds = [0, *starts] if starts[0] else starts
    bounds.append(len(data))
    errors: list[InputError] = []
    notes: list[str] = []
    number = 0
    for a, b in itertools.pairwise(bounds):
        number += 1 if a or counted_lead or not starts[0] else 0
        chunk = data[a:b]
        places = _not_utf8_places(chunk)
        if not places:
            continue
        line, byte = _byte_said(data, a + places[0])
        if all(_in_comment(data, a + at) for at in places):
            notes.append(_comment_note(name, byte))
            continue
        reason = _windows1252_reason(data, a + places[0], byte, "document")
        errors.append(InputError(Source(name, max(number, 1), line), reason, lost=False))
    return _with_byte_errors(_parse_windows1252(data, name), errors, notes)


def _byte_said(data: bytes, at: int) -> tuple[int, str]:
    """The line of the byte at ``at`` that is not UTF-8, and ``byte 0xe9 at line L, column C``."""
    line, column = byte_place(data, at)
    return line, f"byte 0x{data[at]:02x} at line {line}, column {column}"


def _in_comment(data: bytes, at: int) -> bool:
    """Whether the byte at ``at`` stands in a YAML comment (its line starts with ``#`` before it)."""
    return data[data.rfind(b"\n", 0, at) + 1 : at].lstrip().startswith(b"#")


def _comment_note(name: str, byte: str) -> str:
    return f"{name}: {byte} is not UTF-8, in a comment: read as Windows-1252 (save the file as UTF-8)"


def _parse_windows1252(data: bytes, name: str) -> Dump:
    """The dump of a text whose bytes that are not UTF-8 are read as Windows-1252."""
    with heap.paused():
        return _parse_text(data.decode("utf-8-sig", errors="verdict-windows-1252"), name)


def _with_byte_errors(dump: Dump, errors: list[InputError], notes: list[str]) -> Dump:
    """``dump`` with the input errors and notes of its bytes that are not UTF-8, in their places among its own."""
    dump.errors = sorted([*dump.errors, *errors], key=lambda e: (e.source.document, e.source.line))
    dump.notes[:0] = notes
    return dump


def _windows1252_reason(data: bytes, at: int, byte: str, what: str) -> str:
    shown = _windows_byte(data[at : at + 1])
    return (
        f"not UTF-8 text: {byte}, read as Windows-1252 ({shown!r}): the file was saved in another encoding (save it as"
        f" UTF-8); the {what}'s values there may not be what was written"
    )


#: At most this many bytes that are not UTF-8 in one document are read as Windows-1252; more, or a NUL byte, is no text.
WINDOWS1252_BYTES_READ = 8


def _utf8_document(data: bytes, name: str) -> Dump | None:
    """The dump of one document (a List, an object: no '---' in it) holding a few bytes that are not UTF-8, as
    ``_utf8_documents`` reads each document: those bytes read as Windows-1252, an input error at the List item (or the
    object) of each such byte, which is still judged, or a note where the byte stands in a comment (trial 197: one
    0xe9 in an annotation of one node of a three-node List refused the whole file). None where the bytes look like no
    text (a NUL byte, more than ``WINDOWS1252_BYTES_READ`` bytes not UTF-8) or no object reads: the caller refuses it."""
    places = _not_utf8_places(data, WINDOWS1252_BYTES_READ + 1)
    if len(places) > WINDOWS1252_BYTES_READ or b"\x00" in data:
        return None
    dump = _parse_windows1252(data, name)
    if not dump.objects:
        return None
    placed = sorted((o for o in dump.objects if o.source.line), key=lambda o: o.source.line)
    lines = [o.source.line for o in placed]
    said: set[tuple[int, int | None] | None] = set()
    errors: list[InputError] = []
    notes: list[str] = []
    noted: set[int] = set()  # the lines of comments noted, one note a line
    for at in places:
        line, byte = _byte_said(data, at)
        if _in_comment(data, at):
            if line not in noted:
                noted.add(line)
                notes.append(_comment_note(name, byte))
            continue
        found = bisect.bisect_right(lines, line) - 1
        # (trial 201: on a line that starts several items, compact JSON's, which of them holds it is not known)
        shared = found > 0 and lines[found - 1] == lines[found]
        holder = (placed[found].source.document, placed[found].source.item) if found >= 0 and not shared else None
        if holder in said:
            continue
        said.add(holder)
        document, item = holder if holder is not None else (1, None)
        what = "object" if holder is not None else "document"
        errors.append(InputError(Source(name, document, line, item), _windows1252_reason(data, at, byte, what), lost=False))
    return _with_byte_errors(dump, errors, notes)


#: Byte order marks of UTF-32 and UTF-16 text (UTF-32's first: its little-endian mark starts like UTF-16's).
WIDE_MARKS = ((b"\xff\xfe\x00\x00", "utf-32"), (b"\x00\x00\xfe\xff", "utf-32"), (b"\xff\xfe", "utf-16"), (b"\xfe\xff", "utf-16"))
_UNICODE_BOMS = tuple(mark for mark, _ in WIDE_MARKS)


def _bomless_utf16(data: bytes) -> str | None:
    """``utf-16-le`` or ``utf-16-be`` where the first bytes of ``data`` are ASCII text written two bytes a character
    with no byte order mark (each character's other byte NUL), else None."""
    head = data[: min(256, len(data) - len(data) % 2)]
    if len(head) < 8:
        return None
    low, high = head[0::2], head[1::2]
    if not high.strip(b"\x00") and all(32 <= c < 127 or c in (9, 10, 13) for c in low):
        return "utf-16-le"
    if not low.strip(b"\x00") and all(32 <= c < 127 or c in (9, 10, 13) for c in high):
        return "utf-16-be"
    return None


def _parse_wide(data: bytes, name: str) -> Dump:
    """Text with a UTF-16 or UTF-32 byte order mark: what Windows PowerShell's ``kubectl ... > nodes.yaml`` writes."""
    encoding = next(enc for mark, enc in WIDE_MARKS if data.startswith(mark))
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        reason = f"{encoding.upper()} text (by its byte order mark) that does not decode: {exc.reason} at offset {exc.start}"
        raise DumpError(name, reason) from None
    with heap.paused():
        return _parse_text(text, name)


def compression(data: bytes) -> str:
    """``gzip``, ``xz`` or ``bzip2`` by the first bytes of a stream, else "" (the one test of them: the reader's and
    the service's)."""
    if data.startswith(GZIP_MAGIC):
        return "gzip"
    if data.startswith(XZ_MAGIC):
        return "xz"
    return "bzip2" if _BZIP2.match(data) else ""


def _unpack(data: bytes, name: str, budget: Budget) -> Dump:
    """One archive level: gzip, xz or bzip2 (a tar inside it read as a stream), zip or tar."""
    if fmt := compression(data):
        if _holds_tar(data, fmt):
            with budget.level(name):
                return _read_tar_stream(data, name, budget, fmt)
        return parse_bytes(_decompressed(data, name, budget, fmt), name, budget)
    if data.startswith(ZIP_MAGICS):
        return _read_zip(data, name, budget)
    return _read_tar(data, name, budget)


def is_tar(data: bytes) -> bool:
    """Whether ``data`` is a (POSIX/GNU) tar archive: ``ustar`` at offset 257."""
    return len(data) > 262 and data[257:262] == b"ustar"


#: The sizes of an empty tar: two zero blocks or more, padded to its record (GNU tar's is 10,240 bytes, tar -b 40 writes
#: 20,480: trial 138), up to a bound.
_EMPTY_TAR_SIZES = range(1024, (1 << 20) + 1, 512)
#: The names of tar archives, gzip'd or not.
TAR_NAMES = (".tar", ".tar.gz", ".tgz")


def empty_tar(data: bytes) -> bool:
    """Whether ``data`` is an empty tar archive, gzip'd or not: its end-of-archive zero blocks and nothing else (what
    ``tar czf x.tgz -T /dev/null`` writes). Only where the name or the media type says tar: a file of NULs named
    nodes.yaml is a broken file (trial 137), and 48 MB of them gzip'd a bomb."""
    if data.startswith(GZIP_MAGIC):
        decoder = zlib.decompressobj(wbits=31)
        try:
            data = decoder.decompress(data, _EMPTY_TAR_SIZES[-1] + 1)
        except zlib.error:
            return False
        if not decoder.eof:
            return False
    return len(data) in _EMPTY_TAR_SIZES and not any(data)


def _decompressed(data: bytes, name: str, budget: Budget, fmt: str = "gzip") -> bytes:
    """The unpacked bytes of a gzip, xz or bzip2 stream, charged to ``budget``. A stream that unpacks past what the budget has
    left is refused having held one chunk at a time, not the bytes up to the bound: a 2 MB gzip bomb took 1.2 GB
    to refuse in the CLI (trial 41). Read as ``_Unpacked`` reads a gzip'd tar: every member, bytes after the last
    that start no other ignored (trial 107: "Not a gzipped file" for a newline a transfer added)."""

    def inflated(keep: bool) -> tuple[int, list[bytes]]:
        unpacked, size, parts = _Unpacked(io.BytesIO(data), name, fmt=fmt), 0, []
        while size <= budget.left and (part := unpacked.read(1 << 20)):
            size += len(part)
            if keep:
                parts.append(part)
        if unpacked.cut and size <= budget.left:
            raise EOFError("Compressed file ended before the end-of-stream marker was reached")
        return size, parts

    try:
        # deflate unpacks 1032 times at most: else it may pass the bound; xz and bzip2 have no such bound (trial 155:
        # an 846-byte bzip2 bomb held 1.1 GB before its refusal)
        if fmt != "gzip" or len(data) * 1032 > budget.left:
            size, _ = inflated(keep=False)  # measured first, holding a chunk at a time
            if size > budget.left:
                budget.charge(size, name)  # refused
        _, parts = inflated(keep=True)
    except (OSError, EOFError, zlib.error, lzma.LZMAError) as exc:
        raise DumpError(name, _broken_stream(exc, fmt)) from None
    raw = b"".join(parts)
    budget.charge(len(raw), name)
    return raw


#: An archive's bytes, or the file that holds them (read from disk, never whole into memory).
Archive = bytes | Path


def _opened(source: Archive) -> io.BufferedIOBase:
    """A binary file object over ``source`` (close it: ``with``)."""
    return io.BytesIO(source) if isinstance(source, bytes) else open(source, "rb")  # noqa: SIM115 - closed by with


def _holds_tar(source: Archive, fmt: str = "gzip") -> bool:
    """Whether a gzip, xz or bzip2 stream starts with a tar header (its first 512 bytes unpacked)."""
    try:
        with _opened(source) as raw:
            unpacked, head = _Unpacked(raw, "", fmt=fmt), b""
            while len(head) < tarfile.BLOCKSIZE and (part := unpacked.read(tarfile.BLOCKSIZE - len(head))):
                head += part
            return is_tar(head)
    except (OSError, EOFError, zlib.error, lzma.LZMAError):
        return False


#: The first bytes of the next stream of each compression, which may follow a stream's end (pigz, pxz, pbzip2).
_NEXT_STREAM = {"gzip": GZIP_MAGIC, "xz": XZ_MAGIC, "bzip2": b"BZh"}


class _Unpacked(io.RawIOBase):
    """The unpacked bytes of a gzip, xz or bzip2 stream (of one or more streams), every byte it holds up to where it
    ends: a stream cut short (a download that stopped) ends quietly where its bytes end, with ``cut`` set, so that a
    tar read from it has every member that is whole before the cut (``gzip.GzipFile`` raises EOFError as soon as its
    read-ahead meets the end, losing the last whole members: trial 43). Unpacked bytes are charged to
    ``budget.stream`` when given (a bomb passed over is bounded too). Its input is read 64 KB at a time: many streams
    one after another cost what their bytes do (trial 155: the rest of the input copied at each stream's end was
    quadratic)."""

    def __init__(self, raw: io.BufferedIOBase, name: str, budget: Budget | None = None, fmt: str = "gzip") -> None:
        self.raw = raw
        self.where = name
        self.budget = budget
        self.fmt = fmt
        self.unpack: Any = self._new()
        self.cut = False

    def _new(self) -> Any:
        if self.fmt == "xz":
            return lzma.LZMADecompressor(format=lzma.FORMAT_XZ)
        if self.fmt == "bzip2":
            return bz2.BZ2Decompressor()
        return zlib.decompressobj(31)  # gzip framing, checked (header, CRC, size)

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        if size == 0:
            return b""  # zlib takes a max_length of 0 as no bound at all
        want = size if size > 0 else (self.budget.stream_left + 1 if self.budget else 1 << 30)
        out = b""
        gzip_stream = self.fmt == "gzip"
        magic = _NEXT_STREAM[self.fmt]
        while not out:
            if self.unpack.eof:
                rest = self.unpack.unused_data or self.raw.read(1 << 16)
                while rest and not rest.strip(b"\0"):  # zeros padding the stream after its last member
                    rest = self.raw.read(1 << 16)
                rest = rest.lstrip(b"\0")
                while 0 < len(rest) < len(magic) and (more := self.raw.read(len(magic) - len(rest))):
                    rest += more
                if not rest.startswith(magic):
                    # the stream's end, after a whole member; bytes after it that start no other member (a
                    # transfer's newline or garbage) are ignored, as gzip -d does (trial 107: refused as "incorrect
                    # header check", or a newline said to cut the archive short)
                    return b""
                self.unpack = self._new()
            elif gzip_stream:
                rest = self.unpack.unconsumed_tail or self.raw.read(1 << 16)
                if not rest:
                    self.cut = True  # the bytes end inside a gzip member
                    return b""
            elif self.unpack.needs_input:
                rest = self.raw.read(1 << 16)
                if not rest:
                    self.cut = True  # the bytes end inside a stream
                    return b""
            else:
                rest = b""  # (xz and bzip2 keep the input they have not unpacked yet)
            out = self.unpack.decompress(rest, want)
        if self.budget is not None:
            self.budget.stream(len(out), self.where)
        return out


def _read_tar_stream(source: Archive, name: str, budget: Budget, fmt: str = "gzip") -> Dump:
    """A compressed tar (gzip, xz or bzip2), read as a stream twice: first for its names, then to keep the members
    ``_read_tree`` reads, so only those are held and charged against the budget (a must-gather's logs and bug reports
    are passed over, not refused with it); what it unpacks to is charged to ``budget.stream`` once (the second pass
    reads the same stream again)."""
    cut: InputError | None = None
    try:
        with (
            _opened(source) as raw,
            tarfile.open(fileobj=(unpacked := _Unpacked(raw, name, budget, fmt)), mode="r|") as archive,
        ):
            listed: list[tuple[str, bool, str]] = []
            whole = True  # the last member listed was read to its end (a cut there leaves it whole)
            ended = False  # the tar's end-of-archive blocks were read
            try:
                for m in _counted_members(archive, name):
                    listed.append((m.name, m.isfile(), _unread_kind(m)))
                    if m.isfile():
                        whole = False
                        fh = archive.extractfile(m)
                        while fh is not None and fh.read(1 << 20):
                            pass
                        whole = True
                ended = not unpacked.cut
            except tarfile.ReadError:  # "unexpected end of data": the cut falls in this member
                if not unpacked.cut:
                    raise
            # the tar ends at its end-of-archive blocks; the gzip stream's CRC-32 and size are checked at its own end
            # (trial 105: a bit flipped in a .tar.gz unpacked to other text, judged as the dump with false findings)
            while not unpacked.cut and unpacked.read(1 << 20):
                pass
            if unpacked.cut:
                if not listed:
                    raise EOFError("the stream ends before its first file")
                cut = _trailer_cut(name, fmt) if ended else _cut_short(name, listed, whole, f"its {fmt} stream is cut short")
        names = [_member_name(n) for n, regular, _ in listed if regular]
        wanted = _read_by_tree(names)
        kept: list[bytes | DumpError] = []
        with _opened(source) as raw, tarfile.open(fileobj=_Unpacked(raw, name, fmt=fmt), mode="r|") as archive:
            for member in archive if names else ():
                if not member.isfile():
                    continue
                if not wanted(_member_name(member.name)):
                    kept.append(b"")
                elif isinstance(charged := _charged(budget, member.size, name), DumpError):
                    kept.append(charged)
                else:
                    fh = archive.extractfile(member)
                    kept.append(fh.read() if fh else b"")
                if len(kept) == len(names):
                    break  # the last whole member: a cut stream ends after it
    except DumpError:
        raise
    except (OSError, EOFError, zlib.error, lzma.LZMAError) as exc:
        raise DumpError(name, _broken_stream(exc, fmt)) from None
    except tarfile.TarError as exc:
        raise DumpError(name, _corrupt(exc) or f"broken tar archive: {exc}") from None

    def loader(held: bytes | DumpError) -> Callable[[], bytes]:
        def load() -> bytes:
            if isinstance(held, DumpError):
                raise held
            return held

        return load

    dump = _read_tree(list(zip(names, map(loader, kept), strict=True)), f"{name}!", budget=budget)
    if cut is not None:
        dump.errors.insert(0, cut)
    return _links_not_followed(dump, name, [(n, kind) for n, _, kind in listed if kind])


def _charged(budget: Budget, size: int, name: str) -> DumpTooLarge | None:
    """``size`` charged to ``budget``; the refusal when it is past the bound (that member's input error)."""
    try:
        budget.charge(size, name)
    except DumpTooLarge as exc:
        return exc
    return None


def _cut_short(
    name: str, listed: list[tuple[str, bool, str]], whole: bool, how: str = "its gzip stream is cut short"
) -> InputError:
    """The input error of a tar that ends early (``how``: a gzip'd one's stream; a download or copy cut short).
    When the cut fell in the last member listed (not ``whole``), that member is dropped from ``listed``; the members
    before it are whole (read as usual: a must-gather's logs among them are passed over), as ``tar`` extracts every
    whole file before a cut."""
    lost = "" if whole else _member_name(listed.pop()[0])
    files = sum(r for _, r, _ in listed)
    n, verb = counted(files, "file"), "is" if files == 1 else "are"
    if lost:
        before = f"the {n} before it {verb} whole" if files else "no file before it is whole"
        told = f"in {lost}: {before}; {lost} and any file after it are missing"
    else:
        told = f"after {_member_name(listed[-1][0])}: its {n} up to it {verb} whole; any file after it is missing"
    again = "(download or copy the archive again for the whole dump)"
    return InputError(Source(name), f"the archive ends early ({how}), {told} {again}")


def _trailer_cut(name: str, fmt: str = "gzip") -> InputError:
    """The input error of a gzip'd tar whose stream is cut after the tar's end: every file is there, but the stream's
    CRC-32 and length, which tell a byte that changed, are not (trial 107: "any file after it is missing" was said of
    it, and a file damaged inside it was vouched "whole")."""
    return InputError(
        Source(name),
        f"the archive's {fmt} stream is cut short after the tar's end: every file in it is there, but the stream's own"
        f" {'CRC-32 and length are' if fmt == 'gzip' else 'check is'} missing, so a byte that changed inside it cannot"
        " be told (download or copy the archive again to be sure)",
    )


def _broken_stream(exc: BaseException, fmt: str) -> str:
    """Why a gzip, xz or bzip2 stream cannot be read (``_broken_gzip`` for gzip's own words)."""
    if fmt == "gzip":
        return _broken_gzip(exc)
    if isinstance(exc, EOFError):
        return f"{fmt} stream cut short: it ends before its end marker (download or copy it again)"
    return f"corrupt {fmt} stream: {exc}"


def _broken_gzip(exc: BaseException) -> str:
    """Why a gzip stream cannot be read; one that ends before its end is said to be cut short, as an archive whose
    members are cut is (trial 82: a .tar.gz cut after 60 bytes said only "Compressed file ended before the
    end-of-stream marker was reached")."""
    if isinstance(exc, EOFError):
        return f"broken gzip stream: {exc} (the file is cut short: download or copy it again)"
    return _corrupt(exc) or f"broken gzip stream: {exc}"


def _corrupt(exc: BaseException) -> str:
    """The words for a gzip stream whose bytes changed after it was written: zlib's data errors (Error -3: "incorrect
    data check", its CRC-32 fails; "invalid distance too far back" and the like, its deflate data does not inflate),
    gzip's "CRC check failed" and "Incorrect length"; "" for another error (trial 105: "zlib error: Error -3 while
    decompressing data: incorrect data check"; trial 107: the deflate errors of the same damage)."""
    text = str(exc)
    if not re.search(r"Error -3 while decompressing|CRC check failed|Incorrect length of data", text):
        return ""
    return (
        "corrupt gzip stream: its bytes changed after it was written (they do not inflate, or fail the stream's own"
        f" CRC-32 or length check), and nothing from it is judged: download or copy it again ({text})"
    )


def _unread_kind(member: tarfile.TarInfo) -> str:
    """What tar ``member`` is when it is neither a file nor a folder: ``link`` (symbolic or hard), ``special`` (a FIFO,
    a device), else ""."""
    if member.issym() or member.islnk():
        return "link"
    return "special" if member.isfifo() or member.ischr() or member.isblk() else ""


def _links_not_followed(dump: Dump, name: str, members: list[tuple[str, str]]) -> Dump:
    """``dump`` of tar or zip ``name``, with its link and special members (their names in the archive, and ``_unread_kind``)
    named as not read (trial 136: a FIFO or a device named *.yaml vanished without a word)."""
    if members:
        dump.files_skipped.extend(f"{name}!{_member_name(n)}" for n, _ in members)
    if links := sum(kind == "link" for _, kind in members):
        dump.notes.append(f"{name}: {counted(links, 'link member')} not followed (a dump is read from regular files only)")
    if special := sum(kind == "special" for _, kind in members):
        dump.notes.append(
            f"{name}: {counted(special, 'special member')} not read, a FIFO or a device (a dump is read from regular files only)"
        )
    return dump


# ---------------------------------------------------------------------------------- trees of files


def _read_tree(
    members: Iterable[tuple[str, Callable[[], bytes]]],
    label: str,
    progress: ProgressHook | None = None,
    budget: Budget | None = None,
) -> Dump:
    """Read a set of named files (a folder or an archive): a must-gather layout as one cluster dump,
    otherwise every ``*.yaml``/``*.yml``/``*.json`` file (others listed as skipped). Hidden files and
    folders (``.name``, e.g. macOS ``._node.yaml`` in a tarball) are skipped, in archives as in folders."""
    entries = sorted(members, key=lambda m: m[0])
    outside = {n for n, _ in entries if ".." in n.split("/")}
    escaping = [f"{label}{n}" for n in sorted(outside)]
    hidden = [f"{label}{n}" for n, _ in entries if is_hidden(n) and n not in outside]
    entries = [e for e in entries if not is_hidden(e[0])]
    names = [n for n, _ in entries]
    escape_notes = (
        [
            # (trial 175: no member was named)
            f"{label.rstrip('!')}: {counted(len(escaping), 'member')} with '..' in {'its' if len(escaping) == 1 else 'their'}"
            f" path not read ({first_few(sorted(outside), 3)}): it points outside the archive"
        ]
        if escaping
        else []
    )
    if mustgather.is_must_gather(names):
        dump = _read_must_gather(entries, label, progress, budget)
        dump.files_skipped.extend(hidden + escaping)
        dump.notes.extend(escape_notes)
        if label.endswith("!"):  # review: an archive of two must-gathers is read as one, and said so
            dump.notes.extend(_archives_inside_note(names, label))
        return dump
    dump = Dump(files_skipped=hidden + escaping, notes=escape_notes)
    sources = _source_files(names)
    sources |= _kustomize_patches(entries, sources)
    if sources:
        entries = [e for e in entries if e[0] not in sources]
        dump.files_skipped.extend(f"{label}{n}" for n in sorted(sources))
        dump.notes.extend(_source_notes(sources, label))
    set_aside: list[str] = []
    for rel, load in entries:
        shown = f"{label}{rel}"
        if progress:
            progress.file(shown)
        before = len(dump.objects)
        role = member_role(rel)
        if role == "dump":
            dump.extend(_parse_member(load, shown, budget))
        elif role == "text":
            read = _read_text_member(load, shown, budget)
            if read is None:
                set_aside.append(shown)
            else:
                dump.extend(read)
        else:
            set_aside.append(shown)
        if progress:
            progress.objects(len(dump.objects) - before)
    if set_aside:
        dump.files_skipped.extend(set_aside)
        dump.notes.append(set_aside_note(set_aside))
    if label.endswith("!"):
        dump.notes.extend(_archives_inside_note(names, label))
    return dump


def _gather_roots(names: list[str]) -> list[str]:
    """The folders of a tree that hold a must-gather's files ("" for the tree's own top), but those inside another
    such folder."""
    folders: dict[str, list[str]] = {}
    for n in names:
        folder, _, base = n.rpartition("/")
        folders.setdefault(folder, []).append(base)
    gathers = [f for f, files in folders.items() if mustgather.is_must_gather(files)]
    # (a must-gather at the top holding another in a folder is two: the note of an archive counts them)
    return [g for g in gathers if not any(o != g and g.startswith(f"{o}/") for o in gathers)]


def _beside_gathers(name: str, roots: list[str]) -> bool:
    """Whether ``name`` is an archive beside the must-gathers of its tree (under none of their ``roots``): a dump of
    its own, read as a folder of them reads it, where one inside a must-gather is not opened."""
    return name.lower().endswith(ARCHIVE_SUFFIXES) and not any(_under(name, r) for r in roots)


def _under(name: str, folder: str) -> bool:
    """Whether ``name`` lies in ``folder`` of the same tree (every name lies in the top, "")."""
    return folder == "" or name.startswith(f"{folder}/")


def _archives_inside_note(names: list[str], label: str) -> list[str]:
    """A note for an archive that holds two archives or must-gathers or more (trial 93: a tar of a nightly folder
    of cluster archives merged every cluster into one dump): each is likely a dump of its own, which a folder
    holding them would be (a batch)."""
    gathers = _gather_roots(names)
    archives = [n for n in names if n.lower().endswith(ARCHIVE_SUFFIXES) and not any(_under(n, g) for g in gathers)]
    if len(archives) + len(gathers) < 2:
        return []
    what = first_few([f"{label}{n}" for n in sorted([*gathers, *archives])], 3)
    return [
        # (what it holds last: a chat message cuts the note, and says the point first: trial 230 #1)
        f"the archive holds {len(archives) + len(gathers)} archives or must-gathers, read here as one dump: if they are"
        " of different clusters (or one cluster at different times), unpack it and audit the folder, a batch that"
        f" judges each alone ({what})"
    ]


#: kustomize's own file in a folder of manifests (kustomize build renders the objects it lists).
KUSTOMIZATION_NAMES = frozenset({"kustomization.yaml", "kustomization.yml", "Kustomization"})


def _source_files(names: list[str]) -> dict[str, str]:
    """The files of a folder or archive that are the sources of manifests rather than objects (trial 59, a GitOps
    repository), by what they are: every file of a Helm chart (a folder holding ``Chart.yaml``: its values,
    templates and subcharts, which are not objects until ``helm template`` renders them) and kustomize's
    ``kustomization.yaml``. The objects beside them are read."""
    charts = sorted({n.rsplit("/", 1)[0] if "/" in n else "" for n in names if n.rsplit("/", 1)[-1] == "Chart.yaml"})
    found: dict[str, str] = {}
    for n in names:
        chart = next((c for c in charts if c == "" or n.startswith(f"{c}/")), None)
        if chart is not None:
            found[n] = f"chart:{chart}"
        elif n.rsplit("/", 1)[-1] in KUSTOMIZATION_NAMES:
            found[n] = "kustomization"
    return found


#: A kustomization file larger than this is not looked into for its patches.
KUSTOMIZATION_MAX_BYTES = 1 << 20


def _kustomize_patches(entries: list[tuple[str, Callable[[], bytes]]], sources: dict[str, str]) -> dict[str, str]:
    """The files of the tree that a kustomization of it names as patches (``patches[].path``,
    ``patchesStrategicMerge``, ``patchesJson6902[].path``, relative to its folder): a patch is part of an object, or a
    JSON 6902 operation list, not an object (trial 60: a patch adding a request was judged as a whole Deployment);
    and as a Helm chart's values (``helmCharts[].valuesFile``, ``additionalValuesFiles``). A kustomization that
    cannot be read names none."""
    names = {n for n, _ in entries}
    found: dict[str, str] = {}
    for rel, load in entries:
        if sources.get(rel) != "kustomization":
            continue
        try:
            data = load()
        except (DumpError, *_ARCHIVE_ERRORS):
            continue
        if len(data) > KUSTOMIZATION_MAX_BYTES:
            continue
        doc = next(iter(load_documents(data)), None)
        spec = doc.data if doc is not None and not doc.error else None
        if not isinstance(spec, dict):
            continue
        folder = rel.rsplit("/", 1)[0] + "/" if "/" in rel else ""
        patches = [
            *(p.get("path") for key in ("patches", "patchesJson6902") for p in _list(spec.get(key)) if isinstance(p, dict)),
            *(p for p in _list(spec.get("patchesStrategicMerge")) if isinstance(p, str) and "\n" not in p),
        ]
        # trial 175: a Helm chart's values a kustomization inflates it with (helmCharts[].valuesFile,
        # additionalValuesFiles) were input errors ("not a Kubernetes object: no 'kind'")
        charts = [c for c in _list(spec.get("helmCharts")) if isinstance(c, dict)]
        values = [*(c.get("valuesFile") for c in charts), *(v for c in charts for v in _list(c.get("additionalValuesFiles")))]
        for path, what in [*((p, "kustomize-patch") for p in patches), *((v, "kustomize-values") for v in values)]:
            if isinstance(path, str) and path:
                target = posixpath.normpath(folder + path)
                if target in names and target not in sources:
                    found[target] = what
    return found


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _source_notes(sources: dict[str, str], label: str) -> list[str]:
    """One note per Helm chart, one for the kustomize patch files and one for the kustomization files set aside."""
    notes = []
    charts = sorted({what.removeprefix("chart:") for what in sources.values() if what.startswith("chart:")})
    for chart in charts:
        held = [n for n, what in sources.items() if what == f"chart:{chart}"]
        where = f"{label}{chart}" if chart else label.rstrip("/") or "."
        notes.append(
            f"{counted(len(held), 'file')} of the Helm chart {where} not read: a chart's templates and values are not"
            " objects until helm template renders them (audit its output)"
        )
    for what, noun, why in (
        (
            "kustomize-patch",
            "kustomize patch file",
            "a kustomization names each as a patch, part of an object rather than one (audit kustomize build's output"
            " to judge the patched objects)",
        ),
        (
            "kustomize-values",
            "Helm values file",
            "a kustomization inflates a Helm chart with each (helmCharts), values rather than objects (audit kustomize"
            " build --enable-helm's output to judge the chart's objects)",
        ),
        (
            "kustomization",
            "kustomization file",
            "kustomize's own file, not an object; the objects beside it are read as they are, without its patches (audit"
            " kustomize build's output to judge what is applied)",
        ),
    ):
        held = sorted(n for n, kind in sources.items() if kind == what)
        if held:
            notes.append(f"{counted(len(held), noun)} not read ({first_few([f'{label}{n}' for n in held], 5)}): {why}")
    return notes


def read_by_name(names: list[str]) -> Callable[[str], bool]:
    """Which files of a folder with these names (``/``-separated, relative to it) reading it reads by their names
    (one whose name says nothing, ``member_role`` ``text``, also by its start: ``looks_read``)."""
    return _read_by_tree(names)


def _read_by_tree(names: list[str]) -> Callable[[str], bool]:
    """Which files of a tree with these names (``/``-separated) ``_read_tree`` loads, by name alone: a tar read
    as a stream keeps just those."""
    if mustgather.is_must_gather(shown := [n for n in names if not is_hidden(n)]):
        roots = _gather_roots(shown)
        # (and a file whose name says nothing, read when it starts as a dump, and an archive beside the must-gather's
        # folder: ``_read_must_gather``)
        return lambda n: (
            not is_hidden(n)
            and (
                mustgather.classify(n) not in ("skip", "missing-clusterpolicy")
                or member_role(n) == "text"
                or _beside_gathers(n, roots)
            )
        )
    sources = _source_files([n for n in names if not is_hidden(n)])
    return lambda n: not is_hidden(n) and member_role(n) != "other" and n not in sources


#: Archives by name; a folder of them (and of files that are not dumps) is a batch (``rules.engine``). A .tar.zst is
#: one too: read, it is an input error that says how to unpack it (trial 154: dropped as "not an archive").
ARCHIVE_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".zip", ".tar.xz", ".txz", ".tar.bz2", ".tbz2", ".tbz", ".tar.zst", ".tzst")
#: A file compressed alone (nodes.json.xz), read as what it unpacks to.
COMPRESSED_SUFFIXES = (".gz", ".xz", ".bz2", ".zst")


def member_role(rel: str) -> str:
    """What a folder or archive's file is by its name: ``dump`` (``*.yaml``, ``*.yml``, ``*.json``, an archive,
    ``*.gz``, ``*.xz``, ``*.bz2``, ``*.zst``), ``text`` (a name that says nothing: ``*.txt``, ``*.out``, ``*.md``, no
    extension; read when its start is a dump or describe text, ``looks_read``) or ``other`` (not read: logs, binaries,
    checksums)."""
    lowered = rel.lower()
    if lowered.endswith(DUMP_SUFFIXES + ARCHIVE_SUFFIXES + COMPRESSED_SUFFIXES):
        return "dump"
    if lowered.endswith(TEXT_SUFFIXES) or "." not in rel.rsplit("/", 1)[-1]:
        return "text"
    return "other"


def set_aside_note(names: list[str]) -> str:
    """The note that names the files of a folder or archive that were not read (the first five)."""
    shown = first_few(names, 5)
    what = "neither named *.yaml, *.yml, *.json or an archive, nor starting as a dump or describe text"
    return f"{counted(len(names), 'file')} not read: {what} ({shown})"


#: The first line of a file that holds a dump (after blank lines, comments and a byte order mark).
_DUMP_START = re.compile(r"(?:---|apiVersion:|kind:|items:|metadata:|\{\s*(?:\"|\})|\[\s*(?:\{|\]))")


def looks_read(head: bytes) -> bool:
    """True when a file whose name says nothing (``member_role`` ``text``) is read: its start (``head``, a few
    KB) is ``kubectl describe node`` text, or YAML or JSON of objects (``kubectl get -o yaml > nodes.txt``), or
    ``kubectl describe`` text of another kind (read as an input error that says what to print instead)."""
    text = head[:DESCRIBE_SNIFF_BYTES].decode("utf-8-sig", errors="replace")
    # describe text of another kind is read too, to say what to print instead (trial 88: in a folder, a describe
    # pod file was "not read: ... nor starting as a dump or describe text", where alone it got that hint)
    if describe.looks_like_describe(text) or describe.other_describe(text) is not None:
        return True
    # a node's Capacity and Allocatable cut out by grep, read as one alone is (trial 155: passed over in a folder)
    if describe.holds_resources(describe.describe_fragment(text)):
        return True
    for line in text.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            return _DUMP_START.match(stripped) is not None
    return False


def is_hidden(rel: str) -> bool:
    """True for a path (``/``-separated, relative to a folder or archive) with a part that starts with a dot."""
    return any(part.startswith(".") for part in rel.split("/"))


def _read_text_member(load: Callable[[], bytes], shown: str, budget: Budget | None) -> Dump | None:
    """A file in a folder or archive whose name says nothing: read when its start is a dump or describe text (a
    file saved from a terminal or a chat, ``looks_read``), else None (logs, notes)."""
    try:
        data = load()
    except (DumpError, *_ARCHIVE_ERRORS) as exc:
        return _unreadable(shown, exc)
    if not looks_read(data):
        return None
    return _parse_member(lambda: data, shown, budget)


def _parse_member(load: Callable[[], bytes], shown: str, budget: Budget | None = None) -> Dump:
    """One file of a folder or archive; a file that cannot be read becomes an input error. A must-gather read
    inside it is named (trial 48: a folder holding one said "read as a must-gather" of the whole folder)."""
    try:
        data = load()
        dump = parse_bytes(data, shown, budget)
    except (DumpError, *_ARCHIVE_ERRORS) as exc:
        return _unreadable(shown, exc)
    dump.notes = [f"{shown}: {n}" if n == MUST_GATHER_NOTE else n for n in dump.notes]
    if not dump.objects and not dump.errors and not data.strip():
        dump.files_read.append(shown)  # read, and empty (trial 154: in neither filesRead nor filesSkipped)
        # trial 48: an empty pods.yaml beside nodes.yaml (a `kubectl get pods > pods.yaml` that failed) was read
        # as a cluster without pods; alone, the same file is refused
        dump.errors.append(
            InputError(
                Source(shown), "the file is empty: kubectl writes nothing when it fails, so this part of the dump is missing"
            )
        )
    return dump


def _unreadable(shown: str, exc: Exception) -> Dump:
    """A file of a folder or archive that could not be read: an input error with its reason, listed as
    skipped; the rest of the tree is still read."""
    if isinstance(exc, DumpError):
        error = InputError(Source(shown, 1, exc.line), exc.reason)
    else:
        reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
        if isinstance(exc, zlib.error) or re.search(r"Error -3 while decompressing|Bad CRC-32", reason):
            # (trial 136: zlib's own words, "Error -3 while decompressing data: invalid bit length repeat", alone)
            reason = (
                "its data is corrupt: its bytes changed after the archive was written (they do not inflate, or fail"
                f" the member's CRC-32), so nothing from it is judged: copy the archive again ({reason})"
            )
        error = InputError(Source(shown), f"cannot read: {reason}")
    return Dump(errors=[error], files_skipped=[shown])


#: The note of a dump read as a must-gather.
MUST_GATHER_NOTE = "read as an NVIDIA GPU Operator must-gather"


def _read_must_gather(
    entries: list[tuple[str, Callable[[], bytes]]], label: str, progress: ProgressHook | None, budget: Budget | None = None
) -> Dump:
    dump = Dump(notes=[MUST_GATHER_NOTE])
    passed_over: list[str] = []  # archives a plain folder would read (another must-gather, a dump)
    roots = _gather_roots([rel for rel, _ in entries])
    labelled: list[tuple[dict[str, Any], Source]] = []
    described: list[tuple[dict[str, Any], Source]] = []
    for rel, load in entries:
        shown = f"{label}{rel}"
        if progress:
            progress.file(shown)
        kind = mustgather.classify(rel)
        if kind == "skip" and member_role(rel) == "text":
            # a file whose name says nothing, read as a folder reads it: when it starts as a dump (trial 154: a YAML
            # Node saved as extra-nodes.txt was passed over without a word); the script's own text files do not
            try:
                data = load()
            except (DumpError, *_ARCHIVE_ERRORS) as exc:
                dump.errors.extend(_unreadable(shown, exc).errors)
                continue
            if looks_read(data[:DESCRIBE_SNIFF_BYTES]):
                dump.extend(_parse_member(functools.partial(bytes, data), shown, budget))
                continue
        if kind == "skip" and _beside_gathers(rel, roots):
            # an archive beside the must-gather's folder, not in it: read as a folder of them reads it (trial 183: a
            # tarball of two cluster archives and a must-gather was judged as the must-gather alone, and said to be
            # "read here as one dump")
            dump.extend(_parse_member(load, shown, budget))
            continue
        if kind == "skip":
            dump.files_skipped.append(shown)
            if member_role(rel) == "dump" and not rel.lower().endswith(".log.gz"):  # not a bug report it wrote
                passed_over.append(shown)
            continue
        if kind == "missing-clusterpolicy":
            dump.files_read.append(shown)
            dump.notes.append(f"{shown}: the must-gather found no ClusterPolicy in the cluster")
            continue
        if kind == "yaml":
            read = _parse_member(load, shown, budget)
            if (held := mustgather.file_holds(rel)) and not any(o.kind == held[0] for o in read.objects):
                # what an error in the file kept out is of the kind the file is named after (trial 183: an empty
                # cluster_policy.yaml left the nodes' passes "no ClusterPolicy in the dump" unqualified), where the
                # file gave none of it (trial 186: a broken document after the ClusterPolicy it held whole)
                read.errors = [
                    dataclasses.replace(e, kind=held[0], count=held[1]) if e.lost and not e.kind else e for e in read.errors
                ]
            dump.extend(read)
            continue
        try:
            text = load().decode("utf-8-sig", errors="replace")
        except (DumpError, *_ARCHIVE_ERRORS) as exc:
            dump.errors.extend(_unreadable(shown, exc).errors)
            continue
        dump.files_read.append(shown)
        parse = mustgather.parse_node_labels if kind == "labels" else describe.parse_describe_nodes
        objects, errors = parse(text, shown)
        _describe_errors(dump, errors)
        target = labelled if kind == "labels" else described
        for obj, line in objects:
            target.append((obj, Source(shown, 1, line)))
    # Nodes from the labels file and the describe text are one node each: merge by name.
    node_sources: dict[str, Source] = {}
    for obj, src in described + labelled:
        if obj.get("kind") == "Node":
            node_sources.setdefault(str(obj.get("metadata", {}).get("name", "")), src)
    merged = mustgather.merge_nodes(
        [o for o, _ in labelled if o.get("kind") == "Node"], [o for o, _ in described if o.get("kind") == "Node"]
    )
    for node in merged:
        name = str(node.get("metadata", {}).get("name", ""))
        dump.objects.append(KObject(node, node_sources.get(name, Source(label or "<must-gather>"))))
    # A pod of gpu_nodes.descr's pod tables that a YAML file holds whole (gpu_operand_pods.yaml,
    # gpu_operator_pod.yaml) is that pod: the YAML is read, the row rebuilt from describe text left out.
    whole = {(o.namespace, o.name) for o in dump.objects if o.kind == "Pod"}
    for obj, src in described:
        if obj.get("kind") == "Node":
            continue
        meta = obj.get("metadata", {})
        if obj.get("kind") == "Pod" and (str(meta.get("namespace", "")), str(meta.get("name", ""))) in whole:
            continue
        dump.objects.append(KObject(obj, src))
    if passed_over:
        dump.notes.append(
            f"{counted(len(passed_over), 'archive')} in the must-gather not read ({first_few(passed_over, 5)}): an"
            " archive inside a must-gather is not opened (another must-gather, or a dump of another time); audit it on"
            " its own"
        )
    if progress:
        progress.objects(len(dump.objects))  # a must-gather's objects are known once its nodes are merged
    return dump


def _read_tar(source: Archive, name: str, budget: Budget) -> Dump:
    cut: InputError | None = None
    try:
        archive = (
            tarfile.open(fileobj=io.BytesIO(source), mode="r:") if isinstance(source, bytes) else tarfile.open(source, mode="r:")
        )
        everything: list[tarfile.TarInfo] = []
        size = len(source) if isinstance(source, bytes) else os.path.getsize(source)
        try:
            everything.extend(_counted_members(archive, name))
            # a tar ends in two zero blocks; tarfile takes a header cut short for that end, quietly (where the next
            # header would be: a sparse member's size is what it expands to, not what it stores, trial 137)
            ended = not everything or _zero_blocks(source, archive.offset)
        except tarfile.ReadError:  # "unexpected end of data": a tar cut short (trial 136: its whole files were lost)
            if not everything:
                raise
            ended = False
        if not ended:
            last = everything[-1]
            whole = not last.isfile() or last.offset_data + last.size <= size
            listed = [(m.name, m.isfile(), _unread_kind(m)) for m in everything]
            cut = _cut_short(name, listed, whole, "cut short")
            if not whole:
                everything.pop()
        infos = [m for m in everything if m.isfile()]
        links = [(m.name, kind) for m in everything if (kind := _unread_kind(m))]
    except _ARCHIVE_ERRORS as exc:
        raise DumpError(name, f"broken tar archive: {exc}") from None

    def loader(member: tarfile.TarInfo) -> Callable[[], bytes]:
        def load() -> bytes:
            budget.charge(member.size, name)
            fh = archive.extractfile(member)
            return fh.read() if fh else b""

        return load

    with archive:
        members = [(_member_name(m.name), loader(m)) for m in infos]
        dump = _read_tree(members, f"{name}!", budget=budget)
    if cut is not None:
        dump.errors.insert(0, cut)
    return _links_not_followed(dump, name, links)


def _zero_blocks(source: Archive, at: int) -> bool:
    """Whether ``source`` holds a tar's end-of-archive, two zero blocks, at offset ``at``."""
    with _opened(source) as fh:
        fh.seek(at)
        end = fh.read(2 * tarfile.BLOCKSIZE)
    return len(end) == 2 * tarfile.BLOCKSIZE and not any(end)


def _counted_members[T](members: Iterable[T], name: str) -> Iterator[T]:
    """``members`` of archive ``name``, refused (``DumpError``) past ``MAX_ARCHIVE_MEMBERS``: listing each costs
    time and memory whatever its size, so an archive of many empty members would hold a reader for minutes."""
    for count, member in enumerate(members):
        if count >= MAX_ARCHIVE_MEMBERS:
            raise DumpError(name, f"more than {MAX_ARCHIVE_MEMBERS:,} members (VERDICT_MAX_ARCHIVE_MEMBERS): not read")
        yield member


def _member_name(name: str) -> str:
    """A tar member's path without leading ``./`` and ``/`` (``lstrip`` would eat a hidden file's dot)."""
    while name.startswith(("./", "/")):
        name = name[2:] if name.startswith("./") else name[1:]
    return name


def _starts_as_zip(source: Archive) -> bool:
    """Whether ``source`` begins with a whole, plausible zip member header (``PK\\x03\\x04``, a known compression
    method, a file name of printable text): the start of a real zip, not bytes that only share its magic."""
    with _opened(source) as fh:
        head = fh.read(30 + 1024)
    if len(head) < 30 or head[:4] != b"PK\x03\x04":
        return False
    method, name_length = struct.unpack_from("<H", head, 8)[0], struct.unpack_from("<H", head, 26)[0]
    name = head[30 : 30 + name_length]
    return method in (0, 8, 9, 12, 14) and 0 < name_length == len(name) and name.isascii() and name.decode().isprintable()


def _ends_as_zip(source: Archive) -> bool:
    """Whether ``source`` ends with a zip's end of central directory record (``PK\\x05\\x06``, then its comment of at
    most 65,535 bytes, whose length the record gives): a zip whole to its end."""
    with _opened(source) as fh:
        fh.seek(0, io.SEEK_END)
        size = fh.tell()
        fh.seek(max(0, size - (65_535 + 22)))
        tail = fh.read()
    # the record where its comment's length puts it: 22 bytes and the comment end the file (trial 217: the signature
    # inside a member's bytes, in a zip cut short, was taken for its end record)
    at = tail.rfind(b"PK\x05\x06")
    while at >= 0:
        if len(tail) - at >= 22 and at + 22 + struct.unpack_from("<H", tail, at + 20)[0] == len(tail):
            return True
        at = tail.rfind(b"PK\x05\x06", 0, at)
    return False


def _read_zip(source: Archive, name: str, budget: Budget) -> Dump:
    try:
        archive = zipfile.ZipFile(io.BytesIO(source) if isinstance(source, bytes) else source)
        infos = [info for info in _counted_members(archive.infolist(), name) if not info.is_dir()]
    except _ARCHIVE_ERRORS as exc:
        if isinstance(exc, zipfile.BadZipFile) and _starts_as_zip(source) and _ends_as_zip(source):
            # trial 216: a zip of full length, a byte of its central directory overwritten, was said to be cut short
            raise DumpError(
                name,
                f"the zip archive's central directory (the list of its members at its end) is damaged ({exc}), though"
                " the archive is whole to its end record: copy it again, or recover its members (zip -FF FILE --out FIXED.zip)",
            ) from None
        if isinstance(exc, zipfile.BadZipFile) and _starts_as_zip(source):
            # trial 48: "File is not a zip file" read as a wrong file type for a download that stopped: a zip's
            # directory is at its end, so a zip cut short has none (unlike a .tar.gz, nothing of it can be read)
            raise DumpError(
                name,
                "the zip archive ends early (it starts as a zip, but the directory a zip ends with is missing: the file"
                " is cut short); download or copy it again",
            ) from None
        raise DumpError(name, f"broken zip archive: {exc}") from None

    def loader(info: zipfile.ZipInfo) -> Callable[[], bytes]:
        def load() -> bytes:
            # zipfile reads at most the declared size and checks the CRC: the declared size is what it costs.
            budget.charge(info.file_size, name)
            return archive.read(info)

        return load

    # trial 154: the links of a zip -y (its Unix mode, in the high bits of external_attr) were read as files holding
    # their targets' names, "not a Kubernetes object: plain text ('/etc/hostname')"; as a tar's, they are not followed
    links = [info for info in infos if stat.S_ISLNK(info.external_attr >> 16)]
    with archive:
        members = [(info.filename, loader(info)) for info in infos if info not in links]
        dump = _read_tree(members, f"{name}!", budget=budget)
    return _links_not_followed(dump, name, [(info.filename, "link") for info in links])


# ------------------------------------------------------------------------------------------- paths


def _clusters_in_subfolders(dump: Dump, label: str) -> list[str]:
    """A note for a folder read as one dump whose subfolders look like clusters of their own (trial 154: a fleet folder,
    a subfolder a cluster, was judged as one cluster, one's ClusterPolicy read for another's nodes; only the names two
    of them shared were said): two subfolders or more hold Nodes, and two or more hold a ClusterPolicy or a KubeVirt CR,
    or a Node's name stands in two of them."""
    nodes: dict[str, set[str]] = {}
    configured: set[str] = set()
    for o in dump.objects:
        rel = o.source.file[len(label) :] if o.source.file.startswith(label) else ""
        top = rel.split("/", 1)[0] if "/" in rel.split("!", 1)[0] else ""
        if not top:
            continue
        if o.kind == "Node":
            nodes.setdefault(top, set()).add(o.name)
        elif o.kind in ("ClusterPolicy", "KubeVirt"):
            configured.add(top)
    if len(nodes) < 2:
        return []
    shared = any(a & b for x, a in nodes.items() for y, b in nodes.items() if x < y)
    if len(configured & nodes.keys()) < 2 and not shared:
        return []
    named = first_few([f"{label}{d}/" for d in sorted(nodes)], 3)
    return [
        f"{label} holds {len(nodes)} subfolders with Nodes of their own ({named}), judged as one cluster: if each is a"
        f" cluster, audit each subfolder ({label}*/), a batch that judges each alone"
    ]


def _walk(root: Path, passed: list[str] | None = None) -> Iterator[tuple[str, Callable[[], bytes]]]:
    """Regular files below ``root`` (symlinks followed only to regular files; FIFOs, sockets and
    dangling links are passed over, so a folder can never block or crash the read, and named in ``passed``, with the
    links to folders, which are not followed: trial 154 found them passed over without a word)."""
    for dirpath, dirnames, filenames in os.walk(root):
        visible = sorted(d for d in dirnames if not d.startswith("."))
        if passed is not None:
            passed.extend(str((Path(dirpath) / d).relative_to(root)) for d in visible if (Path(dirpath) / d).is_symlink())
        dirnames[:] = visible
        for fname in sorted(filenames):
            if fname.startswith("."):
                continue
            full = Path(dirpath) / fname
            if not full.is_file():
                if passed is not None:
                    passed.append(str(full.relative_to(root)))
                continue
            yield str(full.relative_to(root)), full.read_bytes


STDIN = "<stdin>"
_DRIVE = re.compile(r"^[A-Za-z]:")


def dump_name_problem(value: str) -> str | None:
    """Why ``value`` cannot name a dump read from standard input or an HTTP body (``--stdin-name``, ``name=``), or
    None: it must be a relative file path a code-scanning service can find in the repository: printable, not
    absolute (``/x``, ``\\x``, ``C:x``), no ``..`` segment, and no ``!`` (which separates an archive from its
    member in a report's file names)."""
    if not value.strip():
        return "is empty or blank: give the dump's file name, a relative path such as clusters/lab.yaml"
    if value != value.strip():
        return "must not begin or end with a space"
    if not value.isprintable():
        return "holds a character that is not printable"
    if value.startswith(("/", "\\")) or _DRIVE.match(value):
        return "must be a relative path, not an absolute one"
    parts = re.split(r"[/\\]", value)
    if ".." in parts:
        return "must not hold a '..' segment"
    if "!" in value:
        return "must not hold '!' (it separates an archive from its member: archive!member)"
    if parts[-1] == "":
        return "must name a file, not a folder (a trailing '/')"
    if any(part in ("", ".") for part in parts):
        return "must be a plain relative path (no '.' segment, no '//')"
    return None


def read_path(path: str, progress: ProgressHook | None = None, stdin_name: str = STDIN) -> Dump:
    """Read a file, a directory (recursively) or ``-`` (standard input, its objects placed in ``stdin_name``).

    Raises ``DumpError`` naming the path when it does not exist or cannot be read at all.
    """
    if path == "-":
        import sys

        if progress:
            progress.file(stdin_name)
        data = sys.stdin.buffer.read()
        if not data:
            # `kubectl get nodes -o json | verdict audit -` with no kubeconfig: kubectl's error is on the terminal
            # and the pipe carries nothing (trial 73 was told only "no Kubernetes object found")
            raise DumpError(stdin_name, "standard input is empty: nothing came through the pipe (did the command before | fail?)")
        dump = parse_bytes(data, stdin_name)
        if progress:
            progress.objects(len(dump.objects))
        return dump
    p = Path(path)
    if p.is_dir():
        label = path.rstrip("/") + "/"
        passed: list[str] = []
        dump = _read_tree(_walk(p, passed), label, progress)
        if passed:
            dump.files_skipped.extend(f"{label}{rel}" for rel in passed)
            dump.notes.append(
                f"{counted(len(passed), 'entry', 'entries')} of {label} not read ({first_few([label + r for r in passed], 5)}):"
                " a link to a folder, a link whose target is missing, a FIFO, a socket or a device (a dump is read from regular"
                " files, and links to them)"
            )
        dump.notes.extend(_clusters_in_subfolders(dump, label))
        return dump
    try:
        archive = _archive_file(p, path)
        data = b"" if archive is not None else p.read_bytes()
    except FileNotFoundError:
        raise DumpError(path, "no such file or directory") from None
    except OSError as exc:
        raise DumpError(path, f"cannot read: {exc.strerror or exc}") from None
    if progress:
        progress.file(path)
    dump = archive() if archive is not None else parse_bytes(data, path)
    if progress:
        progress.objects(len(dump.objects))
    return dump


def _archive_file(p: Path, path: str) -> Callable[[], Dump] | None:
    """How to read the file ``p`` when it is a tar, zip or compressed tar (by its first bytes): from the file, whose
    bytes are never all held (a customer's must-gather tarball of a few GB reads in tens of MB); None for other
    files, which are read whole (``parse_bytes``)."""
    with open(p, "rb") as fh:
        head = fh.read(512 + 263)
    budget = Budget()
    if (fmt := compression(head)) and _holds_tar(p, fmt):

        def compressed_tar() -> Dump:
            with budget.level(path), budget.level(path):
                return _read_tar_stream(p, path, budget, fmt)

        return compressed_tar
    if head.startswith(ZIP_MAGICS) or is_tar(head):
        read = _read_zip if head.startswith(ZIP_MAGICS) else _read_tar

        def random_access() -> Dump:
            with budget.level(path):
                return read(p, path, budget)

        return random_access
    return None


def read_paths(paths: Iterable[str], progress: ProgressHook | None = None, stdin_name: str = STDIN) -> Dump:
    """Read several inputs into one dump (see ``read_path``)."""
    dump = Dump()
    for path in paths:
        dump.extend(read_path(path, progress, stdin_name))
    return dump
