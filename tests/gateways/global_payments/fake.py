"""An in-memory fake of Global Payments' GP-API (``/ucp``), for ``httpx.MockTransport``.

Written from the GP-API reference (pages listed in
``payhub/adapters/gateways/global_payments/adapter.py``): ``POST /accesstoken`` checks
``app_id`` and
``secret`` = hex SHA-512(nonce + app key) and answers ``token``/``seconds_to_expire``; every
other call needs ``Authorization: Bearer <token>`` and ``X-GP-Version``. Transactions take
``amount`` as a string of minor units and move PREAUTHORIZED -> CAPTURED (capture, at most the
authorized amount) or REVERSED (reversal); a refund is a new transaction of type REFUND (at most
what is left). ``X-GP-Idempotency`` replays the first answer for the same key and body; the same
key with another body answers 409 DUPLICATE_ACTION. Errors are
``{"error_code", "detailed_error_code", "detailed_error_description"}``.

Fake-only choices (GP-API's exact codes for these are not public): an unknown or used
payment-method id answers 404 RESOURCE_NOT_FOUND naming ``payment_method.id``; an illegal move
answers 400 INVALID_TRANSACTION_ACTION.

Payment-method ids (what globalpayments.js hands out)::

    FakeGlobalPayments.single_use_token()   approved once (Visa ending 1111, 12/31)
    PMT_ok                                  approved, reusable
    PMT_decline_<code>                      DECLINED with payment_method.result = <code>
    anything else                           404 RESOURCE_NOT_FOUND

``fail_next()`` makes the next call answer 502 SYSTEM_ERROR_DOWNSTREAM; ``expire_tokens()``
makes issued access tokens answer 401 NOT_AUTHENTICATED.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from typing import Any

import httpx

from payhub.adapters.gateways.global_payments.adapter import GP_VERSION
from tests.gateways.contracts import ContractViolation
from tests.gateways.global_payments.contract import validate_request, validate_status

SANDBOX_HOST = "apis.sandbox.globalpay.com"
LIVE_HOST = "apis.globalpay.com"
APP_ID = "fakeGpApiAppId0123456789abcdef"
APP_KEY = "fakeAppKey01"
_CARD = {
    "brand": "VISA",
    "masked_number_last4": "XXXXXXXXXXXX1111",
    "expiry_month": "12",
    "expiry_year": "31",
}


class _Reply(Exception):
    def __init__(self, response: httpx.Response) -> None:
        super().__init__(response.status_code)
        self.response = response


def _error(status: int, code: str, detail: str, detailed_code: str = "40000") -> _Reply:
    return _Reply(
        httpx.Response(
            status,
            json={
                "error_code": code,
                "detailed_error_code": detailed_code,
                "detailed_error_description": detail,
            },
        )
    )


class FakeGlobalPayments:
    """One GP-API app on one environment: access tokens, transactions, payment methods."""

    def __init__(
        self, *, sandbox: bool = True, app_id: str = APP_ID, app_key: str = APP_KEY
    ) -> None:
        self.host = SANDBOX_HOST if sandbox else LIVE_HOST
        self.app_id = app_id
        self.app_key = app_key
        self.transactions: dict[str, dict[str, Any]] = {}
        self.methods: dict[str, dict[str, Any]] = {
            "PMT_ok": {"usage_mode": "MULTIPLE", "card": _CARD}
        }
        self.requests: list[httpx.Request] = []
        self.access_tokens: set[str] = set()
        # tokens asked with permissions (a pay page's PMT_POST_Create_Single): they may only
        # make payment methods, which globalpayments.js does in the browser, so the API
        # refuses them here
        self.limited_tokens: dict[str, list[str]] = {}
        self._replays: dict[str, tuple[bytes, httpx.Response]] = {}
        self._outages = 0
        self._ids = itertools.count(1)

    # --- test controls ---------------------------------------------------------------------

    def client(self) -> httpx.Client:
        return httpx.Client(transport=httpx.MockTransport(self.handler))

    def fail_next(self, times: int = 1) -> None:
        self._outages += times

    def expire_tokens(self) -> None:
        self.access_tokens.clear()

    def batch(self) -> None:
        """The day's batch closes: captured transactions read BATCHED from then on."""
        for tx in self.transactions.values():
            if tx["status"] == "CAPTURED":
                tx["status"] = "BATCHED"

    def single_use_token(self) -> str:
        token = f"PMT_{next(self._ids):08d}fresh"
        self.methods[token] = {"usage_mode": "SINGLE", "card": _CARD, "used": False}
        return token

    def bodies(self, method: str, path: str) -> list[dict[str, Any]]:
        return [
            json.loads(r.content)
            for r in self.requests
            if r.method == method and r.url.path == path and r.content
        ]

    def token_requests(self) -> int:
        return len([r for r in self.requests if r.url.path == "/ucp/accesstoken"])

    # --- HTTP ------------------------------------------------------------------------------

    def handler(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        try:
            response = self._handle(request)
        except _Reply as reply:
            return reply.response
        answer = response.json() if response.content else {}
        if response.is_success and isinstance(answer, dict) and "status" in answer:
            validate_status(answer["status"])  # the SDK's TransactionStatus values only
        return response

    def _handle(self, request: httpx.Request) -> httpx.Response:
        if self._outages:
            self._outages -= 1
            raise _error(
                502,
                "SYSTEM_ERROR_DOWNSTREAM",
                "Unable to process your request due to an error with a system down stream.",
                "50002",
            )
        if request.url.host != self.host:
            raise _error(401, "NOT_AUTHENTICATED", "Invalid app credentials", "40004")
        if request.headers.get("X-GP-Version") != GP_VERSION:
            raise _error(
                400, "MANDATORY_DATA_MISSING", "Mandatory header X-GP-Version missing", "40001"
            )
        path = request.url.path
        body: dict[str, Any] = json.loads(request.content) if request.content else {}
        try:  # what Global Payments' own SDK would send for the same operation
            raw = request.url.raw_path.decode().split("?")[0]  # keeps %2F inside a segment
            validate_request(request.method, raw.removeprefix("/ucp"), body)
        except ContractViolation as e:
            raise _error(400, "INVALID_REQUEST_DATA", str(e), "40213") from None
        if path == "/ucp/accesstoken" and request.method == "POST":
            return self._access_token(body)
        bearer = request.headers.get("Authorization", "")
        if not bearer.startswith("Bearer ") or bearer[7:] not in self.access_tokens:
            raise _error(401, "NOT_AUTHENTICATED", "Invalid access token", "40001")
        key = request.headers.get("X-GP-Idempotency")
        if key and request.method != "GET":
            seen = self._replays.get(key)
            if seen is not None:
                if seen[0] != request.content:
                    raise _error(
                        409,
                        "DUPLICATE_ACTION",
                        "Idempotency Key seen before: the request differs",
                        "40039",
                    )
                return seen[1]
        response = self._route(request.method, path, body)
        if key and request.method != "GET" and response.status_code < 500:
            self._replays[key] = (request.content, response)
        return response

    def _route(self, method: str, path: str, body: dict[str, Any]) -> httpx.Response:
        routes = [
            ("POST", r"/ucp/transactions", self._create),
            ("GET", r"/ucp/transactions/([^/]+)", self._get),
            ("POST", r"/ucp/transactions/([^/]+)/capture", self._capture),
            ("POST", r"/ucp/transactions/([^/]+)/refund", self._refund),
            ("POST", r"/ucp/transactions/([^/]+)/reversal", self._reversal),
            ("PATCH", r"/ucp/payment-methods/([^/]+)", self._edit_method),
        ]
        for route_method, pattern, action in routes:
            match = re.fullmatch(pattern, path)
            if match and route_method == method:
                return action(body, *match.groups())
        raise _error(404, "RESOURCE_NOT_FOUND", f"Resource not found: {method} {path}", "40008")

    def _access_token(self, body: dict[str, Any]) -> httpx.Response:
        nonce = str(body.get("nonce", ""))
        expected = hashlib.sha512((nonce + self.app_key).encode()).hexdigest()
        if body.get("app_id") != self.app_id or body.get("secret") != expected or not nonce:
            raise _error(
                403,
                "ACTION_NOT_AUTHORIZED",
                "Credentials not recognized to create access token.",
                "40004",
            )
        if body.get("grant_type") != "client_credentials":
            raise _error(
                400, "INVALID_REQUEST_DATA", "grant_type must be client_credentials", "40002"
            )
        token = f"tok{next(self._ids):06d}fakeaccess"
        permissions = body.get("permissions")
        if permissions is not None:
            if not isinstance(permissions, list) or not permissions:
                raise _error(400, "INVALID_REQUEST_DATA", "permissions: a list", "40002")
            self.limited_tokens[token] = [str(p) for p in permissions]
            return httpx.Response(200, json={"token": token, "type": "Bearer",
                                             "app_id": self.app_id,
                                             "seconds_to_expire": body.get("seconds_to_expire",
                                                                           86400)})  # fmt: skip
        self.access_tokens.add(token)
        return httpx.Response(
            200,
            json={
                "token": token,
                "type": "Bearer",
                "app_id": self.app_id,
                "seconds_to_expire": 86400,
            },
        )

    # --- transactions ----------------------------------------------------------------------

    @staticmethod
    def _amount(body: dict[str, Any]) -> int:
        raw = body.get("amount")
        if not isinstance(raw, str) or not raw.isdigit() or int(raw) <= 0:
            raise _error(
                400,
                "INVALID_REQUEST_DATA",
                "Invalid amount: a positive integer string of minor units",
                "40097",
            )
        return int(raw)

    def _answer(self, tx: dict[str, Any], status_code: int = 200) -> httpx.Response:
        shown = {k: v for k, v in tx.items() if not k.startswith("_")}
        return httpx.Response(status_code, json=shown)

    def _create(self, body: dict[str, Any], *_: str) -> httpx.Response:
        for field in (
            "account_name",
            "type",
            "channel",
            "amount",
            "currency",
            "country",
            "reference",
            "payment_method",
        ):
            if field not in body:
                raise _error(
                    400,
                    "MANDATORY_DATA_MISSING",
                    f"Request expects the following field {field}",
                    "40005",
                )
        if body["account_name"] != "transaction_processing":
            raise _error(
                400, "INVALID_REQUEST_DATA", "account_name is not valid for this app", "40041"
            )
        amount = self._amount(body)
        method_id = body["payment_method"].get("id", "")
        decline = re.fullmatch(r"PMT_decline_(\w+)", method_id)
        method = self.methods.get(method_id)
        if decline is None and (method is None or method.get("used")):
            raise _error(
                404,
                "RESOURCE_NOT_FOUND",
                "Payment method id (payment_method.id) not found",
                "40008",
            )
        tx_id = f"TRN_{next(self._ids):08d}fake"
        tx: dict[str, Any] = {
            "id": tx_id,
            "type": "SALE",
            "status": "",
            "channel": "CNP",
            "capture_mode": body.get("capture_mode", "AUTO"),
            "amount": str(amount),
            "currency": body["currency"],
            "country": body["country"],
            "reference": body["reference"],
            "payment_method": {
                "id": method_id,
                "result": "00",
                "message": "(00)[ test system ] Authorised",
            },
            "action": {"id": f"ACT_{tx_id}", "type": "AUTHORIZE", "result_code": "SUCCESS"},
            "_captured": 0,
            "_refunded": 0,
        }
        if decline:
            tx["status"] = "DECLINED"
            tx["payment_method"] = {
                "id": method_id,
                "result": decline.group(1),
                "message": f"({decline.group(1)}) DECLINED",
            }
            tx["action"]["result_code"] = "DECLINED"
        else:
            if method is not None and method["usage_mode"] == "SINGLE":
                method["used"] = True
            tx["payment_method"]["card"] = {**method["card"]} if method else {}
            later = tx["capture_mode"] == "LATER"
            tx["status"] = "PREAUTHORIZED" if later else "CAPTURED"
            tx["_captured"] = 0 if later else amount
        self.transactions[tx_id] = tx
        return self._answer(tx)

    def _tx(self, tx_id: str) -> dict[str, Any]:
        tx = self.transactions.get(tx_id)
        if tx is None:
            raise _error(404, "RESOURCE_NOT_FOUND", "Transaction not found", "40008")
        return tx

    def _get(self, body: dict[str, Any], tx_id: str) -> httpx.Response:
        return self._answer(self._tx(tx_id))

    def _capture(self, body: dict[str, Any], tx_id: str) -> httpx.Response:
        tx = self._tx(tx_id)
        amount = self._amount(body)
        if tx["status"] != "PREAUTHORIZED":
            raise _error(
                400,
                "INVALID_TRANSACTION_ACTION",
                f"Cannot CAPTURE a transaction with status {tx['status']}",
                "40090",
            )
        if amount > int(tx["amount"]):
            raise _error(
                400, "INVALID_REQUEST_DATA", "Capture amount exceeds the authorized amount", "40097"
            )
        tx["status"], tx["amount"], tx["_captured"] = "CAPTURED", str(amount), amount
        return self._answer(tx)

    def _reversal(self, body: dict[str, Any], tx_id: str) -> httpx.Response:
        tx = self._tx(tx_id)
        if tx["status"] != "PREAUTHORIZED":
            raise _error(
                400,
                "INVALID_TRANSACTION_ACTION",
                f"Cannot REVERSE a transaction with status {tx['status']}",
                "40090",
            )
        tx["status"] = "REVERSED"
        return self._answer(tx)

    def _refund(self, body: dict[str, Any], tx_id: str) -> httpx.Response:
        sale = self._tx(tx_id)
        amount = self._amount(body)
        if sale["status"] not in ("CAPTURED", "BATCHED") or sale["type"] != "SALE":
            raise _error(
                400,
                "INVALID_TRANSACTION_ACTION",
                f"Cannot REFUND a transaction with status {sale['status']}",
                "40090",
            )
        if amount > sale["_captured"] - sale["_refunded"]:
            raise _error(400, "INVALID_REQUEST_DATA", "Refund amount exceeds what is left", "40097")
        sale["_refunded"] += amount
        refund_id = f"TRN_{next(self._ids):08d}refund"
        refund = {
            "id": refund_id,
            "type": "REFUND",
            "status": "CAPTURED",
            "amount": str(amount),
            "currency": sale["currency"],
            "parent": tx_id,
            "_captured": 0,
            "_refunded": 0,
        }
        self.transactions[refund_id] = refund
        return self._answer(refund)

    def _edit_method(self, body: dict[str, Any], method_id: str) -> httpx.Response:
        method = self.methods.get(method_id)
        if method is None or method.get("used"):
            raise _error(404, "RESOURCE_NOT_FOUND", "Payment method id not found", "40008")
        if body.get("usage_mode") not in ("SINGLE", "MULTIPLE"):
            raise _error(
                400, "INVALID_REQUEST_DATA", "usage_mode must be SINGLE or MULTIPLE", "40002"
            )
        method["usage_mode"] = body["usage_mode"]
        return httpx.Response(
            200,
            json={
                "id": method_id,
                "usage_mode": method["usage_mode"],
                "card": method["card"],
                "action": {"type": "PAYMENT_METHOD_EDIT", "result_code": "SUCCESS"},
            },
        )
