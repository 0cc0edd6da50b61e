"""Which gateways payhub has: one folder each, one line each here.

Every gateway lives in ``payhub/adapters/gateways/<folder>/`` (see ``folder.py`` for its
parts). ``FOLDERS`` names them in the order ``GET /api/gateways`` lists them; everything else
is assembled from the folders: the catalog the composition root hands the core
(``default_catalog``), the adapters (``default_gateways``) and the pages' drivers
(``pay_page_drivers``). Adding a gateway is its folder plus its line below
(docs/gateways.md, "Adding a gateway"); tests/gateways/test_folders.py checks that every
folder on disk is listed and provides every part.
"""

from __future__ import annotations

import importlib
from functools import cache

import httpx

from payhub.adapters.gateways.folder import GatewayFolder, PayPageDriver
from payhub.adapters.gateways.kit.http import default_client
from payhub.domain.gateways import GatewayCatalog
from payhub.ports import Gateway

FOLDERS: tuple[str, ...] = (
    "stripe",
    "braintree",
    "authorize_net",
    "nmi",
    "square",
    "paypal",
    "adyen",
    "checkout_com",
    "cybersource",
    "worldpay",
    "global_payments",
    "heartland",
    "elavon",
    "fiserv",
    "clover",
    "helcim",
    "stax",
    "paytrace",
    "forte",
    "usaepay",
    "nuvei",
    "simulator",  # sandbox only; listed after the real gateways
)


def load(folder: str, package: str = __package__) -> GatewayFolder:
    """The parts a gateway's folder exports (its package's ``FOLDER``)."""
    module = importlib.import_module(f"{package}.{folder}")
    parts = getattr(module, "FOLDER", None)
    if not isinstance(parts, GatewayFolder):
        raise TypeError(f"{package}.{folder} (its __init__.py) exports no FOLDER")
    return parts


def assemble(names: tuple[str, ...], package: str = __package__) -> tuple[GatewayFolder, ...]:
    """The folders ``names`` lists, in that order."""
    return tuple(load(name, package) for name in names)


@cache
def folders() -> tuple[GatewayFolder, ...]:
    """Every gateway's folder, in ``FOLDERS`` order (loaded once: they are fixed data)."""
    return assemble(FOLDERS)


def catalog_of(parts: tuple[GatewayFolder, ...]) -> GatewayCatalog:
    return GatewayCatalog(tuple(f.info for f in parts))


def adapters_of(parts: tuple[GatewayFolder, ...], client: httpx.Client) -> dict[str, Gateway]:
    return {f.name: f.adapter(client) for f in parts}


@cache
def default_catalog() -> GatewayCatalog:
    """The catalog of every gateway payhub has, for the composition root to hand the core."""
    return catalog_of(folders())


def default_gateways(client: httpx.Client | None = None) -> dict[str, Gateway]:
    """Every gateway's adapter by its catalog name, sharing one HTTP client (connection pool).

    A catalog gateway missing here would answer payment calls with 503;
    tests/gateways/test_all_adapters.py keeps all of them present.
    """
    return adapters_of(folders(), client or default_client())


def pay_page_drivers() -> dict[str, tuple[GatewayFolder, PayPageDriver]]:
    """The gateways payhub's pay and approval pages can take a payment with, and their
    drivers (the folders with a ``page.py``)."""
    return {f.name: (f, f.page) for f in folders() if f.page is not None}
