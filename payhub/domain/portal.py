"""The admin portal's people: users, their roles, sessions and one-time links.

A portal user belongs either to one merchant (role ``owner``, ``admin`` or ``staff``) or to
the operator (role ``operator``), and lives in one environment: a merchant user in its
merchant's provider's, an operator user in the one it was created for. A session belongs to
its user's environment, so a sandbox portal and a production portal never mix.

Nothing here stores a secret in clear: session ids, invite and sign-in link tokens and
recovery codes are kept as HMAC-SHA256 digests (keyed by the master key's digest key),
passwords as argon2id hashes (the ``PasswordHasher`` port), TOTP seeds sealed.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from datetime import datetime, timedelta
from enum import StrEnum

import attrs
import pyotp

from payhub.domain.environments import Environment
from payhub.domain.errors import ValidationError

# Sessions: idle for this long, or this old, and they are over.
SESSION_IDLE = timedelta(minutes=30)
SESSION_ABSOLUTE = timedelta(hours=12)
# A password was right but the second factor is still to come: this long to enter it.
SECOND_FACTOR_WINDOW = timedelta(minutes=5)
# last_seen_at is written at most this often (reads stay reads).
TOUCH_EVERY = timedelta(seconds=60)
INVITE_LIFETIME = timedelta(days=3)
SIGN_IN_LINK_LIFETIME = timedelta(minutes=5)

PASSWORD_MIN = 12
PASSWORD_MAX = 256
DISPLAY_NAME_MAX = 100
EMAIL_MAX = 254
RECOVERY_CODES = 10
TOKEN_BYTES = 32
_EMAIL = re.compile(r"^[^@\s]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9-]+)+$")


class PortalRole(StrEnum):
    OWNER = "owner"
    ADMIN = "admin"
    STAFF = "staff"
    OPERATOR = "operator"

    @classmethod
    def parse(cls, value: str, field: str = "role") -> PortalRole:
        for role in cls:
            if value.strip().lower() == role.value:
                return role
        raise ValidationError.for_field(field, "must be one of owner, admin, staff, operator")

    @property
    def is_merchant_role(self) -> bool:
        return self is not PortalRole.OPERATOR


# Who may invite or manage whom (an owner anyone of its merchant, an admin staff only).
_MANAGES = {
    PortalRole.OWNER: frozenset({PortalRole.OWNER, PortalRole.ADMIN, PortalRole.STAFF}),
    PortalRole.ADMIN: frozenset({PortalRole.STAFF}),
    PortalRole.STAFF: frozenset(),
    PortalRole.OPERATOR: frozenset(PortalRole),
}


def may_manage(actor: PortalRole, target: PortalRole) -> bool:
    return target in _MANAGES[actor]


class TokenPurpose(StrEnum):
    INVITE = "invite"  # set a password (and activate the account)
    SIGN_IN = "sign-in"  # a provider's one-time sign-in link (POST M/portal-sessions)


@attrs.define
class PortalUserRecord:
    """A portal user as stored: never the password, only its hash; the TOTP seed sealed."""

    id: str
    email: str
    display_name: str
    role: PortalRole
    environment: Environment
    created_at: datetime
    merchant_id: str | None = None
    provider_id: str | None = None  # the merchant's provider (merchant users)
    password_hash: str | None = attrs.field(default=None, repr=False)
    totp_sealed: bytes | None = attrs.field(default=None, repr=False)
    totp_enabled: bool = False
    totp_last_step: int = 0  # the last time step accepted: a code is good once
    recovery_digests: tuple[str, ...] = attrs.field(default=(), repr=False)
    disabled_at: datetime | None = None
    last_sign_in_at: datetime | None = None

    @property
    def active(self) -> bool:
        return self.disabled_at is None

    @property
    def can_sign_in(self) -> bool:
        return self.active and self.password_hash is not None


@attrs.define
class PortalSessionRecord:
    """A signed-in browser. ``digest`` is the HMAC of the cookie's id, never the id itself.
    ``second_factor_due`` marks a session whose password was right and whose code is not in
    yet: it opens nothing but the code page."""

    digest: str = attrs.field(repr=False)
    user_id: str
    environment: Environment
    created_at: datetime
    last_seen_at: datetime
    expires_at: datetime  # the absolute end
    second_factor_due: bool = False

    def over(self, now: datetime) -> bool:
        idle = SECOND_FACTOR_WINDOW if self.second_factor_due else SESSION_IDLE
        return now >= self.expires_at or now >= self.last_seen_at + idle


@attrs.define
class PortalTokenRecord:
    """A one-time link: an invite or a provider's sign-in link, kept as a digest."""

    digest: str = attrs.field(repr=False)
    purpose: TokenPurpose
    user_id: str
    created_at: datetime
    expires_at: datetime
    used_at: datetime | None = None

    def usable(self, now: datetime) -> bool:
        return self.used_at is None and now < self.expires_at


@attrs.frozen
class PortalUser:
    """The signed-in user as the portal's pages see it."""

    user_id: str
    email: str
    display_name: str
    role: PortalRole
    environment: Environment
    merchant_id: str | None = None
    provider_id: str | None = None
    merchant_reference: str | None = None
    merchant_name: str | None = None
    totp_enabled: bool = False

    @property
    def operator(self) -> bool:
        return self.role is PortalRole.OPERATOR


# --- pure rules -------------------------------------------------------------------------------


def clean_email(value: str, field: str = "email") -> str:
    email = value.strip()
    if len(email) > EMAIL_MAX or not _EMAIL.match(email):
        raise ValidationError.for_field(field, "must be an email address")
    local, _, domain = email.rpartition("@")
    return f"{local}@{domain.lower()}".lower()


def clean_display_name(value: str, field: str = "displayName") -> str:
    name = " ".join(value.split())
    if not name or len(name) > DISPLAY_NAME_MAX:
        raise ValidationError.for_field(field, f"must be 1 to {DISPLAY_NAME_MAX} characters")
    if any(ord(c) < 32 for c in name):
        raise ValidationError.for_field(field, "must not contain control characters")
    return name


def check_password(password: str, email: str, field: str = "password") -> None:
    """At least 12 characters, not the email address (NIST 800-63B: length, no composition)."""
    if len(password) < PASSWORD_MIN:
        raise ValidationError.for_field(field, f"must be at least {PASSWORD_MIN} characters")
    if len(password) > PASSWORD_MAX:
        raise ValidationError.for_field(field, f"must be at most {PASSWORD_MAX} characters")
    if password.strip().lower() == email.lower() or len(set(password)) < 4:
        raise ValidationError.for_field(field, "is too easy to guess")


def token_text(raw: bytes) -> str:
    """A URL-safe token from random bytes."""
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def token_digest(key: bytes, purpose: str, token: str) -> str:
    """What is stored for a session id, a link token or a recovery code."""
    return hmac.new(key, f"portal:{purpose}\n{token}".encode(), hashlib.sha256).hexdigest()


def csrf_token(key: bytes, session_token: str) -> str:
    """The session's form token: derived from its id, so it needs no storage, dies with the
    session and cannot be computed without the master key."""
    mac = hmac.new(key, f"portal:csrf\n{session_token}".encode(), hashlib.sha256).digest()
    return token_text(mac)


def csrf_ok(key: bytes, session_token: str, presented: str | None) -> bool:
    return bool(presented) and hmac.compare_digest(
        csrf_token(key, session_token).encode(), str(presented).encode()
    )


# --- two-factor (TOTP, RFC 6238: 6 digits, 30 seconds, SHA-1 as authenticator apps use) -------


def new_totp_secret(raw: bytes) -> str:
    """A base32 seed from 20 random bytes (160 bits, RFC 4226's recommendation)."""
    return base64.b32encode(raw[:20]).decode("ascii")


def totp_uri(secret: str, email: str, issuer: str = "payhub") -> str:
    return pyotp.TOTP(secret).provisioning_uri(name=email, issuer_name=issuer)


def totp_step(secret: str, code: str, now: datetime, last_step: int) -> int | None:
    """The time step the code belongs to (this one or one either side), if it is right and
    newer than the last one accepted; ``None`` otherwise."""
    code = code.strip().replace(" ", "")
    if not re.fullmatch(r"[0-9]{6}", code):
        return None
    totp = pyotp.TOTP(secret)
    current = totp.timecode(now)
    for step in (current, current - 1, current + 1):
        if step <= last_step:
            continue
        if hmac.compare_digest(totp.generate_otp(step).encode(), code.encode()):
            return step
    return None


def recovery_code(raw: bytes) -> str:
    """``xxxx-xxxx-xxxx`` from 8 random bytes (base32, easy to type)."""
    text = base64.b32encode(raw[:8]).decode("ascii").rstrip("=").lower()[:12]
    return f"{text[:4]}-{text[4:8]}-{text[8:12]}"


def normal_recovery_code(code: str) -> str:
    text = re.sub(r"[^a-z2-7]", "", code.strip().lower())
    return f"{text[:4]}-{text[4:8]}-{text[8:12]}" if len(text) == 12 else ""
