"""Quiet hours (21:00-08:00 merchant time) and the next send time, across daylight saving."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from payhub.domain.quiet_hours import in_quiet_hours, next_send_time

NY = ZoneInfo("America/New_York")
ZONES = [
    "America/New_York",
    "America/Chicago",
    "America/Denver",
    "America/Phoenix",
    "America/Los_Angeles",
    "America/Anchorage",
    "Pacific/Honolulu",
    "Europe/London",
    "Australia/Lord_Howe",  # a half-hour daylight-saving shift
    "UTC",
]


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


def local(moment: datetime, zone: ZoneInfo) -> str:
    return moment.astimezone(zone).strftime("%Y-%m-%d %H:%M %Z")


def test_daytime_is_now() -> None:
    now = utc(2025, 6, 2, 15, 30)  # 11:30 EDT
    assert not in_quiet_hours(now, NY)
    assert next_send_time(now, NY) == now


@pytest.mark.parametrize(
    ("wall", "quiet"),
    [
        ((20, 59), False),
        ((21, 0), True),
        ((23, 59), True),
        ((0, 0), True),
        ((7, 59), True),
        ((8, 0), False),
    ],
)
def test_boundaries(wall: tuple[int, int], quiet: bool) -> None:
    moment = datetime(2025, 6, 2, *wall, tzinfo=NY).astimezone(UTC)
    assert in_quiet_hours(moment, NY) is quiet


def test_evening_waits_for_next_morning() -> None:
    now = datetime(2025, 6, 2, 22, 15, tzinfo=NY).astimezone(UTC)
    assert local(next_send_time(now, NY), NY) == "2025-06-03 08:00 EDT"


def test_after_midnight_waits_for_same_morning() -> None:
    now = datetime(2025, 6, 3, 3, 0, tzinfo=NY).astimezone(UTC)
    assert local(next_send_time(now, NY), NY) == "2025-06-03 08:00 EDT"


def test_spring_forward_night() -> None:
    # 2025-03-09: clocks jump 02:00 EST -> 03:00 EDT. A text at 22:00 EST on the 8th waits
    # until 08:00 EDT on the 9th, which is 12:00 UTC (not 13:00 as the night before).
    now = datetime(2025, 3, 8, 22, 0, tzinfo=NY).astimezone(UTC)
    assert now == utc(2025, 3, 9, 3, 0)
    result = next_send_time(now, NY)
    assert result == utc(2025, 3, 9, 12, 0)
    assert local(result, NY) == "2025-03-09 08:00 EDT"
    # and the night before it is 13:00 UTC
    assert next_send_time(utc(2025, 3, 8, 3, 0), NY) == utc(2025, 3, 8, 13, 0)


def test_inside_the_spring_gap() -> None:
    now = utc(2025, 3, 9, 7, 30)  # 03:30 EDT, just after the jump
    assert in_quiet_hours(now, NY)
    assert next_send_time(now, NY) == utc(2025, 3, 9, 12, 0)


def test_fall_back_night() -> None:
    # 2025-11-02: clocks go back 02:00 EDT -> 01:00 EST. 08:00 EST is 13:00 UTC.
    now = datetime(2025, 11, 1, 23, 0, tzinfo=NY).astimezone(UTC)
    result = next_send_time(now, NY)
    assert result == utc(2025, 11, 2, 13, 0)
    assert local(result, NY) == "2025-11-02 08:00 EST"


def test_in_the_repeated_hour() -> None:
    first = utc(2025, 11, 2, 5, 30)  # 01:30 EDT
    second = utc(2025, 11, 2, 6, 30)  # 01:30 EST, the hour again
    assert next_send_time(first, NY) == next_send_time(second, NY) == utc(2025, 11, 2, 13, 0)


def test_phoenix_has_no_daylight_saving() -> None:
    phx = ZoneInfo("America/Phoenix")
    assert next_send_time(utc(2025, 3, 9, 5, 0), phx) == utc(2025, 3, 9, 15, 0)


def test_naive_now_is_refused() -> None:
    with pytest.raises(ValueError, match="aware"):
        next_send_time(datetime(2025, 1, 1, 12, 0), NY)


moments = st.datetimes(
    min_value=datetime(2020, 1, 1), max_value=datetime(2035, 12, 31), timezones=st.just(UTC)
)


@given(moments, st.sampled_from(ZONES))
def test_never_in_quiet_hours_and_never_early(now: datetime, zone_name: str) -> None:
    zone = ZoneInfo(zone_name)
    result = next_send_time(now, zone)
    assert result >= now
    assert not in_quiet_hours(result, zone)
    assert result - now <= timedelta(hours=12)  # quiet hours last 11 h (+1 on a DST night)


@given(moments, st.sampled_from(ZONES))
def test_nothing_sendable_is_skipped(now: datetime, zone_name: str) -> None:
    """The result is the first allowed moment: one minute earlier is still quiet (or now)."""
    zone = ZoneInfo(zone_name)
    result = next_send_time(now, zone)
    if result > now:
        assert in_quiet_hours(result - timedelta(minutes=1), zone)
        assert in_quiet_hours(now, zone)
    assert next_send_time(result, zone) == result
