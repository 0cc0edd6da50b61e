"""One Idempotency-Key, two server processes on one database: one charge, whoever answers."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from payhub import PayHub
from tests.e2e.servers import create_provider, servers
from tests.pg import isolated_schema, postgres_url_or_skip

pytestmark = pytest.mark.slow

BODY = {
    "amount": {"value": 42.00, "currency": "USD"},
    "gatewayName": "simulator",
    "paymentMethodToken": "sim_card_ok",
}


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'payhub.db'}"
    else:
        with isolated_schema(postgres_url_or_skip()) as url:
            yield url


def test_a_key_sent_to_two_processes_at_once_charges_once(db_url: str, tmp_path: Path) -> None:
    key = create_provider(db_url, tmp_path)
    headers = {"X-Api-Key": key}
    with servers(db_url, tmp_path, 2) as (first, second):
        httpx.post(
            f"{first}/api/merchant-accounts",
            headers=headers,
            json={"externalReference": "shop", "displayName": "Shop"},
        ).raise_for_status()
        # Latency keeps the first charge in flight while the others arrive.
        httpx.put(
            f"{second}/api/merchant-accounts/shop/credentials/simulator",
            headers=headers,
            json={
                "apiSecret": "s",
                "environment": "Sandbox",
                "additionalFields": {"latencyMs": "700"},
            },
        ).raise_for_status()
        charge_headers = {**headers, "X-Merchant-Reference": "shop", "Idempotency-Key": "ord-1"}

        def fire(base: str) -> httpx.Response:
            return httpx.post(
                f"{base}/api/payments/charge", json=BODY, headers=charge_headers, timeout=30
            )

        with ThreadPoolExecutor(8) as pool:
            answers = list(pool.map(fire, [first, second] * 4))
        statuses = Counter(r.status_code for r in answers)
        assert set(statuses) <= {201, 409}, statuses
        assert statuses[201] >= 1
        ids = {r.json()["transactionId"] for r in answers if r.status_code == 201}
        assert len(ids) == 1
        # Once finished, either process replays the stored answer.
        for base in (first, second):
            replay = fire(base)
            assert replay.status_code == 201
            assert replay.headers["idempotent-replayed"] == "true"
            assert replay.json()["transactionId"] in ids

    hub = PayHub.open(db_url, key_file=tmp_path / "payhub.key")
    try:
        merchant = hub.operators.list_merchants()[0]
        with hub.store.unit_of_work() as uow:
            rows = uow.transactions.list(merchant.id)
            events = uow.transactions.events(rows[0].id)
        assert len(rows) == 1
        assert [e.kind.value for e in events] == ["charge"]
    finally:
        hub.close()
