"""Texts and emails: queued in the caller's unit of work, delivered by the worker.

Queueing (``queue_text``, ``queue_email``) runs inside the unit of work of the change that
causes the message (``payhub.services.notices``), so the outbox row and its worker job
commit or roll back with that change. The SMS gate is evaluated then (a refused text is
kept with its reason) and again at delivery, because consent may be withdrawn meanwhile;
quiet hours hold a text until 08:00 merchant time.

Delivery (``Outbox.deliver``, the ``outbox`` queue's handler) never sends a message twice
on purpose and never loses one:

1. In one transaction the message is claimed: status ``Sending``, ``attempts`` + 1,
   ``attempt_started_at`` = now. Only the job named in ``message.job_id`` may claim it, so a
   stale duplicate job does nothing.
2. The sender is called outside any transaction.
3. In a second transaction the outcome is recorded: ``Sent`` with the provider's id, or a
   retry (``Queued``, a new job after the ``RetryPolicy`` backoff), or ``Failed`` with
   ``last_error`` (a permanent refusal, or retries exhausted).

A worker that dies between 2 and 3 leaves the message ``Sending``; its job's lease expires
and the job runs again. A text found ``Sending`` is first looked up at the provider
(``SmsSender.find_sent``): if the provider already has it, it is recorded as sent, not sent
again. Emails cannot be looked up over SMTP: they are sent again with the same Message-ID
(at least once, recognisably).
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime

import attrs
import structlog

from payhub.domain.accounts import Merchant, check_time_zone, zone_of
from payhub.domain.consent import (
    ConsentRecord,
    ConsentSource,
    ConsentState,
    Keyword,
    clean_phone,
    keyword_of,
    same_number,
)
from payhub.domain.customers import Customer
from payhub.domain.errors import NotFound, Unauthenticated, ValidationError
from payhub.domain.messaging import (
    HELD_REASON,
    Channel,
    Message,
    MessageStatus,
    OutgoingEmail,
    OutgoingSms,
    Refusal,
    SendFailed,
    TextKind,
    decide,
    delivery_outcome,
    help_text,
)
from payhub.domain.quiet_hours import next_send_time
from payhub.domain.retries import RetryPolicy
from payhub.ports import Job, Mailer, SmsSender, UnitOfWork
from payhub.services.auth import Caller
from payhub.services.deps import Deps
from payhub.services.merchants import find_merchant
from payhub.services.paging import Page, check_cursor, check_limit, page_of

QUEUE = "outbox"
SERVICE_NAME = "payhub"  # HELP replies when no merchant has this customer
log = structlog.get_logger("payhub.messaging")


# --- queueing (inside the caller's unit of work) --------------------------------------------


def _enqueue(uow: UnitOfWork, deps: Deps, message: Message, due_at: datetime) -> None:
    job = Job(deps.new_id("job"), QUEUE, {"message_id": message.id}, due_at, 0)
    uow.jobs.enqueue(job)
    message.job_id = job.id


def text_number(customer: Customer) -> str | None:
    """Where a text to the customer goes: their number (consent must be for exactly it)."""
    return customer.phone or customer.consent.phone


def gate(uow: UnitOfWork, merchant_id: str, customer: Customer, kind: TextKind) -> Refusal | None:
    to = text_number(customer)
    blocked = uow.messages.is_blocked(to) if to else False
    return decide(kind, uow.messages.enabled_kinds(merchant_id), customer.consent, blocked, to)


def queue_text(
    uow: UnitOfWork,
    deps: Deps,
    merchant: Merchant,
    customer: Customer,
    kind: TextKind,
    body: str,
    *,
    event_id: str | None = None,
) -> Message:
    """Write a text to the outbox: refused (with the reason), held until 08:00, or queued.
    ``event_id`` names the domain event it reacts to."""
    now = deps.clock.now()
    message = Message(
        id=deps.new_id("msg"),
        merchant_id=merchant.id,
        customer_id=customer.id,
        channel=Channel.SMS,
        kind=kind,
        to=text_number(customer) or "",
        body=body,
        status=MessageStatus.QUEUED,
        created_at=now,
        updated_at=now,
        event_id=event_id,
    )
    refusal = gate(uow, merchant.id, customer, kind)
    if refusal is not None:
        message.status = MessageStatus.REFUSED
        message.reason = refusal.value
    else:
        send_at = next_send_time(now, zone_of(merchant))
        if send_at > now:
            message.status = MessageStatus.HELD
            message.reason = HELD_REASON
        message.send_after = send_at
        _enqueue(uow, deps, message, send_at)
    uow.messages.add(message)
    return message


def queue_email(
    uow: UnitOfWork,
    deps: Deps,
    merchant: Merchant,
    customer: Customer,
    kind: TextKind,
    subject: str,
    body: str,
    *,
    event_id: str | None = None,
) -> Message | None:
    """Write an email to the outbox (``None`` when the customer has no address). Emails have
    no consent gate or quiet hours: they are what the payer asked for (spec: invoice send)."""
    if not customer.email:
        return None
    now = deps.clock.now()
    message = Message(
        id=deps.new_id("msg"),
        merchant_id=merchant.id,
        customer_id=customer.id,
        channel=Channel.EMAIL,
        kind=kind,
        to=customer.email,
        subject=subject,
        body=body,
        status=MessageStatus.QUEUED,
        created_at=now,
        updated_at=now,
        send_after=now,
        event_id=event_id,
    )
    _enqueue(uow, deps, message, now)
    uow.messages.add(message)
    return message


# --- delivery (the worker's ``outbox`` queue) -------------------------------------------------


@attrs.frozen
class _Claim:
    message: Message
    interrupted: bool  # the previous attempt may have reached the provider
    known_ids: frozenset[str] = frozenset()


class Outbox:
    """Delivers queued messages through the configured senders."""

    def __init__(
        self, deps: Deps, sms: SmsSender, mailer: Mailer, policy: RetryPolicy | None = None
    ) -> None:
        self._d = deps
        self.sms = sms
        self.mailer = mailer
        self._policy = policy or RetryPolicy()

    def deliver(self, job: Job) -> None:
        """The ``outbox`` queue's handler: one message, idempotently."""
        claim = self._claim(job)
        if claim is None:
            return
        message = claim.message
        if claim.interrupted:
            if message.channel is Channel.SMS:
                try:
                    found = self.sms.find_sent(self._sms(message), self._since(message))
                except SendFailed as failure:
                    self._record_failure(job, message.id, failure, looked_up=True)
                    return
                fresh = [pid for pid in found if pid not in claim.known_ids]
                if fresh:
                    self._record_sent(job, message.id, fresh[0], self.sms.name)
                    return
            claim = self._claim(job, restart=True)
            if claim is None:
                return
            message = claim.message
        try:
            if message.channel is Channel.SMS:
                provider_id = self.sms.send(self._sms(message))
                provider = self.sms.name
            else:
                provider_id = self.mailer.send(self._email(message))
                provider = self.mailer.name
        except SendFailed as failure:
            self._record_failure(job, message.id, failure)
            return
        self._record_sent(job, message.id, provider_id, provider)

    @staticmethod
    def _since(message: Message) -> datetime:
        assert message.attempt_started_at is not None
        return message.attempt_started_at

    @staticmethod
    def _sms(message: Message) -> OutgoingSms:
        return OutgoingSms(message.id, message.to, message.body)

    @staticmethod
    def _email(message: Message) -> OutgoingEmail:
        return OutgoingEmail(message.id, message.to, message.subject or "", message.body)

    def _claim(self, job: Job, *, restart: bool = False) -> _Claim | None:
        """Take the message for this attempt, or settle it without sending (refused, held)."""
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            message = uow.messages.get(str(job.payload.get("message_id")), for_update=True)
            if message is None or message.status.final or message.job_id != job.id:
                return None  # done already, or another job now owns it
            interrupted = message.status is MessageStatus.SENDING and not restart
            if interrupted:
                known = frozenset(uow.messages.provider_ids(message.to))
                return _Claim(message, True, known)
            if message.channel is Channel.SMS:
                merchant = uow.merchants.get(message.merchant_id)
                customer = (
                    uow.customers.get(message.merchant_id, message.customer_id)
                    if message.customer_id
                    else None
                )
                refusal = (
                    Refusal.CUSTOMER_GONE
                    if merchant is None or customer is None
                    else gate(uow, merchant.id, customer, message.kind)
                )
                if refusal is None and customer is not None and text_number(customer):
                    # the number may have changed with consent re-given for the new one
                    message.to = text_number(customer) or message.to
                if refusal is not None:
                    message.status = MessageStatus.REFUSED
                    message.reason = refusal.value
                    message.updated_at = now
                    message.job_id = None
                    uow.messages.save(message)
                    log.info("message refused", message_id=message.id, reason=refusal.value)
                    return None
                assert merchant is not None
                send_at = next_send_time(now, zone_of(merchant))
                if send_at > now:
                    message.status = MessageStatus.HELD
                    message.reason = HELD_REASON
                    message.send_after = send_at
                    message.updated_at = now
                    _enqueue(uow, self._d, message, send_at)
                    uow.messages.save(message)
                    return None
            message.status = MessageStatus.SENDING
            message.reason = None
            message.attempts += 1
            message.attempt_started_at = now
            message.updated_at = now
            message.provider = self.sms.name if message.channel is Channel.SMS else self.mailer.name
            uow.messages.save(message)
            return _Claim(message, False)

    def _record_sent(self, job: Job, message_id: str, provider_id: str, provider: str) -> None:
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            message = uow.messages.get(message_id, for_update=True)
            if message is None:
                return
            message.status = MessageStatus.SENT
            message.reason = None
            message.sent_at = now
            message.provider = provider
            message.provider_message_id = provider_id
            message.last_error = None
            message.job_id = None
            message.updated_at = now
            uow.messages.save(message)
        log.info("message sent", message_id=message_id, provider=provider, channel=message.channel)

    def _record_failure(
        self, job: Job, message_id: str, failure: SendFailed, looked_up: bool = False
    ) -> None:
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            message = uow.messages.get(message_id, for_update=True)
            if message is None:
                return
            message.last_error = failure.detail
            message.updated_at = now
            if failure.permanent:
                message.status = MessageStatus.FAILED
                message.reason = (
                    Refusal.NUMBER_BLOCKED.value if failure.blocked else "ProviderRefused"
                )
                message.job_id = None
                if failure.blocked and message.channel is Channel.SMS:
                    apply_inbound_keyword(
                        uow, self._d, message.to, Keyword.STOP, "provider-opt-out", failure.code
                    )
            elif self._policy.gives_up_after(message.attempts):
                message.status = MessageStatus.FAILED
                message.reason = "RetriesExhausted"
                unknown = failure.unknown or looked_up
                message.last_error = (
                    f"{failure.detail} (gave up after {message.attempts} attempts"
                    + ("; the provider may have taken the last one)" if unknown else ")")
                )
                message.job_id = None
            else:
                # An unknown outcome stays Sending, so the next attempt looks before sending.
                if not (failure.unknown or looked_up):
                    message.status = MessageStatus.QUEUED
                jitter = self._d.randomness.token_bytes(1)[0] / 255
                due = now + self._policy.delay(max(1, message.attempts), jitter)
                message.send_after = due
                _enqueue(uow, self._d, message, due)
            uow.messages.save(message)
        log.warning(
            "message not sent",
            message_id=message_id,
            status=message.status,
            attempts=message.attempts,
            permanent=failure.permanent,
            unknown=failure.unknown,
        )

    def list(
        self, statuses: Collection[str] | None = None, after: str | None = None, limit: int = 50
    ) -> Page[Message]:
        """Every merchant's messages, newest first (the operator's view)."""
        check_limit(limit)
        with self._d.store.unit_of_work(readonly=True) as uow:
            rows = uow.messages.list(None, None, statuses, after, limit + 1)
            if after is not None and not rows:
                check_cursor(uow.messages.get(after) is not None)
        return page_of(rows, limit, lambda m: m.id)


# --- inbound keywords (STOP, START, HELP) ----------------------------------------------------


def _record_consent(
    uow: UnitOfWork, deps: Deps, customer: Customer, state: ConsentState, reason: str
) -> None:
    assert state.recorded_at is not None
    customer.consent = state
    customer.updated_at = state.recorded_at
    uow.customers.add_consent(
        ConsentRecord(
            id=deps.new_id("cns"),
            merchant_id=customer.merchant_id,
            customer_id=customer.id,
            consent=state.consent,
            phone=state.phone,
            source=ConsentSource.KEYWORD,
            recorded_by="keyword",
            recorded_at=state.recorded_at,
            reason=reason,
        )
    )
    uow.customers.save(customer)


def apply_inbound_keyword(
    uow: UnitOfWork,
    deps: Deps,
    phone: str,
    keyword: Keyword,
    word: str,
    provider_message_id: str | None,
) -> bool:
    """STOP blocks ``phone`` and withdraws every consent given for it; START lifts the block
    and restores nothing. Every customer (of any merchant: one sending number serves them
    all) whose consent state changes gets a consent record with source ``Keyword``.
    Returns whether the block changed."""
    if keyword is Keyword.HELP:
        return False
    now = deps.clock.now()
    stop = keyword is Keyword.STOP
    changed = uow.messages.set_blocked(phone, stop, now, word, provider_message_id or "")
    ref = f" ({provider_message_id})" if provider_message_id else ""
    for merchant_id, customer_id in uow.messages.customers_at(phone):
        customer = uow.customers.get(merchant_id, customer_id)
        if customer is None:
            continue
        consent = customer.consent
        if stop and consent.consent and same_number(consent.phone, phone):
            _record_consent(
                uow,
                deps,
                customer,
                ConsentState(False, consent.phone, ConsentSource.KEYWORD, now),
                f"{word} reply: consent withdrawn, number blocked{ref}",
            )
        elif changed and not consent.consent:
            note = (
                f"{word} reply: number blocked{ref}"
                if stop
                else f"{word} reply: number unblocked; consent must be given again{ref}"
            )
            _record_consent(
                uow, deps, customer, ConsentState(False, phone, ConsentSource.KEYWORD, now), note
            )
    return changed


@attrs.frozen
class InboundReply:
    keyword: Keyword | None
    reply: str | None  # the text to answer with (TwiML ``<Message>``), if any


class Inbound:
    """The SMS provider's inbound-message webhook: verified, then keywords applied."""

    def __init__(self, deps: Deps, sms: SmsSender) -> None:
        self._d = deps
        self._sms = sms

    def receive(
        self, url: str, params: Sequence[tuple[str, str]], signature: str | None
    ) -> InboundReply:
        if not self._sms.verify_inbound(url, params, signature):
            raise Unauthenticated(
                "the X-Twilio-Signature header does not sign this request"
                " (check PAYHUB_TWILIO_AUTH_TOKEN and PAYHUB_PUBLIC_URL)"
            )
        fields: dict[str, str] = {}
        for name, value in params:
            fields.setdefault(name, value)
        body = fields.get("Body", "")
        keyword = keyword_of(body)
        try:
            phone = clean_phone(fields.get("From"), "From")
        except ValidationError:
            phone = None
        if keyword is None or phone is None:
            return InboundReply(keyword, None)
        sid = fields.get("MessageSid") or fields.get("SmsSid")
        word = body.strip().rstrip(".!?").strip().upper()
        with self._d.store.unit_of_work() as uow:
            if keyword is Keyword.HELP:
                return InboundReply(keyword, help_text(_merchant_name(uow, phone)))
            apply_inbound_keyword(uow, self._d, phone, keyword, word, sid)
        log.info("sms keyword", keyword=keyword.value)
        # The provider confirms STOP and START itself (Twilio's opt-out handling), and a
        # reply to a number that has just opted out would be refused anyway.
        return InboundReply(keyword, None)

    def report_status(
        self, url: str, params: Sequence[tuple[str, str]], signature: str | None
    ) -> MessageStatus | None:
        """The provider's delivery report (Twilio's StatusCallback): verified like inbound
        texts, then recorded on the message with that provider id. Returns the message's
        new status, or ``None`` when nothing changed: an unknown id (acknowledged all the
        same, so the provider does not retry), a progress report (``queued``, ``sent``), or
        a report arriving after the final one (out of order: never a step backwards).
        21610/30004 (recipient unsubscribed / blocks the sender) also block the number, as
        the same code does when the provider refuses a send."""
        if not self._sms.verify_inbound(url, params, signature):
            raise Unauthenticated(
                "the X-Twilio-Signature header does not sign this request"
                " (check PAYHUB_TWILIO_AUTH_TOKEN and PAYHUB_PUBLIC_URL)"
            )
        fields: dict[str, str] = {}
        for name, value in params:
            fields.setdefault(name, value)
        sid = (fields.get("MessageSid") or fields.get("SmsSid") or "").strip()
        reported = fields.get("MessageStatus") or fields.get("SmsStatus") or ""
        if not sid:
            return None
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            message = uow.messages.by_provider_id(self._sms.name, sid, for_update=True)
            if message is None:
                log.info("delivery report for an unknown message", provider=self._sms.name)
                return None
            outcome = delivery_outcome(message.status, reported, fields.get("ErrorCode"))
            if outcome is None:
                log.info("delivery report ignored", message_id=message.id, status=message.status)
                return None
            message.status = outcome.status
            message.reason = outcome.reason
            message.provider_error_code = outcome.error_code
            if outcome.last_error is not None:
                message.last_error = outcome.last_error
            message.delivery_reported_at = now
            message.updated_at = now
            uow.messages.save(message)
            if outcome.blocks_number and message.channel is Channel.SMS and message.to:
                assert outcome.error_code is not None
                apply_inbound_keyword(
                    uow, self._d, message.to, Keyword.STOP, "provider-opt-out", outcome.error_code
                )
        log.info(
            "delivery report",
            message_id=message.id,
            status=outcome.status,
            error_code=outcome.error_code,
        )
        return outcome.status


def _merchant_name(uow: UnitOfWork, phone: str) -> str:
    """The merchant whose text the customer most likely answers: the last one that texted
    them, else the first merchant that has them as a customer."""
    merchant_id = uow.messages.last_texting_merchant(phone)
    if merchant_id is None:
        at = uow.messages.customers_at(phone)
        merchant_id = at[0][0] if at else None
    merchant = uow.merchants.get(merchant_id) if merchant_id else None
    return merchant.display_name if merchant else SERVICE_NAME


# --- a merchant's view and switches -----------------------------------------------------------


@attrs.frozen
class TextingSettings:
    time_zone: str | None
    enabled: frozenset[TextKind]


class Texting:
    """One merchant's text kinds (the portal switches them) and its messages."""

    def __init__(self, deps: Deps, caller: Caller, reference: str) -> None:
        self._d = deps
        self._caller = caller
        self._reference = reference

    def settings(self) -> TextingSettings:
        with self._d.store.unit_of_work(readonly=True) as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            return TextingSettings(merchant.time_zone, uow.messages.enabled_kinds(merchant.id))

    def switch(
        self, kinds: Collection[TextKind], on: bool, time_zone: str | None = None
    ) -> TextingSettings:
        """Switch kinds on or off. Switching on needs the merchant's time zone (texting hours
        are kept in it): set before, or given here (an IANA name, validated)."""
        zone = check_time_zone(time_zone) if time_zone is not None else None
        if not kinds:
            raise ValidationError.for_field("kind", "name at least one text kind")
        now = self._d.clock.now()
        with self._d.store.unit_of_work() as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            if zone is not None:
                uow.merchants.set_time_zone(merchant.id, zone)
            current_zone = zone or merchant.time_zone
            if on and current_zone is None:
                raise ValidationError.for_field(
                    "timeZone",
                    "is not set for this merchant: texts keep quiet hours in the merchant's"
                    " time zone; set it first (or pass --time-zone)",
                )
            for kind in kinds:
                uow.messages.set_kind(merchant.id, kind, on, now)
            return TextingSettings(current_zone, uow.messages.enabled_kinds(merchant.id))

    def messages(
        self,
        customer_id: str | None = None,
        statuses: Collection[str] | None = None,
        after: str | None = None,
        limit: int = 50,
    ) -> Page[Message]:
        """The merchant's messages (or one customer's), newest first."""
        check_limit(limit)
        with self._d.store.unit_of_work(readonly=True) as uow:
            merchant = find_merchant(uow, self._caller, self._reference)
            if customer_id is not None and uow.customers.get(merchant.id, customer_id) is None:
                raise NotFound(f"no customer '{customer_id}' for this merchant")
            rows = uow.messages.list(merchant.id, customer_id, statuses, after, limit + 1)
            if after is not None and not rows:
                found = uow.messages.get(after)
                check_cursor(found is not None and found.merchant_id == merchant.id)
        return page_of(rows, limit, lambda m: m.id)


def parse_statuses(values: Collection[str] | None) -> list[str] | None:
    """Status filters from the wire or the CLI, any letter case (400 for unknown ones)."""
    if not values:
        return None
    known = {s.value.lower(): s.value for s in MessageStatus}
    out: list[str] = []
    for value in values:
        for part in value.split(","):
            name = part.strip().lower()
            if not name:
                continue
            if name not in known:
                raise ValidationError.for_field(
                    "status", f"'{part.strip()}' is not one of {', '.join(known.values())}"
                )
            out.append(known[name])
    return out or None
