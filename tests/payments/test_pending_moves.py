"""Moves a gateway accepts and finishes later (Checkout.com's 202s, Square's PENDING refunds, a
sale answered ``Authorized``): recorded as pending with the amount reserved, refused while
pending, and settled by a status read (``GET …?refresh=true``). On both stores, over HTTP."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import attrs
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.adapters.gateways.simulator.adapter import SimulatorGateway
from payhub.domain.money import Money
from payhub.domain.payments import (
    ChargeRequest,
    GatewayCredentials,
    GatewayResult,
    GatewayStatus,
    TxStatus,
)
from payhub.ports import EventQuery
from tests.payments.conftest import CountingGateway, charge_body
from tests.payments.test_charges import ledger

Client = TestClient[Litestar]


class AcceptingGateway:
    """The simulator, except that it accepts captures, refunds and voids without finishing
    them (``PENDING``), may answer a sale with ``Authorized`` (captured later), and reads
    back whatever the test says the gateway now reports."""

    def __init__(self) -> None:
        self.inner = SimulatorGateway()
        self.name = self.inner.name
        self.sale_authorized_only = False
        self.reported: GatewayResult | None = None

    def charge(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult:
        result = self.inner.charge(creds, request)
        if self.sale_authorized_only and request.capture:
            return attrs.evolve(result, status=GatewayStatus.AUTHORIZED)
        return result

    def capture(self, creds: GatewayCredentials, ref: str, amount: Money, key: str) -> Any:
        return attrs.evolve(
            self.inner.capture(creds, ref, amount, key), status=GatewayStatus.PENDING
        )

    def refund(self, creds: GatewayCredentials, ref: str, amount: Money, key: str) -> Any:
        return attrs.evolve(
            self.inner.refund(creds, ref, amount, key), status=GatewayStatus.PENDING
        )

    def void(self, creds: GatewayCredentials, ref: str, key: str) -> Any:
        return attrs.evolve(self.inner.void(creds, ref, key), status=GatewayStatus.PENDING)

    def status(self, creds: GatewayCredentials, ref: str) -> GatewayResult:
        assert self.reported is not None, "the test must say what the gateway reports"
        return attrs.evolve(self.reported, reference=ref)

    def save_payment_method(self, creds: GatewayCredentials, request: Any) -> Any:
        return self.inner.save_payment_method(creds, request)


@pytest.fixture
def accepting() -> AcceptingGateway:
    return AcceptingGateway()


@pytest.fixture
def gateway(accepting: AcceptingGateway) -> CountingGateway:
    return CountingGateway(accepting)  # type: ignore[arg-type]


def usd(value: str) -> Money:
    return Money.of(value, "USD")


def report(status: GatewayStatus, **amounts: Money) -> GatewayResult:
    return GatewayResult(reference="", status=status, amount=usd("25.00"), **amounts)


def payment_events(hub: PayHub, tx_id: str) -> list[str]:
    """The domain events about the transaction, oldest first: a pending move emits its event
    only once a status read finds it done."""
    with hub.store.unit_of_work(readonly=True) as uow:
        provider = uow.providers.list()[0].id
        rows = uow.events.list(EventQuery(provider, object_id=tx_id), limit=100)
    return [e.type for e in reversed(rows)]


def _sale(client: Client, shop: dict[str, str], capture: bool = True) -> tuple[str, str]:
    tx = client.post("/api/payments/charge", json=charge_body(capture=capture), headers=shop)
    assert tx.status_code == 201, tx.text
    return tx.json()[
        "transactionId"
    ], f"/api/payments/simulator/transactions/{tx.json()['transactionId']}"


def test_an_accepted_capture_is_pending_until_a_status_read_settles_it(
    client: Client,
    shop: dict[str, str],
    hub: PayHub,
    accepting: AcceptingGateway,
    gateway: CountingGateway,
) -> None:
    tx_id, base = _sale(client, shop, capture=False)

    pending = client.post(f"{base}/capture", headers=shop)

    assert pending.status_code == 200, pending.text
    assert pending.json()["status"] == "CapturePending"
    assert pending.json()["capturedAmount"]["value"] == 25
    assert pending.json()["settled"] is False
    assert pending.json()["events"][-1]["outcome"] == "pending"
    assert payment_events(hub, tx_id) == ["payment.succeeded"]  # not captured yet
    # Nothing else may happen until it settles, and the gateway hears nothing of it.
    calls = dict(gateway.calls)
    for move in ("capture", "refund", "void"):
        refused = client.post(f"{base}/{move}", headers=shop)
        assert refused.status_code == 409, refused.text
        assert "refresh=true" in refused.json()["detail"]
    assert dict(gateway.calls) == calls

    accepting.reported = report(GatewayStatus.AUTHORIZED)  # still working on it
    assert client.get(f"{base}?refresh=true", headers=shop).json()["status"] == "CapturePending"
    accepting.reported = report(GatewayStatus.CAPTURED, captured=usd("25.00"))
    settled = client.get(f"{base}?refresh=true", headers=shop).json()

    assert settled["status"] == "Captured"
    assert settled["settled"] is True
    assert payment_events(hub, tx_id) == ["payment.succeeded", "payment.captured"]
    tx, events = ledger(hub, tx_id)
    assert tx.status is TxStatus.CAPTURED
    assert [(e.kind.value, e.outcome.value) for e in events] == [
        ("authorize", "succeeded"),
        ("capture", "pending"),
        ("status", "succeeded"),
        ("status", "succeeded"),
    ]
    assert client.post(f"{base}/refund", headers=shop).json()["status"] == "RefundPending"


def test_a_sale_the_gateway_only_authorized_is_a_pending_capture_not_an_authorization(
    client: Client, shop: dict[str, str], hub: PayHub, accepting: AcceptingGateway
) -> None:
    accepting.sale_authorized_only = True
    tx_id, base = _sale(client, shop)

    tx, events = ledger(hub, tx_id)
    assert tx.status is TxStatus.CAPTURE_PENDING
    assert tx.captured.amount == Decimal("25.00")
    assert [(e.kind.value, e.outcome.value) for e in events] == [("charge", "pending")]
    # Not a capturable authorization: a second capture would take the money twice.
    assert client.post(f"{base}/capture", headers=shop).status_code == 409

    accepting.reported = report(GatewayStatus.CAPTURED)
    assert client.get(f"{base}?refresh=true", headers=shop).json()["status"] == "Captured"


def test_a_pending_refund_keeps_its_reservation_and_settles_either_way(
    client: Client, shop: dict[str, str], hub: PayHub, accepting: AcceptingGateway
) -> None:
    tx_id, base = _sale(client, shop)

    first = client.post(
        f"{base}/refund", json={"amount": {"value": 10, "currency": "USD"}}, headers=shop
    ).json()
    assert first["status"] == "RefundPending"
    assert first["refundedAmount"]["value"] == 10
    # The reserved 10 cannot be refunded again, nor anything else while it is pending.
    again = client.post(f"{base}/refund", headers=shop)
    assert again.status_code == 409

    accepting.reported = report(GatewayStatus.PENDING, refunded=usd("0.00"))
    assert client.get(f"{base}?refresh=true", headers=shop).json()["status"] == "RefundPending"
    accepting.reported = report(GatewayStatus.CAPTURED, refunded=usd("10.00"))
    done = client.get(f"{base}?refresh=true", headers=shop).json()
    assert done["status"] == "PartiallyRefunded"
    assert done["refundedAmount"]["value"] == 10
    assert payment_events(hub, tx_id) == ["payment.succeeded", "payment.refunded"]

    # A second pending refund the gateway then rejects: the reservation is released.
    second = client.post(f"{base}/refund", headers=shop).json()
    assert second["status"] == "RefundPending"
    assert second["refundedAmount"]["value"] == 25
    accepting.reported = report(GatewayStatus.CAPTURED, refunded=usd("10.00"))
    rejected = client.get(f"{base}?refresh=true", headers=shop).json()
    assert rejected["status"] == "PartiallyRefunded"
    assert rejected["refundedAmount"]["value"] == 10
    tx, _ = ledger(hub, tx_id)
    assert tx.refundable.amount == Decimal("15.00")
    # the rejected refund emitted nothing
    assert payment_events(hub, tx_id) == ["payment.succeeded", "payment.refunded"]


def test_a_full_pending_refund_settles_as_refunded(
    client: Client, shop: dict[str, str], accepting: AcceptingGateway
) -> None:
    _, base = _sale(client, shop)
    assert client.post(f"{base}/refund", headers=shop).json()["status"] == "RefundPending"
    accepting.reported = report(GatewayStatus.REFUNDED)
    assert client.get(f"{base}?refresh=true", headers=shop).json()["status"] == "Refunded"


def test_a_pending_void_settles_as_voided(
    client: Client, shop: dict[str, str], accepting: AcceptingGateway
) -> None:
    _, base = _sale(client, shop, capture=False)
    voiding = client.post(f"{base}/void", headers=shop).json()
    assert voiding["status"] == "VoidPending"
    assert client.post(f"{base}/capture", headers=shop).status_code == 409
    accepting.reported = report(GatewayStatus.VOIDED)
    assert client.get(f"{base}?refresh=true", headers=shop).json()["status"] == "Voided"


def test_refunds_still_in_flight_keep_it_pending_and_a_failed_one_is_released(
    client: Client, shop: dict[str, str], hub: PayHub, accepting: AcceptingGateway
) -> None:
    tx_id, base = _sale(client, shop)
    client.post(f"{base}/refund", json={"amount": {"value": 10, "currency": "USD"}}, headers=shop)

    # The gateway counts 10 as being refunded, none finished: still pending.
    accepting.reported = report(
        GatewayStatus.CAPTURED, refunded=usd("0.00"), refunding=usd("10.00")
    )
    assert client.get(f"{base}?refresh=true", headers=shop).json()["status"] == "RefundPending"
    # It failed: nothing refunded, nothing in flight, the 10 are refundable again.
    accepting.reported = report(GatewayStatus.CAPTURED, refunded=usd("0.00"))
    back = client.get(f"{base}?refresh=true", headers=shop).json()
    assert (back["status"], back["refundedAmount"]["value"]) == ("Captured", 0)
    tx, events = ledger(hub, tx_id)
    assert tx.refundable.amount == Decimal("25.00")
    assert [e.outcome.value for e in events][-3:] == ["pending", "succeeded", "succeeded"]
