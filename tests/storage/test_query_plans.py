"""Every hot query uses an index, on both stores (issue 16: per-request cost stays flat as
tables grow). The statements are the repositories' own, recorded as they run, then
explained: SQLite's ``EXPLAIN QUERY PLAN`` must SEARCH (never SCAN a table) and PostgreSQL's
plan, with sequential scans disabled so an empty table does not hide a missing index, must
hold no ``Seq Scan``."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from payhub.adapters.storage.sql import Row, SqlUnitOfWork
from payhub.domain.environments import Environment
from payhub.ports import Store, StoredResponse, UnitOfWork

NOW = datetime(2025, 3, 14, 9, 0, tzinfo=UTC)


class Recorder:
    """A ``Db`` that runs and remembers every statement."""

    def __init__(self, db: Any) -> None:
        self.db = db
        self.dialect: str = db.dialect
        self.statements: list[tuple[str, dict[str, Any]]] = []

    def execute(self, sql: str, params: dict[str, Any] | None = None) -> int:
        self.statements.append((sql, dict(params or {})))
        return int(self.db.execute(sql, params))

    def query(self, sql: str, params: dict[str, Any] | None = None) -> list[Row]:
        self.statements.append((sql, dict(params or {})))
        return list(self.db.query(sql, params))


HOT: dict[str, Callable[[UnitOfWork], object]] = {
    "api key by key id": lambda uow: uow.api_keys.get_by_key_id("kid_1"),
    "merchant by reference": lambda uow: uow.merchants.get_by_reference("prv_1", "shop-1"),
    "transaction by gateway key": lambda uow: uow.transactions.get_by_gateway_key("mer_1", "phk-1"),
    "idempotency claim": lambda uow: uow.idempotency.claim(
        "prv_1", "digest", "fp", NOW, NOW + timedelta(days=1), NOW - timedelta(seconds=30)
    ),
    "idempotency renew and finish": lambda uow: (
        uow.idempotency.renew("prv_1", "digest", NOW),
        uow.idempotency.finish("prv_1", "digest", StoredResponse(201, b"{}")),
    ),
    "job lease": lambda uow: uow.jobs.lease(
        "schedules", NOW, "worker-1", 20, NOW + timedelta(minutes=5)
    ),
    "job complete": lambda uow: uow.jobs.complete("job_1", "worker-1", NOW),
    "link by code": lambda uow: uow.short_links.resolve("abc123", Environment.SANDBOX),
    "invoice by number": lambda uow: uow.invoices.get("mer_1", "INV-0001"),
    "due schedule": lambda uow: uow.scheduled_payments.get_for_run("sch_1"),
}

_TABLE_SCAN = re.compile(r"^SCAN (?!CONSTANT ROW)")


def _plan(db: Any, sql: str, params: dict[str, Any]) -> list[str]:
    if db.dialect == "sqlite":
        return [str(r["detail"]) for r in db.query(f"EXPLAIN QUERY PLAN {sql}", params)]
    return [str(next(iter(r.values()))) for r in db.query(f"EXPLAIN {sql}", params)]


def _unindexed(db: Any, plan: list[str]) -> list[str]:
    if db.dialect == "sqlite":
        return [line for line in plan if _TABLE_SCAN.match(line.strip())]
    return [line for line in plan if "Seq Scan" in line]


@pytest.mark.parametrize("name", sorted(HOT))
def test_hot_queries_use_an_index(store: Store, name: str) -> None:
    with store._transaction() as db:  # type: ignore[attr-defined]
        if db.dialect == "postgres":
            db.execute("SET LOCAL enable_seqscan = off")
        recorder = Recorder(db)
        HOT[name](SqlUnitOfWork(recorder))
        assert recorder.statements, "the operation ran no SQL"
        explained = 0
        for sql, params in recorder.statements:
            if not sql.lstrip().upper().startswith(("SELECT", "UPDATE", "DELETE", "INSERT")):
                continue
            plan = _plan(db, sql, params)
            assert not _unindexed(db, plan), f"{sql}\n" + "\n".join(plan)
            explained += 1
        assert explained


def test_the_check_catches_a_table_scan(store: Store) -> None:
    """Break it once: a query on an unindexed column is reported."""
    with store._transaction() as db:  # type: ignore[attr-defined]
        if db.dialect == "postgres":
            db.execute("SET LOCAL enable_seqscan = off")
        sql = "SELECT * FROM merchants WHERE display_name = :n"
        assert _unindexed(db, _plan(db, sql, {"n": "Shop"}))
