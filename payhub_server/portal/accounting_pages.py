"""The portal's QuickBooks Online page: status and last sync, connect (Intuit's own
sign-in), the callback, sync now, sync customers, disconnect.

Connecting happens only here (spec, "What the service does" 7). "Connect" is a link, not a
form: the portal's CSP (``form-action 'self'``) forbids a form's redirect to another site,
and the link only starts the flow (a fresh single-use state, its digest stored); the
callback is what connects, and only with that state, for the signed-in user's own merchant.
Owners and admins may connect, sync and disconnect; staff see the status.
"""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Request, Response, get, post
from litestar.params import Parameter

from payhub.domain.errors import Conflict
from payhub_server.portal.session import (
    PortalUser,
    Shop,
    hub_of,
    portal_page,
    redirect,
    require_role,
)

PAGE = "/portal/integrations/accounting-online"
MANAGERS = ("owner", "admin")
_DONE = {
    "connected": "QuickBooks Online is connected.",
    "sync-now": "A sync has started; refresh this page to follow it.",
    "sync-customers": "A customer sync has started; refresh this page to follow it.",
    "import-products": "The product import has started; refresh this page to follow it.",
    "disconnected": "QuickBooks Online is disconnected; nothing syncs until you connect again.",
}
Query = Annotated[str | None, Parameter(required=False)]


def _page(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: Shop,
    *,
    notice: str | None = None,
    problem: str | None = None,
    status: int = 200,
) -> Response[bytes]:
    return portal_page(
        request,
        "portal/accounting_online.html",
        user,
        title="QuickBooks Online",
        status=status,
        view=shop.accounting_online.status(),
        configured=hub_of(request).accounting is not None,
        may_change=user.role.value in MANAGERS,
        notice=notice,
        problem=problem,
    )


@get(PAGE, guards=[require_role("owner", "admin", "staff")], sync_to_thread=True)
def accounting_online_page(
    request: Request[Any, Any, Any], user: PortalUser, shop: Shop, done: Query = None
) -> Response[bytes]:
    return _page(request, user, shop, notice=_DONE.get(done or ""))


@get(f"{PAGE}/connect", guards=[require_role(*MANAGERS)], sync_to_thread=True)
def accounting_online_connect(request: Request[Any, Any, Any], shop: Shop) -> Response[bytes]:
    """To Intuit's sign-in page, with a fresh state (back to the page, which says so, when
    QuickBooks Online is not set up on this server)."""
    if hub_of(request).accounting is None:
        return redirect(PAGE)
    url = shop.accounting_online.begin_connect()
    return Response(b"", status_code=303, headers={"Location": url})


@get(f"{PAGE}/callback", guards=[require_role(*MANAGERS)], sync_to_thread=True)
def accounting_online_callback(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: Shop,
    oauth_state: Annotated[str | None, Parameter(query="state", required=False)] = None,
    code: Query = None,
    realm_id: Annotated[str | None, Parameter(query="realmId", required=False)] = None,
    error: Query = None,
) -> Response[bytes]:
    """Where Intuit sends the merchant back (the app's redirect URI)."""
    if hub_of(request).accounting is None:
        return redirect(PAGE)
    try:
        shop.accounting_online.finish_connect(oauth_state or "", code, realm_id, error)
    except Conflict as e:
        return _page(request, user, shop, problem=e.detail, status=409)
    return redirect(f"{PAGE}?done=connected")


@post(f"{PAGE}/sync-now", guards=[require_role(*MANAGERS)], sync_to_thread=True, status_code=303)
def accounting_online_sync_now(shop: Shop) -> Response[bytes]:
    shop.accounting_online.sync_now()
    return redirect(f"{PAGE}?done=sync-now")


@post(
    f"{PAGE}/sync-customers", guards=[require_role(*MANAGERS)], sync_to_thread=True, status_code=303
)
def accounting_online_sync_customers(shop: Shop) -> Response[bytes]:
    shop.accounting_online.sync_customers()
    return redirect(f"{PAGE}?done=sync-customers")


@post(
    f"{PAGE}/import-products",
    guards=[require_role(*MANAGERS)],
    sync_to_thread=True,
    status_code=303,
)
def accounting_online_import_products(shop: Shop) -> Response[bytes]:
    shop.accounting_online.import_products()
    return redirect(f"{PAGE}?done=import-products")


@post(f"{PAGE}/disconnect", guards=[require_role(*MANAGERS)], sync_to_thread=True, status_code=303)
def accounting_online_disconnect(shop: Shop) -> Response[bytes]:
    shop.accounting_online.disconnect()
    return redirect(f"{PAGE}?done=disconnected")


ACCOUNTING_HANDLERS: list[Any] = [
    accounting_online_page,
    accounting_online_connect,
    accounting_online_callback,
    accounting_online_sync_now,
    accounting_online_sync_customers,
    accounting_online_import_products,
    accounting_online_disconnect,
]
