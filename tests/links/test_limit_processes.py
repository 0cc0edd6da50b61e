"""The creation limit is decided in the database: processes racing near it never exceed it.

A merchant is put 10 links short of its 2,000 a day; three processes, each with its own hub
and connections, then try 10 creations each at the same moment. Exactly 10 succeed and the
other 20 are refused with 429, on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import multiprocessing
import queue
import traceback
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from payhub import Environment, PayHub, RateLimited
from payhub.domain.links import MERCHANT_DAILY_LIMIT
from payhub.services.links import LinkInput
from tests.links.conftest import SANDBOX_DOMAIN, insert_links, merchant_id

pytestmark = pytest.mark.slow

PROCESSES = 3
ATTEMPTS = 10
FREE = 10
TIMEOUT_S = 120


def _create_links(
    url: str, key_file: str, provider_id: str, start: Any, results: Any, index: int
) -> None:
    try:
        hub = PayHub.open(url, key_file=key_file)
        try:
            links = hub.provider(hub.as_provider(provider_id)).short_links
            with hub.store.unit_of_work():
                pass  # connected before the start line, so the race is on the work
            start.wait(TIMEOUT_S)
            outcomes = []
            for i in range(ATTEMPTS):
                try:
                    links.create(
                        LinkInput(
                            f"https://shop.example.com/{index}/{i}", merchant_reference="shop"
                        )
                    )
                    outcomes.append("created")
                except RateLimited:
                    outcomes.append("limited")
        finally:
            hub.close()
        results.put((index, None, outcomes))
    except BaseException:  # report anything, so the parent fails with the child's traceback
        results.put((index, traceback.format_exc(), None))


def test_processes_racing_near_the_limit_never_exceed_it(store_url: str, key_file: Path) -> None:
    hub = PayHub.open(store_url, key_file=key_file)
    try:
        provider, _ = hub.operators.create_provider("Racer", Environment.SANDBOX)
        hub.provider(hub.as_provider(provider.id)).merchants.create("shop", "Shop")
        hub.link_admin.set_domain(Environment.SANDBOX, SANDBOX_DOMAIN)
        shop = merchant_id(hub, provider.id, "shop")
        insert_links(
            hub,
            provider.id,
            shop,
            MERCHANT_DAILY_LIMIT - FREE,
            datetime.now(UTC) - timedelta(hours=1),
        )
    finally:
        hub.close()

    ctx = multiprocessing.get_context("spawn")
    start = ctx.Barrier(PROCESSES)
    results = ctx.Queue()
    procs = [
        ctx.Process(
            target=_create_links,
            args=(store_url, str(key_file), provider.id, start, results, i),
            daemon=True,
        )
        for i in range(PROCESSES)
    ]
    for p in procs:
        p.start()
    outcomes: list[str] = []
    failures = []
    try:
        for _ in procs:
            try:
                _, error, got = results.get(timeout=TIMEOUT_S)
            except queue.Empty:
                pytest.fail(f"a child gave no answer in {TIMEOUT_S} s")
            if error is not None:
                failures.append(error)
            else:
                outcomes += got
    finally:
        for p in procs:
            p.join(timeout=10)
            if p.is_alive():
                p.kill()
    if failures:
        pytest.fail("\n".join(failures), pytrace=False)

    assert Counter(outcomes) == {"created": FREE, "limited": PROCESSES * ATTEMPTS - FREE}
    hub = PayHub.open(store_url, key_file=key_file)
    try:
        with hub.store.unit_of_work() as uow:
            since = datetime.now(UTC) - timedelta(hours=24)
            assert uow.short_links.count_created(since, merchant_id=shop) == MERCHANT_DAILY_LIMIT
    finally:
        hub.close()
