"""Email through any SMTP server, with the standard library's ``smtplib``.

Each message carries ``Message-ID: <{payhub message id}@{domain}>``: the same message always
has the same id, so if a crash between the server's acceptance and payhub's record makes
the worker send it again, mail systems can recognise the duplicate. 5xx replies (and
refused recipients) are permanent; 4xx replies and connection failures are retried.
"""

from __future__ import annotations

import smtplib
import ssl
from email.message import EmailMessage
from email.utils import formatdate

from payhub.domain.messaging import OutgoingEmail, SendFailed

SECURITY = ("starttls", "ssl", "none")


class SmtpMailer:
    name = "smtp"

    def __init__(
        self,
        host: str,
        port: int,
        from_address: str,
        *,
        username: str | None = None,
        password: str | None = None,
        security: str = "starttls",
        timeout: float = 30.0,
        message_id_domain: str = "payhub",
    ) -> None:
        if security not in SECURITY:
            raise ValueError(f"security must be one of {', '.join(SECURITY)}")
        self._host = host
        self._port = port
        self._from = from_address
        self._user = username
        self._password = password
        self._security = security
        self._timeout = timeout
        self._domain = message_id_domain

    def __repr__(self) -> str:  # never the password
        return f"SmtpMailer(host={self._host!r}, port={self._port}, user={self._user!r})"

    def message_id(self, email: OutgoingEmail) -> str:
        return f"<{email.message_id}@{self._domain}>"

    def _build(self, email: OutgoingEmail) -> EmailMessage:
        message = EmailMessage()
        message["From"] = self._from
        message["To"] = email.to
        message["Subject"] = email.subject
        message["Date"] = formatdate(usegmt=True)
        message["Message-ID"] = self.message_id(email)
        message.set_content(email.body)
        return message

    def _connect(self) -> smtplib.SMTP:
        if self._security == "ssl":
            return smtplib.SMTP_SSL(
                self._host, self._port, timeout=self._timeout, context=ssl.create_default_context()
            )
        smtp = smtplib.SMTP(self._host, self._port, timeout=self._timeout)
        if self._security == "starttls":
            smtp.starttls(context=ssl.create_default_context())
        return smtp

    def send(self, email: OutgoingEmail) -> str:
        message = self._build(email)
        try:
            with self._connect() as smtp:
                if self._user:
                    smtp.login(self._user, self._password or "")
                smtp.send_message(message)
        except smtplib.SMTPRecipientsRefused as e:
            codes = {code for code, _ in e.recipients.values()}
            permanent = all(code >= 500 for code in codes)
            raise SendFailed(
                f"SMTP refused the recipient ({sorted(codes)})", permanent=permanent
            ) from None
        except smtplib.SMTPAuthenticationError as e:  # a configuration fault: retried
            raise SendFailed(f"SMTP login refused ({e.smtp_code})", code=str(e.smtp_code)) from None
        except smtplib.SMTPResponseException as e:
            raise SendFailed(
                f"SMTP {e.smtp_code}: {_text(e.smtp_error)}",
                permanent=e.smtp_code >= 500,
                code=str(e.smtp_code),
            ) from None
        except (smtplib.SMTPException, OSError) as e:
            raise SendFailed(f"SMTP server unreachable ({type(e).__name__})") from None
        return self.message_id(email)


def _text(value: bytes | str) -> str:
    return (value.decode(errors="replace") if isinstance(value, bytes) else value)[:200]
