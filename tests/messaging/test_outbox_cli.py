"""``payhub outbox list``: sent, held, refused and failed messages as a readable table, each
with why; numbers and addresses masked, also inside a provider's error text."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from payhub import PayHub
from payhub.adapters.system import FixedClock
from payhub.domain.customers import Customer
from payhub.domain.messaging import SendFailed, TextKind, mask_contacts
from payhub.hub import MerchantScope
from payhub.services.worker import Worker
from payhub_cli.main import cli
from tests.messaging.conftest import FakeSms
from tests.messaging.test_outbox import NOON_NY, NY, send_invoice


def test_outbox_list_shows_sent_held_refused_and_failed_with_the_reason(
    hub: PayHub,
    shop: MerchantScope,
    new_customer: Callable[..., Customer],
    clock: FixedClock,
    sms: FakeSms,
    store_url: str,
    key_file: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PAYHUB_KEY_FILE", str(key_file))
    clock.set(NOON_NY)
    shop.texting.switch([TextKind.PAY_LINK], True, time_zone="America/New_York")
    sent = new_customer(email=None)
    send_invoice(hub, shop, sent.id)
    Worker(hub.deps, hub.job_handlers(), "w").run_once()  # Sent
    refused = new_customer(phone="+14155550123", email=None, consent=False)
    send_invoice(hub, shop, refused.id)  # Refused: NoConsent
    failing = new_customer(phone="+12125550199", email=None)
    send_invoice(hub, shop, failing.id)
    sms.failures.append(
        SendFailed(
            "Twilio 400 (error 21211): The 'To' number +12125550199 is not a valid phone number.",
            permanent=True,
            code="21211",
        )
    )
    Worker(hub.deps, hub.job_handlers(), "w").run_once()  # Failed: ProviderRefused
    clock.set(datetime(2025, 3, 14, 22, 15, tzinfo=NY))
    held = new_customer(phone="+13125550142", email=None)
    send_invoice(hub, shop, held.id)  # Held: QuietHours until 08:00

    listing = CliRunner().invoke(cli, ["outbox", "list", "--db", store_url])
    assert listing.exit_code == 0, listing.output
    lines = listing.output.splitlines()
    assert re.split(r"\s{2,}", lines[0].strip()) == [
        "WHEN", "CHANNEL", "KIND", "TO", "STATUS", "REASON"
    ]  # fmt: skip
    assert set(lines[1].strip()) <= {"-", " "}  # the rule under the headers
    rows = [re.split(r"\s{2,}", line.strip()) for line in lines[2:]]
    assert len(rows) == 4
    by_status = {row[4].split(" ")[0]: row for row in rows}
    assert by_status["Held"][4] == "Held until 2025-03-15 12:00 UTC"  # 08:00 in New York
    assert by_status["Held"][5] == "QuietHours"
    assert by_status["Held"][3] == "+1••••••0142"
    assert by_status["Refused"][5] == "NoConsent"
    assert by_status["Sent"][5] == "-"
    assert by_status["Failed"][5] == (
        "ProviderRefused: Twilio 400 (error 21211): The 'To' number +1••••••0199"
        " is not a valid phone number."
    )
    assert rows[0][0] == "2025-03-15 02:15 UTC"  # newest first
    assert all(row[2] == "PayLink" and row[1] == "Sms" for row in rows)
    for number in ("+14155552671", "+14155550123", "+12125550199", "+13125550142"):
        assert number not in listing.output

    only = CliRunner().invoke(
        cli, ["outbox", "list", "--status", "held,refused", "--json", "--db", store_url]
    )
    assert only.exit_code == 0, only.output
    assert only.output.count('"status": "Held"') == 1
    assert only.output.count('"status": "Refused"') == 1
    assert '"reason": "NoConsent"' in only.output
    assert "Sent" not in only.output


def test_numbers_and_addresses_in_error_text_are_masked() -> None:
    assert mask_contacts("The 'To' number +12125550199 is not valid") == (
        "The 'To' number +1••••••0199 is not valid"
    )
    assert mask_contacts("550 5.1.1 <ada.l@example.com>: Recipient address rejected") == (
        "550 5.1.1 <a•••@example.com>: Recipient address rejected"
    )
    assert mask_contacts("Twilio 429 (error 20429): Too Many Requests") == (
        "Twilio 429 (error 20429): Too Many Requests"
    )
