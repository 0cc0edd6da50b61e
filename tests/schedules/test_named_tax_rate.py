"""An itemised schedule with the merchant's own named `taxRateId`, over HTTP and through the
worker. docs/schedules.md: the rate's percentage is copied at creation, so every run's
invoice is taxed at that copy: a later change of the rate's percentage, or switching the rate
off, reaches new schedules only. A run's invoice records the percentage, not the rate's id
(an id would name a rate whose percentage may no longer be the one charged)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from decimal import Decimal
from typing import Any

from payhub.adapters.system import FixedClock
from payhub.domain.schedules import RunOutcome, ScheduleStatus
from payhub.services.worker import Pass
from tests.customers.support import Shop
from tests.schedules.conftest import at

LINES = [
    {"description": "Tea", "quantity": 3, "unitPrice": 2.5},
    {"description": "Delivery", "quantity": 1, "unitPrice": 1, "isTaxable": False},
]


def test_the_named_rate_is_copied_and_each_run_is_taxed_at_the_copy(
    shop: Shop,
    customer: dict[str, Any],
    save_card: Callable[..., str],
    clock: FixedClock,
    run_worker: Callable[[], Pass],
) -> None:
    rate = shop.created("/tax-rates", {"name": "City", "percent": 10})["taxRateId"]
    made = shop.created(
        "/scheduled-payments",
        {
            "customerId": customer["customerId"],
            "paymentMethodId": save_card(),
            "startAtUtc": at(clock, hours=1),
            "cadence": "Weekly",
            "maxCharges": 3,
            "lineItems": LINES,
            "taxRateId": rate,
        },
    )
    sid = made["scheduledPaymentId"]
    # 3 x 2.50 taxed at 10% = 0.75; the delivery line is not taxed.
    assert (made["taxRateId"], made["taxRatePercent"]) == (rate, 10)
    assert (made["subtotal"], made["tax"], made["amount"]) == (8.5, 0.75, 9.25)
    stored = shop.read(lambda uow, m: uow.scheduled_payments.get(m, sid))
    assert (stored.tax_rate_id, stored.tax_percent) == (rate, Decimal(10))

    def run_next(days: int) -> None:
        clock.advance(timedelta(hours=1) if days == 0 else timedelta(days=days))
        run_worker()

    run_next(0)  # run 1 at 10%
    shop.ok(shop.put(f"/tax-rates/{rate}", {"name": "City", "percent": 20}))
    run_next(7)  # run 2: the rate now says 20%, the schedule keeps its 10%
    shop.ok(shop.post(f"/tax-rates/{rate}/deactivate"))
    run_next(7)  # run 3: the rate is switched off, the schedule still runs at 10%

    runs = shop.read(lambda uow, m: list(reversed(uow.scheduled_payments.runs(sid, 100))))
    assert [r.outcome for r in runs] == [RunOutcome.SUCCEEDED] * 3
    txs = {tx.id: tx for tx in shop.read(lambda uow, m: uow.transactions.list(m, limit=100))}
    assert len(txs) == 3
    for run in runs:
        invoice = shop.ok(shop.get(f"/invoices/{run.invoice_number}"))
        assert (invoice["taxRatePercent"], invoice["taxRateId"]) == (10, None)
        assert [x["tax"] for x in invoice["lineItems"]] == [0.75, 0]
        assert (invoice["subtotal"], invoice["tax"], invoice["total"]) == (8.5, 0.75, 9.25)
        assert (invoice["status"], invoice["amountDue"]) == ("Paid", 0)
        kept = shop.read(lambda uow, m, n=run.invoice_number: uow.invoices.get(m, n))
        assert (kept.tax_percent, kept.tax.amount) == (Decimal(10), Decimal("0.75"))
        assert txs[run.transaction_id].amount.amount == Decimal("9.25")
    stored = shop.read(lambda uow, m: uow.scheduled_payments.get(m, sid))
    assert (stored.status, stored.charges, stored.tax_percent) == (
        ScheduleStatus.COMPLETED,
        3,
        Decimal(10),
    )
    out = shop.ok(shop.get(f"/scheduled-payments/{sid}"))
    assert (out["taxRatePercent"], out["tax"], out["amount"]) == (10, 0.75, 9.25)
    # A new schedule cannot name the switched-off rate.
    response = shop.post(
        "/scheduled-payments",
        {
            "customerId": customer["customerId"],
            "paymentMethodId": save_card(),
            "startAtUtc": at(clock, hours=1),
            "lineItems": LINES,
            "taxRateId": rate,
        },
    )
    assert response.status_code == 400, response.text
    assert [e["field"] for e in response.json()["errors"]] == ["taxRateId"]
    assert len(shop.read(lambda uow, m: uow.scheduled_payments.list(m))) == 1


def test_a_run_is_charged_as_shown_even_where_a_location_has_a_rate(
    shop: Shop,
    customer: dict[str, Any],
    save_card: Callable[..., str],
    clock: FixedClock,
    run_worker: Callable[[], Pass],
) -> None:
    """A run's invoice gets the merchant's default location (rule 3) but not that location's
    rate (rule 5 is for invoices sent to the API): the schedule's percentage, even 0, is the
    one charged. This once added 10% to an untaxed schedule's runs."""
    rate = shop.created("/tax-rates", {"name": "City", "percent": 10})["taxRateId"]
    main = shop.created("/locations", {"name": "Main", "taxRateId": rate})["locationId"]
    settings = {"locationsEnabled": True, "defaultLocationId": main}
    shop.ok(shop.put("/locations/settings", settings))
    made = shop.created(
        "/scheduled-payments",
        {
            "customerId": customer["customerId"],
            "paymentMethodId": save_card(),
            "startAtUtc": at(clock, hours=1),
            "lineItems": LINES,
        },
    )
    assert (made["tax"], made["amount"]) == (0, 8.5)
    clock.advance(timedelta(hours=1))
    run_worker()
    (run,) = shop.read(lambda uow, m: uow.scheduled_payments.runs(made["scheduledPaymentId"], 10))
    assert run.outcome is RunOutcome.SUCCEEDED
    invoice = shop.ok(shop.get(f"/invoices/{run.invoice_number}"))
    assert invoice["locationId"] == main
    assert (invoice["taxRatePercent"], invoice["tax"], invoice["total"]) == (0, 0, 8.5)
    (tx,) = shop.read(lambda uow, m: uow.transactions.list(m, limit=100))
    assert tx.amount.amount == Decimal("8.50")
    # An invoice made through the API at that location still takes its rate.
    api = shop.created(
        "/invoices", {"gateway": "simulator", "lineItems": LINES, "locationId": main}
    )
    assert (api["taxRatePercent"], api["tax"]) == (10, 0.75)
