"""Square: its adapter, its catalog row, its pay-page driver (page.py, fields.js)."""

from __future__ import annotations

from payhub.adapters.gateways.folder import GatewayFolder
from payhub.adapters.gateways.square.adapter import SquareGateway
from payhub.adapters.gateways.square.catalog import CATALOG
from payhub.adapters.gateways.square.page import PAGE

FOLDER = GatewayFolder.of(__file__, CATALOG, SquareGateway, PAGE)
