"""Authorize.Net's pay-page driver: the vendor SDK ``fields.js`` loads and the hosts the page's CSP
opens (sandbox hosts for sandbox credentials)."""

from __future__ import annotations

from payhub.adapters.gateways.folder import PayPageDriver, VendorHosts

# https://developer.authorize.net/api/reference/features/acceptjs.html: AcceptUI,
# the hosted lightbox (card data typed in Authorize.Net's frame, SAQ A).
PAGE = PayPageDriver(
    sdk_sandbox=("https://jstest.authorize.net/v3/AcceptUI.js",),
    sdk_live=("https://js.authorize.net/v3/AcceptUI.js",),
    hosts_sandbox=VendorHosts(
        script=("https://jstest.authorize.net",),
        frame=("https://jstest.authorize.net",),
        connect=("https://apitest.authorize.net",),
    ),
    hosts_live=VendorHosts(
        script=("https://js.authorize.net",),
        frame=("https://js.authorize.net",),
        connect=("https://api2.authorize.net",),
    ),
)
