"""Fixtures for the page tests: a live server per module (chromium itself is shared by every
browser test through ``tests/conftest.py``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.pages.live import Live, serve_public, start


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    tmp = tmp_path_factory.mktemp("live")
    db_url, key = start(tmp)
    with serve_public(db_url, tmp) as base:
        server = Live(base, db_url, tmp, key)
        yield server
        server.api.close()
