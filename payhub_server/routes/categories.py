"""Product categories of a merchant: flat, colored, ordered; never deleted."""

from __future__ import annotations

from datetime import datetime

import msgspec
from litestar import Controller
from litestar.params import FromPath, JSONBody

from payhub.domain.catalog import Category
from payhub_server.deps import MERCHANT_KEY_OK, Tenant, api_get, api_post, api_put
from payhub_server.routes.paging import CURSOR, INCLUDE_INACTIVE, LIMIT, page_out
from payhub_server.routes.wire import Page


class CategoryIn(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    """`name`: 1 to 100 characters, no colon. `color`: `#RRGGBB`. On PUT every field is
    replaced (a left-out color is cleared, a left-out sortOrder is 0)."""

    name: str
    color: str | None = None
    sort_order: int = 0


class CategoryOut(msgspec.Struct, rename="camel"):
    category_id: str
    name: str
    color: str | None
    sort_order: int
    is_active: bool
    created_at_utc: datetime
    updated_at_utc: datetime

    @classmethod
    def of(cls, c: Category) -> CategoryOut:
        return cls(c.id, c.name, c.color, c.sort_order, c.active, c.created_at, c.updated_at)


class CategoryController(Controller):
    path = "/api/merchant-accounts/{ref:str}/product-categories"
    tags = ["Product categories"]

    @api_get("/", opt=MERCHANT_KEY_OK, summary="List product categories")
    def list_categories(
        self,
        ref: FromPath[str],
        tenant: Tenant,
        limit: LIMIT = 50,
        starting_after: CURSOR = None,
        include_inactive: INCLUDE_INACTIVE = False,
    ) -> Page[CategoryOut]:
        """By `sortOrder`, then name. Deactivated ones only with `includeInactive=true`."""
        page = tenant.merchant(ref).categories.list(starting_after, limit, include_inactive)
        return page_out(page, CategoryOut.of)

    @api_get("/{category_id:str}", opt=MERCHANT_KEY_OK, summary="Get a product category")
    def get_category(
        self, ref: FromPath[str], category_id: FromPath[str], tenant: Tenant
    ) -> CategoryOut:
        return CategoryOut.of(tenant.merchant(ref).categories.get(category_id))

    @api_post("/", opt=MERCHANT_KEY_OK, summary="Create a product category")
    def create_category(
        self, ref: FromPath[str], data: JSONBody[CategoryIn], tenant: Tenant
    ) -> CategoryOut:
        """A bad name is 400; a name the merchant already has (any letter case, inactive
        ones included) is 409."""
        categories = tenant.merchant(ref).categories
        return CategoryOut.of(categories.create(data.name, data.color, data.sort_order))

    @api_put("/{category_id:str}", opt=MERCHANT_KEY_OK, summary="Edit a product category")
    def replace_category(
        self,
        ref: FromPath[str],
        category_id: FromPath[str],
        data: JSONBody[CategoryIn],
        tenant: Tenant,
    ) -> CategoryOut:
        """Rename, recolor, reorder."""
        categories = tenant.merchant(ref).categories
        return CategoryOut.of(
            categories.replace(category_id, data.name, data.color, data.sort_order)
        )

    @api_post(
        "/{category_id:str}/deactivate",
        opt=MERCHANT_KEY_OK,
        status_code=200,
        summary="Deactivate a product category",
    )
    def deactivate_category(
        self, ref: FromPath[str], category_id: FromPath[str], tenant: Tenant
    ) -> CategoryOut:
        """Its products keep it; it leaves the register."""
        return CategoryOut.of(tenant.merchant(ref).categories.set_active(category_id, False))

    @api_post(
        "/{category_id:str}/activate",
        opt=MERCHANT_KEY_OK,
        status_code=200,
        summary="Activate a product category",
    )
    def activate_category(
        self, ref: FromPath[str], category_id: FromPath[str], tenant: Tenant
    ) -> CategoryOut:
        return CategoryOut.of(tenant.merchant(ref).categories.set_active(category_id, True))
