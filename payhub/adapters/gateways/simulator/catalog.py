"""The simulator in payhub's catalog: every ability, in sandbox only."""

from __future__ import annotations

from payhub.domain.gateways import BankAccountVaulting, GatewayInfo

CATALOG = GatewayInfo(
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
