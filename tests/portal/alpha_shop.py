"""Merchant A's catalog, locations, register, schedule and register sale, for the security
walk (tests/portal/test_security.py): their names must never reach merchant B's pages, their
ids in B's paths must answer 404, and B's forms must change none of them."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from typing import Any

import attrs
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.domain.register import Pick
from payhub.hub import MerchantScope
from payhub.services.catalog import ProductInput
from payhub.services.locations import LocationInput
from payhub.services.registers import SalePayment
from tests.conftest import START


@attrs.frozen
class ShopData:
    markers: list[str]
    ids: list[str]


def add_shop_data(
    hub: PayHub,
    scope: MerchantScope,
    client: TestClient[Litestar],
    headers: dict[str, str],
    customer_id: str,
    method_id: str,
) -> ShopData:
    category = scope.categories.create("Xylophone specials", "#123456", 3)
    product = scope.products.create(
        ProductInput("Quokkaberry muffin", Decimal("4.20"), category_id=category.id)
    )
    rate = scope.tax_rates.create("Zorbatax", Decimal("7.5")).rate
    location = scope.locations.create(LocationInput("Vexhall depot", tax_rate_id=rate.id)).location
    register = scope.registers.create(location.id, "Wombat till").register
    made = client.post(
        f"/api/merchant-accounts/{scope.reference}/scheduled-payments",
        headers=headers,
        json={
            "customerId": customer_id,
            "paymentMethodId": method_id,
            "startAtUtc": (START + timedelta(days=3)).isoformat(),
            "cadence": "Weekly",
            "amount": 12.34,
            "currency": "USD",
            "description": "Glimmerwick plan",
        },
    )
    assert made.status_code == 201, made.text
    schedule_id = made.json()["scheduledPaymentId"]
    scope.scheduled_payments.pause(schedule_id)  # editable: B must not edit or resume it
    sale = scope.registers.sell(
        register.id,
        [Pick(product.id, 2)],
        SalePayment(gateway="simulator", token="sim_card_ok_alpha"),
        "sale_alpha",
    )
    ids = [category.id, product.id, rate.id, location.id, register.id, schedule_id]
    ids.append(sale.transaction.id)
    ids.append("accounting-online")
    return ShopData(
        ["Xylophone", "Quokkaberry", "Zorbatax", "Vexhall", "Wombat", "Glimmerwick", *ids[:7]],
        ids,
    )


def shop_snapshot(hub: PayHub, scope: MerchantScope) -> Any:
    """Everything of A's that the catalog, schedule and register forms could change."""
    return (
        [
            (p.id, p.name, p.unit_price, p.active, p.category_id)
            for p in scope.products.list(include_inactive=True).items
        ],
        [
            (c.id, c.name, c.color, c.sort_order, c.active)
            for c in scope.categories.list(include_inactive=True).items
        ],
        [(v.rate, v.is_default) for v in scope.tax_rates.list(include_inactive=True).items],
        [v.location for v in scope.locations.list(include_inactive=True).items],
        scope.locations.settings(),
        [v.register for v in scope.registers.list()],
        list(scope.scheduled_payments.list().items),
        [(t.id, t.status, t.amount) for t in scope.payments.list()[0]],
    )
