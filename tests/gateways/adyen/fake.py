"""An in-memory fake of the slice of Adyen's Checkout API v71 payhub uses (``httpx.MockTransport``).

Written from Adyen's public reference, not from our adapter:

- https://docs.adyen.com/api-explorer/Checkout/71/post/payments (``merchantAccount``,
  ``amount{currency,value}`` in minor units, ``reference``, ``paymentMethod``,
  ``captureDelayHours``, ``additionalData.manualCapture``, ``shopperReference``,
  ``shopperInteraction``, ``recurringProcessingModel``; answers ``pspReference``, ``resultCode``,
  ``refusalReason``, ``refusalReasonCode``, ``amount``, ``merchantReference``)
- https://docs.adyen.com/api-explorer/Checkout/71/post/payments/(paymentPspReference)/captures,
  /refunds, /cancels (201 ``status: received``; the outcome arrives by webhook, kept here in
  ``notifications`` with ``success`` true or false; ``webhook`` wraps them as Adyen posts them)
- https://docs.adyen.com/api-explorer/Checkout/71/post/storedPaymentMethods
- https://docs.adyen.com/development-resources/api-idempotency (``Idempotency-Key``: a retry gets
  the first answer; at most 64 characters)
- https://docs.adyen.com/development-resources/error-codes (``{status, errorCode, message,
  errorType, pspReference}``; 401 ``000`` security, 422 validation such as ``174`` Unable to
  decrypt data, ``800`` Contract not found, ``167`` Original pspReference required)
- https://docs.adyen.com/development-resources/testing/test-card-numbers and
  https://docs.adyen.com/development-resources/testing/result-codes (``test_`` card fields; the
  holder name chooses the refusal: DECLINED, NOT_ENOUGH_BALANCE, EXPIRED, CVC_DECLINED, FRAUD,
  ACQUIRER_ERROR, BLOCK_CARD)

``card()`` builds a Web Components ``paymentMethod`` JSON with test_ fields. ``fail_next(status)``
fails the next call with 500 or 429.
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

import httpx

from tests.gateways.adyen.contract import validate_answer, validate_error, validate_request
from tests.gateways.contracts import ContractViolation

API_KEY = "AQEfakeAdyenTestKey"
LIVE_KEY = "AQEfakeAdyenLiveKey"
MERCHANT = "PayhubECOM"
LIVE_PREFIX = "1797a841fbb37ca7-adyendemo"
TEST_HOST = "checkout-test.adyen.com"
LIVE_HOST = f"{LIVE_PREFIX}-checkout-live.adyenpayments.com"

# holder name -> (refusalReasonCode, refusalReason)
REFUSALS = {
    "DECLINED": ("2", "Refused"),
    "NOT_ENOUGH_BALANCE": ("12", "Not enough balance"),
    "EXPIRED": ("6", "Expired Card"),
    "CVC_DECLINED": ("24", "CVC Declined"),
    "FRAUD": ("20", "FRAUD"),
    "BLOCK_CARD": ("5", "Blocked Card"),
    "ACQUIRER_ERROR": ("4", "Acquirer Error"),
}
_BRANDS = {"4": "visa", "5": "mc", "3": "amex"}
RECEIVED = "RECEIVED"  # holder name: the payment is answered "Received" (outcome by webhook)


def card(
    number: str = "4111111111111111", holder: str = "Ada Lovelace", expiry: str = "03/2030"
) -> str:
    month, year = expiry.split("/")
    return json.dumps(
        {
            "type": "scheme",
            "encryptedCardNumber": f"test_{number}",
            "encryptedExpiryMonth": f"test_{month}",
            "encryptedExpiryYear": f"test_{year}",
            "encryptedSecurityCode": "test_737",
            "holderName": holder,
        }
    )


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str, kind: str = "validation") -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.kind = status, code, message, kind


class FakeAdyen:
    """A tiny Adyen Checkout API: call ``handler`` through ``httpx.MockTransport``."""

    def __init__(self) -> None:
        self.api_keys = {API_KEY: False, LIVE_KEY: True}  # key -> live
        self.requests: list[httpx.Request] = []
        self.payments: dict[str, dict[str, Any]] = {}
        self.stored: dict[str, dict[str, Any]] = {}  # storedPaymentMethodId -> details
        self.notifications: list[dict[str, Any]] = []
        self._idempotency: dict[tuple[str, str], tuple[int, dict[str, Any]]] = {}
        self._fail_next: int | None = None
        self._blobs: dict[str, str] = {}
        self._ids = itertools.count(1)

    def fail_next(self, status: int) -> None:
        self._fail_next = status

    def encrypted_card(
        self,
        number: str = "4111111111111111",
        holder: str = "Ada Lovelace",
        expiry: str = "03/2030",
    ) -> str:
        """What Web Components really send: CSE blobs only Adyen can read (no card digits)."""
        month, year = expiry.split("/")
        tag = "".join(chr(ord("a") + int(d)) for d in str(next(self._ids)))
        values = {"number": number, "month": month, "year": year, "cvc": "737"}
        fields = {}
        for name, field in (
            ("number", "encryptedCardNumber"),
            ("month", "encryptedExpiryMonth"),
            ("year", "encryptedExpiryYear"),
            ("cvc", "encryptedSecurityCode"),
        ):
            blob = f"adyenjs_0_1_25$PHX{tag}{name}"
            self._blobs[blob] = values[name]
            fields[field] = blob
        return json.dumps({"type": "scheme", **fields, "holderName": holder})

    def bodies(self, suffix: str) -> list[dict[str, Any]]:
        return [json.loads(r.content) for r in self.requests if r.url.path.endswith(suffix)]

    def _psp(self) -> str:
        return f"{8800000000000000 + next(self._ids)}"

    # --- transport -------------------------------------------------------------------------

    def handler(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        try:
            if self._fail_next is not None:
                status, self._fail_next = self._fail_next, None
                raise ApiError(
                    status, "905" if status >= 500 else "429", "Service unavailable", "internal"
                )
            live = self._auth(request)
            prefix = "/checkout/v71" if live else "/v71"
            if request.url.host != (
                LIVE_HOST if live else TEST_HOST
            ) or not request.url.path.startswith(prefix):
                raise ApiError(401, "000", "HTTP Status Response - Unauthorized", "security")
            path = request.url.path[len(prefix) :]
            if request.method != "POST":
                raise ApiError(405, "905", "Method not allowed", "validation")
            if request.headers.get("Content-Type") != "application/json":
                raise ApiError(415, "702", "Unsupported content type")
            try:
                body = json.loads(request.content)
            except ValueError:
                raise ApiError(
                    400, "702", "Structure of PaymentRequest contains the following unknown fields"
                ) from None
            try:  # Checkout v71's models, from Adyen's own library
                validate_request("POST", path, body)
            except ContractViolation as e:
                raise ApiError(422, "702", str(e), "validation") from None
            if body.get("merchantAccount") != MERCHANT:
                raise ApiError(403, "901", "Invalid Merchant Account", "security")
            key = request.headers.get("Idempotency-Key")
            if key is not None:
                if len(key) > 64:
                    raise ApiError(422, "702", "Idempotency-Key exceeds 64 characters")
                saved = self._idempotency.get((request.headers["X-API-Key"], key))
                if saved is not None:
                    return httpx.Response(saved[0], json=saved[1], headers={"idempotency-key": key})
            status, answer = self._route(path, body, live)
            if key is not None:
                self._idempotency[(request.headers["X-API-Key"], key)] = (status, answer)
        except ApiError as e:
            error = {
                "status": e.status,
                "errorCode": e.code,
                "message": e.message,
                "errorType": e.kind,
                "pspReference": self._psp(),
            }
            validate_error(error)
            return httpx.Response(e.status, json=error)
        validate_answer("POST", path, answer)  # the fake answers in Adyen's models
        return httpx.Response(status, json=answer)

    def _auth(self, request: httpx.Request) -> bool:
        key = request.headers.get("X-API-Key")
        if key not in self.api_keys:
            raise ApiError(401, "000", "HTTP Status Response - Unauthorized", "security")
        return self.api_keys[key]

    def _route(self, path: str, body: dict[str, Any], live: bool) -> tuple[int, dict[str, Any]]:
        if path == "/payments":
            return self._pay(body, live)
        if path == "/storedPaymentMethods":
            return self._store(body, live)
        match = re.fullmatch(r"/payments/([^/]+)/(captures|refunds|cancels)", path)
        if match:
            return self._modify(match.group(1), match.group(2), body, live)
        raise ApiError(404, "000", "Not found")

    # --- payments --------------------------------------------------------------------------

    def _amount(self, body: dict[str, Any], required: bool = True) -> dict[str, Any] | None:
        amount = body.get("amount")
        if amount is None and not required:
            return None
        if not isinstance(amount, dict) or not isinstance(amount.get("value"), int):
            raise ApiError(422, "100", "Required field 'amount' is not provided.")
        if not re.fullmatch(r"[A-Z]{3}", str(amount.get("currency"))):
            raise ApiError(422, "14_030", "Invalid currency")
        if amount["value"] < 0:
            raise ApiError(422, "137", "Invalid amount specified")
        return amount

    def _card(self, method: Any) -> dict[str, Any]:
        if not isinstance(method, dict) or method.get("type") != "scheme":
            raise ApiError(422, "14_006", "Invalid paymentMethod object provided.")
        if "storedPaymentMethodId" in method:
            return method
        fields = [
            method.get(f)
            for f in (
                "encryptedCardNumber",
                "encryptedExpiryMonth",
                "encryptedExpiryYear",
                "encryptedSecurityCode",
            )
        ]
        plain = [self._decrypt(f) for f in fields]
        return {
            "number": plain[0],
            "month": plain[1],
            "year": plain[2],
            "holder": method.get("holderName", ""),
        }

    def _decrypt(self, value: object) -> str:
        """test_ values are accepted in the test environment; blobs must be ones we issued."""
        if isinstance(value, str) and value.startswith("test_"):
            return value[5:]
        if isinstance(value, str) and value in self._blobs:
            return self._blobs[value]
        raise ApiError(422, "174", "Unable to decrypt data")

    def _pay(self, body: dict[str, Any], live: bool) -> tuple[int, dict[str, Any]]:
        amount = self._amount(body)
        assert amount is not None
        if not isinstance(body.get("reference"), str):
            raise ApiError(422, "130", "Required field 'reference' is not provided.")
        details = self._card(body.get("paymentMethod"))
        if "storedPaymentMethodId" in details:
            stored = self.stored.get(details["storedPaymentMethodId"])
            if (
                stored is None
                or stored["shopper"] != body.get("shopperReference")
                or stored["live"] != live
            ):
                raise ApiError(422, "800", "Contract not found")
            if body.get("shopperInteraction") not in ("ContAuth", "Ecommerce"):
                raise ApiError(422, "133", "Invalid shopperInteraction")
            if body.get("recurringProcessingModel") not in (
                "CardOnFile",
                "Subscription",
                "UnscheduledCardOnFile",
            ):
                raise ApiError(422, "14_012", "Invalid recurringProcessingModel")
            details = stored["card"]
        psp = self._psp()
        answer: dict[str, Any] = {
            "pspReference": psp,
            "merchantReference": body["reference"],
            "amount": amount,
            "paymentMethod": {"type": "scheme", "brand": _BRANDS.get(details["number"][0], "visa")},
        }
        refusal = REFUSALS.get(details["holder"])
        if refusal is not None:
            answer.update(
                resultCode="Refused", refusalReasonCode=refusal[0], refusalReason=refusal[1]
            )
            self.payments[psp] = {"state": "Refused", "amount": amount, "live": live}
            self._notify("AUTHORISATION", psp, False, amount, body["reference"], refusal[1])
            return 200, answer
        manual = (body.get("additionalData") or {}).get("manualCapture") == "true"
        delay = body.get("captureDelayHours")
        self.payments[psp] = {
            "state": "Authorised" if manual or delay != 0 else "Captured",
            "amount": amount,
            "captured": 0 if manual else amount["value"],
            "refunded": 0,
            "live": live,
            "reference": body["reference"],
        }
        # "Received": Adyen took the payment and reports its outcome by webhook only.
        answer["resultCode"] = "Received" if details["holder"] == RECEIVED else "Authorised"
        self._notify("AUTHORISATION", psp, True, amount, body["reference"])
        return 200, answer

    # --- webhooks --------------------------------------------------------------------------

    def _notify(
        self,
        code: str,
        psp: str,
        success: bool,
        amount: dict[str, Any],
        reference: str,
        reason: str | None = None,
        original: str | None = None,
    ) -> None:
        note: dict[str, Any] = {
            "eventCode": code,
            "pspReference": psp,
            "success": success,
            "amount": amount,
            "merchantReference": reference,
        }
        if original is not None:
            note["originalReference"] = original
        if reason is not None:
            note["reason"] = reason
        self.notifications.append(note)

    def webhook(self, *notes: dict[str, Any], live: bool = False) -> dict[str, Any]:
        """A standard webhook (``Notification``) carrying the given ``notifications``, shaped
        as Adyen's notification models say (https://docs.adyen.com/development-resources/
        webhooks/webhook-types): unsigned; the tests sign it with Adyen's own library."""
        items = []
        for note in notes:
            item: dict[str, Any] = {
                "additionalData": {},
                "amount": note["amount"],
                "eventCode": note["eventCode"],
                "eventDate": "2025-03-14T09:26:53+01:00",
                "merchantAccountCode": MERCHANT,
                "merchantReference": note["merchantReference"],
                "paymentMethod": "visa",
                "pspReference": note["pspReference"],
                "success": "true" if note["success"] else "false",
            }
            for optional in ("originalReference", "reason"):
                if optional in note:
                    item[optional] = note[optional]
            items.append({"NotificationRequestItem": item})
        return {"live": "true" if live else "false", "notificationItems": items}

    def _modify(
        self, psp: str, kind: str, body: dict[str, Any], live: bool
    ) -> tuple[int, dict[str, Any]]:
        payment = self.payments.get(psp)
        if payment is None or payment["live"] != live:
            raise ApiError(422, "167", "Original pspReference required for this operation")
        amount = self._amount(body, required=kind != "cancels")
        if amount is not None and amount["currency"] != payment["amount"]["currency"]:
            raise ApiError(422, "14_030", "Currency mismatch")
        modification = self._psp()
        # The request is only received; whether it succeeds is the webhook's business.
        success = False
        if kind == "captures" and payment["state"] == "Authorised":
            success = amount is not None and amount["value"] <= payment["amount"]["value"]
            if success:
                payment["state"], payment["captured"] = "Captured", amount["value"]  # type: ignore[index]
        elif kind == "refunds" and payment["state"] in ("Captured", "Refunded"):
            left = payment["captured"] - payment["refunded"]
            success = amount is not None and amount["value"] <= left
            if success:
                payment["refunded"] += amount["value"]  # type: ignore[index]
                payment["state"] = (
                    "Refunded" if payment["refunded"] == payment["captured"] else "Captured"
                )
        elif kind == "cancels" and payment["state"] == "Authorised":
            success = True
            payment["state"] = "Cancelled"
        self._notify(
            {"captures": "CAPTURE", "refunds": "REFUND", "cancels": "CANCELLATION"}[kind],
            modification,
            success,
            amount or payment["amount"],
            str(body.get("reference", "")),
            original=psp,
        )
        answer: dict[str, Any] = {
            "merchantAccount": MERCHANT,
            "paymentPspReference": psp,
            "pspReference": modification,
            "reference": body.get("reference"),
            "status": "received",
        }
        if amount is not None:
            answer["amount"] = amount
        return 201, answer

    # --- stored payment methods ------------------------------------------------------------

    def _store(self, body: dict[str, Any], live: bool) -> tuple[int, dict[str, Any]]:
        shopper = body.get("shopperReference")
        if not isinstance(shopper, str) or not 3 <= len(shopper) <= 256:
            raise ApiError(422, "14_008", "Required field 'shopperReference' is not provided.")
        if body.get("recurringProcessingModel") not in (
            "CardOnFile",
            "Subscription",
            "UnscheduledCardOnFile",
        ):
            raise ApiError(
                422, "14_012", "Required field 'recurringProcessingModel' is not provided."
            )
        details = self._card(body.get("paymentMethod"))
        if "storedPaymentMethodId" in details:
            raise ApiError(422, "14_006", "Invalid paymentMethod object provided.")
        if details["holder"] in REFUSALS:
            raise ApiError(422, "803", "PaymentDetail not valid for this operation")
        stored_id = f"M5N7TQ4TG5PFWR5{next(self._ids)}"
        self.stored[stored_id] = {"shopper": shopper, "card": details, "live": live}
        return 201, {
            "id": stored_id,
            "brand": _BRANDS.get(details["number"][0], "visa"),
            "expiryMonth": details["month"],
            "expiryYear": details["year"][-2:],
            "lastFour": details["number"][-4:],
            "holderName": details["holder"],
            "shopperReference": shopper,
            "type": "scheme",
        }
