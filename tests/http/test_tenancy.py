"""Tenancy, for every merchant route the app has: read from the route table, not listed by hand.

For each operation whose path holds ``{ref}``, on provider A's merchant:

* provider B's key gets 404, indistinguishable from a reference that exists nowhere;
* a key for another of A's merchants gets 403;
* neither changes anything in the database;
* A's own key (the control) succeeds, so the refusals above are about tenancy and not
  about a malformed request.

A new merchant route fails ``test_every_merchant_route_has_a_sample_request`` until its
path parameters (and body, for writes) are added to the tables below.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from tests.conftest import Account, api_headers
from tests.customers.test_tenancy import PREFIXES as CUSTOMER_PREFIXES
from tests.http.support import Operation, operations, problem

Client = TestClient[Litestar]
# Routes whose tenancy is enumerated with real objects elsewhere: the nested resources
# (tests/customers/test_tenancy.py) and the online accounting system, which must be connected
# in the portal first (tests/integrations/test_qbo_sync.py).
COVERED_ELSEWHERE = (*CUSTOMER_PREFIXES, "/api/merchant-accounts/{ref}/accounting-online")

OWNER_REF = "a-shop"
SECRET = "sk_test_tenancy_secret_value"

# How to fill each path parameter of a merchant route.
PATH_VALUES: dict[str, str] = {"ref": OWNER_REF, "gateway": "stripe"}

# A valid body for each merchant route that takes one (by method and template).
BODIES: dict[str, dict[str, Any]] = {
    "PUT /api/merchant-accounts/{ref}/credentials/{gateway}": {
        "apiSecret": SECRET,
        "environment": "Sandbox",
        "enabled": True,
    },
    # the merchant's portal user, made by ``world`` (the operator's CLI, in-process)
    "POST /api/merchant-accounts/{ref}/portal-sessions": {"user": "owner@a-shop.example"},
}


def merchant_operations(app: Litestar) -> list[Operation]:
    """Merchant routes of the foundation; nested resources (customers, catalog, locations)
    are enumerated by tests/customers/test_tenancy.py, which builds real objects for them."""
    return [
        op
        for op in operations(app)
        if "ref" in op.params and not op.template.startswith(COVERED_ELSEWHERE)
    ]


def send(client: Client, op: Operation, ref: str, key: str) -> Any:
    values = {**PATH_VALUES, "ref": ref}
    body = BODIES.get(str(op))
    return client.request(
        op.method, op.path(**values), json=body, headers=api_headers(key) if key else {}
    )


def snapshot(hub: PayHub) -> dict[str, Any]:
    """Everything a merchant route could change, as the database holds it."""
    with hub.store.unit_of_work() as uow:
        merchants = uow.merchants.list(None, limit=1000)
        return {
            "merchants": [(m.provider_id, m.external_reference, m.display_name) for m in merchants],
            "credentials": {
                m.external_reference + "@" + m.provider_id: [
                    (c.gateway, c.environment, c.enabled, c.sealed, c.updated_at)
                    for c in uow.credentials.list(m.id)
                ]
                for m in merchants
            },
        }


@pytest.fixture
def world(
    hub: PayHub,
    sandbox_provider: Account,
    other_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
    merchant_key: Callable[[Account, str], str],
) -> dict[str, str]:
    make_merchant(sandbox_provider, OWNER_REF)
    make_merchant(sandbox_provider, "a-sister-shop")
    make_merchant(other_provider, "b-shop")
    hub.portal.create_user("owner@a-shop.example", "Ann", "owner", merchant_reference=OWNER_REF)
    return {
        "owner": sandbox_provider.key,
        "owner_merchant": merchant_key(sandbox_provider, OWNER_REF),
        "sister_merchant": merchant_key(sandbox_provider, "a-sister-shop"),
        "other_provider": other_provider.key,
    }


def test_the_app_has_merchant_routes(app: Litestar) -> None:
    templates = {op.template for op in merchant_operations(app)}
    assert "/api/merchant-accounts/{ref}" in templates
    assert "/api/merchant-accounts/{ref}/credentials/{gateway}" in templates


def test_every_merchant_route_has_a_sample_request(app: Litestar) -> None:
    missing = [
        f"{op}: no sample value for {{{param}}} in PATH_VALUES"
        for op in merchant_operations(app)
        for param in op.params
        if param not in PATH_VALUES
    ]
    missing += [
        f"{op}: no sample body in BODIES"
        for op in merchant_operations(app)
        if op.method in {"POST", "PUT", "PATCH"} and str(op) not in BODIES
    ]
    assert not missing, "\n".join(missing)


def test_another_provider_gets_404_on_every_merchant_route(
    hub: PayHub, app: Litestar, client: Client, world: dict[str, str]
) -> None:
    before = snapshot(hub)
    for op in merchant_operations(app):
        foreign = problem(send(client, op, OWNER_REF, world["other_provider"]), 404)
        nowhere = problem(send(client, op, "no-such-shop", world["other_provider"]), 404)
        assert foreign["detail"].replace(OWNER_REF, "?") == nowhere["detail"].replace(
            "no-such-shop", "?"
        ), str(op)
        assert foreign["title"] == nowhere["title"]
        assert snapshot(hub) == before, f"{op} by another provider changed the database"


def test_another_merchants_key_gets_403_on_every_merchant_route(
    hub: PayHub, app: Litestar, client: Client, world: dict[str, str]
) -> None:
    before = snapshot(hub)
    for op in merchant_operations(app):
        problem(send(client, op, OWNER_REF, world["sister_merchant"]), 403)
        assert snapshot(hub) == before, f"{op} by another merchant's key changed the database"


def test_the_owner_succeeds_on_every_merchant_route(
    app: Litestar, client: Client, world: dict[str, str]
) -> None:
    for op in merchant_operations(app):
        response = send(client, op, OWNER_REF, world["owner"])
        assert response.is_success, (str(op), response.status_code, response.text)
        if op.audience == "merchant":
            response = send(client, op, OWNER_REF, world["owner_merchant"])
            assert response.is_success, (str(op), response.status_code, response.text)
        else:
            problem(send(client, op, OWNER_REF, world["owner_merchant"]), 403)


def test_other_providers_merchants_are_absent_from_the_list(
    client: Client, world: dict[str, str]
) -> None:
    b_view = client.get("/api/merchant-accounts", headers=api_headers(world["other_provider"]))
    assert [m["externalReference"] for m in b_view.json()["data"]] == ["b-shop"]
    a_view = client.get("/api/merchant-accounts", headers=api_headers(world["owner"]))
    assert [m["externalReference"] for m in a_view.json()["data"]] == ["a-shop", "a-sister-shop"]
    # A cursor is no way in either.
    b_after = client.get(
        "/api/merchant-accounts",
        params={"startingAfter": "a"},
        headers=api_headers(world["other_provider"]),
    )
    assert [m["externalReference"] for m in b_after.json()["data"]] == ["b-shop"]


def test_a_merchant_with_the_same_reference_is_still_separate(
    hub: PayHub,
    client: Client,
    world: dict[str, str],
    other_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
) -> None:
    """B creating its own 'a-shop' reaches only its own, never A's."""
    make_merchant(other_provider, OWNER_REF, "B's namesake")
    response = client.put(
        f"/api/merchant-accounts/{OWNER_REF}/credentials/stripe",
        json=BODIES["PUT /api/merchant-accounts/{ref}/credentials/{gateway}"],
        headers=other_provider.headers,
    )
    assert response.status_code == 200
    state = snapshot(hub)["credentials"]
    assert [g for g, *_ in state[f"{OWNER_REF}@{other_provider.provider.id}"]] == ["stripe"]
    owner_id = hub.authenticate(world["owner"]).provider_id
    assert state[f"{OWNER_REF}@{owner_id}"] == []
