"""The pay page in a real chromium against a real ``payhub serve`` process.

The sandbox simulator's hosted fields turn test card numbers into tokens in the page; the
tests type the numbers into those fields exactly as a payer would and then check the invoice
through the API. The embedding tests serve a merchant's page at ``https://shop.example``
through playwright's request interception (no network, no certificate): that page frames the
real server's embed page, whose CSP and messages are the server's own.
"""

from __future__ import annotations

import concurrent.futures
import json
import re
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, Route, expect

from tests.pages.live import ARTIFACTS, Live, pay_token_of

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ALLOWED = "https://shop.example"
FOREIGN = "https://evil.example"


def fill_card(frame: Any, number: str = "4242 4242 4242 4242") -> None:
    frame.get_by_label("Card number").fill(number)
    frame.get_by_label("Expiry (MM/YY)").fill("12/34")
    frame.get_by_label("Security code").fill("123")


def test_pay_an_invoice_in_full(live: Live, page: Page, browser: Browser) -> None:
    ref = live.merchant()
    invoice = live.invoice(ref, live.customer(ref), dueDate="2025-12-31")
    page.goto(invoice["payUrl"])
    expect(page.get_by_role("heading", name=re.compile(invoice["invoiceNumber"]))).to_be_visible()
    expect(page.locator("#pay-submit")).to_contain_text("$106.60")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=ARTIFACTS / "pay-page-desktop.png", full_page=True)
    phone = browser.new_context(viewport={"width": 375, "height": 740}, is_mobile=True)
    try:
        small = phone.new_page()
        small.goto(invoice["payUrl"])
        # Nothing overflows sideways on a phone: the page is as wide as the screen.
        width = small.evaluate("document.documentElement.scrollWidth")
        assert width <= 375
        small.screenshot(path=ARTIFACTS / "pay-page-phone.png", full_page=True)
    finally:
        phone.close()
    print(f"\nscreenshots: {ARTIFACTS}")  # where to find them for review

    fill_card(page)
    page.get_by_role("button", name=re.compile(r"^Pay")).click()
    expect(page.get_by_role("status").filter(has_text="Payment received")).to_be_visible()
    expect(page.locator("#pay-form")).to_have_count(0)
    expect(page.get_by_text("paid in full")).to_be_visible()
    stored = live.read(ref, invoice["invoiceNumber"])
    assert stored["status"] == "Paid"
    assert [p["amount"] for p in stored["payments"]] == [106.6]
    # The receipt is linked and its PDF downloads.
    page.get_by_role("link", name="View your receipt").click()
    expect(page.get_by_role("heading", name=re.compile("Receipt for invoice"))).to_be_visible()
    pdf = httpx.get(f"{live.base}/pay/{pay_token_of(invoice)}/receipt.pdf")
    assert pdf.headers["content-type"] == "application/pdf"


def test_pay_a_deposit_and_then_the_rest_and_opt_in_to_texts(live: Live, page: Page) -> None:
    ref = live.merchant()
    customer = live.customer(ref)
    invoice = live.invoice(
        ref, customer, partialPaymentMode="FixedDeposit", requiredDepositAmount=30
    )
    page.goto(invoice["payUrl"])
    expect(page.get_by_label(re.compile("Deposit"))).to_be_checked()
    expect(page.locator("#pay-submit")).to_contain_text("$30.00")
    fill_card(page)
    page.locator("#pay-submit").click()
    expect(page.get_by_role("status").filter(has_text="Payment received")).to_be_visible()
    expect(page.get_by_text("$76.60 is still due")).to_be_visible()
    assert live.read(ref, invoice["invoiceNumber"])["amountPaid"] == 30

    # SMS consent: offered after the payment, unticked; saving without ticking does nothing.
    box = page.get_by_label(re.compile("Yes, text me"))
    expect(box).not_to_be_checked()
    # The customer's number is offered masked and chosen; another one is optional.
    expect(page.get_by_label(re.compile("Use this number"))).to_be_checked()
    expect(page.locator("#sms-form")).to_contain_text("•••-•••-2671")
    assert "555-2671" not in page.content()
    expect(page.get_by_label("Other mobile number (US)")).to_be_disabled()
    page.get_by_label("Another US mobile number").check()
    expect(page.get_by_label("Other mobile number (US)")).to_be_focused()
    page.get_by_label(re.compile("Use this number")).check()
    page.get_by_role("button", name="Save my choice").click()
    expect(page.locator("#sms-message")).to_contain_text("Tick the box")
    box.check()
    page.get_by_role("button", name="Save my choice").click()
    expect(page.get_by_text("Texts will go to •••-•••-2671")).to_be_visible()
    consent = live.api.get(f"/api/merchant-accounts/{ref}/customers/{customer}/sms-consent")
    assert consent.json()["consent"] is True
    assert consent.json()["source"] == "PayPage"
    assert consent.json()["phone"] == "+14155552671"

    # Now only the balance can be paid, by bank account this time.
    expect(page.get_by_label(re.compile("Deposit"))).to_have_count(0)
    expect(page.locator("#pay-submit")).to_contain_text("$76.60")
    page.get_by_label("Bank account (ACH)").check()
    page.get_by_label("Routing number").fill("110000000")
    page.get_by_label("Account number").fill("000123456789")
    page.locator("#ach-accept").check()  # the bank debit authorization
    page.locator("#pay-submit").click()
    expect(page.get_by_text("Nothing is left to pay")).to_be_visible()
    stored = live.read(ref, invoice["invoiceNumber"])
    assert stored["status"] == "Paid"
    assert [(p["amount"], p["type"]) for p in stored["payments"]] == [
        (30, "Card"),
        (76.6, "BankAccount"),
    ]


def test_a_declined_card_shows_the_message_and_changes_nothing(live: Live, page: Page) -> None:
    ref = live.merchant()
    invoice = live.invoice(ref, live.customer(ref))
    page.goto(invoice["payUrl"])
    fill_card(page, "4000 0000 0000 0002")
    page.locator("#pay-submit").click()
    alert = page.locator("#pay-message[role=alert]")
    expect(alert).to_contain_text("declined")
    expect(page.locator("#pay-submit")).to_be_enabled()
    stored = live.read(ref, invoice["invoiceNumber"])
    assert stored["amountPaid"] == 0
    assert stored["payments"] == []
    assert stored["status"] != "Paid"
    # The payer can try again with another card on the same page.
    fill_card(page)
    page.locator("#pay-submit").click()
    expect(page.get_by_text("Payment received")).to_be_visible()
    assert live.read(ref, invoice["invoiceNumber"])["status"] == "Paid"


def test_a_double_click_charges_once(live: Live, page: Page) -> None:
    ref = live.merchant(latency_ms=400)
    invoice = live.invoice(ref, live.customer(ref), partialPaymentMode="CustomerChoice")
    page.goto(invoice["payUrl"])
    fill_card(page)
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    page.locator("#pay-submit").dblclick()
    expect(page.locator("#pay-submit")).to_be_disabled()
    expect(page.get_by_text("Payment received")).to_be_visible()
    assert len(posts) == 1
    stored = live.read(ref, invoice["invoiceNumber"])
    assert len(stored["payments"]) == 1
    assert len(live.transactions(ref)) == 1  # one gateway charge


def test_two_tabs_paying_at_once_never_overpay(live: Live) -> None:
    """Two pages (two attempt tokens) post at the same moment against a slow gateway: one
    payment goes through, the other is told to reload (409)."""
    ref = live.merchant(latency_ms=600)
    invoice = live.invoice(ref, live.customer(ref))
    token = pay_token_of(invoice)
    pattern = re.compile(r'id="payhub-config">(.*?)</script>', re.S)

    def attempt() -> str:
        html = httpx.get(invoice["payUrl"]).text
        match = pattern.search(html)
        assert match
        value: str = json.loads(match.group(1))["attemptToken"]
        return value

    tabs = [attempt(), attempt()]

    def post(i: int) -> httpx.Response:
        return httpx.post(
            f"{live.base}/pay/{token}/payments",
            json={"attemptToken": tabs[i], "paymentMethodToken": f"sim_card_ok_tab{i}",
                  "methodType": "Card", "amount": "106.60"},
            headers={"Origin": live.base},
            timeout=30,
        )  # fmt: skip

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        answers = sorted(r.status_code for r in pool.map(post, range(2)))
    assert answers == [200, 409]
    stored = live.read(ref, invoice["invoiceNumber"])
    assert stored["status"] == "Paid"
    assert len(stored["payments"]) == 1
    assert stored["amountPaid"] == 106.6
    assert [t["amount"]["value"] for t in live.transactions(ref)] == [106.6]


def test_two_browser_tabs_paying_at_once_charge_once(live: Live, browser: Browser) -> None:
    """The same invoice open in two tabs of one browser; both press Pay against a slow
    gateway. One is charged; the other is told another payment is in progress."""
    ref = live.merchant(latency_ms=800)
    invoice = live.invoice(ref, live.customer(ref))
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    try:
        tabs = [context.new_page(), context.new_page()]
        for tab in tabs:
            tab.goto(invoice["payUrl"])
            fill_card(tab)
        for tab in tabs:  # no waiting between the clicks: the first is still at the gateway
            tab.locator("#pay-submit").click(no_wait_after=True)
        outcomes = []
        for tab in tabs:
            expect(tab.locator("#paid-notice, #pay-message:not(:empty)").first).to_be_visible(
                timeout=15000
            )
            outcomes.append("paid" if tab.locator("#paid-notice").count() else "refused")
        assert sorted(outcomes) == ["paid", "refused"]
        refused = tabs[outcomes.index("refused")]
        expect(refused.locator("#pay-message")).to_contain_text("another tab")
    finally:
        context.close()
    stored = live.read(ref, invoice["invoiceNumber"])
    assert (stored["status"], len(stored["payments"])) == ("Paid", 1)
    assert [t["amount"]["value"] for t in live.transactions(ref)] == [106.6]


def test_a_cross_site_page_cannot_post_a_payment(live: Live, page: Page) -> None:
    """A foreign site holding even a valid attempt token posts in every way a browser allows
    without a CORS grant (a form, and a no-cors fetch): payhub refuses, nothing is charged."""
    ref = live.merchant()
    invoice = live.invoice(ref, live.customer(ref))
    token = pay_token_of(invoice)
    html = httpx.get(invoice["payUrl"]).text
    match = re.search(r'id="payhub-config">(.*?)</script>', html, re.S)
    assert match
    attempt = json.loads(match.group(1))["attemptToken"]
    body = json.dumps({"attemptToken": attempt, "paymentMethodToken": "sim_card_ok",
                       "methodType": "Card"})  # fmt: skip
    target = f"{live.base}/pay/{token}/payments"
    statuses: list[int] = []
    page.on("response", lambda r: statuses.append(r.status) if r.url == target else None)

    def attack(route: Route) -> None:
        route.fulfill(
            status=200,
            content_type="text/html",
            body=f"""<!doctype html>
<html><body><form id="f" method="post" action="{target}" enctype="text/plain">
<input type="hidden" name='{body[:-1]}, "x": "' value='"}}'></form>
<script>
fetch("{target}", {{method: "POST", mode: "no-cors", headers: {{"Content-Type": "text/plain"}},
  body: {json.dumps(body)}}}).finally(function () {{ document.getElementById("f").submit(); }});
</script></body></html>""",
        )

    page.route(f"{FOREIGN}/**", attack)
    page.goto(f"{FOREIGN}/win-a-prize")
    page.wait_for_url(target)
    assert len(statuses) == 2
    assert all(s in (403, 415) for s in statuses), statuses
    stored = live.read(ref, invoice["invoiceNumber"])
    assert (stored["status"], stored["payments"]) == ("Draft", [])
    assert live.transactions(ref) == []


def host_page(embed_url: str, payhub_origin: str) -> str:
    """A merchant's page that frames the invoice and records payhub's messages."""
    return f"""<!doctype html><html><head><meta charset="utf-8"><title>Shop</title></head>
<body><h1>Pay your invoice</h1>
<iframe id="payhub" src="{embed_url}" title="Pay invoice" style="width:100%;border:0"></iframe>
<script>
window.messages = [];
window.addEventListener("message", function (event) {{
  if (event.origin !== "{payhub_origin}") return;
  if (!event.data || event.data.source !== "payhub") return;
  window.messages.push(event.data);
  var frame = document.getElementById("payhub");
  if (event.data.type === "resize") frame.style.height = event.data.height + "px";
}});
</script></body></html>"""


def serve_host(page: Page, origin: str, embed_url: str, payhub_origin: str) -> None:
    def fulfil(route: Route) -> None:
        route.fulfill(status=200, content_type="text/html",
                      body=host_page(embed_url, payhub_origin))  # fmt: skip

    page.route(f"{origin}/**", fulfil)


def messages(page: Page) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = page.evaluate("window.messages")
    return found


def test_an_allowed_site_frames_the_page_and_hears_loaded_resize_and_paid(
    live: Live, page: Page
) -> None:
    ref = live.merchant(origins=(ALLOWED,))
    invoice = live.invoice(ref, live.customer(ref), partialPaymentMode="CustomerChoice")
    number = invoice["invoiceNumber"]
    live.ok(live.api.post(f"/api/merchant-accounts/{ref}/invoices/{number}/send"))
    embed = live.ok(live.api.post(f"/api/merchant-accounts/{ref}/invoices/{number}/embed"))
    assert embed["allowedOrigins"] == [ALLOWED]
    serve_host(page, ALLOWED, embed["embedUrl"], live.base)
    page.goto(f"{ALLOWED}/checkout")
    frame = page.frame_locator("#payhub")
    expect(frame.get_by_role("heading", name=re.compile(number))).to_be_visible()
    page.wait_for_function("window.messages.some(m => m.type === 'resize')")
    kinds = [m["type"] for m in messages(page)]
    assert kinds[0] == "loaded"
    first = messages(page)[0]
    assert first["invoiceNumber"] == number
    assert first["status"] == "Sent"
    resize = next(m for m in messages(page) if m["type"] == "resize")
    assert resize["height"] > 300
    # The host page followed the latest resize message.
    last, applied = page.evaluate(
        "[window.messages.filter(m => m.type === 'resize').pop().height,"
        " document.getElementById('payhub').style.height]"
    )
    assert applied == f"{last}px"

    # A partial payment is also "paid", with money still due.
    frame.get_by_label("Another amount").check()
    frame.get_by_label(re.compile("Amount to pay")).fill("40.00")
    fill_card(frame)
    frame.locator("#pay-submit").click()
    page.wait_for_function("window.messages.some(m => m.type === 'paid')")
    paid = next(m for m in messages(page) if m["type"] == "paid")
    assert paid["source"] == "payhub"
    assert paid["invoiceNumber"] == number
    assert paid["amountPaid"] == 40
    assert paid["amountDue"] == 66.6
    # ...which the host confirms server-side, as the docs say.
    assert live.read(ref, number)["amountPaid"] == 40

    # A failure is reported too (a declined card).
    expect(frame.get_by_text("Payment received")).to_be_visible()
    fill_card(frame, "4000 0000 0000 0002")
    frame.locator("#pay-submit").click()
    page.wait_for_function("window.messages.some(m => m.type === 'failed')")
    failed = next(m for m in messages(page) if m["type"] == "failed")
    assert "declined" in failed["message"]
    assert live.read(ref, number)["amountPaid"] == 40


def test_another_site_cannot_frame_the_page(live: Live, page: Page) -> None:
    ref = live.merchant(origins=(ALLOWED,))
    invoice = live.invoice(ref, live.customer(ref))
    number = invoice["invoiceNumber"]
    live.ok(live.api.post(f"/api/merchant-accounts/{ref}/invoices/{number}/send"))
    embed = live.ok(live.api.post(f"/api/merchant-accounts/{ref}/invoices/{number}/embed"))
    refusals: list[str] = []
    page.on("console", lambda m: refusals.append(m.text) if "frame-ancestors" in m.text else None)
    serve_host(page, FOREIGN, embed["embedUrl"], live.base)
    page.goto(f"{FOREIGN}/steal")
    page.wait_for_function(
        "document.getElementById('payhub') && document.readyState === 'complete'"
    )
    frame = page.frame(url=re.compile(r"/embed/|chrome-error"))
    assert frame is not None
    # The browser blocked the frame: no pay form rendered, and no message reached this page.
    expect(page.frame_locator("#payhub").locator("#pay-form")).to_have_count(0)
    assert messages(page) == []
    assert any(ALLOWED in text for text in refusals), refusals
    # The plain pay page refuses every frame, even on the allowed site.
    serve_host(page, ALLOWED, invoice["payUrl"], live.base)
    page.goto(f"{ALLOWED}/other")
    page.wait_for_load_state("load")
    expect(page.frame_locator("#payhub").locator("#pay-form")).to_have_count(0)
