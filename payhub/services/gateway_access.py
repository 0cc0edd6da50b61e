"""Reaching a merchant's gateway: the adapter for it, and the merchant's opened credentials.

Shared by every service that calls a gateway (payments, saved payment methods), so the
rules (credentials set and enabled, adapter available) and their messages are the same.
"""

from __future__ import annotations

import json

from payhub.domain.errors import Unavailable, ValidationError
from payhub.domain.gateways import GatewayInfo
from payhub.domain.payments import GatewayCredentials
from payhub.ports import Gateway, SecretBox, UnitOfWork


def adapter_for(gateways: dict[str, Gateway], info: GatewayInfo) -> Gateway:
    """The adapter that speaks for ``info``; 503 while payhub has none for that gateway."""
    adapter = gateways.get(info.name)
    if adapter is None:
        raise Unavailable(f"payments through {info.display_name} are not available yet")
    return adapter


def open_credentials(
    uow: UnitOfWork,
    secrets: SecretBox,
    merchant_id: str,
    merchant_reference: str,
    info: GatewayInfo,
    field: str = "gatewayName",
) -> GatewayCredentials:
    """The merchant's credentials for the gateway, opened for one call; 400 (on ``field``)
    when they are not set or switched off."""
    stored = uow.credentials.get(merchant_id, info.name)
    if stored is None or not stored.enabled:
        state = "not set" if stored is None else "disabled"
        raise ValidationError.for_field(
            field,
            f"the merchant's {info.display_name} credentials are {state}; set them with"
            f" PUT /api/merchant-accounts/{merchant_reference}/credentials/{info.name}",
        )
    opened = json.loads(secrets.open(stored.sealed))
    return GatewayCredentials(
        api_secret=opened["apiSecret"],
        sandbox=stored.environment.value == "Sandbox",
        fields=dict(opened.get("fields", {})),
    )
