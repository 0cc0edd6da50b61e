"""The scenario driver for braintree: how to make its fake approve, decline and save
(the shared scenarios are tests/gateways/test_contract_scenarios.py)."""

from __future__ import annotations

from typing import Any

import httpx

from payhub.adapters.gateways.braintree.adapter import BraintreeGateway
from payhub.domain.payments import GatewayCredentials
from payhub.ports import Gateway
from tests.gateways.braintree import fake as braintree
from tests.gateways.scenarios.base import Driver


class Braintree(Driver):
    name = "braintree"
    # the other families are declined by amount (2001, 2004, 2010, ...), not by nonce, and the
    # scenario charges 10.00; braintree/test_adapter.py covers them
    decline_tokens = {
        "generic_decline": "fake-processor-declined-visa-nonce",
        "fraudulent": "fake-gateway-rejected-fraud-nonce",
    }
    _fields = {"publicKey": braintree.PUBLIC_KEY, "merchantId": braintree.MERCHANT_ID}
    creds = GatewayCredentials(braintree.PRIVATE_KEY, sandbox=True, fields=_fields)
    bad_creds = GatewayCredentials("not_the_private_key_0000", sandbox=True, fields=_fields)

    def make_fake(self) -> Any:
        return braintree.FakeBraintree()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return BraintreeGateway(client)

    def card_token(self) -> str:
        return "fake-valid-visa-nonce"

    def save_token(self) -> str:
        return "fake-valid-mastercard-nonce"

    def breaks(self, request: httpx.Request) -> bool:
        return b"MerchantAccounts" not in request.content  # the currency's account, read first

    def settle(self) -> None:
        """Braintree refunds only settled sales (an unsettled one is voided)."""
        for ref, tx in self.fake.transactions.items():
            if tx["status"] in ("SUBMITTED_FOR_SETTLEMENT", "SETTLING"):
                self.fake.settle(ref)

    def charges_made(self) -> int:
        return len(self.fake.transactions)  # refunds are kept apart
