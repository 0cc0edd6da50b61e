"""Locations: a merchant's shops or sites, and which location a new record belongs to.

Rules (spec: Location):

- Never deleted; ``isActive: false`` switches one off, refused (409) while it has active
  registers or when it is the merchant's last active location.
- The short code is 1 to 6 letters or digits, stored in capitals, unique per merchant.
- ``resolve_location`` decides the location of every new record (customer, charge, invoice).
- ``effective_tax_rate_id`` decides the rate a location's sales use.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from datetime import datetime

import attrs

from payhub.domain.addresses import Address
from payhub.domain.errors import Conflict, FieldError, ValidationError
from payhub.domain.fields import clean_text

LOCATION_NAME_MAX = 100
SHORT_CODE_MAX = 6
_SHORT_CODE = re.compile(r"^[A-Za-z0-9]{1,6}$")


@attrs.define
class Location:
    id: str
    merchant_id: str
    name: str
    address: Address | None
    phone: str | None
    tax_rate_id: str | None
    short_code: str | None
    active: bool
    created_at: datetime
    updated_at: datetime


@attrs.frozen
class LocationSettings:
    locations_enabled: bool = False
    default_location_id: str | None = None


@attrs.frozen
class Register:
    """A point-of-sale register at a location (no API yet: it exists so the deactivation
    rule is real)."""

    id: str
    merchant_id: str
    location_id: str
    name: str
    active: bool
    created_at: datetime


def clean_location_name(value: str, errors: list[FieldError], field: str = "name") -> str:
    name = clean_text(value, field, LOCATION_NAME_MAX, errors)
    if name is None:
        errors.append(FieldError(field, "must not be blank"))
        return ""
    return name


def clean_short_code(
    value: str | None, errors: list[FieldError], field: str = "shortCode"
) -> str | None:
    """1 to 6 ASCII letters or digits, in capitals; blank or absent clears the code."""
    if value is None or not value.strip():
        return None
    code = value.strip()
    if not _SHORT_CODE.match(code):
        errors.append(FieldError(field, "must be 1 to 6 letters or digits"))
        return None
    return code.upper()


def resolve_location(
    sent_location_id: str | None,
    customer_location_id: str | None,
    settings: LocationSettings,
    merchant_location_ids: Collection[str],
    field: str = "locationId",
) -> str | None:
    """The location a new record gets.

    ``merchant_location_ids`` are the merchant's active locations (at least those among
    the ids involved). A sent ``locationId`` always wins and must be one of them (400).
    Otherwise, with locations enabled, the customer's location, else the merchant default;
    with locations off, none.
    """
    if sent_location_id is not None:
        if sent_location_id not in merchant_location_ids:
            raise ValidationError.for_field(field, "is not an active location of this merchant")
        return sent_location_id
    if not settings.locations_enabled:
        return None
    for candidate in (customer_location_id, settings.default_location_id):
        if candidate is not None and candidate in merchant_location_ids:
            return candidate
    return None


def effective_tax_rate_id(
    location_tax_rate_id: str | None,
    default_tax_rate_id: str | None,
    active_rate_ids: Collection[str],
) -> str | None:
    """The rate a location's sales use: its own while active, else the merchant default
    while active, else none."""
    for candidate in (location_tax_rate_id, default_tax_rate_id):
        if candidate is not None and candidate in active_rate_ids:
            return candidate
    return None


def check_deactivation(location: Location, active_registers: int, active_locations: int) -> None:
    """Refuse switching off a location that registers still use, or the last one on."""
    if not location.active:
        return
    if active_registers:
        raise Conflict(
            f"location '{location.id}' has {active_registers} active register(s);"
            " deactivate them first"
        )
    if active_locations <= 1:
        raise Conflict(
            f"location '{location.id}' is the merchant's last active location;"
            " a merchant keeps at least one"
        )
