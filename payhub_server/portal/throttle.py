"""Sign-in attempts, rate-limited per account and per client address.

Failed attempts count against two budgets: the email address typed
(``PAYHUB_PORTAL_SIGNIN_ACCOUNT``, default 5 failures per 15 minutes) and the client address
(``PAYHUB_PORTAL_SIGNIN_ADDRESS``, default 30 per 15 minutes), each process enforcing its share
(``PAYHUB_RATE_LIMIT_PROCESSES``). Past either, every attempt for that account or from that
address is refused with 429 before any password is checked, right or wrong, until the window
ends; a success does not reset them (a guesser who finds the password early still waits).
Wrong two-factor codes count against the account too.

Each subject's window opens at its first failure, not on the wall clock's quarter hours: a
fixed wall-clock window would let a guesser spend one budget just before a boundary and a
second just after it.
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable, Mapping

from payhub.domain.errors import RateLimited
from payhub_server.ratelimit import Budget

ACCOUNT = Budget("portal-account", 5, 900)
ADDRESS = Budget("portal-address", 30, 900)


class _Failures:
    """Failures per subject in a window that opens at the subject's first failure."""

    def __init__(self, budget: Budget, processes: int, now: Callable[[], float]) -> None:
        self.share = max(1, budget.quota // max(1, processes))
        self.window_s = budget.window_s
        self._now = now
        self._lock = threading.Lock()
        self._seen: dict[str, tuple[float, int]] = {}  # subject -> (window start, failures)
        self._next_sweep = now() + budget.window_s

    def retry_after(self, subject: str) -> int | None:
        """Seconds until ``subject`` may try again, or ``None`` while it has room."""
        now = self._now()
        with self._lock:
            start, failures = self._seen.get(subject, (now, 0))
        if now - start >= self.window_s or failures < self.share:
            return None
        return max(1, math.ceil(start + self.window_s - now))

    def add(self, subject: str) -> None:
        now = self._now()
        with self._lock:
            if now >= self._next_sweep:  # keeps the table bounded by one window's subjects
                self._seen = {s: v for s, v in self._seen.items() if now - v[0] < self.window_s}
                self._next_sweep = now + self.window_s
            start, failures = self._seen.get(subject, (now, 0))
            if now - start >= self.window_s:
                start, failures = now, 0
            self._seen[subject] = (start, failures + 1)


class SignInThrottle:
    def __init__(
        self,
        account: Budget = ACCOUNT,
        address: Budget = ADDRESS,
        processes: int = 1,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.account = account
        self.address = address
        self._account = _Failures(account, processes, now)
        self._address = _Failures(address, processes, now)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> SignInThrottle:
        env = os.environ if env is None else env
        return cls(
            Budget.parse("portal-account", env.get("PAYHUB_PORTAL_SIGNIN_ACCOUNT", "5/900")),
            Budget.parse("portal-address", env.get("PAYHUB_PORTAL_SIGNIN_ADDRESS", "30/900")),
            int(env.get("PAYHUB_RATE_LIMIT_PROCESSES", "1") or 1),
        )

    def check(self, account: str, address: str) -> None:
        """Refuse (429) an attempt for an account or from an address past its budget."""
        for failures, subject in ((self._account, account.lower()), (self._address, address)):
            wait = failures.retry_after(subject)
            if wait is not None:
                raise RateLimited(
                    "too many failed sign-in attempts: wait before trying again", wait
                )

    def failed(self, account: str, address: str) -> None:
        self._account.add(account.lower())
        self._address.add(address)
