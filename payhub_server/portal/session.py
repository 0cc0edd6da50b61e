"""What every portal page stands on: the session cookie, the signed-in user, roles, forms.

For a page of your own (see docs/portal.md)::

    from payhub_server.portal.session import (
        PORTAL_DEPENDENCIES, Form, PortalUser, portal_page, redirect, require_role,
    )

    @get("/portal/customers", guards=[require_role("owner", "admin", "staff")])
    def customers(request: Request, user: PortalUser, shop: Shop) -> Response[bytes]:
        return portal_page(request, "portal/customers.html", user, title="Customers", ...)

    @post("/portal/customers/{id:str}/consent")
    def consent(request: Request, user: PortalUser, shop: Shop, form: Form) -> Response[bytes]:
        ...                     # the form's CSRF token was checked before this runs
        return redirect("/portal/customers/...")

- Every portal route is signed-in only unless its ``opt`` says ``portal="public"`` (sign-in,
  invites, sign-in links) or ``portal="pending"`` (the two-factor code page).
- ``user: PortalUser`` is the signed-in user; ``shop: Shop`` the merchant's services, acting
  for its own merchant only (a merchant-bound caller: any other merchant is refused). An
  operator has no shop (403).
- Every POST, PUT, PATCH and DELETE must carry ``csrf_token`` (every page's context has it;
  templates write ``{{ csrf_field() }}``): a synchroniser token derived from the session id,
  so it changes with each sign-in and dies with the session. A cross-site ``Origin`` or
  ``Sec-Fetch-Site`` is refused as well.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote, urlsplit

import anyio.to_thread
from litestar import Request, Response
from litestar.connection import ASGIConnection
from litestar.datastructures import Cookie
from litestar.di import NamedDependency, Provide
from litestar.handlers.base import BaseRouteHandler
from litestar.types import ASGIApp, Message, Receive, Scope, Send
from markupsafe import Markup

from payhub.domain.environments import Environment
from payhub.domain.errors import Forbidden, PayHubError, Unauthenticated
from payhub.domain.portal import (
    SESSION_ABSOLUTE,
    PortalRole,
    PortalUser,
    csrf_ok,
    csrf_token,
    token_text,
)
from payhub.hub import MerchantScope, PayHub
from payhub.services.auth import PORTAL_CALLER, Caller

__all__ = [
    "PORTAL_DEPENDENCIES",
    "Form",
    "PortalUser",
    "Shop",
    "portal_page",
    "redirect",
    "require_role",
]

PLAIN_COOKIE = "payhub_portal"
SECURE_COOKIE = "__Host-payhub_portal"  # https: Secure, Path=/, no Domain (RFC 6265bis)
PRE_COOKIE = "payhub_portal_pre"  # binds the sign-in forms' token before any session
PRE_SECURE_COOKIE = "__Host-payhub_portal_pre"
CSRF_FIELD = "csrf_token"
_UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})

# --- where we are -----------------------------------------------------------------------------


def hub_of(connection: ASGIConnection[Any, Any, Any, Any]) -> PayHub:
    hub: PayHub = connection.app.state.hub
    return hub


def is_https(connection: ASGIConnection[Any, Any, Any, Any]) -> bool:
    """Served over https: the request itself, or the public URL the server is reached at."""
    if connection.url.scheme == "https":
        return True
    return hub_of(connection).deps.public_url.startswith("https://")


def portal_environment(env: Mapping[str, str] | None = None) -> Environment | None:
    """``PAYHUB_PORTAL_ENVIRONMENT``: a server that serves one environment's portal only."""
    value = (os.environ if env is None else env).get("PAYHUB_PORTAL_ENVIRONMENT", "").strip()
    return Environment.parse(value, "PAYHUB_PORTAL_ENVIRONMENT") if value else None


def session_cookie_name(connection: ASGIConnection[Any, Any, Any, Any]) -> str:
    return SECURE_COOKIE if is_https(connection) else PLAIN_COOKIE


def pre_cookie_name(connection: ASGIConnection[Any, Any, Any, Any]) -> str:
    return PRE_SECURE_COOKIE if is_https(connection) else PRE_COOKIE


def session_token(connection: ASGIConnection[Any, Any, Any, Any]) -> str | None:
    return connection.cookies.get(session_cookie_name(connection))


def session_cookie(request: Request[Any, Any, Any], token: str) -> Cookie:
    return Cookie(
        key=session_cookie_name(request),
        value=token,
        path="/",
        max_age=int(SESSION_ABSOLUTE.total_seconds()),
        secure=is_https(request),
        httponly=True,
        samesite="lax",
    )


def clear_session_cookie(request: Request[Any, Any, Any]) -> Cookie:
    return Cookie(
        key=session_cookie_name(request),
        value="",
        path="/",
        max_age=0,
        secure=is_https(request),
        httponly=True,
        samesite="lax",
    )


# --- the guards every portal route passes ---------------------------------------------------


def _kind(handler: BaseRouteHandler) -> str:
    return str(handler.opt.get("portal", "signed-in"))


async def portal_guard(
    connection: ASGIConnection[Any, Any, Any, Any], handler: BaseRouteHandler
) -> None:
    """Resolve the session (unless the route is public) and check the form's CSRF token."""
    hub = hub_of(connection)
    kind = _kind(handler)
    state = connection.scope.setdefault("state", {})
    token = session_token(connection)
    if kind == "signed-in":
        current = await anyio.to_thread.run_sync(hub.portal.session, token)
        wanted = portal_environment()
        if wanted is not None and current.user.environment is not wanted:
            raise Unauthenticated("this portal serves another environment")
        state["portal_user"] = current.user
        state["portal_binding"] = token
    elif kind == "pending":
        current = await anyio.to_thread.run_sync(hub.portal.pending, token)
        state["portal_user"] = current.user
        state["portal_binding"] = token
    else:
        pre = connection.cookies.get(pre_cookie_name(connection))
        state["portal_binding"] = f"pre:{pre}" if pre else None
    if connection.scope.get("method") in _UNSAFE:
        await _check_form(connection, hub)


async def _check_form(connection: ASGIConnection[Any, Any, Any, Any], hub: PayHub) -> None:
    site = connection.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        raise CsrfRefused()
    origin = connection.headers.get("origin")
    if origin == "null":
        # Chromium sends ``Origin: null`` for a form posted from a no-referrer page; then
        # only a browser's own ``Sec-Fetch-Site: same-origin`` vouches for it.
        if site != "same-origin":
            raise CsrfRefused()
    elif origin is not None:
        own = {f"{connection.url.scheme}://{connection.headers.get('host', '')}"}
        public = urlsplit(hub.deps.public_url)
        own.add(f"{public.scheme}://{public.netloc}")
        if origin not in own:
            raise CsrfRefused()
    binding = connection.scope.get("state", {}).get("portal_binding")
    request = connection if isinstance(connection, Request) else None
    if request is None or binding is None:
        raise CsrfRefused()
    form = await request.form()
    presented = form.get(CSRF_FIELD)
    if not isinstance(presented, str) or not csrf_ok(
        hub.deps.secrets.digest_key, binding, presented
    ):
        raise CsrfRefused()


class CsrfRefused(PayHubError):
    status = 403
    code = "forbidden"
    title = "This form has expired"

    def __init__(self) -> None:
        super().__init__(
            "the form was not sent from this portal page, or it is too old: reload the page"
            " and send it again"
        )


def require_role(*roles: PortalRole | str) -> Callable[..., None]:
    """A guard: only these roles (``"owner"``, ``"admin"``, ``"staff"``, ``"operator"``)."""
    wanted = frozenset(PortalRole.parse(r) if isinstance(r, str) else r for r in roles)

    def guard(connection: ASGIConnection[Any, Any, Any, Any], _: BaseRouteHandler) -> None:
        user: PortalUser | None = connection.scope.get("state", {}).get("portal_user")
        if user is None:
            raise Unauthenticated("sign in to the portal")
        if user.role not in wanted:
            raise Forbidden("your role does not open this page")

    return guard


# --- dependencies -------------------------------------------------------------------------------


def provide_portal_user(request: Request[Any, Any, Any]) -> PortalUser:
    user: PortalUser | None = request.scope.get("state", {}).get("portal_user")
    if user is None:
        raise Unauthenticated("sign in to the portal")
    return user


def provide_shop(request: Request[Any, Any, Any]) -> MerchantScope:
    """The signed-in merchant user's own merchant, through a caller bound to it."""
    user = provide_portal_user(request)
    if user.merchant_id is None or user.provider_id is None or user.merchant_reference is None:
        raise Forbidden("this page is for a merchant's users")
    hub = hub_of(request)
    caller = Caller(
        user.provider_id, user.environment, f"{PORTAL_CALLER}{user.user_id}", user.merchant_id
    )
    return hub.provider(caller).merchant(user.merchant_reference)


async def provide_form(request: Request[Any, Any, Any]) -> dict[str, str]:
    """The posted form (its CSRF token already checked by the guard), first value per name."""
    form = await request.form()
    return {k: v for k, v in form.items() if isinstance(v, str) and k != CSRF_FIELD}


Shop = NamedDependency[MerchantScope]
Form = NamedDependency[dict[str, str]]

PORTAL_DEPENDENCIES = {
    "user": Provide(provide_portal_user, sync_to_thread=False),
    "shop": Provide(provide_shop, sync_to_thread=False),
    "form": Provide(provide_form),
}


# --- forms and pages ------------------------------------------------------------------------


def form_token(request: Request[Any, Any, Any]) -> str:
    """The CSRF token for forms on this page (empty when there is nothing to bind it to)."""
    binding = request.scope.get("state", {}).get("portal_binding")
    if not binding:
        return ""
    return csrf_token(hub_of(request).deps.secrets.digest_key, binding)


def ensure_pre_binding(request: Request[Any, Any, Any]) -> Cookie | None:
    """A public form page: bind its token to a fresh pre-session cookie if there is none."""
    state = request.scope.setdefault("state", {})
    if state.get("portal_binding"):
        return None
    value = token_text(hub_of(request).deps.randomness.token_bytes(24))
    state["portal_binding"] = f"pre:{value}"
    return Cookie(
        key=pre_cookie_name(request),
        value=value,
        path="/",
        max_age=3600,
        secure=is_https(request),
        httponly=True,
        samesite="strict",
    )


def portal_page(
    request: Request[Any, Any, Any],
    template: str,
    user: PortalUser | None,
    *,
    title: str,
    status: int = 200,
    section: str | None = None,
    cookies: list[Cookie] | None = None,
    environment: Environment | None = None,
    **context: Any,
) -> Response[bytes]:
    """Render a page of the portal layout (navigation, environment banner, CSRF token).
    ``environment``: the banner's, when there is no signed-in user to take it from."""
    from payhub_server.portal.render import render

    token = form_token(request)
    field = Markup('<input type="hidden" name="{}" value="{}">').format(CSRF_FIELD, token)
    body = render(
        template,
        user=user,
        title=title,
        section=section,
        csrf_token=token,
        csrf_field=lambda: field,
        environment=(user.environment if user else environment or portal_environment()),
        path=request.url.path,
        **context,
    )
    return Response(
        body.encode("utf-8"), status_code=status, media_type="text/html", cookies=cookies or []
    )


def redirect(location: str, cookies: list[Cookie] | None = None) -> Response[bytes]:
    """303 See Other to a path of this portal (after a form, Post/Redirect/Get)."""
    return Response(b"", status_code=303, headers={"Location": location}, cookies=cookies or [])


def safe_next(value: str | None) -> str:
    """Where to go after signing in: a path of this portal only, never another site."""
    default = "/portal"
    if not value or len(value) > 500:
        return default
    if any(c in value for c in "\\\r\n\t") or any(ord(c) < 32 for c in value):
        return default
    parts = urlsplit(value)
    if parts.scheme or parts.netloc or value.startswith("//"):
        return default
    if any(segment in (".", "..") for segment in parts.path.split("/")) or "%" in parts.path:
        return default
    if parts.path != "/portal" and not parts.path.startswith("/portal/"):
        return default
    if parts.path.startswith("/portal/sign-"):
        return default
    return value


def sign_in_url(path: str) -> str:
    return (
        "/portal/sign-in"
        if path in ("/portal", "/portal/")
        else (f"/portal/sign-in?next={quote(path, safe='/')}")
    )


# --- headers on every portal answer ---------------------------------------------------------

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
    " font-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none';"
    " frame-ancestors 'none'"
)


def portal_headers(https: bool, csp: str = CSP) -> dict[str, str]:
    headers = {
        "Content-Security-Policy": csp,
        "X-Frame-Options": "DENY",
        "Referrer-Policy": "no-referrer",
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
        "X-Robots-Tag": "noindex, nofollow",
        "Cross-Origin-Opener-Policy": "same-origin",
        "Permissions-Policy": "camera=(), microphone=(), geolocation=(), payment=()",
    }
    if https:
        headers["Strict-Transport-Security"] = "max-age=63072000; includeSubDomains"
    return headers


def security_headers_middleware(app: ASGIApp) -> ASGIApp:
    """Adds the portal's headers to every answer under /portal, errors and redirects too."""

    async def middleware(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        hub: PayHub = scope["app"].state.hub
        https = scope.get("scheme") == "https" or hub.deps.public_url.startswith("https://")

        async def wrapped(message: Message) -> None:
            if message["type"] == "http.response.start":
                # A page that collects a card (the register) widens its own CSP by the
                # gateway's vendor hosts only (``scope["state"]["portal_csp"]``).
                csp = scope.get("state", {}).get("portal_csp") or CSP
                extra = [
                    (k.lower().encode(), v.encode()) for k, v in portal_headers(https, csp).items()
                ]
                names = {k for k, _ in extra}
                kept = [(k, v) for k, v in message.get("headers", []) if k.lower() not in names]
                message["headers"] = kept + extra
            await send(message)

        await app(scope, receive, wrapped)

    return middleware
