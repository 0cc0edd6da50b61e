"""The events repository's contract on SQLite and PostgreSQL: recording order, filters,
cursor pages, exact money in data, purging, and messages named by their event."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest

from payhub.domain.events import DomainEvent, ObjectType
from payhub.domain.messaging import Channel, Message, MessageStatus, TextKind
from payhub.ports import EventQuery, Store
from tests.storage.test_contract import T0, merchant, provider


def event(
    eid: str,
    type_: str = "invoice.paid",
    *,
    pid: str = "prv_1",
    mid: str | None = "mer_1",
    object_type: ObjectType = ObjectType.INVOICE,
    object_id: str = "inv_1",
    at: Any = T0,
    data: dict[str, Any] | None = None,
) -> DomainEvent:
    return DomainEvent(
        id=eid,
        type=type_,
        provider_id=pid,
        merchant_id=mid,
        object_type=object_type,
        object_id=object_id,
        created_at=at,
        data=data if data is not None else {"invoiceId": object_id, "total": Decimal("25.00")},
        details={"paymentId": "ipy_1", "counted": True, "nothing": None},
    )


@pytest.fixture
def two_providers(store: Store) -> Store:
    with store.unit_of_work() as uow:
        uow.providers.add(provider("prv_1"))
        uow.providers.add(provider("prv_2"))
        uow.merchants.add(merchant("mer_1", "acme"))
        uow.merchants.add(merchant("mer_2", "bolt"))
        uow.merchants.add(merchant("mer_3", "other", pid="prv_2"))
    return store


def ids(events: list[DomainEvent]) -> list[str]:
    return [e.id for e in events]


def test_an_event_reads_back_as_written_with_exact_money(two_providers: Store) -> None:
    written = event(
        "evt_a",
        data={
            "amount": {"value": Decimal("10.50"), "currency": "USD"},
            "tiny": Decimal("0.0001"),
            "count": 3,
            "lines": [{"unitPrice": Decimal("12.5")}],
            "note": "café ✓",
            "none": None,
        },
    )
    with two_providers.unit_of_work() as uow:
        uow.events.add(written)
    with two_providers.unit_of_work(readonly=True) as uow:
        read = uow.events.get("evt_a")
        assert uow.events.get("evt_missing") is None
    assert read == written
    assert read is not None
    assert str(read.data["amount"]["value"]) == "10.50"  # digits kept, never through float


def test_list_is_newest_first_in_recording_order_even_at_one_instant(two_providers: Store) -> None:
    with two_providers.unit_of_work() as uow:
        # one instant, ids out of alphabetical order: the recording order decides
        for eid in ("evt_c", "evt_a", "evt_d", "evt_b"):
            uow.events.add(event(eid))
    with two_providers.unit_of_work(readonly=True) as uow:
        rows = uow.events.list(EventQuery("prv_1"))
    assert ids(rows) == ["evt_b", "evt_d", "evt_a", "evt_c"]


def test_filters_provider_merchant_type_object_and_since(two_providers: Store) -> None:
    later = T0 + timedelta(days=1)
    with two_providers.unit_of_work() as uow:
        uow.events.add(event("evt_1", "invoice.sent"))
        uow.events.add(event("evt_2", "invoice.paid", object_id="inv_2"))
        uow.events.add(event("evt_3", "invoice.paid", mid="mer_2", object_id="inv_3", at=later))
        uow.events.add(
            event(
                "evt_4",
                "payment.succeeded",
                object_type=ObjectType.PAYMENT,
                object_id="txn_1",
                at=later,
            )
        )
        uow.events.add(
            event("evt_5", "short_link.revoked", mid=None, object_type=ObjectType.SHORT_LINK)
        )
        uow.events.add(event("evt_6", "invoice.paid", pid="prv_2", mid="mer_3"))
    with two_providers.unit_of_work(readonly=True) as uow:

        def listed(**query: Any) -> list[str]:
            return ids(uow.events.list(EventQuery(**{"provider_id": "prv_1", **query})))

        assert listed() == ["evt_5", "evt_4", "evt_3", "evt_2", "evt_1"]
        assert listed(provider_id="prv_2") == ["evt_6"]
        assert listed(merchant_id="mer_1") == ["evt_4", "evt_2", "evt_1"]
        assert listed(merchant_id="mer_2") == ["evt_3"]
        assert listed(types=frozenset({"invoice.paid"})) == ["evt_3", "evt_2"]
        assert listed(types=frozenset({"invoice.sent", "payment.succeeded"})) == [
            "evt_4",
            "evt_1",
        ]
        assert listed(object_type=ObjectType.INVOICE, object_id="inv_1") == ["evt_1"]
        assert listed(object_type=ObjectType.PAYMENT) == ["evt_4"]
        assert listed(object_type=ObjectType.PAYMENT, object_id="inv_1") == []
        assert listed(since=later) == ["evt_4", "evt_3"]


def test_cursor_pages_continue_after_the_given_event(two_providers: Store) -> None:
    with two_providers.unit_of_work() as uow:
        for n in range(1, 8):
            uow.events.add(event(f"evt_{n}", object_id=f"inv_{n % 2}"))
    pages: list[list[str]] = []
    after = None
    with two_providers.unit_of_work(readonly=True) as uow:
        while True:
            rows = ids(uow.events.list(EventQuery("prv_1"), after, 3))
            if not rows:
                break
            pages.append(rows)
            after = rows[-1]
        same_object = ids(
            uow.events.list(
                EventQuery("prv_1", object_type=ObjectType.INVOICE, object_id="inv_1"), "evt_5", 10
            )
        )
    assert pages == [["evt_7", "evt_6", "evt_5"], ["evt_4", "evt_3", "evt_2"], ["evt_1"]]
    assert same_object == ["evt_3", "evt_1"]


def test_purge_forgets_only_events_older_than_the_cutoff(two_providers: Store) -> None:
    with two_providers.unit_of_work() as uow:
        uow.events.add(event("evt_old", at=T0 - timedelta(days=31)))
        uow.events.add(event("evt_edge", at=T0 - timedelta(days=30)))
        uow.events.add(event("evt_new", at=T0))
    with two_providers.unit_of_work() as uow:
        assert uow.events.purge_before(T0 - timedelta(days=30)) == 1
    with two_providers.unit_of_work(readonly=True) as uow:
        assert ids(uow.events.list(EventQuery("prv_1"))) == ["evt_new", "evt_edge"]


def test_a_rolled_back_unit_of_work_records_no_event(two_providers: Store) -> None:
    def change_that_fails() -> None:
        with two_providers.unit_of_work() as uow:
            uow.events.add(event("evt_gone"))
            raise RuntimeError("the change failed")

    with pytest.raises(RuntimeError):
        change_that_fails()
    with two_providers.unit_of_work(readonly=True) as uow:
        assert uow.events.get("evt_gone") is None


def test_messages_are_found_by_the_event_that_queued_them(two_providers: Store) -> None:
    def message(mid: str, event_id: str | None, channel: Channel) -> Message:
        return Message(
            id=mid,
            merchant_id="mer_1",
            customer_id=None,
            channel=channel,
            kind=TextKind.PAY_LINK,
            to="ada@example.com",
            body="hello",
            status=MessageStatus.QUEUED,
            created_at=T0,
            updated_at=T0,
            event_id=event_id,
        )

    with two_providers.unit_of_work() as uow:
        uow.messages.add(message("msg_1", "evt_1", Channel.EMAIL))
        uow.messages.add(message("msg_2", "evt_1", Channel.SMS))
        uow.messages.add(message("msg_3", None, Channel.EMAIL))
    with two_providers.unit_of_work(readonly=True) as uow:
        assert [m.id for m in uow.messages.caused_by("evt_1")] == ["msg_1", "msg_2"]
        assert uow.messages.caused_by("evt_2") == []
        found = uow.messages.get("msg_1")
    assert found is not None
    assert found.event_id == "evt_1"
