"""CyberSource, spoken through its REST API (Payments ``/pts/v2``, Transaction Search and
Details ``/tss/v2``) with HTTP Signature authentication, over httpx.

References relied on:

- HTTP Signature (``v-c-merchant-id``, ``Date``, ``Host``, ``Digest: SHA-256=…``, ``Signature:
  keyid, algorithm="HmacSHA256", headers, signature`` = base64 HMAC-SHA256 of the signing string
  under the base64-decoded shared secret): https://developer.cybersource.com/library/documentation/dev_guides/REST_API/Getting_Started/html/REST_GS/ch_authentication.5.3.htm
  and the SDK's ``SignatureParameterGenerator``/``HTTPSigToken`` (cybersource-rest-client-node);
  ``request-target`` is named *without* parentheses since April 2024:
  https://community.developer.cybersource.com/t5/cybersource-Developer-Blog/U-p-d-a-t-e-REST-API-Http-Signature-Authentication-Critical/ba-p/87319
- Hosts: ``apitest.cybersource.com`` (test) and ``api.cybersource.com`` (live); separate keys
  per environment: https://developer.cybersource.com/docs/cybs/en-us/platform/get-started/all/rest/get-started-rest/authentication.html
- Payments: ``POST /pts/v2/payments`` (``processingInformation.capture`` true = sale),
  ``/pts/v2/payments/{id}/captures``, ``/pts/v2/payments/{id}/reversals`` (releases an
  authorization: payhub's void), ``/pts/v2/payments/{id}/refunds`` (a sale) and
  ``/pts/v2/captures/{id}/refunds`` (a separate capture): CyberSource REST API reference, SDK
  docs ``PaymentsApi``, ``CaptureApi``, ``ReversalApi``, ``RefundApi``.
- Answers: 201 with ``status`` AUTHORIZED / PARTIAL_AUTHORIZED / AUTHORIZED_PENDING_REVIEW /
  AUTHORIZED_RISK_DECLINED / PENDING_AUTHENTICATION / PENDING_REVIEW / DECLINED and
  ``errorInformation.reason`` (INSUFFICIENT_FUND, EXPIRED_CARD, CVN_NOT_MATCH, …); 400
  ``INVALID_REQUEST`` with ``reason`` (MISSING_FIELD, INVALID_DATA, INVALID_CARD, …) and
  ``details[].field``; 502 ``SERVER_ERROR``: SDK models ``PtsV2PaymentsPost201Response``,
  ``PtsV2PaymentsPost400Response``.
- Transient tokens from Microform go in ``tokenInformation.transientTokenJwt``:
  https://developer.cybersource.com/docs/cybs/en-us/digital-accept-flex/developer/all/rest/digital-accept/da-payments.html
- Vault (TMS): an authorization with ``actionList: ["TOKEN_CREATE"]`` and ``actionTokenTypes``
  creates the customer and payment instrument (``tokenInformation.customer.id``,
  ``tokenInformation.paymentInstrument.id``);
  ``GET /tms/v2/customers/{customerId}/payment-instruments/{id}`` gives the card type, expiry
  and masked number; a saved card is charged with
  ``paymentInformation.customer.id`` + ``paymentInformation.paymentInstrument.id``.
- Transaction details ``GET /tss/v2/transactions/{id}`` (``applicationInformation.applications``
  with ``name`` ics_auth / ics_bill / ics_auth_reversal / ics_credit and ``rCode`` 1 = success,
  ``_links.relatedTransactions``) and search ``POST /tss/v2/searches`` with
  ``query: "clientReferenceInformation.code:…"``: SDK docs ``TransactionDetailsApi``,
  ``SearchTransactionsApi``, sample ``CreateSearchRequest``.

Choices a reader must know:

- CyberSource documents no idempotency key for REST payments. payhub's key goes out as
  ``clientReferenceInformation.code`` (hashed to 50 characters when longer) and ``lookup``
  searches for it, so a retried ``Unknown`` charge finds the first one instead of charging again.
  Transaction Search is not real-time, so a lookup right after a timeout may miss; see
  docs/gateways.md, open questions.
- A separately captured authorization is refunded through its capture, whose id is found in the
  authorization's related transactions.
- ``void`` is an authorization reversal (payhub voids only Authorized transactions).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import hmac
import json
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from email.utils import format_datetime
from typing import Any
from urllib.parse import urlsplit

import attrs
import httpx

from payhub.adapters.gateways.kit import declines
from payhub.adapters.gateways.kit.answers import json_object, require_text, unexpected
from payhub.adapters.gateways.kit.http import Answer as _Answer
from payhub.adapters.gateways.kit.http import GatewayHttp
from payhub.adapters.gateways.kit.http import opt_int as _opt_int
from payhub.adapters.gateways.kit.http import opt_str as _opt_str
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

GATEWAY = "cybersource"
SANDBOX_HOST = "apitest.cybersource.com"
LIVE_HOST = "api.cybersource.com"
CODE_MAX = 50  # clientReferenceInformation.code

# errorInformation.reason -> payhub's decline codes (an overlay on kit/declines.py).
_DECLINES = {
    "INSUFFICIENT_FUND": "insufficient_funds",
    "EXCEEDS_CREDIT_LIMIT": "insufficient_funds",
    "EXPIRED_CARD": "expired_card",
    "CVN_NOT_MATCH": "incorrect_cvc",
    "INVALID_CVN": "incorrect_cvc",
    "CV_FAILED": "incorrect_cvc",
    "STOLEN_LOST_CARD": "fraudulent",
    "BLACKLISTED_CUSTOMER": "fraudulent",
    "DECISION_PROFILE_REJECT": "fraudulent",
    "SCORE_EXCEEDS_THRESHOLD": "fraudulent",
    "ISSUER_UNAVAILABLE": "processing_error",
    "PROCESSOR_ERROR": "processing_error",
    "PROCESSOR_UNAVAILABLE": "processing_error",
}
# 400 reasons that mean the card or token itself cannot be used.
_METHOD_REASONS = frozenset({"INVALID_CARD", "CARD_TYPE_NOT_ACCEPTED", "INVALID_CARD_TYPE"})
_METHOD_FIELDS = ("tokenInformation", "paymentInformation")
# TMS card types (https://developer.cybersource.com/docs/cybs/en-us/tms/...: card type codes).
_CARD_TYPES = {
    "001": "visa",
    "002": "mastercard",
    "003": "amex",
    "004": "discover",
    "005": "diners",
    "007": "jcb",
    "042": "maestro",
    "062": "unionpay",
}


def _now() -> datetime:
    return datetime.now(UTC)


class CyberSourceGateway:
    """The ``Gateway`` port for CyberSource (cards; Microform tokens and TMS tokens)."""

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
            raise ValueError("CyberSource takes cards only in payhub")
        body: dict[str, Any] = {
            "clientReferenceInformation": {"code": reference_code(request.idempotency_key)},
            "processingInformation": {"capture": request.capture},
            "orderInformation": {"amountDetails": _amount(request.amount)},
        }
        if request.description:
            body["clientReferenceInformation"]["comments"] = request.description[:255]
        if source.token is not None:
            body["tokenInformation"] = {"transientTokenJwt": source.token}
        else:
            if source.gateway_customer_ref is None:
                raise ValueError("a saved CyberSource card is charged with its customer")
            body["paymentInformation"] = {
                "customer": {"id": source.gateway_customer_ref},
                "paymentInstrument": {"id": source.saved_method_ref},
            }
        answer = self._send(creds, "POST", "/pts/v2/payments", body)
        return self._payment_result(creds, answer, request.amount, request.capture)

    def lookup(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult | None:
        """Find the charge sent under this idempotency key (its answer was lost)."""
        code = reference_code(request.idempotency_key)
        answer = self._send(
            creds,
            "POST",
            "/tss/v2/searches",
            {
                "save": False,
                "name": "payhub lookup",
                "timezone": "UTC",
                "query": f"clientReferenceInformation.code:{code}",
                "offset": 0,
                "limit": 20,
                "sort": "submitTimeUtc:desc",
            },
        )
        embedded = answer.body.get("_embedded")
        summaries = embedded.get("transactionSummaries") if isinstance(embedded, dict) else None
        for summary in summaries if isinstance(summaries, list) else []:
            if not isinstance(summary, dict):
                continue
            reference = summary.get("clientReferenceInformation")
            if not isinstance(reference, dict) or reference.get("code") != code:
                continue
            apps = _applications(summary)
            if apps.get("ics_auth") is True:
                status = (
                    GatewayStatus.CAPTURED
                    if apps.get("ics_bill") is True
                    else GatewayStatus.AUTHORIZED
                )
                return GatewayResult(
                    reference=require_text(summary, "id", GATEWAY),
                    status=status,
                    amount=request.amount,
                    message="found by clientReferenceInformation.code",
                    support=answer.support(found_by="lookup"),
                )
        return None

    def capture(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        answer = self._send(
            creds,
            "POST",
            f"/pts/v2/payments/{_path(reference)}/captures",
            {
                "clientReferenceInformation": {"code": reference_code(idempotency_key)},
                "orderInformation": {"amountDetails": _amount(amount)},
            },
        )
        status = _opt_str(answer.body.get("status"))
        if status not in ("PENDING", "TRANSMITTED"):
            raise _refused(answer, "capture")
        return GatewayResult(
            reference=reference,
            status=GatewayStatus.CAPTURED,
            amount=amount,
            message=f"capture {status}",
            support=answer.support(
                cybersource_status=status, capture_id=_opt_str(answer.body.get("id"))
            ),
        )

    def refund(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        """Refund a sale through the payment, a separate capture through the capture."""
        history = self._history(creds, reference)
        if history.main.get("ics_bill") is True:
            path = f"/pts/v2/payments/{_path(reference)}/refunds"
        elif history.capture_id is not None:
            path = f"/pts/v2/captures/{_path(history.capture_id)}/refunds"
        else:
            raise GatewayError(
                "CyberSource has no capture of this payment to refund", gateway=GATEWAY
            )
        answer = self._send(
            creds,
            "POST",
            path,
            {
                "clientReferenceInformation": {"code": reference_code(idempotency_key)},
                "orderInformation": {"amountDetails": _amount(amount)},
            },
        )
        status = _opt_str(answer.body.get("status"))
        if status not in ("PENDING", "TRANSMITTED"):
            raise _refused(answer, "refund")
        return GatewayResult(
            reference=require_text(answer.body, "id", GATEWAY),
            status=GatewayStatus.REFUNDED,
            amount=amount,
            message=f"refund {status}",
            support=answer.support(cybersource_status=status, payment_id=reference),
        )

    def void(
        self, creds: GatewayCredentials, reference: str, idempotency_key: str
    ) -> GatewayResult:
        """Reverse the whole authorization (the amount comes from CyberSource's own record)."""
        detail = self._details(creds, reference)
        amount = _detail_amount(detail.body)
        answer = self._send(
            creds,
            "POST",
            f"/pts/v2/payments/{_path(reference)}/reversals",
            {
                "clientReferenceInformation": {"code": reference_code(idempotency_key)},
                "reversalInformation": {
                    "amountDetails": {"totalAmount": _decimal(amount)},
                    "reason": "payhub void",
                },
            },
        )
        status = _opt_str(answer.body.get("status"))
        if status != "REVERSED":
            raise _refused(answer, "reversal")
        return GatewayResult(
            reference=reference,
            status=GatewayStatus.VOIDED,
            amount=amount,
            message="authorization reversed",
            support=answer.support(
                cybersource_status=status, reversal_id=_opt_str(answer.body.get("id"))
            ),
        )

    def status(self, creds: GatewayCredentials, reference: str) -> GatewayResult:
        history = self._history(creds, reference)
        amount = _detail_amount(history.detail.body)
        main = history.main
        if main.get("ics_auth") is False:
            status = GatewayStatus.DECLINED
        elif main.get("ics_auth_reversal") is True or history.reversed:
            status = GatewayStatus.VOIDED
        elif history.refunded >= amount.amount and (main.get("ics_bill") or history.capture_id):
            status = GatewayStatus.REFUNDED
        elif main.get("ics_bill") is True or history.capture_id is not None:
            status = GatewayStatus.CAPTURED
        elif main.get("ics_auth") is True:
            status = GatewayStatus.AUTHORIZED
        else:
            status = GatewayStatus.PENDING
        return GatewayResult(
            reference=reference,
            status=status,
            amount=amount,
            support=history.detail.support(applications=",".join(sorted(main))),
        )

    def pay_page_session(self, creds: GatewayCredentials, origin: str) -> dict[str, str]:
        """Microform v2's capture context for one pay-page view: ``POST
        /microform/v2/sessions`` (``GenerateCaptureContextRequest``: clientVersion v2.0, the
        pages' origin as targetOrigins, the card networks) answers a JWT (application/jwt)
        that ``new Flex(captureContext)`` takes in the browser; it is signed by CyberSource
        and carries only public values (a public key, the origin, the client library)."""
        merchant_id = creds.fields.get("merchantId", "").strip()
        key_id = creds.fields.get("keyId", "").strip()
        if not merchant_id or not key_id:
            raise GatewayCredentialsRejected(
                "CyberSource needs the merchantId and keyId fields with the shared secret",
                gateway=GATEWAY,
            )
        host = SANDBOX_HOST if creds.sandbox else LIVE_HOST
        path = "/microform/v2/sessions"
        body = {
            "clientVersion": "v2.0",
            "targetOrigins": [origin],
            "allowedCardNetworks": ["VISA", "MASTERCARD", "AMEX", "DISCOVER"],
        }
        content = json.dumps(body, separators=(",", ":")).encode()
        headers = signed_headers(
            merchant_id=merchant_id,
            key_id=key_id,
            secret=creds.api_secret,
            host=host,
            method="POST",
            path=path,
            body=content,
            date=self._now(),
        )
        headers["Accept"] = "application/jwt"
        headers["Content-Type"] = "application/json;charset=utf-8"
        response = self.http.send("POST", f"https://{host}{path}", headers=headers, content=content)
        request_id = response.headers.get("v-c-correlation-id")
        if response.status_code >= 400:
            raise _error_from(_Answer(json_object(response.content, GATEWAY, request_id),
                                      response.status_code, request_id))  # fmt: skip
        jwt = response.text.strip()
        if jwt.count(".") != 2:
            raise unexpected(GATEWAY, request_id)
        return {"captureContext": jwt}

    def save_payment_method(
        self, creds: GatewayCredentials, request: SaveMethodRequest
    ) -> SavedMethod:
        """A zero-amount authorization that creates the TMS tokens (customer when new)."""
        if request.method_type is not MethodType.CARD:
            raise ValueError("CyberSource saves cards only in payhub")
        types = (
            ["paymentInstrument"]
            if request.gateway_customer_ref
            else ["customer", "paymentInstrument"]
        )
        body: dict[str, Any] = {
            "clientReferenceInformation": {
                "code": reference_code(request.idempotency_key or f"save-{request.customer_id}")
            },
            "processingInformation": {
                "capture": False,
                "actionList": ["TOKEN_CREATE"],
                "actionTokenTypes": types,
            },
            "tokenInformation": {"transientTokenJwt": request.token},
            "orderInformation": {"amountDetails": {"totalAmount": "0.00", "currency": "USD"}},
        }
        if request.gateway_customer_ref:
            body["paymentInformation"] = {"customer": {"id": request.gateway_customer_ref}}
        else:
            body["buyerInformation"] = {"merchantCustomerId": request.customer_id[:100]}
            if request.email:
                body["orderInformation"]["billTo"] = {"email": request.email}
        answer = self._send(creds, "POST", "/pts/v2/payments", body)
        status = _opt_str(answer.body.get("status"))
        if status != "AUTHORIZED":
            raise _declined(answer)
        tokens = answer.body.get("tokenInformation")
        tokens = tokens if isinstance(tokens, dict) else {}
        customer = request.gateway_customer_ref or _nested_id(tokens, "customer")
        instrument = _nested_id(tokens, "paymentInstrument")
        if customer is None or instrument is None:
            raise unexpected(GATEWAY, answer.request_id)
        card = self._send(
            creds,
            "GET",
            f"/tms/v2/customers/{_path(customer)}/payment-instruments/{_path(instrument)}",
            None,
        )
        return _saved_card(customer, instrument, card.body)

    # --- helpers -------------------------------------------------------------------------

    def _payment_result(
        self, creds: GatewayCredentials, answer: _Answer, amount: Money, capture: bool
    ) -> GatewayResult:
        body = answer.body
        status = _opt_str(body.get("status"))
        payment_id = _opt_str(body.get("id"))
        support = answer.support(cybersource_status=status)
        if status == "AUTHORIZED":
            return GatewayResult(
                reference=require_text(body, "id", GATEWAY),
                status=GatewayStatus.CAPTURED if capture else GatewayStatus.AUTHORIZED,
                amount=amount,
                message="approved",
                support=support,
            )
        if status in ("AUTHORIZED_PENDING_REVIEW", "PENDING_REVIEW"):
            return GatewayResult(
                reference=require_text(body, "id", GATEWAY),
                status=GatewayStatus.PENDING,
                amount=amount,
                message="held for review in Decision Manager",
                support=support,
            )
        if status in ("PARTIAL_AUTHORIZED", "AUTHORIZED_RISK_DECLINED") and payment_id:
            # payhub does not take part of an amount, nor a charge its fraud rules refused:
            # release the hold and report a decline.
            self._reverse_quietly(creds, payment_id, amount)
        if status == "PARTIAL_AUTHORIZED":
            raise Declined(
                "CyberSource approved only part of the amount (insufficient_funds)",
                gateway=GATEWAY,
                decline_code="insufficient_funds",
                gateway_request_id=answer.request_id,
            )
        if status == "PENDING_AUTHENTICATION":
            raise Declined(
                "CyberSource declined the payment: the card asks for authentication payhub"
                " cannot run",
                gateway=GATEWAY,
                decline_code="generic_decline",
                gateway_request_id=answer.request_id,
            )
        raise _declined(answer)

    def _reverse_quietly(self, creds: GatewayCredentials, payment_id: str, amount: Money) -> None:
        with contextlib.suppress(GatewayError):
            self._send(
                creds,
                "POST",
                f"/pts/v2/payments/{_path(payment_id)}/reversals",
                {
                    "clientReferenceInformation": {"code": reference_code(f"undo-{payment_id}")},
                    "reversalInformation": {
                        "amountDetails": {"totalAmount": _decimal(amount)},
                        "reason": "not accepted by payhub",
                    },
                },
            )

    def _details(self, creds: GatewayCredentials, transaction_id: str) -> _Answer:
        return self._send(creds, "GET", f"/tss/v2/transactions/{_path(transaction_id)}", None)

    def _history(self, creds: GatewayCredentials, reference: str) -> _History:
        """The payment's details and what its related transactions did (captures, refunds)."""
        detail = self._details(creds, reference)
        history = _History(detail=detail, main=_applications(detail.body))
        links = detail.body.get("_links")
        related = links.get("relatedTransactions") if isinstance(links, dict) else None
        for link in (related if isinstance(related, list) else [])[:20]:
            href = link.get("href") if isinstance(link, dict) else None
            if not isinstance(href, str):
                continue
            other_id = urlsplit(href).path.rstrip("/").rsplit("/", 1)[-1]
            if not other_id or other_id == reference:
                continue
            other = self._details(creds, other_id).body
            apps = _applications(other)
            if apps.get("ics_bill") is True and history.capture_id is None:
                history.capture_id = other_id
            if apps.get("ics_credit") is True:
                history.refunded += _detail_amount(other).amount
            if apps.get("ics_auth_reversal") is True:
                history.reversed = True
        return history

    def _send(
        self,
        creds: GatewayCredentials,
        method: str,
        path: str,
        body: Mapping[str, Any] | None,
    ) -> _Answer:
        merchant_id = creds.fields.get("merchantId", "").strip()
        key_id = creds.fields.get("keyId", "").strip()
        if not merchant_id or not key_id:
            raise GatewayCredentialsRejected(
                "CyberSource needs the merchantId and keyId fields with the shared secret",
                gateway=GATEWAY,
            )
        host = SANDBOX_HOST if creds.sandbox else LIVE_HOST
        content = json.dumps(body, separators=(",", ":")).encode() if body is not None else b""
        headers = signed_headers(
            merchant_id=merchant_id,
            key_id=key_id,
            secret=creds.api_secret,
            host=host,
            method=method,
            path=path,
            body=content if body is not None else None,
            date=self._now(),
        )
        headers["Accept"] = "application/hal+json;charset=utf-8"
        if body is not None:
            headers["Content-Type"] = "application/json;charset=utf-8"
        response = self.http.send(
            method, f"https://{host}{path}", headers=headers, content=content or None
        )
        request_id = response.headers.get("v-c-correlation-id")
        parsed = json_object(response.content, GATEWAY, request_id)
        answer = _Answer(parsed, response.status_code, request_id)
        if response.status_code >= 400:
            raise _error_from(answer)
        return answer


@attrs.define
class _History:
    detail: _Answer
    main: dict[str, bool]
    capture_id: str | None = None
    refunded: Decimal = Decimal(0)
    reversed: bool = False


# --- signing ---------------------------------------------------------------------------------


def signed_headers(
    *,
    merchant_id: str,
    key_id: str,
    secret: str,
    host: str,
    method: str,
    path: str,
    body: bytes | None,
    date: datetime,
) -> dict[str, str]:
    """The HTTP Signature headers for one request (``Digest`` only when there is a body)."""
    try:
        key = base64.b64decode(secret, validate=True)
    except (binascii.Error, ValueError):
        raise GatewayCredentialsRejected(
            "the CyberSource shared secret is not base64 (copy it from the Business Center)",
            gateway=GATEWAY,
        ) from None
    headers = {
        "v-c-merchant-id": merchant_id,
        "Date": format_datetime(date.astimezone(UTC), usegmt=True),
        "Host": host,
    }
    lines = [
        f"host: {host}",
        f"date: {headers['Date']}",
        f"request-target: {method.lower()} {path}",
    ]
    names = ["host", "date", "request-target"]
    if body is not None:
        headers["Digest"] = "SHA-256=" + base64.b64encode(hashlib.sha256(body).digest()).decode()
        lines.append(f"digest: {headers['Digest']}")
        names.append("digest")
    lines.append(f"v-c-merchant-id: {merchant_id}")
    names.append("v-c-merchant-id")
    signature = base64.b64encode(
        hmac.new(key, "\n".join(lines).encode(), hashlib.sha256).digest()
    ).decode()
    headers["Signature"] = (
        f'keyid="{key_id}", algorithm="HmacSHA256", headers="{" ".join(names)}",'
        f' signature="{signature}"'
    )
    return headers


def reference_code(key: str) -> str:
    """payhub's key as ``clientReferenceInformation.code``: as is, or hashed when too long."""
    if 0 < len(key) <= CODE_MAX and key.isascii():
        return key
    return "ph-" + hashlib.sha256(key.encode()).hexdigest()[: CODE_MAX - 3]


# --- amounts ---------------------------------------------------------------------------------


def _decimal(money: Money) -> str:
    return f"{money.amount:.{minor_unit_exponent(money.currency)}f}"


def _amount(money: Money) -> dict[str, str]:
    return {"totalAmount": _decimal(money), "currency": money.currency}


def _detail_amount(body: Mapping[str, Any]) -> Money:
    order = body.get("orderInformation")
    details = order.get("amountDetails") if isinstance(order, dict) else None
    if not isinstance(details, dict):
        raise unexpected(GATEWAY, None)
    try:
        return Money.of(
            Decimal(str(details.get("totalAmount"))), str(details.get("currency", "")).upper()
        )
    except (InvalidOperation, ValidationError, KeyError, ValueError):
        raise unexpected(GATEWAY, None) from None


# --- answers ---------------------------------------------------------------------------------


def _applications(body: Mapping[str, Any]) -> dict[str, bool]:
    """Each CyberSource application on a transaction (ics_auth, ics_bill, …) and whether it
    succeeded (``rCode`` 1)."""
    info = body.get("applicationInformation")
    apps = info.get("applications") if isinstance(info, dict) else None
    found: dict[str, bool] = {}
    for app in apps if isinstance(apps, list) else []:
        if isinstance(app, dict) and isinstance(app.get("name"), str):
            found[app["name"]] = str(app.get("rCode")) == "1"
    return found


def _saved_card(customer: str, instrument: str, body: Mapping[str, Any]) -> SavedMethod:
    raw = body.get("card")
    card: Mapping[str, Any] = raw if isinstance(raw, dict) else {}
    embedded = body.get("_embedded")
    identifier = embedded.get("instrumentIdentifier") if isinstance(embedded, dict) else None
    id_card = identifier.get("card") if isinstance(identifier, dict) else None
    number = id_card.get("number") if isinstance(id_card, dict) else None
    return SavedMethod(
        gateway_customer_ref=customer,
        method_ref=instrument,
        method_type=MethodType.CARD,
        brand=_CARD_TYPES.get(str(card.get("type"))),
        last4=number[-4:] if isinstance(number, str) and number[-4:].isdigit() else None,
        exp_month=_opt_int(card.get("expirationMonth")),
        exp_year=_opt_int(card.get("expirationYear")),
    )


def normalise_decline(reason: object) -> str:
    """CyberSource's own reason words as an overlay on the kit's decline table."""
    return declines.decline_code(reason, overlay=_DECLINES)


def _declined(answer: _Answer) -> GatewayError:
    error = answer.body.get("errorInformation")
    fields: Mapping[str, Any] = error if isinstance(error, dict) else {}
    reason = fields.get("reason")
    if reason == "INVALID_MERCHANT_CONFIGURATION":
        return GatewayError(
            "CyberSource refused the payment: the merchant account is not configured for it",
            gateway=GATEWAY,
            gateway_message=redact(fields.get("message")),
            gateway_request_id=answer.request_id,
        )
    code = normalise_decline(reason)
    return Declined(
        f"CyberSource declined the payment ({code})",
        gateway=GATEWAY,
        decline_code=code,
        gateway_message=redact(fields.get("message")),
        gateway_request_id=answer.request_id,
    )


def _refused(answer: _Answer, what: str) -> GatewayError:
    status = _opt_str(answer.body.get("status")) or "unknown"
    return GatewayError(
        f"CyberSource did not accept the {what} ({status})",
        gateway=GATEWAY,
        gateway_message=redact(answer.body.get("message")),
        gateway_request_id=answer.request_id,
    )


def _error_from(answer: _Answer) -> GatewayError:
    """A 4xx answer (401/403/5xx were handled by GatewayHttp)."""
    body = answer.body
    reason = _opt_str(body.get("reason")) or ""
    message = redact(body.get("message"))
    common: dict[str, Any] = {
        "gateway": GATEWAY,
        "gateway_message": message,
        "gateway_request_id": answer.request_id,
    }
    details = body.get("details")
    fields = [
        d.get("field", "")
        for d in (details if isinstance(details, list) else [])
        if isinstance(d, dict) and isinstance(d.get("field"), str)
    ]
    if answer.status_code == 429:
        return GatewayUnavailable("CyberSource asked us to slow down; try again shortly", **common)
    if reason in _METHOD_REASONS or (
        reason in ("INVALID_DATA", "MISSING_FIELD")
        and any(f.startswith(_METHOD_FIELDS) for f in fields)
    ):
        return PaymentMethodInvalid(
            "CyberSource cannot use this payment method (unknown, used or expired token);"
            " collect it again",
            **common,
        )
    if reason == "PROCESSOR_UNAVAILABLE":
        return GatewayUnavailable("CyberSource's processor is unavailable; try again", **common)
    if answer.status_code == 404:
        return GatewayError("CyberSource has no transaction with that reference", **common)
    label = reason or str(answer.status_code)
    return GatewayError(f"CyberSource refused the request ({label})", **common)


def _nested_id(obj: Mapping[str, Any], key: str) -> str | None:
    inner = obj.get(key)
    return _opt_str(inner.get("id")) if isinstance(inner, dict) else None
