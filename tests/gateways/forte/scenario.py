"""The scenario driver for forte: how to make its fake approve, decline and save
(the shared scenarios are tests/gateways/test_contract_scenarios.py)."""

from __future__ import annotations

from typing import Any

import httpx

from payhub.adapters.gateways.forte.adapter import ForteGateway
from payhub.domain.payments import GatewayCredentials
from payhub.ports import Gateway
from tests.gateways.forte import fake as forte
from tests.gateways.scenarios.base import Driver


class Forte(Driver):
    name = "forte"
    decline_tokens = {
        "generic_decline": "ott_decline",
        "insufficient_funds": "ott_insufficient",
        "expired_card": "ott_expired",
        "fraudulent": "ott_stolen",
    }
    _fields = {"accessId": forte.ACCESS_ID, "organizationId": forte.ORG, "locationId": forte.LOC}
    creds = GatewayCredentials(api_secret=forte.SECURE_KEY, sandbox=True, fields=_fields)
    bad_creds = GatewayCredentials(api_secret="not-the-secure-key", sandbox=True, fields=_fields)

    def make_fake(self) -> Any:
        return forte.FakeForte()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return ForteGateway(client)

    def card_token(self) -> str:
        return "ott_visa"

    def save_token(self) -> str:
        return "ott_mastercard"
