"""Connecting QuickBooks Online in the portal (the only way to connect): the page, Intuit's
sign-in with its state, the callback, sync now, disconnect; roles and forged callbacks."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from payhub import PayHub
from payhub.adapters.system import FixedClock
from tests.integrations.conftest import REALM, work
from tests.integrations.fakes.qbo import FakeQuickBooks
from tests.invoices.conftest import Invoicing
from tests.portal.support import Browser, make_user

PAGE = "/portal/integrations/accounting-online"


def signed_in(
    browse: Callable[..., Browser], hub: PayHub, email: str, role: str = "owner"
) -> Browser:
    make_user(hub, email, role=role, merchant="acme")
    browser = browse()
    assert browser.sign_in(email).status_code == 303
    return browser


def back_from_intuit(browser: Browser, qbo: FakeQuickBooks, realm: str = REALM) -> Any:
    started = browser.get(f"{PAGE}/connect")
    assert started.status_code == 303
    callback = urlsplit(qbo.sign_in(started.headers["location"], realm))
    assert callback.path == f"{PAGE}/callback"
    return browser.get(f"{callback.path}?{callback.query}")


def test_connect_in_the_portal_then_sync_and_disconnect(
    shop: Invoicing,
    customer: dict[str, Any],
    hub: PayHub,
    qbo: FakeQuickBooks,
    browse: Callable[..., Browser],
) -> None:
    browser = signed_in(browse, hub, "owner@acme.example")
    page = browser.get(PAGE)
    assert page.status_code == 200
    assert "Not connected" in page.text
    assert f'href="{PAGE}/connect"' in page.text

    done = back_from_intuit(browser, qbo)
    assert done.status_code == 303
    assert done.headers["location"] == f"{PAGE}?done=connected"
    page = browser.get(done.headers["location"])
    assert "QuickBooks Online is connected." in page.text
    assert "Acme Books LLC" in page.text
    assert shop.ok(shop.get("/accounting-online"))["status"] == "connected"  # the API agrees

    assert browser.submit(PAGE, f"{PAGE}/sync-now").status_code == 303
    assert "Sync in progress" in browser.get(PAGE).text
    work(hub)
    page = browser.get(PAGE)
    assert "succeeded" in page.text
    assert "customersCreated" in page.text
    assert len(qbo.records(REALM, "Customer")) == 1
    # The integrations list and the generic status agree with the connection and its sync.
    listed = browser.get("/portal/integrations").text
    assert "Connected</span> to Acme Books LLC" in listed
    status = hub.provider(hub.as_provider(shop.account.provider.id)).merchant(shop.ref).integrations
    online = status.get("accounting-online")
    assert online.connected
    assert online.last_sync is not None
    assert online.last_sync.ok
    assert "1 customersCreated" in online.last_sync.summary

    assert browser.submit(PAGE, f"{PAGE}/disconnect").status_code == 303
    page = browser.get(PAGE)
    assert "Disconnected" in page.text
    assert "disconnected by the merchant" in page.text
    assert "Reconnect to QuickBooks" in page.text
    assert back_from_intuit(browser, qbo).status_code == 303  # reconnect any time
    assert shop.ok(shop.get("/accounting-online"))["status"] == "connected"


def test_a_forged_reused_or_foreign_callback_connects_nothing(
    shop: Invoicing,
    hub: PayHub,
    qbo: FakeQuickBooks,
    browse: Callable[..., Browser],
    make_merchant: Callable[..., Any],
) -> None:
    owner = signed_in(browse, hub, "owner@acme.example")
    forged = owner.get(f"{PAGE}/callback?state=made-up&code=x&realmId={REALM}")
    assert forged.status_code == 409
    assert "unknown, used or expired" in forged.text

    started = owner.get(f"{PAGE}/connect")
    callback = urlsplit(qbo.sign_in(started.headers["location"], REALM))
    # Another merchant's owner cannot use this merchant's sign-in.
    make_merchant(shop.account, "globex")
    make_user(hub, "owner@globex.example", role="owner", merchant="globex")
    intruder = browse()
    assert intruder.sign_in("owner@globex.example").status_code == 303
    assert intruder.get(PAGE).status_code == 200
    assert intruder.get(f"{callback.path}?{callback.query}").status_code == 409
    assert shop.ok(shop.get("/accounting-online"))["status"] == "notConnected"
    # The owner's own sign-in still completes, once: the state is spent by its first use.
    assert owner.get(f"{callback.path}?{callback.query}").status_code == 303
    assert owner.get(f"{callback.path}?{callback.query}").status_code == 409
    assert shop.ok(shop.post("/accounting-online/disconnect"))["status"] == "disconnected"

    started = owner.get(f"{PAGE}/connect")
    denied = owner.get(
        f"{PAGE}/callback?error=access_denied&state="
        + urlsplit(started.headers["location"]).query.split("state=")[1].split("&")[0]
    )
    assert denied.status_code == 409
    assert "access_denied" in denied.text
    assert shop.ok(shop.get("/accounting-online"))["status"] == "disconnected"


def test_staff_see_the_status_but_cannot_connect_or_sync(
    shop: Invoicing, hub: PayHub, browse: Callable[..., Browser]
) -> None:
    staff = signed_in(browse, hub, "staff@acme.example", role="staff")
    page = staff.get(PAGE)
    assert page.status_code == 200
    assert "/connect" not in page.text
    assert staff.get(f"{PAGE}/connect").status_code == 403
    assert staff.submit(PAGE, f"{PAGE}/sync-now").status_code == 403


def test_no_api_call_connects(shop: Invoicing) -> None:
    for path in ("/accounting-online/connect", "/accounting-online/callback"):
        assert shop.post(path).status_code in (404, 405)
        assert shop.get(path).status_code in (404, 405)


def test_a_sign_in_left_longer_than_fifteen_minutes_must_start_again(
    shop: Invoicing,
    hub: PayHub,
    qbo: FakeQuickBooks,
    browse: Callable[..., Browser],
    clock: FixedClock,
) -> None:
    owner = signed_in(browse, hub, "owner@acme.example")
    started = owner.get(f"{PAGE}/connect")
    callback = urlsplit(qbo.sign_in(started.headers["location"], REALM))
    clock.advance(timedelta(minutes=16))
    late = owner.get(f"{callback.path}?{callback.query}")
    assert late.status_code == 409
    assert "expired" in late.text
    assert shop.ok(shop.get("/accounting-online"))["status"] == "notConnected"


def test_products_are_imported_from_the_company_and_linked_not_duplicated(
    shop: Invoicing, hub: PayHub, qbo: FakeQuickBooks, browse: Callable[..., Browser]
) -> None:
    by_sku = shop.created("/products", {"name": "Widget", "unitPrice": "12.50", "sku": "W-1"})
    by_name = shop.created("/products", {"name": "Install", "unitPrice": "40"})
    qbo.add_item(REALM, Name="Widget (QB)", Type="Inventory", Sku="W-1", UnitPrice=13)
    qbo.add_item(REALM, Name="install", Type="Service", UnitPrice=45)
    qbo.add_item(
        REALM,
        Name="Cable",
        Type="NonInventory",
        UnitPrice=3.25,
        Taxable=True,
        Description="per metre",
    )
    qbo.add_item(REALM, Name="Hardware", Type="Category")  # not a product
    owner = signed_in(browse, hub, "owner@acme.example")
    back_from_intuit(owner, qbo)
    assert owner.submit(PAGE, f"{PAGE}/import-products").status_code == 303
    work(hub)
    page = owner.get(PAGE)
    assert "productsImported" in page.text
    products = {p["name"]: p for p in shop.ok(shop.get("/products"))["data"]}
    assert sorted(products) == ["Cable", "Install", "Widget"]
    assert all(p["accountingItemLinked"] for p in products.values())
    cable = products["Cable"]
    assert (cable["kind"], cable["isTaxable"], cable["description"]) == (
        "NonInventory",
        True,
        "per metre",
    )
    assert products["Widget"]["productId"] == by_sku["productId"]  # matched on SKU
    assert products["Install"]["productId"] == by_name["productId"]  # then on the name
    # Importing again and syncing make no second product and push no twin item.
    owner.submit(PAGE, f"{PAGE}/import-products")
    work(hub)
    assert len(shop.ok(shop.get("/products"))["data"]) == 3
    owner.submit(PAGE, f"{PAGE}/sync-now")
    work(hub)
    assert len(qbo.records(REALM, "Item")) == 4
