"""Heartland: its adapter, its catalog row, its pay-page driver (page.py, fields.js)."""

from __future__ import annotations

from payhub.adapters.gateways.folder import GatewayFolder
from payhub.adapters.gateways.heartland.adapter import HeartlandGateway
from payhub.adapters.gateways.heartland.catalog import CATALOG
from payhub.adapters.gateways.heartland.page import PAGE

FOLDER = GatewayFolder.of(__file__, CATALOG, HeartlandGateway, PAGE)
