"""A line's `productId` must be the invoicing merchant's own: another merchant's product, of
the same provider or of another provider, is a 400 that writes nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.conftest import Account
from tests.invoices.conftest import OWNER_REF, Invoicing


@pytest.mark.parametrize("owner", ["same-provider", "other-provider"])
def test_another_merchants_product_is_a_400_and_nothing_is_written(
    shop: Invoicing,
    customer: dict[str, Any],
    other_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
    owner: str,
) -> None:
    if owner == "same-provider":
        make_merchant(shop.account, "other")
        other = Invoicing(shop.client, shop.hub, shop.account, "other")
    else:  # the same reference under another provider: a different merchant
        make_merchant(other_provider, OWNER_REF)
        other = Invoicing(shop.client, shop.hub, other_provider, OWNER_REF)
    foreign = other.created("/products", {"name": "Valve", "unitPrice": 99})["productId"]
    own = shop.created("/products", {"name": "Tap", "unitPrice": 5})["productId"]
    body = {
        "gateway": "simulator",
        "customerId": customer["customerId"],
        "lineItems": [
            {"description": "Tap", "quantity": 1, "unitPrice": 5, "productId": own},
            {"description": "Valve", "quantity": 1, "unitPrice": 99, "productId": foreign},
        ],
    }
    response = shop.post("/invoices", body)
    assert response.status_code == 400, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert [e["field"] for e in response.json()["errors"]] == ["lineItems[1].productId"]
    assert shop.read(lambda uow, m: uow.invoices.list(m)) == []
    assert other.read(lambda uow, m: uow.invoices.list(m)) == []
    assert shop.ok(shop.get("/invoices"))["data"] == []
    # No number was used up: the next invoice takes the first one.
    assert shop.invoice()["invoiceNumber"] == "INV-000001"
