"""Dependencies every route may ask for: the hub and the caller's scope."""

from __future__ import annotations

from functools import partial
from typing import Any

from litestar import Request, delete, get, patch, post, put
from litestar.datastructures import State
from litestar.di import NamedDependency, Provide

from payhub.hub import PayHub, ProviderScope

# Audiences, recorded on each route for the three reference views.
PUBLIC = {"audience": "public"}
PROVIDER_ONLY = {"audience": "provider"}
MERCHANT_KEY_OK = {"audience": "merchant"}

# payhub's services are synchronous (database drivers are); Litestar runs them in a
# worker thread so the event loop stays free.
api_get = partial(get, sync_to_thread=True)
api_post = partial(post, sync_to_thread=True)
api_put = partial(put, sync_to_thread=True)
api_patch = partial(patch, sync_to_thread=True)
api_delete = partial(delete, sync_to_thread=True)


def provide_hub(state: State) -> PayHub:
    hub: PayHub = state.hub
    return hub


def provide_tenant(request: Request[Any, Any, Any], hub: NamedDependency[PayHub]) -> ProviderScope:
    """Authenticate ``X-Api-Key`` (401 otherwise) and scope everything to that caller."""
    return hub.provider(hub.authenticate(request.headers.get("x-api-key")))


# What routes declare: ``tenant: Tenant`` (the authenticated caller's scope), ``hub: Hub``.
Tenant = NamedDependency[ProviderScope]
Hub = NamedDependency[PayHub]

DEPENDENCIES = {
    "hub": Provide(provide_hub, sync_to_thread=False),
    "tenant": Provide(provide_tenant, sync_to_thread=True),
}
