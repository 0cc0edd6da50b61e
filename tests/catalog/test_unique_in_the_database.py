"""The database itself refuses duplicates, so two concurrent requests cannot both pass the
service's check: a unique index turned into ``Conflict`` (409), on both stores."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal

import pytest

from payhub import Conflict, PayHub
from payhub.domain.catalog import Category, Product, ProductKind
from payhub.domain.customers import Customer, CustomerName
from payhub.domain.locations import Location
from payhub.domain.money import Money
from payhub.ports import UnitOfWork
from tests.conftest import START
from tests.customers.support import Shop


def customer(cid: str, merchant_id: str, number: str | None) -> Customer:
    return Customer(
        cid, merchant_id, CustomerName("A"), None, None, None, None, number, None, START, START
    )


def product(pid: str, merchant_id: str, sku: str | None) -> Product:
    return Product(
        pid,
        merchant_id,
        "Tea",
        sku,
        None,
        Money(Decimal("1.00"), "USD"),
        ProductKind.SERVICE,
        True,
        None,
        True,
        START,
        START,
    )


def category(cid: str, merchant_id: str, name: str) -> Category:
    return Category(cid, merchant_id, name, None, 0, True, START, START)


def location(lid: str, merchant_id: str, code: str | None) -> Location:
    return Location(lid, merchant_id, "Main", None, None, None, code, True, START, START)


Step = Callable[[UnitOfWork, str], None]


def two_customers(uow: UnitOfWork, m: str) -> None:
    uow.customers.add(customer("cus_1", m, "7"))
    uow.customers.add(customer("cus_2", m, "8"))


def two_locations(uow: UnitOfWork, m: str) -> None:
    uow.locations.add(location("loc_1", m, "MAIN"))
    uow.locations.add(location("loc_2", m, None))


CASES: dict[str, tuple[Step, Step]] = {
    "account number": (
        lambda uow, m: uow.customers.add(customer("cus_1", m, "7")),
        lambda uow, m: uow.customers.add(customer("cus_3", m, "7")),
    ),
    "account number on save": (
        two_customers,
        lambda uow, m: uow.customers.save(customer("cus_2", m, "7")),
    ),
    "sku in another letter case": (
        lambda uow, m: uow.products.add(product("prod_1", m, "GT-1")),
        lambda uow, m: uow.products.add(product("prod_2", m, "gt-1")),
    ),
    "category name": (
        lambda uow, m: uow.categories.add(category("cat_1", m, "Drinks")),
        lambda uow, m: uow.categories.add(category("cat_2", m, " DRINKS")),
    ),
    "short code on save": (
        two_locations,
        lambda uow, m: uow.locations.save(location("loc_2", m, "MAIN")),
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_unique_index_answers_409_and_keeps_the_first(
    hub: PayHub, shop: Shop, case: str
) -> None:
    first, second = CASES[case]
    with hub.store.unit_of_work() as uow:
        merchant_id = shop.merchant(uow).id
        first(uow, merchant_id)
    with pytest.raises(Conflict), hub.store.unit_of_work() as uow:
        second(uow, merchant_id)
    with hub.store.unit_of_work() as uow:
        # The failed unit of work changed nothing, and the store is still usable.
        assert uow.customers.get(merchant_id, "cus_3") is None
        saved = uow.customers.get(merchant_id, "cus_2")
        assert saved is None or saved.account_number == "8"
        assert uow.products.get(merchant_id, "prod_2") is None
        assert uow.categories.get(merchant_id, "cat_2") is None
        moved = uow.locations.get(merchant_id, "loc_2")
        assert moved is None or moved.short_code is None


def test_nulls_never_collide(hub: PayHub, shop: Shop) -> None:
    with hub.store.unit_of_work() as uow:
        m = shop.merchant(uow).id
        for i in range(3):
            uow.customers.add(customer(f"cus_{i}", m, None))
            uow.products.add(product(f"prod_{i}", m, None))
            uow.locations.add(location(f"loc_{i}", m, None))
    with hub.store.unit_of_work() as uow:
        assert len(uow.customers.list(m)) == 3
        assert len(uow.products.list(m)) == 3
        assert uow.locations.count_active(m) == 3
