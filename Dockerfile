# verdict: the REST service (gunicorn serving app:app). Runtime dependencies only, non-root.
#   docker build -t verdict .
#   docker run --rm -p 8080:8080 verdict
#   docker run --rm -p 8080:8080 -e VERDICT_TOKENS=change-me -v "$PWD/my-pack:/policies/my-pack:ro" \
#     -e VERDICT_POLICIES=gpu-operator:/policies/my-pack verdict
# Settings are VERDICT_* variables (docs/service.md).
FROM python:3.12-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    VERDICT_BIND=0.0.0.0:8080 \
    VERDICT_PROBE_BIND=0.0.0.0:8081

WORKDIR /app

COPY pyproject.toml README.md ./
COPY app.py gunicorn.conf.py ./
COPY api/ api/
COPY rules/ rules/
COPY policies/ policies/

# The project's runtime dependencies (not the test extra); the build leftovers are removed in the same
# layer. The installed package carries the built-in packs (rules/policies), so the `verdict` command in the
# image finds them as gunicorn (run from /app) does. The user owns nothing it runs: the code and policies
# stay read-only to it.
RUN pip install --no-cache-dir . \
    && rm -rf build ./*.egg-info \
    && useradd --system --uid 10001 --no-create-home --shell /usr/sbin/nologin verdict

USER 10001

# 8080: the API; 8081: /healthz and /readyz answered by the gunicorn master (VERDICT_PROBE_BIND), which never wait
# behind the workers' evaluations: point Kubernetes' probes there.
EXPOSE 8080 8081

# slim has no curl: ask /healthz with the standard library, on the probe port (else the one VERDICT_BIND names).
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; port = (os.environ.get('VERDICT_PROBE_BIND') or os.environ.get('VERDICT_BIND', '0.0.0.0:8080')).rsplit(':', 1)[1]; urllib.request.urlopen(f'http://127.0.0.1:{port}/healthz', timeout=4)"]

CMD ["gunicorn", "--config", "gunicorn.conf.py", "app:app"]
