"""Paying an invoice end to end in chromium through real gateways' hosted fields.

Stripe Elements, NMI Collect.js, Square's Web Payments SDK, Braintree's hosted fields and
Authorize.Net's AcceptUI lightbox, each with a decline first and then an approval.

Why this wiring: the adapters must talk to the fake gateway APIs
(``tests/gateways/<gateway>/fake.py``)
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
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient
from playwright.sync_api import Browser, Page, Route

from payhub import PayHub
from payhub.adapters.gateways.authorize_net.adapter import AuthorizeNetGateway
from payhub.adapters.gateways.braintree.adapter import BraintreeGateway
from payhub.adapters.gateways.checkout_com.adapter import CheckoutComGateway
from payhub.adapters.gateways.clover.adapter import CloverGateway
from payhub.adapters.gateways.nmi.adapter import NmiGateway
from payhub.adapters.gateways.square.adapter import SquareGateway
from payhub.adapters.gateways.stripe.adapter import StripeGateway
from payhub.adapters.gateways.usaepay.adapter import UsaEpayGateway
from payhub.adapters.system import FixedClock
from payhub_server.app import create_app
from tests.conftest import Account
from tests.gateways.authorize_net.fake import FAKE_LOGIN, FAKE_TRANSACTION_KEY, FakeAuthorizeNet
from tests.gateways.braintree.fake import MERCHANT_ID, PRIVATE_KEY, PUBLIC_KEY, FakeBraintree
from tests.gateways.checkout_com.fake import SANDBOX_KEY as CKO_SECRET
from tests.gateways.checkout_com.fake import FakeCheckoutCom
from tests.gateways.clover.fake import SANDBOX_KEY as CLOVER_SECRET
from tests.gateways.clover.fake import FakeClover
from tests.gateways.nmi.fake import SECURITY_KEY, FakeNmi
from tests.gateways.square.fake import ACCESS_TOKEN, LOCATION_ID, FakeSquare
from tests.gateways.stripe.fake import TEST_KEY, FakeStripe
from tests.gateways.usaepay.fake import API_KEY as USAEPAY_KEY
from tests.gateways.usaepay.fake import PIN as USAEPAY_PIN
from tests.gateways.usaepay.fake import FakeUsaEpay
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
def nmi() -> FakeNmi:
    return FakeNmi()


@pytest.fixture
def square() -> FakeSquare:
    return FakeSquare()


@pytest.fixture
def braintree() -> FakeBraintree:
    return FakeBraintree()


@pytest.fixture
def anet() -> FakeAuthorizeNet:
    return FakeAuthorizeNet()


@pytest.fixture
def cko() -> FakeCheckoutCom:
    return FakeCheckoutCom()


@pytest.fixture
def clover() -> FakeClover:
    return FakeClover()


@pytest.fixture
def usaepay() -> FakeUsaEpay:
    return FakeUsaEpay()


@pytest.fixture
def hub(
    store_url: str,
    key_file: Path,
    clock: FixedClock,
    stripe: FakeStripe,
    nmi: FakeNmi,
    square: FakeSquare,
    braintree: FakeBraintree,
    anet: FakeAuthorizeNet,
    cko: FakeCheckoutCom,
    clover: FakeClover,
    usaepay: FakeUsaEpay,
) -> Iterator[PayHub]:
    """payhub with each real adapter talking to its gateway's fake API."""
    with (
        httpx.Client(transport=httpx.MockTransport(stripe.handler)) as stripe_http,
        httpx.Client(transport=httpx.MockTransport(nmi.handler)) as nmi_http,
        httpx.Client(transport=httpx.MockTransport(square.handler)) as square_http,
        httpx.Client(transport=httpx.MockTransport(braintree.handler)) as braintree_http,
        httpx.Client(transport=httpx.MockTransport(anet.handler)) as anet_http,
        httpx.Client(transport=httpx.MockTransport(cko.handler)) as cko_http,
        httpx.Client(transport=httpx.MockTransport(clover.handler)) as clover_http,
        httpx.Client(transport=httpx.MockTransport(usaepay.handler)) as usaepay_http,
    ):
        gateways: dict[str, Any] = {
            "stripe": StripeGateway(stripe_http),
            "nmi": NmiGateway(nmi_http),
            "square": SquareGateway(square_http),
            "braintree": BraintreeGateway(braintree_http),
            "authorize-net": AuthorizeNetGateway(anet_http),
            "checkout-com": CheckoutComGateway(cko_http),
            "clover": CloverGateway(clover_http),
            "usaepay": UsaEpayGateway(usaepay_http),
        }
        hub = PayHub.open(store_url, key_file=key_file, clock=clock, gateways=gateways)
        yield hub
        hub.close()


@pytest.fixture
def site(hub: PayHub) -> Iterator[TestClient[Litestar]]:
    with TestClient(create_app(hub), base_url=ORIGIN) as client:
        yield client


Vendor = Callable[[Route], None]


def serve(name: str, content_type: str) -> Vendor:
    """A fake vendor file from ``fake_vendors/``."""
    return lambda route: route.fulfill(body=(FAKES / name).read_bytes(), content_type=content_type)


def answer(route: Route, status: int, body: Any) -> None:
    """A vendor API's JSON answer to the page (CORS open, as the vendors' token APIs are)."""
    route.fulfill(status=status, body=json.dumps(body), content_type="application/json",
                  headers={"Access-Control-Allow-Origin": "*"})  # fmt: skip


CSP_WATCH = """
window.__payhubCspSeen = [];
document.addEventListener("securitypolicyviolation", function (e) {
  var seen = [location.origin, e.effectiveDirective, e.blockedURI, e.disposition].join(" ");
  window.__payhubCspSeen.push(seen);
  window.__payhubCspViolation(seen);
});
"""


class Wire:
    """Playwright's network for one tab: payhub, the fake vendors, and nothing else.

    ``vendors`` maps a vendor URL (without its #fragment) to what answers it.
    """

    def __init__(self, page: Page, site: TestClient[Litestar], vendors: dict[str, Vendor]) -> None:
        self.site = site
        self.vendors = vendors
        self.to_payhub: list[str] = []  # every body the browser sent to payhub
        self.to_vendors: list[str] = []  # every URL and body the browser sent to a vendor
        self.stray: list[str] = []
        # Every Content-Security-Policy refusal in the page and its frames, as the browser
        # reports it (the ``securitypolicyviolation`` event), across reloads: a working
        # payment must cause none.
        self.csp_violations: list[str] = []
        seen = self.csp_violations
        # A bound list.append cannot be exposed (playwright needs a Python function).
        page.expose_function("__payhubCspViolation", lambda text: seen.append(text))  # noqa: PLW0108
        page.add_init_script(CSP_WATCH)
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
        elif url.split("#")[0] in self.vendors:
            self.to_vendors.append(url + " " + (request.post_data or ""))
            self.vendors[url.split("#")[0]](route)
        else:
            self.stray.append(url)
            route.abort()


def stripe_payment_methods(route: Route) -> None:
    """Stripe's POST /v1/payment_methods as Stripe.js calls it with a publishable key."""
    number = parse_qs(route.request.post_data or "").get("card[number]", [""])[0]
    found = CARDS.get(number)
    if found:
        card = {"last4": number[-4:]}
        answer(route, 200, {"id": found, "object": "payment_method", "card": card})
    else:
        answer(route, 402, {"error": {"type": "card_error", "code": "invalid_number",
                                      "message": "Card number is invalid."}})  # fmt: skip


STRIPE: dict[str, Vendor] = {
    "https://js.stripe.com/v3/": serve("stripe-v3.js", "application/javascript"),
    "https://js.stripe.com/v3/elements-inner-card.html": serve("stripe-card-frame.html",
                                                               "text/html"),
    # An invoice that also takes bank accounts mounts the Payment Element's frame up front.
    "https://js.stripe.com/v3/elements-inner-payment.html": serve("stripe-payment-frame.html",
                                                                  "text/html"),
    "https://api.stripe.com/v1/payment_methods": stripe_payment_methods,
}  # fmt: skip

NMI_KEY = "5mN8N7-jhr55W-N22pxX-uAW2s9"
NMI_TOKENS = {"4111111111111111": "tok_visa", "4000000000000002": "tok_decline"}


def nmi_token(route: Route) -> None:
    """The gateway's side of Collect.js: a payment token for the fields' card (the fake NMI
    API's test tokens), refused without the public tokenization key."""
    form = {k: v[0] for k, v in parse_qs(route.request.post_data or "").items()}
    if form.get("tokenization_key") != NMI_KEY:
        answer(route, 401, {"error": "Invalid tokenization key"})
        return
    number = form.get("ccnumber", "")
    token = NMI_TOKENS.get(number, "tok_unknown")
    card = {"number": number[:6] + "*" * (len(number) - 10) + number[-4:], "bin": number[:6],
            "exp": form.get("ccexp", ""), "type": "visa"}  # fmt: skip
    answer(route, 200, {"token": token, "card": card})


NMI: dict[str, Vendor] = {
    "https://sandbox.nmi.com/token/Collect.js": serve("nmi-collect.js", "application/javascript"),
    "https://sandbox.nmi.com/token/inline/field.html": serve("nmi-field.html", "text/html"),
    "https://sandbox.nmi.com/token/api/create": nmi_token,
}


SQUARE_APP = "sandbox-sq0idb-payhubFakeApp01"
SQUARE_NONCES = {"4111111111111111": "cnon:card-nonce-ok",
                 "4000000000000002": "cnon:card-nonce-declined"}  # fmt: skip


def square_nonce(route: Route) -> None:
    """Square's card-nonce endpoint as the Web Payments SDK calls it (application id only)."""
    body = json.loads(route.request.post_data or "{}")
    if body.get("client_id") != SQUARE_APP:
        answer(route, 401, {"errors": [{"code": "UNAUTHORIZED", "detail": "bad application id"}]})
        return
    nonce = SQUARE_NONCES.get(body.get("card_number", ""))
    if nonce is None:
        answer(route, 400, {"errors": [{"code": "INVALID_CARD", "detail": "Invalid card"}]})
        return
    answer(route, 200, {"card_nonce": nonce, "card": {"last_4": body["card_number"][-4:]}})


SQUARE: dict[str, Vendor] = {
    "https://sandbox.web.squarecdn.com/v1/square.js": serve("square-web-payments.js",
                                                            "application/javascript"),
    "https://sandbox.web.squarecdn.com/v1/card-frame.html": serve("field-frame.html", "text/html"),
    "https://pci-connect.squareupsandbox.com/v2/card-nonce": square_nonce,
}  # fmt: skip

BT_KEY = "sandbox_g42y39zw_348pk9cgf3bgyw2b"
BT_NONCES = {"4111111111111111": "fake-valid-visa-nonce",
             "4000111111111115": "fake-processor-declined-visa-nonce"}  # fmt: skip
_BT = "https://js.braintreegateway.com/web/3.136.0/js"


def braintree_tokenize(route: Route) -> None:
    """Braintree's client API (GraphQL tokenizeCreditCard) with the tokenization key."""
    if route.request.headers.get("authorization") != f"Bearer {BT_KEY}":
        answer(route, 401, {"errors": [{"message": "Authorization failed"}]})
        return
    card = json.loads(route.request.post_data or "{}")["variables"]["input"]["creditCard"]
    nonce = BT_NONCES.get(card["number"])
    if nonce is None:
        answer(route, 200, {"errors": [{"message": "Credit card number is invalid."}]})
        return
    made = {"token": nonce, "creditCard": {"last4": card["number"][-4:], "brandCode": "VISA"}}
    answer(route, 200, {"data": {"tokenizeCreditCard": made}})


BRAINTREE: dict[str, Vendor] = {
    f"{_BT}/client.min.js": serve("braintree-client.js", "application/javascript"),
    f"{_BT}/hosted-fields.min.js": serve("braintree-hosted-fields.js", "application/javascript"),
    "https://assets.braintreegateway.com/web/3.136.0/html/hosted-fields-frame.html": serve(
        "field-frame.html", "text/html"
    ),
    "https://payments.sandbox.braintree-api.com/graphql": braintree_tokenize,
}


ANET: dict[str, Vendor] = {
    "https://jstest.authorize.net/v3/AcceptUI.js": serve("anet-accept-ui.js",
                                                         "application/javascript"),
    "https://jstest.authorize.net/v3/acceptMain/acceptMain.html": serve("anet-accept-main.html",
                                                                       "text/html"),
}  # fmt: skip


def set_up(
    shop: Shop, gateway: str, secret: str, fields: dict[str, str], card_only: bool = False
) -> str:
    body = {"apiSecret": secret, "environment": "Sandbox", "additionalFields": fields}
    shop.ok(shop.client.put(f"{shop.base}/credentials/{gateway}", headers=shop.headers, json=body))
    terms = {"allowedPaymentMethods": "CardOnly"} if card_only else {}
    return token_of(shop.invoice(gateway=gateway, **terms))


@pytest.fixture
def tab(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1000, "height": 900})
    page = context.new_page()
    yield page
    context.close()


def press_pay(tab: Page) -> None:
    """Click Pay the way a person does: with the button already on screen.

    Playwright's click scrolls the button into view and presses the mouse at once; chromium
    still hit-tests that press against the cross-origin field frames' old positions (the
    compositor has not drawn the scroll yet), so the mousedown lands in a vendor iframe, the
    mouseup on the button, and no click happens at all. That was why the NMI test "never
    reached the submit handler": its three Collect.js frames push Pay below the fold. So
    scroll first and let two frames render, then click.
    """
    tab.locator("#pay-submit").scroll_into_view_if_needed()
    tab.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    tab.click("#pay-submit")


def pay_and_wait(tab: Page) -> None:
    press_pay(tab)
    tab.wait_for_selector("#paid-notice, #pay-message.error", timeout=15_000)
    assert tab.locator("#paid-notice").count() == 1, tab.inner_text("#pay-message")


def test_pay_an_invoice_through_stripe_elements(
    tab: Page, site: TestClient[Litestar], sandbox_provider: Account, stripe: FakeStripe
) -> None:
    shop = Shop(site, sandbox_provider)
    token = set_up(shop, "stripe", TEST_KEY, {"publishableKey": PK})
    wire = Wire(tab, site, STRIPE)
    errors: list[str] = []
    tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    tab.goto(f"{ORIGIN}/pay/{token}")
    card = tab.frame_locator("#card-stripe-card iframe").locator("input")
    # A declined card first: the page says so and the invoice stays open.
    card.fill("4000000000000002")
    press_pay(tab)
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
    assert wire.csp_violations == []
    assert not [e for e in errors if "Content Security Policy" in e], errors


def token_of_number(shop: Shop) -> str:
    """The one invoice's number, read through the API."""
    listed = shop.ok(shop.client.get(f"{shop.base}/invoices", headers=shop.headers))
    numbers = [i["invoiceNumber"] for i in listed["data"]]
    assert len(numbers) == 1
    return str(numbers[0])


def fill_nmi(tab: Page, number: str) -> None:
    """Type a card into Collect.js's three inline frames, leaving each (they validate on blur)."""
    for field, value in (("ccnumber", number), ("ccexp", "10/30"), ("cvv", "123")):
        box = tab.frame_locator(f"#card-nmi-{field} iframe").locator("input")
        box.fill(value)
        box.blur()


def test_pay_an_invoice_through_nmi_collect_js(
    tab: Page, site: TestClient[Litestar], sandbox_provider: Account, nmi: FakeNmi
) -> None:
    shop = Shop(site, sandbox_provider)
    token = set_up(shop, "nmi", SECURITY_KEY, {"tokenizationKey": NMI_KEY})
    wire = Wire(tab, site, NMI)
    errors: list[str] = []
    tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    tab.goto(f"{ORIGIN}/pay/{token}")
    # Nothing typed: Collect.js answers only through validationCallback; Pay must not hang.
    tab.wait_for_function("() => document.querySelectorAll('#card-fields iframe').length === 3")
    press_pay(tab)
    tab.wait_for_selector("#pay-message.error", timeout=15_000)
    assert "Card number" in tab.inner_text("#pay-message")
    assert tab.get_attribute("#pay-submit", "aria-busy") == "false"
    assert not [u for u in wire.to_vendors if "/token/api/" in u]
    fill_nmi(tab, "4000000000000002")
    press_pay(tab)
    tab.wait_for_selector("#pay-message.error:has-text('declin')", timeout=15_000)
    assert "declined" in tab.inner_text("#pay-message").lower()
    assert shop.read(token_of_number(shop))["status"] != "Paid"
    fill_nmi(tab, "4111111111111111")
    pay_and_wait(tab)
    assert shop.read(token_of_number(shop))["status"] == "Paid"
    sales = [f for f in nmi.sent() if f.get("type") == "sale"]
    assert [f["payment_token"] for f in sales] == ["tok_decline", "tok_visa"]
    assert all(f["security_key"] == SECURITY_KEY for f in sales)
    assert not any("4111111111111111" in sent or "4000000000000002" in sent
                   for sent in wire.to_payhub)  # fmt: skip
    assert wire.stray == []
    assert wire.csp_violations == []
    assert not [e for e in errors if "Content Security Policy" in e], errors


def test_pay_an_invoice_through_square_web_payments(
    tab: Page, site: TestClient[Litestar], sandbox_provider: Account, square: FakeSquare
) -> None:
    shop = Shop(site, sandbox_provider)
    public = {"applicationId": SQUARE_APP, "locationId": LOCATION_ID}
    token = set_up(shop, "square", ACCESS_TOKEN, public)
    wire = Wire(tab, site, SQUARE)
    errors: list[str] = []
    tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    tab.goto(f"{ORIGIN}/pay/{token}")
    card = tab.frame_locator("#card-square-card iframe").locator("input")
    card.fill("4000000000000002")
    press_pay(tab)
    tab.wait_for_selector("#pay-message.error", timeout=15_000)
    assert "declined" in tab.inner_text("#pay-message").lower()
    card.fill("4111111111111111")
    pay_and_wait(tab)
    assert shop.read(token_of_number(shop))["status"] == "Paid"
    created = square.bodies("POST", "/v2/payments")
    assert [b["source_id"] for b in created] == ["cnon:card-nonce-declined", "cnon:card-nonce-ok"]
    assert all(b["location_id"] == LOCATION_ID for b in created)
    assert not any("4111111111111111" in sent or "4000000000000002" in sent
                   for sent in wire.to_payhub)  # fmt: skip
    assert wire.stray == []
    assert wire.csp_violations == []
    assert not [e for e in errors if "Content Security Policy" in e], errors


def fill_braintree(tab: Page, number: str) -> None:
    for field, value in (("number", number), ("expiry", "10/30"), ("cvv", "123")):
        tab.frame_locator(f"#card-braintree-{field} iframe").locator("input").fill(value)


def test_pay_an_invoice_through_braintree_hosted_fields(
    tab: Page, site: TestClient[Litestar], sandbox_provider: Account, braintree: FakeBraintree
) -> None:
    shop = Shop(site, sandbox_provider)
    public = {"merchantId": MERCHANT_ID, "publicKey": PUBLIC_KEY, "tokenizationKey": BT_KEY}
    token = set_up(shop, "braintree", PRIVATE_KEY, public)
    wire = Wire(tab, site, BRAINTREE)
    errors: list[str] = []
    tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    tab.goto(f"{ORIGIN}/pay/{token}")
    tab.wait_for_function("() => document.querySelectorAll('#card-fields iframe').length === 3")
    press_pay(tab)  # empty fields: Braintree refuses to tokenize, the page says so
    tab.wait_for_selector("#pay-message.error", timeout=15_000)
    assert "empty" in tab.inner_text("#pay-message")
    fill_braintree(tab, "4000111111111115")
    press_pay(tab)
    tab.wait_for_selector("#pay-message.error:has-text('declin')", timeout=15_000)
    fill_braintree(tab, "4111111111111111")
    pay_and_wait(tab)
    assert shop.read(token_of_number(shop))["status"] == "Paid"
    charged = [c["variables"]["input"]["paymentMethodId"]
               for c in braintree.calls("chargePaymentMethod")]  # fmt: skip
    assert charged == ["fake-processor-declined-visa-nonce", "fake-valid-visa-nonce"]
    assert not any("4111111111111111" in sent or "4000111111111115" in sent
                   for sent in wire.to_payhub)  # fmt: skip
    assert wire.stray == []
    assert wire.csp_violations == []
    assert not [e for e in errors if "Content Security Policy" in e], errors


def test_closing_the_authorize_net_lightbox_frees_pay_then_a_card_pays(
    tab: Page, site: TestClient[Litestar], sandbox_provider: Account, anet: FakeAuthorizeNet
) -> None:
    shop = Shop(site, sandbox_provider)
    public = {"apiLoginId": FAKE_LOGIN, "clientKey": "5FcB6WrfHGS76gHW3v7btBCE3HuuBuke9Pj96Ztf"}
    token = set_up(shop, "authorize-net", FAKE_TRANSACTION_KEY, public)
    wire = Wire(tab, site, ANET)
    errors: list[str] = []
    tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    tab.goto(f"{ORIGIN}/pay/{token}")
    tab.wait_for_selector("#AcceptUIContainer", state="attached")
    lightbox = tab.frame_locator("#AcceptUIContainer iframe")
    # Pay opens AcceptUI's lightbox; the payer closes it without a card: Pay is usable again.
    press_pay(tab)
    lightbox.locator("#close").click()
    tab.wait_for_selector("#pay-message.error", timeout=15_000)
    assert "No card was entered" in tab.inner_text("#pay-message")
    assert tab.get_attribute("#pay-submit", "aria-busy") == "false"
    assert tab.is_enabled("#pay-submit")
    assert anet.calls == []
    # Then a declined card, then a good one.
    press_pay(tab)
    lightbox.locator("#n").fill("4000000000000002")
    lightbox.locator("#use").click()
    tab.wait_for_selector("#pay-message.error:has-text('declin')", timeout=15_000)
    press_pay(tab)
    lightbox.locator("#n").fill("4111111111111111")
    lightbox.locator("#use").click()
    tab.wait_for_selector("#paid-notice", timeout=15_000)
    assert shop.read(token_of_number(shop))["status"] == "Paid"
    charged = [c["createTransactionRequest"]["transactionRequest"]["payment"]["opaqueData"]
               for c in anet.calls if "createTransactionRequest" in c]  # fmt: skip
    assert [o["dataValue"] for o in charged] == ["tok_decline", "tok_visa"]
    assert {o["dataDescriptor"] for o in charged} == {"COMMON.ACCEPT.INAPP.PAYMENT"}
    assert not any("4111111111111111" in sent or "4000000000000002" in sent
                   for sent in wire.to_payhub)  # fmt: skip
    assert wire.stray == []
    assert wire.csp_violations == []
    assert not [e for e in errors if "Content Security Policy" in e], errors


def choose_amount(tab: Page, other: str | None) -> None:
    """Pick the balance (the first choice) or type another amount on a CustomerChoice invoice."""
    if other is None:
        tab.locator('input[name="amountChoice"]').first.check()
    else:
        tab.check("#amount-other")
        tab.fill("#amount-input", other)


def card_only_choice_invoice(shop: Shop, gateway: str, secret: str, fields: dict[str, str]) -> str:
    """A 150.00 untaxed card-only invoice the payer may pay in part (to reach the sandboxes'
    amount-triggered declines, e.g. Checkout.com's 120.51), on ``gateway``."""
    body = {"apiSecret": secret, "environment": "Sandbox", "additionalFields": fields}
    shop.ok(shop.client.put(f"{shop.base}/credentials/{gateway}", headers=shop.headers, json=body))
    made = shop.invoice(
        gateway=gateway, allowedPaymentMethods="CardOnly", partialPaymentMode="CustomerChoice",
        taxRatePercent=0, lineItems=[{"description": "Boiler service", "quantity": 1,
                                      "unitPrice": 150}],
    )  # fmt: skip
    return token_of(made)


CKO_PK = "pk_sbox_payhubfakepublickey0001"
_CKO = "https://cdn.checkout.com"


def cko_tokens(cko: FakeCheckoutCom) -> Vendor:
    """Checkout.com's POST /tokens as Frames calls it: the public key alone authorizes it; a
    card becomes a single-use tok_ the fake API knows (so the adapter can charge it)."""

    def handle(route: Route) -> None:
        if route.request.headers.get("authorization") != CKO_PK:
            answer(route, 401, {})
            return
        card = json.loads(route.request.post_data or "{}")
        number = str(card.get("number", ""))
        if card.get("type") != "card" or number not in ("4242424242424242", "4543474002249996"):
            answer(route, 422, {"request_id": "req_fake", "error_type": "request_invalid",
                                "error_codes": ["card_number_invalid"]})  # fmt: skip
            return
        token = cko.token(last4=number[-4:])
        answer(route, 201, {"type": "card", "token": token, "expires_on": "2030-06-01T00:00:00Z",
                            "expiry_month": 6, "expiry_year": 2030, "scheme": "Visa",
                            "last4": number[-4:], "bin": number[:6]})  # fmt: skip

    return handle


def test_pay_an_invoice_through_checkout_com_frames(
    tab: Page, site: TestClient[Litestar], sandbox_provider: Account, cko: FakeCheckoutCom
) -> None:
    shop = Shop(site, sandbox_provider)
    token = card_only_choice_invoice(shop, "checkout-com", CKO_SECRET, {"publicKey": CKO_PK})
    vendors: dict[str, Vendor] = {
        f"{_CKO}/js/framesv2.min.js": serve("checkout-frames.js", "application/javascript"),
        f"{_CKO}/js/frames/card-frame.html": serve("field-frame.html", "text/html"),
        "https://api.sandbox.checkout.com/tokens": cko_tokens(cko),
    }
    wire = Wire(tab, site, vendors)
    errors: list[str] = []
    tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    tab.goto(f"{ORIGIN}/pay/{token}")
    card = tab.frame_locator("#card-checkout-com-card iframe").locator("input")
    card.wait_for()
    # Nothing typed: Frames says the card is not valid, nothing reaches Checkout.com.
    press_pay(tab)
    tab.wait_for_selector("#pay-message.error", timeout=15_000)
    assert "Check the card details" in tab.inner_text("#pay-message")
    assert not [u for u in wire.to_vendors if "/tokens" in u]
    # 120.51 is the sandbox's "Insufficient Funds" trigger (response code 20051).
    card.fill("4242424242424242")
    choose_amount(tab, "120.51")
    press_pay(tab)
    tab.wait_for_selector("#pay-message.error:has-text('insufficient')", timeout=15_000)
    assert shop.read(token_of_number(shop))["status"] != "Paid"
    # Frames locks its form after a submission; the driver unlocked it, so the card pays.
    choose_amount(tab, None)
    pay_and_wait(tab)
    assert shop.read(token_of_number(shop))["status"] == "Paid"
    payments = cko.bodies("/payments")
    assert [(p["amount"], p["source"]["type"]) for p in payments] == [
        (12051, "token"),
        (15000, "token"),
    ]
    assert all(p["source"]["token"].startswith("tok_") for p in payments)
    assert len({p["source"]["token"] for p in payments}) == 2  # a fresh token per attempt
    assert not any("4242424242424242" in sent for sent in wire.to_payhub)
    assert wire.stray == []
    assert wire.csp_violations == []
    assert not [e for e in errors if "Content Security Policy" in e], errors


CLOVER_PUBLIC = {"apiAccessKey": "a1b2c3d4e5f60718293a4b5c6d7e8f90", "merchantId": "XF3KPAYHUB01Q"}
_CLOVER = "https://checkout.sandbox.dev.clover.com"


def clover_tokens(clover: FakeClover) -> Vendor:
    """Clover's POST /v1/tokens as the iframe calls it: the public apiAccessKey alone authorizes
    it; the card becomes a single-use clv_ token the fake Ecommerce API knows."""

    def handle(route: Route) -> None:
        if route.request.headers.get("apikey") != CLOVER_PUBLIC["apiAccessKey"]:
            answer(route, 401, {"error": {"type": "authentication_error", "message": "bad key"}})
            return
        card = json.loads(route.request.post_data or "{}").get("card", {})
        number = str(card.get("number", ""))
        token = clover.tokenize(number)
        answer(route, 200, {"id": token, "object": "token",
                            "card": {"last4": number[-4:], "brand": "VISA"}})  # fmt: skip

    return handle


def fill_clover(tab: Page, number: str) -> None:
    for box, value in (("number", number), ("date", "12/30"), ("cvv", "123"), ("postal", "78701")):
        tab.frame_locator(f"#card-clover-{box} iframe").locator("input").fill(value)


def test_pay_an_invoice_through_the_clover_iframe(
    tab: Page, site: TestClient[Litestar], sandbox_provider: Account, clover: FakeClover
) -> None:
    shop = Shop(site, sandbox_provider)
    token = set_up(shop, "clover", CLOVER_SECRET, CLOVER_PUBLIC, card_only=True)
    vendors: dict[str, Vendor] = {
        f"{_CLOVER}/sdk.js": serve("clover-sdk.js", "application/javascript"),
        f"{_CLOVER}/elements/element.html": serve("field-frame.html", "text/html"),
        "https://token-sandbox.dev.clover.com/v1/tokens": clover_tokens(clover),
    }
    wire = Wire(tab, site, vendors)
    errors: list[str] = []
    tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    tab.goto(f"{ORIGIN}/pay/{token}")
    tab.wait_for_function("() => document.querySelectorAll('#card-fields iframe').length === 4")
    # Nothing typed: createToken answers {errors}, the page names the first field.
    press_pay(tab)
    tab.wait_for_selector("#pay-message.error", timeout=15_000)
    assert "Card number: is required" in tab.inner_text("#pay-message")
    assert not [u for u in wire.to_vendors if "/v1/tokens" in u]
    # Clover's test card 4005 5717 0222 2222 is declined by the issuer.
    fill_clover(tab, "4005571702222222")
    press_pay(tab)
    tab.wait_for_selector("#pay-message.error:has-text('declin')", timeout=15_000)
    assert shop.read(token_of_number(shop))["status"] != "Paid"
    fill_clover(tab, "4242424242424242")
    pay_and_wait(tab)
    assert shop.read(token_of_number(shop))["status"] == "Paid"
    charges = clover.bodies("/v1/charges")
    assert len(charges) == 2
    assert all(c["source"].startswith("clv_") and c["ecomind"] == "ecom" for c in charges)
    assert [clover.tokens[c["source"]]["last4"] for c in charges] == ["2222", "4242"]
    assert not any("4242424242424242" in sent or "4005571702222222" in sent
                   for sent in wire.to_payhub)  # fmt: skip
    assert wire.stray == []
    assert wire.csp_violations == []
    assert not [e for e in errors if "Content Security Policy" in e], errors


USAEPAY_PUBLIC = "_P120LOb42a1SF4nN54z1Hp0256K7bl3ki0x8iuJP9"
# The fake API's Pay.js test keys for two test cards (tests/gateways/usaepay/fake.py).
USAEPAY_KEYS = {"4000100011112224": "pk_visa", "4000300011112220": "pk_decline"}


def usaepay_payment_key(route: Route) -> None:
    """Pay.js's payment-key request: the public key alone authorizes it; the card becomes one of
    the fake API's single-use payment keys."""
    body = json.loads(route.request.post_data or "{}")
    if body.get("public_key") != USAEPAY_PUBLIC:
        answer(route, 401, {"error": "Specified source key not found.", "errorcode": 23})
        return
    key = USAEPAY_KEYS.get(body.get("creditcard", {}).get("number", ""))
    if key is None:
        answer(route, 400, {"error": "Card number is invalid", "errorcode": 11})
        return
    answer(route, 200, {"type": "payment_key", "key": key})


def test_pay_an_invoice_through_usaepay_pay_js(
    tab: Page, site: TestClient[Litestar], sandbox_provider: Account, usaepay: FakeUsaEpay
) -> None:
    shop = Shop(site, sandbox_provider)
    public = {"pin": USAEPAY_PIN, "publicKey": USAEPAY_PUBLIC}
    token = set_up(shop, "usaepay", USAEPAY_KEY, public, card_only=True)
    host = "https://sandbox.usaepay.com/js/v2"
    vendors: dict[str, Vendor] = {
        f"{host}/pay.js": serve("usaepay-pay.js", "application/javascript"),
        f"{host}/paymentcard.html": serve("field-frame.html", "text/html"),
        f"{host}/paymentkey": usaepay_payment_key,
    }
    wire = Wire(tab, site, vendors)
    errors: list[str] = []
    tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    tab.goto(f"{ORIGIN}/pay/{token}")
    card = tab.frame_locator("#card-usaepay-card iframe").locator("input")
    card.wait_for()
    press_pay(tab)  # nothing typed: getPaymentKey answers {error}, the page says so
    tab.wait_for_selector("#pay-message.error", timeout=15_000)
    assert "Card number is invalid" in tab.inner_text("#pay-message")
    assert not [u for u in wire.to_vendors if "/paymentkey" in u]
    card.fill("4000300011112220")
    press_pay(tab)
    tab.wait_for_selector("#pay-message.error:has-text('declin')", timeout=15_000)
    assert shop.read(token_of_number(shop))["status"] != "Paid"
    card.fill("4000100011112224")
    pay_and_wait(tab)
    assert shop.read(token_of_number(shop))["status"] == "Paid"
    sales = [b for b in usaepay.posts() if b.get("command") == "cc:sale"]
    assert [b["payment_key"] for b in sales] == ["pk_decline", "pk_visa"]
    assert not any("4000100011112224" in sent or "4000300011112220" in sent
                   for sent in wire.to_payhub)  # fmt: skip
    assert wire.stray == []
    assert wire.csp_violations == []
    assert not [e for e in errors if "Content Security Policy" in e], errors


def test_the_csp_watch_sees_a_refused_host(
    tab: Page, site: TestClient[Litestar], sandbox_provider: Account
) -> None:
    """The check every test above ends with can fail: on a Stripe page, another vendor's API
    (Square's) and a script from Braintree's CDN are refused by the policy and reported."""
    shop = Shop(site, sandbox_provider)
    token = set_up(shop, "stripe", TEST_KEY, {"publishableKey": PK})
    wire = Wire(tab, site, STRIPE)
    tab.goto(f"{ORIGIN}/pay/{token}")
    tab.frame_locator("#card-stripe-card iframe").locator("input").wait_for()
    assert wire.csp_violations == []
    tab.evaluate("""() => {
      fetch("https://pci-connect.squareup.com/v2/card-nonce").catch(() => null);
      const s = document.createElement("script");
      s.src = "https://js.braintreegateway.com/web/3.136.0/js/client.min.js";
      document.head.appendChild(s);
    }""")
    tab.wait_for_function("() => window.__payhubCspSeen.length >= 2")
    tab.evaluate("() => null")  # the exposed function's calls have reached python
    seen = " | ".join(wire.csp_violations)
    assert "connect-src https://pci-connect.squareup.com/v2/card-nonce enforce" in seen, seen
    assert "script-src-elem https://js.braintreegateway.com" in seen, seen
    assert wire.stray == []  # refused by the browser before any request left it
