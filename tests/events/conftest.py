"""An invoicing merchant (tests/invoices) and helpers to read /api/events over HTTP."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import httpx

# The invoicing merchant and its customer, as the invoice tests use them.
from tests.invoices.conftest import customer, shop
from tests.schedules.conftest import gateway_book, run_worker, save_card

__all__ = [
    "customer",
    "events_of",
    "exact",
    "gateway_book",
    "run_worker",
    "save_card",
    "shop",
]


def exact(response: httpx.Response) -> Any:
    """A JSON body with numbers as ``Decimal``: money compared digit for digit."""
    return json.loads(response.text, parse_float=Decimal)


def events_of(client: httpx.Client | Any, key: str, **params: Any) -> list[dict[str, Any]]:
    """Every event the key may read (all pages), newest first."""
    rows: list[dict[str, Any]] = []
    cursor = None
    while True:
        query = {"limit": 200, **params}
        if cursor:
            query["startingAfter"] = cursor
        response = client.get("/api/events", params=query, headers={"X-Api-Key": key})
        assert response.status_code == 200, response.text
        body = exact(response)
        rows += body["data"]
        if not body["hasMore"]:
            return rows
        cursor = body["nextCursor"]
