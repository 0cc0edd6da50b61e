"""The gateway catalog: the 21 supported gateways and what each can do, in one table.

Every rule that depends on a gateway's abilities (ACH allowed? authorize-only?
partial capture? must a bank account be saved first?) reads this table, so adding
a gateway is one row here plus its adapter. Capabilities follow each gateway's
public API reference (see ``docs/gateways.md``). ACH is offered through the five
gateways whose adapters implement it; the others are card-only in payhub.
"""

from __future__ import annotations

from enum import StrEnum

import attrs

from payhub.domain.environments import Environment
from payhub.domain.errors import NotFound


class BankAccountVaulting(StrEnum):
    """How a gateway treats bank accounts (spec: Payments, ACH)."""

    NONE = "None"  # no ACH at all
    VAULT_FIRST = "VaultFirst"  # a bank account must be saved before it can be charged
    FRESH_ONLY = "FreshOnly"  # no bank-account vaulting: every charge needs a fresh token
    FRESH_AND_VAULT = "FreshAndVault"  # both a fresh charge and saving work


@attrs.frozen
class GatewayInfo:
    name: str
    display_name: str
    card: bool
    bank_account_vaulting: BankAccountVaulting
    authorize_only: bool
    hosted_checkout: bool
    refunds: bool
    partial_capture: bool
    card_vaulting: bool
    hosted_fields: str
    sandbox_only: bool = False
    credential_fields: tuple[str, ...] = ()

    @property
    def ach(self) -> bool:
        return self.bank_account_vaulting is not BankAccountVaulting.NONE

    def available_in(self, environment: Environment) -> bool:
        return not self.sandbox_only or environment is Environment.SANDBOX


_V = BankAccountVaulting

# Gateways whose hosted fields payhub's pay and approval pages load today (a driver in
# payhub_server/pages/drivers.py; tests keep the two lists equal). Only these can take an
# invoice or schedule-request payment; the others take API charges and saved methods.
HOSTED_CHECKOUT = frozenset(
    {"stripe", "square", "nmi", "authorize-net", "braintree", "checkout-com", "clover", "usaepay"}
)


def no_hosted_checkout(info: GatewayInfo) -> str:
    """Why an invoice or schedule request cannot use a gateway (its field error)."""
    return (
        f"{info.display_name} cannot take payments on payhub's pay and approval pages yet"
        f" (no driver for {info.hosted_fields}); choose a gateway whose hostedCheckout is"
        " true in GET /api/gateways, or charge through POST /api/payments/charge"
    )


def _gw(
    name: str,
    display: str,
    vaulting: BankAccountVaulting,
    hosted_fields: str,
    *,
    partial_capture: bool = True,
    fields: tuple[str, ...] = (),
) -> GatewayInfo:
    return GatewayInfo(
        name=name,
        display_name=display,
        card=True,
        bank_account_vaulting=vaulting,
        authorize_only=True,
        hosted_checkout=name in HOSTED_CHECKOUT,
        refunds=True,
        partial_capture=partial_capture,
        card_vaulting=True,
        hosted_fields=hosted_fields,
        credential_fields=fields,
    )


GATEWAYS: tuple[GatewayInfo, ...] = (
    _gw("stripe", "Stripe", _V.FRESH_AND_VAULT, "Stripe Elements", fields=("publishableKey",)),
    _gw("braintree", "Braintree", _V.VAULT_FIRST, "Braintree Hosted Fields",
        fields=("merchantId", "publicKey", "tokenizationKey")),
    _gw("authorize-net", "Authorize.Net", _V.FRESH_AND_VAULT, "Accept.js",
        fields=("apiLoginId", "clientKey")),
    _gw("nmi", "NMI", _V.FRESH_AND_VAULT, "Collect.js", fields=("tokenizationKey",)),
    _gw("square", "Square", _V.FRESH_ONLY, "Square Web Payments SDK",
        fields=("locationId", "applicationId")),
    _gw("paypal", "PayPal", _V.NONE, "PayPal JS SDK Card Fields", fields=("clientId",)),
    _gw("adyen", "Adyen", _V.NONE, "Adyen Web Components",
        fields=("merchantAccount", "liveUrlPrefix")),
    _gw("checkout-com", "Checkout.com", _V.NONE, "Checkout.com Frames",
        fields=("processingChannelId", "publicKey")),
    _gw("cybersource", "CyberSource", _V.NONE, "CyberSource Microform",
        fields=("merchantId", "keyId")),
    _gw("worldpay", "Worldpay (Vantiv cnpAPI)", _V.NONE, "Worldpay eProtect",
        fields=("user", "merchantId")),
    _gw("global-payments", "Global Payments", _V.NONE, "globalpayments.js",
        fields=("appId", "accountName", "country")),
    _gw("heartland", "Heartland (Portico)", _V.NONE, "globalpayments.js"),
    _gw("elavon", "Elavon Converge", _V.NONE, "Converge Checkout.js",
        fields=("merchantId", "userId")),
    _gw("fiserv", "Fiserv CommerceHub", _V.NONE, "CommerceHub iFrame",
        fields=("apiKey", "merchantId", "terminalId")),
    _gw("clover", "Clover", _V.NONE, "Clover iframe", fields=("apiAccessKey", "merchantId")),
    _gw("helcim", "Helcim", _V.NONE, "HelcimPay.js"),
    _gw("stax", "Stax", _V.NONE, "Stax.js"),
    _gw("paytrace", "PayTrace", _V.NONE, "PayTrace Protect.js",
        fields=("username", "integratorId")),
    _gw("forte", "Forte", _V.NONE, "Forte.js", partial_capture=False,
        fields=("accessId", "organizationId", "locationId")),
    _gw("usaepay", "USAePay", _V.NONE, "USAePay Pay.js", fields=("pin", "publicKey")),
    _gw("nuvei", "Nuvei", _V.NONE, "Nuvei Fields", fields=("merchantId", "merchantSiteId")),
)  # fmt: skip

SIMULATOR = GatewayInfo(
    name="simulator",
    display_name="payhub simulator (sandbox only)",
    card=True,
    bank_account_vaulting=BankAccountVaulting.FRESH_AND_VAULT,
    authorize_only=True,
    hosted_checkout=True,
    refunds=True,
    partial_capture=True,
    card_vaulting=True,
    hosted_fields="payhub simulator hosted fields",
    sandbox_only=True,
    credential_fields=("latencyMs",),
)

_BY_NAME: dict[str, GatewayInfo] = {g.name: g for g in (*GATEWAYS, SIMULATOR)}


def gateways_for(environment: Environment) -> list[GatewayInfo]:
    """The gateways a caller in ``environment`` may use, real ones first."""
    return [g for g in (*GATEWAYS, SIMULATOR) if g.available_in(environment)]


def gateway(name: str, environment: Environment) -> GatewayInfo:
    """Look a gateway up by name; unknown (or sandbox-only in production) is 404."""
    info = _BY_NAME.get(name.strip().lower())
    if info is None or not info.available_in(environment):
        raise NotFound(f"no gateway named '{name}'; GET /api/gateways lists them")
    return info
