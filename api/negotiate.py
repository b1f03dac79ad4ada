"""Which report format to answer: ``?format=`` wins, else the ``Accept`` header, else ``json``.

Only formats that ``rules.render.FORMATS`` holds are chosen (read once, at import).
An ``Accept`` that names nothing verdict renders falls back to ``json`` rather than answering 406.
"""

from __future__ import annotations

from flask import request

from rules.render import FORMATS

DEFAULT_FORMAT = "json"

#: Accept media type -> format name, in the server's order of preference for ``*/*`` and ties.
ACCEPT_FORMATS: tuple[tuple[str, str], ...] = (
    ("application/json", "json"),
    ("application/yaml", "yaml"),
    ("application/x-yaml", "yaml"),
    # text/* gets the chat format, whose answer is text/markdown (trial 56: it got yaml as application/yaml)
    ("text/markdown", "markdown"),
    ("text/yaml", "yaml"),
    ("application/sarif+json", "sarif"),
    ("application/junit+xml", "junit"),
    ("application/xml", "junit"),
    ("text/xml", "junit"),
    ("text/plain", "table"),
)


def _accept_map() -> dict[str, str]:
    """Media type -> format, for the formats that exist: the table above, then each remaining format's
    own media type when no other format claims it."""
    out = {mt: fmt for mt, fmt in ACCEPT_FORMATS if fmt in FORMATS}
    for fmt, (_, mt) in FORMATS.items():
        out.setdefault(mt.split(";")[0].strip().lower(), fmt)
    return out


#: Media type -> format, built once: ``FORMATS`` does not change at run time.
ACCEPT_MAP: dict[str, str] = _accept_map()
#: The media types of ``ACCEPT_MAP``, in its order (the server's preference for ``*/*`` and ties).
_ACCEPT_TYPES: list[str] = list(ACCEPT_MAP)


def choose_format(explicit: str | None) -> str:
    """The format for this request (``explicit`` is the validated ``format`` query value)."""
    if explicit:
        return explicit
    if not request.accept_mimetypes:
        return DEFAULT_FORMAT
    best = request.accept_mimetypes.best_match(_ACCEPT_TYPES)
    return ACCEPT_MAP[best] if best else DEFAULT_FORMAT


def answer_type(fmt: str, media_type: str) -> str:
    """The media type to answer ``fmt`` in: its own (``media_type``), unless the request's ``Accept`` refuses that
    (q=0) while it takes another type of the same format (trial 206: ``Accept: application/xml;q=0, text/xml`` got
    junit labelled application/xml, the type the client refused)."""
    accept = request.accept_mimetypes
    base = media_type.split(";")[0].strip().lower()
    if not accept or accept.quality(base) > 0:
        return media_type
    best = accept.best_match([mt for mt, f in ACCEPT_MAP.items() if f == fmt and mt != base])
    return best or media_type
