"""One log line per request, with a request id, around the whole ASGI app.

It wraps the app from outside so 404s, 405s and crashes are logged too. The path is
logged without its query string (queries may carry tokens); headers are never logged.
The public pages' paths carry their link token, which is the only key to an invoice or a
schedule request, so only a short prefix of it is logged (enough to match a support
question to a log line, far too little to open the page).

A served app (``payhub_server.asgi``) writes the lines from a background thread: the
request hands its few fields to a queue and the thread runs structlog's processors (redaction
included) and the write, so the event loop never waits on them. The queue is drained when the
app shuts down (the ASGI lifespan's shutdown) and at interpreter exit. An app built in
process (tests, embedding) writes each line before the response completes.
"""

from __future__ import annotations

import atexit
import itertools
import re
import secrets
import sys
import threading
import time
from collections import deque
from typing import Any

import structlog
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from payhub.domain.cardnumbers import contains_card_number

log = structlog.get_logger("payhub.http")

# /pay/{token}..., /embed/{token}..., /approve/{token}: the token is a bearer secret.
_TOKEN_PATH = re.compile(r"^/(pay|embed|approve)/([^/]+)")
_KEPT = 6


class _Background:
    """Log lines written by one daemon thread, in the order they were handed over.

    Requests append to a deque (no lock, no wake-up: waking a thread per line costs the
    loop a GIL hand-over); the thread writes whatever has gathered every ``PERIOD_S``."""

    PERIOD_S = 0.05

    def __init__(self) -> None:
        self._lines: deque[dict[str, Any]] = deque()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._drained = threading.Condition()
        self.enabled = False

    def submit(self, fields: dict[str, Any]) -> None:
        if self._thread is None:
            with self._lock:
                if self._thread is None:
                    self._thread = threading.Thread(
                        target=self._run, name="payhub-request-log", daemon=True
                    )
                    self._thread.start()
        self._lines.append(fields)

    def _run(self) -> None:
        while True:
            time.sleep(self.PERIOD_S)
            self._drain()

    def _drain(self) -> None:
        with self._drained:
            while self._lines:
                item = self._lines.popleft()
                try:
                    log.info("request", **item)
                except Exception as e:  # a broken log stream must not stop the writer
                    sys.stderr.write(f"payhub request log: {type(e).__name__}\n")

    def flush(self) -> None:
        """Write every line handed over so far (the caller's thread helps drain)."""
        self._drain()


_background = _Background()


def write_in_background() -> None:
    """Write request lines from a background thread from now on (the served app)."""
    _background.enabled = True


def flush() -> None:
    """Wait until every request line handed over so far is written."""
    _background.flush()


atexit.register(flush)


def _write(fields: dict[str, Any]) -> None:
    if _background.enabled:
        _background.submit(fields)
    else:
        log.info("request", **fields)


class RequestLog:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if str(scope["type"]) == "lifespan":  # Litestar's Scope type omits lifespan
            await self.app(scope, receive, _flushing_on_shutdown(send))
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = _incoming_id(scope) or _new_request_id()
        scope.setdefault("state", {})["request_id"] = request_id  # type: ignore[typeddict-unknown-key]
        status = 500
        started = time.perf_counter()

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = list(message.get("headers", []))
                headers.append((b"x-request-id", request_id.encode()))
                # Fields set for the answer whatever it is (RateLimit, payhub_server/ratelimit.py)
                headers += scope["state"].get("response_headers", ())
                message = {**message, "headers": headers}  # type: ignore[typeddict-item]
            await send(message)

        structlog.contextvars.bind_contextvars(request_id=request_id)
        try:
            await self.app(scope, receive, send_with_id)
        finally:
            _write(
                {
                    "request_id": request_id,
                    "method": scope["method"],
                    "path": loggable_path(scope["path"]),
                    "status": status,
                    "duration_ms": round((time.perf_counter() - started) * 1000, 2),
                }
            )
            structlog.contextvars.unbind_contextvars("request_id")


def _flushing_on_shutdown(send: Send) -> Send:
    async def forward(message: Message) -> None:
        if str(message["type"]) == "lifespan.shutdown.complete":
            flush()
        await send(message)

    return forward


# Request ids need to be unique, not secret: a random per-process prefix and a counter
# (os.urandom per request is a system call).
_ID_PREFIX = secrets.token_hex(4)
_ID_COUNTER = itertools.count()


def _new_request_id() -> str:
    return f"req_{_ID_PREFIX}{next(_ID_COUNTER) & 0xFFFFFFFF:08x}"


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
