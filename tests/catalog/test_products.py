"""Products and product categories over HTTP."""

from __future__ import annotations

from decimal import Decimal

import pytest

from payhub.domain.catalog import ProductKind
from payhub.domain.money import Money
from tests.customers.support import Shop, all_pages
from tests.http.support import error_fields, problem

TEA = {"name": "Green tea", "unitPrice": 3.5}


# --- products --------------------------------------------------------------------------------


def test_create_returns_and_stores_the_product(shop: Shop) -> None:
    category = shop.created("/product-categories", {"name": "Drinks"})["categoryId"]
    body = shop.created(
        "/products",
        {
            "name": " Green tea ",
            "sku": "GT-1",
            "description": "Loose leaf, 100 g",
            "unitPrice": 3.5,
            "currency": "usd",
            "kind": "Inventory",
            "isTaxable": False,
            "categoryId": category,
        },
    )
    assert body == {
        "productId": body["productId"],
        "name": "Green tea",
        "sku": "GT-1",
        "description": "Loose leaf, 100 g",
        "unitPrice": 3.5,
        "currency": "USD",
        "kind": "Inventory",
        "isTaxable": False,
        "categoryId": category,
        "isActive": True,
        "accountingItemLinked": False,
        "createdAtUtc": "2025-03-14T09:26:53Z",
        "updatedAtUtc": "2025-03-14T09:26:53Z",
    }
    assert body["productId"].startswith("prod_")
    stored = shop.read(lambda uow, m: uow.products.get(m, body["productId"]))
    assert stored.unit_price == Money(Decimal("3.50"), "USD")
    assert stored.kind is ProductKind.INVENTORY
    assert shop.ok(shop.get(f"/products/{body['productId']}")) == body


def test_defaults_kind_service_taxable_usd(shop: Shop) -> None:
    body = shop.created("/products", TEA)
    assert (body["kind"], body["isTaxable"], body["currency"], body["categoryId"]) == (
        "Service",
        True,
        "USD",
        None,
    )
    assert (
        shop.created("/products", {"name": "Yen", "unitPrice": 500, "currency": "JPY"})["unitPrice"]
        == 500
    )


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        ({"name": " ", "unitPrice": 1}, ["name"]),
        ({"name": "x" * 101, "unitPrice": 1}, ["name"]),
        ({"name": "A", "unitPrice": -1}, ["unitPrice"]),
        ({"name": "A", "unitPrice": 1.005}, ["unitPrice"]),
        ({"name": "A", "unitPrice": 1, "currency": "ABC"}, ["currency"]),
        ({"name": "A", "unitPrice": 1, "sku": "s" * 101}, ["sku"]),
        ({"name": "A", "unitPrice": 1, "description": "d" * 4001}, ["description"]),
        ({"name": "A", "unitPrice": 1, "kind": "Bundle"}, ["kind"]),
        ({"name": "A"}, ["unitPrice"]),
        ({"name": "A", "unitPrice": 1, "stock": 5}, ["stock"]),
    ],
)
def test_bad_products_are_400(shop: Shop, body: dict[str, object], fields: list[str]) -> None:
    response = shop.post("/products", body)
    problem(response, 400)
    named = error_fields(response)
    assert named == fields or any(f in response.json()["detail"] for f in fields)
    assert shop.read(lambda uow, m: uow.products.list(m, include_inactive=True)) == []


def test_sku_is_unique_per_merchant_in_any_letter_case(shop: Shop, sister: Shop) -> None:
    first = shop.created("/products", {**TEA, "sku": "GT-1"})
    conflict = problem(shop.post("/products", {**TEA, "sku": " gt-1 "}), 409)
    assert first["productId"] in conflict["detail"]
    sister.created("/products", {**TEA, "sku": "GT-1"})
    other = shop.created("/products", {**TEA, "sku": "GT-2"})
    problem(shop.put(f"/products/{other['productId']}", {**TEA, "sku": "GT-1"}), 409)
    assert shop.read(lambda uow, m: uow.products.get(m, other["productId"])).sku == "GT-2"
    # No SKU at all is fine, many times.
    shop.created("/products", TEA)
    shop.created("/products", TEA)


def test_put_replaces_but_keeps_the_category_when_left_out(shop: Shop) -> None:
    drinks = shop.created("/product-categories", {"name": "Drinks"})["categoryId"]
    made = shop.created(
        "/products", {**TEA, "sku": "GT-1", "categoryId": drinks, "description": "Leaf"}
    )
    pid = made["productId"]
    body = shop.ok(shop.put(f"/products/{pid}", {"name": "Tea", "unitPrice": 4}))
    assert body["categoryId"] == drinks
    assert body["sku"] is None
    assert body["description"] is None
    assert (body["name"], body["unitPrice"]) == ("Tea", 4)
    cleared = shop.ok(
        shop.put(f"/products/{pid}", {"name": "Tea", "unitPrice": 4, "categoryId": None})
    )
    assert cleared["categoryId"] is None
    assert shop.read(lambda uow, m: uow.products.get(m, pid)).category_id is None
    problem(shop.put("/products/prod_nope", TEA), 404)


def test_deactivate_and_activate_never_delete(shop: Shop) -> None:
    pid = shop.created("/products", TEA)["productId"]
    off = shop.ok(shop.post(f"/products/{pid}/deactivate"))
    assert off["isActive"] is False
    assert shop.ok(shop.post(f"/products/{pid}/deactivate"))["isActive"] is False
    assert shop.ok(shop.get("/products"))["data"] == []
    listed = shop.ok(shop.get("/products", params={"includeInactive": "true"}))["data"]
    assert [p["productId"] for p in listed] == [pid]
    assert shop.ok(shop.get(f"/products/{pid}"))["isActive"] is False
    assert shop.ok(shop.post(f"/products/{pid}/activate"))["isActive"] is True
    assert shop.read(lambda uow, m: uow.products.get(m, pid)).active is True
    problem(shop.post("/products/prod_nope/activate"), 404)
    problem(shop.delete(f"/products/{pid}"), 405)


def test_set_or_clear_the_category(shop: Shop, sister: Shop) -> None:
    pid = shop.created("/products", TEA)["productId"]
    drinks = shop.created("/product-categories", {"name": "Drinks"})["categoryId"]
    body = shop.ok(shop.put(f"/products/{pid}/category", {"categoryId": drinks}))
    assert body["categoryId"] == drinks
    theirs = sister.created("/product-categories", {"name": "Theirs"})["categoryId"]
    assert error_fields(shop.put(f"/products/{pid}/category", {"categoryId": theirs})) == [
        "categoryId"
    ]
    assert error_fields(shop.post("/products", {**TEA, "categoryId": theirs})) == ["categoryId"]
    spare = shop.created("/product-categories", {"name": "Spare"})["categoryId"]
    shop.ok(shop.post(f"/product-categories/{spare}/deactivate"))
    problem(shop.put(f"/products/{pid}/category", {"categoryId": spare}), 409)
    assert shop.read(lambda uow, m: uow.products.get(m, pid)).category_id == drinks
    cleared = shop.ok(shop.put(f"/products/{pid}/category", {"categoryId": None}))
    assert cleared["categoryId"] is None
    problem(shop.put(f"/products/{pid}/category", {}), 400)


def test_list_filters_by_category_and_pages_by_name(shop: Shop) -> None:
    drinks = shop.created("/product-categories", {"name": "Drinks"})["categoryId"]
    names = ["espresso", "Americano", "chai", "Latte", "mocha"]
    for i, name in enumerate(names):
        shop.created(
            "/products",
            {"name": name, "unitPrice": 1, "categoryId": drinks if i % 2 == 0 else None},
        )
    pages = all_pages(shop, "/products", limit=2)
    assert [len(p) for p in pages] == [2, 2, 1]
    assert [p["name"] for page in pages for p in page] == sorted(names, key=str.casefold)
    in_drinks = shop.ok(shop.get("/products", params={"categoryId": drinks}))["data"]
    assert [p["name"] for p in in_drinks] == ["chai", "espresso", "mocha"]
    assert shop.ok(shop.get("/products", params={"categoryId": "cat_none"}))["data"] == []
    assert error_fields(shop.get("/products", params={"startingAfter": "prod_x"})) == [
        "startingAfter"
    ]


def test_the_accounting_link_shows_on_the_record(shop: Shop) -> None:
    pid = shop.created("/products", TEA)["productId"]

    with shop.hub.store.unit_of_work() as uow:  # as the accounting integration will
        product = uow.products.get(shop.merchant(uow).id, pid)
        assert product is not None
        product.accounting_item_ref = "qbo-item-17"
        uow.products.save(product)
    assert shop.ok(shop.get(f"/products/{pid}"))["accountingItemLinked"] is True


# --- categories --------------------------------------------------------------------------------


def test_categories_are_created_recolored_and_reordered(shop: Shop) -> None:
    body = shop.created("/product-categories", {"name": " Hot drinks ", "color": "#ff8800"})
    assert body == {
        "categoryId": body["categoryId"],
        "name": "Hot drinks",
        "color": "#FF8800",
        "sortOrder": 0,
        "isActive": True,
        "createdAtUtc": "2025-03-14T09:26:53Z",
        "updatedAtUtc": "2025-03-14T09:26:53Z",
    }
    cid = body["categoryId"]
    edited = shop.ok(shop.put(f"/product-categories/{cid}", {"name": "Hot", "sortOrder": 3}))
    assert (edited["name"], edited["color"], edited["sortOrder"]) == ("Hot", None, 3)
    stored = shop.read(lambda uow, m: uow.categories.get(m, cid))
    assert (stored.name, stored.color, stored.sort_order) == ("Hot", None, 3)
    assert shop.ok(shop.get(f"/product-categories/{cid}")) == edited
    problem(shop.get("/product-categories/cat_nope"), 404)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": "Tea: green"}, "name"),
        ({"name": "x" * 101}, "name"),
        ({"name": "  "}, "name"),
        ({"name": "Tea", "color": "red"}, "color"),
        ({"name": "Tea", "color": "#12345"}, "color"),
        ({"name": "Tea", "color": "#GGGGGG"}, "color"),
        ({"name": "Tea", "sortOrder": 10_000_000}, "sortOrder"),
    ],
)
def test_bad_category_fields_are_400(shop: Shop, body: dict[str, object], field: str) -> None:
    assert error_fields(shop.post("/product-categories", body)) == [field]
    assert shop.read(lambda uow, m: uow.categories.list(m, include_inactive=True)) == []


def test_a_duplicate_category_name_is_409_in_any_case_even_when_inactive(
    shop: Shop, sister: Shop
) -> None:
    drinks = shop.created("/product-categories", {"name": "Drinks"})
    problem(shop.post("/product-categories", {"name": "  dRiNkS "}), 409)
    shop.ok(shop.post(f"/product-categories/{drinks['categoryId']}/deactivate"))
    inactive = problem(shop.post("/product-categories", {"name": "DRINKS"}), 409)
    assert "activate it instead" in inactive["detail"]
    food = shop.created("/product-categories", {"name": "Food"})
    problem(shop.put(f"/product-categories/{food['categoryId']}", {"name": "drinks"}), 409)
    # Renaming to itself in another case is fine; another merchant may use the name.
    shop.ok(shop.put(f"/product-categories/{food['categoryId']}", {"name": "FOOD"}))
    sister.created("/product-categories", {"name": "Drinks"})
    assert len(shop.read(lambda uow, m: uow.categories.list(m, include_inactive=True))) == 2


def test_the_category_list_hides_inactive_and_follows_sort_order(shop: Shop) -> None:
    made = {
        name: shop.created("/product-categories", {"name": name, "sortOrder": order})["categoryId"]
        for name, order in (("Cakes", 2), ("bread", 2), ("Drinks", 1), ("Extras", 9))
    }
    shop.ok(shop.post(f"/product-categories/{made['Extras']}/deactivate"))
    listed = shop.ok(shop.get("/product-categories"))["data"]
    assert [c["name"] for c in listed] == ["Drinks", "bread", "Cakes"]
    everything = shop.ok(shop.get("/product-categories", params={"includeInactive": True}))
    assert [c["name"] for c in everything["data"]] == ["Drinks", "bread", "Cakes", "Extras"]
    pages = all_pages(shop, "/product-categories", limit=1, includeInactive="true")
    assert [c["name"] for page in pages for c in page] == ["Drinks", "bread", "Cakes", "Extras"]
    back = shop.ok(shop.post(f"/product-categories/{made['Extras']}/activate"))
    assert back["isActive"] is True
    assert len(shop.ok(shop.get("/product-categories"))["data"]) == 4
