"""The QuickBooks Online page in Debian's chromium against a real ``payhub serve``, which
talks to the fake QuickBooks Online on a loopback port: connect through the sign-in, sync
now (the worker run beside it), see the result, disconnect; axe-core finds nothing serious.
Screenshots go to ``test-artifacts/portal/``."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Page, expect

from payhub import PayHub
from payhub.adapters.accounting.qbo import QuickBooksOnline
from payhub.services.worker import Worker
from tests.e2e.servers import serve
from tests.integrations.conftest import REALM
from tests.integrations.fakes.qbo import FakeQuickBooks
from tests.integrations.fakes.qbo_http import serve_fake
from tests.pages.live import Live, start
from tests.portal.support import PASSWORD, token_of
from tests.portal.test_portal_browser import serious, shot

pytestmark = [pytest.mark.browser, pytest.mark.slow]
PAGE = "/portal/integrations/accounting-online"


@pytest.fixture(scope="module")
def qbo() -> FakeQuickBooks:
    fake = FakeQuickBooks(lambda: datetime.now(UTC))
    fake.add_company(REALM, "Acme Books LLC")
    return fake


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory, qbo: FakeQuickBooks) -> Iterator[Live]:
    tmp: Path = tmp_path_factory.mktemp("qbo-live")
    db_url, key = start(tmp)
    with serve_fake(qbo, REALM) as fake_base:
        env = {
            "PAYHUB_QBO_CLIENT_ID": qbo.client_id,
            "PAYHUB_QBO_CLIENT_SECRET": qbo.client_secret,
            "PAYHUB_QBO_AUTHORIZE_URL": f"{fake_base}/connect/oauth2",
            "PAYHUB_QBO_TOKEN_URL": f"{fake_base}/oauth/oauth2/v1/tokens/bearer",
            "PAYHUB_QBO_REVOKE_URL": f"{fake_base}/oauth/v2/oauth2/tokens/revoke",
            "PAYHUB_QBO_API_URL": f"{fake_base}/api",
            "PAYHUB_QBO_WEBHOOK_VERIFIER": qbo.verifier,
        }
        with serve(db_url, tmp, public_url=True, log=True, extra_env=env) as base:
            # The server's redirect URI is its own callback (PAYHUB_PUBLIC_URL's).
            qbo.redirect_uri = f"{base}{PAGE}/callback"
            server = Live(base, db_url, tmp, key)
            yield server
            server.api.close()


def owner(live: Live, ref: str, email: str) -> None:
    hub = PayHub.open(live.db_url, key_file=live.cwd / "payhub.key")
    try:
        made = hub.portal.create_user(email, "Ann Owner", "owner", merchant_reference=ref)
        link = hub.portal.invite(made.id)
        hub.portal.accept_invite(token_of(link.url), PASSWORD)
    finally:
        hub.close()


def work(live: Live, qbo: FakeQuickBooks) -> None:
    """The worker beside the server, on its database, talking to the same fake."""
    adapter = QuickBooksOnline(qbo.config(), httpx.Client(transport=qbo.transport()))
    hub = PayHub.open(live.db_url, key_file=live.cwd / "payhub.key", accounting=adapter)
    try:
        Worker(hub.deps, hub.job_handlers(), "browser-test").run_once()
    finally:
        hub.close()


def test_connect_sync_and_disconnect_in_the_browser(
    live: Live, qbo: FakeQuickBooks, page: Page
) -> None:
    ref = live.merchant("Acme Plumbing")
    live.customer(ref)
    owner(live, ref, "owner@acme.example")
    page.goto(live.base + PAGE)
    page.get_by_label("Email address").fill("owner@acme.example")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_label("Password").press("Enter")
    expect(page.get_by_role("heading", name="QuickBooks Online")).to_be_visible()
    expect(page.locator("#accounting-status")).to_have_text("Not connected")
    assert serious(page) == []
    shot(page, "accounting-not-connected")

    page.get_by_role("link", name="Connect to QuickBooks").click()  # Intuit's sign-in, and back
    expect(page.get_by_role("status")).to_contain_text("QuickBooks Online is connected.")
    expect(page.locator("#accounting-status")).to_have_text("Connected")
    expect(page.locator("#accounting-company")).to_have_text("Acme Books LLC")

    page.get_by_role("button", name="Sync now").click()
    expect(page.get_by_role("status")).to_contain_text("A sync has started")
    work(live, qbo)
    page.reload()
    expect(page.locator("#accounting-last")).to_contain_text("succeeded")
    expect(page.locator("#accounting-last")).to_contain_text("customersCreated")
    assert len(qbo.records(REALM, "Customer")) == 1
    assert serious(page) == []
    shot(page, "accounting-connected")

    page.get_by_role("button", name="Disconnect").click()
    expect(page.locator("#accounting-status")).to_have_text("Disconnected")
    expect(page.locator("#accounting-reason")).to_have_text("disconnected by the merchant")
    expect(page.get_by_role("link", name="Reconnect to QuickBooks")).to_be_visible()
    shot(page, "accounting-disconnected")
