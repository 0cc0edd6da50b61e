"""Repositories written once in SQL for both dialects.

A dialect adapter provides a ``Db`` (run a statement, fetch rows as dicts) and a few
spellings; everything else (tables, queries, row mapping) lives here, so SQLite and
PostgreSQL cannot drift apart. Parameters are written ``:name`` and translated by the
adapter.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, Protocol

from payhub import ports
from payhub.domain.accounts import ApiKey, GatewayCredential, Merchant, Provider
from payhub.domain.environments import Environment
from payhub.domain.errors import Conflict
from payhub.domain.keys import KeyKind
from payhub.domain.money import Money, round_half_up
from payhub.domain.payments import (
    EventKind,
    MethodType,
    Outcome,
    Transaction,
    TransactionEvent,
    TxStatus,
)
from payhub.ports import IdempotencyClaim, Job, StoredResponse

Row = dict[str, Any]


class UniqueViolation(Exception):
    """A unique constraint refused the write (translated from the driver's error)."""


class Db(Protocol):
    dialect: str

    def execute(self, sql: str, params: dict[str, Any] | None = None) -> int:
        """Run a statement; return the number of rows it changed."""
        ...

    def query(self, sql: str, params: dict[str, Any] | None = None) -> list[Row]: ...


def to_dt(value: Any) -> datetime:
    if isinstance(value, datetime):
        return value.astimezone(UTC)
    text = str(value)
    parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def opt_dt(value: Any) -> datetime | None:
    return None if value is None else to_dt(value)


def to_decimal(value: Any) -> Decimal:
    return value if isinstance(value, Decimal) else Decimal(str(value))


def to_bytes(value: Any) -> bytes:
    return bytes(value)


class _Repo:
    def __init__(self, db: Db) -> None:
        self.db = db

    def _one(self, sql: str, **params: Any) -> Row | None:
        rows = self.db.query(sql, params)
        return rows[0] if rows else None


class SqlProviders(_Repo):
    def add(self, provider: Provider) -> None:
        self.db.execute(
            "INSERT INTO providers (id, name, environment, created_at)"
            " VALUES (:id, :name, :environment, :created_at)",
            {
                "id": provider.id,
                "name": provider.name,
                "environment": provider.environment.value,
                "created_at": provider.created_at,
            },
        )

    @staticmethod
    def _load(row: Row) -> Provider:
        return Provider(
            id=row["id"],
            name=row["name"],
            environment=Environment(row["environment"]),
            created_at=to_dt(row["created_at"]),
        )

    def get(self, provider_id: str) -> Provider | None:
        row = self._one("SELECT * FROM providers WHERE id = :id", id=provider_id)
        return self._load(row) if row else None

    def list(self) -> list[Provider]:
        rows = self.db.query("SELECT * FROM providers ORDER BY created_at, id")
        return [self._load(r) for r in rows]

    def count(self) -> int:
        row = self._one("SELECT COUNT(*) AS n FROM providers")
        return int(row["n"]) if row else 0


class SqlApiKeys(_Repo):
    def add(self, key: ApiKey) -> None:
        self.db.execute(
            "INSERT INTO api_keys (id, key_id, provider_id, merchant_id, kind, environment,"
            " digest, hint, label, created_at, revoked_at) VALUES (:id, :key_id,"
            " :provider_id, :merchant_id, :kind, :environment, :digest, :hint, :label,"
            " :created_at, :revoked_at)",
            {
                "id": key.id,
                "key_id": key.key_id,
                "provider_id": key.provider_id,
                "merchant_id": key.merchant_id,
                "kind": key.kind.value,
                "environment": key.environment.value,
                "digest": key.digest,
                "hint": key.hint,
                "label": key.label,
                "created_at": key.created_at,
                "revoked_at": key.revoked_at,
            },
        )

    @staticmethod
    def _load(row: Row) -> ApiKey:
        return ApiKey(
            id=row["id"],
            key_id=row["key_id"],
            provider_id=row["provider_id"],
            merchant_id=row["merchant_id"],
            kind=KeyKind(row["kind"]),
            environment=Environment(row["environment"]),
            digest=row["digest"],
            hint=row["hint"],
            label=row["label"],
            created_at=to_dt(row["created_at"]),
            revoked_at=opt_dt(row["revoked_at"]),
        )

    def get_by_key_id(self, key_id: str) -> ApiKey | None:
        row = self._one("SELECT * FROM api_keys WHERE key_id = :k", k=key_id)
        return self._load(row) if row else None

    def get(self, api_key_id: str) -> ApiKey | None:
        row = self._one("SELECT * FROM api_keys WHERE id = :id", id=api_key_id)
        return self._load(row) if row else None

    def list(self, provider_id: str | None = None) -> list[ApiKey]:
        if provider_id is None:
            rows = self.db.query("SELECT * FROM api_keys ORDER BY created_at, id")
        else:
            rows = self.db.query(
                "SELECT * FROM api_keys WHERE provider_id = :p ORDER BY created_at, id",
                {"p": provider_id},
            )
        return [self._load(r) for r in rows]

    def revoke(self, api_key_id: str, at: datetime) -> None:
        self.db.execute(
            "UPDATE api_keys SET revoked_at = :at WHERE id = :id AND revoked_at IS NULL",
            {"at": at, "id": api_key_id},
        )


class SqlMerchants(_Repo):
    def add(self, merchant: Merchant) -> None:
        try:
            self.db.execute(
                "INSERT INTO merchants (id, provider_id, external_reference, display_name,"
                " created_at) VALUES (:id, :provider_id, :ref, :name, :created_at)",
                {
                    "id": merchant.id,
                    "provider_id": merchant.provider_id,
                    "ref": merchant.external_reference,
                    "name": merchant.display_name,
                    "created_at": merchant.created_at,
                },
            )
        except UniqueViolation:
            raise Conflict(
                f"a merchant with externalReference '{merchant.external_reference}' exists"
            ) from None

    @staticmethod
    def _load(row: Row) -> Merchant:
        return Merchant(
            id=row["id"],
            provider_id=row["provider_id"],
            external_reference=row["external_reference"],
            display_name=row["display_name"],
            created_at=to_dt(row["created_at"]),
            time_zone=row["time_zone"],
        )

    def set_time_zone(self, merchant_id: str, time_zone: str | None) -> None:
        self.db.execute(
            "UPDATE merchants SET time_zone = :tz WHERE id = :id",
            {"tz": time_zone, "id": merchant_id},
        )

    def get(self, merchant_id: str) -> Merchant | None:
        row = self._one("SELECT * FROM merchants WHERE id = :id", id=merchant_id)
        return self._load(row) if row else None

    def get_by_reference(self, provider_id: str, external_reference: str) -> Merchant | None:
        row = self._one(
            "SELECT * FROM merchants WHERE provider_id = :p AND external_reference = :r",
            p=provider_id,
            r=external_reference,
        )
        return self._load(row) if row else None

    def list(
        self, provider_id: str | None, after: str | None = None, limit: int = 100
    ) -> list[Merchant]:
        clauses: list[str] = []
        params: dict[str, Any] = {"limit": limit}
        if provider_id is not None:
            clauses.append("provider_id = :p")
            params["p"] = provider_id
        if after is not None:
            clauses.append("external_reference > :after")
            params["after"] = after
        where = f"WHERE {' AND '.join(clauses)}" if clauses else ""
        rows = self.db.query(
            f"SELECT * FROM merchants {where} ORDER BY external_reference LIMIT :limit",
            params,
        )
        return [self._load(r) for r in rows]


class SqlCredentials(_Repo):
    def put(self, credential: GatewayCredential) -> None:
        self.db.execute(
            "INSERT INTO gateway_credentials (merchant_id, gateway, environment, enabled, sealed,"
            " created_at, updated_at, notification_token)"
            " VALUES (:m, :g, :env, :enabled, :sealed, :created, :updated, :token)"
            " ON CONFLICT (merchant_id, gateway) DO UPDATE SET environment = excluded.environment,"
            " enabled = excluded.enabled, sealed = excluded.sealed,"
            " updated_at = excluded.updated_at,"
            " notification_token = COALESCE(gateway_credentials.notification_token,"
            " excluded.notification_token)",
            {
                "token": credential.notification_token,
                "m": credential.merchant_id,
                "g": credential.gateway,
                "env": credential.environment.value,
                "enabled": credential.enabled,
                "sealed": credential.sealed,
                "created": credential.created_at,
                "updated": credential.updated_at,
            },
        )

    @staticmethod
    def _load(row: Row) -> GatewayCredential:
        return GatewayCredential(
            merchant_id=row["merchant_id"],
            gateway=row["gateway"],
            environment=Environment(row["environment"]),
            enabled=bool(row["enabled"]),
            sealed=to_bytes(row["sealed"]),
            created_at=to_dt(row["created_at"]),
            updated_at=to_dt(row["updated_at"]),
            notification_token=row["notification_token"],
        )

    def get_by_notification_token(self, token: str) -> GatewayCredential | None:
        row = self._one("SELECT * FROM gateway_credentials WHERE notification_token = :t", t=token)
        return self._load(row) if row else None

    def get(self, merchant_id: str, gateway: str) -> GatewayCredential | None:
        row = self._one(
            "SELECT * FROM gateway_credentials WHERE merchant_id = :m AND gateway = :g",
            m=merchant_id,
            g=gateway,
        )
        return self._load(row) if row else None

    def list(self, merchant_id: str) -> list[GatewayCredential]:
        rows = self.db.query(
            "SELECT * FROM gateway_credentials WHERE merchant_id = :m ORDER BY gateway",
            {"m": merchant_id},
        )
        return [self._load(r) for r in rows]


class SqlSequences(_Repo):
    def next_value(self, name: str, start: int = 1) -> int:
        # One statement: insert the first value or bump the existing one. The row lock
        # (PostgreSQL) or the single writer (SQLite) makes concurrent callers queue up.
        row = self._one(
            "INSERT INTO sequences (name, value) VALUES (:n, :start)"
            " ON CONFLICT (name) DO UPDATE SET value = sequences.value + 1 RETURNING value",
            n=name,
            start=start,
        )
        assert row is not None
        return int(row["value"])


class SqlIdempotency(_Repo):
    def claim(
        self,
        scope: str,
        key: str,
        fingerprint: str,
        now: datetime,
        expires_at: datetime,
        abandoned_before: datetime | None = None,
    ) -> IdempotencyClaim:
        # An expired key is forgotten first, so it can be claimed afresh.
        self.db.execute(
            "DELETE FROM idempotency_keys WHERE scope = :s AND key = :k AND expires_at <= :now",
            {"s": scope, "k": key, "now": now},
        )
        if abandoned_before is not None:
            taken = self.db.execute(
                "UPDATE idempotency_keys SET created_at = :now, renewed_at = :now,"
                " expires_at = :exp"
                " WHERE scope = :s AND key = :k AND fingerprint = :f AND state = 'in_flight'"
                " AND coalesce(renewed_at, created_at) < :before",
                {
                    "now": now,
                    "exp": expires_at,
                    "s": scope,
                    "k": key,
                    "f": fingerprint,
                    "before": abandoned_before,
                },
            )
            if taken:
                return IdempotencyClaim("new")
        inserted = self.db.execute(
            "INSERT INTO idempotency_keys (scope, key, fingerprint, state, created_at,"
            " expires_at) VALUES (:s, :k, :f, 'in_flight', :now, :exp)"
            " ON CONFLICT (scope, key) DO NOTHING",
            {"s": scope, "k": key, "f": fingerprint, "now": now, "exp": expires_at},
        )
        if inserted:
            return IdempotencyClaim("new")
        row = self._one(
            "SELECT fingerprint, state, status, body FROM idempotency_keys"
            " WHERE scope = :s AND key = :k",
            s=scope,
            k=key,
        )
        if row is None:  # released between our insert and read: try once more
            return self.claim(scope, key, fingerprint, now, expires_at, abandoned_before)
        if row["fingerprint"] != fingerprint:
            return IdempotencyClaim("mismatch")
        if row["state"] != "done":
            return IdempotencyClaim("in_flight")
        return IdempotencyClaim("done", StoredResponse(int(row["status"]), to_bytes(row["body"])))

    def finish(self, scope: str, key: str, response: StoredResponse) -> None:
        self.db.execute(
            "UPDATE idempotency_keys SET state = 'done', status = :st, body = :b"
            " WHERE scope = :s AND key = :k",
            {"st": response.status, "b": response.body, "s": scope, "k": key},
        )

    def renew(self, scope: str, key: str, now: datetime) -> bool:
        return bool(
            self.db.execute(
                "UPDATE idempotency_keys SET renewed_at = :now"
                " WHERE scope = :s AND key = :k AND state = 'in_flight'",
                {"now": now, "s": scope, "k": key},
            )
        )

    def release(self, scope: str, key: str) -> None:
        self.db.execute(
            "DELETE FROM idempotency_keys WHERE scope = :s AND key = :k AND state = 'in_flight'",
            {"s": scope, "k": key},
        )

    def purge_expired(self, now: datetime) -> int:
        return self.db.execute(
            "DELETE FROM idempotency_keys WHERE expires_at <= :now", {"now": now}
        )


class SqlJobs(_Repo):
    def enqueue(self, job: Job) -> None:
        self.db.execute(
            "INSERT INTO jobs (id, queue, payload, due_at, attempts)"
            " VALUES (:id, :q, :p, :due, :attempts)",
            {
                "id": job.id,
                "q": job.queue,
                "p": json.dumps(job.payload, separators=(",", ":")),
                "due": job.due_at,
                "attempts": job.attempts,
            },
        )

    @staticmethod
    def _load(row: Row) -> Job:
        return Job(
            id=row["id"],
            queue=row["queue"],
            payload=json.loads(row["payload"]),
            due_at=to_dt(row["due_at"]),
            attempts=int(row["attempts"]),
        )

    def lease(
        self, queue: str, now: datetime, owner: str, limit: int, lease_until: datetime
    ) -> list[Job]:
        # PostgreSQL: SKIP LOCKED lets concurrent workers pass over each other's rows.
        # SQLite: the unit of work holds the single write lock, so this is already exclusive.
        lock = " FOR UPDATE SKIP LOCKED" if self.db.dialect == "postgres" else ""
        rows = self.db.query(
            "UPDATE jobs SET lease_owner = :owner, leased_until = :until,"
            " attempts = attempts + 1 WHERE id IN (SELECT id FROM jobs WHERE queue = :q"
            " AND done_at IS NULL AND due_at <= :now AND (leased_until IS NULL OR"
            f" leased_until <= :now) ORDER BY due_at, id LIMIT :limit{lock}) RETURNING *",
            {"owner": owner, "until": lease_until, "q": queue, "now": now, "limit": limit},
        )
        return sorted((self._load(r) for r in rows), key=lambda j: (j.due_at, j.id))

    def complete(self, job_id: str, owner: str, now: datetime) -> bool:
        return (
            self.db.execute(
                "UPDATE jobs SET done_at = :now, leased_until = NULL"
                " WHERE id = :id AND lease_owner = :owner AND done_at IS NULL",
                {"now": now, "id": job_id, "owner": owner},
            )
            == 1
        )

    def complete_many(self, job_ids: Sequence[str], owner: str, now: datetime) -> int:
        if not job_ids:
            return 0
        names = {f"id{i}": job_id for i, job_id in enumerate(job_ids)}
        return self.db.execute(
            "UPDATE jobs SET done_at = :now, leased_until = NULL"
            f" WHERE id IN ({', '.join(':' + n for n in names)})"
            " AND lease_owner = :owner AND done_at IS NULL",
            {"now": now, "owner": owner, **names},
        )

    def retry(self, job_id: str, owner: str, due_at: datetime, error: str | None = None) -> bool:
        return (
            self.db.execute(
                "UPDATE jobs SET due_at = :due, leased_until = NULL, lease_owner = NULL,"
                " last_error = :error"
                " WHERE id = :id AND lease_owner = :owner AND done_at IS NULL",
                {"due": due_at, "id": job_id, "owner": owner, "error": error},
            )
            == 1
        )

    def bury(self, job_id: str, owner: str, now: datetime, error: str) -> bool:
        return (
            self.db.execute(
                "UPDATE jobs SET done_at = :now, dead_at = :now, leased_until = NULL,"
                " last_error = :error"
                " WHERE id = :id AND lease_owner = :owner AND done_at IS NULL",
                {"now": now, "id": job_id, "owner": owner, "error": error},
            )
            == 1
        )

    def dead(self, queue: str | None = None, limit: int = 50) -> list[ports.DeadJob]:
        where = " AND queue = :q" if queue is not None else ""
        rows = self.db.query(
            f"SELECT * FROM jobs WHERE dead_at IS NOT NULL{where}"
            " ORDER BY dead_at DESC, id DESC LIMIT :limit",
            {"q": queue, "limit": limit},
        )
        return [
            ports.DeadJob(
                id=r["id"],
                queue=r["queue"],
                payload=json.loads(r["payload"]),
                attempts=int(r["attempts"]),
                dead_at=to_dt(r["dead_at"]),
                last_error=r["last_error"],
            )
            for r in rows
        ]

    def revive(self, job_id: str, now: datetime) -> bool:
        return (
            self.db.execute(
                "UPDATE jobs SET done_at = NULL, dead_at = NULL, attempts = 0, due_at = :now,"
                " lease_owner = NULL, leased_until = NULL"
                " WHERE id = :id AND dead_at IS NOT NULL",
                {"now": now, "id": job_id},
            )
            == 1
        )

    def count(self, queue: str, done: bool | None = None) -> int:
        extra = {None: "", True: " AND done_at IS NOT NULL", False: " AND done_at IS NULL"}[done]
        row = self._one(f"SELECT COUNT(*) AS n FROM jobs WHERE queue = :q{extra}", q=queue)
        return int(row["n"]) if row else 0


class SqlTransactions(_Repo):
    _COLUMNS = (
        "id, merchant_id, gateway, method_type, currency, amount, captured, refunded, status,"
        " gateway_reference, location_id, customer_id, payment_method_id, gateway_key,"
        " decline_code, failure_message, created_at, updated_at, method_brand, method_last4"
    )

    @staticmethod
    def _params(tx: Transaction) -> dict[str, Any]:
        return {
            "id": tx.id,
            "merchant_id": tx.merchant_id,
            "gateway": tx.gateway,
            "method_type": tx.method_type.value,
            "currency": tx.amount.currency,
            "amount": tx.amount.amount,
            "captured": tx.captured.amount,
            "refunded": tx.refunded.amount,
            "status": tx.status.value,
            "gateway_reference": tx.gateway_reference,
            "location_id": tx.location_id,
            "customer_id": tx.customer_id,
            "payment_method_id": tx.payment_method_id,
            "gateway_key": tx.gateway_key,
            "decline_code": tx.decline_code,
            "failure_message": tx.failure_message,
            "created_at": tx.created_at,
            "updated_at": tx.updated_at,
            "method_brand": tx.method_brand,
            "method_last4": tx.method_last4,
        }

    def add(self, tx: Transaction) -> None:
        values = ", ".join(f":{c.strip()}" for c in self._COLUMNS.split(","))
        self.db.execute(
            f"INSERT INTO transactions ({self._COLUMNS}) VALUES ({values})", self._params(tx)
        )

    def save(self, tx: Transaction) -> None:
        self.db.execute(
            "UPDATE transactions SET status = :status, captured = :captured,"
            " refunded = :refunded, gateway_reference = :gateway_reference,"
            " decline_code = :decline_code, failure_message = :failure_message,"
            " method_brand = :method_brand, method_last4 = :method_last4,"
            " updated_at = :updated_at WHERE id = :id",
            self._params(tx),
        )

    @staticmethod
    def _load(row: Row) -> Transaction:
        currency = row["currency"]

        def money(v: Any) -> Money:
            return Money(round_half_up(to_decimal(v), currency), currency)

        return Transaction(
            id=row["id"],
            merchant_id=row["merchant_id"],
            gateway=row["gateway"],
            method_type=MethodType(row["method_type"]),
            amount=money(row["amount"]),
            captured=money(row["captured"]),
            refunded=money(row["refunded"]),
            status=TxStatus(row["status"]),
            gateway_reference=row["gateway_reference"],
            location_id=row["location_id"],
            customer_id=row["customer_id"],
            payment_method_id=row["payment_method_id"],
            gateway_key=row["gateway_key"],
            decline_code=row["decline_code"],
            failure_message=row["failure_message"],
            created_at=to_dt(row["created_at"]),
            updated_at=to_dt(row["updated_at"]),
            method_brand=row["method_brand"],
            method_last4=row["method_last4"],
        )

    def get(
        self, merchant_id: str, transaction_id: str, for_update: bool = False
    ) -> Transaction | None:
        # PostgreSQL: lock the row so concurrent captures or refunds queue up. SQLite's
        # unit of work already holds the single write lock.
        lock = " FOR UPDATE" if for_update and self.db.dialect == "postgres" else ""
        row = self._one(
            f"SELECT * FROM transactions WHERE id = :id AND merchant_id = :m{lock}",
            id=transaction_id,
            m=merchant_id,
        )
        return self._load(row) if row else None

    def get_by_gateway_reference(
        self, merchant_id: str, gateway: str, reference: str, for_update: bool = False
    ) -> Transaction | None:
        lock = " FOR UPDATE" if for_update and self.db.dialect == "postgres" else ""
        row = self._one(
            "SELECT * FROM transactions WHERE merchant_id = :m AND gateway = :g"
            f" AND gateway_reference = :r ORDER BY created_at, id LIMIT 1{lock}",
            m=merchant_id,
            g=gateway,
            r=reference,
        )
        return self._load(row) if row else None

    def get_by_gateway_key(self, merchant_id: str, gateway_key: str) -> Transaction | None:
        row = self._one(
            "SELECT * FROM transactions WHERE merchant_id = :m AND gateway_key = :k",
            m=merchant_id,
            k=gateway_key,
        )
        return self._load(row) if row else None

    def add_event(self, event: TransactionEvent) -> None:
        if self.db.dialect == "postgres":  # serialise the per-transaction sequence number
            self.db.query(
                "SELECT id FROM transactions WHERE id = :tx FOR UPDATE",
                {"tx": event.transaction_id},
            )
        self.db.execute(
            "INSERT INTO transaction_events (id, transaction_id, seq, kind, outcome, amount,"
            " gateway_reference, decline_code, message, support, created_at) VALUES (:id, :tx,"
            " (SELECT COALESCE(MAX(seq), 0) + 1 FROM transaction_events"
            " WHERE transaction_id = :tx),"
            " :kind, :outcome, :amount, :ref, :code, :message, :support, :at)",
            {
                "id": event.id,
                "tx": event.transaction_id,
                "kind": event.kind.value,
                "outcome": event.outcome.value,
                "amount": event.amount.amount if event.amount else None,
                "ref": event.gateway_reference,
                "code": event.decline_code,
                "message": event.message,
                "support": json.dumps(event.support, separators=(",", ":")),
                "at": event.created_at,
            },
        )

    def events(self, transaction_id: str) -> list[TransactionEvent]:
        rows = self.db.query(
            "SELECT e.*, t.currency FROM transaction_events e JOIN transactions t"
            " ON t.id = e.transaction_id WHERE e.transaction_id = :tx"
            " ORDER BY e.seq",
            {"tx": transaction_id},
        )
        return [
            TransactionEvent(
                id=r["id"],
                transaction_id=r["transaction_id"],
                kind=EventKind(r["kind"]),
                outcome=Outcome(r["outcome"]),
                created_at=to_dt(r["created_at"]),
                amount=None
                if r["amount"] is None
                else Money(round_half_up(to_decimal(r["amount"]), r["currency"]), r["currency"]),
                gateway_reference=r["gateway_reference"],
                decline_code=r["decline_code"],
                message=r["message"],
                support=json.loads(r["support"]),
            )
            for r in rows
        ]

    def list(
        self,
        merchant_id: str,
        after: str | None = None,
        limit: int = 50,
        statuses: Collection[str] | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> list[Transaction]:
        params: dict[str, Any] = {"m": merchant_id, "limit": limit}
        cursor = time_and_status(params, statuses, since, until)
        if after is not None:
            cursor += (
                " AND (created_at, id) < (SELECT created_at, id FROM transactions"
                " WHERE id = :after AND merchant_id = :m)"
            )
            params["after"] = after
        rows = self.db.query(
            f"SELECT * FROM transactions WHERE merchant_id = :m{cursor}"
            " ORDER BY created_at DESC, id DESC LIMIT :limit",
            params,
        )
        return [self._load(r) for r in rows]


def time_and_status(
    params: dict[str, Any],
    statuses: Collection[str] | None,
    since: datetime | None,
    until: datetime | None,
) -> str:
    """The list filters shared by transactions and invoices (``status``, ``created_at``)."""
    where = ""
    if statuses:
        names = []
        for i, status in enumerate(sorted(statuses)):
            params[f"st{i}"] = status
            names.append(f":st{i}")
        where += f" AND status IN ({', '.join(names)})"
    if since is not None:
        params["since"] = since
        where += " AND created_at >= :since"
    if until is not None:
        params["until"] = until
        where += " AND created_at < :until"
    return where


class SqlUnitOfWork:
    """The repositories over one open transaction."""

    def __init__(self, db: Db) -> None:
        self.providers: ports.ProviderRepository = SqlProviders(db)
        self.api_keys: ports.ApiKeyRepository = SqlApiKeys(db)
        self.merchants: ports.MerchantRepository = SqlMerchants(db)
        self.credentials: ports.CredentialRepository = SqlCredentials(db)
        self.sequences: ports.SequenceRepository = SqlSequences(db)
        self.idempotency: ports.IdempotencyRepository = SqlIdempotency(db)
        self.jobs: ports.JobRepository = SqlJobs(db)
        self.transactions: ports.TransactionRepository = SqlTransactions(db)
        # Imported here: those modules build on this one's helpers.
        from payhub.adapters.storage import sql_catalog as cat
        from payhub.adapters.storage import sql_customers as cus
        from payhub.adapters.storage import sql_links as lnk

        self.customers: ports.CustomerRepository = cus.SqlCustomers(db)
        self.payment_methods: ports.PaymentMethodRepository = cus.SqlPaymentMethods(db)
        self.products: ports.ProductRepository = cat.SqlProducts(db)
        self.categories: ports.CategoryRepository = cat.SqlCategories(db)
        self.tax_rates: ports.TaxRateRepository = cat.SqlTaxRates(db)
        self.locations: ports.LocationRepository = cat.SqlLocations(db)
        self.registers: ports.RegisterRepository = cat.SqlRegisters(db)
        self.short_links: ports.ShortLinkRepository = lnk.SqlShortLinks(db)
        self.link_settings: ports.LinkSettingsRepository = lnk.SqlLinkSettings(db)
        self.api_usage: ports.ApiUsageRepository = lnk.SqlApiUsage(db)
        from payhub.adapters.storage import sql_invoices as inv

        self.invoices: ports.InvoiceRepository = inv.SqlInvoices(db)
        from payhub.adapters.storage import sql_messages as msg

        self.messages: ports.MessageRepository = msg.SqlMessages(db)
        from payhub.adapters.storage import sql_schedules as sch

        self.scheduled_payments: ports.ScheduledPaymentRepository = sch.SqlScheduledPayments(db)
        self.schedule_requests: ports.ScheduleRequestRepository = sch.SqlScheduleRequests(db)
        from payhub.adapters.storage import sql_gateway_public as gwp

        self.gateway_public_fields: ports.GatewayPublicFieldRepository = gwp.SqlGatewayPublicFields(
            db
        )
        from payhub.adapters.storage import sql_debit_authorizations as dba

        self.debit_authorizations: ports.DebitAuthorizationRepository = dba.SqlDebitAuthorizations(
            db
        )
        from payhub.adapters.storage import sql_master_key as mk

        self.master_key: ports.MasterKeyRepository = mk.SqlMasterKey(db)
        from payhub.adapters.storage import sql_webhooks as wh

        self.webhooks: ports.WebhookRepository = wh.SqlWebhooks(db)
        from payhub.adapters.storage import sql_events as evt

        self.events: ports.EventRepository = evt.SqlEvents(db)
        from payhub.adapters.storage import sql_portal as prt

        self.portal_users: ports.PortalUserRepository = prt.SqlPortalUsers(db)
        self.portal_sessions: ports.PortalSessionRepository = prt.SqlPortalSessions(db)
        self.portal_tokens: ports.PortalTokenRepository = prt.SqlPortalTokens(db)
        from payhub.adapters.storage import sql_profiles as prof

        self.merchant_profiles: ports.MerchantProfileRepository = prof.SqlMerchantProfiles(db)
        from payhub.adapters.storage import sql_accounting as acc

        self.accounting: ports.AccountingRepository = acc.SqlAccounting(db)
