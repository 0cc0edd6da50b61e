"""Adyen in payhub's catalog: what it can do."""

from __future__ import annotations

from payhub.domain.gateways import BankAccountVaulting, GatewayInfo, catalog_row

CATALOG: GatewayInfo = catalog_row(
    "adyen",
    "Adyen",
    BankAccountVaulting.NONE,
    "Adyen Web Components",
    # hmacKey and the notification username and password check Adyen's webhooks
    # (notifications.py); sealed like the API key and never returned.
    fields=(
        "merchantAccount",
        "liveUrlPrefix",
        "hmacKey",
        "notificationUsername",
        "notificationPassword",
    ),
)
