"""The scenario driver for paypal: how to make its fake approve, decline and save
(the shared scenarios are tests/gateways/test_contract_scenarios.py)."""

from __future__ import annotations

from typing import Any

import httpx

from payhub.adapters.gateways.paypal.adapter import PayPalGateway
from payhub.domain.payments import GatewayCredentials
from payhub.ports import Gateway
from tests.gateways.paypal import fake as paypal
from tests.gateways.scenarios.base import Driver


class PayPal(Driver):
    name = "paypal"
    _names = {
        "generic_decline": "CCREJECT-REFUSED",
        "insufficient_funds": "CCREJECT-IF",
        "expired_card": "CCREJECT-EC",
        "incorrect_cvc": "CCREJECT-CVV_F",
        "fraudulent": "CCREJECT-SF",
    }
    _fields = {"clientId": paypal.CLIENT_ID}
    creds = GatewayCredentials(paypal.SECRET, sandbox=True, fields=_fields)
    bad_creds = GatewayCredentials("EWrongClientSecret9876", sandbox=True, fields=_fields)

    def make_fake(self) -> Any:
        return paypal.FakePayPal()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return PayPalGateway(client)

    def card_token(self) -> str:
        # an order the pay page's Card Fields approved; payhub sets its amount and intent
        return str(self.fake.card_fields_order())

    def save_token(self) -> str:
        return str(self.fake.approved_setup_token())

    def decline_token(self, family: str) -> str | None:
        name = self._names.get(family)
        return str(self.fake.card_fields_order(name=name)) if name else None

    def breaks(self, request: httpx.Request) -> bool:
        # the access token and the order's PATCH come first; the capture or authorize is the charge
        return request.method == "POST" and request.url.path.endswith(("/capture", "/authorize"))

    def charges_made(self) -> int:
        return len(self.fake.captures) + len(self.fake.authorizations)
