"""A merchant's business details and branding, as its customers see them.

The merchant record has a display name only (the provider's label). The profile, set in the
portal's Settings, adds what the pay page, receipts and emails show: the business name (in
place of the display name), a logo, a contact email, a phone number and an address. Every
field is optional; an empty profile changes nothing the customer sees.

A logo is PNG or JPEG only (told apart by the file's own first bytes, not by its name or the
browser's word), at most ``LOGO_MAX_BYTES``. SVG is refused: it can carry script, and the
pay page is public.
"""

from __future__ import annotations

import base64
from datetime import datetime

import attrs

from payhub.domain.addresses import Address, clean_address
from payhub.domain.consent import clean_phone
from payhub.domain.errors import FieldError, ValidationError
from payhub.domain.fields import clean_text, raise_if_any

BUSINESS_NAME_MAX = 200
EMAIL_MAX = 254
LOGO_MAX_BYTES = 256 * 1024
_PNG = b"\x89PNG\r\n\x1a\n"
_JPEG = b"\xff\xd8\xff"


@attrs.frozen
class Logo:
    media_type: str  # image/png or image/jpeg
    data: bytes = attrs.field(repr=False)

    @property
    def data_uri(self) -> str:
        """For the pay page and receipt (their CSP allows ``img-src data:``)."""
        return f"data:{self.media_type};base64,{base64.b64encode(self.data).decode()}"


@attrs.frozen
class MerchantProfile:
    business_name: str | None = None
    contact_email: str | None = None
    phone: str | None = None  # E.164
    address: Address | None = None
    logo: Logo | None = None
    updated_at: datetime | None = None

    def name_or(self, display_name: str) -> str:
        return self.business_name or display_name

    @property
    def contact_lines(self) -> tuple[str, ...]:
        """How a customer reaches the business: address, phone, email (what is set)."""
        lines: list[str] = []
        if self.address is not None:
            a = self.address
            region = " ".join(x for x in (a.state, a.postal_code) if x)
            place = ", ".join(x for x in (a.city, region) if x)
            line = ", ".join(x for x in (a.line1, a.line2, place, a.country) if x)
            if line:
                lines.append(line)
        if self.phone:
            lines.append(self.phone)
        if self.contact_email:
            lines.append(self.contact_email)
        return tuple(lines)


def clean_email(value: str | None, field: str, errors: list[FieldError]) -> str | None:
    text = clean_text(value, field, EMAIL_MAX, errors)
    if text is None:
        return None
    local, _, domain = text.rpartition("@")
    if not local or "." not in domain or any(c.isspace() for c in text):
        errors.append(FieldError(field, "is not an email address"))
        return None
    return text


def clean_profile(
    business_name: str | None,
    contact_email: str | None,
    phone: str | None,
    address: Address | None,
    logo: Logo | None,
) -> MerchantProfile:
    """The details as typed, checked (400 naming each bad field)."""
    errors: list[FieldError] = []
    name = clean_text(business_name, "businessName", BUSINESS_NAME_MAX, errors)
    email = clean_email(contact_email, "contactEmail", errors)
    number: str | None = None
    try:
        number = clean_phone(phone, "phone")
    except ValidationError as e:
        errors.extend(e.fields)
    where = clean_address(address, "address", errors)
    raise_if_any(errors)
    return MerchantProfile(name, email, number, where, logo)


def check_logo(data: bytes) -> Logo:
    """A PNG or JPEG of at most ``LOGO_MAX_BYTES``, by its content."""
    if not data:
        raise ValidationError.for_field("logo", "choose an image file")
    if len(data) > LOGO_MAX_BYTES:
        raise ValidationError.for_field(
            "logo",
            f"must be at most {LOGO_MAX_BYTES // 1024} KB (this one is {len(data) // 1024} KB)",
        )
    if data.startswith(_PNG):
        return Logo("image/png", data)
    if data.startswith(_JPEG):
        return Logo("image/jpeg", data)
    raise ValidationError.for_field("logo", "must be a PNG or JPEG image (SVG is not accepted)")
