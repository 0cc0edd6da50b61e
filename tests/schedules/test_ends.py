"""Recurring schedules made over HTTP end exactly where they should when the worker drives
them with the FixedClock: at an inclusive `endDate` in the merchant's zone, at `maxCharges`,
and at whichever comes first; then nothing runs again."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from payhub.adapters.system import FixedClock
from payhub.domain.schedules import RunOutcome, ScheduleStatus
from payhub.services.worker import Pass
from tests.customers.support import Shop

NEW_YORK = ZoneInfo("America/New_York")
# 23:30 in New York (EDT, UTC-4) on Friday 14 March 2025 is 03:30 UTC on the 15th, so a UTC
# reading of `endDate` would stop a day early: the zone is what is being tested.
FIRST_RUN = datetime(2025, 3, 15, 3, 30, tzinfo=UTC)
QUEUE = "scheduled-payments"


def charged(shop: Shop, sid: str) -> list[Any]:
    """The schedule's succeeded runs, oldest first."""
    return shop.read(
        lambda uow, m: [
            r
            for r in reversed(uow.scheduled_payments.runs(sid, 100))
            if r.outcome is RunOutcome.SUCCEEDED
        ]
    )


def drive(shop: Shop, sid: str, clock: FixedClock, run_worker: Callable[[], Pass]) -> int:
    """Move the clock to each planned run and let the worker take it; the passes made."""
    passes = 0
    while due := shop.read(lambda uow, m: uow.scheduled_payments.get(m, sid)).next_run_at:
        assert passes < 50, "the schedule never ended"
        clock.set(due - timedelta(seconds=1))
        run_worker()  # not due yet: nothing happens
        assert shop.read(lambda uow, m: uow.scheduled_payments.get(m, sid)).next_run_at == due
        clock.set(due)
        run_worker()
        passes += 1
    return passes


CASES = {
    # Daily at 23:30 local, from the 14th: the 14th, 15th and 16th (inclusive) are charged.
    "end-date": ({"cadence": "Daily", "endDate": "2025-03-16"}, 3),
    # maxCharges before the end date: it stops at two.
    "max-charges-first": ({"cadence": "Daily", "endDate": "2025-03-20", "maxCharges": 2}, 2),
    # The end date before maxCharges: weekly on the 14th and 21st, the 28th is after the end.
    "end-date-first": ({"cadence": "Weekly", "endDate": "2025-03-27", "maxCharges": 5}, 2),
    # maxCharges alone.
    "max-charges": ({"cadence": "Monthly", "maxCharges": 3}, 3),
}


@pytest.mark.parametrize(("fields", "expected"), list(CASES.values()), ids=list(CASES))
def test_a_recurring_schedule_completes_exactly_at_its_end(
    shop: Shop,
    customer: dict[str, Any],
    save_card: Callable[..., str],
    clock: FixedClock,
    run_worker: Callable[[], Pass],
    fields: dict[str, Any],
    expected: int,
) -> None:
    shop.hub.provider(shop.hub.as_provider(shop.account.provider.id)).merchant(
        shop.ref
    ).set_time_zone("America/New_York")
    body = {
        "customerId": customer["customerId"],
        "paymentMethodId": save_card(),
        "startAtUtc": FIRST_RUN.isoformat().replace("+00:00", "Z"),
        "amount": 25,
        "currency": "USD",
        **fields,
    }
    made = shop.created("/scheduled-payments", body)
    sid = made["scheduledPaymentId"]
    assert (made["status"], made["chargeCount"], made["timeZone"]) == (
        "Active",
        0,
        "America/New_York",
    )
    assert made.get("endDate") == fields.get("endDate")
    assert made.get("maxCharges") == fields.get("maxCharges")

    assert drive(shop, sid, clock, run_worker) == expected

    stored = shop.read(lambda uow, m: uow.scheduled_payments.get(m, sid))
    assert (stored.status, stored.charges, stored.next_run_at) == (
        ScheduleStatus.COMPLETED,
        expected,
        None,
    )
    done = charged(shop, sid)
    assert [r.run_number for r in done] == list(range(1, expected + 1))
    local = [r.scheduled_for.astimezone(NEW_YORK) for r in done]
    assert {(t.hour, t.minute) for t in local} == {(23, 30)}
    if "endDate" in fields:
        assert max(t.date().isoformat() for t in local) <= fields["endDate"]
    txs = shop.read(lambda uow, m: uow.transactions.list(m, limit=100))
    assert sorted(tx.id for tx in txs) == sorted(r.transaction_id for r in done)
    out = shop.ok(shop.get(f"/scheduled-payments/{sid}"))
    assert (out["status"], out["chargeCount"], out["nextRunAtUtc"]) == ("Completed", expected, None)
    assert shop.read(lambda uow, m: uow.jobs.count(QUEUE, done=False)) == 0

    # No further runs, however long the worker keeps going.
    for _ in range(3):
        clock.advance(timedelta(days=40))
        run_worker()
    assert len(charged(shop, sid)) == expected
    assert len(shop.read(lambda uow, m: uow.transactions.list(m, limit=100))) == expected
    assert shop.read(lambda uow, m: uow.scheduled_payments.get(m, sid)).status is (
        ScheduleStatus.COMPLETED
    )
