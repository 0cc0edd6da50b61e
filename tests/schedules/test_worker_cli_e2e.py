"""``payhub worker --once``, the cron-style CLI process, charges a due run exactly once.

A real ``payhub serve`` process takes the merchant, customer, saved card and schedule over
HTTP; the worker is a separate CLI process on the same database file. The CLI has no clock to
inject, so the schedule starts *now* (the API allows a minute's grace), which makes its first
run due at once. Two passes in a row must charge once: the second finds the run done.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest

from tests.pages.live import Live, serve_public, start

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    tmp = tmp_path_factory.mktemp("worker")
    db_url, key = start(tmp)
    with serve_public(db_url, tmp) as base:
        server = Live(base, db_url, tmp, key)
        yield server
        server.api.close()


def test_worker_once_charges_a_due_run_exactly_once(live: Live) -> None:
    ref = live.merchant()
    m = f"/api/merchant-accounts/{ref}"
    customer_id = live.customer(ref)
    method = live.ok(
        live.api.post(
            f"{m}/customers/{customer_id}/payment-methods/simulator",
            json={"paymentMethodToken": "sim_card_ok_e2e"},
        ),
        201,
    )
    now = datetime.now(UTC).replace(microsecond=0)
    schedule = live.ok(
        live.api.post(
            f"{m}/scheduled-payments",
            json={
                "customerId": customer_id,
                "paymentMethodId": method["paymentMethodId"],
                "startAtUtc": now.isoformat(),
                "cadence": "Monthly",
                "amount": 25,
            },
        ),
        201,
    )
    sid = schedule["scheduledPaymentId"]

    def charges() -> list[dict[str, Any]]:
        answer = live.api.get("/api/payments/transactions", headers={"X-Merchant-Reference": ref})
        data: list[dict[str, Any]] = live.ok(answer)["data"]
        return data

    assert charges() == []

    first = live.cli("worker", "--once")
    assert "pass: 1 done" in first, first
    second = live.cli("worker", "--once")
    assert "pass:" not in second, second  # nothing was due: no job ran, nothing charged

    (charge,) = charges()
    assert charge["status"] == "Captured"
    assert (Decimal(str(charge["amount"]["value"])), charge["type"]) == (Decimal(25), "Card")
    got = live.ok(live.api.get(f"{m}/scheduled-payments/{sid}"))
    assert (got["status"], got["chargeCount"], got["failureCount"]) == ("Active", 1, 0)
    assert got["nextRunNumber"] == 2
    assert got["nextRunAtUtc"] > now.isoformat()
    (run,) = got["recentRuns"]
    assert (run["outcome"], run["runNumber"], run["attempt"]) == ("Succeeded", 1, 1)
    assert run["transactionId"] == charge["transactionId"]
