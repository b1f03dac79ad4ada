"""CPU time of one ``POST /v1/evaluate`` in process (Flask's test client): the lab dump as JSON, a different
annotation on its first object every request, so that no answer comes from the report cache.

    .venv/bin/python bench/request_cpu.py [--code DIR] [--requests 200]

Twenty requests warm up first; the figure is the CPU time of the next ``--requests`` over their number. What the
HTTP benchmark (``bench/http_load.py --distinct``) spends per request besides gunicorn and the sockets. ``--code``
serves another checkout, for a before/after pair run in turn (A B A B).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--code", default=str(Path(__file__).resolve().parent.parent), help="checkout to serve")
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    sys.path.insert(0, args.code)
    import orjson
    import yaml

    from api import create_app

    lab = Path(args.code) / "examples" / "lab-cluster.yaml"
    docs = [d for d in yaml.safe_load_all(lab.read_text(encoding="utf-8")) if d]
    docs[0].setdefault("metadata", {}).setdefault("annotations", {})["n"] = "__N__"
    body = orjson.dumps({"apiVersion": "v1", "kind": "List", "items": docs}).decode()
    client = create_app().test_client()

    def post(i: int) -> None:
        answer = client.post("/v1/evaluate", data=body.replace("__N__", str(i)), content_type="application/json")
        assert answer.status_code == 200, answer.data[:300]

    for i in range(20):
        post(-i - 1)
    t = time.process_time()
    for i in range(args.requests):
        post(i)
    spent = time.process_time() - t
    print(f"{args.code}: {spent / args.requests * 1000:.2f} ms CPU a request over {args.requests}")


if __name__ == "__main__":
    main()
