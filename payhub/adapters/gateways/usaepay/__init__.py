"""USAePay: its adapter, its catalog row, its pay-page driver (page.py, fields.js)."""

from __future__ import annotations

from payhub.adapters.gateways.folder import GatewayFolder
from payhub.adapters.gateways.usaepay.adapter import UsaEpayGateway
from payhub.adapters.gateways.usaepay.catalog import CATALOG
from payhub.adapters.gateways.usaepay.page import PAGE

FOLDER = GatewayFolder.of(__file__, CATALOG, UsaEpayGateway, PAGE)
