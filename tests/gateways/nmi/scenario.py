"""The scenario driver for nmi: how to make its fake approve, decline and save
(the shared scenarios are tests/gateways/test_contract_scenarios.py)."""

from __future__ import annotations

from typing import Any

import httpx

from payhub.adapters.gateways.nmi.adapter import NmiGateway
from payhub.domain.payments import GatewayCredentials
from payhub.ports import Gateway
from tests.gateways.nmi import fake as nmi
from tests.gateways.scenarios.base import Driver


class Nmi(Driver):
    name = "nmi"
    decline_tokens = {
        "generic_decline": "tok_decline",
        "insufficient_funds": "tok_insufficient",
        "expired_card": "tok_expired",
        "incorrect_cvc": "tok_cvv",
        "fraudulent": "tok_stolen",
        "processing_error": "tok_processor_error",
    }

    def make_fake(self) -> Any:
        return nmi.FakeNmi()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return NmiGateway(client)

    creds = GatewayCredentials(api_secret=nmi.SECURITY_KEY, sandbox=True)
    bad_creds = GatewayCredentials(api_secret="not-the-security-key", sandbox=True)

    def card_token(self) -> str:
        return "tok_visa"

    def save_token(self) -> str:
        return "tok_mastercard"
