"""``GET /api/gateways``: the supported gateways and their capabilities."""

from __future__ import annotations

from functools import cache

import msgspec
from litestar import Controller

from payhub.domain.environments import Environment
from payhub.domain.gateways import GatewayCatalog, GatewayInfo
from payhub_server.deps import MERCHANT_KEY_OK, Tenant, api_get
from payhub_server.routes.wire import Items


class GatewayOut(msgspec.Struct, rename="camel"):
    name: str
    display_name: str
    card: bool
    ach: bool
    bank_account_vaulting: str
    card_vaulting: bool
    authorize_only: bool
    hosted_checkout: bool
    refunds: bool
    partial_capture: bool
    hosted_fields: str
    sandbox_only: bool
    credential_fields: list[str]

    @classmethod
    def of(cls, g: GatewayInfo) -> GatewayOut:
        return cls(
            name=g.name,
            display_name=g.display_name,
            card=g.card,
            ach=g.ach,
            bank_account_vaulting=g.bank_account_vaulting.value,
            card_vaulting=g.card_vaulting,
            authorize_only=g.authorize_only,
            hosted_checkout=g.hosted_checkout,
            refunds=g.refunds,
            partial_capture=g.partial_capture,
            hosted_fields=g.hosted_fields,
            sandbox_only=g.sandbox_only,
            credential_fields=["apiSecret", *g.credential_fields],
        )


class GatewayController(Controller):
    path = "/api/gateways"
    tags = ["Gateways"]

    # Reads no database: answered on the event loop, no thread hop.
    @api_get("/", opt=MERCHANT_KEY_OK, summary="List the supported gateways", sync_to_thread=False)
    def list_gateways(self, tenant: Tenant) -> Items[GatewayOut]:
        """The 21 gateways (and, in sandbox, the built-in simulator) with their capabilities."""
        return _listing(tenant.catalog, tenant.caller.environment)


@cache
def _listing(catalog: GatewayCatalog, environment: Environment) -> Items[GatewayOut]:
    """A hub's catalog is fixed: one answer per catalog and environment, built once."""
    return Items([GatewayOut.of(g) for g in catalog.for_environment(environment)])
