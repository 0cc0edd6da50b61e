"""Outbound webhooks: endpoints, Standard Webhooks v1 signatures, the retry schedule. Pure.

Signatures follow Standard Webhooks v1 (https://www.standardwebhooks.com): the signing
secret is ``whsec_`` + base64 of random bytes; the signed content is
``{webhook-id}.{webhook-timestamp}.{body}``; ``webhook-signature`` is ``v1,`` + base64 of
its HMAC-SHA256, one per secret, separated by spaces (two during a rotation's overlap).

Target addresses follow the short-link target rules (``payhub.domain.links``): a public
``https://`` host name, no IP literals, no internal names; they are checked again at delivery
against the address the name resolves to (the sender adapter). Loopback addresses are
accepted only when the operator allows them for tests, and never for production providers.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from collections.abc import Collection, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from enum import StrEnum
from typing import Any
from urllib.parse import urlsplit

import attrs
import msgspec

from payhub.domain.errors import FieldError, ValidationError
from payhub.domain.fields import normal_text, text_fault
from payhub.domain.links import parse_target

SECRET_PREFIX = "whsec_"  # noqa: S105 (the format's prefix, not a secret)
SECRET_BYTES = 32
ALL_EVENTS = "*"
URL_FIELD = "url"
DESCRIPTION_MAX = 500
EVENT_TYPES_MAX = 100
EMAIL_MAX = 254
_EVENT_TYPE = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$")
_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")

# Attempt n (1-based) is made RETRY_SCHEDULE[n - 1] after the previous one failed: at once,
# then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h later (eight attempts over about 27.6 h).
RETRY_SCHEDULE: tuple[timedelta, ...] = (
    timedelta(0),
    timedelta(seconds=5),
    timedelta(minutes=5),
    timedelta(minutes=30),
    timedelta(hours=2),
    timedelta(hours=5),
    timedelta(hours=10),
    timedelta(hours=10),
)
MAX_ATTEMPTS = len(RETRY_SCHEDULE)
RETRY_AFTER_MAX = timedelta(hours=10)  # a receiver's Retry-After is honoured up to this
RETRY_AFTER_MIN = timedelta(seconds=1)  # and from this (``Retry-After: 0`` is no busy loop)
TIMEOUT_S = 15.0
# An endpoint whose deliveries have failed without a single success for this long is
# disabled, and the provider is told.
DISABLE_AFTER = timedelta(days=3)
ROTATION_OVERLAP_DEFAULT = timedelta(hours=24)
ROTATION_OVERLAP_MAX = timedelta(days=7)
LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "[::1]"})


class DeliveryStatus(StrEnum):
    WAITING = "waiting"  # behind an earlier delivery of the same object to the same endpoint
    PENDING = "pending"  # its job is queued or running
    DELIVERED = "delivered"
    FAILED = "failed"  # every attempt failed
    CANCELLED = "cancelled"  # the endpoint was disabled or deleted first

    @property
    def open(self) -> bool:
        return self in (DeliveryStatus.WAITING, DeliveryStatus.PENDING)


@attrs.define
class WebhookEndpoint:
    """Where a provider (or one merchant of it) wants events; the secrets are sealed bytes."""

    id: str
    provider_id: str
    merchant_id: str | None
    url: str
    event_types: tuple[str, ...]
    description: str | None
    alert_email: str | None
    enabled: bool
    secret_sealed: bytes = attrs.field(repr=False)
    created_at: datetime
    updated_at: datetime
    disabled_reason: str | None = None
    previous_secret_sealed: bytes | None = attrs.field(default=None, repr=False)
    previous_secret_expires_at: datetime | None = None
    failing_since: datetime | None = None
    deleted_at: datetime | None = None

    def wants(self, event_type: str, merchant_id: str | None) -> bool:
        """Enabled, subscribed to the type, and (when limited to a merchant) about it."""
        if not self.enabled or self.deleted_at is not None:
            return False
        if self.merchant_id is not None and self.merchant_id != merchant_id:
            return False
        return ALL_EVENTS in self.event_types or event_type in self.event_types

    def previous_secret_live(self, now: datetime) -> bool:
        return (
            self.previous_secret_sealed is not None
            and self.previous_secret_expires_at is not None
            and now < self.previous_secret_expires_at
        )


@attrs.define
class WebhookDelivery:
    """One event on its way to one endpoint. ``body`` is the exact signed JSON."""

    id: str
    endpoint_id: str
    provider_id: str
    merchant_id: str | None
    event_id: str
    event_type: str
    object_id: str
    seq: int  # order among the deliveries of one object to one endpoint
    body: str
    status: DeliveryStatus
    created_at: datetime
    updated_at: datetime
    attempts: int = 0
    job_id: str | None = None
    next_attempt_at: datetime | None = None
    attempt_started_at: datetime | None = None
    last_status_code: int | None = None
    last_error: str | None = None
    finished_at: datetime | None = None


@attrs.frozen
class DeliveryAttempt:
    """One HTTP attempt, as the delivery log shows it: never a body, never a secret."""

    id: str
    delivery_id: str
    endpoint_id: str
    event_id: str
    event_type: str
    attempt: int
    started_at: datetime
    duration_ms: int
    status_code: int | None
    error: str | None
    outcome: str  # delivered, retrying or failed
    next_attempt_at: datetime | None = None


@attrs.frozen
class EventRecord:
    """What webhooks need of a domain event: the internal entry point of delivery."""

    id: str
    type: str
    occurred_at: datetime
    provider_id: str
    merchant_id: str | None
    object_id: str
    data: Mapping[str, Any]


# --- secrets and signatures ----------------------------------------------------------------


def new_secret(raw: bytes) -> str:
    """``whsec_`` + base64 of the random bytes (at least 24)."""
    if len(raw) < 24:
        raise ValueError("a signing secret needs at least 24 random bytes")
    return SECRET_PREFIX + base64.b64encode(raw).decode("ascii")


def _secret_key(secret: str) -> bytes:
    return base64.b64decode(secret.removeprefix(SECRET_PREFIX))


def sign(secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    """One Standard Webhooks v1 signature: ``v1,`` + base64 HMAC-SHA256 of id.timestamp.body."""
    content = f"{msg_id}.{timestamp}.".encode() + body
    digest = hmac.new(_secret_key(secret), content, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode("ascii")


def signed_headers(
    secrets: Sequence[str], msg_id: str, timestamp: int, body: bytes
) -> dict[str, str]:
    """The three Standard Webhooks headers, one signature per secret (newest first)."""
    return {
        "webhook-id": msg_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": " ".join(sign(s, msg_id, timestamp, body) for s in secrets),
        "content-type": "application/json",
    }


_BODY_ENCODER = msgspec.json.Encoder(decimal_format="number")


def event_body(event: EventRecord) -> str:
    """The JSON body: ``{"type", "timestamp", "data"}`` (timestamp ISO 8601, UTC; money as
    exact JSON numbers, as the API writes it)."""
    stamp = event.occurred_at.astimezone(UTC).isoformat().replace("+00:00", "Z")
    body = {"type": event.type, "timestamp": stamp, "data": event.data}
    return _BODY_ENCODER.encode(body).decode()


# --- retries ------------------------------------------------------------------------------


def parse_retry_after(value: str | None, now: datetime) -> timedelta | None:
    """``Retry-After`` as seconds or an HTTP date; ``None`` when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return timedelta(seconds=int(value))
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        return None
    return max(when - now, timedelta(0))


def next_attempt_delay(
    attempts_made: int, status: int | None, retry_after: timedelta | None
) -> timedelta | None:
    """When to try again after ``attempts_made`` failed attempts; ``None``: give up.

    A 429 or 503 with ``Retry-After`` waits what the receiver asked (1 s to 10 h) instead of
    the schedule's next step; it still counts as one of the eight attempts."""
    if attempts_made >= MAX_ATTEMPTS:
        return None
    if status in (429, 503) and retry_after is not None:
        return min(max(retry_after, RETRY_AFTER_MIN), RETRY_AFTER_MAX)
    return RETRY_SCHEDULE[attempts_made]


def delivered(status: int | None) -> bool:
    """Any 2xx counts; redirects are not followed, so a 3xx is a failure."""
    return status is not None and 200 <= status < 300


def should_disable(failing_since: datetime | None, now: datetime) -> bool:
    return failing_since is not None and now - failing_since >= DISABLE_AFTER


# --- input --------------------------------------------------------------------------------


def check_url(url: str, *, allow_loopback: bool = False) -> str:
    """The short-link target rules (public https host name), plus: no fragment. With
    ``allow_loopback`` (tests only, never production) ``http(s)://localhost|127.0.0.1|[::1]``
    with any port is accepted as well."""
    if allow_loopback:
        try:
            parts = urlsplit(url)
            host = parts.hostname or ""
        except ValueError:
            parts, host = None, ""
        if parts is not None and parts.scheme in ("http", "https"):
            netloc_host = parts.netloc.rpartition("@")[2].rsplit(":", 1)[0]
            if (host in LOOPBACK_HOSTS or netloc_host in LOOPBACK_HOSTS) and "@" not in url:
                return url
    try:
        target = parse_target(url)
    except ValidationError as e:
        raise ValidationError.for_field(URL_FIELD, e.fields[0].message) from None
    if "#" in target.url:
        raise ValidationError.for_field(URL_FIELD, "must not have a fragment (#…)")
    return target.url


def is_loopback_url(url: str) -> bool:
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return False
    return host in {"localhost", "127.0.0.1", "::1"}


def check_event_types(types: Sequence[str] | None, known: Collection[str] = ()) -> tuple[str, ...]:
    """``["*"]`` (every event) or distinct dotted names (``invoice.paid``); with ``known``
    given, only those."""
    field = "eventTypes"
    if not types:
        raise ValidationError.for_field(field, 'must list event types, or ["*"] for all')
    if len(types) > EVENT_TYPES_MAX:
        raise ValidationError.for_field(field, f"must list at most {EVENT_TYPES_MAX} types")
    cleaned: list[str] = []
    for given in types:
        t = given.strip()
        if t == ALL_EVENTS:
            if len(types) != 1:
                raise ValidationError.for_field(field, '"*" must be the only entry')
            return (ALL_EVENTS,)
        if not _EVENT_TYPE.match(t):
            raise ValidationError.for_field(
                field, f"'{t}' is not an event type (dotted lower case, like invoice.paid)"
            )
        if known and t not in known:
            raise ValidationError.for_field(field, f"'{t}' is not a known event type")
        if t not in cleaned:
            cleaned.append(t)
    return tuple(cleaned)


def clean_description(value: str | None) -> str | None:
    if value is None:
        return None
    fault = text_fault(value)
    if fault:
        raise ValidationError.for_field("description", fault)
    value = normal_text(value.strip())
    if len(value) > DESCRIPTION_MAX:
        raise ValidationError.for_field(
            "description", f"must be at most {DESCRIPTION_MAX} characters"
        )
    return value or None


def clean_email(value: str | None) -> str | None:
    if value is None or not value.strip():
        return None
    value = value.strip()
    if len(value) > EMAIL_MAX or not _EMAIL.match(value):
        raise ValidationError.for_field("alertEmail", "must be an email address")
    return value


def check_overlap(hours: float | None) -> timedelta:
    if hours is None:
        return ROTATION_OVERLAP_DEFAULT
    max_hours = ROTATION_OVERLAP_MAX.total_seconds() / 3600
    if not 0 <= hours <= max_hours:
        raise ValidationError.for_field(
            "overlapHours", f"must be between 0 and {max_hours:g} hours"
        )
    return timedelta(hours=hours)


def collect(*checks: Any) -> None:
    """Run zero-argument checks, raising one ``ValidationError`` naming every field."""
    errors: list[FieldError] = []
    for check in checks:
        try:
            check()
        except ValidationError as e:
            errors += e.fields
    if errors:
        raise ValidationError("; ".join(f"{e.field}: {e.message}" for e in errors), errors)
