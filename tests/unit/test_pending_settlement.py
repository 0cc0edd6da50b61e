"""Settling a pending move from a status read (payhub/domain/payments.settle_pending): whatever
the gateway reports, money never goes below zero or beyond what was captured, a settled state
matches its amounts, and nothing moves while the gateway is still working."""

from __future__ import annotations

from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st

from payhub.domain.money import Money
from payhub.domain.payments import (
    GatewayResult,
    GatewayStatus,
    MethodType,
    Transaction,
    TxStatus,
    settle_pending,
)

AT = datetime(2026, 11, 25, tzinfo=UTC)
cents = st.integers(min_value=0, max_value=100_000)


def usd(units: int) -> Money:
    return Money.from_minor_units(units, "USD")


def tx(status: TxStatus, amount: int, captured: int, refunded: int) -> Transaction:
    return Transaction(
        id="txn_1",
        merchant_id="mer_1",
        gateway="stripe",
        method_type=MethodType.CARD,
        amount=usd(amount),
        status=status,
        captured=usd(captured),
        refunded=usd(refunded),
        created_at=AT,
        updated_at=AT,
    )


def consistent(t: Transaction) -> None:
    assert usd(0) <= t.refunded <= t.captured <= t.amount
    if t.status is TxStatus.REFUNDED:
        assert t.refunded == t.captured
    if t.status is TxStatus.PARTIALLY_REFUNDED:
        assert usd(0) < t.refunded < t.captured
    if t.status is TxStatus.CAPTURED:
        assert t.refunded == usd(0)


@given(
    data=st.data(),
    captured=st.integers(min_value=1, max_value=100_000),
    status=st.sampled_from(list(GatewayStatus)),
)
def test_a_pending_refund_settles_within_what_was_captured(
    data: st.DataObject, captured: int, status: GatewayStatus
) -> None:
    before = data.draw(st.integers(min_value=0, max_value=captured - 1), label="refunded before")
    pending = data.draw(st.integers(min_value=1, max_value=captured - before), label="pending")
    done = data.draw(st.none() | st.integers(min_value=0, max_value=captured), label="done")
    flight = data.draw(st.none() | st.integers(min_value=0, max_value=captured), label="flight")
    t = tx(TxStatus.REFUND_PENDING, captured, captured, before + pending)
    report = GatewayResult(
        "ref",
        status,
        usd(captured),
        refunded=None if done is None else usd(done),
        refunding=None if flight is None else usd(flight),
    )

    changed = settle_pending(t, report, AT)

    consistent(t)
    if not changed:
        assert (t.status, t.refunded) == (TxStatus.REFUND_PENDING, usd(before + pending))
    if done is not None and done >= before + pending:
        assert t.refunded == usd(min(done, captured))
        assert t.status is not TxStatus.REFUND_PENDING
    if status is GatewayStatus.PENDING and (done is None or done < before + pending):
        assert not changed or t.status is TxStatus.REFUND_PENDING


@given(
    amount=st.integers(min_value=1, max_value=100_000), status=st.sampled_from(list(GatewayStatus))
)
def test_a_pending_capture_or_void_moves_only_on_a_final_answer(
    amount: int, status: GatewayStatus
) -> None:
    capture = tx(TxStatus.CAPTURE_PENDING, amount, amount, 0)
    void = tx(TxStatus.VOID_PENDING, amount, 0, 0)
    report = GatewayResult("ref", status, usd(amount))

    settle_pending(capture, report, AT)
    settle_pending(void, report, AT)

    for t in (capture, void):
        consistent(t)
    if status in (GatewayStatus.AUTHORIZED, GatewayStatus.PENDING, GatewayStatus.SUBMITTED):
        assert capture.status is TxStatus.CAPTURE_PENDING
        assert void.status is TxStatus.VOID_PENDING
    if status is GatewayStatus.CAPTURED:
        assert (capture.status, void.status) == (TxStatus.CAPTURED, TxStatus.CAPTURED)
    if status is GatewayStatus.VOIDED:
        assert (capture.status, capture.captured) == (TxStatus.VOIDED, usd(0))
        assert void.status is TxStatus.VOIDED


def test_other_states_are_left_alone() -> None:
    for status in (TxStatus.CAPTURED, TxStatus.AUTHORIZED, TxStatus.UNKNOWN):
        t = tx(status, 100, 100, 0)
        assert not settle_pending(t, GatewayResult("ref", GatewayStatus.VOIDED, usd(100)), AT)
        assert t.status is status
