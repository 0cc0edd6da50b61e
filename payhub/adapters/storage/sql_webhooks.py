"""Webhook endpoints, deliveries and the attempt log, in shared SQL (see ``sql.py``)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from payhub.adapters.storage.sql import Row, _Repo, opt_dt, to_bytes, to_dt
from payhub.domain.webhooks import (
    DeliveryAttempt,
    DeliveryStatus,
    WebhookDelivery,
    WebhookEndpoint,
)

_ENDPOINT_COLUMNS = (
    "id",
    "provider_id",
    "merchant_id",
    "url",
    "event_types",
    "description",
    "alert_email",
    "enabled",
    "disabled_reason",
    "secret_sealed",
    "previous_secret_sealed",
    "previous_secret_expires_at",
    "failing_since",
    "created_at",
    "updated_at",
    "deleted_at",
)
_DELIVERY_COLUMNS = (
    "id",
    "endpoint_id",
    "provider_id",
    "merchant_id",
    "event_id",
    "event_type",
    "object_id",
    "seq",
    "body",
    "status",
    "attempts",
    "job_id",
    "next_attempt_at",
    "attempt_started_at",
    "last_status_code",
    "last_error",
    "created_at",
    "updated_at",
    "finished_at",
)
_ATTEMPT_COLUMNS = (
    "id",
    "delivery_id",
    "endpoint_id",
    "event_id",
    "event_type",
    "attempt",
    "started_at",
    "duration_ms",
    "status_code",
    "error",
    "outcome",
    "next_attempt_at",
)
_FIXED = frozenset({"id", "provider_id", "merchant_id", "created_at"})
_DELIVERY_FIXED = frozenset(
    {
        "id",
        "endpoint_id",
        "provider_id",
        "merchant_id",
        "event_id",
        "event_type",
        "object_id",
        "seq",
        "body",
    }
)
_OPEN = "status IN ('waiting', 'pending')"


def _insert(table: str, columns: tuple[str, ...]) -> str:
    return (
        f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join(':' + c for c in columns)})"
    )


def _update(table: str, columns: tuple[str, ...], fixed: frozenset[str]) -> str:
    sets = ", ".join(f"{c} = :{c}" for c in columns if c not in fixed)
    return f"UPDATE {table} SET {sets} WHERE id = :id"


class SqlWebhooks(_Repo):
    # --- endpoints ---

    @staticmethod
    def _endpoint_params(e: WebhookEndpoint) -> dict[str, Any]:
        return {
            "id": e.id,
            "provider_id": e.provider_id,
            "merchant_id": e.merchant_id,
            "url": e.url,
            "event_types": json.dumps(list(e.event_types)),
            "description": e.description,
            "alert_email": e.alert_email,
            "enabled": e.enabled,
            "disabled_reason": e.disabled_reason,
            "secret_sealed": e.secret_sealed,
            "previous_secret_sealed": e.previous_secret_sealed,
            "previous_secret_expires_at": e.previous_secret_expires_at,
            "failing_since": e.failing_since,
            "created_at": e.created_at,
            "updated_at": e.updated_at,
            "deleted_at": e.deleted_at,
        }

    @staticmethod
    def _endpoint(row: Row) -> WebhookEndpoint:
        previous = row["previous_secret_sealed"]
        return WebhookEndpoint(
            id=row["id"],
            provider_id=row["provider_id"],
            merchant_id=row["merchant_id"],
            url=row["url"],
            event_types=tuple(json.loads(row["event_types"])),
            description=row["description"],
            alert_email=row["alert_email"],
            enabled=bool(row["enabled"]),
            disabled_reason=row["disabled_reason"],
            secret_sealed=to_bytes(row["secret_sealed"]),
            previous_secret_sealed=None if previous is None else to_bytes(previous),
            previous_secret_expires_at=opt_dt(row["previous_secret_expires_at"]),
            failing_since=opt_dt(row["failing_since"]),
            created_at=to_dt(row["created_at"]),
            updated_at=to_dt(row["updated_at"]),
            deleted_at=opt_dt(row["deleted_at"]),
        )

    def add_endpoint(self, endpoint: WebhookEndpoint) -> None:
        self.db.execute(
            _insert("webhook_endpoints", _ENDPOINT_COLUMNS), self._endpoint_params(endpoint)
        )

    def get_endpoint(
        self, provider_id: str, endpoint_id: str, for_update: bool = False
    ) -> WebhookEndpoint | None:
        lock = " FOR UPDATE" if for_update and self.db.dialect == "postgres" else ""
        row = self._one(
            "SELECT * FROM webhook_endpoints WHERE id = :id AND provider_id = :p"
            f" AND deleted_at IS NULL{lock}",
            id=endpoint_id,
            p=provider_id,
        )
        return self._endpoint(row) if row else None

    def save_endpoint(self, endpoint: WebhookEndpoint) -> None:
        self.db.execute(
            _update("webhook_endpoints", _ENDPOINT_COLUMNS, _FIXED),
            self._endpoint_params(endpoint),
        )

    def list_endpoints(
        self,
        provider_id: str,
        merchant_id: str | None = None,
        after: str | None = None,
        limit: int = 50,
    ) -> list[WebhookEndpoint]:
        clauses = ["provider_id = :p", "deleted_at IS NULL"]
        params: dict[str, Any] = {"p": provider_id, "limit": limit}
        if merchant_id is not None:
            clauses.append("merchant_id = :m")
            params["m"] = merchant_id
        if after is not None:
            clauses.append(
                "(created_at, id) > (SELECT created_at, id FROM webhook_endpoints WHERE id = :a)"
            )
            params["a"] = after
        rows = self.db.query(
            f"SELECT * FROM webhook_endpoints WHERE {' AND '.join(clauses)}"
            " ORDER BY created_at, id LIMIT :limit",
            params,
        )
        return [self._endpoint(r) for r in rows]

    def enabled_endpoints(self, provider_id: str) -> list[WebhookEndpoint]:
        rows = self.db.query(
            "SELECT * FROM webhook_endpoints WHERE provider_id = :p AND enabled = :yes"
            " AND deleted_at IS NULL ORDER BY created_at, id",
            {"p": provider_id, "yes": True},
        )
        return [self._endpoint(r) for r in rows]

    # --- deliveries ---

    def lock_chain(self, endpoint_id: str, object_id: str) -> int:
        # PostgreSQL: a transaction-scoped advisory lock per (endpoint, object), so only
        # deliveries of the same object to the same endpoint queue up. SQLite: the unit of
        # work already holds the single write lock.
        if self.db.dialect == "postgres":
            self.db.query(
                "SELECT pg_advisory_xact_lock(hashtextextended(:k, 17)) AS locked",
                {"k": f"webhook|{endpoint_id}|{object_id}"},
            )
        row = self._one(
            "SELECT COALESCE(MAX(seq), 0) AS n FROM webhook_deliveries"
            " WHERE endpoint_id = :e AND object_id = :o",
            e=endpoint_id,
            o=object_id,
        )
        return int(row["n"]) if row else 0

    def has_open(self, endpoint_id: str, object_id: str) -> bool:
        row = self._one(
            "SELECT 1 AS x FROM webhook_deliveries WHERE endpoint_id = :e AND object_id = :o"
            f" AND {_OPEN} LIMIT 1",
            e=endpoint_id,
            o=object_id,
        )
        return row is not None

    @staticmethod
    def _delivery_params(d: WebhookDelivery) -> dict[str, Any]:
        return {c: getattr(d, c) for c in _DELIVERY_COLUMNS} | {"status": d.status.value}

    @staticmethod
    def _delivery(row: Row) -> WebhookDelivery:
        return WebhookDelivery(
            id=row["id"],
            endpoint_id=row["endpoint_id"],
            provider_id=row["provider_id"],
            merchant_id=row["merchant_id"],
            event_id=row["event_id"],
            event_type=row["event_type"],
            object_id=row["object_id"],
            seq=int(row["seq"]),
            body=row["body"],
            status=DeliveryStatus(row["status"]),
            attempts=int(row["attempts"]),
            job_id=row["job_id"],
            next_attempt_at=opt_dt(row["next_attempt_at"]),
            attempt_started_at=opt_dt(row["attempt_started_at"]),
            last_status_code=row["last_status_code"],
            last_error=row["last_error"],
            created_at=to_dt(row["created_at"]),
            updated_at=to_dt(row["updated_at"]),
            finished_at=opt_dt(row["finished_at"]),
        )

    def add_delivery(self, delivery: WebhookDelivery) -> None:
        self.db.execute(
            _insert("webhook_deliveries", _DELIVERY_COLUMNS), self._delivery_params(delivery)
        )

    def get_delivery(self, delivery_id: str, for_update: bool = False) -> WebhookDelivery | None:
        lock = " FOR UPDATE" if for_update and self.db.dialect == "postgres" else ""
        row = self._one(f"SELECT * FROM webhook_deliveries WHERE id = :id{lock}", id=delivery_id)
        return self._delivery(row) if row else None

    def save_delivery(self, delivery: WebhookDelivery) -> None:
        self.db.execute(
            _update("webhook_deliveries", _DELIVERY_COLUMNS, _DELIVERY_FIXED),
            self._delivery_params(delivery),
        )

    def next_waiting(self, endpoint_id: str, object_id: str) -> WebhookDelivery | None:
        row = self._one(
            "SELECT * FROM webhook_deliveries WHERE endpoint_id = :e AND object_id = :o"
            " AND status = 'waiting' ORDER BY seq LIMIT 1",
            e=endpoint_id,
            o=object_id,
        )
        return self._delivery(row) if row else None

    def deliveries_of_event(self, provider_id: str, event_id: str) -> list[WebhookDelivery]:
        rows = self.db.query(
            "SELECT * FROM webhook_deliveries WHERE provider_id = :p AND event_id = :ev"
            " ORDER BY created_at, seq, id",
            {"p": provider_id, "ev": event_id},
        )
        return [self._delivery(r) for r in rows]

    # --- attempts ---

    def add_attempt(self, attempt: DeliveryAttempt) -> None:
        self.db.execute(
            _insert("webhook_attempts", _ATTEMPT_COLUMNS),
            {c: getattr(attempt, c) for c in _ATTEMPT_COLUMNS},
        )

    def attempts(
        self, endpoint_id: str, after: str | None = None, limit: int = 50
    ) -> list[DeliveryAttempt]:
        params: dict[str, Any] = {"e": endpoint_id, "limit": limit}
        cursor = ""
        if after is not None:
            cursor = (
                " AND (started_at, id) < (SELECT started_at, id FROM webhook_attempts"
                " WHERE id = :a AND endpoint_id = :e)"
            )
            params["a"] = after
        rows = self.db.query(
            f"SELECT * FROM webhook_attempts WHERE endpoint_id = :e{cursor}"
            " ORDER BY started_at DESC, id DESC LIMIT :limit",
            params,
        )
        return [
            DeliveryAttempt(
                id=r["id"],
                delivery_id=r["delivery_id"],
                endpoint_id=r["endpoint_id"],
                event_id=r["event_id"],
                event_type=r["event_type"],
                attempt=int(r["attempt"]),
                started_at=to_dt(r["started_at"]),
                duration_ms=int(r["duration_ms"]),
                status_code=r["status_code"],
                error=r["error"],
                outcome=r["outcome"],
                next_attempt_at=opt_dt(r["next_attempt_at"]),
            )
            for r in rows
        ]

    def purge_finished_before(self, cutoff: datetime) -> int:
        self.db.execute(
            "DELETE FROM webhook_attempts WHERE delivery_id IN (SELECT id FROM"
            " webhook_deliveries WHERE finished_at IS NOT NULL AND finished_at < :c)",
            {"c": cutoff},
        )
        return self.db.execute(
            "DELETE FROM webhook_deliveries WHERE finished_at IS NOT NULL AND finished_at < :c",
            {"c": cutoff},
        )
