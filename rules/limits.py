"""The engine's limits on hostile input, each a ``VERDICT_*`` setting with its default (docs/security.md).

The reader, the YAML loader, the operators and the evaluator take their limits from here when they are
imported; the CLI and the service refuse an unusable value at start with one line naming the variable
(``problems()``), so a limit is never silently left at its default.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

#: variable -> (default, what it bounds)
DEFAULTS: dict[str, tuple[int, str]] = {
    "VERDICT_MAX_UNPACKED": (1 << 30, "bytes one input may unpack to in the CLI (archives nested included)"),
    "VERDICT_MAX_ARCHIVE_DEPTH": (8, "archives nested in one input (gzip, tar and zip levels)"),
    "VERDICT_MAX_ARCHIVE_MEMBERS": (100_000, "members of one tar or zip archive"),
    "VERDICT_MAX_DOCUMENTS": (100_000, "YAML documents of one file (empty ones included), or JSON values one after another"),
    "VERDICT_MAX_NESTING": (100, "YAML/JSON nesting levels"),
    "VERDICT_MAX_ALIAS_ADDED": (2_000_000, "values YAML aliases may add to one document"),
    "VERDICT_MAX_YAML_EVENTS": (2_000_000, "YAML parse events past which a stream under 3 bytes a value is refused"),
    "VERDICT_MAX_REGEX_LENGTH": (1000, "characters of a regular expression in a policy"),
    "VERDICT_MAX_MESSAGE_CHARS": (8192, "characters of a result's message before it is clipped"),
    "VERDICT_MAX_VALUE_CHARS": (2048, "characters of an observed/expected string before it is clipped"),
    "VERDICT_MAX_CONFLICT_NOTES": (10, "notes per kind about objects that stand twice in a dump"),
    "VERDICT_MAX_ITEM_ERRORS": (10, "input errors of list items that are no Kubernetes object, each its own, in a dump"),
    "VERDICT_MAX_POLICY_BYTES": (16 << 20, "bytes of one policy or data file"),
}


def problems(environ: Mapping[str, str] | None = None) -> list[str]:
    """One line per ``VERDICT_MAX_*`` variable whose value is not a whole number above 0."""
    env = os.environ if environ is None else environ
    out = []
    for name in DEFAULTS:
        raw = env.get(name, "").strip()
        if raw and not (raw.isdigit() and int(raw) > 0):
            out.append(f"{name}={raw!r} is not a whole number above 0 ({DEFAULTS[name][1]}; default {DEFAULTS[name][0]:,})")
    return out


def limit(name: str) -> int:
    """The value of limit ``name`` from the environment, else its default (an unusable value is reported by
    ``problems()`` at start)."""
    raw = os.environ.get(name, "").strip()
    return int(raw) if raw.isdigit() and int(raw) > 0 else DEFAULTS[name][0]
