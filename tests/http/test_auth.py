"""Every /api call needs a valid key: anything else is 401 problem+json, never 404 or 500."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub, Unauthenticated
from payhub.domain.keys import parse_key
from tests.conftest import Account
from tests.http.support import operations, problem

Client = TestClient[Litestar]
SAMPLE_VALUES = {"ref": "shop-1", "gateway": "stripe"}


def _revoked_key(hub: PayHub, account: Account) -> str:
    parsed = parse_key(account.key)
    assert parsed is not None
    hub.operators.revoke_key(parsed.key_id)
    return account.key


def _tampered_key(account: Account) -> str:
    # Well formed, names a real key id, but the secret part is wrong.
    last = account.key[-1]
    return account.key[:-1] + ("a" if last != "a" else "b")


@pytest.fixture(params=["missing", "empty", "garbage", "tampered", "revoked", "revoked-merchant"])
def bad_headers(
    request: pytest.FixtureRequest,
    hub: PayHub,
    new_provider: Callable[..., Account],
    make_merchant: Callable[..., dict[str, Any]],
    merchant_key: Callable[[Account, str], str],
) -> dict[str, str]:
    account = new_provider("Keyholder")
    match request.param:
        case "missing":
            return {}
        case "empty":
            return {"X-Api-Key": ""}
        case "garbage":
            return {"X-Api-Key": "not-a-key"}
        case "tampered":
            return {"X-Api-Key": _tampered_key(account)}
        case "revoked":
            return {"X-Api-Key": _revoked_key(hub, account)}
        case _:
            make_merchant(account, "shop-1")
            key = merchant_key(account, "shop-1")
            parsed = parse_key(key)
            assert parsed is not None
            hub.operators.revoke_key(parsed.key_id)
            return {"X-Api-Key": key}


def test_every_api_operation_refuses_a_missing_or_bad_key(
    app: Litestar, client: Client, bad_headers: dict[str, str]
) -> None:
    ops = operations(app)
    assert len(ops) >= 6, ops  # the route table was read
    for op in ops:
        url = op.path(**{p: SAMPLE_VALUES.get(p, "x") for p in op.params})
        for body in (None, {}, b"{not json"):
            kwargs: dict[str, Any] = {"headers": dict(bad_headers)}
            if isinstance(body, bytes):
                kwargs["content"] = body
                kwargs["headers"]["content-type"] = "application/json"
            elif body is not None:
                kwargs["json"] = body
            response = client.request(op.method, url, **kwargs)
            assert response.status_code == 401, (str(op), body, response.text)
            problem(response, 401)
            assert response.headers["www-authenticate"].startswith("ApiKey")


def test_bad_query_parameters_do_not_get_past_authentication(
    client: Client, bad_headers: dict[str, str]
) -> None:
    response = client.get("/api/merchant-accounts?limit=0", headers=bad_headers)
    problem(response, 401)


UNROUTED = [
    ("GET", "/api"),
    ("GET", "/api/"),
    ("GET", "/api/no-such-thing"),
    ("POST", "/api/merchant-accounts/shop-1/nothing-here"),
    ("DELETE", "/api/gateways"),
    ("PATCH", "/api/merchant-accounts"),
    ("DELETE", "/api/merchant-accounts/shop-1"),
]


def test_unknown_paths_and_wrong_methods_under_api_are_401_without_a_key(
    client: Client, bad_headers: dict[str, str]
) -> None:
    for method, path in UNROUTED:
        body = problem(client.request(method, path, headers=bad_headers), 401)
        assert body["type"] == "/problems/unauthenticated", (method, path)


def test_every_refusal_reads_the_same(client: Client, sandbox_provider: Account) -> None:
    """A caller learns nothing about which keys exist from the answer."""
    answers = set()
    for key in ("", "nope", _tampered_key(sandbox_provider)):
        body = problem(client.get("/api/gateways", headers={"X-Api-Key": key}), 401)
        answers.add((body["title"], body["detail"]))
    assert len(answers) == 1


def test_a_revoked_key_stops_working_at_once(
    hub: PayHub, client: Client, sandbox_provider: Account
) -> None:
    assert client.get("/api/gateways", headers=sandbox_provider.headers).status_code == 200
    _revoked_key(hub, sandbox_provider)
    problem(client.get("/api/gateways", headers=sandbox_provider.headers), 401)
    with pytest.raises(Unauthenticated):
        hub.authenticate(sandbox_provider.key)
    [listing] = hub.operators.list_keys(sandbox_provider.provider.id)
    assert listing.key.revoked_at is not None


def test_revoking_one_key_leaves_the_providers_other_keys_working(
    hub: PayHub, client: Client, sandbox_provider: Account
) -> None:
    second = hub.operators.issue_key(sandbox_provider.provider.id, label="second").secret
    _revoked_key(hub, sandbox_provider)
    assert client.get("/api/gateways", headers={"X-Api-Key": second}).status_code == 200


def test_the_key_may_carry_surrounding_whitespace(
    client: Client, sandbox_provider: Account
) -> None:
    response = client.get("/api/gateways", headers={"X-Api-Key": f" {sandbox_provider.key} "})
    assert response.status_code == 200


@pytest.mark.parametrize("path", ["/healthz", "/reference", "/reference/merchant/openapi.json"])
def test_public_pages_need_no_key(client: Client, path: str) -> None:
    assert client.get(path).status_code == 200


def test_only_api_paths_are_guarded(client: Client) -> None:
    """``/apix`` is not under ``/api``: an unknown path there is a plain 404."""
    problem(client.get("/apix"), 404)
