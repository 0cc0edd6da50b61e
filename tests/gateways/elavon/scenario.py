"""The scenario driver for elavon: how to make its fake approve, decline and save
(the shared scenarios are tests/gateways/test_contract_scenarios.py)."""

from __future__ import annotations

from typing import Any

import httpx

from payhub.adapters.gateways.elavon.adapter import ElavonGateway
from payhub.domain.payments import GatewayCredentials
from payhub.ports import Gateway
from tests.gateways.elavon import fake as elavon
from tests.gateways.scenarios.base import Driver


class Elavon(Driver):
    name = "elavon"
    decline_tokens = {
        "generic_decline": "ck_decline",
        "insufficient_funds": "ck_insufficient",
        "expired_card": "ck_expired",
        "incorrect_cvc": "ck_cvv",
        "fraudulent": "ck_stolen",
    }
    _fields = {"merchantId": elavon.MERCHANT_ID, "userId": elavon.USER_ID}
    creds = GatewayCredentials(api_secret=elavon.PIN, sandbox=True, fields=_fields)
    bad_creds = GatewayCredentials(api_secret="not-the-pin", sandbox=True, fields=_fields)

    def make_fake(self) -> Any:
        return elavon.FakeElavon()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return ElavonGateway(client)

    def card_token(self) -> str:
        return "ck_visa"

    def save_token(self) -> str:
        return "ck_mastercard"
