"""The portal-side commands: staff record SMS consent; customers and the catalog as tables."""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from payhub import PayHub
from payhub.domain.consent import ConsentSource
from payhub_cli.main import cli
from tests.conftest import Account
from tests.customers.support import Client, Shop

Run = Callable[..., Result]

pytestmark = pytest.mark.parametrize("store_url", ["sqlite"], indirect=True)


@pytest.fixture
def run(store_url: str, key_file: Path, hub: PayHub) -> Run:
    """``payhub ARGS --db …`` against the test's database; the exit code is checked."""
    runner = CliRunner(env={"PAYHUB_KEY_FILE": str(key_file)})

    def invoke(*args: str, code: int = 0) -> Result:
        result = runner.invoke(cli, [*args, "--db", store_url])
        assert result.exit_code == code, (args, result.exit_code, result.output, result.exception)
        return result

    return invoke


def test_staff_record_and_withdraw_consent_in_the_history(
    run: Run, shop: Shop, customer: dict[str, Any]
) -> None:
    cid = customer["customerId"]
    given = run(
        "customers",
        "consent",
        cid,
        "--merchant",
        "acme",
        "--consent",
        "given",
        "--operator",
        "jane@acme.example",
        "--json",
    )
    assert json.loads(given.stdout)["source"] == "Portal"
    text = run(
        "customers",
        "consent",
        cid,
        "--merchant",
        "acme",
        "--consent",
        "withdrawn",
        "--operator",
        "jane@acme.example",
    )
    assert "withdrawn for +14155552671 by portal:jane@acme.example" in text.stdout
    records = shop.read(lambda uow, m: uow.customers.consent_history(m, cid))
    assert [(r.consent, r.source, r.recorded_by) for r in records] == [
        (False, ConsentSource.PORTAL, "portal:jane@acme.example"),
        (True, ConsentSource.PORTAL, "portal:jane@acme.example"),
    ]
    table = run("customers", "consent-history", cid, "--merchant", "acme").stdout
    assert table.count("Portal") == 2
    # The API reads it the same way.
    api = shop.ok(shop.get(f"/customers/{cid}/sms-consent"))
    assert (api["consent"], api["source"]) == (False, "Portal")


def test_staff_consent_follows_the_same_rules(
    run: Run, shop: Shop, customer: dict[str, Any]
) -> None:
    cid = customer["customerId"]
    refused = run(
        "customers",
        "consent",
        cid,
        "--merchant",
        "acme",
        "--consent",
        "given",
        "--phone",
        "+44 7911 123456",
        "--operator",
        "jane",
        code=2,
    )
    assert "must be a US number" in refused.output
    blank = run(
        "customers",
        "consent",
        cid,
        "--merchant",
        "acme",
        "--consent",
        "given",
        "--operator",
        " ",
        code=2,
    )
    assert "operator" in blank.output
    run(
        "customers",
        "consent",
        "cus_nope",
        "--merchant",
        "acme",
        "--consent",
        "given",
        "--operator",
        "jane",
        code=1,
    )
    assert shop.read(lambda uow, m: uow.customers.consent_history(m, cid)) == []


def test_listings_print_tables_and_json(run: Run, shop: Shop, customer: dict[str, Any]) -> None:
    rate = shop.created("/tax-rates", {"name": "CA", "percent": 8.25, "isDefault": True})
    shop.created("/locations", {"name": "Main", "shortCode": "mn", "taxRateId": rate["taxRateId"]})
    category = shop.created("/product-categories", {"name": "Drinks", "color": "#00FF00"})
    shop.created(
        "/products",
        {"name": "Tea", "unitPrice": 2.5, "sku": "T-1", "categoryId": category["categoryId"]},
    )
    customers = run("customers", "list", "--merchant", "acme").stdout
    assert "Ada Lovelace" in customers
    assert customer["customerId"] in customers
    assert "$2.50" in run("products", "list", "--merchant", "acme").stdout
    assert "#00FF00" in run("categories", "list", "--merchant", "acme").stdout
    rates = run("tax-rates", "list", "--merchant", "acme").stdout
    assert "8.25%" in rates
    locations = run("locations", "list", "--merchant", "acme").stdout
    assert "MN" in locations
    assert "locations enabled: no" in locations
    listed = json.loads(run("products", "list", "--merchant", "acme", "--json").stdout)
    assert listed["data"][0]["sku"] == "T-1"
    assert Decimal(listed["data"][0]["unitPrice"]) == Decimal("2.50")
    assert (
        "(no products)"
        in run("products", "list", "--merchant", "acme", "--category", "cat_none").stdout
    )


def test_lists_page_and_name_the_next_cursor(run: Run, shop: Shop) -> None:
    for name in ("A", "B", "C"):
        shop.created("/product-categories", {"name": name})
    first = run("categories", "list", "--merchant", "acme", "--limit", "2").stdout
    assert "(more: --starting-after cat_" in first
    cursor = first.rsplit("--starting-after ", 1)[1].strip(" )\n")
    rest = run("categories", "list", "--merchant", "acme", "--starting-after", cursor).stdout
    assert " C " in rest
    assert "more:" not in rest


def test_an_ambiguous_or_unknown_merchant_is_refused(
    run: Run,
    shop: Shop,
    client: Client,
    other_provider: Account,
    make_merchant: Callable[..., dict[str, Any]],
) -> None:
    run("customers", "list", "--merchant", "nowhere", code=1)
    make_merchant(other_provider, "acme")
    ambiguous = run("customers", "list", "--merchant", "acme", code=2)
    assert "name the provider" in ambiguous.output
    named = run(
        "customers", "list", "--merchant", "acme", "--provider", other_provider.provider.id
    ).stdout
    assert "(no customers)" in named
