"""gunicorn's default configuration file, here so that ``gunicorn app:app`` in a checkout, and
``gunicorn --config gunicorn.conf.py app:app`` in the Docker image, serve verdict as ``verdict serve`` does.

The settings are ``api/gunicorn_conf.py`` (a wheel installs that file with ``api``; this one stays in the
repository). It runs here under gunicorn's name for the configuration module, so it behaves as if gunicorn
had read it directly (and reads it again on SIGHUP, as gunicorn reads this file again).
"""

import runpy
from pathlib import Path

globals().update(runpy.run_path(str(Path(__file__).resolve().parent / "api" / "gunicorn_conf.py"), run_name=__name__))
