"""Worldpay in payhub's catalog: what it can do and the public value its browser SDK needs."""

from __future__ import annotations

from payhub.domain.gateway_public import PublicField
from payhub.domain.gateway_public import pattern as _p
from payhub.domain.gateways import BankAccountVaulting, GatewayInfo, catalog_row

# Worldpay eProtect Integration Guide: the iframe client is configured with the merchant's
# Pay Page id (paypageId, issued by Worldpay per environment, letters and digits); it only
# registers cards, so it is public. No mode prefix.
PUBLIC_FIELDS: tuple[PublicField, ...] = (
    PublicField(
        "paypageId",
        _p(r"^[A-Za-z0-9]{8,32}$"),
        shape="a Worldpay eProtect Pay Page id (letters and digits)",
    ),
)

CATALOG: GatewayInfo = catalog_row(
    "worldpay",
    "Worldpay (Vantiv cnpAPI)",
    BankAccountVaulting.NONE,
    "Worldpay eProtect",
    fields=("user", "merchantId", "paypageId"),
    public_fields=PUBLIC_FIELDS,
)
