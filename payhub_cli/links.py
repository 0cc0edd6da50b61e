"""``payhub links``: short-link domains, switches, the abuse blocklist and API usage."""

from __future__ import annotations

import click

from payhub.domain.environments import Environment
from payhub.hub import PayHub
from payhub_cli.main import cli, json_option, with_hub
from payhub_cli.output import emit_json, table, when

environment_option = click.option(
    "--environment",
    type=click.Choice(["sandbox", "production"], case_sensitive=False),
    required=True,
    help="The environment whose short links the domain serves.",
)


@cli.group()
def links() -> None:
    """Short links: the domain of each environment, switches, blocklist and usage."""


# --- domains -------------------------------------------------------------------------------


@links.group()
def domain() -> None:
    """The short-link domain of each environment (none: creating links answers 503)."""


@domain.command("set")
@environment_option
@click.argument("name")
@with_hub
def domain_set(hub: PayHub, environment: str, name: str) -> None:
    """Serve ENVIRONMENT's short links on NAME (a host name, e.g. go.example.com).

    Point the name's DNS and TLS at payhub; short URLs read https://NAME/CODE.
    """
    env = Environment.parse(environment)
    cleaned = hub.link_admin.set_domain(env, name)
    click.echo(f"{env.value} short links: https://{cleaned}/…")


@domain.command("clear")
@environment_option
@with_hub
def domain_clear(hub: PayHub, environment: str) -> None:
    """Remove ENVIRONMENT's domain: its links stop resolving and creation answers 503."""
    env = Environment.parse(environment)
    hub.link_admin.clear_domain(env)
    click.echo(f"{env.value} short links: no domain")


@domain.command("show")
@json_option
@with_hub
def domain_show(hub: PayHub, as_json: bool) -> None:
    """Show the domain of each environment."""
    found = hub.link_admin.domains()
    if as_json:
        emit_json({env.value: value for env, value in found.items()})
        return
    table(
        ["ENVIRONMENT", "DOMAIN"],
        [
            [env.value, value or "(none: creating links answers 503)"]
            for env, value in found.items()
        ],
    )


# --- switches ------------------------------------------------------------------------------


def _switch(hub: PayHub, provider_id: str, merchant_ref: str | None, enabled: bool) -> None:
    state = hub.link_admin.switch(provider_id, enabled, merchant_ref)
    who = f"merchant {merchant_ref} of {provider_id}" if merchant_ref else f"provider {provider_id}"
    click.echo(f"short links {'on' if state.enabled else 'off'} for {who}")


provider_option = click.option("--provider", "provider_id", required=True, help="Provider id.")
merchant_option = click.option(
    "--merchant", "merchant_ref", help="Only this merchant (its externalReference)."
)


@links.command("enable")
@provider_option
@merchant_option
@with_hub
def links_enable(hub: PayHub, provider_id: str, merchant_ref: str | None) -> None:
    """Switch short links on for a provider account or one of its merchants (the default)."""
    _switch(hub, provider_id, merchant_ref, True)


@links.command("disable")
@provider_option
@merchant_option
@with_hub
def links_disable(hub: PayHub, provider_id: str, merchant_ref: str | None) -> None:
    """Switch short links off: new links are refused with 403. Existing links keep
    redirecting and stay readable; revoke them one by one if they must stop."""
    _switch(hub, provider_id, merchant_ref, False)


# --- blocklist -----------------------------------------------------------------------------


@links.group()
def blocklist() -> None:
    """Domains blocked for abuse: new links to them (and their subdomains) are refused."""


@blocklist.command("add")
@click.argument("name")
@click.option("--reason", default="", help="A note kept with the entry.")
@with_hub
def blocklist_add(hub: PayHub, name: str, reason: str) -> None:
    """Block NAME and its subdomains, and revoke every existing link to them."""
    result = hub.link_admin.block(name, reason)
    state = "blocked" if result.added else "already blocked"
    click.echo(f"{result.domain} {state}; {result.links_revoked} existing link(s) revoked")


@blocklist.command("remove")
@click.argument("name")
@with_hub
def blocklist_remove(hub: PayHub, name: str) -> None:
    """Allow new links to NAME again (links revoked by the block stay revoked)."""
    removed = hub.link_admin.unblock(name)
    click.echo(f"{name} {'unblocked' if removed else 'was not blocked'}")


@blocklist.command("list")
@json_option
@with_hub
def blocklist_list(hub: PayHub, as_json: bool) -> None:
    """List the blocked domains."""
    rows = hub.link_admin.blocklist()
    if as_json:
        emit_json(
            [
                {"domain": b.domain, "reason": b.reason, "createdAtUtc": b.created_at.isoformat()}
                for b in rows
            ]
        )
        return
    table(
        ["DOMAIN", "REASON", "BLOCKED"],
        [[b.domain, b.reason or "-", when(b.created_at)] for b in rows],
        "no blocked domains",
    )


# --- usage ---------------------------------------------------------------------------------


@links.command("usage")
@click.option("--provider", "provider_id", help="Only this provider's merchants.")
@click.option(
    "--days", default=30, show_default=True, type=click.IntRange(1, 366), help="UTC days back."
)
@json_option
@with_hub
def links_usage(hub: PayHub, provider_id: str | None, days: int, as_json: bool) -> None:
    """Short-link API requests per merchant (each call counts for the merchant it names)."""
    rows = hub.link_admin.usage(provider_id, days)
    if as_json:
        emit_json(
            [
                {
                    "providerId": r.provider_id,
                    "merchantReference": r.merchant_reference,
                    "today": r.today,
                    "last7Days": r.last_7_days,
                    "days": r.days,
                    "lastDays": r.last_days,
                }
                for r in rows
            ]
        )
        return
    table(
        ["PROVIDER", "MERCHANT", "TODAY", "LAST 7 DAYS", f"LAST {days} DAYS"],
        [[r.provider_id, r.merchant_reference, r.today, r.last_7_days, r.last_days] for r in rows],
        f"no short-link API requests in the last {days} days",
    )
