"""An in-memory fake of the slice of Stax's API payhub uses (httpx.MockTransport).

Written from Stax's public reference, not from our adapter:

- https://docs.staxpayments.com/reference/charge-a-payment-method: ``POST /charge`` requires
  ``payment_method_id``, ``total`` (dollars, min 0.01), ``pre_auth`` and ``meta`` (422
  field-keyed message arrays otherwise; "Payment method is invalid or unauthorized.", "The
  Payment Method has been deleted."); the transaction object (``id``, ``type`` charge/pre_auth,
  ``success``, ``message``, ``total``, ``pre_auth``, ``is_captured``, ``child_captures``,
  ``child_transactions``, ``total_refunded``, ``is_voided``, ``is_refundable``,
  ``is_voidable``, ``payment_method``, ``customer_id``, ``currency``).
- https://api-docs.staxpayments.com/docs/idempotency: ``idempotency_id`` on ``POST /charge``; a
  repeat returns the original transaction, the same id with other parameters is an error.
- https://docs.staxpayments.com/reference/capture-a-pre-auth-transaction (``total`` to capture;
  answers the pre_auth with ``is_captured`` 1 and the capture in ``child_captures``),
  .../void-transaction (whole amount, unsettled only), .../refund-transaction (``total``,
  settled only; refunds in ``child_transactions``), .../void-or-refund-transaction, and
  ``GET /transaction/{id}``.
- https://docs.staxpayments.com/reference/retrieve-a-payment-method (``customer_id``,
  ``method``, ``card_type``, ``card_last_four``, ``card_exp`` MMYYYY, ``deleted_at``).
- https://docs.staxpayments.com/docs/test-environments and .../payment-decline-codes: the
  sandbox success card 4111111111111111 and failure card 4012888888881881 ("Unable to process
  the purchase transaction"); fake-only cards for the other messages payhub maps.

Declined charges answer the failed transaction (``success: false``) with HTTP 200, as
Hyperswitch's connector reads them; ``declines_as_400`` answers it with 400 instead.
``tokenize(number)`` plays Stax.js: it creates the customer (unless ``customer_id``) and the
payment method and returns its id. ``settle()`` closes the batch (refunds need it).
"""

from __future__ import annotations

import itertools
import json
import re
import uuid
from collections.abc import Callable
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

import httpx

from tests.gateways.stax.contract import omni

API_KEY = "eyJ0eXAiOiJKV1QiLCJhbGciOiJIUzI1NiJ9.c3RheC1mYWtlLWtleQ.sig-Stax-Test-1"
HOST = "apiprod.fattlabs.com"
_EPOCH = datetime(2026, 11, 23, 10, 0, 0)
_DECLINES = {
    "4012888888881881": "Unable to process the purchase transaction",
    "4000000000009995": "Insufficient Funds",
    "4000000000000127": "CVV does not match.",
    "4000000000000069": "The credit card has expired.",
    "4000000000009979": "Lost/Stolen",
    "4000000000000119": "An error occurred during processing.",
}
_BRANDS = {"4": "visa", "5": "mastercard", "3": "amex", "6": "discover"}


class StaxError(Exception):
    def __init__(self, status: int, body: Any) -> None:
        super().__init__(str(body))
        self.status = status
        self.body = body


def _field(status: int, field: str, message: str) -> StaxError:
    return StaxError(status, {field: [message]})


class FakeStax:
    """A tiny Stax: call ``handler`` through ``httpx.MockTransport``; inspect its dicts."""

    def __init__(self) -> None:
        self.keys = {API_KEY}
        self.requests: list[httpx.Request] = []
        self.customers: dict[str, dict[str, Any]] = {}
        self.methods: dict[str, dict[str, Any]] = {}
        self.transactions: dict[str, dict[str, Any]] = {}
        self.declines_as_400 = False
        self._idempotency: dict[str, tuple[dict[str, Any], str]] = {}
        self._fail_next: int | None = None
        self._timeout_next: bool | None = None
        self._clock = itertools.count(1)
        # Requests are held to Stax's own client (tests/gateways/stax/contract) and refused
        # with a 422 when they stray from it.
        self.contract: Callable[[httpx.Request], None] | None = omni.check
        self.violations: list[str] = []

    # --- test controls -----------------------------------------------------------------

    def fail_next(self, status: int) -> None:
        self._fail_next = status

    def timeout_next(self, after_processing: bool = False) -> None:
        self._timeout_next = after_processing

    def settle(self) -> None:
        for txn in self.transactions.values():
            txn["_settled"] = True

    def tokenize(self, number: str = "4111111111111111", customer_id: str | None = None) -> str:
        """What Stax.js ``tokenize`` makes: a stored card payment method (its id)."""
        if customer_id is None:
            customer_id = str(uuid.uuid4())
            self.customers[customer_id] = {"id": customer_id, "firstname": "Ada"}
        method_id = str(uuid.uuid4())
        self.methods[method_id] = {
            "id": method_id,
            "customer_id": customer_id,
            "method": "card",
            "nickname": f"VISA: Ada (ending in: {number[-4:]})",
            "person_name": "Ada Lovelace",
            "card_type": _BRANDS.get(number[0], "visa"),
            "card_last_four": number[-4:],
            "card_exp": "122030",
            "deleted_at": None,
            "purged_at": None,
            "_number": number,
        }
        return method_id

    def posts(self, path: str) -> list[httpx.Request]:
        return [r for r in self.requests if r.method == "POST" and r.url.path == path]

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
                raise StaxError(status, {"message": "Server Error"})
            if request.url.scheme != "https" or request.url.host != HOST:
                raise StaxError(404, {"message": "Not Found"})
            scheme, _, key = request.headers.get("Authorization", "").partition(" ")
            if scheme != "Bearer" or key not in self.keys:
                raise StaxError(401, ["Unauthenticated."])
            body: dict[str, Any] = {}
            if request.method == "POST":
                if request.headers.get("Content-Type") != "application/json":
                    raise StaxError(415, {"message": "Content-Type must be application/json"})
                parsed = json.loads(request.content or b"{}", parse_float=Decimal)
                if not isinstance(parsed, dict):
                    raise StaxError(422, {"error": ["The body must be an object."]})
                body = parsed
            if self.contract is not None:
                try:
                    self.contract(request)
                except omni.ContractViolation as e:
                    self.violations.append(str(e))
                    raise StaxError(422, {"error": [str(e)]}) from None
            status, answer = self._dispatch(request, body)
            return httpx.Response(status, json=_public(answer))
        except StaxError as e:
            return httpx.Response(e.status, json=_public(e.body))

    def _dispatch(self, request: httpx.Request, body: dict[str, Any]) -> tuple[int, Any]:
        path, method = request.url.path, request.method
        if method == "POST" and path == "/charge":
            return self._charge(body)
        match = re.fullmatch(
            r"/transaction/([^/]+)(?:/(capture|void|refund|void-or-refund))?", path
        )
        if match:
            txn = self.transactions.get(match.group(1))
            if txn is None:
                raise StaxError(404, {"message": "No query results for model [Transaction]."})
            action = match.group(2)
            if method == "GET" and action is None:
                return 200, txn
            if method == "POST" and action == "capture":
                return 200, self._capture(txn, body)
            if method == "POST" and action == "void":
                return 200, self._void(txn)
            if method == "POST" and action == "refund":
                return 200, self._refund(txn, body)
            if method == "POST" and action == "void-or-refund":
                return 200, self._refund(txn, body) if txn["_settled"] else self._void(txn)
        match = re.fullmatch(r"/payment-method/([^/]+)", path)
        if method == "GET" and match:
            found = self.methods.get(match.group(1))
            if found is None:
                raise StaxError(404, {"message": "No query results for model [PaymentMethod]."})
            return 200, found
        raise StaxError(404, {"message": "Not Found"})

    # --- endpoints ---------------------------------------------------------------------

    def _charge(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        missing = {
            f: [f"The {f.replace('_', ' ')} field is required."]
            for f in ("payment_method_id", "total", "pre_auth", "meta")
            if f not in body or body[f] in (None, {}, "")
        }
        if missing:
            raise StaxError(422, missing)
        allowed = {"payment_method_id", "total", "pre_auth", "meta", "idempotency_id"}
        allowed |= {"invoice_id", "channel", "funding"}
        if set(body) - allowed:
            raise StaxError(422, {"error": [f"Unknown field {sorted(set(body) - allowed)[0]}"]})
        total = _total(body)
        if not isinstance(body["pre_auth"], bool):
            raise _field(422, "pre_auth", "The pre auth field must be true or false.")
        ident = body.get("idempotency_id")
        if ident is not None:
            if not isinstance(ident, str) or len(ident) > 255:
                raise _field(
                    422,
                    "idempotency_id",
                    "The idempotency id may not be greater than 255 characters.",
                )
            earlier = self._idempotency.get(ident)
            if earlier is not None:
                sent, txn_id = earlier
                if sent != body:
                    differing = sorted(
                        k for k in set(sent) | set(body) if sent.get(k) != body.get(k)
                    )
                    raise _field(
                        422,
                        "idempotency_id",
                        "This idempotency id was used with different parameters: "
                        + ", ".join(differing),
                    )
                return 200, self.transactions[txn_id]
        method = self.methods.get(str(body["payment_method_id"]))
        if method is None:
            raise _field(422, "payment_method_id", "Payment method is invalid or unauthorized.")
        if method["deleted_at"]:
            raise _field(422, "payment_method_id", "The Payment Method has been deleted.")
        kind = "pre_auth" if body["pre_auth"] else "charge"
        txn = self._new(kind, method, total, body.get("meta"))
        decline = _DECLINES.get(method["_number"])
        if decline is not None:
            txn.update(success=False, message=decline, is_refundable=False, is_voidable=False)
        if ident is not None:
            self._idempotency[ident] = (body, txn["id"])
        if decline is not None and self.declines_as_400:
            raise StaxError(400, txn)
        return 200, txn

    def _capture(self, txn: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        if txn["type"] != "pre_auth" or not txn["success"]:
            raise _field(422, "id", "The transaction is not a pre-authorization.")
        if txn["is_captured"] or txn["is_voided"]:
            raise _field(422, "id", "The transaction cannot be captured.")
        total = _total(body) if "total" in body else txn["total"]
        if total > txn["total"]:
            raise _field(422, "total", "The total may not be greater than the authorized total.")
        method = self.methods[txn["payment_method_id"]]
        capture = self._new("capture", method, total, txn["meta"], auth_id=txn["id"])
        txn.update(is_captured=1, is_voidable=False, child_captures=[capture])
        return txn

    def _void(self, txn: dict[str, Any]) -> dict[str, Any]:
        if not txn["success"] or txn["is_voided"] or txn["_settled"] or txn["is_captured"]:
            raise _field(422, "id", "The transaction cannot be voided.")
        if txn["total_refunded"]:
            raise _field(422, "id", "The transaction cannot be voided.")
        txn.update(is_voided=True, is_voidable=False, is_refundable=False)
        void = self._new("void", self.methods[txn["payment_method_id"]], txn["total"], None)
        txn["child_transactions"].append(void)
        return txn

    def _refund(self, txn: dict[str, Any], body: dict[str, Any]) -> dict[str, Any]:
        if txn["type"] not in ("charge", "capture") or not txn["success"] or txn["is_voided"]:
            raise _field(422, "id", "The transaction is not refundable.")
        if not txn["_settled"]:
            raise _field(422, "id", "The transaction has not settled yet; void it instead.")
        left = txn["total"] - txn["total_refunded"]
        total = _total(body) if "total" in body else left
        if total > left:
            raise _field(422, "total", "The total may not be greater than the amount left.")
        refund = self._new("refund", self.methods[txn["payment_method_id"]], total, None)
        txn["total_refunded"] += total
        txn["is_refundable"] = txn["total_refunded"] < txn["total"]
        txn["child_transactions"].append(refund)
        return txn

    # --- helpers -----------------------------------------------------------------------

    def _new(
        self,
        kind: str,
        method: dict[str, Any],
        total: Decimal,
        meta: Any,
        auth_id: str | None = None,
    ) -> dict[str, Any]:
        txn: dict[str, Any] = {
            "id": str(uuid.uuid4()),
            "type": kind,
            "auth_id": auth_id,
            "success": True,
            "message": None,
            "total": total,
            "pre_auth": kind == "pre_auth",
            "is_captured": 0,
            "is_voided": False,
            "is_refundable": kind in ("charge", "capture"),
            "is_voidable": kind in ("charge", "pre_auth", "capture"),
            "total_refunded": Decimal(0),
            "currency": "USD",
            "method": "card",
            "last_four": method["card_last_four"],
            "issuer_auth_code": "06782D",
            "meta": meta or {},
            "customer_id": method["customer_id"],
            "payment_method_id": method["id"],
            "payment_method": method,
            "child_captures": [],
            "child_transactions": [],
            # Stax's "YYYY-MM-DD HH:MM:SS" (what its client parses), a second apart
            "created_at": (_EPOCH + timedelta(seconds=next(self._clock))).strftime(
                "%Y-%m-%d %H:%M:%S"
            ),
            "_settled": False,
        }
        self.transactions[txn["id"]] = txn
        return txn


def _public(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _public(v) for k, v in value.items() if not k.startswith("_")}
    if isinstance(value, list):
        return [_public(v) for v in value]
    if isinstance(value, Decimal):
        return float(value)
    return value


def _total(body: dict[str, Any]) -> Decimal:
    value = body.get("total")
    if isinstance(value, bool) or not isinstance(value, int | Decimal):
        raise _field(422, "total", "The total must be a number.")
    total = Decimal(value)
    if total < Decimal("0.01") or total != total.quantize(Decimal("0.01")):
        raise _field(422, "total", "The total must be at least 0.01, in dollars and cents.")
    return total
