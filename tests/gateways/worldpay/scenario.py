"""The scenario driver for worldpay: how to make its fake approve, decline and save
(the shared scenarios are tests/gateways/test_contract_scenarios.py)."""

from __future__ import annotations

from typing import Any

import httpx

from payhub.adapters.gateways.worldpay.adapter import WorldpayGateway
from payhub.domain.payments import GatewayCredentials
from payhub.ports import Gateway
from tests.gateways.scenarios.base import Driver
from tests.gateways.worldpay import fake as worldpay


class Worldpay(Driver):
    name = "worldpay"
    decline_tokens = {  # eProtect registration ids
        "generic_decline": "pp_decline",
        "insufficient_funds": "pp_insufficient",
        "expired_card": "pp_expired",
        "incorrect_cvc": "pp_cvv",
        "fraudulent": "pp_stolen",
        "processing_error": "pp_issuer_down",
    }
    _fields = {"user": worldpay.USER, "merchantId": worldpay.MERCHANT_ID}
    creds = GatewayCredentials(worldpay.PASSWORD, sandbox=True, fields=_fields)
    bad_creds = GatewayCredentials("not-the-worldpay-password", sandbox=True, fields=_fields)

    def make_fake(self) -> Any:
        return worldpay.FakeWorldpay()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return WorldpayGateway(client)

    def card_token(self) -> str:
        return "pp_visa"

    def save_token(self) -> str:
        return "pp_mastercard"

    def charges_made(self) -> int:
        return len(self.fake.of_kind("sale")) + len(self.fake.of_kind("authorization"))
