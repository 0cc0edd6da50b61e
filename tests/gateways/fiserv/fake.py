"""An in-memory fake of Fiserv CommerceHub's REST API, for ``httpx.MockTransport``.

Written from CommerceHub's public reference and ActiveMerchant's ``commerce_hub.rb`` (pages
listed in ``payhub/adapters/gateways/fiserv/adapter.py``): every POST carries ``Api-Key``,
``Client-Request-Id``,
``Timestamp`` (epoch ms), ``Auth-Token-Type: HMAC`` and ``Authorization`` = base64
HMAC-SHA256(secret, key + request id + timestamp + body), checked here; a bad one answers 401
with ``error[{type: "APIM"}]``. A request resent with a ``Client-Request-Id`` already seen gets
the first answer back (a different body under the same id answers 400, fake-only wording).
Charges move AUTHORIZED -> CAPTURED (a charge with ``captureFlag`` and
``referenceTransactionDetails``, at most the authorized amount) or VOIDED (cancels); refunds are
transactions of their own, at most what is left. ``merchantDetails`` must name the account.

Hosted sessions (``source.sessionId``)::

    FakeFiserv.session()   approved once (VISA 1111, 12/2031), then unusable
    session-ok             approved, reusable
    session-decline-<NN>   DECLINED, hostResponseCode NN
    anything else          400 GATEWAY error on source.sessionId

Secure Data Capture (Fiserv/Commerce-Hub docs, "Security Credentials" and "iFrame v2
Integration Guide"): ``/payments-vas/v1/security/credentials`` with ``domains`` (``[{url}]``)
answers ``sessionId``, ``accessToken``, ``publicKey`` and ``keyId``; the session can be charged
once the iFrame submitted a card into it (``submit_card(sessionId, accessToken, number)``:
4111 1111 1111 1111 approves, 4000 0000 0000 0002 declines with hostResponseCode 05).

Tokens made by ``/payments-vas/v1/tokens`` are charged as ``PaymentToken``/TRANSARMOR.
``fail_next()`` makes the next call answer 500.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import itertools
import json
import re
from decimal import Decimal
from typing import Any

import httpx

API_KEY = "fakeCommerceHubApiKey0001"
API_SECRET = "fakeCommerceHubSecret0001"
MERCHANT_ID = "100008000003684"  # fails Luhn: see the open question in docs/gateways.md
TERMINAL_ID = "10000001"
SANDBOX_HOST = "connect-cert.fiservapps.com"
LIVE_HOST = "prod.api.fiservapps.com"
_CARD = {"last4": "1111", "scheme": "VISA", "expirationMonth": "12", "expirationYear": "2031"}


class _Reply(Exception):
    def __init__(self, response: httpx.Response) -> None:
        super().__init__(response.status_code)
        self.response = response


def _error(status: int, kind: str, code: str, message: str, field: str | None = None) -> _Reply:
    error: dict[str, Any] = {"type": kind, "code": code, "message": message}
    if field:
        error["field"] = field
    return _Reply(
        httpx.Response(
            status, json={"gatewayResponse": {"transactionState": "DECLINED"}, "error": [error]}
        )
    )


class FakeFiserv:
    """One CommerceHub merchant account: charges, refunds, cancels and TransArmor tokens."""

    def __init__(self, *, sandbox: bool = True) -> None:
        self.host = SANDBOX_HOST if sandbox else LIVE_HOST
        self.transactions: dict[str, dict[str, Any]] = {}
        self.tokens: dict[str, dict[str, str]] = {}
        self.requests: list[httpx.Request] = []
        self._sessions: dict[str, bool] = {"session-ok": True}
        self.credentials: dict[str, dict[str, Any]] = {}  # sessionId -> answer (+ domains)
        self._empty: set[str] = set()  # sessions no card was submitted into yet
        self._declining: set[str] = set()
        self._seen: dict[str, tuple[bytes, httpx.Response]] = {}
        self._outages = 0
        self._ids = itertools.count(1)

    def client(self) -> httpx.Client:
        return httpx.Client(transport=httpx.MockTransport(self.handler))

    def fail_next(self, times: int = 1) -> None:
        self._outages += times

    def session(self) -> str:
        sid = f"session-{next(self._ids):06d}"
        self._sessions[sid] = False  # single use
        return sid

    def submit_card(self, session_id: str, access_token: str, number: str) -> bool:
        """The iFrame's submission: the typed card into a credentials session (False for an
        unknown session, a wrong access token or a number that is no test card)."""
        made = self.credentials.get(session_id)
        if made is None or made["accessToken"] != access_token or session_id not in self._empty:
            return False
        if number not in ("4111111111111111", "4000000000000002"):
            return False
        self._empty.discard(session_id)
        if number == "4000000000000002":
            self._declining.add(session_id)
        return True

    def bodies(self, path: str) -> list[dict[str, Any]]:
        return [json.loads(r.content) for r in self.requests if r.url.path == path and r.content]

    def charges(self) -> list[dict[str, Any]]:
        return [t for t in self.transactions.values() if t["type"] == "CHARGE"]

    # --- HTTP ------------------------------------------------------------------------------

    def handler(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        try:
            return self._handle(request)
        except _Reply as reply:
            return reply.response

    def _handle(self, request: httpx.Request) -> httpx.Response:
        if self._outages:
            self._outages -= 1
            return httpx.Response(
                500,
                json={"error": [{"type": "GATEWAY", "code": "500", "message": "Internal error"}]},
            )
        h = request.headers
        body_text = request.content.decode()
        expected = base64.b64encode(
            hmac.new(
                API_SECRET.encode(),
                (
                    API_KEY + h.get("Client-Request-Id", "") + h.get("Timestamp", "") + body_text
                ).encode(),
                hashlib.sha256,
            ).digest()
        ).decode()
        if (
            request.url.host != self.host
            or h.get("Api-Key") != API_KEY
            or h.get("Auth-Token-Type") != "HMAC"
            or not h.get("Timestamp", "").isdigit()
            or not hmac.compare_digest(h.get("Authorization", ""), expected)
        ):
            raise _error(401, "APIM", "401", "Unauthorized: HMAC validation failed")
        request_id = h.get("Client-Request-Id", "")
        seen = self._seen.get(request_id)
        if seen is not None:
            if seen[0] != request.content:
                raise _error(
                    400, "GATEWAY", "104", "Client-Request-Id already used for another request"
                )
            return seen[1]
        body = json.loads(request.content)
        if body.get("merchantDetails") != {"merchantId": MERCHANT_ID, "terminalId": TERMINAL_ID}:
            raise _error(400, "GATEWAY", "101", "Invalid merchant details", "merchantDetails")
        routes = {
            "/ch/payments/v1/charges": self._charge,
            "/ch/payments/v1/refunds": self._refund,
            "/ch/payments/v1/cancels": self._cancel,
            "/ch/payments/v1/transaction-inquiry": self._inquiry,
            "/ch/payments-vas/v1/tokens": self._tokenize,
            "/ch/payments-vas/v1/security/credentials": self._credentials,
        }
        action = routes.get(request.url.path)
        if action is None:
            return httpx.Response(
                404, json={"error": [{"type": "GATEWAY", "code": "404", "message": "Not found"}]}
            )
        response = action(body)
        self._seen[request_id] = (request.content, response)
        return response

    def _credentials(self, body: dict[str, Any]) -> httpx.Response:
        domains = body.get("domains")
        if (
            not isinstance(domains, list)
            or not domains
            or not all(
                isinstance(d, dict) and str(d.get("url", "")).startswith(("https://", "http://"))
                for d in domains
            )
        ):
            raise _error(400, "GATEWAY", "109", "Invalid domains", "domains")
        sid = f"session-{next(self._ids):06d}"
        made = {
            "keyId": f"key-{sid}",
            "publicKey": base64.b64encode(f"public-key-{sid}".encode()).decode(),
            "keyLength": 392,
            "accessToken": f"token-{sid}",
            "sessionId": sid,
            "domains": domains,
            "accessTokenTimeToLive": 1800,
            "asymmetricEncryptionAlgorithm": "RSA",
        }
        self.credentials[sid] = made
        self._sessions[sid] = False  # single use
        self._empty.add(sid)
        return httpx.Response(201, json=made)

    # --- payments --------------------------------------------------------------------------

    @staticmethod
    def _amount(body: dict[str, Any]) -> tuple[Decimal, str]:
        amount = body.get("amount")
        if not isinstance(amount, dict) or not isinstance(amount.get("total"), int | float):
            raise _error(400, "GATEWAY", "102", "Amount is required", "amount.total")
        total = Decimal(str(amount["total"]))
        if total <= 0 or total != total.quantize(Decimal("0.01")):
            raise _error(400, "GATEWAY", "102", "Invalid amount", "amount.total")
        return total, str(amount.get("currency"))

    def _answer(self, tx: dict[str, Any], status: int = 201) -> httpx.Response:
        approved = tx["state"] != "DECLINED"
        return httpx.Response(
            status,
            json={
                "gatewayResponse": {
                    "transactionType": tx["type"],
                    "transactionState": tx["state"],
                    "transactionProcessingDetails": {
                        "transactionId": tx["id"],
                        "orderId": f"CHG{tx['id']}",
                    },
                },
                "source": {"sourceType": tx.get("sourceType", "PaymentSession"), "card": _CARD},
                "paymentReceipt": {
                    "approvedAmount": {"total": float(tx["amount"]), "currency": tx["currency"]},
                    "processorResponseDetails": {
                        "approvalStatus": "APPROVED" if approved else "DECLINED",
                        "responseCode": "000" if approved else "500",
                        "responseMessage": "APPROVAL" if approved else "DECLINED",
                        "hostResponseCode": tx.get("host", "00"),
                    },
                },
            },
        )

    def _new(self, kind: str, state: str, amount: Decimal, currency: str) -> dict[str, Any]:
        tx_id = f"{next(self._ids):012d}84a0"
        tx = {
            "id": tx_id,
            "type": kind,
            "state": state,
            "amount": amount,
            "currency": currency,
            "captured": Decimal(0),
            "refunded": Decimal(0),
        }
        self.transactions[tx_id] = tx
        return tx

    def _reference(self, body: dict[str, Any]) -> dict[str, Any]:
        ref = body.get("referenceTransactionDetails", {}).get("referenceTransactionId")
        tx = self.transactions.get(ref) if isinstance(ref, str) else None
        if tx is None:
            raise _error(
                400,
                "GATEWAY",
                "103",
                "Reference transaction not found",
                "referenceTransactionDetails.referenceTransactionId",
            )
        return tx

    def _charge(self, body: dict[str, Any]) -> httpx.Response:
        amount, currency = self._amount(body)
        capture = body.get("transactionDetails", {}).get("captureFlag") is True
        if "referenceTransactionDetails" in body:  # capture of an authorization
            auth = self._reference(body)
            if not capture or auth["state"] != "AUTHORIZED":
                raise _error(400, "GATEWAY", "105", f"Cannot capture a {auth['state']} transaction")
            if amount > auth["amount"]:
                raise _error(
                    400, "GATEWAY", "102", "Capture exceeds the authorized amount", "amount.total"
                )
            auth["state"], auth["amount"], auth["captured"] = "CAPTURED", amount, amount
            return self._answer(auth)
        source = body.get("source", {})
        kind = source.get("sourceType")
        if kind == "PaymentSession":
            sid = source.get("sessionId")
            decline = re.fullmatch(r"session-decline-(\w+)", str(sid))
            if decline:
                tx = self._new("CHARGE", "DECLINED", amount, currency)
                tx["host"] = decline.group(1)
                return self._answer(tx)
            if sid not in self._sessions or sid in self._empty:
                raise _error(
                    400, "GATEWAY", "106", "Invalid or expired session", "source.sessionId"
                )
            if not self._sessions[sid]:
                del self._sessions[sid]
            if sid in self._declining:
                tx = self._new("CHARGE", "DECLINED", amount, currency)
                tx["host"] = "05"
                return self._answer(tx)
        elif kind == "PaymentToken":
            if (
                source.get("tokenData") not in self.tokens
                or source.get("tokenSource") != "TRANSARMOR"
            ):
                raise _error(400, "GATEWAY", "107", "Invalid token", "source.tokenData")
        else:
            raise _error(400, "GATEWAY", "108", "Unsupported source type", "source.sourceType")
        tx = self._new("CHARGE", "CAPTURED" if capture else "AUTHORIZED", amount, currency)
        tx["sourceType"] = kind
        tx["captured"] = amount if capture else Decimal(0)
        return self._answer(tx)

    def _refund(self, body: dict[str, Any]) -> httpx.Response:
        charge = self._reference(body)
        amount, currency = self._amount(body)
        if charge["state"] != "CAPTURED" or amount > charge["captured"] - charge["refunded"]:
            raise _error(400, "GATEWAY", "109", "Refund exceeds what is left", "amount.total")
        charge["refunded"] += amount
        return self._answer(self._new("REFUND", "CAPTURED", amount, currency))

    def _cancel(self, body: dict[str, Any]) -> httpx.Response:
        auth = self._reference(body)
        if auth["state"] != "AUTHORIZED":
            raise _error(400, "GATEWAY", "105", f"Cannot cancel a {auth['state']} transaction")
        auth["state"] = "VOIDED"
        return self._answer(auth)

    def _inquiry(self, body: dict[str, Any]) -> httpx.Response:
        tx = self._reference(body)
        answered = self._answer(tx, 200)
        return httpx.Response(200, json=[answered.json()])

    def _tokenize(self, body: dict[str, Any]) -> httpx.Response:
        sid = body.get("source", {}).get("sessionId")
        if sid not in self._sessions or sid in self._empty:
            raise _error(400, "GATEWAY", "106", "Invalid or expired session", "source.sessionId")
        if not self._sessions[sid]:
            del self._sessions[sid]
        token = f"{next(self._ids):012d}1111"
        self.tokens[token] = dict(_CARD)
        return httpx.Response(
            201,
            json={
                "gatewayResponse": {
                    "transactionType": "TOKENIZE",
                    "transactionState": "AUTHORIZED",
                },
                "source": {"sourceType": "PaymentSession", "card": _CARD},
                "paymentTokens": [
                    {
                        "tokenData": token,
                        "tokenSource": "TRANSARMOR",
                        "tokenResponseCode": "000",
                        "tokenResponseDescription": "SUCCESS",
                    }
                ],
            },
        )
