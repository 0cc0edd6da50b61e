"""Fixtures for the portal's HTTP tests: the app on a real store, and browser-like clients."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
from litestar import Litestar

from tests.portal.support import Browser


@pytest.fixture
def browse(app: Litestar) -> Iterator[Callable[..., Browser]]:
    opened: list[Browser] = []

    def make(base_url: str = "http://testserver.local") -> Browser:
        b = Browser(app, base_url)
        opened.append(b)
        return b

    yield make
    for b in opened:
        b.close()
