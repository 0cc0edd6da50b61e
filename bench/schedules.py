"""Due scheduled-payment runs per second with 1 and 4 worker processes on PostgreSQL, charged
through the simulator; counts double charges (a schedule charged more than once: must be 0)."""

from __future__ import annotations

import multiprocessing
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from payhub import Environment, PayHub
from payhub.adapters.system import FixedClock
from payhub.domain.customers import CustomerName
from payhub.services.customers import CustomerInput
from payhub.services.merchants import CredentialInput
from payhub.services.schedules import Charge, ScheduleInput, Timing
from payhub.services.worker import Worker


def _seed(url: str, key_file: Path, count: int) -> None:
    clock = FixedClock(datetime.now(UTC) - timedelta(hours=2))
    hub = PayHub.open(url, key_file=key_file, clock=clock)
    try:
        provider, _ = hub.operators.create_provider("Bench", Environment.SANDBOX)
        scope = hub.provider(hub.as_provider(provider.id))
        scope.merchants.create("bench", "Bench")
        shop = scope.merchant("bench")
        shop.credentials.put(
            "simulator", CredentialInput(api_secret="s", environment="Sandbox", enabled=True)
        )
        customer = shop.customers.create(CustomerInput(CustomerName(first="Bench")))
        method = shop.customers.save_payment_method(customer.id, "simulator", "sim_card_ok")
        for _ in range(count):
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


def _worker(url: str, key_file: str, owner: str, start: Any, out: Any) -> None:
    hub = PayHub.open(url, key_file=key_file, migrate=False)
    try:
        worker = Worker(hub.deps, hub.job_handlers(), owner)
        start.wait()
        while worker.run_once().jobs:
            pass
    finally:
        hub.close()
    out.put(owner)


def run(url: str, count: int, workers: int) -> dict[str, float]:
    key_file = Path(tempfile.mkdtemp()) / "payhub.key"
    _seed(url, key_file, count)
    ctx = multiprocessing.get_context("spawn")
    start = ctx.Event()
    out: Any = ctx.Queue()
    procs = [
        ctx.Process(target=_worker, args=(url, str(key_file), f"w{n}", start, out))
        for n in range(workers)
    ]
    for p in procs:
        p.start()
    time.sleep(1.5)  # let every process import and connect before the clock starts
    began = time.perf_counter()
    start.set()
    for _ in procs:
        out.get(timeout=300)
    elapsed = time.perf_counter() - began
    for p in procs:
        p.join()
    hub = PayHub.open(url, key_file=key_file, migrate=False)
    try:
        with hub.store.unit_of_work() as uow:
            merchant = uow.merchants.list(None, limit=1)[0]
            schedules = uow.scheduled_payments.list(merchant.id, limit=count + 1)
            keys = Counter(
                r.schedule_id
                for s in schedules
                for r in uow.scheduled_payments.runs(s.id)
                if r.outcome.value == "Succeeded"
            )
            charged = len(uow.transactions.list(merchant.id, limit=count * 2 + 1))
    finally:
        hub.close()
    return {
        "runs_per_s": count / elapsed,
        "seconds": elapsed,
        "charged": float(charged),
        "double": float(sum(n - 1 for n in keys.values() if n > 1) + max(0, charged - count)),
    }
