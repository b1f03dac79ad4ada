"""The service's settings: the one place that reads the environment.

``from_env()`` turns ``VERDICT_*`` variables into the config mapping that ``create_app(config)`` and
``api/gunicorn_conf.py`` (gunicorn's settings) take. Keys (and the variable each comes from, with its
default):

================== ========================= ==============================================================
key                variable                  meaning
================== ========================= ==============================================================
BIND               VERDICT_BIND              ``host:port`` gunicorn listens on (``127.0.0.1:8080``)
PROBE_BIND         VERDICT_PROBE_BIND        ``host:port`` where the gunicorn master answers ``/healthz`` and
                                             ``/readyz`` itself, outside the workers' threads (empty: none;
                                             ``api/probes.py``)
WORKERS            VERDICT_WORKERS           gunicorn worker processes (2)
THREADS            VERDICT_THREADS           threads per worker (4): a slow client holds one thread, not a worker
READ_TIMEOUT       VERDICT_READ_TIMEOUT      seconds a request body may take to arrive in all (30): past it, 408
EVAL_BUDGET        VERDICT_EVAL_BUDGET       seconds one request may spend reading and evaluating (100): past it, 503
MAX_CONTENT_LENGTH VERDICT_MAX_BODY          largest request body in bytes, as sent (64 MiB)
POLICIES           VERDICT_POLICIES          policy files, pack folders or built-in pack names, separated by
                                             ``os.pathsep`` (``:`` on Linux); empty: the built-in packs
TOKENS             VERDICT_TOKENS,           bearer tokens: comma-separated, plus one a line from the file
                   VERDICT_TOKENS_FILE       (``#`` comments and blank lines ignored); none: auth is off
LOG_LEVEL          VERDICT_LOG_LEVEL         ``DEBUG``, ``INFO`` (default), ``WARNING``, ``ERROR``
EXEMPTIONS         VERDICT_EXEMPTIONS        exemptions files (``kind: Exemptions``, docs/exemptions.md), separated
                                             by ``os.pathsep``; empty: none (annotations in dumps still apply)
REPORT_CACHE_MB    VERDICT_REPORT_CACHE_MB   MiB of reports (pickled) the workers keep, so that the same dump
                                             posted again is not judged again (4; 0: off; ``api/cache.py``)
WORKER_MAX_RSS_MB  VERDICT_WORKER_MAX_RSS_MB a worker whose resident memory is above this many MiB after a
                                             request is replaced (512; 0: never for its memory)
================== ========================= ==============================================================

Keys that only ``create_app`` takes (no variable): ``POLICY_SET`` (an already loaded
``rules.loader.PolicySet``, used instead of loading ``POLICIES``), ``EXEMPTION_SET`` (an already loaded
``rules.exemptions.ExemptionSet``, used instead of loading ``EXEMPTIONS``), ``MAX_DECODED_LENGTH``
(largest body after ``Content-Encoding: gzip`` is undone, and what archives in it may unpack to; default
256 MiB).

``from_env()`` loads the exemptions files itself and puts the set under ``EXEMPTION_SET``, so a broken
file stops gunicorn while it reads its configuration, in one line naming the variable, file, line and
reason. Read from ``os.environ``, the set is loaded once per process and kept for the same files: gunicorn's
workers fork with the master's set, so a file changed (or broken) after the start is not read by a worker
that gunicorn replaces; restart the server to change the exemptions.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from rules import limits
from rules.exemptions import ExemptionLoadError, ExemptionSet, load_exemptions

DEFAULT_BIND = "127.0.0.1:8080"
DEFAULT_WORKERS = 2
DEFAULT_THREADS = 4
DEFAULT_READ_TIMEOUT = 30
#: what one request may spend reading and evaluating its dump, from when its body has arrived (gunicorn's gthread
#: workers are not killed for a long request: this is what bounds one)
DEFAULT_EVAL_BUDGET = 100
DEFAULT_MAX_BODY = 64 * 1024 * 1024
# What one request may unpack to (Content-Encoding and archives, nested ones included): a worker holds the
# parsed dump in memory, several times the text's size, so the service keeps this well below the CLI's 1 GiB.
DEFAULT_MAX_DECODED = 256 << 20
#: the lab dump's report is ~90 KB pickled: 4 MiB keeps about 45 such reports
DEFAULT_REPORT_CACHE_MB = 4
#: a worker is ~50 MB warm and ~105 MB after judging a 22 MiB dump; one that judged a dump near the body bound
#: (64 MiB) holds several hundred MB until it is replaced
DEFAULT_WORKER_MAX_RSS_MB = 512
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
#: How the gunicorn master hands its workers the directory where they share kept reports (api/gunicorn_conf.py):
#: not a user's setting.
REPORT_CACHE_DIR_VARIABLE = "_VERDICT_REPORT_CACHE_DIR"


class ConfigError(ValueError):
    """A ``VERDICT_*`` variable has a value the service cannot use; the message names the variable."""


def defaults() -> dict[str, Any]:
    """Every key with its default value."""
    return {
        "BIND": DEFAULT_BIND,
        "PROBE_BIND": "",
        "WORKERS": DEFAULT_WORKERS,
        "THREADS": DEFAULT_THREADS,
        "READ_TIMEOUT": DEFAULT_READ_TIMEOUT,
        "EVAL_BUDGET": DEFAULT_EVAL_BUDGET,
        "MAX_CONTENT_LENGTH": DEFAULT_MAX_BODY,
        "MAX_DECODED_LENGTH": DEFAULT_MAX_DECODED,
        "POLICIES": [],
        "EXEMPTIONS": [],
        "EXEMPTION_SET": None,
        "TOKENS": [],
        "LOG_LEVEL": "INFO",
        "REPORT_CACHE_MB": DEFAULT_REPORT_CACHE_MB,
        "WORKER_MAX_RSS_MB": DEFAULT_WORKER_MAX_RSS_MB,
        "REPORT_CACHE_DIR": None,
    }


def _whole(environ: Mapping[str, str], name: str, default: int, least: int = 1) -> int:
    raw = environ.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not a whole number") from None
    if value < least:
        raise ConfigError(f"{name}={raw!r} must be at least {least}")
    return value


def read_tokens(environ: Mapping[str, str]) -> list[str]:
    """Bearer tokens from ``VERDICT_TOKENS`` (comma-separated) and ``VERDICT_TOKENS_FILE`` (one a line).

    Raises ``ConfigError`` when the file cannot be read or a token holds whitespace.
    """
    tokens = [t.strip() for t in environ.get("VERDICT_TOKENS", "").split(",") if t.strip()]
    path = environ.get("VERDICT_TOKENS_FILE", "").strip()
    if path:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ConfigError(f"VERDICT_TOKENS_FILE={path!r} cannot be read: {getattr(exc, 'strerror', None) or exc}") from None
        tokens += [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    for t in tokens:
        if any(c.isspace() for c in t):
            raise ConfigError("a token in VERDICT_TOKENS / VERDICT_TOKENS_FILE holds whitespace")
    return tokens


#: Exemption sets loaded from ``os.environ`` in this process (and in the process it was forked from), by files.
_LOADED: dict[tuple[str, ...], ExemptionSet] = {}


def read_exemptions(environ: Mapping[str, str], keep: bool = False) -> tuple[list[str], ExemptionSet | None]:
    """The files of ``VERDICT_EXEMPTIONS`` and their loaded set (None when there is no file); with ``keep``,
    a set loaded before for the same files is reused. Raises ``ConfigError`` with every error (file, line,
    field and reason) when a file is refused."""
    files = [p for p in environ.get("VERDICT_EXEMPTIONS", "").split(os.pathsep) if p.strip()]
    if not files:
        return files, None
    key = tuple(files)
    if keep and key in _LOADED:
        return files, _LOADED[key]
    try:
        loaded = load_exemptions(files)
    except ExemptionLoadError as exc:
        raise ConfigError(f"VERDICT_EXEMPTIONS: {'; '.join(str(e) for e in exc.errors)}") from None
    if keep:
        _LOADED[key] = loaded
    return files, loaded


def from_env(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The config mapping from ``VERDICT_*`` variables (default: ``os.environ``). Raises ``ConfigError``."""
    env = os.environ if environ is None else environ
    bad_limits = limits.problems(env)
    if bad_limits:
        raise ConfigError(bad_limits[0])
    level = env.get("VERDICT_LOG_LEVEL", "").strip().upper() or "INFO"
    if level not in LOG_LEVELS:
        raise ConfigError(f"VERDICT_LOG_LEVEL={level!r} is not one of {', '.join(LOG_LEVELS)}")
    exemptions, exemption_set = read_exemptions(env, keep=environ is None)
    probe_bind = env.get("VERDICT_PROBE_BIND", "").strip()
    if probe_bind:
        from .probes import parse_bind

        try:
            parse_bind(probe_bind)
        except ValueError:
            raise ConfigError(f"VERDICT_PROBE_BIND={probe_bind!r} is not host:port (such as 0.0.0.0:8081)") from None
    config = defaults()
    config.update(
        {
            "BIND": env.get("VERDICT_BIND", "").strip() or DEFAULT_BIND,
            "PROBE_BIND": probe_bind,
            "WORKERS": _whole(env, "VERDICT_WORKERS", DEFAULT_WORKERS),
            "THREADS": _whole(env, "VERDICT_THREADS", DEFAULT_THREADS),
            "READ_TIMEOUT": _whole(env, "VERDICT_READ_TIMEOUT", DEFAULT_READ_TIMEOUT),
            "EVAL_BUDGET": _whole(env, "VERDICT_EVAL_BUDGET", DEFAULT_EVAL_BUDGET),
            "MAX_CONTENT_LENGTH": _whole(env, "VERDICT_MAX_BODY", DEFAULT_MAX_BODY),
            "POLICIES": [p for p in env.get("VERDICT_POLICIES", "").split(os.pathsep) if p.strip()],
            "EXEMPTIONS": exemptions,
            "EXEMPTION_SET": exemption_set,
            "TOKENS": read_tokens(env),
            "LOG_LEVEL": level,
            "REPORT_CACHE_MB": _whole(env, "VERDICT_REPORT_CACHE_MB", DEFAULT_REPORT_CACHE_MB, least=0),
            "WORKER_MAX_RSS_MB": _whole(env, "VERDICT_WORKER_MAX_RSS_MB", DEFAULT_WORKER_MAX_RSS_MB, least=0),
            "REPORT_CACHE_DIR": env.get(REPORT_CACHE_DIR_VARIABLE) or None,
        }
    )
    return config
