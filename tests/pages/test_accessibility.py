"""Accessibility of the pay page, measured in chromium rather than claimed.

At desktop width and at 375 px: every form control has an accessible name; the keyboard's
tab order goes amount -> payment method -> card fields -> pay button; every stop shows a
visible focus indicator; errors are announced (role=alert / aria-live); and every piece of
visible text has a contrast ratio of at least 4.5:1 against its computed background
(WCAG 2 relative luminance, computed in the page with getComputedStyle).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.pages.live import Live

pytestmark = [pytest.mark.browser, pytest.mark.slow]
_JS = Path(__file__).parent / "a11y"

WIDTHS = [pytest.param((1100, 900), id="desktop"), pytest.param((375, 740), id="phone")]

# Every input, select, textarea and button, with the name the accessibility tree gives it
# (aria-labelledby, aria-label, <label for>, wrapping <label>, or a button's own text).
UNLABELLED = (_JS / "unlabelled.js").read_text()

# Text nodes that are rendered, with their colour and the colour of the nearest ancestor
# whose background is opaque (composited over white), and the contrast ratio between them.
LOW_CONTRAST = (_JS / "low-contrast.js").read_text()

FOCUS_RING = """() => {
  const el = document.activeElement, s = getComputedStyle(el);
  const outline = s.outlineStyle !== "none" && parseFloat(s.outlineWidth) >= 2;
  const shadow = s.boxShadow && s.boxShadow !== "none";
  const id = el.type === "radio" ? el.name : (el.id || el.tagName);
  return {id, visible: outline || shadow};
}"""


def _tab_through(page: Page, stops: int = 40) -> list[dict[str, Any]]:
    """Press Tab from the top of the content and record each stop and its focus ring."""
    page.locator("main").focus()
    seen: list[dict[str, Any]] = []
    for _ in range(stops):
        page.keyboard.press("Tab")
        stop = page.evaluate(FOCUS_RING)
        if stop["id"] == "BODY" or (seen and stop["id"] == seen[0]["id"]):
            break  # left the page (to the browser's own controls) or wrapped around
        seen.append(stop)
    return seen


def _check_contrast(page: Page, where: str) -> None:
    result = page.evaluate(LOW_CONTRAST)
    assert result["checked"] > 20, f"{where}: hardly any text was measured"
    assert result["bad"] == [], f"{where}: text below 4.5:1: {result['bad']}"


@pytest.mark.parametrize("size", WIDTHS)
def test_the_pay_page_is_accessible(live: Live, browser: Browser, size: tuple[int, int]) -> None:
    ref = live.merchant()
    invoice = live.invoice(ref, live.customer(ref), partialPaymentMode="CustomerChoice",
                           dueDate="2025-12-31")  # fmt: skip
    context = browser.new_context(viewport={"width": size[0], "height": size[1]})
    try:
        page = context.new_page()
        page.goto(invoice["payUrl"])
        expect(page.get_by_label("Card number")).to_be_visible()
        assert page.evaluate(UNLABELLED) == []
        _check_contrast(page, "pay page")
        assert (
            page.evaluate("document.documentElement.scrollWidth") <= size[0]
        )  # no sideways scroll

        # Keyboard order: amount, then method, then the card fields, then the pay button.
        page.get_by_label("Another amount").check()
        order = _tab_through(page)
        ids = [s["id"] for s in order]
        wanted = ["amountChoice", "amount-input", "methodType", "card-number", "card-expiry",
                  "card-cvc", "pay-submit"]  # fmt: skip
        positions = [next((i for i, x in enumerate(ids) if x == w), -1) for w in wanted]
        assert -1 not in positions, f"tab order {ids} misses one of {wanted}"
        assert positions == sorted(positions), f"tab order {ids}"
        assert [s["id"] for s in order if not s["visible"]] == [], "a stop has no focus ring"

        # Errors are announced: a bad amount and then a declined card reach a live region.
        alert = page.locator("#pay-message")
        assert alert.get_attribute("role") == "alert"
        page.get_by_label(re.compile("Amount to pay")).fill("abc")
        page.locator("#pay-submit").click()
        expect(alert).to_contain_text("Enter the amount with a point")
        expect(page.get_by_label(re.compile("Amount to pay"))).to_have_attribute(
            "aria-invalid", "true"
        )
        _check_contrast(page, "pay page with an error")
        page.get_by_label(re.compile("Amount to pay")).fill("10.00")
        page.get_by_label("Card number").fill("4000 0000 0000 0002")
        page.get_by_label("Expiry (MM/YY)").fill("12/34")
        page.get_by_label("Security code").fill("123")
        page.locator("#pay-submit").click()
        expect(alert).to_contain_text("declined")
        assert live.read(ref, invoice["invoiceNumber"])["payments"] == []

        # After a payment: the confirmation and the SMS opt-in are labelled and readable too.
        page.get_by_label("Card number").fill("4242 4242 4242 4242")
        page.get_by_label("Security code").fill("123")  # cleared after a decline
        page.locator("#pay-submit").click()
        expect(page.get_by_role("status").filter(has_text="Payment received")).to_be_focused()
        assert page.evaluate(UNLABELLED) == []
        _check_contrast(page, "after a payment")
        page.get_by_role("button", name="Save my choice").click()
        sms = page.locator("#sms-message")
        assert sms.get_attribute("role") == "alert"
        expect(sms).to_contain_text("Tick the box")
        _check_contrast(page, "SMS opt-in with an error")
    finally:
        context.close()
