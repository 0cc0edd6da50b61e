"""Scheduled payments, their run attempts, schedule requests and approval forms, in shared SQL.

Same conventions as ``sql.py``: ``:name`` parameters, keyset pages, ``FOR UPDATE`` row locks
on PostgreSQL (SQLite's single writer already serialises). Line items and addresses are
JSON documents: they are written once and read whole.
"""

from __future__ import annotations

import json
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from payhub.adapters.storage.sql import Row, UniqueViolation, opt_dt, to_decimal, to_dt
from payhub.adapters.storage.sql_records import RecordTable
from payhub.adapters.storage.sql_values import address_from_json, address_json
from payhub.domain.errors import Conflict
from payhub.domain.money import Money, round_half_up
from payhub.domain.payments import MethodType
from payhub.domain.schedules import (
    Cadence,
    RequestStatus,
    RunOutcome,
    RunTrigger,
    ScheduledPayment,
    ScheduleKind,
    ScheduleLine,
    ScheduleRequest,
    ScheduleRun,
    ScheduleStatus,
)


def _lines_json(lines: list[ScheduleLine]) -> str:
    return json.dumps(
        [
            {
                "description": line.description,
                "quantity": str(line.quantity),
                "unitPrice": str(line.unit_price.amount),
                "isTaxable": line.is_taxable,
                "productId": line.product_id,
            }
            for line in lines
        ],
        separators=(",", ":"),
    )


def _lines(value: Any, currency: str) -> list[ScheduleLine]:
    return [
        ScheduleLine(
            description=item["description"],
            quantity=Decimal(item["quantity"]),
            unit_price=Money(Decimal(item["unitPrice"]), currency),
            is_taxable=bool(item["isTaxable"]),
            product_id=item["productId"],
        )
        for item in json.loads(value)
    ]


def _money(value: Any, currency: str) -> Money | None:
    if value is None:
        return None
    return Money(round_half_up(to_decimal(value), currency), currency)


def _day(value: Any) -> date | None:
    return None if value is None else date.fromisoformat(str(value))


def _lock(db_dialect: str, for_update: bool) -> str:
    return " FOR UPDATE" if for_update and db_dialect == "postgres" else ""


class SqlScheduledPayments(RecordTable[ScheduledPayment]):
    TABLE = "scheduled_payments"
    COLUMNS = (
        "id",
        "merchant_id",
        "customer_id",
        "payment_method_id",
        "gateway",
        "method_type",
        "kind",
        "cadence",
        "anchor_local",
        "time_zone",
        "end_date",
        "max_charges",
        "currency",
        "amount",
        "lines",
        "tax_rate_id",
        "tax_percent",
        "bill_to",
        "ship_to",
        "description",
        "status",
        "next_run_number",
        "next_run_at",
        "next_attempt",
        "failures",
        "charges",
        "manual_runs",
        "plan_version",
        "last_failure",
        "invoice_number",
        "created_at",
        "updated_at",
    )

    def _params(self, s: ScheduledPayment) -> dict[str, Any]:
        return {
            "id": s.id,
            "merchant_id": s.merchant_id,
            "customer_id": s.customer_id,
            "payment_method_id": s.payment_method_id,
            "gateway": s.gateway,
            "method_type": s.method_type.value,
            "kind": s.kind.value,
            "cadence": s.cadence.value if s.cadence else None,
            "anchor_local": s.anchor_local.isoformat(),
            "time_zone": s.time_zone,
            "end_date": s.end_date.isoformat() if s.end_date else None,
            "max_charges": s.max_charges,
            "currency": s.currency,
            "amount": s.amount.amount if s.amount else None,
            "lines": _lines_json(s.lines),
            "tax_rate_id": s.tax_rate_id,
            "tax_percent": str(s.tax_percent) if s.tax_percent is not None else None,
            "bill_to": address_json(s.bill_to),
            "ship_to": address_json(s.ship_to),
            "description": s.description,
            "status": s.status.value,
            "next_run_number": s.next_run_number,
            "next_run_at": s.next_run_at,
            "next_attempt": s.next_attempt,
            "failures": s.failures,
            "charges": s.charges,
            "manual_runs": s.manual_runs,
            "plan_version": s.plan,
            "last_failure": s.last_failure,
            "invoice_number": s.invoice_number,
            "created_at": s.created_at,
            "updated_at": s.updated_at,
        }

    def _load(self, row: Row) -> ScheduledPayment:
        currency = row["currency"]
        return ScheduledPayment(
            id=row["id"],
            merchant_id=row["merchant_id"],
            customer_id=row["customer_id"],
            payment_method_id=row["payment_method_id"],
            gateway=row["gateway"],
            method_type=MethodType(row["method_type"]),
            kind=ScheduleKind(row["kind"]),
            cadence=Cadence(row["cadence"]) if row["cadence"] else None,
            anchor_local=datetime.fromisoformat(row["anchor_local"]),
            time_zone=row["time_zone"],
            end_date=_day(row["end_date"]),
            max_charges=row["max_charges"],
            currency=currency,
            amount=_money(row["amount"], currency),
            lines=_lines(row["lines"], currency),
            tax_rate_id=row["tax_rate_id"],
            tax_percent=Decimal(row["tax_percent"]) if row["tax_percent"] is not None else None,
            bill_to=address_from_json(row["bill_to"]),
            ship_to=address_from_json(row["ship_to"]),
            description=row["description"],
            status=ScheduleStatus(row["status"]),
            created_at=to_dt(row["created_at"]),
            updated_at=to_dt(row["updated_at"]),
            next_run_number=int(row["next_run_number"]),
            next_run_at=opt_dt(row["next_run_at"]),
            next_attempt=int(row["next_attempt"]),
            failures=int(row["failures"]),
            charges=int(row["charges"]),
            manual_runs=int(row["manual_runs"]),
            plan=int(row["plan_version"]),
            last_failure=row["last_failure"],
            invoice_number=row["invoice_number"],
        )

    def _duplicate(self, s: ScheduledPayment) -> Conflict:
        return Conflict(f"scheduled payment '{s.id}' exists already")

    def get(
        self, merchant_id: str, schedule_id: str, for_update: bool = False
    ) -> ScheduledPayment | None:
        row = self._one(
            "SELECT * FROM scheduled_payments WHERE merchant_id = :m AND id = :id"
            + _lock(self.db.dialect, for_update),
            m=merchant_id,
            id=schedule_id,
        )
        return self._load(row) if row else None

    def get_for_run(self, schedule_id: str) -> ScheduledPayment | None:
        """The schedule, locked until the unit of work ends (the worker's entry point)."""
        row = self._one(
            "SELECT * FROM scheduled_payments WHERE id = :id" + _lock(self.db.dialect, True),
            id=schedule_id,
        )
        return self._load(row) if row else None

    # --- runs ------------------------------------------------------------------------------

    def add_run(self, run: ScheduleRun) -> None:
        try:
            self.db.execute(
                "INSERT INTO schedule_runs (id, schedule_id, merchant_id, run_trigger,"
                " run_number, attempt, scheduled_for, started_at, gateway_key, currency,"
                " amount, outcome, transaction_id, invoice_number, failure, finished_at) VALUES"
                " (:id, :s, :m, :trigger, :n, :attempt, :for, :started, :key, :cur, :amount,"
                " :outcome, :tx, :inv, :failure, :finished)",
                self._run_params(run),
            )
        except UniqueViolation:
            raise Conflict(
                f"run {run.run_number} attempt {run.attempt} of '{run.schedule_id}' exists"
            ) from None

    @staticmethod
    def _run_params(run: ScheduleRun) -> dict[str, Any]:
        return {
            "id": run.id,
            "s": run.schedule_id,
            "m": run.merchant_id,
            "trigger": run.trigger.value,
            "n": run.run_number,
            "attempt": run.attempt,
            "for": run.scheduled_for,
            "started": run.started_at,
            "key": run.gateway_key,
            "cur": run.amount.currency,
            "amount": run.amount.amount,
            "outcome": run.outcome.value,
            "tx": run.transaction_id,
            "inv": run.invoice_number,
            "failure": run.failure,
            "finished": run.finished_at,
        }

    def save_run(self, run: ScheduleRun) -> None:
        """Write back what the attempt came to (outcome, transaction, invoice, failure)."""
        self.db.execute(
            "UPDATE schedule_runs SET outcome = :outcome, transaction_id = :tx,"
            " invoice_number = :inv, failure = :failure, finished_at = :finished WHERE id = :id",
            self._run_params(run),
        )

    @staticmethod
    def _load_run(row: Row) -> ScheduleRun:
        currency = row["currency"]
        amount = _money(row["amount"], currency)
        assert amount is not None
        return ScheduleRun(
            id=row["id"],
            schedule_id=row["schedule_id"],
            merchant_id=row["merchant_id"],
            trigger=RunTrigger(row["run_trigger"]),
            run_number=int(row["run_number"]),
            attempt=int(row["attempt"]),
            scheduled_for=to_dt(row["scheduled_for"]),
            started_at=to_dt(row["started_at"]),
            gateway_key=row["gateway_key"],
            amount=amount,
            outcome=RunOutcome(row["outcome"]),
            transaction_id=row["transaction_id"],
            invoice_number=row["invoice_number"],
            failure=row["failure"],
            finished_at=opt_dt(row["finished_at"]),
        )

    def get_run(
        self, schedule_id: str, trigger: RunTrigger, run_number: int, attempt: int
    ) -> ScheduleRun | None:
        row = self._one(
            "SELECT * FROM schedule_runs WHERE schedule_id = :s AND run_trigger = :t"
            " AND run_number = :n AND attempt = :a",
            s=schedule_id,
            t=trigger.value,
            n=run_number,
            a=attempt,
        )
        return self._load_run(row) if row else None

    def runs(self, schedule_id: str, limit: int = 20) -> list[ScheduleRun]:
        """The most recent attempts first."""
        rows = self.db.query(
            "SELECT * FROM schedule_runs WHERE schedule_id = :s"
            " ORDER BY started_at DESC, run_number DESC, attempt DESC, id DESC LIMIT :limit",
            {"s": schedule_id, "limit": limit},
        )
        return [self._load_run(r) for r in rows]

    def list(
        self,
        merchant_id: str,
        after: str | None = None,
        limit: int = 50,
        customer_id: str | None = None,
        status: ScheduleStatus | None = None,
    ) -> list[ScheduledPayment]:
        """Newest first."""
        where, params = "", {}
        if customer_id is not None:
            where += " AND customer_id = :c"
            params["c"] = customer_id
        if status is not None:
            where += " AND status = :s"
            params["s"] = status.value
        return self._page(merchant_id, where, params, "created_at, id", after, limit, True)


class SqlScheduleRequests(RecordTable[ScheduleRequest]):
    TABLE = "schedule_requests"
    COLUMNS = (
        "id",
        "merchant_id",
        "customer_id",
        "gateway",
        "kind",
        "cadence",
        "first_run_at",
        "end_date",
        "max_charges",
        "currency",
        "amount",
        "lines",
        "tax_rate_id",
        "tax_percent",
        "bill_to",
        "ship_to",
        "description",
        "invoice_id",
        "invoice_number",
        "token",
        "status",
        "schedule_id",
        "approved_at",
        "cancelled_at",
        "created_at",
        "updated_at",
    )

    def _params(self, r: ScheduleRequest) -> dict[str, Any]:
        return {
            "id": r.id,
            "merchant_id": r.merchant_id,
            "customer_id": r.customer_id,
            "gateway": r.gateway,
            "kind": r.kind.value,
            "cadence": r.cadence.value if r.cadence else None,
            "first_run_at": r.first_run_at,
            "end_date": r.end_date.isoformat() if r.end_date else None,
            "max_charges": r.max_charges,
            "currency": r.currency,
            "amount": r.amount.amount if r.amount else None,
            "lines": _lines_json(r.lines),
            "tax_rate_id": r.tax_rate_id,
            "tax_percent": str(r.tax_percent) if r.tax_percent is not None else None,
            "bill_to": address_json(r.bill_to),
            "ship_to": address_json(r.ship_to),
            "description": r.description,
            "invoice_id": r.invoice_id,
            "invoice_number": r.invoice_number,
            "token": r.token,
            "status": r.status.value,
            "schedule_id": r.schedule_id,
            "approved_at": r.approved_at,
            "cancelled_at": r.cancelled_at,
            "created_at": r.created_at,
            "updated_at": r.updated_at,
        }

    def _load(self, row: Row) -> ScheduleRequest:
        currency = row["currency"]
        return ScheduleRequest(
            id=row["id"],
            merchant_id=row["merchant_id"],
            customer_id=row["customer_id"],
            gateway=row["gateway"],
            kind=ScheduleKind(row["kind"]),
            cadence=Cadence(row["cadence"]) if row["cadence"] else None,
            first_run_at=to_dt(row["first_run_at"]),
            end_date=_day(row["end_date"]),
            max_charges=row["max_charges"],
            currency=currency,
            amount=_money(row["amount"], currency),
            lines=_lines(row["lines"], currency),
            tax_rate_id=row["tax_rate_id"],
            tax_percent=Decimal(row["tax_percent"]) if row["tax_percent"] is not None else None,
            bill_to=address_from_json(row["bill_to"]),
            ship_to=address_from_json(row["ship_to"]),
            description=row["description"],
            invoice_id=row["invoice_id"],
            invoice_number=row["invoice_number"],
            token=row["token"],
            status=RequestStatus(row["status"]),
            created_at=to_dt(row["created_at"]),
            updated_at=to_dt(row["updated_at"]),
            schedule_id=row["schedule_id"],
            approved_at=opt_dt(row["approved_at"]),
            cancelled_at=opt_dt(row["cancelled_at"]),
        )

    def _duplicate(self, r: ScheduleRequest) -> Conflict:
        return Conflict(f"schedule request '{r.id}' exists already")

    def get(
        self, merchant_id: str, request_id: str, for_update: bool = False
    ) -> ScheduleRequest | None:
        row = self._one(
            "SELECT * FROM schedule_requests WHERE merchant_id = :m AND id = :id"
            + _lock(self.db.dialect, for_update),
            m=merchant_id,
            id=request_id,
        )
        return self._load(row) if row else None

    def get_by_token(self, token: str, for_update: bool = False) -> ScheduleRequest | None:
        row = self._one(
            "SELECT * FROM schedule_requests WHERE token = :t" + _lock(self.db.dialect, for_update),
            t=token,
        )
        return self._load(row) if row else None

    def list(
        self, merchant_id: str, after: str | None = None, limit: int = 50
    ) -> list[ScheduleRequest]:
        """Newest first."""
        return self._page(merchant_id, "", {}, "created_at, id", after, limit, True)

    # --- approval forms --------------------------------------------------------------------

    def add_form(self, nonce: str, request_id: str, issued_at: datetime) -> None:
        self.db.execute(
            "INSERT INTO approval_forms (nonce, request_id, issued_at) VALUES (:n, :r, :at)",
            {"n": nonce, "r": request_id, "at": issued_at},
        )

    def use_form(self, nonce: str, request_id: str, now: datetime, issued_after: datetime) -> bool:
        """Spend a form token once: true only for an unused one of this request, issued
        after ``issued_after``."""
        return (
            self.db.execute(
                "UPDATE approval_forms SET used_at = :now WHERE nonce = :n AND request_id = :r"
                " AND used_at IS NULL AND issued_at > :after",
                {"now": now, "n": nonce, "r": request_id, "after": issued_after},
            )
            == 1
        )
