"""A real ``payhub serve`` process and a real chromium for the page tests.

The server gets ``PAYHUB_PUBLIC_URL`` set to its own address, so the links the API returns
(``payUrl``, ``embedUrl``) point at it. Everything a test needs is created over HTTP, as a
provider's software would: merchant, simulator credentials, customer, invoice.
"""

from __future__ import annotations

import itertools
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import httpx

from payhub import PayHub
from tests.e2e.servers import (
    cli,
    create_provider,
    serve,
)

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    # The embedding tests' merchant site (https://shop.example, served by request
    # interception) counts as public and the payhub server is on loopback: Chromium's Local
    # Network Access checks would block that frame before any header is read. In production
    # both sites are public, so the checks do not apply; the CSP under test still does.
    "--disable-features=LocalNetworkAccessChecks",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "pages"  # git-ignored
_refs = itertools.count(1)


def serve_public(db_url: str, cwd: Path) -> AbstractContextManager[str]:
    """``payhub serve`` on a free port whose public URL is its own address, output logged."""
    return serve(db_url, cwd, public_url=True, log=True)


class Live:
    """The running server, its database, and an API client holding a sandbox provider key."""

    def __init__(self, base: str, db_url: str, cwd: Path, key: str) -> None:
        self.base = base
        self.db_url = db_url
        self.cwd = cwd
        self.key = key
        self.api = httpx.Client(base_url=base, headers={"X-Api-Key": key}, timeout=30)

    def cli(self, *args: str) -> str:
        return cli(self.db_url, self.cwd, *args)

    def ok(self, response: httpx.Response, status: int = 200) -> Any:
        assert response.status_code == status, response.text
        return response.json()

    def merchant(
        self, name: str = "Acme Plumbing", origins: tuple[str, ...] = (), latency_ms: int = 0
    ) -> str:
        """A new merchant with simulator credentials (and allowed websites); its reference."""
        ref = f"shop-{next(_refs)}"
        self.ok(
            self.api.post(
                "/api/merchant-accounts", json={"externalReference": ref, "displayName": name}
            ),
            201,
        )
        self.ok(
            self.api.put(
                f"/api/merchant-accounts/{ref}/credentials/simulator",
                json={
                    "apiSecret": "sim-secret",
                    "environment": "Sandbox",
                    "additionalFields": {"latencyMs": str(latency_ms)},
                },
            )
        )
        if origins:
            self.allow_origins(ref, origins)
        return ref

    def allow_origins(self, ref: str, origins: tuple[str, ...]) -> None:
        """The merchant's allowed websites, set in-process on the server's database (the
        portal's job; the server reads them per request)."""
        hub = PayHub.open(self.db_url, key_file=self.cwd / "payhub.key")
        try:
            scope = hub.provider(hub.authenticate(self.key)).merchant(ref)
            scope.invoices.change_embed_origins(add=origins)
        finally:
            hub.close()

    def customer(self, ref: str, phone: str | None = "+14155552671") -> str:
        body: dict[str, Any] = {
            "name": {"first": "Ann", "last": "Payer"},
            "email": "ann@example.com",
            "billingAddress": {
                "line1": "1 Main Street",
                "city": "Austin",
                "state": "TX",
                "postalCode": "78701",
                "country": "US",
            },
        }
        if phone:
            body["phone"] = phone
        made = self.ok(self.api.post(f"/api/merchant-accounts/{ref}/customers", json=body), 201)
        customer_id: str = made["customerId"]
        return customer_id

    def invoice(self, ref: str, customer_id: str, **terms: Any) -> dict[str, Any]:
        """An invoice of 2 x 40.00 (taxable) + 20.00 (not taxed) at 8.25% tax: total 106.60."""
        body: dict[str, Any] = {
            "customerId": customer_id,
            "lineItems": [
                {"description": "Pipe repair", "quantity": 2, "unitPrice": 40.00},
                {"description": "Call-out fee", "quantity": 1, "unitPrice": 20.00,
                 "isTaxable": False},
            ],
            "taxRatePercent": 8.25,
            "gateway": "simulator",
            "shipToAddress": {"line1": "9 Site Road", "city": "Round Rock", "state": "TX",
                              "postalCode": "78664", "country": "US"},
        }  # fmt: skip
        body.update(terms)
        made: dict[str, Any] = self.ok(
            self.api.post(f"/api/merchant-accounts/{ref}/invoices", json=body), 201
        )
        return made

    def read(self, ref: str, number: str) -> dict[str, Any]:
        body: dict[str, Any] = self.ok(
            self.api.get(f"/api/merchant-accounts/{ref}/invoices/{number}")
        )
        return body

    def transactions(self, ref: str) -> list[dict[str, Any]]:
        """The merchant's ledger through the payments API (one row per charge taken)."""
        body = self.ok(
            self.api.get("/api/payments/transactions", params={"limit": 200},
                         headers={"X-Merchant-Reference": ref})
        )  # fmt: skip
        rows: list[dict[str, Any]] = body["data"]
        return rows


def pay_token_of(invoice: dict[str, Any]) -> str:
    url: str = invoice["payUrl"]
    return url.rstrip("/").rsplit("/", 1)[-1]


def start(tmp: Path) -> tuple[str, str]:
    """A fresh database with a sandbox provider: (db_url, provider key)."""
    db_url = f"sqlite:///{tmp / 'payhub.db'}"
    return db_url, create_provider(db_url, tmp)
