"""One log line per request, with a request id, around the whole ASGI app.

It wraps the app from outside so 404s, 405s and crashes are logged too. The path is
logged without its query string (queries may carry tokens); headers are never logged.
The public pages' paths carry their link token, which is the only key to an invoice or a
schedule request, so only a short prefix of it is logged (enough to match a support
question to a log line, far too little to open the page).
"""

from __future__ import annotations

import re
import secrets
import time
from typing import Any

import structlog
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from payhub.domain.cardnumbers import contains_card_number

log = structlog.get_logger("payhub.http")

# /pay/{token}..., /embed/{token}..., /approve/{token}: the token is a bearer secret.
_TOKEN_PATH = re.compile(r"^/(pay|embed|approve)/([^/]+)")
_KEPT = 6


class RequestLog:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = _incoming_id(scope) or f"req_{secrets.token_hex(8)}"
        scope.setdefault("state", {})["request_id"] = request_id  # type: ignore[typeddict-unknown-key]
        status = 500
        started = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = list(message.get("headers", []))
                headers.append((b"x-request-id", request_id.encode()))
                message = {**message, "headers": headers}  # type: ignore[typeddict-item]
            await send(message)

        structlog.contextvars.bind_contextvars(request_id=request_id)
        try:
            await self.app(scope, receive, send_with_id)
        finally:
            log.info(
                "request",
                method=scope["method"],
                path=loggable_path(scope["path"]),
                status=status,
                duration_ms=round((time.perf_counter() - started) * 1000, 2),
            )
            structlog.contextvars.unbind_contextvars("request_id")


def loggable_path(path: str) -> str:
    """The path with a public page's link token cut to a short prefix."""
    return _TOKEN_PATH.sub(lambda m: f"/{m.group(1)}/{m.group(2)[:_KEPT]}...", path, count=1)


def _incoming_id(scope: Scope) -> str | None:
    for name, value in scope.get("headers", []):
        if name == b"x-request-id":
            text = value.decode("latin-1")[:64]
            # A card number is never adopted (the card guard refuses the request).
            if text.replace("-", "").replace("_", "").isalnum() and not contains_card_number(text):
                return text
    return None


def wrap(app: Any) -> Any:
    return RequestLog(app)
