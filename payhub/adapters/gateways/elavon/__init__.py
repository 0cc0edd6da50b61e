"""Elavon Converge: its adapter, its catalog row, its pay-page driver (page.py, fields.js)."""

from __future__ import annotations

from payhub.adapters.gateways.elavon.adapter import ElavonGateway
from payhub.adapters.gateways.elavon.catalog import CATALOG
from payhub.adapters.gateways.elavon.page import PAGE
from payhub.adapters.gateways.folder import GatewayFolder

FOLDER = GatewayFolder.of(__file__, CATALOG, ElavonGateway, PAGE)
