"""Accounting connections, remote links and sync runs in shared SQL (migration 22)."""

from __future__ import annotations

import json
from collections.abc import Collection
from typing import Any

from payhub.adapters.storage.sql import Row, UniqueViolation, _Repo, opt_dt, to_bytes, to_dt
from payhub.domain.accounting import (
    AccountingConnection,
    AccountingSystem,
    ConnectionStatus,
    LinkKind,
    RemoteEnvironment,
    RemoteLink,
    RunKind,
    RunStatus,
    SyncRun,
)
from payhub.domain.errors import Conflict

_CONNECTION_COLUMNS = (
    "merchant_id",
    "system",
    "status",
    "status_reason",
    "environment",
    "company_id",
    "company_name",
    "home_currency",
    "automatic_sales_tax",
    "item_categories",
    "tokens_sealed",
    "invoice_cursor",
    "state_digest",
    "state_expires_at",
    "connected_at",
    "disconnected_at",
    "created_at",
    "updated_at",
)


def _connection_row(c: AccountingConnection) -> dict[str, Any]:
    return {
        "merchant_id": c.merchant_id,
        "system": c.system.value,
        "status": c.status.value,
        "status_reason": c.status_reason,
        "environment": c.environment.value if c.environment else None,
        "company_id": c.company_id,
        "company_name": c.company_name,
        "home_currency": c.home_currency,
        "automatic_sales_tax": c.automatic_sales_tax,
        "item_categories": c.item_categories,
        "tokens_sealed": c.tokens_sealed,
        "invoice_cursor": c.invoice_cursor,
        "state_digest": c.state_digest,
        "state_expires_at": c.state_expires_at,
        "connected_at": c.connected_at,
        "disconnected_at": c.disconnected_at,
        "created_at": c.created_at,
        "updated_at": c.updated_at,
    }


def _connection(r: Row) -> AccountingConnection:
    return AccountingConnection(
        merchant_id=r["merchant_id"],
        system=AccountingSystem(r["system"]),
        status=ConnectionStatus(r["status"]),
        created_at=to_dt(r["created_at"]),
        updated_at=to_dt(r["updated_at"]),
        environment=RemoteEnvironment(r["environment"]) if r["environment"] else None,
        company_id=r["company_id"],
        company_name=r["company_name"],
        home_currency=r["home_currency"],
        automatic_sales_tax=bool(r["automatic_sales_tax"]),
        item_categories=bool(r["item_categories"]),
        status_reason=r["status_reason"],
        tokens_sealed=None if r["tokens_sealed"] is None else to_bytes(r["tokens_sealed"]),
        invoice_cursor=opt_dt(r["invoice_cursor"]),
        state_digest=r["state_digest"],
        state_expires_at=opt_dt(r["state_expires_at"]),
        connected_at=opt_dt(r["connected_at"]),
        disconnected_at=opt_dt(r["disconnected_at"]),
    )


def _link(r: Row) -> RemoteLink:
    return RemoteLink(
        merchant_id=r["merchant_id"],
        system=AccountingSystem(r["system"]),
        kind=LinkKind(r["kind"]),
        local_id=r["local_id"],
        request_id=r["request_id"],
        created_at=to_dt(r["created_at"]),
        updated_at=to_dt(r["updated_at"]),
        remote_id=r["remote_id"],
        sync_token=r["sync_token"],
    )


def _run(r: Row) -> SyncRun:
    return SyncRun(
        id=r["id"],
        merchant_id=r["merchant_id"],
        system=AccountingSystem(r["system"]),
        kind=RunKind(r["kind"]),
        status=RunStatus(r["status"]),
        created_at=to_dt(r["created_at"]),
        updated_at=to_dt(r["updated_at"]),
        counts={str(k): int(v) for k, v in json.loads(r["counts"]).items()},
        errors=[str(e) for e in json.loads(r["errors"])],
        subject=r["subject"],
        step=r["step"],
        started_at=opt_dt(r["started_at"]),
        finished_at=opt_dt(r["finished_at"]),
    )


class SqlAccounting(_Repo):
    def get(
        self, merchant_id: str, system: AccountingSystem, for_update: bool = False
    ) -> AccountingConnection | None:
        lock = " FOR UPDATE" if for_update and self.db.dialect == "postgres" else ""
        row = self._one(
            f"SELECT * FROM accounting_connections WHERE merchant_id = :m AND system = :s{lock}",
            m=merchant_id,
            s=system.value,
        )
        return _connection(row) if row else None

    def put(self, connection: AccountingConnection) -> None:
        cols = ", ".join(_CONNECTION_COLUMNS)
        values = ", ".join(f":{c}" for c in _CONNECTION_COLUMNS)
        updates = ", ".join(
            f"{c} = excluded.{c}"
            for c in _CONNECTION_COLUMNS
            if c not in ("merchant_id", "system", "created_at")
        )
        self.db.execute(
            f"INSERT INTO accounting_connections ({cols}) VALUES ({values})"
            f" ON CONFLICT (merchant_id, system) DO UPDATE SET {updates}",
            _connection_row(connection),
        )

    def by_state(self, system: AccountingSystem, digest: str) -> AccountingConnection | None:
        row = self._one(
            "SELECT * FROM accounting_connections WHERE system = :s AND state_digest = :d",
            s=system.value,
            d=digest,
        )
        return _connection(row) if row else None

    def by_company(self, system: AccountingSystem, company_id: str) -> list[AccountingConnection]:
        rows = self.db.query(
            "SELECT * FROM accounting_connections WHERE system = :s AND company_id = :c"
            " AND status = :connected ORDER BY merchant_id",
            {"s": system.value, "c": company_id, "connected": ConnectionStatus.CONNECTED.value},
        )
        return [_connection(r) for r in rows]

    def link(
        self, merchant_id: str, system: AccountingSystem, kind: LinkKind, local_id: str
    ) -> RemoteLink | None:
        row = self._one(
            "SELECT * FROM accounting_links WHERE merchant_id = :m AND system = :s"
            " AND kind = :k AND local_id = :l",
            m=merchant_id,
            s=system.value,
            k=kind.value,
            l=local_id,
        )
        return _link(row) if row else None

    def link_by_remote(
        self, merchant_id: str, system: AccountingSystem, kind: LinkKind, remote_id: str
    ) -> RemoteLink | None:
        row = self._one(
            "SELECT * FROM accounting_links WHERE merchant_id = :m AND system = :s"
            " AND kind = :k AND remote_id = :r",
            m=merchant_id,
            s=system.value,
            k=kind.value,
            r=remote_id,
        )
        return _link(row) if row else None

    def put_link(self, link: RemoteLink) -> None:
        try:
            self.db.execute(
                "INSERT INTO accounting_links (merchant_id, system, kind, local_id, request_id,"
                " remote_id, sync_token, created_at, updated_at) VALUES (:m, :s, :k, :l, :req,"
                " :r, :tok, :created, :updated) ON CONFLICT (merchant_id, system, kind, local_id)"
                " DO UPDATE SET request_id = excluded.request_id, remote_id = excluded.remote_id,"
                " sync_token = excluded.sync_token, updated_at = excluded.updated_at",
                {
                    "m": link.merchant_id,
                    "s": link.system.value,
                    "k": link.kind.value,
                    "l": link.local_id,
                    "req": link.request_id,
                    "r": link.remote_id,
                    "tok": link.sync_token,
                    "created": link.created_at,
                    "updated": link.updated_at,
                },
            )
        except UniqueViolation as e:
            raise Conflict(
                f"{link.kind.value} {link.remote_id} is already linked to another object"
            ) from e

    def links(
        self,
        merchant_id: str,
        system: AccountingSystem,
        kind: LinkKind,
        local_ids: Collection[str] | None = None,
    ) -> list[RemoteLink]:
        params: dict[str, Any] = {"m": merchant_id, "s": system.value, "k": kind.value}
        only = ""
        if local_ids is not None:
            if not local_ids:
                return []
            names = []
            for i, local in enumerate(sorted(set(local_ids))):
                params[f"l{i}"] = local
                names.append(f":l{i}")
            only = f" AND local_id IN ({', '.join(names)})"
        rows = self.db.query(
            "SELECT * FROM accounting_links WHERE merchant_id = :m AND system = :s AND kind = :k"
            f"{only} ORDER BY local_id",
            params,
        )
        return [_link(r) for r in rows]

    def _run_params(self, run: SyncRun) -> dict[str, Any]:
        return {
            "id": run.id,
            "m": run.merchant_id,
            "s": run.system.value,
            "kind": run.kind.value,
            "status": run.status.value,
            "subject": run.subject,
            "step": run.step,
            "counts": json.dumps(run.counts, sort_keys=True, separators=(",", ":")),
            "errors": json.dumps(run.errors, separators=(",", ":")),
            "created": run.created_at,
            "updated": run.updated_at,
            "started": run.started_at,
            "finished": run.finished_at,
        }

    def add_run(self, run: SyncRun) -> None:
        self.db.execute(
            "INSERT INTO accounting_runs (id, merchant_id, system, kind, status, subject, step,"
            " counts, errors, created_at, updated_at, started_at, finished_at) VALUES (:id, :m,"
            " :s, :kind, :status, :subject, :step, :counts, :errors, :created, :updated,"
            " :started, :finished)",
            self._run_params(run),
        )

    def get_run(self, merchant_id: str, run_id: str) -> SyncRun | None:
        row = self._one(
            "SELECT * FROM accounting_runs WHERE id = :id AND merchant_id = :m",
            id=run_id,
            m=merchant_id,
        )
        return _run(row) if row else None

    def save_run(self, run: SyncRun) -> None:
        self.db.execute(
            "UPDATE accounting_runs SET status = :status, step = :step, counts = :counts,"
            " errors = :errors, updated_at = :updated, started_at = :started,"
            " finished_at = :finished WHERE id = :id",
            self._run_params(run),
        )

    def latest_run(
        self, merchant_id: str, system: AccountingSystem, finished: bool = False
    ) -> SyncRun | None:
        only = " AND finished_at IS NOT NULL" if finished else ""
        row = self._one(
            "SELECT * FROM accounting_runs WHERE merchant_id = :m AND system = :s"
            f"{only} ORDER BY created_at DESC, id DESC LIMIT 1",
            m=merchant_id,
            s=system.value,
        )
        return _run(row) if row else None
