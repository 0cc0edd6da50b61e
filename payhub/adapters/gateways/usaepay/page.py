"""USAePay's pay-page driver: the vendor SDK ``fields.js`` loads and the hosts the page's CSP
opens (sandbox hosts for sandbox credentials)."""

from __future__ import annotations

from payhub.adapters.gateways.folder import PayPageDriver, VendorHosts

# https://help.usaepay.info/developer/javascript-library/ (Pay.js v2): the card entry
# frame and the payment-key request are on the script's own host.
PAGE = PayPageDriver(
    sdk_sandbox=("https://sandbox.usaepay.com/js/v2/pay.js",),
    sdk_live=("https://www.usaepay.com/js/v2/pay.js",),
    hosts_sandbox=VendorHosts(
        script=("https://sandbox.usaepay.com",),
        frame=("https://sandbox.usaepay.com",),
        connect=("https://sandbox.usaepay.com",),
    ),
    hosts_live=VendorHosts(
        script=("https://www.usaepay.com",),
        frame=("https://www.usaepay.com",),
        connect=("https://www.usaepay.com", "https://usaepay.com"),
    ),
)
