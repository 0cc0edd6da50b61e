"""Helpers for the customer and catalog tests: a merchant to call, and what the store holds."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.domain.accounts import Merchant
from payhub.ports import UnitOfWork
from tests.conftest import Account, api_headers

Client = TestClient[Litestar]


class Shop:
    """One merchant of a provider, called through the API with a chosen key."""

    def __init__(self, client: Client, hub: PayHub, account: Account, ref: str) -> None:
        self.client = client
        self.hub = hub
        self.account = account
        self.ref = ref
        self.base = f"/api/merchant-accounts/{ref}"
        self.headers = account.headers

    def with_key(self, key: str) -> Shop:
        other = Shop(self.client, self.hub, self.account, self.ref)
        other.headers = api_headers(key)
        return other

    def call(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        headers = {**self.headers, **kwargs.pop("headers", {})}
        return self.client.request(method, self.base + path, headers=headers, **kwargs)

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.call("GET", path, **kwargs)

    def post(self, path: str, body: Any = None, **kwargs: Any) -> httpx.Response:
        return self.call("POST", path, json=body, **kwargs)

    def put(self, path: str, body: Any = None, **kwargs: Any) -> httpx.Response:
        return self.call("PUT", path, json=body, **kwargs)

    def patch(self, path: str, body: Any = None, **kwargs: Any) -> httpx.Response:
        return self.call("PATCH", path, json=body, **kwargs)

    def delete(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.call("DELETE", path, **kwargs)

    def created(self, path: str, body: Any) -> dict[str, Any]:
        """POST that must answer 201; the body."""
        response = self.post(path, body)
        assert response.status_code == 201, response.text
        out: dict[str, Any] = response.json()
        return out

    def ok(self, response: httpx.Response) -> dict[str, Any]:
        assert response.status_code == 200, response.text
        out: dict[str, Any] = response.json()
        return out

    def merchant(self, uow: UnitOfWork) -> Merchant:
        merchant = uow.merchants.get_by_reference(self.account.provider.id, self.ref)
        assert merchant is not None
        return merchant

    def read(self, fn: Callable[[UnitOfWork, str], Any]) -> Any:
        """``fn(uow, merchant_id)`` in a unit of work: what the database holds."""
        with self.hub.store.unit_of_work() as uow:
            return fn(uow, self.merchant(uow).id)


def all_pages(shop: Shop, path: str, limit: int, **params: Any) -> list[list[dict[str, Any]]]:
    """Follow ``nextCursor`` to the end; the pages as lists of rows."""
    pages: list[list[dict[str, Any]]] = []
    cursor: str | None = None
    while True:
        query = {"limit": limit, **params}
        if cursor:
            query["startingAfter"] = cursor
        body = shop.ok(shop.get(path, params=query))
        pages.append(body["data"])
        assert len(body["data"]) <= limit
        if not body["hasMore"]:
            assert body["nextCursor"] is None
            return pages
        cursor = body["nextCursor"]
        assert cursor == body["data"][-1][next(k for k in body["data"][-1] if k.endswith("Id"))]
