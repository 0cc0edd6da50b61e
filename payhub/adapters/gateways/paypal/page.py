"""PayPal's pay-page driver: the JS SDK ``fields.js`` loads (Card Fields), the hosts the page's
CSP opens (sandbox frames for sandbox credentials), and no per-view session: PayPal's order is
made for the chosen amount when the payer presses Pay (``pay_page_checkout``, through
``POST /pay/{token}/session``).

Checked: developer.paypal.com/docs/checkout/reference/customize-sdk/ (load the SDK only from
``https://www.paypal.com/sdk/js`` with ``client-id`` and ``components``; the client id decides
sandbox or live); PayPal's CSP guidance (developer.paypal.com, Braintree Fastlane "Configure
your Content Security Policy") lists ``*.paypal.com`` and ``*.paypalobjects.com`` for scripts,
frames and connections. payhub opens the named hosts only: the SDK and its assets
(``www.paypal.com``, ``www.paypalobjects.com``), and the Card Fields frames and their calls on
the mode's web host (``www.sandbox.paypal.com`` / ``www.paypal.com``).
"""

from __future__ import annotations

from payhub.adapters.gateways.folder import PayPageDriver, VendorHosts

_SDK = "https://www.paypal.com/sdk/js"
_WWW = "https://www.paypal.com"
_SANDBOX = "https://www.sandbox.paypal.com"
_OBJECTS = "https://www.paypalobjects.com"

PAGE = PayPageDriver(
    sdk_sandbox=(_SDK,),
    sdk_live=(_SDK,),
    hosts_sandbox=VendorHosts(script=(_WWW, _OBJECTS), frame=(_SANDBOX,), connect=(_SANDBOX,)),
    hosts_live=VendorHosts(script=(_WWW, _OBJECTS), frame=(_WWW,), connect=(_WWW,)),
)
