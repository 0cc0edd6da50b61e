"""Which adapter speaks for which gateway of the catalog."""

from __future__ import annotations

import httpx

from payhub.adapters.gateways.simulator import SimulatorGateway
from payhub.ports import Gateway


def default_gateways(client: httpx.Client | None = None) -> dict[str, Gateway]:
    """Every gateway payhub has an adapter for, sharing one HTTP client (connection pool)."""
    adapters: list[Gateway] = [SimulatorGateway()]
    return {g.name: g for g in adapters}
