"""The scenario driver for cybersource: how to make its fake approve, decline and save
(the shared scenarios are tests/gateways/test_contract_scenarios.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx

from payhub.adapters.gateways.cybersource.adapter import CyberSourceGateway
from payhub.domain.payments import GatewayCredentials
from payhub.ports import Gateway
from tests.gateways.cybersource import fake as cybersource
from tests.gateways.scenarios.base import Driver

NOW = datetime(2026, 11, 23, 15, 0, tzinfo=UTC)


class CyberSource(Driver):
    name = "cybersource"
    _names = {
        "generic_decline": "declined",
        "insufficient_funds": "insufficient",
        "expired_card": "expired",
        "incorrect_cvc": "cvn",
        "fraudulent": "stolen",
        "processing_error": "issuer-down",
    }
    _fields = {"merchantId": cybersource.MERCHANT_ID, "keyId": cybersource.KEY_ID}
    creds = GatewayCredentials(cybersource.SECRET, sandbox=True, fields=_fields)
    bad_creds = GatewayCredentials(
        "bm90LXRoZS1zaGFyZWQtc2VjcmV0LWF0LWFsbCE=", sandbox=True, fields=_fields
    )

    def make_fake(self) -> Any:
        return cybersource.FakeCyberSource()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return CyberSourceGateway(client, now=lambda: NOW)

    def card_token(self) -> str:
        return str(self.fake.transient_token())  # a Microform JWT, usable once

    def decline_token(self, family: str) -> str | None:
        return cybersource.token(self._names[family])

    def charges_made(self) -> int:
        return len(self.fake.payments())
