"""Merchant profiles: the details checked field by field, logos by their own bytes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from payhub.domain.addresses import Address
from payhub.domain.errors import ValidationError
from payhub.domain.profiles import (
    LOGO_MAX_BYTES,
    MerchantProfile,
    check_logo,
    clean_profile,
)

PNG = b"\x89PNG\r\n\x1a\n"


def test_details_are_cleaned_and_the_phone_is_e164() -> None:
    profile = clean_profile(
        "  Acme Plumbing ", "help@acme.example", "(512) 555-0100", Address(city="Austin"), None
    )
    assert profile.business_name == "Acme Plumbing"
    assert profile.phone == "+15125550100"
    assert profile.contact_lines == ("Austin", "+15125550100", "help@acme.example")
    assert profile.name_or("acme-42") == "Acme Plumbing"
    assert MerchantProfile().name_or("acme-42") == "acme-42"


def test_every_bad_field_is_named() -> None:
    with pytest.raises(ValidationError) as e:
        clean_profile("x" * 201, "nope", "12", Address(postal_code="9" * 21), None)
    assert {f.field for f in e.value.fields} == {
        "businessName", "contactEmail", "phone", "address.postalCode"}  # fmt: skip


@pytest.mark.parametrize(
    ("data", "media"), [(PNG + b"rest", "image/png"), (b"\xff\xd8\xff\xe0rest", "image/jpeg")]
)
def test_png_and_jpeg_are_told_by_their_bytes(data: bytes, media: str) -> None:
    assert check_logo(data).media_type == media
    assert check_logo(data).data_uri.startswith(f"data:{media};base64,")


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b'<svg xmlns="http://www.w3.org/2000/svg"/>',
        b"GIF89a....",
        b"<html><script>alert(1)</script>",
        PNG + b"\x00" * LOGO_MAX_BYTES,
    ],
)
def test_anything_else_is_refused(data: bytes) -> None:
    with pytest.raises(ValidationError):
        check_logo(data)


@given(st.binary(max_size=64))
def test_only_png_or_jpeg_signatures_pass(data: bytes) -> None:
    try:
        logo = check_logo(data)
    except ValidationError:
        assert not data.startswith(PNG)
        assert not data.startswith(b"\xff\xd8\xff")
    else:
        assert data.startswith(PNG) or data.startswith(b"\xff\xd8\xff")
        assert logo.data == data
