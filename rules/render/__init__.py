"""Renderers: one module per format, each a function ``render(report, **options) -> str``.

Nothing in the evaluator knows a format; the CLI and the HTTP layer call ``render(report, fmt)``.
``FORMATS`` maps a format name to ``(module name, media type)``; modules are imported on first use.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..report import ObjectRef, ObjectReport, Report, Result
from ..shell import BIDI_CONTROLS

#: format name -> (module in rules.render, media type of its output)
FORMATS: dict[str, tuple[str, str]] = {
    "json": ("native", "application/json"),
    "yaml": ("native", "application/yaml"),
    "table": ("table", "text/plain; charset=utf-8"),
    "policyreport": ("policyreport", "application/yaml"),
    "sarif": ("sarif", "application/sarif+json"),
    "junit": ("junit", "application/xml"),
    "markdown": ("markdown", "text/markdown; charset=utf-8"),
    "chat": ("chat", "text/plain; charset=utf-8"),
}


class UnknownFormat(ValueError):
    """The format name is not in ``FORMATS``."""


class OptionError(ValueError):
    """A renderer option's value cannot be honoured (e.g. a PolicyReport size cap no result fits in);
    ``option`` is the option's ``Option.name``."""

    def __init__(self, option: str, reason: str) -> None:
        super().__init__(reason)
        self.option = option
        self.reason = reason


#: What a terminal or a chat client would act on rather than show: C0 and C1 control characters but the line feed
#: (ESC starts the sequences that recolour, hide, retitle or write the clipboard: CWE-150, kubectl's CVE-2021-25743),
#: DEL, and the bidirectional overrides and isolates that reorder what is shown (CVE-2021-42574).
_INVISIBLE = re.compile(f"[\x00-\x09\x0b-\x1f\x7f-\x9f{BIDI_CONTROLS}]")


def visible(text: str) -> str:
    """``text`` with each character a terminal or a chat client would act on written as its escape (``\\x1b``,
    ``\\u202e``): the text formats (table, markdown, chat) show a value of the dump, never run it (trial 180)."""
    return _INVISIBLE.sub(_escaped, text) if _INVISIBLE.search(text) else text


#: ``_INVISIBLE`` and the line breaks (``one_line``).
_OFF_LINE = re.compile(f"[{_INVISIBLE.pattern[1:-1]}\n\u2028\u2029]")


def _escaped(m: re.Match[str]) -> str:
    """A character as its escape: ``\\x1b``, ``\\u202e``."""
    return f"\\x{ord(m.group()):02x}" if ord(m.group()) < 0x100 else f"\\u{ord(m.group()):04x}"


def one_line(text: str) -> str:
    """``visible``, and a line break written as its escape too (``\\x0a``, ``\\u2028``): an object's name or a
    file's, which the text formats put on a line of their own or in a code span, never starts a line of its own (trial
    191: a Node named "gpu-y\\n```\\n*INJECTED* <!channel>" wrote lines of its choosing at column 0 of a table
    and broke a chat heading's code span)."""
    return _OFF_LINE.sub(_escaped, text)


#: How a report's details are laid out by the formats that can choose (``group_by``).
GROUP_BY = ("rule", "object")


#: Characters that make a name found in a text part of something else where they stand before it: a longer name
#: (``x.gpu-1``, ``big_gpu-1``), a label's or a field's value (``gpu-type=a100``, ``pool: a100``), a path or a
#: resource name (``nvidia.com/gpu``).
_NOT_BEFORE = frozenset("_.-=/:")


def _marked(text: str, word: str, mark: str) -> str:
    """``text`` with each occurrence of ``word`` that stands as a word of its own put as ``mark``: not inside a longer
    name (a letter, digit, ``_``, ``-`` or a dot and a letter after it) nor after ``_NOT_BEFORE``. Plain string search:
    a pattern compiled for each object's name would overflow ``re``'s cache on a large report."""
    out: list[str] = []
    n, i = len(word), 0
    while (j := text.find(word, i)) >= 0:
        before = text[j - 1] if j else " "
        after = text[j + n : j + n + 2] + "  "  # (a space past the end: nothing follows)
        inside = before.isalnum() or before in _NOT_BEFORE
        inside = inside or after[0].isalnum() or after[0] in "_-" or (after[0] == "." and after[1].isalnum())
        if inside:
            out.append(text[i : j + 1])
            i = j + 1
        else:
            out.append(text[i:j])
            out.append(mark)
            i = j + n
    out.append(text[i:])
    return "".join(out)


def message_shape(ref: ObjectRef, message: str) -> str:
    """``message`` with ``ref``'s own reference put as marks: ``namespace/name``, the namespace after ``-n`` or
    ``--namespace`` or the word namespace, the name standing as a word of its own (not a label's value,
    ``gpu-type=a100``, nor part of a path, ``nvidia.com/gpu``: trial 222 #2). Two results of one rule whose shapes are
    equal say one thing, each of its own object."""
    name, namespace = ref.name, ref.namespace
    if not name:
        return message
    if namespace:
        message = _marked(message, f"{namespace}/{name}", "\x00R")
        for lead in ("-n ", "--namespace ", "--namespace=", "namespace "):
            message = _marked(message, f"{lead}{namespace}", f"{lead}\x00S")
    if ref.kind == "Node":
        # a field selector of its own name, a value the rule above leaves (trial 237 #4: four nodes' fixes each ran
        # "kubectl get pods -A --field-selector spec.nodeName=<node>", and chat said each in a paragraph of its own)
        message = _marked(message, f"spec.nodeName={name}", "spec.nodeName=\x00N")
    return _marked(message, name, "\x00N")


def said_before(
    group: list[tuple[ObjectReport, Result]],
) -> Iterator[tuple[tuple[ObjectReport, Result] | None, ObjectReport | None]]:
    """For each result of a group of one rule's, in order: the first earlier finding whose message it says again of its
    own object (``message_shape``, and of the same kind), and the object of an earlier one whose fix is the same text
    (that one where it is, else the first); None where it says its own, and no object where it has no fix (trial 218
    #5: sixteen VMs asking for one name KubeVirt does not permit repeated one message and one fix sixteen times, five
    lines each, in the terminal's table). A fix is compared as it is written, so that one naming its own object
    (``kubectl label node gpu-2 ...``) is always shown: it is what is run. Made one by one, as the results are said: a
    Markdown message cut after a few rows of a group of 100,000 looks at those rows only."""
    said: dict[tuple[str, str], int] = {}
    fixed: dict[str, int] = {}
    for i, (obj, r) in enumerate(group):
        shape = (obj.ref.kind, message_shape(obj.ref, r.message))
        fix = r.remediation.strip()
        lead = said.get(shape)
        if not fix:
            at = None
        elif lead is not None and group[lead][1].remediation.strip() == fix:
            at = lead  # the one whose message it says has its fix too
        else:
            at = fixed.get(fix)
        yield (None if lead is None else group[lead]), (None if at is None else group[at][0])
        said.setdefault(shape, i)
        if fix:
            fixed.setdefault(fix, i)


def said_again(ref: str, same_fix: bool) -> str:
    """What a finding said as an earlier one of its rule is says of it, naming that one (``ref``, as the format writes
    it): the table's line and Markdown's message cell."""
    return f"as for {ref} above (the same message, of this object{', and the same fix' if same_fix else ''})"


def check_group_by(group_by: str) -> None:
    """Raises ``OptionError`` unless ``group_by`` is one of ``GROUP_BY`` (table, markdown and junit ask)."""
    if group_by not in GROUP_BY:
        raise OptionError("group_by", f"unknown group_by {group_by!r}; one of {', '.join(GROUP_BY)}")


#: PolicyReport versions (``policyreport.API_VERSIONS`` holds the same; a test keeps them equal).
POLICYREPORT_VERSIONS = ("v1alpha2", "v1beta1")


@dataclass(frozen=True, slots=True)
class Option:
    """A renderer option a user can set, from the CLI (``flag``) and the API (``query``). ``name`` is the
    renderer's keyword argument; ``formats`` are the formats it applies to (anywhere else it is refused);
    ``kind`` is ``bool``, ``int`` or ``str`` (then ``choices`` when not empty)."""

    name: str
    flag: str
    query: str
    formats: tuple[str, ...]
    kind: type
    help: str
    choices: tuple[str, ...] = ()

    def where(self) -> str:
        """``markdown`` or ``junit, markdown or table``: the formats it applies to, for a message."""
        names = sorted(self.formats)
        return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


#: Every renderer option a user can set (docs/report-formats.md, "Options").
OPTIONS: tuple[Option, ...] = (
    Option(
        "group_by",
        "--group-by",
        "groupBy",
        ("table", "markdown", "junit", "chat"),
        str,
        "details after the roll-up: by rule (default) or by object.",
        GROUP_BY,
    ),
    Option(
        "limit",
        "--limit",
        "limit",
        ("markdown", "chat"),
        int,
        "cut the message to this many characters (default 3500, a chat message's room; 0: no cut, as for a file such"
        " as a CI step summary).",
    ),
    Option(
        "all_results",
        "--sarif-all-results",
        "sarifAllResults",
        ("sarif",),
        bool,
        "every result, pass and skip too (kind pass / notApplicable), not only the findings.",
    ),
    Option(
        "warn_as_failure",
        "--junit-warn-as-failure",
        "junitWarnAsFailure",
        ("junit",),
        bool,
        'a warn is a <failure type="warn"> (a passing test case with WARN in its output otherwise).',
    ),
    Option(
        "api_version",
        "--policyreport-version",
        "policyReportVersion",
        ("policyreport",),
        str,
        "wgpolicyk8s.io version (default v1alpha2, what Kyverno and Policy Reporter read).",
        POLICYREPORT_VERSIONS,
    ),
    Option(
        "max_bytes",
        "--policyreport-max-bytes",
        "policyReportMaxBytes",
        ("policyreport",),
        int,
        "split a report larger than this many bytes (default 1048576; 200000 suits client-side kubectl apply).",
    ),
    Option(
        "output_format",
        "--policyreport-output",
        "policyReportOutput",
        ("policyreport",),
        str,
        "the List as yaml (default) or json.",
        ("yaml", "json"),
    ),
)


def media_type(fmt: str, **options: Any) -> str:
    """The media type of a format's output (with ``options``: a PolicyReport List written as JSON is
    ``application/json``). Raises ``UnknownFormat``."""
    if fmt not in FORMATS:
        raise UnknownFormat(f"unknown format {fmt!r}; one of {', '.join(sorted(FORMATS))}")
    if fmt == "policyreport" and options.get("output_format") == "json":
        return "application/json"
    return FORMATS[fmt][1]


def _module(fmt: str) -> Any:
    """The renderer module of ``fmt``. Raises ``UnknownFormat``."""
    media_type(fmt)
    return importlib.import_module(f"{__name__}.{FORMATS[fmt][0]}")


def render(report: Report, fmt: str = "json", **options: Any) -> str:
    """Render ``report`` as ``fmt``. Raises ``UnknownFormat``."""
    module = _module(fmt)
    return str(module.render(report, fmt=fmt, **options))


def stream(report: Report, fmt: str, **options: Any) -> Iterator[bytes]:
    """Render ``report`` as ``fmt`` in pieces of UTF-8 bytes (for an HTTP response): piece by piece where
    the format module has ``pieces`` (native JSON), else the whole rendering. Raises ``UnknownFormat``."""
    module = _module(fmt)
    if fmt == "json" and hasattr(module, "pieces"):
        return iter(module.pieces(report))
    return iter([render(report, fmt, **options).encode()])


def write(report: Report, fmt: str, fh: Any, **options: Any) -> None:
    """Render ``report`` as ``fmt`` into the binary file ``fh``: streamed piece by piece where the format
    module has ``write`` (native JSON: a 55,000-object report is never one string in memory), else
    ``render`` encoded as UTF-8. Raises ``UnknownFormat``."""
    module = _module(fmt)
    if hasattr(module, "write") and module.write(report, fh, fmt=fmt, **options):
        return
    fh.write(render(report, fmt, **options).encode())


def render_many(reports: list[Report], fmt: str = "json", **options: Any) -> str:
    """Render one report per dump plus a total: JSON/YAML give ``{kind: ReportList, total, reports}``, and each
    other format's module its own ``render_many``."""
    module = _module(fmt)
    if hasattr(module, "render_many"):
        return str(module.render_many(reports, fmt=fmt, **options))
    # how many dumps, and how many of them gave no object (trial 197: a nightly job counted them from reports[])
    unread = sum(1 for r in reports if not r.objects_read)
    data = {
        "apiVersion": "verdict/v1",
        "kind": "ReportList",
        "total": {"dumps": len(reports), "dumpsNotRead": unread, **Report.total(reports)},
        "reports": [r.to_dict() for r in reports],
    }
    return str(module.render(data, fmt=fmt))
