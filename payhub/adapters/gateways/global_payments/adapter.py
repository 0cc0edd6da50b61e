"""Global Payments, spoken through GP-API (``/ucp``) over httpx.

References relied on:

- Access token: ``POST /accesstoken`` with ``app_id``, ``nonce``, ``secret`` =
  hex SHA-512 of nonce + app key, ``grant_type: client_credentials``; answer ``token``,
  ``type: Bearer``, ``seconds_to_expire``; every call carries ``X-GP-Version: 2021-03-22``:
  GP-API reference "Access Token" (OpenAPI ``info.version 2021 03 22``, servers
  ``apis.sandbox.globalpay.com/ucp`` and ``apis.globalpay.com/ucp``); the SDKs' ``GpApiConnector``
  (``GP_API_VERSION = "2021-03-22"``).
- Transactions: ``POST /transactions`` with ``account_name``, ``type: SALE``, ``channel: CNP``,
  ``capture_mode`` AUTO or LATER, ``amount`` as a string of minor units, ``currency``,
  ``country``, ``reference``, ``payment_method: {entry_mode: ECOM, id: PMT_…}``; statuses
  CAPTURED, PREAUTHORIZED, PENDING, INITIATED, FOR_REVIEW, DECLINED, REVERSED, FUNDED, FAILED,
  REJECTED; ``/transactions/{id}/capture``, ``/refund``, ``/reversal``; ``GET /transactions/{id}``
  (GP-API reference "Transactions").
- Idempotency: ``X-GP-Idempotency`` (the same value within 24 hours answers the first result):
  the SDKs' ``IDEMPOTENCY_HEADER = "x-gp-idempotency"``.
- Errors: ``{"error_code", "detailed_error_code", "detailed_error_description"}`` with codes
  NOT_AUTHENTICATED, ACTION_NOT_AUTHORIZED, INVALID_REQUEST_DATA, MANDATORY_DATA_MISSING,
  RESOURCE_NOT_FOUND, INVALID_TRANSACTION_ACTION, DUPLICATE_ACTION, SYSTEM_ERROR_DOWNSTREAM
  (GP-API reference "Error codes"); an issuer decline is a DECLINED transaction whose
  ``payment_method.result`` carries the ISO 8583 response code.
- Tokens: globalpayments.js hands out single-use ``PMT_`` payment-method ids; a card is kept by
  editing the payment method to ``usage_mode: MULTIPLE`` (``PATCH /payment-methods/{id}``,
  the SDKs' ``updateTokenUsageMode``).

Choices a reader must know:

- GP-API has no customer object for cards on file, so ``gateway_customer_ref`` is payhub's own
  customer id (or the one already stored); the multi-use ``PMT_`` id is the saved method.
- Access tokens are cached per app (never the app key) until a minute before they expire; a
  401 on a cached token fetches a new one once.
- ``account_name`` defaults to ``transaction_processing`` (the sandbox default) and ``country`` to
  US; credential fields ``accountName`` and ``country`` override them.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

import attrs
import httpx

from payhub.adapters.gateways.kit import declines
from payhub.adapters.gateways.kit.answers import (
    credentials_rejected,
    json_object,
    require_text,
    unexpected,
)
from payhub.adapters.gateways.kit.http import Answer as _Answer
from payhub.adapters.gateways.kit.http import GatewayHttp
from payhub.adapters.gateways.kit.http import opt_int as _opt_int
from payhub.adapters.gateways.kit.http import opt_str as _opt_str
from payhub.adapters.gateways.kit.http import path_segment as _path
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

GATEWAY = "global-payments"
SANDBOX_BASE = "https://apis.sandbox.globalpay.com/ucp"
LIVE_BASE = "https://apis.globalpay.com/ucp"
GP_VERSION = "2021-03-22"
PAGE_TOKEN_SECONDS = 600  # a pay page's tokenization-only access token
DEFAULT_ACCOUNT = "transaction_processing"
REFERENCE_MAX = 50

_STATUSES = {
    "CAPTURED": GatewayStatus.CAPTURED,
    "BATCHED": GatewayStatus.CAPTURED,  # captured and closed into the day's batch
    "FUNDED": GatewayStatus.CAPTURED,
    "PREAUTHORIZED": GatewayStatus.AUTHORIZED,
    "PENDING": GatewayStatus.PENDING,
    "INITIATED": GatewayStatus.PENDING,
    "FOR_REVIEW": GatewayStatus.PENDING,
    "REVERSED": GatewayStatus.VOIDED,
    "DECLINED": GatewayStatus.DECLINED,
    "FAILED": GatewayStatus.DECLINED,
    "REJECTED": GatewayStatus.DECLINED,
}
_BRANDS = {"VISA": "visa", "MASTERCARD": "mastercard", "AMEX": "amex", "DISCOVER": "discover"}


def _now() -> datetime:
    return datetime.now(UTC)


class GlobalPaymentsGateway:
    """The ``Gateway`` port for Global Payments GP-API (cards, globalpayments.js tokens)."""

    name = GATEWAY

    def __init__(
        self, client: httpx.Client | None = None, *, now: Callable[[], datetime] = _now
    ) -> None:
        self.http = GatewayHttp(GATEWAY, client)
        self._now = now
        self._tokens: dict[str, tuple[str, datetime]] = {}
        self._lock = threading.Lock()

    # --- the port ----------------------------------------------------------------------

    def charge(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult:
        source = request.source
        if source.method_type is not MethodType.CARD:
            raise ValueError("Global Payments takes cards only in payhub")
        body: dict[str, Any] = {
            "account_name": creds.fields.get("accountName") or DEFAULT_ACCOUNT,
            "type": "SALE",
            "channel": "CNP",
            "capture_mode": "AUTO" if request.capture else "LATER",
            "amount": str(request.amount.minor_units),
            "currency": request.amount.currency,
            "country": creds.fields.get("country") or "US",
            "reference": reference_for(request.idempotency_key),
            "payment_method": {
                "entry_mode": "ECOM",
                "id": source.token if source.token is not None else source.saved_method_ref,
            },
        }
        if request.description:
            body["description"] = request.description[:100]
        answer = self._send(
            creds, "POST", "/transactions", body, request.idempotency_key, token_call=True
        )
        result = _transaction_result(answer)
        if result.status is GatewayStatus.DECLINED:
            raise _declined(answer)
        return result

    def capture(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        answer = self._send(
            creds,
            "POST",
            f"/transactions/{_path(reference)}/capture",
            {"amount": str(amount.minor_units)},
            idempotency_key,
        )
        result = _transaction_result(answer)
        if result.status is not GatewayStatus.CAPTURED:
            raise _refused(answer, "capture")
        return attrs.evolve(result, amount=amount)

    def refund(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        answer = self._send(
            creds,
            "POST",
            f"/transactions/{_path(reference)}/refund",
            {"amount": str(amount.minor_units)},
            idempotency_key,
        )
        status = _opt_str(answer.body.get("status"))
        if status not in ("CAPTURED", "PENDING", "FUNDED"):
            raise _refused(answer, "refund")
        return GatewayResult(
            reference=require_text(answer.body, "id", GATEWAY),
            status=GatewayStatus.REFUNDED,
            amount=amount,
            message=f"refund {status}",
            support=answer.support(gp_status=status, transaction=reference),
        )

    def void(
        self, creds: GatewayCredentials, reference: str, idempotency_key: str
    ) -> GatewayResult:
        answer = self._send(
            creds, "POST", f"/transactions/{_path(reference)}/reversal", {}, idempotency_key
        )
        result = _transaction_result(answer)
        if result.status is not GatewayStatus.VOIDED:
            raise _refused(answer, "reversal")
        return result

    def status(self, creds: GatewayCredentials, reference: str) -> GatewayResult:
        answer = self._send(creds, "GET", f"/transactions/{_path(reference)}", None, None)
        return _transaction_result(answer)

    def pay_page_session(self, creds: GatewayCredentials, origin: str) -> dict[str, str]:
        """A single-use-tokenization access token for one pay-page view: ``POST /accesstoken``
        (as for the API's own token) asking only ``PMT_POST_Create_Single`` for ten minutes,
        so the page's globalpayments.js can make a payment-method token and nothing else.
        Never cached: each view gets its own."""
        app_id = creds.fields.get("appId", "").strip()
        if not app_id:
            raise GatewayCredentialsRejected(
                "Global Payments needs the appId field with the app key", gateway=GATEWAY
            )
        nonce = self._now().astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
        response = self.http.send(
            "POST",
            f"{SANDBOX_BASE if creds.sandbox else LIVE_BASE}/accesstoken",
            headers={"X-GP-Version": GP_VERSION, "Content-Type": "application/json"},
            json={
                "app_id": app_id,
                "nonce": nonce,
                "secret": hashlib.sha512((nonce + creds.api_secret).encode()).hexdigest(),
                "grant_type": "client_credentials",
                "seconds_to_expire": PAGE_TOKEN_SECONDS,
                "permissions": ["PMT_POST_Create_Single"],
            },
        )
        answer = _parse(response)
        if response.status_code >= 400:
            raise _error_from(answer, token_call=False)
        token = answer.body.get("token")
        if not isinstance(token, str) or not token:
            raise unexpected(GATEWAY, answer.request_id)
        return {"accessToken": token}

    def save_payment_method(
        self, creds: GatewayCredentials, request: SaveMethodRequest
    ) -> SavedMethod:
        """Make the single-use ``PMT_`` token multi-use; GP-API keeps no customer for it."""
        if request.method_type is not MethodType.CARD:
            raise ValueError("Global Payments saves cards only in payhub")
        answer = self._send(
            creds,
            "PATCH",
            f"/payment-methods/{_path(request.token)}",
            {"usage_mode": "MULTIPLE"},
            request.idempotency_key or None,
            token_call=True,
        )
        body = answer.body
        if body.get("usage_mode") != "MULTIPLE":
            raise PaymentMethodInvalid(
                "Global Payments did not keep the card for reuse; collect it again",
                gateway=GATEWAY,
                gateway_request_id=answer.request_id,
            )
        raw = body.get("card")
        card: Mapping[str, Any] = raw if isinstance(raw, dict) else {}
        masked = card.get("masked_number_last4")
        year = _opt_int(card.get("expiry_year"))
        return SavedMethod(
            gateway_customer_ref=request.gateway_customer_ref or request.customer_id,
            method_ref=require_text(body, "id", GATEWAY),
            method_type=MethodType.CARD,
            brand=_BRANDS.get(str(card.get("brand", "")).upper()),
            last4=masked[-4:] if isinstance(masked, str) and masked[-4:].isdigit() else None,
            exp_month=_opt_int(card.get("expiry_month")),
            exp_year=year + 2000 if year is not None and year < 100 else year,
        )

    # --- helpers -------------------------------------------------------------------------

    def _access_token(self, creds: GatewayCredentials, base: str, *, fresh: bool) -> str:
        app_id = creds.fields.get("appId", "").strip()
        if not app_id:
            raise GatewayCredentialsRejected(
                "Global Payments needs the appId field with the app key", gateway=GATEWAY
            )
        cache_key = hashlib.sha256(f"{base}\0{app_id}\0{creds.api_secret}".encode()).hexdigest()
        now = self._now()
        with self._lock:
            cached = self._tokens.get(cache_key)
            if cached is not None and not fresh and cached[1] > now:
                return cached[0]
        nonce = now.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
        secret = hashlib.sha512((nonce + creds.api_secret).encode()).hexdigest()
        response = self.http.send(
            "POST",
            f"{base}/accesstoken",
            headers={"X-GP-Version": GP_VERSION, "Content-Type": "application/json"},
            json={
                "app_id": app_id,
                "nonce": nonce,
                "secret": secret,
                "grant_type": "client_credentials",
            },
        )
        answer = _parse(response)
        if response.status_code >= 400:
            raise _error_from(answer, token_call=False)
        token = answer.body.get("token")
        if not isinstance(token, str) or not token:
            raise unexpected(GATEWAY, answer.request_id)
        lifetime = answer.body.get("seconds_to_expire", answer.body.get("expires_in", 600))
        seconds = lifetime if isinstance(lifetime, int) and not isinstance(lifetime, bool) else 600
        with self._lock:
            self._tokens[cache_key] = (token, now + timedelta(seconds=max(seconds - 60, 0)))
        return token

    def _send(
        self,
        creds: GatewayCredentials,
        method: str,
        path: str,
        body: Mapping[str, Any] | None,
        idempotency_key: str | None,
        *,
        token_call: bool = False,
    ) -> _Answer:
        """One call with a bearer token. ``token_call``: a missing resource is the payer's
        token, not a bad reference."""
        base = SANDBOX_BASE if creds.sandbox else LIVE_BASE
        for attempt in range(2):
            bearer = self._access_token(creds, base, fresh=attempt > 0)
            headers = {
                "Authorization": f"Bearer {bearer}",
                "X-GP-Version": GP_VERSION,
                "Accept": "application/json",
            }
            if idempotency_key:
                headers["X-GP-Idempotency"] = idempotency_key
            response = self.http.send(
                method,
                base + path,
                headers=headers,
                json=dict(body) if body is not None else None,
                credentials_errors=False,
            )
            if response.status_code == 401 and attempt == 0:
                continue  # the cached token expired early: fetch a new one once
            answer = _parse(response)
            if response.status_code in (401, 403):
                raise GatewayCredentialsRejected(
                    "Global Payments rejected the merchant's credentials; update them with"
                    " PUT /api/merchant-accounts/{ref}/credentials/global-payments",
                    gateway=GATEWAY,
                    gateway_request_id=answer.request_id,
                )
            if response.status_code >= 400:
                raise _error_from(answer, token_call=token_call)
            return answer
        raise AssertionError("unreachable")  # pragma: no cover


def reference_for(key: str) -> str:
    """payhub's key as the transaction ``reference`` (hashed when too long)."""
    if 0 < len(key) <= REFERENCE_MAX and key.isascii():
        return key
    return "ph-" + hashlib.sha256(key.encode()).hexdigest()[: REFERENCE_MAX - 3]


def _parse(response: httpx.Response) -> _Answer:
    request_id = response.headers.get("x-request-id")
    body = json_object(response.content, GATEWAY, request_id)
    return _Answer(body, response.status_code, request_id)


def _transaction_result(answer: _Answer) -> GatewayResult:
    body = answer.body
    status = _opt_str(body.get("status")) or ""
    mapped = _STATUSES.get(status, GatewayStatus.PENDING)
    amount = body.get("amount")
    currency = body.get("currency")
    if not isinstance(amount, str | int) or not isinstance(currency, str):
        raise unexpected(GATEWAY, answer.request_id)
    try:
        money = Money.from_minor_units(int(amount), currency.upper())
    except ValueError:
        raise unexpected(GATEWAY, answer.request_id) from None
    method = body.get("payment_method")
    result = method.get("result") if isinstance(method, dict) else None
    return GatewayResult(
        reference=require_text(body, "id", GATEWAY),
        status=mapped,
        amount=money,
        decline_code=normalise_decline(result) if mapped is GatewayStatus.DECLINED else None,
        message=status.lower() or None,
        support=answer.support(gp_status=status, issuer_result=_opt_str(result)),
    )


def normalise_decline(result: object) -> str:
    """The issuer's ISO 8583 code in ``payment_method.result``, by the kit's one table."""
    return declines.decline_code(result)


def _declined(answer: _Answer) -> Declined:
    method = answer.body.get("payment_method")
    fields: Mapping[str, Any] = method if isinstance(method, dict) else {}
    code = normalise_decline(fields.get("result"))
    return Declined(
        f"Global Payments declined the payment ({code})",
        gateway=GATEWAY,
        decline_code=code,
        gateway_message=redact(fields.get("message")),
        gateway_request_id=answer.request_id,
    )


def _refused(answer: _Answer, what: str) -> GatewayError:
    status = _opt_str(answer.body.get("status")) or "unknown"
    return GatewayError(
        f"Global Payments did not accept the {what} ({status})",
        gateway=GATEWAY,
        gateway_request_id=answer.request_id,
    )


def _error_from(answer: _Answer, *, token_call: bool) -> GatewayError:
    body = answer.body
    code = _opt_str(body.get("error_code")) or ""
    detail = _opt_str(body.get("detailed_error_description")) or ""
    common: dict[str, Any] = {
        "gateway": GATEWAY,
        "gateway_message": redact(detail),
        "gateway_request_id": answer.request_id,
    }
    if code in ("NOT_AUTHENTICATED", "ACTION_NOT_AUTHORIZED") or answer.status_code in (401, 403):
        return credentials_rejected(
            GATEWAY, gateway_message=common["gateway_message"], request_id=answer.request_id
        )
    if answer.status_code == 429:
        return GatewayUnavailable("Global Payments asked us to slow down; try again", **common)
    if code == "DECLINED":
        return Declined(
            "Global Payments declined the payment (generic_decline)",
            decline_code="generic_decline",
            **common,
        )
    mentions_method = "payment_method" in detail.lower() or "token" in detail.lower()
    if token_call and (
        code == "RESOURCE_NOT_FOUND" or (code == "INVALID_REQUEST_DATA" and mentions_method)
    ):
        return PaymentMethodInvalid(
            "Global Payments cannot use this payment method (unknown, used or expired token);"
            " collect it again",
            **common,
        )
    if code == "DUPLICATE_ACTION" or answer.status_code == 409:
        return GatewayError(
            "Global Payments refused the idempotency key: it was used for another request",
            **common,
        )
    if code == "RESOURCE_NOT_FOUND":
        return GatewayError("Global Payments has no transaction with that reference", **common)
    return GatewayError(
        f"Global Payments refused the request ({code or answer.status_code})", **common
    )
