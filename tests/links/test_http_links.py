"""``/api/short-links`` over HTTP: create, list, get, clicks and revoke, with every status the
spec names (200, 201, 400, 403, 404, 409, 429, 503) and what each leaves in the database."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import Environment, PayHub
from payhub.adapters.system import FixedClock
from payhub.domain.links import MERCHANT_DAILY_LIMIT, PROVIDER_DAILY_LIMIT
from tests.conftest import START, Account
from tests.http.support import error_fields, problem
from tests.links.conftest import (
    PRODUCTION_DOMAIN,
    SANDBOX_DOMAIN,
    TARGET,
    Shop,
    create,
    insert_links,
    merchant_id,
    stored_links,
    visit,
)

Client = TestClient[Litestar]


# --- create --------------------------------------------------------------------------------


def test_create_returns_201_with_code_and_short_url_and_stores_the_link(
    hub: PayHub, client: Client, shop: Shop
) -> None:
    body = create(
        client,
        shop.headers,
        targetUrl="https://Shop.Example.com/pay?invoice=42",
        purpose="invoice",
        label="Invoice 42",
        clientReference="inv-42",
        merchantReference="shop-1",
    )
    assert body["shortUrl"] == f"https://{SANDBOX_DOMAIN}/{body['code']}"
    assert len(body["code"]) == 8
    assert body["code"].isalnum()
    assert body["targetUrl"] == TARGET
    assert body["status"] == "active"
    assert body["merchantReference"] == "shop-1"
    assert (body["clickCount"], body["lastClickedUtc"], body["expiresAtUtc"]) == (0, None, None)
    [link] = stored_links(hub, shop.provider_id)
    assert link.code == body["code"]
    assert link.merchant_id == merchant_id(hub, shop.provider_id, "shop-1")
    assert link.environment is Environment.SANDBOX
    assert (link.target_url, link.target_host) == (TARGET, "shop.example.com")
    assert (link.purpose, link.label, link.client_reference) == ("invoice", "Invoice 42", "inv-42")
    assert link.created_at == START
    assert link.created_by.startswith("key_")


def test_a_provider_key_may_make_a_link_for_itself(hub: PayHub, client: Client, shop: Shop) -> None:
    body = create(client, shop.headers)
    assert body["merchantReference"] is None
    [link] = stored_links(hub, shop.provider_id)
    assert link.merchant_id is None


def test_a_merchant_key_makes_links_for_its_own_merchant(
    hub: PayHub, client: Client, shop: Shop
) -> None:
    assert create(client, shop.key_1)["merchantReference"] == "shop-1"
    assert create(client, shop.key_1, merchantReference="shop-1")["merchantReference"] == "shop-1"
    problem(
        client.post(
            "/api/short-links",
            json={"targetUrl": TARGET, "merchantReference": "shop-2"},
            headers={"X-Api-Key": shop.key_1},
        ),
        403,
    )
    assert len(stored_links(hub, shop.provider_id)) == 2


@pytest.mark.parametrize("ref", ["no-such-shop", "other-shop"])
def test_naming_a_merchant_the_provider_does_not_have_is_404(
    hub: PayHub,
    client: Client,
    shop: Shop,
    other_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
    ref: str,
) -> None:
    make_merchant(other_provider, "other-shop")
    response = client.post(
        "/api/short-links",
        json={"targetUrl": TARGET, "merchantReference": ref},
        headers=shop.headers,
    )
    problem(response, 404)
    assert stored_links(hub, shop.provider_id) == []
    assert stored_links(hub, other_provider.provider.id) == []


def test_the_same_client_reference_and_address_returns_the_existing_link_with_200(
    hub: PayHub, client: Client, shop: Shop
) -> None:
    first = create(client, shop.key_1, clientReference="order-7")
    again = create(client, shop.key_1, status=200, clientReference="order-7", label="ignored")
    # the same address in another spelling is the same address
    spelled = create(
        client,
        shop.key_1,
        status=200,
        clientReference="order-7",
        targetUrl="HTTPS://SHOP.EXAMPLE.COM:443/pay?invoice=42",
    )
    assert again == first
    assert spelled == first
    assert len(stored_links(hub, shop.provider_id)) == 1


def test_the_same_client_reference_with_another_address_is_409_until_revoked(
    hub: PayHub, client: Client, shop: Shop
) -> None:
    first = create(client, shop.key_1, clientReference="order-7")
    other = {"targetUrl": "https://shop.example.com/other", "clientReference": "order-7"}
    body = problem(
        client.post("/api/short-links", json=other, headers={"X-Api-Key": shop.key_1}), 409
    )
    assert first["code"] in body["detail"]
    assert len(stored_links(hub, shop.provider_id)) == 1
    client.delete(f"/api/short-links/{first['code']}", headers=shop.headers)
    second = create(client, shop.key_1, **other)
    assert second["code"] != first["code"]
    assert len(stored_links(hub, shop.provider_id)) == 2


def test_the_same_client_reference_with_another_address_is_allowed_once_expired(
    client: Client, shop: Shop, clock: FixedClock
) -> None:
    first = create(client, shop.key_1, clientReference="order-7", expiresInDays=1)
    other = {"targetUrl": "https://shop.example.com/other", "clientReference": "order-7"}
    create(client, shop.key_1, status=409, **other)
    clock.advance(timedelta(days=1))
    assert create(client, shop.key_1, **other)["code"] != first["code"]


def test_client_references_belong_to_one_merchant(client: Client, shop: Shop) -> None:
    one = create(client, shop.key_1, clientReference="order-7")
    two = create(client, shop.key_2, clientReference="order-7", targetUrl="https://b.example.com/")
    mine = create(
        client, shop.headers, clientReference="order-7", targetUrl="https://c.example.com"
    )
    assert len({one["code"], two["code"], mine["code"]}) == 3


@pytest.mark.parametrize(
    "target",
    [
        "http://shop.example.com/",
        "https://127.0.0.1/",
        "https://0x7f000001/",
        "https://[::1]/",
        "https://localhost/",
        "https://nas.local/",
        "https://user:pw@shop.example.com/",
        "https://shop.example.com:8443/",
        "https://shop.example.com/a b",
        "https://bit.ly/abc",
        f"https://{SANDBOX_DOMAIN}/AbCdEfGh",
        f"https://{PRODUCTION_DOMAIN}/AbCdEfGh",
        "javascript:alert(1)",
        "",
    ],
)
def test_an_unsafe_target_is_400_and_stores_nothing(
    hub: PayHub, client: Client, shop: Shop, target: str
) -> None:
    response = client.post("/api/short-links", json={"targetUrl": target}, headers=shop.headers)
    assert error_fields(response) == ["targetUrl"]
    assert stored_links(hub, shop.provider_id) == []


def test_every_field_at_fault_is_named_in_one_400(client: Client, shop: Shop) -> None:
    response = client.post(
        "/api/short-links",
        json={
            "targetUrl": "http://x.example.com",
            "purpose": "p" * 41,
            "label": "l" * 121,
            "clientReference": "r" * 101,
            "expiresInDays": 5,
            "expiresAtUtc": "2030-01-01T00:00:00Z",
        },
        headers=shop.headers,
    )
    assert error_fields(response) == [
        "purpose",
        "label",
        "clientReference",
        "expiresInDays",
        "expiresAtUtc",
        "targetUrl",
    ]


def test_the_length_limits_are_exact(client: Client, shop: Shop) -> None:
    body = create(
        client, shop.headers, purpose="p" * 40, label="l" * 120, clientReference="r" * 100
    )
    assert (len(body["purpose"]), len(body["label"]), len(body["clientReference"])) == (
        40,
        120,
        100,
    )


def test_expiry_in_days_or_at_a_moment(client: Client, shop: Shop) -> None:
    in_days = create(client, shop.headers, expiresInDays=7)
    assert in_days["expiresAtUtc"] == (START + timedelta(days=7)).isoformat().replace("+00:00", "Z")
    at = create(client, shop.headers, expiresAtUtc="2025-04-01T12:00:00-04:00")
    assert at["expiresAtUtc"] == "2025-04-01T16:00:00Z"


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({"expiresInDays": 0}, ["expiresInDays"]),
        ({"expiresInDays": 3651}, ["expiresInDays"]),
        ({"expiresAtUtc": "2020-01-01T00:00:00Z"}, ["expiresAtUtc"]),
        ({"expiresAtUtc": "2025-04-01T00:00:00"}, ["expiresAtUtc"]),
        ({"surprise": 1}, ["surprise"]),
    ],
)
def test_bad_fields_are_400(
    hub: PayHub, client: Client, shop: Shop, body: dict[str, Any], fields: list[str]
) -> None:
    response = client.post(
        "/api/short-links", json={"targetUrl": TARGET, **body}, headers=shop.headers
    )
    assert error_fields(response) == fields
    assert stored_links(hub, shop.provider_id) == []


def test_a_missing_target_is_400(client: Client, shop: Shop) -> None:
    assert error_fields(client.post("/api/short-links", json={}, headers=shop.headers)) == [
        "targetUrl"
    ]


def test_no_domain_for_the_environment_is_503(
    hub: PayHub, client: Client, new_provider: Callable[..., Account]
) -> None:
    hub.link_admin.set_domain(Environment.SANDBOX, SANDBOX_DOMAIN)
    live = new_provider("Live", Environment.PRODUCTION)
    body = problem(
        client.post("/api/short-links", json={"targetUrl": TARGET}, headers=live.headers), 503
    )
    assert "no short-link domain" in body["detail"]
    sandbox = new_provider("Sandbox")
    create(client, sandbox.headers)
    hub.link_admin.clear_domain(Environment.SANDBOX)
    problem(
        client.post("/api/short-links", json={"targetUrl": TARGET}, headers=sandbox.headers), 503
    )
    assert stored_links(hub, live.provider.id) == []


def test_production_keys_make_links_on_the_production_domain(
    hub: PayHub, client: Client, domains: None, new_provider: Callable[..., Account]
) -> None:
    live = new_provider("Live", Environment.PRODUCTION)
    body = create(client, live.headers)
    assert body["shortUrl"] == f"https://{PRODUCTION_DOMAIN}/{body['code']}"
    [link] = stored_links(hub, live.provider.id)
    assert link.environment is Environment.PRODUCTION


# --- switches ------------------------------------------------------------------------------


def test_switched_off_for_the_provider_is_403_for_every_creation(
    hub: PayHub, client: Client, shop: Shop
) -> None:
    existing = create(client, shop.key_1)
    hub.link_admin.switch(shop.provider_id, enabled=False)
    for headers in (shop.headers, {"X-Api-Key": shop.key_1}, {"X-Api-Key": shop.key_2}):
        body = problem(
            client.post("/api/short-links", json={"targetUrl": TARGET}, headers=headers), 403
        )
        assert "switched off" in body["detail"]
    assert len(stored_links(hub, shop.provider_id)) == 1
    # what exists keeps working and stays readable and revocable
    assert visit(client, existing["code"]).status_code == 302
    assert (
        client.get(f"/api/short-links/{existing['code']}", headers=shop.headers).status_code == 200
    )
    assert client.get("/api/short-links", headers=shop.headers).status_code == 200
    hub.link_admin.switch(shop.provider_id, enabled=True)
    create(client, shop.key_1)


def test_switched_off_for_one_merchant_is_403_for_that_merchant_only(
    hub: PayHub, client: Client, shop: Shop
) -> None:
    hub.link_admin.switch(shop.provider_id, enabled=False, merchant_reference="shop-1")
    create(client, shop.key_1, status=403)
    create(client, shop.headers, status=403, merchantReference="shop-1")
    create(client, shop.key_2)
    create(client, shop.headers)
    hub.link_admin.switch(shop.provider_id, enabled=True, merchant_reference="shop-1")
    create(client, shop.key_1)


# --- blocklist -----------------------------------------------------------------------------


def test_a_blocked_domain_is_refused_and_its_links_are_revoked(
    hub: PayHub, client: Client, shop: Shop
) -> None:
    before = create(client, shop.key_1, targetUrl="https://www.scam-shop.com/deal")
    kept = create(client, shop.key_1, targetUrl="https://notscam-shop.com/")
    result = hub.link_admin.block("SCAM-SHOP.com", "phishing reports")
    assert (result.domain, result.added, result.links_revoked) == ("scam-shop.com", True, 1)
    response = client.post(
        "/api/short-links",
        json={"targetUrl": "https://pay.scam-shop.com/"},
        headers=shop.headers,
    )
    assert "blocked for abuse" in problem(response, 400)["detail"]
    assert visit(client, before["code"]).status_code == 410
    assert visit(client, kept["code"]).status_code == 302
    revoked = client.get(f"/api/short-links/{before['code']}", headers=shop.headers).json()
    assert (revoked["status"], revoked["revokeReason"]) == (
        "revoked",
        "domain scam-shop.com blocked for abuse",
    )
    assert hub.link_admin.unblock("scam-shop.com")
    create(client, shop.key_1, targetUrl="https://pay.scam-shop.com/")


# --- limits --------------------------------------------------------------------------------


def test_2000_creations_per_merchant_in_any_24_hours_then_429_with_retry_after(
    hub: PayHub, client: Client, shop: Shop, clock: FixedClock
) -> None:
    shop_1 = merchant_id(hub, shop.provider_id, "shop-1")
    # 1,999 links made over the last 20 hours, the oldest 20 hours ago
    oldest = START - timedelta(hours=20)
    insert_links(
        hub, shop.provider_id, shop_1, MERCHANT_DAILY_LIMIT - 1, oldest, timedelta(seconds=30)
    )
    create(client, shop.key_1)  # the 2,000th
    response = client.post(
        "/api/short-links", json={"targetUrl": TARGET}, headers={"X-Api-Key": shop.key_1}
    )
    body = problem(response, 429)
    assert response.headers["retry-after"] == str(4 * 3600)
    assert body["retryAfter"] == 4 * 3600
    create(client, shop.key_2)  # another merchant is not held back
    create(client, shop.headers)  # nor the provider's own links
    create(client, shop.headers, status=429, merchantReference="shop-1")
    # a second before the oldest leaves the window: still refused, 1 second to go
    clock.advance(timedelta(hours=4) - timedelta(seconds=1))
    retry = client.post(
        "/api/short-links", json={"targetUrl": TARGET}, headers={"X-Api-Key": shop.key_1}
    )
    assert problem(retry, 429)["retryAfter"] == 1
    clock.advance(timedelta(seconds=1))
    create(client, shop.key_1)
    # the next slot frees 30 seconds later, when the second-oldest leaves
    assert (
        problem(
            client.post(
                "/api/short-links", json={"targetUrl": TARGET}, headers={"X-Api-Key": shop.key_1}
            ),
            429,
        )["retryAfter"]
        == 30
    )
    per_merchant = [x for x in stored_links(hub, shop.provider_id) if x.merchant_id == shop_1]
    assert len(per_merchant) == MERCHANT_DAILY_LIMIT + 1


def test_revoked_links_still_count_against_the_limit(
    hub: PayHub, client: Client, shop: Shop
) -> None:
    shop_1 = merchant_id(hub, shop.provider_id, "shop-1")
    insert_links(
        hub, shop.provider_id, shop_1, MERCHANT_DAILY_LIMIT - 1, START - timedelta(hours=1)
    )
    last = create(client, shop.key_1)
    client.delete(f"/api/short-links/{last['code']}", headers=shop.headers)
    create(client, shop.key_1, status=429)


def test_50000_creations_per_provider_across_its_merchants_then_429(
    hub: PayHub, client: Client, shop: Shop, clock: FixedClock
) -> None:
    shop_2 = merchant_id(hub, shop.provider_id, "shop-2")
    oldest = START - timedelta(hours=23)
    # spread over merchants and the provider itself; shop-2 stays under its own limit
    insert_links(hub, shop.provider_id, None, PROVIDER_DAILY_LIMIT - 1000, oldest, tag="P")
    insert_links(hub, shop.provider_id, shop_2, 999, START - timedelta(hours=1), tag="S")
    create(client, shop.key_1)  # the 50,000th
    for headers in (shop.headers, {"X-Api-Key": shop.key_1}, {"X-Api-Key": shop.key_2}):
        response = client.post("/api/short-links", json={"targetUrl": TARGET}, headers=headers)
        assert problem(response, 429)["retryAfter"] == 3600
        assert response.headers["retry-after"] == "3600"
    clock.advance(timedelta(hours=1))
    create(client, shop.key_2)


def test_a_repeat_with_the_same_client_reference_is_answered_even_at_the_limit(
    hub: PayHub, client: Client, shop: Shop
) -> None:
    shop_1 = merchant_id(hub, shop.provider_id, "shop-1")
    first = create(client, shop.key_1, clientReference="order-1")
    insert_links(hub, shop.provider_id, shop_1, MERCHANT_DAILY_LIMIT - 1, START)
    assert create(client, shop.key_1, status=200, clientReference="order-1") == first
    create(client, shop.key_1, status=429, clientReference="order-2")


# --- list ----------------------------------------------------------------------------------


@pytest.fixture
def listed(client: Client, shop: Shop, clock: FixedClock) -> dict[str, str]:
    """Five links a minute apart (oldest first): codes by name."""
    made = {}
    specs = [
        ("a", shop.key_1, {"purpose": "invoice", "label": "Spring sale", "clientReference": "c-a"}),
        ("b", shop.key_1, {"purpose": "Receipt", "targetUrl": "https://docs.example.org/guide"}),
        ("c", shop.key_2, {"purpose": "invoice", "expiresInDays": 1}),
        ("d", shop.headers, {"label": "100% off_today"}),
        ("e", shop.key_2, {"clientReference": "c-e"}),
    ]
    for name, key, body in specs:
        made[name] = create(client, key, **body)["code"]
        clock.advance(timedelta(minutes=1))
    client.delete(f"/api/short-links/{made['e']}", headers=shop.headers)
    clock.advance(timedelta(days=1))  # c expires
    return made


def codes(client: Client, headers: dict[str, str], **params: Any) -> list[str]:
    response = client.get("/api/short-links", params=params, headers=headers)
    assert response.status_code == 200, response.text
    return [link["code"] for link in response.json()["data"]]


def test_list_is_newest_first_with_every_link_of_the_provider(
    client: Client, shop: Shop, listed: dict[str, str]
) -> None:
    response = client.get("/api/short-links", headers=shop.headers)
    body = response.json()
    assert [link["code"] for link in body["data"]] == [listed[n] for n in "edcba"]
    assert (body["page"], body["pageSize"], body["totalCount"], body["hasMore"]) == (
        1,
        50,
        5,
        False,
    )
    assert [link["status"] for link in body["data"]] == [
        "revoked",
        "active",
        "expired",
        "active",
        "active",
    ]
    assert body["data"][0]["shortUrl"] == f"https://{SANDBOX_DOMAIN}/{listed['e']}"


@pytest.mark.parametrize(
    ("params", "names"),
    [
        ({"status": "active"}, "dba"),
        ({"status": "EXPIRED"}, "c"),
        ({"status": "revoked"}, "e"),
        ({"purpose": "invoice"}, "ca"),
        ({"purpose": "receipt"}, "b"),
        ({"merchantReference": "shop-1"}, "ba"),
        ({"merchantReference": "shop-2", "status": "active"}, ""),
        ({"search": "c-e"}, "e"),
        ({"search": "docs.EXAMPLE"}, "b"),
        ({"search": "spring"}, "a"),
        ({"search": "100%"}, "d"),
        ({"search": "off_t"}, "d"),
        ({"search": "o%f"}, ""),
        ({"search": "shop.example.com/pay"}, "edca"),
        ({"search": "nothing-like-it"}, ""),
    ],
)
def test_list_filters(
    client: Client, shop: Shop, listed: dict[str, str], params: dict[str, str], names: str
) -> None:
    assert codes(client, shop.headers, **params) == [listed[n] for n in names]


def test_search_finds_a_code(client: Client, shop: Shop, listed: dict[str, str]) -> None:
    assert codes(client, shop.headers, search=listed["c"]) == [listed["c"]]


def test_pages(client: Client, shop: Shop, listed: dict[str, str]) -> None:
    first = client.get("/api/short-links", params={"pageSize": 2}, headers=shop.headers).json()
    last = client.get(
        "/api/short-links", params={"pageSize": 2, "page": 3}, headers=shop.headers
    ).json()
    beyond = client.get(
        "/api/short-links", params={"pageSize": 2, "page": 4}, headers=shop.headers
    ).json()
    assert [x["code"] for x in first["data"]] == [listed["e"], listed["d"]]
    assert (first["totalCount"], first["hasMore"]) == (5, True)
    assert ([x["code"] for x in last["data"]], last["hasMore"]) == ([listed["a"]], False)
    assert (beyond["data"], beyond["hasMore"]) == ([], False)


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"pageSize": "0"}, "pageSize"),
        ({"pageSize": "201"}, "pageSize"),
        ({"pageSize": "ten"}, "pageSize"),
        ({"page": "0"}, "page"),
        ({"status": "deleted"}, "status"),
    ],
)
def test_bad_list_parameters_are_400(
    client: Client, shop: Shop, params: dict[str, str], field: str
) -> None:
    response = client.get("/api/short-links", params=params, headers=shop.headers)
    assert error_fields(response) == [field]


@pytest.mark.parametrize("size", ["1", "200"])
def test_page_size_bounds_are_allowed(client: Client, shop: Shop, size: str) -> None:
    response = client.get("/api/short-links", params={"pageSize": size}, headers=shop.headers)
    assert response.status_code == 200


def test_a_merchant_key_lists_only_its_merchants_links(
    client: Client, shop: Shop, listed: dict[str, str]
) -> None:
    key_2 = {"X-Api-Key": shop.key_2}
    assert codes(client, key_2) == [listed["e"], listed["c"]]
    assert codes(client, key_2, merchantReference="shop-2") == [listed["e"], listed["c"]]
    problem(
        client.get("/api/short-links", params={"merchantReference": "shop-1"}, headers=key_2), 403
    )


def test_another_provider_lists_nothing_and_cannot_name_the_merchant(
    client: Client, shop: Shop, listed: dict[str, str], other_provider: Account
) -> None:
    assert codes(client, other_provider.headers) == []
    problem(
        client.get(
            "/api/short-links",
            params={"merchantReference": "shop-1"},
            headers=other_provider.headers,
        ),
        404,
    )


# --- get, clicks, revoke -------------------------------------------------------------------


def test_get_one_link_with_its_click_count(client: Client, shop: Shop, clock: FixedClock) -> None:
    code = create(client, shop.key_1, label="One")["code"]
    for _ in range(3):
        assert visit(client, code).status_code == 302
        clock.advance(timedelta(minutes=5))
    body = client.get(f"/api/short-links/{code}", headers=shop.headers).json()
    assert body["clickCount"] == 3
    assert body["lastClickedUtc"] == (START + timedelta(minutes=10)).isoformat().replace(
        "+00:00", "Z"
    )
    assert body["label"] == "One"


def test_who_may_read_a_link(client: Client, shop: Shop, other_provider: Account) -> None:
    code = create(client, shop.key_1)["code"]
    provider_own = create(client, shop.headers)["code"]
    assert client.get(f"/api/short-links/{code}", headers=shop.headers).status_code == 200
    assert (
        client.get(f"/api/short-links/{code}", headers={"X-Api-Key": shop.key_1}).status_code == 200
    )
    for path in (f"/api/short-links/{code}", f"/api/short-links/{code}/clicks"):
        problem(client.get(path, headers={"X-Api-Key": shop.key_2}), 404)
        problem(client.get(path, headers=other_provider.headers), 404)
    # a merchant key does not see the provider's own links either
    problem(client.get(f"/api/short-links/{provider_own}", headers={"X-Api-Key": shop.key_1}), 404)
    for bad in ("nope", "AAAAAAAA", code.lower() if code != code.lower() else code.upper()):
        problem(client.get(f"/api/short-links/{bad}", headers=shop.headers), 404)


def test_clicks_per_utc_day_with_zeros_and_the_running_total(
    client: Client, shop: Shop, clock: FixedClock
) -> None:
    code = create(client, shop.key_1)["code"]
    clock.set(datetime(2025, 3, 14, 23, 59, 59, tzinfo=UTC))
    visit(client, code)
    visit(client, code)
    clock.set(datetime(2025, 3, 15, 0, 0, 1, tzinfo=UTC))
    visit(client, code)
    clock.set(datetime(2025, 3, 17, 12, 0, tzinfo=UTC))
    visit(client, code)
    body = client.get(
        f"/api/short-links/{code}/clicks", params={"days": 5}, headers=shop.headers
    ).json()
    assert body == {
        "code": code,
        "clickCount": 4,
        "lastClickedUtc": "2025-03-17T12:00:00Z",
        "days": 5,
        "daily": [
            {"dateUtc": "2025-03-13", "clicks": 0},
            {"dateUtc": "2025-03-14", "clicks": 2},
            {"dateUtc": "2025-03-15", "clicks": 1},
            {"dateUtc": "2025-03-16", "clicks": 0},
            {"dateUtc": "2025-03-17", "clicks": 1},
        ],
    }
    short = client.get(f"/api/short-links/{code}/clicks", params={"days": 1}, headers=shop.headers)
    assert short.json()["daily"] == [{"dateUtc": "2025-03-17", "clicks": 1}]
    assert short.json()["clickCount"] == 4  # the running total is not cut to the window
    default = client.get(f"/api/short-links/{code}/clicks", headers=shop.headers).json()
    assert default["days"] == 30
    assert len(default["daily"]) == 30


@pytest.mark.parametrize("days", ["0", "366", "-1", "x"])
def test_days_outside_1_to_365_is_400(client: Client, shop: Shop, days: str) -> None:
    code = create(client, shop.key_1)["code"]
    response = client.get(
        f"/api/short-links/{code}/clicks", params={"days": days}, headers=shop.headers
    )
    assert error_fields(response) == ["days"]


def test_revoke_keeps_the_reason_and_is_safe_to_repeat(
    client: Client, shop: Shop, clock: FixedClock
) -> None:
    code = create(client, shop.key_1)["code"]
    visit(client, code)
    first = client.delete(
        f"/api/short-links/{code}",
        params={"reason": "sent to the wrong customer"},
        headers=shop.headers,
    )
    assert first.status_code == 200
    assert first.json()["status"] == "revoked"
    assert first.json()["revokeReason"] == "sent to the wrong customer"
    assert first.json()["revokedAtUtc"] == START.isoformat().replace("+00:00", "Z")
    clock.advance(timedelta(hours=1))
    again = client.delete(
        f"/api/short-links/{code}", params={"reason": "other"}, headers={"X-Api-Key": shop.key_1}
    )
    assert again.status_code == 200
    assert again.json() == first.json()
    assert visit(client, code).status_code == 410
    # counts stay readable
    assert client.get(f"/api/short-links/{code}", headers=shop.headers).json()["clickCount"] == 1
    stats = client.get(f"/api/short-links/{code}/clicks", headers=shop.headers).json()
    assert stats["clickCount"] == 1


def test_revoke_without_a_reason_and_a_too_long_one(client: Client, shop: Shop) -> None:
    code = create(client, shop.key_1)["code"]
    response = client.delete(
        f"/api/short-links/{code}", params={"reason": "x" * 201}, headers=shop.headers
    )
    assert error_fields(response) == ["reason"]
    assert client.get(f"/api/short-links/{code}", headers=shop.headers).json()["status"] == "active"
    plain = client.delete(f"/api/short-links/{code}", headers=shop.headers).json()
    assert (plain["status"], plain["revokeReason"]) == ("revoked", None)


def test_revoke_by_another_tenant_is_404_and_changes_nothing(
    client: Client, shop: Shop, other_provider: Account
) -> None:
    code = create(client, shop.key_1)["code"]
    problem(client.delete(f"/api/short-links/{code}", headers=other_provider.headers), 404)
    problem(client.delete(f"/api/short-links/{code}", headers={"X-Api-Key": shop.key_2}), 404)
    assert visit(client, code).status_code == 302


# --- API request counting ------------------------------------------------------------------


def test_each_call_counts_one_api_request_for_the_merchant_it_names(
    hub: PayHub, client: Client, shop: Shop
) -> None:
    code = create(client, shop.key_1)["code"]  # 1 for shop-1
    client.get("/api/short-links", headers={"X-Api-Key": shop.key_1})  # 2
    client.get(
        "/api/short-links", params={"merchantReference": "shop-1"}, headers=shop.headers
    )  # 3
    client.get(f"/api/short-links/{code}", headers=shop.headers)  # 4: the link is shop-1's
    client.get(f"/api/short-links/{code}/clicks", headers=shop.headers)  # 5
    client.post(
        "/api/short-links",
        json={"targetUrl": "http://x.example.com"},
        headers={"X-Api-Key": shop.key_1},
    )  # 6: refused, still a call
    client.delete(f"/api/short-links/{code}", headers=shop.headers)  # 7
    client.get("/api/short-links", headers=shop.headers)  # names no merchant: not counted
    create(client, shop.headers)  # the provider's own link: not counted
    # a merchant key's calls are its own merchant's, refused ones included
    client.get(
        "/api/short-links",
        params={"merchantReference": "shop-1"},
        headers={"X-Api-Key": shop.key_2},
    )  # 403
    client.get(f"/api/short-links/{code}", headers={"X-Api-Key": shop.key_2})  # 404
    usage = {
        u.merchant_reference: (u.today, u.last_7_days, u.last_days) for u in hub.link_admin.usage()
    }
    assert usage == {"shop-1": (7, 7, 7), "shop-2": (2, 2, 2)}


def test_usage_is_kept_per_utc_day(
    hub: PayHub, client: Client, shop: Shop, clock: FixedClock
) -> None:
    create(client, shop.key_1)
    clock.advance(timedelta(days=3))
    create(client, shop.key_1)
    create(client, shop.key_1)
    clock.advance(timedelta(days=5))
    client.get("/api/short-links", headers={"X-Api-Key": shop.key_1})
    [line] = hub.link_admin.usage(shop.provider_id, days=30)
    assert (line.today, line.last_7_days, line.last_days) == (1, 3, 4)
    [short] = hub.link_admin.usage(shop.provider_id, days=7)
    assert short.last_days == 3
