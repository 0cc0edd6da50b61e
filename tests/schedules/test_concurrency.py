"""Each due run is taken exactly once by several worker processes on PostgreSQL."""

from __future__ import annotations

import multiprocessing
import queue
import traceback
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from payhub import Environment, PayHub
from payhub.adapters.system import FixedClock
from payhub.domain.customers import CustomerName
from payhub.services.customers import CustomerInput
from payhub.services.merchants import CredentialInput
from payhub.services.schedules import Charge, ScheduleInput, Timing
from payhub.services.worker import Worker
from tests.pg import isolated_schema, postgres_url_or_skip

pytestmark = [pytest.mark.slow, pytest.mark.postgres]
SCHEDULES = 24
WORKERS = 4


def _work(url: str, key_file: str, owner: str, start: Any, out: Any) -> None:
    try:
        hub = PayHub.open(url, key_file=key_file, migrate=False)
        try:
            worker = Worker(hub.deps, hub.job_handlers(), owner, batch=2)
            start.wait(60)
            done = 0
            while (p := worker.run_once()).jobs:
                done += sum(p.done.values())
            out.put((owner, None, done))
        finally:
            hub.close()
    except BaseException:
        out.put((owner, traceback.format_exc(), 0))


@pytest.fixture
def pg_url() -> Iterator[str]:
    with isolated_schema(postgres_url_or_skip()) as url:
        yield url


def seed(url: str, key_file: Path, count: int) -> None:
    """``count`` daily schedules whose first run is already due by the real clock."""
    clock = FixedClock(datetime.now(UTC) - timedelta(hours=2))
    hub = PayHub.open(url, key_file=key_file, clock=clock)
    try:
        provider, _ = hub.operators.create_provider("P", Environment.SANDBOX)
        scope = hub.provider(hub.as_provider(provider.id))
        scope.merchants.create("shop", "Shop")
        shop = scope.merchant("shop")
        shop.credentials.put(
            "simulator", CredentialInput(api_secret="s", environment="Sandbox", enabled=True)
        )
        for i in range(count):
            customer = shop.customers.create(CustomerInput(CustomerName(first=f"C{i}")))
            method = shop.customers.save_payment_method(customer.id, "simulator", "sim_card_ok")
            shop.scheduled_payments.create(
                ScheduleInput(
                    customer.id,
                    method.id,
                    Timing(clock.now() + timedelta(minutes=30), "Daily"),
                    Charge(amount=Decimal("5.00")),
                )
            )
    finally:
        hub.close()


def test_four_worker_processes_charge_each_due_run_exactly_once(
    pg_url: str, tmp_path: Path
) -> None:
    key_file = tmp_path / "payhub.key"
    seed(pg_url, key_file, SCHEDULES)
    ctx = multiprocessing.get_context("spawn")
    start = ctx.Barrier(WORKERS)
    out = ctx.Queue()
    procs = [
        ctx.Process(target=_work, args=(pg_url, str(key_file), f"w{n}", start, out), daemon=True)
        for n in range(WORKERS)
    ]
    for p in procs:
        p.start()
    results = []
    try:
        for _ in procs:
            try:
                results.append(out.get(timeout=120))
            except queue.Empty:
                pytest.fail("a worker gave no answer in 120 s")
    finally:
        for p in procs:
            p.join(timeout=10)
    failures = [error for _, error, _ in results if error]
    assert not failures, "\n".join(failures)
    hub = PayHub.open(pg_url, key_file=key_file, migrate=False)
    try:
        with hub.store.unit_of_work() as uow:
            merchant = uow.merchants.list(None, limit=10)[0]
            txs = uow.transactions.list(merchant.id, limit=1000)
            schedules = uow.scheduled_payments.list(merchant.id, limit=1000)
            runs = [r for s in schedules for r in uow.scheduled_payments.runs(s.id)]
    finally:
        hub.close()
    per_schedule = Counter(tx.customer_id for tx in txs)
    assert len(txs) == SCHEDULES
    assert set(per_schedule.values()) == {1}  # no double charge
    assert len(runs) == SCHEDULES
    assert all(s.charges == 1 and s.next_run_number == 2 for s in schedules)
    assert sum(done for _, _, done in results) >= SCHEDULES
