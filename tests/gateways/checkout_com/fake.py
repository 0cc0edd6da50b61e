"""An in-memory fake of the slice of Checkout.com's API payhub uses, for ``httpx.MockTransport``.

Written from Checkout.com's public reference (https://api-reference.checkout.com/): Bearer
secret keys (401 with an empty body when wrong), ``POST /payments`` with ``source`` token or id,
``GET /payments/{id}`` with ``balances``, ``/captures``, ``/refunds``, ``/voids`` answered 202
with an ``action_id`` (403/422 ``action_not_allowed``-style refusals when the payment's state
forbids it), ``POST /customers``, ``POST /instruments``; 422 errors as ``{request_id,
error_type, error_codes}``; ``Cko-Idempotency-Key`` replays the first answer
(https://www.checkout.com/docs/developer-resources/api/idempotency). Declines follow the
sandbox's amount triggers (https://www.checkout.com/docs/developer-resources/testing/simulate-declines
: the last digits of the amount choose the response code, e.g. 12051 -> 20051).

Checkout.com works asynchronously, and so does this fake: a ``capture: true`` payment is
answered 201 ``Authorized`` (the capture follows), and captures, refunds and voids are answered
202 "accepted". What ``GET /payments/{id}`` shows changes only when ``settle()`` runs (Checkout.com
finishing its work); what a new action may do is judged against the state after everything
accepted so far, as Checkout.com's ``available_to_*`` balances are.

Every request first passes ``tests/gateways/checkout_com/contract`` (the SDK's request classes):
a body the SDK does not model is answered 422 ``request_invalid`` and kept in ``violations``.

``token()`` makes a single-use Frames token (``tok_…``); ``fail_next(status)`` fails the next call.
"""

from __future__ import annotations

import copy
import itertools
import json
import re
from typing import Any

import httpx

from tests.gateways.checkout_com.contract.validator import validate
from tests.gateways.contracts import ContractViolation

SANDBOX_KEY = "sk_sbox_payhubfakekey"
LIVE_KEY = "sk_payhubfakelivekey"
HOSTS = {"api.sandbox.checkout.com": False, "api.checkout.com": True}
# amount in minor units -> (response_code, summary): the sandbox's decline triggers.
DECLINES = {
    5: ("20005", "Declined - Do Not Honour"),
    12051: ("20051", "Insufficient Funds"),
    12054: ("20054", "Expired Card"),
    12082: ("20082", "Invalid CVV"),
    12059: ("20059", "Suspected Fraud"),
    12091: ("20091", "Issuer Unavailable"),
}


class ApiError(Exception):
    def __init__(self, status: int, *codes: str) -> None:
        super().__init__(status)
        self.status, self.codes = status, list(codes)


class FakeCheckoutCom:
    def __init__(self) -> None:
        self.keys = {SANDBOX_KEY: False, LIVE_KEY: True}
        self.requests: list[httpx.Request] = []
        self.tokens: dict[str, dict[str, Any]] = {}
        self.payments: dict[str, dict[str, Any]] = {}  # the state once all work is done
        self.shown: dict[str, dict[str, Any]] = {}  # what GET answers until settle()
        self.violations: list[str] = []
        self.customers: dict[str, dict[str, Any]] = {}
        self.instruments: dict[str, dict[str, Any]] = {}
        self._idempotency: dict[tuple[str, str], tuple[int, dict[str, Any]]] = {}
        self._fail_next: int | None = None
        self._ids = itertools.count(1)

    def fail_next(self, status: int) -> None:
        self._fail_next = status

    def token(self, last4: str = "4242", scheme: str = "Visa") -> str:
        token = f"tok_{next(self._ids):026d}"
        self.tokens[token] = {
            "last4": last4,
            "scheme": scheme,
            "expiry_month": 6,
            "expiry_year": 2030,
        }
        return token

    def bodies(self, path: str) -> list[dict[str, Any]]:
        return [
            json.loads(r.content)
            for r in self.requests
            if r.url.path == path and r.method == "POST"
        ]

    def settle(self) -> None:
        """Checkout.com finishes the captures, refunds and voids it accepted."""
        for payment_id, payment in self.payments.items():
            self.shown[payment_id] = copy.deepcopy(payment)

    def _id(self, prefix: str) -> str:
        return f"{prefix}_{next(self._ids):026d}"

    def handler(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        request_id = self._id("req")
        headers = {"Cko-Request-Id": request_id}
        try:
            if self._fail_next is not None:
                status, self._fail_next = self._fail_next, None
                return httpx.Response(status, headers=headers)
            live = HOSTS.get(request.url.host)
            auth = request.headers.get("Authorization", "")
            key = auth[7:] if auth.startswith("Bearer ") else ""
            if live is None or self.keys.get(key) != live:
                return httpx.Response(401, headers=headers)
            body = json.loads(request.content) if request.content else {}
            try:
                validate(request.method, request.url.path, body or None)
            except ContractViolation as violation:
                self.violations.append(str(violation))
                raise ApiError(422, "request_invalid") from None
            idem = request.headers.get("Cko-Idempotency-Key")
            if request.method == "POST" and idem:
                saved = self._idempotency.get((key, idem))
                if saved is not None:
                    return httpx.Response(saved[0], json=saved[1], headers=headers)
            status, answer = self._route(request.method, request.url.path, body, live)
            if request.method == "POST" and idem:
                self._idempotency[(key, idem)] = (status, answer)
        except ApiError as e:
            if e.status in (403, 404):  # "Capture/Refund/Void not allowed", "Payment not found"
                return httpx.Response(e.status, headers=headers)
            return httpx.Response(
                e.status,
                json={
                    "request_id": request_id,
                    "error_type": "request_invalid" if e.status == 422 else "action_failure",
                    "error_codes": e.codes,
                },
                headers=headers,
            )
        return httpx.Response(status, json=answer, headers=headers)

    def _route(
        self, method: str, path: str, body: dict[str, Any], live: bool
    ) -> tuple[int, dict[str, Any]]:
        if (method, path) == ("POST", "/payments"):
            return self._pay(body, live)
        if (method, path) == ("POST", "/customers"):
            if not isinstance(body.get("email"), str):
                raise ApiError(422, "customer_email_required")
            customer = self._id("cus")
            self.customers[customer] = {**body, "live": live}
            return 201, {"id": customer}
        if (method, path) == ("POST", "/instruments"):
            return self._instrument(body, live)
        match = re.fullmatch(r"/payments/([^/]+)(?:/(captures|refunds|voids))?", path)
        if match is None:
            raise ApiError(404)
        payment = self.payments.get(match.group(1))
        if payment is None or payment["live"] != live:
            raise ApiError(404)
        if method == "GET" and match.group(2) is None:
            return 200, _details(self.shown[payment["id"]])
        if method == "POST" and match.group(2):
            return self._act(payment, match.group(2), body)
        raise ApiError(404)

    def _pay(self, body: dict[str, Any], live: bool) -> tuple[int, dict[str, Any]]:
        amount, currency = body.get("amount"), body.get("currency")
        if not isinstance(amount, int) or amount < 0:
            raise ApiError(422, "amount_invalid")
        if not isinstance(currency, str) or not re.fullmatch(r"[A-Z]{3}", currency):
            raise ApiError(422, "currency_invalid")
        source = body.get("source") or {}
        if source.get("type") == "token":
            card = self.tokens.pop(source.get("token"), None)
            if card is None:
                raise ApiError(422, "token_invalid")
        elif source.get("type") == "id":
            instrument = self.instruments.get(source.get("id"))
            if instrument is None or instrument["live"] != live:
                raise ApiError(422, "source_id_invalid")
            if (
                body.get("merchant_initiated") is not True
                or body.get("payment_type") != "Unscheduled"
            ):
                raise ApiError(422, "payment_type_invalid")
            card = instrument["card"]
        else:
            raise ApiError(422, "source_type_required")
        payment_id = self._id("pay")
        decline = DECLINES.get(amount)
        capture = body.get("capture", True)
        payment: dict[str, Any] = {
            "id": payment_id,
            "live": live,
            "amount": amount,
            "currency": currency,
            "reference": body.get("reference"),
            "approved": decline is None,
            "status": "Declined" if decline else ("Captured" if capture else "Authorized"),
            "response_code": decline[0] if decline else "10000",
            "response_summary": decline[1] if decline else "Approved",
            "source": {"type": "card", **card},
            "balances": {
                "total_authorized": 0 if decline else amount,
                "total_captured": amount if capture and not decline else 0,
                "total_refunded": 0,
                "total_voided": 0,
            },
        }
        self.payments[payment_id] = payment
        # Answered as the reference's example: a capture:true payment is ``Authorized`` now
        # and captured later; the answer carries no balances.
        now = copy.deepcopy(payment)
        if not decline:
            now["status"] = "Authorized"
            now["balances"]["total_captured"] = 0
        self.shown[payment_id] = now
        answer = {k: v for k, v in _public(now).items() if k != "balances"}
        answer.update(
            action_id=self._id("act"),
            auth_code="" if decline else "770687",
            processed_on="2026-11-25T00:00:00Z",
            risk={"flagged": False},
            _links={"self": {"href": f"https://api.sandbox.checkout.com/payments/{payment_id}"}},
        )
        return 201, answer

    def _act(
        self, payment: dict[str, Any], kind: str, body: dict[str, Any]
    ) -> tuple[int, dict[str, Any]]:
        balances = payment["balances"]
        amount = body.get("amount")
        if kind == "voids":
            if payment["status"] != "Authorized":
                raise ApiError(403, "action_not_allowed")
            payment["status"] = "Voided"
            balances["total_voided"] = balances["total_authorized"]
        elif kind == "captures":
            amount = balances["total_authorized"] if amount is None else amount
            if payment["status"] != "Authorized" or not 0 < amount <= balances["total_authorized"]:
                raise ApiError(
                    403 if payment["status"] != "Authorized" else 422,
                    "capture_amount_invalid"
                    if payment["status"] == "Authorized"
                    else "action_not_allowed",
                )
            balances["total_captured"] = amount
            payment["status"] = (
                "Captured" if amount == balances["total_authorized"] else "Partially Captured"
            )
        else:
            left = balances["total_captured"] - balances["total_refunded"]
            amount = left if amount is None else amount
            if payment["status"] not in ("Captured", "Partially Captured", "Partially Refunded"):
                raise ApiError(403, "action_not_allowed")
            if not 0 < amount <= left:
                raise ApiError(422, "refund_amount_exceeds_balance")
            balances["total_refunded"] += amount
            payment["status"] = "Refunded" if amount == left else "Partially Refunded"
        return 202, {"action_id": self._id("act"), "reference": body.get("reference")}

    def _instrument(self, body: dict[str, Any], live: bool) -> tuple[int, dict[str, Any]]:
        if body.get("type") != "token":
            raise ApiError(422, "instrument_type_invalid")
        card = self.tokens.pop(body.get("token"), None)
        if card is None:
            raise ApiError(422, "token_invalid")
        customer = (body.get("customer") or {}).get("id")
        if customer not in self.customers:
            raise ApiError(422, "customer_not_found")
        instrument = self._id("src")
        self.instruments[instrument] = {"card": card, "customer": customer, "live": live}
        return 201, {"id": instrument, "type": "card", "customer": {"id": customer}, **card}


def _public(payment: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in payment.items() if k != "live"}


def _details(payment: dict[str, Any]) -> dict[str, Any]:
    """``GET /payments/{id}``: the payment with its balances, as the reference shows them."""
    answer = _public(payment)
    balances = dict(payment["balances"])
    authorized, captured = balances["total_authorized"], balances["total_captured"]
    refunded = balances["total_refunded"]
    open_auth = payment["status"] == "Authorized"
    balances.update(
        available_to_capture=authorized - captured if open_auth else 0,
        available_to_void=authorized if open_auth else 0,
        available_to_refund=captured - refunded,
    )
    answer.update(balances=balances, payment_type="Regular", requested_on="2026-11-25T00:00:00Z")
    return answer
