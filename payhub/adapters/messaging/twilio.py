"""Twilio Programmable Messaging through its REST API (httpx, injected client).

- Send: ``POST /2010-04-01/Accounts/{AccountSid}/Messages.json``, HTTP basic auth (account
  SID, auth token), form fields ``To``, ``From`` (or ``MessagingServiceSid``), ``Body``;
  201 with the Message resource (``sid`` ``SM…``, ``status`` ``queued``).
- Errors are JSON ``{"code", "message", "more_info", "status"}``. 21610 (the recipient
  replied STOP to this sender) is permanent and blocks the number in payhub too; 21211,
  21612, 21614, 21408 and other 4xx are permanent; 429 (20429) and 401 (20003, a
  configuration fault) are retried; a 5xx, a timeout or a connection lost after the request
  went out leave the outcome unknown.
- Lookup after an unknown outcome: ``GET …/Messages.json?To=&From=&DateSent>=YYYY-MM-DD``
  (newest first, paged by ``next_page_uri``); a message with the same body created since
  the attempt began, whose ``sid`` payhub has not recorded for another message, is ours.
- Inbound webhooks are signed with the auth token (``X-Twilio-Signature``).

Built from Twilio's public API reference (Message resource, error dictionary, webhook
security); there is no Twilio SDK dependency.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from datetime import datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from payhub.adapters.messaging.signature import valid_twilio_signature
from payhub.domain.messaging import OutgoingSms, SendFailed

API_BASE = "https://api.twilio.com"
PERMANENT_BLOCKED = {21610}  # "Attempt to send to unsubscribed recipient"
RETRIED_STATUSES = {401, 403, 408, 409, 429}
LOOKUP_PAGES = 5
CLOCK_SKEW = timedelta(minutes=2)


class _HideRecipients(logging.Filter):
    """httpx logs each request's URL at INFO; a lookup's URL carries the recipient's number
    (``?To=%2B1415…``). Masked here so a deployment logging at INFO never shows it."""

    _TO = re.compile(r"([?&]To=)[^&\s\"]+")

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and any(isinstance(a, httpx.URL) for a in record.args):
            record.args = tuple(
                self._TO.sub(r"\1[masked]", str(a)) if isinstance(a, httpx.URL) else a
                for a in record.args
            )
        return True


def _hide_recipients_in_httpx_logs() -> None:
    httpx_log = logging.getLogger("httpx")
    if not any(isinstance(f, _HideRecipients) for f in httpx_log.filters):
        httpx_log.addFilter(_HideRecipients())


def default_client() -> httpx.Client:
    return httpx.Client(timeout=httpx.Timeout(30.0, connect=10.0), follow_redirects=False)


class TwilioSms:
    name = "twilio"

    def __init__(
        self,
        account_sid: str,
        auth_token: str,
        *,
        from_number: str | None = None,
        messaging_service_sid: str | None = None,
        client: httpx.Client | None = None,
        base_url: str = API_BASE,
        status_callback: str | None = None,
    ) -> None:
        if not from_number and not messaging_service_sid:
            raise ValueError("Twilio needs a From number or a Messaging Service SID")
        self._sid = account_sid
        self._token = auth_token
        self._from = from_number
        self._service = messaging_service_sid
        self.status_callback = status_callback
        self._client = client or default_client()
        _hide_recipients_in_httpx_logs()
        self._base = base_url.rstrip("/")

    def __repr__(self) -> str:  # never the token
        return f"TwilioSms(account_sid={self._sid!r}, from_number={self._from!r})"

    @property
    def _messages_url(self) -> str:
        return f"{self._base}/2010-04-01/Accounts/{self._sid}/Messages.json"

    def _request(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        try:
            return self._client.request(method, url, auth=(self._sid, self._token), **kwargs)
        except httpx.ConnectError as e:  # the request never left: safe to send again
            raise SendFailed(f"Twilio could not be reached ({type(e).__name__})") from None
        except httpx.TransportError as e:  # timeouts and dropped connections
            raise SendFailed(
                f"Twilio did not answer ({type(e).__name__}); the text may have been taken",
                unknown=True,
            ) from None

    def send(self, sms: OutgoingSms) -> str:
        form = {"To": sms.to, "Body": sms.body}
        if self._service:
            form["MessagingServiceSid"] = self._service
        else:
            assert self._from is not None
            form["From"] = self._from
        if self.status_callback:
            form["StatusCallback"] = self.status_callback
        response = self._request("POST", self._messages_url, data=form)
        if response.status_code in (200, 201):
            sid = _json(response).get("sid")
            if not isinstance(sid, str) or not sid:
                raise SendFailed("Twilio accepted the text without a sid", unknown=True)
            return sid
        raise _failure(response)

    def find_sent(self, sms: OutgoingSms, since: datetime) -> list[str]:
        params: dict[str, str] = {
            "To": sms.to,
            "DateSent>": (since - CLOCK_SKEW).date().isoformat(),
        }
        if self._from:
            params["From"] = self._from
        found: list[str] = []
        url: str | None = self._messages_url
        query: dict[str, str] | None = params
        for _ in range(LOOKUP_PAGES):
            if url is None:
                break
            response = self._request("GET", url, params=query)
            if response.status_code != 200:
                raise _failure(response)
            page = _json(response)
            for item in page.get("messages") or []:
                if _is_ours(item, sms, since):
                    found.append(str(item["sid"]))
            next_uri = page.get("next_page_uri")
            url, query = (
                (self._base + next_uri, None) if isinstance(next_uri, str) else (None, None)
            )
        return found

    def verify_inbound(
        self, url: str, params: Sequence[tuple[str, str]], signature: str | None
    ) -> bool:
        return valid_twilio_signature(url, params, signature, self._token)


def _json(response: httpx.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def _is_ours(item: dict[str, Any], sms: OutgoingSms, since: datetime) -> bool:
    if item.get("body") != sms.body or item.get("direction", "outbound-api") == "inbound":
        return False
    created = item.get("date_created")
    if not isinstance(created, str) or not item.get("sid"):
        return False
    try:
        at = parsedate_to_datetime(created)
    except (TypeError, ValueError):
        return False
    return at >= since - CLOCK_SKEW


def _failure(response: httpx.Response) -> SendFailed:
    body = _json(response)
    code = body.get("code")
    message = str(body.get("message") or response.reason_phrase or "no message")[:300]
    label = f"Twilio {response.status_code}" + (f" (error {code})" if code else "")
    detail = f"{label}: {message}"
    code_text = str(code) if code is not None else None
    if response.status_code >= 500:
        return SendFailed(detail, unknown=True, code=code_text)
    if response.status_code in RETRIED_STATUSES:
        return SendFailed(detail, code=code_text)
    blocked = isinstance(code, int) and code in PERMANENT_BLOCKED
    return SendFailed(detail, permanent=True, blocked=blocked, code=code_text)
