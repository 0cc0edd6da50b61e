"""A fake of Braintree's GraphQL API for ``httpx.MockTransport``, written from the public reference.

It checks what the real API checks before doing anything: ``POST /graphql`` on the host of its
environment, ``Authorization: Basic base64(publicKey:privateKey)``, a ``Braintree-Version``
date, a JSON body ``{query, variables}``, the operation's declared variable type, and the
``input`` variables against the input types of the public schema
(https://github.com/braintree/graphql-api/blob/master/schema.graphql): an unknown or missing
input field is a GraphQL VALIDATION error, as it is for the real API. It keeps transactions,
refunds, customers and vaulted methods, so capture, refund, void and ``node`` behave; answers
have the real shapes (``data`` + ``errors[].extensions.errorClass/legacyCode/inputPath`` +
``extensions.requestId``). The selection set is not interpreted: every field the adapter may
ask for is returned.

Test values (Braintree's documented sandbox values where they exist,
https://developer.paypal.com/braintree/docs/reference/general/testing/python):

- ``fake-valid-nonce`` / ``fake-valid-visa-nonce``: a Visa ending 1111, expiring 12/2030;
  ``fake-valid-mastercard-nonce``: a Mastercard ending 4444.
- ``fake-processor-declined-visa-nonce``: processor declined, 2000 "Do Not Honor".
- ``fake-gateway-rejected-fraud-nonce``: gateway rejected, reason ``FRAUD``.
- ``fake-consumed-nonce``: already used (legacy code 91564); any other unknown nonce: 91565.
- Fake only (the sandbox has no fake ACH nonces; real ones come from ``tokenizeUsBankAccount``):
  ``fake-us-bank-account-nonce`` verifies with ``NETWORK_CHECK``;
  ``fake-us-bank-account-unverifiable-nonce`` fails verification.
- Amounts, as in the sandbox: 2000.00-2999.99 processor declined with that code (2001
  insufficient funds, 2004 expired card, 2010 CVV ...); 3000.00-3000.99 failed, 3000;
  5001.00 gateway rejected, ``APPLICATION_INCOMPLETE``.
- Credentials: ``PUBLIC_KEY`` / ``PRIVATE_KEY``. Merchant accounts: ``fakemerchant_usd``
  (USD, default) and ``fakemerchant_jpy`` (JPY).
- Duplicate checking is on, as by default: the same amount, payment method and order ID as an
  earlier successful transaction is gateway rejected as ``DUPLICATE`` with ``duplicateOf``.

Faults: ``fail_next(500)`` answers the next request with that status, ``timeout_next()``
raises ``httpx.ReadTimeout`` before anything happens, ``lose_next_answer()`` after the request
was processed, ``forbid("refundTransaction")`` answers that field with an
``AUTHORIZATION`` error (HTTP 200), as for an API key whose role lacks the right.
``settle(id)`` does what the sandbox's ``sandboxSettleTransaction`` does.
Every document first passes ``tests/gateways/braintree/contract`` (graphql-core: it parses,
defines only fragments and variables it uses, …); one that does not is answered as Braintree
answers invalid GraphQL (HTTP 200, ``errors`` with ``errorClass: VALIDATION``, no ``data``) and
kept in ``violations``.
Guesses (not published): the bodies of 401 and missing-version answers, and the texts of
errors the reference does not spell out.
"""

from __future__ import annotations

import base64
import itertools
import json
import re
from decimal import Decimal, InvalidOperation
from typing import Any

import httpx

from tests.gateways.braintree.contract.validator import validate_document
from tests.gateways.contracts import ContractViolation

PUBLIC_KEY = "fake_public_key"
PRIVATE_KEY = "fake_private_key_0123456789abcdef"
MERCHANT_ID = "fakemerchant"
HOSTS = {"sandbox": "payments.sandbox.braintree-api.com", "live": "payments.braintree-api.com"}

_CARDS = {
    "fake-valid-nonce": ("VISA", "1111", "411111"),
    "fake-valid-visa-nonce": ("VISA", "1111", "411111"),
    "fake-valid-mastercard-nonce": ("MASTERCARD", "4444", "555555"),
    "fake-processor-declined-visa-nonce": ("VISA", "0002", "400011"),
    "fake-gateway-rejected-fraud-nonce": ("VISA", "0019", "400011"),
}
_BANKS = {"fake-us-bank-account-nonce", "fake-us-bank-account-unverifiable-nonce"}
_DECLINE_TEXTS = {
    2000: "Do Not Honor",
    2001: "Insufficient Funds",
    2004: "Expired Card",
    2010: "Card Issuer Declined CVV",
    2014: "Processor Declined - Fraud Suspected",
    2046: "Declined",
}
_EXPONENTS = {"USD": 2, "JPY": 0}

# Input types of the public schema, as far as the adapter can reach them. "!" = required,
# "[T]" = list of T, "*" = accepted without a closer look (not used by payhub).
_INPUTS: dict[str, dict[str, str]] = {
    "ChargePaymentMethodInput": {
        "clientMutationId": "String",
        "paymentMethodId": "ID!",
        "transaction": "TransactionInput!",
    },
    "AuthorizePaymentMethodInput": {
        "clientMutationId": "String",
        "paymentMethodId": "ID!",
        "transaction": "TransactionInput!",
    },
    "ChargeUsBankAccountInput": {
        "clientMutationId": "String",
        "paymentMethodId": "ID!",
        "options": "ChargeUsBankAccountOptionsInput",
        "transaction": "TransactionInput!",
    },
    "ChargeUsBankAccountOptionsInput": {"standardEntryClassCode": "ACHStandardEntryClassCode"},
    "TransactionInput": {
        "amount": "Amount!",
        "merchantAccountId": "ID",
        "orderId": "String",
        "exchangeRateQuoteId": "ID",
        "purchaseOrderNumber": "String",
        "riskData": "*",
        "customFields": "*",
        "descriptor": "*",
        "recurring": "*",
        "paymentInitiator": "*",
        "channel": "String",
        "customerId": "ID",
        "shipping": "*",
        "tax": "*",
        "discountAmount": "String",
        "surchargeAmount": "String",
        "lineItems": "*",
        "threeDSecurePassThrough": "*",
        "vaultPaymentMethodAfterTransacting": "*",
        "customerDetails": "*",
        "processingOverrides": "*",
        "industry": "*",
    },
    "CaptureTransactionInput": {
        "clientMutationId": "String",
        "transactionId": "ID!",
        "amount": "Amount",
        "transaction": "CaptureTransactionOptionsInput",
    },
    "CaptureTransactionOptionsInput": {
        "amount": "Amount",
        "descriptor": "*",
        "discountAmount": "String",
        "lineItems": "*",
        "orderId": "String",
        "purchaseOrderNumber": "String",
        "shipping": "*",
        "tax": "*",
        "industry": "*",
    },
    "RefundTransactionInput": {
        "clientMutationId": "String",
        "transactionId": "ID!",
        "refund": "RefundInput",
    },
    "RefundInput": {
        "amount": "Amount",
        "orderId": "String",
        "merchantAccountId": "ID",
        "description": "String",
        "reason": "String",
        "lineItems": "*",
    },
    "ReverseTransactionInput": {"clientMutationId": "String", "transactionId": "ID!"},
    "CreateCustomerInput": {"clientMutationId": "String", "customer": "CustomerInput"},
    "CustomerInput": {
        "company": "String",
        "customFields": "*",
        "email": "String",
        "firstName": "String",
        "lastName": "String",
        "phoneNumber": "String",
        "fax": "String",
        "website": "String",
        "taxIdentifiers": "*",
    },
    "VaultPaymentMethodInput": {
        "clientMutationId": "String",
        "paymentMethodId": "ID!",
        "verificationMerchantAccountId": "ID",
        "verification": "*",
        "customerId": "ID",
        "threeDSecurePassThrough": "*",
        "threeDSecureAuthenticationId": "String",
        "riskData": "*",
        "makeDefault": "Boolean",
    },
    "VaultUsBankAccountInput": {
        "clientMutationId": "String",
        "paymentMethodId": "ID!",
        "verificationMerchantAccountId": "ID",
        "customerId": "ID",
        "verificationMethod": "UsBankAccountVerificationMethod!",
        "verificationAddOns": "[UsBankAccountVerificationAddOn]",
        "makeDefault": "Boolean",
    },
    "TransactionSearchInput": {
        "id": "SearchValueInput",
        "orderId": "SearchTextInput",
        "status": "*",
        "createdAt": "*",
        "amount": "*",
        "customer": "*",
        "merchantAccountId": "*",
        "paymentMethod": "*",
    },
    "SearchValueInput": {"is": "String", "in": "[String]"},
    "SearchTextInput": {
        "is": "String",
        "isNot": "String",
        "startsWith": "String",
        "endsWith": "String",
        "contains": "String",
    },
}
_ENUMS = {
    "ACHStandardEntryClassCode": {"CCD", "PPD", "TEL", "WEB"},
    "UsBankAccountVerificationMethod": {
        "INDEPENDENT_CHECK",
        "MICRO_TRANSFERS",
        "NETWORK_CHECK",
        "TOKENIZED_CHECK",
    },
    "UsBankAccountVerificationAddOn": {"CUSTOMER_VERIFICATION"},
}
# Root field -> (operation kind, input type of $input or None, whether $input is required).
_ROOTS: dict[str, tuple[str, str | None, bool]] = {
    "chargePaymentMethod": ("mutation", "ChargePaymentMethodInput", True),
    "authorizePaymentMethod": ("mutation", "AuthorizePaymentMethodInput", True),
    "chargeUsBankAccount": ("mutation", "ChargeUsBankAccountInput", True),
    "captureTransaction": ("mutation", "CaptureTransactionInput", True),
    "refundTransaction": ("mutation", "RefundTransactionInput", True),
    "reverseTransaction": ("mutation", "ReverseTransactionInput", True),
    "createCustomer": ("mutation", "CreateCustomerInput", False),
    "vaultPaymentMethod": ("mutation", "VaultPaymentMethodInput", True),
    "vaultUsBankAccount": ("mutation", "VaultUsBankAccountInput", True),
    "node": ("query", None, False),
    "search": ("query", "TransactionSearchInput", True),
    "viewer": ("query", None, False),
}
_AMOUNT = re.compile(r"^\d+(\.\d{2,3})?$")
_VERSION = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_OPERATION = re.compile(r"^\s*(mutation|query)\b\s*\w*\s*(\(([^)]*)\))?\s*\{\s*(\w+)")
_FAILED = {"PROCESSOR_DECLINED", "GATEWAY_REJECTED", "FAILED"}


class _Invalid(Exception):
    """A variable that does not fit the schema: the request is not executed."""

    def __init__(self, message: str, path: list[str]) -> None:
        super().__init__(message)
        self.path = path


class _Refusal(Exception):
    """A business error: the field resolves to null with an error in ``errors``."""

    def __init__(
        self,
        message: str,
        *,
        error_class: str = "VALIDATION",
        legacy_code: str | None = None,
        input_path: list[str] | None = None,
    ) -> None:
        super().__init__(message)
        self.extensions: dict[str, Any] = {"errorClass": error_class}
        if legacy_code:
            self.extensions["legacyCode"] = legacy_code
        if input_path:
            self.extensions["inputPath"] = input_path


def _gid(kind: str, legacy: str) -> str:
    """A global ID as Braintree makes them: base64 of ``<type>_<legacy id>``."""
    return base64.b64encode(f"{kind}_{legacy}".encode()).decode().rstrip("=")


class FakeBraintree:
    """An in-memory Braintree; ``handler`` is the ``httpx.MockTransport`` handler."""

    def __init__(self, environment: str = "sandbox") -> None:
        self.host = HOSTS[environment]
        self.requests: list[httpx.Request] = []
        self.violations: list[str] = []
        self.transactions: dict[str, dict[str, Any]] = {}
        self.refunds: dict[str, dict[str, Any]] = {}
        self.customers: dict[str, dict[str, Any]] = {}
        self.methods: dict[str, dict[str, Any]] = {}
        self.consumed: set[str] = {"fake-consumed-nonce"}
        self.merchant_accounts = [
            {
                "id": "fakemerchant_usd",
                "currencyCode": "USD",
                "isDefault": True,
                "status": "ACTIVE",
            },
            {
                "id": "fakemerchant_jpy",
                "currencyCode": "JPY",
                "isDefault": False,
                "status": "ACTIVE",
            },
        ]
        self._ids = itertools.count(1)
        self._failures: list[int] = []
        self._timeouts = 0
        self._lost = 0
        self._forbidden: set[str] = set()

    # --- test controls ---------------------------------------------------------------------

    def fail_next(self, status: int = 500) -> None:
        self._failures.append(status)

    def timeout_next(self) -> None:
        self._timeouts += 1

    def lose_next_answer(self) -> None:
        """Process the next request, then time out as if the answer were lost on the way."""
        self._lost += 1

    def forbid(self, field: str) -> None:
        self._forbidden.add(field)

    def settle(self, transaction_id: str) -> None:
        tx = self.transactions[transaction_id]
        assert tx["status"] in ("SUBMITTED_FOR_SETTLEMENT", "SETTLING"), tx["status"]
        self._move(tx, "SETTLED", "SettledEvent")

    def calls(self, field: str | None = None) -> list[dict[str, Any]]:
        """The JSON bodies received (for one root field), oldest first."""
        bodies = [json.loads(r.content) for r in self.requests if r.content]
        if field is None:
            return bodies
        return [b for b in bodies if _root(b.get("query", "")) == field]

    # --- the transport ---------------------------------------------------------------------

    def handler(self, request: httpx.Request) -> httpx.Response:
        response = self._answer(request)
        if self._lost:
            self._lost -= 1
            raise httpx.ReadTimeout("fake: the answer was lost", request=request)
        return response

    def _answer(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if self._timeouts:
            self._timeouts -= 1
            raise httpx.ReadTimeout("fake: no answer", request=request)
        if self._failures:
            return httpx.Response(self._failures.pop(0), text="<html>Server Error</html>")
        if request.method != "POST" or request.url.path != "/graphql":
            return httpx.Response(404, text="Not Found")
        request_id = f"fake-request-{next(self._ids)}"
        if request.url.host != self.host or not self._authorized(request):
            return httpx.Response(
                401,
                json={
                    "errors": [
                        {
                            "message": "Authentication credentials are invalid",
                            "extensions": {"errorClass": "AUTHENTICATION"},
                        }
                    ],
                    "extensions": {"requestId": request_id},
                },
            )
        if not _VERSION.match(request.headers.get("braintree-version", "")):
            return _errors(400, request_id, "Braintree-Version header must be a date, YYYY-MM-DD")
        if not request.headers.get("content-type", "").startswith("application/json"):
            return _errors(400, request_id, "The request body must be JSON")
        try:
            body = json.loads(request.content)
        except ValueError:
            return _errors(400, request_id, "The request body must be JSON")
        query = body.get("query") if isinstance(body, dict) else None
        variables = body.get("variables") or {}
        if not isinstance(query, str) or not isinstance(variables, dict):
            return _errors(400, request_id, "A query string and a variables object are required")
        try:
            validate_document(query, variables)
        except ContractViolation as violation:
            self.violations.append(str(violation))
            return _errors(200, request_id, str(violation))
        try:
            field = self._check_document(query, variables)
        except _Invalid as invalid:
            return _errors(200, request_id, str(invalid), input_path=invalid.path)
        if field in self._forbidden:
            return _field_error(
                request_id,
                field,
                _Refusal(
                    "User does not have the required permissions.", error_class="AUTHORIZATION"
                ),
            )
        try:
            data = getattr(self, f"_do_{field}")(variables)
        except _Refusal as refusal:
            return _field_error(request_id, field, refusal)
        return httpx.Response(
            200, json={"data": {field: data}, "extensions": {"requestId": request_id}}
        )

    def _authorized(self, request: httpx.Request) -> bool:
        scheme, _, encoded = request.headers.get("authorization", "").partition(" ")
        if scheme != "Basic":
            return False
        try:
            pair = base64.b64decode(encoded, validate=True).decode()
        except ValueError:
            return False
        return pair == f"{PUBLIC_KEY}:{PRIVATE_KEY}"

    def _check_document(self, query: str, variables: dict[str, Any]) -> str:
        """The root field, once the document and its variables fit the schema."""
        match = _OPERATION.match(query)
        if match is None or query.count("{") != query.count("}"):
            raise _Invalid("Invalid Syntax: the document could not be parsed", [])
        kind, declared, field = match.group(1), match.group(3) or "", match.group(4)
        if field not in _ROOTS or _ROOTS[field][0] != kind:
            raise _Invalid(f"Field '{field}' in type '{kind.title()}' is undefined", [])
        for spread in re.findall(r"\.\.\.\s*(?!on\b)(\w+)", query):
            if not re.search(rf"fragment\s+{spread}\s+on\s+\w+", query):
                raise _Invalid(f"Undefined fragment {spread}", [])
        declarations = dict(re.findall(r"\$(\w+)\s*:\s*([\w!\[\]]+)", declared))
        _, input_type, required = _ROOTS[field]
        if field == "node" and declarations.get("id") != "ID!":
            raise _Invalid("node needs $id: ID!", [])
        if input_type is not None:
            wanted = {f"{input_type}!"} | (set() if required else {input_type})
            if declarations.get("input") not in wanted:
                raise _Invalid(f"Variable 'input' must be declared as {input_type}!", [])
            if "input" not in variables and required:
                raise _Invalid("Variable 'input' has coerced Null value for NonNull type", [])
            if variables.get("input") is not None:
                _check_value(input_type, variables["input"], ["input"])
        return field

    # --- transactions ------------------------------------------------------------------------

    def _do_chargePaymentMethod(self, variables: dict[str, Any]) -> dict[str, Any]:
        return self._transact(variables["input"], capture=True, bank_only=False)

    def _do_authorizePaymentMethod(self, variables: dict[str, Any]) -> dict[str, Any]:
        return self._transact(variables["input"], capture=False, bank_only=False)

    def _do_chargeUsBankAccount(self, variables: dict[str, Any]) -> dict[str, Any]:
        return self._transact(variables["input"], capture=True, bank_only=True)

    def _transact(self, given: dict[str, Any], *, capture: bool, bank_only: bool) -> dict[str, Any]:
        spec = given["transaction"]
        account = self._account(spec.get("merchantAccountId"))
        amount = _parse_amount(spec["amount"], account["currencyCode"], ["input", "transaction"])
        method = self._use_method(given["paymentMethodId"])
        if method["kind"] == "bank":
            if not method.get("verified"):
                raise _Refusal(
                    "US bank account payment method must be vaulted and verified before"
                    " transacting.",
                    input_path=["input", "paymentMethodId"],
                )
            if not capture:
                raise _Refusal(
                    "US bank account transactions cannot be authorized without settlement.",
                    input_path=["input", "paymentMethodId"],
                )
        elif bank_only:
            raise _Refusal(
                "Payment method is not a US bank account.", input_path=["input", "paymentMethodId"]
            )
        order_id = spec.get("orderId")
        tx = self._new_transaction(amount, account, order_id, method)
        original = next(
            (
                t
                for t in self.transactions.values()
                if order_id
                and t["orderId"] == order_id
                and t["_amount"] == amount
                and t["_method"] == given["paymentMethodId"]
                and t["status"] not in _FAILED
            ),
            None,
        )
        self.transactions[tx["id"]] = tx
        tx["_method"] = given["paymentMethodId"]
        outcome = _outcome(amount, method.get("nonce"))
        if original is not None:
            self._move(
                tx,
                "GATEWAY_REJECTED",
                "GatewayRejectedEvent",
                gatewayRejectionReason="DUPLICATE",
                duplicateOf=_public(original, self),
            )
        elif outcome is not None:
            status, typename, extra = outcome
            self._move(tx, status, typename, **extra)
        else:
            self._move(tx, "AUTHORIZED", "AuthorizedEvent", processorResponse=_approved())
            if capture:
                self._move(tx, "SUBMITTED_FOR_SETTLEMENT", "SubmittedForSettlementEvent")
        return {"clientMutationId": given.get("clientMutationId"), "transaction": _public(tx, self)}

    def _do_captureTransaction(self, variables: dict[str, Any]) -> dict[str, Any]:
        given = variables["input"]
        tx = self._transaction(given["transactionId"])
        if tx["status"] != "AUTHORIZED":
            raise _Refusal(
                "Cannot submit for settlement unless status is authorized.", legacy_code="91507"
            )
        raw = (given.get("transaction") or {}).get("amount") or given.get("amount")
        amount = (
            tx["_amount"]
            if raw is None
            else _parse_amount(raw, tx["amount"]["currencyCode"], ["input", "transaction"])
        )
        if amount > tx["_amount"]:
            raise _Refusal("Settlement amount is too large.", legacy_code="91522")
        _set_amount(tx, amount)
        self._move(tx, "SUBMITTED_FOR_SETTLEMENT", "SubmittedForSettlementEvent")
        return {"clientMutationId": given.get("clientMutationId"), "transaction": _public(tx, self)}

    def _do_refundTransaction(self, variables: dict[str, Any]) -> dict[str, Any]:
        given = variables["input"]
        tx = self._transaction(given["transactionId"])
        if tx["status"] not in ("SETTLED", "SETTLING"):
            raise _Refusal("Cannot refund transaction unless it is settled.", legacy_code="91506")
        spec = given.get("refund") or {}
        remaining = tx["_amount"] - sum(
            (self.refunds[r]["_amount"] for r in tx["_refunds"]), Decimal(0)
        )
        raw = spec.get("amount")
        amount = (
            remaining
            if raw is None
            else _parse_amount(raw, tx["amount"]["currencyCode"], ["input", "refund"])
        )
        if amount > remaining:
            raise _Refusal("Refund amount is too large.", legacy_code="91521")
        refund = self._new_refund(tx, amount, spec.get("orderId") or tx["orderId"])
        return {"clientMutationId": given.get("clientMutationId"), "refund": _public(refund, self)}

    def _do_reverseTransaction(self, variables: dict[str, Any]) -> dict[str, Any]:
        given = variables["input"]
        tx = self._transaction(given["transactionId"])
        if tx["status"] in ("AUTHORIZED", "SUBMITTED_FOR_SETTLEMENT"):
            self._move(tx, "VOIDED", "VoidedEvent")
            reversal = _public(tx, self)
        elif tx["status"] in ("SETTLED", "SETTLING") and not tx["_refunds"]:
            reversal = _public(self._new_refund(tx, tx["_amount"], tx["orderId"]), self)
        else:
            raise _Refusal(
                "Transaction can only be voided if status is authorized,"
                " submitted_for_settlement, or - for PayPal - settlement_pending.",
                legacy_code="91504",
            )
        return {"clientMutationId": given.get("clientMutationId"), "reversal": reversal}

    # --- vault -------------------------------------------------------------------------------

    def _do_createCustomer(self, variables: dict[str, Any]) -> dict[str, Any]:
        given = variables.get("input") or {}
        customer_id = _gid("customer", f"{next(self._ids):08x}")
        self.customers[customer_id] = {"id": customer_id, **(given.get("customer") or {})}
        return {
            "clientMutationId": given.get("clientMutationId"),
            "customer": self.customers[customer_id],
        }

    def _do_vaultPaymentMethod(self, variables: dict[str, Any]) -> dict[str, Any]:
        given = variables["input"]
        self._check_customer(given.get("customerId"))
        method = self._use_method(given["paymentMethodId"], vaulted_ok=False)
        if method["kind"] != "card":
            raise _Refusal(
                "Use vaultUsBankAccount to vault a US bank account.",
                input_path=["input", "paymentMethodId"],
            )
        if method["nonce"] == "fake-processor-declined-visa-nonce":
            verification = _verification("PROCESSOR_DECLINED", "2000")
            return _vault_payload(given, None, verification)
        saved = self._save(method, "cc", given.get("customerId"), verified=True)
        return _vault_payload(given, saved, _verification("VERIFIED", "1000"))

    def _do_vaultUsBankAccount(self, variables: dict[str, Any]) -> dict[str, Any]:
        given = variables["input"]
        self._check_customer(given.get("customerId"))
        method = self._use_method(given["paymentMethodId"], vaulted_ok=False)
        if method["kind"] != "bank":
            raise _Refusal(
                "Payment method is not a US bank account.", input_path=["input", "paymentMethodId"]
            )
        unverifiable = method["nonce"] == "fake-us-bank-account-unverifiable-nonce"
        if given["verificationMethod"] == "MICRO_TRANSFERS":
            status = "PENDING"
        else:
            status = "PROCESSOR_DECLINED" if unverifiable else "VERIFIED"
        saved = self._save(method, "us", given.get("customerId"), verified=status == "VERIFIED")
        code = "2046" if status == "PROCESSOR_DECLINED" else "1000"
        return _vault_payload(given, saved, _verification(status, code))

    # --- queries -----------------------------------------------------------------------------

    def _do_node(self, variables: dict[str, Any]) -> dict[str, Any]:
        found = self.transactions.get(variables["id"]) or self.refunds.get(variables["id"])
        if found is None:
            raise _Refusal("An object with this ID was not found.", error_class="NOT_FOUND")
        return _public(found, self)

    def _do_search(self, variables: dict[str, Any]) -> dict[str, Any]:
        wanted = ((variables["input"].get("orderId")) or {}).get("is")
        found = [t for t in self.transactions.values() if wanted and t["orderId"] == wanted]
        edges = [{"node": _public(t, self)} for t in reversed(found)]
        return {"transactions": {"edges": edges, "pageInfo": {"hasNextPage": False}}}

    def _do_viewer(self, variables: dict[str, Any]) -> dict[str, Any]:
        edges = [{"node": dict(a)} for a in self.merchant_accounts]
        return {"merchant": {"id": MERCHANT_ID, "merchantAccounts": {"edges": edges}}}

    # --- state -------------------------------------------------------------------------------

    def _account(self, account_id: str | None) -> dict[str, Any]:
        for account in self.merchant_accounts:
            if account["id"] == account_id or (account_id is None and account["isDefault"]):
                return account
        raise _Refusal(
            "Merchant account ID is invalid.",
            legacy_code="91513",
            input_path=["input", "transaction", "merchantAccountId"],
        )

    def _use_method(self, method_id: str, *, vaulted_ok: bool = True) -> dict[str, Any]:
        """A vaulted method, or a single-use nonce, which this use consumes."""
        if vaulted_ok and method_id in self.methods:
            return self.methods[method_id]
        path = ["input", "paymentMethodId"]
        if method_id in self.consumed:
            raise _Refusal(
                "Cannot use a payment_method_nonce more than once.",
                legacy_code="91564",
                input_path=path,
            )
        if method_id in _CARDS:
            brand, last4, bin_ = _CARDS[method_id]
            self.consumed.add(method_id)
            return {"kind": "card", "nonce": method_id, "brand": brand, "last4": last4, "bin": bin_}
        if method_id in _BANKS:
            self.consumed.add(method_id)
            return {"kind": "bank", "nonce": method_id, "verified": False}
        raise _Refusal(
            "Unknown or expired payment_method_nonce.", legacy_code="91565", input_path=path
        )

    def _check_customer(self, customer_id: str | None) -> None:
        if customer_id is not None and customer_id not in self.customers:
            raise _Refusal(
                "Customer ID is invalid.", legacy_code="93105", input_path=["input", "customerId"]
            )

    def _save(
        self, method: dict[str, Any], prefix: str, customer_id: str | None, *, verified: bool
    ) -> dict[str, Any]:
        method_id = _gid("paymentmethod", f"{prefix}_{next(self._ids):06x}")
        saved = {**method, "id": method_id, "customer": customer_id, "verified": verified}
        self.methods[method_id] = saved
        return saved

    def _transaction(self, transaction_id: str) -> dict[str, Any]:
        if transaction_id not in self.transactions:
            raise _Refusal("An object with this ID was not found.", error_class="NOT_FOUND")
        return self.transactions[transaction_id]

    def _new_transaction(
        self,
        amount: Decimal,
        account: dict[str, Any],
        order_id: str | None,
        method: dict[str, Any],
    ) -> dict[str, Any]:
        legacy = f"{next(self._ids):08x}"
        tx: dict[str, Any] = {
            "__typename": "Transaction",
            "id": _gid("transaction", legacy),
            "legacyId": legacy,
            "orderId": order_id,
            "status": None,
            "merchantAccountId": account["id"],
            "statusHistory": [],
            "paymentMethodSnapshot": _snapshot(method),
            "_refunds": [],
        }
        tx["amount"] = {"value": "0", "currencyCode": account["currencyCode"]}
        _set_amount(tx, amount)
        return tx

    def _new_refund(self, tx: dict[str, Any], amount: Decimal, order_id: str) -> dict[str, Any]:
        legacy = f"{next(self._ids):08x}"
        refund: dict[str, Any] = {
            "__typename": "Refund",
            "id": _gid("refund", legacy),
            "legacyId": legacy,
            "orderId": order_id,
            "status": "SUBMITTED_FOR_SETTLEMENT",
            "amount": {"value": "0", "currencyCode": tx["amount"]["currencyCode"]},
            "refundedTransaction": {"id": tx["id"]},
        }
        _set_amount(refund, amount)
        self.refunds[refund["id"]] = refund
        tx["_refunds"].append(refund["id"])
        return refund

    def _move(self, tx: dict[str, Any], status: str, typename: str, **extra: Any) -> None:
        tx["status"] = status
        event = {"__typename": typename, "status": status, "amount": dict(tx["amount"]), **extra}
        tx["statusHistory"].insert(0, event)  # newest first, as the API returns them


# --- helpers ---------------------------------------------------------------------------------


def _root(query: str) -> str | None:
    match = _OPERATION.match(query)
    return match.group(4) if match else None


def _check_value(type_name: str, value: Any, path: list[str]) -> None:
    """Coerce ``value`` to ``type_name`` the way GraphQL does, or raise ``_Invalid``."""
    required = type_name.endswith("!")
    base = type_name.rstrip("!")
    if value is None:
        if required:
            raise _Invalid(f"Variable 'input' has an invalid value: {base} is required", path)
        return
    if base == "*":
        return
    if base.startswith("["):
        items = value if isinstance(value, list) else [value]
        for item in items:
            _check_value(base[1:-1], item, path)
        return
    if base in _INPUTS:
        _check_object(base, value, path)
        return
    if base in _ENUMS:
        if value not in _ENUMS[base]:
            raise _Invalid(f"Variable 'input' has an invalid value: not a {base}", path)
        return
    ok = {
        "String": isinstance(value, str),
        "ID": isinstance(value, str | int) and not isinstance(value, bool),
        "Boolean": isinstance(value, bool),
        "Amount": (isinstance(value, str) and bool(_AMOUNT.match(value)))
        or (isinstance(value, int | float) and not isinstance(value, bool)),
    }.get(base, False)
    if not ok:
        raise _Invalid(f"Variable 'input' has an invalid value: not a valid '{base}'", path)


def _check_object(type_name: str, value: Any, path: list[str]) -> None:
    fields = _INPUTS[type_name]
    if not isinstance(value, dict):
        raise _Invalid(
            f"Variable 'input' has an invalid value: {type_name} must be an object", path
        )
    for name in value:
        if name not in fields:
            raise _Invalid(
                "Variable 'input' has an invalid value: The variables input contains a field"
                f" name '{name}' that is not defined for input object type '{type_name}'",
                [*path, name],
            )
    for name, field_type in fields.items():
        _check_value(field_type, value.get(name), [*path, name])


def _parse_amount(raw: Any, currency: str, path: list[str]) -> Decimal:
    try:
        amount = Decimal(str(raw))
    except InvalidOperation:
        amount = Decimal(-1)
    exponent = amount.as_tuple().exponent
    decimals = -exponent if isinstance(exponent, int) and exponent < 0 else 0
    if amount <= 0:
        raise _Refusal(
            "Amount must be greater than zero.", legacy_code="81531", input_path=[*path, "amount"]
        )
    if decimals > _EXPONENTS[currency]:
        raise _Refusal(
            "Amount is an invalid format.", legacy_code="81503", input_path=[*path, "amount"]
        )
    return amount


def _set_amount(record: dict[str, Any], amount: Decimal) -> None:
    currency = record["amount"]["currencyCode"]
    quantum = Decimal(1).scaleb(-_EXPONENTS[currency])
    record["_amount"] = amount
    record["amount"] = {"value": format(amount.quantize(quantum), "f"), "currencyCode": currency}


def _outcome(amount: Decimal, nonce: str | None) -> tuple[str, str, dict[str, Any]] | None:
    """The sandbox's scripted outcomes (by nonce, then by amount), or None for approved."""
    if nonce == "fake-processor-declined-visa-nonce":
        return "PROCESSOR_DECLINED", "ProcessorDeclinedEvent", _declined_extra(2000)
    if nonce == "fake-gateway-rejected-fraud-nonce":
        return (
            "GATEWAY_REJECTED",
            "GatewayRejectedEvent",
            {"gatewayRejectionReason": "FRAUD", "processorResponse": None, "duplicateOf": None},
        )
    if Decimal(2000) <= amount < Decimal(3000):
        return "PROCESSOR_DECLINED", "ProcessorDeclinedEvent", _declined_extra(int(amount))
    if Decimal(3000) <= amount < Decimal(3001):
        return (
            "FAILED",
            "FailedEvent",
            {
                "processorResponse": {
                    "legacyCode": "3000",
                    "message": "Processor Network Unavailable - Try Again",
                }
            },
        )
    if amount == Decimal(5001):
        return (
            "GATEWAY_REJECTED",
            "GatewayRejectedEvent",
            {
                "gatewayRejectionReason": "APPLICATION_INCOMPLETE",
                "processorResponse": None,
                "duplicateOf": None,
            },
        )
    return None


def _declined_extra(code: int) -> dict[str, Any]:
    return {
        "declineType": "HARD" if code in (2004, 2014) else "SOFT",
        "processorResponse": {
            "legacyCode": str(code),
            "message": _DECLINE_TEXTS.get(code, "Processor Declined"),
        },
    }


def _approved() -> dict[str, Any]:
    return {"legacyCode": "1000", "message": "Approved"}


def _snapshot(method: dict[str, Any]) -> dict[str, Any]:
    if method["kind"] == "bank":
        return {
            "__typename": "UsBankAccountDetails",
            "bankName": "FAKE BANK",
            "last4": "0000",
            "verified": method.get("verified", False),
        }
    return {
        "__typename": "CreditCardDetails",
        "brandCode": method["brand"],
        "last4": method["last4"],
        "bin": method["bin"],
        "expirationMonth": "12",
        "expirationYear": "2030",
    }


def _verification(status: str, code: str) -> dict[str, Any]:
    return {
        "status": status,
        "gatewayRejectionReason": None,
        "processorResponse": {
            "legacyCode": code,
            "message": _DECLINE_TEXTS.get(int(code), "Approved" if code == "1000" else "Declined"),
        },
    }


def _vault_payload(
    given: dict[str, Any], saved: dict[str, Any] | None, verification: dict[str, Any]
) -> dict[str, Any]:
    method = None
    if saved is not None:
        method = {"id": saved["id"], "usage": "MULTI_USE", "details": _snapshot(saved)}
    return {
        "clientMutationId": given.get("clientMutationId"),
        "paymentMethod": method,
        "verification": verification,
    }


def _public(record: dict[str, Any], fake: FakeBraintree) -> dict[str, Any]:
    """The API's view of a stored record: private fields dropped, refunds resolved."""
    view = {k: v for k, v in record.items() if k.startswith("__") or not k.startswith("_")}
    if record.get("__typename") == "Transaction":
        view["refunds"] = [_public(fake.refunds[r], fake) for r in record["_refunds"]]
    return view


def _errors(
    http_status: int, request_id: str, message: str, input_path: list[str] | None = None
) -> httpx.Response:
    extensions: dict[str, Any] = {"errorClass": "VALIDATION"}
    if input_path:
        extensions["inputPath"] = input_path
    return httpx.Response(
        http_status,
        json={
            "errors": [{"message": message, "extensions": extensions}],
            "extensions": {"requestId": request_id},
        },
    )


def _field_error(request_id: str, field: str, refusal: _Refusal) -> httpx.Response:
    return httpx.Response(
        200,
        json={
            "data": {field: None},
            "errors": [
                {
                    "message": str(refusal),
                    "locations": [{"line": 2, "column": 3}],
                    "path": [field],
                    "extensions": refusal.extensions,
                }
            ],
            "extensions": {"requestId": request_id},
        },
    )
