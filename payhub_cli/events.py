"""``payhub events list``: a provider's domain events as a table (``--json`` for scripts, with
the API's field names), newest first, as ``GET /api/events`` lists them.

``--provider`` names the provider (not needed when there is only one, or with ``--merchant``,
whose provider is found from the reference).
"""

from __future__ import annotations

import click

from payhub.domain.errors import NotFound, ValidationError
from payhub.domain.events import CATALOGUE, ObjectType
from payhub.hub import PayHub, ProviderScope
from payhub.services.events import EventFilter, EventView
from payhub_cli.main import cli, json_option, with_hub
from payhub_cli.output import when
from payhub_cli.portal import page_options, show


@cli.group()
def events() -> None:
    """Domain events: what happened to a provider's objects (kept 30 days)."""


def _provider_scope(hub: PayHub, provider_id: str | None, reference: str | None) -> ProviderScope:
    """The provider named, else the one owning ``reference``, else the only one there is."""
    if provider_id is None:
        if reference is not None:
            owners = {
                m.provider_id
                for m in hub.operators.list_merchants()
                if m.external_reference == reference
            }
            if not owners:
                raise NotFound(f"no merchant with externalReference '{reference}'")
        else:
            owners = {p.id for p in hub.operators.list_providers()}
        if len(owners) != 1:
            raise ValidationError.for_field("provider", "name the provider (--provider ID)")
        provider_id = owners.pop()
    return hub.provider(hub.as_provider(provider_id))


def record(v: EventView) -> dict[str, object]:
    e = v.event
    return {
        "eventId": e.id,
        "type": e.type,
        "createdAtUtc": e.created_at.isoformat(),
        "objectType": e.object_type.value,
        "objectId": e.object_id,
        "merchantReference": v.merchant_reference,
        "data": dict(e.data),
        "details": dict(e.details),
    }


@events.command("list")
@click.option("--provider", "provider_id", help="Provider id (if there are several).")
@click.option("--merchant", "reference", help="Only this merchant's events (externalReference).")
@click.option(
    "--type",
    "types",
    multiple=True,
    type=click.Choice([e.type for e in CATALOGUE]),
    help="Only events of this type (repeatable).",
)
@click.option(
    "--object-type", type=click.Choice([o.value for o in ObjectType]), help="Only about these."
)
@click.option("--object-id", help="Only about this object (with --object-type).")
@page_options
@json_option
@with_hub
def events_list(
    hub: PayHub,
    provider_id: str | None,
    reference: str | None,
    types: tuple[str, ...],
    object_type: str | None,
    object_id: str | None,
    limit: int,
    after: str | None,
    as_json: bool,
) -> None:
    """List events, newest first: type, the object it is about, the merchant and when."""
    scope = _provider_scope(hub, provider_id, reference)
    page = scope.events.list(EventFilter(types, object_type, object_id, reference), after, limit)
    show(
        page,
        as_json,
        ["EVENT", "TYPE", "OBJECT", "MERCHANT", "CREATED"],
        lambda v: [
            v.event.id,
            v.event.type,
            f"{v.event.object_type.value} {v.event.object_id}",
            v.merchant_reference or "-",
            when(v.event.created_at),
        ],
        record,
        "no events in the last 30 days",
    )
