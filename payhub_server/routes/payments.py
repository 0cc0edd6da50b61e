"""Payments: charge, and capture, refund, void and status of a transaction.

``X-Merchant-Reference`` names the merchant whose gateway credentials are used. Money-moving
POSTs accept ``Idempotency-Key``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any, Literal

import msgspec
from litestar import Controller, Request, Response
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import FromPath, FromQuery, HeaderParameter, QueryParameter

from payhub.domain.errors import PayHubError, ValidationError
from payhub.domain.money import Money
from payhub.domain.payments import MethodType
from payhub.ports import StoredResponse
from payhub.services.payments import Answer, ChargeInput, Payments, TransactionView
from payhub.wire.payments import TransactionOut
from payhub_server.deps import MERCHANT_KEY_OK, Hub, Tenant, api_get, api_post
from payhub_server.encoding import encode
from payhub_server.idempotency import call_for, replayed, stored
from payhub_server.problems import from_domain
from payhub_server.routes.wire import Page


class AmountIn(msgspec.Struct, forbid_unknown_fields=True):
    value: Decimal
    currency: str


class ChargeIn(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    amount: AmountIn
    gateway_name: str
    payment_method_token: str | None = None
    type: Literal["Card", "BankAccount"] | None = None
    location_id: str | None = None
    capture: bool = True
    description: str | None = None


class AmountBody(msgspec.Struct, forbid_unknown_fields=True):
    """Optional amount for a capture or refund; left out means all that is left."""

    amount: AmountIn | None = None


def _out(view: TransactionView, status: int = 200) -> Response[bytes]:
    body = encode(TransactionOut.of(view.transaction, view.events))
    return Response(body, status_code=status, media_type="application/json")


class _Responder:
    """The HTTP answers a charge stores under its Idempotency-Key (the service stores them
    in the same transaction as the outcome)."""

    def __init__(self, request: Request[Any, Any, Any], status: int = 200) -> None:
        self._request = request
        self._status = status

    def success(self, view: TransactionView) -> StoredResponse:
        answer = stored(_out(view, self._status))
        assert answer is not None
        return answer

    def failure(self, error: PayHubError) -> StoredResponse | None:
        return stored(from_domain(self._request, error))


def _answered(request: Request[Any, Any, Any], answer: Answer, status: int) -> Response[bytes]:
    """The HTTP answer of a payment taken under an Idempotency-Key by the service."""
    if answer.replayed:
        assert answer.stored is not None
        return replayed(answer.stored)
    if answer.error is not None:
        return from_domain(request, answer.error)
    assert answer.stored is not None  # the body the responder rendered and stored
    return Response(answer.stored.body, status_code=status, media_type="application/json")


def _payments(tenant: Tenant, request: Request[Any, Any, Any]) -> Payments:
    reference = request.headers.get("x-merchant-reference", "").strip()
    if not reference:
        raise ValidationError.for_field("X-Merchant-Reference", "header is required")
    return tenant.merchant(reference).payments


def _amount(body: AmountBody | None) -> Money | None:
    if body is None or body.amount is None:
        return None
    return Money.of(body.amount.value, body.amount.currency, field="amount.value")


MERCHANT_HEADER = HeaderParameter(
    name="X-Merchant-Reference", description="The merchant's externalReference"
)
IDEMPOTENCY = HeaderParameter(
    name="Idempotency-Key", required=False, description="Retry safely: one outcome per key (24 h)"
)
_TX = {200: ResponseSpec(TransactionOut, description="The transaction")}


class PaymentController(Controller):
    path = "/api/payments"
    tags = ["Payments"]

    @api_post(
        "/charge",
        opt=MERCHANT_KEY_OK,
        summary="Charge a card or bank account",
        status_code=201,
        responses={201: ResponseSpec(TransactionOut, description="Charged")},
    )
    def charge(
        self,
        data: ChargeIn,
        request: Request[Any, Any, Any],
        tenant: Tenant,
        hub: Hub,
        merchant_reference: Annotated[str, MERCHANT_HEADER],
        idempotency_key: Annotated[str | None, IDEMPOTENCY] = None,
    ) -> Response[bytes]:
        """A sale, or with `capture: false` an authorization to capture later. `type:
        BankAccount` is an ACH debit: a success means submitted, not settled."""
        payments = _payments(tenant, request)
        given = ChargeInput(
            amount=data.amount.value,
            currency=data.amount.currency,
            gateway=data.gateway_name,
            token=data.payment_method_token,
            method_type=MethodType(data.type) if data.type else MethodType.CARD,
            location_id=data.location_id,
            capture=data.capture,
            description=data.description,
        )
        call = call_for(tenant.caller, request, data)
        if call is None:
            return _out(payments.charge(given), 201)
        answer = payments.charge_once(given, call, _Responder(request, 201))
        return _answered(request, answer, 201)

    @api_post(
        "/{gateway:str}/transactions/{transaction_id:str}/capture",
        opt=MERCHANT_KEY_OK,
        summary="Capture an authorization",
        status_code=200,
        responses=_TX,
    )
    def capture(
        self,
        gateway: FromPath[str],
        transaction_id: FromPath[str],
        request: Request[Any, Any, Any],
        tenant: Tenant,
        merchant_reference: Annotated[str, MERCHANT_HEADER],
        data: AmountBody | None = None,
        idempotency_key: Annotated[str | None, IDEMPOTENCY] = None,
    ) -> Response[bytes]:
        """All of it, or `amount` for part of it where the gateway allows."""
        payments = _payments(tenant, request)
        call = call_for(tenant.caller, request, data)
        if call is None:
            return _out(payments.capture(gateway, transaction_id, _amount(data)))
        return _answered(
            request,
            payments.capture_once(
                gateway, transaction_id, _amount(data), call, _Responder(request)
            ),
            200,
        )

    @api_post(
        "/{gateway:str}/transactions/{transaction_id:str}/refund",
        opt=MERCHANT_KEY_OK,
        summary="Refund a captured transaction",
        status_code=200,
        responses=_TX,
    )
    def refund(
        self,
        gateway: FromPath[str],
        transaction_id: FromPath[str],
        request: Request[Any, Any, Any],
        tenant: Tenant,
        merchant_reference: Annotated[str, MERCHANT_HEADER],
        data: AmountBody | None = None,
        idempotency_key: Annotated[str | None, IDEMPOTENCY] = None,
    ) -> Response[bytes]:
        """All that is left, or `amount`; repeatedly, never past what was captured."""
        payments = _payments(tenant, request)
        call = call_for(tenant.caller, request, data)
        if call is None:
            return _out(payments.refund(gateway, transaction_id, _amount(data)))
        return _answered(
            request,
            payments.refund_once(gateway, transaction_id, _amount(data), call, _Responder(request)),
            200,
        )

    @api_post(
        "/{gateway:str}/transactions/{transaction_id:str}/void",
        opt=MERCHANT_KEY_OK,
        summary="Void an authorization",
        status_code=200,
        responses=_TX,
    )
    def void(
        self,
        gateway: FromPath[str],
        transaction_id: FromPath[str],
        request: Request[Any, Any, Any],
        tenant: Tenant,
        merchant_reference: Annotated[str, MERCHANT_HEADER],
        idempotency_key: Annotated[str | None, IDEMPOTENCY] = None,
    ) -> Response[bytes]:
        """Release an authorization that was not captured. A captured one is refunded instead."""
        payments = _payments(tenant, request)
        call = call_for(tenant.caller, request, None)
        if call is None:
            return _out(payments.void(gateway, transaction_id))
        return _answered(
            request, payments.void_once(gateway, transaction_id, call, _Responder(request)), 200
        )

    @api_get(
        "/{gateway:str}/transactions/{transaction_id:str}",
        opt=MERCHANT_KEY_OK,
        summary="Get a transaction and its ledger",
    )
    def status(
        self,
        gateway: FromPath[str],
        transaction_id: FromPath[str],
        request: Request[Any, Any, Any],
        tenant: Tenant,
        merchant_reference: Annotated[str, MERCHANT_HEADER],
        refresh: FromQuery[bool] = False,
    ) -> TransactionOut:
        """The stored transaction; with `refresh=true` payhub asks the gateway first (this
        settles an `Unknown` transaction and records ACH returns)."""
        payments = _payments(tenant, request)
        view = (
            payments.refresh(gateway, transaction_id)
            if refresh
            else payments.get(gateway, transaction_id)
        )
        return TransactionOut.of(view.transaction, view.events)

    @api_get("/transactions", opt=MERCHANT_KEY_OK, summary="List a merchant's transactions")
    def list_transactions(
        self,
        request: Request[Any, Any, Any],
        tenant: Tenant,
        merchant_reference: Annotated[str, MERCHANT_HEADER],
        limit: Annotated[int, QueryParameter(ge=1, le=200)] = 50,
        starting_after: Annotated[str | None, QueryParameter(name="startingAfter")] = None,
    ) -> Page[TransactionOut]:
        """Newest first."""
        rows, more = _payments(tenant, request).list(after=starting_after, limit=limit)
        return Page(
            [TransactionOut.of(t) for t in rows],
            has_more=more,
            next_cursor=rows[-1].id if more and rows else None,
        )
