"""The scenario driver for paytrace: how to make its fake approve, decline and save
(the shared scenarios are tests/gateways/test_contract_scenarios.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx

from payhub.adapters.gateways.paytrace.adapter import PayTraceGateway
from payhub.domain.payments import GatewayCredentials
from payhub.ports import Gateway
from tests.gateways.paytrace import fake as paytrace
from tests.gateways.scenarios.base import Driver

NOW = datetime(2026, 11, 23, 15, 0, tzinfo=UTC)


class PayTrace(Driver):
    name = "paytrace"
    _fields = {"username": paytrace.USERNAME, "integratorId": paytrace.INTEGRATOR_ID}
    creds = GatewayCredentials(api_secret=paytrace.PASSWORD, sandbox=True, fields=_fields)
    bad_creds = GatewayCredentials(api_secret="not-the-password", sandbox=True, fields=_fields)
    decline_tokens = {
        "generic_decline": "hpf_decline|enc_key_abc==",
        "insufficient_funds": "hpf_insufficient|enc_key_abc==",
        "expired_card": "hpf_expired|enc_key_abc==",
        "incorrect_cvc": "hpf_cvv|enc_key_abc==",
        "fraudulent": "hpf_stolen|enc_key_abc==",
        "processing_error": "hpf_processor|enc_key_abc==",
    }

    def make_fake(self) -> Any:
        return paytrace.FakePayTrace()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return PayTraceGateway(client, today=lambda: NOW)

    def card_token(self) -> str:
        return "hpf_visa|enc_key_abc=="

    def save_token(self) -> str:
        return "hpf_mastercard|enc_key_abc=="

    def breaks(self, request: httpx.Request) -> bool:
        return request.url.path != "/oauth/token"  # the access token is not the operation
