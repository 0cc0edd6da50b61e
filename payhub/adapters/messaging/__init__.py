"""Senders for texts and emails, chosen from the environment.

Texts go through Twilio when ``PAYHUB_TWILIO_ACCOUNT_SID``, ``PAYHUB_TWILIO_AUTH_TOKEN`` and
``PAYHUB_TWILIO_FROM`` (or ``PAYHUB_TWILIO_MESSAGING_SERVICE_SID``) are set; emails through
SMTP when ``PAYHUB_SMTP_HOST`` and ``PAYHUB_SMTP_FROM`` are set (``PAYHUB_SMTP_PORT``,
default 587; ``PAYHUB_SMTP_USER``, ``PAYHUB_SMTP_PASSWORD``; ``PAYHUB_SMTP_SECURITY``
``starttls`` (default), ``ssl`` or ``none``). Otherwise the outbox adapter is used: it
delivers nowhere and marks the message sent in the outbox. Secrets are read from the
environment only, never stored by payhub, never logged or printed. With a public URL
(``PAYHUB_PUBLIC_URL``) each Twilio text asks for delivery reports at
``STATUS_CALLBACK_PATH`` on it.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from payhub.adapters.messaging.outbox import OutboxMailer, OutboxSms
from payhub.adapters.messaging.smtp import SmtpMailer
from payhub.adapters.messaging.twilio import TwilioSms
from payhub.ports import Mailer, SmsSender

STATUS_CALLBACK_PATH = "/webhooks/twilio/status"


def status_callback_url(public_url: str | None) -> str | None:
    """Where Twilio posts delivery reports: on the configured public URL, else nowhere
    (without one Twilio could not reach payhub and would log a callback error per text)."""
    base = (public_url or "").strip().rstrip("/")
    return base + STATUS_CALLBACK_PATH if base else None


@attrs.frozen
class SenderSettings:
    """What is configured, safe to show: never a token or a password."""

    sms: str
    sms_from: str | None
    email: str
    email_from: str | None
    email_server: str | None
    inbound_verified: bool
    status_callback: str | None = None


def sms_from_env(env: Mapping[str, str], status_callback: str | None = None) -> SmsSender:
    """Twilio when configured (asking for delivery reports at ``status_callback``), else
    the outbox adapter."""
    sid = env.get("PAYHUB_TWILIO_ACCOUNT_SID", "").strip()
    token = env.get("PAYHUB_TWILIO_AUTH_TOKEN", "").strip()
    sender = env.get("PAYHUB_TWILIO_FROM", "").strip() or None
    service = env.get("PAYHUB_TWILIO_MESSAGING_SERVICE_SID", "").strip() or None
    if sid and token and (sender or service):
        return TwilioSms(
            sid,
            token,
            from_number=sender,
            messaging_service_sid=service,
            status_callback=status_callback,
        )
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
        status_callback=(
            status_callback_url(env.get("PAYHUB_PUBLIC_URL")) if sms.name == "twilio" else None
        ),
    )


__all__ = [
    "STATUS_CALLBACK_PATH",
    "OutboxMailer",
    "OutboxSms",
    "SenderSettings",
    "SmtpMailer",
    "TwilioSms",
    "mailer_from_env",
    "settings_from_env",
    "sms_from_env",
    "status_callback_url",
]
