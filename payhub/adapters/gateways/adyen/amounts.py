"""Adyen's ``{currency, value}`` amounts, in minor units by ISO 4217 exponents, both ways."""

from __future__ import annotations

from decimal import Decimal

from payhub.domain.errors import ValidationError
from payhub.domain.money import Money, minor_unit_exponent


def adyen_amount(money: Money) -> dict[str, object]:
    """Adyen's ``{currency, value}`` with ``value`` in minor units (ISO 4217 exponents)."""
    scaled = money.amount.scaleb(minor_unit_exponent(money.currency))
    if scaled != scaled.to_integral_value():
        raise ValidationError.for_field(
            "amount", f"Adyen charges {money.currency} in its minor unit only"
        )
    return {"currency": money.currency, "value": int(scaled)}


def adyen_money(raw: object) -> Money | None:
    """An amount Adyen sent, or None when it is missing or not one."""
    if not isinstance(raw, dict):
        return None
    currency, value = raw.get("currency"), raw.get("value")
    if not isinstance(currency, str) or not isinstance(value, int) or isinstance(value, bool):
        return None
    try:
        return Money.of(Decimal(value).scaleb(-minor_unit_exponent(currency)), currency)
    except (ValueError, ValidationError):
        return None
