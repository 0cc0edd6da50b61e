"""The catalog pages over HTTP: each page and action, through the API's own services, with
the spec's rules (and their errors) shown on the page."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from tests.conftest import Account
from tests.portal.shop_support import Signed, signed_in_shop
from tests.portal.support import Browser


@pytest.fixture
def shop(
    hub: PayHub,
    sandbox_provider: Account,
    browse: Callable[..., Browser],
    client: TestClient[Litestar],
) -> Signed:
    return signed_in_shop(hub, sandbox_provider, browse, client)


def test_products_create_edit_archive_restore(shop: Signed) -> None:
    drinks = shop.scope.categories.create("Drinks", "#aa0000", 1)
    made = shop.form(
        "/portal/catalog/products/new",
        "/portal/catalog/products",
        {
            "name": "Flat white",
            "unitPrice": "3.40",
            "currency": "usd",
            "kind": "Service",
            "taxable": "on",
            "categoryId": drinks.id,
            "sku": "FW-1",
        },
    )
    assert made.status_code == 303
    product_id = made.headers["location"].rsplit("/", 1)[-1]
    stored = shop.scope.products.get(product_id)
    assert (stored.name, stored.unit_price.amount, stored.unit_price.currency) == (
        "Flat white",
        Decimal("3.40"),
        "USD",
    )
    assert stored.taxable
    assert stored.category_id == drinks.id
    assert stored.sku == "FW-1"
    listing = shop.browser.get("/portal/catalog")
    assert "Flat white" in listing.text
    assert "$3.40" in listing.text
    assert "Drinks" in listing.text
    page = f"/portal/catalog/products/{product_id}"
    edited = shop.form(
        page,
        page,
        {
            "name": "Flat white (large)",
            "unitPrice": "3.90",
            "currency": "USD",
            "kind": "NonInventory",
        },
    )
    assert edited.status_code == 303
    stored = shop.scope.products.get(product_id)
    assert stored.name == "Flat white (large)"
    assert stored.unit_price.amount == Decimal("3.90")
    assert not stored.taxable
    assert stored.category_id is None
    assert shop.form(page, page + "/archive").status_code == 303
    assert not shop.scope.products.get(product_id).active
    assert "Flat white" not in shop.browser.get("/portal/catalog").text
    assert "Flat white" in shop.browser.get("/portal/catalog?show=all").text
    assert shop.form(page, page + "/restore").status_code == 303
    assert shop.scope.products.get(product_id).active


def test_product_errors_are_shown_on_the_form(shop: Signed) -> None:
    bad = shop.form(
        "/portal/catalog/products/new",
        "/portal/catalog/products",
        {"name": "", "unitPrice": "1,0.5", "currency": "USD", "kind": "Service"},
    )
    assert bad.status_code == 400
    assert "There is a problem" in bad.text
    assert 'aria-invalid="true"' in bad.text
    assert shop.scope.products.list().items == []
    shop.scope.products.create(
        __import__("payhub.services.catalog", fromlist=["ProductInput"]).ProductInput(
            "Tea", Decimal(2), sku="T-1"
        )
    )
    dup = shop.form(
        "/portal/catalog/products/new",
        "/portal/catalog/products",
        {"name": "Tea 2", "unitPrice": "2", "currency": "USD", "kind": "Service", "sku": "T-1"},
    )
    assert dup.status_code == 409
    assert len(shop.scope.products.list().items) == 1


def test_categories_with_colours_and_order(shop: Signed) -> None:
    made = shop.form(
        "/portal/catalog/categories",
        "/portal/catalog/categories",
        {"name": "Pastries", "color": "#FFCC00", "sortOrder": "20"},
    )
    assert made.status_code == 303
    shop.form(
        "/portal/catalog/categories",
        "/portal/catalog/categories",
        {"name": "Coffee", "color": "#5b3a29", "sortOrder": "10"},
    )
    rows = {c.name: c for c in shop.scope.categories.list().items}
    assert rows["Pastries"].color == "#FFCC00"
    assert rows["Pastries"].sort_order == 20
    page = shop.browser.get("/portal/catalog/categories").text
    assert page.index("Coffee") < page.index("Pastries")  # register order
    css = shop.browser.get("/portal/catalog/colours.css")
    assert css.headers["content-type"].startswith("text/css")
    # Dark brown gets white text, yellow gets black: both readable.
    assert f".cat-{rows['Coffee'].id}{{background:#5B3A29;color:#ffffff" in css.text
    assert f".cat-{rows['Pastries'].id}{{background:#FFCC00;color:#000000" in css.text
    dup = shop.form(
        "/portal/catalog/categories",
        "/portal/catalog/categories",
        {"name": "coffee", "color": "#000000", "sortOrder": "1"},
    )
    assert dup.status_code == 409
    assert "already named" in dup.text
    colon = shop.form(
        "/portal/catalog/categories",
        "/portal/catalog/categories",
        {"name": "Hot: drinks", "color": "#000000", "sortOrder": "1"},
    )
    assert colon.status_code == 400
    page_url = f"/portal/catalog/categories/{rows['Pastries'].id}"
    edited = shop.form(page_url, page_url, {"name": "Bakery", "color": "#ffffff", "sortOrder": "5"})
    assert edited.status_code == 303
    bakery = shop.scope.categories.get(rows["Pastries"].id)
    assert (bakery.name, bakery.color, bakery.sort_order) == ("Bakery", "#FFFFFF", 5)
    assert shop.form(page_url, page_url + "/archive").status_code == 303
    assert not shop.scope.categories.get(bakery.id).active
    assert shop.form(page_url, page_url + "/restore").status_code == 303
    assert shop.scope.categories.get(bakery.id).active


def test_tax_rates_create_default_edit_archive(shop: Signed) -> None:
    page = "/portal/catalog/tax-rates"
    assert (
        shop.form(page, page, {"name": "City", "percent": "8.25", "isDefault": "on"}).status_code
        == 303
    )
    assert shop.form(page, page, {"name": "County", "percent": "6"}).status_code == 303
    rates = {v.rate.name: v for v in shop.scope.tax_rates.list().items}
    assert rates["City"].is_default
    assert rates["City"].rate.percent == Decimal("8.25")
    county = rates["County"].rate.id
    assert shop.form(page, f"{page}/{county}/default").status_code == 303
    assert shop.scope.tax_rates.get(county).is_default
    assert (
        shop.form(page, f"{page}/{county}", {"name": "County", "percent": "6.5"}).status_code == 303
    )
    assert shop.scope.tax_rates.get(county).rate.percent == Decimal("6.5")
    bad = shop.form(page, page, {"name": "Silly", "percent": "101"})
    assert bad.status_code == 400
    assert "There is a problem" in bad.text
    assert shop.form(page, f"{page}/{county}/archive").status_code == 303
    assert not shop.scope.tax_rates.get(county).is_default  # archiving the default clears it
    refused = shop.form(page, f"{page}/{county}/default")
    assert refused.status_code == 409
    assert "inactive" in refused.text


def test_locations_settings_and_registers_and_rule_1(shop: Signed) -> None:
    page = "/portal/catalog/locations"
    made = shop.form(
        page,
        page,
        {
            "name": "Main Street",
            "shortCode": "main",
            "address-line1": "1 Main St",
            "address-city": "Austin",
        },
    )
    assert made.status_code == 303
    main = made.headers["location"].rsplit("/", 1)[-1]
    shop.form(page, page, {"name": "Airport"})
    loc = shop.scope.locations.get(main).location
    assert loc.short_code == "MAIN"
    assert loc.address
    assert loc.address.line1 == "1 Main St"
    # Settings: on, with Main Street the default.
    assert (
        shop.form(
            page, page + "/settings", {"locationsEnabled": "on", "defaultLocationId": main}
        ).status_code
        == 303
    )
    settings = shop.scope.locations.settings()
    assert settings.locations_enabled
    assert settings.default_location_id == main
    # A register at Main Street.
    loc_page = f"{page}/{main}"
    assert (
        shop.form(loc_page, loc_page + "/registers", {"registerName": "Till 1"}).status_code == 303
    )
    [register] = shop.scope.registers.list(main)
    assert register.register.name == "Till 1"
    assert register.register.active
    shown = shop.browser.get(loc_page).text
    assert "Till 1" in shown
    assert f"/portal/register/{register.register.id}" in shown
    # Rule 1: switching the location off is refused while the register is on, and says why.
    refused = shop.form(loc_page, loc_page + "/switch", {"active": "off"})
    assert refused.status_code == 409
    assert "still has an active register" in refused.text
    assert shop.scope.locations.get(main).location.active
    # The details form's checkbox is refused the same way.
    refused = shop.form(loc_page, loc_page, {"name": "Main Street"})
    assert refused.status_code == 409
    assert shop.scope.locations.get(main).location.active
    # Switch the register off, then the location goes off (and stops being the default).
    reg = f"/portal/catalog/registers/{register.register.id}"
    assert shop.form(loc_page, reg + "/switch", {"active": "off"}).status_code == 303
    assert shop.form(loc_page, loc_page + "/switch", {"active": "off"}).status_code == 303
    assert not shop.scope.locations.get(main).location.active
    assert shop.scope.locations.settings().default_location_id is None
    # A register cannot be switched on, nor added, at a location that is off.
    back_on = shop.form(loc_page, reg + "/switch", {"active": "on"})
    assert back_on.status_code == 409
    assert "switched off" in back_on.text
    assert not shop.scope.registers.get(register.register.id).register.active
    # The last active location cannot go off (rule 1, second half).
    airport = next(v for v in shop.scope.locations.list().items if v.location.name == "Airport")
    last = shop.form(
        f"{page}/{airport.location.id}", f"{page}/{airport.location.id}/switch", {"active": "off"}
    )
    assert last.status_code == 409
    assert "last active location" in last.text
    # Renaming a register.
    assert shop.form(loc_page, reg, {"name": "Front till"}).status_code == 303
    assert shop.scope.registers.get(register.register.id).register.name == "Front till"


def test_location_errors_name_the_field(shop: Signed) -> None:
    page = "/portal/catalog/locations"
    bad = shop.form(page, page, {"name": "X", "shortCode": "TOOLONG7", "address-city": "c" * 101})
    assert bad.status_code == 400
    assert 'id="shortCode-error"' in bad.text
    assert 'id="address-city-error"' in bad.text
    bad_default = shop.form(page, page + "/settings", {"defaultLocationId": "loc_nope"})
    assert bad_default.status_code == 400
