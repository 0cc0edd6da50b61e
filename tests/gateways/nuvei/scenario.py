"""The scenario driver for nuvei: how to make its fake approve, decline and save
(the shared scenarios are tests/gateways/test_contract_scenarios.py)."""

from __future__ import annotations

from typing import Any

import httpx

from payhub.adapters.gateways.nuvei.adapter import NuveiGateway
from payhub.domain.payments import GatewayCredentials
from payhub.ports import Gateway
from tests.gateways.nuvei import fake as nuvei
from tests.gateways.scenarios.base import Driver


class Nuvei(Driver):
    name = "nuvei"
    _cards = {
        "generic_decline": "decline",
        "insufficient_funds": "insufficient",
        "expired_card": "expired",
        "incorrect_cvc": "cvv",
        "fraudulent": "stolen",
    }
    _fields = {"merchantId": nuvei.MERCHANT_ID, "merchantSiteId": nuvei.MERCHANT_SITE_ID}
    creds = GatewayCredentials(api_secret=nuvei.SECRET, sandbox=True, fields=_fields)
    bad_creds = GatewayCredentials(api_secret="not-the-secret-key", sandbox=True, fields=_fields)

    def make_fake(self) -> Any:
        return nuvei.FakeNuvei()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return NuveiGateway(client)

    def card_token(self) -> str:
        return str(self.fake.fields_token("visa"))

    def save_token(self) -> str:
        return str(self.fake.fields_token("mastercard"))

    def decline_token(self, family: str) -> str | None:
        card = self._cards.get(family)
        return str(self.fake.fields_token(card)) if card else None
