"""``POST M/portal-sessions``: a one-time link that opens a merchant's portal for its user.

Like Stripe's customer portal sessions: the provider's software, which has signed its own
user in, asks for a link and sends the browser there. The link works once, for five
minutes, for a portal user of that merchant (created with ``payhub portal users create`` or
invited by the merchant's owner); a user with two-factor sign-in still enters its code.
"""

from __future__ import annotations

from datetime import datetime

import msgspec
from litestar import Controller
from litestar.params import FromPath

from payhub_server.deps import PROVIDER_ONLY, Hub, Tenant, api_post


class PortalSessionIn(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    """The merchant's portal user to sign in: its email address or its id (``pus_…``)."""

    user: str = msgspec.field(name="user")


class PortalSessionOut(msgspec.Struct, rename="camel"):
    url: str
    expires_at_utc: datetime
    user_id: str
    email: str
    role: str


class PortalSessionController(Controller):
    path = "/api/merchant-accounts"
    tags = ["Merchant accounts"]

    @api_post(
        "/{ref:str}/portal-sessions",
        opt=PROVIDER_ONLY,
        summary="Create a one-time portal sign-in link for a merchant's user",
    )
    def create_portal_session(
        self, ref: FromPath[str], data: PortalSessionIn, tenant: Tenant, hub: Hub
    ) -> PortalSessionOut:
        """Provider key only. Answers a `url` that signs the named portal user of this
        merchant in once, within 5 minutes (`expiresAtUtc`); send the user's browser there.
        404 when the merchant has no portal user with that email or id; 409 when the user
        is disabled. Nothing else is changed: an unused link simply expires."""
        link = hub.portal.create_sign_in_link(tenant.caller, ref, data.user)
        return PortalSessionOut(
            url=link.url,
            expires_at_utc=link.expires_at,
            user_id=link.user.id,
            email=link.user.email,
            role=link.user.role.value,
        )
