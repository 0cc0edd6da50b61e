"""Stripe in payhub's catalog: what it can do and the public values its browser SDK needs."""

from __future__ import annotations

from payhub.domain.gateway_public import PublicField
from payhub.domain.gateway_public import pattern as _p
from payhub.domain.gateways import BankAccountVaulting, GatewayInfo, catalog_row

# https://docs.stripe.com/keys: publishable keys are pk_test_… / pk_live_….
PUBLIC_FIELDS: tuple[PublicField, ...] = (
    PublicField(
        "publishableKey",
        _p(r"^pk_(test|live)_[A-Za-z0-9]{8,247}$"),
        "pk_test_",
        "pk_live_",
        "a Stripe publishable key (pk_test_… or pk_live_…)",
    ),
)


CATALOG: GatewayInfo = catalog_row(
    "stripe",
    "Stripe",
    BankAccountVaulting.FRESH_AND_VAULT,
    "Stripe Elements",
    fields=("publishableKey",),
    public_fields=PUBLIC_FIELDS,
)
