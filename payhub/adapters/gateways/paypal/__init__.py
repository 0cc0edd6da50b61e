"""PayPal: its adapter, its catalog row."""

from __future__ import annotations

from payhub.adapters.gateways.folder import GatewayFolder
from payhub.adapters.gateways.paypal.adapter import PayPalGateway
from payhub.adapters.gateways.paypal.catalog import CATALOG

FOLDER = GatewayFolder.of(__file__, CATALOG, PayPalGateway)
