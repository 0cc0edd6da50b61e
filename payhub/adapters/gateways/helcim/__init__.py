"""Helcim: its adapter, its catalog row."""

from __future__ import annotations

from payhub.adapters.gateways.folder import GatewayFolder
from payhub.adapters.gateways.helcim.adapter import HelcimGateway
from payhub.adapters.gateways.helcim.catalog import CATALOG

FOLDER = GatewayFolder.of(__file__, CATALOG, HelcimGateway)
