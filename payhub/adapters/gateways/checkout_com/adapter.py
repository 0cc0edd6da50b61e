"""Checkout.com, through its unified Payments API: payments, actions, customers, instruments.

References relied on:

- Hosts (``api.sandbox.checkout.com`` / ``api.checkout.com``), ``Authorization: Bearer`` with a
  secret key (``sk_sbox_`` in the sandbox): https://api-reference.checkout.com/#section/Authentication
- ``POST /payments`` (``source`` ``{type: token}`` from Frames or ``{type: id}`` for an
  instrument, ``amount`` in minor units, ``currency``, ``capture``, ``reference``,
  ``processing_channel_id``, ``payment_type``, ``merchant_initiated``; answers ``id``,
  ``approved``, ``status``, ``response_code``, ``response_summary``, ``source`` card details):
  https://api-reference.checkout.com/#operation/requestAPaymentOrPayout
- ``GET /payments/{id}`` (``status``: Pending, Authorized, Card Verified, Voided, Partially
  Captured, Captured, Partially Refunded, Refunded, Declined, Canceled, Expired):
  https://api-reference.checkout.com/#operation/getPaymentDetails
- ``/payments/{id}/captures``, ``/refunds``, ``/voids`` (202 with ``action_id``):
  https://api-reference.checkout.com/#tag/Payments
- Customers and instruments (``POST /customers``, ``POST /instruments`` ``{type: token}``):
  https://api-reference.checkout.com/#tag/Instruments, https://api-reference.checkout.com/#tag/Customers
- Idempotency (``Cko-Idempotency-Key``): https://www.checkout.com/docs/developer-resources/api/idempotency
- Response codes (10000 approved; 20xxx soft declines; 30xxx hard declines; 4xxxx risk):
  https://www.checkout.com/docs/developer-resources/codes/api-response-codes
- Errors (422 ``{request_id, error_type, error_codes[]}``, 401 without body):
  https://api-reference.checkout.com/#section/Errors

Choices: the secret key's prefix must match the account's mode (``sk_sbox_``/``sk_test_`` only
in a sandbox); ``processingChannelId`` (required on current accounts) is sent when set;
payhub's key (hashed beyond 64 characters) is the ``Cko-Idempotency-Key`` of every POST and the
payment's ``reference``; saved cards are charged as merchant-initiated ``Unscheduled`` payments.
Checkout.com works asynchronously, and the adapter says so (issue 14): a ``capture: true``
payment is answered ``Authorized`` and captured later, so that sale comes back ``authorized``
with ``capture_pending`` in its note (payhub records a *pending capture*, not an authorization);
captures, refunds and voids are answered 202, "accepted", and come back ``pending``. ``status``
reads the payment and its ``balances`` (``total_captured``, ``total_refunded``), which is what
settles a pending move. Request bodies are checked in the tests against checkout-sdk's request
classes and enums (tests/gateways/checkout_com/contract).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from decimal import Decimal
from typing import Any
from urllib.parse import quote

import attrs
import httpx

from payhub.adapters.gateways.kit import declines
from payhub.adapters.gateways.kit.answers import (
    credentials_rejected,
    json_object,
    require_text,
    unexpected,
)
from payhub.adapters.gateways.kit.http import GatewayHttp
from payhub.adapters.gateways.kit.redaction import redact
from payhub.domain.errors import ValidationError
from payhub.domain.money import Money, minor_unit_exponent
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

GATEWAY = "checkout-com"
SANDBOX_BASE = "https://api.sandbox.checkout.com"
LIVE_BASE = "https://api.checkout.com"

# response_code: a 2xxxx (soft) or 3xxxx (hard) decline ends in the issuer's ISO 8583 code,
# read by the kit's one table; Checkout.com's own codes beside it:
_CODES = {
    "20063": "fraudulent",  # Security violation
}
_METHOD_ERRORS = frozenset(
    {
        "token_invalid",
        "token_expired",
        "token_used",
        "source_invalid",
        "instrument_not_found",
        "source_id_invalid",
        "card_expired",
    }
)
_STATUS = {
    "Authorized": GatewayStatus.AUTHORIZED,
    "Card Verified": GatewayStatus.AUTHORIZED,
    "Partially Captured": GatewayStatus.CAPTURED,
    "Captured": GatewayStatus.CAPTURED,
    "Paid": GatewayStatus.CAPTURED,
    "Partially Refunded": GatewayStatus.CAPTURED,
    "Refunded": GatewayStatus.REFUNDED,
    "Voided": GatewayStatus.VOIDED,
    "Canceled": GatewayStatus.VOIDED,
    "Expired": GatewayStatus.VOIDED,
    "Declined": GatewayStatus.DECLINED,
    "Pending": GatewayStatus.PENDING,
}


class CheckoutComGateway:
    """The ``Gateway`` port for Checkout.com (cards through Frames and instruments)."""

    name = GATEWAY

    def __init__(self, client: httpx.Client | None = None) -> None:
        self.http = GatewayHttp(GATEWAY, client)

    def charge(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult:
        source = request.source
        if source.method_type is not MethodType.CARD:
            raise ValueError("Checkout.com takes only cards in payhub")
        body: dict[str, Any] = {
            **cko_amount(request.amount),
            "capture": request.capture,
            "reference": _key(request.idempotency_key),
        }
        if request.description:
            body["description"] = request.description[:100]
        if source.token is not None:
            body["source"] = {"type": "token", "token": source.token}
            body["payment_type"] = "Regular"
        else:
            body["source"] = {"type": "id", "id": source.saved_method_ref}
            body["payment_type"] = "Unscheduled"
            body["merchant_initiated"] = True
            if source.gateway_customer_ref:
                body["customer"] = {"id": source.gateway_customer_ref}
        code, payment, request_id = self._send(
            creds, "POST", "/payments", body, request.idempotency_key, method=True
        )
        result = _payment_result(payment, request_id, code, request.amount)
        if request.capture and result.status is GatewayStatus.AUTHORIZED:
            # Checkout.com captures ``capture: true`` payments asynchronously: accepted, not done.
            result = attrs.evolve(result, support={**result.support, "capture": "pending"})
        if result.status is GatewayStatus.DECLINED:
            raise Declined(
                f"Checkout.com declined the payment ({result.decline_code})",
                gateway=GATEWAY,
                decline_code=result.decline_code,
                gateway_message=result.message,
                gateway_request_id=request_id,
            )
        if code == 202 and result.status is GatewayStatus.PENDING:
            raise Declined(
                "Checkout.com asks for 3-D Secure authentication that payhub cannot run",
                gateway=GATEWAY,
                decline_code="generic_decline",
                gateway_request_id=request_id,
            )
        return result

    def capture(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        return self._action(creds, reference, "captures", amount, idempotency_key)

    def refund(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        return self._action(creds, reference, "refunds", amount, idempotency_key)

    def void(
        self, creds: GatewayCredentials, reference: str, idempotency_key: str
    ) -> GatewayResult:
        return self._action(creds, reference, "voids", None, idempotency_key)

    def status(self, creds: GatewayCredentials, reference: str) -> GatewayResult:
        code, payment, request_id = self._send(
            creds, "GET", f"/payments/{quote(reference, safe='')}", None, None
        )
        return _payment_result(payment, request_id, code, None)

    def save_payment_method(
        self, creds: GatewayCredentials, request: SaveMethodRequest
    ) -> SavedMethod:
        if request.method_type is not MethodType.CARD:
            raise ValueError("Checkout.com saves only cards in payhub")
        base = request.idempotency_key or hashlib.sha256(request.token.encode()).hexdigest()[:40]
        customer = request.gateway_customer_ref
        if customer is None:
            body: dict[str, Any] = {"metadata": {"payhub_customer_id": request.customer_id}}
            body["email"] = request.email or f"{request.customer_id}@customers.payhub.invalid"
            if request.name:
                body["name"] = request.name
            _, made, _ = self._send(creds, "POST", "/customers", body, f"{base}-customer")
            customer = require_text(made, "id", GATEWAY)
        _, instrument, _ = self._send(
            creds,
            "POST",
            "/instruments",
            {"type": "token", "token": request.token, "customer": {"id": customer}},
            f"{base}-instrument",
            method=True,
        )
        return SavedMethod(
            gateway_customer_ref=customer,
            method_ref=require_text(instrument, "id", GATEWAY),
            method_type=MethodType.CARD,
            brand=_opt(instrument.get("scheme")),
            last4=_opt(instrument.get("last4")),
            exp_month=_int(instrument.get("expiry_month")),
            exp_year=_int(instrument.get("expiry_year")),
        )

    # --- helpers -------------------------------------------------------------------------

    def _action(
        self,
        creds: GatewayCredentials,
        reference: str,
        kind: str,
        amount: Money | None,
        idempotency_key: str,
    ) -> GatewayResult:
        """A capture, refund or void: Checkout.com answers 202, accepted and finished later,
        so the result is ``pending`` until a status read shows it done."""
        body: dict[str, Any] = {"reference": _key(idempotency_key)}
        if amount is not None:
            body["amount"] = cko_amount(amount)["amount"]
        _, answer, request_id = self._send(
            creds, "POST", f"/payments/{quote(reference, safe='')}/{kind}", body, idempotency_key
        )
        note = {"action_id": _opt(answer.get("action_id")) or "", "request_id": request_id or ""}
        return GatewayResult(
            reference=reference,
            status=GatewayStatus.PENDING,
            amount=amount or Money.zero("USD"),
            message=f"Checkout.com accepted the {kind[:-1]}; it finishes it asynchronously",
            support={k: v for k, v in note.items() if v},
        )

    def _send(
        self,
        creds: GatewayCredentials,
        http_method: str,
        path: str,
        body: dict[str, Any] | None,
        idempotency_key: str | None,
        *,
        method: bool = False,
    ) -> tuple[int, dict[str, Any], str | None]:
        _check_mode(creds)
        headers = {"Authorization": f"Bearer {creds.api_secret}", "Accept": "application/json"}
        kwargs: dict[str, Any] = {"headers": headers}
        if body is not None:
            channel = creds.fields.get("processingChannelId", "").strip()
            if channel and path == "/payments":
                body = {**body, "processing_channel_id": channel}
            headers["Content-Type"] = "application/json"
            kwargs["content"] = json.dumps(body).encode()
        if idempotency_key is not None:
            headers["Cko-Idempotency-Key"] = _key(idempotency_key)
        base = SANDBOX_BASE if creds.sandbox else LIVE_BASE
        response = self.http.send(http_method, base + path, credentials_errors=False, **kwargs)
        request_id = response.headers.get("cko-request-id")
        action = path.rsplit("/", 1)[-1] if path.startswith("/payments/") else ""
        if response.status_code == 403 and action in ("captures", "refunds", "voids"):
            raise GatewayError(
                f"Checkout.com does not allow this {action[:-1]} in the payment's current state",
                gateway=GATEWAY,
                gateway_request_id=request_id,
            )
        if response.status_code in (401, 403):
            raise credentials_rejected(GATEWAY, what="secret key", request_id=request_id)
        parsed = json_object(response.content, GATEWAY, request_id) if response.content else {}
        if response.status_code >= 400:
            raise _error_from(response.status_code, parsed, request_id, method)
        return response.status_code, parsed, request_id


def cko_amount(money: Money) -> dict[str, Any]:
    """``amount`` in minor units (ISO 4217 exponents) and ``currency``."""
    scaled = money.amount.scaleb(minor_unit_exponent(money.currency))
    if scaled != scaled.to_integral_value():
        raise ValidationError.for_field("amount", f"{money.currency} has no such minor unit")
    return {"amount": int(scaled), "currency": money.currency}


def normalise_response_code(code: object) -> str:
    if not isinstance(code, str):
        return declines.GENERIC
    if code in _CODES:
        return _CODES[code]
    issuer = code[3:] if len(code) == 5 and code[0] in "23" else None
    return declines.decline_code(issuer)


def _payment_result(
    payment: Mapping[str, Any], request_id: str | None, http_status: int, asked: Money | None
) -> GatewayResult:
    status = _opt(payment.get("status")) or "Pending"
    mapped = _STATUS.get(status, GatewayStatus.PENDING)
    if payment.get("approved") is False:
        mapped = GatewayStatus.DECLINED
    currency = _opt(payment.get("currency"))
    units = payment.get("amount")
    amount = asked
    if currency and isinstance(units, int):
        amount = Money.of(Decimal(units).scaleb(-minor_unit_exponent(currency)), currency)
    balances = payment.get("balances")
    captured = refunded = None
    if isinstance(balances, dict) and currency:
        captured = _units(balances.get("total_captured"), currency)
        refunded = _units(balances.get("total_refunded"), currency)
        if mapped is GatewayStatus.CAPTURED and captured is not None and captured.amount > 0:
            amount = captured
    if amount is None:
        raise unexpected(GATEWAY, request_id)
    code = _opt(payment.get("response_code"))
    decline = normalise_response_code(code) if mapped is GatewayStatus.DECLINED else None
    support = {"http_status": str(http_status), "cko_status": status}
    if request_id:
        support["request_id"] = request_id
    if code:
        support["response_code"] = code
    return GatewayResult(
        reference=require_text(payment, "id", GATEWAY),
        status=mapped,
        amount=amount,
        decline_code=decline,
        message=redact(payment.get("response_summary")) if decline else None,
        support=support,
        captured=captured,
        refunded=refunded,
    )


def _units(value: object, currency: str) -> Money | None:
    if not isinstance(value, int) or isinstance(value, bool):
        return None
    return Money.of(Decimal(value).scaleb(-minor_unit_exponent(currency)), currency)


def _error_from(
    status_code: int, body: Mapping[str, Any], request_id: str | None, method: bool
) -> GatewayError:
    raw = body.get("error_codes")
    codes = [c for c in raw if isinstance(c, str)] if isinstance(raw, list) else []
    common: dict[str, Any] = {
        "gateway": GATEWAY,
        "gateway_message": redact(", ".join(codes)),
        "gateway_request_id": request_id,
    }
    if status_code == 429:
        return GatewayUnavailable("Checkout.com asked us to slow down; try again shortly", **common)
    if status_code == 409:
        return GatewayUnavailable(
            "Checkout.com is still processing a request with the same idempotency key", **common
        )
    if method and (set(codes) & _METHOD_ERRORS or status_code == 404):
        return PaymentMethodInvalid(
            "Checkout.com cannot use this payment method (invalid, expired or used); collect it"
            " again",
            **common,
        )
    if status_code == 404:
        return GatewayError("Checkout.com has no payment with that reference", **common)
    label = codes[0] if codes else str(body.get("error_type") or status_code)
    return GatewayError(f"Checkout.com refused the request ({label})", **common)


def _check_mode(creds: GatewayCredentials) -> None:
    secret = creds.api_secret
    test = secret.startswith(("sk_sbox_", "sk_test_"))
    if not secret.startswith("sk_"):
        raise GatewayCredentialsRejected(
            "the Checkout.com credential is not a secret key (sk_…)", gateway=GATEWAY
        )
    if test != creds.sandbox:
        raise GatewayCredentialsRejected(
            "a sandbox Checkout.com key in a live account"
            if test
            else "a live Checkout.com key in a sandbox account",
            gateway=GATEWAY,
        )


def _key(key: str) -> str:
    return key if len(key) <= 64 else hashlib.sha256(key.encode()).hexdigest()


def _opt(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
