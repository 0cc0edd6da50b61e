"""Domain events in shared SQL (same conventions as ``sql.py``).

``seq`` is the order events were recorded in: lists run newest first by it, and the cursor
(an event id) is translated to its ``seq``. ``data`` and ``details`` are JSON written with
money as exact decimal numbers and read back as ``Decimal`` (never via float).
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

import msgspec

from payhub.adapters.storage.sql import Row, _Repo, to_dt
from payhub.domain.events import DomainEvent, ObjectType
from payhub.ports import EventQuery

_encoder = msgspec.json.Encoder(decimal_format="number")
_decoder = msgspec.json.Decoder(float_hook=Decimal)


def dump_json(value: Any) -> str:
    return _encoder.encode(value).decode("utf-8")


def load_json(text: Any) -> Any:
    return _decoder.decode(text if isinstance(text, bytes | str) else str(text))


class SqlEvents(_Repo):
    def add(self, event: DomainEvent) -> None:
        self.db.execute(
            "INSERT INTO events (id, type, provider_id, merchant_id, object_type, object_id,"
            " data, details, created_at) VALUES (:id, :type, :p, :m, :ot, :oid, :data,"
            " :details, :at)",
            {
                "id": event.id,
                "type": event.type,
                "p": event.provider_id,
                "m": event.merchant_id,
                "ot": event.object_type.value,
                "oid": event.object_id,
                "data": dump_json(event.data),
                "details": dump_json(event.details),
                "at": event.created_at,
            },
        )

    @staticmethod
    def _load(row: Row) -> DomainEvent:
        return DomainEvent(
            id=row["id"],
            type=row["type"],
            provider_id=row["provider_id"],
            merchant_id=row["merchant_id"],
            object_type=ObjectType(row["object_type"]),
            object_id=row["object_id"],
            created_at=to_dt(row["created_at"]),
            data=load_json(row["data"]),
            details=load_json(row["details"]),
        )

    def get(self, event_id: str) -> DomainEvent | None:
        row = self._one("SELECT * FROM events WHERE id = :id", id=event_id)
        return self._load(row) if row else None

    def list(
        self, query: EventQuery, after: str | None = None, limit: int = 50
    ) -> list[DomainEvent]:
        clauses = ["provider_id = :p"]
        params: dict[str, Any] = {"p": query.provider_id, "limit": limit}
        if query.merchant_id is not None:
            clauses.append("merchant_id = :m")
            params["m"] = query.merchant_id
        if query.types:
            names = []
            for i, type_ in enumerate(sorted(query.types)):
                params[f"t{i}"] = type_
                names.append(f":t{i}")
            clauses.append(f"type IN ({', '.join(names)})")
        if query.object_type is not None:
            clauses.append("object_type = :ot")
            params["ot"] = query.object_type.value
        if query.object_id is not None:
            clauses.append("object_id = :oid")
            params["oid"] = query.object_id
        if query.since is not None:
            clauses.append("created_at >= :since")
            params["since"] = query.since
        if after is not None:
            clauses.append("seq < (SELECT seq FROM events WHERE id = :after)")
            params["after"] = after
        rows = self.db.query(
            f"SELECT * FROM events WHERE {' AND '.join(clauses)} ORDER BY seq DESC LIMIT :limit",
            params,
        )
        return [self._load(r) for r in rows]

    def purge_before(self, cutoff: datetime) -> int:
        return self.db.execute("DELETE FROM events WHERE created_at < :c", {"c": cutoff})
