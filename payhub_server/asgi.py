"""ASGI entry point for any server.

``granian --interface asgi --factory payhub_server.asgi:app_from_env`` or
``uvicorn --factory payhub_server.asgi:app_from_env``.

Configuration comes from the environment: ``PAYHUB_DATABASE_URL``, ``PAYHUB_SECRET_KEY`` or
``PAYHUB_KEY_FILE``, ``PAYHUB_LOG_FORMAT`` (``json`` or ``console``).
"""

from __future__ import annotations

import os

from litestar import Litestar

from payhub.hub import PayHub
from payhub.logging import configure_logging
from payhub_server.app import create_app
from payhub_server.ratelimit import Limiter
from payhub_server.requestlog import write_in_background


def app_from_env() -> Litestar:
    configure_logging(os.environ.get("PAYHUB_LOG_FORMAT", "json"))
    write_in_background()
    app = create_app(PayHub.open())
    app.state.limiter = Limiter.from_env()  # request budgets (docs/errors.md)
    return app
