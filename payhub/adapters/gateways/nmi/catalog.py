"""NMI in payhub's catalog: what it can do and the public values its browser SDK needs."""

from __future__ import annotations

from payhub.domain.gateway_public import PublicField
from payhub.domain.gateway_public import pattern as _p
from payhub.domain.gateways import BankAccountVaulting, GatewayInfo, catalog_row

# https://docs.nmi.com/docs/quick-start-tutorial: a public tokenization key (Settings >
# Security Keys), e.g. 5mN8N7-jhr55W-N22pxX-uAW2s9; no mode prefix.
PUBLIC_FIELDS: tuple[PublicField, ...] = (
    PublicField(
        "tokenizationKey",
        _p(r"^[A-Za-z0-9]{4,12}(-[A-Za-z0-9]{4,12}){2,7}$"),
        shape="an NMI Collect.js tokenization key (groups of letters and digits with -)",
    ),
)


CATALOG: GatewayInfo = catalog_row(
    "nmi",
    "NMI",
    BankAccountVaulting.FRESH_AND_VAULT,
    "Collect.js",
    fields=("tokenizationKey",),
    public_fields=PUBLIC_FIELDS,
)
