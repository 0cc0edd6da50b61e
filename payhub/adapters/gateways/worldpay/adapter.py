"""Worldpay US eCommerce (formerly Vantiv, formerly Litle), through the cnpAPI online XML API.

Every call is one HTTPS POST of a ``cnpOnlineRequest`` document (``text/xml``) to the
online communicator, carrying ``<authentication><user/><password/></authentication>`` and
the ``merchantId`` attribute. The merchant's credentials in payhub: ``apiSecret`` is the
cnpAPI password, ``additionalFields.user`` the user name and ``additionalFields.merchantId``
the merchant id. Documents are built and read with ``xml.etree.ElementTree`` only: a token,
an id or a description is always element text or an attribute value, never formatted into
XML by hand.

Hosts: ``creds.sandbox`` uses Worldpay's public sandbox
(``www.testvantivcnp.com/sandbox/communicator/online``, no account needed; it simulates
answers), live uses ``payments.vantivcnp.com/vap/communicator/online``. The certification
("prelive") host is not used by payhub.

Answers: the document's ``response`` attribute is ``0`` when the request was well formed
and authenticated; anything else is a request-level failure whose ``message`` says why
(schema errors, authentication). Inside, each transaction answers with its own
``<response>`` code (``000`` approved) and ``<message>``; ``cnpTxnId`` identifies it.

Operations: ``sale`` (charge), ``authorization`` (capture=False), ``capture`` (full or
less than authorized: a single final capture, so the rest of the authorization is not kept
open, hence no ``partial="true"``), ``credit`` (refund by ``cnpTxnId``, full or partial),
``authReversal`` (payhub's void of an authorization; cnpAPI's ``void`` is for same-day
deposits and credits, which payhub refunds instead), ``registerTokenRequest`` (vaulting an
eProtect ``paypageRegistrationId`` as a ``cnpToken``; its last four digits are the card's)
and ``queryTransaction`` (status and lost-charge lookup).

Idempotency: cnpAPI has no idempotency key. payhub sends its key (hashed to the 25
characters cnpAPI allows) as the ``id`` attribute and the ``orderId`` of every charge,
and its customer id as ``customerId``. Worldpay's online duplicate checking compares the
transaction type, ``id`` and card (or token) within two days for sales, captures,
credits and auth reversals, and answers a duplicate with the original transaction
(``duplicate="true"``). Authorizations are not duplicate-checked, so ``lookup`` asks
``queryTransaction`` for the charge by ``origId`` (payhub's id) and ``origActionType``
(``S`` sale, ``A`` authorization) before a retried charge is sent again. A capture carries
its authorization's ``id`` (payhub captures once), so a retried capture is a duplicate and
a refund of a captured authorization finds the capture (``origActionType`` ``D``): Worldpay
credits deposits, not authorizations. A reversal carries its authorization's ``id`` too (an
authorization is reversed once), and the n-th credit of a charge the id ``credit_id(ref, n)``,
a digest of the charge's ``id`` and n: ``queryTransaction`` finds transactions only by their
own ``id``, so this is how a status read finds the reversal (``AR``) and the credits (``R``)
of a charge. cnpAPI answers carry no amounts, so a status read reports a charge with credits
as refunded and how many credits it found, not their total.

References: cnpAPI answers carry no amount, and ``queryTransaction`` needs the original
``id`` and action type, so payhub's reference for a charge is
``{cnpTxnId};{S|A};{minor units};{id}`` (as ActiveMerchant's litle.rb does). Captures,
credits and reversals use its first part.

Amounts are integers in minor units (implied decimal). A cnpAPI merchant id settles in
one currency, configured at Worldpay; payhub's adapter charges USD only.

References:
- http://support.worldpay.com/support/CNP-API/content/onlinedupecheck.htm (online duplicates)
- http://support.worldpay.com/support/CNP-API/content/dupetransdetect.htm (tokens in dup checks)
- cnpAPI Reference Guide 12.x (usermanual.wiki/Pdf/VantivcnpAPIReferenceGuideAPI121V11...):
  transaction elements, response codes, tokenization, eProtect
- Vantiv/vantiv-sdk-for-python ``vantivsdk/online.py`` and samples (request envelope,
  registerTokenRequest with paypageRegistrationId), cnp-sdk-for-java TestQueryTransaction
  (queryTransaction 150/151/152 answers)
- ActiveMerchant ``lib/active_merchant/billing/gateways/litle.rb`` (hosts, authReversal for
  authorizations, ``id``/``customerId`` attributes)
"""

from __future__ import annotations

import hashlib

# Requests are built with ElementTree; answers are read with the kit's xml_root, which
# refuses any document declaring a DTD or entities.
from xml.etree import ElementTree as ET

import attrs
import httpx

from payhub.adapters.gateways.kit import declines
from payhub.adapters.gateways.kit.answers import credentials_rejected, xml_root
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
    GatewayUnavailable,
    MethodType,
    PaymentMethodInvalid,
    SavedMethod,
    SaveMethodRequest,
)

GATEWAY = "worldpay"
SANDBOX_URL = "https://www.testvantivcnp.com/sandbox/communicator/online"
LIVE_URL = "https://payments.vantivcnp.com/vap/communicator/online"
NAMESPACE = "http://www.vantivcnp.com/schema"
SCHEMA_VERSION = "12.30"
REPORT_GROUP = "payhub"
ID_MAX = 25  # cnpAPI: id, orderId and customerId are at most 25 characters
CREDITS_MAX = 999  # credits of one charge a status read looks for (ids stay within ID_MAX)
_CREDIT_RACES = 3  # duplicate answers to a credit id before a refund gives up
CURRENCY = "USD"

_APPROVED = "000"
_TOKEN_REGISTERED = ("801", "802")  # registered now / registered before
_FOUND, _NOT_FOUND, _NOT_YET = "150", "151", "152"

# cnpAPI response reason code -> payhub decline code.
_DECLINE_CODES = {
    "110": "insufficient_funds",  # Insufficient Funds
    "127": "insufficient_funds",  # Exceeds Approval Amount Limit
    "305": "expired_card",  # Expired Card
    "320": "expired_card",  # Invalid Expiration Date
    "352": "incorrect_cvc",  # Decline CVV2/CID Fail
    "358": "incorrect_cvc",  # Restricted by Worldpay due to security code mismatch
    "303": "fraudulent",  # Pick Up Card
    "304": "fraudulent",  # Lost/Stolen Card
    "950": "fraudulent",  # Decline - Negative Information on File
    "100": "processing_error",  # Processing Network Unavailable
    "101": "processing_error",  # Issuer Unavailable
    "102": "processing_error",  # Re-submit Transaction
}
# The token (or the card behind it) cannot be used: collect the card again.
_METHOD_INVALID = frozenset(
    {
        "301",  # Invalid Account Number
        "820",  # Credit card number was invalid
        "822",  # Token was not found
        "823",  # Token was invalid
        "877",  # Invalid paypage registration id
        "878",  # Expired paypage registration id
        "898",  # Generic token registration error
        "899",  # Generic token use error
    }
)
_SYSTEM_ERRORS = frozenset({"370"})  # Internal System Error - Call Worldpay
_BRANDS = {
    "VI": "visa",
    "MC": "mastercard",
    "AX": "amex",
    "DI": "discover",
    "DC": "diners",
    "JC": "jcb",
}
_CREDENTIALS_HINT = "update them with PUT /api/merchant-accounts/{ref}/credentials/worldpay"


def endpoint(sandbox: bool) -> str:
    return SANDBOX_URL if sandbox else LIVE_URL


def cnp_id(key: str) -> str:
    """payhub's key as a cnpAPI ``id``/``orderId``: itself when it fits, else a stable digest."""
    if 0 < len(key) <= ID_MAX and key.isascii() and key.isprintable():
        return key
    return "ph" + hashlib.sha256(key.encode()).hexdigest()[: ID_MAX - 2]


def credit_id(ref: Reference, ordinal: int) -> str:
    """The ``id`` of a charge's ``ordinal``-th credit (1, 2, …): a digest of the charge's own
    ``id`` and the ordinal, so a status read can find every credit of the charge."""
    digest = hashlib.sha256(ref.request_id.encode()).hexdigest()[:20]
    return f"{digest}r{ordinal}"


def decline_code(response: str, message: str | None = None) -> str:
    """cnpAPI's own response codes first, then the kit's table and decline words."""
    return declines.decline_code(response, message, overlay=_DECLINE_CODES)


@attrs.frozen
class Reference:
    """What payhub stores as the gateway reference of a Worldpay charge."""

    txn_id: str
    action: str  # S (sale) or A (authorization), cnpAPI's actionTypeEnum
    minor_units: int
    request_id: str

    def __str__(self) -> str:
        return f"{self.txn_id};{self.action};{self.minor_units};{self.request_id}"

    @classmethod
    def parse(cls, text: str) -> Reference:
        parts = text.split(";", 3)
        if len(parts) != 4 or not parts[0].isdigit() or parts[1] not in ("S", "A"):
            raise GatewayError("not a Worldpay charge reference payhub made", gateway=GATEWAY)
        try:
            units = int(parts[2])
        except ValueError:
            raise GatewayError(
                "not a Worldpay charge reference payhub made", gateway=GATEWAY
            ) from None
        return cls(parts[0], parts[1], units, parts[3])


def txn_id_of(reference: str) -> str:
    """The ``cnpTxnId`` in a reference (a charge's full reference or a bare id)."""
    txn = reference.split(";", 1)[0]
    if not txn.isdigit():
        raise GatewayError("not a Worldpay transaction reference", gateway=GATEWAY)
    return txn


@attrs.frozen
class _Txn:
    """One ``<…Response>`` element, reduced to what payhub reads."""

    kind: str  # saleResponse, authorizationResponse, ...
    response: str
    message: str
    txn_id: str
    duplicate: bool
    fields: dict[str, str]

    @property
    def approved(self) -> bool:
        return self.response == _APPROVED

    def support(self) -> dict[str, str]:
        note = {"cnp_txn_id": self.txn_id, "response": self.response}
        for key in ("authCode", "avsResult", "cardValidationResult"):
            if self.fields.get(key):
                note[key] = self.fields[key][:32]
        if self.duplicate:
            note["duplicate"] = "true"
        return {k: v for k, v in note.items() if v}


class WorldpayGateway:
    """The ``Gateway`` port (and ``FindsLostCharges``) for Worldpay's cnpAPI, cards only."""

    name = GATEWAY

    def __init__(self, client: httpx.Client | None = None) -> None:
        self._http = GatewayHttp(GATEWAY, client)

    # --- the Gateway port ------------------------------------------------------------------

    def charge(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult:
        """A ``sale`` or an ``authorization`` from an eProtect id or a vaulted ``cnpToken``."""
        source = request.source
        if source.method_type is not MethodType.CARD:
            raise ValueError("payhub takes only cards through Worldpay")
        units = _units(request.amount)
        request_id = cnp_id(request.idempotency_key)
        action = "S" if request.capture else "A"
        attributes = {"id": request_id, "reportGroup": REPORT_GROUP}
        if source.gateway_customer_ref:
            attributes["customerId"] = source.gateway_customer_ref[:ID_MAX]
        txn = ET.Element("sale" if request.capture else "authorization", attributes)
        _text(txn, "orderId", request_id)
        _text(txn, "amount", str(units))
        _text(txn, "orderSource", "ecommerce")
        if source.token is not None:
            _text(ET.SubElement(txn, "paypage"), "paypageRegistrationId", source.token)
        else:
            _text(ET.SubElement(txn, "token"), "cnpToken", source.saved_method_ref or "")
        answer = self._send(creds, txn, secrets=(source.token or "",))
        if not answer.approved:
            raise _failure(answer)
        return GatewayResult(
            reference=str(Reference(answer.txn_id, action, units, request_id)),
            status=GatewayStatus.CAPTURED if request.capture else GatewayStatus.AUTHORIZED,
            amount=request.amount,
            message=answer.message or None,
            support=answer.support(),
        )

    def lookup(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult | None:
        """The approved charge Worldpay holds under this idempotency key, if any."""
        request_id = cnp_id(request.idempotency_key)
        action = "S" if request.capture else "A"
        for found in self._query(creds, request_id, action):
            if found.approved and found.txn_id:
                units = _units(request.amount)
                return GatewayResult(
                    reference=str(Reference(found.txn_id, action, units, request_id)),
                    status=GatewayStatus.CAPTURED if action == "S" else GatewayStatus.AUTHORIZED,
                    amount=request.amount,
                    message=found.message or None,
                    support=found.support(),
                )
        return None

    def capture(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        """One final capture of all or part of an authorization.

        The capture carries the authorization's own ``id``: payhub captures an authorization
        once, so a retried capture is caught by Worldpay's duplicate check, and a refund can
        later find the capture (the deposit it must credit) with ``queryTransaction``.
        """
        capture_id = _request_id_of(reference) or cnp_id(idempotency_key)
        txn = ET.Element("capture", {"id": capture_id, "reportGroup": REPORT_GROUP})
        _text(txn, "cnpTxnId", txn_id_of(reference))
        _text(txn, "amount", str(_units(amount)))
        answer = self._send(creds, txn)
        if not answer.approved:
            raise _failure(answer)
        return GatewayResult(
            reference,
            GatewayStatus.CAPTURED,
            amount,
            message=answer.message or None,
            support=answer.support(),
        )

    def refund(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        """A ``credit`` against the sale, or the capture of an authorization (a new transaction).

        Worldpay credits a deposit, so for an authorization the capture's ``cnpTxnId`` is
        found first with ``queryTransaction`` (origActionType ``D``, the capture carries the
        authorization's ``id``). A credit's ``id`` is the charge's next credit id
        (``credit_id``), so ``status`` can find every credit of the charge; a concurrent
        refund that took the same id is answered as a duplicate and the next id is used.
        """
        credited = txn_id_of(reference)
        ref = _reference_or_none(reference)
        if ref is not None and ref.action == "A":
            credited = self._capture_of(creds, ref).txn_id
        ordinal = len(self._credits(creds, ref)) + 1 if ref is not None else 0
        for _ in range(_CREDIT_RACES):
            credit = cnp_id(idempotency_key) if ref is None else credit_id(ref, ordinal)
            txn = ET.Element("credit", {"id": credit, "reportGroup": REPORT_GROUP})
            _text(txn, "cnpTxnId", credited)
            _text(txn, "amount", str(_units(amount)))
            answer = self._send(creds, txn)
            if not (answer.duplicate and ref is not None):
                break
            ordinal += 1  # another refund of this charge took the id first
        else:
            raise GatewayUnavailable(
                "Worldpay answered every credit id of this charge as a duplicate; try again",
                gateway=GATEWAY,
            )
        if not answer.approved:
            raise _failure(answer)
        return GatewayResult(
            answer.txn_id or reference,
            GatewayStatus.REFUNDED,
            amount,
            message=answer.message or None,
            support=answer.support(),
        )

    def void(
        self, creds: GatewayCredentials, reference: str, idempotency_key: str
    ) -> GatewayResult:
        """Release an authorization in full with an ``authReversal``.

        The reversal carries the authorization's own ``id`` (an authorization is reversed at
        most once), so a retried void is a duplicate and ``status`` finds the reversal with
        ``queryTransaction`` (origActionType ``AR``).
        """
        reversal_id = _request_id_of(reference) or cnp_id(idempotency_key)
        txn = ET.Element("authReversal", {"id": reversal_id, "reportGroup": REPORT_GROUP})
        _text(txn, "cnpTxnId", txn_id_of(reference))
        answer = self._send(creds, txn)
        if not answer.approved:
            raise _failure(answer)
        released = _released(reference)
        return GatewayResult(
            reference,
            GatewayStatus.VOIDED,
            released,
            message=answer.message or None,
            support=answer.support(),
        )

    def status(self, creds: GatewayCredentials, reference: str) -> GatewayResult:
        """What ``queryTransaction`` reports for the original sale or authorization."""
        ref = Reference.parse(reference)
        amount = Money.from_minor_units(ref.minor_units, CURRENCY)
        results = self._query(creds, ref.request_id, ref.action)
        found = next((r for r in results if r.txn_id == ref.txn_id), None)
        if found is None:
            raise GatewayError(
                f"Worldpay has no transaction {ref.txn_id} under this id", gateway=GATEWAY
            )
        if not found.approved:
            return GatewayResult(
                reference,
                GatewayStatus.DECLINED,
                amount,
                decline_code=decline_code(found.response),
                message=found.message or None,
                support=found.support(),
            )
        status = GatewayStatus.CAPTURED if ref.action == "S" else GatewayStatus.AUTHORIZED
        if ref.action == "A":
            reversal = next(
                (r for r in self._query(creds, ref.request_id, "AR") if r.approved), None
            )
            if reversal is not None:
                return GatewayResult(
                    reference,
                    GatewayStatus.VOIDED,
                    amount,
                    message=reversal.message or None,
                    support=reversal.support(),
                )
            capture = next((c for c in self._query(creds, ref.request_id, "D") if c.approved), None)
            if capture is None:
                message = found.message or None
                return GatewayResult(
                    reference, status, amount, message=message, support=found.support()
                )
            status, found = GatewayStatus.CAPTURED, capture
        credits = self._credits(creds, ref)
        if credits:
            # cnpAPI answers carry no amounts: a refunded charge says how many credits it has,
            # and payhub's own ledger holds what each one moved.
            last = credits[-1]
            return GatewayResult(
                reference,
                GatewayStatus.REFUNDED,
                amount,
                message=last.message or None,
                support={**last.support(), "credits": str(len(credits))},
            )
        return GatewayResult(
            reference, status, amount, message=found.message or None, support=found.support()
        )

    def save_payment_method(
        self, creds: GatewayCredentials, request: SaveMethodRequest
    ) -> SavedMethod:
        """Register an eProtect id as a ``cnpToken`` (Worldpay has no customer object)."""
        if request.method_type is not MethodType.CARD:
            raise ValueError("payhub saves only cards with Worldpay")
        customer = request.gateway_customer_ref or request.customer_id
        request_id = cnp_id(request.idempotency_key or f"save-{request.customer_id}")
        txn = ET.Element(
            "registerTokenRequest",
            {"id": request_id, "reportGroup": REPORT_GROUP, "customerId": customer[:ID_MAX]},
        )
        _text(txn, "orderId", request_id)
        _text(txn, "paypageRegistrationId", request.token)
        answer = self._send(creds, txn, secrets=(request.token,))
        token = answer.fields.get("cnpToken", "")
        if answer.response not in _TOKEN_REGISTERED or not token:
            raise _failure(answer)
        last4 = token[-4:] if len(token) >= 4 and token[-4:].isdigit() else None
        return SavedMethod(
            gateway_customer_ref=customer,
            method_ref=token,
            method_type=MethodType.CARD,
            brand=_BRANDS.get(answer.fields.get("type", "")),
            last4=last4,
        )

    # --- wire --------------------------------------------------------------------------------

    def _capture_of(self, creds: GatewayCredentials, ref: Reference) -> _Txn:
        for capture in self._query(creds, ref.request_id, "D"):
            if capture.approved and capture.txn_id:
                return capture
        raise GatewayError(
            "Worldpay has no capture of this authorization to refund", gateway=GATEWAY
        )

    def _credits(self, creds: GatewayCredentials, ref: Reference | None) -> list[_Txn]:
        """The approved credits of a charge, found by their ids (``credit_id``) in order."""
        found: list[_Txn] = []
        if ref is None:
            return found
        for ordinal in range(1, CREDITS_MAX + 1):
            results = self._query(creds, credit_id(ref, ordinal), "R")
            if not results:
                break
            found.extend(r for r in results if r.approved)
        return found

    def _query(self, creds: GatewayCredentials, request_id: str, action: str) -> list[_Txn]:
        query_id = cnp_id("q-" + request_id)
        txn = ET.Element("queryTransaction", {"id": query_id, "reportGroup": REPORT_GROUP})
        _text(txn, "origId", request_id)
        _text(txn, "origActionType", action)
        answer = self._send(creds, txn)
        if answer.response == _NOT_FOUND:
            return []
        if answer.response == _NOT_YET:
            raise GatewayUnavailable(
                "Worldpay found the transaction but its answer is not available yet; ask again"
                " shortly",
                gateway=GATEWAY,
            )
        if answer.response != _FOUND:
            raise _failure(answer)
        return answer.results

    def _send(
        self, creds: GatewayCredentials, txn: ET.Element, secrets: tuple[str, ...] = ()
    ) -> _Answer:
        user = creds.fields.get("user", "")
        merchant_id = creds.fields.get("merchantId", "")
        if not user or not merchant_id:
            raise GatewayCredentialsRejected(
                "Worldpay needs additionalFields user and merchantId besides the password; "
                + _CREDENTIALS_HINT,
                gateway=GATEWAY,
            )
        root = ET.Element(
            "cnpOnlineRequest",
            {"version": SCHEMA_VERSION, "xmlns": NAMESPACE, "merchantId": merchant_id},
        )
        auth = ET.SubElement(root, "authentication")
        _text(auth, "user", user)
        _text(auth, "password", creds.api_secret)
        root.append(txn)
        body = ET.tostring(root, encoding="utf-8", xml_declaration=True)
        response = self._http.send(
            "POST",
            endpoint(creds.sandbox),
            content=body,
            headers={"Content-Type": "text/xml; charset=UTF-8", "Accept": "text/xml"},
        )
        if response.status_code != 200:
            raise GatewayError(f"Worldpay answered HTTP {response.status_code}", gateway=GATEWAY)
        hidden = tuple(s for s in (creds.api_secret, user, *secrets) if s)
        return _parse(response.content, hidden)


# --- reading answers ----------------------------------------------------------------------


@attrs.frozen
class _Answer:
    kind: str
    response: str
    message: str
    txn_id: str
    duplicate: bool
    fields: dict[str, str]
    results: list[_Txn]

    @property
    def approved(self) -> bool:
        return self.response == _APPROVED

    def support(self) -> dict[str, str]:
        return _Txn(
            self.kind, self.response, self.message, self.txn_id, self.duplicate, self.fields
        ).support()


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _txn(element: ET.Element, hidden: tuple[str, ...]) -> _Txn:
    fields: dict[str, str] = {}
    for child in element:
        name = _local(child.tag)
        if len(child):
            for grandchild in child:  # e.g. fraudResult/avsResult
                fields[_local(grandchild.tag)] = (grandchild.text or "").strip()
        else:
            fields[name] = (child.text or "").strip()
    return _Txn(
        kind=_local(element.tag),
        response=fields.get("response", ""),
        message=redact(fields.get("message", ""), hidden) or "",
        txn_id=fields.get("cnpTxnId", ""),
        duplicate=element.get("duplicate", "").lower() == "true",
        fields=fields,
    )


def _parse(content: bytes, hidden: tuple[str, ...]) -> _Answer:
    root = xml_root(content, GATEWAY)
    if _local(root.tag) != "cnpOnlineResponse":
        raise GatewayError("Worldpay answered in a format payhub does not know", gateway=GATEWAY)
    if root.get("response") != "0":
        raise _request_failure(redact(root.get("message", ""), hidden) or "")
    children = list(root)
    if not children:
        raise GatewayError("Worldpay answered without a transaction", gateway=GATEWAY)
    main = _txn(children[0], hidden)
    results = [
        _txn(el, hidden)
        for holder in children[0]
        if _local(holder.tag) == "results_max10"
        for el in holder
    ]
    return _Answer(
        main.kind, main.response, main.message, main.txn_id, main.duplicate, main.fields, results
    )


def _request_failure(message: str) -> GatewayError:
    lowered = message.lower()
    if any(word in lowered for word in ("authenticat", "password", "user", "merchant")):
        return credentials_rejected(GATEWAY, gateway_message=message or None)
    if "system error" in lowered:
        return GatewayUnavailable(
            "Worldpay reported a system error; try again later",
            gateway=GATEWAY,
            gateway_message=message or None,
        )
    return GatewayError(
        "Worldpay refused the request as malformed",
        gateway=GATEWAY,
        gateway_message=message or None,
    )


def _failure(answer: _Answer) -> GatewayError:
    code, message = answer.response, answer.message or None
    request_id = answer.txn_id or None
    if code in _METHOD_INVALID:
        return PaymentMethodInvalid(
            "Worldpay does not accept this payment method (the eProtect id or token is unknown,"
            f" expired or invalid; response {code}); collect the card again",
            gateway=GATEWAY,
            gateway_message=message,
            gateway_request_id=request_id,
        )
    if code in _SYSTEM_ERRORS:
        return GatewayUnavailable(
            f"Worldpay reported an internal error (response {code}); try again later",
            gateway=GATEWAY,
            gateway_message=message,
            gateway_request_id=request_id,
        )
    if answer.kind in ("saleResponse", "authorizationResponse"):
        reason = decline_code(code, message)
        return Declined(
            f"Worldpay declined the payment ({reason}, response {code or 'none'})",
            gateway=GATEWAY,
            decline_code=reason,
            gateway_message=message,
            gateway_request_id=request_id,
        )
    return GatewayError(
        f"Worldpay refused the {answer.kind.removesuffix('Response') or 'request'}"
        f" (response {code or 'none'})",
        gateway=GATEWAY,
        gateway_message=message,
        gateway_request_id=request_id,
    )


# --- amounts and text -----------------------------------------------------------------------


def _units(amount: Money) -> int:
    if amount.currency != CURRENCY:
        raise ValidationError.for_field(
            "amount.currency",
            "payhub charges only USD through Worldpay (a cnpAPI merchant id settles in one"
            " currency)",
        )
    return amount.minor_units


def _reference_or_none(reference: str) -> Reference | None:
    try:
        return Reference.parse(reference)
    except GatewayError:
        return None


def _request_id_of(reference: str) -> str | None:
    try:
        return Reference.parse(reference).request_id
    except GatewayError:
        return None


def _action_of(reference: str) -> str | None:
    try:
        return Reference.parse(reference).action
    except GatewayError:
        return None


def _released(reference: str) -> Money:
    try:
        return Money.from_minor_units(Reference.parse(reference).minor_units, CURRENCY)
    except GatewayError:
        return Money.zero(CURRENCY)


def _text(parent: ET.Element, tag: str, value: str) -> ET.Element:
    element = ET.SubElement(parent, tag)
    element.text = value
    return element
