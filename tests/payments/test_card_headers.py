"""A card number in a header is refused like one in the body: before it is stored or logged.

Idempotency keys are stored and request ids are logged and echoed, so a client that puts a
card number there (an order number that is really a PAN) must get a 400, and neither the
log, the database nor the response may carry the number.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub.domain.cardnumbers import luhn_valid
from payhub_server.cardguard import UNSCANNED_HEADERS
from tests.payments.conftest import CountingGateway, charge_body
from tests.payments.test_raw_card_data import log  # noqa: F401 - the JSON log fixture

Client = TestClient[Litestar]
CARD = "4242424242424242"
NOT_A_CARD = "4242424242424241"  # one digit off: fails the Luhn check


@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize(
    ("header", "value"),
    [
        ("Idempotency-Key", CARD),
        ("Idempotency-Key", f"order-{CARD}"),
        ("Idempotency-Key", "4242 4242 4242 4242"),
        ("Idempotency-Key", "4242-4242-4242-4242"),
        ("X-Request-Id", CARD),
        ("X-Request-Id", f"req_{CARD}"),
        ("X-Merchant-Reference", CARD),
        ("X-Order-Note", f"paid with {CARD}"),
        ("User-Agent", f"shop/1.0 ({CARD})"),
        ("X-Api-Key", CARD),
    ],
)
def test_a_card_number_in_any_header_is_refused_and_never_stored_or_logged(
    client: Client,
    shop: dict[str, str],
    gateway: CountingGateway,
    log: io.StringIO,  # noqa: F811
    tmp_path: Path,
    header: str,
    value: str,
) -> None:
    response = client.post(
        "/api/payments/charge", json=charge_body(), headers={**shop, header: value}
    )

    assert response.status_code == 400, response.text
    problem = response.json()
    assert problem["type"] == "/problems/raw-card-data"
    assert problem["errors"][0]["field"].lower() == header.lower()
    assert problem["requestId"] == response.headers["x-request-id"]
    assert gateway.calls["charge"] == 0
    digits = CARD
    assert digits not in response.headers["x-request-id"]
    assert digits not in response.text
    written = log.getvalue()
    assert '"status": 400' in written
    assert digits not in written
    stored = b"".join(p.read_bytes() for p in tmp_path.glob("payhub.db*"))
    assert digits.encode() not in stored


@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)
def test_digits_that_are_not_a_card_number_pass(
    client: Client, shop: dict[str, str], gateway: CountingGateway
) -> None:
    assert not luhn_valid(NOT_A_CARD)
    response = client.post(
        "/api/payments/charge",
        json=charge_body(),
        headers={**shop, "Idempotency-Key": f"order-{NOT_A_CARD}", "X-Request-Id": NOT_A_CARD},
    )
    assert response.status_code == 201, response.text
    assert response.headers["x-request-id"] == NOT_A_CARD
    assert gateway.calls["charge"] == 1


@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)
@pytest.mark.parametrize("header", sorted(UNSCANNED_HEADERS))
def test_tracing_and_caching_ids_are_not_mistaken_for_card_numbers(
    client: Client, shop: dict[str, str], header: str
) -> None:
    # A W3C trace id whose first 16 hex digits happen to be decimal and Luhn-valid.
    value = f"00-{CARD}abcdefabcdefabcd-00f067aa0ba902b7-01"
    response = client.get("/api/payments/transactions", headers={**shop, header: value})
    assert response.status_code == 200, response.text


@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)
def test_a_card_number_in_a_header_is_refused_on_public_routes_too(client: Client) -> None:
    for path in ("/healthz", "/nope", "/pay/" + "t" * 24):
        response = client.get(path, headers={"Idempotency-Key": CARD})
        assert response.status_code == 400, (path, response.text)
        assert response.json()["type"] == "/problems/raw-card-data"
