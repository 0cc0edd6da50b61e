"""An in-memory fake of the slice of Stripe's API payhub uses, for ``httpx.MockTransport``.

Written from the public reference (https://docs.stripe.com/api), not from our adapter: it
checks the ``Authorization`` header (Bearer or Basic), a well-formed ``Stripe-Version``,
form encoding with bracket notation, unknown/missing/ill-typed parameters, and keeps state so
capture, cancel, refund and retrieve behave. Answers use Stripe's shapes: objects with
``id``/``object``/``livemode``, errors as ``{"error": {type, code, decline_code, message,
param, ...}}`` with HTTP 402 for card errors, 400 for invalid requests, 401 for bad keys, 404
for missing objects in the path, and a ``Request-Id`` header on every answer.

Idempotency follows https://docs.stripe.com/api/idempotent_requests: a POST's answer is saved
per key once the endpoint starts executing (declines included; parameter validation errors
not), a retry with the same key and parameters replays it with ``Idempotent-Replayed: true``,
and the same key with other parameters or another path is a 400 ``idempotency_error``.

Test tokens (Stripe's documented test PaymentMethods, https://docs.stripe.com/testing; each use
of one yields a fresh ``pm_…`` as in Stripe's test mode):

- ``pm_card_visa`` (visa 4242), ``pm_card_mastercard`` (mastercard 4444): approved
- ``pm_card_visa_chargeDeclined``: card_declined / generic_decline
- ``pm_card_visa_chargeDeclinedInsufficientFunds``: card_declined / insufficient_funds
- ``pm_card_chargeDeclinedFraudulent``: card_declined / fraudulent
- ``pm_card_chargeDeclinedExpiredCard``: code expired_card (no decline_code)
- ``pm_card_chargeDeclinedIncorrectCvc``: code incorrect_cvc (no decline_code)
- ``pm_card_chargeDeclinedProcessingError``: code processing_error (no decline_code)
- ``pm_usBankAccount_success``: verified bank account (STRIPE TEST BANK, 6789); debits stay
  ``processing``
- ``pm_fake_usBankAccount_unverified`` (fake only): a bank account waiting for micro-deposit
  verification

``add_card()`` creates a one-off ``pm_…`` the way Stripe.js would (usable once unless attached).
Keys: ``TEST_KEY`` and ``LIVE_KEY``; objects live in the mode of the key that made them.
``fail_next(status)`` makes the next request fail with 500 (api_error) or 429 (rate_limit).
``finish_refunds(outcome)`` ends every pending (ACH) refund as ``succeeded`` or ``failed``.

Every request first passes ``tests/gateways/stripe/contract`` (the stripe package's param
TypedDicts, generated from Stripe's OpenAPI spec): params it does not declare, a missing
required one or a value outside its enum is a 400 ``parameter_unknown``/``parameter_invalid``,
kept in ``violations``.
"""

from __future__ import annotations

import base64
import itertools
import json
import re
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import parse_qsl

import attrs
import httpx

from tests.gateways.contracts import ContractViolation
from tests.gateways.stripe.contract.validator import validate

TEST_KEY = "sk_test_payhub_fake_key"
LIVE_KEY = "sk_live_payhub_fake_key"
HOST = "api.stripe.com"

_VERSION = re.compile(r"^\d{4}-\d{2}-\d{2}(\.[a-z]+)?$")
_CURRENCY = re.compile(r"^[a-z]{3}$")

_CARD_TOKENS: dict[str, tuple[str, str, tuple[str, str | None, str] | None]] = {
    "pm_card_visa": ("visa", "4242", None),
    "pm_card_mastercard": ("mastercard", "4444", None),
    "pm_card_visa_chargeDeclined": (
        "visa",
        "0002",
        ("card_declined", "generic_decline", "Your card was declined."),
    ),
    "pm_card_visa_chargeDeclinedInsufficientFunds": (
        "visa",
        "9995",
        ("card_declined", "insufficient_funds", "Your card has insufficient funds."),
    ),
    "pm_card_chargeDeclinedFraudulent": (
        "visa",
        "0019",
        ("card_declined", "fraudulent", "Your card was declined."),
    ),
    "pm_card_chargeDeclinedExpiredCard": (
        "visa",
        "0069",
        ("expired_card", None, "Your card has expired."),
    ),
    "pm_card_chargeDeclinedIncorrectCvc": (
        "visa",
        "0127",
        ("incorrect_cvc", None, "Your card's security code is incorrect."),
    ),
    "pm_card_chargeDeclinedProcessingError": (
        "visa",
        "0119",
        (
            "processing_error",
            None,
            "An error occurred while processing your card. Try again in a little bit.",
        ),
    ),
}
_BANK_TOKENS = {"pm_usBankAccount_success": True, "pm_fake_usBankAccount_unverified": False}

_PREVIOUSLY_USED = (
    "The provided PaymentMethod was previously used with a PaymentIntent without Customer"
    " attachment, shared with a connected account without Customer attachment, or was detached"
    " from a Customer. It may not be used again. To use a PaymentMethod multiple times, you must"
    " attach it to a Customer first."
)


class ApiError(Exception):
    """An error answer. ``saved``: whether idempotency keeps it (execution had begun)."""

    def __init__(self, status: int, saved: bool = False, **error: Any) -> None:
        super().__init__(error.get("message", ""))
        self.status = status
        self.saved = saved
        self.error = {k: v for k, v in error.items() if v is not None}


def _invalid(message: str, param: str | None = None, code: str | None = None) -> ApiError:
    return ApiError(400, type="invalid_request_error", message=message, param=param, code=code)


@attrs.define
class _Saved:
    method: str
    path: str
    params: dict[str, Any]
    status: int
    body: dict[str, Any]


@attrs.define
class _Call:
    """One request as the fake understood it."""

    livemode: bool
    key: str
    method: str
    path: str
    params: dict[str, Any]


class FakeStripe:
    """A tiny Stripe: call ``handler`` through ``httpx.MockTransport``; inspect its dicts."""

    def __init__(self) -> None:
        self.api_keys = {TEST_KEY: False, LIVE_KEY: True}  # key -> livemode
        self.requests: list[httpx.Request] = []
        self.customers: dict[str, dict[str, Any]] = {}
        self.payment_methods: dict[str, dict[str, Any]] = {}
        self.payment_intents: dict[str, dict[str, Any]] = {}
        self.charges: dict[str, dict[str, Any]] = {}
        self.refunds: dict[str, dict[str, Any]] = {}
        self.violations: list[str] = []
        self.refunds_pending = False  # card refunds too answer "pending" (Stripe may)
        self.setup_intents: dict[str, dict[str, Any]] = {}
        self.mandates: dict[str, dict[str, Any]] = {}
        self._used: set[str] = set()
        self._unverified: set[str] = set()
        self._declines: dict[str, tuple[str, str | None, str]] = {}
        self._idempotency: dict[tuple[str, str], _Saved] = {}
        self._fail_next: int | None = None
        self._ids = itertools.count(1)
        self._routes: list[tuple[str, re.Pattern[str], Callable[..., tuple[int, dict[str, Any]]]]]
        self._routes = [
            ("POST", re.compile(r"^/v1/payment_intents$"), self._create_payment_intent),
            ("GET", re.compile(r"^/v1/payment_intents/([^/]+)$"), self._retrieve_payment_intent),
            ("POST", re.compile(r"^/v1/payment_intents/([^/]+)/capture$"), self._capture),
            ("POST", re.compile(r"^/v1/payment_intents/([^/]+)/cancel$"), self._cancel),
            ("POST", re.compile(r"^/v1/refunds$"), self._create_refund),
            ("POST", re.compile(r"^/v1/customers$"), self._create_customer),
            ("POST", re.compile(r"^/v1/payment_methods/([^/]+)/attach$"), self._attach),
            ("POST", re.compile(r"^/v1/setup_intents$"), self._create_setup_intent),
            ("POST", re.compile(r"^/v1/setup_intents/([^/]+)/cancel$"), self._cancel_setup),
        ]

    # --- test controls ---------------------------------------------------------------------

    def fail_next(self, status: int) -> None:
        self._fail_next = status

    def finish_refunds(self, outcome: str = "succeeded") -> None:
        """Stripe finishes the pending refunds; a failed one gives its amount back."""
        for refund in self.refunds.values():
            if refund["status"] != "pending":
                continue
            refund["status"] = outcome
            if outcome == "failed":
                refund["failure_reason"] = "declined"
                charge = self.charges[refund["charge"]]
                charge["amount_refunded"] -= refund["amount"]
                charge["refunded"] = False

    def add_card(self, brand: str = "visa", last4: str = "4242") -> str:
        """A PaymentMethod as Stripe.js creates it: unattached, single-use until attached."""
        return self._new_payment_method("card", False, brand=brand, last4=last4)["id"]

    def posts(self, path: str) -> list[httpx.Request]:
        return [r for r in self.requests if r.method == "POST" and r.url.path == path]

    # --- transport -------------------------------------------------------------------------

    def handler(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        request_id = f"req_{next(self._ids):014d}"
        headers = {"Request-Id": request_id, "Stripe-Version": "2025-10-29.clover"}
        try:
            if self._fail_next is not None:
                status, self._fail_next = self._fail_next, None
                if status == 429:
                    raise ApiError(
                        429,
                        type="invalid_request_error",
                        code="rate_limit",
                        message="Request rate limit exceeded.",
                    )
                raise ApiError(status, type="api_error", message="An unknown error occurred")
            call = self._parse(request)
            idem = request.headers.get("Idempotency-Key")
            if call.method == "POST" and idem is not None:
                return self._idempotent(call, idem, headers)
            status, body = self._dispatch(call)
        except ApiError as e:
            return self._error(e, request_id, headers)
        return httpx.Response(status, json=body, headers=headers)

    def _idempotent(self, call: _Call, key: str, headers: dict[str, str]) -> httpx.Response:
        if len(key) > 255:
            return self._error(
                _invalid("Idempotency-Key must be at most 255 characters long."),
                headers["Request-Id"],
                headers,
            )
        saved = self._idempotency.get((call.key, key))
        if saved is not None:
            if (saved.method, saved.path, saved.params) != (call.method, call.path, call.params):
                return self._error(
                    ApiError(
                        400,
                        type="idempotency_error",
                        message="Keys for idempotent requests can only be used with the same"
                        " parameters they were first used with. Try using a key other than"
                        f" '{key}' if you meant to execute a different request.",
                    ),
                    headers["Request-Id"],
                    headers,
                )
            return httpx.Response(
                saved.status, json=saved.body, headers={**headers, "Idempotent-Replayed": "true"}
            )
        try:
            status, body = self._dispatch(call)
        except ApiError as e:
            if e.saved:
                body = self._error_body(e, headers["Request-Id"])
                self._idempotency[(call.key, key)] = _Saved(
                    call.method, call.path, call.params, e.status, body
                )
            return self._error(e, headers["Request-Id"], headers)
        self._idempotency[(call.key, key)] = _Saved(
            call.method, call.path, call.params, status, body
        )
        return httpx.Response(status, json=body, headers=headers)

    def _error_body(self, e: ApiError, request_id: str) -> dict[str, Any]:
        error = dict(e.error)
        if e.status in (400, 402, 404):
            error["request_log_url"] = f"https://dashboard.stripe.com/test/logs/{request_id}"
        return {"error": error}

    def _error(self, e: ApiError, request_id: str, headers: dict[str, str]) -> httpx.Response:
        return httpx.Response(e.status, json=self._error_body(e, request_id), headers=headers)

    def _parse(self, request: httpx.Request) -> _Call:
        if request.url.scheme != "https" or request.url.host != HOST:
            raise _invalid(f"Unrecognized request URL ({request.url.host}).")
        key = _api_key(request.headers.get("Authorization", ""))
        if key is None:
            raise ApiError(
                401,
                type="invalid_request_error",
                message="You did not provide an API key. You need to provide your API key in the"
                " Authorization header, using Bearer auth (e.g. 'Authorization: Bearer"
                " YOUR_SECRET_KEY').",
            )
        if key not in self.api_keys:
            raise ApiError(
                401,
                type="invalid_request_error",
                message=f"Invalid API Key provided: {key[:8]}{'*' * 12}{key[-4:]}",
            )
        version = request.headers.get("Stripe-Version")
        if version is not None and not _VERSION.match(version):
            raise _invalid(f"Invalid Stripe API version: {version}")
        if request.method == "GET":
            raw = list(request.url.params.multi_items())
        else:
            body = request.content
            content_type = request.headers.get("Content-Type", "")
            if body and not content_type.startswith("application/x-www-form-urlencoded"):
                raise _invalid(
                    "Invalid request: Stripe takes application/x-www-form-urlencoded bodies."
                )
            raw = parse_qsl(body.decode(), keep_blank_values=True, strict_parsing=False)
        try:
            validate(request.method, request.url.path, raw)
        except ContractViolation as violation:
            self.violations.append(str(violation))
            raise _invalid(str(violation), code="parameter_invalid") from None
        return _Call(self.api_keys[key], key, request.method, request.url.path, _nest(raw))

    def _dispatch(self, call: _Call) -> tuple[int, dict[str, Any]]:
        for method, pattern, endpoint in self._routes:
            match = pattern.match(call.path)
            if match and method == call.method:
                return endpoint(call, *match.groups())
        raise ApiError(
            404,
            type="invalid_request_error",
            message=f"Unrecognized request URL ({call.method}: {call.path}).",
        )

    # --- endpoints -------------------------------------------------------------------------

    def _create_payment_intent(self, call: _Call) -> tuple[int, dict[str, Any]]:
        p = _allow(
            call.params,
            "amount currency confirm capture_method payment_method payment_method_types customer"
            " off_session description mandate_data error_on_requires_action metadata expand"
            " setup_future_usage",
        )
        amount = _integer(p, "amount", required=True)
        currency = _string(p, "currency", required=True)
        if not _CURRENCY.match(currency):
            raise _invalid(f"Invalid currency: {currency}.", "currency", "parameter_invalid")
        if amount < 1 or (currency == "usd" and amount < 50):
            raise _invalid("Amount must be at least $0.50 usd", "amount", "amount_too_small")
        confirm = _boolean(p, "confirm")
        capture_method = _string(p, "capture_method") or "automatic"
        if capture_method not in ("automatic", "automatic_async", "manual"):
            raise _invalid(f"Invalid capture_method: {capture_method}", "capture_method")
        types = _list(p, "payment_method_types") or ["card"]
        off_session = _boolean(p, "off_session")
        _boolean(p, "error_on_requires_action")  # validated; no 3-D Secure cards in the fake
        for flag in ("off_session", "error_on_requires_action", "mandate_data"):
            if flag in p and not confirm:
                raise _invalid(f"{flag} can only be used with confirm=true.", flag)
        customer = self._customer(call, _string(p, "customer"), "customer")
        pm_ref = _string(p, "payment_method")
        if confirm and pm_ref is None:
            raise _invalid(
                "You cannot confirm this PaymentIntent because it's missing a payment method.",
                "payment_method",
                "payment_intent_unexpected_state",
            )
        pm = self._use_payment_method(call, pm_ref, customer) if pm_ref else None
        if pm is not None and pm["type"] not in types:
            raise _invalid(
                f"The PaymentMethod provided ({pm['type']}) is not allowed for this"
                f" PaymentIntent. Please attach a PaymentMethod of one of the following types:"
                f" {', '.join(types)}.",
                "payment_method",
            )
        bank = pm is not None and pm["type"] == "us_bank_account"
        if bank:
            if capture_method == "manual":
                raise _invalid(
                    "The payment method type us_bank_account does not support capture_method"
                    " manual.",
                    "capture_method",
                )
            if currency != "usd":
                raise _invalid("us_bank_account payments must be in usd.", "currency")
            if confirm:
                self._require_mandate(p, pm, customer, off_session)
        # Execution begins: from here on, outcomes are saved for idempotent replay.
        intent: dict[str, Any] = {
            "id": self._id("pi"),
            "object": "payment_intent",
            "amount": amount,
            "amount_capturable": 0,
            "amount_received": 0,
            "canceled_at": None,
            "cancellation_reason": None,
            "capture_method": capture_method,
            "client_secret": None,
            "confirmation_method": "automatic",
            "created": 1_700_000_000,
            "currency": currency,
            "customer": customer,
            "description": _string(p, "description"),
            "last_payment_error": None,
            "latest_charge": None,
            "livemode": call.livemode,
            "metadata": p.get("metadata") or {},
            "next_action": None,
            "payment_method": pm["id"] if pm else None,
            "payment_method_types": types,
            "status": "requires_confirmation" if pm else "requires_payment_method",
        }
        intent["client_secret"] = f"{intent['id']}_secret_fake"
        self.payment_intents[intent["id"]] = intent
        if confirm and pm is not None:
            self._confirm(call, intent, pm)
        return 200, intent

    def _confirm(self, call: _Call, intent: dict[str, Any], pm: dict[str, Any]) -> None:
        """Run the payment. The fake's cards never ask for 3-D Secure, so no requires_action."""
        if pm["customer"] is None:
            self._used.add(pm["id"])
        if pm["id"] in self._unverified:
            intent["status"] = "requires_action"
            intent["next_action"] = {
                "type": "verify_with_microdeposits",
                "verify_with_microdeposits": {"microdeposit_type": "descriptor_code"},
            }
            return
        charge = self._new_charge(call, intent, pm)
        decline = self._declines.get(pm["id"])
        if decline is not None:
            code, decline_code, message = decline
            charge.update(status="failed", failure_code=decline_code or code, paid=False)
            error = {
                "charge": charge["id"],
                "code": code,
                "decline_code": decline_code,
                "doc_url": f"https://docs.stripe.com/error-codes/{code.replace('_', '-')}",
                "message": message,
                "payment_method": pm,
                "type": "card_error",
            }
            intent.update(
                status="requires_payment_method",
                last_payment_error={k: v for k, v in error.items() if v is not None},
                payment_method=None,
            )
            raise ApiError(402, saved=True, payment_intent=intent, **error)
        if pm["type"] == "us_bank_account":
            intent["status"] = "processing"
            charge.update(status="pending")
        elif intent["capture_method"] == "manual":
            intent.update(status="requires_capture", amount_capturable=intent["amount"])
            charge.update(captured=False)
        else:
            intent.update(status="succeeded", amount_received=intent["amount"])
            charge.update(captured=True, amount_captured=intent["amount"])

    def _retrieve_payment_intent(self, call: _Call, ref: str) -> tuple[int, dict[str, Any]]:
        p = _allow(call.params, "expand client_secret")
        intent = self._intent(call, ref)
        expand = _list(p, "expand") or []
        if intent["latest_charge"] and any(e.startswith("latest_charge") for e in expand):
            charge = self.charges[intent["latest_charge"]]
            if "latest_charge.refunds" in expand:
                listed = [r for r in self.refunds.values() if r["charge"] == charge["id"]]
                charge = {
                    **charge,
                    "refunds": {
                        "object": "list",
                        "data": listed[::-1],
                        "has_more": False,
                        "url": f"/v1/charges/{charge['id']}/refunds",
                    },
                }
            return 200, {**intent, "latest_charge": charge}
        return 200, intent

    def _capture(self, call: _Call, ref: str) -> tuple[int, dict[str, Any]]:
        p = _allow(call.params, "amount_to_capture expand metadata final_capture")
        intent = self._intent(call, ref)
        wanted = _integer(p, "amount_to_capture")
        if intent["status"] != "requires_capture":
            raise ApiError(
                400,
                saved=True,
                type="invalid_request_error",
                code="payment_intent_unexpected_state",
                message="This PaymentIntent could not be captured because it has a status of"
                f" {intent['status']}. Only a PaymentIntent with one of the following statuses"
                " may be captured: requires_capture.",
                payment_intent=intent,
            )
        capturable = intent["amount_capturable"]
        if wanted is None:
            wanted = capturable
        if wanted < 1 or wanted > capturable:
            raise ApiError(
                400,
                saved=True,
                type="invalid_request_error",
                code="amount_too_large" if wanted > capturable else "amount_too_small",
                param="amount_to_capture",
                message=f"The amount to capture ({wanted}) must be at most the capturable"
                f" amount ({capturable}).",
            )
        intent.update(status="succeeded", amount_received=wanted, amount_capturable=0)
        self.charges[intent["latest_charge"]].update(captured=True, amount_captured=wanted)
        return 200, intent

    def _cancel(self, call: _Call, ref: str) -> tuple[int, dict[str, Any]]:
        p = _allow(call.params, "cancellation_reason expand")
        intent = self._intent(call, ref)
        cancelable = ("requires_payment_method", "requires_capture", "requires_confirmation")
        if intent["status"] not in (*cancelable, "requires_action"):
            raise ApiError(
                400,
                saved=True,
                type="invalid_request_error",
                code="payment_intent_unexpected_state",
                message="You cannot cancel this PaymentIntent because it has a status of"
                f" {intent['status']}. Only a PaymentIntent with one of the following statuses"
                " may be canceled: requires_payment_method, requires_capture,"
                " requires_confirmation, requires_action, processing.",
                payment_intent=intent,
            )
        intent.update(
            status="canceled",
            canceled_at=1_700_000_100,
            cancellation_reason=_string(p, "cancellation_reason"),
            amount_capturable=0,
            next_action=None,
        )
        return 200, intent

    def _create_refund(self, call: _Call) -> tuple[int, dict[str, Any]]:
        p = _allow(call.params, "payment_intent charge amount reason metadata expand")
        ref = _string(p, "payment_intent")
        if ref is None:
            raise _invalid(
                "One of the following params should be provided for this request:"
                " payment_intent or charge.",
                code="parameter_missing",
            )
        intent = self._intent(call, ref, param="payment_intent")
        if intent["status"] != "succeeded":
            raise ApiError(
                400,
                saved=True,
                type="invalid_request_error",
                code="charge_not_refundable",
                message=f"This PaymentIntent ({ref}) does not have a successful charge to refund.",
            )
        charge = self.charges[intent["latest_charge"]]
        left = charge["amount_captured"] - charge["amount_refunded"]
        amount = _integer(p, "amount")
        amount = left if amount is None else amount
        if amount < 1 or amount > left:
            raise ApiError(
                400,
                saved=True,
                type="invalid_request_error",
                code="amount_too_large" if amount > left else "amount_too_small",
                param="amount",
                message=f"Refund amount ({amount}) is greater than unrefunded amount on charge"
                f" ({left}).",
            )
        charge["amount_refunded"] += amount
        charge["refunded"] = charge["amount_refunded"] == charge["amount_captured"]
        refund = {
            "id": self._id("re"),
            "object": "refund",
            "amount": amount,
            "charge": charge["id"],
            "created": 1_700_000_200,
            "currency": intent["currency"],
            "metadata": p.get("metadata") or {},
            "payment_intent": intent["id"],
            "reason": _string(p, "reason"),
            "status": "pending"
            if self.refunds_pending or intent["payment_method_types"] == ["us_bank_account"]
            else "succeeded",
        }
        self.refunds[refund["id"]] = refund
        return 200, refund

    def _create_customer(self, call: _Call) -> tuple[int, dict[str, Any]]:
        p = _allow(call.params, "email name description phone metadata expand")
        customer = {
            "id": self._id("cus"),
            "object": "customer",
            "created": 1_700_000_000,
            "description": _string(p, "description"),
            "email": _string(p, "email"),
            "livemode": call.livemode,
            "metadata": p.get("metadata") or {},
            "name": _string(p, "name"),
        }
        self.customers[customer["id"]] = customer
        return 200, customer

    def _attach(self, call: _Call, ref: str) -> tuple[int, dict[str, Any]]:
        p = _allow(call.params, "customer expand")
        customer_ref = _string(p, "customer", required=True)
        customer = self._customer(call, customer_ref, "customer")
        pm = self._lookup_payment_method(call, ref, in_path=True)
        if pm["customer"] is not None:
            raise _invalid(
                "The payment method you provided has already been attached to a customer."
            )
        if pm["id"] in self._used:
            raise _invalid(_PREVIOUSLY_USED, "payment_method")
        decline = self._declines.get(pm["id"])
        if decline is not None:
            code, decline_code, message = decline
            raise ApiError(
                402,
                saved=True,
                type="card_error",
                code=code,
                decline_code=decline_code,
                message=message,
                param="",
            )
        pm["customer"] = customer
        return 200, pm

    def _create_setup_intent(self, call: _Call) -> tuple[int, dict[str, Any]]:
        p = _allow(
            call.params,
            "customer payment_method payment_method_types confirm usage mandate_data expand"
            " description metadata",
        )
        customer = self._customer(call, _string(p, "customer"), "customer")
        confirm = _boolean(p, "confirm")
        usage = _string(p, "usage") or "off_session"
        if usage not in ("on_session", "off_session"):
            raise _invalid(f"Invalid usage: {usage}", "usage")
        types = _list(p, "payment_method_types") or ["card"]
        if "mandate_data" in p and not confirm:
            raise _invalid("mandate_data can only be used with confirm=true.", "mandate_data")
        pm_ref = _string(p, "payment_method")
        pm = self._use_payment_method(call, pm_ref, customer) if pm_ref else None
        if pm is not None and pm["type"] not in types:
            raise _invalid(
                f"The PaymentMethod provided ({pm['type']}) is not allowed for this SetupIntent.",
                "payment_method",
            )
        if confirm and pm is not None and pm["type"] == "us_bank_account":
            self._require_mandate(p, pm, customer, off_session=False)
        intent: dict[str, Any] = {
            "id": self._id("seti"),
            "object": "setup_intent",
            "client_secret": None,
            "customer": customer,
            "last_setup_error": None,
            "livemode": call.livemode,
            "mandate": None,
            "next_action": None,
            "payment_method": pm["id"] if pm else None,
            "payment_method_types": types,
            "status": "requires_confirmation" if pm else "requires_payment_method",
            "usage": usage,
        }
        intent["client_secret"] = f"{intent['id']}_secret_fake"
        self.setup_intents[intent["id"]] = intent
        if confirm and pm is not None:
            if pm["id"] in self._unverified:
                intent.update(
                    status="requires_action",
                    next_action={
                        "type": "verify_with_microdeposits",
                        "verify_with_microdeposits": {"microdeposit_type": "descriptor_code"},
                    },
                )
            else:
                if customer is not None:
                    pm["customer"] = customer
                if pm["type"] == "us_bank_account":
                    mandate = {
                        "id": self._id("mandate"),
                        "object": "mandate",
                        "customer_acceptance": p["mandate_data"]["customer_acceptance"],
                        "payment_method": pm["id"],
                        "status": "active",
                        "type": "multi_use" if usage == "off_session" else "single_use",
                    }
                    self.mandates[pm["id"]] = mandate
                    intent["mandate"] = mandate["id"]
                intent["status"] = "succeeded"
        if "payment_method" in (_list(p, "expand") or []) and pm is not None:
            return 200, {**intent, "payment_method": pm}
        return 200, intent

    def _cancel_setup(self, call: _Call, ref: str) -> tuple[int, dict[str, Any]]:
        _allow(call.params, "cancellation_reason expand")
        intent = self.setup_intents.get(ref)
        if intent is None or intent["livemode"] != call.livemode:
            raise ApiError(
                404,
                type="invalid_request_error",
                code="resource_missing",
                param="intent",
                message=f"No such setupintent: '{ref}'",
            )
        if intent["status"] == "succeeded":
            raise _invalid(
                "You cannot cancel this SetupIntent because it has a status of succeeded.",
                code="setup_intent_unexpected_state",
            )
        intent["status"] = "canceled"
        return 200, intent

    # --- state helpers ---------------------------------------------------------------------

    def _id(self, prefix: str) -> str:
        return f"{prefix}_Fake{next(self._ids):010d}"

    def _new_payment_method(self, kind: str, livemode: bool, **details: Any) -> dict[str, Any]:
        pm: dict[str, Any] = {
            "id": self._id("pm"),
            "object": "payment_method",
            "billing_details": {"address": None, "email": None, "name": None, "phone": None},
            "created": 1_700_000_000,
            "customer": None,
            "livemode": livemode,
            "type": kind,
        }
        if kind == "card":
            pm["card"] = {
                "brand": details["brand"],
                "last4": details["last4"],
                "exp_month": 12,
                "exp_year": 2034,
                "funding": "credit",
                "country": "US",
            }
        else:
            pm["us_bank_account"] = {
                "account_holder_type": "individual",
                "account_type": "checking",
                "bank_name": "STRIPE TEST BANK",
                "last4": details["last4"],
                "routing_number": "110000000",
            }
        self.payment_methods[pm["id"]] = pm
        return pm

    def _lookup_payment_method(
        self, call: _Call, ref: str, *, in_path: bool = False
    ) -> dict[str, Any]:
        """Stripe's test tokens clone into a fresh PaymentMethod on every use."""
        if ref in _CARD_TOKENS:
            brand, last4, decline = _CARD_TOKENS[ref]
            pm = self._new_payment_method("card", call.livemode, brand=brand, last4=last4)
            if decline is not None:
                self._declines[pm["id"]] = decline
            return pm
        if ref in _BANK_TOKENS:
            pm = self._new_payment_method("us_bank_account", call.livemode, last4="6789")
            if not _BANK_TOKENS[ref]:
                self._unverified.add(pm["id"])
            return pm
        pm = self.payment_methods.get(ref)
        if pm is None or pm["livemode"] != call.livemode:
            raise ApiError(
                404 if in_path else 400,
                type="invalid_request_error",
                code="resource_missing",
                param="payment_method",
                message=f"No such PaymentMethod: '{ref}'",
            )
        return pm

    def _use_payment_method(self, call: _Call, ref: str, customer: str | None) -> dict[str, Any]:
        pm = self._lookup_payment_method(call, ref)
        if pm["customer"] is not None and pm["customer"] != customer:
            raise _invalid(
                "The provided PaymentMethod belongs to a Customer, so you must pass that"
                " Customer in the `customer` parameter.",
                "payment_method",
            )
        if pm["id"] in self._used:
            raise _invalid(_PREVIOUSLY_USED, "payment_method")
        return pm

    def _require_mandate(
        self, p: Mapping[str, Any], pm: Mapping[str, Any], customer: str | None, off_session: bool
    ) -> None:
        data = p.get("mandate_data")
        if data is None:
            mandate = self.mandates.get(pm["id"])
            if off_session and customer is not None and mandate and mandate["type"] == "multi_use":
                return
            raise _invalid(
                "A mandate is required to confirm a us_bank_account payment: provide mandate_data.",
                "mandate_data",
                "parameter_missing",
            )
        acceptance = data.get("customer_acceptance") if isinstance(data, dict) else None
        kind = acceptance.get("type") if isinstance(acceptance, dict) else None
        if kind not in ("online", "offline"):
            raise _invalid(
                "Missing required param: mandate_data[customer_acceptance][type].",
                "mandate_data[customer_acceptance][type]",
                "parameter_missing",
            )
        if kind == "online":
            online = acceptance.get("online") if isinstance(acceptance, dict) else None
            for field in ("ip_address", "user_agent"):
                if not isinstance(online, dict) or not online.get(field):
                    name = f"mandate_data[customer_acceptance][online][{field}]"
                    raise _invalid(f"Missing required param: {name}.", name, "parameter_missing")

    def _new_charge(
        self, call: _Call, intent: dict[str, Any], pm: dict[str, Any]
    ) -> dict[str, Any]:
        charge = {
            "id": self._id("ch"),
            "object": "charge",
            "amount": intent["amount"],
            "amount_captured": 0,
            "amount_refunded": 0,
            "captured": False,
            "currency": intent["currency"],
            "failure_code": None,
            "livemode": call.livemode,
            "paid": True,
            "payment_intent": intent["id"],
            "payment_method": pm["id"],
            "refunded": False,
            "status": "succeeded",
        }
        self.charges[charge["id"]] = charge
        intent["latest_charge"] = charge["id"]
        return charge

    def _intent(self, call: _Call, ref: str, param: str = "intent") -> dict[str, Any]:
        intent = self.payment_intents.get(ref)
        if intent is None or intent["livemode"] != call.livemode:
            raise ApiError(
                404 if param == "intent" else 400,
                type="invalid_request_error",
                code="resource_missing",
                param=param,
                message=f"No such payment_intent: '{ref}'",
            )
        return intent

    def _customer(self, call: _Call, ref: str | None, param: str) -> str | None:
        if ref is None:
            return None
        customer = self.customers.get(ref)
        if customer is None or customer["livemode"] != call.livemode:
            raise _invalid(f"No such customer: '{ref}'", param, "resource_missing")
        return ref


# --- request parsing -------------------------------------------------------------------------


def _api_key(header: str) -> str | None:
    scheme, _, value = header.partition(" ")
    if scheme == "Bearer" and value:
        return value
    if scheme == "Basic" and value:
        try:
            user = base64.b64decode(value).decode().partition(":")[0]
        except (ValueError, UnicodeDecodeError):
            return None
        return user or None
    return None


_KEY_PART = re.compile(r"\[([^\]]*)\]")


def _nest(pairs: list[tuple[str, str]]) -> dict[str, Any]:
    """Rack-style bracket notation back into dicts and lists (``a[b][]=1`` → {a: {b: [1]}})."""
    root: dict[str, Any] = {}
    for raw_key, value in pairs:
        head = raw_key.split("[", 1)[0]
        parts = [head, *_KEY_PART.findall(raw_key[len(head) :])]
        node: Any = root
        for i, part in enumerate(parts):
            last = i == len(parts) - 1
            following = None if last else parts[i + 1]
            wants_list = following == "" or (following is not None and following.isdigit())
            if isinstance(node, list):
                if last:
                    node.append(value)
                else:
                    child: Any = [] if wants_list else {}
                    node.append(child)
                    node = child
                continue
            if last:
                node[part] = value
            else:
                node = node.setdefault(part, [] if wants_list else {})
    return root


def _allow(params: dict[str, Any], names: str) -> dict[str, Any]:
    allowed = set(names.split())
    for name in params:
        if name not in allowed:
            raise _invalid(f"Received unknown parameter: {name}", name, "parameter_unknown")
    return params


def _string(p: Mapping[str, Any], name: str, *, required: bool = False) -> Any:
    value = p.get(name)
    if value is None:
        if required:
            raise _invalid(f"Missing required param: {name}.", name, "parameter_missing")
        return None
    if not isinstance(value, str):
        raise _invalid(f"Invalid string: {json.dumps(value)}", name, "parameter_invalid_string")
    if value == "":
        raise _invalid(
            f"You passed an empty string for '{name}'. We assume empty values are an attempt to"
            " unset a parameter; however '{name}' cannot be unset.",
            name,
            "parameter_invalid_empty",
        )
    return value


def _integer(p: Mapping[str, Any], name: str, *, required: bool = False) -> Any:
    value = _string(p, name, required=required)
    if value is None:
        return None
    if not re.fullmatch(r"-?\d+", value):
        raise _invalid(f"Invalid integer: {value}", name, "parameter_invalid_integer")
    return int(value)


def _boolean(p: Mapping[str, Any], name: str) -> bool:
    value = _string(p, name)
    if value is None:
        return False
    if value not in ("true", "false"):
        raise _invalid(f"Invalid boolean: {value}", name)
    return value == "true"


def _list(p: Mapping[str, Any], name: str) -> list[Any] | None:
    value = p.get(name)
    if value is None:
        return None
    if not isinstance(value, list):
        raise _invalid(f"Invalid array: {name} must be an array.", name, "parameter_invalid_array")
    return value
