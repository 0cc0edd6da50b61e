"""An in-memory fake of Elavon Converge's XML API (``processxml.do``), for ``httpx.MockTransport``.

Written from public Converge material, not from the adapter:

- ActiveMerchant ``elavon.rb`` and its unit-test fixtures: a form POST with one field
  ``xmldata`` holding ``<txn>`` with ``ssl_merchant_id``, ``ssl_user_id``, ``ssl_pin`` and
  ``ssl_transaction_type`` (CCSALE, CCAUTHONLY, CCCOMPLETE, CCRETURN, CCDELETE, CCGETTOKEN);
  answers ``<txn>`` with ``ssl_result`` 0/1, ``ssl_result_message`` (APPROVAL, …),
  ``ssl_txn_id``, ``ssl_transaction_type`` (SALE, AUTHONLY, RETURN, DELETE, GETTOKEN),
  ``ssl_amount``, ``ssl_card_number`` (masked), ``ssl_exp_date``,
  ``ssl_card_short_description``, ``ssl_token``, ``ssl_token_response``,
  ``ssl_add_token_response``; refusals as ``<txn>`` with ``errorCode``, ``errorName`` and
  ``errorMessage`` (4025 Invalid Credentials, 5000 Credit Card Number Invalid, 5040 Invalid
  Transaction ID, 5091 Invalid amount).
- Elavon's ``com.elavon.converge.model`` classes: TXNQUERY by ``ssl_txn_id`` or
  ``ssl_merchant_txn_id``; answers ``<txnlist><ssl_txn_count/><txn>…</txn></txnlist>``.
- Hyperswitch's Elavon connector: ``ssl_trans_status`` (OPN open, STL settled, …).

Not public and modelled here: an unknown or spent Checkout.js token answers error 5087
("Invalid Token"); a Checkout.js token is single-use while a Card Manager token is reusable;
``CCCOMPLETE`` keeps the authorization's ``ssl_txn_id`` and turns its type into SALE;
``CCDELETE`` turns the original's type into VOID; ``ssl_issuer_response`` carries the
decline code on ``ssl_result`` 1.

Checkout.js tokens the fake knows: ``ck_visa`` (Visa 4444, 12/30), ``ck_mastercard``
(MC 5555, 11/29), ``ck_decline`` (05 DECLINED), ``ck_insufficient`` (51 INSUFFICIENT FUNDS),
``ck_expired`` (54 EXPIRED CARD), ``ck_cvv`` (N7 DECLINED CVV2), ``ck_stolen``
(43 PICK UP CARD).

The Lightbox (Converge Hosted Payments): ``POST /hosted-payments/transaction_token`` with the
terminal's credentials as a form answers a session token as plain text (``4025 ...`` for bad
credentials); ``lightbox_token(session, number)`` plays the lightbox of a ``ccgettoken`` session
with ``ssl_add_token=Y``: the typed card (matched to the cards above by its last four digits)
goes to Card Manager and its ``ssl_token`` comes back.

Knobs: ``fail_next(status)``; ``timeout_next(after_processing=...)``; ``requests`` keeps each
parsed ``<txn>``.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from urllib.parse import parse_qs
from xml.etree import ElementTree as ET

import attrs
import httpx

MERCHANT_ID = "0999001"
USER_ID = "apiuser"
PIN = "FAKEPINFORTESTSONLYCONVERGEDEMO0000000000000000000000000000000000"
DEMO_HOST = "api.demo.convergepay.com"
DEMO_PATH = "/VirtualMerchantDemo/processxml.do"
LIVE_HOST = "api.convergepay.com"
LIVE_PATH = "/VirtualMerchant/processxml.do"
HOSTED_PATH = "/hosted-payments/transaction_token"


@attrs.frozen
class Card:
    last4: str
    brand: str  # ssl_card_short_description
    expiry: str  # MMYY
    issuer: str = "00"
    message: str = "APPROVAL"


CARDS: dict[str, Card] = {
    "ck_visa": Card("4444", "VISA", "1230"),
    "ck_mastercard": Card("5555", "MC", "1129"),
    "ck_decline": Card("0002", "VISA", "1230", "05", "DECLINED"),
    "ck_insufficient": Card("0003", "VISA", "1230", "51", "INSUFFICIENT FUNDS"),
    "ck_expired": Card("0004", "VISA", "1230", "54", "EXPIRED CARD"),
    "ck_cvv": Card("0005", "VISA", "1230", "N7", "DECLINED CVV2"),
    "ck_stolen": Card("0006", "VISA", "1230", "43", "PICK UP CARD"),
}


@attrs.define
class Txn:
    id: str
    kind: str  # SALE, AUTHONLY, RETURN
    amount: Decimal
    card: Card
    result: str
    message: str
    issuer: str
    merchant_txn_id: str = ""
    invoice: str = ""
    state: str = "OPN"
    completed: Decimal = Decimal(0)
    returned: Decimal = Decimal(0)
    original: str | None = None


@attrs.define
class FakeElavon:
    """Converge in memory: one terminal (merchant id, user, PIN), its transactions and tokens."""

    merchant_id: str = MERCHANT_ID
    user_id: str = USER_ID
    pin: str = PIN
    sandbox: bool = True
    requests: list[ET.Element] = attrs.field(factory=list)
    transactions: dict[str, Txn] = attrs.field(factory=dict)
    used: set[str] = attrs.field(factory=set)
    card_manager: dict[str, tuple[Card, str]] = attrs.field(factory=dict)
    sessions: dict[str, dict[str, str]] = attrs.field(factory=dict)  # lightbox token -> form
    _next: int = 1
    _fail: int | None = None
    _timeout: str | None = None

    def fail_next(self, status: int = 500) -> None:
        self._fail = status

    def timeout_next(self, after_processing: bool = False) -> None:
        self._timeout = "after" if after_processing else "before"

    def lightbox_token(self, session: str, number: str) -> str | None:
        """The lightbox of a token session: the typed card into Card Manager, its ssl_token
        (None for an unknown session or a number that matches no test card)."""
        form = self.sessions.get(session)
        card = next((c for c in CARDS.values() if number.endswith(c.last4)), None)
        if form is None or card is None or form.get("ssl_transaction_type") != "ccgettoken":
            return None
        token = f"44219120{len(self.card_manager):04d}{card.last4}"
        self.card_manager[token] = (card, "")
        return token

    def sent(self, kind: str) -> list[ET.Element]:
        return [r for r in self.requests if _field(r, "ssl_transaction_type") == kind]

    def of_kind(self, kind: str) -> list[Txn]:
        return [t for t in self.transactions.values() if t.kind == kind]

    # --- transport --------------------------------------------------------------------

    def handler(self, request: httpx.Request) -> httpx.Response:
        if self._timeout == "before":
            self._timeout = None
            raise httpx.ReadTimeout("fake Converge timed out", request=request)
        if self._fail is not None:
            status, self._fail = self._fail, None
            return httpx.Response(status, text="<html>Service Unavailable</html>")
        host, path = (DEMO_HOST, DEMO_PATH) if self.sandbox else (LIVE_HOST, LIVE_PATH)
        if (
            request.method == "POST"
            and request.url.host == host
            and (request.url.path == HOSTED_PATH)
        ):
            return self._session(request)
        if request.method != "POST" or request.url.host != host or request.url.path != path:
            return httpx.Response(404, text="<html>Not Found</html>")
        if not request.headers.get("content-type", "").startswith(
            "application/x-www-form-urlencoded"
        ):
            return _error("4000", "Invalid request", "xmldata must be form-encoded")
        form = parse_qs(request.content.decode(), keep_blank_values=True)
        if list(form) != ["xmldata"] or len(form["xmldata"]) != 1:
            return _error("4000", "Invalid request", "xmldata is required")
        try:
            txn = ET.fromstring(form["xmldata"][0])  # noqa: S314 - our own test traffic
        except ET.ParseError:
            return _error("4000", "Invalid XML", "The XML request is not well formed")
        if txn.tag != "txn":
            return _error("4000", "Invalid XML", "The root element must be txn")
        self.requests.append(txn)
        response = self._process(txn)
        if self._timeout == "after":
            self._timeout = None
            raise httpx.ReadTimeout("fake Converge timed out after processing", request=request)
        return response

    def _process(self, txn: ET.Element) -> httpx.Response:
        if (
            _field(txn, "ssl_merchant_id") != self.merchant_id
            or _field(txn, "ssl_user_id") != self.user_id
            or _field(txn, "ssl_pin") != self.pin
        ):
            return _error(
                "4025",
                "Invalid Credentials",
                "The credentials supplied in the authorization request are invalid.",
            )
        kind = (_field(txn, "ssl_transaction_type") or "").upper()
        handlers = {
            "CCSALE": self._charge,
            "CCAUTHONLY": self._charge,
            "CCCOMPLETE": self._complete,
            "CCRETURN": self._return,
            "CCDELETE": self._delete,
            "CCGETTOKEN": self._get_token,
            "TXNQUERY": self._query,
        }
        if kind not in handlers:
            return _error("4000", "Invalid transaction type", "unsupported ssl_transaction_type")
        try:
            return handlers[kind](txn)
        except _Refused as e:
            return _error(*e.args)

    def _session(self, request: httpx.Request) -> httpx.Response:
        form = {k: v[0] for k, v in parse_qs(request.content.decode(),
                                               keep_blank_values=True).items()}  # fmt: skip
        if (
            form.get("ssl_merchant_id") != self.merchant_id
            or form.get("ssl_user_id") != self.user_id
            or form.get("ssl_pin") != self.pin
        ):
            return httpx.Response(200, text="4025 The credentials supplied are invalid.")
        kind = form.get("ssl_transaction_type", "").lower()
        if kind not in ("ccsale", "ccauthonly", "ccverify", "ccgettoken"):
            return httpx.Response(200, text="4000 Invalid transaction type")
        if kind in ("ccsale", "ccauthonly") and not form.get("ssl_amount"):
            return httpx.Response(200, text="5091 Invalid amount")
        token = f"{len(self.sessions):04d}FakeLightboxSessionToken{self._next:06d}"
        self._next += 1
        self.sessions[token] = form
        return httpx.Response(200, text=token)

    # --- operations -------------------------------------------------------------------

    def _token(self, txn: ET.Element) -> Card:
        token = _field(txn, "ssl_token") or ""
        if token in self.card_manager:
            return self.card_manager[token][0]
        if token in self.used or token not in CARDS:
            raise _Refused("5087", "Invalid Token", "The token supplied is invalid.")
        self.used.add(token)
        return CARDS[token]

    def _charge(self, txn: ET.Element) -> httpx.Response:
        kind = "SALE" if _field(txn, "ssl_transaction_type") == "CCSALE" else "AUTHONLY"
        amount = _amount(txn)
        merchant_txn = _field(txn, "ssl_merchant_txn_id") or ""
        if len(merchant_txn) > 50 or len(_field(txn, "ssl_invoice_number") or "") > 25:
            raise _Refused("4009", "Field Length", "A field exceeds its maximum length.")
        card = self._token(txn)
        approved = card.issuer == "00"
        record = self._record(
            kind,
            amount,
            card,
            "0" if approved else "1",
            card.message,
            card.issuer,
            merchant_txn_id=merchant_txn,
            invoice=_field(txn, "ssl_invoice_number") or "",
        )
        return _txn(self._describe(record))

    def _complete(self, txn: ET.Element) -> httpx.Response:
        auth = self.transactions.get(_field(txn, "ssl_txn_id") or "")
        amount = _amount(txn)
        if auth is None or auth.kind != "AUTHONLY" or auth.result != "0":
            raise _Refused(
                "5040",
                "Invalid Transaction ID",
                "The transaction ID is invalid for this transaction type",
            )
        if amount > auth.amount:
            raise _Refused(
                "5091", "Invalid amount", "The amount exceeded the original transaction amount."
            )
        auth.kind, auth.completed = "SALE", amount
        return _txn({**self._describe(auth), "ssl_amount": str(amount)})

    def _return(self, txn: ET.Element) -> httpx.Response:
        original = self.transactions.get(_field(txn, "ssl_txn_id") or "")
        amount = _amount(txn)
        if original is None or original.kind != "SALE" or original.result != "0":
            raise _Refused(
                "5040",
                "Invalid Transaction ID",
                "The transaction ID is invalid for this transaction type",
            )
        captured = original.completed or original.amount
        if original.returned + amount > captured:
            raise _Refused(
                "5091", "Invalid amount", "The amount exceeded the original transaction amount."
            )
        original.returned += amount
        record = self._record("RETURN", amount, original.card, "0", "APPROVAL", "00")
        record.original = original.id
        return _txn(self._describe(record))

    def _delete(self, txn: ET.Element) -> httpx.Response:
        original = self.transactions.get(_field(txn, "ssl_txn_id") or "")
        if original is None or original.kind not in ("SALE", "AUTHONLY") or original.result != "0":
            raise _Refused(
                "5040",
                "Invalid Transaction ID",
                "The transaction ID is invalid for this transaction type",
            )
        original.kind = "VOID"
        return _txn({**self._describe(original), "ssl_transaction_type": "DELETE"})

    def _get_token(self, txn: ET.Element) -> httpx.Response:
        card = self._token(txn)
        if card.issuer != "00":
            return _txn(
                {
                    "ssl_result": "1",
                    "ssl_result_message": card.message,
                    "ssl_token_response": "Failed",
                    "ssl_transaction_type": "GETTOKEN",
                }
            )
        existing = next((t for t, (c, _) in self.card_manager.items() if c == card), None)
        token = existing or f"44219120{len(self.card_manager):04d}{card.last4}"
        customer = _field(txn, "ssl_customer_id") or ""
        if _field(txn, "ssl_add_token") == "Y":
            self.card_manager[token] = (card, customer)
        return _txn(
            {
                "ssl_result": "0",
                "ssl_transaction_type": "GETTOKEN",
                "ssl_token": token,
                "ssl_token_response": "SUCCESS",
                "ssl_add_token_response": "Card Updated" if existing else "Card Added",
                "ssl_card_number": f"{'*' * 12}{card.last4}",
                "ssl_exp_date": card.expiry,
                "ssl_card_short_description": card.brand,
                "ssl_customer_id": customer,
            }
        )

    def _query(self, txn: ET.Element) -> httpx.Response:
        txn_id = _field(txn, "ssl_txn_id")
        merchant_txn = _field(txn, "ssl_merchant_txn_id")
        if not txn_id and not merchant_txn:
            raise _Refused("4009", "Required Field Not Supplied", "A search field is required.")
        matches = [
            t
            for t in self.transactions.values()
            if (txn_id and t.id == txn_id) or (merchant_txn and t.merchant_txn_id == merchant_txn)
        ]
        root = ET.Element("txnlist")
        ET.SubElement(root, "ssl_txn_count").text = str(len(matches))
        for match in matches:
            item = ET.SubElement(root, "txn")
            for name, value in self._describe(match).items():
                ET.SubElement(item, name).text = value
        return httpx.Response(200, content=ET.tostring(root, encoding="utf-8"))

    # --- helpers ----------------------------------------------------------------------

    def _record(
        self,
        kind: str,
        amount: Decimal,
        card: Card,
        result: str,
        message: str,
        issuer: str,
        merchant_txn_id: str = "",
        invoice: str = "",
    ) -> Txn:
        txn_id = f"180820AD3-{self._next:08X}-63F3-427D-BFC1-1B3EB046056B"
        self._next += 1
        record = Txn(txn_id, kind, amount, card, result, message, issuer, merchant_txn_id, invoice)
        self.transactions[txn_id] = record
        return record

    def _describe(self, record: Txn) -> dict[str, str]:
        return {
            "ssl_result": record.result,
            "ssl_result_message": record.message,
            "ssl_issuer_response": record.issuer,
            "ssl_txn_id": record.id,
            "ssl_transaction_type": record.kind,
            "ssl_trans_status": record.state,
            "ssl_amount": str(record.amount),
            "ssl_card_number": f"{'*' * 12}{record.card.last4}",
            "ssl_card_short_description": record.card.brand,
            "ssl_approval_code": "094012" if record.result == "0" else "",
            "ssl_merchant_txn_id": record.merchant_txn_id,
            "ssl_invoice_number": record.invoice,
            "ssl_txn_time": "11/23/2026 10:00:00 AM",
        }


class _Refused(Exception):
    pass


def _field(txn: ET.Element, name: str) -> str | None:
    found = txn.find(name)
    return None if found is None else (found.text or "")


def _amount(txn: ET.Element) -> Decimal:
    text = _field(txn, "ssl_amount") or ""
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise _Refused("5091", "Invalid amount", "The amount supplied is invalid.") from None
    if value <= 0 or value != value.quantize(Decimal("0.01")):
        raise _Refused("5091", "Invalid amount", "The amount supplied is invalid.")
    return value


def _txn(fields: dict[str, str]) -> httpx.Response:
    root = ET.Element("txn")
    for name, value in fields.items():
        ET.SubElement(root, name).text = value
    return httpx.Response(200, content=ET.tostring(root, encoding="utf-8", xml_declaration=True))


def _error(code: str, name: str, message: str) -> httpx.Response:
    return _txn({"errorCode": code, "errorName": name, "errorMessage": message})
