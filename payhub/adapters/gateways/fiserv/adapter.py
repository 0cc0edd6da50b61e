"""Fiserv CommerceHub, spoken through its REST API over httpx.

References relied on:

- Hosts, endpoints and headers: ActiveMerchant ``commerce_hub.rb`` (test
  ``https://connect-cert.fiservapps.com/ch``, live ``https://prod.api.fiservapps.com/ch``;
  ``/payments/v1/charges``, ``/payments/v1/cancels``, ``/payments/v1/refunds``,
  ``/payments-vas/v1/tokens``), and CommerceHub's "HMAC authentication" page: headers
  ``Api-Key``, ``Client-Request-Id``, ``Timestamp`` (epoch milliseconds, within 5 minutes),
  ``Auth-Token-Type: HMAC`` and ``Authorization`` = base64 HMAC-SHA256 under the API secret of
  api key + client request id + timestamp + body.
- Idempotency: a request resent with the same ``Client-Request-Id`` is answered from the first
  one instead of being processed again (CommerceHub "Idempotency"; Fiserv/Commerce-Hub
  ``Idempotency.md``).
- Charges: ``amount {total, currency}``, ``source`` (``PaymentSession`` with the ``sessionId``
  from the hosted iFrame/Checkout JS, or ``PaymentToken`` with ``tokenData``/``tokenSource``),
  ``transactionDetails.captureFlag`` (false = authorize only), ``merchantDetails {merchantId,
  terminalId}``; capture is a charge with ``captureFlag: true`` and
  ``referenceTransactionDetails.referenceTransactionId``; cancels and refunds name the reference
  transaction the same way; status via ``/payments/v1/transaction-inquiry``.
- Answers: ``gatewayResponse.transactionState`` (AUTHORIZED, CAPTURED, DECLINED, VOIDED, …),
  ``gatewayResponse.transactionProcessingDetails.transactionId``,
  ``paymentReceipt.processorResponseDetails`` (``approvalStatus``, ``responseCode`` "000" =
  approved, ``hostResponseCode`` the issuer's ISO 8583 code), errors as
  ``error: [{type, code, field, message}]``; tokens as ``paymentTokens[{tokenData, tokenSource,
  tokenResponseCode}]`` with ``source.card`` (``last4``, ``scheme``, expiry).

Choices a reader must know:

- ``Client-Request-Id`` is a UUID derived from payhub's key and the operation, so a retry after
  a lost answer reuses it and CommerceHub answers the first result; calls without a key
  (status) get a random one.
- CommerceHub keeps no customer for a TransArmor token: payhub's customer id is the gateway
  customer, and the saved method ref is ``tokenData:MM:YYYY`` because token charges carry the
  card's expiry.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import uuid
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

import attrs
import httpx

from payhub.adapters.gateways.kit import declines
from payhub.adapters.gateways.kit.answers import credentials_rejected, json_value, require_text
from payhub.adapters.gateways.kit.answers import unexpected as _kit_unexpected
from payhub.adapters.gateways.kit.http import Answer as _Answer
from payhub.adapters.gateways.kit.http import GatewayHttp, json_body
from payhub.adapters.gateways.kit.http import opt_int as _opt_int
from payhub.adapters.gateways.kit.http import opt_str as _opt_str
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

GATEWAY = "fiserv"
SANDBOX_BASE = "https://connect-cert.fiservapps.com/ch"
LIVE_BASE = "https://prod.api.fiservapps.com/ch"
_NAMESPACE = uuid.UUID("6f0c3c4e-6b7c-4b7e-9a53-2b9f0c1e5a11")

_STATES = {
    "AUTHORIZED": GatewayStatus.AUTHORIZED,
    "CAPTURED": GatewayStatus.CAPTURED,
    "SETTLED": GatewayStatus.CAPTURED,
    "VOIDED": GatewayStatus.VOIDED,
    "CANCELLED": GatewayStatus.VOIDED,
    "REVERSED": GatewayStatus.VOIDED,
    "DECLINED": GatewayStatus.DECLINED,
    "REJECTED": GatewayStatus.DECLINED,
    "PENDING": GatewayStatus.PENDING,
    "WAITING": GatewayStatus.PENDING,
}
_BRANDS = {"VISA": "visa", "MASTERCARD": "mastercard", "AMEX": "amex", "DISCOVER": "discover"}


def _now() -> datetime:
    return datetime.now(UTC)


class FiservGateway:
    """The ``Gateway`` port for Fiserv CommerceHub (cards; hosted-session and TransArmor)."""

    name = GATEWAY

    def __init__(
        self, client: httpx.Client | None = None, *, now: Callable[[], datetime] = _now
    ) -> None:
        self.http = GatewayHttp(GATEWAY, client)
        self._now = now

    # --- the port ----------------------------------------------------------------------

    def charge(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult:
        source = request.source
        if source.method_type is not MethodType.CARD:
            raise ValueError("Fiserv CommerceHub takes cards only in payhub")
        body: dict[str, Any] = {
            "amount": _amount(request.amount),
            "source": _source(source.token, source.saved_method_ref),
            "transactionDetails": {
                "captureFlag": request.capture,
                "merchantTransactionId": request_id_for("charge", request.idempotency_key),
            },
            "transactionInteraction": {
                "origin": "ECOM",
                "eciIndicator": "CHANNEL_ENCRYPTED",
                "posConditionCode": "CARD_NOT_PRESENT_ECOM",
            },
        }
        if source.saved_method_ref is not None:
            body["storedCredentials"] = {
                "sequence": "SUBSEQUENT",
                "initiator": "MERCHANT",
                "scheduled": False,
            }
        answer = self._send(
            creds,
            "/payments/v1/charges",
            body,
            request_id_for("charge", request.idempotency_key),
            method_call=True,
        )
        result = _result(answer, request.amount)
        if result.status is GatewayStatus.DECLINED:
            raise _declined(answer)
        return result

    def capture(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        answer = self._send(
            creds,
            "/payments/v1/charges",
            {
                "amount": _amount(amount),
                "transactionDetails": {"captureFlag": True},
                "referenceTransactionDetails": {"referenceTransactionId": reference},
            },
            request_id_for("capture", idempotency_key),
        )
        result = _result(answer, amount)
        if result.status is not GatewayStatus.CAPTURED:
            raise _refused(answer, "capture")
        return attrs.evolve(result, reference=reference, amount=amount)

    def refund(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        answer = self._send(
            creds,
            "/payments/v1/refunds",
            {
                "amount": _amount(amount),
                "referenceTransactionDetails": {
                    "referenceTransactionId": reference,
                    "referenceTransactionType": "CHARGES",
                },
            },
            request_id_for("refund", idempotency_key),
        )
        result = _result(answer, amount)
        if result.status not in (GatewayStatus.CAPTURED, GatewayStatus.PENDING) and not (
            _approved(answer)
        ):
            raise _refused(answer, "refund")
        return attrs.evolve(result, status=GatewayStatus.REFUNDED, amount=amount)

    def void(
        self, creds: GatewayCredentials, reference: str, idempotency_key: str
    ) -> GatewayResult:
        answer = self._send(
            creds,
            "/payments/v1/cancels",
            {
                "referenceTransactionDetails": {
                    "referenceTransactionId": reference,
                    "referenceTransactionType": "CHARGES",
                }
            },
            request_id_for("cancel", idempotency_key),
        )
        result = _result(answer, None)
        if result.status is not GatewayStatus.VOIDED and not _approved(answer):
            raise _refused(answer, "cancel")
        # ActiveMerchant's recorded cancel answers state AUTHORIZED with an APPROVED receipt:
        # the approval, not the state, says the cancel went through.
        return attrs.evolve(result, reference=reference, status=GatewayStatus.VOIDED)

    def status(self, creds: GatewayCredentials, reference: str) -> GatewayResult:
        answer = self._send(
            creds,
            "/payments/v1/transaction-inquiry",
            {"referenceTransactionDetails": {"referenceTransactionId": reference}},
            str(uuid.uuid4()),
        )
        return _result(answer, None)

    # --- the pay page's session (MakesPayPageCheckouts) ---------------------------------

    def pay_page_checkout(
        self, creds: GatewayCredentials, request: CheckoutRequest
    ) -> PayPageCheckout:
        """Secure Data Capture's credentials, made for each submission as CommerceHub requires:
        ``POST /payments-vas/v1/security/credentials`` with the pages' origin in ``domains``
        answers ``sessionId``, ``accessToken``, ``publicKey`` and ``keyId``, which the iFrame's
        ``submit`` takes with the account's ``apiKey``, ``merchantId`` and ``terminalId`` (none
        of them the API secret, which only signs). The card is then charged as a
        ``PaymentSession`` of that ``sessionId``. CommerceHub binds no amount to it: payhub's
        checkout token does, and the charge is made for exactly that amount."""
        body = {"domains": [{"url": request.origin}]}
        answer = self._send(
            creds,
            "/payments-vas/v1/security/credentials",
            body,
            request_id_for("credentials", request.idempotency_key),
        )
        made = answer.body
        values = {name: made.get(name) for name in ("sessionId", "accessToken", "publicKey")}
        key_id = made.get("keyId")
        if not all(isinstance(v, str) and v for v in values.values()) or not key_id:
            raise _kit_unexpected(GATEWAY)
        public = {name: str(value) for name, value in values.items()}
        public["keyId"] = str(key_id)
        for name in ("apiKey", "merchantId", "terminalId"):
            public[name] = creds.fields.get(name, "").strip()
        return PayPageCheckout(reference=public["sessionId"], public=public)

    def checkout_reference(self, payment_token: str) -> str | None:
        """The page pays with the ``sessionId`` of its credentials: the token is the session."""
        return payment_token.strip() or None

    def save_payment_method(
        self, creds: GatewayCredentials, request: SaveMethodRequest
    ) -> SavedMethod:
        """Turn the hosted session into a TransArmor token (CommerceHub keeps no customer)."""
        if request.method_type is not MethodType.CARD:
            raise ValueError("Fiserv CommerceHub saves cards only in payhub")
        answer = self._send(
            creds,
            "/payments-vas/v1/tokens",
            {"source": {"sourceType": "PaymentSession", "sessionId": request.token}},
            request_id_for("token", request.idempotency_key or str(uuid.uuid4())),
            method_call=True,
        )
        tokens = answer.body.get("paymentTokens")
        first = tokens[0] if isinstance(tokens, list) and tokens else None
        if not isinstance(first, dict) or first.get("tokenResponseCode") != "000":
            raise PaymentMethodInvalid(
                "Fiserv could not keep this card; collect it again",
                gateway=GATEWAY,
                gateway_request_id=answer.request_id,
            )
        token_data = require_text(first, "tokenData", GATEWAY)
        raw = answer.body.get("source")
        card_raw = raw.get("card") if isinstance(raw, dict) else None
        card: Mapping[str, Any] = card_raw if isinstance(card_raw, dict) else {}
        month, year = _opt_int(card.get("expirationMonth")), _opt_int(card.get("expirationYear"))
        ref = token_data if month is None or year is None else f"{token_data}:{month:02d}:{year}"
        last4 = card.get("last4")
        return SavedMethod(
            gateway_customer_ref=request.gateway_customer_ref or request.customer_id,
            method_ref=ref,
            method_type=MethodType.CARD,
            brand=_BRANDS.get(str(card.get("scheme", "")).upper()),
            last4=last4 if isinstance(last4, str) and last4.isdigit() else None,
            exp_month=month,
            exp_year=year,
        )

    # --- helpers -------------------------------------------------------------------------

    def _send(
        self,
        creds: GatewayCredentials,
        path: str,
        body: dict[str, Any],
        client_request_id: str,
        *,
        method_call: bool = False,
    ) -> _Answer:
        """One signed POST. ``method_call``: a source error means the payer's card/token."""
        api_key = creds.fields.get("apiKey", "").strip()
        merchant_id = creds.fields.get("merchantId", "").strip()
        terminal_id = creds.fields.get("terminalId", "").strip()
        if not (api_key and merchant_id and terminal_id):
            raise GatewayCredentialsRejected(
                "Fiserv CommerceHub needs the apiKey, merchantId and terminalId fields with the"
                " API secret",
                gateway=GATEWAY,
            )
        payload = {
            **body,
            "merchantDetails": {"merchantId": merchant_id, "terminalId": terminal_id},
        }
        content = json_body(payload).decode()
        timestamp = str(int(self._now().timestamp() * 1000))
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json",
            "Api-Key": api_key,
            "Client-Request-Id": client_request_id,
            "Timestamp": timestamp,
            "Auth-Token-Type": "HMAC",
            "Authorization": signature(
                creds.api_secret, api_key, client_request_id, timestamp, content
            ),
        }
        base = SANDBOX_BASE if creds.sandbox else LIVE_BASE
        response = self.http.send("POST", base + path, headers=headers, content=content.encode())
        parsed = json_value(response.content)
        if isinstance(parsed, list) and parsed and isinstance(parsed[0], dict):
            parsed = parsed[0]  # transaction-inquiry answers a list
        if not isinstance(parsed, dict):
            raise _unexpected(client_request_id)
        answer = _Answer(parsed, response.status_code, client_request_id, "client_request_id")
        if response.status_code >= 400:
            raise _error_from(answer, method_call=method_call)
        return answer


def signature(secret: str, api_key: str, client_request_id: str, timestamp: str, body: str) -> str:
    """CommerceHub's HMAC: base64 HMAC-SHA256(secret, key + request id + timestamp + body)."""
    message = (api_key + client_request_id + timestamp + body).encode()
    return base64.b64encode(hmac.new(secret.encode(), message, hashlib.sha256).digest()).decode()


def request_id_for(operation: str, key: str) -> str:
    """The ``Client-Request-Id`` for one operation under payhub's key: stable across retries."""
    return str(uuid.uuid5(_NAMESPACE, f"{operation}:{key}"))


def _source(token: str | None, saved: str | None) -> dict[str, Any]:
    if token is not None:
        return {"sourceType": "PaymentSession", "sessionId": token}
    assert saved is not None
    token_data, _, expiry = saved.partition(":")
    source: dict[str, Any] = {
        "sourceType": "PaymentToken",
        "tokenData": token_data,
        "tokenSource": "TRANSARMOR",
    }
    month, _, year = expiry.partition(":")
    if month and year:
        source["card"] = {"expirationMonth": month, "expirationYear": year}
    return source


def _amount(money: Money) -> dict[str, Any]:
    if minor_unit_exponent(money.currency) > 2:
        raise ValidationError.for_field(
            "amount", f"Fiserv CommerceHub takes at most two decimals ({money.currency})"
        )
    return {"total": money.amount, "currency": money.currency}  # a JSON number, never a float


def _result(answer: _Answer, fallback: Money | None) -> GatewayResult:
    body = answer.body
    gateway = body.get("gatewayResponse")
    gw: Mapping[str, Any] = gateway if isinstance(gateway, dict) else {}
    state = _opt_str(gw.get("transactionState")) or ""
    details = gw.get("transactionProcessingDetails")
    transaction_id = details.get("transactionId") if isinstance(details, dict) else None
    if not isinstance(transaction_id, str):
        raise _unexpected(answer.request_id)
    receipt = body.get("paymentReceipt")
    rec: Mapping[str, Any] = receipt if isinstance(receipt, dict) else {}
    processor = rec.get("processorResponseDetails")
    proc: Mapping[str, Any] = processor if isinstance(processor, dict) else {}
    mapped = _STATES.get(state, GatewayStatus.PENDING)
    if proc.get("approvalStatus") == "DECLINED":
        mapped = GatewayStatus.DECLINED
    amount = _money(rec.get("approvedAmount")) or _money(body.get("amount")) or fallback
    if amount is None:
        raise _unexpected(answer.request_id)
    host_code = _opt_str(proc.get("hostResponseCode"))
    return GatewayResult(
        reference=transaction_id,
        status=mapped,
        amount=amount,
        decline_code=normalise_decline(host_code) if mapped is GatewayStatus.DECLINED else None,
        message=redact(proc.get("responseMessage")),
        support=answer.support(
            transaction_state=state, response_code=_opt_str(proc.get("responseCode"))
        ),
    )


def _money(raw: object) -> Money | None:
    if not isinstance(raw, dict):
        return None
    total, currency = raw.get("total"), raw.get("currency")
    if not isinstance(total, int | Decimal | str) or not isinstance(currency, str):
        return None
    try:
        return Money.of(Decimal(str(total)), currency.upper())
    except (InvalidOperation, ValidationError, ValueError):
        return None


def _approved(answer: _Answer) -> bool:
    """The processor approved the operation (``paymentReceipt`` ``approvalStatus``)."""
    receipt = answer.body.get("paymentReceipt")
    processor = receipt.get("processorResponseDetails") if isinstance(receipt, dict) else None
    return isinstance(processor, dict) and processor.get("approvalStatus") == "APPROVED"


def normalise_decline(code: object) -> str:
    """payhub's code for the issuer's ISO 8583 ``hostResponseCode``."""
    return declines.decline_code(code)


def _declined(answer: _Answer) -> Declined:
    receipt = answer.body.get("paymentReceipt")
    processor = receipt.get("processorResponseDetails") if isinstance(receipt, dict) else None
    proc: Mapping[str, Any] = processor if isinstance(processor, dict) else {}
    code = normalise_decline(proc.get("hostResponseCode"))
    return Declined(
        f"Fiserv declined the payment ({code})",
        gateway=GATEWAY,
        decline_code=code,
        gateway_message=redact(proc.get("responseMessage")),
        gateway_request_id=answer.request_id,
    )


def _refused(answer: _Answer, what: str) -> GatewayError:
    gateway = answer.body.get("gatewayResponse")
    state = gateway.get("transactionState") if isinstance(gateway, dict) else None
    return GatewayError(
        f"Fiserv did not accept the {what} ({state if isinstance(state, str) else 'unknown'})",
        gateway=GATEWAY,
        gateway_request_id=answer.request_id,
    )


def _error_from(answer: _Answer, *, method_call: bool) -> GatewayError:
    body = answer.body
    errors = body.get("error")
    first = errors[0] if isinstance(errors, list) and errors and isinstance(errors[0], dict) else {}
    kind, code, field = first.get("type"), first.get("code"), first.get("field")
    common: dict[str, Any] = {
        "gateway": GATEWAY,
        "gateway_message": redact(first.get("message")),
        "gateway_request_id": answer.request_id,
    }
    if isinstance(body.get("paymentReceipt"), dict) and kind == "HOST":
        return _declined(answer)
    if answer.status_code == 429:
        return GatewayUnavailable("Fiserv asked us to slow down; try again shortly", **common)
    if kind == "APIM" or code in ("401", "403"):
        return credentials_rejected(
            GATEWAY,
            label="Fiserv",
            gateway_message=common["gateway_message"],
            request_id=answer.request_id,
        )
    if method_call and isinstance(field, str) and field.startswith("source"):
        return PaymentMethodInvalid(
            "Fiserv cannot use this payment method (unknown, used or expired session or token);"
            " collect it again",
            **common,
        )
    if answer.status_code == 404 or (isinstance(field, str) and "referenceTransaction" in field):
        return GatewayError("Fiserv has no transaction with that reference", **common)
    label = code if isinstance(code, str) else answer.status_code
    return GatewayError(f"Fiserv refused the request ({label})", **common)


def _unexpected(request_id: str | None) -> GatewayError:
    return _kit_unexpected(GATEWAY, request_id, label="Fiserv")
