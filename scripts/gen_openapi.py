#!/usr/bin/env python3
"""Write openapi.yaml (the HTTP contract) from api/openapi.py and the marshmallow schemas of api/schemas.py.

Usage: .venv/bin/python scripts/gen_openapi.py [--check]
``--check`` writes nothing and exits 1 when the committed file differs from a fresh generation.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from api.openapi import spec_yaml  # noqa: E402

TARGET = ROOT / "openapi.yaml"


def main(argv: list[str]) -> int:
    fresh = spec_yaml()
    if "--check" in argv:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        if current != fresh:
            print(f"{TARGET.name} is out of date: run scripts/gen_openapi.py", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(fresh, encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
