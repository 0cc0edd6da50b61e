"""Forte: its adapter, its catalog row."""

from __future__ import annotations

from payhub.adapters.gateways.folder import GatewayFolder
from payhub.adapters.gateways.forte.adapter import ForteGateway
from payhub.adapters.gateways.forte.catalog import CATALOG

FOLDER = GatewayFolder.of(__file__, CATALOG, ForteGateway)
