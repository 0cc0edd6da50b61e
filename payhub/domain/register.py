"""The register (a virtual terminal at a location): what a sale costs (pure, no I/O).

A sale is a list of picks (a product and a whole quantity). Each pick becomes a line priced
exactly as an invoice line (``price_line``): amount = unit price x quantity and tax = amount
x percent, each rounded half-up to the currency's minor unit per line; only taxable products
are taxed. The percent is the location's rate while that rate is active, else the merchant's
default while active, else none (spec: Location rule 2; ``effective_tax_rate_id``).

Nothing the browser sends about prices is believed: the server prices the picks from the
catalog again on every step.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from decimal import Decimal

import attrs

from payhub.domain.catalog import Product
from payhub.domain.errors import FieldError, ValidationError
from payhub.domain.fields import clean_text
from payhub.domain.invoices import InvoiceLine, Totals, price_line, totals
from payhub.domain.money import amount_ceiling

REGISTER_NAME_MAX = 60
PICKS_MAX = 100
QUANTITY_MAX = 999
_WHOLE = re.compile(r"[0-9]{1,3}")  # ASCII digits only: "²".isdigit() is true


@attrs.frozen
class Pick:
    product_id: str
    quantity: int


@attrs.frozen
class SaleQuote:
    """The priced sale: its lines, totals, and the percent applied (None: no rate)."""

    currency: str
    lines: tuple[InvoiceLine, ...]
    totals: Totals
    tax_percent: Decimal | None
    tax_rate_name: str | None = None

    @property
    def summary(self) -> str:
        """``2 x Coffee, 1 x Muffin``: the charge's description (no personal data)."""
        return ", ".join(
            f"{line.quantity.normalize():f} x {line.description}" for line in self.lines
        )


def clean_register_name(value: str, errors: list[FieldError], field: str = "name") -> str:
    name = clean_text(value, field, REGISTER_NAME_MAX, errors)
    if name is None:
        errors.append(FieldError(field, "must not be blank"))
        return ""
    return name


def parse_picks(form: Mapping[str, str], prefix: str = "qty-") -> list[Pick]:
    """Picks from a form's ``qty-<productId>`` fields: blank or 0 is not picked; anything but
    a whole number from 0 to 999 is a 400 naming the field."""
    picks: list[Pick] = []
    errors: list[FieldError] = []
    for name, raw in form.items():
        if not name.startswith(prefix):
            continue
        text = raw.strip()
        if not text:
            continue
        if not _WHOLE.fullmatch(text) or not 0 <= int(text) <= QUANTITY_MAX:
            errors.append(FieldError(name, f"must be a whole number from 0 to {QUANTITY_MAX}"))
            continue
        if int(text):
            picks.append(Pick(name[len(prefix) :], int(text)))
    if errors:
        raise ValidationError("some quantities are not whole numbers", errors)
    return picks


def quote_sale(
    picks: Sequence[Pick],
    products: Mapping[str, Product],
    currency: str,
    tax_percent: Decimal | None,
    tax_rate_name: str | None = None,
) -> SaleQuote:
    """Price the picks. Every product must be known, active and in ``currency`` (400)."""
    if not picks:
        raise ValidationError.for_field("picks", "pick at least one product")
    if len(picks) > PICKS_MAX:
        raise ValidationError.for_field("picks", f"a sale holds at most {PICKS_MAX} lines")
    lines: list[InvoiceLine] = []
    percent = tax_percent or Decimal(0)
    for pick in picks:
        product = products.get(pick.product_id)
        field = f"qty-{pick.product_id}"
        if product is None or not product.active:
            raise ValidationError.for_field(field, "is not an active product of this merchant")
        if product.unit_price.currency != currency:
            raise ValidationError.for_field(
                field, f"is priced in {product.unit_price.currency}, not {currency}"
            )
        if not 1 <= pick.quantity <= QUANTITY_MAX:
            raise ValidationError.for_field(field, f"must be from 1 to {QUANTITY_MAX}")
        lines.append(
            price_line(
                product.name,
                Decimal(pick.quantity),
                product.unit_price,
                product.taxable,
                percent,
                product.id,
            )
        )
    sums = totals(lines, currency)
    if sums.total.amount <= 0:
        raise ValidationError.for_field("picks", "the sale must add up to more than zero")
    if sums.total.amount > amount_ceiling(currency):
        raise ValidationError.for_field(
            "picks", f"the sale must add up to at most {amount_ceiling(currency)}"
        )
    return SaleQuote(currency, tuple(lines), sums, tax_percent, tax_rate_name)
