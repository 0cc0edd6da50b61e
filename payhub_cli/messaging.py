"""Texting and the outbox from the command line (the portal's switches, the operator's view).

payhub texting show    --merchant REF
payhub texting enable  --merchant REF [--time-zone ZONE] KIND...   (or ``all``)
payhub texting disable --merchant REF KIND...
payhub outbox list     [--merchant REF] [--status S]... [--limit N] [--json]
payhub outbox senders  (which senders the environment configures; never a secret)
"""

from __future__ import annotations

import os

import click

from payhub.adapters.messaging import settings_from_env
from payhub.domain.messaging import Message, TextKind, mask_contacts, mask_email, mask_phone
from payhub.hub import PayHub
from payhub.services.messaging import TextingSettings, parse_statuses
from payhub_cli.main import cli, json_option, with_hub
from payhub_cli.output import emit_json, table, when
from payhub_cli.portal import merchant_scope, page_options, shop_options, show


def _kinds(values: tuple[str, ...]) -> list[TextKind]:
    if any(v.strip().lower() == "all" for v in values):
        return list(TextKind)
    return [TextKind.parse(v) for v in values]


def _print_settings(reference: str, settings: TextingSettings, as_json: bool) -> None:
    if as_json:
        emit_json(
            {
                "merchant": reference,
                "timeZone": settings.time_zone,
                "kinds": {k.value: k in settings.enabled for k in TextKind},
            }
        )
        return
    click.echo(f"{reference}: time zone {settings.time_zone or '(not set)'}")
    rows = [[k.value, "on" if k in settings.enabled else "off"] for k in TextKind]
    table(["KIND", "ENABLED"], rows)


@cli.group()
def texting() -> None:
    """Which texts a merchant sends: PayLink, Receipt, FailedPayment, ScheduleReminder
    (each off by default)."""


@texting.command("show")
@shop_options
@json_option
@with_hub
def texting_show(hub: PayHub, provider_id: str | None, reference: str, as_json: bool) -> None:
    """Show the merchant's text kinds and time zone."""
    settings = merchant_scope(hub, provider_id, reference).texting.settings()
    _print_settings(reference, settings, as_json)


@texting.command("enable")
@shop_options
@click.option("--time-zone", help="Set the merchant's IANA time zone too (e.g. America/Chicago).")
@click.argument("kinds", nargs=-1, required=True)
@json_option
@with_hub
def texting_enable(
    hub: PayHub,
    provider_id: str | None,
    reference: str,
    time_zone: str | None,
    kinds: tuple[str, ...],
    as_json: bool,
) -> None:
    """Switch text kinds on (KIND: PayLink, Receipt, FailedPayment, ScheduleReminder or all).

    Needs the merchant's time zone (quiet hours 21:00-08:00 are kept in it): set it with
    ``payhub merchants time-zone`` or here with --time-zone."""
    scope = merchant_scope(hub, provider_id, reference)
    settings = scope.texting.switch(_kinds(kinds), True, time_zone)
    _print_settings(reference, settings, as_json)


@texting.command("disable")
@shop_options
@click.argument("kinds", nargs=-1, required=True)
@json_option
@with_hub
def texting_disable(
    hub: PayHub, provider_id: str | None, reference: str, kinds: tuple[str, ...], as_json: bool
) -> None:
    """Switch text kinds off (queued texts of that kind are refused at delivery)."""
    settings = merchant_scope(hub, provider_id, reference).texting.switch(_kinds(kinds), False)
    _print_settings(reference, settings, as_json)


# --- the outbox ------------------------------------------------------------------------------


def _to(m: Message) -> str:
    if not m.to:
        return "-"
    return mask_phone(m.to) if m.channel.value == "Sms" else mask_email(m.to)


def _row(m: Message) -> list[str]:
    status = m.status.value
    if m.send_after and m.status.value in ("Held", "Queued", "Sending"):
        status += f" until {when(m.send_after)}"
    why = m.reason or "-"
    if m.last_error and m.status.value in ("Failed", "Undelivered", "Queued", "Sending"):
        error = mask_contacts(m.last_error)
        why = f"{why}: {error}" if m.reason else error
    return [when(m.created_at), m.channel.value, m.kind.value, _to(m), status, why]


def _record(m: Message) -> dict[str, object]:
    return {
        "messageId": m.id,
        "merchantId": m.merchant_id,
        "customerId": m.customer_id,
        "channel": m.channel.value,
        "kind": m.kind.value,
        "to": _to(m),
        "status": m.status.value,
        "reason": m.reason,
        "attempts": m.attempts,
        "sendAfterUtc": m.send_after,
        "sentAtUtc": m.sent_at,
        "provider": m.provider,
        "providerMessageId": m.provider_message_id,
        "lastError": mask_contacts(m.last_error) if m.last_error else None,
        "providerErrorCode": m.provider_error_code,
        "deliveryReportedAtUtc": m.delivery_reported_at,
        "createdAtUtc": m.created_at,
    }


@cli.group()
def outbox() -> None:
    """Texts and emails: what was sent, held or refused, and why."""


@outbox.command("list")
@click.option("--merchant", "reference", help="Only this merchant's (externalReference).")
@click.option("--provider", "provider_id", help="Provider id (if the reference is ambiguous).")
@click.option(
    "--status",
    "statuses",
    multiple=True,
    help=(
        "Only these: Queued, Held, Sending, Sent, Delivered, Undelivered, Refused, Failed"
        " (repeatable)."
    ),
)
@page_options
@json_option
@with_hub
def outbox_list(
    hub: PayHub,
    reference: str | None,
    provider_id: str | None,
    statuses: tuple[str, ...],
    limit: int,
    after: str | None,
    as_json: bool,
) -> None:
    """List messages, newest first (phone numbers and addresses masked, also in errors)."""
    wanted = parse_statuses(statuses)
    if reference:
        page = merchant_scope(hub, provider_id, reference).texting.messages(
            None, wanted, after, limit
        )
    else:
        page = hub.outbox.list(wanted, after, limit)
    show(
        page,
        as_json,
        ["WHEN", "CHANNEL", "KIND", "TO", "STATUS", "REASON"],
        _row,
        _record,
        "no messages",
    )


@outbox.command("senders")
def outbox_senders() -> None:
    """Which senders this environment configures (PAYHUB_TWILIO_*, PAYHUB_SMTP_*)."""
    s = settings_from_env(os.environ)
    table(
        ["CHANNEL", "SENDER", "FROM", "SERVER"],
        [
            ["sms", s.sms, s.sms_from or "-", "api.twilio.com" if s.sms == "twilio" else "-"],
            ["email", s.email, s.email_from or "-", s.email_server or "-"],
        ],
    )
    verified = "verified with PAYHUB_TWILIO_AUTH_TOKEN" if s.inbound_verified else "refused (401)"
    click.echo(f"inbound texts (POST /webhooks/twilio/sms): {verified}")
    reports = (
        f"requested at {s.status_callback}"
        if s.status_callback
        else "not requested (Twilio with PAYHUB_PUBLIC_URL asks for them)"
    )
    click.echo(f"delivery reports (POST /webhooks/twilio/status): {reports}")
