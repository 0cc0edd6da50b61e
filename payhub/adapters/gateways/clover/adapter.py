"""Clover, spoken through its Ecommerce API (``/v1/charges``, ``/v1/refunds``, ``/v1/customers``).

References relied on (docs.clover.com):

- Create a charge (``amount`` in cents, ``currency`` lower case, ``source``, ``capture``,
  ``ecomind``, ``external_reference_id`` at most 12 characters; headers ``x-forwarded-for``
  and ``Idempotency-Key``): https://docs.clover.com/reference/createcharge,
  https://docs.clover.com/docs/create-a-charge
- Idempotency keys (required on payment requests, a version 4 UUID or equivalent; a retry
  with the same key returns the original charge):
  https://docs.clover.com/docs/ecommerce-accepting-payments,
  https://docs.clover.com/docs/tracking-transactions-with-idempotency-keys
- Capture a charge (optional ``amount``; the whole authorization when absent):
  https://docs.clover.com/reference/capturecharge, https://docs.clover.com/docs/capture-a-charge-tutorial
- Refunds (``POST /v1/refunds`` with ``charge`` and optional ``amount``; ``status``
  succeeded/failed): https://docs.clover.com/docs/ecommerce-refunding-payments
- The charge object (``captured``, ``paid``, ``status`` succeeded/pending/failed,
  ``amount_refunded``, ``refunded``, ``failure_code``): https://docs.clover.com/reference/getcharge
- Errors (``{"error": {type, code, decline_code, message, param, charge}}``; types
  card_error, invalid_request_error, authentication_error, idempotency_error, rate_limit_error,
  api_error; codes card_declined, token_already_used, charge_already_captured, ...):
  https://docs.clover.com/docs/ecommerce-api-response-codes-descriptions,
  https://docs.clover.com/docs/ecommerce-error-codes, https://docs.clover.com/docs/appendix
- Card on file (``POST /v1/customers`` with ``email`` and ``source``; ``PUT
  /v1/customers/{id}`` adds a card; later charges use the multi-pay token with
  ``stored_credentials``): https://docs.clover.com/docs/ecommerce-saving-card
- Hosts: ``scl-sandbox.dev.clover.com`` (sandbox) and ``scl.clover.com`` (live); tokens come
  from the Clover iframe (``token-sandbox.dev.clover.com`` / ``token.clover.com``) as ``clv_…``.

Choices a reader must know:

- The credential is the merchant's Ecommerce **private key** (or an OAuth access token), sent
  as ``Authorization: Bearer``. Clover keys carry no mode prefix, so ``creds.sandbox`` picks
  the host; a sandbox key sent to the live host is refused there (401).
- Every POST carries an ``Idempotency-Key`` derived from payhub's key: a UUID with the version
  4 layout built from a SHA-256 of the key (and a step suffix for multi-call operations), so a
  retry sends the same UUID and two different operations never share one.
- ``x-forwarded-for`` must name the payer's IP. payhub's ``ChargeRequest`` carries none, so the
  adapter sends ``PAYER_IP_UNKNOWN``; see the open questions in ``docs/gateways.md``.
- A void is a refund of an uncaptured charge: the Ecommerce API has no void endpoint, and a
  refund of an authorization releases it (``refunded`` true, ``captured`` false).
- A saved card is the multi-pay source Clover lists on the customer; it is charged with
  ``stored_credentials`` (merchant-initiated, subsequent), as the card-on-file guide requires.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

import httpx

from payhub.adapters.gateways.kit import declines
from payhub.adapters.gateways.kit.answers import credentials_rejected, json_value, require_text
from payhub.adapters.gateways.kit.answers import unexpected as _kit_unexpected
from payhub.adapters.gateways.kit.http import Answer as _Answer
from payhub.adapters.gateways.kit.http import GatewayHttp
from payhub.adapters.gateways.kit.http import opt_str as _opt_str
from payhub.adapters.gateways.kit.http import path_segment as _path
from payhub.adapters.gateways.kit.redaction import redact
from payhub.domain.errors import ValidationError
from payhub.domain.money import Money, minor_unit_exponent
from payhub.domain.payments import (
    DECLINE_CODES,
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

GATEWAY = "clover"
SANDBOX_BASE_URL = "https://scl-sandbox.dev.clover.com"
LIVE_BASE_URL = "https://scl.clover.com"
PAYER_IP_UNKNOWN = "127.0.0.1"
_DESCRIPTION_MAX = 255

_DECLINE_ALIASES = {
    "invalid_cvc": "incorrect_cvc",
    "cvv_mismatch": "incorrect_cvc",
    "lost_card": "fraudulent",
    "stolen_card": "fraudulent",
    "pickup_card": "fraudulent",
    "suspected_fraud": "fraudulent",
    "try_again_later": "processing_error",
    "issuer_not_available": "processing_error",
}
# Codes meaning "this token or saved card cannot be used": collect the card again.
_METHOD_CODES = frozenset(
    {"token_already_used", "card_on_file_missing", "invalid_card_type", "incorrect_number"}
)
_SOURCE_PARAMS = frozenset({"source", "token", "card"})


class CloverGateway:
    """The ``Gateway`` port for Clover's Ecommerce API (cards; card-on-file customers)."""

    name = GATEWAY

    def __init__(self, client: httpx.Client | None = None) -> None:
        self.http = GatewayHttp(GATEWAY, client)

    # --- the port ----------------------------------------------------------------------

    def charge(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult:
        source = request.source
        if source.method_type is not MethodType.CARD:
            raise ValueError("Clover takes card payments only in payhub")
        body: dict[str, Any] = {
            "amount": clover_amount(request.amount),
            "currency": request.amount.currency.lower(),
            "capture": request.capture,
            "ecomind": "ecom",
        }
        if request.description:
            body["description"] = request.description[:_DESCRIPTION_MAX]
        if source.token is not None:
            body["source"] = source.token
        else:
            body["source"] = source.saved_method_ref
            body["stored_credentials"] = {
                "sequence": "SUBSEQUENT",
                "is_scheduled": False,
                "initiator": "MERCHANT",
            }
        answer = self._send(creds, "POST", "/v1/charges", body, clover_key(request.idempotency_key))
        result = _charge_result(answer)
        if result.status is GatewayStatus.DECLINED:
            raise Declined(
                f"Clover declined the payment ({result.decline_code})",
                gateway=GATEWAY,
                decline_code=result.decline_code,
                gateway_message=result.message,
                gateway_request_id=answer.request_id,
            )
        return result

    def capture(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        answer = self._send(
            creds,
            "POST",
            f"/v1/charges/{_path(reference)}/capture",
            {"amount": clover_amount(amount)},
            clover_key(idempotency_key),
        )
        return _charge_result(answer)

    def refund(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        answer = self._send(
            creds,
            "POST",
            "/v1/refunds",
            {"charge": reference, "amount": clover_amount(amount)},
            clover_key(idempotency_key),
        )
        refund = answer.body
        status = _opt_str(refund.get("status")) or ""
        mapped = {
            "succeeded": GatewayStatus.REFUNDED,
            "pending": GatewayStatus.PENDING,
        }.get(status, GatewayStatus.DECLINED)
        units = _opt_int(refund.get("amount"))
        return GatewayResult(
            reference=require_text(refund, "id", GATEWAY),
            status=mapped,
            amount=money_from_clover(units, amount.currency) if units is not None else amount,
            message=f"refund {status}" if status else None,
            support=answer.support(clover_status=status, charge=reference),
        )

    def void(
        self, creds: GatewayCredentials, reference: str, idempotency_key: str
    ) -> GatewayResult:
        """Refund the uncaptured charge: Clover releases the authorization."""
        answer = self._send(
            creds,
            "POST",
            "/v1/refunds",
            {"charge": reference},
            clover_key(idempotency_key),
        )
        status = _opt_str(answer.body.get("status")) or ""
        if status not in ("succeeded", "pending"):
            raise GatewayError(
                f"Clover did not release the authorization (refund {status or 'unknown'})",
                gateway=GATEWAY,
                gateway_request_id=answer.request_id,
            )
        return self.status(creds, reference)

    def status(self, creds: GatewayCredentials, reference: str) -> GatewayResult:
        answer = self._send(creds, "GET", f"/v1/charges/{_path(reference)}", None, None)
        return _charge_result(answer)

    def save_payment_method(
        self, creds: GatewayCredentials, request: SaveMethodRequest
    ) -> SavedMethod:
        if request.method_type is not MethodType.CARD:
            raise ValueError("Clover saves cards only in payhub")
        base = request.idempotency_key or uuid.uuid4().hex
        body: dict[str, Any] = {"source": request.token, "ecomind": "ecom"}
        if request.email:
            body["email"] = request.email
        if request.gateway_customer_ref is None:
            if request.name:
                body["name"] = request.name
            body["external_reference_id"] = request.customer_id[:12]
            answer = self._send(creds, "POST", "/v1/customers", body, clover_key(base, "customer"))
        else:
            answer = self._send(
                creds,
                "PUT",
                f"/v1/customers/{_path(request.gateway_customer_ref)}",
                body,
                clover_key(base, "add-card"),
            )
        customer = answer.body
        sources = customer.get("sources")
        data = sources.get("data") if isinstance(sources, dict) else None
        if not isinstance(data, list) or not data:
            raise _unexpected(answer.request_id)
        return _saved_method(require_text(customer, "id", GATEWAY), data[-1], answer.request_id)

    # --- transport -----------------------------------------------------------------------

    def _send(
        self,
        creds: GatewayCredentials,
        method: str,
        path: str,
        body: Mapping[str, Any] | None,
        key: str | None,
    ) -> _Answer:
        if not creds.api_secret.strip():
            raise GatewayCredentialsRejected("the Clover private key is empty", gateway=GATEWAY)
        headers = {
            "Authorization": f"Bearer {creds.api_secret}",
            "Accept": "application/json",
            "x-forwarded-for": PAYER_IP_UNKNOWN,
        }
        if key is not None:
            headers["Idempotency-Key"] = key
        base = SANDBOX_BASE_URL if creds.sandbox else LIVE_BASE_URL
        kwargs: dict[str, Any] = {"headers": headers}
        if body is not None:
            kwargs["json"] = dict(body)
        response = self.http.send(method, base + path, **kwargs)
        request_id = response.headers.get("x-clover-request-id") or response.headers.get(
            "x-request-id"
        )
        parsed = json_value(response.content)
        if not isinstance(parsed, dict):
            if response.status_code == 404:
                raise GatewayError(
                    "Clover has no object with that reference",
                    gateway=GATEWAY,
                    gateway_request_id=request_id,
                )
            raise _unexpected(request_id)
        if response.status_code >= 400:
            raise _error_from(response.status_code, parsed, request_id)
        return _Answer(parsed, response.status_code, request_id)


# --- amounts and keys ------------------------------------------------------------------------


def clover_amount(money: Money) -> int:
    """The integer of minor units Clover expects (cents for USD)."""
    scaled = money.amount.scaleb(minor_unit_exponent(money.currency))
    if scaled != scaled.to_integral_value():
        raise ValidationError.for_field("amount", f"more precision than {money.currency} has")
    return int(scaled)


def money_from_clover(units: int, currency: str) -> Money:
    code = currency.upper()
    return Money.of(Decimal(units).scaleb(-minor_unit_exponent(code)), code)


def clover_key(key: str, step: str | None = None) -> str:
    """payhub's key as the UUID Clover wants: stable per key and step, version 4 layout."""
    seed = f"payhub:{key}:{step}" if step else f"payhub:{key}"
    digest = hashlib.sha256(seed.encode()).digest()[:16]
    return str(uuid.UUID(bytes=digest, version=4))


# --- answers ---------------------------------------------------------------------------------


def _charge_result(answer: _Answer) -> GatewayResult:
    charge = answer.body
    currency = _opt_str(charge.get("currency")) or "usd"
    status = _opt_str(charge.get("status")) or ""
    captured = charge.get("captured") is True
    units = _opt_int(charge.get("amount"))
    if units is None:
        raise _unexpected(answer.request_id)
    decline_code = message = None
    if status == "failed":
        mapped = GatewayStatus.DECLINED
        decline_code = normalise_decline(charge.get("failure_code"))
        message = redact(charge.get("failure_message"))
    elif status == "pending":
        mapped = GatewayStatus.PENDING
    elif charge.get("refunded") is True:
        mapped = GatewayStatus.REFUNDED if captured else GatewayStatus.VOIDED
    elif captured:
        mapped = GatewayStatus.CAPTURED
        took = _opt_int(charge.get("amount_captured"))
        units = took if took else units
    else:
        mapped = GatewayStatus.AUTHORIZED
    outcome = charge.get("outcome")
    network = outcome.get("network_status") if isinstance(outcome, dict) else None
    return GatewayResult(
        reference=require_text(charge, "id", GATEWAY),
        status=mapped,
        amount=money_from_clover(units, currency),
        decline_code=decline_code,
        message=message,
        support=answer.support(
            clover_status=status or None,
            network_status=_opt_str(network),
            ref_num=_opt_str(charge.get("ref_num")),
        ),
    )


def _saved_method(customer: str, source: object, request_id: str | None) -> SavedMethod:
    """Clover lists a customer's sources either as ids or as card objects; take what is safe."""
    if isinstance(source, str):
        return SavedMethod(customer, source, MethodType.CARD)
    if not isinstance(source, dict) or not isinstance(source.get("id"), str):
        raise _unexpected(request_id)
    brand = _opt_str(source.get("brand"))
    return SavedMethod(
        gateway_customer_ref=customer,
        method_ref=source["id"],
        method_type=MethodType.CARD,
        brand=brand.lower() if brand else None,
        last4=_opt_str(source.get("last4")),
        exp_month=_opt_number(source.get("exp_month")),
        exp_year=_opt_number(source.get("exp_year")),
    )


def normalise_decline(code: object) -> str:
    """Clover's ``decline_code`` (or error code) as one of payhub's ``DECLINE_CODES``."""
    if not isinstance(code, str):
        return "generic_decline"
    code = code.lower()
    code = _DECLINE_ALIASES.get(code, code)
    return code if code in DECLINE_CODES else declines.GENERIC


def _error_from(status_code: int, body: dict[str, Any], request_id: str | None) -> GatewayError:
    """Map Clover's error object to payhub's failures (401/403/5xx never get this far)."""
    raw = body.get("error")
    error: Mapping[str, Any] = raw if isinstance(raw, dict) else {}
    kind, code, param = error.get("type"), error.get("code"), error.get("param")
    message = redact(error.get("message") or body.get("message"))
    common: dict[str, Any] = {
        "gateway": GATEWAY,
        "gateway_message": message,
        "gateway_request_id": request_id,
    }
    if status_code == 429 or kind == "rate_limit_error" or code == "rate_limit":
        return GatewayUnavailable("Clover asked us to slow down; try again shortly", **common)
    if kind == "authentication_error":
        return credentials_rejected(GATEWAY, gateway_message=message, request_id=request_id)
    if kind == "idempotency_error":
        return GatewayError(
            "Clover refused the idempotency key: it was used before for a different request",
            **common,
        )
    if code in _METHOD_CODES or (
        kind == "invalid_request_error"
        and (param in _SOURCE_PARAMS or (code == "resource_missing" and param == "source"))
    ):
        return PaymentMethodInvalid(
            "Clover cannot use this card (unknown, used up or not on file); collect it again",
            **common,
        )
    if kind == "card_error" or code in ("card_declined", "expired_card", "incorrect_cvc"):
        decline = normalise_decline(error.get("decline_code") or code)
        return Declined(f"Clover declined the payment ({decline})", decline_code=decline, **common)
    if status_code == 404 or code == "resource_missing":
        return GatewayError("Clover has no object with that reference", **common)
    label = code if isinstance(code, str) else (kind if isinstance(kind, str) else status_code)
    return GatewayError(f"Clover refused the request ({label})", **common)


def _unexpected(request_id: str | None) -> GatewayError:
    return _kit_unexpected(GATEWAY, request_id)


def _opt_int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _opt_number(value: object) -> int | None:
    """Expiry fields arrive as numbers or digit strings."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return None
