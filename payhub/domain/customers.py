"""Customers of a merchant: their name, contact details, billing address and saved methods.

A customer's name has three optional parts, ``first``, ``last`` and ``company``; at least
one is required. ``displayName`` is the company when there is one, else "first last".
Emails and websites are checked for shape (not deliverability); phones are kept in E.164.
``accountNumber`` is the provider's own number for the customer, unique per merchant.
"""

from __future__ import annotations

import re
from datetime import datetime
from urllib.parse import urlsplit, urlunsplit

import attrs

from payhub.domain.addresses import Address
from payhub.domain.consent import NO_CONSENT, ConsentState
from payhub.domain.errors import FieldError, ValidationError
from payhub.domain.fields import clean_text, raise_if_any
from payhub.domain.payments import MethodType

NAME_PART_MAX = 100
EMAIL_MAX = 254
WEBSITE_MAX = 200
ACCOUNT_NUMBER_MAX = 100

_LOCAL = re.compile(r"^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$")
_LABEL = re.compile(r"^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$")
_TLD = re.compile(r"^[A-Za-z]{2,63}$|^xn--[A-Za-z0-9-]{1,59}$", re.IGNORECASE)


@attrs.frozen
class CustomerName:
    first: str | None = None
    last: str | None = None
    company: str | None = None

    @property
    def display(self) -> str:
        if self.company:
            return self.company
        return " ".join(p for p in (self.first, self.last) if p)


@attrs.define
class Customer:
    id: str
    merchant_id: str
    name: CustomerName
    email: str | None
    phone: str | None
    website: str | None
    billing_address: Address | None
    account_number: str | None
    location_id: str | None
    created_at: datetime
    updated_at: datetime
    consent: ConsentState = NO_CONSENT


@attrs.frozen
class StoredPaymentMethod:
    """A method saved in a gateway's vault for a customer. ``method_ref`` and
    ``gateway_customer_ref`` are the gateway's references: used to charge, never shown."""

    id: str
    merchant_id: str
    customer_id: str
    gateway: str
    method_type: MethodType
    method_ref: str = attrs.field(repr=False)
    gateway_customer_ref: str
    created_at: datetime
    brand: str | None = None
    last4: str | None = None
    exp_month: int | None = None
    exp_year: int | None = None
    bank_name: str | None = None
    removed_at: datetime | None = None


# --- field checks ------------------------------------------------------------------------------


def _host_ok(host: str) -> bool:
    labels = host.split(".")
    return (
        len(labels) >= 2
        and len(host) <= 253
        and all(_LABEL.match(label) for label in labels)
        and bool(_TLD.match(labels[-1]))
    )


def clean_email(value: str | None, field: str = "email") -> str | None:
    """``local@domain.tld`` in plain ASCII; the domain is lower-cased. Blank is ``None``."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    local, at, domain = value.rpartition("@")
    if (
        not at
        or len(value) > EMAIL_MAX
        or len(local) > 64
        or not _LOCAL.match(local)
        or not _host_ok(domain)
    ):
        raise ValidationError.for_field(field, "is not a valid email address")
    return f"{local}@{domain.lower()}"


def clean_website(value: str | None, field: str = "website") -> str | None:
    """An ``http(s)://`` address on a real host name; ``example.com`` is read as
    ``https://example.com``. No credentials, no spaces. Blank is ``None``."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    if len(value) > WEBSITE_MAX:
        raise ValidationError.for_field(field, f"must be at most {WEBSITE_MAX} characters")
    if "://" not in value:
        value = "https://" + value
    refused = ValidationError.for_field(
        field, "is not a valid website address (e.g. https://example.com)"
    )
    if any(c.isspace() or ord(c) < 32 for c in value):
        raise refused
    try:
        parts = urlsplit(value)
        port = parts.port
    except ValueError:
        raise refused from None
    host = parts.hostname or ""
    if (
        parts.scheme.lower() not in {"http", "https"}
        or parts.username is not None
        or parts.password is not None
        or not _host_ok(host)
    ):
        raise refused
    netloc = host if port is None else f"{host}:{port}"
    return urlunsplit((parts.scheme.lower(), netloc, parts.path, parts.query, parts.fragment))


def clean_account_number(value: str | None, field: str = "accountNumber") -> str | None:
    errors: list[FieldError] = []
    number = clean_text(value, field, ACCOUNT_NUMBER_MAX, errors)
    raise_if_any(errors)
    return number


def clean_name(
    first: str | None, last: str | None, company: str | None, errors: list[FieldError]
) -> CustomerName:
    name = CustomerName(
        clean_text(first, "name.first", NAME_PART_MAX, errors),
        clean_text(last, "name.last", NAME_PART_MAX, errors),
        clean_text(company, "name.company", NAME_PART_MAX, errors),
    )
    if not (name.first or name.last or name.company):
        errors.append(FieldError("name", "needs at least one of first, last or company"))
    return name
