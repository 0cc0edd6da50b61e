"""The scenario driver for square: how to make its fake approve, decline and save
(the shared scenarios are tests/gateways/test_contract_scenarios.py)."""

from __future__ import annotations

from typing import Any

import httpx

from payhub.adapters.gateways.square.adapter import SquareGateway
from payhub.domain.payments import GatewayCredentials
from payhub.ports import Gateway
from tests.gateways.scenarios.base import Driver
from tests.gateways.square import fake as square


class Square(Driver):
    name = "square"
    decline_tokens = {
        "generic_decline": "cnon:card-nonce-declined",
        "insufficient_funds": "cnon:card-nonce-insufficient-funds",
        "expired_card": "cnon:card-nonce-rejected-expiration",
        "incorrect_cvc": "cnon:card-nonce-rejected-cvv",
    }
    _fields = {"locationId": square.LOCATION_ID}
    creds = GatewayCredentials(square.ACCESS_TOKEN, sandbox=True, fields=_fields)
    bad_creds = GatewayCredentials("EAAAEnotTheAccessToken000000000", sandbox=True, fields=_fields)
    _pending_refund = (
        "Square answers RefundPayment PENDING and finishes it later (square/test_adapter.py covers"
        " PENDING -> COMPLETED); the scenario expects a finished refund"
    )
    skips = {
        "test_authorize_then_capture_in_full_then_refund": _pending_refund,
        "test_a_sale_is_refunded_in_part_then_in_the_rest": _pending_refund,
    }

    def make_fake(self) -> Any:
        return square.FakeSquare()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return SquareGateway(client)

    def card_token(self) -> str:
        return str(self.fake.card_nonce())

    def charges_made(self) -> int:
        return len(self.fake.payments)
