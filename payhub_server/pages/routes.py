"""The public pages: ``/pay/{token}``, ``/embed/{token}``, receipts, and the page's own posts.

No API key: the unguessable pay token in the path is the only key (spec: Authentication 8).
Routes are ``PUBLIC`` and left out of the API reference; they answer HTML (a 404 page for an
unknown token), except the two posts, which speak JSON and problem+json to the page's script.

Posts are guarded three ways before anything moves: the browser's ``Sec-Fetch-Site`` and
``Origin`` must say same-origin when present, the body must be JSON (a cross-site HTML form
cannot send it without a CORS preflight payhub never grants), and it must carry the page's
signed attempt token (``attempts.py``), whose nonce is the payment's ``attempt_id``.
"""

from __future__ import annotations

import re
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

import anyio.to_thread
import msgspec
from litestar import Controller, Request, Response, get, post
from litestar.params import FromPath

from payhub.domain.errors import (
    Conflict,
    Forbidden,
    NotFound,
    PayHubError,
    RateLimited,
    ValidationError,
)
from payhub.domain.payments import (
    Declined,
    GatewayError,
    GatewayTimeout,
    GatewayUnavailable,
    MethodType,
    PaymentMethodInvalid,
)
from payhub.hub import PayHub
from payhub.services.gateway_public import pay_page_session, public_fields
from payhub.services.invoices import PageCheckout
from payhub_server.decoding import BodyRefused, decode_body
from payhub_server.deps import PUBLIC, Hub
from payhub_server.encoding import encode
from payhub_server.pages import attempts
from payhub_server.pages.drivers import DRIVERS, needs_session
from payhub_server.pages.presenters import (
    consent_result,
    page_config,
    paid_row,
    payment_result,
    present,
    receipt_document,
    receipt_facts,
    urls_for,
    vendor_hosts,
)
from payhub_server.pages.render import NOT_FOUND_TEXT, html_page, message_page, security_headers
from payhub_server.pages.sessions import budget_of
from payhub_server.problems import PROBLEM_JSON

T = TypeVar("T")
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{16,128}$")
_JSON = re.compile(r"^application/(?:[\w.+-]+\+)?json\s*(?:;.*)?$", re.IGNORECASE)


class PaymentIn(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    """What the pay page's script posts: never a card or bank number, only the token."""

    attempt_token: str
    payment_method_token: str
    method_type: MethodType
    amount: Decimal | None = None
    # The payer ticked the bank debit authorization the page shows (required for BankAccount).
    debit_authorization: bool = False
    checkout_token: str | None = None


class CheckoutIn(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    """What the page's driver posts before tokenizing on a gateway whose session is bound to
    the amount (``POST /pay/{token}/session``): the amount the payer chose, as the page's
    amount parser normalised it (a decimal string; ``None``: the full balance)."""

    attempt_token: str
    method_type: MethodType = MethodType.CARD
    amount: Decimal | None = None


class ConsentIn(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    attempt_token: str
    consent: bool
    phone: str | None = None


def _not_found() -> Response[bytes]:
    return message_page(404, "Invoice not found", NOT_FOUND_TEXT)


def _key(hub: PayHub) -> bytes:
    return attempts.derive_key(hub.deps.secrets.digest_key)


def _own_origins(request: Request[Any, Any, Any], hub: PayHub) -> set[str]:
    public = urlsplit(hub.deps.page_url("/"))
    host = request.headers.get("host", "")
    return {f"{public.scheme}://{public.netloc}", f"{request.url.scheme}://{host}"}


def _check_same_origin(request: Request[Any, Any, Any], hub: PayHub) -> None:
    """Cross-site posts are refused (403); browsers send at least one of these headers."""
    site = request.headers.get("sec-fetch-site")
    if site is not None and site not in ("same-origin", "none"):
        raise Forbidden("this form can only be sent from the pay page itself")
    origin = request.headers.get("origin")
    if origin is not None and origin not in _own_origins(request, hub):
        raise Forbidden("this form can only be sent from the pay page itself")


def _decode(request_body: bytes, content_type: str | None, kind: type[T]) -> T:
    if content_type is None or not _JSON.match(content_type):
        raise _UnsupportedMedia()
    try:
        return msgspec.convert(decode_body(request_body, content_type, kind), kind)
    except BodyRefused as e:  # the one decoding hook's refusal (payhub_server/decoding.py)
        raise ValidationError(str(e.detail), e.fields) from None
    except msgspec.ValidationError as e:
        raise ValidationError.for_field(_field_of(str(e)), str(e).split(" - at ")[0]) from None
    except msgspec.DecodeError:
        raise ValidationError("the body is not valid JSON") from None


def _field_of(message: str) -> str:
    match = re.search(r"at `\$\.(\w+)`", message) or re.search(r"field `(\w+)`", message)
    return match.group(1) if match else "body"


class _UnsupportedMedia(PayHubError):
    status = 415
    code = "unsupported-media-type"
    title = "Send JSON"

    def __init__(self) -> None:
        super().__init__("the pay page's forms are sent as application/json")


_PAYER_MESSAGES = {
    "insufficient_funds": "Your card was declined for insufficient funds. Try another card.",
    "expired_card": "Your card has expired. Try another card.",
    "incorrect_cvc": "The security code is incorrect. Check it and try again.",
    "processing_error": "Your bank could not process the payment. Try again in a moment.",
}


def _payer_message(error: PayHubError) -> str:
    """What the payer reads: plain words, never a gateway's raw text or a reference."""
    if isinstance(error, Declined):
        return _PAYER_MESSAGES.get(
            error.decline_code or "",
            "Your payment was declined. Try another card or account, or contact your bank.",
        )
    if isinstance(error, PaymentMethodInvalid):
        return "These payment details cannot be used. Enter them again or use another method."
    if isinstance(error, GatewayTimeout | GatewayUnavailable):
        return "The payment service did not answer. Try again: you will not be charged twice."
    if isinstance(error, GatewayError):
        return "The payment could not be completed. Try again later or contact the merchant."
    if isinstance(error, Conflict):
        return (
            "Another payment on this invoice is in progress or has just finished (perhaps in"
            " another tab). Reload this page to see the balance before paying again."
        )
    return error.detail


def _problem(request: Request[Any, Any, Any], error: PayHubError, **extra: Any) -> Response[bytes]:
    body: dict[str, Any] = {
        "type": f"/problems/{error.code}",
        "title": error.title,
        "status": error.status,
        "detail": error.detail,
        "instance": request.url.path,
        "payerMessage": _payer_message(error),
    }
    request_id = request.scope.get("state", {}).get("request_id")
    if request_id:
        body["requestId"] = request_id
    if isinstance(error, ValidationError) and error.fields:
        body["errors"] = [{"field": f.field, "message": f.message} for f in error.fields]
    if isinstance(error, GatewayError) and error.decline_code:
        body["declineCode"] = error.decline_code
    body.update(extra)
    headers = security_headers()
    headers.pop("Content-Security-Policy")
    if isinstance(error, RateLimited):
        headers["Retry-After"] = str(error.retry_after)
    return Response(
        encode(body), status_code=error.status, media_type=PROBLEM_JSON, headers=headers
    )


def _json(body: dict[str, Any], status: int = 200) -> Response[bytes]:
    headers = security_headers()
    headers.pop("Content-Security-Policy")
    return Response(encode(body), status_code=status, media_type="application/json",
                    headers=headers)  # fmt: skip


def _pay(
    hub: PayHub,
    token: str,
    data: PaymentIn,
    attempt_id: str,
    payer: tuple[str | None, str | None],
    checkout: PageCheckout | None,
) -> dict[str, Any]:
    outcome = hub.pay_pages.pay(
        token,
        amount=data.amount,
        payment_token=data.payment_method_token,
        method_type=data.method_type,
        attempt_id=attempt_id,
        debit_authorized=data.debit_authorization,
        payer_ip=payer[0],
        payer_agent=payer[1],
        checkout=checkout,
    )
    return payment_result(outcome)


def _origin(hub: PayHub) -> str:
    public = urlsplit(hub.deps.public_url)
    return f"{public.scheme}://{public.netloc}"


def _checkout(hub: PayHub, token: str, data: CheckoutIn) -> dict[str, Any]:
    """Make the gateway's session for the chosen amount and sign what the payment must match."""
    made = hub.pay_pages.checkout(
        token,
        amount=data.amount,
        method_type=data.method_type,
        origin=_origin(hub),
        session_id=hub.deps.randomness.token_bytes(16).hex(),
    )
    amount = str(made.amount.amount)
    return {
        "checkoutToken": attempts.issue_checkout(
            _key(hub), token, amount, made.made.reference, hub.deps.clock.now()
        ),
        "amount": amount,
        "currency": made.amount.currency,
        "session": made.made.public,
    }


def _consent(hub: PayHub, token: str, phone: str | None) -> dict[str, Any]:
    return consent_result(hub.pay_pages.give_sms_consent(token, phone=phone))


problem_answer = _problem  # the approval page's JSON post answers the same way
json_answer = _json


class PayPageController(Controller):
    """The payer's pages. Every handler runs the hub's synchronous services in a thread."""

    include_in_schema = False
    opt = PUBLIC

    def _page(self, hub: PayHub, token: str, embedded: bool, paid: str | None) -> Response[bytes]:
        if not _TOKEN.match(token):
            return _not_found()
        try:
            view = hub.pay_pages.view(token)
        except NotFound:
            return _not_found()
        public = public_fields(hub.deps, view.invoice.merchant_id, view.gateway_name)
        if view.options.can_pay and needs_session(view.gateway_name):
            made = pay_page_session(
                hub.deps, hub.gateway_adapters, view.invoice.merchant_id, view.gateway_name
            )
            public = {**public, **made}
        page = present(view, token, public)
        if embedded and not page.allowed_origins:
            # Nobody may frame it; say so instead of showing a page no site can embed.
            return html_page(
                "message.html",
                status=409,
                title="This invoice cannot be embedded",
                text="The merchant has not allowed any website to embed its pay page.",
            )
        now = hub.deps.clock.now()
        key = _key(hub)
        config = page_config(
            page,
            embedded=embedded,
            attempt_token=attempts.issue(
                key, attempts.Purpose.PAY, token, hub.deps.randomness.token_bytes(16), now
            ),
            sms_token=attempts.issue(
                key, attempts.Purpose.SMS, token, hub.deps.randomness.token_bytes(16), now
            ),
        )
        return html_page(
            "pay.html",
            frame_ancestors=page.allowed_origins if embedded else None,
            vendor=vendor_hosts(page),
            page=page,
            embedded=embedded,
            urls=urls_for(token, embedded),
            paid_row=paid_row(view, paid),
            config=config,
        )

    @get("/pay/{token:str}", sync_to_thread=True)
    def pay_page(self, hub: Hub, token: FromPath[str], paid: str | None = None) -> Response[bytes]:
        """The pay page (opened from the invoice's link)."""
        return self._page(hub, token, embedded=False, paid=paid)

    @get("/embed/{token:str}", sync_to_thread=True)
    def embed_page(
        self, hub: Hub, token: FromPath[str], paid: str | None = None
    ) -> Response[bytes]:
        """The pay page for a frame on one of the merchant's allowed websites."""
        return self._page(hub, token, embedded=True, paid=paid)

    @get("/pay/{token:str}/receipt", sync_to_thread=True)
    def receipt(self, hub: Hub, token: FromPath[str]) -> Response[bytes]:
        if not _TOKEN.match(token):
            return _not_found()
        try:
            view = hub.pay_pages.view(token)
        except NotFound:
            return _not_found()
        page = present(view, token)
        return html_page(
            "receipt.html", page=page, urls=urls_for(token, False), facts=receipt_facts(page)
        )

    @get("/pay/{token:str}/receipt.pdf", sync_to_thread=True)
    def receipt_pdf(self, hub: Hub, token: FromPath[str]) -> Response[bytes]:
        from payhub.adapters.receipts.pdf import render_receipt_pdf

        if not _TOKEN.match(token):
            return _not_found()
        try:
            view = hub.pay_pages.view(token)
        except NotFound:
            return _not_found()
        page = present(view, token)
        headers = security_headers()
        headers["Content-Disposition"] = f'inline; filename="receipt-{page.invoice_number}.pdf"'
        return Response(
            render_receipt_pdf(receipt_document(page)),
            media_type="application/pdf",
            headers=headers,
        )

    @post("/pay/{token:str}/payments", status_code=200)
    async def pay(
        self, request: Request[Any, Any, Any], hub: Hub, token: FromPath[str]
    ) -> Response[bytes]:
        """Take (or reserve) a payment with a hosted-fields token."""
        body = await request.body()
        try:
            if not _TOKEN.match(token):
                raise NotFound("no invoice at this address")
            _check_same_origin(request, hub)
            data = _decode(body, request.headers.get("content-type"), PaymentIn)
            attempt = attempts.verify(
                _key(hub), attempts.Purpose.PAY, token, data.attempt_token, hub.deps.clock.now()
            )
            checkout = None
            if data.checkout_token is not None:
                bound = attempts.verify_checkout(
                    _key(hub), token, data.checkout_token, hub.deps.clock.now()
                )
                checkout = PageCheckout(Decimal(bound.amount), bound.reference)
        except PayHubError as e:
            return _problem(request, e)
        try:
            # Who accepted a bank debit: the connection's address (the server's direct peer;
            # behind a proxy, the proxy's) and the browser it named.
            payer = (request.client.host if request.client else None,
                     request.headers.get("user-agent"))  # fmt: skip
            result = await anyio.to_thread.run_sync(
                _pay, hub, token, data, attempt.attempt_id, payer, checkout
            )
        except GatewayTimeout as e:
            # The outcome is unknown: retrying with the same token asks the gateway again
            # under the same key, so the payer can retry at once and is never charged twice.
            return _problem(request, e)
        except PayHubError as e:
            fresh = attempts.issue(
                _key(hub), attempts.Purpose.PAY, token, hub.deps.randomness.token_bytes(16),
                hub.deps.clock.now(),
            )  # fmt: skip
            return _problem(request, e, nextAttemptToken=fresh)
        return _json(result)

    @post("/pay/{token:str}/session", status_code=200)
    async def session(
        self, request: Request[Any, Any, Any], hub: Hub, token: FromPath[str]
    ) -> Response[bytes]:
        """Make the gateway's session for the amount the payer chose (PayPal's order, Adyen's
        session...) before the driver tokenizes; the pay page's and the embed page's."""
        body = await request.body()
        try:
            if not _TOKEN.match(token):
                raise NotFound("no invoice at this address")
            _check_same_origin(request, hub)
            data = _decode(body, request.headers.get("content-type"), CheckoutIn)
            attempts.verify(
                _key(hub), attempts.Purpose.PAY, token, data.attempt_token, hub.deps.clock.now()
            )
            budget_of(request).take(f"pay:{token}")
            made = await anyio.to_thread.run_sync(_checkout, hub, token, data)
        except PayHubError as e:
            return _problem(request, e)
        return _json(made)

    @post("/pay/{token:str}/sms-consent", status_code=200)
    async def sms_consent(
        self, request: Request[Any, Any, Any], hub: Hub, token: FromPath[str]
    ) -> Response[bytes]:
        """The payer's own opt-in to texts, offered after a successful payment."""
        body = await request.body()
        try:
            if not _TOKEN.match(token):
                raise NotFound("no invoice at this address")
            _check_same_origin(request, hub)
            data = _decode(body, request.headers.get("content-type"), ConsentIn)
            attempts.verify(
                _key(hub), attempts.Purpose.SMS, token, data.attempt_token, hub.deps.clock.now()
            )
            if data.consent is not True:
                raise ValidationError.for_field(
                    "consent", "must be true: tick the box to agree to texts"
                )
            state = await anyio.to_thread.run_sync(_consent, hub, token, data.phone)
        except PayHubError as e:
            return _problem(request, e)
        return _json(state)


_STATIC = Path(__file__).resolve().parent.parent / "static"
_ASSETS = {
    "pay-page.css": "text/css; charset=utf-8",
    "pay-page.js": "application/javascript",
    "payhub-embed.js": "application/javascript",
}


@cache
def _asset(name: str) -> bytes:
    return (_STATIC / name).read_bytes()


@get("/static/{name:str}", opt=PUBLIC, sync_to_thread=False, include_in_schema=False)
def static_asset(name: FromPath[str]) -> Response[bytes]:
    """The pages' own stylesheet and scripts (a fixed list: nothing else is served)."""
    media = _ASSETS.get(name)
    if media is None:
        raise NotFound(f"no asset '{name}'")
    headers = {"Cache-Control": "public, max-age=300", "X-Content-Type-Options": "nosniff"}
    if name == "payhub-embed.js":
        headers["Access-Control-Allow-Origin"] = "*"  # loaded by merchants' own pages
        headers["Cross-Origin-Resource-Policy"] = "cross-origin"
    return Response(_asset(name), media_type=media, headers=headers)


# A gateway's driver script is its folder's fields.js; common.js holds the drivers' shared helpers.
_SCRIPTS: dict[str, Path] = {
    "common.js": _STATIC / "fields" / "common.js",
    **{f"{g}.js": d.script for g, d in DRIVERS.items() if d.module == f"/static/fields/{g}.js"},
}


@cache
def _driver(name: str) -> bytes:
    return _SCRIPTS[name].read_bytes()


@get("/static/fields/{name:str}", opt=PUBLIC, sync_to_thread=False, include_in_schema=False)
def field_driver(name: FromPath[str]) -> Response[bytes]:
    """A gateway's hosted-fields driver (one per gateway folder with a driver, no other)."""
    if name not in _SCRIPTS:
        raise NotFound(f"no fields driver '{name}'")
    headers = {"Cache-Control": "public, max-age=300", "X-Content-Type-Options": "nosniff"}
    return Response(_driver(name), media_type="application/javascript", headers=headers)


PAGE_HANDLERS = [PayPageController, static_asset, field_driver]
