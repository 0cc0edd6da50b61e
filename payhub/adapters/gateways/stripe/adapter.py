"""Stripe, spoken through its public REST API: PaymentIntents, Refunds, Customers,
PaymentMethods and SetupIntents over httpx.

API version pinned: ``STRIPE_VERSION`` (sent as ``Stripe-Version`` on every call, so the
account's default version never changes what we send or parse). References relied on:

- Authentication, form-encoded requests, JSON answers: https://docs.stripe.com/api
- Versioning: https://docs.stripe.com/api-versions, https://docs.stripe.com/changelog/clover
- Errors (type/code/decline_code/param, HTTP 402 for declines): https://docs.stripe.com/api/errors,
  https://docs.stripe.com/declines/codes, https://docs.stripe.com/error-codes
- Idempotency (``Idempotency-Key``, 255 characters, replays the saved answer, refuses a key
  reused with other parameters): https://docs.stripe.com/api/idempotent_requests
- PaymentIntents create/capture/cancel/retrieve:
  https://docs.stripe.com/api/payment_intents/create?api-version=2025-10-29.clover,
  https://docs.stripe.com/api/payment_intents/capture, https://docs.stripe.com/api/payment_intents/cancel,
  https://docs.stripe.com/api/payment_intents/retrieve
- Refunds: https://docs.stripe.com/api/refunds/create
- Customers and attach: https://docs.stripe.com/api/customers/create,
  https://docs.stripe.com/api/payment_methods/attach?api-version=2025-09-30.clover
- SetupIntents (saving bank accounts, mandate_data): https://docs.stripe.com/api/setup_intents/create,
  https://docs.stripe.com/payments/ach-direct-debit/set-up-payment
- ACH Direct Debit (``us_bank_account``, ``processing`` until settled, mandates, offline
  acceptance for payments authorised outside Stripe's pages):
  https://docs.stripe.com/payments/ach-direct-debit/accept-a-payment?payment-ui=direct-api,
  https://stripe.com/docs/payments/ach-debit/migrations
- Amounts in Stripe's minor units, its zero-decimal list and special cases (ISK, three-decimal
  currencies): https://docs.stripe.com/currencies,
  https://support.stripe.com/questions/deprecation-of-fractional-isk-charges-and-refunds

Choices a reader must know:

- One host for both modes; the key decides. ``creds.sandbox`` is checked against the key's
  prefix (``sk_test_``/``rk_test_`` vs ``sk_live_``/``rk_live_``) before anything is sent, so a
  sandbox account can never move real money, nor a live one pretend.
- Cards are confirmed in the same call (``confirm=true``). A fresh token carries
  ``error_on_requires_action=true`` and a saved method ``off_session=true``: payhub has no
  3-D Secure round-trip on the server, so a card that wants authentication fails as a decline
  instead of hanging in ``requires_action``.
- ACH needs a mandate. A debit the payer authorized on payhub's pay page carries the
  acceptance (``PaymentSource.authorization``: when, from which address and browser) and is
  sent as Stripe's ``online`` acceptance; a debit from the API, whose caller took the
  authorization itself, and ``SaveMethodRequest`` carry no payer address, so those are sent as
  ``offline`` acceptance. Fresh debits send ``mandate_data``; bank accounts are saved through a
  confirmed ``usage=off_session`` SetupIntent, which verifies the account and stores the
  multi-use mandate that later off-session debits use.
- A bank account still waiting for micro-deposit verification is refused as
  ``PaymentMethodInvalid`` and its PaymentIntent/SetupIntent cancelled, so a later verification
  by the payer cannot start a debit payhub does not know about.
- Cards are saved with ``POST /v1/payment_methods/{pm}/attach`` (a Stripe customer is created
  first when the payer has none, tagged with payhub's customer id).
- Every POST carries ``Idempotency-Key``: payhub's key for one-call operations and the key plus
  a step suffix for the calls of a multi-call operation, because Stripe refuses one key used on
  two different requests.

Every request is checked in the tests against the stripe package's param TypedDicts for the
pinned version (tests/gateways/stripe/contract). A refund answered ``pending`` (ACH, and
sometimes cards) comes back pending, and ``status`` reads the charge's refunds
(``expand[]=latest_charge.refunds``) to tell finished refunds from pending ones; a refund
answered ``failed``/``canceled`` at once is an error, never recorded as refunded.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import uuid
from collections.abc import Mapping
from decimal import Decimal
from typing import Any
from urllib.parse import quote, urlencode

import attrs
import httpx

from payhub.adapters.gateways.kit.answers import (
    credentials_rejected,
    json_object,
    require_text,
    unexpected,
)
from payhub.adapters.gateways.kit.http import GatewayHttp
from payhub.adapters.gateways.kit.http import opt_str as _opt_str
from payhub.adapters.gateways.kit.redaction import redact
from payhub.domain.debit_authorizations import DebitAuthorization
from payhub.domain.errors import ValidationError
from payhub.domain.money import Money, minor_unit_exponent
from payhub.domain.payments import (
    DECLINE_CODES,
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

API_BASE = "https://api.stripe.com/v1"
STRIPE_VERSION = "2025-10-29.clover"
GATEWAY = "stripe"

_PAYMENT_METHOD_TYPES = {MethodType.CARD: "card", MethodType.BANK_ACCOUNT: "us_bank_account"}

# Stripe's own minor units where they differ from ISO 4217 (https://docs.stripe.com/currencies).
_ZERO_DECIMAL = frozenset(
    {"BIF", "CLP", "DJF", "GNF", "JPY", "KMF", "KRW", "MGA", "PYG", "RWF", "UGX", "VND", "VUV"}
    | {"XAF", "XOF", "XPF"}
)
_SENT_WITH_TWO_DECIMALS = frozenset({"ISK"})  # zero-decimal in effect; amounts end in "00"
_THREE_DECIMAL = frozenset({"BHD", "JOD", "KWD", "OMR", "TND"})  # last digit must be 0

# The payer agreed to the ACH debit on payhub's pay page; see the module docstring.
_OFFLINE_MANDATE: dict[str, object] = {"customer_acceptance": {"type": "offline"}}


def _mandate(accepted: DebitAuthorization | None) -> dict[str, object]:
    """``online`` acceptance when the payer accepted on the pay page from a known address and
    browser (Stripe requires both), else ``offline``."""
    if accepted is None or not (accepted.ip_address and accepted.user_agent):
        return _OFFLINE_MANDATE
    return {
        "customer_acceptance": {
            "type": "online",
            "accepted_at": int(accepted.accepted_at.timestamp()),
            "online": {"ip_address": accepted.ip_address, "user_agent": accepted.user_agent},
        }
    }


_DECLINE_ALIASES = {
    "invalid_cvc": "incorrect_cvc",
    "lost_card": "fraudulent",
    "stolen_card": "fraudulent",
    "pickup_card": "fraudulent",
    "merchant_blacklist": "fraudulent",
    "try_again_later": "processing_error",
    "issuer_not_available": "processing_error",
    "reenter_transaction": "processing_error",
}
# Error codes that mean "these credentials cannot be used", whatever the HTTP status.
_CREDENTIAL_CODES = frozenset(
    {"api_key_expired", "platform_api_key_expired", "secret_key_required", "account_invalid"}
)
_PAYMENT_METHOD_PARAMS = frozenset({"payment_method", "source", "token"})
# Stripe's object ids and key fragments: blanked in any text it sends back (kit redaction).
_ID_LIKE = re.compile(r"\b(?:pm|tok|src|ba|card|seti|sk|rk|pk|cus)_[A-Za-z0-9_*]+")


@attrs.frozen
class _Answer:
    """A successful Stripe answer: its JSON object and what support staff may see."""

    body: dict[str, Any]
    status_code: int
    request_id: str | None
    replayed: bool

    def support(self, **extra: str | None) -> dict[str, str]:
        note = {"http_status": str(self.status_code)}
        if self.request_id:
            note["request_id"] = self.request_id
        if self.replayed:
            note["idempotent_replayed"] = "true"
        note.update({k: v for k, v in extra.items() if v})
        return note


class StripeGateway:
    """The ``Gateway`` port for Stripe (cards and ACH Direct Debit, fresh and vaulted)."""

    name = GATEWAY

    def __init__(self, client: httpx.Client | None = None) -> None:
        self.http = GatewayHttp(GATEWAY, client)

    # --- the port ----------------------------------------------------------------------

    def charge(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult:
        source = request.source
        kind = _payment_method_type(source.method_type)
        if kind == "us_bank_account":
            if not request.capture:
                raise ValueError("Stripe cannot authorize an ACH debit without capturing it")
            if request.amount.currency != "USD":
                raise ValidationError.for_field(
                    "amount.currency", "ACH Direct Debit through Stripe charges only USD"
                )
        params: dict[str, object] = {
            "amount": stripe_amount(request.amount),
            "currency": request.amount.currency.lower(),
            "confirm": True,
            "capture_method": "automatic" if request.capture else "manual",
            "payment_method_types": [kind],
            "description": request.description,
        }
        if source.token is not None:
            params["payment_method"] = source.token
            params["customer"] = source.gateway_customer_ref
            if kind == "card":
                params["error_on_requires_action"] = True
            else:
                params["mandate_data"] = _mandate(source.authorization)
        else:
            if source.gateway_customer_ref is None:
                raise ValueError("a saved Stripe payment method is charged with its customer")
            params["payment_method"] = source.saved_method_ref
            params["customer"] = source.gateway_customer_ref
            params["off_session"] = True
        answer = self._send(creds, "POST", "/payment_intents", params, request.idempotency_key)
        intent = answer.body
        status = require_text(intent, "status", GATEWAY)
        if status in ("requires_action", "requires_confirmation"):
            self._cancel_quietly(
                creds,
                f"/payment_intents/{_path(require_text(intent, 'id', GATEWAY))}/cancel",
                _derive_key(request.idempotency_key, "cancel"),
            )
            if kind == "us_bank_account":
                raise PaymentMethodInvalid(
                    "the bank account is not verified yet; collect it again with instant"
                    " verification",
                    gateway=GATEWAY,
                    gateway_request_id=answer.request_id,
                )
            raise Declined(
                "Stripe declined the payment: the card asks for authentication payhub cannot run",
                gateway=GATEWAY,
                decline_code="generic_decline",
                gateway_request_id=answer.request_id,
            )
        if status == "requires_payment_method":
            raise _declined_from(intent.get("last_payment_error"), answer.request_id)
        return _intent_result(answer)

    def capture(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        answer = self._send(
            creds,
            "POST",
            f"/payment_intents/{_path(reference)}/capture",
            {"amount_to_capture": stripe_amount(amount)},
            idempotency_key,
        )
        return _intent_result(answer)

    def refund(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        answer = self._send(
            creds,
            "POST",
            "/refunds",
            {"payment_intent": reference, "amount": stripe_amount(amount)},
            idempotency_key,
        )
        refund = answer.body
        status = require_text(refund, "status", GATEWAY)
        reason = refund.get("failure_reason")
        if status not in _REFUND_STATUSES:
            # failed or canceled at once: the refund did not happen, so it must not be recorded.
            raise GatewayError(
                f"Stripe did not refund ({status}"
                + (f": {reason})" if isinstance(reason, str) else ")"),
                gateway=GATEWAY,
                gateway_request_id=answer.request_id,
            )
        mapped = _REFUND_STATUSES[status]
        return GatewayResult(
            reference=require_text(refund, "id", GATEWAY),
            status=mapped,
            amount=money_from_stripe(
                _int(refund, "amount"), require_text(refund, "currency", GATEWAY)
            ),
            message=f"refund {status}" + (f": {reason}" if isinstance(reason, str) else ""),
            support=answer.support(stripe_status=status, payment_intent=reference),
        )

    def void(
        self, creds: GatewayCredentials, reference: str, idempotency_key: str
    ) -> GatewayResult:
        answer = self._send(
            creds, "POST", f"/payment_intents/{_path(reference)}/cancel", {}, idempotency_key
        )
        return _intent_result(answer)

    def status(self, creds: GatewayCredentials, reference: str) -> GatewayResult:
        answer = self._send(
            creds,
            "GET",
            f"/payment_intents/{_path(reference)}",
            # The charge's refunds tell a finished refund from one still pending (ACH).
            {"expand": ["latest_charge.refunds"]},
            None,
        )
        return _intent_result(answer)

    def save_payment_method(
        self, creds: GatewayCredentials, request: SaveMethodRequest
    ) -> SavedMethod:
        kind = _payment_method_type(request.method_type)
        base_key = request.idempotency_key or uuid.uuid4().hex
        customer = request.gateway_customer_ref
        if customer is None:
            created = self._send(
                creds,
                "POST",
                "/customers",
                {
                    "email": request.email,
                    "name": request.name,
                    "metadata": {"payhub_customer_id": request.customer_id},
                },
                _derive_key(base_key, "customer"),
            )
            customer = require_text(created.body, "id", GATEWAY)
        if kind == "card":
            attached = self._send(
                creds,
                "POST",
                f"/payment_methods/{_path(request.token)}/attach",
                {"customer": customer},
                _derive_key(base_key, "attach"),
                missing_is_method=True,
            )
            method = attached.body
        else:
            method = self._save_bank_account(creds, customer, request.token, base_key)
        return _saved_method(customer, request.method_type, method)

    # --- helpers -------------------------------------------------------------------------

    def _save_bank_account(
        self, creds: GatewayCredentials, customer: str, token: str, base_key: str
    ) -> dict[str, Any]:
        """Confirm a SetupIntent: it verifies the account and records a multi-use mandate."""
        answer = self._send(
            creds,
            "POST",
            "/setup_intents",
            {
                "customer": customer,
                "payment_method": token,
                "payment_method_types": ["us_bank_account"],
                "confirm": True,
                "usage": "off_session",
                "mandate_data": _OFFLINE_MANDATE,
                "expand": ["payment_method"],
            },
            _derive_key(base_key, "setup"),
        )
        intent = answer.body
        if require_text(intent, "status", GATEWAY) != "succeeded":
            self._cancel_quietly(
                creds,
                f"/setup_intents/{_path(require_text(intent, 'id', GATEWAY))}/cancel",
                _derive_key(base_key, "setup-cancel"),
            )
            raise PaymentMethodInvalid(
                "the bank account is not verified yet; collect it again with instant verification",
                gateway=GATEWAY,
                gateway_request_id=answer.request_id,
            )
        method = intent.get("payment_method")
        if not isinstance(method, dict):
            raise unexpected(GATEWAY, answer.request_id)
        return method

    def _cancel_quietly(self, creds: GatewayCredentials, path: str, key: str) -> None:
        """Best effort: the caller is already failing and reports its own error."""
        with contextlib.suppress(GatewayError):
            self._send(creds, "POST", path, {}, key)

    def _send(
        self,
        creds: GatewayCredentials,
        method: str,
        path: str,
        params: Mapping[str, object],
        idempotency_key: str | None,
        *,
        missing_is_method: bool = False,
    ) -> _Answer:
        """One call. ``missing_is_method``: a missing object in the path is the payer's token."""
        _check_key_mode(creds)
        headers = {
            "Authorization": f"Bearer {creds.api_secret}",
            "Stripe-Version": STRIPE_VERSION,
            "Accept": "application/json",
        }
        url = API_BASE + path
        pairs = form_pairs(params)
        if method == "GET":
            response = self.http.send(method, url, headers=headers, params=pairs)
        else:
            headers["Content-Type"] = "application/x-www-form-urlencoded"
            headers["Idempotency-Key"] = _derive_key(idempotency_key or uuid.uuid4().hex, None)
            response = self.http.send(
                method, url, headers=headers, content=urlencode(pairs).encode()
            )
        request_id = response.headers.get("request-id")
        body = json_object(response.content, GATEWAY, request_id)
        if response.status_code >= 400:
            raise _error_from(response.status_code, body, request_id, missing_is_method)
        return _Answer(
            body=body,
            status_code=response.status_code,
            request_id=request_id,
            replayed=response.headers.get("idempotent-replayed", "").lower() == "true",
        )


# --- amounts ---------------------------------------------------------------------------------


def _stripe_exponent(currency: str) -> int:
    if currency in _ZERO_DECIMAL:
        return 0
    if currency in _SENT_WITH_TWO_DECIMALS:
        return 2
    return minor_unit_exponent(currency)


def stripe_amount(money: Money) -> int:
    """The integer Stripe expects for ``money``; refuses what Stripe cannot charge exactly."""
    scaled = money.amount.scaleb(_stripe_exponent(money.currency))
    if scaled != scaled.to_integral_value():
        raise ValidationError.for_field(
            "amount", f"Stripe charges {money.currency} in whole units only"
        )
    units = int(scaled)
    if money.currency in _THREE_DECIMAL and units % 10:
        raise ValidationError.for_field(
            "amount", f"Stripe needs {money.currency} amounts to end in 0 (two decimals in effect)"
        )
    return units


def money_from_stripe(units: int, currency: str) -> Money:
    code = currency.upper()
    return Money.of(Decimal(units).scaleb(-_stripe_exponent(code)), code)


# --- wire format -----------------------------------------------------------------------------


def form_pairs(params: Mapping[str, object]) -> list[tuple[str, str]]:
    """Flatten params into Stripe's bracket notation (``a[b][c]=v``, ``list[]=v``); skip None."""
    pairs: list[tuple[str, str]] = []

    def walk(key: str, value: object) -> None:
        if value is None:
            return
        if isinstance(value, bool):
            pairs.append((key, "true" if value else "false"))
        elif isinstance(value, Mapping):
            for sub, item in value.items():
                walk(f"{key}[{sub}]", item)
        elif isinstance(value, list | tuple):
            for item in value:
                walk(f"{key}[]", item)
        else:
            pairs.append((key, str(value)))

    for key, value in params.items():
        walk(key, value)
    return pairs


def _derive_key(key: str, step: str | None) -> str:
    """payhub's key, suffixed per step; hashed when it would pass Stripe's 255 characters."""
    full = f"{key}-{step}" if step else key
    return full if len(full) <= 255 else hashlib.sha256(full.encode()).hexdigest()


def _path(identifier: str) -> str:
    """An id placed in a URL path: quoted, so no caller-supplied token can change the route."""
    return quote(identifier, safe="")


def _payment_method_type(method_type: MethodType) -> str:
    try:
        return _PAYMENT_METHOD_TYPES[method_type]
    except KeyError:
        raise ValueError(f"Stripe cannot take a {method_type} payment method") from None


def _check_key_mode(creds: GatewayCredentials) -> None:
    secret = creds.api_secret
    if secret.startswith(("sk_test_", "rk_test_")):
        live = False
    elif secret.startswith(("sk_live_", "rk_live_")):
        live = True
    else:
        raise GatewayCredentialsRejected(
            "the Stripe credential is not a secret or restricted key (sk_… or rk_…)",
            gateway=GATEWAY,
        )
    if live == creds.sandbox:
        raise GatewayCredentialsRejected(
            "a live Stripe key in a sandbox account"
            if live
            else "a test-mode Stripe key in a live account",
            gateway=GATEWAY,
        )


# --- answers ---------------------------------------------------------------------------------


_REFUND_STATUSES = {
    "succeeded": GatewayStatus.REFUNDED,
    "pending": GatewayStatus.PENDING,  # ACH refunds: finished days later
    "requires_action": GatewayStatus.PENDING,
}


def _refund_totals(charge: object, currency: str) -> tuple[Money | None, Money | None]:
    """Refunded and still-refunding amounts of an expanded charge (``latest_charge.refunds``)."""
    if not isinstance(charge, dict):
        return None, None
    listed = charge.get("refunds")
    if isinstance(listed, dict) and isinstance(listed.get("data"), list):
        done = pending = 0
        for refund in listed["data"]:
            if not isinstance(refund, dict):
                continue
            units = _opt_int(refund.get("amount")) or 0
            if refund.get("status") == "succeeded":
                done += units
            elif refund.get("status") in ("pending", "requires_action"):
                pending += units
        return money_from_stripe(done, currency), money_from_stripe(pending, currency)
    total = _opt_int(charge.get("amount_refunded"))
    return (money_from_stripe(total, currency) if total is not None else None), None


def _intent_result(answer: _Answer) -> GatewayResult:
    """Normalise a PaymentIntent (after create, capture, cancel or retrieve)."""
    intent = answer.body
    status = require_text(intent, "status", GATEWAY)
    currency = require_text(intent, "currency", GATEWAY)
    types = intent.get("payment_method_types") or []
    bank = isinstance(types, list) and "us_bank_account" in types
    charge = intent.get("latest_charge")
    charge_id = charge.get("id") if isinstance(charge, dict) else charge
    decline_code = message = None
    refunded, refunding = _refund_totals(charge, currency)
    units = _int(intent, "amount")
    if status == "requires_capture":
        mapped = GatewayStatus.AUTHORIZED
        units = _int(intent, "amount_capturable") or units
    elif status == "succeeded":
        mapped = GatewayStatus.CAPTURED
        units = _int(intent, "amount_received")
        if isinstance(charge, dict) and charge.get("refunded") is True:
            mapped = GatewayStatus.REFUNDED
    elif status == "processing":
        mapped = GatewayStatus.SUBMITTED if bank else GatewayStatus.PENDING
    elif status == "canceled":
        mapped = GatewayStatus.VOIDED
    elif status == "requires_payment_method" and isinstance(intent.get("last_payment_error"), dict):
        mapped = GatewayStatus.DECLINED
        error = intent["last_payment_error"]
        decline_code = normalise_decline(error.get("decline_code") or error.get("code"))
        message = _redact(error.get("message"))
    else:  # requires_payment_method (never confirmed), requires_confirmation, requires_action
        mapped = GatewayStatus.PENDING
    return GatewayResult(
        reference=require_text(intent, "id", GATEWAY),
        status=mapped,
        amount=money_from_stripe(units, currency),
        decline_code=decline_code,
        message=message,
        support=answer.support(
            stripe_status=status, charge=charge_id if isinstance(charge_id, str) else None
        ),
        refunded=refunded,
        refunding=refunding,
    )


def _saved_method(customer: str, method_type: MethodType, method: dict[str, Any]) -> SavedMethod:
    """Only what is safe to show: brand, last 4, expiry, bank name."""
    raw = method.get("card" if method_type is MethodType.CARD else "us_bank_account")
    details: Mapping[str, Any] = raw if isinstance(raw, dict) else {}
    return SavedMethod(
        gateway_customer_ref=customer,
        method_ref=require_text(method, "id", GATEWAY),
        method_type=method_type,
        brand=_opt_str(details.get("brand")),
        last4=_opt_str(details.get("last4")),
        exp_month=_opt_int(details.get("exp_month")),
        exp_year=_opt_int(details.get("exp_year")),
        bank_name=_opt_str(details.get("bank_name")),
    )


def normalise_decline(code: object) -> str:
    """Stripe's decline_code (or error code) as one of payhub's ``DECLINE_CODES``."""
    if not isinstance(code, str):
        return "generic_decline"
    code = _DECLINE_ALIASES.get(code, code)
    return code if code in DECLINE_CODES else "generic_decline"


def _declined_from(error: object, request_id: str | None) -> Declined:
    fields: Mapping[str, Any] = error if isinstance(error, Mapping) else {}
    code = normalise_decline(fields.get("decline_code") or fields.get("code"))
    return Declined(
        f"Stripe declined the payment ({code})",
        gateway=GATEWAY,
        decline_code=code,
        gateway_message=_redact(fields.get("message")),
        gateway_request_id=request_id,
    )


def _error_from(
    status_code: int, body: dict[str, Any], request_id: str | None, missing_is_method: bool
) -> GatewayError:
    """Map Stripe's error object to payhub's failures (401/403/5xx never get this far)."""
    raw = body.get("error")
    error: Mapping[str, Any] = raw if isinstance(raw, dict) else {}
    kind, code, param = error.get("type"), error.get("code"), error.get("param")
    message = _redact(error.get("message"))
    common: dict[str, Any] = {
        "gateway": GATEWAY,
        "gateway_message": message,
        "gateway_request_id": request_id,
    }
    if status_code == 429 or code in ("rate_limit", "lock_timeout"):
        return GatewayUnavailable("Stripe asked us to slow down; try again shortly", **common)
    if status_code == 409:
        return GatewayUnavailable(
            "Stripe is still working on a request with the same idempotency key; try again",
            **common,
        )
    if kind == "idempotency_error":
        return GatewayError(
            "Stripe refused the idempotency key: it was used before for a different request",
            **common,
        )
    if code in _CREDENTIAL_CODES:
        return credentials_rejected(GATEWAY, gateway_message=message, request_id=request_id)
    if kind == "card_error":
        return _declined_from(error, request_id)
    if kind == "invalid_request_error" and (
        param in _PAYMENT_METHOD_PARAMS
        or (isinstance(code, str) and code.startswith("payment_method_"))
        or (missing_is_method and code == "resource_missing")
    ):
        return PaymentMethodInvalid(
            "Stripe cannot use this payment method (unknown, used up or not the customer's);"
            " collect it again",
            **common,
        )
    if status_code == 404 and code == "resource_missing":
        return GatewayError("Stripe has no object with that reference", **common)
    label = code if isinstance(code, str) else (kind if isinstance(kind, str) else status_code)
    return GatewayError(f"Stripe refused the request ({label})", **common)


def _int(obj: Mapping[str, Any], key: str) -> int:
    value = obj.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise unexpected(GATEWAY, None)
    return value


def _opt_int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _redact(message: object) -> str | None:
    return redact(message, ids=(_ID_LIKE,))
