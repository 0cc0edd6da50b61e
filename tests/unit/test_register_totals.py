"""The register's sale totals (pure, hypothesis): every line is priced and taxed on its own
and rounded half-up to the cent, only taxable products are taxed, and the totals are the sums.
The oracle below works in exact fractions of a cent, independently of ``Money``."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from payhub.domain.catalog import Product, ProductKind
from payhub.domain.errors import ValidationError
from payhub.domain.money import Money
from payhub.domain.register import Pick, parse_picks, quote_sale

T = datetime(2025, 1, 1, tzinfo=UTC)
prices = st.decimals(min_value=Decimal("0.01"), max_value=Decimal("999.99"), places=2)
percents = st.decimals(min_value=Decimal(0), max_value=Decimal(100), places=4)
items = st.lists(
    st.tuples(prices, st.booleans(), st.integers(min_value=1, max_value=999)),
    min_size=1,
    max_size=12,
)


def product(i: int, price: Decimal, taxable: bool, active: bool = True) -> Product:
    return Product(
        id=f"prd_{i}",
        merchant_id="m",
        name=f"Item {i}",
        sku=None,
        description=None,
        unit_price=Money(price, "USD"),
        kind=ProductKind.SERVICE,
        taxable=taxable,
        category_id=None,
        active=active,
        created_at=T,
        updated_at=T,
    )


def half_up_cents(value: Fraction) -> int:
    """Exact half-up (away from zero for these non-negative values) to whole cents."""
    cents = value * 100
    whole = cents.numerator // cents.denominator
    return whole + (1 if cents - whole >= Fraction(1, 2) else 0)


@given(items, percents)
def test_lines_are_taxed_one_by_one_and_rounded_half_up(
    given_items: list[tuple[Decimal, bool, int]], percent: Decimal
) -> None:
    products = {f"prd_{i}": product(i, p, t) for i, (p, t, _) in enumerate(given_items)}
    picks = [Pick(f"prd_{i}", q) for i, (_, _, q) in enumerate(given_items)]
    quote = quote_sale(picks, products, "USD", percent, "City")
    subtotal = tax = 0
    for line, (price, taxable, qty) in zip(quote.lines, given_items, strict=True):
        amount = half_up_cents(Fraction(price) * qty)
        line_tax = half_up_cents(Fraction(amount, 100) * Fraction(percent) / 100) if taxable else 0
        assert line.amount.minor_units == amount
        assert line.tax.minor_units == line_tax
        subtotal += amount
        tax += line_tax
    assert quote.totals.subtotal.minor_units == subtotal
    assert quote.totals.tax.minor_units == tax
    assert quote.totals.total.minor_units == subtotal + tax
    assert all(x.amount.amount.as_tuple().exponent == -2 for x in quote.lines)


@given(items)
def test_no_rate_means_no_tax(given_items: list[tuple[Decimal, bool, int]]) -> None:
    products = {f"prd_{i}": product(i, p, t) for i, (p, t, _) in enumerate(given_items)}
    picks = [Pick(f"prd_{i}", q) for i, (_, _, q) in enumerate(given_items)]
    quote = quote_sale(picks, products, "USD", None)
    assert quote.totals.tax == Money.zero("USD")
    assert quote.totals.total == quote.totals.subtotal


def test_one_example_by_hand() -> None:
    products = {
        "prd_0": product(0, Decimal("3.45"), True),
        "prd_1": product(1, Decimal("0.10"), False),
    }
    quote = quote_sale([Pick("prd_0", 3), Pick("prd_1", 2)], products, "USD", Decimal("8.25"))
    # 10.35 * 0.0825 = 0.853875 -> 0.85
    assert (quote.totals.subtotal.amount, quote.totals.tax.amount, quote.totals.total.amount) == (
        Decimal("10.55"),
        Decimal("0.85"),
        Decimal("11.40"),
    )
    assert quote.summary == "3 x Item 0, 2 x Item 1"


def test_unknown_inactive_or_foreign_currency_products_are_refused() -> None:
    products = {"prd_0": product(0, Decimal(1), True, active=False)}
    with pytest.raises(ValidationError):
        quote_sale([Pick("prd_0", 1)], products, "USD", None)
    with pytest.raises(ValidationError):
        quote_sale([Pick("prd_9", 1)], products, "USD", None)
    with pytest.raises(ValidationError):
        quote_sale([Pick("prd_0", 1)], {"prd_0": product(0, Decimal(1), True)}, "EUR", None)
    with pytest.raises(ValidationError):
        quote_sale([], products, "USD", None)


@given(st.dictionaries(st.text(min_size=1, max_size=8), st.text(max_size=5), max_size=8))
def test_quantities_are_whole_numbers_or_refused(form: dict[str, str]) -> None:
    fields = {f"qty-{k}": v for k, v in form.items()}
    bad = [k for k, v in fields.items() if v.strip() and not re.fullmatch(r"[0-9]{1,3}", v.strip())]
    if bad:
        with pytest.raises(ValidationError) as refused:
            parse_picks(fields)
        assert sorted(f.field for f in refused.value.fields) == sorted(bad)
        return
    picks = parse_picks(fields)
    for pick in picks:
        text = fields[f"qty-{pick.product_id}"].strip()
        assert text.isascii()
        assert text.isdigit()
        assert int(text) == pick.quantity
        assert 1 <= pick.quantity <= 999
