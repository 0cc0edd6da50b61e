"""Invitations go out through the mailer port (SMTP when configured), link inside."""

from __future__ import annotations

from pathlib import Path

import pytest

from payhub import PayHub
from payhub.adapters.system import FixedClock
from payhub.domain.messaging import OutgoingEmail, SendFailed
from tests.conftest import START


class RecordingMailer:
    name = "smtp"

    def __init__(self, fail: bool = False) -> None:
        self.sent: list[OutgoingEmail] = []
        self.fail = fail

    def send(self, email: OutgoingEmail) -> str:
        if self.fail:
            raise SendFailed("connection refused")
        self.sent.append(email)
        return f"<{email.message_id}@test>"


@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)
def test_an_invitation_is_emailed_with_its_link(store_url: str, tmp_path: Path) -> None:
    mailer = RecordingMailer()
    hub = PayHub.open(store_url, key_file=tmp_path / "k", clock=FixedClock(START), mailer=mailer)
    try:
        pid = hub.operators.create_provider("P")[0].id
        hub.provider(hub.as_provider(pid)).merchants.create("acme-42", "Acme Plumbing")
        user = hub.portal.create_user(
            "ann@example.com", "Ann", "owner", merchant_reference="acme-42"
        )
        link = hub.portal.invite(user.id)
        assert link.emailed
        [email] = mailer.sent
        assert email.to == "ann@example.com"
        assert link.url in email.body
        assert "Acme Plumbing" in email.body
        mailer.fail = True
        again = hub.portal.invite(user.id)  # the link still works; the caller is told
        assert not again.emailed
        assert hub.portal.invitation(again.url.rsplit("/", 1)[-1]).email == "ann@example.com"
    finally:
        hub.close()
