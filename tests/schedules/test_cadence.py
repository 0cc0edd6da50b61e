"""Cadence math: month ends, 29 February, DST, and exact stops (pure, with hypothesis)."""

from __future__ import annotations

import calendar
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from hypothesis import given
from hypothesis import strategies as st

from payhub.domain.schedules import Cadence, local_date, occurrence, to_utc

NEW_YORK = ZoneInfo("America/New_York")
ZONES = st.sampled_from(
    [
        ZoneInfo(z)
        for z in (
            "UTC",
            "America/New_York",
            "Europe/London",
            "Australia/Lord_Howe",
            "America/Santiago",
            "Asia/Kolkata",
        )
    ]
)
anchors = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2060, 12, 31)).map(
    lambda d: d.replace(microsecond=0)
)


def test_monthly_from_the_31st_uses_short_months_last_day_and_returns() -> None:
    days = [local_date(date(2025, 1, 31), Cadence.MONTHLY, n) for n in range(6)]
    assert days == [
        date(2025, 1, 31),
        date(2025, 2, 28),
        date(2025, 3, 31),
        date(2025, 4, 30),
        date(2025, 5, 31),
        date(2025, 6, 30),
    ]
    assert local_date(date(2023, 12, 31), Cadence.MONTHLY, 2) == date(2024, 2, 29)


def test_yearly_from_29_february() -> None:
    days = [local_date(date(2024, 2, 29), Cadence.YEARLY, n) for n in range(5)]
    assert days == [
        date(2024, 2, 29),
        date(2025, 2, 28),
        date(2026, 2, 28),
        date(2027, 2, 28),
        date(2028, 2, 29),
    ]


@given(anchors, st.integers(0, 500))
def test_monthly_never_drifts(anchor: datetime, step: int) -> None:
    day = local_date(anchor.date(), Cadence.MONTHLY, step)
    months = anchor.year * 12 + anchor.month - 1 + step
    assert (day.year * 12 + day.month - 1) == months
    last = calendar.monthrange(day.year, day.month)[1]
    assert day.day == min(anchor.day, last)


@given(anchors, st.integers(0, 60))
def test_yearly_keeps_the_anchor_day_or_the_months_last(anchor: datetime, step: int) -> None:
    day = local_date(anchor.date(), Cadence.YEARLY, step)
    assert (day.year, day.month) == (anchor.year + step, anchor.month)
    assert day.day == min(anchor.day, calendar.monthrange(day.year, day.month)[1])


@given(anchors, st.sampled_from(list(Cadence)), ZONES, st.integers(1, 400))
def test_runs_are_strictly_increasing_and_keep_the_wall_clock(
    anchor: datetime, cadence: Cadence, zone: ZoneInfo, n: int
) -> None:
    """No DST change doubles or skips a run: each run is later than the one before, and lands
    on its own local day at the anchor's wall-clock time (or just after, in a gap)."""
    this = occurrence(anchor, cadence, n, zone)
    after = occurrence(anchor, cadence, n + 1, zone)
    assert this < after
    local = this.astimezone(zone)
    expected_day = local_date(anchor.date(), cadence, n - 1)
    assert local.date() == expected_day or (
        local.date() == expected_day + timedelta(days=1) and anchor.time() >= time(21)
    )
    wall = datetime.combine(expected_day, anchor.time())
    shift = local.replace(tzinfo=None) - wall
    assert timedelta(0) <= shift <= timedelta(hours=3)  # 0 unless the time fell in a gap


@given(anchors, ZONES, st.integers(1, 3000))
def test_daily_runs_are_about_a_day_apart(anchor: datetime, zone: ZoneInfo, n: int) -> None:
    gap = occurrence(anchor, Cadence.DAILY, n + 1, zone) - occurrence(
        anchor, Cadence.DAILY, n, zone
    )
    assert timedelta(hours=21) <= gap <= timedelta(hours=27)


def test_spring_forward_gap_moves_forward_and_fall_back_takes_the_first() -> None:
    anchor = datetime(2025, 3, 8, 2, 30)  # 9 March 2025 02:30 does not exist in New York
    runs = [occurrence(anchor, Cadence.DAILY, n, NEW_YORK) for n in (1, 2, 3)]
    assert [r.astimezone(NEW_YORK).strftime("%d %H:%M %Z") for r in runs] == [
        "08 02:30 EST",
        "09 03:30 EDT",
        "10 02:30 EDT",
    ]
    ambiguous = to_utc(datetime(2025, 11, 2, 1, 30), NEW_YORK)  # 01:30 happens twice
    assert ambiguous == datetime(2025, 11, 2, 5, 30, tzinfo=UTC)  # the first (EDT)
    weekly = [
        occurrence(datetime(2025, 10, 26, 1, 30), Cadence.WEEKLY, n, NEW_YORK) for n in (1, 2)
    ]
    assert weekly[1] - weekly[0] == timedelta(days=7)  # both the first 01:30 (EDT)
    assert [w.astimezone(NEW_YORK).hour for w in weekly] == [1, 1]
