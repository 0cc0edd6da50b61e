"""The work-leasing primitive under load: items per second with 1 and 4 worker processes."""

from __future__ import annotations

import multiprocessing
import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from payhub.adapters.storage import open_store
from payhub.ports import Job

QUEUE = "bench"
BATCH = 200  # jobs leased, and completed, per statement


def _worker(url: str, owner: str, start: Any, out: Any) -> None:
    store = open_store(url)
    taken: list[str] = []
    start.wait()
    try:
        while True:
            now = datetime.now(UTC)
            with store.unit_of_work() as uow:
                jobs = uow.jobs.lease(QUEUE, now, owner, BATCH, now + timedelta(minutes=5))
            if not jobs:
                break
            with store.unit_of_work() as uow:
                ids = [job.id for job in jobs]
                if uow.jobs.complete_many(ids, owner, now) == len(ids):
                    taken.extend(ids)
    finally:
        store.close()
    out.put(taken)


def run(url: str, items: int, workers: int) -> dict[str, float]:
    """Enqueue ``items`` due jobs, drain them with ``workers`` processes; check exactly-once."""
    store = open_store(url)
    store.migrate()
    due = datetime.now(UTC) - timedelta(seconds=1)
    with store.unit_of_work() as uow:
        for i in range(items):
            uow.jobs.enqueue(Job(f"job_{uuid.uuid4().hex}_{i}", QUEUE, {"i": i}, due, 0))
    store.close()
    ctx = multiprocessing.get_context("spawn")
    start = ctx.Event()
    out: Any = ctx.Queue()
    procs = [ctx.Process(target=_worker, args=(url, f"w{n}", start, out)) for n in range(workers)]
    for p in procs:
        p.start()
    time.sleep(1.0)  # let every process import and connect before the clock starts
    began = time.perf_counter()
    start.set()
    results = [out.get(timeout=300) for _ in procs]
    elapsed = time.perf_counter() - began
    for p in procs:
        p.join()
    taken = [job for r in results for job in r]
    return {
        "items_per_s": items / elapsed,
        "taken": float(len(taken)),
        "duplicates": float(len(taken) - len(set(taken))),
        "seconds": elapsed,
    }
