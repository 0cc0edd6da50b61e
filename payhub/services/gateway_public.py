"""Reading a merchant's public client values for the pages (server-side only).

The public pages are keyed by an unguessable token and already resolved to a merchant; they
call this to learn, e.g., the Stripe publishable key to hand the browser SDK. Nothing sealed
is opened here.
"""

from __future__ import annotations

from payhub.domain.environments import Environment
from payhub.services.deps import Deps


def public_fields(deps: Deps, merchant_id: str, gateway: str) -> dict[str, str]:
    """The gateway's public client values for this merchant ({} when none were set)."""
    with deps.store.unit_of_work(readonly=True) as uow:
        return uow.gateway_public_fields.get(merchant_id, gateway)


def public_fields_and_mode(
    deps: Deps, merchant_id: str, gateway: str
) -> tuple[dict[str, str], bool]:
    """The public values and whether the merchant's provider is in sandbox (the page's hosts)."""
    with deps.store.unit_of_work(readonly=True) as uow:
        merchant = uow.merchants.get(merchant_id)
        provider = uow.providers.get(merchant.provider_id) if merchant else None
        sandbox = provider is None or provider.environment is Environment.SANDBOX
        return uow.gateway_public_fields.get(merchant_id, gateway), sandbox
