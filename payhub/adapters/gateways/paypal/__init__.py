"""PayPal: its adapter, its catalog row, its pay-page driver (page.py, fields.js)."""

from __future__ import annotations

from payhub.adapters.gateways.folder import GatewayFolder
from payhub.adapters.gateways.paypal.adapter import PayPalGateway
from payhub.adapters.gateways.paypal.catalog import CATALOG
from payhub.adapters.gateways.paypal.page import PAGE

FOLDER = GatewayFolder.of(__file__, CATALOG, PayPalGateway, PAGE)
