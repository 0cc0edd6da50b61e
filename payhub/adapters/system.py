"""The real clock and randomness, and a fixed clock for tests and simulations."""

from __future__ import annotations

import secrets
import threading
from datetime import UTC, datetime, timedelta


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


class FixedClock:
    """A clock that moves only when told to; thread-safe so servers under test can share it."""

    def __init__(self, start: datetime) -> None:
        if start.tzinfo is None:
            raise ValueError("FixedClock needs an aware datetime")
        self._now = start.astimezone(UTC)
        self._lock = threading.Lock()

    def now(self) -> datetime:
        with self._lock:
            return self._now

    def advance(self, delta: timedelta) -> None:
        with self._lock:
            self._now += delta

    def set(self, moment: datetime) -> None:
        with self._lock:
            self._now = moment.astimezone(UTC)


class SystemRandomness:
    def token_bytes(self, n: int) -> bytes:
        return secrets.token_bytes(n)
