"""Invoices, their lines and payments, and the merchants' invoice settings, in shared SQL.

Same conventions as ``sql.py``: ``:name`` parameters, a unique constraint turned into
``Conflict``. Lines are written once with the invoice and never change; payments are
appended. Lists are keyset pages, newest first, on (created_at, number).
"""

from __future__ import annotations

import json
from collections.abc import Collection
from datetime import date, datetime
from typing import Any

from payhub.adapters.storage.sql import (
    Row,
    UniqueViolation,
    _Repo,
    opt_dt,
    time_and_status,
    to_decimal,
    to_dt,
)
from payhub.adapters.storage.sql_values import address_from_json, address_json
from payhub.domain.errors import Conflict
from payhub.domain.invoices import (
    AllowedMethods,
    Invoice,
    InvoiceLine,
    InvoicePayment,
    InvoiceStatus,
    PartialPaymentMode,
    PaymentSourceKind,
)
from payhub.domain.money import Money, round_half_up
from payhub.domain.payments import MethodType
from payhub.domain.taxes import canonical_percent
from payhub.ports import InvoiceSettings


class SqlInvoices(_Repo):
    _COLUMNS = (
        "id",
        "merchant_id",
        "number",
        "pay_token",
        "customer_id",
        "currency",
        "description",
        "tax_rate_id",
        "tax_percent",
        "subtotal",
        "tax",
        "total",
        "amount_paid",
        "due_date",
        "gateway",
        "allowed_methods",
        "partial_mode",
        "deposit",
        "authorize_only",
        "bill_to",
        "ship_to",
        "location_id",
        "status",
        "reserved_amount",
        "reserved_attempt",
        "reserved_at",
        "created_at",
        "updated_at",
        "sent_at",
        "paid_at",
        "voided_at",
    )
    _MUTABLE = (
        "status",
        "amount_paid",
        "reserved_amount",
        "reserved_attempt",
        "reserved_at",
        "updated_at",
        "sent_at",
        "paid_at",
        "voided_at",
    )

    @staticmethod
    def _params(i: Invoice) -> dict[str, Any]:
        return {
            "id": i.id,
            "merchant_id": i.merchant_id,
            "number": i.number,
            "pay_token": i.pay_token,
            "customer_id": i.customer_id,
            "currency": i.currency,
            "description": i.description,
            "tax_rate_id": i.tax_rate_id,
            "tax_percent": i.tax_percent,
            "subtotal": i.subtotal.amount,
            "tax": i.tax.amount,
            "total": i.total.amount,
            "amount_paid": i.amount_paid.amount,
            "due_date": i.due_date.isoformat() if i.due_date else None,
            "gateway": i.gateway,
            "allowed_methods": i.allowed_methods.value,
            "partial_mode": i.partial_mode.value,
            "deposit": i.deposit.amount if i.deposit else None,
            "authorize_only": i.authorize_only,
            "bill_to": address_json(i.bill_to),
            "ship_to": address_json(i.ship_to),
            "location_id": i.location_id,
            "status": i.status.value,
            "reserved_amount": i.reserved_amount.amount if i.reserved_amount else None,
            "reserved_attempt": i.reserved_attempt,
            "reserved_at": i.reserved_at,
            "created_at": i.created_at,
            "updated_at": i.updated_at,
            "sent_at": i.sent_at,
            "paid_at": i.paid_at,
            "voided_at": i.voided_at,
        }

    def add(self, invoice: Invoice) -> None:
        columns = ", ".join(self._COLUMNS)
        values = ", ".join(f":{c}" for c in self._COLUMNS)
        try:
            self.db.execute(
                f"INSERT INTO invoices ({columns}) VALUES ({values})", self._params(invoice)
            )
        except UniqueViolation:
            raise Conflict(f"the merchant already has an invoice {invoice.number}") from None
        for position, line in enumerate(invoice.lines):
            self.db.execute(
                "INSERT INTO invoice_lines (invoice_id, position, description, quantity,"
                " unit_price, amount, tax, is_taxable, product_id) VALUES (:i, :p, :d, :q,"
                " :u, :a, :t, :x, :pr)",
                {
                    "i": invoice.id,
                    "p": position,
                    "d": line.description,
                    "q": line.quantity,
                    "u": line.unit_price.amount,
                    "a": line.amount.amount,
                    "t": line.tax.amount,
                    "x": line.is_taxable,
                    "pr": line.product_id,
                },
            )
        for payment in invoice.payments:
            self.add_payment(payment)

    def save(self, invoice: Invoice) -> None:
        sets = ", ".join(f"{c} = :{c}" for c in self._MUTABLE)
        self.db.execute(
            f"UPDATE invoices SET {sets} WHERE id = :id AND merchant_id = :merchant_id",
            self._params(invoice),
        )

    def _money(self, value: Any, currency: str) -> Money:
        return Money(round_half_up(to_decimal(value), currency), currency)

    def _lines(self, invoice_id: str, currency: str) -> tuple[InvoiceLine, ...]:
        rows = self.db.query(
            "SELECT * FROM invoice_lines WHERE invoice_id = :i ORDER BY position",
            {"i": invoice_id},
        )
        return tuple(
            InvoiceLine(
                description=r["description"],
                quantity=canonical_percent(to_decimal(r["quantity"])),
                unit_price=self._money(r["unit_price"], currency),
                is_taxable=bool(r["is_taxable"]),
                amount=self._money(r["amount"], currency),
                tax=self._money(r["tax"], currency),
                product_id=r["product_id"],
            )
            for r in rows
        )

    def _payment(self, r: Row, currency: str) -> InvoicePayment:
        return InvoicePayment(
            id=r["id"],
            invoice_id=r["invoice_id"],
            transaction_id=r["transaction_id"],
            amount=self._money(r["amount"], currency),
            method_type=MethodType(r["method_type"]) if r["method_type"] else None,
            status=r["status"],
            source=PaymentSourceKind(r["source"]),
            created_at=to_dt(r["created_at"]),
            external_system=r["external_system"],
            external_reference=r["external_reference"],
        )

    def _payments(self, invoice_id: str, currency: str) -> list[InvoicePayment]:
        rows = self.db.query(
            "SELECT * FROM invoice_payments WHERE invoice_id = :i ORDER BY position",
            {"i": invoice_id},
        )
        return [self._payment(r, currency) for r in rows]

    def _load(self, r: Row, full: bool = True) -> Invoice:
        currency = r["currency"]
        reserved = r["reserved_amount"]
        return Invoice(
            id=r["id"],
            merchant_id=r["merchant_id"],
            number=r["number"],
            pay_token=r["pay_token"],
            customer_id=r["customer_id"],
            currency=currency,
            description=r["description"],
            lines=self._lines(r["id"], currency) if full else (),
            tax_rate_id=r["tax_rate_id"],
            tax_percent=canonical_percent(to_decimal(r["tax_percent"])),
            subtotal=self._money(r["subtotal"], currency),
            tax=self._money(r["tax"], currency),
            total=self._money(r["total"], currency),
            amount_paid=self._money(r["amount_paid"], currency),
            due_date=date.fromisoformat(r["due_date"]) if r["due_date"] else None,
            gateway=r["gateway"],
            allowed_methods=AllowedMethods(r["allowed_methods"]),
            partial_mode=PartialPaymentMode(r["partial_mode"]),
            deposit=None if r["deposit"] is None else self._money(r["deposit"], currency),
            authorize_only=bool(r["authorize_only"]),
            bill_to=address_from_json(r["bill_to"]),
            ship_to=address_from_json(r["ship_to"]),
            location_id=r["location_id"],
            status=InvoiceStatus(r["status"]),
            reserved_amount=None if reserved is None else self._money(reserved, currency),
            reserved_attempt=r["reserved_attempt"],
            reserved_at=opt_dt(r["reserved_at"]),
            created_at=to_dt(r["created_at"]),
            updated_at=to_dt(r["updated_at"]),
            sent_at=opt_dt(r["sent_at"]),
            paid_at=opt_dt(r["paid_at"]),
            voided_at=opt_dt(r["voided_at"]),
            payments=self._payments(r["id"], currency) if full else [],
        )

    def _lock(self, for_update: bool) -> str:
        # PostgreSQL locks the row; SQLite's writing unit of work holds the single write lock.
        return " FOR UPDATE" if for_update and self.db.dialect == "postgres" else ""

    def get(self, merchant_id: str, number: str, for_update: bool = False) -> Invoice | None:
        row = self._one(
            "SELECT * FROM invoices WHERE merchant_id = :m AND number = :n"
            + self._lock(for_update),
            m=merchant_id,
            n=number,
        )
        return self._load(row) if row else None

    def get_by_token(self, pay_token: str, for_update: bool = False) -> Invoice | None:
        row = self._one(
            f"SELECT * FROM invoices WHERE pay_token = :t{self._lock(for_update)}", t=pay_token
        )
        return self._load(row) if row else None

    def number_taken(self, merchant_id: str, number: str) -> bool:
        row = self._one(
            "SELECT id FROM invoices WHERE merchant_id = :m AND number = :n",
            m=merchant_id,
            n=number,
        )
        return row is not None

    @staticmethod
    def _external_key(
        merchant_id: str, source: PaymentSourceKind, system: str | None, reference: str
    ) -> str:
        return "\n".join((merchant_id, source.value, system or "", reference))

    def add_payment(self, payment: InvoicePayment) -> None:
        key = None
        if payment.external_reference is not None:
            row = self._one("SELECT merchant_id FROM invoices WHERE id = :i", i=payment.invoice_id)
            assert row is not None, "a payment's invoice is stored first"
            key = self._external_key(
                row["merchant_id"],
                payment.source,
                payment.external_system,
                payment.external_reference,
            )
        try:
            self.db.execute(
                # The invoice row is locked by the caller, so positions never collide.
                "INSERT INTO invoice_payments (id, invoice_id, position, transaction_id, amount,"
                " method_type, status, source, created_at, external_system, external_reference,"
                " external_key) VALUES (:id, :i, (SELECT COALESCE(MAX(position), 0) + 1 FROM"
                " invoice_payments WHERE invoice_id = :i), :tx, :a, :mt, :s, :src, :at, :xs,"
                " :xr, :xk)",
                {
                    "id": payment.id,
                    "i": payment.invoice_id,
                    "tx": payment.transaction_id,
                    "a": payment.amount.amount,
                    "mt": payment.method_type.value if payment.method_type else None,
                    "s": payment.status,
                    "src": payment.source.value,
                    "at": payment.created_at,
                    "xs": payment.external_system,
                    "xr": payment.external_reference,
                    "xk": key,
                },
            )
        except UniqueViolation:
            if key is not None:
                raise Conflict(
                    f"{payment.source.value} record {payment.external_reference} already"
                    " settled an invoice of this merchant"
                ) from None
            raise Conflict(
                f"transaction {payment.transaction_id} is already recorded on an invoice"
            ) from None

    def settled_by(
        self, merchant_id: str, source: PaymentSourceKind, system: str | None, reference: str
    ) -> tuple[str, InvoicePayment] | None:
        row = self._one(
            "SELECT p.*, i.currency, i.number FROM invoice_payments p JOIN invoices i"
            " ON i.id = p.invoice_id WHERE p.external_key = :k",
            k=self._external_key(merchant_id, source, system, reference),
        )
        return (row["number"], self._payment(row, row["currency"])) if row else None

    def payment_for_transaction(self, transaction_id: str) -> InvoicePayment | None:
        row = self._one(
            "SELECT p.*, i.currency FROM invoice_payments p JOIN invoices i"
            " ON i.id = p.invoice_id WHERE p.transaction_id = :tx",
            tx=transaction_id,
        )
        return self._payment(row, row["currency"]) if row else None

    def list(
        self,
        merchant_id: str,
        after: str | None = None,
        limit: int = 50,
        customer_id: str | None = None,
        statuses: Collection[str] | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> list[Invoice]:
        params: dict[str, Any] = {"m": merchant_id, "limit": limit}
        where = time_and_status(params, statuses, since, until)
        if customer_id is not None:
            where += " AND customer_id = :c"
            params["c"] = customer_id
        if after is not None:
            where += (
                " AND (created_at, number) < (SELECT created_at, number FROM invoices"
                " WHERE merchant_id = :m AND number = :after)"
            )
            params["after"] = after
        rows = self.db.query(
            f"SELECT * FROM invoices WHERE merchant_id = :m{where}"
            " ORDER BY created_at DESC, number DESC LIMIT :limit",
            params,
        )
        return [self._load(r) for r in rows]

    # --- settings --------------------------------------------------------------------------

    def settings(self, merchant_id: str) -> InvoiceSettings:
        row = self._one("SELECT * FROM invoice_settings WHERE merchant_id = :m", m=merchant_id)
        if row is None:
            return InvoiceSettings()
        return InvoiceSettings(
            number_format=row["number_format"],
            starting_number=int(row["starting_number"]),
            generation=int(row["generation"]),
            embed_origins=tuple(json.loads(row["embed_origins"])),
        )

    def put_settings(self, merchant_id: str, settings: InvoiceSettings, at: datetime) -> None:
        self.db.execute(
            "INSERT INTO invoice_settings (merchant_id, number_format, starting_number,"
            " generation, embed_origins, updated_at) VALUES (:m, :f, :s, :g, :o, :at)"
            " ON CONFLICT (merchant_id) DO UPDATE SET number_format = excluded.number_format,"
            " starting_number = excluded.starting_number, generation = excluded.generation,"
            " embed_origins = excluded.embed_origins, updated_at = excluded.updated_at",
            {
                "m": merchant_id,
                "f": settings.number_format,
                "s": settings.starting_number,
                "g": settings.generation,
                "o": json.dumps(list(settings.embed_origins)),
                "at": at,
            },
        )
