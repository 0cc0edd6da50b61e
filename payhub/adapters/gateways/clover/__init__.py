"""Clover: its adapter, its catalog row, its pay-page driver (page.py, fields.js)."""

from __future__ import annotations

from payhub.adapters.gateways.clover.adapter import CloverGateway
from payhub.adapters.gateways.clover.catalog import CATALOG
from payhub.adapters.gateways.clover.page import PAGE
from payhub.adapters.gateways.folder import GatewayFolder

FOLDER = GatewayFolder.of(__file__, CATALOG, CloverGateway, PAGE)
