#!/usr/bin/env python3
"""Write docs/policy.schema.json (the JSON Schema, draft 2020-12, of a policy file) from the marshmallow
schemas of rules/schema.py, so editors can check policies as they are written.

Usage: .venv/bin/python scripts/gen_schema.py [--check]
``--check`` writes nothing and exits 1 when the committed file differs from a fresh generation.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rules.schema import json_schema  # noqa: E402

TARGET = ROOT / "docs" / "policy.schema.json"


def render() -> str:
    """The file's text: the schema as 2-space indented JSON with a final newline."""
    return json.dumps(json_schema(), indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> int:
    fresh = render()
    if "--check" in argv:
        current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else ""
        if current != fresh:
            print(f"{TARGET.relative_to(ROOT)} is out of date: run scripts/gen_schema.py", file=sys.stderr)
            return 1
        return 0
    TARGET.parent.mkdir(parents=True, exist_ok=True)
    TARGET.write_text(fresh, encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
