"""Request bodies: media type, content coding and size checks before the engine sees the bytes.

The reader recognises archives by their magic bytes, so the media type mostly says what is allowed;
an archive media type whose body is not that archive is refused here with the reason.
"""

from __future__ import annotations

import re
import socket
import threading
import time
import zlib
from collections.abc import Callable

from flask import current_app, request
from werkzeug.exceptions import ClientDisconnected, HTTPException

from rules.reader import GZIP_MAGIC, TAR_NAMES, WIDE_MARKS, XZ_MAGIC, ZIP_MAGICS, compression, empty_tar, is_tar

from .problems import Problem

#: media types POST /v1/evaluate takes, and the magic bytes an archive type must start with
DUMP_TYPES: dict[str, tuple[bytes, ...]] = {
    "application/json": (),
    "application/yaml": (),
    "application/x-yaml": (),
    "text/yaml": (),
    "text/plain": (),
    "text/markdown": (),  # a chat message or issue comment: its code blocks are read
    "application/gzip": (GZIP_MAGIC,),
    "application/x-gzip": (GZIP_MAGIC,),
    "application/x-tar": (),  # checked below: ustar at offset 257, or a gzip stream (.tar.gz)
    "application/zip": ZIP_MAGICS,
    "application/x-xz": (XZ_MAGIC,),
    "application/x-bzip2": (b"BZh",),
    "application/octet-stream": (),  # anything; recognised by content
}
#: what an empty body is asked to be instead, by route (the empty-body problem says it)
DUMP_WANTED = "a dump (JSON, YAML, describe text or an archive)"
POLICY_WANTED = "a policy file (YAML or JSON: apiVersion: verdict/v1, kind: Policy)"
#: media types POST /v1/policies/lint takes
POLICY_TYPES = ("application/yaml", "application/x-yaml", "text/yaml", "application/json", "text/plain")
_TEXT_CHARSETS = ("utf-8", "utf8", "us-ascii", "ascii")
#: UTF-16 and UTF-32, which the reader takes by their byte order mark (what Windows PowerShell's ``>`` writes): a body
#: that says so in its charset is read as it says (trial 136: refused with "send UTF-8", read without the label).
#: Without a mark, plain utf-16 and utf-32 are read in the byte order the text shows (``_byte_order``).
_WIDE_CHARSETS = {
    "utf-16": "utf-16",
    "utf-16be": "utf-16-be",
    "utf-16le": "utf-16-le",
    "utf-32": "utf-32",
    "utf-32be": "utf-32-be",
    "utf-32le": "utf-32-le",
}
#: Media types whose bytes are no text, whatever charset they carry.
_BINARY_TYPES = (
    "application/gzip",
    "application/x-gzip",
    "application/zip",
    "application/x-tar",
    "application/x-xz",
    "application/x-bzip2",
    "application/octet-stream",
)
#: What sends a form instead of a file, said in the 415: ``curl -d`` labels a body as a form by default.
_SEND_FILE = "send the file as it is with curl --data-binary @FILE -H 'Content-Type: application/yaml' (or application/json)"
FORM_TYPES = {
    "application/x-www-form-urlencoded": f" (curl -d and --data send it, and drop a file's line breaks): {_SEND_FILE}",
    "multipart/form-data": f" (curl -F sends it, the file wrapped in a form): {_SEND_FILE}",
}
#: The fix an archive type on a plain body is told.
_OWN_TYPE = "; send a plain dump as application/yaml or application/json (application/octet-stream: any, by its content)"
#: Said when a body that is not JSON is a single long line and reads as nothing: ``curl -d @FILE`` drops the
#: file's line breaks, leaving YAML that no longer parses (or one comment).
ONE_LINE_HINT = (
    "; the body is one line of {size:,} bytes: curl -d drops a file's line breaks, send it with curl --data-binary @FILE"
)


def one_line_hint(data: bytes) -> str:
    """``ONE_LINE_HINT`` for a body of more than 80 bytes with no line break that does not start as JSON and reads
    like a dump whose breaks were dropped (``key: value`` more than once), else "" (trial 56: a chat message with no
    dump was told about curl -d)."""
    if len(data) <= 80 or b"\n" in data or data.lstrip()[:1] in (b"{", b"["):
        return ""
    if len(_KEY_VALUE.findall(data[:4096])) < 2:
        return ""
    return ONE_LINE_HINT.format(size=len(data))


#: A YAML ``key: value`` pair, as a dump whose line breaks were dropped still shows them.
_KEY_VALUE = re.compile(rb"(?:^|\s)[A-Za-z][\w./-]*: ")


def carries_no_body() -> bool:
    """True when the request says it has no body: ``Content-Length: 0``, or neither ``Content-Length`` nor
    a chunked ``Transfer-Encoding`` (RFC 9112 section 6.3: then the body's length is zero), as
    ``curl -X POST`` without data sends it."""
    if request.content_length is not None:
        return request.content_length == 0
    return "chunked" not in request.headers.get("Transfer-Encoding", "").lower()


#: The content codings a body may have (``read_body``); a 415 names them in Accept-Encoding.
CODINGS = ("gzip", "x-gzip", "identity")


def no_body(wanted: str) -> Problem:
    """The ``empty-body`` problem, asking for ``wanted``."""
    return Problem("empty-body", f"the request has no body; send {wanted}")


def media_type(accepted: tuple[str, ...] | list[str], wanted: str = "") -> str:
    """The request's media type (lower-case, without parameters). Raises a 415 ``Problem`` when it is
    missing, not one of ``accepted``, or names a charset other than UTF-8; but when ``wanted`` is given and
    the request carries no body, the 400 ``empty-body`` problem asking for ``wanted`` instead, whatever the
    Content-Type (there is nothing to label: what is missing is the body)."""
    given = request.mimetype
    if wanted and (not given or given not in accepted) and carries_no_body():
        raise no_body(wanted)
    # the types a client may send, in a header too (trial 171 #11: said in the detail alone): Accept-Post, as the
    # W3C's Linked Data Platform registers it for a POST that refuses a media type (IANA's header registry)
    listed = ", ".join(accepted)
    told = {"Accept-Post": listed}
    if not given:
        raise Problem("unsupported-media-type", f"say what the body is with Content-Type: one of {listed}", told)
    if given not in accepted:
        raise Problem(
            "unsupported-media-type",
            f"Content-Type {given} is not accepted here{FORM_TYPES.get(given, '')}; use one of {listed}",
            told,
        )
    charset = request.mimetype_params.get("charset", "").lower()
    if charset and charset not in _TEXT_CHARSETS and charset not in _WIDE_CHARSETS:
        # (no Accept-Post: the media type was taken, its charset is what is refused: trial 176)
        raise Problem("unsupported-media-type", f"charset {charset} is not accepted; send UTF-8 (or UTF-16, UTF-32)")
    return given


def charset_hint() -> str:
    """What a refusal of a body read as a wide charset adds: how it was read (trial 138: a wrong charset=utf-16be on
    little-endian text gave CJK "plain text" with no word of the charset)."""
    charset = request.mimetype_params.get("charset", "").lower()
    if charset not in _WIDE_CHARSETS or request.mimetype in _BINARY_TYPES:
        return ""
    return f" (the body was read as {charset.upper()}, as its charset says: is that its encoding and byte order?)"


def _byte_order(data: bytes, family: str) -> str:
    """The codec of UTF-16 or UTF-32 text without a byte order mark, by where its zero bytes fall: YAML and JSON are
    mostly ASCII, whose characters are one byte and zeros in either order (trial 137: .NET's "utf-16", what PowerShell
    sends, is little-endian without a mark, and was read big-endian as RFC 2781 has it, into CJK text)."""
    head = data[:4096]
    if family == "utf-16":
        return "utf-16-le" if head[1::2].count(0) > head[0::2].count(0) else "utf-16-be"
    return "utf-32-le" if head[3::4].count(0) > head[0::4].count(0) else "utf-32-be"


def _transcoded(data: bytes, name: str) -> bytes:
    """``data`` as UTF-8 where the request's charset says UTF-16 or UTF-32 (a byte order mark, if any, says which
    byte order); raises a 400 ``malformed-dump`` where it does not decode as that charset."""
    charset = request.mimetype_params.get("charset", "").lower()
    if charset not in _WIDE_CHARSETS or request.mimetype in _BINARY_TYPES:
        return data
    family = charset[:6]
    codec = next((enc for mark, enc in WIDE_MARKS if data.startswith(mark) and enc == family), _WIDE_CHARSETS[charset])
    if codec == family and not data.startswith(tuple(mark for mark, enc in WIDE_MARKS if enc == family)):
        codec = _byte_order(data, family)
    try:
        return data.decode(codec).encode("utf-8")
    except UnicodeDecodeError as exc:
        raise Problem(
            "malformed-dump",
            f"the body is not {charset.upper()} text, as its charset says: {exc.reason} at offset {exc.start}",
            file=name,
        ) from None


def _gunzip(data: bytes, limit: int, name: str) -> bytes:
    decoder = zlib.decompressobj(wbits=31)  # gzip header and trailer (RFC 1952)
    try:
        out = decoder.decompress(data, limit + 1)
    except zlib.error as exc:
        # (trial 177: a YAML body sent with the header gave zlib's words alone)
        plain = not data.startswith(b"\x1f\x8b") and data[:512].isascii()
        hint = ": the body is not gzip (it starts as text); send it without Content-Encoding: gzip" if plain else ""
        raise Problem("malformed-dump", f"Content-Encoding gzip: broken gzip stream ({exc}){hint}", file=name) from None
    if len(out) > limit:
        raise Problem("body-too-large", f"the body unpacks to more than {limit} bytes")
    if not decoder.eof:
        raise Problem("malformed-dump", "Content-Encoding gzip: the gzip stream ends early", file=name)
    return out


class _Deadline:
    """Ends the reading of a request body after ``seconds`` in all: a timer shuts the socket for reading, so a
    client that sends one byte every few seconds cannot hold a worker thread past it (the response can still
    be written). Without a socket (the test client, another server) there is nothing to cut."""

    def __init__(self, sock: socket.socket | None, seconds: float) -> None:
        self.fired = False
        self._sock = sock
        self._timer = threading.Timer(seconds, self._cut) if sock is not None and seconds > 0 else None
        if self._timer is not None:
            self._timer.daemon = True
            self._timer.start()

    def _cut(self) -> None:
        self.fired = True
        try:
            if self._sock is not None:
                self._sock.shutdown(socket.SHUT_RD)
        except OSError:
            pass

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()


def read_body(
    max_decoded: int, name: str = "<body>", wanted: str = DUMP_WANTED, before_decoding: Callable[[], None] | None = None
) -> bytes:
    """The body with its ``Content-Encoding`` (``gzip``, ``x-gzip`` or ``identity``) undone; ``before_decoding`` is
    called once the body has arrived, before a coding is undone (what it decodes to is not known before).

    Raises ``Problem``: 415 for another coding, 400 for an empty body (asking for ``wanted``) or a broken
    gzip stream, 413 when the decoded body is larger than ``max_decoded`` (the raw size limit is
    werkzeug's 413). Problems about the bytes name the body ``name``.
    """
    codings = [c.strip().lower() for c in request.headers.get("Content-Encoding", "").split(",") if c.strip()]
    unknown = [c for c in codings if c not in CODINGS]
    if unknown:
        # RFC 9110 section 15.5.16: a 415 for a content coding says the codings accepted in Accept-Encoding
        raise Problem(
            "unsupported-media-type",
            f"Content-Encoding {', '.join(unknown)} is not accepted; use gzip",
            {"Accept-Encoding": ", ".join(CODINGS)},
        )
    announced = request.content_length
    timeout = current_app.config.get("VERDICT_READ_TIMEOUT") or 0
    cut = _Deadline(request.environ.get("gunicorn.socket"), timeout)
    data: bytes | None = None
    unframed: Exception | None = None
    try:
        data = request.get_data(cache=False)
    except ClientDisconnected:  # werkzeug counted the bytes itself (a server that does not terminate the input)
        pass
    except HTTPException:  # werkzeug's own answers (413 past MAX_CONTENT_LENGTH): the problem handler renders them
        raise
    except Exception as exc:  # the server's own framing errors (gunicorn: InvalidChunkSize, ...): the client's fault
        unframed = exc
    finally:
        cut.cancel()
    if cut.fired:
        raise Problem("request-timeout", f"the body did not arrive within {timeout} s (VERDICT_READ_TIMEOUT); send it again")
    if unframed is not None:
        framing = "its chunked transfer coding is broken" if request.headers.get("Transfer-Encoding") else "its framing is broken"
        raise Problem("invalid-body", f"the body could not be read: {framing} ({unframed}); send it again, whole")
    if data is None:
        if announced is None:  # chunked: the client closed before the last (zero-size) chunk
            raise Problem("truncated-body", "the chunked body ends before its last (zero-size) chunk; send it again, whole")
        raise Problem("truncated-body", f"the body ends before the {announced:,} bytes Content-Length announced; send it again")
    if announced is not None and len(data) < announced:
        # The client closed (or half-closed) before sending what it announced (gunicorn hands the input over
        # terminated, so werkzeug reads to its end): judging the part received would report a smaller cluster.
        raise Problem(
            "truncated-body",
            f"the body ends after {len(data):,} of the {announced:,} bytes Content-Length announced; send it again",
        )
    limit = request.max_content_length
    if request.content_length is None and limit is not None and len(data) >= limit:
        # A chunked body is cut at the limit by werkzeug without an error: one more byte says it was longer.
        if request.environ["wsgi.input"].read(1):
            raise Problem("body-too-large", f"the body is larger than {limit} bytes (VERDICT_MAX_BODY)")
    if before_decoding is not None and data and any(c != "identity" for c in codings):
        before_decoding()
    for coding in reversed(codings):
        if coding != "identity" and data:
            data = _gunzip(data, max_decoded, name)
    if not data:
        raise no_body(wanted)
    return _transcoded(data, name)


def check_magic(mimetype: str, data: bytes, name: str = "<body>") -> None:
    """Refuse (400) an archive media type whose bytes are not that archive, and (400 ``empty-body``) an empty tar
    archive sent as one (trial 136); the problem names the body ``name``."""
    # (trial 138: a raw empty tar sent as gzip is no gzip, and zeros named nodes.yaml no tar)
    # (trial 140: gzip'd zeros named nodes.yaml.gz are a broken file, as the CLI says)
    unnamed_or_tar = name == "<body>" or name.lower().endswith(TAR_NAMES)
    says_tar = mimetype == "application/x-tar" or (mimetype == "application/octet-stream" and unnamed_or_tar)
    says_gzip = mimetype in ("application/gzip", "application/x-gzip") and data.startswith(GZIP_MAGIC) and unnamed_or_tar
    if (says_tar or says_gzip) and empty_tar(data):
        raise Problem("empty-body", "the body is an empty tar archive: it holds no file", file=name)
    if mimetype == "application/x-tar":
        # (a compressed tar is a tar too: trial 155, a .tar.xz sent as application/x-tar was refused)
        if not is_tar(data) and not compression(data):
            raise Problem(
                "malformed-dump", f"Content-Type application/x-tar, but the body is not a tar archive{_OWN_TYPE}", file=name
            )
        return
    magic = DUMP_TYPES.get(mimetype, ())
    if magic and not data.startswith(magic):
        kind = {"application/x-xz": "xz stream", "application/x-bzip2": "bzip2 stream"}.get(
            mimetype, "gzip stream" if mimetype.endswith("gzip") else "zip archive"
        )
        # what the bytes are, when another archive type: a .tar.gz sent as application/zip (trial 56)
        if data.startswith(GZIP_MAGIC):
            fix = "; it is a gzip stream (a .tar.gz or .yaml.gz): send it as application/gzip"
        elif data.startswith(XZ_MAGIC):
            fix = "; it is an xz stream (a .tar.xz or .yaml.xz): send it as application/x-xz"
        elif data.startswith(b"BZh"):
            fix = "; it may be a bzip2 stream (a .tar.bz2 or .yaml.bz2): send it as application/x-bzip2"
        elif data.startswith(ZIP_MAGICS):
            fix = "; it is a zip archive: send it as application/zip"
        else:
            fix = _OWN_TYPE
        raise Problem("malformed-dump", f"Content-Type {mimetype}, but the body is not a {kind}{fix}", file=name)


#: A body past this many bytes (as it arrived, or decoded) is a large dump: one at a time per worker (``LargeSlot``).
LARGE_BODY = 1 << 20


def is_large(data: bytes) -> bool:
    """Whether judging ``data`` may take far more memory than its size: past ``LARGE_BODY``, or an archive (a
    gzip, xz, bzip2, zip or tar body unpacks to up to the decoded bound; trial 125: 291 KB of gzip held 357 MB)."""
    return len(data) > LARGE_BODY or bool(compression(data)) or data.startswith(ZIP_MAGICS) or is_tar(data)


class LargeSlot:
    """The one large dump a worker decodes, reads and judges at a time (trial 125: eight 291 KB gzip bodies at once,
    each refused with its 413, took two workers to 1.3 GB each: memory was bounded per request, not per worker).
    Its threads answer small bodies meanwhile; a large one waits for the slot up to ``wait`` seconds, then gets a
    503 ``busy`` with ``Retry-After``. Judging is CPU-bound and holds the GIL: judging two large dumps at once in one
    worker was no quicker than one after the other, only twice the memory."""

    _lock = threading.Lock()  # per process: the master imports it and never takes it, so each worker forks a free one

    def __init__(self, wait: float) -> None:
        self.wait = wait
        self.held = False
        #: seconds this request waited for the slot: they count in its budget (trial 126: 10.6 s at a 7 s budget)
        self.waited = 0.0

    def take(self) -> None:
        """Take the slot (once per request); ``Problem`` busy when it stays taken for ``wait`` seconds."""
        if self.held:
            return
        started = time.monotonic()
        got = self._lock.acquire(timeout=self.wait if self.wait > 0 else -1)
        self.waited = time.monotonic() - started
        if not got:
            raise Problem(
                "busy",
                f"this worker judged other large dumps for {self.wait:g} s while this one waited (one at a time, so"
                " that a worker's memory stays bounded); send it again",
                {"Retry-After": "30"},
            )
        self.held = True

    def left(self, budget: float | None) -> float | None:
        """What is left of ``budget`` (seconds; None or 0: none) after the wait for the slot (trial 126: a request
        waited, then had the whole budget to judge); ``Problem`` busy when that is too little to read a large dump,
        under a tenth of it or of a second (trial 128: it read 79 MB with 0.05 s left)."""
        if not budget:
            return budget
        if budget - self.waited < min(1.0, budget / 10):
            raise Problem(
                "busy",
                f"this worker judged other large dumps for {self.waited:.1f} s while this one waited, of the"
                f" {budget:g} s of VERDICT_EVAL_BUDGET; send it again",
                {"Retry-After": "30"},
            )
        return budget - self.waited

    def release(self) -> None:
        if self.held:
            self.held = False
            self._lock.release()
