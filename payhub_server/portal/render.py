"""The portal's templates (``templates/portal/``), its stylesheet, and its error pages."""

from __future__ import annotations

from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import structlog
from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from litestar import Request, Response, get
from litestar.exceptions import HTTPException, NotFoundException
from litestar.params import FromPath

from payhub.domain.errors import NotFound, PayHubError, RateLimited, Unauthenticated
from payhub.domain.money import format_money
from payhub.domain.portal import PortalRole, PortalUser
from payhub_server.deps import PUBLIC

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
STATIC = Path(__file__).resolve().parent.parent / "static" / "portal"
log = structlog.get_logger("payhub.portal")

# The navigation: (label, path). Every merchant section, including those of other modules
# (schedules, catalog, register, integrations: payhub_server/portal/ pages of their own).
MERCHANT_NAV: tuple[tuple[str, str], ...] = (
    ("Customers", "/portal/customers"),
    ("Invoices", "/portal/invoices"),
    ("Payments", "/portal/payments"),
    ("Schedules", "/portal/schedules"),
    ("Catalog", "/portal/catalog"),
    ("Register", "/portal/register"),
    ("Integrations", "/portal/integrations"),
    ("Keys", "/portal/keys"),
    ("Settings", "/portal/settings"),
)
OPERATOR_NAV: tuple[tuple[str, str], ...] = (
    ("Providers", "/portal/operator/providers"),
    ("Short-link domains", "/portal/operator/short-links"),
    ("Blocklist", "/portal/operator/blocklist"),
    ("Jobs", "/portal/operator/jobs"),
    ("Senders", "/portal/operator/senders"),
)


def navigation(user: PortalUser | None) -> tuple[tuple[str, str], ...]:
    if user is None:
        return ()
    if user.operator:
        return OPERATOR_NAV
    if user.role is PortalRole.STAFF:  # keys are for owners and admins
        return tuple(item for item in MERCHANT_NAV if item[1] != "/portal/keys")
    return MERCHANT_NAV


@cache
def environment() -> Environment:
    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=select_autoescape(["html"]),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.globals["navigation"] = navigation
    env.filters["money"] = format_money
    env.filters["local"] = _local
    return env


def _local(moment: datetime | None, zone: str | None = None, fmt: str = "%Y-%m-%d %H:%M") -> str:
    """A stored UTC time on the merchant's clock (``zone``; UTC when unset)."""
    if moment is None:
        return ""
    try:
        tz = ZoneInfo(zone or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        tz = ZoneInfo("UTC")
    return moment.astimezone(tz).strftime(fmt)


def render(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context)


_ASSETS = {
    "portal.css": "text/css; charset=utf-8",
    "portal.js": "application/javascript",
    "shop.css": "text/css; charset=utf-8",  # the catalog, schedule and register pages
    "register.js": "application/javascript",  # the register's hosted fields (enhancement)
}


@cache
def _asset(name: str) -> bytes:
    return (STATIC / name).read_bytes()


@get(
    "/portal/static/{name:str}",
    opt={**PUBLIC, "portal": "public"},
    sync_to_thread=False,
    include_in_schema=False,
)
def portal_asset(name: FromPath[str]) -> Response[bytes]:
    """The portal's stylesheet and its one script (progressive enhancement only)."""
    media = _ASSETS.get(name)
    if media is None:
        raise NotFound(f"no asset '{name}'")
    return Response(_asset(name), media_type=media, headers={"Cache-Control": "max-age=300"})


def _error_page(
    request: Request[Any, Any, Any],
    status: int,
    title: str,
    text: str,
    headers: dict[str, str] | None = None,
) -> Response[bytes]:
    from payhub_server.portal.session import portal_page

    user = request.scope.get("state", {}).get("portal_user")
    response = portal_page(
        request, "portal/message.html", user, title=title, status=status, text=text
    )
    for name, value in (headers or {}).items():
        response.headers[name] = value
    return response


def portal_error(request: Request[Any, Any, Any], exc: Exception) -> Response[bytes]:
    """Errors as pages: not signed in sends you to sign in; the rest explain themselves."""
    from payhub_server.portal.session import redirect, sign_in_url

    if isinstance(exc, Unauthenticated):
        # The cookie stays: a session waiting for its code must still reach the code page.
        target = sign_in_url(request.url.path) if request.method == "GET" else "/portal/sign-in"
        return redirect(target)
    if isinstance(exc, RateLimited):
        return _error_page(
            request, 429, "Too many attempts", exc.detail, {"Retry-After": str(exc.retry_after)}
        )
    if isinstance(exc, PayHubError):
        return _error_page(request, exc.status, exc.title, exc.detail)
    if isinstance(exc, NotFoundException):
        return _error_page(request, 404, "Not found", "There is no portal page here.")
    if isinstance(exc, HTTPException):
        return _error_page(request, exc.status_code, "Request refused", str(exc.detail))
    log.exception("portal error", path=request.url.path)
    return _error_page(
        request, 500, "Something went wrong", "The portal could not answer. Try again in a moment."
    )
