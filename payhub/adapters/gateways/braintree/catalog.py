"""Braintree in payhub's catalog: what it can do and the public values its browser SDK needs."""

from __future__ import annotations

from payhub.domain.gateway_public import PublicField
from payhub.domain.gateway_public import pattern as _p
from payhub.domain.gateways import BankAccountVaulting, GatewayInfo, catalog_row

# https://developer.paypal.com/braintree/docs/guides/authorization/tokenization-key:
# sandbox_<8>_<16> or production_<8>_<16>.
PUBLIC_FIELDS: tuple[PublicField, ...] = (
    PublicField(
        "tokenizationKey",
        _p(r"^(sandbox|production)_[a-z0-9]{6,12}_[a-z0-9]{12,20}$"),
        "sandbox_",
        "production_",
        "a Braintree tokenization key (sandbox_…_… or production_…_…)",
    ),
)


CATALOG: GatewayInfo = catalog_row(
    "braintree",
    "Braintree",
    BankAccountVaulting.VAULT_FIRST,
    "Braintree Hosted Fields",
    fields=("merchantId", "publicKey", "tokenizationKey"),
    public_fields=PUBLIC_FIELDS,
)
