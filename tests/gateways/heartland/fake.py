"""An in-memory fake of Heartland's Portico POS Gateway (SOAP), for ``httpx.MockTransport``.

Written from public Portico material, not from the adapter:

- globalpayments/php-sdk ``src/Gateways/PorticoConnector.php``: the SOAP 1.1 envelope with
  ``PosRequest/Ver1.0/Header`` (``SecretAPIKey``, optional ``ClientTxnId``) and
  ``Transaction/{Operation}`` in the namespace ``http://Hps.Exchange.PosGateway``; ``Block1``
  for ``CreditSale``/``CreditAuth``/``CreditReturn``/``CreditReversal``/``CreditAccountVerify``,
  ``GatewayTxnId`` (and ``Amt``) directly under ``CreditAddToBatch`` and ``CreditVoid``;
  ``CardData/TokenData/TokenValue`` and ``CardData/TokenRequest``; ``ReportTxnDetail``
  (``TzConversion``, ``TxnId``; answer ``GatewayTxnId``, ``ServiceName``, ``Data/…`` with
  ``Amt``, ``AuthAmt``, ``SettlementAmt``, ``RspCode``, ``RspText``, ``TxnStatus``,
  ``ClientTxnId``); ``FindTransactions`` (``Criteria/ClientTxnId``, answer ``Transactions``
  items); response ``Header`` with ``GatewayTxnId``, ``GatewayRspCode``, ``GatewayRspMsg``
  and ``TokenData`` (``TokenRspCode``, ``TokenRspMsg``, ``TokenValue``); accepted codes 0,
  00, 85, 10.
- ActiveMerchant ``hps.rb`` and ``hps/infrastructure/exceptions.json``: gateway codes -2
  (authentication), 1 (system error), 3 (invalid original transaction), 13 (invalid card
  data), 30 (gateway timed out; the SDK then reverses); issuer codes 00 approved, 05/51/54/
  N7/43 declines, 91 issuer timeout.
- SDK tests: ``https://cert.api2.heartlandportico.com`` with ``skapi_cert_`` keys.

Not public and modelled here: a spent or unknown single-use token answers gateway code 13
("Invalid card data: token not found"); ``TxnStatus`` is ``A`` (active), ``V`` (voided) or
``R`` (reversed); ``SettlementAmt`` becomes the captured amount on ``CreditAddToBatch``;
``CreditAccountVerify`` returns ``CardType`` and ``TokenPANLast4``.

Single-use tokens the fake knows (each can be used once):
``supt_visa`` (Visa 4242), ``supt_mastercard`` (MC 5454), ``supt_discover`` (Discover 1117),
``supt_decline`` 05,
``supt_insufficient`` 51, ``supt_expired`` 54, ``supt_cvv`` N7, ``supt_stolen`` 43,
``supt_issuer_down`` 91, ``supt_gateway_timeout`` (gateway code 30).

Knobs: ``fail_next(status)``; ``reversals_fail``; ``timeout_next(after_processing=...)``;
``requests`` keeps each parsed ``Ver1.0`` element.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from xml.etree import ElementTree as ET

import attrs
import httpx

from tests.gateways.heartland.contract import portico

SOAP = "http://schemas.xmlsoap.org/soap/envelope/"
NS = "http://Hps.Exchange.PosGateway"
CERT_KEY = "skapi_cert_MfakeHeartlandPorticoKey_0123456789"
PROD_KEY = "skapi_prod_MfakeHeartlandPorticoKey_9876543210"
CERT_HOST = "cert.api2.heartlandportico.com"
LIVE_HOST = "api2.heartlandportico.com"
PATH = "/Hps.Exchange.PosGateway/PosGatewayService.asmx"


@attrs.frozen
class Card:
    last4: str
    brand: str  # Portico CardType
    rsp: str = "00"
    text: str = "APPROVAL"
    gateway: str = "0"


CARDS: dict[str, Card] = {
    "supt_visa": Card("4242", "Visa"),
    "supt_mastercard": Card("5454", "MC"),
    "supt_discover": Card("1117", "Disc"),
    "supt_decline": Card("0002", "Visa", "05", "DECLINE"),
    "supt_insufficient": Card("0003", "Visa", "51", "DECLINE"),
    "supt_expired": Card("0004", "Visa", "54", "EXPIRED CARD"),
    "supt_cvv": Card("0005", "Visa", "N7", "CVV2 MISMATCH"),
    "supt_stolen": Card("0006", "Visa", "43", "HOLD-CALL"),
    "supt_issuer_down": Card("0007", "Visa", "91", "NO REPLY"),
    "supt_gateway_timeout": Card("0008", "Visa", "00", "APPROVAL", gateway="30"),
}


@attrs.define
class Txn:
    id: str
    service: str
    amount: Decimal
    client_txn_id: str
    card: Card | None
    rsp: str
    text: str
    gateway: str = "0"
    status: str = "A"
    settled: Decimal = Decimal(0)
    returned: Decimal = Decimal(0)
    original: str | None = None


@attrs.define
class FakeHeartland:
    """Portico in memory: one merchant key, its transactions and tokens."""

    key: str = CERT_KEY
    sandbox: bool = True
    requests: list[ET.Element] = attrs.field(factory=list)
    transactions: dict[str, Txn] = attrs.field(factory=dict)
    used: set[str] = attrs.field(factory=set)
    multi_use: dict[str, Card] = attrs.field(factory=dict)
    reversals_fail: bool = False
    # Every request is held to the vendor SDK's element tree (tests/gateways/heartland/contract)
    # and refused with a schema fault, as Portico would, when it strays from it.
    contract: Callable[[ET.Element], None] | None = attrs.field(factory=lambda: portico.check)
    violations: list[str] = attrs.field(factory=list)
    _next_id: int = 1_234_567_000
    _fail: int | None = None
    _timeout: str | None = None

    def fail_next(self, status: int = 500) -> None:
        self._fail = status

    def timeout_next(self, after_processing: bool = False) -> None:
        self._timeout = "after" if after_processing else "before"

    def sent(self, operation: str) -> list[ET.Element]:
        return [
            op
            for r in self.requests
            for t in r.findall(f"{{{NS}}}Transaction")
            for op in t
            if _local(op.tag) == operation
        ]

    def of_service(self, service: str) -> list[Txn]:
        return [t for t in self.transactions.values() if t.service == service]

    # --- transport --------------------------------------------------------------------

    def handler(self, request: httpx.Request) -> httpx.Response:
        if self._timeout == "before":
            self._timeout = None
            raise httpx.ReadTimeout("fake Portico timed out", request=request)
        if self._fail is not None:
            status, self._fail = self._fail, None
            return httpx.Response(status, text="<html>Service Unavailable</html>")
        host = CERT_HOST if self.sandbox else LIVE_HOST
        if request.method != "POST" or request.url.host != host or request.url.path != PATH:
            return httpx.Response(404, text="<html>Not Found</html>")
        if not request.headers.get("content-type", "").startswith("text/xml"):
            return httpx.Response(415, text="Unsupported Media Type")
        try:
            root = ET.fromstring(request.content)  # noqa: S314 - our own test traffic
        except ET.ParseError:
            return _fault("Server was unable to read request.")
        version = root.find(f"{{{SOAP}}}Body/{{{NS}}}PosRequest/{{{NS}}}Ver1.0")
        if version is None:
            return _fault("Server did not recognize the value of HTTP Header SOAPAction.")
        self.requests.append(version)
        if self.contract is not None:
            try:
                self.contract(version)
            except portico.ContractViolation as e:
                self.violations.append(str(e))
                return _fault(f"Server was unable to read request: {e}")
        response = self._pos(version)
        if self._timeout == "after":
            self._timeout = None
            raise httpx.ReadTimeout("fake Portico timed out after processing", request=request)
        return response

    def _pos(self, version: ET.Element) -> httpx.Response:
        header = version.find(f"{{{NS}}}Header")
        ops = list(version.find(f"{{{NS}}}Transaction") or [])
        if header is None or len(ops) != 1:
            return _fault("Server was unable to read request: schema")
        if _field(header, "SecretAPIKey") != self.key:
            return _answer(self._new_id(), "-2", "Authentication Error")
        client_id = _field(header, "ClientTxnId") or ""
        if len(client_id) > 50:
            return _fault("ClientTxnId is longer than 50 characters")
        op = ops[0]
        name = _local(op.tag)
        handlers = {
            "CreditSale": self._charge,
            "CreditAuth": self._charge,
            "CreditAddToBatch": self._capture,
            "CreditReturn": self._return,
            "CreditVoid": self._void,
            "CreditReversal": self._reversal,
            "CreditAccountVerify": self._verify,
            "ReportTxnDetail": self._detail,
            "FindTransactions": self._find,
        }
        if name not in handlers:
            return _fault(f"unknown transaction {name}")
        try:
            return handlers[name](op, client_id)
        except _SchemaError as e:
            return _fault(f"Server was unable to read request: {e}")

    # --- operations -------------------------------------------------------------------

    def _card(self, block: ET.Element) -> tuple[str, Card | None]:
        data = block.find(f"{{{NS}}}CardData")
        token = data.find(f"{{{NS}}}TokenData") if data is not None else None
        value = _field(token, "TokenValue") if token is not None else None
        if not value:
            raise _SchemaError("CardData/TokenData/TokenValue is required")
        if value in self.multi_use:
            return value, self.multi_use[value]
        if value in self.used or value not in CARDS:
            return value, None
        self.used.add(value)
        return value, CARDS[value]

    def _charge(self, op: ET.Element, client_id: str) -> httpx.Response:
        service = _local(op.tag)
        block = _block(op)
        amount = _amount(block)
        if _field(block, "AllowDup") not in ("Y", "N"):
            raise _SchemaError("AllowDup")
        _token, card = self._card(block)
        if card is None:
            return _answer(self._new_id(), "13", "Invalid card data: token not found")
        txn = self._record(service, amount, client_id, card, card.rsp, card.text, card.gateway)
        if card.gateway != "0":
            return _answer(txn.id, card.gateway, "Gateway timed out", client_id=client_id)
        body = ET.Element(f"{{{NS}}}{service}")
        _add(body, "RspCode", card.rsp)
        _add(body, "RspText", card.text)
        if card.rsp == "00":
            _add(body, "AuthCode", "12345A")
            _add(body, "AVSRsltCode", "0")
            _add(body, "CVVRsltCode", "M")
            _add(body, "AuthAmt", str(amount))
        _add(body, "CardType", card.brand)
        return _answer(txn.id, "0", "Success", body, client_id=client_id)

    def _capture(self, op: ET.Element, client_id: str) -> httpx.Response:
        auth = self.transactions.get(_required(op, "GatewayTxnId"))
        amount = _amount(op) if op.find(f"{{{NS}}}Amt") is not None else None
        new = self._new_id()
        if auth is None or auth.service != "CreditAuth" or auth.rsp != "00":
            return _answer(new, "3", "Invalid original transaction")
        if auth.status != "A" or auth.settled:
            return _answer(new, "3", "Transaction rejected because it is not in an open batch")
        wanted = auth.amount if amount is None else amount
        if wanted > auth.amount:
            return _answer(new, "3", "Amount exceeds the authorized amount")
        auth.settled = wanted
        return _answer(new, "0", "Success", ET.Element(f"{{{NS}}}CreditAddToBatch"))

    def _return(self, op: ET.Element, client_id: str) -> httpx.Response:
        block = _block(op)
        original = self.transactions.get(_required(block, "GatewayTxnId"))
        amount = _amount(block)
        if original is None or original.rsp != "00" or original.status != "A":
            return _answer(self._new_id(), "3", "Invalid original transaction")
        captured = original.amount if original.service == "CreditSale" else original.settled
        if not captured:
            return _answer(self._new_id(), "3", "Transaction has not been captured")
        if original.returned + amount > captured:
            return _answer(self._new_id(), "3", "Return amount exceeds the original amount")
        original.returned += amount
        txn = self._record("CreditReturn", amount, client_id, original.card, "00", "")
        txn.original = original.id
        return _answer(txn.id, "0", "Success", ET.Element(f"{{{NS}}}CreditReturn"))

    def _void(self, op: ET.Element, client_id: str) -> httpx.Response:
        original = self.transactions.get(_required(op, "GatewayTxnId"))
        if original is None or original.status != "A" or original.rsp != "00":
            return _answer(self._new_id(), "3", "Invalid original transaction")
        original.status = "V"
        return _answer(self._new_id(), "0", "Success", ET.Element(f"{{{NS}}}CreditVoid"))

    def _reversal(self, op: ET.Element, client_id: str) -> httpx.Response:
        block = _block(op)
        original = self.transactions.get(_required(block, "GatewayTxnId"))
        _amount(block)
        if self.reversals_fail:
            return _answer(self._new_id(), "1", "Gateway system error")
        if original is None or original.status != "A":
            return _answer(self._new_id(), "3", "Invalid original transaction")
        original.status = "R"
        return _answer(self._new_id(), "0", "Success", ET.Element(f"{{{NS}}}CreditReversal"))

    def _verify(self, op: ET.Element, client_id: str) -> httpx.Response:
        block = _block(op)
        data = block.find(f"{{{NS}}}CardData")
        wants_token = data is not None and _field(data, "TokenRequest") == "Y"
        _token, card = self._card(block)
        if card is None:
            return _answer(self._new_id(), "13", "Invalid card data: token not found")
        rsp = "85" if card.rsp == "00" else card.rsp
        txn = self._record("CreditAccountVerify", Decimal(0), client_id, card, rsp, card.text)
        body = ET.Element(f"{{{NS}}}CreditAccountVerify")
        _add(body, "RspCode", rsp)
        _add(body, "RspText", "CARD OK" if rsp == "85" else card.text)
        _add(body, "CardType", card.brand)
        _add(body, "TokenPANLast4", card.last4)
        token = None
        if wants_token and rsp == "85":
            token = next((t for t, c in self.multi_use.items() if c == card), None)
            token = token or f"muTok{len(self.multi_use):04d}x{card.last4}"
            self.multi_use[token] = card
        return _answer(txn.id, "0", "Success", body, client_id=client_id, token=token)

    def _detail(self, op: ET.Element, client_id: str) -> httpx.Response:
        txn = self.transactions.get(_required(op, "TxnId"))
        if txn is None:
            return _answer(self._new_id(), "3", "Transaction not found")
        body = ET.Element(f"{{{NS}}}ReportTxnDetail")
        _add(body, "GatewayTxnId", txn.id)
        _add(body, "ServiceName", txn.service)
        data = ET.SubElement(body, f"{{{NS}}}Data")
        self._describe(data, txn)
        return _answer(self._new_id(), "0", "Success", body)

    def _find(self, op: ET.Element, client_id: str) -> httpx.Response:
        criteria = op.find(f"{{{NS}}}Criteria")
        if criteria is None:
            raise _SchemaError("Criteria is required")
        wanted = _field(criteria, "ClientTxnId")
        body = ET.Element(f"{{{NS}}}FindTransactions")
        for txn in self.transactions.values():
            if wanted and txn.client_txn_id == wanted:
                item = ET.SubElement(body, f"{{{NS}}}Transactions")
                _add(item, "GatewayTxnId", txn.id)
                _add(item, "ServiceName", txn.service)
                self._describe(item, txn)
        return _answer(self._new_id(), "0", "Success", body)

    # --- helpers ----------------------------------------------------------------------

    def _describe(self, parent: ET.Element, txn: Txn) -> None:
        _add(parent, "GatewayRspCode", txn.gateway)
        _add(parent, "RspCode", txn.rsp)
        _add(parent, "RspText", txn.text)
        _add(parent, "Amt", str(txn.amount))
        _add(parent, "AuthAmt", str(txn.amount) if txn.rsp in ("00", "85") else "0.00")
        _add(parent, "SettlementAmt", str(txn.settled))
        _add(parent, "TxnStatus", txn.status)
        if txn.client_txn_id:
            _add(parent, "ClientTxnId", txn.client_txn_id)
        if txn.card is not None:
            _add(parent, "CardType", txn.card.brand)
            _add(parent, "MaskedCardNbr", f"XXXXXXXXXXXX{txn.card.last4}")

    def _new_id(self) -> str:
        self._next_id += 1
        return str(self._next_id)

    def _record(
        self,
        service: str,
        amount: Decimal,
        client_id: str,
        card: Card | None,
        rsp: str,
        text: str,
        gateway: str = "0",
    ) -> Txn:
        txn = Txn(self._new_id(), service, amount, client_id, card, rsp, text, gateway)
        self.transactions[txn.id] = txn
        return txn


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


def _block(op: ET.Element) -> ET.Element:
    block = op.find(f"{{{NS}}}Block1")
    if block is None:
        raise _SchemaError("Block1 is required")
    return block


def _amount(parent: ET.Element) -> Decimal:
    text = _required(parent, "Amt")
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise _SchemaError("Amt must be a decimal") from None
    if value <= 0 or value.as_tuple().exponent not in (0, -1, -2):
        raise _SchemaError("Amt must be positive with at most two decimals")
    return value


def _add(parent: ET.Element, name: str, text: str) -> None:
    ET.SubElement(parent, f"{{{NS}}}{name}").text = text


def _answer(
    txn_id: str,
    code: str,
    message: str,
    body: ET.Element | None = None,
    *,
    client_id: str = "",
    token: str | None = None,
) -> httpx.Response:
    envelope = ET.Element(f"{{{SOAP}}}Envelope")
    soap_body = ET.SubElement(envelope, f"{{{SOAP}}}Body")
    version = ET.SubElement(ET.SubElement(soap_body, f"{{{NS}}}PosResponse"), f"{{{NS}}}Ver1.0")
    header = ET.SubElement(version, f"{{{NS}}}Header")
    _add(header, "SiteId", "123456")
    _add(header, "GatewayTxnId", txn_id)
    _add(header, "GatewayRspCode", code)
    _add(header, "GatewayRspMsg", message)
    _add(header, "RspDT", "2026-11-23T10:00:00")
    if client_id:
        _add(header, "ClientTxnId", client_id)
    if token is not None:
        data = ET.SubElement(header, f"{{{NS}}}TokenData")
        _add(data, "TokenRspCode", "0")
        _add(data, "TokenRspMsg", "Success")
        _add(data, "TokenValue", token)
    if body is not None:
        ET.SubElement(version, f"{{{NS}}}Transaction").append(body)
    return httpx.Response(
        200,
        content=ET.tostring(envelope, encoding="utf-8", xml_declaration=True),
        headers={"content-type": "text/xml; charset=utf-8"},
    )


def _fault(message: str) -> httpx.Response:
    envelope = ET.Element(f"{{{SOAP}}}Envelope")
    fault = ET.SubElement(ET.SubElement(envelope, f"{{{SOAP}}}Body"), f"{{{SOAP}}}Fault")
    ET.SubElement(fault, "faultcode").text = "soap:Client"
    ET.SubElement(fault, "faultstring").text = message
    return httpx.Response(
        500, content=ET.tostring(envelope), headers={"content-type": "text/xml; charset=utf-8"}
    )
