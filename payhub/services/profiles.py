"""A merchant's business details and logo (the portal's Settings), and the name and contact
lines its customers see on the pay page, receipts and emails."""

from __future__ import annotations

from collections.abc import Callable

import attrs

from payhub.domain.accounts import Merchant
from payhub.domain.addresses import Address
from payhub.domain.profiles import MerchantProfile, check_logo, clean_profile
from payhub.ports import UnitOfWork
from payhub.services.auth import Caller
from payhub.services.deps import Deps
from payhub.services.merchants import find_merchant


@attrs.frozen
class Brand:
    """What a customer-facing page or message names the merchant by."""

    name: str
    contact_lines: tuple[str, ...]
    logo_uri: str | None


def brand_of(uow: UnitOfWork, merchant: Merchant) -> Brand:
    profile = uow.merchant_profiles.get(merchant.id)
    return Brand(
        profile.name_or(merchant.display_name),
        profile.contact_lines,
        profile.logo.data_uri if profile.logo else None,
    )


class Profiles:
    """One merchant's profile: read, change details, set or remove the logo."""

    def __init__(self, deps: Deps, caller: Caller, reference: str) -> None:
        self._d = deps
        self._caller = caller
        self._reference = reference

    def get(self) -> MerchantProfile:
        with self._d.store.unit_of_work(readonly=True) as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            return uow.merchant_profiles.get(merchant.id)

    def update(
        self,
        *,
        business_name: str | None,
        contact_email: str | None,
        phone: str | None,
        address: Address | None,
    ) -> MerchantProfile:
        """Replace the details (blank clears a field); the logo stays."""
        with self._d.store.unit_of_work() as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            current = uow.merchant_profiles.get(merchant.id)
            profile = clean_profile(business_name, contact_email, phone, address, current.logo)
            now = self._d.clock.now()
            uow.merchant_profiles.put(merchant.id, profile, now)
            return attrs.evolve(profile, updated_at=now)

    def set_logo(self, data: bytes) -> MerchantProfile:
        logo = check_logo(data)
        return self._change_logo(lambda p: attrs.evolve(p, logo=logo))

    def remove_logo(self) -> MerchantProfile:
        return self._change_logo(lambda p: attrs.evolve(p, logo=None))

    def _change_logo(self, change: Callable[[MerchantProfile], MerchantProfile]) -> MerchantProfile:
        with self._d.store.unit_of_work() as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            profile: MerchantProfile = change(uow.merchant_profiles.get(merchant.id))
            now = self._d.clock.now()
            uow.merchant_profiles.put(merchant.id, profile, now)
            return attrs.evolve(profile, updated_at=now)
