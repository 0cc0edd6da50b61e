"""Texts and emails to a merchant's customers: kinds, the SMS gate, the outbox message.

The gate (spec: SMS rules 1, 3, 4) is one pure function, ``decide``: a text goes only for a
kind the merchant has switched on, to a customer with recorded consent, at exactly the
number consented for, and never to a number blocked by STOP. Anything else is refused with
a ``Refusal`` that is stored on the message. Quiet hours (rule 6) are apart, in
``payhub.domain.quiet_hours``: they hold a text, they never refuse it.

A ``Message`` is one row of the transactional outbox. Its life::

    Queued -> Sending -> Sent -> Delivered | Undelivered  (the provider's delivery report)
       |  \\      \\-> Queued (a failure that may be retried, after a backoff)
       |   \\      \\-> Failed (a permanent failure, or retries exhausted: ``last_error``)
       |    \\-> Held (quiet hours; ``send_after`` is 08:00 merchant time) -> Queued ...
       \\-> Refused (the gate said no, when queued or re-checked at delivery: ``reason``)
"""

from __future__ import annotations

import re
from datetime import datetime
from enum import StrEnum

import attrs

from payhub.domain.consent import ConsentState, same_number
from payhub.domain.errors import ValidationError
from payhub.domain.money import Money


class TextKind(StrEnum):
    """What a message is about; each kind is switched on per merchant (off by default)."""

    PAY_LINK = "PayLink"
    RECEIPT = "Receipt"
    FAILED_PAYMENT = "FailedPayment"
    SCHEDULE_REMINDER = "ScheduleReminder"

    @classmethod
    def parse(cls, value: str) -> TextKind:
        """A kind from its wire name, any letter case, dashes and underscores ignored."""
        wanted = value.replace("-", "").replace("_", "").strip().lower()
        for kind in cls:
            if kind.value.lower() == wanted:
                return kind
        names = ", ".join(k.value for k in cls)
        raise ValidationError.for_field("kind", f"'{value}' is not a text kind ({names})")


class Channel(StrEnum):
    SMS = "Sms"
    EMAIL = "Email"


class MessageStatus(StrEnum):
    QUEUED = "Queued"  # waiting for the worker (possibly after a retry backoff)
    HELD = "Held"  # quiet hours: goes out from ``send_after`` (08:00 merchant time)
    SENDING = "Sending"  # handed to the sender; the outcome is being recorded
    SENT = "Sent"
    REFUSED = "Refused"  # the gate said no; never sent
    FAILED = "Failed"  # the sender refused it for good, or retries ran out
    DELIVERED = "Delivered"  # the carrier confirmed it reached the phone (delivery report)
    UNDELIVERED = "Undelivered"  # the provider took it; the carrier or provider then failed it

    @property
    def final(self) -> bool:
        """Nothing more will be sent: the worker leaves the message alone."""
        return self in (
            MessageStatus.SENT,
            MessageStatus.REFUSED,
            MessageStatus.FAILED,
            MessageStatus.DELIVERED,
            MessageStatus.UNDELIVERED,
        )


class Refusal(StrEnum):
    """Why the gate refused a text (stored as the message's ``reason``)."""

    KIND_DISABLED = "KindDisabled"  # the merchant has not switched this kind on
    NO_PHONE = "NoPhone"  # the customer has no number to text
    NO_CONSENT = "NoConsent"  # no consent recorded (or it was withdrawn)
    NUMBER_NOT_CONSENTED = "NumberNotConsented"  # consent is for another number
    NUMBER_BLOCKED = "NumberBlocked"  # the number replied STOP and not START since
    CUSTOMER_GONE = "CustomerGone"  # the customer no longer exists for this merchant


HELD_REASON = "QuietHours"


def decide(
    kind: TextKind,
    enabled: frozenset[TextKind],
    consent: ConsentState,
    blocked: bool,
    to_phone: str | None,
) -> Refusal | None:
    """Whether a text of ``kind`` may go to ``to_phone``: ``None`` if it may, else why not.

    ``enabled`` is the merchant's switched-on kinds, ``consent`` the customer's current
    consent, ``blocked`` whether ``to_phone`` replied STOP (and not START since).
    """
    if kind not in enabled:
        return Refusal.KIND_DISABLED
    if not to_phone:
        return Refusal.NO_PHONE
    if not consent.consent or not consent.phone:
        return Refusal.NO_CONSENT
    if not same_number(consent.phone, to_phone):
        return Refusal.NUMBER_NOT_CONSENTED
    if blocked:
        return Refusal.NUMBER_BLOCKED
    return None


@attrs.define
class Message:
    """One outbox row: a text or an email to one customer, and what became of it."""

    id: str
    merchant_id: str
    customer_id: str | None
    channel: Channel
    kind: TextKind
    to: str  # E.164 for texts, an address for emails
    body: str
    status: MessageStatus
    created_at: datetime
    updated_at: datetime
    subject: str | None = None  # emails only
    reason: str | None = None  # a ``Refusal`` value, or ``QuietHours`` while held
    attempts: int = 0
    send_after: datetime | None = None
    sent_at: datetime | None = None
    provider: str | None = None  # which sender took it: ``twilio``, ``smtp``, ``outbox``
    provider_message_id: str | None = None
    last_error: str | None = None
    job_id: str | None = None  # the one worker job allowed to deliver it now
    attempt_started_at: datetime | None = None
    delivery_reported_at: datetime | None = None  # when the final delivery report came
    provider_error_code: str | None = None  # the provider's code for an undelivered text
    event_id: str | None = None  # the domain event whose reaction queued it (evt_…)


# --- what the texts and emails say --------------------------------------------------------

OPT_OUT = "Reply STOP to opt out."


def _amount(money: Money) -> str:
    return f"${money.amount:,}" if money.currency == "USD" else f"{money.amount:,} {money.currency}"


def pay_link_text(merchant: str, invoice: str, due: Money, url: str) -> str:
    return f"{merchant}: invoice {invoice} for {_amount(due)} is ready. Pay here: {url} {OPT_OUT}"


def receipt_text(
    merchant: str, invoice: str, payment: Money, paid: Money, due: Money, url: str
) -> str:
    rest = (
        "Paid in full."
        if due.amount <= 0
        else f"Paid so far: {_amount(paid)}; {_amount(due)} still due."
    )
    return (
        f"{merchant}: thank you for your payment of {_amount(payment)} on invoice {invoice}."
        f" {rest} Receipt: {url} {OPT_OUT}"
    )


def failed_payment_text(merchant: str, amount: Money, next_attempt: str | None) -> str:
    then = (
        f"We will try again on {next_attempt}."
        if next_attempt
        else "The schedule has stopped; please contact us to update your payment method."
    )
    return f"{merchant}: your scheduled payment of {_amount(amount)} did not go through. {then}"


def reminder_text(merchant: str, amount: Money, run_on: str) -> str:
    return f"{merchant}: reminder, your scheduled payment of {_amount(amount)} runs on {run_on}."


def help_text(merchant: str) -> str:
    return (
        f"{merchant}: payment notices by text. Msg & data rates may apply. "
        f"Reply STOP to opt out, START to allow texts again."
    )


def _signature(merchant: str, contact: tuple[str, ...]) -> str:
    """The email's closing: the business's name and how to reach it (its profile)."""
    if not contact:
        return ""
    return "\n" + "\n".join((merchant, *contact)) + "\n"


def pay_link_email(
    merchant: str, invoice: str, due: Money, url: str, contact: tuple[str, ...] = ()
) -> tuple[str, str]:
    subject = f"Invoice {invoice} from {merchant}"
    body = (
        f"Hello,\n\n{merchant} has sent you invoice {invoice} for {_amount(due)}.\n\n"
        f"Pay it online: {url}\n\nThank you.\n"
    ) + _signature(merchant, contact)
    return subject, body


def receipt_email(
    merchant: str,
    invoice: str,
    payment: Money,
    paid: Money,
    due: Money,
    url: str,
    contact: tuple[str, ...] = (),
) -> tuple[str, str]:
    subject = f"Receipt for invoice {invoice} from {merchant}"
    rest = (
        "The invoice is paid in full."
        if due.amount <= 0
        else f"Paid so far: {_amount(paid)}; {_amount(due)} is still due."
    )
    body = (
        f"Hello,\n\n{merchant} received your payment of {_amount(payment)} on invoice"
        f" {invoice}. {rest}\n\nYour receipt: {url}\n\nThank you.\n"
    ) + _signature(merchant, contact)
    return subject, body


def mask_phone(phone: str) -> str:
    """``+14155552671`` -> ``+1••••••2671``: enough to recognise, not to copy."""
    if len(phone) <= 6:
        return phone
    return phone[:2] + "•" * (len(phone) - 6) + phone[-4:]


def mask_email(address: str) -> str:
    local, _, domain = address.partition("@")
    return (local[:1] + "•••@" + domain) if domain else address


_PHONE_IN_TEXT = re.compile(r"\+\d{8,15}\b")
_EMAIL_IN_TEXT = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")


def mask_contacts(text: str) -> str:
    """Mask E.164 numbers and email addresses inside free text, such as a provider's error
    message (Twilio's 21211 names the number it refused; SMTP replies name the address)."""
    text = _PHONE_IN_TEXT.sub(lambda m: mask_phone(m.group()), text)
    return _EMAIL_IN_TEXT.sub(lambda m: mask_email(m.group()), text)


# --- delivery reports (the provider's status callback) --------------------------------------

# Twilio's error dictionary (https://www.twilio.com/docs/api/errors/NNNNN): the codes a
# status callback carries for a text it took and could not deliver, with payhub's reason.
DELIVERY_ERRORS: dict[str, tuple[str, str]] = {
    "21610": ("NumberBlocked", "Attempt to send to unsubscribed recipient"),
    "30001": ("DeliveryFailed", "Queue overflow"),
    "30002": ("DeliveryFailed", "Account suspended"),
    "30003": ("UnreachableNumber", "Unreachable destination handset"),
    "30004": ("NumberBlocked", "Message blocked"),
    "30005": ("UnreachableNumber", "Unknown destination handset"),
    "30006": ("UnreachableNumber", "Landline or unreachable carrier"),
    "30007": ("CarrierFiltered", "Message filtered by the carrier"),
    "30008": ("DeliveryFailed", "Unknown error"),
}
BLOCKING_ERRORS = frozenset({"21610", "30004"})  # the recipient opted out / blocks this sender
DELIVERED_STATUSES = frozenset({"delivered", "read"})  # ``read``: a read receipt, so delivered
UNDELIVERED_STATUSES = frozenset({"undelivered", "failed"})
_CODE = re.compile(r"\d{1,10}")


@attrs.frozen
class DeliveryOutcome:
    """What a final delivery report changes on a ``Sent`` message."""

    status: MessageStatus
    reason: str | None
    last_error: str | None
    error_code: str | None
    blocks_number: bool  # 21610/30004: the number is blocked as after a STOP


def delivery_outcome(
    current: MessageStatus, provider_status: str, error_code: str | None, provider: str = "Twilio"
) -> DeliveryOutcome | None:
    """The change a delivery report makes, or ``None`` for none.

    Only a ``Sent`` message moves, and only to a final state, so reports arriving out of
    order never move a message backwards: ``sent`` after ``delivered`` (or a second final
    report) changes nothing. ``queued``/``sending``/``sent`` and other progress reports add
    nothing to ``Sent``. Provider ``failed`` after it took the text counts as
    ``Undelivered``: payhub's own ``Failed`` means the provider never took it.
    """
    if current is not MessageStatus.SENT:
        return None
    status = provider_status.strip().lower()
    if status in DELIVERED_STATUSES:
        return DeliveryOutcome(MessageStatus.DELIVERED, None, None, None, False)
    if status not in UNDELIVERED_STATUSES:
        return None
    code = error_code.strip() if error_code else None
    code = code if code and _CODE.fullmatch(code) else None
    reason, title = DELIVERY_ERRORS.get(code or "", ("DeliveryFailed", "no description"))
    label = f"{provider} {status}" + (f" (error {code})" if code else "")
    return DeliveryOutcome(
        MessageStatus.UNDELIVERED,
        reason,
        mask_contacts(f"{label}: {title}"),
        code,
        code in BLOCKING_ERRORS,
    )


# --- sending failures ---------------------------------------------------------------------


class SendFailed(Exception):
    """A sender could not deliver a message.

    ``permanent``: the provider refused it for good (bad number, unsubscribed recipient), so
    retrying would fail again. ``unknown``: the provider may have taken it (a timeout, a 5xx
    after the request went out), so the next attempt must look before sending again.
    ``blocked``: the provider says the recipient opted out (payhub records the block).
    """

    def __init__(
        self,
        detail: str,
        *,
        permanent: bool = False,
        unknown: bool = False,
        blocked: bool = False,
        code: str | None = None,
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        self.permanent = permanent
        self.unknown = unknown
        self.blocked = blocked
        self.code = code


@attrs.frozen
class OutgoingSms:
    message_id: str
    to: str
    body: str


@attrs.frozen
class OutgoingEmail:
    message_id: str
    to: str
    subject: str
    body: str
