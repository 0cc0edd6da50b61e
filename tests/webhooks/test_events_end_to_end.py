"""Real domain events to a real receiver: a charge and its refund made over HTTP reach the
provider's endpoint in order, signed, with ``data`` the payment as the API returned it; the
other provider's receiver gets nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from litestar import Litestar
from litestar.testing import TestClient

from payhub.services.worker import Worker
from tests.conftest import Account
from tests.webhooks.conftest import Receiver

Client = TestClient[Litestar]


def test_a_charge_and_its_refund_arrive_in_order_as_the_api_returned_them(
    client: Client,
    sandbox_provider: Account,
    other_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
    receiver: Receiver,
    worker: Worker,
) -> None:
    hooks = {}
    for account, path in ((sandbox_provider, "/a"), (other_provider, "/b")):
        made = client.post(
            "/api/webhook-endpoints",
            json={
                "url": receiver.url(path),
                "eventTypes": ["payment.succeeded", "payment.refunded"],
            },
            headers=account.headers,
        )
        assert made.status_code == 201, made.text
        hooks[path] = made.json()
    make_merchant(sandbox_provider, "shop-1")
    client.put(
        "/api/merchant-accounts/shop-1/credentials/simulator",
        json={"apiSecret": "sim-secret", "environment": "Sandbox", "enabled": True},
        headers=sandbox_provider.headers,
    ).raise_for_status()
    shop = {**sandbox_provider.headers, "X-Merchant-Reference": "shop-1"}
    charged = client.post(
        "/api/payments/charge",
        json={
            "amount": {"value": "25.00", "currency": "USD"},
            "gatewayName": "simulator",
            "paymentMethodToken": "sim_card_ok",
        },
        headers=shop,
    )
    assert charged.status_code == 201, charged.text
    payment = charged.json()
    base = f"/api/payments/simulator/transactions/{payment['transactionId']}"
    refunded = client.post(f"{base}/refund", headers=shop)
    assert refunded.status_code == 200, refunded.text
    assert receiver.requests == [], "nothing is sent inside the request"
    worker.run_once()
    got = receiver.at("/a")
    assert [r.event["type"] for r in got] == ["payment.succeeded", "payment.refunded"]
    for r in got:
        r.verify(hooks["/a"]["secret"], r.at)
    assert got[0].event["data"] == payment
    assert got[1].event["data"] == refunded.json()
    assert got[0].event["data"]["amount"]["value"] == 25  # money as a JSON number
    assert receiver.at("/b") == []
    listed = client.get("/api/events", headers=sandbox_provider.headers)
    assert listed.status_code == 200, listed.text  # the events API names the same events
    ids = {e["eventId"] for e in listed.json()["data"]}
    assert {r.headers["webhook-id"] for r in got} <= ids

    # An endpoint that wanted none of it can be sent one of those events from the events
    # table (never delivered before); another provider cannot.
    later = client.post(
        "/api/webhook-endpoints",
        json={"url": receiver.url("/c"), "eventTypes": ["invoice.paid"]},
        headers=sandbox_provider.headers,
    ).json()
    succeeded = got[0].headers["webhook-id"]
    for account, hook, status in (
        (other_provider, hooks["/b"], 404),
        (sandbox_provider, later, 202),
    ):
        resent = client.post(
            f"/api/webhook-endpoints/{hook['endpointId']}/resend",
            json={"eventId": succeeded},
            headers=account.headers,
        )
        assert resent.status_code == status, resent.text
    worker.run_once()
    (again,) = receiver.at("/c")
    again.verify(later["secret"], again.at)
    assert again.headers["webhook-id"] == succeeded
    assert again.event["data"] == payment
    assert receiver.at("/b") == []
