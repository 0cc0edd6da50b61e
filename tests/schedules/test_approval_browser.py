"""The schedule approval page in a real chromium against a real ``payhub serve`` process.

Everything is created over HTTP as a provider's software would (merchant, simulator
credentials, customer, invoice, schedule request); the customer opens the approval link, types
a test card into the simulator's hosted fields and approves. The outcome is then read back
through the API: the request is Approved and a scheduled payment exists with the saved method.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.pages.live import ARTIFACTS as PAGE_ARTIFACTS
from tests.pages.live import Live, serve_public, start

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = PAGE_ARTIFACTS.parent / "schedules"  # git-ignored
# 15:00 UTC on Friday 15 March 2030 is 10:00 in Chicago (daylight time since 10 March).
START = "2030-03-15T15:00:00Z"


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    tmp = tmp_path_factory.mktemp("approve")
    db_url, key = start(tmp)
    with serve_public(db_url, tmp) as base:
        server = Live(base, db_url, tmp, key)
        yield server
        server.api.close()


def shop(live: Live) -> tuple[str, str]:
    """A merchant in Chicago with simulator credentials and one customer."""
    ref = live.merchant("Acme Lawn Care")
    live.cli("merchants", "time-zone", "--merchant", ref, "America/Chicago")
    return ref, live.customer(ref)


def customer_request(live: Live, ref: str, customer_id: str, **extra: Any) -> dict[str, Any]:
    body = {"gateway": "simulator", "startAtUtc": START, "cadence": "Monthly",
            "maxCharges": 12, "amount": 49.99, "description": "Lawn care", **extra}  # fmt: skip
    made: dict[str, Any] = live.ok(
        live.api.post(f"/api/merchant-accounts/{ref}/customers/{customer_id}/schedule-requests",
                      json=body),
        201,
    )  # fmt: skip
    return made


def api(live: Live, ref: str, path: str) -> Any:
    return live.ok(live.api.get(f"/api/merchant-accounts/{ref}{path}"))


def fill_card(tab: Page, number: str = "4242 4242 4242 4242") -> None:
    tab.get_by_label("Card number").fill(number)
    tab.get_by_label("Expiry (MM/YY)").fill("12/34")
    tab.get_by_label("Security code").fill("123")


def assert_inputs_labelled(tab: Page) -> None:
    """Every input a person can see has a label that names it."""
    unlabelled = tab.evaluate(
        """() => Array.from(document.querySelectorAll('input:not([type=hidden])'))
             .filter(i => !(i.labels && i.labels.length && i.labels[0].textContent.trim()))
             .map(i => i.id || i.outerHTML)"""
    )
    assert unlabelled == []


def test_approve_a_monthly_schedule_with_a_card(live: Live, page: Page, browser: Browser) -> None:
    ref, customer_id = shop(live)
    made = customer_request(live, ref, customer_id)
    assert made["status"] == "Pending"
    page.goto(made["approvalUrl"])
    expect(page.get_by_role("heading", name="Approve a payment schedule")).to_be_visible()
    expect(page.locator("#amount")).to_have_text("$49.99 each time")
    expect(page.locator("#cadence")).to_contain_text("Every month")
    expect(page.locator("#first-date")).to_have_text("Friday, March 15, 2030, 10:00 AM CDT")
    expect(page.get_by_text("after 12 payments")).to_be_visible()
    expect(page.get_by_text("Times are shown in America/Chicago")).to_be_visible()
    assert_inputs_labelled(page)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=ARTIFACTS / "approve-desktop.png", full_page=True)
    phone = browser.new_context(viewport={"width": 375, "height": 740}, is_mobile=True)
    try:
        small = phone.new_page()
        small.goto(made["approvalUrl"])
        expect(small.get_by_label("Card number")).to_be_visible()
        # Nothing overflows sideways on a phone: the page is as wide as the screen.
        assert small.evaluate("document.documentElement.scrollWidth") <= 375
        small.screenshot(path=ARTIFACTS / "approve-phone.png", full_page=True)
    finally:
        phone.close()
    print(f"\nscreenshots: {ARTIFACTS}")  # where to find them for review

    # A wrong number is caught in the page and nothing is posted.
    fill_card(page, "4242 4242 4242 4241")
    page.get_by_role("button", name="Approve schedule").click()
    expect(page.get_by_role("alert")).to_contain_text("valid card number")
    assert api(live, ref, f"/schedule-requests/{made['scheduleRequestId']}")["status"] == "Pending"

    fill_card(page)
    page.get_by_role("button", name="Approve schedule").click()
    expect(page.get_by_role("heading", name="Schedule approved")).to_be_visible()
    expect(page.locator("#request-status")).to_contain_text("Approved")
    expect(page.locator("#approve-form")).to_have_count(0)

    stored = api(live, ref, f"/schedule-requests/{made['scheduleRequestId']}")
    assert stored["status"] == "Approved"
    schedule = api(live, ref, f"/scheduled-payments/{stored['scheduledPaymentId']}")
    methods = api(live, ref, f"/customers/{customer_id}/payment-methods")["data"]
    assert [m["paymentMethodId"] for m in methods] == [schedule["paymentMethodId"]]
    assert (schedule["status"], schedule["cadence"], schedule["amount"]) == (
        "Active",
        "Monthly",
        49.99,
    )
    assert (schedule["customerId"], schedule["type"]) == (customer_id, "Card")
    assert schedule["nextRunAtUtc"].startswith("2030-03-15T15:00:00")
    assert schedule["chargeCount"] == 0  # approving charges nothing; the worker does, later


def test_approve_an_invoice_installment_plan_by_keyboard(live: Live, page: Page) -> None:
    ref, customer_id = shop(live)
    invoice = live.invoice(ref, customer_id)
    number = invoice["invoiceNumber"]
    made: dict[str, Any] = live.ok(
        live.api.post(f"/api/merchant-accounts/{ref}/invoices/{number}/schedule-requests",
                      json={"startAtUtc": START, "cadence": "Monthly", "amount": 40}),
        201,
    )  # fmt: skip
    page.goto(made["approvalUrl"])
    expect(page.locator("#amount")).to_have_text("$40.00 each time")
    expect(page.locator("#first-date")).to_have_text("Friday, March 15, 2030, 10:00 AM CDT")
    expect(page.get_by_text(number, exact=True)).to_be_visible()
    assert_inputs_labelled(page)

    # Keyboard only: the card fields and then the button come in tab order.
    page.get_by_label("Card number").focus()
    page.keyboard.type("4242424242424242")
    page.keyboard.press("Tab")
    page.keyboard.type("12/34")
    page.keyboard.press("Tab")
    page.keyboard.type("123")
    for _ in range(5):  # the button is the next stop, at most a few (links) away
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "approve-button":
            break
    assert page.evaluate("document.activeElement.id") == "approve-button"
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Schedule approved")).to_be_visible()

    stored = api(live, ref, f"/schedule-requests/{made['scheduleRequestId']}")
    assert stored["status"] == "Approved"
    schedule = api(live, ref, f"/scheduled-payments/{stored['scheduledPaymentId']}")
    assert (schedule["invoiceNumber"], schedule["amount"], schedule["status"]) == (
        number, 40, "Active",
    )  # fmt: skip
    methods = api(live, ref, f"/customers/{customer_id}/payment-methods")["data"]
    assert [m["paymentMethodId"] for m in methods] == [schedule["paymentMethodId"]]


def test_a_cancelled_request_shows_its_state_and_no_form(live: Live, page: Page) -> None:
    ref, customer_id = shop(live)
    made = customer_request(live, ref, customer_id)
    path = f"/api/merchant-accounts/{ref}/schedule-requests/{made['scheduleRequestId']}/cancel"
    assert live.ok(live.api.post(path))["status"] == "Cancelled"
    page.goto(made["approvalUrl"])
    expect(page.get_by_role("heading", name="This request was withdrawn")).to_be_visible()
    expect(page.locator("#request-status")).to_contain_text("Cancelled")
    expect(page.get_by_text("Nothing will be charged")).to_be_visible()
    expect(page.locator("form")).to_have_count(0)
    expect(page.get_by_label("Card number")).to_have_count(0)
    assert api(live, ref, "/scheduled-payments")["data"] == []


def test_an_approved_request_cannot_be_approved_again_from_a_second_tab(
    live: Live,
    browser: Browser,
) -> None:
    ref, customer_id = shop(live)
    made = customer_request(live, ref, customer_id)
    context = browser.new_context()
    try:
        first, second = context.new_page(), context.new_page()
        first.goto(made["approvalUrl"])
        second.goto(made["approvalUrl"])
        fill_card(first)
        first.get_by_role("button", name="Approve schedule").click()
        expect(first.get_by_role("heading", name="Schedule approved")).to_be_visible()

        fill_card(second, "5555 5555 5555 4444")
        with second.expect_response(re.compile(r"/approve/")) as posted:
            second.get_by_role("button", name="Approve schedule").click()
        assert posted.value.status == 409
        expect(second.get_by_role("alert")).to_contain_text("already approved")
        expect(second.get_by_role("alert")).to_contain_text("was not saved")
        expect(second.locator("#approve-form")).to_have_count(0)
    finally:
        context.close()
    stored = api(live, ref, f"/schedule-requests/{made['scheduleRequestId']}")
    assert stored["status"] == "Approved"
    schedules = api(live, ref, "/scheduled-payments")["data"]
    assert [s["scheduledPaymentId"] for s in schedules] == [stored["scheduledPaymentId"]]
    # Only the first tab's card was saved.
    assert len(api(live, ref, f"/customers/{customer_id}/payment-methods")["data"]) == 1
