"""Cursor pages: ``limit`` (1 to 200, default 50) rows after the ``startingAfter`` cursor.

Repositories are asked for ``limit + 1`` rows; the extra one only tells whether there is
more. The cursor is the id of the last row of the page (for observed tax rates, its postal
code), so pages stay stable while rows are added.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar

import attrs

from payhub.domain.errors import ValidationError

T = TypeVar("T")
PAGE_MAX = 200
PAGE_DEFAULT = 50


@attrs.frozen
class Page(Generic[T]):
    items: list[T]
    has_more: bool
    next_cursor: str | None


def check_limit(limit: int) -> int:
    if not 1 <= limit <= PAGE_MAX:
        raise ValidationError.for_field("limit", f"must be between 1 and {PAGE_MAX}")
    return limit


def check_cursor(found: bool) -> None:
    """An unknown ``startingAfter`` (or another merchant's id) is refused, not read as 'start'."""
    if not found:
        raise ValidationError.for_field("startingAfter", "is not an id from this list")


def page_of(rows: list[T], limit: int, cursor: Callable[[T], str]) -> Page[T]:
    more = len(rows) > limit
    rows = rows[:limit]
    return Page(rows, more, cursor(rows[-1]) if more and rows else None)
