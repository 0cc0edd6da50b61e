"""What happens to messages when invoices and schedules change: the seam between those
services and messaging (issue 8 fills it in).

Each function runs inside the caller's unit of work, so a message is queued in the same
transaction as the change that causes it (a transactional outbox): if the change rolls
back, nothing is sent; if it commits, the worker delivers the message. Texts pass the SMS
gate and quiet hours (``payhub.services.messaging``); a refused text is still written, with
its reason, so the merchant can see why nothing went out.
"""

from __future__ import annotations

from datetime import datetime

from payhub.domain import messaging as texts
from payhub.domain.accounts import Merchant, zone_of
from payhub.domain.customers import Customer
from payhub.domain.messaging import TextKind
from payhub.domain.money import Money
from payhub.ports import UnitOfWork
from payhub.services.deps import Deps
from payhub.services.messaging import queue_email, queue_text


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
) -> bool:
    """Email the pay link to the customer (and text it when that kind is on and the SMS gate
    allows). Returns whether an email was queued ("if email is configured")."""
    customer = _customer(uow, merchant, customer_id)
    if customer is None:
        return False
    name = merchant.display_name
    subject, body = texts.pay_link_email(name, invoice_number, amount_due, pay_url)
    emailed = queue_email(uow, deps, merchant, customer, TextKind.PAY_LINK, subject, body)
    text = texts.pay_link_text(name, invoice_number, amount_due, pay_url)
    queue_text(uow, deps, merchant, customer, TextKind.PAY_LINK, text)
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
) -> None:
    """Text (and email) the receipt of one payment on an invoice (``amount_paid`` is the
    invoice's total so far)."""
    customer = _customer(uow, merchant, customer_id)
    if customer is None:
        return
    name = merchant.display_name
    subject, body = texts.receipt_email(
        name, invoice_number, payment_amount, amount_paid, amount_due, receipt_url
    )
    queue_email(uow, deps, merchant, customer, TextKind.RECEIPT, subject, body)
    text = texts.receipt_text(
        name, invoice_number, payment_amount, amount_paid, amount_due, receipt_url
    )
    queue_text(uow, deps, merchant, customer, TextKind.RECEIPT, text)


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
) -> None:
    """Text the failed-payment notice (``next_attempt_at`` is None once the schedule failed)."""
    customer = _customer(uow, merchant, customer_id)
    if customer is None:
        return
    then = _day(merchant, next_attempt_at) if next_attempt_at is not None else None
    text = texts.failed_payment_text(merchant.display_name, amount, then)
    queue_text(uow, deps, merchant, customer, TextKind.FAILED_PAYMENT, text)


def scheduled_payment_upcoming(
    uow: UnitOfWork,
    deps: Deps,
    *,
    merchant: Merchant,
    customer_id: str,
    schedule_id: str,
    amount: Money,
    run_at: datetime,
) -> None:
    """Text the reminder before a scheduled payment runs."""
    customer = _customer(uow, merchant, customer_id)
    if customer is None:
        return
    text = texts.reminder_text(merchant.display_name, amount, _day(merchant, run_at))
    queue_text(uow, deps, merchant, customer, TextKind.SCHEDULE_REMINDER, text)
