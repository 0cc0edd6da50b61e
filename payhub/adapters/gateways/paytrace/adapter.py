"""PayTrace, through its JSON API v1 (OAuth2 password grant, JSON POSTs under ``/v1/``).

Why it looks the way it does:

- Auth: ``POST /oauth/token`` (form: ``grant_type=password``, ``username``, ``password``)
  answers ``{"access_token", "token_type": "Bearer", "expires_in"}``. The merchant's API
  user name is the ``username`` credential field, its password payhub's ``apiSecret``.
  The token is cached per host and credentials for its lifetime (less a safety margin)
  and fetched again once when an API call answers 401 (``invalid_token``); a wrong user
  name or password answers ``invalid_grant`` and becomes ``GatewayCredentialsRejected``.
- Every API body carries ``integrator_id``: PayTrace issues it to the integration (the
  ``integratorId`` credential field; the provider has it from PayTrace's sandbox sign-up).
- Cards arrive from Protect.js as a one-time ``hpf_token`` plus an ``enc_key``. payhub's
  one token string carries both as ``"<hpf_token>|<enc_key>"``; they are sent to
  ``transactions/sale/pt_protect`` and ``transactions/authorization/pt_protect``, and a
  card is vaulted with ``customer/pt_protect_create``. A PayTrace customer profile holds
  one card, so its ``customer_id`` is the saved method's reference (and, for a first
  method, the gateway customer's); saved cards are charged with
  ``transactions/{sale,authorization}/by_customer``.
- Answers: ``success``, ``response_code`` (101 approved, 102 declined, 103 approved then
  auto-voided by AVS/CSC rules, 106 refunded, 109 voided, 112 captured, 160 customer
  created, 1 "One or more errors has occurred." with ``errors: {code: [text]}``),
  ``status_message``, ``approval_message`` (the issuer's text, used to normalise the
  decline code), ``transaction_id``. Amounts are decimal dollars; PayTrace is USD only.
- No idempotency key exists. payhub's key travels as ``invoice_id`` (hashed to 50
  characters when longer) and ``lookup`` finds a charge whose answer was lost through
  ``transactions/export/by_date_range`` with ``including_text`` set to that invoice id,
  keeping only exact ``invoice_id`` matches. A vaulted profile's ``customer_id`` is
  derived from the save's idempotency key, so a retried save meets PayTrace's "unique
  customer ID" refusal (error 171) and is answered from ``customer/export``.
- Status: ``transactions/export/by_id`` (see ``_TxRecord`` for the fields read).

References (checked 2026-11):
- https://developers.paytrace.com/support/home (JSON API v1: hosts, OAuth, methods, codes)
- https://developer.north.com/b2b/api-spec/production/Protect.js (hpf_token + enc_key)
- https://developer.north.com/b2b/integration-guide (sandbox/live hosts, integrator_id)
- ActiveMerchant lib/active_merchant/billing/gateways/pay_trace.rb and
  test/unit/gateways/pay_trace_test.rb (endpoints, body fields, response examples)
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

import httpx

from payhub.adapters.gateways.kit import declines
from payhub.adapters.gateways.kit.answers import json_value, unexpected
from payhub.adapters.gateways.kit.http import GatewayHttp
from payhub.adapters.gateways.kit.redaction import hide_in, redact
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

SANDBOX_HOST = "https://api.sandbox.paytrace.com"
LIVE_HOST = "https://api.paytrace.com"
TOKEN_PATH = "/oauth/token"  # noqa: S105 - a path, not a password
INVOICE_ID_MAX = 50
CUSTOMER_ID_MAX = 50
TOKEN_SEPARATOR = "|"  # noqa: S105 - a separator, not a password
LOOKUP_DAYS = 7  # how far back ``lookup`` searches for a lost charge
_TOKEN_MARGIN = 60.0  # seconds before expiry when a cached token is no longer used
_DEFAULT_TOKEN_LIFETIME = 7200.0

_APPROVED = {101, 106, 109, 112, 160, 161, 167}
_ERRORS_RESPONSE = 1
_DECLINED = 102
_AUTO_VOIDED = 103
_DUPLICATE_CUSTOMER = "171"
_CREDENTIAL_ERRORS = {"981"}  # "Log in failed for insufficient permissions."
_METHOD_ERRORS = {"30", "35", "43", "44"}  # customer not found, card number, expiry
_CREDENTIALS_HINT = "update them with PUT /api/merchant-accounts/{ref}/credentials/paytrace"


def base_url(sandbox: bool) -> str:
    return SANDBOX_HOST if sandbox else LIVE_HOST


def invoice_id_for(idempotency_key: str) -> str:
    """The ``invoice_id`` that carries payhub's idempotency key (stable, at most 50 chars)."""
    if 0 < len(idempotency_key) <= INVOICE_ID_MAX and idempotency_key.isascii():
        return idempotency_key
    return "ph" + hashlib.sha256(idempotency_key.encode()).hexdigest()[: INVOICE_ID_MAX - 2]


def customer_id_for(request: SaveMethodRequest) -> str:
    """A profile id unique per save: payhub's customer plus a digest of the save's key."""
    seed = request.idempotency_key or request.token
    digest = hashlib.sha256(f"{request.customer_id}\0{seed}".encode()).hexdigest()[:16]
    prefix = "".join(c for c in request.customer_id if c.isalnum() or c in "_-")
    return f"{prefix[: CUSTOMER_ID_MAX - 17]}-{digest}"


def decimal_amount(money: Money) -> str:
    return format(money.amount, "f")


def decline_code(approval_message: str) -> str:
    """payhub's decline code from the issuer's text PayTrace relays in ``approval_message``."""
    return declines.decline_code(text=approval_message)


def split_token(token: str) -> tuple[str, str]:
    """Protect.js's ``hpf_token`` and ``enc_key`` from payhub's one token string."""
    hpf, sep, enc = token.partition(TOKEN_SEPARATOR)
    if not sep or not hpf.strip() or not enc.strip():
        raise PaymentMethodInvalid(
            "a PayTrace token is Protect.js's hpf_token and enc_key joined by '|'; collect the"
            " card again",
            gateway=PayTraceGateway.name,
        )
    return hpf.strip(), enc.strip()


class _Token:
    def __init__(self, value: str, expires_at: float) -> None:
        self.value = value
        self.expires_at = expires_at


class _TxRecord:
    """One transaction of an export answer.

    Fields read: ``transaction_id``, ``amount``, ``transaction_type`` (Sale, Authorization,
    Refund, ...), ``status`` / ``status_message`` (Approved, Declined, Voided, Captured,
    Settled, Pending Settlement, ...), ``invoice_id`` and ``response_code`` where given.
    """

    def __init__(self, raw: dict[str, Any]) -> None:
        self.raw = raw
        self.id = str(raw.get("transaction_id", ""))
        self.kind = str(raw.get("transaction_type", "")).strip().lower()
        self.state = " ".join(str(raw.get(k, "")) for k in ("status", "status_message")).lower()
        self.invoice_id = str(raw.get("invoice_id", "") or "")
        self.amount = _decimal(raw.get("amount"))

    def result(self) -> GatewayResult:
        return GatewayResult(
            reference=self.id,
            status=self.status(),
            amount=_money(abs(self.amount)),
            support={k: v for k, v in (("state", self.state.strip()[:64]),) if v},
        )

    def status(self) -> GatewayStatus:
        state, kind = self.state, self.kind
        code = self.raw.get("response_code")
        if "declin" in state or code == _DECLINED or "not approved" in state:
            return GatewayStatus.DECLINED
        if "void" in state or code == _AUTO_VOIDED:
            return GatewayStatus.VOIDED
        if "refund" in kind or "credit" in kind or "refunded" in state:
            return GatewayStatus.REFUNDED
        if kind.startswith("auth") and not ("captur" in state or "settled" in state):
            return GatewayStatus.AUTHORIZED
        if kind.startswith("auth") or kind.startswith("sale") or "settled" in state:
            return GatewayStatus.CAPTURED
        return GatewayStatus.PENDING

    @property
    def charged(self) -> bool:
        return self.status() in (
            GatewayStatus.AUTHORIZED,
            GatewayStatus.CAPTURED,
            GatewayStatus.VOIDED,
            GatewayStatus.REFUNDED,
        ) and (self.kind.startswith("sale") or self.kind.startswith("auth"))


class PayTraceGateway:
    """PayTrace's JSON API v1, spoken in payhub's neutral terms."""

    name = "paytrace"

    def __init__(
        self,
        client: httpx.Client | None = None,
        *,
        monotonic: Callable[[], float] = time.monotonic,
        today: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._http = GatewayHttp(self.name, client)
        self._monotonic = monotonic
        self._today = today
        self._tokens: dict[str, _Token] = {}
        self._lock = threading.Lock()

    # --- the Gateway port ------------------------------------------------------------------

    def charge(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult:
        """A sale or an authorization from a Protect.js token or a vaulted customer profile."""
        source = request.source
        if source.method_type is not MethodType.CARD:
            raise ValueError("payhub takes only cards through PayTrace")
        _require_usd(request.amount)
        kind = "sale" if request.capture else "authorization"
        body: dict[str, Any] = {
            "amount": decimal_amount(request.amount),
            "invoice_id": invoice_id_for(request.idempotency_key),
        }
        if request.description:
            body["description"] = request.description[:255]
        if source.token is not None:
            hpf, enc = split_token(source.token)
            body |= {"hpf_token": hpf, "enc_key": enc}
            path = f"/v1/transactions/{kind}/pt_protect"
        else:
            body["customer_id"] = source.saved_method_ref or ""
            path = f"/v1/transactions/{kind}/by_customer"
        reply = self._call(creds, path, body)
        if reply.get("success") is True and _code(reply) == 101:
            return GatewayResult(
                reference=str(reply.get("transaction_id", "")),
                status=GatewayStatus.CAPTURED if request.capture else GatewayStatus.AUTHORIZED,
                amount=request.amount,
                message=redact(reply.get("status_message")),
                support=_support(reply),
            )
        failure = _failure(reply)
        if isinstance(failure, PaymentMethodInvalid) and source.token is not None:
            # The one-time token may be spent by this very charge, sent before a crash.
            try:
                earlier = self.lookup(creds, request)
            except (GatewayTimeout, GatewayUnavailable):
                raise
            except GatewayError:
                earlier = None
            if earlier is not None:
                return earlier
        raise failure

    def lookup(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult | None:
        """Find the charge made under this idempotency key (one whose answer was lost)."""
        invoice = invoice_id_for(request.idempotency_key)
        today = self._today().astimezone(UTC).date()
        body = {
            "start_date": (today - timedelta(days=LOOKUP_DAYS)).strftime("%m/%d/%Y"),
            "end_date": (today + timedelta(days=1)).strftime("%m/%d/%Y"),
            "including_text": invoice,
        }
        reply = self._call(creds, "/v1/transactions/export/by_date_range", body)
        if reply.get("success") is not True:
            if _error_codes(reply) and not _is_not_found(reply):
                raise _failure(reply)
            return None
        for record in _records(reply):
            if record.invoice_id == invoice and record.charged:
                return record.result()
        return None

    def capture(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        """Capture all or part of an authorization (PayTrace captures an auth once)."""
        _require_usd(amount)
        body = {"transaction_id": _tx_id(reference), "amount": decimal_amount(amount)}
        reply = self._call(creds, "/v1/transactions/authorization/capture", body)
        if reply.get("success") is not True:
            raise _failure(reply)
        return GatewayResult(
            reference,
            GatewayStatus.CAPTURED,
            amount,
            message=redact(reply.get("status_message")),
            support=_support(reply),
        )

    def refund(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        """Refund all or part of a sale; the refund is a transaction of its own."""
        _require_usd(amount)
        body = {"transaction_id": _tx_id(reference), "amount": decimal_amount(amount)}
        reply = self._call(creds, "/v1/transactions/refund/for_transaction", body)
        if reply.get("success") is not True:
            raise _failure(reply)
        return GatewayResult(
            str(reply.get("transaction_id") or reference),
            GatewayStatus.REFUNDED,
            amount,
            message=redact(reply.get("status_message")),
            support=_support(reply),
        )

    def void(
        self, creds: GatewayCredentials, reference: str, idempotency_key: str
    ) -> GatewayResult:
        """Cancel an authorization (or an unsettled sale)."""
        record = self._record(creds, reference)
        reply = self._call(creds, "/v1/transactions/void", {"transaction_id": _tx_id(reference)})
        if reply.get("success") is not True:
            raise _failure(reply)
        return GatewayResult(
            reference,
            GatewayStatus.VOIDED,
            _money(abs(record.amount)),
            message=redact(reply.get("status_message")),
            support=_support(reply),
        )

    def status(self, creds: GatewayCredentials, reference: str) -> GatewayResult:
        return self._record(creds, reference).result()

    def pay_page_session(self, creds: GatewayCredentials, origin: str) -> dict[str, str]:
        """Protect.js's client key for one pay-page view: ``POST
        /v1/payment_fields/token/create`` answers ``{clientKey}``, which Protect.js is set up
        with (``PTPayment.setup({authorization: {clientKey}})``); it can only make hpf tokens."""
        answer = self._call(creds, "/v1/payment_fields/token/create", {})
        if answer.get("success") is False:
            raise _failure(answer)
        key = answer.get("clientKey")
        if not isinstance(key, str) or not key:
            raise unexpected(self.name)
        return {"clientKey": key}

    def save_payment_method(
        self, creds: GatewayCredentials, request: SaveMethodRequest
    ) -> SavedMethod:
        """Vault a Protect.js card as a new customer profile (one card per profile)."""
        if request.method_type is not MethodType.CARD:
            raise ValueError("payhub saves only cards with PayTrace")
        hpf, enc = split_token(request.token)
        profile = customer_id_for(request)
        body: dict[str, Any] = {"customer_id": profile, "hpf_token": hpf, "enc_key": enc}
        if request.name:
            body["billing_address"] = {"name": request.name[:50]}
        if request.email:
            body["email"] = request.email
        reply = self._call(creds, "/v1/customer/pt_protect_create", body)
        # A retried save meets its own profile (same derived id): error 171 is then success.
        if reply.get("success") is not True and _DUPLICATE_CUSTOMER not in _error_codes(reply):
            raise _failure(reply)
        shown = self._customer(creds, profile)
        masked = str(
            (shown.get("credit_card") or {}).get("masked_number")
            or reply.get("masked_card_number")
            or ""
        )
        card = shown.get("credit_card") or {}
        month, year = _int(card.get("expiration_month")), _int(card.get("expiration_year"))
        if year is not None and year < 100:
            year += 2000
        return SavedMethod(
            gateway_customer_ref=request.gateway_customer_ref or profile,
            method_ref=profile,
            method_type=MethodType.CARD,
            brand=_brand(masked, str(card.get("card_type", ""))),
            last4=_last4(masked),
            exp_month=month if month is not None and 1 <= month <= 12 else None,
            exp_year=year,
        )

    # --- wire --------------------------------------------------------------------------------

    def _record(self, creds: GatewayCredentials, reference: str) -> _TxRecord:
        body = {"transaction_id": _tx_id(reference)}
        reply = self._call(creds, "/v1/transactions/export/by_id", body)
        if reply.get("success") is True:
            for record in _records(reply):
                if record.id == reference:
                    return record
        raise GatewayError(f"PayTrace has no transaction {reference}", gateway=self.name)

    def _customer(self, creds: GatewayCredentials, profile: str) -> dict[str, Any]:
        try:
            reply = self._call(creds, "/v1/customer/export", {"customer_id": profile})
        except GatewayError:
            return {}  # saved all the same; only the display details are missing
        for customer in reply.get("customers") or []:
            if isinstance(customer, dict) and str(customer.get("customer_id")) == profile:
                return customer
        if reply.get("success") is not True:
            raise _failure(reply)
        return {}

    def _call(self, creds: GatewayCredentials, path: str, body: dict[str, Any]) -> dict[str, Any]:
        """POST one JSON body with a Bearer token; a 401 fetches a new token once."""
        payload = {**body, "integrator_id": _integrator_id(creds)}
        secrets = _secrets(creds, body)
        for attempt in (1, 2):
            token = self._token(creds, fresh=attempt == 2)
            response = self._http.send(
                "POST",
                base_url(creds.sandbox) + path,
                json=payload,
                headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
                credentials_errors=False,
            )
            if response.status_code == 401 and attempt == 1:
                self._forget(creds)
                continue
            if response.status_code in (401, 403):
                raise GatewayCredentialsRejected(
                    f"PayTrace refused the access token for the merchant's API user;"
                    f" {_CREDENTIALS_HINT}",
                    gateway=self.name,
                )
            return _json(response, secrets)
        raise AssertionError("unreachable")  # pragma: no cover

    def _token(self, creds: GatewayCredentials, fresh: bool) -> str:
        key = _cache_key(creds)
        now = self._monotonic()
        with self._lock:
            cached = self._tokens.get(key)
            if cached is not None and not fresh and cached.expires_at > now:
                return cached.value
        username = creds.fields.get("username", "")
        if not username:
            raise GatewayCredentialsRejected(
                f"PayTrace needs the API user's name in the username field; {_CREDENTIALS_HINT}",
                gateway=self.name,
            )
        response = self._http.send(
            "POST",
            base_url(creds.sandbox) + TOKEN_PATH,
            data={"grant_type": "password", "username": username, "password": creds.api_secret},
            headers={"Accept": "application/json"},
            credentials_errors=False,
        )
        answer = _json(response, [creds.api_secret])
        token = answer.get("access_token")
        if response.status_code in (400, 401, 403) or "error" in answer or not token:
            error = redact(answer.get("error")) or f"HTTP {response.status_code}"
            raise GatewayCredentialsRejected(
                f"PayTrace refused the merchant's API user name or password ({error[:40]});"
                f" {_CREDENTIALS_HINT}",
                gateway=self.name,
                gateway_message=redact(answer.get("error_description")),
            )
        lifetime = _decimal(answer.get("expires_in") or _DEFAULT_TOKEN_LIFETIME)
        with self._lock:
            self._tokens[key] = _Token(str(token), now + float(lifetime) - _TOKEN_MARGIN)
        return str(token)

    def _forget(self, creds: GatewayCredentials) -> None:
        with self._lock:
            self._tokens.pop(_cache_key(creds), None)


# --- mapping ------------------------------------------------------------------------------


def _cache_key(creds: GatewayCredentials) -> str:
    raw = "\0".join((base_url(creds.sandbox), creds.fields.get("username", ""), creds.api_secret))
    return hashlib.sha256(raw.encode()).hexdigest()


def _integrator_id(creds: GatewayCredentials) -> str:
    value = creds.fields.get("integratorId", "")
    if not value:
        raise GatewayCredentialsRejected(
            "PayTrace needs the integration's integrator_id in the integratorId field;"
            f" {_CREDENTIALS_HINT}",
            gateway=PayTraceGateway.name,
        )
    return value


def _secrets(creds: GatewayCredentials, body: dict[str, Any]) -> list[str]:
    values = [creds.api_secret, creds.fields.get("integratorId", "")]
    values += [str(body[k]) for k in ("hpf_token", "enc_key") if body.get(k)]
    return [v for v in values if v]


def _json(response: httpx.Response, secrets: list[str]) -> dict[str, Any]:
    parsed = json_value(response.content)
    if not isinstance(parsed, dict):
        raise unexpected(PayTraceGateway.name)
    scrubbed: dict[str, Any] = hide_in(parsed, secrets)
    return scrubbed


def _code(reply: dict[str, Any]) -> int | None:
    return _int(reply.get("response_code"))


def _error_codes(reply: dict[str, Any]) -> dict[str, str]:
    errors = reply.get("errors")
    if not isinstance(errors, dict):
        return {}
    out: dict[str, str] = {}
    for code, texts in errors.items():
        text = texts[0] if isinstance(texts, list) and texts else texts
        out[str(code)] = str(text or "")
    return out


def _is_not_found(reply: dict[str, Any]) -> bool:
    return any("no " in t.lower() and "found" in t.lower() for t in _error_codes(reply).values())


def _support(reply: dict[str, Any]) -> dict[str, str]:
    keep = ("transaction_id", "response_code", "approval_code", "avs_response", "csc_response")
    return {k: str(reply[k])[:64] for k in keep if reply.get(k) not in (None, "")}


def _failure(reply: dict[str, Any]) -> GatewayError:
    """The payhub failure for an unsuccessful PayTrace answer."""
    code = _code(reply)
    reference = str(reply.get("transaction_id") or "") or None
    issuer = redact(reply.get("approval_message")) or ""
    status_message = redact(reply.get("status_message")) or ""
    if code in (_DECLINED, _AUTO_VOIDED):
        reason = decline_code(issuer)
        if code == _AUTO_VOIDED and reason == "generic_decline":
            csc = str(reply.get("csc_response", "")).lower()
            reason = "incorrect_cvc" if "no match" in csc else reason
        return Declined(
            f"PayTrace declined the payment ({reason}, response code {code})",
            gateway=PayTraceGateway.name,
            decline_code=reason,
            gateway_message=redact(f"{status_message} {issuer}"),
            gateway_request_id=reference,
        )
    errors = _error_codes(reply)
    joined = redact("; ".join(f"{k}: {v}" for k, v in sorted(errors.items()))) or status_message
    lowered = joined.lower()
    if errors.keys() & _CREDENTIAL_ERRORS or "log in failed" in lowered:
        return GatewayCredentialsRejected(
            f"PayTrace refused the merchant's API user; {_CREDENTIALS_HINT}",
            gateway=PayTraceGateway.name,
            gateway_message=joined or None,
        )
    if errors.keys() & _METHOD_ERRORS or any(
        word in lowered for word in ("hpf_token", "enc_key", "token", "encrypt")
    ):
        return PaymentMethodInvalid(
            "PayTrace does not accept this payment method (the Protect.js token is invalid,"
            " expired or used, or the customer profile is gone); collect the card again",
            gateway=PayTraceGateway.name,
            gateway_message=joined or None,
        )
    return GatewayError(
        f"PayTrace refused the request (response code {code if code is not None else 'none'})",
        gateway=PayTraceGateway.name,
        gateway_message=joined or None,
        gateway_request_id=reference,
    )


def _records(reply: dict[str, Any]) -> list[_TxRecord]:
    return [_TxRecord(t) for t in reply.get("transactions") or [] if isinstance(t, dict)]


def _require_usd(amount: Money) -> None:
    if amount.currency != "USD":
        raise GatewayError(
            f"PayTrace processes USD only, not {amount.currency}", gateway=PayTraceGateway.name
        )


def _tx_id(reference: str) -> int:
    """PayTrace's transaction ids are integers; anything else never reaches the wire."""
    if not reference.isdigit():
        raise GatewayError("not a PayTrace transaction reference", gateway=PayTraceGateway.name)
    return int(reference)


def _int(value: Any) -> int | None:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return None


def _decimal(value: Any) -> Decimal:
    try:
        number = Decimal(str(value if value is not None else "0").strip() or "0")
    except InvalidOperation:
        raise GatewayError(
            "PayTrace reported an amount that is not a number", gateway="paytrace"
        ) from None
    if not number.is_finite():
        raise GatewayError("PayTrace reported an amount that is not a number", gateway="paytrace")
    return number


def _money(amount: Decimal) -> Money:
    try:
        return Money.of(amount, "USD")
    except ValidationError:
        raise GatewayError(
            "PayTrace reported an amount payhub cannot represent", gateway="paytrace"
        ) from None


def _last4(masked: str) -> str | None:
    tail = masked.strip()[-4:]
    return tail if len(tail) == 4 and tail.isdigit() else None


def _brand(masked: str, card_type: str) -> str | None:
    named = card_type.replace(" ", "").lower()
    for key, brand in (
        ("visa", "visa"),
        ("master", "mastercard"),
        ("amex", "amex"),
        ("american", "amex"),
        ("discover", "discover"),
    ):
        if named.startswith(key):
            return brand
    first = masked.strip()[:1]
    return {"4": "visa", "5": "mastercard", "2": "mastercard", "6": "discover"}.get(first) or (
        "amex" if masked.strip()[:2] in ("34", "37") else None
    )
