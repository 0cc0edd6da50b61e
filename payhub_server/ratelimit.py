"""Request budgets per API key, per merchant and, for failed authentication, per client address.

Each budget is a quota of requests per fixed window (``q`` per ``w`` seconds). Several server
processes share one budget by each enforcing its share, ``q // processes`` (at least 1), so
the sum never exceeds the budget and no request writes to the database.
``PAYHUB_RATE_LIMIT_PROCESSES`` says how many processes serve (``payhub serve --workers N``
sets it to N; an operator running several hosts sets the total).

Over a budget: ``429`` problem+json with ``Retry-After`` (seconds to the window's end). Every
``/api`` answer to an authenticated caller carries the IETF draft's ``RateLimit-Policy`` and
``RateLimit`` fields (draft-ietf-httpapi-ratelimit-headers), one item per budget that applied,
``r`` being what is left of this process's share (never more than what is really left).

Failed authentication (a missing, malformed, unknown, wrong or revoked key) counts against the
client address; past its small budget every request from that address whose key is not
already verified in this process gets 429 before any database read, so brute-forcing keys is
slow and cheap to refuse, while a valid key from the same address keeps working.
Budgets are kept per subject, so one tenant exhausting its own never slows another, and the
tables are swept each window, so they stay bounded.
"""

from __future__ import annotations

import math
import os
import re
import threading
import time
from collections.abc import Callable
from typing import Any

import attrs
from litestar import Request

from payhub.domain.errors import RateLimited, Unauthenticated
from payhub.services.auth import Caller

_SPEC = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


@attrs.frozen
class Budget:
    name: str
    quota: int  # requests per window, across all processes
    window_s: int

    @classmethod
    def parse(cls, name: str, text: str) -> Budget:
        """``"600/60"``: 600 requests per 60 seconds."""
        m = _SPEC.match(text)
        if m is None or int(m[1]) < 1 or int(m[2]) < 1:
            raise ValueError(f"rate limit {name!r} must read QUOTA/SECONDS, e.g. 600/60: {text!r}")
        return cls(name, int(m[1]), int(m[2]))


DEFAULT_KEY = Budget("key", 6000, 60)
DEFAULT_MERCHANT = Budget("merchant", 3000, 60)
DEFAULT_AUTH_FAILURES = Budget("auth-failures", 20, 60)


@attrs.frozen
class Decision:
    budget: Budget
    allowed: bool
    remaining: int
    reset_s: int

    def policy_item(self) -> str:
        return f'"{self.budget.name}";q={self.budget.quota};w={self.budget.window_s}'

    def item(self) -> str:
        return f'"{self.budget.name}";r={self.remaining};t={self.reset_s}'


class Limiter:
    def __init__(
        self,
        key: Budget = DEFAULT_KEY,
        merchant: Budget = DEFAULT_MERCHANT,
        auth_failures: Budget = DEFAULT_AUTH_FAILURES,
        processes: int = 1,
        now: Callable[[], float] = time.time,
    ) -> None:
        self.key = key
        self.merchant = merchant
        self.auth_failures = auth_failures
        self.processes = max(1, processes)
        self._now = now
        self._lock = threading.Lock()
        # (budget name, subject) -> (window number, requests in it)
        self._counts: dict[tuple[str, str], tuple[int, int]] = {}
        self._swept = 0

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Limiter | None:
        """The server's limiter from ``PAYHUB_RATE_LIMIT_*``; ``None`` when switched off."""
        env = dict(os.environ if env is None else env)
        if env.get("PAYHUB_RATE_LIMITS", "on").strip().lower() in ("off", "0", "false", "no"):
            return None
        return cls(
            Budget.parse("key", env.get("PAYHUB_RATE_LIMIT_KEY", "6000/60")),
            Budget.parse("merchant", env.get("PAYHUB_RATE_LIMIT_MERCHANT", "3000/60")),
            Budget.parse("auth-failures", env.get("PAYHUB_RATE_LIMIT_AUTH_FAILURES", "20/60")),
            int(env.get("PAYHUB_RATE_LIMIT_PROCESSES", "1") or 1),
        )

    def share(self, budget: Budget) -> int:
        return max(1, budget.quota // self.processes)

    def _decide(self, budget: Budget, subject: str, cost: int) -> Decision:
        now = self._now()
        window = int(now // budget.window_s)
        reset = max(1, math.ceil((window + 1) * budget.window_s - now))
        share = self.share(budget)
        slot = (budget.name, subject)
        with self._lock:
            if window != self._swept:
                self._sweep(window)
            seen_window, used = self._counts.get(slot, (window, 0))
            if seen_window != window:
                used = 0
            allowed = used + cost <= share
            if allowed and cost:
                used += cost
                self._counts[slot] = (window, used)
        return Decision(budget, allowed, max(0, share - used), reset)

    def _sweep(self, window: int) -> None:
        # Windows differ per budget; an entry is dropped once its own window is over.
        self._swept = window
        budgets = {b.name: b for b in (self.key, self.merchant, self.auth_failures)}
        now = self._now()
        stale = [
            slot
            for slot, (seen, _) in self._counts.items()
            if seen != int(now // budgets[slot[0]].window_s)
        ]
        for slot in stale:
            del self._counts[slot]

    def take(self, budget: Budget, subject: str) -> Decision:
        """Count one request against ``subject``'s share of ``budget``."""
        return self._decide(budget, subject, 1)

    def peek(self, budget: Budget, subject: str) -> Decision:
        """Whether ``subject`` still has room, without counting."""
        return self._decide(budget, subject, 0)

    # --- what the API layer asks -----------------------------------------------------------

    def address_blocked(self, address: str) -> Decision | None:
        """The refusal for an address past its failed-authentication budget, else ``None``."""
        seen = self.peek(self.auth_failures, address)
        return seen if seen.remaining <= 0 else None

    def failed(self, address: str) -> Decision:
        return self.take(self.auth_failures, address)

    def admit(self, caller: Caller, merchant_reference: str | None) -> list[Decision]:
        """Count a request of an authenticated caller; the decisions that applied (the
        first refused one last)."""
        decisions = [self.take(self.key, caller.api_key_id)]
        if not decisions[0].allowed:
            return decisions
        subject = (
            f"m:{caller.merchant_id}"
            if caller.merchant_id is not None
            else f"r:{caller.provider_id}:{merchant_reference}"
            if merchant_reference
            else None
        )
        if subject is not None:
            decisions.append(self.take(self.merchant, subject))
        return decisions


_POLICIES: dict[tuple[Budget, ...], bytes] = {}


def headers(decisions: list[Decision]) -> list[tuple[bytes, bytes]]:
    """``RateLimit-Policy`` and ``RateLimit`` (IETF draft) for the budgets that applied."""
    applied = tuple(d.budget for d in decisions)
    policy = _POLICIES.get(applied)
    if policy is None:  # a handful of combinations: built once each
        policy = _POLICIES[applied] = ", ".join(d.policy_item() for d in decisions).encode()
    return [
        (b"ratelimit-policy", policy),
        (b"ratelimit", ", ".join(d.item() for d in decisions).encode()),
    ]


def refusal(decision: Decision, what: str) -> RateLimited:
    return RateLimited(
        f"the request budget of {decision.budget.quota} requests per"
        f" {decision.budget.window_s} s {what} is used up; retry in {decision.reset_s} s",
        decision.reset_s,
    )


_MERCHANT_PATH = re.compile(r"^/api/merchant-accounts/([^/]+)")


def merchant_reference(path: str, header: str | None, query: str | None) -> str | None:
    """The merchant a provider-key request names: in the path, ``X-Merchant-Reference`` or
    ``merchantReference``."""
    m = _MERCHANT_PATH.match(path)
    if m:
        return m[1]
    for given in (header, query):
        if given and given.strip():
            return given.strip()
    return None


def limiter_of(request: Request[Any, Any, Any]) -> Limiter | None:
    found: Limiter | None = request.app.state.get("limiter")
    return found


def _address(request: Request[Any, Any, Any]) -> str:
    return request.client.host if request.client else "unknown"


def _attach(request: Request[Any, Any, Any], decisions: list[Decision]) -> None:
    """The RateLimit fields, added to whatever answer this request gets (see RequestLog)."""
    request.scope.setdefault("state", {})["response_headers"] = headers(decisions)


def after_failure(request: Request[Any, Any, Any], limiter: Limiter) -> None:
    """Count a failed authentication; past the address's budget the answer is 429."""
    seen = limiter.failed(_address(request))
    _attach(request, [seen])
    if not seen.allowed:
        raise refusal(seen, "for failed authentication from this address")


def before_lookup(request: Request[Any, Any, Any], limiter: Limiter) -> None:
    """Refuse an address past its failed-authentication budget before any database read."""
    blocked = limiter.address_blocked(_address(request))
    if blocked is not None:
        _attach(request, [blocked])
        raise refusal(blocked, "for failed authentication from this address")


def admit(request: Request[Any, Any, Any], limiter: Limiter, caller: Caller) -> None:
    """Count an authenticated request against its key's and its merchant's budgets."""
    named = None
    if caller.merchant_id is None:
        # The raw path and lazily the query: building Litestar's URL object costs more.
        named = merchant_reference(
            request.scope["path"], request.headers.get("x-merchant-reference"), None
        )
        if named is None and request.scope.get("query_string"):
            named = merchant_reference("", None, request.query_params.get("merchantReference"))
    decisions = limiter.admit(caller, named)
    _attach(request, decisions)
    last = decisions[-1]
    if not last.allowed:
        whom = "for this API key" if last.budget is limiter.key else "for this merchant"
        raise refusal(last, whom)


def authenticate_sync(request: Request[Any, Any, Any]) -> Caller:
    """Authentication with the failed-authentication budget, for callers off the dependency
    path (the answer to an unknown /api route)."""
    hub = request.app.state.hub
    limiter = limiter_of(request)
    presented = request.headers.get("x-api-key")
    try:
        caller: Caller | None = hub.authenticate_cached(presented)
        if caller is None:
            if limiter is not None:
                before_lookup(request, limiter)
            caller = hub.authenticate(presented)
    except Unauthenticated:
        if limiter is not None:
            after_failure(request, limiter)
        raise
    assert caller is not None
    return caller
