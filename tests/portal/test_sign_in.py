"""Portal accounts over HTTP: invites, passwords, sessions, two-factor, sign-in links."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import Environment, PayHub
from payhub.adapters.system import FixedClock
from tests.conftest import Account
from tests.portal.support import (
    PASSWORD,
    Browser,
    csrf_of,
    enable_totp,
    make_user,
    token_of,
    totp_now,
)


@pytest.fixture
def shop(hub: PayHub, sandbox_provider: Account) -> str:
    hub.provider(hub.as_provider(sandbox_provider.provider.id)).merchants.create(
        "acme-42", "Acme Plumbing"
    )
    return "acme-42"


def test_an_invitation_sets_the_password_once_and_signs_in(
    hub: PayHub, shop: str, browse: Callable[..., Browser]
) -> None:
    user = hub.portal.create_user("Ann@Example.com", "Ann Owner", "owner", merchant_reference=shop)
    link = hub.portal.invite(user.id)
    assert link.url.startswith("http://localhost:8000/portal/invite/")
    assert not link.emailed
    b = browse()
    page = b.get(f"/portal/invite/{token_of(link.url)}")
    assert page.status_code == 200
    assert "ann@example.com" in page.text
    assert "Acme Plumbing" in page.text
    short = b.post(
        f"/portal/invite/{token_of(link.url)}",
        {"csrf_token": csrf_of(page.text), "password": "short", "confirm": "short"},
    )
    assert short.status_code == 400
    assert "at least 12 characters" in short.text
    done = b.post(
        f"/portal/invite/{token_of(link.url)}",
        {"csrf_token": csrf_of(page.text), "password": PASSWORD, "confirm": PASSWORD},
    )
    assert done.status_code == 303
    assert done.headers["location"] == "/portal"
    home = b.get("/portal")
    assert home.status_code == 200
    assert "Ann Owner" in home.text
    assert "Acme Plumbing" in home.text
    # Spent: a second use (another browser) finds nothing.
    again = browse().get(f"/portal/invite/{token_of(link.url)}")
    assert again.status_code == 404


def test_a_new_invitation_voids_the_old_one_and_invitations_expire(
    hub: PayHub, shop: str, clock: FixedClock, browse: Callable[..., Browser]
) -> None:
    user = hub.portal.create_user("bob@example.com", "Bob", "staff", merchant_reference=shop)
    first = hub.portal.invite(user.id)
    second = hub.portal.invite(user.id)
    b = browse()
    assert b.get(f"/portal/invite/{token_of(first.url)}").status_code == 404
    assert b.get(f"/portal/invite/{token_of(second.url)}").status_code == 200
    clock.advance(timedelta(days=3, seconds=1))
    assert b.get(f"/portal/invite/{token_of(second.url)}").status_code == 404


def test_sign_in_refuses_wrong_passwords_and_unknown_people_alike(
    hub: PayHub, shop: str, browse: Callable[..., Browser]
) -> None:
    make_user(hub, "ann@example.com", merchant=shop)
    b = browse()
    wrong = b.sign_in("ann@example.com", "not the password at all")
    nobody = b.sign_in("nobody@example.com", "not the password at all")
    assert wrong.status_code == nobody.status_code == 401
    assert "not right" in wrong.text
    assert "not right" in nobody.text
    assert b.get("/portal").status_code == 303
    ok = b.sign_in("ANN@example.com")
    assert ok.status_code == 303
    assert ok.headers["location"] == "/portal"
    assert b.get("/portal").status_code == 200


def test_pages_send_you_to_sign_in_and_back(
    hub: PayHub, shop: str, browse: Callable[..., Browser]
) -> None:
    make_user(hub, "ann@example.com", merchant=shop)
    b = browse()
    away = b.get("/portal/account")
    assert away.status_code == 303
    assert away.headers["location"] == "/portal/sign-in?next=/portal/account"
    signed = b.sign_in("ann@example.com", next_path="/portal/account")
    assert signed.headers["location"] == "/portal/account"


@pytest.mark.parametrize(
    "target",
    [
        "https://evil.example/portal",
        "//evil.example/portal",
        "/\\evil.example",
        "/portal\\@evil.example",
        "http:/portal",
        "/portal/../../evil",
        "/pay/abc",
        "javascript:alert(1)",
        "/portal%0d%0aLocation:%20https://evil.example",
    ],
)
def test_next_never_leaves_the_portal(
    hub: PayHub, shop: str, browse: Callable[..., Browser], target: str
) -> None:
    make_user(hub, "ann@example.com", merchant=shop)
    b = browse()
    page = b.get("/portal/sign-in")
    signed = b.client.post(
        "/portal/sign-in",
        params={"next": target},
        data={"csrf_token": csrf_of(page.text), "email": "ann@example.com", "password": PASSWORD},
        follow_redirects=False,
    )
    assert signed.status_code == 303
    location = signed.headers["location"]
    assert location == "/portal" or (location.startswith("/portal/") and ".." not in location), (
        location
    )


def test_session_cookie_is_httponly_lax_and_secure_over_https(
    hub: PayHub, shop: str, browse: Callable[..., Browser]
) -> None:
    make_user(hub, "ann@example.com", merchant=shop)
    plain = browse().sign_in("ann@example.com")
    cookie = plain.headers.get_list("set-cookie")
    session = next(c for c in cookie if c.startswith("payhub_portal="))
    assert "HttpOnly" in session
    assert "SameSite=lax" in session
    assert "Secure" not in session
    https = browse("https://testserver.local").sign_in("ann@example.com")
    session = next(
        c for c in https.headers.get_list("set-cookie") if c.startswith("__Host-payhub_portal=")
    )
    assert "HttpOnly" in session
    assert "Secure" in session
    assert "Path=/" in session
    assert "Domain" not in session


def test_sign_in_rotates_the_session_and_a_planted_one_opens_nothing(
    hub: PayHub, shop: str, browse: Callable[..., Browser]
) -> None:
    make_user(hub, "ann@example.com", merchant=shop)
    b = browse()
    # An attacker fixes a session id of their choosing in the victim's browser: it is nobody's.
    planted = "attacker-chosen-session-id-0123456789abcdef"
    b.client.cookies.set("payhub_portal", planted, domain="testserver.local")
    assert b.get("/portal").status_code == 303
    b.sign_in("ann@example.com")
    first = b.cookie()
    assert first
    assert first != planted
    # Signing in again (the attacker knew the first id) gives a new id and ends the old one.
    b.sign_in("ann@example.com")
    second = b.cookie()
    assert second
    assert second != first
    stale = browse()
    stale.client.cookies.set("payhub_portal", first, domain="testserver.local")
    assert stale.get("/portal").status_code == 303
    # The database holds digests only: the cookie's value is nowhere in it.
    with hub.store.unit_of_work() as uow:
        assert uow.portal_sessions.get(second) is None


def test_sessions_expire_when_idle_and_at_their_absolute_end(
    hub: PayHub, shop: str, clock: FixedClock, browse: Callable[..., Browser]
) -> None:
    make_user(hub, "ann@example.com", merchant=shop)
    b = browse()
    b.sign_in("ann@example.com")
    for _ in range(3):
        clock.advance(timedelta(minutes=25))  # active within the 30-minute idle limit
        assert b.get("/portal").status_code == 200
    clock.advance(timedelta(minutes=31))
    assert b.get("/portal").status_code == 303  # idle too long
    b.sign_in("ann@example.com")
    signed_in_at = clock.now()
    for _ in range(31):
        clock.advance(timedelta(minutes=25))
        if b.get("/portal").status_code != 200:
            break
    else:
        pytest.fail("a session outlived its 12-hour absolute end")
    lasted = clock.now() - signed_in_at
    assert timedelta(hours=12) <= lasted < timedelta(hours=12, minutes=25)


def test_sign_out_ends_the_session(hub: PayHub, shop: str, browse: Callable[..., Browser]) -> None:
    make_user(hub, "ann@example.com", merchant=shop)
    b = browse()
    b.sign_in("ann@example.com")
    token = b.cookie()
    out = b.submit("/portal", "/portal/sign-out")
    assert out.status_code == 303
    assert out.headers["location"] == "/portal/sign-in"
    replay = browse()
    replay.client.cookies.set("payhub_portal", token or "", domain="testserver.local")
    assert replay.get("/portal").status_code == 303


def test_brute_force_is_throttled_per_account(
    hub: PayHub, shop: str, browse: Callable[..., Browser]
) -> None:
    make_user(hub, "ann@example.com", merchant=shop)
    b = browse()
    for _ in range(5):
        assert b.sign_in("ann@example.com", "wrong password number x").status_code == 401
    # Even the right password is refused now, without saying whether it was right.
    blocked = b.sign_in("ann@example.com")
    assert blocked.status_code == 429
    assert "Retry-After" in blocked.headers
    assert b.get("/portal").status_code == 303
    # Another account from the same address is still fine.
    make_user(hub, "bob@example.com", merchant=shop, name="Bob")
    assert browse().sign_in("bob@example.com").status_code == 303


def test_brute_force_is_throttled_per_address(
    hub: PayHub, shop: str, browse: Callable[..., Browser]
) -> None:
    make_user(hub, "ann@example.com", merchant=shop)
    b = browse()
    for n in range(30):
        assert b.sign_in(f"guess{n}@example.com", "wrong password number x").status_code == 401
    assert b.sign_in("ann@example.com").status_code == 429


def test_two_factor_sign_in(
    hub: PayHub, shop: str, clock: FixedClock, browse: Callable[..., Browser]
) -> None:
    user = make_user(hub, "ann@example.com", merchant=shop)
    secret, recovery = enable_totp(hub, user.id)
    assert len(recovery) == 10
    assert len(set(recovery)) == 10
    b = browse()
    first = b.sign_in("ann@example.com")
    assert first.status_code == 303
    assert first.headers["location"] == "/portal/sign-in/code"
    pending = b.cookie()
    assert b.get("/portal").status_code == 303  # the password alone opens nothing
    assert b.code("000000").status_code == 401
    assert b.code("\u0661\u0662\u0663\u0664\u0665\u0666").status_code == 401  # not ASCII digits
    clock.advance(timedelta(seconds=30))
    done = b.code(totp_now(secret, hub))
    assert done.status_code == 303
    assert done.headers["location"] == "/portal"
    assert b.cookie() != pending  # rotated again once the code is in
    assert b.get("/portal").status_code == 200
    # The same code does not sign in twice.
    other = browse()
    other.sign_in("ann@example.com")
    assert other.code(totp_now(secret, hub)).status_code == 401
    # A recovery code signs in once.
    third = browse()
    third.sign_in("ann@example.com")
    assert third.code(recovery[0].upper()).status_code == 303
    fourth = browse()
    fourth.sign_in("ann@example.com")
    assert fourth.code(recovery[0]).status_code == 401


def test_the_pending_session_expires(
    hub: PayHub, shop: str, clock: FixedClock, browse: Callable[..., Browser]
) -> None:
    user = make_user(hub, "ann@example.com", merchant=shop)
    secret, _ = enable_totp(hub, user.id)
    b = browse()
    b.sign_in("ann@example.com")
    page = b.get("/portal/sign-in/code")
    clock.advance(timedelta(minutes=6))
    late = b.post(
        "/portal/sign-in/code", {"csrf_token": csrf_of(page.text), "code": totp_now(secret, hub)}
    )
    assert late.status_code == 303
    assert late.headers["location"] == "/portal/sign-in"


def test_two_factor_set_up_from_the_account_page(
    hub: PayHub, shop: str, clock: FixedClock, browse: Callable[..., Browser]
) -> None:
    import re

    make_user(hub, "ann@example.com", merchant=shop)
    b = browse()
    b.sign_in("ann@example.com")
    started = b.submit("/portal/account", "/portal/account/two-factor")
    assert started.status_code == 200
    secret = re.search(r'id="totp-secret">([A-Z2-7]+)<', started.text)
    assert secret
    wrong = b.post(
        "/portal/account/two-factor/confirm", {"csrf_token": csrf_of(started.text), "code": "123"}
    )
    assert wrong.status_code == 400
    assert secret.group(1) in wrong.text
    on = b.post(
        "/portal/account/two-factor/confirm",
        {"csrf_token": csrf_of(started.text), "code": totp_now(secret.group(1), hub)},
    )
    assert on.status_code == 200
    assert "recovery codes" in on.text
    assert hub.portal.get_user("ann@example.com").totp_enabled
    off = b.submit("/portal/account", "/portal/account/two-factor/off", {"password": PASSWORD})
    assert off.status_code == 303
    assert not hub.portal.get_user("ann@example.com").totp_enabled


def test_disabling_a_user_ends_its_sessions(
    hub: PayHub, shop: str, browse: Callable[..., Browser]
) -> None:
    make_user(hub, "ann@example.com", merchant=shop)
    b = browse()
    b.sign_in("ann@example.com")
    hub.portal.disable("ann@example.com")
    assert b.get("/portal").status_code == 303
    assert b.sign_in("ann@example.com").status_code == 401


# --- the provider's one-time sign-in links (POST M/portal-sessions) --------------------------


def test_a_portal_session_link_signs_the_user_in_once(
    hub: PayHub,
    shop: str,
    sandbox_provider: Account,
    client: TestClient[Litestar],
    browse: Callable[..., Browser],
    clock: FixedClock,
) -> None:
    make_user(hub, "staff@example.com", role="staff", merchant=shop, password=None, name="Sam")
    made = client.post(
        f"/api/merchant-accounts/{shop}/portal-sessions",
        json={"user": "staff@example.com"},
        headers=sandbox_provider.headers,
    )
    assert made.status_code == 201, made.text
    body: dict[str, Any] = made.json()
    assert body["role"] == "staff"
    assert body["email"] == "staff@example.com"
    assert body["expiresAtUtc"] == (clock.now() + timedelta(minutes=5)).isoformat().replace(
        "+00:00", "Z"
    )
    b = browse()
    path = "/portal/link/" + token_of(body["url"])
    page = b.get(path)
    assert page.status_code == 200
    assert "Sam" in page.text
    used = b.post(path, {"csrf_token": csrf_of(page.text)})
    assert used.status_code == 303
    assert used.headers["location"] == "/portal"
    assert "Sam" in b.get("/portal").text
    assert browse().get(path).status_code == 404  # once


def test_portal_session_links_expire(
    hub: PayHub,
    shop: str,
    sandbox_provider: Account,
    client: TestClient[Litestar],
    browse: Callable[..., Browser],
    clock: FixedClock,
) -> None:
    make_user(hub, "staff@example.com", role="staff", merchant=shop, password=None)
    body = client.post(
        f"/api/merchant-accounts/{shop}/portal-sessions",
        json={"user": "staff@example.com"},
        headers=sandbox_provider.headers,
    ).json()
    clock.advance(timedelta(minutes=5))
    assert browse().get("/portal/link/" + token_of(body["url"])).status_code == 404


def test_portal_session_links_need_the_merchants_own_user_and_a_provider_key(
    hub: PayHub,
    shop: str,
    sandbox_provider: Account,
    other_provider: Account,
    client: TestClient[Litestar],
) -> None:
    make_user(hub, "ann@example.com", merchant=shop)
    hub.provider(hub.as_provider(sandbox_provider.provider.id)).merchants.create("b-2", "B")
    make_user(hub, "bee@example.com", merchant="b-2", name="Bee")
    url = f"/api/merchant-accounts/{shop}/portal-sessions"
    # another merchant's user
    bee = client.post(url, json={"user": "bee@example.com"}, headers=sandbox_provider.headers)
    assert bee.status_code == 404
    # another provider's key does not see the merchant at all
    theirs = client.post(url, json={"user": "ann@example.com"}, headers=other_provider.headers)
    assert theirs.status_code == 404
    # a merchant key may not
    key = hub.operators.issue_key(sandbox_provider.provider.id, shop).secret
    merchant = client.post(url, json={"user": "ann@example.com"}, headers={"X-Api-Key": key})
    assert merchant.status_code == 403
    bad = client.post(url, json={"who": "x"}, headers=sandbox_provider.headers)
    assert bad.status_code == 400
    hub.portal.disable("ann@example.com")
    gone = client.post(url, json={"user": "ann@example.com"}, headers=sandbox_provider.headers)
    assert gone.status_code == 409


def test_a_link_still_asks_for_the_second_factor(
    hub: PayHub,
    shop: str,
    sandbox_provider: Account,
    client: TestClient[Litestar],
    browse: Callable[..., Browser],
) -> None:
    user = make_user(hub, "ann@example.com", merchant=shop)
    _secret, _ = enable_totp(hub, user.id)
    body = client.post(
        f"/api/merchant-accounts/{shop}/portal-sessions",
        json={"user": user.id},
        headers=sandbox_provider.headers,
    ).json()
    b = browse()
    path = "/portal/link/" + token_of(body["url"])
    used = b.post(path, {"csrf_token": csrf_of(b.get(path).text)})
    assert used.headers["location"] == "/portal/sign-in/code"
    assert b.get("/portal").status_code == 303


def test_environments_never_mix(
    hub: PayHub,
    browse: Callable[..., Browser],
    new_provider: Callable[..., Account],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    live = new_provider("Live", Environment.PRODUCTION)
    hub.provider(hub.as_provider(live.provider.id)).merchants.create("live-1", "Live Shop")
    make_user(hub, "live@example.com", merchant="live-1", name="Lee")
    b = browse()
    b.sign_in("live@example.com")
    home = b.get("/portal")
    assert "Production: real customers and real money" in home.text
    assert "env-production" in home.text
    # A server that serves the sandbox portal only refuses the production account's session.
    monkeypatch.setenv("PAYHUB_PORTAL_ENVIRONMENT", "Sandbox")
    assert b.get("/portal").status_code == 303
    refused = browse().sign_in("live@example.com")
    assert refused.status_code == 403
    assert "Production" in refused.text
