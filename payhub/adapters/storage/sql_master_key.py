"""The master key's fingerprint (one row), so a process with another key refuses to start."""

from __future__ import annotations

from datetime import datetime

from payhub.adapters.storage.sql import _Repo


class SqlMasterKey(_Repo):
    def fingerprint(self) -> str | None:
        row = self._one("SELECT fingerprint FROM master_key WHERE id = 1")
        return None if row is None else str(row["fingerprint"])

    def record(self, fingerprint: str, at: datetime) -> str:
        self.db.execute(
            "INSERT INTO master_key (id, fingerprint, recorded_at) VALUES (1, :f, :at)"
            " ON CONFLICT (id) DO NOTHING",
            {"f": fingerprint, "at": at},
        )
        recorded = self.fingerprint()
        assert recorded is not None  # just inserted, or already there
        return recorded

    def replace(self, fingerprint: str, at: datetime) -> None:
        self.db.execute(
            "UPDATE master_key SET fingerprint = :f, recorded_at = :at WHERE id = 1",
            {"f": fingerprint, "at": at},
        )
