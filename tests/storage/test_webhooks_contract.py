"""The webhook repository's contract, on SQLite and PostgreSQL alike."""

from __future__ import annotations

from datetime import timedelta

import pytest

from payhub.domain.webhooks import DeliveryAttempt, DeliveryStatus, WebhookDelivery, WebhookEndpoint
from payhub.ports import Store
from tests.storage.test_contract import T0, merchant, provider


def endpoint(
    eid: str, pid: str = "prv_1", merchant_id: str | None = None, n: int = 0
) -> WebhookEndpoint:
    at = T0 + timedelta(seconds=n)
    return WebhookEndpoint(
        id=eid,
        provider_id=pid,
        merchant_id=merchant_id,
        url=f"https://hooks.example.com/{eid}",
        event_types=("invoice.paid", "invoice.sent"),
        description="Books",
        alert_email="ops@example.com",
        enabled=True,
        secret_sealed=b"\x00sealed\xff" + eid.encode(),
        created_at=at,
        updated_at=at,
    )


def delivery(
    did: str, seq: int, object_id: str = "inv_1", status: DeliveryStatus = DeliveryStatus.WAITING
) -> WebhookDelivery:
    return WebhookDelivery(
        id=did,
        endpoint_id="whe_1",
        provider_id="prv_1",
        merchant_id="mer_1",
        event_id=f"evt_{did}",
        event_type="invoice.paid",
        object_id=object_id,
        seq=seq,
        body='{"type":"invoice.paid","data":{"amount":"1.00","name":"Zoë"}}',
        status=status,
        created_at=T0,
        updated_at=T0,
    )


@pytest.fixture
def seeded(store: Store) -> Store:
    with store.unit_of_work() as uow:
        uow.providers.add(provider())
        uow.providers.add(provider("prv_2"))
        uow.merchants.add(merchant("mer_1", "acme"))
        uow.webhooks.add_endpoint(endpoint("whe_1"))
    return store


def test_endpoints_round_trip_save_list_and_delete(seeded: Store) -> None:
    with seeded.unit_of_work() as uow:
        uow.webhooks.add_endpoint(endpoint("whe_2", merchant_id="mer_1", n=1))
        uow.webhooks.add_endpoint(endpoint("whe_3", pid="prv_2", n=2))
    with seeded.unit_of_work() as uow:
        assert uow.webhooks.get_endpoint("prv_1", "whe_1") == endpoint("whe_1")
        assert uow.webhooks.get_endpoint("prv_2", "whe_1") is None  # another provider's
        assert [e.id for e in uow.webhooks.list_endpoints("prv_1")] == ["whe_1", "whe_2"]
        assert [e.id for e in uow.webhooks.list_endpoints("prv_1", "mer_1")] == ["whe_2"]
        assert [e.id for e in uow.webhooks.list_endpoints("prv_1", after="whe_1")] == ["whe_2"]
        e = uow.webhooks.get_endpoint("prv_1", "whe_2", for_update=True)
        assert e is not None
        e.enabled = False
        e.previous_secret_sealed = b"old"
        e.previous_secret_expires_at = T0 + timedelta(hours=24)
        e.failing_since = T0
        e.event_types = ("*",)
        uow.webhooks.save_endpoint(e)
    with seeded.unit_of_work() as uow:
        again = uow.webhooks.get_endpoint("prv_1", "whe_2")
        assert again == e
        assert [x.id for x in uow.webhooks.enabled_endpoints("prv_1")] == ["whe_1"]
        e.deleted_at = T0
        uow.webhooks.save_endpoint(e)
    with seeded.unit_of_work() as uow:
        assert uow.webhooks.get_endpoint("prv_1", "whe_2") is None
        assert [x.id for x in uow.webhooks.list_endpoints("prv_1")] == ["whe_1"]


def test_deliveries_chain_per_endpoint_and_object(seeded: Store) -> None:
    with seeded.unit_of_work() as uow:
        assert uow.webhooks.lock_chain("whe_1", "inv_1") == 0
        assert not uow.webhooks.has_open("whe_1", "inv_1")
        uow.webhooks.add_delivery(delivery("d1", 1, status=DeliveryStatus.PENDING))
        uow.webhooks.add_delivery(delivery("d3", 3))
        uow.webhooks.add_delivery(delivery("d2", 2))
        uow.webhooks.add_delivery(
            delivery("o1", 1, object_id="inv_2", status=DeliveryStatus.DELIVERED)
        )
    with seeded.unit_of_work() as uow:
        assert uow.webhooks.lock_chain("whe_1", "inv_1") == 3
        assert uow.webhooks.has_open("whe_1", "inv_1")
        assert not uow.webhooks.has_open("whe_1", "inv_2")
        assert uow.webhooks.get_delivery("d2") == delivery("d2", 2)
        nxt = uow.webhooks.next_waiting("whe_1", "inv_1")
        assert nxt is not None
        assert nxt.id == "d2"
        nxt.status = DeliveryStatus.PENDING
        nxt.attempts = 2
        nxt.job_id = "job_x"
        nxt.last_status_code = 503
        nxt.next_attempt_at = T0 + timedelta(seconds=5)
        uow.webhooks.save_delivery(nxt)
    with seeded.unit_of_work() as uow:
        assert uow.webhooks.get_delivery("d2", for_update=True) == nxt
        assert [d.id for d in uow.webhooks.deliveries_of_event("prv_1", "evt_d3")] == ["d3"]
        assert uow.webhooks.deliveries_of_event("prv_2", "evt_d3") == []


def test_attempt_log_newest_first_with_a_cursor(seeded: Store) -> None:
    with seeded.unit_of_work() as uow:
        uow.webhooks.add_delivery(delivery("d1", 1))
        for n in range(3):
            uow.webhooks.add_attempt(
                DeliveryAttempt(
                    id=f"wha_{n}",
                    delivery_id="d1",
                    endpoint_id="whe_1",
                    event_id="evt_d1",
                    event_type="invoice.paid",
                    attempt=n + 1,
                    started_at=T0 + timedelta(seconds=n),
                    duration_ms=10 * n,
                    status_code=None if n == 0 else 500,
                    error="timeout after 15 s" if n == 0 else None,
                    outcome="retrying",
                    next_attempt_at=T0 + timedelta(minutes=n),
                )
            )
    with seeded.unit_of_work() as uow:
        log = uow.webhooks.attempts("whe_1")
        assert [a.id for a in log] == ["wha_2", "wha_1", "wha_0"]
        assert log[2].status_code is None
        assert log[2].error == "timeout after 15 s"
        assert [a.id for a in uow.webhooks.attempts("whe_1", after="wha_2", limit=1)] == ["wha_1"]
        assert uow.webhooks.attempts("whe_other") == []


def test_finished_deliveries_and_their_attempts_are_purged_open_ones_kept(seeded: Store) -> None:
    old = delivery("old", 1, status=DeliveryStatus.DELIVERED)
    old.finished_at = T0
    recent = delivery("recent", 2, status=DeliveryStatus.FAILED)
    recent.finished_at = T0 + timedelta(days=2)
    with seeded.unit_of_work() as uow:
        for d in (old, recent, delivery("open", 3, status=DeliveryStatus.PENDING)):
            uow.webhooks.add_delivery(d)
        uow.webhooks.add_attempt(
            DeliveryAttempt(
                "wha_old", "old", "whe_1", "evt_old", "invoice.paid", 1, T0, 5, 200, None,
                "delivered",
            )
        )  # fmt: skip
    with seeded.unit_of_work() as uow:
        assert uow.webhooks.purge_finished_before(T0 + timedelta(days=1)) == 1
    with seeded.unit_of_work() as uow:
        assert uow.webhooks.get_delivery("old") is None
        assert uow.webhooks.attempts("whe_1") == []
        assert uow.webhooks.get_delivery("recent") is not None
        assert uow.webhooks.get_delivery("open") is not None
