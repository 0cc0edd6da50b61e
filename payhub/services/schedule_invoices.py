"""Where scheduled payments meet invoices: an itemised run's invoice, and recording a run's
payment on it, through the invoice service's functions for an open unit of work."""

from __future__ import annotations

from payhub.domain.accounts import Merchant
from payhub.domain.invoices import (
    AllowedMethods,
    Invoice,
    InvoiceStatus,
    LineInput,
    PaymentSourceKind,
)
from payhub.domain.payments import MethodType, Transaction
from payhub.domain.schedules import RunTrigger, ScheduledPayment, ScheduleRun
from payhub.ports import UnitOfWork
from payhub.services.deps import Deps
from payhub.services.invoices import InvoiceInput, issue_invoice, record_invoice_payment


def _merchant(uow: UnitOfWork, merchant_id: str) -> Merchant:
    merchant = uow.merchants.get(merchant_id)
    assert merchant is not None
    return merchant


def invoice_for_run(
    uow: UnitOfWork, deps: Deps, schedule: ScheduledPayment, trigger: RunTrigger, number: int
) -> str:
    """A new Sent invoice with the schedule's lines, tax percentage (copied at creation) and
    addresses; a blank bill-to takes the customer's billing address as it is now."""
    label = "run" if trigger is RunTrigger.SCHEDULED else "extra run"
    invoice = issue_invoice(
        uow,
        deps,
        _merchant(uow, schedule.merchant_id),
        InvoiceInput(
            line_items=[
                LineInput(
                    x.description, x.quantity, x.unit_price.amount, x.is_taxable, x.product_id
                )
                for x in schedule.lines
            ],
            gateway=schedule.gateway,
            customer_id=schedule.customer_id,
            currency=schedule.currency,
            tax_rate_percent=schedule.tax_percent,
            tax_percent_settled=True,  # charged as shown: no location rate added at a run
            allowed_payment_methods=AllowedMethods.CARD_ONLY
            if schedule.method_type is MethodType.CARD
            else AllowedMethods.BANK_ACCOUNT_ONLY,
            bill_to_address=schedule.bill_to,
            ship_to_address=schedule.ship_to,
            description=schedule.description
            or f"Scheduled payment {schedule.id}, {label} {number}",
        ),
        status=InvoiceStatus.SENT,
    )
    return invoice.number


def open_invoice(uow: UnitOfWork, merchant_id: str, number: str) -> Invoice | None:
    """The invoice a run pays, locked; None when it is gone, Void or fully paid."""
    invoice = uow.invoices.get(merchant_id, number, for_update=True)
    if invoice is None or invoice.status in (InvoiceStatus.VOID, InvoiceStatus.PAID):
        return None
    return invoice if invoice.amount_due.amount > 0 else None


def record_run_payment(
    uow: UnitOfWork, deps: Deps, schedule: ScheduledPayment, run: ScheduleRun, tx: Transaction
) -> None:
    assert run.invoice_number is not None
    invoice = uow.invoices.get(schedule.merchant_id, run.invoice_number, for_update=True)
    if invoice is None:
        return
    record_invoice_payment(
        uow,
        deps,
        _merchant(uow, schedule.merchant_id),
        invoice,
        tx,
        source=PaymentSourceKind.SCHEDULE,
    )
