"""GET /api/gateways: the 21 gateways (plus the simulator in sandbox) and their capabilities."""

from __future__ import annotations

from collections.abc import Callable

from litestar import Litestar
from litestar.testing import TestClient

from payhub import Environment
from tests.conftest import Account
from tests.gateways.catalog_rows import GATEWAYS

Client = TestClient[Litestar]

FIELDS = {
    "name": str,
    "displayName": str,
    "card": bool,
    "ach": bool,
    "bankAccountVaulting": str,
    "cardVaulting": bool,
    "authorizeOnly": bool,
    "hostedCheckout": bool,
    "refunds": bool,
    "partialCapture": bool,
    "hostedFields": str,
    "sandboxOnly": bool,
    "credentialFields": list,
}
VAULTING = {"None", "VaultFirst", "FreshOnly", "FreshAndVault"}


def listing(client: Client, account: Account) -> list[dict[str, object]]:
    response = client.get("/api/gateways", headers=account.headers)
    assert response.status_code == 200, response.text
    data: list[dict[str, object]] = response.json()["data"]
    return data


def check_shape(gateways: list[dict[str, object]]) -> None:
    for g in gateways:
        assert set(g) == set(FIELDS), g["name"]
        for field, kind in FIELDS.items():
            assert isinstance(g[field], kind), (g["name"], field)
        assert g["bankAccountVaulting"] in VAULTING
        assert g["ach"] == (g["bankAccountVaulting"] != "None")
        fields = g["credentialFields"]
        assert isinstance(fields, list)
        assert fields[0] == "apiSecret"


def test_sandbox_lists_the_21_gateways_and_the_simulator(
    client: Client, sandbox_provider: Account
) -> None:
    gateways = listing(client, sandbox_provider)
    check_shape(gateways)
    names = [g["name"] for g in gateways]
    assert names == [*(g.name for g in GATEWAYS), "simulator"]
    assert len(set(names)) == 22
    [simulator] = [g for g in gateways if g["sandboxOnly"]]
    assert simulator["name"] == "simulator"


def test_production_lists_exactly_the_21_real_gateways(
    client: Client, new_provider: Callable[..., Account]
) -> None:
    live = new_provider("Live", Environment.PRODUCTION)
    gateways = listing(client, live)
    check_shape(gateways)
    assert len(gateways) == 21
    assert "simulator" not in {g["name"] for g in gateways}
    assert not any(g["sandboxOnly"] for g in gateways)
    assert sorted(g["bankAccountVaulting"] for g in gateways if g["ach"]) == [
        "FreshAndVault",
        "FreshAndVault",
        "FreshAndVault",
        "FreshOnly",
        "VaultFirst",
    ]


def test_the_listing_names_what_each_gateway_needs(
    client: Client, sandbox_provider: Account
) -> None:
    by_name = {g["name"]: g for g in listing(client, sandbox_provider)}
    assert by_name["braintree"]["credentialFields"] == [
        "apiSecret",
        "merchantId",
        "publicKey",
        "tokenizationKey",  # public: Braintree's hosted fields on the pay page
    ]
    assert by_name["stripe"]["credentialFields"] == ["apiSecret", "publishableKey"]
    assert by_name["braintree"]["bankAccountVaulting"] == "VaultFirst"
    assert by_name["square"]["bankAccountVaulting"] == "FreshOnly"
