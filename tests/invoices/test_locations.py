"""Invoices and locations over HTTP (spec Location rules 3 and 5): which location a new invoice
gets, and when the location's tax rate is the invoice's; asserted in the database too."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from tests.invoices.conftest import Invoicing, money


def _rate(shop: Invoicing, name: str, percent: float) -> str:
    return str(shop.created("/tax-rates", {"name": name, "percent": percent})["taxRateId"])


def _location(shop: Invoicing, name: str, rate_id: str | None = None) -> str:
    body: dict[str, Any] = {"name": name}
    if rate_id is not None:
        body["taxRateId"] = rate_id
    return str(shop.created("/locations", body)["locationId"])


def test_location_rule_5_the_locations_rate_is_used_when_none_is_sent(
    shop: Invoicing,
) -> None:
    city = _rate(shop, "City", 10)
    downtown = _location(shop, "Downtown", city)
    body = shop.invoice(locationId=downtown)  # 2 x 12.50 = 25.00
    assert body["locationId"] == downtown
    assert body["taxRateId"] == city
    assert money(body["taxRatePercent"]) == 10
    assert money(body["tax"]) == Decimal("2.50")
    assert money(body["total"]) == Decimal("27.50")
    stored = shop.stored(body["invoiceNumber"])
    assert (stored.location_id, stored.tax_rate_id, stored.tax_percent) == (
        downtown,
        city,
        Decimal(10),
    )
    assert stored.tax.amount == Decimal("2.50")
    # A zero percent is "none sent": the location's rate still applies.
    zero = shop.invoice(locationId=downtown, taxRatePercent=0)
    assert (money(zero["taxRatePercent"]), money(zero["tax"])) == (10, Decimal("2.50"))
    assert zero["taxRateId"] == city


def test_location_rule_5_an_explicit_rate_or_non_zero_percent_wins(shop: Invoicing) -> None:
    downtown = _location(shop, "Downtown", _rate(shop, "City", 10))
    state = _rate(shop, "State", 6)
    named = shop.invoice(locationId=downtown, taxRateId=state)
    assert (named["taxRateId"], money(named["taxRatePercent"])) == (state, 6)
    assert money(named["tax"]) == Decimal("1.50")
    percent = shop.invoice(locationId=downtown, taxRatePercent=5)
    assert (percent["taxRateId"], money(percent["taxRatePercent"])) == (None, 5)
    assert money(percent["tax"]) == Decimal("1.25")
    assert percent["locationId"] == downtown
    stored = shop.stored(percent["invoiceNumber"])
    assert (stored.tax_rate_id, stored.tax_percent, stored.tax.amount) == (
        None,
        Decimal(5),
        Decimal("1.25"),
    )
    # Without a location there is no rate to fall back to.
    plain = shop.invoice()
    assert (plain["locationId"], plain["taxRateId"], money(plain["tax"])) == (None, None, 0)


def test_location_rule_5_later_rate_changes_do_not_alter_the_invoice(shop: Invoicing) -> None:
    city = _rate(shop, "City", 10)
    downtown = _location(shop, "Downtown", city)
    body = shop.invoice(locationId=downtown)
    number = body["invoiceNumber"]
    # The rate's percentage changes, then the location moves to another rate.
    shop.ok(shop.put(f"/tax-rates/{city}", {"name": "City", "percent": 20}))
    other = _rate(shop, "Other", 15)
    shop.ok(
        shop.put(
            f"/locations/{downtown}", {"name": "Downtown", "isActive": True, "taxRateId": other}
        )
    )
    again = shop.ok(shop.get(f"/invoices/{number}"))
    assert again == body
    stored = shop.stored(number)
    assert (stored.tax_rate_id, stored.tax_percent, stored.tax.amount) == (
        city,
        Decimal(10),
        Decimal("2.50"),
    )
    # A new invoice takes the location's rate as it is now.
    later = shop.invoice(locationId=downtown)
    assert (later["taxRateId"], money(later["taxRatePercent"])) == (other, 15)
    assert money(later["tax"]) == Decimal("3.75")


def _customer(shop: Invoicing, location_id: str | None = None) -> str:
    body: dict[str, Any] = {"name": {"first": "Ada", "last": "Lovelace"}}
    if location_id is not None:
        body["locationId"] = location_id
    return str(shop.created("/customers", body)["customerId"])


def _settings(shop: Invoicing, enabled: bool, default: str | None) -> None:
    body = {"locationsEnabled": enabled, "defaultLocationId": default}
    assert shop.ok(shop.put("/locations/settings", body)) == body


def test_location_rule_3_enabled_fills_in_the_customers_location_else_the_default(
    shop: Invoicing,
) -> None:
    main = _location(shop, "Main")
    north = _location(shop, "North")
    south = _location(shop, "South")
    with_location = _customer(shop, north)
    # Made while locations are off, so it keeps no location (rule 3 would give a customer
    # made while they are on the default).
    without = _customer(shop)
    assert shop.ok(shop.get(f"/customers/{without}"))["locationId"] is None
    _settings(shop, True, main)
    cases = [
        ({"customerId": with_location}, north),  # the customer's location
        ({"customerId": without}, main),  # else the merchant default
        ({}, main),  # no customer at all: the default
        ({"customerId": with_location, "locationId": south}, south),  # sent always wins
        ({"customerId": without, "locationId": south}, south),
    ]
    for fields, expected in cases:
        body = shop.invoice(**fields)
        assert body["locationId"] == expected, fields
        assert shop.stored(body["invoiceNumber"]).location_id == expected
    # The customer's location switched off: the default again.
    shop.ok(shop.put(f"/locations/{north}", {"name": "North", "isActive": False}))
    body = shop.invoice(customerId=with_location)
    assert shop.stored(body["invoiceNumber"]).location_id == main
    # No default and a customer without a location: none.
    assert shop.ok(shop.delete("/locations/default"))["defaultLocationId"] is None
    body = shop.invoice(customerId=without)
    assert body["locationId"] is None
    assert shop.stored(body["invoiceNumber"]).location_id is None


def test_location_rule_3_disabled_fills_in_nothing_but_a_sent_location_is_kept(
    shop: Invoicing,
) -> None:
    main = _location(shop, "Main")
    north = _location(shop, "North")
    _settings(shop, False, main)
    customer = _customer(shop, north)
    for fields in ({"customerId": customer}, {}):
        body = shop.invoice(**fields)
        assert body["locationId"] is None
        assert shop.stored(body["invoiceNumber"]).location_id is None
    sent = shop.invoice(customerId=customer, locationId=main)
    assert shop.stored(sent["invoiceNumber"]).location_id == main
    # Switching locations on affects new invoices only.
    _settings(shop, True, main)
    assert shop.ok(shop.get(f"/invoices/{body['invoiceNumber']}"))["locationId"] is None
    assert shop.invoice(customerId=customer)["locationId"] == north
