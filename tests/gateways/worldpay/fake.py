"""An in-memory fake of Worldpay's cnpAPI online communicator, for ``httpx.MockTransport``.

Written from Worldpay's public cnpAPI material, not from the adapter:

- cnpAPI Reference Guide 12.x (https://usermanual.wiki/Pdf/VantivcnpAPIReferenceGuideAPI121V11.947284285/html):
  the ``cnpOnlineRequest`` envelope (``version``, ``merchantId``, ``xmlns``
  ``http://www.vantivcnp.com/schema``, ``<authentication><user/><password/>``), one
  transaction per request; ``cnpOnlineResponse`` with ``response="0"`` ("Valid Format")
  or ``response="1"`` and a message for a request that fails validation; the transaction
  elements ``sale``, ``authorization``, ``capture``, ``credit``, ``authReversal``,
  ``registerTokenRequest`` and ``queryTransaction``; amounts as integers with an implied
  decimal; ``id`` (1-25 characters) and ``reportGroup`` attributes; response reason codes
  (000 Approved, 110 Insufficient Funds, 305 Expired Card, 304 Lost/Stolen Card, 349 Do Not
  Honor, 352 Decline CVV2/CID Fail, 101 Issuer Unavailable, 360 No transaction found, 361
  Authorization no longer available, 111 Authorization amount has already been depleted,
  335/306, 365 Total credit amount exceeds capture amount, 835 Capture amount can not be
  more than authorized amount, 801/802 token registered, 822 Token was not found,
  877 Invalid paypage registration id, 878 Expired paypage registration id).
- Online duplicate checking
  (http://support.worldpay.com/support/CNP-API/content/onlinedupecheck.htm): sales,
  captures, credits and auth reversals with the same type, ``id`` and card (the token for
  tokenized ones; the referenced transaction's card for follow-ups) as a valid one within
  two days are duplicates; authorizations are not checked. The fake answers a duplicate
  with the original transaction's answer and ``duplicate="true"``.
- queryTransaction (cnp-sdk-for-java TestQueryTransaction): ``origId`` plus
  ``origActionType`` (A, S, D, R, AR); answers 150 "Original transaction found" with the
  originals in ``<results_max10>``, 151 "Original transaction not found".

Not documented publicly and modelled here: the text of a failed authentication (the fake
answers ``response="1"`` with "Authentication failed for user"). The public sandbox does not
check credentials; this fake always does, as production does.

eProtect registration ids the fake knows (anything else is 877):

- ``pp_visa``: Visa 4457 0100 0000 0009, approved
- ``pp_mastercard``: Mastercard 5112 0100 0000 0003, approved
- ``pp_decline`` 349, ``pp_insufficient`` 110, ``pp_expired`` 305, ``pp_cvv`` 352,
  ``pp_stolen`` 304, ``pp_issuer_down`` 101, ``pp_stale`` 878

Knobs: ``fail_next(status)``; ``hide_from_queries(id)`` (a lookup racing a new
transaction); ``timeout_next(after_processing=...)``; ``advance(seconds)``
moves the duplicate-check clock; ``requests`` keeps each parsed request document.
"""

from __future__ import annotations

from xml.etree import ElementTree as ET

import attrs
import httpx

from tests.gateways.contracts import ContractViolation
from tests.gateways.worldpay.contract import validate

NS = "http://www.vantivcnp.com/schema"
USER = "payhub-fake-user"
PASSWORD = "fake-worldpay-password-0123"
MERCHANT_ID = "1288791"
SANDBOX_HOST = "www.testvantivcnp.com"
SANDBOX_PATH = "/sandbox/communicator/online"
LIVE_HOST = "payments.vantivcnp.com"
LIVE_PATH = "/vap/communicator/online"
TWO_DAYS = 2 * 24 * 3600


@attrs.frozen
class Card:
    number: str
    brand: str  # VI, MC
    response: str = "000"
    message: str = "Approved"


CARDS: dict[str, Card] = {
    "pp_visa": Card("4457010000000009", "VI"),
    "pp_mastercard": Card("5112010000000003", "MC"),
    "pp_decline": Card("4457010100000008", "VI", "349", "Do Not Honor"),
    "pp_insufficient": Card("4457010200000007", "VI", "110", "Insufficient Funds"),
    "pp_expired": Card("4457010300000006", "VI", "305", "Expired Card"),
    "pp_cvv": Card("4457010400000005", "VI", "352", "Decline CVV2/CID Fail"),
    "pp_stolen": Card("4457010500000004", "VI", "304", "Lost/Stolen Card"),
    "pp_issuer_down": Card("4457010600000003", "VI", "101", "Issuer Unavailable"),
}
STALE = {"pp_stale"}
_ACTIONS = {
    "sale": "S",
    "authorization": "A",
    "capture": "D",
    "credit": "R",
    "authReversal": "AR",
    "registerTokenRequest": "T",
}


@attrs.define
class Txn:
    id: str  # the cnpTxnId
    kind: str  # sale, authorization, capture, credit, authReversal, registerTokenRequest
    request_id: str
    card: Card | None
    amount: int
    response: str
    message: str
    at: int
    answer: ET.Element
    refers_to: str | None = None
    captured: int = 0
    credited: int = 0
    reversed: bool = False

    @property
    def valid(self) -> bool:
        return self.response in ("000", "801", "802")


@attrs.define
class FakeWorldpay:
    """cnpAPI in memory: one merchant id, its transactions and its tokens."""

    user: str = USER
    password: str = PASSWORD
    merchant_id: str = MERCHANT_ID
    sandbox: bool = True
    requests: list[ET.Element] = attrs.field(factory=list)
    transactions: dict[str, Txn] = attrs.field(factory=dict)
    tokens: dict[str, Card] = attrs.field(factory=dict)
    clock: int = 0
    _next_id: int = 82_924_701_000_000_001
    _fail: int | None = None
    _timeout: str | None = None
    _hidden_once: set[str] = attrs.field(factory=set)

    # --- knobs ------------------------------------------------------------------------

    def hide_from_queries(self, request_id: str) -> None:
        """The next queryTransaction for ``request_id`` finds nothing (a race: the
        transaction is made after the caller looked)."""
        self._hidden_once.add(request_id)

    def fail_next(self, status: int = 500) -> None:
        self._fail = status

    def timeout_next(self, after_processing: bool = False) -> None:
        self._timeout = "after" if after_processing else "before"

    def advance(self, seconds: int) -> None:
        self.clock += seconds

    def sent(self, kind: str) -> list[ET.Element]:
        """The transaction elements of that kind that came in, oldest first."""
        return [t for r in self.requests for t in r if _local(t.tag) == kind]

    def of_kind(self, kind: str) -> list[Txn]:
        return [t for t in self.transactions.values() if t.kind == kind]

    # --- transport --------------------------------------------------------------------

    def handler(self, request: httpx.Request) -> httpx.Response:
        if self._timeout == "before":
            self._timeout = None
            raise httpx.ReadTimeout("fake Worldpay timed out", request=request)
        if self._fail is not None:
            status, self._fail = self._fail, None
            return httpx.Response(status, text="<html>Service Unavailable</html>")
        host, path = (SANDBOX_HOST, SANDBOX_PATH) if self.sandbox else (LIVE_HOST, LIVE_PATH)
        if request.method != "POST" or request.url.host != host or request.url.path != path:
            return httpx.Response(404, text="<html>Not Found</html>")
        if not request.headers.get("content-type", "").startswith("text/xml"):
            return _envelope("1", "Error validating xml data against the schema: not XML")
        try:
            root = ET.fromstring(request.content)  # noqa: S314 - our own test traffic
        except ET.ParseError:
            return _envelope("1", "Error validating xml data against the schema: not XML")
        self.requests.append(root)
        try:  # the cnpAPI schema as Worldpay's own SDK compiles it
            validate(request.content)
        except ContractViolation as e:
            return _envelope("1", f"Error validating xml data against the schema: {e}")
        response = self._online(root)
        validate(response.content)  # the fake answers in the schema's shapes
        if self._timeout == "after":
            self._timeout = None
            raise httpx.ReadTimeout("fake Worldpay timed out after processing", request=request)
        return response

    def _online(self, root: ET.Element) -> httpx.Response:
        if root.tag != f"{{{NS}}}cnpOnlineRequest" or not root.get("version"):
            return _envelope("1", "Error validating xml data against the schema: root element")
        children = list(root)
        if len(children) != 2 or _local(children[0].tag) != "authentication":
            return _envelope("1", "Error validating xml data against the schema: content")
        auth, txn = children
        if (
            _field(auth, "user") != self.user
            or _field(auth, "password") != self.password
            or root.get("merchantId") != self.merchant_id
        ):
            return _envelope("1", "Authentication failed for user")
        kind = _local(txn.tag)
        request_id = txn.get("id", "")
        if not 1 <= len(request_id) <= 25 or not txn.get("reportGroup"):
            return _envelope("1", "Error validating xml data against the schema: id, reportGroup")
        handlers = {
            "sale": self._charge,
            "authorization": self._charge,
            "capture": self._capture,
            "credit": self._credit,
            "authReversal": self._reversal,
            "registerTokenRequest": self._register,
            "queryTransaction": self._query,
        }
        if kind not in handlers:
            return _envelope("1", f"Error validating xml data against the schema: {kind}")
        try:
            answer = handlers[kind](txn)
        except _SchemaError as e:
            return _envelope("1", f"Error validating xml data against the schema: {e}")
        return _envelope("0", "Valid Format", answer)

    # --- transactions -----------------------------------------------------------------

    def _charge(self, txn: ET.Element) -> ET.Element:
        kind = _local(txn.tag)
        order_id = _required(txn, "orderId")
        if len(order_id) > 25:
            raise _SchemaError("orderId longer than 25")
        amount = _amount(txn)
        if _field(txn, "orderSource") not in ("ecommerce", "moto", "recurring", "installment"):
            raise _SchemaError("orderSource")
        paypage, token = txn.find(f"{{{NS}}}paypage"), txn.find(f"{{{NS}}}token")
        card: Card | None
        if paypage is not None:
            registration = _required(paypage, "paypageRegistrationId")
            if registration in STALE:
                return self._record(
                    txn, kind, None, amount, "878", "Expired paypage registration id"
                )
            card = CARDS.get(registration)
            if card is None:
                return self._record(
                    txn, kind, None, amount, "877", "Invalid paypage registration id"
                )
        elif token is not None:
            card = self.tokens.get(_required(token, "cnpToken"))
            if card is None:
                return self._record(txn, kind, None, amount, "822", "Token was not found")
        else:
            raise _SchemaError("a payment method is required")
        if kind == "sale":
            original = self._duplicate_of(kind, txn.get("id", ""), card)
            if original is not None:
                return _as_duplicate(original)
        return self._record(txn, kind, card, amount, card.response, card.message)

    def _capture(self, txn: ET.Element) -> ET.Element:
        auth = self.transactions.get(_required(txn, "cnpTxnId"))
        amount = _amount(txn) if txn.find(f"{{{NS}}}amount") is not None else None
        if auth is None or auth.kind != "authorization" or not auth.valid:
            return self._record(txn, "capture", None, amount or 0, "360", "No transaction found")
        original = self._duplicate_of("capture", txn.get("id", ""), auth.card)
        if original is not None:
            return _as_duplicate(original)
        wanted = auth.amount if amount is None else amount
        if auth.reversed:
            return self._follow(txn, auth, wanted, "361", "Authorization no longer available")
        if auth.captured:
            return self._follow(
                txn, auth, wanted, "111", "Authorization amount has already been depleted"
            )
        if wanted > auth.amount:
            return self._follow(
                txn, auth, wanted, "835", "Capture amount can not be more than authorized amount"
            )
        auth.captured = wanted
        return self._follow(txn, auth, wanted, "000", "Approved")

    def _credit(self, txn: ET.Element) -> ET.Element:
        deposit = self.transactions.get(_required(txn, "cnpTxnId"))
        amount = _amount(txn)
        if deposit is None or deposit.kind not in ("sale", "capture") or not deposit.valid:
            return self._record(txn, "credit", None, amount, "360", "No transaction found")
        original = self._duplicate_of("credit", txn.get("id", ""), deposit.card)
        if original is not None:
            return _as_duplicate(original)
        if deposit.credited + amount > deposit.amount:
            return self._follow(
                txn, deposit, amount, "365", "Total credit amount exceeds capture amount"
            )
        deposit.credited += amount
        return self._follow(txn, deposit, amount, "000", "Approved")

    def _reversal(self, txn: ET.Element) -> ET.Element:
        auth = self.transactions.get(_required(txn, "cnpTxnId"))
        if auth is None or auth.kind != "authorization" or not auth.valid:
            return self._record(txn, "authReversal", None, 0, "360", "No transaction found")
        original = self._duplicate_of("authReversal", txn.get("id", ""), auth.card)
        if original is not None:
            return _as_duplicate(original)
        if auth.captured:
            return self._follow(
                txn, auth, 0, "111", "Authorization amount has already been depleted"
            )
        if auth.reversed:
            return self._follow(txn, auth, 0, "361", "Authorization no longer available")
        auth.reversed = True
        return self._follow(txn, auth, auth.amount, "000", "Approved")

    def _register(self, txn: ET.Element) -> ET.Element:
        registration = _required(txn, "paypageRegistrationId")
        if registration in STALE:
            return self._record(
                txn, "registerTokenRequest", None, 0, "878", "Expired paypage registration id"
            )
        card = CARDS.get(registration)
        if card is None or card.response != "000":
            return self._record(
                txn, "registerTokenRequest", None, 0, "877", "Invalid paypage registration id"
            )
        existing = next((t for t, c in self.tokens.items() if c == card), None)
        token = existing or f"11122{len(self.tokens):07d}{card.number[-4:]}"
        self.tokens[token] = card
        code, message = (
            ("802", "Account number was previously registered")
            if existing
            else ("801", "Account number was successfully registered")
        )
        answer = self._record(txn, "registerTokenRequest", card, 0, code, message)
        _add(answer, "cnpToken", token)
        _add(answer, "bin", card.number[:6])
        _add(answer, "type", card.brand)
        return answer

    def _query(self, txn: ET.Element) -> ET.Element:
        orig_id = _required(txn, "origId")
        action = _required(txn, "origActionType")
        if orig_id in self._hidden_once:
            self._hidden_once.discard(orig_id)
            orig_id = ""
        matches = [
            t
            for t in self.transactions.values()
            if t.request_id == orig_id and _ACTIONS.get(t.kind) == action
        ][:10]
        answer = ET.Element(f"{{{NS}}}queryTransactionResponse", _echo(txn))
        code, message = (
            ("150", "Original transaction found")
            if matches
            else (
                "151",
                "Original transaction not found",
            )
        )
        _add(answer, "response", code)
        _add(answer, "responseTime", "2026-11-23T10:00:00")
        _add(answer, "message", message)
        if matches:
            _add(answer, "matchCount", str(len(matches)))
            results = ET.SubElement(answer, f"{{{NS}}}results_max10")
            for match in matches:
                results.append(match.answer)
        return answer

    # --- helpers ----------------------------------------------------------------------

    def _duplicate_of(self, kind: str, request_id: str, card: Card | None) -> Txn | None:
        for t in self.transactions.values():
            if (
                t.kind == kind
                and t.request_id == request_id
                and t.card == card
                and t.valid
                and self.clock - t.at < TWO_DAYS
            ):
                return t
        return None

    def _follow(
        self, txn: ET.Element, original: Txn, amount: int, code: str, message: str
    ) -> ET.Element:
        return self._record(
            txn, _local(txn.tag), original.card, amount, code, message, refers_to=original.id
        )

    def _record(
        self,
        txn: ET.Element,
        kind: str,
        card: Card | None,
        amount: int,
        code: str,
        message: str,
        refers_to: str | None = None,
    ) -> ET.Element:
        txn_id = str(self._next_id)
        self._next_id += 1
        name = "registerTokenResponse" if kind == "registerTokenRequest" else f"{kind}Response"
        answer = ET.Element(f"{{{NS}}}{name}", _echo(txn))
        _add(answer, "cnpTxnId", txn_id)
        if kind in ("sale", "authorization"):  # registerTokenResponse has no orderId
            _add(answer, "orderId", _field(txn, "orderId") or "")
        _add(answer, "response", code)
        _add(answer, "responseTime", "2026-11-23T10:00:00")
        _add(answer, "message", message)
        if kind in ("sale", "authorization") and code == "000":
            _add(answer, "authCode", "123457")
            fraud = ET.SubElement(answer, f"{{{NS}}}fraudResult")
            _add(fraud, "avsResult", "00")
            _add(fraud, "cardValidationResult", "M")
        self.transactions[txn_id] = Txn(
            id=txn_id,
            kind=kind,
            request_id=txn.get("id", ""),
            card=card,
            amount=amount,
            response=code,
            message=message,
            at=self.clock,
            answer=answer,
            refers_to=refers_to,
        )
        return answer


class _SchemaError(Exception):
    pass


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _field(parent: ET.Element, name: str) -> str | None:
    found = parent.find(f"{{{NS}}}{name}")
    return None if found is None else (found.text or "")


def _required(parent: ET.Element, name: str) -> str:
    value = _field(parent, name)
    if not value:
        raise _SchemaError(f"{name} is required")
    return value


def _amount(txn: ET.Element) -> int:
    text = _required(txn, "amount")
    if not text.isdigit() or len(text) > 12:
        raise _SchemaError("amount must be an integer with an implied decimal")
    return int(text)


def _echo(txn: ET.Element) -> dict[str, str]:
    keep = ("id", "reportGroup", "customerId")
    return {k: v for k in keep if (v := txn.get(k))}


def _add(parent: ET.Element, name: str, text: str) -> None:
    ET.SubElement(parent, f"{{{NS}}}{name}").text = text


def _as_duplicate(original: Txn) -> ET.Element:
    answer = ET.fromstring(ET.tostring(original.answer))  # noqa: S314 - a copy
    answer.set("duplicate", "true")
    return answer


def _envelope(code: str, message: str, answer: ET.Element | None = None) -> httpx.Response:
    root = ET.Element(
        f"{{{NS}}}cnpOnlineResponse", {"version": "12.30", "response": code, "message": message}
    )
    if answer is not None:
        root.append(answer)
    ET.register_namespace("", NS)
    return httpx.Response(
        200, content=ET.tostring(root, encoding="utf-8"), headers={"content-type": "text/xml"}
    )
