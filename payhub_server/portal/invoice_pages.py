"""Invoices: the list with filters, an invoice's page and its actions (send, resend, void,
the pay link, the embed code, a schedule request), and a new invoice from the catalog.

The same services as ``M/invoices``: ``shop.invoices`` and ``shop.schedule_requests``.
"""

from __future__ import annotations

from datetime import datetime, time
from decimal import Decimal
from typing import Annotated, Any
from zoneinfo import ZoneInfo

from litestar import Request, Response, get, post
from litestar.params import FromPath, Parameter

from payhub.domain.errors import Conflict, FieldError, NotFound, ValidationError
from payhub.domain.fields import raise_if_any
from payhub.domain.invoices import InvoiceStatus, LineInput
from payhub.domain.portal import PortalUser
from payhub.services.invoices import InvoiceInput
from payhub.services.schedule_requests import RequestInput
from payhub.services.schedules import Charge, Timing
from payhub_server.portal.page_tools import (
    MANAGERS,
    MERCHANT_USERS,
    day,
    decimal,
    field_errors,
    text,
    whole,
)
from payhub_server.portal.session import Form, Shop, portal_page, redirect

PAGE = 25
LINES = 5  # product rows on the new-invoice form
DoneParam = Annotated[str | None, Parameter(query="done", required=False)]
_DONE = {"sent": "Invoice sent: the pay link went to the customer (when email is set up).",
         "voided": "Invoice voided.", "created": "Invoice created as a draft."}  # fmt: skip


@get("/portal/invoices", guards=MERCHANT_USERS, sync_to_thread=True)
def invoices(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: Shop,
    status: Annotated[str | None, Parameter(query="status", required=False)] = None,
    customer: Annotated[str | None, Parameter(query="customer", required=False)] = None,
    created_from: Annotated[str | None, Parameter(query="from", required=False)] = None,
    created_to: Annotated[str | None, Parameter(query="to", required=False)] = None,
    after: Annotated[str | None, Parameter(query="after", required=False)] = None,
) -> Response[bytes]:
    errors: list[FieldError] = []
    query = {"status": status or "", "customer": (customer or "").strip()[:100],
             "from": created_from or "", "to": created_to or ""}  # fmt: skip
    wanted = [s for s in InvoiceStatus if s.value == query["status"]]
    first = day(query, "from", errors)
    last = day(query, "to", errors)
    items: list[Any] = []
    more = None
    shown = {k: v for k, v in query.items() if v}
    try:
        raise_if_any(errors)
        page = shop.invoices.list(
            customer_id=query["customer"] or None,
            after=after or None,
            limit=PAGE,
            statuses=wanted or None,
            created_from=first,
            created_to=last,
        )
        items, more = page.items, page.next_cursor if page.has_more else None
    except ValidationError as e:
        errors = list(e.fields) or [FieldError("from", e.detail)]
    return portal_page(
        request,
        "portal/invoices.html",
        user,
        title="Invoices",
        status=400 if errors else 200,
        invoices=items,
        more=more,
        query=query,
        shown=shown,
        statuses=[s.value for s in InvoiceStatus],
        errors={f.field: f.message for f in errors},
        zone=shop.texting.settings().time_zone,
        customers={c.id: c.name.display or c.id for c in shop.customers.list(limit=200).items},
    )


# --- one invoice -------------------------------------------------------------------------------


def _invoice_page(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: Shop,
    number: str,
    *,
    errors: dict[str, str] | None = None,
    form: dict[str, str] | None = None,
    approval_url: str | None = None,
    done: str | None = None,
    status: int = 200,
) -> Response[bytes]:
    invoice = shop.invoices.get(number)
    embed = None
    embed_refusal = None
    try:
        embed = shop.invoices.embed(invoice.number)
    except Conflict as e:
        embed_refusal = e.detail
    customer = shop.customers.get(invoice.customer_id) if invoice.customer_id else None
    return portal_page(
        request,
        "portal/invoice.html",
        user,
        title=f"Invoice {invoice.number}",
        status=status,
        invoice=invoice,
        customer=customer,
        pay_url=shop.invoices.pay_url(invoice),
        embed=embed,
        embed_refusal=embed_refusal,
        approval_url=approval_url,
        zone=shop.texting.settings().time_zone,
        errors=errors or {},
        form=form or {},
        done=_DONE.get(done or ""),
        can_void=user.role.value in ("owner", "admin"),
    )


@get("/portal/invoices/{number:str}", guards=MERCHANT_USERS, sync_to_thread=True)
def invoice(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: Shop,
    number: FromPath[str],
    done: DoneParam = None,
) -> Response[bytes]:
    return _invoice_page(request, user, shop, number, done=done)


@post("/portal/invoices/{number:str}/send", guards=MERCHANT_USERS, sync_to_thread=True,
      status_code=303)  # fmt: skip
def send(
    request: Request[Any, Any, Any], user: PortalUser, shop: Shop, number: FromPath[str]
) -> Response[bytes]:
    """Send a draft, or send a sent invoice's link again (the API's send)."""
    sent = shop.invoices.send(number)
    return redirect(f"/portal/invoices/{sent.invoice.number}?done=sent")


@post("/portal/invoices/{number:str}/void", guards=MANAGERS, sync_to_thread=True,
      status_code=303)  # fmt: skip
def void(
    request: Request[Any, Any, Any], user: PortalUser, shop: Shop, number: FromPath[str]
) -> Response[bytes]:
    voided = shop.invoices.void(number)
    return redirect(f"/portal/invoices/{voided.number}?done=voided")


@post("/portal/invoices/{number:str}/schedule-request", guards=MERCHANT_USERS,
      sync_to_thread=True, status_code=200)  # fmt: skip
def schedule_request(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: Shop,
    number: FromPath[str],
    form: Form,
) -> Response[bytes]:
    """A request the customer approves on its own page (the API's schedule request): the
    first run's day (9:00 in the merchant's time zone), one time or a cadence, an amount per
    run (blank: the amount due)."""
    errors: list[FieldError] = []
    first = day(form, "startDate", errors)
    if first is None and not errors:
        errors.append(FieldError("startDate", "choose the day of the first payment"))
    amount = decimal(form, "amount", errors)
    count = whole(form, "maxCharges", errors)
    end = day(form, "endDate", errors)
    cadence = form.get("cadence") or None
    try:
        raise_if_any(errors)
        assert first is not None
        zone = ZoneInfo(shop.texting.settings().time_zone or "UTC")
        start = datetime.combine(first, time(9), zone)
        made = shop.schedule_requests.create_for_invoice(
            number,
            RequestInput(
                timing=Timing(start, cadence, end, count),
                charge=Charge(currency=shop.invoices.get(number).currency, amount=amount),
                description=text(form, "description"),
            ),
        )
    except ValidationError as e:
        return _invoice_page(
            request, user, shop, number, errors=field_errors(e), form=form, status=400
        )
    return _invoice_page(request, user, shop, number, approval_url=shop.schedule_requests.url(made))


# --- a new invoice from the catalog -------------------------------------------------------------


def _new_page(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: Shop,
    form: dict[str, str],
    errors: dict[str, str] | None = None,
    status: int = 200,
) -> Response[bytes]:
    products = shop.products.list(limit=200).items
    return portal_page(
        request,
        "portal/invoice_new.html",
        user,
        title="New invoice",
        status=status,
        products=products,
        gateways=[c for c in shop.credentials.list() if c.enabled],
        tax_rates=shop.tax_rates.list(limit=200).items,
        customers=shop.customers.list(limit=200).items,
        lines=range(1, LINES + 1),
        form=form,
        errors=errors or {},
    )


@get("/portal/invoices/new", guards=MERCHANT_USERS, sync_to_thread=True)
def new_invoice(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: Shop,
    customer: Annotated[str | None, Parameter(query="customer", required=False)] = None,
) -> Response[bytes]:
    return _new_page(request, user, shop, {"customer": (customer or "")[:100]})


@post("/portal/invoices", guards=MERCHANT_USERS, sync_to_thread=True, status_code=303)
def create_invoice(
    request: Request[Any, Any, Any], user: PortalUser, shop: Shop, form: Form
) -> Response[bytes]:
    """Lines from catalog products (each line carries the product's name, price and taxable
    flag as they are now: editing the product later changes nothing, spec product rule 3)."""
    errors: list[FieldError] = []
    lines: list[LineInput] = []
    for n in range(1, LINES + 1):
        product_id = form.get(f"product{n}", "").strip()
        if not product_id:
            continue
        given = decimal(form, f"quantity{n}", errors)
        quantity = Decimal(1) if given is None else given
        try:
            product = shop.products.get(product_id)
        except NotFound:
            errors.append(FieldError(f"product{n}", "is not one of your products"))
            continue
        lines.append(
            LineInput(
                description=product.name,
                quantity=quantity,
                unit_price=product.unit_price.amount,
                is_taxable=product.taxable,
                product_id=product.id,
            )
        )
    if not lines and not errors:
        errors.append(FieldError("product1", "choose at least one product"))
    due = day(form, "dueDate", errors)
    try:
        raise_if_any(errors)
        made = shop.invoices.create(
            InvoiceInput(
                line_items=lines,
                gateway=form.get("gateway", ""),
                customer_id=text(form, "customer"),
                tax_rate_id=text(form, "taxRate"),
                due_date=due,
                description=text(form, "description"),
            )
        )
    except ValidationError as e:
        mapped = {"customerId": "customer", "taxRateId": "taxRate", "dueDate": "dueDate"}
        fields = [FieldError(mapped.get(f.field, f.field), f.message) for f in e.fields]
        return _new_page(
            request, user, shop, form, field_errors(ValidationError(e.detail, fields)), 400
        )
    return redirect(f"/portal/invoices/{made.number}?done=created")


INVOICE_HANDLERS = [
    invoices,
    new_invoice,
    create_invoice,
    invoice,
    send,
    void,
    schedule_request,
]
