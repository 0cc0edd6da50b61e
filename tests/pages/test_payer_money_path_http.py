"""The payer's money path over HTTP (both stores): retries after a gateway failure, amounts."""

from __future__ import annotations

import io
import re

import pypdf
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from tests.conftest import Account
from tests.pages.support import Shop, token_of
from tests.pages.test_pay_page_http import open_page, pay
from tests.pages.test_receipt_pdf import look, overlaps


@pytest.fixture
def shop(client: TestClient[Litestar], sandbox_provider: Account) -> Shop:
    return Shop(client, sandbox_provider)


def test_after_a_502_the_payer_can_retry_at_once(client: TestClient[Litestar], shop: Shop) -> None:
    invoice = shop.invoice()
    token = token_of(invoice)
    attempt = open_page(client, token)["attemptToken"]
    failed = pay(client, token, attempt, payment_token="sim_card_unavailable_1a2b")
    assert failed.status_code == 502, failed.text
    problem = failed.json()
    assert "nextAttemptToken" in problem  # nothing happened: a new attempt may start at once
    retried = pay(client, token, problem["nextAttemptToken"])
    assert retried.status_code == 200, retried.text
    assert shop.read(invoice["invoiceNumber"])["status"] == "Paid"
    # Even the old token, replayed, charges nothing more.
    again = pay(client, token, attempt)
    assert again.status_code in (200, 409), again.text
    charged = [t for t in shop.transactions() if t["status"] in ("Captured", "Authorized")]
    assert len(charged) == 1


def test_after_a_504_the_same_attempt_is_retried_and_charges_once(
    client: TestClient[Litestar], shop: Shop
) -> None:
    invoice = shop.invoice()
    token = token_of(invoice)
    attempt = open_page(client, token)["attemptToken"]
    lost = pay(client, token, attempt, payment_token="sim_card_timeout_1a2b")
    assert lost.status_code == 504, lost.text
    assert "nextAttemptToken" not in lost.json()  # the outcome is unknown: same attempt
    retried = pay(client, token, attempt, payment_token="sim_card_timeout_1a2b")
    assert retried.status_code == 200, retried.text
    stored = shop.read(invoice["invoiceNumber"])
    assert stored["status"] == "Paid"
    assert len(stored["payments"]) == 1
    charged = [t for t in shop.transactions() if t["status"] in ("Captured", "Authorized")]
    assert len(charged) == 1


def test_the_receipt_names_number_date_method_reference_and_merchant(
    client: TestClient[Litestar], shop: Shop, hub: PayHub, sandbox_provider: Account
) -> None:
    """Receipt number, payment date in the merchant's zone, brand and last four, the gateway's
    reference and the merchant's contact details, on the receipt page and in its PDF."""
    hub.provider(hub.authenticate(sandbox_provider.key)).merchant(shop.ref).set_time_zone(
        "America/Chicago"
    )
    location = shop.ok(
        client.post(
            f"{shop.base}/locations",
            headers=shop.headers,
            json={"name": "Acme Plumbing Austin", "phone": "+15125550100",
                  "address": {"line1": "12 Commerce Street", "city": "Austin", "state": "TX",
                              "postalCode": "78701", "country": "US"}},
        ),
        201,
    )  # fmt: skip
    invoice = shop.invoice(
        partialPaymentMode="FixedDeposit",
        requiredDepositAmount=30,
        locationId=location["locationId"],
        allowedPaymentMethods="Both",
    )
    token = token_of(invoice)
    assert pay(client, token, open_page(client, token)["attemptToken"], "30.00").status_code == 200
    bank = pay(client, token, open_page(client, token)["attemptToken"], "76.60",
               payment_token="sim_bank_ok_1a2b", method="BankAccount")  # fmt: skip
    assert bank.status_code == 200, bank.text
    ledger = {t["transactionId"]: t for t in shop.transactions()}
    stored = shop.read(invoice["invoiceNumber"])
    references = [ledger[p["transactionId"]]["gatewayReference"] for p in stored["payments"]]
    number = invoice["invoiceNumber"]
    expected = [
        f"{number}-R1", f"{number}-R2", "Visa ending in 4242", "Bank account ending in 6789",
        *references, "Acme Plumbing Austin", "12 Commerce Street, Austin, TX 78701",
        "+15125550100", "Receipt number", "Payment date", "Gateway reference",
    ]  # fmt: skip
    html = client.get(f"/pay/{token}/receipt").text
    pdf = client.get(f"/pay/{token}/receipt.pdf").content
    text = " ".join(
        " ".join(page.extract_text().split()) for page in pypdf.PdfReader(io.BytesIO(pdf)).pages
    )
    for item in expected:
        assert item in html, item
        assert item in text, item
    # The payment dates are Chicago's (CST in winter, CDT in summer), not UTC.
    assert re.search(r"\d{1,2}:\d{2} [AP]M C[SD]T", html)
    assert re.search(r"Payment date: \w+ \d{1,2}, \d{4}, \d{1,2}:\d{2} [AP]M C[SD]T", text)
    assert " UTC" not in text
    assert overlaps(pdf) == []
    look(pdf, "receipt-from-the-server")
