"""Heartland (Global Payments) Portico, through its SOAP XML POS Gateway.

Every call is one HTTPS POST (``text/xml``) of a SOAP 1.1 envelope whose body is
``<PosRequest><Ver1.0><Header>…</Header><Transaction><{Operation}>…`` in the namespace
``http://Hps.Exchange.PosGateway``, to ``PosGatewayService.asmx`` on
``cert.api2.heartlandportico.com`` (``creds.sandbox``) or ``api2.heartlandportico.com``.
The merchant's credential in payhub is only ``apiSecret``: Portico's ``SecretAPIKey``
(``skapi_cert_…`` for certification, ``skapi_prod_…`` live; a key of the other mode is
refused before anything is sent). Documents are built and read with
``xml.etree.ElementTree`` only: tokens, ids and descriptions are always element text.

Answers: ``Header/GatewayRspCode`` is ``0`` when the gateway processed the request (``-2``
authentication failed, ``1`` gateway system error, ``3`` invalid original transaction,
``30`` the gateway timed out talking to the issuer); card operations then carry the
issuer's ``RspCode`` (``00`` approved, ``85`` verified, ``10`` partially approved) and
``RspText``. ``Header/GatewayTxnId`` identifies each transaction and is payhub's reference.

Operations: ``CreditSale`` / ``CreditAuth`` (capture=False) with the globalpayments.js
single-use token (or a saved multi-use token) as ``CardData/TokenData/TokenValue``;
``CreditAddToBatch`` (capture, possibly of a lower ``Amt``); ``CreditReturn`` (refund by
``GatewayTxnId``, full or partial); ``CreditVoid`` (payhub's void of an authorization);
``CreditReversal`` (only after a ``30``/``91`` timeout answer, as Heartland's SDKs do, so
the issuer's hold is released); ``CreditAccountVerify`` with ``TokenRequest=Y`` (saving a
card: the header's ``TokenData/TokenValue`` is the multi-use token); ``ReportTxnDetail``
(status) and ``FindTransactions`` (lost-charge lookup).

Idempotency: Portico has none. Every charge carries payhub's key (or a stable digest of it,
at most 50 characters) as the header's ``ClientTxnId``; ``lookup`` asks ``FindTransactions``
for that ``ClientTxnId`` before a retried charge is sent again. ``AllowDup=Y`` because
Portico's duplicate check would refuse a customer's legitimate second purchase of the same
amount, and a single-use token cannot be charged twice anyway.

Amounts are decimal dollars (``10.05``); Portico merchants settle in USD, so the adapter
charges USD only. Heartland keeps no customer object: a saved card is its multi-use token,
and payhub's customer id stands in as the gateway customer (sent as ``CustomerID``).

References:
- globalpayments/php-sdk ``src/Gateways/PorticoConnector.php`` (envelope, header
  ``SecretAPIKey`` and ``ClientTxnId``, ``Block1`` elements, ``TokenData/TokenValue``,
  ``TokenRequest``, ``CreditAddToBatch``/``CreditReturn``/``CreditVoid``/``CreditReversal``,
  ``ReportTxnDetail`` ``TxnId``, ``FindTransactions`` ``Criteria/ClientTxnId``, accepted
  codes 0/00/85/10)
- ActiveMerchant ``lib/active_merchant/billing/gateways/hps.rb`` and
  ``hps/infrastructure/exceptions.json`` (gateway codes -2/1/3/5/12/13/14/30, issuer codes,
  reversal after gateway code 30 and issuer code 91)
- globalpayments SDK tests and samples (``https://cert.api2.heartlandportico.com``,
  ``skapi_cert_`` keys)
"""

from __future__ import annotations

import hashlib
from decimal import Decimal, InvalidOperation

# Portico's XML comes from Heartland over TLS, never from users; Python's expat refuses
# external entities and caps entity expansion (see nmi.py for the same reasoning).
from xml.etree import ElementTree as ET

import attrs
import httpx

from payhub.adapters.gateways.kit import declines
from payhub.adapters.gateways.kit.answers import unexpected, xml_root
from payhub.adapters.gateways.kit.http import GatewayHttp
from payhub.adapters.gateways.kit.redaction import redact
from payhub.domain.errors import ValidationError
from payhub.domain.money import Money
from payhub.domain.payments import (
    ChargeRequest,
    Declined,
    GatewayCredentials,
    GatewayCredentialsRejected,
    GatewayError,
    GatewayResult,
    GatewayStatus,
    GatewayTimeout,
    GatewayUnavailable,
    MethodType,
    PaymentMethodInvalid,
    SavedMethod,
    SaveMethodRequest,
)

GATEWAY = "heartland"
CERT_URL = "https://cert.api2.heartlandportico.com/Hps.Exchange.PosGateway/PosGatewayService.asmx"
LIVE_URL = "https://api2.heartlandportico.com/Hps.Exchange.PosGateway/PosGatewayService.asmx"
SOAP_NS = "http://schemas.xmlsoap.org/soap/envelope/"
HPS_NS = "http://Hps.Exchange.PosGateway"
CLIENT_TXN_MAX = 50
CURRENCY = "USD"
CERT_KEY_MARK = "_cert_"

_APPROVED = frozenset({"00", "85"})
_PARTIAL = "10"
_ISSUER_TIMEOUT = "91"
_GATEWAY_OK = "0"
_TOKEN_OK = "0"  # noqa: S105 - a response code, not a secret
_GATEWAY_TIMEOUT = "30"
_GATEWAY_AUTH = "-2"
_GATEWAY_SYSTEM = "1"
_GATEWAY_CARD = frozenset({"13", "14"})  # invalid card data / invalid card number

# Portico's own issuer RspCodes beside ISO 8583's (kit/declines.py).
_DECLINE_OVERLAY = {
    "80": "expired_card",  # invalid expiration date
    "EB": "incorrect_cvc",  # CVV check failed
    "EC": "processing_error",  # CID format error
}
_BRANDS = {
    "visa": "visa",
    "mc": "mastercard",
    "mastercard": "mastercard",
    "amex": "amex",
    "disc": "discover",
    "discover": "discover",
    "jcb": "jcb",
    "diners": "diners",
}
_CREDENTIALS_HINT = "update it with PUT /api/merchant-accounts/{ref}/credentials/heartland"


def endpoint(sandbox: bool) -> str:
    return CERT_URL if sandbox else LIVE_URL


def client_txn_id(key: str) -> str:
    """payhub's key as a Portico ``ClientTxnId``: itself when it fits, else a stable digest."""
    if 0 < len(key) <= CLIENT_TXN_MAX and key.isascii() and key.isprintable():
        return key
    return "ph" + hashlib.sha256(key.encode()).hexdigest()[: CLIENT_TXN_MAX - 2]


def decline_code(rsp_code: str) -> str:
    return declines.decline_code(rsp_code, overlay=_DECLINE_OVERLAY)


@attrs.frozen
class _Answer:
    """One ``PosResponse/Ver1.0``, reduced to what payhub reads."""

    gateway_code: str
    gateway_message: str
    txn_id: str
    token_code: str
    token_value: str
    body: dict[str, str]  # the operation element's leaf fields (Data/… flattened)
    items: list[dict[str, str]]  # FindTransactions/Transactions

    @property
    def rsp_code(self) -> str:
        return self.body.get("RspCode", "")

    def support(self) -> dict[str, str]:
        note = {"gateway_txn_id": self.txn_id, "gateway_rsp_code": self.gateway_code}
        for key in ("RspCode", "AuthCode", "AVSRsltCode", "CVVRsltCode"):
            if self.body.get(key):
                note[key] = self.body[key][:32]
        return {k: v for k, v in note.items() if v}


class HeartlandGateway:
    """The ``Gateway`` port (and ``FindsLostCharges``) for Heartland Portico, cards only."""

    name = GATEWAY

    def __init__(self, client: httpx.Client | None = None) -> None:
        self._http = GatewayHttp(GATEWAY, client)

    # --- the Gateway port ------------------------------------------------------------------

    def charge(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult:
        """A ``CreditSale`` or ``CreditAuth`` from a single-use or multi-use token."""
        source = request.source
        if source.method_type is not MethodType.CARD:
            raise ValueError("payhub takes only cards through Heartland")
        amount = _decimal(request.amount)
        token = source.token if source.token is not None else source.saved_method_ref or ""
        operation = "CreditSale" if request.capture else "CreditAuth"
        txn = ET.Element(_q(operation))
        block = _sub(txn, "Block1")
        _text(block, "AllowDup", "Y")
        _text(block, "AllowPartialAuth", "N")
        _text(block, "Amt", amount)
        card = _sub(block, "CardData")
        _token_data(card, token)
        _text(card, "TokenRequest", "N")
        if request.description or source.gateway_customer_ref:  # CustomerID first, as the SDK
            extra = _sub(block, "AdditionalTxnFields")
            if source.gateway_customer_ref:
                _text(extra, "CustomerID", source.gateway_customer_ref[:50])
            if request.description:
                _text(extra, "Description", request.description[:100])
        _text(block, "Ecommerce", "ECOM")
        answer = self._send(
            creds, txn, client_id=client_txn_id(request.idempotency_key), secrets=(token,)
        )
        if answer.gateway_code == _GATEWAY_TIMEOUT:
            self._reverse_after_timeout(creds, answer.txn_id, amount)
        if answer.gateway_code != _GATEWAY_OK:
            raise _gateway_failure(answer, charge=True)
        if answer.rsp_code == _ISSUER_TIMEOUT:
            self._reverse_after_timeout(creds, answer.txn_id, amount)
        if answer.rsp_code == _PARTIAL and not _full(answer.body.get("AuthAmt"), amount):
            # AllowPartialAuth=N: a partial approval should not come; never keep one.
            self._reverse_after_timeout(creds, answer.txn_id, amount)
            raise Declined(
                "Heartland approved only part of the amount; the authorization was reversed",
                gateway=GATEWAY,
                decline_code="insufficient_funds",
                gateway_request_id=answer.txn_id or None,
            )
        if answer.rsp_code not in _APPROVED and answer.rsp_code != _PARTIAL:
            raise _issuer_decline(answer)
        return GatewayResult(
            reference=answer.txn_id,
            status=GatewayStatus.CAPTURED if request.capture else GatewayStatus.AUTHORIZED,
            amount=request.amount,
            message=answer.body.get("RspText") or None,
            support=answer.support(),
        )

    def lookup(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult | None:
        """The approved charge Portico holds under this ``ClientTxnId``, if any."""
        wanted = client_txn_id(request.idempotency_key)
        service = "CreditSale" if request.capture else "CreditAuth"
        txn = ET.Element(_q("FindTransactions"))
        _text(txn, "TzConversion", "UTC")
        _text(_sub(txn, "Criteria"), "ClientTxnId", wanted)
        answer = self._send(creds, txn)
        if answer.gateway_code != _GATEWAY_OK:
            raise _gateway_failure(answer, charge=False)
        for item in answer.items:
            issuer = item.get("RspCode") or item.get("IssuerRspCode", "")
            if (
                item.get("ClientTxnId", wanted) == wanted
                and item.get("ServiceName") == service
                and item.get("GatewayRspCode", "0") in ("0", "00")
                and issuer in _APPROVED
                and item.get("TxnStatus", "") not in ("V", "R")
                and item.get("GatewayTxnId")
            ):
                return GatewayResult(
                    reference=item["GatewayTxnId"],
                    status=GatewayStatus.CAPTURED if request.capture else GatewayStatus.AUTHORIZED,
                    amount=request.amount,
                    message=item.get("RspText") or item.get("IssuerRspText") or None,
                    support={"gateway_txn_id": item["GatewayTxnId"], "RspCode": issuer},
                )
        return None

    def capture(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        """``CreditAddToBatch``: add the authorization to the batch, possibly for less."""
        txn = ET.Element(_q("CreditAddToBatch"))
        _text(txn, "Amt", _decimal(amount))  # element order as Global Payments' SDK sends it
        _text(txn, "GatewayTxnId", _txn_id(reference))
        answer = self._send(creds, txn, client_id=client_txn_id(idempotency_key))
        if answer.gateway_code != _GATEWAY_OK:
            raise _gateway_failure(answer, charge=False, action="capture")
        return GatewayResult(reference, GatewayStatus.CAPTURED, amount, support=answer.support())

    def refund(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        """``CreditReturn`` of all or part of a sale or captured authorization."""
        txn = ET.Element(_q("CreditReturn"))
        block = _sub(txn, "Block1")
        _text(block, "Amt", _decimal(amount))
        _text(block, "GatewayTxnId", _txn_id(reference))
        answer = self._send(creds, txn, client_id=client_txn_id(idempotency_key))
        if answer.gateway_code != _GATEWAY_OK:
            raise _gateway_failure(answer, charge=False, action="refund")
        return GatewayResult(
            answer.txn_id or reference,
            GatewayStatus.REFUNDED,
            amount,
            message=answer.gateway_message or None,
            support=answer.support(),
        )

    def void(
        self, creds: GatewayCredentials, reference: str, idempotency_key: str
    ) -> GatewayResult:
        """``CreditVoid`` of an authorization; its amount is read first with ReportTxnDetail."""
        detail = self._detail(creds, reference)
        txn = ET.Element(_q("CreditVoid"))
        _text(txn, "GatewayTxnId", _txn_id(reference))
        answer = self._send(creds, txn, client_id=client_txn_id(idempotency_key))
        if answer.gateway_code != _GATEWAY_OK:
            raise _gateway_failure(answer, charge=False, action="void")
        return GatewayResult(
            reference,
            GatewayStatus.VOIDED,
            _money(detail.body.get("AuthAmt") or detail.body.get("Amt")),
            support=answer.support(),
        )

    def status(self, creds: GatewayCredentials, reference: str) -> GatewayResult:
        """What ``ReportTxnDetail`` reports for the original sale or authorization."""
        detail = self._detail(creds, reference)
        data = detail.body
        amount = _money(data.get("Amt"))
        support = {"gateway_txn_id": reference, "TxnStatus": data.get("TxnStatus", "")[:8]}
        issuer = data.get("RspCode", "")
        if data.get("GatewayRspCode", "0") not in ("0", "00") or issuer not in (
            *_APPROVED,
            _PARTIAL,
        ):
            return GatewayResult(
                reference,
                GatewayStatus.DECLINED,
                amount,
                decline_code=decline_code(issuer),
                message=data.get("RspText") or None,
                support=support,
            )
        if data.get("TxnStatus") in ("V", "R"):
            status = GatewayStatus.VOIDED
        elif data.get("ServiceName") == "CreditAuth" and _positive(data.get("SettlementAmt")):
            status = GatewayStatus.CAPTURED
        elif data.get("ServiceName") == "CreditAuth":
            status = GatewayStatus.AUTHORIZED
        else:
            status = GatewayStatus.CAPTURED
        return GatewayResult(
            reference, status, amount, message=data.get("RspText") or None, support=support
        )

    def save_payment_method(
        self, creds: GatewayCredentials, request: SaveMethodRequest
    ) -> SavedMethod:
        """``CreditAccountVerify`` with ``TokenRequest=Y``: the single-use token becomes a
        multi-use token (Heartland keeps no customer object)."""
        if request.method_type is not MethodType.CARD:
            raise ValueError("payhub saves only cards with Heartland")
        customer = request.gateway_customer_ref or request.customer_id
        txn = ET.Element(_q("CreditAccountVerify"))
        block = _sub(txn, "Block1")
        card = _sub(block, "CardData")
        _token_data(card, request.token)
        _text(card, "TokenRequest", "Y")
        _text(_sub(block, "AdditionalTxnFields"), "CustomerID", customer[:50])
        client_id = client_txn_id(request.idempotency_key or f"save-{request.customer_id}")
        answer = self._send(creds, txn, client_id=client_id, secrets=(request.token,))
        if answer.gateway_code != _GATEWAY_OK:
            raise _gateway_failure(answer, charge=True)
        if answer.rsp_code not in _APPROVED:
            raise _issuer_decline(answer)
        if answer.token_code != _TOKEN_OK or not answer.token_value:
            raise PaymentMethodInvalid(
                "Heartland verified the card but issued no multi-use token; collect the card again",
                gateway=GATEWAY,
                gateway_request_id=answer.txn_id or None,
            )
        last4 = answer.body.get("TokenPANLast4") or answer.body.get("CardLast4") or ""
        return SavedMethod(
            gateway_customer_ref=customer,
            method_ref=answer.token_value,
            method_type=MethodType.CARD,
            brand=_BRANDS.get(answer.body.get("CardType", "").lower()),
            last4=last4 if len(last4) == 4 and last4.isdigit() else None,
        )

    # --- wire --------------------------------------------------------------------------------

    def _detail(self, creds: GatewayCredentials, reference: str) -> _Answer:
        txn = ET.Element(_q("ReportTxnDetail"))
        _text(txn, "TzConversion", "UTC")
        _text(txn, "TxnId", _txn_id(reference))
        answer = self._send(creds, txn)
        if answer.gateway_code != _GATEWAY_OK:
            raise _gateway_failure(answer, charge=False, action="lookup")
        if not answer.body:
            raise GatewayError(f"Heartland has no transaction {reference[:20]}", gateway=GATEWAY)
        return answer

    def _reverse_after_timeout(self, creds: GatewayCredentials, txn_id: str, amount: str) -> None:
        """Release what the issuer may have approved after a timeout answer (as the SDKs do).

        If the reversal cannot be confirmed the charge's outcome is unknown: GatewayTimeout,
        so payhub keeps the attempt Unknown and settles it with ``status``/``lookup``.
        """
        if not txn_id:
            raise GatewayTimeout(
                "Heartland timed out reaching the issuer; the outcome is unknown",
                gateway=GATEWAY,
            )
        txn = ET.Element(_q("CreditReversal"))
        block = _sub(txn, "Block1")
        _text(block, "Amt", amount)
        _text(block, "GatewayTxnId", txn_id)
        try:
            answer = self._send(creds, txn)
        except (GatewayUnavailable, GatewayTimeout):
            answer = None
        if answer is None or answer.gateway_code != _GATEWAY_OK:
            raise GatewayTimeout(
                "Heartland timed out reaching the issuer and the reversal was not confirmed;"
                " the outcome is unknown until a status call settles it",
                gateway=GATEWAY,
                gateway_request_id=txn_id,
            )
        raise GatewayUnavailable(
            "Heartland timed out reaching the issuer; the charge was reversed, try again",
            gateway=GATEWAY,
            gateway_request_id=txn_id,
        )

    def _send(
        self,
        creds: GatewayCredentials,
        txn: ET.Element,
        *,
        client_id: str | None = None,
        secrets: tuple[str, ...] = (),
    ) -> _Answer:
        key = creds.api_secret.strip()
        if not key:
            raise GatewayCredentialsRejected(
                f"Heartland needs the Portico secret API key; {_CREDENTIALS_HINT}",
                gateway=GATEWAY,
            )
        if (CERT_KEY_MARK in key) != creds.sandbox:
            mode = "certification (sandbox)" if CERT_KEY_MARK in key else "production"
            raise GatewayCredentialsRejected(
                f"this Heartland secret API key is a {mode} key and does not match the"
                f" account's mode; {_CREDENTIALS_HINT}",
                gateway=GATEWAY,
            )
        envelope = ET.Element(f"{{{SOAP_NS}}}Envelope")
        body = ET.SubElement(envelope, f"{{{SOAP_NS}}}Body")
        version = _sub(_sub(body, "PosRequest"), "Ver1.0")
        header = _sub(version, "Header")
        _text(header, "SecretAPIKey", key)
        if client_id:
            _text(header, "ClientTxnId", client_id)
        _sub(version, "Transaction").append(txn)
        content = ET.tostring(envelope, encoding="utf-8", xml_declaration=True)
        response = self._http.send(
            "POST",
            endpoint(creds.sandbox),
            content=content,
            headers={"Content-Type": "text/xml; charset=utf-8", "Accept": "text/xml"},
        )
        if response.status_code != 200:
            raise GatewayError(f"Heartland answered HTTP {response.status_code}", gateway=GATEWAY)
        hidden = tuple(s for s in (key, *secrets) if s)
        return _parse(response.content, _local(txn.tag), hidden)


# --- reading answers ----------------------------------------------------------------------


def _q(tag: str) -> str:
    return f"{{{HPS_NS}}}{tag}"


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _flatten(element: ET.Element, hidden: tuple[str, ...]) -> dict[str, str]:
    """Leaf fields of an element and its nested groups (Data, AdditionalTxnFields, …)."""
    fields: dict[str, str] = {}
    for child in element.iter():
        if child is element or len(child):
            continue
        value = (child.text or "").strip()
        fields.setdefault(_local(child.tag), value)
    for name in ("RspText", "IssuerRspText", "GatewayRspMsg"):
        if name in fields:
            fields[name] = redact(fields[name], hidden) or ""
    return fields


def _parse(content: bytes, operation: str, hidden: tuple[str, ...]) -> _Answer:
    root = xml_root(content, GATEWAY)
    version = root.find(f"{{{SOAP_NS}}}Body/{_q('PosResponse')}/{_q('Ver1.0')}")
    header = version.find(_q("Header")) if version is not None else None
    if version is None or header is None:
        raise unexpected(GATEWAY)

    def head(name: str) -> str:
        return (header.findtext(_q(name)) or "").strip()

    token = header.find(_q("TokenData"))
    body: dict[str, str] = {}
    items: list[dict[str, str]] = []
    element = version.find(f"{_q('Transaction')}/{_q(operation)}")
    if element is not None:
        if operation == "FindTransactions":
            items = [_flatten(t, hidden) for t in element.findall(_q("Transactions"))]
        else:
            body = _flatten(element, hidden)
    return _Answer(
        gateway_code=head("GatewayRspCode"),
        gateway_message=redact(head("GatewayRspMsg"), hidden) or "",
        txn_id=head("GatewayTxnId"),
        token_code=(token.findtext(_q("TokenRspCode")) or "").strip() if token is not None else "",
        token_value=(token.findtext(_q("TokenValue")) or "").strip() if token is not None else "",
        body=body,
        items=items,
    )


def _gateway_failure(answer: _Answer, *, charge: bool, action: str = "request") -> GatewayError:
    code, message = answer.gateway_code, answer.gateway_message or None
    request_id = answer.txn_id or None
    if code == _GATEWAY_AUTH:
        return GatewayCredentialsRejected(
            f"Heartland rejected the secret API key; {_CREDENTIALS_HINT}",
            gateway=GATEWAY,
            gateway_message=message,
            gateway_request_id=request_id,
        )
    if code in (_GATEWAY_SYSTEM, _GATEWAY_TIMEOUT):
        return GatewayUnavailable(
            f"Heartland reported a gateway error (code {code}); try again later",
            gateway=GATEWAY,
            gateway_message=message,
            gateway_request_id=request_id,
        )
    if charge and (code in _GATEWAY_CARD or "token" in (message or "").lower()):
        return PaymentMethodInvalid(
            "Heartland does not accept this payment method (the token is unknown, used or"
            f" expired, or the card data is invalid; code {code}); collect the card again",
            gateway=GATEWAY,
            gateway_message=message,
            gateway_request_id=request_id,
        )
    return GatewayError(
        f"Heartland refused the {action} (gateway code {code or 'none'})",
        gateway=GATEWAY,
        gateway_message=message,
        gateway_request_id=request_id,
    )


def _issuer_decline(answer: _Answer) -> GatewayError:
    code = answer.rsp_code
    message = answer.body.get("RspText") or None
    if code == "14":  # invalid card number
        return PaymentMethodInvalid(
            "Heartland's issuer reports an invalid card number; collect the card again",
            gateway=GATEWAY,
            gateway_message=message,
            gateway_request_id=answer.txn_id or None,
        )
    reason = decline_code(code)
    return Declined(
        f"Heartland declined the payment ({reason}, issuer code {code or 'none'})",
        gateway=GATEWAY,
        decline_code=reason,
        gateway_message=message,
        gateway_request_id=answer.txn_id or None,
    )


# --- amounts and text -----------------------------------------------------------------------


def _decimal(amount: Money) -> str:
    if amount.currency != CURRENCY:
        raise ValidationError.for_field(
            "amount.currency", "payhub charges only USD through Heartland (Portico is US-only)"
        )
    return format(amount.amount, "f")


def _money(text: str | None) -> Money:
    try:
        return Money.of(Decimal(text or "0"), CURRENCY)
    except (InvalidOperation, ValidationError):
        return Money.zero(CURRENCY)


def _positive(text: str | None) -> bool:
    try:
        return Decimal(text or "0") > 0
    except InvalidOperation:
        return False


def _full(authorized: str | None, requested: str) -> bool:
    try:
        return authorized is None or Decimal(authorized) >= Decimal(requested)
    except InvalidOperation:
        return False


def _txn_id(reference: str) -> str:
    if not reference.isdigit():
        raise GatewayError("not a Heartland transaction reference", gateway=GATEWAY)
    return reference


def _token_data(card: ET.Element, token: str) -> None:
    data = _sub(card, "TokenData")
    _text(data, "TokenValue", token)
    _text(data, "ReaderPresent", "N")  # before CardPresent, as the vendor's SDK orders them
    _text(data, "CardPresent", "N")


def _sub(parent: ET.Element, tag: str) -> ET.Element:
    return ET.SubElement(parent, _q(tag))


def _text(parent: ET.Element, tag: str, value: str) -> ET.Element:
    element = _sub(parent, tag)
    element.text = value
    return element
