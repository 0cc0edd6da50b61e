"""Clover's pay-page driver: the vendor SDK ``fields.js`` loads and the hosts the page's CSP
opens (sandbox hosts for sandbox credentials)."""

from __future__ import annotations

from payhub.adapters.gateways.folder import PayPageDriver, VendorHosts

# https://docs.clover.com/docs/using-the-clover-hosted-iframe: the iframe SDK and its
# element frames on checkout(.sandbox.dev).clover.com; cards become clv_ tokens at
# token(-sandbox.dev).clover.com.
PAGE = PayPageDriver(
    sdk_sandbox=("https://checkout.sandbox.dev.clover.com/sdk.js",),
    sdk_live=("https://checkout.clover.com/sdk.js",),
    hosts_sandbox=VendorHosts(
        script=("https://checkout.sandbox.dev.clover.com",),
        frame=("https://checkout.sandbox.dev.clover.com",),
        connect=("https://token-sandbox.dev.clover.com",),
    ),
    hosts_live=VendorHosts(
        script=("https://checkout.clover.com",),
        frame=("https://checkout.clover.com",),
        connect=("https://token.clover.com",),
    ),
)
