"""Delivery reports: payhub asks Twilio for them (``StatusCallback``) and records them from
``POST /webhooks/twilio/status`` (signed), so a text the carrier failed after Twilio took it
does not stay ``Sent``. Over HTTP on both stores; each test checks the database afterwards.

Twilio's reference: the Messages resource's ``StatusCallback`` parameter, and the status
callback request (``MessageSid``, ``MessageStatus``, ``ErrorCode``, ``AccountSid``, ``From``,
``To``, ``ApiVersion``), https://www.twilio.com/docs/messaging/guides/track-outbound-message-status
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import pytest
import structlog
from click.testing import CliRunner
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.adapters.messaging import TwilioSms, settings_from_env, sms_from_env
from payhub.adapters.messaging.signature import twilio_signature
from payhub.adapters.system import FixedClock
from payhub.domain.customers import Customer, CustomerName
from payhub.domain.environments import Environment
from payhub.domain.messaging import Channel, Message, MessageStatus, TextKind
from payhub.hub import MerchantScope
from payhub.logging import configure_logging
from payhub.services.customers import CustomerInput
from payhub.services.worker import Worker
from payhub_cli.main import cli
from tests.conftest import Account
from tests.messaging.conftest import AUTH_TOKEN, PHONE, FakeSms
from tests.messaging.test_outbox import NOON_NY, PAY_URL, send_invoice
from tests.messaging.test_twilio import FROM, FakeTwilio, adapter
from tests.messaging.test_twilio import sms as outgoing

Client = TestClient[Litestar]
PATH = "/webhooks/twilio/status"
STATUS_URL = "https://pay.example.com" + PATH
FIRST_SID = f"SM{0:032d}"  # what FakeSms answers for the first text it takes


def report(
    client: Client,
    status: str,
    *,
    sid: str = FIRST_SID,
    error_code: str | None = None,
    sign_with: str | None = AUTH_TOKEN,
    url: str = STATUS_URL,
) -> Any:
    """Post a delivery report as Twilio does: form-encoded, signed over the public URL."""
    form = {
        "MessageSid": sid,
        "SmsSid": sid,
        "MessageStatus": status,
        "SmsStatus": status,
        "AccountSid": "AC" + "0" * 32,
        "From": "+15005550006",
        "To": PHONE,
        "ApiVersion": "2010-04-01",
    }
    if error_code is not None:
        form["ErrorCode"] = error_code
    client.app.state.hub.deps.clock.advance(timedelta(seconds=1))
    headers = {}
    if sign_with is not None:
        headers["X-Twilio-Signature"] = twilio_signature(url, list(form.items()), sign_with)
    return client.post(PATH, data=form, headers=headers)


@pytest.fixture
def api_shop(
    client: Client, hub: PayHub, new_provider: Callable[..., Account]
) -> tuple[Account, MerchantScope]:
    account = new_provider("Texting provider")
    scope = hub.provider(hub.as_provider(account.provider.id))
    scope.merchants.create("acme", "Acme Plumbing")
    shop = scope.merchant("acme")
    hub.deps.clock.set(NOON_NY)  # type: ignore[attr-defined]
    shop.texting.switch(list(TextKind), True, time_zone="America/New_York")
    return account, shop


@pytest.fixture
def customer(api_shop: tuple[Account, MerchantScope]) -> Customer:
    return api_shop[1].customers.create(
        CustomerInput(name=CustomerName("Ada", None), phone=PHONE, sms_consent=True)
    )


@pytest.fixture
def sent(hub: PayHub, api_shop: tuple[Account, MerchantScope], customer: Customer) -> Message:
    """A pay-link text Twilio (the fake) took: ``Sent`` with provider id ``FIRST_SID``."""
    send_invoice(hub, api_shop[1], customer.id)
    Worker(hub.deps, hub.job_handlers(), "w").run_once()
    text = the_text(hub)
    assert (text.status, text.provider_message_id) == (MessageStatus.SENT, FIRST_SID)
    return text


def the_text(hub: PayHub) -> Message:
    with hub.store.unit_of_work(readonly=True) as uow:
        (text,) = [m for m in uow.messages.list(None) if m.channel is Channel.SMS]
    return text


def blocked(hub: PayHub, phone: str = PHONE) -> bool:
    with hub.store.unit_of_work(readonly=True) as uow:
        return uow.messages.is_blocked(phone)


# --- the webhook ------------------------------------------------------------------------------


def test_delivered_is_recorded_and_listed(
    client: Client, hub: PayHub, api_shop: tuple[Account, MerchantScope], sent: Message
) -> None:
    account, _ = api_shop
    response = report(client, "delivered")
    assert response.status_code == 204
    assert response.content == b""
    text = the_text(hub)
    assert (text.status, text.reason, text.last_error, text.provider_error_code) == (
        MessageStatus.DELIVERED,
        None,
        None,
        None,
    )
    assert text.delivery_reported_at == hub.deps.clock.now()
    assert text.sent_at == sent.sent_at
    listed = client.get(
        "/api/merchant-accounts/acme/messages",
        params={"status": "delivered"},
        headers=account.headers,
    ).json()["data"]
    assert [(m["messageId"], m["status"]) for m in listed] == [(text.id, "Delivered")]
    assert listed[0]["deliveryReportedAtUtc"] is not None


def test_undelivered_30003_is_shown_to_the_merchant_with_reason_and_code(
    client: Client,
    hub: PayHub,
    api_shop: tuple[Account, MerchantScope],
    customer: Customer,
    sent: Message,
) -> None:
    account, _ = api_shop
    assert report(client, "sent").status_code == 204  # progress: nothing new
    assert the_text(hub).status is MessageStatus.SENT
    assert report(client, "undelivered", error_code="30003").status_code == 204
    text = the_text(hub)
    assert (text.status, text.reason, text.provider_error_code) == (
        MessageStatus.UNDELIVERED,
        "UnreachableNumber",
        "30003",
    )
    assert text.last_error == "Twilio undelivered (error 30003): Unreachable destination handset"
    base = f"/api/merchant-accounts/acme/customers/{customer.id}/messages"
    (shown,) = client.get(base, params={"status": "Undelivered"}, headers=account.headers).json()[
        "data"
    ]
    assert (shown["status"], shown["reason"], shown["providerErrorCode"], shown["lastError"]) == (
        "Undelivered",
        "UnreachableNumber",
        "30003",
        text.last_error,
    )
    assert client.get(base, params={"status": "Sent"}, headers=account.headers).json()["data"] == []
    assert not blocked(hub)  # an unreachable handset is not an opt-out


@pytest.mark.parametrize(
    ("status", "code", "reason"),
    [
        ("undelivered", "30005", "UnreachableNumber"),
        ("undelivered", "30006", "UnreachableNumber"),
        ("undelivered", "30007", "CarrierFiltered"),
        ("failed", "30008", "DeliveryFailed"),
        ("failed", None, "DeliveryFailed"),
    ],
)
@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)
def test_each_carrier_failure_has_its_reason(
    client: Client, hub: PayHub, sent: Message, status: str, code: str | None, reason: str
) -> None:
    assert report(client, status, error_code=code).status_code == 204
    text = the_text(hub)
    assert (text.status, text.reason, text.provider_error_code) == (
        MessageStatus.UNDELIVERED,
        reason,
        code,
    )
    assert text.last_error is not None
    assert text.last_error.startswith(f"Twilio {status}")


@pytest.mark.parametrize("code", ["21610", "30004"])
def test_unsubscribed_or_blocked_blocks_the_number_and_withdraws_consent(
    client: Client,
    hub: PayHub,
    api_shop: tuple[Account, MerchantScope],
    customer: Customer,
    sent: Message,
    sms: FakeSms,
    code: str,
) -> None:
    _, shop = api_shop
    assert report(client, "undelivered", error_code=code).status_code == 204
    text = the_text(hub)
    assert (text.status, text.reason) == (MessageStatus.UNDELIVERED, "NumberBlocked")
    assert blocked(hub)
    assert shop.customers.consent(customer.id).consent is False
    latest = shop.customers.consent_history(customer.id).items[0]
    assert latest.reason == f"provider-opt-out reply: consent withdrawn, number blocked ({code})"
    # the next text to that number is refused, not sent
    send_invoice(hub, shop, customer.id)
    Worker(hub.deps, hub.job_handlers(), "w").run_once()
    assert len(sms.sent) == 1


@pytest.mark.parametrize(
    ("sequence", "final"),
    [
        (["delivered", "sent"], MessageStatus.DELIVERED),
        (["delivered", "queued", "sending"], MessageStatus.DELIVERED),
        (["delivered", "undelivered"], MessageStatus.DELIVERED),
        (["undelivered", "delivered"], MessageStatus.UNDELIVERED),
        (["undelivered", "sent"], MessageStatus.UNDELIVERED),
        (["queued", "sent", "delivered"], MessageStatus.DELIVERED),
    ],
    ids=lambda v: "-".join(v) if isinstance(v, list) else str(v),
)
def test_reports_out_of_order_never_move_a_message_backwards(
    client: Client, hub: PayHub, sent: Message, sequence: list[str], final: MessageStatus
) -> None:
    for status in sequence:
        code = "30003" if status == "undelivered" else None
        assert report(client, status, error_code=code).status_code == 204
        if status in ("delivered", "undelivered"):
            settled = the_text(hub)
    text = the_text(hub)
    assert text.status is final
    # later reports change nothing at all, not even the time of the report
    assert (text.reason, text.last_error, text.delivery_reported_at) == (
        settled.reason,
        settled.last_error,
        settled.delivery_reported_at,
    )


def test_a_final_text_is_not_sent_again_by_a_stale_job(
    client: Client, hub: PayHub, sent: Message, sms: FakeSms
) -> None:
    report(client, "delivered")
    Worker(hub.deps, hub.job_handlers(), "w").run_once()
    assert len(sms.sent) == 1
    assert the_text(hub).status is MessageStatus.DELIVERED


def test_unknown_message_sid_is_acknowledged_and_ignored(
    client: Client, hub: PayHub, sent: Message
) -> None:
    response = report(client, "undelivered", sid="SM" + "9" * 32, error_code="30003")
    assert response.status_code == 204
    text = the_text(hub)
    assert (text.status, text.delivery_reported_at) == (MessageStatus.SENT, None)
    assert not blocked(hub)
    # a report without any sid is acknowledged too
    form = {"MessageStatus": "delivered"}
    signature = twilio_signature(STATUS_URL, list(form.items()), AUTH_TOKEN)
    bare = client.post(PATH, data=form, headers={"X-Twilio-Signature": signature})
    assert bare.status_code == 204
    assert the_text(hub).status is MessageStatus.SENT


@pytest.mark.parametrize("case", ["missing", "wrong token", "other url", "tampered"])
def test_unsigned_or_badly_signed_reports_are_401_and_change_nothing(
    client: Client, hub: PayHub, sent: Message, case: str
) -> None:
    if case == "missing":
        response = report(client, "undelivered", error_code="21610", sign_with=None)
    elif case == "wrong token":
        response = report(client, "undelivered", error_code="21610", sign_with="nope")
    elif case == "other url":
        url = "http://testserver" + PATH
        response = report(client, "undelivered", error_code="21610", url=url)
    else:  # signed as delivered, posted as undelivered 21610
        form = {"MessageSid": FIRST_SID, "MessageStatus": "delivered"}
        signature = twilio_signature(STATUS_URL, list(form.items()), AUTH_TOKEN)
        response = client.post(
            PATH,
            data={**form, "MessageStatus": "undelivered", "ErrorCode": "21610"},
            headers={"X-Twilio-Signature": signature},
        )
    assert response.status_code == 401
    assert response.headers["content-type"].startswith("application/problem+json")
    assert response.json()["type"] == "/problems/unauthenticated"
    text = the_text(hub)
    assert (text.status, text.delivery_reported_at) == (MessageStatus.SENT, None)
    assert not blocked(hub)


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


def test_reports_log_ids_and_codes_never_numbers_or_bodies(
    log: io.StringIO, client: Client, hub: PayHub, sent: Message, sms: FakeSms
) -> None:
    report(client, "sent")
    report(client, "undelivered", error_code="30007")
    report(client, "delivered")  # after the final one: ignored
    report(client, "delivered", sid="SM" + "9" * 32)  # unknown
    assert report(client, "delivered", sign_with="forged").status_code == 401
    logged = [json.loads(line) for line in log.getvalue().splitlines() if line.strip()]
    events = [line["event"] for line in logged]
    for expected in (
        "delivery report",
        "delivery report ignored",
        "delivery report for an unknown message",
    ):
        assert expected in events, events
    (recorded,) = [line for line in logged if line["event"] == "delivery report"]
    assert (recorded["message_id"], recorded["error_code"]) == (sent.id, "30007")
    assert any(line.get("path") == PATH for line in logged)
    text = log.getvalue()
    for secret in [PHONE, PHONE.replace("+", "%2B"), PHONE[1:], PAY_URL, sms.sent[0].body]:
        assert secret not in text, secret


# --- the merchant's and the operator's view -----------------------------------------------------


def test_outbox_list_shows_undelivered_with_the_masked_reason(
    client: Client,
    hub: PayHub,
    sent: Message,
    store_url: str,
    key_file: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PAYHUB_KEY_FILE", str(key_file))
    report(client, "undelivered", error_code="30006")
    listing = CliRunner().invoke(cli, ["outbox", "list", "--db", store_url])
    assert listing.exit_code == 0, listing.output
    row = re.split(r"\s{2,}", listing.output.splitlines()[2].strip())
    assert row[1:] == [
        "Sms",
        "PayLink",
        "+1••••••2671",
        "Undelivered",
        "UnreachableNumber: Twilio undelivered (error 30006): Landline or unreachable carrier",
    ]
    assert PHONE not in listing.output
    filtered = CliRunner().invoke(
        cli, ["outbox", "list", "--db", store_url, "--status", "undelivered", "--json"]
    )
    assert filtered.exit_code == 0, filtered.output
    (record,) = json.loads(filtered.output)["data"]
    assert (record["status"], record["providerErrorCode"], record["to"]) == (
        "Undelivered",
        "30006",
        "+1••••••2671",
    )


# --- asking for reports: the adapter and its wiring ----------------------------------------------


def test_the_adapter_sends_status_callback_when_configured() -> None:
    fake = FakeTwilio()
    adapter(fake, status_callback=STATUS_URL).send(outgoing())
    adapter(fake).send(outgoing())
    with_callback, without = (dict(parse_qsl(r.content.decode())) for r in fake.requests)
    assert with_callback == {
        "To": "+14155552671",
        "From": FROM,
        "Body": "Acme: invoice INV-1 is ready",
        "StatusCallback": STATUS_URL,
    }
    assert "StatusCallback" not in without


def test_a_text_sent_through_twilio_is_found_by_its_sid(
    store_url: str, key_file: Path, clock: FixedClock
) -> None:
    """End to end with the real adapter (against the fake Twilio): the sid Twilio answered
    is what its delivery report names."""
    fake = FakeTwilio()
    twilio = adapter(fake, status_callback=STATUS_URL)
    hub = PayHub.open(
        store_url, key_file=key_file, clock=clock, sms=twilio, public_url="https://pay.example.com"
    )
    try:
        provider, _ = hub.operators.create_provider("P", Environment.SANDBOX)
        scope = hub.provider(hub.as_provider(provider.id))
        scope.merchants.create("acme", "Acme Plumbing")
        shop = scope.merchant("acme")
        clock.set(NOON_NY)
        shop.texting.switch([TextKind.PAY_LINK], True, time_zone="America/New_York")
        ada = shop.customers.create(
            CustomerInput(name=CustomerName("Ada", None), phone=PHONE, sms_consent=True)
        )
        send_invoice(hub, shop, ada.id)
        Worker(hub.deps, hub.job_handlers(), "w").run_once()
        (taken,) = fake.messages
        assert dict(parse_qsl(fake.requests[0].content.decode()))["StatusCallback"] == STATUS_URL
        form = [("MessageSid", taken["sid"]), ("MessageStatus", "delivered")]
        signature = twilio_signature(STATUS_URL, form, "twilio-auth-token")
        outcome = hub.inbound.report_status(STATUS_URL, form, signature)
        assert outcome is MessageStatus.DELIVERED
        assert the_text(hub).status is MessageStatus.DELIVERED
    finally:
        hub.close()


TWILIO_ENV = {
    "PAYHUB_TWILIO_ACCOUNT_SID": "AC" + "1" * 32,
    "PAYHUB_TWILIO_AUTH_TOKEN": "secret",
    "PAYHUB_TWILIO_FROM": "+15005550006",
}


def test_the_hub_asks_for_reports_only_with_a_public_url(
    store_url: str, key_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in TWILIO_ENV.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("PAYHUB_PUBLIC_URL", raising=False)
    bare = PayHub.open(store_url, key_file=key_file)
    try:
        assert isinstance(bare.sms, TwilioSms)
        assert bare.sms.status_callback is None
    finally:
        bare.close()
    monkeypatch.setenv("PAYHUB_PUBLIC_URL", "https://pay.example.com/")
    public = PayHub.open(store_url, key_file=key_file)
    try:
        assert isinstance(public.sms, TwilioSms)
        assert public.sms.status_callback == STATUS_URL
    finally:
        public.close()
    assert (
        settings_from_env(
            {**TWILIO_ENV, "PAYHUB_PUBLIC_URL": "https://pay.example.com"}
        ).status_callback
        == STATUS_URL
    )
    assert settings_from_env(TWILIO_ENV).status_callback is None
    outbox = sms_from_env({}, STATUS_URL)
    assert outbox.name == "outbox"
