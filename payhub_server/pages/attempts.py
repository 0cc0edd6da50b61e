"""Signed, short-lived attempt tokens: the pay page's defence against forgery and replay.

The page embeds one token per form. A post must carry it; the server checks its HMAC (a key
derived from the hub's digest key, so nothing new to configure or store), that it was made
for *this* pay link and *this* form, and that it has not expired. A forged cross-site post
cannot carry a valid token (it cannot read the page), and a token lifted from one invoice's
page is useless on another's.

Replay is handled by meaning, not by a used-token table: a payment token's ``attempt_id``
(its random nonce) is the idempotency key of the payment, so a double click, a resent request
or a replayed post gets the outcome of the first one and never charges twice. After a
decline the server hands out a fresh token for the next try.

Format: ``<purpose>.<nonce>.<expires>.<mac>`` with ``nonce`` 16 random bytes and ``mac``
HMAC-SHA256 over purpose, pay token, nonce and expiry, both base64url without padding.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from datetime import datetime, timedelta
from enum import StrEnum

import attrs

from payhub.domain.errors import Forbidden

LIFETIME = timedelta(hours=2)
_KEY_LABEL = b"payhub/pay-page/attempt-token/v1"
_NONCE_BYTES = 16


class Purpose(StrEnum):
    PAY = "pay"
    SMS = "sms"


class AttemptRefused(Forbidden):
    """The post did not carry a valid attempt token for this page (403)."""

    code = "forbidden"
    title = "This form has expired"


@attrs.frozen
class Attempt:
    """A verified token: ``attempt_id`` is what the payment is keyed on."""

    purpose: Purpose
    nonce: str
    expires_at: int

    @property
    def attempt_id(self) -> str:
        return f"ppa_{self.nonce}"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def derive_key(digest_key: bytes) -> bytes:
    """A key for attempt tokens only, so a token MAC can never stand in for another digest."""
    return hmac.new(digest_key, _KEY_LABEL, hashlib.sha256).digest()


def _mac(key: bytes, purpose: str, pay_token: str, nonce: str, expires: int) -> str:
    message = f"{purpose}|{pay_token}|{nonce}|{expires}".encode()
    return _b64(hmac.new(key, message, hashlib.sha256).digest())


def issue(key: bytes, purpose: Purpose, pay_token: str, nonce: bytes, now: datetime) -> str:
    """A token for one form on one pay page; ``nonce`` comes from the hub's randomness."""
    if len(nonce) < _NONCE_BYTES:
        raise ValueError("an attempt token needs at least 16 random bytes")
    text = _b64(nonce[:_NONCE_BYTES])
    expires = int((now + LIFETIME).timestamp())
    return f"{purpose.value}.{text}.{expires}.{_mac(key, purpose.value, pay_token, text, expires)}"


def verify(key: bytes, purpose: Purpose, pay_token: str, token: object, now: datetime) -> Attempt:
    """The attempt a posted token stands for; ``AttemptRefused`` (403) for anything else."""
    if not isinstance(token, str) or len(token) > 200:
        raise AttemptRefused("the form carried no valid attempt token: reload the page")
    parts = token.split(".")
    if len(parts) != 4 or parts[0] != purpose.value or not parts[2].isdigit():
        raise AttemptRefused("the form carried no valid attempt token: reload the page")
    _, nonce, expires_text, mac = parts
    expires = int(expires_text)
    expected = _mac(key, purpose.value, pay_token, nonce, expires)
    if not hmac.compare_digest(expected.encode(), mac.encode()):
        raise AttemptRefused("the form carried no valid attempt token: reload the page")
    if now.timestamp() >= expires:
        raise AttemptRefused("this page has been open too long: reload it to continue")
    return Attempt(purpose=purpose, nonce=nonce, expires_at=expires)


# --- amount-bound sessions ---------------------------------------------------------------
# ``POST /pay/{token}/session`` makes the gateway's session for the amount the payer chose and
# answers a checkout token binding that amount to the vendor's session id:
# ``chk.<payload>.<expires>.<mac>``, payload = base64url("<amount>\n<reference>"), the MAC over
# purpose, pay token, payload and expiry under the attempt key. The payment post hands it back;
# the server then charges only that amount with only that session's token.

_CHECKOUT = "chk"
_MAX_CHECKOUT = 1200


@attrs.frozen
class Checkout:
    """A verified checkout token: the amount (plain decimal text) and the vendor's session."""

    amount: str
    reference: str


def issue_checkout(key: bytes, pay_token: str, amount: str, reference: str, now: datetime) -> str:
    payload = _b64(f"{amount}\n{reference}".encode())
    expires = int((now + LIFETIME).timestamp())
    return f"{_CHECKOUT}.{payload}.{expires}.{_mac(key, _CHECKOUT, pay_token, payload, expires)}"


def verify_checkout(key: bytes, pay_token: str, token: object, now: datetime) -> Checkout:
    """The session a posted checkout token stands for; ``AttemptRefused`` (403) otherwise."""
    refused = AttemptRefused("the payment carried no valid checkout token: start it again")
    if not isinstance(token, str) or len(token) > _MAX_CHECKOUT:
        raise refused
    parts = token.split(".")
    if len(parts) != 4 or parts[0] != _CHECKOUT or not parts[2].isdigit():
        raise refused
    _, payload, expires_text, mac = parts
    expires = int(expires_text)
    expected = _mac(key, _CHECKOUT, pay_token, payload, expires)
    if not hmac.compare_digest(expected.encode(), mac.encode()):
        raise refused
    if now.timestamp() >= expires:
        raise AttemptRefused("this page has been open too long: reload it to continue")
    text = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)).decode()
    amount, _, reference = text.partition("\n")
    return Checkout(amount=amount, reference=reference)
