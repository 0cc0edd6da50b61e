"""Elavon Converge in payhub's catalog: what it can do."""

from __future__ import annotations

from payhub.domain.gateways import BankAccountVaulting, GatewayInfo, catalog_row

CATALOG: GatewayInfo = catalog_row(
    "elavon",
    "Elavon Converge",
    BankAccountVaulting.NONE,
    "Converge Lightbox",
    fields=("merchantId", "userId"),
)
