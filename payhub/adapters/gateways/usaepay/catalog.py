"""USAePay in payhub's catalog: what it can do and the public values its browser SDK needs."""

from __future__ import annotations

from payhub.domain.gateway_public import PublicField
from payhub.domain.gateway_public import pattern as _p
from payhub.domain.gateways import BankAccountVaulting, GatewayInfo, catalog_row

# https://help.usaepay.info/developer/rest-api/more/public-api-key/: Pay.js takes the public
# API key (GET /api/v2/publickey), e.g. _P120LOb42a1SF4nN54z1Hp0256K7bl3ki0x8iuJP9; no mode
# prefix: a sandbox key works only with sandbox.usaepay.com.
PUBLIC_FIELDS: tuple[PublicField, ...] = (
    PublicField(
        "publicKey",
        _p(r"^_[A-Za-z0-9]{20,64}$"),
        shape="a USAePay public API key (_ followed by letters and digits)",
    ),
)


CATALOG: GatewayInfo = catalog_row(
    "usaepay",
    "USAePay",
    BankAccountVaulting.NONE,
    "USAePay Pay.js",
    fields=("pin", "publicKey"),
    public_fields=PUBLIC_FIELDS,
)
