"""SMS consent over HTTP: on create, GET and PUT, phone changes, and the history kept."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from payhub.adapters.system import FixedClock
from payhub.domain.consent import ConsentSource, ConsentState
from tests.conftest import START
from tests.customers.support import Shop
from tests.http.support import error_fields, problem

ADA = {"name": {"first": "Ada"}}


def history(shop: Shop, cid: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = shop.ok(shop.get(f"/customers/{cid}/sms-consent/history"))["data"]
    return rows


def key_id(shop: Shop) -> str:
    return shop.hub.authenticate(shop.account.key).api_key_id


def test_consent_on_create_is_recorded_with_its_number_and_source(shop: Shop) -> None:
    body = shop.created("/customers", {**ADA, "phone": "415-555-2671", "smsConsent": True})
    assert body["smsConsent"] is True
    cid = body["customerId"]
    assert shop.ok(shop.get(f"/customers/{cid}/sms-consent")) == {
        "consent": True,
        "phone": "+14155552671",
        "source": "Api",
        "recordedAtUtc": "2025-03-14T09:26:53Z",
    }
    stored = shop.read(lambda uow, m: uow.customers.get(m, cid))
    assert stored.consent == ConsentState(True, "+14155552671", ConsentSource.API, START)
    [record] = shop.read(lambda uow, m: uow.customers.consent_history(m, cid))
    assert record.recorded_by == key_id(shop)
    assert (record.consent, record.phone, record.source) == (True, "+14155552671", "Api")


@pytest.mark.parametrize(
    ("phone", "field"),
    [
        (None, "smsConsent"),
        ("+44 7911 123456", "phone"),  # not US
        ("+1 416 555 0123", "phone"),  # Canada shares +1
        ("+1 787 555 0100", "phone"),  # Puerto Rico too
        ("+1 800 234 5678", "phone"),  # toll-free, not mobile
        ("555", "phone"),  # not a number
    ],
)
def test_consent_true_on_create_without_a_us_mobile_is_400(
    shop: Shop, phone: str | None, field: str
) -> None:
    response = shop.post("/customers", {**ADA, "phone": phone, "smsConsent": True})
    assert error_fields(response) == [field]
    assert shop.read(lambda uow, m: uow.customers.list(m)) == []


def test_consent_false_on_create_is_recorded_as_withdrawn(shop: Shop) -> None:
    body = shop.created("/customers", {**ADA, "smsConsent": False})
    consent = shop.ok(shop.get(f"/customers/{body['customerId']}/sms-consent"))
    assert consent == {
        "consent": False,
        "phone": None,
        "source": "Api",
        "recordedAtUtc": "2025-03-14T09:26:53Z",
    }
    assert len(history(shop, body["customerId"])) == 1


def test_no_consent_recorded_reads_as_none(shop: Shop, customer: dict[str, Any]) -> None:
    consent = shop.ok(shop.get(f"/customers/{customer['customerId']}/sms-consent"))
    assert consent == {"consent": False, "phone": None, "source": None, "recordedAtUtc": None}
    assert history(shop, customer["customerId"]) == []


def test_put_gives_and_withdraws_and_keeps_every_change(
    shop: Shop, customer: dict[str, Any], clock: FixedClock
) -> None:
    cid = customer["customerId"]
    given = shop.ok(shop.put(f"/customers/{cid}/sms-consent", {"consent": True}))
    assert given == {
        "consent": True,
        "phone": "+14155552671",
        "source": "Api",
        "recordedAtUtc": "2025-03-14T09:26:53Z",
    }
    clock.advance(timedelta(hours=1))
    other = shop.ok(
        shop.put(f"/customers/{cid}/sms-consent", {"consent": True, "phone": "(212) 555-0142"})
    )
    assert other["phone"] == "+12125550142"
    # Consent for another number does not change the customer's own phone.
    assert shop.ok(shop.get(f"/customers/{cid}"))["phone"] == "+14155552671"
    clock.advance(timedelta(hours=1))
    withdrawn = shop.ok(shop.put(f"/customers/{cid}/sms-consent", {"consent": False}))
    assert withdrawn == {
        "consent": False,
        "phone": "+12125550142",
        "source": "Api",
        "recordedAtUtc": "2025-03-14T11:26:53Z",
    }
    assert shop.ok(shop.get(f"/customers/{cid}"))["smsConsent"] is False
    rows = history(shop, cid)
    assert [(r["consent"], r["phone"]) for r in rows] == [
        (False, "+12125550142"),
        (True, "+12125550142"),
        (True, "+14155552671"),
    ]
    assert {r["recordedBy"] for r in rows} == {key_id(shop)}
    assert [r["recordedAtUtc"][11:16] for r in rows] == ["11:26", "10:26", "09:26"]


def test_put_true_with_a_bad_number_is_400_and_changes_nothing(
    shop: Shop, customer: dict[str, Any]
) -> None:
    cid = customer["customerId"]
    for phone in ("+44 7911 123456", "+1 416 555 0123", "nonsense"):
        response = shop.put(f"/customers/{cid}/sms-consent", {"consent": True, "phone": phone})
        assert error_fields(response) == ["phone"]
    bare = shop.created("/customers", {"name": {"first": "No phone"}})
    no_number = shop.put(f"/customers/{bare['customerId']}/sms-consent", {"consent": True})
    assert error_fields(no_number) == ["smsConsent"]
    assert history(shop, cid) == []
    assert history(shop, bare["customerId"]) == []


def test_withdrawing_works_whatever_the_number(shop: Shop, customer: dict[str, Any]) -> None:
    cid = customer["customerId"]
    shop.ok(shop.put(f"/customers/{cid}/sms-consent", {"consent": True}))
    withdrawn = shop.ok(
        shop.put(f"/customers/{cid}/sms-consent", {"consent": False, "phone": "+44 7911 123456"})
    )
    assert withdrawn["consent"] is False
    assert withdrawn["phone"] == "+447911123456"
    garbled = shop.ok(shop.put(f"/customers/{cid}/sms-consent", {"consent": False, "phone": "?"}))
    assert garbled["consent"] is False


def test_a_new_phone_number_withdraws_consent(
    shop: Shop, customer: dict[str, Any], clock: FixedClock
) -> None:
    cid = customer["customerId"]
    shop.ok(shop.put(f"/customers/{cid}/sms-consent", {"consent": True}))
    clock.advance(timedelta(days=2))
    # The same number written differently is no change.
    shop.ok(shop.patch(f"/customers/{cid}", {"phone": "+1 (415) 555-2671"}))
    assert shop.ok(shop.get(f"/customers/{cid}/sms-consent"))["consent"] is True
    body = shop.ok(shop.patch(f"/customers/{cid}", {"phone": "212 555 0142"}))
    assert body["phone"] == "+12125550142"
    assert body["smsConsent"] is False
    consent = shop.ok(shop.get(f"/customers/{cid}/sms-consent"))
    assert consent == {
        "consent": False,
        "phone": "+14155552671",
        "source": "Api",
        "recordedAtUtc": "2025-03-16T09:26:53Z",
    }
    latest = history(shop, cid)[0]
    assert latest["reason"] == "phone changed"
    assert latest["consent"] is False
    # Consent must be given again, now for the new number.
    again = shop.ok(shop.put(f"/customers/{cid}/sms-consent", {"consent": True}))
    assert again["phone"] == "+12125550142"
    # Clearing the phone withdraws too.
    shop.ok(shop.patch(f"/customers/{cid}", {"phone": None}))
    assert shop.ok(shop.get(f"/customers/{cid}/sms-consent"))["consent"] is False
    assert len(history(shop, cid)) == 4


def test_the_history_pages_and_belongs_to_its_customer(
    shop: Shop, customer: dict[str, Any], clock: FixedClock
) -> None:
    cid = customer["customerId"]
    for i in range(5):
        clock.advance(timedelta(minutes=1))
        shop.ok(shop.put(f"/customers/{cid}/sms-consent", {"consent": i % 2 == 0}))
    first = shop.ok(shop.get(f"/customers/{cid}/sms-consent/history", params={"limit": 2}))
    assert first["hasMore"] is True
    assert first["nextCursor"] == first["data"][-1]["consentRecordId"]
    seen = [r["consentRecordId"] for r in first["data"]]
    cursor = first["nextCursor"]
    while cursor:
        page = shop.ok(
            shop.get(
                f"/customers/{cid}/sms-consent/history",
                params={"limit": 2, "startingAfter": cursor},
            )
        )
        seen += [r["consentRecordId"] for r in page["data"]]
        cursor = page["nextCursor"]
    assert len(seen) == len(set(seen)) == 5
    other = shop.created("/customers", {"name": {"first": "Other"}})["customerId"]
    wrong = shop.get(f"/customers/{other}/sms-consent/history", params={"startingAfter": seen[0]})
    assert error_fields(wrong) == ["startingAfter"]
    problem(shop.get("/customers/cus_nope/sms-consent"), 404)
    problem(shop.put("/customers/cus_nope/sms-consent", {"consent": False}), 404)
    problem(shop.put(f"/customers/{cid}/sms-consent", {"phone": "+14155552671"}), 400)
