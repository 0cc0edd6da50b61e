"""Clover in payhub's catalog: what it can do and the public values its browser SDK needs."""

from __future__ import annotations

from payhub.domain.gateway_public import PublicField
from payhub.domain.gateway_public import pattern as _p
from payhub.domain.gateways import BankAccountVaulting, GatewayInfo, catalog_row

# https://docs.clover.com/docs/using-the-clover-hosted-iframe: new Clover(apiAccessKey,
# {merchantId}); the Ecommerce public key (PAKMS apiAccessKey) and the 13-character merchant
# id. Neither has a mode prefix: a sandbox key works only with the sandbox SDK's hosts.
PUBLIC_FIELDS: tuple[PublicField, ...] = (
    PublicField(
        "apiAccessKey",
        _p(r"^[A-Za-z0-9]{16,64}$"),
        shape="a Clover Ecommerce public key (PAKMS apiAccessKey, letters and digits)",
    ),
    PublicField(
        "merchantId", _p(r"^[A-Za-z0-9]{13}$"), shape="a Clover merchant id (13 characters)"
    ),
)


CATALOG: GatewayInfo = catalog_row(
    "clover",
    "Clover",
    BankAccountVaulting.NONE,
    "Clover iframe",
    fields=("apiAccessKey", "merchantId"),
    public_fields=PUBLIC_FIELDS,
)
