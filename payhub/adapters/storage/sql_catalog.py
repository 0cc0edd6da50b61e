"""Products, categories, tax rates, locations and registers, in shared SQL.

Same conventions as ``sql.py``; the tables are ``RecordTable``s (``sql_records``).
Alphabetical lists sort on a stored ``name_key`` (the case-folded name, computed in Python so
SQLite and PostgreSQL agree), then on the id.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from datetime import datetime
from decimal import Decimal
from typing import Any

from payhub.adapters.storage.sql import Row, _Repo, to_decimal, to_dt
from payhub.adapters.storage.sql_records import RecordTable
from payhub.domain.addresses import Address
from payhub.domain.catalog import Category, Product, ProductKind, name_key
from payhub.domain.errors import Conflict
from payhub.domain.locations import Location, LocationSettings, Register
from payhub.domain.money import Money, round_half_up
from payhub.domain.taxes import (
    Jurisdiction,
    ObservedTaxRate,
    TaxRate,
    TaxSettings,
    canonical_percent,
)


class SqlProducts(RecordTable[Product]):
    TABLE = "products"
    COLUMNS = (
        "id",
        "merchant_id",
        "name",
        "name_key",
        "sku",
        "sku_key",
        "description",
        "currency",
        "unit_price",
        "kind",
        "taxable",
        "category_id",
        "active",
        "accounting_item_ref",
        "created_at",
        "updated_at",
    )

    def _params(self, p: Product) -> dict[str, Any]:
        return {
            "id": p.id,
            "merchant_id": p.merchant_id,
            "name": p.name,
            "name_key": name_key(p.name),
            "sku": p.sku,
            "sku_key": name_key(p.sku) if p.sku else None,
            "description": p.description,
            "currency": p.unit_price.currency,
            "unit_price": p.unit_price.amount,
            "kind": p.kind.value,
            "taxable": p.taxable,
            "category_id": p.category_id,
            "active": p.active,
            "accounting_item_ref": p.accounting_item_ref,
            "created_at": p.created_at,
            "updated_at": p.updated_at,
        }

    def _load(self, r: Row) -> Product:
        currency = r["currency"]
        return Product(
            id=r["id"],
            merchant_id=r["merchant_id"],
            name=r["name"],
            sku=r["sku"],
            description=r["description"],
            # PostgreSQL keeps four places: back to the currency's own precision.
            unit_price=Money(round_half_up(to_decimal(r["unit_price"]), currency), currency),
            kind=ProductKind(r["kind"]),
            taxable=bool(r["taxable"]),
            category_id=r["category_id"],
            active=bool(r["active"]),
            accounting_item_ref=r["accounting_item_ref"],
            created_at=to_dt(r["created_at"]),
            updated_at=to_dt(r["updated_at"]),
        )

    def _duplicate(self, p: Product) -> Conflict:
        return Conflict(f"the merchant has a product with sku '{p.sku}'")

    def get_by_sku(self, merchant_id: str, sku: str) -> Product | None:
        return self._first("sku_key = :k", m=merchant_id, k=name_key(sku))

    def list(
        self,
        merchant_id: str,
        after: str | None = None,
        limit: int = 50,
        category_id: str | None = None,
        include_inactive: bool = False,
    ) -> list[Product]:
        if category_id is None:
            return self._listing(merchant_id, after, limit, include_inactive)
        return self._listing(
            merchant_id,
            after,
            limit,
            include_inactive,
            where=" AND category_id = :cat",
            params={"cat": category_id},
        )


class SqlCategories(RecordTable[Category]):
    TABLE = "product_categories"
    COLUMNS = (
        "id",
        "merchant_id",
        "name",
        "name_key",
        "color",
        "sort_order",
        "active",
        "created_at",
        "updated_at",
    )

    def _params(self, c: Category) -> dict[str, Any]:
        return {
            "id": c.id,
            "merchant_id": c.merchant_id,
            "name": c.name,
            "name_key": name_key(c.name),
            "color": c.color,
            "sort_order": c.sort_order,
            "active": c.active,
            "created_at": c.created_at,
            "updated_at": c.updated_at,
        }

    def _load(self, r: Row) -> Category:
        return Category(
            id=r["id"],
            merchant_id=r["merchant_id"],
            name=r["name"],
            color=r["color"],
            sort_order=int(r["sort_order"]),
            active=bool(r["active"]),
            created_at=to_dt(r["created_at"]),
            updated_at=to_dt(r["updated_at"]),
        )

    def _duplicate(self, c: Category) -> Conflict:
        return Conflict(f"the merchant has a category named '{c.name}'")

    def get_by_name(self, merchant_id: str, name: str) -> Category | None:
        return self._first("name_key = :k", m=merchant_id, k=name_key(name))

    def list(
        self,
        merchant_id: str,
        after: str | None = None,
        limit: int = 50,
        include_inactive: bool = False,
    ) -> list[Category]:
        return self._listing(
            merchant_id, after, limit, include_inactive, "sort_order, name_key, id"
        )


class SqlTaxRates(RecordTable[TaxRate]):
    TABLE = "tax_rates"
    COLUMNS = (
        "id",
        "merchant_id",
        "name",
        "name_key",
        "percent",
        "active",
        "created_at",
        "updated_at",
    )

    def _params(self, t: TaxRate) -> dict[str, Any]:
        return {
            "id": t.id,
            "merchant_id": t.merchant_id,
            "name": t.name,
            "name_key": name_key(t.name),
            "percent": t.percent,
            "active": t.active,
            "created_at": t.created_at,
            "updated_at": t.updated_at,
        }

    def _load(self, r: Row) -> TaxRate:
        return TaxRate(
            id=r["id"],
            merchant_id=r["merchant_id"],
            name=r["name"],
            percent=canonical_percent(to_decimal(r["percent"])),
            active=bool(r["active"]),
            created_at=to_dt(r["created_at"]),
            updated_at=to_dt(r["updated_at"]),
        )

    def _duplicate(self, t: TaxRate) -> Conflict:
        return Conflict(f"a tax rate '{t.id}' exists")

    def active_ids(self, merchant_id: str, ids: Collection[str]) -> set[str]:
        return self._active_ids(merchant_id, ids)

    def settings(self, merchant_id: str) -> TaxSettings:
        row = self._one("SELECT * FROM tax_settings WHERE merchant_id = :m", m=merchant_id)
        if row is None:
            return TaxSettings()
        return TaxSettings(row["default_tax_rate_id"], bool(row["automatic_sales_tax"]))

    def set_default(self, merchant_id: str, tax_rate_id: str | None, at: datetime) -> None:
        self.db.execute(
            "INSERT INTO tax_settings (merchant_id, default_tax_rate_id, automatic_sales_tax,"
            " updated_at) VALUES (:m, :rate, :off, :at) ON CONFLICT (merchant_id) DO UPDATE"
            " SET default_tax_rate_id = excluded.default_tax_rate_id,"
            " updated_at = excluded.updated_at",
            {"m": merchant_id, "rate": tax_rate_id, "off": False, "at": at},
        )

    def set_automatic_sales_tax(self, merchant_id: str, on: bool, at: datetime) -> None:
        self.db.execute(
            "INSERT INTO tax_settings (merchant_id, default_tax_rate_id, automatic_sales_tax,"
            " updated_at) VALUES (:m, NULL, :on, :at) ON CONFLICT (merchant_id) DO UPDATE"
            " SET automatic_sales_tax = excluded.automatic_sales_tax,"
            " updated_at = excluded.updated_at",
            {"m": merchant_id, "on": on, "at": at},
        )

    def record_observed(self, observed: ObservedTaxRate) -> None:
        self.db.execute(
            "INSERT INTO observed_tax_rates (id, merchant_id, postal_code, percent,"
            " jurisdictions, confirmed_at) VALUES (:id, :m, :code, :percent, :j, :at)",
            {
                "id": observed.id,
                "m": observed.merchant_id,
                "code": observed.postal_code,
                "percent": observed.percent,
                "j": json.dumps(
                    [
                        {"name": j.name, "percent": None if j.percent is None else str(j.percent)}
                        for j in observed.jurisdictions
                    ],
                    separators=(",", ":"),
                ),
                "at": observed.confirmed_at,
            },
        )

    @staticmethod
    def _observed(r: Row) -> ObservedTaxRate:
        return ObservedTaxRate(
            id=r["id"],
            merchant_id=r["merchant_id"],
            postal_code=r["postal_code"],
            percent=canonical_percent(to_decimal(r["percent"])),
            jurisdictions=tuple(
                Jurisdiction(j["name"], None if j["percent"] is None else Decimal(j["percent"]))
                for j in json.loads(r["jurisdictions"])
            ),
            confirmed_at=to_dt(r["confirmed_at"]),
        )

    def newest_observed(self, merchant_id: str, postal_code: str) -> ObservedTaxRate | None:
        row = self._one(
            "SELECT * FROM observed_tax_rates WHERE merchant_id = :m AND postal_code = :code"
            " ORDER BY confirmed_at DESC, id DESC LIMIT 1",
            m=merchant_id,
            code=postal_code,
        )
        return self._observed(row) if row else None

    def observed(
        self, merchant_id: str, after: str | None = None, limit: int = 50
    ) -> list[ObservedTaxRate]:
        params: dict[str, Any] = {"m": merchant_id, "limit": limit}
        cursor = ""
        if after is not None:
            cursor = " AND o.postal_code > :after"
            params["after"] = after
        rows = self.db.query(
            "SELECT o.* FROM observed_tax_rates o WHERE o.merchant_id = :m"
            f"{cursor} AND NOT EXISTS (SELECT 1 FROM observed_tax_rates n"
            " WHERE n.merchant_id = o.merchant_id AND n.postal_code = o.postal_code"
            " AND (n.confirmed_at, n.id) > (o.confirmed_at, o.id))"
            " ORDER BY o.postal_code LIMIT :limit",
            params,
        )
        return [self._observed(r) for r in rows]

    def list(
        self,
        merchant_id: str,
        after: str | None = None,
        limit: int = 50,
        include_inactive: bool = False,
    ) -> list[TaxRate]:
        return self._listing(merchant_id, after, limit, include_inactive)


class SqlLocations(RecordTable[Location]):
    TABLE = "locations"
    COLUMNS = (
        "id",
        "merchant_id",
        "name",
        "name_key",
        "short_code",
        "phone",
        "tax_rate_id",
        "address_line1",
        "address_line2",
        "address_city",
        "address_state",
        "address_postal_code",
        "address_country",
        "active",
        "created_at",
        "updated_at",
    )

    def _params(self, loc: Location) -> dict[str, Any]:
        a = loc.address or Address()
        return {
            "id": loc.id,
            "merchant_id": loc.merchant_id,
            "name": loc.name,
            "name_key": name_key(loc.name),
            "short_code": loc.short_code,
            "phone": loc.phone,
            "tax_rate_id": loc.tax_rate_id,
            "address_line1": a.line1,
            "address_line2": a.line2,
            "address_city": a.city,
            "address_state": a.state,
            "address_postal_code": a.postal_code,
            "address_country": a.country,
            "active": loc.active,
            "created_at": loc.created_at,
            "updated_at": loc.updated_at,
        }

    def _load(self, r: Row) -> Location:
        address = Address(
            r["address_line1"],
            r["address_line2"],
            r["address_city"],
            r["address_state"],
            r["address_postal_code"],
            r["address_country"],
        )
        return Location(
            id=r["id"],
            merchant_id=r["merchant_id"],
            name=r["name"],
            address=None if address == Address() else address,
            phone=r["phone"],
            tax_rate_id=r["tax_rate_id"],
            short_code=r["short_code"],
            active=bool(r["active"]),
            created_at=to_dt(r["created_at"]),
            updated_at=to_dt(r["updated_at"]),
        )

    def _duplicate(self, loc: Location) -> Conflict:
        return Conflict(f"the merchant has a location with shortCode '{loc.short_code}'")

    def get_by_short_code(self, merchant_id: str, short_code: str) -> Location | None:
        return self._first("short_code = :code", m=merchant_id, code=short_code)

    def list(
        self,
        merchant_id: str,
        after: str | None = None,
        limit: int = 50,
        include_inactive: bool = False,
    ) -> list[Location]:
        return self._listing(merchant_id, after, limit, include_inactive)

    def active_ids(self, merchant_id: str, ids: Collection[str]) -> set[str]:
        return self._active_ids(merchant_id, ids)

    def count_active(self, merchant_id: str) -> int:
        row = self._one(
            "SELECT COUNT(*) AS n FROM locations WHERE merchant_id = :m AND active = :on",
            m=merchant_id,
            on=True,
        )
        return int(row["n"]) if row else 0

    def settings(self, merchant_id: str) -> LocationSettings:
        row = self._one("SELECT * FROM location_settings WHERE merchant_id = :m", m=merchant_id)
        if row is None:
            return LocationSettings()
        return LocationSettings(bool(row["locations_enabled"]), row["default_location_id"])

    def lock_settings(self, merchant_id: str, at: datetime) -> LocationSettings:
        # The row must exist to be locked. PostgreSQL then holds it with FOR UPDATE;
        # SQLite's unit of work already holds the single write lock.
        self.db.execute(
            "INSERT INTO location_settings (merchant_id, locations_enabled, default_location_id,"
            " updated_at) VALUES (:m, :off, NULL, :at) ON CONFLICT (merchant_id) DO NOTHING",
            {"m": merchant_id, "off": False, "at": at},
        )
        if self.db.dialect == "postgres":
            self.db.query(
                "SELECT merchant_id FROM location_settings WHERE merchant_id = :m FOR UPDATE",
                {"m": merchant_id},
            )
        return self.settings(merchant_id)

    def put_settings(self, merchant_id: str, settings: LocationSettings, at: datetime) -> None:
        self.db.execute(
            "INSERT INTO location_settings (merchant_id, locations_enabled, default_location_id,"
            " updated_at) VALUES (:m, :on, :default, :at) ON CONFLICT (merchant_id) DO UPDATE"
            " SET locations_enabled = excluded.locations_enabled,"
            " default_location_id = excluded.default_location_id,"
            " updated_at = excluded.updated_at",
            {
                "m": merchant_id,
                "on": settings.locations_enabled,
                "default": settings.default_location_id,
                "at": at,
            },
        )


class SqlRegisters(_Repo):
    def add(self, register: Register) -> None:
        self.db.execute(
            "INSERT INTO registers (id, merchant_id, location_id, name, active, created_at)"
            " VALUES (:id, :m, :loc, :name, :active, :at)",
            {
                "id": register.id,
                "m": register.merchant_id,
                "loc": register.location_id,
                "name": register.name,
                "active": register.active,
                "at": register.created_at,
            },
        )

    @staticmethod
    def _load(row: Row) -> Register:
        return Register(
            id=row["id"],
            merchant_id=row["merchant_id"],
            location_id=row["location_id"],
            name=row["name"],
            active=bool(row["active"]),
            created_at=to_dt(row["created_at"]),
        )

    def get(self, merchant_id: str, register_id: str) -> Register | None:
        row = self._one(
            "SELECT * FROM registers WHERE merchant_id = :m AND id = :id",
            m=merchant_id,
            id=register_id,
        )
        return self._load(row) if row else None

    def list(self, merchant_id: str, location_id: str | None = None) -> list[Register]:
        sql = "SELECT * FROM registers WHERE merchant_id = :m"
        params: dict[str, Any] = {"m": merchant_id}
        if location_id is not None:
            sql += " AND location_id = :loc"
            params["loc"] = location_id
        rows = self.db.query(sql + " ORDER BY name, id", params)
        return [self._load(r) for r in rows]

    def save(self, register: Register) -> None:
        self.db.execute(
            "UPDATE registers SET name = :name, active = :active"
            " WHERE merchant_id = :m AND id = :id",
            {
                "name": register.name,
                "active": register.active,
                "m": register.merchant_id,
                "id": register.id,
            },
        )

    def count_active(self, location_id: str) -> int:
        row = self._one(
            "SELECT COUNT(*) AS n FROM registers WHERE location_id = :loc AND active = :on",
            loc=location_id,
            on=True,
        )
        return int(row["n"]) if row else 0
