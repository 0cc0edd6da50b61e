"""The scenario driver for authorize-net: how to make its fake approve, decline and save
(the shared scenarios are tests/gateways/test_contract_scenarios.py)."""

from __future__ import annotations

import itertools
from typing import Any

import httpx

from payhub.adapters.gateways.authorize_net.adapter import AuthorizeNetGateway
from payhub.domain.payments import GatewayCredentials
from payhub.ports import Gateway
from tests.gateways.authorize_net import fake as authorize_net
from tests.gateways.scenarios.base import Driver


class AuthorizeNet(Driver):
    name = "authorize-net"
    _tokens = {
        "generic_decline": "tok_decline",
        "expired_card": "tok_expired",
        "incorrect_cvc": "tok_cvv",
        "fraudulent": "tok_fraud",
        "processing_error": "tok_processing",
    }
    _fields = {"apiLoginId": authorize_net.FAKE_LOGIN}
    creds = GatewayCredentials(authorize_net.FAKE_TRANSACTION_KEY, sandbox=True, fields=_fields)
    bad_creds = GatewayCredentials("NotTheKey0000000", sandbox=True, fields=_fields)

    def __init__(self) -> None:
        super().__init__()
        self._n = itertools.count(1)

    def make_fake(self) -> Any:
        return authorize_net.FakeAuthorizeNet()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return AuthorizeNetGateway(client)

    # Accept.js tokens work once; any suffix makes a fresh one
    def card_token(self) -> str:
        return f"tok_visa_{next(self._n)}"

    def save_token(self) -> str:
        return f"tok_mastercard_{next(self._n)}"

    def decline_token(self, family: str) -> str | None:
        token = self._tokens.get(family)
        return f"{token}_{next(self._n)}" if token else None

    def settle(self) -> None:
        self.fake.settle()

    def charges_made(self) -> int:
        return sum(1 for t in self.fake.transactions.values() if t.type != "refundTransaction")
