"""Errors are RFC 9457 problem+json with type, title, status and detail, wherever they arise."""

from __future__ import annotations

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub_server.problems import PROBLEM_TYPES
from tests.conftest import Account
from tests.http.support import PROBLEM_JSON, problem

Client = TestClient[Litestar]


@pytest.mark.parametrize("path", ["/nope", "/reference/nope", "/problems/nope", "/healthz/x"])
def test_an_unknown_path_is_a_404_problem(client: Client, path: str) -> None:
    body = problem(client.get(path), 404)
    assert body["type"] == "/problems/not-found"
    assert body["instance"] == path


def test_an_unknown_api_path_with_a_valid_key_is_a_404_problem(
    client: Client, sandbox_provider: Account
) -> None:
    body = problem(client.get("/api/nope", headers=sandbox_provider.headers), 404)
    assert body["type"] == "/problems/not-found"


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("DELETE", "/healthz", {"GET"}),
        ("POST", "/reference", {"GET"}),
        ("DELETE", "/api/gateways", {"GET"}),
        ("PUT", "/api/merchant-accounts", {"GET", "POST"}),
        ("DELETE", "/api/merchant-accounts/shop-1", {"GET"}),
        ("GET", "/api/merchant-accounts/shop-1/credentials/stripe", {"PUT"}),
    ],
)
def test_a_wrong_method_is_a_405_problem_that_says_what_is_allowed(
    client: Client, sandbox_provider: Account, method: str, path: str, allowed: set[str]
) -> None:
    response = client.request(method, path, headers=sandbox_provider.headers)
    body = problem(response, 405)
    assert body["type"] == "/problems/method-not-allowed"
    assert method in body["detail"]
    allow = {m.strip() for m in response.headers["allow"].split(",")}
    assert allowed <= allow


def test_every_problem_is_problem_json(client: Client, sandbox_provider: Account) -> None:
    h = sandbox_provider.headers
    client.post(
        "/api/merchant-accounts", json={"externalReference": "s", "displayName": "S"}, headers=h
    )
    responses = [
        client.get("/nope"),
        client.delete("/healthz"),
        client.get("/api/gateways"),
        client.get("/api/merchant-accounts/none", headers=h),
        client.get("/api/merchant-accounts", params={"limit": 0}, headers=h),
        client.post(
            "/api/merchant-accounts",
            content=b"{",
            headers={**h, "content-type": "application/json"},
        ),
        client.post(
            "/api/merchant-accounts", json={"externalReference": "s", "displayName": "S"}, headers=h
        ),
        client.put("/api/merchant-accounts/s/credentials/nope", json={}, headers=h),
    ]
    statuses = []
    for response in responses:
        assert response.headers["content-type"] == PROBLEM_JSON, response.request.url
        statuses.append(problem(response, response.status_code)["status"])
    assert statuses == [404, 405, 401, 404, 400, 400, 409, 400]


def test_each_problem_type_is_documented(client: Client, sandbox_provider: Account) -> None:
    types = {
        problem(client.get("/nope"), 404)["type"],
        problem(client.delete("/healthz"), 405)["type"],
        problem(client.get("/api/gateways"), 401)["type"],
        problem(
            client.get(
                "/api/merchant-accounts", params={"limit": 0}, headers=sandbox_provider.headers
            ),
            400,
        )["type"],
    }
    assert {t.rsplit("/", 1)[1] for t in types} <= set(PROBLEM_TYPES)
    for code in PROBLEM_TYPES:
        page = client.get(f"/problems/{code}")
        assert page.status_code == 200, code
        assert page.text.startswith(f"{code}: ")


def test_the_request_id_is_in_the_problem_and_the_header(client: Client) -> None:
    response = client.get("/nope", headers={"X-Request-Id": "trace-123_abc"})
    assert response.headers["x-request-id"] == "trace-123_abc"
    assert problem(response, 404)["requestId"] == "trace-123_abc"


def test_an_unsafe_incoming_request_id_is_replaced(client: Client) -> None:
    response = client.get("/nope", headers={"X-Request-Id": "<script>"})
    assert response.headers["x-request-id"].startswith("req_")
