"""The WSGI entry point: ``gunicorn --config gunicorn.conf.py app:app``.

``create_app`` is ``api.factory.create_app``; ``app`` is built from the ``VERDICT_*`` environment
(``api.config``) when this module is imported, so a broken policy or setting fails the import and
gunicorn exits with the error.
"""

from __future__ import annotations

from api.factory import create_app

__all__ = ["app", "create_app"]

app = create_app()
