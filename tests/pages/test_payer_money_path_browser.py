"""The payer's money path in a real chromium against a real ``payhub serve`` (issue 15, 9).

Typed amounts are parsed one documented way (never by dropping characters), the Pay button
shows exactly what is charged, a gateway failure can be retried at once without a second
charge, a bank debit shows its authorization and ends as "submitted", a voided invoice says
what was paid, dates follow the merchant's zone and nothing scrolls sideways at 375 px.
Screenshots go to test-artifacts/pages/money-path/ (look at them).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.pages.live import ARTIFACTS as PAGE_ARTIFACTS
from tests.pages.live import Live, pay_token_of

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = PAGE_ARTIFACTS / "money-path"  # git-ignored
LONG_NAME = "Supercalifragilisticexpialidocious-Plumbing-and-Heating-Incorporated-of-Texas"


def shot(tab: Page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    tab.screenshot(path=ARTIFACTS / f"{name}.png", full_page=True)


def fill_card(tab: Page, number: str = "4242 4242 4242 4242") -> None:
    tab.get_by_label("Card number").fill(number)
    tab.get_by_label("Expiry (MM/YY)").fill("12/34")
    tab.get_by_label("Security code").fill("123")


def charged(live: Live, ref: str) -> list[dict[str, Any]]:
    """The transactions that took or reserved money."""
    return [t for t in live.transactions(ref) if t["status"] in ("Captured", "Submitted",
                                                                  "Authorized")]  # fmt: skip


@pytest.fixture
def phone(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 375, "height": 740}, is_mobile=True)
    try:
        yield context.new_page()
    finally:
        context.close()


def no_sideways_scroll(tab: Page) -> None:
    width = tab.evaluate("document.documentElement.scrollWidth")
    wide = tab.evaluate(
        """() => Array.from(document.querySelectorAll('body *'))
             .filter(e => e.getBoundingClientRect().right > 376)
             .map(e => e.tagName + '#' + e.id + '.' + e.className).slice(0, 10)"""
    )
    assert width <= 375, f"{tab.url} is {width} px wide at 375 px: {wide}"


def test_a_typed_amount_is_refused_unless_it_is_unambiguous(live: Live, page: Page) -> None:
    ref = live.merchant()
    invoice = live.invoice(ref, live.customer(ref), partialPaymentMode="CustomerChoice")
    page.goto(invoice["payUrl"])
    page.get_by_label("Another amount").check()
    field = page.get_by_label(re.compile("Amount to pay"))
    button = page.locator("#pay-submit")
    fill_card(page)
    for typed in ("1,50", "$1,00.5", "1.505", "-5", "5 00", "1_000", "12,3456"):
        field.fill(typed)
        expect(page.locator("#pay-submit-amount")).to_have_text("")  # no amount is shown
        button.click()
        expect(page.locator("#pay-message")).to_contain_text("for example 25.00")
        expect(field).to_be_focused()
        expect(field).to_have_attribute("aria-invalid", "true")
    shot(page, "amount-refused")
    assert live.read(ref, invoice["invoiceNumber"])["amountPaid"] == 0
    assert charged(live, ref) == []

    # What the button shows is what is charged.
    for typed, shown in (("$1,000", None), ("25.5", "$25.50"), ("$5", "$5.00"), ("0", None)):
        field.fill(typed)
        if shown is None:
            expect(page.locator("#pay-submit-amount")).to_have_text("")
        else:
            expect(page.locator("#pay-submit-amount")).to_have_text(shown)
    field.fill("1,0.5")
    expect(page.locator("#pay-submit-amount")).to_have_text("")
    field.fill("10.5")
    expect(button).to_have_text("Pay $10.50")
    shot(page, "amount-button")
    button.click()
    expect(page.get_by_role("status").filter(has_text="Payment received")).to_be_visible()
    expect(page.get_by_text("$10.50 by Visa ending in 4242")).to_be_visible()
    assert live.read(ref, invoice["invoiceNumber"])["amountPaid"] == 10.5
    assert [t["amount"]["value"] for t in charged(live, ref)] == [10.5]


def test_after_a_502_the_payer_retries_at_once_and_is_charged_once(live: Live, page: Page) -> None:
    ref = live.merchant()
    invoice = live.invoice(ref, live.customer(ref))
    page.goto(invoice["payUrl"])
    fill_card(page, "4000 0000 0000 5126")  # the simulator is "unavailable" for this card
    page.locator("#pay-submit").click()
    expect(page.locator("#pay-message")).to_contain_text("did not answer")
    expect(page.locator("#pay-submit")).to_be_enabled()
    shot(page, "retry-after-502")
    fill_card(page)  # the same page, another try at once: no reload, no 409
    page.locator("#pay-submit").click()
    expect(page.get_by_role("status").filter(has_text="Payment received")).to_be_visible()
    assert live.read(ref, invoice["invoiceNumber"])["status"] == "Paid"
    assert len(charged(live, ref)) == 1


def test_after_a_504_pressing_pay_again_settles_the_same_charge(live: Live, page: Page) -> None:
    ref = live.merchant()
    invoice = live.invoice(ref, live.customer(ref))
    page.goto(invoice["payUrl"])
    fill_card(page, "4000 0000 0000 3238")  # charged, but the first answer is lost
    page.locator("#pay-submit").click()
    expect(page.locator("#pay-message")).to_contain_text("will not be charged twice")
    expect(page.locator("#pay-message")).to_contain_text("Press Pay $106.60 again")
    expect(page.locator("#pay-submit")).to_be_enabled()
    expect(page.locator("#pay-submit")).to_have_text("Pay $106.60")
    shot(page, "retry-after-504")
    page.locator("#pay-submit").click()
    expect(page.get_by_role("status").filter(has_text="Payment received")).to_be_visible()
    stored = live.read(ref, invoice["invoiceNumber"])
    assert stored["status"] == "Paid"
    assert len(stored["payments"]) == 1
    assert len(charged(live, ref)) == 1


def test_the_button_and_fields_say_a_payment_is_running(live: Live, page: Page) -> None:
    ref = live.merchant(latency_ms=2500)  # long enough to look at the page while it runs
    invoice = live.invoice(ref, live.customer(ref))
    page.goto(invoice["payUrl"])
    fill_card(page)
    page.locator("#pay-submit").click()
    expect(page.locator("#pay-submit")).to_have_text("Paying $106.60")
    expect(page.locator("#pay-submit")).to_be_disabled()
    expect(page.locator("#pay-submit")).to_have_attribute("aria-busy", "true")
    expect(page.locator("#pay-progress")).to_have_text(
        "Processing your payment of $106.60. Please keep this page open."
    )
    expect(page.get_by_label("Card number")).to_be_disabled()
    shot(page, "payment-running")
    expect(page.get_by_role("status").filter(has_text="Payment received")).to_be_visible()


def test_a_bank_debit_shows_its_authorization_and_ends_submitted(live: Live, page: Page) -> None:
    ref = live.merchant()
    live.cli("merchants", "time-zone", "--merchant", ref, "America/Chicago")
    invoice = live.invoice(ref, live.customer(ref), allowedPaymentMethods="Both")
    page.goto(invoice["payUrl"])
    authorization = page.locator("#ach-authorization")
    expect(authorization).to_be_hidden()  # card first
    page.get_by_label("Bank account (ACH)").check()
    expect(authorization).to_be_visible()
    expect(authorization).to_contain_text("I authorize Acme Plumbing to debit the bank account")
    expect(authorization).to_contain_text("$106.60")
    expect(authorization).to_contain_text("3 to 5 business days")
    expect(page.locator("#pay-submit")).to_have_text("Pay $106.60")
    page.get_by_label("Routing number").fill("110000000")
    page.get_by_label("Account number").fill("000123456789")
    # Not without the payer's authorization: the box is asked for and focused.
    page.locator("#pay-submit").click()
    expect(page.locator("#pay-message")).to_contain_text("Tick the box to authorize")
    expect(page.locator("#ach-accept")).to_be_focused()
    page.locator("#ach-accept").check()
    shot(page, "ach-authorization")
    page.locator("#pay-submit").click()
    notice = page.get_by_role("status").filter(has_text="Payment submitted")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("business days")
    # The payment's time is the merchant's (Chicago: CST or CDT), never UTC.
    expect(page.locator("table.payments")).to_contain_text(re.compile(r"[AP]M C[SD]T"))
    expect(page.locator("table.payments")).to_contain_text("Submitted (bank transfer)")
    shot(page, "ach-submitted")


def test_a_voided_invoice_says_what_was_paid(live: Live, page: Page) -> None:
    ref = live.merchant()
    invoice = live.invoice(
        ref, live.customer(ref), partialPaymentMode="FixedDeposit", requiredDepositAmount=30
    )
    page.goto(invoice["payUrl"])
    fill_card(page)
    page.locator("#pay-submit").click()
    expect(page.get_by_text("$76.60 is still due")).to_be_visible()
    live.ok(live.api.post(f"/api/merchant-accounts/{ref}/invoices/{invoice['invoiceNumber']}/void"))
    page.goto(invoice["payUrl"])
    state = page.locator(".notice.state")
    expect(state).to_contain_text("cancelled by the merchant")
    expect(state).to_contain_text("$30.00 was paid on it")
    expect(page.locator("#pay-form")).to_have_count(0)
    shot(page, "void-with-payments")


def test_no_page_scrolls_sideways_at_375_px_whatever_the_name(live: Live, phone: Page) -> None:
    ref = live.merchant(LONG_NAME)
    customer = live.customer(ref)
    invoice = live.invoice(
        ref,
        customer,
        allowedPaymentMethods="Both",
        lineItems=[{"description": "Replacement-of-the-thermostatic-mixing-valve-" * 3,
                    "quantity": 1, "unitPrice": 1234567.89}],
    )  # fmt: skip
    phone.goto(invoice["payUrl"])
    expect(phone.locator(".merchant")).to_have_text(LONG_NAME)
    no_sideways_scroll(phone)
    phone.get_by_label("Bank account (ACH)").check()
    no_sideways_scroll(phone)
    shot(phone, "phone-long-name-pay")
    phone.goto(f"{live.base}/pay/{pay_token_of(invoice)}/receipt")
    no_sideways_scroll(phone)
    shot(phone, "phone-long-name-receipt")
    made = live.ok(
        live.api.post(
            f"/api/merchant-accounts/{ref}/customers/{customer}/schedule-requests",
            json={"gateway": "simulator", "startAtUtc": "2030-03-15T15:00:00Z",
                  "cadence": "Monthly", "maxCharges": 3, "amount": 49.99,
                  "description": "Lawn-care-for-the-whole-season-" * 4},
        ),
        201,
    )  # fmt: skip
    phone.goto(made["approvalUrl"])
    no_sideways_scroll(phone)
    shot(phone, "phone-long-name-approve")
    live.ok(live.api.post(f"/api/merchant-accounts/{ref}/invoices/{invoice['invoiceNumber']}/void"))
    phone.goto(invoice["payUrl"])
    no_sideways_scroll(phone)
    shot(phone, "phone-long-name-void")
