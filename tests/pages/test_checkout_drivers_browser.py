"""Paying in chromium through the drivers whose vendor session is bound to the amount the payer
picks (issue 19 item 1), each against a fake of its vendor's SDK (``fake_vendors/``), wired as
``test_more_drivers_browser.py`` wires the others: payhub in this process with the gateway's
real adapter talking to its fake API, playwright routing the page's origin to it and serving
the fake SDK on the vendor's own hosts (the page's CSP is really enforced). Each pays a
deposit after a decline, then the rest, each time under a session made for exactly the amount
on the button, and approves a schedule request; the card numbers never reach payhub.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient
from playwright.sync_api import Browser, Page, Route

from payhub import PayHub
from payhub.adapters.gateways.elavon.adapter import ElavonGateway
from payhub.adapters.gateways.fiserv.adapter import FiservGateway
from payhub.adapters.gateways.helcim.adapter import HelcimGateway
from payhub.adapters.gateways.nuvei.adapter import NuveiGateway
from payhub.adapters.gateways.paypal.adapter import PayPalGateway
from payhub.adapters.system import FixedClock
from payhub_server.app import create_app
from tests.conftest import Account
from tests.gateways.elavon import fake as elavon_api
from tests.gateways.elavon.fake import FakeElavon
from tests.gateways.fiserv import fake as fiserv_api
from tests.gateways.fiserv.fake import FakeFiserv
from tests.gateways.helcim import fake as helcim_api
from tests.gateways.helcim.fake import FakeHelcim
from tests.gateways.nuvei import fake as nuvei_api
from tests.gateways.nuvei.fake import FakeNuvei
from tests.gateways.paypal import fake as paypal_api
from tests.gateways.paypal.fake import FakePayPal
from tests.pages.support import Shop, token_of
from tests.pages.test_gateway_fields_browser import (
    ORIGIN,
    Vendor,
    Wire,
    answer,
    pay_and_wait,
    press_pay,
    serve,
    token_of_number,
)
from tests.pages.test_more_drivers_browser import watch

pytestmark = pytest.mark.browser


class Routes(dict[str, Vendor]):
    """Vendor URLs, some of them patterns (ids in the path): ``Wire`` looks them up here."""

    def __init__(self, exact: dict[str, Vendor], patterns: dict[str, Vendor]) -> None:
        super().__init__(exact)
        self.patterns = [(re.compile(p), v) for p, v in patterns.items()]

    def _find(self, url: object) -> Vendor | None:
        if dict.__contains__(self, url):
            return dict.__getitem__(self, url)
        return next((v for p, v in self.patterns if p.fullmatch(str(url))), None)

    def __contains__(self, url: object) -> bool:
        return self._find(url) is not None

    def __getitem__(self, url: str) -> Vendor:
        found = self._find(url)
        if found is None:
            raise KeyError(url)
        return found


@pytest.fixture
def paypal() -> FakePayPal:
    return FakePayPal()


@pytest.fixture
def nuvei() -> FakeNuvei:
    return FakeNuvei()


@pytest.fixture
def helcim() -> FakeHelcim:
    return FakeHelcim()


@pytest.fixture
def elavon() -> FakeElavon:
    return FakeElavon()


@pytest.fixture
def fiserv() -> FakeFiserv:
    return FakeFiserv()


@pytest.fixture
def hub(
    store_url: str, key_file: Path, clock: FixedClock, paypal: FakePayPal, nuvei: FakeNuvei,
    helcim: FakeHelcim, elavon: FakeElavon, fiserv: FakeFiserv,
) -> Iterator[PayHub]:  # fmt: skip
    with (
        httpx.Client(transport=httpx.MockTransport(fiserv.handler)) as fiserv_http,
        httpx.Client(transport=httpx.MockTransport(elavon.handler)) as elavon_http,
        httpx.Client(transport=httpx.MockTransport(paypal.handler)) as paypal_http,
        httpx.Client(transport=httpx.MockTransport(nuvei.handler)) as nuvei_http,
        httpx.Client(transport=httpx.MockTransport(helcim.handler)) as helcim_http,
    ):
        gateways: dict[str, Any] = {
            "paypal": PayPalGateway(paypal_http),
            "nuvei": NuveiGateway(nuvei_http),
            "helcim": HelcimGateway(helcim_http),
            "elavon": ElavonGateway(elavon_http),
            "fiserv": FiservGateway(fiserv_http),
        }
        hub = PayHub.open(store_url, key_file=key_file, clock=clock, gateways=gateways)
        yield hub
        hub.close()


@pytest.fixture
def site(hub: PayHub) -> Iterator[TestClient[Litestar]]:
    with TestClient(create_app(hub), base_url=ORIGIN) as client:
        yield client


@pytest.fixture
def tab(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    page = context.new_page()
    yield page
    context.close()


def put_credentials(shop: Shop, gateway: str, secret: str, fields: dict[str, str]) -> None:
    body = {"apiSecret": secret, "environment": "Sandbox", "additionalFields": fields}
    shop.ok(shop.client.put(f"{shop.base}/credentials/{gateway}", headers=shop.headers, json=body))


def paypal_routes(paypal: FakePayPal, query: str) -> Routes:
    """PayPal's SDK, its Card Fields frames, and the calls its frames make to confirm a card
    on the order (or setup token) payhub's adapter made: the fake API records the card."""

    def confirm(route: Route) -> None:
        body = json.loads(route.request.post_data or "{}")
        card = body.get("card") or {}
        ident = urlsplit(route.request.url).path.split("/")[4]
        if body.get("clientId") != paypal_api.CLIENT_ID:
            answer(route, 401, {"name": "AUTHENTICATION_FAILURE", "message": "Bad client"})
            return
        if "/vault/" in route.request.url:
            paypal.approve_setup(ident, card.get("name") or "", card.get("number") or "")
            answer(route, 200, {"id": ident, "status": "APPROVED"})
            return
        order = paypal.orders.get(ident)
        if order is None or order["intent"].lower() != body.get("intent"):
            answer(route, 422, {"name": "UNPROCESSABLE_ENTITY", "message": "INTENT_MISMATCH"})
            return
        paypal.confirm_card(ident, card.get("name") or "", card.get("number") or "")
        answer(route, 200, {"id": ident, "status": "APPROVED"})

    web = "https://www.sandbox.paypal.com"
    return Routes(
        {
            f"https://www.paypal.com/sdk/js?{query}": serve("paypal-card-fields.js",
                                                           "application/javascript"),
            f"{web}/smart/card-fields": serve("field-frame.html", "text/html"),
        },
        {
            re.escape(web) + r"/v2/checkout/orders/[^/]+/confirm-payment-source": confirm,
            re.escape(web) + r"/v3/vault/setup-tokens/[^/]+/confirm": confirm,
        },
    )  # fmt: skip


def press_approve(tab: Page) -> None:
    """Approve as press_pay presses Pay: on screen first (the vendor frames push it down)."""
    tab.locator("#approve-button").scroll_into_view_if_needed()
    tab.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    tab.click("#approve-button")


def fill_paypal(tab: Page, prefix: str, name: str, number: str) -> None:
    for field, value in (("name", name), ("number", number), ("expiry", "12/30"), ("cvv", "123")):
        box = tab.frame_locator(f"#{prefix}-pp-{field} iframe").locator("input")
        box.wait_for()
        box.fill(value)


def order_amounts(paypal: FakePayPal) -> list[Decimal]:
    return [Decimal(o["purchase_units"][0]["amount"]["value"]) for o in paypal.orders.values()]


def test_pay_a_deposit_then_the_rest_through_paypal_card_fields(
    tab: Page, site: TestClient[Litestar], sandbox_provider: Account, paypal: FakePayPal
) -> None:
    shop = Shop(site, sandbox_provider)
    put_credentials(shop, "paypal", paypal_api.SECRET, {"clientId": paypal_api.CLIENT_ID})
    invoice = shop.invoice(gateway="paypal", allowedPaymentMethods="CardOnly",
                           partialPaymentMode="FixedDeposit", requiredDepositAmount=30)  # fmt: skip
    number = token_of_number(shop)
    token = token_of(invoice)
    query = f"client-id={paypal_api.CLIENT_ID}&components=card-fields&currency=USD&intent=capture"
    wire = Wire(tab, site, paypal_routes(paypal, query))
    errors = watch(tab)
    tab.goto(f"{ORIGIN}/pay/{token}")
    assert paypal.orders == {}  # no order before the payer presses Pay
    fill_paypal(tab, "card", "Ada Lovelace", "4111")
    press_pay(tab)  # Card Fields refuses the number: no order is made
    tab.wait_for_selector("#pay-message.error", timeout=15_000)
    assert "invalid number" in tab.inner_text("#pay-message")
    assert paypal.orders == {}
    fill_paypal(tab, "card", "CCREJECT-REFUSED", "4111111111111111")  # the sandbox's decline
    press_pay(tab)
    tab.wait_for_selector("#pay-message.error:has-text('declin')", timeout=15_000)
    assert shop.read(number)["amountPaid"] == 0
    fill_paypal(tab, "card", "Ada Lovelace", "4111111111111111")
    pay_and_wait(tab)  # the deposit, chosen by default
    assert shop.read(number)["amountPaid"] == 30
    tab.goto(f"{ORIGIN}/pay/{token}")  # afresh, without the deposit's confirmation
    assert "$76.60" in tab.inner_text("#pay-submit")
    fill_paypal(tab, "card", "Ada Lovelace", "4111111111111111")
    pay_and_wait(tab)
    assert shop.read(number)["status"] == "Paid"
    # One order per press of Pay, each made by payhub's adapter for the amount on the button.
    assert order_amounts(paypal) == [Decimal("30.00"), Decimal("30.00"), Decimal("76.60")]
    assert [r["status"] for r in paypal.captures.values()] == ["DECLINED", "COMPLETED",
                                                               "COMPLETED"]  # fmt: skip
    assert not any("4111111111111111" in sent for sent in wire.to_payhub)
    assert wire.stray == []
    assert not [e for e in errors if "Content Security Policy" in e], errors


def test_approve_a_schedule_request_through_paypal_card_fields(
    tab: Page, site: TestClient[Litestar], sandbox_provider: Account, paypal: FakePayPal,
    clock: FixedClock,
) -> None:  # fmt: skip
    shop = Shop(site, sandbox_provider)
    put_credentials(shop, "paypal", paypal_api.SECRET, {"clientId": paypal_api.CLIENT_ID})
    start = (clock.now() + timedelta(days=2)).isoformat().replace("+00:00", "Z")
    body = {"gateway": "paypal", "startAtUtc": start, "cadence": "Monthly", "amount": 40}
    made = shop.ok(shop.client.post(f"{shop.base}/customers/{shop.customer_id}/schedule-requests",
                                    headers=shop.headers, json=body), 201)  # fmt: skip
    query = f"client-id={paypal_api.CLIENT_ID}&components=card-fields&vault=true"
    wire = Wire(tab, site, paypal_routes(paypal, query))
    errors = watch(tab)
    tab.goto(ORIGIN + urlsplit(made["approvalUrl"]).path)
    fill_paypal(tab, "approve", "Ada Lovelace", "4111111111111111")
    press_approve(tab)
    tab.wait_for_selector("#approved-method", timeout=15_000)
    assert "1111" in tab.inner_text("#approved-method")
    assert [t["status"] for t in paypal.setup_tokens.values()] == ["VAULTED"]
    assert len(paypal.payment_tokens) == 1
    assert not any("4111111111111111" in sent for sent in wire.to_payhub)
    assert wire.stray == []
    assert not [e for e in errors if "Content Security Policy" in e], errors


NUVEI_FIELDS = {"merchantId": nuvei_api.MERCHANT_ID, "merchantSiteId": nuvei_api.MERCHANT_SITE_ID}


def nuvei_routes(nuvei: FakeNuvei) -> Routes:
    """Nuvei's Web SDK, its card frame, and the call getToken makes: only a session payhub's
    adapter opened is accepted; the typed card becomes a temp token under it."""

    def token(route: Route) -> None:
        body = json.loads(route.request.post_data or "{}")
        if body.get("merchantId") != nuvei_api.MERCHANT_ID:
            answer(route, 200, {"status": "ERROR", "reason": "Invalid merchant ID"})
            return
        made = nuvei.fields_token_under(str(body.get("sessionToken")), str(body.get("number")))
        if made is None:
            answer(route, 200, {"status": "ERROR", "reason": "Invalid card number"})
            return
        answer(route, 200, {"status": "SUCCESS", "ccTempToken": made})

    cdn = "https://cdn.safecharge.com/safecharge_resources/v1/websdk"
    return Routes(
        {
            f"{cdn}/safecharge.js": serve("nuvei-safecharge.js", "application/javascript"),
            f"{cdn}/fields.html": serve("field-frame.html", "text/html"),
            "https://ppp-test.nuvei.com/ppp/api/v1/fakeFieldsToken.do": token,
        },
        {},
    )


def fill_nuvei(tab: Page, prefix: str, number: str) -> None:
    tab.fill(f"#{prefix}-nv-name", "Ada Lovelace")
    box = tab.frame_locator(f"#{prefix}-nv-card iframe").locator("input")
    box.wait_for()
    box.fill(number)


def test_pay_a_deposit_then_the_rest_through_nuvei_fields(
    tab: Page, site: TestClient[Litestar], sandbox_provider: Account, nuvei: FakeNuvei
) -> None:
    shop = Shop(site, sandbox_provider)
    put_credentials(shop, "nuvei", nuvei_api.SECRET, NUVEI_FIELDS)
    invoice = shop.invoice(gateway="nuvei", allowedPaymentMethods="CardOnly",
                           partialPaymentMode="FixedDeposit", requiredDepositAmount=30)  # fmt: skip
    number = token_of_number(shop)
    token = token_of(invoice)
    wire = Wire(tab, site, nuvei_routes(nuvei))
    errors = watch(tab)
    tab.goto(f"{ORIGIN}/pay/{token}")
    assert nuvei.orders == {}  # no order before the payer presses Pay
    fill_nuvei(tab, "card", "4111")
    press_pay(tab)  # the Fields refuse the number: no charge
    tab.wait_for_selector("#pay-message.error", timeout=15_000)
    assert "Invalid card number" in tab.inner_text("#pay-message")
    fill_nuvei(tab, "card", nuvei_api.CARDS["decline"].number)
    press_pay(tab)
    tab.wait_for_selector("#pay-message.error:has-text('declin')", timeout=15_000)
    assert shop.read(number)["amountPaid"] == 0
    fill_nuvei(tab, "card", nuvei_api.CARDS["visa"].number)
    pay_and_wait(tab)  # the deposit, chosen by default
    assert shop.read(number)["amountPaid"] == 30
    tab.goto(f"{ORIGIN}/pay/{token}")
    assert "$76.60" in tab.inner_text("#pay-submit")
    fill_nuvei(tab, "card", nuvei_api.CARDS["visa"].number)
    pay_and_wait(tab)
    assert shop.read(number)["status"] == "Paid"
    # One order per press of Pay that reached Nuvei, for the amount on the button; each
    # /payment under its own order's session.
    assert [amount for amount, _, _ in nuvei.orders.values()] == [
        Decimal("30.00"), Decimal("30.00"), Decimal("30.00"), Decimal("76.60")]  # fmt: skip
    payments = nuvei.posts("payment")
    assert [p["amount"] for p in payments] == ["30.00", "30.00", "76.60"]
    assert all(p["sessionToken"] in nuvei.orders for p in payments)
    assert [t.status for t in nuvei.charges()] == ["DECLINED", "APPROVED", "APPROVED"]
    assert not any(nuvei_api.CARDS["visa"].number in sent for sent in wire.to_payhub)
    assert wire.stray == []
    assert not [e for e in errors if "Content Security Policy" in e], errors


def test_approve_a_schedule_request_through_nuvei_fields(
    tab: Page, site: TestClient[Litestar], sandbox_provider: Account, nuvei: FakeNuvei,
    clock: FixedClock,
) -> None:  # fmt: skip
    shop = Shop(site, sandbox_provider)
    put_credentials(shop, "nuvei", nuvei_api.SECRET, NUVEI_FIELDS)
    start = (clock.now() + timedelta(days=2)).isoformat().replace("+00:00", "Z")
    body = {"gateway": "nuvei", "startAtUtc": start, "cadence": "Monthly", "amount": 40}
    made = shop.ok(shop.client.post(f"{shop.base}/customers/{shop.customer_id}/schedule-requests",
                                    headers=shop.headers, json=body), 201)  # fmt: skip
    wire = Wire(tab, site, nuvei_routes(nuvei))
    errors = watch(tab)
    tab.goto(ORIGIN + urlsplit(made["approvalUrl"]).path)
    fill_nuvei(tab, "approve", nuvei_api.CARDS["mastercard"].number)
    press_approve(tab)
    tab.wait_for_selector("#approved-method", timeout=15_000)
    assert "0017" in tab.inner_text("#approved-method")
    assert nuvei.orders == {}  # saving opens a plain session, no order
    assert len(nuvei.upos) == 1
    assert not any(nuvei_api.CARDS["mastercard"].number in sent for sent in wire.to_payhub)
    assert wire.stray == []
    assert not [e for e in errors if "Content Security Policy" in e], errors


def helcim_routes(helcim: FakeHelcim) -> Routes:
    """HelcimPay.js, its modal, and the modal's own call: only a checkout session payhub's
    adapter initialized (in verify mode) verifies a card; the fake vaults it."""

    def verify(route: Route) -> None:
        body = json.loads(route.request.post_data or "{}")
        made = helcim.verify_in_checkout(str(body.get("checkoutToken")), str(body.get("number")),
                                         name=str(body.get("name") or "Ada Lovelace"),
                                         cvv=str(body.get("cvv") or "100"))  # fmt: skip
        if made is None:
            answer(route, 400, {"message": "Invalid card number"})
            return
        answer(route, 200, {"cardToken": made, "status": "APPROVED", "type": "verify"})

    host = "https://secure.helcim.app/helcim-pay"
    return Routes(
        {
            f"{host}/services/start.js": serve("helcim-start.js", "application/javascript"),
            f"{host}/modal.html": serve("helcim-modal.html", "text/html"),
            f"{host}/fake-verify": verify,
        },
        {},
    )


def verify_in_modal(tab: Page, number: str, cvv: str, name: str) -> None:
    modal = tab.frame_locator("#helcimPayIframe")
    modal.locator("#number").fill(number)
    modal.locator("#cvv").fill(cvv)
    modal.locator("#name").fill(name)
    modal.locator("#verify").click()


def test_pay_a_deposit_then_the_rest_through_helcim_pay_js(
    tab: Page, site: TestClient[Litestar], sandbox_provider: Account, helcim: FakeHelcim
) -> None:
    shop = Shop(site, sandbox_provider)
    put_credentials(shop, "helcim", helcim_api.API_TOKEN, {})
    invoice = shop.invoice(gateway="helcim", allowedPaymentMethods="CardOnly",
                           partialPaymentMode="FixedDeposit", requiredDepositAmount=30)  # fmt: skip
    number = token_of_number(shop)
    token = token_of(invoice)
    wire = Wire(tab, site, helcim_routes(helcim))
    errors = watch(tab)
    tab.goto(f"{ORIGIN}/pay/{token}")
    assert helcim.checkouts == {}
    press_pay(tab)  # the modal opens; closing it frees Pay
    tab.locator("#helcimPayIframe").wait_for()
    tab.frame_locator("#helcimPayIframe").locator("#close").click()
    tab.wait_for_selector("#pay-message.error:has-text('No card was entered')", timeout=15_000)
    assert tab.locator("#helcimPayIframe").count() == 0
    press_pay(tab)
    verify_in_modal(tab, "5454545454545454", "209", "Ann Declined")  # Helcim's decline CVV
    tab.wait_for_selector("#pay-message.error:has-text('declin')", timeout=15_000)
    assert shop.read(number)["amountPaid"] == 0
    press_pay(tab)
    verify_in_modal(tab, "5454545454545454", "100", "Ann Payer")
    tab.wait_for_selector("#paid-notice", timeout=15_000)
    assert shop.read(number)["amountPaid"] == 30
    tab.goto(f"{ORIGIN}/pay/{token}")
    assert "$76.60" in tab.inner_text("#pay-submit")
    press_pay(tab)
    verify_in_modal(tab, "4111111111111111", "100", "Ann Payer")
    tab.wait_for_selector("#paid-notice", timeout=15_000)
    assert shop.read(number)["status"] == "Paid"
    # Every session is a verify one; payhub's adapter purchased the chosen amounts itself.
    assert [c["paymentType"] for c in helcim.checkouts.values()] == ["verify"] * 4
    purchases = helcim.bodies("/payment/purchase")
    assert [Decimal(str(b["amount"])) for b in purchases] == [
        Decimal("30.00"), Decimal("30.00"), Decimal("76.60")]  # fmt: skip
    assert [t["status"] for t in helcim.of_type("purchase")] == ["DECLINED", "APPROVED",
                                                                 "APPROVED"]  # fmt: skip
    assert not any("5454545454545454" in sent for sent in wire.to_payhub)
    assert wire.stray == []
    assert not [e for e in errors if "Content Security Policy" in e], errors


def test_approve_a_schedule_request_through_helcim_pay_js(
    tab: Page, site: TestClient[Litestar], sandbox_provider: Account, helcim: FakeHelcim,
    clock: FixedClock,
) -> None:  # fmt: skip
    shop = Shop(site, sandbox_provider)
    put_credentials(shop, "helcim", helcim_api.API_TOKEN, {})
    start = (clock.now() + timedelta(days=2)).isoformat().replace("+00:00", "Z")
    body = {"gateway": "helcim", "startAtUtc": start, "cadence": "Monthly", "amount": 40}
    made = shop.ok(shop.client.post(f"{shop.base}/customers/{shop.customer_id}/schedule-requests",
                                    headers=shop.headers, json=body), 201)  # fmt: skip
    wire = Wire(tab, site, helcim_routes(helcim))
    errors = watch(tab)
    tab.goto(ORIGIN + urlsplit(made["approvalUrl"]).path)
    press_approve(tab)
    verify_in_modal(tab, "5454545454545454", "100", "Ann Payer")
    tab.wait_for_selector("#approved-method", timeout=15_000)
    assert "5454" in tab.inner_text("#approved-method")
    assert [c["currency"] for c in helcim.checkouts.values()] == ["USD"]
    assert not any("5454545454545454" in sent for sent in wire.to_payhub)
    assert wire.stray == []
    assert not [e for e in errors if "Content Security Policy" in e], errors


ELAVON_FIELDS = {"merchantId": elavon_api.MERCHANT_ID, "userId": elavon_api.USER_ID}


def elavon_routes(elavon: FakeElavon) -> Routes:
    """jQuery (stubbed), Converge's lightbox script and frame, and the frame's own call: only a
    session payhub's adapter made is accepted; the card goes to the fake's Card Manager."""

    def process(route: Route) -> None:
        body = json.loads(route.request.post_data or "{}")
        made = elavon.lightbox_token(str(body.get("ssl_txn_auth_token")), str(body.get("number")))
        if made is None:
            answer(route, 400, {"errorCode": "5000", "errorMessage": "Invalid card number"})
            return
        answer(route, 200, {"ssl_token": made, "ssl_token_response": "SUCCESS"})

    host = "https://api.demo.convergepay.com/hosted-payments"
    return Routes(
        {
            "https://ajax.googleapis.com/ajax/libs/jquery/3.7.1/jquery.min.js": serve(
                "jquery-stub.js", "application/javascript"),
            f"{host}/PayWithConverge.js": serve("converge-lightbox.js", "application/javascript"),
            f"{host}/lightbox.html": serve("converge-lightbox.html", "text/html"),
            f"{host}/fake-process": process,
        },
        {},
    )  # fmt: skip


def card_in_lightbox(tab: Page, number: str) -> None:
    box = tab.frame_locator("#converge-lightbox")
    box.locator("#number").fill(number)
    box.locator("#process").click()


def test_pay_a_deposit_then_the_rest_through_the_converge_lightbox(
    tab: Page, site: TestClient[Litestar], sandbox_provider: Account, elavon: FakeElavon
) -> None:
    shop = Shop(site, sandbox_provider)
    put_credentials(shop, "elavon", elavon_api.PIN, ELAVON_FIELDS)
    invoice = shop.invoice(gateway="elavon", allowedPaymentMethods="CardOnly",
                           partialPaymentMode="FixedDeposit", requiredDepositAmount=30)  # fmt: skip
    number = token_of_number(shop)
    token = token_of(invoice)
    wire = Wire(tab, site, elavon_routes(elavon))
    errors = watch(tab)
    tab.goto(f"{ORIGIN}/pay/{token}")
    assert elavon.sessions == {}
    press_pay(tab)  # the lightbox opens; cancelling it frees Pay
    tab.frame_locator("#converge-lightbox").locator("#cancel").click()
    tab.wait_for_selector("#pay-message.error:has-text('No card was entered')", timeout=15_000)
    press_pay(tab)
    card_in_lightbox(tab, "4000000000000002")  # the fake's declining card
    tab.wait_for_selector("#pay-message.error:has-text('declin')", timeout=15_000)
    assert shop.read(number)["amountPaid"] == 0
    press_pay(tab)
    card_in_lightbox(tab, "4111111144444444")
    tab.wait_for_selector("#paid-notice", timeout=15_000)
    assert shop.read(number)["amountPaid"] == 30
    tab.goto(f"{ORIGIN}/pay/{token}")
    assert "$76.60" in tab.inner_text("#pay-submit")
    press_pay(tab)
    card_in_lightbox(tab, "4111111144444444")
    tab.wait_for_selector("#paid-notice", timeout=15_000)
    assert shop.read(number)["status"] == "Paid"
    # Token sessions only; payhub's adapter made each sale for the chosen amount.
    assert {f["ssl_transaction_type"] for f in elavon.sessions.values()} == {"ccgettoken"}
    assert [(t.amount, t.result) for t in elavon.of_kind("SALE")] == [
        (Decimal("30.00"), "1"), (Decimal("30.00"), "0"), (Decimal("76.60"), "0")]  # fmt: skip
    assert not any("4111111144444444" in sent for sent in wire.to_payhub)
    assert wire.stray == []
    assert not [e for e in errors if "Content Security Policy" in e], errors


def test_approve_a_schedule_request_through_the_converge_lightbox(
    tab: Page, site: TestClient[Litestar], sandbox_provider: Account, elavon: FakeElavon,
    clock: FixedClock,
) -> None:  # fmt: skip
    shop = Shop(site, sandbox_provider)
    put_credentials(shop, "elavon", elavon_api.PIN, ELAVON_FIELDS)
    start = (clock.now() + timedelta(days=2)).isoformat().replace("+00:00", "Z")
    body = {"gateway": "elavon", "startAtUtc": start, "cadence": "Monthly", "amount": 40}
    made = shop.ok(shop.client.post(f"{shop.base}/customers/{shop.customer_id}/schedule-requests",
                                    headers=shop.headers, json=body), 201)  # fmt: skip
    wire = Wire(tab, site, elavon_routes(elavon))
    errors = watch(tab)
    tab.goto(ORIGIN + urlsplit(made["approvalUrl"]).path)
    press_approve(tab)
    card_in_lightbox(tab, "5111111111115555")
    tab.wait_for_selector("#approved-method", timeout=15_000)
    assert "5555" in tab.inner_text("#approved-method")
    assert not any("5111111111115555" in sent for sent in wire.to_payhub)
    assert wire.stray == []
    assert not [e for e in errors if "Content Security Policy" in e], errors


FISERV_FIELDS = {"apiKey": fiserv_api.API_KEY, "merchantId": fiserv_api.MERCHANT_ID,
                 "terminalId": fiserv_api.TERMINAL_ID}  # fmt: skip


def fiserv_routes(fiserv: FakeFiserv) -> Routes:
    """The iFrame SDK, its field frames, and its submission: only an access token payhub's
    adapter got from /security/credentials puts the card into that session."""

    def submit(route: Route) -> None:
        body = json.loads(route.request.post_data or "{}")
        token = str(body.get("accessToken"))
        sid = next((s for s, c in fiserv.credentials.items() if c["accessToken"] == token), "")
        if body.get("apiKey") != fiserv_api.API_KEY or not fiserv.submit_card(
            sid, token, str(body.get("number"))
        ):
            answer(route, 400, {"message": "The card could not be captured."})
            return
        answer(route, 200, {"gatewayResponse": {"transactionState": "CAPTURED"}})

    cdn = "https://commercehub-secure-data-capture.fiservapps.com/3.1.7"
    return Routes(
        {
            f"{cdn}/saq-a.js": serve("commercehub-saq-a.js", "application/javascript"),
            f"{cdn}/field.html": serve("field-frame.html", "text/html"),
            "https://connect-cert.fiservapps.com/ch/fake-sdc-submit": submit,
        },
        {},
    )


def fill_fiserv(tab: Page, prefix: str, number: str) -> None:
    box = tab.frame_locator(f"#{prefix}-ch-cardNumber iframe").locator("input")
    box.wait_for()
    box.fill(number)


def test_pay_a_deposit_then_the_rest_through_the_commercehub_iframe(
    tab: Page, site: TestClient[Litestar], sandbox_provider: Account, fiserv: FakeFiserv
) -> None:
    shop = Shop(site, sandbox_provider)
    put_credentials(shop, "fiserv", fiserv_api.API_SECRET, FISERV_FIELDS)
    invoice = shop.invoice(gateway="fiserv", allowedPaymentMethods="CardOnly",
                           partialPaymentMode="FixedDeposit", requiredDepositAmount=30)  # fmt: skip
    number = token_of_number(shop)
    token = token_of(invoice)
    wire = Wire(tab, site, fiserv_routes(fiserv))
    errors = watch(tab)
    tab.goto(f"{ORIGIN}/pay/{token}")
    assert fiserv.credentials == {}
    fill_fiserv(tab, "card", "4111")
    press_pay(tab)  # the iFrame refuses the number: the session is never charged
    tab.wait_for_selector("#pay-message.error", timeout=15_000)
    assert "valid card number" in tab.inner_text("#pay-message")
    fill_fiserv(tab, "card", "4000000000000002")
    press_pay(tab)
    tab.wait_for_selector("#pay-message.error:has-text('declin')", timeout=15_000)
    assert shop.read(number)["amountPaid"] == 0
    fill_fiserv(tab, "card", "4111111111111111")
    pay_and_wait(tab)
    assert shop.read(number)["amountPaid"] == 30
    tab.goto(f"{ORIGIN}/pay/{token}")
    assert "$76.60" in tab.inner_text("#pay-submit")
    fill_fiserv(tab, "card", "4111111111111111")
    pay_and_wait(tab)
    assert shop.read(number)["status"] == "Paid"
    # One credentials session per press of Pay, bound to the pages' origin; each charge a
    # PaymentSession of its own session, for the amount on the button.
    assert {d["url"] for c in fiserv.credentials.values() for d in c["domains"]} == {
        "http://localhost:8000"}  # the hub's public URL in tests  # fmt: skip
    charges = fiserv.bodies("/ch/payments/v1/charges")
    assert [Decimal(str(c["amount"]["total"])) for c in charges] == [
        Decimal("30.00"), Decimal("30.00"), Decimal("76.60")]  # fmt: skip
    assert [c["source"]["sessionId"] for c in charges] == list(fiserv.credentials)[1:]
    assert not any("4111111111111111" in sent for sent in wire.to_payhub)
    assert wire.stray == []
    assert not [e for e in errors if "Content Security Policy" in e], errors


def test_approve_a_schedule_request_through_the_commercehub_iframe(
    tab: Page, site: TestClient[Litestar], sandbox_provider: Account, fiserv: FakeFiserv,
    clock: FixedClock,
) -> None:  # fmt: skip
    shop = Shop(site, sandbox_provider)
    put_credentials(shop, "fiserv", fiserv_api.API_SECRET, FISERV_FIELDS)
    start = (clock.now() + timedelta(days=2)).isoformat().replace("+00:00", "Z")
    body = {"gateway": "fiserv", "startAtUtc": start, "cadence": "Monthly", "amount": 40}
    made = shop.ok(shop.client.post(f"{shop.base}/customers/{shop.customer_id}/schedule-requests",
                                    headers=shop.headers, json=body), 201)  # fmt: skip
    wire = Wire(tab, site, fiserv_routes(fiserv))
    errors = watch(tab)
    tab.goto(ORIGIN + urlsplit(made["approvalUrl"]).path)
    fill_fiserv(tab, "approve", "4111111111111111")
    press_approve(tab)
    tab.wait_for_selector("#approved-method, #approve-error:not([hidden])", timeout=15_000)
    assert tab.locator("#approve-error:not([hidden])").count() == 0, tab.inner_text("main")
    assert "1111" in tab.inner_text("#approved-method")
    assert len(fiserv.tokens) == 1
    assert not any("4111111111111111" in sent for sent in wire.to_payhub)
    assert wire.stray == []
    assert not [e for e in errors if "Content Security Policy" in e], errors
