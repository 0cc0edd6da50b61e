"""Opaque, prefixed, random identifiers (``mer_…``, ``cus_…``).

The prefix tells a reader what kind of object an id names; the body is 128 random
bits in lower-case base32, so ids are unguessable and safe in URLs. The randomness
is passed in, which keeps this module pure.
"""

from __future__ import annotations

import base64
import re

ID_BYTES = 16
_BODY = re.compile(r"^[a-z2-7]{26}$")


def format_id(prefix: str, raw: bytes) -> str:
    """Render ``raw`` (at least 16 random bytes) as ``prefix_body``."""
    if len(raw) < ID_BYTES:
        raise ValueError("an id needs at least 128 random bits")
    body = base64.b32encode(raw[:ID_BYTES]).decode("ascii").rstrip("=").lower()
    return f"{prefix}_{body}"


def looks_like(prefix: str, value: str) -> bool:
    """True when ``value`` has the shape of an id of that kind (it may still not exist)."""
    head, sep, body = value.partition("_")
    return sep == "_" and head == prefix and bool(_BODY.match(body))
