"""Merchant profiles (migration 20) on SQLite and PostgreSQL alike."""

from __future__ import annotations

from datetime import timedelta

from payhub.domain.addresses import Address
from payhub.domain.profiles import Logo, MerchantProfile
from payhub.ports import Store
from tests.storage.test_contract import T0
from tests.storage.test_portal_contract import seeded

__all__ = ["seeded"]  # two merchants, mer_1 and mer_2, of one provider


def test_a_merchant_without_a_profile_has_an_empty_one(seeded: Store) -> None:
    with seeded.unit_of_work() as uow:
        assert uow.merchant_profiles.get("mer_1") == MerchantProfile()


def test_profiles_round_trip_every_field_and_stay_apart(seeded: Store) -> None:
    logo = Logo("image/png", b"\x89PNG\r\n\x1a\n\x00\xff binary")
    full = MerchantProfile(
        business_name="Acme Plumbing",
        contact_email="help@acme.example",
        phone="+15125550100",
        address=Address("1 Main St", "Suite 2", "Austin", "TX", "78701", "US"),
        logo=logo,
        updated_at=T0,
    )
    with seeded.unit_of_work() as uow:
        uow.merchant_profiles.put("mer_1", full, T0)
    with seeded.unit_of_work() as uow:
        assert uow.merchant_profiles.get("mer_1") == full
        assert uow.merchant_profiles.get("mer_2") == MerchantProfile()
    later = T0 + timedelta(hours=1)
    cleared = MerchantProfile(business_name="Acme", updated_at=later)
    with seeded.unit_of_work() as uow:
        uow.merchant_profiles.put("mer_1", cleared, later)
    with seeded.unit_of_work() as uow:
        assert uow.merchant_profiles.get("mer_1") == cleared
