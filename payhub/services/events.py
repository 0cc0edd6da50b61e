"""Recording domain events (``publish``) and reading them back (``Events``, the events API).

``publish(uow, deps, event)`` is called by a service inside the unit of work of the change
that causes the event: it writes the ``events`` row and calls every reaction registered for
the event's type (``deps.reactions``), each of which enqueues its own job in the same
transaction (a transactional outbox). A change that rolls back leaves neither the event nor
anything a reaction queued. ``emit`` builds the event (id, clock) and publishes it.

``Events`` (``hub.provider(caller).events``): a provider key reads every event of its
provider, a merchant key only its merchant's; newest first, filtered by type and by object,
kept ``RETENTION_DAYS`` (the worker's housekeeping purges older ones, ``purge_expired``).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from datetime import timedelta
from typing import Any

import attrs

from payhub.domain.accounts import Merchant
from payhub.domain.errors import FieldError, NotFound
from payhub.domain.events import (
    EVENT_PREFIX,
    RETENTION_DAYS,
    TYPES,
    DomainEvent,
    EventType,
    ObjectType,
)
from payhub.domain.fields import raise_if_any
from payhub.domain.ids import looks_like
from payhub.ports import EventQuery, UnitOfWork
from payhub.services.auth import Caller
from payhub.services.deps import Deps
from payhub.services.merchants import find_merchant
from payhub.services.paging import Page, check_cursor, check_limit, page_of

RETENTION = timedelta(days=RETENTION_DAYS)
TYPE_FILTER_MAX = 20


def publish(uow: UnitOfWork, deps: Deps, event: DomainEvent) -> DomainEvent:
    """Record ``event`` in ``uow`` and run the reactions registered for its type there."""
    uow.events.add(event)
    for reaction in deps.reactions.for_type(event.type):
        reaction(uow, event)
    return event


def emit(
    uow: UnitOfWork,
    deps: Deps,
    kind: EventType,
    *,
    provider_id: str,
    merchant_id: str | None,
    object_id: str,
    data: Mapping[str, Any],
    details: Mapping[str, Any] | None = None,
) -> DomainEvent:
    """A new event of ``kind`` (an ``evt_`` id, the clock's time), published in ``uow``."""
    event = DomainEvent(
        id=deps.new_id(EVENT_PREFIX),
        type=kind.type,
        provider_id=provider_id,
        merchant_id=merchant_id,
        object_type=kind.object_type,
        object_id=object_id,
        created_at=deps.clock.now(),
        data=dict(data),
        details=dict(details or {}),
    )
    return publish(uow, deps, event)


def emit_for(
    uow: UnitOfWork,
    deps: Deps,
    kind: EventType,
    merchant: Merchant,
    object_id: str,
    data: Mapping[str, Any],
    details: Mapping[str, Any] | None = None,
) -> DomainEvent:
    """``emit`` for an object of ``merchant`` (most events)."""
    return emit(
        uow,
        deps,
        kind,
        provider_id=merchant.provider_id,
        merchant_id=merchant.id,
        object_id=object_id,
        data=data,
        details=details,
    )


def purge_expired(uow: UnitOfWork, deps: Deps) -> int:
    """Forget events older than the retention window (the worker's housekeeping)."""
    return uow.events.purge_before(deps.clock.now() - RETENTION)


# --- the events API ----------------------------------------------------------------------------


@attrs.frozen
class EventView:
    """An event as a caller reads it: with its merchant's external reference."""

    event: DomainEvent
    merchant_reference: str | None


@attrs.frozen
class EventFilter:
    """The list's filters as sent (unchecked)."""

    types: Collection[str] = ()
    object_type: str | None = None
    object_id: str | None = None
    merchant_reference: str | None = None


def _check_types(given: Collection[str], errors: list[FieldError]) -> frozenset[str] | None:
    wanted = {t.strip() for t in given if t and t.strip()}
    if not wanted:
        return None
    if len(wanted) > TYPE_FILTER_MAX:
        errors.append(FieldError("type", f"at most {TYPE_FILTER_MAX} types"))
    unknown = sorted(t for t in wanted if t not in TYPES)
    if unknown:
        errors.append(
            FieldError("type", f"unknown event type '{unknown[0]}'; see docs/architecture.md")
        )
    return frozenset(wanted)


def _check_object(
    object_type: str | None, object_id: str | None, errors: list[FieldError]
) -> tuple[ObjectType | None, str | None]:
    kind: ObjectType | None = None
    if object_type is not None:
        try:
            kind = ObjectType(object_type.strip())
        except ValueError:
            names = ", ".join(o.value for o in ObjectType)
            errors.append(FieldError("objectType", f"must be one of {names}"))
    oid = object_id.strip() if object_id is not None else None
    if oid is not None and (not oid or len(oid) > 100):
        errors.append(FieldError("objectId", "must be 1 to 100 characters"))
    if oid is not None and object_type is None:
        errors.append(FieldError("objectType", "is required with objectId"))
    return kind, oid


class Events:
    """The caller's events: a provider key sees its provider's, a merchant key its merchant's."""

    def __init__(self, deps: Deps, caller: Caller) -> None:
        self._d = deps
        self._caller = caller

    def _views(self, uow: UnitOfWork, events: list[DomainEvent]) -> list[EventView]:
        refs: dict[str, str | None] = {}
        views = []
        for event in events:
            ref = None
            if event.merchant_id is not None:
                if event.merchant_id not in refs:
                    merchant = uow.merchants.get(event.merchant_id)
                    refs[event.merchant_id] = merchant.external_reference if merchant else None
                ref = refs[event.merchant_id]
            views.append(EventView(event, ref))
        return views

    def _visible(self, event: DomainEvent | None) -> bool:
        if event is None or event.provider_id != self._caller.provider_id:
            return False
        if self._caller.merchant_id is not None and event.merchant_id != self._caller.merchant_id:
            return False
        return event.created_at >= self._d.clock.now() - RETENTION

    def get(self, event_id: str) -> EventView:
        """404 for an unknown id, another provider's or merchant's event, or one past the
        retention window."""
        with self._d.store.unit_of_work(readonly=True) as uow:
            event = uow.events.get(event_id.strip()) if event_id else None
            if event is None or not self._visible(event):
                raise NotFound(f"no event '{event_id}'")
            return self._views(uow, [event])[0]

    def list(
        self, given: EventFilter | None = None, after: str | None = None, limit: int = 50
    ) -> Page[EventView]:
        """Newest first; ``after`` is the ``eventId`` ending the previous page."""
        given = given or EventFilter()
        check_limit(limit)
        errors: list[FieldError] = []
        types = _check_types(given.types, errors)
        object_type, object_id = _check_object(given.object_type, given.object_id, errors)
        if after is not None and not looks_like(EVENT_PREFIX, after):
            errors.append(FieldError("startingAfter", "is not an id from this list"))
        raise_if_any(errors)
        with self._d.store.unit_of_work(readonly=True) as uow:
            merchant_id = self._caller.merchant_id
            if given.merchant_reference is not None:
                merchant_id = find_merchant(uow, self._caller, given.merchant_reference).id
            query = EventQuery(
                provider_id=self._caller.provider_id,
                merchant_id=merchant_id,
                types=types,
                object_type=object_type,
                object_id=object_id,
                since=self._d.clock.now() - RETENTION,
            )
            if after is not None:  # a cursor from this caller's list only
                cursor = uow.events.get(after)
                mine = cursor is not None and merchant_id in (None, cursor.merchant_id)
                check_cursor(mine and self._visible(cursor))
            rows = uow.events.list(query, after, limit + 1)
            page = page_of(rows, limit, lambda e: e.id)
            return Page(self._views(uow, page.items), page.has_more, page.next_cursor)
