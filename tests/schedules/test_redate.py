"""Re-dating a Paused or Failed schedule's next run (the portal's edit): the run falls exactly
on the new date, later runs follow the cadence from it, and run numbers never go back (they
key each run's charge at the gateway). Pure, with hypothesis."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given
from hypothesis import strategies as st

from payhub.domain.errors import Conflict
from payhub.domain.schedules import Cadence, anchor_of, local_date, occurrence, reanchor
from tests.schedules.test_cadence import ZONES
from tests.schedules.test_states import schedule

instants = st.datetimes(
    min_value=datetime(2001, 1, 1), max_value=datetime(2059, 12, 31), timezones=st.just(UTC)
).map(lambda d: d.replace(microsecond=0))
cadences = st.sampled_from([None, *Cadence])


@given(cadences, instants, ZONES, st.integers(min_value=1, max_value=400))
def test_the_next_run_falls_on_the_new_date_and_numbers_only_grow(
    cadence: Cadence | None, when: datetime, zone: ZoneInfo, from_number: int
) -> None:
    if cadence is None:
        from_number = 1  # a one-time schedule has only run 1
    anchor, number = reanchor(cadence, when, zone, from_number)
    assert number >= from_number
    assert number - from_number < (48 if cadence is Cadence.YEARLY else 3)
    local = anchor_of(when, zone)
    due = occurrence(anchor, cadence, number, zone)
    # Exactly the new wall-clock time (an ambiguous fall-back time takes its first instant).
    assert anchor_of(due, zone) == local
    if cadence is not None:
        # The run after keeps the day of month (or the month's last day when shorter).
        after = occurrence(anchor, cadence, number + 1, zone).astimezone(zone).date()
        assert after == local_date(local.date(), cadence, 1)


def test_the_31st_after_run_2_skips_to_a_number_whose_month_has_the_day() -> None:
    utc = ZoneInfo("UTC")
    # Run 2 on 31 March would need an anchor on 31 February: run 3 (anchor 31 January) instead.
    anchor, number = reanchor(Cadence.MONTHLY, datetime(2025, 3, 31, 9, tzinfo=UTC), utc, 2)
    assert (anchor, number) == (datetime(2025, 1, 31, 9), 3)
    assert occurrence(anchor, Cadence.MONTHLY, 4, utc) == datetime(2025, 4, 30, 9, tzinfo=UTC)


def test_redate_keeps_the_attempt_of_the_same_run_and_refuses_an_active_schedule() -> None:
    s = schedule()
    now = datetime(2025, 3, 14, tzinfo=UTC)
    with pytest.raises(Conflict):
        s.redate(datetime(2025, 4, 1, tzinfo=UTC), now)
    s.pause(now)
    s.next_attempt = 2
    s.redate(datetime(2025, 4, 1, 9, tzinfo=UTC), now)
    assert s.next_run_at == datetime(2025, 4, 1, 9, tzinfo=UTC)
    assert (s.next_run_number, s.next_attempt) == (1, 2)
    s.failed(now, "declined")  # Failed keeps its re-dated run when resumed, if still ahead
    s.failed(now, "declined")
    s.status = s.status.FAILED
    s.redate(datetime(2025, 5, 1, 9, tzinfo=UTC), now)
    s.resume(now)
    assert s.next_run_at == datetime(2025, 5, 1, 9, tzinfo=UTC)
