"""Nuvei's pay-page driver: the Web SDK ``fields.js`` loads (Nuvei Fields), the hosts the page's
CSP opens (integration hosts for sandbox credentials), and no per-view session: the order is
opened for the chosen amount when the payer presses Pay (``pay_page_checkout``, ``/openOrder``,
through ``POST /pay/{token}/session``).

Checked: docs.nuvei.com "Quick Start for Web SDK" (``/openOrder`` server-side, then
``safecharge.js``, Nuvei Fields and a ``sessionToken`` in the browser) and the SDK's URL,
``https://cdn.safecharge.com/safecharge_resources/v1/websdk/safecharge.js``, the same for both
environments (``env: "int"`` or ``"prod"`` at initialisation). The REST hosts the SDK calls are
the adapter's (``ppp-test.nuvei.com`` / ``secure.safecharge.com``). Nuvei publishes no CSP list:
the Fields frames' host is taken to be the SDK's CDN; the remote sandbox test must confirm it.
"""

from __future__ import annotations

from payhub.adapters.gateways.folder import PayPageDriver, VendorHosts

_CDN = "https://cdn.safecharge.com"
_SDK = _CDN + "/safecharge_resources/v1/websdk/safecharge.js"
_TEST = "https://ppp-test.nuvei.com"
_LIVE = "https://secure.safecharge.com"

PAGE = PayPageDriver(
    sdk_sandbox=(_SDK,),
    sdk_live=(_SDK,),
    hosts_sandbox=VendorHosts(script=(_CDN,), frame=(_CDN,), connect=(_TEST,)),
    hosts_live=VendorHosts(script=(_CDN,), frame=(_CDN,), connect=(_LIVE,)),
)
