"""Money: one rounding rule (half-up, once), caller input never rounded, minor units exact."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from payhub import Money, ValidationError
from payhub.domain.money import (
    CURRENCY_EXPONENTS,
    amount_ceiling,
    check_precision,
    minor_unit_exponent,
    round_half_up,
)

currencies = st.sampled_from(sorted(CURRENCY_EXPONENTS))
# Amounts up to a trillion with up to six decimals: beyond any currency's precision.
amounts = st.decimals(
    min_value=Decimal("-1e12"), max_value=Decimal("1e12"), places=6, allow_nan=False
)
minor_counts = st.integers(min_value=-(10**15), max_value=10**15)


def quantum(currency: str) -> Decimal:
    return Decimal(1).scaleb(-minor_unit_exponent(currency))


def digits_after_point(value: Decimal) -> int:
    exponent = value.normalize().as_tuple().exponent
    assert isinstance(exponent, int)
    return max(0, -exponent)


# --- the rounding rule -----------------------------------------------------------------


@given(amounts, currencies)
def test_round_half_up_lands_on_the_minor_unit_within_half_a_unit(
    amount: Decimal, currency: str
) -> None:
    rounded = round_half_up(amount, currency)
    assert rounded.as_tuple().exponent == -minor_unit_exponent(currency)
    assert abs(rounded - amount) <= quantum(currency) / 2


@given(st.integers(min_value=0, max_value=10**12), currencies)
def test_an_exact_half_rounds_away_from_zero(units: int, currency: str) -> None:
    q = quantum(currency)
    half_above = units * q + q / 2
    assert round_half_up(half_above, currency) == (units + 1) * q
    assert round_half_up(-half_above, currency) == -(units + 1) * q


@given(amounts, currencies)
def test_rounding_twice_changes_nothing(amount: Decimal, currency: str) -> None:
    once = round_half_up(amount, currency)
    assert round_half_up(once, currency) == once


@pytest.mark.parametrize(
    ("amount", "currency", "expected"),
    [
        ("0.005", "USD", "0.01"),
        ("0.0049", "USD", "0.00"),
        ("2.675", "USD", "2.68"),  # the float trap: 2.675 is 2.67499… as a float
        ("-0.005", "USD", "-0.01"),
        ("0.5", "JPY", "1"),
        ("1.0005", "KWD", "1.001"),
        ("0.00005", "CLF", "0.0001"),
    ],
)
def test_half_up_examples(amount: str, currency: str, expected: str) -> None:
    rounded = round_half_up(Decimal(amount), currency)
    assert rounded == Decimal(expected)
    assert str(rounded) == expected


# --- caller input is checked, never rounded ----------------------------------------------


@given(amounts, currencies)
def test_money_of_keeps_the_callers_value_or_refuses_it(amount: Decimal, currency: str) -> None:
    exponent = minor_unit_exponent(currency)
    if digits_after_point(amount) <= exponent and abs(amount) > amount_ceiling(currency):
        with pytest.raises(ValidationError) as too_big:
            Money.of(amount, currency)
        assert "must be at most" in too_big.value.fields[0].message
    elif digits_after_point(amount) <= exponent:
        money = Money.of(amount, currency)
        assert money.amount == amount
        assert money.amount.as_tuple().exponent == -exponent
    else:
        with pytest.raises(ValidationError) as refused:
            Money.of(amount, currency)
        assert [f.field for f in refused.value.fields] == ["amount"]
        assert str(exponent) in refused.value.fields[0].message


@given(minor_counts, currencies, st.integers(min_value=1, max_value=9))
def test_check_precision_refuses_one_digit_too_many(
    units: int, currency: str, extra_digit: int
) -> None:
    exponent = minor_unit_exponent(currency)
    too_precise = Decimal(units).scaleb(-exponent) + Decimal(extra_digit).scaleb(-exponent - 1)
    with pytest.raises(ValidationError) as refused:
        check_precision(too_precise, currency, field="amount.value")
    assert refused.value.fields[0].field == "amount.value"


@pytest.mark.parametrize("text", ["NaN", "Infinity", "-Infinity", "sNaN", "ten", "", "1,00"])
def test_non_numbers_are_refused(text: str) -> None:
    with pytest.raises(ValidationError) as refused:
        Money.of(text, "USD")
    assert refused.value.fields[0].field == "amount"


def test_unknown_currency_is_refused_with_the_field() -> None:
    with pytest.raises(ValidationError) as refused:
        Money.of("1.00", "XXX")
    assert refused.value.fields[0].field == "currency"


def test_currency_code_is_normalised() -> None:
    assert Money.of("1.5", " usd ") == Money.of("1.50", "USD")


# --- minor units ---------------------------------------------------------------------


@pytest.mark.parametrize("currency", sorted(CURRENCY_EXPONENTS))
@settings(max_examples=20)
@given(units=minor_counts)
def test_minor_units_round_trip_for_every_currency(currency: str, units: int) -> None:
    money = Money.from_minor_units(units, currency)
    assert money.minor_units == units
    assert money.amount.as_tuple().exponent == -CURRENCY_EXPONENTS[currency]
    if abs(money.amount) <= amount_ceiling(currency):
        assert Money.of(str(money.amount), currency) == money


@pytest.mark.parametrize(
    ("amount", "currency", "units"),
    [("10.50", "USD", 1050), ("1050", "JPY", 1050), ("1.050", "KWD", 1050), ("0", "EUR", 0)],
)
def test_minor_units_examples(amount: str, currency: str, units: int) -> None:
    assert Money.of(amount, currency).minor_units == units


# --- arithmetic ------------------------------------------------------------------------


@given(minor_counts, minor_counts, currencies)
def test_add_and_sub_stay_exact_in_one_currency(a: int, b: int, currency: str) -> None:
    x = Money.from_minor_units(a, currency)
    y = Money.from_minor_units(b, currency)
    assert (x + y).minor_units == a + b
    assert (x - y).minor_units == a - b
    assert x + y - y == x
    assert x + y == y + x


@given(minor_counts, currencies, currencies)
def test_mixing_currencies_is_refused(units: int, first: str, second: str) -> None:
    x = Money.from_minor_units(units, first)
    y = Money.from_minor_units(units, second)
    if first == second:
        assert x - y == Money.zero(first)
        return
    for combine in (
        lambda: x + y,
        lambda: x - y,
        lambda: x < y,
        lambda: x <= y,
        lambda: x > y,
        lambda: x >= y,
    ):
        with pytest.raises(ValidationError):
            combine()


@given(minor_counts, st.decimals(min_value=0, max_value=100, places=4), currencies)
@example(1, Decimal("0.5"), "USD")
def test_times_rounds_half_up_once(units: int, factor: Decimal, currency: str) -> None:
    money = Money.from_minor_units(units, currency)
    assert money.times(factor).amount == round_half_up(money.amount * factor, currency)


def test_require_positive() -> None:
    assert Money.of("0.01", "USD").require_positive() == Money.of("0.01", "USD")
    for amount in ("0", "-0.01"):
        with pytest.raises(ValidationError) as refused:
            Money.of(amount, "USD").require_positive("amount.value")
        assert refused.value.fields[0].field == "amount.value"
