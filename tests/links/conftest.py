"""Short-link fixtures: domains configured, a provider with merchants, and small helpers."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any, NamedTuple

import httpx
import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import Environment, PayHub
from payhub.domain.ids import format_id
from payhub.domain.links import ShortLink
from tests.conftest import Account, api_headers

Client = TestClient[Litestar]

SANDBOX_DOMAIN = "sbx.payhub-links.com"
PRODUCTION_DOMAIN = "payhub-links.com"
BROWSER = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko)"
    " Chrome/120.0.0.0 Safari/537.36"
)
TARGET = "https://shop.example.com/pay?invoice=42"


class Shop(NamedTuple):
    """A sandbox provider with merchants ``shop-1`` and ``shop-2`` and a key for each."""

    account: Account
    key_1: str
    key_2: str

    @property
    def headers(self) -> dict[str, str]:
        return self.account.headers

    @property
    def provider_id(self) -> str:
        return self.account.provider.id


@pytest.fixture
def domains(hub: PayHub) -> None:
    hub.link_admin.set_domain(Environment.SANDBOX, SANDBOX_DOMAIN)
    hub.link_admin.set_domain(Environment.PRODUCTION, PRODUCTION_DOMAIN)


@pytest.fixture
def shop(
    domains: None,
    sandbox_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
    merchant_key: Callable[[Account, str], str],
) -> Shop:
    make_merchant(sandbox_provider, "shop-1")
    make_merchant(sandbox_provider, "shop-2")
    return Shop(
        sandbox_provider,
        merchant_key(sandbox_provider, "shop-1"),
        merchant_key(sandbox_provider, "shop-2"),
    )


def create(
    client: Client, key_or_headers: str | dict[str, str], status: int = 201, **body: Any
) -> dict[str, Any]:
    """POST /api/short-links with ``targetUrl`` defaulting to ``TARGET``; checks the status."""
    headers = api_headers(key_or_headers) if isinstance(key_or_headers, str) else key_or_headers
    response = client.post("/api/short-links", json={"targetUrl": TARGET, **body}, headers=headers)
    assert response.status_code == status, response.text
    out: dict[str, Any] = response.json()
    return out


def visit(
    client: Client,
    code: str,
    host: str = SANDBOX_DOMAIN,
    agent: str | None = BROWSER,
    method: str = "GET",
    **headers: str,
) -> httpx.Response:
    """Open a short address as a visitor on ``host``, without following the redirect."""
    sent = {"Host": host, **{k.replace("_", "-"): v for k, v in headers.items()}}
    if agent is not None:
        sent["User-Agent"] = agent
    else:
        sent["User-Agent"] = ""
    return client.request(method, f"/{code}", headers=sent, follow_redirects=False)


def stored_links(hub: PayHub, provider_id: str) -> list[ShortLink]:
    from payhub.domain.links import LinkQuery

    with hub.store.unit_of_work() as uow:
        query = LinkQuery(provider_id=provider_id, now=hub.deps.clock.now())
        return uow.short_links.list(query, 0, 100_000)


def opens_by_day(hub: PayHub, provider_id: str, code: str) -> dict[str, int]:
    hub.redirects.flush()  # opens are written in batches: write what this process counted
    with hub.store.unit_of_work() as uow:
        link = uow.short_links.get(provider_id, code)
        assert link is not None
        found = uow.short_links.daily_opens(link.id, link.created_at.date() - timedelta(days=400))
    return {day.isoformat(): n for day, n in found.items()}


def merchant_id(hub: PayHub, provider_id: str, reference: str) -> str:
    with hub.store.unit_of_work() as uow:
        merchant = uow.merchants.get_by_reference(provider_id, reference)
    assert merchant is not None
    return merchant.id


def insert_links(
    hub: PayHub,
    provider_id: str,
    merchant: str | None,
    count: int,
    first_at: datetime,
    spacing: timedelta = timedelta(0),
    tag: str = "T",
) -> None:
    """Put ``count`` links straight into the store (to get near a limit without requests).

    Codes are ``tag`` and a number, so give each batch in one test its own ``tag``."""
    with hub.store.unit_of_work() as uow:
        for i in range(count):
            raw = tag.encode().ljust(8, b"_") + i.to_bytes(8, "big")
            uow.short_links.add(
                ShortLink(
                    id=format_id("lnk", raw),
                    code=f"{tag}{i:0{8 - len(tag)}d}",
                    provider_id=provider_id,
                    merchant_id=merchant,
                    environment=Environment.SANDBOX,
                    target_url=f"https://bulk.example.com/{i}",
                    target_host="bulk.example.com",
                    created_at=first_at + spacing * i,
                    created_by="test",
                )
            )
