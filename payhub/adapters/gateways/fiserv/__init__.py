"""Fiserv CommerceHub: its adapter, its catalog row, its pay-page driver (page.py, fields.js)."""

from __future__ import annotations

from payhub.adapters.gateways.fiserv.adapter import FiservGateway
from payhub.adapters.gateways.fiserv.catalog import CATALOG
from payhub.adapters.gateways.fiserv.page import PAGE
from payhub.adapters.gateways.folder import GatewayFolder

FOLDER = GatewayFolder.of(__file__, CATALOG, FiservGateway, PAGE)
