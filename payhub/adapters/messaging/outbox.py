"""The embedded default sender for texts and emails: it delivers nowhere.

A message handed to it is marked Sent in the outbox with provider ``outbox`` and stays
readable there (``payhub outbox list``, the messages API): the whole pipeline (gate, quiet
hours, worker, retries) runs for real without an SMS or mail account. Inbound webhooks are
verified the Twilio way when a token is configured (``PAYHUB_TWILIO_AUTH_TOKEN``), so STOP
handling can be tried without sending anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from payhub.adapters.messaging.signature import valid_twilio_signature
from payhub.domain.messaging import OutgoingEmail, OutgoingSms


class OutboxSms:
    name = "outbox"

    def __init__(self, webhook_token: str | None = None) -> None:
        self._token = webhook_token

    def send(self, sms: OutgoingSms) -> str:
        return f"outbox-{sms.message_id}"

    def find_sent(self, sms: OutgoingSms, since: datetime) -> list[str]:
        return []  # nothing left payhub, so a resend is the safe answer

    def verify_inbound(
        self, url: str, params: Sequence[tuple[str, str]], signature: str | None
    ) -> bool:
        return valid_twilio_signature(url, params, signature, self._token)


class OutboxMailer:
    name = "outbox"

    def send(self, email: OutgoingEmail) -> str:
        return f"<{email.message_id}@outbox.payhub>"
