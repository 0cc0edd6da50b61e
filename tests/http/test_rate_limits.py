"""Request budgets over HTTP: per key, per merchant, and per address for failed
authentication; 429 with Retry-After and the IETF draft's RateLimit fields."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import http_sf
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub_server.app import create_app
from payhub_server.ratelimit import Budget, Limiter
from tests.conftest import Account, api_headers
from tests.http.support import problem

Client = TestClient[Litestar]


class Ticks:
    def __init__(self) -> None:
        self.now = 1_200_020.0  # 20 s into a 60 s window (1,200,000 = 20,000 x 60)

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def ticks() -> Ticks:
    return Ticks()


@pytest.fixture
def limited(hub: PayHub, ticks: Ticks) -> Iterator[Client]:
    app = create_app(hub)
    app.state.limiter = Limiter(
        Budget("key", 5, 60), Budget("merchant", 3, 60), Budget("auth-failures", 3, 60), 1, ticks
    )
    with TestClient(app) as client:
        yield client


def fields(response: Any) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, int]]]:
    """The RateLimit-Policy and RateLimit fields, parsed as structured-field lists."""
    policy = http_sf.parse(response.headers["ratelimit-policy"].encode(), tltype="list")
    limit = http_sf.parse(response.headers["ratelimit"].encode(), tltype="list")
    return dict(policy), dict(limit)


def test_a_key_has_a_budget_and_429_says_when_to_come_back(
    limited: Client, sandbox_provider: Account, other_provider: Account
) -> None:
    for left in (4, 3, 2, 1, 0):
        answer = limited.get("/api/gateways", headers=sandbox_provider.headers)
        assert answer.status_code == 200
        policy, limit = fields(answer)
        assert policy == {"key": {"q": 5, "w": 60}}
        assert limit == {"key": {"r": left, "t": 40}}
    refused = limited.get("/api/gateways", headers=sandbox_provider.headers)
    body = problem(refused, 429)
    assert refused.headers["retry-after"] == "40"
    assert body["retryAfter"] == 40
    assert fields(refused)[1] == {"key": {"r": 0, "t": 40}}
    # Another tenant's key is untouched.
    assert limited.get("/api/gateways", headers=other_provider.headers).status_code == 200


def test_the_budget_comes_back_with_the_next_window(
    limited: Client, sandbox_provider: Account, ticks: Ticks
) -> None:
    for _ in range(5):
        limited.get("/api/gateways", headers=sandbox_provider.headers)
    assert limited.get("/api/gateways", headers=sandbox_provider.headers).status_code == 429
    ticks.now += 40
    answer = limited.get("/api/gateways", headers=sandbox_provider.headers)
    assert answer.status_code == 200
    assert fields(answer)[1] == {"key": {"r": 4, "t": 60}}


def test_a_merchant_has_a_budget_of_its_own(
    limited: Client,
    sandbox_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
    merchant_key: Callable[[Account, str], str],
) -> None:
    for ref in ("shop-1", "shop-2"):
        make_merchant(sandbox_provider, ref)
    shop_key = merchant_key(sandbox_provider, "shop-1")
    # The merchant key: 3 for its merchant, then 429 though its key budget has room.
    for _ in range(3):
        assert limited.get("/api/gateways", headers=api_headers(shop_key)).status_code == 200
    refused = limited.get("/api/merchant-accounts/shop-1", headers=api_headers(shop_key))
    problem(refused, 429)
    assert "merchant" in refused.json()["detail"]
    policy, limit = fields(refused)
    assert policy == {"key": {"q": 5, "w": 60}, "merchant": {"q": 3, "w": 60}}
    assert limit["merchant"]["r"] == 0
    # The provider's key is another key: shop-2 is served, whatever shop-1's key did.
    ok = limited.get("/api/merchant-accounts/shop-2", headers=sandbox_provider.headers)
    assert ok.status_code == 200


def test_brute_forcing_keys_gets_429_quickly_without_reading_keys(
    limited: Client,
    hub: PayHub,
    sandbox_provider: Account,
    monkeypatch: pytest.MonkeyPatch,
    ticks: Ticks,
) -> None:
    assert limited.get("/api/gateways", headers=sandbox_provider.headers).status_code == 200
    forged = sandbox_provider.key[:-4] + "aaaa"
    unknown = sandbox_provider.key.replace(sandbox_provider.key.split("_")[2], "a" * 16)
    for key in (forged, "garbage", unknown):
        problem(limited.get("/api/gateways", headers={"X-Api-Key": key}), 401)
    reads: list[str | None] = []
    real = hub.authenticate

    def spy(presented: str | None) -> Any:
        reads.append(presented)
        return real(presented)

    monkeypatch.setattr(hub, "authenticate", spy)
    for key in (unknown, forged, None):
        sent = {"X-Api-Key": key} if key else {}
        refused = limited.get("/api/gateways", headers=sent)
        body = problem(refused, 429)
        assert int(refused.headers["retry-after"]) == body["retryAfter"] == 40
        assert fields(refused)[0] == {"auth-failures": {"q": 3, "w": 60}}
    # Unknown routes are refused the same way.
    problem(limited.get("/api/nope", headers={"X-Api-Key": unknown}), 429)
    assert reads == []  # no key was looked up for the blocked address
    # A key this server has verified still works from the same address.
    assert limited.get("/api/gateways", headers=sandbox_provider.headers).status_code == 200
    ticks.now += 40
    problem(limited.get("/api/gateways", headers={"X-Api-Key": unknown}), 401)


def test_each_process_enforces_its_share() -> None:
    ticks = Ticks()
    shared = Limiter(Budget("key", 10, 60), Budget("merchant", 3, 60), processes=4, now=ticks)
    assert shared.share(shared.key) == 2
    assert shared.share(shared.merchant) == 1  # never 0: one request per process at least
    assert [shared.take(shared.key, "k").allowed for _ in range(3)] == [True, True, False]


def test_budgets_are_read_from_the_environment() -> None:
    limiter = Limiter.from_env(
        {"PAYHUB_RATE_LIMIT_KEY": "100/10", "PAYHUB_RATE_LIMIT_PROCESSES": "2"}
    )
    assert limiter is not None
    assert limiter.key == Budget("key", 100, 10)
    assert limiter.share(limiter.key) == 50
    assert Limiter.from_env({"PAYHUB_RATE_LIMITS": "off"}) is None
    with pytest.raises(ValueError, match="QUOTA/SECONDS"):
        Limiter.from_env({"PAYHUB_RATE_LIMIT_KEY": "lots"})


def test_the_tables_stay_bounded(ticks: Ticks) -> None:
    limiter = Limiter(now=ticks)
    for i in range(1000):
        limiter.failed(f"10.0.{i // 250}.{i % 250}")
    ticks.now += 60
    limiter.failed("10.9.9.9")
    assert len(limiter._counts) == 1


def test_the_served_app_limits_by_default(
    monkeypatch: pytest.MonkeyPatch, store_url: str, key_file: Any, sandbox_provider: Account
) -> None:
    from payhub_server import requestlog
    from payhub_server.asgi import app_from_env

    # app_from_env switches the request log to its writer thread: keep that to this test.
    monkeypatch.setattr(requestlog, "_background", requestlog._Background())
    monkeypatch.setenv("PAYHUB_DATABASE_URL", store_url)
    monkeypatch.setenv("PAYHUB_KEY_FILE", str(key_file))
    monkeypatch.setenv("PAYHUB_RATE_LIMIT_KEY", "2/60")
    with TestClient(app_from_env()) as served:
        statuses = [
            served.get("/api/gateways", headers=sandbox_provider.headers).status_code
            for _ in range(3)
        ]
    assert statuses == [200, 200, 429]
