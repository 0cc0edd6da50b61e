"""Adyen, through its Checkout API v71: payments, modifications and stored payment methods.

References relied on:

- Endpoints and hosts (test ``checkout-test.adyen.com/v71``; live
  ``{PREFIX}-checkout-live.adyenpayments.com/checkout/v71``):
  https://docs.adyen.com/development-resources/live-endpoints,
  https://docs.adyen.com/api-explorer/Checkout/71/overview
- Authentication (``X-API-Key``): https://docs.adyen.com/development-resources/api-credentials
- ``POST /payments`` (amount in minor units, ``reference``, ``merchantAccount``,
  ``paymentMethod`` from Web Components' ``state.data``, ``captureDelayHours``,
  ``additionalData.manualCapture``, ``shopperInteraction`` ContAuth +
  ``recurringProcessingModel`` for stored methods; ``resultCode``, ``refusalReason``,
  ``refusalReasonCode``): https://docs.adyen.com/api-explorer/Checkout/71/post/payments
- Modifications (``/payments/{paymentPspReference}/captures|refunds|cancels``, answered 201
  ``status: received``; the outcome arrives later as a webhook):
  https://docs.adyen.com/online-payments/capture, https://docs.adyen.com/online-payments/refund,
  https://docs.adyen.com/online-payments/cancel
- Tokenization (``POST /storedPaymentMethods``, answered with ``id``, ``brand``, ``lastFour``,
  ``expiryMonth``, two-digit ``expiryYear``):
  https://docs.adyen.com/api-explorer/Checkout/71/post/storedPaymentMethods,
  https://docs.adyen.com/online-payments/tokenization
- Idempotency (``Idempotency-Key`` on POSTs, at most 64 characters):
  https://docs.adyen.com/development-resources/api-idempotency
- Errors (``status``, ``errorCode``, ``message``, ``errorType``, ``pspReference``) and refusal
  reasons: https://docs.adyen.com/development-resources/error-codes,
  https://docs.adyen.com/development-resources/refusal-reasons
- Test card data (``test_``-prefixed unencrypted fields; refusal reasons triggered through the
  holder name): https://docs.adyen.com/development-resources/testing/test-card-numbers,
  https://docs.adyen.com/development-resources/testing/result-codes

Choices a reader must know:

- Credentials: ``apiSecret`` is the API key; ``merchantAccount`` is required; live accounts also
  need ``liveUrlPrefix`` (the account's unique prefix). Adyen keys do not say their mode, so the
  host (test vs live) follows ``creds.sandbox``.
- The payer's card is the JSON of Web Components' ``state.data.paymentMethod`` (encrypted
  fields, ``type: scheme``); it is sent as is, never read.
- A sale sends ``captureDelayHours: 0``, an authorization ``additionalData.manualCapture``,
  whatever the account's default capture setting, so payhub decides.
- Modifications are asynchronous at Adyen: a capture, refund or cancel is *received* and its
  success comes by webhook. The adapter reports them as ``pending`` with Adyen's
  ``pspReference`` of the modification (the reference its webhook names); payhub records the
  move it asked for and settles it when the webhook comes (``read_notifications``,
  ``notifications.py``).
- ``status``: Adyen has no API to read a payment back (its webhooks carry every outcome), so
  ``status`` refuses with a ``GatewayError`` that says so instead of guessing. A charge whose
  answer was lost is settled by retrying it: the retry carries the same ``Idempotency-Key`` and
  Adyen returns the first answer instead of charging again.
- payhub's key (hashed to 64 characters when longer) is the ``Idempotency-Key`` of every POST and
  the payment's ``reference``.
- ``returnUrl`` is required on every ``/payments`` call (Checkout v71's PaymentRequest), though
  it is used only to bring a redirected shopper back. payhub runs no redirect or 3-D Secure
  challenge (such answers are reported as declines), so it sends ``RETURN_URL``, an address
  that is never visited.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

import attrs
import httpx

from payhub.adapters.gateways.adyen import notifications
from payhub.adapters.gateways.adyen.amounts import adyen_amount, adyen_money
from payhub.adapters.gateways.kit import declines
from payhub.adapters.gateways.kit.answers import (
    credentials_rejected,
    json_object,
    require_text,
)
from payhub.adapters.gateways.kit.http import GatewayHttp
from payhub.adapters.gateways.kit.redaction import redact
from payhub.domain.money import Money
from payhub.domain.payments import (
    ChargeRequest,
    Declined,
    GatewayCredentials,
    GatewayCredentialsRejected,
    GatewayError,
    GatewayNotification,
    GatewayResult,
    GatewayStatus,
    GatewayUnavailable,
    MethodType,
    PaymentMethodInvalid,
    SavedMethod,
    SaveMethodRequest,
)

GATEWAY = "adyen"
RETURN_URL = "https://payhub.invalid/adyen/no-redirect"  # required by Adyen, never visited
API_VERSION = "v71"
TEST_BASE = f"https://checkout-test.adyen.com/{API_VERSION}"
LIVE_BASE = "https://{prefix}-checkout-live.adyenpayments.com/checkout/" + API_VERSION

# refusalReasonCode -> payhub's decline code (https://docs.adyen.com/development-resources/refusal-reasons)
_REFUSALS = {
    "12": "insufficient_funds",  # Not enough balance
    "6": "expired_card",  # Expired Card
    "24": "incorrect_cvc",  # CVC Declined
    "5": "fraudulent",  # Blocked Card
    "14": "fraudulent",  # Acquirer Fraud
    "20": "fraudulent",  # FRAUD
    "22": "fraudulent",  # FRAUD-CANCELLED
    "31": "fraudulent",  # Issuer Suspected Fraud
    "4": "processing_error",  # Acquirer Error
    "9": "processing_error",  # Issuer Unavailable
}
# errorCode values that mean "this payment method cannot be used".
_METHOD_ERRORS = frozenset(
    {"101", "102", "103", "129", "130", "174", "800", "803", "14_006", "14_013"}
)
_PREFIX = re.compile(r"^[A-Za-z0-9-]{1,80}$")
# Adyen's pspReferences: blanked in any text it sends back (kit redaction).
_HEX_LIKE = re.compile(r"\b[A-Z0-9]{16}\b")


@attrs.frozen
class _Answer:
    body: dict[str, Any]
    status_code: int

    def support(self, **extra: str | None) -> dict[str, str]:
        note = {"http_status": str(self.status_code)}
        psp = self.body.get("pspReference")
        if isinstance(psp, str):
            note["psp_reference"] = psp
        note.update({k: v for k, v in extra.items() if v})
        return note


class AdyenGateway:
    """The ``Gateway`` port for Adyen (cards; Web Components and stored payment methods)."""

    name = GATEWAY

    def __init__(self, client: httpx.Client | None = None) -> None:
        self.http = GatewayHttp(GATEWAY, client)

    # --- the port ----------------------------------------------------------------------

    def charge(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult:
        source = request.source
        if source.method_type is not MethodType.CARD:
            raise ValueError("Adyen takes only cards in payhub")
        body: dict[str, Any] = {
            "amount": adyen_amount(request.amount),
            "reference": _key(request.idempotency_key),
            "returnUrl": RETURN_URL,
        }
        if request.capture:
            body["captureDelayHours"] = 0
        else:
            body["additionalData"] = {"manualCapture": "true"}
        if request.description:
            body["shopperStatement"] = request.description[:22]
        if source.token is not None:
            body["paymentMethod"] = _component_method(source.token)
            body["shopperInteraction"] = "Ecommerce"
        else:
            if source.gateway_customer_ref is None:
                raise ValueError("a stored Adyen payment method is charged with its shopper")
            body["paymentMethod"] = {
                "type": "scheme",
                "storedPaymentMethodId": source.saved_method_ref,
            }
            body["shopperReference"] = source.gateway_customer_ref
            body["shopperInteraction"] = "ContAuth"
            body["recurringProcessingModel"] = "UnscheduledCardOnFile"
        answer = self._post(creds, "/payments", body, request.idempotency_key, method=True)
        result = answer.body
        code = result.get("resultCode")
        psp = result.get("pspReference")
        if code == "Authorised" and isinstance(psp, str):
            return GatewayResult(
                reference=psp,
                status=GatewayStatus.CAPTURED if request.capture else GatewayStatus.AUTHORIZED,
                amount=adyen_money(result.get("amount")) or request.amount,
                support=answer.support(result_code=code),
            )
        if code in ("Received", "Pending") and isinstance(psp, str):
            return GatewayResult(
                reference=psp,
                status=GatewayStatus.PENDING,
                amount=request.amount,
                message="Adyen received the payment; its outcome comes by webhook",
                support=answer.support(result_code=str(code)),
            )
        raise _refused(result, answer.support(result_code=str(code)))

    def capture(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        return self._modify(
            creds,
            reference,
            "captures",
            {"amount": adyen_amount(amount), "reference": _key(idempotency_key)},
            idempotency_key,
            amount,
        )

    def refund(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        return self._modify(
            creds,
            reference,
            "refunds",
            {"amount": adyen_amount(amount), "reference": _key(idempotency_key)},
            idempotency_key,
            amount,
        )

    def void(
        self, creds: GatewayCredentials, reference: str, idempotency_key: str
    ) -> GatewayResult:
        return self._modify(
            creds, reference, "cancels", {"reference": _key(idempotency_key)}, idempotency_key, None
        )

    def status(self, creds: GatewayCredentials, reference: str) -> GatewayResult:
        """Adyen cannot be asked: see the module docstring."""
        raise GatewayError(
            "Adyen has no API to look a payment up; it reports outcomes by webhook. A charge"
            " left Unknown is settled by retrying it with the same Idempotency-Key",
            gateway=GATEWAY,
        )

    def save_payment_method(
        self, creds: GatewayCredentials, request: SaveMethodRequest
    ) -> SavedMethod:
        if request.method_type is not MethodType.CARD:
            raise ValueError("Adyen saves only cards in payhub")
        shopper = request.gateway_customer_ref or request.customer_id
        body: dict[str, Any] = {
            "paymentMethod": _component_method(request.token),
            "shopperReference": shopper,
            "recurringProcessingModel": "UnscheduledCardOnFile",
        }
        if request.email:
            body["shopperEmail"] = request.email
        key = request.idempotency_key or f"save-{_digest(shopper + request.token)}"
        answer = self._post(creds, "/storedPaymentMethods", body, key, method=True)
        stored = answer.body
        year = stored.get("expiryYear")
        month = stored.get("expiryMonth")
        return SavedMethod(
            gateway_customer_ref=shopper,
            method_ref=require_text(stored, "id", GATEWAY),
            method_type=MethodType.CARD,
            brand=_opt_str(stored.get("brand")),
            last4=_opt_str(stored.get("lastFour")),
            exp_month=int(month) if isinstance(month, str) and month.isdigit() else None,
            exp_year=2000 + int(year)
            if isinstance(year, str) and len(year) == 2 and year.isdigit()
            else (int(year) if isinstance(year, str) and year.isdigit() else None),
        )

    def read_notifications(
        self, creds: GatewayCredentials, body: bytes, authorization: str | None
    ) -> list[GatewayNotification]:
        """Adyen's webhooks: see ``notifications.py`` (``ReadsNotifications``)."""
        return notifications.read(creds, body, authorization)

    # --- helpers -------------------------------------------------------------------------

    def _modify(
        self,
        creds: GatewayCredentials,
        reference: str,
        kind: str,
        body: dict[str, Any],
        idempotency_key: str,
        amount: Money | None,
    ) -> GatewayResult:
        answer = self._post(
            creds, f"/payments/{quote(reference, safe='')}/{kind}", body, idempotency_key
        )
        modification = answer.body
        status = _opt_str(modification.get("status")) or "received"
        return GatewayResult(
            # The modification's own pspReference: the one its webhook names.
            reference=require_text(modification, "pspReference", GATEWAY),
            status=GatewayStatus.PENDING,
            amount=adyen_money(modification.get("amount")) or amount or _zero(),
            message=f"Adyen {status} the {kind[:-1]}; it confirms by webhook",
            support=answer.support(
                adyen_status=status, payment=_opt_str(modification.get("paymentPspReference"))
            ),
        )

    def _post(
        self,
        creds: GatewayCredentials,
        path: str,
        body: dict[str, Any],
        idempotency_key: str,
        *,
        method: bool = False,
    ) -> _Answer:
        merchant = creds.fields.get("merchantAccount", "").strip()
        if not merchant:
            raise GatewayCredentialsRejected(
                "Adyen needs the merchant account: set additionalFields.merchantAccount with"
                " PUT /api/merchant-accounts/{ref}/credentials/adyen",
                gateway=GATEWAY,
            )
        response = self.http.send(
            "POST",
            _base(creds) + path,
            headers={
                "X-API-Key": creds.api_secret,
                "Content-Type": "application/json",
                "Accept": "application/json",
                "Idempotency-Key": _key(idempotency_key),
            },
            content=json.dumps({**body, "merchantAccount": merchant}).encode(),
        )
        parsed = json_object(response.content, GATEWAY)
        if response.status_code >= 400:
            raise _error_from(response.status_code, parsed, method)
        return _Answer(parsed, response.status_code)


# --- amounts ---------------------------------------------------------------------------------


def _zero() -> Money:
    return Money.zero("USD")


# --- wire details ----------------------------------------------------------------------------


def _base(creds: GatewayCredentials) -> str:
    if creds.sandbox:
        return TEST_BASE
    prefix = creds.fields.get("liveUrlPrefix", "").strip()
    if not _PREFIX.match(prefix):
        raise GatewayCredentialsRejected(
            "a live Adyen account needs its live URL prefix: set additionalFields.liveUrlPrefix",
            gateway=GATEWAY,
        )
    return LIVE_BASE.format(prefix=prefix)


def _component_method(token: str) -> dict[str, Any]:
    """Web Components' ``state.data.paymentMethod``; anything else is not a payment method."""
    try:
        method = json.loads(token)
    except ValueError:
        method = None
    if not isinstance(method, dict) or method.get("type") != "scheme":
        raise PaymentMethodInvalid(
            "the Adyen payment method must be Web Components' paymentMethod object (type scheme);"
            " collect the card again",
            gateway=GATEWAY,
        )
    return method


def _key(key: str) -> str:
    """Adyen takes idempotency keys (and references) of at most 64 characters."""
    return key if len(key) <= 64 else hashlib.sha256(key.encode()).hexdigest()


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:40]


# --- answers ---------------------------------------------------------------------------------


def normalise_refusal(code: object, reason: object = None) -> str:
    """Adyen's own refusal numbers (not ISO 8583), else the kit's decline words on its text."""
    known = _REFUSALS.get(code) if isinstance(code, str) else None
    return known or declines.from_text(reason) or declines.GENERIC


def _refused(result: Mapping[str, Any], support: dict[str, str]) -> GatewayError:
    code = result.get("resultCode")
    if code in ("RedirectShopper", "IdentifyShopper", "ChallengeShopper", "PresentToShopper"):
        return Declined(
            "Adyen asks for shopper authentication (3-D Secure) that payhub cannot run",
            gateway=GATEWAY,
            decline_code="generic_decline",
            gateway_request_id=support.get("psp_reference"),
        )
    decline = (
        "processing_error"
        if code == "Error"
        else normalise_refusal(result.get("refusalReasonCode"), result.get("refusalReason"))
    )
    return Declined(
        f"Adyen refused the payment ({decline})",
        gateway=GATEWAY,
        decline_code=decline,
        gateway_message=_redact(result.get("refusalReason")),
        gateway_request_id=support.get("psp_reference"),
    )


def _error_from(status_code: int, body: Mapping[str, Any], method: bool) -> GatewayError:
    code = str(body.get("errorCode", ""))
    message = body.get("message")
    common: dict[str, Any] = {
        "gateway": GATEWAY,
        "gateway_message": _redact(message),
        "gateway_request_id": _opt_str(body.get("pspReference")),
    }
    if status_code == 429:
        return GatewayUnavailable("Adyen asked us to slow down; try again shortly", **common)
    if code == "704":
        return GatewayUnavailable(
            "Adyen is still processing a request with the same idempotency key; try again",
            **common,
        )
    if body.get("errorType") == "security" or code in ("000", "010", "901"):
        return credentials_rejected(
            GATEWAY,
            what="API key or merchant account",
            gateway_message=common["gateway_message"],
            request_id=common["gateway_request_id"],
        )
    if method and code in _METHOD_ERRORS:
        return PaymentMethodInvalid(
            "Adyen cannot use this payment method (invalid, unreadable or not stored);"
            " collect it again",
            **common,
        )
    if status_code == 404 or code == "167":
        return GatewayError("Adyen has no payment with that reference", **common)
    return GatewayError(f"Adyen refused the request ({code or status_code})", **common)


def _redact(message: object) -> str | None:
    return redact(message, ids=(_HEX_LIKE,))


def _opt_str(value: object) -> str | None:
    return value if isinstance(value, str) else None
