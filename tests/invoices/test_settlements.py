"""Settled outside payhub, in the domain: the store-order decision per status, the input
rules, and a property: whatever was paid before, a settlement leaves nothing due."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from payhub.domain.errors import Conflict, ValidationError
from payhub.domain.invoices import (
    ExternalSettlement,
    InvoiceStatus,
    LineInput,
    PartialPaymentMode,
    PaymentSourceKind,
    StoreOrderStatus,
    check_payment,
    clean_settlement,
    mark_void,
    settle_outside,
    settlement_of,
    should_import_order,
)
from payhub.domain.money import Money
from payhub.domain.payments import MethodType
from tests.invoices.test_domain import NOW, make_invoice, pay

OUTSIDE = [
    PaymentSourceKind.ACCOUNTING_ONLINE,
    PaymentSourceKind.ACCOUNTING_DESKTOP,
    PaymentSourceKind.CRM,
    PaymentSourceKind.STOREFRONT,
]


@pytest.mark.parametrize(
    ("status", "imported"),
    [
        (StoreOrderStatus.PAID, True),
        (StoreOrderStatus.UNPAID, False),
        (StoreOrderStatus.ON_HOLD, False),
        (StoreOrderStatus.CANCELLED, False),
        (StoreOrderStatus.FAILED, False),
    ],
)
def test_only_an_order_the_store_counts_as_paid_is_imported(
    status: StoreOrderStatus, imported: bool
) -> None:
    assert should_import_order(status) is imported


def test_every_store_order_status_has_a_decision() -> None:
    assert {s.value for s in StoreOrderStatus} == {
        "paid",
        "unpaid",
        "on-hold",
        "cancelled",
        "failed",
    }


def test_which_sources_are_outside_payhub() -> None:
    assert [s for s in PaymentSourceKind if s.external] == OUTSIDE


@pytest.mark.parametrize(
    ("source", "reference", "system", "field"),
    [
        (PaymentSourceKind.PAY_PAGE, "r", None, "source"),
        (PaymentSourceKind.SCHEDULE, "r", None, "source"),
        (PaymentSourceKind.ACCOUNTING_ONLINE, " ", None, "externalReference"),
        (PaymentSourceKind.ACCOUNTING_ONLINE, "r" * 201, None, "externalReference"),
        (PaymentSourceKind.ACCOUNTING_DESKTOP, "r\n1", None, "externalReference"),
        (PaymentSourceKind.ACCOUNTING_ONLINE, "r", "crm-primary", "externalSystem"),
        (PaymentSourceKind.CRM, "r", None, "externalSystem"),
        (PaymentSourceKind.CRM, "r", "  ", "externalSystem"),
        (PaymentSourceKind.CRM, "r", "c" * 41, "externalSystem"),
    ],
)
def test_a_settlement_needs_an_outside_source_a_reference_and_the_crm_named(
    source: PaymentSourceKind, reference: str, system: str | None, field: str
) -> None:
    with pytest.raises(ValidationError) as refused:
        clean_settlement(source, reference, system)
    assert [f.field for f in refused.value.fields] == [field]


def test_a_settlement_is_trimmed_and_the_store_name_is_optional() -> None:
    assert clean_settlement(PaymentSourceKind.CRM, " d-1 ", " crm-primary ") == (
        ExternalSettlement(PaymentSourceKind.CRM, "d-1", "crm-primary")
    )
    assert clean_settlement(PaymentSourceKind.STOREFRONT, "o-1") == ExternalSettlement(
        PaymentSourceKind.STOREFRONT, "o-1", None
    )


def test_paid_and_void_are_not_unpaid() -> None:
    settlement = ExternalSettlement(PaymentSourceKind.ACCOUNTING_ONLINE, "a-1")
    paid = make_invoice([LineInput("x", Decimal(1), Decimal(10))])
    pay(paid, paid.total)
    with pytest.raises(Conflict):
        settle_outside(paid, settlement, "ipy_x", NOW)
    void = make_invoice([LineInput("x", Decimal(1), Decimal(10))])
    mark_void(void, NOW)
    with pytest.raises(Conflict):
        settle_outside(void, settlement, "ipy_x", NOW)
    assert (paid.payments[-1].source, void.payments) == (PaymentSourceKind.PAY_PAGE, [])


@given(
    st.sampled_from(OUTSIDE),
    st.sampled_from([InvoiceStatus.DRAFT, InvoiceStatus.SENT]),
    st.decimals(min_value="0.02", max_value="100000", places=2),
    st.lists(st.decimals(min_value="0.01", max_value="100000", places=2), max_size=5),
)
def test_a_settlement_of_an_unpaid_invoice_leaves_nothing_due(
    source: PaymentSourceKind,
    start: InvoiceStatus,
    price: Decimal,
    partials: list[Decimal],
) -> None:
    invoice = make_invoice(
        [LineInput("x", Decimal(1), price)], mode=PartialPaymentMode.CUSTOMER_CHOICE
    )
    invoice.status = start
    for amount in partials:
        if amount < invoice.amount_due.amount:  # partial payments only: still unpaid
            pay(invoice, check_payment(invoice, amount, MethodType.CARD))
    assert invoice.status is start
    paid_before = invoice.amount_paid
    settlement = ExternalSettlement(
        source, "ref-1", "crm-primary" if source is PaymentSourceKind.CRM else None
    )
    payment = settle_outside(invoice, settlement, "ipy_out", NOW)
    assert invoice.status is InvoiceStatus.PAID
    assert invoice.amount_due == Money.zero("USD")
    assert invoice.amount_paid == invoice.total
    assert payment.amount == invoice.total - paid_before
    assert payment.amount.amount > 0
    assert (payment.transaction_id, payment.method_type) == (None, None)
    assert settlement_of(invoice, settlement) == payment
    assert settlement_of(invoice, ExternalSettlement(source, "ref-2")) is None
    with pytest.raises(Conflict):  # Paid now: nothing more to settle
        settle_outside(invoice, settlement, "ipy_again", NOW)
    assert invoice.amount_paid == invoice.total
