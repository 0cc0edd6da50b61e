"""Dependencies every route may ask for: the hub and the caller's scope."""

from __future__ import annotations

from functools import partial
from typing import Any

import anyio.to_thread
from litestar import Request, delete, get, patch, post, put
from litestar.datastructures import State
from litestar.di import NamedDependency, Provide

from payhub.domain.errors import Unauthenticated
from payhub.hub import PayHub, ProviderScope
from payhub_server import ratelimit

# Audiences, recorded on each route for the three reference views.
PUBLIC = {"audience": "public"}
PROVIDER_ONLY = {"audience": "provider"}
MERCHANT_KEY_OK = {"audience": "merchant"}

# payhub's services are synchronous (database drivers are); Litestar runs them in a
# worker thread so the event loop stays free. That is the request's one thread hop: the
# tenant dependency runs on the loop (a cached key needs no I/O), and a route that reads no
# database (the gateway list, health) declares ``sync_to_thread=False`` and makes none.
api_get = partial(get, sync_to_thread=True)
api_post = partial(post, sync_to_thread=True)
api_put = partial(put, sync_to_thread=True)
api_patch = partial(patch, sync_to_thread=True)
api_delete = partial(delete, sync_to_thread=True)


def provide_hub(state: State) -> PayHub:
    hub: PayHub = state.hub
    return hub


async def provide_tenant(request: Request[Any, Any, Any]) -> ProviderScope:
    """Authenticate ``X-Api-Key`` (401 otherwise) and scope everything to that caller.

    A key verified recently is answered from the in-process cache on the event loop; only a
    miss (a new key, or one read more than ``KEY_TTL_S`` ago) reads the database, in a
    worker thread. The request budgets (payhub_server/ratelimit.py) are counted here."""
    hub: PayHub = request.app.state.hub  # not the ``hub`` dependency: one resolution less
    limiter = ratelimit.limiter_of(request)
    presented = request.headers.get("x-api-key")
    try:
        caller = hub.authenticate_cached(presented)
        if caller is None:
            if limiter is not None:
                ratelimit.before_lookup(request, limiter)
            caller = await anyio.to_thread.run_sync(hub.authenticate, presented)
    except Unauthenticated:
        if limiter is not None:
            ratelimit.after_failure(request, limiter)
        raise
    if limiter is not None:
        ratelimit.admit(request, limiter, caller)
    return hub.provider(caller)


# What routes declare: ``tenant: Tenant`` (the authenticated caller's scope), ``hub: Hub``.
Tenant = NamedDependency[ProviderScope]
Hub = NamedDependency[PayHub]

DEPENDENCIES = {
    "hub": Provide(provide_hub, sync_to_thread=False),
    "tenant": Provide(provide_tenant),
}
