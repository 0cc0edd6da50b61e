"""Redirects come from a cache of links and count opens in memory, written in batches:
revocation elsewhere is seen within LINK_TTL_S, no open is lost on a clean shutdown or a
failed write."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from litestar.testing import TestClient

from payhub import PayHub
from payhub.services.caches import FreshCache
from payhub.services.deps import LINK_TTL_S
from payhub_server.app import create_app
from tests.conftest import START
from tests.links.conftest import Client, Shop, create, opens_by_day, visit

TODAY = START.date().isoformat()


class Ticks:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_cached_link_is_answered_without_the_database(
    hub: PayHub, client: Client, shop: Shop, monkeypatch: pytest.MonkeyPatch
) -> None:
    code = create(client, shop.key_1)["code"]
    assert visit(client, code).status_code == 302  # read once, now cached
    opened: list[bool] = []
    real = hub.store.unit_of_work

    def spy(*args: Any, **kwargs: Any) -> Any:
        opened.append(True)
        return real(*args, **kwargs)

    monkeypatch.setattr(hub.store, "unit_of_work", spy)
    for _ in range(20):
        assert visit(client, code).status_code == 302
    assert opened == []  # neither a read nor a write per redirect
    monkeypatch.undo()
    assert opens_by_day(hub, shop.provider_id, code) == {TODAY: 21}


def test_a_link_revoked_by_another_process_stops_within_the_ttl(
    hub: PayHub, client: Client, shop: Shop, store_url: str, key_file: Path
) -> None:
    """A second hub on the same database stands for another server; this hub's cache clock
    is moved past the TTL instead of waiting for it."""
    ticks = Ticks()
    object.__setattr__(hub.deps, "link_cache", FreshCache(100, LINK_TTL_S, ticks))
    code = create(client, shop.key_1)["code"]
    assert visit(client, code).status_code == 302
    other = PayHub.open(store_url, key_file=key_file)
    try:
        other.provider(other.authenticate(shop.account.key)).short_links.revoke(code)
    finally:
        other.close()
    ticks.now += LINK_TTL_S - 0.01
    assert visit(client, code).status_code == 302  # still within the documented bound
    ticks.now += 0.01
    assert visit(client, code).status_code == 410


def test_a_failed_write_keeps_the_opens_for_the_next_one(
    hub: PayHub, client: Client, shop: Shop, monkeypatch: pytest.MonkeyPatch
) -> None:
    code = create(client, shop.key_1)["code"]
    for _ in range(5):
        visit(client, code)

    @contextmanager
    def down(*_: Any, **__: Any) -> Iterator[Any]:
        raise ConnectionError("database unavailable")
        yield

    monkeypatch.setattr(hub.store, "unit_of_work", down)
    with pytest.raises(ConnectionError):
        hub.redirects.flush()
    monkeypatch.undo()
    visit(client, code)
    assert opens_by_day(hub, shop.provider_id, code) == {TODAY: 6}


def test_opens_counted_in_memory_are_written_on_a_clean_shutdown(
    hub: PayHub, shop: Shop, store_url: str, key_file: Path
) -> None:
    hub.redirects._every = 3600.0  # only the shutdown writes them (PAYHUB_OPENS_FLUSH_SECONDS)
    with TestClient(create_app(hub), base_url="http://testserver.local") as served:
        code = create(served, shop.key_1)["code"]
        for _ in range(7):
            assert visit(served, code).status_code == 302
        assert len(hub.deps.open_tally) == 1  # not written yet: counted in memory
    # The app's shutdown closed the hub; a fresh one reads what was written.
    reader = PayHub.open(store_url, key_file=key_file)
    try:
        assert opens_by_day(reader, shop.provider_id, code) == {TODAY: 7}
    finally:
        reader.close()
