"""Shared fixtures: a hub on a real store, the app in front of it, providers and merchants.

The store is chosen by the ``store_url`` fixture. Its parameters are listed in
``STORES``; a test that only makes sense on one store overrides it with
``@pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import Environment, PayHub
from payhub.adapters.system import FixedClock
from payhub.domain.accounts import Provider
from tests.templates import (
    PostgresTemplate,
    postgres_migrated,
    postgres_template_session,
    sqlite_migrated,
    sqlite_template_session,
)

# Stores every hub-based test runs against: the embedded default and PostgreSQL, each test
# on an already migrated store of its own (a copied SQLite file; the test process's schema,
# emptied after each test: tests/templates.py). Without a reachable PostgreSQL the second is
# skipped with the reason, or fails under CI=true.
STORES = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]

START = datetime(2025, 3, 14, 9, 26, 53, tzinfo=UTC)

_PAYHUB_ENV = (
    "PAYHUB_DATABASE_URL",
    "PAYHUB_SECRET_KEY",
    "PAYHUB_KEY_FILE",
    "PAYHUB_LOG_FORMAT",
    "PAYHUB_PUBLIC_URL",
    "PAYHUB_QBO_CLIENT_ID",
    "PAYHUB_QBO_CLIENT_SECRET",
    "PAYHUB_QBO_REDIRECT_URI",
    "PAYHUB_QBO_WEBHOOK_VERIFIER",
    "PAYHUB_QBO_API_URL",
    "PAYHUB_QBO_REVOKE_URL",
    "PAYHUB_QBO_TOKEN_URL",
    "PAYHUB_QBO_AUTHORIZE_URL",
)


class Account(NamedTuple):
    """A provider and the clear text of its first key (shown once, kept by the test)."""

    provider: Provider
    key: str

    @property
    def headers(self) -> dict[str, str]:
        return api_headers(self.key)


def api_headers(key: str) -> dict[str, str]:
    return {"X-Api-Key": key}


# The storage contract runs on both stores in the everyday command; the suites above it run
# there on SQLite, and their PostgreSQL runs are ``slow`` (CI runs them, the second command).
_POSTGRES_EVERY_DAY = ("tests/storage/",)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every browser test is also ``slow``: the README's everyday command leaves them to CI,
    with the PostgreSQL runs of the suites above the storage contract."""
    for item in items:
        if item.get_closest_marker("slow"):
            continue
        if item.get_closest_marker("browser") or (
            item.get_closest_marker("postgres") and not item.nodeid.startswith(_POSTGRES_EVERY_DAY)
        ):
            item.add_marker(pytest.mark.slow)


def pytest_configure(config: pytest.Config) -> None:
    # Litestar 2.25 warns, once per handler and app, about the inferred parameter style that
    # Litestar 3 drops; hundreds of identical lines would bury real failures. Moving the
    # handlers to explicit markers is product work, tracked apart from the tests.
    for spec in (
        "ignore::litestar.exceptions.LitestarDeprecationWarning",
        r"ignore:Deprecated '\w+' parameter:DeprecationWarning",
    ):
        config.addinivalue_line("filterwarnings", spec)


@pytest.fixture(autouse=True)
def _isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test reads the developer's PAYHUB_* settings or leaves files in the repository."""
    for name in _PAYHUB_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)


@pytest.fixture(scope="session")
def _postgres_template() -> Iterator[PostgresTemplate]:
    yield from postgres_template_session()


@pytest.fixture(scope="session")
def _sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return sqlite_template_session(tmp_path_factory)


@pytest.fixture(params=STORES)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A migrated store no other test sees (see tests/templates.py)."""
    if request.param == "sqlite":
        yield sqlite_migrated(tmp_path, request)
    elif request.param == "postgres":
        yield from postgres_migrated(request)
    else:
        raise pytest.UsageError(f"no store called {request.param!r}")


@pytest.fixture
def key_file(tmp_path: Path) -> Path:
    return tmp_path / "payhub.key"


@pytest.fixture
def clock() -> FixedClock:
    """The hub's clock: it moves only when a test says so."""
    return FixedClock(START)


@pytest.fixture
def hub(store_url: str, key_file: Path, clock: FixedClock) -> Iterator[PayHub]:
    hub = PayHub.open(store_url, key_file=key_file, clock=clock)
    yield hub
    hub.close()


@pytest.fixture
def app(hub: PayHub) -> Litestar:
    # Imported here, after pytest_configure, so the filters above cover the route modules'
    # import-time deprecation warnings too.
    from payhub_server import create_app

    return create_app(hub)


@pytest.fixture
def client(app: Litestar) -> Iterator[TestClient[Litestar]]:
    with TestClient(app) as client:
        yield client


@pytest.fixture
def new_provider(hub: PayHub) -> Callable[..., Account]:
    """Make a provider account (sandbox unless told) and return it with its key."""

    def make(name: str = "Provider", environment: Environment = Environment.SANDBOX) -> Account:
        provider, issued = hub.operators.create_provider(name, environment)
        return Account(provider, issued.secret)

    return make


@pytest.fixture
def sandbox_provider(new_provider: Callable[..., Account]) -> Account:
    return new_provider("Provider A")


@pytest.fixture
def other_provider(new_provider: Callable[..., Account]) -> Account:
    return new_provider("Provider B")


@pytest.fixture
def make_merchant(client: TestClient[Litestar]) -> Callable[..., dict[str, Any]]:
    """Create a merchant through the API, as a provider would, and return the body."""

    def make(account: Account, ref: str, name: str | None = None) -> dict[str, Any]:
        response = client.post(
            "/api/merchant-accounts",
            json={"externalReference": ref, "displayName": name or f"Shop {ref}"},
            headers=account.headers,
        )
        assert response.status_code == 201, response.text
        body: dict[str, Any] = response.json()
        return body

    return make


@pytest.fixture
def merchant_key(hub: PayHub) -> Callable[[Account, str], str]:
    """Issue a key scoped to one merchant of the account's provider."""

    def issue(account: Account, ref: str) -> str:
        return hub.operators.issue_key(account.provider.id, merchant_reference=ref).secret

    return issue


# --- the browser ---------------------------------------------------------------------------
# One Debian chromium per test session, shared by every browser test (pages, approval):
# playwright's sync API may run only one session per thread, so the fixture lives here once.


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    from tests.pages.live import CHROMIUM, CHROMIUM_ARGS

    if not Path(CHROMIUM).exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{CHROMIUM} is missing: .ci/run installs Debian's chromium")
        pytest.skip(f"{CHROMIUM} is missing: apt-get install -y chromium")
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1100, "height": 900})
    tab = context.new_page()
    yield tab
    context.close()
