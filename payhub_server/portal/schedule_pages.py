"""The merchant's scheduled payments: the list, a schedule's page (pause, resume, cancel) and
the edit form of a Paused or Failed schedule (spec: "In the portal a merchant can edit a
schedule's details while it is paused or failed"), through ``ScheduledPayments.edit``.

The form always shows every detail; a group the user left as it was is sent as ``KEEP``, so
saving, say, a new card does not re-check an amount whose named tax rate has since been
archived, nor re-date a next run that has passed while paused (resuming skips those).
"""

from __future__ import annotations

from datetime import datetime, time
from decimal import Decimal
from typing import Annotated, Any
from zoneinfo import ZoneInfo

from litestar import Request, Response, get, post
from litestar.params import FromPath, Parameter

from payhub.domain.errors import Conflict, FieldError, ValidationError
from payhub.domain.invoices import LineInput
from payhub.domain.money import format_money, minor_unit_exponent
from payhub.domain.portal import PortalUser
from payhub.domain.schedules import ScheduledPayment, ScheduleKind, ScheduleStatus, to_utc
from payhub.hub import MerchantScope
from payhub.services.edits import KEEP
from payhub.services.schedules import Charge, ScheduleEdit
from payhub_server.pages.formats import local_date, local_time
from payhub_server.portal.session import Form, Shop, portal_page, redirect
from payhub_server.portal.shop_forms import (
    address_fields,
    address_of,
    date_of,
    decimal_of,
    field_errors,
    int_of,
    raise_if,
    text_of,
)

LIST_MAX = 100
EXTRA_LINES = 2
StatusParam = Annotated[str | None, Parameter(query="status", required=False)]
EDITABLE = (ScheduleStatus.PAUSED, ScheduleStatus.FAILED)

# The service's field names -> the form's.
_FIELDS = {
    "amount": "amount",
    "taxRatePercent": "taxRatePercent",
    "taxRateId": "tax",
    "nextRunAtUtc": "nextRunDate",
    "endDate": "endDate",
    "maxCharges": "maxCharges",
    "paymentMethodId": "paymentMethodId",
    "lineItems": "lines",
    "description": "description",
}


def _form_field(name: str) -> str:
    if name.startswith("lineItems["):
        index, _, part = name[len("lineItems[") :].partition("].")
        return f"line-{index}-{part}" if part else "lines"
    for prefix, form_prefix in (("billToAddress.", "billTo-"), ("shipToAddress.", "shipTo-")):
        if name.startswith(prefix):
            return form_prefix + name[len(prefix) :]
    return _FIELDS.get(name, name)


def _errors(e: ValidationError) -> dict[str, str]:
    found = field_errors(e)
    return {_form_field(k): v for k, v in found.items()}


def _plain(value: Decimal, currency: str) -> str:
    return f"{value:.{minor_unit_exponent(currency)}f}"


def _method_label(method: Any) -> str:
    if method.method_type.value == "BankAccount":
        return f"Bank account ending in {method.last4}" if method.last4 else "Bank account"
    brand = (method.brand or "Card").replace("_", " ").title()
    return f"{brand} ending in {method.last4}" if method.last4 else brand


# --- the list and a schedule's page -------------------------------------------------------


@get("/portal/schedules", sync_to_thread=True)
def schedules(
    request: Request[Any, Any, Any], user: PortalUser, shop: Shop, status: StatusParam = None
) -> Response[bytes]:
    wanted = status if status in {s.value for s in ScheduleStatus} else None
    rows = shop.scheduled_payments.list(limit=LIST_MAX, status=wanted).items
    names: dict[str, str] = {}
    for s in rows:
        if s.customer_id not in names:
            names[s.customer_id] = shop.customers.get(s.customer_id).name.display
    return portal_page(
        request,
        "portal/schedules/list.html",
        user,
        title="Scheduled payments",
        rows=rows,
        names=names,
        status_filter=wanted or "",
        statuses=[s.value for s in ScheduleStatus],
        money=format_money,
        when=_when,
    )


def _when(at: datetime | None, zone: str) -> str:
    return local_time(at, zone) if at else ""


def _schedule_page(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: MerchantScope,
    schedule_id: str,
    *,
    errors: dict[str, str] | None = None,
    status: int = 200,
    saved: bool = False,
) -> Response[bytes]:
    view = shop.scheduled_payments.get(schedule_id)
    s = view.schedule
    customer = shop.customers.get(s.customer_id)
    methods = {m.id: m for m in shop.customers.payment_methods(s.customer_id, limit=100).items}
    method = methods.get(s.payment_method_id)
    return portal_page(
        request,
        "portal/schedules/schedule.html",
        user,
        title=f"Scheduled payment {s.id}",
        status=status,
        s=s,
        runs=view.runs,
        customer=customer,
        method=_method_label(method) if method else "Removed payment method",
        editable=s.status in EDITABLE,
        errors=errors or {},
        money=format_money,
        when=_when,
        day=local_date,
        totals=_totals(s),
        saved=saved,
    )


def _totals(s: ScheduledPayment) -> Any:
    if not s.itemized:
        return None
    from payhub.domain.schedules import totals

    return totals(s.lines, s.tax_percent, s.currency)


SavedParam = Annotated[str | None, Parameter(query="saved", required=False)]


@get("/portal/schedules/{schedule_id:str}", sync_to_thread=True)
def schedule(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: Shop,
    schedule_id: FromPath[str],
    saved: SavedParam = None,
) -> Response[bytes]:
    return _schedule_page(request, user, shop, schedule_id, saved=saved == "1")


def _move(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: MerchantScope,
    schedule_id: str,
    move: str,
) -> Response[bytes]:
    current = shop.scheduled_payments.get(schedule_id).schedule
    try:
        getattr(shop.scheduled_payments, move)(current.id)
    except Conflict as e:
        return _schedule_page(
            request, user, shop, current.id, errors={"form": e.detail}, status=409
        )
    return redirect(f"/portal/schedules/{current.id}")


@post("/portal/schedules/{schedule_id:str}/pause", sync_to_thread=True, status_code=303)
def pause(
    request: Request[Any, Any, Any], user: PortalUser, shop: Shop, schedule_id: FromPath[str]
) -> Response[bytes]:
    return _move(request, user, shop, schedule_id, "pause")


@post("/portal/schedules/{schedule_id:str}/resume", sync_to_thread=True, status_code=303)
def resume(
    request: Request[Any, Any, Any], user: PortalUser, shop: Shop, schedule_id: FromPath[str]
) -> Response[bytes]:
    return _move(request, user, shop, schedule_id, "resume")


@post("/portal/schedules/{schedule_id:str}/cancel", sync_to_thread=True, status_code=303)
def cancel(
    request: Request[Any, Any, Any], user: PortalUser, shop: Shop, schedule_id: FromPath[str]
) -> Response[bytes]:
    return _move(request, user, shop, schedule_id, "cancel")


# --- editing a Paused or Failed schedule --------------------------------------------------


def _values(s: ScheduledPayment) -> dict[str, str]:
    """The schedule as the edit form's values (what an untouched form sends back)."""
    values: dict[str, str] = {
        "charge": "lines" if s.itemized else "amount",
        "amount": _plain(s.amount.amount, s.currency) if s.amount else "",
        "tax": (
            f"rate:{s.tax_rate_id}"
            if s.tax_rate_id
            else ("percent" if s.tax_percent is not None and s.itemized else "")
        ),
        "taxRatePercent": format(s.tax_percent.normalize(), "f")
        if s.tax_percent is not None and not s.tax_rate_id
        else "",
        "nextRunDate": "",
        "nextRunTime": "",
        "endDate": s.end_date.isoformat() if s.end_date else "",
        "maxCharges": str(s.max_charges) if s.max_charges is not None else "",
        "paymentMethodId": s.payment_method_id,
        "description": s.description or "",
    }
    if s.next_run_at is not None:
        local = s.next_run_at.astimezone(s.zone)
        values["nextRunDate"] = local.date().isoformat()
        values["nextRunTime"] = local.strftime("%H:%M")
    for i, line in enumerate(s.lines):
        values[f"line-{i}-description"] = line.description
        values[f"line-{i}-quantity"] = format(line.quantity.normalize(), "f")
        values[f"line-{i}-unitPrice"] = _plain(line.unit_price.amount, s.currency)
        values[f"line-{i}-taxable"] = "on" if line.is_taxable else ""
        values[f"line-{i}-productId"] = line.product_id or ""
    for prefix, address in (("billTo", s.bill_to), ("shipTo", s.ship_to)):
        for part, value in address_fields(address).items():
            values[f"{prefix}-{part}"] = value
    return values


def _same(form: dict[str, str], current: dict[str, str], *names: str) -> bool:
    return all(form.get(n, "").strip() == current.get(n, "").strip() for n in names)


def _line_names(values: dict[str, str]) -> list[str]:
    return [k for k in values if k.startswith("line-")]


def _charge(form: dict[str, str], errors: list[FieldError]) -> Charge:
    tax = form.get("tax", "")
    if form.get("charge") != "lines":
        return Charge(amount=decimal_of(form, "amount", errors) or Decimal(0))
    lines: list[LineInput] = []
    index = 0
    while f"line-{index}-description" in form or f"line-{index}-unitPrice" in form:
        at = f"line-{index}"
        index += 1
        description = form.get(f"{at}-description", "").strip()
        price_text = form.get(f"{at}-unitPrice", "").strip()
        if not description and not price_text:
            continue  # a blank row
        quantity = decimal_of({"q": form.get(f"{at}-quantity", "") or "1"}, "q", [])
        lines.append(
            LineInput(
                description=description,
                quantity=quantity if quantity is not None else Decimal(0),
                unit_price=decimal_of(form, f"{at}-unitPrice", errors) or Decimal(0),
                is_taxable=form.get(f"{at}-taxable") == "on",
                product_id=text_of(form, f"{at}-productId"),
            )
        )
    rate_id = tax[len("rate:") :] if tax.startswith("rate:") else None
    percent = decimal_of(form, "taxRatePercent", errors) if tax == "percent" else None
    return Charge(line_items=lines, tax_rate_id=rate_id, tax_rate_percent=percent)


def _edit_of(s: ScheduledPayment, form: dict[str, str]) -> ScheduleEdit:
    """The edit the form asks for: each group the user changed, ``KEEP`` for the rest."""
    current = _values(s)
    errors: list[FieldError] = []
    charge_names = ["charge", "amount", "tax", "taxRatePercent", *_line_names(current)]
    charge_names += [k for k in _line_names(form) if k not in charge_names]
    charge: Charge | Any = KEEP if _same(form, current, *charge_names) else _charge(form, errors)
    next_run: datetime | Any = KEEP
    if not _same(form, current, "nextRunDate", "nextRunTime") and form.get("nextRunDate"):
        day = date_of(form, "nextRunDate", errors)
        try:
            clock = time.fromisoformat(form.get("nextRunTime", "").strip() or "09:00")
        except ValueError:
            errors.append(FieldError("nextRunTime", "must be a time (HH:MM)"))
            clock = time(9)
        if day is not None:
            next_run = to_utc(datetime.combine(day, clock), ZoneInfo(s.time_zone))
    recurring = s.kind is ScheduleKind.RECURRING
    end_date: Any = KEEP
    max_charges: Any = KEEP
    if recurring and not _same(form, current, "endDate"):
        end_date = date_of(form, "endDate", errors)
    if recurring and not _same(form, current, "maxCharges"):
        max_charges = int_of(form, "maxCharges", errors)
    addresses: dict[str, Any] = {}
    for prefix, key in (("billTo", "bill_to"), ("shipTo", "ship_to")):
        names = [f"{prefix}-{p}" for p in address_fields(None)]
        addresses[key] = KEEP if _same(form, current, *names) else address_of(form, prefix)
    raise_if(errors)
    return ScheduleEdit(
        charge=charge,
        next_run_at=next_run,
        end_date=end_date,
        max_charges=max_charges,
        payment_method_id=KEEP
        if _same(form, current, "paymentMethodId")
        else form.get("paymentMethodId", ""),
        bill_to=addresses["bill_to"],
        ship_to=addresses["ship_to"],
        description=KEEP if _same(form, current, "description") else text_of(form, "description"),
    )


def _edit_page(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: MerchantScope,
    s: ScheduledPayment,
    *,
    values: dict[str, str] | None = None,
    errors: dict[str, str] | None = None,
    status: int = 200,
) -> Response[bytes]:
    values = dict(values) if values is not None else _values(s)
    count = max([int(k.split("-")[1]) + 1 for k in _line_names(values)] + [len(s.lines)], default=0)
    methods = shop.customers.payment_methods(s.customer_id, limit=100).items
    rates = [v for v in shop.tax_rates.list(limit=200).items if v.rate.active]
    return portal_page(
        request,
        "portal/schedules/edit.html",
        user,
        title=f"Edit scheduled payment {s.id}",
        status=status,
        s=s,
        values=values,
        errors=errors or {},
        line_count=count + EXTRA_LINES,
        methods=[(m.id, _method_label(m)) for m in methods],
        rates=rates,
        editable=s.status in EDITABLE,
        customer=shop.customers.get(s.customer_id),
        address_parts=list(address_fields(None)),
    )


@get("/portal/schedules/{schedule_id:str}/edit", sync_to_thread=True)
def edit_page(
    request: Request[Any, Any, Any], user: PortalUser, shop: Shop, schedule_id: FromPath[str]
) -> Response[bytes]:
    s = shop.scheduled_payments.get(schedule_id).schedule
    return _edit_page(request, user, shop, s, status=200 if s.status in EDITABLE else 409)


@post("/portal/schedules/{schedule_id:str}/edit", sync_to_thread=True, status_code=303)
def edit(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: Shop,
    schedule_id: FromPath[str],
    form: Form,
) -> Response[bytes]:
    s = shop.scheduled_payments.get(schedule_id).schedule
    try:
        shop.scheduled_payments.edit(s.id, _edit_of(s, form))
    except ValidationError as e:
        return _edit_page(request, user, shop, s, values=form, errors=_errors(e), status=400)
    except Conflict as e:
        return _edit_page(
            request, user, shop, s, values=form, errors={"form": e.detail}, status=409
        )
    return redirect(f"/portal/schedules/{s.id}?saved=1")


SCHEDULE_HANDLERS = [schedules, schedule, pause, resume, cancel, edit_page, edit]
