"""``payhub``: init, serve, and the operator's jobs (providers, keys, merchants, database)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from functools import wraps
from typing import Any, TextIO, TypeVar

import click

from payhub.adapters.master_key import default_key_file
from payhub.adapters.secrets import SecretKeyError
from payhub.adapters.storage import open_store
from payhub.domain.environments import Environment
from payhub.domain.errors import PayHubError
from payhub.hub import DEFAULT_DATABASE_URL, PayHub
from payhub_cli.errors import Failure, PayHubGroup, remember_db
from payhub_cli.output import emit_json, table, when

F = TypeVar("F", bound=Callable[..., Any])


def db_option(f: F) -> F:
    return click.option(
        "--db",
        "db_url",
        envvar="PAYHUB_DATABASE_URL",
        default=DEFAULT_DATABASE_URL,
        show_default=True,
        help="Database URL: sqlite:///file.db or postgresql://…",
        callback=remember_db,
    )(f)


def open_hub(db_url: str) -> PayHub:
    """The hub, or a clean exit when the master key is not the database's own (or missing)."""
    try:
        return PayHub.open(db_url)
    except SecretKeyError as e:
        raise click.ClickException(str(e)) from None


def with_hub(f: Callable[..., Any]) -> Callable[..., Any]:
    """Open the hub from --db for the command, and turn domain errors into clean exits."""

    @db_option
    @wraps(f)
    def wrapper(db_url: str, *args: Any, **kwargs: Any) -> Any:
        hub = open_hub(db_url)
        try:
            return f(hub, *args, **kwargs)
        except PayHubError as e:
            raise Failure(e) from None
        finally:
            hub.close()

    return wrapper


json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON for scripts.")


@click.group(cls=PayHubGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="payhub")
def cli() -> None:
    """payhub: payment middleware. One API in front of 21 payment gateways."""


# Where the first key is shown: a person's terminal, never a stream that may be a log.
TERMINAL = "/dev/tty"


def _terminal() -> TextIO | None:
    """Standard output when it is a terminal, else the controlling terminal, else none (a
    service manager or a pipe: what is written there ends up in logs)."""
    if sys.stdout.isatty():
        return sys.stdout
    try:
        return open(TERMINAL, "w")
    except OSError:
        return None


def _announce_key(provider_id: str, key: str, environment: Environment) -> None:
    """The first-start banner: the key goes to the terminal only, not into a log stream."""
    terminal = _terminal()
    if terminal is None:
        click.echo(
            f"A sandbox provider was created for you: {provider_id} ({environment.value})."
            " Its API key is not printed because this output is not a terminal (it may be a"
            f" log); issue one with: payhub keys create --provider {provider_id}"
        )
        return
    try:
        click.echo("", file=terminal)
        click.secho(
            "A sandbox provider was created for you. Its API key is shown only this once:",
            bold=True,
            file=terminal,
        )
        click.echo(f"  provider: {provider_id}  ({environment.value})", file=terminal)
        click.echo(f"  API key:  {key}", file=terminal)
        click.echo("", file=terminal)
        terminal.flush()
    finally:
        if terminal is not sys.stdout:
            terminal.close()


@cli.command()
@with_hub
def init(hub: PayHub) -> None:
    """Create or upgrade the database and the secret key file, and a first sandbox provider."""
    created = hub.operators.bootstrap()
    click.echo(f"database ready: {hub.store.url_for_display}")
    if created:
        provider, issued = created
        _announce_key(provider.id, issued.secret, provider.environment)


@cli.command()
@db_option
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True, type=click.IntRange(1, 65535))
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1, 64))
@click.option(
    "--log-format", type=click.Choice(["json", "console"]), default="json", show_default=True
)
def serve(db_url: str, host: str, port: int, workers: int, log_format: str) -> None:
    """Run the HTTP API and the public pages on granian."""
    from granian import Granian
    from granian.constants import Interfaces

    hub = open_hub(db_url)
    try:
        created = hub.operators.bootstrap()
    finally:
        hub.close()
    if created:
        provider, issued = created
        _announce_key(provider.id, issued.secret, provider.environment)
    os.environ["PAYHUB_DATABASE_URL"] = db_url
    os.environ.setdefault("PAYHUB_KEY_FILE", str(default_key_file(db_url)))
    os.environ["PAYHUB_LOG_FORMAT"] = log_format
    # Each worker enforces its share of every request budget (docs/errors.md).
    os.environ.setdefault("PAYHUB_RATE_LIMIT_PROCESSES", str(workers))
    click.echo(f"payhub listening on http://{host}:{port}  (database: {db_url})")
    sys.stdout.flush()
    Granian(
        "payhub_server.asgi:app_from_env",
        address=host,
        port=port,
        interface=Interfaces.ASGI,
        workers=workers,
        factory=True,
        log_access=False,
    ).serve()


# --- providers ---------------------------------------------------------------------------


@cli.group()
def providers() -> None:
    """Provider accounts (the operator sets them up after sign-up)."""


@providers.command("create")
@click.argument("name")
@click.option(
    "--environment",
    type=click.Choice(["sandbox", "production"], case_sensitive=False),
    default="sandbox",
    show_default=True,
)
@json_option
@with_hub
def providers_create(hub: PayHub, name: str, environment: str, as_json: bool) -> None:
    """Create a provider account and print its first API key (shown only once)."""
    provider, issued = hub.operators.create_provider(name, Environment.parse(environment))
    if as_json:
        emit_json(
            {
                "providerId": provider.id,
                "apiKey": issued.secret,
                "environment": provider.environment.value,
            }
        )
        return
    click.echo(f"provider {provider.id} ({provider.name}, {provider.environment.value})")
    click.echo(f"API key (shown only once): {issued.secret}")


@providers.command("list")
@json_option
@with_hub
def providers_list(hub: PayHub, as_json: bool) -> None:
    """List provider accounts."""
    rows = hub.operators.list_providers()
    if as_json:
        emit_json(
            [
                {
                    "providerId": p.id,
                    "name": p.name,
                    "environment": p.environment.value,
                    "createdAtUtc": p.created_at.isoformat(),
                }
                for p in rows
            ]
        )
        return
    table(
        ["PROVIDER", "NAME", "ENVIRONMENT", "CREATED"],
        [[p.id, p.name, p.environment.value, when(p.created_at)] for p in rows],
        "no providers yet: payhub providers create NAME",
    )


# --- keys --------------------------------------------------------------------------------


@cli.group()
def keys() -> None:
    """API keys: issue, list (never the secret) and revoke."""


@keys.command("create")
@click.option("--provider", "provider_id", help="Provider id (may be left out if unambiguous).")
@click.option(
    "--merchant", "merchant_ref", help="Issue a key for this one merchant (its externalReference)."
)
@click.option("--label", default="", help="A note to recognise the key by.")
@json_option
@with_hub
def keys_create(
    hub: PayHub, provider_id: str | None, merchant_ref: str | None, label: str, as_json: bool
) -> None:
    """Issue a provider key, or with --merchant a key scoped to one merchant."""
    issued = hub.operators.issue_key(provider_id, merchant_ref, label)
    k = issued.record
    if as_json:
        emit_json(
            {
                "keyId": k.id,
                "providerId": k.provider_id,
                "merchantReference": merchant_ref,
                "apiKey": issued.secret,
                "environment": k.environment.value,
            }
        )
        return
    scope = f"merchant {merchant_ref}" if merchant_ref else "provider"
    click.echo(f"key {k.id} for {scope} of {k.provider_id} ({k.environment.value})")
    click.echo(f"API key (shown only once): {issued.secret}")


@keys.command("list")
@click.option("--provider", "provider_id", help="Only this provider's keys.")
@json_option
@with_hub
def keys_list(hub: PayHub, provider_id: str | None, as_json: bool) -> None:
    """List keys without their secrets."""
    rows = hub.operators.list_keys(provider_id)
    if as_json:
        emit_json(
            [
                {
                    "keyId": r.key.id,
                    "hint": r.key.hint,
                    "providerId": r.key.provider_id,
                    "merchantReference": r.merchant_reference,
                    "environment": r.key.environment.value,
                    "label": r.key.label,
                    "createdAtUtc": r.key.created_at.isoformat(),
                    "revokedAtUtc": r.key.revoked_at.isoformat() if r.key.revoked_at else None,
                }
                for r in rows
            ]
        )
        return
    table(
        ["KEY", "STARTS WITH", "PROVIDER", "MERCHANT", "ENV", "LABEL", "CREATED", "STATUS"],
        [
            [
                r.key.id,
                r.key.hint,
                r.provider_name,
                r.merchant_reference or "(all)",
                r.key.environment.value,
                r.key.label or "-",
                when(r.key.created_at),
                "revoked " + when(r.key.revoked_at) if r.key.revoked_at else "active",
            ]
            for r in rows
        ],
        "no keys",
    )


@keys.command("revoke")
@click.argument("key_id")
@with_hub
def keys_revoke(hub: PayHub, key_id: str) -> None:
    """Revoke a key at once (by its key_… id or the id inside the key). Safe to repeat."""
    key = hub.operators.revoke_key(key_id)
    click.echo(f"key {key.id} revoked at {when(key.revoked_at)}")


# --- merchants ---------------------------------------------------------------------------


@cli.group()
def merchants() -> None:
    """Merchant accounts of the providers."""


@merchants.command("list")
@click.option("--provider", "provider_id", help="Only this provider's merchants.")
@json_option
@with_hub
def merchants_list(hub: PayHub, provider_id: str | None, as_json: bool) -> None:
    """List merchant accounts."""
    rows = hub.operators.list_merchants(provider_id)
    if as_json:
        emit_json(
            [
                {
                    "externalReference": m.external_reference,
                    "displayName": m.display_name,
                    "providerId": m.provider_id,
                    "createdAtUtc": m.created_at.isoformat(),
                }
                for m in rows
            ]
        )
        return
    table(
        ["REFERENCE", "NAME", "PROVIDER", "CREATED"],
        [[m.external_reference, m.display_name, m.provider_id, when(m.created_at)] for m in rows],
        "no merchants yet",
    )


# --- worker ------------------------------------------------------------------------------


@cli.command()
@db_option
@click.option("--once", is_flag=True, help="One pass, then exit (for cron-style deployment).")
@click.option("--idle-seconds", default=1.0, show_default=True, type=click.FloatRange(0.05, 60))
def worker(db_url: str, once: bool, idle_seconds: float) -> None:
    """Run background work: housekeeping and due jobs, leased so several workers can share."""
    import os
    import signal
    import socket
    import threading

    from payhub.logging import configure_logging
    from payhub.services.worker import Pass, Worker

    configure_logging(os.environ.get("PAYHUB_LOG_FORMAT", "console"))
    hub = open_hub(db_url)
    owner = f"{socket.gethostname()}:{os.getpid()}"
    runner = Worker(hub.deps, hub.job_handlers(), owner)
    queues = ", ".join(runner.queues) or "none registered yet: housekeeping only"
    click.echo(f"worker {owner} on {hub.store.url_for_display}; queues: {queues}")

    def report(done: Pass) -> None:
        if done.jobs or done.purged_keys:
            click.echo(
                f"pass: {sum(done.done.values())} done, {sum(done.retried.values())} retried,"
                f" {sum(done.dead.values())} given up, {done.purged_keys} expired keys purged"
            )

    try:
        if once:
            report(runner.run_once())
            return
        stop = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        try:
            runner.run_forever(stop, idle_seconds, report)
        except KeyboardInterrupt:
            stop.set()
        click.echo("worker stopped")
    finally:
        hub.close()


@cli.group()
def jobs() -> None:
    """Background jobs the worker gave up on (the dead-letter list)."""


@jobs.command("dead")
@click.option("--queue", help="Only this queue (e.g. outbox, scheduled-payments).")
@click.option("--limit", default=50, show_default=True, type=click.IntRange(1, 500))
@json_option
@with_hub
def jobs_dead(hub: PayHub, queue: str | None, limit: int, as_json: bool) -> None:
    """List given-up jobs, newest first, with their last error."""
    rows = hub.dead_letters.list(queue, limit)
    if as_json:
        emit_json(
            [
                {
                    "jobId": j.id,
                    "queue": j.queue,
                    "attempts": j.attempts,
                    "deadAtUtc": j.dead_at.isoformat(),
                    "lastError": j.last_error,
                    "payload": j.payload,
                }
                for j in rows
            ]
        )
        return
    table(
        ["JOB", "QUEUE", "ATTEMPTS", "GAVE UP", "LAST ERROR"],
        [[j.id, j.queue, j.attempts, when(j.dead_at), j.last_error or "-"] for j in rows],
        "no dead jobs",
    )


@jobs.command("revive")
@click.argument("job_id")
@with_hub
def jobs_revive(hub: PayHub, job_id: str) -> None:
    """Make a dead job due again with fresh attempts (after fixing its cause)."""
    hub.dead_letters.revive(job_id)
    click.echo(f"{job_id}: due again; the next worker pass runs it")


# --- database ----------------------------------------------------------------------------


@cli.group()
def db() -> None:
    """The database schema."""


@db.command("migrate")
@db_option
def db_migrate(db_url: str) -> None:
    """Apply pending migrations (also done at start-up; safe to run from several processes)."""
    store = open_store(db_url)  # the schema only: no master key needed
    try:
        applied = store.migrate()
    finally:
        store.close()
    click.echo(f"applied: {', '.join(map(str, applied))}" if applied else "schema is up to date")


@db.command("status")
@db_option
def db_status(db_url: str) -> None:
    """Show each numbered migration and when it was applied."""
    store = open_store(db_url)
    try:
        rows = store.migration_status()
    finally:
        store.close()
    table(
        ["VERSION", "NAME", "APPLIED"],
        [[m.version, m.name, when(m.applied_at) if m.applied_at else "pending"] for m in rows],
    )


import payhub_cli.invoices  # noqa: E402  (registers ``payhub invoices``)
import payhub_cli.messaging  # noqa: E402, F401  (registers ``payhub texting``, ``outbox``)
from payhub_cli import events as _events  # noqa: E402, F401  (``payhub events``)
from payhub_cli import links, portal, portal_users  # noqa: E402, F401  (they register commands)
from payhub_cli import schedules as _schedules  # noqa: E402, F401  (``payhub schedules``)
from payhub_cli import webhooks as _webhooks  # noqa: E402, F401  (``payhub webhooks``)

if __name__ == "__main__":  # pragma: no cover
    # ``python -m payhub_cli.main``: the command modules registered on the importable
    # module's ``cli``, not on this ``__main__`` copy's, so run that one.
    from payhub_cli.main import cli as registered

    registered()
