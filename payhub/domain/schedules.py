"""Scheduled payments: cadence math, the state machine and the retry rule (pure, no I/O).

Cadence is computed in the merchant's time zone on the *wall clock*: run ``n`` (from 1) of a
schedule that starts at local ``2025-01-31 09:00`` is the ``n-1``-th step from that anchor,
never from the previous run, so nothing drifts:

- ``Daily``/``Weekly``: the anchor date plus ``n-1`` days/weeks, at the anchor's local time.
- ``Monthly``: the anchor's day of month, or the month's last day when it is shorter
  (31 Jan -> 28/29 Feb -> 31 Mar). ``Yearly``: the same with 12 months (29 Feb -> 28 Feb in
  common years -> 29 Feb in leap years).
- A local time that does not exist (the spring-forward gap) moves forward by the gap; one
  that exists twice (fall back) takes the first. So a DST change neither skips nor doubles.

States (spec "Scheduled payment")::

    Active --pause--> Paused --resume--> Active
    Active --3rd consecutive failed attempt--> Failed --resume--> Active
    Active/Paused/Failed --cancel--> Cancelled (permanent)
    Active --last run (one-time; max charges; end date)--> Completed (final)
    Active --run-now--> Active (an out-of-band charge; nothing else changes)

Every other move is a ``Conflict`` (409). A failed attempt is retried 4 hours later; after
3 consecutive failures the schedule is ``Failed`` (paused by itself); a success resets the
count.
"""

from __future__ import annotations

import calendar
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from enum import StrEnum
from zoneinfo import ZoneInfo

import attrs

from payhub.domain.addresses import Address
from payhub.domain.errors import Conflict, FieldError
from payhub.domain.invoices import InvoiceLine, Totals, price_line
from payhub.domain.invoices import totals as invoice_totals
from payhub.domain.money import Money
from payhub.domain.payments import MethodType

RETRY_DELAY = timedelta(hours=4)
MAX_CONSECUTIVE_FAILURES = 3
REMINDER_BEFORE = timedelta(hours=24)
MAX_CHARGES_LIMIT = 10_000
LINES_MAX = 100
DESCRIPTION_MAX = 500


class Cadence(StrEnum):
    DAILY = "Daily"
    WEEKLY = "Weekly"
    MONTHLY = "Monthly"
    YEARLY = "Yearly"


class ScheduleKind(StrEnum):
    ONE_TIME = "OneTime"
    RECURRING = "Recurring"


class ScheduleStatus(StrEnum):
    ACTIVE = "Active"
    PAUSED = "Paused"
    FAILED = "Failed"
    CANCELLED = "Cancelled"
    COMPLETED = "Completed"


class RunOutcome(StrEnum):
    PENDING = "Pending"  # recorded before the gateway is called; settled by the same key
    SUCCEEDED = "Succeeded"
    FAILED = "Failed"


class RunTrigger(StrEnum):
    SCHEDULED = "Scheduled"
    RUN_NOW = "RunNow"


class RequestStatus(StrEnum):
    PENDING = "Pending"
    APPROVED = "Approved"
    CANCELLED = "Cancelled"


# --- cadence math ----------------------------------------------------------------------------


def _add_months(day: date, months: int, anchor_day: int) -> date:
    index = day.year * 12 + (day.month - 1) + months
    year, month = divmod(index, 12)
    last = calendar.monthrange(year, month + 1)[1]
    return date(year, month + 1, min(anchor_day, last))


def local_date(anchor: date, cadence: Cadence, step: int) -> date:
    """The local date of step ``step`` (from 0) after ``anchor``; month ends never drift."""
    if step < 0:
        raise ValueError("steps count from 0")
    if cadence is Cadence.DAILY:
        return anchor + timedelta(days=step)
    if cadence is Cadence.WEEKLY:
        return anchor + timedelta(weeks=step)
    months = step if cadence is Cadence.MONTHLY else 12 * step
    return _add_months(anchor, months, anchor.day)


def to_utc(local: datetime, zone: ZoneInfo) -> datetime:
    """A wall-clock time in ``zone`` as a UTC instant: a nonexistent time moves forward by
    the gap (``fold=0`` takes the offset before it), an ambiguous one takes the first."""
    return local.replace(tzinfo=zone, fold=0).astimezone(UTC)


def occurrence(
    anchor: datetime, cadence: Cadence | None, run_number: int, zone: ZoneInfo
) -> datetime:
    """When run ``run_number`` (from 1) is due, in UTC. ``anchor`` is the first run's local
    wall-clock time (naive); a one-time schedule (``cadence`` None) has only run 1."""
    if run_number < 1:
        raise ValueError("runs count from 1")
    if cadence is None:
        if run_number != 1:
            raise ValueError("a one-time schedule has one run")
        return to_utc(anchor, zone)
    day = local_date(anchor.date(), cadence, run_number - 1)
    return to_utc(datetime.combine(day, anchor.time()), zone)


def anchor_of(first_run: datetime, zone: ZoneInfo) -> datetime:
    """The local wall-clock (naive, to the second) of a first run given as an instant."""
    return first_run.astimezone(zone).replace(tzinfo=None, microsecond=0)


def _back(day: date, cadence: Cadence, steps: int) -> date | None:
    """The date ``steps`` cadence steps before ``day`` on ``day``'s day of month, or None when
    that month has no such day (then no anchor puts that step on ``day``)."""
    if cadence is Cadence.DAILY:
        return day - timedelta(days=steps)
    if cadence is Cadence.WEEKLY:
        return day - timedelta(weeks=steps)
    months = steps if cadence is Cadence.MONTHLY else 12 * steps
    index = day.year * 12 + day.month - 1 - months
    year, month = divmod(index, 12)
    if year < 1 or day.day > calendar.monthrange(year, month + 1)[1]:
        return None
    return date(year, month + 1, day.day)


def reanchor(
    cadence: Cadence | None, next_run: datetime, zone: ZoneInfo, from_number: int
) -> tuple[datetime, int]:
    """The anchor (local, naive) and the run number ``>= from_number`` that make that run fall
    exactly at ``next_run``: the number itself when its back-stepped month has the day,
    else the first later one that has (a 31st: within two months; 29 February: four years)."""
    local = anchor_of(next_run, zone)
    if cadence is None:
        return local, from_number
    for number in range(from_number, from_number + 60):
        day = _back(local.date(), cadence, number - 1)
        if day is not None:
            return datetime.combine(day, local.time()), number
    raise AssertionError("no anchor within 60 runs")  # pragma: no cover (every date has one)


def within_end(due: datetime, end_date: date | None, zone: ZoneInfo) -> bool:
    """``endDate`` is inclusive: a run whose local date is on or before it still runs."""
    return end_date is None or due.astimezone(zone).date() <= end_date


def first_run_from(
    anchor: datetime, cadence: Cadence | None, zone: ZoneInfo, not_before: datetime, start: int = 1
) -> tuple[int, datetime]:
    """The first run number ``>= start`` due at or after ``not_before`` (resuming skips what
    passed while paused). A one-time schedule's single run is then due at once."""
    if cadence is None:
        return 1, max(to_utc(anchor, zone), not_before)
    n = start
    while True:
        due = occurrence(anchor, cadence, n, zone)
        if due >= not_before:
            return n, due
        n += 1


# --- amounts ---------------------------------------------------------------------------------


@attrs.frozen
class ScheduleLine:
    description: str
    quantity: Decimal
    unit_price: Money
    is_taxable: bool = True
    product_id: str | None = None

    @property
    def total(self) -> Money:
        return self.unit_price.times(self.quantity)


def priced(lines: Sequence[ScheduleLine], tax_percent: Decimal | None) -> list[InvoiceLine]:
    """The lines as an invoice prices them (per-line tax, rounded half-up there)."""
    percent = tax_percent or Decimal(0)
    return [
        price_line(x.description, x.quantity, x.unit_price, x.is_taxable, percent, x.product_id)
        for x in lines
    ]


def totals(lines: Sequence[ScheduleLine], tax_percent: Decimal | None, currency: str) -> Totals:
    """Subtotal, tax and total, by the invoice's own line math."""
    return invoice_totals(priced(lines, tax_percent), currency)


# --- the schedule ----------------------------------------------------------------------------


@attrs.define
class ScheduledPayment:
    id: str
    merchant_id: str
    customer_id: str
    payment_method_id: str
    gateway: str
    method_type: MethodType
    kind: ScheduleKind
    cadence: Cadence | None
    anchor_local: datetime  # the first run's wall-clock time in ``time_zone`` (naive)
    time_zone: str
    end_date: date | None
    max_charges: int | None
    currency: str
    amount: Money | None  # flat, tax-free; or ``lines``
    lines: list[ScheduleLine]
    tax_rate_id: str | None
    tax_percent: Decimal | None
    bill_to: Address | None
    ship_to: Address | None
    description: str | None
    status: ScheduleStatus
    created_at: datetime
    updated_at: datetime
    next_run_number: int = 1
    next_run_at: datetime | None = None  # when the next attempt is due (None once final)
    next_attempt: int = 1  # attempt number of the next try of ``next_run_number``
    failures: int = 0  # consecutive failed attempts
    charges: int = 0  # successful scheduled charges (what ``max_charges`` counts)
    manual_runs: int = 0  # run-now attempts so far (numbers their gateway keys)
    plan: int = 0  # bumped whenever the next attempt is re-planned; stale jobs see it
    last_failure: str | None = None
    invoice_number: str | None = None  # runs pay this invoice (from a schedule request)

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.time_zone)

    @property
    def itemized(self) -> bool:
        return bool(self.lines)

    def charge_amount(self) -> Money:
        if self.amount is not None:
            return self.amount
        return totals(self.lines, self.tax_percent, self.currency).total

    def due_of(self, run_number: int) -> datetime:
        return occurrence(self.anchor_local, self.cadence, run_number, self.zone)

    # --- state machine ---------------------------------------------------------------------

    def _refuse(self, action: str, allowed: str) -> Conflict:
        return Conflict(f"cannot {action} a {self.status} scheduled payment; only {allowed}")

    def pause(self, now: datetime) -> None:
        if self.status is not ScheduleStatus.ACTIVE:
            raise self._refuse("pause", "an Active one can be paused")
        self.status = ScheduleStatus.PAUSED
        self.plan += 1
        self.updated_at = now

    def resume(self, now: datetime) -> None:
        """From Paused: the next run is the first one due from now (missed runs are skipped,
        not charged in a batch). From Failed: the failed run is tried again at once."""
        if self.status not in (ScheduleStatus.PAUSED, ScheduleStatus.FAILED):
            raise self._refuse("resume", "a Paused or Failed one can be resumed")
        if self.status is ScheduleStatus.FAILED:
            # The failed run again at once, or at the date an edit gave it (if still ahead).
            self.next_run_at = now if self.next_run_at is None else max(self.next_run_at, now)
        else:
            number, due = first_run_from(
                self.anchor_local, self.cadence, self.zone, now, self.next_run_number
            )
            if number != self.next_run_number:
                self.next_run_number, self.next_attempt = number, 1
            self.next_run_at = due
        self.failures = 0
        self.status = ScheduleStatus.ACTIVE
        self.plan += 1
        self.updated_at = now
        if self.kind is ScheduleKind.RECURRING and not within_end(
            self.next_run_at, self.end_date, self.zone
        ):
            self._complete(now)

    def cancel(self, now: datetime) -> None:
        if self.status in (ScheduleStatus.CANCELLED, ScheduleStatus.COMPLETED):
            raise self._refuse("cancel", "an Active, Paused or Failed one can be cancelled")
        self.status = ScheduleStatus.CANCELLED
        self.next_run_at = None
        self.plan += 1
        self.updated_at = now

    def check_editable(self) -> None:
        """Details change only while nothing runs (spec: edited in the portal while paused
        or failed); the API has no edit operation."""
        if self.status not in (ScheduleStatus.PAUSED, ScheduleStatus.FAILED):
            raise self._refuse("edit", "a Paused or Failed one can be edited")

    def redate(self, next_run: datetime, now: datetime) -> None:
        """The next run falls at ``next_run`` (an instant); later runs follow the cadence from
        it. Run numbers only grow (they key each run's charge at the gateway), so the next run
        keeps its number, or takes the first later one that can fall on that day."""
        self.check_editable()
        anchor, number = reanchor(self.cadence, next_run, self.zone, self.next_run_number)
        if number != self.next_run_number:
            self.next_run_number, self.next_attempt = number, 1
        self.anchor_local = anchor
        self.next_run_at = occurrence(anchor, self.cadence, number, self.zone)
        self.plan += 1
        self.updated_at = now

    def check_run_now(self) -> None:
        if self.status is not ScheduleStatus.ACTIVE:
            raise self._refuse("run", "an Active one can be run now")

    def complete(self, now: datetime) -> None:
        """Nothing is left to charge (the invoice it pays is settled)."""
        self.plan += 1
        self._complete(now)

    def _complete(self, now: datetime) -> None:
        self.status = ScheduleStatus.COMPLETED
        self.next_run_at = None
        self.updated_at = now

    def succeeded(self, now: datetime) -> None:
        """The current run was charged: count it, reset failures, plan the next or finish."""
        self.charges += 1
        self.failures = 0
        self.last_failure = None
        self.plan += 1
        self.updated_at = now
        if self.kind is ScheduleKind.ONE_TIME or (
            self.max_charges is not None and self.charges >= self.max_charges
        ):
            self._complete(now)
            return
        # Normally the very next run; after a late success (a resumed Failed schedule) the
        # runs that passed meanwhile are skipped, never charged in a burst.
        self.next_run_number, due = first_run_from(
            self.anchor_local, self.cadence, self.zone, now, self.next_run_number + 1
        )
        self.next_attempt = 1
        if not within_end(due, self.end_date, self.zone):
            self._complete(now)
            return
        self.next_run_at = due

    def failed(self, now: datetime, reason: str) -> None:
        """The current attempt failed: retry in 4 hours, or become Failed after the third."""
        self.failures += 1
        self.next_attempt += 1
        self.last_failure = reason
        self.plan += 1
        self.updated_at = now
        if self.failures >= MAX_CONSECUTIVE_FAILURES:
            self.status = ScheduleStatus.FAILED
            self.next_run_at = None
        else:
            self.next_run_at = now + RETRY_DELAY

    @property
    def retry_at(self) -> datetime | None:
        return self.next_run_at if self.failures else None


@attrs.frozen
class ScheduleRun:
    """One attempt to charge a schedule: never deleted; its outcome is set once."""

    id: str
    schedule_id: str
    merchant_id: str
    trigger: RunTrigger
    run_number: int  # scheduled runs from 1; run-now attempts numbered on their own
    attempt: int
    scheduled_for: datetime
    started_at: datetime
    gateway_key: str
    amount: Money
    outcome: RunOutcome = RunOutcome.PENDING
    transaction_id: str | None = None
    invoice_number: str | None = None  # the run's own invoice, or the schedule's
    failure: str | None = None
    finished_at: datetime | None = None


def run_gateway_key(schedule_id: str, trigger: RunTrigger, run_number: int, attempt: int) -> str:
    """Deterministic: a restart after a crash charges under the same key, never twice."""
    kind = "run" if trigger is RunTrigger.SCHEDULED else "now"
    return f"{schedule_id}:{kind}{run_number}:try{attempt}"


# --- schedule requests -------------------------------------------------------------------------


@attrs.define
class ScheduleRequest:
    """A schedule the customer approves on a public page before it exists."""

    id: str
    merchant_id: str
    customer_id: str
    gateway: str
    kind: ScheduleKind
    cadence: Cadence | None
    first_run_at: datetime
    end_date: date | None
    max_charges: int | None
    currency: str
    amount: Money | None
    lines: list[ScheduleLine]
    tax_rate_id: str | None
    tax_percent: Decimal | None
    bill_to: Address | None
    ship_to: Address | None
    description: str | None
    invoice_id: str | None
    invoice_number: str | None
    token: str = attrs.field(repr=False)
    status: RequestStatus
    created_at: datetime
    updated_at: datetime
    schedule_id: str | None = None
    approved_at: datetime | None = None
    cancelled_at: datetime | None = None

    def charge_amount(self) -> Money:
        if self.amount is not None:
            return self.amount
        return totals(self.lines, self.tax_percent, self.currency).total

    def check_approvable(self) -> None:
        if self.status is not RequestStatus.PENDING:
            raise Conflict(f"this schedule request is {self.status}; it cannot be approved")

    def cancel(self, now: datetime) -> None:
        if self.status is not RequestStatus.PENDING:
            raise Conflict(
                f"this schedule request is {self.status}; only a Pending one can be cancelled"
            )
        self.status = RequestStatus.CANCELLED
        self.cancelled_at = now
        self.updated_at = now

    def approve(self, schedule_id: str, now: datetime) -> None:
        self.check_approvable()
        self.status = RequestStatus.APPROVED
        self.schedule_id = schedule_id
        self.approved_at = now
        self.updated_at = now


# --- input checks ----------------------------------------------------------------------------


def check_plan(
    kind: ScheduleKind,
    cadence: Cadence | None,
    first_run: datetime,
    end_date: date | None,
    max_charges: int | None,
    now: datetime,
    zone: ZoneInfo,
    errors: list[FieldError],
) -> None:
    """A one-time schedule has no cadence, end date or maximum; a recurring one needs a
    cadence. The first run may not be in the past (a minute's grace for clock skew); the end
    date may not fall before the first run's local date."""
    if kind is ScheduleKind.ONE_TIME:
        for name, value in (
            ("cadence", cadence),
            ("endDate", end_date),
            ("maxCharges", max_charges),
        ):
            if value is not None:
                errors.append(FieldError(name, "is only for a recurring schedule"))
    elif cadence is None:
        errors.append(FieldError("cadence", "is required for a recurring schedule"))
    if first_run < now - timedelta(minutes=1):
        errors.append(FieldError("startAtUtc", "must not be in the past"))
    if end_date is not None and end_date < first_run.astimezone(zone).date():
        errors.append(FieldError("endDate", "must not be before the first run's date"))
    if max_charges is not None and not 1 <= max_charges <= MAX_CHARGES_LIMIT:
        errors.append(FieldError("maxCharges", f"must be between 1 and {MAX_CHARGES_LIMIT}"))
