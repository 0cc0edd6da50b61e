"""The public schedule approval page: ``GET /approve/{token}`` and its form's ``POST``.

No API key: the unguessable token in the path is the only key. The page shows what the
customer approves (amount, cadence, first dates), collects the payment method through the
gateway's hosted fields (only a token is posted, never a number) and posts a classic form.

The post is accepted only with the single-use form token the page was rendered with (signed,
bound to this request, see ``payhub.services.schedule_requests``) and, when the browser says
so, from the same origin (``Sec-Fetch-Site``/``Origin``). It answers with a redirect to the
page (post/redirect/get), or the page again with what went wrong.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio.to_thread
from litestar import Request, Response, get, post
from litestar.params import FromPath
from litestar.response import Redirect

from payhub.domain.errors import Conflict, Forbidden, NotFound, PayHubError, ValidationError
from payhub.domain.money import Money, format_money
from payhub.domain.payments import GatewayError, MethodType
from payhub.domain.schedules import Cadence, priced, totals
from payhub.hub import PayHub
from payhub.services.gateway_public import (
    pay_page_session,
    public_fields_and_mode,
    saving_checkout,
)
from payhub.services.schedule_requests import ApprovalView
from payhub_server.deps import PUBLIC, Hub
from payhub_server.pages.drivers import fields_for, needs_session
from payhub_server.pages.formats import local_date, local_time
from payhub_server.pages.render import html_page, message_page
from payhub_server.pages.routes import json_answer, problem_answer
from payhub_server.pages.sessions import budget_of

_STATIC = Path(__file__).resolve().parent.parent / "static"
_ASSETS = {"approve.js": "text/javascript", "approve.css": "text/css"}
_CADENCE = {
    Cadence.DAILY: "Every day",
    Cadence.WEEKLY: "Every week",
    Cadence.MONTHLY: "Every month (on the same day; the last day in shorter months)",
    Cadence.YEARLY: "Every year",
}
_ALREADY = {
    "Approved": "This schedule was already approved, so nothing changed: the payment method"
    " you just entered was not saved.",
    "Cancelled": "This request was withdrawn before you approved it. Nothing was saved or charged.",
}
NOT_FOUND = (
    "There is no payment schedule to approve at this address. Check that the link is complete,"
    " or ask the business that sent it for a new one."
)


def _money(m: Money) -> str:
    """The pages' one money format (``$49.99``)."""
    return format_money(m)


def _when(at: datetime, zone: str) -> str:
    """The pages' one date format, in the merchant's zone, with the weekday."""
    return local_time(at, zone, weekday=True)


def render(
    view: ApprovalView,
    token: str,
    code: int = 200,
    error: str | None = None,
    public: tuple[dict[str, str], bool] = ({}, True),
) -> Response[bytes]:
    """``public``: the merchant's public client values for the gateway and its sandbox mode,
    which choose the hosted-fields driver (and the vendor hosts in the page's CSP)."""
    r = view.request
    fields = fields_for(view.gateway.name, public[1], public[0])
    if fields is not None and not fields.card:
        fields = None
    lines: list[dict[str, Any]] = []
    tax = None
    if r.lines:
        for line in priced(r.lines, r.tax_percent):
            lines.append(
                {
                    "description": line.description,
                    "quantity": line.quantity,
                    "amount": _money(line.amount),
                }
            )
        tax = _money(totals(r.lines, r.tax_percent, r.currency).tax)
    ends = []
    if r.end_date is not None:
        ends.append(f"after {local_date(r.end_date)}")
    if r.max_charges is not None:
        ends.append(f"after {r.max_charges} payment{'s' if r.max_charges != 1 else ''}")
    ends_text = None
    if ends:
        ends_text = " or ".join(ends) + (", whichever comes first" if len(ends) > 1 else "")
    return html_page(
        "approve.html",
        status=code,
        view=view,
        token=token,
        state=r.status.value,
        amount=_money(view.amount),
        recurring=r.cadence is not None,
        cadence_text=_CADENCE[r.cadence] if r.cadence else "Once",
        first_text=_when(view.first_run_at, view.time_zone),
        second_text=_when(view.second_run_at, view.time_zone) if view.second_run_at else None,
        ends_text=ends_text,
        lines=lines,
        tax=tax,
        error=error,
        simulator=view.gateway.name == "simulator",
        sandbox=view.gateway.sandbox_only,
        fields=fields,
        fields_config={"gateway": view.gateway.name, "config": fields.config if fields else {}},
        vendor=fields.hosts if fields and r.status.value == "Pending" else None,
    )


def _same_origin(request: Request[Any, Any, Any]) -> bool:
    """False only when the browser says the post came from another site."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        return False
    origin = request.headers.get("origin")
    if origin and origin != "null":
        host = request.headers.get("host", "")
        return urlsplit(origin).netloc == host
    return True


def _page(hub: PayHub, view: ApprovalView, token: str, *args: Any) -> Response[bytes]:
    """Render with the merchant's public client values for the request's gateway."""
    public = public_fields_and_mode(hub.deps, view.request.merchant_id, view.gateway.name)
    if needs_session(view.gateway.name):
        made = pay_page_session(
            hub.deps, hub.gateway_adapters, view.request.merchant_id, view.gateway.name
        )
        public = ({**public[0], **made}, public[1])
    return render(view, token, *args, public=public)


def _show(hub: PayHub, token: str) -> Response[bytes]:
    try:
        view = hub.approvals.view(token)
    except NotFound:
        return message_page(404, "Link not found", NOT_FOUND)
    return _page(hub, view, token)


@get("/approve/{token:str}", opt=PUBLIC, include_in_schema=False)
async def approval_page(token: FromPath[str], hub: Hub) -> Response[bytes]:
    """The request as the customer sees it; a Cancelled or Approved one shows its state."""
    return await anyio.to_thread.run_sync(_show, hub, token)


def _approve(hub: PayHub, token: str, form: dict[str, str]) -> Response[bytes]:
    try:
        method = MethodType(form.get("type") or "Card")
    except ValueError:
        method = MethodType.CARD
    payment_token = (form.get("paymentMethodToken") or "").strip()
    try:
        if not payment_token:
            raise ValidationError.for_field("paymentMethodToken", "enter your payment details")
        hub.approvals.approve(token, form.get("formToken") or "", payment_token, method)
    except NotFound:
        return message_page(404, "Link not found", NOT_FOUND)
    except Conflict:
        # Another tab (or a withdrawal) got there first: say so, or the customer would see
        # "Schedule approved" and believe the method just entered is the one on file.
        view = hub.approvals.view(token)
        return _page(hub, view, token, 409, _ALREADY.get(view.request.status.value))
    except Forbidden as e:
        return _page(hub, hub.approvals.view(token), token, 403, e.detail)
    except GatewayError as e:
        text = e.gateway_message or "Your payment method could not be used. Try another one."
        return _page(hub, hub.approvals.view(token), token, e.status, text)
    except PayHubError as e:
        return _page(hub, hub.approvals.view(token), token, e.status, e.detail)
    return Redirect(f"/approve/{token}", status_code=303)  # type: ignore[return-value]  # a Response


@post("/approve/{token:str}", opt=PUBLIC, include_in_schema=False, status_code=303)
async def approve_schedule(
    token: FromPath[str], request: Request[Any, Any, Any], hub: Hub
) -> Response[bytes]:
    """Approve with the page's form: ``formToken``, ``paymentMethodToken`` and ``type``."""
    if not _same_origin(request):
        return message_page(403, "Not allowed", "This form can only be sent from its own page.")
    form = await request.form()
    fields = {k: str(v) for k, v in form.items() if isinstance(v, str)}
    return await anyio.to_thread.run_sync(_approve, hub, token, fields)


def _saving_session(hub: PayHub, token: str) -> dict[str, Any]:
    view = hub.approvals.view(token)
    if view.form_token is None:
        raise Conflict("this schedule request can no longer be approved")
    made = saving_checkout(
        hub.deps,
        hub.gateway_adapters,
        view.request.merchant_id,
        view.gateway.name,
        f"apr-{hub.deps.randomness.token_bytes(16).hex()}",
        view.request.currency,
    )
    return {"session": made.public}


@post("/approve/{token:str}/session", opt=PUBLIC, include_in_schema=False, status_code=200)
async def approval_session(
    token: FromPath[str], request: Request[Any, Any, Any], hub: Hub
) -> Response[bytes]:
    """The session the approval page's driver saves the card under, on a gateway whose
    sessions are made per payment (PayPal's vault setup token...): no amount, nothing charged.
    JSON in and out (problem+json); same-origin only; budgeted per link like the pay page's."""
    try:
        if not _same_origin(request):
            raise Forbidden("this form can only be sent from its own page")
        content_type = request.headers.get("content-type") or ""
        if not content_type.lower().startswith("application/json"):
            raise _NotJson()
        budget_of(request).take(f"approve:{token}")
        made = await anyio.to_thread.run_sync(_saving_session, hub, token)
    except PayHubError as e:
        return problem_answer(request, e)
    return json_answer(made)


class _NotJson(PayHubError):
    status = 415
    code = "unsupported-media-type"
    title = "Send JSON"

    def __init__(self) -> None:
        super().__init__("the approval page's session is asked for with application/json")


@get("/approve-assets/{name:str}", opt=PUBLIC, sync_to_thread=False, include_in_schema=False)
def approval_asset(name: FromPath[str]) -> Response[bytes]:
    """The approval page's script and stylesheet (a fixed list)."""
    media = _ASSETS.get(name)
    if media is None:
        raise NotFound(f"no asset '{name}'")
    body = (_STATIC / name).read_bytes()
    headers = {"Cache-Control": "public, max-age=300", "X-Content-Type-Options": "nosniff"}
    return Response(body, media_type=media, headers=headers)


APPROVAL_HANDLERS = [approval_page, approve_schedule, approval_session, approval_asset]
