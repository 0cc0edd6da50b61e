"""The public short address: ``GET https://<short-link domain>/<code>``.

An ASGI layer in front of the app answers a ``GET`` or ``HEAD`` whose path is one code and
whose ``Host`` is a configured short-link domain; every other request passes through
untouched, so no route of the app is shadowed (and the API host never answers codes).
The environment comes from the host: a sandbox link resolves only on the sandbox domain
and a production link only on the production one; anything else is 404.

The answer is a plain ``302`` with ``Location`` and ``Cache-Control: no-store`` (so a
revocation takes effect at once and every open reaches the counter), no cookie and no body.
Revoked and expired links get a tiny ``410`` page, unknown codes a tiny ``404`` page. A
link in the in-process cache is answered on the event loop (no thread hop, no database: the
open is counted in memory and written in batches, see ``Redirects``); a cache miss reads
the link in a worker thread, like any route. The crawler check is remembered per
User-Agent (bounded), since browsers repeat theirs.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import anyio.to_thread
import structlog
from litestar.types import ASGIApp, Receive, Scope, Send

from payhub.domain.environments import Environment
from payhub.domain.links import looks_like_code
from payhub.domain.visitors import counts_as_open
from payhub.hub import PayHub
from payhub.services.links import Redirect

log = structlog.get_logger("payhub.redirects")

_PURPOSE_HEADERS = (b"sec-purpose", b"purpose", b"x-purpose", b"x-moz")
_NO_STORE = (b"cache-control", b"no-store")


def _page(title: str, text: str) -> bytes:
    return (
        f'<!doctype html><html lang="en"><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{title}</title><p>{text}</p></html>\n"
    ).encode()


GONE_PAGE = _page("Link no longer available", "This link is no longer available.")
MISSING_PAGE = _page("Link not found", "There is no link at this address.")
UNAVAILABLE_PAGE = _page("Try again shortly", "This link cannot be opened right now.")


def _headers(scope: Scope) -> dict[bytes, str]:
    found: dict[bytes, str] = {}
    for name, value in scope.get("headers", []):
        if name in found:
            found[name] += ", " + value.decode("latin-1")
        else:
            found[name] = value.decode("latin-1")
    return found


_counts_as_open = lru_cache(maxsize=4096)(counts_as_open)


def counted(method: str, headers: dict[bytes, str]) -> bool:
    """Whether this visit is a person's open (see payhub/domain/visitors.py)."""
    purpose = ", ".join(headers[h] for h in _PURPOSE_HEADERS if h in headers) or None
    return _counts_as_open(method, headers.get(b"user-agent"), purpose)


def answer(
    hub: PayHub, environment: Environment, code: str, method: str, headers: dict[bytes, str]
) -> Redirect:
    """The redirect service's answer, counting the open only for a person's browser."""
    return hub.redirects.follow(environment, code, counted(method, headers))


class ShortLinkHost:
    def __init__(self, app: ASGIApp, hub: Callable[[], PayHub]) -> None:
        self.app = app
        self._hub = hub

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        code = scope["path"][1:]
        if not looks_like_code(code):
            await self.app(scope, receive, send)
            return
        hub = self._hub()
        hosts = hub.redirects.hosts
        if hosts.stale:
            await anyio.to_thread.run_sync(hosts.refresh)
        headers = _headers(scope)
        environment = hosts.lookup(headers.get(b"host", ""))
        if environment is None:
            await self.app(scope, receive, send)
            return
        method = scope["method"]
        try:
            outcome = hub.redirects.follow_cached(environment, code, counted(method, headers))
            if outcome is None:
                outcome = await anyio.to_thread.run_sync(
                    answer, hub, environment, code, method, headers
                )
        except Exception:
            log.exception("short link lookup failed", code=code)
            await _send(send, 503, method, UNAVAILABLE_PAGE)
            return
        if outcome.outcome == "redirect" and outcome.location is not None:
            await _send(send, 302, method, b"", location=outcome.location)
        elif outcome.outcome == "gone":
            await _send(send, 410, method, GONE_PAGE)
        else:
            await _send(send, 404, method, MISSING_PAGE)


async def _send(
    send: Send, status: int, method: str, body: bytes, location: str | None = None
) -> None:
    headers = [_NO_STORE, (b"content-length", str(len(body)).encode())]
    if location is not None:
        headers.append((b"location", location.encode("ascii")))
    if body:
        headers += [
            (b"content-type", b"text/html; charset=utf-8"),
            (b"x-content-type-options", b"nosniff"),
        ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if method == "HEAD" else body})
