"""Money: ``Decimal`` amounts in a currency, quantized to its minor unit.

The one rounding rule of payhub: wherever an amount is computed (tax on a line,
a share of a total), it is rounded **half-up** (0.005 -> 0.01) to the currency's
minor unit, once, at the place the computation happens. Amounts a caller sends
are never rounded: one with more decimals than the currency has is refused.
Floats never enter: JSON numbers are decoded straight into ``Decimal``.

Amounts written as text have one format (``parse_decimal``), every decimal from outside has
bounded digits (``decimal_fault``), and every amount a caller gives is below ``AMOUNT_LIMIT``.
"""

from __future__ import annotations

import re
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

import attrs

from payhub.domain.errors import ValidationError

# ISO 4217 currencies and their minor-unit exponents. Currencies with an exponent
# other than 2 are listed explicitly; every other code listed has 2.
_EXPONENTS: dict[str, int] = {
    "BHD": 3,
    "BIF": 0,
    "CLF": 4,
    "CLP": 0,
    "DJF": 0,
    "GNF": 0,
    "IQD": 3,
    "ISK": 0,
    "JOD": 3,
    "JPY": 0,
    "KMF": 0,
    "KRW": 0,
    "KWD": 3,
    "LYD": 3,
    "OMR": 3,
    "PYG": 0,
    "RWF": 0,
    "TND": 3,
    "UGX": 0,
    "UYI": 0,
    "UYW": 4,
    "VND": 0,
    "VUV": 0,
    "XAF": 0,
    "XOF": 0,
    "XPF": 0,
}
_TWO_DECIMALS = [
    "AED",
    "AFN",
    "ALL",
    "AMD",
    "ANG",
    "AOA",
    "ARS",
    "AUD",
    "AWG",
    "AZN",
    "BAM",
    "BBD",
    "BDT",
    "BGN",
    "BMD",
    "BND",
    "BOB",
    "BRL",
    "BSD",
    "BTN",
    "BWP",
    "BYN",
    "BZD",
    "CAD",
    "CDF",
    "CHF",
    "CNY",
    "COP",
    "CRC",
    "CUP",
    "CVE",
    "CZK",
    "DKK",
    "DOP",
    "DZD",
    "EGP",
    "ERN",
    "ETB",
    "EUR",
    "FJD",
    "FKP",
    "GBP",
    "GEL",
    "GHS",
    "GIP",
    "GMD",
    "GTQ",
    "GYD",
    "HKD",
    "HNL",
    "HTG",
    "HUF",
    "IDR",
    "ILS",
    "INR",
    "IRR",
    "JMD",
    "KES",
    "KGS",
    "KHR",
    "KPW",
    "KYD",
    "KZT",
    "LAK",
    "LBP",
    "LKR",
    "LRD",
    "LSL",
    "MAD",
    "MDL",
    "MGA",
    "MKD",
    "MMK",
    "MNT",
    "MOP",
    "MRU",
    "MUR",
    "MVR",
    "MWK",
    "MXN",
    "MYR",
    "MZN",
    "NAD",
    "NGN",
    "NIO",
    "NOK",
    "NPR",
    "NZD",
    "PAB",
    "PEN",
    "PGK",
    "PHP",
    "PKR",
    "PLN",
    "QAR",
    "RON",
    "RSD",
    "RUB",
    "SAR",
    "SBD",
    "SCR",
    "SDG",
    "SEK",
    "SGD",
    "SHP",
    "SLE",
    "SOS",
    "SRD",
    "SSP",
    "STN",
    "SVC",
    "SYP",
    "SZL",
    "THB",
    "TJS",
    "TMT",
    "TOP",
    "TRY",
    "TTD",
    "TWD",
    "TZS",
    "UAH",
    "USD",
    "UYU",
    "UZS",
    "VES",
    "WST",
    "XCD",
    "YER",
    "ZAR",
    "ZMW",
    "ZWG",
]
CURRENCY_EXPONENTS: dict[str, int] = dict.fromkeys(_TWO_DECIMALS, 2) | _EXPONENTS


# The one text format of a decimal: ASCII digits, an optional leading minus, an optional
# fraction; no plus sign, no spaces, no ``_`` separators, no exponent, no leading zeros.
_DECIMAL_TEXT = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?", re.ASCII)
# Digits any decimal from outside may have before, and after, the point: far past any real
# amount, quantity or percentage, and small enough that no arithmetic on it overflows.
DECIMAL_DIGITS_MAX = 18
# Every amount a caller gives (a charge, a capture or refund, a price, an invoice's total)
# is below this, in the currency's major unit: exact in the database's NUMERIC(20,4).
AMOUNT_LIMIT = Decimal(10) ** 12


def decimal_fault(value: Decimal) -> str | None:
    """Why ``value`` cannot be taken from a caller, or ``None``: it must be finite, not a
    negative zero, with at most ``DECIMAL_DIGITS_MAX`` digits before and after the point."""
    if not value.is_finite():
        return "must be a finite number (not NaN or Infinity)"
    sign, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int)  # finite
    if sign and not value:
        return "must not be a negative zero"
    if exponent < -DECIMAL_DIGITS_MAX:
        return f"has more than {DECIMAL_DIGITS_MAX} digits after the decimal point"
    if value and len(digits) + exponent > DECIMAL_DIGITS_MAX:
        return f"has more than {DECIMAL_DIGITS_MAX} digits before the decimal point"
    return None


def parse_decimal(text: str, field: str = "amount") -> Decimal:
    """The one way payhub reads a decimal written as text: ``1234.50``, ``-3``, ``0.5``.

    Refused (400): ``1_000``, ``+5``, `` 5``, ``1e3``, ``.5``, ``05``, non-ASCII
    digits, ``NaN``, ``-0.00``, and more digits than ``DECIMAL_DIGITS_MAX``."""
    if not _DECIMAL_TEXT.fullmatch(text):
        raise ValidationError.for_field(
            field,
            "must be a decimal number written like 1234.50: ASCII digits, an optional"
            " leading minus and decimal point, no spaces, signs, separators or exponent",
        )
    value = Decimal(text)
    fault = decimal_fault(value)
    if fault:
        raise ValidationError.for_field(field, fault)
    return value


def amount_ceiling(currency: str) -> Decimal:
    """The largest amount payhub takes in ``currency``: ``AMOUNT_LIMIT`` less one minor unit."""
    return AMOUNT_LIMIT - _quantum(currency)


def check_ceiling(amount: Decimal, currency: str, field: str = "amount") -> None:
    """Refuse an amount past ``amount_ceiling`` (either sign)."""
    if abs(amount) > amount_ceiling(currency):
        raise ValidationError.for_field(
            field, f"must be at most {amount_ceiling(currency)} {currency}"
        )


def minor_unit_exponent(currency: str) -> int:
    """Digits after the decimal point for ``currency`` (USD 2, JPY 0, KWD 3)."""
    try:
        return CURRENCY_EXPONENTS[currency]
    except KeyError:
        raise ValidationError.for_field(
            "currency", f"'{currency}' is not an ISO 4217 currency code payhub supports"
        ) from None


def _quantum(currency: str) -> Decimal:
    return Decimal(1).scaleb(-minor_unit_exponent(currency))


def round_half_up(amount: Decimal, currency: str) -> Decimal:
    """The one rounding rule: half-up to the currency's minor unit."""
    return amount.quantize(_quantum(currency), rounding=ROUND_HALF_UP)


def check_precision(amount: Decimal, currency: str, field: str = "amount") -> Decimal:
    """Refuse an amount with more decimals than the currency has; return it quantized."""
    try:
        exact = amount.quantize(_quantum(currency))
    except InvalidOperation:
        raise ValidationError.for_field(field, "is not a finite decimal number") from None
    if not amount.is_finite() or exact != amount:
        digits = minor_unit_exponent(currency)
        raise ValidationError.for_field(
            field, f"has more than {digits} decimal places, the precision of {currency}"
        )
    return exact


@attrs.frozen(order=False)
class Money:
    """An amount in a currency, always at the currency's minor-unit precision."""

    amount: Decimal
    currency: str

    @classmethod
    def of(cls, amount: Decimal | int | str, currency: str, field: str = "amount") -> Money:
        """Build from caller input: refuses non-numbers, excess precision and amounts past
        ``amount_ceiling``; never rounds."""
        currency = currency.strip().upper() if isinstance(currency, str) else currency
        minor_unit_exponent(currency)
        try:
            value = amount if isinstance(amount, Decimal) else Decimal(amount)
        except (InvalidOperation, TypeError, ValueError):
            raise ValidationError.for_field(field, "is not a decimal number") from None
        exact = check_precision(value, currency, field)
        check_ceiling(exact, currency, field)
        return cls(exact, currency)

    @classmethod
    def zero(cls, currency: str) -> Money:
        return cls(round_half_up(Decimal(0), currency), currency)

    def require_positive(self, field: str = "amount") -> Money:
        if self.amount <= 0:
            raise ValidationError.for_field(field, "must be more than zero")
        return self

    def _same(self, other: Money) -> None:
        if other.currency != self.currency:
            raise ValidationError(f"cannot combine {self.currency} with {other.currency}")

    def __add__(self, other: Money) -> Money:
        self._same(other)
        return Money(self.amount + other.amount, self.currency)

    def __sub__(self, other: Money) -> Money:
        self._same(other)
        return Money(self.amount - other.amount, self.currency)

    def __lt__(self, other: Money) -> bool:
        self._same(other)
        return self.amount < other.amount

    def __le__(self, other: Money) -> bool:
        self._same(other)
        return self.amount <= other.amount

    def __gt__(self, other: Money) -> bool:
        self._same(other)
        return self.amount > other.amount

    def __ge__(self, other: Money) -> bool:
        self._same(other)
        return self.amount >= other.amount

    def times(self, factor: Decimal) -> Money:
        """Multiply and round half-up once (quantity x price, rate x base)."""
        return Money(round_half_up(self.amount * factor, self.currency), self.currency)

    @property
    def minor_units(self) -> int:
        """The amount as an integer count of minor units (cents), as most gateways want it."""
        return int(self.amount.scaleb(minor_unit_exponent(self.currency)))

    @classmethod
    def from_minor_units(cls, units: int, currency: str) -> Money:
        return cls(Decimal(units).scaleb(-minor_unit_exponent(currency)), currency)

    def __str__(self) -> str:
        return f"{self.amount} {self.currency}"


_SYMBOLS = {"USD": "$"}


def format_money(m: Money) -> str:
    """The one way people read an amount (pages, receipts, CLI listings): ``$1,234.50`` for
    dollars, ``EUR 1,234.50`` for other currencies, ``-$5.00`` below zero; always the
    currency's minor-unit digits."""
    exp = minor_unit_exponent(m.currency)
    sign = "-" if m.amount < 0 else ""
    digits = f"{abs(m.amount):,.{exp}f}"
    symbol = _SYMBOLS.get(m.currency)
    return f"{sign}{symbol}{digits}" if symbol else f"{sign}{m.currency} {digits}"
