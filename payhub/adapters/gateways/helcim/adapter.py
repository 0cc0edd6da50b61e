"""Helcim, spoken through its Payment API v2 (``https://api.helcim.com/v2``).

References relied on (devdocs.helcim.com and Helcim's published OpenAPI for API v2.2):

- Purchase and preauth (``POST /payment/purchase`` and ``/payment/preauth``; body ``ipAddress``,
  ``currency``, ``amount`` as a decimal number, ``cardData.cardToken``, optional
  ``customerCode``, ``ecommerce`` and ``invoice``; header ``api-token``):
  https://devdocs.helcim.com/docs/process-a-credit-card-payment,
  https://devdocs.helcim.com/docs/payment-api, https://devdocs.helcim.com/docs/payments
- Capture (``POST /payment/capture`` with ``preAuthTransactionId`` and an ``amount`` at most the
  preauth's; answers a NEW transaction of type ``capture``), refund (``POST /payment/refund``
  with ``originalTransactionId`` of the purchase or capture), reverse (``POST /payment/reverse``
  with ``cardTransactionId``; the whole amount, open batch only):
  https://devdocs.helcim.com/docs/reverse-a-credit-card-payment
- Idempotency (the ``idempotency-key`` header is required on every Payment API POST: 25
  alphanumeric characters; the same key and payload within 5 minutes answers the first
  response, a different payload is 409, and keys are forgotten after 5 minutes):
  https://devdocs.helcim.com/docs/idempotency-keys; suspected duplicates (same card, name and
  amount within 5 minutes is DECLINED): https://devdocs.helcim.com/docs/suspected-duplicates
- Card transactions (``GET /card-transactions/{id}``; ``GET /card-transactions`` filtered by
  ``invoiceNumber``, ``customerCode`` or ``cardToken``; fields ``transactionId``, ``status``
  APPROVED/DECLINED, ``type``, ``amount``, ``currency``, ``cardType``, ``cardNumber`` (F6L4),
  ``cardToken``, ``customerCode``, ``invoiceNumber``): Helcim's Card Transaction API reference
- Declines (issuer declines carry "Transaction Declined: <REASON> - <text>"; the testing page
  says they may arrive as HTTP 500): https://devdocs.helcim.com/docs/testing-declines-and-avs
- Cards and customers (every card processed is stored on a customer, one Helcim creates when
  none is given; ``GET /customers?customerCode=``, ``GET /customers/{id}/cards?cardToken=``
  with ``cardF6L4`` and ``cardExpiry`` MMYY): https://devdocs.helcim.com/docs/cards,
  https://devdocs.helcim.com/docs/helcim-card-vault

Choices a reader must know:

- One host serves test and live: a Helcim developer test account is a separate account with
  its own API token, so ``creds.sandbox`` cannot pick a host and whether a token is a test one
  rests on the account (keep test tokens on sandbox merchant accounts).
- ``ipAddress`` is required in every Payment API body but payhub's charges carry no payer IP:
  the adapter sends ``PAYER_IP_UNKNOWN`` (127.0.0.1) with ``ecommerce: true``.
- payhub's key becomes the 25-character ``idempotency-key`` (a base-32 SHA-256 digest, with a
  step suffix for multi-call work). Helcim forgets keys after 5 minutes, so each charge also
  names its invoice ``invoice.invoiceNumber`` = ``PH`` + a digest of payhub's key, and
  ``lookup`` finds a charge whose answer was lost with ``GET /card-transactions?invoiceNumber=``.
- The reference of a charge is the purchase's or preauth's ``transactionId``. A capture makes a
  new transaction (returned as the capture's reference); refunds and status of an authorized
  charge find that capture through the invoice the preauth and its follow-ups share.
- A void is a reverse of the preauth. Saving a card adopts the HelcimPay.js ``cardToken`` (it is
  already in the vault of the customer HelcimPay.js verified it for): the gateway customer
  reference is that customer's ``customerCode`` and the method reference is the card token.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

import attrs
import httpx

from payhub.adapters.gateways.kit import declines
from payhub.adapters.gateways.kit.answers import credentials_rejected, json_value
from payhub.adapters.gateways.kit.answers import unexpected as _kit_unexpected
from payhub.adapters.gateways.kit.http import Answer as _Answer
from payhub.adapters.gateways.kit.http import GatewayHttp, json_body
from payhub.adapters.gateways.kit.http import path_segment as _path
from payhub.adapters.gateways.kit.redaction import redact
from payhub.domain.errors import ValidationError
from payhub.domain.money import Money, minor_unit_exponent
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
from payhub.ports import CheckoutRequest, PayPageCheckout

GATEWAY = "helcim"
BASE_URL = "https://api.helcim.com/v2"
PAYER_IP_UNKNOWN = "127.0.0.1"
KEY_LENGTH = 25
_NOTES_MAX = 200
_APPROVED = frozenset({"APPROVED", "APPROVAL"})
_BRANDS = {
    "VI": "visa",
    "VISA": "visa",
    "MC": "mastercard",
    "MASTERCARD": "mastercard",
    "AX": "amex",
    "AMEX": "amex",
    "AMERICAN EXPRESS": "amex",
    "DI": "discover",
    "DISCOVER": "discover",
    "DCI": "diners",
    "JCB": "jcb",
    "UP": "unionpay",
}


class HelcimGateway:
    """The ``Gateway`` port (and ``FindsLostCharges``) for Helcim's Payment API, cards only."""

    name = GATEWAY

    def __init__(self, client: httpx.Client | None = None) -> None:
        self.http = GatewayHttp(GATEWAY, client)

    # --- the port ----------------------------------------------------------------------

    def charge(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult:
        source = request.source
        if source.method_type is not MethodType.CARD:
            raise ValueError("Helcim takes card payments only in payhub")
        token = card_token(source.token) if source.token is not None else source.saved_method_ref
        assert token is not None
        invoice: dict[str, Any] = {"invoiceNumber": invoice_number(request.idempotency_key)}
        if request.description:
            invoice["notes"] = request.description[:_NOTES_MAX]
        body: dict[str, Any] = {
            "ipAddress": PAYER_IP_UNKNOWN,
            "ecommerce": True,
            "currency": request.amount.currency,
            "amount": helcim_amount(request.amount),
            "cardData": {"cardToken": token},
            "invoice": invoice,
        }
        if source.token is None and source.gateway_customer_ref:
            body["customerCode"] = source.gateway_customer_ref
        path = "/payment/purchase" if request.capture else "/payment/preauth"
        answer = self._send(
            creds, "POST", path, body=body, key=helcim_key(request.idempotency_key), secret=token
        )
        return _approved_or_raise(answer, _transaction_result(answer))

    def lookup(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult | None:
        """Find the charge made under this key (its answer lost, Helcim's key long forgotten)."""
        number = invoice_number(request.idempotency_key)
        answer = self._send(creds, "GET", "/card-transactions", params={"invoiceNumber": number})
        wanted = "purchase" if request.capture else "preauth"
        declined: GatewayResult | None = None
        for txn in _list(answer):
            if txn.get("invoiceNumber") != number or _type(txn) != wanted:
                continue
            result = _transaction_result(_Answer(txn, answer.status_code), found_by="lookup")
            if result.status is not GatewayStatus.DECLINED:
                return result
            declined = result
        if declined is not None:
            _approved_or_raise(answer, declined)
        return None

    def capture(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        answer = self._send(
            creds,
            "POST",
            "/payment/capture",
            body={
                "preAuthTransactionId": _id(reference),
                "amount": helcim_amount(amount),
                "ipAddress": PAYER_IP_UNKNOWN,
                "ecommerce": True,
            },
            key=helcim_key(idempotency_key),
        )
        return _approved_or_raise(answer, _transaction_result(answer, preauth=reference))

    def refund(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        """Refund the purchase, or the capture an authorization was completed by."""
        original = self._transaction(creds, reference)
        target = original
        if _type(original.body) == "preauth":
            captures = [t for t in self._related(creds, original.body) if _type(t) == "capture"]
            if not captures:
                raise GatewayError(
                    "Helcim has no capture of this authorization to refund", gateway=GATEWAY
                )
            target = _Answer(captures[0], original.status_code)
        answer = self._send(
            creds,
            "POST",
            "/payment/refund",
            body={
                "originalTransactionId": _id(_text(target.body, "transactionId")),
                "amount": helcim_amount(amount),
                "ipAddress": PAYER_IP_UNKNOWN,
                "ecommerce": True,
            },
            key=helcim_key(idempotency_key),
        )
        result = _approved_or_raise(answer, _transaction_result(answer, charge=reference))
        return attrs.evolve(result, status=GatewayStatus.REFUNDED)

    def void(
        self, creds: GatewayCredentials, reference: str, idempotency_key: str
    ) -> GatewayResult:
        """Reverse the authorization (Helcim reverses whole transactions in an open batch)."""
        answer = self._send(
            creds,
            "POST",
            "/payment/reverse",
            body={
                "cardTransactionId": _id(reference),
                "ipAddress": PAYER_IP_UNKNOWN,
                "ecommerce": True,
            },
            key=helcim_key(idempotency_key),
        )
        result = _approved_or_raise(answer, _transaction_result(answer, charge=reference))
        return attrs.evolve(result, status=GatewayStatus.VOIDED)

    def status(self, creds: GatewayCredentials, reference: str) -> GatewayResult:
        """The charge's state, folding in the captures, refunds and reverses on its invoice."""
        answer = self._transaction(creds, reference)
        txn = answer.body
        result = _transaction_result(answer)
        kind = _type(txn)
        if result.status is GatewayStatus.DECLINED or kind not in ("purchase", "preauth"):
            return result
        related = self._related(creds, txn)
        reversed_ = any(_type(t) == "reverse" for t in related)
        refunded = sum((_amount(t) for t in related if _type(t) == "refund"), Decimal(0))
        paid = _amount(txn)
        if kind == "preauth":
            captures = [t for t in related if _type(t) == "capture"]
            if not captures:
                status = GatewayStatus.VOIDED if reversed_ else GatewayStatus.AUTHORIZED
                return attrs.evolve(result, status=status)
            paid = _amount(captures[0])
        status = (
            GatewayStatus.REFUNDED
            if reversed_ or (refunded > 0 and refunded >= paid)
            else GatewayStatus.CAPTURED
        )
        return attrs.evolve(
            result,
            status=status,
            amount=_money(paid, result.amount.currency),
            support={**result.support, "refunded": str(refunded)} if refunded else result.support,
        )

    # --- the pay page's session (MakesPayPageCheckouts) ---------------------------------

    def pay_page_checkout(
        self, creds: GatewayCredentials, request: CheckoutRequest
    ) -> PayPageCheckout:
        """HelcimPay.js' checkout session: ``POST /helcim-pay/initialize`` in **verify** mode
        (amount 0), for the pay page and the approval page alike.

        Verify, not purchase: in purchase mode the modal itself charges the card, in the
        browser, outside payhub's reservation of the amount, its idempotency key and its
        decline handling, and payhub would have to trust (and hash-check with the secretToken)
        what the page reports. In verify mode the modal only verifies and vaults the card and
        hands back its ``cardToken``; payhub then purchases (or preauthorizes) exactly the
        amount its own checkout token binds, with the merchant's API token, as Helcim
        recommends ("verify and tokenize, then process through the Payment API"). The page
        sees only the ``checkoutToken``; the ``secretToken`` is not needed and is dropped.
        """
        body = {"paymentType": "verify", "amount": 0, "currency": request.currency}
        answer = self._send(creds, "POST", "/helcim-pay/initialize", body=body)
        token = answer.body.get("checkoutToken") if isinstance(answer.body, dict) else None
        if not isinstance(token, str) or not token:
            raise _unexpected()
        return PayPageCheckout(reference=token, public={"checkoutToken": token})

    def checkout_reference(self, payment_token: str) -> str | None:
        """The checkout session a page's ``"<checkoutToken>|<cardToken>"`` was verified in."""
        session, sep, _ = payment_token.partition("|")
        return session if sep and session else None

    def save_payment_method(
        self, creds: GatewayCredentials, request: SaveMethodRequest
    ) -> SavedMethod:
        """Adopt a HelcimPay.js card token: find the customer whose vault holds it."""
        if request.method_type is not MethodType.CARD:
            raise ValueError("Helcim saves cards only in payhub")
        token = card_token(request.token)
        found = self._send(
            creds, "GET", "/card-transactions", params={"cardToken": token}, secret=token
        )
        txns = [t for t in _list(found) if t.get("cardToken") == token]
        owner = next((t for t in txns if _opt_str(t.get("customerCode"))), None)
        if owner is None:
            raise PaymentMethodInvalid(
                "Helcim does not know this card token; collect the card again with HelcimPay.js",
                gateway=GATEWAY,
            )
        code = _text(owner, "customerCode")
        customers = self._send(creds, "GET", "/customers", params={"customerCode": code})
        customer = next((c for c in _list(customers) if c.get("customerCode") == code), None)
        if customer is None:
            raise _unexpected()
        cards = self._send(
            creds,
            "GET",
            f"/customers/{_path(str(customer.get('id')))}/cards",
            params={"cardToken": token},
            secret=token,
        )
        card = next((c for c in _list(cards) if c.get("cardToken") == token), None)
        if card is None:
            raise PaymentMethodInvalid(
                "the card is no longer in the Helcim customer's vault; collect it again",
                gateway=GATEWAY,
            )
        digits = _opt_str(card.get("cardF6L4")) or _opt_str(owner.get("cardNumber")) or ""
        month, year = _expiry(card.get("cardExpiry"))
        brand = _opt_str(owner.get("cardType"))
        return SavedMethod(
            gateway_customer_ref=code,
            method_ref=token,
            method_type=MethodType.CARD,
            brand=_BRANDS.get(brand.upper(), brand.lower()) if brand else None,
            last4=digits[-4:] if len(digits) >= 4 else None,
            exp_month=month,
            exp_year=year,
        )

    # --- reading -----------------------------------------------------------------------

    def _transaction(self, creds: GatewayCredentials, reference: str) -> _Answer:
        answer = self._send(creds, "GET", f"/card-transactions/{_id(reference)}")
        if not isinstance(answer.body, dict):
            raise _unexpected()
        return answer

    def _related(self, creds: GatewayCredentials, txn: Mapping[str, Any]) -> list[dict[str, Any]]:
        """Approved follow-ups (capture, refund, reverse) sharing the transaction's invoice."""
        number = _opt_str(txn.get("invoiceNumber"))
        if not number:
            return []
        answer = self._send(creds, "GET", "/card-transactions", params={"invoiceNumber": number})
        own = str(txn.get("transactionId"))
        return [
            t
            for t in _list(answer)
            if t.get("invoiceNumber") == number
            and str(t.get("transactionId")) != own
            and _type(t) in ("capture", "refund", "reverse")
            and str(t.get("status", "")).upper() in _APPROVED
        ]

    # --- transport -----------------------------------------------------------------------

    def _send(
        self,
        creds: GatewayCredentials,
        method: str,
        path: str,
        *,
        body: Mapping[str, Any] | None = None,
        key: str | None = None,
        params: Mapping[str, str] | None = None,
        secret: str | None = None,
    ) -> _Answer:
        """One call; ``secret`` (a card token) is blanked from anything Helcim echoes."""
        if not creds.api_secret.strip():
            raise GatewayCredentialsRejected("the Helcim API token is empty", gateway=GATEWAY)
        headers = {"api-token": creds.api_secret, "accept": "application/json"}
        kwargs: dict[str, Any] = {"headers": headers}
        if key is not None:
            headers["idempotency-key"] = key
        if body is not None:
            headers["content-type"] = "application/json"
            kwargs["content"] = json_body(body)
        if params:
            kwargs["params"] = dict(params)
        hide = (creds.api_secret, secret)

        def server_error(response: httpx.Response) -> Exception | None:
            # Helcim answers some declines with a 500 "Transaction Declined: ..."
            text = _errors_text(json_value(response.content))
            return _declined(text, hide) if text and "DECLINED" in text.upper() else None

        response = self.http.send(
            method,
            BASE_URL + path,
            credentials_errors=False,
            server_error=server_error,
            **kwargs,
        )
        parsed = json_value(response.content)
        code = response.status_code
        if code in (401, 403):
            raise credentials_rejected(
                GATEWAY, what="API token", gateway_message=redact(_errors_text(parsed), hide)
            )
        if code == 429:
            raise GatewayUnavailable(
                "Helcim asked us to slow down; try again shortly",
                gateway=GATEWAY,
                gateway_message=redact(_errors_text(parsed), hide),
            )
        if code >= 400 or (
            isinstance(parsed, dict) and parsed.get("errors") and "transactionId" not in parsed
        ):
            raise _error_from(code, parsed, hide)
        if parsed is None:
            raise _unexpected()
        return _Answer(parsed, code)


# --- amounts, keys, invoice numbers ----------------------------------------------------------


def card_token(token: str) -> str:
    """The card token of a page's ``"<checkoutToken>|<cardToken>"`` (or a bare card token)."""
    return token.rpartition("|")[2]


def helcim_amount(money: Money) -> Decimal:
    """The decimal amount Helcim takes (dollars and cents, never more precision)."""
    exponent = minor_unit_exponent(money.currency)
    if money.amount != money.amount.quantize(Decimal(1).scaleb(-exponent)):
        raise ValidationError.for_field("amount", f"more precision than {money.currency} has")
    return money.amount


def _digest(seed: str) -> str:
    return base64.b32encode(hashlib.sha256(seed.encode()).digest()).decode().rstrip("=")


def helcim_key(key: str, step: str | None = None) -> str:
    """payhub's key as Helcim's 25 alphanumeric characters: stable per key and step."""
    return _digest(f"payhub:{key}:{step}" if step else f"payhub:{key}")[:KEY_LENGTH]


def invoice_number(key: str) -> str:
    """The invoice number a charge under ``key`` is filed under; ``lookup`` searches it."""
    return "PH" + _digest(f"payhub-invoice:{key}")[:18]


def _id(reference: str) -> int:
    """Helcim transaction ids are integers; anything else was never Helcim's."""
    if not reference.isdigit():
        raise GatewayError("Helcim has no transaction with that reference", gateway=GATEWAY)
    return int(reference)


# --- answers ---------------------------------------------------------------------------------


def _transaction_result(answer: _Answer, **support: str | None) -> GatewayResult:
    txn = answer.body
    if not isinstance(txn, dict):
        raise _unexpected()
    status = str(txn.get("status", "")).upper()
    kind = _type(txn)
    currency = _opt_str(txn.get("currency")) or "USD"
    decline_code = message = None
    if status in _APPROVED:
        mapped = {
            "preauth": GatewayStatus.AUTHORIZED,
            "refund": GatewayStatus.REFUNDED,
            "reverse": GatewayStatus.VOIDED,
            "verify": GatewayStatus.AUTHORIZED,
        }.get(kind, GatewayStatus.CAPTURED)
    elif status == "DECLINED":
        mapped = GatewayStatus.DECLINED
        message = redact(_errors_text(txn.get("errors")), ())
        decline_code = normalise_decline(message)
    else:
        raise _unexpected()
    return GatewayResult(
        reference=_text(txn, "transactionId"),
        status=mapped,
        amount=_money(_amount(txn), currency),
        decline_code=decline_code,
        message=message,
        support=answer.support(
            helcim_status=status,
            helcim_type=kind or None,
            approval_code=_opt_str(txn.get("approvalCode")),
            card_batch=_opt_text(txn.get("cardBatchId")),
            **support,
        ),
    )


def _approved_or_raise(answer: _Answer, result: GatewayResult) -> GatewayResult:
    if result.status is GatewayStatus.DECLINED:
        raise Declined(
            f"Helcim declined the payment ({result.decline_code})",
            gateway=GATEWAY,
            decline_code=result.decline_code,
            gateway_message=result.message,
        )
    return result


def normalise_decline(text: str | None) -> str:
    """Helcim's decline text ("Transaction Declined: EXPIRED CARD - …") as a payhub code."""
    return declines.decline_code(text=text)


def _declined(text: str, hide: Sequence[str | None]) -> Declined:
    code = normalise_decline(text)
    return Declined(
        f"Helcim declined the payment ({code})",
        gateway=GATEWAY,
        decline_code=code,
        gateway_message=redact(text, hide),
    )


def _error_from(code: int, body: Any, hide: Sequence[str | None]) -> GatewayError:
    """Map Helcim's ``errors`` (a list, a field map or a string) to payhub's failures."""
    text = _errors_text(body.get("errors") if isinstance(body, dict) else body) or ""
    upper = text.upper()
    common: dict[str, Any] = {"gateway": GATEWAY, "gateway_message": redact(text, hide)}
    if "DECLINED" in upper:
        return _declined(text, hide)
    if code == 409 or "IDEMPOTENCY" in upper:
        return GatewayError(
            "Helcim refused the idempotency key: it was used for a different request", **common
        )
    if "TOKEN" in upper and "API" not in upper:
        return PaymentMethodInvalid(
            "Helcim cannot use this card token (unknown or not this customer's); collect the"
            " card again",
            **common,
        )
    if code == 404 or "NOT FOUND" in upper:
        return GatewayError("Helcim has no object with that reference", **common)
    return GatewayError(f"Helcim refused the request (HTTP {code})", **common)


def _errors_text(errors: Any) -> str | None:
    """Helcim's ``errors`` flattened to one line, whatever shape it came in."""
    if isinstance(errors, dict) and "errors" in errors:
        errors = errors["errors"]
    if isinstance(errors, str):
        return errors
    if isinstance(errors, list):
        return "; ".join(str(e) for e in errors if isinstance(e, str | int)) or None
    if isinstance(errors, dict):
        return "; ".join(f"{k}: {v}" for k, v in errors.items() if isinstance(v, str)) or None
    return None


def _unexpected() -> GatewayError:
    return _kit_unexpected(GATEWAY)


def _list(answer: _Answer) -> list[dict[str, Any]]:
    if not isinstance(answer.body, list):
        raise _unexpected()
    return [item for item in answer.body if isinstance(item, dict)]


def _type(txn: Mapping[str, Any]) -> str:
    value = txn.get("type")
    return value.lower().replace("-", "") if isinstance(value, str) else ""


def _amount(txn: Mapping[str, Any]) -> Decimal:
    value = txn.get("amount")
    if isinstance(value, Decimal | int) and not isinstance(value, bool):
        return Decimal(value)
    if isinstance(value, str):
        try:
            return Decimal(value)
        except ArithmeticError:
            pass
    raise _unexpected()


def _money(value: Decimal, currency: str) -> Money:
    try:
        return Money.of(value, currency)
    except ValidationError:
        raise _unexpected() from None


def _text(obj: Mapping[str, Any], key: str) -> str:
    value = _opt_text(obj.get(key))
    if value is None:
        raise _unexpected()
    return value


def _opt_text(value: object) -> str | None:
    """Ids arrive as numbers; payhub keeps them as text."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, Decimal) and value == value.to_integral_value():
        return str(int(value))
    return value if isinstance(value, str) and value else None


def _opt_str(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _expiry(value: object) -> tuple[int | None, int | None]:
    """``cardExpiry`` is MMYY."""
    if isinstance(value, str) and len(value) == 4 and value.isdigit():
        month, year = int(value[:2]), 2000 + int(value[2:])
        if 1 <= month <= 12:
            return month, year
    return None, None
