"""Reading a merchant's public client values for the pages (server-side only).

The public pages are keyed by an unguessable token and already resolved to a merchant; they
call this to learn, e.g., the Stripe publishable key to hand the browser SDK. Nothing sealed
is opened here.
"""

from __future__ import annotations

from urllib.parse import urlsplit

import structlog

from payhub.domain.environments import Environment
from payhub.domain.errors import Conflict, NotFound, PayHubError
from payhub.ports import (
    CheckoutRequest,
    Gateway,
    MakesPayPageCheckouts,
    MakesPayPageSessions,
    PayPageCheckout,
)
from payhub.services.deps import Deps
from payhub.services.gateway_access import open_credentials

log = structlog.get_logger(__name__)


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


def pay_page_session(
    deps: Deps, gateways: dict[str, Gateway], merchant_id: str, gateway: str
) -> dict[str, str]:
    """The values the gateway's browser SDK needs made server-side for one page view, asked
    of the gateway through its adapter with the merchant's credentials; {} when the gateway
    makes none, the credentials are not set or the gateway refuses or fails (the page then
    says online payment is not available, as without public values)."""
    adapter = gateways.get(gateway)
    info = deps.catalog.named(gateway)
    if not isinstance(adapter, MakesPayPageSessions) or info is None:
        return {}
    try:
        with deps.store.unit_of_work(readonly=True) as uow:
            merchant = uow.merchants.get(merchant_id)
            if merchant is None:
                return {}
            creds = open_credentials(
                uow, deps.secrets, merchant_id, merchant.external_reference, info
            )
        public = urlsplit(deps.public_url)
        return adapter.pay_page_session(creds, f"{public.scheme}://{public.netloc}")
    except PayHubError as e:  # credentials unset, gateway down or refusing: no session
        log.info("pay_page_session_failed", gateway=gateway, error=type(e).__name__)
        return {}


def saving_checkout(
    deps: Deps,
    gateways: dict[str, Gateway],
    merchant_id: str,
    gateway: str,
    key: str,
    currency: str = "USD",
) -> PayPageCheckout:
    """The session a schedule approval page saves a card under, on a gateway whose sessions
    are made through ``MakesPayPageCheckouts``: no amount (the card is verified and saved,
    nothing is charged). Raises the adapter's failures and 409 when the gateway makes none."""
    adapter = gateways.get(gateway)
    info = deps.catalog.named(gateway)
    if not isinstance(adapter, MakesPayPageCheckouts) or info is None:
        raise Conflict(f"the gateway {gateway} makes no pay-page sessions")
    with deps.store.unit_of_work(readonly=True) as uow:
        merchant = uow.merchants.get(merchant_id)
        if merchant is None:  # pragma: no cover - a request's merchant is never deleted
            raise NotFound("the merchant is gone")
        creds = open_credentials(uow, deps.secrets, merchant_id, merchant.external_reference, info)
    public = urlsplit(deps.public_url)
    request = CheckoutRequest(
        amount=None,
        capture=False,
        idempotency_key=key,
        origin=f"{public.scheme}://{public.netloc}",
        currency=currency,
    )
    return adapter.pay_page_checkout(creds, request)
