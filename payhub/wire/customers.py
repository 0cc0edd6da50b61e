"""A customer as the API returns it."""

from __future__ import annotations

from datetime import datetime

import msgspec

from payhub.domain.customers import Customer
from payhub.wire.addresses import AddressOut


class NameOut(msgspec.Struct):
    first: str | None
    last: str | None
    company: str | None


class CustomerOut(msgspec.Struct, rename="camel"):
    customer_id: str
    name: NameOut
    display_name: str
    email: str | None
    phone: str | None
    website: str | None
    billing_address: AddressOut | None
    account_number: str | None
    location_id: str | None
    sms_consent: bool
    created_at_utc: datetime
    updated_at_utc: datetime

    @classmethod
    def of(cls, c: Customer) -> CustomerOut:
        return cls(
            customer_id=c.id,
            name=NameOut(c.name.first, c.name.last, c.name.company),
            display_name=c.name.display,
            email=c.email,
            phone=c.phone,
            website=c.website,
            billing_address=AddressOut.of(c.billing_address),
            account_number=c.account_number,
            location_id=c.location_id,
            sms_consent=c.consent.consent,
            created_at_utc=c.created_at,
            updated_at_utc=c.updated_at,
        )
