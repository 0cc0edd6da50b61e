"""Providers, their keys, their merchants and the merchants' gateway credentials."""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import attrs

from payhub.domain.environments import Environment
from payhub.domain.errors import FieldError, ValidationError
from payhub.domain.fields import normal_text, text_fault
from payhub.domain.keys import KeyKind

EXTERNAL_REFERENCE_MAX = 100
DISPLAY_NAME_MAX = 200
PROVIDER_NAME_MAX = 200
_REFERENCE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._:@-]*$")


@attrs.define
class Provider:
    """A software company integrating once against payhub; lives in one environment."""

    id: str
    name: str
    environment: Environment
    created_at: datetime


@attrs.define
class ApiKey:
    """A key's public record: who it speaks for, never the key itself."""

    id: str
    key_id: str
    provider_id: str
    kind: KeyKind
    environment: Environment
    digest: str = attrs.field(repr=False)
    hint: str
    label: str
    created_at: datetime
    merchant_id: str | None = None
    revoked_at: datetime | None = None

    @property
    def active(self) -> bool:
        return self.revoked_at is None


@attrs.define
class Merchant:
    id: str
    provider_id: str
    external_reference: str
    display_name: str
    created_at: datetime
    time_zone: str | None = None  # IANA name; texting hours and schedules run on it


@attrs.define
class GatewayCredential:
    """A merchant's credentials for one gateway. ``secret_box`` is ciphertext only."""

    merchant_id: str
    gateway: str
    environment: Environment
    enabled: bool
    sealed: bytes = attrs.field(repr=False)
    created_at: datetime
    updated_at: datetime
    # The last segment of the URL the gateway posts its notifications to (gateways that take
    # them: Adyen); opaque, fixed once made, and not a secret (the notifications are signed).
    notification_token: str | None = None


def clean_external_reference(value: str, field: str = "externalReference") -> str:
    """Trimmed; 1 to 100 of letters, digits and ``. _ : @ -``, since it is used in paths."""
    value = value.strip()
    if not value:
        raise ValidationError.for_field(field, "must not be blank")
    if len(value) > EXTERNAL_REFERENCE_MAX:
        raise ValidationError.for_field(
            field, f"must be at most {EXTERNAL_REFERENCE_MAX} characters"
        )
    if not _REFERENCE.match(value):
        raise ValidationError.for_field(
            field,
            "may hold only letters, digits and . _ : @ - and must start with a letter or digit",
        )
    return value


def clean_name(value: str, field: str, limit: int) -> str:
    """A display name: trimmed, NFC, one line under the text rule (``fields.text_fault``)."""
    value = normal_text(value.strip())
    if not value:
        raise ValidationError.for_field(field, "must not be blank")
    if len(value) > limit:
        raise ValidationError.for_field(field, f"must be at most {limit} characters")
    fault = text_fault(value)
    if fault:
        raise ValidationError.for_field(field, fault)
    return value


def validate_new_merchant(external_reference: str, display_name: str) -> tuple[str, str]:
    """Both fields checked together, so one response names every field at fault."""
    errors: list[FieldError] = []
    ref = name = ""
    try:
        ref = clean_external_reference(external_reference)
    except ValidationError as e:
        errors += e.fields
    try:
        name = clean_name(display_name, "displayName", DISPLAY_NAME_MAX)
    except ValidationError as e:
        errors += e.fields
    if errors:
        raise ValidationError("; ".join(f"{e.field}: {e.message}" for e in errors), errors)
    return ref, name


DEFAULT_TIME_ZONE = "UTC"


def check_time_zone(name: str) -> str:
    """An IANA time zone name that the bundled tz database knows, else 400."""
    cleaned = name.strip()
    try:
        if not cleaned or cleaned.startswith("/") or ".." in cleaned:
            raise ValueError(cleaned)
        ZoneInfo(cleaned)
    except (ValueError, ZoneInfoNotFoundError, OSError):
        # OSError: a tz database folder such as "Pacific" or "America" is no zone.
        raise ValidationError.for_field(
            "timeZone", f"'{name}' is not an IANA time zone name such as 'America/Chicago'"
        ) from None
    return cleaned


def zone_of(merchant: Merchant) -> ZoneInfo:
    """The merchant's time zone; UTC until the portal sets one."""
    return ZoneInfo(merchant.time_zone or DEFAULT_TIME_ZONE)
