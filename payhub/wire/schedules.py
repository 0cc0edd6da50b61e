"""Scheduled payments, their runs and schedule requests as the API returns them."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal

import msgspec

from payhub.domain.money import Money
from payhub.domain.schedules import (
    ScheduledPayment,
    ScheduleLine,
    ScheduleRequest,
    ScheduleRun,
    priced,
    totals,
)
from payhub.services.schedules import ScheduleView
from payhub.wire.addresses import AddressOut
from payhub.wire.invoices import LineItemOut


class RunOut(msgspec.Struct, rename="camel"):
    """One attempt. `trigger`: `Scheduled` or `RunNow`; `outcome`: `Pending`, `Succeeded`,
    `Failed`."""

    run_id: str
    trigger: str
    run_number: int
    attempt: int
    scheduled_for_utc: datetime
    started_at_utc: datetime
    amount: Decimal
    currency: str
    outcome: str
    transaction_id: str | None
    invoice_number: str | None
    failure: str | None
    finished_at_utc: datetime | None

    @classmethod
    def of(cls, r: ScheduleRun) -> RunOut:
        return cls(
            r.id,
            r.trigger.value,
            r.run_number,
            r.attempt,
            r.scheduled_for,
            r.started_at,
            r.amount.amount,
            r.amount.currency,
            r.outcome.value,
            r.transaction_id,
            r.invoice_number,
            r.failure,
            r.finished_at,
        )


def _lines_out(lines: list[ScheduleLine], percent: Decimal | None) -> list[LineItemOut] | None:
    return [LineItemOut.of(x) for x in priced(lines, percent)] if lines else None


def _sums(
    amount: Money | None, lines: list[ScheduleLine], percent: Decimal | None, currency: str
) -> tuple[Decimal, Decimal, Decimal]:
    if amount is not None:
        return amount.amount, amount.amount, Money.zero(amount.currency).amount
    t = totals(lines, percent, currency)
    return t.total.amount, t.subtotal.amount, t.tax.amount


class ScheduledPaymentOut(msgspec.Struct, rename="camel"):
    """`kind`: `OneTime` or `Recurring`. `status`: `Active`, `Paused`, `Failed`, `Cancelled`,
    `Completed`. `amount` is what each run charges (the total with tax for line items)."""

    scheduled_payment_id: str
    customer_id: str
    payment_method_id: str
    gateway: str
    type: str
    kind: str
    cadence: str | None
    start_at_utc: datetime
    end_date: date | None
    max_charges: int | None
    time_zone: str
    currency: str
    amount: Decimal
    subtotal: Decimal
    tax: Decimal
    line_items: list[LineItemOut] | None
    tax_rate_id: str | None
    tax_rate_percent: Decimal | None
    bill_to_address: AddressOut | None
    ship_to_address: AddressOut | None
    description: str | None
    invoice_number: str | None
    status: str
    next_run_number: int | None
    next_run_at_utc: datetime | None
    failure_count: int
    charge_count: int
    last_failure: str | None
    created_at_utc: datetime
    updated_at_utc: datetime
    recent_runs: list[RunOut] | None = None

    @classmethod
    def of(cls, s: ScheduledPayment, runs: list[ScheduleRun] | None = None) -> ScheduledPaymentOut:
        total, subtotal, tax = _sums(s.amount, s.lines, s.tax_percent, s.currency)
        return cls(
            scheduled_payment_id=s.id,
            customer_id=s.customer_id,
            payment_method_id=s.payment_method_id,
            gateway=s.gateway,
            type=s.method_type.value,
            kind=s.kind.value,
            cadence=s.cadence.value if s.cadence else None,
            start_at_utc=s.due_of(1),
            end_date=s.end_date,
            max_charges=s.max_charges,
            time_zone=s.time_zone,
            currency=s.currency,
            amount=total,
            subtotal=subtotal,
            tax=tax,
            line_items=_lines_out(s.lines, s.tax_percent),
            tax_rate_id=s.tax_rate_id,
            tax_rate_percent=s.tax_percent,
            bill_to_address=AddressOut.of(s.bill_to),
            ship_to_address=AddressOut.of(s.ship_to),
            description=s.description,
            invoice_number=s.invoice_number,
            status=s.status.value,
            next_run_number=s.next_run_number if s.next_run_at else None,
            next_run_at_utc=s.next_run_at,
            failure_count=s.failures,
            charge_count=s.charges,
            last_failure=s.last_failure,
            created_at_utc=s.created_at,
            updated_at_utc=s.updated_at,
            recent_runs=[RunOut.of(r) for r in runs] if runs is not None else None,
        )

    @classmethod
    def view(cls, v: ScheduleView) -> ScheduledPaymentOut:
        return cls.of(v.schedule, v.runs)


class ScheduleRequestOut(msgspec.Struct, rename="camel"):
    """`status`: `Pending`, `Approved` (then `scheduledPaymentId` is set) or `Cancelled`.
    Send the customer `approvalUrl`."""

    schedule_request_id: str
    customer_id: str
    gateway: str
    kind: str
    cadence: str | None
    start_at_utc: datetime
    end_date: date | None
    max_charges: int | None
    currency: str
    amount: Decimal
    subtotal: Decimal
    tax: Decimal
    line_items: list[LineItemOut] | None
    tax_rate_id: str | None
    tax_rate_percent: Decimal | None
    bill_to_address: AddressOut | None
    ship_to_address: AddressOut | None
    description: str | None
    invoice_number: str | None
    status: str
    approval_url: str
    scheduled_payment_id: str | None
    approved_at_utc: datetime | None
    cancelled_at_utc: datetime | None
    created_at_utc: datetime

    @classmethod
    def of(cls, r: ScheduleRequest, url: str) -> ScheduleRequestOut:
        total, subtotal, tax = _sums(r.amount, r.lines, r.tax_percent, r.currency)
        return cls(
            schedule_request_id=r.id,
            customer_id=r.customer_id,
            gateway=r.gateway,
            kind=r.kind.value,
            cadence=r.cadence.value if r.cadence else None,
            start_at_utc=r.first_run_at,
            end_date=r.end_date,
            max_charges=r.max_charges,
            currency=r.currency,
            amount=total,
            subtotal=subtotal,
            tax=tax,
            line_items=_lines_out(r.lines, r.tax_percent),
            tax_rate_id=r.tax_rate_id,
            tax_rate_percent=r.tax_percent,
            bill_to_address=AddressOut.of(r.bill_to),
            ship_to_address=AddressOut.of(r.ship_to),
            description=r.description,
            invoice_number=r.invoice_number,
            status=r.status.value,
            approval_url=url,
            scheduled_payment_id=r.schedule_id,
            approved_at_utc=r.approved_at,
            cancelled_at_utc=r.cancelled_at,
            created_at_utc=r.created_at,
        )
