"""The product catalog: products and their (flat) categories.

Rules (spec: Product, Product category):

- Nothing is deleted: products and categories are deactivated and re-activated.
- Stock is never tracked; ``kind`` only decides which accounting item type is created.
- A product's SKU is unique per merchant, compared trimmed and case-insensitively.
- A category name is 1 to 100 characters without a colon (400), unique per merchant
  trimmed and case-insensitively (409, inactive categories included); a color is
  ``#RRGGBB`` (stored upper-case).
"""

from __future__ import annotations

import re
from datetime import datetime
from decimal import Decimal
from enum import StrEnum

import attrs

from payhub.domain.errors import FieldError, ValidationError
from payhub.domain.fields import clean_text
from payhub.domain.money import Money

PRODUCT_NAME_MAX = 100
DESCRIPTION_MAX = 4000
SKU_MAX = 100
CATEGORY_NAME_MAX = 100
SORT_ORDER_MIN = -1_000_000
SORT_ORDER_MAX = 1_000_000
UNIT_PRICE_MAX = Decimal("999999999999")
_COLOR = re.compile(r"^#[0-9A-Fa-f]{6}$")


class ProductKind(StrEnum):
    SERVICE = "Service"
    NON_INVENTORY = "NonInventory"
    INVENTORY = "Inventory"


@attrs.define
class Product:
    id: str
    merchant_id: str
    name: str
    sku: str | None
    description: str | None
    unit_price: Money
    kind: ProductKind
    taxable: bool
    category_id: str | None
    active: bool
    created_at: datetime
    updated_at: datetime
    accounting_item_ref: str | None = None  # set by the accounting integration when linked

    @property
    def accounting_item_linked(self) -> bool:
        return self.accounting_item_ref is not None


@attrs.define
class Category:
    id: str
    merchant_id: str
    name: str
    color: str | None
    sort_order: int
    active: bool
    created_at: datetime
    updated_at: datetime


def name_key(name: str) -> str:
    """What makes two names the same: trimmed, case-insensitive (Unicode case folding)."""
    return name.strip().casefold()


def clean_category_name(value: str, errors: list[FieldError], field: str = "name") -> str:
    name = clean_text(value, field, CATEGORY_NAME_MAX, errors)
    if name is None:
        errors.append(FieldError(field, "must not be blank"))
        return ""
    if ":" in name:
        errors.append(FieldError(field, "must not contain a colon"))
    return name


def clean_color(value: str | None, errors: list[FieldError], field: str = "color") -> str | None:
    if value is None or not value.strip():
        return None
    if not _COLOR.match(value.strip()):
        errors.append(FieldError(field, "must be a color in the form #RRGGBB"))
        return None
    return value.strip().upper()


def check_sort_order(value: int, errors: list[FieldError], field: str = "sortOrder") -> int:
    if not SORT_ORDER_MIN <= value <= SORT_ORDER_MAX:
        errors.append(FieldError(field, f"must be between {SORT_ORDER_MIN} and {SORT_ORDER_MAX}"))
    return value


def clean_product_name(value: str, errors: list[FieldError], field: str = "name") -> str:
    name = clean_text(value, field, PRODUCT_NAME_MAX, errors)
    if name is None:
        errors.append(FieldError(field, "must not be blank"))
        return ""
    return name


def clean_sku(value: str | None, errors: list[FieldError], field: str = "sku") -> str | None:
    return clean_text(value, field, SKU_MAX, errors)


def clean_description(value: str | None, errors: list[FieldError]) -> str | None:
    return clean_text(value, "description", DESCRIPTION_MAX, errors)


def clean_unit_price(
    value: Decimal, currency: str, errors: list[FieldError], field: str = "unitPrice"
) -> Money | None:
    """Zero or more, at the currency's precision (never rounded), below a sanity cap."""
    try:
        price = Money.of(value, currency, field=field)
    except ValidationError as e:
        errors.extend(
            FieldError("currency" if f.field == "currency" else field, f.message) for f in e.fields
        )
        return None
    if price.amount < 0:
        errors.append(FieldError(field, "must not be negative"))
    elif price.amount > UNIT_PRICE_MAX:
        errors.append(FieldError(field, f"must be at most {UNIT_PRICE_MAX}"))
    return price
