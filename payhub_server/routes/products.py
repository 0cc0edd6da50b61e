"""The product catalog of a merchant."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Annotated, Literal

import msgspec
from litestar import Controller
from litestar.params import FromPath, JSONBody, QueryParameter
from msgspec import UNSET, UnsetType

from payhub.domain.catalog import Product, ProductKind
from payhub.services.catalog import ProductInput
from payhub.services.edits import KEEP
from payhub_server.deps import MERCHANT_KEY_OK, Tenant, api_get, api_post, api_put
from payhub_server.routes.paging import CURSOR, INCLUDE_INACTIVE, LIMIT, page_out
from payhub_server.routes.wire import Page

Kind = Literal["Service", "NonInventory", "Inventory"]


class ProductIn(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    """On PUT every field is replaced (left out means its default or none), except
    `categoryId`: left out keeps the current category, `null` clears it."""

    name: str
    unit_price: Decimal
    currency: str = "USD"
    sku: str | None = None
    description: str | None = None
    kind: Kind = "Service"
    is_taxable: bool = True
    category_id: str | UnsetType | None = UNSET

    def to_input(self) -> ProductInput:
        return ProductInput(
            name=self.name,
            unit_price=self.unit_price,
            currency=self.currency,
            sku=self.sku,
            description=self.description,
            kind=ProductKind(self.kind),
            taxable=self.is_taxable,
            category_id=KEEP if isinstance(self.category_id, UnsetType) else self.category_id,
        )


class ProductCategoryIn(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    category_id: str | None


class ProductOut(msgspec.Struct, rename="camel"):
    product_id: str
    name: str
    sku: str | None
    description: str | None
    unit_price: Decimal
    currency: str
    kind: str
    is_taxable: bool
    category_id: str | None
    is_active: bool
    accounting_item_linked: bool
    created_at_utc: datetime
    updated_at_utc: datetime

    @classmethod
    def of(cls, p: Product) -> ProductOut:
        return cls(
            product_id=p.id,
            name=p.name,
            sku=p.sku,
            description=p.description,
            unit_price=p.unit_price.amount,
            currency=p.unit_price.currency,
            kind=p.kind.value,
            is_taxable=p.taxable,
            category_id=p.category_id,
            is_active=p.active,
            accounting_item_linked=p.accounting_item_linked,
            created_at_utc=p.created_at,
            updated_at_utc=p.updated_at,
        )


class ProductController(Controller):
    path = "/api/merchant-accounts/{ref:str}/products"
    tags = ["Products"]

    @api_get("/", opt=MERCHANT_KEY_OK, summary="List products")
    def list_products(
        self,
        ref: FromPath[str],
        tenant: Tenant,
        limit: LIMIT = 50,
        starting_after: CURSOR = None,
        category_id: Annotated[
            str | None, QueryParameter(name="categoryId", description="Only this category's")
        ] = None,
        include_inactive: INCLUDE_INACTIVE = False,
    ) -> Page[ProductOut]:
        """By name. Deactivated products only with `includeInactive=true`."""
        products = tenant.merchant(ref).products
        page = products.list(starting_after, limit, category_id, include_inactive)
        return page_out(page, ProductOut.of)

    @api_get("/{product_id:str}", opt=MERCHANT_KEY_OK, summary="Get a product")
    def get_product(
        self, ref: FromPath[str], product_id: FromPath[str], tenant: Tenant
    ) -> ProductOut:
        """Includes whether the product is linked to an accounting-system item."""
        return ProductOut.of(tenant.merchant(ref).products.get(product_id))

    @api_post("/", opt=MERCHANT_KEY_OK, summary="Create a product")
    def create_product(
        self, ref: FromPath[str], data: JSONBody[ProductIn], tenant: Tenant
    ) -> ProductOut:
        """`sku` is unique per merchant (409). Stock is never tracked: `kind` only says which
        accounting item type it becomes."""
        return ProductOut.of(tenant.merchant(ref).products.create(data.to_input()))

    @api_put("/{product_id:str}", opt=MERCHANT_KEY_OK, summary="Edit a product")
    def replace_product(
        self,
        ref: FromPath[str],
        product_id: FromPath[str],
        data: JSONBody[ProductIn],
        tenant: Tenant,
    ) -> ProductOut:
        """Existing invoices keep their own copy of a line's description and price."""
        products = tenant.merchant(ref).products
        return ProductOut.of(products.replace(product_id, data.to_input()))

    @api_post(
        "/{product_id:str}/deactivate",
        opt=MERCHANT_KEY_OK,
        status_code=200,
        summary="Deactivate a product",
    )
    def deactivate_product(
        self, ref: FromPath[str], product_id: FromPath[str], tenant: Tenant
    ) -> ProductOut:
        """Products are never deleted."""
        return ProductOut.of(tenant.merchant(ref).products.set_active(product_id, False))

    @api_post(
        "/{product_id:str}/activate",
        opt=MERCHANT_KEY_OK,
        status_code=200,
        summary="Activate a product",
    )
    def activate_product(
        self, ref: FromPath[str], product_id: FromPath[str], tenant: Tenant
    ) -> ProductOut:
        return ProductOut.of(tenant.merchant(ref).products.set_active(product_id, True))

    @api_put(
        "/{product_id:str}/category",
        opt=MERCHANT_KEY_OK,
        summary="Set or clear a product's category",
    )
    def set_product_category(
        self,
        ref: FromPath[str],
        product_id: FromPath[str],
        data: JSONBody[ProductCategoryIn],
        tenant: Tenant,
    ) -> ProductOut:
        """`categoryId`: an active category of the merchant, or null to clear."""
        products = tenant.merchant(ref).products
        return ProductOut.of(products.set_category(product_id, data.category_id))
