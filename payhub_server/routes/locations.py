"""Locations of a merchant and the location settings."""

from __future__ import annotations

from datetime import datetime

import msgspec
from litestar import Controller
from litestar.params import FromPath, JSONBody

from payhub.domain.locations import LocationSettings
from payhub.services.locations import LocationInput, LocationView
from payhub.wire.addresses import AddressOut
from payhub_server.deps import MERCHANT_KEY_OK, Tenant, api_delete, api_get, api_post, api_put
from payhub_server.routes.addresses import AddressIn
from payhub_server.routes.paging import CURSOR, INCLUDE_INACTIVE, LIMIT, page_out
from payhub_server.routes.wire import Page


class LocationIn(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    """`shortCode`: 1 to 6 letters or digits, stored in capitals, unique per merchant."""

    name: str
    tax_rate_id: str | None = None
    phone: str | None = None
    address: AddressIn | None = None
    short_code: str | None = None


class LocationReplace(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    """Every field is replaced: anything left out is cleared. `isActive` is required."""

    name: str
    is_active: bool
    tax_rate_id: str | None = None
    phone: str | None = None
    address: AddressIn | None = None
    short_code: str | None = None


class LocationOut(msgspec.Struct, rename="camel"):
    """`effectiveTaxRateId`: the rate its sales use: its own while active, else the
    merchant's default rate while active, else none."""

    location_id: str
    name: str
    address: AddressOut | None
    phone: str | None
    tax_rate_id: str | None
    effective_tax_rate_id: str | None
    short_code: str | None
    is_active: bool
    is_default: bool
    created_at_utc: datetime
    updated_at_utc: datetime

    @classmethod
    def of(cls, v: LocationView) -> LocationOut:
        loc = v.location
        return cls(
            location_id=loc.id,
            name=loc.name,
            address=AddressOut.of(loc.address),
            phone=loc.phone,
            tax_rate_id=loc.tax_rate_id,
            effective_tax_rate_id=v.effective_tax_rate_id,
            short_code=loc.short_code,
            is_active=loc.active,
            is_default=v.is_default,
            created_at_utc=loc.created_at,
            updated_at_utc=loc.updated_at,
        )


class SettingsIn(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    locations_enabled: bool
    default_location_id: str | None = None


class SettingsOut(msgspec.Struct, rename="camel"):
    locations_enabled: bool
    default_location_id: str | None

    @classmethod
    def of(cls, s: LocationSettings) -> SettingsOut:
        return cls(s.locations_enabled, s.default_location_id)


def _input(data: LocationIn | LocationReplace, is_active: bool = True) -> LocationInput:
    return LocationInput(
        name=data.name,
        tax_rate_id=data.tax_rate_id,
        phone=data.phone,
        address=data.address.to_domain() if data.address else None,
        short_code=data.short_code,
        is_active=is_active,
    )


class LocationController(Controller):
    path = "/api/merchant-accounts/{ref:str}/locations"
    tags = ["Locations"]

    @api_get("/", opt=MERCHANT_KEY_OK, summary="List locations")
    def list_locations(
        self,
        ref: FromPath[str],
        tenant: Tenant,
        limit: LIMIT = 50,
        starting_after: CURSOR = None,
        include_inactive: INCLUDE_INACTIVE = False,
    ) -> Page[LocationOut]:
        """By name. Inactive ones only with `includeInactive=true`."""
        page = tenant.merchant(ref).locations.list(starting_after, limit, include_inactive)
        return page_out(page, LocationOut.of)

    @api_get("/settings", opt=MERCHANT_KEY_OK, summary="Get the location settings")
    def get_settings(self, ref: FromPath[str], tenant: Tenant) -> SettingsOut:
        return SettingsOut.of(tenant.merchant(ref).locations.settings())

    @api_put("/settings", opt=MERCHANT_KEY_OK, summary="Replace the location settings")
    def put_settings(
        self, ref: FromPath[str], data: JSONBody[SettingsIn], tenant: Tenant
    ) -> SettingsOut:
        """Both replaced. `defaultLocationId` must be an active location of the merchant (400);
        left out or null, there is no default."""
        locations = tenant.merchant(ref).locations
        return SettingsOut.of(
            locations.put_settings(data.locations_enabled, data.default_location_id)
        )

    @api_delete(
        "/default", opt=MERCHANT_KEY_OK, status_code=200, summary="Clear the default location"
    )
    def clear_default(self, ref: FromPath[str], tenant: Tenant) -> SettingsOut:
        return SettingsOut.of(tenant.merchant(ref).locations.clear_default())

    @api_get("/{location_id:str}", opt=MERCHANT_KEY_OK, summary="Get a location")
    def get_location(
        self, ref: FromPath[str], location_id: FromPath[str], tenant: Tenant
    ) -> LocationOut:
        return LocationOut.of(tenant.merchant(ref).locations.get(location_id))

    @api_post("/", opt=MERCHANT_KEY_OK, summary="Create a location")
    def create_location(
        self, ref: FromPath[str], data: JSONBody[LocationIn], tenant: Tenant
    ) -> LocationOut:
        """`taxRateId` must be one of the merchant's rates (400); a short code another
        location has is 409."""
        return LocationOut.of(tenant.merchant(ref).locations.create(_input(data)))

    @api_put("/{location_id:str}", opt=MERCHANT_KEY_OK, summary="Replace a location")
    def replace_location(
        self,
        ref: FromPath[str],
        location_id: FromPath[str],
        data: JSONBody[LocationReplace],
        tenant: Tenant,
    ) -> LocationOut:
        """`isActive: false` is refused (409) while the location has active registers or when
        it is the merchant's last active location; it clears the default if it was it."""
        locations = tenant.merchant(ref).locations
        return LocationOut.of(locations.replace(location_id, _input(data, data.is_active)))

    @api_put(
        "/{location_id:str}/default", opt=MERCHANT_KEY_OK, summary="Make a location the default"
    )
    def make_default(
        self, ref: FromPath[str], location_id: FromPath[str], tenant: Tenant
    ) -> SettingsOut:
        """An inactive location cannot be the default (409)."""
        return SettingsOut.of(tenant.merchant(ref).locations.make_default(location_id))
