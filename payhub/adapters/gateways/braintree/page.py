"""Braintree's pay-page driver: the vendor SDK ``fields.js`` loads and the hosts the page's CSP
opens (sandbox hosts for sandbox credentials)."""

from __future__ import annotations

from payhub.adapters.gateways.folder import PayPageDriver, VendorHosts

_BT = "https://js.braintreegateway.com/web/3.136.0/js"


# https://braintree.github.io/braintree-web/current (client + hostedFields modules)
PAGE = PayPageDriver(
    sdk_sandbox=(f"{_BT}/client.min.js", f"{_BT}/hosted-fields.min.js"),
    sdk_live=(f"{_BT}/client.min.js", f"{_BT}/hosted-fields.min.js"),
    hosts_sandbox=VendorHosts(
        script=("https://js.braintreegateway.com", "https://assets.braintreegateway.com"),
        frame=("https://assets.braintreegateway.com",),
        connect=(
            "https://api.sandbox.braintreegateway.com",
            "https://client-analytics.sandbox.braintreegateway.com",
            "https://payments.sandbox.braintree-api.com",
        ),
    ),
    hosts_live=VendorHosts(
        script=("https://js.braintreegateway.com", "https://assets.braintreegateway.com"),
        frame=("https://assets.braintreegateway.com",),
        connect=(
            "https://api.braintreegateway.com",
            "https://client-analytics.braintreegateway.com",
            "https://payments.braintree-api.com",
        ),
    ),
)
