"""Keys: the merchant's own API keys. Owners and admins see the list (never a secret); only
an owner issues a key (shown once, on the page that answers the form) or revokes one."""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, get, post
from litestar.params import FromPath

from payhub.domain.errors import ValidationError
from payhub.domain.portal import PortalUser
from payhub.services.operators import IssuedKey
from payhub_server.portal.page_tools import MANAGERS, OWNERS, field_errors
from payhub_server.portal.session import Form, Shop, portal_page, redirect


def _keys_page(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: Shop,
    *,
    issued: IssuedKey | None = None,
    errors: dict[str, str] | None = None,
    status: int = 200,
) -> Response[bytes]:
    return portal_page(
        request,
        "portal/keys.html",
        user,
        title="API keys",
        status=status,
        keys=shop.keys.list(),
        issued=issued,
        is_owner=user.role.value == "owner",
        errors=errors or {},
    )


@get("/portal/keys", guards=MANAGERS, sync_to_thread=True)
def keys(request: Request[Any, Any, Any], user: PortalUser, shop: Shop) -> Response[bytes]:
    return _keys_page(request, user, shop)


@post("/portal/keys", guards=OWNERS, sync_to_thread=True, status_code=200)
def issue(
    request: Request[Any, Any, Any], user: PortalUser, shop: Shop, form: Form
) -> Response[bytes]:
    try:
        made = shop.keys.issue(form.get("label", "")[:200])
    except ValidationError as e:
        return _keys_page(request, user, shop, errors=field_errors(e), status=400)
    return _keys_page(request, user, shop, issued=made)


@post("/portal/keys/{key_id:str}/revoke", guards=OWNERS, sync_to_thread=True, status_code=303)
def revoke(
    request: Request[Any, Any, Any], user: PortalUser, shop: Shop, key_id: FromPath[str]
) -> Response[bytes]:
    shop.keys.revoke(key_id)
    return redirect("/portal/keys")


KEY_HANDLERS = [keys, issue, revoke]
