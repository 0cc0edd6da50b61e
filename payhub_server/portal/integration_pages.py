"""The merchant's integrations: ``/portal/integrations`` (all of them, with their status) and
``/portal/integrations/{key}`` (one: status, last sync, what connecting will do).

Connecting happens only here (spec: the other system's own sign-in screen). The flows arrive
with each integration's issue, on these routes (docs/portal.md, "Integrations"):
``POST …/{key}/connect`` (to the other system's sign-in, or the store form),
``GET …/{key}/callback``, ``POST …/{key}/sync-now`` and ``POST …/{key}/disconnect``.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, get
from litestar.params import FromPath

from payhub.domain.portal import PortalUser
from payhub_server.pages.formats import local_time
from payhub_server.portal.session import Shop, portal_page


@get("/portal/integrations", sync_to_thread=True)
def integrations(request: Request[Any, Any, Any], user: PortalUser, shop: Shop) -> Response[bytes]:
    return portal_page(
        request,
        "portal/integrations/list.html",
        user,
        title="Integrations",
        statuses=shop.integrations.list(),
    )


@get("/portal/integrations/{key:str}", sync_to_thread=True)
def integration(
    request: Request[Any, Any, Any], user: PortalUser, shop: Shop, key: FromPath[str]
) -> Response[bytes]:
    status = shop.integrations.get(key)
    return portal_page(
        request,
        "portal/integrations/integration.html",
        user,
        title=f"Integration: {status.integration.title}",
        status_of=status,
        when=local_time,
    )


INTEGRATION_HANDLERS = [integrations, integration]
