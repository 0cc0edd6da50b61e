"""The API reference in a real chromium, offline: each view renders its OpenAPI 3.1 document.

Swagger UI's files come from the installed package; the page loads nothing from elsewhere
(every request the page makes is checked to stay on the server). Screenshots are saved in
``test-artifacts/reference/`` for a person to look at.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, Request, expect

from tests.pages.live import Live

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SHOTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "reference"  # git-ignored

# Each view, an operation it has (Swagger UI's id for it: tag_operationId), and a field of
# its request body.
VIEWS = [
    ("/reference", "all", "Payments", "ApiPaymentsChargeCharge", "paymentMethodToken"),
    (
        "/reference/provider",
        "provider",
        "Merchant accounts",
        "ApiMerchantAccountsCreateMerchant",
        "externalReference",
    ),
    (
        "/reference/merchant",
        "merchant",
        "Invoices",
        "ApiMerchantAccountsRefInvoicesCreateInvoice",
        "lineItems",
    ),
]


def _opened(page: Page, live: Live, path: str) -> list[str]:
    """Open ``path``; returns every URL the page requested off the server."""
    foreign: list[str] = []

    def note(request: Request) -> None:
        if not request.url.startswith(live.base) and not request.url.startswith("data:"):
            foreign.append(request.url)

    page.on("request", note)
    page.goto(live.base + path)
    return foreign


@pytest.mark.parametrize(("path", "view", "tag", "operation_id", "field"), VIEWS)
def test_each_view_renders_and_shows_a_request_schema(
    live: Live, page: Page, path: str, view: str, tag: str, operation_id: str, field: str
) -> None:
    foreign = _opened(page, live, path)
    # The first view builds the document (a busy machine may take a while).
    title = page.locator(".information-container .title")
    expect(title).to_contain_text("payhub API", timeout=60_000)
    expect(page.locator(".opblock").first).to_be_visible()
    assert page.get_by_text("Unable to render this definition").count() == 0
    errors = page.locator(".errors-wrapper")
    assert errors.count() == 0, errors.inner_text()
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SHOTS / f"{view}-overview.png")

    block = page.locator(f"#operations-{tag.replace(' ', '_')}-{operation_id}")
    block.locator(".opblock-summary-control").click()
    body = block.locator(".opblock-section-request-body")
    expect(body).to_be_visible()
    # The request body's example first, then its schema on the Schema tab.
    expect(body.locator(".highlight-code, .microlight").first).to_be_visible()
    body.get_by_role("tab", name="Schema").click()
    expect(body.locator(".model-box").first).to_be_visible()
    expect(body.get_by_text(re.compile(rf"^{field}\*?$")).first).to_be_visible()
    # Its documented errors are problem+json.
    responses = block.locator(".responses-table")
    expect(responses.locator("tr.response[data-code='400']")).to_be_visible()
    block.scroll_into_view_if_needed()
    block.screenshot(path=SHOTS / f"{view}-operation.png")
    assert not foreign, f"the reference loaded files from elsewhere: {foreign}"
