"""Time verdict on generated clusters (bench/make_cluster.py) and print the figures issue 11 asks for.

For each size: the dump's size and object count; ``orjson.loads`` of the file (the floor: no program that
reads the file can be faster); the stages in this process (read, index, evaluate, render the native JSON
report); the whole ``verdict audit FILE -o REPORT`` process (wall seconds, objects/s, peak RSS, the ratio
to the floor); the JSON report's size per Pod; and at the end the time per object of each size against
``1k``'s. Dumps are generated once into ``--dir`` (a temporary folder by default; never the repository).

    .venv/bin/python bench/run.py [--sizes 1k,5k,150k] [--dir /tmp/verdict-bench] [--runs 3] [--jobs N]
    .venv/bin/python bench/run.py --schedule     # 50,000 pending Pods x 5,000 nodes through `schedulable`
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import orjson  # noqa: E402
from make_cluster import parse_size, write  # noqa: E402

from rules.engine import audit_paths  # noqa: E402
from rules.loader import load_policies  # noqa: E402
from rules.render import write as write_report  # noqa: E402


def _verdict() -> list[str]:
    """The ``verdict`` command of this interpreter's environment (``python -m rules.cli`` without one)."""
    script = Path(sys.executable).with_name("verdict")
    return [str(script)] if script.exists() else [sys.executable, "-m", "rules.cli"]


def dump_for(size: str, folder: Path, seed: int) -> Path:
    """The dump of ``size`` in ``folder``, generated on first use."""
    path = folder / f"cluster-{size.replace(':', 'x')}-s{seed}.json"
    if not path.exists():
        t = time.perf_counter()
        tmp = path.with_suffix(".part")
        n = write(parse_size(size), tmp, seed)
        tmp.rename(path)
        print(f"  generated {path.name}: {n:,} objects in {time.perf_counter() - t:.1f} s")
    return path


def floor(path: Path, runs: int) -> float:
    """Best wall seconds of reading the file and ``orjson.loads`` on it."""
    best = float("inf")
    for _ in range(runs):
        t = time.perf_counter()
        orjson.loads(path.read_bytes())
        best = min(best, time.perf_counter() - t)
    return best


#: GNU time reports the peak RSS of the process it starts. RUSAGE_CHILDREN cannot be used here: a child forked
#: from this process (which holds the in-process stage's dump) inherits its high-water mark across exec.
GNU_TIME = "/usr/bin/time"
_MAXRSS = "VERDICT_BENCH_MAXRSS_KB="


def whole_process(path: Path, report: Path, runs: int, env: dict[str, str]) -> tuple[float, float, int]:
    """Median and min wall seconds of ``verdict audit`` over ``runs`` runs, and its peak RSS in bytes (the
    largest process: the parent or a worker it forks; GNU time's %M where /usr/bin/time exists)."""
    walls = []
    peak = 0
    timed = [GNU_TIME, "-f", f"{_MAXRSS}%M"] if os.path.exists(GNU_TIME) else []
    for _ in range(runs):
        t = time.perf_counter()
        proc = subprocess.run(
            [*timed, *_verdict(), "audit", str(path), "-o", str(report), "--fail-on", "never"], env=env, capture_output=True
        )
        walls.append(time.perf_counter() - t)
        if proc.returncode != 0:
            sys.exit(f"verdict audit failed ({proc.returncode}): {proc.stderr.decode()[-2000:]}")
        if timed:
            kib = [line for line in proc.stderr.decode().splitlines() if line.startswith(_MAXRSS)][-1]
            peak = max(peak, int(kib.removeprefix(_MAXRSS)) * 1024)
        else:  # an upper bound: see GNU_TIME
            peak = max(peak, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)
    return statistics.median(walls), min(walls), peak


def bench_size(size: str, args: argparse.Namespace, policies: object, out: dict[str, float]) -> None:
    path = dump_for(size, args.dir, args.seed)
    mib = path.stat().st_size / 2**20
    floor_s = floor(path, args.runs)
    print(f"{size}: {path.name}, {mib:.1f} MiB")
    print(f"  orjson.loads (floor): {floor_s:.2f} s")
    t = time.perf_counter()
    report = audit_paths([str(path)], policies)  # type: ignore[arg-type]
    in_process = time.perf_counter() - t
    timing = report.timing
    pods = sum(1 for o in report.objects if o.ref.kind == "Pod")
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "report.json"
        t = time.perf_counter()
        with target.open("wb") as fh:
            write_report(report, "json", fh)
        render_s = time.perf_counter() - t
        report_bytes = target.stat().st_size
    objects = report.objects_read
    s = report.summary()
    print(
        f"  in process: read {timing['readMs'] / 1000:.2f} s, index {timing['indexMs'] / 1000:.2f} s,"
        f" evaluate {timing['evaluateMs'] / 1000:.2f} s, render json {render_s:.2f} s (total {in_process + render_s:.2f} s)"
    )
    print(
        f"  objects read {objects:,}, judged {s['objectsJudged']:,}, results {sum(s['results'].values()):,}"
        f" ({', '.join(f'{k} {v:,}' for k, v in s['results'].items() if v)})"
    )
    print(f"  JSON report: {report_bytes / 2**20:.1f} MiB, {report_bytes / max(pods, 1):,.0f} bytes a Pod judged")
    del report
    env = dict(os.environ)
    if args.jobs is not None:
        env["VERDICT_JOBS"] = str(args.jobs)
    with tempfile.TemporaryDirectory() as tmp:
        median, best, peak = whole_process(path, Path(tmp) / "report.json", args.runs, env)
    print(
        f"  verdict audit (whole process, {args.runs} run(s)): median {median:.2f} s (min {best:.2f} s),"
        f" {objects / median:,.0f} objects/s, {median / floor_s:.1f}x orjson.loads,"
        f" peak RSS {peak / 2**20:.0f} MiB = {peak / path.stat().st_size:.2f}x the file"
    )
    out[size] = median / objects


def bench_schedule(args: argparse.Namespace) -> None:
    """``gpu-pods/workload-schedulable`` alone on 5,000 nodes, their bound Pods and 50,000 pending Pods."""
    from make_cluster import pending_cluster

    path = args.dir / f"schedule-5000x50000-s{args.seed}.json"
    if not path.exists():
        tmp = path.with_suffix(".part")
        pending_cluster(5000, 50_000, tmp, args.seed)
        tmp.rename(path)
    policies = load_policies().select(rules=["gpu-pods/workload-schedulable"])
    report = audit_paths([str(path)], policies)
    s = report.summary()
    print(
        f"schedule: {path.name}: workload-schedulable on {s['objectsJudged']:,} objects"
        f" ({', '.join(f'{k} {v:,}' for k, v in s['results'].items() if v)}):"
        f" evaluate {report.timing['evaluateMs'] / 1000:.2f} s (read {report.timing['readMs'] / 1000:.2f} s)"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1k,5k", help="comma-separated: 1k, 5k, 150k or NODES:PODS:VMIS")
    ap.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "verdict-bench")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--runs", type=int, default=1, help="whole-process runs per size (the median is printed)")
    ap.add_argument("--jobs", type=int, default=None, help="VERDICT_JOBS for the whole-process runs")
    ap.add_argument("--schedule", action="store_true", help="only the scheduling figure")
    args = ap.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    if shutil.disk_usage(args.dir).free < 4 * 2**30:
        sys.exit(f"{args.dir}: less than 4 GiB free for the dumps")
    if args.schedule:
        bench_schedule(args)
        return
    per_object: dict[str, float] = {}
    for size in args.sizes.split(","):
        # Policies compiled anew for each size: a check that reads no context remembers its outcomes across
        # dumps (a service judging one cluster again), so a second size judged with the first's policies
        # would start warm, as a fresh `verdict audit` never does.
        bench_size(size.strip(), args, load_policies(), per_object)
    base = per_object.get("1k")
    for size, seconds in per_object.items():
        ratio = f", {seconds / base:.2f}x 1k's" if base and size != "1k" else ""
        print(f"time per object at {size}: {seconds * 1e6:.1f} µs (whole process){ratio}")


if __name__ == "__main__":
    main()
