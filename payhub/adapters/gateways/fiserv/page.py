"""Fiserv CommerceHub's pay-page driver: Secure Data Capture's iFrame (v2), which ``fields.js``
loads, and the hosts the page's CSP opens (the CERT API host for sandbox credentials). No public
value and no per-view session: the credentials (``sessionId``, ``accessToken``, ``publicKey``,
``keyId``) are made for each submission, when the payer presses Pay (``pay_page_checkout``,
through ``POST /pay/{token}/session``).

Checked in Fiserv's own documentation repository (Fiserv/Commerce-Hub on GitHub, through the
search tool): "Security Credentials" (``POST /payments-vas/v1/security/credentials``, its
``domains`` and answer), "Secure Data Capture - iFrame v2 Integration Guide" (the script
``https://commercehub-secure-data-capture.fiservapps.com/{version}/saq-a.js``,
``window.fiserv.commercehub.createPaymentForm({data: {environment: "CERT" | "PROD", fields},
hooks})``, ``paymentForm.submit({apiKey, accessToken, createToken, publicKey, keyId,
merchantId, terminalId})``, then a charge with ``source.sourceType`` PaymentSession), "iFrame v2
Methods" and the hosted-fields example (field names ``cardNumber``, ``nameOnCard``,
``expiration``, ``securityCode`` with ``parentElementId``; version 3.1.7 on that CDN). Fiserv
also requires the pages' domain to be allow-listed for the iFrame at boarding. The API hosts are
the adapter's; which of them the iFrame itself calls is not documented there (the remote sandbox
test must confirm it).
"""

from __future__ import annotations

from payhub.adapters.gateways.folder import PayPageDriver, VendorHosts

_CDN = "https://commercehub-secure-data-capture.fiservapps.com"
_SDK = _CDN + "/3.1.7/saq-a.js"
_CERT = "https://connect-cert.fiservapps.com"
_PROD = "https://prod.api.fiservapps.com"

PAGE = PayPageDriver(
    sdk_sandbox=(_SDK,),
    sdk_live=(_SDK,),
    hosts_sandbox=VendorHosts(script=(_CDN,), frame=(_CDN,), connect=(_CDN, _CERT)),
    hosts_live=VendorHosts(script=(_CDN,), frame=(_CDN,), connect=(_CDN, _PROD)),
)
