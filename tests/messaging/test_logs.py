"""Messaging never logs a message body (it carries the pay link and its token), a phone
number in full, an address, or the SMS provider's secrets: not in payhub's own log lines
(queueing, delivery, failures, inbound keywords), not in the request log of the webhook."""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest
import structlog
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.adapters.messaging.signature import twilio_signature
from payhub.adapters.system import FixedClock
from payhub.domain.customers import Customer
from payhub.domain.messaging import SendFailed, TextKind
from payhub.hub import MerchantScope
from payhub.logging import configure_logging
from payhub.services.worker import Worker
from tests.messaging.conftest import AUTH_TOKEN, PHONE, FakeSms
from tests.messaging.test_outbox import NOON_NY, PAY_URL, send_invoice

PUBLIC_URL = "https://pay.example.com/webhooks/twilio/sms"


@pytest.fixture
def log() -> Iterator[io.StringIO]:
    saved = structlog.get_config()
    stream = io.StringIO()
    configure_logging("json", stream=stream)
    try:
        yield stream
    finally:
        structlog.reset_defaults()
        structlog.configure(**saved)


def lines(stream: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.getvalue().splitlines() if line.strip()]


def test_no_body_link_number_address_or_secret_is_logged(
    log: io.StringIO,
    client: TestClient[Litestar],
    hub: PayHub,
    shop: MerchantScope,
    new_customer: Callable[..., Customer],
    clock: FixedClock,
    sms: FakeSms,
) -> None:
    clock.set(NOON_NY)
    shop.texting.switch(list(TextKind), True, time_zone="America/New_York")
    customer = new_customer()
    worker = Worker(hub.deps, hub.job_handlers(), "w")
    send_invoice(hub, shop, customer.id)  # pay link: text and email
    sms.failures.append(SendFailed(f"Twilio 429 (error 20429): slow down for {PHONE}"))
    worker.run_once()  # the email goes, the text is retried
    clock.advance(timedelta(hours=1))
    worker.run_once()  # the text goes
    sms.failures.append(
        SendFailed(f"Twilio 400 (error 21211): The 'To' number {PHONE} is bad", permanent=True)
    )
    send_invoice(hub, shop, customer.id)
    worker.run_once()  # failed for good
    form = {"MessageSid": "SM" + "e" * 32, "From": PHONE, "To": "+15005550006", "Body": "HELP"}
    signature = twilio_signature(PUBLIC_URL, list(form.items()), AUTH_TOKEN)
    helped = client.post(
        "/webhooks/twilio/sms", data=form, headers={"X-Twilio-Signature": signature}
    )
    assert helped.status_code == 200
    assert "Acme Plumbing" in helped.text
    stop = {**form, "Body": "STOP"}
    stopped = client.post(
        "/webhooks/twilio/sms",
        data=stop,
        headers={
            "X-Twilio-Signature": twilio_signature(PUBLIC_URL, list(stop.items()), AUTH_TOKEN)
        },
    )
    assert stopped.status_code == 200
    forged = client.post(
        "/webhooks/twilio/sms?note=" + PHONE, data=form, headers={"X-Twilio-Signature": "forged"}
    )
    assert forged.status_code == 401
    send_invoice(hub, shop, customer.id)  # refused now: NoConsent
    worker.run_once()

    logged = lines(log)
    events = [line["event"] for line in logged]
    for expected in ("message sent", "message not sent", "sms keyword", "request"):
        assert expected in events, events
    assert any(line.get("path") == "/webhooks/twilio/sms" for line in logged)
    text = log.getvalue()
    bodies = [m.body for m in sms.sent]
    assert bodies
    for secret in [
        PHONE,
        PHONE.replace("+", "%2B"),
        PHONE[1:],
        "ada@example.com",
        PAY_URL,
        PAY_URL.rsplit("/", 1)[-1],
        AUTH_TOKEN,
        signature,
        *bodies,
    ]:
        assert secret not in text, secret
