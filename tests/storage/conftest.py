"""Every storage test runs against both stores: a SQLite file and a PostgreSQL schema."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from payhub.adapters.storage import open_store
from payhub.ports import Store
from tests.pg import isolated_schema, postgres_url_or_skip
from tests.templates import postgres_migrated, sqlite_migrated

KINDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


def _location(kind: str, tmp_path: Path, *, create: bool) -> Iterator[str]:
    if kind == "sqlite":
        yield f"sqlite:///{tmp_path / 'payhub.db'}"
        return
    with isolated_schema(postgres_url_or_skip(), create=create) as url:
        yield url


@pytest.fixture(params=KINDS)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database: a SQLite file path, or a new PostgreSQL schema (dropped after)."""
    yield from _location(request.param, tmp_path, create=True)


@pytest.fixture(params=KINDS)
def fresh_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """Like ``store_url``, but nothing exists yet: no file, no schema."""
    yield from _location(request.param, tmp_path, create=False)


@pytest.fixture(params=KINDS)
def migrated_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A migrated database of the test's own (a copied file, or a schema emptied after)."""
    if request.param == "sqlite":
        yield sqlite_migrated(tmp_path, request)
    else:
        yield from postgres_migrated(request)


@pytest.fixture
def store(migrated_url: str) -> Iterator[Store]:
    """A migrated store, closed after the test."""
    opened = open_store(migrated_url)
    opened.migrate()  # finds every migration applied: the contract holds for a reopened store
    yield opened
    opened.close()
