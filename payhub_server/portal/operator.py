"""The operator's pages: providers and their keys, short-link domains, the blocklist, dead
jobs, and which senders are configured. The same services as the CLI (``payhub providers``,
``keys``, ``links domain``, ``links blocklist``, ``jobs``, ``outbox senders``).

An operator session belongs to one environment: it lists and creates that environment's
providers and keys and sets that environment's short-link domain. The blocklist, the job
queues and the senders are the server's own, shared by both.
"""

from __future__ import annotations

import os
from typing import Any

from litestar import Request, Response, get, post
from litestar.params import FromPath

from payhub.adapters.messaging import settings_from_env
from payhub.domain.errors import NotFound, ValidationError
from payhub.domain.portal import PortalRole, PortalUser
from payhub.services.operators import IssuedKey
from payhub_server.portal.session import Form, hub_of, portal_page, redirect, require_role

OPERATOR_ONLY = [require_role(PortalRole.OPERATOR)]


def _errors(error: ValidationError) -> dict[str, str]:
    return {f.field: f.message for f in error.fields} or {"form": error.detail}


# --- providers and keys ------------------------------------------------------------------------


def _providers_page(
    request: Request[Any, Any, Any],
    user: PortalUser,
    *,
    issued: IssuedKey | None = None,
    issued_for: str = "",
    errors: dict[str, str] | None = None,
    status: int = 200,
) -> Response[bytes]:
    hub = hub_of(request)
    providers = [p for p in hub.operators.list_providers() if p.environment is user.environment]
    keys = [k for k in hub.operators.list_keys() if k.key.environment is user.environment]
    by_provider: dict[str, list[Any]] = {p.id: [] for p in providers}
    for listing in keys:
        by_provider.setdefault(listing.key.provider_id, []).append(listing)
    return portal_page(
        request,
        "portal/operator/providers.html",
        user,
        title="Providers",
        status=status,
        providers=providers,
        keys=by_provider,
        issued=issued,
        issued_for=issued_for,
        errors=errors or {},
    )


@get("/portal/operator/providers", guards=OPERATOR_ONLY, sync_to_thread=True)
def providers(request: Request[Any, Any, Any], user: PortalUser) -> Response[bytes]:
    return _providers_page(request, user)


@post("/portal/operator/providers", guards=OPERATOR_ONLY, sync_to_thread=True, status_code=200)
def create_provider(
    request: Request[Any, Any, Any], user: PortalUser, form: Form
) -> Response[bytes]:
    """A provider in this session's environment, and its first key, shown once."""
    try:
        provider, issued = hub_of(request).operators.create_provider(
            form.get("name", ""), user.environment
        )
    except ValidationError as e:
        return _providers_page(request, user, errors=_errors(e), status=400)
    return _providers_page(request, user, issued=issued, issued_for=provider.name)


def _own_provider(request: Request[Any, Any, Any], user: PortalUser, provider_id: str) -> str:
    """A provider of this session's environment (404 for the other's: they never mix)."""
    for p in hub_of(request).operators.list_providers():
        if p.id == provider_id and p.environment is user.environment:
            return p.name
    raise NotFound(f"no provider '{provider_id}'")


@post(
    "/portal/operator/providers/{provider_id:str}/keys",
    guards=OPERATOR_ONLY,
    sync_to_thread=True,
    status_code=200,
)
def issue_key(
    request: Request[Any, Any, Any], user: PortalUser, provider_id: FromPath[str], form: Form
) -> Response[bytes]:
    name = _own_provider(request, user, provider_id)
    merchant = form.get("merchant", "").strip() or None
    try:
        issued = hub_of(request).operators.issue_key(provider_id, merchant, form.get("label", ""))
    except (ValidationError, NotFound) as e:
        errors = _errors(e) if isinstance(e, ValidationError) else {"merchant": e.detail}
        return _providers_page(request, user, errors=errors, status=400)
    return _providers_page(request, user, issued=issued, issued_for=name)


@post(
    "/portal/operator/keys/{key_id:str}/revoke",
    guards=OPERATOR_ONLY,
    sync_to_thread=True,
    status_code=303,
)
def revoke_key(
    request: Request[Any, Any, Any], user: PortalUser, key_id: FromPath[str]
) -> Response[bytes]:
    hub = hub_of(request)
    listing = next((k for k in hub.operators.list_keys() if k.key.id == key_id), None)
    if listing is None or listing.key.environment is not user.environment:
        raise NotFound(f"no API key '{key_id}'")
    hub.operators.revoke_key(key_id)
    return redirect("/portal/operator/providers")


# --- short links: the domain and the blocklist ------------------------------------------------


def _short_links_page(
    request: Request[Any, Any, Any],
    user: PortalUser,
    errors: dict[str, str] | None = None,
    status: int = 200,
) -> Response[bytes]:
    domains = hub_of(request).link_admin.domains()
    return portal_page(
        request,
        "portal/operator/short_links.html",
        user,
        title="Short-link domains",
        status=status,
        domain=domains.get(user.environment),
        domains=domains,
        errors=errors or {},
    )


@get("/portal/operator/short-links", guards=OPERATOR_ONLY, sync_to_thread=True)
def short_links(request: Request[Any, Any, Any], user: PortalUser) -> Response[bytes]:
    return _short_links_page(request, user)


@post("/portal/operator/short-links", guards=OPERATOR_ONLY, sync_to_thread=True, status_code=303)
def set_domain(request: Request[Any, Any, Any], user: PortalUser, form: Form) -> Response[bytes]:
    admin = hub_of(request).link_admin
    if form.get("action") == "clear":
        admin.clear_domain(user.environment)
        return redirect("/portal/operator/short-links")
    try:
        admin.set_domain(user.environment, form.get("domain", ""))
    except ValidationError as e:
        return _short_links_page(request, user, _errors(e), 400)
    return redirect("/portal/operator/short-links")


def _blocklist_page(
    request: Request[Any, Any, Any],
    user: PortalUser,
    *,
    errors: dict[str, str] | None = None,
    result: Any = None,
    status: int = 200,
) -> Response[bytes]:
    rows = hub_of(request).link_admin.blocklist()
    return portal_page(
        request,
        "portal/operator/blocklist.html",
        user,
        title="Blocklist",
        status=status,
        rows=rows,
        errors=errors or {},
        result=result,
    )


@get("/portal/operator/blocklist", guards=OPERATOR_ONLY, sync_to_thread=True)
def blocklist(request: Request[Any, Any, Any], user: PortalUser) -> Response[bytes]:
    return _blocklist_page(request, user)


@post("/portal/operator/blocklist", guards=OPERATOR_ONLY, sync_to_thread=True, status_code=200)
def block(request: Request[Any, Any, Any], user: PortalUser, form: Form) -> Response[bytes]:
    """Block a domain: new links to it are refused and existing ones revoked."""
    try:
        result = hub_of(request).link_admin.block(form.get("domain", ""), form.get("reason"))
    except ValidationError as e:
        return _blocklist_page(request, user, errors=_errors(e), status=400)
    return _blocklist_page(request, user, result=result)


@post(
    "/portal/operator/blocklist/remove", guards=OPERATOR_ONLY, sync_to_thread=True, status_code=303
)
def unblock(request: Request[Any, Any, Any], user: PortalUser, form: Form) -> Response[bytes]:
    try:
        hub_of(request).link_admin.unblock(form.get("domain", ""))
    except ValidationError as e:
        return _blocklist_page(request, user, errors=_errors(e), status=400)
    return redirect("/portal/operator/blocklist")


# --- jobs and senders ---------------------------------------------------------------------------


@get("/portal/operator/jobs", guards=OPERATOR_ONLY, sync_to_thread=True)
def jobs(request: Request[Any, Any, Any], user: PortalUser) -> Response[bytes]:
    hub = hub_of(request)
    dead = hub.dead_letters.list(None, 100)
    return portal_page(request, "portal/operator/jobs.html", user, title="Jobs", dead=dead)


@post(
    "/portal/operator/jobs/{job_id:str}/revive",
    guards=OPERATOR_ONLY,
    sync_to_thread=True,
    status_code=303,
)
def revive(
    request: Request[Any, Any, Any], user: PortalUser, job_id: FromPath[str]
) -> Response[bytes]:
    hub_of(request).dead_letters.revive(job_id)
    return redirect("/portal/operator/jobs")


@get("/portal/operator/senders", guards=OPERATOR_ONLY, sync_to_thread=False)
def senders(request: Request[Any, Any, Any], user: PortalUser) -> Response[bytes]:
    """What the server's environment configures (never a token or a password)."""
    return portal_page(
        request,
        "portal/operator/senders.html",
        user,
        title="Senders",
        s=settings_from_env(os.environ),
    )


OPERATOR_HANDLERS = [
    providers,
    create_provider,
    issue_key,
    revoke_key,
    short_links,
    set_domain,
    blocklist,
    block,
    unblock,
    jobs,
    revive,
    senders,
]
