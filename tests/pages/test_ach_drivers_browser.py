"""Paying invoices by bank account (ACH) in chromium through the gateways' own bank flows.

Same wiring as ``test_gateway_fields_browser.py`` (the app in this process behind playwright
routing, the adapters talking to the fake gateway APIs, fake vendor SDKs from
``fake_vendors/`` served on the vendors' hosts, so the page's CSP is really enforced and any
``securitypolicyviolation`` fails the test). Each test pays a deposit and then the balance by
bank, after a failure, with the payer's debit authorization ticked, and checks that no account
or routing number ever reached payhub.
"""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qs

import pytest
from litestar import Litestar
from litestar.testing import TestClient
from playwright.sync_api import Page, Route

from tests.conftest import Account
from tests.gateways.stripe.fake import TEST_KEY, FakeStripe
from tests.pages.support import Shop

# The shared fixtures: the app in this process with every card test's fake gateway API.
from tests.pages.test_gateway_fields_browser import (  # noqa: F401
    ORIGIN,
    PK,
    STRIPE,
    Vendor,
    Wire,
    anet,
    answer,
    braintree,
    cko,
    clover,
    hub,
    nmi,
    press_pay,
    serve,
    site,
    square,
    stripe,
    tab,
    token_of_number,
    usaepay,
)

pytestmark = pytest.mark.browser


# Stripe's test PaymentMethods for the accounts the fake Financial Connections frame links.
STRIPE_BANKS = {"fca_success": "pm_usBankAccount_success",
                "fca_microdeposits": "pm_fake_usBankAccount_unverified"}  # fmt: skip


def stripe_payment_methods(route: Route) -> None:
    """Stripe's POST /v1/payment_methods as Stripe.js calls it: a card (the card tests' own
    handler) or a us_bank_account from a Financial Connections account."""
    form = parse_qs(route.request.post_data or "")
    if form.get("type") == ["us_bank_account"]:
        found = STRIPE_BANKS.get(form.get("financial_connections_account", [""])[0])
        if found is None:
            error = {"type": "invalid_request_error", "message": "No such account"}
            answer(route, 400, {"error": error})
            return
        answer(route, 200, {"id": found, "object": "payment_method", "type": "us_bank_account",
                            "us_bank_account": {"last4": "6789"}})  # fmt: skip
        return
    STRIPE["https://api.stripe.com/v1/payment_methods"](route)


STRIPE_BANK: dict[str, Vendor] = {
    **STRIPE,
    "https://js.stripe.com/v3/elements-inner-payment.html": serve("stripe-payment-frame.html",
                                                                  "text/html"),
    "https://api.stripe.com/v1/payment_methods": stripe_payment_methods,
}  # fmt: skip

NUMBERS = re.compile(r"\b(?:110000000|000123456789|6789\d+)\b")


def deposit_invoice(shop: Shop, gateway: str, secret: str, fields: dict[str, str]) -> str:
    body = {"apiSecret": secret, "environment": "Sandbox", "additionalFields": fields}
    shop.ok(shop.client.put(f"{shop.base}/credentials/{gateway}", headers=shop.headers, json=body))
    made = shop.invoice(gateway=gateway, allowedPaymentMethods="Both",
                        partialPaymentMode="FixedDeposit", requiredDepositAmount=30)  # fmt: skip
    return str(made["payUrl"]).rsplit("/", 1)[-1]


def choose_bank(on: Page) -> None:
    on.get_by_label("Bank account (ACH)").check()
    on.locator("#ach-authorization").wait_for()


def expect_error(on: Page, text: str) -> None:
    on.wait_for_selector("#pay-message.error", timeout=15_000)
    message = on.inner_text("#pay-message")
    assert text in message, message


def test_pay_a_deposit_and_the_balance_by_bank_through_stripe_financial_connections(
    tab: Page, site: TestClient[Litestar], sandbox_provider: Account, stripe: FakeStripe,  # noqa: F811
) -> None:  # fmt: skip
    shop = Shop(site, sandbox_provider)
    token = deposit_invoice(shop, "stripe", TEST_KEY, {"publishableKey": PK})
    wire = Wire(tab, site, STRIPE_BANK)
    tab.goto(f"{ORIGIN}/pay/{token}")
    choose_bank(tab)
    bank = tab.frame_locator("#bank-stripe-bank iframe")
    bank.locator("input").first.wait_for()
    # No debit without the payer's authorization; none without a linked account either.
    press_pay(tab)
    expect_error(tab, "Tick the box to authorize the bank debit")
    tab.locator("#ach-accept").check()
    press_pay(tab)
    expect_error(tab, "Link your bank account")
    # An account waiting for micro-deposits cannot be debited: the page says so, nothing moves.
    bank.get_by_label(re.compile("Enter details manually")).check()
    press_pay(tab)
    expect_error(tab, "cannot be used")
    number = token_of_number(shop)
    assert shop.read(number)["amountPaid"] == 0
    # The deposit, then (after the page reloads) the balance, both by the linked account.
    bank.get_by_label(re.compile("ending 6789")).check()
    press_pay(tab)
    tab.wait_for_selector("#paid-notice", timeout=15_000)
    assert "Payment submitted" in tab.inner_text("#paid-notice")
    assert "$30.00" in tab.inner_text("#paid-notice")
    choose_bank(tab)
    bank = tab.frame_locator("#bank-stripe-bank iframe")
    bank.get_by_label(re.compile("ending 6789")).check()
    tab.locator("#ach-accept").check()
    assert "$76.60" in tab.inner_text("#ach-authorization")
    press_pay(tab)
    # The page reloads with the new payment's notice (the deposit's, saying "$76.60 is still
    # due", was there before).
    tab.wait_for_selector("#paid-notice:has-text('Nothing is left to pay')", timeout=15_000)
    assert "Payment submitted" in tab.inner_text("#paid-notice")
    stored = shop.read(number)
    assert stored["status"] == "Paid"
    assert [(p["amount"], p["type"], p["status"]) for p in stored["payments"]] == [
        (30, "BankAccount", "Submitted"),
        (76.6, "BankAccount", "Submitted"),
    ]
    intents = [parse_qs(r.content.decode()) for r in stripe.posts("/v1/payment_intents")]
    # The unverified account's debit (cancelled by the adapter), then the two that went out.
    assert [i["amount"] for i in intents] == [["3000"], ["3000"], ["7660"]]
    debits = intents
    agent = tab.evaluate("navigator.userAgent")
    for sent in debits:
        assert sent["payment_method_types[]"] == ["us_bank_account"]
        assert sent["mandate_data[customer_acceptance][type]"] == ["online"]
        assert sent["mandate_data[customer_acceptance][online][user_agent]"] == [agent]
    assert stripe.violations == []
    posted = [json.loads(b.split(" ", 1)[1]) for b in wire.to_payhub if b.split(" ", 1)[1]
              .startswith("{") and "/payments" in b.split(" ", 1)[0]]  # fmt: skip
    assert {p["methodType"] for p in posted} == {"BankAccount"}
    assert all(p["debitAuthorization"] is True for p in posted)
    assert not any(NUMBERS.search(b) for b in wire.to_payhub)
    assert wire.stray == []
    assert wire.csp_violations == []
