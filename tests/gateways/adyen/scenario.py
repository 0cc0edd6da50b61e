"""The scenario driver for adyen: how to make its fake approve, decline and save
(the shared scenarios are tests/gateways/test_contract_scenarios.py)."""

from __future__ import annotations

from typing import Any

import httpx

from payhub.adapters.gateways.adyen.adapter import AdyenGateway
from payhub.domain.payments import GatewayCredentials
from payhub.ports import Gateway
from tests.gateways.adyen import fake as adyen
from tests.gateways.scenarios.base import Driver


class Adyen(Driver):
    name = "adyen"
    _holders = {  # the test card's holder name chooses the refusal
        "generic_decline": "DECLINED",
        "insufficient_funds": "NOT_ENOUGH_BALANCE",
        "expired_card": "EXPIRED",
        "incorrect_cvc": "CVC_DECLINED",
        "fraudulent": "FRAUD",
        "processing_error": "ACQUIRER_ERROR",
    }
    _fields = {"merchantAccount": adyen.MERCHANT}
    creds = GatewayCredentials(adyen.API_KEY, sandbox=True, fields=_fields)
    bad_creds = GatewayCredentials("AQEwrongAdyenKey4321", sandbox=True, fields=_fields)
    _no_status = (
        "Adyen has no API to look a payment up (the adapter says so; webhooks carry outcomes),"
        " and the scenario reads the payment back"
    )
    _received = (
        "Adyen answers captures and refunds 201 'received' (PENDING) and reports the outcome by"
        " webhook; the scenario expects a finished operation"
    )
    _cancel = (
        "Adyen answers a cancel 201 'received' (PENDING) and has no API to read the payment"
        " back; the scenario expects VOIDED from both"
    )
    skips = {
        "test_an_approved_sale_is_captured_and_reads_back": _no_status,
        "test_a_void_releases_an_authorization": _cancel,
        "test_authorize_then_capture_in_full_then_refund": _received,
        "test_a_partial_capture_takes_only_that_amount": _received,
        "test_a_sale_is_refunded_in_part_then_in_the_rest": _received,
    }

    def make_fake(self) -> Any:
        return adyen.FakeAdyen()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return AdyenGateway(client)

    def card_token(self) -> str:
        return str(self.fake.encrypted_card())  # Web Components' encrypted fields

    def save_token(self) -> str:
        return str(self.fake.encrypted_card("5555444433331111"))

    def decline_token(self, family: str) -> str | None:
        return str(self.fake.encrypted_card(holder=self._holders[family]))

    def charges_made(self) -> int:
        return len(self.fake.payments)
