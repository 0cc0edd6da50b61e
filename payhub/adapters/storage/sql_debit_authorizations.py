"""The payers' acceptances of bank debits on the pay page (migration 21), one per transaction."""

from __future__ import annotations

from payhub.adapters.storage.sql import _Repo, to_dt
from payhub.domain.debit_authorizations import DebitAuthorization


class SqlDebitAuthorizations(_Repo):
    def add(
        self, merchant_id: str, invoice_id: str, transaction_id: str, accepted: DebitAuthorization
    ) -> None:
        self.db.execute(
            "INSERT INTO debit_authorizations (transaction_id, merchant_id, invoice_id, text,"
            " accepted_at, ip_address, user_agent) VALUES (:t, :m, :i, :text, :at, :ip, :ua)"
            " ON CONFLICT (transaction_id) DO NOTHING",
            {"t": transaction_id, "m": merchant_id, "i": invoice_id, "text": accepted.text,
             "at": accepted.accepted_at, "ip": accepted.ip_address, "ua": accepted.user_agent},
        )  # fmt: skip

    def get(self, merchant_id: str, transaction_id: str) -> DebitAuthorization | None:
        row = self._one(
            "SELECT * FROM debit_authorizations WHERE merchant_id = :m AND transaction_id = :t",
            m=merchant_id,
            t=transaction_id,
        )
        if row is None:
            return None
        return DebitAuthorization(
            text=str(row["text"]),
            accepted_at=to_dt(row["accepted_at"]),
            ip_address=row["ip_address"],
            user_agent=row["user_agent"],
        )
