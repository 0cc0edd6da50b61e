"""One folder per gateway: the registry lists every folder on disk, each folder provides every
part, and a 22nd gateway is one folder plus one line (docs/gateways.md, "Adding a gateway").

The last test proves the last claim end to end: it writes a new gateway's folder outside the
source tree, assembles a catalog and adapters from the registry's folders plus that one, and
charges through payhub's API with it; nothing in the core, the services or the shell changes.
"""

from __future__ import annotations

import ast
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.adapters.gateways import registry
from payhub.adapters.gateways.folder import FIELDS_SCRIPT, GatewayFolder
from payhub.adapters.system import FixedClock
from payhub.ports import Gateway, MakesPayPageCheckouts, MakesPayPageSessions
from tests.conftest import Account

GATEWAYS_DIR = Path(registry.__file__).resolve().parent
SHARED = {"kit"}  # the shared kit is the one folder that is not a gateway


def folders_on_disk() -> set[str]:
    return {
        p.name
        for p in GATEWAYS_DIR.iterdir()
        if p.is_dir() and (p / "__init__.py").exists() and p.name not in SHARED
    }


def test_the_registry_lists_every_gateway_folder_once() -> None:
    assert len(registry.FOLDERS) == len(set(registry.FOLDERS))
    assert set(registry.FOLDERS) == folders_on_disk()
    assert len(registry.FOLDERS) == 22  # the 21 real gateways and the simulator


def test_no_gateway_module_is_left_outside_its_folder() -> None:
    loose = {p.name for p in GATEWAYS_DIR.glob("*.py")}
    assert loose == {"__init__.py", "folder.py", "registry.py"}


@pytest.mark.parametrize("name", registry.FOLDERS)
def test_each_folder_provides_every_part(name: str) -> None:
    folder = registry.load(name)
    directory = GATEWAYS_DIR / name
    assert folder.directory == directory
    assert (directory / "adapter.py").is_file()
    assert (directory / "catalog.py").is_file()
    # its catalog row and adapter carry the folder's own gateway name
    assert folder.name.replace("-", "_") == name
    adapter = folder.adapter(httpx.Client())
    assert adapter.name == folder.name
    assert type(adapter).__module__ == f"payhub.adapters.gateways.{name}.adapter"
    # a pay-page driver is page.py and fields.js together, and only then hostedCheckout
    has_page = (directory / "page.py").is_file()
    assert (directory / FIELDS_SCRIPT).is_file() is has_page
    assert (folder.page is not None) is has_page
    assert folder.info.hosted_checkout is has_page
    if folder.page is not None and folder.page.module is None:
        assert folder.page.sdk_sandbox, "the vendor SDK to load"
        assert folder.page.sdk_live
        assert folder.page.hosts_sandbox.script
        assert folder.page.hosts_live.script
        # the values its browser SDK needs: public ones the merchant sets, ones the adapter
        # makes server-side per page view (then the adapter can make them), or a session the
        # adapter makes for the amount the payer picks (MakesPayPageCheckouts)
        checkouts = isinstance(adapter, MakesPayPageCheckouts)
        assert folder.info.public_fields or folder.page.session or checkouts
        if folder.page.session:
            assert isinstance(adapter, MakesPayPageSessions)
    if isinstance(adapter, MakesPayPageCheckouts):  # its sessions are only for its pages
        assert folder.page is not None


TESTS_DIR = Path(__file__).resolve().parent


@pytest.mark.parametrize("name", [n for n in registry.FOLDERS if n != "simulator"])
def test_each_gateway_has_its_tests_mirrored_under_tests_gateways(name: str) -> None:
    """tests/gateways/<folder>/: its fake, adapter tests, remote tests and scenario driver;
    its contract check and contract tests where the vendor publishes a contract."""
    directory = TESTS_DIR / name
    for part in ("__init__.py", "fake.py", "test_adapter.py", "test_remote.py", "scenario.py"):
        assert (directory / part).is_file(), f"tests/gateways/{name}/{part}"
    assert (directory / "contract").is_dir() is (directory / "test_contract.py").is_file()
    from tests.gateways.scenarios.drivers import DRIVERS

    assert DRIVERS[registry.load(name).name].__module__ == f"tests.gateways.{name}.scenario"


@pytest.mark.parametrize("name", registry.FOLDERS)
def test_a_folder_imports_no_other_gateways_folder(name: str) -> None:
    others = {f"payhub.adapters.gateways.{o}" for o in registry.FOLDERS if o != name}
    for source in (GATEWAYS_DIR / name).glob("*.py"):
        for node in ast.walk(ast.parse(source.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not any(
                    node.module == o or node.module.startswith(o + ".") for o in others
                ), f"{source.name} imports {node.module}"


def test_the_core_imports_nothing_from_the_gateway_folders() -> None:
    root = GATEWAYS_DIR.parents[2]
    for room in ("domain", "services"):
        for source in (root / "payhub" / room).rglob("*.py"):
            text = source.read_text()
            assert "payhub.adapters" not in text, source


def test_the_pages_serve_each_driver_script_from_its_folder(client: TestClient[Litestar]) -> None:
    for name, (folder, page) in registry.pay_page_drivers().items():
        url = page.module or f"/static/fields/{name}.js"
        served = client.get(url)
        assert served.status_code == 200, url
        assert served.content == (folder.directory / FIELDS_SCRIPT).read_bytes()


# --- a 22nd gateway: one folder plus one line --------------------------------------------------

ACME = {
    "__init__.py": '''
        """Acme: its adapter, its catalog row, its pay-page driver (page.py, fields.js)."""

        from payhub.adapters.gateways.folder import GatewayFolder
        from extra_gateways.acme.adapter import AcmeGateway
        from extra_gateways.acme.catalog import CATALOG
        from extra_gateways.acme.page import PAGE

        FOLDER = GatewayFolder.of(__file__, CATALOG, AcmeGateway, PAGE)
    ''',
    "adapter.py": '''
        import httpx

        from payhub.adapters.gateways.simulator.adapter import SimulatorGateway


        class AcmeGateway(SimulatorGateway):
            """Stands in for a real adapter: it answers as the simulator does."""

            name = "acme"

            def __init__(self, client: httpx.Client) -> None:
                super().__init__()
    ''',
    "catalog.py": """
        from payhub.domain.gateway_public import PublicField, pattern
        from payhub.domain.gateways import BankAccountVaulting, catalog_row

        CATALOG = catalog_row(
            "acme", "Acme Payments", BankAccountVaulting.NONE, "Acme Fields",
            fields=("publicKey",),
            public_fields=(PublicField("publicKey", pattern(r"^ak_[a-z0-9]{8}$"), shape="a key"),),
        )
    """,
    "page.py": """
        from payhub.adapters.gateways.folder import PayPageDriver, VendorHosts

        HOSTS = VendorHosts(script=("https://js.acme.example",))
        PAGE = PayPageDriver(("https://js.acme.example/v1.js",), ("https://js.acme.example/v1.js",),
                             HOSTS, HOSTS)
    """,
    FIELDS_SCRIPT: "window.PayHubFields = window.PayHubFields || {};\n",
}


@pytest.fixture
def acme(tmp_path: Path) -> Iterator[tuple[GatewayFolder, ...]]:
    package = tmp_path / "extra_gateways"
    (package / "acme").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    for name, text in ACME.items():
        (package / "acme" / name).write_text(textwrap.dedent(text).lstrip())
    sys.path.insert(0, str(tmp_path))
    try:
        # the registry's FOLDERS plus one line: "acme" (from its own package here)
        folders = (*registry.folders(), registry.load("acme", "extra_gateways"))
        yield folders
    finally:
        sys.path.remove(str(tmp_path))
        for module in [m for m in sys.modules if m.split(".")[0] == "extra_gateways"]:
            del sys.modules[module]


@pytest.fixture
def hub(
    store_url: str, key_file: Path, clock: FixedClock, acme: tuple[GatewayFolder, ...]
) -> Iterator[PayHub]:
    with httpx.Client() as http:
        gateways: dict[str, Gateway] = registry.adapters_of(acme, http)
        catalog = registry.catalog_of(acme)
        hub = PayHub.open(
            store_url, key_file=key_file, clock=clock, gateways=gateways, catalog=catalog
        )
        yield hub
        hub.close()


def test_a_22nd_gateway_is_one_folder_and_one_line(
    client: TestClient[Litestar],
    acme: tuple[GatewayFolder, ...],
    sandbox_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
) -> None:
    listed = client.get("/api/gateways", headers=sandbox_provider.headers).json()["data"]
    row = next(g for g in listed if g["name"] == "acme")
    assert row["displayName"] == "Acme Payments"
    assert row["hostedCheckout"] is True  # it has a pay-page driver
    assert row["credentialFields"] == ["apiSecret", "publicKey"]
    make_merchant(sandbox_provider, "shop-1")
    url = "/api/merchant-accounts/shop-1/credentials/acme"
    body = {"apiSecret": "acme-secret", "environment": "Sandbox", "enabled": True}
    wrong = {**body, "additionalFields": {"publicKey": "nope"}}
    bad = client.put(url, json=wrong, headers=sandbox_provider.headers)
    assert bad.status_code == 400, bad.text  # its public-fields spec is applied
    put = client.put(
        url,
        json={**body, "additionalFields": {"publicKey": "ak_12345678"}},
        headers=sandbox_provider.headers,
    )
    assert put.status_code == 200, put.text

    charged = client.post(
        "/api/payments/charge",
        json={
            "amount": {"value": "12.00", "currency": "USD"},
            "gatewayName": "acme",
            "paymentMethodToken": "sim_card_ok",
            "capture": True,
        },
        headers={**sandbox_provider.headers, "X-Merchant-Reference": "shop-1"},
    )

    assert charged.status_code == 201, charged.text
    assert (charged.json()["status"], charged.json()["gateway"]) == ("Captured", "acme")
