"""An in-memory fake of PayTrace's JSON API v1, for ``httpx.MockTransport``.

Written from PayTrace's public reference, not from the adapter:
https://developers.paytrace.com/support/home (JSON API v1: OAuth, methods, response codes),
https://developer.north.com/b2b/api-spec/production/Protect.js (one-time ``hpf_token`` and
``enc_key``), https://developer.north.com/b2b/integration-guide (hosts, ``integrator_id``),
and the request/response examples in ActiveMerchant's ``pay_trace.rb`` unit tests.

- Hosts ``api.sandbox.paytrace.com`` and ``api.paytrace.com``; an account exists on one.
- ``POST /oauth/token`` (form ``grant_type=password``, ``username``, ``password``) answers
  ``{access_token, token_type: "Bearer", expires_in: 7200, created_at}``; wrong
  credentials answer 401 ``{"error": "invalid_grant", "error_description": ...}``.
- ``POST /v1/...`` JSON with ``Authorization: Bearer``; an unknown or expired token answers
  401 ``{"error": "invalid_token", ...}``. Every body must carry ``integrator_id``.
- ``transactions/{sale,authorization}/{pt_protect,by_customer}`` (``amount`` required,
  decimal dollars > 0; ``hpf_token`` + ``enc_key`` or ``customer_id``; ``invoice_id``
  optional, at most 50 characters), ``transactions/authorization/capture`` (once, at most
  the authorized amount), ``transactions/refund/for_transaction`` (up to what is left of a
  captured sale; a new transaction), ``transactions/void`` (an authorization or a sale,
  before settlement), ``customer/pt_protect_create`` (``customer_id`` unique: error 171),
  ``customer/export``, ``transactions/export/by_id`` and ``transactions/export/by_date_range``
  (``start_date``/``end_date`` MM/DD/YYYY, ``including_text`` matched against invoice ids).
- ``payment_fields/token/create`` answers ``{success, clientKey}``: the key Protect.js is set
  up with on one page (Protect.js docs, "authorization: {clientKey}").
- Answers: ``success``, ``response_code`` (101 approved, 102 declined with the issuer's
  ``approval_message``, 103 auto-voided on a CSC mismatch, 106 refunded, 109 voided,
  112 captured, 160 customer created, 1 with ``errors: {code: [text]}``), ``status_message``.
- Export rows: ``transaction_id``, ``transaction_type`` (Sale, Authorization, Refund),
  ``amount``, ``status`` (Approved, Declined, Captured, Voided, Settled), ``invoice_id``,
  ``credit_card.masked_number``. These export field names are modelled, not confirmed by
  a public example (see docs/gateways.md, open questions).

Protect.js test tokens (one-time; any non-empty ``enc_key``):

- ``hpf_visa``: Visa ...1111, exp 12/2030, approved; ``hpf_mastercard``: ...5454, 04/2031
- ``hpf_decline``: 102 "DECLINE - Do not honor"; ``hpf_insufficient``: 102 "NSF - Insufficient
  funds"; ``hpf_expired``: 102 "EXPIRED CARD - Expired card"; ``hpf_stolen``: 102
  "PICK UP CARD - Stolen card"; ``hpf_cvv``: 103 auto-voided, ``csc_response`` "No Match";
  ``hpf_processor``: 102 "PROCESSOR ERROR - Re-enter"
- anything else, or a token used twice: errors ``{"839": ["Please provide a valid
  hpf_token."]}`` (code and text modelled)

Knobs: ``fail_next(status, path)``, ``timeout_next(after_processing, path)``,
``expire_tokens()`` (every issued access token becomes invalid), ``settle()``;
``requests`` records ``(url, headers, body)``.
"""

from __future__ import annotations

import json
import re
import secrets as random
from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Any
from urllib.parse import parse_qsl

import attrs
import httpx

USERNAME = "fake-paytrace-api-user"
PASSWORD = "fake-paytrace-password-0123456789"
INTEGRATOR_ID = "9999fakeINT1"
SANDBOX_HOST = "api.sandbox.paytrace.com"
LIVE_HOST = "api.paytrace.com"
_AMOUNT = re.compile(r"^\d{1,7}(\.\d{1,2})?$")


@attrs.frozen
class Card:
    number: str
    month: int
    year: int


@attrs.frozen
class Outcome:
    code: int = 101
    approval: str = "  NO  MATCH - Approved and completed"
    csc: str = "Match"


_VISA = Card("4111111111111111", 12, 2030)
_MC = Card("5454545454545454", 4, 2031)
_BAD = Card("4012000098765439", 12, 2030)

TOKENS: dict[str, tuple[Card, Outcome]] = {
    "hpf_visa": (_VISA, Outcome()),
    "hpf_mastercard": (_MC, Outcome()),
    "hpf_decline": (_BAD, Outcome(102, "    DECLINE - Do not honor")),
    "hpf_insufficient": (_BAD, Outcome(102, "  NSF - Insufficient funds")),
    "hpf_expired": (_BAD, Outcome(102, "  EXPIRED CARD - Expired card")),
    "hpf_stolen": (_BAD, Outcome(102, "  PICK UP CARD - Stolen card")),
    "hpf_cvv": (_BAD, Outcome(103, "  Approved", csc="No Match")),
    "hpf_processor": (_BAD, Outcome(102, "  PROCESSOR ERROR - Re-enter")),
}


@attrs.define
class Txn:
    id: int
    kind: str  # Sale, Authorization, Refund
    amount: Decimal
    status: str  # Approved, Declined, Captured, Voided, Settled
    invoice_id: str
    card: Card
    parent: int | None = None
    refunded: Decimal = Decimal(0)
    at: str = "11/23/2026"

    def row(self) -> dict[str, Any]:
        return {
            "transaction_id": self.id,
            "transaction_type": self.kind,
            "amount": float(self.amount),
            "status": self.status,
            "invoice_id": self.invoice_id,
            "created": {"at": f"{self.at} 10:00:00 AM", "by": USERNAME, "through": "API"},
            "credit_card": {
                "masked_number": "x" * 12 + self.card.number[-4:],
                "expiration_month": self.card.month,
                "expiration_year": self.card.year,
            },
        }


@attrs.define
class FakePayTrace:
    """PayTrace's API in memory: one account (sandbox or live), its tokens and transactions."""

    sandbox: bool = True
    requests: list[tuple[httpx.URL, dict[str, str], dict[str, Any]]] = attrs.field(factory=list)
    transactions: dict[int, Txn] = attrs.field(factory=dict)
    customers: dict[str, Card] = attrs.field(factory=dict)
    access_tokens: set[str] = attrs.field(factory=set)
    client_keys: set[str] = attrs.field(factory=set)  # Protect.js keys made for pages
    spent: set[str] = attrs.field(factory=set)
    _next_id: int = 395970001
    _fail: tuple[int, str | None] | None = None
    _timeout: tuple[str, str | None] | None = None

    # --- knobs ------------------------------------------------------------------------

    def fail_next(self, status: int = 500, path: str | None = None) -> None:
        self._fail = (status, path)

    def timeout_next(self, after_processing: bool = False, path: str | None = None) -> None:
        self._timeout = ("after" if after_processing else "before", path)

    def expire_tokens(self) -> None:
        self.access_tokens.clear()

    def settle(self) -> None:
        for txn in self.transactions.values():
            if txn.status == "Captured" or (
                txn.status == "Approved" and txn.kind != "Authorization"
            ):
                txn.status = "Settled"

    def sent(self, path: str) -> list[dict[str, Any]]:
        return [body for url, _, body in self.requests if url.path == path]

    def client(self) -> httpx.Client:
        return httpx.Client(transport=httpx.MockTransport(self.handler))

    # --- transport --------------------------------------------------------------------

    def handler(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path == "/oauth/token":
            body: dict[str, Any] = dict(parse_qsl(request.content.decode()))
        else:
            try:
                body = json.loads(request.content or b"{}")
            except ValueError:
                body = {}
        self.requests.append((request.url, dict(request.headers), body))
        if self._timeout and self._timeout[0] == "before" and self._timeout[1] in (None, path):
            self._timeout = None
            raise httpx.ReadTimeout("fake PayTrace timed out", request=request)
        if self._fail and self._fail[1] in (None, path):
            status, self._fail = self._fail[0], None
            return httpx.Response(status, text="<html>Service Unavailable</html>")
        if request.method != "POST" or request.url.scheme != "https":
            return httpx.Response(405)
        if request.url.host != (SANDBOX_HOST if self.sandbox else LIVE_HOST):
            if request.url.host in (SANDBOX_HOST, LIVE_HOST) and path == "/oauth/token":
                return _invalid_grant()  # the account does not exist on the other host
            if request.url.host not in (SANDBOX_HOST, LIVE_HOST):
                return httpx.Response(404)
        if path == "/oauth/token":
            response = self._oauth(request, body)
        else:
            response = self._api(request, path, body)
        if self._timeout and self._timeout[0] == "after" and self._timeout[1] in (None, path):
            self._timeout = None
            raise httpx.ReadTimeout("fake PayTrace timed out after processing", request=request)
        return response

    def _oauth(self, request: httpx.Request, form: dict[str, str]) -> httpx.Response:
        content_type = request.headers.get("content-type", "")
        if not content_type.startswith("application/x-www-form-urlencoded"):
            return httpx.Response(400, json={"error": "invalid_request"})
        if form.get("grant_type") != "password":
            return httpx.Response(400, json={"error": "unsupported_grant_type"})
        if (form.get("username"), form.get("password")) != (USERNAME, PASSWORD):
            return _invalid_grant()
        token = f"{random.token_hex(16)}:{random.token_hex(16)}"
        self.access_tokens.add(token)
        return httpx.Response(
            200,
            json={
                "access_token": token,
                "token_type": "Bearer",
                "expires_in": 7200,
                "created_at": 1763892000,
            },
        )

    def _client_key(self) -> httpx.Response:
        """Protect.js's client key for one page (``payment_fields/token/create``)."""
        key = f"pt_ck_{random.token_hex(12)}"
        self.client_keys.add(key)
        return httpx.Response(200, json={"success": True, "clientKey": key})

    def _api(self, request: httpx.Request, path: str, body: dict[str, Any]) -> httpx.Response:
        auth = request.headers.get("authorization", "")
        if not auth.startswith("Bearer ") or auth[7:] not in self.access_tokens:
            return httpx.Response(
                401,
                json={
                    "error": "invalid_token",
                    "error_description": "The access token is invalid",
                },
            )
        if not request.headers.get("content-type", "").startswith("application/json"):
            return _errors({"1": "Please send JSON."})
        if body.get("integrator_id") != INTEGRATOR_ID:
            return _errors({"1001": "Please provide a valid integrator_id."})
        routes = {
            "/v1/transactions/sale/pt_protect": lambda: self._charge(body, "Sale", True),
            "/v1/transactions/authorization/pt_protect": lambda: self._charge(
                body, "Authorization", True
            ),
            "/v1/transactions/sale/by_customer": lambda: self._charge(body, "Sale", False),
            "/v1/transactions/authorization/by_customer": lambda: self._charge(
                body, "Authorization", False
            ),
            "/v1/transactions/authorization/capture": lambda: self._capture(body),
            "/v1/transactions/refund/for_transaction": lambda: self._refund(body),
            "/v1/transactions/void": lambda: self._void(body),
            "/v1/customer/pt_protect_create": lambda: self._create_customer(body),
            "/v1/payment_fields/token/create": self._client_key,
            "/v1/customer/export": lambda: self._export_customer(body),
            "/v1/transactions/export/by_id": lambda: self._export_by_id(body),
            "/v1/transactions/export/by_date_range": lambda: self._export_by_date(body),
        }
        route = routes.get(path)
        if route is None:
            return httpx.Response(404, json={"error": "not_found"})
        return route()

    # --- transactions -----------------------------------------------------------------

    def _card_of(self, body: dict[str, Any], protect: bool) -> tuple[Card, Outcome] | str:
        if protect:
            hpf, enc = body.get("hpf_token"), body.get("enc_key")
            if not hpf or not enc or hpf not in TOKENS or hpf in self.spent:
                return "839"
            self.spent.add(hpf)
            return TOKENS[hpf]
        customer = self.customers.get(str(body.get("customer_id", "")))
        if customer is None:
            return "30"
        return customer, Outcome()

    def _charge(self, body: dict[str, Any], kind: str, protect: bool) -> httpx.Response:
        amount = _amount(body.get("amount"))
        if amount is None:
            return _errors({"16": "Please provide a valid Transaction Amount."})
        invoice = str(body.get("invoice_id", ""))
        if len(invoice) > 50:
            return _errors({"26": "Please provide a valid Invoice Number."})
        resolved = self._card_of(body, protect)
        if resolved == "839":
            return _errors({"839": "Please provide a valid hpf_token."})
        if resolved == "30":
            return _errors(
                {"30": f"Customer ID, {body.get('customer_id')}, was not found or is incomplete."}
            )
        assert not isinstance(resolved, str)
        card, outcome = resolved
        txn = Txn(
            id=self._new_id(),
            kind=kind,
            amount=amount,
            status="Approved" if outcome.code == 101 else "Declined",
            invoice_id=invoice,
            card=card,
        )
        if outcome.code == 103:
            txn.status = "Voided"
        self.transactions[txn.id] = txn
        message = {
            101: "Your transaction was successfully approved.",
            102: "Your transaction was not approved.",
            103: "Your transaction was successfully approved. However, it was voided because"
            " your address and/or CSC did not match.",
        }[outcome.code]
        return httpx.Response(
            200,
            json={
                "success": outcome.code == 101,
                "response_code": outcome.code,
                "status_message": message,
                "transaction_id": txn.id,
                "approval_code": "TAS610" if outcome.code == 101 else "",
                "approval_message": outcome.approval,
                "avs_response": "No Match",
                "csc_response": outcome.csc,
                "external_transaction_id": "",
                "masked_card_number": "x" * 12 + card.number[-4:],
            },
        )

    def _txn(self, body: dict[str, Any]) -> Txn | None:
        value = body.get("transaction_id")
        return self.transactions.get(value) if isinstance(value, int) else None

    def _capture(self, body: dict[str, Any]) -> httpx.Response:
        txn = self._txn(body)
        if txn is None or txn.kind != "Authorization" or txn.status != "Approved":
            return _errors({"58": "Please provide a valid Transaction ID."})
        amount = _amount(body.get("amount")) if "amount" in body else txn.amount
        if amount is None or amount > txn.amount:
            return _errors({"16": "Please provide a valid Transaction Amount."})
        txn.amount, txn.status = amount, "Captured"
        return _ok(112, "Your transaction was successfully captured.", txn.id)

    def _refund(self, body: dict[str, Any]) -> httpx.Response:
        txn = self._txn(body)
        captured = txn is not None and (
            (txn.kind == "Sale" and txn.status in ("Approved", "Settled"))
            or (txn.kind == "Authorization" and txn.status in ("Captured", "Settled"))
        )
        if txn is None or not captured:
            return _errors({"58": "Please provide a valid Transaction ID."})
        amount = _amount(body.get("amount")) if "amount" in body else txn.amount - txn.refunded
        if amount is None or amount > txn.amount - txn.refunded:
            return _errors({"16": "Please provide a valid Transaction Amount."})
        txn.refunded += amount
        refund = Txn(self._new_id(), "Refund", amount, "Approved", "", txn.card, parent=txn.id)
        self.transactions[refund.id] = refund
        return _ok(106, "Your transaction successfully refunded.", refund.id)

    def _void(self, body: dict[str, Any]) -> httpx.Response:
        txn = self._txn(body)
        if txn is None or txn.status not in ("Approved", "Captured") or txn.kind == "Refund":
            return _errors({"58": "Please provide a valid Transaction ID."})
        txn.status = "Voided"
        return _ok(109, "Your transaction was successfully voided.", txn.id)

    # --- customers --------------------------------------------------------------------

    def _create_customer(self, body: dict[str, Any]) -> httpx.Response:
        customer_id = str(body.get("customer_id", ""))
        if not customer_id or len(customer_id) > 50:
            return _errors({"31": "Please provide a valid Customer ID."})
        if customer_id in self.customers:
            return _errors({"171": "Please provide a unique customer ID."})
        resolved = self._card_of(body, True)
        if isinstance(resolved, str):
            return _errors({"839": "Please provide a valid hpf_token."})
        card, _ = resolved
        self.customers[customer_id] = card
        return httpx.Response(
            200,
            json={
                "success": True,
                "response_code": 160,
                "status_message": f"The customer profile for {customer_id} was successfully"
                " created.",
                "customer_id": customer_id,
                "masked_card_number": "x" * 12 + card.number[-4:],
            },
        )

    def _export_customer(self, body: dict[str, Any]) -> httpx.Response:
        customer_id = str(body.get("customer_id", ""))
        card = self.customers.get(customer_id)
        if card is None:
            return _errors({"30": f"Customer ID, {customer_id}, was not found."})
        return httpx.Response(
            200,
            json={
                "success": True,
                "response_code": 1,
                "status_message": "1 customer profile(s) found.",
                "customers": [
                    {
                        "customer_id": customer_id,
                        "credit_card": {
                            "masked_number": "x" * 12 + card.number[-4:],
                            "expiration_month": card.month,
                            "expiration_year": card.year,
                        },
                    }
                ],
            },
        )

    # --- exports ----------------------------------------------------------------------

    def _export_by_id(self, body: dict[str, Any]) -> httpx.Response:
        txn = self._txn(body)
        if txn is None:
            return _errors({"58": "Please provide a valid Transaction ID."})
        return _found([txn.row()])

    def _export_by_date(self, body: dict[str, Any]) -> httpx.Response:
        try:
            start = datetime.strptime(str(body.get("start_date")), "%m/%d/%Y")
            end = datetime.strptime(str(body.get("end_date")), "%m/%d/%Y")
        except ValueError:
            return _errors({"24": "Please provide a valid Start Date."})
        at = datetime.strptime("11/23/2026", "%m/%d/%Y")
        text = str(body.get("including_text", ""))
        rows = [
            t.row()
            for t in self.transactions.values()
            if start <= at <= end and (not text or text in t.invoice_id)
        ]
        if not rows:
            return _errors({"1002": "No transactions were found for the given criteria."})
        return _found(rows)

    def _new_id(self) -> int:
        self._next_id += 1
        return self._next_id


def _amount(value: Any) -> Decimal | None:
    text = str(value) if isinstance(value, (str, int, float)) else ""
    if not _AMOUNT.match(text):
        return None
    try:
        amount = Decimal(text)
    except InvalidOperation:
        return None
    return amount if amount > 0 else None


def _ok(code: int, message: str, transaction_id: int) -> httpx.Response:
    return httpx.Response(
        200,
        json={
            "success": True,
            "response_code": code,
            "status_message": message,
            "transaction_id": transaction_id,
            "external_transaction_id": "",
        },
    )


def _found(rows: list[dict[str, Any]]) -> httpx.Response:
    return httpx.Response(
        200,
        json={
            "success": True,
            "response_code": 1,
            "status_message": f"{len(rows)} transaction(s) found.",
            "transactions": rows,
        },
    )


def _errors(errors: dict[str, str]) -> httpx.Response:
    return httpx.Response(
        400,
        json={
            "success": False,
            "response_code": 1,
            "status_message": "One or more errors has occurred.",
            "errors": {code: [text] for code, text in errors.items()},
            "external_transaction_id": "",
        },
    )


def _invalid_grant() -> httpx.Response:
    return httpx.Response(
        401,
        json={
            "error": "invalid_grant",
            "error_description": "The provided authorization grant is invalid, expired,"
            " revoked, does not match the redirection URI used in the authorization request,"
            " or was issued to another client.",
        },
    )
