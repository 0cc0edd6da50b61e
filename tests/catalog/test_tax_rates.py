"""Named tax rates, the one default, and the suggestion and observed figures."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal

import httpx
import pytest

from payhub.adapters.system import FixedClock
from payhub.domain.taxes import Jurisdiction, ObservedTaxRate
from tests.conftest import START
from tests.customers.support import Shop, all_pages
from tests.http.support import error_fields, problem


def rate(shop: Shop, name: str, percent: object, **extra: object) -> str:
    return str(shop.created("/tax-rates", {"name": name, "percent": percent, **extra})["taxRateId"])


def default_of(shop: Shop) -> str | None:
    found: str | None = shop.read(lambda uow, m: uow.tax_rates.settings(m).default_tax_rate_id)
    return found


def test_create_and_read_a_rate(shop: Shop) -> None:
    body = shop.created("/tax-rates", {"name": "San Francisco", "percent": 8.625})
    assert body == {
        "taxRateId": body["taxRateId"],
        "name": "San Francisco",
        "percent": 8.625,
        "isActive": True,
        "isDefault": False,
        "createdAtUtc": "2025-03-14T09:26:53Z",
        "updatedAtUtc": "2025-03-14T09:26:53Z",
    }
    assert body["taxRateId"].startswith("txr_")
    stored = shop.read(lambda uow, m: uow.tax_rates.get(m, body["taxRateId"]))
    assert stored.percent == Decimal("8.625")
    assert shop.ok(shop.get(f"/tax-rates/{body['taxRateId']}")) == body
    problem(shop.get("/tax-rates/txr_nope"), 404)


def post_raw(shop: Shop, json_text: str) -> httpx.Response:
    """JSON as written, so numbers keep their exact digits."""
    return shop.client.post(
        shop.base + "/tax-rates",
        content=json_text,
        headers={**shop.headers, "content-type": "application/json"},
    )


@pytest.mark.parametrize(
    ("percent", "kept"),
    [("0", "0"), ("100", "100"), ("12.3456", "12.3456"), ("7.25", "7.25"), ("8.2500", "8.25")],
)
def test_zero_to_one_hundred_with_four_decimals(shop: Shop, percent: str, kept: str) -> None:
    created = post_raw(shop, f'{{"name": "R", "percent": {percent}}}')
    assert created.status_code == 201, created.text
    assert f'"percent":{kept},' in created.text
    stored = shop.read(lambda uow, m: uow.tax_rates.list(m))
    assert [r.percent for r in stored] == [Decimal(kept)]


@pytest.mark.parametrize("percent", ["-0.01", "100.0001", "8.12345", "1000"])
def test_other_percentages_are_400(shop: Shop, percent: str) -> None:
    response = post_raw(shop, f'{{"name": "R", "percent": {percent}}}')
    assert error_fields(response) == ["percent"]
    assert shop.read(lambda uow, m: uow.tax_rates.list(m, include_inactive=True)) == []


def test_a_blank_or_long_name_is_400(shop: Shop) -> None:
    assert error_fields(shop.post("/tax-rates", {"name": " ", "percent": 1})) == ["name"]
    assert error_fields(shop.post("/tax-rates", {"name": "n" * 101, "percent": 1})) == ["name"]


def test_edit_changes_name_and_percentage(shop: Shop, clock: FixedClock) -> None:
    rid = rate(shop, "State", 6)
    clock.advance(timedelta(days=1))
    body = shop.ok(shop.put(f"/tax-rates/{rid}", {"name": "State + county", "percent": 7.25}))
    assert (body["name"], body["percent"], body["updatedAtUtc"]) == (
        "State + county",
        7.25,
        "2025-03-15T09:26:53Z",
    )
    assert error_fields(shop.put(f"/tax-rates/{rid}", {"name": "X", "percent": 101})) == ["percent"]
    assert shop.read(lambda uow, m: uow.tax_rates.get(m, rid)).percent == Decimal("7.25")
    problem(shop.put("/tax-rates/txr_nope", {"name": "X", "percent": 1}), 404)


def test_one_default_per_merchant_and_setting_a_new_one_moves_it(shop: Shop, sister: Shop) -> None:
    first = rate(shop, "A", 5, isDefault=True)
    assert default_of(shop) == first
    second = rate(shop, "B", 6)
    body = shop.ok(shop.post(f"/tax-rates/{second}/default"))
    assert body["isDefault"] is True
    assert default_of(shop) == second
    listed = {r["taxRateId"]: r["isDefault"] for r in shop.ok(shop.get("/tax-rates"))["data"]}
    assert listed == {first: False, second: True}
    third = rate(shop, "C", 7, isDefault=True)
    assert default_of(shop) == third
    # The sister merchant's default is its own.
    theirs = rate(sister, "S", 1, isDefault=True)
    assert default_of(sister) == theirs
    assert default_of(shop) == third
    problem(shop.post(f"/tax-rates/{theirs}/default"), 404)
    problem(shop.post("/tax-rates/txr_nope/default"), 404)


def test_deactivating_the_default_leaves_none_and_inactive_cannot_be_default(shop: Shop) -> None:
    rid = rate(shop, "A", 5, isDefault=True)
    off = shop.ok(shop.post(f"/tax-rates/{rid}/deactivate"))
    assert (off["isActive"], off["isDefault"]) == (False, False)
    assert default_of(shop) is None
    problem(shop.post(f"/tax-rates/{rid}/default"), 409)
    assert shop.ok(shop.get("/tax-rates"))["data"] == []
    everything = shop.ok(shop.get("/tax-rates", params={"includeInactive": True}))["data"]
    assert [r["taxRateId"] for r in everything] == [rid]
    assert shop.ok(shop.post(f"/tax-rates/{rid}/activate"))["isActive"] is True
    assert shop.ok(shop.post(f"/tax-rates/{rid}/default"))["isDefault"] is True


def test_the_list_pages_by_name(shop: Shop) -> None:
    for name in ("delta", "Alpha", "charlie", "Bravo", "echo"):
        rate(shop, name, 1)
    pages = all_pages(shop, "/tax-rates", limit=2)
    assert [r["name"] for page in pages for r in page] == [
        "Alpha",
        "Bravo",
        "charlie",
        "delta",
        "echo",
    ]


def observe(shop: Shop, code: str, percent: str, at: datetime, *parts: tuple[str, str]) -> None:
    """What the accounting integration will do: record an observed rate."""
    with shop.hub.store.unit_of_work() as uow:
        merchant = shop.merchant(uow)
        uow.tax_rates.record_observed(
            ObservedTaxRate(
                id=shop.hub.deps.new_id("otr"),
                merchant_id=merchant.id,
                postal_code=code,
                percent=Decimal(percent),
                jurisdictions=tuple(Jurisdiction(n, Decimal(p)) for n, p in parts),
                confirmed_at=at,
            )
        )


def test_with_nothing_reported_there_is_no_suggestion(shop: Shop) -> None:
    body = shop.ok(shop.get("/tax-rates/suggestion", params={"postalCode": "94105"}))
    assert body == {
        "found": False,
        "postalCode": None,
        "percent": None,
        "jurisdictions": [],
        "lastConfirmedAtUtc": None,
        "isStale": False,
    }
    observed = shop.ok(shop.get("/tax-rates/observed"))
    assert observed == {
        "automaticSalesTax": False,
        "observed": [],
        "hasMore": False,
        "nextCursor": None,
    }


def test_the_suggestion_is_the_newest_report_and_goes_stale_after_30_days(
    shop: Shop, sister: Shop, clock: FixedClock
) -> None:
    observe(shop, "94105", "8.5", START - timedelta(days=40))
    observe(
        shop,
        "94105",
        "8.625",
        START - timedelta(days=2),
        ("California", "7.25"),
        ("San Francisco County", "1.375"),
    )
    observe(sister, "94105", "1", START)
    body = shop.ok(shop.get("/tax-rates/suggestion", params={"postalCode": "94105-1234"}))
    assert body == {
        "found": True,
        "postalCode": "94105",
        "percent": 8.625,
        "jurisdictions": [
            {"name": "California", "percent": 7.25},
            {"name": "San Francisco County", "percent": 1.375},
        ],
        "lastConfirmedAtUtc": "2025-03-12T09:26:53Z",
        "isStale": False,
    }
    clock.advance(timedelta(days=28))  # exactly 30 days after the report: not yet stale
    assert (
        shop.ok(shop.get("/tax-rates/suggestion", params={"postalCode": "94105"}))["isStale"]
        is False
    )
    clock.advance(timedelta(seconds=1))
    assert (
        shop.ok(shop.get("/tax-rates/suggestion", params={"postalCode": "94105"}))["isStale"]
        is True
    )
    other = shop.ok(shop.get("/tax-rates/suggestion", params={"postalCode": "10001"}))
    assert other["found"] is False


def test_the_suggestion_needs_a_postal_code(shop: Shop) -> None:
    problem(shop.get("/tax-rates/suggestion"), 400)
    problem(shop.get("/tax-rates/suggestion", params={"postalCode": " "}), 400)
    problem(shop.get("/tax-rates/suggestion", params={"postalCode": "1" * 21}), 400)


def test_observed_lists_the_newest_per_postal_code_and_the_flag(shop: Shop) -> None:
    observe(shop, "94105", "8.5", START - timedelta(days=40))
    observe(shop, "94105", "8.625", START - timedelta(days=1))
    observe(shop, "10001", "8.875", START - timedelta(days=31))
    observe(shop, "60601", "10.25", START)
    with shop.hub.store.unit_of_work() as uow:
        uow.tax_rates.set_automatic_sales_tax(shop.merchant(uow).id, True, START)
    body = shop.ok(shop.get("/tax-rates/observed"))
    assert body["automaticSalesTax"] is True
    assert [(o["postalCode"], o["percent"], o["isStale"]) for o in body["observed"]] == [
        ("10001", 8.875, True),
        ("60601", 10.25, False),
        ("94105", 8.625, False),
    ]
    first = shop.ok(shop.get("/tax-rates/observed", params={"limit": 2}))
    assert first["hasMore"] is True
    assert first["nextCursor"] == "60601"
    rest = shop.ok(shop.get("/tax-rates/observed", params={"limit": 2, "startingAfter": "60601"}))
    assert [o["postalCode"] for o in rest["observed"]] == ["94105"]
    assert rest["hasMore"] is False
    # Setting a default rate does not touch the flag.
    shop.ok(shop.post(f"/tax-rates/{rate(shop, 'A', 1)}/default"))
    assert shop.ok(shop.get("/tax-rates/observed"))["automaticSalesTax"] is True
