"""End to end: the portal's CLI switches texting on, sending an invoice over HTTP queues the
pay-link email and text in the same transaction, and ``payhub worker --once`` delivers them
through the embedded outbox adapter; ``payhub outbox list`` shows what happened."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from payhub import PayHub
from payhub.adapters.system import FixedClock
from payhub.domain.messaging import Channel, Message, MessageStatus
from payhub_cli.main import cli
from tests.conftest import Account
from tests.customers.support import Client, Shop


@pytest.fixture
def hub(store_url: str, key_file: Path, clock: FixedClock) -> Iterator[PayHub]:
    """The default senders: nothing configured, so the outbox adapter for both."""
    hub = PayHub.open(store_url, key_file=key_file, clock=clock)
    yield hub
    hub.close()


def midday_zone() -> str:
    """A fixed-offset zone where it is about noon right now, so the real-clock worker below
    is never inside quiet hours, whenever the test runs."""
    offset = 12 - datetime.now(UTC).hour  # -11 ... +12
    return f"Etc/GMT{-offset:+d}" if offset else "UTC"


def run(store_url: str, *args: str) -> Result:
    return CliRunner().invoke(cli, [*args, "--db", store_url])


def stored(hub: PayHub) -> list[Message]:
    with hub.store.unit_of_work(readonly=True) as uow:
        return uow.messages.list(None)


def switch_pay_link_on(store_url: str) -> str:
    """Refused without a time zone or with a bad one; on with a valid one. Returns it."""
    refused = run(store_url, "texting", "enable", "--merchant", "acme", "PayLink")
    assert refused.exit_code == 2
    assert "time zone" in refused.output
    bad_zone = run(
        store_url, "texting", "enable", "--merchant", "acme", "--time-zone", "Mars/Base", "all"
    )
    assert bad_zone.exit_code == 2
    assert "IANA" in bad_zone.output
    zone = midday_zone()
    on = run(store_url, "texting", "enable", "--merchant", "acme", "--time-zone", zone, "pay-link")
    assert on.exit_code == 0, on.output
    assert f"time zone {zone}" in on.output
    assert re.search(r"PayLink\s+on", on.output)
    return zone


def test_invoice_send_queues_and_the_worker_delivers_through_the_outbox(
    client: Client,
    hub: PayHub,
    sandbox_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
    store_url: str,
    key_file: Path,
    clock: FixedClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PAYHUB_KEY_FILE", str(key_file))
    make_merchant(sandbox_provider, "acme", "Acme Plumbing")
    shop = Shop(client, hub, sandbox_provider, "acme")
    shop.ok(shop.put("/credentials/simulator", {"apiSecret": "s", "environment": "Sandbox"}))
    customer = shop.created(
        "/customers",
        {
            "name": {"first": "Ada"},
            "email": "ada@example.com",
            "phone": "+1 415 555 2671",
            "smsConsent": True,
        },
    )

    zone = switch_pay_link_on(store_url)
    with hub.store.unit_of_work(readonly=True) as uow:
        merchant = uow.merchants.get_by_reference(sandbox_provider.provider.id, "acme")
        assert merchant is not None
        assert merchant.time_zone == zone

    # the hub's clock too reads midday in that zone
    clock.set(datetime.now(UTC).replace(microsecond=0))
    number = shop.created(
        "/invoices",
        {
            "gateway": "simulator",
            "customerId": customer["customerId"],
            "lineItems": [{"description": "Widget", "quantity": 2, "unitPrice": 12.5}],
        },
    )["invoiceNumber"]
    sent = shop.ok(shop.post(f"/invoices/{number}/send"))
    assert sent["emailQueued"] is True
    queued = {m.channel: m for m in stored(hub)}
    assert {c: m.status for c, m in queued.items()} == {
        Channel.EMAIL: MessageStatus.QUEUED,
        Channel.SMS: MessageStatus.QUEUED,
    }
    assert sent["payUrl"] in queued[Channel.SMS].body
    assert sent["payUrl"] in queued[Channel.EMAIL].body

    work = run(store_url, "worker", "--once")
    assert work.exit_code == 0, work.output
    assert "outbox" in work.output
    assert "2 done" in work.output
    delivered = {m.channel: m for m in stored(hub)}
    for channel in (Channel.EMAIL, Channel.SMS):
        message = delivered[channel]
        assert message.status is MessageStatus.SENT
        assert message.provider == "outbox"
        assert message.provider_message_id
    assert delivered[Channel.SMS].provider_message_id == f"outbox-{delivered[Channel.SMS].id}"

    listing = run(store_url, "outbox", "list", "--merchant", "acme")
    assert listing.exit_code == 0, listing.output
    assert "+1••••••2671" in listing.output
    assert "a•••@example.com" in listing.output
    assert listing.output.count("Sent") == 2
    assert "+14155552671" not in listing.output
    only_sent = run(store_url, "outbox", "list", "--status", "sent", "--json")
    assert only_sent.exit_code == 0, only_sent.output
    assert only_sent.output.count('"status": "Sent"') == 2

    off = run(store_url, "texting", "disable", "--merchant", "acme", "PayLink")
    assert off.exit_code == 0, off.output
    shown = run(store_url, "texting", "show", "--merchant", "acme")
    assert re.search(r"PayLink\s+off", shown.output)
    with hub.store.unit_of_work(readonly=True) as uow:
        assert uow.messages.enabled_kinds(merchant.id) == frozenset()


def test_unknown_kind_and_status_are_refused(
    client: Client,
    hub: PayHub,
    sandbox_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
    store_url: str,
    key_file: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PAYHUB_KEY_FILE", str(key_file))
    make_merchant(sandbox_provider, "acme", "Acme Plumbing")
    kind = run(store_url, "texting", "enable", "--merchant", "acme", "--time-zone", "UTC", "Fax")
    assert kind.exit_code == 2
    assert "is not a text kind" in kind.output
    status = run(store_url, "outbox", "list", "--status", "Lost")
    assert status.exit_code == 2
    assert "is not one of" in status.output
