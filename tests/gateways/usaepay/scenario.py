"""The scenario driver for usaepay: how to make its fake approve, decline and save
(the shared scenarios are tests/gateways/test_contract_scenarios.py)."""

from __future__ import annotations

from typing import Any

import httpx

from payhub.adapters.gateways.usaepay.adapter import UsaEpayGateway
from payhub.domain.payments import GatewayCredentials
from payhub.ports import Gateway
from tests.gateways.scenarios.base import Driver
from tests.gateways.usaepay import fake as usaepay


class UsaEpay(Driver):
    name = "usaepay"
    decline_tokens = {
        "generic_decline": "pk_decline",
        "insufficient_funds": "pk_insufficient",
        "expired_card": "pk_expired",
        "incorrect_cvc": "pk_cvv",
        "fraudulent": "pk_stolen",
    }
    creds = GatewayCredentials(
        api_secret=usaepay.API_KEY, sandbox=True, fields={"pin": usaepay.PIN}
    )
    bad_creds = GatewayCredentials(
        api_secret="not-the-api-key-0000", sandbox=True, fields={"pin": usaepay.PIN}
    )

    def make_fake(self) -> Any:
        return usaepay.FakeUsaEpay()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return UsaEpayGateway(client)

    def card_token(self) -> str:
        return "pk_visa"

    def save_token(self) -> str:
        return "pk_mastercard"
