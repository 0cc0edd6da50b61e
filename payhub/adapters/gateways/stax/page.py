"""Stax's pay-page driver: the vendor SDK ``fields.js`` loads and the hosts the page's CSP
opens (Stax has one host for sandbox and live merchants)."""

from __future__ import annotations

from payhub.adapters.gateways.folder import PayPageDriver, VendorHosts

# https://docs.staxpayments.com/docs/staxjs: Stax.js (with its reCAPTCHA) from
# staxjs.staxpayments.com; its number and CVV iframes come from the same host and tokenize()
# posts to the Stax API (apiprod.fattlabs.com, the adapter's host too). The reCAPTCHA it
# embeds loads from www.google.com and www.gstatic.com.
_STAX = VendorHosts(
    script=("https://staxjs.staxpayments.com", "https://www.google.com",
            "https://www.gstatic.com"),
    frame=("https://staxjs.staxpayments.com", "https://www.google.com"),
    connect=("https://apiprod.fattlabs.com",),
)  # fmt: skip

PAGE = PayPageDriver(
    sdk_sandbox=("https://staxjs.staxpayments.com/staxjs-captcha.js",),
    sdk_live=("https://staxjs.staxpayments.com/staxjs-captcha.js",),
    hosts_sandbox=_STAX,
    hosts_live=_STAX,
)
