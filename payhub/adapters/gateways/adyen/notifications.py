"""Adyen's standard webhooks (notifications): checked and read into payhub's terms.

References relied on:

- The request: ``{"live": "true"|"false", "notificationItems": [{"NotificationRequestItem":
  {...}}]}``; each item has ``eventCode``, ``success`` (the strings ``"true"``/``"false"``),
  ``pspReference`` (for a modification: the modification's own), ``originalReference`` (the
  payment's, for modifications), ``merchantAccountCode``, ``merchantReference``,
  ``amount {currency, value}`` in minor units, ``reason``, ``additionalData`` (string map):
  https://docs.adyen.com/development-resources/webhooks/webhook-types and the
  ``NotificationRequestItem`` model of Adyen's own libraries (the tests read the Node
  library's).
- Signatures: each item carries ``additionalData.hmacSignature``, base64 of HMAC-SHA256 with
  the hex-decoded key over ``pspReference:originalReference:merchantAccountCode:
  merchantReference:value:currency:eventCode:success`` (a missing field is empty):
  https://docs.adyen.com/development-resources/webhooks/secure-webhooks/verify-hmac-signatures
- Basic authentication (optional, set in the Customer Area beside the URL) and the answer
  Adyen expects (HTTP 200 with ``[accepted]``; anything else is retried):
  https://docs.adyen.com/development-resources/webhooks/secure-webhooks,
  https://docs.adyen.com/development-resources/webhooks (accept webhooks)
- Event codes and what ``success`` means for each (``CAPTURE_FAILED`` and ``REFUND_FAILED``
  come with ``success: true``: the failure is the event):
  https://docs.adyen.com/development-resources/webhooks/webhook-types,
  https://docs.adyen.com/online-payments/capture#failed-capture,
  https://docs.adyen.com/online-payments/refund#refund-failed

Credentials (sealed with the account's others, never returned): ``hmacKey`` (the hex key the
Customer Area generates for the webhook; without it every item is ignored, since nothing can be
verified), optionally ``notificationUsername`` and ``notificationPassword`` (both, or basic
authentication is not checked).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from typing import Any

from payhub.adapters.gateways.adyen.amounts import adyen_money
from payhub.adapters.gateways.kit.redaction import redact
from payhub.domain.errors import Unauthenticated, ValidationError
from payhub.domain.payments import EventKind, GatewayCredentials, GatewayNotification

HMAC_FIELD = "hmacSignature"

_MOVES = {
    "AUTHORISATION": frozenset({EventKind.CHARGE}),
    "CAPTURE": frozenset({EventKind.CAPTURE}),
    "CAPTURE_FAILED": frozenset({EventKind.CAPTURE}),
    "REFUND": frozenset({EventKind.REFUND}),
    "REFUND_FAILED": frozenset({EventKind.REFUND}),
    "CANCELLATION": frozenset({EventKind.VOID}),
    "CANCEL_OR_REFUND": frozenset({EventKind.VOID, EventKind.REFUND}),
}
_FAILURES = frozenset({"CAPTURE_FAILED", "REFUND_FAILED"})  # the event is the failure
_ACTIONS = {"cancel": EventKind.VOID, "refund": EventKind.REFUND}  # CANCEL_OR_REFUND's choice


def data_to_sign(item: dict[str, Any]) -> str:
    """What Adyen signs in one ``NotificationRequestItem`` (missing fields are empty)."""
    raw = item.get("amount")
    amount: dict[str, Any] = raw if isinstance(raw, dict) else {}
    parts = (
        item.get("pspReference"),
        item.get("originalReference"),
        item.get("merchantAccountCode"),
        item.get("merchantReference"),
        amount.get("value"),
        amount.get("currency"),
        item.get("eventCode"),
        item.get("success"),
    )
    return ":".join("" if p is None else str(p) for p in parts)


def signature(item: dict[str, Any], hex_key: str) -> str:
    """Base64 HMAC-SHA256 of ``data_to_sign`` with the hex key (ValueError: not hex)."""
    key = binascii.unhexlify(hex_key.strip())
    mac = hmac.new(key, data_to_sign(item).encode(), hashlib.sha256).digest()
    return base64.b64encode(mac).decode()


def signed_by(item: dict[str, Any], hex_key: str) -> bool:
    additional = item.get("additionalData")
    given = additional.get(HMAC_FIELD) if isinstance(additional, dict) else None
    if not isinstance(given, str) or not given:
        return False
    try:
        expected = signature(item, hex_key)
    except (ValueError, binascii.Error):
        return False
    return hmac.compare_digest(expected.encode(), given.encode())


def check_basic_auth(creds: GatewayCredentials, authorization: str | None) -> None:
    """When the account has a notification username and password, the request must carry
    them (``Authorization: Basic``); 401 otherwise."""
    user = creds.fields.get("notificationUsername")
    password = creds.fields.get("notificationPassword")
    if not user or not password:
        return
    expected = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
    if authorization is None or not hmac.compare_digest(
        authorization.strip().encode(), expected.encode()
    ):
        raise Unauthenticated(
            "this Adyen notification address takes the basic authentication set for it"
        )


def read(
    creds: GatewayCredentials, body: bytes, authorization: str | None
) -> list[GatewayNotification]:
    """Every item of the request, each either verified and in payhub's terms or carrying the
    ``problem`` that makes payhub ignore it."""
    check_basic_auth(creds, authorization)
    try:
        document = json.loads(body)
    except ValueError:
        document = None
    items = document.get("notificationItems") if isinstance(document, dict) else None
    if not isinstance(items, list):
        raise ValidationError.for_field(
            "notificationItems", "an Adyen notification carries a list of notificationItems"
        )
    live = document.get("live") if isinstance(document, dict) else None
    return [_item(creds, wrapper, live) for wrapper in items]


def _item(creds: GatewayCredentials, wrapper: object, live: object) -> GatewayNotification:
    item = wrapper.get("NotificationRequestItem") if isinstance(wrapper, dict) else None
    if not isinstance(item, dict):
        return _ignored("", "not a NotificationRequestItem")
    psp = item.get("pspReference")
    psp = psp if isinstance(psp, str) else ""
    key = creds.fields.get("hmacKey", "")
    if not key:
        return _ignored(psp, "no HMAC key is set for this account (additionalFields.hmacKey)")
    if not signed_by(item, key):
        return _ignored(psp, "the HMAC signature does not match")
    if item.get("merchantAccountCode") != creds.fields.get("merchantAccount"):
        return _ignored(psp, "another merchant account")
    if live not in (None, "true" if not creds.sandbox else "false"):
        return _ignored(psp, "a live notification for a test account, or the reverse")
    code = item.get("eventCode")
    moves = _MOVES.get(code) if isinstance(code, str) else None
    if moves is None:
        return _ignored(psp, f"event {str(code)[:40]} is not acted on")
    additional = item.get("additionalData") or {}
    if code == "CANCEL_OR_REFUND" and isinstance(additional, dict):
        action = _ACTIONS.get(str(additional.get("modification.action", "")).lower())
        moves = frozenset({action}) if action else moves
    payment = psp if code == "AUTHORISATION" else item.get("originalReference")
    if not psp or not isinstance(payment, str) or not payment:
        return _ignored(psp, "no pspReference or originalReference")
    success = item.get("success") == "true" and code not in _FAILURES
    reason = item.get("reason")
    return GatewayNotification(
        payment_reference=payment,
        reference=psp,
        moves=moves,
        success=success,
        amount=adyen_money(item.get("amount")),
        message=f"Adyen notification {code} ({'succeeded' if success else 'failed'})"
        + (f": {redact(reason)}" if not success and isinstance(reason, str) and reason else ""),
        support={"event_code": str(code), "psp_reference": psp, "success": str(success).lower()},
    )


def _ignored(psp: str, problem: str) -> GatewayNotification:
    return GatewayNotification(
        payment_reference="", reference=psp[:40], moves=frozenset(), success=False, problem=problem
    )
