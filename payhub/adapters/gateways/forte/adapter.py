"""Forte, through its REST API v3 (JSON, HTTP Basic, organization header).

Why it looks the way it does:

- Auth: HTTP Basic ``accessId:secureKey`` (the ``accessId`` field and payhub's ``apiSecret``)
  plus ``X-Forte-Auth-Organization-Id: org_…``; every path is under
  ``/organizations/{org}/locations/{loc}/`` (the ``organizationId``/``locationId`` fields,
  with or without their ``org_``/``loc_`` prefixes).
- Charges: ``POST …/transactions`` with ``action`` ``sale`` or ``authorize``,
  ``authorization_amount`` in decimal dollars, and ``card.one_time_token`` (a Forte.js
  ``ott_`` token) or ``paymethod_token`` (``mth_``) with ``customer_token`` (``cst_``).
  Capture and void are ``PUT …/transactions/{trn}`` with ``action`` ``capture``/``void``
  and the transaction's ``authorization_code``; a refund is ``POST …/transactions`` with
  ``action: reverse``, ``original_transaction_id``, ``authorization_code`` and the amount.
  The code is read with ``GET …/transactions/{trn}`` first, so payhub's reference stays
  the bare ``trn_`` id. Forte documents no partial capture, so the catalog says so.
- Answers carry ``response.response_code`` (``A01`` approved; ``U…`` gateway refusals;
  other codes issuer declines) and ``response.response_desc``; HTTP 4xx bodies carry
  ``response.response_desc`` too.
- No idempotency key exists: payhub's key is sent as ``order_number`` and ``lookup``
  lists ``…/transactions?filter=order_number+eq+'<key>'``. Forte's own duplicate check
  (``U10 DUPLICATE TRANSACTION``) makes a retry within its window come back refused; it
  is then answered from that lookup.
- Vault: ``POST …/customers`` (``cst_``) then ``POST …/customers/{cst}/paymethods`` with
  ``card.one_time_token``; the answer gives ``paymethod_token`` and the card's
  ``card_type``, ``last_4_account_number``, ``expire_month``/``expire_year``.

References (checked 2026-11):
- https://restdocs.forte.net/ (REST v3: transactions, customers, paymethods, filters)
- http://www.forte.net/devdocs/api_resources/forte_api_v3.htm (hosts, auth headers, codes)
- https://www.forte.net/devdocs/reference/response_codes.htm (A01, U-codes)
- ActiveMerchant lib/active_merchant/billing/gateways/forte.rb (body fields: action,
  authorization_amount, authorization_code, original_transaction_id, reverse)
"""

from __future__ import annotations

import hashlib
from decimal import Decimal, InvalidOperation
from typing import Any
from urllib.parse import quote

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

SANDBOX_BASE = "https://sandbox.forte.net/api/v3"
LIVE_BASE = "https://api.forte.net/v3"
ORDER_NUMBER_MAX = 36
_HINT = "update them with PUT /api/merchant-accounts/{ref}/credentials/forte"
_DUPLICATE = "U10"
_METHOD_CODES = {"U20", "U23", "U11", "U19"}  # card number, expiry, not found, invalid trn
_CREDENTIAL_CODES = {"U51", "U54", "F01"}  # merchant status, merchant config, auth failed
# Forte's own U-codes beside ISO 8583 (kit/declines.py); issuer texts by the shared words.
_DECLINES = {
    "U02": "generic_decline",
    "U05": "generic_decline",  # AVS
    "U80": "generic_decline",
    "U83": "generic_decline",
    "U84": "fraudulent",
    "U85": "insufficient_funds",
    "U53": "processing_error",
    "U25": "processing_error",
}
_STATUS = {
    "authorized": GatewayStatus.AUTHORIZED,
    "ready": GatewayStatus.CAPTURED,
    "settling": GatewayStatus.CAPTURED,
    "settled": GatewayStatus.CAPTURED,
    "funded": GatewayStatus.CAPTURED,
    "complete": GatewayStatus.CAPTURED,
    "voided": GatewayStatus.VOIDED,
    "declined": GatewayStatus.DECLINED,
    "rejected": GatewayStatus.DECLINED,
    "failed": GatewayStatus.DECLINED,
    "review": GatewayStatus.PENDING,
    "unfunded": GatewayStatus.DECLINED,
}


def base_url(sandbox: bool) -> str:
    return SANDBOX_BASE if sandbox else LIVE_BASE


def order_number_for(idempotency_key: str) -> str:
    """The ``order_number`` that carries payhub's idempotency key (stable, ≤ 36 chars)."""
    if 0 < len(idempotency_key) <= ORDER_NUMBER_MAX and idempotency_key.isascii():
        return idempotency_key
    return "ph" + hashlib.sha256(idempotency_key.encode()).hexdigest()[: ORDER_NUMBER_MAX - 2]


def decline_code(response_code: str, description: str) -> str:
    return declines.decline_code(response_code, description, overlay=_DECLINES)


class ForteGateway:
    """Forte's REST API v3, spoken in payhub's neutral terms."""

    name = "forte"

    def __init__(self, client: httpx.Client | None = None) -> None:
        self._http = GatewayHttp(self.name, client)

    # --- the Gateway port ------------------------------------------------------------------

    def charge(self, creds: GatewayCredentials, request: ChargeRequest) -> GatewayResult:
        source = request.source
        if source.method_type is not MethodType.CARD:
            raise ValueError("payhub takes only cards through Forte")
        _require_usd(request.amount)
        body: dict[str, Any] = {
            "action": "sale" if request.capture else "authorize",
            "authorization_amount": _amount(request.amount),
            "order_number": order_number_for(request.idempotency_key),
        }
        if source.token is not None:
            body["card"] = {"one_time_token": source.token}
        else:
            body["paymethod_token"] = source.saved_method_ref or ""
            if source.gateway_customer_ref:
                body["customer_token"] = source.gateway_customer_ref
        status, reply = self._send(creds, "POST", "/transactions", body)
        if _approved(status, reply):
            return GatewayResult(
                reference=str(reply.get("transaction_id", "")),
                status=GatewayStatus.CAPTURED if request.capture else GatewayStatus.AUTHORIZED,
                amount=request.amount,
                message=_desc(reply),
                support=_support(reply),
            )
        failure = _failure(reply)
        if _code(reply) == _DUPLICATE or (
            isinstance(failure, PaymentMethodInvalid) and source.token is not None
        ):
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
        order = order_number_for(request.idempotency_key)
        path = f"/transactions?filter=order_number+eq+'{quote(order, safe='')}'"
        status, reply = self._send(creds, "GET", path, None)
        if status >= 400:
            raise _failure(reply)
        for row in reply.get("results") or []:
            if not isinstance(row, dict) or row.get("order_number") != order:
                continue
            if str(row.get("action", "")) in ("sale", "authorize"):
                result = _result(row)
                if result.status is not GatewayStatus.DECLINED:
                    return result
        return None

    def capture(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        """Capture an authorization in full (Forte documents no partial capture)."""
        row = self._transaction(creds, reference)
        body = {"action": "capture", "authorization_code": _auth_code(row)}
        status, reply = self._send(creds, "PUT", f"/transactions/{_trn(reference)}", body)
        if not _approved(status, reply):
            raise _failure(reply)
        return GatewayResult(
            reference, GatewayStatus.CAPTURED, amount, message=_desc(reply), support=_support(reply)
        )

    def refund(
        self, creds: GatewayCredentials, reference: str, amount: Money, idempotency_key: str
    ) -> GatewayResult:
        """A ``reverse`` of all or part of a captured transaction (a transaction of its own)."""
        _require_usd(amount)
        row = self._transaction(creds, reference)
        body = {
            "action": "reverse",
            "original_transaction_id": _trn(reference),
            "authorization_code": _auth_code(row),
            "authorization_amount": _amount(amount),
        }
        status, reply = self._send(creds, "POST", "/transactions", body)
        if not _approved(status, reply):
            raise _failure(reply)
        return GatewayResult(
            str(reply.get("transaction_id") or reference),
            GatewayStatus.REFUNDED,
            amount,
            message=_desc(reply),
            support=_support(reply),
        )

    def void(
        self, creds: GatewayCredentials, reference: str, idempotency_key: str
    ) -> GatewayResult:
        row = self._transaction(creds, reference)
        body = {"action": "void", "authorization_code": _auth_code(row)}
        status, reply = self._send(creds, "PUT", f"/transactions/{_trn(reference)}", body)
        if not _approved(status, reply):
            raise _failure(reply)
        return GatewayResult(
            reference,
            GatewayStatus.VOIDED,
            _money(row.get("authorization_amount")),
            message=_desc(reply),
            support=_support(reply),
        )

    def status(self, creds: GatewayCredentials, reference: str) -> GatewayResult:
        return _result(self._transaction(creds, reference))

    def save_payment_method(
        self, creds: GatewayCredentials, request: SaveMethodRequest
    ) -> SavedMethod:
        """Create the Forte customer when needed, then attach the Forte.js card as a paymethod."""
        if request.method_type is not MethodType.CARD:
            raise ValueError("payhub saves only cards with Forte")
        customer = request.gateway_customer_ref
        if customer is None:
            first, _, last = (request.name or "").strip().rpartition(" ")
            body = {
                "first_name": (first or last or "payhub")[:25],
                "last_name": (last if first else request.customer_id)[:25],
                "customer_id": request.customer_id[:15],
            }
            status, reply = self._send(creds, "POST", "/customers", body)
            customer = str(reply.get("customer_token") or "")
            if status >= 400 or not customer:
                raise _failure(reply)
        body2 = {"card": {"one_time_token": request.token}}
        status, reply = self._send(
            creds, "POST", f"/customers/{_segment(customer, 'cst_')}/paymethods", body2
        )
        method = str(reply.get("paymethod_token") or "")
        if status >= 400 or not method:
            raise _failure(reply)
        card = reply.get("card") if isinstance(reply.get("card"), dict) else {}
        assert isinstance(card, dict)
        return SavedMethod(
            gateway_customer_ref=customer,
            method_ref=method,
            method_type=MethodType.CARD,
            brand=_brand(str(card.get("card_type", ""))),
            last4=_last4(
                str(card.get("last_4_account_number") or card.get("masked_account_number") or "")
            ),
            exp_month=_int(card.get("expire_month")),
            exp_year=_int(card.get("expire_year")),
        )

    # --- wire --------------------------------------------------------------------------------

    def _transaction(self, creds: GatewayCredentials, reference: str) -> dict[str, Any]:
        status, reply = self._send(creds, "GET", f"/transactions/{_trn(reference)}", None)
        if status == 404 or (status < 400 and reply.get("transaction_id") != reference):
            raise GatewayError(f"Forte has no transaction {reference}", gateway=self.name)
        if status >= 400:
            raise _failure(reply)
        return reply

    def _send(
        self, creds: GatewayCredentials, method: str, path: str, body: dict[str, Any] | None
    ) -> tuple[int, dict[str, Any]]:
        access_id = creds.fields.get("accessId", "")
        org = _prefixed(creds.fields.get("organizationId", ""), "org_")
        loc = _prefixed(creds.fields.get("locationId", ""), "loc_")
        if not (access_id and org and loc):
            raise GatewayCredentialsRejected(
                f"Forte needs accessId, organizationId and locationId; {_HINT}", gateway=self.name
            )
        url = f"{base_url(creds.sandbox)}/organizations/{org}/locations/{loc}{path}"
        response = self._http.send(
            method,
            url,
            json=body,
            auth=(access_id, creds.api_secret),
            headers={"X-Forte-Auth-Organization-Id": org, "Accept": "application/json"},
        )
        secrets = [creds.api_secret]
        if body and isinstance(body.get("card"), dict):
            secrets.append(str(body["card"].get("one_time_token", "")))
        parsed = json_value(response.content)
        if not isinstance(parsed, dict):
            if response.status_code == 404:
                return 404, {}
            raise unexpected(self.name)
        scrubbed: dict[str, Any] = hide_in(parsed, secrets)
        return response.status_code, scrubbed


# --- mapping ------------------------------------------------------------------------------


def _prefixed(value: str, prefix: str) -> str:
    value = value.strip()
    if not value:
        return ""
    return _segment(value if value.startswith(prefix) else prefix + value, prefix)


def _segment(value: str, prefix: str) -> str:
    """An id that is safe as one path segment (``org_…``, ``cst_…``), or a refusal."""
    if (
        not value.startswith(prefix)
        or not value[len(prefix) :].replace("_", "").replace("-", "").isalnum()
    ):
        raise GatewayError(f"not a Forte {prefix}… identifier", gateway=ForteGateway.name)
    return value


def _trn(reference: str) -> str:
    return _segment(reference, "trn_")


def _response(reply: dict[str, Any]) -> dict[str, Any]:
    inner = reply.get("response")
    return inner if isinstance(inner, dict) else {}


def _code(reply: dict[str, Any]) -> str:
    return str(_response(reply).get("response_code") or "")


def _desc(reply: dict[str, Any]) -> str | None:
    return redact(str(_response(reply).get("response_desc") or ""))


def _approved(status: int, reply: dict[str, Any]) -> bool:
    return status < 300 and _code(reply) == "A01"


def _support(reply: dict[str, Any]) -> dict[str, str]:
    inner = _response(reply)
    out = {"transaction_id": str(reply.get("transaction_id") or "")}
    for key in ("response_code", "avs_result", "cvv_result"):
        out[key] = str(inner.get(key) or "")
    return {k: v[:64] for k, v in out.items() if v}


def _failure(reply: dict[str, Any]) -> GatewayError:
    code, desc = _code(reply), _desc(reply) or ""
    reference = str(reply.get("transaction_id") or "") or None
    lowered = desc.lower()
    if code in _CREDENTIAL_CODES or "authentication" in lowered or "unauthorized" in lowered:
        return GatewayCredentialsRejected(
            f"Forte refused the merchant's credentials; {_HINT}",
            gateway=ForteGateway.name,
            gateway_message=desc or None,
        )
    if code in _METHOD_CODES or "token" in lowered or "paymethod" in lowered:
        return PaymentMethodInvalid(
            "Forte does not accept this payment method (the Forte.js token is invalid, expired"
            " or used, or the paymethod is gone); collect the card again",
            gateway=ForteGateway.name,
            gateway_message=desc or None,
            gateway_request_id=reference,
        )
    if code and code != "A01" and (code in _DECLINES or not code.startswith("U")):
        reason = decline_code(code, desc)
        return Declined(
            f"Forte declined the payment ({reason}, response code {code})",
            gateway=ForteGateway.name,
            decline_code=reason,
            gateway_message=desc or None,
            gateway_request_id=reference,
        )
    return GatewayError(
        f"Forte refused the request (response code {code or 'none'})",
        gateway=ForteGateway.name,
        gateway_message=desc or None,
        gateway_request_id=reference,
    )


def _result(row: dict[str, Any]) -> GatewayResult:
    action = str(row.get("action", ""))
    state = str(row.get("status", "")).lower()
    status = _STATUS.get(state, GatewayStatus.PENDING)
    if action == "reverse" and status is GatewayStatus.CAPTURED:
        status = GatewayStatus.REFUNDED
    if _code(row) not in ("", "A01") and status is GatewayStatus.PENDING:
        status = GatewayStatus.DECLINED
    return GatewayResult(
        reference=str(row.get("transaction_id", "")),
        status=status,
        amount=_money(row.get("authorization_amount")),
        support={k: v for k, v in (("status", state[:32]),) if v},
    )


def _auth_code(row: dict[str, Any]) -> str:
    return str(row.get("authorization_code") or _response(row).get("authorization_code") or "")


def _require_usd(amount: Money) -> None:
    if amount.currency != "USD":
        raise GatewayError(f"Forte processes USD only, not {amount.currency}", gateway="forte")


def _amount(money: Money) -> str:
    return format(money.amount, "f")


def _money(value: Any) -> Money:
    try:
        number = Decimal(str(value if value is not None else "0"))
        return Money.of(abs(number), "USD")
    except (InvalidOperation, ValidationError):
        raise GatewayError("Forte reported an amount payhub cannot read", gateway="forte") from None


def _int(value: Any) -> int | None:
    try:
        return int(str(value).strip())
    except (TypeError, ValueError):
        return None


def _last4(text: str) -> str | None:
    tail = text.strip()[-4:]
    return tail if len(tail) == 4 and tail.isdigit() else None


def _brand(card_type: str) -> str | None:
    return {
        "visa": "visa",
        "mast": "mastercard",
        "mastercard": "mastercard",
        "amex": "amex",
        "disc": "discover",
        "discover": "discover",
        "jcb": "jcb",
        "dine": "diners",
    }.get(card_type.strip().lower())
