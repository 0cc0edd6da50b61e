"""Authorize.Net behind payhub's ``Gateway`` port, speaking the JSON flavour of its API.

What a reader must know, and why the code looks the way it does:

- One endpoint for every call: ``POST https://apitest.authorize.net/xml/v1/request.api``
  (sandbox) or ``https://api.authorize.net/xml/v1/request.api`` (live). The body's root key
  names the call and the merchant authenticates inside it (``merchantAuthentication``: the
  API Login ID from ``creds.fields["apiLoginId"]`` and the Transaction Key,
  ``creds.api_secret``). Every answer is HTTP 200; the outcome is in ``messages.resultCode``
  (Ok/Error, codes like E00007) and, for payments, ``transactionResponse.responseCode``
  (1 approved, 2 declined, 3 error, 4 held for review) with ``errors[].errorCode``.
- The JSON API mirrors the XML schema, so element order matters: every dict below is
  built in the order of ``AnetApiSchema.xsd``. Answers start with a UTF-8 byte-order mark.
- Tokens come from Accept.js as ``opaqueData`` (cards and bank accounts alike). A payhub
  token is the ``dataValue``; ``"DESCRIPTOR;dataValue"`` selects another descriptor (for
  example ``COMMON.APPLE.INAPP.PAYMENT;…``), the default being
  ``COMMON.ACCEPT.INAPP.PAYMENT``.
- No idempotency key exists, only a duplicate window: a request matching an earlier one
  (card or profile, amount, type, invoice number, …) within ``duplicateWindow`` seconds is
  refused with reason 11 and, because the window was sent, the original transaction's id.
  Charges and refunds send ``order.invoiceNumber`` = a 20-character SHA-256 digest of
  payhub's idempotency key and ``duplicateWindow`` = 28800 s (the maximum): a retry with
  the same key is answered with the original transaction, different keys never collide.
  ``refId`` carries the key's first 20 characters (echoed back, for support).
  ``lookup`` finds a charge whose answer was lost by that invoice number.
- Vault (CIM): a customer profile (``merchantCustomerId`` = the payhub customer id, first
  20 characters) holds payment profiles. A saved method's ref is
  ``"<customerProfileId>/<customerPaymentProfileId>"``; a bare payment profile id works
  too when ``gateway_customer_ref`` is given.
- Refunds need the last four digits of the card or account: they are read with
  ``getTransactionDetailsRequest`` (the merchant must enable the Transaction Details API).
  Only settled transactions can be refunded, so a full refund of an unsettled one voids it.
- Amounts are decimal strings at the currency's precision ("10.05", JPY "1000"). Answers
  carry no currency: ``status`` reports amounts in ``creds.fields["currency"]`` (USD).

Public reference used:
https://developer.authorize.net/api/reference/index.html (endpoints, authentication,
createTransactionRequest, getTransactionDetailsRequest, getUnsettledTransactionListRequest,
createCustomerProfileRequest, createCustomerPaymentProfileRequest,
getCustomerPaymentProfileRequest, JSON samples),
https://api.authorize.net/xml/v1/schema/AnetApiSchema.xsd (element order and lengths),
https://developer.authorize.net/api/reference/features/acceptjs.html (opaqueData),
https://developer.authorize.net/api/reference/responseCodes.html (response and reason codes),
http://developer.authorize.net/guides/SIM/Transaction_Response/Response_for_Duplicate_Transactions.htm
and https://support.authorize.net/s/article/Error-11-A-duplicate-transaction-has-been-submitted
(duplicate window), https://community.developer.authorize.net/t5/Integration-and-Testing/Refund-transaction-error-code-quot-6-quot-and-error-message-quot/td-p/54306
(refunds: transaction id plus last four digits, from getTransactionDetails).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from decimal import Decimal, InvalidOperation
from typing import Any

import attrs
import httpx

from payhub.adapters.gateways.kit.answers import json_object
from payhub.adapters.gateways.kit.http import GatewayHttp
from payhub.adapters.gateways.kit.redaction import redact
from payhub.domain.money import Money, round_half_up
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
    PaymentSource,
    SavedMethod,
    SaveMethodRequest,
)

SANDBOX_URL = "https://apitest.authorize.net/xml/v1/request.api"
LIVE_URL = "https://api.authorize.net/xml/v1/request.api"
ACCEPT_DESCRIPTOR = "COMMON.ACCEPT.INAPP.PAYMENT"
DUPLICATE_WINDOW_SECONDS = 28800  # the largest window Authorize.Net accepts (8 hours)
DEFAULT_CURRENCY = "USD"

_AUTH_FAILED = frozenset({"E00005", "E00006", "E00007", "E00008", "13"})
_TOKEN_INVALID = frozenset({"E00114", "153"})  # Invalid OTS Token; error processing payment data
_RECORD_NOT_FOUND = "E00040"
_DUPLICATE_RECORD = "E00039"
_DUPLICATE_TRANSACTION = "11"
_NO_SUCH_TRANSACTION = "16"
_ALREADY_VOIDED, _ALREADY_CAPTURED = "310", "311"

# Response reason codes (responseCodes.html) -> payhub's normalised decline codes.
_DECLINE_CODES: dict[str, str] = {
    **dict.fromkeys(("2", "3", "6", "27", "37", "127", "315"), "generic_decline"),
    **dict.fromkeys(("4", "250", "251", "254"), "fraudulent"),
    **dict.fromkeys(("7", "8", "316", "317"), "expired_card"),
    **dict.fromkeys(("44", "45", "65", "78"), "incorrect_cvc"),
    **dict.fromkeys(
        ("19", "20", "21", "22", "23", "25", "26", "35", "57", "58", "59", "60", "61", "62"),
        "processing_error",
    ),
    **dict.fromkeys(("63", "120", "121", "122"), "processing_error"),
}

# transactionStatus of getTransactionDetails -> GatewayStatus; anything else is PENDING.
_STATUSES: dict[str, GatewayStatus] = {
    "authorizedPendingCapture": GatewayStatus.AUTHORIZED,
    "capturedPendingSettlement": GatewayStatus.CAPTURED,
    # the nightly batch is running on a captured transaction (transactionStatusEnum)
    "pendingSettlement": GatewayStatus.CAPTURED,
    "pendingFinalSettlement": GatewayStatus.CAPTURED,
    "updatingSettlement": GatewayStatus.CAPTURED,
    "settledSuccessfully": GatewayStatus.CAPTURED,
    "refundPendingSettlement": GatewayStatus.REFUNDED,
    "refundSettledSuccessfully": GatewayStatus.REFUNDED,
    "voided": GatewayStatus.VOIDED,
    "expired": GatewayStatus.VOIDED,  # an authorization left uncaptured for 30 days
    **dict.fromkeys(
        (
            "declined",
            "generalError",
            "communicationError",
            "failedReview",
            "settlementError",
            "returnedItem",
        ),
        GatewayStatus.DECLINED,
    ),
}

# Captured but not yet settled: an eCheck debit in these states is submitted, not captured.
_SETTLING = frozenset(
    {
        "capturedPendingSettlement",
        "pendingSettlement",
        "pendingFinalSettlement",
        "updatingSettlement",
    }
)

_BRANDS = {
    "Visa": "visa",
    "MasterCard": "mastercard",
    "AmericanExpress": "amex",
    "Discover": "discover",
    "JCB": "jcb",
    "DinersClub": "diners",
}


@attrs.frozen
class _Answer:
    """One parsed answer: its body, whether ``resultCode`` was Ok, and its messages."""

    body: dict[str, Any]
    ok: bool
    messages: tuple[tuple[str, str], ...]  # (code, text), texts already scrubbed

    @property
    def codes(self) -> set[str]:
        return {code for code, _ in self.messages}

    @property
    def text(self) -> str | None:
        return self.messages[0][1] if self.messages else None


@attrs.frozen
class _Tx:
    """The ``transactionResponse`` of a createTransactionRequest, reduced to what we use."""

    code: str  # responseCode
    trans_id: str
    errors: tuple[tuple[str, str], ...]
    notes: tuple[tuple[str, str], ...]  # transactionResponse.messages
    support: dict[str, str]

    @property
    def reasons(self) -> list[str]:
        return [code for code, _ in self.errors or self.notes]

    @property
    def text(self) -> str | None:
        found = self.errors or self.notes
        return found[0][1] if found else None

    @property
    def duplicate_of(self) -> str | None:
        """The original transaction when this answer refuses a duplicate of it."""
        if _DUPLICATE_TRANSACTION in self.reasons and self.trans_id not in ("", "0"):
            return self.trans_id
        return None


class AuthorizeNetGateway:
    """Authorize.Net through its JSON API; see the module docstring for the conventions."""

    name = "authorize-net"

    def __init__(self, client: httpx.Client | None = None) -> None:
        self._http = GatewayHttp(self.name, client)

    # --- the Gateway port --------------------------------------------------------------

    def charge(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult:
        source = request.source
        bank = _is_bank(source.method_type)
        if bank and not request.capture:
            raise ValueError("Authorize.Net eCheck debits cannot be authorized only")
        transaction: dict[str, Any] = {
            "transactionType": "authCaptureTransaction"
            if request.capture
            else "authOnlyTransaction",
            "amount": _amount(request.amount),
            "currencyCode": request.amount.currency,
        }
        secrets: tuple[str, ...] = ()
        if source.token is not None:
            opaque = _opaque_data(source.token)
            transaction["payment"] = {"opaqueData": opaque}
            secrets = (source.token, opaque["dataValue"])
        else:
            customer, method = _saved_method(source)
            transaction["profile"] = {
                "customerProfileId": customer,
                "paymentProfile": {"paymentProfileId": method},
            }
        transaction.update(_duplicate_check(request.idempotency_key, request.description))
        tx = self._transact(creds, request.idempotency_key, transaction, secrets, charge=True)
        if tx.code in ("2", "3"):
            if tx.duplicate_of:
                return self._replay(creds, tx.duplicate_of, request.amount.currency)
            raise self._refusal(tx)
        if tx.code == "4":
            status = GatewayStatus.PENDING
        elif not request.capture:
            status = GatewayStatus.AUTHORIZED
        else:
            status = GatewayStatus.SUBMITTED if bank else GatewayStatus.CAPTURED
        return GatewayResult(tx.trans_id, status, request.amount, None, tx.text, tx.support)

    def capture(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        transaction = {
            "transactionType": "priorAuthCaptureTransaction",
            "amount": _amount(amount),
            "refTransId": reference,
        }
        tx = self._transact(creds, idempotency_key, transaction, (), charge=False)
        if _ALREADY_CAPTURED in tx.reasons:  # a retried capture: report what was captured
            return self._result_of(self._details(creds, reference), amount.currency)
        if tx.code in ("2", "3"):
            raise self._refusal(tx)
        captured = tx.trans_id if tx.trans_id not in ("", "0") else reference
        return GatewayResult(captured, GatewayStatus.CAPTURED, amount, None, tx.text, tx.support)

    def refund(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        details = self._details(creds, reference)
        settled = _decimal(details.get("settleAmount"))
        if details.get("transactionStatus") == "capturedPendingSettlement" and (
            amount.amount == settled
        ):
            # Authorize.Net credits only settled transactions; before settlement the
            # whole amount can still be voided, which returns the money just the same.
            voided = self._void(creds, reference, idempotency_key, amount)
            return attrs.evolve(
                voided,
                status=GatewayStatus.REFUNDED,
                support={**voided.support, "refunded_by": "void"},
            )
        transaction: dict[str, Any] = {
            "transactionType": "refundTransaction",
            "amount": _amount(amount),
            "payment": _refund_payment(details, reference),
            "refTransId": reference,
            **_duplicate_check(idempotency_key, None),
        }
        tx = self._transact(creds, idempotency_key, transaction, (), charge=False)
        if tx.code in ("2", "3"):
            if tx.duplicate_of:
                return self._replay(creds, tx.duplicate_of, amount.currency)
            raise self._refusal(tx)
        return GatewayResult(tx.trans_id, GatewayStatus.REFUNDED, amount, None, tx.text, tx.support)

    def void(
        self, creds: GatewayCredentials, reference: str, idempotency_key: str
    ) -> GatewayResult:
        return self._void(creds, reference, idempotency_key, Money.zero(_currency(creds)))

    def status(self, creds: GatewayCredentials, reference: str) -> GatewayResult:
        return self._result_of(self._details(creds, reference), _currency(creds))

    def lookup(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult | None:
        """Find a charge whose answer was lost (a timeout), by its idempotency key's invoice."""
        if not request.idempotency_key:
            return None
        answer = self._call(
            creds,
            "getUnsettledTransactionListRequest",
            {
                "sorting": {"orderBy": "submitTimeUTC", "orderDescending": "true"},
                "paging": {"limit": "1000", "offset": "1"},
            },
        )
        if not answer.ok:
            raise self._failure(answer, "could not list recent transactions")
        invoice = _invoice_number(request.idempotency_key)
        for item in _items(answer.body.get("transactions"), "transaction"):
            if isinstance(item, dict) and item.get("invoiceNumber") == invoice:
                found = self._details(creds, str(item.get("transId", "")))
                return self._result_of(found, request.amount.currency)
        return None

    def save_payment_method(
        self, creds: GatewayCredentials, request: SaveMethodRequest
    ) -> SavedMethod:
        bank = _is_bank(request.method_type)
        opaque = _opaque_data(request.token)
        secrets = (request.token, opaque["dataValue"])
        customer = request.gateway_customer_ref or self._create_customer(creds, request)
        profile: dict[str, Any] = {"customerType": "individual"}
        first, _, last = (request.name or "").strip().partition(" ")
        if first:
            profile["billTo"] = {"firstName": first[:50]}
            if last.strip():
                profile["billTo"]["lastName"] = last.strip()[:50]
        profile["payment"] = {"opaqueData": opaque}
        # liveMode runs a real zero-dollar authorization; the sandbox only checks fields.
        mode = "testMode" if creds.sandbox or bank else "liveMode"
        answer = self._call(
            creds,
            "createCustomerPaymentProfileRequest",
            {"customerProfileId": customer, "paymentProfile": profile, "validationMode": mode},
            secrets,
        )
        method_id = str(answer.body.get("customerPaymentProfileId") or "")
        if not answer.ok and not (_DUPLICATE_RECORD in answer.codes and method_id):
            if answer.codes & _TOKEN_INVALID:
                raise _token_invalid()
            if "E00027" in answer.codes:
                raise _validation_declined(answer, (*secrets, creds.api_secret))
            raise self._failure(answer, "could not save the payment method")
        return self._saved(creds, customer, method_id, request.method_type)

    # --- the calls ---------------------------------------------------------------------

    def _call(
        self,
        creds: GatewayCredentials,
        root: str,
        body: dict[str, Any],
        secrets: Iterable[str] = (),
    ) -> _Answer:
        """Send one API call and parse its answer; body-level auth failures raise here."""
        login = creds.fields.get("apiLoginId", "").strip()
        if not login or not creds.api_secret:
            raise GatewayCredentialsRejected(
                "the Authorize.Net credentials need an apiLoginId and a transaction key",
                gateway=self.name,
            )
        auth = {"name": login, "transactionKey": creds.api_secret}
        payload = {root: {"merchantAuthentication": auth, **body}}
        response = self._http.send("POST", SANDBOX_URL if creds.sandbox else LIVE_URL, json=payload)
        if response.status_code != httpx.codes.OK:
            raise GatewayError(
                f"{self.name} answered HTTP {response.status_code}", gateway=self.name
            )
        # Authorize.Net starts its JSON with a UTF-8 byte order mark; the kit reads it.
        parsed = json_object(response.content, self.name)
        hidden = (creds.api_secret, *secrets)
        head = parsed.get("messages")
        head = head if isinstance(head, dict) else {}
        messages = tuple(
            (str(m.get("code", "")), _redact(str(m.get("text", "")), hidden))
            for m in _items(head.get("message"), "message")
            if isinstance(m, dict)
        )
        answer = _Answer(parsed, head.get("resultCode") == "Ok", messages)
        if not answer.ok and answer.codes & _AUTH_FAILED:
            raise self._credentials_rejected()
        return answer

    def _transact(
        self,
        creds: GatewayCredentials,
        key: str,
        transaction: dict[str, Any],
        secrets: tuple[str, ...],
        *,
        charge: bool,
    ) -> _Tx:
        """A createTransactionRequest; raises for everything but an approve/decline/hold."""
        body: dict[str, Any] = {"refId": key[:20]} if key else {}
        body["transactionRequest"] = transaction
        answer = self._call(creds, "createTransactionRequest", body, secrets)
        tx = _transaction_response(answer, (creds.api_secret, *secrets))
        codes = answer.codes | set(tx.reasons if tx else ())
        if codes & _AUTH_FAILED:
            raise self._credentials_rejected()
        if codes & _TOKEN_INVALID:
            raise _token_invalid()
        if tx is None or tx.code not in ("1", "2", "3", "4"):
            if charge and _RECORD_NOT_FOUND in codes:
                raise PaymentMethodInvalid(
                    "Authorize.Net does not know this saved payment method; save it again",
                    gateway=self.name,
                )
            raise self._failure(answer, "refused the transaction request")
        return tx

    def _void(
        self, creds: GatewayCredentials, reference: str, key: str, amount: Money
    ) -> GatewayResult:
        transaction = {"transactionType": "voidTransaction", "refTransId": reference}
        tx = self._transact(creds, key, transaction, (), charge=False)
        already = _ALREADY_VOIDED in tx.reasons  # a retried void
        if tx.code in ("2", "3") and not already:
            raise self._refusal(tx)
        support = tx.support | ({"already_voided": "true"} if already else {})
        voided = tx.trans_id if tx.trans_id not in ("", "0") else reference
        return GatewayResult(voided, GatewayStatus.VOIDED, amount, None, tx.text, support)

    def _details(self, creds: GatewayCredentials, reference: str) -> dict[str, Any]:
        answer = self._call(creds, "getTransactionDetailsRequest", {"transId": reference})
        found = answer.body.get("transaction")
        if answer.ok and isinstance(found, dict):
            return found
        if _RECORD_NOT_FOUND in answer.codes:
            raise GatewayError(f"{self.name} has no transaction {reference}", gateway=self.name)
        if "E00011" in answer.codes:
            raise GatewayError(
                f"{self.name} refused the transaction lookup: enable the Transaction Details"
                " API in the Authorize.Net merchant interface (Account > Settings)",
                gateway=self.name,
                gateway_message=answer.text,
            )
        raise self._failure(answer, "could not read the transaction")

    def _replay(self, creds: GatewayCredentials, original: str, currency: str) -> GatewayResult:
        """A retry refused as a duplicate: answer with the original transaction's outcome."""
        result = self._result_of(self._details(creds, original), currency)
        if result.status is GatewayStatus.DECLINED:
            raise Declined(
                f"{self.name} declined the payment ({result.decline_code})",
                gateway=self.name,
                decline_code=result.decline_code,
                gateway_message=result.message,
                gateway_request_id=original,
            )
        return attrs.evolve(result, support={**result.support, "duplicate_of": original})

    def _create_customer(self, creds: GatewayCredentials, request: SaveMethodRequest) -> str:
        profile = {"merchantCustomerId": request.customer_id[:20]}
        if request.name:
            profile["description"] = request.name[:255]
        if request.email:
            profile["email"] = request.email[:255]
        answer = self._call(creds, "createCustomerProfileRequest", {"profile": profile})
        created = str(answer.body.get("customerProfileId") or "")
        if answer.ok and created:
            return created
        if _DUPLICATE_RECORD in answer.codes:  # a retry: the profile exists, reuse it
            existing = re.search(r"ID (\d+)", answer.text or "")
            if existing:
                return existing.group(1)
        raise self._failure(answer, "could not create the customer profile")

    def _saved(
        self, creds: GatewayCredentials, customer: str, method_id: str, method_type: MethodType
    ) -> SavedMethod:
        answer = self._call(
            creds,
            "getCustomerPaymentProfileRequest",
            {
                "customerProfileId": customer,
                "customerPaymentProfileId": method_id,
                "unmaskExpirationDate": "true",
            },
        )
        profile = answer.body.get("paymentProfile")
        if not answer.ok or not isinstance(profile, dict):
            raise self._failure(answer, "could not read the saved payment method")
        payment = profile.get("payment")
        payment = payment if isinstance(payment, dict) else {}
        card, account = payment.get("creditCard"), payment.get("bankAccount")
        saved = SavedMethod(customer, f"{customer}/{method_id}", method_type)
        if method_type is MethodType.CARD and isinstance(card, dict):
            month, year = _expiry(str(card.get("expirationDate", "")))
            return attrs.evolve(
                saved,
                brand=_BRANDS.get(str(card.get("cardType", ""))),
                last4=_last4(card.get("cardNumber")),
                exp_month=month,
                exp_year=year,
            )
        if method_type is MethodType.BANK_ACCOUNT and isinstance(account, dict):
            bank_name = str(account.get("bankName") or "") or None
            return attrs.evolve(
                saved, last4=_last4(account.get("accountNumber")), bank_name=bank_name
            )
        raise PaymentMethodInvalid(
            f"the token is not a {method_type.value} payment method", gateway=self.name
        )

    # --- results and failures ----------------------------------------------------------

    def _result_of(self, details: dict[str, Any], currency: str) -> GatewayResult:
        name = str(details.get("transactionStatus", ""))
        status = _STATUSES.get(name, GatewayStatus.PENDING)
        payment = details.get("payment")
        if name in _SETTLING and isinstance(payment, dict) and "bankAccount" in payment:
            status = GatewayStatus.SUBMITTED  # the eCheck debit is sent, not yet settled
        settled, authorized = (
            _decimal(details.get("settleAmount")),
            _decimal(details.get("authAmount")),
        )
        moved = status in (GatewayStatus.CAPTURED, GatewayStatus.SUBMITTED, GatewayStatus.REFUNDED)
        value = (settled or authorized) if moved else (authorized or settled)
        reason = str(details.get("responseReasonCode", ""))
        response_code = str(details.get("responseCode", ""))
        declined = status is GatewayStatus.DECLINED
        support = {
            "transaction_status": name,
            "response_code": response_code,
            "response_reason_code": reason,
        }
        return GatewayResult(
            reference=str(details.get("transId", "")),
            status=status,
            amount=_money(value, currency),
            decline_code=_decline_code([reason], response_code) if declined else None,
            message=str(details.get("responseReasonDescription") or "") or None,
            support={k: v for k, v in support.items() if v},
        )

    def _refusal(self, tx: _Tx) -> GatewayError:
        """The error for a declined or errored transaction answer."""
        if _NO_SUCH_TRANSACTION in tx.reasons:
            return GatewayError(
                f"{self.name} cannot find the referenced transaction",
                gateway=self.name,
                gateway_message=tx.text,
            )
        code = _decline_code(tx.reasons, tx.code)
        reason = tx.reasons[0] if tx.reasons else "?"
        return Declined(
            f"{self.name} declined the request ({code}, reason code {reason})",
            gateway=self.name,
            decline_code=code,
            gateway_message=tx.text,
            gateway_request_id=tx.trans_id if tx.trans_id not in ("", "0") else None,
        )

    def _failure(self, answer: _Answer, what: str) -> GatewayError:
        codes = ", ".join(sorted(answer.codes)) or "no code"
        return GatewayError(
            f"{self.name} {what} ({codes})", gateway=self.name, gateway_message=answer.text
        )

    def _credentials_rejected(self) -> GatewayCredentialsRejected:
        return GatewayCredentialsRejected(
            f"{self.name} rejected the merchant's credentials; update them with"
            " PUT /api/merchant-accounts/{ref}/credentials/" + self.name,
            gateway=self.name,
        )


# --- helpers -------------------------------------------------------------------------------


def _is_bank(method_type: MethodType) -> bool:
    if method_type is MethodType.CARD:
        return False
    if method_type is MethodType.BANK_ACCOUNT:
        return True
    raise ValueError(f"Authorize.Net cannot take a {method_type} payment method")


def _amount(money: Money) -> str:
    """The exact decimal string at the currency's precision ("10.05", JPY "1000")."""
    return format(money.amount, "f")


def _currency(creds: GatewayCredentials) -> str:
    return creds.fields.get("currency", DEFAULT_CURRENCY).strip().upper() or DEFAULT_CURRENCY


def _decimal(value: object) -> Decimal:
    try:
        return Decimal(str(value)) if value not in (None, "") else Decimal(0)
    except InvalidOperation:
        return Decimal(0)


def _money(value: Decimal, currency: str) -> Money:
    return Money.of(round_half_up(value, currency), currency)


def _invoice_number(key: str) -> str:
    """A 20-character digest of the idempotency key: the invoice number the duplicate
    check compares, so a retry matches and two different keys never do."""
    return hashlib.sha256(key.encode()).hexdigest()[:20]


def _duplicate_check(key: str, description: str | None) -> dict[str, Any]:
    """``order`` and ``transactionSettings`` that make a retry with ``key`` a duplicate."""
    fields: dict[str, Any] = {}
    order = {"invoiceNumber": _invoice_number(key)} if key else {}
    if description:
        order["description"] = description[:255]
    if order:
        fields["order"] = order
    if key:  # without a key, the default two-minute window applies
        setting = {"settingName": "duplicateWindow", "settingValue": str(DUPLICATE_WINDOW_SECONDS)}
        fields["transactionSettings"] = {"setting": setting}
    return fields


def _opaque_data(token: str) -> dict[str, str]:
    descriptor, sep, value = token.partition(";")
    if not (sep and descriptor.startswith("COMMON.")):
        descriptor, value = ACCEPT_DESCRIPTOR, token
    if not value.strip():
        raise _token_invalid()
    return {"dataDescriptor": descriptor, "dataValue": value}


def _saved_method(source: PaymentSource) -> tuple[str, str]:
    ref = source.saved_method_ref or ""
    customer, sep, method = ref.partition("/")
    if not sep:
        customer, method = source.gateway_customer_ref or "", ref
    elif source.gateway_customer_ref and source.gateway_customer_ref != customer:
        raise PaymentMethodInvalid(
            "the saved payment method belongs to another Authorize.Net customer",
            gateway=AuthorizeNetGateway.name,
        )
    if not (customer.isdigit() and method.isdigit()):
        raise PaymentMethodInvalid(
            "not an Authorize.Net saved payment method reference", gateway=AuthorizeNetGateway.name
        )
    return customer, method


def _refund_payment(details: dict[str, Any], reference: str) -> dict[str, Any]:
    """The masked card or account a refund must name (last four digits, as documented)."""
    payment = details.get("payment")
    payment = payment if isinstance(payment, dict) else {}
    card, account = payment.get("creditCard"), payment.get("bankAccount")
    if isinstance(card, dict) and _last4(card.get("cardNumber")):
        return {
            "creditCard": {"cardNumber": _last4(card.get("cardNumber")), "expirationDate": "XXXX"}
        }
    if isinstance(account, dict) and _last4(account.get("accountNumber")):
        masked: dict[str, Any] = {}
        if account.get("accountType"):
            masked["accountType"] = str(account["accountType"])
        masked["routingNumber"] = "XXXX" + (_last4(account.get("routingNumber")) or "")
        masked["accountNumber"] = "XXXX" + (_last4(account.get("accountNumber")) or "")
        masked["nameOnAccount"] = str(account.get("nameOnAccount") or "")[:22]
        return {"bankAccount": masked}
    raise GatewayError(
        f"Authorize.Net transaction {reference} shows no card or bank account to refund to",
        gateway=AuthorizeNetGateway.name,
    )


def _last4(value: object) -> str | None:
    digits = "".join(ch for ch in str(value or "") if ch.isdigit())
    return digits[-4:] if len(digits) >= 4 else None


def _expiry(value: str) -> tuple[int | None, int | None]:
    """``2032-12`` (CIM with unmaskExpirationDate) -> (12, 2032); ``XXXX`` -> unknown."""
    match = re.fullmatch(r"(\d{4})-(\d{2})", value.strip())
    return (int(match.group(2)), int(match.group(1))) if match else (None, None)


def _decline_code(reasons: list[str], response_code: str) -> str:
    for reason in reasons:
        if reason in _DECLINE_CODES:
            return _DECLINE_CODES[reason]
    return "processing_error" if response_code == "3" else "generic_decline"


def _items(value: object, child: str) -> list[Any]:
    """A repeated element as a list: JSON answers give a list, a lone object, or a wrapper."""
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        inner = value.get(child)
        if isinstance(inner, list):
            return inner
        return [inner] if isinstance(inner, dict) else [value]
    return []


def _redact(text: str, hidden: Iterable[str]) -> str:
    """Gateway texts can echo request values (schema errors do): the kit's one policy."""
    return redact(text, hidden) or ""


def _transaction_response(answer: _Answer, hidden: tuple[str, ...]) -> _Tx | None:
    found = answer.body.get("transactionResponse")
    if not isinstance(found, dict) or not found.get("responseCode"):
        return None

    def pairs(value: object, child: str, code: str, text: str) -> tuple[tuple[str, str], ...]:
        return tuple(
            (str(item.get(code, "")), _redact(str(item.get(text, "")), hidden))
            for item in _items(value, child)
            if isinstance(item, dict)
        )

    code = str(found["responseCode"])
    auth_code = str(found.get("authCode") or "")
    support = {
        "response_code": code,
        "auth_code": auth_code if auth_code.strip("0") else "",  # declines carry "000000"
        "avs_result": str(found.get("avsResultCode") or ""),
        "cvv_result": str(found.get("cvvResultCode") or ""),
        "ref_id": str(answer.body.get("refId") or ""),
    }
    return _Tx(
        code=code,
        trans_id=str(found.get("transId") or ""),
        errors=pairs(found.get("errors"), "error", "errorCode", "errorText"),
        notes=pairs(found.get("messages"), "message", "code", "description"),
        support={k: v for k, v in support.items() if v},
    )


def _token_invalid() -> PaymentMethodInvalid:
    return PaymentMethodInvalid(
        "Authorize.Net refused the payment token (unknown, expired or already used);"
        " collect the payment method again",
        gateway=AuthorizeNetGateway.name,
    )


def _validation_declined(answer: _Answer, hidden: tuple[str, ...]) -> Declined:
    """The validation authorization of a new payment profile was declined.

    ``validationDirectResponse`` is a delimited string: response code, sub code, reason
    code, reason text, …; the delimiter is whatever the merchant configured.
    """
    raw = str(answer.body.get("validationDirectResponse") or "")
    fields = [f.strip("\"'|") for f in raw.split(raw[1])] if len(raw) > 1 else []
    response_code = fields[0] if fields else "2"
    reason = fields[2] if len(fields) > 2 else ""
    code = _decline_code([reason], response_code)
    text = _redact(fields[3], hidden) if len(fields) > 3 else answer.text
    return Declined(
        f"{AuthorizeNetGateway.name} declined the payment method ({code}, reason code"
        f" {reason or '?'})",
        gateway=AuthorizeNetGateway.name,
        decline_code=code,
        gateway_message=text,
    )
