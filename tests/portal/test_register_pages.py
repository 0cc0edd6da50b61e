"""The register over HTTP: the till, the priced review (the location's rate, else the
default), and sales on the simulator that happen once per sale form, even when the form is
sent again or the gateway times out."""

from __future__ import annotations

import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.services.catalog import ProductInput
from payhub.services.locations import LocationInput
from tests.conftest import Account
from tests.portal.shop_support import Signed, signed_in_shop, with_simulator
from tests.portal.support import Browser, csrf_of

_HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)"')


@pytest.fixture
def shop(
    hub: PayHub,
    sandbox_provider: Account,
    browse: Callable[..., Browser],
    client: TestClient[Litestar],
) -> Signed:
    s = signed_in_shop(hub, sandbox_provider, browse, client, role="staff")
    with_simulator(s)
    return s


@pytest.fixture
def till(shop: Signed) -> dict[str, Any]:
    sc = shop.scope
    city = sc.tax_rates.create("City", Decimal("8.25")).rate
    county = sc.tax_rates.create("County", Decimal("6"), is_default=True).rate
    coffee = sc.categories.create("Coffee", "#5B3A29", 10)
    cakes = sc.categories.create("Cakes", "#FFCC00", 20)
    hidden = sc.categories.create("Old menu", "#000000", 5)
    flat = sc.products.create(ProductInput("Flat white", Decimal("3.45"), category_id=coffee.id))
    brownie = sc.products.create(ProductInput("Brownie", Decimal("2.10"), category_id=cakes.id))
    bag = sc.products.create(ProductInput("Paper bag", Decimal("0.10"), taxable=False))
    old = sc.products.create(ProductInput("Gone latte", Decimal("9"), category_id=hidden.id))
    sc.categories.set_active(hidden.id, False)
    main = sc.locations.create(LocationInput("Main Street", tax_rate_id=city.id)).location
    airport = sc.locations.create(LocationInput("Airport")).location
    register = sc.registers.create(main.id, "Till 1").register
    other = sc.registers.create(airport.id, "Gate till").register
    return {
        "city": city,
        "county": county,
        "flat": flat,
        "brownie": brownie,
        "bag": bag,
        "old": old,
        "register": register.id,
        "other": other.id,
        "main": main.id,
    }


def _reg(till: dict[str, Any], which: str = "register") -> str:
    return f"/portal/register/{till[which]}"


def _review(
    shop: Signed, till: dict[str, Any], qty: dict[str, int], which: str = "register"
) -> Any:
    data = {f"qty-{till[k].id}": str(v) for k, v in qty.items()}
    return shop.form(_reg(till, which), _reg(till, which) + "/review", data)


def _hidden(html: str) -> dict[str, str]:
    return dict(_HIDDEN.findall(html))


def test_the_till_shows_active_categories_as_coloured_blocks_in_order(
    shop: Signed, till: dict[str, Any]
) -> None:
    listing = shop.browser.get("/portal/register")
    assert "Till 1" in listing.text
    page = shop.browser.get(_reg(till)).text
    assert page.index("Coffee") < page.index("Cakes") < page.index("Other")
    assert f'class="category-block cat-{till["flat"].category_id}"' in page
    assert "Flat white" in page
    assert "Paper bag" in page
    assert "Gone latte" not in page
    assert "Old menu" not in page
    assert "City (8.25%)" in page


def test_review_prices_each_line_at_the_locations_rate_rounded_half_up(
    shop: Signed, till: dict[str, Any]
) -> None:
    page = _review(shop, till, {"flat": 3, "brownie": 1, "bag": 2})
    assert page.status_code == 200
    # 10.35 * 8.25% = 0.853875 -> 0.85; 2.10 * 8.25% = 0.17325 -> 0.17; the bag is untaxed.
    assert 'id="subtotal">$12.65<' in page.text
    assert 'id="tax">$1.02<' in page.text
    assert 'id="total">$13.67<' in page.text
    assert "City, 8.25%" in page.text
    # The airport has no rate of its own: the merchant default (County 6 %).
    other = _review(shop, till, {"brownie": 1}, "other")
    assert 'id="tax">$0.13<' in other.text
    assert "County, 6%" in other.text
    # With the default archived too, no tax at all.
    shop.scope.tax_rates.set_active(till["county"].id, False)
    other = _review(shop, till, {"brownie": 1}, "other")
    assert 'id="tax">$0.00<' in other.text


def test_review_refuses_nothing_picked_bad_quantities_and_archived_products(
    shop: Signed, till: dict[str, Any]
) -> None:
    assert _review(shop, till, {}).status_code == 400
    bad = shop.form(_reg(till), _reg(till) + "/review", {f"qty-{till['flat'].id}": "1.5"})
    assert bad.status_code == 400
    assert 'value=""' in bad.text
    hidden = shop.form(_reg(till), _reg(till) + "/review", {f"qty-{till['old'].id}": "1"})
    assert hidden.status_code == 400  # not offered: its category is archived


def _pay(shop: Signed, review_html: str, **extra: str) -> Any:
    data = {**_hidden(review_html), "csrf_token": csrf_of(review_html), **extra}
    action = re.search(r'<form method="post" action="([^"]+/sales)"', review_html)
    assert action
    return shop.browser.post(action.group(1), data)


def _transactions(shop: Signed) -> list[Any]:
    return shop.scope.payments.list()[0]


def test_a_card_sale_happens_once_however_often_the_form_is_sent(
    shop: Signed, till: dict[str, Any]
) -> None:
    review = _review(shop, till, {"flat": 2})
    assert _hidden(review.text)["saleKey"].startswith("sale_")
    first = _pay(shop, review.text, pay="card", paymentMethodToken="sim_card_ok_a1")
    assert first.status_code == 303, first.text
    again = _pay(shop, review.text, pay="card", paymentMethodToken="sim_card_ok_a1")
    assert again.status_code == 303
    assert again.headers["location"] == first.headers["location"]  # the same sale
    [tx] = _transactions(shop)
    assert tx.amount.amount == Decimal("7.47")  # 6.90 + 0.57 tax
    assert tx.location_id == till["main"]
    receipt = shop.browser.get(first.headers["location"])
    assert receipt.status_code == 200
    assert "Paid: $7.47" in receipt.text
    assert "Flat white" in receipt.text
    # A new review is a new sale form: a new key, a second sale.
    fresh = _review(shop, till, {"flat": 2})
    assert _hidden(fresh.text)["saleKey"] != _hidden(review.text)["saleKey"]
    assert (
        _pay(shop, fresh.text, pay="card", paymentMethodToken="sim_card_ok_b2").status_code == 303
    )
    assert len(_transactions(shop)) == 2


def test_a_timed_out_sale_is_retried_under_the_same_key_and_charged_once(
    shop: Signed, till: dict[str, Any]
) -> None:
    review = _review(shop, till, {"brownie": 1})
    key = _hidden(review.text)["saleKey"]
    # The simulator's timeout token: the charge goes through, the answer is lost once.
    lost = _pay(shop, review.text, pay="card", paymentMethodToken="sim_card_timeout_c3")
    assert lost.status_code == 504
    assert "Try again" in lost.text
    assert "never charges it twice" in lost.text
    kept = _hidden(lost.text)
    assert kept["saleKey"] == key
    assert kept["paymentMethodToken"] == "sim_card_timeout_c3"
    retried = _pay(shop, lost.text)
    assert retried.status_code == 303, retried.text
    [tx] = _transactions(shop)
    assert tx.status.value == "Captured"
    assert tx.amount.amount == Decimal("2.27")


def test_a_new_key_per_attempt_would_time_out_again(shop: Signed, till: dict[str, Any]) -> None:
    """The check above can fail: the earlier bug (a fresh key on every attempt) never gets
    the lost charge back and leaves a second charge attempt behind."""
    review = _review(shop, till, {"brownie": 1})
    lost = _pay(shop, review.text, pay="card", paymentMethodToken="sim_card_timeout_d4")
    assert lost.status_code == 504
    buggy = _pay(shop, lost.text, saleKey="sale_a-different-key-each-time")
    assert buggy.status_code == 504
    assert len(_transactions(shop)) == 2


def test_a_decline_gets_a_fresh_key_and_nothing_is_charged(
    shop: Signed, till: dict[str, Any]
) -> None:
    review = _review(shop, till, {"brownie": 1})
    declined = _pay(shop, review.text, pay="card", paymentMethodToken="sim_card_decline_e5")
    assert declined.status_code == 402
    assert "Nothing was charged" in declined.text
    assert _hidden(declined.text)["saleKey"] != _hidden(review.text)["saleKey"]
    ok = _pay(shop, declined.text, pay="card", paymentMethodToken="sim_card_ok_e6")
    assert ok.status_code == 303
    assert [t.status.value for t in _transactions(shop)].count("Captured") == 1


def test_the_same_key_for_another_sale_is_refused(shop: Signed, till: dict[str, Any]) -> None:
    review = _review(shop, till, {"brownie": 1})
    assert (
        _pay(shop, review.text, pay="card", paymentMethodToken="sim_card_ok_f7").status_code == 303
    )
    other = _pay(
        shop,
        review.text,
        **{f"qty-{till['brownie'].id}": "5"},
        pay="card",
        paymentMethodToken="sim_card_ok_f8",
    )
    assert other.status_code == 409
    assert "already used for another sale" in other.text
    assert len(_transactions(shop)) == 1


def test_a_customers_saved_method(shop: Signed, till: dict[str, Any]) -> None:
    customer = shop.api.post(
        shop.api_path("/customers"),
        headers=shop.account.headers,
        json={"name": {"first": "Ada", "last": "Lovelace"}},
    ).json()
    method = shop.api.post(
        shop.api_path(f"/customers/{customer['customerId']}/payment-methods/simulator"),
        headers=shop.account.headers,
        json={"paymentMethodToken": "sim_card_ok"},
    ).json()
    review = _review(shop, till, {"flat": 1})
    assert "Ada Lovelace: Visa ending in 4242" in review.text
    missing = _pay(shop, review.text, pay="saved")
    assert missing.status_code == 400
    assert 'id="savedMethod-error"' in missing.text
    chosen = f"{customer['customerId']}/{method['paymentMethodId']}"
    paid = _pay(shop, review.text, pay="saved", savedMethod=chosen)
    assert paid.status_code == 303, paid.text
    [tx] = _transactions(shop)
    assert tx.customer_id == customer["customerId"]
    assert tx.payment_method_id == method["paymentMethodId"]


def test_a_switched_off_register_takes_no_sale(shop: Signed, till: dict[str, Any]) -> None:
    review = _review(shop, till, {"flat": 1})
    shop.scope.registers.set_active(till["register"], False)
    assert shop.browser.get(_reg(till)).status_code == 409
    refused = _pay(shop, review.text, pay="card", paymentMethodToken="sim_card_ok_g9")
    assert refused.status_code == 409
    assert _transactions(shop) == []
