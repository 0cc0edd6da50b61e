"""The catalog of one merchant: products, product categories and named tax rates.

Nothing here is ever deleted; deactivate and activate instead. Duplicates (a product's SKU,
a category's name) are checked first so the 409 names the record already holding the value,
and the database's unique index settles concurrent requests.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from decimal import Decimal
from typing import Any, Protocol

import attrs

from payhub.domain.catalog import (
    Category,
    Product,
    ProductKind,
    check_sort_order,
    clean_category_name,
    clean_color,
    clean_description,
    clean_product_name,
    clean_sku,
    clean_unit_price,
)
from payhub.domain.errors import Conflict, FieldError, NotFound, ValidationError
from payhub.domain.fields import raise_if_any
from payhub.domain.money import Money
from payhub.domain.taxes import (
    TaxRate,
    TaxSuggestion,
    clean_percent,
    clean_postal_code,
    clean_tax_name,
    suggest,
)
from payhub.ports import UnitOfWork
from payhub.services.auth import Caller
from payhub.services.deps import Deps
from payhub.services.edits import KEEP, Keep
from payhub.services.merchants import find_merchant
from payhub.services.paging import Page, check_cursor, check_limit, page_of

DEFAULT_CURRENCY = "USD"


class _Switchable(Protocol):
    active: bool
    updated_at: datetime


class _MerchantService:
    def __init__(self, deps: Deps, caller: Caller, reference: str) -> None:
        self._d = deps
        self._caller = caller
        self._reference = reference

    def _merchant_id(self, uow: UnitOfWork) -> str:
        return find_merchant(uow, self._caller, self._reference).id

    def _switch(self, record: _Switchable, active: bool, save: Callable[[Any], None]) -> None:
        """Switch a record on or off; switching it to the state it is in changes nothing."""
        if record.active != active:
            record.active = active
            record.updated_at = self._d.clock.now()
            save(record)


# --- products ------------------------------------------------------------------------------


@attrs.frozen
class ProductInput:
    """A product as sent on create or replace. ``category_id`` left out (``KEEP``) keeps the
    current category on replace and means none on create."""

    name: str
    unit_price: Decimal
    currency: str = DEFAULT_CURRENCY
    sku: str | None = None
    description: str | None = None
    kind: ProductKind = ProductKind.SERVICE
    taxable: bool = True
    category_id: str | Keep | None = KEEP


@attrs.frozen
class _CleanProduct:
    name: str
    sku: str | None
    description: str | None
    price: Money


def _check_category(uow: UnitOfWork, merchant_id: str, category_id: str | None) -> None:
    if category_id is None:
        return
    category = uow.categories.get(merchant_id, category_id)
    if category is None:
        raise ValidationError.for_field("categoryId", "is not a category of this merchant")
    if not category.active:
        raise Conflict(f"category '{category_id}' is inactive; activate it first")


class Products(_MerchantService):
    @staticmethod
    def _clean(given: ProductInput) -> _CleanProduct:
        errors: list[FieldError] = []
        name = clean_product_name(given.name, errors)
        sku = clean_sku(given.sku, errors)
        description = clean_description(given.description, errors)
        price = clean_unit_price(given.unit_price, given.currency, errors)
        raise_if_any(errors)
        assert price is not None
        return _CleanProduct(name, sku, description, price)

    @staticmethod
    def _check_sku(uow: UnitOfWork, merchant_id: str, sku: str | None, own: str | None) -> None:
        if sku is None:
            return
        holder = uow.products.get_by_sku(merchant_id, sku)
        if holder is not None and holder.id != own:
            raise Conflict(f"product '{holder.id}' already has the sku '{holder.sku}'")

    @staticmethod
    def _get(uow: UnitOfWork, merchant_id: str, product_id: str) -> Product:
        product = uow.products.get(merchant_id, product_id)
        if product is None:
            raise NotFound(f"no product '{product_id}' for this merchant")
        return product

    def create(self, given: ProductInput) -> Product:
        clean = self._clean(given)
        category_id = None if given.category_id is KEEP else given.category_id
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            merchant_id = self._merchant_id(uow)
            _check_category(uow, merchant_id, category_id)
            self._check_sku(uow, merchant_id, clean.sku, None)
            product = Product(
                id=self._d.new_id("prod"),
                merchant_id=merchant_id,
                name=clean.name,
                sku=clean.sku,
                description=clean.description,
                unit_price=clean.price,
                kind=given.kind,
                taxable=given.taxable,
                category_id=category_id,
                active=True,
                created_at=now,
                updated_at=now,
            )
            uow.products.add(product)
            return product

    def replace(self, product_id: str, given: ProductInput) -> Product:
        """Every field replaced, except the category when ``categoryId`` is left out."""
        clean = self._clean(given)
        with self._d.store.unit_of_work() as uow:
            merchant_id = self._merchant_id(uow)
            product = self._get(uow, merchant_id, product_id)
            if given.category_id is not KEEP and given.category_id != product.category_id:
                _check_category(uow, merchant_id, given.category_id)
                product.category_id = given.category_id
            self._check_sku(uow, merchant_id, clean.sku, product.id)
            product.name = clean.name
            product.sku = clean.sku
            product.description = clean.description
            product.unit_price = clean.price
            product.kind = given.kind
            product.taxable = given.taxable
            product.updated_at = self._d.clock.now()
            uow.products.save(product)
            return product

    def get(self, product_id: str) -> Product:
        with self._d.store.unit_of_work(readonly=True) as uow:
            return self._get(uow, self._merchant_id(uow), product_id)

    def list(
        self,
        after: str | None = None,
        limit: int = 50,
        category_id: str | None = None,
        include_inactive: bool = False,
    ) -> Page[Product]:
        check_limit(limit)
        with self._d.store.unit_of_work(readonly=True) as uow:
            merchant_id = self._merchant_id(uow)
            rows = uow.products.list(merchant_id, after, limit + 1, category_id, include_inactive)
            if after is not None and not rows:
                check_cursor(uow.products.get(merchant_id, after) is not None)
        return page_of(rows, limit, lambda p: p.id)

    def set_active(self, product_id: str, active: bool) -> Product:
        """Deactivate or activate; doing it twice is harmless."""
        with self._d.store.unit_of_work() as uow:
            product = self._get(uow, self._merchant_id(uow), product_id)
            self._switch(product, active, uow.products.save)
            return product

    def set_category(self, product_id: str, category_id: str | None) -> Product:
        with self._d.store.unit_of_work() as uow:
            merchant_id = self._merchant_id(uow)
            product = self._get(uow, merchant_id, product_id)
            if category_id != product.category_id:
                _check_category(uow, merchant_id, category_id)
                product.category_id = category_id
                product.updated_at = self._d.clock.now()
                uow.products.save(product)
            return product


# --- categories ----------------------------------------------------------------------------


class Categories(_MerchantService):
    @staticmethod
    def _clean(name: str, color: str | None, sort_order: int) -> tuple[str, str | None]:
        errors: list[FieldError] = []
        clean_name = clean_category_name(name, errors)
        clean = clean_color(color, errors)
        check_sort_order(sort_order, errors)
        raise_if_any(errors)
        return clean_name, clean

    @staticmethod
    def _check_name(uow: UnitOfWork, merchant_id: str, name: str, own: str | None) -> None:
        holder = uow.categories.get_by_name(merchant_id, name)
        if holder is not None and holder.id != own:
            state = "" if holder.active else ", inactive: activate it instead"
            raise Conflict(f"category '{holder.id}' is already named '{holder.name}'{state}")

    @staticmethod
    def _get(uow: UnitOfWork, merchant_id: str, category_id: str) -> Category:
        category = uow.categories.get(merchant_id, category_id)
        if category is None:
            raise NotFound(f"no product category '{category_id}' for this merchant")
        return category

    def create(self, name: str, color: str | None = None, sort_order: int = 0) -> Category:
        clean_name, clean_color_ = self._clean(name, color, sort_order)
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            merchant_id = self._merchant_id(uow)
            self._check_name(uow, merchant_id, clean_name, None)
            category = Category(
                id=self._d.new_id("cat"),
                merchant_id=merchant_id,
                name=clean_name,
                color=clean_color_,
                sort_order=sort_order,
                active=True,
                created_at=now,
                updated_at=now,
            )
            uow.categories.add(category)
            return category

    def replace(
        self, category_id: str, name: str, color: str | None = None, sort_order: int = 0
    ) -> Category:
        """Rename, recolor and reorder: every field replaced (a left-out color is cleared)."""
        clean_name, clean_color_ = self._clean(name, color, sort_order)
        with self._d.store.unit_of_work() as uow:
            merchant_id = self._merchant_id(uow)
            category = self._get(uow, merchant_id, category_id)
            self._check_name(uow, merchant_id, clean_name, category.id)
            category.name = clean_name
            category.color = clean_color_
            category.sort_order = sort_order
            category.updated_at = self._d.clock.now()
            uow.categories.save(category)
            return category

    def get(self, category_id: str) -> Category:
        with self._d.store.unit_of_work(readonly=True) as uow:
            return self._get(uow, self._merchant_id(uow), category_id)

    def list(
        self, after: str | None = None, limit: int = 50, include_inactive: bool = False
    ) -> Page[Category]:
        check_limit(limit)
        with self._d.store.unit_of_work(readonly=True) as uow:
            merchant_id = self._merchant_id(uow)
            rows = uow.categories.list(merchant_id, after, limit + 1, include_inactive)
            if after is not None and not rows:
                check_cursor(uow.categories.get(merchant_id, after) is not None)
        return page_of(rows, limit, lambda c: c.id)

    def set_active(self, category_id: str, active: bool) -> Category:
        """Deactivate or activate; products keep their category either way."""
        with self._d.store.unit_of_work() as uow:
            category = self._get(uow, self._merchant_id(uow), category_id)
            self._switch(category, active, uow.categories.save)
            return category


# --- tax rates -----------------------------------------------------------------------------


@attrs.frozen
class TaxRateView:
    rate: TaxRate
    is_default: bool


@attrs.frozen
class ObservedPage:
    automatic_sales_tax: bool
    page: Page[TaxSuggestion]


class TaxRates(_MerchantService):
    @staticmethod
    def _clean(name: str, percent: Decimal) -> tuple[str, Decimal]:
        errors: list[FieldError] = []
        clean_name = clean_tax_name(name, errors)
        clean = clean_percent(percent, errors)
        raise_if_any(errors)
        return clean_name, clean

    @staticmethod
    def _get(uow: UnitOfWork, merchant_id: str, tax_rate_id: str) -> TaxRate:
        rate = uow.tax_rates.get(merchant_id, tax_rate_id)
        if rate is None:
            raise NotFound(f"no tax rate '{tax_rate_id}' for this merchant")
        return rate

    @staticmethod
    def _view(uow: UnitOfWork, rate: TaxRate) -> TaxRateView:
        default = uow.tax_rates.settings(rate.merchant_id).default_tax_rate_id
        return TaxRateView(rate, rate.id == default)

    def create(self, name: str, percent: Decimal, is_default: bool = False) -> TaxRateView:
        clean_name, clean = self._clean(name, percent)
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            merchant_id = self._merchant_id(uow)
            rate = TaxRate(
                id=self._d.new_id("txr"),
                merchant_id=merchant_id,
                name=clean_name,
                percent=clean,
                active=True,
                created_at=now,
                updated_at=now,
            )
            uow.tax_rates.add(rate)
            if is_default:
                uow.tax_rates.set_default(merchant_id, rate.id, now)
            return self._view(uow, rate)

    def replace(self, tax_rate_id: str, name: str, percent: Decimal) -> TaxRateView:
        """Rename and change the percentage; invoices already made keep the old one."""
        clean_name, clean = self._clean(name, percent)
        with self._d.store.unit_of_work() as uow:
            rate = self._get(uow, self._merchant_id(uow), tax_rate_id)
            rate.name = clean_name
            rate.percent = clean
            rate.updated_at = self._d.clock.now()
            uow.tax_rates.save(rate)
            return self._view(uow, rate)

    def get(self, tax_rate_id: str) -> TaxRateView:
        with self._d.store.unit_of_work(readonly=True) as uow:
            return self._view(uow, self._get(uow, self._merchant_id(uow), tax_rate_id))

    def list(
        self, after: str | None = None, limit: int = 50, include_inactive: bool = False
    ) -> Page[TaxRateView]:
        check_limit(limit)
        with self._d.store.unit_of_work(readonly=True) as uow:
            merchant_id = self._merchant_id(uow)
            rows = uow.tax_rates.list(merchant_id, after, limit + 1, include_inactive)
            if after is not None and not rows:
                check_cursor(uow.tax_rates.get(merchant_id, after) is not None)
            default = uow.tax_rates.settings(merchant_id).default_tax_rate_id
        page = page_of(rows, limit, lambda r: r.id)
        views = [TaxRateView(r, r.id == default) for r in page.items]
        return Page(views, page.has_more, page.next_cursor)

    def set_active(self, tax_rate_id: str, active: bool) -> TaxRateView:
        """Deactivate or activate. Deactivating the default rate leaves no default."""
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            merchant_id = self._merchant_id(uow)
            rate = self._get(uow, merchant_id, tax_rate_id)
            self._switch(rate, active, uow.tax_rates.save)
            if not active and uow.tax_rates.settings(merchant_id).default_tax_rate_id == rate.id:
                uow.tax_rates.set_default(merchant_id, None, now)
            return self._view(uow, rate)

    def make_default(self, tax_rate_id: str) -> TaxRateView:
        """The merchant's one default rate; the previous default stops being it."""
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            merchant_id = self._merchant_id(uow)
            rate = self._get(uow, merchant_id, tax_rate_id)
            if not rate.active:
                raise Conflict(f"tax rate '{rate.id}' is inactive; activate it first")
            uow.tax_rates.set_default(merchant_id, rate.id, now)
            return TaxRateView(rate, True)

    def suggestion(self, postal_code: str) -> TaxSuggestion:
        """What the accounting system last computed for the postal code (advice only)."""
        errors: list[FieldError] = []
        code = clean_postal_code(postal_code, errors)
        raise_if_any(errors)
        with self._d.store.unit_of_work(readonly=True) as uow:
            observed = uow.tax_rates.newest_observed(self._merchant_id(uow), code)
        return suggest(observed, self._d.clock.now())

    def observed(self, after: str | None = None, limit: int = 50) -> ObservedPage:
        """The newest observed rate per postal code, and the automatic-sales-tax flag."""
        check_limit(limit)
        with self._d.store.unit_of_work(readonly=True) as uow:
            merchant_id = self._merchant_id(uow)
            automatic = uow.tax_rates.settings(merchant_id).automatic_sales_tax
            rows = uow.tax_rates.observed(merchant_id, after, limit + 1)
        page = page_of(rows, limit, lambda o: o.postal_code)
        now = self._d.clock.now()
        suggestions = [suggest(o, now) for o in page.items]
        return ObservedPage(automatic, Page(suggestions, page.has_more, page.next_cursor))
