"""Small in-process caches for the hot paths (authentication, short-link redirects).

A ``FreshCache`` is a bounded LRU whose entries are trusted for ``ttl_s`` seconds after the
database read that produced them, then read again. That time is the documented bound for a
change made by *another* process (a key revoked by the CLI, a link revoked by a second
server) to take effect here. A change made through this process invalidates its entry at
once; an ``epoch`` guards the race where a reader started before the invalidation and
would otherwise put the stale value back after it.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class FreshCache(Generic[K, V]):
    def __init__(self, size: int, ttl_s: float, now: Callable[[], float] = time.monotonic) -> None:
        self._size = size
        self.ttl_s = ttl_s
        self._now = now
        self._lock = threading.Lock()
        self._entries: OrderedDict[K, tuple[float, V]] = OrderedDict()
        self._epoch = 0

    def get(self, key: K) -> V | None:
        """The value read less than ``ttl_s`` ago, or ``None`` (read it again)."""
        found = self._entries.get(key)
        if found is None:
            return None
        read_at, value = found
        if self._now() - read_at >= self.ttl_s:
            return None
        return value

    def begin(self) -> tuple[int, float]:
        """Call before the database read; hand the token to ``put``."""
        return self._epoch, self._now()

    def put(self, key: K, value: V, token: tuple[int, float]) -> None:
        """Keep ``value`` unless something was invalidated since ``begin`` (it may be stale)."""
        epoch, read_at = token
        with self._lock:
            if epoch != self._epoch:
                return
            self._entries[key] = (read_at, value)
            self._entries.move_to_end(key)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)

    def invalidate(self, key: K | None = None) -> None:
        """Forget one entry (or all): the next use reads the database."""
        with self._lock:
            self._epoch += 1
            if key is None:
                self._entries.clear()
            else:
                self._entries.pop(key, None)

    def __len__(self) -> int:
        return len(self._entries)


class Tally(Generic[K, V]):
    """Counts gathered in memory and handed out in batches: ``add`` on the hot path (a dict
    bump under a lock), ``take`` swaps everything out for one write, ``put_back`` returns a
    batch whose write failed so nothing is lost. Writers hold ``flushing`` around take and
    write, so a reader that flushes first sees every count handed over before it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: dict[K, tuple[int, V]] = {}
        self.flushing = threading.Lock()

    def add(self, key: K, latest: V) -> None:
        with self._lock:
            found = self._counts.get(key)
            self._counts[key] = (found[0] + 1 if found else 1, latest)

    def take(self) -> dict[K, tuple[int, V]]:
        with self._lock:
            taken, self._counts = self._counts, {}
        return taken

    def put_back(self, batch: dict[K, tuple[int, V]]) -> None:
        with self._lock:
            for key, (n, latest) in batch.items():
                found = self._counts.get(key)
                self._counts[key] = (n + found[0], found[1]) if found else (n, latest)

    def __len__(self) -> int:
        return len(self._counts)
