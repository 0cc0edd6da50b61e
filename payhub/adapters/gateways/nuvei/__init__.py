"""Nuvei: its adapter, its catalog row."""

from __future__ import annotations

from payhub.adapters.gateways.folder import GatewayFolder
from payhub.adapters.gateways.nuvei.adapter import NuveiGateway
from payhub.adapters.gateways.nuvei.catalog import CATALOG

FOLDER = GatewayFolder.of(__file__, CATALOG, NuveiGateway)
