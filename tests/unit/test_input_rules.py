"""The input rules as pure functions: the one decimal text format, the bounds on any decimal
from outside, the amount ceiling and the one text rule."""

from __future__ import annotations

import unicodedata
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from payhub import Money, ValidationError
from payhub.domain.fields import clean_text, normal_text, text_fault
from payhub.domain.money import (
    AMOUNT_LIMIT,
    CURRENCY_EXPONENTS,
    DECIMAL_DIGITS_MAX,
    amount_ceiling,
    decimal_fault,
    parse_decimal,
)

plain_decimals = st.decimals(
    min_value=Decimal("-1e17"), max_value=Decimal("1e17"), places=6, allow_nan=False
).filter(lambda d: not (d.is_signed() and d == 0))


@given(plain_decimals)
def test_a_decimal_written_plainly_is_read_exactly(value: Decimal) -> None:
    text = format(value, "f")
    if text.startswith("-0") and Decimal(text) == 0:  # "-0.000000" is a negative zero
        return
    assert parse_decimal(text) == value
    assert str(parse_decimal(text)) == text


@pytest.mark.parametrize(
    "text",
    ["1_000", "+5", " 5", "5 ", "1e3", "1E3", ".5", "5.", "05", "-05", "--5", "0x10", "",
     "\u0661\u0660", "\uff11\uff10", "\u0967", "NaN", "Infinity", "-Infinity", "sNaN", "1,000",
     "1.000,50", "5\n", "$5", "5 USD"],
)  # fmt: skip
def test_anything_else_is_refused(text: str) -> None:
    with pytest.raises(ValidationError) as refused:
        parse_decimal(text, "amount.value")
    assert refused.value.fields[0].field == "amount.value"


@pytest.mark.parametrize("text", ["-0", "-0.00", "-0.0000"])
def test_a_negative_zero_is_refused(text: str) -> None:
    with pytest.raises(ValidationError, match="negative zero"):
        parse_decimal(text)


def test_digits_are_bounded_on_both_sides_of_the_point() -> None:
    assert decimal_fault(Decimal("9" * DECIMAL_DIGITS_MAX)) is None
    assert decimal_fault(Decimal("0." + "1" * DECIMAL_DIGITS_MAX)) is None
    assert "before" in str(decimal_fault(Decimal("1" + "0" * DECIMAL_DIGITS_MAX)))
    assert "after" in str(decimal_fault(Decimal("0." + "1" * (DECIMAL_DIGITS_MAX + 1))))
    assert "before" in str(decimal_fault(Decimal("1e400")))
    assert "after" in str(decimal_fault(Decimal("1e-400")))
    assert "finite" in str(decimal_fault(Decimal("NaN")))
    assert "finite" in str(decimal_fault(Decimal("-Infinity")))
    assert decimal_fault(Decimal("0E-30")) is not None


@pytest.mark.parametrize("currency", ["USD", "JPY", "KWD", "CLF"])
def test_every_amount_has_a_ceiling_one_minor_unit_below_the_limit(currency: str) -> None:
    top = amount_ceiling(currency)
    assert top < AMOUNT_LIMIT
    assert AMOUNT_LIMIT - top == Decimal(1).scaleb(-CURRENCY_EXPONENTS[currency])
    assert Money.of(top, currency).amount == top
    with pytest.raises(ValidationError, match="at most"):
        Money.of(top + Decimal(1).scaleb(-CURRENCY_EXPONENTS[currency]), currency)
    with pytest.raises(ValidationError, match="at most"):
        Money.of(Decimal("1000000000000000"), currency)


# --- the one text rule -----------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Zoë Ångström",
        "\u0645\u062d\u0645\u062f",  # Arabic
        "\u05e9\u05dc\u05d5\u05dd \u200f(RLM)",  # Hebrew with a right-to-left mark
        "\u0915\u094d\u200d\u0937",  # Devanagari with ZWJ
        "\u0645\u06cc\u200c\u062e\u0648\u0627\u0645",  # Persian with ZWNJ
        "\U0001f469\u200d\U0001f4bb",  # emoji ZWJ sequence
        "O'Brien & Søn",
    ],
)
def test_real_names_and_scripts_are_allowed(text: str) -> None:
    assert text_fault(text) is None
    assert clean_text(text, "name", 100, []) == unicodedata.normalize("NFC", text)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("evil\u202etxt.exe", "bidi"),
        ("a\u202ab", "bidi"),
        ("a\u2066b\u2069", "bidi"),
        ("a\x00b", "control"),
        ("a\x1bb", "control"),
        ("a\x7fb", "control"),
        ("a\x85b", "control"),
        ("a\ufffeb", "non-characters"),
        ("a\ufdd0b", "non-characters"),
        ("a\U0010ffffb", "non-characters"),
        ("a\ud800b", "surrogates"),
    ],
)
def test_controls_bidi_overrides_and_non_characters_are_refused(text: str, why: str) -> None:
    assert why in str(text_fault(text))
    errors: list = []
    clean_text(text, "name", 100, errors)
    assert [e.field for e in errors] == ["name"]


def test_line_breaks_are_allowed_only_where_text_may_have_lines() -> None:
    assert text_fault("one\ntwo\r\n\tthree", multiline=True) is None
    assert "control" in str(text_fault("one\ntwo"))


def test_text_is_composed_nfc() -> None:
    decomposed = "Zoe\u0308"
    assert normal_text(decomposed) == "Zoë"
    assert clean_text(f"  {decomposed} ", "name", 10, []) == "Zoë"
