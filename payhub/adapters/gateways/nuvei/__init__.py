"""Nuvei: its adapter, its catalog row, its pay-page driver (page.py, fields.js)."""

from __future__ import annotations

from payhub.adapters.gateways.folder import GatewayFolder
from payhub.adapters.gateways.nuvei.adapter import NuveiGateway
from payhub.adapters.gateways.nuvei.catalog import CATALOG
from payhub.adapters.gateways.nuvei.page import PAGE

FOLDER = GatewayFolder.of(__file__, CATALOG, NuveiGateway, PAGE)
