"""A transaction (payment) as the API returns it, with its ledger."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import msgspec

from payhub.domain.money import Money
from payhub.domain.payments import Transaction, TransactionEvent, TxStatus


class AmountOut(msgspec.Struct):
    value: Decimal
    currency: str

    @classmethod
    def of(cls, m: Money) -> AmountOut:
        return cls(m.amount, m.currency)


class EventOut(msgspec.Struct, rename="camel"):
    event_id: str
    kind: str
    outcome: str
    amount: AmountOut | None
    gateway_reference: str | None
    decline_code: str | None
    message: str | None
    created_at_utc: datetime

    @classmethod
    def of(cls, e: TransactionEvent) -> EventOut:
        return cls(
            event_id=e.id,
            kind=e.kind.value,
            outcome=e.outcome.value,
            amount=AmountOut.of(e.amount) if e.amount else None,
            gateway_reference=e.gateway_reference,
            decline_code=e.decline_code,
            message=e.message,
            created_at_utc=e.created_at,
        )


class TransactionOut(msgspec.Struct, rename="camel"):
    transaction_id: str
    status: str
    type: str
    amount: AmountOut
    captured_amount: AmountOut
    refunded_amount: AmountOut
    gateway: str
    gateway_reference: str | None
    location_id: str | None
    decline_code: str | None
    failure_message: str | None
    settled: bool
    created_at_utc: datetime
    updated_at_utc: datetime
    events: list[EventOut] = []

    @classmethod
    def of(cls, tx: Transaction, events: list[TransactionEvent] | None = None) -> TransactionOut:
        return cls(
            transaction_id=tx.id,
            status=tx.status.value,
            type=tx.method_type.value,
            amount=AmountOut.of(tx.amount),
            captured_amount=AmountOut.of(tx.captured),
            refunded_amount=AmountOut.of(tx.refunded),
            gateway=tx.gateway,
            gateway_reference=tx.gateway_reference,
            location_id=tx.location_id,
            decline_code=tx.decline_code,
            failure_message=tx.failure_message,
            # An ACH debit is submitted, never known settled: settlement takes days.
            settled=tx.status is TxStatus.CAPTURED,
            created_at_utc=tx.created_at,
            updated_at_utc=tx.updated_at,
            events=[EventOut.of(e) for e in events or []],
        )
