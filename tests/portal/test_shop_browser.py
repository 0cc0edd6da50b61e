"""The catalog, scheduled-payment, integration and register pages in Debian's chromium
against a real ``payhub serve``: each page's main action, a full register sale on the
simulator's hosted fields at desktop width and at 375 px (with a gateway timeout retried as
the same sale), the keyboard, and axe-core with no serious or critical violation.
Screenshots: ``test-artifacts/portal/shop-*.png``."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from payhub.domain.environments import Environment
from tests.pages.live import Live, serve_public, start
from tests.portal.support import PASSWORD, token_of
from tests.portal.test_portal_browser import fits, in_process, serious, shot

pytestmark = [pytest.mark.browser, pytest.mark.slow]
REF = "cafe-1"


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    tmp = tmp_path_factory.mktemp("shop-live")
    db_url, key = start(tmp)
    with serve_public(db_url, tmp) as base:
        server = Live(base, db_url, tmp, key)
        _stock(server)
        yield server
        server.api.close()


def _ok(answer: Any) -> dict[str, Any]:
    assert answer.status_code in (200, 201), answer.text
    body: dict[str, Any] = answer.json() if answer.content else {}
    return body


def _stock(live: Live) -> None:
    """A cafe with a catalog, a location with a register, a customer with a saved card, a
    schedule, and an owner who can sign in."""
    api = live.api
    m = f"/api/merchant-accounts/{REF}"
    _ok(
        api.post(
            "/api/merchant-accounts", json={"externalReference": REF, "displayName": "Corner Cafe"}
        )
    )
    _ok(api.put(m + "/credentials/simulator", json={"apiSecret": "s", "environment": "Sandbox"}))
    rate = _ok(api.post(m + "/tax-rates", json={"name": "City", "percent": 8.25}))
    coffee = _ok(api.post(m + "/product-categories", json={"name": "Coffee", "color": "#5B3A29"}))
    cakes = _ok(api.post(m + "/product-categories", json={"name": "Cakes", "color": "#FFCC00"}))
    _ok(
        api.put(
            m + f"/product-categories/{cakes['categoryId']}",
            json={"name": "Cakes", "color": "#FFCC00", "sortOrder": 5},
        )
    )
    for name, price, cat, taxable in (
        ("Flat white", 3.45, coffee, True),
        ("Espresso", 2.50, coffee, True),
        ("Brownie", 2.10, cakes, True),
        ("Gift card wrap", 0.50, None, False),
    ):
        body: dict[str, Any] = {
            "name": name,
            "unitPrice": price,
            "kind": "Service",
            "isTaxable": taxable,
        }
        if cat:
            body["categoryId"] = cat["categoryId"]
        _ok(api.post(m + "/products", json=body))
    location = _ok(
        api.post(m + "/locations", json={"name": "Main Street", "taxRateId": rate["taxRateId"]})
    )
    _ok(api.post(m + "/locations", json={"name": "Airport"}))
    customer = _ok(api.post(m + "/customers", json={"name": {"first": "Ada", "last": "Lovelace"}}))
    cid = customer["customerId"]
    card = _ok(
        api.post(
            m + f"/customers/{cid}/payment-methods/simulator",
            json={"paymentMethodToken": "sim_card_ok"},
        )
    )
    start_at = (datetime.now(UTC) + timedelta(days=5)).replace(microsecond=0)
    schedule = _ok(
        api.post(
            m + "/scheduled-payments",
            json={
                "customerId": cid,
                "paymentMethodId": card["paymentMethodId"],
                "startAtUtc": start_at.isoformat(),
                "cadence": "Monthly",
                "amount": 40.00,
                "currency": "USD",
                "description": "Weekly beans",
            },
        )
    )
    hub = in_process(live)
    try:
        provider = next(
            p for p in hub.operators.list_providers() if p.environment is Environment.SANDBOX
        )
        scope = hub.provider(hub.as_provider(provider.id)).merchant(REF)
        scope.registers.create(location["locationId"], "Till 1")
        made = hub.portal.create_user(
            "owner@cafe.example", "Carla Cafe", "owner", merchant_reference=REF
        )
        hub.portal.accept_invite(token_of(hub.portal.invite(made.id).url), PASSWORD)
    finally:
        hub.close()
    live.schedule_id = schedule["scheduledPaymentId"]  # type: ignore[attr-defined]  # test-only attribute


def _sign_in(page: Page, live: Live, path: str) -> None:
    page.goto(live.base + path)
    page.get_by_label("Email address").fill("owner@cafe.example")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_label("Password").press("Enter")
    expect(page).to_have_url(live.base + path)


def _clean(page: Page, name: str, width: int | None = None) -> None:
    if width:
        fits(page, width)
    assert serious(page) == [], name
    shot(page, f"shop-{name}")


@pytest.fixture
def phone(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 375, "height": 740})
    yield context.new_page()
    context.close()


def test_catalog_create_a_product_and_rule_1_on_a_location(live: Live, page: Page) -> None:
    _sign_in(page, live, "/portal/catalog")
    expect(page.get_by_role("heading", name="Products")).to_be_visible()
    _clean(page, "catalog-products")
    page.get_by_role("link", name="New product").click()
    page.get_by_label("Name").fill("Cinnamon bun")
    page.get_by_label("Unit price").fill("3.10")
    page.get_by_label("Category").select_option(label="Cakes")
    page.get_by_role("button", name="Create product").click()
    expect(page.get_by_role("heading", name="Cinnamon bun")).to_be_visible()
    _clean(page, "catalog-product")
    page.goto(live.base + "/portal/catalog/categories")
    _clean(page, "catalog-categories")
    page.goto(live.base + "/portal/catalog/tax-rates")
    _clean(page, "catalog-tax-rates")
    page.goto(live.base + "/portal/catalog/locations")
    _clean(page, "catalog-locations")
    page.get_by_role("link", name="Main Street").click()
    page.get_by_role("button", name="Switch location off").click()
    expect(page.get_by_role("alert").first).to_contain_text("still has an active register")
    _clean(page, "catalog-location-rule-1")


def test_schedule_pause_edit_resume(live: Live, page: Page) -> None:
    sid = live.schedule_id  # type: ignore[attr-defined]
    _sign_in(page, live, "/portal/schedules")
    _clean(page, "schedules")
    page.get_by_role("link", name="Ada Lovelace").click()
    page.get_by_role("button", name="Pause to edit").click()
    page.get_by_role("link", name="Edit details").click()
    expect(page).to_have_url(live.base + f"/portal/schedules/{sid}/edit")
    _clean(page, "schedule-edit")
    page.get_by_label("Amount (USD)").fill("42.50")
    page.get_by_label("Address line 1").first.fill("1 Analytical Way")
    page.get_by_role("button", name="Save changes").click()
    expect(page.get_by_role("status").first).to_contain_text("Changes saved")
    expect(page.get_by_text("$42.50").first).to_be_visible()
    _clean(page, "schedule-saved")
    page.get_by_role("button", name="Resume").click()
    expect(page.get_by_text("Active").first).to_be_visible()


def test_integrations(live: Live, page: Page) -> None:
    _sign_in(page, live, "/portal/integrations")
    expect(page.get_by_text("Not connected").first).to_be_visible()
    _clean(page, "integrations")
    page.get_by_role("link", name="Desktop accounting system").click()
    expect(page.get_by_role("heading", name="What connecting will do")).to_be_visible()
    _clean(page, "integration")


def _sell(page: Page, live: Live, name: str, width: int | None, card: str) -> None:
    page.goto(live.base + "/portal/register")  # the nav's link is the navigation owner's
    page.get_by_role("link", name="Till 1").click()
    expect(page.get_by_role("heading", name="Cakes")).to_be_visible()
    _clean(page, f"{name}-till", width)
    # Tapping a coloured product button adds one; the quantity field works too.
    page.get_by_role("button", name="Flat white").click()
    page.get_by_role("button", name="Flat white").click()
    page.get_by_role("button", name="Brownie").click()
    expect(page.locator("#picked")).to_have_text("3 items picked")
    page.get_by_role("button", name="Review sale").click()
    # 6.90 + 2.10 = 9.00; tax 0.57 + 0.17 = 0.74 (per line, half-up)
    expect(page.locator("#total")).to_have_text("$9.74")
    page.get_by_label("Card number").fill(card)
    page.get_by_label("Expiry (MM/YY)").fill("12/34")
    page.get_by_label("Security code").fill("123")
    _clean(page, f"{name}-review", width)
    page.get_by_role("button", name="Charge $9.74").click()


def test_a_register_sale_at_desktop_width(live: Live, page: Page) -> None:
    _sign_in(page, live, "/portal")
    _sell(page, live, "register-desktop", None, "4242 4242 4242 4242")
    expect(page.get_by_role("status").first).to_contain_text("Paid: $9.74")
    _clean(page, "register-desktop-receipt")


def test_a_register_sale_at_375_px_survives_a_timeout(live: Live, phone: Page) -> None:
    _sign_in(phone, live, "/portal")
    before = _sales(live)
    _sell(phone, live, "register-phone", 375, "4000 0000 0000 3238")  # the simulator's timeout card
    expect(phone.get_by_role("alert").first).to_contain_text("never charges it twice")
    _clean(phone, "register-phone-timeout", 375)
    phone.get_by_role("button", name="Try again: $9.74").click()
    expect(phone.get_by_role("status").first).to_contain_text("Paid: $9.74")
    _clean(phone, "register-phone-receipt", 375)
    assert _sales(live) == before + 1


def test_the_till_by_keyboard(live: Live, phone: Page) -> None:
    _sign_in(phone, live, "/portal/register")
    phone.get_by_role("link", name="Till 1").focus()
    phone.keyboard.press("Enter")
    espresso = phone.get_by_role("button", name="Espresso")
    espresso.focus()
    phone.keyboard.press("Enter")
    phone.keyboard.press("Space")
    expect(phone.get_by_label("Quantity of Espresso")).to_have_value("2")
    phone.get_by_role("button", name="Review sale").focus()
    phone.keyboard.press("Enter")
    expect(phone.locator("#total")).to_have_text("$5.41")  # 5.00 + 0.41


def _sales(live: Live) -> int:
    hub = in_process(live)
    try:
        provider = next(
            p for p in hub.operators.list_providers() if p.environment is Environment.SANDBOX
        )
        return len(hub.provider(hub.as_provider(provider.id)).merchant(REF).payments.list()[0])
    finally:
        hub.close()
