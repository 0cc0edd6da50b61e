"""The scenario driver for stripe: how to make its fake approve, decline and save
(the shared scenarios are tests/gateways/test_contract_scenarios.py)."""

from __future__ import annotations

from typing import Any

import httpx

from payhub.adapters.gateways.stripe.adapter import StripeGateway
from payhub.domain.payments import GatewayCredentials
from payhub.ports import Gateway
from tests.gateways.scenarios.base import Driver
from tests.gateways.stripe import fake as stripe


class Stripe(Driver):
    name = "stripe"
    decline_tokens = {
        "generic_decline": "pm_card_visa_chargeDeclined",
        "insufficient_funds": "pm_card_visa_chargeDeclinedInsufficientFunds",
        "expired_card": "pm_card_chargeDeclinedExpiredCard",
        "incorrect_cvc": "pm_card_chargeDeclinedIncorrectCvc",
        "fraudulent": "pm_card_chargeDeclinedFraudulent",
        "processing_error": "pm_card_chargeDeclinedProcessingError",
    }
    creds = GatewayCredentials(api_secret=stripe.TEST_KEY, sandbox=True)
    bad_creds = GatewayCredentials(api_secret="sk_test_not_the_key_0000", sandbox=True)

    def make_fake(self) -> Any:
        return stripe.FakeStripe()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return StripeGateway(client)

    def card_token(self) -> str:
        return str(self.fake.add_card())

    def save_token(self) -> str:
        return str(self.fake.add_card("mastercard", "4444"))

    def charges_made(self) -> int:
        return len(self.fake.payment_intents)
