"""The scenario driver for helcim: how to make its fake approve, decline and save
(the shared scenarios are tests/gateways/test_contract_scenarios.py)."""

from __future__ import annotations

import itertools
from typing import Any

import httpx

from payhub.adapters.gateways.helcim.adapter import HelcimGateway
from payhub.domain.payments import GatewayCredentials
from payhub.ports import Gateway
from tests.gateways.helcim import fake as helcim
from tests.gateways.scenarios.base import Driver


class Helcim(Driver):
    name = "helcim"
    _cvv = {
        "generic_decline": "209",
        "insufficient_funds": "225",
        "expired_card": "210",
        "incorrect_cvc": "200",
        "fraudulent": "201",
        "processing_error": "207",
    }
    creds = GatewayCredentials(api_secret=helcim.API_TOKEN, sandbox=True)
    bad_creds = GatewayCredentials(api_secret="notTheRightApiToken1234567", sandbox=True)

    def __init__(self) -> None:
        super().__init__()
        self._names = (f"Card Holder {n}" for n in itertools.count(1))

    def make_fake(self) -> Any:
        return helcim.FakeHelcim()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return HelcimGateway(client)

    def card_token(self) -> str:
        # a fresh holder name each time: Helcim declines the same card, name and amount twice
        return str(self.fake.tokenize(name=next(self._names)))

    def decline_token(self, family: str) -> str | None:
        return str(self.fake.tokenize(cvv=self._cvv[family], name=next(self._names)))
