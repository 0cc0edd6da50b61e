"""Square adapter: the Square Connect v2 REST API (JSON over HTTPS, ``Square-Version`` pinned).

Why it looks the way it does:

- Auth-only is ``autocomplete=false``; a capture of less than was authorized first lowers
  ``amount_money`` with UpdatePayment while the payment is APPROVED, then completes it.
  Capture reads the payment first, so a retried capture of a completed payment is answered
  from Square's state instead of failing.
- Square's idempotency key is a body field, at most 45 characters; ours is hashed with the
  operation's name into a fixed-length key, so a retry reuses it and two operations never
  share one. CompletePayment and CancelPayment take no key: a repeated void is recognised
  from ``DELAYED_TRANSACTION_CANCELED`` and answered from GetPayment.
- ACH is a fresh Web Payments SDK bank token charged with ``autocomplete=true``; it starts
  PENDING (``SUBMITTED`` here) and cannot be captured or cancelled. Square's bank-account
  vault (CreateBankAccount) is beta, so payhub does not vault bank accounts here.
- Errors arrive as ``{"errors": [{category, code, detail, field}]}``; ``detail`` is kept as
  the gateway message with any token or secret blanked out, never in ``str(exc)``.

API reference relied on (checked 2026-11):
https://developer.squareup.com/reference/square/payments-api/create-payment
https://developer.squareup.com/reference/square/payments-api/update-payment
https://developer.squareup.com/docs/payments-api/update-payments
https://developer.squareup.com/docs/payments-api/take-payments/card-payments/delayed-capture
https://developer.squareup.com/docs/payments-api/take-payments/ach-payments
https://developer.squareup.com/reference/square/refunds (RefundPayment, PaymentRefund.status)
https://developer.squareup.com/reference/square/customers-api/create-customer
https://developer.squareup.com/docs/cards-api/walkthrough/card-from-payment-id (CreateCard)
https://developer.squareup.com/reference/square/enums/ErrorCode
https://developer.squareup.com/docs/payments-api/error-codes
https://developer.squareup.com/docs/build-basics/common-api-patterns/idempotency
https://developer.squareup.com/docs/devtools/sandbox/payments (sandbox test tokens)

Requests and answers are checked in the tests against the squareup SDK's request and response
types (tests/gateways/square/contract). A refund answered ``PENDING`` comes back pending (it
was recorded as done before); ``status`` reads each of the payment's ``refund_ids`` to tell
completed refunds from pending ones, since ``refunded_money`` counts both.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import quote

import attrs
import httpx

from payhub.adapters.gateways.kit.answers import json_object, require_text
from payhub.adapters.gateways.kit.http import GatewayHttp, opt_str
from payhub.adapters.gateways.kit.redaction import redact
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

SQUARE_VERSION = "2026-01-22"
SANDBOX_BASE_URL = "https://connect.squareupsandbox.com/v2"
LIVE_BASE_URL = "https://connect.squareup.com/v2"
IDEMPOTENCY_KEY_MAX = 45  # CreatePayment, UpdatePayment and CreateCard all cap the key here
_NOTE_MAX = 500

_AUTH_CODES = frozenset(
    {
        "UNAUTHORIZED",
        "ACCESS_TOKEN_EXPIRED",
        "ACCESS_TOKEN_REVOKED",
        "CLIENT_DISABLED",
        "FORBIDDEN",
        "INSUFFICIENT_SCOPES",
        "APPLICATION_DISABLED",
        "V1_APPLICATION",
        "V1_ACCESS_TOKEN",
        "CARD_PROCESSING_NOT_ENABLED",
    }
)
# The token or saved card cannot be used at all: the buyer has to enter the method again.
_METHOD_INVALID_CODES = frozenset(
    {
        "CARD_TOKEN_EXPIRED",
        "CARD_TOKEN_USED",
        "SOURCE_USED",
        "SOURCE_EXPIRED",
        "INVALID_CARD_DATA",
        "INVALID_ENCRYPTED_CARD",
        "CUSTOMER_NOT_FOUND",
        "UNSUPPORTED_INSTRUMENT_TYPE",
    }
)
_DECLINE_CODES: dict[str, str] = {
    "GENERIC_DECLINE": "generic_decline",
    "CARD_DECLINED": "generic_decline",
    "CARD_DECLINED_CALL_ISSUER": "generic_decline",
    "CARD_DECLINED_VERIFICATION_REQUIRED": "generic_decline",
    "INVALID_ACCOUNT": "generic_decline",
    "INVALID_CARD": "generic_decline",
    "CARD_NOT_SUPPORTED": "generic_decline",
    "UNSUPPORTED_CARD_BRAND": "generic_decline",
    "CARDHOLDER_INSUFFICIENT_PERMISSIONS": "generic_decline",
    "ADDRESS_VERIFICATION_FAILURE": "generic_decline",
    "VERIFY_AVS_FAILURE": "generic_decline",
    "INVALID_POSTAL_CODE": "generic_decline",
    "PAN_FAILURE": "generic_decline",
    "VOICE_FAILURE": "generic_decline",
    "INVALID_PIN": "generic_decline",
    "ALLOWABLE_PIN_TRIES_EXCEEDED": "generic_decline",
    "CHIP_INSERTION_REQUIRED": "generic_decline",
    "MANUALLY_ENTERED_PAYMENT_NOT_SUPPORTED": "generic_decline",
    "BUYER_REFUSED_PAYMENT": "generic_decline",
    "ACCOUNT_UNUSABLE": "generic_decline",
    "INSUFFICIENT_FUNDS": "insufficient_funds",
    "TRANSACTION_LIMIT": "insufficient_funds",
    "CARD_EXPIRED": "expired_card",
    "INVALID_EXPIRATION": "expired_card",
    "INVALID_EXPIRATION_YEAR": "expired_card",
    "INVALID_EXPIRATION_DATE": "expired_card",
    "EXPIRATION_FAILURE": "expired_card",
    "BAD_EXPIRATION": "expired_card",
    "CVV_FAILURE": "incorrect_cvc",
    "VERIFY_CVV_FAILURE": "incorrect_cvc",
    "PAYMENT_LIMIT_EXCEEDED": "processing_error",
    "AMOUNT_TOO_HIGH": "processing_error",
    "INVALID_LOCATION": "processing_error",
    "INSUFFICIENT_PERMISSIONS": "processing_error",
    "CURRENCY_MISMATCH": "processing_error",
    "REFUND_DECLINED": "processing_error",
    "RESERVATION_DECLINED": "processing_error",
}
_RETRYABLE_CODES = frozenset(
    {"RATE_LIMITED", "TEMPORARY_ERROR", "SERVICE_UNAVAILABLE", "GATEWAY_TIMEOUT"}
)
_BRANDS = {
    "VISA": "visa",
    "MASTERCARD": "mastercard",
    "AMERICAN_EXPRESS": "amex",
    "DISCOVER": "discover",
    "DISCOVER_DINERS": "diners",
    "JCB": "jcb",
    "CHINA_UNIONPAY": "unionpay",
    "INTERAC": "interac",
    "EFTPOS": "eftpos",
}


def wire_idempotency_key(operation: str, key: str) -> str:
    """Square's key for one operation of payhub's ``key``: stable across retries, 45 chars.

    Hashing keeps any payhub key within Square's limit and gives each operation (payment,
    capture update, refund, customer, card) its own key even when payhub reuses one.
    """
    digest = hashlib.sha256(f"{operation}\n{key}".encode()).hexdigest()
    return f"ph_{digest}"[:IDEMPOTENCY_KEY_MAX]


class SquareGateway:
    """payhub's ``Gateway`` port over Square's Payments, Refunds, Customers and Cards APIs."""

    name = "square"

    def __init__(self, client: httpx.Client | None = None) -> None:
        self._http = GatewayHttp(self.name, client)

    # --- the port --------------------------------------------------------------------------

    def charge(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult:
        source = request.source
        bank = source.method_type is MethodType.BANK_ACCOUNT
        body: dict[str, Any] = {
            "idempotency_key": wire_idempotency_key("payment", request.idempotency_key),
            "amount_money": _money_json(request.amount),
        }
        if bank:
            if source.token is None:
                raise ValueError("Square charges a bank account only from a fresh ACH token")
            if not request.capture:
                raise ValueError("Square cannot authorize an ACH payment without completing it")
            if request.amount.currency != "USD":
                raise ValueError("Square takes ACH payments in USD only")
            body["source_id"] = source.token
            body["autocomplete"] = True
        elif source.token is not None:
            body["source_id"] = source.token
            body["autocomplete"] = request.capture
        else:
            if source.gateway_customer_ref is None:
                raise ValueError("a saved Square card is charged together with its customer")
            body["source_id"] = source.saved_method_ref
            body["customer_id"] = source.gateway_customer_ref
            body["autocomplete"] = request.capture
        location = creds.fields.get("locationId")
        if location:
            body["location_id"] = location
        if request.description:
            body["note"] = request.description[:_NOTE_MAX]
        secrets = [s for s in (source.token, source.saved_method_ref) if s]
        answer = self._call(creds, "POST", "/payments", body, secrets=secrets, about_source=True)
        result = _payment_result(_obj(answer.get("payment")))
        if result.status is GatewayStatus.DECLINED:
            decline = result.decline_code or "generic_decline"
            raise Declined(
                f"square declined the payment ({decline})", gateway=self.name, decline_code=decline
            )
        return result

    def capture(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        """Complete an APPROVED payment, lowering its amount first for a partial capture."""
        payment = self._get_payment(creds, reference)
        status = payment.get("status")
        if status == "COMPLETED" and _payment_amount(payment) == amount:
            return _payment_result(payment)  # a retried capture that already went through
        if status == "APPROVED" and _payment_amount(payment) != amount:
            update: dict[str, Any] = {
                "idempotency_key": wire_idempotency_key("capture", idempotency_key),
                "payment": {"amount_money": _money_json(amount)},
            }
            if isinstance(payment.get("version_token"), str):
                update["payment"]["version_token"] = payment["version_token"]
            answer = self._call(creds, "PUT", f"/payments/{_segment(reference)}", update)
            payment = _obj(answer.get("payment"))
        complete: dict[str, Any] = {}
        if isinstance(payment.get("version_token"), str):
            complete["version_token"] = payment["version_token"]
        answer = self._call(creds, "POST", f"/payments/{_segment(reference)}/complete", complete)
        return _payment_result(_obj(answer.get("payment")))

    def refund(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        body = {
            "idempotency_key": wire_idempotency_key("refund", idempotency_key),
            "payment_id": reference,
            "amount_money": _money_json(amount),
        }
        refund = _obj(self._call(creds, "POST", "/refunds", body).get("refund"))
        refund_status = _nonempty(refund.get("status")) or "PENDING"
        if refund_status in ("REJECTED", "FAILED"):
            raise Declined(
                f"square did not accept the refund ({refund_status.lower()})",
                gateway=self.name,
                decline_code="processing_error",
            )
        return GatewayResult(
            reference=_required_id(refund),
            # PENDING: Square accepted the refund and finishes it later (status settles it).
            status=GatewayStatus.REFUNDED
            if refund_status == "COMPLETED"
            else GatewayStatus.PENDING,
            amount=_money_from(refund.get("amount_money")),
            support=_support({"refund_status": refund_status, "payment_id": reference}),
        )

    def void(
        self, creds: GatewayCredentials, reference: str, idempotency_key: str
    ) -> GatewayResult:
        """CancelPayment has no idempotency key; a repeated void is answered from GetPayment."""
        answer = self._call(
            creds,
            "POST",
            f"/payments/{_segment(reference)}/cancel",
            {},
            tolerate=("DELAYED_TRANSACTION_CANCELED",),
        )
        if not answer:
            return self.status(creds, reference)
        return _payment_result(_obj(answer.get("payment")))

    def status(self, creds: GatewayCredentials, reference: str) -> GatewayResult:
        """The payment, and its refunds read one by one: a refund is PENDING until Square
        completes (or rejects) it, which a payment's ``refunded_money`` does not tell."""
        payment = self._get_payment(creds, reference)
        result = _payment_result(payment)
        ids = [i for i in payment.get("refund_ids") or [] if isinstance(i, str)]
        if not ids or result.status not in (GatewayStatus.CAPTURED, GatewayStatus.REFUNDED):
            return result
        zero = Money.zero(result.amount.currency)
        done, pending = zero, zero
        for refund_id in ids:
            answer = self._call(creds, "GET", f"/refunds/{_segment(refund_id)}")
            refund = _obj(answer.get("refund"))
            refund_status = refund.get("status")
            if refund_status == "COMPLETED":
                done = done + _money_from(refund.get("amount_money"))
            elif refund_status == "PENDING":
                pending = pending + _money_from(refund.get("amount_money"))
        full = done >= _total(payment)
        return attrs.evolve(
            result,
            status=GatewayStatus.REFUNDED if full else GatewayStatus.CAPTURED,
            refunded=done,
            refunding=pending,
        )

    def save_payment_method(
        self, creds: GatewayCredentials, request: SaveMethodRequest
    ) -> SavedMethod:
        """Vault a card token as a card on file, creating the Square customer when needed."""
        if request.method_type is MethodType.BANK_ACCOUNT:
            raise ValueError(
                "payhub does not save bank accounts with Square (CreateBankAccount is beta);"
                " charge each ACH payment from a fresh token"
            )
        base_key = request.idempotency_key or uuid.uuid4().hex
        customer_id = request.gateway_customer_ref or self._create_customer(
            creds, request, base_key
        )
        body = {
            "idempotency_key": wire_idempotency_key("card", base_key),
            "source_id": request.token,
            "card": {"customer_id": customer_id},
        }
        answer = self._call(
            creds, "POST", "/cards", body, secrets=[request.token], about_source=True
        )
        card = _obj(answer.get("card"))
        return SavedMethod(
            gateway_customer_ref=customer_id,
            method_ref=_required_id(card),
            method_type=MethodType.CARD,
            brand=_brand(card.get("card_brand")),
            last4=_nonempty(card.get("last_4")),
            exp_month=_int_or_none(card.get("exp_month")),
            exp_year=_int_or_none(card.get("exp_year")),
        )

    # --- calls -----------------------------------------------------------------------------

    def _create_customer(
        self, creds: GatewayCredentials, request: SaveMethodRequest, base_key: str
    ) -> str:
        # Square wants at least one of name, email, company or phone; without either, the
        # payhub customer id stands in as the name so the profile can be found again.
        body: dict[str, Any] = {
            "idempotency_key": wire_idempotency_key("customer", base_key),
            "reference_id": request.customer_id[:100],
        }
        if request.name:
            body["given_name"] = request.name[:300]
        if request.email:
            body["email_address"] = request.email[:254]
        if not request.name and not request.email:
            body["given_name"] = f"payhub {request.customer_id}"[:300]
        customer = _obj(self._call(creds, "POST", "/customers", body).get("customer"))
        return _required_id(customer)

    def _get_payment(self, creds: GatewayCredentials, reference: str) -> dict[str, Any]:
        answer = self._call(creds, "GET", f"/payments/{_segment(reference)}")
        return _obj(answer.get("payment"))

    def _call(
        self,
        creds: GatewayCredentials,
        method: str,
        path: str,
        body: Mapping[str, Any] | None = None,
        *,
        secrets: Iterable[str] = (),
        about_source: bool = False,
        tolerate: tuple[str, ...] = (),
    ) -> dict[str, Any]:
        """Send one call; return the answer's JSON object or raise the mapped failure.

        ``about_source``: a NOT_FOUND names the token or card (charge, save), not a payment.
        ``tolerate``: error codes that mean "already done"; the answer is then ``{}``.
        """
        base = SANDBOX_BASE_URL if creds.sandbox else LIVE_BASE_URL
        headers = {
            "Authorization": f"Bearer {creds.api_secret}",
            "Square-Version": SQUARE_VERSION,
            "Accept": "application/json",
        }
        kwargs: dict[str, Any] = {"headers": headers}
        if body is not None and method != "GET":
            headers["Content-Type"] = "application/json"
            kwargs["content"] = json.dumps(body, separators=(",", ":")).encode()
        response = self._http.send(method, base + path, **kwargs)
        payload = json_object(response.content, self.name)
        errors = [e for e in payload.get("errors") or [] if isinstance(e, dict)]
        if response.is_success and not errors:
            return payload
        if tolerate and any(e.get("code") in tolerate for e in errors):
            return {}
        raise self._failure(
            response.status_code,
            errors,
            secrets=[*secrets, creds.api_secret],
            about_source=about_source,
        )

    def _failure(
        self,
        http_status: int,
        errors: list[dict[str, Any]],
        *,
        secrets: list[str],
        about_source: bool,
    ) -> GatewayError:
        """Square's ``errors`` list as one payhub failure, the most actionable kind first."""
        if not errors:
            errors = [{"code": "UNKNOWN", "category": "API_ERROR"}]

        def message(error: dict[str, Any]) -> str | None:
            return redact(error.get("detail"), secrets)

        for error in errors:
            code, category, field = (
                _nonempty(error.get(k)) or "" for k in ("code", "category", "field")
            )
            if (
                category == "AUTHENTICATION_ERROR"
                or code in _AUTH_CODES
                or (field == "location_id" and code in ("NOT_FOUND", "INVALID_VALUE"))
            ):
                return GatewayCredentialsRejected(
                    "square rejected the merchant's credentials or location; update them with"
                    " PUT /api/merchant-accounts/{ref}/credentials/square",
                    gateway=self.name,
                    gateway_message=message(error),
                )
        for error in errors:
            code = _nonempty(error.get("code")) or ""
            field = _nonempty(error.get("field")) or ""
            if code in _METHOD_INVALID_CODES or (
                about_source and code == "NOT_FOUND" and field in ("", "source_id", "customer_id")
            ):
                return PaymentMethodInvalid(
                    f"square cannot use this payment method ({code.lower()}); collect it again",
                    gateway=self.name,
                    gateway_message=message(error),
                )
        for error in errors:
            code = _nonempty(error.get("code")) or ""
            if code in _DECLINE_CODES or error.get("category") == "PAYMENT_METHOD_ERROR":
                decline = _DECLINE_CODES.get(code, "generic_decline")
                return Declined(
                    f"square declined ({decline})",
                    gateway=self.name,
                    decline_code=decline,
                    gateway_message=message(error),
                )
        first = errors[0]
        code = _nonempty(first.get("code")) or "UNKNOWN"
        if http_status == 429 or code in _RETRYABLE_CODES:
            return GatewayUnavailable(
                f"square asked to try again later ({code.lower()})",
                gateway=self.name,
                gateway_message=message(first),
            )
        return GatewayError(
            f"square refused the request ({code.lower()}, HTTP {http_status})",
            gateway=self.name,
            gateway_message=message(first),
        )


# --- translation -------------------------------------------------------------------------------


def _payment_result(payment: dict[str, Any]) -> GatewayResult:
    """A Square Payment object as payhub's neutral result."""
    square_status = _nonempty(payment.get("status")) or ""
    source_type = _nonempty(payment.get("source_type")) or ""
    amount = _payment_amount(payment)
    decline_code = None
    if square_status == "APPROVED":
        status = GatewayStatus.AUTHORIZED
    elif square_status == "COMPLETED":
        refunded = payment.get("refunded_money")
        fully_refunded = refunded is not None and _money_from(refunded) >= _total(payment)
        status = GatewayStatus.REFUNDED if fully_refunded else GatewayStatus.CAPTURED
    elif square_status == "CANCELED":
        status = GatewayStatus.VOIDED
    elif square_status == "FAILED":
        status = GatewayStatus.DECLINED
        decline_code = _failed_decline_code(payment)
    elif source_type == "BANK_ACCOUNT":
        status = GatewayStatus.SUBMITTED  # ACH: PENDING until the transfer settles
    else:
        status = GatewayStatus.PENDING
    card_status = _nonempty(_obj(payment.get("card_details")).get("status"))
    return GatewayResult(
        reference=_required_id(payment),
        status=status,
        amount=amount,
        decline_code=decline_code,
        support=_support(
            {
                "payment_status": square_status,
                "source_type": source_type,
                "card_status": card_status,
            }
        ),
    )


def _failed_decline_code(payment: dict[str, Any]) -> str:
    for error in _obj(payment.get("card_details")).get("errors") or []:
        if isinstance(error, dict) and error.get("code") in _DECLINE_CODES:
            return _DECLINE_CODES[error["code"]]
    return "generic_decline"


def _payment_amount(payment: dict[str, Any]) -> Money:
    return _money_from(payment.get("amount_money"))


def _total(payment: dict[str, Any]) -> Money:
    total = payment.get("total_money")
    return _money_from(total) if total is not None else _payment_amount(payment)


def _money_json(money: Money) -> dict[str, Any]:
    """Square's Money: an integer count of the currency's smallest unit (cents; yen as is)."""
    return {"amount": money.minor_units, "currency": money.currency}


def _money_from(value: object) -> Money:
    money = _obj(value)
    amount, currency = money.get("amount"), money.get("currency")
    if isinstance(amount, bool) or not isinstance(amount, int) or not isinstance(currency, str):
        raise GatewayError("square answered without a usable amount", gateway="square")
    return Money.from_minor_units(amount, currency)


def _obj(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _required_id(obj: dict[str, Any]) -> str:
    return require_text(obj, "id", "square")


def _segment(reference: str) -> str:
    """A reference as one URL path segment, so it can never change the endpoint."""
    return quote(reference, safe="")


def _brand(value: object) -> str | None:
    brand = _nonempty(value)
    if brand is None or brand in ("OTHER_BRAND", "UNKNOWN_BRAND"):
        return None
    return _BRANDS.get(brand, brand.lower())


def _support(values: Mapping[str, str | None]) -> dict[str, str]:
    return {k: v[:64] for k, v in values.items() if v}


def _nonempty(value: object) -> str | None:
    return opt_str(value) or None
