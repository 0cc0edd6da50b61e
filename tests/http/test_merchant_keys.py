"""A merchant-scoped key acts for its one merchant and nothing else."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.domain.keys import KeyKind, parse_key
from tests.conftest import Account, api_headers
from tests.http.support import problem

Client = TestClient[Litestar]
CREDENTIALS = {"apiSecret": "sk_test_merchant_key_secret", "environment": "Sandbox"}


@pytest.fixture
def shops(
    sandbox_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
    merchant_key: Callable[[Account, str], str],
) -> dict[str, str]:
    """Two merchants of one provider, and a key for the first only."""
    make_merchant(sandbox_provider, "own-shop")
    make_merchant(sandbox_provider, "other-shop")
    return {"key": merchant_key(sandbox_provider, "own-shop")}


def test_a_merchant_key_is_recognisably_a_merchant_key(shops: dict[str, str]) -> None:
    parsed = parse_key(shops["key"])
    assert parsed is not None
    assert parsed.kind is KeyKind.MERCHANT
    assert shops["key"].startswith("phm_sandbox_")


def test_issuing_without_naming_the_provider_works_when_the_reference_is_unique(
    hub: PayHub, client: Client, shops: dict[str, str]
) -> None:
    key = hub.operators.issue_key(merchant_reference="own-shop").secret
    response = client.get("/api/merchant-accounts/own-shop", headers=api_headers(key))
    assert response.status_code == 200


def test_it_can_read_its_own_merchant(client: Client, shops: dict[str, str]) -> None:
    response = client.get("/api/merchant-accounts/own-shop", headers=api_headers(shops["key"]))
    assert response.status_code == 200
    assert response.json()["externalReference"] == "own-shop"


def test_it_can_set_and_list_its_own_credentials(
    hub: PayHub, client: Client, sandbox_provider: Account, shops: dict[str, str]
) -> None:
    headers = api_headers(shops["key"])
    response = client.put(
        "/api/merchant-accounts/own-shop/credentials/stripe", json=CREDENTIALS, headers=headers
    )
    assert response.status_code == 200, response.text
    listed = client.get("/api/merchant-accounts/own-shop/credentials", headers=headers).json()
    assert [c["gateway"] for c in listed["data"]] == ["stripe"]
    scope = hub.provider(hub.as_provider(sandbox_provider.provider.id))
    assert [c.gateway for c in scope.merchant("own-shop").credentials.list()] == ["stripe"]


def test_it_can_list_the_gateways(client: Client, shops: dict[str, str]) -> None:
    response = client.get("/api/gateways", headers=api_headers(shops["key"]))
    assert response.status_code == 200
    assert len(response.json()["data"]) == 22


def test_it_cannot_create_merchants(
    hub: PayHub, client: Client, sandbox_provider: Account, shops: dict[str, str]
) -> None:
    response = client.post(
        "/api/merchant-accounts",
        json={"externalReference": "new-shop", "displayName": "New"},
        headers=api_headers(shops["key"]),
    )
    problem(response, 403)
    refs = [
        m.external_reference for m in hub.operators.list_merchants(sandbox_provider.provider.id)
    ]
    assert refs == ["other-shop", "own-shop"]


@pytest.mark.parametrize("ref", ["other-shop", "no-such-shop"])
def test_it_gets_403_for_any_other_reference(
    hub: PayHub, client: Client, sandbox_provider: Account, shops: dict[str, str], ref: str
) -> None:
    headers = api_headers(shops["key"])
    problem(client.get(f"/api/merchant-accounts/{ref}", headers=headers), 403)
    problem(client.get(f"/api/merchant-accounts/{ref}/credentials", headers=headers), 403)
    problem(
        client.put(
            f"/api/merchant-accounts/{ref}/credentials/stripe", json=CREDENTIALS, headers=headers
        ),
        403,
    )
    scope = hub.provider(hub.as_provider(sandbox_provider.provider.id))
    assert scope.merchant("other-shop").credentials.list() == []


def test_its_list_shows_only_its_own_merchant(
    client: Client, sandbox_provider: Account, shops: dict[str, str]
) -> None:
    mine = client.get("/api/merchant-accounts", headers=api_headers(shops["key"])).json()
    assert mine == {"data": [mine["data"][0]], "hasMore": False, "nextCursor": None}
    assert mine["data"][0]["externalReference"] == "own-shop"
    everyone = client.get("/api/merchant-accounts", headers=sandbox_provider.headers).json()
    assert [m["externalReference"] for m in everyone["data"]] == ["other-shop", "own-shop"]


def test_its_list_respects_the_cursor(client: Client, shops: dict[str, str]) -> None:
    after = client.get(
        "/api/merchant-accounts",
        params={"startingAfter": "own-shop"},
        headers=api_headers(shops["key"]),
    ).json()
    assert after["data"] == []
