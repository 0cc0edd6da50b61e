"""Twilio's request signature (``X-Twilio-Signature``), as its public reference defines it.

The signature is base64(HMAC-SHA1(auth token, URL + each POST parameter's name and value,
parameters sorted by name, a repeated name's values sorted)). The URL is the full public URL
Twilio called, query string included, so payhub rebuilds it from its configured public URL
rather than from the ``Host`` header a proxy may have changed. Twilio does not always sign
the URL the same way about the port (``https://host/...`` or ``https://host:443/...``), so,
like Twilio's own validator (twilio-python ``RequestValidator.validate``), a signature over
the URL with or without its port is accepted.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Sequence
from urllib.parse import urlsplit


def twilio_signature(url: str, params: Sequence[tuple[str, str]], auth_token: str) -> str:
    by_name: dict[str, list[str]] = {}
    for name, value in params:
        by_name.setdefault(name, []).append(value)
    payload = url + "".join(
        name + value for name in sorted(by_name) for value in sorted(by_name[name])
    )
    digest = hmac.new(auth_token.encode(), payload.encode(), hashlib.sha1).digest()
    return base64.b64encode(digest).decode()


def url_variants(url: str) -> list[str]:
    """The URL as given, without its port and with the scheme's default port."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if parts.port is not None:
        bare = parts._replace(netloc=parts.netloc.rsplit(":", 1)[0]).geturl()
        return [url, bare]
    default = 443 if parts.scheme == "https" else 80
    with_port = parts._replace(netloc=f"{parts.netloc}:{default}").geturl() if host else url
    return [url, with_port]


def valid_twilio_signature(
    url: str, params: Sequence[tuple[str, str]], signature: str | None, auth_token: str | None
) -> bool:
    """Constant-time check; no token or no signature is never valid."""
    if not auth_token or not signature:
        return False
    given = signature.strip().encode()
    matches = [
        hmac.compare_digest(twilio_signature(candidate, params, auth_token).encode(), given)
        for candidate in url_variants(url)
    ]
    return any(matches)
