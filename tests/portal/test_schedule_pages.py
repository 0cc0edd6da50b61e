"""Scheduled payments in the portal: the list, a schedule's page, pause, edit while Paused or
Failed (amount or lines, dates, payment method, addresses) and resume, over HTTP."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest
from litestar import Litestar
from litestar.testing import TestClient

from payhub import PayHub
from payhub.domain.schedules import ScheduleStatus
from tests.conftest import START, Account
from tests.portal.shop_support import Signed, signed_in_shop, with_simulator
from tests.portal.support import Browser


@pytest.fixture
def shop(
    hub: PayHub,
    sandbox_provider: Account,
    browse: Callable[..., Browser],
    client: TestClient[Litestar],
) -> Signed:
    s = signed_in_shop(hub, sandbox_provider, browse, client)
    with_simulator(s)
    return s


def _made(s: Signed, path: str, body: dict[str, Any]) -> dict[str, Any]:
    answer = s.api.post(s.api_path(path), headers=s.account.headers, json=body)
    assert answer.status_code in (200, 201), answer.text
    out: dict[str, Any] = answer.json()
    return out


@pytest.fixture
def schedule(shop: Signed) -> dict[str, Any]:
    customer = _made(shop, "/customers", {"name": {"first": "Ada", "last": "Lovelace"}})
    cid = customer["customerId"]
    card = _made(
        shop, f"/customers/{cid}/payment-methods/simulator", {"paymentMethodToken": "sim_card_ok"}
    )
    second = _made(
        shop,
        f"/customers/{cid}/payment-methods/simulator",
        {"paymentMethodToken": "sim_card_mastercard"},
    )
    made = _made(
        shop,
        "/scheduled-payments",
        {
            "customerId": cid,
            "paymentMethodId": card["paymentMethodId"],
            "startAtUtc": (START + timedelta(days=2)).isoformat(),
            "cadence": "Monthly",
            "amount": 25.00,
            "currency": "USD",
            "description": "Garden care",
        },
    )
    return {
        "id": made["scheduledPaymentId"],
        "customer": cid,
        "card": card["paymentMethodId"],
        "second": second["paymentMethodId"],
    }


def _page(sid: str) -> str:
    return f"/portal/schedules/{sid}"


def test_list_and_page(shop: Signed, schedule: dict[str, Any]) -> None:
    listing = shop.browser.get("/portal/schedules")
    assert listing.status_code == 200
    assert "Ada Lovelace" in listing.text
    assert "$25.00" in listing.text
    assert "Ada Lovelace" not in shop.browser.get("/portal/schedules?status=Paused").text
    page = shop.browser.get(_page(schedule["id"]))
    assert "Garden care" in page.text
    assert "Monthly" in page.text
    assert "Pause to edit" in page.text
    assert "Edit details" not in page.text


def test_an_active_schedule_cannot_be_edited(shop: Signed, schedule: dict[str, Any]) -> None:
    sid = schedule["id"]
    shown = shop.browser.get(_page(sid) + "/edit")
    assert shown.status_code == 409
    assert "pause it first" in shown.text
    refused = shop.post(
        shop.csrf(_page(sid)), _page(sid) + "/edit", {"charge": "amount", "amount": "99.00"}
    )
    assert refused.status_code == 409
    assert shop.scope.scheduled_payments.get(sid).schedule.amount.amount == Decimal("25.00")


def test_pause_edit_everything_then_resume(shop: Signed, schedule: dict[str, Any]) -> None:
    sid = schedule["id"]
    assert shop.form(_page(sid), _page(sid) + "/pause").status_code == 303
    assert shop.scope.scheduled_payments.get(sid).schedule.status is ScheduleStatus.PAUSED
    edit = _page(sid) + "/edit"
    form = shop.browser.get(edit)
    assert form.status_code == 200
    assert 'value="25.00"' in form.text
    assert 'value="2025-03-16"' in form.text
    saved = shop.form(
        edit,
        edit,
        {
            "charge": "amount",
            "amount": "30.50",
            "nextRunDate": "2025-04-30",
            "nextRunTime": "10:15",
            "endDate": "2025-12-31",
            "maxCharges": "6",
            "paymentMethodId": schedule["second"],
            "billTo-line1": "1 Analytical Way",
            "billTo-city": "London",
            "billTo-country": "GB",
            "description": "Garden care, bigger garden",
        },
    )
    assert saved.status_code == 303, saved.text
    assert saved.headers["location"] == _page(sid) + "?saved=1"
    s = shop.scope.scheduled_payments.get(sid).schedule
    assert s.status is ScheduleStatus.PAUSED  # resuming is a separate step
    assert s.amount is not None
    assert s.amount.amount == Decimal("30.50")
    assert not s.lines
    assert s.next_run_at == datetime(2025, 4, 30, 10, 15, tzinfo=UTC)  # UTC merchant
    assert (s.end_date.isoformat() if s.end_date else None, s.max_charges) == ("2025-12-31", 6)
    assert s.payment_method_id == schedule["second"]
    assert s.bill_to is not None
    assert s.bill_to.line1 == "1 Analytical Way"
    assert s.ship_to is None
    assert s.description == "Garden care, bigger garden"
    shown = shop.browser.get(_page(sid) + "?saved=1").text
    assert "Changes saved" in shown
    assert "Mastercard ending in 4444" in shown
    # Resume: the next run is the date set (April 30th), then monthly from it (May 30th…).
    assert shop.form(_page(sid), _page(sid) + "/resume").status_code == 303
    s = shop.scope.scheduled_payments.get(sid).schedule
    assert s.status is ScheduleStatus.ACTIVE
    assert s.next_run_at == datetime(2025, 4, 30, 10, 15, tzinfo=UTC)
    assert s.due_of(s.next_run_number + 1) == datetime(2025, 5, 30, 10, 15, tzinfo=UTC)


def test_switch_a_failed_schedule_to_lines_with_tax(
    shop: Signed, schedule: dict[str, Any], hub: PayHub
) -> None:
    sid = schedule["id"]
    rate = shop.scope.tax_rates.create("City", Decimal("8.25"))
    _fail(hub, sid)
    edit = _page(sid) + "/edit"
    assert "Empty: the failed run is tried again" in shop.browser.get(edit).text
    saved = shop.form(
        edit,
        edit,
        {
            "charge": "lines",
            "amount": "",
            "line-0-description": "Mowing",
            "line-0-quantity": "2",
            "line-0-unitPrice": "10.00",
            "line-0-taxable": "on",
            "line-1-description": "Bags",
            "line-1-quantity": "1",
            "line-1-unitPrice": "3.33",
            "tax": f"rate:{rate.rate.id}",
            "paymentMethodId": schedule["card"],
            "description": "Garden care",
        },
    )
    assert saved.status_code == 303, saved.text
    s = shop.scope.scheduled_payments.get(sid).schedule
    assert s.status is ScheduleStatus.FAILED
    assert s.amount is None
    assert [(x.description, x.quantity, x.is_taxable) for x in s.lines] == [
        ("Mowing", Decimal(2), True),
        ("Bags", Decimal(1), False),
    ]
    # 20.00 + 1.65 tax (8.25 % of 20.00, half-up) + 3.33 untaxed
    assert s.tax_percent == Decimal("8.25")
    assert s.charge_amount().amount == Decimal("24.98")
    assert shop.form(_page(sid), _page(sid) + "/resume").status_code == 303
    s = shop.scope.scheduled_payments.get(sid).schedule
    assert s.status is ScheduleStatus.ACTIVE
    assert s.next_run_at == hub.deps.clock.now()


def _fail(hub: PayHub, sid: str) -> None:
    """Three declined attempts, as the worker records them (the schedule becomes Failed)."""
    with hub.deps.store.unit_of_work() as uow:
        s = uow.scheduled_payments.get_for_run(sid)
        assert s is not None
        for _ in range(3):
            s.failed(hub.deps.clock.now(), "Your card was declined")
        uow.scheduled_payments.save(s)


def test_edit_errors_are_shown_and_change_nothing(shop: Signed, schedule: dict[str, Any]) -> None:
    sid = schedule["id"]
    shop.form(_page(sid), _page(sid) + "/pause")
    edit = _page(sid) + "/edit"
    before = shop.scope.scheduled_payments.get(sid).schedule
    bad = shop.form(
        edit,
        edit,
        {
            "charge": "amount",
            "amount": "-3",
            "nextRunDate": "2020-01-01",
            "nextRunTime": "09:00",
            "maxCharges": "0",
            "paymentMethodId": "pm_nope",
            "shipTo-city": "x" * 101,
        },
    )
    assert bad.status_code == 400
    for field in ("amount-error", "nextRunDate-error", "maxCharges-error", "shipTo-city-error"):
        assert f'id="{field}"' in bad.text, field
    assert shop.scope.scheduled_payments.get(sid).schedule == before
    no_method = shop.form(
        edit, edit, {"charge": "amount", "amount": "25.00", "paymentMethodId": "pm_nope"}
    )
    assert no_method.status_code == 400
    assert 'id="paymentMethodId-error"' in no_method.text
    assert shop.scope.scheduled_payments.get(sid).schedule.payment_method_id == schedule["card"]
