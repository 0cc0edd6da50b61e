"""The scenario driver for global-payments: how to make its fake approve, decline and save
(the shared scenarios are tests/gateways/test_contract_scenarios.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx

from payhub.adapters.gateways.global_payments.adapter import GlobalPaymentsGateway
from payhub.domain.payments import GatewayCredentials
from payhub.ports import Gateway
from tests.gateways.global_payments import fake as global_payments
from tests.gateways.scenarios.base import Driver

NOW = datetime(2026, 11, 23, 15, 0, tzinfo=UTC)


class GlobalPayments(Driver):
    name = "global-payments"
    decline_tokens = {  # PMT_decline_<payment_method.result>
        "generic_decline": "PMT_decline_05",
        "insufficient_funds": "PMT_decline_51",
        "expired_card": "PMT_decline_54",
        "incorrect_cvc": "PMT_decline_N7",
        "fraudulent": "PMT_decline_43",
        "processing_error": "PMT_decline_91",
    }
    _fields = {"appId": global_payments.APP_ID}
    creds = GatewayCredentials(global_payments.APP_KEY, sandbox=True, fields=_fields)
    bad_creds = GatewayCredentials("notTheAppKey", sandbox=True, fields=_fields)

    def make_fake(self) -> Any:
        return global_payments.FakeGlobalPayments()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return GlobalPaymentsGateway(client, now=lambda: NOW)

    def card_token(self) -> str:
        return str(self.fake.single_use_token())  # what globalpayments.js hands out

    def breaks(self, request: httpx.Request) -> bool:
        return request.url.path != "/ucp/accesstoken"  # the access token is not the operation

    def settle(self) -> None:
        self.fake.batch()

    def charges_made(self) -> int:
        return sum(1 for t in self.fake.transactions.values() if t["type"] == "SALE")
