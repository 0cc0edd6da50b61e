"""Customers: search and list; a customer's page with invoices, saved methods, scheduled
payments and SMS consent history; recording consent in the signed-in user's name."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Request, Response, get, post
from litestar.params import FromPath, Parameter

from payhub.domain.consent import ConsentRecord
from payhub.domain.errors import ValidationError
from payhub.domain.portal import PortalUser, PortalUserRecord
from payhub.services.auth import PORTAL_CALLER
from payhub_server.portal.page_tools import MERCHANT_USERS, field_errors, text
from payhub_server.portal.session import Form, Shop, hub_of, portal_page, redirect

PAGE = 25
Query = Annotated[str | None, Parameter(query="q", required=False)]
After = Annotated[str | None, Parameter(query="after", required=False)]
DoneParam = Annotated[str | None, Parameter(query="done", required=False)]


@get("/portal/customers", guards=MERCHANT_USERS, sync_to_thread=True)
def customers(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: Shop,
    q: Query = None,
    after: After = None,
) -> Response[bytes]:
    search = (q or "").strip()[:100]
    page = shop.customers.list(after=after or None, limit=PAGE, search=search or None)
    return portal_page(
        request,
        "portal/customers.html",
        user,
        title="Customers",
        customers=page.items,
        more=page.next_cursor if page.has_more else None,
        q=search,
    )


def _who(team: dict[str, PortalUserRecord], record: ConsentRecord) -> str:
    """Who recorded a consent change, in words: a portal user by name, else the channel."""
    by = record.recorded_by
    if by.startswith(PORTAL_CALLER):
        member = team.get(by.removeprefix(PORTAL_CALLER))
        if member is not None:
            return f"{member.display_name} ({member.email}), in the portal"
        return "staff, in the portal (recorded before portal sign-in named users)"
    return {
        "PayPage": "the customer, on the pay page",
        "Keyword": "the customer, by text reply",
        "Api": "through the API",
    }.get(record.source.value, record.source.value)


def _customer_page(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: Shop,
    customer_id: str,
    *,
    errors: dict[str, str] | None = None,
    form: dict[str, str] | None = None,
    done: str | None = None,
    status: int = 200,
) -> Response[bytes]:
    customer = shop.customers.get(customer_id)
    history = shop.customers.consent_history(customer.id, limit=50).items
    zone = shop.texting.settings().time_zone
    team = {m.id: m for m in hub_of(request).portal.team(user)}
    return portal_page(
        request,
        "portal/customer.html",
        user,
        title=customer.name.display or customer.id,
        status=status,
        customer=customer,
        invoices=shop.invoices.list(customer_id=customer.id, limit=50).items,
        methods=shop.customers.payment_methods(customer.id, limit=50).items,
        schedules=shop.scheduled_payments.list(customer_id=customer.id, limit=50).items,
        history=[(r, _who(team, r)) for r in history],
        zone=zone,
        errors=errors or {},
        form=form or {},
        done=done == "consent",
    )


@get("/portal/customers/{customer_id:str}", guards=MERCHANT_USERS, sync_to_thread=True)
def customer(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: Shop,
    customer_id: FromPath[str],
    done: DoneParam = None,
) -> Response[bytes]:
    return _customer_page(request, user, shop, customer_id, done=done)


@post(
    "/portal/customers/{customer_id:str}/consent",
    guards=MERCHANT_USERS,
    sync_to_thread=True,
    status_code=303,
)
def record_consent(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: Shop,
    customer_id: FromPath[str],
    form: Form,
) -> Response[bytes]:
    """Consent given or withdrawn, recorded as the signed-in user (the session's, never a
    typed name). Giving consent needs the customer's clear opt-in (spec SMS rule 2)."""
    choice = form.get("consent", "")
    try:
        if choice not in ("give", "withdraw"):
            raise ValidationError.for_field(
                "consent", "choose whether consent is given or withdrawn"
            )
        if choice == "give" and form.get("confirm") != "yes":
            raise ValidationError.for_field(
                "confirm", "confirm that the customer clearly asked for texts"
            )
        shop.customers.record_consent_in_portal(customer_id, choice == "give", text(form, "phone"))
    except ValidationError as e:
        return _customer_page(
            request, user, shop, customer_id, errors=field_errors(e), form=form, status=400
        )
    return redirect(f"/portal/customers/{customer_id}?done=consent#consent")


CUSTOMER_HANDLERS = [customers, customer, record_consent]
