"""Which hosted-fields driver a page loads for a gateway, and the vendor hosts its CSP allows.

Each gateway's driver lives in its folder (``payhub/adapters/gateways/<gateway>/page.py``
for the vendor SDK and hosts, ``fields.js`` for the script, served at
``/static/fields/<gateway>.js``); the script is a small one of ours with the simulator's
interface, ``PayHubFields[gateway].createFields(el, {type, config})`` returning
``{tokenize(): Promise<{token, type}>}``. The driver loads the vendor's official SDK from the
vendor's own CDN, so the card number is typed only into the vendor's iframes; the token it
returns is exactly what that gateway's adapter charges (see docs/pay-page.md).

The Content-Security-Policy of a page opens exactly the hosts of the gateway on that page, in
the merchant's mode (sandbox hosts for sandbox credentials), and nothing for any other gateway.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs

from payhub.adapters.gateways.folder import PayPageDriver, VendorHosts
from payhub.adapters.gateways.registry import pay_page_drivers
from payhub.domain.gateway_public import public_field_names
from payhub.domain.gateways import GatewayInfo

__all__ = ["DRIVERS", "Driver", "Fields", "VendorHosts", "fields_for", "needs_session"]


@attrs.frozen
class Driver:
    """A gateway's pay-page driver as the pages use it: its folder's spec and catalog row."""

    info: GatewayInfo
    spec: PayPageDriver
    script: Path  # the folder's fields.js, served at ``module``

    @property
    def gateway(self) -> str:
        return self.info.name

    @property
    def module(self) -> str:
        return self.spec.module or f"/static/fields/{self.gateway}.js"

    @property
    def card(self) -> bool:
        return self.spec.card

    @property
    def bank(self) -> bool:
        return self.spec.bank

    @property
    def required(self) -> tuple[str, ...]:
        return public_field_names(self.info.public_fields)

    def hosts(self, sandbox: bool) -> VendorHosts:
        return self.spec.hosts_sandbox if sandbox else self.spec.hosts_live

    @property
    def session(self) -> tuple[str, ...]:
        """Values made server-side per page view through the adapter (``pay_page_session``)."""
        return self.spec.session

    def ready(self, public: dict[str, str]) -> bool:
        """Every public value the SDK needs is set (and the session values were made)."""
        return all(public.get(name) for name in (*self.required, *self.session))

    def config(self, public: dict[str, str], sandbox: bool) -> dict[str, Any]:
        """What the driver reads: the SDK's URLs and the public values, nothing secret."""
        if not (self.spec.sdk_sandbox or self.spec.sdk_live):
            return {}  # no vendor SDK (the simulator)
        return {
            "sdk": list(self.spec.sdk_sandbox if sandbox else self.spec.sdk_live),
            "sandbox": sandbox,
            **{name: public[name] for name in (*self.required, *self.session) if name in public},
        }


# One per gateway folder with a page.py (and its fields.js); see registry.pay_page_drivers.
DRIVERS: dict[str, Driver] = {
    name: Driver(folder.info, spec, folder.directory / "fields.js")
    for name, (folder, spec) in pay_page_drivers().items()
}


@attrs.frozen
class Fields:
    """What a page needs to render one gateway's fields, or None when it cannot."""

    module: str
    hosts: VendorHosts
    config: dict[str, Any]
    card: bool
    bank: bool


def needs_session(gateway: str) -> bool:
    """Whether a page on ``gateway`` asks its adapter for a pay-page session."""
    driver = DRIVERS.get(gateway)
    return driver is not None and bool(driver.session)


def fields_for(gateway: str, sandbox: bool, public: dict[str, str]) -> Fields | None:
    """The driver for ``gateway`` when it has one and the merchant set its public values."""
    driver = DRIVERS.get(gateway)
    if driver is None or not driver.ready(public):
        return None
    return Fields(
        driver.module, driver.hosts(sandbox), driver.config(public, sandbox),
        driver.card, driver.bank,
    )  # fmt: skip
