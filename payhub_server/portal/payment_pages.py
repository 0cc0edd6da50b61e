"""Payments: transactions with filters, a transaction's page, refund (all or part) and void.

Refund and void are the API's (``shop.payments.refund`` / ``void``, the same rules), once
per form: each rendering of the page carries a fresh idempotency key, so a form sent twice
(a double click, a reload) moves money once (``Payments.follow_up_once``).
"""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Request, Response, get, post
from litestar.params import FromPath, Parameter

from payhub.domain.errors import FieldError, ValidationError
from payhub.domain.fields import raise_if_any
from payhub.domain.money import Money
from payhub.domain.payments import TxStatus
from payhub.domain.portal import PortalUser
from payhub_server.portal.page_tools import (
    MANAGERS,
    MERCHANT_USERS,
    day,
    decimal,
    field_errors,
    form_key,
)
from payhub_server.portal.session import Form, Shop, portal_page, redirect

PAGE = 25
DoneParam = Annotated[str | None, Parameter(query="done", required=False)]
_DONE = {
    "refund": "Refund made.",
    "void": "Authorization voided.",
    "replayed": "This form was already sent: nothing more was done.",
}


@get("/portal/payments", guards=MERCHANT_USERS, sync_to_thread=True)
def payments(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: Shop,
    status: Annotated[str | None, Parameter(query="status", required=False)] = None,
    created_from: Annotated[str | None, Parameter(query="from", required=False)] = None,
    created_to: Annotated[str | None, Parameter(query="to", required=False)] = None,
    after: Annotated[str | None, Parameter(query="after", required=False)] = None,
) -> Response[bytes]:
    errors: list[FieldError] = []
    query = {"status": status or "", "from": created_from or "", "to": created_to or ""}
    wanted = [s for s in TxStatus if s.value == query["status"]]
    first = day(query, "from", errors)
    last = day(query, "to", errors)
    rows: list[Any] = []
    more = None
    try:
        raise_if_any(errors)
        rows, has_more = shop.payments.list(
            after=after or None,
            limit=PAGE,
            statuses=wanted or None,
            created_from=first,
            created_to=last,
        )
        more = rows[-1].id if has_more and rows else None
    except ValidationError as e:
        errors = list(e.fields) or [FieldError("from", e.detail)]
    return portal_page(
        request,
        "portal/payments.html",
        user,
        title="Payments",
        status=400 if errors else 200,
        transactions=rows,
        more=more,
        query=query,
        shown={k: v for k, v in query.items() if v},
        statuses=[s.value for s in TxStatus],
        errors={f.field: f.message for f in errors},
        zone=shop.texting.settings().time_zone,
    )


def _transaction_page(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: Shop,
    transaction_id: str,
    *,
    errors: dict[str, str] | None = None,
    form: dict[str, str] | None = None,
    done: str | None = None,
    status: int = 200,
) -> Response[bytes]:
    view = shop.payments.find(transaction_id)
    tx = view.transaction
    return portal_page(
        request,
        "portal/payment.html",
        user,
        title=f"Payment {tx.id}",
        status=status,
        tx=tx,
        events=view.events,
        can_refund=tx.status in (TxStatus.CAPTURED, TxStatus.SUBMITTED, TxStatus.PARTIALLY_REFUNDED)
        and tx.refundable.amount > 0,
        can_void=tx.status is TxStatus.AUTHORIZED,
        may_move=user.role.value in ("owner", "admin"),
        key=form_key(request),
        zone=shop.texting.settings().time_zone,
        errors=errors or {},
        form=form or {},
        done=_DONE.get(done or ""),
    )


@get("/portal/payments/{transaction_id:str}", guards=MERCHANT_USERS, sync_to_thread=True)
def transaction(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: Shop,
    transaction_id: FromPath[str],
    done: DoneParam = None,
) -> Response[bytes]:
    return _transaction_page(request, user, shop, transaction_id, done=done)


def _move(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: Shop,
    transaction_id: str,
    form: dict[str, str],
    operation: str,
) -> Response[bytes]:
    tx = shop.payments.find(transaction_id).transaction
    errors: list[FieldError] = []
    amount = None
    if operation == "refund":
        value = decimal(form, "amount", errors)
        if value is not None:
            try:
                amount = Money.of(value, tx.amount.currency).require_positive()
            except ValidationError as e:
                errors.extend(e.fields)
    try:
        raise_if_any(errors)
        key = form.get("idempotencyKey", "")
        if not key:
            raise ValidationError.for_field("form", "this form is missing its key: reload the page")
        _, replayed = shop.payments.follow_up_once(operation, tx.gateway, tx.id, amount, key)
    except ValidationError as e:
        return _transaction_page(
            request, user, shop, transaction_id, errors=field_errors(e), form=form, status=400
        )
    done = "replayed" if replayed else operation
    return redirect(f"/portal/payments/{tx.id}?done={done}")


@post("/portal/payments/{transaction_id:str}/refund", guards=MANAGERS, sync_to_thread=True,
      status_code=303)  # fmt: skip
def refund(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: Shop,
    transaction_id: FromPath[str],
    form: Form,
) -> Response[bytes]:
    """All that is left, or ``amount``; never past what was captured (the API's rules)."""
    return _move(request, user, shop, transaction_id, form, "refund")


@post("/portal/payments/{transaction_id:str}/void", guards=MANAGERS, sync_to_thread=True,
      status_code=303)  # fmt: skip
def void(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: Shop,
    transaction_id: FromPath[str],
    form: Form,
) -> Response[bytes]:
    return _move(request, user, shop, transaction_id, form, "void")


PAYMENT_HANDLERS = [payments, transaction, refund, void]
