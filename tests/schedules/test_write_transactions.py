"""How many write transactions one scheduled run takes (issue 16 item 5): the run's row and
its pending charge in one, the charge's outcome and the run's in another; the gateway is
called between them, outside any transaction."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from payhub import PayHub
from payhub.adapters.system import FixedClock
from payhub.domain.schedules import RunOutcome
from payhub.services.idempotency import IdempotencyKeyReused
from payhub.services.schedules import Runner
from tests.customers.support import Shop
from tests.payments.test_idempotency_service import WriteCounter
from tests.schedules.conftest import at


class InTransaction:
    """Wraps a store's units of work to tell whether one is open when the gateway is called."""

    def __init__(self, hub: PayHub, monkeypatch: pytest.MonkeyPatch) -> None:
        self.open = 0
        self.calls_inside = 0
        store = hub.store
        real = store.unit_of_work
        outer = self

        class Counted:
            def __init__(self, readonly: bool) -> None:
                self._cm = real(readonly)

            def __enter__(self) -> Any:
                outer.open += 1
                return self._cm.__enter__()

            def __exit__(self, *exc: Any) -> Any:
                outer.open -= 1
                return self._cm.__exit__(*exc)

        monkeypatch.setattr(store, "unit_of_work", lambda readonly=False: Counted(readonly))
        adapter = hub.gateway_adapters["simulator"]
        charge = adapter.charge

        def watched(*args: Any, **kwargs: Any) -> Any:
            self.calls_inside += self.open > 0
            return charge(*args, **kwargs)

        monkeypatch.setattr(adapter, "charge", watched)


def _due(shop: Shop, customer: dict[str, Any], pm: str, clock: FixedClock) -> tuple[str, int]:
    body = {
        "customerId": customer["customerId"],
        "paymentMethodId": pm,
        "startAtUtc": at(clock, hours=1),
        "amount": 25,
        "currency": "USD",
        "cadence": "Monthly",
    }
    made = shop.created("/scheduled-payments", body)
    clock.advance(timedelta(hours=1))
    sid = made["scheduledPaymentId"]
    plan = shop.read(lambda uow, m: uow.scheduled_payments.get(m, sid)).plan
    return sid, plan


@pytest.mark.parametrize("token", ["sim_card_ok", "sim_card_decline"])
def test_a_due_run_takes_two_write_transactions(
    shop: Shop,
    customer: dict[str, Any],
    save_card: Callable[..., str],
    clock: FixedClock,
    hub: PayHub,
    monkeypatch: pytest.MonkeyPatch,
    token: str,
) -> None:
    sid, plan = _due(shop, customer, save_card(token), clock)
    runner = Runner(hub.deps, hub.gateway_adapters)
    counter = WriteCounter(hub.store, monkeypatch)
    run = runner.run_due(sid, plan)
    assert run is not None
    wanted = RunOutcome.SUCCEEDED if token == "sim_card_ok" else RunOutcome.FAILED
    assert run.outcome is wanted
    assert counter.writes == 2
    assert runner.run_due(sid, plan) is None  # the plan moved on: a stale job writes nothing
    assert counter.writes == 3  # (its one transaction only reads and locks)
    (tx,) = shop.read(lambda uow, m: uow.transactions.list(m, limit=10))
    assert tx.id == run.transaction_id


def test_no_gateway_call_inside_a_transaction(
    shop: Shop,
    customer: dict[str, Any],
    save_card: Callable[..., str],
    clock: FixedClock,
    hub: PayHub,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sid, plan = _due(shop, customer, save_card(), clock)
    watch = InTransaction(hub, monkeypatch)
    run = Runner(hub.deps, hub.gateway_adapters).run_due(sid, plan)
    assert run is not None
    assert run.outcome is RunOutcome.SUCCEEDED
    assert watch.calls_inside == 0


def test_run_now_with_a_key_is_the_services_and_takes_two_write_transactions(
    shop: Shop,
    customer: dict[str, Any],
    save_card: Callable[..., str],
    clock: FixedClock,
    hub: PayHub,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """In process, as over HTTP: the key is claimed with the run's start and the answer
    stored with its outcome; the same call again replays the first run, charging nothing."""
    sid, _ = _due(shop, customer, save_card(), clock)
    tenant = hub.provider(hub.authenticate(shop.account.key))
    schedules = tenant.merchant(shop.ref).scheduled_payments
    counter = WriteCounter(hub.store, monkeypatch)
    first, view = schedules.run_now(sid, idempotency_key="now-1")
    assert counter.writes == 2
    assert view is not None
    again, _ = schedules.run_now(sid, idempotency_key="now-1")
    assert counter.writes == 3  # the claim that found the stored answer
    assert again.id == first.id
    txs = shop.read(lambda uow, m: uow.transactions.list(m, limit=10))
    assert [tx.id for tx in txs] == [view.transaction.id]
    with pytest.raises(IdempotencyKeyReused):
        schedules.run_now("sch_other", idempotency_key="now-1")
