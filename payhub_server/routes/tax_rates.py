"""Named tax rates of a merchant, and the accounting integration's advisory figures."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Annotated

import msgspec
from litestar import Controller
from litestar.params import FromPath, JSONBody, QueryParameter

from payhub.domain.taxes import Jurisdiction, TaxSuggestion
from payhub.services.catalog import TaxRateView
from payhub_server.deps import MERCHANT_KEY_OK, Tenant, api_get, api_post, api_put
from payhub_server.routes.paging import CURSOR, INCLUDE_INACTIVE, LIMIT, page_out
from payhub_server.routes.wire import Page


class TaxRateIn(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    """`percent`: 0 to 100 with up to four decimals."""

    name: str
    percent: Decimal
    is_default: bool = False


class TaxRateUpdate(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    name: str
    percent: Decimal


class TaxRateOut(msgspec.Struct, rename="camel"):
    tax_rate_id: str
    name: str
    percent: Decimal
    is_active: bool
    is_default: bool
    created_at_utc: datetime
    updated_at_utc: datetime

    @classmethod
    def of(cls, v: TaxRateView) -> TaxRateOut:
        r = v.rate
        return cls(r.id, r.name, r.percent, r.active, v.is_default, r.created_at, r.updated_at)


class JurisdictionOut(msgspec.Struct, rename="camel"):
    name: str
    percent: Decimal | None

    @classmethod
    def of(cls, j: Jurisdiction) -> JurisdictionOut:
        return cls(j.name, j.percent)


class SuggestionOut(msgspec.Struct, rename="camel"):
    """Advice only. `isStale`: last confirmed more than 30 days ago."""

    found: bool
    postal_code: str | None
    percent: Decimal | None
    jurisdictions: list[JurisdictionOut]
    last_confirmed_at_utc: datetime | None
    is_stale: bool

    @classmethod
    def of(cls, s: TaxSuggestion) -> SuggestionOut:
        return cls(
            found=s.found,
            postal_code=s.postal_code,
            percent=s.percent,
            jurisdictions=[JurisdictionOut.of(j) for j in s.jurisdictions],
            last_confirmed_at_utc=s.last_confirmed_at,
            is_stale=s.is_stale,
        )


class ObservedOut(msgspec.Struct, rename="camel"):
    """The newest observed rate per postal code, a page of them, and whether the merchant's
    accounting company computes sales tax automatically."""

    automatic_sales_tax: bool
    observed: list[SuggestionOut]
    has_more: bool = False
    next_cursor: str | None = None


class TaxRateController(Controller):
    path = "/api/merchant-accounts/{ref:str}/tax-rates"
    tags = ["Tax rates"]

    @api_get("/", opt=MERCHANT_KEY_OK, summary="List tax rates")
    def list_tax_rates(
        self,
        ref: FromPath[str],
        tenant: Tenant,
        limit: LIMIT = 50,
        starting_after: CURSOR = None,
        include_inactive: INCLUDE_INACTIVE = False,
    ) -> Page[TaxRateOut]:
        """By name. Deactivated rates only with `includeInactive=true`."""
        page = tenant.merchant(ref).tax_rates.list(starting_after, limit, include_inactive)
        return page_out(page, TaxRateOut.of)

    @api_get("/suggestion", opt=MERCHANT_KEY_OK, summary="Suggest a tax rate for a postal code")
    def suggestion(
        self,
        ref: FromPath[str],
        tenant: Tenant,
        postal_code: Annotated[str, QueryParameter(name="postalCode", max_length=20)],
    ) -> SuggestionOut:
        """From what the connected accounting system last computed for the postal code;
        `found: false` when it has reported nothing for it (or none is connected)."""
        return SuggestionOut.of(tenant.merchant(ref).tax_rates.suggestion(postal_code))

    @api_get("/observed", opt=MERCHANT_KEY_OK, summary="List observed tax rates")
    def observed(
        self,
        ref: FromPath[str],
        tenant: Tenant,
        limit: LIMIT = 50,
        starting_after: Annotated[
            str | None,
            QueryParameter(name="startingAfter", description="`nextCursor`: a postal code"),
        ] = None,
    ) -> ObservedOut:
        """By postal code."""
        found = tenant.merchant(ref).tax_rates.observed(starting_after, limit)
        return ObservedOut(
            automatic_sales_tax=found.automatic_sales_tax,
            observed=[SuggestionOut.of(s) for s in found.page.items],
            has_more=found.page.has_more,
            next_cursor=found.page.next_cursor,
        )

    @api_get("/{tax_rate_id:str}", opt=MERCHANT_KEY_OK, summary="Get a tax rate")
    def get_tax_rate(
        self, ref: FromPath[str], tax_rate_id: FromPath[str], tenant: Tenant
    ) -> TaxRateOut:
        return TaxRateOut.of(tenant.merchant(ref).tax_rates.get(tax_rate_id))

    @api_post("/", opt=MERCHANT_KEY_OK, summary="Create a tax rate")
    def create_tax_rate(
        self, ref: FromPath[str], data: JSONBody[TaxRateIn], tenant: Tenant
    ) -> TaxRateOut:
        """With `isDefault: true` it becomes the merchant's one default rate."""
        rates = tenant.merchant(ref).tax_rates
        return TaxRateOut.of(rates.create(data.name, data.percent, data.is_default))

    @api_put("/{tax_rate_id:str}", opt=MERCHANT_KEY_OK, summary="Edit a tax rate")
    def replace_tax_rate(
        self,
        ref: FromPath[str],
        tax_rate_id: FromPath[str],
        data: JSONBody[TaxRateUpdate],
        tenant: Tenant,
    ) -> TaxRateOut:
        """Invoices already created keep the percentage they copied."""
        rates = tenant.merchant(ref).tax_rates
        return TaxRateOut.of(rates.replace(tax_rate_id, data.name, data.percent))

    @api_post(
        "/{tax_rate_id:str}/default",
        opt=MERCHANT_KEY_OK,
        status_code=200,
        summary="Make a tax rate the default",
    )
    def make_default(
        self, ref: FromPath[str], tax_rate_id: FromPath[str], tenant: Tenant
    ) -> TaxRateOut:
        """The previous default stops being it. An inactive rate cannot be the default (409)."""
        return TaxRateOut.of(tenant.merchant(ref).tax_rates.make_default(tax_rate_id))

    @api_post(
        "/{tax_rate_id:str}/deactivate",
        opt=MERCHANT_KEY_OK,
        status_code=200,
        summary="Deactivate a tax rate",
    )
    def deactivate_tax_rate(
        self, ref: FromPath[str], tax_rate_id: FromPath[str], tenant: Tenant
    ) -> TaxRateOut:
        """Deactivating the default rate leaves the merchant without a default."""
        return TaxRateOut.of(tenant.merchant(ref).tax_rates.set_active(tax_rate_id, False))

    @api_post(
        "/{tax_rate_id:str}/activate",
        opt=MERCHANT_KEY_OK,
        status_code=200,
        summary="Activate a tax rate",
    )
    def activate_tax_rate(
        self, ref: FromPath[str], tax_rate_id: FromPath[str], tenant: Tenant
    ) -> TaxRateOut:
        return TaxRateOut.of(tenant.merchant(ref).tax_rates.set_active(tax_rate_id, True))
