"""Messaging over HTTP: the SMS provider's inbound webhook, and a merchant's messages.

- ``POST /webhooks/twilio/sms``: Twilio's inbound-message webhook (form-encoded ``From``,
  ``To``, ``Body``, ``MessageSid``…). Public, but every request must carry a valid
  ``X-Twilio-Signature`` (401 problem+json otherwise), computed over the configured public
  URL (``PAYHUB_PUBLIC_URL``) + this path. Answers TwiML: a ``<Message>`` for HELP, empty
  otherwise.
- ``POST /webhooks/twilio/status``: Twilio's delivery reports (the ``StatusCallback`` payhub
  sends with each text when ``PAYHUB_PUBLIC_URL`` is set): ``MessageSid``,
  ``MessageStatus``, ``ErrorCode``. Signed like the inbound webhook (401 otherwise);
  answers 204, also for a message payhub does not know.
- ``GET M/texting``: which text kinds the merchant has switched on, and its time zone.
- ``GET M/messages`` and ``GET M/customers/{customerId}/messages``: the outbox, newest
  first, with what became of each message and why.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any
from xml.sax.saxutils import escape

import anyio.to_thread
import msgspec
from litestar import Controller, Request, Response, post
from litestar.params import FromPath, QueryParameter
from litestar.status_codes import HTTP_204_NO_CONTENT

from payhub.adapters.messaging import STATUS_CALLBACK_PATH
from payhub.domain.messaging import Message, TextKind
from payhub.services.messaging import TextingSettings, parse_statuses
from payhub_server.deps import MERCHANT_KEY_OK, PUBLIC, Hub, Tenant, api_get
from payhub_server.routes.paging import CURSOR, LIMIT, page_out
from payhub_server.routes.wire import Page

TWIML = "application/xml"


class MessageOut(msgspec.Struct, rename="camel"):
    """One text or email. `status`: Queued, Held, Sending, Sent, Delivered, Undelivered,
    Refused or Failed (Delivered/Undelivered: the carrier's delivery report for a text
    the provider took). `reason`: why it was refused, held or not delivered (KindDisabled,
    NoPhone, NoConsent, NumberNotConsented, NumberBlocked, CustomerGone, QuietHours,
    ProviderRefused, RetriesExhausted, UnreachableNumber, CarrierFiltered,
    DeliveryFailed). `providerErrorCode`: the provider's code for an undelivered text
    (Twilio 30003...). `sendAfterUtc`: when a held or retried message goes out next."""

    message_id: str
    customer_id: str | None
    channel: str
    kind: str
    to: str
    subject: str | None
    body: str
    status: str
    reason: str | None
    attempts: int
    send_after_utc: datetime | None
    sent_at_utc: datetime | None
    provider: str | None
    provider_message_id: str | None
    last_error: str | None
    created_at_utc: datetime
    provider_error_code: str | None = None
    delivery_reported_at_utc: datetime | None = None

    @classmethod
    def of(cls, m: Message) -> MessageOut:
        return cls(
            message_id=m.id,
            customer_id=m.customer_id,
            channel=m.channel.value,
            kind=m.kind.value,
            to=m.to,
            subject=m.subject,
            body=m.body,
            status=m.status.value,
            reason=m.reason,
            attempts=m.attempts,
            send_after_utc=m.send_after,
            sent_at_utc=m.sent_at,
            provider=m.provider,
            provider_message_id=m.provider_message_id,
            last_error=m.last_error,
            created_at_utc=m.created_at,
            provider_error_code=m.provider_error_code,
            delivery_reported_at_utc=m.delivery_reported_at,
        )


class TextKindOut(msgspec.Struct, rename="camel"):
    kind: str
    enabled: bool


class TextingOut(msgspec.Struct, rename="camel"):
    """Text kinds are switched on in the admin portal; each is off by default."""

    time_zone: str | None
    kinds: list[TextKindOut]

    @classmethod
    def of(cls, s: TextingSettings) -> TextingOut:
        return cls(s.time_zone, [TextKindOut(k.value, k in s.enabled) for k in TextKind])


STATUS = Annotated[
    list[str] | None,
    QueryParameter(name="status", description="Only these statuses (repeat, or comma-separated)"),
]


class MessagingController(Controller):
    path = "/api/merchant-accounts/{ref:str}"
    tags = ["Messaging"]

    @api_get("/texting", opt=MERCHANT_KEY_OK, summary="Show the merchant's text kinds")
    def get_texting(self, ref: FromPath[str], tenant: Tenant) -> TextingOut:
        """PayLink, Receipt, FailedPayment, ScheduleReminder: on or off, and the time zone
        whose 21:00-08:00 quiet hours texts keep."""
        return TextingOut.of(tenant.merchant(ref).texting.settings())

    @api_get("/messages", opt=MERCHANT_KEY_OK, summary="List the merchant's messages")
    def list_messages(
        self,
        ref: FromPath[str],
        tenant: Tenant,
        limit: LIMIT = 50,
        starting_after: CURSOR = None,
        status: STATUS = None,
    ) -> Page[MessageOut]:
        """Texts and emails to the merchant's customers, newest first."""
        texting = tenant.merchant(ref).texting
        page = texting.messages(None, parse_statuses(status), starting_after, limit)
        return page_out(page, MessageOut.of)

    @api_get(
        "/customers/{customer_id:str}/messages",
        opt=MERCHANT_KEY_OK,
        summary="List a customer's messages",
    )
    def list_customer_messages(
        self,
        ref: FromPath[str],
        customer_id: FromPath[str],
        tenant: Tenant,
        limit: LIMIT = 50,
        starting_after: CURSOR = None,
        status: STATUS = None,
    ) -> Page[MessageOut]:
        """Texts and emails to one customer, newest first: sent, held, refused (and why).
        The consent trail is at `GET …/customers/{customerId}/sms-consent/history`."""
        texting = tenant.merchant(ref).texting
        page = texting.messages(customer_id, parse_statuses(status), starting_after, limit)
        return page_out(page, MessageOut.of)


def twiml(reply: str | None) -> bytes:
    inner = f"<Message>{escape(reply)}</Message>" if reply else ""
    return f'<?xml version="1.0" encoding="UTF-8"?><Response>{inner}</Response>'.encode()


@post(
    "/webhooks/twilio/sms",
    opt=PUBLIC,
    tags=["Messaging"],
    summary="Inbound text messages (Twilio webhook)",
    status_code=200,
    security=[],
)
async def twilio_inbound(request: Request[Any, Any, Any], hub: Hub) -> Response[bytes]:
    """Point the Twilio number's "A message comes in" webhook here (HTTP POST). STOP (and
    STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT, OPTOUT, REVOKE) blocks the sender's number and
    withdraws consent given for it; START (UNSTOP, YES) lifts the block without restoring
    consent; HELP (INFO) is answered with the merchant's name. Signed with
    `X-Twilio-Signature` (401 otherwise)."""
    url, params, signature = await _signed_form(request, hub)
    outcome = await anyio.to_thread.run_sync(hub.inbound.receive, url, params, signature)
    return Response(twiml(outcome.reply), media_type=TWIML, status_code=200)


async def _signed_form(
    request: Request[Any, Any, Any], hub: Hub
) -> tuple[str, list[tuple[str, str]], str | None]:
    """What Twilio signed: the public URL it called (``PAYHUB_PUBLIC_URL`` + path + query,
    not the ``Host`` a proxy may rewrite), every form field, and the signature header."""
    form = await request.form()
    params = [(k, v) for k, v in form.multi_items() if isinstance(v, str)]
    url = hub.deps.page_url(request.url.path)
    if request.url.query:
        url += "?" + request.url.query
    return url, params, request.headers.get("x-twilio-signature")


@post(
    STATUS_CALLBACK_PATH,
    opt=PUBLIC,
    tags=["Messaging"],
    summary="Delivery reports for texts (Twilio status callback)",
    status_code=HTTP_204_NO_CONTENT,
    security=[],
)
async def twilio_status(request: Request[Any, Any, Any], hub: Hub) -> None:
    """Twilio posts here (the `StatusCallback` payhub sends with each text when
    `PAYHUB_PUBLIC_URL` is set) as a text moves: `MessageSid`, `MessageStatus` (queued,
    sent, delivered, undelivered, failed...), `ErrorCode`. `delivered` makes the message
    Delivered; `undelivered`/`failed` make it Undelivered with the reason and code (21610
    and 30004 also block the number). A report after the final one, or for a message
    payhub does not know, changes nothing and is still answered 204. Signed with
    `X-Twilio-Signature` (401 otherwise)."""
    url, params, signature = await _signed_form(request, hub)
    await anyio.to_thread.run_sync(hub.inbound.report_status, url, params, signature)
