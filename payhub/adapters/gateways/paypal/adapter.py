"""PayPal, through its REST APIs: Orders v2, Payments v2 and Payment Method Tokens (Vault) v3.

References relied on:

- OAuth 2.0 client credentials (``POST /v1/oauth2/token``, Basic client_id:secret,
  ``grant_type=client_credentials``, ``expires_in``): https://developer.paypal.com/api/rest/authentication/
- Orders v2 (create, show, update/PATCH, authorize, capture; ``PayPal-Request-Id``,
  ``Prefer: return=representation``; PATCH works on CREATED or APPROVED orders, ``intent`` and
  ``purchase_units[].amount`` replaceable): https://developer.paypal.com/docs/api/orders/v2/,
  https://developer.paypal.com/sdk/orders/v2/orders-patch
- Payments v2 (capture an authorization with ``final_capture``, void, refund a capture):
  https://developer.paypal.com/docs/api/payments/v2/
- Vault v3 (``POST /v3/vault/payment-tokens`` from a ``SETUP_TOKEN``; card ``brand``,
  ``last_digits``, ``expiry`` YYYY-MM): https://developer.paypal.com/api/payment-tokens/v3/
- Idempotency (``PayPal-Request-Id``, replayed answer): https://developer.paypal.com/api/rest/reference/idempotency/
- Errors (``name``/``message``/``debug_id``/``details[].issue``) and processor response codes
  (``processor_response.response_code``): https://developer.paypal.com/api/rest/responses/,
  https://developer.paypal.com/docs/api/orders/v2/#errors
- Sandbox card rejection triggers (``CCREJECT-*`` as the name on card):
  https://developer.paypal.com/tools/sandbox/card-testing/
- Currencies without decimals (HUF, JPY, TWD): https://developer.paypal.com/api/rest/reference/currency-codes/

Choices a reader must know:

- Credentials: ``clientId`` (additional field) and the client secret (``apiSecret``). An access
  token is fetched per client and cached until shortly before ``expires_in``; a 401 on a cached
  token drops it and fetches a new one once.
- Hosts: ``api-m.sandbox.paypal.com`` when ``creds.sandbox``, else ``api-m.paypal.com``.
- A fresh card is the id of an order that PayPal's JS SDK Card Fields created and the payer
  confirmed (the page's ``createOrder``/``onApprove``). The adapter reads the order, sets its
  ``intent`` and amount to payhub's with a PATCH (so the browser never decides what is charged),
  then authorizes or captures it. An order already COMPLETED under payhub's key (its
  ``custom_id``) is the lost answer of an earlier attempt and is returned as is; one completed
  by anything else is a used token.
- A saved card is charged by creating an order with ``payment_source.card.vault_id`` and a
  merchant-initiated ``stored_credential``: PayPal processes it in that one call.
- Saving takes the id of a setup token approved through Card Fields' vault flow and exchanges
  it for a payment token (the saved method); PayPal makes the customer when there is none.
- payhub's reference is the order id; capture, void and refund read the order to find the
  authorization or capture they act on.
- Every POST carries ``PayPal-Request-Id`` (payhub's key, plus a step suffix for multi-call
  operations), so a retry after a lost answer is replayed by PayPal instead of repeated.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

import attrs
import httpx

from payhub.adapters.gateways.kit import declines
from payhub.adapters.gateways.kit.answers import json_value, require_text, unexpected
from payhub.adapters.gateways.kit.http import GatewayHttp
from payhub.adapters.gateways.kit.http import path_segment as _path
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
from payhub.ports import CheckoutRequest, PayPageCheckout

GATEWAY = "paypal"
SANDBOX_BASE = "https://api-m.sandbox.paypal.com"
LIVE_BASE = "https://api-m.paypal.com"

_NO_DECIMALS = frozenset({"HUF", "JPY", "TWD"})  # PayPal's own list
_TOKEN_MARGIN_SECONDS = 60.0

# processor_response.response_code -> payhub's decline codes (an overlay on kit/declines.py).
_PROCESSOR_CODES = {
    "5120": "insufficient_funds",
    "5400": "expired_card",
    "5110": "incorrect_cvc",
    "00N7": "incorrect_cvc",
    "9500": "fraudulent",
    "9520": "fraudulent",
    "0800": "processing_error",
    "5100": "generic_decline",
    "0500": "generic_decline",
    "1330": "generic_decline",
}
# details[].issue of a 422 that means the card was refused.
_DECLINE_ISSUES = {
    "INSTRUMENT_DECLINED": "generic_decline",
    "TRANSACTION_REFUSED": "generic_decline",
    "CARD_EXPIRED": "expired_card",
    "CARD_CLOSED": "generic_decline",
    "PAYER_CANNOT_PAY": "generic_decline",
    "CVV_CHECK_FAILED": "incorrect_cvc",
    "MAX_NUMBER_OF_PAYMENT_ATTEMPTS_EXCEEDED": "generic_decline",
}
# Issues meaning "this order or setup token cannot be used (again)".
_METHOD_ISSUES = frozenset(
    {
        "ORDER_NOT_APPROVED",
        "ORDER_ALREADY_CAPTURED",
        "ORDER_ALREADY_AUTHORIZED",
        "ORDER_ALREADY_COMPLETED",
        "ORDER_EXPIRED",
        "ORDER_COMPLETED_OR_VOIDED",
        "INVALID_RESOURCE_ID",
        "TOKEN_NOT_FOUND",
        "TOKEN_EXPIRED",
        "TOKEN_ALREADY_USED",
        "SETUP_TOKEN_NOT_APPROVED",
        "CARD_NOT_FOUND",
        "PAYMENT_SOURCE_INFO_CANNOT_BE_VERIFIED",
        "PAYMENT_SOURCE_DECLINED_BY_PROCESSOR",
    }
)
# PayPal's ids (orders, captures, tokens): blanked in any text it sends back (kit redaction).
_ID_LIKE = re.compile(r"\b[A-Z0-9]{10,24}\b")


@attrs.frozen
class _Answer:
    body: dict[str, Any]
    status_code: int
    debug_id: str | None

    def support(self, **extra: str | None) -> dict[str, str]:
        note = {"http_status": str(self.status_code)}
        if self.debug_id:
            note["debug_id"] = self.debug_id
        note.update({k: v for k, v in extra.items() if v})
        return note


class PayPalGateway:
    """The ``Gateway`` port for PayPal (cards through Card Fields and the Vault)."""

    name = GATEWAY

    def __init__(
        self, client: httpx.Client | None = None, *, now: Callable[[], float] = time.monotonic
    ) -> None:
        self.http = GatewayHttp(GATEWAY, client)
        self._now = now
        self._tokens: dict[str, tuple[str, float]] = {}

    # --- the port ----------------------------------------------------------------------

    def charge(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult:
        if request.source.method_type is not MethodType.CARD:
            raise ValueError("PayPal takes only cards in payhub")
        intent = "CAPTURE" if request.capture else "AUTHORIZE"
        amount = paypal_amount(request.amount)
        custom_id = _custom_id(request.idempotency_key)
        if request.source.saved_method_ref is not None:
            body: dict[str, Any] = {
                "intent": intent,
                "purchase_units": [
                    {
                        "amount": amount,
                        "custom_id": custom_id,
                        **(
                            {"description": request.description[:127]}
                            if request.description
                            else {}
                        ),
                    }
                ],
                "payment_source": {
                    "card": {
                        "vault_id": request.source.saved_method_ref,
                        "stored_credential": {
                            "payment_initiator": "MERCHANT",
                            "payment_type": "UNSCHEDULED",
                            "usage": "SUBSEQUENT",
                        },
                    }
                },
            }
            answer = self._send(
                creds, "POST", "/v2/checkout/orders", body, request.idempotency_key, method=True
            )
            return _charged(answer)
        token = request.source.token
        assert token is not None
        order_path = f"/v2/checkout/orders/{_path(token)}"
        found = self._send(creds, "GET", order_path, None, None, method=True)
        status = require_text(found.body, "status", GATEWAY)
        unit = _unit(found.body)
        if status == "COMPLETED":
            if unit.get("custom_id") == custom_id:  # our own charge, whose answer was lost
                return _charged(found, replayed=True)
            raise _used_order(found.debug_id)
        if status not in ("CREATED", "APPROVED", "SAVED"):
            raise _used_order(found.debug_id)
        reference_id = unit.get("reference_id") or "default"
        pointer = f"/purchase_units/@reference_id=='{reference_id}'"
        patch = [
            {"op": "replace", "path": "/intent", "value": intent},
            {"op": "replace", "path": f"{pointer}/amount", "value": amount},
            {"op": "add", "path": f"{pointer}/custom_id", "value": custom_id},
        ]
        self._send(creds, "PATCH", order_path, patch, None, method=True)
        action = "capture" if request.capture else "authorize"
        answer = self._send(
            creds, "POST", f"{order_path}/{action}", {}, request.idempotency_key, method=True
        )
        return _charged(answer)

    def capture(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        order = self._order(creds, reference)
        auth = _authorization(order)
        answer = self._send(
            creds,
            "POST",
            f"/v2/payments/authorizations/{_path(require_text(auth, 'id', GATEWAY))}/capture",
            {"amount": paypal_amount(amount), "final_capture": True},
            idempotency_key,
        )
        capture = answer.body
        status = require_text(capture, "status", GATEWAY)
        if status in ("DECLINED", "FAILED"):
            raise _declined(capture, answer.debug_id)
        return GatewayResult(
            reference=reference,
            status=GatewayStatus.CAPTURED if status != "PENDING" else GatewayStatus.PENDING,
            amount=_money(capture.get("amount")) or amount,
            support=answer.support(paypal_status=status, capture_id=_opt_str(capture.get("id"))),
        )

    def refund(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        order = self._order(creds, reference)
        captures = [
            c
            for c in _payments(order).get("captures") or []
            if isinstance(c, dict) and c.get("status") in ("COMPLETED", "PARTIALLY_REFUNDED")
        ]
        if not captures:
            raise GatewayError(
                "PayPal has no captured payment to refund on this order", gateway=GATEWAY
            )
        answer = self._send(
            creds,
            "POST",
            f"/v2/payments/captures/{_path(require_text(captures[0], 'id', GATEWAY))}/refund",
            {"amount": paypal_amount(amount)},
            idempotency_key,
        )
        refund = answer.body
        status = require_text(refund, "status", GATEWAY)
        mapped = {"COMPLETED": GatewayStatus.REFUNDED, "PENDING": GatewayStatus.PENDING}.get(
            status, GatewayStatus.DECLINED
        )
        return GatewayResult(
            reference=require_text(refund, "id", GATEWAY),
            status=mapped,
            amount=_money(refund.get("amount")) or amount,
            message=f"refund {status.lower()}",
            support=answer.support(paypal_status=status, order=reference),
        )

    def void(
        self, creds: GatewayCredentials, reference: str, idempotency_key: str
    ) -> GatewayResult:
        order = self._order(creds, reference)
        auth = _authorization(order)
        answer = self._send(
            creds,
            "POST",
            f"/v2/payments/authorizations/{_path(require_text(auth, 'id', GATEWAY))}/void",
            None,
            idempotency_key,
        )
        return GatewayResult(
            reference=reference,
            status=GatewayStatus.VOIDED,
            amount=_money(auth.get("amount")) or _order_amount(order),
            support=answer.support(paypal_status="VOIDED"),
        )

    def status(self, creds: GatewayCredentials, reference: str) -> GatewayResult:
        answer = self._send(creds, "GET", f"/v2/checkout/orders/{_path(reference)}", None, None)
        return order_result(answer.body, answer.support())

    # --- the pay page's amount-bound session (MakesPayPageCheckouts) -------------------------

    def pay_page_checkout(
        self, creds: GatewayCredentials, request: CheckoutRequest
    ) -> PayPageCheckout:
        """Card Fields' ``createOrder`` (or ``createVaultSetupToken`` on the approval page).

        With an amount: ``POST /v2/checkout/orders`` for exactly that amount, ``intent``
        CAPTURE or AUTHORIZE as the invoice says; the page hands the order to Card Fields, which
        confirms the card on it, and pays with its id (``charge`` then reads it, sets the same
        amount and completes it). Without one: ``POST /v3/vault/setup-tokens`` with an empty
        card source, which Card Fields fills and approves; ``save_payment_method`` exchanges
        it. Only the id reaches the page (``orderId`` / ``vaultSetupToken``)."""
        if request.amount is None:
            body: dict[str, Any] = {"payment_source": {"card": {}}}
            answer = self._send(
                creds, "POST", "/v3/vault/setup-tokens", body, request.idempotency_key
            )
            token = require_text(answer.body, "id", GATEWAY)
            return PayPageCheckout(reference=token, public={"vaultSetupToken": token})
        unit: dict[str, Any] = {"amount": paypal_amount(request.amount)}
        if request.description:
            unit["description"] = request.description[:127]
        order = {"intent": "CAPTURE" if request.capture else "AUTHORIZE", "purchase_units": [unit]}
        answer = self._send(creds, "POST", "/v2/checkout/orders", order, request.idempotency_key)
        order_id = require_text(answer.body, "id", GATEWAY)
        return PayPageCheckout(reference=order_id, public={"orderId": order_id})

    def checkout_reference(self, payment_token: str) -> str | None:
        """The page pays with the id of the order its session made: the token is the order."""
        return payment_token.strip() or None

    def save_payment_method(
        self, creds: GatewayCredentials, request: SaveMethodRequest
    ) -> SavedMethod:
        if request.method_type is not MethodType.CARD:
            raise ValueError("PayPal saves only cards in payhub")
        body: dict[str, Any] = {
            "payment_source": {"token": {"id": request.token, "type": "SETUP_TOKEN"}}
        }
        if request.gateway_customer_ref is not None:
            body["customer"] = {"id": request.gateway_customer_ref}
        key = request.idempotency_key or f"save-{request.customer_id}-{_digest(request.token)}"
        answer = self._send(creds, "POST", "/v3/vault/payment-tokens", body, key, method=True)
        token = answer.body
        customer = token.get("customer")
        customer_id = customer.get("id") if isinstance(customer, dict) else None
        source = token.get("payment_source")
        card = source.get("card") if isinstance(source, dict) else None
        details: Mapping[str, Any] = card if isinstance(card, dict) else {}
        exp_year, exp_month = _expiry(details.get("expiry"))
        brand = details.get("brand")
        return SavedMethod(
            gateway_customer_ref=customer_id
            if isinstance(customer_id, str)
            else (request.gateway_customer_ref or ""),
            method_ref=require_text(token, "id", GATEWAY),
            method_type=MethodType.CARD,
            brand=brand.lower() if isinstance(brand, str) else None,
            last4=_opt_str(details.get("last_digits")),
            exp_month=exp_month,
            exp_year=exp_year,
        )

    # --- helpers -------------------------------------------------------------------------

    def _order(self, creds: GatewayCredentials, reference: str) -> dict[str, Any]:
        return self._send(creds, "GET", f"/v2/checkout/orders/{_path(reference)}", None, None).body

    def _access_token(self, creds: GatewayCredentials, base: str, *, fresh: bool) -> str:
        client_id = creds.fields.get("clientId", "").strip()
        if not client_id:
            raise GatewayCredentialsRejected(
                "PayPal needs the REST app's client id: set additionalFields.clientId with"
                " PUT /api/merchant-accounts/{ref}/credentials/paypal",
                gateway=GATEWAY,
            )
        cache_key = _digest(f"{base}\n{client_id}\n{creds.api_secret}")
        cached = self._tokens.get(cache_key)
        if cached is not None and not fresh and cached[1] > self._now():
            return cached[0]
        response = self.http.send(
            "POST",
            base + "/v1/oauth2/token",
            credentials_errors=False,
            auth=(client_id, creds.api_secret),
            data={"grant_type": "client_credentials"},
            headers={"Accept": "application/json"},
        )
        body = _json(response)
        if response.status_code in (400, 401, 403):
            raise GatewayCredentialsRejected(
                "PayPal rejected the merchant's client id or secret; update them with"
                " PUT /api/merchant-accounts/{ref}/credentials/paypal",
                gateway=GATEWAY,
                gateway_request_id=_debug_id(response),
            )
        token = body.get("access_token") if body else None
        expires = body.get("expires_in") if body else None
        if response.status_code != 200 or not isinstance(token, str):
            raise unexpected(GATEWAY, _debug_id(response))
        lifetime = float(expires) if isinstance(expires, int) else 300.0
        self._tokens[cache_key] = (token, self._now() + max(lifetime - _TOKEN_MARGIN_SECONDS, 0.0))
        return token

    def _send(
        self,
        creds: GatewayCredentials,
        http_method: str,
        path: str,
        body: object,
        request_id: str | None,
        *,
        method: bool = False,
    ) -> _Answer:
        """One call. ``method``: a missing or unusable resource is the payer's token."""
        base = SANDBOX_BASE if creds.sandbox else LIVE_BASE
        response: httpx.Response | None = None
        for attempt in range(2):
            token = self._access_token(creds, base, fresh=attempt == 1)
            headers = {
                "Authorization": f"Bearer {token}",
                "Accept": "application/json",
                "Prefer": "return=representation",
            }
            kwargs: dict[str, Any] = {"headers": headers}
            if http_method != "GET":
                headers["Content-Type"] = "application/json"
                kwargs["content"] = b"" if body is None else _dumps(body)
            if request_id is not None:
                headers["PayPal-Request-Id"] = _request_id(request_id)
            response = self.http.send(http_method, base + path, credentials_errors=False, **kwargs)
            if response.status_code != 401:
                break
        assert response is not None
        debug_id = _debug_id(response)
        if response.status_code in (401, 403):
            raise GatewayCredentialsRejected(
                "PayPal refused the merchant's credentials for this call; check the app's"
                " permissions (Advanced Credit and Debit Card Payments, Vault)",
                gateway=GATEWAY,
                gateway_request_id=debug_id,
            )
        parsed = _json(response) if response.content else {}
        if parsed is None:
            raise unexpected(GATEWAY, debug_id)
        if response.status_code >= 400:
            raise _error_from(response.status_code, parsed, debug_id, method)
        return _Answer(parsed, response.status_code, debug_id)


# --- amounts ---------------------------------------------------------------------------------


def _exponent(currency: str) -> int:
    return 0 if currency in _NO_DECIMALS else minor_unit_exponent(currency)


def paypal_amount(money: Money) -> dict[str, str]:
    """PayPal's ``{currency_code, value}``; value a decimal string at PayPal's precision."""
    exponent = _exponent(money.currency)
    quantum = Decimal(1).scaleb(-exponent)
    if money.amount != money.amount.quantize(quantum):
        raise ValidationError.for_field(
            "amount", f"PayPal charges {money.currency} in whole units only"
        )
    return {"currency_code": money.currency, "value": f"{money.amount.quantize(quantum):f}"}


def _money(raw: object) -> Money | None:
    if not isinstance(raw, dict):
        return None
    currency, value = raw.get("currency_code"), raw.get("value")
    if not isinstance(currency, str) or not isinstance(value, str):
        return None
    return Money.of(Decimal(value), currency)


# --- answers ---------------------------------------------------------------------------------


def _unit(order: Mapping[str, Any]) -> dict[str, Any]:
    units = order.get("purchase_units")
    if isinstance(units, list) and units and isinstance(units[0], dict):
        return units[0]
    return {}


def _payments(order: Mapping[str, Any]) -> dict[str, Any]:
    payments = _unit(order).get("payments")
    return payments if isinstance(payments, dict) else {}


def _order_amount(order: Mapping[str, Any]) -> Money:
    money = _money(_unit(order).get("amount"))
    if money is None:
        raise unexpected(GATEWAY, None)
    return money


def _authorization(order: Mapping[str, Any]) -> dict[str, Any]:
    for auth in _payments(order).get("authorizations") or []:
        if isinstance(auth, dict) and auth.get("status") in ("CREATED", "PENDING"):
            return auth
    raise GatewayError(
        "PayPal holds no open authorization on this order (captured, voided or expired)",
        gateway=GATEWAY,
    )


def order_result(order: Mapping[str, Any], support: dict[str, str]) -> GatewayResult:
    """Normalise an order: its latest payment decides."""
    payments = _payments(order)
    captures = [c for c in payments.get("captures") or [] if isinstance(c, dict)]
    auths = [a for a in payments.get("authorizations") or [] if isinstance(a, dict)]
    reference = require_text(order, "id", GATEWAY)
    status = require_text(order, "status", GATEWAY)
    note = {**support, "paypal_status": status}
    amount = _order_amount(order)
    if captures:
        done = [
            c for c in captures if c.get("status") != "DECLINED" and c.get("status") != "FAILED"
        ]
        if not done:
            code, message = _decline_of(captures[-1])
            return GatewayResult(reference, GatewayStatus.DECLINED, amount, code, message, note)
        states = {c.get("status") for c in done}
        captured = sum(
            (_money(c.get("amount")) or amount for c in done), Money.zero(amount.currency)
        )
        if states == {"REFUNDED"}:
            mapped = GatewayStatus.REFUNDED
        elif states & {"COMPLETED", "PARTIALLY_REFUNDED", "REFUNDED"}:
            mapped = GatewayStatus.CAPTURED
        else:
            mapped = GatewayStatus.PENDING
        note["capture_id"] = require_text(done[0], "id", GATEWAY)
        return GatewayResult(reference, mapped, captured, support=note)
    if auths:
        auth = auths[-1]
        auth_status = auth.get("status")
        auth_amount = _money(auth.get("amount")) or amount
        if auth_status in ("DENIED", "DECLINED"):
            code, message = _decline_of(auth)
            return GatewayResult(
                reference, GatewayStatus.DECLINED, auth_amount, code, message, note
            )
        mapped = {
            "CREATED": GatewayStatus.AUTHORIZED,
            "VOIDED": GatewayStatus.VOIDED,
            "EXPIRED": GatewayStatus.VOIDED,
        }.get(str(auth_status), GatewayStatus.PENDING)
        note["authorization_id"] = require_text(auth, "id", GATEWAY)
        return GatewayResult(reference, mapped, auth_amount, support=note)
    mapped = GatewayStatus.VOIDED if status == "VOIDED" else GatewayStatus.PENDING
    return GatewayResult(reference, mapped, amount, support=note)


def _charged(answer: _Answer, *, replayed: bool = False) -> GatewayResult:
    support = answer.support(replayed="true" if replayed else None)
    result = order_result(answer.body, support)
    if result.status is GatewayStatus.DECLINED:
        raise Declined(
            f"PayPal declined the payment ({result.decline_code})",
            gateway=GATEWAY,
            decline_code=result.decline_code,
            gateway_message=result.message,
            gateway_request_id=answer.debug_id,
        )
    return result


def _decline_of(payment: Mapping[str, Any]) -> tuple[str, str | None]:
    raw = payment.get("processor_response")
    processor: Mapping[str, Any] = raw if isinstance(raw, dict) else {}
    code = processor.get("response_code")
    normalised = declines.decline_code(code, overlay=_PROCESSOR_CODES)
    message = f"processor response {code}" if isinstance(code, str) else None
    return normalised, message


def _declined(payment: Mapping[str, Any], debug_id: str | None) -> Declined:
    code, message = _decline_of(payment)
    return Declined(
        f"PayPal declined the payment ({code})",
        gateway=GATEWAY,
        decline_code=code,
        gateway_message=message,
        gateway_request_id=debug_id,
    )


def _used_order(debug_id: str | None) -> PaymentMethodInvalid:
    return PaymentMethodInvalid(
        "PayPal cannot charge this order (already paid, voided or expired); collect the card again",
        gateway=GATEWAY,
        gateway_request_id=debug_id,
    )


def _error_from(
    status_code: int, body: Mapping[str, Any], debug_id: str | None, method: bool
) -> GatewayError:
    name = body.get("name")
    raw = body.get("details")
    details = [d for d in raw if isinstance(d, dict)] if isinstance(raw, list) else []
    issues = [d["issue"] for d in details if isinstance(d.get("issue"), str)]
    message = _redact((details[0].get("description") if details else None) or body.get("message"))
    common: dict[str, Any] = {
        "gateway": GATEWAY,
        "gateway_message": message,
        "gateway_request_id": debug_id,
    }
    if status_code == 429 or name == "RATE_LIMIT_REACHED":
        return GatewayUnavailable("PayPal asked us to slow down; try again shortly", **common)
    for issue in issues:
        if issue in _DECLINE_ISSUES:
            code = _DECLINE_ISSUES[issue]
            return Declined(f"PayPal declined the payment ({code})", decline_code=code, **common)
    if method and (status_code == 404 or any(i in _METHOD_ISSUES for i in issues)):
        return PaymentMethodInvalid(
            "PayPal cannot use this payment method (unknown, expired or used); collect it again",
            **common,
        )
    if status_code == 404:
        return GatewayError("PayPal has no object with that reference", **common)
    if issues and issues[0] == "PERMISSION_DENIED":
        return GatewayCredentialsRejected(
            "PayPal says the merchant's app may not do this", **common
        )
    label = issues[0] if issues else (name if isinstance(name, str) else status_code)
    return GatewayError(f"PayPal refused the request ({label})", **common)


# --- small helpers -----------------------------------------------------------------------------


def _dumps(body: object) -> bytes:
    return json.dumps(body, separators=(",", ":")).encode()


def _json(response: httpx.Response) -> dict[str, Any] | None:
    body = json_value(response.content)
    return body if isinstance(body, dict) else None


def _debug_id(response: httpx.Response) -> str | None:
    value = response.headers.get("paypal-debug-id")
    return value[:100] if value else None


def _request_id(key: str) -> str:
    """PayPal-Request-Id: at most 108 characters (hashed beyond)."""
    return key if len(key) <= 108 else hashlib.sha256(key.encode()).hexdigest()


def _custom_id(key: str) -> str:
    """The order's ``custom_id`` (127 characters at most) names payhub's attempt."""
    return key if len(key) <= 127 else hashlib.sha256(key.encode()).hexdigest()


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _expiry(value: object) -> tuple[int | None, int | None]:
    if isinstance(value, str) and re.fullmatch(r"\d{4}-\d{2}", value):
        return int(value[:4]), int(value[5:])
    return None, None


def _opt_str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _redact(message: object) -> str | None:
    return redact(message, ids=(_ID_LIKE,))
