"""A bounded loopback load on the service: the lab dump as JSON, posted by 32 clients for 30 s.

Starts ``verdict serve`` (gunicorn, ``VERDICT_WORKERS`` 2 by default) on a free loopback port, waits for
``/readyz``, runs ``wrk`` (Debian/Ubuntu: ``apt-get install wrk``) with a Lua script that posts
``examples/lab-cluster.yaml`` converted to JSON and counts the answers that are not 200, then stops the
server and prints requests/s, the latency percentiles and the errors (non-200 answers, connect/read/write
errors and timeouts).

    .venv/bin/python bench/http_load.py [--clients 32] [--seconds 30] [--workers 2] [--threads 2] [--distinct] [--code DIR]

``--distinct`` makes every request's body different (a counter in an annotation of the first object), as
when many clusters are audited, so that no answer comes from the service's report cache.

``--code`` serves another checkout of verdict (its ``rules`` and ``api``) with this environment, e.g. the
commit a change started from, for a before/after pair.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import orjson
import yaml

ROOT = Path(__file__).resolve().parent.parent
LUA = """
local f = io.open(os.getenv("VERDICT_BENCH_BODY"), "rb")
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/json"
local bad = 0
-- --distinct: every request a different body (a counter in one annotation), so that nothing is served from
-- what an earlier request's body was judged to be
if os.getenv("VERDICT_BENCH_DISTINCT") == "1" then
  local head, tail = wrk.body:match("^(.-)__VERDICT_N__(.*)$")
  local n = 0
  request = function()
    n = n + 1
    return wrk.format(nil, nil, nil, head .. tostring(n) .. tail)
  end
end
response = function(status, headers, body)
  if status ~= 200 then bad = bad + 1 end
end
done = function(summary, latency, requests)
  io.write(string.format("non-200: %d\\n", bad))
  for _, p in ipairs({50, 90, 99}) do
    io.write(string.format("p%d: %.1f ms\\n", p, latency:percentile(p) / 1000))
  end
end
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_ready(url: str, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    sys.exit(f"the service did not become ready at {url}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clients", type=int, default=32)
    ap.add_argument("--seconds", type=int, default=30)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=2, help="wrk's threads (the load generator's, not the service's)")
    ap.add_argument("--distinct", action="store_true", help="a different body for every request (no cache hit)")
    ap.add_argument("--code", type=Path, default=ROOT, help="the checkout to serve (default: this one)")
    args = ap.parse_args()
    wrk = shutil.which("wrk")
    if wrk is None:
        sys.exit("wrk is not installed (Debian/Ubuntu: apt-get install wrk)")
    docs = [d for d in yaml.safe_load_all((ROOT / "examples" / "lab-cluster.yaml").read_text()) if d]
    with tempfile.TemporaryDirectory() as tmp:
        body = Path(tmp) / "lab.json"
        if args.distinct:
            first = docs[0].setdefault("metadata", {})
            first["annotations"] = {**(first.get("annotations") or {}), "bench.verdict.dev/request": "__VERDICT_N__"}
        payload = orjson.dumps({"apiVersion": "v1", "kind": "List", "items": docs})
        body.write_bytes(payload)
        script = Path(tmp) / "post.lua"
        script.write_text(LUA)
        port = free_port()
        env = dict(os.environ, VERDICT_BIND=f"127.0.0.1:{port}", VERDICT_WORKERS=str(args.workers), VERDICT_LOG_LEVEL="WARNING")
        env["PYTHONPATH"] = str(args.code.resolve())
        server = subprocess.Popen(
            [sys.executable, "-m", "rules.cli", "serve"],
            env=env,
            cwd=args.code,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_ready(f"http://127.0.0.1:{port}/readyz", 60)
            command = [wrk, f"-t{args.threads}", f"-c{args.clients}", f"-d{args.seconds}s", "--timeout", "5s"]
            command += ["-s", str(script), f"http://127.0.0.1:{port}/v1/evaluate"]
            run = subprocess.run(
                command,
                env=dict(os.environ, VERDICT_BENCH_BODY=str(body), VERDICT_BENCH_DISTINCT="1" if args.distinct else "0"),
                capture_output=True,
                text=True,
                check=True,
            )
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(30)
    out = run.stdout
    rps = re.search(r"Requests/sec:\s+([\d.]+)", out)
    total = re.search(r"(\d+) requests in", out)
    errors = re.search(r"Socket errors: (.*)", out)
    bodies = "a different body each request" if args.distinct else "the same body each request"
    print(
        f"lab dump as JSON ({len(payload):,} bytes; {bodies}), {args.clients} clients, {args.seconds} s, {args.workers} workers"
    )
    print(f"  requests: {total.group(1) if total else '?'}, {rps.group(1) if rps else '?'} requests/s")
    for line in out.splitlines():
        if re.match(r"p\d+: ", line) or line.startswith("non-200"):
            print(f"  {line}")
    print(f"  socket errors: {errors.group(1) if errors else 'none'}")


if __name__ == "__main__":
    main()
