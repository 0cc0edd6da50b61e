"""USAePay, through its REST API v2 (JSON over HTTPS).

Why it looks the way it does:

- Hosts: ``https://sandbox.usaepay.com/api/v2`` for sandbox accounts,
  ``https://usaepay.com/api/v2`` for live ones (``creds.sandbox`` decides).
- Authentication: HTTP Basic with the API key as the user and an API hash as the password,
  ``s2/{seed}/{sha256(apikey + seed + pin)}`` with a fresh random seed on every request, so the
  PIN never crosses the wire. The merchant's ``apiSecret`` is the API key and the catalog's
  ``pin`` field its PIN (required: connected refunds and voids need a keyed PIN).
- Every money movement is ``POST /transactions`` with a ``command``: ``cc:sale`` /
  ``cc:authonly`` on a Pay.js ``payment_key`` (single use), ``cc:capture`` (an ``amount``
  other than the authorized one is allowed, so partial capture works), ``creditvoid`` for
  refunds (USAePay voids the amount while the sale is in the open batch and credits it once
  settled, whole or part), ``cc:void:release`` to void an authorization and release the hold at
  once. Status is ``GET /transactions/{trankey}``.
- Answers carry ``result_code`` (A approved, P partial approval, D declined, E error,
  V verification) with ``error`` and ``error_code`` on failures; refusals before processing
  come as ``{"error", "errorcode"}``. A partial approval is voided straight away and reported
  as a decline: payhub never keeps a charge for less than it asked.
- Amounts are decimal strings at the currency's precision; ``currency`` is the ISO 4217
  numeric code (USAePay's default is 840, USD).
- Idempotency: USAePay has no idempotency key. Its duplicate folding answers a repeat with the
  original response and ``is_duplicate: "Y"`` (honoured here), and payhub's key travels as
  ``orderid`` (at most 64 characters; longer keys are hashed). ``lookup`` finds a charge whose
  answer was lost by that ``orderid`` in the merchant's newest transactions (``GET
  /transactions`` with ``limit``/``offset``), and ``charge`` asks it before giving up on a
  spent single-use ``payment_key``, so a retried ``Unknown`` charge never charges twice.
- Vault: a customer (``POST /customers``, ``customerid`` = payhub's customer id) holds payment
  methods. The Pay.js key is first tokenized with ``cc:save`` (a reusable card reference plus
  the masked number and expiry), then stored with ``POST /customers/{custkey}/payment_methods``.
  A saved card is sold with ``customer:sale`` (``custkey`` + ``paymethod_key``); an
  authorization on it uses the method's card reference
  (``GET …/payment_methods/{key}/cardref``) as the card number of a ``cc:authonly``.
- ACH (``check:sale``) is not offered through USAePay in payhub (the catalog row says so).

References (USAePay REST API v2, https://help.usaepay.info/api/rest/ ; copy checked 2026-03):
base URL, Authentication (apihash), Rate Limits (429, ``errorcode`` 155), Transactions: Sale,
Payment Key Sale, AuthOnly, Capture, Credit Void, Void, Release Funds, Retrieve Transaction
Detail, Tokenization (``cc:save``), Customers, Payment Methods (create, cardref), Customer
Transactions (``customer:sale``); https://help.usaepay.info/developer/reference/transactioncodes/
(type and status codes); https://help.usaepay.info/developer/reference/errorcodes/ .
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import secrets
from collections.abc import Iterable, Mapping
from decimal import Decimal, InvalidOperation
from typing import Any
from urllib.parse import quote

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

SANDBOX_BASE_URL = "https://sandbox.usaepay.com/api/v2"
LIVE_BASE_URL = "https://usaepay.com/api/v2"
ORDERID_MAX = 64
LOOKUP_PAGE = 100
LOOKUP_PAGES = 3  # the newest 300 transactions: a lost answer is seconds to minutes old
_CREDENTIALS_HINT = "update them with PUT /api/merchant-accounts/{ref}/credentials/usaepay"

# ISO 4217 numeric codes for the currencies payhub may send (USAePay takes numbers).
CURRENCY_CODES = {
    "USD": "840",
    "CAD": "124",
    "EUR": "978",
    "GBP": "826",
    "AUD": "036",
    "NZD": "554",
    "JPY": "392",
    "MXN": "484",
}
_CURRENCY_BY_CODE = {code: name for name, code in CURRENCY_CODES.items()}

# error_code values (USAePay's error list) that mean the key/PIN cannot be used.
_CREDENTIAL_CODES = frozenset({"23", "28", "29", "30", "80", "84", "112"})
# The gateway or processor was unreachable: nothing was charged, a retry is safe.
_UNAVAILABLE_CODES = frozenset(
    {"4", "9", "10", "18", "19", "27", "36", "41", "42", "45", "46", "81", "93", "101", "9001"}
)
# The token, card reference or saved method is unknown, spent or expired.
_METHOD_CODES = frozenset({"11", "12", "13", "14", "15", "16", "85", "601", "602", "604", "605"})
_CARD_TYPES = {
    "V": "visa",
    "VISA": "visa",
    "M": "mastercard",
    "MC": "mastercard",
    "MASTERCARD": "mastercard",
    "A": "amex",
    "AMEX": "amex",
    "AMERICANEXPRESS": "amex",
    "DS": "discover",
    "D": "discover",
    "DISCOVER": "discover",
    "JCB": "jcb",
    "J": "jcb",
    "DC": "diners",
    "DINERS": "diners",
}
_CHARGE_TYPES = frozenset({"A", "S", "L", "V"})  # auth only, sale, capture, voided sale


def base_url(sandbox: bool) -> str:
    return SANDBOX_BASE_URL if sandbox else LIVE_BASE_URL


def api_hash(api_key: str, pin: str, seed: str) -> str:
    """USAePay's API hash: ``s2/{seed}/{sha256(apikey + seed + pin)}``."""
    digest = hashlib.sha256((api_key + seed + pin).encode()).hexdigest()
    return f"s2/{seed}/{digest}"


def authorization(api_key: str, pin: str, seed: str) -> str:
    """The ``Authorization`` header value for one request."""
    pair = f"{api_key}:{api_hash(api_key, pin, seed)}".encode()
    return "Basic " + base64.b64encode(pair).decode()


def order_id_for(idempotency_key: str) -> str:
    """The ``orderid`` carrying payhub's idempotency key (stable, at most 64 characters)."""
    if 0 < len(idempotency_key) <= ORDERID_MAX and idempotency_key.isascii():
        return idempotency_key
    return "ph" + hashlib.sha256(idempotency_key.encode()).hexdigest()[: ORDERID_MAX - 2]


def decimal_amount(money: Money) -> str:
    return format(money.amount, "f")


def decline_code(message: str, code: str = "") -> str:
    """payhub's decline code for a USAePay decline, from its error code and message."""
    if code == "17":  # card expired
        return "expired_card"
    return declines.decline_code(text=message)


class UsaEpayGateway:
    """USAePay's REST API v2, spoken in payhub's neutral terms."""

    name = "usaepay"

    def __init__(self, client: httpx.Client | None = None) -> None:
        self._http = GatewayHttp(self.name, client)

    # --- the Gateway port ------------------------------------------------------------------

    def charge(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult:
        """A sale or an authorization from a Pay.js ``payment_key`` or a saved method."""
        source = request.source
        body = self._charge_body(creds, request)
        try:
            card = body.get("creditcard")
            cardref = card.get("number") if isinstance(card, dict) else None
            reply = self._transaction(creds, body, hide=(source.token, cardref))
        except PaymentMethodInvalid:
            if source.token is None:
                raise
            # A retry whose single-use payment key was spent by the first attempt: answer
            # with that charge if there is one; if USAePay cannot be asked, it stays unknown.
            try:
                earlier = self.lookup(creds, request)
            except (GatewayTimeout, GatewayUnavailable):
                raise
            except GatewayError:
                earlier = None
            if earlier is not None:
                return earlier
            raise
        if reply.get("result_code") == "P":
            self._release_partial(creds, reply)
            raise _error(
                Declined,
                "USAePay approved only part of the amount; the partial authorization was released",
                "Partial approval",
                reply,
                "insufficient_funds",
            )
        return GatewayResult(
            reference=_text(reply.get("key")),
            status=GatewayStatus.CAPTURED if request.capture else GatewayStatus.AUTHORIZED,
            amount=request.amount,
            message=redact(_text(reply.get("result"))),
            support=_support(reply),
        )

    def lookup(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult | None:
        """Find the charge made under this idempotency key, by ``orderid``, newest first."""
        order_id = order_id_for(request.idempotency_key)
        for page in range(LOOKUP_PAGES):
            listing = self._call(
                creds,
                "GET",
                "/transactions",
                params={"limit": str(LOOKUP_PAGE), "offset": str(page * LOOKUP_PAGE)},
            )
            rows = listing.get("data")
            if not isinstance(rows, list):
                raise unexpected(self.name)
            for row in rows:
                if (
                    isinstance(row, dict)
                    and _text(row.get("orderid")) == order_id
                    and _text(row.get("trantype_code")) in _CHARGE_TYPES
                    and _text(row.get("result_code")) == "A"
                ):
                    return _result(row, request.amount.currency)
            if len(rows) < LOOKUP_PAGE:
                return None
        return None

    def capture(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        """Capture all or part of an authorization (USAePay captures a given ``amount``)."""
        reply = self._transaction(
            creds,
            {"command": "cc:capture", "trankey": reference, "amount": decimal_amount(amount)},
        )
        return GatewayResult(
            reference,
            GatewayStatus.CAPTURED,
            amount,
            message=redact(_text(reply.get("result"))),
            support=_support(reply),
        )

    def refund(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        """Give back all or part of a sale: voided while unsettled, credited once settled."""
        reply = self._transaction(
            creds,
            {"command": "creditvoid", "trankey": reference, "amount": decimal_amount(amount)},
        )
        return GatewayResult(
            _text(reply.get("key")) or reference,
            GatewayStatus.REFUNDED,
            amount,
            message=redact(_text(reply.get("result"))),
            support=_support(reply),
        )

    def void(
        self, creds: GatewayCredentials, reference: str, idempotency_key: str
    ) -> GatewayResult:
        """Void an authorization and release the cardholder's hold at once."""
        before = self.status(creds, reference)
        if before.status is GatewayStatus.VOIDED:
            return before  # a retried void: USAePay would answer "already voided"
        reply = self._transaction(creds, {"command": "cc:void:release", "trankey": reference})
        return GatewayResult(
            reference,
            GatewayStatus.VOIDED,
            before.amount,
            message=redact(_text(reply.get("result"))),
            support=_support(reply),
        )

    def status(self, creds: GatewayCredentials, reference: str) -> GatewayResult:
        detail = self._call(creds, "GET", "/transactions/" + quote(reference, safe=""))
        if detail.get("type") != "transaction":
            raise GatewayError(f"USAePay has no transaction {reference}", gateway=self.name)
        return _result(detail, "USD")

    def save_payment_method(
        self, creds: GatewayCredentials, request: SaveMethodRequest
    ) -> SavedMethod:
        """Tokenize the Pay.js key, then store the card on a (new) USAePay customer."""
        if request.method_type is not MethodType.CARD:
            raise ValueError("payhub does not vault bank accounts at USAePay")
        saved = self._transaction(
            creds, {"command": "cc:save", "payment_key": request.token}, hide=(request.token,)
        )
        card = saved.get("savedcard")
        if not isinstance(card, dict) or not _text(card.get("key")):
            raise GatewayError(
                "USAePay accepted the card but returned no card reference", gateway=self.name
            )
        cardref = _text(card.get("key"))
        customer = request.gateway_customer_ref or self._create_customer(creds, request)
        methods = self._call(
            creds,
            "POST",
            f"/customers/{quote(customer, safe='')}/payment_methods",
            json=[
                {
                    "pay_type": "cc",
                    "method_name": request.name or "Card",
                    "cardholder": request.name or "",
                    "number": cardref,
                    "expiration": _text(card.get("expiration")),
                }
            ],
            hide=(cardref,),
        )
        method = methods[0] if isinstance(methods, list) and methods else methods
        if not isinstance(method, dict) or not _text(method.get("key")):
            raise GatewayError(
                "USAePay stored the card but did not say under which key", gateway=self.name
            )
        month, year = _expiry(_text(method.get("expires")) or _text(card.get("expiration")))
        brand = _brand(_text(method.get("card_type")) or _text(card.get("type")))
        last4 = _last4(_text(method.get("ccnum4last")) or _text(card.get("cardnumber")))
        return SavedMethod(
            gateway_customer_ref=customer,
            method_ref=_text(method.get("key")),
            method_type=MethodType.CARD,
            brand=brand,
            last4=last4,
            exp_month=month,
            exp_year=year,
        )

    # --- helpers ---------------------------------------------------------------------------

    def _charge_body(self, creds: GatewayCredentials, request: ChargeRequest) -> dict[str, Any]:
        """The ``POST /transactions`` body for a sale or authorization."""
        source = request.source
        if source.method_type is not MethodType.CARD:
            raise ValueError("payhub does not send ACH through USAePay")
        body: dict[str, Any] = {
            "amount": decimal_amount(request.amount),
            "orderid": order_id_for(request.idempotency_key),
            **_currency(request.amount.currency),
        }
        if request.description:
            body["description"] = request.description[:255]
        if source.token is not None:
            body |= {
                "command": "cc:sale" if request.capture else "cc:authonly",
                "payment_key": source.token,
            }
        else:
            customer, method = source.gateway_customer_ref, source.saved_method_ref or ""
            if not customer:
                raise PaymentMethodInvalid(
                    "a saved USAePay method needs its customer key; save the method again",
                    gateway=self.name,
                )
            if request.capture:
                body |= {"command": "customer:sale", "custkey": customer, "paymethod_key": method}
            else:
                cardref = self._cardref(creds, customer, method)
                body |= {"command": "cc:authonly", "creditcard": {"number": cardref}}
        return body

    def _create_customer(self, creds: GatewayCredentials, request: SaveMethodRequest) -> str:
        first, _, last = (request.name or "").strip().rpartition(" ")
        body = {
            "customerid": request.customer_id,
            "first_name": first or last,
            "last_name": last if first else "",
            "email": request.email or "",
        }
        created = self._call(creds, "POST", "/customers", json=body)
        key = _text(created.get("key")) if isinstance(created, dict) else ""
        if not key:
            raise GatewayError("USAePay created no customer key", gateway=self.name)
        return key

    def _cardref(self, creds: GatewayCredentials, customer: str, method: str) -> str:
        path = (
            f"/customers/{quote(customer, safe='')}/payment_methods/"
            f"{quote(method, safe='')}/cardref"
        )
        found = self._call(creds, "GET", path)
        cardref = _text(found.get("cardref")) if isinstance(found, dict) else ""
        if not cardref:
            raise PaymentMethodInvalid(
                "USAePay has no card reference for this saved method; save the card again",
                gateway=self.name,
            )
        return cardref

    def _release_partial(self, creds: GatewayCredentials, reply: Mapping[str, Any]) -> None:
        key = _text(reply.get("key"))
        if key:
            # If this fails the hold lapses on its own; the decline stands either way.
            with contextlib.suppress(GatewayError):
                self._transaction(creds, {"command": "cc:void:release", "trankey": key})

    def _transaction(
        self, creds: GatewayCredentials, body: dict[str, Any], hide: Iterable[str | None] = ()
    ) -> dict[str, Any]:
        """One ``POST /transactions``; approved (A/P) answers come back, the rest raise."""
        reply = self._call(creds, "POST", "/transactions", json=body, hide=hide)
        if not isinstance(reply, dict):
            raise unexpected(self.name)
        code = _text(reply.get("result_code"))
        if code in ("A", "P"):
            return reply
        raise _failure(reply)

    def _call(
        self,
        creds: GatewayCredentials,
        method: str,
        path: str,
        *,
        hide: Iterable[str | None] = (),
        **kwargs: Any,
    ) -> Any:
        pin = creds.fields.get("pin", "")
        if not pin:
            raise GatewayCredentialsRejected(
                f"USAePay needs the API key's PIN (additionalFields.pin); {_CREDENTIALS_HINT}",
                gateway=self.name,
            )
        headers = {
            "Authorization": authorization(creds.api_secret, pin, secrets.token_hex(8)),
            "Accept": "application/json",
        }
        response = self._http.send(
            method,
            base_url(creds.sandbox) + path,
            headers=headers,
            credentials_errors=False,  # mapped below, with USAePay's own message
            **kwargs,
        )
        hidden = [creds.api_secret, pin, *hide]
        text = hide_values(response.text, hidden)
        if response.status_code == 429:
            raise GatewayUnavailable(
                "USAePay's API rate limit was exceeded; try again shortly", gateway=self.name
            )
        parsed = json_value(text.encode()) if text.strip() else {}
        if parsed is None:
            raise unexpected(self.name)
        if response.status_code >= 400 or (isinstance(parsed, dict) and _is_refusal(parsed)):
            raise _refusal(parsed if isinstance(parsed, dict) else {}, response.status_code)
        return parsed


# --- mapping ------------------------------------------------------------------------------


def _is_refusal(body: Mapping[str, Any]) -> bool:
    """``{"error", "errorcode"}`` without a transaction: refused before processing."""
    return "error" in body and "result_code" not in body and body.get("type") is None


def _currency(currency: str) -> dict[str, str]:
    if currency == "USD":
        return {}
    code = CURRENCY_CODES.get(currency)
    if code is None:
        raise GatewayError(
            f"payhub does not send {currency} to USAePay", gateway=UsaEpayGateway.name
        )
    return {"currency": code}


def _text(value: object) -> str:
    if value is None:
        return ""
    return str(value).strip()


def _support(reply: Mapping[str, Any]) -> dict[str, str]:
    keep = {
        "refnum": reply.get("refnum"),
        "result_code": reply.get("result_code"),
        "error_code": reply.get("error_code"),
        "is_duplicate": reply.get("is_duplicate"),
        "trantype": reply.get("trantype"),
    }
    avs, cvc = reply.get("avs"), reply.get("cvc")
    if isinstance(avs, dict):
        keep["avs"] = avs.get("result_code")
    if isinstance(cvc, dict):
        keep["cvc"] = cvc.get("result_code")
    return {k: _text(v)[:64] for k, v in keep.items() if _text(v)}


def _error(
    cls: type[GatewayError],
    detail: str,
    message: str,
    reply: Mapping[str, Any] | None = None,
    decline: str | None = None,
) -> GatewayError:
    return cls(
        detail,
        gateway=UsaEpayGateway.name,
        decline_code=decline,
        gateway_message=redact(message),
        gateway_request_id=_text((reply or {}).get("refnum")) or None,
    )


def _failure(reply: Mapping[str, Any]) -> GatewayError:
    """The payhub failure for a declined (D), erroring (E) or unverified (V) transaction."""
    code = _text(reply.get("error_code"))
    message = _text(reply.get("error")) or _text(reply.get("result"))
    result = _text(reply.get("result_code"))
    if result == "D":
        reason = decline_code(message, code)
        detail = f"USAePay declined the payment ({reason})"
        return _error(Declined, detail, message, reply, reason)
    return _classify(code, message, reply)


def _refusal(body: Mapping[str, Any], status: int) -> GatewayError:
    code = _text(body.get("errorcode") or body.get("error_code"))
    message = _text(body.get("error")) or f"HTTP {status}"
    if status in (401, 403):
        return _error(
            GatewayCredentialsRejected,
            f"USAePay rejected the merchant's API key or PIN; {_CREDENTIALS_HINT}",
            message,
        )
    if status == 404 and not code:
        return _error(GatewayError, "USAePay does not know that record", message)
    return _classify(code, message, body)


def _classify(code: str, message: str, reply: Mapping[str, Any]) -> GatewayError:
    lowered = message.lower()
    if code in _CREDENTIAL_CODES or any(
        m in lowered for m in ("api key", "source key", "invalid pin", "pin code", "access denied")
    ):
        return _error(
            GatewayCredentialsRejected,
            f"USAePay rejected the merchant's API key or PIN; {_CREDENTIALS_HINT}",
            message,
            reply,
        )
    if (
        code in _METHOD_CODES
        or any(
            m in lowered
            for m in (
                "payment key",
                "card reference",
                "payment method not found",
                "customer not found",
            )
        )
        or ("payment method" in lowered and "not found" in lowered)
    ):
        return _error(
            PaymentMethodInvalid,
            "USAePay does not accept this payment method (the payment key is unknown, expired"
            " or already used, or the saved card is gone); collect the card again",
            message,
            reply,
        )
    if code in _UNAVAILABLE_CODES:
        return _error(
            GatewayUnavailable,
            f"USAePay could not process the request (error {code}); nothing was charged",
            message,
            reply,
        )
    if code == "17":
        return _error(Declined, "USAePay declined the payment (expired_card)", message, reply,
                      "expired_card")  # fmt: skip
    return _error(
        GatewayError,
        f"USAePay refused the request (error {code or 'unknown'})",
        message,
        reply,
    )


def _result(row: Mapping[str, Any], currency: str) -> GatewayResult:
    """A transaction record (GET or list) as payhub's result."""
    trantype = _text(row.get("trantype_code"))
    status_code = _text(row.get("status_code"))
    result_code = _text(row.get("result_code"))
    code = _text(row.get("currency"))
    currency = _CURRENCY_BY_CODE.get(code, code if len(code) == 3 and code.isalpha() else currency)
    if result_code not in ("A", "P"):
        status = GatewayStatus.DECLINED
    elif trantype in ("V", "Z") or status_code == "V" or (trantype == "A" and status_code == "R"):
        status = GatewayStatus.VOIDED
    elif trantype in ("C", "R", "H"):
        status = GatewayStatus.REFUNDED
    elif trantype == "A":
        status = GatewayStatus.AUTHORIZED
    elif trantype in ("S", "L"):
        status = GatewayStatus.CAPTURED if status_code in ("P", "S", "") else GatewayStatus.PENDING
    else:
        status = GatewayStatus.PENDING
    return GatewayResult(
        reference=_text(row.get("key")),
        status=status,
        amount=_money(row.get("amount") or row.get("auth_amount"), currency),
        message=redact(_text(row.get("status"))),
        support=_support(row) | ({"status_code": status_code} if status_code else {}),
    )


def _money(value: object, currency: str) -> Money:
    try:
        amount = Decimal(_text(value) or "0")
        return Money.of(amount, currency)
    except (InvalidOperation, ValidationError):
        raise GatewayError(
            f"USAePay reported an amount payhub cannot represent in {currency}",
            gateway=UsaEpayGateway.name,
        ) from None


def _brand(card_type: str) -> str | None:
    return _CARD_TYPES.get(card_type.replace(" ", "").upper())


def _last4(masked: str) -> str | None:
    tail = masked[-4:]
    return tail if len(tail) == 4 and tail.isdigit() else None


def _expiry(value: str) -> tuple[int | None, int | None]:
    """``YYYY-MM-DD`` (payment methods) or ``MMYY`` (saved cards) as month and year."""
    if len(value) == 10 and value[4] == "-" and value[:4].isdigit() and value[5:7].isdigit():
        month, year = int(value[5:7]), int(value[:4])
    elif len(value) == 4 and value.isdigit():
        month, year = int(value[:2]), 2000 + int(value[2:])
    else:
        return None, None
    return (month, year) if 1 <= month <= 12 and year > 2000 else (None, None)
