"""An in-memory fake of Nuvei's REST API 1.0, for ``httpx.MockTransport``.

Written from Nuvei's public reference, not from the adapter: the API reference
(https://docs.nuvei.com/api/main/indexMain_v1_0.html : getSessionToken, payment,
settleTransaction, refundTransaction, voidTransaction, getTransactionDetails, createUser,
addUPOCreditCardByTempToken, getUserUPOs, the API error codes), the Web SDK tokenization-only
flow (https://docs.nuvei.com/documentation/accept-payment/web-sdk/tokenization-only-flow : a
``/getSessionToken`` session, Fields ``getToken()`` → ``ccTempToken``, then ``/payment``), Auth
and Settle (https://docs.nuvei.com/documentation/features/financial-operations/auth-and-settle),
Refund and Void (…/financial-operations/refund, …/void), with the checksum orders of Nuvei's
Java SDK (Nuvei/nuvei-server-java ``ChecksumUtils``):

- Hosts ``ppp-test.nuvei.com`` (integration) and ``secure.safecharge.com`` (live), paths
  ``/ppp/api/v1/<method>.do``, JSON bodies. Every body carries ``merchantId``,
  ``merchantSiteId``, ``timeStamp`` (YYYYMMDDHHmmss) and ``checksum`` (sha256 of the method's
  fields, then the secret key). A wrong merchant id is ``errCode`` 1013, a wrong site 1022, a
  wrong checksum 1001 "Invalid checksum", all ``status: ERROR`` with HTTP 200; an account used on
  the other environment's host is unknown there (1013).
- ``/payment`` needs a live ``sessionToken`` and a ``clientRequestId`` never used before (a
  repeat is refused: ``status: ERROR``); a ``ccTempToken`` is single use and only valid with the
  session it was made under (else 1004 "Missing or invalid CardData data"); a
  ``userPaymentOptionId`` must belong to the ``userTokenId`` (else 1011). Answers carry
  ``transactionStatus`` APPROVED / DECLINED (``gwErrorCode`` -1, ``gwErrorReason``) / ERROR /
  REDIRECT, ``transactionId``, ``authCode``, ``transactionType``.
- Settle (partial allowed, never more than authorized, once), refund (of a Sale or Settle, never
  more than is left), void (of an Auth or unsettled Sale, once); refused operations answer
  ``transactionStatus: ERROR`` with a ``gwErrorReason``.
- ``/getTransactionDetails`` by ``transactionId`` or ``clientUniqueId`` (the newest with it);
  unknown: ``status: ERROR`` "Transaction not found".
- Users (``/createUser``: a second one is "User already exists") hold UPOs.

Test cards (``fields_token(name)`` makes a Fields session + temp token, ``"<session>|<temp>"``):
``visa`` 4761 3441 3614 1390 exp 12/30 approved; ``mastercard`` 5101 0800 0000 0017 exp 06/31
approved; ``decline`` "Decline"; ``insufficient`` "Insufficient Funds"; ``cvv`` "Invalid CVV2";
``stolen`` "Lost/Stolen Card"; ``expired`` "Expired Card"; ``challenge`` REDIRECT (3-D Secure).

Knobs: ``fail_next(status, method=None)``, ``timeout_next(after_processing=..., method=None)``;
``requests`` records (method, url, json body).
"""

from __future__ import annotations

import hashlib
import json
import re
from decimal import Decimal, InvalidOperation
from typing import Any

import attrs
import httpx

MERCHANT_ID = "479748173730597238"
MERCHANT_SITE_ID = "180083"
SECRET = "fakeNuveiSecretKey0123456789abcdefABCDEF"
SANDBOX_HOST = "ppp-test.nuvei.com"
LIVE_HOST = "secure.safecharge.com"
PREFIX = "/ppp/api/v1/"
_AMOUNT = re.compile(r"^\d{1,10}(\.\d{1,3})?$")
_TIMESTAMP = re.compile(r"^\d{14}$")
_FINANCIAL = ("merchantId", "merchantSiteId", "clientRequestId", "clientUniqueId", "amount",
              "currency", "relatedTransactionId", "authCode")  # fmt: skip
ORDERS: dict[str, tuple[str, ...]] = {
    "getSessionToken": ("merchantId", "merchantSiteId", "clientRequestId", "timeStamp"),
    "openOrder": ("merchantId", "merchantSiteId", "clientRequestId", "amount", "currency",
                  "timeStamp"),
    "payment": ("merchantId", "merchantSiteId", "clientRequestId", "amount", "currency",
                "timeStamp"),
    "settleTransaction": (*_FINANCIAL, "descriptorMerchantName", "descriptorMerchantPhone",
                          "comment", "urlDetails", "timeStamp"),
    "refundTransaction": (*_FINANCIAL, "comment", "urlDetails", "timeStamp"),
    "voidTransaction": (*_FINANCIAL, "comment", "urlDetails", "timeStamp"),
    "getTransactionDetails": ("merchantId", "merchantSiteId", "transactionId", "clientUniqueId",
                              "timeStamp"),
    "createUser": ("merchantId", "merchantSiteId", "userTokenId", "clientRequestId", "firstName",
                   "lastName", "address", "state", "city", "zip", "countryCode", "phone",
                   "locale", "email", "county", "timeStamp"),
    "addUPOCreditCardByTempToken": ("merchantId", "merchantSiteId", "clientRequestId",
                                    "timeStamp"),
    "getUserUPOs": ("merchantId", "merchantSiteId", "userTokenId", "clientRequestId",
                    "timeStamp"),
}  # fmt: skip


@attrs.frozen
class Card:
    number: str
    month: str
    year: str
    brand: str
    outcome: str = "APPROVED"
    reason: str = ""


CARDS = {
    "visa": Card("4761344136141390", "12", "30", "VISA"),
    "mastercard": Card("5101080000000017", "06", "31", "MASTERCARD"),
    "decline": Card("4000000000000002", "12", "30", "VISA", "DECLINED", "Decline"),
    "insufficient": Card("4000000000000010", "12", "30", "VISA", "DECLINED",
                         "Insufficient Funds"),
    "cvv": Card("4000000000000028", "12", "30", "VISA", "DECLINED", "Invalid CVV2"),
    "stolen": Card("4000000000000036", "12", "30", "VISA", "DECLINED", "Lost/Stolen Card"),
    "expired": Card("4000000000000044", "12", "20", "VISA", "DECLINED", "Expired Card"),
    "challenge": Card("4000000000000051", "12", "30", "VISA", "REDIRECT"),
}  # fmt: skip


@attrs.define
class Txn:
    id: str
    type: str  # Sale, Auth, Settle, Credit, Void
    status: str  # APPROVED, DECLINED, ERROR, REDIRECT
    amount: Decimal
    currency: str
    client_unique_id: str
    auth_code: str = ""
    related: str = ""
    reason: str = ""
    card: Card | None = None
    settled: bool = False
    voided: bool = False
    refunded: Decimal = Decimal(0)

    def details(self) -> dict[str, Any]:
        """The ``getTransactionDetails`` answer's transaction part."""
        body = {
            "transactionId": self.id,
            "transactionType": self.type,
            "transactionStatus": self.status,
            "authCode": self.auth_code,
            "clientUniqueId": self.client_unique_id,
            "originalAmount": f"{self.amount}",
            "originalCurrency": self.currency,
            "gwErrorCode": -1 if self.status == "DECLINED" else 0,
            "gwErrorReason": self.reason,
        }
        if self.related:
            body["relatedTransactionId"] = self.related
        return body


@attrs.define
class FakeNuvei:
    """Nuvei in memory: one merchant site (integration or live), its sessions and transactions."""

    merchant_id: str = MERCHANT_ID
    site_id: str = MERCHANT_SITE_ID
    secret: str = SECRET
    sandbox: bool = True
    requests: list[tuple[str, httpx.URL, Any]] = attrs.field(factory=list)
    transactions: dict[str, Txn] = attrs.field(factory=dict)
    sessions: set[str] = attrs.field(factory=set)
    temp_tokens: dict[str, tuple[str, Card]] = attrs.field(factory=dict)  # temp -> (session, card)
    users: dict[str, dict[str, Any]] = attrs.field(factory=dict)
    upos: dict[str, tuple[str, Card]] = attrs.field(factory=dict)  # upo id -> (user, card)
    request_ids: set[str] = attrs.field(factory=set)
    # openOrder sessions -> (amount, currency, transactionType) the order was opened for
    orders: dict[str, tuple[Decimal, str, str]] = attrs.field(factory=dict)
    _serial: int = 711_000_000_003_470_000
    _fail: tuple[int, str | None] | None = None
    _timeout: tuple[str, str | None] | None = None

    # --- knobs ---------------------------------------------------------------------------

    def fail_next(self, status: int = 500, method: str | None = None) -> None:
        self._fail = (status, method)

    def timeout_next(self, after_processing: bool = False, method: str | None = None) -> None:
        self._timeout = ("after" if after_processing else "before", method)

    def fields_token(self, card: str = "visa") -> str:
        """What Nuvei Fields hands the page: a session (``/getSessionToken``) + ``ccTempToken``."""
        session = self._next_session()
        temp = f"tt_{card}_{self._next_id()[-6:]}"
        self.temp_tokens[temp] = (session, CARDS[card])
        return f"{session}|{temp}"

    def fields_token_under(self, session: str, number: str) -> str | None:
        """Nuvei Fields' ``getToken()`` under the page's session: the typed card's temp token
        (None for a number that is no test card)."""
        card = next((c for c in CARDS.values() if c.number == number), None)
        if card is None or session not in self.sessions:
            return None
        temp = f"tt_{number[-4:]}_{self._next_id()[-6:]}"
        self.temp_tokens[temp] = (session, card)
        return temp

    def posts(self, method: str | None = None) -> list[dict[str, Any]]:
        return [
            body
            for _, url, body in self.requests
            if method is None or url.path.endswith(f"/{method}.do")
        ]

    def charges(self) -> list[Txn]:
        return [t for t in self.transactions.values() if t.type in ("Sale", "Auth")]

    # --- transport ---------------------------------------------------------------------

    def handler(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content) if request.content else {}
        self.requests.append((request.method, request.url, body))
        method = request.url.path.removeprefix(PREFIX).removesuffix(".do")
        if self._fail and self._fail[1] in (None, method):
            status, _ = self._fail
            self._fail = None
            return httpx.Response(status, text="<html>Service Unavailable</html>")
        timing = None
        if self._timeout and self._timeout[1] in (None, method):
            timing, _ = self._timeout
            self._timeout = None
            if timing == "before":
                raise httpx.ReadTimeout("timed out", request=request)
        answer = self._answer(request, method, body)
        if timing == "after":
            raise httpx.ReadTimeout("timed out", request=request)
        return httpx.Response(200, json=answer)

    def _answer(self, request: httpx.Request, method: str, body: dict[str, Any]) -> dict[str, Any]:
        host = SANDBOX_HOST if self.sandbox else LIVE_HOST
        if request.method != "POST" or method not in ORDERS:
            return _error(1000, "General Error")
        if request.url.host != host or body.get("merchantId") != self.merchant_id:
            return _error(1013, "Invalid merchant ID")
        if body.get("merchantSiteId") != self.site_id:
            return _error(1022, "Invalid merchant site ID")
        if not _TIMESTAMP.match(str(body.get("timeStamp", ""))):
            return _error(1021, "Invalid timestamp")
        expected = "".join(_flat(body.get(f)) for f in ORDERS[method]) + self.secret
        if body.get("checksum") != hashlib.sha256(expected.encode()).hexdigest():
            return _error(1001, "Invalid checksum")
        handler = getattr(self, "_" + method)
        answer: dict[str, Any] = handler(body)
        answer.setdefault("status", "SUCCESS")
        answer.setdefault("errCode", 0)
        answer.setdefault("reason", "")
        answer |= {
            "merchantId": self.merchant_id,
            "merchantSiteId": self.site_id,
            "version": "1.0",
            "internalRequestId": self._serial % 1_000_000_000,
        }
        if "clientRequestId" in body:
            answer["clientRequestId"] = body["clientRequestId"]
        return answer

    # --- methods -------------------------------------------------------------------------

    def _getSessionToken(self, body: dict[str, Any]) -> dict[str, Any]:
        return {"sessionToken": self._next_session()}

    def _openOrder(self, body: dict[str, Any]) -> dict[str, Any]:
        amount = _decimal(body.get("amount"))
        currency = str(body.get("currency", ""))
        if amount is None or amount <= 0 or not re.fullmatch(r"[A-Z]{3}", currency):
            return _error(1019, "Validation Error: amount or currency")
        kind = str(body.get("transactionType", "Sale"))
        if kind not in ("Sale", "Auth"):
            return _error(1019, "Validation Error: transactionType")
        session = self._next_session()
        self.orders[session] = (amount, currency, kind)
        return {"sessionToken": session, "orderId": self._next_id()}

    def _payment(self, body: dict[str, Any]) -> dict[str, Any]:
        if body.get("sessionToken") not in self.sessions:
            return _error(1069, "Session expired")
        order = self.orders.get(str(body.get("sessionToken")))
        if order is not None and (
            _decimal(body.get("amount")) != order[0] or body.get("currency") != order[1]
        ):
            return _error(1019, "Validation Error: the amount differs from the order's")
        request_id = str(body.get("clientRequestId") or "")
        if not request_id or request_id in self.request_ids:
            return _error(1140, "A request with this clientRequestId was already processed")
        amount = _decimal(body.get("amount"))
        currency = str(body.get("currency", ""))
        if amount is None or amount <= 0 or not re.fullmatch(r"[A-Z]{3}", currency):
            return _error(1019, "Validation Error: amount or currency")
        kind = body.get("transactionType", "Sale")
        if kind not in ("Sale", "Auth"):
            return _error(1019, "Validation Error: transactionType")
        if not isinstance(body.get("deviceDetails"), dict) or not body["deviceDetails"].get(
            "ipAddress"
        ):
            return _error(1019, "Validation Error: deviceDetails.ipAddress is required")
        option = body.get("paymentOption") or {}
        card: Card | None = None
        if isinstance(option.get("card"), dict) and option["card"].get("ccTempToken"):
            temp = option["card"]["ccTempToken"]
            bound = self.temp_tokens.get(temp)
            if bound is None or bound[0] != body["sessionToken"]:
                return _error(1004, "Missing or invalid CardData data")
            card = bound[1]
            del self.temp_tokens[temp]  # single use
        elif option.get("userPaymentOptionId"):
            owned = self.upos.get(str(option["userPaymentOptionId"]))
            if owned is None or owned[0] != body.get("userTokenId"):
                return _error(1011, "Missing or invalid UserPaymentOption data")
            card = owned[1]
        else:
            return _error(1004, "Missing or invalid CardData data")
        self.request_ids.add(request_id)
        txn = Txn(
            id=self._next_id(),
            type=kind,
            status=card.outcome,
            amount=amount,
            currency=currency,
            client_unique_id=str(body.get("clientUniqueId", "")),
            auth_code="111361" if card.outcome == "APPROVED" else "",
            reason=card.reason,
            card=card,
        )
        self.transactions[txn.id] = txn
        answer: dict[str, Any] = {
            "orderId": str(self._serial),
            "transactionStatus": txn.status,
            "transactionType": kind,
            "transactionId": txn.id,
            "authCode": txn.auth_code,
            "clientUniqueId": txn.client_unique_id,
            "sessionToken": body["sessionToken"],
            "gwErrorCode": -1 if txn.status == "DECLINED" else 0,
            "gwExtendedErrorCode": 0,
            "paymentOption": {
                "card": {
                    "ccCardNumber": card.number[:1] + "****" + card.number[-4:],
                    "last4Digits": card.number[-4:],
                    "ccExpMonth": card.month,
                    "ccExpYear": card.year,
                    "cardBrand": card.brand,
                }
            },
        }
        if card.reason:
            answer["gwErrorReason"] = card.reason
        return answer

    def _settleTransaction(self, body: dict[str, Any]) -> dict[str, Any]:
        def act(auth: Txn, amount: Decimal) -> str | None:
            if auth.type != "Auth":
                return "Only an Auth transaction can be settled"
            if auth.voided:
                return "Transaction already voided"
            if auth.settled:
                return "Transaction already settled"
            if amount > auth.amount:
                return "Settle amount exceeds the authorized amount"
            auth.settled = True
            return None

        return self._follow_up(body, "Settle", act)

    def _refundTransaction(self, body: dict[str, Any]) -> dict[str, Any]:
        def act(sale: Txn, amount: Decimal) -> str | None:
            if sale.type not in ("Sale", "Settle"):
                return "Only a Sale or Settle transaction can be refunded"
            if sale.voided:
                return "Transaction already voided"
            if sale.refunded + amount > sale.amount:
                return "Refund amount exceeds the remaining amount"
            sale.refunded += amount
            return None

        return self._follow_up(body, "Credit", act)

    def _voidTransaction(self, body: dict[str, Any]) -> dict[str, Any]:
        def act(txn: Txn, amount: Decimal) -> str | None:
            if txn.type not in ("Auth", "Sale", "Settle"):
                return "This transaction cannot be voided"
            if txn.voided:
                return "Transaction already voided"
            if txn.settled:
                return "Transaction already settled"
            if amount != txn.amount:
                return "Void amount must equal the transaction amount"
            txn.voided = True
            return None

        return self._follow_up(body, "Void", act)

    def _follow_up(self, body: dict[str, Any], kind: str, act: Any) -> dict[str, Any]:
        request_id = str(body.get("clientRequestId") or "")
        if not request_id or request_id in self.request_ids:
            return _error(1140, "A request with this clientRequestId was already processed")
        amount = _decimal(body.get("amount"))
        if amount is None or amount <= 0:
            return _error(1019, "Validation Error: amount")
        related = self.transactions.get(str(body.get("relatedTransactionId", "")))
        if related is None or related.status != "APPROVED":
            return {"transactionStatus": "ERROR", "gwErrorCode": -1100,
                    "gwErrorReason": "Related transaction not found"}  # fmt: skip
        if body.get("currency") != related.currency:
            return {"transactionStatus": "ERROR", "gwErrorCode": -1100,
                    "gwErrorReason": "Currency does not match the related transaction"}  # fmt: skip
        self.request_ids.add(request_id)
        refused = act(related, amount)
        if refused:
            return {"transactionStatus": "ERROR", "gwErrorCode": -1100, "gwErrorReason": refused}
        txn = Txn(
            id=self._next_id(),
            type=kind,
            status="APPROVED",
            amount=amount,
            currency=related.currency,
            client_unique_id=str(body.get("clientUniqueId", "")),
            auth_code=related.auth_code,
            related=related.id,
        )
        self.transactions[txn.id] = txn
        return {
            "transactionId": txn.id,
            "transactionStatus": "APPROVED",
            "transactionType": kind,
            "authCode": txn.auth_code,
            "clientUniqueId": txn.client_unique_id,
            "gwErrorCode": 0,
        }

    def _getTransactionDetails(self, body: dict[str, Any]) -> dict[str, Any]:
        wanted_id, unique = str(body.get("transactionId") or ""), body.get("clientUniqueId")
        if wanted_id:
            txn = self.transactions.get(wanted_id)
        else:
            matches = [t for t in self.transactions.values() if unique and
                       t.client_unique_id == unique]  # fmt: skip
            txn = matches[-1] if matches else None
        if txn is None:
            return _error(9, "Transaction not found")
        return {"transactionDetails": txn.details()}

    def _createUser(self, body: dict[str, Any]) -> dict[str, Any]:
        user = str(body.get("userTokenId") or "")
        if not user or not body.get("countryCode"):
            return _error(1019, "Validation Error: userTokenId and countryCode are required")
        if user in self.users:
            return _error(1010, "User already exists")
        self.users[user] = body
        return {"userId": len(self.users) + 4_000_000}

    def _addUPOCreditCardByTempToken(self, body: dict[str, Any]) -> dict[str, Any]:
        if body.get("sessionToken") not in self.sessions:
            return _error(1069, "Session expired")
        if body.get("userTokenId") not in self.users:
            return _error(1010, "Invalid user token")
        bound = self.temp_tokens.get(str(body.get("ccTempToken", "")))
        if bound is None or bound[0] != body["sessionToken"]:
            return _error(1004, "Missing or invalid CardData data")
        del self.temp_tokens[body["ccTempToken"]]
        upo = str(int(self._next_id()[-10:]))
        self.upos[upo] = (body["userTokenId"], bound[1])
        return {"userPaymentOptionId": int(upo)}

    def _getUserUPOs(self, body: dict[str, Any]) -> dict[str, Any]:
        if body.get("userTokenId") not in self.users:
            return _error(1010, "Invalid user token")
        methods = [
            {
                "userPaymentOptionId": int(upo),
                "paymentMethodName": "cc_card",
                "upoStatus": "enabled",
                "upoData": {
                    "ccCardNumber": card.number[:1] + "****" + card.number[-4:],
                    "brand": card.brand.lower(),
                    "ccExpMonth": card.month,
                    "ccExpYear": card.year,
                    "bin": card.number[:6],
                },
            }
            for upo, (user, card) in self.upos.items()
            if user == body["userTokenId"]
        ]
        return {"paymentMethods": methods}

    # --- helpers -------------------------------------------------------------------------

    def _next_id(self) -> str:
        self._serial += 1
        return str(self._serial)

    def _next_session(self) -> str:
        session = f"{self._next_id()[-8:]}-c1ae-45fc-8fce-8a55cfa4a6e0"
        self.sessions.add(session)
        return session


def _error(code: int, reason: str) -> dict[str, Any]:
    return {"status": "ERROR", "errCode": code, "reason": reason}


def _flat(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, dict):
        return "".join(_flat(v) for v in value.values())
    return str(value)


def _decimal(value: object) -> Decimal | None:
    text = str(value or "")
    if not _AMOUNT.match(text):
        return None
    try:
        return Decimal(text)
    except InvalidOperation:
        return None
