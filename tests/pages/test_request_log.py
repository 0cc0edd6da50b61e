"""The request log never carries a public page's link token: it is the key to the invoice."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator

import pytest
import structlog
from litestar import Litestar
from litestar.testing import TestClient

from payhub.logging import configure_logging
from payhub_server.requestlog import loggable_path
from tests.conftest import Account
from tests.pages.support import Shop, config_of, token_of

SAME_ORIGIN = {"Origin": "http://testserver.local", "Sec-Fetch-Site": "same-origin"}


@pytest.fixture
def log() -> Iterator[io.StringIO]:
    saved = structlog.get_config()
    stream = io.StringIO()
    configure_logging("json", stream=stream)
    try:
        yield stream
    finally:
        structlog.reset_defaults()
        structlog.configure(**saved)


def test_page_paths_are_logged_with_a_short_token_prefix_only(
    log: io.StringIO, client: TestClient[Litestar], sandbox_provider: Account
) -> None:
    shop = Shop(client, sandbox_provider)
    invoice = shop.invoice()
    token = token_of(invoice)
    log.truncate(0)
    log.seek(0)

    attempt = config_of(client.get(f"/pay/{token}").text)["attemptToken"]
    paid = client.post(
        f"/pay/{token}/payments",
        json={"attemptToken": attempt, "paymentMethodToken": "sim_card_ok", "methodType": "Card"},
        headers=SAME_ORIGIN,
    )
    assert paid.status_code == 200, paid.text
    assert shop.read(invoice["invoiceNumber"])["status"] == "Paid"
    sent = [
        client.get(f"/pay/{token}/receipt"),
        client.get(f"/pay/{token}/receipt.pdf"),
        client.get(f"/embed/{token}"),  # 409 page: no allowed website, still logged
        client.get(f"/approve/{token}"),  # not a schedule request: 404, still logged
    ]
    assert [r.status_code for r in sent] == [200, 200, 409, 404]

    records = [json.loads(line) for line in log.getvalue().splitlines() if line.strip()]
    paths = [r["path"] for r in records if r.get("event") == "request"]
    paths = [p for p in paths if not p.startswith("/api/")]
    short = token[:6]
    assert paths == [
        f"/pay/{short}...",
        f"/pay/{short}.../payments",
        f"/pay/{short}.../receipt",
        f"/pay/{short}.../receipt.pdf",
        f"/embed/{short}...",
        f"/approve/{short}...",
    ]
    assert token not in log.getvalue()
    assert token[:12] not in log.getvalue()


def test_other_paths_are_logged_as_they_are() -> None:
    assert loggable_path("/api/merchant-accounts/shop/invoices/INV-000001") == (
        "/api/merchant-accounts/shop/invoices/INV-000001"
    )
    assert loggable_path("/static/pay-page.js") == "/static/pay-page.js"
    assert loggable_path("/payments") == "/payments"
