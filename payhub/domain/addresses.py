"""Postal addresses: one shape for customers' billing addresses, locations and invoices.

Fields ``line1``, ``line2``, ``city``, ``state``, ``postalCode``, ``country``, each optional,
trimmed, with the spec's limits (``line1``/``line2`` 200; ``city``, ``state``, ``country``
100; ``postalCode`` 20). An address with every field blank is no address at all.
"""

from __future__ import annotations

import attrs

from payhub.domain.errors import FieldError
from payhub.domain.fields import clean_text

ADDRESS_LIMITS: dict[str, int] = {
    "line1": 200,
    "line2": 200,
    "city": 100,
    "state": 100,
    "postalCode": 20,
    "country": 100,
}


@attrs.frozen
class Address:
    line1: str | None = None
    line2: str | None = None
    city: str | None = None
    state: str | None = None
    postal_code: str | None = None
    country: str | None = None


def clean_address(given: Address | None, field: str, errors: list[FieldError]) -> Address | None:
    """The address as sent, checked field by field (faults named ``field.line1`` and so on,
    appended to ``errors``); ``None`` when nothing was sent or every field is blank."""
    if given is None:
        return None
    limits = ADDRESS_LIMITS
    clean = Address(
        line1=clean_text(given.line1, f"{field}.line1", limits["line1"], errors),
        line2=clean_text(given.line2, f"{field}.line2", limits["line2"], errors),
        city=clean_text(given.city, f"{field}.city", limits["city"], errors),
        state=clean_text(given.state, f"{field}.state", limits["state"], errors),
        postal_code=clean_text(
            given.postal_code, f"{field}.postalCode", limits["postalCode"], errors
        ),
        country=clean_text(given.country, f"{field}.country", limits["country"], errors),
    )
    return None if clean == Address() else clean
