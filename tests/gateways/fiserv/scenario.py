"""The scenario driver for fiserv: how to make its fake approve, decline and save
(the shared scenarios are tests/gateways/test_contract_scenarios.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx

from payhub.adapters.gateways.fiserv.adapter import FiservGateway
from payhub.domain.payments import GatewayCredentials
from payhub.ports import Gateway
from tests.gateways.fiserv import fake as fiserv
from tests.gateways.scenarios.base import Driver

NOW = datetime(2026, 11, 23, 15, 0, tzinfo=UTC)


class Fiserv(Driver):
    name = "fiserv"
    decline_tokens = {
        "generic_decline": "session-decline-05",
        "insufficient_funds": "session-decline-51",
        "expired_card": "session-decline-54",
        "incorrect_cvc": "session-decline-N7",
        "fraudulent": "session-decline-43",
        "processing_error": "session-decline-96",
    }
    _fields = {
        "apiKey": fiserv.API_KEY,
        "merchantId": fiserv.MERCHANT_ID,
        "terminalId": fiserv.TERMINAL_ID,
    }
    creds = GatewayCredentials(fiserv.API_SECRET, sandbox=True, fields=_fields)
    bad_creds = GatewayCredentials("not-the-api-secret", sandbox=True, fields=_fields)

    def make_fake(self) -> Any:
        return fiserv.FakeFiserv()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return FiservGateway(client, now=lambda: NOW)

    def card_token(self) -> str:
        return str(self.fake.session())

    def charges_made(self) -> int:
        return sum(1 for t in self.fake.transactions.values() if t.get("type") == "CHARGE")
