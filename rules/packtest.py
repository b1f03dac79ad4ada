"""Pack tests: fixtures that state the expected result of rules on objects of a dump (``kyverno test`` /
``gator verify`` style). The format is documented in docs/pack-tests.md.

A pack keeps its fixtures in ``<pack>/tests/*.yaml``, one ``kind: Test`` document (or several) a file::

    apiVersion: verdict/v1
    kind: Test
    metadata: {name: vm-passthrough-node-still-advertising-gpu}
    resources: [dumps/vm_passthrough_node_still_advertising_gpu.yaml]   # relative to the test file
    objects: []            # and/or inline Kubernetes objects
    strict: false          # true: every fail/warn/error of the run must be listed in results
    results:
    - {policy: gpu-nodes, rule: resource-class-matches-workload, kind: Node, name: gpu-1, result: fail}

``run_pack_tests`` evaluates each fixture's dump with the pack's policies and compares every listed
expectation with the actual result; ``coverage_gaps`` names the rules that lack a ``fail`` or a ``pass``
expectation. Neither raises on a bad fixture: the problem becomes a failed ``TestCaseResult``.
"""

from __future__ import annotations

import copy
import difflib
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from .errors import DumpError, PolicyError, dotted
from .loader import BUILTIN_DIR, PolicyLoadError, PolicySet, load_policies, pack_name, schema_problems
from .operators import StrictBoolean
from .reader import Dump, add_objects, read_paths
from .report import RESULTS, Report, Result, counted
from .yamlsafe import load_documents, node_line

TESTS_DIR = "tests"


class ExpectationSchema(Schema):
    """One expected result: the rule (``policy`` optional when the rule id is unique in the pack), the object
    (``kind``, ``name``, ``namespace`` if namespaced) and the result word; ``messageContains`` optionally
    checks the message."""

    policy = fields.String(load_default="")
    rule = fields.String(required=True)
    kind = fields.String(required=True)
    name = fields.String(required=True)
    namespace = fields.String(load_default=None, allow_none=True)
    result = fields.String(required=True, validate=validate.OneOf(RESULTS))
    messageContains = fields.String(load_default="")


class NotAppliedSchema(Schema):
    """A rule expected to apply to no object of the dump (``Report.not_applied``): ``policy`` optional when the
    rule id is unique in the pack; ``reasonContains`` optionally checks the reason, ``supersededBy`` the rule its
    precondition says judges instead (trial 172: a test could not say it)."""

    policy = fields.String(load_default="")
    rule = fields.String(required=True)
    reasonContains = fields.String(load_default="")
    supersededBy = fields.String(load_default=None, allow_none=True)


class TestMetadataSchema(Schema):
    """A pack test's ``metadata``: a non-empty ``name`` and an optional ``description``."""

    name = fields.String(required=True, validate=validate.Length(min=1))
    description = fields.String(load_default="")


class TestSchema(Schema):
    """A pack test document (``apiVersion: verdict/v1``, ``kind: Test``)."""

    __test__ = False  # not a pytest test class

    apiVersion = fields.String(required=True, validate=validate.Equal("verdict/v1"))
    kind = fields.String(required=True, validate=validate.Equal("Test"))
    metadata = fields.Nested(TestMetadataSchema, required=True)
    resources = fields.List(fields.String(), load_default=list)
    objects = fields.List(fields.Dict(), load_default=list)
    strict = StrictBoolean(load_default=False)
    results = fields.List(fields.Nested(ExpectationSchema), load_default=list)
    notApplied = fields.List(fields.Nested(NotAppliedSchema), load_default=list)

    @validates_schema
    def _expects_something(self, data: dict[str, Any], **_: Any) -> None:
        if not data.get("results") and not data.get("notApplied"):
            raise ValidationError("a test lists results, notApplied or both", "results")


@dataclass(frozen=True, slots=True)
class Expectation:
    """One loaded ``results`` item of a pack test: ``policy`` "" matches any policy, ``namespace`` None
    any namespace; ``result`` is a result word; ``message_contains`` "" leaves the message unchecked."""

    policy: str
    rule: str
    kind: str
    name: str
    namespace: str | None
    result: str
    message_contains: str = ""
    #: the line of the test file the expectation is written on (0: not known)
    line: int = 0

    def describe(self) -> str:
        """``policy/rule on Kind/namespace/name`` (policy and namespace left out when not given), for messages."""
        obj = f"{self.kind}/{self.namespace}/{self.name}" if self.namespace else f"{self.kind}/{self.name}"
        rule = f"{self.policy}/{self.rule}" if self.policy else self.rule
        return f"{rule} on {obj}"


@dataclass(frozen=True, slots=True)
class NotApplied:
    """One loaded ``notApplied`` item: the rule (``policy`` "" matches any policy) expected to apply to no object
    of the dump, and text its reason must contain ("" leaves it unchecked)."""

    policy: str
    rule: str
    reason_contains: str = ""
    line: int = 0
    #: the rule its precondition names as judging instead ("" none), None leaves it unchecked
    superseded_by: str | None = None

    def describe(self) -> str:
        return f"{self.policy}/{self.rule}" if self.policy else self.rule


@dataclass(frozen=True, slots=True)
class PackTest:
    """One loaded fixture: ``file`` it came from, ``resources`` resolved to paths, inline ``objects``."""

    __test__ = False  # not a pytest test class

    name: str
    file: Path
    description: str
    resources: tuple[Path, ...]
    objects: tuple[dict[str, Any], ...]
    strict: bool
    results: tuple[Expectation, ...]
    not_applied: tuple[NotApplied, ...] = ()
    #: the line of its metadata.name (0: not known)
    line: int = 0


@dataclass(frozen=True, slots=True)
class TestCaseResult:
    """The outcome of one expectation (or of a fixture-level check): ``test`` the fixture name, ``case``
    what was checked, ``expected``/``actual`` result words (``actual`` is ``missing`` when the rule produced
    no result for the object), ``ok``, and ``message`` explaining a difference."""

    __test__ = False  # not a pytest test class

    test: str
    file: str
    case: str
    expected: str
    actual: str
    ok: bool
    message: str = ""
    #: the line of the test file the expectation is written on (0: not known)
    line: int = 0

    @property
    def id(self) -> str:
        return f"{self.test}: {self.case}"


class FixtureError(ValueError):
    """A test file, or a test document of one, that cannot be used: ``file``, the reason, the test's name where
    it could be read, and the line of the first problem (0: not known)."""

    def __init__(self, file: Path, reason: str, test: str = "", line: int = 0) -> None:
        self.file = file
        self.reason = reason
        self.test = test or file.stem
        self.line = line
        super().__init__(f"{file}{f':{line}' if line else ''}: {reason}")


#: Every key a test file knows, for "did you mean" on an unknown one.
_TEST_FIELDS = {
    fld.data_key or name
    for schema in (TestSchema, TestMetadataSchema, ExpectationSchema, NotAppliedSchema)
    for name, fld in schema().fields.items()
}


def _schema_refusal(path: Path, doc: Any, exc: ValidationError) -> FixtureError:
    """A test document marshmallow refused, as every problem with its line and field (``results[4].result``), the
    way a policy's are said (trial 47: marshmallow's nested dict, at the document's first line, indexes from 0)."""
    first = schema_problems(
        exc, lambda where, reason: PolicyError(str(path), reason, node_line(doc.node, where), path=dotted(where)), _TEST_FIELDS
    )
    told = "; ".join(f"line {e.line}: {e.path + ': ' if e.path else ''}{e.reason.rstrip('.')}" for e in (first, *first.more))
    return FixtureError(path, f"document {doc.number}: {told}", _test_name(doc), first.line)


def _test_name(doc: Any) -> str:
    """The ``metadata.name`` of a test document, "" where it has none."""
    meta = doc.data.get("metadata") if isinstance(doc.data, dict) else None
    name = meta.get("name") if isinstance(meta, dict) else None
    return name if isinstance(name, str) else ""


# ------------------------------------------------------------------------------------------ loading


def fixture_files(pack_dir: Path) -> list[Path]:
    """The fixture files of a pack: ``<pack>/tests/*.yaml`` and ``*.yml`` (not the ``dumps/`` below), sorted."""
    folder = Path(pack_dir) / TESTS_DIR
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in (".yaml", ".yml"))


def load_test_file(path: Path) -> list[PackTest]:
    """Every ``kind: Test`` document of one file. Raises ``FixtureError`` (the first problem) when any document
    cannot be used; ``read_test_file`` gives the good documents and each problem."""
    tests, errors = read_test_file(path)
    if errors:
        raise errors[0]
    return tests


def read_test_file(path: Path, pack: Path | None = None) -> tuple[list[PackTest], list[FixtureError]]:
    """The ``kind: Test`` documents of one file that can be used, and a ``FixtureError`` for each that cannot (one
    bad document neither hides the next one's problems nor drops the good ones: trial 64), or for the file. With
    ``pack`` (the pack's folder, absolute, as written), a resource outside it is refused: a pack's tests travel with
    it."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        return [], [FixtureError(path, f"cannot read: {exc.strerror or exc}")]
    tests: list[PackTest] = []
    errors: list[FixtureError] = []
    for doc in load_documents(text):
        if doc.error:
            errors.append(FixtureError(path, f"document {doc.number}: line {doc.line}: {doc.error}", line=doc.line))
            continue
        if doc.data is None:
            continue
        try:
            test, refused = _test_of(path, doc, pack)
        except FixtureError as exc:
            errors.append(exc)
            continue
        if test is not None:
            tests.append(test)
        errors.extend(refused)
    if not tests and not errors:
        errors.append(FixtureError(path, "no kind: Test document in the file"))
    return tests, errors


#: The lists of expectations of a test document: an entry of them that is refused leaves the others to run.
_ENTRY_LISTS = ("results", "notApplied")


def _test_of(path: Path, doc: Any, pack: Path | None = None) -> tuple[PackTest | None, list[FixtureError]]:
    """One test document loaded, and the expectations of it refused (``results`` or ``notApplied`` entries, as one
    ``FixtureError``): the others run (trial 71: ``result: fial`` dropped the document, so its misspelt rule id
    and wrong object name were said only in the next run). No test where a resource cannot be read, with each such
    resource refused beside those expectations (trial 243 #1: a resource not found hid ``result: pas``). Raises
    ``FixtureError`` naming the document, its test and line for a problem outside those entries."""
    refused: list[FixtureError] = []
    try:
        raw = TestSchema().load(doc.data)
    except ValidationError as exc:
        bad = _refused_entries(exc.messages)
        if bad is None:
            raise _schema_refusal(path, doc, exc) from None
        # the place in the document of each entry kept, by list
        lines = {key: [i for i in range(len(doc.data[key])) if i not in refused_at] for key, refused_at in bad.items()}
        try:
            raw = TestSchema().load({**doc.data, **{key: [doc.data[key][i] for i in at] for key, at in lines.items()}})
        except ValidationError:
            raise _schema_refusal(path, doc, exc) from None
        refused.append(_schema_refusal(path, doc, exc))
    else:
        lines = {}

    def entry_line(key: str, i: int) -> int:
        """The line of the ``i``-th entry kept of ``key``, in the document as written."""
        return node_line(doc.node, [key, lines[key][i] if key in lines else i])

    name = raw["metadata"]["name"]
    resources = tuple((path.parent / r).resolve() for r in raw["resources"])
    unread: list[FixtureError] = []
    for i, (r, shown) in enumerate(zip(resources, raw["resources"], strict=True)):
        if not r.exists():
            line = node_line(doc.node, ["resources", i])
            reason = f"document {doc.number}: resource {shown!r} not found (paths are relative to the test file)"
            unread.append(FixtureError(path, reason, name, line))
            continue
        # as written, not resolved: a file reached through a symlink inside the pack travels with it (trial 133)
        written = Path(os.path.normpath(os.path.abspath(path.parent / shown)))
        if pack is not None and not written.is_relative_to(pack):
            # trial 123: a test read ../../edge.yaml and passed here, to fail once the pack was copied elsewhere
            line = node_line(doc.node, ["resources", i])
            reason = (
                f"document {doc.number}: resource {shown!r} is outside the pack's folder {pack}: a pack's tests travel"
                " with it (copy the file into the pack, e.g. tests/dumps/)"
            )
            unread.append(FixtureError(path, reason, name, line))
    if unread and not refused and len(unread) == 1:
        return None, unread
    if unread:
        # one failed case naming each problem by line (trial 243 #1: the first resource not found hid the others, and
        # the refused expectations)
        problems = []
        for e in (*unread, *refused):
            said = e.reason.removeprefix(f"document {doc.number}: ")
            problems.append(f"line {e.line}: {said}" if e.line and not said.startswith("line ") else said)
        return None, [FixtureError(path, f"document {doc.number}: {'; '.join(problems)}", name, unread[0].line)]
    if not resources and not raw["objects"]:
        raise FixtureError(path, f"document {doc.number}: test {name!r} has neither resources nor objects", name, doc.line)
    expectations = tuple(
        Expectation(
            e["policy"],
            e["rule"],
            e["kind"],
            e["name"],
            e["namespace"],
            e["result"],
            e["messageContains"],
            entry_line("results", i),
        )
        for i, e in enumerate(raw["results"])
    )
    test = PackTest(
        name,
        path,
        raw["metadata"]["description"],
        resources,
        tuple(raw["objects"]),
        raw["strict"] and not refused,  # a refused expectation's finding is not another unexpected one
        expectations,
        tuple(
            NotApplied(n["policy"], n["rule"], n["reasonContains"], entry_line("notApplied", i), n["supersededBy"])
            for i, n in enumerate(raw["notApplied"])
        ),
        node_line(doc.node, ["metadata", "name"]) or doc.line,
    )
    return test, refused


def _refused_entries(messages: Any) -> dict[str, set[int]] | None:
    """The entries of ``results`` and ``notApplied`` marshmallow refused, by list; None when it refused anything else."""
    if not isinstance(messages, dict):
        return None
    out: dict[str, set[int]] = {}
    for key, below in messages.items():
        if key not in _ENTRY_LISTS or not isinstance(below, dict) or not all(isinstance(i, int) for i in below):
            return None
        out[key] = set(below)
    return out


def load_pack_tests(pack_dir: Path) -> tuple[list[PackTest], list[FixtureError]]:
    """All fixtures of a pack, and the files that could not be loaded."""
    tests: list[PackTest] = []
    errors: list[FixtureError] = []
    root = Path(os.path.normpath(os.path.abspath(pack_dir)))
    for path in fixture_files(pack_dir):
        good, bad = read_test_file(path, root)
        tests.extend(good)
        errors.extend(bad)
    names: dict[str, PackTest] = {}
    for t in tests:
        if t.name in names:
            # (trial 135: said without a line, and the file's stem in place of the test's name)
            first = names[t.name]
            again = FixtureError(t.file, f"test name {t.name!r} is also used at {first.file}:{first.line}", t.name, t.line)
            errors.append(again)
            continue
        names[t.name] = t
    return tests, errors


# ------------------------------------------------------------------------------------------ running


def _dump(test: PackTest) -> Dump:
    from .errors import Source

    dump = read_paths(str(p) for p in test.resources) if test.resources else Dump()
    for i, obj in enumerate(test.objects):
        # read as a dump's object is (the API server's defaults, the input errors of a malformed one), so that a case
        # judges what verdict audit would
        add_objects(copy.deepcopy(obj), Source(str(test.file), i + 1, 0), dump)
    return dump


def _matching(exp: Expectation, report: Report) -> list[tuple[str, Result]]:
    """``(object text, result)`` for every result the expectation names."""
    found = []
    for obj in report.objects:
        ref = obj.ref
        if ref.kind != exp.kind or ref.name != exp.name:
            continue
        if exp.namespace is not None and ref.namespace != exp.namespace:
            continue
        for r in obj.results:
            if r.rule == exp.rule and (not exp.policy or r.policy == exp.policy):
                found.append((str(ref), r))
    return found


def _check(test: PackTest, exp: Expectation, report: Report, rules: tuple[tuple[str, str], ...] = ()) -> TestCaseResult:
    """``rules``: (policy, rule id) of every rule in force, to name a misspelt rule."""

    def outcome(actual: str, ok: bool, message: str = "") -> TestCaseResult:
        return TestCaseResult(test.name, str(test.file), exp.describe(), exp.result, actual, ok, message, exp.line)

    found = _matching(exp, report)
    if not found and rules and not any(r == exp.rule and (not exp.policy or p == exp.policy) for p, r in rules):
        named = f"{exp.policy}/{exp.rule}" if exp.policy else exp.rule
        close = difflib.get_close_matches(exp.rule, sorted({r for _, r in rules}), n=1, cutoff=0.6)
        hint = f"; did you mean {next(f'{p}/{r}' for p, r in rules if r == close[0])!r}?" if close else ""
        return outcome("missing", False, f"{exp.describe()}: no rule named {named!r} in the policies tested{hint}")
    if not found:
        idle = _not_applied(exp.policy, exp.rule, report)
        objects = {str(o.ref) for o in report.objects if o.ref.kind == exp.kind and o.ref.name == exp.name}
        if idle:
            why = f"the rule applied to no object of the dump: {idle[0]['reason']} (expect it under notApplied)"
        elif objects:
            why = "the object is in the dump but the rule produced no result for it (does the rule match it?)"
        else:
            why = "no such object among the evaluated objects"
            # (trial 165: kind: node named no Node, with no word of the Node of that name)
            kinds = sorted({o.ref.kind for o in report.objects if o.ref.name == exp.name and o.ref.kind != exp.kind})
            if kinds:
                why += f"; {exp.name} is a {' and a '.join(kinds)} (did you mean kind: {kinds[0]}?)"
        return outcome("missing", False, f"{exp.describe()}: expected {exp.result}, got no result: {why}")
    if len({(obj, r.policy) for obj, r in found}) > 1:
        where = ", ".join(sorted({f"{r.policy}/{r.rule} on {obj}" for obj, r in found}))
        return outcome("ambiguous", False, f"{exp.describe()} names several results ({where}): add policy and namespace")
    result = found[0][1]
    if result.result != exp.result:
        return outcome(result.result, False, f"{exp.describe()}: expected {exp.result}, got {result.result}: {result.message}")
    if exp.message_contains and exp.message_contains not in result.message:
        return outcome(
            result.result, False, f"{exp.describe()}: the message does not contain {exp.message_contains!r}: {result.message}"
        )
    return outcome(result.result, True)


def _not_applied(policy: str, rule: str, report: Report) -> list[dict[str, Any]]:
    """The report's ``not_applied`` entries of ``rule`` (of ``policy``, or of any when "")."""
    return [e for e in report.not_applied if e["rule"] == f"{e['policy']}/{rule}" and (not policy or e["policy"] == policy)]


def _check_not_applied(test: PackTest, exp: NotApplied, report: Report) -> TestCaseResult:
    """Whether the report says ``exp``'s rule applied to no object of the dump, for the reason it expects."""

    def outcome(actual: str, ok: bool, message: str = "") -> TestCaseResult:
        case = f"{exp.describe()} applies to no object"
        return TestCaseResult(test.name, str(test.file), case, "not applied", actual, ok, message, exp.line)

    found = _not_applied(exp.policy, exp.rule, report)
    if not found:
        judged = sum(
            1 for o in report.objects for r in o.results if r.rule == exp.rule and (not exp.policy or r.policy == exp.policy)
        )
        if judged:
            return outcome(
                "applied", False, f"{exp.describe()}: expected to apply to no object, but it gave {counted(judged, 'result')}"
            )
        return outcome(
            "missing", False, f"{exp.describe()}: expected to apply to no object, but it matched none (or no such rule)"
        )
    if len(found) > 1:
        return outcome("ambiguous", False, f"{exp.describe()} names rules of several policies: add policy")
    reason = found[0]["reason"]
    if exp.reason_contains and exp.reason_contains not in reason:
        return outcome("not applied", False, f"{exp.describe()}: the reason does not contain {exp.reason_contains!r}: {reason}")
    instead = found[0].get("supersededBy", "")
    if exp.superseded_by is not None and exp.superseded_by != instead:
        return outcome(
            "not applied",
            False,
            f"{exp.describe()}: expected supersededBy {exp.superseded_by!r}, the report says {instead!r}",
        )
    return outcome("not applied", True)


def _strict(test: PackTest, report: Report) -> TestCaseResult:
    """Every fail/warn/error of the run must be an expectation of the test."""
    listed = {(e.kind, e.name, e.namespace, e.policy, e.rule) for e in test.results}
    extra = []
    for obj in report.objects:
        for r in obj.results:
            if r.result not in ("fail", "warn", "error"):
                continue
            keys = {(obj.ref.kind, obj.ref.name, ns, p, r.rule) for ns in (None, obj.ref.namespace) for p in ("", r.policy)}
            if not keys & listed:
                extra.append(f"{r.policy}/{r.rule} on {obj.ref}: {r.result}: {r.message}")
    message = "unexpected findings (strict: true):\n  " + "\n  ".join(extra) if extra else ""
    return TestCaseResult(
        test.name,
        str(test.file),
        "no other fail/warn/error (strict)",
        "none",
        f"{len(extra)} unlisted" if extra else "none",
        not extra,
        message,
    )


def run_test(test: PackTest, policies: PolicySet) -> list[TestCaseResult]:
    """The results of one fixture: one per expectation, plus the strict check and input errors."""
    from .evaluate import evaluate

    try:
        dump = _dump(test)
    except DumpError as exc:
        return [TestCaseResult(test.name, str(test.file), "read the dump", "readable", "error", False, str(exc))]
    report = evaluate(dump, policies, name=test.name)
    rules = tuple((r.policy, r.id) for r in policies.rules)
    out = [_check(test, exp, report, rules) for exp in test.results]
    out.extend(_check_not_applied(test, exp, report) for exp in test.not_applied)
    # an input error that kept part of the dump out fails the fixture; one about a value of an object read whole (a
    # Node's quantity that is none) does not: what it does to the rules that read it is an expectation (result:
    # error), which the fixture could not pass otherwise (trial 123)
    lost = [e for e in dump.errors if e.lost]
    if lost:
        out.append(
            TestCaseResult(
                test.name,
                str(test.file),
                "read the dump",
                "no input error",
                "input errors",
                False,
                "; ".join(str(e) for e in lost),
            )
        )
    if test.strict:
        out.append(_strict(test, report))
    return out


def _pack_policies(pack_dir: Path, policies: PolicySet | None) -> PolicySet:
    return policies if policies is not None else load_policies([str(pack_dir)])


def run_pack_tests(
    pack_dir: Path,
    policies: PolicySet | None = None,
    tests: tuple[list[PackTest], list[FixtureError]] | None = None,
) -> list[TestCaseResult]:
    """Run every fixture of the pack at ``pack_dir`` with ``policies`` (default: the pack's own policies).
    ``tests`` is the pack's ``load_pack_tests`` result when already loaded (default: load it).

    A fixture file, or a test document of one, that cannot be loaded gives one failed result naming the file, its
    line and the reason (the file's other documents run); the pack's
    policies failing to load raise ``PolicyLoadError`` (there is nothing to test).
    """
    pack_dir = Path(pack_dir)
    ps = _pack_policies(pack_dir, policies)
    loaded, errors = tests if tests is not None else load_pack_tests(pack_dir)
    out = [TestCaseResult(e.test, str(e.file), "load the fixture", "loadable", "error", False, e.reason, e.line) for e in errors]
    for test in loaded:
        out.extend(run_test(test, ps))
    return out


def coverage_gaps(
    pack_dir: Path,
    policies: PolicySet | None = None,
    tests: tuple[list[PackTest], list[FixtureError]] | None = None,
) -> list[str]:
    """Rules of the pack without at least one ``fail`` and one ``pass`` expectation among its fixtures, as
    ``policy/rule: no fail expectation`` lines (empty when every rule is covered). ``warn`` counts as
    ``fail`` for rules whose failures are warnings. ``tests`` is the pack's ``load_pack_tests`` result
    when already loaded (default: load it)."""
    pack_dir = Path(pack_dir)
    ps = _pack_policies(pack_dir, policies)
    loaded, unloaded = tests if tests is not None else load_pack_tests(pack_dir)
    # a gap may be a test that did not load: say so (trial 64: "no fail expectation" beside a FAIL for the file)
    aside = (
        f" (the expectations of {counted(len(unloaded), 'test document')} that could not be read whole not counted)"
        if unloaded
        else ""
    )
    seen: dict[tuple[str, str], set[str]] = {}
    by_id: dict[str, list[tuple[str, str]]] = {}
    for r in ps.rules:
        by_id.setdefault(r.id, []).append((r.policy, r.id))
    for test in loaded:
        for e in test.results:
            targets = [(e.policy, e.rule)] if e.policy else by_id.get(e.rule, [])
            for key in targets:
                seen.setdefault(key, set()).add("fail" if e.result == "warn" else e.result)
    gaps = []
    for rule in ps.rules:
        words = seen.get((rule.policy, rule.id), set())
        for want in ("fail", "pass"):
            if want not in words:
                gaps.append(f"{rule.uid}: no {want} expectation in {pack_dir / TESTS_DIR}{aside}")
    return gaps


# ------------------------------------------------------------------------------------------ CLI


def builtin_packs() -> list[Path]:
    """The built-in pack folders that have fixtures."""
    if not BUILTIN_DIR.is_dir():
        return []
    return sorted(d for d in BUILTIN_DIR.iterdir() if d.is_dir() and (d / TESTS_DIR).is_dir())


@dataclass(frozen=True, slots=True)
class Target:
    """What ``verdict policies test`` runs: the fixtures of the pack folder ``pack`` against its policies,
    or, with ``file``, against that one policy file, which is tested with the fixtures of the folder it is
    in (those whose expectations name its rules). ``shown`` names it in the summary."""

    pack: Path
    file: Path | None = None
    shown: str = ""


def target(name: str) -> Target | None:
    """``name`` as ``verdict policies test`` takes it: an existing file is that policy file and an existing
    folder that pack (before any lookup among the built-in packs), else a built-in pack's name; None when it
    is neither."""
    given = Path(name)
    if given.is_file():
        return Target(given.parent, given, name)
    if given.is_dir():
        return Target(given, None, pack_name(given))
    builtin = BUILTIN_DIR / name
    return Target(builtin, None, name) if builtin.is_dir() else None


def concerning(tests: list[PackTest], policies: PolicySet) -> list[PackTest]:
    """The fixtures of ``tests`` that name a rule of ``policies``, each with only those expectations: one
    that names one of the policies (its rules are checked, a misnamed one fails as missing), or no policy
    and the id of one of their rules. A pack's fixtures tested against one of its policy files."""
    names = {p.name for p in policies.policies}
    ids = {r.id for r in policies.rules}
    out = []
    for test in tests:
        kept = tuple(e for e in test.results if e.policy in names or (not e.policy and e.rule in ids))
        if kept:
            out.append(replace(test, results=kept))
    return out


def _no_tests(chosen: Target, policies: PolicySet, fixtures: int) -> str:
    """Why a policy file has no test case, and where its tests would be."""
    folder = chosen.pack / TESTS_DIR
    if not folder.is_dir():
        return f"{chosen.shown}: no tests: there is no {folder}/ folder beside it, where a pack keeps its fixtures"
    if not fixtures:
        return f"{chosen.shown}: no tests: {folder}/ holds no fixture (a *.yaml file of kind: Test documents)"
    named = ", ".join(p.name for p in policies.policies)
    return f"{chosen.shown}: no tests: no fixture in {folder}/ names a rule of {named} ({fixtures} read)"


def _selected(
    tests: list[PackTest], errors: list[FixtureError], run: re.Pattern[str] | None
) -> tuple[list[PackTest], list[FixtureError]]:
    """The fixtures (and unloadable test files) whose test name ``run`` finds (``re.search``), all without it."""
    if run is None:
        return tests, errors
    return [t for t in tests if run.search(t.name)], [e for e in errors if run.search(e.test)]


def _case_line(r: TestCaseResult) -> str:
    """One case as ``-v`` prints it: ``PASS file:line: test: case: result, as expected``, or the ``FAIL`` line
    of a failed case (its message says what differs)."""
    where = f"{r.file}{f':{r.line}' if r.line else ''}"
    if r.ok:
        return f"PASS {where}: {r.test}: {r.case}: {r.actual}, as expected"
    return f"FAIL {where}: {r.test}: {r.message}"


#: The cases that say a fixture could not run at all, written as JUnit errors rather than failures.
_SETUP_CASES = frozenset({"load the policies", "load the fixture", "read the dump"})


def _could_not_run(r: TestCaseResult) -> bool:
    """A failed case saying its fixture could not run (its test file, its dump or the policies unreadable)."""
    return not r.ok and r.actual == "error" and r.case in _SETUP_CASES


def _junit(suites: list[tuple[str, list[TestCaseResult], list[str], float]]) -> str:
    """JUnit XML of a run: a ``<testsuite>`` per pack (``name`` as the summary shows it), a ``<testcase>`` per
    case (``classname`` ``<pack>.<test>``, ``name`` the case; GitLab tells cases apart by those two alone) and
    one per coverage gap (classname ``<pack>.coverage``), failed ones with a ``<failure>`` whose text starts
    with the test file and line (the Jenkins schema has no place for them on a test case). A suite's ``time``
    is its fixtures' run time; cases carry none."""
    import xml.etree.ElementTree as ET

    from .render.junit import xml_document, xml_text

    root = ET.Element("testsuites", {"name": "verdict policies test"})
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for shown, results, gaps, seconds in suites:
        errors = sum(_could_not_run(r) for r in results)
        failures = sum(not r.ok for r in results) + len(gaps) - errors
        suite = ET.SubElement(
            root,
            "testsuite",
            {
                "name": xml_text(shown),
                "tests": str(len(results) + len(gaps)),
                "failures": str(failures),
                "errors": str(errors),
                "skipped": "0",
                "time": f"{seconds:.3f}",
            },
        )
        totals["tests"] += len(results) + len(gaps)
        totals["failures"] += failures
        totals["errors"] += errors
        for r in results:
            case = ET.SubElement(suite, "testcase", {"classname": xml_text(f"{shown}.{r.test}"), "name": xml_text(r.case)})
            if not r.ok:
                # a case that could not run (its test file, its dump or the policies unreadable) is an error
                tag = "error" if _could_not_run(r) else "failure"
                failure = ET.SubElement(case, tag, {"message": xml_text(r.message), "type": r.actual})
                where = f"{r.file}{f':{r.line}' if r.line else ''}"
                failure.text = xml_text(f"{where}: expected {r.expected}, got {r.actual}\n{r.message}")
        for gap in gaps:
            rule, _, why = gap.partition(": ")
            case = ET.SubElement(suite, "testcase", {"classname": xml_text(f"{shown}.coverage"), "name": xml_text(rule)})
            ET.SubElement(case, "failure", {"message": xml_text(why), "type": "coverage"}).text = xml_text(gap)
    root.set("tests", str(totals["tests"]))
    root.set("failures", str(totals["failures"]))
    root.set("errors", str(totals["errors"]))
    root.set("time", f"{sum(s[3] for s in suites):.3f}")
    return xml_document(root)


def run_cli(packs: Iterable[str] = (), verbose: bool = False, run: str | None = None, junit: str | None = None) -> int:
    """``verdict policies test [PACK...]``: print each failed case (every case with ``verbose``) and a summary.
    Each PACK is a policy file or a pack folder (an existing path), else a built-in pack's name (default: every
    built-in pack with tests). ``run``: only the fixtures whose test name the regular expression finds (coverage
    is then not checked: a part of the fixtures cannot show it). ``junit``: also write the cases as JUnit XML to
    that file. Exit 0 when every case passes and every rule is covered, 1 otherwise (a policy file that no
    fixture tests included, said so, and a ``run`` that selects no fixture), 2 when a pack cannot be found or
    loaded, or ``run`` is not a regular expression."""
    import time

    import click

    try:
        selector = re.compile(run) if run is not None else None
    except re.error as exc:
        click.echo(f"verdict: --run {run!r} is not a regular expression: {exc}", err=True)
        return 2
    if junit is not None and (Path(junit).is_dir() or not Path(junit).resolve().parent.is_dir()):
        # before the fixtures run, as audit -o does (trial 54: a traceback and exit 1 after every case passed)
        why = "is a folder" if Path(junit).is_dir() else "its folder does not exist"
        click.echo(f"verdict: --junit {junit}: {why}", err=True)
        return 2
    names = list(packs)
    chosen = [target(p) for p in names] if names else [Target(d, None, pack_name(d)) for d in builtin_packs()]
    missing = [n for n, t in zip(names, chosen, strict=False) if t is None]
    if missing:
        known = ", ".join(d.name for d in sorted(BUILTIN_DIR.iterdir()) if d.is_dir()) if BUILTIN_DIR.is_dir() else ""
        click.echo(
            f"verdict: no policy file or pack folder {', '.join(repr(m) for m in missing)}, nor a built-in pack so named"
            f" (built-in: {known})",
            err=True,
        )
        return 2
    failed = selected = 0
    test_names: list[str] = []  # every test's name, to show when --run selects none
    suites: list[tuple[str, list[TestCaseResult], list[str], float]] = []

    def write_junit() -> None:
        if junit is not None:
            try:
                Path(junit).write_text(_junit(suites), encoding="utf-8")
            except OSError as exc:
                click.echo(f"verdict: --junit {junit}: cannot write it: {exc.strerror}", err=True)
                raise SystemExit(2) from None

    for each in (t for t in chosen if t is not None):
        source = each.file or each.pack
        try:
            ps = load_policies([str(source)])
        except (PolicyLoadError, PolicyError) as exc:
            click.echo(f"verdict: cannot load {'policy file' if each.file else 'pack'} {source}:\n{exc}", err=True)
            failure = TestCaseResult("load", str(source), "load the policies", "loadable", "error", False, str(exc))
            suites.append((each.shown, [failure], [], 0.0))
            write_junit()  # not the last run's file left in place
            return 2
        loaded, errors = load_pack_tests(each.pack)
        if each.file is not None:
            fixtures = len(loaded)
            loaded = concerning(loaded, ps)
            if not loaded and not errors:
                none = _no_tests(each, ps, fixtures)
                click.echo(none)
                suites.append((each.shown, [], [none.removeprefix(f"{each.shown}: ")], 0.0))
                failed += 1
                continue
        test_names += [t.name for t in loaded] + [e.test for e in errors]
        loaded, errors = _selected(loaded, errors, selector)
        selected += len(loaded) + len(errors)
        started = time.perf_counter()
        results = run_pack_tests(each.pack, ps, (loaded, errors))
        seconds = time.perf_counter() - started
        gaps = coverage_gaps(each.pack, ps, (loaded, errors)) if selector is None else []
        bad = [r for r in results if not r.ok]
        for r in results if verbose else bad:
            click.echo(_case_line(r))
        if errors and gaps:
            # (trial 165: a misspelt field in one test document was followed by eleven GAP lines of its expectations)
            click.echo(
                f"GAP  {counted(len(gaps), 'coverage gap')} not listed while {counted(len(errors), 'test document')}"
                " above could not be read whole: its expectations are not counted"
            )
        for g in [] if errors else gaps:
            click.echo(f"GAP  {g}")
        failed += len(bad) + len(gaps)
        suites.append((each.shown, results, gaps, seconds))
        passed = f"{each.shown}: {len(results) - len(bad)}/{len(results)} cases passed"
        if selector is not None:
            matched = len(loaded) + len(errors)
            passed += f" ({matched} test{'' if matched == 1 else 's'} matching --run {run!r}; coverage not checked)"
        click.echo(passed + (f", {counted(len(gaps), 'coverage gap')}" if gaps else ""))  # trial 71: "1 coverage gaps"
    write_junit()
    if selector is not None and not selected:
        # trial 55: --run sharing looked for the policy's or the file's name; it reads the tests' metadata.name
        shown = ", ".join(sorted(test_names)[:8]) + (f", … ({len(test_names)} in all)" if len(test_names) > 8 else "")
        click.echo(f"verdict: no test name (metadata.name) matches --run {run!r}; the tests: {shown}", err=True)
        return 1
    return 1 if failed else 0
