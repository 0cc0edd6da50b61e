"""PayPages on both stores: the view, the partial-payment rules, declines, double payment,
authorize-only and SMS consent after paying."""

from __future__ import annotations

import threading
from decimal import Decimal
from typing import Any

import pytest

from payhub.adapters.gateways.simulator.adapter import SimulatorGateway
from payhub.domain.consent import ConsentSource
from payhub.domain.environments import Environment
from payhub.domain.errors import Conflict, NotFound, ValidationError
from payhub.domain.invoices import InvoiceStatus
from payhub.domain.payments import Declined, MethodType, TxStatus
from payhub.services.invoices import PayPages
from tests.invoices.conftest import Invoicing, money

CARD = MethodType.CARD


def pay(
    shop: Invoicing,
    number: str,
    amount: str | None = None,
    token: str = "sim_card_ok",
    attempt: str = "a1",
    method: MethodType = CARD,
) -> Any:
    return shop.hub.pay_pages.pay(
        shop.token(number),
        amount=Decimal(amount) if amount is not None else None,
        payment_token=token,
        method_type=method,
        attempt_id=attempt,
        debit_authorized=method is MethodType.BANK_ACCOUNT,
    )


def test_the_view_shows_what_the_page_needs(shop: Invoicing, customer: dict[str, Any]) -> None:
    body = shop.invoice(customerId=customer["customerId"], allowedPaymentMethods="CardOnly")
    view = shop.hub.pay_pages.view(shop.token(body["invoiceNumber"]))
    assert view.merchant_name == "Acme Plumbing"
    assert view.environment is Environment.SANDBOX
    assert view.invoice.number == body["invoiceNumber"]
    assert view.options.fixed[0].amount == Decimal(25)
    assert view.method_types == (CARD,)
    assert view.gateway_name == "simulator"
    assert view.hosted_fields == "payhub simulator hosted fields"
    assert view.pay_url == body["payUrl"]
    assert view.receipt_url == body["payUrl"] + "/receipt"
    assert view.embed_url.endswith("/embed/" + shop.token(body["invoiceNumber"]))
    assert view.customer_name == "Ada Lovelace"
    assert view.sms_consent_offered is False
    with pytest.raises(NotFound):
        shop.hub.pay_pages.view("no-such-token")


def test_paying_in_full_marks_paid_and_records_the_payment(shop: Invoicing) -> None:
    number = shop.invoice()["invoiceNumber"]
    result = pay(shop, number)
    assert result.payment.amount.amount == Decimal(25)
    assert result.view.invoice.status is InvoiceStatus.PAID
    assert not result.view.options.can_pay
    body = shop.ok(shop.get(f"/invoices/{number}"))
    assert body["status"] == "Paid"
    assert money(body["amountPaid"]) == 25
    assert money(body["amountDue"]) == 0
    assert body["payments"][0]["transactionId"] == result.payment.transaction_id
    assert body["payments"][0]["status"] == "Captured"
    tx = shop.read(lambda uow, m: uow.transactions.get(m, result.payment.transaction_id))
    assert tx.status is TxStatus.CAPTURED
    assert tx.amount.amount == Decimal(25)
    # the same attempt again is the same payment, not a second charge
    again = pay(shop, number)
    assert again.payment == result.payment
    assert len(shop.read(lambda uow, m: uow.transactions.list(m))) == 1
    with pytest.raises(Conflict):
        pay(shop, number, attempt="a2")


def test_disabled_needs_the_full_total(shop: Invoicing) -> None:
    number = shop.invoice()["invoiceNumber"]
    with pytest.raises(ValidationError):
        pay(shop, number, "10")
    assert shop.stored(number).reserved_attempt is None
    assert pay(shop, number, "25").view.invoice.status is InvoiceStatus.PAID


def test_deposit_then_the_rest(shop: Invoicing) -> None:
    number = shop.invoice(partialPaymentMode="FixedDeposit", requiredDepositAmount=10)[
        "invoiceNumber"
    ]
    with pytest.raises(ValidationError):
        pay(shop, number, "12")
    first = pay(shop, number, "10")
    assert first.view.invoice.status is InvoiceStatus.DRAFT
    assert first.view.invoice.amount_due.amount == Decimal(15)
    assert [m.amount for m in first.view.options.fixed] == [Decimal(15)]
    with pytest.raises(ValidationError):
        pay(shop, number, "10", attempt="a2")
    rest = pay(shop, number, None, attempt="a3")
    assert rest.view.invoice.status is InvoiceStatus.PAID
    assert [p.amount.amount for p in shop.stored(number).payments] == [Decimal(10), Decimal(15)]


def test_customer_choice_repeatedly(shop: Invoicing) -> None:
    number = shop.invoice(partialPaymentMode="CustomerChoice")["invoiceNumber"]
    for i, amount in enumerate(("0.01", "20", "4.99")):
        result = pay(shop, number, amount, attempt=f"a{i}")
    assert result.view.invoice.status is InvoiceStatus.PAID
    with pytest.raises(Conflict):
        pay(shop, number, "0.01", attempt="late")


def test_a_decline_changes_nothing_and_releases_the_invoice(shop: Invoicing) -> None:
    number = shop.invoice()["invoiceNumber"]
    with pytest.raises(Declined) as declined:
        pay(shop, number, token="sim_card_decline")
    assert declined.value.status == 402
    stored = shop.stored(number)
    assert stored.reserved_attempt is None
    assert stored.payments == []
    assert stored.amount_paid.amount == 0
    assert pay(shop, number, attempt="a2").view.invoice.status is InvoiceStatus.PAID


def test_methods_follow_the_invoice(shop: Invoicing) -> None:
    number = shop.invoice(allowedPaymentMethods="CardOnly")["invoiceNumber"]
    with pytest.raises(ValidationError):
        pay(shop, number, token="sim_bank_ok", method=MethodType.BANK_ACCOUNT)
    bank = shop.invoice(allowedPaymentMethods="BankAccountOnly")["invoiceNumber"]
    with pytest.raises(ValidationError):
        pay(shop, bank)
    paid = pay(shop, bank, token="sim_bank_ok", method=MethodType.BANK_ACCOUNT)
    assert paid.payment.status == "Submitted"
    assert paid.view.invoice.status is InvoiceStatus.PAID


def test_authorize_only_reserves_and_counts_as_paid(shop: Invoicing) -> None:
    number = shop.invoice(authorizeOnly=True, allowedPaymentMethods="CardOnly")["invoiceNumber"]
    result = pay(shop, number)
    assert result.payment.status == "Authorized"
    assert result.view.invoice.status is InvoiceStatus.PAID
    tx = shop.read(lambda uow, m: uow.transactions.get(m, result.payment.transaction_id))
    assert tx.status is TxStatus.AUTHORIZED
    assert tx.captured.amount == 0


def test_void_and_draft_states_on_the_page(shop: Invoicing) -> None:
    number = shop.invoice()["invoiceNumber"]
    shop.ok(shop.post(f"/invoices/{number}/void"))
    view = shop.hub.pay_pages.view(shop.token(number))
    assert not view.options.can_pay
    with pytest.raises(Conflict):
        pay(shop, number)
    assert shop.read(lambda uow, m: uow.transactions.list(m)) == []


def test_an_attempt_in_flight_blocks_a_second_one(shop: Invoicing) -> None:
    """The first attempt holds the invoice while the gateway works; a second gets 409."""
    number = shop.invoice()["invoiceNumber"]
    token = shop.token(number)
    entered, leave = threading.Event(), threading.Event()
    simulator = shop.hub.gateway_adapters["simulator"]
    assert isinstance(simulator, SimulatorGateway)
    original = simulator.charge

    def slow_charge(creds: Any, request: Any) -> Any:
        entered.set()
        assert leave.wait(30)
        return original(creds, request)

    simulator.charge = slow_charge  # type: ignore[method-assign]
    outcome: list[Any] = []
    pages: PayPages = shop.hub.pay_pages
    first = threading.Thread(
        target=lambda: outcome.append(
            pages.pay(token, amount=None, payment_token="sim_card_ok", method_type=CARD,
                      attempt_id="tab-1")
        )
    )  # fmt: skip
    first.start()
    try:
        assert entered.wait(30)
        assert shop.hub.pay_pages.view(token).payment_in_progress
        with pytest.raises(Conflict):
            pages.pay(token, amount=None, payment_token="sim_card_ok", method_type=CARD,
                      attempt_id="tab-2")  # fmt: skip
        assert shop.post(f"/invoices/{number}/void").status_code == 409
    finally:
        leave.set()
        first.join(30)
        simulator.charge = original  # type: ignore[method-assign]
    assert outcome[0].view.invoice.status is InvoiceStatus.PAID
    assert len(shop.read(lambda uow, m: uow.transactions.list(m))) == 1


def test_sms_consent_only_after_a_payment(shop: Invoicing, customer: dict[str, Any]) -> None:
    number = shop.invoice(customerId=customer["customerId"])["invoiceNumber"]
    token = shop.token(number)
    with pytest.raises(Conflict):
        shop.hub.pay_pages.give_sms_consent(token, phone=None)
    pay(shop, number)
    view = shop.hub.pay_pages.view(token)
    assert view.sms_consent_offered
    assert not view.sms_consent_given
    state = shop.hub.pay_pages.give_sms_consent(token, phone="+1 415 555 2671")
    assert state.consent
    assert state.source is ConsentSource.PAY_PAGE
    history = shop.read(lambda uow, m: uow.customers.consent_history(m, customer["customerId"]))
    assert history[0].source is ConsentSource.PAY_PAGE
    assert history[0].recorded_by == f"pay-page:{number}"
    assert shop.hub.pay_pages.view(token).sms_consent_given
    alone = shop.invoice()["invoiceNumber"]
    pay(shop, alone)
    with pytest.raises(Conflict):
        shop.hub.pay_pages.give_sms_consent(shop.token(alone), phone="+1 415 555 2671")
