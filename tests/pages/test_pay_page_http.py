"""The pay page, its posts, the embed page and the receipts over HTTP, on both stores.

Each test checks what changed through the API (the authoritative invoice read), not only the
status code of the page's own answer.
"""

from __future__ import annotations

import io
from datetime import timedelta
from typing import Any

import pypdf
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.adapters.system import FixedClock
from tests.conftest import Account
from tests.pages.support import Shop, config_of, token_of

SAME_ORIGIN = {"Origin": "http://testserver.local", "Sec-Fetch-Site": "same-origin"}


@pytest.fixture
def shop(client: TestClient[Litestar], sandbox_provider: Account) -> Shop:
    return Shop(client, sandbox_provider)


def open_page(client: TestClient[Litestar], token: str, path: str = "/pay") -> dict[str, Any]:
    page = client.get(f"{path}/{token}")
    assert page.status_code == 200, page.text
    return config_of(page.text)


def pay(
    client: TestClient[Litestar],
    token: str,
    attempt: str,
    amount: str | None = None,
    payment_token: str = "sim_card_ok_1a2b",
    method: str = "Card",
    headers: dict[str, str] | None = None,
) -> Any:
    body: dict[str, Any] = {"attemptToken": attempt, "paymentMethodToken": payment_token,
                            "methodType": method}  # fmt: skip
    if method == "BankAccount":
        body["debitAuthorization"] = True  # the payer ticked the box (tested without below)
    if amount is not None:
        body["amount"] = amount
    return client.post(f"/pay/{token}/payments", json=body, headers=headers or SAME_ORIGIN)


def test_the_pay_page_shows_the_invoice_without_a_login(
    client: TestClient[Litestar], shop: Shop
) -> None:
    invoice = shop.invoice(dueDate="2025-04-30")
    page = client.get(f"/pay/{token_of(invoice)}")  # no X-Api-Key
    assert page.status_code == 200
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    text = page.text
    for expected in (
        "Acme Plumbing", invoice["invoiceNumber"], "Pipe repair", "Call-out fee", "(not taxed)",
        "$40.00", "$80.00", "$20.00", "Subtotal", "$100.00", "Tax (8.25%)", "$6.60",
        "$106.60", "Amount due", "Bill to", "1 Main Street", "Austin, TX 78701", "Ship to",
        "9 Site Road", "Round Rock, TX 78664", "Due April 30, 2025", "No payments yet.",
        'id="pay-form"', "/simulator/hosted-fields.js", "Sandbox",
    ):  # fmt: skip
        assert expected in text, expected
    # Card and bank account are both offered (the simulator does ACH), no number fields
    # are rendered by payhub itself: the hosted-fields script makes them.
    assert 'value="Card"' in text
    assert 'value="BankAccount"' in text
    assert 'name="cardNumber"' not in text
    config = config_of(text)
    assert config["invoiceNumber"] == invoice["invoiceNumber"]
    assert config["attemptToken"].startswith("pay.")
    assert config["allowedOrigins"] == []


def test_the_pages_refuse_to_be_framed_and_are_not_cached(
    client: TestClient[Litestar], shop: Shop
) -> None:
    token = token_of(shop.invoice())
    for path in (f"/pay/{token}", f"/pay/{token}/receipt", f"/pay/{token}/receipt.pdf"):
        response = client.get(path)
        assert response.status_code == 200, path
        assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
        assert response.headers["x-frame-options"] == "DENY"
        assert response.headers["cache-control"] == "no-store"
        assert response.headers["referrer-policy"] == "no-referrer"
        assert response.headers["x-content-type-options"] == "nosniff"
    csp = client.get(f"/pay/{token}").headers["content-security-policy"]
    assert "script-src 'self';" in csp
    assert "'unsafe-inline'" not in csp


@pytest.mark.parametrize(
    "path",
    [
        "/pay/{t}", "/embed/{t}", "/pay/{t}/receipt", "/pay/{t}/receipt.pdf",
    ],
)  # fmt: skip
@pytest.mark.parametrize("token", ["Zm9vYmFyYmF6cXV4cXV1eHh4eHh4eA", "short", "bad%20token!"])
def test_an_unknown_link_is_a_404_page(client: TestClient[Litestar], path: str, token: str) -> None:
    response = client.get(path.format(t=token))
    assert response.status_code == 404
    assert response.headers["content-type"].startswith("text/html")
    assert "There is no invoice at this address" in response.text


def test_paying_in_full_marks_the_invoice_paid_and_the_page_shows_its_state(
    client: TestClient[Litestar], shop: Shop
) -> None:
    invoice = shop.invoice()
    token = token_of(invoice)
    config = open_page(client, token)
    paid = pay(client, token, config["attemptToken"], "106.60")
    assert paid.status_code == 200, paid.text
    body = paid.json()
    assert body["status"] == "Paid"
    assert body["amountPaid"] == 106.6
    assert body["amountDue"] == 0
    stored = shop.read(invoice["invoiceNumber"])
    assert stored["status"] == "Paid"
    assert stored["amountDue"] == 0
    [payment] = stored["payments"]
    assert payment["paymentId"] == body["payment"]["id"]
    assert payment["amount"] == 106.6
    assert payment["source"] == "PayPage"

    after = client.get(f"/pay/{token}?paid={body['payment']['id']}")
    assert "Payment received" in after.text
    assert 'id="pay-form"' not in after.text
    assert "paid in full" in after.text
    assert f"/pay/{token}/receipt" in after.text
    # The SMS offer is a clear opt-in: an unticked box.
    assert 'type="checkbox" id="sms-consent"' in after.text
    assert "checked" not in after.text.split('id="sms-consent"')[1].split(">")[0]


def test_disabled_partial_payments_take_only_the_full_total(
    client: TestClient[Litestar], shop: Shop
) -> None:
    invoice = shop.invoice()
    token = token_of(invoice)
    config = open_page(client, token)
    refused = pay(client, token, config["attemptToken"], "50.00")
    assert refused.status_code == 400
    assert refused.json()["nextAttemptToken"].startswith("pay.")
    assert shop.read(invoice["invoiceNumber"])["amountPaid"] == 0
    # The form offers only the full amount.
    page = client.get(f"/pay/{token}").text
    assert 'id="amount-input"' not in page
    assert 'data-amount="106.60"' in page


def test_a_fixed_deposit_is_the_deposit_or_the_balance_then_the_rest(
    client: TestClient[Litestar], shop: Shop
) -> None:
    invoice = shop.invoice(partialPaymentMode="FixedDeposit", requiredDepositAmount=30)
    token = token_of(invoice)
    page = client.get(f"/pay/{token}").text
    assert 'id="amount-deposit"' in page
    assert 'id="amount-balance"' in page
    assert 'id="amount-input"' not in page  # nothing in between can be typed
    config = config_of(page)
    between = pay(client, token, config["attemptToken"], "50.00")
    assert between.status_code == 400
    assert shop.read(invoice["invoiceNumber"])["amountPaid"] == 0

    deposit = pay(client, token, between.json()["nextAttemptToken"], "30.00")
    assert deposit.status_code == 200, deposit.text
    assert deposit.json()["status"] != "Paid"
    assert deposit.json()["amountDue"] == 76.6

    page = client.get(f"/pay/{token}").text
    assert 'id="amount-deposit"' not in page
    assert 'data-amount="76.60"' in page
    rest = pay(client, token, config_of(page)["attemptToken"], "76.60", "sim_card_ok_9f9f")
    assert rest.status_code == 200, rest.text
    stored = shop.read(invoice["invoiceNumber"])
    assert stored["status"] == "Paid"
    assert [p["amount"] for p in stored["payments"]] == [30, 76.6]


def test_customer_choice_takes_any_amount_up_to_the_balance_repeatedly(
    client: TestClient[Litestar], shop: Shop
) -> None:
    invoice = shop.invoice(partialPaymentMode="CustomerChoice")
    token = token_of(invoice)
    page = client.get(f"/pay/{token}").text
    assert 'id="amount-input"' in page
    assert 'data-max="106.60"' in page
    too_much = pay(client, token, config_of(page)["attemptToken"], "106.61")
    assert too_much.status_code == 400
    for amount, due in (("10.00", 96.6), ("0.60", 96), ("96.00", 0)):
        config = open_page(client, token)
        done = pay(client, token, config["attemptToken"], amount, "sim_card_ok_" + amount)
        assert done.status_code == 200, done.text
        assert done.json()["amountDue"] == due
    assert shop.read(invoice["invoiceNumber"])["status"] == "Paid"


def test_authorize_only_invoices_reserve_instead_of_paying(
    client: TestClient[Litestar], shop: Shop
) -> None:
    invoice = shop.invoice(authorizeOnly=True, allowedPaymentMethods="CardOnly")
    token = token_of(invoice)
    page = client.get(f"/pay/{token}").text
    assert "Reserve this invoice" in page
    assert "Pay this invoice" not in page
    assert 'value="BankAccount"' not in page
    done = pay(client, token, config_of(page)["attemptToken"], "106.60")
    assert done.status_code == 200, done.text
    assert done.json()["payment"]["status"] == "Authorized"
    after = client.get(f"/pay/{token}?paid={done.json()['payment']['id']}").text
    assert "Amount reserved" in after


def test_a_decline_changes_nothing_and_gives_a_fresh_attempt(
    client: TestClient[Litestar], shop: Shop
) -> None:
    invoice = shop.invoice()
    token = token_of(invoice)
    config = open_page(client, token)
    declined = pay(client, token, config["attemptToken"], "106.60", "sim_card_decline_77aa")
    assert declined.status_code == 402
    problem = declined.json()
    assert declined.headers["content-type"] == "application/problem+json"
    assert problem["payerMessage"].startswith("Your payment was declined")
    assert problem["nextAttemptToken"] != config["attemptToken"]
    stored = shop.read(invoice["invoiceNumber"])
    assert stored["amountPaid"] == 0
    assert stored["payments"] == []
    assert stored["paymentInProgress"] is False
    ok = pay(client, token, problem["nextAttemptToken"], "106.60", "sim_card_ok_77bb")
    assert ok.status_code == 200
    assert shop.read(invoice["invoiceNumber"])["status"] == "Paid"


def test_a_replayed_post_returns_the_same_payment_and_never_charges_twice(
    client: TestClient[Litestar], shop: Shop
) -> None:
    invoice = shop.invoice(partialPaymentMode="CustomerChoice")
    token = token_of(invoice)
    attempt = open_page(client, token)["attemptToken"]
    first = pay(client, token, attempt, "10.00", "sim_card_ok_aaaa")
    again = pay(client, token, attempt, "10.00", "sim_card_ok_bbbb")  # double click
    assert first.status_code == again.status_code == 200
    assert again.json()["payment"]["id"] == first.json()["payment"]["id"]
    stored = shop.read(invoice["invoiceNumber"])
    assert len(stored["payments"]) == 1
    assert stored["amountPaid"] == 10
    [charge] = shop.transactions()  # one gateway charge, not two
    assert (charge["status"], charge["amount"]["value"]) == ("Captured", 10)
    # A later, separate attempt (a fresh page) is a new payment: replay protection is per
    # attempt, not per invoice.
    later = pay(client, token, open_page(client, token)["attemptToken"], "5.00")
    assert later.status_code == 200
    assert later.json()["payment"]["id"] != first.json()["payment"]["id"]
    assert len(shop.transactions()) == 2


@pytest.mark.parametrize(
    ("headers", "why"),
    [
        ({"Sec-Fetch-Site": "cross-site"}, "a cross-site form"),
        ({"Sec-Fetch-Site": "same-site"}, "a sibling site"),
        ({"Origin": "https://evil.example"}, "a foreign origin"),
        ({"Origin": "null"}, "an opaque origin"),
    ],
)
def test_cross_site_posts_are_refused(
    client: TestClient[Litestar], shop: Shop, headers: dict[str, str], why: str
) -> None:
    invoice = shop.invoice()
    token = token_of(invoice)
    attempt = open_page(client, token)["attemptToken"]
    refused = pay(client, token, attempt, "106.60", headers=headers)
    assert refused.status_code == 403, why
    assert shop.read(invoice["invoiceNumber"])["payments"] == []
    assert shop.transactions() == []  # the gateway was never called


def test_posts_without_a_valid_attempt_token_are_refused(
    client: TestClient[Litestar], shop: Shop, clock: FixedClock
) -> None:
    invoice = shop.invoice()
    other = shop.invoice()
    token = token_of(invoice)
    config = open_page(client, token)
    attempts = {
        "missing": "",
        "forged": "pay.AAAAAAAAAAAAAAAAAAAAAA.9999999999.AAAA",
        "another invoice's": open_page(client, token_of(other))["attemptToken"],
        "the SMS form's": config["smsToken"],
    }
    for why, attempt in attempts.items():
        refused = pay(client, token, attempt, "106.60")
        assert refused.status_code == 403, why
    clock.advance(timedelta(hours=2, seconds=1))
    expired = pay(client, token, config["attemptToken"], "106.60")
    assert expired.status_code == 403
    assert "reload" in expired.json()["detail"]
    assert shop.read(invoice["invoiceNumber"])["payments"] == []


def test_only_json_is_accepted_and_raw_numbers_never(
    client: TestClient[Litestar], shop: Shop
) -> None:
    invoice = shop.invoice()
    token = token_of(invoice)
    attempt = open_page(client, token)["attemptToken"]
    form = client.post(
        f"/pay/{token}/payments",
        data={"attemptToken": attempt, "paymentMethodToken": "sim_card_ok_1", "methodType": "Card"},
        headers=SAME_ORIGIN,
    )
    assert form.status_code == 415
    raw = client.post(
        f"/pay/{token}/payments",
        json={"attemptToken": attempt, "paymentMethodToken": "4242 4242 4242 4242",
              "methodType": "Card"},
        headers=SAME_ORIGIN,
    )  # fmt: skip
    assert raw.status_code == 400
    assert raw.json()["type"] == "/problems/raw-card-data"
    field = client.post(
        f"/pay/{token}/payments",
        json={"attemptToken": attempt, "paymentMethodToken": "sim_card_ok_1", "methodType": "Card",
              "cardNumber": "4000000000000002"},
        headers=SAME_ORIGIN,
    )  # fmt: skip
    assert field.status_code == 400
    unknown = client.post(
        f"/pay/{token}/payments",
        json={"attemptToken": attempt, "paymentMethodToken": "sim_card_ok_1", "methodType": "Card",
              "extra": 1},
        headers=SAME_ORIGIN,
    )  # fmt: skip
    assert unknown.status_code == 400
    # The token field is named as in the charge request everywhere (spec: Charge request).
    old_name = client.post(
        f"/pay/{token}/payments",
        json={"attemptToken": attempt, "paymentToken": "sim_card_ok_1", "methodType": "Card"},
        headers=SAME_ORIGIN,
    )
    assert old_name.status_code == 400
    assert old_name.json()["errors"][0]["field"] == "paymentToken"
    method = pay(client, token, attempt, "106.60", method="Cash")
    assert method.status_code == 400
    assert shop.read(invoice["invoiceNumber"])["payments"] == []


def test_a_void_invoice_shows_its_state_and_takes_nothing(
    client: TestClient[Litestar], shop: Shop
) -> None:
    invoice = shop.invoice()
    token = token_of(invoice)
    attempt = open_page(client, token)["attemptToken"]
    number = invoice["invoiceNumber"]
    shop.ok(client.post(f"{shop.base}/invoices/{number}/void", headers=shop.headers))
    page = client.get(f"/pay/{token}").text
    assert "cancelled by the merchant" in page
    assert 'id="pay-form"' not in page
    refused = pay(client, token, attempt, "106.60")
    assert refused.status_code == 409
    assert "Reload this page" in refused.json()["payerMessage"]
    assert shop.read(number)["payments"] == []


def test_the_receipt_page_and_pdf_carry_everything(
    client: TestClient[Litestar], shop: Shop
) -> None:
    invoice = shop.invoice(partialPaymentMode="FixedDeposit", requiredDepositAmount=30)
    token = token_of(invoice)
    assert pay(client, token, open_page(client, token)["attemptToken"], "30.00").status_code == 200
    expected = [
        "Acme Plumbing", invoice["invoiceNumber"], "1 Main Street", "Austin, TX 78701",
        "9 Site Road", "Pipe repair", "Call-out fee", "Tax (8.25%)", "$6.60", "$106.60",
        "$30.00", "$76.60", "Visa ending in 4242",
    ]  # fmt: skip
    html = client.get(f"/pay/{token}/receipt")
    assert html.status_code == 200
    for text in expected:
        assert text in html.text, text
    pdf = client.get(f"/pay/{token}/receipt.pdf")
    assert pdf.status_code == 200
    assert pdf.headers["content-type"] == "application/pdf"
    assert invoice["invoiceNumber"] in pdf.headers["content-disposition"]
    reader = pypdf.PdfReader(io.BytesIO(pdf.content))
    text = "\n".join(p.extract_text() for p in reader.pages)
    for item in expected:
        assert item in text, item


def test_sms_consent_is_offered_only_after_a_payment_and_recorded_from_the_page(
    client: TestClient[Litestar], shop: Shop, hub: PayHub, sandbox_provider: Account
) -> None:
    invoice = shop.invoice(partialPaymentMode="CustomerChoice")
    token = token_of(invoice)
    config = open_page(client, token)
    url = f"/pay/{token}/sms-consent"
    early = client.post(url, json={"attemptToken": config["smsToken"], "consent": True},
                        headers=SAME_ORIGIN)  # fmt: skip
    assert early.status_code == 409
    first = pay(client, token, config["attemptToken"], "5.00")
    assert first.status_code == 200
    # The offer shows the customer's number masked, "use this number" chosen, box unticked.
    offer = client.get(f"/pay/{token}?paid={first.json()['payment']['id']}").text
    assert "•••-•••-2671" in offer
    for full in ("4155552671", "555-2671", "555 2671", "(415)"):
        assert full not in offer
    saved_radio = offer.split('id="sms-number-saved"')[1].split(">")[0]
    assert "checked" in saved_radio
    assert "checked" not in offer.split('id="sms-consent"')[1].split(">")[0]
    unticked = client.post(url, json={"attemptToken": config["smsToken"], "consent": False},
                           headers=SAME_ORIGIN)  # fmt: skip
    assert unticked.status_code == 400
    forged = client.post(url, json={"attemptToken": config["attemptToken"], "consent": True},
                         headers=SAME_ORIGIN)  # fmt: skip
    assert forged.status_code == 403
    cross = client.post(url, json={"attemptToken": config["smsToken"], "consent": True},
                        headers={"Sec-Fetch-Site": "cross-site"})  # fmt: skip
    assert cross.status_code == 403
    customers = hub.provider(hub.authenticate(sandbox_provider.key)).merchant(shop.ref).customers
    assert customers.get(shop.customer_id).consent.consent is False
    given = client.post(url, json={"attemptToken": config["smsToken"], "consent": True},
                        headers=SAME_ORIGIN)  # fmt: skip
    assert given.status_code == 200, given.text
    assert given.json()["source"] == "PayPage"
    assert given.json()["phone"] == "•••-•••-2671"  # masked: the link is public
    stored = customers.get(shop.customer_id).consent
    assert stored.consent is True
    assert stored.source.value == "PayPage"
    assert stored.phone == "+14155552671"
    paid_id = shop.read(invoice["invoiceNumber"])["payments"][0]["paymentId"]
    page = client.get(f"/pay/{token}?paid={paid_id}").text
    assert "You have agreed to receive texts" in page
    assert 'id="sms-form"' not in page


def test_sms_consent_to_another_number_records_that_number(
    client: TestClient[Litestar], shop: Shop, hub: PayHub, sandbox_provider: Account
) -> None:
    invoice = shop.invoice()
    token = token_of(invoice)
    config = open_page(client, token)
    assert pay(client, token, config["attemptToken"]).status_code == 200
    url = f"/pay/{token}/sms-consent"
    bad = client.post(url, json={"attemptToken": config["smsToken"], "consent": True,
                                 "phone": "+44 20 7946 0958"}, headers=SAME_ORIGIN)  # fmt: skip
    assert bad.status_code == 400
    customers = hub.provider(hub.authenticate(sandbox_provider.key)).merchant(shop.ref).customers
    assert customers.get(shop.customer_id).consent.consent is False
    given = client.post(url, json={"attemptToken": config["smsToken"], "consent": True,
                                   "phone": "(201) 555-0123"}, headers=SAME_ORIGIN)  # fmt: skip
    assert given.status_code == 200, given.text
    assert given.json()["phone"] == "•••-•••-0123"
    assert customers.get(shop.customer_id).consent.phone == "+12015550123"


def test_without_a_number_on_file_the_offer_asks_for_one(
    client: TestClient[Litestar], shop: Shop
) -> None:
    made = shop.ok(client.post(f"{shop.base}/customers", headers=shop.headers,
                               json={"name": {"first": "No", "last": "Phone"}}), 201)  # fmt: skip
    invoice = shop.invoice(customerId=made["customerId"])
    token = token_of(invoice)
    config = open_page(client, token)
    paid = pay(client, token, config["attemptToken"])
    assert paid.status_code == 200
    offer = client.get(f"/pay/{token}?paid={paid.json()['payment']['id']}").text
    assert 'id="sms-form"' in offer
    assert 'id="sms-number-saved"' not in offer
    assert '<label for="sms-phone">Mobile number (US)</label>' in offer
    blank = client.post(f"/pay/{token}/sms-consent",
                        json={"attemptToken": config["smsToken"], "consent": True},
                        headers=SAME_ORIGIN)  # fmt: skip
    assert blank.status_code == 400
    assert blank.json()["errors"][0]["field"] == "smsConsent"


def test_the_payer_reads_open_partly_paid_paid_and_cancelled_not_draft(
    client: TestClient[Litestar], shop: Shop
) -> None:
    invoice = shop.invoice(partialPaymentMode="CustomerChoice")  # still a Draft
    token = token_of(invoice)
    assert "Status: <strong>Open</strong>" in client.get(f"/pay/{token}").text
    assert pay(client, token, open_page(client, token)["attemptToken"], "6.60").status_code == 200
    page = client.get(f"/pay/{token}")
    assert "Status: <strong>Partly paid</strong>" in page.text
    assert config_of(page.text)["status"] == "Draft"  # embed messages keep the API's status
    assert shop.read(invoice["invoiceNumber"])["status"] == "Draft"
    assert pay(client, token, open_page(client, token)["attemptToken"]).status_code == 200
    assert "Status: <strong>Paid</strong>" in client.get(f"/pay/{token}/receipt").text
    void = shop.invoice()
    shop.ok(client.post(f"{shop.base}/invoices/{void['invoiceNumber']}/void",
                        headers=shop.headers))  # fmt: skip
    assert "Status: <strong>Cancelled</strong>" in client.get(f"/pay/{token_of(void)}").text


def test_the_embed_page_may_be_framed_only_by_the_allowed_websites(
    client: TestClient[Litestar], shop: Shop, hub: PayHub, sandbox_provider: Account
) -> None:
    invoice = shop.invoice()
    token = token_of(invoice)
    refused = client.get(f"/embed/{token}")
    assert refused.status_code == 409  # no allowed website: nobody may frame it
    assert "frame-ancestors 'none'" in refused.headers["content-security-policy"]
    scope = hub.provider(hub.authenticate(sandbox_provider.key)).merchant(shop.ref)
    scope.invoices.change_embed_origins(add=["https://shop.example", "https://www.shop.example"])
    page = client.get(f"/embed/{token}")
    assert page.status_code == 200
    csp = page.headers["content-security-policy"]
    assert "frame-ancestors https://shop.example https://www.shop.example" in csp
    assert "x-frame-options" not in page.headers
    config = config_of(page.text)
    assert config["embedded"] is True
    assert config["allowedOrigins"] == ["https://shop.example", "https://www.shop.example"]
    assert config["urls"]["page"] == f"/embed/{token}"
    # The pay page itself still refuses every frame.
    assert (
        "frame-ancestors 'none'" in client.get(f"/pay/{token}").headers["content-security-policy"]
    )


def test_the_page_assets_are_served_and_nothing_else(client: TestClient[Litestar]) -> None:
    for name, kind in (("pay-page.css", "text/css"), ("pay-page.js", "application/javascript"),
                       ("payhub-embed.js", "application/javascript")):  # fmt: skip
        response = client.get(f"/static/{name}")
        assert response.status_code == 200
        assert response.headers["content-type"].startswith(kind)
    assert client.get("/static/..%2Fapp.py").status_code == 404
    assert client.get("/static/simulator-hosted-fields.js").status_code == 404


def test_the_pages_are_not_in_the_api_reference(client: TestClient[Litestar]) -> None:
    paths = client.get("/schema/openapi.json").json()["paths"]
    assert not [p for p in paths if p.startswith(("/pay", "/embed", "/static"))]
