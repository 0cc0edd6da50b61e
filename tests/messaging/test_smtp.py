"""The SMTP adapter against a real local SMTP server (aiosmtpd on 127.0.0.1)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from email import message_from_bytes
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session

from payhub.adapters.messaging import SmtpMailer
from payhub.domain.messaging import OutgoingEmail, SendFailed


class Recorder:
    """Keeps every accepted message; refuses recipients at ``refused.test`` (550) and
    ``busy.test`` (451)."""

    def __init__(self) -> None:
        self.envelopes: list[Envelope] = []

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: Any
    ) -> str:
        if address.endswith("@refused.test"):
            return "550 5.1.1 no such user"
        if address.endswith("@busy.test"):
            return "451 4.3.0 try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        self.envelopes.append(envelope)
        return "250 Message accepted for delivery"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def server() -> Iterator[tuple[Recorder, int]]:
    recorder = Recorder()
    port = free_port()
    controller = Controller(recorder, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield recorder, port
    finally:
        controller.stop()


def mail(to: str = "ada@example.com") -> OutgoingEmail:
    return OutgoingEmail("msg_abc", to, "Invoice INV-7 from Acme", "Pay it online: https://x/p")


def test_sends_through_a_real_smtp_server(server: tuple[Recorder, int]) -> None:
    recorder, port = server
    mailer = SmtpMailer("127.0.0.1", port, "Acme Billing <billing@acme.test>", security="none")
    message_id = mailer.send(mail())
    assert message_id == "<msg_abc@payhub>"
    (envelope,) = recorder.envelopes
    assert envelope.mail_from == "billing@acme.test"
    assert envelope.rcpt_tos == ["ada@example.com"]
    assert isinstance(envelope.content, bytes)
    parsed = message_from_bytes(envelope.content)
    assert parsed["Subject"] == "Invoice INV-7 from Acme"
    assert parsed["Message-ID"] == "<msg_abc@payhub>"
    assert parsed["To"] == "ada@example.com"
    assert "Pay it online: https://x/p" in parsed.get_payload()


def test_the_same_message_keeps_its_message_id(server: tuple[Recorder, int]) -> None:
    recorder, port = server
    mailer = SmtpMailer("127.0.0.1", port, "billing@acme.test", security="none")
    assert mailer.send(mail()) == mailer.send(mail())
    ids = [message_from_bytes(e.content)["Message-ID"] for e in recorder.envelopes]  # type: ignore[arg-type]
    assert ids == ["<msg_abc@payhub>", "<msg_abc@payhub>"]


def test_refused_recipient_is_permanent_and_busy_is_retried(
    server: tuple[Recorder, int],
) -> None:
    _, port = server
    mailer = SmtpMailer("127.0.0.1", port, "billing@acme.test", security="none")
    with pytest.raises(SendFailed) as refused:
        mailer.send(mail("nobody@refused.test"))
    assert refused.value.permanent
    with pytest.raises(SendFailed) as busy:
        mailer.send(mail("someone@busy.test"))
    assert not busy.value.permanent


def test_unreachable_server_is_retried() -> None:
    mailer = SmtpMailer("127.0.0.1", free_port(), "billing@acme.test", security="none", timeout=2)
    with pytest.raises(SendFailed) as caught:
        mailer.send(mail())
    assert not caught.value.permanent
    assert "unreachable" in caught.value.detail


def test_password_is_not_in_repr() -> None:
    mailer = SmtpMailer("h", 25, "a@b.c", username="u", password="hunter2", security="none")
    assert "hunter2" not in repr(mailer)
