"""PayPal in payhub's catalog: what it can do and the public value its browser SDK needs."""

from __future__ import annotations

from payhub.domain.gateway_public import PublicField
from payhub.domain.gateway_public import pattern as _p
from payhub.domain.gateways import BankAccountVaulting, GatewayInfo, catalog_row

# https://developer.paypal.com/docs/checkout/reference/customize-sdk/: the JS SDK is loaded
# with the REST app's client id (``client-id``); it is public (the page's script URL carries
# it) and says nothing of the mode, which the app's environment decides.
PUBLIC_FIELDS: tuple[PublicField, ...] = (
    PublicField("clientId", _p(r"^[A-Za-z0-9_-]{16,128}$"), shape="a PayPal REST app client id"),
)

CATALOG: GatewayInfo = catalog_row(
    "paypal",
    "PayPal",
    BankAccountVaulting.NONE,
    "PayPal JS SDK Card Fields",
    fields=("clientId",),
    public_fields=PUBLIC_FIELDS,
    # the adapter also reads the client id from the sealed credentials (OAuth client id)
    adapter_reads=frozenset({"clientId"}),
)
