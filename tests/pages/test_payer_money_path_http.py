"""The payer's money path over HTTP (both stores): retries after a gateway failure, amounts."""

from __future__ import annotations

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from tests.conftest import Account
from tests.pages.support import Shop, token_of
from tests.pages.test_pay_page_http import open_page, pay


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
