"""Each service emits the right events, exactly once per change, in the change's own unit of
work: nothing when the change rolls back or refuses. Both stores, through the services and
the API as callers use them; the store is read directly to count events."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest

from payhub import PayHub
from payhub.adapters.system import FixedClock
from payhub.domain.environments import Environment
from payhub.domain.events import DomainEvent, InvoiceVoided
from payhub.domain.invoices import LineInput, PaymentSourceKind, StoreOrderStatus
from payhub.domain.messaging import Message
from payhub.domain.payments import MethodType
from payhub.ports import EventQuery, Job, UnitOfWork
from payhub.services.events import emit_for
from payhub.services.invoices import StoreOrder, import_store_order, settle_externally
from payhub.services.notices import TYPES as NOTICE_TYPES
from payhub.services.worker import Pass
from tests.invoices.conftest import Invoicing
from tests.schedules.conftest import GatewayBook, at
from tests.schedules.test_requests import approve, page_path, request_body


def recorded(hub: PayHub, provider_id: str) -> list[DomainEvent]:
    """Every event of the provider, oldest first."""
    with hub.store.unit_of_work(readonly=True) as uow:
        return list(reversed(uow.events.list(EventQuery(provider_id), limit=1000)))


def kinds(shop: Invoicing) -> list[str]:
    return [e.type for e in recorded(shop.hub, shop.account.provider.id)]


def messages(hub: PayHub) -> list[Message]:
    with hub.store.unit_of_work(readonly=True) as uow:
        return list(reversed(uow.messages.list(None, limit=1000)))


def pay(shop: Invoicing, number: str, amount: str | None = None, attempt: str = "a1") -> Any:
    return shop.hub.pay_pages.pay(
        shop.token(number),
        amount=Decimal(amount) if amount is not None else None,
        payment_token="sim_card_ok",
        method_type=MethodType.CARD,
        attempt_id=attempt,
    )


def test_customers_emit_created_once(shop: Invoicing, customer: dict[str, Any]) -> None:
    assert kinds(shop) == ["customer.created"]
    shop.ok(shop.patch(f"/customers/{customer['customerId']}", {"website": "https://a.example"}))
    assert shop.post("/customers", {"name": {}}).status_code == 400  # refused: nothing
    assert kinds(shop) == ["customer.created"]
    [event] = recorded(shop.hub, shop.account.provider.id)
    assert (event.object_type.value, event.object_id) == ("customer", customer["customerId"])
    assert event.data["customerId"] == customer["customerId"]


def test_invoices_emit_sent_each_send_voided_once_and_a_payment_event_per_payment(
    shop: Invoicing, customer: dict[str, Any]
) -> None:
    first = shop.invoice(customerId=customer["customerId"], partialPaymentMode="CustomerChoice")
    number = first["invoiceNumber"]
    shop.ok(shop.post(f"/invoices/{number}/send"))
    shop.ok(shop.post(f"/invoices/{number}/send"))  # sent again: the link goes out again
    pay(shop, number, "5.00", "a1")
    pay(shop, number, "5.00", "a1")  # the same attempt again: no second payment
    pay(shop, number, None, "a2")
    assert shop.post(f"/invoices/{number}/void").status_code == 409  # Paid: refused
    other = shop.invoice()["invoiceNumber"]
    shop.ok(shop.post(f"/invoices/{other}/void"))
    shop.ok(shop.post(f"/invoices/{other}/void"))  # repeated: keeps the first, no event
    assert kinds(shop) == [
        "customer.created",
        "invoice.sent",
        "invoice.sent",
        "payment.succeeded",
        "invoice.partially_paid",
        "payment.succeeded",
        "invoice.paid",
        "invoice.voided",
    ]


def test_settled_outside_payhub_is_paid_without_a_receipt(
    shop: Invoicing, customer: dict[str, Any]
) -> None:
    number = shop.invoice(customerId=customer["customerId"])["invoiceNumber"]
    with shop.hub.store.unit_of_work() as uow:
        merchant = shop.merchant(uow)
        settle_externally(
            uow, shop.hub.deps, merchant, number, PaymentSourceKind.CRM, "deal-1", system="crm-a"
        )
    with shop.hub.store.unit_of_work() as uow:  # the same settlement again changes nothing
        settle_externally(
            uow,
            shop.hub.deps,
            shop.merchant(uow),
            number,
            PaymentSourceKind.CRM,
            "deal-1",
            system="crm-a",
        )
    events = recorded(shop.hub, shop.account.provider.id)
    assert [e.type for e in events] == ["customer.created", "invoice.paid"]
    assert events[1].details["transactionId"] is None
    assert messages(shop.hub) == []  # no receipt: the merchant's own system sends one


def test_a_paid_store_order_imports_as_one_paid_invoice(shop: Invoicing) -> None:
    order = StoreOrder(
        store="shop-a",
        reference="order-9",
        status=StoreOrderStatus.PAID,
        gateway="simulator",
        currency="USD",
        line_items=[LineInput("Widget", Decimal(1), Decimal("9.00"))],
        total=Decimal("9.00"),
    )
    for _ in range(2):
        with shop.hub.store.unit_of_work() as uow:
            import_store_order(uow, shop.hub.deps, shop.merchant(uow), order)
    assert kinds(shop).count("invoice.paid") == 1


def schedule(
    shop: Invoicing, customer: dict[str, Any], pm: str, clock: FixedClock, **extra: Any
) -> str:
    body = {
        "customerId": customer["customerId"],
        "paymentMethodId": pm,
        "startAtUtc": at(clock, hours=1),
        "amount": 12.5,
        **extra,
    }
    return str(shop.created("/scheduled-payments", body)["scheduledPaymentId"])


def schedule_events(shop: Invoicing, sid: str) -> list[DomainEvent]:
    return [e for e in recorded(shop.hub, shop.account.provider.id) if e.object_id == sid]


def test_schedule_moves_emit_their_state_events_once(
    shop: Invoicing, customer: dict[str, Any], save_card: Callable[..., str], clock: FixedClock
) -> None:
    sid = schedule(shop, customer, save_card(), clock, cadence="Monthly")
    base = f"/scheduled-payments/{sid}"
    shop.ok(shop.post(base + "/pause"))
    assert shop.post(base + "/pause").status_code == 409
    shop.ok(shop.post(base + "/resume"))
    shop.ok(shop.post(base + "/cancel"))
    assert shop.post(base + "/cancel").status_code == 409
    events = schedule_events(shop, sid)
    assert [e.type for e in events] == [
        "scheduled_payment.created",
        "scheduled_payment.paused",
        "scheduled_payment.resumed",
        "scheduled_payment.cancelled",
    ]
    assert [e.data["status"] for e in events] == ["Active", "Paused", "Active", "Cancelled"]
    assert events[-1].data == shop.ok(shop.get(base)) | {"recentRuns": []}


def test_a_run_emits_upcoming_then_charge_succeeded_and_completed(
    shop: Invoicing,
    customer: dict[str, Any],
    save_card: Callable[..., str],
    clock: FixedClock,
    run_worker: Callable[[], Pass],
) -> None:
    sid = schedule(shop, customer, save_card(), clock, startAtUtc=at(clock, days=3))
    clock.advance(timedelta(days=2, hours=1))  # the reminder is due (24 h before)
    run_worker()
    run_worker()
    clock.advance(timedelta(days=1))
    run_worker()
    run_worker()  # nothing due: nothing new
    events = schedule_events(shop, sid)
    assert [e.type for e in events] == [
        "scheduled_payment.created",
        "scheduled_payment.upcoming",
        "scheduled_payment.charge_succeeded",
        "scheduled_payment.completed",
    ]
    upcoming, charged, completed = events[1:]
    assert upcoming.details == {
        "runNumber": 1,
        "runAtUtc": at(clock, hours=-1),
        "amount": Decimal("12.50"),
    }
    assert charged.details["runNumber"] == 1
    assert charged.details["counted"] is True
    assert charged.details["failure"] is None
    assert charged.data["recentRuns"][0]["outcome"] == "Succeeded"
    assert completed.data["status"] == "Completed"
    payments = [
        e for e in recorded(shop.hub, shop.account.provider.id) if e.type == "payment.succeeded"
    ]
    assert [e.object_id for e in payments] == [charged.details["transactionId"]]


def test_failed_runs_emit_charge_failed_each_and_failed_once(
    shop: Invoicing,
    customer: dict[str, Any],
    save_card: Callable[..., str],
    clock: FixedClock,
    run_worker: Callable[[], Pass],
    gateway_book: GatewayBook,
) -> None:
    sid = schedule(shop, customer, save_card(), clock, cadence="Monthly")
    gateway_book.decline_next = 10
    for _ in range(4):
        clock.advance(timedelta(days=2))
        run_worker()
    events = [e for e in schedule_events(shop, sid) if e.type != "scheduled_payment.upcoming"]
    assert [e.type for e in events] == [
        "scheduled_payment.created",
        "scheduled_payment.charge_failed",
        "scheduled_payment.charge_failed",
        "scheduled_payment.charge_failed",
        "scheduled_payment.failed",
    ]
    failed = events[1:4]
    assert [e.details["attempt"] for e in failed] == [1, 2, 3]
    assert all(e.details["counted"] for e in failed)
    assert failed[0].details["nextAttemptAtUtc"] is not None
    assert failed[2].details["nextAttemptAtUtc"] is None
    assert events[-1].data["status"] == "Failed"
    payment_failures = kinds(shop).count("payment.failed")
    assert payment_failures == 3


def test_a_run_now_failure_does_not_count_and_texts_nothing(
    shop: Invoicing,
    customer: dict[str, Any],
    save_card: Callable[..., str],
    clock: FixedClock,
    gateway_book: GatewayBook,
) -> None:
    sid = schedule(shop, customer, save_card(), clock, cadence="Monthly")
    gateway_book.decline_next = 1
    assert shop.post(f"/scheduled-payments/{sid}/run-now").status_code == 402
    [failed] = [e for e in schedule_events(shop, sid) if e.type.endswith("charge_failed")]
    assert failed.details["trigger"] == "RunNow"
    assert failed.details["counted"] is False
    assert not [m for m in messages(shop.hub) if m.kind.value == "FailedPayment"]


def test_an_approval_emits_approved_and_the_schedule_created(
    shop: Invoicing, customer: dict[str, Any], clock: FixedClock
) -> None:
    made = shop.created(
        f"/customers/{customer['customerId']}/schedule-requests", request_body(clock)
    )
    assert approve(shop, page_path(made)).status_code == 303
    again = shop.client.post(page_path(made), data={"formToken": "x", "paymentMethodToken": "y"})
    assert again.status_code >= 400  # approved already: refused, nothing emitted
    events = recorded(shop.hub, shop.account.provider.id)
    tail = [(e.type, e.object_id) for e in events if e.type.startswith("schedule")]
    approved = shop.ok(shop.get(f"/schedule-requests/{made['scheduleRequestId']}"))
    assert tail == [
        ("schedule_request.approved", made["scheduleRequestId"]),
        ("scheduled_payment.created", approved["scheduledPaymentId"]),
    ]
    assert events[-2].data == approved


def test_revoking_links_emits_once_per_link(shop: Invoicing) -> None:
    hub = shop.hub
    hub.link_admin.set_domain(Environment.SANDBOX, "go.example.com")
    links = shop.client.post
    made = []
    for target in (
        "https://a.shopexample.com/1",
        "https://b.shopexample.com/2",
        "https://other.com/",
    ):
        response = links(
            "/api/short-links",
            json={"targetUrl": target, "merchantReference": "acme"},
            headers=shop.headers,
        )
        assert response.status_code == 201, response.text
        made.append(response.json()["code"])
    shop.client.delete(f"/api/short-links/{made[2]}", headers=shop.headers)
    shop.client.delete(f"/api/short-links/{made[2]}", headers=shop.headers)  # repeat: no event
    hub.link_admin.block("shopexample.com")
    hub.link_admin.block("shopexample.com")  # nothing left to revoke
    events = [e for e in recorded(hub, shop.account.provider.id) if e.type == "short_link.revoked"]
    assert sorted(e.object_id for e in events) == sorted(made)
    assert all(e.data["status"] == "revoked" for e in events)
    assert {e.data["revokeReason"] for e in events[1:]} == {
        "domain shopexample.com blocked for abuse"
    }
    assert (
        events[0].data
        == shop.client.get(f"/api/short-links/{made[2]}", headers=shop.headers).json()
    )


# --- the transactional outbox: reactions run in the change's unit of work ---------------------


class Boom(Exception):
    pass


def test_a_failing_reaction_rolls_the_whole_change_back(
    shop: Invoicing, customer: dict[str, Any]
) -> None:
    number = shop.invoice(customerId=customer["customerId"])["invoiceNumber"]
    seen: list[str] = []

    def explode(uow: UnitOfWork, event: DomainEvent) -> None:
        seen.append(event.type)
        raise Boom

    shop.hub.deps.reactions.register("exploding", explode, {"invoice.sent"})
    try:
        with pytest.raises(Boom):
            shop.hub.provider(shop.hub.authenticate(shop.account.key)).merchant(
                "acme"
            ).invoices.send(number)
    finally:
        shop.hub.deps.reactions.unregister("exploding")
    assert seen == ["invoice.sent"]  # the messaging reaction ran first, then this one
    assert kinds(shop) == ["customer.created"]
    assert messages(shop.hub) == []  # what the messaging reaction queued rolled back too
    assert shop.ok(shop.get(f"/invoices/{number}"))["status"] == "Draft"


def voided_then_failed(shop: Invoicing) -> None:
    """A change that emits an event, then fails before it commits."""
    with shop.hub.store.unit_of_work() as uow:
        emit_for(uow, shop.hub.deps, InvoiceVoided, shop.merchant(uow), "inv_x", {})
        raise Boom


def test_a_reaction_enqueues_its_job_in_the_same_transaction(
    shop: Invoicing, customer: dict[str, Any]
) -> None:
    def enqueue(uow: UnitOfWork, event: DomainEvent) -> None:
        uow.jobs.enqueue(
            Job(f"test-{event.id}", "test-queue", {"event": event.id}, event.created_at, 0)
        )

    shop.hub.deps.reactions.register("test", enqueue)
    try:
        number = shop.invoice(customerId=customer["customerId"])["invoiceNumber"]
        shop.ok(shop.post(f"/invoices/{number}/send"))
        with pytest.raises(Boom):
            voided_then_failed(shop)
    finally:
        shop.hub.deps.reactions.unregister("test")
    with shop.hub.store.unit_of_work(readonly=True) as uow:
        assert uow.jobs.count("test-queue") == 1  # the send's, not the rolled-back one's
    assert kinds(shop) == ["customer.created", "invoice.sent"]


def test_messaging_is_only_a_reaction(shop: Invoicing, customer: dict[str, Any]) -> None:
    """Without the messaging reaction the send still works and emails nothing; with it, each
    message names the event it answers."""
    number = shop.invoice(customerId=customer["customerId"])["invoiceNumber"]
    reactions = shop.hub.deps.reactions
    assert reactions.names() == ["messaging", "webhooks"]  # as PayHub composes them
    messaging = reactions.for_type("invoice.sent")[0]
    reactions.unregister("messaging")
    try:
        quiet = shop.ok(shop.post(f"/invoices/{number}/send"))
    finally:
        reactions.register("messaging", messaging, NOTICE_TYPES)
    assert quiet["emailQueued"] is False
    assert messages(shop.hub) == []
    loud = shop.ok(shop.post(f"/invoices/{number}/send"))
    assert loud["emailQueued"] is True
    sent = [e for e in recorded(shop.hub, shop.account.provider.id) if e.type == "invoice.sent"]
    assert len(sent) == 2
    assert {m.event_id for m in messages(shop.hub)} == {sent[1].id}
