"""The outbox of texts and emails, merchants' text-kind switches and STOP blocks, in shared SQL.

Same conventions as ``sql.py``: ``:name`` parameters, one statement per call. Message lists
are keyset pages, newest first.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime
from typing import Any

from payhub.adapters.storage.sql import Row, _Repo, opt_dt, to_dt
from payhub.domain.messaging import Channel, Message, MessageStatus, TextKind

_COLUMNS = (
    "id",
    "merchant_id",
    "customer_id",
    "channel",
    "kind",
    "to_address",
    "subject",
    "body",
    "status",
    "reason",
    "attempts",
    "send_after",
    "sent_at",
    "provider",
    "provider_message_id",
    "last_error",
    "job_id",
    "attempt_started_at",
    "delivery_reported_at",
    "provider_error_code",
    "event_id",
    "created_at",
    "updated_at",
)
_FIXED = frozenset(
    {"id", "merchant_id", "customer_id", "channel", "kind", "event_id", "created_at"}
)


class SqlMessages(_Repo):
    @staticmethod
    def _params(m: Message) -> dict[str, Any]:
        return {
            "id": m.id,
            "merchant_id": m.merchant_id,
            "customer_id": m.customer_id,
            "channel": m.channel.value,
            "kind": m.kind.value,
            "to_address": m.to,
            "subject": m.subject,
            "body": m.body,
            "status": m.status.value,
            "reason": m.reason,
            "attempts": m.attempts,
            "send_after": m.send_after,
            "sent_at": m.sent_at,
            "provider": m.provider,
            "provider_message_id": m.provider_message_id,
            "last_error": m.last_error,
            "job_id": m.job_id,
            "attempt_started_at": m.attempt_started_at,
            "delivery_reported_at": m.delivery_reported_at,
            "provider_error_code": m.provider_error_code,
            "event_id": m.event_id,
            "created_at": m.created_at,
            "updated_at": m.updated_at,
        }

    @staticmethod
    def _load(row: Row) -> Message:
        return Message(
            id=row["id"],
            merchant_id=row["merchant_id"],
            customer_id=row["customer_id"],
            channel=Channel(row["channel"]),
            kind=TextKind(row["kind"]),
            to=row["to_address"],
            subject=row["subject"],
            body=row["body"],
            status=MessageStatus(row["status"]),
            reason=row["reason"],
            attempts=int(row["attempts"]),
            send_after=opt_dt(row["send_after"]),
            sent_at=opt_dt(row["sent_at"]),
            provider=row["provider"],
            provider_message_id=row["provider_message_id"],
            last_error=row["last_error"],
            job_id=row["job_id"],
            attempt_started_at=opt_dt(row["attempt_started_at"]),
            delivery_reported_at=opt_dt(row["delivery_reported_at"]),
            provider_error_code=row["provider_error_code"],
            event_id=row["event_id"],
            created_at=to_dt(row["created_at"]),
            updated_at=to_dt(row["updated_at"]),
        )

    def add(self, message: Message) -> None:
        columns = ", ".join(_COLUMNS)
        values = ", ".join(f":{c}" for c in _COLUMNS)
        self.db.execute(
            f"INSERT INTO messages ({columns}) VALUES ({values})", self._params(message)
        )

    def get(self, message_id: str, for_update: bool = False) -> Message | None:
        lock = " FOR UPDATE" if for_update and self.db.dialect == "postgres" else ""
        row = self._one(f"SELECT * FROM messages WHERE id = :id{lock}", id=message_id)
        return self._load(row) if row else None

    def by_provider_id(
        self, provider: str, provider_message_id: str, for_update: bool = False
    ) -> Message | None:
        lock = " FOR UPDATE" if for_update and self.db.dialect == "postgres" else ""
        row = self._one(
            "SELECT * FROM messages WHERE provider_message_id = :pid AND provider = :p"
            f" ORDER BY created_at, id LIMIT 1{lock}",
            pid=provider_message_id,
            p=provider,
        )
        return self._load(row) if row else None

    def save(self, message: Message) -> None:
        sets = ", ".join(f"{c} = :{c}" for c in _COLUMNS if c not in _FIXED)
        self.db.execute(f"UPDATE messages SET {sets} WHERE id = :id", self._params(message))

    # --- text-kind switches ----------------------------------------------------------------

    def enabled_kinds(self, merchant_id: str) -> frozenset[TextKind]:
        rows = self.db.query(
            "SELECT kind FROM texting_kinds WHERE merchant_id = :m AND enabled = :on",
            {"m": merchant_id, "on": True},
        )
        return frozenset(TextKind(r["kind"]) for r in rows)

    def set_kind(self, merchant_id: str, kind: TextKind, enabled: bool, at: datetime) -> None:
        self.db.execute(
            "INSERT INTO texting_kinds (merchant_id, kind, enabled, updated_at)"
            " VALUES (:m, :k, :on, :at) ON CONFLICT (merchant_id, kind)"
            " DO UPDATE SET enabled = excluded.enabled, updated_at = excluded.updated_at",
            {"m": merchant_id, "k": kind.value, "on": enabled, "at": at},
        )

    # --- STOP blocks -----------------------------------------------------------------------

    def is_blocked(self, phone: str) -> bool:
        row = self._one("SELECT blocked FROM sms_blocks WHERE phone = :p", p=phone)
        return bool(row["blocked"]) if row else False

    def set_blocked(
        self, phone: str, blocked: bool, at: datetime, keyword: str, provider_message_id: str
    ) -> bool:
        was = self.is_blocked(phone)
        self.db.execute(
            "INSERT INTO sms_blocks (phone, blocked, keyword, provider_message_id, updated_at)"
            " VALUES (:p, :b, :k, :sid, :at) ON CONFLICT (phone) DO UPDATE SET"
            " blocked = excluded.blocked, keyword = excluded.keyword,"
            " provider_message_id = excluded.provider_message_id,"
            " updated_at = excluded.updated_at",
            {"p": phone, "b": blocked, "k": keyword, "sid": provider_message_id, "at": at},
        )
        return was != blocked

    def customers_at(self, phone: str) -> list[tuple[str, str]]:
        rows = self.db.query(
            "SELECT merchant_id, id FROM customers WHERE phone = :p OR sms_consent_phone = :p"
            " ORDER BY merchant_id, id",
            {"p": phone},
        )
        return [(str(r["merchant_id"]), str(r["id"])) for r in rows]

    def provider_ids(self, to: str) -> set[str]:
        rows = self.db.query(
            "SELECT provider_message_id FROM messages WHERE to_address = :to"
            " AND provider_message_id IS NOT NULL",
            {"to": to},
        )
        return {str(r["provider_message_id"]) for r in rows}

    def last_texting_merchant(self, phone: str) -> str | None:
        row = self._one(
            "SELECT merchant_id FROM messages WHERE to_address = :p AND channel = :sms"
            " AND sent_at IS NOT NULL ORDER BY sent_at DESC, id DESC LIMIT 1",
            p=phone,
            sms=Channel.SMS.value,
        )
        return str(row["merchant_id"]) if row else None

    def caused_by(self, event_id: str) -> list[Message]:
        rows = self.db.query(
            "SELECT * FROM messages WHERE event_id = :e ORDER BY created_at, id", {"e": event_id}
        )
        return [self._load(r) for r in rows]

    def list(
        self,
        merchant_id: str | None,
        customer_id: str | None = None,
        statuses: Collection[str] | None = None,
        after: str | None = None,
        limit: int = 50,
    ) -> list[Message]:
        clauses: list[str] = []
        params: dict[str, Any] = {"limit": limit}
        if merchant_id is not None:
            clauses.append("merchant_id = :m")
            params["m"] = merchant_id
        if customer_id is not None:
            clauses.append("customer_id = :c")
            params["c"] = customer_id
        if statuses:
            names = []
            for i, status in enumerate(sorted(set(statuses))):
                params[f"s{i}"] = status
                names.append(f":s{i}")
            clauses.append(f"status IN ({', '.join(names)})")
        if after is not None:
            clauses.append(
                "(created_at, id) < (SELECT created_at, id FROM messages WHERE id = :after)"
            )
            params["after"] = after
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        rows = self.db.query(
            f"SELECT * FROM messages{where} ORDER BY created_at DESC, id DESC LIMIT :limit",
            params,
        )
        return [self._load(r) for r in rows]
