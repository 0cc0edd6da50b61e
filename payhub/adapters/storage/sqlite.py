"""The embedded default store: one SQLite file through sqlite-utils.

WAL mode (readers never block the writer), foreign keys on, a busy timeout instead
of "database is locked" errors, and every writing unit of work is ``BEGIN IMMEDIATE``: SQLite
has one writer at a time, so taking the write lock up front turns races (sequences,
idempotency claims, job leases) into a queue instead of a failed upgrade.
Each thread gets its own connection.
"""

from __future__ import annotations

import hashlib
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import sqlite_utils
from sqlite_utils.utils import dedupe_keys

from payhub.adapters.storage.migrations import MIGRATIONS, render
from payhub.adapters.storage.sql import Row, SqlUnitOfWork, UniqueViolation, to_dt
from payhub.ports import MigrationStatus, UnitOfWork

BUSY_TIMEOUT_MS = 30_000


def _use_wal(conn: sqlite3.Connection) -> None:
    """Switch the file to WAL (a lasting setting, so usually already done).

    The switch needs an exclusive lock, and SQLite refuses it at once, without the busy
    timeout, when another connection is switching too (two processes opening a new file
    together), so that one case is retried here until the timeout."""
    deadline = time.monotonic() + BUSY_TIMEOUT_MS / 1000
    while True:
        try:
            if conn.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                conn.execute("PRAGMA journal_mode = WAL")
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)
        else:
            return


_AS_IS = frozenset({str, int, float, bytes, type(None)})


def _param(value: Any) -> Any:
    if type(value) in _AS_IS:  # most parameters: skip the isinstance chain (profiled)
        return value
    if isinstance(value, datetime):
        # Fixed-width UTC text sorts and compares correctly as a string.
        return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, bool):
        return int(value)
    return value


def _sha256_hex(text: str | None) -> str | None:
    """SQL ``payhub_sha256_hex(text)``: what PostgreSQL's ``sha256`` gives, in hex."""
    return None if text is None else hashlib.sha256(text.encode()).hexdigest()


class _SqliteDb:
    dialect = "sqlite"

    def __init__(self, db: sqlite_utils.Database) -> None:
        self.db = db

    @staticmethod
    def _params(params: dict[str, Any] | None) -> dict[str, Any]:
        return {k: _param(v) for k, v in (params or {}).items()}

    # Both go to the sqlite3 connection itself: sqlite_utils' ``execute``/``query`` wrappers
    # parse each statement's first keyword and dedupe column names on every call, a
    # measurable share of a charge's CPU (docs/performance.md).
    def execute(self, sql: str, params: dict[str, Any] | None = None) -> int:
        try:
            return self.db.conn.execute(sql, self._params(params)).rowcount
        except sqlite3.IntegrityError as e:
            if "UNIQUE" in str(e) or "PRIMARY KEY" in str(e):
                raise UniqueViolation(str(e)) from e
            raise

    def query(self, sql: str, params: dict[str, Any] | None = None) -> list[Row]:
        try:
            cursor = self.db.conn.execute(sql, self._params(params))
            keys = [d[0] for d in cursor.description or ()]
            if len(set(keys)) != len(keys):  # as sqlite_utils names them: id, id_2 …
                keys = dedupe_keys(keys)
            return [dict(zip(keys, row, strict=True)) for row in cursor.fetchall()]
        except sqlite3.IntegrityError as e:
            if "UNIQUE" in str(e):
                raise UniqueViolation(str(e)) from e
            raise


class SqliteStore:
    def __init__(self, path: Path | str) -> None:
        self.path = str(path)
        self.url_for_display = f"sqlite:///{self.path}"
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        self._writer = threading.RLock()  # re-entrant: a nested BEGIN fails loudly, not hangs

    @classmethod
    def from_url(cls, url: str) -> SqliteStore:
        path = url.removeprefix("sqlite:///").removeprefix("sqlite://")
        return cls(path or "payhub.db")

    def _db(self) -> _SqliteDb:
        db: _SqliteDb | None = getattr(self._local, "db", None)
        if db is None:
            conn = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=30
            )
            conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
            _use_wal(conn)
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA synchronous = NORMAL")
            conn.create_function("payhub_sha256_hex", 1, _sha256_hex, deterministic=True)
            db = _SqliteDb(sqlite_utils.Database(conn))
            self._local.db = db
            with self._lock:
                self._all.append(conn)
        return db

    @contextmanager
    def _transaction(self, readonly: bool = False) -> Iterator[_SqliteDb]:
        db = self._db()
        # Readers take no lock up front: in WAL mode they read a snapshot beside the writer.
        # Writers of this process queue on a lock before asking SQLite for the write lock:
        # SQLite's busy handler makes a waiting writer sleep (1, 2, 5 … 100 ms), which turns
        # a few concurrent writes into p99 spikes of 50-200 ms. Other processes still queue
        # through the busy timeout.
        with nullcontext() if readonly else self._writer:
            db.db.execute("BEGIN" if readonly else "BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                db.db.execute("ROLLBACK")
                raise
            db.db.execute("COMMIT")

    @contextmanager
    def unit_of_work(self, readonly: bool = False) -> Iterator[UnitOfWork]:
        with self._transaction(readonly) as db:
            yield SqlUnitOfWork(db)

    def migrate(self) -> list[int]:
        applied: list[int] = []
        with self._transaction() as db:
            db.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY,"
                " name TEXT NOT NULL, applied_at TEXT NOT NULL)"
            )
            done = {r["version"] for r in db.query("SELECT version FROM schema_migrations")}
            for migration in MIGRATIONS:
                if migration.version in done:
                    continue
                for statement in render(migration, "sqlite"):
                    db.execute(statement)
                db.execute(
                    "INSERT INTO schema_migrations (version, name, applied_at)"
                    " VALUES (:v, :n, :at)",
                    {"v": migration.version, "n": migration.name, "at": datetime.now(UTC)},
                )
                applied.append(migration.version)
        return applied

    def migration_status(self) -> list[MigrationStatus]:
        db = self._db()
        exists = db.query(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
        )
        done = (
            {r["version"]: r["applied_at"] for r in db.query("SELECT * FROM schema_migrations")}
            if exists
            else {}
        )
        return [
            MigrationStatus(
                m.version, m.name, to_dt(done[m.version]) if m.version in done else None
            )
            for m in MIGRATIONS
        ]

    def close(self) -> None:
        with self._lock:
            for conn in self._all:
                conn.close()
            self._all.clear()
        self._local = threading.local()
