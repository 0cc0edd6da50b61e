"""Phone numbers and SMS consent: who may be texted, at which number, and why we know.

The rules (spec: SMS consent record, SMS rules):

- Consent belongs to one number. ``consent: true`` needs a valid **US mobile** number
  (``phonenumbers``: region ``US``, type mobile or fixed-line-or-mobile); anything else is 400.
  Numbers are kept in E.164 (``+14155552671``).
- Withdrawing (``consent: false``) always works, whatever the number looks like.
- When the customer's number changes, consent for the old number is withdrawn.
- STOP-type keywords withdraw consent and block the number until START; START lifts the
  block but does not restore consent; it must be given again. HELP changes nothing.
- Every change is appended to the customer's consent history: who, when, which number, how.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

import attrs
import phonenumbers
from phonenumbers import NumberParseException, PhoneNumberType

from payhub.domain.errors import ValidationError

DEFAULT_REGION = "US"
PHONE_INPUT_MAX = 40
_MOBILE_TYPES = {PhoneNumberType.MOBILE, PhoneNumberType.FIXED_LINE_OR_MOBILE}


class ConsentSource(StrEnum):
    """How consent was recorded."""

    API = "Api"  # the provider's API call (PUT …/sms-consent, or smsConsent on create)
    PAY_PAGE = "PayPage"  # ticked by the customer on the pay page after paying
    PORTAL = "Portal"  # recorded by merchant staff in the admin portal
    KEYWORD = "Keyword"  # a text message keyword (STOP withdraws)


@attrs.frozen
class ConsentState:
    """The customer's consent now: the newest record of their history."""

    consent: bool = False
    phone: str | None = None
    source: ConsentSource | None = None
    recorded_at: datetime | None = None


NO_CONSENT = ConsentState()


@attrs.frozen
class ConsentRecord:
    """One line of the audit trail. Never updated, never deleted."""

    id: str
    merchant_id: str
    customer_id: str
    consent: bool
    phone: str | None
    source: ConsentSource
    recorded_by: str  # an API key id, ``portal:<operator>``, ``keyword`` or ``pay-page``
    recorded_at: datetime
    reason: str | None = None

    @property
    def state(self) -> ConsentState:
        return ConsentState(self.consent, self.phone, self.source, self.recorded_at)


# --- phone numbers ---------------------------------------------------------------------------


def _parse(value: str) -> phonenumbers.PhoneNumber | None:
    if len(value) > PHONE_INPUT_MAX:
        return None
    try:
        number = phonenumbers.parse(value, DEFAULT_REGION)
    except NumberParseException:
        return None
    return number if phonenumbers.is_valid_number(number) else None


def e164(number: phonenumbers.PhoneNumber) -> str:
    return phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)


def clean_phone(value: str | None, field: str = "phone") -> str | None:
    """Any valid phone number, in E.164; blank is ``None``. A number without a country code
    is read as a US number."""
    if value is None or not value.strip():
        return None
    number = _parse(value.strip())
    if number is None:
        raise ValidationError.for_field(
            field, "is not a valid phone number (use international format, e.g. +14155552671)"
        )
    return e164(number)


def us_mobile_number(value: str | None, field: str = "phone") -> str:
    """The number consent may be given for: a valid US mobile number, in E.164."""
    if value is None or not value.strip():
        raise ValidationError.for_field(field, "is required to record SMS consent")
    number = _parse(value.strip())
    if number is None:
        raise ValidationError.for_field(field, "is not a valid phone number")
    if phonenumbers.region_code_for_number(number) != "US":
        raise ValidationError.for_field(field, "must be a US number to receive texts")
    if phonenumbers.number_type(number) not in _MOBILE_TYPES:
        raise ValidationError.for_field(field, "must be a mobile number to receive texts")
    return e164(number)


def same_number(a: str | None, b: str | None) -> bool:
    """Whether two numbers (as stored or as typed) are the same line."""
    if a is None or b is None:
        return a is b
    pa, pb = _parse(a), _parse(b)
    if pa is None or pb is None:
        return a.strip() == b.strip()
    return e164(pa) == e164(pb)


# --- consent decisions ---------------------------------------------------------------------


def give_or_withdraw(
    current: ConsentState,
    consent: bool,
    phone: str | None,
    customer_phone: str | None,
    source: ConsentSource,
    at: datetime,
) -> ConsentState:
    """The state after a consent request.

    ``phone`` is the number sent with the request; without one, the customer's stored
    number is used. Giving consent checks the number (400 unless a valid US mobile).
    Withdrawing never fails: the number recorded is the one sent (in E.164 when it parses),
    else the number consent was given for, else the customer's.
    """
    if consent:
        field = "phone" if phone is not None and phone.strip() else "smsConsent"
        if field == "smsConsent" and not customer_phone:
            raise ValidationError.for_field(
                "smsConsent", "true needs a phone: send phone, or store one on the customer"
            )
        mobile = us_mobile_number(phone if field == "phone" else customer_phone, "phone")
        return ConsentState(True, mobile, source, at)
    sent: str | None = None
    if phone is not None and phone.strip():
        parsed = _parse(phone.strip())
        sent = e164(parsed) if parsed else phone.strip()[:PHONE_INPUT_MAX]
    return ConsentState(False, sent or current.phone or customer_phone, source, at)


def after_phone_change(
    current: ConsentState, new_phone: str | None, source: ConsentSource, at: datetime
) -> ConsentState | None:
    """Consent for the old number ends when the customer's number changes (``None``: no
    change to record)."""
    if not current.consent or same_number(current.phone, new_phone):
        return None
    return ConsentState(False, current.phone, source, at)


# --- keywords (used by messaging) ------------------------------------------------------------


class Keyword(StrEnum):
    STOP = "STOP"
    START = "START"
    HELP = "HELP"


STOP_WORDS = frozenset(
    {"STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT", "OPTOUT", "REVOKE"}
)
START_WORDS = frozenset({"START", "UNSTOP", "YES"})
HELP_WORDS = frozenset({"HELP", "INFO"})


def keyword_of(text: str) -> Keyword | None:
    """The keyword a whole inbound message is, if any: trimmed, any letter case, trailing
    punctuation ignored (``"Stop."`` is STOP; ``"please stop"`` is not a keyword)."""
    word = text.strip().rstrip(".!?").strip().upper()
    if word in STOP_WORDS:
        return Keyword.STOP
    if word in START_WORDS:
        return Keyword.START
    if word in HELP_WORDS:
        return Keyword.HELP
    return None


@attrs.frozen
class SmsLine:
    """What payhub knows about texting one customer at one number."""

    consent: ConsentState
    blocked: bool = False  # replied STOP and not yet START


@attrs.frozen
class KeywordOutcome:
    line: SmsLine
    consent_changed: bool  # a consent record (source Keyword) must be appended
    reply: Keyword | None  # which confirmation text to send back, if any


def apply_keyword(line: SmsLine, keyword: Keyword, from_phone: str, at: datetime) -> KeywordOutcome:
    """The effect of an inbound keyword from ``from_phone``.

    STOP blocks the number and withdraws consent (if it was given for that number); START
    only lifts the block; HELP changes nothing. Each is answered with its confirmation.
    """
    if keyword is Keyword.STOP:
        withdraw = line.consent.consent and same_number(line.consent.phone, from_phone)
        consent = (
            ConsentState(False, line.consent.phone, ConsentSource.KEYWORD, at)
            if withdraw
            else line.consent
        )
        return KeywordOutcome(SmsLine(consent, blocked=True), withdraw, Keyword.STOP)
    if keyword is Keyword.START:
        return KeywordOutcome(SmsLine(line.consent, blocked=False), False, Keyword.START)
    return KeywordOutcome(line, False, Keyword.HELP)


def may_text(line: SmsLine, to_phone: str) -> bool:
    """Texts go only to a consenting, unblocked customer, at the number consented for.
    (Whether the merchant has switched the text kind on, and quiet hours, are checked apart.)"""
    return line.consent.consent and not line.blocked and same_number(line.consent.phone, to_phone)
