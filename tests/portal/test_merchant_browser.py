"""The merchant's pages in Debian's chromium against a real ``payhub serve``: each page's main
action at 375 px and at desktop width, by keyboard where it matters, axe-core with no serious
or critical violation, and nothing wider than the screen. Screenshots:
``test-artifacts/portal/merchant-*.png``.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.pages.live import Live
from tests.portal.support import PASSWORD
from tests.portal.test_portal_browser import fits, in_process, live, serious, shot, user

pytestmark = [pytest.mark.browser, pytest.mark.slow]
__all__ = ["live"]  # the module's server fixture, shared with the sign-in tests' helpers

WIDTHS = {"phone": (375, 740), "desktop": (1280, 900)}


class Data:
    ref: str
    customer_id: str
    invoice: str
    captured: str


@pytest.fixture(scope="module")
def data(live: Live) -> Data:
    ref = live.merchant("Northwind Heating and Air Conditioning Services")
    m = f"/api/merchant-accounts/{ref}"
    customer_id = live.customer(ref)
    card = {"paymentMethodToken": "sim_card_ok", "type": "Card"}
    live.ok(live.api.post(f"{m}/customers/{customer_id}/payment-methods/simulator", json=card), 201)
    live.ok(live.api.post(f"{m}/products", json={
        "name": "Furnace tune-up", "unitPrice": 89.00, "kind": "Service"}), 201)  # fmt: skip
    invoice = live.invoice(ref, customer_id)
    charge = live.ok(live.api.post("/api/payments/charge", headers={"X-Merchant-Reference": ref},
                                   json={"amount": {"value": 64.50, "currency": "USD"},
                                         "gatewayName": "simulator",
                                         "paymentMethodToken": "sim_card_ok", "type": "Card"}),
                     201)  # fmt: skip
    user(live, f"owner@{ref}.example", "owner", ref)
    made = Data()
    made.ref = ref
    made.customer_id = customer_id
    made.invoice = invoice["invoiceNumber"]
    made.captured = charge["transactionId"]
    return made


@pytest.fixture(params=list(WIDTHS))
def tab(browser: Browser, request: pytest.FixtureRequest) -> Iterator[tuple[Page, str, int]]:
    width, height = WIDTHS[request.param]
    context = browser.new_context(viewport={"width": width, "height": height})
    yield context.new_page(), request.param, width
    context.close()


def sign_in(page: Page, live: Live, data: Data, path: str) -> None:
    page.goto(live.base + path)
    page.get_by_label("Email address").fill(f"owner@{data.ref}.example")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_label("Password").press("Enter")
    expect(page).to_have_url(live.base + path)


def check(page: Page, width: int, name: str) -> None:
    """No serious axe violation, nothing wider than the screen, a screenshot to look at."""
    assert serious(page) == [], name
    fits(page, width)
    shot(page, name)


def test_settings_business_details_and_live_number_preview(
    live: Live, data: Data, tab: tuple[Page, str, int]
) -> None:
    page, size, width = tab
    sign_in(page, live, data, "/portal/settings")
    check(page, width, f"merchant-settings-{size}")
    page.get_by_label("Business name").fill(f"Northwind ({size})")
    page.get_by_label("Phone").fill("512 555 0142")
    page.get_by_role("button", name="Save business details").click()
    expect(page.get_by_role("status").first).to_contain_text("Business details saved")
    # The live preview: the script asks the server as the format is typed.
    page.get_by_label("Format", exact=True).fill("NW-{YY}{MM}-{###}")
    expect(page.locator("#numbering-preview")).to_contain_text("NW-")
    page.get_by_label("Format", exact=True).fill("NW-{ZZ}")
    expect(page.locator("#numbering-preview")).to_contain_text("unknown token")
    check(page, width, f"merchant-settings-preview-{size}")
    hub = in_process(live)
    try:
        scope = hub.provider(hub.as_provider(_provider_of(hub, data.ref))).merchant(data.ref)
        assert scope.profile.get().business_name == f"Northwind ({size})"
    finally:
        hub.close()


def _provider_of(hub: Any, ref: str) -> str:
    return next(
        m.provider_id for m in hub.operators.list_merchants() if m.external_reference == ref
    )


def test_customer_page_and_consent_by_keyboard(
    live: Live, data: Data, tab: tuple[Page, str, int]
) -> None:
    page, size, width = tab
    sign_in(page, live, data, "/portal/customers")
    check(page, width, f"merchant-customers-{size}")
    page.get_by_role("link", name="Ann Payer").first.click()
    expect(page.get_by_role("heading", name="Invoices")).to_be_visible()
    # The earlier bug: the invoice table's Due column cut off on a phone. Every cell of the
    # table is inside the screen.
    due = page.locator('td[data-label="Due"]').first
    box = due.bounding_box()
    assert box is not None
    assert box["x"] >= 0
    assert box["x"] + box["width"] <= width
    check(page, width, f"merchant-customer-{size}")
    # Consent, by keyboard only.
    page.locator("#consent-give").focus()
    page.keyboard.press("Space")
    page.locator("#confirm").focus()
    page.keyboard.press("Space")
    page.keyboard.press("Enter")
    expect(page.get_by_role("status")).to_contain_text("Consent recorded in your name")
    expect(page.get_by_text("Olive Operator (owner@").first).to_be_visible()
    check(page, width, f"merchant-customer-consent-{size}")


def test_new_invoice_from_the_catalog_then_send(
    live: Live, data: Data, tab: tuple[Page, str, int]
) -> None:
    page, size, width = tab
    sign_in(page, live, data, "/portal/invoices")
    check(page, width, f"merchant-invoices-{size}")
    page.get_by_role("link", name="New invoice").click()
    page.get_by_label("Customer").select_option(data.customer_id)
    page.get_by_label("Product 1").select_option(label="Furnace tune-up · $89.00")
    page.locator("#quantity1").fill("2")
    check(page, width, f"merchant-invoice-new-{size}")
    page.get_by_role("button", name="Create invoice").click()
    expect(page.locator(".notice.ok")).to_contain_text("Invoice created")
    expect(page.get_by_role("button", name="Copy: Link for the customer")).to_be_visible()
    check(page, width, f"merchant-invoice-{size}")
    page.get_by_role("button", name="Send invoice").click()
    expect(page.locator(".notice.ok")).to_contain_text("Invoice sent")
    expect(page.get_by_role("button", name="Resend invoice")).to_be_visible()


def test_partial_refund_from_the_transaction_page(
    live: Live, data: Data, tab: tuple[Page, str, int]
) -> None:
    page, size, width = tab
    sign_in(page, live, data, "/portal/payments")
    check(page, width, f"merchant-payments-{size}")
    page.goto(f"{live.base}/portal/payments/{data.captured}")
    page.get_by_label("Amount to refund").fill("1.25")
    check(page, width, f"merchant-payment-{size}")
    page.get_by_role("button", name="Refund").click()
    expect(page.get_by_role("status")).to_contain_text("Refund made")
    expect(page.get_by_text("$1.25").first).to_be_visible()
    check(page, width, f"merchant-payment-refunded-{size}")


def test_owner_issues_a_key_shown_once(live: Live, data: Data, tab: tuple[Page, str, int]) -> None:
    page, size, width = tab
    sign_in(page, live, data, "/portal/keys")
    page.get_by_label("Label").fill(f"till {size}")
    page.get_by_label("Label").press("Enter")
    key = page.locator("#issued-key")
    expect(key).to_contain_text("_sandbox_")
    secret = key.inner_text()
    check(page, width, f"merchant-keys-{size}")
    headers = {"X-Api-Key": secret}
    assert live.api.get(f"/api/merchant-accounts/{data.ref}/customers", headers=headers).is_success
    page.goto(live.base + "/portal/keys")
    assert secret not in page.content()


def png(width: int = 120, height: int = 40) -> bytes:
    """A small real PNG (a blue bar), so chromium draws it."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (
            struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
        )

    rows = b"".join(b"\x00" + b"\x0b\x5c\xad" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def test_logo_and_details_on_the_pay_page(
    live: Live, data: Data, tab: tuple[Page, str, int], tmp_path: Path
) -> None:
    page, size, width = tab
    sign_in(page, live, data, "/portal/settings")
    page.get_by_label("Business name").fill("Northwind Heating")
    page.get_by_label("Contact email").fill("desk@northwind.example")
    page.get_by_label("Street address").fill("12 Furnace Row")
    page.get_by_label("City").fill("Austin")
    page.get_by_role("button", name="Save business details").click()
    expect(page.get_by_role("status").first).to_contain_text("Business details saved")
    logo = tmp_path / "logo.png"
    logo.write_bytes(png())
    page.get_by_label("Logo image").set_input_files(str(logo))
    page.get_by_role("button", name="Upload logo").click()
    expect(page.get_by_role("img", name="Your current logo")).to_be_visible()
    pay_url = live.read(data.ref, data.invoice)["payUrl"]
    page.goto(pay_url)
    expect(page.get_by_role("img", name="Northwind Heating logo")).to_be_visible()
    expect(page.get_by_text("12 Furnace Row, Austin")).to_be_visible()
    expect(page.get_by_text("desk@northwind.example")).to_be_visible()
    check(page, width, f"merchant-pay-page-branded-{size}")
