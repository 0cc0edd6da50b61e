"""A merchant to build a catalog for, called through the API."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from payhub import PayHub
from tests.conftest import Account
from tests.customers.support import Client, Shop


@pytest.fixture
def shop(
    client: Client,
    hub: PayHub,
    sandbox_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
) -> Shop:
    make_merchant(sandbox_provider, "acme")
    return Shop(client, hub, sandbox_provider, "acme")


@pytest.fixture
def sister(
    client: Client,
    hub: PayHub,
    sandbox_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
) -> Shop:
    """Another merchant of the same provider."""
    make_merchant(sandbox_provider, "sister")
    return Shop(client, hub, sandbox_provider, "sister")
