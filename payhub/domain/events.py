"""Domain events: what happened to a provider's objects, recorded with the change itself.

Every change that matters outside payhub (an invoice paid, a charge refunded, a schedule
paused) is recorded as a ``DomainEvent`` in the unit of work of that change, so the event
exists exactly when the change committed (``payhub.services.events.publish``). Reactions
(messaging, webhooks, the integrations) each enqueue their own job in that same transaction.

Types are wire strings in the Stripe / Standard Webhooks style, ``<object>.<what happened>``
in the past tense, lower snake case. ``CATALOGUE`` lists every type with the object it is
about and when it fires; docs/architecture.md and docs/webhooks.md show the same table (a
test keeps them in step). Adding an event is one ``EventType`` here and a ``publish`` where
the change happens; types are never renamed or reused for something else.

``data`` is a snapshot of the object, exactly as the API returns it at the moment of the
change (the ``Snapshots`` port renders it); ``details`` names what the object alone does not
say: which payment paid an invoice, which run of a schedule was charged.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

import attrs

EVENT_PREFIX = "evt"
RETENTION_DAYS = 30  # GET /api/events reaches back this far; the worker purges older events


class ObjectType(StrEnum):
    """What an event is about; ``objectId`` is the id the API returns for it."""

    PAYMENT = "payment"  # a transaction, txn_…
    INVOICE = "invoice"  # inv_… (the API addresses invoices by invoiceNumber, also in data)
    CUSTOMER = "customer"  # cus_…
    SCHEDULED_PAYMENT = "scheduled_payment"  # sch_…
    SCHEDULE_REQUEST = "schedule_request"  # the request's id
    SHORT_LINK = "short_link"  # the link's code (GET /api/short-links/{code})


@attrs.frozen
class EventType:
    """One entry of the catalogue: the wire string, its object and when it fires."""

    name: str  # the catalogue's name, e.g. InvoicePaid
    type: str  # the wire string, e.g. invoice.paid
    object_type: ObjectType
    fires: str  # when, in one sentence (the docs' catalogue)

    def __str__(self) -> str:
        return self.type


_P, _I, _C = ObjectType.PAYMENT, ObjectType.INVOICE, ObjectType.CUSTOMER
_S, _R, _L = ObjectType.SCHEDULED_PAYMENT, ObjectType.SCHEDULE_REQUEST, ObjectType.SHORT_LINK

InvoiceSent = EventType(
    "InvoiceSent", "invoice.sent", _I, "An invoice is sent (or sent again): its pay link goes out."
)
InvoicePaid = EventType(
    "InvoicePaid",
    "invoice.paid",
    _I,
    "A payment leaves nothing due: by the pay page, a schedule, or settled outside payhub"
    " (accounting, CRM, a paid store order).",
)
InvoicePartiallyPaid = EventType(
    "InvoicePartiallyPaid",
    "invoice.partially_paid",
    _I,
    "A payment is recorded on an invoice and an amount is still due (a deposit, an installment).",
)
InvoiceVoided = EventType("InvoiceVoided", "invoice.voided", _I, "An invoice is voided.")
PaymentSucceeded = EventType(
    "PaymentSucceeded",
    "payment.succeeded",
    _P,
    "A charge or authorization succeeds (status Captured, Authorized, Submitted for ACH, or"
    " CapturePending), from the API, the pay page or a schedule.",
)
PaymentFailed = EventType(
    "PaymentFailed",
    "payment.failed",
    _P,
    "A charge or authorization is declined or fails at the gateway (status Failed).",
)
PaymentCaptured = EventType(
    "PaymentCaptured", "payment.captured", _P, "An authorization is captured (all or part)."
)
PaymentRefunded = EventType(
    "PaymentRefunded", "payment.refunded", _P, "A payment is refunded (all or part)."
)
PaymentVoided = EventType("PaymentVoided", "payment.voided", _P, "An authorization is voided.")
CustomerCreated = EventType("CustomerCreated", "customer.created", _C, "A customer is created.")
ScheduledPaymentCreated = EventType(
    "ScheduledPaymentCreated",
    "scheduled_payment.created",
    _S,
    "A scheduled payment is created (through the API, or by a customer approving a request).",
)
ScheduledPaymentUpcoming = EventType(
    "ScheduledPaymentUpcoming",
    "scheduled_payment.upcoming",
    _S,
    "A scheduled run is 24 hours away (sent only for a first attempt planned further ahead).",
)
ScheduledPaymentSucceeded = EventType(
    "ScheduledPaymentSucceeded",
    "scheduled_payment.charge_succeeded",
    _S,
    "A run of a schedule (scheduled or run-now) charged the saved method; details name the run.",
)
ScheduledPaymentChargeFailed = EventType(
    "ScheduledPaymentChargeFailed",
    "scheduled_payment.charge_failed",
    _S,
    "A run of a schedule failed (declined, or the saved method is gone); details say whether it"
    " counted toward the schedule's retries and when the next attempt is.",
)
ScheduledPaymentPaused = EventType(
    "ScheduledPaymentPaused", "scheduled_payment.paused", _S, "A schedule is paused."
)
ScheduledPaymentResumed = EventType(
    "ScheduledPaymentResumed",
    "scheduled_payment.resumed",
    _S,
    "A paused or failed schedule is resumed.",
)
ScheduledPaymentFailed = EventType(
    "ScheduledPaymentFailed",
    "scheduled_payment.failed",
    _S,
    "A schedule stops after its last retry failed (state Failed).",
)
ScheduledPaymentCancelled = EventType(
    "ScheduledPaymentCancelled", "scheduled_payment.cancelled", _S, "A schedule is cancelled."
)
ScheduledPaymentCompleted = EventType(
    "ScheduledPaymentCompleted",
    "scheduled_payment.completed",
    _S,
    "A schedule ends: its last charge, its end date or maximum count reached, or the invoice"
    " it pays settled.",
)
ScheduleRequestApproved = EventType(
    "ScheduleRequestApproved",
    "schedule_request.approved",
    _R,
    "A customer approves a schedule request (the schedule it made follows as"
    " scheduled_payment.created).",
)
ShortLinkRevoked = EventType(
    "ShortLinkRevoked",
    "short_link.revoked",
    _L,
    "A short link is revoked: deleted through the API, or its target domain blocked for abuse.",
)

CATALOGUE: tuple[EventType, ...] = (
    InvoiceSent,
    InvoicePaid,
    InvoicePartiallyPaid,
    InvoiceVoided,
    PaymentSucceeded,
    PaymentFailed,
    PaymentCaptured,
    PaymentRefunded,
    PaymentVoided,
    CustomerCreated,
    ScheduledPaymentCreated,
    ScheduledPaymentUpcoming,
    ScheduledPaymentSucceeded,
    ScheduledPaymentChargeFailed,
    ScheduledPaymentPaused,
    ScheduledPaymentResumed,
    ScheduledPaymentFailed,
    ScheduledPaymentCancelled,
    ScheduledPaymentCompleted,
    ScheduleRequestApproved,
    ShortLinkRevoked,
)
_BY_TYPE = {e.type: e for e in CATALOGUE}
TYPES: frozenset[str] = frozenset(_BY_TYPE)


def utc_text(moment: datetime | None) -> str | None:
    """An instant in ``details`` as the API writes instants (``2025-03-18T15:00:00Z``)."""
    if moment is None:
        return None
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def event_type(type_: str) -> EventType | None:
    """The catalogue entry of a wire string, or ``None`` for an unknown one."""
    return _BY_TYPE.get(type_)


@attrs.frozen
class DomainEvent:
    """Something that happened to one object of one provider (and, mostly, one merchant).

    ``merchant_id`` is ``None`` for a provider's own objects (a provider-level short link).
    ``data`` and ``details`` hold JSON values only (money as ``Decimal`` or ``int``).
    """

    id: str  # evt_…
    type: str  # a wire string of the catalogue
    provider_id: str
    merchant_id: str | None
    object_type: ObjectType
    object_id: str
    created_at: datetime  # the clock's, UTC
    data: Mapping[str, Any]
    details: Mapping[str, Any] = attrs.field(factory=dict)
