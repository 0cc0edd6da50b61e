"""Merchant account rules: the external reference is safe in a path, and errors name fields."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from payhub import Environment, ValidationError
from payhub.domain.accounts import (
    DISPLAY_NAME_MAX,
    EXTERNAL_REFERENCE_MAX,
    clean_external_reference,
    clean_name,
    validate_new_merchant,
)

valid_references = st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._:@-]{0,99}", fullmatch=True)
reference_chars = st.sampled_from(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:@-"
)
bad_chars = st.sampled_from([*"/?#% \t\"'<>\\&+=,;!*()[]{}|^~`$", "é", "ß", "中", "\u200b"])


def fields_of(error: ValidationError) -> list[str]:
    return [f.field for f in error.fields]


@given(valid_references)
def test_valid_references_are_kept(ref: str) -> None:
    assert clean_external_reference(ref) == ref


@given(valid_references, st.sampled_from([" ", "\t", "\n", "  \r\n"]))
def test_surrounding_whitespace_is_trimmed(ref: str, space: str) -> None:
    assert clean_external_reference(space + ref + space) == ref


@pytest.mark.parametrize("blank", ["", " ", "\t\n"])
def test_blank_reference_is_refused(blank: str) -> None:
    with pytest.raises(ValidationError) as refused:
        clean_external_reference(blank)
    assert fields_of(refused.value) == ["externalReference"]
    assert "blank" in refused.value.fields[0].message


@given(st.text(reference_chars, min_size=EXTERNAL_REFERENCE_MAX + 1, max_size=300))
def test_over_long_reference_is_refused(ref: str) -> None:
    with pytest.raises(ValidationError) as refused:
        clean_external_reference("a" + ref)
    assert fields_of(refused.value) == ["externalReference"]
    assert str(EXTERNAL_REFERENCE_MAX) in refused.value.fields[0].message


def test_exactly_100_characters_is_allowed() -> None:
    ref = "a" * EXTERNAL_REFERENCE_MAX
    assert clean_external_reference(ref) == ref


@given(
    st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._:@-]{0,97}", fullmatch=True),
    bad_chars,
    st.integers(min_value=1, max_value=98),
)
def test_a_character_outside_the_set_is_refused(ref: str, bad: str, at: int) -> None:
    # Inside the reference (not at its ends, where whitespace would just be trimmed).
    at = min(at, len(ref))
    candidate = f"{ref[:at]}{bad}{ref[at:]}z"
    assert len(candidate) <= EXTERNAL_REFERENCE_MAX
    with pytest.raises(ValidationError) as refused:
        clean_external_reference(candidate)
    assert fields_of(refused.value) == ["externalReference"]


@pytest.mark.parametrize("ref", ["-abc", ".abc", "_abc", ":abc", "@abc"])
def test_reference_must_start_with_a_letter_or_digit(ref: str) -> None:
    with pytest.raises(ValidationError):
        clean_external_reference(ref)


def test_the_field_name_is_the_callers() -> None:
    with pytest.raises(ValidationError) as refused:
        clean_external_reference("", field="merchant")
    assert fields_of(refused.value) == ["merchant"]


def test_names_are_trimmed_bounded_and_printable() -> None:
    assert clean_name("  Acme Ltd  ", "displayName", DISPLAY_NAME_MAX) == "Acme Ltd"
    assert clean_name("Café 中", "displayName", DISPLAY_NAME_MAX) == "Café 中"
    for bad in ("", "   ", "x" * (DISPLAY_NAME_MAX + 1), "Acme\x00Ltd", "Acme\nLtd"):
        with pytest.raises(ValidationError) as refused:
            clean_name(bad, "displayName", DISPLAY_NAME_MAX)
        assert fields_of(refused.value) == ["displayName"]


def test_a_new_merchant_reports_every_field_at_fault_at_once() -> None:
    with pytest.raises(ValidationError) as refused:
        validate_new_merchant("bad ref", "")
    assert fields_of(refused.value) == ["externalReference", "displayName"]
    assert "externalReference" in refused.value.detail
    assert "displayName" in refused.value.detail
    assert validate_new_merchant(" shop-1 ", " Shop ") == ("shop-1", "Shop")


@pytest.mark.parametrize("spelling", ["Sandbox", "sandbox", " SANDBOX "])
def test_environment_parses_the_wire_spelling(spelling: str) -> None:
    assert Environment.parse(spelling) is Environment.SANDBOX


@pytest.mark.parametrize("spelling", ["", "test", "live", "prod"])
def test_environment_refuses_anything_else(spelling: str) -> None:
    with pytest.raises(ValidationError) as refused:
        Environment.parse(spelling)
    assert fields_of(refused.value) == ["environment"]
