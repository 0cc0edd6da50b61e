"""The portal's router: every page under /portal, behind the portal's guard and headers.

A page module adds its handlers to ``PORTAL_HANDLERS`` (the merchant's pages, the operator's
pages); the router gives each the signed-in check and CSRF check (``session.portal_guard``),
the ``user``/``shop``/``form`` dependencies, error pages instead of problem+json, and the
security headers on every answer.
"""

from __future__ import annotations

from typing import Any

from litestar import Router
from litestar.exceptions import HTTPException

from payhub.domain.errors import PayHubError
from payhub_server.deps import PUBLIC
from payhub_server.portal.accounting_pages import ACCOUNTING_HANDLERS
from payhub_server.portal.accounts import ACCOUNT_HANDLERS
from payhub_server.portal.merchant_pages import MERCHANT_HANDLERS
from payhub_server.portal.operator import OPERATOR_HANDLERS
from payhub_server.portal.render import portal_asset, portal_error
from payhub_server.portal.session import (
    PORTAL_DEPENDENCIES,
    portal_guard,
    security_headers_middleware,
)
from payhub_server.portal.shop_pages import SHOP_HANDLERS

# One entry per page module.
PORTAL_HANDLERS: list[Any] = [
    portal_asset,
    *ACCOUNT_HANDLERS,
    *OPERATOR_HANDLERS,
    *MERCHANT_HANDLERS,  # settings, customers, invoices, payments, keys
    *SHOP_HANDLERS,  # catalog, schedules, integrations, register
    *ACCOUNTING_HANDLERS,  # QuickBooks Online
]


def portal_router() -> Router:
    return Router(
        path="/",
        route_handlers=PORTAL_HANDLERS,
        guards=[portal_guard],
        dependencies=PORTAL_DEPENDENCIES,
        exception_handlers={
            PayHubError: portal_error,
            HTTPException: portal_error,
            Exception: portal_error,
        },
        middleware=[security_headers_middleware],
        include_in_schema=False,
        opt=dict(PUBLIC),
    )
