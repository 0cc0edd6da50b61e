"""NMI's pay-page driver: the vendor SDK ``fields.js`` loads and the hosts the page's CSP
opens (sandbox hosts for sandbox credentials)."""

from __future__ import annotations

from payhub.adapters.gateways.folder import PayPageDriver, VendorHosts

# https://docs.nmi.com/docs/quick-start-tutorial (Collect.js, inline iframes); a
# sandbox account's key works only on sandbox.nmi.com, as the adapter's API calls do.
PAGE = PayPageDriver(
    sdk_sandbox=("https://sandbox.nmi.com/token/Collect.js",),
    sdk_live=("https://secure.nmi.com/token/Collect.js",),
    hosts_sandbox=VendorHosts(
        script=("https://sandbox.nmi.com",),
        frame=("https://sandbox.nmi.com",),
        connect=("https://sandbox.nmi.com",),
    ),
    hosts_live=VendorHosts(
        script=("https://secure.nmi.com",),
        frame=("https://secure.nmi.com",),
        connect=("https://secure.nmi.com",),
    ),
)
