"""The scenario driver for clover: how to make its fake approve, decline and save
(the shared scenarios are tests/gateways/test_contract_scenarios.py)."""

from __future__ import annotations

from typing import Any

import httpx

from payhub.adapters.gateways.clover.adapter import CloverGateway
from payhub.domain.payments import GatewayCredentials
from payhub.ports import Gateway
from tests.gateways.clover import fake as clover
from tests.gateways.scenarios.base import Driver


class Clover(Driver):
    name = "clover"
    _numbers = {
        "generic_decline": "4005571702222222",
        "insufficient_funds": "4000000000009995",
        "expired_card": "4000000000000069",
        "incorrect_cvc": "4000000000000127",
        "fraudulent": "4100000000000019",
        "processing_error": "4000000000000119",
    }
    creds = GatewayCredentials(api_secret=clover.SANDBOX_KEY, sandbox=True)
    bad_creds = GatewayCredentials(api_secret="11111111-2222-4333-8444-555555555555", sandbox=True)

    def make_fake(self) -> Any:
        return clover.FakeClover()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return CloverGateway(client)

    def card_token(self) -> str:
        return str(self.fake.tokenize())

    def decline_token(self, family: str) -> str | None:
        return str(self.fake.tokenize(self._numbers[family]))

    def charges_made(self) -> int:
        return len(self.fake.charges)
