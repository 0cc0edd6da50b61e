"""CyberSource: its adapter, its catalog row, its pay-page driver (page.py, fields.js)."""

from __future__ import annotations

from payhub.adapters.gateways.cybersource.adapter import CyberSourceGateway
from payhub.adapters.gateways.cybersource.catalog import CATALOG
from payhub.adapters.gateways.cybersource.page import PAGE
from payhub.adapters.gateways.folder import GatewayFolder

FOLDER = GatewayFolder.of(__file__, CATALOG, CyberSourceGateway, PAGE)
