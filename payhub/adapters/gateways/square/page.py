"""Square's pay-page driver: the vendor SDK ``fields.js`` loads and the hosts the page's CSP
opens (sandbox hosts for sandbox credentials)."""

from __future__ import annotations

from payhub.adapters.gateways.folder import PayPageDriver, VendorHosts

# https://developer.squareup.com/docs/web-payments/content-security-policy
PAGE = PayPageDriver(
    sdk_sandbox=("https://sandbox.web.squarecdn.com/v1/square.js",),
    sdk_live=("https://web.squarecdn.com/v1/square.js",),
    hosts_sandbox=VendorHosts(
        script=("https://sandbox.web.squarecdn.com", "https://js.squareupsandbox.com"),
        frame=("https://sandbox.web.squarecdn.com",),
        connect=(
            "https://pci-connect.squareupsandbox.com",
            "https://sandbox.web.squarecdn.com",
        ),
    ),
    hosts_live=VendorHosts(
        script=("https://web.squarecdn.com", "https://js.squareup.com"),
        frame=("https://web.squarecdn.com",),
        connect=("https://pci-connect.squareup.com", "https://web.squarecdn.com"),
    ),
)
