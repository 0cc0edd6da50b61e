"""Nuvei in payhub's catalog: what it can do and the public values its browser SDK needs."""

from __future__ import annotations

from payhub.domain.gateway_public import PublicField
from payhub.domain.gateway_public import pattern as _p
from payhub.domain.gateways import BankAccountVaulting, GatewayInfo, catalog_row

# https://docs.nuvei.com/documentation/accept-payment/web-sdk/quick-start-for-web-sdk: the Web
# SDK is initialised in the browser with the merchant id and merchant site id (public; the
# secret key stays server-side, in the checksum of /openOrder).
PUBLIC_FIELDS: tuple[PublicField, ...] = (
    PublicField("merchantId", _p(r"^\d{1,20}$"), shape="a Nuvei merchant id (digits)"),
    PublicField("merchantSiteId", _p(r"^\d{1,12}$"), shape="a Nuvei merchant site id (digits)"),
)

CATALOG: GatewayInfo = catalog_row(
    "nuvei",
    "Nuvei",
    BankAccountVaulting.NONE,
    "Nuvei Fields",
    fields=("merchantId", "merchantSiteId"),
    public_fields=PUBLIC_FIELDS,
    # the adapter also reads both from the sealed credentials (every body and checksum)
    adapter_reads=frozenset({"merchantId", "merchantSiteId"}),
)
