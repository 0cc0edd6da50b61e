"""The scenario driver for checkout-com: how to make its fake approve, decline and save
(the shared scenarios are tests/gateways/test_contract_scenarios.py)."""

from __future__ import annotations

from typing import Any

import httpx

from payhub.adapters.gateways.checkout_com.adapter import CheckoutComGateway
from payhub.domain.payments import GatewayCredentials
from payhub.ports import Gateway
from tests.gateways.checkout_com import fake as checkout_com
from tests.gateways.scenarios.base import Driver


class CheckoutCom(Driver):
    name = "checkout-com"
    creds = GatewayCredentials(
        checkout_com.SANDBOX_KEY, sandbox=True, fields={"processingChannelId": "pc_1"}
    )
    bad_creds = GatewayCredentials(
        "sk_sbox_not_the_key_9876", sandbox=True, fields={"processingChannelId": "pc_1"}
    )
    _async = (
        "Checkout.com answers a capture:true payment Authorized and captures, refunds and voids"
        " 202 (PENDING) until it finishes them (checkout_com/test_adapter.py plays the"
        " settling); the scenario expects a finished operation at once"
    )
    skips = {
        "test_each_decline_family_is_declined_with_its_code": (
            "the sandbox declines by amount (fake DECLINES), not by card, and the scenario"
            " charges 10.00; checkout_com/test_adapter.py::test_declines covers every family"
        ),
        "test_an_approved_sale_is_captured_and_reads_back": _async,
        "test_authorize_then_capture_in_full_then_refund": _async,
        "test_a_partial_capture_takes_only_that_amount": _async,
        "test_a_sale_is_refunded_in_part_then_in_the_rest": _async,
        "test_a_void_releases_an_authorization": _async,
        "test_a_vaulted_card_is_charged_again": _async,
        "test_a_charge_whose_answer_was_lost_is_found_and_never_made_twice": _async,
    }

    def make_fake(self) -> Any:
        return checkout_com.FakeCheckoutCom()

    def make_gateway(self, client: httpx.Client) -> Gateway:
        return CheckoutComGateway(client)

    def card_token(self) -> str:
        return str(self.fake.token())

    def settle(self) -> None:
        self.fake.settle()

    def charges_made(self) -> int:
        return len(self.fake.payments)
