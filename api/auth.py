"""Optional bearer-token auth (RFC 6750) for every ``/v1/`` route.

Tokens come from the config's ``TOKENS`` (``VERDICT_TOKENS`` / ``VERDICT_TOKENS_FILE``); when there are
none, auth is off. ``/healthz``, ``/readyz``, ``/metrics`` and ``/openapi.yaml`` are always open. Tokens
are compared with ``hmac.compare_digest`` against every configured token, so the time taken does not
tell which token (or how much of one) matched.
"""

from __future__ import annotations

import hmac
from collections.abc import Sequence

from flask import Flask, request

from .problems import Problem

PROTECTED_PREFIX = "/v1/"
REALM = 'Bearer realm="verdict"'


def _matches(given: bytes, tokens: Sequence[bytes]) -> bool:
    found = False
    for t in tokens:
        found |= hmac.compare_digest(given, t)
    return found


def install(app: Flask, tokens: Sequence[str]) -> None:
    """Refuse ``/v1/`` requests without one of ``tokens`` (401 problem with ``WWW-Authenticate``)."""
    if not tokens:
        return
    wanted = [t.encode() for t in tokens]

    @app.before_request
    def _require_token() -> None:
        if not request.path.startswith(PROTECTED_PREFIX):
            return
        header = request.headers.get("Authorization", "")
        scheme, _, given = header.partition(" ")
        if not header:
            raise Problem("unauthorized", "this route needs 'Authorization: Bearer <token>'", {"WWW-Authenticate": REALM})
        if scheme.lower() != "bearer":
            # no bearer credentials at all: no error code (RFC 6750 section 3.1; trial 125: Basic got invalid_token)
            said = "this route needs 'Authorization: Bearer <token>'; the header holds no bearer token"
            raise Problem("unauthorized", said, {"WWW-Authenticate": REALM})
        if not given.strip() or not _matches(given.strip().encode(), wanted):
            raise Problem(
                "unauthorized", "the bearer token is not valid", {"WWW-Authenticate": f'{REALM}, error="invalid_token"'}
            )
