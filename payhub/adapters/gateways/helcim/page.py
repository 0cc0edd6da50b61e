"""Helcim's pay-page driver: HelcimPay.js, which ``fields.js`` loads, and the host the page's CSP
opens. No public value and no per-view session: the checkout session is initialized when the
payer presses Pay (``pay_page_checkout``, through ``POST /pay/{token}/session``).

Checked: devdocs.helcim.com "HelcimPay.js Implementation" / "Render the HelcimPay.js Payment
Modal" (``https://secure.helcim.app/helcim-pay/services/start.js`` gives
``appendHelcimPayIframe(checkoutToken)``; the modal is an iframe overlaid on the page) and
"Validate a HelcimPay.js payment" (the modal's window message ``eventName``
``helcim-pay-js-<checkoutToken>``, ``eventStatus`` SUCCESS / ABORTED / HIDE, ``eventMessage``
with ``data.cardToken``). One host serves test and live (a Helcim test account is an account of
its own), so both modes open the same origin.
"""

from __future__ import annotations

from payhub.adapters.gateways.folder import PayPageDriver, VendorHosts

_HOST = "https://secure.helcim.app"
_SDK = _HOST + "/helcim-pay/services/start.js"
_HOSTS = VendorHosts(script=(_HOST,), frame=(_HOST,), connect=(_HOST,))

PAGE = PayPageDriver(sdk_sandbox=(_SDK,), sdk_live=(_SDK,), hosts_sandbox=_HOSTS,
                     hosts_live=_HOSTS)  # fmt: skip
