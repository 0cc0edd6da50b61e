"""The one redaction policy for gateway texts.

A gateway's own words (a decline reason, an error description) are worth showing to the
merchant and to support staff, but gateways echo what they were sent: the merchant's key, the
card token, sometimes card digits. Every text an adapter puts in ``gateway_message``,
``GatewayResult.message`` or a ``support`` value passes through ``redact`` first, which

- drops control characters and folds whitespace to single spaces,
- replaces each value the adapter names as hidden (its secret, the token it sent) and each
  match of the id shapes it names (``ids``: Stripe's ``pm_…``, PayPal's order ids, …),
- replaces every card-like digit run (12 or more digits, single spaces or dashes allowed
  between them) and every token-looking word (12 or more of ``[A-Za-z0-9_-]`` mixing letters
  and digits, or any such word of 32 or more),
- and keeps at most ``MAX_TEXT`` characters.

Ids the gateway assigns (its request id, a transaction reference) are not texts: adapters
put them in ``support`` as they are, bounded by ``bounded_id``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from re import Pattern
from typing import Any

MAX_TEXT = 200
MAX_ID = 100
REDACTED = "[redacted]"
_MIN_HIDDEN = 4  # shorter values would blank ordinary words

CARD_LIKE = re.compile(r"\d(?:[ -]?\d){11,}")
_WORD = re.compile(r"[A-Za-z0-9_\-]{12,}")
_SPACE = re.compile(r"\s+")


def is_token_like(word: str) -> bool:
    """A run of ``[A-Za-z0-9_-]`` that reads as a key, token or opaque id."""
    if len(word) < 12:
        return False
    if len(word) >= 32:
        return True
    return any(c.isdigit() for c in word) and any(c.isalpha() for c in word)


def redact(
    text: object, hide: Iterable[str | None] = (), ids: Iterable[Pattern[str]] = ()
) -> str | None:
    """A gateway's text made safe to show, or None when there is no text.

    ``ids``: the shapes of the gateway's own object ids, blanked even when they are too short
    or too plain to look like tokens (Stripe's ``pm_card_visa``)."""
    if not isinstance(text, str):
        return None
    cleaned = "".join(c if c.isprintable() else " " for c in text)
    cleaned = _SPACE.sub(" ", cleaned).strip()
    hidden = {v for v in hide if v and len(v.strip()) >= _MIN_HIDDEN}
    hidden |= {_SPACE.sub(" ", v).strip() for v in hidden}
    for value in sorted(hidden, key=len, reverse=True):
        cleaned = cleaned.replace(value, REDACTED)
    for shape in ids:
        cleaned = shape.sub(REDACTED, cleaned)
    cleaned = CARD_LIKE.sub(REDACTED, cleaned)
    cleaned = _WORD.sub(lambda m: REDACTED if is_token_like(m.group()) else m.group(), cleaned)
    if len(cleaned) > MAX_TEXT:
        cleaned = cleaned[: MAX_TEXT - 1].rstrip() + "…"
    return cleaned or None


def bounded_id(value: object) -> str | None:
    """A gateway-assigned id for ``support``: a printable string of at most ``MAX_ID``."""
    if isinstance(value, bool) or not isinstance(value, str | int):
        return None
    text = "".join(c for c in str(value) if c.isprintable()).strip()
    return text[:MAX_ID] or None


def hide_values(text: str, hide: Iterable[str | None]) -> str:
    """``text`` (a whole answer kept in memory, not shown) with the named values replaced.

    For answers that carry ids payhub needs (which ``redact`` would blank) but may echo
    the merchant's secret or the token sent; any part of it shown later still goes through
    ``redact``.
    """
    for value in sorted({v for v in hide if v and len(v) >= _MIN_HIDDEN}, key=len, reverse=True):
        text = text.replace(value, REDACTED)
    return text


def hide_in(value: Any, hide: Iterable[str | None]) -> Any:
    """``hide_values`` through a parsed JSON answer (strings at any depth)."""
    hidden = [v for v in hide if v]
    if isinstance(value, str):
        return hide_values(value, hidden)
    if isinstance(value, dict):
        return {k: hide_in(v, hidden) for k, v in value.items()}
    if isinstance(value, list):
        return [hide_in(v, hidden) for v in value]
    return value
