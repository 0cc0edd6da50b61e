"""Paying an invoice in chromium through the pay-page drivers of issue 19, each against a fake
of its vendor's SDK written from the vendor's public JS reference (``fake_vendors/``), wired as
``test_gateway_fields_browser.py`` wires the first eight: payhub runs in this process with the
gateway's real adapter talking to its fake API, playwright routes the page's origin to it and
serves the fake SDK on the vendor's own host; nothing reaches the internet. Each test types a
declined card first, then one that pays, and checks the card numbers never reached payhub.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient
from playwright.sync_api import Browser, Page, Route

from payhub import PayHub
from payhub.adapters.gateways.cybersource.adapter import CyberSourceGateway
from payhub.adapters.gateways.global_payments.adapter import GlobalPaymentsGateway
from payhub.adapters.gateways.heartland.adapter import HeartlandGateway
from payhub.adapters.gateways.paytrace.adapter import PayTraceGateway
from payhub.adapters.gateways.stax.adapter import StaxGateway
from payhub.adapters.gateways.worldpay.adapter import WorldpayGateway
from payhub.adapters.system import FixedClock
from payhub_server.app import create_app
from tests.conftest import Account
from tests.gateways.cybersource import fake as cs_api
from tests.gateways.cybersource.fake import FakeCyberSource
from tests.gateways.global_payments import fake as gp_api
from tests.gateways.global_payments.fake import FakeGlobalPayments
from tests.gateways.heartland.fake import CERT_KEY as HEARTLAND_KEY
from tests.gateways.heartland.fake import FakeHeartland
from tests.gateways.paytrace import fake as paytrace_api
from tests.gateways.paytrace.fake import FakePayTrace
from tests.gateways.stax.fake import API_KEY as STAX_KEY
from tests.gateways.stax.fake import FakeStax
from tests.gateways.worldpay.fake import MERCHANT_ID as WORLDPAY_MERCHANT
from tests.gateways.worldpay.fake import PASSWORD as WORLDPAY_PASSWORD
from tests.gateways.worldpay.fake import USER as WORLDPAY_USER
from tests.gateways.worldpay.fake import FakeWorldpay
from tests.pages.support import Shop
from tests.pages.test_gateway_fields_browser import (
    ORIGIN,
    Vendor,
    Wire,
    answer,
    pay_and_wait,
    press_pay,
    serve,
    set_up,
    token_of_number,
)

pytestmark = pytest.mark.browser


@pytest.fixture
def stax() -> FakeStax:
    return FakeStax()


@pytest.fixture
def heartland() -> FakeHeartland:
    return FakeHeartland()


@pytest.fixture
def cybersource() -> FakeCyberSource:
    return FakeCyberSource()


@pytest.fixture
def gp() -> FakeGlobalPayments:
    return FakeGlobalPayments()


@pytest.fixture
def paytrace() -> FakePayTrace:
    return FakePayTrace()


@pytest.fixture
def worldpay() -> FakeWorldpay:
    return FakeWorldpay()


@pytest.fixture
def hub(
    store_url: str,
    key_file: Path,
    clock: FixedClock,
    stax: FakeStax,
    heartland: FakeHeartland,
    worldpay: FakeWorldpay,
    paytrace: FakePayTrace,
    gp: FakeGlobalPayments,
    cybersource: FakeCyberSource,
) -> Iterator[PayHub]:
    """payhub with each new driver's real adapter talking to its gateway's fake API."""
    with (
        httpx.Client(transport=httpx.MockTransport(stax.handler)) as stax_http,
        httpx.Client(transport=httpx.MockTransport(heartland.handler)) as heartland_http,
        httpx.Client(transport=httpx.MockTransport(worldpay.handler)) as worldpay_http,
        httpx.Client(transport=httpx.MockTransport(paytrace.handler)) as paytrace_http,
        httpx.Client(transport=httpx.MockTransport(gp.handler)) as gp_http,
        httpx.Client(transport=httpx.MockTransport(cybersource.handler)) as cs_http,
    ):
        gateways: dict[str, Any] = {
            "stax": StaxGateway(stax_http),
            "heartland": HeartlandGateway(heartland_http),
            "worldpay": WorldpayGateway(worldpay_http),
            "paytrace": PayTraceGateway(paytrace_http),
            "global-payments": GlobalPaymentsGateway(gp_http),
            "cybersource": CyberSourceGateway(cs_http),
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


def watch(tab: Page) -> list[str]:
    errors: list[str] = []
    tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    return errors


STAX_TOKEN = "payhub-fake-webpayments-01"


def test_pay_an_invoice_through_stax_js(
    tab: Page, site: TestClient[Litestar], sandbox_provider: Account, stax: FakeStax
) -> None:
    shop = Shop(site, sandbox_provider)
    token = set_up(shop, "stax", STAX_KEY, {"webPaymentsToken": STAX_TOKEN}, card_only=True)

    def tokenize(route: Route) -> None:
        """Stax's side of Stax.js tokenize: the card becomes a stored payment method of the
        fake API (the one the adapter then charges)."""
        body = json.loads(route.request.post_data or "{}")
        number = body.get("card_number", "")
        if not number.isdigit() or not 13 <= len(number) <= 19:
            answer(route, 422, {"card_number": ["The card number is invalid."]})
            return
        made = stax.tokenize(number)
        answer(route, 200, {"id": made, "method": "card", "card_last_four": number[-4:]})

    host = "https://staxjs.staxpayments.com"
    vendors: dict[str, Vendor] = {
        f"{host}/staxjs-captcha.js": serve("stax-js.js", "application/javascript"),
        f"{host}/fields.html": serve("field-frame.html", "text/html"),
        f"https://apiprod.fattlabs.com/webpayment/{STAX_TOKEN}/tokenize": tokenize,
    }
    wire = Wire(tab, site, vendors)
    errors = watch(tab)
    tab.goto(f"{ORIGIN}/pay/{token}")
    number = tab.frame_locator("#card-stax-number iframe").locator("input")
    number.wait_for()
    tab.fill("#card-stax-name", "Ann Payer")
    tab.fill("#card-stax-month", "12")
    tab.fill("#card-stax-year", "2030")
    tab.screenshot(path="/tmp/drv/stax-form.png")
    number.fill("1234")
    press_pay(tab)  # Stax refuses the number: its message, no payment
    tab.wait_for_selector("#pay-message.error", timeout=15_000)
    assert "card number is invalid" in tab.inner_text("#pay-message")
    number.fill("4012888888881881")  # the sandbox's failure card
    press_pay(tab)
    tab.wait_for_selector("#pay-message.error:has-text('declin')", timeout=15_000)
    assert shop.read(token_of_number(shop))["status"] != "Paid"
    number.fill("4111111111111111")
    pay_and_wait(tab)
    assert shop.read(token_of_number(shop))["status"] == "Paid"
    charges = [t for t in stax.transactions.values() if t.get("type") == "charge"]
    assert [stax.methods[t["payment_method_id"]]["card_last_four"] for t in charges] == [
        "1881",
        "1111",
    ]
    assert not any("4111111111111111" in sent or "4012888888881881" in sent
                   for sent in wire.to_payhub)  # fmt: skip
    assert wire.stray == []
    assert wire.csp_violations == []
    assert not [e for e in errors if "Content Security Policy" in e], errors


HEARTLAND_PUBLIC = "pkapi_cert_payhubFake0001"
# The fake Portico API's single-use tokens for two test cards (tests/gateways/heartland/fake.py).
HEARTLAND_TOKENS = {"4242424242424242": "supt_visa", "4000120000000002": "supt_decline"}


def heartland_token(route: Route) -> None:
    """Heartland's single-use token service: the public key (query) alone authorizes it."""
    if parse_qs(urlsplit(route.request.url).query).get("api_key") != [HEARTLAND_PUBLIC]:
        answer(route, 400, {"error": {"code": "2", "message": "Invalid public API key"}})
        return
    number = json.loads(route.request.post_data or "{}").get("card", {}).get("number", "")
    token = HEARTLAND_TOKENS.get(number)
    if token is None:
        answer(route, 400, {"error": {"code": "2", "message": "Card number is invalid."}})
        return
    answer(route, 200, {"token_value": token, "token_type": "supt",
                        "card": {"number": number[:6] + "******" + number[-4:]}})  # fmt: skip


def test_pay_an_invoice_through_globalpayments_js_on_heartland(
    tab: Page, site: TestClient[Litestar], sandbox_provider: Account, heartland: FakeHeartland
) -> None:
    shop = Shop(site, sandbox_provider)
    public = {"publicApiKey": HEARTLAND_PUBLIC}
    token = set_up(shop, "heartland", HEARTLAND_KEY, public, card_only=True)
    token_url = ("https://cert.api2.heartlandportico.com/Hps.Exchange.PosGateway.Hpf.v1/api/token"
                 f"?api_key={HEARTLAND_PUBLIC}")  # fmt: skip
    vendors: dict[str, Vendor] = {
        "https://js.globalpay.com/v1/globalpayments.js": serve("globalpayments.js",
                                                               "application/javascript"),
        "https://js.globalpay.com/v1/field.html": serve("field-frame.html", "text/html"),
        "https://js.globalpay.com/v1/submit.html": serve("gp-submit.html", "text/html"),
        token_url: heartland_token,
    }  # fmt: skip
    wire = Wire(tab, site, vendors)
    errors = watch(tab)
    tab.goto(f"{ORIGIN}/pay/{token}")
    number = tab.frame_locator("#card-gp-number iframe").locator("input")
    confirm = tab.frame_locator("#card-gp-submit iframe").locator("button")
    number.wait_for()
    assert confirm.inner_text() == "Use this card"
    number.fill("4000120000000002")
    press_pay(tab)  # the card was not confirmed with Heartland's button: the page says so
    tab.wait_for_selector("#pay-message.error", timeout=15_000)
    assert "Use this card" in tab.inner_text("#pay-message")
    assert not [u for u in wire.to_vendors if "/api/token" in u]
    confirm.click()
    tab.wait_for_selector("#card-gp-status:has-text('ending 0002')", timeout=15_000)
    press_pay(tab)
    tab.wait_for_selector("#pay-message.error:has-text('declin')", timeout=15_000)
    assert shop.read(token_of_number(shop))["status"] != "Paid"
    press_pay(tab)  # the single-use token is spent: confirm the card again
    tab.wait_for_selector("#pay-message.error:has-text('Use this card')", timeout=15_000)
    number.fill("4242424242424242")
    confirm.click()
    tab.wait_for_selector("#card-gp-status:has-text('ending 4242')", timeout=15_000)
    tab.screenshot(path="/tmp/drv/heartland-ready.png")
    pay_and_wait(tab)
    assert shop.read(token_of_number(shop))["status"] == "Paid"
    sales = heartland.of_service("CreditSale")
    assert [t.card.last4 if t.card else None for t in sales] == ["0002", "4242"]
    assert not any("4242424242424242" in sent or "4000120000000002" in sent
                   for sent in wire.to_payhub)  # fmt: skip
    assert wire.stray == []
    assert wire.csp_violations == []
    assert not [e for e in errors if "Content Security Policy" in e], errors


PAYPAGE_ID = "a2y4o6m8k0"
# The fake cnpAPI's eProtect registration ids for two test cards (tests/gateways/worldpay/fake.py).
PAYPAGE_IDS = {"4457010000000009": "pp_visa", "4457010100000008": "pp_decline"}


def eprotect_register(route: Route) -> None:
    """eProtect's card registration: the Pay Page id alone authorizes it; the answer is the
    registration id (870) or a validation code."""
    body = json.loads(route.request.post_data or "{}")
    if body.get("paypageId") != PAYPAGE_ID:
        answer(route, 200, {"response": "889", "message": "Failure"})
        return
    number = body.get("accountNumber", "")
    registration = PAYPAGE_IDS.get(number)
    if registration is None:
        answer(route, 200, {"response": "875", "message": "Account number invalid"})
        return
    made = {"response": "870", "message": "Success", "paypageRegistrationId": registration}
    answer(route, 200, {**made, "lastFour": number[-4:]})


def test_pay_an_invoice_through_worldpay_eprotect(
    tab: Page, site: TestClient[Litestar], sandbox_provider: Account, worldpay: FakeWorldpay
) -> None:
    shop = Shop(site, sandbox_provider)
    fields = {"user": WORLDPAY_USER, "merchantId": WORLDPAY_MERCHANT, "paypageId": PAYPAGE_ID}
    token = set_up(shop, "worldpay", WORLDPAY_PASSWORD, fields, card_only=True)
    host = "https://request.eprotect.vantivprelive.com/eProtect"
    vendors: dict[str, Vendor] = {
        f"{host}/js/eProtect-iframe-client.min.js": serve("eprotect-iframe-client.js",
                                                          "application/javascript"),
        f"{host}/eProtect-iframe.html": serve("field-frame.html", "text/html"),
        f"{host}/paypage": eprotect_register,
    }  # fmt: skip
    wire = Wire(tab, site, vendors)
    errors = watch(tab)
    tab.goto(f"{ORIGIN}/pay/{token}")
    card = tab.frame_locator("#card-worldpay-card iframe").locator("input")
    card.wait_for()
    card.fill("4457010000000001")
    press_pay(tab)  # eProtect refuses the number (875): its message, no payment
    tab.wait_for_selector("#pay-message.error", timeout=15_000)
    assert "card number is not valid" in tab.inner_text("#pay-message")
    card.fill("4457010100000008")
    press_pay(tab)
    tab.wait_for_selector("#pay-message.error:has-text('declin')", timeout=15_000)
    assert shop.read(token_of_number(shop))["status"] != "Paid"
    card.fill("4457010000000009")
    pay_and_wait(tab)
    assert shop.read(token_of_number(shop))["status"] == "Paid"
    sales = worldpay.of_kind("sale")
    assert [t.card.number[-4:] if t.card else None for t in sales] == ["0008", "0009"]
    assert not any("4457010000000009" in sent or "4457010100000008" in sent
                   for sent in wire.to_payhub)  # fmt: skip
    assert wire.stray == []
    assert wire.csp_violations == []
    assert not [e for e in errors if "Content Security Policy" in e], errors


# The fake API's Protect.js hpf tokens for two test cards (tests/gateways/paytrace/fake.py).
HPF_TOKENS = {"4111111111111111": "hpf_visa", "4012000098765439": "hpf_decline"}


def test_pay_an_invoice_through_paytrace_protect_js(
    tab: Page, site: TestClient[Litestar], sandbox_provider: Account, paytrace: FakePayTrace
) -> None:
    shop = Shop(site, sandbox_provider)
    fields = {"username": paytrace_api.USERNAME, "integratorId": paytrace_api.INTEGRATOR_ID}
    token = set_up(shop, "paytrace", paytrace_api.PASSWORD, fields, card_only=True)

    def process(route: Route) -> None:
        """Protect's side: only a client key payhub's adapter made for a page is accepted."""
        body = json.loads(route.request.post_data or "{}")
        if body.get("clientKey") not in paytrace.client_keys:
            answer(route, 401, {"errors": [{"description": "Invalid client key."}]})
            return
        hpf = HPF_TOKENS.get(body.get("cc", ""))
        if hpf is None:
            answer(route, 400, {"errors": [{"description": "Card number is invalid."}]})
            return
        answer(route, 200, {"success": True, "message": {"hpf_token": hpf,
                                                         "enc_key": "enc_key_abc=="}})  # fmt: skip

    host = "https://protect.sandbox.paytrace.com"
    vendors: dict[str, Vendor] = {
        f"{host}/js/protect.min.js": serve("paytrace-protect.js", "application/javascript"),
        f"{host}/hpf.html": serve("field-frame.html", "text/html"),
        f"{host}/v1/hpf/process": process,
    }
    wire = Wire(tab, site, vendors)
    errors = watch(tab)
    tab.goto(f"{ORIGIN}/pay/{token}")
    assert len(paytrace.client_keys) == 1  # made server-side for this view, through the adapter
    card = tab.frame_locator("#pt_hpf_form iframe").locator("input")
    card.wait_for()
    press_pay(tab)  # nothing typed: Protect.js's validation message, nothing sent
    tab.wait_for_selector("#pay-message.error", timeout=15_000)
    assert "valid Credit Card Number" in tab.inner_text("#pay-message")
    assert not [u for u in wire.to_vendors if "/hpf/process" in u]
    card.fill("4012000098765439")
    press_pay(tab)
    tab.wait_for_selector("#pay-message.error:has-text('declin')", timeout=15_000)
    assert shop.read(token_of_number(shop))["status"] != "Paid"
    card.fill("4111111111111111")
    pay_and_wait(tab)
    assert shop.read(token_of_number(shop))["status"] == "Paid"
    sales = [b for url, _, b in paytrace.requests if url.path.endswith("/sale/pt_protect")]
    assert [b["hpf_token"] for b in sales] == ["hpf_decline", "hpf_visa"]
    assert not any("4111111111111111" in sent or "4012000098765439" in sent
                   for sent in wire.to_payhub)  # fmt: skip
    assert wire.stray == []
    assert wire.csp_violations == []
    assert not [e for e in errors if "Content Security Policy" in e], errors


def test_pay_an_invoice_through_globalpayments_js_on_gp_api(
    tab: Page, site: TestClient[Litestar], sandbox_provider: Account, gp: FakeGlobalPayments
) -> None:
    shop = Shop(site, sandbox_provider)
    token = set_up(shop, "global-payments", gp_api.APP_KEY, {"appId": gp_api.APP_ID},
                   card_only=True)  # fmt: skip

    def payment_methods(route: Route) -> None:
        """GP-API's POST /payment-methods with the page's access token: only a token payhub's
        adapter asked with PMT_POST_Create_Single is accepted; the card becomes one of the
        fake API's single-use payment methods."""
        bearer = (route.request.headers.get("authorization") or "").removeprefix("Bearer ")
        if gp.limited_tokens.get(bearer) != ["PMT_POST_Create_Single"]:
            answer(route, 401, {"error_code": "NOT_AUTHENTICATED", "detailed_error_code": "40001"})
            return
        number = json.loads(route.request.post_data or "{}").get("card", {}).get("number", "")
        made = {"4263970000005262": gp.single_use_token(),
                "4000120000001154": "PMT_decline_05"}.get(number)  # fmt: skip
        if made is None:
            answer(route, 400, {"error_code": "INVALID_REQUEST_DATA",
                                "detailed_error_description": "Invalid card number"})  # fmt: skip
            return
        answer(route, 201, {"id": made, "usage_mode": "SINGLE"})

    vendors: dict[str, Vendor] = {
        "https://js.globalpay.com/v1/globalpayments.js": serve("globalpayments.js",
                                                               "application/javascript"),
        "https://js.globalpay.com/v1/field.html": serve("field-frame.html", "text/html"),
        "https://js.globalpay.com/v1/submit.html": serve("gp-submit.html", "text/html"),
        "https://apis.sandbox.globalpay.com/ucp/payment-methods": payment_methods,
    }  # fmt: skip
    wire = Wire(tab, site, vendors)
    errors = watch(tab)
    tab.goto(f"{ORIGIN}/pay/{token}")
    assert len(gp.limited_tokens) == 1  # made for this view through the adapter
    number = tab.frame_locator("#card-gp-number iframe").locator("input")
    confirm = tab.frame_locator("#card-gp-submit iframe").locator("button")
    number.fill("4000120000001154")
    confirm.click()
    tab.wait_for_selector("#card-gp-status:has-text('ending 1154')", timeout=15_000)
    press_pay(tab)
    tab.wait_for_selector("#pay-message.error:has-text('declin')", timeout=15_000)
    assert shop.read(token_of_number(shop))["status"] != "Paid"
    number.fill("4263970000005262")
    confirm.click()
    tab.wait_for_selector("#card-gp-status:has-text('ending 5262')", timeout=15_000)
    pay_and_wait(tab)
    assert shop.read(token_of_number(shop))["status"] == "Paid"
    sales = gp.bodies("POST", "/ucp/transactions")
    used = [b["payment_method"]["id"] for b in sales]
    assert used[0] == "PMT_decline_05"
    assert used[1].startswith("PMT_")
    assert used[1].endswith("fresh")  # the fake's fresh single-use payment method
    assert not any("4263970000005262" in sent or "4000120000001154" in sent
                   for sent in wire.to_payhub)  # fmt: skip
    assert wire.stray == []
    assert wire.csp_violations == []
    assert not [e for e in errors if "Content Security Policy" in e], errors


def test_pay_an_invoice_through_cybersource_microform(
    tab: Page, site: TestClient[Litestar], sandbox_provider: Account, cybersource: FakeCyberSource
) -> None:
    shop = Shop(site, sandbox_provider)
    fields = {"merchantId": cs_api.MERCHANT_ID, "keyId": cs_api.KEY_ID}
    token = set_up(shop, "cybersource", cs_api.SECRET, fields, card_only=True)
    made: list[str] = []

    def tokens(route: Route) -> None:
        """Flex's transient-token request: only a capture context payhub's adapter asked
        CyberSource for is accepted; the card becomes a transient token of the fake API."""
        body = json.loads(route.request.post_data or "{}")
        if body.get("captureContext") not in cybersource.capture_contexts:
            answer(route, 401, {"reason": "CAPTURE_CONTEXT_INVALID", "message": "Invalid"})
            return
        number = body.get("number", "")
        jwt = {"4111111111111111": cybersource.transient_token(),
               "4000000000000002": cs_api.token("declined")}.get(number)  # fmt: skip
        if jwt is None:
            detail = {"location": "number", "message": "The card number is invalid"}
            answer(route, 400, {"reason": "CREATE_TOKEN_VALIDATION_SERVERSIDE",
                                "message": "Validation error", "details": [detail]})  # fmt: skip
            return
        made.append(jwt)
        answer(route, 201, {"token": jwt})

    host = "https://testflex.cybersource.com"
    vendors: dict[str, Vendor] = {
        f"{host}/microform/bundle/v2.0/flex-microform.min.js": serve("flex-microform.js",
                                                                     "application/javascript"),
        f"{host}/microform/bundle/v2.0/iframe.html": serve("field-frame.html", "text/html"),
        f"{host}/flex/v2/tokens": tokens,
    }  # fmt: skip
    wire = Wire(tab, site, vendors)
    errors = watch(tab)
    tab.goto(f"{ORIGIN}/pay/{token}")
    assert len(cybersource.capture_contexts) == 1  # made for this view through the adapter
    number = tab.frame_locator("#card-cs-number iframe").locator("input")
    number.wait_for()
    tab.fill("#card-cs-month", "12")
    tab.fill("#card-cs-year", "2031")
    number.fill("4111")
    press_pay(tab)  # Microform refuses the number: its message, no token
    tab.wait_for_selector("#pay-message.error", timeout=15_000)
    assert "card number is invalid" in tab.inner_text("#pay-message")
    assert not [u for u in wire.to_vendors if "/flex/v2/tokens" in u]
    number.fill("4000000000000002")
    press_pay(tab)
    tab.wait_for_selector("#pay-message.error:has-text('declin')", timeout=15_000)
    assert shop.read(token_of_number(shop))["status"] != "Paid"
    number.fill("4111111111111111")
    pay_and_wait(tab)
    assert shop.read(token_of_number(shop))["status"] == "Paid"
    sent = [b["tokenInformation"]["transientTokenJwt"]
            for b in cybersource.bodies("POST", "/pts/v2/payments")]  # fmt: skip
    assert sent == made
    assert not any("4111111111111111" in s or "4000000000000002" in s
                   for s in wire.to_payhub)  # fmt: skip
    assert wire.stray == []
    assert wire.csp_violations == []
    assert not [e for e in errors if "Content Security Policy" in e], errors
