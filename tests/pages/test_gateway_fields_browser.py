"""Paying an invoice end to end in chromium through a real gateway's hosted fields (Stripe).

Why this wiring: the adapters must talk to the fake gateway APIs (``tests/gateways/fakes``)
through an injected ``httpx.MockTransport``, which a separate ``payhub serve`` process cannot
take. So the app runs in this process (the ``hub`` below, on both stores) and playwright
routes every request for the page's origin, ``https://pay.payhub.test``, to it through
Litestar's TestClient: chromium still parses the real pages, runs the real scripts and enforces
the real response headers (the CSP included). The vendors' CDN scripts are FAKES written from
their public JS references (``fake_vendors/``), served by ``page.route`` on the vendors' own
hosts; nothing reaches the internet (any other request is aborted and fails the test).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient
from playwright.sync_api import Browser, Page, Route

from payhub import PayHub
from payhub.adapters.gateways.stripe import StripeGateway
from payhub.adapters.system import FixedClock
from payhub_server.app import create_app
from tests.conftest import Account
from tests.gateways.fakes.stripe import TEST_KEY, FakeStripe
from tests.pages.support import Shop, token_of

pytestmark = pytest.mark.browser

ORIGIN = "https://pay.payhub.test"
FAKES = Path(__file__).resolve().parent / "fake_vendors"
PK = "pk_test_51HpayhubFAKEpublishable"
CARDS = {"4242424242424242": "pm_card_visa", "4000000000000002": "pm_card_visa_chargeDeclined"}


@pytest.fixture
def stripe() -> FakeStripe:
    return FakeStripe()


@pytest.fixture
def hub(store_url: str, key_file: Path, clock: FixedClock, stripe: FakeStripe) -> Iterator[PayHub]:
    with httpx.Client(transport=httpx.MockTransport(stripe.handler)) as stripe_http:
        gateways: dict[str, Any] = {"stripe": StripeGateway(stripe_http)}
        hub = PayHub.open(store_url, key_file=key_file, clock=clock, gateways=gateways)
        yield hub
        hub.close()


@pytest.fixture
def site(hub: PayHub) -> Iterator[TestClient[Litestar]]:
    with TestClient(create_app(hub), base_url=ORIGIN) as client:
        yield client


class Wire:
    """Playwright's network for one tab: payhub, the fake vendors, and nothing else."""

    def __init__(self, page: Page, site: TestClient[Litestar]) -> None:
        self.site = site
        self.to_payhub: list[str] = []  # every body the browser sent to payhub
        self.stray: list[str] = []
        page.route("**/*", self.route)

    def route(self, route: Route) -> None:
        try:
            self._route(route)
        except Exception as e:  # a broken fake must fail the test, not hang the page
            self.stray.append(f"{route.request.url}: {e!r}")
            route.abort()

    def _route(self, route: Route) -> None:
        request = route.request
        url = request.url
        if url.startswith(ORIGIN + "/"):
            body = request.post_data_buffer or b""
            self.to_payhub.append(url + " " + body.decode(errors="replace"))
            skip = ("host", "content-length")
            headers = {k: v for k, v in request.all_headers().items()
                       if not k.startswith(":") and k not in skip}  # fmt: skip
            answer = self.site.request(request.method, url[len(ORIGIN):], headers=headers,
                                       content=body)  # fmt: skip
            route.fulfill(status=answer.status_code, headers=dict(answer.headers),
                          body=answer.content)  # fmt: skip
        elif url == "https://js.stripe.com/v3/":
            route.fulfill(body=(FAKES / "stripe-v3.js").read_bytes(),
                          content_type="application/javascript")  # fmt: skip
        elif url == "https://js.stripe.com/v3/elements-inner-card.html":
            route.fulfill(body=(FAKES / "stripe-card-frame.html").read_bytes(),
                          content_type="text/html")  # fmt: skip
        elif url == "https://api.stripe.com/v1/payment_methods":
            number = parse_qs(request.post_data or "").get("card[number]", [""])[0]
            found = CARDS.get(number)
            body = ({"id": found, "object": "payment_method", "card": {"last4": number[-4:]}}
                    if found else {"error": {"type": "card_error", "code": "invalid_number",
                                             "message": "Card number is invalid."}})  # fmt: skip
            route.fulfill(status=200 if found else 402, body=json.dumps(body),
                          content_type="application/json",
                          headers={"Access-Control-Allow-Origin": "*"})  # fmt: skip
        else:
            self.stray.append(url)
            route.abort()


def set_up(shop: Shop, gateway: str, secret: str, fields: dict[str, str]) -> str:
    body = {"apiSecret": secret, "environment": "Sandbox", "additionalFields": fields}
    shop.ok(shop.client.put(f"{shop.base}/credentials/{gateway}", headers=shop.headers, json=body))
    return token_of(shop.invoice(gateway=gateway))


@pytest.fixture
def tab(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    page = context.new_page()
    yield page
    context.close()


def pay_and_wait(tab: Page) -> None:
    tab.click("#pay-submit")
    tab.wait_for_selector("#paid-notice, #pay-message.error", timeout=15_000)
    assert tab.locator("#paid-notice").count() == 1, tab.inner_text("#pay-message")


def test_pay_an_invoice_through_stripe_elements(
    tab: Page, site: TestClient[Litestar], sandbox_provider: Account, stripe: FakeStripe
) -> None:
    shop = Shop(site, sandbox_provider)
    token = set_up(shop, "stripe", TEST_KEY, {"publishableKey": PK})
    wire = Wire(tab, site)
    errors: list[str] = []
    tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    tab.goto(f"{ORIGIN}/pay/{token}")
    card = tab.frame_locator("#card-stripe-card iframe").locator("input")
    # A declined card first: the page says so and the invoice stays open.
    card.fill("4000000000000002")
    tab.click("#pay-submit")
    tab.wait_for_selector("#pay-message.error", timeout=15_000)
    assert "declined" in tab.inner_text("#pay-message")
    card.fill("4242424242424242")
    pay_and_wait(tab)
    assert "Payment received" in tab.inner_text("#paid-notice")
    invoice = shop.read(token_of_number(shop))
    assert invoice["status"] == "Paid"
    intents = stripe.posts("/v1/payment_intents")
    assert [parse_qs(r.content.decode())["payment_method"] for r in intents] == [
        ["pm_card_visa_chargeDeclined"],
        ["pm_card_visa"],
    ]
    assert not any("4242424242424242" in sent or "4000000000000002" in sent
                   for sent in wire.to_payhub)  # fmt: skip
    assert wire.stray == []
    assert not [e for e in errors if "Content Security Policy" in e], errors


def token_of_number(shop: Shop) -> str:
    """The one invoice's number, read through the API."""
    listed = shop.ok(shop.client.get(f"{shop.base}/invoices", headers=shop.headers))
    numbers = [i["invoiceNumber"] for i in listed["data"]]
    assert len(numbers) == 1
    return str(numbers[0])
