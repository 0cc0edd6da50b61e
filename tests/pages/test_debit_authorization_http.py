"""The bank debit authorization on the pay page, over HTTP on both stores: a bank payment is
refused without the payer's acceptance, and the words accepted (with the amount charged, the
date in the merchant's zone and the invoice), the time, address and browser are recorded with
the payment (migration 21)."""

from __future__ import annotations

import re
from html import unescape

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.adapters.system import FixedClock
from tests.conftest import Account
from tests.pages.support import Shop, token_of
from tests.pages.test_pay_page_http import SAME_ORIGIN, open_page


@pytest.fixture
def shop(client: TestClient[Litestar], sandbox_provider: Account) -> Shop:
    return Shop(client, sandbox_provider)


def post(client: TestClient[Litestar], token: str, body: dict[str, object]) -> object:
    return client.post(f"/pay/{token}/payments", json=body, headers=SAME_ORIGIN)


def test_a_bank_debit_needs_the_payers_authorization_and_records_it(
    client: TestClient[Litestar], shop: Shop, hub: PayHub, clock: FixedClock,
    sandbox_provider: Account,
) -> None:  # fmt: skip
    invoice = shop.invoice(allowedPaymentMethods="Both")
    token = token_of(invoice)
    page = client.get(f"/pay/{token}")
    shown = re.search(r'<label for="ach-accept" id="ach-words">(.*?)</label>', page.text, re.S)
    assert shown, page.text
    words = unescape(re.sub(r"<[^>]+>", "", shown.group(1)))
    assert words.startswith("I authorize Acme Plumbing to debit the bank account I entered")
    body: dict[str, object] = {"attemptToken": open_page(client, token)["attemptToken"],
                               "paymentMethodToken": "sim_bank_ok_1a2b",
                               "methodType": "BankAccount"}  # fmt: skip
    for refused in ({}, {"debitAuthorization": False}):
        answer = post(client, token, {**body, **refused})
        assert answer.status_code == 400, answer.text  # type: ignore[attr-defined]
        errors = answer.json()["errors"]  # type: ignore[attr-defined]
        assert [e["field"] for e in errors] == ["debitAuthorization"]
    assert shop.transactions() == []  # nothing was sent to the gateway
    assert shop.read(invoice["invoiceNumber"])["amountPaid"] == 0
    paid = client.post(
        f"/pay/{token}/payments",
        json={**body, "debitAuthorization": True},
        headers={**SAME_ORIGIN, "User-Agent": "Mozilla/5.0 (payer's browser)"},
    )
    assert paid.status_code == 200, paid.text
    assert paid.json()["payment"]["status"] == "Submitted"
    [tx] = shop.transactions()
    with hub.deps.store.unit_of_work(readonly=True) as uow:
        merchant = uow.merchants.get_by_reference(sandbox_provider.provider.id, shop.ref)
        assert merchant is not None
        recorded = uow.debit_authorizations.get(merchant.id, tx["transactionId"])
    assert recorded is not None
    # Exactly the words the page showed, with the amount charged written in.
    assert recorded.text == words
    assert "$106.60" in recorded.text
    assert f"invoice {invoice['invoiceNumber']}" in recorded.text
    assert recorded.accepted_at == clock.now()
    assert recorded.user_agent == "Mozilla/5.0 (payer's browser)"
    assert recorded.ip_address  # the test client's address
    # A card payment records none.
    card = shop.invoice(allowedPaymentMethods="Both")
    ctoken = token_of(card)
    cbody = {"attemptToken": open_page(client, ctoken)["attemptToken"],
             "paymentMethodToken": "sim_card_ok_1a2b", "methodType": "Card"}  # fmt: skip
    assert post(client, ctoken, cbody).status_code == 200  # type: ignore[attr-defined]
    card_tx = next(t for t in shop.transactions() if t["transactionId"] != tx["transactionId"])
    with hub.deps.store.unit_of_work(readonly=True) as uow:
        assert uow.debit_authorizations.get(merchant.id, card_tx["transactionId"]) is None
