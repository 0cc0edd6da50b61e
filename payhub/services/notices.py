"""What happens to messages when invoices and schedules change: the seam between those
services and messaging (issue 8 fills it in).

Each function runs inside the caller's unit of work, so a message is queued in the same
transaction as the change that causes it (a transactional outbox): if the change rolls
back, nothing is sent; if it commits, the worker delivers the message.
"""

from __future__ import annotations

from datetime import datetime

from payhub.domain.accounts import Merchant
from payhub.domain.money import Money
from payhub.ports import UnitOfWork
from payhub.services.deps import Deps


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
    return False


def invoice_paid(
    uow: UnitOfWork,
    deps: Deps,
    *,
    merchant: Merchant,
    customer_id: str | None,
    invoice_number: str,
    amount_paid: Money,
    amount_due: Money,
    receipt_url: str,
) -> None:
    """Text (and email) the receipt of a payment on an invoice."""


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
