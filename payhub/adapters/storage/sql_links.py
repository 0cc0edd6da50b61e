"""Short links, their daily open counters, the operator's link settings and API-request
counts, in shared SQL.

Same conventions as ``sql.py``: ``:name`` parameters, SQL assembled from constants only.
Opens are one row per link and UTC day, bumped by an upsert, so a redirect writes one
small row whatever the traffic, and a day's count is read back in one index lookup.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import date, datetime
from typing import Any

from payhub.adapters.storage.sql import Row, _Repo, opt_dt, to_dt
from payhub.domain.environments import Environment
from payhub.domain.links import (
    BlockedDomain,
    ClickTotal,
    LinkQuery,
    LinkStatus,
    Resolved,
    ShortLink,
    UsageRecord,
    day_key,
)

_LINK_COLUMNS = (
    "id",
    "code",
    "provider_id",
    "merchant_id",
    "environment",
    "target_url",
    "target_host",
    "purpose",
    "label",
    "client_reference",
    "created_at",
    "created_by",
    "expires_at",
    "revoked_at",
    "revoke_reason",
)
_SELECT_LINK = (
    "SELECT l.*, m.external_reference AS merchant_reference FROM short_links l"
    " LEFT JOIN merchants m ON m.id = l.merchant_id"
)
LIKE_ESCAPE = "!"


def like_pattern(text: str) -> str:
    """``%text%`` for ``LIKE … ESCAPE '!'``, with the text's own wildcards taken literally."""
    escaped = text.replace("!", "!!").replace("%", "!%").replace("_", "!_")
    return f"%{escaped}%"


def _in_list(prefix: str, values: Collection[str], params: dict[str, Any]) -> str:
    names = []
    for i, value in enumerate(values):
        params[f"{prefix}{i}"] = value
        names.append(f":{prefix}{i}")
    return ", ".join(names)


def _owner(provider_id: str | None, merchant_id: str | None, params: dict[str, Any]) -> str:
    if (provider_id is None) == (merchant_id is None):
        raise ValueError("name exactly one of provider_id and merchant_id")
    if merchant_id is not None:
        params["owner"] = merchant_id
        return "merchant_id = :owner"
    params["owner"] = provider_id
    return "provider_id = :owner"


class SqlShortLinks(_Repo):
    def lock_creations(self, provider_id: str) -> None:
        # PostgreSQL: a row lock on the provider that foreign-key checks (KEY SHARE) do not
        # wait for, so only this provider's link creations queue up. SQLite: the unit of
        # work already holds the single write lock.
        if self.db.dialect == "postgres":
            self.db.query(
                "SELECT id FROM providers WHERE id = :p FOR NO KEY UPDATE", {"p": provider_id}
            )

    def add(self, link: ShortLink) -> None:
        values = ", ".join(f":{c}" for c in _LINK_COLUMNS)
        self.db.execute(
            f"INSERT INTO short_links ({', '.join(_LINK_COLUMNS)}) VALUES ({values})",
            {
                "id": link.id,
                "code": link.code,
                "provider_id": link.provider_id,
                "merchant_id": link.merchant_id,
                "environment": link.environment.value,
                "target_url": link.target_url,
                "target_host": link.target_host,
                "purpose": link.purpose,
                "label": link.label,
                "client_reference": link.client_reference,
                "created_at": link.created_at,
                "created_by": link.created_by,
                "expires_at": link.expires_at,
                "revoked_at": link.revoked_at,
                "revoke_reason": link.revoke_reason,
            },
        )

    @staticmethod
    def _load(row: Row) -> ShortLink:
        return ShortLink(
            id=row["id"],
            code=row["code"],
            provider_id=row["provider_id"],
            merchant_id=row["merchant_id"],
            merchant_reference=row.get("merchant_reference"),
            environment=Environment(row["environment"]),
            target_url=row["target_url"],
            target_host=row["target_host"],
            purpose=row["purpose"],
            label=row["label"],
            client_reference=row["client_reference"],
            created_at=to_dt(row["created_at"]),
            created_by=row["created_by"],
            expires_at=opt_dt(row["expires_at"]),
            revoked_at=opt_dt(row["revoked_at"]),
            revoke_reason=row["revoke_reason"],
        )

    def code_taken(self, code: str) -> bool:
        return self._one("SELECT 1 AS x FROM short_links WHERE code = :c", c=code) is not None

    def get(self, provider_id: str, code: str) -> ShortLink | None:
        row = self._one(
            f"{_SELECT_LINK} WHERE l.code = :c AND l.provider_id = :p", c=code, p=provider_id
        )
        return self._load(row) if row else None

    def find_active_by_client_reference(
        self, provider_id: str, merchant_id: str | None, client_reference: str, now: datetime
    ) -> ShortLink | None:
        owner = "l.merchant_id IS NULL" if merchant_id is None else "l.merchant_id = :m"
        row = self._one(
            f"{_SELECT_LINK} WHERE l.provider_id = :p AND {owner} AND l.client_reference = :r"
            " AND l.revoked_at IS NULL AND (l.expires_at IS NULL OR l.expires_at > :now)"
            " ORDER BY l.created_at DESC, l.id DESC LIMIT 1",
            p=provider_id,
            m=merchant_id,
            r=client_reference,
            now=now,
        )
        return self._load(row) if row else None

    def count_created(
        self, since: datetime, *, provider_id: str | None = None, merchant_id: str | None = None
    ) -> int:
        params: dict[str, Any] = {"since": since}
        owner = _owner(provider_id, merchant_id, params)
        row = self._one(
            f"SELECT COUNT(*) AS n FROM short_links WHERE {owner} AND created_at > :since",
            **params,
        )
        return int(row["n"]) if row else 0

    def nth_created(
        self,
        since: datetime,
        n: int,
        *,
        provider_id: str | None = None,
        merchant_id: str | None = None,
    ) -> datetime | None:
        params: dict[str, Any] = {"since": since, "skip": max(0, n - 1)}
        owner = _owner(provider_id, merchant_id, params)
        row = self._one(
            f"SELECT created_at FROM short_links WHERE {owner} AND created_at > :since"
            " ORDER BY created_at LIMIT 1 OFFSET :skip",
            **params,
        )
        return to_dt(row["created_at"]) if row else None

    @staticmethod
    def _where(query: LinkQuery, params: dict[str, Any]) -> str:
        clauses = ["l.provider_id = :p"]
        params["p"] = query.provider_id
        if query.merchant_id is not None:
            clauses.append("l.merchant_id = :m")
            params["m"] = query.merchant_id
        if query.status is not None:
            params["now"] = query.now
            clauses.append(
                {
                    LinkStatus.ACTIVE: "l.revoked_at IS NULL"
                    " AND (l.expires_at IS NULL OR l.expires_at > :now)",
                    LinkStatus.EXPIRED: "l.revoked_at IS NULL AND l.expires_at <= :now",
                    LinkStatus.REVOKED: "l.revoked_at IS NOT NULL",
                }[query.status]
            )
        if query.purpose is not None:
            clauses.append("LOWER(l.purpose) = :purpose")
            params["purpose"] = query.purpose.lower()
        if query.search is not None:
            params["s"] = query.search
            params["pattern"] = like_pattern(query.search.lower())
            clauses.append(
                "(l.code = :s OR l.client_reference = :s"
                f" OR LOWER(l.target_url) LIKE :pattern ESCAPE '{LIKE_ESCAPE}'"
                f" OR LOWER(l.label) LIKE :pattern ESCAPE '{LIKE_ESCAPE}')"
            )
        return " AND ".join(clauses)

    def list(self, query: LinkQuery, offset: int, limit: int) -> list[ShortLink]:
        params: dict[str, Any] = {"offset": offset, "limit": limit}
        where = self._where(query, params)
        rows = self.db.query(
            f"{_SELECT_LINK} WHERE {where}"
            " ORDER BY l.created_at DESC, l.id DESC LIMIT :limit OFFSET :offset",
            params,
        )
        return [self._load(r) for r in rows]

    def count(self, query: LinkQuery) -> int:
        params: dict[str, Any] = {}
        where = self._where(query, params)
        row = self._one(f"SELECT COUNT(*) AS n FROM short_links l WHERE {where}", **params)
        return int(row["n"]) if row else 0

    def revoke(self, link_id: str, at: datetime, reason: str | None) -> bool:
        changed = self.db.execute(
            "UPDATE short_links SET revoked_at = :at, revoke_reason = :r"
            " WHERE id = :id AND revoked_at IS NULL",
            {"at": at, "r": reason, "id": link_id},
        )
        return changed == 1

    def unrevoked_on_domain(self, domain: str) -> Sequence[ShortLink]:
        escaped = domain.replace("!", "!!").replace("%", "!%").replace("_", "!_")
        rows = self.db.query(
            f"{_SELECT_LINK} WHERE l.revoked_at IS NULL AND (l.target_host = :d"
            f" OR l.target_host LIKE :under ESCAPE '{LIKE_ESCAPE}') ORDER BY l.created_at, l.id",
            {"d": domain, "under": f"%.{escaped}"},
        )
        return [self._load(r) for r in rows]

    def revoke_on_domain(self, domain: str, at: datetime, reason: str) -> int:
        escaped = domain.replace("!", "!!").replace("%", "!%").replace("_", "!_")
        return self.db.execute(
            "UPDATE short_links SET revoked_at = :at, revoke_reason = :r"
            " WHERE revoked_at IS NULL AND (target_host = :d"
            f" OR target_host LIKE :under ESCAPE '{LIKE_ESCAPE}')",
            {"at": at, "r": reason, "d": domain, "under": f"%.{escaped}"},
        )

    def resolve(self, code: str, environment: Environment) -> Resolved | None:
        row = self._one(
            "SELECT id, target_url, expires_at, revoked_at FROM short_links"
            " WHERE code = :c AND environment = :e",
            c=code,
            e=environment.value,
        )
        if row is None:
            return None
        return Resolved(
            row["id"], row["target_url"], opt_dt(row["expires_at"]), opt_dt(row["revoked_at"])
        )

    def record_open(self, link_id: str, day: date, at: datetime, opens: int = 1) -> None:
        # PostgreSQL: counts are approximate (spec, short-link rule 4), so this commit need
        # not wait for the WAL flush; the hot (link, day) row is then locked for microseconds
        # rather than a disk sync. A crash may lose the last fraction of a second of opens,
        # nothing else. Set inside the statement to spare a round trip.
        relaxed = (
            " FROM (SELECT set_config('synchronous_commit', 'off', true)) AS relaxed"
            if self.db.dialect == "postgres"
            else ""
        )
        self.db.execute(
            "INSERT INTO short_link_clicks (link_id, day, opens, last_at)"
            f" SELECT :l, :d, :n, :at{relaxed} ON CONFLICT (link_id, day) DO UPDATE"
            " SET opens = short_link_clicks.opens + excluded.opens, last_at = CASE"
            " WHEN excluded.last_at > short_link_clicks.last_at THEN excluded.last_at"
            " ELSE short_link_clicks.last_at END",
            {"l": link_id, "d": day_key(day), "at": at, "n": opens},
        )

    def click_totals(self, link_ids: Collection[str]) -> dict[str, ClickTotal]:
        if not link_ids:
            return {}
        params: dict[str, Any] = {}
        ids = _in_list("id", link_ids, params)
        rows = self.db.query(
            "SELECT link_id, SUM(opens) AS n, MAX(last_at) AS last FROM short_link_clicks"
            f" WHERE link_id IN ({ids}) GROUP BY link_id",
            params,
        )
        return {r["link_id"]: ClickTotal(int(r["n"]), opt_dt(r["last"])) for r in rows}

    def daily_opens(self, link_id: str, first_day: date) -> dict[date, int]:
        rows = self.db.query(
            "SELECT day, opens FROM short_link_clicks WHERE link_id = :l AND day >= :first",
            {"l": link_id, "first": day_key(first_day)},
        )
        return {date.fromisoformat(str(r["day"])): int(r["opens"]) for r in rows}


class SqlLinkSettings(_Repo):
    def get_setting(self, name: str) -> str | None:
        row = self._one("SELECT value FROM service_settings WHERE name = :n", n=name)
        return str(row["value"]) if row else None

    def put_setting(self, name: str, value: str | None, at: datetime) -> None:
        if value is None:
            self.db.execute("DELETE FROM service_settings WHERE name = :n", {"n": name})
            return
        self.db.execute(
            "INSERT INTO service_settings (name, value, updated_at) VALUES (:n, :v, :at)"
            " ON CONFLICT (name) DO UPDATE SET value = excluded.value,"
            " updated_at = excluded.updated_at",
            {"n": name, "v": value, "at": at},
        )

    def settings_with_prefix(self, prefix: str) -> dict[str, str]:
        rows = self.db.query(
            f"SELECT name, value FROM service_settings WHERE name LIKE :p ESCAPE '{LIKE_ESCAPE}'",
            {"p": like_pattern(prefix)[1:]},
        )
        return {str(r["name"]): str(r["value"]) for r in rows}

    def blocked_among(self, domains: Collection[str]) -> set[str]:
        if not domains:
            return set()
        params: dict[str, Any] = {}
        names = _in_list("d", domains, params)
        rows = self.db.query(
            f"SELECT domain FROM blocked_domains WHERE domain IN ({names})", params
        )
        return {str(r["domain"]) for r in rows}

    def block(self, domain: str, reason: str | None, at: datetime) -> bool:
        added = self.db.execute(
            "INSERT INTO blocked_domains (domain, reason, created_at) VALUES (:d, :r, :at)"
            " ON CONFLICT (domain) DO NOTHING",
            {"d": domain, "r": reason, "at": at},
        )
        return added == 1

    def unblock(self, domain: str) -> bool:
        return self.db.execute("DELETE FROM blocked_domains WHERE domain = :d", {"d": domain}) == 1

    def blocklist(self) -> list[BlockedDomain]:
        rows = self.db.query("SELECT * FROM blocked_domains ORDER BY domain")
        return [BlockedDomain(r["domain"], r["reason"], to_dt(r["created_at"])) for r in rows]

    def switches(self, owner_ids: Collection[str]) -> dict[str, bool]:
        if not owner_ids:
            return {}
        params: dict[str, Any] = {}
        names = _in_list("o", owner_ids, params)
        rows = self.db.query(
            f"SELECT owner_id, enabled FROM short_link_switches WHERE owner_id IN ({names})",
            params,
        )
        return {str(r["owner_id"]): bool(r["enabled"]) for r in rows}

    def set_switch(self, owner_id: str, enabled: bool, at: datetime) -> None:
        self.db.execute(
            "INSERT INTO short_link_switches (owner_id, enabled, updated_at) VALUES (:o, :e, :at)"
            " ON CONFLICT (owner_id) DO UPDATE SET enabled = excluded.enabled,"
            " updated_at = excluded.updated_at",
            {"o": owner_id, "e": enabled, "at": at},
        )


class SqlApiUsage(_Repo):
    def count(self, merchant_id: str, day: date) -> None:
        self.db.execute(
            "INSERT INTO merchant_api_requests (merchant_id, day, requests) VALUES (:m, :d, 1)"
            " ON CONFLICT (merchant_id, day) DO UPDATE"
            " SET requests = merchant_api_requests.requests + 1",
            {"m": merchant_id, "d": day_key(day)},
        )

    def since(self, first_day: date, provider_id: str | None = None) -> list[UsageRecord]:
        params: dict[str, Any] = {"first": day_key(first_day)}
        only = ""
        if provider_id is not None:
            only = " AND m.provider_id = :p"
            params["p"] = provider_id
        rows = self.db.query(
            "SELECT m.provider_id, r.merchant_id, m.external_reference, r.day, r.requests"
            " FROM merchant_api_requests r JOIN merchants m ON m.id = r.merchant_id"
            f" WHERE r.day >= :first{only}"
            " ORDER BY m.provider_id, m.external_reference, r.day",
            params,
        )
        return [
            UsageRecord(
                provider_id=r["provider_id"],
                merchant_id=r["merchant_id"],
                merchant_reference=r["external_reference"],
                day=date.fromisoformat(str(r["day"])),
                requests=int(r["requests"]),
            )
            for r in rows
        ]
