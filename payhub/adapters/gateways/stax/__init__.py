"""Stax: its adapter, its catalog row, its pay-page driver (page.py, fields.js)."""

from __future__ import annotations

from payhub.adapters.gateways.folder import GatewayFolder
from payhub.adapters.gateways.stax.adapter import StaxGateway
from payhub.adapters.gateways.stax.catalog import CATALOG
from payhub.adapters.gateways.stax.page import PAGE

FOLDER = GatewayFolder.of(__file__, CATALOG, StaxGateway, PAGE)
