"""NMI: its adapter, its catalog row, its pay-page driver (page.py, fields.js)."""

from __future__ import annotations

from payhub.adapters.gateways.folder import GatewayFolder
from payhub.adapters.gateways.nmi.adapter import NmiGateway
from payhub.adapters.gateways.nmi.catalog import CATALOG
from payhub.adapters.gateways.nmi.page import PAGE

FOLDER = GatewayFolder.of(__file__, CATALOG, NmiGateway, PAGE)
