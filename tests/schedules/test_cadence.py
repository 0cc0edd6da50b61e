"""Cadence math: month ends, 29 February, DST, and exact stops (pure, with hypothesis)."""

from __future__ import annotations

import calendar
import itertools
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
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


LONDON = ZoneInfo("Europe/London")
# Spring forward and fall back in 2025: New York 9 Mar (02:00->03:00) and 2 Nov (02:00->01:00);
# London 30 Mar (01:00->02:00) and 26 Oct (02:00->01:00).
TRANSITIONS = [
    (NEW_YORK, date(2025, 3, 9), date(2025, 11, 2)),
    (LONDON, date(2025, 3, 30), date(2025, 10, 26)),
]


def _daily(zone: ZoneInfo, first: date, wall: time, days: int) -> list[datetime]:
    anchor = datetime.combine(first, wall)
    return [occurrence(anchor, Cadence.DAILY, n, zone) for n in range(1, days + 1)]


@pytest.mark.parametrize(("zone", "spring", "autumn"), TRANSITIONS, ids=["New_York", "London"])
@pytest.mark.parametrize("wall", [time(1, 30), time(2, 30)], ids=["0130", "0230"])
@pytest.mark.parametrize("which", ["spring", "autumn"])
def test_a_daily_schedule_runs_once_every_local_day_across_a_dst_change(
    zone: ZoneInfo, spring: date, autumn: date, wall: time, which: str
) -> None:
    """Ten daily runs from four days before the change: one run on each local day, none
    skipped and none doubled, each at the wall-clock time, or an hour later on the one day
    that time does not exist; on the fall-back day the repeated time runs once (the first)."""
    change = spring if which == "spring" else autumn
    runs = _daily(zone, change - timedelta(days=4), wall, 10)
    assert all(a < b for a, b in itertools.pairwise(runs))
    local = [r.astimezone(zone) for r in runs]
    assert [x.date() for x in local] == [change + timedelta(days=d) for d in range(-4, 6)]
    for x in local:
        exists = x.replace(tzinfo=None) == datetime.combine(x.date(), wall)
        if exists:
            continue
        assert (x.date(), which) == (change, "spring")  # only the gap day moves
        assert x.time() == (datetime.combine(x.date(), wall) + timedelta(hours=1)).time()
    on_the_day = [x for x in local if x.date() == change]
    assert len(on_the_day) == 1
    if which == "autumn":
        assert on_the_day[0].fold == 0
        (utc,) = [r for r in runs if r.astimezone(zone).date() == change]
        repeated = to_utc(datetime.combine(change, wall), zone)
        assert utc == repeated
        assert utc.astimezone(zone).dst() == (
            timedelta(hours=1) if wall < time(2) else timedelta(0)
        )


def test_the_spring_gap_in_each_zone_moves_the_run_forward_by_an_hour() -> None:
    ny = _daily(NEW_YORK, date(2025, 3, 8), time(2, 30), 3)
    assert [r.astimezone(NEW_YORK).strftime("%d %H:%M") for r in ny] == [
        "08 02:30",
        "09 03:30",
        "10 02:30",
    ]
    london = _daily(LONDON, date(2025, 3, 29), time(1, 30), 3)
    assert [r.astimezone(LONDON).strftime("%d %H:%M %Z") for r in london] == [
        "29 01:30 GMT",
        "30 02:30 BST",
        "31 01:30 BST",
    ]
    fall = _daily(LONDON, date(2025, 10, 25), time(1, 30), 3)
    assert [r.strftime("%d %H:%M") for r in fall] == ["25 00:30", "26 00:30", "27 01:30"]
    assert fall[1] - fall[0] == timedelta(hours=24)  # the first 01:30 (BST) on the 26th
    assert fall[2] - fall[1] == timedelta(hours=25)


@given(
    st.sampled_from([NEW_YORK, LONDON]),
    st.sampled_from(list(Cadence)),
    st.datetimes(min_value=datetime(2024, 1, 1), max_value=datetime(2030, 12, 31)).map(
        lambda d: d.replace(second=0, microsecond=0)
    ),
    st.integers(1, 60),
)
def test_dst_zones_never_skip_or_double_a_local_day(
    zone: ZoneInfo, cadence: Cadence, anchor: datetime, runs: int
) -> None:
    """In the zones that change clocks, every run is strictly later than the one before and
    falls on its own planned local day: no two runs share a day, no planned day is missed."""
    times = [occurrence(anchor, cadence, n, zone) for n in range(1, runs + 2)]
    assert all(a < b for a, b in itertools.pairwise(times))
    days = [t.astimezone(zone).date() for t in times]
    assert days == [local_date(anchor.date(), cadence, n) for n in range(runs + 1)]
