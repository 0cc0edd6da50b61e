"""Locations, their settings, the deactivation rules, and where new charges are recorded."""

from __future__ import annotations

from typing import Any

from payhub.domain.addresses import Address
from payhub.domain.locations import LocationSettings, Register
from tests.conftest import START
from tests.customers.support import Shop, all_pages
from tests.http.support import error_fields, problem


def location(shop: Shop, name: str, **extra: Any) -> str:
    return str(shop.created("/locations", {"name": name, **extra})["locationId"])


def settings_of(shop: Shop) -> LocationSettings:
    found: LocationSettings = shop.read(lambda uow, m: uow.locations.settings(m))
    return found


def add_register(shop: Shop, location_id: str, active: bool = True) -> None:
    """Registers have no API yet: made through the repository, as the register feature will."""
    with shop.hub.store.unit_of_work() as uow:
        merchant = shop.merchant(uow)
        uow.registers.add(
            Register(shop.hub.deps.new_id("reg"), merchant.id, location_id, "Till", active, START)
        )


def test_create_and_read_a_location(shop: Shop) -> None:
    rate = shop.created("/tax-rates", {"name": "CA", "percent": 8.25})["taxRateId"]
    body = shop.created(
        "/locations",
        {
            "name": " Mission St ",
            "taxRateId": rate,
            "phone": "(415) 555-0100",
            "address": {
                "line1": "1 Mission St",
                "city": "San Francisco",
                "state": "CA",
                "postalCode": "94105",
                "country": "US",
            },
            "shortCode": "msn1",
        },
    )
    assert body == {
        "locationId": body["locationId"],
        "name": "Mission St",
        "address": {
            "line1": "1 Mission St",
            "line2": None,
            "city": "San Francisco",
            "state": "CA",
            "postalCode": "94105",
            "country": "US",
        },
        "phone": "+14155550100",
        "taxRateId": rate,
        "effectiveTaxRateId": rate,
        "shortCode": "MSN1",
        "isActive": True,
        "isDefault": False,
        "createdAtUtc": "2025-03-14T09:26:53Z",
        "updatedAtUtc": "2025-03-14T09:26:53Z",
    }
    stored = shop.read(lambda uow, m: uow.locations.get(m, body["locationId"]))
    assert stored.address == Address("1 Mission St", None, "San Francisco", "CA", "94105", "US")
    assert stored.short_code == "MSN1"
    assert shop.ok(shop.get(f"/locations/{body['locationId']}")) == body
    problem(shop.get("/locations/loc_nope"), 404)


def test_bad_fields_are_400(shop: Shop, sister: Shop) -> None:
    theirs = sister.created("/tax-rates", {"name": "S", "percent": 1})["taxRateId"]
    response = shop.post(
        "/locations",
        {"name": "", "shortCode": "TOOLONG", "phone": "12", "address": {"city": "c" * 101}},
    )
    assert sorted(error_fields(response)) == ["address.city", "name", "phone", "shortCode"]
    for code in ("AB-1", "ÄB", "a b"):
        assert error_fields(shop.post("/locations", {"name": "X", "shortCode": code})) == [
            "shortCode"
        ]
    assert error_fields(shop.post("/locations", {"name": "X", "taxRateId": theirs})) == [
        "taxRateId"
    ]
    assert shop.read(lambda uow, m: uow.locations.list(m, include_inactive=True)) == []


def test_the_short_code_is_unique_per_merchant(shop: Shop, sister: Shop) -> None:
    first = location(shop, "Main", shortCode="MAIN")
    conflict = problem(shop.post("/locations", {"name": "Other", "shortCode": "main"}), 409)
    assert first in conflict["detail"]
    second = location(shop, "Other", shortCode="OTH")
    problem(
        shop.put(f"/locations/{second}", {"name": "Other", "isActive": True, "shortCode": "Main"}),
        409,
    )
    assert shop.read(lambda uow, m: uow.locations.get(m, second)).short_code == "OTH"
    location(sister, "Theirs", shortCode="MAIN")
    # Without a code, any number of locations.
    location(shop, "No code 1")
    location(shop, "No code 2")


def test_put_replaces_every_field_and_clears_what_is_left_out(shop: Shop) -> None:
    rate = shop.created("/tax-rates", {"name": "CA", "percent": 8.25})["taxRateId"]
    lid = location(
        shop,
        "Main",
        taxRateId=rate,
        phone="+14155550100",
        shortCode="MN",
        address={"line1": "1 Main St"},
    )
    location(shop, "Second")
    body = shop.ok(shop.put(f"/locations/{lid}", {"name": "Main street", "isActive": True}))
    assert body["name"] == "Main street"
    assert body["taxRateId"] is body["phone"] is body["shortCode"] is body["address"] is None
    stored = shop.read(lambda uow, m: uow.locations.get(m, lid))
    assert (stored.tax_rate_id, stored.phone, stored.short_code, stored.address) == (
        None,
        None,
        None,
        None,
    )
    problem(shop.put(f"/locations/{lid}", {"name": "No isActive"}), 400)
    problem(shop.put("/locations/loc_nope", {"name": "X", "isActive": True}), 404)


def test_deactivation_is_refused_for_the_last_active_location(shop: Shop) -> None:
    only = location(shop, "Only")
    conflict = problem(shop.put(f"/locations/{only}", {"name": "Only", "isActive": False}), 409)
    assert "last active location" in conflict["detail"]
    spare = location(shop, "Spare")
    off = shop.ok(shop.put(f"/locations/{spare}", {"name": "Spare", "isActive": False}))
    assert off["isActive"] is False
    problem(shop.put(f"/locations/{only}", {"name": "Only", "isActive": False}), 409)
    assert shop.read(lambda uow, m: uow.locations.get(m, only)).active is True
    # Switching it on again is always fine.
    assert shop.ok(shop.put(f"/locations/{spare}", {"name": "Spare", "isActive": True}))["isActive"]


def test_deactivation_is_refused_while_registers_are_active(shop: Shop) -> None:
    main = location(shop, "Main")
    location(shop, "Second")
    add_register(shop, main)
    add_register(shop, main, active=False)
    conflict = problem(shop.put(f"/locations/{main}", {"name": "Main", "isActive": False}), 409)
    assert "1 active register" in conflict["detail"]
    assert shop.read(lambda uow, m: uow.locations.get(m, main)).active is True


def test_the_list_hides_inactive_and_pages_by_name(shop: Shop) -> None:
    made = {name: location(shop, name) for name in ("delta", "Alpha", "charlie", "Bravo")}
    shop.ok(shop.put(f"/locations/{made['charlie']}", {"name": "charlie", "isActive": False}))
    active = shop.ok(shop.get("/locations"))["data"]
    assert [loc["name"] for loc in active] == ["Alpha", "Bravo", "delta"]
    pages = all_pages(shop, "/locations", limit=3, includeInactive="true")
    assert [[loc["name"] for loc in page] for page in pages] == [
        ["Alpha", "Bravo", "charlie"],
        ["delta"],
    ]


def test_settings_default_and_clearing_it(shop: Shop, sister: Shop) -> None:
    assert shop.ok(shop.get("/locations/settings")) == {
        "locationsEnabled": False,
        "defaultLocationId": None,
    }
    main = location(shop, "Main")
    north = location(shop, "North")
    body = shop.ok(
        shop.put("/locations/settings", {"locationsEnabled": True, "defaultLocationId": main})
    )
    assert body == {"locationsEnabled": True, "defaultLocationId": main}
    assert settings_of(shop) == LocationSettings(True, main)
    assert shop.ok(shop.get(f"/locations/{main}"))["isDefault"] is True
    # A default that is not an active location of the merchant is 400.
    theirs = location(sister, "Theirs")
    for wrong in (theirs, "loc_nope"):
        refused = shop.put(
            "/locations/settings", {"locationsEnabled": True, "defaultLocationId": wrong}
        )
        assert error_fields(refused) == ["defaultLocationId"]
    assert settings_of(shop) == LocationSettings(True, main)
    # Make another the default, then clear it.
    moved = shop.ok(shop.put(f"/locations/{north}/default"))
    assert moved == {"locationsEnabled": True, "defaultLocationId": north}
    assert shop.ok(shop.get(f"/locations/{main}"))["isDefault"] is False
    cleared = shop.ok(shop.delete("/locations/default"))
    assert cleared == {"locationsEnabled": True, "defaultLocationId": None}
    assert settings_of(shop) == LocationSettings(True, None)
    # PUT settings replaces both: left out, the default is cleared.
    shop.ok(shop.put(f"/locations/{north}/default"))
    assert shop.ok(shop.put("/locations/settings", {"locationsEnabled": False})) == {
        "locationsEnabled": False,
        "defaultLocationId": None,
    }
    problem(shop.put("/locations/settings", {}), 400)
    problem(shop.put("/locations/loc_nope/default"), 404)


def test_an_inactive_location_cannot_be_the_default_and_deactivating_clears_it(
    shop: Shop,
) -> None:
    main = location(shop, "Main")
    spare = location(shop, "Spare")
    shop.ok(shop.put(f"/locations/{spare}/default"))
    shop.ok(shop.put(f"/locations/{spare}", {"name": "Spare", "isActive": False}))
    assert settings_of(shop).default_location_id is None
    problem(shop.put(f"/locations/{spare}/default"), 409)
    refused = shop.put(
        "/locations/settings", {"locationsEnabled": True, "defaultLocationId": spare}
    )
    assert error_fields(refused) == ["defaultLocationId"]
    assert shop.ok(shop.put(f"/locations/{main}/default"))["defaultLocationId"] == main


def test_a_location_uses_its_rate_else_the_merchant_default(shop: Shop) -> None:
    own = shop.created("/tax-rates", {"name": "Own", "percent": 9})["taxRateId"]
    default = shop.created("/tax-rates", {"name": "Default", "percent": 7, "isDefault": True})
    lid = location(shop, "Main", taxRateId=own)
    bare = location(shop, "Bare")
    assert shop.ok(shop.get(f"/locations/{lid}"))["effectiveTaxRateId"] == own
    assert shop.ok(shop.get(f"/locations/{bare}"))["effectiveTaxRateId"] == default["taxRateId"]
    shop.ok(shop.post(f"/tax-rates/{own}/deactivate"))
    assert shop.ok(shop.get(f"/locations/{lid}"))["effectiveTaxRateId"] == default["taxRateId"]
    shop.ok(shop.post(f"/tax-rates/{default['taxRateId']}/deactivate"))
    assert shop.ok(shop.get(f"/locations/{lid}"))["effectiveTaxRateId"] is None
    # A switched-off rate may still be attached; the location then falls back.
    again = shop.put(f"/locations/{lid}", {"name": "Main", "isActive": True, "taxRateId": own})
    assert shop.ok(again)["taxRateId"] == own


# --- charges take their location by the same rule ------------------------------------------


def charge(shop: Shop, **extra: Any) -> Any:
    return shop.client.post(
        "/api/payments/charge",
        json={
            "amount": {"value": "10.00", "currency": "USD"},
            "gatewayName": "simulator",
            "paymentMethodToken": "sim_card_ok",
            **extra,
        },
        headers={**shop.headers, "X-Merchant-Reference": shop.ref},
    )


def test_a_charge_gets_its_location_by_the_defaulting_rule(shop: Shop, sister: Shop) -> None:
    shop.ok(shop.put("/credentials/simulator", {"apiSecret": "s", "environment": "Sandbox"}))
    main = location(shop, "Main")
    north = location(shop, "North")
    # Locations off: none unless one is sent.
    assert charge(shop).json()["locationId"] is None
    assert charge(shop, locationId=north).json()["locationId"] == north
    # On, with a default: the default; a sent one still wins.
    shop.ok(shop.put("/locations/settings", {"locationsEnabled": True, "defaultLocationId": main}))
    made = charge(shop)
    assert made.status_code == 201, made.text
    assert made.json()["locationId"] == main
    assert charge(shop, locationId=north).json()["locationId"] == north
    stored = shop.read(lambda uow, m: uow.transactions.get(m, made.json()["transactionId"]))
    assert stored.location_id == main
    # A location that is not the merchant's (or is switched off) is 400; nothing is charged.
    before = len(shop.read(lambda uow, m: uow.transactions.list(m)))
    theirs = location(sister, "Theirs")
    shop.ok(shop.put(f"/locations/{north}", {"name": "North", "isActive": False}))
    for wrong in (theirs, "loc_nope", north):
        assert error_fields(charge(shop, locationId=wrong)) == ["locationId"]
    assert len(shop.read(lambda uow, m: uow.transactions.list(m))) == before
