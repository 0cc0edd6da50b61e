"""A merchant with an owner signed in to the portal, for the catalog, schedule, integration
and register pages' tests."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import attrs
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.hub import MerchantScope
from tests.conftest import Account
from tests.portal.support import Browser, csrf_of, make_user

REF = "shop-1"


@attrs.define
class Signed:
    hub: PayHub
    browser: Browser
    scope: MerchantScope
    account: Account
    api: TestClient[Litestar]

    def form(self, page: str, action: str, data: dict[str, str] | None = None) -> Any:
        return self.browser.submit(page, action, data)

    def post(self, page_or_token: str, action: str, data: dict[str, str]) -> Any:
        return self.browser.post(action, {"csrf_token": page_or_token, **data})

    def csrf(self, page: str = "/portal") -> str:
        return csrf_of(self.browser.get(page).text)

    def api_path(self, tail: str) -> str:
        return f"/api/merchant-accounts/{REF}{tail}"


def signed_in_shop(
    hub: PayHub,
    sandbox_provider: Account,
    browse: Callable[..., Browser],
    client: TestClient[Litestar],
    role: str = "owner",
) -> Signed:
    scope = hub.provider(hub.as_provider(sandbox_provider.provider.id))
    scope.merchants.create(REF, "Corner Cafe")
    make_user(hub, f"{role}@cafe.example", role, REF, name="Carla Cafe")
    b = browse()
    assert b.sign_in(f"{role}@cafe.example").status_code == 303
    return Signed(hub, b, scope.merchant(REF), sandbox_provider, client)


def with_simulator(s: Signed) -> None:
    """Simulator credentials (sandbox), so the register and saved methods can charge."""
    answer = s.api.put(
        s.api_path("/credentials/simulator"),
        headers=s.account.headers,
        json={"apiSecret": "sim-secret", "environment": "Sandbox"},
    )
    assert answer.is_success, answer.text


def ids_in(html: str, prefix: str) -> list[str]:
    return sorted(set(re.findall(rf"\b{prefix}_[A-Za-z0-9]+", html)))
