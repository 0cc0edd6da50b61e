"""An in-memory fake of the slice of PayPal's REST APIs payhub uses, for ``httpx.MockTransport``.

Written from PayPal's public reference, not from our adapter:

- https://developer.paypal.com/api/rest/authentication/ (``POST /v1/oauth2/token``: Basic
  client_id:secret, ``grant_type=client_credentials``; 401 ``invalid_client``)
- https://developer.paypal.com/docs/api/orders/v2/ (show, PATCH on CREATED/APPROVED orders,
  authorize, capture; create with ``payment_source.card.vault_id``; 422 issues such as
  ORDER_ALREADY_CAPTURED, ORDER_NOT_APPROVED; 404 RESOURCE_NOT_FOUND / INVALID_RESOURCE_ID)
- https://developer.paypal.com/docs/api/payments/v2/ (authorization capture with
  ``final_capture``, void, capture refund; 422 AUTHORIZATION_ALREADY_CAPTURED,
  AUTHORIZATION_VOIDED, REFUND_AMOUNT_EXCEEDED, CAPTURE_FULLY_REFUNDED)
- https://developer.paypal.com/api/payment-tokens/v3/ (payment token from a SETUP_TOKEN)
- https://developer.paypal.com/api/rest/reference/idempotency/ (``PayPal-Request-Id``: the
  same id replays the first answer)
- https://developer.paypal.com/tools/sandbox/card-testing/ (``CCREJECT-*`` names on the card
  make the processor decline with its response code)

Errors are ``{name, message, debug_id, details: [{issue, description}]}`` with a
``PayPal-Debug-Id`` header. Test controls: ``card_fields_order`` makes an order the way the JS SDK
Card Fields leave it (APPROVED, card attached); ``approved_setup_token`` a vault setup token
likewise; ``fail_next(status)`` fails the next call (500 or 429); ``expire_tokens()`` makes
every issued access token stale.
"""

from __future__ import annotations

import base64
import copy
import itertools
import json
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any
from urllib.parse import parse_qsl

import attrs
import httpx

from tests.gateways.contracts import ContractViolation
from tests.gateways.paypal.contract import validate_answer, validate_request

CLIENT_ID = "AcPayhubFakeClientId"
SECRET = "EPayhubFakeClientSecret"
SANDBOX_HOST = "api-m.sandbox.paypal.com"
LIVE_HOST = "api-m.paypal.com"

# Sandbox rejection triggers -> processor response code.
REJECTIONS = {
    "CCREJECT-REFUSED": "0500",
    "CCREJECT-IF": "5120",
    "CCREJECT-EC": "5400",
    "CCREJECT-CVV_F": "00N7",
    "CCREJECT-SF": "9500",
    "CCREJECT-BANK_ERROR": "5100",
}
_NO_DECIMALS = {"HUF", "JPY", "TWD"}


class ApiError(Exception):
    def __init__(self, status: int, name: str, message: str, issue: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.name = name
        self.message = message
        self.issue = issue


def _unprocessable(issue: str, description: str) -> ApiError:
    return _with(422, "UNPROCESSABLE_ENTITY", issue, description)


def _with(status: int, name: str, issue: str, description: str) -> ApiError:
    return ApiError(status, name, description, issue)


def _not_found(what: str) -> ApiError:
    return _with(
        404,
        "RESOURCE_NOT_FOUND",
        "INVALID_RESOURCE_ID",
        f"Specified resource ID does not exist. ({what})",
    )


def _invalid(issue: str, description: str) -> ApiError:
    return _with(400, "INVALID_REQUEST", issue, description)


@attrs.define
class _Card:
    name: str
    brand: str
    last_digits: str
    expiry: str


class FakePayPal:
    """A tiny PayPal: call ``handler`` through ``httpx.MockTransport``; inspect its dicts."""

    def __init__(self) -> None:
        self.clients = {CLIENT_ID: SECRET}
        self.requests: list[httpx.Request] = []
        self.access_tokens: dict[str, tuple[str, bool]] = {}  # token -> (client, sandbox)
        self.orders: dict[str, dict[str, Any]] = {}
        self.authorizations: dict[str, dict[str, Any]] = {}
        self.captures: dict[str, dict[str, Any]] = {}
        self.refunds: dict[str, dict[str, Any]] = {}
        self.setup_tokens: dict[str, dict[str, Any]] = {}
        self.payment_tokens: dict[str, dict[str, Any]] = {}
        self.customers: set[str] = set()
        self._cards: dict[str, _Card] = {}  # order or token id -> card
        self._idempotency: dict[tuple[str, str, str], tuple[int, dict[str, Any]]] = {}
        self._fail_next: int | None = None
        self._ids = itertools.count(1)
        self._routes: list[tuple[str, re.Pattern[str], Callable[..., tuple[int, Any]]]] = [
            ("POST", re.compile(r"^/v2/checkout/orders$"), self._create_order),
            ("GET", re.compile(r"^/v2/checkout/orders/([^/]+)$"), self._show_order),
            ("PATCH", re.compile(r"^/v2/checkout/orders/([^/]+)$"), self._patch_order),
            (
                "POST",
                re.compile(r"^/v2/checkout/orders/([^/]+)/(capture|authorize)$"),
                self._complete,
            ),
            (
                "POST",
                re.compile(r"^/v2/payments/authorizations/([^/]+)/capture$"),
                self._capture_auth,
            ),
            ("POST", re.compile(r"^/v2/payments/authorizations/([^/]+)/void$"), self._void),
            ("POST", re.compile(r"^/v2/payments/captures/([^/]+)/refund$"), self._refund),
            ("POST", re.compile(r"^/v3/vault/payment-tokens$"), self._payment_token),
            ("POST", re.compile(r"^/v3/vault/setup-tokens$"), self._setup_token),
        ]

    # --- test controls ---------------------------------------------------------------------

    def fail_next(self, status: int) -> None:
        self._fail_next = status

    def expire_tokens(self) -> None:
        self.access_tokens.clear()

    def _id(self, length: int = 17) -> str:
        return f"{next(self._ids):0{length}d}"

    def card_fields_order(
        self,
        value: str = "10.00",
        currency: str = "USD",
        intent: str = "CAPTURE",
        name: str = "Ada Lovelace",
        last_digits: str = "1881",
        sandbox: bool = True,
    ) -> str:
        """An order created by the page and confirmed with a card through Card Fields."""
        order_id = f"5O{self._id(15)}"
        self.orders[order_id] = {
            "id": order_id,
            "intent": intent,
            "status": "APPROVED",
            "sandbox": sandbox,
            "purchase_units": [
                {"reference_id": "default", "amount": {"currency_code": currency, "value": value}}
            ],
            "payment_source": {"card": {"name": name, "last_digits": last_digits, "brand": "VISA"}},
        }
        self._cards[order_id] = _Card(name, "VISA", last_digits, "2030-12")
        return order_id

    def approved_setup_token(
        self, name: str = "Ada Lovelace", last_digits: str = "1881", brand: str = "VISA"
    ) -> str:
        token = f"8T{self._id(15)}"
        self.setup_tokens[token] = {"id": token, "status": "APPROVED"}
        self._cards[token] = _Card(name, brand, last_digits, "2030-12")
        return token

    def confirm_card(self, order_id: str, name: str, number: str, sandbox: bool = True) -> None:
        """What Card Fields does in PayPal's frames with the card typed there: the card is
        confirmed on an order the merchant created (CREATED -> APPROVED)."""
        order = self._order(order_id, sandbox)
        if order["status"] != "CREATED":
            raise _unprocessable("ORDER_ALREADY_COMPLETED", "The order cannot be confirmed.")
        card = _Card(name, "VISA", number[-4:], "2030-12")
        order["status"] = "APPROVED"
        order["payment_source"] = {"card": {"name": name, "last_digits": card.last_digits,
                                            "brand": card.brand}}  # fmt: skip
        self._cards[order_id] = card

    def approve_setup(self, token_id: str, name: str, number: str) -> None:
        """Card Fields' vault flow: the card typed in PayPal's frames approves a setup token."""
        setup = self.setup_tokens.get(token_id)
        if setup is None or setup["status"] != "CREATED":
            raise _unprocessable("TOKEN_NOT_FOUND", "The setup token cannot be approved.")
        setup["status"] = "APPROVED"
        self._cards[token_id] = _Card(name, "VISA", number[-4:], "2030-12")

    def posts(self, path: str) -> list[httpx.Request]:
        return [r for r in self.requests if r.method == "POST" and r.url.path == path]

    # --- transport -------------------------------------------------------------------------

    def handler(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        debug_id = f"f{next(self._ids):012x}"
        headers = {"PayPal-Debug-Id": debug_id}
        try:
            if self._fail_next is not None:
                status, self._fail_next = self._fail_next, None
                if status == 429:
                    raise ApiError(429, "RATE_LIMIT_REACHED", "Too many requests.")
                raise ApiError(
                    status, "INTERNAL_SERVER_ERROR", "An internal server error occurred."
                )
            if request.url.host not in (SANDBOX_HOST, LIVE_HOST) or request.url.scheme != "https":
                raise _not_found("host")
            sandbox = request.url.host == SANDBOX_HOST
            if request.url.path == "/v1/oauth2/token":
                return self._oauth(request, sandbox, headers)
            client = self._bearer(request, sandbox)
            body = self._body(request)
            try:  # the endpoints and models of PayPal's own server SDK
                validate_request(request.method, request.url.path, body)
            except ContractViolation as e:
                raise _invalid("INVALID_PARAMETER_VALUE", str(e)) from None
            request_id = request.headers.get("PayPal-Request-Id")
            if request.method == "POST" and request_id is not None:
                if not 1 <= len(request_id) <= 108:
                    raise _invalid("INVALID_PARAMETER_SYNTAX", "PayPal-Request-Id is too long.")
                saved = self._idempotency.get((client, request.url.path, request_id))
                if saved is not None:
                    return httpx.Response(saved[0], json=saved[1], headers=headers)
            status, answer = self._dispatch(request.method, request.url.path, body, sandbox)
            if request.method == "POST" and request_id is not None:
                self._idempotency[(client, request.url.path, request_id)] = (status, answer)
        except ApiError as e:
            return httpx.Response(
                e.status,
                json={
                    "name": e.name,
                    "message": e.message,
                    "debug_id": debug_id,
                    "details": [{"issue": e.issue, "description": e.message}] if e.issue else [],
                },
                headers=headers,
            )
        if status == 204:
            return httpx.Response(204, headers=headers)
        validate_answer(request.method, request.url.path, answer)  # answers as the SDK models
        return httpx.Response(status, json=answer, headers=headers)

    def _oauth(
        self, request: httpx.Request, sandbox: bool, headers: dict[str, str]
    ) -> httpx.Response:
        auth = request.headers.get("Authorization", "")
        client = secret = None
        if auth.startswith("Basic "):
            client, _, secret = base64.b64decode(auth[6:]).decode().partition(":")
        form = dict(parse_qsl(request.content.decode()))
        if form.get("grant_type") != "client_credentials":
            return httpx.Response(400, json={"error": "unsupported_grant_type"}, headers=headers)
        if client is None or self.clients.get(client) != secret:
            return httpx.Response(
                401,
                json={
                    "error": "invalid_client",
                    "error_description": "Client Authentication failed",
                },
                headers=headers,
            )
        token = f"A21AA{next(self._ids):08d}"
        self.access_tokens[token] = (client, sandbox)
        return httpx.Response(
            200,
            json={
                "scope": "https://uri.paypal.com/services/payments/payment",
                "access_token": token,
                "token_type": "Bearer",
                "app_id": "APP-80W284485P519543T",
                "expires_in": 32400,
            },
            headers=headers,
        )

    def _bearer(self, request: httpx.Request, sandbox: bool) -> str:
        auth = request.headers.get("Authorization", "")
        token = auth[7:] if auth.startswith("Bearer ") else ""
        owner = self.access_tokens.get(token)
        if owner is None or owner[1] != sandbox:
            raise _with(
                401,
                "AUTHENTICATION_FAILURE",
                "INVALID_TOKEN",
                "Authentication failed due to invalid authentication credentials or a"
                " missing Authorization header.",
            )
        return owner[0]

    def _body(self, request: httpx.Request) -> Any:
        if request.method == "GET":
            return None
        if request.headers.get("Content-Type") != "application/json":
            raise _with(415, "UNSUPPORTED_MEDIA_TYPE", "UNSUPPORTED_MEDIA_TYPE", "JSON only.")
        if not request.content:
            return {}
        try:
            return json.loads(request.content)
        except ValueError:
            raise _invalid(
                "MALFORMED_REQUEST_JSON", "The request JSON is not well formed."
            ) from None

    def _dispatch(self, method: str, path: str, body: Any, sandbox: bool) -> tuple[int, Any]:
        for verb, pattern, endpoint in self._routes:
            match = pattern.match(path)
            if match and verb == method:
                return endpoint(body, sandbox, *match.groups())
        raise _not_found(path)

    # --- orders ----------------------------------------------------------------------------

    def _order(self, order_id: str, sandbox: bool) -> dict[str, Any]:
        order = self.orders.get(order_id)
        if order is None or order["sandbox"] != sandbox:
            raise _not_found("order")
        return order

    def _view(self, order: dict[str, Any]) -> dict[str, Any]:
        shown = copy.deepcopy(order)
        shown.pop("sandbox")
        for unit in shown["purchase_units"]:
            payments = unit.get("payments")
            if payments:
                for kind, table in (
                    ("authorizations", self.authorizations),
                    ("captures", self.captures),
                    ("refunds", self.refunds),
                ):
                    if kind in payments:
                        payments[kind] = [_public(table[i]) for i in payments[kind]]
        return shown

    def _show_order(self, body: Any, sandbox: bool, order_id: str) -> tuple[int, Any]:
        return 200, self._view(self._order(order_id, sandbox))

    def _patch_order(self, body: Any, sandbox: bool, order_id: str) -> tuple[int, Any]:
        order = self._order(order_id, sandbox)
        if order["status"] not in ("CREATED", "APPROVED"):
            raise _unprocessable(
                "ORDER_ALREADY_COMPLETED", "The order cannot be patched after it is completed."
            )
        if not isinstance(body, list) or not body:
            raise _invalid("INVALID_PARAMETER_SYNTAX", "A JSON patch array is required.")
        unit = order["purchase_units"][0]
        pointer = f"/purchase_units/@reference_id=='{unit['reference_id']}'"
        for op in body:
            path, verb, value = op.get("path"), op.get("op"), op.get("value")
            if path == "/intent" and verb == "replace" and value in ("CAPTURE", "AUTHORIZE"):
                order["intent"] = value
            elif path == f"{pointer}/amount" and verb == "replace":
                _check_amount(value)
                unit["amount"] = value
            elif path == f"{pointer}/custom_id" and verb in ("add", "replace"):
                if not isinstance(value, str) or not 1 <= len(value) <= 127:
                    raise _unprocessable("INVALID_PARAMETER_VALUE", "custom_id is invalid.")
                unit["custom_id"] = value
            else:
                raise _unprocessable(
                    "PATCH_PATH_REQUIRED" if not path else "INVALID_PATCH_OPERATION",
                    "The operation cannot be honored.",
                )
        return 204, None

    def _complete(self, body: Any, sandbox: bool, order_id: str, action: str) -> tuple[int, Any]:
        order = self._order(order_id, sandbox)
        if order["status"] == "COMPLETED":
            issue = (
                "ORDER_ALREADY_CAPTURED"
                if order["intent"] == "CAPTURE"
                else "ORDER_ALREADY_AUTHORIZED"
            )
            raise _unprocessable(issue, "Order already captured or authorized.")
        if order["status"] != "APPROVED":
            raise _unprocessable(
                "ORDER_NOT_APPROVED", "Payer has not yet approved the Order for payment."
            )
        if (action == "capture") != (order["intent"] == "CAPTURE"):
            raise _unprocessable(
                "ACTION_DOES_NOT_MATCH_INTENT", "Order was created with another intent."
            )
        self._pay(order, self._cards[order_id])
        return 201, self._view(order)

    def _create_order(self, body: Any, sandbox: bool) -> tuple[int, Any]:
        if not isinstance(body, dict):
            raise _invalid("INVALID_REQUEST", "Body required.")
        intent = body.get("intent")
        if intent not in ("CAPTURE", "AUTHORIZE"):
            raise _invalid("MISSING_REQUIRED_PARAMETER", "intent is required.")
        units = body.get("purchase_units")
        if not isinstance(units, list) or len(units) != 1 or not isinstance(units[0], dict):
            raise _invalid("MISSING_REQUIRED_PARAMETER", "purchase_units is required.")
        _check_amount(units[0].get("amount"))
        if "payment_source" not in body:  # an order for Card Fields: the card comes later
            order_id = f"5O{self._id(15)}"
            self.orders[order_id] = {
                "id": order_id,
                "intent": intent,
                "status": "CREATED",
                "sandbox": sandbox,
                "purchase_units": [{"reference_id": "default", **units[0]}],
            }
            return 201, self._view(self.orders[order_id])
        card = (body.get("payment_source") or {}).get("card") or {}
        vault_id = card.get("vault_id")
        token = self.payment_tokens.get(vault_id) if isinstance(vault_id, str) else None
        if token is None or token["sandbox"] != sandbox:
            raise _unprocessable(
                "TOKEN_NOT_FOUND" if vault_id else "PAYMENT_SOURCE_INFO_CANNOT_BE_VERIFIED",
                "The specified payment token was not found.",
            )
        stored = card.get("stored_credential")
        if stored is not None and stored.get("payment_initiator") not in ("MERCHANT", "CUSTOMER"):
            raise _invalid(
                "INVALID_PARAMETER_VALUE", "stored_credential.payment_initiator is invalid."
            )
        order_id = f"5O{self._id(15)}"
        unit = {"reference_id": "default", **units[0]}
        order = {
            "id": order_id,
            "intent": intent,
            "status": "CREATED",
            "sandbox": sandbox,
            "purchase_units": [unit],
            "payment_source": {
                "card": {"last_digits": token["card"].last_digits, "brand": token["card"].brand}
            },
        }
        self.orders[order_id] = order
        self._pay(order, token["card"])
        return 201, self._view(order)

    def _pay(self, order: dict[str, Any], card: _Card) -> None:
        unit = order["purchase_units"][0]
        code = REJECTIONS.get(card.name, "0000")
        declined = code != "0000"
        payment_id = f"{next(self._ids):017d}"[-17:]
        record: dict[str, Any] = {
            "id": payment_id,
            "amount": dict(unit["amount"]),
            "custom_id": unit.get("custom_id"),
            "processor_response": {"avs_code": "Y", "cvv_code": "M", "response_code": code},
            "order_id": order["id"],
        }
        if order["intent"] == "CAPTURE":
            record["status"] = "DECLINED" if declined else "COMPLETED"
            record["refunded"] = Decimal(0)
            self.captures[payment_id] = record
            unit["payments"] = {"captures": [payment_id]}
        else:
            record["status"] = "DENIED" if declined else "CREATED"
            record["captured"] = []
            self.authorizations[payment_id] = record
            unit["payments"] = {"authorizations": [payment_id]}
        order["status"] = "COMPLETED"

    # --- payments --------------------------------------------------------------------------

    def _own(self, table: dict[str, dict[str, Any]], ident: str, sandbox: bool) -> dict[str, Any]:
        record = table.get(ident)
        if record is None or self.orders[record["order_id"]]["sandbox"] != sandbox:
            raise _not_found("payment")
        return record

    def _capture_auth(self, body: Any, sandbox: bool, auth_id: str) -> tuple[int, Any]:
        auth = self._own(self.authorizations, auth_id, sandbox)
        if auth["status"] == "VOIDED":
            raise _unprocessable(
                "AUTHORIZATION_VOIDED", "A voided authorization cannot be captured."
            )
        if auth["status"] in ("CAPTURED", "DENIED"):
            raise _unprocessable(
                "AUTHORIZATION_ALREADY_CAPTURED", "Authorization has been previously captured."
            )
        amount = body.get("amount") if isinstance(body, dict) else None
        amount = amount or auth["amount"]
        _check_amount(amount)
        if amount["currency_code"] != auth["amount"]["currency_code"]:
            raise _unprocessable("AUTH_CAPTURE_CURRENCY_MISMATCH", "Currency does not match.")
        if Decimal(amount["value"]) > Decimal(auth["amount"]["value"]):
            raise _unprocessable(
                "MAX_CAPTURE_AMOUNT_EXCEEDED", "Capture amount exceeds allowable limit."
            )
        capture_id = f"{next(self._ids):017d}"[-17:]
        capture = {
            "id": capture_id,
            "status": "COMPLETED",
            "amount": dict(amount),
            "final_capture": bool(body.get("final_capture", True)),
            "refunded": Decimal(0),
            "order_id": auth["order_id"],
        }
        self.captures[capture_id] = capture
        auth["captured"].append(capture_id)
        auth["status"] = "CAPTURED" if capture["final_capture"] else "PARTIALLY_CAPTURED"
        payments = self.orders[auth["order_id"]]["purchase_units"][0]["payments"]
        payments.setdefault("captures", []).append(capture_id)
        return 201, _public(capture)

    def _void(self, body: Any, sandbox: bool, auth_id: str) -> tuple[int, Any]:
        auth = self._own(self.authorizations, auth_id, sandbox)
        if auth["status"] != "CREATED":
            raise _unprocessable(
                "PREVIOUSLY_VOIDED" if auth["status"] == "VOIDED" else "CANNOT_BE_VOIDED",
                "This authorization cannot be voided.",
            )
        auth["status"] = "VOIDED"
        # A Payments v2 authorization carries no processor_response (only the order's does).
        return 200, {k: v for k, v in _public(auth).items() if k != "processor_response"}

    def _refund(self, body: Any, sandbox: bool, capture_id: str) -> tuple[int, Any]:
        capture = self._own(self.captures, capture_id, sandbox)
        if capture["status"] not in ("COMPLETED", "PARTIALLY_REFUNDED"):
            raise _unprocessable(
                "CAPTURE_FULLY_REFUNDED"
                if capture["status"] == "REFUNDED"
                else "REFUND_NOT_ALLOWED",
                "The capture cannot be refunded.",
            )
        amount = body.get("amount") if isinstance(body, dict) else None
        left = Decimal(capture["amount"]["value"]) - capture["refunded"]
        amount = amount or {"currency_code": capture["amount"]["currency_code"], "value": str(left)}
        _check_amount(amount)
        if Decimal(amount["value"]) > left:
            raise _unprocessable(
                "REFUND_AMOUNT_EXCEEDED",
                "The refund amount must be less than or equal to the capture amount that has"
                " not yet been refunded.",
            )
        capture["refunded"] += Decimal(amount["value"])
        capture["status"] = (
            "REFUNDED"
            if capture["refunded"] == Decimal(capture["amount"]["value"])
            else "PARTIALLY_REFUNDED"
        )
        refund_id = f"{next(self._ids):017d}"[-17:]
        refund = {
            "id": refund_id,
            "status": "COMPLETED",
            "amount": dict(amount),
            "order_id": capture["order_id"],
        }
        self.refunds[refund_id] = refund
        return 201, _public(refund)

    # --- vault -----------------------------------------------------------------------------

    def _setup_token(self, body: Any, sandbox: bool) -> tuple[int, Any]:
        source = (body or {}).get("payment_source") if isinstance(body, dict) else None
        if not isinstance(source, dict) or "card" not in source:
            raise _invalid("MISSING_REQUIRED_PARAMETER", "payment_source.card is required.")
        token = f"8T{self._id(15)}"
        self.setup_tokens[token] = {"id": token, "status": "CREATED"}
        return 201, {"id": token, "status": "CREATED", "payment_source": {"card": {}}}

    def _payment_token(self, body: Any, sandbox: bool) -> tuple[int, Any]:
        source = (body or {}).get("payment_source") if isinstance(body, dict) else None
        token = (source or {}).get("token") or {}
        if token.get("type") != "SETUP_TOKEN" or not isinstance(token.get("id"), str):
            raise _invalid("MISSING_REQUIRED_PARAMETER", "payment_source.token is required.")
        setup = self.setup_tokens.get(token["id"])
        if setup is None:
            raise _not_found("setup token")
        if setup["status"] != "APPROVED":
            raise _unprocessable(
                "SETUP_TOKEN_NOT_APPROVED"
                if setup["status"] != "VAULTED"
                else "TOKEN_ALREADY_USED",
                "The setup token cannot be used.",
            )
        customer = (body.get("customer") or {}).get("id")
        if customer is not None and customer not in self.customers:
            raise _unprocessable("CUSTOMER_ID_NOT_FOUND", "The customer was not found.")
        customer = customer or f"cust{next(self._ids):08d}"
        self.customers.add(customer)
        setup["status"] = "VAULTED"
        card = self._cards[token["id"]]
        token_id = f"{next(self._ids):07d}ptk"
        self.payment_tokens[token_id] = {"customer": customer, "card": card, "sandbox": sandbox}
        return 201, {
            "id": token_id,
            "customer": {"id": customer},
            "payment_source": {
                "card": {
                    "brand": card.brand,
                    "last_digits": card.last_digits,
                    "expiry": card.expiry,
                }
            },
        }


def _public(record: dict[str, Any]) -> dict[str, Any]:
    return {
        k: v
        for k, v in record.items()
        if k not in ("order_id", "refunded", "captured", "final_capture") and v is not None
    }


def _check_amount(amount: Any) -> None:
    if not isinstance(amount, dict):
        raise _invalid("MISSING_REQUIRED_PARAMETER", "amount is required.")
    currency, value = amount.get("currency_code"), amount.get("value")
    if not isinstance(currency, str) or not re.fullmatch(r"[A-Z]{3}", currency):
        raise _invalid("INVALID_PARAMETER_VALUE", "currency_code is invalid.")
    pattern = r"\d{1,10}" if currency in _NO_DECIMALS else r"\d{1,10}(\.\d{2})?"
    if not isinstance(value, str) or not re.fullmatch(pattern, value):
        raise _unprocessable(
            "DECIMAL_PRECISION" if isinstance(value, str) else "INVALID_PARAMETER_SYNTAX",
            "The value field is invalid.",
        )
    if Decimal(value) <= 0:
        raise _unprocessable("CANNOT_BE_ZERO_OR_NEGATIVE", "Must be greater than zero.")
