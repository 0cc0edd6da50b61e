"""Amount-bound pay-page sessions over HTTP, on both stores (issue 19 item 1): the gateways whose
browser SDK needs a session made for the amount the payer picks (PayPal's order...).

``POST /pay/{token}/session`` (the pay and the embed page) makes it through the adapter for
the chosen amount, checked by the invoice's rules; the payment must then carry the signed
checkout token and the session's own payment token, for exactly that amount (a session for
10.00 cannot pay 100.00). ``POST /approve/{token}/session`` makes the approval page's (no
amount: the card is saved). Each gateway's ``confirm`` does what its SDK does in the vendor's
frames with the card typed there; ``test_checkout_drivers_browser.py`` does it in chromium.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import attrs
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.adapters.system import FixedClock
from payhub_server.pages.sessions import SessionBudget, set_budget
from payhub_server.ratelimit import Budget
from tests.conftest import Account
from tests.gateways.nuvei import fake as nuvei_api
from tests.gateways.scenarios.base import Driver as Scenario
from tests.gateways.scenarios.drivers import DRIVERS as SCENARIOS
from tests.pages.support import Shop, config_of, token_of
from tests.pages.test_gateway_fields_http import csp
from tests.pages.test_pay_page_http import SAME_ORIGIN, open_page, pay
from tests.schedules.test_requests import form_token


def _paypal_confirm(scenario: Scenario, session: dict[str, str], declined: bool) -> str:
    order = session["orderId"]
    name = "CCREJECT-REFUSED" if declined else "Ada Lovelace"  # the sandbox's decline trigger
    scenario.fake.confirm_card(order, name, "4111111111111111")
    return order


def _paypal_amounts(scenario: Scenario) -> list[Decimal]:
    return [Decimal(o["purchase_units"][0]["amount"]["value"])
            for o in scenario.fake.orders.values()]  # fmt: skip


def _paypal_save(scenario: Scenario, session: dict[str, str]) -> str:
    token = session["vaultSetupToken"]
    scenario.fake.approve_setup(token, "Ada Lovelace", "4111111111111111")
    return token


def _nuvei_confirm(scenario: Scenario, session: dict[str, str], declined: bool) -> str:
    number = nuvei_api.CARDS["decline" if declined else "visa"].number
    temp = scenario.fake.fields_token_under(session["sessionToken"], number)
    return f"{session['sessionToken']}|{temp}"


def _nuvei_amounts(scenario: Scenario) -> list[Decimal]:
    return [amount for amount, _, _ in scenario.fake.orders.values()]


def _nuvei_save(scenario: Scenario, session: dict[str, str]) -> str:
    number = nuvei_api.CARDS["mastercard"].number
    temp = scenario.fake.fields_token_under(session["sessionToken"], number)
    return f"{session['sessionToken']}|{temp}"


_HELCIM_NAMES = iter(f"Payer {i}" for i in range(10_000))  # Helcim declines repeats


def _helcim_confirm(scenario: Scenario, session: dict[str, str], declined: bool) -> str:
    checkout = session["checkoutToken"]
    card = scenario.fake.verify_in_checkout(checkout, "5454545454545454",
                                            name=next(_HELCIM_NAMES),
                                            cvv="209" if declined else "100")  # fmt: skip
    return f"{checkout}|{card}"


def _helcim_amounts(scenario: Scenario) -> list[Decimal]:
    return [Decimal(str(c["amount"])) for c in scenario.fake.checkouts.values()]


def _helcim_save(scenario: Scenario, session: dict[str, str]) -> str:
    return _helcim_confirm(scenario, session, False)


def _elavon_confirm(scenario: Scenario, session: dict[str, str], declined: bool) -> str:
    token = session["sessionToken"]
    card = scenario.fake.lightbox_token(
        token, "4000000000000002" if declined else "4111111144444444"
    )
    return f"{token}|{card}"


def _elavon_amounts(scenario: Scenario) -> list[Decimal]:
    return [Decimal(0) for _ in scenario.fake.sessions]


def _elavon_save(scenario: Scenario, session: dict[str, str]) -> str:
    token = session["sessionToken"]
    return f"{token}|{scenario.fake.lightbox_token(token, '5111111111115555')}"


def _fiserv_confirm(scenario: Scenario, session: dict[str, str], declined: bool) -> str:
    number = "4000000000000002" if declined else "4111111111111111"
    assert scenario.fake.submit_card(session["sessionId"], session["accessToken"], number)
    return session["sessionId"]


def _fiserv_amounts(scenario: Scenario) -> list[Decimal]:
    return [Decimal(0) for _ in scenario.fake.credentials]


def _fiserv_save(scenario: Scenario, session: dict[str, str]) -> str:
    return _fiserv_confirm(scenario, session, False)


@attrs.frozen
class Case:
    public: dict[str, str]
    script: str  # a script-src host of the sandbox
    frame: str  # a frame-src host of the sandbox
    absent: str  # a live host the sandbox page never opens
    session_keys: tuple[str, ...]  # what the pay page's session shows the page
    confirm: Callable[[Scenario, dict[str, str], bool], str]  # the SDK taking a card
    amounts: Callable[[Scenario], list[Decimal]]  # the amounts of the sessions made
    save: Callable[[Scenario, dict[str, str]], str]  # the SDK saving a card (approval page)
    # whether the vendor's session carries the amount (Helcim's verify session does not:
    # payhub's checkout token binds it, and the adapter charges it)
    vendor_binds_amount: bool = True


CASES: dict[str, Case] = {
    "paypal": Case({"clientId": "AcPayhubFakeClientId"}, "https://www.paypal.com",
                   "https://www.sandbox.paypal.com", "frame-src https://www.paypal.com",
                   ("orderId",), _paypal_confirm, _paypal_amounts, _paypal_save),
    "nuvei": Case({"merchantId": nuvei_api.MERCHANT_ID,
                   "merchantSiteId": nuvei_api.MERCHANT_SITE_ID},
                  "https://cdn.safecharge.com", "https://cdn.safecharge.com",
                  "https://secure.safecharge.com", ("sessionToken",), _nuvei_confirm,
                  _nuvei_amounts, _nuvei_save),
    "helcim": Case({}, "https://secure.helcim.app", "https://secure.helcim.app",
                   "https://cdn.safecharge.com", ("checkoutToken",), _helcim_confirm,
                   _helcim_amounts, _helcim_save, vendor_binds_amount=False),
    "elavon": Case({}, "https://api.demo.convergepay.com", "https://api.demo.convergepay.com",
                   "https://api.convergepay.com", ("sessionToken",), _elavon_confirm,
                   _elavon_amounts, _elavon_save, vendor_binds_amount=False),
    "fiserv": Case({}, "https://commercehub-secure-data-capture.fiservapps.com",
                   "https://commercehub-secure-data-capture.fiservapps.com",
                   "https://prod.api.fiservapps.com",
                   ("sessionId", "accessToken", "publicKey", "keyId", "apiKey", "merchantId",
                    "terminalId"), _fiserv_confirm, _fiserv_amounts, _fiserv_save,
                   vendor_binds_amount=False),
}  # fmt: skip


def sessions_made(case: Case, scenario: Scenario, amounts: list[str]) -> None:
    """The vendor sessions made so far were for these amounts (or, where the vendor's session
    carries no amount, as many as these)."""
    made = case.amounts(scenario)
    if case.vendor_binds_amount:
        assert made == [Decimal(a) for a in amounts]
    else:
        assert made == [Decimal(0)] * len(amounts)


@pytest.fixture(params=sorted(CASES))
def scenario(request: pytest.FixtureRequest) -> Iterator[Scenario]:
    made = SCENARIOS[request.param]()
    yield made
    made.close()


@pytest.fixture
def hub(store_url: str, key_file: Path, clock: FixedClock, scenario: Scenario) -> Iterator[PayHub]:
    gateways: dict[str, Any] = {scenario.name: scenario.gateway}
    hub = PayHub.open(store_url, key_file=key_file, clock=clock, gateways=gateways)
    yield hub
    hub.close()


@pytest.fixture
def shop(client: TestClient[Litestar], sandbox_provider: Account, scenario: Scenario) -> Shop:
    creds = scenario.creds
    made = Shop(client, sandbox_provider)
    body = {"apiSecret": creds.api_secret, "environment": "Sandbox",
            "additionalFields": {**creds.fields, **CASES[scenario.name].public}}  # fmt: skip
    made.ok(client.put(f"{made.base}/credentials/{scenario.name}", headers=made.headers,
                       json=body))  # fmt: skip
    return made


def session(
    client: TestClient[Litestar], token: str, attempt: str, amount: str | None = None,
    headers: dict[str, str] | None = None, path: str = "/pay",
) -> Any:  # fmt: skip
    body: dict[str, Any] = {"attemptToken": attempt, "methodType": "Card"}
    if amount is not None:
        body["amount"] = amount
    return client.post(f"{path}/{token}/session", json=body, headers=headers or SAME_ORIGIN)


def pay_with(
    client: TestClient[Litestar], token: str, attempt: str, payment_token: str,
    checkout: str | None, amount: str | None = None,
) -> Any:  # fmt: skip
    body: dict[str, Any] = {"attemptToken": attempt, "paymentMethodToken": payment_token,
                            "methodType": "Card", "checkoutToken": checkout}  # fmt: skip
    if amount is not None:
        body["amount"] = amount
    return client.post(f"/pay/{token}/payments", json=body, headers=SAME_ORIGIN)


def card_invoice(shop: Shop, scenario: Scenario, **terms: Any) -> dict[str, Any]:
    return shop.invoice(gateway=scenario.name, allowedPaymentMethods="CardOnly", **terms)


def test_the_page_loads_the_driver_and_makes_no_session_until_pay(
    shop: Shop, scenario: Scenario
) -> None:
    case = CASES[scenario.name]
    page = shop.client.get(f"/pay/{token_of(card_invoice(shop, scenario))}")
    assert page.status_code == 200, page.text
    assert f'<script src="/static/fields/{scenario.name}.js"></script>' in page.text
    assert "not available" not in page.text
    config = config_of(page.text)
    assert config["urls"]["session"].endswith("/session")
    hosted = config["hostedFields"]["config"]
    assert {k: hosted[k] for k in case.public} == case.public
    assert scenario.creds.api_secret not in page.text
    policy = csp(page)
    assert case.script in policy["script-src"]
    assert case.frame in policy["frame-src"]
    assert case.absent not in page.headers["content-security-policy"]
    sessions_made(case, scenario, [])  # nothing is made before the payer picks the amount


def test_a_session_is_made_for_the_chosen_amount_and_checked_like_the_payment(
    client: TestClient[Litestar], shop: Shop, scenario: Scenario
) -> None:
    case = CASES[scenario.name]
    token = token_of(card_invoice(shop, scenario, partialPaymentMode="CustomerChoice"))
    attempt = open_page(client, token)["attemptToken"]
    made = session(client, token, attempt, "25.50")
    assert made.status_code == 200, made.text
    answer = made.json()
    assert answer["amount"] == "25.50"
    assert answer["currency"] == "USD"
    assert set(answer["session"]) == set(case.session_keys)
    assert answer["checkoutToken"].startswith("chk.")
    assert scenario.creds.api_secret not in made.text
    sessions_made(case, scenario, ["25.50"])
    full = session(client, token, attempt)  # no amount: the balance
    assert full.json()["amount"] == "106.60"
    for bad in ("106.61", "0", "1.505"):  # the payment's own rules, before the gateway
        refused = session(client, token, attempt, bad)
        assert refused.status_code == 400, refused.text
        assert refused.headers["content-type"].startswith("application/problem+json")
        assert refused.json()["errors"][0]["field"] == "amount"
    sessions_made(case, scenario, ["25.50", "106.60"])
    cross = session(client, token, attempt, "10.00", headers={"Sec-Fetch-Site": "cross-site"})
    assert cross.status_code == 403
    assert session(client, token, "pay.forged.1.x", "10.00").status_code == 403
    plain = client.post(f"/pay/{token}/session", content=b"amount=10", headers={
        **SAME_ORIGIN, "Content-Type": "application/x-www-form-urlencoded"})  # fmt: skip
    assert plain.status_code == 415
    sessions_made(case, scenario, ["25.50", "106.60"])


def test_a_session_for_one_amount_cannot_pay_another(
    client: TestClient[Litestar], shop: Shop, scenario: Scenario
) -> None:
    case = CASES[scenario.name]
    invoice = card_invoice(shop, scenario, partialPaymentMode="CustomerChoice")
    token = token_of(invoice)
    attempt = open_page(client, token)["attemptToken"]
    made = session(client, token, attempt, "10.00").json()
    card = case.confirm(scenario, made["session"], False)
    more = pay_with(client, token, attempt, card, made["checkoutToken"], "100.00")
    assert more.status_code == 400, more.text
    assert more.json()["errors"][0]["field"] == "amount"
    unbound = pay_with(client, token, attempt, card, None, "10.00")
    assert unbound.status_code == 400
    assert unbound.json()["errors"][0]["field"] == "checkoutToken"
    other = session(client, token, attempt, "10.00").json()  # another session, same amount
    swapped = pay_with(client, token, attempt, card, other["checkoutToken"], "10.00")
    assert swapped.status_code == 400
    assert swapped.json()["errors"][0]["field"] == "paymentMethodToken"
    forged = made["checkoutToken"].split(".")
    forged[1] = forged[1][:-2] + ("AA" if forged[1][-2:] != "AA" else "BB")
    tampered = pay_with(client, token, attempt, card, ".".join(forged), "100.00")
    assert tampered.status_code == 403
    assert scenario.charges_made() in (None, 0)
    assert shop.read(invoice["invoiceNumber"])["amountPaid"] == 0
    paid = pay_with(client, token, attempt, card, made["checkoutToken"], "10.00")
    assert paid.status_code == 200, paid.text
    assert Decimal(str(shop.read(invoice["invoiceNumber"])["amountPaid"])) == Decimal("10.00")


def test_a_decline_then_a_deposit_then_the_rest(
    client: TestClient[Litestar], shop: Shop, scenario: Scenario
) -> None:
    case = CASES[scenario.name]
    invoice = card_invoice(shop, scenario, partialPaymentMode="FixedDeposit",
                           requiredDepositAmount=30)  # fmt: skip
    token = token_of(invoice)
    attempt = open_page(client, token)["attemptToken"]
    made = session(client, token, attempt, "30.00").json()
    card = case.confirm(scenario, made["session"], True)
    declined = pay_with(client, token, attempt, card, made["checkoutToken"], "30.00")
    assert declined.status_code == 402, declined.text
    attempt = declined.json()["nextAttemptToken"]
    assert session(client, token, attempt, "50.00").status_code == 400  # deposit or balance
    made = session(client, token, attempt, "30.00").json()
    card = case.confirm(scenario, made["session"], False)
    paid = pay_with(client, token, attempt, card, made["checkoutToken"], "30.00")
    assert paid.status_code == 200, paid.text
    attempt = open_page(client, token)["attemptToken"]
    made = session(client, token, attempt).json()
    assert made["amount"] == "76.60"
    card = case.confirm(scenario, made["session"], False)
    paid = pay_with(client, token, attempt, card, made["checkoutToken"], "76.60")
    assert paid.status_code == 200, paid.text
    assert shop.read(invoice["invoiceNumber"])["status"] == "Paid"
    sessions_made(case, scenario, ["30.00", "30.00", "76.60"])
    refused = session(client, token, attempt)  # nothing left to pay
    assert refused.status_code == 409


def test_the_embed_page_uses_the_same_session(
    client: TestClient[Litestar], shop: Shop, scenario: Scenario, hub: PayHub,
    sandbox_provider: Account,
) -> None:  # fmt: skip
    scope = hub.provider(hub.authenticate(sandbox_provider.key)).merchant(shop.ref)
    scope.invoices.change_embed_origins(add=["https://shop.example"])
    token = token_of(card_invoice(shop, scenario))
    config = open_page(client, token, "/embed")
    assert config["urls"]["session"] == f"/pay/{token}/session"
    assert session(client, token, config["attemptToken"]).status_code == 200


def test_sessions_are_budgeted_per_link(
    client: TestClient[Litestar], shop: Shop, scenario: Scenario
) -> None:
    case = CASES[scenario.name]
    set_budget(client.app.state, SessionBudget(Budget("s", 2, 600)))
    token = token_of(card_invoice(shop, scenario))
    attempt = open_page(client, token)["attemptToken"]
    assert [session(client, token, attempt).status_code for _ in range(3)] == [200, 200, 429]
    over = session(client, token, attempt)
    assert over.headers["content-type"].startswith("application/problem+json")
    assert int(over.headers["retry-after"]) > 0
    assert len(case.amounts(scenario)) == 2  # the refused ones never reached the gateway
    other = token_of(card_invoice(shop, scenario))
    assert session(client, other, open_page(client, other)["attemptToken"]).status_code == 200


def test_the_approval_page_saves_a_card_under_a_session(
    shop: Shop, clock: FixedClock, scenario: Scenario
) -> None:
    case = CASES[scenario.name]
    start = (clock.now() + timedelta(days=2)).isoformat().replace("+00:00", "Z")
    body = {"gateway": scenario.name, "startAtUtc": start, "cadence": "Monthly", "amount": 40}
    made = shop.ok(shop.client.post(f"{shop.base}/customers/{shop.customer_id}/schedule-requests",
                                    headers=shop.headers, json=body), 201)  # fmt: skip
    path = urlsplit(made["approvalUrl"]).path
    page = shop.client.get(path)
    assert page.status_code == 200, page.text
    assert f'<script src="/static/fields/{scenario.name}.js"></script>' in page.text
    assert case.script in csp(page)["script-src"]
    cross = shop.client.post(f"{path}/session", json={}, headers={"Sec-Fetch-Site": "cross-site"})
    assert cross.status_code == 403
    made_session = shop.client.post(f"{path}/session", json={}, headers=SAME_ORIGIN)
    assert made_session.status_code == 200, made_session.text
    saved = case.save(scenario, made_session.json()["session"])
    approved = shop.client.post(path, data={"formToken": form_token(page.text),
                                            "paymentMethodToken": saved, "type": "Card"},
                                follow_redirects=False)  # fmt: skip
    assert approved.status_code == 303, approved.text
    assert "Schedule approved" in shop.client.get(path).text
    done = shop.client.post(f"{path}/session", json={}, headers=SAME_ORIGIN)
    assert done.status_code == 409  # approved: nothing more to save
    set_budget(shop.client.app.state, SessionBudget(Budget("s", 1, 600)))
    assert shop.client.post(f"{path}/session", json={}, headers=SAME_ORIGIN).status_code == 409
    assert shop.client.post(f"{path}/session", json={}, headers=SAME_ORIGIN).status_code == 429


def test_the_page_without_session_support_pays_as_before(
    client: TestClient[Litestar], shop: Shop, scenario: Scenario
) -> None:
    """A plain token post (no session) on a session gateway is refused before any charge."""
    token = token_of(card_invoice(shop, scenario))
    attempt = open_page(client, token)["attemptToken"]
    refused = pay(client, token, attempt, payment_token=scenario.card_token())
    assert refused.status_code == 400
    assert refused.json()["errors"][0]["field"] == "checkoutToken"
    assert scenario.charges_made() in (None, 0)
