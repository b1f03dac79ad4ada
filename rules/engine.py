"""The two calls the CLI and the HTTP layer share: read a dump and evaluate it.

``audit_paths`` and ``audit_bytes`` run read -> index -> evaluate and return a ``Report``; rendering is
the caller's (``rules.render``). Reading time is added to the report's timing.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path

from .evaluate import evaluate
from .exemptions import ExemptionSet
from .loader import PolicySet
from .progress import Progress
from .reader import Budget, Dump, ProgressHook, parse_bytes, read_paths
from .report import Report
from .selection import Selection

ARCHIVE_SUFFIXES = (".tar", ".tar.gz", ".tgz", ".zip")


def _timed(
    read: float,
    dump: Dump,
    policies: PolicySet,
    name: str,
    exemptions: ExemptionSet | None,
    budget: float | None = None,
    selection: Selection | None = None,
    progress: Progress | None = None,
) -> Report:
    report = evaluate(dump, policies, name=name, exemptions=exemptions, budget=budget, selection=selection, progress=progress)
    report.timing = {"readMs": round(read * 1000, 3), **report.timing}
    return report


def audit_paths(
    paths: Iterable[str],
    policies: PolicySet,
    progress: ProgressHook | None = None,
    name: str = "",
    exemptions: ExemptionSet | None = None,
    selection: Selection | None = None,
) -> Report:
    """Read files/folders/archives (``-`` is standard input) as ONE dump and evaluate it (with
    ``exemptions`` from exemptions files, besides the dump's own ``verdict.dev/exempt`` annotations), judging
    the objects ``selection`` selects (all without one). ``progress`` hears each phase.

    Raises ``rules.errors.DumpError`` when a path cannot be read at all.
    """
    paths = list(paths)
    name = name or ", ".join(paths)
    if progress:
        progress.dump(name)
    t0 = time.perf_counter()
    dump = read_paths(paths, progress)
    return _timed(time.perf_counter() - t0, dump, policies, name, exemptions, None, selection, progress)


def audit_bytes(
    data: bytes,
    name: str,
    policies: PolicySet,
    max_unpacked: int | None = None,
    exemptions: ExemptionSet | None = None,
    budget: float | None = None,
    selection: Selection | None = None,
) -> Report:
    """Read one body (JSON, YAML, describe text, or an archive) and evaluate it (with ``exemptions``), judging
    the objects ``selection`` selects (all without one).

    ``max_unpacked`` bounds what archives in it may unpack to, all levels together (default
    ``rules.reader.MAX_UNPACKED_BYTES``). Raises ``rules.errors.DumpError`` when the bytes are not a dump at
    all (``DumpTooLarge`` when they unpack past the bound), ``EvaluationTimeout`` past ``budget`` seconds of
    evaluation.
    """
    t0 = time.perf_counter()
    dump = parse_bytes(data, name, Budget(max_unpacked) if max_unpacked else None)
    return _timed(time.perf_counter() - t0, dump, policies, name, exemptions, budget, selection)


def split_dumps(paths: Iterable[str]) -> list[str]:
    """The dumps named by CLI arguments: each argument is one dump, except a folder that holds only
    archives (a batch of archived dumps), which stands for each archive in it."""
    out: list[str] = []
    for p in paths:
        path = Path(p)
        if path.is_dir():
            files = sorted(f for f in path.rglob("*") if f.is_file() and not f.name.startswith("."))
            if files and all(f.name.lower().endswith(ARCHIVE_SUFFIXES) for f in files):
                out.extend(str(f) for f in files)
                continue
        out.append(p)
    return out
