"""Elavon Converge, through its XML API (``processxml.do``).

Every call is one HTTPS form POST whose single field ``xmldata`` holds a ``<txn>`` document:
``ssl_merchant_id``, ``ssl_user_id``, ``ssl_pin``, ``ssl_transaction_type`` and the
operation's ``ssl_*`` fields. Hosts: ``api.demo.convergepay.com/VirtualMerchantDemo`` for
``creds.sandbox`` (demo accounts), ``api.convergepay.com/VirtualMerchant`` live. The
merchant's credentials in payhub: ``apiSecret`` is the terminal's PIN (``ssl_pin``),
``additionalFields.merchantId`` the account id and ``additionalFields.userId`` the API user.
Documents are built and read with ``xml.etree.ElementTree`` only, and the form field is
URL-encoded by httpx: a token, an id or a description never becomes markup.

Answers: a ``<txn>`` with ``ssl_result`` ``0`` (approved) or ``1`` (declined, reason in
``ssl_result_message`` and the issuer's ``ssl_issuer_response``), or a ``<txn>`` with
``errorCode``/``errorName``/``errorMessage`` for a request Converge refused (4025 invalid
credentials, 5000 invalid card number, 5040 invalid transaction id, 5091 invalid amount, …).
``TXNQUERY`` answers a ``<txnlist>`` of ``<txn>`` records with ``ssl_trans_status`` (PEN,
OPN, REV, STL; FPR/PRE/PST failed by rules) and ``ssl_transaction_type``.

Operations: ``CCSALE`` / ``CCAUTHONLY`` with the Checkout.js (or Card Manager) ``ssl_token``;
``CCCOMPLETE`` (capture of an authorization, full or partial, by ``ssl_txn_id``);
``CCRETURN`` (refund, full or partial); ``CCDELETE`` (payhub's void of an authorization:
Converge's ``CCDELETE`` reverses sales and auth-onlys and removes them from the batch, while
``CCVOID`` is for sales and returns only); ``CCGETTOKEN`` with ``ssl_add_token=Y`` (store the
card in Card Manager under payhub's customer as ``ssl_customer_id``); ``TXNQUERY`` (status
and lost-charge lookup).

Idempotency: Converge has none. Each charge carries payhub's key (or a stable digest, at
most 25 characters) as ``ssl_merchant_txn_id`` and ``ssl_invoice_number``; ``lookup`` asks
``TXNQUERY`` for that ``ssl_merchant_txn_id`` before a retried charge is sent again.

Amounts are decimal strings in the terminal's currency; payhub's adapter charges USD only
(``ssl_transaction_currency`` needs a multi-currency terminal).

References:
- ActiveMerchant ``lib/active_merchant/billing/gateways/elavon.rb`` and its unit-test
  fixtures (hosts, ``xmldata`` form field, transaction types CCSALE/CCAUTHONLY/CCCOMPLETE/
  CCRETURN/CCDELETE/CCGETTOKEN, ``ssl_add_token``, ``ssl_result``, ``errorCode`` 4025/5000/
  5040/5091, ``ssl_token_response``, ``ssl_card_short_description``)
- Elavon's Converge Android model classes ``com.elavon.converge.model``
  (``ElavonTransactionSearchRequest``: TXNQUERY by ``ssl_txn_id`` or ``ssl_merchant_txn_id``;
  ``txnlist``/``ssl_txn_count`` answers)
- Hyperswitch's Elavon connector (``ssl_trans_status`` PEN/OPN/REV/STL/PST/FPR/PRE and
  ``ssl_transaction_type`` SALE/AUTHONLY/RETURN in TXNQUERY answers)
"""

from __future__ import annotations

import hashlib
import re
from decimal import Decimal, InvalidOperation

# Converge's XML comes from Elavon over TLS, never from users; Python's expat refuses
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
    MethodType,
    PaymentMethodInvalid,
    SavedMethod,
    SaveMethodRequest,
)
from payhub.ports import CheckoutRequest, PayPageCheckout

GATEWAY = "elavon"
DEMO_URL = "https://api.demo.convergepay.com/VirtualMerchantDemo/processxml.do"
LIVE_URL = "https://api.convergepay.com/VirtualMerchant/processxml.do"
MERCHANT_TXN_MAX = 25
CURRENCY = "USD"

_CREDENTIAL_ERRORS = frozenset({"4025"})  # Invalid Credentials
_CARD_ERRORS = frozenset({"5000", "5001"})  # card number / expiration date invalid
_FAILED_STATES = frozenset({"FPR", "PRE", "PST"})
_VOID_TYPES = frozenset({"VOID", "DELETE"})

_BRANDS = {
    "VISA": "visa",
    "MC": "mastercard",
    "MASTERCARD": "mastercard",
    "AMEX": "amex",
    "DISC": "discover",
    "DISCOVER": "discover",
    "JCB": "jcb",
    "DINERS": "diners",
}
_CREDENTIALS_HINT = "update them with PUT /api/merchant-accounts/{ref}/credentials/elavon"


DEMO_HOSTED = "https://api.demo.convergepay.com/hosted-payments"
LIVE_HOSTED = "https://api.convergepay.com/hosted-payments"
_HOSTED_ERROR = re.compile(r"^(\d{4})\s")  # "4025 The credentials supplied ..."
_SESSION = re.compile(r"^[A-Za-z0-9+/=_-]{16,512}$")


def card_token(token: str) -> str:
    """The ``ssl_token`` of a page's ``"<sessionToken>|<ssl_token>"`` (or a bare token)."""
    return token.rpartition("|")[2]


def endpoint(sandbox: bool) -> str:
    return DEMO_URL if sandbox else LIVE_URL


def merchant_txn_id(key: str) -> str:
    """payhub's key as ``ssl_merchant_txn_id``: itself when it fits, else a stable digest."""
    if 0 < len(key) <= MERCHANT_TXN_MAX and key.isascii() and key.isprintable():
        return key
    return "ph" + hashlib.sha256(key.encode()).hexdigest()[: MERCHANT_TXN_MAX - 2]


def decline_code(issuer_response: str, message: str = "") -> str:
    """From ``ssl_issuer_response`` (ISO 8583), else from ``ssl_result_message``'s words."""
    return declines.decline_code(issuer_response, message)


@attrs.frozen
class _Txn:
    """One ``<txn>`` answer (or a TXNQUERY record), reduced to its leaf fields."""

    fields: dict[str, str]

    def get(self, name: str) -> str:
        return self.fields.get(name, "")

    @property
    def error(self) -> str:
        return self.get("errorCode")

    @property
    def approved(self) -> bool:
        return not self.error and self.get("ssl_result") == "0"

    @property
    def txn_id(self) -> str:
        return self.get("ssl_txn_id")

    def support(self) -> dict[str, str]:
        note = {"ssl_txn_id": self.txn_id, "ssl_result": self.get("ssl_result")}
        for key in ("ssl_approval_code", "ssl_avs_response", "ssl_cvv2_response"):
            if self.get(key):
                note[key] = self.get(key)[:32]
        if self.error:
            note["errorCode"] = self.error[:8]
        return {k: v for k, v in note.items() if v}


class ElavonGateway:
    """The ``Gateway`` port (and ``FindsLostCharges``) for Elavon Converge, cards only."""

    name = GATEWAY

    def __init__(self, client: httpx.Client | None = None) -> None:
        self._http = GatewayHttp(GATEWAY, client)

    # --- the Gateway port ------------------------------------------------------------------

    def charge(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult:
        """``CCSALE`` or ``CCAUTHONLY`` from a Checkout.js or Card Manager ``ssl_token``."""
        source = request.source
        if source.method_type is not MethodType.CARD:
            raise ValueError("payhub takes only cards through Elavon")
        token = (
            card_token(source.token) if source.token is not None else source.saved_method_ref or ""
        )
        reference = merchant_txn_id(request.idempotency_key)
        fields = {
            "ssl_transaction_type": "CCSALE" if request.capture else "CCAUTHONLY",
            "ssl_amount": _decimal(request.amount),
            "ssl_token": token,
            "ssl_merchant_txn_id": reference,
            "ssl_invoice_number": reference,
        }
        if request.description:
            fields["ssl_description"] = request.description[:255]
        if source.gateway_customer_ref:
            fields["ssl_customer_code"] = source.gateway_customer_ref[:17]
        answer = self._send(creds, fields, secrets=(token,))
        if answer.error:
            raise _error(answer, charge=True)
        if not answer.approved:
            raise _decline(answer)
        return GatewayResult(
            reference=answer.txn_id,
            status=GatewayStatus.CAPTURED if request.capture else GatewayStatus.AUTHORIZED,
            amount=request.amount,
            message=answer.get("ssl_result_message") or None,
            support=answer.support(),
        )

    def lookup(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult | None:
        """The approved charge Converge holds under this ``ssl_merchant_txn_id``, if any."""
        wanted = merchant_txn_id(request.idempotency_key)
        kind = "SALE" if request.capture else "AUTHONLY"
        for txn in self._query(creds, {"ssl_merchant_txn_id": wanted}):
            if (
                txn.get("ssl_merchant_txn_id") == wanted
                and txn.get("ssl_transaction_type").upper() == kind
                and txn.get("ssl_result_message").upper().startswith("APPROV")
                and txn.get("ssl_trans_status").upper() not in _FAILED_STATES
                and txn.txn_id
            ):
                return GatewayResult(
                    reference=txn.txn_id,
                    status=GatewayStatus.CAPTURED if request.capture else GatewayStatus.AUTHORIZED,
                    amount=request.amount,
                    message=txn.get("ssl_result_message") or None,
                    support={"ssl_txn_id": txn.txn_id},
                )
        return None

    def capture(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        """``CCCOMPLETE`` of all or part of an authorization."""
        answer = self._send(
            creds,
            {
                "ssl_transaction_type": "CCCOMPLETE",
                "ssl_txn_id": reference,
                "ssl_amount": _decimal(amount),
            },
        )
        if answer.error or not answer.approved:
            raise _error(answer, charge=False, action="capture")
        return GatewayResult(
            reference,
            GatewayStatus.CAPTURED,
            amount,
            message=answer.get("ssl_result_message") or None,
            support=answer.support(),
        )

    def refund(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        """``CCRETURN`` of all or part of a sale or completed authorization."""
        answer = self._send(
            creds,
            {
                "ssl_transaction_type": "CCRETURN",
                "ssl_txn_id": reference,
                "ssl_amount": _decimal(amount),
            },
        )
        if answer.error or not answer.approved:
            raise _error(answer, charge=False, action="refund")
        return GatewayResult(
            answer.txn_id or reference,
            GatewayStatus.REFUNDED,
            amount,
            message=answer.get("ssl_result_message") or None,
            support=answer.support(),
        )

    def void(
        self, creds: GatewayCredentials, reference: str, idempotency_key: str
    ) -> GatewayResult:
        """``CCDELETE``: reverse the authorization and remove it from the batch."""
        answer = self._send(creds, {"ssl_transaction_type": "CCDELETE", "ssl_txn_id": reference})
        if answer.error or not answer.approved:
            raise _error(answer, charge=False, action="void")
        return GatewayResult(
            reference,
            GatewayStatus.VOIDED,
            _money(answer.get("ssl_amount")),
            message=answer.get("ssl_result_message") or None,
            support=answer.support(),
        )

    def status(self, creds: GatewayCredentials, reference: str) -> GatewayResult:
        """What ``TXNQUERY`` reports for the transaction."""
        found = next(
            (t for t in self._query(creds, {"ssl_txn_id": reference}) if t.txn_id == reference),
            None,
        )
        if found is None:
            raise GatewayError("Elavon has no transaction under this reference", gateway=GATEWAY)
        kind = found.get("ssl_transaction_type").upper()
        state = found.get("ssl_trans_status").upper()
        message = found.get("ssl_result_message")
        amount = _money(found.get("ssl_amount"))
        support = {"ssl_txn_id": reference, "ssl_trans_status": state[:8]}
        if state in _FAILED_STATES or (message and not message.upper().startswith("APPROV")):
            return GatewayResult(
                reference,
                GatewayStatus.DECLINED,
                amount,
                decline_code=decline_code(found.get("ssl_issuer_response"), message),
                message=message or None,
                support=support,
            )
        if kind in _VOID_TYPES:
            status = GatewayStatus.VOIDED
        elif kind == "AUTHONLY" and state != "STL":
            status = GatewayStatus.AUTHORIZED
        else:
            status = GatewayStatus.CAPTURED
        return GatewayResult(reference, status, amount, message=message or None, support=support)

    def save_payment_method(
        self, creds: GatewayCredentials, request: SaveMethodRequest
    ) -> SavedMethod:
        """``CCGETTOKEN`` with ``ssl_add_token=Y``: store the card in Card Manager."""
        if request.method_type is not MethodType.CARD:
            raise ValueError("payhub saves only cards with Elavon")
        customer = request.gateway_customer_ref or request.customer_id
        answer = self._send(
            creds,
            {
                "ssl_transaction_type": "CCGETTOKEN",
                "ssl_token": card_token(request.token),
                "ssl_add_token": "Y",
                "ssl_verify": "Y",
                "ssl_customer_id": customer[:50],
            },
            secrets=(request.token,),
        )
        if answer.error:
            raise _error(answer, charge=True)
        token = answer.get("ssl_token")
        if answer.get("ssl_token_response").upper() != "SUCCESS" or not token:
            raise PaymentMethodInvalid(
                "Elavon could not store this card in Card Manager; collect the card again",
                gateway=GATEWAY,
                gateway_message=answer.get("ssl_add_token_response") or None,
            )
        masked = answer.get("ssl_card_number")
        expiry = answer.get("ssl_exp_date")
        month, year = _expiry(expiry)
        return SavedMethod(
            gateway_customer_ref=customer,
            method_ref=token,
            method_type=MethodType.CARD,
            brand=_BRANDS.get(answer.get("ssl_card_short_description").upper()),
            last4=masked[-4:] if len(masked) >= 4 and masked[-4:].isdigit() else None,
            exp_month=month,
            exp_year=year,
        )

    # --- the pay page's session (MakesPayPageCheckouts) ----------------------------------

    def pay_page_checkout(
        self, creds: GatewayCredentials, request: CheckoutRequest
    ) -> PayPageCheckout:
        """The Lightbox's session token: ``POST /hosted-payments/transaction_token`` (a form
        with the terminal's credentials) answers it as plain text, or ``<code> <message>``.

        It is made for ``ccgettoken`` with ``ssl_verify=Y`` and ``ssl_add_token=Y``, not for
        ``ccsale``: a sale session would charge the card inside Converge's lightbox, in the
        browser, outside payhub's reservation of the amount and its ``ssl_merchant_txn_id``
        lookup; a token session only verifies the card and puts it in Card Manager, and payhub
        then makes the ``CCSALE`` or ``CCAUTHONLY`` of exactly the amount its checkout token
        binds. The session carries no amount for that reason. The page sees only the token.
        """
        merchant = creds.fields.get("merchantId", "")
        user = creds.fields.get("userId", "")
        if not merchant or not user or not creds.api_secret:
            raise GatewayCredentialsRejected(
                "Elavon needs the PIN (apiSecret) and additionalFields merchantId and userId; "
                + _CREDENTIALS_HINT,
                gateway=GATEWAY,
            )
        form = {
            "ssl_merchant_id": merchant,
            "ssl_user_id": user,
            "ssl_pin": creds.api_secret,
            "ssl_transaction_type": "ccgettoken",
            "ssl_verify": "Y",
            "ssl_add_token": "Y",
        }
        base = DEMO_HOSTED if creds.sandbox else LIVE_HOSTED
        response = self._http.send("POST", base + "/transaction_token", data=form)
        text = response.text.strip()  # the token itself, or "<code> <message>"
        refused = _HOSTED_ERROR.match(text)
        if response.status_code != 200 or refused or not _SESSION.match(text):
            if refused and refused.group(1) == "4025":
                raise GatewayCredentialsRejected(
                    "Converge refused the terminal's credentials; " + _CREDENTIALS_HINT,
                    gateway=GATEWAY,
                )
            raise GatewayError("Converge made no lightbox session", gateway=GATEWAY)
        return PayPageCheckout(reference=text, public={"sessionToken": text})

    def checkout_reference(self, payment_token: str) -> str | None:
        """The lightbox session a page's ``"<sessionToken>|<ssl_token>"`` was made in."""
        session, sep, _ = payment_token.partition("|")
        return session if sep and session else None

    # --- wire --------------------------------------------------------------------------------

    def _query(self, creds: GatewayCredentials, criteria: dict[str, str]) -> list[_Txn]:
        answer, records = self._exchange(creds, {"ssl_transaction_type": "TXNQUERY", **criteria})
        if answer is not None and answer.error:
            raise _error(answer, charge=False, action="lookup")
        return records

    def _send(
        self, creds: GatewayCredentials, fields: dict[str, str], secrets: tuple[str, ...] = ()
    ) -> _Txn:
        answer, _records = self._exchange(creds, fields, secrets)
        if answer is None:
            raise unexpected(GATEWAY, label="Elavon")
        return answer

    def _exchange(
        self, creds: GatewayCredentials, fields: dict[str, str], secrets: tuple[str, ...] = ()
    ) -> tuple[_Txn | None, list[_Txn]]:
        merchant = creds.fields.get("merchantId", "")
        user = creds.fields.get("userId", "")
        if not merchant or not user or not creds.api_secret:
            raise GatewayCredentialsRejected(
                "Elavon needs the PIN (apiSecret) and additionalFields merchantId and userId; "
                + _CREDENTIALS_HINT,
                gateway=GATEWAY,
            )
        txn = ET.Element("txn")
        for name, value in (
            ("ssl_merchant_id", merchant),
            ("ssl_user_id", user),
            ("ssl_pin", creds.api_secret),
            *fields.items(),
        ):
            ET.SubElement(txn, name).text = value
        xml = ET.tostring(txn, encoding="unicode")
        response = self._http.send(
            "POST",
            endpoint(creds.sandbox),
            data={"xmldata": xml},
            headers={"Accept": "application/xml"},
        )
        if response.status_code != 200:
            raise GatewayError(f"Elavon answered HTTP {response.status_code}", gateway=GATEWAY)
        hidden = tuple(s for s in (creds.api_secret, *secrets) if s)
        return _parse(response.content, hidden)


# --- reading answers ----------------------------------------------------------------------


def _leaves(element: ET.Element, hidden: tuple[str, ...]) -> _Txn:
    fields = {child.tag: (child.text or "").strip() for child in element if not len(child)}
    for name in ("ssl_result_message", "errorMessage", "errorName", "ssl_add_token_response"):
        if name in fields:
            fields[name] = redact(fields[name], hidden) or ""
    return _Txn(fields)


def _parse(content: bytes, hidden: tuple[str, ...]) -> tuple[_Txn | None, list[_Txn]]:
    root = xml_root(content, GATEWAY, label="Elavon")
    if root.tag == "txnlist":
        return None, [_leaves(t, hidden) for t in root.findall("txn")]
    if root.tag != "txn":
        raise unexpected(GATEWAY, label="Elavon")
    return _leaves(root, hidden), []


def _error(answer: _Txn, *, charge: bool, action: str = "request") -> GatewayError:
    code = answer.error
    name = answer.get("errorName")
    message = answer.get("errorMessage") or answer.get("ssl_result_message") or None
    if code in _CREDENTIAL_ERRORS:
        return GatewayCredentialsRejected(
            f"Elavon rejected the merchant's credentials; {_CREDENTIALS_HINT}",
            gateway=GATEWAY,
            gateway_message=message,
        )
    if charge and (code in _CARD_ERRORS or "token" in f"{name} {message}".lower()):
        return PaymentMethodInvalid(
            "Elavon does not accept this payment method (the token is unknown, expired or the"
            f" card data is invalid; error {code}); collect the card again",
            gateway=GATEWAY,
            gateway_message=message,
        )
    if not code:  # an ssl_result 1 on a follow-up operation
        return GatewayError(
            f"Elavon refused the {action}",
            gateway=GATEWAY,
            gateway_message=message,
            gateway_request_id=answer.txn_id or None,
        )
    return GatewayError(
        f"Elavon refused the {action} (error {code})",
        gateway=GATEWAY,
        gateway_message=message,
    )


def _decline(answer: _Txn) -> GatewayError:
    message = answer.get("ssl_result_message")
    reason = decline_code(answer.get("ssl_issuer_response"), message)
    return Declined(
        f"Elavon declined the payment ({reason})",
        gateway=GATEWAY,
        decline_code=reason,
        gateway_message=message or None,
        gateway_request_id=answer.txn_id or None,
    )


# --- amounts and text -----------------------------------------------------------------------


def _decimal(amount: Money) -> str:
    if amount.currency != CURRENCY:
        raise ValidationError.for_field(
            "amount.currency",
            "payhub charges only USD through Elavon (other currencies need a multi-currency"
            " terminal)",
        )
    return format(amount.amount, "f")


def _money(text: str) -> Money:
    try:
        return Money.of(Decimal(text or "0"), CURRENCY)
    except (InvalidOperation, ValidationError):
        return Money.zero(CURRENCY)


def _expiry(mmyy: str) -> tuple[int | None, int | None]:
    if len(mmyy) == 4 and mmyy.isdigit() and 1 <= int(mmyy[:2]) <= 12:
        return int(mmyy[:2]), 2000 + int(mmyy[2:])
    return None, None
