"""Customers, their SMS consent history and saved payment methods, in shared SQL.

Same conventions as ``sql.py``: ``:name`` parameters, one statement per call, a unique
constraint turned into ``Conflict`` (see ``sql_records``). Lists are keyset pages.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from payhub.adapters.storage.sql import Row, opt_dt, to_dt
from payhub.adapters.storage.sql_records import RecordTable, keyset, order_by
from payhub.domain.addresses import Address
from payhub.domain.consent import ConsentRecord, ConsentSource, ConsentState
from payhub.domain.customers import Customer, CustomerName, StoredPaymentMethod
from payhub.domain.errors import Conflict
from payhub.domain.payments import MethodType

_COLUMNS = (
    "id",
    "merchant_id",
    "first_name",
    "last_name",
    "company_name",
    "email",
    "phone",
    "website",
    "billing_line1",
    "billing_line2",
    "billing_city",
    "billing_state",
    "billing_postal_code",
    "billing_country",
    "account_number",
    "location_id",
    "sms_consent",
    "sms_consent_phone",
    "sms_consent_source",
    "sms_consent_at",
    "created_at",
    "updated_at",
)


class SqlCustomers(RecordTable[Customer]):
    TABLE = "customers"
    COLUMNS = _COLUMNS

    def _params(self, c: Customer) -> dict[str, Any]:
        address = c.billing_address or Address()
        return {
            "id": c.id,
            "merchant_id": c.merchant_id,
            "first_name": c.name.first,
            "last_name": c.name.last,
            "company_name": c.name.company,
            "email": c.email,
            "phone": c.phone,
            "website": c.website,
            "billing_line1": address.line1,
            "billing_line2": address.line2,
            "billing_city": address.city,
            "billing_state": address.state,
            "billing_postal_code": address.postal_code,
            "billing_country": address.country,
            "account_number": c.account_number,
            "location_id": c.location_id,
            "sms_consent": c.consent.consent,
            "sms_consent_phone": c.consent.phone,
            "sms_consent_source": c.consent.source.value if c.consent.source else None,
            "sms_consent_at": c.consent.recorded_at,
            "created_at": c.created_at,
            "updated_at": c.updated_at,
        }

    def _load(self, row: Row) -> Customer:
        address = Address(
            row["billing_line1"],
            row["billing_line2"],
            row["billing_city"],
            row["billing_state"],
            row["billing_postal_code"],
            row["billing_country"],
        )
        source = row["sms_consent_source"]
        return Customer(
            id=row["id"],
            merchant_id=row["merchant_id"],
            name=CustomerName(row["first_name"], row["last_name"], row["company_name"]),
            email=row["email"],
            phone=row["phone"],
            website=row["website"],
            billing_address=None if address == Address() else address,
            account_number=row["account_number"],
            location_id=row["location_id"],
            created_at=to_dt(row["created_at"]),
            updated_at=to_dt(row["updated_at"]),
            consent=ConsentState(
                bool(row["sms_consent"]),
                row["sms_consent_phone"],
                ConsentSource(source) if source else None,
                opt_dt(row["sms_consent_at"]),
            ),
        )

    def _duplicate(self, c: Customer) -> Conflict:
        return Conflict(f"the merchant has a customer with accountNumber '{c.account_number}'")

    def get_by_account_number(self, merchant_id: str, account_number: str) -> Customer | None:
        return self._first("account_number = :n", m=merchant_id, n=account_number)

    def add_consent(self, record: ConsentRecord) -> None:
        self.db.execute(
            "INSERT INTO sms_consent_records (id, merchant_id, customer_id, consent, phone,"
            " source, recorded_by, reason, recorded_at) VALUES (:id, :m, :c, :consent, :phone,"
            " :source, :by, :reason, :at)",
            {
                "id": record.id,
                "m": record.merchant_id,
                "c": record.customer_id,
                "consent": record.consent,
                "phone": record.phone,
                "source": record.source.value,
                "by": record.recorded_by,
                "reason": record.reason,
                "at": record.recorded_at,
            },
        )

    def has_consent_record(self, customer_id: str, record_id: str) -> bool:
        row = self._one(
            "SELECT id FROM sms_consent_records WHERE id = :id AND customer_id = :c",
            id=record_id,
            c=customer_id,
        )
        return row is not None

    def consent_history(
        self, merchant_id: str, customer_id: str, after: str | None = None, limit: int = 50
    ) -> list[ConsentRecord]:
        params: dict[str, Any] = {"m": merchant_id, "c": customer_id, "limit": limit}
        sort = "recorded_at, id"
        cursor = keyset("sms_consent_records", sort, params, after, newest_first=True)
        rows = self.db.query(
            "SELECT * FROM sms_consent_records WHERE merchant_id = :m AND customer_id = :c"
            f"{cursor} ORDER BY {order_by(sort, newest_first=True)} LIMIT :limit",
            params,
        )
        return [
            ConsentRecord(
                id=r["id"],
                merchant_id=r["merchant_id"],
                customer_id=r["customer_id"],
                consent=bool(r["consent"]),
                phone=r["phone"],
                source=ConsentSource(r["source"]),
                recorded_by=r["recorded_by"],
                recorded_at=to_dt(r["recorded_at"]),
                reason=r["reason"],
            )
            for r in rows
        ]

    def list(
        self,
        merchant_id: str,
        after: str | None = None,
        limit: int = 50,
        account_number: str | None = None,
        search: str | None = None,
    ) -> list[Customer]:
        where, params = "", {}
        if account_number is not None:
            where, params = " AND account_number = :n", {"n": account_number}
        if search:
            # LIKE with its wildcards escaped: the text is looked for as typed.
            escaped = search.lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            params["q"] = f"%{escaped}%"
            where += (
                " AND ("
                + " OR ".join(
                    f"LOWER(COALESCE({c}, '')) LIKE :q ESCAPE '\\'"
                    for c in (
                        "first_name",
                        "last_name",
                        "company_name",
                        "email",
                        "phone",
                        "account_number",
                    )
                )
                + " OR LOWER(COALESCE(first_name, '') || ' ' || COALESCE(last_name, ''))"
            )
            where += " LIKE :q ESCAPE '\\')"
        return self._page(merchant_id, where, params, "created_at, id", after, limit, True)


class SqlPaymentMethods(RecordTable[StoredPaymentMethod]):
    TABLE = "saved_payment_methods"
    COLUMNS = (
        "id",
        "merchant_id",
        "customer_id",
        "gateway",
        "method_type",
        "method_ref",
        "gateway_customer_ref",
        "brand",
        "last4",
        "exp_month",
        "exp_year",
        "bank_name",
        "created_at",
        "removed_at",
    )

    def gateway_customer_ref(self, customer_id: str, gateway: str) -> str | None:
        row = self._one(
            "SELECT gateway_customer_ref FROM customer_gateway_refs"
            " WHERE customer_id = :c AND gateway = :g",
            c=customer_id,
            g=gateway,
        )
        return str(row["gateway_customer_ref"]) if row else None

    def remember_gateway_customer(
        self, merchant_id: str, customer_id: str, gateway: str, reference: str, at: datetime
    ) -> None:
        self.db.execute(
            "INSERT INTO customer_gateway_refs (customer_id, gateway, merchant_id,"
            " gateway_customer_ref, created_at) VALUES (:c, :g, :m, :ref, :at)"
            " ON CONFLICT (customer_id, gateway) DO NOTHING",
            {"c": customer_id, "g": gateway, "m": merchant_id, "ref": reference, "at": at},
        )

    def _params(self, m: StoredPaymentMethod) -> dict[str, Any]:
        return {
            "id": m.id,
            "merchant_id": m.merchant_id,
            "customer_id": m.customer_id,
            "gateway": m.gateway,
            "method_type": m.method_type.value,
            "method_ref": m.method_ref,
            "gateway_customer_ref": m.gateway_customer_ref,
            "brand": m.brand,
            "last4": m.last4,
            "exp_month": m.exp_month,
            "exp_year": m.exp_year,
            "bank_name": m.bank_name,
            "created_at": m.created_at,
            "removed_at": m.removed_at,
        }

    def _load(self, r: Row) -> StoredPaymentMethod:
        return StoredPaymentMethod(
            id=r["id"],
            merchant_id=r["merchant_id"],
            customer_id=r["customer_id"],
            gateway=r["gateway"],
            method_type=MethodType(r["method_type"]),
            method_ref=r["method_ref"],
            gateway_customer_ref=r["gateway_customer_ref"],
            created_at=to_dt(r["created_at"]),
            brand=r["brand"],
            last4=r["last4"],
            exp_month=None if r["exp_month"] is None else int(r["exp_month"]),
            exp_year=None if r["exp_year"] is None else int(r["exp_year"]),
            bank_name=r["bank_name"],
            removed_at=opt_dt(r["removed_at"]),
        )

    def _duplicate(self, m: StoredPaymentMethod) -> Conflict:
        return Conflict(f"a saved payment method '{m.id}' exists")

    def get(  # type: ignore[override]  # a method is reached through its customer
        self, merchant_id: str, customer_id: str, method_id: str
    ) -> StoredPaymentMethod | None:
        return self._first(
            "id = :id AND customer_id = :c AND removed_at IS NULL",
            m=merchant_id,
            id=method_id,
            c=customer_id,
        )

    def list(
        self,
        merchant_id: str,
        customer_id: str,
        after: str | None = None,
        limit: int = 50,
        gateway: str | None = None,
    ) -> list[StoredPaymentMethod]:
        where = " AND customer_id = :c AND removed_at IS NULL"
        params: dict[str, Any] = {"c": customer_id}
        if gateway is not None:
            where += " AND gateway = :g"
            params["g"] = gateway
        return self._page(merchant_id, where, params, "created_at, id", after, limit, True)

    def remove(self, method_id: str, at: datetime) -> None:
        self.db.execute(
            "UPDATE saved_payment_methods SET removed_at = :at WHERE id = :id"
            " AND removed_at IS NULL",
            {"at": at, "id": method_id},
        )
