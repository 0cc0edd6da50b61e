"""Tables of merchant-owned records (customers, products, locations…) in shared SQL.

A ``RecordTable`` knows its table, its columns and how a record maps to a row; it then adds,
saves and gets records (always within one merchant) and reads keyset pages: ``after`` is the
id of the previous page's last row, and the next page starts past that row's sort columns, so
no page ever reads the table beyond ``limit`` rows.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Collection
from typing import Any, ClassVar, Generic, TypeVar

from payhub.adapters.storage.sql import Row, UniqueViolation, _Repo
from payhub.domain.errors import Conflict

T = TypeVar("T")


def keyset(
    table: str, columns: str, params: dict[str, Any], after: str | None, newest_first: bool
) -> str:
    """The condition for the page after the row ``after`` of the merchant ``:m``."""
    if after is None:
        return ""
    params["after"] = after
    beyond = "<" if newest_first else ">"
    return (
        f" AND ({columns}) {beyond} (SELECT {columns} FROM {table}"
        " WHERE id = :after AND merchant_id = :m)"
    )


def order_by(columns: str, newest_first: bool) -> str:
    direction = " DESC" if newest_first else ""
    return ", ".join(f"{c.strip()}{direction}" for c in columns.split(","))


class RecordTable(_Repo, ABC, Generic[T]):
    TABLE: ClassVar[str]
    COLUMNS: ClassVar[tuple[str, ...]]  # the first two are ``id`` and ``merchant_id``
    _FIXED = frozenset({"id", "merchant_id", "created_at"})

    @abstractmethod
    def _params(self, record: T) -> dict[str, Any]:
        """The row for ``record``, one entry per column."""

    @abstractmethod
    def _load(self, row: Row) -> T: ...

    @abstractmethod
    def _duplicate(self, record: T) -> Conflict:
        """What a unique-constraint refusal means for this table."""

    def add(self, record: T) -> None:
        columns = ", ".join(self.COLUMNS)
        values = ", ".join(f":{c}" for c in self.COLUMNS)
        try:
            self.db.execute(
                f"INSERT INTO {self.TABLE} ({columns}) VALUES ({values})", self._params(record)
            )
        except UniqueViolation:
            raise self._duplicate(record) from None

    def save(self, record: T) -> None:
        sets = ", ".join(f"{c} = :{c}" for c in self.COLUMNS if c not in self._FIXED)
        try:
            self.db.execute(
                f"UPDATE {self.TABLE} SET {sets} WHERE id = :id AND merchant_id = :merchant_id",
                self._params(record),
            )
        except UniqueViolation:
            raise self._duplicate(record) from None

    def get(self, merchant_id: str, record_id: str) -> T | None:
        return self._first("id = :id", id=record_id, m=merchant_id)

    def _first(self, where: str, **params: Any) -> T | None:
        row = self._one(f"SELECT * FROM {self.TABLE} WHERE merchant_id = :m AND {where}", **params)
        return self._load(row) if row else None

    def _page(
        self,
        merchant_id: str,
        where: str,
        params: dict[str, Any],
        sort: str,
        after: str | None,
        limit: int,
        newest_first: bool = False,
    ) -> list[T]:
        """Up to ``limit`` records of the merchant matching ``where``, sorted on ``sort``
        (columns ending with ``id``), after the record ``after``."""
        params = {**params, "m": merchant_id, "limit": limit}
        cursor = keyset(self.TABLE, sort, params, after, newest_first)
        rows = self.db.query(
            f"SELECT * FROM {self.TABLE} WHERE merchant_id = :m{where}{cursor}"
            f" ORDER BY {order_by(sort, newest_first)} LIMIT :limit",
            params,
        )
        return [self._load(r) for r in rows]

    # --- tables with an ``active`` column ------------------------------------------------

    def _listing(
        self,
        merchant_id: str,
        after: str | None,
        limit: int,
        include_inactive: bool,
        sort: str = "name_key, id",
        where: str = "",
        params: dict[str, Any] | None = None,
    ) -> list[T]:
        """A page of the merchant's records, active ones only unless ``include_inactive``."""
        params = dict(params or {})
        if not include_inactive:
            where += " AND active = :on"
            params["on"] = True
        return self._page(merchant_id, where, params, sort, after, limit)

    def _active_ids(self, merchant_id: str, ids: Collection[str]) -> set[str]:
        """Those of ``ids`` that are active records of the merchant."""
        if not ids:
            return set()
        params: dict[str, Any] = {"m": merchant_id, "on": True}
        names = []
        for i, value in enumerate(sorted(set(ids))):
            params[f"id{i}"] = value
            names.append(f":id{i}")
        rows = self.db.query(
            f"SELECT id FROM {self.TABLE} WHERE merchant_id = :m AND active = :on"
            f" AND id IN ({', '.join(names)})",
            params,
        )
        return {str(r["id"]) for r in rows}
