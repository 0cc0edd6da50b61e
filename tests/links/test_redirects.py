"""The short address itself: a plain, uncached redirect that counts people's opens per UTC day,
never previews or robots; 410 once revoked or expired; 404 off its own environment's host."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import Environment, PayHub
from payhub.adapters.system import FixedClock
from tests.conftest import START
from tests.http.support import problem
from tests.links.conftest import (
    BROWSER,
    PRODUCTION_DOMAIN,
    SANDBOX_DOMAIN,
    TARGET,
    Shop,
    create,
    opens_by_day,
    visit,
)

Client = TestClient[Litestar]
TODAY = START.date().isoformat()


def clicks(client: Client, shop: Shop, code: str) -> int:
    count: int = client.get(f"/api/short-links/{code}", headers=shop.headers).json()["clickCount"]
    return count


def test_a_browser_gets_a_plain_302_and_the_open_is_counted(
    hub: PayHub, client: Client, shop: Shop
) -> None:
    code = create(client, shop.key_1)["code"]
    response = visit(client, code)
    assert response.status_code == 302
    assert response.headers["location"] == TARGET
    assert response.headers["cache-control"] == "no-store"
    assert "set-cookie" not in response.headers
    assert response.content == b""
    assert opens_by_day(hub, shop.provider_id, code) == {TODAY: 1}


def test_every_open_is_counted_on_one_row_per_day(hub: PayHub, client: Client, shop: Shop) -> None:
    code = create(client, shop.key_1)["code"]
    for _ in range(25):
        assert visit(client, code).status_code == 302
    assert opens_by_day(hub, shop.provider_id, code) == {TODAY: 25}
    assert clicks(client, shop, code) == 25


def test_the_location_is_the_normalised_ascii_address(client: Client, shop: Shop) -> None:
    code = create(client, shop.key_1, targetUrl="https://bücher.de/ü?q=ä#ß")["code"]
    location = visit(client, code).headers["location"]
    assert location == "https://xn--bcher-kva.de/%C3%BC?q=%C3%A4#%C3%9F"


@pytest.mark.parametrize(
    "agent",
    [
        "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
        "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)",
        "WhatsApp/2.23.20.0 A",
        "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
        "Mozilla/5.0+(compatible; UptimeRobot/2.0; http://www.uptimerobot.com/)",
        "curl/8.5.0",
        None,
    ],
)
def test_previews_crawlers_and_monitors_are_redirected_but_not_counted(
    hub: PayHub, client: Client, shop: Shop, agent: str | None
) -> None:
    code = create(client, shop.key_1)["code"]
    response = visit(client, code, agent=agent)
    assert response.status_code == 302
    assert response.headers["location"] == TARGET
    assert opens_by_day(hub, shop.provider_id, code) == {}


def test_head_requests_and_prefetches_are_not_counted(
    hub: PayHub, client: Client, shop: Shop
) -> None:
    code = create(client, shop.key_1)["code"]
    head = visit(client, code, method="HEAD")
    assert (head.status_code, head.headers["location"]) == (302, TARGET)
    assert visit(client, code, Sec_Purpose="prefetch").status_code == 302
    assert visit(client, code, Purpose="prefetch").status_code == 302
    assert opens_by_day(hub, shop.provider_id, code) == {}
    visit(client, code)
    assert opens_by_day(hub, shop.provider_id, code) == {TODAY: 1}


def test_a_revoked_link_is_410_no_longer_available_and_not_counted(
    hub: PayHub, client: Client, shop: Shop
) -> None:
    code = create(client, shop.key_1)["code"]
    visit(client, code)
    client.delete(f"/api/short-links/{code}", headers=shop.headers)
    response = visit(client, code)
    assert response.status_code == 410
    assert "This link is no longer available." in response.text
    assert response.headers["content-type"].startswith("text/html")
    assert response.headers["cache-control"] == "no-store"
    assert "location" not in response.headers
    assert "set-cookie" not in response.headers
    assert visit(client, code, method="HEAD").status_code == 410
    assert opens_by_day(hub, shop.provider_id, code) == {TODAY: 1}
    assert clicks(client, shop, code) == 1


def test_an_expired_link_is_410_from_the_moment_it_expires(
    hub: PayHub, client: Client, shop: Shop, clock: FixedClock
) -> None:
    code = create(client, shop.key_1, expiresInDays=2)["code"]
    clock.advance(timedelta(days=2) - timedelta(microseconds=1))
    assert visit(client, code).status_code == 302
    clock.advance(timedelta(microseconds=1))
    response = visit(client, code)
    assert response.status_code == 410
    assert "no longer available" in response.text
    assert clicks(client, shop, code) == 1
    listed = client.get(f"/api/short-links/{code}", headers=shop.headers).json()
    assert listed["status"] == "expired"


def test_a_link_resolves_only_on_its_own_environments_domain(client: Client, shop: Shop) -> None:
    code = create(client, shop.key_1)["code"]
    wrong = visit(client, code, host=PRODUCTION_DOMAIN)
    assert wrong.status_code == 404
    assert "There is no link at this address." in wrong.text
    assert visit(client, code, host=SANDBOX_DOMAIN).status_code == 302


def test_a_production_link_never_resolves_on_the_sandbox_domain(
    hub: PayHub, client: Client, domains: None
) -> None:
    _, issued = hub.operators.create_provider("Live", Environment.PRODUCTION)
    code = create(client, issued.secret)["code"]
    assert visit(client, code, host=SANDBOX_DOMAIN).status_code == 404
    assert visit(client, code, host=PRODUCTION_DOMAIN).headers["location"] == TARGET


def test_the_api_host_does_not_answer_codes(client: Client, shop: Shop) -> None:
    code = create(client, shop.key_1)["code"]
    for host in ("testserver.local", "api.payhub.io", "evil.example.com"):
        problem(visit(client, code, host=host), 404)


def test_unknown_codes_and_other_paths_on_the_short_host(client: Client, shop: Shop) -> None:
    code = create(client, shop.key_1)["code"]
    assert visit(client, "ZZZZZZZZ").status_code == 404
    assert visit(client, code.swapcase()).status_code == 404
    # anything that is not GET /<code> goes to the app as usual: nothing is shadowed
    health = client.get("/healthz", headers={"Host": SANDBOX_DOMAIN})
    assert health.json() == {"status": "ok"}
    problem(client.get(f"/{code}/x", headers={"Host": SANDBOX_DOMAIN}), 404)
    assert client.post(f"/{code}", headers={"Host": SANDBOX_DOMAIN}).status_code in (404, 405)


@pytest.mark.parametrize(
    "host", [SANDBOX_DOMAIN.upper(), f"{SANDBOX_DOMAIN}:443", f" {SANDBOX_DOMAIN}"]
)
def test_the_host_is_matched_in_any_case_and_with_the_default_port(
    client: Client, shop: Shop, host: str
) -> None:
    code = create(client, shop.key_1)["code"]
    assert visit(client, code, host=host.strip()).status_code == 302


def test_opens_are_bucketed_by_utc_day(
    hub: PayHub, client: Client, shop: Shop, clock: FixedClock
) -> None:
    code = create(client, shop.key_1)["code"]
    clock.set(datetime(2025, 3, 14, 23, 59, 59, 999999, tzinfo=UTC))
    visit(client, code)
    clock.set(datetime(2025, 3, 15, 0, 0, tzinfo=UTC))
    visit(client, code)
    visit(client, code)
    assert opens_by_day(hub, shop.provider_id, code) == {"2025-03-14": 1, "2025-03-15": 2}


def test_a_domain_change_takes_effect_at_once_in_this_process(
    hub: PayHub, client: Client, shop: Shop
) -> None:
    code = create(client, shop.key_1)["code"]
    hub.link_admin.set_domain(Environment.SANDBOX, "go.new-links.com")
    assert visit(client, code).status_code != 302  # the old host is no short-link host now
    assert visit(client, code, host="go.new-links.com").status_code == 302
    body = client.get(f"/api/short-links/{code}", headers=shop.headers).json()
    assert body["shortUrl"] == f"https://go.new-links.com/{code}"


def test_the_browser_agent_used_here_counts(client: Client, shop: Shop) -> None:
    code = create(client, shop.key_1)["code"]
    visit(client, code, agent=BROWSER)
    assert clicks(client, shop, code) == 1
