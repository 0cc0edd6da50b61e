"""The worker on both stores: jobs done once, failures retried with backoff, then given up."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from payhub import PayHub
from payhub.adapters.system import FixedClock
from payhub.domain.errors import NotFound
from payhub.domain.retries import RetryPolicy
from payhub.ports import Job
from payhub.services.worker import Worker, describe

NOW = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)


@pytest.fixture
def hub(store_url: str, tmp_path: Path) -> Iterator[PayHub]:
    hub = PayHub.open(store_url, key_file=tmp_path / "k", clock=FixedClock(NOW))
    yield hub
    hub.close()


def enqueue(hub: PayHub, *ids: str, queue: str = "q") -> None:
    with hub.store.unit_of_work() as uow:
        for job_id in ids:
            uow.jobs.enqueue(Job(job_id, queue, {"n": job_id}, NOW, 0))


def test_due_jobs_are_handled_once_and_closed(hub: PayHub) -> None:
    seen: list[str] = []
    enqueue(hub, "a", "b", "c")
    worker = Worker(hub.deps, {"q": lambda job: seen.append(job.id)}, "w1", batch=2)

    first = worker.run_once()
    second = worker.run_once()

    assert sorted(seen) == ["a", "b", "c"]
    assert first.done["q"] == 3
    assert second.jobs == 0
    with hub.store.unit_of_work() as uow:
        assert uow.jobs.count("q", done=True) == 3


def test_a_failing_job_is_retried_later_then_given_up(hub: PayHub) -> None:
    clock = hub.deps.clock
    assert isinstance(clock, FixedClock)
    enqueue(hub, "x")
    policy = RetryPolicy(base=timedelta(seconds=10), cap=timedelta(minutes=1), max_attempts=3)
    calls: list[str] = []

    def boom(job: Job) -> None:
        calls.append(job.id)
        raise RuntimeError("down")

    worker = Worker(hub.deps, {"q": boom}, "w1", policy=policy)
    assert worker.run_once().retried["q"] == 1
    assert worker.run_once().jobs == 0  # not due yet
    clock.advance(timedelta(seconds=11))
    assert worker.run_once().retried["q"] == 1
    clock.advance(timedelta(seconds=21))
    assert worker.run_once().dead["q"] == 1
    assert calls == ["x", "x", "x"]
    with hub.store.unit_of_work() as uow:
        assert uow.jobs.count("q", done=False) == 0
        assert uow.jobs.retry("x", "w1", NOW) is False  # closed: nobody may touch it


def test_a_given_up_job_is_listed_with_its_error_and_can_be_revived(hub: PayHub) -> None:
    clock = hub.deps.clock
    assert isinstance(clock, FixedClock)
    enqueue(hub, "x", "y")
    policy = RetryPolicy(base=timedelta(seconds=1), cap=timedelta(seconds=1), max_attempts=1)
    broken = True
    ran: list[str] = []

    def handler(job: Job) -> None:
        if broken and job.id == "x":
            raise RuntimeError("database unreachable")
        ran.append(job.id)

    worker = Worker(hub.deps, {"q": handler}, "w1", policy=policy)
    assert worker.run_once().dead["q"] == 1
    [dead] = hub.dead_letters.list()
    assert (dead.id, dead.queue, dead.payload) == ("x", "q", {"n": "x"})
    assert dead.last_error == "RuntimeError: database unreachable"
    assert hub.dead_letters.list(queue="other") == []

    broken = False
    hub.dead_letters.revive("x")
    assert hub.dead_letters.list() == []
    assert worker.run_once().done["q"] == 1
    assert ran == ["y", "x"]
    with pytest.raises(NotFound):
        hub.dead_letters.revive("x")  # done, not dead
    with pytest.raises(NotFound):
        hub.dead_letters.revive("nope")


def test_the_error_kept_for_the_operator_is_cut_short() -> None:
    assert describe(ValueError("boom")) == "ValueError: boom"
    long = describe(ValueError("x" * 400))
    assert len(long) == 300
    assert long.startswith("ValueError: xxx")
    assert long.endswith("…")


def test_each_pass_purges_expired_idempotency_keys(hub: PayHub) -> None:
    with hub.store.unit_of_work() as uow:
        uow.idempotency.claim("p", "old", "f", NOW - timedelta(days=2), NOW - timedelta(days=1))
        uow.idempotency.claim("p", "new", "f", NOW, NOW + timedelta(days=1))
    assert Worker(hub.deps, {}, "w").run_once().purged_keys == 1
    with hub.store.unit_of_work() as uow:
        assert uow.idempotency.claim("p", "new", "f", NOW, NOW).state == "in_flight"


@given(st.integers(1, 60), st.floats(0, 1))
def test_backoff_grows_is_capped_and_jitter_stays_within_half(attempt: int, jitter: float) -> None:
    policy = RetryPolicy(base=timedelta(seconds=30), cap=timedelta(hours=1))
    wait = policy.delay(attempt, jitter)
    ceiling = min(timedelta(hours=1), timedelta(seconds=30) * (1 << min(attempt - 1, 30)))
    assert ceiling / 2 <= wait <= ceiling
