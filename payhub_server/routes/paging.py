"""Query parameters every paginated list shares, and the service page -> wire page step."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, TypeVar

from litestar.params import QueryParameter

from payhub.services.paging import Page as ServicePage
from payhub_server.routes.wire import Page

T = TypeVar("T")

LIMIT = Annotated[int, QueryParameter(ge=1, le=200, description="Rows per page (1 to 200)")]
CURSOR = Annotated[
    str | None,
    QueryParameter(name="startingAfter", description="`nextCursor` of the previous page"),
]
INCLUDE_INACTIVE = Annotated[
    bool, QueryParameter(name="includeInactive", description="Also list deactivated ones")
]


def page_out(page: ServicePage[Any], convert: Callable[[Any], T]) -> Page[T]:
    return Page([convert(x) for x in page.items], page.has_more, page.next_cursor)
