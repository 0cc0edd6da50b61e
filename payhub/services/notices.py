"""Texting and email as a reaction to domain events (``Notices``), and what each says.

Invoices and schedules only emit events (``payhub.services.events``); this reaction, run in
the unit of work of the change, decides what to email or text:

- ``invoice.sent``: the pay link, by email and text (``PayLink``);
- ``invoice.paid`` / ``invoice.partially_paid`` paid through payhub (not settled outside
  it): the receipt of that payment, by email and text (``Receipt``);
- ``scheduled_payment.charge_failed`` that counted toward the schedule's retries: the
  failed-payment text (``FailedPayment``), naming the next attempt or saying it stopped;
- ``scheduled_payment.upcoming``: the reminder text (``ScheduleReminder``).

A message is queued in the same transaction as the change that causes it (a transactional
outbox): if the change rolls back, nothing is sent; if it commits, the worker delivers it.
Texts pass the SMS gate and quiet hours (``payhub.services.messaging``); a refused text is
still written, with its reason, so the merchant can see why nothing went out. Each message
names the event it answers (``Message.event_id``). The facts come from the event: its
``data`` (the object as the API returns it) and ``details``.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal
from typing import Any

from payhub.domain import events as catalogue
from payhub.domain import messaging as texts
from payhub.domain.accounts import Merchant, zone_of
from payhub.domain.customers import Customer
from payhub.domain.events import DomainEvent
from payhub.domain.messaging import TextKind
from payhub.domain.money import Money, round_half_up
from payhub.ports import UnitOfWork
from payhub.services.deps import Deps
from payhub.services.messaging import queue_email, queue_text
from payhub.services.profiles import brand_of


def _customer(uow: UnitOfWork, merchant: Merchant, customer_id: str | None) -> Customer | None:
    return uow.customers.get(merchant.id, customer_id) if customer_id else None


def _day(merchant: Merchant, moment: datetime) -> str:
    """A date as the customer reads it: on the merchant's calendar (``Mar 9, 2025``)."""
    local = moment.astimezone(zone_of(merchant))
    return f"{local:%b} {local.day}, {local.year}"


def invoice_sent(
    uow: UnitOfWork,
    deps: Deps,
    *,
    merchant: Merchant,
    customer_id: str | None,
    invoice_number: str,
    amount_due: Money,
    pay_url: str,
    event_id: str | None = None,
) -> bool:
    """Email the pay link to the customer (and text it when that kind is on and the SMS gate
    allows). Returns whether an email was queued ("if email is configured")."""
    customer = _customer(uow, merchant, customer_id)
    if customer is None:
        return False
    brand = brand_of(uow, merchant)
    name = brand.name
    subject, body = texts.pay_link_email(
        name, invoice_number, amount_due, pay_url, brand.contact_lines
    )
    emailed = queue_email(
        uow, deps, merchant, customer, TextKind.PAY_LINK, subject, body, event_id=event_id
    )
    text = texts.pay_link_text(name, invoice_number, amount_due, pay_url)
    queue_text(uow, deps, merchant, customer, TextKind.PAY_LINK, text, event_id=event_id)
    return emailed is not None


def invoice_paid(
    uow: UnitOfWork,
    deps: Deps,
    *,
    merchant: Merchant,
    customer_id: str | None,
    invoice_number: str,
    payment_amount: Money,
    amount_paid: Money,
    amount_due: Money,
    receipt_url: str,
    event_id: str | None = None,
) -> None:
    """Text (and email) the receipt of one payment on an invoice (``amount_paid`` is the
    invoice's total so far)."""
    customer = _customer(uow, merchant, customer_id)
    if customer is None:
        return
    brand = brand_of(uow, merchant)
    name = brand.name
    subject, body = texts.receipt_email(
        name,
        invoice_number,
        payment_amount,
        amount_paid,
        amount_due,
        receipt_url,
        brand.contact_lines,
    )
    queue_email(uow, deps, merchant, customer, TextKind.RECEIPT, subject, body, event_id=event_id)
    text = texts.receipt_text(
        name, invoice_number, payment_amount, amount_paid, amount_due, receipt_url
    )
    queue_text(uow, deps, merchant, customer, TextKind.RECEIPT, text, event_id=event_id)


def scheduled_payment_failed(
    uow: UnitOfWork,
    deps: Deps,
    *,
    merchant: Merchant,
    customer_id: str,
    schedule_id: str,
    amount: Money,
    failures: int,
    next_attempt_at: datetime | None,
    event_id: str | None = None,
) -> None:
    """Text the failed-payment notice (``next_attempt_at`` is None once the schedule failed)."""
    customer = _customer(uow, merchant, customer_id)
    if customer is None:
        return
    then = _day(merchant, next_attempt_at) if next_attempt_at is not None else None
    text = texts.failed_payment_text(brand_of(uow, merchant).name, amount, then)
    queue_text(uow, deps, merchant, customer, TextKind.FAILED_PAYMENT, text, event_id=event_id)


def scheduled_payment_upcoming(
    uow: UnitOfWork,
    deps: Deps,
    *,
    merchant: Merchant,
    customer_id: str,
    schedule_id: str,
    amount: Money,
    run_at: datetime,
    event_id: str | None = None,
) -> None:
    """Text the reminder before a scheduled payment runs."""
    customer = _customer(uow, merchant, customer_id)
    if customer is None:
        return
    text = texts.reminder_text(brand_of(uow, merchant).name, amount, _day(merchant, run_at))
    queue_text(uow, deps, merchant, customer, TextKind.SCHEDULE_REMINDER, text, event_id=event_id)


# --- the reaction ----------------------------------------------------------------------------

TYPES = frozenset(
    {
        catalogue.InvoiceSent.type,
        catalogue.InvoicePaid.type,
        catalogue.InvoicePartiallyPaid.type,
        catalogue.ScheduledPaymentChargeFailed.type,
        catalogue.ScheduledPaymentUpcoming.type,
    }
)


def _money(value: Any, currency: str) -> Money:
    return Money(round_half_up(Decimal(str(value)), currency), currency)


def _instant(value: Any) -> datetime | None:
    return None if value is None else datetime.fromisoformat(str(value).replace("Z", "+00:00"))


def _payment(data: Mapping[str, Any], payment_id: Any) -> Mapping[str, Any] | None:
    for payment in data.get("payments") or ():
        if payment.get("paymentId") == payment_id:
            found: Mapping[str, Any] = payment
            return found
    return None


class Notices:
    """The messaging reaction (registered as ``messaging`` for ``TYPES``)."""

    def __init__(self, deps: Deps) -> None:
        self._d = deps

    def __call__(self, uow: UnitOfWork, event: DomainEvent) -> None:
        if event.merchant_id is None or event.type not in TYPES:
            return
        merchant = uow.merchants.get(event.merchant_id)
        if merchant is None:  # pragma: no cover - merchants are never deleted
            return
        data, details = event.data, event.details
        if event.type == catalogue.InvoiceSent.type:
            invoice_sent(
                uow,
                self._d,
                merchant=merchant,
                customer_id=data.get("customerId"),
                invoice_number=str(data["invoiceNumber"]),
                amount_due=_money(data["amountDue"], data["currency"]),
                pay_url=str(data["payUrl"]),
                event_id=event.id,
            )
        elif event.type in (catalogue.InvoicePaid.type, catalogue.InvoicePartiallyPaid.type):
            payment = _payment(data, details.get("paymentId"))
            if payment is None or payment.get("transactionId") is None:
                return  # settled outside payhub: the merchant's own system sends the receipt
            currency = str(data["currency"])
            invoice_paid(
                uow,
                self._d,
                merchant=merchant,
                customer_id=data.get("customerId"),
                invoice_number=str(data["invoiceNumber"]),
                payment_amount=_money(payment["amount"], currency),
                amount_paid=_money(data["amountPaid"], currency),
                amount_due=_money(data["amountDue"], currency),
                receipt_url=str(details["receiptUrl"]),
                event_id=event.id,
            )
        elif event.type == catalogue.ScheduledPaymentChargeFailed.type:
            if not details.get("counted"):
                return  # a run-now charge, or one recorded after a pause: nothing to retry
            scheduled_payment_failed(
                uow,
                self._d,
                merchant=merchant,
                customer_id=str(data["customerId"]),
                schedule_id=event.object_id,
                amount=_money(details["amount"], str(data["currency"])),
                failures=int(data["failureCount"]),
                next_attempt_at=_instant(details.get("nextAttemptAtUtc")),
                event_id=event.id,
            )
        else:  # ScheduledPaymentUpcoming
            run_at = _instant(details.get("runAtUtc"))
            assert run_at is not None
            scheduled_payment_upcoming(
                uow,
                self._d,
                merchant=merchant,
                customer_id=str(data["customerId"]),
                schedule_id=event.object_id,
                amount=_money(details["amount"], str(data["currency"])),
                run_at=run_at,
                event_id=event.id,
            )
