"""One JSON log line per request, with its id and outcome, and never a key or a secret."""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import structlog
from litestar import Litestar
from litestar.testing import TestClient

from payhub.logging import configure_logging
from tests.conftest import Account, api_headers

Client = TestClient[Litestar]
SECRET = "sk_live_do_not_log_me_4f8a2c"
FIELD_SECRET = "bt_public_key_do_not_log_me"


@pytest.fixture
def log() -> Iterator[io.StringIO]:
    """Capture payhub's log lines as JSON, and put the previous configuration back after."""
    saved = structlog.get_config()
    stream = io.StringIO()
    configure_logging("json", stream=stream)
    try:
        yield stream
    finally:
        structlog.reset_defaults()
        structlog.configure(**saved)


def lines(stream: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.getvalue().splitlines() if line.strip()]


def test_each_request_logs_one_line_without_keys_or_secrets(
    log: io.StringIO,
    client: Client,
    sandbox_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
    merchant_key: Callable[[Account, str], str],
) -> None:
    make_merchant(sandbox_provider, "shop-1")
    shop_key = merchant_key(sandbox_provider, "shop-1")
    log.truncate(0)
    log.seek(0)
    h = sandbox_provider.headers
    body = {
        "apiSecret": SECRET,
        "environment": "Sandbox",
        "additionalFields": {"merchantId": "m", "publicKey": FIELD_SECRET},
    }
    sent = [
        client.get("/api/gateways", headers=h),
        client.put("/api/merchant-accounts/shop-1/credentials/braintree", json=body, headers=h),
        client.put(
            "/api/merchant-accounts/shop-1/credentials/braintree",
            json=body,
            headers=api_headers(shop_key),
        ),
        client.put(
            "/api/merchant-accounts/shop-1/credentials/stripe",
            json={**body, "environment": "Production"},
            headers=h,
        ),
        client.get(f"/api/merchant-accounts/shop-1?apiKey={sandbox_provider.key}", headers=h),
        client.get(f"/api/merchant-accounts/{sandbox_provider.key}", headers=h),
        client.get(f"/api/merchant-accounts/{shop_key}", headers=h),
        client.get("/api/gateways", headers={"X-Api-Key": sandbox_provider.key + "x"}),
        client.get("/nope", headers={"Authorization": f"Bearer {SECRET}"}),
        client.delete("/healthz"),
    ]
    assert [r.status_code for r in sent] == [200, 200, 200, 400, 200, 404, 404, 401, 404, 405]

    records = lines(log)
    requests = [r for r in records if r["event"] == "request"]
    assert len(requests) == len(sent)
    for record, response in zip(requests, sent, strict=True):
        assert record["request_id"] == response.headers["x-request-id"]
        assert record["method"] == response.request.method
        assert record["status"] == response.status_code
        assert isinstance(record["duration_ms"], int | float)
        assert record["duration_ms"] >= 0
        assert record["level"] == "info"
        assert "?" not in record["path"]  # query strings may carry tokens
    assert requests[0]["path"] == "/api/gateways"
    assert requests[1]["path"] == "/api/merchant-accounts/shop-1/credentials/braintree"
    assert "[redacted]" in requests[5]["path"]

    text = log.getvalue()
    for secret in (sandbox_provider.key, shop_key, SECRET, FIELD_SECRET):
        assert secret not in text
    # Not even the secret half of a key on its own.
    for key in (sandbox_provider.key, shop_key):
        assert key.rsplit("_", 1)[1] not in text


def test_an_incoming_request_id_is_logged(log: io.StringIO, client: Client) -> None:
    client.get("/healthz", headers={"X-Request-Id": "lb-trace-42"})
    [record] = [r for r in lines(log) if r["event"] == "request"]
    assert record["request_id"] == "lb-trace-42"
    assert record["path"] == "/healthz"


def test_a_served_app_writes_the_lines_from_a_background_thread(
    log: io.StringIO,
    client: Client,
    sandbox_provider: Account,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The served app hands each line to a writer thread; nothing is lost or reordered,
    redaction still applies, and a flush (as at shutdown) writes everything handed over."""
    from payhub_server import requestlog

    writer = requestlog._Background()
    monkeypatch.setattr(requestlog, "_background", writer)
    requestlog.write_in_background()
    sent = [client.get("/healthz", headers={"X-Request-Id": f"bg-{i}"}) for i in range(50)]
    sent.append(client.get(f"/api/merchant-accounts/{sandbox_provider.key}", headers={}))
    requestlog.flush()
    assert writer._thread is not None
    assert writer._thread.name == "payhub-request-log"
    requests = [r for r in lines(log) if r["event"] == "request"]
    assert [r["request_id"] for r in requests] == [s.headers["x-request-id"] for s in sent]
    assert requests[-1]["status"] == 401
    assert sandbox_provider.key not in log.getvalue()
