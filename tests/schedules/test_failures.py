"""Failed runs through the worker on both stores: retries 4 hours apart, the third consecutive
failure makes the schedule Failed, a success in between resets the count, and each failure
queues the FailedPayment text through the messaging gate (payhub/services/notices.py)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from payhub import PayHub
from payhub.adapters.system import FixedClock
from payhub.domain.messaging import Channel, Message, MessageStatus, Refusal, TextKind
from payhub.domain.schedules import RETRY_DELAY, RunOutcome, ScheduleStatus
from payhub.services.worker import Pass
from tests.customers.support import Shop
from tests.messaging.test_outbox import NOON_NY
from tests.schedules.conftest import GatewayBook, at


def texting(shop: Shop, kinds: list[TextKind]) -> None:
    scope = shop.hub.provider(shop.hub.as_provider(shop.account.provider.id)).merchant(shop.ref)
    scope.texting.switch(kinds, True, time_zone="America/New_York")


def consenting_customer(shop: Shop, consent: bool = True) -> str:
    body = shop.created(
        "/customers",
        {"name": {"first": "Grace"}, "phone": "+1 415 555 2671", "smsConsent": consent},
    )
    return str(body["customerId"])


def failed_texts(hub: PayHub, customer_id: str) -> list[Message]:
    with hub.store.unit_of_work(readonly=True) as uow:
        rows = uow.messages.list(None, limit=200)
    return sorted(
        (
            m
            for m in rows
            if m.kind is TextKind.FAILED_PAYMENT
            and m.channel is Channel.SMS
            and m.customer_id == customer_id
        ),
        key=lambda m: m.created_at,
    )


def monthly(shop: Shop, cid: str, pm: str, clock: FixedClock) -> str:
    body = {
        "customerId": cid,
        "paymentMethodId": pm,
        "startAtUtc": at(clock, hours=1),
        "amount": 12.5,
        "cadence": "Monthly",
    }
    return str(shop.created("/scheduled-payments", body)["scheduledPaymentId"])


def stored(shop: Shop, sid: str) -> Any:
    return shop.read(lambda uow, m: uow.scheduled_payments.get(m, sid))


def test_each_failure_queues_a_failed_payment_text_and_the_third_makes_it_failed(
    shop: Shop,
    save_card: Callable[..., str],
    clock: FixedClock,
    run_worker: Callable[[], Pass],
) -> None:
    clock.set(NOON_NY)
    texting(shop, [TextKind.FAILED_PAYMENT])
    cid = consenting_customer(shop)
    sid = monthly(shop, cid, save_card("sim_card_decline", customer_id=cid), clock)
    clock.advance(timedelta(hours=1))  # 13:00 in New York: inside texting hours
    first = clock.now()
    for n in (1, 2, 3):
        run_worker()
        texts = failed_texts(shop.hub, cid)
        assert len(texts) == n
        assert texts[-1].status is not MessageStatus.REFUSED, texts[-1].reason
        assert texts[-1].created_at == first + RETRY_DELAY * (n - 1)
        if n < 3:
            assert stored(shop, sid).status is ScheduleStatus.ACTIVE
            assert stored(shop, sid).next_run_at == clock.now() + RETRY_DELAY
            assert "We will try again" in texts[-1].body
            clock.advance(RETRY_DELAY)
    schedule = stored(shop, sid)
    assert (schedule.status, schedule.failures, schedule.next_run_at) == (
        ScheduleStatus.FAILED,
        3,
        None,
    )
    assert "The schedule has stopped" in failed_texts(shop.hub, cid)[-1].body
    clock.advance(timedelta(days=40))
    run_worker()  # Failed pauses it: no fourth attempt, no fourth text
    assert len(failed_texts(shop.hub, cid)) == 3
    got = shop.ok(shop.get(f"/scheduled-payments/{sid}"))
    assert (got["status"], got["failureCount"], got["nextRunAtUtc"]) == ("Failed", 3, None)
    assert [r["outcome"] for r in got["recentRuns"]] == ["Failed"] * 3


def test_the_gate_refuses_the_text_with_the_kind_off_or_without_consent(
    shop: Shop,
    save_card: Callable[..., str],
    clock: FixedClock,
    run_worker: Callable[[], Pass],
) -> None:
    clock.set(NOON_NY)
    texting(shop, [TextKind.SCHEDULE_REMINDER])  # FailedPayment stays off
    cid = consenting_customer(shop)
    silent = consenting_customer(shop, consent=False)
    for who in (cid, silent):
        monthly(shop, who, save_card("sim_card_decline", customer_id=who), clock)
    clock.advance(timedelta(hours=1))
    run_worker()
    for who in (cid, silent):
        (text,) = failed_texts(shop.hub, who)
        assert (text.status, text.reason) == (MessageStatus.REFUSED, Refusal.KIND_DISABLED)
    texting(shop, [TextKind.FAILED_PAYMENT])
    clock.advance(RETRY_DELAY)
    run_worker()  # the retries fail too; now the kind is on
    assert [t.status is MessageStatus.REFUSED for t in failed_texts(shop.hub, cid)] == [
        True,
        False,
    ]
    assert [t.reason for t in failed_texts(shop.hub, silent)] == [
        Refusal.KIND_DISABLED,
        Refusal.NO_CONSENT,
    ]


def test_a_success_between_failures_resets_the_count(
    shop: Shop,
    customer: dict[str, Any],
    save_card: Callable[..., str],
    clock: FixedClock,
    run_worker: Callable[[], Pass],
    gateway_book: GatewayBook,
) -> None:
    sid = monthly(shop, customer["customerId"], save_card(), clock)
    clock.advance(timedelta(hours=1))
    gateway_book.decline_next = 2
    run_worker()
    clock.advance(RETRY_DELAY)
    run_worker()
    assert (stored(shop, sid).failures, stored(shop, sid).charges) == (2, 0)
    clock.advance(RETRY_DELAY)
    run_worker()  # the third attempt of run 1 succeeds
    schedule = stored(shop, sid)
    assert (schedule.status, schedule.failures, schedule.charges) == (
        ScheduleStatus.ACTIVE,
        0,
        1,
    )
    assert schedule.next_run_number == 2
    gateway_book.decline_next = 2
    assert schedule.next_run_at is not None
    clock.set(schedule.next_run_at)
    run_worker()
    clock.advance(RETRY_DELAY)
    run_worker()
    schedule = stored(shop, sid)
    assert (schedule.status, schedule.failures) == (ScheduleStatus.ACTIVE, 2)  # not 4: Failed
    with shop.hub.store.unit_of_work(readonly=True) as uow:
        attempts = list(reversed(uow.scheduled_payments.runs(sid, 100)))
    assert [(r.run_number, r.attempt, r.outcome) for r in attempts] == [
        (1, 1, RunOutcome.FAILED),
        (1, 2, RunOutcome.FAILED),
        (1, 3, RunOutcome.SUCCEEDED),
        (2, 1, RunOutcome.FAILED),
        (2, 2, RunOutcome.FAILED),
    ]
