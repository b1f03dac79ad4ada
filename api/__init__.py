"""verdict's HTTP layer: routes, marshmallow schemas, problem documents, auth and metrics.

``create_app(config)`` (``api.factory``) builds the Flask app; ``app.py`` at the repository root is the
WSGI entry point gunicorn serves (``gunicorn app:app``).
"""

from .factory import create_app

__all__ = ["create_app"]
