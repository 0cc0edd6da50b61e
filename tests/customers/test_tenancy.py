"""Tenancy for every customer, product, category, tax-rate and location route, read from the
route table: another provider gets 404 (as for a merchant that exists nowhere), another
merchant's key gets 403, neither changes anything, and the owner (the control) succeeds with
both its provider key and its merchant key."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest
from litestar import Litestar

from payhub import PayHub
from tests.conftest import Account, api_headers
from tests.customers.conftest import OWNER_REF
from tests.customers.support import Client, Shop
from tests.http.support import Operation, operations, problem

PREFIXES = tuple(
    f"/api/merchant-accounts/{{ref}}/{resource}"
    for resource in (
        "customers",
        "products",
        "product-categories",
        "tax-rates",
        "locations",
        "invoices",
        "scheduled-payments",
        "schedule-requests",
        "messages",
        "texting",
    )
)
_n = itertools.count()


def unique(prefix: str) -> str:
    return f"{prefix} {next(_n)}"


# A valid body for each write, by method and template (a function, so names stay unique).
BODIES: dict[str, Callable[[dict[str, str]], Any]] = {
    "POST /api/merchant-accounts/{ref}/customers": lambda w: {"name": {"first": unique("C")}},
    "PATCH /api/merchant-accounts/{ref}/customers/{customer_id}": lambda w: {"email": "a@b.co"},
    "PUT /api/merchant-accounts/{ref}/customers/{customer_id}/location": lambda w: {
        "locationId": w["location_id"]
    },
    "PUT /api/merchant-accounts/{ref}/customers/{customer_id}/sms-consent": lambda w: {
        "consent": True
    },
    "POST /api/merchant-accounts/{ref}/customers/{customer_id}/payment-methods/{gateway}": (
        lambda w: {"paymentMethodToken": "sim_card_ok"}
    ),
    "POST /api/merchant-accounts/{ref}/products": lambda w: {"name": "Tea", "unitPrice": 2},
    "PUT /api/merchant-accounts/{ref}/products/{product_id}": lambda w: {
        "name": "Tea",
        "unitPrice": 3,
    },
    "POST /api/merchant-accounts/{ref}/products/{product_id}/activate": lambda w: None,
    "POST /api/merchant-accounts/{ref}/products/{product_id}/deactivate": lambda w: None,
    "PUT /api/merchant-accounts/{ref}/products/{product_id}/category": lambda w: {
        "categoryId": w["category_id"]
    },
    "POST /api/merchant-accounts/{ref}/product-categories": lambda w: {"name": unique("Cat")},
    "PUT /api/merchant-accounts/{ref}/product-categories/{category_id}": lambda w: {
        "name": unique("Cat"),
        "color": "#123456",
    },
    "POST /api/merchant-accounts/{ref}/product-categories/{category_id}/activate": lambda w: None,
    "POST /api/merchant-accounts/{ref}/product-categories/{category_id}/deactivate": (
        lambda w: None
    ),
    "POST /api/merchant-accounts/{ref}/tax-rates": lambda w: {"name": "VAT", "percent": 20},
    "PUT /api/merchant-accounts/{ref}/tax-rates/{tax_rate_id}": lambda w: {
        "name": "State",
        "percent": 7.25,
    },
    "POST /api/merchant-accounts/{ref}/tax-rates/{tax_rate_id}/default": lambda w: None,
    "POST /api/merchant-accounts/{ref}/tax-rates/{tax_rate_id}/activate": lambda w: None,
    "POST /api/merchant-accounts/{ref}/tax-rates/{tax_rate_id}/deactivate": lambda w: None,
    "POST /api/merchant-accounts/{ref}/locations": lambda w: {"name": "Kiosk"},
    "PUT /api/merchant-accounts/{ref}/locations/{location_id}": lambda w: {
        "name": "Main",
        "isActive": True,
    },
    "PUT /api/merchant-accounts/{ref}/locations/{location_id}/default": lambda w: None,
    "PUT /api/merchant-accounts/{ref}/locations/settings": lambda w: {
        "locationsEnabled": True,
        "defaultLocationId": w["location_id"],
    },
}
BODIES |= {
    "POST /api/merchant-accounts/{ref}/invoices": lambda w: {
        "gateway": "simulator",
        "lineItems": [{"description": "Tea", "quantity": 1, "unitPrice": 2}],
    },
    "POST /api/merchant-accounts/{ref}/invoices/{invoice_number}/send": lambda w: None,
    "POST /api/merchant-accounts/{ref}/invoices/{invoice_number}/embed": lambda w: None,
    "POST /api/merchant-accounts/{ref}/invoices/{invoice_number}/void": lambda w: None,
}
_SCHEDULE = {"startAtUtc": "2030-01-01T09:00:00Z", "cadence": "Monthly", "amount": 5}
BODIES |= {
    "POST /api/merchant-accounts/{ref}/scheduled-payments": lambda w: {
        **_SCHEDULE,
        "customerId": w["customer_id"],
        "paymentMethodId": w["schedule_method_id"],
    },
    "POST /api/merchant-accounts/{ref}/scheduled-payments/{scheduled_payment_id}/pause": (
        lambda w: None
    ),
    "POST /api/merchant-accounts/{ref}/scheduled-payments/{scheduled_payment_id}/resume": (
        lambda w: None
    ),
    "POST /api/merchant-accounts/{ref}/scheduled-payments/{scheduled_payment_id}/cancel": (
        lambda w: None
    ),
    "POST /api/merchant-accounts/{ref}/scheduled-payments/{scheduled_payment_id}/run-now": (
        lambda w: None
    ),
    "POST /api/merchant-accounts/{ref}/customers/{customer_id}/schedule-requests": lambda w: {
        **_SCHEDULE,
        "gateway": "simulator",
    },
    "POST /api/merchant-accounts/{ref}/invoices/{invoice_number}/schedule-requests": lambda w: {
        "startAtUtc": "2030-01-01T09:00:00Z"
    },
    "POST /api/merchant-accounts/{ref}/schedule-requests/{schedule_request_id}/cancel": (
        lambda w: None
    ),
}


def fresh_schedule_objects(shop: Shop, world: dict[str, str], op: Operation) -> None:
    """Schedule moves change state for good: each call gets a schedule in the right state,
    a Pending request, and an invoice with a customer."""
    body = BODIES["POST /api/merchant-accounts/{ref}/scheduled-payments"](world)
    world["scheduled_payment_id"] = shop.created("/scheduled-payments", body)["scheduledPaymentId"]
    if op.template.endswith("/resume"):
        shop.ok(shop.post(f"/scheduled-payments/{world['scheduled_payment_id']}/pause"))
    world["schedule_request_id"] = shop.created(
        f"/customers/{world['customer_id']}/schedule-requests",
        BODIES["POST /api/merchant-accounts/{ref}/customers/{customer_id}/schedule-requests"](
            world
        ),
    )["scheduleRequestId"]
    if op.template.endswith("/schedule-requests") and "invoice_number" in op.params:
        world["invoice_number"] = shop.created(
            "/invoices",
            {
                **BODIES["POST /api/merchant-accounts/{ref}/invoices"](world),
                "customerId": world["customer_id"],
            },
        )["invoiceNumber"]


# Query parameters a route needs to be valid.
QUERIES: dict[str, dict[str, str]] = {
    "GET /api/merchant-accounts/{ref}/tax-rates/suggestion": {"postalCode": "94105"},
}


def my_operations(app: Litestar) -> list[Operation]:
    return [op for op in operations(app) if op.template.startswith(PREFIXES)]


@pytest.fixture
def world(
    shop: Shop,
    other_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
    merchant_key: Callable[[Account, str], str],
) -> dict[str, str]:
    """Provider A's merchant with one of everything; a sister merchant; provider B."""
    make_merchant(shop.account, "sister")
    make_merchant(other_provider, "b-shop")
    shop.ok(shop.put("/credentials/simulator", {"apiSecret": "s", "environment": "Sandbox"}))
    customer = shop.created("/customers", {"name": {"first": "A"}, "phone": "+14155552671"})
    cid = customer["customerId"]
    location = shop.created("/locations", {"name": "Main"})["locationId"]
    shop.created("/locations", {"name": "Second"})
    invoice = shop.created("/invoices", BODIES["POST /api/merchant-accounts/{ref}/invoices"]({}))
    shop.ok(shop.post(f"/invoices/{invoice['invoiceNumber']}/send"))
    shop.hub.provider(shop.hub.as_provider(shop.account.provider.id)).merchant(
        OWNER_REF
    ).invoices.change_embed_origins(add=["https://shop.example"])
    world = {
        "invoice_number": invoice["invoiceNumber"],
        "ref": OWNER_REF,
        "customer_id": cid,
        "gateway": "simulator",
        "payment_method_id": shop.created(
            f"/customers/{cid}/payment-methods/simulator", {"paymentMethodToken": "sim_card_ok"}
        )["paymentMethodId"],
        "product_id": shop.created("/products", {"name": "Tea", "unitPrice": 2})["productId"],
        "category_id": shop.created("/product-categories", {"name": "Drinks"})["categoryId"],
        "tax_rate_id": shop.created("/tax-rates", {"name": "CA", "percent": 8.25})["taxRateId"],
        "location_id": location,
        "owner": shop.account.key,
        "owner_merchant": merchant_key(shop.account, OWNER_REF),
        "sister_merchant": merchant_key(shop.account, "sister"),
        "other_provider": other_provider.key,
    }
    world["schedule_method_id"] = shop.created(
        f"/customers/{cid}/payment-methods/simulator", {"paymentMethodToken": "sim_card_ok"}
    )["paymentMethodId"]
    fresh_schedule_objects(shop, world, operations_stub())
    return world


def operations_stub() -> Operation:
    """Any operation outside the schedule moves, to make the first schedule objects."""
    return Operation("GET", "/api/merchant-accounts/{ref:str}/scheduled-payments", "merchant")


def send(client: Client, op: Operation, world: dict[str, str], ref: str, key: str) -> Any:
    body = BODIES[str(op)](world) if str(op) in BODIES else None
    return client.request(
        op.method,
        op.path(**{**world, "ref": ref}),
        json=body,
        params=QUERIES.get(str(op)),
        headers=api_headers(key),
    )


def snapshot(hub: PayHub) -> dict[str, Any]:
    """What these routes could change, for every merchant, as the database holds it."""
    out: dict[str, Any] = {}
    with hub.store.unit_of_work() as uow:
        for m in uow.merchants.list(None, limit=100):
            customers = uow.customers.list(m.id, limit=1000)
            out[m.id] = {
                "customers": customers,
                "consent": [uow.customers.consent_history(m.id, c.id) for c in customers],
                "methods": [uow.payment_methods.list(m.id, c.id) for c in customers],
                "products": uow.products.list(m.id, limit=1000, include_inactive=True),
                "categories": uow.categories.list(m.id, limit=1000, include_inactive=True),
                "rates": uow.tax_rates.list(m.id, limit=1000, include_inactive=True),
                "tax": uow.tax_rates.settings(m.id),
                "locations": uow.locations.list(m.id, limit=1000, include_inactive=True),
                "location_settings": uow.locations.settings(m.id),
                "invoices": uow.invoices.list(m.id, limit=1000),
                "invoice_settings": uow.invoices.settings(m.id),
                "schedules": uow.scheduled_payments.list(m.id, limit=1000),
                "schedule_requests": uow.schedule_requests.list(m.id, limit=1000),
            }
    return out


def test_every_route_is_covered_with_a_sample_request(app: Litestar) -> None:
    ops = my_operations(app)
    assert len(ops) >= 40, [str(op) for op in ops]
    missing = [
        str(op) for op in ops if op.method in {"POST", "PUT", "PATCH"} and str(op) not in BODIES
    ]
    assert not missing, missing
    assert all(op.audience == "merchant" for op in ops)


def test_another_provider_gets_404_on_every_route(
    hub: PayHub, app: Litestar, client: Client, world: dict[str, str]
) -> None:
    before = snapshot(hub)
    for op in my_operations(app):
        foreign = problem(send(client, op, world, OWNER_REF, world["other_provider"]), 404)
        nowhere = problem(send(client, op, world, "no-such-shop", world["other_provider"]), 404)
        assert foreign["detail"].replace(OWNER_REF, "?") == nowhere["detail"].replace(
            "no-such-shop", "?"
        ), str(op)
        # B's own merchant does not have A's objects either.
        if any(p not in {"ref", "gateway"} for p in op.params):
            problem(send(client, op, world, "b-shop", world["other_provider"]), 404)
    assert snapshot(hub) == before


def test_another_merchants_key_gets_403_on_every_route(
    hub: PayHub, app: Litestar, client: Client, world: dict[str, str]
) -> None:
    before = snapshot(hub)
    for op in my_operations(app):
        problem(send(client, op, world, OWNER_REF, world["sister_merchant"]), 403)
    assert snapshot(hub) == before


def test_the_sister_merchant_cannot_reach_the_objects_through_its_own_path(
    app: Litestar, client: Client, world: dict[str, str]
) -> None:
    for op in my_operations(app):
        if any(p not in {"ref", "gateway"} for p in op.params):
            problem(send(client, op, world, "sister", world["sister_merchant"]), 404)


def test_the_owner_succeeds_on_every_route(
    shop: Shop, app: Litestar, client: Client, world: dict[str, str]
) -> None:
    # Deactivations last, so each pass starts by activating what the previous one switched off.
    ordered = sorted(my_operations(app), key=lambda op: op.template.endswith("/deactivate"))
    for key in ("owner", "owner_merchant"):
        for op in ordered:
            if op.method == "DELETE" and "payment_method_id" in op.params:
                world["payment_method_id"] = shop.created(
                    f"/customers/{world['customer_id']}/payment-methods/simulator",
                    {"paymentMethodToken": "sim_card_ok"},
                )["paymentMethodId"]
            kept = world["invoice_number"]
            if op.template.endswith("/void") and "invoice_number" in op.params:
                world["invoice_number"] = shop.created(
                    "/invoices", BODIES["POST /api/merchant-accounts/{ref}/invoices"](world)
                )["invoiceNumber"]  # voiding is for good: a fresh invoice each pass
            if {"scheduled_payment_id", "schedule_request_id"} & set(op.params) or (
                op.template.endswith("/schedule-requests") and "invoice_number" in op.params
            ):
                fresh_schedule_objects(shop, world, op)
            response = send(client, op, world, OWNER_REF, world[key])
            world["invoice_number"] = kept
            assert response.is_success, (key, str(op), response.status_code, response.text)
