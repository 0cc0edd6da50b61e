"""Portal-side invoice commands: the merchant's number format, its allowed embed websites,
and a table of its invoices.

``--merchant REF`` names the merchant (``--provider`` only when the reference is ambiguous).
"""

from __future__ import annotations

import click

from payhub.domain.invoices import Invoice
from payhub.hub import PayHub
from payhub_cli.main import cli, json_option, with_hub
from payhub_cli.output import emit_json, money, when
from payhub_cli.portal import customer_names, merchant_scope, page_options, shop_options, show


@cli.group()
def invoices() -> None:
    """A merchant's invoices: number format, embed websites, list."""


@invoices.command("number-format")
@shop_options
@click.argument("number_format", required=False, metavar="[FORMAT]")
@click.option("--start", type=int, help="The counter's first value (default 1).")
@click.option("--default", "use_default", is_flag=True, help="Back to INV-000001 numbers.")
@json_option
@with_hub
def number_format(
    hub: PayHub,
    provider_id: str | None,
    reference: str,
    number_format: str | None,
    start: int | None,
    use_default: bool,
    as_json: bool,
) -> None:
    """Show or set the invoice number format.

    Tokens: {YYYY} {YY} {MM} (merchant time zone), {LOC} (location short code, left out
    when none) and one counter {###} to {#########}. Other characters: letters, digits,
    '-', '_', '.'. A format that could exceed 20 characters is refused. The counter stops at
    its width (9999 for {####}): a larger one is needed after that.
    """
    shop = merchant_scope(hub, provider_id, reference).invoices
    if use_default and number_format is not None:
        raise click.UsageError("give a FORMAT or --default, not both")
    if number_format is None and not use_default:
        if start is not None:
            raise click.UsageError("--start needs a FORMAT")
        shown = shop.numbering()
    else:
        shown = shop.set_numbering(None if use_default else number_format, start)
    if as_json:
        emit_json(
            {
                "numberFormat": shown.number_format,
                "startingNumber": shown.starting_number,
                "example": shown.example,
            }
        )
        return
    click.echo(f"format:  {shown.number_format or 'default (INV- and a platform-wide number)'}")
    if shown.number_format is not None:
        click.echo(f"start:   {shown.starting_number}")
    click.echo(f"example: {shown.example}")


@invoices.command("embed-origins")
@shop_options
@click.option("--add", multiple=True, metavar="URL", help="Allow a website (https://host).")
@click.option("--remove", multiple=True, metavar="URL", help="Stop allowing a website.")
@click.option("--clear", is_flag=True, help="Remove every website first.")
@json_option
@with_hub
def embed_origins(
    hub: PayHub,
    provider_id: str | None,
    reference: str,
    add: tuple[str, ...],
    remove: tuple[str, ...],
    clear: bool,
    as_json: bool,
) -> None:
    """Show or change the websites allowed to embed the pay page: up to 10, https only,
    no path, no wildcard."""
    shop = merchant_scope(hub, provider_id, reference).invoices
    if add or remove or clear:
        origins = shop.change_embed_origins(add, remove, clear)
    else:
        origins = shop.embed_origins()
    if as_json:
        emit_json({"allowedOrigins": list(origins)})
        return
    if not origins:
        click.echo("(no website may embed this merchant's pay page)")
    for origin in origins:
        click.echo(origin)


@invoices.command("list")
@shop_options
@page_options
@click.option("--customer", "customer_id", help="Only this customer's invoices.")
@json_option
@with_hub
def invoices_list(
    hub: PayHub,
    provider_id: str | None,
    reference: str,
    limit: int,
    after: str | None,
    customer_id: str | None,
    as_json: bool,
) -> None:
    """List invoices, newest first."""
    scope = merchant_scope(hub, provider_id, reference)
    page = scope.invoices.list(customer_id, after, limit)
    names = customer_names(scope, (i.customer_id for i in page.items))

    def record(i: Invoice) -> dict[str, object]:
        return {
            "invoiceNumber": i.number,
            "status": i.status.value,
            "customerId": i.customer_id,
            "customerName": names.get(i.customer_id or ""),
            "currency": i.currency,
            "total": str(i.total.amount),
            "amountPaid": str(i.amount_paid.amount),
            "amountDue": str(i.amount_due.amount),
            "createdAtUtc": i.created_at.isoformat(),
        }

    show(
        page,
        as_json,
        ["NUMBER", "STATUS", "CUSTOMER", "TOTAL", "PAID", "DUE", "CREATED"],
        lambda i: [
            i.number,
            i.status.value,
            names.get(i.customer_id or "", "-"),
            money(i.total),
            money(i.amount_paid),
            money(i.amount_due),
            when(i.created_at),
        ],
        record,
        "no invoices",
    )
