"""An in-memory fake of Authorize.Net's API (JSON flavour) for ``httpx.MockTransport``.

Written from the public reference (https://developer.authorize.net/api/reference/index.html)
and its schema (AnetApiSchema.xsd), it checks what the real API checks: one endpoint,
``POST /xml/v1/request.api`` on ``apitest.authorize.net`` (``api.authorize.net`` with
``live=True``; on the other host transactions answer reason 13 and other calls E00007,
as the testing guide says sandbox credentials do not work in production),
a JSON body whose single root names the call, ``merchantAuthentication`` in the body,
schema element order (out of order is E00003, as in the XML-backed original), required
fields and lengths. Every answer is HTTP 200, starts with a UTF-8 byte-order mark and has
the real shapes: ``messages.resultCode``/``message[]`` and ``transactionResponse`` with
``responseCode``, ``errors[]`` and ``messages[]``.

State is kept, so capture, void, refund (settled only, last four digits of the card or
account), ``getTransactionDetails``, ``getUnsettledTransactionList`` and the CIM vault
(customer and payment profiles, E00039 duplicates) behave like the real thing. The
duplicate window is modelled: a transaction matching an earlier one (type, amount,
invoice number, card or account, profile) within ``duplicateWindow`` seconds (120 when
absent) is refused with reason 11 and, when the window was sent, the original ``transId``.

Credentials: ``FAKE_LOGIN`` / ``FAKE_TRANSACTION_KEY``.

Test tokens (``opaqueData.dataValue``; like real Accept.js tokens each value works once,
so add any suffix for a fresh one: ``tok_visa_2``; unknown or spent values are E00114):

- ``tok_visa``: Visa ending 1111, expires 2032-12, approved
- ``tok_mastercard``: Mastercard ending 0015, expires 2031-08, approved
- ``tok_decline``: declined, reason 2
- ``tok_expired``: error, reason 8 (the card has expired)
- ``tok_cvv``: declined, reason 65 (card code mismatch)
- ``tok_fraud``: declined, reason 251 (Fraud Detection Suite filter)
- ``tok_processing``: error, reason 19 (try again in 5 minutes)
- ``tok_review``: held for review, response code 4, reason 252
- ``tok_bank``: eCheck account ending 1234 (routing ending 0024), Wells Fargo Bank NA
- a value with a space: E00003, whose text echoes the value (as schema errors do)

Knobs for tests: ``outage`` (an HTTP status to answer with, e.g. 500), ``timeout``
(raise ``httpx.ReadTimeout`` before doing anything), ``lose_answer`` (do the work, then
raise ``httpx.ReadTimeout``), ``advance(seconds)`` (the duplicate-window clock),
``settle()`` (the nightly settlement batch). ``requests`` and ``calls`` record the wire.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

import attrs
import httpx

from tests.gateways.authorize_net.contract import validate_answer, validate_request
from tests.gateways.contracts import ContractViolation

FAKE_LOGIN = "payhubTestLogin"
FAKE_TRANSACTION_KEY = "Fake0123456789ab"  # 16 characters, like a real transaction key
SANDBOX_HOST = "apitest.authorize.net"
LIVE_HOST = "api.authorize.net"
PATH = "/xml/v1/request.api"
BOM = "\ufeff"
_EPOCH = datetime(2026, 1, 15, 17, 0, tzinfo=UTC)

# AnetApiSchema.xsd sequences, for the order check.
_ROOTS: dict[str, tuple[str, ...]] = {
    "createTransactionRequest": ("transactionRequest",),
    "getTransactionDetailsRequest": ("transId",),
    "getUnsettledTransactionListRequest": ("status", "sorting", "paging"),
    "createCustomerProfileRequest": ("profile", "validationMode"),
    "createCustomerPaymentProfileRequest": (
        "customerProfileId",
        "paymentProfile",
        "validationMode",
    ),
    "getCustomerPaymentProfileRequest": (
        "customerProfileId",
        "customerPaymentProfileId",
        "unmaskExpirationDate",
        "includeIssuerInfo",
    ),
}
_API_REQUEST = ("merchantAuthentication", "clientId", "refId")
_ORDER: dict[str, tuple[str, ...]] = {
    "merchantAuthentication": ("name", "transactionKey", "mobileDeviceId"),
    "transactionRequest": (
        "transactionType",
        "amount",
        "currencyCode",
        "payment",
        "profile",
        "solution",
        "callId",
        "terminalNumber",
        "authCode",
        "refTransId",
        "splitTenderId",
        "order",
        "lineItems",
        "tax",
        "duty",
        "shipping",
        "taxExempt",
        "poNumber",
        "customer",
        "billTo",
        "shipTo",
        "customerIP",
        "cardholderAuthentication",
        "retail",
        "employeeId",
        "transactionSettings",
        "userFields",
        "surcharge",
        "merchantDescriptor",
        "subMerchant",
        "tip",
        "processingOptions",
        "subsequentAuthInformation",
        "otherTax",
        "shipFrom",
    ),
    "payment": ("creditCard", "bankAccount", "trackData", "opaqueData", "dataSource"),
    "opaqueData": ("dataDescriptor", "dataValue", "dataKey"),
    "creditCard": ("cardNumber", "expirationDate", "cardCode"),
    "bankAccount": (
        "accountType",
        "routingNumber",
        "accountNumber",
        "nameOnAccount",
        "echeckType",
        "bankName",
        "checkNumber",
    ),
    "profile:transaction": (
        "createProfile",
        "customerProfileId",
        "paymentProfile",
        "shippingProfileId",
    ),
    "paymentProfile:transaction": ("paymentProfileId", "cardCode"),
    "order": ("invoiceNumber", "description"),
    "transactionSettings": ("setting",),
    "setting": ("settingName", "settingValue"),
    "profile:customer": (
        "merchantCustomerId",
        "description",
        "email",
        "paymentProfiles",
        "shipToList",
        "profileType",
    ),
    "paymentProfile:customer": (
        "customerType",
        "billTo",
        "payment",
        "driversLicense",
        "taxId",
        "defaultPaymentProfile",
    ),
    "billTo": ("firstName", "lastName", "company", "address", "city", "state", "zip", "country"),
    "sorting": ("orderBy", "orderDescending"),
    "paging": ("limit", "offset"),
}
_MAX_LENGTH = {"refId": 20, "invoiceNumber": 20, "merchantCustomerId": 20, "description": 255}

_REASONS = {
    "1": "This transaction has been approved.",
    "2": "This transaction has been declined.",
    "6": "The credit card number is invalid.",
    "8": "The credit card has expired.",
    "11": "A duplicate transaction has been submitted.",
    "13": "The merchant login ID or password is invalid or the account is inactive.",
    "16": "The transaction cannot be found.",
    "19": "An error occurred during processing. Please try again in 5 minutes.",
    "33": "Credit card number is required.",
    "47": "The amount requested for settlement cannot be greater than the original amount"
    " authorized.",
    "54": "The referenced transaction does not meet the criteria for issuing a credit.",
    "55": "The sum of credits against the referenced transaction would exceed original debit"
    " amount.",
    "65": "This transaction has been declined.",
    "251": "The transaction was declined as a result of triggering a Fraud Detection Suite filter.",
    "252": "Your order has been received. Thank you for your business!",
    "310": "This transaction has already been voided.",
    "311": "This transaction has already been captured.",
}
_OPEN = ("authorizedPendingCapture", "capturedPendingSettlement", "refundPendingSettlement")


@attrs.define
class Method:
    """What a token (or a payment profile) stands for: a card or a bank account."""

    kind: str  # "card" | "bank"
    last4: str
    card_type: str = ""
    expiration: str = ""  # YYYY-MM
    routing_last4: str = ""
    name_on_account: str = ""
    bank_name: str = ""
    outcome: tuple[str, str] = ("1", "1")  # (responseCode, reason code) of a charge

    @property
    def identity(self) -> tuple[str, ...]:
        return (self.kind, self.last4, self.expiration, self.routing_last4)

    def masked(self, *, unmask_expiry: bool = False) -> dict[str, Any]:
        if self.kind == "card":
            expiry = self.expiration if unmask_expiry else "XXXX"
            card = {"cardNumber": "XXXX" + self.last4, "expirationDate": expiry}
            return {"creditCard": card | {"cardType": self.card_type}}
        return {
            "bankAccount": {
                "accountType": "checking",
                "routingNumber": "XXXX" + self.routing_last4,
                "accountNumber": "XXXX" + self.last4,
                "nameOnAccount": self.name_on_account,
                "echeckType": "WEB",
                "bankName": self.bank_name,
            }
        }


TOKENS: dict[str, Method] = {
    "tok_visa": Method("card", "1111", "Visa", "2032-12"),
    "tok_mastercard": Method("card", "0015", "MasterCard", "2031-08"),
    "tok_decline": Method("card", "0027", "Visa", "2032-12", outcome=("2", "2")),
    "tok_expired": Method("card", "0069", "Visa", "2020-01", outcome=("3", "8")),
    "tok_cvv": Method("card", "0127", "Visa", "2032-12", outcome=("2", "65")),
    "tok_fraud": Method("card", "0019", "Visa", "2032-12", outcome=("2", "251")),
    "tok_processing": Method("card", "0119", "Visa", "2032-12", outcome=("3", "19")),
    "tok_review": Method("card", "0252", "Visa", "2032-12", outcome=("4", "252")),
    "tok_bank": Method(
        "bank", "1234", routing_last4="0024", name_on_account="Jane Doe",
        bank_name="Wells Fargo Bank NA",
    ),
}  # fmt: skip


@attrs.define
class Transaction:
    trans_id: str
    type: str
    status: str
    method: Method
    auth_amount: Decimal
    settle_amount: Decimal
    submitted: float
    response_code: str = "1"
    reason: str = "1"
    auth_code: str = ""
    invoice: str = ""
    description: str = ""
    ref_trans_id: str = ""
    refunded: Decimal = Decimal(0)
    duplicate_key: tuple[Any, ...] = ()


@attrs.define
class CustomerProfile:
    profile_id: str
    merchant_customer_id: str
    description: str
    email: str
    payment_profiles: dict[str, Method] = attrs.Factory(dict)


class ApiError(Exception):
    """A ``messages``-level error: resultCode Error with one code and text."""

    def __init__(self, code: str, text: str, extra: dict[str, Any] | None = None) -> None:
        super().__init__(text)
        self.code, self.text, self.extra = code, text, extra or {}


class FakeAuthorizeNet:
    def __init__(
        self,
        *,
        login: str = FAKE_LOGIN,
        transaction_key: str = FAKE_TRANSACTION_KEY,
        live: bool = False,
    ) -> None:
        self.login, self.transaction_key = login, transaction_key
        self.host = LIVE_HOST if live else SANDBOX_HOST
        self.requests: list[httpx.Request] = []
        self.calls: list[dict[str, Any]] = []  # parsed bodies, in order
        self.transactions: dict[str, Transaction] = {}
        self.profiles: dict[str, CustomerProfile] = {}
        self.spent_tokens: set[str] = set()
        self.clock = 0.0
        self.outage: int | None = None
        self.timeout = False
        self.lose_answer = False
        self._next = {"trans": 40000000001, "profile": 500000001, "payment": 600000001}

    # --- knobs ---------------------------------------------------------------------------

    def advance(self, seconds: float) -> None:
        self.clock += seconds

    def settle(self) -> None:
        """The nightly batch: captured and refunded transactions settle."""
        for tx in self.transactions.values():
            if tx.status == "capturedPendingSettlement":
                tx.status = "settledSuccessfully"
            elif tx.status == "refundPendingSettlement":
                tx.status = "refundSettledSuccessfully"

    def roots(self) -> list[str]:
        """The API call names received, in order."""
        return [next(iter(body)) for body in self.calls]

    # --- transport -----------------------------------------------------------------------

    def handler(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if self.timeout:
            raise httpx.ReadTimeout("timed out", request=request)
        if self.outage:
            return httpx.Response(self.outage, text="<html><body>Service Unavailable</body></html>")
        known = request.url.host in (SANDBOX_HOST, LIVE_HOST)
        if request.method != "POST" or request.url.path != PATH or not known:
            return httpx.Response(404, text="Not Found")
        ref_id: object = None
        try:
            root, inner = self._parse(request)
            ref_id = inner.get("refId")
            self._authenticate(request, inner)
            body = getattr(self, "_" + root)(inner)
        except ApiError as e:
            body = e.extra | {"messages": _error(e.code, e.text)}
        if isinstance(ref_id, str):
            body = {"refId": ref_id, **body}
        if self.calls and next(iter(self.calls[-1])) in _ROOTS:
            validate_answer(next(iter(self.calls[-1])), body)  # the fake answers as the schema says
        if self.lose_answer:
            raise httpx.ReadTimeout("the answer was lost", request=request)
        data = (BOM + json.dumps(body, default=_json_number)).encode("utf-8")
        return httpx.Response(
            200, content=data, headers={"Content-Type": "application/json; charset=utf-8"}
        )

    def _parse(self, request: httpx.Request) -> tuple[str, dict[str, Any]]:
        if not request.headers.get("content-type", "").startswith("application/json"):
            raise ApiError("E00002", "The content-type specified is not supported.")
        try:
            body = json.loads(request.content.decode("utf-8"), parse_float=Decimal)
        except ValueError:
            raise ApiError("E00003", "An error occurred while parsing the request.") from None
        if not isinstance(body, dict) or len(body) != 1:
            raise ApiError("E00003", "The request must have exactly one root element.")
        self.calls.append(body)
        root, inner = next(iter(body.items()))
        if root not in _ROOTS:
            raise ApiError("E00004", "The name of the requested API method is invalid.")
        if not isinstance(inner, dict):
            raise ApiError("E00003", f"The element '{root}' is invalid.")
        try:  # AnetApiSchema.xsd, from the vendor's SDK: what the real API parses against
            validate_request(body)
        except ContractViolation as e:
            raise ApiError("E00003", f"The element '{root}' is invalid: {e}") from None
        _check(root, inner, _API_REQUEST + _ROOTS[root])
        return root, inner

    def _authenticate(self, request: httpx.Request, inner: dict[str, Any]) -> None:
        auth = inner.get("merchantAuthentication")
        if not isinstance(auth, dict):
            raise ApiError("E00003", "The element 'merchantAuthentication' is missing.")
        _check("merchantAuthentication", auth, _ORDER["merchantAuthentication"])
        if not auth.get("name"):
            raise ApiError("E00006", "The API user name is invalid or not present.")
        if not auth.get("transactionKey"):
            raise ApiError("E00005", "The transaction key or API key is invalid or not present.")
        if request.url.host != self.host and "transactionRequest" in inner:
            # The testing guide: sandbox credentials in production (or the reverse) answer
            # response reason code 13.
            raise ApiError("E00027", "The transaction was unsuccessful.", _tx_answer("3", "13"))
        if (
            request.url.host != self.host
            or auth.get("name") != self.login
            or auth.get("transactionKey") != self.transaction_key
        ):
            raise ApiError(
                "E00007", "User authentication failed due to invalid authentication values."
            )

    # --- payment transactions ----------------------------------------------------------

    def _createTransactionRequest(self, inner: dict[str, Any]) -> dict[str, Any]:
        tr = inner.get("transactionRequest")
        if not isinstance(tr, dict):
            raise ApiError("E00003", "The element 'transactionRequest' is missing.")
        _check("transactionRequest", tr, _ORDER["transactionRequest"])
        for name in ("order", "transactionSettings"):
            if name in tr:
                _check(name, tr[name], _ORDER[name])
        kind = tr.get("transactionType")
        if kind in ("authCaptureTransaction", "authOnlyTransaction"):
            return self._charge(tr, capture=kind == "authCaptureTransaction")
        if kind == "priorAuthCaptureTransaction":
            return self._capture(tr)
        if kind == "refundTransaction":
            return self._refund(tr)
        if kind == "voidTransaction":
            return self._void(tr)
        raise ApiError("E00003", "The 'transactionType' element is invalid.")

    def _charge(self, tr: dict[str, Any], *, capture: bool) -> dict[str, Any]:
        amount = _amount(tr)
        if "payment" in tr:
            method = self._redeem(tr["payment"])
            profile: tuple[str, str] | None = None
        elif "profile" in tr:
            profile = self._profile_of(tr["profile"])
            method = self.profiles[profile[0]].payment_profiles[profile[1]]
        else:
            return _tx_answer("3", "33")
        kind = "authCaptureTransaction" if capture else "authOnlyTransaction"
        key = (kind, amount, _invoice(tr), method.identity, profile)
        duplicate = self._duplicate(key, tr)
        if duplicate is not None:
            return duplicate
        code, reason = method.outcome
        if code == "3":  # an error: no transaction is recorded
            return _tx_answer(code, reason, method=method)
        status = {
            "1": "capturedPendingSettlement" if capture else "authorizedPendingCapture",
            "2": "declined",
            "4": "FDSPendingReview" if capture else "FDSAuthorizedPendingReview",
        }[code]
        tx = self._record(
            kind, status, method, amount, amount if capture and code == "1" else Decimal(0),
            code=code, reason=reason, invoice=_invoice(tr), key=key,
            description=str(tr.get("order", {}).get("description", "")),
        )  # fmt: skip
        return _tx_answer(code, reason, tx=tx, method=method)

    def _capture(self, tr: dict[str, Any]) -> dict[str, Any]:
        original = self.transactions.get(str(tr.get("refTransId", "")))
        if original is None or original.status == "voided":
            return _tx_answer("3", "16")
        captured = original.status in ("capturedPendingSettlement", "settledSuccessfully")
        if captured and original.type == "authOnlyTransaction":
            return _tx_answer("1", "311", tx=original, method=original.method)
        if original.status != "authorizedPendingCapture":
            return _tx_answer("3", "16")
        amount = _amount(tr) if "amount" in tr else original.auth_amount
        if amount > original.auth_amount:
            return _tx_answer("3", "47", method=original.method)
        original.status, original.settle_amount = "capturedPendingSettlement", amount
        return _tx_answer("1", "1", tx=original, method=original.method, ref=original.trans_id)

    def _void(self, tr: dict[str, Any]) -> dict[str, Any]:
        original = self.transactions.get(str(tr.get("refTransId", "")))
        if original is None:
            return _tx_answer("3", "16")
        if original.status == "voided":
            return _tx_answer("1", "310", tx=original, method=original.method)
        if original.status not in (*_OPEN, "FDSPendingReview", "FDSAuthorizedPendingReview"):
            return _tx_answer("3", "16")
        original.status = "voided"
        return _tx_answer("1", "1", tx=original, method=original.method, ref=original.trans_id)

    def _refund(self, tr: dict[str, Any]) -> dict[str, Any]:
        original = self.transactions.get(str(tr.get("refTransId", "")))
        if original is None:
            return _tx_answer("3", "16")
        amount = _amount(tr)
        payment = tr.get("payment")
        if not isinstance(payment, dict):
            return _tx_answer("3", "33")
        _check("payment", payment, _ORDER["payment"])
        if not self._names(original.method, payment):
            return _tx_answer("3", "6")
        key = (
            "refundTransaction",
            amount,
            _invoice(tr),
            original.method.identity,
            original.trans_id,
        )
        duplicate = self._duplicate(key, tr)
        if duplicate is not None:
            return duplicate
        if original.status != "settledSuccessfully":
            return _tx_answer("3", "54", method=original.method)
        if amount > original.settle_amount - original.refunded:
            return _tx_answer("3", "55", method=original.method)
        original.refunded += amount
        tx = self._record(
            "refundTransaction", "refundPendingSettlement", original.method, amount, amount,
            invoice=_invoice(tr), key=key, ref_trans_id=original.trans_id,
        )  # fmt: skip
        return _tx_answer("1", "1", tx=tx, method=original.method, ref=original.trans_id)

    def _names(self, method: Method, payment: dict[str, Any]) -> bool:
        """Does a refund's masked card or account match the original transaction's?"""
        card, account = payment.get("creditCard"), payment.get("bankAccount")
        if isinstance(card, dict):
            _check("creditCard", card, _ORDER["creditCard"])
            number = str(card.get("cardNumber", ""))
            return (
                method.kind == "card"
                and number[-4:] == method.last4
                and bool(card.get("expirationDate"))
            )
        if isinstance(account, dict):
            _check("bankAccount", account, _ORDER["bankAccount"])
            for name in ("routingNumber", "accountNumber", "nameOnAccount"):
                if name not in account:
                    raise ApiError("E00003", f"The element 'bankAccount' is missing '{name}'.")
            return (
                method.kind == "bank"
                and str(account["accountNumber"])[-4:] == method.last4
                and str(account["routingNumber"])[-4:] == method.routing_last4
            )
        return False

    def _duplicate(self, key: tuple[Any, ...], tr: dict[str, Any]) -> dict[str, Any] | None:
        window_sent, window = _duplicate_window(tr)
        for tx in self.transactions.values():
            if tx.duplicate_key == key and self.clock - tx.submitted < window:
                if not window_sent:  # no details of the original without the field
                    return _tx_answer("3", "11")
                answer = _tx_answer("3", "11", tx=tx, method=tx.method)
                if tx.response_code != "1":
                    answer["transactionResponse"]["authCode"] = ""
                return answer
        return None

    def _record(
        self,
        kind: str,
        status: str,
        method: Method,
        auth: Decimal,
        settle: Decimal,
        *,
        code: str = "1",
        reason: str = "1",
        invoice: str = "",
        key: tuple[Any, ...] = (),
        ref_trans_id: str = "",
        description: str = "",
    ) -> Transaction:
        trans_id = self._id("trans")
        tx = Transaction(
            trans_id, kind, status, method, auth, settle, self.clock, code, reason,
            auth_code="" if code == "2" else f"A{trans_id[-5:]}", invoice=invoice,
            description=description, ref_trans_id=ref_trans_id, duplicate_key=key,
        )  # fmt: skip
        self.transactions[trans_id] = tx
        return tx

    def _redeem(self, payment: object) -> Method:
        if not isinstance(payment, dict):
            raise ApiError("E00003", "The element 'payment' is invalid.")
        _check("payment", payment, _ORDER["payment"])
        opaque = payment.get("opaqueData")
        if not isinstance(opaque, dict):  # payhub never sends card or account numbers
            raise ApiError("E00003", "The fake accepts only opaqueData payments.")
        _check("opaqueData", opaque, _ORDER["opaqueData"])
        value = str(opaque.get("dataValue", ""))
        if " " in value:  # schema errors quote the offending value
            raise ApiError("E00003", f"The 'dataValue' element is invalid - The value '{value}'"
                           " is invalid according to its datatype.")  # fmt: skip
        found = next(
            (m for name, m in sorted(TOKENS.items(), key=lambda kv: -len(kv[0]))
             if value == name or value.startswith(name + "_")),
            None,
        )  # fmt: skip
        descriptor = opaque.get("dataDescriptor")
        if (
            found is None
            or value in self.spent_tokens
            or descriptor != "COMMON.ACCEPT.INAPP.PAYMENT"
        ):
            raise ApiError(
                "E00114",
                "Invalid OTS Token.",
                {"transactionResponse": _tx_answer("3", "0")["transactionResponse"]
                 | {"errors": [{"errorCode": "E00114", "errorText": "Invalid OTS Token."}]}},
            )  # fmt: skip
        self.spent_tokens.add(value)
        return attrs.evolve(found)

    def _profile_of(self, profile: object) -> tuple[str, str]:
        if not isinstance(profile, dict):
            raise ApiError("E00003", "The element 'profile' is invalid.")
        _check("profile", profile, _ORDER["profile:transaction"])
        payment = profile.get("paymentProfile")
        if isinstance(payment, dict):
            _check("paymentProfile", payment, _ORDER["paymentProfile:transaction"])
        customer = str(profile.get("customerProfileId", ""))
        method = str(payment.get("paymentProfileId", "")) if isinstance(payment, dict) else ""
        found = self.profiles.get(customer)
        if found is None or method not in found.payment_profiles:
            raise ApiError("E00040", "The record cannot be found.")
        return customer, method

    # --- reporting -----------------------------------------------------------------------

    def _getTransactionDetailsRequest(self, inner: dict[str, Any]) -> dict[str, Any]:
        trans_id = str(inner.get("transId", ""))
        if not trans_id.isdigit():
            raise ApiError("E00003", "The 'transId' element is invalid.")
        tx = self.transactions.get(trans_id)
        if tx is None:
            raise ApiError("E00040", "The record cannot be found.")
        when = (_EPOCH + timedelta(seconds=tx.submitted)).isoformat()
        details: dict[str, Any] = {"transId": tx.trans_id}
        if tx.ref_trans_id:
            details["refTransId"] = tx.ref_trans_id
        details |= {
            "submitTimeUTC": when,
            "submitTimeLocal": when,
            "transactionType": tx.type,
            "transactionStatus": tx.status,
            "responseCode": int(tx.response_code),
            "responseReasonCode": int(tx.reason),
            "responseReasonDescription": "Approval" if tx.reason == "1" else _REASONS[tx.reason],
            "authCode": tx.auth_code,
            "AVSResponse": "Y" if tx.method.kind == "card" else "P",
            "order": {"invoiceNumber": tx.invoice, "description": tx.description},
            "authAmount": tx.auth_amount,
            "settleAmount": tx.settle_amount,
            "taxExempt": False,
            "payment": tx.method.masked(),
            "recurringBilling": False,
            "product": "Card Not Present",
            "marketType": "eCommerce",
        }
        return {"transaction": details, "messages": _ok()}

    def _getUnsettledTransactionListRequest(self, inner: dict[str, Any]) -> dict[str, Any]:
        for name in ("sorting", "paging"):
            if name in inner:
                _check(name, inner[name], _ORDER[name])
        open_ = [tx for tx in self.transactions.values() if tx.status not in (
            "settledSuccessfully", "refundSettledSuccessfully", "voided", "declined")]  # fmt: skip
        open_.sort(key=lambda tx: tx.submitted, reverse=True)
        summaries = [
            {
                "transId": tx.trans_id,
                "submitTimeUTC": (_EPOCH + timedelta(seconds=tx.submitted)).isoformat(),
                "transactionStatus": tx.status,
                "invoiceNumber": tx.invoice,
                "accountType": tx.method.card_type or "eCheck",
                "accountNumber": "XXXX" + tx.method.last4,
                "settleAmount": tx.settle_amount,
            }
            for tx in open_
        ]
        body: dict[str, Any] = {"transactions": summaries} if summaries else {}
        return body | {"totalNumInResultSet": len(summaries), "messages": _ok()}

    # --- customer profiles (CIM) ---------------------------------------------------------

    def _createCustomerProfileRequest(self, inner: dict[str, Any]) -> dict[str, Any]:
        profile = inner.get("profile")
        if not isinstance(profile, dict):
            raise ApiError("E00003", "The element 'profile' is missing.")
        _check("profile", profile, _ORDER["profile:customer"])
        fields = [str(profile.get(k, "")) for k in ("merchantCustomerId", "description", "email")]
        if not any(fields):
            raise ApiError("E00041", "One or more fields in the profile must contain a value.")
        for existing in self.profiles.values():
            if [existing.merchant_customer_id, existing.description, existing.email] == fields:
                raise ApiError(
                    "E00039", f"A duplicate record with ID {existing.profile_id} already exists."
                )
        created = CustomerProfile(self._id("profile"), *fields)
        self.profiles[created.profile_id] = created
        return {
            "customerProfileId": created.profile_id,
            "customerPaymentProfileIdList": [],
            "customerShippingAddressIdList": [],
            "validationDirectResponseList": [],
            "messages": _ok(),
        }

    def _createCustomerPaymentProfileRequest(self, inner: dict[str, Any]) -> dict[str, Any]:
        customer = self.profiles.get(str(inner.get("customerProfileId", "")))
        profile = inner.get("paymentProfile")
        if not isinstance(profile, dict):
            raise ApiError("E00003", "The element 'paymentProfile' is missing.")
        _check("paymentProfile", profile, _ORDER["paymentProfile:customer"])
        if "billTo" in profile:
            _check("billTo", profile["billTo"], _ORDER["billTo"])
        if customer is None:
            raise ApiError("E00040", "The record cannot be found.")
        try:
            method = self._redeem(profile.get("payment"))
        except ApiError as e:  # only createTransactionResponse has a transactionResponse
            raise ApiError(e.code, e.text) from None
        for method_id, existing in customer.payment_profiles.items():
            if existing.identity == method.identity:
                raise ApiError(
                    "E00039",
                    "A duplicate customer payment profile already exists.",
                    {
                        "customerProfileId": customer.profile_id,
                        "customerPaymentProfileId": method_id,
                    },
                )
        mode = inner.get("validationMode", "none")
        code, reason = method.outcome
        validation = ""
        if mode in ("liveMode", "testMode"):
            result = (code, reason) if mode == "liveMode" else ("1", "1")
            text = _REASONS[result[1]]
            validation = f"{result[0]},1,{result[1]},{text},,P,0,none,Test transaction,0.00,CC"
            if result[0] != "1":
                raise ApiError(
                    "E00027",
                    "The transaction was unsuccessful.",
                    {"validationDirectResponse": validation},
                )
        method_id = self._id("payment")
        customer.payment_profiles[method_id] = method
        answer: dict[str, Any] = {
            "customerProfileId": customer.profile_id,
            "customerPaymentProfileId": method_id,
        }
        if validation:
            answer["validationDirectResponse"] = validation
        return answer | {"messages": _ok()}

    def _getCustomerPaymentProfileRequest(self, inner: dict[str, Any]) -> dict[str, Any]:
        customer = self.profiles.get(str(inner.get("customerProfileId", "")))
        method_id = str(inner.get("customerPaymentProfileId", ""))
        if customer is None or method_id not in customer.payment_profiles:
            raise ApiError("E00040", "The record cannot be found.")
        unmask = str(inner.get("unmaskExpirationDate", "")).lower() == "true"
        method = customer.payment_profiles[method_id]
        return {
            "paymentProfile": {
                "customerType": "individual",
                "customerProfileId": customer.profile_id,
                "customerPaymentProfileId": method_id,
                "payment": method.masked(unmask_expiry=unmask),
            },
            "messages": _ok(),
        }

    def _id(self, kind: str) -> str:
        value = self._next[kind]
        self._next[kind] += 1
        return str(value)


# --- helpers -------------------------------------------------------------------------------


def _check(name: str, element: object, order: tuple[str, ...]) -> None:
    """Children must be known and in schema order, as the XML schema demands."""
    if not isinstance(element, dict):
        raise ApiError("E00003", f"The element '{name}' is invalid.")
    last = -1
    for key, value in element.items():
        if key not in order or order.index(key) < last:
            raise ApiError("E00003", f"The element '{name}' has invalid child element '{key}'.")
        last = order.index(key)
        if key in _MAX_LENGTH and len(str(value)) > _MAX_LENGTH[key]:
            raise ApiError(
                "E00003",
                f"The '{key}' element is invalid - The actual length is greater than the"
                " MaxLength value.",
            )


def _amount(tr: dict[str, Any]) -> Decimal:
    raw = tr.get("amount")
    try:
        amount = Decimal(str(raw))
    except InvalidOperation:
        raise ApiError("E00003", "The 'amount' element is invalid.") from None
    if not isinstance(raw, str | Decimal | int) or not amount.is_finite() or amount <= 0:
        raise ApiError("E00003", "The 'amount' element is invalid.")
    exponent = amount.as_tuple().exponent
    if isinstance(exponent, int) and exponent < -4:  # xs:decimal, fractionDigits 4
        raise ApiError("E00003", "The 'amount' element is invalid.")
    return amount


def _invoice(tr: dict[str, Any]) -> str:
    order = tr.get("order")
    return str(order.get("invoiceNumber", "")) if isinstance(order, dict) else ""


def _duplicate_window(tr: dict[str, Any]) -> tuple[bool, float]:
    settings = tr.get("transactionSettings")
    items = settings.get("setting") if isinstance(settings, dict) else None
    for item in items if isinstance(items, list) else [items]:
        if isinstance(item, dict):
            _check("setting", item, _ORDER["setting"])
            if item.get("settingName") == "duplicateWindow":
                seconds = int(str(item.get("settingValue", "0")))
                if not 0 <= seconds <= 28800:
                    raise ApiError("E00003", "The 'duplicateWindow' setting is invalid.")
                return True, float(seconds)
    return False, 120.0


def _tx_answer(
    code: str,
    reason: str,
    *,
    tx: Transaction | None = None,
    method: Method | None = None,
    ref: str = "",
) -> dict[str, Any]:
    """A createTransactionResponse in the documented shape."""
    method = method or (tx.method if tx else None)
    response: dict[str, Any] = {
        "responseCode": code,
        "authCode": tx.auth_code if tx else "",
        "avsResultCode": ("Y" if method.kind == "card" else "P") if method else "P",
        "cvvResultCode": "M" if method and method.kind == "card" and code == "1" else "",
        "cavvResultCode": "",
        "transId": tx.trans_id if tx else "0",
        "refTransID": ref,
        "transHash": "",
        "testRequest": "0",
        "accountNumber": "XXXX" + method.last4 if method else "",
        "accountType": (method.card_type or "eCheck") if method else "",
    }
    text = _REASONS.get(reason, "")
    if code in ("1", "4"):
        response["messages"] = [{"code": reason, "description": text}]
    elif reason != "0":
        response["errors"] = [{"errorCode": reason, "errorText": text}]
    response |= {"transHashSha2": "", "SupplementalDataQualificationIndicator": 0}
    ok = code in ("1", "4")
    return {
        "transactionResponse": response,
        "messages": _ok() if ok else _error("E00027", "The transaction was unsuccessful."),
    }


def _ok() -> dict[str, Any]:
    return {"resultCode": "Ok", "message": [{"code": "I00001", "text": "Successful."}]}


def _error(code: str, text: str) -> dict[str, Any]:
    return {"resultCode": "Error", "message": [{"code": code, "text": text}]}


def _json_number(value: object) -> object:
    """Amounts go out as JSON numbers, as the real API writes them (``10.05``)."""
    if isinstance(value, Decimal):
        return float(value)
    raise TypeError(f"cannot encode {type(value).__name__}")
