"""Merchant accounts over HTTP: create, refuse bad input, page through, read one."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.domain.accounts import Merchant
from tests.conftest import START, Account
from tests.http.support import error_fields, problem

Client = TestClient[Litestar]
MakeMerchant = Callable[..., dict[str, Any]]


def stored(hub: PayHub, account: Account) -> list[Merchant]:
    """What the database holds for the account's provider."""
    return hub.operators.list_merchants(account.provider.id)


def when(text: str) -> datetime:
    return datetime.fromisoformat(text)


def test_create_returns_201_with_the_merchant_and_stores_it(
    hub: PayHub, client: Client, sandbox_provider: Account
) -> None:
    response = client.post(
        "/api/merchant-accounts",
        json={"externalReference": " shop-1 ", "displayName": "  Shop One  "},
        headers=sandbox_provider.headers,
    )
    assert response.status_code == 201, response.text
    body = response.json()
    assert body == {
        "externalReference": "shop-1",
        "displayName": "Shop One",
        "createdAtUtc": body["createdAtUtc"],
    }
    assert when(body["createdAtUtc"]) == START
    [merchant] = stored(hub, sandbox_provider)
    assert merchant.external_reference == "shop-1"
    assert merchant.display_name == "Shop One"
    assert merchant.provider_id == sandbox_provider.provider.id
    assert merchant.id.startswith("mer_")
    assert merchant.id not in response.text  # internal ids stay internal


def test_a_duplicate_reference_is_409_and_changes_nothing(
    hub: PayHub, client: Client, sandbox_provider: Account, make_merchant: MakeMerchant
) -> None:
    make_merchant(sandbox_provider, "shop-1", "Original")
    response = client.post(
        "/api/merchant-accounts",
        json={"externalReference": "shop-1", "displayName": "Impostor"},
        headers=sandbox_provider.headers,
    )
    body = problem(response, 409)
    assert "shop-1" in body["detail"]
    assert [(m.external_reference, m.display_name) for m in stored(hub, sandbox_provider)] == [
        ("shop-1", "Original")
    ]


def test_the_same_reference_under_another_provider_is_a_different_merchant(
    hub: PayHub,
    sandbox_provider: Account,
    other_provider: Account,
    make_merchant: MakeMerchant,
) -> None:
    make_merchant(sandbox_provider, "shop-1", "A's shop")
    make_merchant(other_provider, "shop-1", "B's shop")
    [a] = stored(hub, sandbox_provider)
    [b] = stored(hub, other_provider)
    assert a.id != b.id
    assert (a.display_name, b.display_name) == ("A's shop", "B's shop")


@pytest.mark.parametrize(
    ("payload", "fields"),
    [
        ({"externalReference": "", "displayName": "Shop"}, ["externalReference"]),
        ({"externalReference": "   ", "displayName": "Shop"}, ["externalReference"]),
        ({"externalReference": "x" * 101, "displayName": "Shop"}, ["externalReference"]),
        ({"externalReference": "a/b", "displayName": "Shop"}, ["externalReference"]),
        ({"externalReference": "a b", "displayName": "Shop"}, ["externalReference"]),
        ({"externalReference": "-shop", "displayName": "Shop"}, ["externalReference"]),
        ({"externalReference": "shop-1", "displayName": ""}, ["displayName"]),
        ({"externalReference": "shop-1", "displayName": "x" * 201}, ["displayName"]),
        ({"externalReference": "shop-1", "displayName": "a\u0000b"}, ["displayName"]),
        ({"externalReference": "", "displayName": " "}, ["externalReference", "displayName"]),
        ({"externalReference": 42, "displayName": "Shop"}, ["externalReference"]),
        ({"externalReference": "shop-1", "displayName": None}, ["displayName"]),
    ],
)
def test_bad_fields_are_400_naming_each_field(
    hub: PayHub,
    client: Client,
    sandbox_provider: Account,
    payload: dict[str, Any],
    fields: list[str],
) -> None:
    response = client.post("/api/merchant-accounts", json=payload, headers=sandbox_provider.headers)
    assert error_fields(response) == fields
    assert problem(response, 400)["type"] == "/problems/validation-error"
    assert stored(hub, sandbox_provider) == []


def test_exactly_100_characters_is_accepted(
    client: Client, sandbox_provider: Account, make_merchant: MakeMerchant
) -> None:
    ref = "r" * 100
    assert make_merchant(sandbox_provider, ref)["externalReference"] == ref
    assert client.get(f"/api/merchant-accounts/{ref}", headers=sandbox_provider.headers).is_success


@pytest.mark.parametrize(
    "content",
    [b"{not json", b'{"externalReference": "shop-1",', b"", b"[]", b'"shop-1"', b"null"],
)
def test_a_body_that_is_not_a_json_object_is_a_400_problem(
    hub: PayHub, client: Client, sandbox_provider: Account, content: bytes
) -> None:
    response = client.post(
        "/api/merchant-accounts",
        content=content,
        headers={**sandbox_provider.headers, "content-type": "application/json"},
    )
    problem(response, 400)
    assert stored(hub, sandbox_provider) == []


@pytest.mark.parametrize(
    "payload",
    [
        {"externalReference": "shop-1", "displayName": "Shop", "id": "mer_x"},
        {"externalReference": "shop-1", "displayName": "Shop", "providerId": "prv_x"},
        {"externalReference": "shop-1"},
        {"displayName": "Shop"},
    ],
)
def test_unknown_or_missing_fields_are_400(
    hub: PayHub, client: Client, sandbox_provider: Account, payload: dict[str, Any]
) -> None:
    response = client.post("/api/merchant-accounts", json=payload, headers=sandbox_provider.headers)
    problem(response, 400)
    assert stored(hub, sandbox_provider) == []


def test_list_pages_through_every_merchant_in_reference_order(
    client: Client, sandbox_provider: Account, make_merchant: MakeMerchant
) -> None:
    refs = ["m-3", "m-1", "m-5", "m-2", "m-4"]
    for ref in refs:
        make_merchant(sandbox_provider, ref)
    seen: list[list[str]] = []
    cursor: str | None = None
    while True:
        params: dict[str, Any] = {"limit": 2}
        if cursor is not None:
            params["startingAfter"] = cursor
        response = client.get(
            "/api/merchant-accounts", params=params, headers=sandbox_provider.headers
        )
        assert response.status_code == 200, response.text
        page = response.json()
        seen.append([m["externalReference"] for m in page["data"]])
        assert page["hasMore"] == (page["nextCursor"] is not None)
        if not page["hasMore"]:
            break
        cursor = page["nextCursor"]
        assert cursor == seen[-1][-1]
    assert seen == [["m-1", "m-2"], ["m-3", "m-4"], ["m-5"]]


def test_list_defaults_and_an_exact_last_page(
    client: Client, sandbox_provider: Account, make_merchant: MakeMerchant
) -> None:
    for ref in ("a", "b"):
        make_merchant(sandbox_provider, ref)
    everything = client.get("/api/merchant-accounts", headers=sandbox_provider.headers).json()
    assert [m["externalReference"] for m in everything["data"]] == ["a", "b"]
    assert (everything["hasMore"], everything["nextCursor"]) == (False, None)
    exact = client.get(
        "/api/merchant-accounts", params={"limit": 2}, headers=sandbox_provider.headers
    ).json()
    assert (exact["hasMore"], exact["nextCursor"]) == (False, None)
    after_last = client.get(
        "/api/merchant-accounts", params={"startingAfter": "b"}, headers=sandbox_provider.headers
    ).json()
    assert after_last == {"data": [], "hasMore": False, "nextCursor": None}


@pytest.mark.parametrize("limit", ["0", "-1", "201", "1000", "ten", ""])
def test_limit_outside_1_to_200_is_400(
    client: Client, sandbox_provider: Account, limit: str
) -> None:
    response = client.get(
        "/api/merchant-accounts", params={"limit": limit}, headers=sandbox_provider.headers
    )
    assert error_fields(response) == ["limit"]


@pytest.mark.parametrize("limit", ["1", "200"])
def test_limit_bounds_are_allowed(client: Client, sandbox_provider: Account, limit: str) -> None:
    response = client.get(
        "/api/merchant-accounts", params={"limit": limit}, headers=sandbox_provider.headers
    )
    assert response.status_code == 200


def test_get_one_merchant(
    client: Client, sandbox_provider: Account, make_merchant: MakeMerchant
) -> None:
    created = make_merchant(sandbox_provider, "shop-1", "Shop One")
    response = client.get("/api/merchant-accounts/shop-1", headers=sandbox_provider.headers)
    assert response.status_code == 200
    assert response.json() == created


@pytest.mark.parametrize("ref", ["nope", "SHOP-1", "shop-1x", "a%20b"])
def test_get_an_unknown_merchant_is_404(
    client: Client, sandbox_provider: Account, make_merchant: MakeMerchant, ref: str
) -> None:
    make_merchant(sandbox_provider, "shop-1")
    body = problem(
        client.get(f"/api/merchant-accounts/{ref}", headers=sandbox_provider.headers), 404
    )
    assert body["type"] == "/problems/not-found"
