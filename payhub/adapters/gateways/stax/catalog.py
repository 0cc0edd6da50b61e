"""Stax in payhub's catalog: what it can do and the public value its browser SDK needs."""

from __future__ import annotations

from payhub.domain.gateway_public import PublicField
from payhub.domain.gateway_public import pattern as _p
from payhub.domain.gateways import BankAccountVaulting, GatewayInfo, catalog_row

# https://docs.staxpayments.com/docs/staxjs: Stax.js is initialised with the merchant's Web
# Payments Token (Stax Pay > Apps > API Keys), a public key that can only create payment
# methods and charges; no mode prefix (a sandbox merchant has its own token).
PUBLIC_FIELDS: tuple[PublicField, ...] = (
    PublicField(
        "webPaymentsToken",
        _p(r"^[A-Za-z0-9_-]{8,128}$"),
        shape="a Stax Web Payments Token (letters, digits, - and _)",
    ),
)

CATALOG: GatewayInfo = catalog_row(
    "stax",
    "Stax",
    BankAccountVaulting.NONE,
    "Stax.js",
    fields=("webPaymentsToken",),
    public_fields=PUBLIC_FIELDS,
)
