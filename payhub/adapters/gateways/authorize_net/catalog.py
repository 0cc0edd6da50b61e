"""Authorize.Net in payhub's catalog: what it can do and the public values its browser SDK needs."""

from __future__ import annotations

from payhub.domain.gateway_public import PublicField
from payhub.domain.gateway_public import pattern as _p
from payhub.domain.gateways import BankAccountVaulting, GatewayInfo, catalog_row

# https://developer.authorize.net/api/reference/features/acceptjs.html: the API login id
# and the public client key (Account > Security Settings > Manage Public Client Key).
PUBLIC_FIELDS: tuple[PublicField, ...] = (
    PublicField("apiLoginId", _p(r"^[A-Za-z0-9]{4,25}$"), shape="an Authorize.Net API login id"),
    PublicField(
        "clientKey", _p(r"^[A-Za-z0-9]{16,128}$"), shape="an Authorize.Net public client key"
    ),
)


CATALOG: GatewayInfo = catalog_row(
    "authorize-net",
    "Authorize.Net",
    BankAccountVaulting.FRESH_AND_VAULT,
    "Accept.js",
    fields=("apiLoginId", "clientKey"),
    public_fields=PUBLIC_FIELDS,
    # the adapter also reads these public values from the sealed credentials
    adapter_reads=frozenset({"apiLoginId"}),
)
