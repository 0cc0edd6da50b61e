"""An in-memory fake of USAePay's REST API v2, for ``httpx.MockTransport``.

Written from USAePay's public reference (https://help.usaepay.info/api/rest/ : Authentication,
Rate Limits, Transactions (Sale, Payment Key Sale, AuthOnly, Capture, Credit Void, Void,
Release Funds, Retrieve Transaction Detail), Tokenization (``cc:save``), Customers, Payment
Methods (create, ``cardref``), Customer Transactions (``customer:sale``); transaction type
and status codes from https://help.usaepay.info/developer/reference/transactioncodes/ ; error
numbers from https://help.usaepay.info/developer/reference/errorcodes/), not from the adapter:

- Hosts ``sandbox.usaepay.com`` and ``usaepay.com`` under ``/api/v2``. Every request carries
  ``Authorization: Basic base64(apikey:s2/{seed}/{sha256(apikey+seed+pin)})``; a wrong key,
  hash or PIN, or an account used on the other environment's host, is HTTP 401
  ``{"error": "Specified source key not found.", "errorcode": 23}``.
- ``POST /transactions`` by ``command``. Answers are transaction objects with ``key``,
  ``refnum``, ``is_duplicate``, ``result_code`` (A, P, D, E), ``result``, ``authcode``,
  ``auth_amount`` and, on failures, ``error`` and ``error_code``.
- Duplicate folding: a sale or authorization with the same card, amount and ``orderid`` as an
  approved one less than ``fold_seconds`` ago is answered with the original response and
  ``is_duplicate: "Y"`` (unless ``ignore_duplicate``). It runs before the payment key is
  checked, so a retried request with its spent key folds while the window lasts.
- Payment keys (Pay.js) are single use: a second use is ``E`` "Invalid payment key".
- Type codes: A auth only (status N, queued), S sale, L captured auth, V voided sale, C
  refund; status P pending settlement, S settled, V voided, R authorization released.
- ``cc:capture`` only on an unreleased auth; ``creditvoid`` voids (whole) or partially
  reverses an unsettled sale, and credits a settled one as a new C transaction, never more
  than is left; ``cc:void:release`` voids a sale or releases an authorization.
- ``GET /transactions`` lists newest first with ``limit``/``offset``; ``GET
  /transactions/{key}`` shows one; customers and payment methods as documented.

Test payment keys:

- ``pk_visa``: Visa 4000 1000 1111 2224, exp 09/30, approved
- ``pk_mastercard``: Mastercard 5555 4444 3333 1111, exp 04/31, approved
- ``pk_decline``: D "Card Declined (00)" error_code 10127
- ``pk_insufficient``: D "Insufficient funds (51)"
- ``pk_cvv``: D "CVV2 Mismatch (N7)"
- ``pk_stolen``: D "Stolen card, pick up (43)"
- ``pk_expired``: E "Credit card has expired." error_code 17
- ``pk_partial``: P, half the amount approved
- ``pk_processor_down``: E "Gateway temporarily offline. Please try again shortly." 18
- anything else: E "Invalid payment key"

Knobs: ``fail_next(status, path=None)``, ``timeout_next(after_processing=..., path=None)``,
``advance(seconds)``, ``settle()``; ``requests`` records (method, url, json body).
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from decimal import Decimal, InvalidOperation
from typing import Any

import attrs
import httpx

API_KEY = "_fakeUsaepayApiKey0123456789abcd"
PIN = "4242"
SANDBOX_HOST = "sandbox.usaepay.com"
LIVE_HOST = "usaepay.com"
PREFIX = "/api/v2"
_AMOUNT = re.compile(r"^\d{1,7}(\.\d{1,3})?$")


@attrs.frozen
class Card:
    number: str
    exp: str  # MMYY
    brand: str  # Visa, MasterCard
    type_code: str  # V, M


@attrs.frozen
class Outcome:
    result_code: str = "A"
    error: str = ""
    error_code: str = ""


_VISA = Card("4000100011112224", "0930", "Visa", "V")
_MASTERCARD = Card("5555444433331111", "0431", "MasterCard", "M")
_DECLINING = Card("4000300011112220", "0930", "Visa", "V")

PAYMENT_KEYS: dict[str, tuple[Card, Outcome]] = {
    "pk_visa": (_VISA, Outcome()),
    "pk_mastercard": (_MASTERCARD, Outcome()),
    "pk_decline": (_DECLINING, Outcome("D", "Card Declined (00)", "10127")),
    "pk_insufficient": (_DECLINING, Outcome("D", "Insufficient funds (51)", "10127")),
    "pk_cvv": (_DECLINING, Outcome("D", "CVV2 Mismatch (N7)", "10127")),
    "pk_stolen": (_DECLINING, Outcome("D", "Stolen card, pick up (43)", "10127")),
    "pk_expired": (_DECLINING, Outcome("E", "Credit card has expired.", "17")),
    "pk_partial": (_VISA, Outcome("P")),
    "pk_processor_down": (
        _DECLINING,
        Outcome("E", "Gateway temporarily offline. Please try again shortly.", "18"),
    ),
}
_RESULTS = {"A": "Approved", "P": "Partial Approval", "D": "Declined", "E": "Error"}
_TRANTYPES = {
    "A": "Auth Only",
    "S": "Credit Card Sale",
    "L": "Capture",
    "V": "Voided Credit Card Sale",
    "C": "Credit Card Refund (Credit)",
}
_STATUSES = {
    "N": "Queued",
    "P": "Authorized (Pending Settlement)",
    "S": "Settled",
    "V": "Voided",
    "R": "Authorization Released",
    "E": "Error",
}


@attrs.define
class Txn:
    key: str
    refnum: str
    trantype: str
    status: str
    result_code: str
    amount: Decimal
    card: Card
    orderid: str
    currency: str
    created: int
    authorized: Decimal
    error: str = ""
    error_code: str = ""
    description: str = ""
    refunded: Decimal = Decimal(0)
    fold_key: tuple[str, str, str] | None = None
    reply: dict[str, Any] = attrs.field(factory=dict)

    def record(self) -> dict[str, Any]:
        """The GET /transactions/{key} object (the fields payhub reads, and a few more)."""
        body: dict[str, Any] = {
            "type": "transaction",
            "key": self.key,
            "refnum": self.refnum,
            "created": "2026-11-23 10:00:00",
            "trantype_code": self.trantype,
            "trantype": _TRANTYPES[self.trantype],
            "result_code": self.result_code,
            "result": _RESULTS[self.result_code],
            "authcode": "314407" if self.result_code in "AP" else "",
            "status_code": self.status,
            "status": _STATUSES[self.status],
            "creditcard": {
                "number": self.card.number[:4] + "xxxxxxxx" + self.card.number[-4:],
                "type": self.card.type_code,
                "category_code": "A",
            },
            "amount": f"{self.amount:.2f}",
            "orderid": self.orderid,
            "description": self.description,
            "source_name": "payhub",
        }
        if self.currency != "840":
            body["currency"] = self.currency
        return body


@attrs.define
class FakeUsaEpay:
    """USAePay in memory: one merchant account (sandbox or live), its transactions and vault."""

    api_key: str = API_KEY
    pin: str = PIN
    sandbox: bool = True
    fold_seconds: int = 300
    requests: list[tuple[str, httpx.URL, Any]] = attrs.field(factory=list)
    transactions: dict[str, Txn] = attrs.field(factory=dict)
    customers: dict[str, dict[str, Any]] = attrs.field(factory=dict)
    methods: dict[str, tuple[str, Card]] = attrs.field(factory=dict)  # pm key -> (cust, card)
    cardrefs: dict[str, Card] = attrs.field(factory=dict)
    spent_keys: set[str] = attrs.field(factory=set)
    seeds: list[str] = attrs.field(factory=list)
    clock: int = 0
    _serial: int = 100_060
    _fail: tuple[int, str | None] | None = None
    _timeout: tuple[str, str | None] | None = None

    # --- knobs ---------------------------------------------------------------------------

    def fail_next(self, status: int = 500, path: str | None = None) -> None:
        self._fail = (status, path)

    def timeout_next(self, after_processing: bool = False, path: str | None = None) -> None:
        self._timeout = ("after" if after_processing else "before", path)

    def advance(self, seconds: int) -> None:
        self.clock += seconds

    def settle(self) -> None:
        for txn in self.transactions.values():
            if txn.status == "P" and txn.trantype in ("S", "L", "C"):
                txn.status = "S"

    def posts(self, path: str = "/transactions") -> list[Any]:
        return [body for method, url, body in self.requests if method == "POST" and
                url.path == PREFIX + path]  # fmt: skip

    def charges(self) -> list[Txn]:
        return [t for t in self.transactions.values() if t.trantype in ("A", "S", "L", "V")]

    # --- transport -------------------------------------------------------------------------

    def handler(self, request: httpx.Request) -> httpx.Response:
        body: Any = None
        if request.content:
            try:
                body = json.loads(request.content)
            except ValueError:
                body = None
        self.requests.append((request.method, request.url, body))
        path = request.url.path.removeprefix(PREFIX)
        if self._timeout and self._timeout[0] == "before" and self._timeout[1] in (None, path):
            self._timeout = None
            raise httpx.ReadTimeout("fake USAePay timed out", request=request)
        if self._fail and self._fail[1] in (None, path):
            status, self._fail = self._fail[0], None
            if status == 429:
                return _json(429, {"error": "API Rate Limit Exceed", "errorcode": 155})
            return httpx.Response(status, text="<html>Service Unavailable</html>")
        if request.url.host not in (SANDBOX_HOST, LIVE_HOST) or not request.url.path.startswith(
            PREFIX
        ):
            return httpx.Response(404)
        if not self._authenticated(request):
            return _json(401, {"error": "Specified source key not found.", "errorcode": 23})
        response = self._route(request.method, path, body, request.url.params)
        if self._timeout and self._timeout[0] == "after" and self._timeout[1] in (None, path):
            self._timeout = None
            raise httpx.ReadTimeout("fake USAePay timed out after processing", request=request)
        return response

    def _authenticated(self, request: httpx.Request) -> bool:
        expected_host = SANDBOX_HOST if self.sandbox else LIVE_HOST
        header = request.headers.get("authorization", "")
        if request.url.host != expected_host or not header.startswith("Basic "):
            return False
        try:
            user, _, password = base64.b64decode(header[6:]).decode().partition(":")
        except ValueError:
            return False
        parts = password.split("/")
        if user != self.api_key or len(parts) != 3 or parts[0] != "s2" or not parts[1]:
            return False
        self.seeds.append(parts[1])
        digest = hashlib.sha256((self.api_key + parts[1] + self.pin).encode()).hexdigest()
        return parts[2] == digest

    def _route(
        self, method: str, path: str, body: Any, params: httpx.QueryParams
    ) -> httpx.Response:
        segments = [s for s in path.split("/") if s]
        if method == "POST" and segments == ["transactions"]:
            if not isinstance(body, dict):
                return _json(400, {"error": "Invalid request body", "errorcode": 0})
            return _json(200, self._command(body))
        if method == "GET" and segments == ["transactions"]:
            return _json(200, self._list(params))
        if method == "GET" and len(segments) == 2 and segments[0] == "transactions":
            txn = self.transactions.get(segments[1])
            if txn is None:
                return _json(404, {"error": "Transaction not found", "errorcode": 35})
            return _json(200, txn.record())
        if method == "POST" and segments == ["customers"]:
            return _json(200, self._create_customer(body))
        if method == "POST" and len(segments) == 3 and segments[2] == "payment_methods":
            return self._add_methods(segments[1], body)
        if (
            method == "GET"
            and len(segments) == 5
            and segments[0] == "customers"
            and segments[2] == "payment_methods"
            and segments[4] == "cardref"
        ):
            return self._cardref(segments[1], segments[3])
        return _json(404, {"error": "Unknown endpoint", "errorcode": 0})

    # --- transactions ------------------------------------------------------------------------

    def _command(self, body: dict[str, Any]) -> dict[str, Any]:
        command = str(body.get("command", ""))
        if command in ("cc:sale", "sale", "cc:authonly", "authonly", "customer:sale"):
            return self._sale(body, command)
        if command == "cc:capture":
            return self._capture(body)
        if command == "creditvoid":
            return self._creditvoid(body)
        if command in ("cc:void:release", "void"):
            return self._void(body)
        if command == "cc:save":
            return self._save(body)
        return _error("Transaction type [" + command + "] not supported.", "3")

    def _sale(self, body: dict[str, Any], command: str) -> dict[str, Any]:
        amount = _amount(body.get("amount"))
        if amount is None or amount <= 0:
            return _error("Invalid amount", "70")
        currency = str(body.get("currency", "840"))
        if not currency.isdigit():
            return _error("Invalid currency", "0")
        orderid = str(body.get("orderid", ""))
        resolved = self._card_of(body, command)
        if isinstance(resolved, dict):
            return resolved
        card, outcome, payment_key = resolved
        fold = (card.number, f"{amount}", orderid)
        if not body.get("ignore_duplicate"):
            for txn in self.transactions.values():
                if txn.fold_key == fold and self.clock - txn.created < self.fold_seconds:
                    return txn.reply | {"is_duplicate": "Y"}
        if payment_key is not None:
            if payment_key in self.spent_keys or payment_key not in PAYMENT_KEYS:
                return _error("Invalid payment key", "0")
            self.spent_keys.add(payment_key)
        approved = outcome.result_code in ("A", "P")
        authorized = amount if outcome.result_code == "A" else (amount / 2).quantize(amount)
        auth_only = command in ("cc:authonly", "authonly")
        txn = Txn(
            key=self._new_key(),
            refnum=self._new_refnum(),
            trantype="A" if auth_only else "S",
            status=("N" if auth_only else "P") if approved else "E",
            result_code=outcome.result_code,
            amount=authorized if approved else amount,
            authorized=authorized,
            card=card,
            orderid=orderid,
            currency=currency,
            created=self.clock,
            error=outcome.error,
            error_code=outcome.error_code,
            description=str(body.get("description", "")),
        )
        reply: dict[str, Any] = {
            "type": "transaction",
            "key": txn.key,
            "refnum": txn.refnum,
            "is_duplicate": "N",
            "result_code": outcome.result_code,
            "result": _RESULTS[outcome.result_code],
            "authcode": "314407" if approved else "",
            "creditcard": {"number": card.number[:4] + "xxxxxxxx" + card.number[-4:]},
            "avs": {"result_code": "YYY", "result": "Address: Match & 5 Digit Zip: Match"},
            "cvc": {"result_code": "M" if approved else "N", "result": "Match"},
            "auth_amount": f"{authorized:.2f}" if approved else "0.00",
            "trantype": "Credit Card Sale",
        }
        if not approved:
            reply |= {"error": outcome.error, "error_code": outcome.error_code}
        txn.reply = reply
        if approved:
            txn.fold_key = fold
        self.transactions[txn.key] = txn
        return reply

    def _card_of(
        self, body: dict[str, Any], command: str
    ) -> tuple[Card, Outcome, str | None] | dict[str, Any]:
        if command == "customer:sale":
            custkey, method = str(body.get("custkey", "")), str(body.get("paymethod_key", ""))
            if custkey not in self.customers:
                return _error("Customer Not Found", "99999")
            found = self.methods.get(method)
            if found is None or found[0] != custkey:
                return _error("Requested payment method not found", "201")
            return found[1], Outcome(), None
        if "payment_key" in body:
            key = str(body["payment_key"])
            if key in PAYMENT_KEYS:
                card, outcome = PAYMENT_KEYS[key]
                return card, outcome, key
            return _error("Invalid payment key", "0")
        creditcard = body.get("creditcard")
        if isinstance(creditcard, dict):
            number = str(creditcard.get("number", ""))
            if number in self.cardrefs:
                return self.cardrefs[number], Outcome(), None
            if re.fullmatch(r"[a-z0-9]{4}(-[a-z0-9]{4}){3}", number):
                return _error("Invalid card reference token", "601")
            return _error("Raw card numbers are not used in this fake", "11")
        return _error("Payment information required", "0")

    def _find(self, body: dict[str, Any]) -> Txn | dict[str, Any]:
        txn = self.transactions.get(str(body.get("trankey", "")))
        if txn is None:
            return _error("Unable to locate transaction", "35")
        return txn

    def _capture(self, body: dict[str, Any]) -> dict[str, Any]:
        txn = self._find(body)
        if isinstance(txn, dict):
            return txn
        if txn.status in ("V", "R"):
            return _error("Transaction already voided.", "24")
        if txn.trantype != "A" or txn.result_code not in "AP":
            return _error("Transaction cannot be captured", "0")
        amount = _amount(body.get("amount")) if "amount" in body else txn.amount
        if amount is None or amount <= 0:
            return _error("Invalid amount", "70")
        txn.trantype, txn.status, txn.amount = "L", "P", amount
        return _ok(txn, amount)

    def _creditvoid(self, body: dict[str, Any]) -> dict[str, Any]:
        txn = self._find(body)
        if isinstance(txn, dict):
            return txn
        if txn.trantype not in ("S", "L") or txn.status not in ("P", "S"):
            return _error("Transaction type is not voidable. Issue refund instead.", "117")
        left = txn.amount - txn.refunded
        amount = _amount(body.get("amount")) if "amount" in body else left
        if amount is None or amount <= 0:
            return _error("Invalid amount", "70")
        if amount > left:
            return _error("Refund not permitted, amount exceeds original sale", "114")
        if txn.status == "P":  # unsettled: void, or reverse part of the authorization
            if amount == txn.amount and txn.refunded == 0:
                txn.trantype, txn.status = "V", "V"
            else:
                txn.amount -= amount
            return _ok(txn, txn.amount)
        refund = Txn(
            key=self._new_key(),
            refnum=self._new_refnum(),
            trantype="C",
            status="P",
            result_code="A",
            amount=amount,
            authorized=amount,
            card=txn.card,
            orderid="",
            currency=txn.currency,
            created=self.clock,
        )
        self.transactions[refund.key] = refund
        txn.refunded += amount
        return _ok(refund, amount)

    def _void(self, body: dict[str, Any]) -> dict[str, Any]:
        txn = self._find(body)
        if isinstance(txn, dict):
            return txn
        if txn.status in ("V", "R"):
            return _error("Transaction already voided.", "24")
        if txn.status == "S":
            return _error("The batch has already been closed. Please apply a credit instead.",
                          "26")  # fmt: skip
        if txn.result_code not in "AP":
            return _error("Transaction not approved", "83")
        if txn.trantype == "A":
            txn.status = "R"
        else:
            txn.trantype, txn.status = "V", "V"
        return _ok(txn, txn.amount)

    def _save(self, body: dict[str, Any]) -> dict[str, Any]:
        key = str(body.get("payment_key", ""))
        if key not in PAYMENT_KEYS or key in self.spent_keys:
            return _error("Invalid payment key", "0")
        card, outcome = PAYMENT_KEYS[key]
        if outcome.result_code != "A":
            return _error(outcome.error or "Card rejected", outcome.error_code or "0")
        self.spent_keys.add(key)
        cardref = "-".join(
            hashlib.sha256(f"{key}{len(self.cardrefs)}".encode()).hexdigest()[i : i + 4]
            for i in range(0, 16, 4)
        )
        self.cardrefs[cardref] = card
        return {
            "type": "transaction",
            "key": "",
            "refnum": "",
            "is_duplicate": "N",
            "result_code": "A",
            "result": "Approved",
            "authcode": "",
            "creditcard": {"number": card.number[:4] + "xxxxxxxx" + card.number[-4:]},
            "savedcard": {
                "type": card.brand,
                "key": cardref,
                "cardnumber": card.number[:4] + "xxxxxxxx" + card.number[-4:],
                "expiration": card.exp,
            },
        }

    def _list(self, params: httpx.QueryParams) -> dict[str, Any]:
        limit = int(params.get("limit", "20"))
        offset = int(params.get("offset", "0"))
        rows = [t.record() for t in reversed(self.transactions.values())]
        return {
            "type": "list",
            "limit": limit,
            "offset": offset,
            "data": rows[offset : offset + limit],
            "total": str(len(rows)),
        }

    # --- customers ---------------------------------------------------------------------------

    def _create_customer(self, body: Any) -> dict[str, Any]:
        key = f"csdd{len(self.customers) + 1:012d}"
        customer = {"key": key, "type": "customer", **(body if isinstance(body, dict) else {})}
        self.customers[key] = customer
        return customer

    def _add_methods(self, custkey: str, body: Any) -> httpx.Response:
        if custkey not in self.customers:
            return _json(404, {"error": "Customer Not Found", "errorcode": 99999})
        if not isinstance(body, list) or not body:
            return _json(400, {"error": "Payment methods must be an array", "errorcode": 0})
        created = []
        for method in body:
            number = str(method.get("number", ""))
            card = self.cardrefs.get(number)
            if method.get("pay_type") != "cc" or card is None:
                return _json(400, {"error": "Invalid card reference token", "errorcode": 601})
            key = f"{len(self.methods) + 1:02d}n02pc6vxy98c79cs"
            self.methods[key] = (custkey, card)
            created.append(
                {
                    "key": key,
                    "type": "customerpaymentmethod",
                    "method_name": method.get("method_name", ""),
                    "expires": f"20{card.exp[2:]}-{card.exp[:2]}-30",
                    "card_type": card.type_code,
                    "ccnum4last": card.number[-4:],
                    "added": "2026-11-23 10:00:00",
                }
            )
        return _json(200, created)

    def _cardref(self, custkey: str, method: str) -> httpx.Response:
        found = self.methods.get(method)
        if found is None or found[0] != custkey:
            return _json(404, {"error": "Payment method not found", "errorcode": 201})
        card = found[1]
        cardref = next(ref for ref, c in self.cardrefs.items() if c == card)
        return _json(
            200,
            {
                "type": "token",
                "cardref": cardref,
                "ccnumlast4": card.number[-4:],
                "custkey": custkey,
                "pmkey": method,
            },
        )

    def _new_key(self) -> str:
        self._serial += 1
        return f"{self._serial:x}nfwxwhz5kv"

    def _new_refnum(self) -> str:
        return str(self._serial)


def _amount(value: object) -> Decimal | None:
    text = str(value) if value is not None else ""
    if not _AMOUNT.match(text):
        return None
    try:
        return Decimal(text)
    except InvalidOperation:
        return None


def _error(message: str, code: str) -> dict[str, Any]:
    return {
        "type": "transaction",
        "key": "",
        "refnum": "",
        "is_duplicate": "N",
        "result_code": "E",
        "result": "Error",
        "error": message,
        "error_code": code,
    }


def _ok(txn: Txn, amount: Decimal) -> dict[str, Any]:
    return {
        "type": "transaction",
        "key": txn.key,
        "refnum": txn.refnum,
        "is_duplicate": "N",
        "result_code": "A",
        "result": "Approved",
        "authcode": "314407",
        "auth_amount": f"{amount:.2f}",
    }


def _json(status: int, body: Any) -> httpx.Response:
    return httpx.Response(status, json=body)
