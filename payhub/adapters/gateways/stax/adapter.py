"""Stax (formerly Fattmerchant), spoken through its REST API at ``apiprod.fattlabs.com``.

References relied on (docs.staxpayments.com, api-docs.staxpayments.com and Stax's published
OpenAPI; Hyperswitch's Stax connector for the transaction fields it reads):

- Charge a payment method (``POST /charge``: ``payment_method_id``, ``total`` in dollars and
  cents, ``pre_auth``, ``meta`` required, optional ``idempotency_id``); the transaction object
  (``id``, ``type`` charge/pre_auth, ``success``, ``message``, ``total``, ``is_captured``,
  ``child_captures``, ``child_transactions``, ``total_refunded``, ``is_voided``,
  ``payment_method``): https://docs.staxpayments.com/reference/charge-a-payment-method
- Idempotency (``idempotency_id`` on ``POST /charge``: a repeat returns the original transaction,
  the same id with other parameters is an error): https://api-docs.staxpayments.com/docs/idempotency
- Capture (``POST /transaction/{id}/capture`` with ``total``; the capture is a child in
  ``child_captures``), void (``POST /transaction/{id}/void``, whole amount, before settlement),
  refund (``POST /transaction/{id}/refund`` with ``total``, after settlement; refunds are
  ``child_transactions``), ``POST /transaction/{id}/void-or-refund`` and ``GET
  /transaction/{id}``: https://docs.staxpayments.com/reference/capture-a-pre-auth-transaction,
  https://docs.staxpayments.com/reference/refund-transaction,
  https://docs.staxpayments.com/reference/void-transaction
- Payment methods (``GET /payment-method/{id}``: ``customer_id``, ``method``, ``card_type``,
  ``card_last_four``, ``card_exp`` MMYYYY, ``deleted_at``, ``purged_at``); Stax.js tokenizes a
  card into such a payment method: https://docs.staxpayments.com/reference/retrieve-a-payment-method,
  https://docs.staxpayments.com/docs/staxjs
- Errors (422 field-keyed message arrays, e.g. ``payment_method_id``: "Payment method is
  invalid or unauthorized."; decline messages in ``message`` with ``success: false``):
  https://docs.staxpayments.com/docs/payment-decline-codes,
  https://docs.staxpayments.com/docs/test-environments

Choices a reader must know:

- One host for sandbox and live: a sandbox API key is bound to a test gateway, so
  ``creds.sandbox`` cannot pick a host and sandbox-ness rests on the key's account.
- payhub's key travels as ``idempotency_id`` (hashed when longer than 255 characters), so a
  retried charge returns the original transaction; no expiry of ids is documented, so no lookup.
  Captures, voids and refunds have no idempotency field: payhub's ledger reserves them first.
- A Stax.js token is already a stored payment method: fresh and saved charges both send it as
  ``payment_method_id``; saving adopts it and its ``customer_id``.
- A charge's reference is its transaction id. Captures live in ``child_captures``; a refund of a
  captured pre-auth goes to the capture. A full refund goes through ``void-or-refund`` (Stax
  voids it while unsettled); a partial one through ``refund``, which Stax allows only after
  settlement.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

import httpx

from payhub.adapters.gateways.kit import declines
from payhub.adapters.gateways.kit.answers import credentials_rejected, json_value, require_text
from payhub.adapters.gateways.kit.answers import unexpected as _kit_unexpected
from payhub.adapters.gateways.kit.http import Answer as _Answer
from payhub.adapters.gateways.kit.http import GatewayHttp, json_body
from payhub.adapters.gateways.kit.http import path_segment as _path
from payhub.adapters.gateways.kit.redaction import redact
from payhub.domain.errors import ValidationError
from payhub.domain.money import Money
from payhub.domain.payments import (
    ChargeRequest,
    Declined,
    GatewayCredentials,
    GatewayCredentialsRejected,
    GatewayError,
    GatewayResult,
    GatewayStatus,
    GatewayUnavailable,
    MethodType,
    PaymentMethodInvalid,
    SavedMethod,
    SaveMethodRequest,
)

GATEWAY = "stax"
BASE_URL = "https://apiprod.fattlabs.com"
CURRENCY = "USD"
_ID_MAX = 255
_NOTE_MAX = 255
# Stax's own decline texts beside the shared words (kit/declines.py).
_DECLINE_WORDS: declines.Words = (
    (("EXPIR",), "expired_card"),
    (("HOLD-CALL",), "fraudulent"),
    (("ERROR OCCURRED DURING PROCESSING", "GATEWAY UNREACHABLE"), "processing_error"),
)


class StaxGateway:
    """The ``Gateway`` port for Stax's API, cards only in payhub."""

    name = GATEWAY

    def __init__(self, client: httpx.Client | None = None) -> None:
        self.http = GatewayHttp(GATEWAY, client)

    # --- the port ----------------------------------------------------------------------

    def charge(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult:
        source = request.source
        if source.method_type is not MethodType.CARD:
            raise ValueError("Stax takes card payments only in payhub")
        method = source.token if source.token is not None else source.saved_method_ref
        assert method is not None
        meta: dict[str, Any] = {"tax": 0}
        if request.description:
            meta["payment_note"] = request.description[:_NOTE_MAX]
        body = {
            "payment_method_id": method,
            "total": stax_amount(request.amount),
            "pre_auth": not request.capture,
            "meta": meta,
            "idempotency_id": stax_idempotency_id(request.idempotency_key),
        }
        answer = self._send(creds, "POST", "/charge", body, secret=method)
        return _approved_or_raise(_transaction_result(answer))

    def capture(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        answer = self._send(
            creds,
            "POST",
            f"/transaction/{_path(reference)}/capture",
            {"total": stax_amount(amount)},
        )
        auth = _approved_or_raise(_transaction_result(answer))
        captures = _children(answer.body, "child_captures", "capture")
        if not captures:
            raise _unexpected()
        capture = captures[-1]
        return GatewayResult(
            reference=require_text(capture, "id", GATEWAY),
            status=GatewayStatus.CAPTURED,
            amount=_money(capture.get("total")),
            support={**auth.support, "authorization": reference},
        )

    def refund(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        """Refund the sale or the capture of a pre-auth; a full refund may become a void."""
        original = self._send(creds, "GET", f"/transaction/{_path(reference)}").body
        if not isinstance(original, dict):
            raise _unexpected()
        target = original
        if original.get("type") == "pre_auth":
            captures = _children(original, "child_captures", "capture")
            if not captures:
                raise GatewayError(
                    "Stax has no capture of this pre-authorization to refund", gateway=GATEWAY
                )
            target = captures[-1]
        target_id = require_text(target, "id", GATEWAY)
        left = _dollars(target.get("total")) - _dollars(target.get("total_refunded") or 0)
        full = _dollars(stax_amount(amount)) >= left and not target.get("total_refunded")
        path = f"/transaction/{_path(target_id)}/" + ("void-or-refund" if full else "refund")
        answer = self._send(creds, "POST", path, None if full else {"total": stax_amount(amount)})
        txn = answer.body
        if not isinstance(txn, dict):
            raise _unexpected()
        if txn.get("success") is False:
            raise _declined(_opt_str(txn.get("message")), ())
        refunds = [c for c in _children(txn, "child_transactions", "refund") if c.get("success")]
        if full and txn.get("is_voided") is True:
            return GatewayResult(
                reference=target_id,
                status=GatewayStatus.REFUNDED,
                amount=amount,
                message="voided before settlement",
                support=answer.support(stax_action="void", charge=reference),
            )
        if not refunds:
            raise GatewayError("Stax did not record the refund", gateway=GATEWAY)
        newest = max(refunds, key=lambda c: str(c.get("created_at", "")))
        return GatewayResult(
            reference=require_text(newest, "id", GATEWAY),
            status=GatewayStatus.REFUNDED,
            amount=_money(newest.get("total")),
            support=answer.support(stax_action="refund", charge=reference),
        )

    def void(
        self, creds: GatewayCredentials, reference: str, idempotency_key: str
    ) -> GatewayResult:
        answer = self._send(creds, "POST", f"/transaction/{_path(reference)}/void", None)
        result = _approved_or_raise(_transaction_result(answer))
        if result.status is not GatewayStatus.VOIDED:
            raise GatewayError("Stax did not void the pre-authorization", gateway=GATEWAY)
        return result

    def status(self, creds: GatewayCredentials, reference: str) -> GatewayResult:
        return _transaction_result(self._send(creds, "GET", f"/transaction/{_path(reference)}"))

    def save_payment_method(
        self, creds: GatewayCredentials, request: SaveMethodRequest
    ) -> SavedMethod:
        """Adopt the payment method Stax.js created (it already belongs to a Stax customer)."""
        if request.method_type is not MethodType.CARD:
            raise ValueError("Stax saves cards only in payhub")
        token = request.token
        answer = self._send(creds, "GET", f"/payment-method/{_path(token)}", secret=token)
        method = answer.body
        if not isinstance(method, dict):
            raise _unexpected()
        if method.get("deleted_at") or method.get("purged_at") or method.get("method") != "card":
            raise PaymentMethodInvalid(
                "Stax cannot use this payment method (deleted, redacted or not a card); collect"
                " the card again with Stax.js",
                gateway=GATEWAY,
            )
        customer = _opt_str(method.get("customer_id"))
        if customer is None:
            raise _unexpected()
        month, year = _expiry(method.get("card_exp"))
        brand = _opt_str(method.get("card_type"))
        return SavedMethod(
            gateway_customer_ref=customer,
            method_ref=require_text(method, "id", GATEWAY),
            method_type=MethodType.CARD,
            brand=brand.lower() if brand else None,
            last4=_opt_str(method.get("card_last_four")),
            exp_month=month,
            exp_year=year,
        )

    # --- transport -----------------------------------------------------------------------

    def _send(
        self,
        creds: GatewayCredentials,
        method: str,
        path: str,
        body: Mapping[str, Any] | None = None,
        *,
        secret: str | None = None,
    ) -> _Answer:
        if not creds.api_secret.strip():
            raise GatewayCredentialsRejected("the Stax API key is empty", gateway=GATEWAY)
        headers = {"Authorization": f"Bearer {creds.api_secret}", "Accept": "application/json"}
        kwargs: dict[str, Any] = {"headers": headers}
        if method == "POST":
            headers["Content-Type"] = "application/json"
            kwargs["content"] = json_body(dict(body or {}))
        response = self.http.send(method, BASE_URL + path, credentials_errors=False, **kwargs)
        parsed = json_value(response.content)
        code = response.status_code
        hide = (creds.api_secret, secret)
        if code in (401, 403):
            raise credentials_rejected(
                GATEWAY, what="API key", gateway_message=redact(_errors_text(parsed), hide)
            )
        if code == 429:
            raise GatewayUnavailable(
                "Stax asked us to slow down; try again shortly",
                gateway=GATEWAY,
                gateway_message=redact(_errors_text(parsed), hide),
            )
        if code >= 400:
            raise _error_from(code, parsed, hide)
        if parsed is None:
            raise _unexpected()
        return _Answer(parsed, code)


# --- amounts and keys ------------------------------------------------------------------------


def stax_amount(money: Money) -> Decimal:
    """Dollars and cents: Stax charges in USD only."""
    if money.currency != CURRENCY:
        raise ValidationError.for_field("amount.currency", "Stax takes USD payments only")
    return money.amount


def stax_idempotency_id(key: str) -> str:
    """payhub's key as Stax's ``idempotency_id`` (at most 255 characters)."""
    if len(key) <= _ID_MAX:
        return key
    return "payhub-" + hashlib.sha256(key.encode()).hexdigest()


# --- answers ---------------------------------------------------------------------------------


def _transaction_result(answer: _Answer) -> GatewayResult:
    """A Stax transaction (charge or pre_auth) as payhub's status, with its follow-ups folded in."""
    txn = answer.body
    if not isinstance(txn, dict):
        raise _unexpected()
    kind = _opt_str(txn.get("type")) or ""
    total = _dollars(txn.get("total"))
    refunded = _dollars(txn.get("total_refunded") or 0)
    captured = bool(txn.get("is_captured"))
    decline_code = message = None
    amount = total
    if txn.get("success") is not True:
        status = GatewayStatus.DECLINED
        message = redact(_opt_str(txn.get("message")), ())
        decline_code = normalise_decline(message)
    elif kind == "pre_auth" and not captured:
        status = GatewayStatus.VOIDED if txn.get("is_voided") else GatewayStatus.AUTHORIZED
    else:
        if kind == "pre_auth":
            captures = _children(txn, "child_captures", "capture")
            amount = sum((_dollars(c.get("total")) for c in captures), Decimal(0)) or total
            refunded += sum((_dollars(c.get("total_refunded") or 0) for c in captures), Decimal(0))
            voided = any(c.get("is_voided") is True for c in captures)
        else:
            voided = txn.get("is_voided") is True
        status = (
            GatewayStatus.REFUNDED
            if voided or (refunded > 0 and refunded >= amount)
            else GatewayStatus.CAPTURED
        )
    return GatewayResult(
        reference=require_text(txn, "id", GATEWAY),
        status=status,
        amount=_money(amount),
        decline_code=decline_code,
        message=message,
        support=answer.support(
            stax_type=kind or None,
            auth_code=_opt_str(txn.get("issuer_auth_code")),
            refunded=str(refunded) if refunded else None,
        ),
    )


def _approved_or_raise(result: GatewayResult) -> GatewayResult:
    if result.status is GatewayStatus.DECLINED:
        raise Declined(
            f"Stax declined the payment ({result.decline_code})",
            gateway=GATEWAY,
            decline_code=result.decline_code,
            gateway_message=result.message,
        )
    return result


def _children(txn: Mapping[str, Any], field: str, kind: str) -> list[dict[str, Any]]:
    children = txn.get(field)
    if not isinstance(children, list):
        return []
    return [c for c in children if isinstance(c, dict) and c.get("type") == kind]


def normalise_decline(text: str | None) -> str:
    """Stax's decline message ("Insufficient Funds", "CVV does not match.") as a payhub code."""
    return declines.decline_code(text=text, extra_words=_DECLINE_WORDS)


def _declined(text: str | None, hide: Sequence[str | None]) -> Declined:
    code = normalise_decline(text)
    return Declined(
        f"Stax declined the payment ({code})",
        gateway=GATEWAY,
        decline_code=code,
        gateway_message=redact(text, hide),
    )


def _error_from(code: int, body: Any, hide: Sequence[str | None]) -> GatewayError:
    """Map Stax's failures: a failed transaction, or a field-keyed 422 of message arrays."""
    if isinstance(body, dict) and body.get("success") is False and "id" in body:
        return _declined(_opt_str(body.get("message")), hide)
    text = _errors_text(body) or ""
    common: dict[str, Any] = {"gateway": GATEWAY, "gateway_message": redact(text, hide)}
    if isinstance(body, dict) and "payment_method_id" in body:
        return PaymentMethodInvalid(
            "Stax cannot use this payment method (unknown, deleted or redacted); collect the"
            " card again with Stax.js",
            **common,
        )
    if isinstance(body, dict) and "idempotency_id" in body:
        return GatewayError(
            "Stax refused the idempotency id: it was used for a different request", **common
        )
    if code == 404:
        return GatewayError("Stax has no object with that reference", **common)
    return GatewayError(f"Stax refused the request (HTTP {code})", **common)


def _errors_text(body: Any) -> str | None:
    """Stax's message(s), whatever shape: a message, a field map of lists, or a list."""
    if isinstance(body, str):
        return body
    if isinstance(body, list):
        return "; ".join(str(e) for e in body if isinstance(e, str)) or None
    if isinstance(body, dict):
        if isinstance(body.get("message"), str):
            return str(body["message"])
        parts: list[str] = []
        for key, value in body.items():
            texts = value if isinstance(value, list) else [value]
            parts.extend(f"{key}: {t}" for t in texts if isinstance(t, str))
        return "; ".join(parts) or None
    return None


def _unexpected() -> GatewayError:
    return _kit_unexpected(GATEWAY)


def _dollars(value: object) -> Decimal:
    if isinstance(value, bool):
        raise _unexpected()
    if isinstance(value, Decimal | int):
        return Decimal(value)
    if isinstance(value, str):
        try:
            return Decimal(value)
        except ArithmeticError:
            pass
    raise _unexpected()


def _money(value: object) -> Money:
    try:
        return Money.of(_dollars(value), CURRENCY)
    except ValidationError:
        raise _unexpected() from None


def _opt_str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _expiry(value: object) -> tuple[int | None, int | None]:
    """``card_exp`` is MMYYYY."""
    if isinstance(value, str) and len(value) == 6 and value.isdigit():
        month, year = int(value[:2]), int(value[2:])
        if 1 <= month <= 12:
            return month, year
    return None, None
