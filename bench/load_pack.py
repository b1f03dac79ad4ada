"""CPU time of loading the built-in pack (``load_policies``) in a fresh interpreter, the cost every CLI run pays.

    .venv/bin/python bench/load_pack.py [--code DIR] [--loads N]

``--code`` loads with another checkout of verdict (its ``rules`` and ``policies``), e.g. the commit a change
started from, for a before/after pair run in turn (A B A B). The first load is the one a CLI run pays; later ones
in the same process show what is kept between loads.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--code", default=str(Path(__file__).resolve().parent.parent), help="checkout to load with")
    parser.add_argument("--loads", type=int, default=1, help="loads in this process (the first is a CLI run's)")
    args = parser.parse_args()
    sys.path.insert(0, args.code)
    import rules.cli  # noqa: F401  (imports as the CLI does: operators registered)
    from rules.loader import load_policies

    pack = str(Path(args.code) / "policies" / "gpu-operator")
    times = []
    for _ in range(args.loads):
        t = time.process_time()
        load_policies([pack])
        times.append(time.process_time() - t)
    shown = ", ".join(f"{t * 1000:.0f}" for t in times)
    print(f"{args.code}: load_policies of the built-in pack, CPU ms per load: {shown}")


if __name__ == "__main__":
    main()
