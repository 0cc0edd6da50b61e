"""Worldpay: its adapter, its catalog row, its pay-page driver (page.py, fields.js)."""

from __future__ import annotations

from payhub.adapters.gateways.folder import GatewayFolder
from payhub.adapters.gateways.worldpay.adapter import WorldpayGateway
from payhub.adapters.gateways.worldpay.catalog import CATALOG
from payhub.adapters.gateways.worldpay.page import PAGE

FOLDER = GatewayFolder.of(__file__, CATALOG, WorldpayGateway, PAGE)
