"""Adyen: its adapter, its catalog row."""

from __future__ import annotations

from payhub.adapters.gateways.adyen.adapter import AdyenGateway
from payhub.adapters.gateways.adyen.catalog import CATALOG
from payhub.adapters.gateways.folder import GatewayFolder

FOLDER = GatewayFolder.of(__file__, CATALOG, AdyenGateway)
