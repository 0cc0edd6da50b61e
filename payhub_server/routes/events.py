"""Domain events: what happened to the caller's objects, newest first (``/api/events``).

A provider key reads every event of its provider (``merchantReference`` narrows it to one
merchant); a merchant key only its merchant's. Events are kept 30 days. The catalogue of
types: docs/architecture.md ("Domain events").
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import msgspec
from litestar import Controller
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, QueryParameter

from payhub.services.events import EventFilter, EventView
from payhub_server.deps import MERCHANT_KEY_OK, Tenant, api_get
from payhub_server.routes.paging import CURSOR, LIMIT, page_out
from payhub_server.routes.wire import Page


class DomainEventOut(msgspec.Struct, rename="camel"):
    """`type` is one of the catalogue's (e.g. `invoice.paid`); `data` is the object
    (`objectType`, `objectId`) exactly as the API returned it when the event happened;
    `details` names what the object alone does not say (which payment paid an invoice,
    which run of a schedule was charged). `merchantReference` is null for a provider's own
    objects."""

    event_id: str
    type: str
    created_at_utc: datetime
    object_type: str
    object_id: str
    merchant_reference: str | None
    data: dict[str, Any]
    details: dict[str, Any]

    @classmethod
    def of(cls, v: EventView) -> DomainEventOut:
        e = v.event
        return cls(
            event_id=e.id,
            type=e.type,
            created_at_utc=e.created_at,
            object_type=e.object_type.value,
            object_id=e.object_id,
            merchant_reference=v.merchant_reference,
            data=dict(e.data),
            details=dict(e.details),
        )


def _types(given: list[str] | None) -> list[str]:
    """``type`` may repeat and each may list several, comma-separated."""
    return [t for value in given or () for t in value.split(",")]


class EventController(Controller):
    path = "/api/events"
    tags = ["Events"]

    @api_get("/", opt=MERCHANT_KEY_OK, summary="List events")
    def list_events(
        self,
        tenant: Tenant,
        limit: LIMIT = 50,
        starting_after: CURSOR = None,
        type: Annotated[
            list[str] | None,
            QueryParameter(
                description="Only these types (repeat the parameter or separate with commas),"
                " e.g. `invoice.paid`"
            ),
        ] = None,
        object_type: Annotated[
            str | None,
            QueryParameter(
                name="objectType",
                description="Only events about this kind of object: payment, invoice, customer,"
                " scheduled_payment, schedule_request, short_link",
            ),
        ] = None,
        object_id: Annotated[
            str | None,
            QueryParameter(
                name="objectId", description="Only events about this object (with objectType)"
            ),
        ] = None,
        merchant_reference: Annotated[
            str | None,
            QueryParameter(name="merchantReference", description="Only this merchant's events"),
        ] = None,
    ) -> Page[DomainEventOut]:
        """Newest first, from the last 30 days. A merchant key sees only its merchant's
        events. 400 for an unknown `type` or `objectType`, or `objectId` without
        `objectType`."""
        page = tenant.events.list(
            EventFilter(
                types=_types(type),
                object_type=object_type,
                object_id=object_id,
                merchant_reference=merchant_reference,
            ),
            starting_after,
            limit,
        )
        return page_out(page, DomainEventOut.of)

    @api_get(
        "/{event_id:str}",
        opt=MERCHANT_KEY_OK,
        summary="Get an event",
        responses={200: ResponseSpec(DomainEventOut, description="The event")},
    )
    def get_event(self, event_id: FromPath[str], tenant: Tenant) -> DomainEventOut:
        """404 for an event of another provider or merchant, or one older than 30 days."""
        return DomainEventOut.of(tenant.events.get(event_id))
