"""``verdict``: audit dumps, serve the HTTP API, list/show/lint/test policies.

Exit codes: 0 clean, 1 findings at or above ``--fail-on``, 2 bad usage, unreadable input or a broken
policy. What a program reads (the report) goes to stdout or ``-o``; messages go to stderr.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterable
from contextlib import nullcontext
from pathlib import Path
from typing import Any, NoReturn

import click

from . import __version__, heap
from .engine import audit_batch, said_unread, split_dumps, unread_report, why_none
from .errors import DumpError, PolicyError, RuleLookupError, meant
from .exemptions import ExemptionLoadError, ExemptionSet, about_the_file, load_exemptions
from .loader import PolicyLoadError, PolicySet, comment_cut, load_policies, pack_folders_unread, texts_cut_at_comments
from .parallel import JobsError, jobs_setting
from .progress import Progress
from .reader import STDIN, WHAT_IS_READ, dump_name_problem
from .render import FORMATS, OPTIONS, OptionError, UnknownFormat, one_line, visible
from .render.markdown import MIN_LIMIT
from .report import RESULT_RANK, RESULTS, SEVERITIES, Report, counted
from .selection import Selection, SelectionError

FAIL_ON = ("fail", "warn", "error", "never")


class Choice(click.Choice):  # type: ignore[type-arg]
    """click's ``Choice`` whose refusal names the choice a word likely stands for (``-f markdwon`` -> did you mean
    'markdown'?), as the other options and the service's query values do."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter as exc:
            hint = meant(str(value), [str(c) for c in self.choices])
            if not hint:
                raise
            raise click.BadParameter(f"{exc.message.rstrip('.')}{hint}.", ctx=ctx, param=param) from None


def _err(message: str) -> None:
    """``message`` on standard error, a control character of the dump in it as its escape (trial 180: a name with
    ESC ]0; retitled the terminal)."""
    try:
        click.echo(visible(message), err=True)
    except BrokenPipeError:  # `2>&1 | head`: the reader is gone; the exit status still says the verdict
        _to_devnull(sys.stderr)


def _note(note: str) -> None:
    """A report's note on standard error, on one line: a line break in a file's or an object's name it holds is written
    as its escape (trial 196: a file named "c1\\n# INJ <!channel>\\n.yaml" gave the batch note lines of its own)."""
    _err(f"verdict: note: {one_line(note)}")


def _input_error(err: Any) -> None:
    """An input error on standard error, on one line (trial 201: a file name's line break gave it lines of its own)."""
    _err(f"verdict: input error: {one_line(str(err))}")


def _to_devnull(stream: Any) -> None:
    """Send what is still to be written to ``stream`` (its reader stopped reading) nowhere."""
    os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())


def _load(policy: tuple[str, ...]) -> PolicySet:
    try:
        return load_policies(policy)
    except PolicyLoadError as exc:
        for e in exc.errors:
            _err(f"verdict: policy refused: {e}")
        raise SystemExit(2) from None


def _load_exemptions(files: tuple[str, ...]) -> ExemptionSet | None:
    if not files:
        return None
    try:
        return load_exemptions(files)
    except ExemptionLoadError as exc:
        for e in exc.errors:
            _err(f"verdict: exemptions refused: {e}")
        raise SystemExit(2) from None


def exit_code(report: Report, fail_on: str) -> int:
    """1 when the worst result reaches ``fail_on`` (``error > fail > warn``), else 0."""
    if fail_on == "never":
        return 0
    return 1 if RESULT_RANK[report.worst()] >= RESULT_RANK[fail_on] else 0


class TerminalProgress(Progress):
    """The phases of an audit with their counts, one line each, on a rich display (standard error, a
    terminal only: ``_progress_console``). It is erased when the run ends; ``stop`` ends it early, before
    the report goes to the same terminal."""

    def __init__(self, console: Any) -> None:
        from rich.progress import BarColumn, TaskProgressColumn, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as Display

        self.display = Display(
            TextColumn("{task.description}"),
            BarColumn(),
            TaskProgressColumn(),
            TimeElapsedColumn(),
            console=console,
            transient=True,
            redirect_stdout=False,  # the report is written to stdout by us, never through rich
            redirect_stderr=False,
        )
        self.name, self.files, self.count = "", 0, 0
        self.tasks: dict[str, Any] = {}

    def __enter__(self) -> TerminalProgress:
        self.display.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()

    def stop(self) -> None:
        """End the display (erased; idempotent)."""
        self.display.stop()

    def _show(self, phase: str, description: str, done: int | None = None, total: int | None = None) -> None:
        task = self.tasks.get(phase)
        if task is None:
            task = self.tasks[phase] = self.display.add_task(description, total=total)
        self.display.update(task, description=description, completed=done or 0, total=total)

    def _reading(self, current: str = "", done: bool = False) -> None:
        files = f"{self.files:,} file{'s' if self.files != 1 else ''}"
        at = f" ({current})" if current else ""
        word = "read" if done else "reading"
        self._show("read", f"{word} {self.name}: {files}, {self.count:,} objects{at}", 1 if done else None, 1 if done else None)

    def dump(self, name: str) -> None:
        self.name, self.files, self.count = name, 0, 0
        self._reading()

    def file(self, name: str) -> None:
        self.files += 1
        self._reading(name)

    def objects(self, count: int) -> None:
        self.count += count
        self._reading()

    def evaluating(self, done: int, total: int, rules: int) -> None:
        if done == 0:
            self._reading(done=True)  # evaluation starts once the whole dump is read
        word = "evaluated" if done == total else "evaluating"
        self._show("evaluate", f"{word} {done:,}/{total:,} objects × {rules:,} rules", done, total)

    def rendering(self, fmt: str, results: int) -> None:
        self._show("render", f"rendering {fmt}: {results:,} results")


def _progress_console() -> Any:
    """The console progress goes to: standard error when it is a terminal, else None (no progress: a pipe,
    a file, CI logs)."""
    if not sys.stderr.isatty():
        return None
    from rich.console import Console

    return Console(stderr=True)


def _results_option(value: str | None) -> set[str] | None:
    if not value:
        return None
    words = {w.strip() for w in value.split(",") if w.strip()}
    bad = sorted(words - set(RESULTS))
    if bad:
        shown = [f"{word!r}{meant(word, RESULTS)}" for word in bad]
        unknown = "unknown result" + ("s" if len(bad) > 1 else "")
        raise click.BadParameter(f"{unknown} {', '.join(shown)}; use {', '.join(RESULTS)}", param_hint="--results")
    return words


def _renderer_options(command: Any) -> Any:
    """The options of ``rules.render.OPTIONS`` as click options of ``command`` (each refused with another
    format by ``_options``)."""
    for opt in reversed(OPTIONS):
        text = f"{opt.where()}: {opt.help}"
        if opt.kind is bool:
            command = click.option(opt.flag, opt.name, is_flag=True, default=False, help=text)(command)
        else:
            kind = Choice(opt.choices) if opt.choices else click.IntRange(min=0 if opt.name == "limit" else 1)
            command = click.option(opt.flag, opt.name, type=kind, default=None, help=text)(command)
    return command


def _options(fmt: str, given: dict[str, Any]) -> dict[str, Any]:
    """The renderer options given on the command line (``None``/``False``: not given), each checked to apply
    to ``fmt``. Raises ``click.BadParameter`` naming the option otherwise."""
    out: dict[str, Any] = {}
    for opt in OPTIONS:
        value = given.get(opt.name)
        if value is None or value is False:
            continue
        if fmt not in opt.formats:
            raise click.BadParameter(f"{opt.flag} applies to --format {opt.where()}", param_hint=opt.flag)
        out[opt.name] = value
    if 0 < out.get("limit", 0) < MIN_LIMIT:
        raise click.BadParameter(f"a chat message needs at least {MIN_LIMIT} characters; 0 means no limit", param_hint="--limit")
    return out


#: Columns of the table when the output is not a terminal and COLUMNS does not say.
TABLE_WIDTH = 160


def _columns() -> int | None:
    """``COLUMNS`` when it is set to a number (at least 40: narrower, nothing reads well), else None."""
    columns = os.environ.get("COLUMNS", "").strip()
    return max(40, int(columns)) if columns.isdigit() else None


def _table_width(terminal: bool) -> int:
    """The table's width: the terminal's when the report goes to one, else ``COLUMNS`` when set, else
    ``TABLE_WIDTH`` (at least 40: narrower, nothing reads well)."""
    if terminal:
        return max(40, shutil.get_terminal_size((TABLE_WIDTH, 24)).columns)
    return _columns() or TABLE_WIDTH


class _Verdict(click.Group):
    """verdict's commands; a first argument that names a dump rather than a command is told the command it needs
    (trial 160: "verdict nodes.yaml" got "No such command 'nodes.yaml'.", no hint)."""

    def resolve_command(self, ctx: click.Context, args: list[str]) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        if name and name not in self.commands and (name == "-" or os.path.exists(name)):
            raise click.UsageError(f"No such command {name!r}: to audit it, verdict audit {name}", ctx)
        return super().resolve_command(ctx, args)


@click.group(cls=_Verdict, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="verdict")
def main() -> None:
    """Judge Kubernetes dumps with policy-as-data rules (built-in: NVIDIA GPU Operator / KubeVirt)."""
    from .limits import problems

    for problem in problems():
        _err(f"verdict: {problem}")
    if problems():
        raise SystemExit(2)


@main.command()
@click.argument("paths", nargs=-1, required=True)
@click.option(
    "-p",
    "--policy",
    multiple=True,
    help="Policy file, pack folder or built-in pack name (repeatable; default: the built-in packs).",
)
@click.option("-r", "--rule", multiple=True, help="Only these rules (policy/rule or rule id; repeatable).")
@click.option(
    "--skip-rule",
    "skip_rules",
    multiple=True,
    help="Leave out these rules (policy/rule or rule id; repeatable); exemptions skip findings, this skips whole rules.",
)
@click.option(
    "--exemptions",
    multiple=True,
    type=click.Path(dir_okay=False),
    help="Exemptions file (kind: Exemptions; repeatable): accepted findings are reported as skip.",
)
@click.option(
    "-f",
    "--format",
    "fmt",
    default="json",
    show_default=True,
    type=Choice(sorted(FORMATS), case_sensitive=False),
    help="Report format.",
)
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), help="Write the report here.")
@click.option(
    "--fail-on",
    type=Choice(FAIL_ON),
    default="fail",
    show_default=True,
    help="Exit 1 when a result at or above this is found (error > fail > warn).",
)
@click.option("--min-severity", type=Choice(SEVERITIES), help="Report only results of this severity or above.")
@click.option("--results", "results_filter", help="Report only these results, e.g. fail,warn.")
@click.option(
    "--kind", "kinds", multiple=True, help="Judge only objects of these kinds (Node, nodes or no; repeatable or comma-separated)."
)
@click.option(
    "-n",
    "--namespace",
    "namespaces",
    multiple=True,
    help="Judge only objects in these namespaces (repeatable; cluster-scoped objects such as Nodes are in none).",
)
@click.option(
    "-l",
    "--selector",
    default="",
    help="Judge only objects whose labels match this label selector, as kubectl -l takes it: a=b,c!=d,e in (f,g),!h.",
)
@click.option(
    "--name", "names", multiple=True, help="Judge only objects whose name matches one of these globs (gpu-*; repeatable)."
)
@click.option(
    "-j",
    "--jobs",
    type=int,
    default=None,
    help="Processes judging a large dump, or the dumps of a batch (default $VERDICT_JOBS or the processors at hand).",
)
@click.option(
    "--stdin-name",
    default=None,
    metavar="FILE",
    help="The file name of what - reads (a relative path, e.g. k8s/rendered.yaml): reports place its objects in it"
    " (SARIF physicalLocation with each object's line) instead of <stdin>.",
)
@click.option(
    "-q",
    "--quiet",
    is_flag=True,
    help="Print no notes on standard error (the report keeps them); input errors, refusals and warnings are still printed.",
)
@click.option(
    "--note",
    "extra_notes",
    multiple=True,
    metavar="TEXT",
    help="A note for the report (repeatable): what the caller knows of the dump that it does not show, e.g. the"
    " kinds kubectl was not allowed to list (the kubectl plugin gives them).",
)
@_renderer_options
def audit(
    paths: tuple[str, ...],
    policy: tuple[str, ...],
    rule: tuple[str, ...],
    skip_rules: tuple[str, ...],
    exemptions: tuple[str, ...],
    fmt: str,
    output: str | None,
    fail_on: str,
    min_severity: str | None,
    results_filter: str | None,
    kinds: tuple[str, ...],
    namespaces: tuple[str, ...],
    selector: str,
    names: tuple[str, ...],
    jobs: int | None,
    stdin_name: str | None,
    quiet: bool,
    extra_notes: tuple[str, ...],
    **renderer: Any,
) -> None:
    """Audit PATHS: files, folders, archives (.tar, .tar.gz, .zip), must-gather folders, describe text,
    or - for standard input. Each PATH is one dump; a folder holding only archives or must-gathers is one
    dump per archive or must-gather. --kind, -n, -l and --name choose the objects judged; the rules still read
    the whole dump."""
    wanted = _results_option(results_filter)
    _check_output(output)
    policies = _load(policy)
    accepted = _load_exemptions(exemptions)
    if rule or skip_rules:
        try:
            policies = policies.select(rules=rule, skip=skip_rules)
        except RuleLookupError as exc:
            hint = "--skip-rule" if all(p.skip for p in exc.problems) else "--rule"
            raise click.BadParameter(str(exc), param_hint=hint) from None
        if not policies.rules:
            raise click.BadParameter("leaves no rule to judge", param_hint="--skip-rule")
    options = _options(fmt, renderer)  # refused before a large dump is read, not after
    try:
        judged = {kind for r in policies.rules for kind in r.match.kinds}
        selection = Selection.of(kinds, namespaces, selector, names, judged)
    except SelectionError as exc:
        raise click.BadParameter(exc.reason, param_hint="--kind" if exc.parameter == "kind" else "-l/--selector") from None
    try:
        workers = jobs_setting(jobs)
    except JobsError as exc:
        raise click.BadParameter(str(exc), param_hint="--jobs") from None
    if stdin_name is not None:
        problem = dump_name_problem(stdin_name)
        if problem:
            raise click.BadParameter(f"{stdin_name!r} {problem}", param_hint="--stdin-name")
        if "-" not in paths:
            raise click.BadParameter("names what - reads, and no PATH is -", param_hint="--stdin-name")
    stdin = stdin_name or STDIN  # the name of what - reads: reports place its objects there (rules.engine.audit_batch)
    batch_notes: list[str] = list(extra_notes)
    dumps = [(dump, stdin if dump == "-" else dump) for dump in split_dumps(paths, batch_notes)]
    if accepted is not None:
        batch_notes += [
            f"exemption {e.source} ({', '.join(e.rules)}: {e.reason}) names dumps ({', '.join(e.dumps)}) that match none"
            f" of the {counted(len(dumps), 'dump')} audited: not applied"
            for e in accepted.exemptions
            if e.dumps and not any(e.covers_dump(name) for _, name in dumps)
        ]
    for note in [] if quiet else batch_notes:
        _note(note)
    console = _progress_console()
    progress = TerminalProgress(console) if console is not None else None
    with progress or nullcontext():
        try:
            reports = audit_batch(dumps, policies, progress, exemptions=accepted, selection=selection, jobs=workers)
        except DumpError as exc:
            if progress:
                progress.stop()
            _err(f"verdict: cannot read {one_line(str(exc))}")
            if _report_unread(fmt, output):  # the report says it too, rather than an earlier run's (trial 48)
                with heap.frozen():
                    _render_out([unread_report(exc, policies, dumps[0][1], accepted, selection)], fmt, output, options)
            raise SystemExit(2) from None
        except MemoryError:
            # exit 1 would read as findings: the audit did not happen
            if progress:
                progress.stop()
            _err(
                "verdict: out of memory while reading or judging the dump (the process's memory limit, ulimit -v or a"
                " container's, is too small for it): no verdict"
            )
            raise SystemExit(2) from None
        # What the arguments came to (a batch folder's files not read, loose files judged apart) is in every report
        # too, not only on standard error, where it is said once (trial 64: a nightly job keeps the -o file only).
        for r in reports:
            r.notes[:0] = batch_notes
        paths_of = [path for path, _ in dumps]
        _report(reports, fmt, output, fail_on, wanted, min_severity, options, progress, paths_of, quiet, frozenset(batch_notes))


#: What a kubectl user types after -o (kubectl get -o yaml|json|wide|name): here a format name, not a file.
_KUBECTL_OUTPUTS = frozenset((*FORMATS, "wide", "name", "md", "text"))


def _check_output(output: str | None) -> None:
    """Refuse an ``-o`` file whose folder does not exist before a large dump is read, not after; and ``-o yaml``,
    ``-o table``, as kubectl takes ``-o``, which would write the report to a file named so (trial 160: JSON in files
    named ``table`` and ``yaml``, nothing on the terminal, and with -q no word)."""
    if output and output.lower() in _KUBECTL_OUTPUTS and not os.path.exists(output):
        fmt = output.lower() if output.lower() in FORMATS else "table"
        raise click.BadParameter(
            f"'{output}' would be the name of the file the report is written to: -o names the report's file (as in -o"
            f" report.json), the format is -f (did you mean -f {fmt}?); to write a file named so, say -o ./{output}",
            param_hint="-o/--output",
        )
    if output and not os.path.isdir(os.path.dirname(os.path.abspath(output))):
        raise click.BadParameter(f"{output}: its folder does not exist", param_hint="-o/--output")


def _stdout_is_terminal() -> bool:
    """Whether standard output is a terminal (a report read there, not redirected)."""
    return sys.stdout.isatty()


def _report_unread(fmt: str, output: str | None) -> bool:
    """Whether a report of a dump read as nothing is written: to the report file, or to standard output in a format
    for programs when it is redirected or piped (trial 69: a nightly `> out.json` was an empty file). On a terminal,
    and in a table or a chat message, it would only repeat standard error."""
    return bool(output) or (fmt in _FOR_PROGRAMS and not sys.stdout.isatty())


def _report(
    reports: list[Report],
    fmt: str,
    output: str | None,
    fail_on: str,
    wanted: set[str] | None,
    min_severity: str | None,
    options: dict[str, Any],
    progress: TerminalProgress | None,
    paths: list[str],
    quiet: bool = False,
    said: frozenset[str] = frozenset(),
) -> None:
    """Write the reports and exit: 2 when a dump had no object, else 1 or 0 by ``fail_on``. ``said``: notes
    already printed on standard error (the batch's), not printed again for each report."""
    # A dump with no readable object is almost always a failed producer (kubectl with a wrong context piped
    # in) or not a dump at all: never let it pass as a clean cluster, nor as findings (docs/service.md: 400).
    unread = [(r, path) for r, path in zip(reports, paths, strict=True) if r.objects_read == 0]
    unreadable = [r for r, _ in unread]
    if unreadable and progress:
        progress.stop()
    if len(reports) > 1 and not quiet:
        # a note about the exemptions files (an expired entry, a rule id that names none), which every dump of the
        # batch carries, once, before theirs (trial 175: 11 dumps said each 11 times, 3 without the dump's name); a
        # note about a dump (its skips, what it assumed) is said with its name, though another's reads the same
        # (trial 176: its counts then read as the batch's)
        common = [n for n in reports[0].notes if n not in said and about_the_file(n) and all(n in r.notes for r in reports[1:])]
        for note in common:
            _note(note)
        said |= frozenset(common)
    # a table on the terminal lists each dump's input errors under its findings (trial 163: each said twice)
    tabled = fmt == "table" and output is None and _stdout_is_terminal()
    for r, path in unread:
        # what was set aside says why nothing was read (trial 60: a folder that is itself a Helm chart)
        for note in [] if quiet else r.notes:
            if note not in said:
                _note(note)
        if r.input_errors:
            # (trial 166: a batch's unreadable dump on the terminal: its table is written, its errors in it)
            for err in [] if tabled and len(unreadable) < len(reports) else r.input_errors:
                _input_error(err)
            # what verdict reads is no help for a path that is not there (trial 48)
            hint = f": {WHAT_IS_READ}" if path == "-" or os.path.lexists(path) else ""
            _err(
                f"verdict: no Kubernetes object could be read from {one_line(r.name)}"
                f" ({counted(len(r.input_errors), 'input error')}){hint}"
            )
        else:
            # the files set aside were said in a note above (or -q asked for none); an empty file is said here
            _err(f"verdict: no Kubernetes object found in {one_line(r.name)}{'' if r.files_skipped else why_none(r, path)}")
    if len(unreadable) == len(reports):
        if _report_unread(fmt, output):
            # CI uploads the report file: one left from an earlier run must not stand for this one (trial 48). It
            # holds why nothing was read as input errors (JUnit errors, SARIF notifications).
            with heap.frozen():
                _render_out([said_unread(r, path) for r, path in unread], fmt, output, options)
        raise SystemExit(2)
    reports_read = [r for r in reports if r.objects_read]
    # --min-severity sets what the exit code counts as well as what is listed (a CI gate on severity, as
    # Trivy's --severity); --results only chooses what is listed, --fail-on is the gate on result words.
    gated = [r.filtered(None, min_severity) for r in reports] if min_severity else reports
    code = 2 if unreadable else max(exit_code(r, fail_on) for r in gated)
    shown = [r.filtered(wanted, min_severity) if (wanted or min_severity) else r for r in reports]
    unlisted = code == 1 and bool(wanted) and not any(exit_code(r, fail_on) for r in shown)
    terminal = output is None and _stdout_is_terminal()
    if fmt == "table":
        options |= {"color": terminal, "width": _table_width(terminal)}
    if progress:
        progress.rendering(fmt, sum(len(o.results) for r in shown for o in r.objects))
        if terminal:
            progress.stop()  # the report goes to the terminal the display is drawn on: end it first
    try:
        # The dumps and reports live until the process ends (rules.heap): rendering need not walk them.
        with heap.frozen():
            _render_out(shown, fmt, output, options)
    except UnknownFormat as exc:
        raise click.BadParameter(str(exc), param_hint="--format") from None
    except OptionError as exc:
        flag = next(o.flag for o in OPTIONS if o.name == exc.option)
        raise click.BadParameter(exc.reason, param_hint=flag) from None
    if progress:
        progress.stop()
    if output and fmt in ("markdown", "chat") and not quiet:
        _said_cut(output)
    for r in reports_read:
        for err in [] if tabled else r.input_errors:
            _input_error(err)
        # Notes (an expired exemption, a must-gather without ClusterPolicy) reach every format's user; in a
        # batch each says its dump.
        of = f"{r.name}: " if len(reports) > 1 else ""
        for note in [] if quiet else r.notes:
            if note not in said:
                # (trial 175: "x.zip: x.zip: 1 member ...": a note that starts with the dump's name says it already)
                _note(f"{'' if note.startswith(f'{r.name}:') else of}{note}")
    if fmt == "sarif" and len(reports) > SARIF_RUNS_PER_FILE:
        # trial 105: a nightly audit of a folder of 21 dumps wrote a file that code scanning rejects (a warning, said
        # with -q too, which silences notes the report keeps: this is in no report; trial 107)
        _err(
            f"verdict: warning: the SARIF log holds {len(reports)} runs, one per dump; GitHub code scanning refuses a file"
            f" of more than {SARIF_RUNS_PER_FILE} runs: audit at most {SARIF_RUNS_PER_FILE} dumps into each SARIF file"
            " (one per dump: verdict audit DUMP -f sarif -o DUMP.sarif) and upload each file"
        )
    if unlisted:
        worst = max((r.worst() for r in gated), key=RESULT_RANK.__getitem__)
        _err(f"verdict: note: exit 1 for {worst} results that --results {','.join(sorted(wanted or ()))} does not list")
    warned = sum(r.summary()["results"]["warn"] for r in gated) if code == 0 and fail_on == "fail" else 0
    if warned and not quiet:
        # trial 223 #3: a node labelled for VMs that serves containers, a warning where no ClusterPolicy is in the
        # dump, ended a run that exits 0 with no word of the gate
        _note(f"exit 0 with {counted(warned, 'warning')} (advisory findings); --fail-on warn makes a warning fail the run")
    raise SystemExit(code)


#: GitHub code scanning's hard limit of runs in one SARIF file
#: (https://docs.github.com/en/code-security/code-scanning/troubleshooting-sarif-uploads/results-exceed-limit).
SARIF_RUNS_PER_FILE = 20

#: The formats programs read: a dump read as nothing still writes its report in them, wherever it goes.
_FOR_PROGRAMS = frozenset({"json", "yaml", "junit", "sarif", "policyreport"})


def _said_cut(output: str) -> None:
    """A note when a markdown or chat report written to ``output`` was cut at its limit (trial 175: a batch's
    markdown written for a CI step summary held 2 of its 11 dumps, which only the file's last line said)."""
    try:
        with open(output, "rb") as fh:
            fh.seek(max(0, os.path.getsize(output) - 1024))
            tail = fh.read().decode("utf-8", errors="replace")
    except OSError:
        return
    from .render.markdown import cut_said

    if cut := cut_said(tail):
        _err(f"verdict: note: {output}: {cut[0]} not shown (--limit {cut[1]}; --limit 0 writes the whole report)")


def _render_out(reports: list[Report], fmt: str, output: str | None, options: dict[str, Any]) -> None:
    """The reports rendered as ``fmt`` into the file ``output``, else onto standard output."""
    if output:
        try:
            with open(output, "wb") as fh:
                _write(reports, fmt, fh, options)
        except OSError as exc:
            _err(f"verdict: cannot write the report to {output}: {exc.strerror or exc}")
            raise SystemExit(2) from None
    else:
        try:
            sys.stdout.flush()
            out = sys.stdout.buffer
            _write(reports, fmt, out, options)
            out.flush()
        except BrokenPipeError:
            # The reader stopped reading (| head): the verdict stands, and its exit status says it (click made
            # it 1, "findings", for a clean dump).
            _to_devnull(sys.stdout)


def _write(reports: list[Report], fmt: str, fh: Any, options: dict[str, Any]) -> None:
    """One report streamed to ``fh`` (binary) where the format can; several as one rendered text."""
    from .render import render_many, write

    if len(reports) == 1:
        write(reports[0], fmt, fh, **options)
    else:
        fh.write(render_many(reports, fmt, **options).encode())


@main.command()
@click.option("--bind", default=None, help="host:port (default $VERDICT_BIND or 127.0.0.1:8080).")
@click.option("--workers", type=int, default=None, help="gunicorn workers (default $VERDICT_WORKERS or 2).")
@click.option("-p", "--policy", multiple=True, help="Policy paths (default $VERDICT_POLICIES or the built-in packs).")
@click.option("--exemptions", multiple=True, help="Exemptions files (default $VERDICT_EXEMPTIONS; repeatable).")
@click.option(
    "--check-bind",
    is_flag=True,
    help="Only check that the address is free (exit 2 saying how to choose another if not), and serve nothing.",
)
def serve(bind: str | None, workers: int | None, policy: tuple[str, ...], exemptions: tuple[str, ...], check_bind: bool) -> None:
    """Serve the HTTP API with gunicorn and verdict's settings (api/gunicorn_conf.py)."""
    env = dict(os.environ)
    if bind:
        env["VERDICT_BIND"] = bind
    if workers:
        env["VERDICT_WORKERS"] = str(workers)

    def here(paths: Iterable[str]) -> str:
        # gunicorn runs in another folder (below): a path that exists where the command is run is made absolute,
        # a built-in pack name kept
        return os.pathsep.join(os.path.abspath(p) if os.path.exists(p) else p for p in paths if p.strip())

    # the options, else the environment's (trial 47: VERDICT_POLICIES=gpu-operator:mypack was looked up in the
    # folder gunicorn starts in, where `-p mypack` was found)
    if policy or env.get("VERDICT_POLICIES"):
        env["VERDICT_POLICIES"] = here(policy or env["VERDICT_POLICIES"].split(os.pathsep))
    if exemptions or env.get("VERDICT_EXEMPTIONS"):
        env["VERDICT_EXEMPTIONS"] = here(exemptions or env["VERDICT_EXEMPTIONS"].split(os.pathsep))
    if env.get("VERDICT_TOKENS_FILE", "").strip():
        env["VERDICT_TOKENS_FILE"] = here([env["VERDICT_TOKENS_FILE"].strip()])
    binds = [env.get("VERDICT_BIND", "127.0.0.1:8080")]
    probed = [_check_bind(binds[0])]
    if env.get("VERDICT_PROBE_BIND", "").strip():
        binds.append(env["VERDICT_PROBE_BIND"])
        probed.append(_check_bind(binds[1], "VERDICT_PROBE_BIND"))
        if all(probed) and _clash(binds[0], binds[1]):
            # (trial 138: both said free, and gunicorn failed with "Connection in use"; trial 140: the same address
            # written another way, 127.0.0.1:018540 or localhost)
            said = f"verdict: cannot listen on {binds[1]} for the probes: the API listens there"
            _err(f"{said}; set VERDICT_PROBE_BIND to another HOST:PORT")
            raise SystemExit(2)
    if check_bind:  # make run asks before its audit, whose table would bury the answer (trial 73)
        # the answer said either way (trial 134: a free address printed nothing), and only of what was probed
        free = [b for b, ok in zip(binds, probed, strict=True) if ok]
        unprobed = [b for b, ok in zip(binds, probed, strict=True) if not ok]
        if free:
            _err(f"verdict: {' and '.join(free)} {'is' if len(free) == 1 else 'are'} free to listen on")
        for b in unprobed:
            _err(f"verdict: {b} is not probed (not HOST:PORT): gunicorn says whether it can listen there when it starts")
        return
    # The folder that holds rules/, api/ and app.py: a checkout's root, or site-packages of an installed wheel.
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    conf = os.path.join(root, "api", "gunicorn_conf.py")
    # gunicorn puts the folder it starts in first on sys.path before it reads its settings and imports app:app;
    # starting in root, this verdict's api and app are the ones imported, never a folder of that name where
    # the user stands.
    os.chdir(root)
    args = [sys.executable, "-m", "gunicorn", "--config", conf, "app:app"]
    os.execvpe(args[0], args, env)


def _clash(api: str, probes: str) -> bool:
    """Whether the probes' address is the API's, however written: with the API's listening, the probes' is in use."""
    import errno
    import socket

    with socket.socket(_family(api), socket.SOCK_STREAM) as held:
        held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        held.bind(_host_port(api))
        held.listen(1)
        with socket.socket(_family(probes), socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(_host_port(probes))
            except OSError as exc:
                return exc.errno == errno.EADDRINUSE
    return False


def _host_port(bind: str) -> tuple[str, int]:
    """The host and port of a ``[tcp://]HOST:PORT`` bind ``_check_bind`` probed (an empty host: every address)."""
    host, _, port = bind.strip().removeprefix("tcp://").rpartition(":")
    return host.strip("[]") or "0.0.0.0", int(port)


def _family(bind: str) -> int:
    """The socket family of a bind's host."""
    import socket

    return socket.AF_INET6 if ":" in _host_port(bind)[0] else socket.AF_INET


def _check_bind(bind: str, variable: str = "") -> bool:
    """Exit 2 with the way to choose another address when ``host:port`` cannot be listened on: in use (gunicorn retries
    it five times and stops with "Can't connect": trials 68 and 72, ``make serve`` on a busy 8080 named no way out),
    not this host's, a host not found, a port that is no port (trial 137: said to be free). True when it was probed
    free; False for a bind gunicorn reads otherwise (``unix:``, ``fd://``)."""
    import errno
    import socket

    address = bind.strip()
    address = address.removeprefix("tcp://")  # as gunicorn's parse_address takes it (trial 138: "host not found")
    host, sep, port = address.rpartition(":")
    if address.startswith(("unix:", "fd://")) or not sep or address.endswith("]"):
        return False  # a socket file, a descriptor, a host alone (gunicorn's port 8000)
    how = (
        f"set {variable} to another HOST:PORT"
        if variable
        else "choose another with --bind HOST:PORT (VERDICT_BIND, or make run BIND=HOST:PORT, make serve BIND=HOST:PORT)"
    )

    def refuse(why: str) -> NoReturn:
        _err(f"verdict: cannot listen on {bind}: {why}; {how}")
        raise SystemExit(2) from None

    if not (port.isascii() and port.isdigit()):  # (trial 138: '²' is a digit to str.isdigit)
        refuse("its port is not a number")
    if int(port) > 65535:
        refuse("the port is past 65535")
    host = _host_port(address)[0]
    with socket.socket(_family(address), socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as gunicorn binds: a closing socket is no conflict
        try:
            probe.bind(_host_port(address))
        except socket.gaierror as exc:
            refuse(f"host {host!r} not found ({exc.strerror})")
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                refuse("the address is in use")
            if exc.errno == errno.EADDRNOTAVAIL:
                refuse("the address is not one of this host's")
            refuse(exc.strerror or str(exc))
    return True


@main.group()
def policies() -> None:
    """List, show, lint and test policies."""


@policies.command("list")
@click.option("-p", "--policy", multiple=True, help="Policy paths (default: the built-in packs).")
def list_policies(policy: tuple[str, ...]) -> None:
    """List policies and their rules."""
    from .render.tables import list_policies as listing

    click.echo(visible(listing(_load(policy).policies)), nl=False)  # (trial 181: a JSON policy's ESC reached it)


@policies.command("show")
@click.argument("name")
@click.option("-p", "--policy", multiple=True, help="Where NAME is looked up (default: the built-in packs); not with a PATH.")
@click.option("--data", "data", multiple=True, help="Only this data table, e.g. operands (repeatable).")
def show_policy(name: str, policy: tuple[str, ...], data: tuple[str, ...]) -> None:
    """Show a pack or policy: its rules and data tables (--data operands: the operands per workload label); or one
    rule (POLICY/RULE, or a rule id one policy uses), as GET /v1/rules/POLICY/RULE answers it.

    NAME is a policy file or a pack folder (as for lint and test), or the name of a loaded policy, pack or rule."""
    from .render.tables import show_pack, show_rule

    suggestion = ""
    if Path(name).exists():
        if policy:
            raise click.BadParameter(f"{name} is a path: it is shown as it is, without -p", param_hint="--policy")
        chosen = _load((name,)).policies
    else:
        ps = _load(policy)
        chosen = [p for p in ps.policies if p.name == name or p.pack == name]
        if not chosen and not data:
            try:
                r = ps.rule(name)
            except RuleLookupError:
                pass
            else:
                owner = ps.policy(r.policy)
                click.echo(visible(show_rule(r, owner.version if owner else "", owner.file if owner else "")), nl=False)
                return
        if not chosen:
            names = {r.uid for r in ps.rules}
            if "/" not in name:  # POLICY/RULE is compared with rules only: 'gpu-nodes' prefixes each of its rules
                names |= {p.name for p in ps.policies} | {p.pack for p in ps.policies if p.pack}
            suggestion = meant(name, sorted(names))
    if not chosen:
        _err(
            f"verdict: no policy file or pack folder {name!r}, nor a loaded policy, pack or rule so named{suggestion}"
            " (verdict policies list)"
        )
        raise SystemExit(2)
    known = {t for p in chosen for t in p.data}
    for table in data:
        if table not in known:
            _err(f"verdict: {name} has no data table {table!r} (its tables: {', '.join(sorted(known))})")
            raise SystemExit(2)
    tty = sys.stdout.isatty()
    # on a terminal, its width (rich reads it); in a pipe or file, COLUMNS when set, else wide enough for a
    # row a line (0)
    width = None if tty else _columns() or 0
    click.echo(show_pack(chosen, color=tty, width=width, data=data), nl=False)


@policies.command("lint")
@click.argument("paths", nargs=-1, required=True)
def lint(paths: tuple[str, ...]) -> None:
    """Check policy files or packs; print each problem with file, line, rule and reason."""
    try:
        ps = load_policies(paths)
    except PolicyLoadError as exc:
        for e in exc.errors:
            click.echo(str(e))
        raise SystemExit(1) from None
    except PolicyError as exc:
        click.echo(str(exc))
        raise SystemExit(1) from None
    click.echo(f"ok: {counted(len(ps.policies), 'policy', 'policies')}, {counted(len(ps.rules), 'rule')}")
    for path in paths:
        for folder in pack_folders_unread(Path(path)) if Path(path).is_dir() else ():
            _err(
                f"verdict: note: {folder}/ not read: a pack's policies are the *.yaml files directly in its folder"
                " (data/ holds its tables, tests/ its tests)"
            )
    _names_of_builtin_policies(ps)
    _comments_cut_from_text(ps)


def _comments_cut_from_text(ps: PolicySet) -> None:
    """A note for each text of a linted policy file written plain with a " #" in it, which YAML cut there
    (``texts_cut_at_comments``)."""
    for file in dict.fromkeys(p.file for p in ps.policies):
        try:
            text = Path(file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for number, key in texts_cut_at_comments(text):
            click.echo(f"verdict: note: {file}:{number}: {comment_cut(key)}", err=True)


def _names_of_builtin_policies(ps: PolicySet) -> None:
    """A note for each linted policy that has the name of a built-in one (from another file): each loads alone,
    but an audit given both is refused (trial 47: lint said ok, then `audit -p gpu-operator -p mypack` exited 2)."""
    try:
        builtin = {p.name: p for p in load_policies(()).policies}
    except (PolicyLoadError, PolicyError):
        return
    for policy in ps.policies:
        same = builtin.get(policy.name)
        if same is not None and Path(same.file).resolve() != Path(policy.file).resolve():
            click.echo(
                f"verdict: note: {policy.file}:{policy.line}: policy name {policy.name!r} is also the built-in pack"
                f" {same.pack}'s ({same.file}); an audit of both (-p {same.pack} -p ...) is refused: rename"
                " metadata.name to use them together",
                err=True,
            )


@policies.command("test")
@click.argument("packs", nargs=-1)
@click.option("-v", "--verbose", is_flag=True, help="Print every case, passed ones too (PASS/FAIL file:line).")
@click.option(
    "--run",
    "run",
    metavar="REGEX",
    help="Only the tests whose metadata.name this regular expression finds (coverage is then not checked).",
)
@click.option("--junit", metavar="FILE", help="Also write the cases as JUnit XML to FILE (a suite per pack).")
def test_packs(packs: tuple[str, ...], verbose: bool, run: str | None, junit: str | None) -> None:
    """Run the fixtures of packs (default: every built-in pack with tests).

    Each PACK is a pack folder or a policy file (tested with the fixtures beside it that name its rules),
    else the name of a built-in pack. Exit 0 when every case passes and every rule has a pass and a fail
    expectation, 1 otherwise, 2 when a pack cannot be loaded."""
    from .packtest import run_cli

    raise SystemExit(run_cli(list(packs), verbose=verbose, run=run, junit=junit))


@policies.command("schema")
def schema() -> None:
    """Print the JSON Schema of the policy format."""
    import json

    from .schema import json_schema

    click.echo(json.dumps(json_schema(), indent=2))


if __name__ == "__main__":  # pragma: no cover
    main()
