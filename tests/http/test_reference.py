"""The interactive reference in three views: complete, provider operations, merchant-key ones."""

from __future__ import annotations

from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from tests.http.support import operations, problem

Client = TestClient[Litestar]
CREDENTIALS = "/api/merchant-accounts/{ref}/credentials/{gateway}"


def spec(client: Client, view: str) -> dict[str, Any]:
    response = client.get(f"/reference/{view}/openapi.json")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    body: dict[str, Any] = response.json()
    return body


def ops(document: dict[str, Any]) -> set[tuple[str, str]]:
    return {
        (method.upper(), path)
        for path, item in document["paths"].items()
        for method, op in item.items()
        if isinstance(op, dict) and "responses" in op
    }


@pytest.mark.parametrize(
    ("path", "view", "title"),
    [
        ("/reference", "all", "Complete reference"),
        ("/reference/", "all", "Complete reference"),
        ("/reference/all", "all", "Complete reference"),
        ("/reference/provider", "provider", "Provider operations"),
        ("/reference/merchant", "merchant", "Merchant-key operations"),
    ],
)
def test_each_view_is_an_html_page_pointing_at_its_document(
    client: Client, path: str, view: str, title: str
) -> None:
    response = client.get(path)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/html")
    assert f"<title>payhub API: {title}</title>" in response.text
    assert f"/reference/{view}/openapi.json" in response.text
    assert "/reference/assets/swagger-ui-bundle.js" in response.text


def test_the_assets_are_served_locally(client: Client) -> None:
    for asset in ("swagger-ui-bundle.js", "swagger-ui.css"):
        response = client.get(f"/reference/assets/{asset}")
        assert response.status_code == 200, asset
        assert len(response.content) > 1000


def test_an_unknown_view_is_404(client: Client) -> None:
    problem(client.get("/reference/nope"), 404)
    problem(client.get("/reference/nope/openapi.json"), 404)


def test_the_complete_view_has_everything_including_public_pages(client: Client) -> None:
    everything = ops(spec(client, "all"))
    assert ("GET", "/healthz") in everything
    assert ("POST", "/api/merchant-accounts") in everything
    assert ("PUT", CREDENTIALS) in everything
    assert ("GET", "/api/gateways") in everything


def test_the_provider_view_has_the_api_only(client: Client) -> None:
    provider = ops(spec(client, "provider"))
    assert ("POST", "/api/merchant-accounts") in provider
    assert ("PUT", CREDENTIALS) in provider
    assert ("GET", "/healthz") not in provider
    assert all(path.startswith("/api/") for _, path in provider)


def test_the_merchant_view_has_only_what_a_merchant_key_may_call(client: Client) -> None:
    merchant = ops(spec(client, "merchant"))
    assert ("GET", "/api/gateways") in merchant
    assert ("PUT", CREDENTIALS) in merchant
    assert ("POST", "/api/merchant-accounts") not in merchant
    assert ("GET", "/healthz") not in merchant
    assert spec(client, "merchant")["info"]["title"] == "payhub API: Merchant-key operations"


def test_the_views_follow_each_routes_audience(app: Litestar, client: Client) -> None:
    """Every /api operation is in the provider view; the merchant view is those marked so."""
    api = {(op.method, op.template) for op in operations(app)}
    merchant_ok = {(op.method, op.template) for op in operations(app) if op.audience == "merchant"}
    assert ops(spec(client, "provider")) == api
    assert ops(spec(client, "merchant")) == merchant_ok
    assert merchant_ok < api
    assert api <= ops(spec(client, "all"))


@pytest.mark.parametrize("path", ["/schema/swagger", "/schema/redoc", "/schema/elements"])
def test_no_framework_ui_that_loads_assets_from_a_cdn(client: Client, path: str) -> None:
    """The offline reference is /reference; the framework's CDN-backed pages are not served."""
    assert client.get(path).status_code == 404


def test_the_raw_openapi_document_stays_available(client: Client) -> None:
    response = client.get("/schema/openapi.json")
    assert response.status_code == 200
    assert "/api/gateways" in response.json()["paths"]
