"""What one gateway's folder gives payhub: ``payhub/adapters/gateways/<gateway>/``.

Each folder's ``__init__.py`` exports ``FOLDER``, a ``GatewayFolder`` made of its parts:

- ``adapter.py``: the ``Gateway`` port for that gateway (built with the shared HTTP client),
- ``catalog.py``: its catalog row (``GatewayInfo``, with its public-fields spec),
- ``page.py`` and ``fields.js`` (only for gateways payhub's pay and approval pages can take
  a payment with): the pay-page driver spec (vendor SDK URLs and CSP hosts) and the browser
  driver script the shell serves at ``/static/fields/<gateway>.js``.

The registry (``registry.py``) lists the folders, one line each, and assembles from them
the catalog the composition root hands the core, the adapters and the pages' drivers.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import attrs
import httpx

from payhub.domain.gateways import GatewayInfo
from payhub.ports import Gateway

FIELDS_SCRIPT = "fields.js"  # a folder's pay-page driver script, beside its page.py


@attrs.frozen
class VendorHosts:
    """Origins a page's CSP adds to ``script-src``, ``frame-src`` and ``connect-src``."""

    script: tuple[str, ...] = ()
    frame: tuple[str, ...] = ()
    connect: tuple[str, ...] = ()


@attrs.frozen
class PayPageDriver:
    """A gateway's pay-page driver spec: how a page loads the vendor's hosted fields.

    The driver script (``fields.js`` in the folder) loads the vendor's official SDK from
    ``sdk_sandbox``/``sdk_live`` (in that order) and the page's Content-Security-Policy opens
    exactly ``hosts_sandbox``/``hosts_live``. ``module`` overrides where pages load the script
    (the simulator's has its own public URL). ``session`` names the values the page asks the
    adapter to make server-side for each view (the adapter then has ``pay_page_session``).
    """

    sdk_sandbox: tuple[str, ...] = ()
    sdk_live: tuple[str, ...] = ()
    hosts_sandbox: VendorHosts = VendorHosts()
    hosts_live: VendorHosts = VendorHosts()
    card: bool = True
    bank: bool = False
    module: str | None = None
    # Values the SDK needs made server-side per page view, through the adapter's
    # ``pay_page_session`` (``payhub.ports.MakesPayPageSessions``): PayTrace's clientKey...
    session: tuple[str, ...] = ()


AdapterFactory = Callable[[httpx.Client], Gateway]


@attrs.frozen
class GatewayFolder:
    """One gateway's parts, as its folder's ``__init__.py`` exports them (``FOLDER``)."""

    info: GatewayInfo
    adapter: AdapterFactory
    directory: Path
    page: PayPageDriver | None = None

    @classmethod
    def of(
        cls,
        init_file: str,
        info: GatewayInfo,
        adapter: AdapterFactory,
        page: PayPageDriver | None = None,
    ) -> GatewayFolder:
        """The folder of the package whose ``__init__.py`` is ``init_file``.

        The row's ``hostedCheckout`` is true exactly when the folder has a pay-page driver, and
        ``takes_notifications`` exactly when its adapter reads the gateway's notifications.
        """
        info = attrs.evolve(
            info,
            hosted_checkout=page is not None,
            takes_notifications=callable(getattr(adapter, "read_notifications", None)),
        )
        return cls(info, adapter, Path(init_file).resolve().parent, page)

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def fields_script(self) -> Path | None:
        """The pay-page driver script the shell serves, when the folder has a driver."""
        return self.directory / FIELDS_SCRIPT if self.page is not None else None
