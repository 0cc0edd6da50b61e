"""Twilio's request signature (``X-Twilio-Signature``), as its public reference defines it.

The signature is base64(HMAC-SHA1(auth token, URL + each POST parameter's name and value,
parameters sorted by name, then by value)). The URL is the full public URL Twilio called,
query string included, so payhub rebuilds it from its configured public URL rather than
from the ``Host`` header a proxy may have changed.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Sequence


def twilio_signature(url: str, params: Sequence[tuple[str, str]], auth_token: str) -> str:
    by_name: dict[str, set[str]] = {}
    for name, value in params:
        by_name.setdefault(name, set()).add(value)
    payload = url + "".join(
        name + value for name in sorted(by_name) for value in sorted(by_name[name])
    )
    digest = hmac.new(auth_token.encode(), payload.encode(), hashlib.sha1).digest()
    return base64.b64encode(digest).decode()


def valid_twilio_signature(
    url: str, params: Sequence[tuple[str, str]], signature: str | None, auth_token: str | None
) -> bool:
    """Constant-time check; no token or no signature is never valid."""
    if not auth_token or not signature:
        return False
    expected = twilio_signature(url, params, auth_token)
    return hmac.compare_digest(expected.encode(), signature.strip().encode())
