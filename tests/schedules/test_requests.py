"""Schedule requests and their public approval page, over HTTP on both stores."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from payhub.adapters.system import FixedClock
from payhub.domain.schedules import RequestStatus, ScheduleStatus
from tests.customers.support import Shop
from tests.schedules.conftest import at


def request_body(clock: FixedClock, **extra: Any) -> dict[str, Any]:
    return {
        "gateway": "simulator",
        "startAtUtc": at(clock, days=2),
        "cadence": "Monthly",
        "maxCharges": 6,
        "amount": 40,
        **extra,
    }


def page_path(made: dict[str, Any]) -> str:
    return urlsplit(made["approvalUrl"]).path


def form_token(html: str) -> str:
    found = re.search(r'name="formToken" value="([^"]+)"', html)
    assert found, html
    return found.group(1)


def approve(shop: Shop, path: str, token: str = "sim_card_ok_1a2b") -> Any:
    page = shop.client.get(path)
    assert page.status_code == 200
    return shop.client.post(
        path,
        data={"formToken": form_token(page.text), "paymentMethodToken": token, "type": "Card"},
        follow_redirects=False,
    )


def test_a_customer_request_is_approved_and_only_then_the_schedule_exists(
    shop: Shop, customer: dict[str, Any], clock: FixedClock
) -> None:
    cid = customer["customerId"]
    made = shop.created(f"/customers/{cid}/schedule-requests", request_body(clock))
    assert made["status"] == "Pending"
    token = page_path(made).rsplit("/", 1)[1]
    assert len(token) >= 22  # at least 128 bits
    assert shop.read(lambda uow, m: uow.scheduled_payments.list(m)) == []
    page = shop.client.get(page_path(made))
    assert "$40.00" in page.text
    assert "Every month" in page.text
    assert page.headers["x-frame-options"] == "DENY"
    response = approve(shop, page_path(made))
    assert response.status_code == 303, response.text
    stored = shop.read(lambda uow, m: uow.schedule_requests.get(m, made["scheduleRequestId"]))
    assert stored.status is RequestStatus.APPROVED
    (schedule,) = shop.read(lambda uow, m: uow.scheduled_payments.list(m))
    assert schedule.id == stored.schedule_id
    assert (schedule.status, schedule.max_charges) == (ScheduleStatus.ACTIVE, 6)
    methods = shop.ok(shop.get(f"/customers/{cid}/payment-methods"))["data"]
    assert [m["paymentMethodId"] for m in methods] == [schedule.payment_method_id]
    got = shop.ok(shop.get(f"/schedule-requests/{made['scheduleRequestId']}"))
    assert got["scheduledPaymentId"] == schedule.id
    # Approved: cannot be approved again, nor cancelled; the page says so.
    approved_page = shop.client.get(page_path(made)).text
    assert "Schedule approved" in approved_page
    assert "Visa ending in 4242" in approved_page  # the method the payer gave, by name
    assert shop.post(f"/schedule-requests/{made['scheduleRequestId']}/cancel").status_code == 409


def test_a_cancelled_request_cannot_be_approved(
    shop: Shop, customer: dict[str, Any], clock: FixedClock
) -> None:
    made = shop.created(
        f"/customers/{customer['customerId']}/schedule-requests", request_body(clock)
    )
    page = shop.client.get(page_path(made))
    body = shop.ok(shop.post(f"/schedule-requests/{made['scheduleRequestId']}/cancel"))
    assert body["status"] == "Cancelled"
    response = shop.client.post(
        page_path(made),
        data={"formToken": form_token(page.text), "paymentMethodToken": "sim_card_ok"},
    )
    assert response.status_code == 409
    assert "withdrew" in response.text
    assert shop.read(lambda uow, m: uow.scheduled_payments.list(m)) == []
    assert shop.read(lambda uow, m: uow.payment_methods.list(m, customer["customerId"])) == []


def test_a_forged_or_replayed_form_token_is_refused(
    shop: Shop, customer: dict[str, Any], clock: FixedClock
) -> None:
    made = shop.created(
        f"/customers/{customer['customerId']}/schedule-requests", request_body(clock)
    )
    page = shop.client.get(page_path(made))
    token = form_token(page.text)
    nonce = token.split(".")[0]
    for forged in ("", "1", f"{nonce}.{'0' * 32}"):
        response = shop.client.post(
            page_path(made), data={"formToken": forged, "paymentMethodToken": "sim_card_ok"}
        )
        assert response.status_code == 403, forged
    declined = shop.client.post(
        page_path(made), data={"formToken": token, "paymentMethodToken": "bogus"}
    )
    assert declined.status_code == 402  # the gateway refused the token; a fresh form is shown
    replay = shop.client.post(
        page_path(made), data={"formToken": token, "paymentMethodToken": "sim_card_ok"}
    )
    assert replay.status_code == 403
    cross = shop.client.post(
        page_path(made),
        data={"formToken": form_token(declined.text), "paymentMethodToken": "sim_card_ok"},
        headers={"Sec-Fetch-Site": "cross-site"},
    )
    assert cross.status_code == 403
    stored = shop.read(lambda uow, m: uow.schedule_requests.get(m, made["scheduleRequestId"]))
    assert stored.status is RequestStatus.PENDING
    assert shop.client.get("/approve/not-a-real-token-at-all").status_code == 404


def test_an_itemised_request_lists_and_pages(
    shop: Shop, customer: dict[str, Any], clock: FixedClock
) -> None:
    cid = customer["customerId"]
    body = request_body(
        clock,
        amount=None,
        lineItems=[{"description": "Lessons", "quantity": 4, "unitPrice": 12.5}],
        taxRatePercent=10,
    )
    made = shop.created(f"/customers/{cid}/schedule-requests", body)
    assert (made["subtotal"], made["tax"], made["amount"]) == (50, 5, 55)
    clock.advance(timedelta(seconds=1))  # newest first: a later creation time
    second = shop.created(f"/customers/{cid}/schedule-requests", request_body(clock))
    listed = shop.ok(shop.get("/schedule-requests", params={"limit": 1}))
    assert [r["scheduleRequestId"] for r in listed["data"]] == [second["scheduleRequestId"]]
    assert listed["hasMore"] is True
    assert "Lessons" in shop.client.get(page_path(made)).text
    bad = shop.post(f"/customers/{cid}/schedule-requests", request_body(clock, gateway="nope"))
    assert bad.status_code == 400
    assert (
        shop.post("/customers/cus_nope/schedule-requests", request_body(clock)).status_code == 404
    )


def test_an_invoice_request_takes_the_invoices_addresses_and_pays_it(
    shop: Shop,
    customer: dict[str, Any],
    clock: FixedClock,
    run_worker: Callable[[], Any],
) -> None:
    invoice = shop.created(
        "/invoices",
        {
            "lineItems": [{"description": "Sofa", "quantity": 1, "unitPrice": 90}],
            "gateway": "simulator",
            "customerId": customer["customerId"],
            "shipToAddress": {"line1": "9 Couch Rd"},
        },
    )
    number = invoice["invoiceNumber"]
    made = shop.created(
        f"/invoices/{number}/schedule-requests",
        {"startAtUtc": at(clock, hours=1), "cadence": "Weekly", "amount": 30},
    )
    assert made["invoiceNumber"] == number
    assert made["shipToAddress"]["line1"] == "9 Couch Rd"
    assert made["billToAddress"]["line1"] == "1 Analytical Way"
    too_much = shop.post(
        f"/invoices/{number}/schedule-requests",
        {"startAtUtc": at(clock, hours=1), "amount": 91},
    )
    assert too_much.status_code == 400
    assert approve(shop, page_path(made)).status_code == 303
    for _ in range(4):
        clock.advance(timedelta(days=7))
        run_worker()
    paid = shop.read(lambda uow, m: uow.invoices.get(m, number))
    assert paid.status.value == "Paid"
    assert [p.amount.amount for p in paid.payments] == [30, 30, 30]
    (schedule,) = shop.read(lambda uow, m: uow.scheduled_payments.list(m))
    assert (schedule.status, schedule.charges) == (ScheduleStatus.COMPLETED, 3)


def test_an_approved_or_cancelled_request_cannot_be_approved_or_cancelled_again(
    shop: Shop, customer: dict[str, Any], clock: FixedClock
) -> None:
    cid = customer["customerId"]
    made = shop.created(f"/customers/{cid}/schedule-requests", request_body(clock))
    spare = shop.client.get(page_path(made))  # a second tab's form
    assert approve(shop, page_path(made)).status_code == 303
    late = shop.client.post(
        page_path(made),
        data={"formToken": form_token(spare.text), "paymentMethodToken": "sim_card_ok"},
    )
    assert late.status_code == 409
    assert len(shop.read(lambda uow, m: uow.scheduled_payments.list(m))) == 1
    assert len(shop.read(lambda uow, m: uow.payment_methods.list(m, cid))) == 1
    withdrawn = shop.created(f"/customers/{cid}/schedule-requests", request_body(clock))
    rid = withdrawn["scheduleRequestId"]
    assert shop.ok(shop.post(f"/schedule-requests/{rid}/cancel"))["status"] == "Cancelled"
    again = shop.post(f"/schedule-requests/{rid}/cancel")
    assert again.status_code == 409
    assert again.headers["content-type"].startswith("application/problem+json")
    assert "Cancelled" in again.json()["detail"]
    stored = shop.read(lambda uow, m: uow.schedule_requests.get(m, rid))
    assert (stored.status, stored.schedule_id) == (RequestStatus.CANCELLED, None)
    assert shop.get("/schedule-requests/sreq_nope").status_code == 404


def test_an_invoice_request_keeps_the_addresses_it_is_sent(
    shop: Shop, customer: dict[str, Any], clock: FixedClock
) -> None:
    number = shop.created(
        "/invoices",
        {
            "lineItems": [{"description": "Desk", "quantity": 1, "unitPrice": 60}],
            "gateway": "simulator",
            "customerId": customer["customerId"],
            "shipToAddress": {"line1": "9 Couch Rd"},
        },
    )["invoiceNumber"]
    made = shop.created(
        f"/invoices/{number}/schedule-requests",
        {
            "startAtUtc": at(clock, hours=1),
            "cadence": "Monthly",
            "billToAddress": {"line1": "7 Payer Pl"},
            "shipToAddress": {"line1": "8 Porch Ave"},
        },
    )
    assert made["amount"] == 60  # default: the amount due
    assert (made["billToAddress"]["line1"], made["shipToAddress"]["line1"]) == (
        "7 Payer Pl",
        "8 Porch Ave",
    )
    stored = shop.read(lambda uow, m: uow.schedule_requests.get(m, made["scheduleRequestId"]))
    assert (stored.bill_to.line1, stored.ship_to.line1, stored.invoice_number) == (
        "7 Payer Pl",
        "8 Porch Ave",
        number,
    )
    too_long = shop.post(
        f"/invoices/{number}/schedule-requests",
        {"startAtUtc": at(clock, hours=1), "shipToAddress": {"postalCode": "1" * 21}},
    )
    assert too_long.status_code == 400
    assert [f["field"] for f in too_long.json()["errors"]] == ["shipToAddress.postalCode"]
    listed = shop.ok(shop.get("/schedule-requests"))["data"]
    assert [r["scheduleRequestId"] for r in listed] == [made["scheduleRequestId"]]


def test_a_request_on_a_gateway_without_a_pay_page_is_refused_and_says_why(
    shop: Shop, customer: dict[str, Any], clock: FixedClock
) -> None:
    # Forte can charge saved cards through the API, but it has no driver on payhub's approval
    # page (Forte.js reads the card from the page's own inputs), so the customer could never
    # approve the request.
    put = shop.put("/credentials/forte", {"apiSecret": "s", "environment": "Sandbox"})
    assert put.status_code == 200, put.text
    cid = customer["customerId"]
    refused = shop.post(f"/customers/{cid}/schedule-requests", request_body(clock, gateway="forte"))
    assert refused.status_code == 400, refused.text
    problem = refused.json()
    assert problem["errors"][0]["field"] == "gateway"
    assert (
        "cannot take payments on payhub's pay and approval pages"
        in (problem["errors"][0]["message"])
    )
    assert shop.read(lambda uow, m: uow.schedule_requests.list(m)) == []


def test_a_card_the_gateway_cannot_verify_is_refused_and_nothing_is_saved(
    shop: Shop, customer: dict[str, Any], clock: FixedClock
) -> None:
    """The simulator's vault verifies cards as a real one does: a card its issuer would
    decline is not verified, so the schedule is not approved and no method is kept."""
    cid = customer["customerId"]
    made = shop.created(f"/customers/{cid}/schedule-requests", request_body(clock))
    for token in ("sim_card_decline_1a2b", "sim_card_insufficient_1a2b"):
        refused = approve(shop, page_path(made), token)
        assert refused.status_code == 402, refused.text
        assert "Visa ending in" not in refused.text
        stored = shop.read(lambda uow, m: uow.schedule_requests.get(m, made["scheduleRequestId"]))
        assert stored.status is RequestStatus.PENDING
        assert shop.read(lambda uow, m: uow.scheduled_payments.list(m)) == []
        assert shop.ok(shop.get(f"/customers/{cid}/payment-methods"))["data"] == []
    assert approve(shop, page_path(made)).status_code == 303  # a good card still works
