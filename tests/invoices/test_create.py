"""POST/GET M/invoices over HTTP: every field, every 400 rule, and what the store holds."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from tests.invoices.conftest import Invoicing, money


def test_create_returns_every_field_and_stores_it(
    shop: Invoicing, customer: dict[str, Any]
) -> None:
    body = shop.invoice(
        customerId=customer["customerId"],
        currency="usd",
        lineItems=[
            {"description": "Labour", "quantity": 3, "unitPrice": 19.99},
            {"description": "Parts", "quantity": 1.5, "unitPrice": 0.33, "isTaxable": False},
        ],
        taxRatePercent=8.25,
        dueDate="2025-04-01",
        allowedPaymentMethods="CardOnly",
        partialPaymentMode="FixedDeposit",
        requiredDepositAmount=20,
        shipToAddress={"line1": "2 Dock Rd", "postalCode": "E1 1AA"},
        description="March works",
    )
    assert body["invoiceNumber"] == "INV-000001"
    assert body["status"] == "Draft"
    assert body["currency"] == "USD"
    lines = body["lineItems"]
    assert [money(x["amount"]) for x in lines] == [Decimal("59.97"), Decimal("0.50")]
    # 59.97 * 8.25% = 4.947525 -> 4.95; the untaxed line has none.
    assert [money(x["tax"]) for x in lines] == [Decimal("4.95"), Decimal("0")]
    assert lines[1]["isTaxable"] is False
    assert lines[0]["isTaxable"] is True
    assert money(body["subtotal"]) == Decimal("60.47")
    assert money(body["tax"]) == Decimal("4.95")
    assert money(body["total"]) == Decimal("65.42")
    assert money(body["amountPaid"]) == 0
    assert money(body["amountDue"]) == Decimal("65.42")
    assert money(body["taxRatePercent"]) == Decimal("8.25")
    assert body["dueDate"] == "2025-04-01"
    assert body["allowedPaymentMethods"] == "CardOnly"
    assert body["partialPaymentMode"] == "FixedDeposit"
    assert money(body["requiredDepositAmount"]) == 20
    assert body["authorizeOnly"] is False
    assert body["billToAddress"]["line1"] == "1 Analytical Way"  # the customer's, copied
    assert body["shipToAddress"] == {
        "line1": "2 Dock Rd", "line2": None, "city": None, "state": None,
        "postalCode": "E1 1AA", "country": None,
    }  # fmt: skip
    assert body["payments"] == []
    assert body["payUrl"].startswith("http://localhost:8000/pay/")
    token = body["payUrl"].rsplit("/", 1)[1]
    assert len(token) >= 22  # at least 128 bits, url-safe base64
    stored = shop.stored("INV-000001")
    assert stored.pay_token == token
    assert stored.total.amount == Decimal("65.42")
    assert stored.bill_to is not None
    assert stored.bill_to.city == "London"
    assert len(stored.lines) == 2
    assert shop.ok(shop.get("/invoices/INV-000001")) == body


def test_addresses_are_copied_and_do_not_follow_customer_edits(
    shop: Invoicing, customer: dict[str, Any]
) -> None:
    number = shop.invoice(customerId=customer["customerId"])["invoiceNumber"]
    shop.ok(
        shop.patch(f"/customers/{customer['customerId']}", {"billingAddress": {"line1": "New"}})
    )
    assert shop.ok(shop.get(f"/invoices/{number}"))["billToAddress"]["line1"] == (
        "1 Analytical Way"
    )
    explicit = shop.invoice(customerId=customer["customerId"], billToAddress={"city": "Leeds"})
    assert explicit["billToAddress"]["city"] == "Leeds"
    assert explicit["billToAddress"]["line1"] is None
    assert shop.invoice()["billToAddress"] is None


def test_a_named_rate_is_copied_and_later_changes_do_not_alter_the_invoice(
    shop: Invoicing,
) -> None:
    rate = shop.created("/tax-rates", {"name": "City", "percent": 10})
    body = shop.invoice(taxRateId=rate["taxRateId"])
    assert money(body["taxRatePercent"]) == 10
    assert body["taxRateId"] == rate["taxRateId"]
    assert money(body["tax"]) == Decimal("2.50")
    shop.ok(shop.put(f"/tax-rates/{rate['taxRateId']}", {"name": "City", "percent": 20}))
    again = shop.ok(shop.get(f"/invoices/{body['invoiceNumber']}"))
    assert money(again["tax"]) == Decimal("2.50")


def _fields(response: Any) -> set[str]:
    assert response.status_code == 400, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    return {e["field"] for e in response.json().get("errors", [])}


def _line(**overrides: Any) -> dict[str, Any]:
    return {"lineItems": [{"description": "x", "quantity": 1, "unitPrice": 1, **overrides}]}


BAD: list[tuple[dict[str, Any], str]] = [
    ({"lineItems": []}, "lineItems"),
    (_line(description=" "), "lineItems[0].description"),
    (_line(quantity=0), "lineItems[0].quantity"),
    (_line(quantity=1.00001), "lineItems[0].quantity"),
    (_line(unitPrice=1.001), "lineItems[0].unitPrice"),
    (_line(unitPrice=-1), "lineItems[0].unitPrice"),
    (_line(unitPrice=0), "lineItems"),
    ({"lineItems": [{"description": "x", "quantity": 1, "unitPrice": 1, "productId": "prd_x"}]},
     "lineItems[0].productId"),
    ({"gateway": "nope"}, "gateway"),
    ({"gateway": "stripe"}, "gateway"),  # no credentials set
    ({"gateway": "checkout-com"}, "allowedPaymentMethods"),  # Both needs ACH
    ({"gateway": "checkout-com", "allowedPaymentMethods": "BankAccountOnly"},
     "allowedPaymentMethods"),
    ({"gateway": "forte", "allowedPaymentMethods": "CardOnly"}, "gateway"),  # no pay page
    ({"partialPaymentMode": "FixedDeposit"}, "requiredDepositAmount"),
    ({"partialPaymentMode": "FixedDeposit", "requiredDepositAmount": 0}, "requiredDepositAmount"),
    ({"partialPaymentMode": "FixedDeposit", "requiredDepositAmount": 25}, "requiredDepositAmount"),
    ({"partialPaymentMode": "FixedDeposit", "requiredDepositAmount": 30}, "requiredDepositAmount"),
    ({"partialPaymentMode": "CustomerChoice", "requiredDepositAmount": 5}, "requiredDepositAmount"),
    ({"requiredDepositAmount": 5}, "requiredDepositAmount"),
    ({"authorizeOnly": True, "partialPaymentMode": "CustomerChoice",
      "allowedPaymentMethods": "CardOnly"}, "authorizeOnly"),
    ({"authorizeOnly": True}, "authorizeOnly"),  # Both includes bank accounts
    ({"taxRatePercent": 100.5}, "taxRatePercent"),
    ({"taxRatePercent": -1}, "taxRatePercent"),
    ({"taxRatePercent": 1.23456}, "taxRatePercent"),
    ({"taxRatePercent": 5, "taxRateId": "tax_x"}, "taxRateId"),
    ({"taxRateId": "tax_x"}, "taxRateId"),
    ({"customerId": "cus_nope"}, "customerId"),
    ({"locationId": "loc_nope"}, "locationId"),
    ({"currency": "XXX"}, "currency"),
    ({"billToAddress": {"line1": "x" * 201}}, "billToAddress.line1"),
    ({"billToAddress": {"line2": "x" * 201}}, "billToAddress.line2"),
    ({"shipToAddress": {"city": "x" * 101}}, "shipToAddress.city"),
    ({"shipToAddress": {"state": "x" * 101}}, "shipToAddress.state"),
    ({"shipToAddress": {"country": "x" * 101}}, "shipToAddress.country"),
    ({"billToAddress": {"postalCode": "x" * 21}}, "billToAddress.postalCode"),
    # past the amount ceiling (docs/money.md): the total, whatever the lines
    (_line(quantity=1000000, unitPrice=1000000000), "lineItems"),
    ({"lineItems": [{"description": "x", "quantity": 1000, "unitPrice": 1000000000}] * 2},
     "lineItems"),
    ({"billToAddress": {"city": "Paris\u202egpj.exe"}}, "billToAddress.city"),
    (_line(description="bell\u0007"), "lineItems[0].description"),
]  # fmt: skip


@pytest.mark.parametrize(("fields", "field"), BAD)
def test_every_rule_is_a_400_naming_the_field_and_stores_nothing(
    shop: Invoicing, fields: dict[str, Any], field: str
) -> None:
    body = {
        "gateway": "simulator",
        "lineItems": [{"description": "Widget", "quantity": 2, "unitPrice": 12.5}],
        **fields,
    }
    assert field in _fields(shop.post("/invoices", body))
    assert shop.read(lambda uow, m: uow.invoices.list(m)) == []


def test_unknown_fields_and_values_are_refused(shop: Invoicing) -> None:
    base = {
        "gateway": "simulator",
        "lineItems": [{"description": "x", "quantity": 1, "unitPrice": 1}],
    }
    assert shop.post("/invoices", {**base, "allowedPaymentMethods": "Card"}).status_code == 400
    assert shop.post("/invoices", {**base, "partialPaymentMode": "Some"}).status_code == 400
    assert shop.post("/invoices", {**base, "invoiceNumber": "MINE-1"}).status_code == 400
    assert shop.read(lambda uow, m: uow.invoices.list(m)) == []


def test_lengths_at_the_limit_are_accepted(shop: Invoicing) -> None:
    body = shop.invoice(
        billToAddress={"line1": "x" * 200, "line2": "y" * 200, "city": "c" * 100,
                       "state": "s" * 100, "postalCode": "p" * 20, "country": "k" * 100},
    )  # fmt: skip
    assert len(body["billToAddress"]["line1"]) == 200


def test_valid_terms_are_kept(shop: Invoicing) -> None:
    card_only = shop.invoice(gateway="checkout-com", allowedPaymentMethods="CardOnly")
    assert card_only["gateway"] == "checkout-com"
    bank = shop.invoice(allowedPaymentMethods="BankAccountOnly")
    assert bank["allowedPaymentMethods"] == "BankAccountOnly"
    held = shop.invoice(authorizeOnly=True, allowedPaymentMethods="CardOnly")
    assert held["authorizeOnly"] is True
    choice = shop.invoice(partialPaymentMode="CustomerChoice")
    assert choice["partialPaymentMode"] == "CustomerChoice"
    assert choice["requiredDepositAmount"] is None


def test_product_lines_keep_their_own_description_and_price(shop: Invoicing) -> None:
    product = shop.created("/products", {"name": "Valve", "unitPrice": 99})
    body = shop.invoice(
        lineItems=[{"description": "Valve (special)", "quantity": 1, "unitPrice": 80,
                    "productId": product["productId"]}]
    )  # fmt: skip
    assert body["lineItems"][0]["productId"] == product["productId"]
    assert money(body["lineItems"][0]["unitPrice"]) == 80


def test_there_is_no_edit_route(shop: Invoicing) -> None:
    number = shop.invoice()["invoiceNumber"]
    for method in ("PUT", "PATCH", "DELETE"):
        response = shop.call(method, f"/invoices/{number}", json={"description": "x"})
        assert response.status_code in (404, 405)
    assert shop.stored(number).description is None


def test_unknown_invoice_is_404(shop: Invoicing) -> None:
    assert shop.get("/invoices/INV-999999").status_code == 404
    assert shop.get("/invoices/bad%20number").status_code == 404
    assert shop.post("/invoices/INV-999999/send").status_code == 404


def test_idempotency_key_creates_once(shop: Invoicing) -> None:
    body = {
        "gateway": "simulator",
        "lineItems": [{"description": "x", "quantity": 1, "unitPrice": 5}],
    }
    first = shop.post("/invoices", body, headers={"Idempotency-Key": "k-1"})
    again = shop.post("/invoices", body, headers={"Idempotency-Key": "k-1"})
    assert first.status_code == again.status_code == 201
    assert first.json() == again.json()
    assert len(shop.read(lambda uow, m: uow.invoices.list(m))) == 1
