"""Checkout.com's pay-page driver: the vendor SDK ``fields.js`` loads and the hosts the page's CSP
opens (sandbox hosts for sandbox credentials)."""

from __future__ import annotations

from payhub.adapters.gateways.folder import PayPageDriver, VendorHosts

_CKO = "https://cdn.checkout.com/js/framesv2.min.js"


# https://www.checkout.com/docs/payments/accept-payments/accept-a-payment-using-frames:
# one CDN script for both modes (Frames picks the API from the key's pk_sbox_ prefix);
# the card frame is on cdn.checkout.com and the token comes from the API's /tokens.
PAGE = PayPageDriver(
    sdk_sandbox=(_CKO,),
    sdk_live=(_CKO,),
    hosts_sandbox=VendorHosts(
        script=("https://cdn.checkout.com",),
        frame=("https://cdn.checkout.com",),
        connect=("https://api.sandbox.checkout.com",),
    ),
    hosts_live=VendorHosts(
        script=("https://cdn.checkout.com",),
        frame=("https://cdn.checkout.com",),
        connect=("https://api.checkout.com",),
    ),
)
