"""An in-memory fake of CyberSource's REST API, for ``httpx.MockTransport``.

Written from CyberSource's public reference (the pages are listed in
``payhub/adapters/gateways/cybersource/adapter.py``):

- HTTP Signature: every request carries ``v-c-merchant-id``, ``Date``, ``Host`` and
  ``Signature: keyid="…", algorithm="HmacSHA256", headers="host date request-target [digest]
  v-c-merchant-id", signature="…"``; POSTs also ``Digest: SHA-256=<base64 sha256(body)>``. The
  fake recomputes the signature with the shared secret (base64, decoded for the HMAC) and answers
  401 ``{"response": {"rmsg": "Authentication Failed"}}`` when anything is off (Getting Started,
  HTTP Signature Authentication).
- Payments ``POST /pts/v2/payments`` (201 ``status`` AUTHORIZED / DECLINED with
  ``errorInformation.reason``; 400 INVALID_REQUEST with ``reason`` and ``details[].field``),
  captures (201 PENDING), reversals (201 REVERSED), refunds through the payment (a sale) or
  through the capture (a separately captured authorization), as ``RefundApi`` documents.
- Transaction Details ``GET /tss/v2/transactions/{id}`` (``applicationInformation.applications``
  with ics_auth / ics_bill / ics_auth_reversal / ics_credit, ``rCode``; the original payment's
  ``_links.relatedTransactions`` lists its follow-ons) and Search ``POST /tss/v2/searches``
  (``query: "clientReferenceInformation.code:…"``, ``_embedded.transactionSummaries``).
- TMS: ``actionList: ["TOKEN_CREATE"]`` on an authorization returns
  ``tokenInformation.customer.id``/``paymentInstrument.id``;
  ``GET /tms/v2/customers/{customerId}/payment-instruments/{id}`` gives ``card`` and the masked
  number under ``_embedded.instrumentIdentifier.card.number``.

Fake-only choices (CyberSource's exact texts for these are not public): a second capture or a
refund beyond what is left answers 400 INVALID_REQUEST / INVALID_DATA; a used, expired or
unknown transient token answers 400 INVALID_DATA on ``tokenInformation.transientTokenJwt``.

Transient tokens (Microform JWTs)::

    FakeCyberSource.transient_token()   approved once (Visa 4111…1111, 12/2031), then unusable
    token("ok")                         approved, reusable
    token("insufficient")               201 DECLINED INSUFFICIENT_FUND
    token("expired")                    201 DECLINED EXPIRED_CARD
    token("cvn")                        201 DECLINED CVN_NOT_MATCH
    token("stolen")                     201 DECLINED STOLEN_LOST_CARD
    token("declined")                   201 DECLINED PROCESSOR_DECLINED
    token("issuer-down")                201 DECLINED ISSUER_UNAVAILABLE
    token("review")                     201 AUTHORIZED_PENDING_REVIEW
    anything else                       400 INVALID_DATA on tokenInformation.transientTokenJwt

``fail_next()`` makes the next call answer 502 SERVER_ERROR / SYSTEM_ERROR.
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

from payhub.adapters.gateways.cybersource.adapter import LIVE_HOST, SANDBOX_HOST
from tests.gateways.contracts import ContractViolation
from tests.gateways.cybersource.contract import validate_answer, validate_request

MERCHANT_ID = "payhub_test_merchant"
KEY_ID = "08c94330-f618-42a3-b09d-e1e43be5efda"
SECRET = base64.b64encode(b"fake-shared-secret-for-cybersource!").decode()

_DECLINES = {
    "insufficient": "INSUFFICIENT_FUND",
    "expired": "EXPIRED_CARD",
    "cvn": "CVN_NOT_MATCH",
    "stolen": "STOLEN_LOST_CARD",
    "declined": "PROCESSOR_DECLINED",
    "issuer-down": "ISSUER_UNAVAILABLE",
}


def token(name: str) -> str:
    """A transient-token-shaped JWT the fake recognises by name."""
    payload = base64.urlsafe_b64encode(json.dumps({"jti": name}).encode()).decode().rstrip("=")
    return f"eyJraWQiOiJmYWtlIiwiYWxnIjoiUlMyNTYifQ.{payload}.c2lnbmF0dXJl"


def _name_of(jwt: str) -> str | None:
    parts = jwt.split(".")
    if len(parts) != 3:
        return None
    try:
        padded = parts[1] + "=" * (-len(parts[1]) % 4)
        jti = json.loads(base64.urlsafe_b64decode(padded)).get("jti")
    except ValueError:
        return None
    return jti if isinstance(jti, str) else None


class _Reply(Exception):
    def __init__(self, response: httpx.Response) -> None:
        super().__init__(response.status_code)
        self.response = response


def _invalid(reason: str, message: str, field: str | None = None) -> _Reply:
    body: dict[str, Any] = {
        "submitTimeUtc": "2026-11-23T10:00:00Z",
        "status": "INVALID_REQUEST",
        "reason": reason,
        "message": message,
    }
    if field:
        body["details"] = [{"field": field, "reason": reason}]
    return _Reply(httpx.Response(400, json=body))


class FakeCyberSource:
    """One CyberSource merchant ID in one environment: payments, their follow-ons and TMS."""

    def __init__(
        self,
        *,
        sandbox: bool = True,
        merchant_id: str = MERCHANT_ID,
        key_id: str = KEY_ID,
        secret: str = SECRET,
    ) -> None:
        self.host = SANDBOX_HOST if sandbox else LIVE_HOST
        self.merchant_id = merchant_id
        self.key_id = key_id
        self.secret = base64.b64decode(secret)
        self.transactions: dict[str, dict[str, Any]] = {}
        self.customers: dict[str, dict[str, Any]] = {}
        self.instruments: dict[str, dict[str, Any]] = {}
        self.requests: list[httpx.Request] = []
        self.capture_contexts: list[str] = []  # Microform capture contexts issued
        self._fresh: set[str] = set()
        self._used: set[str] = set()
        self._outages = 0
        self._ids = itertools.count(7000000001)

    # --- test controls ---------------------------------------------------------------------

    def client(self) -> httpx.Client:
        return httpx.Client(transport=httpx.MockTransport(self.handler))

    def fail_next(self, times: int = 1) -> None:
        self._outages += times

    def transient_token(self) -> str:
        """A single-use Microform token, as the browser would hand out."""
        jwt = token(f"fresh-{next(self._ids)}")
        self._fresh.add(jwt)
        return jwt

    def bodies(self, method: str, path: str) -> list[dict[str, Any]]:
        return [
            json.loads(r.content)
            for r in self.requests
            if r.method == method and r.url.path == path and r.content
        ]

    def payments(self) -> list[dict[str, Any]]:
        """The payments (authorizations and sales), oldest first."""
        return [t for t in self.transactions.values() if "ics_auth" in t["apps"]]

    # --- HTTP ------------------------------------------------------------------------------

    def handler(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        try:
            response = self._handle(request)
        except _Reply as reply:
            return reply.response
        if response.is_success and response.headers.get("content-type") == "application/jwt":
            validate_answer(request.method, request.url.path, response.text)
        elif response.is_success:  # answers in the SDK's response models
            validate_answer(request.method, request.url.path, response.json())
        return response

    def _handle(self, request: httpx.Request) -> httpx.Response:
        if self._outages:
            self._outages -= 1
            return httpx.Response(
                502,
                json={
                    "status": "SERVER_ERROR",
                    "reason": "SYSTEM_ERROR",
                    "message": "Error - General system failure.",
                },
            )
        self._authenticate(request)
        method, path = request.method, request.url.path
        body: dict[str, Any] = {}
        if method == "POST":
            try:
                body = json.loads(request.content)
            except ValueError:
                raise _invalid("INVALID_DATA", "The body is not JSON.") from None
        try:  # the SDK's endpoints and request models: what CyberSource parses against
            validate_request(method, path, body if method == "POST" else None)
        except ContractViolation as e:
            raise _invalid("INVALID_DATA", str(e)) from None
        routes = [
            ("POST", r"/pts/v2/payments", self._payment),
            ("POST", r"/pts/v2/payments/(\d+)/captures", self._capture),
            ("POST", r"/pts/v2/payments/(\d+)/reversals", self._reversal),
            ("POST", r"/pts/v2/payments/(\d+)/refunds", self._refund_payment),
            ("POST", r"/pts/v2/captures/(\d+)/refunds", self._refund_capture),
            ("GET", r"/tss/v2/transactions/([^/]+)", self._details),
            ("POST", r"/tss/v2/searches", self._search),
            ("GET", r"/tms/v2/customers/([^/]+)/payment-instruments/([^/]+)", self._instrument),
            ("POST", r"/microform/v2/sessions", self._capture_context),
        ]
        for route_method, pattern, action in routes:
            match = re.fullmatch(pattern, path)
            if match and method == route_method:
                return action(body, *match.groups())
        return httpx.Response(404, json={"message": "Resource not found"})

    def _capture_context(self, body: dict[str, Any]) -> httpx.Response:
        """Microform's capture context: a JWT (application/jwt) for the target origins; the
        fake signs nothing, it keeps what it issued so a test's Microform can check it."""
        origins = body.get("targetOrigins")
        if not isinstance(origins, list) or not origins or body.get("clientVersion") != "v2.0":
            raise _invalid("MISSING_FIELD", "targetOrigins and clientVersion v2.0 are required")
        claims = {"flx": {"data": {"targetOrigins": origins}}, "n": len(self.capture_contexts)}
        part = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
        jwt = f"eyJraWQiOiJmYWtlIiwiYWxnIjoiUlMyNTYifQ.{part}.fakesignature"
        self.capture_contexts.append(jwt)
        return httpx.Response(201, text=jwt, headers={"content-type": "application/jwt"})

    def _authenticate(self, request: httpx.Request) -> None:
        failed = _Reply(httpx.Response(401, json={"response": {"rmsg": "Authentication Failed"}}))
        h = request.headers
        if request.url.host != self.host or h.get("Host") != self.host:
            raise failed
        if h.get("v-c-merchant-id") != self.merchant_id or not h.get("Date"):
            raise failed
        params = dict(re.findall(r'(\w+)="([^"]*)"', h.get("Signature", "")))
        names = ["host", "date", "request-target"]
        if request.method == "POST":
            digest = (
                "SHA-256=" + base64.b64encode(hashlib.sha256(request.content).digest()).decode()
            )
            if h.get("Digest") != digest:
                raise failed
            names.append("digest")
        names.append("v-c-merchant-id")
        if params.get("keyid") != self.key_id or params.get("algorithm") != "HmacSHA256":
            raise failed
        if params.get("headers") != " ".join(names):
            raise failed
        values = {
            "host": self.host,
            "date": h["Date"],
            "request-target": f"{request.method.lower()} {request.url.raw_path.decode()}",
            "digest": h.get("Digest", ""),
            "v-c-merchant-id": self.merchant_id,
        }
        text = "\n".join(f"{n}: {values[n]}" for n in names)
        expected = base64.b64encode(
            hmac.new(self.secret, text.encode(), hashlib.sha256).digest()
        ).decode()
        if not hmac.compare_digest(params.get("signature", ""), expected):
            raise failed

    # --- payments --------------------------------------------------------------------------

    def _new(
        self, apps: dict[str, str], amount: Decimal, currency: str, code: str
    ) -> dict[str, Any]:
        tx_id = f"698{next(self._ids)}{len(self.transactions):09d}"
        tx: dict[str, Any] = {
            "id": tx_id,
            "apps": apps,
            "amount": amount,
            "currency": currency,
            "code": code,
            "related": [],
            "captured": Decimal(0),
            "refunded": Decimal(0),
            "reversed": False,
            "parent": None,
        }
        self.transactions[tx_id] = tx
        return tx

    @staticmethod
    def _money(body: dict[str, Any], *path: str) -> tuple[Decimal, str]:
        node: Any = body
        for key in path:
            node = node.get(key) if isinstance(node, dict) else None
        if not isinstance(node, dict):
            raise _invalid(
                "MISSING_FIELD",
                "Declined - The request is missing one or more fields",
                ".".join(path),
            )
        raw, currency = node.get("totalAmount"), node.get("currency", "USD")
        if not isinstance(raw, str) or not re.fullmatch(r"\d+(\.\d{1,2})?", raw):
            raise _invalid(
                "INVALID_DATA",
                "Declined - One or more fields in the request contains invalid data",
                ".".join((*path, "totalAmount")),
            )
        return Decimal(raw), str(currency)

    def _payment(self, body: dict[str, Any]) -> httpx.Response:
        amount, currency = self._money(body, "orderInformation", "amountDetails")
        code = body.get("clientReferenceInformation", {}).get("code", "")
        processing = body.get("processingInformation", {})
        capture = processing.get("capture") is True
        card: dict[str, Any]
        instrument_id: str | None = None
        jwt = body.get("tokenInformation", {}).get("transientTokenJwt")
        saved = body.get("paymentInformation", {}).get("paymentInstrument", {}).get("id")
        if isinstance(jwt, str):
            name = _name_of(jwt)
            fresh = jwt in self._fresh
            if not (fresh or name in _DECLINES or name in ("ok", "review")):
                raise _invalid(
                    "INVALID_DATA",
                    "Declined - One or more fields in the request contains invalid data",
                    "tokenInformation.transientTokenJwt",
                )
            if fresh:
                self._fresh.discard(jwt)
                self._used.add(jwt)
            if name in _DECLINES:
                tx = self._new({"ics_auth": "0"}, amount, currency, code)
                return httpx.Response(
                    201,
                    json={
                        "id": tx["id"],
                        "status": "DECLINED",
                        "clientReferenceInformation": {"code": code},
                        "errorInformation": {
                            "reason": _DECLINES[name],
                            "message": f"Decline - {_DECLINES[name].replace('_', ' ').lower()}",
                        },
                    },
                )
            card = {"number": "411111XXXXXX1111", "type": "001", "month": "12", "year": "2031"}
            status = "AUTHORIZED_PENDING_REVIEW" if name == "review" else "AUTHORIZED"
        elif isinstance(saved, str):
            customer = body["paymentInformation"].get("customer", {}).get("id")
            instrument = self.instruments.get(saved)
            if instrument is None or instrument["customer"] != customer:
                raise _invalid(
                    "INVALID_DATA",
                    "Declined - One or more fields in the request contains invalid data",
                    "paymentInformation.paymentInstrument.id",
                )
            card, instrument_id, status = instrument["card"], saved, "AUTHORIZED"
        else:
            raise _invalid(
                "MISSING_FIELD",
                "Declined - The request is missing one or more fields",
                "paymentInformation.card.number",
            )
        apps = {"ics_auth": "1"}
        if capture:
            apps["ics_bill"] = "1"
        tx = self._new(apps, amount, currency, code)
        tx["captured"] = amount if capture else Decimal(0)
        answer: dict[str, Any] = {
            "id": tx["id"],
            "status": status,
            "clientReferenceInformation": {"code": code},
            "orderInformation": {
                "amountDetails": {"authorizedAmount": str(amount), "currency": currency}
            },
            "processorInformation": {"approvalCode": "831000", "responseCode": "00"},
        }
        if "TOKEN_CREATE" in processing.get("actionList", []):
            answer["tokenInformation"] = self._create_tokens(body, processing, card)
        elif instrument_id:
            answer["tokenInformation"] = {"paymentInstrument": {"id": instrument_id}}
        return httpx.Response(201, json=answer)

    def _create_tokens(
        self, body: dict[str, Any], processing: dict[str, Any], card: dict[str, Any]
    ) -> dict[str, Any]:
        types = processing.get("actionTokenTypes", [])
        tokens: dict[str, Any] = {}
        if "customer" in types:
            customer_id = f"{next(self._ids):032X}"
            self.customers[customer_id] = {
                "merchantCustomerId": body.get("buyerInformation", {}).get("merchantCustomerId"),
                "email": body.get("orderInformation", {}).get("billTo", {}).get("email"),
            }
            tokens["customer"] = {"id": customer_id}
        else:
            customer_id = body.get("paymentInformation", {}).get("customer", {}).get("id")
            if customer_id not in self.customers:
                raise _invalid(
                    "INVALID_DATA",
                    "Declined - One or more fields in the request contains invalid data",
                    "paymentInformation.customer.id",
                )
        if "paymentInstrument" in types:
            instrument_id = f"{next(self._ids):032X}"
            self.instruments[instrument_id] = {"customer": customer_id, "card": card}
            tokens["paymentInstrument"] = {"id": instrument_id}
        return tokens

    def _payment_of(self, payment_id: str) -> dict[str, Any]:
        tx = self.transactions.get(payment_id)
        if tx is None or tx["parent"] is not None:
            raise _Reply(
                httpx.Response(
                    404,
                    json={
                        "status": "NOT_FOUND",
                        "message": "The requested resource does not exist",
                    },
                )
            )
        return tx

    def _follow_on(
        self, parent: dict[str, Any], app: str, amount: Decimal, body: dict[str, Any]
    ) -> dict[str, Any]:
        code = body.get("clientReferenceInformation", {}).get("code", "")
        tx = self._new({app: "1"}, amount, parent["currency"], code)
        tx["parent"] = parent["id"]
        root = parent if parent["parent"] is None else self.transactions[parent["parent"]]
        root["related"].append(tx["id"])
        return tx

    def _capture(self, body: dict[str, Any], payment_id: str) -> httpx.Response:
        auth = self._payment_of(payment_id)
        amount, _ = self._money(body, "orderInformation", "amountDetails")
        if (
            auth["apps"].get("ics_auth") != "1"
            or auth["reversed"]
            or auth["captured"]
            or "ics_bill" in auth["apps"]
        ):
            raise _invalid("INVALID_DATA", "Declined - the authorization cannot be captured", "id")
        if amount > auth["amount"]:
            raise _invalid(
                "INVALID_AMOUNT",
                "Declined - the capture amount exceeds the authorized amount",
                "orderInformation.amountDetails.totalAmount",
            )
        capture = self._follow_on(auth, "ics_bill", amount, body)
        capture["captured"] = amount
        auth["captured"] = amount
        return httpx.Response(
            201,
            json={
                "id": capture["id"],
                "status": "PENDING",
                "orderInformation": {
                    "amountDetails": {"totalAmount": str(amount), "currency": auth["currency"]}
                },
            },
        )

    def _reversal(self, body: dict[str, Any], payment_id: str) -> httpx.Response:
        auth = self._payment_of(payment_id)
        amount, _ = self._money(body, "reversalInformation", "amountDetails")
        if auth["apps"].get("ics_auth") != "1" or auth["reversed"] or auth["captured"]:
            raise _invalid("INVALID_DATA", "Declined - the authorization cannot be reversed", "id")
        if amount != auth["amount"]:
            raise _invalid(
                "INVALID_AMOUNT",
                "Declined - only a full reversal is accepted",
                "reversalInformation.amountDetails.totalAmount",
            )
        reversal = self._follow_on(auth, "ics_auth_reversal", amount, body)
        auth["reversed"] = True
        return httpx.Response(
            201,
            json={
                "id": reversal["id"],
                "status": "REVERSED",
                "reversalAmountDetails": {
                    "reversedAmount": str(amount),
                    "currency": auth["currency"],
                },
            },
        )

    def _refund(self, captured: dict[str, Any], body: dict[str, Any]) -> httpx.Response:
        amount, _ = self._money(body, "orderInformation", "amountDetails")
        if amount <= 0 or amount > captured["captured"] - captured["refunded"]:
            raise _invalid(
                "INVALID_AMOUNT",
                "Declined - the refund amount exceeds what is left",
                "orderInformation.amountDetails.totalAmount",
            )
        refund = self._follow_on(captured, "ics_credit", amount, body)
        captured["refunded"] += amount
        return httpx.Response(
            201,
            json={
                "id": refund["id"],
                "status": "PENDING",
                "refundAmountDetails": {
                    "refundAmount": str(amount),
                    "currency": captured["currency"],
                },
            },
        )

    def _refund_payment(self, body: dict[str, Any], payment_id: str) -> httpx.Response:
        sale = self._payment_of(payment_id)
        if "ics_bill" not in sale["apps"]:
            raise _invalid(
                "INVALID_DATA",
                "Declined - refund a separately captured payment through its capture",
                "id",
            )
        return self._refund(sale, body)

    def _refund_capture(self, body: dict[str, Any], capture_id: str) -> httpx.Response:
        capture = self.transactions.get(capture_id)
        if capture is None or "ics_bill" not in capture["apps"] or capture["parent"] is None:
            raise _Reply(
                httpx.Response(
                    404,
                    json={
                        "status": "NOT_FOUND",
                        "message": "The requested resource does not exist",
                    },
                )
            )
        return self._refund(capture, body)

    # --- transaction details, search, TMS --------------------------------------------------

    def _summary(self, tx: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": tx["id"],
            "clientReferenceInformation": {"code": tx["code"]},
            "applicationInformation": {
                "applications": [
                    {
                        "name": name,
                        "rCode": r,
                        "rFlag": "SOK" if r == "1" else "DECLINE",
                        "reasonCode": "100" if r == "1" else "203",
                    }
                    for name, r in tx["apps"].items()
                ]
            },
            "orderInformation": {
                "amountDetails": {"totalAmount": str(tx["amount"]), "currency": tx["currency"]}
            },
        }

    def _details(self, body: dict[str, Any], tx_id: str) -> httpx.Response:
        tx = self.transactions.get(tx_id)
        if tx is None:
            return httpx.Response(404, json={"message": "The requested resource does not exist"})
        detail = self._summary(tx)
        detail["_links"] = {
            "self": {"href": f"https://{self.host}/tss/v2/transactions/{tx_id}", "method": "GET"},
            "relatedTransactions": [
                {"href": f"https://{self.host}/tss/v2/transactions/{other}", "method": "GET"}
                for other in tx["related"]
            ],
        }
        return httpx.Response(200, json=detail)

    def _search(self, body: dict[str, Any]) -> httpx.Response:
        match = re.fullmatch(r"clientReferenceInformation\.code:(\S+)", str(body.get("query", "")))
        if match is None:
            raise _invalid("INVALID_DATA", "Invalid query", "query")
        found = [self._summary(t) for t in self.payments() if t["code"] == match.group(1)]
        return httpx.Response(
            201,
            json={
                "searchId": f"search-{next(self._ids)}",
                "save": False,
                "query": body["query"],
                "count": len(found),
                "totalCount": len(found),
                "_embedded": {"transactionSummaries": found[::-1]},
            },
        )

    def _instrument(
        self, body: dict[str, Any], customer_id: str, instrument_id: str
    ) -> httpx.Response:
        instrument = self.instruments.get(instrument_id)
        if instrument is None or instrument["customer"] != customer_id:
            return httpx.Response(
                404, json={"errors": [{"type": "notFound", "message": "Token not found"}]}
            )
        card = instrument["card"]
        return httpx.Response(
            200,
            json={
                "id": instrument_id,
                "state": "ACTIVE",
                "card": {
                    "expirationMonth": card["month"],
                    "expirationYear": card["year"],
                    "type": card["type"],
                },
                "_embedded": {
                    "instrumentIdentifier": {
                        "id": f"7010{instrument_id[:12]}",
                        "card": {"number": card["number"]},
                    }
                },
            },
        )
