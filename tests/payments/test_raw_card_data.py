"""Raw card and bank numbers are refused before storage or logging: grep both to prove it."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import structlog
from litestar import Litestar
from litestar.testing import TestClient

from payhub.logging import configure_logging
from tests.payments.conftest import CountingGateway, charge_body

CARD = "4242 4242 4242 4242"
DIGITS = CARD.replace(" ", "")


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


@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize(
    "body",
    [
        {**charge_body(), "description": f"card {CARD}"},
        {**charge_body(), "card": {"number": "4111111111111111", "cvc": "123"}},
        {**charge_body(), "paymentMethodToken": DIGITS},
        {**charge_body(), "bankAccount": {"routingNumber": "110000000", "accountNumber": "1"}},
    ],
)
def test_a_card_number_is_refused_and_reaches_neither_log_nor_database(
    client: TestClient[Litestar],
    shop: dict[str, str],
    gateway: CountingGateway,
    log: io.StringIO,
    tmp_path: Path,
    body: dict[str, Any],
) -> None:
    response = client.post("/api/payments/charge", json=body, headers=shop)

    assert response.status_code == 400
    problem = response.json()
    assert problem["type"] == "/problems/raw-card-data"
    assert "hosted fields" in problem["detail"]
    assert gateway.calls["charge"] == 0
    written = log.getvalue()
    assert '"status": 400' in written
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("payhub.db*"))
    for needle in (DIGITS, "4111111111111111", "110000000"):
        assert needle not in written
        assert needle.encode() not in raw


def test_the_providers_own_customer_account_number_is_allowed() -> None:
    from payhub.domain.cardnumbers import forbidden_fields

    assert list(forbidden_fields({"accountNumber": "C-1001", "name": {"first": "Ada"}})) == []
    assert list(forbidden_fields({"bankAccount": {"accountNumber": "1"}})) == [
        "bankAccount.accountNumber"
    ]


# A 15-digit gateway merchant id that happens to pass the Luhn check, like Fiserv's.
LUHN_MERCHANT_ID = "100008000000002"


def test_a_luhn_valid_gateway_merchant_id_is_accepted_in_credentials_only(
    client: TestClient[Litestar], shop: dict[str, str]
) -> None:
    from payhub.domain.cardnumbers import contains_card_number

    assert contains_card_number(LUHN_MERCHANT_ID)
    ref = shop["X-Merchant-Reference"]
    url = f"/api/merchant-accounts/{ref}/credentials/fiserv"
    headers = {"X-Api-Key": shop["X-Api-Key"]}
    body = {
        "apiSecret": "secret-" + LUHN_MERCHANT_ID,
        "environment": "Sandbox",
        "enabled": True,
        "additionalFields": {
            "apiKey": "key-1",
            "merchantId": LUHN_MERCHANT_ID,
            "terminalId": "10000001",
        },
    }
    accepted = client.put(url, json=body, headers=headers)
    assert accepted.status_code == 200, accepted.text

    # Card-only field names are refused even inside the credentials' own fields...
    carded = {**body, "additionalFields": {**body["additionalFields"], "cardNumber": "x"}}
    refused = client.put(url, json=carded, headers=headers)
    assert refused.status_code == 400
    assert refused.json()["type"] == "/problems/raw-card-data"
    # ...and a card number anywhere else in that body, or on any other route, still is.
    stray = client.put(url, json={**body, "environment": CARD}, headers=headers)
    assert stray.json()["type"] == "/problems/raw-card-data"
    elsewhere = client.post(
        "/api/payments/charge",
        json={**charge_body(), "description": LUHN_MERCHANT_ID},
        headers=shop,
    )
    assert elsewhere.json()["type"] == "/problems/raw-card-data"
