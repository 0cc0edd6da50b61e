"""Checkout.com in payhub's catalog: what it can do and the public values its browser SDK needs."""

from __future__ import annotations

from payhub.domain.gateway_public import PublicField
from payhub.domain.gateway_public import pattern as _p
from payhub.domain.gateways import BankAccountVaulting, GatewayInfo, catalog_row

# https://www.checkout.com/docs/developer-resources/api/api-keys: Frames takes the public
# key; sandbox keys are pk_sbox_… (pk_test_… on legacy accounts, a UUID), live ones pk_….
PUBLIC_FIELDS: tuple[PublicField, ...] = (
    PublicField(
        "publicKey",
        _p(r"^pk_(sbox_|test_)?[A-Za-z0-9-]{20,80}$"),
        ("pk_sbox_", "pk_test_"),
        "pk_",
        "a Checkout.com public key (pk_sbox_… or pk_…)",
    ),
)


CATALOG: GatewayInfo = catalog_row(
    "checkout-com",
    "Checkout.com",
    BankAccountVaulting.NONE,
    "Checkout.com Frames",
    fields=("processingChannelId", "publicKey"),
    public_fields=PUBLIC_FIELDS,
)
