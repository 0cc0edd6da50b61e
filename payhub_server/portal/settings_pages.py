"""Settings: business details and logo, time zone, texting, embed websites, invoice numbers.

Everyone of the merchant reads the page; owners and admins change it. Each section is its
own form (Post/Redirect/Get on success, the page again with the errors on a 400). The same
services as the API and the CLI: ``shop.profile``, ``shop.set_time_zone``,
``shop.texting.switch``, ``shop.invoices.change_embed_origins`` / ``set_numbering``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any

from litestar import Request, Response, get, post
from litestar.datastructures import UploadFile
from litestar.params import Parameter

from payhub.domain import messaging as texts
from payhub.domain.addresses import Address
from payhub.domain.errors import FieldError, ValidationError
from payhub.domain.messaging import TextKind
from payhub.domain.money import Money
from payhub.domain.portal import PortalUser
from payhub.domain.profiles import LOGO_MAX_BYTES
from payhub.domain.quiet_hours import QUIET_FROM, QUIET_UNTIL
from payhub_server.portal.page_tools import MANAGERS, MERCHANT_USERS, field_errors, text, whole
from payhub_server.portal.session import Form, Shop, portal_page, redirect

DoneParam = Annotated[str | None, Parameter(query="done", required=False)]
_DONE = {
    "profile": "Business details saved.",
    "logo": "Logo saved.",
    "logo-removed": "Logo removed.",
    "time-zone": "Time zone saved.",
    "texting": "Texting settings saved.",
    "embed": "Embed websites saved.",
    "numbering": "Invoice number format saved.",
}
_SAMPLE_URL = "https://pay.example/i/…"


def _what_each_sends(name: str) -> list[tuple[TextKind, str, str, str]]:
    """Each text kind, when it goes out, and its words (with sample amounts)."""
    due = Money(Decimal("125.00"), "USD")
    return [
        (
            TextKind.PAY_LINK,
            "Pay link",
            "When you send an invoice: its pay link.",
            texts.pay_link_text(name, "INV-000123", due, _SAMPLE_URL),
        ),
        (
            TextKind.RECEIPT,
            "Receipt",
            "After each payment on an invoice: the receipt.",
            texts.receipt_text(name, "INV-000123", due, due, Money.zero("USD"), _SAMPLE_URL),
        ),
        (
            TextKind.FAILED_PAYMENT,
            "Failed payment",
            "When a scheduled payment fails: the notice, with the next attempt.",
            texts.failed_payment_text(name, due, "Mar 16, 2025"),
        ),
        (
            TextKind.SCHEDULE_REMINDER,
            "Payment reminder",
            "Before a scheduled payment runs: a reminder.",
            texts.reminder_text(name, due, "Mar 16, 2025"),
        ),
    ]


def settings_page(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: Shop,
    *,
    errors: dict[str, str] | None = None,
    form: dict[str, str] | None = None,
    section: str = "",
    preview: str | None = None,
    done: str | None = None,
    status: int = 200,
) -> Response[bytes]:
    profile = shop.profile.get()
    texting = shop.texting.settings()
    numbering = shop.invoices.numbering()
    name = profile.name_or(user.merchant_name or "")
    return portal_page(
        request,
        "portal/settings.html",
        user,
        title="Settings",
        status=status,
        profile=profile,
        texting=texting,
        kinds=_what_each_sends(name),
        quiet=(QUIET_FROM.strftime("%H:%M"), QUIET_UNTIL.strftime("%H:%M")),
        origins=shop.invoices.embed_origins(),
        numbering=numbering,
        errors=errors or {},
        form=form or {},
        failed=section,
        preview=preview,
        done=_DONE.get(done or ""),
        can_edit=user.role.value in ("owner", "admin"),
        logo_max_kb=LOGO_MAX_BYTES // 1024,
    )


@get("/portal/settings", guards=MERCHANT_USERS, sync_to_thread=True)
def settings(
    request: Request[Any, Any, Any], user: PortalUser, shop: Shop, done: DoneParam = None
) -> Response[bytes]:
    return settings_page(request, user, shop, done=done)


def _refused(
    request: Request[Any, Any, Any],
    user: PortalUser,
    shop: Shop,
    error: ValidationError,
    form: dict[str, str],
    section: str,
    field: str | None = None,
    prefix: str = "",
) -> Response[bytes]:
    """The page again with the section's errors; ``field``: every fault shown at that field
    of the form (the service names its own parameter)."""
    if field is not None:
        error = ValidationError(
            error.detail, [FieldError(field, prefix + f.message) for f in error.fields]
        )
    return settings_page(
        request,
        user,
        shop,
        errors=field_errors(error),
        form=form,
        section=section,
        status=400,
    )


@post("/portal/settings/profile", guards=MANAGERS, sync_to_thread=True, status_code=303)
def save_profile(
    request: Request[Any, Any, Any], user: PortalUser, shop: Shop, form: Form
) -> Response[bytes]:
    address = Address(
        line1=text(form, "line1"),
        line2=text(form, "line2"),
        city=text(form, "city"),
        state=text(form, "state"),
        postal_code=text(form, "postalCode"),
        country=text(form, "country"),
    )
    try:
        shop.profile.update(
            business_name=text(form, "businessName"),
            contact_email=text(form, "contactEmail"),
            phone=text(form, "phone"),
            address=address,
        )
    except ValidationError as e:
        fields = [FieldError(f.field.removeprefix("address."), f.message) for f in e.fields]
        return _refused(request, user, shop, ValidationError(e.detail, fields), form, "profile")
    return redirect("/portal/settings?done=profile#profile")


@post("/portal/settings/logo", guards=MANAGERS, status_code=303)
async def save_logo(
    request: Request[Any, Any, Any], user: PortalUser, shop: Shop
) -> Response[bytes]:
    """A PNG or JPEG, checked by its bytes (the file name and browser's type are ignored)."""
    import anyio.to_thread

    upload = (await request.form()).get("logo")
    data = b""
    if isinstance(upload, UploadFile):
        data = await upload.read(LOGO_MAX_BYTES + 1)
    try:
        await anyio.to_thread.run_sync(shop.profile.set_logo, data)
    except ValidationError as e:
        refusal = e
    else:
        return redirect("/portal/settings?done=logo#logo")
    return await anyio.to_thread.run_sync(
        lambda: _refused(request, user, shop, refusal, {}, "logo")
    )


@post("/portal/settings/logo/remove", guards=MANAGERS, sync_to_thread=True, status_code=303)
def remove_logo(request: Request[Any, Any, Any], user: PortalUser, shop: Shop) -> Response[bytes]:
    shop.profile.remove_logo()
    return redirect("/portal/settings?done=logo-removed#logo")


@post("/portal/settings/time-zone", guards=MANAGERS, sync_to_thread=True, status_code=303)
def save_time_zone(
    request: Request[Any, Any, Any], user: PortalUser, shop: Shop, form: Form
) -> Response[bytes]:
    try:
        shop.set_time_zone(form.get("timeZone", "")[:100])
    except ValidationError as e:
        return _refused(request, user, shop, e, form, "time-zone", "timeZone")
    return redirect("/portal/settings?done=time-zone#time-zone")


@post("/portal/settings/texting", guards=MANAGERS, sync_to_thread=True, status_code=303)
def save_texting(
    request: Request[Any, Any, Any], user: PortalUser, shop: Shop, form: Form
) -> Response[bytes]:
    """The boxes ticked are on, the others off (the CLI's ``texting on/off``)."""
    on = [k for k in TextKind if form.get(f"kind-{k.value}") == "on"]
    off = [k for k in TextKind if k not in on]
    try:
        if on:  # first: refused without a time zone, before anything is switched off
            shop.texting.switch(on, True)
        if off:
            shop.texting.switch(off, False)
    except ValidationError as e:
        return _refused(request, user, shop, e, form, "texting", "texting", "time zone ")
    return redirect("/portal/settings?done=texting#texting")


@post("/portal/settings/embed", guards=MANAGERS, sync_to_thread=True, status_code=303)
def change_embed(
    request: Request[Any, Any, Any], user: PortalUser, shop: Shop, form: Form
) -> Response[bytes]:
    """Add the typed website, or remove the one whose button was pressed."""
    add = form.get("origin", "")[:400]
    remove = form.get("remove", "")[:400]
    try:
        if remove:
            shop.invoices.change_embed_origins(remove=[remove])
        else:
            shop.invoices.change_embed_origins(add=[add])
    except ValidationError as e:
        return _refused(request, user, shop, e, form, "embed", "origin")
    return redirect("/portal/settings?done=embed#embed")


@post("/portal/settings/numbering", guards=MANAGERS, sync_to_thread=True, status_code=200)
def save_numbering(
    request: Request[Any, Any, Any], user: PortalUser, shop: Shop, form: Form
) -> Response[bytes]:
    """``preview`` shows the first number the format would give (saving nothing); ``save``
    saves it; ``default`` goes back to the default ``INV-`` numbers."""
    errors: list[FieldError] = []
    fmt = text(form, "format")
    start = whole(form, "start", errors)
    action = form.get("action", "save")
    try:
        if errors:
            raise ValidationError("the form has errors", errors)
        if action == "default":
            shop.invoices.set_numbering(None)
        elif fmt is None:
            raise ValidationError.for_field("format", "enter a format, such as INV-{YYYY}-{####}")
        elif action == "preview":
            example = shop.invoices.preview_numbering(fmt, start)
            return settings_page(request, user, shop, form=form, preview=example)
        else:
            shop.invoices.set_numbering(fmt, start)
    except ValidationError as e:
        return _refused(request, user, shop, e, form, "numbering")
    return redirect("/portal/settings?done=numbering#numbering")


@get("/portal/settings/numbering/preview", guards=MERCHANT_USERS, sync_to_thread=True)
def numbering_preview(
    shop: Shop,
    number_format: Annotated[str, Parameter(query="format", required=False)] = "",
    start: Annotated[str, Parameter(query="start", required=False)] = "",
) -> dict[str, str]:
    """The live preview's answer (portal.js asks as the merchant types): the example or why
    the format is refused. Changes nothing."""
    errors: list[FieldError] = []
    first = whole({"start": start}, "start", errors)
    try:
        if errors:
            raise ValidationError("start", errors)
        return {"example": shop.invoices.preview_numbering(number_format[:200], first)}
    except ValidationError as e:
        return {"error": "; ".join(f.message for f in e.fields) or e.detail}


SETTINGS_HANDLERS = [
    settings,
    save_profile,
    save_logo,
    remove_logo,
    save_time_zone,
    save_texting,
    change_embed,
    save_numbering,
    numbering_preview,
]
