"""The default catalog's rows for tests, as the registry assembles them from the folders."""

from __future__ import annotations

from payhub.adapters.gateways.registry import default_catalog
from payhub.domain.environments import Environment
from payhub.domain.gateways import GatewayInfo

CATALOG = default_catalog()
GATEWAYS: tuple[GatewayInfo, ...] = CATALOG.real  # the 21 real gateways, in listing order
SIMULATOR: GatewayInfo = next(g for g in CATALOG.rows if g.name == "simulator")


def gateway(name: str, environment: Environment) -> GatewayInfo:
    return CATALOG.get(name, environment)
