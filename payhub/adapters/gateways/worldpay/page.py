"""Worldpay's pay-page driver: the vendor SDK ``fields.js`` loads and the hosts the page's CSP
opens (the pre-live eProtect host for sandbox credentials)."""

from __future__ import annotations

from payhub.adapters.gateways.folder import PayPageDriver, VendorHosts

# Worldpay eProtect Integration Guide (iframe API): the iframe client script and the card
# iframe it embeds are on the eProtect request host, pre-live for testing and
# request.eprotect.vantivcnp.com in production; the iframe registers the card with that host.
_PRELIVE = "https://request.eprotect.vantivprelive.com"
_LIVE = "https://request.eprotect.vantivcnp.com"
_CLIENT = "/eProtect/js/eProtect-iframe-client.min.js"

PAGE = PayPageDriver(
    sdk_sandbox=(_PRELIVE + _CLIENT,),
    sdk_live=(_LIVE + _CLIENT,),
    hosts_sandbox=VendorHosts(script=(_PRELIVE,), frame=(_PRELIVE,), connect=(_PRELIVE,)),
    hosts_live=VendorHosts(script=(_LIVE,), frame=(_LIVE,), connect=(_LIVE,)),
)
