"""Reading a YAML dump: time and peak memory of the reader's two ways of building it, at two sizes.

    .venv/bin/python bench/yaml_read.py [--sizes 100:1000:40,400:4000:160] [--dir /tmp/verdict-bench]

Each size (``NODES:PODS:VMIS``, ``bench/make_cluster.py``'s shapes) is written as YAML (``kubectl get ... -o yaml``'s
form: a ``kind: List``, block style), then read in a fresh process per way, its peak RSS read from the kernel
(``ru_maxrss``):

- ``node``: what the reader did up to the thirty-first session, and what policy files still do: libyaml composes
  each document into a node graph, which ``construct_document`` turns into Python values (``load_documents``);
- ``lean``: what the reader does now: the values are built from libyaml's events, with no node graph
  (``load_documents(lean=True)``, trial 175: 32 MB of YAML took 2.5 GB the first way).

Printed per size and way: seconds, peak RSS, the RSS over the file's size, and microseconds per object; the cost
must grow linearly (the per-object time at the larger size near the smaller's).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

_READ = """
import resource, sys, time
sys.path.insert(0, {root!r})
from rules.yamlsafe import load_documents
text = open({path!r}, encoding="utf-8").read()
start = time.perf_counter()
count = 0
for doc in load_documents(text, lean={lean}):
    data = doc.data
    count += len(data.get("items", [])) if isinstance(data, dict) else 1
seconds = time.perf_counter() - start
print(count, seconds, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""

_TO_YAML = """
import json, sys
sys.path.insert(0, {root!r})
from rules.yamlsafe import dump
data = json.load(open({src!r}, encoding="utf-8"))
open({out!r}, "w", encoding="utf-8").write(dump(data, default_flow_style=False, sort_keys=False))
"""


def _yaml_dump(size: str, directory: Path) -> Path:
    """The dump of ``size`` as YAML, made once (JSON by make_cluster.py, then written as kubectl writes YAML)."""
    out = directory / f"cluster-{size.replace(':', '-')}.yaml"
    if out.exists():
        return out
    as_json = directory / f"cluster-{size.replace(':', '-')}.json"
    subprocess.run([sys.executable, str(ROOT / "bench" / "make_cluster.py"), size, "-o", str(as_json)], check=True)
    # in a process of its own: a child's peak RSS starts at its parent's (Linux keeps ru_maxrss across fork and
    # exec), and this one holds the whole dump
    subprocess.run([sys.executable, "-c", _TO_YAML.format(root=str(ROOT), src=str(as_json), out=str(out))], check=True)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100:1000:40,400:4000:160", help="NODES:PODS:VMIS, comma-separated")
    parser.add_argument("--dir", default="/tmp/verdict-bench", type=Path, help="where the dumps are written")
    args = parser.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    per_object: dict[str, list[float]] = {"node": [], "lean": []}
    for size in args.sizes.split(","):
        path = _yaml_dump(size, args.dir)
        mib = path.stat().st_size / 2**20
        for way in ("node", "lean"):
            code = _READ.format(root=str(ROOT), path=str(path), lean=way == "lean")
            done = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
            count, seconds, kib = done.stdout.split()
            n, s, rss = int(count), float(seconds), int(kib) / 1024
            per_object[way].append(s / n * 1e6)
            print(
                f"{size} ({mib:.1f} MiB, {n:,} objects) {way}: {s:.2f} s, peak RSS {rss:.0f} MiB"
                f" ({rss / mib:.1f}x the file), {s / n * 1e6:.0f} µs an object"
            )
    for way, times in per_object.items():
        if len(times) > 1:
            print(f"{way}: µs an object at the largest size over the smallest: {times[-1] / times[0]:.2f}x")


if __name__ == "__main__":
    main()
