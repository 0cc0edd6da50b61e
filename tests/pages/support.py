"""In-process helpers for the page tests over HTTP (the ``client`` fixture, both stores)."""

from __future__ import annotations

import json
import re
from typing import Any

from litestar import Litestar
from litestar.testing import TestClient

from tests.conftest import Account

_CONFIG = re.compile(r'<script type="application/json" id="payhub-config">(.*?)</script>', re.S)


class Shop:
    """One merchant with simulator credentials and a customer, driven over the API."""

    def __init__(
        self,
        client: TestClient[Litestar],
        account: Account,
        ref: str = "shop",
        simulator: bool = True,  # False for a live account (the simulator is sandbox only)
    ) -> None:
        self.client = client
        self.headers = account.headers
        self.ref = ref
        self.base = f"/api/merchant-accounts/{ref}"
        merchant = {"externalReference": ref, "displayName": "Acme Plumbing"}
        self.ok(client.post("/api/merchant-accounts", headers=self.headers, json=merchant), 201)
        creds = {"apiSecret": "s", "environment": "Sandbox"}
        if simulator:
            self.ok(
                client.put(f"{self.base}/credentials/simulator", headers=self.headers, json=creds)
            )
        made = self.ok(
            client.post(
                f"{self.base}/customers",
                headers=self.headers,
                json={
                    "name": {"first": "Ann", "last": "Payer"},
                    "phone": "+14155552671",
                    "billingAddress": {
                        "line1": "1 Main Street",
                        "city": "Austin",
                        "state": "TX",
                        "postalCode": "78701",
                        "country": "US",
                    },
                },
            ),
            201,
        )
        self.customer_id: str = made["customerId"]

    @staticmethod
    def ok(response: Any, status: int = 200) -> Any:
        assert response.status_code == status, response.text
        return response.json()

    def invoice(self, **terms: Any) -> dict[str, Any]:
        """2 x 40.00 taxable + 20.00 not taxed, 8.25% tax: subtotal 100.00, tax 6.60."""
        body: dict[str, Any] = {
            "customerId": self.customer_id,
            "lineItems": [
                {"description": "Pipe repair", "quantity": 2, "unitPrice": 40},
                {"description": "Call-out fee", "quantity": 1, "unitPrice": 20,
                 "isTaxable": False},
            ],
            "taxRatePercent": 8.25,
            "gateway": "simulator",
            "shipToAddress": {"line1": "9 Site Road", "city": "Round Rock", "state": "TX",
                              "postalCode": "78664", "country": "US"},
        }  # fmt: skip
        body.update(terms)
        made: dict[str, Any] = self.ok(
            self.client.post(f"{self.base}/invoices", headers=self.headers, json=body), 201
        )
        return made

    def read(self, number: str) -> dict[str, Any]:
        body: dict[str, Any] = self.ok(
            self.client.get(f"{self.base}/invoices/{number}", headers=self.headers)
        )
        return body

    def transactions(self) -> list[dict[str, Any]]:
        """The merchant's payment ledger through the payments API: one row per gateway call
        that took or reserved money (the simulator's reference follows the gateway key)."""
        headers = {**self.headers, "X-Merchant-Reference": self.ref}
        body = self.ok(
            self.client.get("/api/payments/transactions", headers=headers, params={"limit": 200})
        )
        rows: list[dict[str, Any]] = body["data"]
        return rows


def token_of(invoice: dict[str, Any]) -> str:
    url: str = invoice["payUrl"]
    return url.rsplit("/", 1)[-1]


def config_of(html: str) -> dict[str, Any]:
    match = _CONFIG.search(html)
    assert match, "the page carries no settings block"
    config: dict[str, Any] = json.loads(match.group(1))
    return config
