"""Square in payhub's catalog: what it can do and the public values its browser SDK needs."""

from __future__ import annotations

from payhub.domain.gateway_public import PublicField
from payhub.domain.gateway_public import pattern as _p
from payhub.domain.gateways import BankAccountVaulting, GatewayInfo, catalog_row

# https://developer.squareup.com/reference/sdks/web/payments: sandbox application ids are
# sandbox-sq0idb-…, production ones sq0idp-… (the SDK refuses anything else).
PUBLIC_FIELDS: tuple[PublicField, ...] = (
    PublicField(
        "applicationId",
        _p(r"^(sandbox-sq0idb|sq0idp)-[A-Za-z0-9_-]{8,200}$"),
        "sandbox-sq0idb-",
        "sq0idp-",
        "a Square application id (sandbox-sq0idb-… or sq0idp-…)",
    ),
    PublicField("locationId", _p(r"^[A-Za-z0-9]{4,64}$"), shape="a Square location id"),
)


CATALOG: GatewayInfo = catalog_row(
    "square",
    "Square",
    BankAccountVaulting.FRESH_ONLY,
    "Square Web Payments SDK",
    fields=("locationId", "applicationId"),
    public_fields=PUBLIC_FIELDS,
    # the adapter also reads these public values from the sealed credentials
    adapter_reads=frozenset({"locationId"}),
)
