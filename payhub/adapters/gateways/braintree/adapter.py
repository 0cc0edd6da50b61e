"""Braintree adapter: the GraphQL API (``Braintree-Version: 2024-08-27``), spoken through httpx.

One endpoint per environment, chosen by ``creds.sandbox``: ``POST
https://payments.sandbox.braintree-api.com/graphql`` or ``https://payments.braintree-api.com/graphql``
with ``Authorization: Basic base64(publicKey:privateKey)`` and a JSON body ``{query, variables}``.
GraphQL reports most failures with HTTP 200 and an ``errors`` array whose
``extensions.errorClass`` says what went wrong; declines come back as a transaction in
``PROCESSOR_DECLINED`` / ``GATEWAY_REJECTED`` / ``FAILED`` whose ``statusHistory`` carries the
processor response (``legacyCode``, ``message``).

Mutations used: ``chargePaymentMethod`` (sale), ``authorizePaymentMethod``, ``captureTransaction``
(full or partial: ``transaction.amount``; ``partialCaptureTransaction`` is for PayPal/Venmo
only), ``refundTransaction``, ``reverseTransaction`` (the void: the schema has no
``voidTransaction``), ``createCustomer``, ``vaultPaymentMethod``, ``vaultUsBankAccount``
(``verificationMethod: NETWORK_CHECK``) and ``chargeUsBankAccount`` (``WEB`` entry class);
queries ``node(id:)``, ``search.transactions`` and ``viewer.merchant.merchantAccounts``.
Credentials: ``apiSecret`` is the private key, ``fields["publicKey"]`` the public key;
``fields["merchantId"]`` is not sent, since GraphQL identifies the merchant by the API keys.

Bank accounts are vault-first: Braintree charges only a vaulted, verified US bank account.
The ACH mandate text is captured when the client tokenizes the account
(``UsBankAccountInput.achMandate``, required there); ``VaultUsBankAccountInput`` has no
mandate field, so vaulting sends the verification method only.

Currency belongs to the Braintree merchant account, not to the transaction, so each charge names
the merchant account whose ``currencyCode`` matches the amount (looked up once per account and
currency). Amounts are decimal strings at the currency's precision (``10.05``, JPY ``1000``).

Idempotency: the public schema has no idempotency field. Braintree's "At-Most-Once Processing"
(``ApiRequestKey``) is a limited-release feature whose wire format is not published, and an
unknown input field would make every request fail GraphQL validation. So the key goes where
the public API can use it: ``clientMutationId`` (echoed back, for reconciliation) on every
mutation, and ``orderId`` on charges and refunds. With Braintree's default duplicate checking
(same amount, payment method and order ID), a retried charge is gateway-rejected as
``DUPLICATE`` with ``duplicateOf``: that original is returned as the answer; a retry whose
single-use nonce the first attempt consumed finds that first charge by its order ID. ``lookup``
finds a charge whose answer was lost the same way, and a retried refund is recognised by its
order ID before a second refund is sent.

Reference (checked 2026-11):
- https://developer.paypal.com/braintree/graphql/guides/making_api_calls (endpoints, auth)
- https://graphql.braintreepayments.com/guides/making_api_calls (Braintree-Version, body shape)
- https://graphql.braintreepayments.com/guides/charging_payment_methods
- https://graphql.braintreepayments.com/integration_guides/credit_cards
- https://developer.paypal.com/braintree/graphql/reference/mutations/charge-payment-method.md
- https://developer.paypal.com/braintree/graphql/reference/types/transaction-payload.md
- https://developer.paypal.com/braintree/graphql/reference/types/gateway-rejected-event.md
- https://developer.paypal.com/braintree/graphql/reference/types/processor-declined-event.md
- https://developer.paypal.com/braintree/graphql/integration_guides/ach_direct_debit
- https://developer.paypal.com/braintree/graphql/integration_guides/idempotency (limited release)
- https://developer.paypal.com/braintree/articles/control-panel/transactions/duplicate-checking/
- https://developer.paypal.com/braintree/docs/reference/general/testing/python (sandbox values)
- https://github.com/braintree/graphql-api/blob/master/schema.graphql (types, enums, inputs)
- https://github.com/braintree/braintree_python (util/graphql_client.py: errorClass values;
  error_codes.py: legacy validation codes)

Every document here is checked in the tests with graphql-core's document rules
(tests/gateways/braintree/contract): each defines only the fragments and variables it uses,
which Braintree enforces (a refund once carried an unused fragment and would have been refused).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

import httpx

from payhub.adapters.gateways.kit import declines
from payhub.adapters.gateways.kit.answers import json_object
from payhub.adapters.gateways.kit.http import GatewayHttp
from payhub.adapters.gateways.kit.redaction import redact
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

SANDBOX_URL = "https://payments.sandbox.braintree-api.com/graphql"
LIVE_URL = "https://payments.braintree-api.com/graphql"
API_VERSION = "2024-08-27"
NAME = "braintree"

# A document may define only the fragments it uses (GraphQL's "NoUnusedFragments" rule;
# Braintree refuses the whole request otherwise), so the refund fragment stands alone.
_REFUND_FIELDS = """
fragment PayhubRefund on Refund { id orderId status amount { value currencyCode } }
"""
_TRANSACTION_FIELDS = (
    _REFUND_FIELDS
    + """
fragment PayhubTransaction on Transaction {
  id
  orderId
  status
  amount { value currencyCode }
  paymentMethodSnapshot { __typename }
  refunds { ...PayhubRefund }
  statusHistory {
    __typename
    status
    ... on AuthorizedEvent { processorResponse { legacyCode message } }
    ... on ProcessorDeclinedEvent { processorResponse { legacyCode message } }
    ... on FailedEvent { processorResponse { legacyCode message } }
    ... on GatewayRejectedEvent {
      gatewayRejectionReason
      processorResponse { legacyCode message }
      duplicateOf {
        id orderId status amount { value currencyCode } paymentMethodSnapshot { __typename }
      }
    }
  }
}
"""
)


def _transaction_mutation(field: str, input_type: str) -> str:
    return (
        f"mutation {field[0].upper()}{field[1:]}($input: {input_type}!) {{\n"
        f"  {field}(input: $input) {{ clientMutationId transaction {{ ...PayhubTransaction }} }}\n"
        f"}}\n{_TRANSACTION_FIELDS}"
    )


_CHARGE = _transaction_mutation("chargePaymentMethod", "ChargePaymentMethodInput")
_AUTHORIZE = _transaction_mutation("authorizePaymentMethod", "AuthorizePaymentMethodInput")
_CHARGE_BANK = _transaction_mutation("chargeUsBankAccount", "ChargeUsBankAccountInput")
_CAPTURE = _transaction_mutation("captureTransaction", "CaptureTransactionInput")
_REFUND = (
    "mutation RefundTransaction($input: RefundTransactionInput!) {\n"
    "  refundTransaction(input: $input) { clientMutationId refund { ...PayhubRefund } }\n"
    "}\n" + _REFUND_FIELDS
)
_REVERSE = (
    "mutation ReverseTransaction($input: ReverseTransactionInput!) {\n"
    "  reverseTransaction(input: $input) {\n"
    "    clientMutationId\n"
    "    reversal { __typename ...PayhubTransaction ...PayhubRefund }\n"
    "  }\n"
    "}\n" + _TRANSACTION_FIELDS
)
_NODE = (
    "query Transaction($id: ID!) {\n"
    "  node(id: $id) { __typename ...PayhubTransaction }\n"
    "}\n" + _TRANSACTION_FIELDS
)
_SEARCH = (
    "query FindTransaction($input: TransactionSearchInput!) {\n"
    "  search {\n"
    "    transactions(input: $input, first: 10) { edges { node { ...PayhubTransaction } } }\n"
    "  }\n"
    "}\n" + _TRANSACTION_FIELDS
)
_MERCHANT_ACCOUNTS = """
query MerchantAccounts {
  viewer {
    merchant {
      id
      merchantAccounts(first: 50) { edges { node { id currencyCode isDefault status } } }
    }
  }
}
"""
_CREATE_CUSTOMER = """
mutation CreateCustomer($input: CreateCustomerInput!) {
  createCustomer(input: $input) { clientMutationId customer { id } }
}
"""
_VAULT_FIELDS = """
  clientMutationId
  paymentMethod {
    id
    usage
    details {
      __typename
      ... on CreditCardDetails { brandCode last4 expirationMonth expirationYear }
      ... on UsBankAccountDetails { bankName last4 verified }
    }
  }
  verification {
    status
    gatewayRejectionReason
    processorResponse { legacyCode message }
  }
"""
_VAULT_CARD = (
    "mutation VaultPaymentMethod($input: VaultPaymentMethodInput!) {\n"
    f"  vaultPaymentMethod(input: $input) {{{_VAULT_FIELDS}}}\n}}\n"
)
_VAULT_BANK = (
    "mutation VaultUsBankAccount($input: VaultUsBankAccountInput!) {\n"
    f"  vaultUsBankAccount(input: $input) {{{_VAULT_FIELDS}}}\n}}\n"
)

_FAILED = {"PROCESSOR_DECLINED", "GATEWAY_REJECTED", "FAILED", "SETTLEMENT_DECLINED"}
_CAPTURED = {
    "SUBMITTED_FOR_SETTLEMENT",
    "SETTLING",
    "SETTLED",
    "SETTLEMENT_PENDING",
    "SETTLEMENT_CONFIRMED",
}
_STATUSES = {
    "AUTHORIZED": GatewayStatus.AUTHORIZED,
    "AUTHORIZING": GatewayStatus.PENDING,
    "VOIDED": GatewayStatus.VOIDED,
    "AUTHORIZATION_EXPIRED": GatewayStatus.VOIDED,  # the hold was released: nothing to capture
    **dict.fromkeys(_CAPTURED, GatewayStatus.CAPTURED),
    **dict.fromkeys(_FAILED, GatewayStatus.DECLINED),
}
_LIVE_REFUND = _CAPTURED | {"AUTHORIZED", "AUTHORIZING"}  # refunds that are not failed or voided

# Processor response codes (legacyCode) with a clearer meaning than "declined"; see
# https://developer.paypal.com/braintree/articles/control-panel/transactions/declines
_PROCESSOR_DECLINES = {
    "2001": "insufficient_funds",  # Insufficient Funds
    "2002": "insufficient_funds",  # Limit Exceeded
    "2004": "expired_card",  # Expired Card
    "2010": "incorrect_cvc",  # Card Issuer Declined CVV
    "2012": "fraudulent",  # Processor Declined - Possible Lost Card
    "2013": "fraudulent",  # Processor Declined - Possible Stolen Card
    "2014": "fraudulent",  # Processor Declined - Fraud Suspected
    "2053": "fraudulent",  # Card reported as lost or stolen
}
_REJECTIONS = {
    "FRAUD": "fraudulent",
    "RISK_THRESHOLD": "fraudulent",
    "PAYMENT_METHOD_BLOCKED": "fraudulent",
    "CVV": "incorrect_cvc",
    "AVS_AND_CVV": "incorrect_cvc",
}
# Validation codes that mean "this payment method cannot be used" (braintree error_codes).
_METHOD_CODES = {
    "91564",  # PaymentMethodNonceConsumed
    "91565",  # PaymentMethodNonceUnknown
    "91566",  # PaymentMethodNonceLocked
    "91567",  # PaymentMethodNonceCardTypeIsNotAccepted
    "91516",  # PaymentMethodDoesNotBelongToCustomer
    "91517",  # PaymentMethodTokenCardTypeIsNotAccepted
    "91518",  # PaymentMethodTokenIsInvalid
    "93102",  # PaymentMethod.NonceIsInvalid
    "93103",  # PaymentMethod.NonceIsRequired
}
_CANNOT_SUBMIT_FOR_SETTLEMENT = "91507"
_CANNOT_BE_VOIDED = "91504"
_BRANDS = {
    "AMERICAN_EXPRESS": "amex",
    "DINERS": "diners",
    "DISCOVER": "discover",
    "JCB": "jcb",
    "MASTERCARD": "mastercard",
    "VISA": "visa",
    "UNION_PAY": "unionpay",
    "INTERNATIONAL_MAESTRO": "maestro",
    "UK_MAESTRO": "maestro",
}


class BraintreeGateway:
    """Braintree through its GraphQL API; see the module docstring for the calls it makes."""

    name = NAME

    def __init__(self, client: httpx.Client | None = None) -> None:
        self._http = GatewayHttp(NAME, client)
        # (environment, publicKey, currency) -> merchant account id; accounts rarely change.
        self._accounts: dict[tuple[bool, str, str], str] = {}

    # --- the port ------------------------------------------------------------------------

    def charge(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult:
        source = request.source
        if source.method_type is MethodType.BANK_ACCOUNT:
            if source.token is not None:
                raise ValueError(
                    "Braintree charges only vaulted, verified bank accounts: save it first"
                )
            if not request.capture:
                raise ValueError("Braintree cannot authorize a bank-account debit without capture")
            query, field = _CHARGE_BANK, "chargeUsBankAccount"
        elif source.method_type is MethodType.CARD:
            query, field = (
                (_CHARGE, "chargePaymentMethod")
                if request.capture
                else (_AUTHORIZE, "authorizePaymentMethod")
            )
        else:  # pragma: no cover - MethodType has two members today
            raise ValueError(f"Braintree cannot take {source.method_type} payments")
        method_id = source.token or source.saved_method_ref or ""
        key = request.idempotency_key[:255]
        transaction: dict[str, Any] = {
            "amount": _amount(request.amount),
            "merchantAccountId": self._merchant_account(creds, request.amount.currency),
            "orderId": key,
        }
        variables: dict[str, Any] = {
            "clientMutationId": key,
            "paymentMethodId": method_id,
            "transaction": transaction,
        }
        if field == "chargeUsBankAccount":
            variables["options"] = {"standardEntryClassCode": "WEB"}
        call = _Call(self, creds, sensitive=(method_id,))
        try:
            data = call.run(query, {"input": variables}, payment_method=True)
        except PaymentMethodInvalid:
            # A retry whose first attempt went through finds its single-use nonce consumed:
            # the charge made with this key is the answer, if there is one.
            found = self._replay(creds, request)
            if found is None:
                raise
            return found
        tx = _payload(data, field, "transaction")
        return self._settle_charge(tx, call.request_id, key)

    def lookup(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult | None:
        """Find a charge whose answer was lost (a timeout), by the order ID it was sent with."""
        call = _Call(self, creds)
        data = call.run(_SEARCH, {"input": {"orderId": {"is": request.idempotency_key[:255]}}})
        edges = _list(_dict(_dict(data.get("search")).get("transactions")).get("edges"))
        found = [_dict(_dict(edge).get("node")) for edge in edges]
        if not found:
            return None
        # Retries rejected as duplicates share the order ID: the charge that went through wins.
        found.sort(key=lambda tx: tx.get("status") in _FAILED)
        return _result(found[0], call.request_id)

    def capture(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        call = _Call(self, creds)
        variables = {
            "clientMutationId": idempotency_key[:255],
            "transactionId": reference,
            "transaction": {"amount": _amount(amount)},
        }
        try:
            data = call.run(_CAPTURE, {"input": variables}, recover=True)
        except _Refused as refused:
            if refused.legacy_code != _CANNOT_SUBMIT_FOR_SETTLEMENT:
                raise refused.error from None
            # A retried capture: already captured for this amount is the answer we wanted.
            tx = self._fetch(creds, reference)
            if tx.get("status") in _CAPTURED and _money(tx.get("amount")) == amount:
                return _result(tx, call.request_id)
            raise refused.error from None
        return _result(_payload(data, "captureTransaction", "transaction"), call.request_id)

    def refund(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        key = idempotency_key[:255]
        tx = self._fetch(creds, reference)
        refunds = [_dict(r) for r in _list(tx.get("refunds"))]
        for done in refunds:  # a retried refund: Braintree keeps our key as its order ID
            if done.get("orderId") == key and done.get("status") in _LIVE_REFUND:
                return _refund_result(done, None)
        status = tx.get("status")
        if status == "VOIDED" and _money(tx.get("amount")) == amount:
            return _result(tx, None)  # a retried full refund that voided the unsettled sale
        if status == "SUBMITTED_FOR_SETTLEMENT":
            # Braintree refunds settled transactions only; before settlement a full refund
            # is a void (the customer is never charged), a partial one has to wait.
            if _money(tx.get("amount")) != amount or any(
                r.get("status") in _LIVE_REFUND for r in refunds
            ):
                raise GatewayError(
                    "Braintree refunds only settled transactions and this one has not settled"
                    " yet; refund part of it after settlement (usually the next day)",
                    gateway=NAME,
                )
            return self._reverse(creds, reference, key)
        call = _Call(self, creds)
        variables = {
            "clientMutationId": key,
            "transactionId": reference,
            "refund": {"amount": _amount(amount), "orderId": key},
        }
        data = call.run(_REFUND, {"input": variables})
        return _refund_result(_payload(data, "refundTransaction", "refund"), call.request_id)

    def void(
        self, creds: GatewayCredentials, reference: str, idempotency_key: str
    ) -> GatewayResult:
        return self._reverse(creds, reference, idempotency_key[:255])

    def status(self, creds: GatewayCredentials, reference: str) -> GatewayResult:
        call = _Call(self, creds)
        tx = self._fetch(creds, reference, call)
        return _result(tx, call.request_id)

    def save_payment_method(
        self, creds: GatewayCredentials, request: SaveMethodRequest
    ) -> SavedMethod:
        if request.method_type is MethodType.CARD:
            query, field = _VAULT_CARD, "vaultPaymentMethod"
        elif request.method_type is MethodType.BANK_ACCOUNT:
            query, field = _VAULT_BANK, "vaultUsBankAccount"
        else:  # pragma: no cover - MethodType has two members today
            raise ValueError(f"Braintree cannot save {request.method_type} payment methods")
        key = request.idempotency_key[:255] or None
        customer_ref = request.gateway_customer_ref or self._create_customer(creds, request, key)
        variables: dict[str, Any] = {
            "clientMutationId": key,
            "paymentMethodId": request.token,
            "customerId": customer_ref,
        }
        if field == "vaultUsBankAccount":
            variables["verificationMethod"] = "NETWORK_CHECK"
        call = _Call(self, creds, sensitive=(request.token,))
        data = call.run(query, {"input": variables}, payment_method=True)
        payload = _dict(data.get(field))
        verification = _dict(payload.get("verification"))
        method = _dict(payload.get("paymentMethod"))
        if verification.get("status") in _FAILED or not method.get("id"):
            response = _dict(verification.get("processorResponse"))
            code = _decline_code(
                str(verification.get("status")),
                _text(response.get("legacyCode")),
                _text(verification.get("gatewayRejectionReason")),
            )
            raise Declined(
                f"Braintree could not verify the payment method ({code}); it was not saved",
                gateway=NAME,
                decline_code=code,
                gateway_message=_text(response.get("message"))
                or _text(verification.get("gatewayRejectionReason")),
                gateway_request_id=call.request_id,
            )
        details = _dict(method.get("details"))
        saved_id = str(method["id"])
        if details.get("__typename") == "UsBankAccountDetails":
            return SavedMethod(
                gateway_customer_ref=customer_ref,
                method_ref=saved_id,
                method_type=MethodType.BANK_ACCOUNT,
                last4=_text(details.get("last4")),
                bank_name=_text(details.get("bankName")),
            )
        brand = _text(details.get("brandCode"))
        return SavedMethod(
            gateway_customer_ref=customer_ref,
            method_ref=saved_id,
            method_type=request.method_type,
            brand=_BRANDS.get(brand, brand.lower()) if brand else None,
            last4=_text(details.get("last4")),
            exp_month=_int(details.get("expirationMonth")),
            exp_year=_int(details.get("expirationYear")),
            verified=verification.get("status") == "VERIFIED",  # the vault checked the card
        )

    # --- steps ---------------------------------------------------------------------------

    def _replay(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult | None:
        try:
            found = self.lookup(creds, request)
        except GatewayError:
            return None
        if found is None or found.status is GatewayStatus.DECLINED:
            return None
        return found

    def _settle_charge(self, tx: dict[str, Any], request_id: str | None, key: str) -> GatewayResult:
        """A charge's answer: success, the original of a duplicate (a retry), or a decline."""
        if tx.get("status") not in _FAILED:
            return _result(tx, request_id)
        event = _event_for(tx)
        original = _dict(event.get("duplicateOf"))
        if (
            event.get("gatewayRejectionReason") == "DUPLICATE"
            and original.get("orderId") == key
            and original.get("status") not in _FAILED
        ):
            return _result(original, request_id)
        raise _declined(tx, event, request_id)

    def _reverse(self, creds: GatewayCredentials, reference: str, key: str) -> GatewayResult:
        call = _Call(self, creds)
        variables = {"clientMutationId": key, "transactionId": reference}
        try:
            data = call.run(_REVERSE, {"input": variables}, recover=True)
        except _Refused as refused:
            if refused.legacy_code != _CANNOT_BE_VOIDED:
                raise refused.error from None
            tx = self._fetch(creds, reference)  # a retried void finds the transaction voided
            if tx.get("status") == "VOIDED":
                return _result(tx, call.request_id)
            raise refused.error from None
        reversal = _payload(data, "reverseTransaction", "reversal")
        if reversal.get("__typename") == "Refund":  # it had settled: Braintree refunded it
            return _refund_result(reversal, call.request_id)
        return _result(reversal, call.request_id)

    def _fetch(
        self, creds: GatewayCredentials, reference: str, call: _Call | None = None
    ) -> dict[str, Any]:
        call = call or _Call(self, creds)
        data = call.run(_NODE, {"id": reference})
        node = _dict(data.get("node"))
        if node.get("__typename") != "Transaction":
            raise GatewayError(
                "Braintree has no transaction with that reference",
                gateway=NAME,
                gateway_request_id=call.request_id,
            )
        return node

    def _create_customer(
        self, creds: GatewayCredentials, request: SaveMethodRequest, key: str | None
    ) -> str:
        customer: dict[str, Any] = {}
        if request.email:
            customer["email"] = request.email
        if request.name:
            first, _, last = request.name.strip().rpartition(" ")
            customer["firstName"] = first or last
            if first:
                customer["lastName"] = last
        call = _Call(self, creds)
        data = call.run(
            _CREATE_CUSTOMER, {"input": {"clientMutationId": key, "customer": customer}}
        )
        found = _dict(_payload(data, "createCustomer", "customer")).get("id")
        if not found:
            raise GatewayError("Braintree did not return the new customer", gateway=NAME)
        return str(found)

    def _merchant_account(self, creds: GatewayCredentials, currency: str) -> str:
        """The merchant account that processes ``currency``: Braintree has one currency each."""
        public_key = _public_key(creds)
        cached = self._accounts.get((creds.sandbox, public_key, currency))
        if cached is not None:
            return cached
        call = _Call(self, creds)
        merchant = _dict(_dict(call.run(_MERCHANT_ACCOUNTS, {}).get("viewer")).get("merchant"))
        edges = _list(_dict(merchant.get("merchantAccounts")).get("edges"))
        accounts = [_dict(_dict(edge).get("node")) for edge in edges]
        usable = [
            a
            for a in accounts
            if a.get("currencyCode") == currency and a.get("status") in (None, "ACTIVE")
        ]
        usable.sort(key=lambda a: not a.get("isDefault"))
        if not usable:
            raise GatewayError(
                f"the Braintree account has no active merchant account in {currency}; add one"
                " in the Braintree Control Panel",
                gateway=NAME,
                gateway_request_id=call.request_id,
            )
        found = str(usable[0]["id"])
        self._accounts[(creds.sandbox, public_key, currency)] = found
        return found


# --- one GraphQL request ---------------------------------------------------------------------


class _Refused(Exception):
    """A VALIDATION error some callers recover from (a retried capture or void)."""

    def __init__(self, error: GatewayError, legacy_code: str | None) -> None:
        super().__init__(error.detail)
        self.error = error
        self.legacy_code = legacy_code


class _Call:
    """One request: builds the headers, reads the body, maps GraphQL errors to failures."""

    def __init__(
        self, gateway: BraintreeGateway, creds: GatewayCredentials, sensitive: Iterable[str] = ()
    ) -> None:
        self._http = gateway._http
        self._creds = creds
        self._sensitive = [s for s in (*sensitive, creds.api_secret) if s]
        self.request_id: str | None = None

    def run(
        self,
        query: str,
        variables: dict[str, Any],
        *,
        payment_method: bool = False,
        recover: bool = False,
    ) -> dict[str, Any]:
        """The ``data`` of the answer; ``recover`` turns VALIDATION errors into ``_Refused``."""
        response = self._http.send(
            "POST",
            SANDBOX_URL if self._creds.sandbox else LIVE_URL,
            json={"query": query, "variables": variables},
            headers={
                "Authorization": _basic_auth(self._creds),
                "Braintree-Version": API_VERSION,
                "Accept": "application/json",
            },
        )
        body = _json(response)
        self.request_id = _text(_dict(body.get("extensions")).get("requestId"))
        errors = [_dict(e) for e in _list(body.get("errors"))]
        data = body.get("data")
        resolved = isinstance(data, dict) and any(v is not None for v in data.values())
        only_validation = all(
            _dict(e.get("extensions")).get("errorClass") == "VALIDATION" for e in errors
        )
        if errors and not (resolved and only_validation):
            # A field that resolved despite VALIDATION errors carries the outcome itself
            # (a declined transaction, a failed verification): the caller reads it.
            self._raise_for(errors, response.status_code, payment_method, recover)
        if response.status_code == 429:
            raise GatewayUnavailable("Braintree is rate limiting requests", gateway=NAME)
        if response.status_code != 200 or not isinstance(data, dict):
            raise GatewayError(
                f"Braintree answered {response.status_code} without a usable result",
                gateway=NAME,
                gateway_request_id=self.request_id,
            )
        return data

    def _raise_for(
        self, errors: list[dict[str, Any]], http_status: int, method: bool, recover: bool
    ) -> None:
        classes = {_text(_dict(e.get("extensions")).get("errorClass")) for e in errors}
        first = errors[0]
        extensions = _dict(first.get("extensions"))
        legacy_code = _text(extensions.get("legacyCode"))
        message = self._redact(_text(first.get("message")))
        request_id = self.request_id
        if classes & {"AUTHENTICATION", "AUTHORIZATION"}:
            raise GatewayCredentialsRejected(
                "Braintree rejected the merchant's API keys (or their role lacks the right);"
                " update them with PUT /api/merchant-accounts/{ref}/credentials/braintree",
                gateway=NAME,
                gateway_message=message,
                gateway_request_id=request_id,
            )
        if classes & {"RESOURCE_LIMIT", "SERVICE_AVAILABILITY", "INTERNAL"}:
            raise GatewayUnavailable(
                "Braintree could not process the request now; try again later",
                gateway=NAME,
                gateway_message=message,
                gateway_request_id=request_id,
            )
        input_path = [str(p) for p in _list(extensions.get("inputPath"))]
        if method and (
            legacy_code in _METHOD_CODES
            or "NOT_FOUND" in classes
            or (input_path and input_path[-1] == "paymentMethodId")
        ):
            raise PaymentMethodInvalid(
                "Braintree cannot use this payment method (unknown, already used or expired);"
                " collect it again",
                gateway=NAME,
                gateway_message=message,
                gateway_request_id=request_id,
            )
        if legacy_code and legacy_code.isdigit() and 2000 <= int(legacy_code) <= 3999:
            code = _decline_code("PROCESSOR_DECLINED", legacy_code, None)
            raise Declined(
                f"Braintree declined the payment ({code})",
                gateway=NAME,
                decline_code=code,
                gateway_message=message,
                gateway_request_id=request_id,
            )
        if "NOT_FOUND" in classes:
            raise GatewayError(
                "Braintree has no object with that reference",
                gateway=NAME,
                gateway_message=message,
                gateway_request_id=request_id,
            )
        error = GatewayError(
            f"Braintree refused the request (HTTP {http_status}, "
            f"{'/'.join(sorted(c for c in classes if c)) or 'error'}"
            f"{', code ' + legacy_code if legacy_code else ''})",
            gateway=NAME,
            gateway_message=message,
            gateway_request_id=request_id,
        )
        if recover and "VALIDATION" in classes:
            raise _Refused(error, legacy_code)
        raise error

    def _redact(self, text: str | None) -> str | None:
        """A gateway message made safe to show (kit policy; the token and secret hidden)."""
        return redact(text, self._sensitive)


# --- reading answers -----------------------------------------------------------------------


def _result(tx: dict[str, Any], request_id: str | None) -> GatewayResult:
    status = str(tx.get("status"))
    gateway_status = _STATUSES.get(status, GatewayStatus.PENDING)
    bank = _dict(tx.get("paymentMethodSnapshot")).get("__typename") == "UsBankAccountDetails"
    if bank and gateway_status is GatewayStatus.CAPTURED and status != "SETTLED":
        gateway_status = GatewayStatus.SUBMITTED  # an ACH debit on its way, not money yet
    amount = _money(tx.get("amount"))
    live = [_dict(r) for r in _list(tx.get("refunds")) if _dict(r).get("status") in _LIVE_REFUND]
    if live and sum((_money(r.get("amount")).amount for r in live), Decimal(0)) >= amount.amount:
        gateway_status = GatewayStatus.REFUNDED
    event = _event_for(tx)
    response = _dict(event.get("processorResponse"))
    legacy_code = _text(response.get("legacyCode"))
    decline_code = None
    if status in _FAILED:
        decline_code = _decline_code(
            status, legacy_code, _text(event.get("gatewayRejectionReason"))
        )
    return GatewayResult(
        reference=str(tx.get("id")),
        status=gateway_status,
        amount=amount,
        decline_code=decline_code,
        message=_text(response.get("message")),
        support=_support(request_id, status, legacy_code),
    )


def _refund_result(refund: dict[str, Any], request_id: str | None) -> GatewayResult:
    status = str(refund.get("status"))
    return GatewayResult(
        reference=str(refund.get("id")),
        status=GatewayStatus.DECLINED if status in _FAILED else GatewayStatus.REFUNDED,
        amount=_money(refund.get("amount")),
        support=_support(request_id, status, None),
    )


def _declined(tx: dict[str, Any], event: dict[str, Any], request_id: str | None) -> Declined:
    status = str(tx.get("status"))
    response = _dict(event.get("processorResponse"))
    reason = _text(event.get("gatewayRejectionReason"))
    code = _decline_code(status, _text(response.get("legacyCode")), reason)
    return Declined(
        f"Braintree declined the payment ({code})",
        gateway=NAME,
        decline_code=code,
        gateway_message=_text(response.get("message")) or reason,
        gateway_request_id=request_id,
    )


def _decline_code(status: str, legacy_code: str | None, reason: str | None) -> str:
    if status == "FAILED" or (legacy_code or "").startswith("3"):
        return "processing_error"  # 3000: processor network unavailable, try again
    if status == "GATEWAY_REJECTED":
        return _REJECTIONS.get(reason or "", "generic_decline")
    # Braintree's 2xxx processor codes are its own, an overlay on the kit's decline table.
    return declines.decline_code(legacy_code, overlay=_PROCESSOR_DECLINES)


def _event_for(tx: dict[str, Any]) -> dict[str, Any]:
    """The newest status event for the transaction's status (the history is newest first)."""
    for event in _list(tx.get("statusHistory")):
        if _dict(event).get("status") == tx.get("status"):
            return _dict(event)
    return {}


def _support(request_id: str | None, status: str, legacy_code: str | None) -> dict[str, str]:
    support = {"braintreeStatus": status}
    if request_id:
        support["requestId"] = request_id
    if legacy_code:
        support["processorResponseCode"] = legacy_code
    return support


def _payload(data: dict[str, Any], field: str, key: str) -> dict[str, Any]:
    found = _dict(_dict(data.get(field)).get(key))
    if not found:
        raise GatewayError(f"Braintree answered {field} without a {key}", gateway=NAME)
    return found


# --- small conversions -----------------------------------------------------------------------


def _amount(money: Money) -> str:
    """Braintree's Amount scalar: a decimal string at the currency's precision, never a float."""
    return format(money.amount, "f")


def _money(value: Any) -> Money:
    amount = _dict(value)
    if not isinstance(amount.get("value"), str) or not isinstance(amount.get("currencyCode"), str):
        raise GatewayError("Braintree answered without an amount", gateway=NAME)
    return Money.of(amount["value"], amount["currencyCode"])


def _basic_auth(creds: GatewayCredentials) -> str:
    pair = f"{_public_key(creds)}:{creds.api_secret}".encode()
    return "Basic " + base64.b64encode(pair).decode("ascii")


def _public_key(creds: GatewayCredentials) -> str:
    public_key = creds.fields.get("publicKey", "").strip()
    if not public_key:
        raise GatewayCredentialsRejected(
            "the Braintree credentials have no publicKey; update them with"
            " PUT /api/merchant-accounts/{ref}/credentials/braintree",
            gateway=NAME,
        )
    return public_key


def _json(response: httpx.Response) -> dict[str, Any]:
    """The answer's JSON object; an unreadable one is ``unexpected`` (kit), as for every
    gateway: payhub never guesses at a body it cannot read, 200 or not."""
    return json_object(response.content, NAME)


_NUMBER = re.compile(r"^\d+$")


def _int(value: Any) -> int | None:
    return int(value) if isinstance(value, str) and _NUMBER.match(value) else None


def _text(value: Any) -> str | None:
    return str(value) if value is not None else None


def _dict(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty one: answers can hold nulls."""
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []
