"""Property-based contract test: schemathesis drives the app in-process (WSGI) from the committed
openapi.yaml and checks that no answer is a 5xx and that every status, content type and body is one
the document promises. Bounded (few examples per operation, derandomized) to stay fast and repeatable.

Archive media types get serializers that wrap the generated text in a real gzip stream, tar or zip, so
the reader's archive paths see fuzzed members, not only bytes that fail the magic check."""

from __future__ import annotations

import gzip
import io
import tarfile
import zipfile
from pathlib import Path
from typing import Any

import pytest

schemathesis = pytest.importorskip("schemathesis", reason="schemathesis is in the test extra: pip install -e '.[test]'")
from hypothesis import HealthCheck, settings  # noqa: E402
from schemathesis import checks  # noqa: E402

from api import create_app  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
PACK = ROOT / "tests" / "data" / "api" / "gpu-lab"


def _bytes(value: Any) -> bytes:
    if isinstance(value, bytes):
        return value
    return str(value).encode("utf-8", "surrogatepass")


@schemathesis.serializer("application/gzip", "application/x-gzip")
def _gzip(ctx: Any, value: Any) -> bytes:
    return gzip.compress(_bytes(value), mtime=0)


@schemathesis.serializer("application/x-tar")
def _tar(ctx: Any, value: Any) -> bytes:
    data = _bytes(value)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        info = tarfile.TarInfo("dump/nodes.yaml")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


@schemathesis.serializer("application/zip")
def _zip(ctx: Any, value: Any) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("dump/nodes.json", _bytes(value))
    return buf.getvalue()


# The built-in pack (the document's examples name its policies and rules) and the API test pack.
app = create_app({"POLICIES": ["gpu-operator", str(PACK)], "MAX_CONTENT_LENGTH": 256 * 1024})
schema = schemathesis.openapi.from_path(ROOT / "openapi.yaml")
schema.config.update(base_url="http://verdict.test")

CHECKS = [
    checks.not_a_server_error,
    checks.status_code_conformance,
    checks.content_type_conformance,
    checks.response_schema_conformance,
]


@schema.parametrize()
@settings(max_examples=15, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
def test_api_keeps_its_contract(case: Any) -> None:
    case.call_and_validate(app=app, checks=CHECKS)
