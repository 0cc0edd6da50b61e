"""Scheduled payments over HTTP on both stores: create, list, get, the state moves, run-now,
and what the worker does with due runs, asserted in the database."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest

from payhub import PayHub
from payhub.adapters.system import FixedClock
from payhub.domain.schedules import RunOutcome, ScheduleStatus
from payhub.services.worker import Pass, Worker
from tests.customers.support import Shop
from tests.schedules.conftest import Crash, GatewayBook, at


def flat(cid: str, pm: str, clock: FixedClock, **extra: Any) -> dict[str, Any]:
    return {
        "customerId": cid,
        "paymentMethodId": pm,
        "startAtUtc": at(clock, hours=1),
        "amount": 25,
        "currency": "USD",
        **extra,
    }


def schedule_row(shop: Shop, sid: str) -> Any:
    return shop.read(lambda uow, m: uow.scheduled_payments.get(m, sid))


def runs(shop: Shop, sid: str) -> Any:
    return shop.read(lambda uow, m: list(reversed(uow.scheduled_payments.runs(sid, 100))))


def charges(shop: Shop) -> list[Any]:
    return shop.read(lambda uow, m: uow.transactions.list(m, limit=100))


def test_create_a_monthly_schedule_and_read_it_back(
    shop: Shop, customer: dict[str, Any], save_card: Callable[..., str], clock: FixedClock
) -> None:
    pm = save_card()
    body = shop.created(
        "/scheduled-payments",
        flat(customer["customerId"], pm, clock, cadence="Monthly", maxCharges=12),
    )
    assert body["status"] == "Active"
    assert body["kind"] == "Recurring"
    assert body["amount"] == 25
    assert body["gateway"] == "simulator"
    assert body["nextRunNumber"] == 1
    stored = schedule_row(shop, body["scheduledPaymentId"])
    assert stored.status is ScheduleStatus.ACTIVE
    assert stored.max_charges == 12
    assert stored.bill_to is None  # blank: the customer's address at each run
    got = shop.ok(shop.get(f"/scheduled-payments/{body['scheduledPaymentId']}"))
    assert got["recentRuns"] == []
    listed = shop.ok(shop.get("/scheduled-payments", params={"status": "Active"}))
    assert [s["scheduledPaymentId"] for s in listed["data"]] == [body["scheduledPaymentId"]]
    with shop.hub.store.unit_of_work() as uow:
        assert uow.jobs.count("scheduled-payments", done=False) == 1


@pytest.mark.parametrize(
    ("change", "status", "field"),
    [
        ({"paymentMethodId": "pm_nope"}, 400, "paymentMethodId"),
        ({"customerId": "cus_nope"}, 404, None),
        ({"startAtUtc": "2020-01-01T00:00:00Z"}, 400, "startAtUtc"),
        ({"cadence": None, "maxCharges": 3}, 400, "maxCharges"),
        ({"amount": None}, 400, "amount"),
        ({"amount": 1.234}, 400, "amount"),
        ({"billToAddress": {"line1": "x" * 201}}, 400, "billToAddress.line1"),
        ({"amount": 5, "taxRatePercent": 10}, 400, "amount"),
        ({"amount": 0}, 400, "amount"),
        ({"amount": -5}, 400, "amount"),
        ({"maxCharges": 0}, 400, "maxCharges"),
        ({"cadence": "Fortnightly"}, 400, "cadence"),
        ({"endDate": "2000-01-01"}, 400, "endDate"),
        ({"shipToAddress": {"postalCode": "9" * 21}}, 400, "shipToAddress.postalCode"),
        ({"billToAddress": {"city": "c" * 101}}, 400, "billToAddress.city"),
        (
            {
                "amount": None,
                "lineItems": [
                    {"description": "x", "quantity": 1, "unitPrice": 2, "productId": "prd_other"}
                ],
            },
            400,
            "lineItems[0].productId",
        ),
    ],
)
def test_bad_input_is_refused_and_changes_nothing(
    shop: Shop,
    customer: dict[str, Any],
    save_card: Callable[..., str],
    clock: FixedClock,
    change: dict[str, Any],
    status: int,
    field: str | None,
) -> None:
    pm = save_card()
    body = {**flat(customer["customerId"], pm, clock, cadence="Weekly"), **change}
    response = shop.post("/scheduled-payments", body)
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    problem = response.json()
    assert problem["status"] == status
    assert problem["type"].startswith("/problems/")
    assert problem["title"]
    assert problem["detail"]
    if field:
        assert field in [f["field"] for f in problem["errors"]], response.text
    assert shop.read(lambda uow, m: uow.scheduled_payments.list(m)) == []
    with shop.hub.store.unit_of_work() as uow:
        assert uow.jobs.count("scheduled-payments", done=False) == 0


def test_a_removed_or_foreign_method_is_refused(
    shop: Shop, customer: dict[str, Any], save_card: Callable[..., str], clock: FixedClock
) -> None:
    other = shop.created("/customers", {"name": {"first": "Bob"}})["customerId"]
    foreign = save_card(customer_id=other)
    response = shop.post("/scheduled-payments", flat(customer["customerId"], foreign, clock))
    assert response.status_code == 400
    pm = save_card()
    shop.delete(f"/customers/{customer['customerId']}/payment-methods/{pm}")
    response = shop.post("/scheduled-payments", flat(customer["customerId"], pm, clock))
    assert response.status_code == 400
    assert shop.read(lambda uow, m: uow.scheduled_payments.list(m)) == []


def test_another_merchants_product_or_tax_rate_is_refused(
    shop: Shop,
    customer: dict[str, Any],
    save_card: Callable[..., str],
    clock: FixedClock,
    make_merchant: Callable[..., dict[str, Any]],
) -> None:
    make_merchant(shop.account, "other")
    other = Shop(shop.client, shop.hub, shop.account, "other")
    product = other.created("/products", {"name": "Tea", "unitPrice": 2})["productId"]
    rate = other.created("/tax-rates", {"name": "VAT", "percent": 20})["taxRateId"]
    body = flat(customer["customerId"], save_card(), clock)
    del body["amount"]
    lines = [{"description": "Tea", "quantity": 1, "unitPrice": 2, "productId": product}]
    response = shop.post("/scheduled-payments", body | {"lineItems": lines})
    assert response.status_code == 400, response.text
    assert [f["field"] for f in response.json()["errors"]] == ["lineItems[0].productId"]
    lines = [{"description": "Tea", "quantity": 1, "unitPrice": 2}]
    response = shop.post("/scheduled-payments", body | {"lineItems": lines, "taxRateId": rate})
    assert response.status_code == 400, response.text
    assert [f["field"] for f in response.json()["errors"]] == ["taxRateId"]
    assert shop.read(lambda uow, m: uow.scheduled_payments.list(m)) == []


def test_a_retried_create_with_the_same_idempotency_key_makes_one_schedule(
    shop: Shop, customer: dict[str, Any], save_card: Callable[..., str], clock: FixedClock
) -> None:
    body = flat(customer["customerId"], save_card(), clock, cadence="Daily")
    headers = {"Idempotency-Key": "create-1"}
    first = shop.post("/scheduled-payments", body, headers=headers)
    assert first.status_code == 201, first.text
    again = shop.post("/scheduled-payments", body, headers=headers)
    assert again.status_code == 201
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert again.json()["scheduledPaymentId"] == first.json()["scheduledPaymentId"]
    (stored,) = shop.read(lambda uow, m: uow.scheduled_payments.list(m))
    assert stored.id == first.json()["scheduledPaymentId"]
    with shop.hub.store.unit_of_work() as uow:
        assert uow.jobs.count("scheduled-payments", done=False) == 1
    changed = shop.post("/scheduled-payments", body | {"amount": 26}, headers=headers)
    assert changed.status_code == 422
    assert len(shop.read(lambda uow, m: uow.scheduled_payments.list(m))) == 1


def test_pause_resume_cancel_and_the_illegal_moves(
    shop: Shop, customer: dict[str, Any], save_card: Callable[..., str], clock: FixedClock
) -> None:
    sid = shop.created(
        "/scheduled-payments", flat(customer["customerId"], save_card(), clock, cadence="Daily")
    )["scheduledPaymentId"]
    base = f"/scheduled-payments/{sid}"
    assert shop.post(f"{base}/resume").status_code == 409
    assert shop.ok(shop.post(f"{base}/pause"))["status"] == "Paused"
    assert schedule_row(shop, sid).status is ScheduleStatus.PAUSED
    assert shop.post(f"{base}/pause").status_code == 409
    assert shop.post(f"{base}/run-now").status_code == 409
    assert shop.ok(shop.post(f"{base}/resume"))["status"] == "Active"
    assert shop.ok(shop.post(f"{base}/cancel"))["status"] == "Cancelled"
    for move in ("pause", "resume", "cancel", "run-now"):
        response = shop.post(f"{base}/{move}")
        assert response.status_code == 409, move
        assert response.headers["content-type"].startswith("application/problem+json")
    assert schedule_row(shop, sid).status is ScheduleStatus.CANCELLED
    assert shop.get("/scheduled-payments/sch_nope").status_code == 404


def test_the_worker_charges_due_runs_and_stops_at_max_charges(
    shop: Shop,
    customer: dict[str, Any],
    save_card: Callable[..., str],
    clock: FixedClock,
    run_worker: Callable[[], Pass],
) -> None:
    sid = shop.created(
        "/scheduled-payments",
        flat(customer["customerId"], save_card(), clock, cadence="Weekly", maxCharges=2),
    )["scheduledPaymentId"]
    run_worker()
    assert charges(shop) == []  # not due yet
    clock.advance(timedelta(hours=1))
    run_worker()
    run_worker()  # a second pass takes nothing twice
    txs = charges(shop)
    assert len(txs) == 1
    assert txs[0].amount.amount == Decimal("25.00")
    stored = schedule_row(shop, sid)
    assert (stored.charges, stored.next_run_number) == (1, 2)
    assert stored.next_run_at == clock.now() + timedelta(days=7)
    clock.advance(timedelta(days=7))
    run_worker()
    stored = schedule_row(shop, sid)
    assert stored.status is ScheduleStatus.COMPLETED
    assert len(charges(shop)) == 2
    assert [r.outcome for r in runs(shop, sid)] == [RunOutcome.SUCCEEDED] * 2
    clock.advance(timedelta(days=30))
    run_worker()
    assert len(charges(shop)) == 2


def test_three_failures_four_hours_apart_make_it_failed_then_resume_retries(
    shop: Shop,
    customer: dict[str, Any],
    save_card: Callable[..., str],
    clock: FixedClock,
    run_worker: Callable[[], Pass],
) -> None:
    sid = shop.created(
        "/scheduled-payments",
        flat(customer["customerId"], save_card("sim_card_decline"), clock, cadence="Monthly"),
    )["scheduledPaymentId"]
    clock.advance(timedelta(hours=1))
    first = clock.now()
    run_worker()
    stored = schedule_row(shop, sid)
    assert (stored.status, stored.failures, stored.next_run_at) == (
        ScheduleStatus.ACTIVE,
        1,
        first + timedelta(hours=4),
    )
    clock.advance(timedelta(hours=3, minutes=59))
    run_worker()
    assert schedule_row(shop, sid).failures == 1  # not yet
    clock.advance(timedelta(minutes=1))
    run_worker()
    clock.advance(timedelta(hours=4))
    run_worker()
    stored = schedule_row(shop, sid)
    assert stored.status is ScheduleStatus.FAILED
    assert stored.next_run_at is None
    attempts = runs(shop, sid)
    assert [(r.run_number, r.attempt, r.outcome) for r in attempts] == [
        (1, n, RunOutcome.FAILED) for n in (1, 2, 3)
    ]
    assert [r.started_at - first for r in attempts] == [timedelta(hours=h) for h in (0, 4, 8)]
    assert len({r.gateway_key for r in attempts}) == 3
    clock.advance(timedelta(days=1))
    run_worker()
    assert len(runs(shop, sid)) == 3  # a Failed schedule stays paused
    body = shop.ok(shop.post(f"/scheduled-payments/{sid}/resume"))
    assert (body["status"], body["failureCount"]) == ("Active", 0)
    run_worker()
    assert [(r.attempt, r.outcome) for r in runs(shop, sid)][-1] == (4, RunOutcome.FAILED)


def test_run_now_charges_at_once_and_changes_nothing_else(
    shop: Shop,
    customer: dict[str, Any],
    save_card: Callable[..., str],
    clock: FixedClock,
) -> None:
    sid = shop.created(
        "/scheduled-payments",
        flat(customer["customerId"], save_card(), clock, cadence="Monthly", maxCharges=1),
    )["scheduledPaymentId"]
    before = schedule_row(shop, sid)
    response = shop.post(f"/scheduled-payments/{sid}/run-now", headers={"Idempotency-Key": "now-1"})
    assert response.status_code == 201, response.text
    assert response.json()["outcome"] == "Succeeded"
    again = shop.post(f"/scheduled-payments/{sid}/run-now", headers={"Idempotency-Key": "now-1"})
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert len(charges(shop)) == 1
    after = schedule_row(shop, sid)
    assert (after.status, after.next_run_at, after.charges, after.failures) == (
        before.status,
        before.next_run_at,
        0,
        0,
    )


def test_a_declined_run_now_is_402_and_recorded(
    shop: Shop,
    customer: dict[str, Any],
    save_card: Callable[..., str],
    clock: FixedClock,
) -> None:
    sid = shop.created(
        "/scheduled-payments",
        flat(customer["customerId"], save_card("sim_card_decline"), clock, cadence="Daily"),
    )["scheduledPaymentId"]
    response = shop.post(f"/scheduled-payments/{sid}/run-now")
    assert response.status_code == 402, response.text
    recorded = runs(shop, sid)
    assert [(r.trigger.value, r.outcome) for r in recorded] == [("RunNow", RunOutcome.FAILED)]
    stored = schedule_row(shop, sid)
    assert (stored.status, stored.failures) == (ScheduleStatus.ACTIVE, 0)


@pytest.mark.parametrize(
    ("bill_to", "billed_line1"),
    [(None, "1 Analytical Way"), ({"line1": "5 Ledger Ln", "city": "York"}, "5 Ledger Ln")],
    ids=["blank-bill-to", "own-bill-to"],
)
def test_each_itemised_run_creates_a_paid_invoice_with_lines_tax_and_addresses(
    shop: Shop,
    customer: dict[str, Any],
    save_card: Callable[..., str],
    clock: FixedClock,
    run_worker: Callable[[], Pass],
    bill_to: dict[str, Any] | None,
    billed_line1: str,
) -> None:
    """Read back over HTTP (GET M/invoices/{n}): each run's invoice carries the lines, the
    tax, the ship-to and the bill-to (blank: the customer's billing address), and is Paid by
    exactly the run's charge of its total."""
    product = shop.created("/products", {"name": "Tea", "unitPrice": 2})["productId"]
    body = flat(customer["customerId"], save_card(), clock, cadence="Weekly", maxCharges=2)
    del body["amount"]
    body |= {
        "lineItems": [
            {"description": "Tea", "quantity": 3, "unitPrice": 2.5, "productId": product},
            {"description": "Delivery", "quantity": 1, "unitPrice": 1, "isTaxable": False},
        ],
        "taxRatePercent": 8.25,
        "shipToAddress": {"line1": "2 Engine St", "city": "Leeds"},
    }
    if bill_to is not None:
        body["billToAddress"] = bill_to
    made = shop.created("/scheduled-payments", body)
    assert (made["subtotal"], made["tax"], made["amount"]) == (8.5, 0.62, 9.12)
    clock.advance(timedelta(hours=1))
    run_worker()
    clock.advance(timedelta(days=7))
    run_worker()
    done = runs(shop, made["scheduledPaymentId"])
    assert [r.outcome for r in done] == [RunOutcome.SUCCEEDED] * 2
    numbers = [r.invoice_number for r in done]
    assert None not in numbers
    assert len(set(numbers)) == 2  # one invoice per run
    txs = {tx.id: tx for tx in charges(shop)}
    assert len(txs) == 2
    for run in done:
        invoice = shop.ok(shop.get(f"/invoices/{run.invoice_number}"))
        assert invoice["status"] == "Paid"
        assert invoice["customerId"] == customer["customerId"]
        assert [
            (x["description"], x["quantity"], x["unitPrice"], x["isTaxable"], x["productId"])
            for x in invoice["lineItems"]
        ] == [("Tea", 3, 2.5, True, product), ("Delivery", 1, 1, False, None)]
        assert (invoice["taxRatePercent"], invoice["subtotal"], invoice["tax"]) == (
            8.25,
            8.5,
            0.62,
        )
        assert (invoice["total"], invoice["amountPaid"], invoice["amountDue"]) == (9.12, 9.12, 0)
        assert invoice["billToAddress"]["line1"] == billed_line1
        ship = invoice["shipToAddress"]
        assert (ship["line1"], ship["city"]) == ("2 Engine St", "Leeds")
        (payment,) = invoice["payments"]
        assert (payment["transactionId"], payment["amount"]) == (run.transaction_id, 9.12)
        assert txs[run.transaction_id].amount.amount == Decimal("9.12")
    stored = schedule_row(shop, made["scheduledPaymentId"])
    assert (stored.status, stored.charges) == (ScheduleStatus.COMPLETED, 2)


def test_a_crash_between_charging_and_recording_never_charges_twice(
    shop: Shop,
    customer: dict[str, Any],
    save_card: Callable[..., str],
    clock: FixedClock,
    gateway_book: GatewayBook,
    hub: PayHub,
) -> None:
    """The worker dies after the gateway took the money and before payhub recorded anything:
    the run and its transaction are still Pending. The restarted worker re-leases the job and
    charges under the same key: the gateway's books show one charge, payhub records it once."""
    sid = shop.created(
        "/scheduled-payments", flat(customer["customerId"], save_card(), clock, cadence="Daily")
    )["scheduledPaymentId"]
    clock.advance(timedelta(hours=1))
    gateway_book.crash_after_charge = True
    with pytest.raises(Crash):
        Worker(hub.deps, hub.job_handlers(), "doomed").run_once()
    (pending,) = runs(shop, sid)
    assert pending.outcome is RunOutcome.PENDING
    assert [tx.status.value for tx in charges(shop)] == ["Pending"]
    assert gateway_book.moved == [pending.gateway_key]
    clock.advance(timedelta(minutes=6))  # the dead worker's lease runs out
    Worker(hub.deps, hub.job_handlers(), "restarted").run_once()
    assert gateway_book.calls == 2  # asked again, under the same key
    assert gateway_book.moved == [pending.gateway_key]  # the gateway charged once
    (recorded,) = runs(shop, sid)
    assert recorded.outcome is RunOutcome.SUCCEEDED
    (tx,) = charges(shop)
    assert (tx.gateway_key, tx.status.value) == (pending.gateway_key, "Captured")
    assert recorded.transaction_id == tx.id
    stored = schedule_row(shop, sid)
    assert (stored.charges, stored.next_run_number) == (1, 2)


def test_run_now_retried_after_a_gateway_timeout_settles_the_same_charge(
    shop: Shop,
    customer: dict[str, Any],
    save_card: Callable[..., str],
    clock: FixedClock,
    gateway_book: GatewayBook,
) -> None:
    """A timeout releases the Idempotency-Key (504) so the client can retry; the retry must
    settle the first attempt under its gateway key, not start a second charge."""
    sid = shop.created(
        "/scheduled-payments",
        flat(customer["customerId"], save_card("sim_card_timeout"), clock, cadence="Monthly"),
    )["scheduledPaymentId"]
    path = f"/scheduled-payments/{sid}/run-now"
    first = shop.post(path, headers={"Idempotency-Key": "now-t"})
    assert first.status_code == 504, first.text
    assert first.headers["content-type"].startswith("application/problem+json")
    (pending,) = runs(shop, sid)
    assert pending.outcome is RunOutcome.PENDING
    again = shop.post(path, headers={"Idempotency-Key": "now-t"})
    assert again.status_code == 201, again.text
    assert again.json()["runId"] == pending.id
    assert again.json()["outcome"] == "Succeeded"
    assert gateway_book.moved == [pending.gateway_key]
    (tx,) = charges(shop)
    assert tx.gateway_key == pending.gateway_key
    assert [r.outcome for r in runs(shop, sid)] == [RunOutcome.SUCCEEDED]
    assert schedule_row(shop, sid).charges == 0  # run-now never counts towards maxCharges


def test_one_time_schedule_completes_after_its_run_in_the_merchants_zone(
    shop: Shop,
    customer: dict[str, Any],
    save_card: Callable[..., str],
    clock: FixedClock,
    run_worker: Callable[[], Pass],
) -> None:
    shop.hub.provider(shop.hub.as_provider(shop.account.provider.id)).merchant(
        shop.ref
    ).set_time_zone("America/New_York")
    sid = shop.created("/scheduled-payments", flat(customer["customerId"], save_card(), clock))[
        "scheduledPaymentId"
    ]
    assert schedule_row(shop, sid).time_zone == "America/New_York"
    clock.set(datetime(2025, 3, 14, 10, 26, 53, tzinfo=UTC))
    run_worker()
    stored = schedule_row(shop, sid)
    assert (stored.status, stored.charges, stored.next_run_at) == (
        ScheduleStatus.COMPLETED,
        1,
        None,
    )


ILLEGAL = {
    "Paused": ["pause", "run-now"],
    "Failed": ["pause", "run-now"],
    "Cancelled": ["pause", "resume", "cancel", "run-now"],
    "Completed": ["pause", "resume", "cancel", "run-now"],
}


@pytest.mark.parametrize("state", list(ILLEGAL))
def test_every_illegal_move_over_http_is_a_409_problem_and_changes_nothing(
    shop: Shop,
    customer: dict[str, Any],
    save_card: Callable[..., str],
    clock: FixedClock,
    run_worker: Callable[[], Pass],
    state: str,
) -> None:
    card = save_card("sim_card_decline" if state == "Failed" else "sim_card_ok")
    cadence = None if state == "Completed" else "Daily"
    sid = shop.created(
        "/scheduled-payments", flat(customer["customerId"], card, clock, cadence=cadence)
    )["scheduledPaymentId"]
    base = f"/scheduled-payments/{sid}"
    if state == "Paused":
        shop.ok(shop.post(f"{base}/pause"))
    elif state == "Cancelled":
        shop.ok(shop.post(f"{base}/cancel"))
    else:  # Failed after three declines 4 h apart; Completed after its one run
        clock.advance(timedelta(hours=1))
        for _ in range(3 if state == "Failed" else 1):
            run_worker()
            clock.advance(timedelta(hours=4))
    before = schedule_row(shop, sid)
    assert before.status.value == state
    attempts = len(runs(shop, sid))
    for move in ILLEGAL[state]:
        response = shop.post(f"{base}/{move}", headers={"Idempotency-Key": f"k-{move}"})
        assert response.status_code == 409, (move, response.text)
        assert response.headers["content-type"].startswith("application/problem+json")
        problem = response.json()
        assert problem["status"] == 409
        assert problem["type"].startswith("/problems/")
        assert state in problem["detail"], problem
    after = schedule_row(shop, sid)
    assert (after.status, after.next_run_at, after.plan, after.charges, after.manual_runs) == (
        before.status,
        before.next_run_at,
        before.plan,
        before.charges,
        before.manual_runs,
    )
    assert len(runs(shop, sid)) == attempts
