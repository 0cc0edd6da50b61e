"""Reading the merchant pages' forms (catalog, schedules, register) into service inputs, and
the services' field errors back onto the forms. Nothing here decides a rule: the services do.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal

from payhub.domain.addresses import Address
from payhub.domain.errors import FieldError, ValidationError
from payhub.domain.money import parse_decimal


def field_errors(error: ValidationError, names: dict[str, str] | None = None) -> dict[str, str]:
    """``{form field: message}``; the API's field names (``unitPrice``) renamed to the form's
    where they differ, the rest under ``form``."""
    names = names or {}
    found: dict[str, str] = {}
    for f in error.fields:
        key = names.get(f.field, f.field)
        found.setdefault(key, f"{_label(f.field)} {f.message}")
    return found or {"form": error.detail}


def _label(field: str) -> str:
    """``billToAddress.postalCode`` -> ``Bill-to postal code``: the words a person reads."""
    words = {
        "billToAddress": "Bill-to",
        "shipToAddress": "Ship-to",
        "address": "Address",
        "line1": "line 1",
        "line2": "line 2",
        "postalCode": "postal code",
        "unitPrice": "Unit price",
        "sortOrder": "Order",
        "shortCode": "Short code",
        "taxRateId": "Tax rate",
        "taxRatePercent": "Tax percent",
        "nextRunAtUtc": "Next run",
        "endDate": "End date",
        "maxCharges": "Most charges",
        "paymentMethodId": "Payment method",
        "lineItems": "Lines",
    }
    parts = [words.get(p, p) for p in field.replace("[", ".").replace("]", "").split(".")]
    text = " ".join(parts).strip()
    return text[:1].upper() + text[1:]


def decimal_of(form: dict[str, str], name: str, errors: list[FieldError]) -> Decimal | None:
    text = form.get(name, "").strip().replace(",", "")
    if not text:
        errors.append(FieldError(name, "is required"))
        return None
    try:
        return parse_decimal(text, name)
    except ValidationError as e:
        errors.extend(e.fields)
        return None


def int_of(
    form: dict[str, str], name: str, errors: list[FieldError], default: int | None = None
) -> int | None:
    text = form.get(name, "").strip()
    if not text:
        return default
    if not text.lstrip("-").isascii() or not text.lstrip("-").isdigit() or len(text) > 9:
        errors.append(FieldError(name, "must be a whole number"))
        return default
    return int(text)


def date_of(form: dict[str, str], name: str, errors: list[FieldError]) -> date | None:
    text = form.get(name, "").strip()
    if not text:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        errors.append(FieldError(name, "must be a date (YYYY-MM-DD)"))
        return None


def text_of(form: dict[str, str], name: str) -> str | None:
    text = form.get(name, "").strip()
    return text or None


ADDRESS_PARTS = ("line1", "line2", "city", "state", "postalCode", "country")


def address_of(form: dict[str, str], prefix: str) -> Address | None:
    """``<prefix>-line1`` … ``<prefix>-country``; all blank is no address."""
    values = {part: text_of(form, f"{prefix}-{part}") for part in ADDRESS_PARTS}
    if not any(values.values()):
        return None
    return Address(
        line1=values["line1"],
        line2=values["line2"],
        city=values["city"],
        state=values["state"],
        postal_code=values["postalCode"],
        country=values["country"],
    )


def address_fields(address: Address | None) -> dict[str, str]:
    """An address as the form's values (``line1`` … ``postalCode`` …)."""
    if address is None:
        return dict.fromkeys(ADDRESS_PARTS, "")
    return {
        "line1": address.line1 or "",
        "line2": address.line2 or "",
        "city": address.city or "",
        "state": address.state or "",
        "postalCode": address.postal_code or "",
        "country": address.country or "",
    }


def raise_if(errors: list[FieldError]) -> None:
    if errors:
        raise ValidationError("some fields need attention", errors)


# --- category colours (the CSP forbids inline styles: one stylesheet per merchant) -----------


def _channel(value: int) -> float:
    c = value / 255
    return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4


def luminance(color: str) -> float:
    """WCAG relative luminance of ``#RRGGBB``."""
    r, g, b = (int(color[i : i + 2], 16) for i in (1, 3, 5))
    return 0.2126 * _channel(r) + 0.7152 * _channel(g) + 0.0722 * _channel(b)


def contrast(a: float, b: float) -> float:
    hi, lo = max(a, b), min(a, b)
    return (hi + 0.05) / (lo + 0.05)


def text_on(color: str) -> str:
    """Black or white, whichever reads better on ``color`` (one of them always reaches
    4.5:1, WCAG AA)."""
    lum = luminance(color)
    return "#000000" if contrast(lum, 0.0) >= contrast(lum, 1.0) else "#ffffff"


NEUTRAL = "#e8eaed"


def colour_css(colours: list[tuple[str, str | None]]) -> str:
    """``.cat-<id>`` rules (background, readable text) for each ``(category id, #RRGGBB)``."""
    rules = []
    for category_id, colour in colours:
        safe = "".join(c for c in category_id if c.isalnum() or c in "_-")
        background = colour if colour and len(colour) == 7 else NEUTRAL
        rules.append(
            f".cat-{safe}{{background:{background};color:{text_on(background)};"
            f"border-color:{text_on(background)}}}"
        )
    return "\n".join(rules) + "\n"
