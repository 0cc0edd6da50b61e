"""API keys: format, parsing and digests.

A key reads ``phk_sandbox_<id>_<secret>`` (provider key) or ``phm_live_<id>_<secret>``
(merchant key): the prefix tells at a glance who holds it and which world it opens,
so a sandbox key pasted into production config is spotted by eye. Only the id and an
HMAC-SHA256 digest of the whole key are stored; the key itself is shown once.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from enum import StrEnum

import attrs

from payhub.domain.environments import Environment

KEY_ID_BYTES = 10
KEY_SECRET_BYTES = 32


class KeyKind(StrEnum):
    PROVIDER = "phk"
    MERCHANT = "phm"


_ENV_TAG = {Environment.SANDBOX: "sandbox", Environment.PRODUCTION: "live"}
_TAG_ENV = {tag: env for env, tag in _ENV_TAG.items()}


def _b32(raw: bytes) -> str:
    return base64.b32encode(raw).decode("ascii").rstrip("=").lower()


@attrs.frozen
class ParsedKey:
    kind: KeyKind
    environment: Environment
    key_id: str
    text: str = attrs.field(repr=False)


def key_prefix(kind: KeyKind, environment: Environment) -> str:
    """The recognisable start of every key of this kind and world, e.g. ``phk_sandbox_``."""
    return f"{kind.value}_{_ENV_TAG[environment]}_"


def compose_key(
    kind: KeyKind, environment: Environment, raw_id: bytes, raw_secret: bytes
) -> ParsedKey:
    """Build a new key from random bytes (passed in to keep this pure)."""
    if len(raw_id) < KEY_ID_BYTES or len(raw_secret) < KEY_SECRET_BYTES:
        raise ValueError("not enough randomness for a key")
    key_id = _b32(raw_id[:KEY_ID_BYTES])
    text = f"{key_prefix(kind, environment)}{key_id}_{_b32(raw_secret[:KEY_SECRET_BYTES])}"
    return ParsedKey(kind, environment, key_id, text)


def parse_key(text: str) -> ParsedKey | None:
    """Split a presented key into its parts; ``None`` when it cannot be a payhub key."""
    parts = text.strip().split("_")
    if len(parts) != 4:
        return None
    kind_tag, env_tag, key_id, secret = parts
    try:
        kind = KeyKind(kind_tag)
    except ValueError:
        return None
    environment = _TAG_ENV.get(env_tag)
    if environment is None or len(key_id) != 16 or len(secret) != 52:
        return None
    return ParsedKey(kind, environment, key_id, text.strip())


def key_digest(pepper: bytes, key_text: str) -> str:
    """HMAC-SHA256 of the key under the server's secret: what the database keeps."""
    return hmac.new(pepper, key_text.encode("utf-8"), hashlib.sha256).hexdigest()


def digests_match(expected: str, presented: str) -> bool:
    """Constant-time comparison, so timing reveals nothing about a stored digest."""
    return hmac.compare_digest(expected.encode("ascii"), presented.encode("ascii"))


def display_hint(parsed: ParsedKey) -> str:
    """What a listing may show: the prefix and the public id, never the secret."""
    return f"{key_prefix(parsed.kind, parsed.environment)}{parsed.key_id}_…"
