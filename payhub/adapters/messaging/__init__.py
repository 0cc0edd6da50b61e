"""Senders for texts and emails, chosen from the environment.

Texts go through Twilio when ``PAYHUB_TWILIO_ACCOUNT_SID``, ``PAYHUB_TWILIO_AUTH_TOKEN`` and
``PAYHUB_TWILIO_FROM`` (or ``PAYHUB_TWILIO_MESSAGING_SERVICE_SID``) are set; emails through
SMTP when ``PAYHUB_SMTP_HOST`` and ``PAYHUB_SMTP_FROM`` are set (``PAYHUB_SMTP_PORT``,
default 587; ``PAYHUB_SMTP_USER``, ``PAYHUB_SMTP_PASSWORD``; ``PAYHUB_SMTP_SECURITY``
``starttls`` (default), ``ssl`` or ``none``). Otherwise the outbox adapter is used: it
delivers nowhere and marks the message sent in the outbox. Secrets are read from the
environment only, never stored by payhub, never logged or printed.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from payhub.adapters.messaging.outbox import OutboxMailer, OutboxSms
from payhub.adapters.messaging.smtp import SmtpMailer
from payhub.adapters.messaging.twilio import TwilioSms
from payhub.ports import Mailer, SmsSender


@attrs.frozen
class SenderSettings:
    """What is configured, safe to show: never a token or a password."""

    sms: str
    sms_from: str | None
    email: str
    email_from: str | None
    email_server: str | None
    inbound_verified: bool


def sms_from_env(env: Mapping[str, str]) -> SmsSender:
    sid = env.get("PAYHUB_TWILIO_ACCOUNT_SID", "").strip()
    token = env.get("PAYHUB_TWILIO_AUTH_TOKEN", "").strip()
    sender = env.get("PAYHUB_TWILIO_FROM", "").strip() or None
    service = env.get("PAYHUB_TWILIO_MESSAGING_SERVICE_SID", "").strip() or None
    if sid and token and (sender or service):
        return TwilioSms(sid, token, from_number=sender, messaging_service_sid=service)
    return OutboxSms(webhook_token=token or None)


def mailer_from_env(env: Mapping[str, str]) -> Mailer:
    host = env.get("PAYHUB_SMTP_HOST", "").strip()
    sender = env.get("PAYHUB_SMTP_FROM", "").strip()
    if not host or not sender:
        return OutboxMailer()
    return SmtpMailer(
        host,
        int(env.get("PAYHUB_SMTP_PORT", "587") or 587),
        sender,
        username=env.get("PAYHUB_SMTP_USER") or None,
        password=env.get("PAYHUB_SMTP_PASSWORD") or None,
        security=(env.get("PAYHUB_SMTP_SECURITY") or "starttls").strip().lower(),
    )


def settings_from_env(env: Mapping[str, str]) -> SenderSettings:
    sms = sms_from_env(env)
    mail = mailer_from_env(env)
    return SenderSettings(
        sms=sms.name,
        sms_from=(
            env.get("PAYHUB_TWILIO_FROM") or env.get("PAYHUB_TWILIO_MESSAGING_SERVICE_SID")
            if sms.name == "twilio"
            else None
        ),
        email=mail.name,
        email_from=env.get("PAYHUB_SMTP_FROM") if mail.name == "smtp" else None,
        email_server=(
            f"{env.get('PAYHUB_SMTP_HOST')}:{env.get('PAYHUB_SMTP_PORT') or 587}"
            if mail.name == "smtp"
            else None
        ),
        inbound_verified=bool(env.get("PAYHUB_TWILIO_AUTH_TOKEN", "").strip()),
    )


__all__ = [
    "OutboxMailer",
    "OutboxSms",
    "SenderSettings",
    "SmtpMailer",
    "TwilioSms",
    "mailer_from_env",
    "settings_from_env",
    "sms_from_env",
]
