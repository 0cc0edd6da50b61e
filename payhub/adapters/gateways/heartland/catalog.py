"""Heartland in payhub's catalog: what it can do and the public key its browser SDK needs."""

from __future__ import annotations

from payhub.domain.gateway_public import PublicField
from payhub.domain.gateway_public import pattern as _p
from payhub.domain.gateways import BankAccountVaulting, GatewayInfo, catalog_row

# https://developer.heartlandpaymentsystems.com/documentation/tokenization: globalpayments.js is
# configured with the merchant's public API key, pkapi_cert_... for the certification (sandbox)
# environment and pkapi_prod_... live; it can only make single-use tokens.
PUBLIC_FIELDS: tuple[PublicField, ...] = (
    PublicField(
        "publicApiKey",
        _p(r"^pkapi_(cert|prod)_[A-Za-z0-9]{10,64}$"),
        sandbox_prefix="pkapi_cert_",
        live_prefix="pkapi_prod_",
        shape="a Heartland public API key (pkapi_cert_... or pkapi_prod_...)",
    ),
)

CATALOG: GatewayInfo = catalog_row(
    "heartland",
    "Heartland (Portico)",
    BankAccountVaulting.NONE,
    "globalpayments.js",
    fields=("publicApiKey",),
    public_fields=PUBLIC_FIELDS,
)
