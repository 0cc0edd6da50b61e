"""Wire types shared by several resources."""

from __future__ import annotations

from typing import Generic, TypeVar

import msgspec

T = TypeVar("T")


class Page(msgspec.Struct, Generic[T], rename="camel"):
    """A page of a list. Pass ``nextCursor`` as ``startingAfter`` to get the next one."""

    data: list[T]
    has_more: bool = False
    next_cursor: str | None = None


class Items(msgspec.Struct, Generic[T], rename="camel"):
    """A complete, short list."""

    data: list[T]
