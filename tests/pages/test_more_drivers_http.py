"""The pay-page drivers of issue 19 over HTTP, on both stores, one parametrised module: for each
gateway, the page loads its driver with only its vendor's hosts in the CSP, the public values
are checked and reach the page (the secret never does), the approval page takes a schedule
request on it, and an invoice is paid with the token its vendor SDK hands the driver (a decline
first, then an approval), through the real adapter talking to the gateway's fake API.

The tokens come from the gateway's scenario driver (``tests/gateways/<gateway>/scenario.py``),
which makes them the way the vendor's SDK does (a Stax.js payment method, a Protect.js
``hpf_token|enc_key``, ...); the browser tests with the fake SDKs are
``test_more_drivers_browser.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import attrs
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.adapters.system import FixedClock
from tests.conftest import Account
from tests.gateways.scenarios.base import Driver as Scenario
from tests.gateways.scenarios.drivers import DRIVERS as SCENARIOS
from tests.pages.support import Shop, config_of, token_of
from tests.pages.test_gateway_fields_http import csp
from tests.pages.test_pay_page_http import open_page, pay


@attrs.frozen
class Case:
    public: dict[str, str]  # the public values the driver needs
    script: str  # a script-src (and SDK) host of the sandbox
    connect: str  # a connect-src host of the sandbox
    bad: tuple[str, str]  # a public value the credentials refuse: (field, value)
    absent: str = "stripe.com"  # a host no other gateway's page opens
    session: tuple[str, ...] = ()  # values the adapter makes server-side for each page view


CASES: dict[str, Case] = {
    "stax": Case({"webPaymentsToken": "payhub-fake-webpayments-01"},
                 "https://staxjs.staxpayments.com", "https://apiprod.fattlabs.com",
                 ("webPaymentsToken", "not a token!")),
    "heartland": Case({"publicApiKey": "pkapi_cert_payhubFake0001"},
                      "https://js.globalpay.com", "https://cert.api2.heartlandportico.com",
                      ("publicApiKey", "pkapi_prod_payhubFake0001"),
                      absent="https://api2.heartlandportico.com"),
    "worldpay": Case({"paypageId": "a2y4o6m8k0"}, "https://request.eprotect.vantivprelive.com",
                     "https://request.eprotect.vantivprelive.com", ("paypageId", "a2y4-o6m8k0"),
                     absent="vantivcnp.com"),
    "paytrace": Case({}, "https://protect.sandbox.paytrace.com",
                     "https://protect.sandbox.paytrace.com", ("", ""),
                     session=("clientKey",), absent="https://protect.paytrace.com"),
    "global-payments": Case({}, "https://js.globalpay.com", "https://apis.sandbox.globalpay.com",
                            ("", ""), session=("accessToken",),
                            absent="https://apis.globalpay.com"),
    "cybersource": Case({}, "https://testflex.cybersource.com", "https://testflex.cybersource.com",
                        ("", ""), session=("captureContext",),
                        absent="https://flex.cybersource.com"),
}  # fmt: skip


@pytest.fixture(params=sorted(CASES))
def scenario(request: pytest.FixtureRequest) -> Iterator[Scenario]:
    made = SCENARIOS[request.param]()
    yield made
    made.close()


@pytest.fixture
def hub(store_url: str, key_file: Path, clock: FixedClock, scenario: Scenario) -> Iterator[PayHub]:
    """payhub with the gateway's real adapter talking to its fake API."""
    gateways: dict[str, Any] = {scenario.name: scenario.gateway}
    hub = PayHub.open(store_url, key_file=key_file, clock=clock, gateways=gateways)
    yield hub
    hub.close()


@pytest.fixture
def shop(client: TestClient[Litestar], sandbox_provider: Account, scenario: Scenario) -> Shop:
    return Shop(client, sandbox_provider)


def put(shop: Shop, scenario: Scenario, public: dict[str, str], bad: bool = False) -> Any:
    creds = scenario.bad_creds if bad else scenario.creds
    body = {"apiSecret": creds.api_secret, "environment": "Sandbox",
            "additionalFields": {**creds.fields, **public}}  # fmt: skip
    url = f"{shop.base}/credentials/{scenario.name}"
    return shop.client.put(url, headers=shop.headers, json=body)


def card_invoice(shop: Shop, scenario: Scenario) -> dict[str, Any]:
    return shop.invoice(gateway=scenario.name, allowedPaymentMethods="CardOnly")


def test_the_page_loads_the_driver_with_only_its_vendor_hosts(
    shop: Shop, scenario: Scenario
) -> None:
    case = CASES[scenario.name]
    assert put(shop, scenario, case.public).status_code == 200
    page = shop.client.get(f"/pay/{token_of(card_invoice(shop, scenario))}")
    assert page.status_code == 200, page.text
    assert f'<script src="/static/fields/{scenario.name}.js"></script>' in page.text
    assert "/simulator/hosted-fields.js" not in page.text
    assert "not available" not in page.text
    hosted = config_of(page.text)["hostedFields"]
    assert hosted["gateway"] == scenario.name
    assert hosted["card"] is True
    assert {k: hosted["config"][k] for k in case.public} == case.public
    for name in case.session:  # made server-side through the adapter for this view
        assert hosted["config"][name]
        assert hosted["config"][name] not in (scenario.creds.api_secret, *scenario.creds.fields)
    assert hosted["config"]["sandbox"] is True
    assert any(url.startswith(case.script + "/") for url in hosted["config"]["sdk"])
    assert scenario.creds.api_secret not in page.text  # the secret never reaches the page
    policy = csp(page)
    assert case.script in policy["script-src"]
    assert case.connect in policy["connect-src"]
    assert policy["default-src"] == ["'none'"]
    assert case.absent not in page.headers["content-security-policy"]
    driver = shop.client.get(f"/static/fields/{scenario.name}.js")
    assert driver.status_code == 200
    assert driver.headers["content-type"].startswith("application/javascript")
    assert f"PayHubFields[{scenario.name!r}]".replace("'", '"') in driver.text or (
        f"PayHubFields.{scenario.name} =" in driver.text
    )


def test_without_public_values_or_session_the_page_says_so(shop: Shop, scenario: Scenario) -> None:
    """Without the public values, or when the gateway refuses to make the page's session
    (credentials it rejects), the page says online payment is not available and opens no
    vendor host."""
    case = CASES[scenario.name]
    if case.session:
        assert put(shop, scenario, case.public, bad=True).status_code == 200
    else:
        assert put(shop, scenario, {}).status_code == 200
    invoice = card_invoice(shop, scenario)
    page = shop.client.get(f"/pay/{token_of(invoice)}")
    assert page.status_code == 200
    sdk = scenario.info.hosted_fields
    assert f"Online payment through {sdk} is not available" in page.text
    assert "/static/fields/" not in page.text
    assert urlsplit(case.script).netloc not in page.headers["content-security-policy"]
    assert csp(page)["frame-src"] == ["'none'"]


def test_a_malformed_public_value_is_refused_and_nothing_is_stored(
    shop: Shop, scenario: Scenario
) -> None:
    case = CASES[scenario.name]
    if not case.public:
        pytest.skip(f"{scenario.name}'s page needs no public value (its session is made)")
    field, value = case.bad
    answer = put(shop, scenario, {**case.public, field: value})
    assert answer.status_code == 400, answer.text
    errors = answer.json()["errors"]
    assert [e["field"] for e in errors] == [f"additionalFields.{field}"]
    assert value not in errors[0]["message"]
    listed = shop.ok(shop.client.get(f"{shop.base}/credentials", headers=shop.headers))
    assert scenario.name not in [c["gateway"] for c in listed["data"]]


def test_an_invoice_is_paid_with_the_vendor_token_after_a_decline(
    client: TestClient[Litestar], shop: Shop, scenario: Scenario
) -> None:
    assert put(shop, scenario, CASES[scenario.name].public).status_code == 200
    invoice = card_invoice(shop, scenario)
    token = token_of(invoice)
    attempt = open_page(client, token)["attemptToken"]
    decline = scenario.decline_token("generic_decline")
    assert decline is not None
    declined = pay(client, token, attempt, payment_token=decline)
    assert declined.status_code == 402, declined.text
    assert shop.read(invoice["invoiceNumber"])["status"] != "Paid"
    attempt = declined.json().get("nextAttemptToken") or open_page(client, token)["attemptToken"]
    paid = pay(client, token, attempt, payment_token=scenario.card_token())
    assert paid.status_code == 200, paid.text
    stored = shop.read(invoice["invoiceNumber"])
    assert stored["status"] == "Paid"
    assert len(stored["payments"]) == 1
    made = scenario.charges_made()
    assert made is None or made == 2  # the fake gateway took both charges
    # The paid invoice's page shows no form, so it asks the gateway for no session.
    before = len(scenario.fake.requests) if hasattr(scenario.fake, "requests") else None
    page = client.get(f"/pay/{token}")
    assert page.status_code == 200
    assert "/static/fields/" not in page.text
    if before is not None:
        assert len(scenario.fake.requests) == before


def test_the_approval_page_takes_a_schedule_request_on_the_gateway(
    shop: Shop, clock: FixedClock, scenario: Scenario
) -> None:
    assert put(shop, scenario, CASES[scenario.name].public).status_code == 200
    start = (clock.now() + timedelta(days=2)).isoformat().replace("+00:00", "Z")
    body = {"gateway": scenario.name, "startAtUtc": start, "cadence": "Monthly", "amount": 40}
    made = shop.client.post(
        f"{shop.base}/customers/{shop.customer_id}/schedule-requests",
        headers=shop.headers,
        json=body,
    )
    assert made.status_code == 201, made.text  # hostedCheckout: no 400 for this gateway
    page = shop.client.get(urlsplit(made.json()["approvalUrl"]).path)
    assert page.status_code == 200, page.text
    assert f'<script src="/static/fields/{scenario.name}.js"></script>' in page.text
    assert "not available" not in page.text
    assert CASES[scenario.name].script in csp(page)["script-src"]
