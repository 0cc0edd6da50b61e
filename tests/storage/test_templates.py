"""The per-process migrated stores (tests/templates.py) start every test exactly fresh."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from payhub.adapters.storage import open_store
from tests.pg import postgres_url_or_skip
from tests.templates import PostgresTemplate, sqlite_migrated


def _pg(statement: str, schema: str, *params: str) -> list[tuple[object, ...]]:
    with psycopg.connect(postgres_url_or_skip(), autocommit=True) as conn:
        conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(schema)))
        cursor = conn.execute(statement.encode(), list(params))
        return cursor.fetchall() if cursor.description else []


@pytest.mark.postgres
def test_postgres_template_is_emptied_and_rebuilt_when_a_test_changed_the_schema() -> None:
    template = PostgresTemplate(postgres_url_or_skip())
    template.build()
    try:
        first = template.schema
        _pg(
            "INSERT INTO providers (id, name, environment, created_at)"
            " VALUES ('prv_x', 'X', 'sandbox', now())",
            first,
        )
        template.reset()
        assert template.schema == first  # emptied in place
        assert _pg("SELECT count(*) FROM providers", first) == [(0,)]
        assert _pg("SELECT count(*) > 10 FROM schema_migrations", first) == [(True,)]

        _pg("ALTER TABLE providers ADD COLUMN stray TEXT", first)
        template.reset()
        assert template.schema != first  # changed: dropped and migrated anew
        gone = _pg("SELECT count(*) FROM pg_namespace WHERE nspname = %s", "public", first)
        assert gone == [(0,)]
        columns = _pg(
            "SELECT column_name FROM information_schema.columns"
            " WHERE table_schema = %s AND table_name = 'providers'",
            "public",
            template.schema,
        )
        assert ("stray",) not in columns
        assert ("name",) in columns
    finally:
        template.close()


def test_sqlite_copies_are_migrated_and_independent(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    one = sqlite_migrated(tmp_path / "a", request)
    two = sqlite_migrated(tmp_path / "b", request)
    store = open_store(one)
    assert store.migrate() == []  # already migrated
    store.close()
    with sqlite3.connect(one.removeprefix("sqlite:///")) as conn:
        conn.execute("DELETE FROM schema_migrations")
    with sqlite3.connect(two.removeprefix("sqlite:///")) as conn:
        assert conn.execute("SELECT count(*) FROM schema_migrations").fetchone()[0] > 10
