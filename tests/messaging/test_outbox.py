"""The transactional outbox: notices queue messages in the caller's unit of work, the worker
delivers them through the senders, with the gate re-checked, quiet hours, retries and no
double sends across crashes. Real store (SQLite and PostgreSQL), recording senders."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from payhub import PayHub
from payhub.adapters.system import FixedClock
from payhub.domain.customers import Customer
from payhub.domain.messaging import Channel, Message, MessageStatus, SendFailed, TextKind
from payhub.domain.money import Money
from payhub.domain.retries import RetryPolicy
from payhub.hub import MerchantScope
from payhub.services import notices
from payhub.services.messaging import QUEUE, Outbox
from payhub.services.worker import Worker
from tests.messaging.conftest import PHONE, FakeMailer, FakeSms

NY = ZoneInfo("America/New_York")
NOON_NY = datetime(2025, 3, 14, 12, 0, tzinfo=NY).astimezone(UTC)
DUE = Money(Decimal("125.00"), "USD")
PAY_URL = "https://pay.example.com/pay/tok123"


def messages(hub: PayHub, channel: Channel | None = None) -> list[Message]:
    with hub.store.unit_of_work(readonly=True) as uow:
        rows = uow.messages.list(None, limit=200)
    return [m for m in rows if channel is None or m.channel is channel]


def only(hub: PayHub, channel: Channel) -> Message:
    rows = messages(hub, channel)
    assert len(rows) == 1, rows
    return rows[0]


def send_invoice(hub: PayHub, shop: MerchantScope, customer_id: str | None) -> bool:
    with hub.store.unit_of_work() as uow:
        merchant = uow.merchants.get_by_reference(shop.texting._caller.provider_id, "acme")
        assert merchant is not None
        return notices.invoice_sent(
            uow,
            hub.deps,
            merchant=merchant,
            customer_id=customer_id,
            invoice_number="INV-7",
            amount_due=DUE,
            pay_url=PAY_URL,
        )


def worker(hub: PayHub) -> Worker:
    return Worker(hub.deps, hub.job_handlers(), "test-worker")


@pytest.fixture
def texting_on(shop: MerchantScope, clock: FixedClock) -> MerchantScope:
    clock.set(NOON_NY)
    shop.texting.switch(list(TextKind), True, time_zone="America/New_York")
    return shop


# --- queueing -----------------------------------------------------------------------------


def test_invoice_sent_queues_email_and_text_in_the_callers_unit_of_work(
    hub: PayHub, texting_on: MerchantScope, new_customer: Callable[..., Customer]
) -> None:
    customer = new_customer()
    assert send_invoice(hub, texting_on, customer.id) is True
    email, text = only(hub, Channel.EMAIL), only(hub, Channel.SMS)
    assert (email.status, email.to, email.kind) == (
        MessageStatus.QUEUED,
        "ada@example.com",
        TextKind.PAY_LINK,
    )
    assert email.subject == "Invoice INV-7 from Acme Plumbing"
    assert PAY_URL in email.body
    assert (text.status, text.to, text.kind) == (MessageStatus.QUEUED, PHONE, TextKind.PAY_LINK)
    assert text.body.startswith("Acme Plumbing: invoice INV-7 for $125.00 is ready.")
    assert "Reply STOP" in text.body
    with hub.store.unit_of_work(readonly=True) as uow:
        assert uow.jobs.count(QUEUE, done=False) == 2


def test_nothing_is_queued_when_the_change_rolls_back(
    hub: PayHub, texting_on: MerchantScope, new_customer: Callable[..., Customer]
) -> None:
    customer = new_customer()

    class Boom(Exception):
        pass

    def change_that_fails() -> None:
        with hub.store.unit_of_work() as uow:
            provider_id = texting_on.texting._caller.provider_id
            merchant = uow.merchants.get_by_reference(provider_id, "acme")
            assert merchant is not None
            notices.invoice_sent(
                uow,
                hub.deps,
                merchant=merchant,
                customer_id=customer.id,
                invoice_number="INV-7",
                amount_due=DUE,
                pay_url=PAY_URL,
            )
            raise Boom

    with pytest.raises(Boom):
        change_that_fails()
    assert messages(hub) == []
    with hub.store.unit_of_work(readonly=True) as uow:
        assert uow.jobs.count(QUEUE) == 0


def test_text_kind_off_is_refused_with_its_reason_but_the_email_goes(
    hub: PayHub, shop: MerchantScope, new_customer: Callable[..., Customer], clock: FixedClock
) -> None:
    clock.set(NOON_NY)
    customer = new_customer()
    assert send_invoice(hub, shop, customer.id) is True
    text = only(hub, Channel.SMS)
    assert (text.status, text.reason, text.job_id) == (MessageStatus.REFUSED, "KindDisabled", None)
    assert only(hub, Channel.EMAIL).status is MessageStatus.QUEUED


@pytest.mark.parametrize(
    ("phone", "consent", "reason"),
    [(None, False, "NoPhone"), (PHONE, False, "NoConsent")],
)
def test_gate_refusals_are_recorded(
    hub: PayHub,
    texting_on: MerchantScope,
    new_customer: Callable[..., Customer],
    phone: str | None,
    consent: bool,
    reason: str,
) -> None:
    customer = new_customer(phone=phone, consent=consent)
    send_invoice(hub, texting_on, customer.id)
    text = only(hub, Channel.SMS)
    assert (text.status, text.reason) == (MessageStatus.REFUSED, reason)


def test_no_email_address_means_no_email_and_false(
    hub: PayHub, texting_on: MerchantScope, new_customer: Callable[..., Customer]
) -> None:
    customer = new_customer(email=None)
    assert send_invoice(hub, texting_on, customer.id) is False
    assert messages(hub, Channel.EMAIL) == []
    assert only(hub, Channel.SMS).status is MessageStatus.QUEUED


def test_no_customer_means_nothing(hub: PayHub, texting_on: MerchantScope) -> None:
    assert send_invoice(hub, texting_on, None) is False
    assert send_invoice(hub, texting_on, "cus_unknown") is False
    assert messages(hub) == []


def test_invoice_paid_queues_receipt_text_and_email(
    hub: PayHub, texting_on: MerchantScope, new_customer: Callable[..., Customer]
) -> None:
    customer = new_customer()
    with hub.store.unit_of_work() as uow:
        merchant = uow.merchants.get_by_reference(texting_on.texting._caller.provider_id, "acme")
        assert merchant is not None
        notices.invoice_paid(
            uow,
            hub.deps,
            merchant=merchant,
            customer_id=customer.id,
            invoice_number="INV-7",
            payment_amount=Money(Decimal("40.00"), "USD"),
            amount_paid=Money(Decimal("100.00"), "USD"),
            amount_due=Money(Decimal("25.00"), "USD"),
            receipt_url="https://pay.example.com/receipt/abc",
        )
    text, email = only(hub, Channel.SMS), only(hub, Channel.EMAIL)
    assert text.kind is TextKind.RECEIPT
    assert text.status is MessageStatus.QUEUED
    assert (
        "payment of $40.00 on invoice INV-7. Paid so far: $100.00; $25.00 still due." in text.body
    )
    assert "payment of $40.00 on invoice INV-7. Paid so far: $100.00;" in email.body
    assert email.subject == "Receipt for invoice INV-7 from Acme Plumbing"


def test_schedule_hooks_queue_their_texts(
    hub: PayHub, texting_on: MerchantScope, new_customer: Callable[..., Customer]
) -> None:
    customer = new_customer()
    amount = Money(Decimal("49.99"), "USD")
    with hub.store.unit_of_work() as uow:
        merchant = uow.merchants.get_by_reference(texting_on.texting._caller.provider_id, "acme")
        assert merchant is not None
        notices.scheduled_payment_upcoming(
            uow,
            hub.deps,
            merchant=merchant,
            customer_id=customer.id,
            schedule_id="sch_1",
            amount=amount,
            run_at=datetime(2025, 3, 18, 3, 0, tzinfo=UTC),  # Mar 17 in New York
        )
        notices.scheduled_payment_failed(
            uow,
            hub.deps,
            merchant=merchant,
            customer_id=customer.id,
            schedule_id="sch_1",
            amount=amount,
            failures=1,
            next_attempt_at=datetime(2025, 3, 18, 15, 0, tzinfo=UTC),
        )
        notices.scheduled_payment_failed(
            uow,
            hub.deps,
            merchant=merchant,
            customer_id=customer.id,
            schedule_id="sch_1",
            amount=amount,
            failures=3,
            next_attempt_at=None,
        )
    by_kind = {}
    for m in messages(hub, Channel.SMS):
        by_kind.setdefault(m.kind, []).append(m.body)
    assert by_kind[TextKind.SCHEDULE_REMINDER] == [
        "Acme Plumbing: reminder, your scheduled payment of $49.99 runs on Mar 17, 2025."
    ]
    failed = sorted(by_kind[TextKind.FAILED_PAYMENT])
    assert any("We will try again on Mar 18, 2025." in b for b in failed)
    assert any("The schedule has stopped" in b for b in failed)
    assert all(m.status is MessageStatus.QUEUED for m in messages(hub))


def test_schedule_kinds_stay_off_unless_switched_on(
    hub: PayHub, shop: MerchantScope, new_customer: Callable[..., Customer], clock: FixedClock
) -> None:
    clock.set(NOON_NY)
    shop.texting.switch([TextKind.SCHEDULE_REMINDER], True, time_zone="America/New_York")
    customer = new_customer()
    with hub.store.unit_of_work() as uow:
        merchant = uow.merchants.get_by_reference(shop.texting._caller.provider_id, "acme")
        assert merchant is not None
        notices.scheduled_payment_failed(
            uow,
            hub.deps,
            merchant=merchant,
            customer_id=customer.id,
            schedule_id="sch_1",
            amount=DUE,
            failures=3,
            next_attempt_at=None,
        )
    assert only(hub, Channel.SMS).reason == "KindDisabled"


# --- delivery -------------------------------------------------------------------------------


def test_worker_delivers_both_and_records_provider_ids(
    hub: PayHub,
    texting_on: MerchantScope,
    new_customer: Callable[..., Customer],
    sms: FakeSms,
    mailer: FakeMailer,
) -> None:
    send_invoice(hub, texting_on, new_customer().id)
    done = worker(hub).run_once()
    assert done.done[QUEUE] == 2
    text, email = only(hub, Channel.SMS), only(hub, Channel.EMAIL)
    assert text.status is MessageStatus.SENT
    assert text.provider == "fake-sms"
    assert text.provider_message_id == "SM" + "0" * 32
    assert text.sent_at == NOON_NY
    assert text.attempts == 1
    assert email.status is MessageStatus.SENT
    assert email.provider_message_id == f"<{email.id}@test>"
    assert [s.to for s in sms.sent] == [PHONE]
    assert [m.to for m in mailer.sent] == ["ada@example.com"]
    assert worker(hub).run_once().jobs == 0  # nothing left, nothing sent twice
    assert len(sms.sent) == 1


def test_quiet_hours_hold_the_text_until_eight(
    hub: PayHub,
    texting_on: MerchantScope,
    new_customer: Callable[..., Customer],
    clock: FixedClock,
    sms: FakeSms,
    mailer: FakeMailer,
) -> None:
    customer = new_customer()
    clock.set(datetime(2025, 3, 8, 22, 30, tzinfo=NY))  # the night before spring forward
    send_invoice(hub, texting_on, customer.id)
    text = only(hub, Channel.SMS)
    assert (text.status, text.reason) == (MessageStatus.HELD, "QuietHours")
    assert text.send_after == datetime(2025, 3, 9, 12, 0, tzinfo=UTC)  # 08:00 EDT
    worker(hub).run_once()
    assert sms.sent == []
    assert len(mailer.sent) == 1
    clock.set(datetime(2025, 3, 9, 7, 59, tzinfo=NY))
    worker(hub).run_once()
    assert sms.sent == []
    clock.set(datetime(2025, 3, 9, 8, 0, tzinfo=NY))
    worker(hub).run_once()
    assert len(sms.sent) == 1
    assert only(hub, Channel.SMS).status is MessageStatus.SENT


def test_a_retry_that_lands_in_quiet_hours_is_held_again(
    hub: PayHub,
    texting_on: MerchantScope,
    new_customer: Callable[..., Customer],
    clock: FixedClock,
    sms: FakeSms,
) -> None:
    clock.set(datetime(2025, 6, 2, 20, 59, 50, tzinfo=NY))
    send_invoice(hub, texting_on, new_customer().id)
    sms.failures.append(SendFailed("Twilio 429 (error 20429): Too Many Requests"))
    worker(hub).run_once()
    text = only(hub, Channel.SMS)
    assert text.status is MessageStatus.QUEUED
    assert text.attempts == 1
    assert text.last_error == "Twilio 429 (error 20429): Too Many Requests"
    assert text.send_after is not None
    clock.set(text.send_after)  # now past 21:00
    worker(hub).run_once()
    text = only(hub, Channel.SMS)
    assert (text.status, text.reason) == (MessageStatus.HELD, "QuietHours")
    assert text.send_after == datetime(2025, 6, 3, 8, 0, tzinfo=NY)
    clock.set(text.send_after)
    worker(hub).run_once()
    assert only(hub, Channel.SMS).status is MessageStatus.SENT
    assert len(sms.sent) == 1


def test_consent_withdrawn_before_delivery_refuses_at_delivery(
    hub: PayHub,
    texting_on: MerchantScope,
    new_customer: Callable[..., Customer],
    sms: FakeSms,
) -> None:
    customer = new_customer()
    send_invoice(hub, texting_on, customer.id)
    texting_on.customers.record_consent(customer.id, False, None)
    worker(hub).run_once()
    text = only(hub, Channel.SMS)
    assert (text.status, text.reason) == (MessageStatus.REFUSED, "NoConsent")
    assert sms.sent == []


def test_kind_switched_off_before_delivery_refuses_at_delivery(
    hub: PayHub,
    texting_on: MerchantScope,
    new_customer: Callable[..., Customer],
    sms: FakeSms,
) -> None:
    send_invoice(hub, texting_on, new_customer().id)
    texting_on.texting.switch([TextKind.PAY_LINK], False)
    worker(hub).run_once()
    assert only(hub, Channel.SMS).reason == "KindDisabled"
    assert sms.sent == []


def test_transient_failures_back_off_then_succeed(
    hub: PayHub,
    texting_on: MerchantScope,
    new_customer: Callable[..., Customer],
    clock: FixedClock,
    sms: FakeSms,
) -> None:
    send_invoice(hub, texting_on, new_customer().id)
    sms.failures.extend([SendFailed("Twilio could not be reached (ConnectError)")] * 2)
    delays = []
    for _ in range(2):
        worker(hub).run_once()
        text = only(hub, Channel.SMS)
        assert text.status is MessageStatus.QUEUED
        assert text.send_after is not None
        delays.append(text.send_after - clock.now())
        worker(hub).run_once()  # not due yet: nothing happens
        assert only(hub, Channel.SMS).attempts == text.attempts
        clock.set(text.send_after)
    policy = RetryPolicy()
    assert policy.base / 2 <= delays[0] <= policy.base
    assert policy.base <= delays[1] <= policy.base * 2
    worker(hub).run_once()
    text = only(hub, Channel.SMS)
    assert (text.status, text.attempts, text.last_error) == (MessageStatus.SENT, 3, None)
    assert len(sms.sent) == 1


def test_permanent_failure_is_failed_with_last_error(
    hub: PayHub,
    texting_on: MerchantScope,
    new_customer: Callable[..., Customer],
    sms: FakeSms,
) -> None:
    send_invoice(hub, texting_on, new_customer().id)
    sms.failures.append(
        SendFailed("Twilio 400 (error 21614): not a mobile number", permanent=True, code="21614")
    )
    worker(hub).run_once()
    text = only(hub, Channel.SMS)
    assert (text.status, text.reason) == (MessageStatus.FAILED, "ProviderRefused")
    assert text.last_error == "Twilio 400 (error 21614): not a mobile number"
    assert worker(hub).run_once().jobs == 0


def test_retries_run_out(
    hub: PayHub,
    texting_on: MerchantScope,
    new_customer: Callable[..., Customer],
    clock: FixedClock,
    sms: FakeSms,
) -> None:
    hub.outbox._policy = RetryPolicy(max_attempts=3)
    send_invoice(hub, texting_on, new_customer().id)
    sms.failures.extend([SendFailed("Twilio 401 (error 20003): Authenticate")] * 3)
    for _ in range(3):
        worker(hub).run_once()
        clock.advance(timedelta(hours=1))
    text = only(hub, Channel.SMS)
    assert (text.status, text.reason, text.attempts) == (
        MessageStatus.FAILED,
        "RetriesExhausted",
        3,
    )
    assert text.last_error == "Twilio 401 (error 20003): Authenticate (gave up after 3 attempts)"
    assert sms.sent == []


def test_provider_opt_out_blocks_the_number_and_withdraws_consent(
    hub: PayHub,
    texting_on: MerchantScope,
    new_customer: Callable[..., Customer],
    sms: FakeSms,
) -> None:
    customer = new_customer()
    send_invoice(hub, texting_on, customer.id)
    sms.failures.append(
        SendFailed(
            "Twilio 400 (error 21610): unsubscribed recipient",
            permanent=True,
            blocked=True,
            code="21610",
        )
    )
    worker(hub).run_once()
    assert only(hub, Channel.SMS).reason == "NumberBlocked"
    with hub.store.unit_of_work(readonly=True) as uow:
        assert uow.messages.is_blocked(PHONE)
    assert texting_on.customers.consent(customer.id).consent is False
    history = texting_on.customers.consent_history(customer.id).items
    (stop,) = [r for r in history if r.source.value == "Keyword"]
    assert stop.consent is False
    assert stop.phone == PHONE
    assert "provider-opt-out" in (stop.reason or "")
    assert "21610" in (stop.reason or "")


# --- crashes: never lost, never sent twice -----------------------------------------------------


class Crash(BaseException):
    """The worker process dies (not an ``Exception``: nothing in payhub catches it)."""


def test_crash_after_the_provider_took_the_text_is_recorded_not_resent(
    hub: PayHub,
    texting_on: MerchantScope,
    new_customer: Callable[..., Customer],
    clock: FixedClock,
    sms: FakeSms,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    send_invoice(hub, texting_on, new_customer(email=None).id)
    real_record = Outbox._record_sent

    def die(*args: object, **kwargs: object) -> None:
        raise Crash

    monkeypatch.setattr(Outbox, "_record_sent", die)
    with pytest.raises(Crash):
        worker(hub).run_once()
    assert len(sms.taken) == 1  # the provider has it…
    text = only(hub, Channel.SMS)
    assert text.status is MessageStatus.SENDING  # …payhub does not know yet
    monkeypatch.setattr(Outbox, "_record_sent", real_record)
    assert worker(hub).run_once().jobs == 0  # the dead worker's lease still holds the job
    clock.advance(timedelta(minutes=6))  # the lease expires; the job runs again
    worker(hub).run_once()
    text = only(hub, Channel.SMS)
    assert text.status is MessageStatus.SENT
    assert text.provider_message_id == next(iter(sms.taken))
    assert len(sms.sent) == 1
    assert sms.lookups == 1


def test_crash_before_the_provider_took_it_sends_once(
    hub: PayHub,
    texting_on: MerchantScope,
    new_customer: Callable[..., Customer],
    clock: FixedClock,
    sms: FakeSms,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    send_invoice(hub, texting_on, new_customer(email=None).id)
    sms.failures.append(Crash())
    with pytest.raises(Crash):
        worker(hub).run_once()
    clock.advance(timedelta(minutes=6))
    worker(hub).run_once()
    text = only(hub, Channel.SMS)
    assert text.status is MessageStatus.SENT
    assert text.attempts == 2
    assert len(sms.sent) == 1
    assert sms.lookups == 1


def test_unknown_outcome_is_looked_up_before_any_resend(
    hub: PayHub,
    texting_on: MerchantScope,
    new_customer: Callable[..., Customer],
    clock: FixedClock,
    sms: FakeSms,
) -> None:
    send_invoice(hub, texting_on, new_customer().id)
    sms.accept_then_fail = True  # Twilio took it, the answer timed out
    worker(hub).run_once()
    text = only(hub, Channel.SMS)
    assert text.status is MessageStatus.SENDING
    assert text.last_error == "read timeout"
    assert text.send_after is not None
    clock.set(text.send_after)
    worker(hub).run_once()
    text = only(hub, Channel.SMS)
    assert text.status is MessageStatus.SENT
    assert len(sms.sent) == 1


def test_an_identical_earlier_text_is_not_mistaken_for_this_one(
    hub: PayHub,
    texting_on: MerchantScope,
    new_customer: Callable[..., Customer],
    clock: FixedClock,
    sms: FakeSms,
) -> None:
    """Two identical pay-link texts: the lookup for the second skips the first's sid."""
    customer = new_customer()
    send_invoice(hub, texting_on, customer.id)
    worker(hub).run_once()
    send_invoice(hub, texting_on, customer.id)  # same invoice sent again, same body
    sms.failures.append(SendFailed("Twilio 502", unknown=True))
    worker(hub).run_once()
    pending = [m for m in messages(hub, Channel.SMS) if m.status is MessageStatus.SENDING]
    assert len(pending) == 1
    assert pending[0].send_after is not None
    clock.set(pending[0].send_after)
    worker(hub).run_once()
    sent = messages(hub, Channel.SMS)
    assert [m.status for m in sent] == [MessageStatus.SENT, MessageStatus.SENT]
    assert len({m.provider_message_id for m in sent}) == 2
    assert len(sms.sent) == 2


def test_email_after_a_crash_is_resent_with_the_same_message_id(
    hub: PayHub,
    texting_on: MerchantScope,
    new_customer: Callable[..., Customer],
    clock: FixedClock,
    mailer: FakeMailer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    send_invoice(hub, texting_on, new_customer(phone=None).id)
    real_record = Outbox._record_sent

    def die(*args: object, **kwargs: object) -> None:
        raise Crash

    monkeypatch.setattr(Outbox, "_record_sent", die)
    with pytest.raises(Crash):
        worker(hub).run_once()
    monkeypatch.setattr(Outbox, "_record_sent", real_record)
    clock.advance(timedelta(minutes=6))
    worker(hub).run_once()
    email = only(hub, Channel.EMAIL)
    assert email.status is MessageStatus.SENT
    assert email.attempts == 2
    # at least once over SMTP: the same message twice, recognisable by its id
    assert [m.message_id for m in mailer.sent] == [email.id, email.id]


def test_a_stale_duplicate_job_does_nothing(
    hub: PayHub,
    texting_on: MerchantScope,
    new_customer: Callable[..., Customer],
    sms: FakeSms,
) -> None:
    send_invoice(hub, texting_on, new_customer(email=None).id)
    text = only(hub, Channel.SMS)
    from payhub.ports import Job

    stale = Job("job_stale", QUEUE, {"message_id": text.id}, text.created_at, 1)
    hub.outbox.deliver(stale)
    assert sms.sent == []
    assert only(hub, Channel.SMS).status is MessageStatus.QUEUED


# --- a buried job: the worker gave up, the operator revives it ---------------------------------


@pytest.mark.parametrize("provider_took_it", [True, False], ids=["taken", "not-taken"])
def test_a_buried_delivery_is_revived_and_delivers_exactly_once(
    hub: PayHub,
    shop: MerchantScope,
    new_customer: Callable[..., Customer],
    clock: FixedClock,
    sms: FakeSms,
    store_url: str,
    key_file: Path,
    monkeypatch: pytest.MonkeyPatch,
    provider_took_it: bool,
) -> None:
    """The handler itself keeps crashing (the database is down when the outcome is to be
    recorded, or the sender has a bug), so the worker buries the job with the message
    stranded in ``Sending``. ``payhub jobs revive`` makes the same job due again; the next
    pass delivers the text once: looked up and recorded if the provider took it, sent once
    if it did not."""
    from click.testing import CliRunner

    from payhub_cli.main import cli
    from tests.messaging.test_cli_e2e import midday_zone

    monkeypatch.setenv("PAYHUB_KEY_FILE", str(key_file))
    clock.set(datetime.now(UTC).replace(microsecond=0))  # `payhub jobs revive` uses real time
    shop.texting.switch([TextKind.PAY_LINK], True, time_zone=midday_zone())
    send_invoice(hub, shop, new_customer(email=None).id)
    text = only(hub, Channel.SMS)
    assert text.status is MessageStatus.QUEUED

    def down(*args: object, **kwargs: object) -> None:
        raise RuntimeError("database is down")

    if provider_took_it:
        monkeypatch.setattr(Outbox, "_record_sent", down)
    else:
        monkeypatch.setattr(FakeSms, "send", down)
    giving_up = Worker(hub.deps, hub.job_handlers(), "w", policy=RetryPolicy(max_attempts=3))
    passes = []
    for _ in range(3):
        passes.append(giving_up.run_once())
        clock.advance(timedelta(hours=1))
    assert [p.retried[QUEUE] for p in passes] == [1, 1, 0]
    assert passes[-1].dead[QUEUE] == 1
    stranded = only(hub, Channel.SMS)
    assert stranded.status is MessageStatus.SENDING
    assert stranded.job_id == text.job_id
    assert len(sms.taken) == (1 if provider_took_it else 0)
    assert worker(hub).run_once().jobs == 0  # buried: no worker touches it any more

    runner = CliRunner()
    dead = runner.invoke(cli, ["jobs", "dead", "--queue", QUEUE, "--db", store_url])
    assert dead.exit_code == 0, dead.output
    assert text.job_id is not None
    assert text.job_id in dead.output
    assert "RuntimeError: database is down" in dead.output

    monkeypatch.undo()  # the cause is fixed
    monkeypatch.setenv("PAYHUB_KEY_FILE", str(key_file))
    revived = runner.invoke(cli, ["jobs", "revive", text.job_id, "--db", store_url])
    assert revived.exit_code == 0, revived.output
    clock.advance(timedelta(minutes=1))
    assert worker(hub).run_once().done[QUEUE] == 1
    delivered = only(hub, Channel.SMS)
    assert delivered.status is MessageStatus.SENT
    assert delivered.provider_message_id == next(iter(sms.taken))
    assert len(sms.taken) == 1  # exactly once at the provider
    assert sms.lookups >= 1
    assert worker(hub).run_once().jobs == 0
    assert len(sms.taken) == 1
