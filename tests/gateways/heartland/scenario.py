"""The scenario driver for heartland: how to make its fake approve, decline and save
(the shared scenarios are tests/gateways/test_contract_scenarios.py)."""

from __future__ import annotations

from typing import Any

import httpx

from payhub.adapters.gateways.heartland.adapter import HeartlandGateway
from payhub.domain.payments import GatewayCredentials
from payhub.ports import Gateway
from tests.gateways.heartland import fake as heartland
from tests.gateways.scenarios.base import Driver


class Heartland(Driver):
    name = "heartland"
    decline_tokens = {
        "generic_decline": "supt_decline",
        "insufficient_funds": "supt_insufficient",
        "expired_card": "supt_expired",
        "incorrect_cvc": "supt_cvv",
        "fraudulent": "supt_stolen",
        # issuer 91 is reversed and reported as GatewayUnavailable (retry-safe), not a decline
    }
    creds = GatewayCredentials(api_secret=heartland.CERT_KEY, sandbox=True)
    bad_creds = GatewayCredentials(api_secret="skapi_cert_notTheKey", sandbox=True)

    def make_fake(self) -> Any:
        return heartland.FakeHeartland()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return HeartlandGateway(client)

    def card_token(self) -> str:
        return "supt_visa"

    def save_token(self) -> str:
        return "supt_mastercard"
