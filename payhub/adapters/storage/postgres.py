"""The scale-out store: PostgreSQL through psycopg 3 and a small connection pool.

The repositories are the shared ones in ``sql.py``; this module only runs their SQL.
``?schema=NAME`` in the URL keeps payhub's tables in that schema (created if missing),
which is how tests and several installations share one database. Connections run in
autocommit and each unit of work is one explicit transaction, so nothing is ever left
open between units of work. Timestamps travel as ``timestamptz`` in a UTC session.
"""

from __future__ import annotations

import functools
import hashlib
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import psycopg
from psycopg import sql
from psycopg.rows import DictRow, dict_row
from psycopg_pool import ConnectionPool

from payhub.adapters.storage.migrations import MIGRATIONS, render
from payhub.adapters.storage.sql import Row, SqlUnitOfWork, UniqueViolation, to_dt
from payhub.ports import MigrationStatus, UnitOfWork

Conn = psycopg.Connection[DictRow]

POOL_MIN_SIZE = 1
POOL_MAX_SIZE = 10
CONNECT_TIMEOUT_S = 10
_SCHEMA_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")

# A quoted literal or identifier (copied as is), a ``::`` cast (kept), a ``:name``
# parameter (becomes ``%(name)s``) or a bare ``%`` (escaped for psycopg).
_TOKEN = re.compile(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|::|:([A-Za-z_]\w*)|%")


@functools.lru_cache(maxsize=512)
def translate(statement: str) -> str:
    """The shared SQL's ``:name`` parameters in psycopg's ``%(name)s`` spelling."""

    def one(match: re.Match[str]) -> str:
        if match.group(1):
            return f"%({match.group(1)})s"
        return "%%" if match.group(0) == "%" else match.group(0)

    return _TOKEN.sub(one, statement)


def advisory_key(purpose: str, schema: str) -> int:
    """A stable signed 64-bit ``pg_advisory_*`` key for one purpose in one schema."""
    digest = hashlib.blake2b(f"payhub:{purpose}:{schema}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def split_url(url: str) -> tuple[str, str | None, str]:
    """``(conninfo for psycopg, schema or None, URL safe to print)``."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    schemas = [value for name, value in query if name == "schema"]
    schema = schemas[-1] if schemas else None
    if schema is not None and not _SCHEMA_NAME.match(schema):
        raise ValueError(f"schema must be a plain identifier of at most 63 characters: {schema!r}")
    rest = urlencode([(name, value) for name, value in query if name != "schema"])
    conninfo = urlunsplit(parts._replace(query=rest))
    netloc = parts.netloc
    if parts.password is not None:
        user, _, host = netloc.rpartition("@")
        netloc = f"{user.partition(':')[0]}:***@{host}"
    display = urlunsplit(parts._replace(netloc=netloc))
    return conninfo, schema, display


class _PgDb:
    dialect = "postgres"

    def __init__(self, conn: Conn) -> None:
        self.conn = conn

    def _run(self, statement: str, params: dict[str, Any] | None) -> psycopg.Cursor[DictRow]:
        try:
            # Always a mapping (even empty), so psycopg reads the placeholders and ``%%``.
            return self.conn.execute(translate(statement), params or {})
        except psycopg.errors.UniqueViolation as e:
            # The transaction is now aborted: the unit of work ends with this error.
            raise UniqueViolation(str(e)) from e

    def execute(self, sql: str, params: dict[str, Any] | None = None) -> int:
        return self._run(sql, params).rowcount

    def query(self, sql: str, params: dict[str, Any] | None = None) -> list[Row]:
        return self._run(sql, params).fetchall()


class PostgresStore:
    def __init__(
        self, url: str, *, min_size: int = POOL_MIN_SIZE, max_size: int = POOL_MAX_SIZE
    ) -> None:
        self._conninfo, self.schema, self.url_for_display = split_url(url)
        self._min_size = min_size
        self._max_size = max_size
        self._pool: ConnectionPool[Conn] | None = None
        self._lock = threading.Lock()

    # --- connections -------------------------------------------------------------------

    def _connect_kwargs(self) -> dict[str, Any]:
        return {
            "autocommit": True,
            "row_factory": dict_row,
            "connect_timeout": CONNECT_TIMEOUT_S,
            "application_name": "payhub",
        }

    def _configure(self, conn: Conn) -> None:
        """Run on every new pooled connection: our schema first, UTC session time."""
        conn.execute("SET TIME ZONE 'UTC'")
        if self.schema is not None:
            conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(self.schema)))

    def _prepare(self) -> None:
        """Connect once before the pool opens: an unreachable server fails here with its
        real reason (the pool would only time out), and a missing schema is created."""
        with psycopg.connect(self._conninfo, **self._connect_kwargs()) as conn:
            if self.schema is None:
                return
            exists = conn.execute(
                "SELECT 1 FROM pg_namespace WHERE nspname = %s", [self.schema]
            ).fetchone()
            if exists:
                return
            # Concurrent CREATE SCHEMA IF NOT EXISTS can still collide; the lock queues them.
            with conn.transaction():
                conn.execute(
                    "SELECT pg_advisory_xact_lock(%s)", [advisory_key("schema", self.schema)]
                )
                conn.execute(
                    sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(sql.Identifier(self.schema))
                )

    def _get_pool(self) -> ConnectionPool[Conn]:
        with self._lock:
            if self._pool is None:
                self._prepare()
                pool: ConnectionPool[Conn] = ConnectionPool(
                    self._conninfo,
                    connection_class=Conn,
                    kwargs=self._connect_kwargs(),
                    min_size=self._min_size,
                    max_size=self._max_size,
                    configure=self._configure,
                    name="payhub",
                    open=False,
                )
                pool.open(wait=True, timeout=CONNECT_TIMEOUT_S)
                self._pool = pool
            return self._pool

    @contextmanager
    def _transaction(self) -> Iterator[_PgDb]:
        with self._get_pool().connection() as conn, conn.transaction():
            yield _PgDb(conn)

    # --- the Store port ----------------------------------------------------------------

    @contextmanager
    def unit_of_work(self, readonly: bool = False) -> Iterator[UnitOfWork]:
        # ``readonly`` matters to SQLite's single writer; PostgreSQL reads never block writers.
        with self._transaction() as db:
            yield SqlUnitOfWork(db)

    def migrate(self) -> list[int]:
        applied: list[int] = []
        with self._transaction() as db:
            # Two processes starting together: the second waits here, then finds the
            # versions the first recorded. The lock ends with the transaction.
            row = db.query("SELECT current_schema() AS s")[0]
            db.query("SELECT pg_advisory_xact_lock(:k)", {"k": advisory_key("migrate", row["s"])})
            db.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY,"
                " name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL)"
            )
            done = {r["version"] for r in db.query("SELECT version FROM schema_migrations")}
            for migration in MIGRATIONS:
                if migration.version in done:
                    continue
                for statement in render(migration, "postgres"):
                    db.execute(statement)
                db.execute(
                    "INSERT INTO schema_migrations (version, name, applied_at)"
                    " VALUES (:v, :n, :at)",
                    {"v": migration.version, "n": migration.name, "at": datetime.now(UTC)},
                )
                applied.append(migration.version)
        return applied

    def migration_status(self) -> list[MigrationStatus]:
        with self._transaction() as db:
            exists = db.query("SELECT to_regclass('schema_migrations') IS NOT NULL AS e")[0]
            done = (
                {
                    r["version"]: r["applied_at"]
                    for r in db.query("SELECT version, applied_at FROM schema_migrations")
                }
                if exists["e"]
                else {}
            )
        return [
            MigrationStatus(
                m.version, m.name, to_dt(done[m.version]) if m.version in done else None
            )
            for m in MIGRATIONS
        ]

    def close(self) -> None:
        """Close every pooled connection; a later unit of work opens a new pool."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()
