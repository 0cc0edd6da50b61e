"""Real gateways' hosted fields on the pages, over HTTP on both stores: the public client values
set through ``PUT M/credentials/{gateway}`` (checked, prefix-matched to the mode, kept out of the
sealed secret and never echoed), the driver each page picks, and its CSP per gateway."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.adapters.system import FixedClock
from payhub.domain.environments import Environment
from tests.conftest import Account
from tests.gateways.catalog_rows import gateway as catalog_gateway
from tests.pages.support import Shop, config_of, token_of

PK = "pk_test_51HpayhubFAKEpublishable"
PUBLIC: dict[str, dict[str, str]] = {
    "stripe": {"publishableKey": PK},
    "square": {"applicationId": "sandbox-sq0idb-payhubFakeApp01", "locationId": "LPAYHUB01"},
    "nmi": {"tokenizationKey": "5mN8N7-jhr55W-N22pxX-uAW2s9"},
    "authorize-net": {"apiLoginId": "5KP3u95bQpv",
                      "clientKey": "5FcB6WrfHGS76gHW3v7btBCE3HuuBuke9Pj96Ztfn5R3"},
    "braintree": {"merchantId": "m1", "publicKey": "pub1",
                  "tokenizationKey": "sandbox_g42y39zw_348pk9cgf3bgyw2b"},
    "checkout-com": {"publicKey": "pk_sbox_payhubfakepublickey0001"},
    "usaepay": {"pin": "4242", "publicKey": "_P120LOb42a1SF4nN54z1Hp0256K7bl3ki0x8iuJP9"},
    "clover": {"apiAccessKey": "a1b2c3d4e5f60718293a4b5c6d7e8f90", "merchantId": "XF3KPAYHUB01Q"},
}  # fmt: skip


BANK_DRIVERS = frozenset({"stripe"})  # drivers that collect bank accounts too


@pytest.fixture
def shop(client: TestClient[Litestar], sandbox_provider: Account) -> Shop:
    return Shop(client, sandbox_provider)


def put(shop: Shop, gateway: str, fields: dict[str, str], secret: str = "sk_test_x") -> Any:
    body = {"apiSecret": secret, "environment": "Sandbox", "additionalFields": fields}
    return shop.client.put(f"{shop.base}/credentials/{gateway}", headers=shop.headers, json=body)


def invoice_on(shop: Shop, gateway: str) -> dict[str, Any]:
    """An invoice on ``gateway``, card-only where the gateway takes no ACH in payhub."""
    ach = catalog_gateway(gateway, Environment.SANDBOX).ach
    return shop.invoice(gateway=gateway, **({} if ach else {"allowedPaymentMethods": "CardOnly"}))


def stored(
    hub: PayHub, account: Account, gateway: str
) -> tuple[dict[str, Any] | None, dict[str, str]]:
    """(the opened sealed secret or None, the public fields) as the database holds them."""
    with hub.deps.store.unit_of_work(readonly=True) as uow:
        merchant = uow.merchants.get_by_reference(account.provider.id, "shop")
        assert merchant is not None
        row = uow.credentials.get(merchant.id, gateway)
        public = uow.gateway_public_fields.get(merchant.id, gateway)
    opened = json.loads(hub.deps.secrets.open(row.sealed)) if row else None
    return opened, public


def csp(response: Any) -> dict[str, list[str]]:
    policy: dict[str, list[str]] = {}
    for part in response.headers["content-security-policy"].split(";"):
        name, *values = part.split()
        policy[name] = values
    return policy


def test_public_values_are_kept_unsealed_and_never_echoed(
    shop: Shop, hub: PayHub, sandbox_provider: Account
) -> None:
    answer = put(shop, "stripe", {"publishableKey": f"  {PK} "})
    assert answer.status_code == 200, answer.text
    assert PK not in answer.text
    assert "sk_test_x" not in answer.text
    assert answer.json()["additionalFieldNames"] == ["publishableKey"]
    listed = shop.client.get(f"{shop.base}/credentials", headers=shop.headers)
    assert PK not in listed.text
    assert [
        c["additionalFieldNames"] for c in listed.json()["data"] if c["gateway"] == "stripe"
    ] == [["publishableKey"]]
    sealed, public = stored(hub, sandbox_provider, "stripe")
    assert sealed == {"apiSecret": "sk_test_x", "fields": {}}  # the key is not in the secret
    assert public == {"publishableKey": PK}  # trimmed
    # A PUT replaces the credentials, public values included.
    assert put(shop, "stripe", {}).status_code == 200
    assert stored(hub, sandbox_provider, "stripe")[1] == {}


def test_adapter_read_public_values_stay_in_the_secret_too(
    shop: Shop, hub: PayHub, sandbox_provider: Account
) -> None:
    fields = PUBLIC["authorize-net"]
    assert put(shop, "authorize-net", fields).status_code == 200
    sealed, public = stored(hub, sandbox_provider, "authorize-net")
    assert sealed is not None
    assert sealed["fields"] == {"apiLoginId": fields["apiLoginId"]}
    assert public == fields
    bt = PUBLIC["braintree"]
    assert put(shop, "braintree", bt).status_code == 200
    sealed, public = stored(hub, sandbox_provider, "braintree")
    assert sealed is not None
    assert sealed["fields"] == {"merchantId": "m1", "publicKey": "pub1"}
    assert public == {"tokenizationKey": bt["tokenizationKey"]}


@pytest.mark.parametrize(
    ("gateway", "field", "value", "says"),
    [
        ("stripe", "publishableKey", "pk_live_51HpayhubFAKEpub", "must start with pk_test_"),
        ("stripe", "publishableKey", "sk_test_51HpayhubFAKEsecret", "Stripe publishable key"),
        ("square", "applicationId", "sq0idp-payhubFakeApp01", "must start with sandbox-sq0idb-"),
        ("square", "applicationId", "payhub-app", "Square application id"),
        ("braintree", "tokenizationKey", "production_g42y39zw_348pk9cgf3bgyw2b",
         "must start with sandbox_"),
        ("nmi", "tokenizationKey", "not a key!", "NMI Collect.js tokenization key"),
        ("authorize-net", "clientKey", "short", "Authorize.Net public client key"),
        ("checkout-com", "publicKey", "pk_payhubfakelivepublickey01",
         "must start with pk_sbox_ or pk_test_"),
        ("checkout-com", "publicKey", "sk_sbox_payhubfakesecretkey01", "Checkout.com public key"),
        ("clover", "apiAccessKey", "8a7c1d3e-5b2f-4c6d-9e0a-1f2b3c4d5e6f",
         "Clover Ecommerce public key"),
        ("clover", "merchantId", "XF3K", "Clover merchant id"),
        ("usaepay", "publicKey", "_fakeUsaepay-ApiKey", "USAePay public API key"),
    ],
)  # fmt: skip
def test_public_values_are_checked_for_shape_and_mode(
    shop: Shop, hub: PayHub, sandbox_provider: Account,
    gateway: str, field: str, value: str, says: str,
) -> None:  # fmt: skip
    fields = {**PUBLIC[gateway], field: value}
    answer = put(shop, gateway, fields)
    assert answer.status_code == 400, answer.text
    assert answer.headers["content-type"].startswith("application/problem+json")
    errors = answer.json()["errors"]
    assert [e["field"] for e in errors] == [f"additionalFields.{field}"]
    assert says in errors[0]["message"]
    assert value not in errors[0]["message"]
    assert stored(hub, sandbox_provider, gateway) == (None, {})  # nothing written


@pytest.mark.parametrize(
    ("gateway", "script", "connect", "absent"),
    [
        ("stripe", "https://js.stripe.com", "https://api.stripe.com", "squarecdn"),
        ("square", "https://sandbox.web.squarecdn.com",
         "https://pci-connect.squareupsandbox.com", "stripe"),
        ("nmi", "https://sandbox.nmi.com", "https://sandbox.nmi.com", "secure.nmi.com"),
        ("authorize-net", "https://jstest.authorize.net", "https://apitest.authorize.net",
         "braintree"),
        ("braintree", "https://js.braintreegateway.com",
         "https://payments.sandbox.braintree-api.com", "authorize"),
        ("checkout-com", "https://cdn.checkout.com", "https://api.sandbox.checkout.com",
         "https://api.checkout.com"),
        ("clover", "https://checkout.sandbox.dev.clover.com",
         "https://token-sandbox.dev.clover.com", "https://checkout.clover.com"),
        ("usaepay", "https://sandbox.usaepay.com", "https://sandbox.usaepay.com",
         "www.usaepay.com"),
    ],
)  # fmt: skip
def test_each_gateway_page_loads_its_driver_with_only_its_vendor_hosts(
    shop: Shop, gateway: str, script: str, connect: str, absent: str
) -> None:
    assert put(shop, gateway, PUBLIC[gateway]).status_code == 200
    invoice = invoice_on(shop, gateway)
    page = shop.client.get(f"/pay/{token_of(invoice)}")
    assert page.status_code == 200, page.text
    assert f'<script src="/static/fields/{gateway}.js"></script>' in page.text
    assert "/simulator/hosted-fields.js" not in page.text
    assert "not available" not in page.text
    hosted = config_of(page.text)["hostedFields"]
    assert hosted["gateway"] == gateway
    assert hosted["card"] is True
    # Bank accounts through the gateway's own bank flow where payhub's driver has one
    # (docs/pay-page.md, "Bank accounts on the page"); invoice_on allows them on ACH gateways.
    assert hosted["bank"] is (gateway in BANK_DRIVERS)
    secret = {"braintree": ("merchantId", "publicKey"), "usaepay": ("pin",)}.get(gateway, ())
    public = {k: v for k, v in PUBLIC[gateway].items() if k not in secret}
    assert {k: hosted["config"][k] for k in public} == public
    assert hosted["config"]["sandbox"] is True
    assert "sk_test_x" not in page.text  # the secret never reaches the page
    policy = csp(page)
    assert script in policy["script-src"]
    assert policy["frame-src"] != ["'none'"]
    assert connect in policy["connect-src"]
    assert absent not in page.headers["content-security-policy"]
    assert policy["default-src"] == ["'none'"]
    driver = shop.client.get(f"/static/fields/{gateway}.js")
    assert driver.status_code == 200
    assert driver.headers["content-type"].startswith("application/javascript")
    assert "PayHubFields" in driver.text


@pytest.mark.parametrize(
    ("gateway", "sdk", "host"),
    [("stripe", "Stripe Elements", "stripe.com"),
     ("checkout-com", "Checkout.com Frames", "checkout.com"),
     ("clover", "Clover iframe", "clover.com"),
     ("usaepay", "USAePay Pay.js", "usaepay.com")],
)  # fmt: skip
def test_without_public_values_the_page_says_so_and_opens_no_vendor_host(
    shop: Shop, gateway: str, sdk: str, host: str
) -> None:
    assert put(shop, gateway, {}).status_code == 200
    page = shop.client.get(f"/pay/{token_of(invoice_on(shop, gateway))}")
    assert page.status_code == 200
    assert f"Online payment through {sdk} is not available" in page.text
    assert "/static/fields/" not in page.text
    assert host not in page.headers["content-security-policy"]
    assert csp(page)["frame-src"] == ["'none'"]


def test_simulator_pages_open_no_vendor_host(shop: Shop) -> None:
    page = shop.client.get(f"/pay/{token_of(shop.invoice())}")
    assert "/simulator/hosted-fields.js" in page.text
    policy = csp(page)
    assert policy["script-src"] == ["'self'"]
    assert policy["connect-src"] == ["'self'"]
    assert policy["frame-src"] == ["'none'"]


def test_only_known_drivers_are_served(client: TestClient[Litestar]) -> None:
    for name in ("forte.js", "..%2Fpay-page.js", "stripe", "simulator.js"):
        assert client.get(f"/static/fields/{name}").status_code == 404, name


def approval_page(shop: Shop, clock: FixedClock, gateway: str) -> Any:
    """The public approval page of a new monthly schedule request on ``gateway``."""
    start = (clock.now() + timedelta(days=2)).isoformat().replace("+00:00", "Z")
    body = {"gateway": gateway, "startAtUtc": start, "cadence": "Monthly", "amount": 40}
    made = shop.client.post(
        f"{shop.base}/customers/{shop.customer_id}/schedule-requests",
        headers=shop.headers,
        json=body,
    )
    assert made.status_code == 201, made.text
    return shop.client.get(urlsplit(made.json()["approvalUrl"]).path)


def test_the_approval_page_loads_the_gateways_driver_and_opens_only_its_hosts(
    shop: Shop, clock: FixedClock
) -> None:
    assert put(shop, "stripe", PUBLIC["stripe"]).status_code == 200
    page = approval_page(shop, clock, "stripe")
    assert page.status_code == 200, page.text
    assert '<script src="/static/fields/stripe.js"></script>' in page.text
    assert "/simulator/hosted-fields.js" not in page.text
    assert "not available" not in page.text
    found = re.search(r'<script type="application/json" id="approve-config">(.*?)</script>',
                      page.text, re.S)  # fmt: skip
    assert found, page.text
    settings = json.loads(found.group(1))
    assert settings["gateway"] == "stripe"
    assert settings["config"]["publishableKey"] == PK
    assert settings["config"]["sdk"] == ["https://js.stripe.com/v3/"]
    assert settings["config"]["sandbox"] is True
    assert "sk_test_x" not in page.text
    policy = csp(page)
    assert "https://js.stripe.com" in policy["script-src"]
    assert "https://js.stripe.com" in policy["frame-src"]
    assert "https://api.stripe.com" in policy["connect-src"]
    assert "squarecdn" not in page.headers["content-security-policy"]
    assert policy["default-src"] == ["'none'"]


def test_the_approval_page_without_public_values_says_not_available(
    shop: Shop, clock: FixedClock
) -> None:
    assert put(shop, "stripe", {}).status_code == 200
    page = approval_page(shop, clock, "stripe")
    assert page.status_code == 200, page.text
    assert "is not available on this page yet" in page.text
    assert "/static/fields/" not in page.text
    assert 'id="approve-config"' not in page.text
    assert "stripe.com" not in page.headers["content-security-policy"]
    assert csp(page)["frame-src"] == ["'none'"]


@pytest.mark.parametrize(
    ("gateway", "secret", "fields", "refused", "says"),
    [
        ("checkout-com", "sk_payhubfakelivekey", {"publicKey": "pk_payhubfakelivepublickey01"},
         "pk_sbox_payhubfakepublickey0001", "must not start with pk_sbox_ or pk_test_"),
    ],
)  # fmt: skip
def test_production_credentials_take_only_live_public_values(
    client: TestClient[Litestar], new_provider: Callable[..., Account], hub: PayHub,
    gateway: str, secret: str, fields: dict[str, str], refused: str, says: str,
) -> None:  # fmt: skip
    """A live account refuses a sandbox public value (even one whose prefix starts like the
    live one, pk_sbox_ against pk_) and keeps a live one; the page then opens the live hosts."""
    live = new_provider("Live provider", Environment.PRODUCTION)
    merchant = {"externalReference": "shop", "displayName": "Acme Plumbing"}
    assert (
        client.post("/api/merchant-accounts", headers=live.headers, json=merchant).status_code
        == 201
    )
    url = f"/api/merchant-accounts/shop/credentials/{gateway}"
    name = next(iter(fields))
    body = {"apiSecret": secret, "environment": "Production",
            "additionalFields": {**fields, name: refused}}  # fmt: skip
    answer = client.put(url, headers=live.headers, json=body)
    assert answer.status_code == 400, answer.text
    errors = answer.json()["errors"]
    assert [e["field"] for e in errors] == [f"additionalFields.{name}"]
    assert says in errors[0]["message"]
    assert stored(hub, live, gateway) == (None, {})
    body["additionalFields"] = fields
    assert client.put(url, headers=live.headers, json=body).status_code == 200
    assert stored(hub, live, gateway)[1] == fields
