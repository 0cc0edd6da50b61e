"""The pure catalog rules: category names and colors, SKUs, tax percentages and staleness,
postal codes, short codes, location defaulting and the rate a location uses."""

from __future__ import annotations

import string
import unicodedata
from datetime import UTC, datetime, timedelta
from decimal import Decimal

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from payhub.domain.catalog import (
    check_sort_order,
    clean_category_name,
    clean_color,
    clean_unit_price,
    name_key,
)
from payhub.domain.errors import Conflict, FieldError, ValidationError
from payhub.domain.locations import (
    Location,
    LocationSettings,
    check_deactivation,
    clean_short_code,
    effective_tax_rate_id,
    resolve_location,
)
from payhub.domain.taxes import (
    ObservedTaxRate,
    canonical_percent,
    clean_percent,
    clean_postal_code,
    is_stale,
    suggest,
)

T0 = datetime(2025, 3, 14, 9, 0, tzinfo=UTC)


def fields(errors: list[FieldError]) -> list[str]:
    return [e.field for e in errors]


# --- categories, SKUs, prices ----------------------------------------------------------------


@given(st.text(max_size=130))
def test_a_category_name_is_1_to_100_characters_without_a_colon(name: str) -> None:
    errors: list[FieldError] = []
    clean = clean_category_name(name, errors)
    # The one text rule applies to names too: NFC, and no control, bidi-override or
    # non-character (payhub.domain.fields.text_fault), checked here by its own definition.
    stripped = unicodedata.normalize("NFC", name.strip())
    bad = (
        not stripped
        or len(stripped) > 100
        or ":" in stripped
        or any(
            unicodedata.category(c) in ("Cc", "Cs")
            or 0x202A <= ord(c) <= 0x202E
            or 0x2066 <= ord(c) <= 0x2069
            or 0xFDD0 <= ord(c) <= 0xFDEF
            or (ord(c) & 0xFFFE) == 0xFFFE
            for c in stripped
        )
    )
    assert bool(errors) is bad
    assert set(fields(errors)) <= {"name"}
    if not bad:
        assert clean == stripped


@given(st.text(alphabet=string.ascii_letters + " -&", min_size=1, max_size=40))
def test_names_compare_trimmed_and_in_any_letter_case(name: str) -> None:
    assert name_key(f"  {name.upper()} ") == name_key(name.lower()) == name_key(name)


@given(st.from_regex(r"\A#[0-9A-Fa-f]{6}\Z"))
def test_hex_colors_are_kept_in_capitals(color: str) -> None:
    errors: list[FieldError] = []
    assert clean_color(f" {color} ", errors) == color.upper()
    assert errors == []


@given(st.text(max_size=10))
def test_anything_else_is_not_a_color(text: str) -> None:
    stripped = text.strip()
    assume(stripped)
    assume(
        not (
            len(stripped) == 7
            and stripped[0] == "#"
            and all(c in string.hexdigits for c in stripped[1:])
        )
    )
    errors: list[FieldError] = []
    assert clean_color(text, errors) is None
    assert fields(errors) == ["color"]


@given(st.integers())
def test_sort_order_has_bounds(value: int) -> None:
    errors: list[FieldError] = []
    check_sort_order(value, errors)
    assert bool(errors) is (abs(value) > 1_000_000)


@given(st.decimals(allow_nan=False, allow_infinity=False, places=3, min_value=-5, max_value=10**13))
def test_unit_prices_are_never_rounded(value: Decimal) -> None:
    errors: list[FieldError] = []
    price = clean_unit_price(value, "USD", errors)
    exact = value == value.quantize(Decimal("0.01"))
    if exact and 0 <= value <= Decimal("999999999999"):
        assert errors == []
        assert price is not None
        assert price.amount == value
    else:
        assert fields(errors) == ["unitPrice"]


def test_a_price_in_an_unknown_currency_names_the_currency() -> None:
    errors: list[FieldError] = []
    clean_unit_price(Decimal(1), "XXX", errors)
    assert fields(errors) == ["currency"]


# --- tax rates ---------------------------------------------------------------------------------


@given(st.decimals(min_value=0, max_value=100, places=4))
def test_percentages_with_up_to_four_decimals_are_taken_exactly(value: Decimal) -> None:
    errors: list[FieldError] = []
    clean = clean_percent(value, errors)
    assert errors == []
    assert clean == value
    assert "E" not in str(clean)
    assert not (str(clean).endswith("0") and "." in str(clean))


@given(
    st.decimals(allow_nan=False, allow_infinity=False, places=6, min_value=-1000, max_value=1000)
)
def test_other_percentages_are_400(value: Decimal) -> None:
    assume(not (0 <= value <= 100 and value == value.quantize(Decimal("0.0001"))))
    errors: list[FieldError] = []
    clean_percent(value, errors)
    assert fields(errors) == ["percent"]


@pytest.mark.parametrize(
    ("given_", "kept"),
    [("8.2500", "8.25"), ("10", "10"), ("100.0000", "100"), ("0.0001", "0.0001"), ("0E-7", "0")],
)
def test_percentages_are_written_without_trailing_zeros(given_: str, kept: str) -> None:
    assert str(canonical_percent(Decimal(given_))) == kept


def test_nan_and_infinity_are_not_percentages() -> None:
    for value in (Decimal("NaN"), Decimal("Infinity"), Decimal("-Infinity")):
        errors: list[FieldError] = []
        clean_percent(value, errors)
        assert fields(errors) == ["percent"]


@given(st.timedeltas(min_value=timedelta(0), max_value=timedelta(days=90)))
def test_a_suggestion_is_stale_after_30_days(age: timedelta) -> None:
    observed = ObservedTaxRate("o", "m", "94105", Decimal("8.625"), (), T0)
    suggestion = suggest(observed, T0 + age)
    assert suggestion.found
    assert suggestion.is_stale is (age > timedelta(days=30)) is is_stale(T0, T0 + age)
    assert suggest(None, T0 + age).found is False
    assert suggest(None, T0 + age).is_stale is False


@given(st.from_regex(r"\A\d{5}\Z"), st.sampled_from(["", "-1234", "1234"]))
def test_a_zip_plus_four_is_looked_up_by_its_five_digits(zip5: str, plus4: str) -> None:
    errors: list[FieldError] = []
    assert clean_postal_code(f" {zip5}{plus4} ", errors) == zip5
    assert errors == []


def test_other_postal_codes_are_trimmed_and_capitalised() -> None:
    errors: list[FieldError] = []
    assert clean_postal_code(" sw1y 4jh ", errors) == "SW1Y 4JH"
    clean_postal_code("  ", errors)
    clean_postal_code("x" * 21, errors)
    assert fields(errors) == ["postalCode", "postalCode"]


# --- locations -------------------------------------------------------------------------------


@given(st.from_regex(r"\A[A-Za-z0-9]{1,6}\Z"))
def test_short_codes_are_stored_in_capitals(code: str) -> None:
    errors: list[FieldError] = []
    assert clean_short_code(f" {code} ", errors) == code.upper()
    assert errors == []


@given(st.text(max_size=10))
def test_anything_else_is_not_a_short_code(text: str) -> None:
    stripped = text.strip()
    assume(stripped)
    assume(not (len(stripped) <= 6 and stripped.isascii() and stripped.isalnum()))
    errors: list[FieldError] = []
    assert clean_short_code(text, errors) is None
    assert fields(errors) == ["shortCode"]


@pytest.mark.parametrize("blank", [None, "", "   "])
def test_no_short_code_clears_it(blank: str | None) -> None:
    errors: list[FieldError] = []
    assert clean_short_code(blank, errors) is None
    assert errors == []


ids = st.sampled_from(["loc_a", "loc_b", "loc_c", "loc_d"])


@given(
    st.one_of(st.none(), ids),
    st.one_of(st.none(), ids),
    st.booleans(),
    st.one_of(st.none(), ids),
    st.frozensets(ids),
)
def test_location_defaulting(
    sent: str | None,
    customers: str | None,
    enabled: bool,
    default: str | None,
    active: frozenset[str],
) -> None:
    settings = LocationSettings(enabled, default)
    if sent is not None and sent not in active:
        with pytest.raises(ValidationError) as refused:
            resolve_location(sent, customers, settings, active)
        assert fields(refused.value.fields) == ["locationId"]
        return
    chosen = resolve_location(sent, customers, settings, active)
    if sent is not None:
        assert chosen == sent  # a sent location always wins
    elif not enabled:
        assert chosen is None
    elif customers in active:
        assert chosen == customers
    elif default in active:
        assert chosen == default
    else:
        assert chosen is None
    assert chosen is None or chosen in active


@given(st.one_of(st.none(), ids), st.one_of(st.none(), ids), st.frozensets(ids))
def test_a_location_uses_its_rate_while_on_else_the_default(
    own: str | None, default: str | None, active: frozenset[str]
) -> None:
    chosen = effective_tax_rate_id(own, default, active)
    if own in active:
        assert chosen == own
    elif default in active:
        assert chosen == default
    else:
        assert chosen is None


def location(active: bool = True) -> Location:
    return Location("loc_a", "mer", "Main", None, None, None, None, active, T0, T0)


@given(st.integers(0, 3), st.integers(1, 4))
def test_deactivation_needs_no_active_register_and_another_active_location(
    registers: int, active_locations: int
) -> None:
    allowed = registers == 0 and active_locations > 1
    if allowed:
        check_deactivation(location(), registers, active_locations)
    else:
        with pytest.raises(Conflict):
            check_deactivation(location(), registers, active_locations)
    check_deactivation(location(active=False), registers, active_locations)  # already off
