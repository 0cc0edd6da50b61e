"""Locations of one merchant, the location settings, and the location of new records.

``pick_location`` is the one place a new record (customer, charge, later invoices and
schedules) gets its location: it loads what ``resolve_location`` needs and lets the domain
decide. Changes of one merchant's locations and settings take turns on the settings row,
so "the last active location" and "the default is active" hold under concurrency.
"""

from __future__ import annotations

import attrs

from payhub.domain.addresses import Address, clean_address
from payhub.domain.consent import clean_phone
from payhub.domain.errors import Conflict, FieldError, NotFound, ValidationError
from payhub.domain.fields import collect, raise_if_any
from payhub.domain.locations import (
    Location,
    LocationSettings,
    check_deactivation,
    clean_location_name,
    clean_short_code,
    effective_tax_rate_id,
    resolve_location,
)
from payhub.ports import UnitOfWork
from payhub.services.auth import Caller
from payhub.services.deps import Deps
from payhub.services.merchants import find_merchant
from payhub.services.paging import Page, check_cursor, check_limit, page_of


def pick_location(
    uow: UnitOfWork,
    merchant_id: str,
    sent_location_id: str | None,
    customer_location_id: str | None = None,
    field: str = "locationId",
) -> str | None:
    """The location of a new record of this merchant (see ``resolve_location``)."""
    settings = uow.locations.settings(merchant_id)
    candidates = {
        i for i in (sent_location_id, customer_location_id, settings.default_location_id) if i
    }
    active = uow.locations.active_ids(merchant_id, candidates)
    return resolve_location(sent_location_id, customer_location_id, settings, active, field)


@attrs.frozen
class LocationInput:
    """A location as sent on create or replace; ``is_active`` only matters on replace."""

    name: str
    tax_rate_id: str | None = None
    phone: str | None = None
    address: Address | None = None
    short_code: str | None = None
    is_active: bool = True


@attrs.frozen
class LocationView:
    location: Location
    is_default: bool
    effective_tax_rate_id: str | None


@attrs.frozen
class _Clean:
    name: str
    phone: str | None
    address: Address | None
    short_code: str | None


class Locations:
    def __init__(self, deps: Deps, caller: Caller, reference: str) -> None:
        self._d = deps
        self._caller = caller
        self._reference = reference

    # --- helpers ---------------------------------------------------------------------------

    @staticmethod
    def _clean(given: LocationInput) -> _Clean:
        errors: list[FieldError] = []
        name = clean_location_name(given.name, errors)
        phone = None
        try:
            phone = clean_phone(given.phone)
        except ValidationError as e:
            collect(errors, e)
        address = clean_address(given.address, "address", errors)
        code = clean_short_code(given.short_code, errors)
        raise_if_any(errors)
        return _Clean(name, phone, address, code)

    @staticmethod
    def _check_refs(
        uow: UnitOfWork,
        merchant_id: str,
        tax_rate_id: str | None,
        code: str | None,
        location_id: str | None,
    ) -> None:
        if tax_rate_id is not None and uow.tax_rates.get(merchant_id, tax_rate_id) is None:
            raise ValidationError.for_field("taxRateId", "is not a tax rate of this merchant")
        if code is not None:
            holder = uow.locations.get_by_short_code(merchant_id, code)
            if holder is not None and holder.id != location_id:
                raise Conflict(f"location '{holder.id}' already has the shortCode '{code}'")

    @staticmethod
    def _get(uow: UnitOfWork, merchant_id: str, location_id: str) -> Location:
        location = uow.locations.get(merchant_id, location_id)
        if location is None:
            raise NotFound(f"no location '{location_id}' for this merchant")
        return location

    @staticmethod
    def _views(uow: UnitOfWork, merchant_id: str, locations: list[Location]) -> list[LocationView]:
        settings = uow.locations.settings(merchant_id)
        default_rate = uow.tax_rates.settings(merchant_id).default_tax_rate_id
        rate_ids = {loc.tax_rate_id for loc in locations if loc.tax_rate_id}
        if default_rate:
            rate_ids.add(default_rate)
        active_rates = uow.tax_rates.active_ids(merchant_id, rate_ids)
        return [
            LocationView(
                loc,
                loc.id == settings.default_location_id,
                effective_tax_rate_id(loc.tax_rate_id, default_rate, active_rates),
            )
            for loc in locations
        ]

    # --- locations -------------------------------------------------------------------------

    def create(self, given: LocationInput) -> LocationView:
        clean = self._clean(given)
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            self._check_refs(uow, merchant.id, given.tax_rate_id, clean.short_code, None)
            location = Location(
                id=self._d.new_id("loc"),
                merchant_id=merchant.id,
                name=clean.name,
                address=clean.address,
                phone=clean.phone,
                tax_rate_id=given.tax_rate_id,
                short_code=clean.short_code,
                active=True,
                created_at=now,
                updated_at=now,
            )
            uow.locations.add(location)
            return self._views(uow, merchant.id, [location])[0]

    def get(self, location_id: str) -> LocationView:
        with self._d.store.unit_of_work(readonly=True) as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            return self._views(uow, merchant.id, [self._get(uow, merchant.id, location_id)])[0]

    def list(
        self, after: str | None = None, limit: int = 50, include_inactive: bool = False
    ) -> Page[LocationView]:
        check_limit(limit)
        with self._d.store.unit_of_work(readonly=True) as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            rows = uow.locations.list(merchant.id, after, limit + 1, include_inactive)
            if after is not None and not rows:
                check_cursor(uow.locations.get(merchant.id, after) is not None)
            page = page_of(rows, limit, lambda loc: loc.id)
            return Page(self._views(uow, merchant.id, page.items), page.has_more, page.next_cursor)

    def replace(self, location_id: str, given: LocationInput) -> LocationView:
        """Every field is replaced; what is left out is cleared. Switching a location off is
        refused while it has active registers or when it is the last one on; switching off
        the default location leaves the merchant without a default."""
        clean = self._clean(given)
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            location = self._get(uow, merchant.id, location_id)
            settings = uow.locations.lock_settings(merchant.id, now)
            self._check_refs(uow, merchant.id, given.tax_rate_id, clean.short_code, location.id)
            if location.active and not given.is_active:
                check_deactivation(
                    location,
                    uow.registers.count_active(location.id),
                    uow.locations.count_active(merchant.id),
                )
                if settings.default_location_id == location.id:
                    uow.locations.put_settings(
                        merchant.id, attrs.evolve(settings, default_location_id=None), now
                    )
            location.name = clean.name
            location.address = clean.address
            location.phone = clean.phone
            location.tax_rate_id = given.tax_rate_id
            location.short_code = clean.short_code
            location.active = given.is_active
            location.updated_at = now
            uow.locations.save(location)
            return self._views(uow, merchant.id, [location])[0]

    # --- settings --------------------------------------------------------------------------

    def settings(self) -> LocationSettings:
        with self._d.store.unit_of_work(readonly=True) as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            return uow.locations.settings(merchant.id)

    def put_settings(
        self, locations_enabled: bool, default_location_id: str | None
    ) -> LocationSettings:
        """Both settings replaced; a default must be an active location of the merchant (400)."""
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            uow.locations.lock_settings(merchant.id, now)
            if default_location_id is not None and not uow.locations.active_ids(
                merchant.id, {default_location_id}
            ):
                raise ValidationError.for_field(
                    "defaultLocationId", "is not an active location of this merchant"
                )
            settings = LocationSettings(locations_enabled, default_location_id)
            uow.locations.put_settings(merchant.id, settings, now)
            return settings

    def make_default(self, location_id: str) -> LocationSettings:
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            location = self._get(uow, merchant.id, location_id)
            current = uow.locations.lock_settings(merchant.id, now)
            if not location.active:
                raise Conflict(f"location '{location.id}' is inactive; activate it first")
            settings = attrs.evolve(current, default_location_id=location.id)
            uow.locations.put_settings(merchant.id, settings, now)
            return settings

    def clear_default(self) -> LocationSettings:
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            current = uow.locations.lock_settings(merchant.id, now)
            settings = attrs.evolve(current, default_location_id=None)
            uow.locations.put_settings(merchant.id, settings, now)
            return settings
