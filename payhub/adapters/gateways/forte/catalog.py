"""Forte in payhub's catalog: what it can do."""

from __future__ import annotations

from payhub.domain.gateways import BankAccountVaulting, GatewayInfo, catalog_row

CATALOG: GatewayInfo = catalog_row(
    "forte",
    "Forte",
    BankAccountVaulting.NONE,
    "Forte.js",
    partial_capture=False,
    fields=("accessId", "organizationId", "locationId"),
)
