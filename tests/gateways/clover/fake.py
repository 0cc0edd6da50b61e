"""An in-memory fake of the slice of Clover's Ecommerce API payhub uses (httpx.MockTransport).

Written from Clover's public reference, not from our adapter:

- https://docs.clover.com/reference/createcharge and https://docs.clover.com/docs/create-a-charge
  (``amount`` int64 cents ≥ 0, ``currency`` lower case, ``source`` required, ``capture``,
  ``ecomind`` ecom/moto, ``description`` ≤ 255, ``external_reference_id`` ≤ 12; headers
  ``x-forwarded-for`` and ``Idempotency-Key``)
- https://docs.clover.com/docs/ecommerce-accepting-payments (idempotency key required on
  charges, a version 4 UUID; the response ``id``, ``captured``, ``paid``, ``outcome``)
- https://docs.clover.com/reference/capturecharge (optional ``amount``, else the whole charge)
- https://docs.clover.com/docs/ecommerce-refunding-payments (``POST /v1/refunds`` with
  ``charge``; refund ``status`` succeeded/failed)
- https://docs.clover.com/docs/ecommerce-saving-card (``POST /v1/customers`` with ``email`` and
  ``source``; ``PUT /v1/customers/{id}`` with ``source`` adds a card; multi-pay tokens need
  ``stored_credentials``)
- https://docs.clover.com/docs/appendix and https://docs.clover.com/docs/ecommerce-error-codes
  (error object ``{"error": {type, code, decline_code, message, param, charge}}``; codes
  card_declined, token_already_used, charge_already_captured, charge_already_refunded,
  amount_too_large, resource_missing; HTTP 400/401/402/404/409/429/5xx)
- https://docs.clover.com/docs/test-card-numbers (4242 4242 4242 4242 approves; 4005 5717 0222
  2222 declines)

The fake mints ``clv_…`` tokens the way the Clover iframe does: ``tokenize(number)`` returns a
single-use token. Numbers: ``4242424242424242`` (visa, approves), ``4005571702222222``
(declined, issuer decline), and fake-only numbers for each decline reason payhub maps:
``4000000000009995`` insufficient_funds, ``4000000000000069`` expired_card,
``4000000000000127`` incorrect_cvc, ``4100000000000019`` fraudulent (stolen_card),
``4000000000000119`` processing_error.

Keys: ``SANDBOX_KEY`` is valid on the sandbox host only, ``LIVE_KEY`` on the live host only.
``fail_next(status)`` makes the next request fail with that status (5xx or 429).
"""

from __future__ import annotations

import itertools
import json
import re
import uuid
from typing import Any

import httpx

SANDBOX_KEY = "8a7c1d3e-5b2f-4c6d-9e0a-1f2b3c4d5e6f"
LIVE_KEY = "0f9e8d7c-6b5a-4c3d-8e2f-1a0b9c8d7e6f"
SANDBOX_HOST = "scl-sandbox.dev.clover.com"
LIVE_HOST = "scl.clover.com"

_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
_DECLINES: dict[str, tuple[str, str, str]] = {
    "4005571702222222": ("card_declined", "issuer_declined", "Transaction declined."),
    "4000000000009995": ("card_declined", "insufficient_funds", "Insufficient funds."),
    "4000000000000069": ("expired_card", "expired_card", "The card has expired."),
    "4000000000000127": ("card_declined", "incorrect_cvc", "CVV mismatch."),
    "4100000000000019": ("card_declined", "stolen_card", "Transaction declined."),
    "4000000000000119": ("processing_error", "processing_error", "Processing error."),
}
_MAX_AMOUNT = 99_999_999


class CloverError(Exception):
    def __init__(self, status: int, **error: Any) -> None:
        super().__init__(error.get("message", ""))
        self.status = status
        self.error = {k: v for k, v in error.items() if v is not None}


def _invalid(message: str, param: str | None = None, code: str = "invalid_request") -> CloverError:
    return CloverError(400, type="invalid_request_error", code=code, message=message, param=param)


class FakeClover:
    """A tiny Clover: call ``handler`` through ``httpx.MockTransport``; inspect its dicts."""

    def __init__(self) -> None:
        self.keys = {SANDBOX_KEY: SANDBOX_HOST, LIVE_KEY: LIVE_HOST}
        self.requests: list[httpx.Request] = []
        self.tokens: dict[str, dict[str, Any]] = {}  # clv_ token -> card
        self.used: set[str] = set()
        self.multi_pay: dict[str, dict[str, Any]] = {}  # saved source id -> card (+ customer)
        self.charges: dict[str, dict[str, Any]] = {}
        self.refunds: dict[str, dict[str, Any]] = {}
        self.customers: dict[str, dict[str, Any]] = {}
        self._idempotency: dict[tuple[str, str], tuple[str, str, Any, int, dict[str, Any]]] = {}
        self._fail_next: int | None = None
        self._ids = itertools.count(1)

    # --- test controls -----------------------------------------------------------------

    def fail_next(self, status: int) -> None:
        self._fail_next = status

    def tokenize(self, number: str = "4242424242424242", brand: str = "VISA") -> str:
        """What the Clover iframe returns for a card: a single-use ``clv_`` token."""
        token = f"clv_1TST{next(self._ids):012d}"
        self.tokens[token] = {
            "brand": brand,
            "first6": number[:6],
            "last4": number[-4:],
            "exp_month": "12",
            "exp_year": "2030",
            "number": number,
        }
        return token

    def posts(self, path: str) -> list[httpx.Request]:
        return [r for r in self.requests if r.method == "POST" and r.url.path == path]

    def bodies(self, path: str) -> list[dict[str, Any]]:
        return [json.loads(r.content) for r in self.posts(path)]

    # --- transport ---------------------------------------------------------------------

    def handler(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        headers = {"x-clover-request-id": f"req-{next(self._ids):08d}"}
        try:
            if self._fail_next is not None:
                status, self._fail_next = self._fail_next, None
                kind = "rate_limit_error" if status == 429 else "api_error"
                raise CloverError(status, type=kind, message="Try again later.")
            self._authenticate(request)
            body = self._body(request)
            key = request.headers.get("Idempotency-Key")
            if request.method in ("POST", "PUT") and key is not None:
                if not _UUID.match(key):
                    raise _invalid("Idempotency-Key must be a UUID.", "Idempotency-Key")
                saved = self._idempotency.get((request.url.host, key))
                if saved is not None:
                    method, path, sent, status, answer = saved
                    if (method, path, sent) != (request.method, request.url.path, body):
                        raise CloverError(
                            400,
                            type="idempotency_error",
                            message="Idempotency key reused with a different request.",
                        )
                    return httpx.Response(status, json=answer, headers=headers)
            try:
                status, answer = self._dispatch(request, body)
            except CloverError as e:
                if key is not None and e.status == 402:  # the attempt ran: keep its answer
                    self._idempotency[(request.url.host, key)] = (
                        request.method,
                        request.url.path,
                        body,
                        e.status,
                        {"error": e.error},
                    )
                raise
            if key is not None and request.method in ("POST", "PUT"):
                self._idempotency[(request.url.host, key)] = (
                    request.method,
                    request.url.path,
                    body,
                    status,
                    answer,
                )
            return httpx.Response(status, json=answer, headers=headers)
        except CloverError as e:
            if e.status == 401:
                return httpx.Response(401, json={"message": "401 Unauthorized"}, headers=headers)
            return httpx.Response(e.status, json={"error": e.error}, headers=headers)

    def _authenticate(self, request: httpx.Request) -> None:
        if request.url.scheme != "https" or request.url.host not in (SANDBOX_HOST, LIVE_HOST):
            raise CloverError(404, type="invalid_request_error", message="Unknown host.")
        scheme, _, key = request.headers.get("Authorization", "").partition(" ")
        if scheme != "Bearer" or self.keys.get(key) != request.url.host:
            raise CloverError(401, type="authentication_error", message="Unauthorized")

    def _body(self, request: httpx.Request) -> Any:
        if request.method == "GET":
            return None
        if not request.headers.get("Content-Type", "").startswith("application/json"):
            raise _invalid("Content-Type must be application/json.")
        try:
            body = json.loads(request.content or b"{}")
        except ValueError:
            raise _invalid("Malformed JSON.") from None
        if not isinstance(body, dict):
            raise _invalid("The body must be a JSON object.")
        return body

    def _dispatch(self, request: httpx.Request, body: Any) -> tuple[int, dict[str, Any]]:
        path, method = request.url.path, request.method
        live = request.url.host == LIVE_HOST
        if method == "POST" and path == "/v1/charges":
            return self._create_charge(request, body, live)
        match = re.fullmatch(r"/v1/charges/([^/]+)/capture", path)
        if method == "POST" and match:
            return self._capture(self._charge(match.group(1), live), body)
        match = re.fullmatch(r"/v1/charges/([^/]+)", path)
        if method == "GET" and match:
            return 200, self._charge(match.group(1), live)
        if method == "POST" and path == "/v1/refunds":
            return self._refund(body, live)
        if method == "POST" and path == "/v1/customers":
            return self._create_customer(body, live)
        match = re.fullmatch(r"/v1/customers/([^/]+)", path)
        if method == "PUT" and match:
            return self._add_card(match.group(1), body, live)
        raise CloverError(404, type="invalid_request_error", message="Not found.")

    # --- endpoints ---------------------------------------------------------------------

    def _create_charge(
        self, request: httpx.Request, body: dict[str, Any], live: bool
    ) -> tuple[int, dict[str, Any]]:
        if "Idempotency-Key" not in request.headers:
            raise _invalid("Idempotency-Key header is required.", "Idempotency-Key")
        if not request.headers.get("x-forwarded-for"):
            raise _invalid("x-forwarded-for header is required.", "x-forwarded-for")
        _allow(
            body,
            "amount currency capture description ecomind external_reference_id source"
            " stored_credentials metadata receipt_email tax_amount tip_amount",
        )
        amount = _int(body, "amount")
        if amount > _MAX_AMOUNT:
            raise _invalid("Amount exceeds the maximum.", "amount", "amount_too_large")
        currency = body.get("currency")
        if not isinstance(currency, str) or not re.fullmatch(r"[a-z]{3}", currency):
            raise _invalid("currency must be a lower-case ISO 4217 code.", "currency")
        capture = body.get("capture", True)
        if not isinstance(capture, bool):
            raise _invalid("capture must be a boolean.", "capture")
        if body.get("ecomind", "ecom") not in ("ecom", "moto"):
            raise _invalid("ecomind must be ecom or moto.", "ecomind")
        description = body.get("description")
        if description is not None and (not isinstance(description, str) or len(description) > 255):
            raise _invalid("description is at most 255 characters.", "description")
        source = body.get("source")
        if not isinstance(source, str) or not source:
            raise _invalid("source is required.", "source", "missing")
        card, customer = self._use_source(source, body)
        charge: dict[str, Any] = {
            "id": self._id(),
            "object": "charge",
            "amount": amount,
            "amount_refunded": 0,
            "currency": currency,
            "created": 1_700_000_000_000,
            "captured": capture,
            "customer": customer,
            "livemode": live,
            "paid": True,
            "refunded": False,
            "status": "succeeded",
            "ref_num": f"{next(self._ids):012d}",
            "auth_code": "OK1234",
            "outcome": {"network_status": "approved_by_network", "type": "authorized"},
            "payment_method_details": "card",
            "source": {
                "brand": card["brand"],
                "first6": card["first6"],
                "last4": card["last4"],
                "exp_month": card["exp_month"],
                "exp_year": card["exp_year"],
            },
        }
        decline = _DECLINES.get(card["number"])
        if decline is not None:
            code, decline_code, message = decline
            charge.update(
                paid=False,
                captured=False,
                status="failed",
                failure_code=decline_code,
                failure_message=message,
                outcome={"network_status": "declined_by_network", "type": "issuer_declined"},
            )
            self.charges[charge["id"]] = charge
            raise CloverError(
                402,
                type="card_error",
                code=code,
                decline_code=decline_code,
                message=message,
                charge=charge["id"],
            )
        self.charges[charge["id"]] = charge
        return 200, charge

    def _use_source(self, source: str, body: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
        if source in self.multi_pay:
            if not isinstance(body.get("stored_credentials"), dict):
                raise _invalid(
                    "stored_credentials are required with a multi-pay token.",
                    "stored_credentials",
                )
            saved = self.multi_pay[source]
            return saved, saved["customer"]
        if source in self.customers:
            customer = self.customers[source]
            data = customer["sources"]["data"]
            if not data:
                raise _invalid("No card on file.", "source", "card_on_file_missing")
            return self.multi_pay[data[0]["id"]], source
        card = self.tokens.get(source)
        if card is None:
            raise _invalid("Invalid token.", "source", "resource_missing")
        if source in self.used:
            raise _invalid("The token has already been used.", "source", "token_already_used")
        self.used.add(source)
        return card, None

    def _capture(self, charge: dict[str, Any], body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        _allow(body, "amount receipt_email level2")
        if charge["status"] == "failed":
            raise _invalid("The charge failed and cannot be captured.", "charge")
        if charge["refunded"]:
            raise _invalid("The charge was refunded.", "charge", "charge_already_refunded")
        if charge["captured"]:
            raise _invalid(
                "The charge has already been captured.", "charge", "charge_already_captured"
            )
        amount = _int(body, "amount") if "amount" in body else charge["amount"]
        if amount > charge["amount"] or amount < 1:
            raise _invalid("Capture amount exceeds the authorized amount.", "amount")
        charge.update(captured=True, amount_captured=amount)
        return 200, charge

    def _refund(self, body: dict[str, Any], live: bool) -> tuple[int, dict[str, Any]]:
        _allow(body, "charge amount reason external_reference_id")
        ref = body.get("charge")
        if not isinstance(ref, str):
            raise _invalid("charge is required.", "charge", "missing")
        charge = self._charge(ref, live, param="charge")
        if charge["status"] == "failed":
            raise _invalid("A failed charge cannot be refunded.", "charge")
        if charge["refunded"]:
            raise _invalid(
                "The charge has already been refunded.", "charge", "charge_already_refunded"
            )
        captured = charge.get("amount_captured", charge["amount"]) if charge["captured"] else 0
        left = captured - charge["amount_refunded"]
        if not charge["captured"]:  # releasing an authorization: all of it
            if "amount" in body and _int(body, "amount") != charge["amount"]:
                raise _invalid("An uncaptured charge is refunded in full.", "amount")
            amount = charge["amount"]
            charge.update(refunded=True, amount_refunded=amount)
        else:
            amount = _int(body, "amount") if "amount" in body else left
            if amount < 1 or amount > left:
                raise _invalid("Refund amount exceeds the amount left.", "amount")
            charge["amount_refunded"] += amount
            charge["refunded"] = charge["amount_refunded"] == captured
        refund = {
            "id": self._id(),
            "object": "refund",
            "amount": amount,
            "charge": ref,
            "created": 1_700_000_000_000,
            "status": "succeeded",
        }
        self.refunds[refund["id"]] = refund
        return 200, refund

    def _create_customer(self, body: dict[str, Any], live: bool) -> tuple[int, dict[str, Any]]:
        _allow(
            body,
            "ecomind email firstName lastName name source phone shipping external_reference_id",
        )
        email = body.get("email")
        if not isinstance(email, str) or "@" not in email:
            raise _invalid("A valid email is required.", "email", "email_invalid")
        customer: dict[str, Any] = {
            "id": self._id(),
            "object": "customer",
            "created": 1_700_000_000_000,
            "email": email,
            "name": body.get("name"),
            "livemode": live,
            "sources": {"object": "list", "data": []},
        }
        if "source" in body:
            customer["sources"]["data"].append(self._save(customer["id"], body["source"]))
        self.customers[customer["id"]] = customer
        return 200, customer

    def _add_card(self, ref: str, body: dict[str, Any], live: bool) -> tuple[int, dict[str, Any]]:
        _allow(body, "ecomind email firstName lastName name source phone shipping")
        customer = self.customers.get(ref)
        if customer is None or customer["livemode"] != live:
            raise CloverError(
                404, type="invalid_request_error", code="resource_missing", message="No customer."
            )
        if "source" in body:
            customer["sources"]["data"].append(self._save(ref, body["source"]))
        return 200, customer

    def _save(self, customer: str, token: object) -> dict[str, Any]:
        if not isinstance(token, str) or token not in self.tokens:
            raise _invalid("Invalid token.", "source", "resource_missing")
        if token in self.used:
            raise _invalid("The token has already been used.", "source", "token_already_used")
        card = self.tokens[token]
        decline = _DECLINES.get(card["number"])
        if decline is not None:  # Clover verifies the card when it is stored
            code, decline_code, message = decline
            raise CloverError(
                402, type="card_error", code=code, decline_code=decline_code, message=message
            )
        self.used.add(token)
        source_id = self._id()
        self.multi_pay[source_id] = {**card, "customer": customer}
        return {
            "id": source_id,
            "object": "card",
            "brand": card["brand"],
            "first6": card["first6"],
            "last4": card["last4"],
            "exp_month": card["exp_month"],
            "exp_year": card["exp_year"],
        }

    # --- helpers -----------------------------------------------------------------------

    def _id(self) -> str:
        return uuid.UUID(int=next(self._ids)).hex[-13:].upper()

    def _charge(self, ref: str, live: bool, param: str | None = None) -> dict[str, Any]:
        charge = self.charges.get(ref)
        if charge is None or charge["livemode"] != live:
            raise CloverError(
                404 if param is None else 400,
                type="invalid_request_error",
                code="resource_missing",
                param=param,
                message="No such charge.",
            )
        return charge


def _allow(body: dict[str, Any], names: str) -> None:
    allowed = set(names.split())
    for name in body:
        if name not in allowed:
            raise _invalid(f"Unknown parameter: {name}", name)


def _int(body: dict[str, Any], name: str) -> int:
    value = body.get(name)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise _invalid(f"{name} must be a non-negative integer (cents).", name)
    return value
