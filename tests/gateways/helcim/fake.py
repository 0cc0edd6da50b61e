"""An in-memory fake of the slice of Helcim's API v2 payhub uses (httpx.MockTransport).

Written from Helcim's public reference, not from our adapter:

- https://devdocs.helcim.com/docs/process-a-credit-card-payment and Helcim's Payment API
  reference (OpenAPI v2.2): ``POST /v2/payment/purchase`` and ``/preauth`` need ``ipAddress``,
  ``currency``, ``amount`` (a number) and ``cardData.cardToken``; optional ``ecommerce``,
  ``customerCode`` (the card must belong to it), ``invoiceNumber`` (an existing invoice),
  ``invoice`` (``invoiceNumber``, ``notes``: a new invoice), ``billingAddress``, ``terminalId``.
  ``/payment/capture`` (``preAuthTransactionId``, ``amount`` ≤ the preauth's), ``/refund``
  (``originalTransactionId`` of a purchase or capture, ``amount`` ≤ what is left) and
  ``/reverse`` (``cardTransactionId``; whole amount, open batch) answer NEW transactions.
  Failures are ``{"errors": [...]}``; auth is the ``api-token`` header.
- https://devdocs.helcim.com/docs/idempotency-keys: ``idempotency-key`` required on every
  Payment API POST (25-36 characters of letters, digits, ``-`` and ``_``); same key + same
  payload answers the first response, a different payload is 409; keys clear after 5 minutes.
- https://devdocs.helcim.com/docs/suspected-duplicates: an approved transaction with the same
  card, cardholder name and amount in the last 5 minutes makes a new one DECLINED ("Suspected
  duplicate transaction in the last 5 minutes").
- https://devdocs.helcim.com/docs/testing-declines-and-avs: CVV 200+ forces declines
  ("Transaction Declined: EXPIRED CARD - Expired Card", …); the page says they come back as
  HTTP 500, the transaction object says status DECLINED: ``declines_as_500`` picks the shape.
- https://devdocs.helcim.com/docs/payments (the transaction object: ``transactionId``,
  ``cardBatchId``, ``status``, ``type``, ``amount``, ``currency``, ``cardType``, ``cardNumber``
  F6L4, ``cardToken``, ``customerCode``, ``invoiceNumber``, ``approvalCode``) and the Card
  Transaction API (``GET /v2/card-transactions/{id}``, ``GET /v2/card-transactions`` filtered
  by ``invoiceNumber``, ``customerCode``, ``cardToken``).
- https://devdocs.helcim.com/docs/cards and the Customer API (every card lives on a customer,
  created when none is given; ``GET /v2/customers?customerCode=``, ``GET
  /v2/customers/{id}/cards?cardToken=`` with ``cardF6L4`` and ``cardExpiry`` MMYY).

Follow-up transactions (capture, refund, reverse) are filed on the original's invoice; the
reference does not say so explicitly (see docs/gateways.md).

- https://devdocs.helcim.com/docs/helcimpayjs-initialization: ``POST /v2/helcim-pay/initialize``
  (server-side, ``api-token``) with ``paymentType`` (purchase, preauth or verify), ``amount``
  and ``currency`` (USD or CAD) answers ``checkoutToken`` and ``secretToken``;
  ``verify_in_checkout(checkoutToken, number)`` plays the modal of a verify session.

``tokenize(number, cvv)`` plays HelcimPay.js "verify": it stores the card on a customer (a new
basic one unless ``customer_code`` is given), records the verify transaction and returns the
``cardToken``. Controls: ``fail_next(status)``, ``timeout_next(after_processing)``,
``advance(seconds)`` (the fake's clock, for the 5-minute windows).
"""

from __future__ import annotations

import itertools
import json
import re
import secrets
from decimal import Decimal
from typing import Any

import httpx

API_TOKEN = "aSBl1Tz8xHcimTestTokenQ9wE3rT6yU"
OTHER_TOKEN = "zZ9yX8wV7uT6sR5qP4oN3mL2kJ1iH0gF"
HOST = "api.helcim.com"

_KEY = re.compile(r"^[A-Za-z0-9_\-]{25,36}$")
_DECLINES = {
    "200": "DECLINE CVV2 - Do not honor due to CVV2 mismatch\\failure",
    "201": "PICK UP CARD - Pick up card",
    "207": "DECLINED-HELP 9999 - System Error",
    "209": "DECLINED - Do Not Honor",
    "210": "EXPIRED CARD - Expired Card",
    "225": "REQ EXCEEDS BALANCE - Request exceeds balance",
}
_BRANDS = {"4": "VI", "5": "MC", "3": "AX", "6": "DI"}
_WINDOW = 300


class HelcimError(Exception):
    def __init__(self, status: int, *errors: str) -> None:
        super().__init__("; ".join(errors))
        self.status = status
        self.errors = list(errors)


class FakeHelcim:
    """A tiny Helcim: call ``handler`` through ``httpx.MockTransport``; inspect its dicts."""

    def __init__(self) -> None:
        self.tokens = {API_TOKEN, OTHER_TOKEN}
        self.requests: list[httpx.Request] = []
        self.cards: dict[str, dict[str, Any]] = {}  # cardToken -> card (+ customer id)
        self.customers: dict[int, dict[str, Any]] = {}
        self.transactions: dict[int, dict[str, Any]] = {}
        self.invoices: set[str] = set()
        self.checkouts: dict[str, dict[str, Any]] = {}  # checkoutToken -> initialize body
        self.declines_as_500 = False
        self.now = 0
        self._idempotency: dict[tuple[str, str], tuple[int, str, Any, int, Any]] = {}
        self._fail_next: int | None = None
        self._timeout_next: bool | None = None
        self._ids = itertools.count(1001)

    # --- test controls -----------------------------------------------------------------

    def fail_next(self, status: int) -> None:
        self._fail_next = status

    def timeout_next(self, after_processing: bool = False) -> None:
        """Time the next call out; with ``after_processing`` Helcim did the work first."""
        self._timeout_next = after_processing

    def advance(self, seconds: int) -> None:
        self.now += seconds

    def tokenize(
        self,
        number: str = "5454545454545454",
        cvv: str = "100",
        name: str = "Ada Lovelace",
        customer_code: str | None = None,
        expiry: str = "1230",
    ) -> str:
        """HelcimPay.js "verify": vault the card on a customer and return its ``cardToken``."""
        if customer_code is None:
            customer = self._new_customer(name)
        else:
            customer = next(
                c for c in self.customers.values() if c["customerCode"] == customer_code
            )
        token = secrets.token_hex(11)
        card = {
            "id": next(self._ids),
            "cardToken": token,
            "cardHolderName": name,
            "cardF6L4": number[:6] + number[-4:],
            "cardExpiry": expiry,
            "dateCreated": "2026-01-30 13:35:36",
            "dateUpdated": "2026-01-30 13:35:36",
            "cvv": cvv,
            "type": _BRANDS.get(number[0], "VI"),
            "customerId": customer["id"],
        }
        self.cards[token] = card
        self._record("verify", card, Decimal(0), "CAD", self._invoice(None), "APPROVED")
        return token

    def verify_in_checkout(
        self, checkout_token: str, number: str, name: str = "Ada Lovelace", cvv: str = "100"
    ) -> str | None:
        """The HelcimPay.js modal of a verify session: the typed card's ``cardToken``, or None
        for an unknown session or a number that is no card."""
        session = self.checkouts.get(checkout_token)
        if session is None or session["paymentType"] != "verify" or not number.isdigit():
            return None
        if not 13 <= len(number) <= 19:
            return None
        return self.tokenize(number=number, cvv=cvv, name=name)

    def posts(self, path: str) -> list[httpx.Request]:
        return [r for r in self.requests if r.method == "POST" and r.url.path == "/v2" + path]

    def bodies(self, path: str) -> list[dict[str, Any]]:
        return [json.loads(r.content) for r in self.posts(path)]

    def of_type(self, kind: str) -> list[dict[str, Any]]:
        return [t for t in self.transactions.values() if t["type"] == kind]

    # --- transport ---------------------------------------------------------------------

    def handler(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if self._timeout_next is not None:
            after, self._timeout_next = self._timeout_next, None
            if after:
                self._answer(request)
            raise httpx.ReadTimeout("timed out", request=request)
        return self._answer(request)

    def _answer(self, request: httpx.Request) -> httpx.Response:
        try:
            if self._fail_next is not None:
                status, self._fail_next = self._fail_next, None
                raise HelcimError(status, "Internal server error")
            if request.url.scheme != "https" or request.url.host != HOST:
                raise HelcimError(404, "Not found")
            if request.headers.get("api-token") not in self.tokens:
                raise HelcimError(401, "Unauthorized")
            path = request.url.path.removeprefix("/v2")
            if request.method == "POST" and path.startswith("/payment/"):
                return self._payment(request, path)
            if request.method == "POST" and path == "/helcim-pay/initialize":
                return self._initialize(request)
            return httpx.Response(200, json=self._read(request, path))
        except HelcimError as e:
            return httpx.Response(e.status, json={"errors": e.errors})

    def _initialize(self, request: httpx.Request) -> httpx.Response:
        try:
            body = json.loads(request.content, parse_float=Decimal)
        except ValueError:
            raise HelcimError(400, "Malformed JSON") from None
        if not isinstance(body, dict):
            raise HelcimError(400, "The body must be an object")
        _allow(body, "paymentType amount currency paymentMethod customerCode invoiceNumber")
        if body.get("paymentType") not in ("purchase", "preauth", "verify"):
            raise HelcimError(400, "paymentType must be purchase, preauth or verify")
        amount = body.get("amount")
        if isinstance(amount, bool) or not isinstance(amount, int | Decimal) or amount < 0:
            raise HelcimError(400, "amount must be a number")
        if body.get("currency") not in ("USD", "CAD"):
            raise HelcimError(400, "currency must be USD or CAD")
        token = secrets.token_hex(12)
        self.checkouts[token] = body
        return httpx.Response(200, json={"checkoutToken": token,
                                         "secretToken": secrets.token_hex(16)})  # fmt: skip

    def _payment(self, request: httpx.Request, path: str) -> httpx.Response:
        key = request.headers.get("idempotency-key")
        if key is None or not _KEY.match(key):
            raise HelcimError(400, "idempotency-key: must be 25 to 36 alphanumeric characters")
        if request.headers.get("content-type") != "application/json":
            raise HelcimError(400, "content-type must be application/json")
        try:
            body = json.loads(request.content, parse_float=Decimal)
        except ValueError:
            raise HelcimError(400, "Malformed JSON") from None
        if not isinstance(body, dict):
            raise HelcimError(400, "The body must be an object")
        token = request.headers["api-token"]
        saved = self._idempotency.get((token, key))
        if saved is not None and self.now - saved[0] < _WINDOW:
            _, sent_path, sent_body, status, answer = saved
            if (sent_path, sent_body) != (path, body):
                raise HelcimError(409, "Idempotency key already used with a different payload")
            return httpx.Response(status, json=answer)
        if not isinstance(body.get("ipAddress"), str) or not body["ipAddress"]:
            raise HelcimError(400, "ipAddress is required")
        if "ecommerce" in body and not isinstance(body["ecommerce"], bool):
            raise HelcimError(400, "ecommerce must be a boolean")
        handlers = {
            "/payment/purchase": lambda: self._sale(body, "purchase"),
            "/payment/preauth": lambda: self._sale(body, "preauth"),
            "/payment/capture": lambda: self._capture(body),
            "/payment/refund": lambda: self._refund(body),
            "/payment/reverse": lambda: self._reverse(body),
        }
        if path not in handlers:
            raise HelcimError(404, "Not found")
        txn = handlers[path]()
        answer = _public(txn)
        if txn["status"] == "DECLINED" and self.declines_as_500:
            return httpx.Response(500, json={"errors": answer["errors"]})
        self._idempotency[(token, key)] = (self.now, path, body, 200, answer)
        return httpx.Response(200, json=answer)

    # --- payments ----------------------------------------------------------------------

    def _sale(self, body: dict[str, Any], kind: str) -> dict[str, Any]:
        _allow(
            body,
            "ipAddress ecommerce terminalId currency amount customerCode invoiceNumber invoice"
            " cardData billingAddress",
        )
        amount = _amount(body, "amount")
        currency = body.get("currency")
        if currency not in ("CAD", "USD"):
            raise HelcimError(400, "currency: must be CAD or USD")
        card_data = body.get("cardData")
        if not isinstance(card_data, dict) or set(card_data) != {"cardToken"}:
            raise HelcimError(400, "cardData: a cardToken is required")
        card = self.cards.get(str(card_data["cardToken"]))
        if card is None:
            raise HelcimError(400, "cardData.cardToken: Invalid card token")
        owner = self.customers[card["customerId"]]
        if "customerCode" in body and body["customerCode"] != owner["customerCode"]:
            raise HelcimError(400, "cardToken: card token does not belong to this customer")
        number = body.get("invoiceNumber")
        if number is not None and number not in self.invoices:
            raise HelcimError(400, "invoiceNumber: Invoice not found")
        invoice = body.get("invoice")
        if invoice is not None:
            if number is not None or not isinstance(invoice, dict):
                raise HelcimError(400, "invoice: give invoiceNumber or invoice, not both")
            _allow(invoice, "invoiceNumber notes tipAmount shipping pickup tax discount lineItems")
            wanted = invoice.get("invoiceNumber")
            if wanted in self.invoices:
                raise HelcimError(400, "invoice.invoiceNumber: Invoice number already exists")
            number = self._invoice(wanted)
        elif number is None:
            number = self._invoice(None)
        status, error = "APPROVED", None
        if card["cvv"] in _DECLINES:
            status, error = "DECLINED", "Transaction Declined: " + _DECLINES[card["cvv"]]
        elif self._duplicate(card, amount):
            status = "DECLINED"
            error = (
                "Transaction Declined: DECLINED - Suspected duplicate transaction in the last"
                " 5 minutes."
            )
        return self._record(kind, card, amount, currency, number, status, error)

    def _capture(self, body: dict[str, Any]) -> dict[str, Any]:
        _allow(body, "preAuthTransactionId amount ipAddress ecommerce")
        auth = self._original(body, "preAuthTransactionId")
        if auth["type"] != "preauth" or auth["status"] != "APPROVED":
            raise HelcimError(400, "preAuthTransactionId: not an approved preauth")
        if auth.get("captured") or auth.get("reversed"):
            raise HelcimError(400, "preAuthTransactionId: the preauth was already completed")
        amount = _amount(body, "amount")
        if amount > auth["amount"]:
            raise HelcimError(400, "amount: more than the preauthorized amount")
        auth["captured"] = True
        return self._follow_up("capture", auth, amount)

    def _refund(self, body: dict[str, Any]) -> dict[str, Any]:
        _allow(body, "originalTransactionId amount ipAddress ecommerce")
        original = self._original(body, "originalTransactionId")
        if original["type"] not in ("purchase", "capture") or original["status"] != "APPROVED":
            raise HelcimError(400, "originalTransactionId: not a purchase or capture")
        if original.get("reversed"):
            raise HelcimError(400, "originalTransactionId: the transaction was reversed")
        amount = _amount(body, "amount")
        left = original["amount"] - original.get("refunded", Decimal(0))
        if amount > left:
            raise HelcimError(400, "amount: more than is left to refund")
        original["refunded"] = original.get("refunded", Decimal(0)) + amount
        return self._follow_up("refund", original, amount)

    def _reverse(self, body: dict[str, Any]) -> dict[str, Any]:
        _allow(body, "cardTransactionId ipAddress ecommerce")
        original = self._original(body, "cardTransactionId")
        if original["type"] not in ("purchase", "capture", "preauth"):
            raise HelcimError(400, "cardTransactionId: this transaction cannot be reversed")
        if original["status"] != "APPROVED" or original.get("reversed"):
            raise HelcimError(400, "cardTransactionId: this transaction cannot be reversed")
        if original.get("captured") or original.get("refunded"):
            raise HelcimError(400, "cardTransactionId: this transaction cannot be reversed")
        original["reversed"] = True
        return self._follow_up("reverse", original, original["amount"])

    # --- reads -------------------------------------------------------------------------

    def _read(self, request: httpx.Request, path: str) -> Any:
        if request.method != "GET":
            raise HelcimError(404, "Not found")
        query = dict(request.url.params)
        match = re.fullmatch(r"/card-transactions/(\d+)", path)
        if match:
            txn = self.transactions.get(int(match.group(1)))
            if txn is None:
                raise HelcimError(404, "Transaction not found")
            return _public(txn)
        if path == "/card-transactions":
            rows = list(self.transactions.values())
            for field in ("invoiceNumber", "customerCode", "cardToken"):
                if field in query:
                    rows = [t for t in rows if t[field] == query[field]]
            return [_public(t) for t in rows]
        if path == "/customers":
            rows = list(self.customers.values())
            if "customerCode" in query:
                rows = [c for c in rows if c["customerCode"] == query["customerCode"]]
            return rows
        match = re.fullmatch(r"/customers/(\d+)/cards", path)
        if match:
            if int(match.group(1)) not in self.customers:
                raise HelcimError(404, "Customer not found")
            cards = [c for c in self.cards.values() if c["customerId"] == int(match.group(1))]
            if "cardToken" in query:
                cards = [c for c in cards if c["cardToken"] == query["cardToken"]]
            return [
                {k: v for k, v in c.items() if k not in ("cvv", "type", "customerId")}
                for c in cards
            ]
        raise HelcimError(404, "Not found")

    # --- helpers -----------------------------------------------------------------------

    def _new_customer(self, name: str) -> dict[str, Any]:
        ident = next(self._ids)
        customer = {"id": ident, "customerCode": f"CST{ident}", "contactName": name}
        self.customers[ident] = customer
        return customer

    def _invoice(self, number: object) -> str:
        if number is None or number == "":
            number = f"INV{next(self._ids)}"
        if not isinstance(number, str):
            raise HelcimError(400, "invoice.invoiceNumber: must be a string")
        self.invoices.add(number)
        return number

    def _duplicate(self, card: dict[str, Any], amount: Decimal) -> bool:
        return any(
            t["status"] == "APPROVED"
            and t["type"] in ("purchase", "preauth")
            and t["cardNumber"] == card["cardF6L4"]
            and t["cardHolderName"] == card["cardHolderName"]
            and t["amount"] == amount
            and self.now - t["_at"] < _WINDOW
            for t in self.transactions.values()
        )

    def _original(self, body: dict[str, Any], field: str) -> dict[str, Any]:
        ident = body.get(field)
        if not isinstance(ident, int) or isinstance(ident, bool):
            raise HelcimError(400, f"{field}: must be an integer")
        txn = self.transactions.get(ident)
        if txn is None:
            raise HelcimError(400, f"{field}: Transaction not found")
        return txn

    def _follow_up(self, kind: str, original: dict[str, Any], amount: Decimal) -> dict[str, Any]:
        card = self.cards[original["cardToken"]]
        return self._record(
            kind, card, amount, original["currency"], original["invoiceNumber"], "APPROVED"
        )

    def _record(
        self,
        kind: str,
        card: dict[str, Any],
        amount: Decimal,
        currency: str,
        invoice: str,
        status: str,
        error: str | None = None,
    ) -> dict[str, Any]:
        ident = next(self._ids)
        txn: dict[str, Any] = {
            "transactionId": ident,
            "cardBatchId": 77,
            "dateCreated": "2026-11-23 10:00:00",
            "status": status,
            "user": "Helcim System",
            "type": kind,
            "amount": amount,
            "currency": currency,
            "avsResponse": "X",
            "cvvResponse": "M",
            "cardType": card["type"],
            "approvalCode": "T5E8ST" if status == "APPROVED" else "",
            "cardToken": card["cardToken"],
            "cardNumber": card["cardF6L4"],
            "cardHolderName": card["cardHolderName"],
            "customerCode": self.customers[card["customerId"]]["customerCode"],
            "invoiceNumber": invoice,
            "warning": "",
            "_at": self.now,
        }
        if error is not None:
            txn["errors"] = [error]
        self.transactions[ident] = txn
        return txn


def _public(txn: dict[str, Any]) -> dict[str, Any]:
    return {
        k: (float(v) if isinstance(v, Decimal) else v)
        for k, v in txn.items()
        if not k.startswith("_") and k not in ("captured", "refunded", "reversed")
    }


def _allow(body: dict[str, Any], names: str) -> None:
    unknown = set(body) - set(names.split())
    if unknown:
        raise HelcimError(400, f"Unknown field: {sorted(unknown)[0]}")


def _amount(body: dict[str, Any], field: str) -> Decimal:
    value = body.get(field)
    if isinstance(value, bool) or not isinstance(value, int | Decimal):
        raise HelcimError(400, f"{field}: must be a number")
    amount = Decimal(value)
    if amount <= 0 or amount != amount.quantize(Decimal("0.01")):
        raise HelcimError(400, f"{field}: must be positive with at most 2 decimals")
    return amount
