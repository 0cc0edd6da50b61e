"""Helcim: its adapter, its catalog row, its pay-page driver (page.py, fields.js)."""

from __future__ import annotations

from payhub.adapters.gateways.folder import GatewayFolder
from payhub.adapters.gateways.helcim.adapter import HelcimGateway
from payhub.adapters.gateways.helcim.catalog import CATALOG
from payhub.adapters.gateways.helcim.page import PAGE

FOLDER = GatewayFolder.of(__file__, CATALOG, HelcimGateway, PAGE)
