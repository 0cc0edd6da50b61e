"""The register (a virtual terminal): staff pick products from the active categories, review
the priced sale (the location's tax rate, else the merchant default), and take the payment
with the gateway's hosted fields or a customer's saved method.

Steps, each a plain form (the page's script only turns taps into quantities and the card
fields into a token):

1. ``GET /portal/register/{id}``: the categories as coloured blocks, a quantity per product.
2. ``POST …/review``: the sale priced by the server (``Registers.quote``), and the payment
   form, which carries a **sale key** made now (128 random bits).
3. ``POST …/sales``: ``Registers.sell`` charges once per sale key. The same form sent twice
   (a double click, a reload, the browser resending) finds the first charge. When the gateway
   does not answer (504) the page comes back with the *same* key and the same card token,
   locked, so "Try again" asks the gateway about the same charge instead of making a second
   one; only a decline (nothing charged) gets a fresh key for the next try.
4. ``GET …/sales/{transactionId}``: the receipt.
"""

from __future__ import annotations

from typing import Any

from litestar import Request, Response, get, post
from litestar.params import FromPath

from payhub.domain.errors import Conflict, PayHubError, ValidationError
from payhub.domain.money import format_money, minor_unit_exponent
from payhub.domain.payments import GatewayError, GatewayTimeout, MethodType
from payhub.domain.portal import PortalUser, token_text
from payhub.domain.register import SaleQuote, parse_picks
from payhub.hub import MerchantScope
from payhub.services.gateway_public import pay_page_session, public_fields_and_mode
from payhub.services.registers import SalePayment, Till
from payhub_server.pages.drivers import Fields, VendorHosts, fields_for, needs_session
from payhub_server.portal.session import CSP, Form, Shop, hub_of, portal_page, redirect
from payhub_server.portal.shop_forms import field_errors

SALE_KEY_BYTES = 16


def _money(m: Any) -> str:
    return format_money(m)


def _plain(m: Any) -> str:
    return f"{m.amount:.{minor_unit_exponent(m.currency)}f}"


# --- the register list ---------------------------------------------------------------------


@get("/portal/register", sync_to_thread=True)
def registers(request: Request[Any, Any, Any], user: PortalUser, shop: Shop) -> Response[bytes]:
    views = shop.registers.list()
    return portal_page(
        request,
        "portal/register/list.html",
        user,
        title="Register",
        open_views=[v for v in views if v.register.active and v.location.active],
    )


# --- the sale page --------------------------------------------------------------------------


def _till_page(
    request: Request[Any, Any, Any],
    user: PortalUser,
    till: Till,
    *,
    quantities: dict[str, int] | None = None,
    errors: dict[str, str] | None = None,
    status: int = 200,
) -> Response[bytes]:
    return portal_page(
        request,
        "portal/register/till.html",
        user,
        title=f"Register: {till.view.register.name}",
        status=status,
        till=till,
        quantities=quantities or {},
        errors=errors or {},
        money=_money,
    )


@get("/portal/register/{register_id:str}", sync_to_thread=True)
def till(
    request: Request[Any, Any, Any], user: PortalUser, shop: Shop, register_id: FromPath[str]
) -> Response[bytes]:
    return _till_page(request, user, shop.registers.till(register_id))


# --- review and pay -------------------------------------------------------------------------


def _new_key(request: Request[Any, Any, Any]) -> str:
    return "sale_" + token_text(hub_of(request).deps.randomness.token_bytes(SALE_KEY_BYTES))


def _card_fields(
    request: Request[Any, Any, Any], user: PortalUser, shop: MerchantScope
) -> tuple[str, Fields] | None:
    """The first enabled gateway of the merchant whose hosted fields this page can show."""
    hub = hub_of(request)
    assert user.merchant_id is not None
    for status in shop.credentials.list():
        if not status.enabled:
            continue
        public, sandbox = public_fields_and_mode(hub.deps, user.merchant_id, status.gateway)
        if needs_session(status.gateway):
            made = pay_page_session(
                hub.deps, hub.gateway_adapters, user.merchant_id, status.gateway
            )
            public = {**public, **made}
        fields = fields_for(status.gateway, sandbox, public)
        if fields is not None and fields.card:
            return status.gateway, fields
    return None


def _csp(vendor: VendorHosts) -> str:
    """The portal's CSP, opened for this gateway's vendor hosts only (script, frame, API)."""
    if not (vendor.script or vendor.frame or vendor.connect):
        return CSP
    script = " ".join(("'self'", *vendor.script))
    frame = " ".join(vendor.frame) or "'none'"
    connect = " ".join(("'self'", *vendor.connect))
    return (
        f"default-src 'none'; script-src {script}; style-src 'self'; img-src 'self' data:;"
        f" font-src 'self'; connect-src {connect}; frame-src {frame}; form-action 'self';"
        " base-uri 'none'; frame-ancestors 'none'"
    )


def _review_page(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: MerchantScope,
    register_id: str,
    quote: SaleQuote,
    *,
    sale_key: str,
    form: dict[str, str] | None = None,
    errors: dict[str, str] | None = None,
    retry: bool = False,
    status: int = 200,
) -> Response[bytes]:
    view = shop.registers.get(register_id)
    card = _card_fields(request, user, shop)
    saved = [
        (f"{c.id}/{m.id}", f"{c.name.display or c.id}: {_method(m)}")
        for c, methods in shop.registers.customers_with_methods()
        for m in methods
    ]
    config: dict[str, Any] = {}
    vendor = VendorHosts()
    if card is not None:
        gateway, fields = card
        vendor = fields.hosts
        config = {"gateway": gateway, "config": fields.config, "module": fields.module}
    request.scope.setdefault("state", {})["portal_csp"] = _csp(vendor)
    form = form or {}
    return portal_page(
        request,
        "portal/register/review.html",
        user,
        title=f"Register: {view.register.name}: take payment",
        status=status,
        view=view,
        quote=quote,
        sale_key=sale_key,
        card=card,
        saved=saved,
        fields_config=config,
        pay=form.get("pay") or ("card" if card else "saved"),
        chosen=form.get("savedMethod", ""),
        token=form.get("paymentMethodToken", "") if retry else "",
        gateway=form.get("gateway", "") if retry else (card[0] if card else ""),
        method_type=form.get("methodType", "Card"),
        retry=retry,
        errors=errors or {},
        money=_money,
        plain=_plain,
    )


def _method(m: Any) -> str:
    if m.method_type is MethodType.BANK_ACCOUNT:
        return f"bank account ending in {m.last4}" if m.last4 else "bank account"
    brand = (m.brand or "card").replace("_", " ").title()
    return f"{brand} ending in {m.last4}" if m.last4 else brand


@post("/portal/register/{register_id:str}/review", sync_to_thread=True, status_code=200)
def review(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: Shop,
    register_id: FromPath[str],
    form: Form,
) -> Response[bytes]:
    the_till = shop.registers.till(register_id)
    try:
        picks = parse_picks(form)
        quote = shop.registers.quote(register_id, picks)
    except ValidationError as e:
        quantities = {
            k[len("qty-") :]: int(v)
            for k, v in form.items()
            if k.startswith("qty-") and v.strip().isascii() and v.strip().isdigit()
        }
        return _till_page(
            request, user, the_till, quantities=quantities, errors=field_errors(e), status=400
        )
    return _review_page(request, user, shop, register_id, quote, sale_key=_new_key(request))


def _payment(form: dict[str, str]) -> SalePayment:
    if form.get("pay") == "saved":
        customer_id, _, method_id = form.get("savedMethod", "").partition("/")
        if not method_id:
            raise ValidationError.for_field("savedMethod", "choose a customer's saved method")
        return SalePayment(customer_id=customer_id, payment_method_id=method_id)
    try:
        method_type = MethodType(form.get("methodType", "Card") or "Card")
    except ValueError:
        method_type = MethodType.CARD
    return SalePayment(
        method_type=method_type,
        gateway=form.get("gateway") or None,
        token=form.get("paymentMethodToken") or None,
    )


_DECLINE_WORDS = {
    "insufficient_funds": "The card was declined for insufficient funds.",
    "expired_card": "The card has expired.",
    "incorrect_cvc": "The security code is incorrect.",
}


def _gateway_message(error: GatewayError) -> str:
    said = _DECLINE_WORDS.get(error.decline_code or "")
    return f"{said or 'The payment was declined.'} Nothing was charged. Try another card."


@post("/portal/register/{register_id:str}/sales", sync_to_thread=True, status_code=303)
def sell(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: Shop,
    register_id: FromPath[str],
    form: Form,
) -> Response[bytes]:
    sale_key = form.get("saleKey", "")
    picks = parse_picks(form)
    quote = shop.registers.quote(register_id, picks)
    query = "&".join(f"qty-{p.product_id}={p.quantity}" for p in picks)
    try:
        sale = shop.registers.sell(register_id, picks, _payment(form), sale_key)
    except GatewayTimeout:
        # The charge may have gone through: the same key and token again, never a new sale.
        return _review_page(
            request, user, shop, register_id, quote, sale_key=sale_key, form=form, retry=True,
            errors={"form": "The gateway did not answer in time, so we do not know yet whether"
                    " the card was charged. Press \u201cTry again\u201d: it asks about this same"
                    " sale and never charges it twice."},
            status=504,
        )  # fmt: skip
    except GatewayError as e:
        return _review_page(
            request, user, shop, register_id, quote, sale_key=_new_key(request), form=form,
            errors={"form": _gateway_message(e)}, status=402,
        )  # fmt: skip
    except ValidationError as e:
        names = {"paymentMethodToken": "card-fields", "Idempotency-Key": "form"}
        return _review_page(
            request, user, shop, register_id, quote, sale_key=sale_key or _new_key(request),
            form=form, errors=field_errors(e, names), status=400,
        )  # fmt: skip
    except Conflict as e:
        return _review_page(
            request, user, shop, register_id, quote, sale_key=_new_key(request), form=form,
            errors={"form": e.detail}, status=409,
        )  # fmt: skip
    return redirect(f"/portal/register/{register_id}/sales/{sale.transaction.id}?{query}")


@get("/portal/register/{register_id:str}/sales/{transaction_id:str}", sync_to_thread=True)
def receipt(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: Shop,
    register_id: FromPath[str],
    transaction_id: FromPath[str],
) -> Response[bytes]:
    view, tx = shop.registers.sale(register_id, transaction_id)
    quote: SaleQuote | None = None
    try:
        priced = shop.registers.quote(register_id, parse_picks(dict(request.query_params)))
        # The lines only when they still add up to what was charged (prices may have moved).
        quote = priced if priced.totals.total == tx.amount else None
    except PayHubError:
        quote = None
    return portal_page(
        request,
        "portal/register/receipt.html",
        user,
        title=f"Register: {view.register.name}: sale",
        view=view,
        tx=tx,
        quote=quote,
        money=_money,
    )


REGISTER_HANDLERS = [registers, till, review, sell, receipt]
