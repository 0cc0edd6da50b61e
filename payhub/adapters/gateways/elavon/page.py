"""Elavon Converge's pay-page driver: the Lightbox (``PayWithConverge.js``), which ``fields.js``
loads, and the hosts the page's CSP opens (the demo host for sandbox credentials). No public
value and no per-view session: the lightbox's session token is made when the payer presses Pay
(``pay_page_checkout``, through ``POST /pay/{token}/session``).

Not Checkout.js: ``ConvergeEmbeddedPayment.pay`` takes ``ssl_card_number`` from the merchant's
own page, which payhub's pages must never touch; the Lightbox takes the card in Converge's own
frame. Checked with the search tool (Converge's developer site is not in the stored corpus, so
against integrations published on GitHub): the session token from
``POST {host}/hosted-payments/transaction_token`` (a form with ``ssl_merchant_id``,
``ssl_user_id``, ``ssl_pin``, ``ssl_transaction_type``), answered as plain text; the script
``{host}/hosted-payments/PayWithConverge.js`` on ``api.demo.convergepay.com`` /
``api.convergepay.com``; ``PayWithConverge.open({ssl_txn_auth_token}, {onError, onCancelled,
onDeclined, onApproval})``; lightbox sessions of type ``CCGETTOKEN`` with ``ssl_verify``. The
integrations load jQuery (``ajax.googleapis.com``) before ``PayWithConverge.js``; payhub does
the same. The remote sandbox test must confirm all of it before going live.
"""

from __future__ import annotations

from payhub.adapters.gateways.folder import PayPageDriver, VendorHosts

_JQUERY_HOST = "https://ajax.googleapis.com"
_JQUERY = _JQUERY_HOST + "/ajax/libs/jquery/3.7.1/jquery.min.js"
_DEMO = "https://api.demo.convergepay.com"
_LIVE = "https://api.convergepay.com"
_SCRIPT = "/hosted-payments/PayWithConverge.js"

PAGE = PayPageDriver(
    sdk_sandbox=(_JQUERY, _DEMO + _SCRIPT),
    sdk_live=(_JQUERY, _LIVE + _SCRIPT),
    hosts_sandbox=VendorHosts(script=(_JQUERY_HOST, _DEMO), frame=(_DEMO,), connect=(_DEMO,)),
    hosts_live=VendorHosts(script=(_JQUERY_HOST, _LIVE), frame=(_LIVE,), connect=(_LIVE,)),
)
