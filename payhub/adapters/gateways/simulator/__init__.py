"""The simulator: its adapter (no HTTP), its catalog row, its pay-page driver (page.py,
fields.js)."""

from __future__ import annotations

import httpx

from payhub.adapters.gateways.folder import GatewayFolder
from payhub.adapters.gateways.simulator.adapter import SimulatorGateway
from payhub.adapters.gateways.simulator.catalog import CATALOG
from payhub.adapters.gateways.simulator.page import PAGE
from payhub.ports import Gateway


def _adapter(_client: httpx.Client) -> Gateway:
    return SimulatorGateway()  # answers in process: the shared client is not needed


FOLDER = GatewayFolder.of(__file__, CATALOG, _adapter, PAGE)
