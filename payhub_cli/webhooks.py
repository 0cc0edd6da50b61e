"""``payhub webhooks``: a provider's webhook endpoints, their delivery log, and replays.

Commands act as the provider (the operator's trust level). ``--provider`` names it; where an
endpoint or event id is given it may be left out, and the provider that has it is found.
"""

from __future__ import annotations

from typing import Any

import click

from payhub.domain.errors import NotFound, ValidationError
from payhub.domain.webhooks import DeliveryAttempt
from payhub.hub import PayHub, ProviderScope
from payhub.services.webhooks import EndpointInput, EndpointPatch, EndpointView
from payhub_cli.main import cli, json_option, with_hub
from payhub_cli.output import emit_json, table, when
from payhub_cli.portal import page_options, show


@cli.group()
def webhooks() -> None:
    """Webhook endpoints (Standard Webhooks signed events), deliveries and replays."""


def _scope(hub: PayHub, provider_id: str) -> ProviderScope:
    return hub.provider(hub.as_provider(provider_id))


def _owner(hub: PayHub, provider_id: str | None, find: Any) -> ProviderScope:
    """The provider's scope, or (none named) that of the one provider for which ``find``
    does not raise ``NotFound``."""
    if provider_id:
        return _scope(hub, provider_id)
    found = []
    for provider in hub.operators.list_providers():
        scope = _scope(hub, provider.id)
        try:
            find(scope)
        except NotFound:
            continue
        found.append(scope)
    if not found:
        raise NotFound("no provider has it")
    if len(found) > 1:
        raise ValidationError.for_field("provider", "several providers have it: name one")
    return found[0]


def _record(v: EndpointView) -> dict[str, Any]:
    e = v.endpoint
    out: dict[str, Any] = {
        "endpointId": e.id,
        "url": e.url,
        "eventTypes": list(e.event_types),
        "description": e.description,
        "merchantReference": v.merchant_reference,
        "alertEmail": e.alert_email,
        "enabled": e.enabled,
        "disabledReason": e.disabled_reason,
        "failingSinceUtc": e.failing_since.isoformat() if e.failing_since else None,
        "createdAtUtc": e.created_at.isoformat(),
    }
    if v.secret is not None:
        out["secret"] = v.secret
    return out


def _print(v: EndpointView, as_json: bool) -> None:
    if as_json:
        emit_json(_record(v))
        return
    e = v.endpoint
    state = "enabled" if e.enabled else f"disabled ({e.disabled_reason})"
    click.echo(f"{e.id}  {e.url}  [{', '.join(e.event_types)}]  {state}")
    if v.merchant_reference:
        click.echo(f"  only merchant {v.merchant_reference}")
    if v.secret is not None:
        click.echo(f"  signing secret (shown once, keep it now): {v.secret}")


provider_required = click.option("--provider", "provider_id", required=True, help="Provider id.")
provider_optional = click.option(
    "--provider", "provider_id", help="Provider id (found from the id when left out)."
)


@webhooks.group()
def endpoints() -> None:
    """Create, list, change, disable, enable, delete endpoints and rotate their secrets."""


@endpoints.command("create")
@provider_required
@click.option("--url", required=True, help="A public https:// address.")
@click.option(
    "--event",
    "event_types",
    multiple=True,
    help="An event type to send (repeat); none: every event.",
)
@click.option("--description")
@click.option("--merchant", "merchant_reference", help="Only this merchant's events.")
@click.option("--alert-email", help="Told when payhub disables the endpoint.")
@json_option
@with_hub
def endpoints_create(
    hub: PayHub,
    provider_id: str,
    url: str,
    event_types: tuple[str, ...],
    description: str | None,
    merchant_reference: str | None,
    alert_email: str | None,
    as_json: bool,
) -> None:
    """Create an endpoint; its signing secret is printed this once."""
    view = _scope(hub, provider_id).webhooks.create(
        EndpointInput(
            url=url,
            event_types=list(event_types) or ["*"],
            description=description,
            merchant_reference=merchant_reference,
            alert_email=alert_email,
        )
    )
    _print(view, as_json)


@endpoints.command("list")
@provider_required
@click.option("--merchant", "merchant_reference", help="Only endpoints limited to it.")
@page_options
@json_option
@with_hub
def endpoints_list(
    hub: PayHub,
    provider_id: str,
    merchant_reference: str | None,
    limit: int,
    after: str | None,
    as_json: bool,
) -> None:
    """The provider's endpoints, oldest first (never with secrets)."""
    page = _scope(hub, provider_id).webhooks.list(merchant_reference, after, limit)
    show(
        page,
        as_json,
        ["ID", "URL", "EVENTS", "MERCHANT", "ENABLED", "FAILING SINCE"],
        lambda v: [
            v.endpoint.id,
            v.endpoint.url,
            ", ".join(v.endpoint.event_types),
            v.merchant_reference or "",
            "yes" if v.endpoint.enabled else "no",
            when(v.endpoint.failing_since),
        ],
        _record,
        "no webhook endpoints",
    )


@endpoints.command("show")
@click.argument("endpoint_id")
@provider_optional
@json_option
@with_hub
def endpoints_show(hub: PayHub, endpoint_id: str, provider_id: str | None, as_json: bool) -> None:
    """One endpoint."""
    scope = _owner(hub, provider_id, lambda s: s.webhooks.get(endpoint_id))
    _print(scope.webhooks.get(endpoint_id), as_json)


def _update(
    hub: PayHub, endpoint_id: str, provider_id: str | None, patch: EndpointPatch
) -> EndpointView:
    scope = _owner(hub, provider_id, lambda s: s.webhooks.get(endpoint_id))
    return scope.webhooks.update(endpoint_id, patch)


@endpoints.command("update")
@click.argument("endpoint_id")
@provider_optional
@click.option("--url")
@click.option("--event", "event_types", multiple=True, help="Replaces the event types.")
@click.option("--description")
@click.option("--alert-email")
@json_option
@with_hub
def endpoints_update(
    hub: PayHub,
    endpoint_id: str,
    provider_id: str | None,
    url: str | None,
    event_types: tuple[str, ...],
    description: str | None,
    alert_email: str | None,
    as_json: bool,
) -> None:
    """Change an endpoint's address, event types, description or alert address."""
    patch = EndpointPatch(
        url=url,
        event_types=list(event_types) or None,
        description=description,
        alert_email=alert_email,
    )
    _print(_update(hub, endpoint_id, provider_id, patch), as_json)


@endpoints.command("disable")
@click.argument("endpoint_id")
@provider_optional
@with_hub
def endpoints_disable(hub: PayHub, endpoint_id: str, provider_id: str | None) -> None:
    """Stop deliveries (those on their way are cancelled)."""
    _print(_update(hub, endpoint_id, provider_id, EndpointPatch(enabled=False)), False)


@endpoints.command("enable")
@click.argument("endpoint_id")
@provider_optional
@with_hub
def endpoints_enable(hub: PayHub, endpoint_id: str, provider_id: str | None) -> None:
    """Resume deliveries with new events (replay what was missed)."""
    _print(_update(hub, endpoint_id, provider_id, EndpointPatch(enabled=True)), False)


@endpoints.command("delete")
@click.argument("endpoint_id")
@provider_optional
@with_hub
def endpoints_delete(hub: PayHub, endpoint_id: str, provider_id: str | None) -> None:
    """Delete an endpoint."""
    scope = _owner(hub, provider_id, lambda s: s.webhooks.get(endpoint_id))
    scope.webhooks.delete(endpoint_id)
    click.echo(f"deleted {endpoint_id}")


@endpoints.command("rotate-secret")
@click.argument("endpoint_id")
@provider_optional
@click.option(
    "--overlap-hours",
    type=float,
    default=24,
    show_default=True,
    help="How long the old secret still signs too (0: not at all).",
)
@json_option
@with_hub
def endpoints_rotate(
    hub: PayHub, endpoint_id: str, provider_id: str | None, overlap_hours: float, as_json: bool
) -> None:
    """A new signing secret, printed this once."""
    scope = _owner(hub, provider_id, lambda s: s.webhooks.get(endpoint_id))
    _print(scope.webhooks.rotate_secret(endpoint_id, overlap_hours), as_json)


@webhooks.command("deliveries")
@click.argument("endpoint_id")
@provider_optional
@page_options
@json_option
@with_hub
def deliveries(
    hub: PayHub,
    endpoint_id: str,
    provider_id: str | None,
    limit: int,
    after: str | None,
    as_json: bool,
) -> None:
    """An endpoint's delivery log, newest attempt first."""
    scope = _owner(hub, provider_id, lambda s: s.webhooks.get(endpoint_id))
    page = scope.webhooks.attempts(endpoint_id, after, limit)

    def record(a: DeliveryAttempt) -> dict[str, Any]:
        return {
            "attemptId": a.id,
            "eventId": a.event_id,
            "eventType": a.event_type,
            "attempt": a.attempt,
            "startedAtUtc": a.started_at.isoformat(),
            "durationMs": a.duration_ms,
            "statusCode": a.status_code,
            "error": a.error,
            "outcome": a.outcome,
            "nextAttemptAtUtc": a.next_attempt_at.isoformat() if a.next_attempt_at else None,
        }

    show(
        page,
        as_json,
        ["WHEN", "EVENT", "TYPE", "ATTEMPT", "STATUS", "MS", "OUTCOME", "ERROR"],
        lambda a: [
            when(a.started_at),
            a.event_id,
            a.event_type,
            a.attempt,
            a.status_code if a.status_code is not None else "-",
            a.duration_ms,
            a.outcome,
            a.error or "",
        ],
        record,
        "no deliveries yet",
    )


@webhooks.command("replay")
@click.argument("event_id")
@provider_optional
@json_option
@with_hub
def replay(hub: PayHub, event_id: str, provider_id: str | None, as_json: bool) -> None:
    """Send an event again to every enabled endpoint that wants it (the worker delivers)."""
    scope = _owner(hub, provider_id, lambda s: s.webhooks.find_event(event_id))
    queued = scope.webhooks.replay(event_id)
    if as_json:
        emit_json([{"deliveryId": d.id, "endpointId": d.endpoint_id} for d in queued])
        return
    table(
        ["DELIVERY", "ENDPOINT", "STATUS"],
        [[d.id, d.endpoint_id, d.status.value] for d in queued],
        f"no enabled endpoint wants {event_id}",
    )
