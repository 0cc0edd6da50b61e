"""An in-memory fake of Square's Connect v2 API, for ``httpx.MockTransport``.

Written from Square's public reference (see ``payhub/adapters/gateways/square/adapter.py`` for the
pages): JSON bodies, ``Authorization: Bearer``, ``{"errors": [{category, code, detail,
field}]}`` on failure, integer minor-unit ``amount_money``, the body ``idempotency_key``
(at most 45 characters; a replay with the same body returns the first answer, with another
body ``IDEMPOTENCY_KEY_REUSED``), and payment states APPROVED -> COMPLETED | CANCELED,
PENDING for ACH. One fake is one Square account in one environment: requests to the other
environment's host are unauthorized, as a sandbox token is on the production host.

Test tokens (the ``cnon:`` ones are Square's own sandbox values where Square has one)::

    cnon:card-nonce-ok                    approved, VISA ending 5858; reusable
    cnon:card-nonce-declined              402 GENERIC_DECLINE
    cnon:card-nonce-insufficient-funds    402 INSUFFICIENT_FUNDS (fake only)
    cnon:card-nonce-rejected-cvv          400 CVV_FAILURE
    cnon:card-nonce-rejected-postalcode   400 ADDRESS_VERIFICATION_FAILURE
    cnon:card-nonce-rejected-expiration   400 INVALID_EXPIRATION
    cnon:card-nonce-already-used          400 CARD_TOKEN_USED
    cnon:card-nonce-expired               400 CARD_TOKEN_EXPIRED (fake only)
    FakeSquare.card_nonce()               approved once, then CARD_TOKEN_USED (a real nonce)
    bnon:bank-nonce-ok                    ACH transfer, PENDING until settle(payment_id);
                                          Square's sandbox name for it is unconfirmed
    ccof:...                              a card made by CreateCard, charged with its customer
    anything else                         404 NOT_FOUND on source_id

Declines also carry the FAILED ``payment``, as CreatePayment's error answer does.
``fail_next()`` makes the next call answer 500 ``INTERNAL_SERVER_ERROR``.
Refunds are answered ``PENDING``, as RefundPayment's example shows, until
``finish_refunds("COMPLETED" | "FAILED")``; ``GET /v2/refunds/{id}`` reads one back.

Every request first passes ``tests/gateways/square/contract`` (the squareup SDK's method
signatures and request TypedDicts): a field the SDK does not declare, a missing required one
or a value outside a published enum is a 400 ``INVALID_REQUEST_ERROR``, kept in
``violations``; and every answer the fake gives is checked against the SDK's response type.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import json
import re
from collections.abc import Callable
from typing import Any

import httpx

from tests.gateways.contracts import ContractViolation
from tests.gateways.square.contract.validator import (
    known,
    response_type,
    validate,
    validate_answer,
)

SANDBOX_HOST = "connect.squareupsandbox.com"
LIVE_HOST = "connect.squareup.com"
ACCESS_TOKEN = "EAAAEfakeSandboxAccessToken0123456789"
LOCATION_ID = "LFAKEMAIN0001"
_NOW = "2026-11-23T10:00:00.000Z"
_KEY_MAX = 45

_OK_CARD = {"card_brand": "VISA", "last_4": "5858", "exp_month": 12, "exp_year": 2030}
_TOKEN_ERRORS: dict[str, tuple[int, str, str]] = {
    "cnon:card-nonce-declined": (402, "GENERIC_DECLINE", "PAYMENT_METHOD_ERROR"),
    "cnon:card-nonce-insufficient-funds": (402, "INSUFFICIENT_FUNDS", "PAYMENT_METHOD_ERROR"),
    "cnon:card-nonce-rejected-cvv": (400, "CVV_FAILURE", "PAYMENT_METHOD_ERROR"),
    "cnon:card-nonce-rejected-postalcode": (
        400,
        "ADDRESS_VERIFICATION_FAILURE",
        "PAYMENT_METHOD_ERROR",
    ),
    "cnon:card-nonce-rejected-expiration": (400, "INVALID_EXPIRATION", "PAYMENT_METHOD_ERROR"),
    "cnon:card-nonce-already-used": (400, "CARD_TOKEN_USED", "INVALID_REQUEST_ERROR"),
    "cnon:card-nonce-expired": (400, "CARD_TOKEN_EXPIRED", "INVALID_REQUEST_ERROR"),
}
_NEEDS_KEY = {"CreatePayment", "UpdatePayment", "RefundPayment", "CreateCard"}


class _Reply(Exception):
    """Stops handling with a ready answer (an error, usually)."""

    def __init__(self, response: httpx.Response) -> None:
        super().__init__(response.status_code)
        self.response = response


def _error(
    status: int,
    code: str,
    detail: str,
    category: str = "INVALID_REQUEST_ERROR",
    field: str | None = None,
    **extra: Any,
) -> _Reply:
    error: dict[str, Any] = {"category": category, "code": code, "detail": detail}
    if field:
        error["field"] = field
    return _Reply(httpx.Response(status, json={"errors": [error], **extra}))


class FakeSquare:
    """One Square seller account: its payments, refunds, customers and cards on file."""

    def __init__(
        self,
        *,
        sandbox: bool = True,
        access_token: str = ACCESS_TOKEN,
        location_id: str = LOCATION_ID,
        currency: str = "USD",
    ) -> None:
        self.host = SANDBOX_HOST if sandbox else LIVE_HOST
        self.access_token = access_token
        self.location_id = location_id
        self.currency = currency
        self.payments: dict[str, dict[str, Any]] = {}
        self.refunds: dict[str, dict[str, Any]] = {}
        self.violations: list[str] = []
        self.customers: dict[str, dict[str, Any]] = {}
        self.cards: dict[str, dict[str, Any]] = {}
        self.requests: list[httpx.Request] = []
        self._replays: dict[tuple[str, str], tuple[str, httpx.Response]] = {}
        self._fresh_nonces: set[str] = set()
        self._used_nonces: set[str] = set()
        self._outages = 0
        self._ids = itertools.count(1)

    # --- test controls ---------------------------------------------------------------------

    def client(self) -> httpx.Client:
        return httpx.Client(transport=httpx.MockTransport(self.handler))

    def fail_next(self, times: int = 1) -> None:
        self._outages += times

    def card_nonce(self) -> str:
        """A single-use card token, as the Web Payments SDK hands out."""
        nonce = f"cnon:fake-{next(self._ids):06d}"
        self._fresh_nonces.add(nonce)
        return nonce

    def finish_refunds(self, outcome: str = "COMPLETED") -> None:
        """Square finishes the pending refunds; a FAILED one gives its amount back."""
        for refund in self.refunds.values():
            if refund["status"] != "PENDING":
                continue
            refund["status"] = outcome
            if outcome == "FAILED":
                payment = self.payments[refund["payment_id"]]
                payment["refunded_money"]["amount"] -= refund["amount_money"]["amount"]
                self._touch(payment)

    def settle(self, payment_id: str) -> None:
        """The ACH transfer cleared: PENDING becomes COMPLETED."""
        payment = self.payments[payment_id]
        assert payment["status"] == "PENDING"
        payment["status"] = "COMPLETED"
        self._touch(payment)

    def bodies(self, method: str, path: str) -> list[dict[str, Any]]:
        """The JSON bodies sent to one endpoint, in order."""
        return [
            json.loads(r.content)
            for r in self.requests
            if r.method == method and r.url.path == path and r.content
        ]

    # --- HTTP ------------------------------------------------------------------------------

    def handler(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        try:
            response = self._handle(request)
        except _Reply as reply:
            response = reply.response
        if response.status_code < 500 and response.status_code not in (401, 404):
            # The fake's own answers must be what Square's response types describe.
            model = response_type(request.method, request.url.path)
            validate_answer(model, json.loads(response.content))
        return response

    def _handle(self, request: httpx.Request) -> httpx.Response:
        if self._outages:
            self._outages -= 1
            raise _error(500, "INTERNAL_SERVER_ERROR", "Something went wrong.", "API_ERROR")
        if request.url.host != self.host or request.headers.get("Authorization") != (
            f"Bearer {self.access_token}"
        ):
            raise _error(
                401, "UNAUTHORIZED", "This request could not be authorized.", "AUTHENTICATION_ERROR"
            )
        version = request.headers.get("Square-Version")
        if version is not None and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", version):
            raise _error(400, "INVALID_SQUARE_VERSION_FORMAT", "Bad Square-Version header.")
        method, path = request.method, request.url.path
        body = self._body(request) if method in ("POST", "PUT") else {}
        try:
            if known(method, path):  # elsewhere Square answers 404, as below
                validate(method, path, body if method in ("POST", "PUT") else None)
        except ContractViolation as violation:
            self.violations.append(str(violation))
            raise _error(400, "INVALID_VALUE", str(violation)) from None
        routes: list[tuple[str, str, Callable[..., httpx.Response], str]] = [
            ("POST", r"/v2/payments", self._create_payment, "CreatePayment"),
            ("GET", r"/v2/payments/([^/]+)", self._get_payment, ""),
            ("PUT", r"/v2/payments/([^/]+)", self._update_payment, "UpdatePayment"),
            ("POST", r"/v2/payments/([^/]+)/complete", self._complete_payment, ""),
            ("POST", r"/v2/payments/([^/]+)/cancel", self._cancel_payment, ""),
            ("POST", r"/v2/refunds", self._refund_payment, "RefundPayment"),
            ("GET", r"/v2/refunds/([^/]+)", self._get_refund, ""),
            ("POST", r"/v2/customers", self._create_customer, "CreateCustomer"),
            ("POST", r"/v2/cards", self._create_card, "CreateCard"),
        ]
        for route_method, pattern, action, operation in routes:
            match = re.fullmatch(pattern, path)
            if match and route_method == method:
                args = match.groups()
                if operation:
                    return self._idempotent(operation, body, functools.partial(action, body, *args))
                return action(body, *args)
        raise _error(404, "NOT_FOUND", f"Resource not found: {method} {path}")

    def _body(self, request: httpx.Request) -> dict[str, Any]:
        if not request.headers.get("Content-Type", "").startswith("application/json"):
            raise _error(400, "INVALID_CONTENT_TYPE", "Content-Type must be application/json.")
        try:
            body = json.loads(request.content or b"{}")
        except ValueError:
            raise _error(400, "EXPECTED_JSON_BODY", "The body is not valid JSON.") from None
        if not isinstance(body, dict):
            raise _error(400, "EXPECTED_JSON_BODY", "The body must be a JSON object.")
        return body

    def _idempotent(
        self, operation: str, body: dict[str, Any], action: Callable[[], httpx.Response]
    ) -> httpx.Response:
        key = body.get("idempotency_key")
        if key is None:
            if operation in _NEEDS_KEY:
                raise _error(
                    400,
                    "MISSING_REQUIRED_PARAMETER",
                    "Missing idempotency_key.",
                    field="idempotency_key",
                )
            return action()
        if not isinstance(key, str) or not key:
            raise _error(400, "VALUE_EMPTY", "idempotency_key is empty.", field="idempotency_key")
        if len(key) > _KEY_MAX:
            raise _error(
                400,
                "VALUE_TOO_LONG",
                f"Must be at most {_KEY_MAX} characters.",
                field="idempotency_key",
            )
        fingerprint = json.dumps(body, sort_keys=True)
        seen = self._replays.get((operation, key))
        if seen is not None:
            if seen[0] != fingerprint:
                raise _error(
                    400,
                    "IDEMPOTENCY_KEY_REUSED",
                    "The idempotency key was used for a different request.",
                    field="idempotency_key",
                )
            return httpx.Response(seen[1].status_code, content=seen[1].content)
        response = action()
        if response.is_success:  # only a successful first answer is replayed
            self._replays[(operation, key)] = (fingerprint, response)
        return response

    # --- Payments API ----------------------------------------------------------------------

    def _create_payment(self, body: dict[str, Any]) -> httpx.Response:
        source_id = _required_str(body, "source_id")
        money = self._money(body, "amount_money")
        location = body.get("location_id", self.location_id)
        if location != self.location_id:
            raise _error(404, "NOT_FOUND", f"Location `{location}` not found.", field="location_id")
        autocomplete = body.get("autocomplete", True)
        if not isinstance(autocomplete, bool):
            raise _error(400, "EXPECTED_BOOLEAN", "Expected a boolean.", field="autocomplete")
        if source_id.startswith("bnon:"):
            return self._create_bank_payment(body, source_id, money, autocomplete)
        if money["currency"] != self.currency:
            raise _error(
                400,
                "INVALID_VALUE",
                f"This location takes payments in {self.currency}.",
                field="amount_money.currency",
            )
        card, entry_method = self._card_source(body, source_id)
        payment = self._new_payment(body, money, "CARD")
        payment["card_details"] = {
            "status": "CAPTURED" if autocomplete else "AUTHORIZED",
            "card": {**card, "card_type": "CREDIT", "prepaid_type": "NOT_PREPAID"},
            "entry_method": entry_method,
            "cvv_status": "CVV_ACCEPTED",
            "avs_status": "AVS_ACCEPTED",
            "auth_result_code": "Fk2Y7q",
        }
        if autocomplete:
            payment["status"] = "COMPLETED"
        else:
            payment["status"] = "APPROVED"
            payment["delay_duration"] = "PT168H"
            payment["capabilities"] = ["EDIT_AMOUNT_UP", "EDIT_AMOUNT_DOWN", "EDIT_DELAY_ACTION"]
        self._consume(source_id)
        return httpx.Response(200, json={"payment": payment})

    def _card_source(self, body: dict[str, Any], source_id: str) -> tuple[dict[str, Any], str]:
        """The card behind a token or card on file, or the error Square answers with."""
        if source_id in _TOKEN_ERRORS:
            status, code, category = _TOKEN_ERRORS[source_id]
            failed = self._new_payment(body, self._money(body, "amount_money"), "CARD")
            failed["status"] = "FAILED"
            failed["card_details"] = {
                "status": "FAILED",
                "card": dict(_OK_CARD),
                "entry_method": "KEYED",
                "errors": [
                    {
                        "category": "PAYMENT_METHOD_ERROR",
                        "code": code,
                        "detail": f"Authorization error: '{code}'",
                    }
                ],
            }
            raise _error(status, code, f"Authorization error: '{code}'", category, payment=failed)
        if source_id.startswith("ccof:"):
            card = self.cards.get(source_id)
            if card is None:
                raise _error(404, "NOT_FOUND", "Card not found.", field="source_id")
            if "customer_id" not in body:
                raise _error(
                    400,
                    "MISSING_REQUIRED_PARAMETER",
                    "customer_id is required with a card on file.",
                    field="customer_id",
                )
            if body["customer_id"] != card["customer_id"]:
                raise _error(
                    404, "NOT_FOUND", "Card not found for this customer.", field="source_id"
                )
            return {k: card[k] for k in _OK_CARD}, "ON_FILE"
        self._check_nonce(source_id)
        return dict(_OK_CARD), "KEYED"

    def _check_nonce(self, source_id: str) -> None:
        if source_id in self._used_nonces:
            raise _error(400, "CARD_TOKEN_USED", "Card nonce already used; generate a new one.")
        if source_id != "cnon:card-nonce-ok" and source_id not in self._fresh_nonces:
            raise _error(
                404,
                "NOT_FOUND",
                "Card nonce not found in this `sandbox` application environment.",
                field="source_id",
            )

    def _consume(self, source_id: str) -> None:
        if source_id in self._fresh_nonces:
            self._fresh_nonces.discard(source_id)
            self._used_nonces.add(source_id)

    def _create_bank_payment(
        self, body: dict[str, Any], source_id: str, money: dict[str, Any], autocomplete: bool
    ) -> httpx.Response:
        if source_id != "bnon:bank-nonce-ok":
            raise _error(404, "NOT_FOUND", "Bank nonce not found.", field="source_id")
        if not autocomplete:
            raise _error(
                400, "INVALID_VALUE", "ACH payments must be autocompleted.", field="autocomplete"
            )
        if money["currency"] != "USD":
            raise _error(
                400, "INVALID_VALUE", "ACH payments are USD only.", field="amount_money.currency"
            )
        payment = self._new_payment(body, money, "BANK_ACCOUNT")
        payment["status"] = "PENDING"
        payment["bank_account_details"] = {
            "bank_name": "Citizens Bank",
            "transfer_type": "ACH",
            "account_ownership_type": "INDIVIDUAL",
            "country": "US",
            "statement_description": "SQ* FAKE SELLER",
            "ach_details": {"account_number_suffix": "000", "account_type": "CHECKING"},
        }
        return httpx.Response(200, json={"payment": payment})

    def _new_payment(
        self, body: dict[str, Any], money: dict[str, Any], source_type: str
    ) -> dict[str, Any]:
        payment_id = self._id("pay")
        payment: dict[str, Any] = {
            "id": payment_id,
            "created_at": _NOW,
            "updated_at": _NOW,
            "amount_money": dict(money),
            "approved_money": dict(money),
            "total_money": dict(money),
            "source_type": source_type,
            "location_id": self.location_id,
            "order_id": self._id("ord"),
            "receipt_number": payment_id[:4],
            "version_token": self._id("ver"),
        }
        for optional in ("customer_id", "note", "reference_id"):
            if optional in body:
                payment[optional] = body[optional]
        self.payments[payment_id] = payment
        return payment

    def _payment(self, payment_id: str) -> dict[str, Any]:
        payment = self.payments.get(payment_id)
        if payment is None:
            raise _error(404, "NOT_FOUND", f"Could not find payment with id: {payment_id}")
        return payment

    def _get_payment(self, _body: dict[str, Any], payment_id: str) -> httpx.Response:
        return httpx.Response(200, json={"payment": self._payment(payment_id)})

    def _update_payment(self, body: dict[str, Any], payment_id: str) -> httpx.Response:
        payment = self._payment(payment_id)
        changes = body.get("payment")
        if not isinstance(changes, dict):
            raise _error(400, "MISSING_REQUIRED_PARAMETER", "Missing payment.", field="payment")
        self._require_approved(payment)
        self._check_version(payment, changes)
        if "amount_money" in changes:
            money = self._money(changes, "amount_money")
            if money["currency"] != payment["amount_money"]["currency"]:
                raise _error(400, "INVALID_VALUE", "Currency cannot change.", field="amount_money")
            if money["amount"] > payment["approved_money"]["amount"]:
                raise _error(
                    400,
                    "VALUE_TOO_HIGH",
                    "Amount exceeds the approved amount.",
                    field="payment.amount_money.amount",
                )
            payment["amount_money"] = dict(money)
            payment["total_money"] = dict(money)
        self._touch(payment)
        return httpx.Response(200, json={"payment": payment})

    def _complete_payment(self, body: dict[str, Any], payment_id: str) -> httpx.Response:
        payment = self._payment(payment_id)
        self._require_approved(payment)
        self._check_version(payment, body)
        payment["status"] = "COMPLETED"
        payment["card_details"]["status"] = "CAPTURED"
        payment.pop("capabilities", None)
        self._touch(payment)
        return httpx.Response(200, json={"payment": payment})

    def _cancel_payment(self, _body: dict[str, Any], payment_id: str) -> httpx.Response:
        payment = self._payment(payment_id)
        self._require_approved(payment)
        payment["status"] = "CANCELED"
        payment["card_details"]["status"] = "VOIDED"
        payment.pop("capabilities", None)
        self._touch(payment)
        return httpx.Response(200, json={"payment": payment})

    def _require_approved(self, payment: dict[str, Any]) -> None:
        codes = {
            "COMPLETED": "DELAYED_TRANSACTION_CAPTURED",
            "CANCELED": "DELAYED_TRANSACTION_CANCELED",
            "FAILED": "DELAYED_TRANSACTION_FAILED",
            "PENDING": "BAD_REQUEST",
        }
        if payment["status"] != "APPROVED":
            raise _error(
                400, codes[payment["status"]], f"The payment is {payment['status']}, not APPROVED."
            )

    def _check_version(self, payment: dict[str, Any], sent: dict[str, Any]) -> None:
        token = sent.get("version_token")
        if token is not None and token != payment["version_token"]:
            raise _error(400, "VERSION_MISMATCH", "The payment has changed since that version.")

    # --- Refunds API -----------------------------------------------------------------------

    def _refund_payment(self, body: dict[str, Any]) -> httpx.Response:
        payment_id = _required_str(body, "payment_id")
        money = self._money(body, "amount_money")
        payment = self.payments.get(payment_id)
        if payment is None:
            raise _error(404, "NOT_FOUND", "Payment not found.", field="payment_id")
        if payment["status"] != "COMPLETED":
            raise _error(
                400, "PAYMENT_NOT_REFUNDABLE", f"A {payment['status']} payment cannot be refunded."
            )
        if money["currency"] != payment["total_money"]["currency"]:
            raise _error(400, "CURRENCY_MISMATCH", "Refund currency differs from the payment's.")
        refunded = payment.get("refunded_money", {"amount": 0})["amount"]
        if money["amount"] > payment["total_money"]["amount"] - refunded:
            raise _error(
                400,
                "REFUND_AMOUNT_INVALID",
                "The requested refund amount exceeds the amount available to refund.",
                field="amount_money.amount",
            )
        refund_id = f"{payment_id}_{self._id('ref')}"
        refund = {
            "id": refund_id,
            "status": "PENDING",
            "amount_money": dict(money),
            "payment_id": payment_id,
            "order_id": payment["order_id"],
            "location_id": self.location_id,
            "destination_type": payment["source_type"],
            "created_at": _NOW,
            "updated_at": _NOW,
        }
        self.refunds[refund_id] = refund
        payment["refunded_money"] = {
            "amount": refunded + money["amount"],
            "currency": money["currency"],
        }
        payment.setdefault("refund_ids", []).append(refund_id)
        self._touch(payment)
        return httpx.Response(200, json={"refund": refund})

    def _get_refund(self, body: dict[str, Any], refund_id: str) -> httpx.Response:
        refund = self.refunds.get(refund_id)
        if refund is None:
            raise _error(404, "NOT_FOUND", "Refund not found.")
        return httpx.Response(200, json={"refund": refund})

    # --- Customers and Cards APIs ----------------------------------------------------------

    def _create_customer(self, body: dict[str, Any]) -> httpx.Response:
        names = ("given_name", "family_name", "company_name", "email_address", "phone_number")
        if not any(isinstance(body.get(n), str) and body[n] for n in names):
            raise _error(
                400,
                "MISSING_REQUIRED_PARAMETER",
                "At least one of given_name, family_name, company_name, email_address or"
                " phone_number is required.",
            )
        customer_id = self._id("CUST").upper()
        customer = {
            "id": customer_id,
            "created_at": _NOW,
            "updated_at": _NOW,
            "creation_source": "THIRD_PARTY",
            "preferences": {"email_unsubscribed": False},
            "version": 0,
            **{k: body[k] for k in (*names, "reference_id", "note") if k in body},
        }
        self.customers[customer_id] = customer
        return httpx.Response(200, json={"customer": customer})

    def _create_card(self, body: dict[str, Any]) -> httpx.Response:
        source_id = _required_str(body, "source_id")
        card_in = body.get("card")
        if not isinstance(card_in, dict) or not isinstance(card_in.get("customer_id"), str):
            raise _error(
                400,
                "MISSING_REQUIRED_PARAMETER",
                "card.customer_id is required.",
                field="card.customer_id",
            )
        if card_in["customer_id"] not in self.customers:
            raise _error(404, "NOT_FOUND", "Customer not found.", field="card.customer_id")
        if source_id.startswith("bnon:"):
            raise _error(400, "INVALID_CARD_DATA", "The source is not a card.", field="source_id")
        if source_id in _TOKEN_ERRORS:
            status, code, category = _TOKEN_ERRORS[source_id]
            raise _error(status, code, f"Card verification error: '{code}'", category)
        self._check_nonce(source_id)
        card_id = f"ccof:{self._id('card')}"
        card = {
            "id": card_id,
            **_OK_CARD,
            "customer_id": card_in["customer_id"],
            "merchant_id": "MFAKE0001",
            "enabled": True,
            "card_type": "CREDIT",
            "prepaid_type": "NOT_PREPAID",
            "bin": "453275",
            "version": 1,
            "fingerprint": "sq-1-" + hashlib.sha256(card_id.encode()).hexdigest()[:20],
        }
        self.cards[card_id] = card
        self._consume(source_id)
        return httpx.Response(200, json={"card": card})

    # --- helpers ---------------------------------------------------------------------------

    def _money(self, body: dict[str, Any], field: str) -> dict[str, Any]:
        money = body.get(field)
        if not isinstance(money, dict):
            raise _error(400, "MISSING_REQUIRED_PARAMETER", f"Missing {field}.", field=field)
        amount, currency = money.get("amount"), money.get("currency")
        if type(amount) is not int:  # a float or a string is refused, as Square does
            raise _error(400, "EXPECTED_INTEGER", "Expected an integer.", field=f"{field}.amount")
        if amount <= 0:
            raise _error(400, "VALUE_TOO_LOW", "Amount must be positive.", field=f"{field}.amount")
        if not isinstance(currency, str) or not re.fullmatch(r"[A-Z]{3}", currency):
            raise _error(400, "INVALID_ENUM_VALUE", "Unknown currency.", field=f"{field}.currency")
        return {"amount": amount, "currency": currency}

    def _id(self, prefix: str) -> str:
        return f"{prefix}{next(self._ids):06d}fake"

    def _touch(self, payment: dict[str, Any]) -> None:
        payment["updated_at"] = _NOW
        payment["version_token"] = self._id("ver")


def _required_str(body: dict[str, Any], field: str) -> str:
    value = body.get(field)
    if not isinstance(value, str) or not value:
        raise _error(400, "MISSING_REQUIRED_PARAMETER", f"Missing {field}.", field=field)
    return value
