"""Signing in and out, two-factor, invites, providers' sign-in links, the account and team."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Request, Response, get, post
from litestar.datastructures import Cookie
from litestar.params import FromPath, Parameter

from payhub.domain.errors import (
    Conflict,
    FieldError,
    Forbidden,
    Unauthenticated,
    ValidationError,
)
from payhub.domain.portal import PortalRole, PortalUser, may_manage
from payhub.services.portal_accounts import SignedIn, TotpSetup
from payhub_server.portal.session import (
    Form,
    clear_session_cookie,
    ensure_pre_binding,
    hub_of,
    is_https,
    portal_environment,
    portal_page,
    pre_cookie_name,
    redirect,
    require_role,
    safe_next,
    session_cookie,
    session_token,
)
from payhub_server.portal.throttle import SignInThrottle

PUBLIC_PAGE = {"portal": "public"}
PENDING_PAGE = {"portal": "pending"}
NextParam = Annotated[str | None, Parameter(query="next", required=False)]


def throttle_of(request: Request[Any, Any, Any]) -> SignInThrottle:
    throttle: SignInThrottle | None = request.app.state.get("portal_throttle")
    if throttle is None:
        throttle = SignInThrottle.from_env()
        request.app.state.portal_throttle = throttle
    return throttle


def _address(request: Request[Any, Any, Any]) -> str:
    return request.client.host if request.client else "unknown"


def _field_errors(error: ValidationError) -> dict[str, str]:
    return {f.field: f.message for f in error.fields} or {"form": error.detail}


def _clear_pre(request: Request[Any, Any, Any]) -> Cookie:
    return Cookie(
        key=pre_cookie_name(request),
        value="",
        path="/",
        max_age=0,
        secure=is_https(request),
        httponly=True,
        samesite="strict",
    )


def _signed_in(
    request: Request[Any, Any, Any], signed: SignedIn, next_path: str | None
) -> Response[bytes]:
    """The new session's cookie (the old one, if any, is gone) and where to go next."""
    old = session_token(request)
    if old:
        hub_of(request).portal.sign_out(old)
    cookies = [session_cookie(request, signed.token), _clear_pre(request)]
    if signed.second_factor_due:
        target = "/portal/sign-in/code"
        if next_path:
            target += "?next=" + safe_next(next_path)
        return redirect(target, cookies)
    return redirect(safe_next(next_path), cookies)


def _check_environment(request: Request[Any, Any, Any], signed: SignedIn) -> None:
    wanted = portal_environment()
    if wanted is not None and signed.user.environment is not wanted:
        hub_of(request).portal.sign_out(signed.token)
        raise Forbidden(
            f"this is the {wanted.value} portal; your account is in"
            f" {signed.user.environment.value}: sign in at that portal"
        )


# --- sign in ---------------------------------------------------------------------------------


def _sign_in_page(
    request: Request[Any, Any, Any],
    next_path: str | None,
    email: str = "",
    errors: dict[str, str] | None = None,
    status: int = 200,
) -> Response[bytes]:
    pre = ensure_pre_binding(request)
    return portal_page(
        request,
        "portal/sign_in.html",
        None,
        title="Sign in",
        status=status,
        cookies=[pre] if pre else None,
        email=email,
        errors=errors or {},
        next_path=safe_next(next_path) if next_path else "",
    )


@get("/portal/sign-in", opt=PUBLIC_PAGE, sync_to_thread=False)
def sign_in_page(request: Request[Any, Any, Any], next_path: NextParam = None) -> Response[bytes]:
    return _sign_in_page(request, next_path)


@post("/portal/sign-in", opt=PUBLIC_PAGE, sync_to_thread=True, status_code=303)
def sign_in(
    request: Request[Any, Any, Any], form: Form, next_path: NextParam = None
) -> Response[bytes]:
    email = form.get("email", "").strip()[:254]
    password = form.get("password", "")[:1024]
    throttle = throttle_of(request)
    throttle.check(email, _address(request))
    if not email or not password:
        errors = {}
        if not email:
            errors["email"] = "Enter your email address"
        if not password:
            errors["password"] = "Enter your password"  # noqa: S105 (a message)
        return _sign_in_page(request, next_path, email, errors, 400)
    try:
        signed = hub_of(request).portal.sign_in(email, password)
    except Unauthenticated:
        throttle.failed(email, _address(request))
        return _sign_in_page(
            request,
            next_path,
            email,
            {"email": "The email address or password is not right"},
            401,
        )
    _check_environment(request, signed)
    return _signed_in(request, signed, next_path)


@get("/portal/sign-in/code", opt=PENDING_PAGE, sync_to_thread=False)
def code_page(request: Request[Any, Any, Any], next_path: NextParam = None) -> Response[bytes]:
    pending: PortalUser = request.scope["state"]["portal_user"]
    return portal_page(
        request,
        "portal/second_factor.html",
        None,
        title="Two-factor sign-in",
        environment=pending.environment,
        pending=pending,
        errors={},
        next_path=safe_next(next_path) if next_path else "",
    )


@post("/portal/sign-in/code", opt=PENDING_PAGE, sync_to_thread=True, status_code=303)
def code(
    request: Request[Any, Any, Any], form: Form, next_path: NextParam = None
) -> Response[bytes]:
    pending: PortalUser = request.scope["state"]["portal_user"]
    throttle = throttle_of(request)
    throttle.check(pending.email, _address(request))
    try:
        signed = hub_of(request).portal.second_factor(
            session_token(request) or "", form.get("code", "")[:64]
        )
    except Unauthenticated:
        throttle.failed(pending.email, _address(request))
        return portal_page(
            request,
            "portal/second_factor.html",
            None,
            title="Two-factor sign-in",
            status=401,
            environment=pending.environment,
            pending=pending,
            errors={"code": "That code is not right"},
            next_path=safe_next(next_path) if next_path else "",
        )
    return _signed_in(request, signed, next_path)


@post("/portal/sign-out", sync_to_thread=True, status_code=303)
def sign_out(request: Request[Any, Any, Any]) -> Response[bytes]:
    hub_of(request).portal.sign_out(session_token(request))
    return redirect("/portal/sign-in", [clear_session_cookie(request)])


# --- invites and sign-in links ---------------------------------------------------------------


def _invite_page(
    request: Request[Any, Any, Any], token: str, errors: dict[str, str], status: int = 200
) -> Response[bytes]:
    invited = hub_of(request).portal.invitation(token)
    pre = ensure_pre_binding(request)
    return portal_page(
        request,
        "portal/invite.html",
        None,
        title="Choose your password",
        status=status,
        cookies=[pre] if pre else None,
        invited=invited,
        token=token,
        errors=errors,
    )


@get("/portal/invite/{token:str}", opt=PUBLIC_PAGE, sync_to_thread=True)
def invite_page(request: Request[Any, Any, Any], token: FromPath[str]) -> Response[bytes]:
    return _invite_page(request, token, {})


@post("/portal/invite/{token:str}", opt=PUBLIC_PAGE, sync_to_thread=True, status_code=303)
def accept_invite(
    request: Request[Any, Any, Any], token: FromPath[str], form: Form
) -> Response[bytes]:
    password = form.get("password", "")[:1024]
    if password != form.get("confirm", ""):
        return _invite_page(request, token, {"confirm": "The two passwords are not the same"}, 400)
    try:
        signed = hub_of(request).portal.accept_invite(token, password)
    except ValidationError as e:
        return _invite_page(request, token, _field_errors(e), 400)
    return _signed_in(request, signed, None)


@get("/portal/link/{token:str}", opt=PUBLIC_PAGE, sync_to_thread=True)
def link_page(request: Request[Any, Any, Any], token: FromPath[str]) -> Response[bytes]:
    """A provider's one-time sign-in link: a button, so a link preview cannot spend it."""
    invited = hub_of(request).portal.sign_in_link_user(token)
    pre = ensure_pre_binding(request)
    return portal_page(
        request,
        "portal/link.html",
        None,
        title="Open the portal",
        cookies=[pre] if pre else None,
        invited=invited,
        token=token,
    )


@post("/portal/link/{token:str}", opt=PUBLIC_PAGE, sync_to_thread=True, status_code=303)
def use_link(request: Request[Any, Any, Any], token: FromPath[str], form: Form) -> Response[bytes]:
    signed = hub_of(request).portal.use_sign_in_link(token)
    _check_environment(request, signed)
    return _signed_in(request, signed, None)


# --- home, account, two-factor ---------------------------------------------------------------


@get("/portal", sync_to_thread=False)
def home(request: Request[Any, Any, Any], user: PortalUser) -> Response[bytes]:
    return portal_page(request, "portal/home.html", user, title="Home")


def _account_page(
    request: Request[Any, Any, Any],
    user: PortalUser,
    *,
    setup: TotpSetup | None = None,
    recovery_codes: list[str] | None = None,
    errors: dict[str, str] | None = None,
    status: int = 200,
) -> Response[bytes]:
    return portal_page(
        request,
        "portal/account.html",
        user,
        title="Your account",
        section="account",
        status=status,
        setup=setup,
        recovery_codes=recovery_codes or [],
        errors=errors or {},
    )


@get("/portal/account", sync_to_thread=False)
def account(request: Request[Any, Any, Any], user: PortalUser) -> Response[bytes]:
    return _account_page(request, user)


@post("/portal/account/two-factor", sync_to_thread=True, status_code=200)
def begin_two_factor(request: Request[Any, Any, Any], user: PortalUser) -> Response[bytes]:
    setup = hub_of(request).portal.begin_totp(user.user_id)
    return _account_page(request, user, setup=setup)


@post("/portal/account/two-factor/confirm", sync_to_thread=True, status_code=200)
def confirm_two_factor(
    request: Request[Any, Any, Any], user: PortalUser, form: Form
) -> Response[bytes]:
    portal = hub_of(request).portal
    try:
        codes = portal.confirm_totp(user.user_id, form.get("code", "")[:64])
    except ValidationError as e:
        # The same key again, so the app the user just set up keeps working.
        setup = _current_setup(request, user)
        return _account_page(request, user, setup=setup, errors=_field_errors(e), status=400)
    fresh = portal.session(session_token(request)).user
    return _account_page(request, fresh, recovery_codes=codes)


def _current_setup(request: Request[Any, Any, Any], user: PortalUser) -> TotpSetup | None:
    hub = hub_of(request)
    record = hub.portal.get_user(user.user_id)
    if record.totp_sealed is None:
        return None
    from payhub.domain.portal import totp_uri

    secret = hub.deps.secrets.open(record.totp_sealed).decode()
    return TotpSetup(secret, totp_uri(secret, record.email))


@post("/portal/account/two-factor/off", sync_to_thread=True, status_code=303)
def two_factor_off(
    request: Request[Any, Any, Any], user: PortalUser, form: Form
) -> Response[bytes]:
    try:
        hub_of(request).portal.disable_totp(user.user_id, form.get("password", "")[:1024])
    except ValidationError as e:
        return _account_page(request, user, errors=_field_errors(e), status=400)
    return redirect("/portal/account")


# --- the merchant's team (owners and admins) -----------------------------------------------

TEAM_GUARD = [require_role(PortalRole.OWNER, PortalRole.ADMIN)]


def _team_page(
    request: Request[Any, Any, Any],
    user: PortalUser,
    *,
    invited: Any = None,
    errors: dict[str, str] | None = None,
    form: dict[str, str] | None = None,
    status: int = 200,
) -> Response[bytes]:
    members = hub_of(request).portal.team(user)
    manageable = [r.value for r in PortalRole if r.is_merchant_role and may_manage(user.role, r)]
    return portal_page(
        request,
        "portal/team.html",
        user,
        title="Team",
        section="team",
        status=status,
        members=members,
        manageable=manageable,
        invited=invited,
        errors=errors or {},
        form=form or {},
    )


@get("/portal/team", guards=TEAM_GUARD, sync_to_thread=True)
def team(request: Request[Any, Any, Any], user: PortalUser) -> Response[bytes]:
    return _team_page(request, user)


@post("/portal/team/invite", guards=TEAM_GUARD, sync_to_thread=True, status_code=200)
def invite_member(request: Request[Any, Any, Any], user: PortalUser, form: Form) -> Response[bytes]:
    try:
        link = hub_of(request).portal.invite_member(
            user, form.get("email", ""), form.get("displayName", ""), form.get("role", "staff")
        )
    except ValidationError as e:
        return _team_page(request, user, errors=_field_errors(e), form=form, status=400)
    except Conflict:
        errors = {"email": "Someone already has a portal account with this email address"}
        return _team_page(request, user, errors=errors, form=form, status=409)
    return _team_page(request, user, invited=link)


@post("/portal/team/{user_id:str}/disable", guards=TEAM_GUARD, sync_to_thread=True, status_code=303)
def disable_member(
    request: Request[Any, Any, Any], user: PortalUser, user_id: FromPath[str]
) -> Response[bytes]:
    hub_of(request).portal.disable_member(user, user_id)
    return redirect("/portal/team")


ACCOUNT_HANDLERS = [
    sign_in_page,
    sign_in,
    code_page,
    code,
    sign_out,
    invite_page,
    accept_invite,
    link_page,
    use_link,
    home,
    account,
    begin_two_factor,
    confirm_two_factor,
    two_factor_off,
    team,
    invite_member,
    disable_member,
]

__all__ = ["ACCOUNT_HANDLERS", "FieldError"]
