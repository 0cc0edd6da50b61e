"""Elavon Converge: its adapter, its catalog row."""

from __future__ import annotations

from payhub.adapters.gateways.elavon.adapter import ElavonGateway
from payhub.adapters.gateways.elavon.catalog import CATALOG
from payhub.adapters.gateways.folder import GatewayFolder

FOLDER = GatewayFolder.of(__file__, CATALOG, ElavonGateway)
