"""Customers over HTTP: create, read, list (pages, account number), edit, location."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from payhub.adapters.system import FixedClock
from payhub.domain.addresses import Address
from payhub.domain.customers import CustomerName
from tests.conftest import START, Account
from tests.customers.conftest import OWNER_REF
from tests.customers.support import Client, Shop, all_pages
from tests.http.support import error_fields, problem

FULL = {
    "name": {"first": " Ada ", "last": "Lovelace", "company": "Analytical Engines"},
    "email": "Ada@Engines.EXAMPLE.com",
    "phone": "(415) 555-2671",
    "website": "engines.example.com/about",
    "billingAddress": {
        "line1": "12 St James's Square",
        "line2": None,
        "city": "London",
        "state": "",
        "postalCode": "SW1Y 4JH",
        "country": "GB",
    },
    "accountNumber": "ACC-0001",
}


def test_create_stores_and_returns_every_field(shop: Shop) -> None:
    body = shop.created("/customers", FULL)
    assert body["customerId"].startswith("cus_")
    assert body == {
        "customerId": body["customerId"],
        "name": {"first": "Ada", "last": "Lovelace", "company": "Analytical Engines"},
        "displayName": "Analytical Engines",
        "email": "Ada@engines.example.com",
        "phone": "+14155552671",
        "website": "https://engines.example.com/about",
        "billingAddress": {
            "line1": "12 St James's Square",
            "line2": None,
            "city": "London",
            "state": None,
            "postalCode": "SW1Y 4JH",
            "country": "GB",
        },
        "accountNumber": "ACC-0001",
        "locationId": None,
        "smsConsent": False,
        "createdAtUtc": "2025-03-14T09:26:53Z",
        "updatedAtUtc": "2025-03-14T09:26:53Z",
    }
    stored = shop.read(lambda uow, m: uow.customers.get(m, body["customerId"]))
    assert stored.name == CustomerName("Ada", "Lovelace", "Analytical Engines")
    assert stored.billing_address == Address(
        "12 St James's Square", None, "London", None, "SW1Y 4JH", "GB"
    )
    assert stored.created_at == START
    assert shop.ok(shop.get(f"/customers/{body['customerId']}")) == body


def test_a_minimal_customer_needs_only_a_name(shop: Shop) -> None:
    body = shop.created("/customers", {"name": {"company": "Acme"}})
    assert body["displayName"] == "Acme"
    assert body["billingAddress"] is None
    assert body["email"] is body["phone"] is body["website"] is None


def test_every_field_at_fault_is_named_and_nothing_is_stored(shop: Shop) -> None:
    response = shop.post(
        "/customers",
        {
            "name": {"first": "  "},
            "email": "not-an-email",
            "phone": "12",
            "website": "ftp://files.example.com",
            "billingAddress": {"line1": "x" * 201, "postalCode": "1" * 21},
            "accountNumber": "n" * 101,
        },
    )
    assert sorted(error_fields(response)) == [
        "accountNumber",
        "billingAddress.line1",
        "billingAddress.postalCode",
        "email",
        "name",
        "phone",
        "website",
    ]
    assert shop.read(lambda uow, m: uow.customers.list(m)) == []


def test_the_body_shape_is_checked(shop: Shop) -> None:
    assert error_fields(shop.post("/customers", {})) == ["name"]
    assert "nickname" in problem(shop.post("/customers", {**FULL, "nickname": "x"}), 400)["detail"]
    problem(shop.post("/customers", {"name": {"first": "A", "middle": "B"}}), 400)
    problem(shop.post("/customers", {"name": "Ada"}), 400)


def test_a_duplicate_account_number_is_409(
    shop: Shop,
    client: Client,
    sandbox_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
) -> None:
    first = shop.created("/customers", {"name": {"first": "A"}, "accountNumber": "7"})
    conflict = problem(
        shop.post("/customers", {"name": {"first": "B"}, "accountNumber": " 7 "}), 409
    )
    assert first["customerId"] in conflict["detail"]
    assert len(shop.read(lambda uow, m: uow.customers.list(m))) == 1
    # Unique per merchant only: a sister merchant may use the same number.
    make_merchant(sandbox_provider, "sister")
    sister = Shop(client, shop.hub, sandbox_provider, "sister")
    sister.created("/customers", {"name": {"first": "C"}, "accountNumber": "7"})
    # Without an account number, any number of customers.
    shop.created("/customers", {"name": {"first": "D"}})
    shop.created("/customers", {"name": {"first": "E"}})


def test_find_by_account_number_returns_a_list(shop: Shop) -> None:
    wanted = shop.created("/customers", {"name": {"first": "A"}, "accountNumber": "X-1"})
    shop.created("/customers", {"name": {"first": "B"}, "accountNumber": "X-2"})
    found = shop.ok(shop.get("/customers", params={"accountNumber": "X-1"}))
    assert found == {"data": [wanted], "hasMore": False, "nextCursor": None}
    none = shop.ok(shop.get("/customers", params={"accountNumber": "X-3"}))
    assert none == {"data": [], "hasMore": False, "nextCursor": None}
    blank = shop.ok(shop.get("/customers", params={"accountNumber": " "}))
    assert blank["data"] == []
    spaced = shop.ok(shop.get("/customers", params={"accountNumber": " X-2 "}))
    assert [c["accountNumber"] for c in spaced["data"]] == ["X-2"]


def test_the_list_pages_newest_first(shop: Shop, clock: FixedClock) -> None:
    made = []
    for i in range(7):
        made.append(shop.created("/customers", {"name": {"first": f"C{i}"}})["customerId"])
        clock.advance(timedelta(seconds=1))
    pages = all_pages(shop, "/customers", limit=3)
    assert [len(p) for p in pages] == [3, 3, 1]
    assert [c["customerId"] for p in pages for c in p] == made[::-1]


def test_list_limits_and_cursors_are_checked(shop: Shop) -> None:
    assert error_fields(shop.get("/customers", params={"limit": 0})) == ["limit"]
    assert error_fields(shop.get("/customers", params={"limit": 201})) == ["limit"]
    assert error_fields(shop.get("/customers", params={"startingAfter": "cus_nope"})) == [
        "startingAfter"
    ]


def test_an_unknown_customer_is_404(shop: Shop) -> None:
    problem(shop.get("/customers/cus_aaaaaaaaaaaaaaaaaaaaaaaaaa"), 404)
    problem(shop.patch("/customers/cus_nope", {"email": None}), 404)


def test_patch_changes_only_what_is_sent(shop: Shop, clock: FixedClock) -> None:
    made = shop.created("/customers", FULL)
    clock.advance(timedelta(minutes=5))
    cid = made["customerId"]
    body = shop.ok(shop.patch(f"/customers/{cid}", {"email": None, "name": {"first": "Augusta"}}))
    assert body["email"] is None
    assert body["name"] == {"first": "Augusta", "last": None, "company": None}
    assert body["displayName"] == "Augusta"
    assert body["website"] == made["website"]
    assert body["billingAddress"] == made["billingAddress"]
    assert body["updatedAtUtc"] == "2025-03-14T09:31:53Z"
    stored = shop.read(lambda uow, m: uow.customers.get(m, cid))
    assert stored.email is None
    assert stored.account_number == "ACC-0001"
    cleared = shop.ok(shop.patch(f"/customers/{cid}", {"billingAddress": None, "website": None}))
    assert cleared["billingAddress"] is None
    assert cleared["website"] is None
    assert error_fields(shop.patch(f"/customers/{cid}", {"website": "nope"})) == ["website"]
    problem(shop.patch(f"/customers/{cid}", {"name": None}), 400)


def test_patch_keeps_account_numbers_unique(shop: Shop) -> None:
    shop.created("/customers", {"name": {"first": "A"}, "accountNumber": "1"})
    b = shop.created("/customers", {"name": {"first": "B"}, "accountNumber": "2"})
    problem(shop.patch(f"/customers/{b['customerId']}", {"accountNumber": "1"}), 409)
    assert shop.read(lambda uow, m: uow.customers.get(m, b["customerId"])).account_number == "2"
    same = shop.patch(f"/customers/{b['customerId']}", {"accountNumber": "2"})
    assert same.status_code == 200


def test_customer_location_is_set_checked_and_cleared(
    shop: Shop,
    client: Client,
    sandbox_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
) -> None:
    cid = shop.created("/customers", {"name": {"first": "A"}})["customerId"]
    main = shop.created("/locations", {"name": "Main"})["locationId"]
    spare = shop.created("/locations", {"name": "Spare"})["locationId"]
    make_merchant(sandbox_provider, "sister")
    sister = Shop(client, shop.hub, sandbox_provider, "sister")
    theirs = sister.created("/locations", {"name": "Theirs"})["locationId"]

    body = shop.ok(shop.put(f"/customers/{cid}/location", {"locationId": main}))
    assert body["locationId"] == main
    assert shop.read(lambda uow, m: uow.customers.get(m, cid)).location_id == main
    for wrong in (theirs, "loc_nope"):
        assert error_fields(shop.put(f"/customers/{cid}/location", {"locationId": wrong})) == [
            "locationId"
        ]
    shop.ok(shop.put(f"/locations/{spare}", {"name": "Spare", "isActive": False}))
    assert error_fields(shop.put(f"/customers/{cid}/location", {"locationId": spare})) == [
        "locationId"
    ]
    assert shop.read(lambda uow, m: uow.customers.get(m, cid)).location_id == main
    assert (
        shop.ok(shop.put(f"/customers/{cid}/location", {"locationId": None}))["locationId"] is None
    )
    problem(shop.put(f"/customers/{cid}/location", {}), 400)


def test_a_new_customer_gets_its_location_by_the_defaulting_rule(shop: Shop) -> None:
    main = shop.created("/locations", {"name": "Main"})["locationId"]
    north = shop.created("/locations", {"name": "North"})["locationId"]
    shop.ok(shop.put("/locations/settings", {"locationsEnabled": False, "defaultLocationId": main}))
    # Locations off: none unless sent.
    assert shop.created("/customers", {"name": {"first": "A"}})["locationId"] is None
    sent = shop.created("/customers", {"name": {"first": "B"}, "locationId": north})
    assert sent["locationId"] == north
    # Locations on: the merchant default, unless one is sent.
    shop.ok(shop.put("/locations/settings", {"locationsEnabled": True, "defaultLocationId": main}))
    assert shop.created("/customers", {"name": {"first": "C"}})["locationId"] == main
    sent = shop.created("/customers", {"name": {"first": "D"}, "locationId": north})
    assert sent["locationId"] == north
    # A location that is not the merchant's is 400, and nothing is created.
    before = len(shop.read(lambda uow, m: uow.customers.list(m)))
    refused = shop.post("/customers", {"name": {"first": "E"}, "locationId": "loc_other"})
    assert error_fields(refused) == ["locationId"]
    assert len(shop.read(lambda uow, m: uow.customers.list(m))) == before


def test_a_merchant_key_works_on_its_own_customers(
    shop: Shop, merchant_key: Callable[[Account, str], str]
) -> None:
    own = shop.with_key(merchant_key(shop.account, OWNER_REF))
    made = own.created("/customers", {"name": {"first": "Own"}})
    assert own.ok(own.get(f"/customers/{made['customerId']}"))["displayName"] == "Own"
