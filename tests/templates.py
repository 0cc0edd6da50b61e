"""Migrated stores for tests without migrating per test.

Migrating a fresh PostgreSQL schema costs about 40 catalog-heavy statements per migration,
which made schema setup the largest share of the suite. Instead each test process (each
xdist worker) keeps:

- **PostgreSQL**: one migrated schema, emptied after every test (``DELETE`` in foreign-key
  order, then seed rows copied back). Emptying a few dozen tiny tables takes milliseconds,
  where ``CREATE``/``DROP SCHEMA`` and ``TRUNCATE`` cost hundreds (catalog work). After
  emptying, the schema's fingerprint (every relation, column, index, constraint and applied
  migration) is compared with the one taken right after migrating: a test that changed the
  schema, or left a lock that stops the cleanup, gets the schema dropped and migrated anew
  for the next test. So every test starts from exactly a freshly migrated schema.
- **SQLite**: one migrated template file, copied to the test's own ``tmp_path``.

    url = postgres_migrated(request)      # in a fixture: the worker's schema, clean
    path = sqlite_migrated(tmp_path, request)
"""

from __future__ import annotations

import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg import sql

from payhub.adapters.storage import open_store
from tests.pg import CONNECT_TIMEOUT_S, postgres_url_or_skip, with_schema

# How long the cleanup waits for a lock a test left behind before rebuilding the schema.
CLEANUP_LOCK_TIMEOUT = "3s"

_FINGERPRINT = """
SELECT md5(coalesce(string_agg(x, ',' ORDER BY x), '')) AS f FROM (
  SELECT c.relname::text || ':' || c.relkind::text || ':' || a.attname::text || ':'
         || format_type(a.atttypid, a.atttypmod) || ':' || a.attnotnull::text
         || ':' || coalesce(pg_get_expr(d.adbin, d.adrelid), '') AS x
  FROM pg_class c
  JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
  LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
  WHERE c.relnamespace = {ns}::regnamespace
  UNION ALL
  SELECT conname::text || ':' || pg_get_constraintdef(oid) FROM pg_constraint
  WHERE connamespace = {ns}::regnamespace
  UNION ALL
  SELECT pg_get_indexdef(indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
  WHERE c.relnamespace = {ns}::regnamespace
  UNION ALL
  SELECT 'migration ' || version || ' ' || name FROM {schema}.schema_migrations
) q
"""


class PostgresTemplate:
    """This process's migrated schema, handed to one test at a time."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.schema = ""
        self._conn: psycopg.Connection[tuple[object, ...]] | None = None
        self._fingerprint = ""
        self._reset_script = ""

    @property
    def url(self) -> str:
        return with_schema(self.base, self.schema)

    def _admin(self) -> psycopg.Connection[tuple[object, ...]]:
        if self._conn is None or self._conn.closed:
            self._conn = psycopg.connect(
                self.base, autocommit=True, connect_timeout=CONNECT_TIMEOUT_S
            )
        return self._conn

    def _fingerprint_now(self, conn: psycopg.Connection[tuple[object, ...]]) -> str:
        query = sql.SQL(_FINGERPRINT).format(
            ns=sql.Literal(self.schema), schema=sql.Identifier(self.schema)
        )
        row = conn.execute(query).fetchone()
        assert row is not None
        return str(row[0])

    def build(self) -> None:
        """Create and migrate a new schema, and note how to empty it."""
        self.schema = f"w_{secrets.token_hex(6)}"
        conn = self._admin()
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(self.schema)))
        store = open_store(self.url)
        try:
            store.migrate()
        finally:
            store.close()
        self._fingerprint = self._fingerprint_now(conn)
        self._reset_script = self._plan(conn)

    def _plan(self, conn: psycopg.Connection[tuple[object, ...]]) -> str:
        """One script: delete every row children first, then copy the seed rows back."""
        ns = self.schema
        tables = [
            str(r[0])
            for r in conn.execute(
                "SELECT relname FROM pg_class WHERE relnamespace = %s::regnamespace"
                " AND relkind = 'r' ORDER BY relname",
                [ns],
            )
        ]
        parents: dict[str, set[str]] = {t: set() for t in tables}
        for child, parent in conn.execute(
            "SELECT conrelid::regclass::text, confrelid::regclass::text FROM pg_constraint"
            " WHERE connamespace = %s::regnamespace AND contype = 'f'",
            [ns],
        ):
            c, p = str(child).rpartition(".")[2], str(parent).rpartition(".")[2]
            if c != p and c in parents:
                parents[c].add(p)
        order: list[str] = []  # parents before children
        placed: set[str] = set()
        while len(order) < len(tables):
            ready = [t for t in tables if t not in placed and parents[t] <= placed]
            if not ready:
                raise RuntimeError(f"foreign keys form a cycle among {set(tables) - placed}")
            order.extend(ready)
            placed.update(ready)
        seed_schema = f"{ns}_seed"
        conn.execute(sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(seed_schema)))
        seeded: list[str] = []
        for table in order:
            if table == "schema_migrations":
                continue
            q = sql.SQL("SELECT EXISTS (SELECT 1 FROM {}.{})").format(
                sql.Identifier(ns), sql.Identifier(table)
            )
            row = conn.execute(q).fetchone()
            if row and row[0]:
                conn.execute(
                    sql.SQL("CREATE TABLE {}.{} AS SELECT * FROM {}.{}").format(
                        sql.Identifier(seed_schema),
                        sql.Identifier(table),
                        sql.Identifier(ns),
                        sql.Identifier(table),
                    )
                )
                seeded.append(table)
        statements = [
            sql.SQL("DELETE FROM {}.{}").format(sql.Identifier(ns), sql.Identifier(t))
            for t in reversed(order)
            if t != "schema_migrations"
        ] + [
            sql.SQL("INSERT INTO {0}.{2} SELECT * FROM {1}.{2}").format(
                sql.Identifier(ns), sql.Identifier(seed_schema), sql.Identifier(t)
            )
            for t in seeded
        ]
        return sql.SQL("; ").join(statements).as_string(conn)

    def reset(self) -> None:
        """Empty the schema for the next test, or rebuild it when emptying is not enough."""
        try:
            conn = self._admin()
            with conn.transaction():
                conn.execute(
                    sql.SQL("SET LOCAL lock_timeout = {}").format(sql.Literal(CLEANUP_LOCK_TIMEOUT))
                )
                conn.execute(self._reset_script.encode())
            if self._fingerprint_now(conn) == self._fingerprint:
                return
        except psycopg.Error:
            pass
        self.drop()
        self.build()

    def drop(self) -> None:
        if not self.schema:
            return
        conn = self._admin()
        for name in (self.schema, f"{self.schema}_seed"):
            conn.execute(sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(sql.Identifier(name)))
        self.schema = ""

    def close(self) -> None:
        self.drop()
        if self._conn is not None:
            self._conn.close()


def postgres_template_session() -> Iterator[PostgresTemplate]:
    """The body of the session fixture: build on first use, drop at the end."""
    template = PostgresTemplate(postgres_url_or_skip())
    template.build()
    try:
        yield template
    finally:
        template.close()


def postgres_migrated(request: pytest.FixtureRequest) -> Iterator[str]:
    """The process's migrated schema for one test, emptied afterwards."""
    template: PostgresTemplate = request.getfixturevalue("_postgres_template")
    try:
        yield template.url
    finally:
        template.reset()


def sqlite_template_session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("template") / "payhub.db"
    store = open_store(f"sqlite:///{path}")
    try:
        store.migrate()
    finally:
        store.close()  # the last connection checkpoints the WAL into the file
    return path


def sqlite_migrated(tmp_path: Path, request: pytest.FixtureRequest) -> str:
    """A copy of the migrated template file in the test's own directory."""
    template: Path = request.getfixturevalue("_sqlite_template")
    target = tmp_path / "payhub.db"
    shutil.copyfile(template, target)
    wal = template.with_name(template.name + "-wal")
    if wal.exists():  # normally checkpointed away when the template store closed
        shutil.copyfile(wal, target.with_name(target.name + "-wal"))
    return f"sqlite:///{target}"
