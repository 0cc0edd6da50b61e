"""The background worker: housekeeping, and due jobs taken with the leasing primitive.

Several workers (threads, processes or machines) may run at once: a job is leased by
exactly one of them (``FOR UPDATE SKIP LOCKED`` on PostgreSQL, the single writer on
SQLite). A handler that raises is retried with exponential backoff; after the last
attempt the job is buried: closed with its last error and logged, listed by
``payhub jobs dead`` and made due again by ``payhub jobs revive`` once the cause is
fixed (handlers are idempotent, so a revived job finishes what it started). A worker
that dies mid-job loses its lease when the lease expires and another worker takes the
job again, so handlers must be idempotent (the job id is theirs to key on). Queues
register handlers in ``PayHub.job_handlers`` (the outbox, scheduled payments, webhooks);
housekeeping runs on every pass: expired idempotency keys, events past their
retention (30 days) and webhook deliveries finished as long ago are purged.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Mapping
from datetime import timedelta

import attrs
import structlog

from payhub.domain.errors import NotFound
from payhub.domain.retries import RetryPolicy
from payhub.ports import DeadJob, Job
from payhub.services.deps import Deps
from payhub.services.events import purge_expired as purge_expired_events
from payhub.services.webhooks import purge_history as purge_webhook_history

JobHandler = Callable[[Job], None]
log = structlog.get_logger("payhub.worker")


@attrs.define
class Pass:
    """What one pass did: jobs done, retried and given up per queue, keys purged."""

    done: Counter[str] = attrs.field(factory=Counter)
    retried: Counter[str] = attrs.field(factory=Counter)
    dead: Counter[str] = attrs.field(factory=Counter)
    purged_keys: int = 0
    purged_events: int = 0
    purged_deliveries: int = 0

    @property
    def jobs(self) -> int:
        return sum(self.done.values()) + sum(self.retried.values()) + sum(self.dead.values())


ERROR_MAX = 300


def describe(error: BaseException) -> str:
    """What an operator reads about a failed job: the error's type and the start of its
    message. Domain and adapter errors never carry secrets; the cut keeps rows small."""
    text = f"{type(error).__name__}: {error}"
    return text if len(text) <= ERROR_MAX else text[: ERROR_MAX - 1] + "…"


class Worker:
    def __init__(
        self,
        deps: Deps,
        handlers: Mapping[str, JobHandler],
        owner: str,
        *,
        batch: int = 20,
        lease: timedelta = timedelta(minutes=5),
        policy: RetryPolicy | None = None,
    ) -> None:
        self._d = deps
        self._handlers = dict(handlers)
        self.owner = owner
        self._batch = batch
        self._lease = lease
        self._policy = policy or RetryPolicy()

    @property
    def queues(self) -> list[str]:
        return sorted(self._handlers)

    def run_once(self) -> Pass:
        """Housekeeping, then every queue drained of what is due now."""
        result = Pass()
        with self._d.store.unit_of_work() as uow:
            result.purged_keys = uow.idempotency.purge_expired(self._d.clock.now())
            result.purged_events = purge_expired_events(uow, self._d)
            result.purged_deliveries = purge_webhook_history(uow, self._d)
        for queue in self.queues:
            while True:
                now = self._d.clock.now()
                with self._d.store.unit_of_work() as uow:
                    jobs = uow.jobs.lease(queue, now, self.owner, self._batch, now + self._lease)
                if not jobs:
                    break
                finished = [job.id for job in jobs if self._run(queue, job, result)]
                # One write closes the whole batch. Until it commits the jobs stay leased to
                # this worker; should it die first, they are run again after the lease, which
                # idempotent handlers allow.
                if finished:
                    with self._d.store.unit_of_work() as uow:
                        uow.jobs.complete_many(finished, self.owner, self._d.clock.now())
                    result.done[queue] += len(finished)
        return result

    def _run(self, queue: str, job: Job, result: Pass) -> bool:
        """Run one job; ``True`` when it succeeded (the caller completes it with its batch)."""
        try:
            self._handlers[queue](job)
        except Exception as error:  # a handler's failure is its job's, not the worker's
            now = self._d.clock.now()
            reason = describe(error)
            if self._policy.gives_up_after(job.attempts):
                with self._d.store.unit_of_work() as uow:
                    uow.jobs.bury(job.id, self.owner, now, reason)
                log.error(
                    "job given up",
                    queue=queue,
                    job_id=job.id,
                    attempts=job.attempts,
                    error=type(error).__name__,
                )
                result.dead[queue] += 1
                return False
            jitter = self._d.randomness.token_bytes(1)[0] / 255
            with self._d.store.unit_of_work() as uow:
                uow.jobs.retry(
                    job.id, self.owner, now + self._policy.delay(job.attempts, jitter), reason
                )
            log.warning(
                "job retry",
                queue=queue,
                job_id=job.id,
                attempts=job.attempts,
                error=type(error).__name__,
            )
            result.retried[queue] += 1
            return False
        return True

    def run_forever(
        self,
        stop: threading.Event,
        idle_seconds: float = 1.0,
        on_pass: Callable[[Pass], None] | None = None,
    ) -> None:
        """Pass after pass until ``stop`` is set; waits only when nothing was due."""
        while not stop.is_set():
            done = self.run_once()
            if on_pass is not None:
                on_pass(done)
            if done.jobs == 0:
                stop.wait(idle_seconds)


class DeadLetters:
    """The operator's view of given-up jobs."""

    def __init__(self, deps: Deps) -> None:
        self._d = deps

    def list(self, queue: str | None = None, limit: int = 50) -> list[DeadJob]:
        with self._d.store.unit_of_work(readonly=True) as uow:
            return uow.jobs.dead(queue, limit)

    def revive(self, job_id: str) -> None:
        """Make the job due now with fresh attempts (404 when no dead job has that id)."""
        with self._d.store.unit_of_work() as uow:
            if not uow.jobs.revive(job_id, self._d.clock.now()):
                raise NotFound(f"no dead job '{job_id}'")
