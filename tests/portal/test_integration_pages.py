"""The Integrations pages: every integration of the spec listed, one page each with its
status ("not connected" until the connect flows arrive), last sync and what connecting does."""

from __future__ import annotations

from collections.abc import Callable

from litestar import Litestar
from litestar.testing import TestClient
from markupsafe import escape

from payhub import PayHub
from payhub.domain.integrations import INTEGRATIONS
from tests.conftest import Account
from tests.portal.shop_support import signed_in_shop
from tests.portal.support import Browser


def test_every_integration_has_a_page_and_is_not_connected(
    hub: PayHub,
    sandbox_provider: Account,
    browse: Callable[..., Browser],
    client: TestClient[Litestar],
) -> None:
    shop = signed_in_shop(hub, sandbox_provider, browse, client, role="staff")
    listing = shop.browser.get("/portal/integrations")
    assert listing.status_code == 200
    keys = [i.key for i in INTEGRATIONS]
    assert keys[:3] == ["accounting-online", "accounting-desktop", "crm-primary"]
    assert {"storefront-a", "storefront-b"} <= set(keys)
    assert len([k for k in keys if k.startswith("crm-") and k != "crm-primary"]) == 4
    for integration in INTEGRATIONS:
        assert f'href="/portal/integrations/{integration.key}"' in listing.text
        page = shop.browser.get(f"/portal/integrations/{integration.key}")
        assert page.status_code == 200, integration.key
        assert "Not connected" in page.text
        if integration.key == "accounting-online":  # its own page: tests/integrations/
            assert "No sync yet." in page.text
            continue
        assert "Never" in page.text  # no sync yet
        assert str(escape(integration.connecting)) in page.text
        assert f"/{integration.api_path}</code>" in page.text
    assert listing.text.count("Not connected") == len(INTEGRATIONS)
    assert shop.browser.get("/portal/integrations/no-such-thing").status_code == 404
