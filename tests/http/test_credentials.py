"""Gateway credentials: write-only, encrypted at rest, never mixed across sandbox and production."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import Environment, PayHub
from payhub.adapters.system import FixedClock
from payhub.domain.accounts import GatewayCredential
from tests.conftest import START, Account
from tests.http.support import error_fields, problem

Client = TestClient[Litestar]
MakeMerchant = Callable[..., dict[str, Any]]

SECRET = "sk_test_51Hx9SuperSecretValue0001"
FIELD_SECRET = "bt-public-key-value-7731"
URL = "/api/merchant-accounts/shop-1/credentials"


def credentials(secret: str = SECRET, environment: str = "Sandbox", **more: Any) -> dict[str, Any]:
    return {"apiSecret": secret, "environment": environment, **more}


def stored(hub: PayHub, account: Account, ref: str = "shop-1") -> dict[str, GatewayCredential]:
    with hub.store.unit_of_work() as uow:
        merchant = uow.merchants.get_by_reference(account.provider.id, ref)
        assert merchant is not None
        return {c.gateway: c for c in uow.credentials.list(merchant.id)}


def opened(hub: PayHub, credential: GatewayCredential) -> dict[str, Any]:
    value: dict[str, Any] = json.loads(hub.deps.secrets.open(credential.sealed))
    return value


def never_shows(secret: str, responses: list[httpx.Response]) -> None:
    for response in responses:
        assert secret not in response.text, (response.request.url, response.text)
        assert all(secret not in v for v in response.headers.values())


@pytest.fixture
def shop(sandbox_provider: Account, make_merchant: MakeMerchant) -> Account:
    make_merchant(sandbox_provider, "shop-1")
    return sandbox_provider


@pytest.fixture
def live_shop(new_provider: Callable[..., Account], make_merchant: MakeMerchant) -> Account:
    live = new_provider("Live provider", Environment.PRODUCTION)
    make_merchant(live, "shop-1")
    return live


def test_put_returns_the_status_and_stores_the_secret_sealed(
    hub: PayHub, client: Client, shop: Account
) -> None:
    response = client.put(f"{URL}/stripe", json=credentials(), headers=shop.headers)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body == {
        "gateway": "stripe",
        "environment": "Sandbox",
        "enabled": True,
        "configured": True,
        "additionalFieldNames": [],
        "createdAtUtc": body["createdAtUtc"],
        "updatedAtUtc": body["updatedAtUtc"],
    }
    assert datetime.fromisoformat(body["createdAtUtc"]) == START
    saved = stored(hub, shop)["stripe"]
    assert (saved.environment, saved.enabled) == (Environment.SANDBOX, True)
    assert SECRET.encode() not in saved.sealed
    assert opened(hub, saved) == {"apiSecret": SECRET, "fields": {}}


def test_the_secret_is_in_no_response(client: Client, shop: Account) -> None:
    h = shop.headers
    extra = {"additionalFields": {"merchantId": "bt-merchant", "publicKey": FIELD_SECRET}}
    bogus_field = {"additionalFields": {"bogus": FIELD_SECRET}}
    answers = [
        (200, client.put(f"{URL}/stripe", json=credentials(), headers=h)),
        (200, client.put(f"{URL}/braintree", json=credentials(**extra), headers=h)),
        (200, client.put(f"{URL}/stripe", json=credentials(enabled=False), headers=h)),
        (200, client.get(URL, headers=h)),
        (200, client.get("/api/merchant-accounts/shop-1", headers=h)),
        (200, client.get("/api/merchant-accounts", headers=h)),
        # refusals must not echo it either
        (400, client.put(f"{URL}/stripe", json=credentials(environment="Production"), headers=h)),
        (400, client.put(f"{URL}/stripe", json=credentials(environment="nope"), headers=h)),
        (404, client.put(f"{URL}/nope", json=credentials(), headers=h)),
        (400, client.put(f"{URL}/stripe", json=credentials(**bogus_field), headers=h)),
        (400, client.put(f"{URL}/stripe", json={**credentials(), "extra": SECRET}, headers=h)),
        (400, client.put(f"{URL}/stripe", json=credentials(enabled=SECRET), headers=h)),
        (
            404,
            client.put(
                "/api/merchant-accounts/nope/credentials/stripe", json=credentials(), headers=h
            ),
        ),
    ]
    for expected, response in answers:
        assert response.status_code == expected, (response.request.url, response.text)
    seen = [response for _, response in answers]
    never_shows(SECRET, seen)
    never_shows(FIELD_SECRET, seen)
    listed = seen[3].json()["data"]
    assert [(c["gateway"], c["enabled"], c["additionalFieldNames"]) for c in listed] == [
        ("braintree", True, ["merchantId", "publicKey"]),
        ("stripe", False, []),
    ]


@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)
def test_the_database_file_never_holds_the_secret_in_clear(
    hub: PayHub, client: Client, shop: Account, tmp_path: Path
) -> None:
    extra = {"additionalFields": {"merchantId": "bt-merchant", "publicKey": FIELD_SECRET}}
    assert client.put(
        f"{URL}/braintree", json=credentials(**extra), headers=shop.headers
    ).is_success
    assert client.put(f"{URL}/stripe", json=credentials(), headers=shop.headers).is_success
    files = sorted(tmp_path.glob("payhub.db*"))  # the database, its WAL and shared memory
    assert tmp_path / "payhub.db" in files
    raw = b"".join(path.read_bytes() for path in files)
    assert b"shop-1" in raw  # the files read are where the data lives
    assert SECRET.encode() not in raw
    assert FIELD_SECRET.encode() not in raw
    # …while the credential is there, sealed, and opens with the key.
    assert opened(hub, stored(hub, shop)["stripe"])["apiSecret"] == SECRET


def test_an_unknown_gateway_is_404(hub: PayHub, client: Client, shop: Account) -> None:
    problem(client.put(f"{URL}/no-such-gateway", json=credentials(), headers=shop.headers), 404)
    assert stored(hub, shop) == {}


def test_an_unknown_merchant_is_404(client: Client, shop: Account) -> None:
    response = client.put(
        "/api/merchant-accounts/no-shop/credentials/stripe",
        json=credentials(),
        headers=shop.headers,
    )
    problem(response, 404)


def test_a_sandbox_key_refuses_production_credentials(
    hub: PayHub, client: Client, shop: Account
) -> None:
    response = client.put(
        f"{URL}/stripe", json=credentials(environment="Production"), headers=shop.headers
    )
    assert error_fields(response) == ["environment"]
    assert stored(hub, shop) == {}


def test_a_production_key_refuses_sandbox_credentials(
    hub: PayHub, client: Client, live_shop: Account
) -> None:
    response = client.put(f"{URL}/stripe", json=credentials(), headers=live_shop.headers)
    assert error_fields(response) == ["environment"]
    assert stored(hub, live_shop) == {}
    accepted = client.put(
        f"{URL}/stripe", json=credentials(environment="Production"), headers=live_shop.headers
    )
    assert accepted.status_code == 200, accepted.text
    assert stored(hub, live_shop)["stripe"].environment is Environment.PRODUCTION


@pytest.mark.parametrize("spelling", ["sandbox", "SANDBOX", " Sandbox "])
def test_the_environment_is_read_in_any_case(
    hub: PayHub, client: Client, shop: Account, spelling: str
) -> None:
    response = client.put(
        f"{URL}/stripe", json=credentials(environment=spelling), headers=shop.headers
    )
    assert response.json()["environment"] == "Sandbox"
    assert stored(hub, shop)["stripe"].environment is Environment.SANDBOX


@pytest.mark.parametrize(
    ("payload", "fields"),
    [
        (credentials(secret=""), ["apiSecret"]),
        (credentials(secret="   "), ["apiSecret"]),
        (credentials(secret="x" * 4097), ["apiSecret"]),
        (credentials(environment="Staging"), ["environment"]),
        (credentials(additionalFields={"bogus": "1"}), ["additionalFields.bogus"]),
        (credentials(additionalFields={"merchantId": "m", "zzz": "1"}), ["additionalFields.zzz"]),
        (credentials(additionalFields={"merchantId": "  "}), ["additionalFields.merchantId"]),
        (credentials(secret="", environment="Staging"), ["apiSecret", "environment"]),
        ({"environment": "Sandbox"}, None),
        ({"apiSecret": SECRET}, None),
    ],
)
def test_bad_credentials_are_400_and_store_nothing(
    hub: PayHub,
    client: Client,
    shop: Account,
    payload: dict[str, Any],
    fields: list[str] | None,
) -> None:
    response = client.put(f"{URL}/braintree", json=payload, headers=shop.headers)
    if fields is None:
        problem(response, 400)
    else:
        assert error_fields(response) == fields
    assert stored(hub, shop) == {}


def test_additional_fields_of_the_gateway_are_kept_sealed(
    hub: PayHub, client: Client, shop: Account
) -> None:
    extra = {"additionalFields": {"publicKey": FIELD_SECRET, "merchantId": "bt-merchant"}}
    response = client.put(f"{URL}/braintree", json=credentials(**extra), headers=shop.headers)
    assert response.json()["additionalFieldNames"] == ["merchantId", "publicKey"]
    assert opened(hub, stored(hub, shop)["braintree"])["fields"] == extra["additionalFields"]


def test_the_simulator_is_a_sandbox_gateway(
    client: Client, shop: Account, live_shop: Account
) -> None:
    sandbox = client.put(f"{URL}/simulator", json=credentials(), headers=shop.headers)
    assert sandbox.status_code == 200
    live = client.put(
        f"{URL}/simulator", json=credentials(environment="Production"), headers=live_shop.headers
    )
    problem(live, 404)


def test_a_second_put_keeps_created_and_moves_updated(
    hub: PayHub, client: Client, clock: FixedClock, shop: Account
) -> None:
    first = client.put(f"{URL}/stripe", json=credentials(), headers=shop.headers).json()
    clock.advance(timedelta(hours=2, seconds=5))
    second = client.put(
        f"{URL}/stripe",
        json=credentials(secret="sk_test_rotated", enabled=False),
        headers=shop.headers,
    ).json()
    assert second["createdAtUtc"] == first["createdAtUtc"]
    assert datetime.fromisoformat(second["updatedAtUtc"]) == START + timedelta(hours=2, seconds=5)
    assert second["enabled"] is False
    [saved] = stored(hub, shop).values()
    assert (saved.created_at, saved.updated_at) == (START, START + timedelta(hours=2, seconds=5))
    assert saved.enabled is False
    assert opened(hub, saved)["apiSecret"] == "sk_test_rotated"


def test_get_lists_every_configured_gateway_without_secrets(
    client: Client, clock: FixedClock, shop: Account
) -> None:
    assert client.get(URL, headers=shop.headers).json() == {"data": []}
    client.put(f"{URL}/stripe", json=credentials(), headers=shop.headers)
    clock.advance(timedelta(minutes=1))
    client.put(f"{URL}/nmi", json=credentials(secret="nmi-secret-key"), headers=shop.headers)
    listed = client.get(URL, headers=shop.headers)
    assert listed.status_code == 200
    data = listed.json()["data"]
    assert [c["gateway"] for c in data] == ["nmi", "stripe"]
    for entry in data:
        assert set(entry) == {
            "gateway",
            "environment",
            "enabled",
            "configured",
            "additionalFieldNames",
            "createdAtUtc",
            "updatedAtUtc",
        }
    never_shows(SECRET, [listed])
    never_shows("nmi-secret-key", [listed])
