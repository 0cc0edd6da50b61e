"""Global Payments' pay-page driver: the vendor SDK ``fields.js`` loads, the hosts the page's
CSP opens (sandbox hosts for sandbox credentials), and the access token made server-side."""

from __future__ import annotations

from payhub.adapters.gateways.folder import PayPageDriver, VendorHosts

# https://developer.globalpay.com/ecommerce/hosted-fields: globalpayments.js and its field
# iframes on js.globalpay.com; with a GP-API access token the payment-method token is made on
# the GP-API host of the environment (apis.sandbox.globalpay.com / apis.globalpay.com).
_SDK = ("https://js.globalpay.com/v1/globalpayments.js",)

PAGE = PayPageDriver(
    sdk_sandbox=_SDK,
    sdk_live=_SDK,
    hosts_sandbox=VendorHosts(script=("https://js.globalpay.com",),
                              frame=("https://js.globalpay.com",),
                              connect=("https://apis.sandbox.globalpay.com",)),
    hosts_live=VendorHosts(script=("https://js.globalpay.com",),
                           frame=("https://js.globalpay.com",),
                           connect=("https://apis.globalpay.com",)),
    session=("accessToken",),
)  # fmt: skip
