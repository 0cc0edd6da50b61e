"""The portal in Debian's chromium against a real ``payhub serve``: signing in with and
without two-factor, the operator's main action, the keyboard, 375 px, and axe-core.

axe-core comes bundled in the ``axe-playwright-python`` wheel (nothing is fetched at run
time) and is evaluated in the page by playwright (outside the page's CSP). Serious and
critical violations fail the test. Screenshots go to ``test-artifacts/portal/``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyotp
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import Browser, Page, expect

from payhub import PayHub
from tests.pages.live import Live, serve_public, start
from tests.portal.support import PASSWORD, token_of

pytestmark = [pytest.mark.browser, pytest.mark.slow]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "portal"  # git-ignored
_AXE = Axe()


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    tmp = tmp_path_factory.mktemp("portal-live")
    db_url, key = start(tmp)
    with serve_public(db_url, tmp) as base:
        server = Live(base, db_url, tmp, key)
        yield server
        server.api.close()


def in_process(live: Live) -> PayHub:
    """The server's database, opened beside it (the operator's CLI does the same)."""
    return PayHub.open(live.db_url, key_file=live.cwd / "payhub.key")


def user(live: Live, email: str, role: str = "operator", merchant: str | None = None) -> str:
    hub = in_process(live)
    try:
        made = hub.portal.create_user(email, "Olive Operator", role, merchant_reference=merchant)
        link = hub.portal.invite(made.id)
        hub.portal.accept_invite(token_of(link.url), PASSWORD)
        return made.id
    finally:
        hub.close()


def shot(page: Page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def serious(page: Page) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations on the page as it is now."""
    results = _AXE.run(page)
    found: list[dict[str, Any]] = results.response["violations"]
    return [
        {"id": v["id"], "nodes": [n["target"] for n in v["nodes"]][:3]}
        for v in found
        if v["impact"] in ("serious", "critical")
    ]


def fits(page: Page, width: int) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.fixture
def phone(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 375, "height": 740})
    yield context.new_page()
    context.close()


def sign_in(page: Page, live: Live, email: str) -> None:
    page.goto(live.base + "/portal/operator/providers")
    expect(page).to_have_url(live.base + "/portal/sign-in?next=/portal/operator/providers")
    page.get_by_label("Email address").fill(email)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_label("Password").press("Enter")


def test_sign_in_without_two_factor(live: Live, page: Page) -> None:
    user(live, "plain@example.com")
    page.goto(live.base + "/portal")
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
    assert serious(page) == []
    shot(page, "sign-in")
    page.get_by_label("Email address").fill("plain@example.com")
    page.get_by_label("Password").fill("not the password")
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("alert")).to_contain_text("not right")
    assert serious(page) == []
    shot(page, "sign-in-refused")
    sign_in(page, live, "plain@example.com")
    expect(page).to_have_url(live.base + "/portal/operator/providers")
    expect(page.get_by_role("heading", name="Providers (Sandbox)")).to_be_visible()
    expect(page.get_by_text("Sandbox: test data only")).to_be_visible()
    # Signed in, the session cookie is out of reach of scripts.
    assert page.evaluate("document.cookie") == ""
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("heading", name="Sign in")).to_be_visible()


def test_sign_in_with_two_factor(live: Live, page: Page) -> None:
    uid = user(live, "twofa@example.com")
    hub = in_process(live)
    try:
        setup = hub.portal.begin_totp(uid)
        hub.portal.confirm_totp(uid, pyotp.TOTP(setup.secret).now())
    finally:
        hub.close()
    sign_in(page, live, "twofa@example.com")
    expect(page.get_by_role("heading", name="Two-factor sign-in")).to_be_visible()
    assert serious(page) == []
    shot(page, "two-factor")
    page.get_by_label("Code").fill("000000")
    page.get_by_role("button", name="Continue").click()
    expect(page.get_by_role("alert")).to_contain_text("not right")
    # The next time step's code (the last one accepted was set-up's).
    totp = pyotp.TOTP(setup.secret)
    code = totp.generate_otp(totp.timecode(__import__("datetime").datetime.now()) + 1)
    page.get_by_label("Code").fill(code)
    page.get_by_role("button", name="Continue").click()
    expect(page).to_have_url(live.base + "/portal/operator/providers")


def test_the_operator_creates_a_provider_and_revokes_a_key(live: Live, page: Page) -> None:
    user(live, "ops@example.com")
    sign_in(page, live, "ops@example.com")
    expect(page.get_by_role("heading", name="Providers (Sandbox)")).to_be_visible()
    assert serious(page) == []
    page.get_by_label("Name").fill("Fieldwork Software")
    page.get_by_role("button", name="Create provider").click()
    key = page.locator("#issued-key")
    expect(key).to_contain_text("phk_sandbox_")
    secret = key.inner_text()
    shot(page, "operator-provider-created")
    assert live.api.get("/api/merchant-accounts", headers={"X-Api-Key": secret}).status_code == 200
    section = page.get_by_role("region", name="Fieldwork Software")
    section.get_by_role("button", name="Revoke").click()
    expect(
        page.get_by_role("region", name="Fieldwork Software").get_by_text("Revoked")
    ).to_be_visible()
    assert live.api.get("/api/merchant-accounts", headers={"X-Api-Key": secret}).status_code == 401
    shot(page, "operator-key-revoked")


def test_pages_work_at_375_px_and_by_keyboard(live: Live, phone: Page) -> None:
    user(live, "small@example.com")
    phone.goto(live.base + "/portal/sign-in")
    fits(phone, 375)
    # Keyboard only: the skip link first, then the form.
    phone.keyboard.press("Tab")
    assert phone.evaluate("document.activeElement.textContent") == "Skip to content"
    phone.keyboard.press("Tab")  # the home link
    phone.keyboard.press("Tab")
    assert phone.evaluate("document.activeElement.id") == "email"
    phone.keyboard.type("small@example.com")
    phone.keyboard.press("Tab")
    phone.keyboard.type(PASSWORD)
    phone.keyboard.press("Tab")
    phone.keyboard.press("Enter")
    expect(phone.get_by_role("heading", name="Operator")).to_be_visible()
    for path, name in (
        ("/portal", "home"),
        ("/portal/operator/providers", "providers"),
        ("/portal/operator/short-links", "short-links"),
        ("/portal/operator/blocklist", "blocklist"),
        ("/portal/operator/jobs", "jobs"),
        ("/portal/operator/senders", "senders"),
        ("/portal/account", "account"),
    ):
        phone.goto(live.base + path)
        expect(phone.get_by_text("Sandbox: test data only")).to_be_visible()
        fits(phone, 375)
        assert serious(phone) == [], path
        shot(phone, f"phone-{name}")
    # The blocklist's action by keyboard: type, Enter.
    phone.goto(live.base + "/portal/operator/blocklist")
    phone.get_by_label("Domain to block").focus()
    phone.keyboard.type("phish.example")
    phone.keyboard.press("Enter")
    expect(phone.get_by_role("status")).to_contain_text("phish.example is blocked")
    shot(phone, "phone-blocked")


def test_the_axe_check_can_fail(live: Live, page: Page) -> None:
    """An unlabelled field and an image without text are serious violations: axe runs."""
    page.goto(live.base + "/portal/sign-in")
    page.evaluate(
        """() => { const i = document.createElement('input'); document.body.append(i);
                   const b = document.createElement('button'); document.body.append(b); }"""
    )
    assert {v["id"] for v in serious(page)} >= {"label", "button-name"}
