"""The sign-in throttle's windows open at a subject's first failure (no wall-clock boundary
hands a guesser a second budget)."""

from __future__ import annotations

import pytest

from payhub.domain.errors import RateLimited
from payhub_server.portal.throttle import SignInThrottle
from payhub_server.ratelimit import Budget


class Ticks:
    def __init__(self, start: float) -> None:
        self.t = start

    def __call__(self) -> float:
        return self.t


def throttle(ticks: Ticks) -> SignInThrottle:
    return SignInThrottle(Budget("a", 3, 900), Budget("b", 5, 900), now=ticks)


def test_a_quarter_hour_boundary_gives_no_second_budget() -> None:
    ticks = Ticks(899.0)  # one second before the wall clock's window 1 would open
    t = throttle(ticks)
    for n in range(5):
        t.check(f"x{n}@example.com", "10.0.0.1")
        t.failed(f"x{n}@example.com", "10.0.0.1")
        ticks.t += 0.5
    with pytest.raises(RateLimited) as refused:
        t.check("ann@example.com", "10.0.0.1")
    assert 897 <= refused.value.retry_after <= 900
    t.check("ann@example.com", "10.0.0.2")  # another address still has room


def test_the_window_ends_900_s_after_the_first_failure() -> None:
    ticks = Ticks(100.0)
    t = throttle(ticks)
    for _ in range(3):
        t.failed("Ann@example.com", "10.0.0.1")
    with pytest.raises(RateLimited):
        t.check("ann@EXAMPLE.com".lower(), "10.0.0.9")
    ticks.t = 999.0
    with pytest.raises(RateLimited) as refused:
        t.check("ann@example.com", "10.0.0.9")
    assert refused.value.retry_after == 1
    ticks.t = 1000.0
    t.check("ann@example.com", "10.0.0.9")
    t.failed("ann@example.com", "10.0.0.9")  # a fresh window with one failure
    t.check("ann@example.com", "10.0.0.9")


def test_the_table_is_swept() -> None:
    ticks = Ticks(0.0)
    t = throttle(ticks)
    for n in range(100):
        t.failed(f"u{n}@example.com", f"10.0.1.{n}")
    ticks.t = 2000.0
    t.failed("last@example.com", "10.0.2.1")
    assert len(t._account._seen) == 1
    assert len(t._address._seen) == 1
