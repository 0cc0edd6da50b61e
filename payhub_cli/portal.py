"""Portal-side commands: a merchant's customers (and recording SMS consent as staff), products,
categories, tax rates and locations, as tables (or ``--json``).

Every command names the merchant with ``--merchant REF``; ``--provider`` is needed only when
several providers have a merchant with that reference. Lists print one page (``--limit``,
``--starting-after``) and say how to get the next.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import click

from payhub.domain.errors import NotFound, ValidationError
from payhub.hub import MerchantScope, PayHub
from payhub.services.paging import Page
from payhub_cli.main import cli, json_option, merchants, with_hub
from payhub_cli.output import emit_json, money, table, when

F = TypeVar("F", bound=Callable[..., Any])


def shop_options(f: F) -> F:
    f = click.option(
        "--provider", "provider_id", help="Provider id (if the reference is ambiguous)."
    )(f)
    return click.option(
        "--merchant", "reference", required=True, help="The merchant's externalReference."
    )(f)


def page_options(f: F) -> F:
    f = click.option("--limit", default=50, show_default=True, type=click.IntRange(1, 200))(f)
    return click.option("--starting-after", "after", help="Cursor printed by the previous page.")(f)


def merchant_scope(hub: PayHub, provider_id: str | None, reference: str) -> MerchantScope:
    """The merchant with that reference, acting as its provider (the operator's trust level)."""
    providers = [provider_id] if provider_id else [p.id for p in hub.operators.list_providers()]
    found: list[MerchantScope] = []
    for pid in providers:
        scope = hub.provider(hub.as_provider(pid))
        try:
            scope.merchants.get(reference)
        except NotFound:
            continue
        found.append(scope.merchant(reference))
    if not found:
        raise NotFound(f"no merchant with externalReference '{reference}'")
    if len(found) > 1:
        raise ValidationError.for_field(
            "provider", f"several providers have a merchant '{reference}': name the provider"
        )
    return found[0]


def customer_names(scope: MerchantScope, ids: Iterable[str | None]) -> dict[str, str]:
    """The display name of each customer id (the id itself if the customer is gone)."""
    names: dict[str, str] = {}
    for customer_id in {i for i in ids if i}:
        try:
            names[customer_id] = scope.customers.get(customer_id).name.display
        except NotFound:
            names[customer_id] = customer_id
    return names


def show(
    page: Page[Any],
    as_json: bool,
    headers: Sequence[str],
    row: Callable[[Any], list[Any]],
    record: Callable[[Any], dict[str, Any]],
    empty: str,
) -> None:
    if as_json:
        emit_json(
            {
                "data": [record(x) for x in page.items],
                "hasMore": page.has_more,
                "nextCursor": page.next_cursor,
            }
        )
        return
    table(headers, [row(x) for x in page.items], empty)
    if page.has_more:
        click.echo(f"(more: --starting-after {page.next_cursor})")


def _flag(on: bool) -> str:
    return "yes" if on else "no"


# --- customers -------------------------------------------------------------------------------


@cli.group()
def customers() -> None:
    """A merchant's customers, and their SMS consent."""


@customers.command("list")
@shop_options
@page_options
@click.option("--account-number", help="Only the customer with this account number.")
@json_option
@with_hub
def customers_list(
    hub: PayHub,
    provider_id: str | None,
    reference: str,
    limit: int,
    after: str | None,
    account_number: str | None,
    as_json: bool,
) -> None:
    """List customers, newest first."""
    page = merchant_scope(hub, provider_id, reference).customers.list(after, limit, account_number)
    show(
        page,
        as_json,
        ["CUSTOMER", "NAME", "EMAIL", "PHONE", "ACCOUNT", "SMS", "CREATED"],
        lambda c: [
            c.id,
            c.name.display,
            c.email or "-",
            c.phone or "-",
            c.account_number or "-",
            _flag(c.consent.consent),
            when(c.created_at),
        ],
        lambda c: {
            "customerId": c.id,
            "displayName": c.name.display,
            "email": c.email,
            "phone": c.phone,
            "accountNumber": c.account_number,
            "locationId": c.location_id,
            "smsConsent": c.consent.consent,
            "createdAtUtc": c.created_at.isoformat(),
        },
        "no customers",
    )


@customers.command("consent")
@click.argument("customer_id")
@shop_options
@click.option(
    "--consent",
    "decision",
    type=click.Choice(["given", "withdrawn"]),
    required=True,
    help="given: the customer clearly opted in; withdrawn: they opted out.",
)
@click.option("--phone", help="The number consent is for (default: the customer's).")
@click.option("--operator", required=True, help="Who is recording it (kept in the history).")
@json_option
@with_hub
def customers_consent(
    hub: PayHub,
    customer_id: str,
    provider_id: str | None,
    reference: str,
    decision: str,
    phone: str | None,
    operator: str,
    as_json: bool,
) -> None:
    """Record SMS consent as merchant staff (source Portal)."""
    shop = merchant_scope(hub, provider_id, reference)
    state = shop.customers.record_consent_as_staff(
        customer_id, decision == "given", phone, operator
    )
    if as_json:
        emit_json(
            {
                "consent": state.consent,
                "phone": state.phone,
                "source": state.source.value if state.source else None,
                "recordedAtUtc": state.recorded_at.isoformat() if state.recorded_at else None,
            }
        )
        return
    what = "given" if state.consent else "withdrawn"
    click.echo(
        f"SMS consent {what} for {state.phone or '(no number)'} by portal:{operator.strip()}"
    )


@customers.command("consent-history")
@click.argument("customer_id")
@shop_options
@page_options
@json_option
@with_hub
def customers_consent_history(
    hub: PayHub,
    customer_id: str,
    provider_id: str | None,
    reference: str,
    limit: int,
    after: str | None,
    as_json: bool,
) -> None:
    """A customer's SMS consent history, newest first."""
    shop = merchant_scope(hub, provider_id, reference)
    page = shop.customers.consent_history(customer_id, after, limit)
    show(
        page,
        as_json,
        ["RECORDED", "CONSENT", "PHONE", "SOURCE", "BY", "REASON"],
        lambda r: [
            when(r.recorded_at),
            _flag(r.consent),
            r.phone or "-",
            r.source.value,
            r.recorded_by,
            r.reason or "-",
        ],
        lambda r: {
            "consentRecordId": r.id,
            "consent": r.consent,
            "phone": r.phone,
            "source": r.source.value,
            "recordedBy": r.recorded_by,
            "reason": r.reason,
            "recordedAtUtc": r.recorded_at.isoformat(),
        },
        "no consent recorded",
    )


# --- catalog ---------------------------------------------------------------------------------

inactive_option = click.option(
    "--include-inactive", is_flag=True, help="Also list deactivated ones."
)


@cli.group()
def products() -> None:
    """A merchant's products."""


@products.command("list")
@shop_options
@page_options
@click.option("--category", "category_id", help="Only this category's products.")
@inactive_option
@json_option
@with_hub
def products_list(
    hub: PayHub,
    provider_id: str | None,
    reference: str,
    limit: int,
    after: str | None,
    category_id: str | None,
    include_inactive: bool,
    as_json: bool,
) -> None:
    """List products by name."""
    shop = merchant_scope(hub, provider_id, reference)
    page = shop.products.list(after, limit, category_id, include_inactive)
    show(
        page,
        as_json,
        ["PRODUCT", "NAME", "SKU", "PRICE", "KIND", "TAXABLE", "CATEGORY", "ACTIVE"],
        lambda p: [
            p.id,
            p.name,
            p.sku or "-",
            money(p.unit_price),
            p.kind.value,
            _flag(p.taxable),
            p.category_id or "-",
            _flag(p.active),
        ],
        lambda p: {
            "productId": p.id,
            "name": p.name,
            "sku": p.sku,
            "unitPrice": str(p.unit_price.amount),
            "currency": p.unit_price.currency,
            "kind": p.kind.value,
            "isTaxable": p.taxable,
            "categoryId": p.category_id,
            "isActive": p.active,
            "accountingItemLinked": p.accounting_item_linked,
        },
        "no products",
    )


@cli.group()
def categories() -> None:
    """A merchant's product categories."""


@categories.command("list")
@shop_options
@page_options
@inactive_option
@json_option
@with_hub
def categories_list(
    hub: PayHub,
    provider_id: str | None,
    reference: str,
    limit: int,
    after: str | None,
    include_inactive: bool,
    as_json: bool,
) -> None:
    """List product categories in register order."""
    shop = merchant_scope(hub, provider_id, reference)
    page = shop.categories.list(after, limit, include_inactive)
    show(
        page,
        as_json,
        ["CATEGORY", "NAME", "COLOR", "ORDER", "ACTIVE"],
        lambda c: [c.id, c.name, c.color or "-", c.sort_order, _flag(c.active)],
        lambda c: {
            "categoryId": c.id,
            "name": c.name,
            "color": c.color,
            "sortOrder": c.sort_order,
            "isActive": c.active,
        },
        "no categories",
    )


@cli.group("tax-rates")
def tax_rates() -> None:
    """A merchant's named tax rates."""


@tax_rates.command("list")
@shop_options
@page_options
@inactive_option
@json_option
@with_hub
def tax_rates_list(
    hub: PayHub,
    provider_id: str | None,
    reference: str,
    limit: int,
    after: str | None,
    include_inactive: bool,
    as_json: bool,
) -> None:
    """List tax rates by name."""
    shop = merchant_scope(hub, provider_id, reference)
    page = shop.tax_rates.list(after, limit, include_inactive)
    show(
        page,
        as_json,
        ["TAX RATE", "NAME", "PERCENT", "DEFAULT", "ACTIVE"],
        lambda v: [
            v.rate.id,
            v.rate.name,
            f"{v.rate.percent}%",
            _flag(v.is_default),
            _flag(v.rate.active),
        ],
        lambda v: {
            "taxRateId": v.rate.id,
            "name": v.rate.name,
            "percent": str(v.rate.percent),
            "isDefault": v.is_default,
            "isActive": v.rate.active,
        },
        "no tax rates",
    )


@cli.group()
def locations() -> None:
    """A merchant's locations."""


@locations.command("list")
@shop_options
@page_options
@inactive_option
@json_option
@with_hub
def locations_list(
    hub: PayHub,
    provider_id: str | None,
    reference: str,
    limit: int,
    after: str | None,
    include_inactive: bool,
    as_json: bool,
) -> None:
    """List locations by name, with the location settings."""
    shop = merchant_scope(hub, provider_id, reference)
    page = shop.locations.list(after, limit, include_inactive)
    show(
        page,
        as_json,
        ["LOCATION", "NAME", "CODE", "TAX RATE", "DEFAULT", "ACTIVE"],
        lambda v: [
            v.location.id,
            v.location.name,
            v.location.short_code or "-",
            v.effective_tax_rate_id or "-",
            _flag(v.is_default),
            _flag(v.location.active),
        ],
        lambda v: {
            "locationId": v.location.id,
            "name": v.location.name,
            "shortCode": v.location.short_code,
            "taxRateId": v.location.tax_rate_id,
            "effectiveTaxRateId": v.effective_tax_rate_id,
            "isDefault": v.is_default,
            "isActive": v.location.active,
        },
        "no locations",
    )
    if not as_json:
        settings = shop.locations.settings()
        click.echo(
            f"locations enabled: {_flag(settings.locations_enabled)};"
            f" default: {settings.default_location_id or '-'}"
        )


# --- merchant settings -------------------------------------------------------------------


@merchants.command("time-zone")
@shop_options
@click.argument("time_zone")
@with_hub
def merchants_time_zone(
    hub: PayHub, provider_id: str | None, reference: str, time_zone: str
) -> None:
    """Set the merchant's time zone (an IANA name such as America/Chicago).

    Texting hours (no texts 21:00-08:00) and scheduled-payment dates follow it.
    """
    merchant = merchant_scope(hub, provider_id, reference).set_time_zone(time_zone)
    click.echo(f"{merchant.external_reference}: time zone {merchant.time_zone}")
