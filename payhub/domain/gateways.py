"""The gateway catalog: what each supported gateway can do, as the core receives it.

Every rule that depends on a gateway's abilities (ACH allowed? authorize-only? partial
capture? must a bank account be saved first? which values are public?) reads a
``GatewayInfo`` row of the ``GatewayCatalog`` the composition root hands the services
(``Deps.catalog``). The rows themselves live with their gateways, one folder each
(``payhub/adapters/gateways/<gateway>/catalog.py``), and the gateway registry assembles
them; the core imports none of it. Capabilities follow each gateway's public API
reference (see ``docs/gateways.md``).
"""

from __future__ import annotations

from enum import StrEnum

import attrs

from payhub.domain.environments import Environment
from payhub.domain.errors import NotFound
from payhub.domain.gateway_public import PublicField


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
    # The public client values its browser SDK needs (kept unsealed, checked for shape and
    # mode; gateway_public.py), and those of them the adapter also reads from the sealed ones.
    public_fields: tuple[PublicField, ...] = ()
    adapter_reads: frozenset[str] = frozenset()
    # The gateway posts outcomes to payhub (its adapter reads them: Adyen's webhooks); its
    # credentials then get a notification URL. Set by the registry from the adapter.
    takes_notifications: bool = False

    @property
    def ach(self) -> bool:
        return self.bank_account_vaulting is not BankAccountVaulting.NONE

    def available_in(self, environment: Environment) -> bool:
        return not self.sandbox_only or environment is Environment.SANDBOX


def no_hosted_checkout(info: GatewayInfo) -> str:
    """Why an invoice or schedule request cannot use a gateway (its field error)."""
    return (
        f"{info.display_name} cannot take payments on payhub's pay and approval pages yet"
        f" (no driver for {info.hosted_fields}); choose a gateway whose hostedCheckout is"
        " true in GET /api/gateways, or charge through POST /api/payments/charge"
    )


def catalog_row(
    name: str,
    display: str,
    vaulting: BankAccountVaulting,
    hosted_fields: str,
    *,
    partial_capture: bool = True,
    fields: tuple[str, ...] = (),
    public_fields: tuple[PublicField, ...] = (),
    adapter_reads: frozenset[str] = frozenset(),
) -> GatewayInfo:
    """A real gateway's row: cards, authorize-only, refunds and card vaulting everywhere.

    ``hosted_checkout`` starts false; the registry sets it for gateways whose folder has a
    pay-page driver, so the flag and the pages can never disagree.
    """
    return GatewayInfo(
        name=name,
        display_name=display,
        card=True,
        bank_account_vaulting=vaulting,
        authorize_only=True,
        hosted_checkout=False,
        refunds=True,
        partial_capture=partial_capture,
        card_vaulting=True,
        hosted_fields=hosted_fields,
        credential_fields=fields,
        public_fields=public_fields,
        adapter_reads=adapter_reads,
    )


@attrs.frozen(eq=False)  # compared and hashed by identity: one catalog per hub
class GatewayCatalog:
    """The gateways a hub offers, in the order ``GET /api/gateways`` lists them."""

    rows: tuple[GatewayInfo, ...]
    _by_name: dict[str, GatewayInfo] = attrs.field(init=False, repr=False)

    def __attrs_post_init__(self) -> None:
        by_name = {g.name: g for g in self.rows}
        if len(by_name) != len(self.rows):
            raise ValueError("two catalog rows share a gateway name")
        object.__setattr__(self, "_by_name", by_name)

    @property
    def real(self) -> tuple[GatewayInfo, ...]:
        """The real gateways (not the sandbox-only simulator)."""
        return tuple(g for g in self.rows if not g.sandbox_only)

    def named(self, name: str) -> GatewayInfo | None:
        return self._by_name.get(name.strip().lower())

    def for_environment(self, environment: Environment) -> list[GatewayInfo]:
        """The gateways a caller in ``environment`` may use, real ones first."""
        ordered = (*self.real, *(g for g in self.rows if g.sandbox_only))
        return [g for g in ordered if g.available_in(environment)]

    def get(self, name: str, environment: Environment) -> GatewayInfo:
        """Look a gateway up by name; unknown (or sandbox-only in production) is 404."""
        info = self.named(name)
        if info is None or not info.available_in(environment):
            raise NotFound(f"no gateway named '{name}'; GET /api/gateways lists them")
        return info
