"""Heartland's pay-page driver: the vendor SDK ``fields.js`` loads and the hosts the page's CSP
opens (certification hosts for sandbox credentials)."""

from __future__ import annotations

from payhub.adapters.gateways.folder import PayPageDriver, VendorHosts

# https://developer.heartlandpaymentsystems.com/documentation/tokenization (globalpayments.js):
# the library and its hosted field frames are on js.globalpay.com; the frames ask Heartland's
# single-use token service (Hps.Exchange.PosGateway.Hpf.v1) on the certification or live
# Portico host for the token.
_SDK = ("https://js.globalpay.com/v1/globalpayments.js",)

PAGE = PayPageDriver(
    sdk_sandbox=_SDK,
    sdk_live=_SDK,
    hosts_sandbox=VendorHosts(
        script=("https://js.globalpay.com",),
        frame=("https://js.globalpay.com",),
        connect=("https://cert.api2.heartlandportico.com",),
    ),
    hosts_live=VendorHosts(
        script=("https://js.globalpay.com",),
        frame=("https://js.globalpay.com",),
        connect=("https://api2.heartlandportico.com",),
    ),
)
