"""Saved payment methods: vaulted through the gateway port, per gateway's bank-account mode."""

from __future__ import annotations

from typing import Any

import pytest

from tests.customers.conftest import VaultStandIn
from tests.customers.support import Shop
from tests.http.support import error_fields, problem

SAFE_FIELDS = {
    "paymentMethodId",
    "customerId",
    "gateway",
    "type",
    "brand",
    "last4",
    "expMonth",
    "expYear",
    "bankName",
    "createdAtUtc",
}


def credentials(shop: Shop, gateway: str, enabled: bool = True) -> None:
    shop.ok(
        shop.put(
            f"/credentials/{gateway}",
            {"apiSecret": f"{gateway}-secret", "environment": "Sandbox", "enabled": enabled},
        )
    )


@pytest.fixture
def cid(shop: Shop, customer: dict[str, Any]) -> str:
    for gateway in ("simulator", "braintree", "square", "stripe"):
        credentials(shop, gateway)
    return str(customer["customerId"])


def test_a_card_is_saved_and_only_safe_details_come_back(shop: Shop, cid: str) -> None:
    body = shop.created(
        f"/customers/{cid}/payment-methods/simulator",
        {"paymentMethodToken": "sim_card_mastercard_x1"},
    )
    assert set(body) == SAFE_FIELDS
    assert body["paymentMethodId"].startswith("pm_")
    assert (body["customerId"], body["gateway"], body["type"]) == (cid, "simulator", "Card")
    assert (body["brand"], body["last4"], body["expMonth"], body["expYear"]) == (
        "mastercard",
        "4444",
        12,
        2034,
    )
    assert body["bankName"] is None
    assert "simpm_" not in str(body)
    assert "simcus_" not in str(body)
    stored = shop.read(lambda uow, m: uow.payment_methods.get(m, cid, body["paymentMethodId"]))
    assert stored.method_ref.startswith("simpm_sim_card_mastercard")
    assert stored.gateway_customer_ref == f"simcus_{cid}"
    assert shop.read(lambda uow, m: uow.payment_methods.gateway_customer_ref(cid, "simulator")) == (
        f"simcus_{cid}"
    )


def test_the_gateway_customer_is_made_once_and_reused(
    shop: Shop, cid: str, vaults: dict[str, VaultStandIn]
) -> None:
    braintree = vaults["braintree"]
    for token in ("tok_a", "tok_b"):
        shop.created(f"/customers/{cid}/payment-methods/braintree", {"paymentMethodToken": token})
    first, second = braintree.requests
    assert first.gateway_customer_ref is None
    assert second.gateway_customer_ref == "braintree-cus-1"
    assert braintree.customers == 1
    assert first.customer_id == second.customer_id == cid
    assert first.name == "Ada Lovelace"
    assert first.idempotency_key != second.idempotency_key
    rows = shop.read(lambda uow, m: uow.payment_methods.list(m, cid))
    assert {r.gateway_customer_ref for r in rows} == {"braintree-cus-1"}


@pytest.mark.parametrize(
    ("gateway", "saved"), [("braintree", True), ("stripe", True), ("square", False)]
)
def test_bank_accounts_follow_each_gateways_vaulting_mode(
    shop: Shop, cid: str, vaults: dict[str, VaultStandIn], gateway: str, saved: bool
) -> None:
    """Braintree must vault first, Stripe does both, Square only takes fresh tokens."""
    response = shop.post(
        f"/customers/{cid}/payment-methods/{gateway}",
        {"paymentMethodToken": "tok_bank", "type": "BankAccount"},
    )
    if saved:
        assert response.status_code == 201, response.text
        body = response.json()
        assert (body["type"], body["bankName"], body["last4"]) == (
            "BankAccount",
            "First Test Bank",
            "6789",
        )
        assert body["brand"] is body["expMonth"] is body["expYear"] is None
        assert len(vaults[gateway].requests) == 1
    else:
        assert error_fields(response) == ["type"]
        assert "fresh token" in response.json()["detail"]
        assert vaults[gateway].requests == []
        assert shop.read(lambda uow, m: uow.payment_methods.list(m, cid)) == []


def test_gateways_without_ach_or_adapter_or_credentials_are_refused(shop: Shop, cid: str) -> None:
    # PayPal has no bank-account payments in payhub.
    no_ach = shop.post(
        f"/customers/{cid}/payment-methods/paypal",
        {"paymentMethodToken": "tok", "type": "BankAccount"},
    )
    assert error_fields(no_ach) == ["type"]
    # NMI is in the catalog, but this hub has no adapter for it: 503 once credentials are set.
    missing = shop.post(f"/customers/{cid}/payment-methods/nmi", {"paymentMethodToken": "tok"})
    assert error_fields(missing) == ["gateway"]
    credentials(shop, "nmi")
    problem(shop.post(f"/customers/{cid}/payment-methods/nmi", {"paymentMethodToken": "tok"}), 503)
    credentials(shop, "stripe", enabled=False)
    disabled = shop.post(f"/customers/{cid}/payment-methods/stripe", {"paymentMethodToken": "t"})
    assert "disabled" in problem(disabled, 400)["detail"]
    problem(shop.post(f"/customers/{cid}/payment-methods/nope", {"paymentMethodToken": "t"}), 404)
    assert shop.read(lambda uow, m: uow.payment_methods.list(m, cid)) == []


def test_tokens_are_checked(shop: Shop, cid: str) -> None:
    blank = shop.post(f"/customers/{cid}/payment-methods/simulator", {"paymentMethodToken": " "})
    assert error_fields(blank) == ["paymentMethodToken"]
    unknown = shop.post(
        f"/customers/{cid}/payment-methods/simulator", {"paymentMethodToken": "tok_unknown"}
    )
    assert problem(unknown, 402)["type"] == "/problems/payment-method-invalid"
    problem(
        shop.post(
            f"/customers/{cid}/payment-methods/simulator",
            {"paymentMethodToken": "sim_card_ok", "type": "Cheque"},
        ),
        400,
    )
    raw = shop.post(
        f"/customers/{cid}/payment-methods/simulator",
        {"paymentMethodToken": "tok", "cardNumber": "4242424242424242"},
    )
    assert raw.status_code == 400
    problem(
        shop.post(
            "/customers/cus_nope/payment-methods/simulator", {"paymentMethodToken": "sim_card_ok"}
        ),
        404,
    )
    assert shop.read(lambda uow, m: uow.payment_methods.list(m, cid)) == []


def test_an_idempotency_key_saves_once(
    shop: Shop, cid: str, vaults: dict[str, VaultStandIn]
) -> None:
    headers = {"Idempotency-Key": "save-1"}
    path = f"/customers/{cid}/payment-methods/stripe"
    first = shop.post(path, {"paymentMethodToken": "tok_card"}, headers=headers)
    again = shop.post(path, {"paymentMethodToken": "tok_card"}, headers=headers)
    assert first.status_code == again.status_code == 201
    assert again.headers["idempotent-replayed"] == "true"
    assert first.json() == again.json()
    assert len(vaults["stripe"].requests) == 1
    assert vaults["stripe"].requests[0].idempotency_key.startswith("phk-")


def test_list_filter_and_remove(shop: Shop, cid: str) -> None:
    made = [
        shop.created(f"/customers/{cid}/payment-methods/{g}", {"paymentMethodToken": t})
        for g, t in (
            ("simulator", "sim_card_ok"),
            ("stripe", "tok_1"),
            ("simulator", "sim_card_cvc"),
        )
    ]
    listed = shop.ok(shop.get(f"/customers/{cid}/payment-methods"))
    assert {m["paymentMethodId"] for m in listed["data"]} == {m["paymentMethodId"] for m in made}
    assert all(set(m) == SAFE_FIELDS for m in listed["data"])
    only = shop.ok(shop.get(f"/customers/{cid}/payment-methods", params={"gateway": "stripe"}))
    assert [m["paymentMethodId"] for m in only["data"]] == [made[1]["paymentMethodId"]]
    paged = shop.ok(shop.get(f"/customers/{cid}/payment-methods", params={"limit": 2}))
    assert paged["hasMore"] is True
    rest = shop.ok(
        shop.get(
            f"/customers/{cid}/payment-methods",
            params={"limit": 2, "startingAfter": paged["nextCursor"]},
        )
    )
    assert len(paged["data"]) + len(rest["data"]) == 3
    assert rest["hasMore"] is False

    gone = made[0]["paymentMethodId"]
    removed = shop.delete(f"/customers/{cid}/payment-methods/{gone}")
    assert removed.status_code == 204
    listed = shop.ok(shop.get(f"/customers/{cid}/payment-methods"))
    assert gone not in {m["paymentMethodId"] for m in listed["data"]}
    assert shop.read(lambda uow, m: uow.payment_methods.get(m, cid, gone)) is None
    problem(shop.delete(f"/customers/{cid}/payment-methods/{gone}"), 404)
    other = shop.created("/customers", {"name": {"first": "Other"}})["customerId"]
    problem(shop.delete(f"/customers/{other}/payment-methods/{made[1]['paymentMethodId']}"), 404)
