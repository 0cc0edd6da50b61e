"""Exactly-once under real concurrency: separate processes, each with its own store.

Each child opens the store from the URL, waits at a shared start line (so they really
overlap), does its work and sends back what it saw. The parent decides from that and
from the database whether anything was repeated or lost.
"""

from __future__ import annotations

import multiprocessing
import queue
import traceback
from collections import Counter
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from payhub.adapters.storage import open_store
from payhub.adapters.storage.migrations import MIGRATIONS
from payhub.ports import Job, Store

pytestmark = pytest.mark.slow

START_TIMEOUT_S = 60
RESULT_TIMEOUT_S = 120


# --- running children ----------------------------------------------------------------------


def _child(
    index: int,
    target: Callable[..., Any],
    url: str,
    start: Any,
    results: Any,
    args: tuple[Any, ...],
) -> None:
    try:
        store = open_store(url)
        try:
            value = target(store, start, *args)
        finally:
            store.close()
        results.put((index, None, value))
    except BaseException:  # report anything, so the parent fails with the child's traceback
        results.put((index, traceback.format_exc(), None))


def run_processes(target: Callable[..., Any], url: str, args: list[tuple[Any, ...]]) -> list[Any]:
    """Run ``target(store, start_barrier, *a)`` for each ``a`` in its own spawned process;
    return their results in order."""
    ctx = multiprocessing.get_context("spawn")
    start = ctx.Barrier(len(args))
    results = ctx.Queue()
    procs = [
        ctx.Process(target=_child, args=(i, target, url, start, results, a), daemon=True)
        for i, a in enumerate(args)
    ]
    for p in procs:
        p.start()
    outcomes: dict[int, Any] = {}
    failures: list[str] = []
    try:
        for _ in procs:
            try:
                index, error, value = results.get(timeout=RESULT_TIMEOUT_S)
            except queue.Empty:
                pytest.fail(f"a child gave no answer in {RESULT_TIMEOUT_S} s")
            if error is not None:
                failures.append(f"child {index}:\n{error}")
            outcomes[index] = value
    finally:
        for p in procs:
            p.join(timeout=10)
            if p.is_alive():
                p.kill()
    if failures:
        pytest.fail("\n".join(failures), pytrace=False)
    assert all(p.exitcode == 0 for p in procs)
    return [outcomes[i] for i in range(len(args))]


def _ready(store: Store, start: Any) -> None:
    """Connect before the start line, so the children race on the work, not on startup."""
    with store.unit_of_work():
        pass
    start.wait(START_TIMEOUT_S)


# --- what the children do ------------------------------------------------------------------


def take_numbers(store: Store, start: Any, count: int) -> list[int]:
    _ready(store, start)
    values = []
    for _ in range(count):
        with store.unit_of_work() as uow:
            values.append(uow.sequences.next_value("invoice"))
    return values


def work_jobs(store: Store, start: Any, owner: str) -> tuple[list[str], int]:
    """Lease batches of 10 and complete them until nothing is due; the biggest batch too."""
    _ready(store, start)
    taken: list[str] = []
    biggest = 0
    while True:
        now = datetime.now(UTC)
        with store.unit_of_work() as uow:
            batch = uow.jobs.lease("work", now, owner, 10, now + timedelta(minutes=5))
        if not batch:
            return taken, biggest
        biggest = max(biggest, len(batch))
        with store.unit_of_work() as uow:
            for job in batch:
                assert uow.jobs.complete(job.id, owner, now), job.id
        taken.extend(job.id for job in batch)


def claim_key(store: Store, start: Any) -> str:
    _ready(store, start)
    now = datetime.now(UTC)
    with store.unit_of_work() as uow:
        return uow.idempotency.claim("prv_1", "order-7", "fp", now, now + timedelta(hours=1)).state


def migrate(store: Store, start: Any) -> list[int]:
    start.wait(START_TIMEOUT_S)  # no warm-up: opening the fresh database is part of the race
    return store.migrate()


# --- the tests -----------------------------------------------------------------------------


def _migrated(url: str) -> Store:
    store = open_store(url)
    store.migrate()
    return store


def test_sequence_never_repeats_across_processes(store_url: str) -> None:
    _migrated(store_url).close()
    per_process = run_processes(take_numbers, store_url, [(200,)] * 4)
    everything = sorted(v for values in per_process for v in values)
    assert everything == list(range(1, 801))
    assert all(values == sorted(values) for values in per_process)


def test_each_job_is_leased_by_exactly_one_worker(store_url: str) -> None:
    store = _migrated(store_url)
    due = datetime.now(UTC) - timedelta(minutes=1)
    ids = [f"job_{i:04d}" for i in range(1000)]
    with store.unit_of_work() as uow:
        for job_id in ids:
            uow.jobs.enqueue(Job(job_id, "work", {"n": job_id}, due, 0))

    outcomes = run_processes(work_jobs, store_url, [(f"worker-{i}",) for i in range(4)])

    taken = [job_id for ids_taken, _ in outcomes for job_id in ids_taken]
    repeated = [job_id for job_id, n in Counter(taken).items() if n > 1]
    assert repeated == []
    assert sorted(taken) == ids
    assert max(biggest for _, biggest in outcomes) <= 10
    if store_url.startswith("postgresql"):
        # SKIP LOCKED lets workers lease side by side. SQLite's busy handler is not fair
        # (waiters back off while the holder takes the lock again), so one worker may
        # drain the whole queue there; exactly-once still holds, which is the point.
        assert sum(1 for ids_taken, _ in outcomes if ids_taken) >= 2, "no overlap exercised"
    with store.unit_of_work() as uow:
        assert uow.jobs.count("work", done=True) == 1000
        assert uow.jobs.count("work", done=False) == 0
    store.close()


def test_only_one_process_wins_an_idempotency_claim(store_url: str) -> None:
    _migrated(store_url).close()
    states = run_processes(claim_key, store_url, [()] * 6)
    assert Counter(states) == {"new": 1, "in_flight": 5}


def test_processes_migrating_together_apply_each_migration_once(fresh_url: str) -> None:
    applied = run_processes(migrate, fresh_url, [()] * 3)
    versions = [m.version for m in MIGRATIONS]
    assert sorted(applied) == [[], [], versions]
    store = open_store(fresh_url)
    try:
        assert store.migrate() == []
        assert all(m.applied_at is not None for m in store.migration_status())
    finally:
        store.close()
