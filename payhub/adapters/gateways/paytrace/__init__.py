"""PayTrace: its adapter, its catalog row, its pay-page driver (page.py, fields.js)."""

from __future__ import annotations

from payhub.adapters.gateways.folder import GatewayFolder
from payhub.adapters.gateways.paytrace.adapter import PayTraceGateway
from payhub.adapters.gateways.paytrace.catalog import CATALOG
from payhub.adapters.gateways.paytrace.page import PAGE

FOLDER = GatewayFolder.of(__file__, CATALOG, PayTraceGateway, PAGE)
