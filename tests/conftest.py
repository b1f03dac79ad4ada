"""Shared fixtures for the engine tests: the repository on ``sys.path``, policy and dump builders."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as `.venv/bin/pytest` from a checkout, without installing verdict
    sys.path.insert(0, str(ROOT))
