"""Scheduled payments of one merchant, and the worker step that charges their due runs.

A schedule charges a saved payment method of one customer. Every change that moves the next
attempt (create, a run's outcome, pause, resume, cancel) bumps the schedule's ``plan`` and, in
the same unit of work, enqueues one job for the new plan (and a reminder 24 h before a run).
A job whose plan is stale does nothing, so leasing (exactly once per job) plus the plan check
under a row lock take each run exactly once, with any number of workers.

A run is three steps in two write transactions: record the attempt (``Pending``) with a
gateway key derived from schedule id, run number and attempt, together with the charge's
``Pending`` transaction; charge outside any transaction; record the charge's outcome and the
run's together. A crash in between is settled on restart by charging under the same key again: the
ledger (or the gateway) answers with the first charge, never a second one.

Events (emitted in the unit of work of each change; the messaging reaction texts from them):
``scheduled_payment.created``; ``.paused``, ``.resumed``, ``.cancelled``, ``.failed`` and
``.completed`` whenever the state moves so; ``.charge_succeeded`` / ``.charge_failed`` for
each recorded run (details name the run, whether a failure counted toward the retries, and
the next attempt); ``.upcoming`` when a run's reminder is due.
"""

from __future__ import annotations

import hashlib
import json
from datetime import date, datetime
from decimal import Decimal
from typing import Any, Protocol

import attrs

from payhub.domain.accounts import Merchant, zone_of
from payhub.domain.addresses import Address, clean_address
from payhub.domain.customers import Customer, StoredPaymentMethod
from payhub.domain.errors import Conflict, FieldError, NotFound, PayHubError, ValidationError
from payhub.domain.events import (
    DomainEvent,
    EventType,
    ScheduledPaymentCancelled,
    ScheduledPaymentChargeFailed,
    ScheduledPaymentCompleted,
    ScheduledPaymentCreated,
    ScheduledPaymentFailed,
    ScheduledPaymentPaused,
    ScheduledPaymentResumed,
    ScheduledPaymentSucceeded,
    ScheduledPaymentUpcoming,
    utc_text,
)
from payhub.domain.fields import clean_text, raise_if_any
from payhub.domain.invoices import LineInput, clean_lines, clean_tax_percent
from payhub.domain.money import Money, amount_ceiling, minor_unit_exponent
from payhub.domain.payments import (
    GatewayError,
    GatewayTimeout,
    PaymentSource,
    TxStatus,
)
from payhub.domain.schedules import (
    DESCRIPTION_MAX,
    REMINDER_BEFORE,
    Cadence,
    RunOutcome,
    RunTrigger,
    ScheduledPayment,
    ScheduleKind,
    ScheduleLine,
    ScheduleRun,
    ScheduleStatus,
    anchor_of,
    check_plan,
    run_gateway_key,
)
from payhub.ports import Gateway, Job, StoredResponse, UnitOfWork
from payhub.services import idempotency
from payhub.services.auth import Caller
from payhub.services.deps import Deps
from payhub.services.edits import KEEP, Keep
from payhub.services.events import emit_for
from payhub.services.idempotency import IdempotentCall
from payhub.services.merchants import find_merchant
from payhub.services.paging import Page, check_cursor, check_limit, page_of
from payhub.services.payments import ChargeStep, Payments, StoredFailure, TransactionView
from payhub.services.schedule_invoices import invoice_for_run, open_invoice, record_run_payment

QUEUE = "scheduled-payments"
RECENT_RUNS = 20
# The event of a schedule entering each state (by any move: API, a run's outcome, the worker).
STATE_EVENTS: dict[ScheduleStatus, EventType] = {
    ScheduleStatus.PAUSED: ScheduledPaymentPaused,
    ScheduleStatus.FAILED: ScheduledPaymentFailed,
    ScheduleStatus.CANCELLED: ScheduledPaymentCancelled,
    ScheduleStatus.COMPLETED: ScheduledPaymentCompleted,
}


def publish_schedule(
    uow: UnitOfWork,
    deps: Deps,
    kind: EventType,
    merchant: Merchant,
    schedule: ScheduledPayment,
    details: dict[str, object] | None = None,
) -> DomainEvent:
    """Emit a schedule event with the schedule (and its recent runs) as the API returns it."""
    runs = uow.scheduled_payments.runs(schedule.id, RECENT_RUNS)
    data = deps.snapshots.scheduled_payment(schedule, runs)
    return emit_for(uow, deps, kind, merchant, schedule.id, data, details)


def publish_state(
    uow: UnitOfWork,
    deps: Deps,
    merchant: Merchant,
    schedule: ScheduledPayment,
    before: ScheduleStatus,
) -> None:
    """The state event when the schedule's status moved from ``before`` (resumed: back to
    Active from Paused or Failed)."""
    if schedule.status is before:
        return
    kind = STATE_EVENTS.get(schedule.status)
    if schedule.status is ScheduleStatus.ACTIVE:
        kind = ScheduledPaymentResumed
    if kind is not None:
        publish_schedule(uow, deps, kind, merchant, schedule)


@attrs.frozen
class Charge:
    """What a schedule (or a request) charges: a flat amount or lines with tax, unchecked."""

    currency: str = "USD"
    amount: Decimal | None = None
    line_items: list[LineInput] | None = None
    tax_rate_id: str | None = None
    tax_rate_percent: Decimal | None = None


@attrs.frozen
class Timing:
    """When: the first run (an instant), an optional cadence (none: one-time), end date and
    maximum number of charges."""

    start_at: datetime
    cadence: str | None = None
    end_date: date | None = None
    max_charges: int | None = None


@attrs.frozen
class ScheduleInput:
    customer_id: str
    payment_method_id: str
    timing: Timing
    charge: Charge
    bill_to: Address | None = None
    ship_to: Address | None = None
    description: str | None = None


@attrs.frozen
class ScheduleEdit:
    """What the portal may change on a Paused or Failed schedule; ``KEEP`` leaves a field as
    it is. ``next_run_at`` re-dates the next run (later runs follow the cadence from it)."""

    charge: Charge | Keep = KEEP
    next_run_at: datetime | Keep = KEEP
    end_date: date | Keep | None = KEEP
    max_charges: int | Keep | None = KEEP
    payment_method_id: str | Keep = KEEP
    bill_to: Address | Keep | None = KEEP
    ship_to: Address | Keep | None = KEEP
    description: str | Keep | None = KEEP


@attrs.frozen
class ScheduleView:
    schedule: ScheduledPayment
    runs: list[ScheduleRun]


@attrs.frozen
class CheckedCharge:
    currency: str
    amount: Money | None
    lines: list[ScheduleLine]
    tax_rate_id: str | None
    tax_percent: Decimal | None


@attrs.frozen
class CheckedTiming:
    kind: ScheduleKind
    cadence: Cadence | None
    first_run: datetime
    end_date: date | None
    max_charges: int | None


# --- checks shared with schedule requests --------------------------------------------------------


def parse_cadence(value: str | None, errors: list[FieldError]) -> Cadence | None:
    if value is None:
        return None
    try:
        return Cadence(value)
    except ValueError:
        errors.append(FieldError("cadence", "must be Daily, Weekly, Monthly or Yearly"))
        return None


def check_timing(
    given: Timing, now: datetime, merchant: Merchant, errors: list[FieldError]
) -> CheckedTiming:
    cadence = parse_cadence(given.cadence, errors)
    kind = ScheduleKind.ONE_TIME if given.cadence is None else ScheduleKind.RECURRING
    first = given.start_at
    if first.tzinfo is None:
        errors.append(FieldError("startAtUtc", "must carry a time zone offset (e.g. Z)"))
        first = first.replace(tzinfo=now.tzinfo)
    first = first.astimezone(now.tzinfo).replace(microsecond=0)
    check_plan(
        kind, cadence, first, given.end_date, given.max_charges, now, zone_of(merchant), errors
    )
    return CheckedTiming(kind, cadence, first, given.end_date, given.max_charges)


def check_charge(given: Charge, errors: list[FieldError]) -> CheckedCharge:
    """A flat, tax-free ``amount`` or ``lineItems`` with an optional tax rate, never both."""
    currency = (given.currency or "").strip().upper()
    try:
        minor_unit_exponent(currency)
    except ValidationError as e:
        errors.extend(e.fields)
        currency = "USD"
    lines: list[ScheduleLine] = []
    amount: Money | None = None
    percent: Decimal | None = None
    if (given.amount is None) == (given.line_items is None):
        errors.append(FieldError("amount", "send either amount or lineItems"))
    elif given.amount is not None:
        if given.tax_rate_id is not None or given.tax_rate_percent is not None:
            errors.append(FieldError("amount", "is tax-free: send lineItems to charge tax"))
        try:
            amount = Money.of(given.amount, currency).require_positive("amount")
        except ValidationError as e:
            errors.extend(e.fields)
    else:
        if given.tax_rate_id is not None and given.tax_rate_percent is not None:
            errors.append(FieldError("taxRatePercent", "send taxRateId or taxRatePercent"))
        if given.tax_rate_percent is not None:
            percent = clean_tax_percent(given.tax_rate_percent, errors)
        priced = clean_lines(given.line_items or [], currency, percent or Decimal(0), errors)
        lines = [
            ScheduleLine(x.description, x.quantity, x.unit_price, x.is_taxable, x.product_id)
            for x in priced
        ]
        total = sum((x.amount.amount + x.tax.amount for x in priced), Decimal(0))
        if priced and total <= 0:
            errors.append(FieldError("lineItems", "must add up to more than zero"))
        elif priced and total > amount_ceiling(currency):
            errors.append(
                FieldError("lineItems", f"must add up to at most {amount_ceiling(currency)}")
            )
    return CheckedCharge(currency, amount, lines, given.tax_rate_id, percent)


def resolve_catalog(uow: UnitOfWork, merchant_id: str, charge: CheckedCharge) -> CheckedCharge:
    """Each ``productId`` must be the merchant's (400); a ``taxRateId`` an active rate of the
    merchant, whose percentage is copied now."""
    errors: list[FieldError] = []
    for i, line in enumerate(charge.lines):
        if line.product_id is not None and uow.products.get(merchant_id, line.product_id) is None:
            errors.append(
                FieldError(f"lineItems[{i}].productId", "is not a product of this merchant")
            )
    percent = charge.tax_percent
    if charge.tax_rate_id is not None:
        rate = uow.tax_rates.get(merchant_id, charge.tax_rate_id)
        if rate is None or not rate.active:
            errors.append(FieldError("taxRateId", "is not an active tax rate of this merchant"))
        else:
            percent = rate.percent
    raise_if_any(errors)
    return attrs.evolve(charge, tax_percent=percent)


def check_addresses(
    bill_to: Address | None, ship_to: Address | None, errors: list[FieldError]
) -> tuple[Address | None, Address | None]:
    return clean_address(bill_to, "billToAddress", errors), clean_address(
        ship_to, "shipToAddress", errors
    )


def plan_next(uow: UnitOfWork, deps: Deps, schedule: ScheduledPayment) -> None:
    """Enqueue the job for the schedule's current plan, and its reminder when there is time."""
    if schedule.status is not ScheduleStatus.ACTIVE or schedule.next_run_at is None:
        return
    payload: dict[str, Any] = {"scheduleId": schedule.id, "plan": schedule.plan}
    uow.jobs.enqueue(
        Job(
            f"{schedule.id}:p{schedule.plan}",
            QUEUE,
            {**payload, "do": "run"},
            schedule.next_run_at,
            0,
        )
    )
    remind_at = schedule.next_run_at - REMINDER_BEFORE
    if schedule.failures == 0 and schedule.next_attempt == 1 and remind_at > deps.clock.now():
        uow.jobs.enqueue(
            Job(
                f"{schedule.id}:p{schedule.plan}:remind",
                QUEUE,
                {**payload, "do": "remind"},
                remind_at,
                0,
            )
        )


def caller_for(uow: UnitOfWork, merchant: Merchant, who: str) -> Caller:
    """Background and public-page work acts for the merchant's provider, named in the ledger."""
    provider = uow.providers.get(merchant.provider_id)
    if provider is None:
        raise NotFound(f"no provider '{merchant.provider_id}'")
    return Caller(provider.id, provider.environment, who)


def usable_method(
    uow: UnitOfWork, merchant_id: str, customer_id: str, method_id: str, field: str
) -> StoredPaymentMethod:
    method = uow.payment_methods.get(merchant_id, customer_id, method_id)
    if method is None:
        raise ValidationError.for_field(
            field, "is not a saved payment method of this customer (or it was removed)"
        )
    return method


def new_schedule(
    deps: Deps,
    merchant: Merchant,
    customer: Customer,
    method: StoredPaymentMethod,
    timing: CheckedTiming,
    charge: CheckedCharge,
    bill_to: Address | None,
    ship_to: Address | None,
    description: str | None,
) -> ScheduledPayment:
    now = deps.clock.now()
    zone = zone_of(merchant)
    return ScheduledPayment(
        id=deps.new_id("sch"),
        merchant_id=merchant.id,
        customer_id=customer.id,
        payment_method_id=method.id,
        gateway=method.gateway,
        method_type=method.method_type,
        kind=timing.kind,
        cadence=timing.cadence,
        anchor_local=anchor_of(timing.first_run, zone),
        time_zone=zone.key,
        end_date=timing.end_date,
        max_charges=timing.max_charges,
        currency=charge.currency,
        amount=charge.amount,
        lines=charge.lines,
        tax_rate_id=charge.tax_rate_id,
        tax_percent=charge.tax_percent,
        bill_to=bill_to,
        ship_to=ship_to,
        description=description,
        status=ScheduleStatus.ACTIVE,
        created_at=now,
        updated_at=now,
        next_run_at=timing.first_run,
    )


def _edited_charge(
    schedule: ScheduledPayment, given: Charge | Keep, errors: list[FieldError]
) -> CheckedCharge | None:
    if given is KEEP:
        return None
    wanted = attrs.evolve(given, currency=schedule.currency)
    if schedule.invoice_number is not None and wanted.line_items is not None:
        errors.append(FieldError("lineItems", "a schedule that pays an invoice has an amount"))
    return check_charge(wanted, errors)


def _check_edited_plan(
    schedule: ScheduledPayment, given: ScheduleEdit, now: datetime, errors: list[FieldError]
) -> None:
    """The creation rules on the dates as they will be after the edit."""
    end_date = schedule.end_date if given.end_date is KEEP else given.end_date
    max_charges = schedule.max_charges if given.max_charges is KEEP else given.max_charges
    if given.next_run_at is not KEEP and given.next_run_at.tzinfo is None:
        errors.append(FieldError("nextRunAtUtc", "must carry a time zone offset (e.g. Z)"))
        return
    if max_charges is not None and max_charges <= schedule.charges:
        errors.append(
            FieldError("maxCharges", f"must be more than the {schedule.charges} charges made")
        )
    if given.next_run_at is KEEP and given.end_date is KEEP and given.max_charges is KEEP:
        return
    next_run = schedule.next_run_at if given.next_run_at is KEEP else given.next_run_at
    plan_errors: list[FieldError] = []
    check_plan(
        schedule.kind,
        schedule.cadence,
        max(next_run or now, now) if given.next_run_at is KEEP else (next_run or now),
        end_date,
        max_charges,
        now,
        schedule.zone,
        plan_errors,
    )
    errors.extend(
        FieldError("nextRunAtUtc", e.message) if e.field == "startAtUtc" else e for e in plan_errors
    )


# --- the merchant's API --------------------------------------------------------------------------


class ScheduledPayments:
    def __init__(
        self, deps: Deps, caller: Caller, reference: str, gateways: dict[str, Gateway]
    ) -> None:
        self._d = deps
        self._caller = caller
        self._reference = reference
        self._gateways = gateways

    def _get(self, uow: UnitOfWork, schedule_id: str, lock: bool = False) -> ScheduledPayment:
        merchant = find_merchant(uow, self._caller, self._reference)
        schedule = uow.scheduled_payments.get(merchant.id, schedule_id, for_update=lock)
        if schedule is None:
            raise NotFound(f"no scheduled payment '{schedule_id}' for this merchant")
        return schedule

    def create(self, given: ScheduleInput) -> ScheduleView:
        errors: list[FieldError] = []
        charge = check_charge(given.charge, errors)
        bill_to, ship_to = check_addresses(given.bill_to, given.ship_to, errors)
        description = clean_text(given.description, "description", DESCRIPTION_MAX, errors)
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            timing = check_timing(given.timing, now, merchant, errors)
            raise_if_any(errors)
            customer = uow.customers.get(merchant.id, given.customer_id)
            if customer is None:
                raise NotFound(f"no customer '{given.customer_id}' for this merchant")
            method = usable_method(
                uow, merchant.id, customer.id, given.payment_method_id, "paymentMethodId"
            )
            Payments.check_method(
                self._d.catalog.get(method.gateway, self._caller.environment),
                method.method_type,
                True,
            )
            charge = resolve_catalog(uow, merchant.id, charge)
            schedule = new_schedule(
                self._d, merchant, customer, method, timing, charge, bill_to, ship_to, description
            )
            uow.scheduled_payments.add(schedule)
            plan_next(uow, self._d, schedule)
            publish_schedule(uow, self._d, ScheduledPaymentCreated, merchant, schedule)
            return ScheduleView(schedule, [])

    def get(self, schedule_id: str) -> ScheduleView:
        with self._d.store.unit_of_work(readonly=True) as uow:
            schedule = self._get(uow, schedule_id)
            return ScheduleView(schedule, uow.scheduled_payments.runs(schedule.id, RECENT_RUNS))

    def list(
        self,
        after: str | None = None,
        limit: int = 50,
        customer_id: str | None = None,
        status: str | None = None,
    ) -> Page[ScheduledPayment]:
        """Newest first; optionally one customer's, or those in one state."""
        check_limit(limit)
        wanted: ScheduleStatus | None = None
        if status is not None:
            try:
                wanted = ScheduleStatus(status)
            except ValueError:
                names = ", ".join(s.value for s in ScheduleStatus)
                raise ValidationError.for_field("status", f"must be one of {names}") from None
        with self._d.store.unit_of_work(readonly=True) as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            rows = uow.scheduled_payments.list(merchant.id, after, limit + 1, customer_id, wanted)
            if after is not None and not rows:
                check_cursor(uow.scheduled_payments.get(merchant.id, after) is not None)
        return page_of(rows, limit, lambda s: s.id)

    def _move(self, schedule_id: str, move: str) -> ScheduleView:
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            schedule = self._get(uow, schedule_id, lock=True)
            before = schedule.status
            getattr(schedule, move)(now)
            uow.scheduled_payments.save(schedule)
            plan_next(uow, self._d, schedule)
            publish_state(uow, self._d, merchant, schedule, before)
            return ScheduleView(schedule, uow.scheduled_payments.runs(schedule.id, RECENT_RUNS))

    def pause(self, schedule_id: str) -> ScheduleView:
        return self._move(schedule_id, "pause")

    def resume(self, schedule_id: str) -> ScheduleView:
        return self._move(schedule_id, "resume")

    def cancel(self, schedule_id: str) -> ScheduleView:
        return self._move(schedule_id, "cancel")

    def edit(self, schedule_id: str, given: ScheduleEdit) -> ScheduleView:
        """Change a Paused or Failed schedule's details (409 otherwise), by the creation rules:
        a flat amount or lines with tax (a schedule that pays an invoice: an amount only), a
        next run not in the past with an end date not before it and a maximum above the
        charges made, a saved method of the same customer, addresses within the limits.
        It stays Paused or Failed: resuming is a separate step."""
        errors: list[FieldError] = []
        now = self._d.clock.now()
        description = (
            None
            if given.description is KEEP
            else clean_text(given.description, "description", DESCRIPTION_MAX, errors)
        )
        bill_to, ship_to = check_addresses(
            None if given.bill_to is KEEP else given.bill_to,
            None if given.ship_to is KEEP else given.ship_to,
            errors,
        )
        with self._d.store.unit_of_work() as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            schedule = self._get(uow, schedule_id, lock=True)
            schedule.check_editable()
            charge = _edited_charge(schedule, given.charge, errors)
            _check_edited_plan(schedule, given, now, errors)
            raise_if_any(errors)
            if charge is not None:
                charge = resolve_catalog(uow, merchant.id, charge)
                schedule.amount = charge.amount
                schedule.lines = charge.lines
                schedule.tax_rate_id = charge.tax_rate_id
                schedule.tax_percent = charge.tax_percent
            if given.payment_method_id is not KEEP:
                method = usable_method(
                    uow, merchant.id, schedule.customer_id, given.payment_method_id,
                    "paymentMethodId",
                )  # fmt: skip
                Payments.check_method(
                    self._d.catalog.get(method.gateway, self._caller.environment),
                    method.method_type,
                    True,
                )
                schedule.payment_method_id = method.id
                schedule.gateway = method.gateway
                schedule.method_type = method.method_type
            if given.bill_to is not KEEP:
                schedule.bill_to = bill_to
            if given.ship_to is not KEEP:
                schedule.ship_to = ship_to
            if given.description is not KEEP:
                schedule.description = description
            if given.end_date is not KEEP:
                schedule.end_date = given.end_date
            if given.max_charges is not KEEP:
                schedule.max_charges = given.max_charges
            if given.next_run_at is not KEEP:
                schedule.redate(given.next_run_at, now)
            schedule.updated_at = now
            uow.scheduled_payments.save(schedule)
            return ScheduleView(schedule, uow.scheduled_payments.runs(schedule.id, RECENT_RUNS))

    def run_now(
        self, schedule_id: str, idempotency_key: str | None = None
    ) -> tuple[ScheduleRun, TransactionView | None]:
        """An immediate, out-of-band charge of an Active schedule. It changes nothing else: no
        state, no next run, no failure count, and it does not count towards ``maxCharges``. A
        decline is recorded on the run and raised (402).

        If the previous run-now attempt is still ``Pending`` (its gateway answer was lost: a
        504, or a crash), this call settles that attempt under its gateway key instead of
        starting a new one: the retry a client sends after a timeout must not charge twice.

        With ``idempotency_key``, at most once per key, as ``Payments.charge``: the same call
        again returns the first run (or raises its failure as a ``StoredFailure``)."""
        if idempotency_key is None:
            answer = self._run_now(schedule_id, None)
        else:
            key = idempotency.check_key(idempotency_key)
            fingerprint = hashlib.sha256(
                f"in-process run-now\n{self._reference}\n{schedule_id}".encode()
            ).hexdigest()
            call = IdempotentCall(self._caller.provider_id, key, fingerprint)
            answer = self._run_now(schedule_id, (call, _InProcessRun()))
        if answer.error is not None:
            raise answer.error
        if answer.run is not None:
            return answer.run, answer.view
        assert answer.stored is not None
        body = json.loads(answer.stored.body)
        if answer.stored.status >= 400:
            raise StoredFailure(answer.stored.status, body["code"], body["detail"])
        with self._d.store.unit_of_work(readonly=True) as uow:
            schedule = self._get(uow, schedule_id)
            run = uow.scheduled_payments.get_run(
                schedule.id, RunTrigger.RUN_NOW, int(body["runNumber"]), 1
            )
            assert run is not None
            return run, None

    def run_now_once(
        self, schedule_id: str, call: IdempotentCall, respond: RunResponder
    ) -> RunAnswer:
        """``run_now`` under an Idempotency-Key, claimed in the unit of work that starts the
        run and answered in the one that records it; a failure is the answer's ``error``."""
        return self._run_now(schedule_id, (call, respond))

    def _run_now(
        self, schedule_id: str, under: tuple[IdempotentCall, RunResponder] | None
    ) -> RunAnswer:
        now = self._d.clock.now()
        runner = Runner(self._d, self._gateways)
        with self._d.store.unit_of_work() as uow:
            if under is not None:
                stored = idempotency.claim(uow, under[0], now)
                if stored is not None:
                    return RunAnswer(stored, replayed=True)
            schedule = self._get(uow, schedule_id, lock=True)
            schedule.check_run_now()
            last = (
                uow.scheduled_payments.get_run(
                    schedule.id, RunTrigger.RUN_NOW, schedule.manual_runs, 1
                )
                if schedule.manual_runs
                else None
            )
            if last is not None and last.outcome is RunOutcome.PENDING:
                run = last
            else:
                schedule.manual_runs += 1
                schedule.updated_at = now
                uow.scheduled_payments.save(schedule)
                run = start_run(uow, self._d, schedule, RunTrigger.RUN_NOW, schedule.manual_runs, 1)
            started = runner.begin(uow, schedule, run)
        if under is None:
            return runner.finish(schedule.id, started, raise_errors=True)
        try:
            with idempotency.lease_keeper(self._d.store, self._d.clock).hold(under[0]):
                return runner.finish(schedule.id, started, raise_errors=True, under=under)
        except BaseException:  # a payhub failure (500): nothing stored, a retry may run
            with self._d.store.unit_of_work() as uow:
                idempotency.release(uow, under[0])
            raise


# --- runs ----------------------------------------------------------------------------------------


def start_run(
    uow: UnitOfWork,
    deps: Deps,
    schedule: ScheduledPayment,
    trigger: RunTrigger,
    number: int,
    attempt: int,
) -> ScheduleRun:
    """The attempt's row (``Pending``), made once: a restart finds it and reuses its key.
    An itemised schedule's invoice for the run is made here too, in the same transaction."""
    found = uow.scheduled_payments.get_run(schedule.id, trigger, number, attempt)
    if found is not None:
        return found
    now = deps.clock.now()
    amount = schedule.charge_amount()
    invoice_number = schedule.invoice_number
    if invoice_number is not None:
        invoice = open_invoice(uow, schedule.merchant_id, invoice_number)
        if invoice is None:
            raise Conflict(f"invoice {invoice_number} has nothing left to pay")
        amount = min(amount, invoice.amount_due)  # installments never overpay
    elif schedule.itemized:
        invoice_number = invoice_for_run(uow, deps, schedule, trigger, number)
    run = ScheduleRun(
        id=deps.new_id("srun"),
        schedule_id=schedule.id,
        merchant_id=schedule.merchant_id,
        trigger=trigger,
        run_number=number,
        attempt=attempt,
        scheduled_for=schedule.next_run_at
        if trigger is RunTrigger.SCHEDULED and schedule.next_run_at
        else now,
        started_at=now,
        gateway_key=run_gateway_key(schedule.id, trigger, number, attempt),
        amount=amount,
        invoice_number=invoice_number,
    )
    uow.scheduled_payments.add_run(run)
    return run


class RunResponder(Protocol):
    """Turns a run-now's outcome into the answer stored under its Idempotency-Key."""

    def success(self, run: ScheduleRun) -> StoredResponse: ...

    def failure(self, error: PayHubError) -> StoredResponse | None:
        """``None`` releases the key instead (a timeout: a retry must reach the gateway)."""
        ...


@attrs.frozen
class RunAnswer:
    """A run's outcome: the ``run`` recorded now (with its charge's ``view``) or the
    ``error`` it ended in, and the answer ``stored`` under a key (only that when
    ``replayed``)."""

    stored: StoredResponse | None
    replayed: bool = False
    run: ScheduleRun | None = None
    view: TransactionView | None = None
    error: PayHubError | None = None


class _InProcessRun:
    """The answers kept for in-process run-now calls: the run's number, or the error."""

    def success(self, run: ScheduleRun) -> StoredResponse:
        return StoredResponse(201, json.dumps({"runNumber": run.run_number}).encode())

    def failure(self, error: PayHubError) -> StoredResponse | None:
        if isinstance(error, GatewayTimeout):
            return None
        body = {"code": error.code, "detail": error.detail}
        return StoredResponse(error.status, json.dumps(body).encode())


@attrs.frozen
class Started:
    """A run started and its charge reserved (``Runner.begin``): the step to send, the view
    of a charge an earlier attempt settled, or nothing to charge (``failure`` says why)."""

    run: ScheduleRun
    payments: Payments | None
    step: ChargeStep | TransactionView | None
    failure: str | None = None


class Runner:
    """The worker's side: take a due run, charge it, record what happened."""

    def __init__(self, deps: Deps, gateways: dict[str, Gateway]) -> None:
        self._d = deps
        self._gateways = gateways

    def handle(self, job: Job) -> None:
        """The job handler for ``QUEUE``: a run or a reminder of one plan of a schedule."""
        schedule_id = str(job.payload["scheduleId"])
        plan = int(job.payload["plan"])
        if job.payload.get("do") == "remind":
            self.remind(schedule_id, plan)
        else:
            self.run_due(schedule_id, plan)

    def remind(self, schedule_id: str, plan: int) -> None:
        with self._d.store.unit_of_work() as uow:
            schedule = uow.scheduled_payments.get_for_run(schedule_id)
            if schedule is None or schedule.plan != plan or schedule.next_run_at is None:
                return
            if schedule.status is not ScheduleStatus.ACTIVE:
                return
            merchant = uow.merchants.get(schedule.merchant_id)
            assert merchant is not None
            amount = schedule.charge_amount()
            details: dict[str, object] = {
                "runNumber": schedule.next_run_number,
                "runAtUtc": utc_text(schedule.next_run_at),
                "amount": amount.amount,
            }
            publish_schedule(uow, self._d, ScheduledPaymentUpcoming, merchant, schedule, details)

    def run_due(self, schedule_id: str, plan: int) -> ScheduleRun | None:
        """Charge the schedule's due attempt if ``plan`` is still its plan; else nothing."""
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            schedule = uow.scheduled_payments.get_for_run(schedule_id)
            if (
                schedule is None
                or schedule.plan != plan
                or schedule.status is not ScheduleStatus.ACTIVE
                or schedule.next_run_at is None
                or schedule.next_run_at > now
            ):
                return None
            if schedule.invoice_number is not None and (
                open_invoice(uow, schedule.merchant_id, schedule.invoice_number) is None
            ):
                before = schedule.status
                schedule.complete(now)  # the invoice it pays is settled (or void)
                uow.scheduled_payments.save(schedule)
                merchant = uow.merchants.get(schedule.merchant_id)
                assert merchant is not None
                publish_state(uow, self._d, merchant, schedule, before)
                return None
            run = start_run(
                uow,
                self._d,
                schedule,
                RunTrigger.SCHEDULED,
                schedule.next_run_number,
                schedule.next_attempt,
            )
            if run.outcome is not RunOutcome.PENDING:
                return run  # recorded by an earlier lease of this job
            started = self.begin(uow, schedule, run)
        return self.finish(schedule.id, started).run

    def begin(self, uow: UnitOfWork, schedule: ScheduledPayment, run: ScheduleRun) -> Started:
        """Reserve the run's charge in ``uow``, the unit of work that started the run: the
        run's row and its ``Pending`` transaction are written together (or not at all)."""
        merchant = uow.merchants.get(schedule.merchant_id)
        assert merchant is not None
        caller = caller_for(uow, merchant, f"schedule:{schedule.id}")
        method = uow.payment_methods.get(
            schedule.merchant_id, schedule.customer_id, schedule.payment_method_id
        )
        if method is None:
            return Started(run, None, None, "the saved payment method was removed")
        payments = Payments(self._d, caller, merchant.external_reference, self._gateways)
        step = payments.reserve_charge(
            uow,
            gateway_name=schedule.gateway,
            amount=run.amount,
            source=PaymentSource(
                method.method_type,
                saved_method_ref=method.method_ref,
                gateway_customer_ref=method.gateway_customer_ref,
            ),
            capture=True,
            gateway_key=run.gateway_key,
            customer_id=schedule.customer_id,
            payment_method_id=method.id,
            description=schedule.description or f"Scheduled payment {schedule.id}",
        )
        return Started(run, payments, step)

    def finish(
        self,
        schedule_id: str,
        started: Started,
        raise_errors: bool = False,
        under: tuple[IdempotentCall, RunResponder] | None = None,
    ) -> RunAnswer:
        """Charge the reserved run outside any transaction, then record the charge's outcome
        and the run's in one unit of work. A timeout is recorded on the transaction and
        raised (the job is retried and settles the same charge); other failures are
        recorded on the run (and raised with ``raise_errors``, as run-now does). With
        ``under``, the answer is stored under its key in that same unit of work (a timeout
        releases the key), and failures are the answer's ``error`` instead of raised."""
        run, payments, step = started.run, started.payments, started.step
        outcome = Payments.send_charge(step) if isinstance(step, ChargeStep) else None
        view = step if isinstance(step, TransactionView) else None
        error: GatewayError | None = None
        with self._d.store.unit_of_work() as uow:
            # The schedule's row lock first, as in every unit of work that starts a run.
            schedule = uow.scheduled_payments.get_for_run(schedule_id)
            assert schedule is not None
            if isinstance(step, ChargeStep):
                assert payments is not None
                assert outcome is not None
                view = payments.record_charge(uow, step, outcome).view
                error = outcome if isinstance(outcome, GatewayError) else None
            status = view.transaction.status if view is not None else None
            problem: PayHubError | None = None
            failure = started.failure
            recorded = run
            if isinstance(error, GatewayTimeout):
                problem = error
            elif status in (TxStatus.UNKNOWN, TxStatus.PENDING):
                problem = GatewayTimeout(
                    "the gateway's answer was lost; the run is retried under the same key"
                )
            else:
                if error is not None:
                    failure = error.gateway_message or error.detail
                elif view is not None and status is TxStatus.FAILED:
                    failure = view.transaction.failure_message or "declined"
                tx_id = view.transaction.id if view else (error.transaction_id if error else None)
                recorded = self._record(uow, schedule, run, view, tx_id, failure)
                if failure is not None and raise_errors:
                    problem = error or ValidationError.for_field("paymentMethodId", failure)
            if under is not None:
                call, respond = under
                answer = respond.success(recorded) if problem is None else None
                if problem is not None:
                    answer = respond.failure(problem)
                if answer is None:
                    idempotency.release(uow, call)
                else:
                    idempotency.finish(uow, call, answer)
                return RunAnswer(answer, run=recorded, view=view, error=problem)
        if problem is not None:
            raise problem
        return RunAnswer(None, run=recorded, view=view)

    def _record(
        self,
        uow: UnitOfWork,
        schedule: ScheduledPayment,
        run: ScheduleRun,
        view: TransactionView | None,
        tx_id: str | None,
        failure: str | None,
    ) -> ScheduleRun:
        """The run's outcome and what it moves (the locked ``schedule``, an invoice, events)."""
        now = self._d.clock.now()
        current = uow.scheduled_payments.get_run(
            schedule.id, run.trigger, run.run_number, run.attempt
        )
        if current is None or current.outcome is not RunOutcome.PENDING:
            return current or run  # another worker recorded it first
        done = attrs.evolve(
            current,
            outcome=RunOutcome.FAILED if failure else RunOutcome.SUCCEEDED,
            transaction_id=tx_id,
            failure=failure,
            finished_at=now,
        )
        uow.scheduled_payments.save_run(done)
        if done.invoice_number is not None and view is not None and failure is None:
            record_run_payment(uow, self._d, schedule, done, view.transaction)
        merchant = uow.merchants.get(schedule.merchant_id)
        assert merchant is not None
        before = schedule.status
        counted = run.trigger is not RunTrigger.RUN_NOW and self._advance(uow, schedule, done, now)
        kind = ScheduledPaymentChargeFailed if failure else ScheduledPaymentSucceeded
        details: dict[str, object] = {
            "runId": done.id,
            "trigger": done.trigger.value,
            "runNumber": done.run_number,
            "attempt": done.attempt,
            "amount": done.amount.amount,
            "transactionId": done.transaction_id,
            "invoiceNumber": done.invoice_number,
            "failure": done.failure,
            # The outcome moved the schedule (a scheduled run on plan): a failure counts
            # toward its retries; next attempt None once it stopped (state Failed).
            "counted": counted,
            "nextAttemptAtUtc": utc_text(schedule.next_run_at),
        }
        publish_schedule(uow, self._d, kind, merchant, schedule, details)
        publish_state(uow, self._d, merchant, schedule, before)
        return done

    def _advance(
        self, uow: UnitOfWork, schedule: ScheduledPayment, run: ScheduleRun, now: datetime
    ) -> bool:
        """Move the schedule on after a scheduled run; ``True`` when the outcome counted (a
        run on plan, or a success recorded after a pause or cancel)."""
        on_plan = (
            schedule.status is ScheduleStatus.ACTIVE
            and schedule.next_run_number == run.run_number
            and schedule.next_attempt == run.attempt
        )
        if run.outcome is RunOutcome.SUCCEEDED:
            if on_plan:
                schedule.succeeded(now)
            elif schedule.next_run_number == run.run_number:
                # Paused or cancelled while the charge was in flight: it still counts.
                schedule.charges += 1
                schedule.failures = 0
                schedule.next_run_number += 1
                schedule.next_attempt = 1
                schedule.updated_at = now
        elif on_plan:
            schedule.failed(now, run.failure or "failed")
        else:
            return False
        uow.scheduled_payments.save(schedule)
        plan_next(uow, self._d, schedule)
        return True
