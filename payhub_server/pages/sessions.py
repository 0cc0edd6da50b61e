"""How many amount-bound sessions one public link may ask for: each makes an order or a
session at the vendor with the merchant's credentials, so a script hammering
``POST /pay/{token}/session`` (or the approval page's) is refused with 429 before the gateway
is called. Budget ``PAYHUB_PAY_PAGE_SESSIONS`` (default 30 per 600 s per link), each server
process enforcing its share (``PAYHUB_RATE_LIMIT_PROCESSES``), in a fixed window that opens at
the link's first session, like the portal's sign-in throttle.
"""

from __future__ import annotations

import math
import os
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from litestar import Request

from payhub.domain.errors import RateLimited
from payhub_server.ratelimit import Budget

DEFAULT = Budget("pay-page-sessions", 30, 600)


class SessionBudget:
    def __init__(
        self,
        budget: Budget = DEFAULT,
        processes: int = 1,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.budget = budget
        self.share = max(1, budget.quota // max(1, processes))
        self._now = now
        self._lock = threading.Lock()
        self._seen: dict[str, tuple[float, int]] = {}  # link -> (window start, sessions)
        self._next_sweep = now() + budget.window_s

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> SessionBudget:
        env = os.environ if env is None else env
        return cls(
            Budget.parse("pay-page-sessions", env.get("PAYHUB_PAY_PAGE_SESSIONS", "30/600")),
            int(env.get("PAYHUB_RATE_LIMIT_PROCESSES", "1") or 1),
        )

    def take(self, link: str) -> None:
        """Count one session for ``link``, or refuse it (429 with Retry-After)."""
        now = self._now()
        window = self.budget.window_s
        with self._lock:
            if now >= self._next_sweep:  # keeps the table bounded by one window's links
                self._seen = {k: v for k, v in self._seen.items() if now - v[0] < window}
                self._next_sweep = now + window
            start, used = self._seen.get(link, (now, 0))
            if now - start >= window:
                start, used = now, 0
            if used >= self.share:
                wait = max(1, math.ceil(start + window - now))
                raise RateLimited(
                    f"too many payment sessions for this link: retry in {wait} s", wait
                )
            self._seen[link] = (start, used + 1)


_STATE = "pay_page_sessions"


def budget_of(request: Request[Any, Any, Any]) -> SessionBudget:
    """The app's budget (one per application, made from the environment on first use)."""
    state = request.app.state
    budget = state.get(_STATE)
    if not isinstance(budget, SessionBudget):
        budget = SessionBudget.from_env()
        state[_STATE] = budget
    return budget


def set_budget(app_state: Any, budget: SessionBudget) -> None:
    """Replace an app's budget (tests, or an operator's own wiring)."""
    app_state[_STATE] = budget
