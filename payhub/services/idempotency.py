"""``Idempotency-Key``, owned by the services so every caller gets the same guarantee.

A key is scoped to the provider and kept 24 hours (``TTL``). The first request claims it in
the database before anything else; the same request again gets the stored answer; another
request with the key is refused (``IdempotencyKeyReused``, 422); the same request while the
first still runs is ``Conflict`` (409). What is stored is a digest of the scope and key
(``key_digest``), never the client's text.

A claim is a lease: while its request runs, this process renews it every
``RENEW_EVERY_S`` (one ``LeaseKeeper`` thread per store renews every claim the process
holds in one write). A claim not renewed for ``LEASE`` belongs to a process that died (or
froze) mid-request, and the same request retried is let in to take it over. A live process
keeps renewing for as long as its gateway call runs, so a takeover never races a request
still talking to the gateway; should a frozen process wake up after a takeover, both sides
use the same gateway idempotency key (derived from the client's key) and the gateway
answers the second with the first charge.
"""

from __future__ import annotations

import hashlib
import threading
import weakref
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta

import attrs
import structlog

from payhub.domain.errors import Conflict, PayHubError, ValidationError
from payhub.ports import Clock, Store, StoredResponse, UnitOfWork

TTL = timedelta(hours=24)
LEASE = timedelta(seconds=30)
RENEW_EVERY_S = 5.0
KEY_MAX = 255

log = structlog.get_logger("payhub.idempotency")


class IdempotencyKeyReused(PayHubError):
    status = 422
    code = "idempotency-key-reused"
    title = "Idempotency-Key used for a different request"


def check_key(key: str) -> str:
    """The key as given, trimmed; 400 unless 1 to ``KEY_MAX`` printable characters."""
    key = key.strip()
    if not 1 <= len(key) <= KEY_MAX or not key.isprintable():
        raise ValidationError.for_field(
            "Idempotency-Key", f"must be 1 to {KEY_MAX} printable characters"
        )
    return key


def key_digest(scope: str, key: str) -> str:
    """What the database keeps instead of the client's key (SHA-256 of scope and key).

    Migration 14 turns keys stored before it into the same digest."""
    return hashlib.sha256(f"{scope}\n{key}".encode()).hexdigest()


@attrs.frozen
class IdempotentCall:
    """One request under an Idempotency-Key: who, which key, and what was asked."""

    scope: str
    key: str = attrs.field(repr=False)  # the client's text: for gateway keys, never stored
    fingerprint: str

    @property
    def digest(self) -> str:
        return key_digest(self.scope, self.key)


def claim(uow: UnitOfWork, call: IdempotentCall, now: datetime) -> StoredResponse | None:
    """Claim the key in ``uow`` (``None``: ours now, finish or release it in a later unit of
    work), or the stored answer of the same request; 422 or 409 otherwise."""
    result = uow.idempotency.claim(
        call.scope, call.digest, call.fingerprint, now, now + TTL, abandoned_before=now - LEASE
    )
    if result.state == "mismatch":
        raise IdempotencyKeyReused(
            "this Idempotency-Key was used with a different request; use a new key"
        )
    if result.state == "in_flight":
        raise Conflict("a request with this Idempotency-Key is still being processed; retry later")
    if result.state == "done":
        assert result.response is not None
        return result.response
    return None


def finish(uow: UnitOfWork, call: IdempotentCall, response: StoredResponse) -> None:
    uow.idempotency.finish(call.scope, call.digest, response)


def release(uow: UnitOfWork, call: IdempotentCall) -> None:
    uow.idempotency.release(call.scope, call.digest)


class LeaseKeeper:
    """Renews this process's claims on one store while their requests run.

    The thread runs only while claims are held: it is started by the first ``hold`` and
    ends at the first renewal round that finds nothing held."""

    def __init__(self, store: Store, clock: Clock) -> None:
        self._store = weakref.ref(store)  # the registry below must not keep stores alive
        self._clock = clock
        self._held: Counter[tuple[str, str]] = Counter()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None

    @contextmanager
    def hold(self, call: IdempotentCall) -> Iterator[None]:
        entry = (call.scope, call.digest)
        with self._lock:
            self._held[entry] += 1
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="payhub-idempotency-leases", daemon=True
                )
                self._thread.start()
        try:
            yield
        finally:
            with self._lock:
                self._held[entry] -= 1
                if self._held[entry] <= 0:
                    del self._held[entry]

    def _run(self) -> None:
        stop = threading.Event()  # never set: a timed wait that no signal cuts short
        while True:
            stop.wait(RENEW_EVERY_S)
            with self._lock:
                held = list(self._held)
                if not held:
                    self._thread = None
                    return
            try:
                self.renew(held)
            except Exception as error:  # the next round tries again; the lease is 6 rounds
                log.warning("idempotency lease renewal failed", error=type(error).__name__)

    def renew(self, held: list[tuple[str, str]]) -> None:
        store = self._store()
        if store is None:
            return
        now = self._clock.now()
        with store.unit_of_work() as uow:
            for scope, digest in held:
                uow.idempotency.renew(scope, digest, now)


_keepers: weakref.WeakKeyDictionary[Store, LeaseKeeper] = weakref.WeakKeyDictionary()
_keepers_lock = threading.Lock()


def lease_keeper(store: Store, clock: Clock) -> LeaseKeeper:
    """The keeper of ``store``'s claims in this process (one per store)."""
    with _keepers_lock:
        keeper = _keepers.get(store)
        if keeper is None:
            keeper = _keepers[store] = LeaseKeeper(store, clock)
        return keeper
