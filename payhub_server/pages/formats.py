"""How the payer's pages write dates and times: one format, in the merchant's time zone.

Amounts have one format too, ``payhub.domain.money.format_money`` (``$1,234.50``).
"""

from __future__ import annotations

from datetime import date, datetime
from zoneinfo import ZoneInfo

from payhub.domain.debit_authorizations import display_date


def local_date(day: date) -> str:
    """``January 5, 2026``."""
    return display_date(day)


def local_time(at: datetime, zone: str, *, weekday: bool = False) -> str:
    """``January 5, 2026, 2:30 PM CST`` in the merchant's zone (``Monday, …`` with weekday)."""
    local = at.astimezone(ZoneInfo(zone))
    hour = local.hour % 12 or 12
    text = f"{local_date(local.date())}, {hour}:{local.minute:02d} {local.strftime('%p %Z')}"
    return f"{local.strftime('%A')}, {text}" if weekday else text
