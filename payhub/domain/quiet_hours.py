"""Texting hours: no text between 21:00 and 08:00 in the merchant's time zone (spec: Limits).

Pure functions over aware datetimes. Quiet hours are read on the merchant's wall clock, so
they follow daylight-saving changes: on a spring-forward night 08:00 comes one UTC hour
sooner than the night before, on a fall-back night one hour later. 08:00 and 21:00 exist on
every day in every zone payhub serves (US transitions happen at 02:00), but a zone whose
clocks jump over 08:00 still gets a real instant: the first one at or after 08:00.
"""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

QUIET_FROM = time(21, 0)  # texting stops at 21:00 merchant time…
QUIET_UNTIL = time(8, 0)  # …and resumes at 08:00


def _local(now_utc: datetime, zone: ZoneInfo) -> datetime:
    if now_utc.tzinfo is None:
        raise ValueError("now_utc must be timezone-aware")
    return now_utc.astimezone(zone)


def in_quiet_hours(now_utc: datetime, zone: ZoneInfo) -> bool:
    """Whether a text may not go out at ``now_utc`` (21:00 inclusive to 08:00 exclusive)."""
    wall = _local(now_utc, zone).time().replace(tzinfo=None)
    return wall >= QUIET_FROM or wall < QUIET_UNTIL


def _morning(day: datetime, zone: ZoneInfo) -> datetime:
    """08:00 on ``day``'s date in ``zone``, as UTC: the first real instant at or after it."""
    naive = datetime.combine(day.date(), QUIET_UNTIL)
    candidate = naive.replace(tzinfo=zone).astimezone(UTC)
    if candidate.astimezone(zone).replace(tzinfo=None) == naive:
        return candidate
    # 08:00 fell in a clocks-forward gap: walk from the earliest reading of that wall time
    # to the first minute whose wall clock is past it (the end of the gap).
    moment = min(naive.replace(tzinfo=zone, fold=f).astimezone(UTC) for f in (0, 1))
    while moment.astimezone(zone).replace(tzinfo=None) < naive:
        moment += timedelta(minutes=1)
    return moment


def next_send_time(now_utc: datetime, zone: ZoneInfo) -> datetime:
    """The earliest instant at or after ``now_utc`` when a text may go out (UTC).

    Outside quiet hours that is ``now_utc`` itself; in the evening, 08:00 the next morning;
    after midnight, 08:00 the same morning.
    """
    local = _local(now_utc, zone)
    if not in_quiet_hours(now_utc, zone):
        return now_utc.astimezone(UTC)
    day = local if local.time().replace(tzinfo=None) < QUIET_UNTIL else local + timedelta(days=1)
    return _morning(day, zone)
