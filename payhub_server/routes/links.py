"""Short links: create, list, read, click statistics and revoke (``/api/short-links``).

A provider key reaches every link of its provider and may name one of its merchants with
``merchantReference``; a merchant key reaches only its merchant's links.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Annotated

import msgspec
from litestar import Controller, Response
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, JSONBody, QueryParameter

from payhub.domain.links import (
    CLICK_DAYS_DEFAULT,
    CLICK_DAYS_MAX,
    PAGE_MAX,
    PAGE_SIZE_DEFAULT,
    PAGE_SIZE_MAX,
)
from payhub.services.links import ClickReport, LinkInput
from payhub.wire.links import ShortLinkOut
from payhub_server.deps import MERCHANT_KEY_OK, Tenant, api_delete, api_get, api_post
from payhub_server.encoding import encode


class ShortLinkCreate(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    target_url: str
    purpose: str | None = None
    label: str | None = None
    client_reference: str | None = None
    expires_in_days: int | None = None
    expires_at_utc: datetime | None = None
    merchant_reference: str | None = None


class ShortLinkPage(msgspec.Struct, rename="camel"):
    """One page of links, newest first."""

    data: list[ShortLinkOut]
    page: int
    page_size: int
    total_count: int
    has_more: bool


class DayClicks(msgspec.Struct, rename="camel"):
    date_utc: date
    clicks: int


class ClickStatsOut(msgspec.Struct, rename="camel"):
    """``clickCount`` is the running total since the link was made; ``daily`` has one entry
    per UTC day of the last ``days``, oldest first, ending today (0 for days without opens)."""

    code: str
    click_count: int
    last_clicked_utc: datetime | None
    days: int
    daily: list[DayClicks]

    @classmethod
    def of(cls, report: ClickReport) -> ClickStatsOut:
        return cls(
            code=report.view.link.code,
            click_count=report.view.clicks.count,
            last_clicked_utc=report.view.clicks.last_at,
            days=len(report.days),
            daily=[DayClicks(day, n) for day, n in report.days],
        )


_LINK = {200: ResponseSpec(ShortLinkOut, description="The short link")}


class ShortLinkController(Controller):
    path = "/api/short-links"
    tags = ["Short links"]

    @api_post(
        "/",
        opt=MERCHANT_KEY_OK,
        summary="Create a short link",
        status_code=201,
        responses={
            201: ResponseSpec(ShortLinkOut, description="Created"),
            200: ResponseSpec(
                ShortLinkOut, description="The existing link with this clientReference and address"
            ),
        },
    )
    def create_short_link(self, data: JSONBody[ShortLinkCreate], tenant: Tenant) -> Response[bytes]:
        """`targetUrl` must be a public `https://` page (400 otherwise). The same
        `clientReference` with the same address returns the existing link (200); with another
        address it is 409 until that link is revoked or expires. 2,000 creations per merchant
        and 50,000 per provider in any 24 hours (429 with `Retry-After`); 403 when short links
        are switched off for the account; 503 when no short-link domain is configured."""
        created = tenant.short_links.create(
            LinkInput(
                target_url=data.target_url,
                purpose=data.purpose,
                label=data.label,
                client_reference=data.client_reference,
                expires_in_days=data.expires_in_days,
                expires_at=data.expires_at_utc,
                merchant_reference=data.merchant_reference,
            )
        )
        return Response(
            encode(ShortLinkOut.of(created.view)),
            status_code=201 if created.created else 200,
            media_type="application/json",
        )

    @api_get("/", opt=MERCHANT_KEY_OK, summary="List short links")
    def list_short_links(
        self,
        tenant: Tenant,
        merchant_reference: Annotated[
            str | None,
            QueryParameter(name="merchantReference", description="Only this merchant's links"),
        ] = None,
        status: Annotated[
            str | None, QueryParameter(description="active, expired or revoked")
        ] = None,
        purpose: Annotated[str | None, QueryParameter(description="Only this purpose")] = None,
        search: Annotated[
            str | None,
            QueryParameter(
                description="A code, a client reference, or part of the address or label"
            ),
        ] = None,
        page: Annotated[
            int, QueryParameter(ge=1, le=PAGE_MAX, description="From 1 to 1000000")
        ] = 1,
        # Named as on the wire: Litestar reports a bad value under the Python name.
        pageSize: Annotated[
            int, QueryParameter(ge=1, le=PAGE_SIZE_MAX, description="1 to 200")
        ] = PAGE_SIZE_DEFAULT,
    ) -> ShortLinkPage:
        """Newest first. A merchant key sees only its merchant's links."""
        listing = tenant.short_links.list(
            merchant_reference=merchant_reference,
            status=status,
            purpose=purpose,
            search=search,
            page=page,
            page_size=pageSize,
        )
        return ShortLinkPage(
            data=[ShortLinkOut.of(v) for v in listing.views],
            page=listing.page,
            page_size=listing.page_size,
            total_count=listing.total,
            has_more=listing.has_more,
        )

    @api_get("/{code:str}", opt=MERCHANT_KEY_OK, summary="Get a short link", responses=_LINK)
    def get_short_link(self, code: FromPath[str], tenant: Tenant) -> ShortLinkOut:
        """With `clickCount` (opens so far) and `lastClickedUtc`."""
        return ShortLinkOut.of(tenant.short_links.get(code))

    @api_get("/{code:str}/clicks", opt=MERCHANT_KEY_OK, summary="Click statistics of a short link")
    def short_link_clicks(
        self,
        code: FromPath[str],
        tenant: Tenant,
        days: Annotated[
            int, QueryParameter(ge=1, le=CLICK_DAYS_MAX, description="1 to 365")
        ] = CLICK_DAYS_DEFAULT,
    ) -> ClickStatsOut:
        """The running total and the opens of each of the last `days` (1 to 365) UTC days."""
        return ClickStatsOut.of(tenant.short_links.clicks(code, days))

    @api_delete(
        "/{code:str}",
        opt=MERCHANT_KEY_OK,
        summary="Revoke a short link",
        status_code=200,
        responses=_LINK,
    )
    def revoke_short_link(
        self,
        code: FromPath[str],
        tenant: Tenant,
        reason: Annotated[str | None, QueryParameter(description="Kept with the link")] = None,
    ) -> ShortLinkOut:
        """Stops the link at once (visitors see a 'no longer available' page); counts stay
        readable. Safe to repeat: the first revocation's time and reason are kept."""
        return ShortLinkOut.of(tenant.short_links.revoke(code, reason))
