"""End to end through the real callers: an invoice sent over HTTP texts and emails its pay
link, a payment on the pay page texts the receipt, and the worker's scheduled-payment runs
text the failed-payment notice and the reminder before a run. Each is a row in the outbox
that the worker then delivers through the (recording) senders, on both stores."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from payhub import PayHub
from payhub.adapters.system import FixedClock
from payhub.domain.messaging import Channel, Message, MessageStatus, TextKind
from payhub.services.worker import Worker
from tests.conftest import Account
from tests.customers.support import Client, Shop
from tests.messaging.conftest import PHONE, FakeMailer, FakeSms
from tests.messaging.test_outbox import NOON_NY
from tests.pages.support import token_of
from tests.pages.test_pay_page_http import open_page, pay
from tests.schedules.conftest import at


@pytest.fixture
def api(
    client: Client,
    hub: PayHub,
    sandbox_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
    clock: FixedClock,
) -> Shop:
    """A merchant with simulator credentials and every text kind on, at noon in New York."""
    clock.set(NOON_NY)
    make_merchant(sandbox_provider, "acme", "Acme Plumbing")
    shop = Shop(client, hub, sandbox_provider, "acme")
    shop.ok(shop.put("/credentials/simulator", {"apiSecret": "s", "environment": "Sandbox"}))
    scope = hub.provider(hub.as_provider(sandbox_provider.provider.id)).merchant("acme")
    scope.texting.switch(list(TextKind), True, time_zone="America/New_York")
    return shop


@pytest.fixture
def customer_id(api: Shop) -> str:
    body = api.created(
        "/customers",
        {
            "name": {"first": "Ada", "last": "Lovelace"},
            "email": "ada@example.com",
            "phone": "+1 415 555 2671",
            "smsConsent": True,
        },
    )
    return str(body["customerId"])


def outbox(hub: PayHub, kind: TextKind | None = None) -> list[Message]:
    with hub.store.unit_of_work(readonly=True) as uow:
        rows = uow.messages.list(None, limit=200)
    return [m for m in rows if kind is None or m.kind is kind]


def one(hub: PayHub, kind: TextKind, channel: Channel) -> Message:
    rows = [m for m in outbox(hub, kind) if m.channel is channel]
    assert len(rows) == 1, rows
    return rows[0]


def drain(hub: PayHub) -> None:
    Worker(hub.deps, hub.job_handlers(), "test-worker").run_once()


def test_sending_an_invoice_texts_and_emails_the_pay_link(
    api: Shop, customer_id: str, hub: PayHub, sms: FakeSms, mailer: FakeMailer
) -> None:
    number = api.created(
        "/invoices",
        {
            "gateway": "simulator",
            "customerId": customer_id,
            "lineItems": [{"description": "Widget", "quantity": 2, "unitPrice": 12.5}],
        },
    )["invoiceNumber"]
    sent = api.ok(api.post(f"/invoices/{number}/send"))
    assert sent["emailQueued"] is True
    text = one(hub, TextKind.PAY_LINK, Channel.SMS)
    email = one(hub, TextKind.PAY_LINK, Channel.EMAIL)
    assert (text.status, text.to) == (MessageStatus.QUEUED, PHONE)
    assert sent["payUrl"] in text.body
    assert text.body.startswith(f"Acme Plumbing: invoice {number} for $25.00 is ready.")
    assert sent["payUrl"] in email.body
    drain(hub)
    assert [(s.to, s.body) for s in sms.sent] == [(PHONE, text.body)]
    assert [(m.to, m.subject) for m in mailer.sent] == [
        ("ada@example.com", f"Invoice {number} from Acme Plumbing")
    ]
    assert one(hub, TextKind.PAY_LINK, Channel.SMS).status is MessageStatus.SENT


def test_sending_an_invoice_with_the_kind_off_emails_but_refuses_the_text(
    api: Shop, customer_id: str, hub: PayHub, sms: FakeSms, mailer: FakeMailer
) -> None:
    scope = hub.provider(hub.as_provider(api.account.provider.id)).merchant("acme")
    scope.texting.switch([TextKind.PAY_LINK], False)
    number = api.created(
        "/invoices",
        {
            "gateway": "simulator",
            "customerId": customer_id,
            "lineItems": [{"description": "Widget", "quantity": 1, "unitPrice": 10}],
        },
    )["invoiceNumber"]
    api.ok(api.post(f"/invoices/{number}/send"))
    text = one(hub, TextKind.PAY_LINK, Channel.SMS)
    assert (text.status, text.reason) == (MessageStatus.REFUSED, "KindDisabled")
    drain(hub)
    assert sms.sent == []
    assert len(mailer.sent) == 1


def test_a_payment_on_the_pay_page_texts_and_emails_the_receipt(
    api: Shop, customer_id: str, client: Client, hub: PayHub, sms: FakeSms
) -> None:
    invoice = api.created(
        "/invoices",
        {
            "gateway": "simulator",
            "customerId": customer_id,
            "lineItems": [{"description": "Pipe repair", "quantity": 1, "unitPrice": 80}],
        },
    )
    api.ok(api.post(f"/invoices/{invoice['invoiceNumber']}/send"))
    token = token_of(invoice)
    config = open_page(client, token)
    paid = pay(client, token, config["attemptToken"])
    assert paid.status_code == 200, paid.text
    receipt = one(hub, TextKind.RECEIPT, Channel.SMS)
    assert receipt.status is MessageStatus.QUEUED
    assert receipt.to == PHONE
    assert "thank you for your payment of $80.00" in receipt.body
    assert "Paid in full." in receipt.body
    assert f"/pay/{token}/receipt" in receipt.body
    assert one(hub, TextKind.RECEIPT, Channel.EMAIL).to == "ada@example.com"
    drain(hub)
    assert [s.body for s in sms.sent if "thank you" in s.body] == [receipt.body]


def test_a_declined_scheduled_payment_texts_the_failed_payment_notice(
    api: Shop,
    customer_id: str,
    hub: PayHub,
    clock: FixedClock,
    sms: FakeSms,
) -> None:
    method = api.created(
        f"/customers/{customer_id}/payment-methods/simulator",
        {"paymentMethodToken": "sim_card_decline"},
    )["paymentMethodId"]
    api.created(
        "/scheduled-payments",
        {
            "customerId": customer_id,
            "paymentMethodId": method,
            "startAtUtc": at(clock, hours=1),
            "amount": 49.99,
            "currency": "USD",
            "cadence": "Monthly",
        },
    )
    assert outbox(hub) == []  # a first run within 24 h: no reminder
    clock.advance(timedelta(hours=1))  # 13:00 in New York
    drain(hub)  # the run is declined; the notice is queued in the run's transaction
    notice = one(hub, TextKind.FAILED_PAYMENT, Channel.SMS)
    assert notice.status is MessageStatus.QUEUED
    assert notice.body == (
        "Acme Plumbing: your scheduled payment of $49.99 did not go through."
        " We will try again on Mar 14, 2025."
    )
    drain(hub)
    assert one(hub, TextKind.FAILED_PAYMENT, Channel.SMS).status is MessageStatus.SENT
    assert [s.body for s in sms.sent] == [notice.body]


def test_a_reminder_before_a_scheduled_payment_is_texted(
    api: Shop,
    customer_id: str,
    hub: PayHub,
    clock: FixedClock,
    sms: FakeSms,
) -> None:
    method = api.created(
        f"/customers/{customer_id}/payment-methods/simulator",
        {"paymentMethodToken": "sim_card_ok"},
    )["paymentMethodId"]
    api.created(
        "/scheduled-payments",
        {
            "customerId": customer_id,
            "paymentMethodId": method,
            "startAtUtc": at(clock, days=2),
            "amount": 25,
            "currency": "USD",
        },
    )
    drain(hub)
    assert outbox(hub) == []  # the reminder is due 24 h before the run, not yet
    clock.advance(timedelta(days=1) - timedelta(minutes=1))
    drain(hub)
    assert outbox(hub) == []
    clock.advance(timedelta(minutes=1))  # noon in New York, a day before the run
    drain(hub)
    reminder = one(hub, TextKind.SCHEDULE_REMINDER, Channel.SMS)
    assert reminder.status is MessageStatus.QUEUED
    assert reminder.body == (
        "Acme Plumbing: reminder, your scheduled payment of $25.00 runs on Mar 16, 2025."
    )
    drain(hub)
    assert one(hub, TextKind.SCHEDULE_REMINDER, Channel.SMS).status is MessageStatus.SENT
    assert [s.body for s in sms.sent] == [reminder.body]
    assert outbox(hub, TextKind.FAILED_PAYMENT) == []
