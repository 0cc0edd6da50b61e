"""An in-memory fake of Forte's REST API v3, for ``httpx.MockTransport``.

Written from Forte's public reference, not from the adapter: https://restdocs.forte.net/
(transactions, customers, paymethods, ``filter`` queries),
http://www.forte.net/devdocs/api_resources/forte_api_v3.htm (hosts ``sandbox.forte.net/api/v3``
and ``api.forte.net/v3``, HTTP Basic ``access_id:secure_key`` plus
``X-Forte-Auth-Organization-Id``), https://www.forte.net/devdocs/reference/response_codes.htm
(A01 approved, U-codes), and ActiveMerchant's ``forte.rb`` (capture/void need the
``authorization_code``; refunds are ``action: reverse`` with ``original_transaction_id``).

- ``POST /organizations/{org}/locations/{loc}/transactions``: ``action`` sale, authorize or
  reverse; ``authorization_amount`` > 0 with at most two decimals; ``card.one_time_token``
  (single use) or ``paymethod_token`` (+ optional ``customer_token``); ``order_number``.
  Approved answers 201 with ``response.response_code`` A01; a decline 201 with
  ``response_type`` D; invalid requests 400 with ``response.response_desc``.
  Duplicate check: the same amount and token/paymethod within the window → ``U10``.
- ``PUT …/transactions/{trn}``: ``action`` capture (an authorized one, once) or void
  (authorized or not yet settled); the ``authorization_code`` must match.
- ``GET …/transactions/{trn}`` (404 when unknown) and ``GET …/transactions?filter=
  order_number+eq+'X'`` → ``{"results": [...]}``.
- ``POST …/customers`` → ``customer_token`` cst_; ``POST …/customers/{cst}/paymethods`` with
  ``card.one_time_token`` → ``paymethod_token`` mth_ and the masked card.
- Wrong Basic credentials or organization header → 401.

Forte.js test tokens: ``ott_visa`` (Visa …1111, 12/2030), ``ott_mastercard`` (…5454,
04/2031), ``ott_decline`` ("DECLINE", code 05), ``ott_insufficient`` ("INSUFFICIENT FUNDS",
51), ``ott_expired`` ("EXPIRED CARD", 54), ``ott_stolen`` ("PICK UP CARD", 04); anything
else or a reused token: 400 "Invalid one_time_token". Issuer decline codes are modelled.
Knobs: ``fail_next``, ``timeout_next(after_processing)``, ``settle()``; ``requests``.
"""

from __future__ import annotations

import base64
import json
import re
from decimal import Decimal, InvalidOperation
from typing import Any
from urllib.parse import unquote

import attrs
import httpx

ACCESS_ID = "fake-forte-access-id"
SECURE_KEY = "fake-forte-secure-key-0123456789"
ORG = "org_300005"
LOC = "loc_192642"
SANDBOX_HOST = "sandbox.forte.net"
LIVE_HOST = "api.forte.net"
_AMOUNT = re.compile(r"^\d{1,7}(\.\d{1,2})?$")


@attrs.frozen
class Card:
    number: str
    month: int
    year: int
    kind: str
    decline: tuple[str, str] | None = None  # (response_code, response_desc)


TOKENS = {
    "ott_visa": Card("4111111111111111", 12, 2030, "visa"),
    "ott_mastercard": Card("5454545454545454", 4, 2031, "mast"),
    "ott_decline": Card("4000000000000002", 12, 2030, "visa", ("05", "DECLINE")),
    "ott_insufficient": Card("4000000000000002", 12, 2030, "visa", ("51", "INSUFFICIENT FUNDS")),
    "ott_expired": Card("4000000000000002", 12, 2030, "visa", ("54", "EXPIRED CARD")),
    "ott_stolen": Card("4000000000000002", 12, 2030, "visa", ("04", "PICK UP CARD")),
}


@attrs.define
class Txn:
    id: str
    action: str
    amount: Decimal
    status: str
    order_number: str
    auth_code: str
    code: str
    desc: str
    source: str
    refunded: Decimal = Decimal(0)

    def body(self) -> dict[str, Any]:
        return {
            "transaction_id": self.id,
            "location_id": LOC,
            "organization_id": ORG,
            "action": self.action,
            "authorization_amount": float(self.amount),
            "authorization_code": self.auth_code,
            "status": self.status,
            "order_number": self.order_number,
            "response": {
                "environment": "sandbox",
                "response_type": "A" if self.code == "A01" else "D",
                "response_code": self.code,
                "response_desc": self.desc,
                "authorization_code": self.auth_code,
                "avs_result": "Y",
                "cvv_result": "M",
            },
        }


@attrs.define
class FakeForte:
    sandbox: bool = True
    requests: list[tuple[str, httpx.URL, dict[str, Any]]] = attrs.field(factory=list)
    transactions: dict[str, Txn] = attrs.field(factory=dict)
    customers: dict[str, dict[str, Card]] = attrs.field(factory=dict)
    spent: set[str] = attrs.field(factory=set)
    _n: int = 0
    _fail: int | None = None
    _timeout: str | None = None

    def fail_next(self, status: int = 500) -> None:
        self._fail = status

    def timeout_next(self, after_processing: bool = False) -> None:
        self._timeout = "after" if after_processing else "before"

    def settle(self) -> None:
        for txn in self.transactions.values():
            if txn.status == "ready":
                txn.status = "settled"

    def client(self) -> httpx.Client:
        return httpx.Client(transport=httpx.MockTransport(self.handler))

    def sent(self, method: str = "POST") -> list[dict[str, Any]]:
        return [b for m, _, b in self.requests if m == method]

    def handler(self, request: httpx.Request) -> httpx.Response:
        body: dict[str, Any] = json.loads(request.content) if request.content else {}
        self.requests.append((request.method, request.url, body))
        if self._timeout == "before":
            self._timeout = None
            raise httpx.ReadTimeout("fake Forte timed out", request=request)
        if self._fail:
            status, self._fail = self._fail, None
            return httpx.Response(status, text="<html>error</html>")
        host = SANDBOX_HOST if self.sandbox else LIVE_HOST
        prefix = (
            f"/api/v3/organizations/{ORG}/locations/{LOC}"
            if self.sandbox
            else (f"/v3/organizations/{ORG}/locations/{LOC}")
        )
        expected = "Basic " + base64.b64encode(f"{ACCESS_ID}:{SECURE_KEY}".encode()).decode()
        if (
            request.url.host != host
            or request.headers.get("authorization") != expected
            or request.headers.get("x-forte-auth-organization-id") != ORG
        ):
            return _answer(401, {"response": {"response_desc": "Authentication Failed"}})
        path = request.url.path
        if not path.startswith(prefix):
            return _answer(404, {"response": {"response_desc": "Not found"}})
        rest = path[len(prefix) :]
        response = self._route(request.method, rest, unquote(request.url.query.decode()), body)
        if self._timeout == "after":
            self._timeout = None
            raise httpx.ReadTimeout("fake Forte timed out after processing", request=request)
        return response

    def _route(self, method: str, rest: str, query: str, body: dict[str, Any]) -> httpx.Response:
        if rest == "/transactions" and method == "POST":
            if body.get("action") == "reverse":
                return self._reverse(body)
            return self._create(body)
        if rest == "/transactions" and method == "GET":
            match = re.fullmatch(r"filter=order_number eq '(.*)'", query.replace("+", " "))
            if not match:
                return _answer(400, {"response": {"response_desc": "Invalid filter"}})
            rows = [t.body() for t in self.transactions.values() if t.order_number == match[1]]
            return _answer(200, {"number_results": len(rows), "results": rows})
        if rest.startswith("/transactions/"):
            txn = self.transactions.get(rest.split("/")[2])
            if txn is None:
                return _answer(404, {"response": {"response_desc": "Transaction not found"}})
            if method == "GET":
                return _answer(200, txn.body())
            if method == "PUT":
                return self._update(txn, body)
        if rest == "/customers" and method == "POST":
            if not body.get("first_name") or not body.get("last_name"):
                return _answer(400, {"response": {"response_desc": "first_name is required"}})
            token = f"cst_{self._id()}"
            self.customers[token] = {}
            return _answer(201, {"customer_token": token, "response": {"response_code": "A01"}})
        match = re.fullmatch(r"/customers/(cst_[\w-]+)/paymethods", rest)
        if match and method == "POST":
            return self._add_paymethod(match[1], body)
        return _answer(404, {"response": {"response_desc": "Not found"}})

    def _add_paymethod(self, customer: str, body: dict[str, Any]) -> httpx.Response:
        methods = self.customers.get(customer)
        if methods is None:
            return _answer(404, {"response": {"response_desc": "Customer not found"}})
        card = self._spend(body)
        if card is None:
            return _answer(400, {"response": {"response_desc": "Invalid one_time_token"}})
        token = f"mth_{self._id()}"
        methods[token] = card
        return _answer(
            201,
            {
                "paymethod_token": token,
                "customer_token": customer,
                "card": {
                    "card_type": card.kind,
                    "masked_account_number": "****" + card.number[-4:],
                    "last_4_account_number": card.number[-4:],
                    "expire_month": card.month,
                    "expire_year": card.year,
                },
                "response": {"response_code": "A01", "response_desc": "Create Successful."},
            },
        )

    def _spend(self, body: dict[str, Any]) -> Card | None:
        card = body.get("card") if isinstance(body.get("card"), dict) else {}
        token = str(card.get("one_time_token", "")) if isinstance(card, dict) else ""
        if token not in TOKENS or token in self.spent:
            return None
        self.spent.add(token)
        return TOKENS[token]

    def _create(self, body: dict[str, Any]) -> httpx.Response:
        action = body.get("action")
        amount = _amount(body.get("authorization_amount"))
        if action not in ("sale", "authorize") or amount is None:
            return _answer(400, {"response": {"response_desc": "Invalid authorization_amount"}})
        source = str(body.get("paymethod_token") or (body.get("card") or {}).get("one_time_token"))
        for txn in self.transactions.values():
            if txn.source == source and txn.amount == amount and txn.code == "A01":
                return _answer(
                    400, {"response": {"response_code": "U10", "response_desc": "DUPLICATE"}}
                )
        if body.get("paymethod_token"):
            found = [
                m.get(str(body["paymethod_token"]))
                for c, m in self.customers.items()
                if body.get("customer_token") in (None, c)
            ]
            card = next((c for c in found if c is not None), None)
            if card is None:
                return _answer(400, {"response": {"response_desc": "Invalid paymethod_token"}})
        else:
            card = self._spend(body)
            if card is None:
                return _answer(400, {"response": {"response_desc": "Invalid one_time_token"}})
        code, desc = card.decline or ("A01", "TEST APPROVAL")
        status = (
            "declined" if card.decline else ("authorized" if action == "authorize" else "ready")
        )
        txn = Txn(
            f"trn_{self._id()}",
            str(action),
            amount,
            status,
            str(body.get("order_number", "")),
            "" if card.decline else f"{self._n:06d}",
            code,
            desc,
            source,
        )
        self.transactions[txn.id] = txn
        return _answer(201, txn.body())

    def _update(self, txn: Txn, body: dict[str, Any]) -> httpx.Response:
        if body.get("authorization_code") != txn.auth_code:
            return _answer(400, {"response": {"response_desc": "Invalid authorization_code"}})
        action = body.get("action")
        if action == "capture" and txn.status == "authorized":
            txn.status = "ready"
        elif action == "void" and txn.status in ("authorized", "ready"):
            txn.status = "voided"
        else:
            return _answer(
                400,
                {"response": {"response_code": "U14", "response_desc": "BAD TYPE FOR ORIG TRANS"}},
            )
        return _answer(200, {**txn.body(), "action": action})

    def _reverse(self, body: dict[str, Any]) -> httpx.Response:
        original = self.transactions.get(str(body.get("original_transaction_id")))
        amount = _amount(body.get("authorization_amount"))
        if original is None or original.status not in ("ready", "settled"):
            return _answer(
                400, {"response": {"response_code": "U13", "response_desc": "ORIG TRANS NOT FOUND"}}
            )
        if body.get("authorization_code") != original.auth_code:
            return _answer(400, {"response": {"response_desc": "Invalid authorization_code"}})
        if amount is None or amount > original.amount - original.refunded:
            return _answer(
                400, {"response": {"response_code": "U25", "response_desc": "INVALID AMOUNT"}}
            )
        original.refunded += amount
        txn = Txn(
            f"trn_{self._id()}", "reverse", amount, "ready", "", "", "A01", "TEST APPROVAL", ""
        )
        self.transactions[txn.id] = txn
        return _answer(201, txn.body())

    def _id(self) -> str:
        self._n += 1
        return f"{self._n:08x}-5c1e-4d0a-9b1f-{self._n:012x}"


def _amount(value: Any) -> Decimal | None:
    text = str(value) if isinstance(value, (str, int, float)) else ""
    if not _AMOUNT.match(text):
        return None
    try:
        amount = Decimal(text)
    except InvalidOperation:
        return None
    return amount if amount > 0 else None


def _answer(status: int, body: dict[str, Any]) -> httpx.Response:
    return httpx.Response(status, json=body)
