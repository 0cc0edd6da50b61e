"""Named tax rates, and the advisory figures the accounting integration observes.

- A rate's percentage is 0 to 100 with at most four decimals (400 otherwise); it is kept
  exactly and written without trailing zeros (``8.2500`` is ``8.25``).
- A merchant has at most one default rate. Deactivating the default rate leaves the
  merchant without one; an inactive rate cannot become the default.
- The suggestion for a postal code is the newest rate the accounting system reported for
  it; it is stale once more than 30 days old. It is advice only: nothing applies it.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from decimal import Decimal

import attrs

from payhub.domain.errors import FieldError
from payhub.domain.fields import clean_text

TAX_NAME_MAX = 100
PERCENT_MAX = Decimal(100)
PERCENT_QUANTUM = Decimal("0.0001")
POSTAL_CODE_MAX = 20
STALE_AFTER = timedelta(days=30)
_ZIP = re.compile(r"^(\d{5})(?:-?\d{4})?$")


@attrs.define
class TaxRate:
    id: str
    merchant_id: str
    name: str
    percent: Decimal
    active: bool
    created_at: datetime
    updated_at: datetime


@attrs.frozen
class TaxSettings:
    default_tax_rate_id: str | None = None
    automatic_sales_tax: bool = False  # reported by the accounting integration


@attrs.frozen
class Jurisdiction:
    name: str
    percent: Decimal | None = None


@attrs.frozen
class ObservedTaxRate:
    """A rate the accounting system computed for a postal code, and when it last confirmed it."""

    id: str
    merchant_id: str
    postal_code: str
    percent: Decimal
    jurisdictions: tuple[Jurisdiction, ...]
    confirmed_at: datetime


@attrs.frozen
class TaxSuggestion:
    found: bool
    percent: Decimal | None = None
    jurisdictions: tuple[Jurisdiction, ...] = ()
    last_confirmed_at: datetime | None = None
    is_stale: bool = False
    postal_code: str | None = None


def canonical_percent(value: Decimal) -> Decimal:
    """The percentage at four decimals, written without trailing zeros (never exponent form)."""
    text = format(value.quantize(PERCENT_QUANTUM), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return Decimal(text)


def clean_percent(value: Decimal, errors: list[FieldError], field: str = "percent") -> Decimal:
    """0 to 100 with up to four decimals, taken exactly (never rounded)."""
    if not value.is_finite():
        errors.append(FieldError(field, "must be a number"))
    elif not Decimal(0) <= value <= PERCENT_MAX:
        errors.append(FieldError(field, "must be between 0 and 100"))
    elif value != value.quantize(PERCENT_QUANTUM):
        errors.append(FieldError(field, "may have at most four decimal places"))
    else:
        return canonical_percent(value)
    return Decimal(0)


def clean_tax_name(value: str, errors: list[FieldError], field: str = "name") -> str:
    name = clean_text(value, field, TAX_NAME_MAX, errors)
    if name is None:
        errors.append(FieldError(field, "must not be blank"))
        return ""
    return name


def clean_postal_code(value: str, errors: list[FieldError], field: str = "postalCode") -> str:
    """Trimmed and upper-cased; a US ZIP+4 (``94105-1234``) is looked up by its five digits."""
    code = clean_text(value, field, POSTAL_CODE_MAX, errors)
    if code is None:
        errors.append(FieldError(field, "is required"))
        return ""
    match = _ZIP.match(code)
    return match.group(1) if match else code.upper()


def is_stale(confirmed_at: datetime, now: datetime) -> bool:
    """Stale once more than 30 days have passed since the accounting system confirmed it."""
    return now - confirmed_at > STALE_AFTER


def suggest(observed: ObservedTaxRate | None, now: datetime) -> TaxSuggestion:
    if observed is None:
        return TaxSuggestion(found=False)
    return TaxSuggestion(
        found=True,
        percent=observed.percent,
        jurisdictions=observed.jurisdictions,
        last_confirmed_at=observed.confirmed_at,
        is_stale=is_stale(observed.confirmed_at, now),
        postal_code=observed.postal_code,
    )
