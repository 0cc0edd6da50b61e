"""The address shape on the wire: customers' billing addresses, locations (and invoices)."""

from __future__ import annotations

import msgspec

from payhub.domain.addresses import Address


class AddressIn(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    """Every field optional; limits: line1 and line2 200, city, state and country 100,
    postalCode 20 characters."""

    line1: str | None = None
    line2: str | None = None
    city: str | None = None
    state: str | None = None
    postal_code: str | None = None
    country: str | None = None

    def to_domain(self) -> Address:
        return Address(
            self.line1, self.line2, self.city, self.state, self.postal_code, self.country
        )
