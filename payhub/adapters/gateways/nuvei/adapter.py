"""Nuvei (formerly SafeCharge), through its REST API 1.0 (JSON over HTTPS).

Why it looks the way it does:

- Hosts: ``https://ppp-test.nuvei.com/ppp/api/v1`` for integration (sandbox) accounts,
  ``https://secure.safecharge.com/ppp/api/v1`` for live ones (``creds.sandbox`` decides).
  Every call is a ``POST /<method>.do`` with a JSON body.
- Authentication: no header. Every body carries ``merchantId``, ``merchantSiteId`` (the
  catalog's credential fields), ``timeStamp`` (``YYYYMMDDHHmmss``, UTC) and ``checksum`` = the
  SHA-256 hex digest of some of the body's values concatenated in an order fixed per method,
  followed by the merchant secret key (``apiSecret``), which itself never crosses the wire.
  The orders (``CHECKSUM_ORDERS``) follow the reference and Nuvei's Java SDK: ``getSessionToken``
  and the UPO/user reads use merchantId, merchantSiteId, [userTokenId,] clientRequestId,
  timeStamp; ``payment`` adds amount and currency; ``settleTransaction``,
  ``refundTransaction`` and ``voidTransaction`` use merchantId, merchantSiteId,
  clientRequestId, clientUniqueId, amount, currency, relatedTransactionId, authCode, comment,
  urlDetails, timeStamp (absent values count as empty); ``getTransactionDetails`` uses
  merchantId, merchantSiteId, transactionId, clientUniqueId, timeStamp.
- ``/payment`` needs a ``sessionToken``. A Nuvei Fields ``ccTempToken`` belongs to the session
  the page opened the fields with, so the pay page hands payhub ``"<sessionToken>|<ccTempToken>"``;
  a bare temp token is charged under a fresh ``/getSessionToken`` session (which Nuvei may
  refuse: the remote test settles it). Saved cards are charged by ``userTokenId`` +
  ``paymentOption.userPaymentOptionId`` under a fresh session.
- Answers: ``status`` SUCCESS/ERROR with ``errCode``/``reason`` for the request itself
  (1001 invalid checksum, 1013/1022 unknown merchant or site: rejected credentials), and for
  payments ``transactionStatus`` APPROVED / DECLINED / ERROR / PENDING / REDIRECT with
  ``gwErrorCode``/``gwErrorReason`` (decline codes come from the reason by keyword).
- Amounts are decimal strings at the currency's precision with the ISO 4217 ``currency``.
- Idempotency: ``clientRequestId`` is unique per request at Nuvei, so a charge sends payhub's
  key there (hashed down to 45 characters when longer), and the same value as
  ``clientUniqueId``, the merchant's reference that ``/getTransactionDetails`` can look up.
  ``lookup`` finds a charge whose answer was lost by that ``clientUniqueId``; ``charge`` asks
  it when Nuvei refuses a repeated ``clientRequestId`` or a spent temp token, so a retried
  ``Unknown`` charge never charges twice.
- payhub keeps one reference per charge (the Sale/Auth ``transactionId``), but Nuvei's settle,
  void and refund are transactions of their own: a settle is filed under ``clientUniqueId``
  ``S<authId>`` and a void under ``V<id>``, so a refund of a captured authorization finds the
  Settle to refund, and ``status`` reports captures and voids, by ``getTransactionDetails``.
- Vault: a Nuvei user (``userTokenId`` = payhub's customer id, ``/createUser``) holds user
  payment options. ``/addUPOCreditCardByTempToken`` stores a Fields temp token (under the
  Fields session, as for payments); ``/getUserUPOs`` gives the brand, masked number and expiry.

References (Nuvei REST API 1.0, https://docs.nuvei.com/api/main/indexMain_v1_0.html :
getSessionToken, payment, settleTransaction, refundTransaction, voidTransaction,
getTransactionDetails, createUser, addUPOCreditCardByTempToken, getUserUPOs, error codes);
https://docs.nuvei.com/documentation/accept-payment/web-sdk/tokenization-only-flow (Fields
``getToken`` → ``ccTempToken`` under a ``/getSessionToken`` session, then ``/payment``);
https://docs.nuvei.com/documentation/features/financial-operations/auth-and-settle (partial
settles); checksum orders cross-checked with Nuvei's Java SDK (Nuvei/nuvei-server-java,
``ChecksumUtils``) and ActiveMerchant's ``nuvei.rb``.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

import httpx

from payhub.adapters.gateways.kit import declines
from payhub.adapters.gateways.kit.answers import json_value, unexpected
from payhub.adapters.gateways.kit.http import GatewayHttp
from payhub.adapters.gateways.kit.redaction import hide_values, redact
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
from payhub.ports import CheckoutRequest, PayPageCheckout

SANDBOX_BASE_URL = "https://ppp-test.nuvei.com/ppp/api/v1"
LIVE_BASE_URL = "https://secure.safecharge.com/ppp/api/v1"
ID_MAX = 45  # the shortest limit among clientRequestId / clientUniqueId / userTokenId
COUNTRY = "US"  # billing/user country: payhub's requests carry no payer address
TOKEN_SEPARATOR = "|"  # noqa: S105 (a separator, not a secret)
_CREDENTIALS_HINT = "update them with PUT /api/merchant-accounts/{ref}/credentials/nuvei"
_FINANCIAL = (
    "merchantId",
    "merchantSiteId",
    "clientRequestId",
    "clientUniqueId",
    "amount",
    "currency",
    "relatedTransactionId",
    "authCode",
    "comment",
    "urlDetails",
    "timeStamp",
)
CHECKSUM_ORDERS: dict[str, tuple[str, ...]] = {
    "getSessionToken": ("merchantId", "merchantSiteId", "clientRequestId", "timeStamp"),
    "openOrder": ("merchantId", "merchantSiteId", "clientRequestId", "amount", "currency",
                  "timeStamp"),
    "payment": ("merchantId", "merchantSiteId", "clientRequestId", "amount", "currency",
                "timeStamp"),
    "settleTransaction": (*_FINANCIAL[:8], "descriptorMerchantName", "descriptorMerchantPhone",
                          *_FINANCIAL[8:]),
    "refundTransaction": _FINANCIAL,
    "voidTransaction": _FINANCIAL,
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

# errCode values of a refused request (Nuvei's API error list).
_CREDENTIAL_CODES = frozenset({1001, 1013, 1022})
_METHOD_CODES = frozenset({1004, 1010, 1011, 1023, 1058, 1069})
_UNAVAILABLE_CODES = frozenset({1000, 1038})
_BRANDS = {
    "visa": "visa",
    "mastercard": "mastercard",
    "master": "mastercard",
    "amex": "amex",
    "americanexpress": "amex",
    "discover": "discover",
    "diners": "diners",
    "jcb": "jcb",
    "maestro": "maestro",
}


def base_url(sandbox: bool) -> str:
    return SANDBOX_BASE_URL if sandbox else LIVE_BASE_URL


def checksum(method: str, body: Mapping[str, Any], secret: str) -> str:
    """Nuvei's checksum: sha256 of the method's fields in its order, then the secret key."""
    values = "".join(_text(body.get(field)) for field in CHECKSUM_ORDERS[method])
    return hashlib.sha256((values + secret).encode("utf-8")).hexdigest()


def request_id_for(key: str) -> str:
    """A stable Nuvei id (clientRequestId / clientUniqueId) for payhub's key, ≤ 45 characters."""
    if 0 < len(key) <= ID_MAX and key.isascii() and key.isprintable():
        return key
    return "ph" + hashlib.sha256(key.encode()).hexdigest()[: ID_MAX - 2]


def settle_id_for(reference: str) -> str:
    """The ``clientUniqueId`` payhub files the settle of an authorization under."""
    return request_id_for("S" + reference)


def void_id_for(reference: str) -> str:
    return request_id_for("V" + reference)


def split_token(token: str) -> tuple[str | None, str]:
    """``"<sessionToken>|<ccTempToken>"`` (the Fields session) or a bare temp token."""
    session, sep, temp = token.partition(TOKEN_SEPARATOR)
    return (session or None, temp) if sep else (None, token)


def decimal_amount(money: Money) -> str:
    return format(money.amount, "f")


def decline_code(reason: str) -> str:
    """payhub's decline code for a Nuvei ``gwErrorReason`` (the issuer's text)."""
    return declines.decline_code(text=reason)


class NuveiGateway:
    """Nuvei's REST API 1.0, spoken in payhub's neutral terms."""

    name = "nuvei"

    def __init__(self, client: httpx.Client | None = None) -> None:
        self._http = GatewayHttp(self.name, client)

    # --- the Gateway port ------------------------------------------------------------------

    def charge(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult:
        """A ``Sale`` or an ``Auth`` from a Nuvei Fields temp token or a saved UPO."""
        source = request.source
        if source.method_type is not MethodType.CARD:
            raise ValueError("payhub does not send ACH through Nuvei")
        unique = request_id_for(request.idempotency_key)
        body: dict[str, Any] = {
            "clientRequestId": unique,
            "clientUniqueId": unique,
            "transactionType": "Sale" if request.capture else "Auth",
            "amount": decimal_amount(request.amount),
            "currency": request.amount.currency,
            "deviceDetails": {"ipAddress": "127.0.0.1"},
            "billingAddress": {"country": COUNTRY},
        }
        hide: tuple[str | None, ...] = ()
        if source.token is not None:
            session, temp = split_token(source.token)
            body["paymentOption"] = {"card": {"ccTempToken": temp}}
            hide = (source.token, session, temp)
        else:
            if not source.gateway_customer_ref:
                raise PaymentMethodInvalid(
                    "a saved Nuvei method needs its userTokenId; save the method again",
                    gateway=self.name,
                )
            session = None
            body["userTokenId"] = source.gateway_customer_ref
            body["paymentOption"] = {"userPaymentOptionId": source.saved_method_ref}
            body["isRebilling"] = "1"  # merchant-initiated use of a stored card
        if request.description:
            body["comment"] = request.description[:255]
        body["sessionToken"] = session or self._session(creds)
        try:
            reply = self._call(creds, "payment", body, hide=hide)
            return self._payment_result(reply, request)
        except PaymentMethodInvalid:
            earlier = self._earlier(creds, request)
            if earlier is not None:
                return earlier
            raise
        except _Duplicate:
            earlier = self._earlier(creds, request)
            if earlier is not None:
                return earlier
            raise GatewayError(
                "Nuvei refused a repeated request id and shows no charge under it",
                gateway=self.name,
            ) from None

    # --- the pay page's amount-bound session (MakesPayPageCheckouts) -------------------------

    def pay_page_checkout(
        self, creds: GatewayCredentials, request: CheckoutRequest
    ) -> PayPageCheckout:
        """The session Nuvei Fields tokenizes the card under: ``/openOrder`` for the chosen
        amount (``transactionType`` Sale, or Auth for authorize-only invoices), so the
        ``/payment`` that follows is bound to that order; on the approval page (no amount) a
        plain ``/getSessionToken`` session, under which the card is stored. The page sees only
        the ``sessionToken`` (Nuvei's Web SDK is given it in the browser by design) and pays
        with ``"<sessionToken>|<ccTempToken>"``."""
        if request.amount is None:
            session = self._session(creds)
            return PayPageCheckout(reference=session, public={"sessionToken": session})
        body = {
            "clientRequestId": request_id_for(request.idempotency_key),
            "amount": decimal_amount(request.amount),
            "currency": request.amount.currency,
            "transactionType": "Sale" if request.capture else "Auth",
        }
        reply = self._call(creds, "openOrder", body)
        session = _text(reply.get("sessionToken"))
        if not session:
            raise GatewayError("Nuvei opened no order", gateway=self.name)
        return PayPageCheckout(reference=session, public={"sessionToken": session})

    def checkout_reference(self, payment_token: str) -> str | None:
        """The Fields session a ``"<sessionToken>|<ccTempToken>"`` token was made under."""
        return split_token(payment_token)[0]

    def lookup(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult | None:
        """The approved charge filed under this idempotency key's ``clientUniqueId``, if any."""
        details = self._details(creds, client_unique_id=request_id_for(request.idempotency_key))
        if details is None:
            return None
        info = _transaction(details)
        if _text(info.get("transactionStatus")) != "APPROVED":
            return None
        if _text(info.get("transactionType")) not in ("Sale", "Auth"):
            return None
        return self._describe(creds, details, request.amount.currency)

    def capture(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        """Settle all or part of an authorization (partial settles are allowed)."""
        details = self._require(creds, reference)
        body = {
            "clientRequestId": request_id_for(idempotency_key),
            "clientUniqueId": settle_id_for(reference),
            "amount": decimal_amount(amount),
            "currency": amount.currency,
            "relatedTransactionId": reference,
            "authCode": _text(_transaction(details).get("authCode")),
        }
        try:
            reply = self._financial(creds, "settleTransaction", body)
        except _Duplicate:
            return self.status(creds, reference)  # a retried capture that went through
        return GatewayResult(reference, GatewayStatus.CAPTURED, amount, support=_support(reply))

    def refund(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        """Refund all or part of a Sale, or of the Settle of an authorization."""
        details = self._require(creds, reference)
        target = details
        if _text(_transaction(details).get("transactionType")) == "Auth":
            settle = self._details(creds, client_unique_id=settle_id_for(reference))
            if settle is None:
                raise GatewayError(
                    "Nuvei shows no settle of this authorization to refund", gateway=self.name
                )
            target = settle
        info = _transaction(target)
        unique = request_id_for(idempotency_key)
        body = {
            "clientRequestId": unique,
            "clientUniqueId": unique,
            "amount": decimal_amount(amount),
            "currency": amount.currency,
            "relatedTransactionId": _text(info.get("transactionId")) or reference,
            "authCode": _text(info.get("authCode")),
        }
        try:
            reply = self._financial(creds, "refundTransaction", body)
        except _Duplicate:
            found = self._details(creds, client_unique_id=unique)
            if found is None:
                raise GatewayError(
                    "Nuvei refused a repeated refund request and shows no refund under it",
                    gateway=self.name,
                ) from None
            reply = _transaction(found)
        return GatewayResult(
            _text(reply.get("transactionId")) or reference,
            GatewayStatus.REFUNDED,
            amount,
            support=_support(reply),
        )

    def void(
        self, creds: GatewayCredentials, reference: str, idempotency_key: str
    ) -> GatewayResult:
        """Void an authorization (or an unsettled sale) in full."""
        before = self.status(creds, reference)
        if before.status is GatewayStatus.VOIDED:
            return before  # a retried void: Nuvei would refuse a second one
        details = self._require(creds, reference)
        body = {
            "clientRequestId": request_id_for(idempotency_key),
            "clientUniqueId": void_id_for(reference),
            "amount": decimal_amount(before.amount),
            "currency": before.amount.currency,
            "relatedTransactionId": reference,
            "authCode": _text(_transaction(details).get("authCode")),
        }
        try:
            reply = self._financial(creds, "voidTransaction", body)
        except _Duplicate:
            return self.status(creds, reference)
        return GatewayResult(
            reference, GatewayStatus.VOIDED, before.amount, support=_support(reply)
        )

    def status(self, creds: GatewayCredentials, reference: str) -> GatewayResult:
        details = self._require(creds, reference)
        return self._describe(creds, details, "USD")

    def save_payment_method(
        self, creds: GatewayCredentials, request: SaveMethodRequest
    ) -> SavedMethod:
        """Store a Fields temp token as a user payment option of a (new) Nuvei user."""
        if request.method_type is not MethodType.CARD:
            raise ValueError("payhub does not vault bank accounts at Nuvei")
        session, temp = split_token(request.token)
        hide = (request.token, session, temp)
        user = request.gateway_customer_ref or self._create_user(creds, request)
        added = self._call(
            creds,
            "addUPOCreditCardByTempToken",
            {
                "sessionToken": session or self._session(creds),
                "clientRequestId": _fresh_id(),
                "userTokenId": user,
                "ccTempToken": temp,
                "billingAddress": {
                    "country": COUNTRY,
                    **({"email": request.email} if request.email else {}),
                },
            },
            hide=hide,
        )
        upo = _text(added.get("userPaymentOptionId"))
        if not upo:
            raise GatewayError(
                "Nuvei stored the card but did not say under which id", gateway=self.name
            )
        brand, last4, month, year = self._card_details(creds, user, upo)
        return SavedMethod(
            gateway_customer_ref=user,
            method_ref=upo,
            method_type=MethodType.CARD,
            brand=brand,
            last4=last4,
            exp_month=month,
            exp_year=year,
        )

    # --- helpers ---------------------------------------------------------------------------

    def _payment_result(self, reply: Mapping[str, Any], request: ChargeRequest) -> GatewayResult:
        state = _text(reply.get("transactionStatus"))
        reason = _text(reply.get("gwErrorReason"))
        if state == "APPROVED":
            status = GatewayStatus.CAPTURED if request.capture else GatewayStatus.AUTHORIZED
        elif state == "PENDING":
            status = GatewayStatus.PENDING
        elif state == "DECLINED":
            code = decline_code(reason)
            raise _error(Declined, f"Nuvei declined the payment ({code})", reason, reply, code)
        elif state == "REDIRECT":
            raise _error(
                Declined,
                "Nuvei asked for a 3-D Secure challenge, which payhub's charges cannot answer",
                "3-D Secure challenge required",
                reply,
                "generic_decline",
            )
        else:
            raise _gateway_failure(reply)
        return GatewayResult(
            reference=_text(reply.get("transactionId")),
            status=status,
            amount=request.amount,
            message=redact(reason),
            support=_support(reply),
        )

    def _earlier(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult | None:
        """The charge a retried request already made, or None (Nuvei unreachable raises)."""
        try:
            return self.lookup(creds, request)
        except (GatewayTimeout, GatewayUnavailable):
            raise
        except GatewayError:
            return None

    def _describe(
        self, creds: GatewayCredentials, details: Mapping[str, Any], fallback_currency: str
    ) -> GatewayResult:
        """A transaction's details as payhub's result, following its settle and void."""
        info = _transaction(details)
        reference = _text(info.get("transactionId"))
        kind = _text(info.get("transactionType"))
        state = _text(info.get("transactionStatus"))
        amount = _amount(details, fallback_currency)
        support = _support(info)
        if state == "PENDING":
            return GatewayResult(reference, GatewayStatus.PENDING, amount, support=support)
        if state != "APPROVED":
            return GatewayResult(
                reference,
                GatewayStatus.DECLINED,
                amount,
                decline_code=decline_code(_text(info.get("gwErrorReason"))),
                support=support,
            )
        if kind in ("Sale", "Auth"):
            void = self._details(creds, client_unique_id=void_id_for(reference))
            if void is not None and _text(_transaction(void).get("transactionStatus")) == (
                "APPROVED"
            ):
                return GatewayResult(reference, GatewayStatus.VOIDED, amount, support=support)
        if kind == "Auth":
            settle = self._details(creds, client_unique_id=settle_id_for(reference))
            if settle is not None and _text(_transaction(settle).get("transactionStatus")) == (
                "APPROVED"
            ):
                captured = _amount(settle, amount.currency)
                return GatewayResult(reference, GatewayStatus.CAPTURED, captured, support=support)
            return GatewayResult(reference, GatewayStatus.AUTHORIZED, amount, support=support)
        status = {
            "Sale": GatewayStatus.CAPTURED,
            "Settle": GatewayStatus.CAPTURED,
            "Credit": GatewayStatus.REFUNDED,
            "Void": GatewayStatus.VOIDED,
        }.get(kind, GatewayStatus.PENDING)
        return GatewayResult(reference, status, amount, support=support)

    def _require(self, creds: GatewayCredentials, reference: str) -> dict[str, Any]:
        details = self._details(creds, transaction_id=reference)
        if details is None:
            raise GatewayError(f"Nuvei has no transaction {reference}", gateway=self.name)
        return details

    def _details(
        self,
        creds: GatewayCredentials,
        *,
        transaction_id: str = "",
        client_unique_id: str = "",
    ) -> dict[str, Any] | None:
        """``/getTransactionDetails`` by id or by ``clientUniqueId``; None when unknown."""
        body = {"transactionId": transaction_id, "clientUniqueId": client_unique_id}
        try:
            found = self._call(creds, "getTransactionDetails", body)
        except _NotFound:
            return None
        return found if _text(_transaction(found).get("transactionId")) else None

    def _financial(
        self, creds: GatewayCredentials, method: str, body: dict[str, Any]
    ) -> dict[str, Any]:
        """A settle, refund or void: approved answers come back, the rest raise."""
        reply = self._call(creds, method, body)
        state = _text(reply.get("transactionStatus"))
        if state in ("APPROVED", "PENDING"):
            return reply
        raise _gateway_failure(reply)

    def _session(self, creds: GatewayCredentials) -> str:
        reply = self._call(creds, "getSessionToken", {"clientRequestId": _fresh_id()})
        token = _text(reply.get("sessionToken"))
        if not token:
            raise GatewayError("Nuvei opened no session", gateway=self.name)
        return token

    def _create_user(self, creds: GatewayCredentials, request: SaveMethodRequest) -> str:
        user = request_id_for(request.customer_id)
        first, _, last = (request.name or "").strip().rpartition(" ")
        body = {
            "clientRequestId": _fresh_id(),
            "userTokenId": user,
            "firstName": first or last,
            "lastName": last if first else "",
            "countryCode": COUNTRY,
            "email": request.email or "",
        }
        try:
            self._call(creds, "createUser", {k: v for k, v in body.items() if v})
        except GatewayError as error:
            if "exist" not in (error.gateway_message or "").lower():
                raise
        return user

    def _card_details(
        self, creds: GatewayCredentials, user: str, upo: str
    ) -> tuple[str | None, str | None, int | None, int | None]:
        """Brand, last 4 and expiry of a stored card, from ``/getUserUPOs`` (best effort)."""
        try:
            listing = self._call(
                creds, "getUserUPOs", {"clientRequestId": _fresh_id(), "userTokenId": user}
            )
        except (GatewayTimeout, GatewayUnavailable):
            return None, None, None, None
        for method in listing.get("paymentMethods") or []:
            if isinstance(method, dict) and _text(method.get("userPaymentOptionId")) == upo:
                data = method.get("upoData")
                data = data if isinstance(data, dict) else {}
                brand = _BRANDS.get(_text(data.get("brand")).replace(" ", "").lower())
                tail = _text(data.get("ccCardNumber"))[-4:]
                return (
                    brand,
                    tail if len(tail) == 4 and tail.isdigit() else None,
                    _int(data.get("ccExpMonth"), 1, 12),
                    _year(data.get("ccExpYear")),
                )
        return None, None, None, None

    def _call(
        self,
        creds: GatewayCredentials,
        method: str,
        fields: dict[str, Any],
        *,
        hide: Iterable[str | None] = (),
    ) -> dict[str, Any]:
        merchant, site = creds.fields.get("merchantId", ""), creds.fields.get("merchantSiteId", "")
        if not (merchant and site and creds.api_secret):
            raise GatewayCredentialsRejected(
                "Nuvei needs merchantId and merchantSiteId (additionalFields) and the merchant"
                f" secret key (apiSecret); {_CREDENTIALS_HINT}",
                gateway=self.name,
            )
        body = {
            "merchantId": merchant,
            "merchantSiteId": site,
            **fields,
            "timeStamp": datetime.now(UTC).strftime("%Y%m%d%H%M%S"),
        }
        body["checksum"] = checksum(method, body, creds.api_secret)
        response = self._http.send(
            "POST",
            f"{base_url(creds.sandbox)}/{method}.do",
            json=body,
            headers={"Accept": "application/json"},
        )
        text = hide_values(response.text, [creds.api_secret, *hide])
        parsed = json_value(text.encode()) if text.strip() else {}
        if not isinstance(parsed, dict):
            raise unexpected(self.name)
        if response.status_code >= 400 or _text(parsed.get("status")) == "ERROR":
            raise _refusal(parsed, response.status_code, method)
        return parsed


# --- mapping ------------------------------------------------------------------------------


class _Duplicate(GatewayError):
    """Nuvei refused a ``clientRequestId`` it has seen: the request may have gone through."""


class _NotFound(GatewayError):
    """``/getTransactionDetails`` knows no such transaction."""


def _fresh_id() -> str:
    return "ph" + secrets.token_hex(16)


def _text(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, dict):
        return "".join(_text(v) for v in value.values())
    return str(value).strip()


def _int(value: object, low: int, high: int) -> int | None:
    text = _text(value)
    return int(text) if text.isdigit() and low <= int(text) <= high else None


def _year(value: object) -> int | None:
    year = _int(value, 0, 9999)
    if year is None:
        return None
    return year + 2000 if year < 100 else year


def _transaction(details: Mapping[str, Any]) -> dict[str, Any]:
    """The transaction record of a ``getTransactionDetails`` answer (or the answer itself)."""
    inner = details.get("transactionDetails")
    return inner if isinstance(inner, dict) else dict(details)


def _amount(details: Mapping[str, Any], fallback_currency: str) -> Money:
    info = _transaction(details)
    raw = info.get("originalAmount") or info.get("amount") or details.get("amount")
    currency = _text(
        info.get("originalCurrency") or info.get("currency") or details.get("currency")
    )
    currency = currency if len(currency) == 3 and currency.isalpha() else fallback_currency
    try:
        return Money.of(Decimal(_text(raw) or "0"), currency.upper())
    except (InvalidOperation, ValidationError):
        raise GatewayError(
            f"Nuvei reported an amount payhub cannot represent in {currency}",
            gateway=NuveiGateway.name,
        ) from None


def _support(reply: Mapping[str, Any]) -> dict[str, str]:
    keep = {
        "transactionId": reply.get("transactionId"),
        "transactionType": reply.get("transactionType"),
        "transactionStatus": reply.get("transactionStatus"),
        "authCode": reply.get("authCode"),
        "gwErrorCode": reply.get("gwErrorCode"),
        "gwExtendedErrorCode": reply.get("gwExtendedErrorCode"),
        "internalRequestId": reply.get("internalRequestId"),
    }
    return {k: _text(v)[:64] for k, v in keep.items() if _text(v) not in ("", "0")}


def _error(
    cls: type[GatewayError],
    detail: str,
    message: str,
    reply: Mapping[str, Any] | None = None,
    decline: str | None = None,
) -> GatewayError:
    return cls(
        detail,
        gateway=NuveiGateway.name,
        decline_code=decline,
        gateway_message=redact(message),
        gateway_request_id=_text((reply or {}).get("internalRequestId")) or None,
    )


def _gateway_failure(reply: Mapping[str, Any]) -> GatewayError:
    """A transaction with ``transactionStatus`` ERROR (or DECLINED on a settle/refund/void)."""
    reason = _text(reply.get("gwErrorReason")) or _text(reply.get("reason"))
    lowered = reason.lower()
    if _text(reply.get("transactionStatus")) == "DECLINED":
        code = decline_code(reason)
        return _error(Declined, f"Nuvei declined the payment ({code})", reason, reply, code)
    if "expired" in lowered:
        return _error(Declined, "Nuvei declined the payment (expired_card)", reason, reply,
                      "expired_card")  # fmt: skip
    if "token" in lowered or "card data" in lowered or "payment option" in lowered:
        return _unusable_method(reason, reply)
    code = _text(reply.get("gwErrorCode")) or "unknown"
    return _error(GatewayError, f"Nuvei could not process the request ({code})", reason, reply)


def _unusable_method(reason: str, reply: Mapping[str, Any]) -> GatewayError:
    return _error(
        PaymentMethodInvalid,
        "Nuvei does not accept this payment method (the temp token is unknown, expired or"
        " already used, or the saved card is gone); collect the card again",
        reason,
        reply,
    )


def _refusal(body: Mapping[str, Any], http_status: int, method: str) -> GatewayError:
    """A request Nuvei refused (``status: ERROR``) before or instead of processing it."""
    try:
        code = int(_text(body.get("errCode")) or 0)
    except ValueError:
        code = 0
    reason = _text(body.get("reason")) or f"HTTP {http_status}"
    lowered = reason.lower()
    if http_status in (401, 403) or code in _CREDENTIAL_CODES or "checksum" in lowered:
        return _error(
            GatewayCredentialsRejected,
            f"Nuvei rejected the merchant's id, site id or secret key; {_CREDENTIALS_HINT}",
            reason,
            body,
        )
    if method == "getTransactionDetails" and (
        "not found" in lowered or "no transaction" in lowered
    ):
        return _error(_NotFound, "Nuvei does not know that transaction", reason, body)
    if "clientrequestid" in lowered or "duplicate" in lowered:
        return _error(_Duplicate, "Nuvei has seen this request id before", reason, body)
    if code in _METHOD_CODES or "token" in lowered or "payment option" in lowered:
        return _unusable_method(reason, body)
    if code in _UNAVAILABLE_CODES:
        return _error(
            GatewayUnavailable,
            f"Nuvei could not process the request (error {code}); nothing was charged",
            reason,
            body,
        )
    if "transactionStatus" in body and _text(body.get("transactionStatus")) == "DECLINED":
        return _gateway_failure(body)
    return _error(
        GatewayError, f"Nuvei refused the request (error {code or 'unknown'})", reason, body
    )
