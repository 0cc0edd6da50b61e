"""The address shape the API returns (customers, invoices, schedules)."""

from __future__ import annotations

import msgspec

from payhub.domain.addresses import Address


class AddressOut(msgspec.Struct, rename="camel"):
    line1: str | None
    line2: str | None
    city: str | None
    state: str | None
    postal_code: str | None
    country: str | None

    @classmethod
    def of(cls, a: Address | None) -> AddressOut | None:
        if a is None:
            return None
        return cls(a.line1, a.line2, a.city, a.state, a.postal_code, a.country)
