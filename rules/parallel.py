"""Both cores: a large dump's objects judged in forked worker processes, a batch of dumps one per process.

A dump is read and indexed once, its contexts and the scheduler's model built (``rules.compiled.prepare``),
then the process forks: the workers share every object of the dump (copy-on-write, the garbage collector's
view of them frozen) and judge shards of consecutive objects. Their reports come back in dump order and
are merged as a serial run would have produced them, exemption notes and annotation errors included:
the report is byte-identical to a serial run's but for its timing (tests/test_parallel.py).

``jobs``: ``--jobs N`` (CLI), else ``VERDICT_JOBS``, else the processors this process may run on. Dumps
under ``PARALLEL_FROM`` objects are judged in-process: forking and sending the results back cost more than
they save. Where ``fork`` is not available (or ``jobs`` is 1), everything runs in-process. The HTTP service
never forks here (a gunicorn worker is a threaded process, and requests already run in parallel across
workers): it calls the engine with ``jobs=1`` (docs/service.md).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

#: Below this many objects a dump is judged in-process.
PARALLEL_FROM = 4000
#: Shards per worker, handed out as workers finish: small enough to even out the work (a node or a VMI costs
#: more than a pod, and kinds come in runs: the 5k bench dump's last 5,000 objects, its workloads and VMIs,
#: cost 2.5x an average shard's), large enough that each shard's results travel back in one piece.
SHARDS_PER_JOB = 32


class JobsError(ValueError):
    """``VERDICT_JOBS`` or ``--jobs`` is not a whole number above 0."""


def default_jobs() -> int:
    """The processors this process may run on."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def jobs_setting(value: int | None = None) -> int:
    """``value`` when given, else ``VERDICT_JOBS``, else ``default_jobs()``. Raises ``JobsError`` for a
    value that is not a whole number above 0."""
    if value is None:
        raw = os.environ.get("VERDICT_JOBS", "").strip()
        if not raw:
            return default_jobs()
        if not raw.isdigit() or int(raw) < 1:
            raise JobsError(f"VERDICT_JOBS={raw!r} is not a whole number above 0 (processes judging a dump)")
        return int(raw)
    if value < 1:
        raise JobsError(f"--jobs {value}: give a whole number above 0")
    return value


def can_fork() -> bool:
    """True where worker processes can be forked (they inherit the parsed dump without copying it)."""
    return "fork" in multiprocessing.get_all_start_methods()


def shards(count: int, jobs: int) -> list[tuple[int, int]]:
    """``[start, stop)`` ranges covering ``range(count)`` in order, about ``SHARDS_PER_JOB`` per job."""
    n = max(1, min(count, jobs * SHARDS_PER_JOB))
    bounds = [count * i // n for i in range(n + 1)]
    return [(a, b) for a, b in zip(bounds, bounds[1:], strict=False) if b > a]


@dataclass(frozen=True, slots=True)
class Shard:
    """What one worker sends back for a range of objects ending at ``done``: the object reports (in the form
    its judge gives them: ``rules.evaluate`` sends positions and results), the input errors and the exemption
    counts its exempter gathered (in order), how many objects a selection kept, and the rules that applied to
    no object of the dump (``policy/rule: [reason, objects it matched in the shard]``)."""

    reports: list[Any]
    errors: list[Any]
    used: dict[str, int]
    done: int
    selected: int = 0
    idle: dict[str, list[Any]] = field(default_factory=dict)


# The forked workers find their work here: set in the parent just before the pool forks, never pickled.
_WORK: dict[str, Any] = {}


def judge_shards(count: int, jobs: int, judge: Callable[[int, int], Shard]) -> Iterator[Shard]:
    """``judge(start, stop)`` over the shards of ``range(count)`` in ``jobs`` forked processes, yielded in
    order (``map_in_processes``: an ``EvaluationTimeout`` a shard ran into is raised where that shard would
    have been yielded)."""
    return map_in_processes(shards(count, jobs), jobs, lambda bounds: judge(*bounds))


def map_in_processes(items: list[Any], jobs: int, work: Callable[[Any], Any]) -> Iterator[Any]:
    """``work(item)`` for each of ``items`` in up to ``jobs`` forked processes, yielded in order (``work``'s
    results and exceptions must pickle; ``work`` itself is inherited, not sent). An exception ``work`` raises
    is raised here, in its item's place: the items before it have been yielded, none after."""
    _WORK["item"] = work
    try:
        with multiprocessing.get_context("fork").Pool(min(jobs, len(items))) as pool:
            yield from pool.imap(_run_item, items)
    finally:
        _WORK.clear()


def _run_item(item: Any) -> Any:
    return _WORK["item"](item)
