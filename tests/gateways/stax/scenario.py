"""The scenario driver for stax: how to make its fake approve, decline and save
(the shared scenarios are tests/gateways/test_contract_scenarios.py)."""

from __future__ import annotations

from typing import Any

import httpx

from payhub.adapters.gateways.stax.adapter import StaxGateway
from payhub.domain.payments import GatewayCredentials
from payhub.ports import Gateway
from tests.gateways.scenarios.base import Driver
from tests.gateways.stax import fake as stax


class Stax(Driver):
    name = "stax"
    _numbers = {
        "generic_decline": "4012888888881881",
        "insufficient_funds": "4000000000009995",
        "expired_card": "4000000000000069",
        "incorrect_cvc": "4000000000000127",
        "fraudulent": "4000000000009979",
        "processing_error": "4000000000000119",
    }
    creds = GatewayCredentials(api_secret=stax.API_KEY, sandbox=True)
    bad_creds = GatewayCredentials(api_secret="not-the-stax-key-123456", sandbox=True)

    def make_fake(self) -> Any:
        return stax.FakeStax()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return StaxGateway(client)

    def card_token(self) -> str:
        return str(self.fake.tokenize())

    def decline_token(self, family: str) -> str | None:
        return str(self.fake.tokenize(self._numbers[family]))

    def settle(self) -> None:
        self.fake.settle()

    def charges_made(self) -> int:
        return sum(1 for t in self.fake.transactions.values() if t.get("type") == "charge")
