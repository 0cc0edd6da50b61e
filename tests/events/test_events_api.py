"""GET /api/events and /api/events/{id} over HTTP on both stores: what happened, newest first,
with each object exactly as the API returned it then; filters, pages, tenancy, retention."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest

from payhub.adapters.system import FixedClock
from payhub.domain.payments import MethodType
from payhub.services.worker import Worker
from tests.conftest import Account
from tests.events.conftest import events_of, exact
from tests.http.support import error_fields, problem
from tests.invoices.conftest import Invoicing


def pay(shop: Invoicing, number: str, amount: str | None, attempt: str) -> None:
    shop.hub.pay_pages.pay(
        shop.token(number),
        amount=Decimal(amount) if amount is not None else None,
        payment_token="sim_card_ok",
        method_type=MethodType.CARD,
        attempt_id=attempt,
    )


def types(rows: list[dict[str, Any]]) -> list[str]:
    return [r["type"] for r in rows]


def test_an_invoices_life_is_listed_newest_first_with_each_object_as_the_api_returned_it(
    shop: Invoicing, customer: dict[str, Any]
) -> None:
    number = shop.invoice(customerId=customer["customerId"], partialPaymentMode="CustomerChoice")[
        "invoiceNumber"
    ]
    sent = exact(shop.post(f"/invoices/{number}/send"))
    pay(shop, number, "10.00", "a1")
    pay(shop, number, None, "a2")
    rows = events_of(shop.client, shop.account.key)
    assert types(rows) == [
        "invoice.paid",
        "payment.succeeded",
        "invoice.partially_paid",
        "payment.succeeded",
        "invoice.sent",
        "customer.created",
    ]
    assert len({r["eventId"] for r in rows}) == 6
    assert all(r["eventId"].startswith("evt_") for r in rows)
    assert all(r["merchantReference"] == "acme" for r in rows)
    assert {r["createdAtUtc"] for r in rows} == {"2025-03-14T09:26:53Z"}  # the hub's clock

    # data is the object exactly as the API answered at that moment
    paid, last_charge, partly, first_charge, sent_event, created = rows
    assert sent_event["data"] == sent["invoice"]
    assert (sent_event["objectType"], sent_event["objectId"]) == (
        "invoice",
        sent["invoice"]["invoiceId"],
    )
    now = exact(shop.get(f"/invoices/{number}"))
    assert paid["data"] == now
    assert paid["data"]["status"] == "Paid"
    assert partly["data"]["status"] == "Sent"
    assert partly["data"]["amountPaid"] == Decimal("10.00")
    assert str(partly["data"]["amountDue"]) == "15.00"
    assert partly["details"]["paymentId"] == now["payments"][0]["paymentId"]
    assert paid["details"] == {
        "paymentId": now["payments"][1]["paymentId"],
        "transactionId": now["payments"][1]["transactionId"],
        "receiptUrl": now["payUrl"] + "/receipt",
    }
    assert created["data"] == exact(shop.get(f"/customers/{customer['customerId']}"))
    tx_id = now["payments"][1]["transactionId"]
    assert last_charge["objectId"] == tx_id
    charge = shop.client.get(
        f"/api/payments/simulator/transactions/{tx_id}",
        headers={**shop.headers, "X-Merchant-Reference": "acme"},
    )
    assert last_charge["data"] == exact(charge)
    assert first_charge["data"]["amount"] == {"value": Decimal("10.00"), "currency": "USD"}

    one = shop.client.get(f"/api/events/{paid['eventId']}", headers=shop.headers)
    assert exact(one) == paid


def test_payment_moves_each_emit_their_event(shop: Invoicing) -> None:
    headers = {**shop.headers, "X-Merchant-Reference": "acme"}

    def charge(token: str, capture: bool) -> Any:
        body = {
            "amount": {"value": 40, "currency": "USD"},
            "gatewayName": "simulator",
            "paymentMethodToken": token,
            "capture": capture,
        }
        return shop.client.post("/api/payments/charge", json=body, headers=headers)

    auth = charge("sim_card_ok", False).json()
    base = f"/api/payments/simulator/transactions/{auth['transactionId']}"
    shop.ok(shop.client.post(f"{base}/capture", headers=headers))
    shop.ok(
        shop.client.post(
            f"{base}/refund", json={"amount": {"value": 15, "currency": "USD"}}, headers=headers
        )
    )
    other = charge("sim_card_ok", False).json()
    shop.ok(
        shop.client.post(
            f"/api/payments/simulator/transactions/{other['transactionId']}/void", headers=headers
        )
    )
    assert charge("sim_card_decline", True).status_code == 402
    refused = charge("sim_card_ok", True)  # a bad move is refused and emits nothing
    assert shop.client.post(f"{base}/void", headers=headers).status_code == 409
    rows = events_of(shop.client, shop.account.key, objectType="payment")
    assert types(rows) == [
        "payment.succeeded",
        "payment.failed",
        "payment.voided",
        "payment.succeeded",
        "payment.refunded",
        "payment.captured",
        "payment.succeeded",
    ]
    assert rows[0]["objectId"] == refused.json()["transactionId"]
    assert rows[1]["data"]["status"] == "Failed"
    assert rows[1]["data"]["declineCode"] is not None
    assert rows[4]["data"]["refundedAmount"] == {"value": 15, "currency": "USD"}
    assert rows[5]["data"]["status"] == "Captured"
    assert rows[5]["data"]["refundedAmount"]["value"] == 0
    assert [e["kind"] for e in rows[4]["data"]["events"]] == ["authorize", "capture", "refund"]


def test_filters_by_type_and_object_and_pages_with_the_cursor(
    shop: Invoicing, customer: dict[str, Any]
) -> None:
    numbers = [shop.invoice(customerId=customer["customerId"])["invoiceNumber"] for _ in range(3)]
    for number in numbers:
        shop.ok(shop.post(f"/invoices/{number}/send"))
    shop.ok(shop.post(f"/invoices/{numbers[1]}/void"))
    key = shop.account.key
    everything = events_of(shop.client, key)
    assert types(everything) == ["invoice.voided"] + ["invoice.sent"] * 3 + ["customer.created"]
    assert types(events_of(shop.client, key, type="invoice.sent")) == ["invoice.sent"] * 3
    both = events_of(shop.client, key, type=["invoice.voided", "customer.created"])
    assert types(both) == ["invoice.voided", "customer.created"]
    assert events_of(shop.client, key, type="invoice.voided,customer.created") == both
    invoice_id = everything[0]["objectId"]
    about = events_of(shop.client, key, objectType="invoice", objectId=invoice_id)
    assert types(about) == ["invoice.voided", "invoice.sent"]
    assert {r["data"]["invoiceNumber"] for r in about} == {numbers[1]}
    assert types(events_of(shop.client, key, objectType="customer")) == ["customer.created"]
    assert events_of(shop.client, key, objectType="payment") == []
    assert events_of(shop.client, key, merchantReference="acme") == everything

    pages = []
    cursor = None
    while True:
        params: dict[str, Any] = {"limit": 2}
        if cursor:
            params["startingAfter"] = cursor
        body = shop.ok(shop.client.get("/api/events", params=params, headers=shop.headers))
        pages.append([r["eventId"] for r in body["data"]])
        if not body["hasMore"]:
            assert body["nextCursor"] is None
            break
        cursor = body["nextCursor"]
        assert cursor == body["data"][-1]["eventId"]
    assert pages == [
        [r["eventId"] for r in everything[0:2]],
        [r["eventId"] for r in everything[2:4]],
        [r["eventId"] for r in everything[4:5]],
    ]


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"type": "invoice.exploded"}, "type"),
        ({"type": "invoice.paid,nope"}, "type"),
        ({"objectType": "widget"}, "objectType"),
        ({"objectId": "inv_x"}, "objectType"),
        ({"objectType": "invoice", "objectId": "x" * 101}, "objectId"),
        ({"startingAfter": "inv_abc"}, "startingAfter"),
        ({"startingAfter": "evt_" + "a" * 26}, "startingAfter"),
        ({"limit": 0}, "limit"),
        ({"limit": 201}, "limit"),
    ],
)
def test_bad_filters_are_400_problems(shop: Invoicing, params: dict[str, Any], field: str) -> None:
    response = shop.client.get("/api/events", params=params, headers=shop.headers)
    assert field in error_fields(response)


def test_each_key_reads_only_its_own_events(
    shop: Invoicing,
    customer: dict[str, Any],
    make_merchant: Callable[..., dict[str, Any]],
    merchant_key: Callable[[Account, str], str],
    other_provider: Account,
) -> None:
    make_merchant(shop.account, "bolt")
    bolt = Invoicing(shop.client, shop.hub, shop.account, "bolt")
    bolt_customer = bolt.created("/customers", {"name": {"first": "Bo"}})
    make_merchant(other_provider, "acme")
    theirs = Invoicing(shop.client, shop.hub, other_provider, "acme")
    theirs.created("/customers", {"name": {"first": "Eve"}})

    provider_rows = events_of(shop.client, shop.account.key)
    assert [r["merchantReference"] for r in provider_rows] == ["bolt", "acme"]
    acme_key = merchant_key(shop.account, "acme")
    acme_rows = events_of(shop.client, acme_key)
    assert [r["objectId"] for r in acme_rows] == [customer["customerId"]]
    assert events_of(shop.client, acme_key, merchantReference="acme") == acme_rows
    assert [
        r["objectId"] for r in events_of(shop.client, shop.account.key, merchantReference="bolt")
    ] == [bolt_customer["customerId"]]
    other_rows = events_of(shop.client, other_provider.key)
    assert [r["data"]["name"]["first"] for r in other_rows] == ["Eve"]

    bolt_event = provider_rows[0]["eventId"]
    as_acme = shop.client.get(f"/api/events/{bolt_event}", headers={"X-Api-Key": acme_key})
    problem(as_acme, 404)
    problem(shop.client.get(f"/api/events/{bolt_event}", headers=other_provider.headers), 404)
    problem(shop.client.get("/api/events/evt_nope", headers=shop.headers), 404)
    assert shop.client.get(f"/api/events/{bolt_event}", headers=shop.headers).status_code == 200
    # a merchant key naming another merchant, a cursor from another merchant, an unknown one
    forbidden = shop.client.get(
        "/api/events", params={"merchantReference": "bolt"}, headers={"X-Api-Key": acme_key}
    )
    problem(forbidden, 403)
    leak = shop.client.get(
        "/api/events", params={"startingAfter": bolt_event}, headers={"X-Api-Key": acme_key}
    )
    assert "startingAfter" in error_fields(leak)
    unknown = shop.client.get(
        "/api/events", params={"merchantReference": "nope"}, headers=shop.headers
    )
    problem(unknown, 404)
    problem(shop.client.get("/api/events"), 401)


def test_events_are_kept_30_days_then_purged_by_the_worker(
    shop: Invoicing, customer: dict[str, Any], clock: FixedClock
) -> None:
    old = events_of(shop.client, shop.account.key)
    assert types(old) == ["customer.created"]
    clock.advance(timedelta(days=29, hours=23))
    fresh = shop.created("/customers", {"name": {"first": "Newer"}})
    assert len(events_of(shop.client, shop.account.key)) == 2
    clock.advance(timedelta(hours=2))  # the first is now 30 days and 1 hour old
    rows = events_of(shop.client, shop.account.key)
    assert [r["objectId"] for r in rows] == [fresh["customerId"]]
    problem(shop.client.get(f"/api/events/{old[0]['eventId']}", headers=shop.headers), 404)
    done = Worker(shop.hub.deps, {}, "housekeeper").run_once()
    assert done.purged_events == 1
    with shop.hub.store.unit_of_work(readonly=True) as uow:
        assert uow.events.get(old[0]["eventId"]) is None
        assert uow.events.get(rows[0]["eventId"]) is not None
