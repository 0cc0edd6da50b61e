"""The spec's state table for scheduled payments, one test per row, plus the illegal moves."""

from __future__ import annotations

import itertools
from datetime import UTC, date, datetime, timedelta
from decimal import Decimal
from zoneinfo import ZoneInfo

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from payhub.domain.errors import Conflict
from payhub.domain.money import Money
from payhub.domain.payments import MethodType
from payhub.domain.schedules import (
    RETRY_DELAY,
    Cadence,
    ScheduledPayment,
    ScheduleKind,
    ScheduleLine,
    ScheduleStatus,
    occurrence,
    totals,
)

T0 = datetime(2025, 1, 31, 14, 0, tzinfo=UTC)
S = ScheduleStatus


def schedule(
    cadence: Cadence | None = Cadence.MONTHLY,
    status: ScheduleStatus = S.ACTIVE,
    max_charges: int | None = None,
    end_date: date | None = None,
) -> ScheduledPayment:
    return ScheduledPayment(
        id="sch_1",
        merchant_id="m",
        customer_id="c",
        payment_method_id="pm",
        gateway="simulator",
        method_type=MethodType.CARD,
        kind=ScheduleKind.RECURRING if cadence else ScheduleKind.ONE_TIME,
        cadence=cadence,
        anchor_local=T0.replace(tzinfo=None),
        time_zone="UTC",
        end_date=end_date,
        max_charges=max_charges,
        currency="USD",
        amount=Money.of("10.00", "USD"),
        lines=[],
        tax_rate_id=None,
        tax_percent=None,
        bill_to=None,
        ship_to=None,
        description=None,
        status=status,
        created_at=T0,
        updated_at=T0,
        next_run_at=T0,
    )


def test_active_pause_becomes_paused() -> None:
    s = schedule()
    s.pause(T0)
    assert s.status is S.PAUSED


@pytest.mark.parametrize("start", [S.PAUSED, S.FAILED])
def test_paused_or_failed_resume_becomes_active(start: ScheduleStatus) -> None:
    s = schedule(status=start)
    s.resume(T0 + timedelta(days=40))
    assert s.status is S.ACTIVE
    assert s.failures == 0


def test_resuming_a_paused_schedule_skips_the_runs_that_passed() -> None:
    s = schedule()
    s.pause(T0 - timedelta(days=1))
    s.resume(T0 + timedelta(days=40))  # 12 March: Feb 28 passed, next is 31 March
    assert (s.next_run_number, s.next_run_at) == (3, datetime(2025, 3, 31, 14, tzinfo=UTC))


def test_resuming_a_failed_schedule_retries_the_failed_run_at_once() -> None:
    s = schedule()
    for i in range(3):
        s.failed(T0 + RETRY_DELAY * i, "declined")
    assert s.status is S.FAILED
    assert s.next_run_at is None
    later = T0 + timedelta(days=2)
    s.resume(later)
    assert (s.status, s.next_run_number, s.next_run_at, s.next_attempt) == (S.ACTIVE, 1, later, 4)


def test_active_three_consecutive_failures_four_hours_apart_become_failed() -> None:
    s = schedule()
    s.failed(T0, "declined")
    assert (s.status, s.next_run_at, s.failures) == (S.ACTIVE, T0 + RETRY_DELAY, 1)
    s.failed(T0 + RETRY_DELAY, "declined")
    assert (s.status, s.next_run_at) == (S.ACTIVE, T0 + 2 * RETRY_DELAY)
    s.failed(T0 + 2 * RETRY_DELAY, "declined")
    assert (s.status, s.next_run_at, s.failures) == (S.FAILED, None, 3)


def test_a_success_resets_the_failure_count() -> None:
    s = schedule()
    s.failed(T0, "declined")
    s.failed(T0 + RETRY_DELAY, "declined")
    s.succeeded(T0 + 2 * RETRY_DELAY)
    assert (s.failures, s.charges, s.next_run_number, s.next_attempt) == (0, 1, 2, 1)
    s.failed(datetime(2025, 2, 28, 14, tzinfo=UTC), "declined")
    assert s.status is S.ACTIVE
    assert s.failures == 1


@pytest.mark.parametrize("start", [S.ACTIVE, S.PAUSED, S.FAILED])
def test_any_cancel_becomes_cancelled_permanently(start: ScheduleStatus) -> None:
    s = schedule(status=start)
    s.cancel(T0)
    assert s.status is S.CANCELLED
    assert s.next_run_at is None
    for move in (s.resume, s.pause, s.cancel):
        with pytest.raises(Conflict):
            move(T0)
    with pytest.raises(Conflict):
        s.check_run_now()


def test_active_one_time_run_completes() -> None:
    s = schedule(cadence=None)
    s.succeeded(T0)
    assert (s.status, s.next_run_at, s.charges) == (S.COMPLETED, None, 1)


def test_active_recurring_completes_at_max_charges() -> None:
    s = schedule(max_charges=2)
    s.succeeded(T0)
    assert s.status is S.ACTIVE
    s.succeeded(datetime(2025, 2, 28, 14, tzinfo=UTC))
    assert (s.status, s.charges) == (S.COMPLETED, 2)


def test_active_recurring_completes_when_the_end_date_passes() -> None:
    s = schedule(end_date=date(2025, 3, 31))  # inclusive: 31 Jan, 28 Feb, 31 Mar
    for day in (T0, datetime(2025, 2, 28, 14, tzinfo=UTC)):
        s.succeeded(day)
        assert s.status is S.ACTIVE
    s.succeeded(datetime(2025, 3, 31, 14, tzinfo=UTC))
    assert (s.status, s.charges) == (S.COMPLETED, 3)


def test_active_run_now_is_allowed_and_changes_nothing() -> None:
    s = schedule()
    before = (s.status, s.next_run_at, s.charges, s.failures)
    s.check_run_now()
    assert (s.status, s.next_run_at, s.charges, s.failures) == before


@pytest.mark.parametrize("start", [S.PAUSED, S.FAILED, S.CANCELLED, S.COMPLETED])
def test_illegal_moves_are_conflicts(start: ScheduleStatus) -> None:
    s = schedule(status=start)
    with pytest.raises(Conflict):
        s.pause(T0)
    with pytest.raises(Conflict):
        s.check_run_now()
    if start in (S.CANCELLED, S.COMPLETED):
        with pytest.raises(Conflict):
            s.cancel(T0)
        with pytest.raises(Conflict):
            s.resume(T0)


def test_active_cannot_be_resumed() -> None:
    with pytest.raises(Conflict):
        schedule().resume(T0)


@given(st.integers(1, 40), st.sampled_from(list(Cadence)))
def test_max_charges_stops_exactly(limit: int, cadence: Cadence) -> None:
    s = schedule(cadence=cadence, max_charges=limit)
    charged = 0
    while s.status is S.ACTIVE:
        assert s.next_run_at is not None
        s.succeeded(s.next_run_at)
        charged += 1
    assert charged == s.charges == limit


@given(st.integers(0, 800), st.sampled_from(list(Cadence)))
def test_end_date_stops_exactly(days: int, cadence: Cadence) -> None:
    end = T0.date() + timedelta(days=days)
    s = schedule(cadence=cadence, end_date=end)
    dates = []
    while s.status is S.ACTIVE:
        assert s.next_run_at is not None
        dates.append(s.next_run_at.date())
        s.succeeded(s.next_run_at)
    assert dates
    assert all(d <= end for d in dates)
    assert s.due_of(len(dates) + 1).date() > end


@given(
    st.lists(
        st.tuples(
            st.decimals(Decimal("0.01"), Decimal("999"), places=2),
            st.integers(1, 5),
            st.booleans(),
        ),
        min_size=1,
        max_size=8,
    ),
    st.decimals(Decimal(0), Decimal(100), places=4),
)
def test_totals_are_the_sum_of_lines_and_per_line_tax(
    lines: list[tuple[Decimal, int, bool]], percent: Decimal
) -> None:
    items = [ScheduleLine("x", Decimal(q), Money.of(p, "USD"), taxable) for p, q, taxable in lines]
    t = totals(items, percent, "USD")
    assert t.subtotal.amount == sum(p * q for p, q, _ in lines)
    assert t.total == t.subtotal + t.tax
    untaxed = sum(p * q for p, q, taxable in lines if taxable) * percent / 100
    assert abs(t.tax.amount - untaxed) <= Decimal("0.005") * len(lines)


@given(
    st.sampled_from(list(Cadence)),
    st.sampled_from(["UTC", "America/New_York", "Europe/London"]),
    st.datetimes(min_value=datetime(2024, 1, 1), max_value=datetime(2030, 12, 31)).map(
        lambda d: d.replace(microsecond=0)
    ),
    st.one_of(st.none(), st.integers(1, 30)),
    st.one_of(st.none(), st.integers(0, 1200)),
)
def test_runs_stop_at_the_lesser_of_max_charges_and_the_end_date(
    cadence: Cadence, zone: str, anchor: datetime, limit: int | None, end_days: int | None
) -> None:
    """count of runs == min(maxCharges, runs on or before endDate), in the merchant's zone;
    every run is strictly later than the one before."""
    tz = ZoneInfo(zone)
    assume(limit is not None or end_days is not None)
    end = None if end_days is None else anchor.date() + timedelta(days=end_days)
    s = schedule(cadence=cadence, max_charges=limit, end_date=end)
    s.anchor_local, s.time_zone = anchor, zone
    s.next_run_at = occurrence(anchor, cadence, 1, tz)
    before_end = None
    if end is not None:
        before_end = 0
        while occurrence(anchor, cadence, before_end + 1, tz).astimezone(tz).date() <= end:
            before_end += 1
    expected = min(x for x in (limit, before_end) if x is not None)
    charged: list[datetime] = []
    while s.status is S.ACTIVE:
        assert s.next_run_at is not None
        charged.append(s.next_run_at)
        s.succeeded(s.next_run_at)
    assert len(charged) == s.charges == expected
    assert charged == [occurrence(anchor, cadence, n, tz) for n in range(1, expected + 1)]
    assert all(a < b for a, b in itertools.pairwise(charged))
    assert (s.status, s.next_run_at) == (S.COMPLETED, None)
