"""The pages' Content-Security-Policy, per gateway and per mode, over every gateway in the catalog.

A page that shows a payment form opens exactly the script, frame and connect hosts its gateway's
folder names in ``page.py`` for the merchant's mode (``hosts_sandbox`` / ``hosts_live``) and
nothing else: no host of another vendor, no host of the other mode. Checked two ways:

- on the policy the shell builds from each folder's spec, for every catalog gateway in both modes
  (a gateway without a driver must have ``hostedCheckout`` false and is never on a page);
- over HTTP on both stores, on the pay page, the embed page and the approval page of every
  gateway with a driver, sandbox and live, with the gateway's real adapter talking to its fake
  API (gateways whose SDK needs a value made server-side make it for each view).

The browser side (no ``securitypolicyviolation`` during a working payment) is checked in the
chromium tests through ``tests.pages.csp_watch``.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.adapters.gateways.folder import VendorHosts
from payhub.adapters.gateways.registry import folders
from payhub.adapters.system import FixedClock
from payhub.domain.environments import Environment
from payhub_server.pages.drivers import DRIVERS
from payhub_server.pages.render import content_security_policy
from tests.conftest import Account
from tests.gateways.scenarios.base import Driver as Scenario
from tests.gateways.scenarios.drivers import DRIVERS as SCENARIOS
from tests.pages.support import Shop, token_of

CATALOG = [f.name for f in folders() if f.name != "simulator"]
WITH_DRIVER = [g for g in CATALOG if g in DRIVERS]
MODES = {"sandbox": True, "live": False}
DIRECTIVES = ("script-src", "frame-src", "connect-src")


def parse(policy: str) -> dict[str, list[str]]:
    parsed: dict[str, list[str]] = {}
    for part in policy.split(";"):
        name, *values = part.split()
        parsed[name] = values
    return parsed


def expected(hosts: VendorHosts) -> dict[str, list[str]]:
    """What each directive must hold, exactly: payhub itself where it may, then the vendor."""
    return {
        "script-src": ["'self'", *hosts.script],
        "frame-src": list(hosts.frame) or ["'none'"],
        "connect-src": ["'self'", *hosts.connect],
    }


def opened(policy: dict[str, list[str]]) -> set[str]:
    return {h for d in DIRECTIVES for h in policy[d] if not h.startswith("'")}


def all_hosts(hosts: VendorHosts) -> set[str]:
    return {*hosts.script, *hosts.frame, *hosts.connect}


def foreign_hosts(gateway: str) -> set[str]:
    """Hosts other gateways' pages open (either mode) that this gateway's page never does.

    Heartland and Global Payments share globalpayments.js's CDN (one vendor), so a host both
    open is nobody's foreign host."""
    own = all_hosts(DRIVERS[gateway].hosts(True)) | all_hosts(DRIVERS[gateway].hosts(False))
    others: set[str] = set()
    for name, driver in DRIVERS.items():
        if name != gateway:
            others |= all_hosts(driver.hosts(True)) | all_hosts(driver.hosts(False))
    return others - own


@pytest.mark.parametrize("gateway", CATALOG)
def test_every_catalog_gateway_has_a_driver_or_is_never_on_a_page(gateway: str) -> None:
    folder = next(f for f in folders() if f.name == gateway)
    assert folder.info.hosted_checkout is (folder.page is not None)
    assert (gateway in DRIVERS) is (folder.page is not None)


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("gateway", WITH_DRIVER)
def test_the_policy_opens_exactly_the_gateways_hosts_for_the_mode(gateway: str, mode: str) -> None:
    sandbox = MODES[mode]
    driver = DRIVERS[gateway]
    hosts = driver.hosts(sandbox)
    policy = parse(content_security_policy((), hosts))
    for directive, values in expected(hosts).items():
        assert policy[directive] == values, directive
    assert policy["default-src"] == ["'none'"]
    # Every vendor value is an https origin (no path, no query) or a documented subdomain
    # wildcard of one, so nothing wider than the vendor's own hosts is opened.
    for host in opened(policy):
        parts = urlsplit(host.replace("*.", "wildcard."))
        assert parts.scheme == "https", host
        assert parts.netloc, host
        assert parts.path == "", host
    # The SDK the driver loads in this mode is allowed as a script, and is the mode's own.
    sdk = driver.config(dict.fromkeys((*driver.required, *driver.session), "x"), sandbox)["sdk"]
    for url in sdk:
        origin = f"https://{urlsplit(url).netloc}"
        assert origin in policy["script-src"], url
    other = driver.hosts(not sandbox)
    # Nothing only the other mode opens.
    assert not (opened(policy) - all_hosts(hosts)) & all_hosts(other)
    assert not opened(policy) & foreign_hosts(gateway)


def test_a_page_without_a_payment_form_opens_no_vendor_host() -> None:
    policy = parse(content_security_policy())
    assert policy["script-src"] == ["'self'"]
    assert policy["connect-src"] == ["'self'"]
    assert policy["frame-src"] == ["'none'"]


# --- over HTTP: the pay, embed and approval pages -------------------------------------------


@pytest.fixture(params=WITH_DRIVER)
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


def pages(
    shop: Shop, hub: PayHub, account: Account, clock: FixedClock, scenario: Scenario, live: bool
) -> dict[str, Any]:
    """The three pages of a merchant on the scenario's gateway, with its public values set."""
    creds = scenario.creds
    body = {"apiSecret": creds.api_secret, "environment": "Production" if live else "Sandbox",
            "additionalFields": dict(creds.fields)}  # fmt: skip
    put = shop.client.put(f"{shop.base}/credentials/{scenario.name}", headers=shop.headers,
                          json=body)  # fmt: skip
    assert put.status_code == 200, put.text
    driver = DRIVERS[scenario.name]
    # Any value will do for the policy (their shapes are checked by the credentials tests).
    with hub.deps.store.unit_of_work() as uow:
        merchant = uow.merchants.get_by_reference(account.provider.id, shop.ref)
        assert merchant is not None
        uow.gateway_public_fields.put(
            merchant.id, scenario.name, dict.fromkeys(driver.required, "payhub-test-value"),
            clock.now(),
        )  # fmt: skip
    scope = hub.provider(hub.authenticate(account.key)).merchant(shop.ref)
    scope.invoices.change_embed_origins(add=["https://shop.example"])
    invoice = shop.invoice(gateway=scenario.name, allowedPaymentMethods="CardOnly")
    start = (clock.now() + timedelta(days=2)).isoformat().replace("+00:00", "Z")
    made = shop.client.post(
        f"{shop.base}/customers/{shop.customer_id}/schedule-requests",
        headers=shop.headers,
        json={"gateway": scenario.name, "startAtUtc": start, "cadence": "Monthly", "amount": 40},
    )
    assert made.status_code == 201, made.text
    token = token_of(invoice)
    return {
        "pay": shop.client.get(f"/pay/{token}"),
        "embed": shop.client.get(f"/embed/{token}"),
        "approve": shop.client.get(urlsplit(made.json()["approvalUrl"]).path),
    }


@pytest.mark.parametrize("mode", sorted(MODES))
def test_the_pay_embed_and_approval_pages_open_exactly_the_gateways_hosts(
    client: TestClient[Litestar], hub: PayHub, clock: FixedClock, scenario: Scenario,
    new_provider: Any, mode: str,
) -> None:  # fmt: skip
    live = not MODES[mode]
    if live and DRIVERS[scenario.name].session:
        pytest.skip("the fake API makes sandbox sessions only (the policy is checked above)")
    account = new_provider(
        f"{mode} provider", Environment.PRODUCTION if live else Environment.SANDBOX
    )
    shop = Shop(client, account, simulator=not live)
    hosts = DRIVERS[scenario.name].hosts(not live)
    for name, page in pages(shop, hub, account, clock, scenario, live).items():
        assert page.status_code == 200, (name, page.text)
        assert f'<script src="/static/fields/{scenario.name}.js"></script>' in page.text, name
        policy = parse(page.headers["content-security-policy"])
        for directive, values in expected(hosts).items():
            assert policy[directive] == values, (name, directive)
        assert not opened(policy) & foreign_hosts(scenario.name), name
        ancestors = ["https://shop.example"] if name == "embed" else ["'none'"]
        assert policy["frame-ancestors"] == ancestors, name
