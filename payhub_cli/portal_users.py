"""``payhub portal users …``: the operator's hand on portal accounts (docs/portal.md).

The same service as the portal's own team page (``payhub.services.portal_accounts``).
``invite`` emails a one-time link when SMTP is configured and always prints it, so an
operator without a mail server can hand it over.
"""

from __future__ import annotations

from typing import Any

import click

from payhub.domain.environments import Environment
from payhub.domain.portal import PortalUserRecord
from payhub.hub import PayHub
from payhub_cli.main import cli, json_option, with_hub
from payhub_cli.output import emit_json, table, when


@cli.group("portal")
def portal_group() -> None:
    """The admin portal: its users (merchant staff and the operator)."""


@portal_group.group("users")
def users() -> None:
    """Portal users: create, list, invite, disable."""


def _status(user: PortalUserRecord) -> str:
    if not user.active:
        return "disabled"
    return "active" if user.password_hash else "invited"


def _record(user: PortalUserRecord) -> dict[str, Any]:
    return {
        "id": user.id,
        "email": user.email,
        "displayName": user.display_name,
        "role": user.role.value,
        "environment": user.environment.value,
        "merchantId": user.merchant_id,
        "status": _status(user),
        "twoFactor": user.totp_enabled,
        "lastSignInAtUtc": user.last_sign_in_at.isoformat() if user.last_sign_in_at else None,
    }


@users.command("create")
@click.option("--email", required=True)
@click.option("--name", "display_name", required=True, help="The name shown in the portal.")
@click.option(
    "--role",
    type=click.Choice(["owner", "admin", "staff", "operator"]),
    required=True,
    help="owner/admin/staff of a merchant (--merchant), or operator.",
)
@click.option("--merchant", "reference", help="The merchant's externalReference.")
@click.option("--provider", "provider_id", help="Provider id (if the reference is ambiguous).")
@click.option(
    "--environment",
    type=click.Choice(["Sandbox", "Production"], case_sensitive=False),
    default="Sandbox",
    show_default=True,
    help="An operator user's environment (a merchant user has its merchant's).",
)
@click.option("--invite", "send_invite", is_flag=True, help="Send the invitation at once.")
@json_option
@with_hub
def users_create(
    hub: PayHub,
    email: str,
    display_name: str,
    role: str,
    reference: str | None,
    provider_id: str | None,
    environment: str,
    send_invite: bool,
    as_json: bool,
) -> None:
    """Create a portal user (no password until the invitation is accepted)."""
    user = hub.portal.create_user(
        email,
        display_name,
        role,
        merchant_reference=reference,
        provider_id=provider_id,
        environment=Environment.parse(environment),
    )
    if as_json and not send_invite:
        emit_json(_record(user))
        return
    click.echo(f"created {user.id} {user.email} ({user.role.value}, {user.environment.value})")
    if send_invite:
        _invite(hub, user.id, as_json)


def _invite(hub: PayHub, who: str, as_json: bool) -> None:
    link = hub.portal.invite(who)
    if as_json:
        emit_json(
            {
                "userId": link.user.id,
                "url": link.url,
                "expiresAtUtc": link.expires_at.isoformat(),
                "emailed": link.emailed,
            }
        )
        return
    sent = "emailed to" if link.emailed else "NOT emailed (no SMTP configured) to"
    until = when(link.expires_at)
    click.echo(f"invitation {sent} {link.user.email}; it works once, until {until}:")
    click.echo(f"  {link.url}")


@users.command("invite")
@click.argument("user")
@json_option
@with_hub
def users_invite(hub: PayHub, user: str, as_json: bool) -> None:
    """(Re)send USER's invitation (id or email); earlier links stop working."""
    _invite(hub, user, as_json)


@users.command("list")
@click.option("--merchant", "reference", help="Only this merchant's users.")
@click.option("--provider", "provider_id", help="Provider id (if the reference is ambiguous).")
@click.option("--environment", type=click.Choice(["Sandbox", "Production"], case_sensitive=False))
@json_option
@with_hub
def users_list(
    hub: PayHub,
    reference: str | None,
    provider_id: str | None,
    environment: str | None,
    as_json: bool,
) -> None:
    """List portal users by email."""
    rows = hub.portal.list_users(
        reference, provider_id, Environment.parse(environment) if environment else None
    )
    if as_json:
        emit_json([_record(u) for u in rows])
        return
    table(
        ["ID", "EMAIL", "NAME", "ROLE", "ENV", "STATUS", "2FA", "LAST SIGN-IN"],
        [
            [
                u.id,
                u.email,
                u.display_name,
                u.role.value,
                u.environment.value,
                _status(u),
                "on" if u.totp_enabled else "off",
                when(u.last_sign_in_at),
            ]
            for u in rows
        ],
        empty="no portal users",
    )


@users.command("disable")
@click.argument("user")
@with_hub
def users_disable(hub: PayHub, user: str) -> None:
    """Disable USER (id or email): it cannot sign in and its sessions end now."""
    done = hub.portal.disable(user)
    click.echo(f"disabled {done.id} {done.email}; its sessions are signed out")
