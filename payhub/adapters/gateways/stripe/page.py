"""Stripe's pay-page driver: the vendor SDK ``fields.js`` loads and the hosts the page's CSP
opens (sandbox hosts for sandbox credentials)."""

from __future__ import annotations

from payhub.adapters.gateways.folder import PayPageDriver, VendorHosts

_STRIPE = VendorHosts(
    script=("https://js.stripe.com", "https://*.js.stripe.com"),
    frame=("https://js.stripe.com", "https://*.js.stripe.com", "https://hooks.stripe.com"),
    connect=("https://api.stripe.com",),
)


# https://docs.stripe.com/security/guide#content-security-policy
PAGE = PayPageDriver(
    sdk_sandbox=("https://js.stripe.com/v3/",),
    sdk_live=("https://js.stripe.com/v3/",),
    hosts_sandbox=_STRIPE,
    hosts_live=_STRIPE,
    # ACH Direct Debit through the Payment Element (Financial Connections runs inside Stripe's
    # js.stripe.com frames and talks to api.stripe.com: no other host).
    bank=True,
)
