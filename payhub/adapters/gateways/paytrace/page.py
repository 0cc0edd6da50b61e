"""PayTrace's pay-page driver: the vendor SDK ``fields.js`` loads, the hosts the page's CSP
opens (sandbox hosts for sandbox credentials), and the client key made server-side."""

from __future__ import annotations

from payhub.adapters.gateways.folder import PayPageDriver, VendorHosts

# https://developer.north.com/b2b/api-spec/production/Protect.js: protect.min.js from the
# Protect host of the environment; its hosted-field iframe is on that host and posts the card
# there; the adapter makes the page's clientKey (payment_fields/token/create) on the API host.
_SANDBOX = "https://protect.sandbox.paytrace.com"
_LIVE = "https://protect.paytrace.com"

PAGE = PayPageDriver(
    sdk_sandbox=(_SANDBOX + "/js/protect.min.js",),
    sdk_live=(_LIVE + "/js/protect.min.js",),
    hosts_sandbox=VendorHosts(script=(_SANDBOX,), frame=(_SANDBOX,),
                              connect=(_SANDBOX, "https://api.sandbox.paytrace.com")),
    hosts_live=VendorHosts(script=(_LIVE,), frame=(_LIVE,),
                           connect=(_LIVE, "https://api.paytrace.com")),
    session=("clientKey",),
)  # fmt: skip
