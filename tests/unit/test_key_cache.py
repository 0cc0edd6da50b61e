"""Verified keys come from an in-process cache: no secret kept, revocation honoured."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import attrs
import pytest

from payhub import PayHub, Unauthenticated
from payhub.domain.keys import parse_key
from payhub.services.caches import FreshCache
from tests.conftest import Account


class Ticks:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_entries_are_trusted_for_the_ttl_then_read_again() -> None:
    ticks = Ticks()
    cache: FreshCache[str, int] = FreshCache(10, 2.0, ticks)
    cache.put("a", 1, cache.begin())
    ticks.now += 1.99
    assert cache.get("a") == 1
    ticks.now += 0.01
    assert cache.get("a") is None


def test_a_read_that_began_before_an_invalidation_is_not_kept() -> None:
    cache: FreshCache[str, int] = FreshCache(10, 2.0)
    token = cache.begin()  # a reader starts, reads the old value...
    cache.invalidate("a")  # ...the value changes in this process...
    cache.put("a", 1, token)  # ...and the stale read is dropped
    assert cache.get("a") is None
    cache.put("a", 2, cache.begin())
    assert cache.get("a") == 2


def test_the_cache_is_bounded() -> None:
    cache: FreshCache[int, int] = FreshCache(3, 60.0)
    for i in range(10):
        cache.put(i, i, cache.begin())
    assert len(cache) == 3
    assert [cache.get(i) for i in (6, 7, 8, 9)] == [None, 7, 8, 9]


def test_a_verified_key_is_answered_without_the_database(
    hub: PayHub, sandbox_provider: Account
) -> None:
    first = hub.authenticate(sandbox_provider.key)
    assert hub.authenticate_cached(sandbox_provider.key) == first
    # A wrong secret under a cached key id is refused from the cache too.
    tampered = sandbox_provider.key[:-1] + ("a" if sandbox_provider.key[-1] != "a" else "b")
    with pytest.raises(Unauthenticated):
        hub.authenticate_cached(tampered)
    with pytest.raises(Unauthenticated):
        hub.authenticate(tampered)


def test_the_cache_keeps_the_digest_and_the_caller_never_the_key(
    hub: PayHub, sandbox_provider: Account
) -> None:
    hub.authenticate(sandbox_provider.key)
    parsed = parse_key(sandbox_provider.key)
    assert parsed is not None
    entry = hub.deps.key_cache.get(parsed.key_id)
    assert entry is not None
    assert {f.name for f in attrs.fields(type(entry))} == {"digest", "caller"}
    secret = sandbox_provider.key.rsplit("_", 1)[1]
    assert secret not in repr(entry)
    assert entry.digest != sandbox_provider.key


def test_a_key_revoked_in_this_process_is_refused_at_once(
    hub: PayHub,
    sandbox_provider: Account,
    make_merchant: Callable[..., object],
    merchant_key: Callable[[Account, str], str],
) -> None:
    make_merchant(sandbox_provider, "shop-1")
    shop_key = merchant_key(sandbox_provider, "shop-1")
    for key in (sandbox_provider.key, shop_key):
        hub.authenticate(key)  # cached
        parsed = parse_key(key)
        assert parsed is not None
        hub.operators.revoke_key(parsed.key_id)
        with pytest.raises(Unauthenticated):
            hub.authenticate(key)


def test_a_key_revoked_by_another_process_is_refused_after_the_ttl(
    hub: PayHub, sandbox_provider: Account, store_url: str, key_file: Path
) -> None:
    """Two hubs on one database stand for two processes; the second's cache clock is moved
    past the TTL instead of waiting for it."""
    ticks = Ticks()
    other = PayHub.open(store_url, key_file=key_file)
    try:
        object.__setattr__(other.deps, "key_cache", FreshCache(100, 2.0, ticks))
        other._auth._cache = other.deps.key_cache
        assert other.authenticate(sandbox_provider.key).provider_id
        parsed = parse_key(sandbox_provider.key)
        assert parsed is not None
        hub.operators.revoke_key(parsed.key_id)
        ticks.now += 2.0
        with pytest.raises(Unauthenticated):
            other.authenticate(sandbox_provider.key)
    finally:
        other.close()
